"""Positions of the judged retrieved documents: sort-free when the input is in rank order.

Metrics only need, for every *judged* retrieved document, its position in its
query's ranking, and the number of documents each query retrieved.

* Rows already in rank order (each group contiguous, keys ascending inside it --
  a run file as written by a search engine) give both directly, without a sort.
* Otherwise each row gets a uint64 packing its group code (high bits) above its
  ranking key (low bits). A judged row's position is the number of packed keys of its
  group below its own. With few judged rows per query (MS MARCO's one or two) these
  are counted, one pass over the rows per judged row of the deepest-judged query;
  with many (TREC-DL's 140 of 1,000), one ordering of the packed keys (each with its
  row number, where they fit) gives them -- where the run of keys equal to a judged key
  begins, counted from its group's first row; the runs also hold the ties and repeated
  ranks. Beyond two million rows the packed keys are sorted in place instead, and the
  judged ones searched.

Ties -- equal scores, or in the packed keys scores too close to tell apart -- are
ordered exactly afterwards by (key, doc id descending as strings), trec_eval's
rule; only runs of ties that hold a judged document need it.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import NamedTuple

import numpy as np
import pandas as pd
import pyarrow as pa

from pdireval._core.errors import SchemaError
from pdireval._prepare.arrays import (
    TEMPORARY_ROWS,
    bincount,
    category_strings,
    series_of,
    string_series,
)
from pdireval._prepare.keys import byte_order_keys
from pdireval._prepare.sorting import argsort_keys, has_repeat, search_scattered, stable_argsort

__all__ = ["Positions", "TieBreak", "judged_positions"]


@dataclass(frozen=True)
class TieBreak:
    """How documents with equal scores are ordered.

    ``policy="trec"`` (and ``"average"``, whose expected values do not depend on the
    order): doc id descending compared as strings, trec_eval's rule.
    ``"optimistic"`` / ``"pessimistic"``: higher / lower labels first (unjudged counts
    lowest), then doc id descending.
    """

    doc_ids: Callable[[np.ndarray], pd.Series]
    label: np.ndarray | None = None  # label of each retrieved row (NaN = unjudged)
    policy: str = "trec"


class Positions(NamedTuple):
    """What :func:`judged_positions` finds, per group and per judged retrieved row."""

    num_ret: np.ndarray  # retrieved documents per group
    position: np.ndarray  # 1-based position of each judged row
    repeated: np.ndarray  # retrieved rows whose rank repeats another (rank columns only)
    tie_first: np.ndarray  # first position of each judged row's group of equal scores
    tie_size: np.ndarray  # number of documents in that group (1 when not tied)


def _untied(num_ret: np.ndarray, position: np.ndarray, repeated: np.ndarray) -> Positions:
    return Positions(num_ret, position, repeated, position, np.ones(len(position), np.int64))


_SIGN = np.uint64(1) << np.uint64(63)
_ALL_BITS = np.uint64(2**64 - 1)


def _order_preserving_bits(key: np.ndarray) -> np.ndarray:
    """Map float64 to uint64 so that unsigned order equals float order (-0.0 == 0.0)."""
    bits = (key + 0.0).view(np.uint64)  # + 0.0 turns -0.0 into 0.0
    flip = bits >> np.uint64(63)  # 1 for negative numbers: flip every bit, else only the sign
    flip *= _ALL_BITS
    flip |= _SIGN
    bits ^= flip
    return bits


class _Negated:
    """A descending score read as an ascending key, ``-values[rows]`` a read at a time.

    Out of rank order, rows are ranked by an ascending key. Negating a score column of
    millions of rows would allocate (and fault in) a copy, while only blocks of rows and
    the members of runs of ties are ever read.
    """

    __slots__ = ("values",)

    def __init__(self, values: np.ndarray) -> None:
        self.values = values

    def __len__(self) -> int:
        return len(self.values)

    def __getitem__(self, rows: slice | np.ndarray) -> np.ndarray:
        return np.negative(self.values[rows])


#: A ranking key: ascending = better (a rank, or a score read as :class:`_Negated`).
Key = np.ndarray | _Negated


def _group_shift(n_groups: int) -> np.uint64:
    """Bit position of the group code in a packed key."""
    return np.uint64(64 - max(int(n_groups - 1).bit_length(), 1))


def _packed_keys(group: np.ndarray, key: Key, n_groups: int, by_rank: bool) -> np.ndarray:
    shift = _group_shift(n_groups)
    group_bits = np.uint64(64 - int(shift))
    packed = np.empty(len(key), dtype=np.uint64)
    for begin in range(0, len(key), TEMPORARY_ROWS):
        piece = packed[begin : begin + TEMPORARY_ROWS]
        if by_rank:
            low = key[begin : begin + TEMPORARY_ROWS].astype(np.uint64)
            if int(low.max()) >> int(shift):
                msg = f"ranks up to {int(np.max(key[:]))} are too large; renumber them from 1"
                raise SchemaError(msg)
        else:
            low = _order_preserving_bits(key[begin : begin + TEMPORARY_ROWS])
            low >>= group_bits
        piece[...] = group[begin : begin + TEMPORARY_ROWS]
        piece <<= shift
        piece |= low
    return packed


def judged_positions(
    group: np.ndarray,
    key: np.ndarray,
    judged: np.ndarray,
    n_groups: int,
    *,
    by_rank: bool,
    ties: TieBreak,
    descending: bool = False,
) -> Positions:
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
    ties : TieBreak
        How equal scores are ordered (not used with ranks).
    descending : bool, default False
        ``key`` is descending = better (a score as given): read as such in rank order,
        otherwise negated a block of rows (or a run of ties) at a time, never copied whole.

    Returns
    -------
    Positions
        ``num_ret`` per group; per judged row its ``position``, and the first position
        and size of its group of equal scores; ``repeated`` rows (ranks only).
    """
    in_order = _positions_in_given_order(group, key, judged, n_groups, by_rank, ties, descending)
    if in_order is not None:
        return in_order
    ascending: Key = _Negated(key) if descending else key
    num_ret = bincount(group, n_groups).astype(np.float64)
    packed = _packed_keys(group, ascending, n_groups, by_rank)
    mine = packed[judged]
    counted = _counted_before(packed, group, mine, group[judged], num_ret)
    if counted is None and len(packed) <= _ORDERED_ROWS:  # many judged rows per query
        return _positions_by_ordering(packed, group, ascending, judged, num_ret, by_rank, ties)
    if counted is None:  # and millions of rows: one sort in place, the judged keys searched
        packed.sort()  # the packed keys of other rows are rebuilt only where needed
        offset = (np.cumsum(num_ret) - num_ret).astype(np.int64)[group[judged]]
        first, last = search_scattered(packed, mine, ("left", "right"))
        before, through = first - offset, last - offset
        repeats = by_rank and bool(np.any(packed[1:] == packed[:-1]))
    else:
        before, through = counted
        repeats = by_rank and _ranks_repeat(group, key, n_groups, packed)
    position = before + 1
    if by_rank:
        repeated = np.zeros(0, dtype=np.int64)
        if repeats:
            ordered = packed if counted is None else np.sort(packed)
            twice = np.unique(ordered[1:][ordered[1:] == ordered[:-1]])
            repeated = _rows_with(group, ascending, by_rank, twice, n_groups)[0]
        return _untied(num_ret, position, repeated)
    result = _untied(num_ret, position, np.zeros(0, dtype=np.int64))
    shared = through - before > 1
    if shared.any():
        within, tie_offset, tie_size = _positions_in_runs(
            mine[shared], group, ascending, judged[shared], n_groups, ties
        )
        result = _with_runs(result, shared, position[shared], within, tie_offset, tie_size)
    return result


