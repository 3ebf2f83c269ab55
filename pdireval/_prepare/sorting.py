"""Orders, searches and repeats of integer keys, with numpy.

The mechanics under grouping, matching and ranking: a stable argsort of 64-bit keys
(:func:`argsort_keys`), searches of many scattered values (:func:`search_scattered`),
the distinct keys of an array (:func:`distinct_keys`) and a test for a repeated key
that needs no sort (:func:`has_repeat`). Nothing here knows what the keys stand for.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import partial

import numpy as np

from pdireval._prepare.arrays import TEMPORARY_ROWS
from pdireval._prepare.keys import spread

__all__ = [
    "argsort_keys",
    "distinct_keys",
    "has_repeat",
    "join_on_keys",
    "search_scattered",
    "slot_table",
    "stable_argsort",
]

_SLOTS_PER_KEY = 16
_LARGEST_SLOTTED = 1 << 18  # more keys than this first go through rounds of larger tables
_LARGEST_ROUND_BITS = 25  # slots of such a round: four to eight per key, at most 2**25
# Odd 64-bit constants (from the fractional parts of the square roots of 2, 3 and 5), one
# per round and none the multiplier of the last step: keys colliding in one round are
# spread afresh in the next.
_ROUND_MULTIPLIERS = tuple(
    np.uint64(value) for value in (0x6A09E667F3BCC909, 0xBB67AE8584CAA73B, 0x3C6EF372FE94F82B)
)


def argsort_keys(values: np.ndarray) -> np.ndarray:
    """A stable ``np.argsort`` of ``values`` (uint64 keys, or any dtype).

    Keys small enough to carry their row number in their low bits are sorted as such,
    by value then row, with numpy's plain (unstable, faster) sort.

    Examples
    --------
    >>> argsort_keys(np.array([2**40, 3, 2**40 + 1, 3], dtype=np.uint64)).tolist()
    [1, 3, 0, 2]
    >>> argsort_keys(np.array([2**63, 5, 2**63, 5, 1], dtype=np.uint64)).tolist()
    [4, 1, 3, 0, 2]
    """
    n = len(values)
    if n < 2 or values.dtype != np.uint64:
        return np.argsort(values, kind="stable")
    row_bits = (n - 1).bit_length()
    if int(values.max()) >> (64 - row_bits) == 0:  # value and row in one word
        packed = values << np.uint64(row_bits)
        packed |= np.arange(n, dtype=np.uint64)
        packed.sort()
        packed &= np.uint64((1 << row_bits) - 1)
        return packed.astype(np.intp)
    return np.argsort(values, kind="stable")


def stable_argsort(values: np.ndarray) -> np.ndarray:
    """``np.argsort(values, kind="stable")``, faster for non-negative integers.

    Values below 2**16 are radix-sorted as 16-bit integers, larger ones go through
    :func:`argsort_keys`; sorted values cost one pass.

    Examples
    --------
    >>> stable_argsort(np.array([3, 1, 3, 0])).tolist()
    [3, 1, 0, 2]
    """
    n = len(values)
    if n < 2 or values.dtype.kind not in "iu":
        return np.argsort(values, kind="stable")
    if bool(np.all(values[1:] >= values[:-1])):
        return np.arange(n)
    low, high = int(values.min()), int(values.max())
    if low < 0:
        return np.argsort(values, kind="stable")
    if high < 2**16:
        return np.argsort(values.astype(np.uint16), kind="stable")
    return argsort_keys(values.astype(np.uint64))


def search_scattered(
    ordered: np.ndarray, values: np.ndarray, sides: tuple[str, ...] = ("left",)
) -> list[np.ndarray]:
    """``np.searchsorted(ordered, values, side)`` for each of ``sides``, values in any order.

    Many values scattered over a large array are searched in sorted order and put back:
    each search then starts where the previous one ended, in memory already read
    (about three times faster for tens of thousands of values, sort included).

    Examples
    --------
    >>> search_scattered(np.array([1, 3, 5]), np.array([5, 0, 3]), ("left", "right"))
    [array([2, 0, 1]), array([3, 0, 2])]
    """
    if len(values) < 1024 or len(ordered) < 64:
        return [np.searchsorted(ordered, values, side) for side in sides]  # type: ignore[call-overload]
    order = argsort_keys(values)
    in_order = values[order]
    found = []
    for side in sides:
        at = np.empty(len(values), dtype=np.intp)
        at[order] = np.searchsorted(ordered, in_order, side)  # type: ignore[call-overload]
        found.append(at)
    return found


def distinct_keys(keys: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Distinct ``keys`` (sorted), the first row holding each, and each row's distinct key.

    Examples
    --------
    >>> [part.tolist() for part in distinct_keys(np.array([7, 2, 7], dtype=np.uint64))]
    [[2, 7], [1, 0], [1, 0, 1]]
    """
    order = argsort_keys(keys)  # stable: the first row of a key comes first
    ordered = keys[order]
    new = np.ones(len(keys), dtype=bool)
    np.not_equal(ordered[1:], ordered[:-1], out=new[1:])
    of_key = np.empty(len(keys), dtype=np.int64)
    of_key[order] = np.cumsum(new) - 1
    return ordered[new], order[new], of_key


