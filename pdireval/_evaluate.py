"""The evaluation engine: frame + column roles + options -> one per-query table.

Everything that evaluates -- the typed functions, curves, comparisons, reports, plots,
the Dask backend and the command line -- comes through :func:`per_query`: the frame is
validated and prepared once (:func:`pdireval._prepare.ranking.prepare`), every metric
kernel runs over the same prepared arrays, and the values are wrapped once.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd

from pdireval._errors import MetricError, SchemaError
from pdireval._options import Evaluation
from pdireval._prepare.columns import ResolvedColumns, as_column_map
from pdireval._prepare.ranking import Prepared, prepare
from pdireval.metrics import Metric
from pdireval.typing import ColumnsLike

__all__ = ["per_query", "prepared", "tie_groups"]


def prepared(
    frame: pd.DataFrame, columns: ColumnsLike, options: Evaluation
) -> tuple[Prepared, ResolvedColumns]:
    """Resolve the column roles of ``frame`` and prepare it for the metric kernels."""
    resolved = as_column_map(columns).resolve(frame)
    return prepare(frame, resolved, options), resolved


def per_query(
    frame: pd.DataFrame, metrics: Sequence[Metric], columns: ColumnsLike, options: Evaluation
) -> pd.DataFrame:
    """Per-query values of ``metrics``: index query (or (run, query)), one column per label."""
    ready, resolved = prepared(frame, columns, options)
    _refuse_missing_roles(metrics, resolved, frame)
    values = {metric.label: _compute(metric, ready) for metric in metrics}
    return ready.table(values)


def _compute(metric: Metric, ready: Prepared) -> np.ndarray:
    """One metric's values; a floating-point overflow or invalid operation is an error."""
    problem = ""
    try:
        with np.errstate(over="raise", invalid="raise", divide="raise", under="ignore"):
            values = metric.compute(ready.ranked, average=ready.average)
        if np.isinf(values).any():
            problem = "a value is infinite"
    except FloatingPointError as error:
        problem = str(error)
    if problem:
        largest = np.max(ready.ranked.judged_label, initial=0.0)
        msg = (
            f"computing {metric.label} failed in floating point ({problem}); the largest "
            f"relevance label is {largest:g}: use labels on a small graded scale, or a "
            "gain mapping, so that gains stay finite"
        )
        raise MetricError(msg)
    return values


def _refuse_missing_roles(
    metrics: Sequence[Metric], columns: ResolvedColumns, frame: pd.DataFrame
) -> None:
    """A metric reading a column the frame lacks (``known``) would be silently undefined."""
    for metric in metrics:
        for role in metric.family.needs:
            if getattr(columns, role) is None:
                msg = (
                    f"{metric.label} needs a {role!r} column (columns: {list(frame.columns)}); "
                    f"add one, or map it with df.ireval({role}='<column>')"
                )
                raise SchemaError(msg)


def tie_groups(
    frame: pd.DataFrame, k: int, rel: int, columns: ColumnsLike, options: Evaluation
) -> pd.DataFrame:
    """Groups of equal scores that straddle cutoff ``k``; see :func:`pdireval.tie_groups`."""
    ready, _ = prepared(frame, columns, options)
    ranked = ready.ranked
    keep = ready.keep[ranked.group]
    group, first = ranked.group[keep], ranked.tie_first[keep]
    size, relevant = ranked.tie_size[keep], ranked.relevant(rel)[keep]
    judged = ranked.label[keep] >= 0
    new = np.ones(len(group), dtype=bool)
    new[1:] = (group[1:] != group[:-1]) | (first[1:] != first[:-1])
    starts = np.flatnonzero(new)
    block = np.cumsum(new) - 1
    table = pd.DataFrame(
        {
            "first_rank": first[starts],
            "last_rank": first[starts] + size[starts] - 1,
            "size": size[starts],
            "judged": np.bincount(block, weights=judged, minlength=len(starts)).astype(int),
            "relevant": np.bincount(block, weights=relevant, minlength=len(starts)).astype(int),
        }
    )
    straddles = ((table["first_rank"] <= k) & (table["last_rank"] > k)).to_numpy()
    ids = ready.index.take(group[starts][straddles]).to_frame(index=False)
    return pd.concat([ids, table[straddles].reset_index(drop=True)], axis=1)
