"""Set-based measures: the retrieved documents as an unordered set (lecture note 003).

With a = relevant retrieved, b = non-relevant retrieved and c = relevant not retrieved
(note 003's contingency table): precision a/(a+b), recall a/(a+c), and their
combinations. Unjudged retrieved documents count as non-relevant, as in trec_eval.
"""

from __future__ import annotations

import numpy as np

from pdireval._errors import MetricError
from pdireval._prepare.ranked import Ranked, safe_divide
from pdireval.metrics._base import (
    Family,
    Param,
    integer_at_least,
    number_above,
    register,
    rel_param,
)


def _relevant_retrieved(ranked: Ranked, rel: int) -> np.ndarray:
    return ranked.per_query_count(ranked.relevant(rel))


def _set_precision(ranked: Ranked, *, k: None, rel: int) -> np.ndarray:
    return safe_divide(_relevant_retrieved(ranked, rel), ranked.num_ret)


def _set_recall(ranked: Ranked, *, k: None, rel: int) -> np.ndarray:
    return safe_divide(_relevant_retrieved(ranked, rel), ranked.num_relevant(rel))


def _f_measure(precision: np.ndarray, recall: np.ndarray, beta: float) -> np.ndarray:
    """F_beta = (1 + beta^2) P R / (beta^2 P + R); 0 when P = R = 0."""
    squared = beta * beta
    return safe_divide((1.0 + squared) * precision * recall, squared * precision + recall)


def _beta(options: dict) -> float:
    """The beta of F, from ``beta=`` or the equivalent ``alpha=`` (alpha = 1 / (1 + beta^2))."""
    if options["alpha"] is None:
        return options["beta"]
    return float(np.sqrt((1.0 - options["alpha"]) / options["alpha"]))


def _check_alpha(options: dict) -> None:
    alpha = options["alpha"]
    if alpha is not None and options["beta"] != 1:
        msg = "give SetF either beta= or alpha=, not both (alpha = 1 / (1 + beta**2))"
        raise MetricError(msg)
    if alpha is not None and not 0 < alpha <= 1:
        msg = f"parameter alpha= must be in (0, 1], got {alpha!r}"
        raise MetricError(msg)


def _set_f(ranked: Ranked, *, k: None, rel: int, beta: float, alpha: float | None) -> np.ndarray:
    precision = _set_precision(ranked, k=None, rel=rel)
    recall = _set_recall(ranked, k=None, rel=rel)
    return _f_measure(precision, recall, _beta({"beta": beta, "alpha": alpha}))


def _f_at_k(ranked: Ranked, *, k: int, rel: int, beta: float, alpha: float | None):
    hits = ranked.per_query_count(ranked.relevant(rel) & (ranked.position <= k))
    precision, recall = hits / k, safe_divide(hits, ranked.num_relevant(rel))
    return _f_measure(precision, recall, _beta({"beta": beta, "alpha": alpha}))


def _fallout(ranked: Ranked, *, k: int | None, rel: int, n_docs: int | None) -> np.ndarray:
    _check_n_docs({"n_docs": n_docs})
    # retrieved documents, and judged ones not retrieved
    seen = ranked.num_ret + ranked.per_group(ranked.judged_group) - ranked.per_group(ranked.group)
    if np.any(seen > n_docs):
        msg = (
            f"Fallout(n_docs={n_docs}) is smaller than the {int(seen.max())} documents one "
            "query retrieved or judged; n_docs is the size of the whole collection"
        )
        raise MetricError(msg)
    in_top = ranked.position <= k if k is not None else np.ones(len(ranked.position), bool)
    retrieved = ranked.num_ret if k is None else np.minimum(ranked.num_ret, k)
    nonrelevant_retrieved = retrieved - ranked.per_query_count(ranked.relevant(rel) & in_top)
    return safe_divide(nonrelevant_retrieved, n_docs - ranked.num_relevant(rel))


def _check_n_docs(options: dict) -> None:
    if options["n_docs"] is None:
        msg = (
            "Fallout needs the collection size: write Fallout(n_docs=...) with the number "
            "of documents in the collection"
        )
        raise MetricError(msg)


