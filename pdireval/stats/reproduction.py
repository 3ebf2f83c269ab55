r"""How well a reproduction repeats an experiment: error, effect ratio and improvement.

A paper reports that an *advanced* run beats a *baseline*. Someone re-implements
both and gets their own runs. Breuer et al. (2020) measure how close the two
experiments are at three levels, all computed here from per-query metric values:

* **per query**: the root mean squared error between the original and the
  reproduced run's values, query by query (only when both used the same queries);
* **the effect**: the *effect ratio*, how much of the original per-query
  improvement the reproduction shows,

  .. math:: \mathrm{ER} = \frac{\overline{\Delta'}}{\overline{\Delta}}, \quad
            \Delta_j = \mathrm{adv}_j - \mathrm{base}_j ,

  1 when the effect is repeated exactly, below 1 when it shrinks, negative when it
  turns round;
* **the relative improvement**: :math:`\Delta\mathrm{RI} = \mathrm{RI} - \mathrm{RI'}`
  with :math:`\mathrm{RI} = (\overline{\mathrm{adv}} - \overline{\mathrm{base}}) /
  \overline{\mathrm{base}}`, 0 when the improvement is repeated;

and a t-test per run of whether the reproduced values differ from the original
ones (paired over shared queries; unpaired when the reproduction used other
queries, a *replication*).

Examples
--------
>>> import pdireval
>>> from pdireval.datasets import example
>>> original = example().query("run in ['weak', 'strong']")
>>> redone = original.assign(score=original["score"] + 0.0)  # an exact reproduction
>>> table = pdireval.reproduction(original, redone, ["AP"], baseline="weak", advanced="strong")
>>> table.loc["AP"]
effect_ratio     1.0
delta_ri         0.0
rmse_baseline    0.0
rmse_advanced    0.0
p_baseline       1.0
p_advanced       1.0
Name: AP, dtype: float64
"""

from __future__ import annotations

from collections.abc import Hashable
from typing import TYPE_CHECKING, Any, Unpack

import numpy as np
import pandas as pd

from pdireval._core.errors import SchemaError
from pdireval._core.ids import same_kind
from pdireval._core.options import EVALUATION, Evaluation, takes
from pdireval.engine import evaluate as _evaluate
from pdireval.metrics import parse_metrics
from pdireval.stats.significance import TIE_TOLERANCE, scipy_stats

if TYPE_CHECKING:
    from pdireval.typing import ColumnsLike, EvaluationOptions, MetricsLike

__all__ = ["reproduction"]

COLUMNS: tuple[str, ...] = (
    "effect_ratio",
    "delta_ri",
    "rmse_baseline",
    "rmse_advanced",
    "p_baseline",
    "p_advanced",
)


def _per_run(
    frame: pd.DataFrame,
    which: str,
    runs: list[Hashable],
    metrics: MetricsLike,
    columns: ColumnsLike,
    options: EvaluationOptions,
) -> dict[Hashable, pd.DataFrame]:
    """Per-query values (query x metric) of each named run of ``frame``."""
    table = _evaluate.per_query(
        frame, parse_metrics(metrics), columns, Evaluation.from_options(options)
    )
    if not isinstance(table.index, pd.MultiIndex):
        msg = (
            f"the {which} frame has no run column; reproduction compares runs by name "
            "(the baseline and the advanced run), so both frames need one"
        )
        raise SchemaError(msg)
    present = table.index.get_level_values(0)
    out = {}
    for run in runs:
        if run not in present:
            names = sorted(map(str, present.unique()))
            msg = (
                f"run {run!r} is not in the {which} frame (its runs are {names}); both "
                "frames name the baseline and the advanced run alike -- rename with "
                "frame.replace({'run': {...}})"
            )
            raise SchemaError(msg)
        out[run] = table.loc[[run]].droplevel(0)
    return out


