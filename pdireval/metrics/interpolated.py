"""Interpolated precision at recall levels (``IPrec@r``) and its average (``iAP``).

Interpolated precision at recall r is the highest precision reached at or after the
point where recall r is attained: ``max_{j : j / R >= r} j / rank_j`` over the relevant
retrieved documents (the j-th of them at ``rank_j``), 0 when recall r is never reached
(note 003's "Alternative 2"; trec_eval ``iprec_at_recall``, ``11pt_avg``).
"""

from __future__ import annotations

import numpy as np

from pdireval._prepare.ranked import Ranked
from pdireval.metrics._base import Family, Param, integer_at_least, register, rel_param

__all__ = ["IPrec", "iAP", "interpolated_precision", "recall_levels"]


def interpolated_precision(ranked: Ranked, recall: float, rel: int) -> np.ndarray:
    """trec_eval's interpolated precision at one recall level, per group.

    The level is turned into a number of relevant documents with trec_eval's rule
    ``floor(recall * R + 0.9)`` (so the 11 standard levels match historical MAP
    implementations), and the value is the best precision from that relevant document
    on; 0 when fewer relevant documents were retrieved.
    """
    relevant = ranked.relevant(rel)
    found = ranked.relevant_so_far(rel)[relevant]
    group = ranked.group[relevant]
    precision = found / ranked.position[relevant]
    needed = np.floor(recall * ranked.num_relevant(rel) + 0.9)
    reached = needed <= np.bincount(group, minlength=ranked.n_groups)
    counted = found >= needed[group]
    best = np.zeros(ranked.n_groups)
    np.maximum.at(best, group[counted], precision[counted])
    best[~reached] = 0.0
    return best


def _iprec(ranked: Ranked, *, k: float, rel: int) -> np.ndarray:
    return interpolated_precision(ranked, k, rel)


def recall_levels(points: int) -> list[float]:
    """``points`` equally spaced recall levels 0..1, as the doubles of their decimal forms."""
    return [round(i / (points - 1), 10) for i in range(points)]


def _iap(ranked: Ranked, *, k: None, rel: int, points: int) -> np.ndarray:
    levels = recall_levels(points)
    return sum(interpolated_precision(ranked, level, rel) for level in levels) / len(levels)


IPrec = register(
    Family(
        "IPrec",
        _iprec,
        params=(rel_param(),),
        cutoff="required",
        cutoff_kind="recall",
        cutoff_aliases=("iprec_at_recall",),
        doc="""Interpolated precision at recall level r (``IPrec@0.5``; trec_eval iprec_at_recall).

        ``IPrec@r = max_{j : j >= floor(r R + 0.9)} j / rank_j`` over the relevant retrieved
        documents, 0 when fewer than ``floor(r R + 0.9)`` were retrieved -- trec_eval's
        reading of "the maximum precision at any recall >= r" (note 003).
        """,
    )
)

iAP = register(
    Family(
        "iAP",
        _iap,
        params=(
            rel_param(),
            Param("points", 11, integer_at_least(2), "number of recall levels from 0 to 1"),
        ),
        aliases=("11pt_avg", "11pt", "interpolated_ap"),
        doc="""Interpolated average precision: mean of ``IPrec`` over equally spaced recall levels.

        With the default 11 points (recall 0, 0.1, ..., 1) this is note 003's eleven-point
        interpolated average precision ("Alternative 2") and trec_eval's ``11pt_avg``.
        """,
    )
)