def _set_ap(ranked: Ranked, *, k: None, rel: int) -> np.ndarray:
    return _set_precision(ranked, k=None, rel=rel) * _set_recall(ranked, k=None, rel=rel)


def _set_relative_precision(ranked: Ranked, *, k: None, rel: int) -> np.ndarray:
    most = np.minimum(ranked.num_ret, ranked.num_relevant(rel))
    return safe_divide(_relevant_retrieved(ranked, rel), most)


def _f_params() -> tuple[Param, ...]:
    return (
        rel_param(),
        Param("beta", 1, number_above(0), "weight of recall: F = (1+b^2)PR / (b^2 P + R)"),
        Param("alpha", None, _optional_alpha, "equivalently F = 1 / (alpha/P + (1-alpha)/R)"),
    )


def _optional_n_docs(name: str, value: object) -> int | None:
    return None if value is None else integer_at_least(1)(name, value)


def _optional_alpha(name: str, value: object) -> float | None:
    if value is None:
        return None
    return number_above(0)(name, value)


SetP = register(
    Family(
        "SetP",
        _set_precision,
        params=(rel_param(),),
        aliases=("set_p",),
        doc="""Set precision: relevant retrieved / retrieved, a/(a+b) (note 003; trec_eval set_P).

        0 when nothing was retrieved.
        """,
    )
)

SetR = register(
    Family(
        "SetR",
        _set_recall,
        params=(rel_param(),),
        aliases=("set_recall",),
        doc="""Set recall: relevant retrieved / relevant, a/(a+c) (note 003; trec_eval set_recall).

        0 when the query has no relevant document.
        """,
    )
)

SetF = register(
    Family(
        "SetF",
        _set_f,
        params=_f_params(),
        aliases=("set_f",),
        constraint=_check_alpha,
        doc="""Set F-measure: the weighted harmonic mean of set precision and set recall.

        ``F_beta = (1 + beta^2) P R / (beta^2 P + R)``, with beta the weight of recall as
        in notes 002 and 003 (beta > 1 favours recall); equivalently
        ``F = 1 / (alpha / P + (1 - alpha) / R)`` with ``beta^2 = (1 - alpha) / alpha``.
        0 when P = R = 0. trec_eval's ``set_F.x`` takes x = beta^2: ``SetF(beta=0.5)`` is
        ``set_F.0.25``.
        """,
    )
)

SetAP = register(
    Family(
        "SetAP",
        _set_ap,
        params=(rel_param(),),
        aliases=("set_map",),
        doc="""Set average precision: set precision × set recall (trec_eval set_map).""",
    )
)

SetRelP = register(
    Family(
        "SetRelP",
        _set_relative_precision,
        params=(rel_param(),),
        aliases=("set_relative_p",),
        doc="""Relative set precision: relevant retrieved / min(retrieved, relevant).

        The best value any set of that size could reach is 1 (trec_eval set_relative_P);
        0 when nothing was retrieved or nothing is relevant.
        """,
    )
)

F = register(
    Family(
        "F",
        _f_at_k,
        params=_f_params(),
        cutoff="required",
        constraint=_check_alpha,
        doc="""F-measure at k: the F of ``P@k`` and ``R@k`` (``F(beta=2)@10``).

        ``F_beta@k = (1 + beta^2) P@k R@k / (beta^2 P@k + R@k)``, 0 when both are 0; beta
        and alpha as in ``SetF`` (notes 002 and 003).
        """,
    )
)


Fallout = register(
    Family(
        "Fallout",
        _fallout,
        params=(
            rel_param(),
            Param("n_docs", None, _optional_n_docs, "number of documents in the collection"),
        ),
        cutoff="optional",
        doc="""Fallout: the share of the non-relevant documents that were retrieved, b/(b+d).

        With b the non-relevant (or unjudged) retrieved documents -- within the top k for
        ``Fallout@k`` -- and b + d = n_docs - R all non-relevant documents of the
        collection (note 003). The collection size is not in the frame: give it as
        ``Fallout(n_docs=...)``.
        """,
    )
)
