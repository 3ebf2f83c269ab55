"""Aggregation of per-query values into one number per metric (and run), with intervals."""

from __future__ import annotations

from collections.abc import Callable, Hashable, Sequence
from typing import Any, TypeVar, cast, get_args

import numpy as np
import pandas as pd

from pdireval._core.errors import ParameterError
from pdireval._core.levels import Levels
from pdireval._core.options import level, resamples
from pdireval.stats.significance import bootstrap_statistic, scipy_stats, t_interval
from pdireval.typing import Aggregate, CiMethod

__all__ = [
    "AGGREGATES",
    "GMEAN_FLOOR",
    "aggregate",
    "in_run_order",
    "seed_summary",
    "summary_table",
]

AGGREGATES: tuple[str, ...] = get_args(Aggregate)

#: trec_eval's floor for the geometric mean (gm_map): values below it count as 1e-5.
GMEAN_FLOOR = 1e-5


def _row_mean(block: np.ndarray) -> np.ndarray:
    return np.asarray(block.mean(axis=1))


def _row_gmean(block: np.ndarray) -> np.ndarray:
    return np.asarray(np.exp(np.log(np.maximum(block, GMEAN_FLOOR)).mean(axis=1)))


def _row_hmean(block: np.ndarray) -> np.ndarray:
    zero, negative = np.any(block == 0, axis=1), np.any(block < 0, axis=1)
    safe = np.where(block == 0, 1.0, block)
    result = block.shape[1] / np.sum(1.0 / safe, axis=1)
    result[zero] = 0.0
    result[negative] = np.nan
    return np.asarray(result)


def _row_median(block: np.ndarray) -> np.ndarray:
    return np.median(block, axis=1)


#: Each aggregate, row-wise over a (rows x queries) block; NaN-free input.
ROW_AGGREGATES: dict[str, Callable[[np.ndarray], np.ndarray]] = {
    "mean": _row_mean,
    "gmean": _row_gmean,
    "hmean": _row_hmean,
    "median": _row_median,
}


def _check_agg(agg: object) -> str:
    if agg not in AGGREGATES:
        msg = f"agg={agg!r} is not an aggregate; use one of {list(AGGREGATES)}"
        raise ParameterError(msg)
    return str(agg)


def _gmean(values: pd.Series) -> float:
    present = values.dropna().to_numpy(dtype=np.float64)
    return float(_row_gmean(present[None, :])[0]) if present.size else np.nan


def _hmean(values: pd.Series) -> float:
    present = values.dropna().to_numpy(dtype=np.float64)
    return float(_row_hmean(present[None, :])[0]) if present.size else np.nan


def _group_levels(table: pd.DataFrame, levels: Levels | None) -> list[Hashable]:
    """The index levels a summary groups by: every level before the query."""
    if levels is None:
        return [0] if isinstance(table.index, pd.MultiIndex) else []
    return levels.groups


def _by(groups: list[Hashable]) -> Any:
    """``groups`` as groupby's ``level=``: one level by itself (scalar keys, flat index)."""
    return groups[0] if len(groups) == 1 else groups


def aggregate(
    table: pd.DataFrame, agg: str, levels: Levels | None = None
) -> pd.Series | pd.DataFrame:
    """Aggregate a per-query table column-wise; NaN values (undefined queries) are skipped.

    A table indexed by (run, query) gives one row per run (a DataFrame); a table
    indexed by query gives a Series by metric, named after ``agg``. With ``levels``,
    one row per combination of the group levels (run, judge, collection, seed: those
    present), indexed by them. The mean and the median are pandas' (compensated
    summation).

    Examples
    --------
    >>> import pandas as pd
    >>> index = pd.MultiIndex.from_product([["bm25"], ["c1", "c2"], ["q1", "q2"]],
    ...                                    names=["run", "dataset", "qid"])
    >>> table = pd.DataFrame({"AP": [0.2, 0.4, 0.6, 1.0]}, index=index)
    >>> aggregate(table, "mean", Levels(query="qid", run="run", collection="dataset"))
                   AP
    run  dataset
    bm25 c1       0.3
         c2       0.8
    """
    agg = _check_agg(agg)
    how: Any = {"mean": "mean", "median": "median", "gmean": _gmean, "hmean": _hmean}[agg]
    groups = _group_levels(table, levels)
    if groups:
        grouped = table.groupby(level=_by(groups), sort=True, observed=True)
        return grouped.agg(how).astype(np.float64)
    result = table.agg(how) if isinstance(how, str) else table.apply(how)
    return pd.Series(result, dtype=np.float64, name=agg)


_Summary = TypeVar("_Summary", bound=pd.Series | pd.DataFrame)


