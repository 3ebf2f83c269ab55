"""Judgment coverage: ``Judged@k``, the fraction of the top k that carries a judgment, and
trec_eval 10's ``Unjudged@k`` (``unj_k``), the fraction of k that does not.
"""

from __future__ import annotations

import numpy as np

from pdireval._prepare.ranked import Ranked, safe_divide
from pdireval.metrics._base import Family, Param, TrecMeasure, one_of, register


def _judged(ranked: Ranked, *, k: int | None, negative: str) -> np.ndarray:
    judged = ranked.label >= 0 if negative == "unjudged" else ~np.isnan(ranked.label)
    if k is None:
        return safe_divide(ranked.per_query_count(judged), ranked.num_ret)
    top = ranked.per_query_count(judged & (ranked.position <= k))
    return safe_divide(top, np.minimum(ranked.num_ret, k))


Judged = register(
    Family(
        "Judged",
        _judged,
        params=(
            Param(
                "negative",
                "judged",
                one_of("judged", "unjudged"),
                "whether a negative label counts as a judgment ('judged', as ir_measures) "
                "or marks a pooled but unjudged document ('unjudged', as trec_eval)",
            ),
        ),
        cutoff="optional",
        cutoff_aliases=("judged",),
        doc="""Fraction of the top k documents that carry a judgment.

        ``Judged@k = |{judged documents at positions 1..k}| / min(k, retrieved)``, as
        ir_measures' ``Judged@k``; without k, of all retrieved documents (0 when nothing
        was retrieved). A negative label counts as a judgment, as in ir_measures;
        ``Judged(negative='unjudged')`` reads it as trec_eval does, a pooled document
        nobody judged. With ``judged_only=True`` every remaining document is judged.
        """,
    )
)


def _unjudged(ranked: Ranked, *, k: int | None) -> np.ndarray:
    judged = ranked.label >= 0
    if k is None:
        return safe_divide(ranked.num_ret - ranked.per_query_count(judged), ranked.num_ret)
    top = ranked.per_query_count(judged & (ranked.position <= k))
    return (np.minimum(ranked.num_ret, k) - top) / k


Unjudged = register(
    Family(
        "Unjudged",
        _unjudged,
        cutoff="optional",
        cutoff_aliases=("unj",),
        trec_eval=(TrecMeasure("unj", "Unjudged@{}", (5, 10, 20), "cutoffs", leveled=False),),
        doc="""Fraction of k taken by unjudged documents in the top k (trec_eval 10 ``unj_k``).

        ``Unjudged@k = |{unjudged documents at positions 1..k}| / k``: a document without
        a judgment or with a negative label (pooled but not judged) is unjudged. As in
        trec_eval, the count is divided by k even when fewer than k documents were
        retrieved (the missing ones count as judged), so it is not ``1 - Judged@k`` on
        short rankings. Without k, the fraction of all retrieved documents (0 when
        nothing was retrieved). A "red flag" measure: a high value at a small k says the
        judgments cover the run poorly.
        """,
    )
)
