"""``merge_qrels``: one long frame from a run frame and a qrels frame."""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from pdireval._errors import SchemaError
from pdireval._prepare.blocks import adjacent_differs, scattered_start
from pdireval._prepare.columns import (
    ATTRS_KEY,
    SYNONYMS,
    ColumnMap,
    ResolvedColumns,
    as_column_map,
)
from pdireval._prepare.keys import (
    argsort_keys,
    arrow_strings,
    category_keys,
    category_strings,
    holds_strings,
    id_keys,
    large_strings,
    python_string_blocks,
    python_string_keys,
    search_scattered,
    spread,
    string_dtype,
    string_series,
)
from pdireval._prepare.ranking import (
    Matched,
    check_no_nulls_in,
    check_unique_docs,
    group_codes,
    labels_of,
)
from pdireval._prepare.take import series_of, take

__all__ = ["Joined", "join_resolved", "merge_qrels"]

_SPARE_BITS = 8  # lookup table of ~256 slots per judged doc: <1% of unjudged rows pass
_MAX_TABLE_BITS = 22  # at most 4 MB, so that lookups stay in the CPU cache
_PAIR_MIX = np.uint64(0xBF58476D1CE4E5B9)
_LOOKUP_BLOCK = 1 << 16
_SHOWN = 10  # ids named in messages and recorded on a merged frame


def merge_qrels(
    run: pd.DataFrame,
    qrels: pd.DataFrame,
    *,
    columns: ColumnMap | Mapping[str, str] | None = None,
    qrels_columns: ColumnMap | Mapping[str, str] | None = None,
) -> pd.DataFrame:
    """Attach relevance labels to a run and add the judged documents it did not retrieve.

    Parameters
    ----------
    run : DataFrame
        Retrieved documents: query, doc and rank or score columns, optionally a run
        column (then the judgments are applied to every run).
    qrels : DataFrame
        Judgments: query, doc and rel columns (other columns, such as TREC's
        iteration field, are not carried over). Each (query, doc) at most once.
    columns, qrels_columns : ColumnMap or dict, optional
        Column roles of ``run`` and of ``qrels`` (defaults and synonyms otherwise).

    Returns
    -------
    DataFrame
        A new long frame (fresh RangeIndex): every run row in its original order with
        the label added (missing = unjudged), then one row per judged document a run
        did not retrieve, with missing rank/score. Column names are those of ``run``
        plus the qrels' rel column. Neither input is modified.

        ``result.attrs["pdireval"]`` records the column roles used (``"columns"``),
        which evaluating the result uses for the roles you do not map again, and how
        the run's queries overlap the judged ones (``"queries"``: counts ``run``,
        ``qrels`` and ``both``, and up to ten ``run_only`` ids in sorted order -- run
        queries without any judgment, which the default query policy leaves out).
        The record is plain JSON, so it survives ``to_parquet``.

    Raises
    ------
    SchemaError
        Missing or ambiguous columns, missing ids, ids of kinds that can never match,
        a (query, doc) judged twice, or a non-empty run that shares no query -- or no
        document -- with the qrels (the ids of both sides are named).

    Examples
    --------
    >>> import pandas as pd, pdireval
    >>> run = pd.DataFrame({"query": ["q1", "q1"], "doc": ["a", "b"], "score": [2.0, 1.0]})
    >>> qrels = pd.DataFrame({"query": ["q1", "q1"], "doc": ["b", "c"], "rel": [1, 2]})
    >>> pdireval.merge_qrels(run, qrels)
      query doc  score   rel
    0    q1   a    2.0  <NA>
    1    q1   b    1.0     1
    2    q1   c    NaN     2
    """
    run_cols = as_column_map(columns).resolve(run)
    qrels_cols = as_column_map(qrels_columns).resolve(qrels)
    if has_subtopics(qrels, qrels_cols):
        return merge_subtopics(run, qrels, run_cols, qrels_cols)
    return merge_resolved(run, qrels, run_cols, qrels_cols)


def has_subtopics(qrels: pd.DataFrame, qrels_cols: ResolvedColumns) -> bool:
    """Whether the qrels judge per subtopic: a subtopic column that is not constant."""
    subtopic = qrels_cols.subtopic
    return subtopic is not None and qrels[subtopic].nunique(dropna=False) > 1


