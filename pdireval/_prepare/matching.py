"""A run matched against its qrels: which run rows are judged, by which judgment, and
which judged documents no run retrieved -- found without building a merged frame.

What matching finds also checks both frames: ids present and of kinds that can match,
each (query, doc) judged once, a run sharing queries and documents with its qrels, and
each document once per (run, query).
"""

from __future__ import annotations

from collections.abc import Hashable
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from pdireval._core.errors import SchemaError
from pdireval._core.roles import ResolvedColumns
from pdireval._prepare import algorithms
from pdireval._prepare.arrays import (
    adjacent_differs,
    arrow_strings,
    scattered_start,
    series_of,
    string_dtype,
    take,
)
from pdireval._prepare.checks import (
    check_no_nulls_in,
    check_unique_docs,
    labels_of,
    matchable,
    refuse_mismatched_roles,
)
from pdireval._prepare.groups import factorize_sorted
from pdireval._prepare.keys import id_keys, python_string_blocks, python_string_keys
from pdireval._prepare.pairs import IdPairs, sorted_pair_keys
from pdireval._prepare.stacked import stacked_column

__all__ = ["Joined", "Matched", "Overlap", "join_resolved", "no_overlap"]

_SHOWN = 10  # ids named in messages and recorded on a merged frame


def no_overlap(error: SchemaError) -> bool:
    """Whether ``error`` says that a non-empty run shares no query, or no document, with
    its qrels (a call of several parts -- judges, collections, seeds -- refuses only when
    no part shares any).
    """
    return bool(getattr(error, "no_overlap", False))


def _no_overlap_error(msg: str) -> SchemaError:
    error = SchemaError(msg)
    error.no_overlap = True  # type: ignore[attr-defined]
    return error


@dataclass(frozen=True)
class Matched:
    """A run's judgments as evaluating the run needs them (no merged frame built).

    ``group`` and ``judged`` have one entry per run row (``judged``: the row has a
    labelled judgment, ``judged_label`` holds those labels in row order); the judged
    documents no run retrieved are ``added_group`` and ``added_label``; ``docs`` are the
    run's doc ids. The ids were checked for missing values and duplicates while matching.
    """

    docs: pd.Series
    group: np.ndarray
    index: pd.Index
    judged: np.ndarray
    judged_label: np.ndarray
    added_group: np.ndarray
    added_label: np.ndarray


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


@dataclass(frozen=True)
class _RunIds:
    """The run's id columns by role, ready to match, and what is known of them."""

    ids: dict[str, pd.Series]
    doc_keys: np.ndarray | None  # keys of the doc ids (None: categorical, or no keys)
    convert: tuple[bool, bool]  # query, doc: compared as Python objects (dtypes differ)
    blocks: bool  # Python-string query ids read as they are (they come in blocks)

    def pairs(self) -> IdPairs:
        """The (query, doc) ids as :func:`~pdireval._prepare.pairs.match_pairs` takes them."""
        return IdPairs(self.ids["query"], self.ids["doc"], self.doc_keys)


def join_resolved(
    run: pd.DataFrame,
    qrels: pd.DataFrame,
    run_cols: ResolvedColumns,
    qrels_cols: ResolvedColumns,
    *,
    check_overlap: bool = True,
    keep_ids: bool = False,
    whole: bool = True,
) -> Joined:
    """Match ``run`` against ``qrels`` as :func:`~pdireval.merge_qrels` does, checking
    both, and group the rows the merged frame would have; no column of that frame is
    built unless ``keep_ids`` (then the converted ids, and the merged run and query id
    columns, are kept; otherwise they are freed once grouped).

    Without ``keep_ids`` the run is about to be evaluated: its documents are checked for
    repeats here, with the keys the matching computed. A merged frame is checked when it
    is evaluated, as every frame is.
    """
    _refuse_unusable_roles(run, qrels, run_cols, qrels_cols)
    theirs, labels = _qrels_ids(qrels, qrels_cols, whole)
    mine = _run_ids(run, run_cols, theirs, keep_ids)
    row, judgment = algorithms.match_pairs(mine.pairs(), theirs, mine.convert)
    found, run_ids = _retrieved_judgments(mine.ids.get("run"), row, judgment, len(qrels))
    missing_run, missing_judgment = np.nonzero(~found)
    added = {
        run_cols.name("query"): theirs.query.array.take(missing_judgment),
        run_cols.name("doc"): theirs.doc.array.take(missing_judgment),
    }
    if run_cols.run is not None and run_ids is not None:
        added[run_cols.run] = run_ids.take(missing_run).array
    # The (run, query) groups, as evaluating the merged frame finds them, are computed
    # once, for the overlap and the duplicate check (which frees the doc keys).
    stacked = {
        name: stacked_column(mine.ids[role], added[name], len(missing_judgment), run_cols.rank)
        for role in ("run", "query")
        if role in mine.ids and (name := run_cols.name(role)) is not None
    }
    by_name: dict[Hashable, pd.Series] = {
        name: series_of(values, name=name) for name, values in stacked.items()
    }
    group, index = algorithms.group_codes(by_name, run_cols)
    if mine.blocks:  # the result's ids as a merged frame's: Arrow strings
        index = _with_string_level(index, run_cols.name("query"))
    overlap = _query_overlap(group, index, len(run), row, run_cols.name("query"), theirs.query)
    if check_overlap and len(run):
        _refuse_no_overlap(overlap, (mine.ids["query"], mine.ids["doc"]), theirs, row)
    ids = mine.ids if keep_ids else {"doc": mine.ids["doc"]}  # messages name the run's own ids
    if not keep_ids:
        check_unique_docs(run, run_cols, group[: len(run)], doc_keys=mine.doc_keys, ids=ids)
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
        stacked=stacked if keep_ids else {},
    )


