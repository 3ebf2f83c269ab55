"""Recall at k (``R@k``)."""

from __future__ import annotations

import numpy as np

from pdireval._prepare.ranked import Ranked, safe_divide
from pdireval.metrics._base import TREC_CUTOFFS, Family, TrecMeasure, register, rel_param
from pdireval.metrics._expected import expected_hits


def _expected_recall(ranked: Ranked, *, k: int | None, rel: int) -> np.ndarray:
    return safe_divide(expected_hits(ranked, rel, k), ranked.num_relevant(rel))


def _recall(ranked: Ranked, *, k: int | None, rel: int) -> np.ndarray:
    in_cutoff = ranked.relevant(rel) if k is None else ranked.relevant(rel) & (ranked.position <= k)
    return safe_divide(ranked.per_query_count(in_cutoff), ranked.num_relevant(rel))


R = register(
    Family(
        "R",
        _recall,
        average_kernel=_expected_recall,
        params=(rel_param(),),
        cutoff="required",
        aliases=("recall",),
        cutoff_aliases=("recall",),
        judged_only=True,
        trec_eval=(TrecMeasure("recall", "R@{}", TREC_CUTOFFS, "cutoffs"),),
        doc="""Recall at k: the fraction of all relevant documents found in the top k.

        ``R@k = |{relevant documents at positions 1..k}| / R`` where R counts every
        judged document labelled >= rel, retrieved or not; 0 when R = 0
        (trec_eval ``recall_k``).
        """,
    )
)
