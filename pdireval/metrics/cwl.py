"""C/W/L user-model measures (Moffat et al.), computed as the ``cwl_eval`` tool computes them.

In the C/W/L framework (Moffat, Bailey, Scholer & Thomas 2017; Azzopardi, Thomas & Moffat
2019) a measure is a user model: after reading the document at position i the user goes
on with probability ``C(i)``, the *continuation* function. It fixes the share of
attention each position gets, ``W(i) = prod_{j<i} C(j) / sum_m prod_{j<m} C(j)``, and the
chance that position i is the last one read, ``L(i) = prod_{j<i} C(j) * (1 - C(i))``.
From them come five numbers per query, ``cwl_eval``'s columns:

``EU``
    expected utility per document read, ``sum_i W(i) g_i`` -- the measure's usual value
    (P@k, RBP, INST, ...);
``ETU``
    expected total utility, ``sum_i L(i) sum_{j<=i} g_j``;
``EC``
    expected cost per document read, ``sum_i W(i) c_i``;
``ETC``
    expected total cost, ``sum_i L(i) sum_{j<=i} c_j``;
``ED``
    expected depth, the expected number of documents read, ``1 / W(1)``.

Each family gives ``EU`` by default and any of them with ``value=``
(``INST(T=3, value='ED')``). The gain of a document is ``min(label, max_label) /
max_label`` for labels >= rel and 0 otherwise, unjudged documents included. The default
``max_label=1`` makes every relevant document worth 1 (``cwl_eval`` reads gains in [0, 1]
from its qrels); ``max_label='query'`` takes each query's largest judged label. Every
document costs ``cost`` (1 by default, as ``cwl_eval`` without a cost file), so EC equals
``cost`` and ETC is ``cost`` times the documents read before stopping.

Each has a residual, ``value='ResEU'`` to ``'ResED'`` (``cwl_eval -r``): the value if
every document without a judgment -- unjudged, negatively labelled, or below the ranking
within the depth -- had gain 1, minus the value given above, where they have gain 0. It
bounds what missing judgments can change; for ETC and ED it may be negative (a user who
finds the gain sooner may stop sooner).

The user model runs over exactly ``k`` positions -- the top k of the ranking, padded with
documents of gain 0 when fewer were retrieved -- with ``@k``, and over 1000 positions
(``cwl_eval``'s default ``--max_depth``) without it; documents below that depth are not
read. The families have no closed form under ``ties="average"``.

Examples
--------
>>> import pandas as pd, pdireval
>>> df = pd.DataFrame({"query": "q1", "doc": ["a", "b", "c", "d"], "rank": [1, 2, 3, 4],
...                    "rel": [0, 1, 0, 1]})
>>> values = ["EU", "ETU", "EC", "ETC", "ED"]
>>> pdireval.evaluate(df, [f"INST(T=1, value='{v}')" for v in values]).round(4).T
query                  q1
metric
INST               0.2729
INST(value='ETU')  0.5556
INST(value='EC')   1.0000
INST(value='ETC')  2.0349
INST(value='ED')   2.0359
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from pdireval._core.errors import MetricError
from pdireval._prepare.ranked import Ranked
from pdireval.metrics._base import (
    Cutoff,
    Family,
    Param,
    number_above,
    one_of,
    plain_number,
    register,
    rel_param,
)
from pdireval.metrics.err import _max_label
from pdireval.metrics.rank_biased import _persistence

__all__ = ["AP_CWL", "BPM", "IFT", "INST", "P_CWL", "RBP_CWL", "RR_CWL", "TBG", "U"]

#: The five numbers of one C/W/L measure, in cwl_eval's column order.
VALUES = ("EU", "ETU", "EC", "ETC", "ED")

#: Their residuals (cwl_eval -r): best case (gain 1 where unjudged) minus worst case.
RESIDUALS = tuple(f"Res{value}" for value in VALUES)

#: Positions the user model runs over without ``@k`` (cwl_eval's default --max_depth).
DEFAULT_DEPTH = 1000

#: At most this many (query, position) cells are held at once; queries go in blocks.
_BLOCK_CELLS = 1 << 21

#: A model returns ``("C", continuation)`` or ``("W", unnormalised weights)``.
Model = Callable[..., tuple[str, np.ndarray]]


#: The gain of every judged retrieved row of a Ranked and whether it counts as judged:
#: ``scale(ranked, **parameters) -> (gains, known)``. Rows not known -- and the positions
#: below the ranking -- have gain 0, or 1 in the best case of a residual.
Scale = Callable[..., tuple[np.ndarray, np.ndarray]]


def _label_scale(
    ranked: Ranked, *, rel: int, max_label: int | str
) -> tuple[np.ndarray, np.ndarray]:
    """``min(label, max_label) / max_label`` for labels >= rel, else 0; negative labels
    are not judgments.
    """
    label = ranked.label
    top = _top_labels(ranked, max_label)[ranked.group]
    counted = (label >= max(rel, 0)) & (top > 0)  # top 0: every label is 0 too
    gain = np.zeros(len(label))
    gain[counted] = np.minimum(label[counted], top[counted]) / top[counted]
    return gain, label >= 0


def _gains(
    ranked: Ranked,
    first: int,
    last: int,
    depth: int,
    scaled: tuple[np.ndarray, np.ndarray],
    best: bool,
) -> np.ndarray:
    """Gains of groups ``first..last-1`` at positions 1..depth, from the rows' ``scaled``
    gains and known flags: where no judgment is known (unjudged, not retrieved) 0, or 1
    in the ``best`` case.
    """
    order = ranked.cached("cwl_order", lambda: np.argsort(ranked.group, kind="stable"))
    groups = ranked.group[order]
    lo, hi = np.searchsorted(groups, [first, last])
    gain, known = scaled
    rows = order[lo:hi]
    rows = rows[(ranked.position[rows] <= depth) & known[rows]]
    gains = np.full((last - first, depth), 1.0 if best else 0.0)
    gains[ranked.group[rows] - first, ranked.position[rows] - 1] = gain[rows]
    return gains


def _top_labels(ranked: Ranked, max_label: int | str) -> np.ndarray:
    """The label worth a gain of 1 in each group: ``max_label``, or the group's largest."""
    if max_label != "query":
        return np.full(ranked.n_groups, float(max_label))

    def largest() -> np.ndarray:
        top = np.zeros(ranked.n_groups)
        judged = ranked.judged_label >= 0
        np.maximum.at(top, ranked.judged_group[judged], ranked.judged_label[judged])
        return top

    return ranked.cached("cwl_top_labels", largest)