def in_run_order(
    result: _Summary, runs: Sequence[Hashable] | None, levels: Levels | None
) -> _Summary:
    """A summary's rows with the runs in the user's order ``runs`` (the frame's: see
    :func:`~pdireval.engine.runs.run_order`), each run's rows (its judges, collections,
    seeds) in the order they had; runs ``runs`` does not name follow.

    A result without a run level (one row per metric) is returned as it is.

    Examples
    --------
    >>> import pandas as pd
    >>> table = pd.DataFrame({"AP": [0.2, 0.9]}, index=pd.Index(["bm25", "T5"], name="run"))
    >>> in_run_order(table, ["T5", "bm25"], Levels(query="query", run="run"))
           AP
    run
    T5    0.9
    bm25  0.2
    """
    if not runs or levels is None or levels.run is None or not isinstance(result, pd.DataFrame):
        return result
    if levels.run not in result.index.names:
        return result
    place = {run: at for at, run in enumerate(runs)}
    present = result.index.get_level_values(result.index.names.index(levels.run))
    keys = np.fromiter((place.get(run, len(place)) for run in present), np.int64, len(present))
    return result.iloc[np.argsort(keys, kind="stable")]


def summary_table(
    table: pd.DataFrame,
    *,
    agg: str = "mean",
    ci: float = 0.95,
    ci_method: CiMethod = "t",
    n_resamples: int = 10_000,
    seed: object = None,
    levels: Levels | None = None,
) -> pd.DataFrame:
    """Aggregates of a per-query table with confidence intervals; see :func:`pdireval.summary`.

    With ``levels``, one row per combination of the group levels (run, judge,
    collection, seed: those present), each interval over that group's queries.

    Examples
    --------
    >>> import pandas as pd
    >>> table = pd.DataFrame({"AP": [0.2, 0.4, 0.6]},
    ...                      index=pd.Index(["q1", "q2", "q3"], name="query"))
    >>> table.columns.name = "metric"
    >>> summary_table(table, ci=0.95).round(4)
            mean  ci_low  ci_high
    metric
    AP       0.4 -0.0968   0.8968
    """
    agg = _check_agg(agg)
    confidence = level("ci", ci)
    if ci_method not in get_args(CiMethod):
        msg = f"ci_method={ci_method!r} is not supported; use one of {list(get_args(CiMethod))}"
        raise ParameterError(msg)
    n_resamples = resamples(n_resamples)
    if ci_method == "t" and agg != "mean":
        msg = (
            f"ci_method='t' is an interval for the mean, not for agg={agg!r}; "
            "use ci_method='bootstrap'"
        )
        raise ParameterError(msg)
    by = _group_levels(table, levels)
    by_run = bool(by)
    point = aggregate(table, agg, levels)
    groups = table.groupby(level=_by(by), sort=True, observed=True) if by_run else [(None, table)]
    low, high = {}, {}
    for key, part in groups:
        for label in table.columns:
            values = part[label].dropna().to_numpy(np.float64)
            if ci_method == "t":
                bounds = t_interval(values, confidence)
            elif values.size == 0:
                bounds = (np.nan, np.nan)
            else:
                boot = bootstrap_statistic(values, ROW_AGGREGATES[agg], n_resamples, seed)[0]
                quantiles = np.nanquantile(boot, [(1 - confidence) / 2, (1 + confidence) / 2])
                bounds = (float(quantiles[0]), float(quantiles[1]))
            low[key, label], high[key, label] = bounds
    if not by_run:
        out = pd.DataFrame(
            {
                agg: point,
                "ci_low": [low[None, label] for label in table.columns],
                "ci_high": [high[None, label] for label in table.columns],
            },
            index=point.index,
        )
        return out.astype(np.float64)
    parts = {
        label: pd.DataFrame(
            {
                agg: point[label],
                "ci_low": [low[key, label] for key in point.index],
                "ci_high": [high[key, label] for key in point.index],
            },
            index=point.index,
        )
        for label in table.columns
    }
    return pd.concat(parts, axis=1, names=["metric", "stat"]).astype(np.float64)


