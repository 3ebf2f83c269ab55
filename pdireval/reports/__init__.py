"""Reports of a comparison of runs: the :class:`Report` model and one module per output
format, each rendering the model with its own escaping.

Rule: imports ``pdireval.judgments``, ``pdireval.stats``, ``pdireval.io`` and the layers
below them; nothing of ``pdireval.plotting``, its sibling.
"""

from __future__ import annotations

from pdireval.reports.build import build_report
from pdireval.reports.model import Report

__all__ = ["Report", "build_report"]