def merge_subtopics(
    run: pd.DataFrame,
    qrels: pd.DataFrame,
    run_cols: ResolvedColumns,
    qrels_cols: ResolvedColumns,
    *,
    check_overlap: bool = True,
) -> pd.DataFrame:
    """merge_qrels for judgments per subtopic: one row per (run, query, doc, subtopic).

    Documents are merged as usual with their best subtopic label; then every judged
    document gets one row per subtopic it was judged for (the rank, score and other run
    columns repeated, the label the subtopic's); an unjudged document keeps one row
    with a missing subtopic.
    """
    query, doc, rel = (qrels_cols.name(role) for role in ("query", "doc", "rel"))
    subtopic = qrels_cols.name("subtopic")
    if qrels[subtopic].isna().any():
        msg = (
            f"the qrels' subtopic column {subtopic!r} has missing values; every judgment names one"
        )
        raise SchemaError(msg)
    if subtopic in run.columns:
        msg = (
            f"the run already has a column {subtopic!r} that would hold the subtopics; "
            "drop or rename it before merge_qrels"
        )
        raise SchemaError(msg)
    repeated = qrels.duplicated([query, doc, subtopic])
    if repeated.any():
        example = qrels.loc[repeated, [query, subtopic, doc]].iloc[0].to_dict()
        msg = (
            f"{int(repeated.sum())} (query, subtopic, doc) judgment(s) appear more than once, "
            f"e.g. {example}; judge each document once per subtopic"
        )
        raise SchemaError(msg)
    best = qrels.groupby([query, doc], sort=False, observed=True)[rel].max().reset_index()
    merged = merge_resolved(
        run,
        best,
        run_cols,
        dataclasses.replace(qrels_cols, subtopic=None),
        check_overlap=check_overlap,
    )
    r_query, r_doc = run_cols.name("query"), run_cols.name("doc")
    judgments = pd.DataFrame(
        {
            r_query: qrels[query].astype(merged[r_query].dtype).to_numpy(),
            r_doc: qrels[doc].astype(merged[r_doc].dtype).to_numpy(),
            subtopic: qrels[subtopic].to_numpy(),
            "__label": qrels[rel].to_numpy(),
        }
    )
    expanded = merged.merge(judgments, on=[r_query, r_doc], how="left", sort=False)
    expanded = expanded.astype({r_query: merged[r_query].dtype, r_doc: merged[r_doc].dtype})
    rel_name = rel
    expanded[rel_name] = expanded["__label"].astype(merged[rel_name].dtype)
    expanded = expanded.drop(columns="__label")
    record = dict(merged.attrs[ATTRS_KEY])
    record["columns"] = {**record["columns"], "subtopic": subtopic}
    expanded.attrs = {ATTRS_KEY: record}
    return expanded


def merge_resolved(
    run: pd.DataFrame,
    qrels: pd.DataFrame,
    run_cols: ResolvedColumns,
    qrels_cols: ResolvedColumns,
    *,
    check_overlap: bool = True,
) -> pd.DataFrame:
    """:func:`merge_qrels` with the column roles resolved (``check_overlap``: refuse a run
    that shares no query or document with the qrels).
    """
    joined = join_resolved(
        run, qrels, run_cols, qrels_cols, check_overlap=check_overlap, keep_ids=True
    )
    rel_name = qrels_cols.name("rel")
    n_added = len(joined.added_judgment)
    doc_name = run_cols.name("doc")
    stacked = dict(joined.stacked)  # the run and query ids, stacked to group them
    stacked[doc_name] = _stacked_column(
        joined.ids["doc"], joined.added[doc_name], n_added, run_cols.rank
    )
    columns = {
        name: stacked[name]
        if name in stacked
        else _stacked_column(run[name], None, n_added, run_cols.rank)
        for name in run.columns
    }
    columns[rel_name] = _labels_column(
        joined.labels, joined.row, joined.judgment, len(run), joined.added_judgment
    )
    result = pd.DataFrame(columns, index=pd.RangeIndex(len(run) + n_added), copy=False)

    roles = _recorded_roles(run, run_cols)
    roles["rel"] = rel_name
    result.attrs = {ATTRS_KEY: {"columns": roles, "queries": joined.overlap.summary()}}
    return result


@dataclass(frozen=True)
class Joined:
    """A run matched against its qrels, with the (run, query) groups that the merged
    frame -- the run's rows, then one row per judged document a run did not retrieve --
    would have, but without building that frame.

    ``ids`` are the run's id columns by role (Python strings as Arrow strings; only
    the doc ids unless asked for all); ``group`` has a code per run row, then one per
    added row (codes of ``index``); run row ``row[i]`` is judged by qrels row
    ``judgment[i]``; the added rows are the judgments ``added_judgment`` (their ids,
    by column name, in ``added``); ``labels`` are the qrels' labels (NaN: none given);
    ``stacked`` the run and query id columns of the merged frame, when asked for.
    """

    ids: dict[str, pd.Series]
    group: np.ndarray
    index: pd.Index
    row: np.ndarray
    judgment: np.ndarray
    added_judgment: np.ndarray
    added: dict[str, Any]
    labels: np.ndarray
    overlap: Overlap
    stacked: dict[str, Any]

    def matched(self, qrels: pd.DataFrame, qrels_cols: ResolvedColumns) -> Matched:
        """The judgments as evaluating the run needs them; refuses a judged document no
        run retrieved that has no label (its merged row would be neither retrieved nor
        judged).
        """
        n_run = len(self.group) - len(self.added_judgment)
        added_label = self.labels[self.added_judgment]
        unlabelled = np.isnan(added_label)
        if unlabelled.any():
            at = int(self.added_judgment[np.flatnonzero(unlabelled)[0]])
            query, doc = (qrels[qrels_cols.name(role)].iloc[at] for role in ("query", "doc"))
            msg = (
                f"the qrels' {qrels_cols.name('rel')!r} column is missing for "
                f"{int(unlabelled.sum())} judgment(s) of documents the run did not retrieve, "
                f"e.g. query {query!r}, doc {doc!r} (qrels row {qrels.index[at]!r}); give "
                "every judgment a label, or drop the rows without one"
            )
            raise SchemaError(msg)
        row_label = self.labels[self.judgment]
        labelled = ~np.isnan(row_label)
        judged = np.zeros(n_run, dtype=bool)
        judged[self.row[labelled]] = True
        order = np.argsort(self.row[labelled], kind="stable")  # labels in run row order
        return Matched(
            docs=self.ids["doc"],
            group=self.group[:n_run],
            index=self.index,
            judged=judged,
            judged_label=row_label[labelled][order],
            added_group=self.group[n_run:],
            added_label=added_label,
        )


