"""Validate a long frame once and turn it into sorted numpy arrays shared by all metrics.

The preparation factorizes the query (and run) ids, orders the retrieved rows by
rank -- or by score descending with ties broken by doc id descending, as
trec_eval does -- and keeps the judged rows for the per-query counts. Metric
kernels only ever see a :class:`~pdireval._prepare.ranked.Ranked`.
"""

from __future__ import annotations

from collections.abc import Hashable, Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from pdireval._errors import SchemaError
from pdireval._options import Evaluation
from pdireval._prepare.blocks import adjacent_differs, scattered_start
from pdireval._prepare.columns import ResolvedColumns
from pdireval._prepare.duplicates import repeated_rows
from pdireval._prepare.keys import (
    arrow_strings,
    bincount,
    gathered,
    holds_python_objects,
    holds_strings,
    stable_argsort,
    string_array,
    string_dtype,
)
from pdireval._prepare.positions import TieBreak, judged_positions
from pdireval._prepare.ranked import Ranked
from pdireval._prepare.take import take

__all__ = [
    "Matched",
    "Prepared",
    "check_no_nulls",
    "check_no_nulls_in",
    "check_unique_docs",
    "group_codes",
    "known_flags",
    "labels_of",
    "positions",
    "prepare",
    "ranking_key",
]

FloatArray = np.ndarray
IntArray = np.ndarray

#: Ranks from here on are replaced by their order (they would not pack next to a group code).
_LARGEST_PACKED_RANK = float(2**31)


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

    def table(self, values: dict[str, np.ndarray]) -> pd.DataFrame:
        """The per-query result: one float64 column per label, rows under the query policy."""
        if self.blank.any():
            values = {label: np.where(self.blank, np.nan, v) for label, v in values.items()}
        index = self.index
        if not self.keep.all():
            values = {label: np.asarray(v)[self.keep] for label, v in values.items()}
            index = index[self.keep]
        block = np.empty((len(index), len(values)), dtype=np.float64)  # one block: fast
        for at, column in enumerate(values.values()):
            block[:, at] = column
        return pd.DataFrame(block, index=index, columns=_metric_labels(tuple(values)))


_LABELS: dict[tuple[str, ...], pd.Index] = {}


def _metric_labels(labels: tuple[str, ...]) -> pd.Index:
    """The columns of a result: a new Index each time (a name set on one stays there),
    copied from one built once per set of labels (building an Index of strings costs
    tens of microseconds, a noticeable part of a call on a small frame).
    """
    cached = _LABELS.get(labels)
    if cached is None:
        if len(_LABELS) >= 256:
            _LABELS.clear()
        cached = _LABELS[labels] = pd.Index(list(labels), name="metric")
    return cached.copy()


@dataclass(frozen=True)
class Matched:
    """A run's judgments, found by matching it against qrels (no merged frame built).

    ``group`` and ``judged`` have one entry per run row (``judged``: the row has a
    labelled judgment, ``judged_label`` holds those labels in row order); the judged
    documents no run retrieved are ``added_group`` and ``added_label``; ``docs`` are the
    run's doc ids. The ids were checked for missing values and duplicates while matching.
    """

    docs: pd.Series
    group: IntArray
    index: pd.Index
    judged: np.ndarray
    judged_label: FloatArray
    added_group: IntArray
    added_label: FloatArray