def _refuse_unusable_roles(
    run: pd.DataFrame, qrels: pd.DataFrame, run_cols: ResolvedColumns, qrels_cols: ResolvedColumns
) -> None:
    """Refuse missing id or label columns, ids read from different columns on the two
    sides, and a run that already has the column the labels would go to.
    """
    refuse_mismatched_roles(run, qrels, run_cols, qrels_cols)
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


def _qrels_ids(
    qrels: pd.DataFrame, qrels_cols: ResolvedColumns, whole: bool = True
) -> tuple[IdPairs, np.ndarray]:
    """The qrels' ids (checked, with their keys) and labels; refuses a (query, doc)
    judged twice.
    """
    query = _as_ids(qrels, qrels_cols.name("query"))
    doc = _as_ids(qrels, qrels_cols.name("doc"))
    check_no_nulls_in({"query": query, "doc": doc}, qrels_cols)
    rel_name = qrels_cols.name("rel")
    labels = labels_of(qrels[rel_name], rel_name, whole=whole)
    doc_keys = id_keys(doc)  # for the pair keys and the lookup of judged docs
    pairs = sorted_pair_keys(query, doc, doc_keys)
    if pairs is None:  # no keys, or two judgments share one: look for repeats exactly
        _refuse_repeated_judgments(query, doc)
    return IdPairs(query, doc, doc_keys, pairs), labels


def _run_ids(
    run: pd.DataFrame, run_cols: ResolvedColumns, theirs: IdPairs, keep_ids: bool
) -> _RunIds:
    """The run's ids by role (checked), its doc keys, and how they compare with the qrels'.

    Python-string ids become Arrow-backed strings once, here: every later step, and
    evaluating a merged frame, then reads their bytes instead of Python objects.
    Without a merged frame, Python-string doc ids keep their dtype -- their keys are
    hashed a block of rows at a time, and no converted copy of them is held -- and so
    do Python-string query ids that come in blocks: the first row of each block stands
    for the rest.
    """
    query_name, doc_name = run_cols.name("query"), run_cols.name("doc")
    doc_keys = None if keep_ids else python_string_keys(run[doc_name])
    blocks = None if keep_ids else python_string_blocks(run[query_name])
    ids = {
        "query": _as_ids(run, query_name) if blocks is None else run[query_name],
        "doc": _as_ids(run, doc_name) if doc_keys is None else run[doc_name],
    }
    if run_cols.run is not None:
        ids["run"] = _as_ids(run, run_cols.run)
    as_they_are = {"query": blocks is not None, "doc": doc_keys is not None}
    # Python strings read as they are were found to be all strings: none is missing.
    check_no_nulls_in({r: v for r, v in ids.items() if not as_they_are.get(r)}, run_cols)
    convert = (
        matchable(ids["query"], theirs.query, "query", "string" if blocks is not None else None),
        matchable(ids["doc"], theirs.doc, "doc", "string" if as_they_are["doc"] else None),
    )
    # Doc keys serve the matching and the duplicate check; categorical docs need none
    # (categories are matched, codes checked for duplicates).
    if doc_keys is None and not isinstance(ids["doc"].dtype, pd.CategoricalDtype):
        doc_keys = id_keys(ids["doc"])
    return _RunIds(ids, doc_keys, convert, blocks is not None)


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
    run_codes, distinct = factorize_sorted(run_ids)  # 32-bit codes, runs read per block
    found = np.zeros((len(distinct), n_judgments), dtype=bool)
    found[run_codes[row], judgment] = True
    return found, distinct


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
        n_qrels = int(qrels_query.nunique(dropna=False))
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
    overlap: Overlap, run_ids: tuple[pd.Series, pd.Series], theirs: IdPairs, matched: np.ndarray
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
        raise _no_overlap_error(msg)
    if len(matched) == 0:
        run_docs = take(run_ids[1], np.arange(min(3, len(run_ids[1])))).tolist()
        qrels_docs = take(theirs.doc, np.arange(min(3, len(theirs.doc)))).tolist()
        msg = (
            f"none of the run's documents is judged in the qrels, although {overlap.both} "
            f"queries are in both: run doc ids e.g. {run_docs}, qrels doc ids e.g. "
            f"{qrels_docs}; both must use the same document ids (check the columns used "
            "as doc ids, e.g. PyTerrier's 'docno' rather than its internal 'docid')"
        )
        raise _no_overlap_error(msg)


def _refuse_repeated_judgments(query: pd.Series, doc: pd.Series) -> None:
    duplicated = pd.DataFrame({"q": query.array, "d": doc.array}).duplicated().to_numpy()
    if duplicated.any():
        first = np.flatnonzero(duplicated)[0]
        msg = (
            f"the qrels judge ({query.iloc[first]!r}, {doc.iloc[first]!r}) more than once "
            f"({int(duplicated.sum())} duplicate judgment(s)); keep one label per (query, doc)"
        )
        raise SchemaError(msg)