def _five(
    model: Model, gains: np.ndarray, cost: float, params: dict[str, Any]
) -> tuple[np.ndarray, ...]:
    """EU, ETU, EC, ETC and ED of each row of ``gains`` under ``model``."""
    depth = gains.shape[1]
    costs = np.full(depth, float(cost))
    total_cost = np.cumsum(costs)
    total_gain = np.cumsum(gains, axis=1)
    kind, array = model(gains, total_gain, costs, total_cost, **params)
    if kind == "C":
        continuation = array
        reach = _reach(continuation)
        depth_read = reach.sum(axis=1)  # >= 1: the first position is always read
        weights = reach / depth_read[:, None]
    else:  # weights given: C(i) = W(i+1) / W(i), 0 where W(i) = 0 and at the last position
        continuation = np.zeros_like(array)
        np.divide(array[:, 1:], array[:, :-1], out=continuation[:, :-1], where=array[:, :-1] > 0)
        reach = _reach(continuation)
        with np.errstate(divide="ignore", invalid="ignore"):
            norm = array.sum(axis=1)
            weights = array / norm[:, None]
            depth_read = norm / array[:, 0]
    last = reach * (1.0 - continuation)
    return (
        np.einsum("ij,ij->i", weights, gains),
        np.einsum("ij,ij->i", last, total_gain),
        weights @ costs,
        last @ total_cost,
        depth_read,
    )


def _reach(continuation: np.ndarray) -> np.ndarray:
    """``prod_{j<i} C(j)`` per row: the probability that position i is read."""
    shifted = np.ones_like(continuation)
    shifted[:, 1:] = continuation[:, :-1]
    return np.cumprod(shifted, axis=1)