def prepare(
    frame: pd.DataFrame,
    columns: ResolvedColumns,
    options: Evaluation,
    matched: Matched | None = None,
) -> Prepared:
    """Validate ``frame`` and build the :class:`Ranked` arrays of one evaluating call.

    With ``matched``, ``frame`` is a run without labels and ``matched`` its judgments.
    """
    validate = options.validate
    columns.require(frame, "query", "doc", *(() if matched else ("rel",)))
    if columns.rank is None and columns.score is None:
        msg = (
            f"neither a 'rank' nor a 'score' column found (columns: {list(frame.columns)}); "
            "rank the documents with one of them, e.g. df.ireval(rank='position')"
        )
        raise SchemaError(msg)

    if matched is None:
        ids, group, index, checked = _checked_groups(frame, columns)
        doc_column = ids["doc"]
        judged, judged_label = _judged_labels(frame[columns.rel], columns.name("rel"), validate)
        added_group, added_label = group[:0], judged_label[:0]
    else:
        doc_column, group, index, checked = matched.docs, matched.group, matched.index, True
        judged, judged_label = matched.judged, matched.judged_label
        added_group, added_label = matched.added_group, matched.added_label
    n_groups = len(index)
    judged_rows = np.flatnonzero(judged)

    order_key, descending, present = _ranking(frame, columns, validate)
    retrieved = ~np.isnan(order_key) if present is None else present
    if validate and not np.all(retrieved | judged):
        bad = np.flatnonzero(~(retrieved | judged))
        ranked_by = columns.rank if columns.rank is not None else columns.score
        judged_by = "no judgment in the qrels" if matched else f"{columns.rel!r} missing"
        msg = (
            f"{len(bad)} row(s) are neither retrieved ({ranked_by!r} missing) nor judged "
            f"({judged_by}), e.g. row {frame.index[bad[0]]!r}; drop them "
            "or fill the missing value"
        )
        raise SchemaError(msg)

    retrieved_rows = _as_range(retrieved)
    ret_group = group[retrieved_rows]
    judged_ret = np.flatnonzero(judged[retrieved_rows])

    def frame_rows(rows: IntArray) -> IntArray:
        if isinstance(retrieved_rows, slice):
            return rows + retrieved_rows.start
        return retrieved_rows[rows]

    ret_label = None  # a label per retrieved row: only the label-aware tie policies need it
    if options.ties in ("optimistic", "pessimistic"):
        every_label = np.full(len(frame), np.nan)
        every_label[judged_rows] = judged_label
        ret_label = every_label[retrieved_rows]

    num_ret, position, repeated, tie_first, tie_size = judged_positions(
        ret_group,
        order_key[retrieved_rows],
        judged_ret,
        n_groups,
        by_rank=columns.rank is not None,
        ties=TieBreak(
            doc_ids=lambda rows: take(doc_column, frame_rows(rows)),
            label=ret_label,
            policy=options.ties,
        ),
        descending=descending,
    )
    del order_key
    if validate and len(repeated):
        _refuse_repeated_ranks(frame, columns, frame_rows(repeated))
    if validate and not checked:
        check_unique_docs(frame, columns, group)

    has_retrieved = num_ret > 0  # before -M and -J, which never change the query set
    max_rank = options.max_rank
    if max_rank is not None:  # trec_eval -M: only the top max_rank documents of each query
        num_ret = np.minimum(num_ret, max_rank)
        within = position <= max_rank
        judged_ret, position = judged_ret[within], position[within]
        tie_first = tie_first[within]
        tie_size = np.minimum(tie_first + tie_size[within] - 1, max_rank) - tie_first + 1
    judged_ret_group = ret_group[judged_ret]
    in_rank_order = _rank_order(judged_ret_group, position)
    known_flag = None if columns.known is None else known_flags(frame, columns.known)
    judged_ret_rows = np.asarray(frame_rows(judged_ret))  # ascending, among the judged rows
    ret_judged_label = judged_label[np.searchsorted(judged_rows, judged_ret_rows)]
    ranked = Ranked(
        n_groups=n_groups,
        num_ret=num_ret,
        group=judged_ret_group[in_rank_order],
        position=position[in_rank_order],
        label=ret_judged_label[in_rank_order],
        judged_group=np.concatenate([group[judged_rows], added_group]),
        judged_label=np.concatenate([judged_label, added_label]),
        known=(
            np.zeros(len(in_rank_order), dtype=bool)  # no per-row work without the column
            if known_flag is None
            else known_flag[retrieved_rows][judged_ret][in_rank_order]
        ),
        judged_known=(
            np.zeros(len(judged_rows) + len(added_group), dtype=bool)
            if known_flag is None
            else np.r_[known_flag[judged_rows], np.zeros(len(added_group), dtype=bool)]
        ),
        tie_first=tie_first[in_rank_order],
        tie_size=tie_size[in_rank_order],
        time=None if columns.time is None else group_times(frame, columns, group, n_groups),
    )
    if options.judged_only:  # trec_eval -J, after -M: drop unjudged documents and rank again
        ranked = ranked.judged_only()
    keep, blank = _query_policy(ranked, has_retrieved, options.queries)
    average = options.ties == "average" and columns.rank is None
    return Prepared(ranked=ranked, index=index, keep=keep, blank=blank, average=average)


