"""The metric registry: every measure is a declared :class:`Family` registered once.

Importing this package registers the families; look them up by name with
:func:`parse_metric` or use the objects directly (``P @ 10``, ``nDCG(gain='exp') @ 10``).
Declare metrics of your own with :func:`define` (a vectorised kernel over a
:class:`Ranked`) or :func:`define_per_query` (a Python function of one query).

Rule: imports ``pdireval._prepare`` and ``pdireval._core`` only.
"""

from __future__ import annotations

from pdireval._prepare.ranked import Ranked
from pdireval.metrics._base import REGISTRY, Family, Metric, Param
from pdireval.metrics._define import define, define_per_query
from pdireval.metrics._parse import MetricLike, parse_metric, parse_metrics
from pdireval.metrics.accuracy import Accuracy
from pdireval.metrics.average_precision import AP
from pdireval.metrics.bpref import Bpref
from pdireval.metrics.citations import (
    SupportPrecision,
    SupportRecall,
    WeightedPrecision,
    WeightedRecall,
)
from pdireval.metrics.compat import Compat
from pdireval.metrics.counts import NumNonRelJudgedRet, NumQ, NumRel, NumRelRet, NumRet
from pdireval.metrics.cwl import AP_CWL, BPM, IFT, INST, P_CWL, RBP_CWL, RR_CWL, SDCG, TBG, U
from pdireval.metrics.dcg import DCG, IDCG, Rndcg, nDCG
from pdireval.metrics.diversity import (
    AP_IA,
    ERR_IA,
    NRBP,
    P_IA,
    StRecall,
    alpha_DCG,
    alpha_nDCG,
    nERR_IA,
    nNRBP,
)
from pdireval.metrics.efficiency import Latency
from pdireval.metrics.err import ERR
from pdireval.metrics.gain import G, binG
from pdireval.metrics.inferred import infAP
from pdireval.metrics.interpolated import IPrec, iAP
from pdireval.metrics.judged import Judged, Unjudged
from pdireval.metrics.nerr import NERR8, NERR9, NERR10, NERR11
from pdireval.metrics.nuggets import AllScore, StrictAll, StrictVital, VitalScore
from pdireval.metrics.precision import P, RelP, Rprec
from pdireval.metrics.rank_biased import RBP, RBPResidual
from pdireval.metrics.recall import R
from pdireval.metrics.reciprocal_rank import RR, Success
from pdireval.metrics.search_length import SearchLength
from pdireval.metrics.set_based import SetAP, SetF, SetP, SetR, SetRelP
from pdireval.metrics.user import (
    ESL,
    Coverage,
    Frustration,
    Novelty,
    RecallEffort,
    RelativeRecall,
    Satisfaction,
)
from pdireval.metrics.utility import Utility
from pdireval.metrics.yaap import YAAP

__all__ = [
    "AP",
    "AP_CWL",
    "AP_IA",
    "BPM",
    "DCG",
    "ERR",
    "ERR_IA",
    "ESL",
    "IDCG",
    "IFT",
    "INST",
    "NERR8",
    "NERR9",
    "NERR10",
    "NERR11",
    "NRBP",
    "P_CWL",
    "P_IA",
    "RBP",
    "RBP_CWL",
    "REGISTRY",
    "RR",
    "RR_CWL",
    "SDCG",
    "TBG",
    "YAAP",
    "Accuracy",
    "AllScore",
    "Bpref",
    "Compat",
    "Coverage",
    "Family",
    "Frustration",
    "G",
    "IPrec",
    "Judged",
    "Latency",
    "Metric",
    "MetricLike",
    "Novelty",
    "NumNonRelJudgedRet",
    "NumQ",
    "NumRel",
    "NumRelRet",
    "NumRet",
    "P",
    "Param",
    "R",
    "RBPResidual",
    "Ranked",
    "RecallEffort",
    "RelP",
    "RelativeRecall",
    "Rndcg",
    "Rprec",
    "Satisfaction",
    "SearchLength",
    "SetAP",
    "SetF",
    "SetP",
    "SetR",
    "SetRelP",
    "StRecall",
    "StrictAll",
    "StrictVital",
    "Success",
    "SupportPrecision",
    "SupportRecall",
    "U",
    "Unjudged",
    "Utility",
    "VitalScore",
    "WeightedPrecision",
    "WeightedRecall",
    "alpha_DCG",
    "alpha_nDCG",
    "binG",
    "define",
    "define_per_query",
    "iAP",
    "infAP",
    "nDCG",
    "nERR_IA",
    "nNRBP",
    "parse_metric",
    "parse_metrics",
]
