"""Typed public functions: the real API behind the ``.ireval`` accessor.

Every evaluating function takes a long frame (DESIGN §1), validates it once,
prepares it once and runs all requested metrics over the same prepared arrays.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

import numpy as np
import pandas as pd

from pdireval._aggregate import Agg, aggregate
from pdireval._columns import ColumnMap, as_column_map
from pdireval._merge import merge_qrels
from pdireval._ranking import QueryPolicy, prepare
from pdireval.metrics import AP, DCG, RR, MetricLike, P, R, Rprec, Success, nDCG, parse_metrics
from pdireval.metrics._base import Metric

__all__ = [
    "ap",
    "dcg",
    "evaluate",
    "gmap",
    "map",
    "merge_qrels",
    "mrr",
    "ndcg",
    "precision",
    "r_precision",
    "recall",
    "rr",
    "success",
    "summary",
]

Columns = ColumnMap | Mapping[str, str] | None


def evaluate(
    frame: pd.DataFrame,
    metrics: MetricLike | Iterable[MetricLike],
    *,
    columns: Columns = None,
    queries: QueryPolicy = "judged",
    max_rank: int | None = None,
    judged_only: bool = False,
    validate: bool = True,
) -> pd.DataFrame:
    """Per-query values of one or more metrics.

    Parameters
    ----------
    frame : DataFrame
        Long frame: one row per (query, doc) retrieved and/or judged, with columns
        for the roles query, doc, rel and rank or score (optionally run).
    metrics : str, Metric or list of them
        Names such as ``"AP"``, ``"nDCG@10"``, ``"P(rel=2)@5"``, trec_eval names such
        as ``"P_10"``, or objects such as ``P @ 10``. Duplicates collapse.
    columns : ColumnMap or dict, optional
        Which column plays which role, e.g. ``{"query": "qid", "rel": "label"}``.
    queries : {"judged", "retrieved", "all"}
        ``"judged"`` (default): every query with at least one judgment, those that
        retrieved nothing scoring 0 (``trec_eval -c``); ``"retrieved"``: judged
        queries that retrieved something (plain ``trec_eval``); ``"all"``: also
        unjudged queries, with NaN values.
    max_rank : int, optional
        Evaluate only the top ``max_rank`` documents of each ranking (``trec_eval -M``).
    judged_only : bool
        Drop the retrieved documents without a judgment (no label, or a negative one)
        and rank the rest again, after ``max_rank`` (``trec_eval -J``).
    validate : bool
        Check the frame (null ids, duplicate documents, ranks, labels). Turn off only
        for frames already validated, e.g. in a tight loop.

    Returns
    -------
    DataFrame
        float64 values, index the sorted query ids (named like the query column) or
        a (run, query) MultiIndex, one column per canonical metric label
        (``columns.name == "metric"``).

    Raises
    ------
    SchemaError
        The frame breaks the long-frame contract; the message says what and how to fix it.
    MetricError
        A metric name or parameter is not understood.

    Notes
    -----
    Ranking follows trec_eval. A rank column gives the order only: positions are
    renumbered 1..n inside each query, so ranks 1, 5, 9 act as 1, 2, 3. Without a rank
    column, documents are ordered by score descending, ties broken by doc id
    descending compared as strings (``"d9"`` before ``"d10"``). Relevance labels
    below ``rel`` -- and negative labels, which mark pooled but unjudged documents --
    are not relevant; unjudged documents count as not relevant.

    Examples
    --------
    >>> import pandas as pd, pdireval
    >>> df = pd.DataFrame({"query": ["q1"] * 4, "doc": ["a", "b", "c", "d"],
    ...                    "rank": [1, 2, 3, None], "rel": [1, 0, 1, 1]})
    >>> pdireval.evaluate(df, ["AP", "P@2", "R@3"])
    metric        AP  P@2       R@3
    query
    q1      0.555556  0.5  0.666667
    """
    parsed = parse_metrics(metrics)
    resolved = as_column_map(columns).resolve(frame)
    prepared = prepare(
        frame,
        resolved,
        queries=queries,
        max_rank=max_rank,
        judged_only=judged_only,
        validate=validate,
    )
    values = {metric.label: metric.compute(prepared.ranked) for metric in parsed}
    table = pd.DataFrame(values, index=prepared.index, dtype=np.float64)
    table.loc[prepared.blank] = np.nan
    table = table.loc[prepared.keep]
    table.columns.name = "metric"
    return table


def summary(
    frame: pd.DataFrame,
    metrics: MetricLike | Iterable[MetricLike],
    *,
    agg: Agg = "mean",
    columns: Columns = None,
    queries: QueryPolicy = "judged",
    max_rank: int | None = None,
    judged_only: bool = False,
    validate: bool = True,
) -> pd.Series | pd.DataFrame:
    """Aggregate per-query values over queries: MAP, GMAP, MRR, mean nDCG@k, ...

    Parameters
    ----------
    frame, metrics, columns, queries, max_rank, judged_only, validate
        As in :func:`evaluate`.
    agg : {"mean", "gmean", "hmean", "median"}
        ``"gmean"`` floors values at 1e-5 first, like trec_eval's gm_map; ``"hmean"``
        is 0 when any value is 0. NaN values (unjudged queries under
        ``queries="all"``) are skipped.

    Returns
    -------
    Series or DataFrame
        A Series indexed by metric label; with a run column, a DataFrame with one
        row per run and one column per metric.

    Examples
    --------
    >>> import pandas as pd, pdireval
    >>> df = pd.DataFrame({"query": ["q1", "q1", "q2", "q2"], "doc": ["a", "b", "a", "b"],
    ...                    "rank": [1, 2, 1, 2], "rel": [0, 1, 1, 0]})
    >>> pdireval.summary(df, ["AP", "RR"])
    metric
    AP    0.75
    RR    0.75
    Name: mean, dtype: float64
    """
    table = evaluate(
        frame,
        metrics,
        columns=columns,
        queries=queries,
        max_rank=max_rank,
        judged_only=judged_only,
        validate=validate,
    )
    return aggregate(table, agg, by_run=isinstance(table.index, pd.MultiIndex))


def _single(frame: pd.DataFrame, metric: Metric, options: dict[str, Any]) -> pd.Series:
    return evaluate(frame, metric, **options)[metric.label]


def _aggregated(frame: pd.DataFrame, metric: Metric, agg: Agg, options: dict[str, Any]):
    result = summary(frame, metric, agg=agg, **options)
    return result[metric.label] if isinstance(result, pd.DataFrame) else float(result.iloc[0])


def precision(frame: pd.DataFrame, k: int, *, rel: int = 1, **options: Any) -> pd.Series:
    """Per-query precision at k (``P@k``); options as in :func:`evaluate`."""
    return _single(frame, P(rel=rel) @ k, options)


def recall(frame: pd.DataFrame, k: int, *, rel: int = 1, **options: Any) -> pd.Series:
    """Per-query recall at k (``R@k``); options as in :func:`evaluate`."""
    return _single(frame, R(rel=rel) @ k, options)


def _ap(k: int | None, rel: int) -> Metric:
    metric = AP(rel=rel)
    return metric @ k if k is not None else metric


def ap(frame: pd.DataFrame, k: int | None = None, *, rel: int = 1, **options: Any) -> pd.Series:
    """Per-query average precision (``AP`` or ``AP@k``); options as in :func:`evaluate`."""
    return _single(frame, _ap(k, rel), options)


def map(  # noqa: A001 - the name users expect
    frame: pd.DataFrame, k: int | None = None, *, rel: int = 1, **options: Any
) -> float | pd.Series:
    """Mean average precision: a float, or a Series by run when the frame has a run column."""
    return _aggregated(frame, _ap(k, rel), "mean", options)


def gmap(
    frame: pd.DataFrame, k: int | None = None, *, rel: int = 1, **options: Any
) -> float | pd.Series:
    """Geometric mean average precision (values floored at 1e-5, as trec_eval's gm_map)."""
    return _aggregated(frame, _ap(k, rel), "gmean", options)


def _rr(k: int | None, rel: int) -> Metric:
    metric = RR(rel=rel)
    return metric @ k if k is not None else metric


def rr(frame: pd.DataFrame, k: int | None = None, *, rel: int = 1, **options: Any) -> pd.Series:
    """Per-query reciprocal rank (``RR`` or ``RR@k``); options as in :func:`evaluate`."""
    return _single(frame, _rr(k, rel), options)


def mrr(
    frame: pd.DataFrame, k: int | None = None, *, rel: int = 1, **options: Any
) -> float | pd.Series:
    """Mean reciprocal rank: a float, or a Series by run when the frame has a run column."""
    return _aggregated(frame, _rr(k, rel), "mean", options)


def _gain_metric(family, k, rel, gain, discount, base) -> Metric:
    metric = family(rel=rel, gain=gain, discount=discount, base=base)
    return metric @ k if k is not None else metric


def ndcg(
    frame: pd.DataFrame,
    k: int | None = None,
    *,
    rel: int = 1,
    gain: str | Mapping[int, float] = "linear",
    discount: str = "log2",
    base: float = 2,
    **options: Any,
) -> pd.Series:
    """Per-query nDCG (``nDCG`` or ``nDCG@k``); see :data:`pdireval.metrics.nDCG`."""
    return _single(frame, _gain_metric(nDCG, k, rel, gain, discount, base), options)


def dcg(
    frame: pd.DataFrame,
    k: int | None = None,
    *,
    rel: int = 1,
    gain: str | Mapping[int, float] = "linear",
    discount: str = "log2",
    base: float = 2,
    **options: Any,
) -> pd.Series:
    """Per-query DCG (``DCG`` or ``DCG@k``); see :data:`pdireval.metrics.DCG`."""
    return _single(frame, _gain_metric(DCG, k, rel, gain, discount, base), options)


def r_precision(frame: pd.DataFrame, *, rel: int = 1, **options: Any) -> pd.Series:
    """Per-query R-precision (``Rprec``); options as in :func:`evaluate`."""
    return _single(frame, Rprec(rel=rel), options)


def success(frame: pd.DataFrame, k: int, *, rel: int = 1, **options: Any) -> pd.Series:
    """Per-query success at k (``Success@k``); options as in :func:`evaluate`."""
    return _single(frame, Success(rel=rel) @ k, options)