def _checked_groups(
    frame: pd.DataFrame, columns: ResolvedColumns
) -> tuple[dict[str, pd.Series], IntArray, pd.Index, bool]:
    """The id columns by role (checked for missing values), the group codes and index,
    and whether the ids were found free of duplicates (never yet: checked later).
    """
    ids = {
        role: frame[name] for role in ("query", "doc", "run") if (name := getattr(columns, role))
    }
    check_no_nulls_in(ids, columns)
    group, index = group_codes(frame, columns)
    return ids, group, index, False


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


def positions(frame: pd.DataFrame, columns: ResolvedColumns) -> tuple[FloatArray, IntArray]:
    """Every row's 1-based position in its (run, query) ranking (NaN: not retrieved), and
    the rows' group codes; evaluation's order, ties by doc id descending (trec_eval).

    Checks the ids and the ranking as :func:`prepare` does.
    """
    columns.require(frame, "query", "doc")
    if columns.rank is None and columns.score is None:
        msg = (
            f"neither a 'rank' nor a 'score' column found (columns: {list(frame.columns)}); "
            "rank the documents with one of them, e.g. df.ireval(rank='position')"
        )
        raise SchemaError(msg)
    _, group, index, _ = _checked_groups(frame, columns)
    key = ranking_key(frame, columns, validate=True)
    retrieved = np.flatnonzero(~np.isnan(key))
    doc_column = frame[columns.name("doc")]
    _, position, repeated, _, _ = judged_positions(
        group[retrieved],
        key[retrieved],
        np.arange(len(retrieved)),
        len(index),
        by_rank=columns.rank is not None,
        ties=TieBreak(doc_ids=lambda rows: take(doc_column, retrieved[rows])),
    )
    if len(repeated):
        _refuse_repeated_ranks(frame, columns, retrieved[repeated])
    check_unique_docs(frame, columns, group)
    out = np.full(len(frame), np.nan)
    out[retrieved] = position
    return out, group


def _query_policy(
    ranked: Ranked, has_retrieved: np.ndarray, queries: str
) -> tuple[np.ndarray, np.ndarray]:
    """Groups to report, and groups to report as NaN, under the query policy."""
    n_groups = ranked.n_groups
    has_judgment = np.bincount(ranked.judged_group, minlength=n_groups) > 0
    if queries == "judged":
        keep, blank = has_judgment, np.zeros(n_groups, dtype=bool)
    elif queries == "retrieved":
        keep, blank = has_judgment & has_retrieved, np.zeros(n_groups, dtype=bool)
    else:
        keep, blank = np.ones(n_groups, dtype=bool), ~has_judgment
    return keep, blank


def ranking_key(frame: pd.DataFrame, columns: ResolvedColumns, validate: bool) -> FloatArray:
    """Ascending = better: the rank, or minus the score; NaN = not retrieved."""
    key, descending, present = _ranking(frame, columns, validate)
    if present is not None or key.dtype != np.float64:
        key = key.astype(np.float64)
        if present is not None:
            key[~present] = np.nan
    return -key if descending else key


