"""Validate a long frame once and turn it into the sorted arrays every metric reads.

One evaluating call reads its frame here, in a few steps, each module once:

1. the rows' groups and judgments -- :mod:`~pdireval._prepare.groups` numbers the
   (run, query) groups and :mod:`~pdireval._prepare.checks` reads the labels; or, for a
   run given with its qrels, what :mod:`~pdireval._prepare.matching` found;
2. the ranking -- the rank, or the score with trec_eval's tie rule -- and each judged
   retrieved document's place in it (:mod:`~pdireval._prepare.ordering`), the ranks
   and documents checked for repeats;
3. trec_eval's ``-M`` and ``-J`` and the query policy, on the :class:`Ranked` arrays.

Nothing is kept between calls: a result depends only on the frame and options given.
"""

from __future__ import annotations

from collections.abc import Hashable
from dataclasses import dataclass

import numpy as np
import pandas as pd

from pdireval._core.errors import SchemaError
from pdireval._core.options import Evaluation
from pdireval._core.roles import ResolvedColumns
from pdireval._prepare import algorithms
from pdireval._prepare.arrays import take
from pdireval._prepare.checks import (
    check_no_nulls_in,
    check_unique_docs,
    group_times,
    judged_labels,
    known_flags,
    ranking,
    ranking_key,
    refuse_repeated_ranks,
    require_ranking,
)
from pdireval._prepare.matching import Matched
from pdireval._prepare.ordering import Positions, TieBreak
from pdireval._prepare.ranked import Ranked
from pdireval._prepare.sorting import stable_argsort

__all__ = ["Prepared", "grouped_positions", "positions", "prepare", "self_documents"]

IntArray = np.ndarray


@dataclass(frozen=True)
class Prepared:
    """What :func:`prepare` returns: the arrays, the result index and the rows to report.

    ``average`` says whether metrics report their expected value over the orders of
    tied scores (``ties="average"`` on a frame ranked by score).
    """

    ranked: Ranked
    index: pd.Index
    keep: np.ndarray  # bool per group: reported under the query policy
    blank: np.ndarray  # bool per group: reported as NaN (unjudged under "all")
    average: bool = False

    def table(
        self, values: dict[str, np.ndarray], unjudged: frozenset[str] = frozenset()
    ) -> pd.DataFrame:
        """The per-query result: one float64 column per label, rows under the query
        policy (``unjudged``: the labels whose values need no judgments, kept on the
        unjudged queries that ``queries="all"`` reports as NaN).
        """
        if self.blank.any():
            values = {
                label: v if label in unjudged else np.where(self.blank, np.nan, v)
                for label, v in values.items()
            }
        index = self.index
        if not self.keep.all():
            values = {label: np.asarray(v)[self.keep] for label, v in values.items()}
            index = index[self.keep]
        block = np.empty((len(index), len(values)), dtype=np.float64)  # one block: fast
        for at, column in enumerate(values.values()):
            block[:, at] = column
        # new on every call: a result shared between calls could be changed in place
        columns = pd.Index(list(values), name="metric")
        return pd.DataFrame(block, index=index, columns=columns)


@dataclass(frozen=True)
class _Rows:
    """The frame's rows as the preparation reads them: doc ids, (run, query) group of
    each row and the groups' ids, which rows are judged and their labels (in row order),
    the judged documents no run retrieved, and whether duplicates were checked already.
    """

    docs: pd.Series
    group: IntArray
    index: pd.Index
    judged: np.ndarray
    judged_label: np.ndarray
    added_group: IntArray
    added_label: np.ndarray
    checked: bool


