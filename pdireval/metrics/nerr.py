"""Not (but nearly) expected reciprocal rank: ``NERR8``, ``NERR9``, ``NERR10``, ``NERR11``.

Azzopardi, Mackenzie & Moffat (2021) show that ERR is not a C/W/L measure -- its
stopping probabilities do not come from a continuation function -- and give four C/W/L
measures close to it, each named by the equation of the paper that defines it. All four
stop at a document in proportion to its gain: after reading position i the user goes on
with probability ``C(i) = f(i) (1 - g_i)``, where ``g_i`` is the gain of the document
there and f is the patience of another measure:

``NERR8@k``
    ``f(i) = 1`` for i < k and 0 at k: a user who reads at most k documents;
``NERR9@k``
    ``f(i) = i / (i + 1)`` for i < k and 0 at k: the patience of reciprocal rank;
``NERR10``
    ``f(i) = p``: the patience of rank-biased precision;
``NERR11``
    ``f(i) = ((i + 2T - 1) / (i + 2T))^2``: the patience of INST with target T.

Each is computed as ir_measures computes it (through ``cwl_eval``): the value is the
expected utility ``EU = sum_i W(i) g_i`` over ``cwl_eval``'s 1000 positions, with
``W(i) = prod_{j<i} C(j) / sum_m prod_{j<m} C(j)``. Gains come from the labels as
ir_measures maps them: a negative label is read as 0, then ``g = (clip(label, min_rel,
max_rel) - min_rel) / (max_rel - min_rel)``; an unjudged document (and a position below
the ranking) has gain 0. ir_measures requires ``max_rel``; here it defaults to 1, which
makes every label >= 1 worth a gain of 1 (binary relevance), as the other C/W/L
families' ``max_label=1``. Like them, each family gives any of the five C/W/L values
(and their residuals) with ``value=`` and takes a ``cost`` per document (see
:mod:`pdireval.metrics.cwl`).

Examples
--------
>>> import pandas as pd, pdireval
>>> df = pd.DataFrame({"query": "q1", "doc": ["a", "b", "c"], "rank": [1, 2, 3],
...                    "rel": [1, 0, 3]})
>>> names = ["NERR8(max_rel=3)@2", "NERR9(max_rel=3)@3", "NERR10(max_rel=3)",
...          "NERR11(max_rel=3)"]
>>> pdireval.evaluate(df, names).round(4).T
query                   q1
metric
NERR8(max_rel=3)@2  0.2000
NERR9(max_rel=3)@3  0.3571
NERR10(max_rel=3)   0.4081
NERR11(max_rel=3)   0.3418
"""

from __future__ import annotations

from typing import Any

import numpy as np

from pdireval._core.errors import MetricError
from pdireval._prepare.ranked import Ranked
from pdireval.metrics._base import Family, Param, number_above, one_of, register
from pdireval.metrics.cwl import DEFAULT_DEPTH, RESIDUALS, VALUES, Model, _kernel
from pdireval.metrics.rank_biased import _persistence

__all__ = ["NERR8", "NERR9", "NERR10", "NERR11"]


def _whole(name: str, value: Any) -> int:
    if isinstance(value, bool) or not isinstance(value, int | np.integer):
        msg = f"parameter {name}= must be a whole number, got {value!r}"
        raise MetricError(msg)
    return int(value)


def _range(params: dict[str, Any]) -> None:
    if not params["min_rel"] < params["max_rel"]:
        msg = (
            f"min_rel={params['min_rel']} must be below max_rel={params['max_rel']}: they "
            "are the labels worth a gain of 0 and of 1, e.g. NERR10(min_rel=0, max_rel=3)"
        )
        raise MetricError(msg)


def _range_scale(ranked: Ranked, *, min_rel: int, max_rel: int) -> tuple[np.ndarray, np.ndarray]:
    """ir_measures' gains for cwl_eval: labels below 0 read as 0, clipped to
    [min_rel, max_rel] and scaled to [0, 1]; every label is a judgment.
    """
    label = np.clip(np.maximum(ranked.label, 0.0), min_rel, max_rel)
    return (label - min_rel) / (max_rel - min_rel), np.ones(len(label), dtype=bool)


def _positions(gains: np.ndarray) -> np.ndarray:
    return np.arange(1, gains.shape[1] + 1, dtype=np.float64)


def _eq8(gains: np.ndarray, *_: np.ndarray, k: int) -> tuple[str, np.ndarray]:
    return "C", (1.0 - gains) * (_positions(gains) < k)


def _eq9(gains: np.ndarray, *_: np.ndarray, k: int) -> tuple[str, np.ndarray]:
    i = _positions(gains)
    return "C", (i / (i + 1.0)) * (1.0 - gains) * (i < k)


def _eq10(gains: np.ndarray, *_: np.ndarray, p: float) -> tuple[str, np.ndarray]:
    return "C", p * (1.0 - gains)


def _eq11(gains: np.ndarray, *_: np.ndarray, T: float) -> tuple[str, np.ndarray]:  # noqa: N803
    i = _positions(gains)
    return "C", ((i + 2.0 * T - 1.0) / (i + 2.0 * T)) ** 2 * (1.0 - gains)


