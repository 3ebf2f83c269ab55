"""Run fusion: combine the rankings of several runs into one.

:func:`fuse` combines runs with one of ranx's unsupervised methods, :func:`normalize`
normalises their scores, and :func:`optimize_fusion` searches the weights and parameters
that evaluate best on judged queries.

Rule: imports ``pdireval.engine`` (to evaluate) and the layers below it; nothing of
``pdireval.judgments``, its sibling.
"""

from __future__ import annotations

from pdireval.fusion._fuse import fuse
from pdireval.fusion.methods import METHODS
from pdireval.fusion.normalization import NORMS, normalize
from pdireval.fusion.search import FusionSearch, optimize_fusion
from pdireval.fusion.supervised import FusionModel, fusion_fit

__all__ = [
    "METHODS",
    "NORMS",
    "FusionModel",
    "FusionSearch",
    "fuse",
    "fusion_fit",
    "normalize",
    "optimize_fusion",
]
