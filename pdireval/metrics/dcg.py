"""Discounted cumulative gain: ``DCG``/``DCG@k`` and its normalised form ``nDCG``/``nDCG@k``."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np

from pdireval._core.errors import MetricError
from pdireval._prepare.ranked import Ranked, block_starts, positions_in_blocks, safe_divide
from pdireval.metrics._base import (
    TREC_CUTOFFS,
    Family,
    Param,
    TrecMeasure,
    boolean,
    number_above,
    one_of,
    plain_number,
    register,
    rel_param,
)
from pdireval.metrics._expected import expected_discounted_gain
from pdireval.metrics._segments import last_at_or_before, libm_log2, running_sum

GainSpec = str | tuple[tuple[int, float], ...]

#: 2**1023 is the largest power of two a float64 holds.
_LARGEST_EXP_LABEL = 1023


def _check_gain(name: str, value: Any) -> GainSpec:
    if isinstance(value, str):
        return one_of("linear", "exp")(name, value)
    if isinstance(value, Mapping | tuple):
        pairs = dict(value)
        for label, gain in pairs.items():
            if isinstance(label, bool) or not isinstance(label, int | np.integer):
                msg = f"gain= mapping keys must be whole relevance labels, got {label!r}"
                raise MetricError(msg)
            if isinstance(gain, bool) or not isinstance(gain, int | float | np.number):
                msg = f"gain= mapping values must be numbers, got {gain!r} for label {label}"
                raise MetricError(msg)
            if not np.isfinite(gain):
                msg = f"gain= mapping gives label {label} the gain {gain!r}; gains must be finite"
                raise MetricError(msg)
            if not gain >= 0:
                msg = (
                    f"gain= mapping gives label {label} the gain {gain!r}; gains must be >= 0 "
                    "(a negative gain would let nDCG leave [0, 1])"
                )
                raise MetricError(msg)
        return tuple(sorted((int(label), plain_number(gain)) for label, gain in pairs.items()))
    msg = f"gain= must be 'linear', 'exp' or a mapping {{label: gain}}, got {value!r}"
    raise MetricError(msg)


def _show_gain(value: GainSpec) -> str:
    return repr(value) if isinstance(value, str) else repr(dict(value))


def _gains(labels: np.ndarray, gain: GainSpec, rel: int, known: np.ndarray) -> np.ndarray:
    """Gain of each label; 0 for unjudged, negative or below-``rel`` labels unless a
    gain mapping lists them.
    """
    counted = labels >= max(rel, 0)
    out = np.zeros(len(labels), dtype=np.float64)
    if gain == "linear":
        out[counted] = labels[counted]
    elif gain == "exp":
        top = np.max(known, initial=0.0)
        if top > _LARGEST_EXP_LABEL:
            msg = (
                f"gain='exp' (2**label - 1) exceeds the largest float64 for labels above "
                f"{_LARGEST_EXP_LABEL}, and the judgments hold label {top:g}; use "
                "gain='linear' or a gain mapping {label: gain}"
            )
            raise MetricError(msg)
        out[counted] = np.exp2(labels[counted]) - 1.0
    elif not isinstance(gain, str):  # listed labels get their gain whatever rel is; the
        table = dict(gain)  # others keep gain = label
        out[counted] = labels[counted]
        levels = np.array(sorted(table), dtype=np.float64)
        values = np.array([table[level] for level in sorted(table)], dtype=np.float64)
        listed = np.isin(labels, levels)
        out[listed] = values[np.searchsorted(levels, labels[listed])]
    return out


def _discount(position: np.ndarray, discount: str, base: float) -> np.ndarray:
    if discount == "log2":  # as trec_eval: the C library's log2
        return libm_log2(position + 1.0)
    if discount == "none":
        return np.ones(len(position))
    return np.maximum(1.0, np.log(position) / np.log(base))


def _ideal(ranked: Ranked, gain: GainSpec, rel: int) -> tuple[np.ndarray, ...]:
    """Judged gains of each group in descending order, with their ideal positions."""

    def compute() -> tuple[np.ndarray, ...]:
        gains = _gains(ranked.judged_label, gain, rel, ranked.judged_label)
        keep = gains != 0
        group, gains = ranked.judged_group[keep], gains[keep]
        order = np.lexsort((-gains, group))
        group, gains = group[order], gains[order]
        return group, gains, positions_in_blocks(block_starts(group), len(group))

    return ranked.cached(("ideal", gain, rel), compute)


def _row_gains(ranked: Ranked, gain: GainSpec, rel: int) -> np.ndarray:
    return ranked.cached(
        ("gains", gain, rel), lambda: _gains(ranked.label, gain, rel, ranked.judged_label)
    )


def _expected_dcg(
    ranked: Ranked, *, k: int | None, rel: int, gain: GainSpec, discount: str, base: float
) -> np.ndarray:
    return expected_discounted_gain(
        ranked, _row_gains(ranked, gain, rel), k, lambda p: _discount(p, discount, base)
    )


def _dcg(ranked: Ranked, *, k: int | None, rel: int, gain: GainSpec, discount: str, base: float):
    gains = _row_gains(ranked, gain, rel)
    counted = gains != 0
    if k is not None:
        counted &= ranked.position <= k
    weights = gains[counted] / _discount(ranked.position[counted], discount, base)
    return np.bincount(ranked.group[counted], weights=weights, minlength=ranked.n_groups)


def _ideal_dcg(ranked: Ranked, *, k: int | None, rel: int, gain: GainSpec, discount: str, base):
    group, gains, position = _ideal(ranked, gain, rel)
    counted = slice(None) if k is None else position <= k
    weights = gains[counted] / _discount(position[counted], discount, base)
    return np.bincount(group[counted], weights=weights, minlength=ranked.n_groups)


def _ndcg(ranked: Ranked, *, rel_only: bool, **options: Any) -> np.ndarray:
    if rel_only:
        return _ndcg_at_relevant(ranked, **options)
    return safe_divide(_dcg(ranked, **options), _ideal_dcg(ranked, **options))


def _expected_ndcg(ranked: Ranked, *, rel_only: bool, **options: Any) -> np.ndarray:
    if rel_only:
        msg = "ties='average' is not defined for nDCG(rel_only=True); use another tie policy"
        raise MetricError(msg)
    return safe_divide(_expected_dcg(ranked, **options), _ideal_dcg(ranked, **options))


def _ideal_cumulative(ranked: Ranked, gain: GainSpec, rel: int, discount: str, base: float):
    """Ideal rows (group, position) with the ideal DCG at each, and the count per group."""

    def compute() -> tuple[np.ndarray, ...]:
        group, gains, position = _ideal(ranked, gain, rel)
        dcg = running_sum(gains / _discount(position, discount, base), group)
        return group, position, dcg, np.bincount(group, minlength=ranked.n_groups)

    return ranked.cached(("ideal_dcg_rows", gain, rel, discount, base), compute)


def _counted_dcg(ranked: Ranked, k: int | None, rel: int, gain: GainSpec, discount, base):
    """Rows with a non-zero gain (within k), their gains and the DCG down to each."""
    gains = ranked.cached(
        ("gains", gain, rel), lambda: _gains(ranked.label, gain, rel, ranked.judged_label)
    )
    counted = gains != 0
    if k is not None:
        counted &= ranked.position <= k
    group, position, gains = ranked.group[counted], ranked.position[counted], gains[counted]
    dcg = running_sum(gains / _discount(position, discount, base), group)
    return group, position, gains, dcg


def _ndcg_at_relevant(ranked: Ranked, *, k: int | None, rel: int, gain, discount, base):
    """trec_eval ndcg_rel: nDCG at the rank of each relevant document, averaged over them."""
    ideal_group, ideal_position, ideal_dcg, n_relevant = _ideal_cumulative(
        ranked, gain, rel, discount, base
    )
    group, position, _, dcg = _counted_dcg(ranked, k, rel, gain, discount, base)
    at_rank = last_at_or_before(ideal_group, ideal_position, ideal_dcg, group, position)
    total = np.bincount(group, weights=dcg / at_rank, minlength=ranked.n_groups)
    # Relevant documents not retrieved (within k) score the nDCG of the whole ranking.
    missed = n_relevant - np.bincount(group, minlength=ranked.n_groups)
    full = _dcg(ranked, k=k, rel=rel, gain=gain, discount=discount, base=base)
    ideal = _ideal_dcg(ranked, k=None, rel=rel, gain=gain, discount=discount, base=base)
    total = total + safe_divide(missed * full, ideal)  # trec_eval's order: (m * dcg) / idcg
    return safe_divide(total, n_relevant)


def _r_ndcg(ranked: Ranked, *, k: None, rel: int, gain: GainSpec) -> np.ndarray:
    """trec_eval Rndcg: nDCG averaged at the ranks where the ideal gain drops."""
    discount, base = "log2", 2
    ideal_group, ideal_position, ideal_dcg, n_relevant = _ideal_cumulative(
        ranked, gain, rel, discount, base
    )
    _, ideal_gains, _ = _ideal(ranked, gain, rel)
    group, position, _, dcg = _counted_dcg(ranked, None, rel, gain, discount, base)
    # An R level ends where the next ideal row has a smaller gain or another query.
    ends = np.ones(len(ideal_group), dtype=bool)
    ends[:-1] = (ideal_group[1:] != ideal_group[:-1]) | (ideal_gains[1:] != ideal_gains[:-1])
    level_group, level_rank = ideal_group[ends], ideal_position[ends]
    results = last_at_or_before(group, position, dcg, level_group, level_rank)
    total = np.bincount(level_group, weights=results / ideal_dcg[ends], minlength=ranked.n_groups)
    points = np.bincount(level_group, minlength=ranked.n_groups).astype(np.float64)
    # trec_eval adds the nDCG of the whole ranking when it goes on past the ideal
    # ranking's last positive gain by two documents or more.
    tail = (n_relevant > 0) & (ranked.num_ret >= n_relevant + 2)
    full = _dcg(ranked, k=None, rel=rel, gain=gain, discount=discount, base=base)
    ideal = _ideal_dcg(ranked, k=None, rel=rel, gain=gain, discount=discount, base=base)
    total = total + np.where(tail, safe_divide(full, ideal), 0.0)
    return safe_divide(total, points + tail)


def _check_base(options: dict[str, Any]) -> None:
    if options.get("discount", "none") != "jarvelin" and options["base"] != 2:
        msg = "base= only applies to discount='jarvelin'; the 'log2' discount is log2(rank + 1)"
        raise MetricError(msg)


def _cumulative_gain(ranked: Ranked, *, k: int | None, rel: int, gain: GainSpec) -> np.ndarray:
    return _dcg(ranked, k=k, rel=rel, gain=gain, discount="none", base=2)


def _expected_cumulative_gain(
    ranked: Ranked, *, k: int | None, rel: int, gain: GainSpec
) -> np.ndarray:
    return _expected_dcg(ranked, k=k, rel=rel, gain=gain, discount="none", base=2)


def _dcg_params() -> tuple[Param, ...]:
    return (
        rel_param(),
        Param(
            "gain",
            "linear",
            _check_gain,
            "'linear' (gain = label), 'exp' (2**label - 1) or a mapping {label: gain} "
            "(labels it does not list keep gain = label)",
            show=_show_gain,
        ),
        Param(
            "discount",
            "log2",
            one_of("log2", "jarvelin", "none"),
            "'log2': 1/log2(rank + 1); 'jarvelin': 1/max(1, log_base(rank)); 'none' (CG)",
        ),
        Param("base", 2, number_above(1), "logarithm base of the 'jarvelin' discount"),
    )


DCG = register(
    Family(
        "DCG",
        _dcg,
        average_kernel=_expected_dcg,
        params=_dcg_params(),
        cutoff="optional",
        bounded=False,
        constraint=_check_base,
        trec_eval=(TrecMeasure("dcg", "DCG", parameter="pairs", leveled=False),),
        doc="""Discounted cumulative gain of the top k (all retrieved documents without k).

        ``DCG@k = sum_{i=1..k} gain(label_i) / discount(i)``. By default (as trec_eval)
        gain = label for labels >= rel and discount = log2(i + 1). ``gain='exp'`` uses
        2**label - 1 (Burges et al. 2005); ``discount='jarvelin'`` with ``base=b``
        leaves ranks below b undiscounted and divides by log_b(i) from there
        (Järvelin & Kekäläinen 2002; with b = 2: rel_1 + sum_{i>=2} rel_i / log2 i).
        Unjudged and negatively labelled documents have gain 0. ``DCG`` is trec_eval 10's
        ``dcg``, the numerator of its ``ndcg`` (``dcg.1=3,2=9`` is ``DCG(gain={1: 3, 2:
        9})``).
        """,
    )
)


def _ir_measures_dcg(params: dict[str, Any]) -> tuple[str, dict[str, Any]]:
    """ir_measures' spellings: ``dcg='log2'`` (gain = label) or ``'exp-log2'``
    (2**label - 1), and ``gains={label: gain}``; both with the log2 discount.
    """
    if "dcg" in params:
        dcg = params.pop("dcg")
        spelled = {"log2": "linear", "exp-log2": "exp"}
        if dcg not in spelled:
            msg = f"dcg={dcg!r}: ir_measures' DCG formulations are 'log2' and 'exp-log2'"
            raise MetricError(msg)
        if "gain" in params or ("gains" in params and dcg != "log2"):
            msg = "give the gains once: dcg= (ir_measures) or gain=/gains=, not both"
            raise MetricError(msg)
        params["gain"] = spelled[dcg]
    if "gains" in params:
        if "gain" in params and params["gain"] != "linear":
            msg = "give the gains once: gains= (ir_measures) or gain=, not both"
            raise MetricError(msg)
        params["gain"] = params.pop("gains")
    return "nDCG", params


nDCG = register(
    Family(
        "nDCG",
        _ndcg,
        average_kernel=_expected_ndcg,
        params=(
            *_dcg_params(),
            Param(
                "rel_only",
                False,
                boolean,
                "average nDCG at the rank of each relevant document (trec_eval ndcg_rel)",
            ),
        ),
        cutoff="optional",
        aliases=("ndcg",),
        cutoff_aliases=("ndcg_cut", "ndcg"),
        presets={"ndcg_rel": {"rel_only": True}},
        constraint=_check_base,
        judged_only=True,
        synonyms=_ir_measures_dcg,
        trec_eval=(
            TrecMeasure("ndcg", "nDCG", parameter="pairs", leveled=False),
            TrecMeasure("ndcg_rel", "ndcg_rel", parameter="pairs", leveled=False),
            TrecMeasure("ndcg_cut", "nDCG@{}", TREC_CUTOFFS, "cutoffs", leveled=False),
        ),
        doc="""Normalised DCG: DCG@k divided by the DCG@k of the ideal ranking.

        The ideal ranking orders *all* judged documents of the query (retrieved or
        not) by decreasing gain, as trec_eval's ``ndcg`` / ``ndcg_cut_k`` do; nDCG is 0
        when the ideal DCG is 0. Gain and discount options are those of ``DCG``.
        trec_eval's ``ndcg`` ignores the relevance level (-l); here ``rel=`` zeroes the
        gain of labels below it, which changes nothing at the default rel=1.

        ``nDCG(rel_only=True)`` (trec_eval ``ndcg_rel``, also accepted by that name) is
        the mean, over the judged documents with a positive gain (R of them), of nDCG
        at the rank of each: ``DCG@r_i / IDCG@r_i`` for a relevant document retrieved
        at rank r_i, and the nDCG of the whole ranking for each one not retrieved; 0
        when R = 0. With ``@k`` the ranking is cut at k first (trec_eval ``-M k``).
        """,
    )
)

Rndcg = register(
    Family(
        "Rndcg",
        _r_ndcg,
        params=_dcg_params()[:2],
        aliases=("r_ndcg",),
        trec_eval=(TrecMeasure("Rndcg", "Rndcg", parameter="pairs", leveled=False),),
        doc="""nDCG averaged at the R levels of the ideal ranking (trec_eval ``Rndcg``).

        Sort the judged documents by decreasing gain; an R level is a rank where the
        ideal gain drops (the number of documents at each positive gain and above: with
        5 documents of gain 3, 3 of gain 2 and 10 of gain 1 the levels are 5, 8, 18).
        Rndcg is the mean of ``DCG@c / IDCG@c`` over these levels c and, when the
        ranking goes on at least two documents past the last level, of the nDCG of the
        whole ranking (trec_eval's "implied R level at num_retrieved", with its exact
        boundary). Discount log2(rank + 1); gains as in ``nDCG``. 0 when no judged
        document has a positive gain. trec_eval ignores -l except that a query without
        a document at the relevance level scores 0; here ``rel=`` zeroes the gains
        below it instead, which is the same at rel=1.
        """,
    )
)

CG = register(
    Family(
        "CG",
        _cumulative_gain,
        average_kernel=_expected_cumulative_gain,
        params=_dcg_params()[:2],
        cutoff="optional",
        bounded=False,
        doc="""Cumulative gain of the top k: ``CG@k = gain(label_1) + ... + gain(label_k)``.

        DCG without a discount (Järvelin & Kekäläinen 2002): the order inside the top k does not
        matter. Gains as in ``DCG`` (``gain='linear'``, ``'exp'`` or a mapping).
        """,
    )
)

IDCG = register(
    Family(
        "IDCG",
        _ideal_dcg,
        average_kernel=_ideal_dcg,  # the ideal ranking does not depend on the run's order
        params=_dcg_params(),
        cutoff="optional",
        bounded=False,
        constraint=_check_base,
        trec_eval=(TrecMeasure("ideal_dcg", "IDCG", parameter="pairs", leveled=False),),
        doc="""Ideal DCG of the top k: the DCG@k of all judged documents in decreasing gain.

        The normaliser of ``nDCG@k`` (same gain and discount options), as a per-query
        diagnostic; it does not depend on the run's order. ``IDCG`` is trec_eval 10's
        ``ideal_dcg``, the denominator of its ``ndcg``.
        """,
    )
)
