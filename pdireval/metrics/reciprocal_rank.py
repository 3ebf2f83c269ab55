"""Reciprocal rank (``RR``, ``RR@k``) and success (``Success@k``)."""

from __future__ import annotations

import numpy as np

from pdireval._prepare.ranked import Ranked
from pdireval.metrics._base import Family, TrecMeasure, register, rel_param
from pdireval.metrics._expected import expected_reciprocal_rank


def _first_relevant(ranked: Ranked, rel: int) -> np.ndarray:
    """Mask of the first relevant retrieved row of each group."""

    def compute() -> np.ndarray:
        return ranked.relevant(rel) & (ranked.relevant_so_far(rel) == 1)

    return ranked.cached(("first_relevant", rel), compute)


def _expected_reciprocal_rank(ranked: Ranked, *, k: int | None, rel: int) -> np.ndarray:
    return expected_reciprocal_rank(ranked, rel, k)


def _reciprocal_rank(ranked: Ranked, *, k: int | None, rel: int) -> np.ndarray:
    first = _first_relevant(ranked, rel)
    if k is not None:
        first = first & (ranked.position <= k)
    return ranked.per_query_sum(1.0 / ranked.position, first)


RR = register(
    Family(
        "RR",
        _reciprocal_rank,
        average_kernel=_expected_reciprocal_rank,
        params=(rel_param(),),
        cutoff="optional",
        aliases=("mrr", "recip_rank", "reciprocal_rank"),
        cutoff_aliases=("rr",),
        judged_only=True,
        trec_eval=(TrecMeasure("recip_rank", "RR"),),
        doc="""Reciprocal rank of the first relevant document; 0 when there is none.

        ``RR = 1 / rank of the first document labelled >= rel`` (trec_eval
        ``recip_rank``). ``RR@k`` is 0 when the first relevant document lies below k
        (a rank threshold: the user looks no further). MRR is ``summary("RR")``.
        """,
    )
)


def _success(ranked: Ranked, *, k: int, rel: int) -> np.ndarray:
    first = _first_relevant(ranked, rel) & (ranked.position <= k)
    return ranked.per_query_count(first)


Success = register(
    Family(
        "Success",
        _success,
        params=(rel_param(),),
        cutoff="required",
        cutoff_aliases=("success",),
        judged_only=True,
        trec_eval=(TrecMeasure("success", "Success@{}", (1, 5, 10), "cutoffs"),),
        doc="""Success at k: 1 when a document labelled >= rel is in the top k, else 0.

        trec_eval ``success_k`` (``success.1,5,10``).
        """,
    )
)
