"""A run frame and a qrels frame merged into one long frame, roles resolved (the
semantics under :func:`pdireval.merge_qrels`).
"""

from __future__ import annotations

import dataclasses

import numpy as np
import pandas as pd

from pdireval._core.errors import SchemaError
from pdireval._core.roles import (
    ATTRS_KEY,
    SYNONYMS,
    MergeRecord,
    ResolvedColumns,
)
from pdireval._prepare.matching import join_resolved
from pdireval._prepare.stacked import stacked_column

__all__ = ["document_judgments", "has_subtopics", "merge_resolved", "merge_subtopics"]


def has_subtopics(qrels: pd.DataFrame, qrels_cols: ResolvedColumns) -> bool:
    """Whether the qrels judge per subtopic: a column named ``subtopic`` (what
    ``read_qrels(subtopics=True)`` makes) or mapped to the role under another name, or a
    synonym (``iteration``, ``intent``, ...) that varies -- a constant one is TREC's
    unused iteration field.
    """
    subtopic = qrels_cols.subtopic
    if subtopic is None:
        return False
    synonym = subtopic in SYNONYMS["subtopic"]
    return not synonym or qrels[subtopic].nunique(dropna=False) > 1


def document_judgments(
    qrels: pd.DataFrame, qrels_cols: ResolvedColumns
) -> tuple[pd.DataFrame, ResolvedColumns]:
    """The qrels with one judgment per (query, doc): judgments per subtopic give each
    document its best label (as :func:`merge_subtopics` labels its documents); other
    qrels as they are.
    """
    if not has_subtopics(qrels, qrels_cols):
        return qrels, qrels_cols
    query, doc, rel = (qrels_cols.name(role) for role in ("query", "doc", "rel"))
    best = qrels.groupby([query, doc], sort=False, observed=True)[rel].max().reset_index()
    return best, dataclasses.replace(qrels_cols, subtopic=None)


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
    best, best_cols = document_judgments(qrels, qrels_cols)
    merged = merge_resolved(run, best, run_cols, best_cols, check_overlap=check_overlap)
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
    expanded.attrs = {ATTRS_KEY: MergeRecord(record)}
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
        run, qrels, run_cols, qrels_cols, check_overlap=check_overlap, keep_ids=True, whole=False
    )
    rel_name = qrels_cols.name("rel")
    n_added = len(joined.added_judgment)
    doc_name = run_cols.name("doc")
    stacked = dict(joined.stacked)  # the run and query ids, stacked to group them
    stacked[doc_name] = stacked_column(
        joined.ids["doc"], joined.added[doc_name], n_added, run_cols.rank
    )
    columns = {
        name: stacked[name]
        if name in stacked
        else stacked_column(run[name], None, n_added, run_cols.rank)
        for name in run.columns
    }
    columns[rel_name] = _labels_column(
        joined.labels, joined.row, joined.judgment, len(run), joined.added_judgment
    )
    result = pd.DataFrame(columns, index=pd.RangeIndex(len(run) + n_added), copy=False)

    roles = _recorded_roles(run, run_cols)
    roles["rel"] = rel_name
    result.attrs = {ATTRS_KEY: MergeRecord({"columns": roles, "queries": joined.overlap.summary()})}
    return result


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


def _labels_column(
    labels: np.ndarray, row: np.ndarray, judgment: np.ndarray, n_run: int, added: np.ndarray
) -> pd.arrays.IntegerArray | pd.arrays.FloatingArray:
    """The merged frame's labels: run rows (judged ones from ``judgment``), then ``added``;
    whole numbers as nullable integers, fractional labels (LLM probabilities, averaged
    grades) as nullable floats, never rounded.
    """
    unlabelled = np.isnan(labels)  # a judgment without a label stays missing
    label_values = np.where(unlabelled, 0, labels)
    # fractional labels, or whole ones beyond float64's exact integers, stay float64
    fractional = bool(
        np.any((label_values != np.round(label_values)) | (np.abs(label_values) > 2.0**53))
    )
    kind = np.float64 if fractional else np.int64
    label_values = label_values.astype(kind)
    values = np.zeros(n_run + len(added), dtype=kind)  # one allocation of the full column
    values[row] = label_values[judgment]
    values[n_run:] = label_values[added]
    missing = np.ones(n_run + len(added), dtype=bool)
    missing[row] = unlabelled[judgment]
    missing[n_run:] = unlabelled[added]
    if fractional:
        return pd.arrays.FloatingArray(values.astype(np.float64, copy=False), missing)
    return pd.arrays.IntegerArray(values.astype(np.int64, copy=False), missing)
