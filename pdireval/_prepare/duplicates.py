"""Find repeated (group, doc) pairs quickly, without building a hash table of every doc id.

A plain ``DataFrame.duplicated`` on a 7M-row run hashes every doc id into a
table of millions of entries (seconds). Here each row gets a 64-bit key mixing
its group code with the doc id's key (:mod:`pdireval._prepare.keys`), and only rows
whose keys collide are compared exactly. Where a group's rows are contiguous (a run
in run order) the keys are checked a window of groups at a time, in the CPU cache;
keys of scattered groups all at once. Where numpy sorts 64-bit integers with SIMD
instructions the keys are sorted and neighbours compared; elsewhere each key goes to
a slot of a table sixteen times larger, picked by a hash of it, and only the few keys
sharing a slot are sorted (many keys go through a few rounds of larger tables first).
"""

from __future__ import annotations

from collections.abc import Callable
from functools import partial

import numpy as np
import pandas as pd

from pdireval._prepare.keys import (
    TEMPORARY_ROWS,
    arrow_strings,
    id_keys,
    spread,
    vectorised_sort,
)
from pdireval._prepare.take import take

__all__ = ["has_repeat", "repeated_rows"]

_MIX = np.uint64(0xBF58476D1CE4E5B9)
_WINDOW = 1 << 16  # rows checked at a time when groups are contiguous
_SLOTS_PER_KEY = 16
_LARGEST_SLOTTED = 1 << 18  # more keys than this first go through rounds of larger tables
_LARGEST_ROUND_BITS = 25  # slots of such a round: four to eight per key, at most 2**25


def repeated_rows(
    group: np.ndarray, docs: pd.Series, *, keys: np.ndarray | None = None
) -> np.ndarray:
    """Positions of rows whose (group, doc) already occurred in an earlier row.

    Parameters
    ----------
    group : ndarray of int
        Group of each row: small codes, or (for scattered rows) any 64-bit numbers
        equal for equal groups.
    docs : Series
        Doc id of each row (same length, no missing values).
    keys : ndarray of uint64, optional
        The docs' keys (:func:`~pdireval._prepare.keys.id_keys`) when the caller has
        them; they are overwritten.

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
    if keys is None:
        categorical = isinstance(docs.dtype, pd.CategoricalDtype)  # codes: keys in a column
        keys = docs.array.codes.astype(np.uint64) if categorical else id_keys(docs)
    if keys is None:
        keys = pd.factorize(docs)[0].astype(np.uint64)
    for begin in range(0, len(keys), _WINDOW):  # in pieces: no full-length temporary
        mixed = group[begin : begin + _WINDOW].astype(np.uint64)
        mixed *= _MIX
        keys[begin : begin + _WINDOW] ^= mixed
    suspects = _colliding(keys, group)
    if not len(suspects):
        return np.zeros(0, dtype=np.int64)
    suspected = take(docs, suspects)
    converted = arrow_strings(suspected)  # pandas 2 hashes Python strings up to a NUL
    exact = pd.DataFrame(
        {"group": group[suspects], "doc": (suspected if converted is None else converted).array}
    )
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
    block are checked a window of blocks at a time; the rows of groups split over
    several blocks (e.g. judged documents appended after a run) are checked together.
    With most groups split (shuffled rows) all keys are checked at once.
    """
    if len(keys) < 2:
        return False
    new_block = np.empty(len(group), dtype=bool)
    new_block[0] = True
    np.not_equal(group[1:], group[:-1], out=new_block[1:])
    if np.count_nonzero(new_block) * 4 > len(keys):  # small or scattered groups
        return has_repeat(keys)
    starts = np.flatnonzero(new_block)
    if group.dtype == np.uint64:  # group keys rather than codes
        group = pd.factorize(group)[0]
    blocks_of_group = np.bincount(group[starts])
    split = blocks_of_group[group[starts]] > 1
    length = np.diff(np.r_[starts, len(keys)])
    if int(length[split].sum()) * 2 > len(keys):
        return has_repeat(keys)
    # Scratch space of every window, for the tables of slots (none where keys are sorted).
    table = None if vectorised_sort() else np.empty(_slots(_WINDOW), dtype=np.int32)
    if split.any():
        split_starts, split_length = starts[split], length[split]
        offset = np.repeat(split_starts - (np.cumsum(split_length) - split_length), split_length)
        if has_repeat(keys[offset + np.arange(len(offset))], table):
            return True
    at = np.searchsorted(starts, np.arange(0, len(keys), _WINDOW), side="right") - 1
    bounds = starts[np.unique(at)].tolist()
    windows = zip(bounds, [*bounds[1:], len(keys)], strict=True)
    return any(has_repeat(keys[lo:hi], table) for lo, hi in windows)


