"""pdireval: information-retrieval evaluation as a pandas operation.

``import pdireval`` registers the ``DataFrame.ireval`` accessor and imports
nothing beyond numpy, pandas and pyarrow; reading files, reports, the example collection
and the analyses beyond evaluation are loaded when first used.

Examples
--------
>>> import pandas as pd, pdireval
>>> df = pd.DataFrame({"query": ["q1", "q1", "q1"], "doc": ["a", "b", "c"],
...                    "score": [0.9, 0.5, 0.1], "rel": [0, 2, 1]})
>>> df.ireval.evaluate(["AP", "nDCG@2"]).round(4)
metric      AP  nDCG@2
query
q1      0.5833  0.4796
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

from pdireval import typing
from pdireval._accessor import IREvalAccessor
from pdireval._core.errors import MetricError, MissingDependencyError, PdirevalError, SchemaError
from pdireval._core.roles import ColumnMap
from pdireval._core.version import __version__

if TYPE_CHECKING:
    from pdireval import datasets, fusion, metrics
    from pdireval.api import (
        ap,
        compare,
        curve,
        dcg,
        efficiency,
        evaluate,
        gmap,
        map,  # noqa: A004 - pdireval.map is the name users expect
        merge_qrels,
        mrr,
        ndcg,
        per_query,
        pr_curve,
        precision,
        r_precision,
        recall,
        report,
        rr,
        seed_summary,
        success,
        summary,
        tie_groups,
    )
    from pdireval.fusion import fuse, fusion_fit, normalize, optimize_fusion
    from pdireval.io.trec import read_qrels, read_queries, read_run, write_qrels, write_run
    from pdireval.judgments.agreement import (
        agreement,
        confusion_matrix,
        fleiss_kappa,
        krippendorff_alpha,
        query_agreement,
    )
    from pdireval.judgments.conclusions import JudgeConclusions, judge_conclusions
    from pdireval.judgments.holes import Bounds, bounds, hole_counts, holes
    from pdireval.judgments.pooling import pool, pool_contribution
    from pdireval.judgments.sheets import read_judging_sheet, write_judging_sheet
    from pdireval.metrics import Metric, parse_metric
    from pdireval.reports.model import Report
    from pdireval.stats.correlation import (
        kendall,
        rank_correlation,
        spearman,
        system_correlation,
        tau_ap,
        tau_ap_b,
    )
    from pdireval.stats.meta import asl_curve, discriminative_power, ranking_stability, swap_rate
    from pdireval.stats.overlap import rank_biased_overlap, rbo
    from pdireval.stats.qpp import qpp_evaluation, smare
    from pdireval.stats.reproduction import reproduction
    from pdireval.stats.risk import georisk, risk
    from pdireval.stats.tukey import letter_groups, tukey_hsd

#: The evaluating functions (numpy arithmetic over sorted arrays, the metric registry).
_API = (
    "ap", "compare", "curve", "dcg", "efficiency", "evaluate", "gmap", "map", "merge_qrels",
    "mrr", "ndcg", "per_query", "pr_curve", "precision", "r_precision", "recall", "report",
    "rr", "seed_summary", "success", "summary", "tie_groups",
)  # fmt: skip

#: What ``import pdireval`` leaves until first use (PEP 562): everything but the accessor,
#: so that ``import pdireval`` costs little more than ``import pandas`` and the command line
#: answers ``--help`` at once. ``pdireval.evaluate``, ``pdireval.read_run`` etc. work as if
#: imported at once.
_LOADED_WHEN_USED = {
    **{name: ("pdireval.api", name) for name in _API},
    "metrics": ("pdireval.metrics", None),
    "Metric": ("pdireval.metrics", "Metric"),
    "parse_metric": ("pdireval.metrics", "parse_metric"),
    "datasets": ("pdireval.datasets", None),
    "Report": ("pdireval.reports.model", "Report"),
    **{
        name: ("pdireval.judgments.agreement", name)
        for name in (
            "agreement",
            "confusion_matrix",
            "fleiss_kappa",
            "krippendorff_alpha",
            "query_agreement",
        )
    },
    **{
        name: ("pdireval.judgments.conclusions", name)
        for name in ("JudgeConclusions", "judge_conclusions")
    },
    **{
        name: ("pdireval.stats.correlation", name)
        for name in (
            "kendall",
            "rank_correlation",
            "spearman",
            "system_correlation",
            "tau_ap",
            "tau_ap_b",
            "tau_ap_b",
        )
    },
    **{
        name: ("pdireval.io.trec", name)
        for name in ("read_qrels", "read_queries", "read_run", "write_qrels", "write_run")
    },
    **{name: ("pdireval.stats.overlap", name) for name in ("rank_biased_overlap", "rbo")},
    **{name: ("pdireval.judgments.pooling", name) for name in ("pool", "pool_contribution")},
    "reproduction": ("pdireval.stats.reproduction", "reproduction"),
    **{name: ("pdireval.stats.risk", name) for name in ("georisk", "risk")},
    **{name: ("pdireval.stats.tukey", name) for name in ("letter_groups", "tukey_hsd")},
    **{name: ("pdireval.stats.qpp", name) for name in ("qpp_evaluation", "smare")},
    **{
        name: ("pdireval.stats.meta", name)
        for name in ("asl_curve", "discriminative_power", "ranking_stability", "swap_rate")
    },
    "fusion": ("pdireval.fusion", None),
    **{
        name: ("pdireval.judgments.holes", name)
        for name in ("Bounds", "bounds", "hole_counts", "holes")
    },
    **{
        name: ("pdireval.judgments.sheets", name)
        for name in ("read_judging_sheet", "write_judging_sheet")
    },
    **{
        name: ("pdireval.fusion", name)
        for name in ("fuse", "fusion_fit", "normalize", "optimize_fusion")
    },
}


def __getattr__(name: str) -> Any:
    """The parts of pdireval loaded when first used (see ``_LOADED_WHEN_USED``)."""
    if name not in _LOADED_WHEN_USED:
        msg = f"module 'pdireval' has no attribute {name!r}"
        raise AttributeError(msg)
    module, attribute = _LOADED_WHEN_USED[name]
    value = importlib.import_module(module)
    return value if attribute is None else getattr(value, attribute)


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))


__all__ = [
    "Bounds",
    "ColumnMap",
    "IREvalAccessor",
    "JudgeConclusions",
    "Metric",
    "MetricError",
    "MissingDependencyError",
    "PdirevalError",
    "Report",
    "SchemaError",
    "__version__",
    "agreement",
    "ap",
    "asl_curve",
    "bounds",
    "compare",
    "confusion_matrix",
    "curve",
    "datasets",
    "dcg",
    "discriminative_power",
    "efficiency",
    "evaluate",
    "fleiss_kappa",
    "fuse",
    "fusion",
    "fusion_fit",
    "georisk",
    "gmap",
    "hole_counts",
    "holes",
    "judge_conclusions",
    "kendall",
    "krippendorff_alpha",
    "letter_groups",
    "map",
    "merge_qrels",
    "metrics",
    "mrr",
    "ndcg",
    "normalize",
    "optimize_fusion",
    "parse_metric",
    "per_query",
    "pool",
    "pool_contribution",
    "pr_curve",
    "precision",
    "qpp_evaluation",
    "query_agreement",
    "r_precision",
    "rank_biased_overlap",
    "rank_correlation",
    "ranking_stability",
    "rbo",
    "read_judging_sheet",
    "read_qrels",
    "read_queries",
    "read_run",
    "recall",
    "report",
    "reproduction",
    "risk",
    "rr",
    "seed_summary",
    "smare",
    "spearman",
    "success",
    "summary",
    "swap_rate",
    "system_correlation",
    "tau_ap",
    "tau_ap_b",
    "tie_groups",
    "tukey_hsd",
    "typing",
    "write_judging_sheet",
    "write_qrels",
    "write_run",
]