def join_resolved(
    run: pd.DataFrame,
    qrels: pd.DataFrame,
    run_cols: ResolvedColumns,
    qrels_cols: ResolvedColumns,
    *,
    check_overlap: bool = True,
    keep_ids: bool = False,
) -> Joined:
    """Match ``run`` against ``qrels`` as :func:`merge_qrels` does, checking both, and
    group the rows the merged frame would have; no column of that frame is built
    unless ``keep_ids`` (then the converted ids, and the merged run and query id
    columns, are kept; otherwise they are freed once grouped).
    """
    _refuse_mismatched_roles(run, qrels, run_cols, qrels_cols)
    run_cols.require(run, "query", "doc", fix="columns={'%s': '<column>'}")
    qrels_cols.require(qrels, "query", "doc", "rel", fix="qrels_columns={'%s': '<column>'}")
    rel_name = qrels_cols.name("rel")
    if run_cols.rel is not None or rel_name in run.columns:
        clash = run_cols.rel or rel_name
        msg = (
            f"the run already has a column {clash!r} that would hold the relevance labels; "
            "drop or rename it before matching it with qrels (or evaluate the run directly)"
        )
        raise SchemaError(msg)
    # Python-string ids become Arrow-backed strings once, here: every step below, and
    # evaluating the result, then reads their bytes instead of Python objects.
    # Without a merged frame, Python-string doc ids keep their dtype: their keys are
    # hashed a block of rows at a time, and no converted copy of them is held.
    # So are Python-string query ids that come in blocks: the first row of each block
    # stands for the rest.
    query_name, doc_name = run_cols.name("query"), run_cols.name("doc")
    doc_keys = None if keep_ids else python_string_keys(run[doc_name])
    blocks = None if keep_ids else python_string_blocks(run[query_name])
    ids = {
        "query": _as_ids(run, query_name) if blocks is None else run[query_name],
        "doc": _as_ids(run, doc_name) if doc_keys is None else run[doc_name],
    }
    if run_cols.run is not None:
        ids["run"] = _as_ids(run, run_cols.run)
    q_query = _as_ids(qrels, qrels_cols.name("query"))
    q_doc = _as_ids(qrels, qrels_cols.name("doc"))
    as_they_are = {"query": blocks is not None, "doc": doc_keys is not None}
    # Python strings read as they are were found to be all strings: none is missing.
    check_no_nulls_in({r: v for r, v in ids.items() if not as_they_are.get(r)}, run_cols)
    check_no_nulls_in({"query": q_query, "doc": q_doc}, qrels_cols)
    convert = [
        _matchable(ids[role], q, role, "string" if as_they_are[role] else None)
        for role, q in (("query", q_query), ("doc", q_doc))
    ]

    labels = labels_of(qrels[rel_name], rel_name)
    q_doc_keys = id_keys(q_doc)  # for the pair keys and the lookup of judged docs
    judged = _sorted_pair_keys(q_query, q_doc, q_doc_keys)
    if judged is None:  # no keys, or two judgments share one: look for repeats exactly
        _refuse_repeated_judgments(q_query, q_doc)

    # Doc keys are computed once, for the matching and the duplicate check; categorical
    # docs need none (categories are matched, codes checked for duplicates).
    categorical = isinstance(ids["doc"].dtype, pd.CategoricalDtype)
    if doc_keys is None and not categorical:
        doc_keys = id_keys(ids["doc"])
    row, judgment = _match(
        (ids["query"], ids["doc"]), (q_query, q_doc), judged, convert, (doc_keys, q_doc_keys)
    )

    found, run_ids = _retrieved_judgments(ids.get("run"), row, judgment, len(qrels))
    missing_run, missing_judgment = np.nonzero(~found)

    added = {
        run_cols.name("query"): q_query.array.take(missing_judgment),
        run_cols.name("doc"): q_doc.array.take(missing_judgment),
    }
    if run_cols.run is not None and run_ids is not None:  # run_ids: None without a run column
        added[run_cols.run] = run_ids.take(missing_run).array
    # The (run, query) groups, as evaluating the merged frame finds them, are computed
    # once, for the overlap and the duplicate check (which frees the doc keys).
    n_added = len(missing_judgment)
    grouping = {
        name: _stacked_column(ids[role], added[name], n_added, run_cols.rank)
        for role in ("run", "query")
        if role in ids and (name := run_cols.name(role)) is not None
    }
    group, index = group_codes({n: series_of(v, name=n) for n, v in grouping.items()}, run_cols)
    if blocks is not None:  # the result's ids as a merged frame's: Arrow strings
        index = _with_string_level(index, query_name)
    overlap = _query_overlap(group, index, len(run), row, run_cols.name("query"), q_query)
    if check_overlap and len(run):
        _refuse_no_overlap(overlap, (ids["query"], ids["doc"]), (q_query, q_doc), row)
    if not keep_ids:  # messages name the run's own ids from here on
        grouping = {}
        ids = {"doc": ids["doc"]}
    check_unique_docs(run, run_cols, group[: len(run)], doc_keys=doc_keys, ids=ids)
    del doc_keys
    return Joined(
        ids=ids,
        group=group,
        index=index,
        row=row,
        judgment=judgment,
        added_judgment=missing_judgment,
        added=added,
        labels=labels,
        overlap=overlap,
        stacked=grouping,
    )