def seed_summary(table: pd.DataFrame, levels: Levels, *, ci: float = 0.95) -> pd.DataFrame:
    """Mean over seeds of each seed's mean, with a Student t interval across the seeds.

    For a table with a seed level (repeated runs of a system, or folds): each (run,
    judge, collection) group's mean over its queries is taken seed by seed, and the
    seeds' means are summarised: their mean, the number of seeds, their standard
    deviation and the ``ci`` Student t interval of the mean across seeds (n - 1 degrees
    of freedom; NaN with one seed). The interval says how much the result moves from
    one seed to another, not how it would move on other queries.

    Returns
    -------
    DataFrame
        One row per (run, judge, collection) present; columns (metric, stat) with stat
        ``mean``, ``seeds``, ``sd``, ``ci_low``, ``ci_high``.

    Examples
    --------
    >>> import pandas as pd
    >>> index = pd.MultiIndex.from_product([["bm25"], [1, 2, 3], ["q1", "q2"]],
    ...                                    names=["run", "seed", "query"])
    >>> table = pd.DataFrame({"AP": [0.2, 0.4, 0.3, 0.5, 0.4, 0.6]}, index=index)
    >>> seed_summary(table, Levels(query="query", run="run", seed="seed")).round(4)
    metric      AP
    stat      mean seeds   sd  ci_low  ci_high
    run
    bm25       0.4   3.0  0.1  0.1516   0.6484
    """
    if levels.seed is None:
        msg = "seed_summary needs a table with a seed level; this table has none"
        raise ParameterError(msg)
    confidence = level("ci", ci)
    per_seed = aggregate(table, "mean", levels)
    assert isinstance(per_seed, pd.DataFrame)  # grouped by at least the seed
    others = [name for name in levels.groups if name != levels.seed]
    grouped: Any = (
        per_seed.groupby(level=_by(others), sort=True, observed=True)
        if others
        else per_seed.groupby(np.zeros(len(per_seed), dtype=np.int64))
    )
    mean, count, sd = grouped.mean(), grouped.count(), grouped.std(ddof=1)
    if not others:  # one row for the whole table
        for frame in (mean, count, sd):
            frame.index = pd.Index(["all"])
    stats = scipy_stats()
    values = count.to_numpy(dtype=np.float64)
    with np.errstate(invalid="ignore", divide="ignore"):
        factor = stats.t.ppf(0.5 + confidence / 2, np.maximum(values - 1, 1))
        half = np.where(values >= 2, factor * sd.to_numpy() / np.sqrt(values), np.nan)
    low, high = mean - half, mean + half
    parts = {
        label: pd.DataFrame(
            {
                "mean": mean[label],
                "seeds": count[label].astype(np.float64),
                "sd": sd[label],
                "ci_low": low[label],
                "ci_high": high[label],
            }
        )
        for label in table.columns
    }
    return pd.concat(parts, axis=1, names=["metric", "stat"]).astype(np.float64)


#: The efficiency statistics of a run, in the order shown.
EFFICIENCY: tuple[str, ...] = (
    "queries",
    "latency_mean",
    "latency_median",
    "latency_p95",
    "latency_p99",
    "qps",
    "mrt",
)


def efficiency_table(latency: pd.Series, levels: Levels | None = None) -> pd.DataFrame:
    """Latency statistics of per-query times (seconds), per run.

    ``queries`` timed, the mean, median, 95th and 99th percentile latency (seconds,
    linear interpolation between order statistics), ``qps`` (queries per second: timed
    queries over their total time, for queries answered one after the other) and
    ``mrt`` (mean response time in milliseconds, as PyTerrier reports it).

    Examples
    --------
    >>> import pandas as pd
    >>> times = pd.Series([0.1, 0.2, 0.3, 0.4], index=pd.Index(list("abcd"), name="query"))
    >>> efficiency_table(times).loc["all"].round(3).to_dict()
    {'queries': 4.0, 'latency_mean': 0.25, 'latency_median': 0.25, 'latency_p95': 0.385,
     'latency_p99': 0.397, 'qps': 4.0, 'mrt': 250.0}
    """
    by = levels.groups if levels is not None and levels.groups else None
    if by is not None and len(by) > 1:  # a row per (run, judge, collection, seed)
        groups = list(latency.groupby(level=by, sort=False, observed=True))
        index: pd.Index = pd.MultiIndex.from_tuples(
            [cast(tuple, key) for key, _ in groups], names=by
        )
    elif isinstance(latency.index, pd.MultiIndex):
        groups = list(latency.groupby(level=0, sort=True, observed=True))
        index = pd.Index([key for key, _ in groups], name=latency.index.names[0])
    else:
        groups, index = [("all", latency)], pd.Index(["all"])
    rows = []
    for _, part in groups:
        seconds = part.dropna().to_numpy(dtype=np.float64)
        if not len(seconds):
            rows.append([0.0, *([np.nan] * 6)])
            continue
        total = seconds.sum()
        mean = total / len(seconds)
        rows.append(
            [
                float(len(seconds)),
                mean,
                float(np.median(seconds)),
                float(np.quantile(seconds, 0.95)),
                float(np.quantile(seconds, 0.99)),
                _per_second(len(seconds), total),
                1000.0 * mean,
            ]
        )
    table = pd.DataFrame(rows, index=index, columns=list(EFFICIENCY), dtype=np.float64)
    return table.astype({"queries": np.int64})


def _per_second(count: int, seconds: float) -> float:
    """``count`` per second (NaN without time; inf when the time is too small to divide by)."""
    if not seconds > 0:
        return np.nan
    with np.errstate(over="ignore"):
        return float(np.float64(count) / np.float64(seconds))
