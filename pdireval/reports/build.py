"""Building a :class:`~pdireval.Report` from a per-query table: the runs in the user's
order, the comparisons, the per-query table and the settings every rendering records.
"""

from __future__ import annotations

from collections.abc import Hashable, Sequence
from typing import Any, cast

import numpy as np
import pandas as pd

from pdireval._core.errors import SchemaError
from pdireval._core.levels import Levels
from pdireval._core.options import Evaluation, Significance
from pdireval._core.version import __version__
from pdireval.metrics._base import Metric
from pdireval.reports.levels import MACRO, levelled_summary, t_half_widths
from pdireval.reports.model import _MEAN_INTERVAL, _SEED_INTERVAL, TIE_RULE, Report, definition
from pdireval.reports.numbers import interval_note
from pdireval.stats.comparison import compare_table, per_query_table
from pdireval.stats.summary import aggregate, efficiency_table

__all__ = ["build_report"]


def build_report(
    table: pd.DataFrame,
    metrics: Sequence[Metric],
    evaluation: Evaluation,
    significance: Significance,
    *,
    latency: pd.Series | None = None,
    runs: Sequence[Hashable] | None = None,
    levels: Levels | None = None,
    risk_alpha: float | None = None,
) -> Report:
    """Build a :class:`Report` from a per-query table indexed by (run, query), and the
    per-query times when the frame has them.

    The report's runs are in the order of ``runs`` (the frame's order: see
    :func:`run_order`), the baseline(s) first; runs ``runs`` does not name follow in
    the table's order.

    With ``levels`` naming judge, collection or seed levels, the table is indexed by
    (run, judge, collection, seed, query) (those present) and the report's summary is
    the wide table papers print: one row per run, one block of metric columns per
    (judge, collection) in the table's order, then the macro average of the
    collections (the mean of the collection means, without marks) when there are two
    or more. The marks come from comparisons within each (judge, collection). With
    seeds, each value is the mean over seeds of the per-seed means, and ± (``ci=True``)
    the 95% t interval across the seeds.

    ``risk_alpha`` adds URisk and TRisk against the baseline to the comparison (see
    :func:`pdireval.risk`), with losses counted ``1 + risk_alpha`` times.
    """
    levels = _report_levels(levels)
    present = list(table.index.get_level_values(0).unique())
    order = _ordered(present, runs, significance.baseline)
    rank = {run: i for i, run in enumerate(order)}
    table = table.iloc[np.argsort(table.index.get_level_values(0).map(rank), kind="stable")]
    comparison = compare_table(table, significance, levels, risk_alpha=risk_alpha, runs=order)
    reference = _per_query_baseline(significance.baseline, order)
    per_query = pd.concat(
        {
            label: per_query_table(table, label, baseline=reference, runs=order)
            for label in table.columns
        },
        names=["metric"],
    )
    info = _settings(evaluation, significance, reference, len(comparison), risk_alpha)
    definitions = {metric.label: definition(metric) for metric in metrics}
    efficiency = None if latency is None else efficiency_table(latency).reindex(order)
    if levels is not None:
        summary, intervals, macro = levelled_summary(table, levels, order)
        notes, about = _level_notes(levels, macro, significance.test)
        info["correction scope"] = about.pop("correction scope")
        info["summary"] = about.pop("summary")
        info.update(about)
        return Report(
            summary=summary,
            comparison=comparison,
            per_query=per_query,
            intervals=intervals,
            settings=info,
            definitions=definitions,
            efficiency=efficiency,
            within=tuple(levels.within),
            notes=notes,
            mean_interval=_SEED_INTERVAL if levels.seed is not None else _MEAN_INTERVAL,
        )
    summary = cast(pd.DataFrame, aggregate(table, "mean"))  # a (run, query) table
    return Report(
        summary=summary.reindex(order),
        comparison=comparison,
        per_query=per_query,
        intervals=_half_widths(table).reindex(order),
        settings=info,
        definitions=definitions,
        efficiency=efficiency,
    )


