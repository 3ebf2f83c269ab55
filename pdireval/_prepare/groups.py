"""The (run, query) groups of a frame, and documents repeated within one.

Groups are numbered in the order of their sorted ids (run, then query), so results come
out sorted like ``groupby``. Ids that come in blocks -- a run in run order -- are read
at the first row of each block only: thousands of rows instead of millions.

A document may appear once per group. Rows get a 64-bit key mixing their group with
their doc id's key; only rows whose keys collide are compared exactly.
"""

from __future__ import annotations

from collections.abc import Hashable, Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc

from pdireval._core.roles import ResolvedColumns
from pdireval._prepare.arrays import (
    adjacent_differs,
    arrow_data,
    arrow_strings,
    bincount,
    gathered,
    holds_python_objects,
    holds_strings,
    scattered_start,
    string_array,
    string_dtype,
    take,
)
from pdireval._prepare.keys import id_keys
from pdireval._prepare.sorting import has_repeat, slot_table

__all__ = ["factorize_sorted", "group_codes", "repeated_rows"]

IntArray = np.ndarray

_MIX = np.uint64(0xBF58476D1CE4E5B9)
_WINDOW = 1 << 16  # rows checked at a time when groups are contiguous


def group_codes(
    frame: pd.DataFrame | Mapping[Hashable, pd.Series], columns: ResolvedColumns
) -> tuple[IntArray, pd.Index]:
    """Factorize (run, query) into dense codes ordered like the sorted ids (``frame``: a
    DataFrame, or its id columns by name).
    """
    query_codes, query_ids = factorize_sorted(frame[columns.query])
    query_index = pd.Index(query_ids, name=columns.query)
    if columns.run is None:
        return query_codes, query_index
    run_codes, run_ids = factorize_sorted(frame[columns.run])
    n_queries = max(len(query_ids), 1)
    codes, pairs = _pair_codes(run_codes, query_codes, len(run_ids), n_queries)
    index = pd.MultiIndex.from_arrays(
        [
            pd.Index(run_ids, name=columns.run).take(pairs // n_queries),
            query_index.take(pairs % n_queries),
        ]
    )
    return codes, index


def _pair_codes(
    run_codes: IntArray, query_codes: IntArray, n_runs: int, n_queries: int
) -> tuple[IntArray, IntArray]:
    """Dense codes of the (run, query) pairs that occur, in sorted order, and each code's
    pair as ``run * n_queries + query``.

    Where every pair has a slot in a table no larger than the rows (or a few million),
    the pairs that occur are ranked through that table, with no 64-bit value per row.
    """
    n = len(query_codes)
    slots = max(n_runs, 1) * n_queries
    if n_runs <= 1:  # one run: the pairs are the queries
        pairs = np.flatnonzero(bincount(query_codes, n_queries)) if n else np.zeros(0, np.intp)
        rank = np.zeros(n_queries, dtype=np.int32 if n_queries < 2**31 else np.int64)
        rank[pairs] = np.arange(len(pairs))
        return gathered(rank, query_codes), pairs
    if slots <= max(n, 1 << 22) and slots < 2**31:
        combined = run_codes.astype(np.int32) * np.int32(n_queries) + query_codes
        pairs = np.flatnonzero(bincount(combined, slots))
        rank = np.zeros(slots, dtype=np.int32)
        rank[pairs] = np.arange(len(pairs), dtype=np.int32)
        return gathered(rank, combined), pairs
    combined64 = run_codes.astype(np.int64) * n_queries + query_codes
    codes, pairs = pd.factorize(combined64, sort=True)
    return _narrow(codes), pairs


#: Below this many rows, ids that are not Python objects are hashed whole: reading the
#: first row of each block has a fixed cost (about 0.2 ms) that hashing only saves on
#: longer columns.
_BLOCKS_FROM_ROWS = 20_000


def factorize_sorted(values: pd.Series) -> tuple[IntArray, pd.Index]:
    """Codes and sorted unique ids; reads only the first row of each block when ids come grouped."""
    n = len(values)
    if n > 1 and not scattered_start(values):
        starts = np.flatnonzero(np.r_[True, adjacent_differs(values)])
        if len(starts) == 1 and not pd.isna(values.iloc[0]):  # one id: nothing to hash
            return np.zeros(n, dtype=np.int32), pd.Index(values.array[:1], dtype=values.dtype)
        worth_it = n >= _BLOCKS_FROM_ROWS or holds_python_objects(values.dtype)
        if worth_it and len(starts) * 8 <= n:
            block_codes, uniques = _factorize(take(values, starts))
            codes = np.repeat(_narrow(block_codes), np.diff(np.r_[starts, n]))
            return codes, uniques
    codes, uniques = _factorize(values)
    return _narrow(codes), uniques


def _factorize(values: pd.Series) -> tuple[np.ndarray, pd.Index]:
    """``pd.factorize(values, sort=True)``, Python strings hashed through Arrow.

    pandas 2's hash table of Python strings stops at a NUL character ("q" and
    "q\x00" would be one query); Arrow compares every byte. The ids keep their dtype.
    """
    if isinstance(values.dtype, pd.CategoricalDtype):
        found_codes = _factorize_categorical(values)
        if found_codes is not None:
            return found_codes
    if _integers(values.dtype) and len(values) >= _ARROW_INTEGERS_FROM_ROWS:
        codes, distinct = _factorize_arrow(pa.array(values.to_numpy()))
        return codes, pd.Index(distinct.to_numpy(), dtype=values.dtype)
    converted = arrow_strings(values)
    source = values if converted is None else converted
    found = _factorize_arrow_strings(source)
    if found is None:
        codes, uniques = pd.factorize(source, sort=True)
    elif source.dtype == string_dtype():  # pandas 2's pd.array would read the strings again
        codes, uniques = found[0], string_array(found[1])
    else:
        codes, uniques = found[0], pd.array(found[1], dtype=source.dtype)
    if converted is None:
        return codes, pd.Index(uniques)
    return codes, pd.Index(np.asarray(uniques, dtype=object), dtype=values.dtype)


#: Rows from which integer ids are factorized by Arrow: about twice as fast as pandas'
#: sorted factorize for millions of rows, and no faster for hundreds of thousands.
_ARROW_INTEGERS_FROM_ROWS = 1 << 20


def _integers(dtype: Any) -> bool:
    return isinstance(dtype, np.dtype) and dtype.kind in "iu"


def _factorize_categorical(values: pd.Series) -> tuple[np.ndarray, pd.Index] | None:
    """``pd.factorize(values, sort=True)`` of categorical ids from their codes: the
    categories used, in the categories' order. None when one is missing.
    """
    dtype: pd.CategoricalDtype = values.dtype  # type: ignore[assignment]
    codes = values.array.codes
    n_categories = len(dtype.categories)
    if len(codes) and int(codes.min()) < 0:
        return None
    used = np.flatnonzero(bincount(codes, n_categories))
    rank = np.zeros(n_categories, dtype=np.int32 if n_categories < 2**31 else np.int64)
    rank[used] = np.arange(len(used))
    uniques = pd.Categorical.from_codes(used, dtype=dtype)
    return gathered(rank, codes), pd.Index(uniques)


def _factorize_arrow_strings(values: pd.Series) -> tuple[np.ndarray, Any] | None:
    """Codes and sorted distinct values (an Arrow array) of Arrow strings without a
    missing one, straight from Arrow's dictionary encoding; else None.

    What ``pd.factorize(sort=True)`` does with them, without its fixed cost (about 60
    microseconds, most of a small call's grouping).
    """
    chunked = arrow_data(values)
    if chunked is None or chunked.null_count or not holds_strings(chunked):
        return None
    return _factorize_arrow(
        chunked.chunk(0) if chunked.num_chunks == 1 else chunked.combine_chunks()
    )


def _factorize_arrow(array: Any) -> tuple[np.ndarray, Any]:
    """Codes and sorted distinct values (an Arrow array) of an Arrow array without a
    missing value, from Arrow's dictionary encoding.
    """
    encoded = pc.dictionary_encode(array)
    order = pc.array_sort_indices(encoded.dictionary).to_numpy()
    rank = np.empty(len(order), dtype=np.int32 if len(order) < 2**31 else np.int64)
    rank[order] = np.arange(len(order))
    codes = gathered(rank, encoded.indices.to_numpy(zero_copy_only=False))
    return codes, encoded.dictionary.take(pa.array(order))


def _narrow(codes: np.ndarray) -> IntArray:
    """Codes as int32 when they fit (half the memory of int64 per row)."""
    small = len(codes) == 0 or int(codes.max()) < 2**31 - 1
    return codes.astype(np.int32 if small else np.int64, copy=False)


def repeated_rows(
    group: np.ndarray, docs: pd.Series, *, keys: np.ndarray | None = None
) -> np.ndarray:
    """Positions of rows whose (group, doc) already occurred in an earlier row.

    Parameters
    ----------
    group : ndarray of int
        Group code of each row.
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
    if len(group) <= _FEW_ROWS:
        return _repeated_among_few(group, docs)
    layout = _Layout.of(group)
    if keys is None and layout is not None and not layout.may_repeat(group, docs):
        return np.zeros(0, dtype=np.int64)  # each piece's keys made and checked in turn
    if keys is None:
        keys = _doc_keys(docs)
    _mix_in(keys, group)
    suspects = _colliding(keys, group, layout)
    if not len(suspects):
        return np.zeros(0, dtype=np.int64)
    suspected = take(docs, suspects)
    converted = arrow_strings(suspected)  # pandas 2 hashes Python strings up to a NUL
    exact = pd.DataFrame(
        {"group": group[suspects], "doc": (suspected if converted is None else converted).array}
    )
    return suspects[exact.duplicated().to_numpy()]


def _doc_keys(docs: pd.Series) -> np.ndarray:
    """A uint64 per row, equal for equal doc ids (unequal ones rarely collide); a new array."""
    if isinstance(docs.dtype, pd.CategoricalDtype):  # the codes: keys in the column
        return docs.array.codes.astype(np.uint64)
    keys = id_keys(docs)
    return pd.factorize(docs)[0].astype(np.uint64) if keys is None else keys


def _mix_in(keys: np.ndarray, group: np.ndarray) -> None:
    """Make ``keys`` (of docs) keys of (group, doc), in place, a window at a time."""
    for begin in range(0, len(keys), _WINDOW):  # in pieces: no full-length temporary
        mixed = group[begin : begin + _WINDOW].astype(np.uint64)
        mixed *= _MIX
        keys[begin : begin + _WINDOW] ^= mixed


@dataclass(frozen=True)
class _Layout:
    """Where the rows of each group lie, when most groups are one block of rows (a run in
    run order): the rows of the groups split over several blocks (e.g. judged documents
    appended after a run), group by group, cut into windows of whole groups, and windows
    of whole blocks of all rows, each about ``_WINDOW`` rows. Rows of a group are compared
    with each other only, so each piece is checked alone, in the CPU cache.
    """

    split_rows: np.ndarray
    split_windows: list[tuple[int, int]]  # into split_rows
    windows: list[tuple[int, int]]  # into the rows

    @classmethod
    def of(cls, group: np.ndarray) -> _Layout | None:
        """The layout of ``group``; None when most groups are small or scattered."""
        n = len(group)
        new_block = np.empty(n, dtype=bool)
        new_block[0] = True
        np.not_equal(group[1:], group[:-1], out=new_block[1:])
        if np.count_nonzero(new_block) * 4 > n:
            return None
        starts = np.flatnonzero(new_block)
        split = np.bincount(group[starts])[group[starts]] > 1
        length = np.diff(np.r_[starts, n])
        if int(length[split].sum()) * 2 > n:
            return None
        # the blocks of the split groups, those of one group together (in row order)
        order = np.argsort(group[starts[split]], kind="stable")
        split_starts, split_length = starts[split][order], length[split][order]
        begin = np.cumsum(split_length) - split_length  # each block's place in split_rows
        total = int(split_length.sum())
        split_rows = np.repeat(split_starts - begin, split_length) + np.arange(total)
        split_windows = []
        if total:  # windows of whole groups: each begins where a group's first block does
            split_group = group[split_starts]
            first_block = np.flatnonzero(np.r_[True, split_group[1:] != split_group[:-1]])
            split_windows = _windows(begin[first_block], total)
        return cls(split_rows, split_windows, _windows(starts, n))

    def scratch(self) -> np.ndarray:
        """Scratch space for checking the pieces: sized for the largest, up to a window's
        rows (a larger piece, one long group, takes a larger table of its own).
        """
        largest = max(hi - lo for lo, hi in [*self.split_windows, *self.windows])
        return slot_table(min(largest, _WINDOW))

    def pieces(self, keys: np.ndarray) -> list[np.ndarray]:
        """``keys`` of each piece: the split groups' windows, then each window's."""
        split = [keys[self.split_rows[lo:hi]] for lo, hi in self.split_windows]
        return split + [keys[lo:hi] for lo, hi in self.windows]

    def may_repeat(self, group: np.ndarray, docs: pd.Series) -> bool:
        """False when no (group, doc) repeats; True may be wrong only in that direction.

        Each piece's keys are made and checked in turn: no key array as long as the frame.
        """
        table = self.scratch()
        pieces: list[tuple[np.ndarray, pd.Series]] = []
        for lo, hi in self.split_windows:
            rows = self.split_rows[lo:hi]
            pieces.append((group[rows], take(docs, rows)))
        for lo, hi in self.windows:
            pieces.append((group[lo:hi], docs.iloc[lo:hi]))
        for piece_group, piece_docs in pieces:
            keys = _doc_keys(piece_docs)
            _mix_in(keys, piece_group)
            if has_repeat(keys, table):
                return True
        return False


def _windows(starts: np.ndarray, n: int) -> list[tuple[int, int]]:
    """Consecutive (begin, end) of about ``_WINDOW`` positions of ``n``, each beginning at
    one of ``starts`` (ascending, the first 0): whole blocks, however long.
    """
    at = np.searchsorted(starts, np.arange(0, n, _WINDOW), side="right") - 1
    bounds = starts[np.unique(at)].tolist()
    return list(zip(bounds, [*bounds[1:], n], strict=True))


#: Rows up to which repeats are found from exact codes of the docs (Arrow's dictionary
#: encoding, a few microseconds) rather than keys checked through tables of slots, whose
#: fixed cost is some hundred microseconds.
_FEW_ROWS = 1 << 12


def _repeated_among_few(group: np.ndarray, docs: pd.Series) -> np.ndarray:
    """:func:`repeated_rows` from a code per distinct doc id: exact, one small sort."""
    codes = _doc_codes(docs)
    pair = group.astype(np.int64) * (int(codes.max(initial=0)) + 1) + codes
    order = np.argsort(pair, kind="stable")  # the first row of equal pairs comes first
    ordered = pair[order]
    return np.sort(order[1:][ordered[1:] == ordered[:-1]]).astype(np.int64)


def _doc_codes(docs: pd.Series) -> np.ndarray:
    """A code per row, equal for equal doc ids (int64)."""
    if isinstance(docs.dtype, pd.CategoricalDtype):
        return docs.array.codes.astype(np.int64)
    converted = arrow_strings(docs)  # pandas 2 hashes Python strings only up to a NUL
    source = docs if converted is None else converted
    chunked = arrow_data(source)
    if chunked is not None:
        encoded = pc.dictionary_encode(chunked.combine_chunks())
        return np.asarray(encoded.indices.to_numpy(zero_copy_only=False), dtype=np.int64)
    return pd.factorize(source)[0].astype(np.int64)


def _colliding(keys: np.ndarray, group: np.ndarray, layout: _Layout | None) -> np.ndarray:
    """Sorted positions of the rows whose (group, doc) key equals another row's."""
    if len(keys) < 2:
        return np.zeros(0, dtype=np.int64)
    if layout is None:  # all keys at once
        repeats = has_repeat(keys)
    else:  # each piece alone, in the CPU cache
        table = layout.scratch()
        repeats = any(has_repeat(piece, table) for piece in layout.pieces(keys))
    if not repeats:
        return np.zeros(0, dtype=np.int64)
    order = np.argsort(keys, kind="stable")
    sorted_keys = keys[order]
    same = sorted_keys[1:] == sorted_keys[:-1]
    colliding = np.zeros(len(keys), dtype=bool)
    colliding[order[1:][same]] = True
    colliding[order[:-1][same]] = True
    return np.flatnonzero(colliding)
