"""Nugget scores of generated answers: ``strict_vital``, ``strict_all``, ``vital``, ``all``.

A nugget frame holds one row per (run, query, nugget): the nugget's importance
(``vital`` or ``okay``) and whether the run's answer supports it (``support``,
``partial_support``, ``not_support``). The engine evaluates it like a run: each nugget is
a row, and its label is :func:`label_code` of its importance and assignment, which the
kernels here read back (the public functions build that frame; see
:func:`pdireval.nugget_scores`).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from pdireval._core.errors import MetricError
from pdireval._core.roles import NUGGET_ASSIGNMENTS, NUGGET_IMPORTANCES
from pdireval._prepare.ranked import Ranked
from pdireval.metrics._base import Family, Param, plain_number, register

__all__ = [
    "ASSIGNMENTS",
    "IMPORTANCES",
    "NUGGET_FAMILIES",
    "AllScore",
    "StrictAll",
    "StrictVital",
    "VitalScore",
    "label_code",
]

IMPORTANCES = NUGGET_IMPORTANCES
ASSIGNMENTS = NUGGET_ASSIGNMENTS


def label_code(importance: np.ndarray, assignment: np.ndarray) -> np.ndarray:
    """The label the engine carries for a nugget: ``3 * vital + assignment`` (0..5), from
    the positions of its importance in :data:`IMPORTANCES` and its assignment in
    :data:`ASSIGNMENTS`.
    """
    return 3 * np.asarray(importance, dtype=np.int64) + np.asarray(assignment, dtype=np.int64)


def _number_in(low: float, high: float | None) -> Any:
    def check(name: str, value: Any) -> int | float:
        if isinstance(value, bool) or not isinstance(value, int | float | np.number):
            msg = f"parameter {name}= must be a number, got {value!r}"
            raise MetricError(msg)
        if not (value >= low and (high is None or value <= high)):
            span = f"between {low:g} and {high:g}" if high is not None else f">= {low:g}"
            msg = f"parameter {name}= must be {span}, got {value!r}"
            raise MetricError(msg)
        return plain_number(value)

    return check


def _decoded(ranked: Ranked) -> tuple[np.ndarray, np.ndarray]:
    """Each nugget's importance (True: vital) and assignment code, read from its label."""
    label = ranked.label
    whole = np.isfinite(label) & (label == np.round(label)) & (label >= 0) & (label <= 5)
    if not whole.all():
        msg = (
            "nugget measures (strict_vital, strict_all, vital, all) read a nugget frame -- "
            "columns run, query, nugget, importance and assignment; pass one to "
            "pdireval.evaluate, summary, compare or report, or use pdireval.nugget_scores"
        )
        raise MetricError(msg)
    code = label.astype(np.int64)
    return code >= 3, code % 3


def _score(ranked: Ranked, *, vital_only: bool, partial: float, okay: float) -> np.ndarray:
    """Credit over weight per answer: ``support`` is 1, ``partial_support`` ``partial``;
    a vital nugget weighs 1 and an okay one ``okay`` (nothing for the vital scores).
    0 where the weights sum to 0, as nuggetizer gives.
    """
    vital, assignment = _decoded(ranked)
    credit = np.choose(assignment, [0.0, partial, 1.0])
    weight = np.where(vital, 1.0, 0.0 if vital_only else okay)
    total = ranked.per_query_sum(weight)
    gained = ranked.per_query_sum(weight * credit)
    out = np.zeros(ranked.n_groups)
    np.divide(gained, total, out=out, where=total > 0)
    return out


def _strict_vital(ranked: Ranked, *, k: None) -> np.ndarray:
    return _score(ranked, vital_only=True, partial=0.0, okay=0.0)


def _strict_all(ranked: Ranked, *, k: None, okay: float) -> np.ndarray:
    return _score(ranked, vital_only=False, partial=0.0, okay=okay)


def _vital(ranked: Ranked, *, k: None, partial: float) -> np.ndarray:
    return _score(ranked, vital_only=True, partial=partial, okay=0.0)


def _all(ranked: Ranked, *, k: None, partial: float, okay: float) -> np.ndarray:
    return _score(ranked, vital_only=False, partial=partial, okay=okay)


_NEEDS = ("nugget", "importance", "assignment")
_PARTIAL = Param(
    "partial",
    0.5,
    _number_in(0.0, 1.0),
    "credit of a partially supported nugget (nuggetizer: 0.5)",
)
_OKAY = Param(
    "okay",
    1,
    _number_in(0.0, None),
    "weight of an okay nugget, a vital one weighing 1 (nuggetizer: 1, every nugget alike)",
)
_DEGENERATE = """0 for an answer without a vital nugget (without any nugget for the
        ``all`` scores), as nuggetizer scores it."""

StrictVital = register(
    Family(
        "strict_vital",
        _strict_vital,
        average_kernel=_strict_vital,
        needs=_NEEDS,
        aliases=("strict_vital_score",),
        doc=f"""Share of the vital nuggets the answer supports fully (nugget evaluation).

        ``strict_vital = |vital nuggets assigned support| / |vital nuggets|`` per (run,
        query), read from a nugget frame (columns run, query, nugget, importance,
        assignment), as nuggetizer's ``strict_vital_score`` (Pradeep et al., *Initial
        Nugget Evaluation Results for the TREC 2024 RAG Track with the AutoNuggetizer
        Framework*, 2024). {_DEGENERATE}
        """,
    )
)

StrictAll = register(
    Family(
        "strict_all",
        _strict_all,
        average_kernel=_strict_all,
        params=(_OKAY,),
        needs=_NEEDS,
        aliases=("strict_all_score",),
        doc=f"""Share of all nuggets the answer supports fully (nugget evaluation).

        ``strict_all = |nuggets assigned support| / |nuggets|`` per (run, query), as
        nuggetizer's ``strict_all_score`` (Pradeep et al., 2024); ``okay=`` weighs okay
        nuggets against vital ones (1: every nugget alike). {_DEGENERATE}
        """,
    )
)

VitalScore = register(
    Family(
        "vital",
        _vital,
        average_kernel=_vital,
        params=(_PARTIAL,),
        needs=_NEEDS,
        aliases=("vital_score",),
        doc=f"""Support of the vital nuggets with half credit for partial support.

        ``vital = (|vital support| + partial * |vital partial_support|) / |vital
        nuggets|`` per (run, query), ``partial = 0.5``, as nuggetizer's ``vital_score``
        (Pradeep et al., 2024). {_DEGENERATE}
        """,
    )
)

AllScore = register(
    Family(
        "all",
        _all,
        average_kernel=_all,
        params=(_PARTIAL, _OKAY),
        needs=_NEEDS,
        aliases=("all_score",),
        doc=f"""Support of all nuggets with half credit for partial support.

        ``all = (|support| + partial * |partial_support|) / |nuggets|`` per (run,
        query), ``partial = 0.5``, as nuggetizer's ``all_score`` (Pradeep et al.,
        2024); ``okay=`` weighs okay nuggets against vital ones. {_DEGENERATE}
        """,
    )
)

#: The nugget families: evaluated on nugget frames only.
NUGGET_FAMILIES = (StrictVital, StrictAll, VitalScore, AllScore)
