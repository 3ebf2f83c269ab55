"""Comparing systems: paired significance tests, corrections, effect sizes and intervals.

The functions here work on a per-query table as :func:`pdireval.evaluate` returns it for
a frame with a run column (index (run, query), one column per metric). The typed
functions :func:`pdireval.compare`, :func:`pdireval.per_query` and
:func:`pdireval.summary` (with ``ci=``) evaluate a long frame and delegate here.

scipy (extra ``stats``) supplies the test distributions; it is imported only when a
test or a t interval is computed.
"""

from __future__ import annotations

from collections.abc import Hashable, Sequence
from typing import Any, Literal

import numpy as np
import pandas as pd

from pdireval._errors import MetricError, SchemaError
from pdireval._significance import (
    ROW_AGGREGATES,
    Correction,
    Test,
    adjust_pvalues,
    bootstrap_statistic,
    check_correction,
    check_level,
    check_resamples,
    check_test,
    paired_statistics,
    t_interval,
)
from pdireval._summary import aggregate

__all__ = [
    "COMPARISON_COLUMNS",
    "Correction",
    "Test",
    "adjust_pvalues",
    "compare_table",
    "per_query_table",
    "summary_table",
]

CiMethod = Literal["t", "bootstrap"]
Baseline = Hashable | Sequence[Hashable] | None

#: Columns of the table returned by :func:`pdireval.compare`, in order.
COMPARISON_COLUMNS = (
    "run",
    "baseline",
    "metric",
    "mean",
    "baseline_mean",
    "delta",
    "relative_delta",
    "ci_low",
    "ci_high",
    "p_value",
    "p_adjusted",
    "significant",
    "effect_size",
    "wins",
    "ties",
    "losses",
)

_SHOWN = 10  # query ids listed in an error message


def _runs_of(table: pd.DataFrame, action: str) -> list[Hashable]:
    """The runs of a per-query table; at least two, else :class:`SchemaError`."""
    if not isinstance(table.index, pd.MultiIndex):
        msg = (
            f"{action} needs a frame with a run column and at least two runs; this frame has "
            "no run column (name it 'run' or map it with df.ireval(run='<column>'))"
        )
        raise SchemaError(msg)
    runs = list(table.index.get_level_values(0).unique())
    if len(runs) < 2:
        msg = (
            f"{action} needs at least two runs; the run column holds only {runs}. "
            "Put the runs to compare in one frame (pd.concat, then pdireval.merge_qrels)"
        )
        raise SchemaError(msg)
    return runs


def _aligned(table: pd.DataFrame, label: str) -> pd.DataFrame:
    """Query x run values of one metric; refuse queries that some runs lack.

    Queries without a value for every run (all NaN: unjudged under ``queries="all"``)
    are left out, as :func:`pdireval.summary` skips them.
    """
    wide = table[label].unstack(level=0)
    missing = wide.isna()
    partial = missing.any(axis=1) & ~missing.all(axis=1)
    if partial.any():
        queries = list(wide.index[partial])
        lacking = [run for run in wide.columns if missing.loc[partial, run].any()]
        shown = queries[:_SHOWN] + (["..."] if len(queries) > _SHOWN else [])
        msg = (
            f"runs {lacking} have no {label} value for {len(queries)} "
            f"quer{'y' if len(queries) == 1 else 'ies'} that other runs have: {shown}. "
            "Runs are compared on the same queries: evaluate with queries='judged' and give "
            "every run the judgments of every query (pdireval.merge_qrels(run, qrels) does), "
            "or remove those queries from the frame"
        )
        raise SchemaError(msg)
    wide = wide.loc[~missing.all(axis=1)]
    if wide.empty:
        msg = f"no query has a {label} value for the runs; nothing to compare"
        raise SchemaError(msg)
    return wide


