"""Small array helpers shared by the measures: sums inside groups, lookups, logarithms.

The prepared rows (and the ideal rankings built from the judgments) are sorted by
group, so a running sum that restarts at each group is a segmented scan. It is
computed with pandas' grouped cumsum, which restarts exactly at each group (a
global cumsum minus the total before the group would lose precision on long inputs)
and compensates its rounding errors (Kahan summation).

The measures trec_eval computes must round as its C loops round, to print its last
digit: ``running_sum`` adds the values of each group one after the other, as a C loop
does, and ``libm_log2`` takes the C library's ``log2`` (numpy's own vectorised
logarithms may differ from it in the last bit).
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd

from pdireval._prepare.ranked import block_starts, positions_in_blocks

__all__ = ["group_cumsum", "last_at_or_before", "libm_log2", "running_sum"]


def group_cumsum(values: np.ndarray, group: np.ndarray) -> np.ndarray:
    """Running sum of ``values`` inside each group (rows sorted by group), inclusive."""
    if not len(values):
        return np.zeros(0, dtype=np.float64)
    series = pd.Series(np.asarray(values, dtype=np.float64))
    return series.groupby(group, sort=False).cumsum().to_numpy(dtype=np.float64)


def running_sum(values: np.ndarray, group: np.ndarray) -> np.ndarray:
    """Running sum of ``values`` inside each group (rows sorted by group), inclusive, each
    sum rounded in turn as a C loop ``sum += value`` rounds it.

    numpy's ``cumsum`` adds in order; it runs once per group or once per depth inside the
    groups (a depth adds the rows at that place in every group at once), whichever loops
    fewer times.
    """
    values = np.asarray(values, dtype=np.float64)
    out = values.copy()
    if len(out) < 2:
        return out
    first = block_starts(group)
    starts = np.flatnonzero(first)
    ends = np.append(starts[1:], len(out))
    longest = int((ends - starts).max())
    if len(starts) <= longest:
        for start, end in zip(starts.tolist(), ends.tolist(), strict=True):
            np.cumsum(values[start:end], out=out[start:end])
        return out
    depth = positions_in_blocks(first, len(out)) - 1
    by_depth = np.argsort(depth, kind="stable")
    bounds = np.searchsorted(depth[by_depth], np.arange(longest + 1))
    for at in range(1, longest):
        rows = by_depth[bounds[at] : bounds[at + 1]]
        out[rows] += out[rows - 1]
    return out


def libm_log2(values: np.ndarray) -> np.ndarray:
    """``log2`` of each value as the C library computes it (trec_eval's ``log2``).

    numpy's vectorised ``log2`` can differ from the C library's in the last bit (it does
    for 1621, say), which moves a printed fourth decimal now and then. Each distinct value
    is passed to ``math.log2``: a table up to the largest value when they are whole
    numbers of a moderate size (ranks), else the distinct values themselves.
    """
    values = np.asarray(values, dtype=np.float64)
    if not values.size:
        return values.copy()
    low, high = float(values.min()), float(values.max())
    if low >= 1 and high <= 4 * values.size + 65_536 and np.array_equal(values, np.floor(values)):
        table = np.empty(int(high) + 1)
        table[0] = -np.inf
        table[1:] = [math.log2(value) for value in range(1, int(high) + 1)]
        return table[values.astype(np.intp)]
    distinct, inverse = np.unique(values, return_inverse=True)
    logs = np.array([_log2(value) for value in distinct.tolist()], dtype=np.float64)
    return logs[inverse].reshape(values.shape)


def _log2(value: float) -> float:
    """C's ``log2``: -inf at 0 and NaN below, where ``math.log2`` raises."""
    if value > 0:
        return math.log2(value)
    return -math.inf if value == 0 else math.nan


def last_at_or_before(
    group: np.ndarray,
    position: np.ndarray,
    values: np.ndarray,
    query_group: np.ndarray,
    query_position: np.ndarray,
) -> np.ndarray:
    """For each (query_group, query_position): ``values`` of the group's last row whose
    position is at most query_position; 0 when there is none.

    ``group``/``position`` are sorted by (group, position) and positions are >= 1.
    """
    out = np.zeros(len(query_group), dtype=np.float64)
    if not len(group) or not len(query_group):
        return out
    span = int(max(position.max(), np.max(query_position, initial=0))) + 1
    keys = group.astype(np.int64) * span + position.astype(np.int64)
    wanted = query_group.astype(np.int64) * span + np.asarray(query_position, dtype=np.int64)
    index = np.searchsorted(keys, wanted, side="right") - 1
    found = (index >= 0) & (group[np.maximum(index, 0)] == query_group)
    out[found] = values[index[found]]
    return out
