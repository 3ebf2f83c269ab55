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
from pdireval._errors import MetricError, MissingDependencyError, PdirevalError, SchemaError
from pdireval._prepare.columns import ColumnMap
from pdireval._version import __version__

if TYPE_CHECKING:
    from pdireval import datasets, fusion, metrics
    from pdireval._agreement import (
        agreement,
        confusion_matrix,
        fleiss_kappa,
        krippendorff_alpha,
        query_agreement,
    )
    from pdireval._holes import Bounds, bounds, hole_counts, holes
    from pdireval._judge_conclusions import JudgeConclusions, judge_conclusions
    from pdireval._judging_sheet import read_judging_sheet, write_judging_sheet
    from pdireval._report import Report
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
    from pdireval.correlation import (
        kendall,
        rank_correlation,
        spearman,
        system_correlation,
        tau_ap,
        tau_ap_b,
    )
    from pdireval.fusion import fuse, fusion_fit, normalize, optimize_fusion
    from pdireval.io import read_qrels, read_queries, read_run, write_qrels, write_run
    from pdireval.meta import asl_curve, discriminative_power, ranking_stability, swap_rate
    from pdireval.metrics import Metric, parse_metric
    from pdireval.overlap import rank_biased_overlap, rbo
    from pdireval.pooling import pool, pool_contribution
    from pdireval.qpp import qpp_evaluation, smare
    from pdireval.reproducibility import reproduction
    from pdireval.risk_sensitive import georisk, risk
    from pdireval.tukey import letter_groups, tukey_hsd

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
    "Report": ("pdireval._report", "Report"),
    **{
        name: ("pdireval._agreement", name)
        for name in (
            "agreement",
            "confusion_matrix",
            "fleiss_kappa",
            "krippendorff_alpha",
            "query_agreement",
        )
    },
    **{
        name: ("pdireval._judge_conclusions", name)
        for name in ("JudgeConclusions", "judge_conclusions")
    },
    **{
        name: ("pdireval.correlation", name)
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
        name: ("pdireval.io", name)
        for name in ("read_qrels", "read_queries", "read_run", "write_qrels", "write_run")
    },
    **{name: ("pdireval.overlap", name) for name in ("rank_biased_overlap", "rbo")},
    **{name: ("pdireval.pooling", name) for name in ("pool", "pool_contribution")},
    "reproduction": ("pdireval.reproducibility", "reproduction"),
    **{name: ("pdireval.risk_sensitive", name) for name in ("georisk", "risk")},
    **{name: ("pdireval.tukey", name) for name in ("letter_groups", "tukey_hsd")},
    **{name: ("pdireval.qpp", name) for name in ("qpp_evaluation", "smare")},
    **{
        name: ("pdireval.meta", name)
        for name in ("asl_curve", "discriminative_power", "ranking_stability", "swap_rate")
    },
    "fusion": ("pdireval.fusion", None),
    **{name: ("pdireval._holes", name) for name in ("Bounds", "bounds", "hole_counts", "holes")},
    **{
        name: ("pdireval._judging_sheet", name)
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