def prepare(
    frame: pd.DataFrame,
    columns: ResolvedColumns,
    options: Evaluation,
    matched: Matched | None = None,
) -> Prepared:
    """Validate ``frame`` and build the :class:`Ranked` arrays of one evaluating call.

    With ``matched``, ``frame`` is a run without labels and ``matched`` its judgments.
    """
    columns.require(frame, "query", "doc")
    if matched is None:
        columns.require_labels(frame)
    require_ranking(frame, columns)
    rows = _rows(frame, columns, options.validate, matched, options.rel_threshold is None)
    key, descending, present = ranking(frame, columns, options.validate)
    retrieved = ~np.isnan(key) if present is None else present
    if options.validate:
        _refuse_unranked_and_unjudged(frame, columns, retrieved, rows.judged, matched)
    if options.ignore_self:  # BEIR: a document equal to its query leaves the ranking
        retrieved = retrieved & ~self_documents(frame, columns)
    retrieved_rows = _as_range(retrieved)
    judged_ret = np.flatnonzero(rows.judged[retrieved_rows])
    found = _positions_of(
        frame,
        columns,
        options,
        rows,
        (retrieved_rows, judged_ret),
        (key[retrieved_rows], descending),
    )
    del key
    has_retrieved = found.num_ret > 0  # before -M and -J, which never change the query set
    if options.max_rank is not None:  # trec_eval -M: only the top documents of each query
        found, judged_ret = _within(options.max_rank, found, judged_ret)
    ranked = _ranked(frame, columns, rows, found, _frame_rows(retrieved_rows, judged_ret))
    if options.judged_only:  # trec_eval -J, after -M: drop unjudged documents and rank again
        ranked = ranked.judged_only()
    keep, blank = _query_policy(ranked, has_retrieved, options.queries)
    average = options.ties == "average" and columns.rank is None
    return Prepared(ranked=ranked, index=rows.index, keep=keep, blank=blank, average=average)


def self_documents(frame: pd.DataFrame, columns: ResolvedColumns) -> np.ndarray:
    """Per row, whether its doc id equals its query id, both compared as text."""
    query, doc = (_as_text(frame[columns.name(role)]) for role in ("query", "doc"))
    return np.asarray(query.array == doc.array, dtype=bool)


def _as_text(ids: pd.Series) -> pd.Series:
    return ids if isinstance(ids.dtype, pd.StringDtype) else ids.astype("str")


def positions(frame: pd.DataFrame, columns: ResolvedColumns) -> tuple[np.ndarray, IntArray]:
    """Every row's 1-based position in its (run, query) ranking (NaN: not retrieved), and
    the rows' group codes; evaluation's order, ties by doc id descending (trec_eval).

    Checks the ids and the ranking as :func:`prepare` does.
    """
    position, group, _ = grouped_positions(frame, columns)
    return position, group


def grouped_positions(
    frame: pd.DataFrame, columns: ResolvedColumns
) -> tuple[np.ndarray, IntArray, pd.Index]:
    """:func:`positions`, and the ids of the groups (as the result index of evaluation).

    A frame with judge, collection or seed columns is refused: a group is a (run, query).
    """
    columns.refuse_parts("the frame")
    columns.require(frame, "query", "doc")
    require_ranking(frame, columns)
    ids = _id_columns(frame, columns)
    check_no_nulls_in(ids, columns)
    group, index = algorithms.group_codes(_by_name(ids, columns), columns)
    key = ranking_key(frame, columns, validate=True)
    retrieved = np.flatnonzero(~np.isnan(key))
    found = algorithms.judged_positions(
        group[retrieved],
        key[retrieved],
        np.arange(len(retrieved)),
        len(index),
        by_rank=columns.rank is not None,
        ties=TieBreak(doc_ids=lambda rows: take(ids["doc"], retrieved[rows])),
    )
    if len(found.repeated):
        refuse_repeated_ranks(frame, columns, retrieved[found.repeated])
    check_unique_docs(frame, columns, group)
    out = np.full(len(frame), np.nan)
    out[retrieved] = found.position
    return out, group, index