def _refuse_unmatchable_queries(original: pd.Index, reproduced: pd.Index) -> None:
    """Query ids of different kinds never match (the rule of ``pdireval._core.ids``):
    the paired statistics would silently become unpaired ones.
    """
    same_kind([("the original frame", original), ("the reproduced frame", reproduced)], "query")


def _by_query_value(tables: dict[Hashable, pd.DataFrame]) -> dict[Hashable, pd.DataFrame]:
    """The tables indexed by the query ids' values, whatever their dtype: categorical ids
    with other categories, or Arrow and numpy integers, on the two sides still pair up.
    """
    return {
        run: table.set_axis(pd.Index(table.index.to_numpy(dtype=object), name=table.index.name))
        for run, table in tables.items()
    }


def _paired_p(stats: Any, difference: np.ndarray) -> float:
    """Two-sided paired t-test of per-query differences: 1 when all are 0, 0 when they
    are one non-zero constant, NaN with fewer than two queries.
    """
    difference = np.where(np.abs(difference) <= TIE_TOLERANCE, 0.0, difference)
    if not difference.any():
        return 1.0 if len(difference) else float("nan")
    n = len(difference)
    if n < 2:
        return float("nan")
    spread = difference.std(ddof=1)
    if spread <= TIE_TOLERANCE:
        return 0.0
    t = difference.mean() / (spread / np.sqrt(n))
    return float(2 * stats.t.sf(abs(t), n - 1))


def _unpaired_p(stats: Any, first: np.ndarray, second: np.ndarray) -> float:
    """Two-sided Student's t-test with pooled variance (NaN with fewer than two values on
    a side; 1 or 0 when neither side varies and the means are equal or not).
    """
    n1, n2 = len(first), len(second)
    if n1 < 2 or n2 < 2:
        return float("nan")
    gap = first.mean() - second.mean()
    pooled = ((n1 - 1) * first.var(ddof=1) + (n2 - 1) * second.var(ddof=1)) / (n1 + n2 - 2)
    spread = np.sqrt(pooled * (1 / n1 + 1 / n2))
    if spread <= TIE_TOLERANCE:
        return 1.0 if abs(gap) <= TIE_TOLERANCE else 0.0
    return float(2 * stats.t.sf(abs(gap / spread), n1 + n2 - 2))


def _mean(values: pd.Series) -> float:
    return float(values.mean()) if len(values) else float("nan")


def _improvements(
    tables: dict[Hashable, pd.DataFrame], baseline: Hashable, advanced: Hashable, name: str
) -> pd.Series:
    """Per-query improvement of the advanced run over the baseline (shared queries)."""
    gain = tables[advanced][name]
    return (gain - tables[baseline][name].reindex(gain.index)).dropna()


def _ratio(numerator: float, denominator: float) -> float:
    return numerator / denominator if denominator != 0 else float("nan")


