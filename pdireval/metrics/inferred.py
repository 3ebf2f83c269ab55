"""Inferred average precision (trec_eval ``infAP``; Yilmaz & Aslam 2006)."""

from __future__ import annotations

import numpy as np

from pdireval._prepare.ranked import Ranked, block_starts, positions_in_blocks, safe_divide
from pdireval.metrics._base import Family, TrecMeasure, register, rel_param

#: trec_eval's INFAP_EPSILON: smoothing of the judged-relevant fraction above a document.
EPSILON = 0.00001


def _inf_ap(ranked: Ranked, *, k: None, rel: int) -> np.ndarray:
    relevant = ranked.relevant(rel)
    nonrelevant = (ranked.label >= 0) & ~relevant
    # The rows hold every pooled retrieved document (judged, or pooled but unjudged
    # with a negative label); documents outside the pool are absent, as trec_eval skips them.
    pooled_above = (
        ranked.cached(
            "rows_above", lambda: positions_in_blocks(block_starts(ranked.group), len(ranked.group))
        )[relevant]
        - 1
    )
    relevant_above = ranked.relevant_so_far(rel)[relevant] - 1
    nonrelevant_above = ranked.within_query_cumsum(nonrelevant)[relevant]
    rank = ranked.position[relevant].astype(np.float64)
    fraction = (relevant_above + EPSILON) / (relevant_above + nonrelevant_above + 2 * EPSILON)
    # trec_eval's order of operations, to its last bit: with j = rank - 1 documents above,
    # 1/(j+1) + (j/(j+1)) * (pooled/j) * fraction, and exactly 1 at rank 1
    above = rank - 1.0
    with np.errstate(divide="ignore", invalid="ignore"):
        share = (above / rank) * (pooled_above / above) * fraction
    precision = np.where(above > 0, 1.0 / rank + share, 1.0)
    total = np.bincount(ranked.group[relevant], weights=precision, minlength=ranked.n_groups)
    return safe_divide(total, ranked.num_relevant(rel))


infAP = register(
    Family(
        "infAP",
        _inf_ap,
        params=(rel_param(),),
        aliases=("infap", "inferred_ap"),
        trec_eval=(TrecMeasure("infAP", "infAP"),),
        doc="""Inferred average precision (Yilmaz & Aslam 2006; trec_eval ``infAP``).

        For judgments made on a random sample of the pool: documents outside the pool
        (absent from the judgments) are non-relevant, pooled documents without a
        judgment (negative label) are assumed relevant in the proportion of the judged
        ones. The expected precision at a relevant document at rank r is
        ``1/r + ((r - 1)/r) * (p/(r - 1)) * (rel + eps) / (rel + nonrel + 2 eps)`` with p
        the pooled documents above it, rel/nonrel the judged relevant / non-relevant
        ones among them and eps = 1e-5 (trec_eval's ``INFAP_EPSILON``); 1 at rank 1.
        infAP is their sum over the relevant retrieved documents divided by R, the
        number of judged relevant documents (0 when R = 0). With complete judgments
        (no negative label) infAP equals AP up to eps.

        References
        ----------
        E. Yilmaz and J. A. Aslam. Estimating average precision with incomplete and
        imperfect judgments. CIKM 2006.
        """,
    )
)
