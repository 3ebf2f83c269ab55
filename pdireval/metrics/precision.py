"""Precision-type measures: precision at k (``P@k``) and R-precision (``Rprec``)."""

from __future__ import annotations

import numpy as np

from pdireval._prepare.ranked import Ranked, safe_divide
from pdireval.metrics._base import (
    TREC_CUTOFFS,
    Family,
    Param,
    TrecMeasure,
    number_above,
    register,
    rel_param,
)
from pdireval.metrics._expected import expected_hits


def _precision(ranked: Ranked, *, k: int, rel: int) -> np.ndarray:
    hits = ranked.per_query_count(ranked.relevant(rel) & (ranked.position <= k))
    return hits / k


def _expected_precision(ranked: Ranked, *, k: int, rel: int) -> np.ndarray:
    return expected_hits(ranked, rel, k) / k


P = register(
    Family(
        "P",
        _precision,
        average_kernel=_expected_precision,
        params=(rel_param(),),
        cutoff="required",
        aliases=("precision",),
        cutoff_aliases=("p",),
        judged_only=True,
        trec_eval=(TrecMeasure("P", "P@{}", TREC_CUTOFFS, "cutoffs"),),
        doc="""Precision at k: the fraction of the top k documents labelled >= rel.

        ``P@k = |{relevant documents at positions 1..k}| / k``. As in trec_eval
        (``P_k``), the divisor is k even when fewer than k documents were retrieved,
        and unjudged documents count as non-relevant.
        """,
    )
)


def _r_precision(ranked: Ranked, *, k: None, rel: int, mult: float) -> np.ndarray:
    cutoff = ranked.num_relevant(rel)
    if mult != 1:
        cutoff = np.floor(mult * cutoff + 0.9)  # trec_eval Rprec_mult's rounding
    hits = ranked.per_query_count(ranked.relevant(rel) & (ranked.position <= cutoff[ranked.group]))
    return safe_divide(hits, cutoff)


def _relative_precision(ranked: Ranked, *, k: int, rel: int) -> np.ndarray:
    hits = ranked.per_query_count(ranked.relevant(rel) & (ranked.position <= k))
    return safe_divide(hits, np.minimum(k, ranked.num_relevant(rel)))


Rprec = register(
    Family(
        "Rprec",
        _r_precision,
        params=(
            rel_param(),
            Param("mult", 1, number_above(0), "precision at rank mult * R (trec_eval Rprec_mult)"),
        ),
        aliases=("r-prec", "r_precision", "rprecision", "breakeven", "prbreakeven"),
        judged_only=True,
        trec_eval=(
            TrecMeasure("Rprec", "Rprec"),
            TrecMeasure(
                "Rprec_mult", "Rprec(mult={})", tuple(i / 5 for i in range(1, 11)), "levels"
            ),
        ),
        doc="""R-precision: precision at rank R, where R is the number of relevant documents.

        ``Rprec = |{relevant documents at positions 1..R}| / R``; 0 when the query has
        no relevant document (trec_eval ``Rprec``). ``Rprec(mult=m)`` is precision at
        rank ``floor(m R + 0.9)`` (trec_eval ``Rprec_mult_m``'s rounding), 0 when that
        rank is 0. At rank R precision equals recall, so R-precision is also the
        precision-recall breakeven point (Manning et al. 2008, sec. 8.4; alias
        ``breakeven``).
        """,
    )
)

RelP = register(
    Family(
        "RelP",
        _relative_precision,
        params=(rel_param(),),
        cutoff="required",
        aliases=("R_cap",),
        cutoff_aliases=("relative_p",),
        trec_eval=(TrecMeasure("relative_P", "RelP@{}", TREC_CUTOFFS, "cutoffs"),),
        doc="""Relative precision (BEIR's capped recall R_cap): relevant in the top k / min(k, R).

        1 is reachable whatever R is (trec_eval ``relative_P_k``); 0 when R = 0. It is
        also the capped recall of BEIR and MTEB, ``R_cap@k`` (Thakur et al. 2021): the
        relevant documents in the top k over the most the top k could hold, min(k, R),
        with labels > 0 relevant (rel=1 for whole labels) and unjudged documents not --
        the same number, so ``R_cap@k`` names it. BEIR divides by zero where R = 0;
        here that query scores 0.

        References
        ----------
        N. Thakur, N. Reimers, A. Rücklé, A. Srivastava and I. Gurevych. BEIR: a
        heterogeneous benchmark for zero-shot evaluation of information retrieval
        models. NeurIPS Datasets and Benchmarks 2021.
        """,
    )
)
