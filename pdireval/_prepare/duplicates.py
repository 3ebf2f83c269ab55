"""Find repeated (group, doc) pairs quickly, without building a hash table of every doc id.

A plain ``DataFrame.duplicated`` on a 7M-row run hashes every doc id into a
table of millions of entries (seconds). Here each row gets a 64-bit key mixing
its group code with the doc id's key (:mod:`pdireval._prepare.keys`); the keys are
sorted and only rows whose keys collide are compared exactly. Where a group's
rows are contiguous (a run in run order) the keys are sorted a window of
groups at a time, which keeps the sort in the CPU cache.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from pdireval._prepare.keys import id_keys
from pdireval._prepare.take import take

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
    categorical = isinstance(docs.dtype, pd.CategoricalDtype)  # codes are keys within a column
    keys = docs.cat.codes.to_numpy().astype(np.uint64) if categorical else id_keys(docs)
    if keys is None:
        keys = pd.factorize(docs)[0].astype(np.uint64)
    for begin in range(0, len(keys), _WINDOW):  # in pieces: no full-length temporary
        mixed = group[begin : begin + _WINDOW].astype(np.uint64)
        mixed *= _MIX
        keys[begin : begin + _WINDOW] ^= mixed
    suspects = _colliding(keys, group)
    if not len(suspects):
        return np.zeros(0, dtype=np.int64)
    exact = pd.DataFrame({"group": group[suspects], "doc": take(docs, suspects).array})
    return suspects[exact.duplicated().to_numpy()]


def _colliding(keys: np.ndarray, group: np.ndarray) -> np.ndarray:
    """Sorted positions of the rows whose key equals another row's key."""
    if not _may_collide(keys, group):
        return np.zeros(0, dtype=np.int64)
    order = np.argsort(keys, kind="stable")
    sorted_keys = keys[order]
    same = sorted_keys[1:] == sorted_keys[:-1]
    colliding = np.zeros(len(keys), dtype=bool)
    colliding[order[1:][same]] = True
    colliding[order[:-1][same]] = True
    return np.flatnonzero(colliding)


def _may_collide(keys: np.ndarray, group: np.ndarray) -> bool:
    """False when all keys are distinct (True may be wrong only in that direction).

    Rows of a group are compared with each other only: the groups whose rows form one
    block are sorted a window of blocks at a time; the rows of groups split over
    several blocks (e.g. judged documents appended after a run) are sorted together.
    With most groups split (shuffled rows) all keys are sorted at once.
    """
    if len(keys) < 2:
        return False
    new_block = np.empty(len(group), dtype=bool)
    new_block[0] = True
    np.not_equal(group[1:], group[:-1], out=new_block[1:])
    if np.count_nonzero(new_block) * 4 > len(keys):  # small or scattered groups
        return _has_equal(np.sort(keys))
    starts = np.flatnonzero(new_block)
    blocks_of_group = np.bincount(group[starts])
    split = blocks_of_group[group[starts]] > 1
    length = np.diff(np.r_[starts, len(keys)])
    if int(length[split].sum()) * 2 > len(keys):
        return _has_equal(np.sort(keys))
    if split.any():
        split_starts, split_length = starts[split], length[split]
        offset = np.repeat(split_starts - (np.cumsum(split_length) - split_length), split_length)
        if _has_equal(np.sort(keys[offset + np.arange(len(offset))])):
            return True
    at = np.searchsorted(starts, np.arange(0, len(keys), _WINDOW), side="right") - 1
    bounds = starts[np.unique(at)].tolist()
    windows = zip(bounds, [*bounds[1:], len(keys)], strict=True)
    return any(_has_equal(np.sort(keys[lo:hi])) for lo, hi in windows)


def _has_equal(sorted_keys: np.ndarray) -> bool:
    return bool(np.any(sorted_keys[1:] == sorted_keys[:-1]))
