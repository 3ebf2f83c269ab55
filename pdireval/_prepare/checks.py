"""Checks of a long frame's values, and the messages that refuse bad ones.

Every value the preparation reads is checked here, once, as it is read: ids present,
labels whole numbers, ranks whole and not negative, scores numeric, ``known`` flags
boolean, times one per query; ids of the run and of the qrels of kinds that can match.
A refusal says what was found, where, and how to fix it.
"""

from __future__ import annotations

from typing import Any, NoReturn

import numpy as np
import pandas as pd

from pdireval._core import compat as _compat
from pdireval._core.errors import SchemaError
from pdireval._core.ids import id_kind, same_kind
from pdireval._core.roles import ResolvedColumns
from pdireval._prepare import algorithms
from pdireval._prepare.arrays import arrow_data

__all__ = [
    "check_no_nulls",
    "check_no_nulls_in",
    "check_unique_docs",
    "group_times",
    "id_kind",
    "judged_labels",
    "known_flags",
    "labels_of",
    "matchable",
    "numeric",
    "ranking",
    "ranking_key",
    "refuse_mismatched_roles",
    "refuse_repeated_ranks",
    "require_ranking",
]

FloatArray = np.ndarray
IntArray = np.ndarray

#: Ranks from here on are replaced by their order (they would not pack next to a group code).
_LARGEST_PACKED_RANK = float(2**31)


def require_ranking(frame: pd.DataFrame, columns: ResolvedColumns) -> None:
    """Refuse a frame with neither a rank nor a score column."""
    if columns.rank is None and columns.score is None:
        msg = (
            f"neither a 'rank' nor a 'score' column found (columns: {list(frame.columns)}); "
            "rank the documents with one of them, e.g. df.ireval(rank='position')"
        )
        raise SchemaError(msg)


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
        chunked = arrow_data(values)
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


def numeric(values: pd.Series, name: str, role: str) -> FloatArray:
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


def labels_of(
    values: pd.Series, name: str, validate: bool = True, *, whole: bool = True
) -> FloatArray:
    """Relevance labels as float64 (NaN = unjudged); checked to be finite, and whole
    numbers unless ``whole=False`` (labels read with ``rel_threshold=``).
    """
    label = numeric(values, name, "relevance label")
    if validate and not pd.api.types.is_integer_dtype(values.dtype):  # integers are whole
        finite = label[~np.isnan(label)]
        if not whole:
            infinite = finite[~np.isfinite(finite)]
            if len(infinite):
                msg = (
                    f"column {name!r} (relevance label) holds {infinite[0]}; labels are "
                    "finite numbers (NaN for a document without a judgment)"
                )
                raise SchemaError(msg)
            return label
        bad = finite[(finite != np.round(finite)) | ~np.isfinite(finite)]
        if len(bad):
            msg = (
                f"column {name!r} (relevance label) must hold whole numbers, "
                f"found {bad[:3].tolist()}; labels are graded levels such as 0, 1, 2: map "
                "fractional grades to levels first, or evaluate them as they are with "
                "rel_threshold= (the smallest label counted as relevant), e.g. "
                "pdireval.evaluate(run, metrics, qrels=qrels, rel_threshold=0.5)"
            )
            raise SchemaError(msg)
    return label


def judged_labels(
    values: pd.Series, name: str, validate: bool, *, whole: bool = True
) -> tuple[np.ndarray, FloatArray]:
    """Which rows are judged (a bool per row), and their labels as float64.

    Integer labels (nullable or not) are read at the judged rows only: a merged run's
    label column is mostly missing, and a float per row would be as large as the run.
    Other dtypes go through :func:`labels_of`.
    """
    if not pd.api.types.is_integer_dtype(values.dtype):
        label = labels_of(values, name, validate, whole=whole)
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


def ranking_key(frame: pd.DataFrame, columns: ResolvedColumns, validate: bool) -> FloatArray:
    """Ascending = better: the rank, or minus the score; NaN = not retrieved."""
    key, descending, present = ranking(frame, columns, validate)
    if present is not None or key.dtype != np.float64:
        key = key.astype(np.float64)
        if present is not None:
            key[~present] = np.nan
    return -key if descending else key