def _kernel(
    name: str,
    model: Model,
    *,
    scale: Scale = _label_scale,
    scale_params: tuple[str, ...] = ("rel", "max_label"),
    truncates: bool = False,
) -> Callable[..., np.ndarray]:
    """The kernel of a C/W/L family: one of its five values per group.

    ``scale`` turns labels into gains with the family's ``scale_params``; the model takes
    the family's other parameters. The user model runs over ``k`` positions with ``@k``
    and over :data:`DEFAULT_DEPTH` without it -- unless the family ``truncates``: then
    ``k`` is the model's own parameter (it stops the user at k) inside at most
    :data:`DEFAULT_DEPTH` positions, as ``cwl_eval`` computes such measures.
    """

    def kernel(
        ranked: Ranked, *, k: int | None, cost: float, value: str, **params: Any
    ) -> np.ndarray:
        scaling = {key: params.pop(key) for key in scale_params}
        if truncates:
            depth = min(DEFAULT_DEPTH, k) if k is not None else DEFAULT_DEPTH
            params["k"] = k
        else:
            depth = DEFAULT_DEPTH if k is None else k
        options = (depth, tuple(sorted(scaling.items())), cost, tuple(sorted(params.items())))

        def values(best: bool) -> tuple[np.ndarray, ...]:
            def compute() -> tuple[np.ndarray, ...]:
                scaled = ranked.cached(
                    ("cwl_gains", scale, options[1]), lambda: scale(ranked, **scaling)
                )
                return _all_values(ranked, model, depth, scaled, cost, params, best)

            return ranked.cached(("cwl", name, best, options), compute)

        if value in VALUES:
            return values(False)[VALUES.index(value)]
        index = RESIDUALS.index(value)
        return values(True)[index] - values(False)[index]

    kernel.__name__ = kernel.__qualname__ = f"_{name.lower()}"
    return kernel