#: Rows up to which ordering them all (its temporaries about 30 bytes a row) beats
#: sorting their packed keys in place and searching the judged ones.
_ORDERED_ROWS = 1 << 21

#: Low bits of a packed score dropped before ordering, at least: the top 40 or so bits
#: of a score still tell apart all but scores equal to about eight digits, and keys made
#: equal are ordered exactly as ties are.
_COARSE_BITS = 16

#: Bits of a score kept, at least, when more low bits are dropped to make room for the
#: row number (:func:`_orderable`): sign, exponent and 24 bits of mantissa, scores equal
#: to about seven digits.
_KEPT_SCORE_BITS = 36


def _positions_by_ordering(
    packed: np.ndarray,
    group: np.ndarray,
    key: Key,
    judged: np.ndarray,
    num_ret: np.ndarray,
    by_rank: bool,
    ties: TieBreak,
) -> Positions:
    """Positions from the order of every row's packed key, for queries judged deeply
    (TREC-DL's 140 judged retrieved documents of 1,000): a judged row's position is
    where the run of keys equal to its own begins, counted from its group's first row.
    Runs longer than one are repeated ranks, or ties whose members are at hand.
    """
    n = len(packed)
    packed = _orderable(packed, len(num_ret), by_rank)
    order = argsort_keys(packed)
    ordered = packed[order]
    new_run = np.ones(n, dtype=bool)
    np.not_equal(ordered[1:], ordered[:-1], out=new_run[1:])
    run_start = np.flatnonzero(new_run)
    run_length = np.diff(run_start, append=n)
    small = np.int32 if n < 2**31 else np.intp  # half the memory traffic of intp indices
    run_of = np.cumsum(new_run, dtype=small)  # of each place in the order, from 1
    np.subtract(run_of, 1, out=run_of)
    place = np.empty(n, dtype=small)
    place[order] = np.arange(n, dtype=small)
    run = run_of[place[judged]]
    group_start = (np.cumsum(num_ret) - num_ret).astype(np.int64)
    position = run_start[run] - group_start[group[judged]] + 1
    if by_rank:
        repeated = np.sort(order[(run_length > 1)[run_of]])
        return _untied(num_ret, position, repeated)
    result = _untied(num_ret, position, np.zeros(0, dtype=np.int64))
    shared = run_length[run] > 1
    if not shared.any():
        return result
    tied_runs = np.unique(run[shared])
    places, _ = _expanded(run_start[tied_runs], run_length[tied_runs])
    is_member = np.zeros(n, dtype=bool)  # members in row order: their ids are read in order
    is_member[order[places]] = True
    members = np.flatnonzero(is_member)
    tied_index = np.zeros(len(run_start), dtype=np.int64)
    tied_index[tied_runs] = np.arange(len(tied_runs))
    member_run = tied_index[run_of[place[members]]]
    within, tie_offset, tie_size = _rank_in_runs(members, member_run, key, judged[shared], ties)
    return _with_runs(result, shared, position[shared], within, tie_offset, tie_size)


