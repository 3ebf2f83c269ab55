"""Hypothesis strategies that build valid long frames (DESIGN §1).

:func:`long_frames` draws what breaks naive evaluators while staying inside the
contract: several queries (ids whose string order differs from their numeric
order), unique documents per query, retrieved documents ranked 1..n by a rank
column or by scores with many ties, judged-but-unretrieved rows (missing rank or
score), retrieved-but-unjudged rows (missing label), negative labels ("pooled but
unjudged"), queries with no judgment or nothing retrieved, an optional run column
whose runs share the judgments of a query, and a ``known`` column.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd
from hypothesis import strategies as st

__all__ = ["LABELS", "long_frames", "perfect_ranking"]

#: Query ids: "10" < "9" < "q1" as strings; non-ASCII and punctuation included.
QUERY_IDS = ("1", "9", "10", "101", "q1", "q2", "q10", "topic-7", "é3", "Q 5")
#: Document ids: "d10" sorts before "d9" (trec_eval breaks score ties with strcmp).
DOC_IDS = (*(f"d{i}" for i in range(16)), "D1", "doc#1", "x-1", "ä")
#: Judged labels; ``None`` (drawn separately) means not judged.
LABELS = (-1, 0, 1, 2, 3)
RUN_IDS = ("bm25", "dense", "rm3")
#: Few distinct scores, so ties are frequent.
SCORES = (-1.5, 0.0, 0.25, 1.0, 2.5, 7.0)


@st.composite
def long_frames(
    draw: st.DrawFn,
    *,
    ranking: str | None = None,
    runs: bool | None = None,
    max_queries: int = 5,
    max_docs: int = 12,
) -> pd.DataFrame:
    """A valid long frame with columns query, doc, rel, rank or score, maybe run and known.

    Parameters
    ----------
    ranking : {"rank", "score"}, optional
        Which column orders the retrieved documents (drawn when omitted).
    runs : bool, optional
        Whether to add a run column with one to three runs (drawn when omitted).
    max_queries, max_docs : int
        Upper bounds on the number of queries and on each query's document pool.
    """
    ranking = draw(st.sampled_from(["rank", "score"])) if ranking is None else ranking
    with_run = draw(st.booleans()) if runs is None else runs
    run_ids: list[Any] = (
        draw(st.lists(st.sampled_from(RUN_IDS), min_size=1, max_size=3, unique=True))
        if with_run
        else [None]
    )
    queries = draw(
        st.lists(st.sampled_from(QUERY_IDS), min_size=1, max_size=max_queries, unique=True)
    )
    rows: list[dict[str, Any]] = []
    for query in queries:
        docs = draw(st.lists(st.sampled_from(DOC_IDS), min_size=1, max_size=max_docs, unique=True))
        # One judgment per (query, doc), shared by every run; None = not judged.
        labels = draw(
            st.lists(
                st.one_of(st.none(), st.sampled_from(LABELS)),
                min_size=len(docs),
                max_size=len(docs),
            )
        )
        for run in run_ids:
            retrieved = draw(st.lists(st.booleans(), min_size=len(docs), max_size=len(docs)))
            ranked_docs = [doc for doc, hit in zip(docs, retrieved, strict=True) if hit]
            order = draw(st.permutations(ranked_docs))
            scores = draw(
                st.lists(st.sampled_from(SCORES), min_size=len(order), max_size=len(order))
            )
            rank_of = {doc: position for position, doc in enumerate(order, start=1)}
            score_of = dict(zip(order, scores, strict=True))
            for doc, label in zip(docs, labels, strict=True):
                if doc not in rank_of and label is None:
                    continue  # neither retrieved nor judged: not a row of a long frame
                row: dict[str, Any] = {"query": query, "doc": doc, "rel": label}
                if ranking == "rank":
                    row["rank"] = rank_of.get(doc)
                else:
                    row["score"] = score_of.get(doc)
                if run is not None:
                    row["run"] = run
                rows.append(row)
    columns = (["run"] if with_run else []) + ["query", "doc", ranking, "rel"]
    frame = pd.DataFrame(rows, columns=columns)

    # Column dtypes users have: float with NaN or nullable Int64 for labels and ranks (plain
    # int64 when nothing is missing); query ids as strings, integers or a categorical.
    rel_dtypes = ["float64", "Int64"] + (["int64"] if frame["rel"].notna().all() else [])
    frame["rel"] = pd.Series(
        frame["rel"].tolist(), index=frame.index, dtype=draw(st.sampled_from(rel_dtypes))
    )
    order_dtypes = ["float64"]
    if ranking == "rank":
        order_dtypes += ["Int64"] + (["int64"] if frame["rank"].notna().all() else [])
    frame[ranking] = pd.Series(
        frame[ranking].tolist(), index=frame.index, dtype=draw(st.sampled_from(order_dtypes))
    )
    query_kind = draw(st.sampled_from(["str", "int", "category"]))
    if query_kind == "int":
        frame["query"] = frame["query"].map(QUERY_IDS.index).astype("int64") * 7 + 3
    elif query_kind == "category":
        frame["query"] = frame["query"].astype(pd.CategoricalDtype(sorted(QUERY_IDS)))
    # Always known and time columns: families that read them refuse frames without them.
    known = draw(st.lists(st.booleans(), min_size=len(frame), max_size=len(frame)))
    frame["known"] = pd.Series(known, index=frame.index, dtype=bool)
    frame["time"] = 0.001 * frame["query"].astype(str).str.len().astype(float)  # per query
    layout = draw(st.sampled_from(["as drawn", "sorted", "shuffled"]))
    if layout == "sorted" and ranking == "rank":  # the pre-sorted fast path
        keys = (["run"] if with_run else []) + ["query", "rank"]
        frame = frame.sort_values(keys, na_position="last", kind="stable")
    elif layout == "shuffled" and len(frame) > 1:
        permutation = draw(st.permutations(range(len(frame))))
        frame = frame.iloc[list(permutation)]
    if draw(st.booleans()):
        frame = frame.reset_index(drop=True)
    return frame


def perfect_ranking(frame: pd.DataFrame) -> pd.DataFrame:
    """Re-rank every (run,) query ideally: all judged documents retrieved, by label descending.

    Unjudged retrieved documents come after the judged ones. Returns a new frame
    with a ``rank`` column (no score column).
    """
    keys = ["run", "query"] if "run" in frame.columns else ["query"]
    out = frame.drop(columns=[c for c in ("rank", "score") if c in frame.columns]).copy()
    label = out["rel"].astype("float64").to_numpy(na_value=np.nan)
    out["_key"] = np.where(np.isnan(label), -np.inf, label)
    out = out.sort_values([*keys, "_key", "doc"], ascending=[True] * len(keys) + [False, True])
    out["rank"] = out.groupby(keys, sort=False, observed=True).cumcount() + 1
    return out.drop(columns="_key")
