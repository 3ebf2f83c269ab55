"""Depth-k pooling: which documents to judge, and what each run brings to the pool.

TREC-style test collections are judged by pooling: the top k documents of every
submitted run are merged, and only that pool is judged (Spärck Jones & van Rijsbergen
1975; Voorhees & Harman 2005). A run whose relevant documents no other run found
makes the collection more complete; a run that was not pooled is measured against
judgments it had no part in -- ``Judged@k`` tells how much of its ranking was judged.

Examples
--------
>>> import pandas as pd, pdireval
>>> runs = pd.DataFrame({"run": ["a", "a", "b", "b"], "query": "q1",
...                      "doc": ["d1", "d2", "d2", "d3"], "score": [2.0, 1.0, 2.0, 1.0]})
>>> pdireval.pool(runs, depth=1)
  query doc  runs  best_rank
0    q1  d1     1          1
1    q1  d2     1          1
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np
import pandas as pd

from pdireval._core.errors import ParameterError, SchemaError
from pdireval._core.roles import as_column_map
from pdireval._prepare.arrays import take
from pdireval._prepare.merge import document_judgments
from pdireval._prepare.prepare import positions
from pdireval.engine.evaluate import documents
from pdireval.engine.merge import merge_qrels

if TYPE_CHECKING:
    from pdireval.typing import ColumnsLike

__all__ = ["pool", "pool_contribution"]


def _depth(depth: object) -> int:
    if isinstance(depth, bool) or not isinstance(depth, int | np.integer) or depth < 1:
        msg = f"depth={depth!r} must be a whole number >= 1 (documents taken from each ranking)"
        raise ParameterError(msg)
    return int(depth)


def _pooled_rows(
    frame: pd.DataFrame, depth: int, columns: ColumnsLike
) -> tuple[pd.DataFrame, str, str, str | None]:
    """The (run, query, doc, position) of every row within the top ``depth``."""
    frame, resolved = documents(frame, as_column_map(columns).resolve(frame))
    position, _ = positions(frame, resolved)
    rows = np.flatnonzero(position <= depth)
    query, doc = resolved.name("query"), resolved.name("doc")
    table = pd.DataFrame(
        {
            query: take(frame[query], rows).array,
            doc: take(frame[doc], rows).array,
            "position": position[rows].astype(np.int64),
        }
    )
    if resolved.run is not None:
        table.insert(0, resolved.run, take(frame[resolved.run], rows).array)
    return table, query, doc, resolved.run


def pool(frame: pd.DataFrame, depth: int = 100, *, columns: ColumnsLike = None) -> pd.DataFrame:
    """The depth-k pool of the runs of a frame: every document some run ranks in its top k.

    Parameters
    ----------
    frame : DataFrame
        Runs: query, doc and rank or score columns, and a run column for several runs
        (a frame without one is a single run). Judged-but-unretrieved rows (no rank or
        score) are not pooled.
    depth : int
        How many documents each ranking contributes (TREC pools are often 100 deep).
    columns : ColumnMap or dict, optional
        Which column plays which role.

    Returns
    -------
    DataFrame
        One row per pooled (query, doc), sorted by query then doc: the query and doc
        columns, ``runs`` (how many runs put the document in their top k) and
        ``best_rank`` (its best position in any of them). ``pool(...).groupby(query)
        .size()`` is the pool size of each query.

    Raises
    ------
    SchemaError
        Missing columns, missing ids, or a document twice in one ranking.
    MetricError
        ``depth`` is not a whole number >= 1.

    Notes
    -----
    Each ranking is ordered as evaluation orders it: the rank column, else the score
    descending with ties broken by doc id descending (trec_eval's rule), so the pool
    is the documents at positions 1..k of the rankings pdireval evaluates.

    References
    ----------
    K. Spärck Jones and C. J. van Rijsbergen. Report on the need for and provision of an
    "ideal" information retrieval test collection. 1975. E. M. Voorhees and D. K.
    Harman (eds.). TREC: Experiment and Evaluation in Information Retrieval. MIT Press,
    2005.

    Examples
    --------
    >>> import pdireval
    >>> from pdireval.datasets import example_run
    >>> pooled = pdireval.pool(example_run(), depth=10)
    >>> pooled.groupby("query").size().describe()[["min", "max"]].tolist()
    [18.0, 27.0]
    """
    depth = _depth(depth)
    rows, query, doc, run = _pooled_rows(frame, depth, columns)
    grouped = rows.groupby([query, doc], sort=True, observed=True)
    table = pd.DataFrame(
        {
            "runs": grouped.size() if run is None else grouped[run].nunique(),
            "best_rank": grouped["position"].min(),
        }
    ).reset_index()
    return table.astype({"runs": np.int64, "best_rank": np.int64})


def pool_contribution(
    frame: pd.DataFrame,
    qrels: pd.DataFrame | None = None,
    *,
    depth: int = 100,
    rel: int = 1,
    columns: ColumnsLike = None,
    qrels_columns: ColumnsLike = None,
) -> pd.DataFrame:
    """What each run brings to the depth-k pool, and how much of it is judged.

    Parameters
    ----------
    frame : DataFrame
        Runs with a run column, as for :func:`pool`.
    qrels : DataFrame, optional
        Judgments (query, doc, rel); with them, the relevant documents each run alone
        found, and how much of each run's top k is judged.
    depth : int
        Pool depth.
    rel : int
        Minimum label counted as relevant.
    columns, qrels_columns : ColumnMap or dict, optional
        Column roles of the runs and of the qrels.

    Returns
    -------
    DataFrame
        One row per run: ``pooled`` (documents it put in the pool), ``unique`` (of those,
        documents no other run pooled); with qrels, ``unique_relevant`` (unique documents
        judged relevant: what the pool would lose without the run) and ``judged``
        (share of its pooled documents that are judged: its ``Judged@depth`` over all its
        queries).

    Raises
    ------
    SchemaError
        No run column, or the qrels judge a (query, doc) twice.

    Examples
    --------
    >>> import pdireval
    >>> from pdireval.datasets import example_qrels, example_run
    >>> table = pdireval.pool_contribution(example_run(), example_qrels(), depth=10)
    >>> [int(count) for count in table.loc["strong", ["pooled", "unique"]]]
    [500, 218]
    """
    depth = _depth(depth)
    rows, query, doc, run = _pooled_rows(frame, depth, columns)
    if run is None:
        msg = (
            "pool_contribution compares runs: the frame needs a run column (name it 'run' "
            "or map it with columns={'run': '<column>'})"
        )
        raise SchemaError(msg)
    nunique = rows.groupby([query, doc], sort=False, observed=True)[run].transform("nunique")
    alone = nunique.to_numpy() == 1
    by_run = rows[run].to_numpy()
    table = pd.DataFrame(
        {
            "pooled": rows.groupby(run, sort=True, observed=True).size(),
            "unique": pd.Series(alone).groupby(by_run, sort=True).sum(),
        }
    ).astype(np.int64)
    table.index.name = run
    if qrels is None:
        return table
    ids = rows[[run, query, doc]]
    judgments, judged_cols = document_judgments(qrels, as_column_map(qrels_columns).resolve(qrels))
    merged = merge_qrels(  # one row per run row, then the judged documents no run pooled
        ids,
        judgments,
        columns={"run": run, "query": query, "doc": doc},
        qrels_columns=judged_cols.explicit(),
    )
    rel_name = next(name for name in merged.columns if name not in ids.columns)
    label = merged[rel_name].to_numpy(dtype=np.float64, na_value=np.nan)[: len(rows)]
    relevant = (label >= max(rel, 0)) & alone
    table["unique_relevant"] = pd.Series(relevant).groupby(by_run, sort=True).sum().astype(np.int64)
    table["judged"] = pd.Series(label >= 0).groupby(by_run, sort=True).mean()
    return table
