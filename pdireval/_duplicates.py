"""Find repeated (group, doc) pairs quickly, without building a hash table of every doc id.

A plain ``DataFrame.duplicated`` on a 7M-row run hashes every doc id into a
table of millions of entries (seconds). Here each row gets a 64-bit key mixing
its group code with the doc id's key (:mod:`pdireval._keys`); the keys are
sorted and only rows whose keys collide are compared exactly. When each group's
rows are contiguous (a run in run order) the keys are sorted a window of
groups at a time, which keeps the sort in the CPU cache.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from pdireval._keys import id_keys
from pdireval._take import take

__all__ = ["repeated_rows"]

_MIX = np.uint64(0xBF58476D1CE4E5B9)
_WINDOW = 1 << 16  # rows sorted at a time when groups are contiguous


def repeated_rows(group: np.ndarray, docs: pd.Series) -> np.ndarray:
    """Positions of rows whose (group, doc) already occurred in an earlier row.

    Parameters
    ----------
    group : ndarray of int
        Group code of each row.
    docs : Series
        Doc id of each row (same length, no missing values).

    Returns
    -------
    ndarray of int
        Row positions (sorted) that repeat an earlier row; empty when all are unique.

    Examples
    --------
    >>> import numpy as np, pandas as pd
    >>> repeated_rows(np.array([0, 0, 1, 0]), pd.Series(["a", "b", "a", "a"])).tolist()
    [3]
    """
    keys = id_keys(docs)
    if keys is None:
        keys = pd.factorize(docs)[0].astype(np.uint64)
    keys ^= group.astype(np.uint64) * _MIX
    suspects = _colliding(keys, group)
    if not len(suspects):
        return np.zeros(0, dtype=np.int64)
    exact = pd.DataFrame({"group": group[suspects], "doc": take(docs, suspects).array})
    return suspects[exact.duplicated().to_numpy()]


def _colliding(keys: np.ndarray, group: np.ndarray) -> np.ndarray:
    """Sorted positions of the rows whose key equals another row's key."""
    starts = _one_block_per_group(group)
    if starts is not None:
        at = np.searchsorted(starts, np.arange(0, len(keys), _WINDOW), side="right") - 1
        bounds = starts[np.unique(at)]
        windows = zip(bounds.tolist(), [*bounds[1:].tolist(), len(keys)], strict=True)
        if not any(_has_equal(np.sort(keys[lo:hi])) for lo, hi in windows):
            return np.zeros(0, dtype=np.int64)
    elif not _has_equal(np.sort(keys)):
        return np.zeros(0, dtype=np.int64)
    order = np.argsort(keys, kind="stable")
    sorted_keys = keys[order]
    same = sorted_keys[1:] == sorted_keys[:-1]
    colliding = np.zeros(len(keys), dtype=bool)
    colliding[order[1:][same]] = True
    colliding[order[:-1][same]] = True
    return np.flatnonzero(colliding)


def _one_block_per_group(group: np.ndarray) -> np.ndarray | None:
    """First row of each group when every group's rows are contiguous, else None."""
    if not len(group):
        return None
    starts = np.flatnonzero(np.r_[True, group[1:] != group[:-1]])
    first_group = group[starts]
    if len(starts) > int(first_group.max()) + 1:
        return None  # more blocks than group codes: some group is split
    seen = np.zeros(int(first_group.max()) + 1, dtype=bool)
    seen[first_group] = True
    return starts if np.count_nonzero(seen) == len(starts) else None


def _has_equal(sorted_keys: np.ndarray) -> bool:
    return bool(np.any(sorted_keys[1:] == sorted_keys[:-1]))
