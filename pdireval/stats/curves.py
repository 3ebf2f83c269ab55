"""Tidy curve tables: precision-recall curves and metric@k curves as long DataFrames.

Both return one row per (run, query, point) -- columns ``[run,] query, recall,
precision`` or ``[run,] query, k, value`` -- so they pivot and plot directly
(``table.pivot(index="k", columns="query", values="value").plot()``); with
``average=True`` the queries are averaged per point (and run). Every point of a
curve comes from one preparation of the frame.

Examples
--------
>>> import pandas as pd, pdireval
>>> df = pd.DataFrame({"query": "q1", "doc": ["a", "b", "c", "d"],
...                    "rank": [1, 2, 3, None], "rel": [1, 0, 1, 1]})
>>> pdireval.pr_curve(df, interpolated=False)
  query    recall  precision
0    q1  0.333333   1.000000
1    q1  0.666667   0.666667
>>> pdireval.curve(df, "P", ks=[1, 2, 3])
  query  k     value
0    q1  1  1.000000
1    q1  2  0.500000
2    q1  3  0.666667
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING, Any, Unpack

import numpy as np
import pandas as pd

from pdireval._core.errors import MetricError, ParameterError
from pdireval._core.options import EVALUATION, Evaluation, takes
from pdireval.engine import evaluate as _evaluate
from pdireval.metrics import IPrec, Metric, parse_metric
from pdireval.metrics._base import Family
from pdireval.metrics.interpolated import recall_levels

if TYPE_CHECKING:
    from pdireval.typing import ColumnsLike, EvaluationOptions, MetricLike

__all__ = ["curve", "pr_curve", "without_cutoff"]


def _long(table: pd.DataFrame, points: list[Any], axis: str, value: str) -> pd.DataFrame:
    """Per-query wide table (one column per point) -> long rows ([run,] query, axis, value)."""
    keys = table.index.to_frame(index=False)
    n_points, n_rows = len(points), len(table)
    out = keys.loc[np.repeat(np.arange(n_rows), n_points)].reset_index(drop=True)
    out[axis] = np.tile(np.asarray(points), n_rows)
    out[value] = table.to_numpy(dtype=np.float64).reshape(-1)
    return out


def _averaged(long: pd.DataFrame, axis: str, value: str, run: str | None) -> pd.DataFrame:
    """Mean over queries per point (and run); NaN values (undefined queries) are skipped."""
    keys = [run, axis] if run is not None else [axis]
    return long.groupby(keys, sort=False, observed=True)[value].mean().reset_index()


@takes(EVALUATION)
def pr_curve(
    frame: pd.DataFrame,
    *,
    interpolated: bool = True,
    points: int = 11,
    rel: int = 1,
    average: bool = False,
    columns: ColumnsLike = None,
    **options: Unpack[EvaluationOptions],
) -> pd.DataFrame:
    """Precision-recall curve of every query (and run), as a long table.

    Parameters
    ----------
    frame : DataFrame
        Long frame, as in :func:`pdireval.evaluate`.
    interpolated : bool
        ``True`` (default): interpolated precision ``IPrec@r`` at ``points`` equally
        spaced recall levels 0..1 (the classic eleven-point curve with the default
        ``points=11``; Manning et al. 2008, section 8.4). ``False``: the raw curve,
        one point per relevant retrieved document -- recall ``j / R`` and precision
        ``j / rank_j`` at the j-th of them.
    points : int
        Number of recall levels of the interpolated curve (>= 2).
    rel : int
        Minimum label counted as relevant.
    average : bool
        Average the interpolated precision over queries at each level (per run): the
        classic averaged 11-point curve. Needs ``interpolated=True`` (raw curves of
        different queries have different recall points).
    columns, **options
        As in :func:`pdireval.evaluate`.

    Returns
    -------
    DataFrame
        Columns ``[run,] query, recall, precision`` (``[run,] recall, precision`` with
        ``average=True``), rows in (run, query, recall) order. A query without relevant
        documents has no raw points, and interpolated precision 0 at every level.

    Raises
    ------
    MetricError
        ``points < 2``, or ``average=True`` with ``interpolated=False``.

    Examples
    --------
    >>> import pdireval
    >>> from pdireval.datasets import toy
    >>> curve = pdireval.pr_curve(toy(), average=True)
    >>> curve.pivot(index="recall", columns="run", values="precision").head(3).round(3)
    run     system1  system2
    recall
    0.0       1.000     0.55
    0.1       1.000     0.55
    0.2       0.917     0.55
    """
    evaluation = Evaluation.from_options(options)
    if not interpolated:
        if average:
            msg = (
                "average=True needs interpolated=True: raw curves of different queries "
                "have their points at different recall levels"
            )
            raise MetricError(msg)
        return _raw_pr_curve(frame, rel, columns, evaluation)
    if isinstance(points, bool) or not isinstance(points, int | np.integer) or points < 2:
        msg = f"points= must be a whole number >= 2 (recall levels 0..1), got {points!r}"
        raise ParameterError(msg)
    levels = recall_levels(points)
    metrics = [IPrec(rel=rel) @ level for level in levels]
    table = _evaluate.per_query(frame, metrics, columns, evaluation)
    long = _long(table, levels, "recall", "precision")
    if not average:
        return long
    return _averaged(long, "recall", "precision", _run_name(table))


def _run_name(table: pd.DataFrame) -> str | None:
    return str(table.index.names[0]) if isinstance(table.index, pd.MultiIndex) else None


def _raw_pr_curve(
    frame: pd.DataFrame, rel: int, columns: ColumnsLike, evaluation: Evaluation
) -> pd.DataFrame:
    rel = _evaluate.relevance_level(rel, evaluation)  # type: ignore[assignment]
    prepared, _ = _evaluate.prepared(frame, columns, evaluation)
    ranked = prepared.ranked
    relevant = ranked.relevant(rel)
    group = ranked.group[relevant]
    shown = prepared.keep[group] & ~prepared.blank[group]
    group = group[shown]
    found = ranked.relevant_so_far(rel)[relevant][shown]
    position = ranked.position[relevant][shown]
    keys = prepared.index.take(group).to_frame(index=False)
    keys["recall"] = found / ranked.num_relevant(rel)[group]
    keys["precision"] = found / position
    return keys


def without_cutoff(metric: MetricLike) -> Metric:
    """The metric named, which may lack a cutoff its family requires (curve() adds them)."""
    if isinstance(metric, Family):
        return Metric(metric, metric.default.params, None)
    if isinstance(metric, str) and "@" not in metric:
        try:  # a family that requires k only parses with one: probe with @1
            probe = parse_metric(f"{metric}@1")
            return Metric(probe.family, probe.params, None)
        except MetricError:
            pass  # parsed below, raising its own error
    if not isinstance(metric, str | Metric):
        msg = f"curve takes one metric (a name or a Metric), got {metric!r}"
        raise MetricError(msg)
    return metric if isinstance(metric, Metric) else parse_metric(metric)


@takes(EVALUATION)
def curve(
    frame: pd.DataFrame,
    metric: MetricLike,
    ks: Iterable[int] = range(1, 11),
    *,
    average: bool = False,
    columns: ColumnsLike = None,
    **options: Unpack[EvaluationOptions],
) -> pd.DataFrame:
    """A metric at a range of cutoffs (``nDCG@1``, ``nDCG@2``, ...), as a long table.

    Parameters
    ----------
    frame : DataFrame
        Long frame, as in :func:`pdireval.evaluate`.
    metric : str or Metric
        One metric that takes a cutoff, without it: ``"nDCG"``,
        ``"nDCG(gain='exp')"``, ``P(rel=2)``. For recall-level families (``IPrec``)
        the ks are recall levels.
    ks : iterable of int
        The cutoffs, in the order wanted (default 1..10).
    average : bool
        Average over queries at each k (per run).
    columns, **options
        As in :func:`pdireval.evaluate`.

    Returns
    -------
    DataFrame
        Columns ``[run,] query, k, value`` (``[run,] k, value`` with ``average=True``).

    Raises
    ------
    MetricError
        Not exactly one metric, a metric that takes no cutoff or already has one,
        no ks, or a bad cutoff.

    Examples
    --------
    DCG@k of one graded ranking at k = 1..10, with the exponential gain 2^r - 1:

    >>> import pandas as pd, pdireval
    >>> df = pd.DataFrame({"query": "q", "doc": list("abcdefghij"), "rank": range(1, 11),
    ...                    "rel": [3, 2, 3, 0, 0, 1, 2, 2, 3, 0]})
    >>> table = pdireval.curve(df, "DCG(gain='exp')", ks=range(1, 11))
    >>> table["value"].round(2).tolist()
    [7.0, 8.89, 12.39, 12.39, 12.39, 12.75, 13.75, 14.7, 16.8, 16.8]
    """
    evaluation = Evaluation.from_options(options)
    base = without_cutoff(metric)
    if base.family.cutoff == "none":
        msg = f"{base.family.name} takes no cutoff, so it has no curve over k"
        raise MetricError(msg)
    if base.k is not None:
        msg = f"give curve() the metric without a cutoff ({base.label} has @{base.k}); ks= sets k"
        raise MetricError(msg)
    cuts = list(ks)
    if not cuts:
        msg = "ks= is empty; give the cutoffs, e.g. ks=range(1, 21)"
        raise ParameterError(msg)
    metrics = [base.at(k) for k in cuts]
    table = _evaluate.per_query(frame, metrics, columns, evaluation)
    long = _long(table[[m.label for m in metrics]], [m.k for m in metrics], "k", "value")
    if not average:
        return long
    return _averaged(long, "k", "value", _run_name(table))