def join_on_keys(
    left_keys: np.ndarray, sorted_keys: np.ndarray, order: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """Pairs (left row, right row) whose keys are equal; the right keys are distinct,
    ``sorted_keys`` in order and ``order`` their rows.

    Examples
    --------
    >>> right = np.array([9, 4], dtype=np.uint64)
    >>> [part.tolist() for part in join_on_keys(right[[1, 1, 0]], np.sort(right), np.array([1, 0]))]
    [[0, 1, 2], [1, 1, 0]]
    """
    if not len(order):
        return np.zeros(0, dtype=np.intp), np.zeros(0, dtype=np.intp)
    at = np.minimum(search_scattered(sorted_keys, left_keys)[0], len(order) - 1)
    rows = np.flatnonzero(sorted_keys[at] == left_keys)
    return rows, order[at[rows]]


def slot_table(n_keys: int) -> np.ndarray:
    """Scratch space for :func:`has_repeat` on up to ``n_keys`` keys, to reuse in a loop."""
    return np.empty(_slots(n_keys), dtype=np.int32)


def has_repeat(keys: np.ndarray, table: np.ndarray | None = None) -> bool:
    """Whether a key occurs twice.

    Each key is written to a slot of ``table`` (scratch space; a new one when too small)
    picked by a hash of the key, and compared with the key that kept the slot. Only the
    keys that share a slot with a different key (bar the one kept) go on. Up to 2**18
    keys, with sixteen slots per key, the few left are sorted and compared. More keys
    first pass through rounds of four to eight slots per key (at most 2**25 slots),
    another hash each round, each leaving about a tenth of them. Two random passes over
    a table in the CPU cache: several times faster than sorting the keys.

    Examples
    --------
    >>> has_repeat(np.array([3, 9, 2**40 + 3], dtype=np.uint64))
    False
    >>> has_repeat(np.array([3, 9, 3], dtype=np.uint64))
    True
    """
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
    if len(keys) < 2:
        return False
    if len(keys) > _LARGEST_SLOTTED:  # pragma: no cover - keys hashing alike in every round
        ordered = np.sort(keys)
        return bool(np.any(ordered[1:] == ordered[:-1]))
    size = _slots(len(keys))
    shared = _sharing_a_slot(keys, partial(spread, bits=size.bit_length() - 1), size, table)
    if shared is None:
        return True
    ordered = np.sort(keys[shared])
    return bool(np.any(ordered[1:] == ordered[:-1]))


def _slots(n_keys: int) -> int:
    """Slots for ``n_keys`` keys: a power of two, about sixteen per key."""
    return 1 << max(int(n_keys * _SLOTS_PER_KEY - 1).bit_length(), 1)


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
