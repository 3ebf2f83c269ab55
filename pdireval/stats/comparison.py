"""Comparing systems: paired significance tests, corrections, effect sizes and intervals.

The functions here work on a per-query table as :func:`pdireval.evaluate` returns it for
a frame with a run column (index (run, query), one column per metric). The typed
functions :func:`pdireval.compare` and :func:`pdireval.per_query` evaluate a long frame
and delegate here.

scipy (extra ``stats``) supplies the test distributions; it is imported only when a
test or a t interval is computed.
"""

from __future__ import annotations

from collections.abc import Hashable, Sequence
from typing import cast

import numpy as np
import pandas as pd

from pdireval._core.errors import MetricError, SchemaError
from pdireval._core.levels import Levels
from pdireval._core.options import Significance, check
from pdireval.engine.runs import Evaluated, aligned, blocks, in_order, runs_of
from pdireval.stats.significance import adjust_pvalues, paired_statistics
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

#: Risk-sensitive columns added with ``risk_alpha``.
RISK_COLUMNS = ("urisk", "trisk")

_SHOWN = 10  # query ids listed in an error message


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
    significance: Significance,
    levels: Levels | None = None,
    *,
    risk_alpha: float | None = None,
    runs: Sequence[Hashable] | None = None,
) -> pd.DataFrame:
    """Compare runs on a per-query table; see :func:`pdireval.compare`.

    Parameters
    ----------
    table : DataFrame
        Per-query values indexed by (run, query), one column per metric, as returned
        by :func:`pdireval.evaluate` for a frame with a run column; with ``levels``,
        indexed by (run, judge, collection, seed, query) (those present).
    significance : Significance
        Baseline, test, correction, alpha and resampling, as in :func:`pdireval.compare`.
    levels : Levels, optional
        Which index level is which. Runs are compared within each (judge, collection):
        one comparison per (judge, collection, run pair, metric), and the correction
        adjusts the p-values over all comparisons of the call. With a seed level every
        run needs the same seeds within a (judge, collection); ``test="bootstrap"`` is
        then the two-way bootstrap over queries and seeds, the other tests (and the t
        interval) work on each query's difference averaged over the seeds.
    risk_alpha : float, optional
        Add ``urisk`` and ``trisk`` (Wang et al. 2012; Dinçer et al. 2014): the mean
        per-query difference with losses counted ``1 + risk_alpha`` times, and its t
        statistic, as :func:`pdireval.risk` computes them (per-query differences
        averaged over seeds).
    runs : sequence of run ids, optional
        The user's order of the runs (:func:`~pdireval.engine.runs.run_order`): the order
        of the pairs, the earlier run of each pair its baseline. By default the table's.

    Returns
    -------
    DataFrame
        One row per (run, baseline, metric); columns :data:`COMPARISON_COLUMNS`, after
        a column per judge and collection level (named after the level) when present,
        then ``urisk`` and ``trisk`` with ``risk_alpha``.

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
    risk = check("risk_alpha", risk_alpha)
    if levels is None:
        levels = Levels(query=table.index.names[-1], run=table.index.names[0])
    found_runs = runs_of(table, "compare", levels)
    found = Evaluated(table, levels, in_order(found_runs, list(runs) if runs else None))
    pairs = _pairs(found.runs, significance.baseline)
    out = []
    for block in blocks(found, "compare"):
        out.append(
            block.labelled(
                _compare_block(block.table, pairs, significance, levels.seed, block.where, risk)
            )
        )
    return _adjusted(pd.concat(out, ignore_index=True), significance, [*levels.within])


def _compare_block(
    table: pd.DataFrame,
    pairs: list[tuple[Hashable, Hashable]],
    significance: Significance,
    seed: Hashable | None = None,
    where: str = "",
    risk: float | None = None,
) -> pd.DataFrame:
    """The comparison of one (run, [seed,] query) table, p-values not yet adjusted."""
    blocks = []
    for label in table.columns:
        wide = aligned(table, label, where)
        left = _values(wide, [run for run, _ in pairs], seed, label, where)
        right = _values(wide, [base for _, base in pairs], seed, label, where)
        result = paired_statistics(left, right, significance)
        mean = left.reshape(len(pairs), -1).mean(axis=1)
        baseline_mean = right.reshape(len(pairs), -1).mean(axis=1)
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
        if risk is not None:
            from pdireval.stats.risk import urisk_trisk

            differences = left - right
            if differences.ndim == 3:
                differences = differences.mean(axis=2)
            block["urisk"], block["trisk"] = urisk_trisk(differences, risk)
        blocks.append(block)
    out = pd.concat(blocks, ignore_index=True)
    # Rows by pair, then metric in the requested order.
    pair_order = {pair: i for i, pair in enumerate(pairs)}
    out["_pair"] = [pair_order[(r, b)] for r, b in zip(out["run"], out["baseline"], strict=True)]
    return out.sort_values("_pair", kind="stable").drop(columns="_pair").reset_index(drop=True)


def _values(
    wide: pd.DataFrame, runs: list[Hashable], seed: Hashable | None, label: str, where: str
) -> np.ndarray:
    """(runs x queries) values, or (runs x queries x seeds) with a seed level."""
    if seed is None:
        return wide[runs].to_numpy(np.float64).T
    cube = cast(pd.DataFrame, wide[runs].unstack(level=seed))  # query x (run, seed)
    holes = cube.isna().any(axis=1)
    if holes.any():
        queries = list(cube.index[holes])
        shown = queries[:_SHOWN] + (["..."] if len(queries) > _SHOWN else [])
        msg = (
            f"{label} has a value for some {seed} values of queries {shown} {where} but not "
            f"for others; each query needs a value for every {seed}: drop those queries"
        )
        raise SchemaError(msg)
    n_seeds = len(cube.columns.get_level_values(1).unique())
    values = cube.to_numpy(np.float64).reshape(len(cube), len(runs), n_seeds)
    return values.transpose(1, 0, 2)


def _adjusted(
    out: pd.DataFrame, significance: Significance, within: list[Hashable] | None = None
) -> pd.DataFrame:
    """``out`` with p-values adjusted over all its rows and the significance decided."""
    out["p_adjusted"] = adjust_pvalues(out["p_value"].to_numpy(), significance.correction)
    out["significant"] = out["p_adjusted"].to_numpy() < significance.alpha
    for column in ("wins", "ties", "losses"):
        out[column] = out[column].astype(np.int64)
    risk = [column for column in RISK_COLUMNS if column in out.columns]
    return out[[*(within or []), *COMPARISON_COLUMNS, *risk]]


def per_query_table(
    table: pd.DataFrame,
    metric: str | None = None,
    *,
    baseline: Hashable | None = None,
    runs: Sequence[Hashable] | None = None,
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
    runs : sequence of run ids, optional
        The runs' order (by default the table's): the first is the default baseline,
        the others follow in this order.

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
    runs = in_order(runs_of(table, "per_query"), list(runs) if runs else None)
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
    wide = aligned(table, metric)[[base, *others]]
    deltas = wide[others].sub(wide[base], axis=0)
    out = pd.concat({"value": wide, "delta": deltas}, axis=1, names=["stat", wide.columns.name])
    out = out.sort_values(by=("delta", others[0]), ascending=False, kind="stable")  # type: ignore[call-overload]
    return out.astype(np.float64)
