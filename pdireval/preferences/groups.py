"""trec_eval's judgment-group measures: ``map_avgjg``, ``P_avgjg`` and ``Rprec_mult_avgjg``.

Qrels of several judgment groups (``-R qrels_jg``: users, or assessors) judge each query
several times. Each measure is computed against each group's judgments as the ordinary
measure would be (average precision; precision at a cutoff; precision at a multiple of
R, the group's number of relevant documents) and averaged over the query's groups.
Every group of a query is scored on the same ranking (score descending, ties by the
larger document id first, cut at ``-M``); with ``-J``, each group keeps the documents it
judged. A label of at least the relevance threshold (trec_eval's ``-l``, default 1) is
relevant; a negative label is an unjudged document of the pool.

Per group, from the positions of its relevant retrieved documents (every count is a
``np.bincount`` over the judgments, sorted by group and position):

* ``map_avgjg``: sum of (k / position of the k-th relevant document) over the retrieved
  relevant documents, divided by the group's number of relevant documents R;
* ``P_avgjg_c``: relevant documents in the top c, divided by c;
* ``Rprec_mult_avgjg_x``: ``P_avgjg`` at c = floor(x R + 0.9) (0 when c < 1).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from pdireval._core.errors import SchemaError
from pdireval.preferences.codes import Codes, text_order
from pdireval.preferences.measures import JgMeasure

__all__ = ["JudgmentGroups", "build_groups", "jg_values"]


@dataclass(frozen=True)
class JudgmentGroups:
    """The judgments of every group: per judgment its group, query, document (id codes)
    and label; per group its query. Groups are numbered query by query, in the text
    order of their names.
    """

    n_queries: int
    row_group: np.ndarray
    row_query: np.ndarray
    row_doc: np.ndarray
    row_rel: np.ndarray
    group_query: np.ndarray

    @property
    def n_groups(self) -> int:
        """The number of judgment groups."""
        return len(self.group_query)

    def judged_queries(self) -> np.ndarray:
        """The codes of the queries that have judgments, ascending."""
        return np.unique(self.group_query)


def build_groups(
    query: np.ndarray,
    group: pd.Series,
    doc: np.ndarray,
    rel: np.ndarray,
    queries: Codes,
    docs: Codes,
) -> JudgmentGroups:
    """The judgment groups of a judgment-group frame's rows (``query``, ``doc``: codes).

    Raises
    ------
    SchemaError
        A document judged twice by one group for a query (trec_eval stops on it too).
    """
    codes, names = pd.factorize(group.to_numpy())
    order = text_order(pd.Index(names))
    width = max(len(names), 1)
    unique, row_group = np.unique(query * width + order[codes], return_inverse=True)
    row_group = row_group.reshape(-1).astype(np.int64)
    sorted_rows = np.lexsort((doc, row_group))
    g, d = row_group[sorted_rows], doc[sorted_rows]
    again = np.flatnonzero((g[1:] == g[:-1]) & (d[1:] == d[:-1]))
    if len(again):
        row = int(sorted_rows[again[0]])
        msg = (
            f"document {docs.text(int(doc[row]))} is judged twice by judgment group "
            f"{group.iloc[row]!r} for query {queries.text(int(query[row]))}; a group "
            "judges a document once: drop the repeated judgment"
        )
        raise SchemaError(msg)
    return JudgmentGroups(
        n_queries=len(queries.values),
        row_group=row_group,
        row_query=np.asarray(query, dtype=np.int64),
        row_doc=np.asarray(doc, dtype=np.int64),
        row_rel=np.asarray(rel, dtype=np.float64),
        group_query=(unique // width).astype(np.int64),
    )


def jg_values(
    groups: JudgmentGroups,
    place: np.ndarray,
    measures: list[JgMeasure],
    *,
    judged_only: bool,
    rel_threshold: float,
) -> dict[str, np.ndarray]:
    """The value of each measure for every query code (0 without judgments).

    ``place[i]`` is where the run ranked the document of judgment ``i`` (0 first, -1:
    not ranked, see :func:`pdireval.preferences.ranking.positions`). Precision at a
    cutoff beyond the ranking counts the missing documents as not relevant.
    """
    n_groups = groups.n_groups
    judged = groups.row_rel >= 0
    relevant = judged & (groups.row_rel >= rel_threshold)
    position = _positions(groups, place, judged) if judged_only else place
    num_rel = np.bincount(groups.row_group[relevant], minlength=n_groups)
    hits = np.flatnonzero(relevant & (position >= 0))
    hits = hits[np.lexsort((position[hits], groups.row_group[hits]))]
    hit_group, hit_position = groups.row_group[hits], position[hits]
    per_group: dict[str, np.ndarray] = {}
    for measure in measures:
        if measure.family == "map_avgjg":
            per_group[measure.name] = _average_precision(hit_group, hit_position, num_rel)
            continue
        if measure.family == "P_avgjg":
            cutoff = np.full(n_groups, int(measure.cutoff or 0), dtype=np.int64)
        else:
            cutoff = np.trunc((measure.cutoff or 0.0) * num_rel + 0.9).astype(np.int64)
        per_group[measure.name] = _precision(hit_group, hit_position, cutoff)
    count = np.bincount(groups.group_query, minlength=groups.n_queries)
    return {
        name: np.bincount(groups.group_query, weights=values, minlength=groups.n_queries)
        / np.maximum(count, 1)
        for name, values in per_group.items()
    }


def _positions(groups: JudgmentGroups, place: np.ndarray, judged: np.ndarray) -> np.ndarray:
    """With ``-J``: each judged ranked document's place among those of its group."""
    rows = np.flatnonzero(judged & (place >= 0))
    rows = rows[np.lexsort((place[rows], groups.row_group[rows]))]
    group = groups.row_group[rows]
    start = np.searchsorted(group, group, side="left")
    position = np.full(len(place), -1, dtype=np.int64)
    position[rows] = np.arange(len(rows), dtype=np.int64) - start
    return position


def _average_precision(group: np.ndarray, position: np.ndarray, num_rel: np.ndarray) -> np.ndarray:
    """Per group, from its relevant retrieved documents sorted by position."""
    start = np.searchsorted(group, group, side="left")
    kth = np.arange(len(group), dtype=np.int64) - start + 1
    total = np.bincount(group, weights=kth / (position + 1.0), minlength=len(num_rel))
    return np.where(total > 0, total / np.maximum(num_rel, 1), 0.0)


def _precision(group: np.ndarray, position: np.ndarray, cutoff: np.ndarray) -> np.ndarray:
    """Per group: relevant retrieved documents above its cutoff, over the cutoff (0 for
    a cutoff below 1).
    """
    above = np.bincount(group[position < cutoff[group]], minlength=len(cutoff))
    return np.where(cutoff >= 1, above / np.maximum(cutoff, 1), 0.0)