def _with_string_level(index: pd.Index, name: str) -> pd.Index:
    """``index`` with its level ``name`` (or itself) in the Arrow-backed string dtype."""
    if isinstance(index, pd.MultiIndex):
        level = index.names.index(name)
        return index.set_levels(index.levels[level].astype(string_dtype()), level=level)
    return index.astype(string_dtype())


def _as_ids(frame: pd.DataFrame, name: str) -> pd.Series:
    """An id column, Python strings converted to Arrow-backed strings."""
    column = frame[name]
    converted = arrow_strings(column)
    return column if converted is None else converted


def _retrieved_judgments(
    run_ids: pd.Series | None, row: np.ndarray, judgment: np.ndarray, n_judgments: int
) -> tuple[np.ndarray, pd.Index | None]:
    """Whether each run retrieved each judged document (a bool per (run, judgment)), and
    the distinct run ids (sorted; None without a run column: one run).
    """
    if run_ids is None:
        found = np.zeros((1, n_judgments), dtype=bool)
        found[0, judgment] = True
        return found, None
    run_codes, distinct = pd.factorize(run_ids, sort=True)
    found = np.zeros((len(distinct), n_judgments), dtype=bool)
    found[run_codes[row], judgment] = True
    return found, pd.Index(distinct)


def _stacked_column(column: pd.Series, extra: Any, n_added: int, rank_name: str | None) -> Any:
    """A run column followed by ``n_added`` rows for the judged documents it lacks: the
    ids ``extra`` (id columns), or missing values.

    An integer rank column becomes nullable integers (missing = not retrieved): UInt64
    from 64-bit unsigned ranks, which Int64 cannot all hold, Int64 from the others; float
    columns keep their dtype; categorical ids keep the run's codes and gain the new
    categories; other columns get pandas' usual promotion (int -> float).
    """
    n_run = len(column)
    if extra is not None:
        if isinstance(column.dtype, pd.CategoricalDtype):
            return _extend_categorical(column.array, extra)
        return _appended(column, extra)
    if column.name == rank_name and pd.api.types.is_integer_dtype(column.dtype):
        unsigned = pd.api.types.is_unsigned_integer_dtype(column.dtype)
        wide = np.uint64 if unsigned and getattr(column.dtype, "itemsize", 8) == 8 else np.int64
        values = np.zeros(n_run + n_added, dtype=wide)
        missing = np.ones(n_run + n_added, dtype=bool)
        if isinstance(column.dtype, np.dtype):  # plain integers: none missing, no mask
            values[:n_run] = column.to_numpy()
            missing[:n_run] = False
        else:
            values[:n_run] = column.to_numpy(dtype=wide, na_value=0)
            missing[:n_run] = column.isna().to_numpy()
        return pd.arrays.IntegerArray(values, missing)
    if column.dtype.kind == "f" and isinstance(column.dtype, np.dtype):  # e.g. scores
        return np.concatenate([column.to_numpy(), np.full(n_added, np.nan, dtype=column.dtype)])
    filled = np.r_[np.arange(n_run), np.full(n_added, -1)]
    extension = isinstance(column.dtype, pd.api.extensions.ExtensionDtype)
    values = column.array if extension else column.to_numpy()
    return pd.api.extensions.take(values, filled, allow_fill=True)


def _appended(column: pd.Series, extra: Any) -> Any:
    """The values of ``column`` followed by the ids ``extra``, in the column's dtype."""
    values = column.array
    if isinstance(extra, pd.api.extensions.ExtensionArray) and extra.dtype == column.dtype:
        return type(values)._concat_same_type([values, extra])  # no Series on the way
    if column.dtype == object:  # objects stay objects (pandas 3 would infer strings)
        stacked = np.concatenate([column.to_numpy(), np.asarray(extra, dtype=object)])
        return pd.Series(stacked, dtype=object, copy=False)
    added = pd.Series(extra)
    if added.dtype != column.dtype and column.dtype != object:
        added = added.astype(column.dtype)
    return pd.concat([column, added], ignore_index=True).array


@dataclass(frozen=True)
class Overlap:
    """How the distinct query ids of a run and of its qrels overlap."""

    run: int
    qrels: int
    both: int
    run_only: list[Any]  # up to _SHOWN run query ids without any judgment
    qrels_query: pd.Series  # the qrels' query ids

    def qrels_examples(self) -> list[Any]:
        """Up to ``_SHOWN`` query ids of the qrels (for messages only)."""
        return pd.unique(self.qrels_query.to_numpy(dtype=object))[:_SHOWN].tolist()

    def summary(self) -> dict[str, Any]:
        """The counts and the run-only examples, as recorded on a merged frame."""
        return {"run": self.run, "qrels": self.qrels, "both": self.both, "run_only": self.run_only}