def _slots(n_keys: int) -> int:
    """Slots for ``n_keys`` keys: a power of two, about sixteen per key."""
    return 1 << max(int(n_keys * _SLOTS_PER_KEY - 1).bit_length(), 1)


def has_repeat(keys: np.ndarray, table: np.ndarray | None = None) -> bool:
    """Whether a key occurs twice.

    Each key is written to a slot of ``table`` (scratch space, reused across calls; a
    new one when too small) picked by a hash of the key, and compared with the key that
    kept the slot. Only the keys that share a slot with a different key (bar the one
    kept) go on. Up to ``_LARGEST_SLOTTED`` keys, with sixteen slots per key, the few
    left are sorted and compared. More keys first pass through rounds of four to eight
    slots per key (at most 2**25 slots), another hash each round, each leaving about a
    tenth of them.
    Where numpy sorts 64-bit integers with SIMD instructions, the keys are sorted and
    compared instead: three times faster than the tables at millions of keys, twice
    at tens of thousands. On other CPUs sorting every key costs several times more.

    Examples
    --------
    >>> has_repeat(np.array([3, 9, 2**40 + 3], dtype=np.uint64))
    False
    >>> has_repeat(np.array([3, 9, 3], dtype=np.uint64))
    True
    """
    if vectorised_sort():
        ordered = np.sort(keys)
        return bool(np.any(ordered[1:] == ordered[:-1]))
    for multiplier in _ROUND_MULTIPLIERS:
        if len(keys) <= _LARGEST_SLOTTED:
            break
        size = 1 << min(int(4 * len(keys) - 1).bit_length(), _LARGEST_ROUND_BITS)
        if table is None or len(table) < size:
            table = np.empty(size, dtype=np.int32)  # kept for the later rounds
        slot_of = partial(spread, bits=size.bit_length() - 1, multiplier=multiplier)
        shared = _sharing_a_slot(keys, slot_of, size, table)
        if shared is None:
            return True
        keys = keys[shared]
    n = len(keys)
    if n < 2:
        return False
    if n > _LARGEST_SLOTTED:  # pragma: no cover - keys hashing alike in every round
        ordered = np.sort(keys)
        return bool(np.any(ordered[1:] == ordered[:-1]))
    size = _slots(n)
    shared = _sharing_a_slot(keys, partial(spread, bits=size.bit_length() - 1), size, table)
    if shared is None:
        return True
    ordered = np.sort(keys[shared])
    return bool(np.any(ordered[1:] == ordered[:-1]))


# Odd 64-bit constants (from the fractional parts of the square roots of 2, 3 and 5), one
# per round and none the multiplier of the last step: keys colliding in one round are
# spread afresh in the next.
_ROUND_MULTIPLIERS = tuple(
    np.uint64(value) for value in (0x6A09E667F3BCC909, 0xBB67AE8584CAA73B, 0x3C6EF372FE94F82B)
)


def _sharing_a_slot(
    keys: np.ndarray,
    slot_of: Callable[[np.ndarray], np.ndarray],
    size: int,
    table: np.ndarray | None,
) -> np.ndarray | None:
    """Mask of the keys that share their slot (``slot_of`` them, among ``size``) with a
    different key, bar one per slot; None when a key repeats.

    One key of each slot is kept in it (which one does not matter) and every other key
    of the slot is compared with that one: equal keys are a repeat. The kept keys are
    then known to occur once -- an equal key would have the same slot -- so only the
    others stay suspects: they may still equal each other. Slots are computed a block
    of keys at a time, twice, rather than held for every key.
    """
    if table is None or len(table) < size:
        table = np.empty(size, dtype=np.int32)
    n = len(keys)
    for begin in range(0, n, TEMPORARY_ROWS):
        end = min(begin + TEMPORARY_ROWS, n)
        table[slot_of(keys[begin:end])] = np.arange(begin, end, dtype=np.int32)
    suspect = np.empty(n, dtype=bool)
    for begin in range(0, n, TEMPORARY_ROWS):
        end = min(begin + TEMPORARY_ROWS, n)
        piece = keys[begin:end]
        holder = table[slot_of(piece)]
        shared = np.not_equal(holder, np.arange(begin, end, dtype=np.int32), out=suspect[begin:end])
        if shared.any() and np.any(keys[holder[shared]] == piece[shared]):
            return None
    return suspect
