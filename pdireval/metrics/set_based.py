"""Set-based measures: the retrieved documents as an unordered set.

With a = relevant retrieved, b = non-relevant retrieved and c = relevant not retrieved
(the contingency table of Manning et al. 2008, sec. 8.3): precision a/(a+b), recall
a/(a+c), and their combinations. Unjudged retrieved documents count as non-relevant,
as in trec_eval.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from pdireval._core.errors import MetricError
from pdireval._prepare.ranked import Ranked, safe_divide
from pdireval.metrics._base import (
    Family,
    Param,
    TrecMeasure,
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


def _f_measure(precision: np.ndarray, recall: np.ndarray, weight: float) -> np.ndarray:
    """F = (1 + w) P R / (w P + R), w the weight of recall (beta squared); 0 when P = R = 0."""
    return safe_divide((1.0 + weight) * precision * recall, weight * precision + recall)


def _weight(beta: float, fbeta: float | None, alpha: float | None) -> float:
    """The recall weight w from whichever of ``beta`` (w itself, as trec_eval's set_F and
    ir_measures take it), ``fbeta`` (w = fbeta^2) or ``alpha`` (w = (1 - alpha) / alpha).
    """
    if fbeta is not None:
        return fbeta * fbeta
    if alpha is not None:
        return (1.0 - alpha) / alpha
    return beta


def _check_weights(options: dict) -> None:
    given = [name for name in ("fbeta", "alpha") if options[name] is not None]
    if options["beta"] != 1:
        given.insert(0, "beta")
    if len(given) > 1:
        msg = (
            f"give F one weight, not {' and '.join(given)}: beta= (recall weighs beta times "
            "precision, trec_eval's set_F), fbeta= (van Rijsbergen's F_beta, beta^2 = "
            "beta=) or alpha= (alpha = 1 / (1 + fbeta^2))"
        )
        raise MetricError(msg)
    alpha = options["alpha"]
    if alpha is not None and not 0 < alpha <= 1:
        msg = f"parameter alpha= must be in (0, 1], got {alpha!r}"
        raise MetricError(msg)


def _set_f(
    ranked: Ranked, *, k: None, rel: int, beta: float, fbeta: float | None, alpha: float | None
) -> np.ndarray:
    precision = _set_precision(ranked, k=None, rel=rel)
    recall = _set_recall(ranked, k=None, rel=rel)
    return _f_measure(precision, recall, _weight(beta, fbeta, alpha))


def _f_at_k(
    ranked: Ranked, *, k: int, rel: int, beta: float, fbeta: float | None, alpha: float | None
) -> np.ndarray:
    hits = ranked.per_query_count(ranked.relevant(rel) & (ranked.position <= k))
    precision, recall = hits / k, safe_divide(hits, ranked.num_relevant(rel))
    return _f_measure(precision, recall, _weight(beta, fbeta, alpha))


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
    # a^2 / (retrieved * R) in one division, as trec_eval computes it: P * R rounds twice
    # more and can print another last digit (21/800 = 0.02625: 0.0262, P * R 0.0263)
    found = _relevant_retrieved(ranked, rel)
    return safe_divide(found * found, ranked.num_ret * ranked.num_relevant(rel))


def _set_relative_precision(ranked: Ranked, *, k: None, rel: int) -> np.ndarray:
    most = np.minimum(ranked.num_ret, ranked.num_relevant(rel))
    return safe_divide(_relevant_retrieved(ranked, rel), most)


def _f_params() -> tuple[Param, ...]:
    return (
        rel_param(),
        Param("beta", 1, number_above(0), "recall weight w: F = (1+w)PR / (wP + R)"),
        Param("fbeta", None, _optional_alpha, "van Rijsbergen's beta: w = fbeta^2"),
        Param("alpha", None, _optional_alpha, "F = 1 / (alpha/P + (1-alpha)/R)"),
    )


def _optional_n_docs(name: str, value: object) -> int | None:
    return None if value is None else integer_at_least(1)(name, value)


def _optional_alpha(name: str, value: object) -> float | None:
    if value is None:
        return None
    return number_above(0)(name, value)


def _relative_set_precision(params: dict[str, Any]) -> tuple[str, dict[str, Any]]:
    """ir_measures' ``SetP(relative=True)`` is ``SetRelP``."""
    relative = params.pop("relative", False)
    if not isinstance(relative, bool):
        msg = f"parameter relative= must be True or False, got {relative!r}"
        raise MetricError(msg)
    return ("SetRelP" if relative else "SetP"), params


SetP = register(
    Family(
        "SetP",
        _set_precision,
        params=(rel_param(),),
        aliases=("set_p",),
        judged_only=True,
        synonyms=_relative_set_precision,
        trec_eval=(TrecMeasure("set_P", "SetP"),),
        doc="""Set precision: relevant retrieved / retrieved, a/(a+b) (trec_eval set_P).

        0 when nothing was retrieved (Manning et al. 2008, sec. 8.3). ``SetP(relative=True)``
        (ir_measures' spelling) is ``SetRelP``.
        """,
    )
)

SetR = register(
    Family(
        "SetR",
        _set_recall,
        params=(rel_param(),),
        aliases=("set_recall",),
        trec_eval=(TrecMeasure("set_recall", "SetR"),),
        doc="""Set recall: relevant retrieved / relevant, a/(a+c) (trec_eval set_recall).

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
        constraint=_check_weights,
        judged_only=True,
        trec_eval=(TrecMeasure("set_F", "SetF(beta={})", (1.0,), "value"),),
        doc="""Set F-measure: the weighted harmonic mean of set precision and set recall.

        ``F = (1 + w) P R / (w P + R)``, 0 when P = R = 0. The weight w of recall is given
        in one of three equivalent ways: ``beta=`` is w itself, as trec_eval's ``set_F.x``
        and ir_measures' ``SetF(beta=x)`` take it; ``fbeta=`` is van Rijsbergen's (1979)
        beta of ``F_beta = (1 + beta^2) P R / (beta^2 P + R)``, so w = fbeta^2;
        ``alpha=`` gives ``F = 1 / (alpha / P + (1 - alpha) / R)``, w = (1 - alpha) / alpha.
        ``SetF(fbeta=2)`` = ``SetF(beta=4)`` = trec_eval's ``set_F.4``.
        """,
    )
)

SetAP = register(
    Family(
        "SetAP",
        _set_ap,
        params=(rel_param(),),
        aliases=("set_map",),
        judged_only=True,
        trec_eval=(TrecMeasure("set_map", "SetAP"),),
        doc="""Set average precision: set precision × set recall (trec_eval set_map).

        Computed as trec_eval computes it, ``a² / (retrieved × R)`` with a the relevant
        retrieved documents; 0 when nothing was retrieved or nothing is relevant.
        """,
    )
)

SetRelP = register(
    Family(
        "SetRelP",
        _set_relative_precision,
        params=(rel_param(),),
        aliases=("set_relative_p",),
        judged_only=True,
        trec_eval=(TrecMeasure("set_relative_P", "SetRelP"),),
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
        constraint=_check_weights,
        doc="""F-measure at k: the F of ``P@k`` and ``R@k`` (``F(fbeta=2)@10``).

        ``F@k = (1 + w) P@k R@k / (w P@k + R@k)``, 0 when both are 0; the recall weight w
        given by ``beta=`` (w), ``fbeta=`` (w = fbeta^2, van Rijsbergen 1979) or
        ``alpha=`` as in ``SetF``.
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
        collection (Manning et al. 2008, sec. 8.3). The collection size is not in the
        frame: give it as ``Fallout(n_docs=...)``.
        """,
    )
)
