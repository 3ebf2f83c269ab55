"""Judgment coverage: ``Judged@k``, the fraction of the top k that carries a judgment."""

from __future__ import annotations

import numpy as np

from pdireval._prepare.ranked import Ranked, safe_divide
from pdireval.metrics._base import Family, register


def _judged(ranked: Ranked, *, k: int | None) -> np.ndarray:
    judged = ranked.label >= 0
    if k is None:
        return safe_divide(ranked.per_query_count(judged), ranked.num_ret)
    return ranked.per_query_count(judged & (ranked.position <= k)) / k


Judged = register(
    Family(
        "Judged",
        _judged,
        cutoff="optional",
        cutoff_aliases=("judged",),
        doc="""Fraction of the top k documents that carry a judgment (label >= 0).

        ``Judged@k = |{judged documents at positions 1..k}| / k``, divided by k even when
        fewer than k were retrieved, as ir_measures' ``Judged@k``. Negative labels
        (pooled but unjudged, as in trec_eval) count as not judged. Without k the divisor
        is the number retrieved (0 when nothing was retrieved). With ``judged_only=True``
        every remaining document is judged, so ``Judged@k = min(k, retrieved) / k``.
        """,
    )
)
