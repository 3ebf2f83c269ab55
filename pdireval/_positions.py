"""Positions of the judged retrieved documents, from one sort of packed 64-bit keys.

Metrics only need, for every *judged* retrieved document, its position in its
query's ranking, and the number of documents each query retrieved. Both follow
from one ``np.sort`` of a uint64 per retrieved row that packs the group code
(high bits) above the ranking key (low bits) -- no permutation of the rows, no
gather in a shuffled order. A judged row's position is where its key falls in
the sorted keys, counted from its group's first key.

Keys that share the same packed value -- true score ties, or scores so close
that the packed key cannot tell them apart -- are ordered exactly afterwards by
(key, doc id descending as strings), trec_eval's rule; only runs that hold a
judged document need it.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import pandas as pd

from pdireval._errors import SchemaError

__all__ = ["judged_positions"]

_SIGN = np.uint64(1) << np.uint64(63)


def _order_preserving_bits(key: np.ndarray) -> np.ndarray:
    """Map float64 to uint64 so that unsigned order equals float order (-0.0 == 0.0)."""
    bits = (key + 0.0).view(np.uint64)  # + 0.0 turns -0.0 into 0.0
    negative = bits >= _SIGN
    return np.where(negative, ~bits, bits | _SIGN)


def _group_shift(n_groups: int) -> np.uint64:
    """Bit position of the group code in a packed key."""
    return np.uint64(64 - max(int(n_groups - 1).bit_length(), 1))


def _packed_keys(group: np.ndarray, key: np.ndarray, n_groups: int, by_rank: bool) -> np.ndarray:
    shift = _group_shift(n_groups)
    group_bits = 64 - int(shift)
    if by_rank:
        low = key.astype(np.uint64)
        if len(low) and int(low.max()) >> int(shift):
            msg = f"ranks up to {int(low.max())} are too large; renumber them from 1"
            raise SchemaError(msg)
    else:
        low = _order_preserving_bits(key) >> np.uint64(group_bits)
    packed = group.astype(np.uint64)
    packed <<= shift
    packed |= low
    return packed


def judged_positions(
    group: np.ndarray,
    key: np.ndarray,
    judged: np.ndarray,
    n_groups: int,
    *,
    by_rank: bool,
    doc_ids: Callable[[np.ndarray], pd.Series],
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Number retrieved per group, and the 1-based position of each judged retrieved row.

    Parameters
    ----------
    group : ndarray of int
        Group code of each retrieved row (any row order).
    key : ndarray of float
        Ranking key, ascending = better: the rank, or minus the score.
    judged : ndarray of int
        Indices (into the retrieved rows) of the judged rows.
    n_groups : int
        Number of groups.
    by_rank : bool
        Keys are ranks (whole numbers, unique per group): packed exactly, and equal
        packed keys mean a repeated rank.
    doc_ids : callable
        ``doc_ids(rows)`` returns the doc ids of retrieved rows, to break score ties.

    Returns
    -------
    num_ret : ndarray of float
        Retrieved documents per group.
    position : ndarray of int
        Position of each row of ``judged``.
    repeated : ndarray of int
        Retrieved rows whose rank repeats another rank of the group (``by_rank`` only).
    """
    ordered = _packed_keys(group, key, n_groups, by_rank)
    mine = ordered[judged]
    ordered.sort()  # in place: the packed keys of other rows are rebuilt only where needed
    num_ret = np.bincount(group, minlength=n_groups).astype(np.float64)
    group_start = np.r_[0, np.cumsum(num_ret[:-1])].astype(np.int64) if n_groups else num_ret
    first = np.searchsorted(ordered, mine, side="left")
    last = np.searchsorted(ordered, mine, side="right")
    position = first - group_start[group[judged]] + 1
    shared = last - first > 1
    repeated = np.zeros(0, dtype=np.int64)
    if by_rank:
        if len(ordered) > 1 and np.any(ordered[1:] == ordered[:-1]):
            twice = np.unique(ordered[1:][ordered[1:] == ordered[:-1]])
            repeated = _rows_with(group, key, by_rank, twice, n_groups)
        return num_ret, position, repeated
    if shared.any():
        position = position.copy()
        position[shared] = _positions_in_runs(
            mine[shared], group, key, judged[shared], first[shared], group_start, n_groups, doc_ids
        )
    return num_ret, position, repeated


def _rows_with(
    group: np.ndarray, key: np.ndarray, by_rank: bool, values: np.ndarray, n_groups: int
) -> np.ndarray:
    """Rows whose packed key is one of the sorted ``values``; scans only their groups."""
    shift = _group_shift(n_groups)
    in_groups = np.zeros(n_groups, dtype=bool)
    in_groups[(values >> shift).astype(np.int64)] = True
    candidates = np.flatnonzero(in_groups[group])
    packed = _packed_keys(group[candidates], key[candidates], n_groups, by_rank)
    where = np.searchsorted(values, packed)
    hit = values[np.minimum(where, len(values) - 1)] == packed
    return candidates[hit]


def _positions_in_runs(
    judged_packed: np.ndarray,
    group: np.ndarray,
    key: np.ndarray,
    judged: np.ndarray,
    run_first: np.ndarray,
    group_start: np.ndarray,
    n_groups: int,
    doc_ids: Callable[[np.ndarray], pd.Series],
) -> np.ndarray:
    """Exact positions of judged rows inside runs of equal packed keys (score ties)."""
    values = np.unique(judged_packed)
    members = _rows_with(group, key, False, values, n_groups)
    member_run = np.searchsorted(
        values, _packed_keys(group[members], key[members], n_groups, False)
    )
    docs = doc_ids(members)
    if not isinstance(docs.dtype, pd.StringDtype):
        docs = docs.astype(str)  # trec_eval compares doc ids as strings: "9" > "10"
    doc_order, _ = pd.factorize(docs, sort=True)
    order = np.lexsort((-doc_order, key[members], member_run))
    members, member_run = members[order], member_run[order]
    run_start = np.searchsorted(member_run, np.arange(len(values)))
    rank_in_run = np.arange(len(members)) - run_start[member_run]
    by_row = np.argsort(members)
    within = rank_in_run[by_row[np.searchsorted(members[by_row], judged)]]
    return run_first - group_start[group[judged]] + 1 + within