def _pairs(runs: list[Hashable], baseline: Baseline) -> list[tuple[Hashable, Hashable]]:
    """(run, baseline) pairs: all pairs for None, else every other run per baseline."""
    if baseline is None:
        return [(runs[j], runs[i]) for i in range(len(runs)) for j in range(i + 1, len(runs))]
    bases = list(baseline) if isinstance(baseline, list | tuple) else [baseline]
    if not bases:
        msg = "baseline=[] names no run; pass a run name, a list of run names or None"
        raise SchemaError(msg)
    unknown = [base for base in bases if base not in runs]
    if unknown:
        msg = f"baseline run(s) {unknown} not found in the frame; its runs are {runs}"
        raise SchemaError(msg)
    pairs: list[tuple[Hashable, Hashable]] = []
    done: set[frozenset] = set()
    for base in dict.fromkeys(bases):
        for run in runs:
            if run != base and frozenset((run, base)) not in done:
                done.add(frozenset((run, base)))
                pairs.append((run, base))
    return pairs


def compare_table(
    table: pd.DataFrame,
    *,
    baseline: Baseline = None,
    test: Test = "t",
    correction: Correction | None = "holm",
    alpha: float = 0.05,
    n_resamples: int = 10_000,
    seed: Any = None,
) -> pd.DataFrame:
    """Compare runs on a per-query table; see :func:`pdireval.compare`.

    Parameters
    ----------
    table : DataFrame
        Per-query values indexed by (run, query), one column per metric, as returned
        by :func:`pdireval.evaluate` for a frame with a run column.
    baseline, test, correction, alpha, n_resamples, seed
        As in :func:`pdireval.compare`.

    Returns
    -------
    DataFrame
        One row per (run, baseline, metric); columns :data:`COMPARISON_COLUMNS`.

    Examples
    --------
    >>> import pdireval
    >>> from pdireval._example import example_frame
    >>> table = example_frame().ireval.evaluate(["AP", "P@5"])
    >>> compare_table(table, baseline="system1", test="sign")[["run", "metric", "wins"]]
           run metric  wins
    0  system2     AP     0
    1  system2    P@5     1
    """
    test = check_test(test)  # type: ignore[assignment]
    correction = check_correction(correction)  # type: ignore[assignment]
    alpha = check_level("alpha", alpha)
    n_resamples = check_resamples(n_resamples)
    runs = _runs_of(table, "compare")
    pairs = _pairs(runs, baseline)
    blocks = []
    for label in table.columns:
        wide = _aligned(table, label)
        left = wide[[run for run, _ in pairs]].to_numpy(np.float64).T
        right = wide[[base for _, base in pairs]].to_numpy(np.float64).T
        result = paired_statistics(
            left, right, test=test, alpha=alpha, n_resamples=n_resamples, seed=seed
        )
        mean, baseline_mean = left.mean(axis=1), right.mean(axis=1)
        with np.errstate(divide="ignore", invalid="ignore"):
            relative = np.where(baseline_mean != 0, result["delta"] / baseline_mean, np.nan)
        block = pd.DataFrame(
            {
                "run": [run for run, _ in pairs],
                "baseline": [base for _, base in pairs],
                "metric": label,
                "mean": mean,
                "baseline_mean": baseline_mean,
                "relative_delta": relative,
                **result,
            }
        )
        blocks.append(block)
    out = pd.concat(blocks, ignore_index=True)
    # Rows by pair, then metric in the requested order.
    pair_order = {pair: i for i, pair in enumerate(pairs)}
    out["_pair"] = [pair_order[(r, b)] for r, b in zip(out["run"], out["baseline"], strict=True)]
    out = out.sort_values("_pair", kind="stable").drop(columns="_pair").reset_index(drop=True)
    out["p_adjusted"] = adjust_pvalues(out["p_value"].to_numpy(), correction)
    out["significant"] = out["p_adjusted"].to_numpy() < alpha
    for column in ("wins", "ties", "losses"):
        out[column] = out[column].astype(np.int64)
    return out[list(COMPARISON_COLUMNS)]


