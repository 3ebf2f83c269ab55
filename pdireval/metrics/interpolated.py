"""Interpolated precision at recall levels (``IPrec@r``) and its average (``iAP``).

Interpolated precision at recall r is the highest precision reached at or after the
point where recall r is attained: ``max_{j : j / R >= r} j / rank_j`` over the relevant
retrieved documents (the j-th of them at ``rank_j``), 0 when recall r is never reached
(Manning et al. 2008, sec. 8.4; trec_eval ``iprec_at_recall``, ``11pt_avg``).
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from pdireval._core.errors import MetricError
from pdireval._prepare.ranked import Ranked
from pdireval.metrics._base import Family, Param, TrecMeasure, integer_at_least, register, rel_param

__all__ = ["IPrec", "iAP", "interpolated_precision", "recall_levels"]


#: The most recall levels ``iAP`` averages over (each level costs a pass over the queries).
MAX_POINTS = 10_001


def _best_from(ranked: Ranked, rel: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Per group: where its relevant retrieved rows start among them, how many there are,
    and for each of those rows the best precision at it or below it (a suffix maximum).
    """

    def compute() -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        relevant = ranked.relevant(rel)
        group = ranked.group[relevant]
        precision = ranked.relevant_so_far(rel)[relevant] / ranked.position[relevant]
        count = np.bincount(group, minlength=ranked.n_groups)
        start = np.cumsum(count) - count
        # Suffix maximum inside each group: a running maximum of the reversed rows.
        backwards = pd.Series(precision[::-1]).groupby(group[::-1], sort=False).cummax()
        return start, count, backwards.to_numpy(dtype=np.float64)[::-1]

    return ranked.cached(("interpolated", rel), compute)


def interpolated_precision(ranked: Ranked, recall: float, rel: int) -> np.ndarray:
    """trec_eval's interpolated precision at one recall level, per group.

    The level is turned into a number of relevant documents with trec_eval's rule
    ``floor(recall * R + 0.9)`` (so the 11 standard levels match historical MAP
    implementations), and the value is the best precision from that relevant document
    on; 0 when fewer relevant documents were retrieved.
    """
    start, count, best = _best_from(ranked, rel)
    needed = np.floor(recall * ranked.num_relevant(rel) + 0.9).astype(np.int64)
    reached = (needed <= count) & (count > 0)
    at = np.where(reached, start + np.maximum(needed, 1) - 1, 0)
    return np.where(reached, best[at] if len(best) else 0.0, 0.0)


def _iprec(ranked: Ranked, *, k: float, rel: int) -> np.ndarray:
    return interpolated_precision(ranked, k, rel)


def recall_levels(points: int) -> list[float]:
    """``points`` equally spaced recall levels 0..1, as the doubles of their decimal forms."""
    return [round(i / (points - 1), 10) for i in range(points)]


def _iap(ranked: Ranked, *, k: None, rel: int, points: int) -> np.ndarray:
    levels = recall_levels(points)
    total = np.zeros(ranked.n_groups)
    for level in reversed(levels):  # trec_eval adds them from recall 1 down, to its last bit
        total += interpolated_precision(ranked, level, rel)
    return total / len(levels)


def _points(name: str, value: object) -> int:
    points = integer_at_least(2)(name, value)
    if points > MAX_POINTS:
        msg = (
            f"parameter {name}= is at most {MAX_POINTS} recall levels, got {points}; the "
            "customary curve has 11 (0, 0.1, ..., 1) and 101 is already a fine grid"
        )
        raise MetricError(msg)
    return points


IPrec = register(
    Family(
        "IPrec",
        _iprec,
        params=(rel_param(),),
        cutoff="required",
        cutoff_kind="recall",
        cutoff_aliases=("iprec_at_recall",),
        judged_only=True,
        trec_eval=(
            TrecMeasure("iprec_at_recall", "IPrec@{}", tuple(i / 10 for i in range(11)), "levels"),
        ),
        doc="""Interpolated precision at recall level r (``IPrec@0.5``; trec_eval iprec_at_recall).

        ``IPrec@r = max_{j : j >= floor(r R + 0.9)} j / rank_j`` over the relevant retrieved
        documents, 0 when fewer than ``floor(r R + 0.9)`` were retrieved -- trec_eval's
        reading of "the maximum precision at any recall >= r" (Manning et al. 2008,
        sec. 8.4).
        """,
    )
)

iAP = register(
    Family(
        "iAP",
        _iap,
        params=(
            rel_param(),
            Param("points", 11, _points, "number of recall levels from 0 to 1 (at most 10,001)"),
        ),
        aliases=("11pt_avg", "11pt", "interpolated_ap"),
        trec_eval=(TrecMeasure("11pt_avg", "iAP"),),
        doc="""Interpolated average precision: mean of ``IPrec`` over equally spaced recall levels.

        With the default 11 points (recall 0, 0.1, ..., 1) this is the eleven-point
        interpolated average precision (Manning et al. 2008, sec. 8.4) and trec_eval's
        ``11pt_avg``.
        """,
    )
)