def _ranking(
    frame: pd.DataFrame, columns: ResolvedColumns, validate: bool
) -> tuple[np.ndarray, bool, np.ndarray | None]:
    """The rank (ascending = better) or the score as it is (descending = better: no
    negated copy of a column as long as the run), whether descending, and which rows
    are retrieved -- None when those are the rows whose key is not NaN.

    Integer ranks are read as they are stored, with their mask of missing values.
    """
    if columns.rank is not None:
        values = frame[columns.rank]
        whole = _integer_ranks(values, columns.rank, validate)
        if whole is not None:
            return whole[0], False, whole[1]
        return _ranks(values, columns.rank, validate), False, None
    return _numeric(frame[columns.score], columns.name("score"), "score"), True, None


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


def check_no_nulls(frame: pd.DataFrame, columns: ResolvedColumns) -> None:
    """Refuse missing query, doc or run ids, naming the column, the count and a row."""
    ids = {
        role: frame[name]
        for role in ("query", "doc", "run")
        if (name := getattr(columns, role)) is not None
    }
    check_no_nulls_in(ids, columns)


def check_no_nulls_in(ids: dict[str, pd.Series], columns: ResolvedColumns) -> None:
    """:func:`check_no_nulls` for the id columns given by role (Arrow: a count, no mask)."""
    for role, values in ids.items():
        chunked = getattr(values.array, "_pa_array", None)
        if chunked is not None and chunked.null_count == 0:
            continue
        if _integers(values.dtype) or (  # no missing value, or none among the codes
            isinstance(values.dtype, pd.CategoricalDtype)
            and (not len(values) or int(values.array.codes.min()) >= 0)
        ):
            continue
        missing = values.isna().to_numpy()
        if missing.any():
            first = values.index[np.flatnonzero(missing)[0]]
            msg = (
                f"column {columns.name(role)!r} ({role} ids) has {int(missing.sum())} missing "
                f"value(s), e.g. at row {first!r}; every row needs a {role} id: fill or drop them"
            )
            raise SchemaError(msg)


def _narrow(codes: np.ndarray) -> IntArray:
    """Codes as int32 when they fit (half the memory of int64 per row)."""
    small = len(codes) == 0 or int(codes.max()) < 2**31 - 1
    return codes.astype(np.int32 if small else np.int64, copy=False)


#: Below this many rows, ids that are not Python objects are hashed whole: reading the
#: first row of each block has a fixed cost (about 0.2 ms) that hashing only saves on
#: longer columns.
_BLOCKS_FROM_ROWS = 20_000


def _factorize_sorted(values: pd.Series) -> tuple[IntArray, pd.Index]:
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
        import pyarrow as pa

        codes, distinct = _factorize_arrow(pa.array(values.to_numpy()))
        return codes, pd.Index(distinct.to_numpy(), dtype=values.dtype)
    converted = arrow_strings(values)
    source = values if converted is None else converted
    found = _factorize_arrow_strings(source)
    if found is None:
        codes, uniques = pd.factorize(source, sort=True)
    elif source.dtype == string_dtype():  # pandas 2's pd.array would read the strings again
        import pyarrow as pa

        codes, uniques = found[0], string_array(pa.chunked_array([found[1]]))
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
    chunked = getattr(values.array, "_pa_array", None)
    if chunked is None or chunked.null_count or not holds_strings(chunked):
        return None
    return _factorize_arrow(
        chunked.chunk(0) if chunked.num_chunks == 1 else chunked.combine_chunks()
    )


def _factorize_arrow(array: Any) -> tuple[np.ndarray, Any]:
    """Codes and sorted distinct values (an Arrow array) of an Arrow array without a
    missing value, from Arrow's dictionary encoding.
    """
    import pyarrow as pa
    import pyarrow.compute as pc

    encoded = pc.dictionary_encode(array)
    order = pc.array_sort_indices(encoded.dictionary).to_numpy()
    rank = np.empty(len(order), dtype=np.int32 if len(order) < 2**31 else np.int64)
    rank[order] = np.arange(len(order))
    codes = gathered(rank, encoded.indices.to_numpy(zero_copy_only=False))
    return codes, encoded.dictionary.take(pa.array(order))


