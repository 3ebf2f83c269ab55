"""User-oriented measures: coverage, novelty, relative recall, ...

Korfhage (1997) and Baeza-Yates & Ribeiro-Neto (Modern Information Retrieval, ch. 3)
define them over three sets of one query: R, the relevant documents (judged with a
label >= ``rel``); A, the answer set; and K, the documents the user already knew --
the boolean ``known`` column of the frame (role ``known``; a missing value means
False). The definitions leave A informal; here A is the retrieved documents, or the
top k of them with ``@k``.

``Coverage`` and ``Novelty`` need the known column; they are refused on a frame
without one. Where a ratio has nothing to divide by, the choice is stated per measure:
``Coverage`` and ``Novelty`` are NaN when undefined (the user knew no relevant
document; nothing relevant was retrieved) -- :func:`pdireval.summary` then averages
over the queries where they are defined -- while ``Satisfaction`` and ``Frustration``
are 0 when nothing was retrieved, as trec_eval's precision is.

Examples
--------
>>> import pandas as pd, pdireval
>>> df = pd.DataFrame({"query": ["q1"] * 5, "doc": ["a", "b", "c", "d", "e"],
...                    "rank": [1, 2, 3, 4, None], "rel": [1, 0, 1, 1, 1],
...                    "known": [True, False, False, False, True]})
>>> pdireval.evaluate(df, ["Coverage", "Novelty", "RelativeRecall(n=2)", "ESL(n=2)"])
metric  Coverage   Novelty  RelativeRecall(n=2)  ESL(n=2)
query
q1           0.5  0.666667                  1.0       1.0
"""

from __future__ import annotations

import numpy as np

from pdireval._prepare.ranked import Ranked, safe_divide
from pdireval.metrics._base import Family, Param, integer_at_least, register, rel_param

__all__ = [
    "ESL",
    "Coverage",
    "Frustration",
    "Novelty",
    "RecallEffort",
    "RelativeRecall",
    "Satisfaction",
    "expected_search_length",
]


def _known(ranked: Ranked) -> tuple[np.ndarray, np.ndarray]:
    """The known flags of the judged retrieved rows and of all judged rows."""
    known = ranked.known if ranked.known is not None else np.zeros(len(ranked.group), bool)
    judged = ranked.judged_known
    return known, judged if judged is not None else np.zeros(len(ranked.judged_group), bool)


def _answered(ranked: Ranked, k: int | None) -> np.ndarray | None:
    """Mask of the rows in the answer set A (the top k), or None for all retrieved rows."""
    return None if k is None else ranked.position <= k


def _restrict(mask: np.ndarray, answered: np.ndarray | None) -> np.ndarray:
    return mask if answered is None else mask & answered


def _undefined_divide(numerator: np.ndarray, denominator: np.ndarray) -> np.ndarray:
    """``numerator / denominator`` with NaN where the denominator is 0."""
    out = np.full(np.broadcast(numerator, denominator).shape, np.nan)
    np.divide(numerator, denominator, out=out, where=denominator != 0)
    return out


def _coverage(ranked: Ranked, *, k: int | None, rel: int) -> np.ndarray:
    known, judged_known = _known(ranked)
    known_relevant = judged_known & (ranked.judged_label >= max(rel, 0))
    total = np.bincount(ranked.judged_group[known_relevant], minlength=ranked.n_groups)
    found = ranked.per_query_count(_restrict(ranked.relevant(rel) & known, _answered(ranked, k)))
    return _undefined_divide(found, total.astype(np.float64))


def _novelty(ranked: Ranked, *, k: int | None, rel: int) -> np.ndarray:
    known, _ = _known(ranked)
    found = _restrict(ranked.relevant(rel), _answered(ranked, k))
    return _undefined_divide(ranked.per_query_count(found & ~known), ranked.per_query_count(found))


def _n_param() -> Param:
    return Param("n", 1, integer_at_least(1), "number of relevant documents the user wants")


def _relative_recall(ranked: Ranked, *, k: int | None, rel: int, n: int) -> np.ndarray:
    found = ranked.per_query_count(_restrict(ranked.relevant(rel), _answered(ranked, k)))
    return np.minimum(found, n) / n