def _all_values(
    ranked: Ranked,
    model: Model,
    depth: int,
    scaled: tuple[np.ndarray, np.ndarray],
    cost: float,
    params: dict[str, Any],
    best: bool,
) -> tuple[np.ndarray, ...]:
    """The five values of every group, a block of groups at a time."""
    out = tuple(np.zeros(ranked.n_groups) for _ in VALUES)
    block = max(1, _BLOCK_CELLS // depth)
    for first in range(0, ranked.n_groups, block):
        last = min(first + block, ranked.n_groups)
        gains = _gains(ranked, first, last, depth, scaled, best)
        for target, values in zip(out, _five(model, gains, cost, params), strict=True):
            target[first:last] = values
    return out


# --- continuation and weight functions ------------------------------------------------------


def _positions(width: int) -> np.ndarray:
    return np.arange(1, width + 1, dtype=np.float64)


def _precision(gains: np.ndarray, *_: np.ndarray) -> tuple[str, np.ndarray]:
    # the depth is k: read on until position k, then stop
    continuation = np.ones_like(gains)
    continuation[:, -1] = 0.0
    return "C", continuation


def _scaled_dcg(gains: np.ndarray, *_: np.ndarray) -> tuple[str, np.ndarray]:
    i = _positions(gains.shape[1])
    continuation = np.log2(i + 1) / np.log2(i + 2)
    continuation[-1] = 0.0
    return "C", np.broadcast_to(continuation, gains.shape)


def _rank_biased(gains: np.ndarray, *_: np.ndarray, p: float) -> tuple[str, np.ndarray]:
    return "C", np.full_like(gains, p)


def _reciprocal_rank(
    gains: np.ndarray, total_gain: np.ndarray, *_: np.ndarray
) -> tuple[str, np.ndarray]:
    return "C", (total_gain <= 0).astype(np.float64)


def _average_precision(gains: np.ndarray, *_: np.ndarray) -> tuple[str, np.ndarray]:
    # S(i) = sum_{j>=i} g_j / j; C(i) = S(i+1) / S(i), 0 once nothing relevant is left below
    below = np.cumsum((gains / _positions(gains.shape[1]))[:, ::-1], axis=1)[:, ::-1]
    continuation = np.zeros_like(gains)
    np.divide(below[:, 1:], below[:, :-1], out=continuation[:, :-1], where=below[:, 1:] > 0)
    return "C", continuation


def _inst(
    gains: np.ndarray,
    total_gain: np.ndarray,
    *_: np.ndarray,
    T: float,  # noqa: N803
) -> tuple[str, np.ndarray]:
    # C(i) = ((i + T + T_i - 1) / (i + T + T_i))^2, T_i = T - sum_{j<=i} g_j
    base = _positions(gains.shape[1]) + 2.0 * T - total_gain
    return "C", ((base - 1.0) / base) ** 2


def _bpm(
    gains: np.ndarray,
    total_gain: np.ndarray,
    costs: np.ndarray,
    total_cost: np.ndarray,
    *,
    T: float,  # noqa: N803 (the papers' name)
    K: float,  # noqa: N803
) -> tuple[str, np.ndarray]:
    return "C", ((total_gain < T) & (total_cost < K)).astype(np.float64)


def _tbg(
    gains: np.ndarray,
    total_gain: np.ndarray,
    costs: np.ndarray,
    total_cost: np.ndarray,
    *,
    halflife: float,
) -> tuple[str, np.ndarray]:
    # W(i) ~ 2^(-t_i / h), t_i the time spent before reaching position i
    before = np.r_[0.0, total_cost[:-1]]
    return "W", np.broadcast_to(np.exp2(-before / halflife), gains.shape)


def _u_measure(
    gains: np.ndarray,
    total_gain: np.ndarray,
    costs: np.ndarray,
    total_cost: np.ndarray,
    *,
    L: float,  # noqa: N803
) -> tuple[str, np.ndarray]:
    # W(i) ~ max(0, 1 - t_i / L), t_i the text read before position i; 0 at the last one
    before = np.r_[0.0, total_cost[:-1]]
    weights = np.maximum(0.0, 1.0 - before / L)
    if len(weights) > 1:  # at depth 1 the one document is read (cwl_eval divides 0 by 0)
        weights[-1] = 0.0
    return "W", np.broadcast_to(weights, gains.shape)


def _expit(z: np.ndarray) -> np.ndarray:
    """``1 / (1 + exp(-z))`` without overflow: exp is only taken of numbers <= 0."""
    out = np.empty_like(z)
    high = z >= 0
    out[high] = 1.0 / (1.0 + np.exp(-z[high]))
    low = np.exp(z[~high])
    out[~high] = low / (1.0 + low)
    return out


def _ift(
    gains: np.ndarray,
    total_gain: np.ndarray,
    costs: np.ndarray,
    total_cost: np.ndarray,
    *,
    T: float,  # noqa: N803
    b1: float,
    R1: float,  # noqa: N803
    A: float,  # noqa: N803
    b2: float,
    R2: float,  # noqa: N803
    variant: str,
) -> tuple[str, np.ndarray]:
    # goal: 1 - 1 / (1 + b1 e^((T - y_i) R1)); rate: 1 / (1 + b2 e^((A - y_i / k_i) R2)),
    # y_i the gain and k_i the cost so far; 1 / (1 + b e^x) is expit(-(x + ln b))
    continuation = np.ones_like(gains)
    if variant in ("goal", "both"):
        continuation *= _expit((T - total_gain) * R1 + np.log(b1))
    if variant in ("rate", "both"):
        continuation *= _expit(-((A - total_gain / total_cost) * R2 + np.log(b2)))
    return "C", continuation


# --- the families ------------------------------------------------------------------------------


def _params(*model: Param) -> tuple[Param, ...]:
    """``rel``, the model's own parameters, then those every C/W/L family shares."""
    return (
        rel_param(),
        *model,
        Param(
            "max_label",
            1,
            _max_label,
            "the label worth a gain of 1 (gain = min(label, max_label) / max_label), or "
            "'query' for each query's largest judged label",
        ),
        Param("cost", 1, number_above(0), "the cost of reading one document"),
        Param(
            "value",
            "EU",
            one_of(*VALUES, *RESIDUALS),
            "which C/W/L quantity: EU, ETU, EC, ETC or ED, or its residual (ResEU, ...)",
        ),
    )


def _family(
    name: str,
    model: Model,
    doc: str,
    *,
    params: tuple[Param, ...] = (),
    cutoff: Cutoff = "optional",
    aliases: tuple[str, ...] = (),
) -> Family:
    return register(
        Family(
            name,
            _kernel(name, model),
            params=_params(*params),
            cutoff=cutoff,
            aliases=aliases,
            bounded=False,
            doc=doc,
        )
    )


_REFERENCES = """
        References: A. Moffat, P. Bailey, F. Scholer and P. Thomas (2017), Incorporating
        user expectations and behavior into the measurement of search effectiveness, ACM
        TOIS 35(3); L. Azzopardi, P. Thomas and A. Moffat (2019), cwl_eval: an evaluation
        tool for information retrieval, SIGIR."""

P_CWL = _family(
    "P_CWL",
    _precision,
    cutoff="required",
    aliases=("CWL_P",),
    doc="""Precision at k as a C/W/L user model: read exactly k documents.

        ``C(i) = 1`` for i < k and 0 at k, so ``EU = sum_{i<=k} g_i / k`` (trec_eval's
        P@k with the default ``max_label=1``), ``ETU = sum_{i<=k} g_i`` and ``ED = k``
        (Moffat et al. 2017; ``cwl_eval``'s ``P@k``).
        """
    + _REFERENCES,
)

SDCG = _family(
    "SDCG",
    _scaled_dcg,
    cutoff="required",
    aliases=("CWL_nDCG", "NDCG_CWL"),
    doc="""Scaled DCG at k as a C/W/L user model: DCG@k over the sum of its discounts.

        ``C(i) = log2(i + 1) / log2(i + 2)`` for i < k and 0 at k, so ``W(i)`` is
        ``1 / log2(i + 1)`` over ``sum_{j<=k} 1 / log2(j + 1)`` and ``EU`` is DCG@k divided
        by that sum -- not by the ideal DCG as nDCG is (Moffat et al. 2017; ``cwl_eval``'s
        ``NDCG-k@k``; Järvelin & Kekäläinen 2002 for DCG).
        """
    + _REFERENCES,
)

RBP_CWL = _family(
    "RBP_CWL",
    _rank_biased,
    params=(Param("p", 0.8, _persistence, "persistence: probability of reading on"),),
    aliases=("CWL_RBP",),
    doc="""Rank-biased precision as a C/W/L user model: go on with probability p.

        ``C(i) = p``, so over the depth D (k, or 1000) ``EU = (1 - p) / (1 - p^D)
        * sum_i g_i p^(i - 1)`` -- ``RBP`` (Moffat & Zobel 2008) up to the mass p^D below
        the depth, which ``cwl_eval`` leaves out -- and ``ED = (1 - p^D) / (1 - p)``
        (``cwl_eval``'s ``RBP@p``).
        """
    + _REFERENCES,
)

RR_CWL = _family(
    "RR_CWL",
    _reciprocal_rank,
    aliases=("CWL_RR",),
    doc="""Reciprocal rank as a C/W/L user model: read until the first document with gain.

        ``C(i) = 1`` until the first document with a gain, 0 from there: ``ED`` is its rank
        (the depth when there is none), ``EU`` its gain over its rank -- ``RR`` with the
        default ``max_label=1`` (Kantor & Voorhees 2000; ``cwl_eval``'s ``RR``). With no
        such document the model never stops inside the depth, so ``ETU`` and ``ETC``
        are 0 there, as ``cwl_eval`` reports them.
        """
    + _REFERENCES,
)

AP_CWL = _family(
    "AP_CWL",
    _average_precision,
    aliases=("CWL_AP",),
    doc="""Average precision as a C/W/L user model: stop at a relevant document.

        With ``S(i) = sum_{j>=i} g_j / j`` over the depth, ``C(i) = S(i + 1) / S(i)`` (0
        once no gain is left below), so the user stops at relevant document j with
        probability proportional to g_j and ``EU = sum_j g_j P(j) / sum_j g_j``, P(j) the
        gain-weighted precision at j. The denominator is the gain *retrieved* within the
        depth, not R as in trec_eval's AP, so a run that finds one of ten relevant
        documents at rank 1 gets 1 (Moffat et al. 2017; ``cwl_eval``'s ``AP``). 0 when
        nothing with a gain was retrieved.
        """
    + _REFERENCES,
)

INST = register(
    Family(
        "INST",
        _kernel("INST", _inst),
        params=_params(
            Param("T", 1, number_above(0), "the gain the user expects to need (target)"),
        ),
        cutoff="optional",
        bounded=False,
        doc="""INST (Moffat et al. 2015): an adaptive user who wants T units of gain.

        ``C(i) = ((i + T + T_i - 1) / (i + T + T_i))^2`` with ``T_i = T - sum_{j<=i} g_j``,
        the gain still wanted: the user reads on longer when more is wanted and stops
        sooner once the target is met (``cwl_eval``'s ``INST-T=T``). The C/W/L values
        ``value=`` selects are described with the module.

        References: A. Moffat, P. Bailey, F. Scholer and P. Thomas (2015), INST: an
        adaptive metric for information retrieval evaluation, ADCS.
        """
        + _REFERENCES,
    )
)

BPM = register(
    Family(
        "BPM",
        _kernel("BPM", _bpm),
        params=_params(
            Param("T", 1, number_above(0), "the total gain the user wants (E_b)"),
            Param("K", 10, number_above(0), "the total cost the user will spend (E_c)"),
        ),
        cutoff="optional",
        bounded=False,
        doc="""Bejeweled player model (Zhang et al. 2017), static: stop at the gain or cost wanted.

        ``C(i) = 1`` while the gain read so far is below T and the cost spent below K, 0
        from the first position where either is reached (``cwl_eval``'s
        ``BPM-Static-T=T-K=K``). With unit costs K is the number of documents the user
        will read at most.

        References: F. Zhang, Y. Liu, X. Li, M. Zhang, Y. Xu and S. Ma (2017), Evaluating
        web search with a bejeweled player model, SIGIR.
        """
        + _REFERENCES,
    )
)

TBG = register(
    Family(
        "TBG",
        _kernel("TBG", _tbg),
        params=_params(
            Param(
                "halflife", 224, number_above(0), "the time (cost) by which half the users stopped"
            ),
        ),
        cutoff="optional",
        bounded=False,
        doc="""Time-biased gain (Smucker & Clarke 2012) as a C/W/L user model.

        The attention position i gets decays with the time ``t_i`` spent before reaching
        it: ``W(i)`` is ``2^(-t_i / h)`` normalised over the depth, h the half-life
        (224 seconds in the paper, ``cwl_eval``'s ``TBG-H@h``); t_i is ``cost`` times
        (i - 1). With equal costs it is ``RBP_CWL`` with ``p = 2^(-cost / h)``.

        References: M. D. Smucker and C. L. A. Clarke (2012), Time-based calibration of
        effectiveness measures, SIGIR.
        """
        + _REFERENCES,
    )
)

U = register(
    Family(
        "U",
        _kernel("U", _u_measure),
        params=_params(
            Param(
                "L", 1000, number_above(0), "the amount of text (cost) after which nobody reads on"
            ),
        ),
        cutoff="optional",
        aliases=("U_measure", "UMeasure"),
        bounded=False,
        doc="""U-measure (Sakai & Dou 2013) as a C/W/L user model: a linear decay over text read.

        ``W(i)`` is ``max(0, 1 - t_i / L)`` normalised over the first D - 1 positions of
        the depth D (the last gets 0, as in ``cwl_eval``'s ``U-L@L``), t_i the text read
        before position i (``cost`` times (i - 1); with characters as costs, L is in
        characters). At depth 1 the one document gets all the weight (``cwl_eval`` gives
        NaN there: no position has weight).

        References: T. Sakai and Z. Dou (2013), Summaries, ranked retrieval and sessions:
        a unified framework for information access evaluation, SIGIR.
        """
        + _REFERENCES,
    )
)


def _at_least_zero(name: str, value: Any) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float | np.number) or not value >= 0:
        msg = f"parameter {name}= must be a number >= 0, got {value!r}"
        raise MetricError(msg)
    return plain_number(value)


