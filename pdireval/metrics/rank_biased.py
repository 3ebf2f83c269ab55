"""Rank-biased precision (Moffat & Zobel 2008): ``RBP(p=)`` and its residual ``RBPResidual``.

A user reads the ranking top down and goes on from one document to the next with
probability p (the persistence), so position i is reached with probability p^(i-1).
trec_eval 10's ``rbp`` is ``RBP(p=0.9, gain='linear')`` and its ``rbp_resid`` is
``RBPResidual(p=0.9, zero_when_judged=True)``, computed in trec_eval's order of
floating-point operations (p^i as the product p * p * ... it accumulates).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np

from pdireval._core.errors import MetricError
from pdireval._prepare.ranked import Ranked
from pdireval.metrics._base import (
    Family,
    Param,
    TrecMeasure,
    boolean,
    plain_number,
    register,
    rel_param,
)

GainSpec = str | tuple[tuple[int, float], ...]

#: 2**1023 is the largest power of two a float64 holds.
_LARGEST_EXP_LABEL = 1023


def _persistence(name: str, value: Any) -> float:
    number = not isinstance(value, bool) and isinstance(value, int | float | np.number)
    if not number or not 0 < value < 1:
        msg = f"parameter {name}= is a persistence probability in (0, 1), got {value!r}"
        raise MetricError(msg)
    return plain_number(value)


def _reach(ranked: Ranked, p: float) -> np.ndarray:
    """p^(position - 1) of each row: the probability that the user reaches it."""
    return ranked.cached(("rbp_reach", p), lambda: np.power(p, ranked.position - 1.0))


def _in_top(ranked: Ranked, k: int | None) -> np.ndarray:
    return np.ones(len(ranked.position), dtype=bool) if k is None else ranked.position <= k


def _powers(p: float, n: int) -> np.ndarray:
    """p^0, p^1, ..., p^n, each the previous times p, as trec_eval's loop forms them."""
    steps = np.full(n + 1, p, dtype=np.float64)
    steps[0] = 1.0
    return np.multiply.accumulate(steps)


def _check_gain(name: str, value: Any) -> GainSpec:
    if isinstance(value, str):
        if value not in ("binary", "linear", "exp"):
            msg = f"parameter {name}= must be 'binary', 'linear', 'exp' or a mapping, got {value!r}"
            raise MetricError(msg)
        return value
    if not isinstance(value, Mapping | tuple):
        msg = f"gain= must be 'binary', 'linear', 'exp' or a mapping {{label: gain}}, got {value!r}"
        raise MetricError(msg)
    pairs = dict(value)
    for label, gain in pairs.items():
        whole = not isinstance(label, bool) and isinstance(label, int | np.integer)
        if not whole or label < 0:
            msg = f"gain= mapping keys must be whole labels >= 0, got {label!r}"
            raise MetricError(msg)
        number = not isinstance(gain, bool) and isinstance(gain, int | float | np.number)
        if not number or not np.isfinite(gain):
            msg = f"gain= mapping values must be finite numbers, got {gain!r} for label {label}"
            raise MetricError(msg)
    if not pairs:  # no label listed: every label is its own gain
        return "linear"
    return tuple(sorted((int(label), plain_number(gain)) for label, gain in pairs.items()))


def _show_gain(value: GainSpec) -> str:
    return repr(value) if isinstance(value, str) else repr(dict(value))


def _default_gain(labels: np.ndarray, gain: GainSpec) -> np.ndarray:
    """The gain of labels the mapping does not list: the label, or 2**label - 1."""
    if gain == "exp":
        return np.exp2(labels) - 1.0
    return np.asarray(labels, dtype=np.float64).copy()


def _largest_unlisted(ranked: Ranked, listed: np.ndarray, rel: int) -> np.ndarray:
    """Per group, the largest level 0..(largest label judged >= 0) the mapping does not
    list and that is >= rel: the level of the largest default gain (-1 when none).
    """
    judged = ranked.judged_label >= 0
    top = np.full(ranked.n_groups, -1.0)
    np.maximum.at(top, ranked.judged_group[judged], ranked.judged_label[judged])
    for level in listed[::-1]:  # listed levels in decreasing order: step below each one
        top = np.where(top == level, top - 1.0, top)
    return np.where(top >= max(rel, 0), top, -1.0)