def _nth_relevant(ranked: Ranked, rel: int, n: int) -> np.ndarray:
    """Mask of the n-th relevant retrieved row of each group (none when fewer)."""
    return ranked.relevant(rel) & (ranked.relevant_so_far(rel) == n)


def _recall_effort(ranked: Ranked, *, k: None, rel: int, n: int) -> np.ndarray:
    nth = _nth_relevant(ranked, rel, n)
    return ranked.per_query_sum(n / ranked.position, nth)


def expected_search_length(
    group: np.ndarray,
    level_first: np.ndarray,
    level_last: np.ndarray,
    relevant: np.ndarray,
    n: int,
    n_groups: int,
) -> np.ndarray:
    """Cooper's expected search length per group, from the tie levels of the judged rows.

    Parameters
    ----------
    group : ndarray of int
        Group of each judged retrieved row, rows in (group, position) order.
    level_first, level_last : ndarray of int
        First and last position of the level (run of tied documents) holding each
        row; a row's own position twice when the ranking has no ties. Documents of a
        level that are not rows here (unjudged ones) count as non-relevant.
    relevant : ndarray of bool
        Whether each row is relevant.
    n : int
        Number of relevant documents wanted.
    n_groups : int
        Number of groups.

    Returns
    -------
    ndarray of float
        ``j + i * s / (r + 1)`` per group, where the n-th relevant document lies in
        a level with r relevant and i non-relevant documents, j non-relevant
        documents precede that level and s relevant documents are still wanted when
        it starts; NaN when fewer than n relevant documents were retrieved.

    Examples
    --------
    Two levels: {a: relevant, b: not} at positions 1-2, then {c, d, e: one relevant}
    at 3-5. Wanting n = 2: j = 1, r = 1, i = 2, s = 1, so 1 + 2 * 1 / 2 = 2.

    >>> import numpy as np
    >>> expected_search_length(np.array([0, 0, 0]), np.array([1, 1, 3]),
    ...                        np.array([2, 2, 5]), np.array([True, False, True]), 2, 1)
    array([2.])
    """
    rows = np.flatnonzero(relevant)
    out = np.full(n_groups, np.nan)
    if not len(rows):
        return out
    g, first, last = group[rows], level_first[rows], level_last[rows]
    new_group = np.r_[True, g[1:] != g[:-1]]
    new_level = new_group | np.r_[True, first[1:] != first[:-1]]
    # 1-based count of the relevant row inside its group
    index = np.arange(len(rows))
    count = index - np.maximum.accumulate(np.where(new_group, index, 0)) + 1
    level = np.cumsum(new_level) - 1
    before = (count[new_level] - 1)[level]  # relevant documents in earlier levels
    in_level = np.bincount(level)[level]
    target = count == n
    r, s = in_level[target], n - before[target]
    i = (last - first + 1)[target] - r
    j = (first[target] - 1) - before[target]
    out[g[target]] = j + i * s / (r + 1)
    return out


def _esl(ranked: Ranked, *, k: None, rel: int, n: int) -> np.ndarray:
    if ranked.tie_first is None:  # arrays built by hand: each document its own level
        first = last = ranked.position
    else:  # the levels are the groups of equal scores, whatever the tie policy
        first = ranked.tie_first
        last = ranked.tie_first + ranked.tie_size - 1
    return expected_search_length(
        ranked.group, first, last, ranked.relevant(rel), n, ranked.n_groups
    )


def _shown(ranked: Ranked, k: int | None) -> np.ndarray:
    """Number of documents in the answer set: the retrieved ones, at most k."""
    return ranked.num_ret if k is None else np.minimum(ranked.num_ret, k)


def _satisfaction(ranked: Ranked, *, k: int | None, rel: int) -> np.ndarray:
    found = ranked.per_query_count(_restrict(ranked.relevant(rel), _answered(ranked, k)))
    return safe_divide(found, _shown(ranked, k))


def _frustration(ranked: Ranked, *, k: int | None, rel: int) -> np.ndarray:
    judged_nonrelevant = (ranked.label >= 0) & ~ranked.relevant(rel)
    wasted = ranked.per_query_count(_restrict(judged_nonrelevant, _answered(ranked, k)))
    return safe_divide(wasted, _shown(ranked, k))