def _rows(
    frame: pd.DataFrame,
    columns: ResolvedColumns,
    validate: bool,
    matched: Matched | None,
    whole: bool = True,
) -> _Rows:
    """The groups and judgments of the frame's rows (ids checked for missing values)."""
    if matched is not None:
        return _Rows(
            docs=matched.docs,
            group=matched.group,
            index=matched.index,
            judged=matched.judged,
            judged_label=matched.judged_label,
            added_group=matched.added_group,
            added_label=matched.added_label,
            checked=True,
        )
    ids = _id_columns(frame, columns)
    check_no_nulls_in(ids, columns)
    group, index = algorithms.group_codes(_by_name(ids, columns), columns)
    rel = columns.name("rel")
    judged, judged_label = judged_labels(frame[rel], rel, validate, whole=whole)
    return _Rows(ids["doc"], group, index, judged, judged_label, group[:0], judged_label[:0], False)


def _id_columns(frame: pd.DataFrame, columns: ResolvedColumns) -> dict[str, pd.Series]:
    """The query, doc and (when present) run id columns, by role."""
    return {
        role: frame[name] for role in ("query", "doc", "run") if (name := getattr(columns, role))
    }


def _by_name(ids: dict[str, pd.Series], columns: ResolvedColumns) -> dict[Hashable, pd.Series]:
    """Id columns by role as id columns by name (what grouping reads; no second lookup)."""
    return {columns.name(role): values for role, values in ids.items()}


def _refuse_unranked_and_unjudged(
    frame: pd.DataFrame,
    columns: ResolvedColumns,
    retrieved: np.ndarray,
    judged: np.ndarray,
    matched: Matched | None,
) -> None:
    """A row neither retrieved nor judged has no place in the evaluation."""
    if np.all(retrieved | judged):
        return
    bad = np.flatnonzero(~(retrieved | judged))
    ranked_by = columns.rank if columns.rank is not None else columns.score
    judged_by = "no judgment in the qrels" if matched else f"{columns.rel!r} missing"
    msg = (
        f"{len(bad)} row(s) are neither retrieved ({ranked_by!r} missing) nor judged "
        f"({judged_by}), e.g. row {frame.index[bad[0]]!r}; drop them or fill the missing value"
    )
    raise SchemaError(msg)


def _positions_of(
    frame: pd.DataFrame,
    columns: ResolvedColumns,
    options: Evaluation,
    rows: _Rows,
    retrieved: tuple[slice | IntArray, IntArray],
    ranking_by: tuple[np.ndarray, bool],
) -> Positions:
    """Where each judged retrieved row stands in its ranking; refuses repeated ranks and
    documents when validating.

    ``retrieved``: the frame's retrieved rows, and the judged ones among them (positions
    among the retrieved rows); ``ranking_by``: the retrieved rows' ranks or scores, and
    whether they are descending (scores).
    """
    retrieved_rows, judged_ret = retrieved
    label = None  # a label per retrieved row: only the label-aware tie policies need it
    if options.ties in ("optimistic", "pessimistic"):
        every_label = np.full(len(frame), np.nan)
        every_label[np.flatnonzero(rows.judged)] = rows.judged_label
        label = every_label[retrieved_rows]
    found = algorithms.judged_positions(
        rows.group[retrieved_rows],
        ranking_by[0],
        judged_ret,
        len(rows.index),
        by_rank=columns.rank is not None,
        ties=TieBreak(
            doc_ids=lambda at: take(rows.docs, _frame_rows(retrieved_rows, at)),
            label=label,
            policy=options.ties,
        ),
        descending=ranking_by[1],
    )
    if options.validate and len(found.repeated):
        refuse_repeated_ranks(frame, columns, _frame_rows(retrieved_rows, found.repeated))
    if options.validate and not rows.checked:
        check_unique_docs(frame, columns, rows.group)
    return found


