"""``python -m pdireval``: the command line, as the ``pdireval`` command (``--help``)."""

from __future__ import annotations

from pdireval.cli.main import console

if __name__ == "__main__":
    console()