Coverage = register(
    Family(
        "Coverage",
        _coverage,
        needs=("known",),
        params=(rel_param(),),
        cutoff="optional",
        aliases=("coverage_ratio",),
        doc="""Coverage ratio: share of the relevant documents the user knew that were retrieved.

        ``Coverage = |K ∩ R ∩ A| / |K ∩ R|`` (Korfhage 1997), K the documents flagged
        in the ``known`` column, R those labelled >= rel, A the retrieved documents (the
        top k with ``@k``). NaN when the user knew no relevant document (K ∩ R empty).
        """,
    )
)

Novelty = register(
    Family(
        "Novelty",
        _novelty,
        needs=("known",),
        params=(rel_param(),),
        cutoff="optional",
        aliases=("novelty_ratio",),
        doc="""Novelty ratio: share of the relevant retrieved documents the user did not know.

        ``Novelty = |(R ∩ A) − K| / |R ∩ A|`` (Korfhage 1997), sets as in ``Coverage``.
        NaN when no relevant document was retrieved (R ∩ A empty).
        """,
    )
)

RelativeRecall = register(
    Family(
        "RelativeRecall",
        _relative_recall,
        params=(rel_param(), _n_param()),
        cutoff="optional",
        aliases=("relative_recall",),
        doc="""Relative recall: relevant documents found over the number n the user expected.

        ``RelativeRecall = min(|R ∩ A|, n) / n`` (Korfhage 1997: the number found over
        the number the user expected). Capped at 1: a user who finds the n documents expected stops
        searching (Baeza-Yates & Ribeiro-Neto's reading), so finding more is not more
        than enough. A is the retrieved documents, or the top k with ``@k``.
        """,
    )
)

RecallEffort = register(
    Family(
        "RecallEffort",
        _recall_effort,
        params=(rel_param(), _n_param()),
        aliases=("recall_effort",),
        doc="""Recall effort: n wanted relevant documents over the documents read to find them.

        ``RecallEffort = n / rank of the n-th relevant document`` (Korfhage 1997: the number
        expected over the number examined until all are found); unjudged documents are
        examined like any other. 0 when fewer than n relevant documents were retrieved (the
        search never succeeds: unbounded effort). With n = 1 it equals ``RR``.
        """,
    )
)

ESL = register(
    Family(
        "ESL",
        _esl,
        params=(rel_param(), _n_param()),
        bounded=False,
        aliases=("expected_search_length",),
        doc="""Cooper's expected search length: non-relevant documents read to find n relevant.

        For a ranking split into levels of tied documents, with the n-th relevant
        document in a level of r relevant and i non-relevant documents, j non-relevant
        documents before that level and s relevant documents still wanted when it
        starts, ``ESL = j + i * s / (r + 1)`` (Cooper 1968, made for weakly
        ordered rankings). NaN when fewer than n relevant documents were
        retrieved. The levels are the groups of equal scores, so ESL does not depend on
        ``ties=``; with a rank column (or no ties) every level holds one document and
        ``ESL = rank of the n-th relevant - n``.

        References: W. S. Cooper (1968), Expected search length: a single measure of
        retrieval effectiveness based on the weak ordering action of retrieval
        systems, American Documentation 19(1).
        """,
    )
)

Satisfaction = register(
    Family(
        "Satisfaction",
        _satisfaction,
        params=(rel_param(),),
        cutoff="optional",
        doc="""Satisfaction: share of the returned documents that are relevant.

        ``Satisfaction@k = |R ∩ A_k| / |A_k|``, A_k the top min(k, retrieved) documents (all
        retrieved without ``@k``) -- the share of relevant documents among those returned.
        Unlike ``P@k`` it divides by what was returned, not by k; without a cutoff it equals
        ``SetP``. 0 when nothing was retrieved.
        """,
    )
)

Frustration = register(
    Family(
        "Frustration",
        _frustration,
        params=(rel_param(),),
        cutoff="optional",
        doc="""Frustration: share of the returned documents judged non-relevant.

        ``Frustration@k = |N ∩ A_k| / |A_k|``, N the documents judged with a label in [0,
        rel), A_k as in ``Satisfaction`` -- the share of non-relevant documents among those
        returned. Unjudged documents (no label, or a negative one) are neither satisfying
        nor frustrating, so ``Satisfaction + Frustration`` is 1 minus the unjudged share,
        and exactly 1 under complete judgments. 0 when
        nothing was retrieved.
        """,
    )
)
