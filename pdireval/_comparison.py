"""Comparing systems: paired significance tests, corrections, effect sizes and intervals.

The functions here work on a per-query table as :func:`pdireval.evaluate` returns it for
a frame with a run column (index (run, query), one column per metric). The typed
functions :func:`pdireval.compare` and :func:`pdireval.per_query` evaluate a long frame
and delegate here.

scipy (extra ``stats``) supplies the test distributions; it is imported only when a
test or a t interval is computed.
"""

from __future__ import annotations

from collections.abc import Hashable

import numpy as np
import pandas as pd

from pdireval._errors import MetricError, SchemaError
from pdireval._options import Significance
from pdireval._significance import adjust_pvalues, paired_statistics
from pdireval.typing import Baseline

__all__ = ["COMPARISON_COLUMNS", "compare_table", "per_query_table"]

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
        where = f"{len(queries)} quer{'y' if len(queries) == 1 else 'ies'}"
        undefined = table[label].unstack(level=0, fill_value=0).isna()  # NaN values, not rows
        if undefined.loc[partial].any().any():  # the rows exist: the metric is undefined there
            msg = (
                f"{label} is undefined (NaN) for runs {lacking} on {where} where other runs "
                f"have a value: {shown}. A paired test needs a value of every run on every "
                f"query: compare a metric defined everywhere, or drop those queries first"
            )
            raise SchemaError(msg)
        msg = (
            f"runs {lacking} have no {label} value for {where} that other runs have: {shown}. "
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


def compare_table(table: pd.DataFrame, significance: Significance) -> pd.DataFrame:
    """Compare runs on a per-query table; see :func:`pdireval.compare`.

    Parameters
    ----------
    table : DataFrame
        Per-query values indexed by (run, query), one column per metric, as returned
        by :func:`pdireval.evaluate` for a frame with a run column.
    significance : Significance
        Baseline, test, correction, alpha and resampling, as in :func:`pdireval.compare`.

    Returns
    -------
    DataFrame
        One row per (run, baseline, metric); columns :data:`COMPARISON_COLUMNS`.

    Examples
    --------
    >>> import pdireval
    >>> from pdireval.datasets import toy
    >>> table = toy().ireval.evaluate(["AP", "P@5"])
    >>> settings = Significance(baseline="system1", test="sign")
    >>> compare_table(table, settings)[["run", "metric", "wins"]]
           run metric  wins
    0  system2     AP     0
    1  system2    P@5     1
    """
    runs = _runs_of(table, "compare")
    pairs = _pairs(runs, significance.baseline)
    blocks = []
    for label in table.columns:
        wide = _aligned(table, label)
        left = wide[[run for run, _ in pairs]].to_numpy(np.float64).T
        right = wide[[base for _, base in pairs]].to_numpy(np.float64).T
        result = paired_statistics(left, right, significance)
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
    out["p_adjusted"] = adjust_pvalues(out["p_value"].to_numpy(), significance.correction)
    out["significant"] = out["p_adjusted"].to_numpy() < significance.alpha
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
    >>> from pdireval.datasets import toy
    >>> table = toy().ireval.evaluate("P@5")
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
    out = out.sort_values(by=("delta", others[0]), ascending=False, kind="stable")  # type: ignore[call-overload]
    return out.astype(np.float64)