@takes(EVALUATION)
def reproduction(
    original: pd.DataFrame,
    reproduced: pd.DataFrame,
    metrics: MetricsLike,
    *,
    baseline: Hashable,
    advanced: Hashable | None = None,
    columns: ColumnsLike = None,
    **options: Unpack[EvaluationOptions],
) -> pd.DataFrame:
    """Compare a reproduced experiment with the original, metric by metric.

    Parameters
    ----------
    original, reproduced : DataFrame
        Long frames (with judgments, as for :func:`pdireval.evaluate`) holding the
        baseline run and, optionally, the advanced run under the same run names.
    metrics : str, Metric or list of them
        As for :func:`pdireval.evaluate`.
    baseline : run id
        The baseline run.
    advanced : run id, optional
        The improved run; without it only the per-run columns are filled.
    columns : ColumnMap or dict, optional
        Which column plays which role (in both frames).
    **options
        Evaluation options (``queries``, ``max_rank``, ``judged_only``, ``ties``, ...).

    Returns
    -------
    DataFrame
        One row per metric; columns ``effect_ratio``, ``delta_ri`` (NaN without an
        advanced run, or when the original shows no effect), ``rmse_baseline``,
        ``rmse_advanced`` (NaN when the two experiments evaluated different
        queries; unjudged queries are evaluated on neither side), ``p_baseline``,
        ``p_advanced`` (two-sided t-test of original against reproduced values:
        paired over the same queries, Student's unpaired test with pooled variance
        otherwise; 1 where the values are identical, 0 where they differ by one
        constant, NaN with fewer than two queries).

    Raises
    ------
    SchemaError
        A frame without a run column, or without one of the named runs.
    MissingDependencyError
        scipy is not installed (the t-tests need it).

    Notes
    -----
    Definitions follow Breuer et al. (2020) and their repro_eval package: the effect
    ratio divides the mean per-query improvement of the reproduction by the
    original's (over each experiment's own queries), ΔRI subtracts the reproduced
    relative improvement of the means from the original one. A reproduction has the
    original's queries; with other queries (a replication) only the effect ratio,
    ΔRI and the unpaired tests are meaningful.

    References
    ----------
    T. Breuer, N. Ferro, N. Fuhr, M. Maistro, T. Sakai, P. Schaer, I. Soboroff
    (2020), How to measure the reproducibility of system-oriented IR experiments,
    SIGIR.

    Examples
    --------
    >>> import pdireval
    >>> from pdireval.datasets import example
    >>> original = example().query("run in ['weak', 'strong']")
    >>> # a reproduction whose baseline came out stronger than the original's
    >>> redone = example().query("run in ['medium', 'strong']")
    >>> redone = redone.replace({"run": {"medium": "weak"}})
    >>> table = pdireval.reproduction(original, redone, ["AP", "P@10"],
    ...                               baseline="weak", advanced="strong")
    >>> table[["effect_ratio", "rmse_advanced"]].round(3)
          effect_ratio  rmse_advanced
    AP           0.457            0.0
    P@10         0.442            0.0
    """
    stats = scipy_stats()
    runs = [baseline] if advanced is None else [baseline, advanced]
    before = _per_run(original, "original", runs, metrics, columns, options)
    after = _per_run(reproduced, "reproduced", runs, metrics, columns, options)
    _refuse_unmatchable_queries(before[baseline].index, after[baseline].index)
    before, after = _by_query_value(before), _by_query_value(after)
    names = list(before[baseline].columns)
    result = pd.DataFrame(np.nan, index=pd.Index(names), columns=list(COLUMNS))
    for name in names:
        pairs = {run: (before[run][name].dropna(), after[run][name].dropna()) for run in runs}
        same_queries = all(  # unjudged queries (NaN) are not evaluated on either side
            old.index.sort_values().equals(new.index.sort_values()) for old, new in pairs.values()
        )
        for run, suffix in zip(runs, ("baseline", "advanced"), strict=False):
            old, new = pairs[run]
            old_values = old.to_numpy(np.float64)
            if same_queries:
                new_values = new.reindex(old.index).to_numpy(np.float64)
                difference = old_values - new_values
                if len(difference):
                    result.loc[name, f"rmse_{suffix}"] = float(np.sqrt(np.mean(difference**2)))
                p_value = _paired_p(stats, difference)
            else:
                p_value = _unpaired_p(stats, old_values, new.to_numpy(np.float64))
            result.loc[name, f"p_{suffix}"] = p_value
        if advanced is None:
            continue
        effect = _mean(_improvements(before, baseline, advanced, name))
        reproduced_effect = _mean(_improvements(after, baseline, advanced, name))
        result.loc[name, "effect_ratio"] = _ratio(reproduced_effect, effect)
        improvement = _ratio(
            _mean(before[advanced][name]) - _mean(before[baseline][name]),
            _mean(before[baseline][name]),
        )
        reproduced_improvement = _ratio(
            _mean(after[advanced][name]) - _mean(after[baseline][name]),
            _mean(after[baseline][name]),
        )
        result.loc[name, "delta_ri"] = improvement - reproduced_improvement
    return result