def _query_overlap(
    group: np.ndarray,
    index: pd.Index,
    n_run: int,
    matched: np.ndarray,
    query_name: str,
    qrels_query: pd.Series,
) -> Overlap:
    """Distinct query ids of the run, of the qrels and of both, from the merged frame's
    groups (``group`` per row, the run's ``n_run`` rows first; ``matched``: the run rows
    that are judged).
    """
    retrieved = _present(group[:n_run], len(index))
    judged = _present(group[n_run:], len(index))  # every judgment has a row in the frame
    judged[group[matched]] = True
    if isinstance(index, pd.MultiIndex):  # (run, query) groups: to queries
        level = index.names.index(query_name)
        codes, queries = np.asarray(index.codes[level]), index.levels[level]
        retrieved = _present(codes[retrieved], len(queries))
        judged = _present(codes[judged], len(queries))
    else:
        queries = index
    run_only = np.flatnonzero(retrieved & ~judged)[:_SHOWN]
    n_qrels = int(np.count_nonzero(judged))
    if not n_qrels and len(qrels_query):  # an empty run of a run column has no rows at all
        keys = id_keys(qrels_query)
        n_qrels = len(pd.unique(keys if keys is not None else _as_python_objects(qrels_query)))
    return Overlap(
        run=int(np.count_nonzero(retrieved)),
        qrels=n_qrels,
        both=int(np.count_nonzero(retrieved & judged)),
        run_only=queries.take(run_only).tolist() if len(run_only) else [],
        qrels_query=qrels_query,
    )


def _present(codes: np.ndarray, n: int) -> np.ndarray:
    """Bool per code in ``range(n)``: occurs in ``codes``. Codes that come in blocks are
    read at the first row of each block.
    """
    present = np.zeros(n, dtype=bool)
    if len(codes) > 1 and not scattered_start(codes):
        codes = codes[np.flatnonzero(np.r_[True, adjacent_differs(codes)])]
    present[codes] = True
    return present


def _refuse_no_overlap(
    overlap: Overlap,
    run_ids: tuple[pd.Series, pd.Series],
    qrels_ids: tuple[pd.Series, pd.Series],
    matched: np.ndarray,
) -> None:
    """A non-empty run must share queries, and documents, with its qrels."""
    if overlap.both == 0:
        run_queries = "its only query" if overlap.run == 1 else f"its {overlap.run} queries"
        judged = "1 query" if overlap.qrels == 1 else f"{overlap.qrels} queries"
        msg = (
            f"none of the run's queries is in the qrels (the run has {run_queries}, the "
            f"qrels {judged}): run query ids e.g. {overlap.run_only[:3]}, qrels query ids e.g. "
            f"{overlap.qrels_examples()[:3]}; both must use the same ids (check the columns "
            "used as query ids, and leading zeros, prefixes or the dtype)"
        )
        raise SchemaError(msg)
    if len(matched) == 0:
        run_docs = take(run_ids[1], np.arange(min(3, len(run_ids[1])))).tolist()
        qrels_docs = take(qrels_ids[1], np.arange(min(3, len(qrels_ids[1])))).tolist()
        msg = (
            f"none of the run's documents is judged in the qrels, although {overlap.both} "
            f"queries are in both: run doc ids e.g. {run_docs}, qrels doc ids e.g. "
            f"{qrels_docs}; both must use the same document ids (check the columns used "
            "as doc ids, e.g. PyTerrier's 'docno' rather than its internal 'docid')"
        )
        raise SchemaError(msg)


def _recorded_roles(run: pd.DataFrame, run_cols: ResolvedColumns) -> dict[str, str | bool]:
    """The roles to record on the merged frame: each column used, and ``False`` for a role
    the caller switched off although the run has a column for it (``rank=False``).

    Roles without a column stay unrecorded, so a column added to the merged frame later
    (a time column, say) is found by the usual rules.
    """
    present = set(run.columns)
    roles: dict[str, str | bool] = {}
    for role, name in run_cols.roles().items():
        if name is not None:
            roles[role] = name
        elif role in present or any(other in present for other in SYNONYMS.get(role, ())):
            roles[role] = False
    return roles