def _params(*model: Param) -> tuple[Param, ...]:
    """ir_measures' ``min_rel`` and ``max_rel``, the model's own, then pdireval's C/W/L
    ``cost`` and ``value``.
    """
    return (
        Param("min_rel", 0, _whole, "the label worth a gain of 0 (lower labels count as it)"),
        Param(
            "max_rel",
            1,
            _whole,
            "the label worth a gain of 1 (higher labels count as it); ir_measures requires "
            "it, here 1 by default: binary gains",
        ),
        *model,
        Param("cost", 1, number_above(0), "the cost of reading one document"),
        Param(
            "value",
            "EU",
            one_of(*VALUES, *RESIDUALS),
            "which C/W/L quantity: EU (ir_measures' value), ETU, EC, ETC or ED, or its "
            "residual (ResEU, ...)",
        ),
    )


def _family(name: str, model: Model, doc: str, *, truncates: bool, **declared: Any) -> Family:
    family = Family(
        name,
        _kernel(
            name,
            model,
            scale=_range_scale,
            scale_params=("min_rel", "max_rel"),
            truncates=truncates,
        ),
        cutoff="required" if truncates else "optional",
        constraint=_range,
        bounded=False,
        doc=doc + _REFERENCE,
        **declared,
    )
    if not truncates:  # what the measures catalogue says of the family without @k
        family.without_cutoff = (  # type: ignore[attr-defined]
            f"the top {DEFAULT_DEPTH} positions (cwl_eval's depth, as ir_measures)"
        )
    return register(family)


_REFERENCE = """
        References: L. Azzopardi, J. Mackenzie and A. Moffat (2021), ERR is not C/W/L:
        exploring the relationship between expected reciprocal rank and other metrics,
        ICTIR; L. Azzopardi, P. Thomas and A. Moffat (2019), cwl_eval: an evaluation tool
        for information retrieval, SIGIR."""

NERR8 = _family(
    "NERR8",
    _eq8,
    truncates=True,
    params=_params(),
    doc="""Nearly ERR, equation 8 of Azzopardi et al. (2021): stop at a gain, or at k.

        ``C(i) = 1 - g_i`` for i < k and 0 at k: the user stops at each document with
        probability its gain, and after k documents at the latest; ``NERR8@k =
        sum_{i<=k} W(i) g_i`` with ``W(i)`` proportional to ``prod_{j<i} (1 - g_j)``.
        Gains are ``(clip(label, min_rel, max_rel) - min_rel) / (max_rel - min_rel)``
        (a negative label read as 0, an unjudged document 0). As in ir_measures (which
        computes it with ``cwl_eval``), the model reads at most 1000 positions: a k
        above 1000 reads the top 1000 without the stop at k. ir_measures requires
        ``max_rel=``; its default here, 1, gives binary gains.
        """,
)

NERR9 = _family(
    "NERR9",
    _eq9,
    truncates=True,
    params=_params(),
    doc="""Nearly ERR, equation 9 of Azzopardi et al. (2021): RR's patience, stop at a gain or k.

        ``C(i) = i / (i + 1) * (1 - g_i)`` for i < k and 0 at k, so ``W(i)`` is
        proportional to ``(1 / i) prod_{j<i} (1 - g_j)``, ERR's discount and stopping;
        ``NERR9@k = sum_{i<=k} W(i) g_i``. Gains, the 1000 positions and ``max_rel`` as
        in ``NERR8`` (ir_measures' computation with ``cwl_eval``).
        """,
)

NERR10 = _family(
    "NERR10",
    _eq10,
    truncates=False,
    params=_params(
        Param("p", 0.9, _persistence, "persistence: the patience of rank-biased precision")
    ),
    doc="""Nearly ERR, equation 10 of Azzopardi et al. (2021): RBP's patience, stop at a gain.

        ``C(i) = p (1 - g_i)``, so ``W(i)`` is proportional to ``p^(i-1) prod_{j<i}
        (1 - g_j)``; ``NERR10 = sum_i W(i) g_i`` over ``cwl_eval``'s 1000 positions, p =
        0.9 by default (ir_measures'). Gains and ``max_rel`` as in ``NERR8``.
        ir_measures takes no cutoff here; ``NERR10@k`` runs the model over the top k
        positions instead of 1000, as pdireval's other C/W/L families.
        """,
)

NERR11 = _family(
    "NERR11",
    _eq11,
    truncates=False,
    params=_params(
        Param("T", 1, number_above(0), "the gain the user expects to need (INST's target)")
    ),
    doc="""Nearly ERR, equation 11 of Azzopardi et al. (2021): INST's patience, stop at a gain.

        ``C(i) = ((i + 2T - 1) / (i + 2T))^2 (1 - g_i)``, INST's patience for a target
        of T (1 by default, ir_measures') with ERR's stopping at a gain; ``NERR11 =
        sum_i W(i) g_i`` over ``cwl_eval``'s 1000 positions. Gains and ``max_rel`` as
        in ``NERR8``; ``NERR11@k`` runs the model over the top k positions (ir_measures
        takes no cutoff here).
        """,
)
