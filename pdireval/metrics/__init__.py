"""The metric registry: every measure is a declared :class:`Family` registered once.

Importing this package registers the families; look them up by name with
:func:`parse_metric` or use the objects directly (``P @ 10``, ``nDCG(gain='exp') @ 10``).
"""

from __future__ import annotations

from pdireval.metrics._base import REGISTRY, Family, Metric, Param
from pdireval.metrics._parse import MetricLike, parse_metric, parse_metrics
from pdireval.metrics.average_precision import AP
from pdireval.metrics.bpref import Bpref
from pdireval.metrics.counts import NumNonRelJudgedRet, NumRel, NumRelRet, NumRet
from pdireval.metrics.dcg import DCG, nDCG
from pdireval.metrics.interpolated import IPrec, iAP
from pdireval.metrics.precision import P, RelP, Rprec
from pdireval.metrics.recall import R
from pdireval.metrics.reciprocal_rank import RR, Success
from pdireval.metrics.set_based import SetAP, SetF, SetP, SetR, SetRelP

__all__ = [
    "AP",
    "DCG",
    "REGISTRY",
    "RR",
    "Bpref",
    "Family",
    "IPrec",
    "Metric",
    "MetricLike",
    "NumNonRelJudgedRet",
    "NumRel",
    "NumRelRet",
    "NumRet",
    "P",
    "Param",
    "R",
    "RelP",
    "Rprec",
    "SetAP",
    "SetF",
    "SetP",
    "SetR",
    "SetRelP",
    "Success",
    "iAP",
    "nDCG",
    "parse_metric",
    "parse_metrics",
]