def _within(max_rank: int, found: Positions, judged_ret: IntArray) -> tuple[Positions, IntArray]:
    """trec_eval's ``-M``: the positions of the top ``max_rank`` documents of each group."""
    within = found.position <= max_rank
    tie_first = found.tie_first[within]
    tie_size = np.minimum(tie_first + found.tie_size[within] - 1, max_rank) - tie_first + 1
    cut = Positions(
        num_ret=np.minimum(found.num_ret, max_rank),
        position=found.position[within],
        repeated=found.repeated,
        tie_first=tie_first,
        tie_size=tie_size,
    )
    return cut, judged_ret[within]


def _ranked(
    frame: pd.DataFrame,
    columns: ResolvedColumns,
    rows: _Rows,
    found: Positions,
    judged_ret_rows: IntArray,
) -> Ranked:
    """The :class:`Ranked` arrays: the judged retrieved rows (``judged_ret_rows``, frame
    rows in ascending order) by group and position, and every judgment.
    """
    n_groups = len(rows.index)
    judged_rows = np.flatnonzero(rows.judged)
    group = rows.group[judged_ret_rows]
    in_rank_order = _rank_order(group, found.position)
    label = rows.judged_label[np.searchsorted(judged_rows, judged_ret_rows)]
    n_judged = len(judged_rows) + len(rows.added_group)
    if columns.known is None:  # no per-row work without the column
        known, judged_known = np.zeros(len(group), bool), np.zeros(n_judged, bool)
    else:
        flags = known_flags(frame, columns.known)
        known = flags[judged_ret_rows][in_rank_order]
        judged_known = np.r_[flags[judged_rows], np.zeros(len(rows.added_group), dtype=bool)]
    return Ranked(
        n_groups=n_groups,
        num_ret=found.num_ret,
        group=group[in_rank_order],
        position=found.position[in_rank_order],
        label=label[in_rank_order],
        judged_group=np.concatenate([rows.group[judged_rows], rows.added_group]),
        judged_label=np.concatenate([rows.judged_label, rows.added_label]),
        known=known,
        judged_known=judged_known,
        tie_first=found.tie_first[in_rank_order],
        tie_size=found.tie_size[in_rank_order],
        time=None if columns.time is None else group_times(frame, columns, rows.group, n_groups),
    )


def _rank_order(group: np.ndarray, position: np.ndarray) -> np.ndarray:
    """The permutation sorting rows by (group, position): none when they already are."""
    n = len(group)
    if n < 2:
        return np.arange(n)
    span = int(position.max()) + 1
    if (int(group.max()) + 1) * span >= 2**62:
        return np.lexsort((position, group))
    packed = group.astype(np.int64) * span
    packed += position.astype(np.int64)
    return stable_argsort(packed)


def _query_policy(
    ranked: Ranked, has_retrieved: np.ndarray, queries: str
) -> tuple[np.ndarray, np.ndarray]:
    """Groups to report, and groups to report as NaN, under the query policy."""
    n_groups = ranked.n_groups
    has_judgment = np.bincount(ranked.judged_group, minlength=n_groups) > 0
    if queries == "judged":
        return has_judgment, np.zeros(n_groups, dtype=bool)
    if queries == "retrieved":
        return has_judgment & has_retrieved, np.zeros(n_groups, dtype=bool)
    return np.ones(n_groups, dtype=bool), ~has_judgment


def _as_range(mask: np.ndarray) -> slice | IntArray:
    """Rows where ``mask`` holds, as a slice when they are contiguous (a view, no copy).

    ``merge_qrels`` puts the unretrieved rows after the retrieved ones, so the
    retrieved rows of a merged frame are a prefix.
    """
    count = int(np.count_nonzero(mask))
    if count == 0:
        return slice(0, 0)
    first = int(np.argmax(mask))
    if mask[first : first + count].all():
        return slice(first, first + count)
    return np.flatnonzero(mask)


def _frame_rows(retrieved_rows: slice | IntArray, rows: IntArray) -> IntArray:
    """Frame rows of the retrieved rows ``rows`` (positions among the retrieved ones)."""
    if isinstance(retrieved_rows, slice):
        return rows + retrieved_rows.start
    return retrieved_rows[rows]
