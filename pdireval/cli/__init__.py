"""The ``pdireval`` command: trec_eval's command line over pdireval's engine, and
``pdireval fuse`` and ``pdireval demo``.

Rule: the top layer; it may import any other, and none imports it.
"""

from __future__ import annotations

from pdireval.cli.main import console, main

__all__ = ["console", "main"]
