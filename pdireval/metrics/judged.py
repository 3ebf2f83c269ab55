"""Judgment coverage: ``Judged@k``, the fraction of the top k that carries a judgment."""

from __future__ import annotations

import numpy as np

from pdireval._prepare.ranked import Ranked, safe_divide
from pdireval.metrics._base import Family, Param, one_of, register


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