def ranking(
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
    return numeric(frame[columns.score], columns.name("score"), "score"), True, None


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
        data, mask = _compat.masked_parts(values.array)
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
            _refuse_ranks(name, rank[negative])
    return rank.astype(np.int64, copy=False), present


def _ranks(values: pd.Series, name: str, validate: bool) -> FloatArray:
    """Ranks as float64 keys (NaN = not retrieved): 1-based, 0-based or any increasing numbers.

    Whole numbers too large to pack next to a group code (or to hold exactly in a
    float64) are replaced by their order among all ranks, which keeps every ranking.
    """
    rank = numeric(values, name, "rank")
    if validate:  # whole numbers by their dtype need only a look at the sign
        finite = rank[~np.isnan(rank)]
        bad = finite < 0
        if not pd.api.types.is_integer_dtype(values.dtype):
            bad |= (finite != np.round(finite)) | ~np.isfinite(finite)
        if bad.any():
            _refuse_ranks(name, finite[bad])
    if len(rank) and np.nanmax(rank, initial=0.0) >= _LARGEST_PACKED_RANK:
        if not pd.api.types.is_integer_dtype(values.dtype):
            values = pd.Series(rank)  # floats: their order is all there is
        codes, _ = pd.factorize(values, sort=True, use_na_sentinel=True)
        rank = np.where(codes < 0, np.nan, codes.astype(np.float64))
    return rank


def _refuse_ranks(name: str, bad: np.ndarray) -> NoReturn:
    msg = (
        f"column {name!r} (rank) must hold whole numbers >= 0 (1 or 0 = top), "
        f"found {bad[:3].tolist()}; leave it empty (NaN) for judged but unretrieved rows"
    )
    raise SchemaError(msg)


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
        seconds = numeric(values, name, "time")
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
        where = _ranking_at(frame, columns, np.flatnonzero(given & (group == differ[0]))[0])
        msg = (
            f"column {name!r} (time) holds several times for {where} ({low[differ[0]]:g} and "
            f"{high[differ[0]]:g} s); a time is per query: give every row of the query the "
            "same value"
        )
        raise SchemaError(msg)
    return np.where(np.isfinite(low), low, np.nan)


def _ranking_at(frame: pd.DataFrame, columns: ResolvedColumns, row: int) -> str:
    """The ranking a row belongs to, for messages: its query (and run)."""
    where = f"query {frame[columns.name('query')].iloc[row]!r}"
    if columns.run is not None:
        where += f" of run {frame[columns.run].iloc[row]!r}"
    return where


def refuse_repeated_ranks(frame: pd.DataFrame, columns: ResolvedColumns, rows: IntArray) -> None:
    """Refuse ranks repeated within a ranking (``rows``: the frame rows holding them)."""
    at = int(rows[0])
    where = _ranking_at(frame, columns, at)
    msg = (
        f"rank {int(frame[columns.rank].iloc[at])} appears more than once for {where} "
        f"({len(rows)} row(s) with a repeated rank in all); each document of a ranking "
        "needs its own rank: re-rank, or drop the rank column to rank by score"
    )
    raise SchemaError(msg)


def matchable(
    run_ids: pd.Series, qrels_ids: pd.Series, role: str, run_kind: str | None = None
) -> bool:
    """Refuse ids that could never match (the rule of :mod:`pdireval._core.ids`); True
    when the dtypes differ but the values can match.

    ``run_kind``: the kind of the run's ids when already known (saves reading them).
    """
    if run_kind in (None, "other") or id_kind(qrels_ids) != run_kind:
        same_kind([("the run", run_ids), ("the qrels", qrels_ids)], role)
    return run_ids.dtype != qrels_ids.dtype


def refuse_mismatched_roles(
    run: pd.DataFrame, qrels: pd.DataFrame, run_cols: ResolvedColumns, qrels_cols: ResolvedColumns
) -> None:
    """Refuse ids read from differently named columns when the other name exists too.

    PyTerrier's results hold the query text in ``query`` and the id in ``qid``, its
    qrels only ``qid``: by the default rules the run's ids would be the texts and the
    qrels' the ids, and no judgment would ever match.
    """
    for role in ("query", "doc"):
        mine, theirs = getattr(run_cols, role), getattr(qrels_cols, role)
        if mine is None or theirs is None or mine == theirs:
            continue
        if theirs in run.columns or mine in qrels.columns:
            pyterrier = role == "query" and {mine, theirs} == {"query", "qid"}
            fix = (
                "columns=pdireval.ColumnMap.pyterrier() (PyTerrier keeps the query text "
                "in 'query' and its id in 'qid')"
                if pyterrier
                else f"columns={{'{role}': {theirs!r}}} or qrels_columns={{'{role}': {mine!r}}}"
            )
            msg = (
                f"the run's {role} ids would be read from column {mine!r} but the qrels' "
                f"from {theirs!r}, and the {'run' if theirs in run.columns else 'qrels'} "
                f"has both; say which column holds the {role} ids with {fix}"
            )
            raise SchemaError(msg)


def _integers(dtype: Any) -> bool:
    return isinstance(dtype, np.dtype) and dtype.kind in "iu"


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
    repeated = algorithms.repeated_rows(group, docs, keys=doc_keys)
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
            f"each document may appear once per {scope}: "
            f"{_duplicates_fix(frame, columns, len(repeated))}"
        )
        raise SchemaError(msg)


def _duplicates_fix(frame: pd.DataFrame, columns: ResolvedColumns, repeated: int) -> str:
    """The fix for repeated documents. Many repeats, or an index repeated as ``pd.concat``
    repeats it, look like several runs under one name (two run files with the same tag),
    which dropping the duplicates would silently merge into one run.
    """
    combined = repeated > 1 and (repeated * 10 >= len(frame) or not frame.index.is_unique)
    if not combined:
        return "drop the duplicates (e.g. df.drop_duplicates(subset=[...]))"
    frames = "pd.concat([a.assign(run='bm25'), b.assign(run='dense')])"
    if columns.run:
        return (
            f"this looks like several runs under one name in {columns.run!r} (e.g. two run "
            f"files with the same tag): give each run its own name, e.g. {frames}; do not "
            "drop the duplicates, that would merge the runs into one"
        )
    return (
        "this looks like several runs in one frame without a run column: give each its "
        f"own name in a 'run' column, e.g. {frames}"
    )
