"""Interpolated precision at recall levels (``IPrec@r``) and its average (``iAP``).

Interpolated precision at recall r is the highest precision reached at or after the
point where recall r is attained: ``max_{j : j / R >= r} j / rank_j`` over the relevant
retrieved documents (the j-th of them at ``rank_j``), 0 when recall r is never reached
(Manning et al. 2008, sec. 8.4; trec_eval ``iprec_at_recall``, ``11pt_avg``).
"""

from __future__ import annotations

import itertools

import numpy as np
import pandas as pd

from pdireval._core.errors import MetricError
from pdireval._core.options import TREC_EVAL_VERSIONS
from pdireval._prepare.ranked import Ranked
from pdireval.metrics._base import Family, Param, TrecMeasure, integer_at_least, register, rel_param

__all__ = ["IPrec", "iAP", "interpolated_precision", "recall_levels", "relevant_needed"]


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


def relevant_needed(recall: float, num_rel: np.ndarray, version: str) -> np.ndarray:
    """How many relevant documents recall level ``recall`` asks for, with ``num_rel``
    relevant in all, by trec_eval's rule: 9.0.8 ``floor(r R + 0.9)`` (the historical one,
    which makes the 11 standard levels those of old MAP implementations), 10.0 ``r R``
    rounded half away from zero (C's ``lround``).
    """
    needed = recall * np.asarray(num_rel, dtype=np.float64)
    if version == "10.0":
        whole = np.floor(needed)
        return (whole + (needed - whole >= 0.5)).astype(np.int64)  # exact: no x + 0.5
    return np.floor(needed + 0.9).astype(np.int64)


def interpolated_precision(
    ranked: Ranked, recall: float, rel: int, version: str = "9.0.8"
) -> np.ndarray:
    """trec_eval's interpolated precision at one recall level, per group.

    The level is turned into a number of relevant documents with the rule of trec_eval
    ``version`` (:func:`relevant_needed`), and the value is the best precision from that
    relevant document on; 0 when fewer relevant documents were retrieved.
    """
    start, count, best = _best_from(ranked, rel)
    needed = relevant_needed(recall, ranked.num_relevant(rel), version)
    reached = (needed <= count) & (count > 0)
    at = np.where(reached, start + np.maximum(needed, 1) - 1, 0)
    return np.where(reached, best[at] if len(best) else 0.0, 0.0)


def _iprec(ranked: Ranked, *, k: float, rel: int, version: str) -> np.ndarray:
    return interpolated_precision(ranked, k, rel, version)


def recall_levels(points: int) -> list[float]:
    """``points`` equally spaced recall levels 0..1, as the doubles of their decimal forms."""
    return [round(i / (points - 1), 10) for i in range(points)]


def _iap(
    ranked: Ranked,
    *,
    k: None,
    rel: int,
    points: int,
    levels: tuple[float, ...] | None,
    version: str,
) -> np.ndarray:
    chosen = list(levels) if levels is not None else recall_levels(points)
    total = np.zeros(ranked.n_groups)
    for level in reversed(chosen):  # trec_eval adds them from recall 1 down, to its last bit
        total += interpolated_precision(ranked, level, rel, version)
    return total / len(chosen)


def _points(name: str, value: object) -> int:
    points = integer_at_least(2)(name, value)
    if points > MAX_POINTS:
        msg = (
            f"parameter {name}= is at most {MAX_POINTS} recall levels, got {points}; the "
            "customary curve has 11 (0, 0.1, ..., 1) and 101 is already a fine grid"
        )
        raise MetricError(msg)
    return points


def _levels(name: str, value: object) -> tuple[float, ...] | None:
    """Recall levels in [0, 1], in increasing order (repeats allowed), or None."""
    if value is None:
        return None
    try:
        levels = tuple(float(level) for level in value)  # type: ignore[attr-defined]
    except (TypeError, ValueError):
        levels = ()
    if not levels or not all(0 <= level <= 1 for level in levels):
        msg = (
            f"parameter {name}= is a sequence of recall levels in [0, 1], e.g. "
            f"{name}=(0.2, 0.5, 0.8); got {value!r}"
        )
        raise MetricError(msg)
    if any(b < a for a, b in itertools.pairwise(levels)):
        msg = f"parameter {name}= lists recall levels in increasing order; got {value!r}"
        raise MetricError(msg)
    return levels


def _version(name: str, value: object) -> str | None:
    if value is None or (isinstance(value, str) and value in TREC_EVAL_VERSIONS):
        return value
    msg = (
        f"parameter {name}= is a trec_eval version, one of {list(TREC_EVAL_VERSIONS)} (or "
        f"None: the call's trec_eval_version=), got {value!r}"
    )
    raise MetricError(msg)


#: The rule that turns a recall level into a number of relevant documents: the call's
#: ``trec_eval_version=`` unless the metric names a version itself.
VERSION = Param(
    "version",
    None,
    _version,
    "trec_eval version whose rule turns r into a number of relevant documents: '9.0.8' "
    "floor(r R + 0.9), '10.0' r R rounded (default: the call's trec_eval_version=)",
)

IPrec = register(
    Family(
        "IPrec",
        _iprec,
        params=(rel_param(), VERSION),
        cutoff="required",
        cutoff_kind="recall",
        cutoff_aliases=("iprec_at_recall",),
        judged_only=True,
        trec_eval=(
            TrecMeasure("iprec_at_recall", "IPrec@{}", tuple(i / 10 for i in range(11)), "levels"),
        ),
        doc="""Interpolated precision at recall level r (``IPrec@0.5``; trec_eval iprec_at_recall).

        ``IPrec@r = max_{j : j >= n(r)} j / rank_j`` over the relevant retrieved documents,
        0 when fewer than ``n(r)`` were retrieved -- trec_eval's reading of "the maximum
        precision at any recall >= r" (Manning et al. 2008, sec. 8.4). ``n(r)`` is
        trec_eval 9.0.8's ``floor(r R + 0.9)``, or with ``trec_eval_version="10.0"`` (or
        ``version="10.0"``) 10.0's ``r R`` rounded half away from zero.
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
            Param(
                "levels",
                None,
                _levels,
                "the recall levels themselves, in increasing order, in place of points= "
                "(trec_eval's 11pt_avg.0.2,0.5,0.8)",
            ),
            VERSION,
        ),
        aliases=("11pt_avg", "11pt", "interpolated_ap"),
        trec_eval=(TrecMeasure("11pt_avg", "iAP(levels={})", parameter="list"),),
        doc="""Interpolated average precision: mean of ``IPrec`` over equally spaced recall levels.

        With the default 11 points (recall 0, 0.1, ..., 1) this is the eleven-point
        interpolated average precision (Manning et al. 2008, sec. 8.4) and trec_eval's
        ``11pt_avg``; its levels become numbers of relevant documents by the rule of the
        call's ``trec_eval_version=`` (see ``IPrec``).
        """,
    )
)