def _report_levels(levels: Levels | None) -> Levels | None:
    """``levels`` when the table has judge, collection or seed levels, else ``None``.

    Raises
    ------
    SchemaError
        When such levels come without a run level.
    """
    if levels is None or not levels.extra:
        return None
    if levels.run is None:
        msg = (
            "report needs a frame with a run column and at least two runs; this frame "
            "has no run column (name it 'run' or map it with df.ireval(run='<column>'))"
        )
        raise SchemaError(msg)
    return levels


def _per_query_baseline(baseline: Any, order: list[Hashable]) -> Hashable:
    """The run the per-query table takes its deltas to: the baseline (the first of a
    list), or the first run when there is none.
    """
    if baseline is None:
        return order[0]
    if isinstance(baseline, list | tuple):
        return baseline[0]
    return baseline


def _settings(
    evaluation: Evaluation,
    significance: Significance,
    reference: Hashable,
    comparisons: int,
    risk_alpha: float | None,
) -> dict[str, Any]:
    """The settings every rendering records, for a report of ``comparisons`` comparisons."""
    test = significance.test
    resampling = test in ("permutation", "bootstrap")
    baseline = significance.baseline
    settings = evaluation.as_options()
    del settings["validate"]
    info: dict[str, Any] = {
        "pdireval version": __version__,
        **settings,
        "tie rule": TIE_RULE,
        "test": test,
        "correction": significance.correction,
        "correction scope": "all comparisons of the report (run pairs x metrics)",
        "alpha": significance.alpha,
        "n_resamples": significance.n_resamples if resampling else None,
        "seed": significance.seed if resampling else None,
        "baseline": baseline if baseline is not None else "all pairs",
        "per_query_baseline": reference,
        "summary": "mean over queries; ± is the half-width of the 95% Student t interval",
        "interval of Δ": interval_note(
            test, significance.correction, significance.alpha, comparisons
        ),
    }
    if risk_alpha is not None:
        info["risk alpha"] = risk_alpha
    return info


def _level_notes(levels: Levels, macro: bool, test: str) -> tuple[tuple[str, ...], dict[str, Any]]:
    """The sentences under a wide table, and the settings that describe its levels."""
    within = [str(name) for name in levels.within]
    notes = []
    about: dict[str, Any] = {
        "levels": ", ".join(
            f"{role} = {getattr(levels, role)}"
            for role in ("run", "judge", "collection", "seed")
            if getattr(levels, role) is not None
        ),
        "correction scope": "all comparisons of the report (run pairs x metrics"
        + "".join(f" x {name}" for name in within)
        + ")",
        "summary": "mean over queries; ± is the half-width of the 95% Student t interval",
    }
    if within:
        notes.append(f"Runs are compared within each {' and '.join(within)}.")
    if levels.seed is not None:
        seed = str(levels.seed)
        about["summary"] = (
            f"mean over queries for each {seed}, averaged over the {seed} values; ± is the "
            f"half-width of the 95% Student t interval across the {seed} values' means"
        )
        notes.append(f"Each value is the mean over {seed} values of the means over queries.")
        if test == "bootstrap":
            tested = f"the bootstrap test resamples queries and {seed} values (two-way)."
        else:
            tested = (
                "the test and the interval of the difference use each query's difference "
                f"averaged over the {seed} values."
            )
        notes.append(tested[0].upper() + tested[1:])
        about["seeds in tests"] = tested
    if macro:
        text = (
            f"{MACRO}: the mean of the {levels.collection} means (macro average), not tested, "
            "without marks."
        )
        notes.append(text)
        about["macro average"] = text
    return tuple(notes), about


def _ordered(
    present: list[Hashable], runs: Sequence[Hashable] | None, baseline: Any
) -> list[Hashable]:
    """``present`` in the order of ``runs``, the baseline(s) first."""
    known = set(present)
    order = list(dict.fromkeys([*(run for run in runs or () if run in known), *present]))
    bases = list(baseline) if isinstance(baseline, list | tuple) else [baseline]
    first = [base for base in dict.fromkeys(b for b in bases if b is not None) if base in known]
    return first + [run for run in order if run not in first]


def _half_widths(table: pd.DataFrame) -> pd.DataFrame:
    """Half-width of the 95% Student t interval of each run's mean, per metric."""
    grouped = table.groupby(level=0, sort=True, observed=True)
    return t_half_widths(grouped.count(), grouped.std(ddof=1))