def _graded_gains(ranked: Ranked, gain: GainSpec, rel: int) -> np.ndarray:
    """Each row's gain, rescaled per group as trec_eval 10's rbp rescales its gain table.

    The table holds the listed labels and the levels 0 to the group's largest label
    judged; its gains are rescaled to (g - min) / (max - min) when one lies below 0 or
    above 1, min and max starting at 0. Negative labels have gain 0, never rescaled.
    """
    labels = ranked.label
    if gain == "exp" and np.max(ranked.judged_label, initial=0.0) > _LARGEST_EXP_LABEL:
        msg = (
            f"gain='exp' (2**label - 1) exceeds the largest float64 for labels above "
            f"{_LARGEST_EXP_LABEL}; use gain='linear' or a gain mapping {{label: gain}}"
        )
        raise MetricError(msg)
    table = {} if isinstance(gain, str) else dict(gain)
    listed = np.array(sorted(table), dtype=np.float64)
    values = np.array([table[level] for level in sorted(table)], dtype=np.float64)
    out = np.where(labels >= max(rel, 0), _default_gain(np.maximum(labels, 0.0), gain), 0.0)
    hit = np.isin(labels, listed)
    out[hit] = values[np.searchsorted(listed, labels[hit])]
    out[labels < 0] = 0.0
    # the table's extremes: the listed gains, the largest default one, and 0
    low = min(0.0, float(values.min(initial=0.0)))
    unlisted = _largest_unlisted(ranked, listed, rel)
    high = np.where(unlisted >= 0, _default_gain(np.maximum(unlisted, 0.0), gain), 0.0)
    high = np.maximum(high, max(0.0, float(values.max(initial=0.0))))
    rescaled = (low < 0) | (high > 1)
    rows = rescaled[ranked.group] & (labels >= 0)
    span = high[ranked.group[rows]] - low
    out[rows] = (out[rows] - low) / span
    return out


def _rbp(ranked: Ranked, *, k: int | None, rel: int, p: float, gain: GainSpec) -> np.ndarray:
    if gain == "binary":
        counted = ranked.relevant(rel) & _in_top(ranked, k)
        return (1.0 - p) * ranked.per_query_sum(_reach(ranked, p), counted)
    gains = ranked.cached(("rbp_gains", gain, rel), lambda: _graded_gains(ranked, gain, rel))
    counted = (gains != 0) & _in_top(ranked, k)
    powers = _powers(p, int(ranked.position.max(initial=1)))
    weights = gains[counted] * powers[ranked.position[counted] - 1]
    total = np.bincount(ranked.group[counted], weights=weights, minlength=ranked.n_groups)
    return (1.0 - p) * total


def _rbp_residual(ranked: Ranked, *, k: int | None, p: float, zero_when_judged: bool) -> np.ndarray:
    if zero_when_judged:
        return _trec_residual(ranked, k, p)
    # Unjudged retrieved positions plus everything below the ranking (or below k):
    # (1-p) sum_{unjudged i} p^(i-1) + p^n = 1 - (1-p) sum_{judged i} p^(i-1).
    judged = (ranked.label >= 0) & _in_top(ranked, k)
    return 1.0 - (1.0 - p) * ranked.per_query_sum(_reach(ranked, p), judged)


def _trec_residual(ranked: Ranked, k: int | None, p: float) -> np.ndarray:
    """trec_eval 10's rbp_resid: p^n + (1 - p) * sum of p^(i-1) over the unjudged
    positions i (no label, or a negative one), added in rank order; 0 when none is.
    """
    depth = ranked.num_ret.astype(np.int64)
    if k is not None:
        depth = np.minimum(depth, k)
    # every retrieved position of every group, as trec_eval walks them
    ends = np.cumsum(depth)
    starts = ends - depth
    group = np.repeat(np.arange(ranked.n_groups), depth)
    position = np.arange(int(ends[-1]) if len(ends) else 0) - np.repeat(starts, depth) + 1
    unjudged = np.ones(len(position), dtype=bool)
    judged = (ranked.label >= 0) & (ranked.position <= depth[ranked.group])
    unjudged[starts[ranked.group[judged]] + ranked.position[judged] - 1] = False
    powers = _powers(p, int(depth.max(initial=0)))
    total = np.bincount(
        group[unjudged], weights=powers[position[unjudged] - 1], minlength=ranked.n_groups
    )
    found = np.bincount(group[unjudged], minlength=ranked.n_groups) > 0
    return np.where(found, powers[depth] + (1 - p) * total, 0.0)