def _orderable(packed: np.ndarray, n_groups: int, by_rank: bool) -> np.ndarray:
    """Packed keys in as few low bits as they need, ordered as before: ranks moved next
    to their group, scores without their lowest bits (see ``_COARSE_BITS``) -- so that
    the row number fits beside them and one sort of plain integers orders the rows
    (:func:`~pdireval._prepare.keys.argsort_keys`).
    """
    shift = int(_group_shift(n_groups))
    row_bits = (len(packed) - 1).bit_length()
    if by_rank:  # exact: every (group, rank) keeps a key of its own
        rank_bits = int(np.bitwise_or.reduce(packed & np.uint64((1 << shift) - 1))).bit_length()
        if rank_bits >= shift:
            return packed
        compact = packed >> np.uint64(shift)
        compact <<= np.uint64(rank_bits)
        compact |= packed & np.uint64((1 << rank_bits) - 1)
        return compact
    drop = max(_COARSE_BITS, row_bits)
    if shift - drop < _KEPT_SCORE_BITS:  # too few bits of the score would be left
        drop = _COARSE_BITS
    return packed >> np.uint64(drop) if shift > drop else packed


def _expanded(start: np.ndarray, length: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Every position of the ranges ``[start, start + length)``, and the range of each."""
    which = np.repeat(np.arange(len(start)), length)
    return start[which] + np.arange(len(which)) - (np.cumsum(length) - length)[which], which


def _ranks_repeat(group: np.ndarray, rank: np.ndarray, n_groups: int, packed: np.ndarray) -> bool:
    """Whether a rank occurs twice in a group (``packed``: the rows' packed keys).

    Ranks from 1 to a thousand or so in each of many groups: each (group, rank) pair
    has a flag of its own in a table about as long as the rows; fewer flags raised
    than rows means a repeat -- no hash, no sort.
    """
    n = len(rank)
    if n < 2:
        return False
    low, high = int(rank.min()), int(rank.max())
    span = high - low + 1
    if n_groups * span > 4 * n:
        return has_repeat(packed)
    taken = np.zeros(n_groups * span, dtype=bool)
    for begin in range(0, n, TEMPORARY_ROWS):
        slot = group[begin : begin + TEMPORARY_ROWS].astype(np.int64)
        slot *= span
        slot += rank[begin : begin + TEMPORARY_ROWS].astype(np.int64)
        slot -= low
        taken[slot] = True
    return int(np.count_nonzero(taken)) < n  # fewer slots taken than rows: a repeat


_COUNTING_PASSES = 4  # rows read per retrieved row below which counting beats ordering


def _counted_before(
    packed: np.ndarray,
    group: np.ndarray,
    mine: np.ndarray,
    mine_group: np.ndarray,
    num_ret: np.ndarray,
) -> tuple[np.ndarray, np.ndarray] | None:
    """For each judged row (packed key ``mine``), how many rows of its group have a
    smaller packed key, and how many a smaller or equal one; None when counting would
    cost more than ordering every row.

    Queries hold few judged retrieved documents (one or two in MS MARCO): the judged
    keys of each group are taken in order, the first of every group compared with all
    its group's rows at once, then the second, and so on -- one pass over the rows per
    judged document of the deepest-judged group, each pass on fewer rows. Ordering
    every row costs several such passes (:func:`~pdireval._prepare.keys.argsort_keys`),
    or about twenty when millions of rows are too many for it.
    """
    n_groups = len(num_ret)
    per_group = np.bincount(mine_group, minlength=n_groups)
    if float(per_group @ num_ret) > _COUNTING_PASSES * len(packed):
        return None
    order = np.argsort(mine, kind="stable")  # by group (high bits), then key
    before = np.empty(len(mine), dtype=np.int64)
    through = np.empty(len(mine), dtype=np.int64)
    rows_group, rows_packed, rows = group, packed, float(len(packed))
    for depth, in_order in enumerate(_by_depth(mine_group[order], per_group)):
        at = order[in_order]
        deeper = per_group > depth
        remaining = float(num_ret[deeper].sum())
        if remaining * 2 < rows:  # fewer rows to read from now on: keep only those
            keep = deeper[rows_group]
            rows_group, rows_packed, rows = rows_group[keep], rows_packed[keep], remaining
        threshold = np.zeros(n_groups, dtype=np.uint64)  # other groups' counts go unread
        at_group = mine_group[at]
        threshold[at_group] = mine[at]
        smaller = np.zeros(n_groups, dtype=np.int64)
        equal = np.zeros(n_groups, dtype=np.int64)
        for begin in range(0, len(rows_group), TEMPORARY_ROWS):
            piece_group = rows_group[begin : begin + TEMPORARY_ROWS]
            piece = rows_packed[begin : begin + TEMPORARY_ROWS]
            compared_to = threshold[piece_group]
            smaller += np.bincount(piece_group[piece < compared_to], minlength=n_groups)
            equal += np.bincount(piece_group[piece == compared_to], minlength=n_groups)
        before[at] = smaller[at_group]
        through[at] = before[at] + equal[at_group]
    return before, through


def _rows_with(
    group: np.ndarray, key: Key, by_rank: bool, values: np.ndarray, n_groups: int
) -> tuple[np.ndarray, np.ndarray]:
    """Rows (ascending) whose packed key is one of the sorted ``values`` (scanning only
    their groups), and which of the ``values`` each has.
    """
    if not len(values):
        return np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int64)
    value_group = (values >> _group_shift(n_groups)).astype(np.int64)
    per_group = np.bincount(value_group, minlength=n_groups)
    candidates = np.flatnonzero((per_group > 0)[group])
    candidate_group = group[candidates]
    packed = _packed_keys(candidate_group, key[candidates], n_groups, by_rank)
    if int(per_group.max()) > _COUNTING_PASSES:  # a pass per value of a group: search instead
        where = np.minimum(search_scattered(values, packed)[0], len(values) - 1)
        hit = np.flatnonzero(values[where] == packed)
        return candidates[hit], where[hit]
    rows, which = [], []
    for at in _by_depth(value_group, per_group):  # values sorted: grouped by group
        of_group = np.full(n_groups, -1, dtype=np.int64)
        of_group[value_group[at]] = at
        sought = np.zeros(n_groups, dtype=np.uint64)  # other groups' hits are dropped
        sought[value_group[at]] = values[at]
        hit = np.flatnonzero(packed == sought[candidate_group])
        value = of_group[candidate_group[hit]]
        found = value >= 0
        rows.append(hit[found])
        which.append(value[found])
    hit, value = np.concatenate(rows), np.concatenate(which)
    order = np.argsort(hit, kind="stable")
    return candidates[hit[order]], value[order]


def _by_depth(value_group: np.ndarray, per_group: np.ndarray) -> list[np.ndarray]:
    """Positions of grouped values by their place in their group: the first value of
    every group, then the second of every group holding two or more, and so on.
    """
    if not len(value_group):
        return []
    depth = np.arange(len(value_group)) - (np.cumsum(per_group) - per_group)[value_group]
    by_depth = np.argsort(depth, kind="stable")
    bounds = np.cumsum(np.bincount(depth)).tolist()
    return [by_depth[begin:end] for begin, end in zip([0, *bounds[:-1]], bounds, strict=True)]


def _with_runs(
    result: Positions,
    shared: np.ndarray,
    run_position: np.ndarray,
    within: np.ndarray,
    tie_offset: np.ndarray,
    tie_size: np.ndarray,
) -> Positions:
    """Put the positions found inside runs of ties back for the ``shared`` judged rows."""
    position, tie_first, sizes = (
        result.position.copy(),
        result.tie_first.copy(),
        result.tie_size.copy(),
    )
    position[shared] = run_position + within
    tie_first[shared] = run_position + tie_offset
    sizes[shared] = tie_size
    return Positions(result.num_ret, position, result.repeated, tie_first, sizes)


def _positions_in_runs(
    judged_packed: np.ndarray,
    group: np.ndarray,
    key: Key,
    judged: np.ndarray,
    n_groups: int,
    ties: TieBreak,
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Places of judged rows inside runs of equal packed keys (score ties)."""
    values = np.unique(judged_packed)
    members, member_run = _rows_with(group, key, False, values, n_groups)
    return _rank_in_runs(members, member_run, key, judged, ties)


def _rank_in_runs(
    members: np.ndarray,
    member_run: np.ndarray,
    key: Key,
    judged: np.ndarray,
    ties: TieBreak,
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Each ``judged`` row's 0-based place among the members of its run, and the offset
    and size of its group of exactly equal keys inside the run.

    Members are ordered by key, then (optimistic / pessimistic policies) by label, then
    by doc id descending compared as strings -- trec_eval's ``strcmp`` rule ("9" > "10").
    """
    sort_keys: list[np.ndarray] = [_descending_doc_order(ties.doc_ids(members))]
    if ties.policy in ("optimistic", "pessimistic") and ties.label is not None:
        label = np.where(np.isnan(ties.label[members]), -np.inf, ties.label[members])
        sort_keys.append(-label if ties.policy == "optimistic" else label)
    order = _order_in_runs(sort_keys, key[members], member_run)
    inverse = np.empty_like(order)
    inverse[order] = np.arange(len(order))
    if len(members) < 2 or bool(np.all(members[1:] > members[:-1])):
        at = inverse[np.searchsorted(members, judged)]
    else:
        by_row = np.argsort(members)
        at = inverse[by_row[np.searchsorted(members[by_row], judged)]]
    members, member_run, member_key = members[order], member_run[order], key[members[order]]
    run_start = np.searchsorted(member_run, np.arange(int(member_run.max()) + 1))
    rank_in_run = np.arange(len(members)) - run_start[member_run]
    new_tie = np.ones(len(members), dtype=bool)
    new_tie[1:] = (member_run[1:] != member_run[:-1]) | (member_key[1:] != member_key[:-1])
    tie_id = np.cumsum(new_tie) - 1
    tie_offset = np.flatnonzero(new_tie)[tie_id] - run_start[member_run]
    tie_size = np.bincount(tie_id)[tie_id]
    return rank_in_run[at], tie_offset[at], tie_size[at]


def _order_in_runs(
    sort_keys: list[np.ndarray], member_key: np.ndarray, member_run: np.ndarray
) -> np.ndarray:
    """The permutation sorting members by (run, key, *reversed(sort_keys)).

    When only the doc order decides and every run holds one key (runs of exactly equal
    scores, the usual case), two integer sorts do it: by doc, then stably by run.
    Otherwise a lexsort.
    """
    if len(member_run) > 1 and len(sort_keys) == 1:
        by_doc = argsort_keys(sort_keys[0])  # stable: equal ids keep their order
        order = by_doc[stable_argsort(member_run[by_doc])]
        run, key = member_run[order], member_key[order]
        if bool(np.all((run[1:] != run[:-1]) | (key[1:] == key[:-1]))):
            return order
    return np.lexsort((*sort_keys, member_key, member_run))


def _descending_doc_order(docs: pd.Series) -> np.ndarray:
    """Sort keys (uint64) putting the doc ids in descending byte order (ascending keys)."""
    if isinstance(docs.dtype, pd.CategoricalDtype):  # only the members' categories
        codes, strings = docs.array.codes, category_strings(docs.cat.categories)
        if strings is not None and not (codes < 0).any():  # no Python string read
            docs = string_series(strings.take(pa.array(codes)))
        else:
            docs = series_of(docs.cat.categories.take(codes))
    if not isinstance(docs.dtype, pd.StringDtype):
        docs = docs.astype(str)
    keys = byte_order_keys(docs)
    if keys is not None:  # short ids: one integer per id, in byte order
        return ~keys
    doc_order, _ = pd.factorize(docs, sort=True)
    return (int(doc_order.max(initial=0)) - doc_order).astype(np.uint64)


def _positions_in_given_order(
    group: np.ndarray,
    key: np.ndarray,
    judged: np.ndarray,
    n_groups: int,
    by_rank: bool,
    ties: TieBreak,
    descending: bool,
) -> Positions | None:
    """Positions without sorting when each group's rows are contiguous and in rank order
    (``key`` ascending, or descending when ``descending``).

    Returns None when the rows are not in that order.
    """
    n = len(group)
    if n == 0:
        return None
    starts = np.empty(n, dtype=bool)
    starts[0] = True
    np.not_equal(group[1:], group[:-1], out=starts[1:])
    if np.count_nonzero(starts) > n_groups:
        return None  # a group's rows are split into several blocks
    first_rows = np.flatnonzero(starts)
    block_group = group[first_rows]
    seen = np.zeros(n_groups, dtype=bool)
    seen[block_group] = True
    if np.count_nonzero(seen) != len(first_rows):
        return None  # a group's rows are split into several blocks
    if by_rank:
        step_ok = key[1:] > key[:-1]
    else:
        step_ok = key[1:] <= key[:-1] if descending else key[1:] >= key[:-1]
    step_ok |= starts[1:]
    if not step_ok.all():
        return None
    num_ret = np.zeros(n_groups, dtype=np.float64)
    num_ret[block_group] = np.diff(np.concatenate((first_rows, [n])))
    block = np.searchsorted(first_rows, judged, side="right") - 1
    position = judged - first_rows[block] + 1
    result = _untied(num_ret, position, np.zeros(0, dtype=np.int64))
    if by_rank:
        return result
    # Score ties: runs of equal keys holding a judged row are put in doc id order.
    judged_key = key[judged]
    before = np.where(judged > 0, judged - 1, 0)
    after = np.minimum(judged + 1, n - 1)
    tied = (~starts[judged] & (key[before] == judged_key)) | (
        (judged + 1 < n) & ~starts[after] & (key[after] == judged_key)
    )
    if tied.any():
        rows, at_block = judged[tied], block[tied]
        if n <= _SCANNED_ROWS:  # every run of equal keys at once: a few passes over the rows
            new_run = starts.copy()
            new_run[1:] |= key[1:] != key[:-1]
            run_starts = np.flatnonzero(new_run)
            run_of = np.cumsum(new_run)[rows] - 1
            run_first = run_starts[run_of]
            run_end = np.concatenate((run_starts[1:], [n]))[run_of]
        else:  # a bisection inside the blocks, for the tied judged rows only
            block_end = np.concatenate((first_rows[1:], [n]))
            lo, hi = first_rows[at_block], block_end[at_block]
            run_first = _search_blocks(key, lo, rows, key[rows], "left", descending)
            run_end = _search_blocks(key, rows, hi, key[rows], "right", descending)
        run_first, unique = np.unique(run_first, return_index=True)
        members, member_run = _expanded(run_first, run_end[unique] - run_first)
        run_of_row = np.searchsorted(run_first, rows, side="right") - 1
        # each run holds one key value: its order among the members is the same either way
        within, tie_offset, tie_size = _rank_in_runs(members, member_run, key, rows, ties)
        run_position = run_first[run_of_row] - first_rows[at_block] + 1
        result = _with_runs(result, tied, run_position, within, tie_offset, tie_size)
    return result


#: Rows up to which runs of equal keys in rank order are found by scanning every row
#: (a few numpy passes) rather than by a bisection per tied judged row (a few numpy
#: calls per halving step, about 10 microseconds each).
_SCANNED_ROWS = 1 << 14


def _search_blocks(
    key: np.ndarray,
    lo: np.ndarray,
    hi: np.ndarray,
    target: np.ndarray,
    side: str,
    descending: bool = False,
) -> np.ndarray:
    """Vectorised bisection of ``target`` in the sorted slices ``key[lo:hi]`` (per row),
    ascending or ``descending``: where ``side`` of the equal keys begins.
    """
    lo, hi = lo.copy(), hi.copy()
    while True:
        active = lo < hi
        if not active.any():
            return lo
        mid = (lo + hi) // 2
        probe = key[np.minimum(mid, len(key) - 1)]
        if descending:
            below = probe >= target if side == "right" else probe > target
        else:
            below = probe <= target if side == "right" else probe < target
        lo = np.where(active & below, mid + 1, lo)
        hi = np.where(active & ~below, mid, hi)