def group_codes(
    frame: pd.DataFrame | Mapping[Hashable, pd.Series], columns: ResolvedColumns
) -> tuple[IntArray, pd.Index]:
    """Factorize (run, query) into dense codes ordered like the sorted ids (``frame``: a
    DataFrame, or its id columns by name).
    """
    query_codes, query_ids = _factorize_sorted(frame[columns.query])
    query_index = pd.Index(query_ids, name=columns.query)
    if columns.run is None:
        return query_codes, query_index
    run_codes, run_ids = _factorize_sorted(frame[columns.run])
    combined = run_codes.astype(np.int64) * max(len(query_ids), 1) + query_codes
    codes, pairs = pd.factorize(combined, sort=True)
    codes = _narrow(codes)
    n_queries = max(len(query_ids), 1)
    index = pd.MultiIndex.from_arrays(
        [
            pd.Index(run_ids, name=columns.run).take(pairs // n_queries),
            query_index.take(pairs % n_queries),
        ]
    )
    return codes, index


def _numeric(values: pd.Series, name: str, role: str) -> FloatArray:
    if len(values) == 0:
        return np.zeros(0, dtype=np.float64)
    if pd.api.types.is_bool_dtype(values.dtype):
        msg = (
            f"column {name!r} ({role}) holds booleans; use numbers instead, "
            f"e.g. df[{name!r}].astype(int)"
        )
        raise SchemaError(msg)
    if not pd.api.types.is_numeric_dtype(values.dtype):
        sample = values.dropna().head(3).tolist()
        msg = (
            f"column {name!r} ({role}) must be numeric, found dtype {values.dtype} "
            f"(e.g. {sample}); convert it with pd.to_numeric"
        )
        raise SchemaError(msg)
    return values.to_numpy(dtype=np.float64, na_value=np.nan)


def labels_of(values: pd.Series, name: str, validate: bool = True) -> FloatArray:
    """Relevance labels as float64 (NaN = unjudged); checked to be whole numbers."""
    label = _numeric(values, name, "relevance label")
    if validate and not pd.api.types.is_integer_dtype(values.dtype):  # integers are whole
        finite = label[~np.isnan(label)]
        bad = finite[(finite != np.round(finite)) | ~np.isfinite(finite)]
        if len(bad):
            msg = (
                f"column {name!r} (relevance label) must hold whole numbers, "
                f"found {bad[:3].tolist()}; labels are graded levels such as 0, 1, 2 "
                "(map fractional grades to levels first)"
            )
            raise SchemaError(msg)
    return label


def _judged_labels(values: pd.Series, name: str, validate: bool) -> tuple[np.ndarray, FloatArray]:
    """Which rows are judged (a bool per row), and their labels as float64.

    Integer labels (nullable or not) are read at the judged rows only: a merged run's
    label column is mostly missing, and a float per row would be as large as the run.
    Other dtypes go through :func:`labels_of`.
    """
    if not pd.api.types.is_integer_dtype(values.dtype):
        label = labels_of(values, name, validate)
        judged = ~np.isnan(label)
        return judged, label[judged]
    judged = ~np.asarray(values.array.isna(), dtype=bool)  # the array's: no Series made
    if judged.all():
        return judged, values.to_numpy(dtype=np.float64)
    taken = values.array.take(np.flatnonzero(judged))
    return judged, np.asarray(taken.to_numpy(dtype=np.float64), dtype=np.float64)


def known_flags(frame: pd.DataFrame, name: str | None) -> np.ndarray:
    """The ``known`` column as a bool per row: True/False or 1/0, missing = False.

    All False when the frame has no known column.
    """
    if name is None:
        return np.zeros(len(frame), dtype=bool)
    values = frame[name]
    if pd.api.types.is_bool_dtype(values.dtype) and not values.hasnans:
        return values.to_numpy(dtype=bool)
    present = values.dropna()
    if pd.api.types.is_numeric_dtype(values.dtype) or pd.api.types.is_bool_dtype(values.dtype):
        flags = values.to_numpy(dtype=np.float64, na_value=0.0)
        bad = flags[(flags != 0) & (flags != 1)]
    else:
        bad = [v for v in present.unique()[:50] if not isinstance(v, bool | np.bool_)]
        flags = values.isin([True]).to_numpy(dtype=bool)
    if len(bad):
        msg = (
            f"column {name!r} (known) must be boolean (True/False or 1/0, missing = False), "
            f"found {list(bad[:3])}; convert it, e.g. df[{name!r}] == 'yes'"
        )
        raise SchemaError(msg)
    return flags.astype(bool)


def _integer_ranks(
    values: pd.Series, name: str, validate: bool
) -> tuple[IntArray, np.ndarray | None] | None:
    """Integer ranks as int64 without a float copy of the column, and which rows hold
    one (None: every row); None for other dtypes, or when a rank is too large to pack
    (:func:`_ranks` renumbers them).
    """
    present = None
    if _integers(values.dtype):
        rank = values.to_numpy()
    elif isinstance(values.array, pd.arrays.IntegerArray):
        data, mask = values.array._data, values.array._mask  # type: ignore[attr-defined]
        rank, present = data, ~mask  # the values under the mask are arbitrary
    else:
        return None
    if not len(rank):
        return None
    too_large = int(rank.max()) >= _LARGEST_PACKED_RANK  # values under the mask included
    if too_large and present is not None:  # look again at the ranks only
        too_large = bool(present.any()) and int(rank[present].max()) >= _LARGEST_PACKED_RANK
    if too_large:
        return None
    if validate and int(rank.min()) < 0:  # whole numbers by their dtype: only the sign
        negative = rank < 0
        if present is not None:
            negative &= present
        if negative.any():
            msg = (
                f"column {name!r} (rank) must hold whole numbers >= 0 (1 or 0 = top), "
                f"found {rank[negative][:3].tolist()}; leave it empty (NaN) for judged but "
                "unretrieved rows"
            )
            raise SchemaError(msg)
    return rank.astype(np.int64, copy=False), present


def _ranks(values: pd.Series, name: str, validate: bool) -> FloatArray:
    """Ranks as float64 keys (NaN = not retrieved): 1-based, 0-based or any increasing numbers.

    Whole numbers too large to pack next to a group code (or to hold exactly in a
    float64) are replaced by their order among all ranks, which keeps every ranking.
    """
    rank = _numeric(values, name, "rank")
    if validate and pd.api.types.is_integer_dtype(values.dtype):
        # whole numbers by their dtype: only the sign needs a look (NaN compares False)
        if np.any(rank < 0):
            bad = rank[rank < 0]
            msg = (
                f"column {name!r} (rank) must hold whole numbers >= 0 (1 or 0 = top), "
                f"found {bad[:3].tolist()}; leave it empty (NaN) for judged but unretrieved rows"
            )
            raise SchemaError(msg)
    elif validate:
        finite = rank[~np.isnan(rank)]
        bad = finite[(finite < 0) | (finite != np.round(finite)) | ~np.isfinite(finite)]
        if len(bad):
            msg = (
                f"column {name!r} (rank) must hold whole numbers >= 0 (1 or 0 = top), "
                f"found {bad[:3].tolist()}; leave it empty (NaN) for judged but unretrieved rows"
            )
            raise SchemaError(msg)
    if len(rank) and np.nanmax(rank, initial=0.0) >= _LARGEST_PACKED_RANK:
        if not pd.api.types.is_integer_dtype(values.dtype):
            values = pd.Series(rank)  # floats: their order is all there is
        codes, _ = pd.factorize(values, sort=True, use_na_sentinel=True)
        rank = np.where(codes < 0, np.nan, codes.astype(np.float64))
    return rank


def group_times(
    frame: pd.DataFrame, columns: ResolvedColumns, group: IntArray, n_groups: int
) -> FloatArray:
    """Each group's processing time in seconds (NaN when not given), from the time column.

    The rows of a (run, query) carry its time -- every row the same value, or some rows
    none (judged documents the run did not retrieve); a timedelta counts its seconds.
    """
    name = columns.name("time")
    values = frame[name]
    if pd.api.types.is_timedelta64_dtype(values.dtype):
        seconds = values.dt.total_seconds().to_numpy(dtype=np.float64, na_value=np.nan)
    else:
        seconds = _numeric(values, name, "time")
    given = ~np.isnan(seconds)
    bad = seconds[given & ~((seconds >= 0) & np.isfinite(seconds))]
    if len(bad):
        msg = (
            f"column {name!r} (time) must hold durations >= 0 in seconds (or timedeltas), "
            f"found {bad[:3].tolist()}; leave it empty where a query was not timed"
        )
        raise SchemaError(msg)
    low = np.full(n_groups, np.inf)
    high = np.full(n_groups, -np.inf)
    np.minimum.at(low, group[given], seconds[given])
    np.maximum.at(high, group[given], seconds[given])
    differ = np.flatnonzero(high > low)
    if len(differ):
        at = np.flatnonzero(given & (group == differ[0]))[0]
        where = f"query {frame[columns.name('query')].iloc[at]!r}"
        if columns.run is not None:
            where += f" of run {frame[columns.run].iloc[at]!r}"
        msg = (
            f"column {name!r} (time) holds several times for {where} ({low[differ[0]]:g} and "
            f"{high[differ[0]]:g} s); a time is per query: give every row of the query the "
            "same value"
        )
        raise SchemaError(msg)
    return np.where(np.isfinite(low), low, np.nan)


def _refuse_repeated_ranks(frame: pd.DataFrame, columns: ResolvedColumns, rows: IntArray) -> None:
    at = int(rows[0])
    where = f"query {frame[columns.query].iloc[at]!r}"
    if columns.run is not None:
        where += f" of run {frame[columns.run].iloc[at]!r}"
    msg = (
        f"rank {int(frame[columns.rank].iloc[at])} appears more than once for {where} "
        f"({len(rows)} row(s) with a repeated rank in all); each document of a ranking "
        "needs its own rank: re-rank, or drop the rank column to rank by score"
    )
    raise SchemaError(msg)


def check_unique_docs(
    frame: pd.DataFrame,
    columns: ResolvedColumns,
    group: IntArray,
    *,
    doc_keys: np.ndarray | None = None,
    ids: dict[str, pd.Series] | None = None,
) -> None:
    """Refuse a document twice in one (run, query) group.

    ``doc_keys`` are the doc ids' keys when the caller has them (they are consumed);
    ``ids`` the id columns by role when they differ from the frame's (converted).
    """
    ids = ids or {}
    docs = ids.get("doc", frame[columns.name("doc")])
    repeated = repeated_rows(group, docs, keys=doc_keys)
    if len(repeated):
        roles = ("run", "query", "doc") if columns.run else ("query", "doc")
        keys = [columns.name(role) for role in roles]
        first = repeated[0]
        where = {
            columns.name(role): ids.get(role, frame[columns.name(role)]).iloc[first]
            for role in roles
        }
        scope = "run and query" if columns.run else "query"
        msg = (
            f"{len(repeated)} duplicate ({', '.join(keys)}) row(s), e.g. {where}; "
            f"each document may appear once per {scope}: drop the duplicates "
            "(e.g. df.drop_duplicates(subset=[...]))"
        )
        raise SchemaError(msg)