def _refuse_mismatched_roles(
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


def _labels_column(
    labels: np.ndarray, row: np.ndarray, judgment: np.ndarray, n_run: int, added: np.ndarray
) -> pd.arrays.IntegerArray:
    """The merged frame's labels: run rows (judged ones from ``judgment``), then ``added``."""
    unlabelled = np.isnan(labels)  # a judgment without a label stays missing
    label_values = np.where(unlabelled, 0, labels).astype(np.int64)  # checked whole numbers
    values = np.zeros(n_run + len(added), dtype=np.int64)  # one allocation of the full column
    values[row] = label_values[judgment]
    values[n_run:] = label_values[added]
    missing = np.ones(n_run + len(added), dtype=bool)
    missing[row] = unlabelled[judgment]
    missing[n_run:] = unlabelled[added]
    return pd.arrays.IntegerArray(values, missing)


def _match(
    run_ids: tuple[pd.Series, pd.Series],
    qrels_ids: tuple[pd.Series, pd.Series],
    judged: tuple[np.ndarray, np.ndarray] | None,
    convert: list[bool],
    doc_keys: tuple[np.ndarray | None, np.ndarray | None],
) -> tuple[np.ndarray, np.ndarray]:
    """Pairs (run row, qrels row) with equal (query, doc).

    The judged docs are a tiny share of a run, so a table lookup of the doc keys
    (:mod:`pdireval._prepare.keys`) first keeps the few rows whose doc may be judged; those are
    then joined on (query, doc) by their keys (``judged``: the qrels' sorted pair keys
    and their order), and the ids of each joined pair compared. Without keys (e.g.
    float or mixed ids) the ids are joined directly; ``convert`` says, for query and
    doc, whether they need comparing as Python objects because their dtypes differ.
    ``doc_keys``: the keys of the run's and of the qrels' doc ids, where computed.
    """
    (run_query, run_doc), (q_query, q_doc) = run_ids, qrels_ids
    run_keys, judged_keys = doc_keys
    candidates = _maybe_judged(run_doc, q_doc, convert[1], run_keys, judged_keys)
    left_ids = (take(run_query, candidates), take(run_doc, candidates))
    left_keys = None
    if judged is not None:  # the candidates' doc keys are the run's, taken
        left_doc_keys = None if run_keys is None else run_keys[candidates]
        left_keys = _pair_keys(*left_ids, left_doc_keys)
    if judged is not None and left_keys is not None:
        rows, judgments = _join_on_keys(left_keys, judged[0], judged[1])
        same = _equal(left_ids[0], rows, q_query, judgments)
        same &= _equal(left_ids[1], rows, q_doc, judgments)
        return candidates[rows[same]], judgments[same]
    keys = {"q": (left_ids[0].array, q_query.array), "d": (left_ids[1].array, q_doc.array)}
    for (name, (left, right)), differ in zip(list(keys.items()), convert, strict=True):
        if differ:
            keys[name] = (_as_python_objects(left), _as_python_objects(right))
    left = pd.DataFrame({"q": keys["q"][0], "d": keys["d"][0], "row": candidates})
    right = pd.DataFrame({"q": keys["q"][1], "d": keys["d"][1], "judgment": np.arange(len(q_doc))})
    matched = left.merge(right, on=["q", "d"], how="inner")
    return matched["row"].to_numpy(), matched["judgment"].to_numpy()


def _maybe_judged(
    run_doc: pd.Series,
    q_doc: pd.Series,
    differ: bool,
    run_keys: np.ndarray | None,
    judged_keys: np.ndarray | None,
) -> np.ndarray:
    """Run rows whose doc may be judged: all rows that are, and a few percent more.

    ``run_keys`` and ``judged_keys`` are the keys of ``run_doc`` and ``q_doc`` (keys
    depend on the values only, whatever the dtype, so they compare); categorical docs
    are looked up by category instead.
    """
    if isinstance(run_doc.dtype, pd.CategoricalDtype) and judged_keys is not None:
        keys = category_keys(run_doc.cat.categories)
        if keys is not None:
            return np.flatnonzero(_key_table_hits(keys, judged_keys)[run_doc.array.codes])
    if run_keys is None or judged_keys is None:
        if differ:
            run_docs = pd.Series(_as_python_objects(run_doc))
            return np.flatnonzero(run_docs.isin(set(_as_python_objects(q_doc))).to_numpy())
        return np.flatnonzero(run_doc.isin(q_doc.unique()).to_numpy())
    return np.flatnonzero(_key_table_hits(run_keys, judged_keys))


def _key_table_hits(keys: np.ndarray, wanted: np.ndarray) -> np.ndarray:
    """Bool per key: may be one of ``wanted`` (always True when it is; rarely when not)."""
    largest = min(_MAX_TABLE_BITS, len(keys).bit_length() + 1)  # no larger than needed
    bits = min(max(len(wanted).bit_length() + _SPARE_BITS, 10), largest)
    table = np.zeros(1 << bits, dtype=bool)
    table[spread(wanted, bits)] = True
    hits = np.empty(len(keys), dtype=bool)
    for begin in range(0, len(keys), _LOOKUP_BLOCK):  # cache-sized pieces, no long temporaries
        piece = keys[begin : begin + _LOOKUP_BLOCK]
        np.take(table, spread(piece, bits), out=hits[begin : begin + len(piece)])
    return hits


def _sorted_pair_keys(
    query: pd.Series, doc: pd.Series, doc_keys: np.ndarray | None
) -> tuple[np.ndarray, np.ndarray] | None:
    """The (query, doc) keys of the qrels (``doc_keys``: their doc ids' keys), sorted,
    and the sorting order.

    None when the ids have no keys or two rows share a key (a repeated judgment, or
    rarely two different pairs).
    """
    keys = None if doc_keys is None else _pair_keys(query, doc, doc_keys)
    if keys is None:
        return None
    distinct, first, _ = _distinct_keys(keys)
    return (distinct, first) if len(distinct) == len(keys) else None


def _join_on_keys(
    left_keys: np.ndarray, sorted_keys: np.ndarray, order: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """Pairs (left row, right row) whose keys are equal; right keys are unique."""
    if not len(order):
        return np.zeros(0, dtype=np.intp), np.zeros(0, dtype=np.intp)
    at = np.minimum(search_scattered(sorted_keys, left_keys)[0], len(order) - 1)
    rows = np.flatnonzero(sorted_keys[at] == left_keys)
    return rows, order[at[rows]]


def _refuse_repeated_judgments(query: pd.Series, doc: pd.Series) -> None:
    duplicated = pd.DataFrame({"q": query.array, "d": doc.array}).duplicated().to_numpy()
    if duplicated.any():
        first = np.flatnonzero(duplicated)[0]
        msg = (
            f"the qrels judge ({query.iloc[first]!r}, {doc.iloc[first]!r}) more than once "
            f"({int(duplicated.sum())} duplicate judgment(s)); keep one label per (query, doc)"
        )
        raise SchemaError(msg)


def _pair_keys(query: pd.Series, doc: pd.Series, doc_keys: np.ndarray | None) -> np.ndarray | None:
    """One key per (query, doc) row (``doc_keys``: the doc ids' keys, or None to compute
    them); None when either column has no keys.
    """
    query_keys = id_keys(query)
    if doc_keys is None:
        doc_keys = id_keys(doc)
    if query_keys is None or doc_keys is None:
        return None
    query_keys *= _PAIR_MIX
    query_keys ^= doc_keys
    return query_keys


def _equal(left: pd.Series, rows: np.ndarray, right: pd.Series, at: np.ndarray) -> np.ndarray:
    """``left[rows] == right[at]`` element-wise, as a bool array."""
    strings = _arrow_strings_at(left, rows), _arrow_strings_at(right, at)
    if strings[0] is not None and strings[1] is not None:  # Arrow compares, no pandas arrays
        import pyarrow.compute as pc

        same = pc.equal(*strings)  # missing never equals: no id is missing here
        return np.asarray(same.to_numpy(zero_copy_only=False), dtype=bool)
    one, other = _values_at(left, rows), _values_at(right, at)
    if one.dtype != other.dtype:
        one, other = _as_python_objects(one), _as_python_objects(other)
    return np.asarray(one == other, dtype=bool)


def _arrow_strings_at(ids: pd.Series, rows: np.ndarray) -> Any:
    """The ids at ``rows`` as Arrow large strings, when they are Arrow strings in one
    chunk or categories :func:`category_strings` holds; else None.
    """
    import pyarrow as pa

    values = ids.array
    if isinstance(values, pd.Categorical):  # string categories taken by the rows' codes
        strings = category_strings(values.categories)
        codes = values.codes[rows]
        if strings is None or (len(codes) and codes.min() < 0):
            return None
        return strings.take(codes)
    chunked = getattr(values, "_pa_array", None)
    if chunked is None or chunked.num_chunks != 1:
        return None
    if not holds_strings(chunked):
        return None
    taken = chunked.chunk(0).take(rows)
    return taken if taken.type == pa.large_string() else taken.cast(pa.large_string())


def _values_at(ids: pd.Series, rows: np.ndarray) -> Any:
    """The ids at ``rows``, categorical ones as their categories' values; numpy data as
    a plain array (numpy compares Python objects several times faster than pandas).
    """
    values = ids.array
    if isinstance(values, pd.Categorical):
        rows, values = values.codes[rows], values.categories.array
    if isinstance(values, pd.arrays.NumpyExtensionArray):
        return np.asarray(values).take(rows)
    return values.take(rows)


def _id_kind(ids: pd.Series) -> str:
    """'number', 'string' or 'other': what matching ids by value needs to agree on."""
    dtype = ids.dtype.categories.dtype if isinstance(ids.dtype, pd.CategoricalDtype) else ids.dtype
    if pd.api.types.is_numeric_dtype(dtype) and not pd.api.types.is_bool_dtype(dtype):
        return "number"
    if isinstance(dtype, pd.StringDtype):
        return "string"
    if isinstance(ids.dtype, pd.CategoricalDtype):  # no missing category: pandas' cached answer
        inferred = ids.dtype.categories.inferred_type
    else:
        inferred = pd.api.types.infer_dtype(ids, skipna=True)
    if inferred == "string":
        return "string"
    if inferred in ("integer", "floating", "mixed-integer-float", "decimal"):
        return "number"
    return "other"


def _matchable(
    run_ids: pd.Series, qrels_ids: pd.Series, role: str, run_kind: str | None = None
) -> bool:
    """Refuse ids that could never match; True when the dtypes differ but the values can.

    ``run_kind``: the kind of the run's ids when already known.
    """
    run_kind, qrels_kind = run_kind or _id_kind(run_ids), _id_kind(qrels_ids)
    if "other" not in (run_kind, qrels_kind) and run_kind != qrels_kind:
        msg = (
            f"{role} ids are {run_kind}s ({run_ids.dtype}) in the run but {qrels_kind}s "
            f"({qrels_ids.dtype}) in the qrels, so none would match; convert one side, "
            f"e.g. qrels[{qrels_ids.name!r}].astype(str)"
        )
        raise SchemaError(msg)
    return run_ids.dtype != qrels_ids.dtype


def _as_python_objects(values: pd.Series | pd.api.extensions.ExtensionArray) -> np.ndarray:
    """Ids as Python objects (ints, strs), so values of different dtypes compare by value."""
    if isinstance(values, np.ndarray) and values.dtype == object:
        return values
    return np.asarray(pd.Series(values).astype(object).to_numpy(), dtype=object)


def _extend_categorical(column: pd.Categorical, extra: object) -> pd.Categorical:
    """``column``'s values followed by ``extra``'s, with ``column``'s categories and codes.

    Values of ``extra`` that are not yet categories are appended as new categories.
    """
    categories = _known_distinct(column.categories)
    extra = pd.Series(extra)
    haystack = series_of(categories)
    if category_strings(categories) is not None:  # compared as the strings it holds
        every = np.arange(len(categories), dtype=column.codes.dtype)
        haystack = series_of(pd.Categorical.from_codes(every, dtype=column.dtype, validate=False))
    codes = _positions_in(haystack, extra, category_keys(categories))
    new = codes < 0
    dtype = column.dtype
    if new.any():
        added, new_codes, _ = _unique_in_order(extra[new])
        codes[new] = len(categories) + new_codes
        combined = added if len(categories) == 0 else _categories_then(categories, added)
        dtype = _categorical_dtype(_known_distinct(combined), bool(column.ordered))
    codes = np.concatenate([column.codes, codes.astype(column.codes.dtype, copy=False)])
    return pd.Categorical.from_codes(codes, dtype=dtype, validate=False)


def _categories_then(categories: pd.Index, added: pd.Index) -> pd.Index:
    """``categories`` followed by ``added``, in the dtype of ``categories``.

    ``Index.append`` infers the dtype of Python objects again: pandas 3 turns object
    categories of strings into its ``str`` dtype (scanning and converting every one),
    pandas 2 scans them to find they are objects.

    Examples
    --------
    >>> import pandas as pd
    >>> _categories_then(pd.Index(["a"], dtype=object), pd.Index(["b"])).dtype
    dtype('O')
    """
    if categories.dtype != object:
        return categories.append(added)
    values = np.concatenate([categories.to_numpy(), added.to_numpy(dtype=object)])
    return pd.Index(values, dtype=object, copy=False)


def _positions_in(
    haystack: pd.Series, needles: pd.Series, haystack_keys: np.ndarray | None
) -> np.ndarray:
    """Position of each needle in ``haystack`` (distinct values, their keys), -1 when absent."""
    position = np.full(len(needles), -1, dtype=np.int64)
    needle_keys = id_keys(needles)
    if haystack_keys is None or needle_keys is None:
        found = pd.Index(haystack).get_indexer(_as_python_objects(needles))
        return found.astype(np.int64)
    candidates = np.flatnonzero(_key_table_hits(haystack_keys, needle_keys))
    distinct, first, of_key = _distinct_keys(needle_keys)
    again = np.flatnonzero(first[of_key] != np.arange(len(needles)))  # repeated keys
    if len(again) and not _equal(needles, again, needles, first[of_key[again]]).all():
        # two different needles share a key: look the candidates up by value
        lookup = pd.Index(_as_python_objects(take(haystack, candidates)))
        at = lookup.get_indexer(_as_python_objects(needles))
        position[at >= 0] = candidates[at[at >= 0]]
        return position
    # Every needle equals the first one with its key: each distinct key is looked up once.
    rows, which = _join_on_keys(haystack_keys[candidates], distinct, np.arange(len(distinct)))
    same = _equal(take(haystack, candidates), rows, needles, first[which])
    found = np.full(len(distinct), -1, dtype=np.int64)
    found[which[same]] = candidates[rows[same]]
    return found[of_key]


def _distinct_keys(keys: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Distinct ``keys`` (sorted), the first row holding each, and each row's distinct key."""
    order = argsort_keys(keys)  # stable: the first row of a key comes first
    ordered = keys[order]
    new = np.ones(len(keys), dtype=bool)
    np.not_equal(ordered[1:], ordered[:-1], out=new[1:])
    of_key = np.empty(len(keys), dtype=np.int64)
    of_key[order] = np.cumsum(new) - 1
    return ordered[new], order[new], of_key


def _unique_in_order(values: pd.Series) -> tuple[pd.Index, np.ndarray, Any]:
    """Distinct values in order of appearance, each value's position among them, and
    the distinct values as Arrow large strings when they are strings (else None).

    Categorical values are read as their categories' values first (factorizing a
    categorical may list the uniques in category order), and Python strings go through
    Arrow (pandas 2 hashes them only up to a NUL character).
    """
    dtype, converted = values.dtype, None
    if isinstance(dtype, pd.CategoricalDtype):
        plain = values.array
        dtype, strings = plain.categories.dtype, category_strings(plain.categories)
        if strings is not None and not (plain.codes < 0).any():  # no Python object read
            converted = string_series(strings.take(plain.codes))
        else:
            values = series_of(plain.categories.take(plain.codes))
    if converted is None:
        converted = arrow_strings(values)
    codes, uniques = pd.factorize(values if converted is None else converted)
    chunked = getattr(pd.Index(uniques).array, "_pa_array", None)
    strings = None if chunked is None else large_strings(chunked)
    if uniques.dtype != dtype:  # Arrow strings of Python strings: back to the ids' dtype
        return pd.Index(np.asarray(uniques, dtype=object), dtype=dtype), codes, strings
    return pd.Index(uniques), codes, strings


def _known_distinct(categories: pd.Index) -> pd.Index:
    """``categories``, marked as known to be distinct and without missing values.

    pandas 2 checks both again, with a hash table of every category, whenever a
    categorical is built from codes, even with ``validate=False``; the marks are the
    answers it caches (pandas internals: without them it checks, slowly but right).
    """
    cache = getattr(categories, "_cache", None)
    if isinstance(cache, dict):
        cache.setdefault("is_unique", True)
        cache.setdefault("hasnans", False)
    return categories


def _categorical_dtype(categories: pd.Index, ordered: bool) -> pd.CategoricalDtype:
    """A dtype for categories known to be distinct, without hashing them all again."""
    fastpath = getattr(pd.CategoricalDtype, "_from_fastpath", None)  # pandas internals
    if fastpath is not None:
        try:
            dtype = fastpath(categories, ordered)
        except TypeError:
            dtype = None
        if isinstance(dtype, pd.CategoricalDtype) and len(dtype.categories) == len(categories):
            return dtype
    return pd.CategoricalDtype(categories, ordered=ordered)
