"""Small array helpers shared by the measures: sums inside groups and lookups.

The prepared rows (and the ideal rankings built from the judgments) are sorted by
group, so a running sum that restarts at each group is a segmented scan. It is
computed with pandas' grouped cumsum, which restarts exactly at each group (a
global cumsum minus the total before the group would lose precision on long inputs).
"""

from __future__ import annotations

import numpy as np
import pandas as pd

__all__ = ["group_cumsum", "last_at_or_before"]


def group_cumsum(values: np.ndarray, group: np.ndarray) -> np.ndarray:
    """Running sum of ``values`` inside each group (rows sorted by group), inclusive."""
    if not len(values):
        return np.zeros(0, dtype=np.float64)
    series = pd.Series(np.asarray(values, dtype=np.float64))
    return series.groupby(group, sort=False).cumsum().to_numpy(dtype=np.float64)


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
