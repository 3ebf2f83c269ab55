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
    ready, _ = prepared(frame, columns, options)
    values = {
        metric.label: metric.compute(ready.ranked, average=ready.average) for metric in metrics
    }
    return ready.table(values)


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
