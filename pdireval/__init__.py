"""pdireval: information-retrieval evaluation as a pandas operation.

``import pdireval`` registers the ``DataFrame.ireval`` accessor and imports
nothing beyond numpy and pandas.

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

from pdireval import datasets, metrics, typing
from pdireval._accessor import IREvalAccessor
from pdireval._errors import MetricError, MissingDependencyError, PdirevalError, SchemaError
from pdireval._prepare.columns import ColumnMap
from pdireval._report import Report
from pdireval._version import __version__
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
    rank_correlation,
    recall,
    report,
    rr,
    success,
    summary,
    tie_groups,
)
from pdireval.correlation import kendall, spearman, system_correlation, tau_ap
from pdireval.io import read_qrels, read_run, write_qrels, write_run
from pdireval.metrics import Metric, parse_metric
from pdireval.overlap import rank_biased_overlap, rbo
from pdireval.pooling import pool, pool_contribution
from pdireval.reproducibility import reproduction

__all__ = [
    "ColumnMap",
    "IREvalAccessor",
    "Metric",
    "MetricError",
    "MissingDependencyError",
    "PdirevalError",
    "Report",
    "SchemaError",
    "__version__",
    "ap",
    "compare",
    "curve",
    "datasets",
    "dcg",
    "efficiency",
    "evaluate",
    "gmap",
    "kendall",
    "map",
    "merge_qrels",
    "metrics",
    "mrr",
    "ndcg",
    "parse_metric",
    "per_query",
    "pool",
    "pool_contribution",
    "pr_curve",
    "precision",
    "r_precision",
    "rank_biased_overlap",
    "rank_correlation",
    "rbo",
    "read_qrels",
    "read_run",
    "recall",
    "report",
    "reproduction",
    "rr",
    "spearman",
    "success",
    "summary",
    "system_correlation",
    "tau_ap",
    "tie_groups",
    "typing",
    "write_qrels",
    "write_run",
]