IFT = register(
    Family(
        "IFT",
        _kernel("IFT", _ift),
        params=_params(
            Param("T", 2, number_above(0), "the gain the user wants (goal)"),
            Param("b1", 0.9, number_above(0), "intercept of the goal term"),
            Param("R1", 10, _at_least_zero, "how strictly the user stops at the goal"),
            Param("A", 0.2, _at_least_zero, "the rate of gain per cost the user expects"),
            Param("b2", 0.9, number_above(0), "intercept of the rate term"),
            Param("R2", 10, _at_least_zero, "how strictly the user stops below the rate"),
            Param(
                "variant",
                "both",
                one_of("both", "goal", "rate"),
                "the goal term, the rate term, or their product",
            ),
        ),
        cutoff="optional",
        bounded=False,
        doc="""Information foraging measure (Azzopardi, Thomas & Craswell 2018): goal and rate.

        With ``y_i`` the gain and ``k_i`` the cost up to position i, the user goes on with
        ``C(i) = C1(i) * C2(i)``: ``C1 = 1 - 1 / (1 + b1 e^((T - y_i) R1))`` falls once
        the goal T is reached, ``C2 = 1 / (1 + b2 e^((A - y_i / k_i) R2))`` falls when the
        rate of gain drops below A. ``variant='goal'`` or ``'rate'`` keeps one term
        (``cwl_eval``'s ``IFT-C1``, ``IFT-C2`` and ``IFT-C1-C2``). R1 = R2 = 0 gives a
        constant continuation, as RBP. The defaults are the values of ``cwl_eval``'s
        examples, not fitted ones.

        References: L. Azzopardi, P. Thomas and N. Craswell (2018), Measuring the utility
        of search engine result pages: an information foraging based measure, SIGIR.
        """
        + _REFERENCES,
    )
)

for _declared in (P_CWL, SDCG, RBP_CWL, RR_CWL, AP_CWL, INST, BPM, TBG, U, IFT):
    # what the measures catalogue says of the family without @k
    _declared.without_cutoff = (  # type: ignore[attr-defined]
        f"the top {DEFAULT_DEPTH} positions (cwl_eval's default depth)"
    )