def per_query_table(
    table: pd.DataFrame, metric: str | None = None, *, baseline: Hashable | None = None
) -> pd.DataFrame:
    """Query x run values of one metric with deltas to a baseline; see :func:`pdireval.per_query`.

    Parameters
    ----------
    table : DataFrame
        Per-query values indexed by (run, query), as :func:`pdireval.evaluate` returns.
    metric : str, optional
        Column label of ``table``; may be omitted when the table has one column.
    baseline : run id, optional
        The run the others are compared to; the first run when omitted.

    Returns
    -------
    DataFrame
        As :func:`pdireval.per_query`.

    Examples
    --------
    >>> import pdireval
    >>> from pdireval._example import example_frame
    >>> table = example_frame().ireval.evaluate("P@5")
    >>> per_query_table(table)
    stat      value          delta
    run     system1 system2 system2
    query
    topic2      0.2     0.4     0.2
    topic1      0.8     0.4    -0.4
    """
    runs = _runs_of(table, "per_query")
    if metric is None:
        if table.shape[1] != 1:
            msg = f"the table has several metrics {list(table.columns)}; name one with metric="
            raise MetricError(msg)
        metric = table.columns[0]
    if metric not in table.columns:
        msg = f"metric {metric!r} is not a column of the table {list(table.columns)}"
        raise MetricError(msg)
    base = runs[0] if baseline is None else _pairs(runs, baseline)[0][1]
    others = [run for run in runs if run != base]
    wide = _aligned(table, metric)[[base, *others]]
    deltas = wide[others].sub(wide[base], axis=0)
    out = pd.concat({"value": wide, "delta": deltas}, axis=1, names=["stat", wide.columns.name])
    out = out.sort_values(("delta", others[0]), ascending=False, kind="stable")
    return out.astype(np.float64)


def summary_table(
    table: pd.DataFrame,
    *,
    agg: str = "mean",
    ci: float = 0.95,
    ci_method: CiMethod = "t",
    n_resamples: int = 10_000,
    seed: Any = None,
) -> pd.DataFrame:
    """Aggregates of a per-query table with confidence intervals; see :func:`pdireval.summary`.

    Examples
    --------
    >>> import pandas as pd, pdireval
    >>> table = pd.DataFrame({"AP": [0.2, 0.4, 0.6]},
    ...                      index=pd.Index(["q1", "q2", "q3"], name="query"))
    >>> table.columns.name = "metric"
    >>> summary_table(table, ci=0.95).round(4)
            mean  ci_low  ci_high
    metric
    AP       0.4 -0.0968   0.8968
    """
    level = check_level("ci", ci)
    if ci_method not in ("t", "bootstrap"):
        msg = f"ci_method={ci_method!r} is not supported; use 't' or 'bootstrap'"
        raise MetricError(msg)
    n_resamples = check_resamples(n_resamples)
    by_run = isinstance(table.index, pd.MultiIndex)
    point = aggregate(table, agg, by_run=by_run)
    if ci_method == "t" and agg != "mean":
        msg = (
            f"ci_method='t' is an interval for the mean, not for agg={agg!r}; "
            "use ci_method='bootstrap'"
        )
        raise MetricError(msg)
    groups = table.groupby(level=0, sort=True, observed=True) if by_run else [(None, table)]
    low, high = {}, {}
    for key, part in groups:
        for label in table.columns:
            values = part[label].dropna().to_numpy(np.float64)
            if ci_method == "t":
                bounds = t_interval(values, level)
            elif values.size == 0:
                bounds = (np.nan, np.nan)
            else:
                boot = bootstrap_statistic(values, ROW_AGGREGATES[agg], n_resamples, seed)[0]
                bounds = tuple(np.nanquantile(boot, [(1 - level) / 2, (1 + level) / 2]))
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
    parts = {}
    for label in table.columns:
        parts[label] = pd.DataFrame(
            {
                agg: point[label],
                "ci_low": [low[key, label] for key in point.index],
                "ci_high": [high[key, label] for key in point.index],
            },
            index=point.index,
        )
    out = pd.concat(parts, axis=1, names=["metric", "stat"])
    return out.astype(np.float64)
