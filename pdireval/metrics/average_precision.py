"""Average precision (``AP``, ``AP@k``); its mean over queries is MAP."""

from __future__ import annotations

import numpy as np

from pdireval._prepare.ranked import Ranked, safe_divide
from pdireval.metrics._base import (
    TREC_CUTOFFS,
    Family,
    Param,
    TrecMeasure,
    one_of,
    register,
    rel_param,
)
from pdireval.metrics._expected import expected_average_precision


def _average_precision(ranked: Ranked, *, k: int | None, rel: int, norm: str) -> np.ndarray:
    relevant = ranked.relevant(rel)
    found_so_far = ranked.relevant_so_far(rel)
    counted = relevant if k is None else relevant & (ranked.position <= k)
    precision_at_hit = found_so_far[counted] / ranked.position[counted]
    total = np.bincount(ranked.group[counted], weights=precision_at_hit, minlength=ranked.n_groups)
    return _normalised(ranked, total, k, rel, norm)


def _expected_average_precision(
    ranked: Ranked, *, k: int | None, rel: int, norm: str
) -> np.ndarray:
    return _normalised(ranked, expected_average_precision(ranked, rel, k), k, rel, norm)


def _normalised(ranked: Ranked, total: np.ndarray, k: int | None, rel: int, norm: str):
    """The sum of precisions at the relevant documents divided by R (or min(k, R))."""
    divisor = ranked.num_relevant(rel)
    if norm == "min" and k is not None:
        divisor = np.minimum(divisor, k)
    return safe_divide(total, divisor)


AP = register(
    Family(
        "AP",
        _average_precision,
        average_kernel=_expected_average_precision,
        params=(
            rel_param(),
            Param("norm", "R", one_of("R", "min"), "divide by R, or by min(k, R)"),
        ),
        cutoff="optional",
        aliases=("map", "average_precision", "avep"),
        cutoff_aliases=("map_cut", "ap"),
        judged_only=True,
        trec_eval=(
            TrecMeasure("map", "AP"),
            TrecMeasure("gm_map", "AP", summary="gmean"),
            TrecMeasure("map_cut", "AP@{}", TREC_CUTOFFS, "cutoffs"),
        ),
        doc="""Average precision: mean of the precision at the rank of each relevant document.

        ``AP = (1/R) * sum over relevant retrieved d of P@rank(d)``; relevant documents
        that were not retrieved contribute 0, and AP = 0 when R = 0 (trec_eval ``map``).
        ``AP@k`` only counts relevant documents within the top k and still divides by
        R (trec_eval ``map_cut_k``). ``AP(norm='min')@k`` divides by min(k, R) instead,
        so that a perfect top k scores 1 even when R > k. MAP is
        ``summary("AP")`` (``agg="mean"``), GMAP ``agg="gmean"``.
        """,
    )
)