def _persistence_param() -> Param:
    return Param("p", 0.8, _persistence, "persistence: probability of reading on to the next rank")


RBP = register(
    Family(
        "RBP",
        _rbp,
        params=(
            rel_param(),
            _persistence_param(),
            Param(
                "gain",
                "binary",
                _check_gain,
                "'binary' (1 for labels >= rel), 'linear' (gain = label), 'exp' "
                "(2**label - 1) or a mapping {label: gain}; graded gains are rescaled "
                "into [0, 1] as trec_eval 10 does",
                show=_show_gain,
            ),
        ),
        cutoff="optional",
        aliases=("rank_biased_precision",),
        trec_eval=(
            TrecMeasure("rbp", "RBP(p=0.9, gain='linear')", parameter="pairs", leveled=False),
        ),
        doc="""Rank-biased precision (Moffat & Zobel 2008): expected rate of relevant documents.

        ``RBP = (1 - p) * sum_i g_i * p^(i - 1)`` over the retrieved documents (the top k
        with ``@k``). By default (``gain='binary'``) g_i = 1 for labels >= rel and 0
        otherwise (unjudged documents count as non-relevant), and p = 0.8, as in
        ir_measures. The value is a lower bound: ``RBPResidual`` is the weight the
        unjudged and unretrieved positions could still add (``RBP + RBPResidual <= 1``).

        Graded gains (``gain='linear'``: g = label; ``'exp'``: 2**label - 1; or a mapping
        {label: gain}, the labels it does not list keeping gain = label) are those of
        trec_eval 10's ``rbp``, which is ``RBP(p=0.9, gain='linear')``: a query's gain
        table holds the listed labels and the levels 0 to its largest judged label
        (levels below rel have gain 0); when a gain of the table lies below 0 or above 1,
        every gain g of it becomes (g - min) / (max - min), min and max taken over the
        table and 0. Unjudged documents and negative labels have gain 0. (trec_eval 10
        leaves min and max uninitialised; this is its reading with both starting at 0,
        what it computes when ``rbp`` is not asked for with ``ndcg`` or ``dcg``.)

        References
        ----------
        A. Moffat and J. Zobel. Rank-biased precision for measurement of retrieval
        effectiveness. ACM TOIS 27(1), 2008.
        """,
    )
)

RBPResidual = register(
    Family(
        "RBPResidual",
        _rbp_residual,
        params=(
            _persistence_param(),
            Param(
                "zero_when_judged",
                False,
                boolean,
                "0 when every retrieved document is judged (trec_eval 10's rbp_resid), "
                "instead of the weight p^n below the ranking",
            ),
        ),
        cutoff="optional",
        aliases=("rbp_resid", "rbp_residual"),
        trec_eval=(
            TrecMeasure(
                "rbp_resid",
                "RBPResidual(p=0.9, zero_when_judged=True)",
                parameter="pairs",
                leveled=False,
            ),
        ),
        doc="""RBP residual: the RBP weight of the positions whose relevance is unknown.

        ``(1 - p) * sum_{unjudged i <= n} p^(i - 1) + p^n``, with n the number retrieved
        (or min(k, n) with ``@k``): unjudged retrieved documents (no label or a negative
        label) and the unbounded tail below the ranking. It equals
        ``1 - (1 - p) * sum_{judged i} p^(i - 1)``; RBP lies in [RBP, RBP + residual]
        whatever the missing judgments are (Moffat & Zobel 2008, section 4).
        With ``zero_when_judged=True`` the residual is 0 when no retrieved document (in
        the top k) is unjudged: trec_eval 10's ``rbp_resid`` is
        ``RBPResidual(p=0.9, zero_when_judged=True)``, computed in its order of operations
        (``p^n + (1 - p) * sum_{unjudged i} p^(i - 1)``).
        """,
    )
)
