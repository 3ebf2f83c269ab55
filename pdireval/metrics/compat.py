"""Compatibility (Clarke, Vtyurina & Smucker 2021): ``Compat``, the ranking's RBO with an ideal one.

Examples
--------
>>> import pandas as pd, pdireval
>>> df = pd.DataFrame({"query": "q1", "doc": ["a", "b", "c", "e", "d"],
...                    "rank": [1, 2, 3, 4, None], "rel": [0, 2, 1, None, 2]})
>>> pdireval.evaluate(df, ["Compat", "Compat(normalize=False)", "Compat(p=0.5)"]).round(4).T
query                        q1
metric
Compat                   0.4307
Compat(normalize=False)  0.4058
Compat(p=0.5)            0.2599
"""

from __future__ import annotations

import numpy as np

from pdireval._prepare.ranked import Ranked, block_starts, positions_in_blocks, safe_divide
from pdireval.metrics._base import Family, Param, boolean, register, rel_param
from pdireval.metrics.rank_biased import _persistence

__all__ = ["Compat"]


def _ideal_places(ranked: Ranked, rel: int) -> tuple[np.ndarray, ...]:
    """Where the relevant documents stand in the ideal ranking.

    The ideal ranking holds every judged document labelled >= rel, higher labels first;
    among equal labels the retrieved documents come first, in the run's order, then
    the others. Returns, for the retrieved relevant rows, their group and the depth
    from which they are in both rankings (the larger of their two places), and for
    every judged relevant document, its group and its place in the ideal ranking.
    """
    judged = ranked.judged_label >= max(rel, 0)
    judged_label = ranked.judged_label[judged]
    hit = ranked.relevant(rel)
    group, label = ranked.group[hit].astype(np.int64), ranked.label[hit]
    if not len(judged_label):
        empty = np.zeros(0, dtype=np.int64)
        return empty, empty, empty, empty
    grades, codes = np.unique(np.concatenate([judged_label, label]), return_inverse=True)
    width = len(grades)
    higher_first = width - 1 - codes
    ideal = np.sort(
        ranked.judged_group[judged].astype(np.int64) * width + higher_first[: len(judged_label)]
    )
    key = group * width + higher_first[len(judged_label) :]
    above = np.searchsorted(ideal, key) - np.searchsorted(ideal, group * width)
    order = np.argsort(key, kind="stable")  # rows are in rank order inside each group
    among_equal = np.empty(len(key), dtype=np.int64)
    among_equal[order] = positions_in_blocks(block_starts(key[order]), len(key))
    met = np.maximum(ranked.position[hit], above + among_equal)
    ideal_group = ideal // width
    return group, met, ideal_group, positions_in_blocks(block_starts(ideal_group), len(ideal))


def _tails(p: float, longest: int) -> np.ndarray:
    """``tail[m] = sum_{i > m} p^(i-1) / i`` for m = 0..longest (``tail[longest] = 0``),
    each summed from its smallest term.
    """
    i = np.arange(1, longest + 1, dtype=np.float64)
    tail = np.zeros(longest + 1)
    tail[:-1] = np.cumsum((np.power(p, i - 1) / i)[::-1])[::-1]
    return tail


def _compat(ranked: Ranked, *, k: None, rel: int, p: float, normalize: bool) -> np.ndarray:
    # RBO to depth D = max(n, R): sum_{i<=D} p^(i-1) |A_i & B_i| / i over sum_{i<=D} p^(i-1).
    # A document in both rankings from depth m on adds sum_{i=m}^{D} p^(i-1) / i.
    depth = np.maximum(ranked.num_ret, ranked.num_relevant(rel)).astype(np.int64)
    longest = int(depth.max()) if len(depth) else 0
    tail = ranked.cached(("compat_tails", p, longest), lambda: _tails(p, longest))
    group, met, ideal_group, ideal_place = _ideal_places(ranked, rel)
    beyond = tail[depth]
    overlap = np.bincount(group, tail[met - 1] - beyond[group], minlength=ranked.n_groups)
    if normalize:  # over the RBO of the ideal ranking with itself
        best = tail[ideal_place - 1] - beyond[ideal_group]
        value = safe_divide(overlap, np.bincount(ideal_group, best, minlength=ranked.n_groups))
    else:
        value = safe_divide(overlap, -np.expm1(depth * np.log(p)) / (1.0 - p))
    return np.clip(value, 0.0, 1.0)


Compat = register(
    Family(
        "Compat",
        _compat,
        params=(
            rel_param(),
            Param("p", 0.95, _persistence, "RBO's persistence: the weight of depth i is p^(i-1)"),
            Param(
                "normalize",
                True,
                boolean,
                "divide by the ideal ranking's RBO with itself, so that it scores 1",
            ),
        ),
        aliases=("compatibility",),
        doc="""Compatibility (Clarke et al. 2021): rank-biased overlap with an ideal ranking.

        The ideal ranking holds the judged documents labelled >= rel, higher labels
        first. ``Compat = sum_{i<=D} p^(i-1) |A_i & I_i| / i / sum_{i<=D} p^(i-1)``, the
        rank-biased overlap (Webber et al. 2010) of the run's top i documents ``A_i``
        (unjudged ones included) and the ideal ranking's top i ``I_i``, to depth ``D =
        max(n, R)`` (n retrieved, R relevant); p = 0.95 by default. With ``normalize``
        (the default) it is divided by the ideal ranking's overlap with itself, so that
        the ideal ranking scores 1. 0 when the query has no relevant document. Among
        documents of equal label the ideal ranking takes the run's order, retrieved
        documents before the others, so a run is never penalised for an order the
        judgments leave open. This is ir_measures' ``Compat`` (its p and normalize, rel=1
        its ``label > 0``): it orders equal labels by the run's scores, with 0 for a
        document not retrieved, which agrees with the run's order while scores are
        positive and distinct -- with tied or negative scores ir_measures may place an
        unretrieved document before a retrieved one of the same label.

        References
        ----------
        C. L. A. Clarke, A. Vtyurina and M. D. Smucker. Assessing top-k preferences. ACM
        TOIS 39(3), 2021. W. Webber, A. Moffat and J. Zobel. A similarity measure for
        indefinite rankings. ACM TOIS 28(4), 2010.
        """,
    )
)
