"""``merge_qrels``: one long frame from a run frame and a qrels frame, per judge,
collection and seed when the frames have those columns.
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np
import pandas as pd

from pdireval._core.errors import SchemaError
from pdireval._core.options import Qrels, judgments_of
from pdireval._core.roles import ATTRS_KEY, ColumnMap, MergeRecord, ResolvedColumns, as_column_map
from pdireval._prepare.merge import has_subtopics, merge_resolved, merge_subtopics
from pdireval.engine.parts import Part, each_part, has_parts, parts

__all__ = ["merge_qrels"]


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
        document -- with the qrels (the ids of both sides are named). A document the run
        lists twice for one query is kept twice, each row with its label: evaluating
        the frame refuses it, as it refuses any frame with such rows.

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
    qrels = judgments_of(qrels, qrels_columns)
    run_cols = as_column_map(columns).resolve(run)  # the roles of both, once
    qrels_cols = as_column_map(qrels_columns).resolve(qrels)
    judgments = Qrels(qrels, qrels_cols)
    if has_parts(run_cols, judgments):
        return _merge_parts(run, judgments, run_cols)
    if has_subtopics(qrels, qrels_cols):
        return merge_subtopics(run, qrels, run_cols, qrels_cols)
    return merge_resolved(run, qrels, run_cols, qrels_cols)


def _merge_parts(run: pd.DataFrame, judgments: Qrels, roles: ResolvedColumns) -> pd.DataFrame:
    """:func:`merge_qrels` per judge and collection: each part merged on its own, the
    judge's name added to its rows, the parts stacked in their order.
    """
    qrels = judgments.frame
    if roles.judge is not None:
        msg = (
            "the run has a judge column; merge_qrels adds the judges' labels to a run "
            "without labels: drop the column, or give the judgments of each judge in qrels="
        )
        raise SchemaError(msg)
    found = parts(run, roles, judgments)
    run_cols = roles.without_parts()
    qrels_cols = judgments.roles.without_parts()
    judge = found.names.get("judge")
    if judge is not None and judge in run.columns:
        msg = (
            f"the run already has a column {judge!r}, the name of the qrels' judge column; "
            "rename one of them before merge_qrels"
        )
        raise SchemaError(msg)
    merged = []
    if not found.items:  # nothing to merge: the empty frame, with the judge column
        empty = merge_resolved(
            run.iloc[:0], qrels.iloc[:0], run_cols, qrels_cols, check_overlap=False
        )
        if judge is not None:
            empty[judge] = qrels[judge].iloc[:0].to_numpy()
        merged.append(empty)

    def merged_part(part: Part, check: bool) -> pd.DataFrame:
        labels = part.qrels if part.qrels is not None else qrels.iloc[:0]
        if has_subtopics(labels, qrels_cols):
            return merge_subtopics(part.frame, labels, run_cols, qrels_cols, check_overlap=check)
        return merge_resolved(part.frame, labels, run_cols, qrels_cols, check_overlap=check)

    pieces = each_part(found.items, merged_part)
    for part in found.items:
        one = pieces[part.key]
        for role, name in found.names.items():  # the part's value on every row, also
            value = part.key[list(found.names).index(role)]  # on the judged rows added
            source = qrels[name] if role == "judge" else run[name]
            one[name] = pd.Series(
                np.repeat(np.asarray([value], dtype=object), len(one)),
                index=one.index,
                dtype=source.dtype,
            )
        merged.append(one)
    result = pd.concat(merged, ignore_index=True)
    record = dict(merged[0].attrs[ATTRS_KEY])
    recorded = {**record.get("columns", {}), **found.names}
    result.attrs = {ATTRS_KEY: MergeRecord({"columns": recorded})}
    return result
