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

from pdireval import metrics
from pdireval._accessor import IREvalAccessor
from pdireval._columns import ColumnMap
from pdireval._errors import MetricError, MissingDependencyError, PdirevalError, SchemaError
from pdireval.api import (
    ap,
    compare,
    dcg,
    evaluate,
    gmap,
    map,  # noqa: A004 - pdireval.map is the name users expect
    merge_qrels,
    mrr,
    ndcg,
    per_query,
    precision,
    r_precision,
    recall,
    report,
    rr,
    success,
    summary,
)
from pdireval.metrics import Metric, parse_metric
from pdireval.report import Report

__version__ = "0.1.0"

__all__ = [
    "ColumnMap",
    "IREvalAccessor",
    "Metric",
    "MetricError",
    "MissingDependencyError",
    "PdirevalError",
    "Report",
    "SchemaError",
    "ap",
    "compare",
    "dcg",
    "evaluate",
    "gmap",
    "map",
    "merge_qrels",
    "metrics",
    "mrr",
    "ndcg",
    "parse_metric",
    "per_query",
    "precision",
    "r_precision",
    "recall",
    "report",
    "rr",
    "success",
    "summary",
]
