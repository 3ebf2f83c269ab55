"""trec_eval's rankings of a run, as the preference and judgment-group measures read them.

trec_eval ignores a run file's rank field and sorts each query's documents by score,
descending. Its two readers break ties between equal scores differently: the
preference measures (``-R prefs``, ``-R qrels_prefs``) put the smaller document id first,
the judgment-group measures (``-R qrels_jg``) the larger one, as every other measure of
trec_eval does. Ids are compared as text, byte by byte. ``-M`` keeps the first documents
of each ranking. A frame with a rank column is ranked by it instead (ascending).
"""

from __future__ import annotations

import numpy as np

from pdireval._core.errors import SchemaError
from pdireval.preferences.codes import Codes

__all__ = ["lookup", "positions"]


def positions(
    query: np.ndarray,
    doc: np.ndarray,
    key: np.ndarray,
    *,
    docs: Codes,
    queries: Codes,
    by_rank: bool,
    smaller_id_first: bool,
    max_rank: int | None,
    run: str,
) -> np.ndarray:
    """Each row's place in its query's ranking (0 first; -1 below ``max_rank``).

    ``query`` and ``doc`` are id codes, ``key`` the score (higher first) or, with
    ``by_rank``, the rank (lower first); ties of scores are broken by the ids' text,
    the smaller first with ``smaller_id_first``. ``run`` names the run in messages.

    Raises
    ------
    SchemaError
        A document twice in one query's ranking, or two documents of one rank.
    """
    _refuse_repeated(query, doc, docs, queries, run)
    tie = docs.order[doc] if smaller_id_first else -docs.order[doc]
    primary = key if by_rank else -key
    order = np.lexsort((tie, primary, query))
    if by_rank:
        _refuse_repeated_ranks(query[order], key[order], queries, run)
    sorted_query = query[order]
    start = np.searchsorted(sorted_query, sorted_query, side="left")
    place = np.empty(len(query), dtype=np.int64)
    place[order] = np.arange(len(query), dtype=np.int64) - start
    if max_rank is not None:
        place[place >= max_rank] = -1
    return place


def lookup(
    query: np.ndarray,
    doc: np.ndarray,
    place: np.ndarray,
    want_query: np.ndarray,
    want_doc: np.ndarray,
    n_docs: int,
) -> np.ndarray:
    """The place (see :func:`positions`) of each wanted (query, doc) pair of codes in the
    run whose rows are ``query``, ``doc`` at ``place``; -1 for a pair not ranked.
    """
    ranked = place >= 0
    keys = query[ranked] * max(n_docs, 1) + doc[ranked]
    order = np.argsort(keys, kind="stable")
    keys, places = keys[order], place[ranked][order]
    wanted = want_query * max(n_docs, 1) + want_doc
    at = np.minimum(np.searchsorted(keys, wanted), max(len(keys) - 1, 0))
    hit = (keys[at] == wanted) if len(keys) else np.zeros(len(wanted), dtype=bool)
    return np.where(hit, places[at] if len(keys) else -1, -1)


def _refuse_repeated(
    query: np.ndarray, doc: np.ndarray, docs: Codes, queries: Codes, run: str
) -> None:
    order = np.lexsort((doc, query))
    q, d = query[order], doc[order]
    again = np.flatnonzero((q[1:] == q[:-1]) & (d[1:] == d[:-1]))
    if len(again):
        at = int(again[0])
        msg = (
            f"document {docs.text(int(d[at]))} appears twice in {run} for query "
            f"{queries.text(int(q[at]))}: a ranking lists a document once (trec_eval "
            "stops on it too); drop the repeats, e.g. run.drop_duplicates(['query', 'doc'])"
        )
        raise SchemaError(msg)


def _refuse_repeated_ranks(query: np.ndarray, rank: np.ndarray, queries: Codes, run: str) -> None:
    again = np.flatnonzero((query[1:] == query[:-1]) & (rank[1:] == rank[:-1]))
    if len(again):
        at = int(again[0])
        msg = (
            f"two documents have the rank {rank[at]:g} in {run} for query "
            f"{queries.text(int(query[at]))}; give each document its own rank, or rank "
            "by score (columns={'rank': False})"
        )
        raise SchemaError(msg)
