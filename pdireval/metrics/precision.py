"""Precision-type measures: precision at k (``P@k``) and R-precision (``Rprec``)."""

from __future__ import annotations

import numpy as np

from pdireval._ranking import Ranked, safe_divide
from pdireval.metrics._base import Family, register, rel_param


def _precision(ranked: Ranked, *, k: int, rel: int) -> np.ndarray:
    hits = ranked.per_query_count(ranked.relevant(rel) & (ranked.position <= k))
    return hits / k


P = register(
    Family(
        "P",
        _precision,
        params=(rel_param(),),
        cutoff="required",
        aliases=("precision",),
        cutoff_aliases=("p",),
        doc="""Precision at k: the fraction of the top k documents labelled >= rel.

        ``P@k = |{relevant documents at positions 1..k}| / k``. As in trec_eval
        (``P_k``), the divisor is k even when fewer than k documents were retrieved,
        and unjudged documents count as non-relevant.
        """,
    )
)


def _r_precision(ranked: Ranked, *, k: None, rel: int) -> np.ndarray:
    num_rel = ranked.num_relevant(rel)
    cutoff = num_rel[ranked.group]
    hits = ranked.per_query_count(ranked.relevant(rel) & (ranked.position <= cutoff))
    return safe_divide(hits, num_rel)


Rprec = register(
    Family(
        "Rprec",
        _r_precision,
        params=(rel_param(),),
        aliases=("r-prec", "r_precision", "rprecision"),
        doc="""R-precision: precision at rank R, where R is the number of relevant documents.

        ``Rprec = |{relevant documents at positions 1..R}| / R``; 0 when the query has
        no relevant document (trec_eval ``Rprec``).
        """,
    )
)
