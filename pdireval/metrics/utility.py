"""Set utility (trec_eval ``utility``): a linear score of the contingency table."""

from __future__ import annotations

from typing import Any

import numpy as np

from pdireval._core.errors import MetricError
from pdireval._prepare.ranked import Ranked
from pdireval.metrics._base import (
    Family,
    Param,
    TrecMeasure,
    integer_at_least,
    plain_number,
    register,
    rel_param,
)


def _real(name: str, value: Any) -> int | float:
    number = not isinstance(value, bool) and isinstance(value, int | float | np.number)
    if not number or not np.isfinite(value):
        msg = f"parameter {name}= must be a finite number, got {value!r}"
        raise MetricError(msg)
    return plain_number(value)


def _optional_n_docs(name: str, value: Any) -> int | None:
    return None if value is None else integer_at_least(0)(name, value)


def _check_n_docs(options: dict[str, Any]) -> None:
    if options["d"] != 0 and options["n_docs"] is None:
        msg = (
            "Utility with d != 0 weighs the non-relevant documents not retrieved, so it "
            "needs the collection size: write Utility(d=..., n_docs=...)"
        )
        raise MetricError(msg)


def _utility(
    ranked: Ranked,
    *,
    k: None,
    rel: int,
    a: float,
    b: float,
    c: float,
    d: float,
    n_docs: int | None,
) -> np.ndarray:
    relevant_retrieved = ranked.per_query_count(ranked.relevant(rel))
    relevant = ranked.num_relevant(rel)
    # trec_eval's sum, term by term (d = 0 adds a signed zero there too)
    value = a * relevant_retrieved + b * (ranked.num_ret - relevant_retrieved)
    value += c * (relevant - relevant_retrieved)
    value += d * ((n_docs or 0) + relevant_retrieved - ranked.num_ret - relevant)
    return value


Utility = register(
    Family(
        "Utility",
        _utility,
        params=(
            rel_param(),
            Param("a", 1, _real, "worth of each relevant retrieved document"),
            Param("b", -1, _real, "worth of each non-relevant (or unjudged) retrieved document"),
            Param("c", 0, _real, "worth of each relevant document not retrieved"),
            Param("d", 0, _real, "worth of each non-relevant document not retrieved"),
            Param("n_docs", None, _optional_n_docs, "collection size (needed when d != 0)"),
        ),
        aliases=("utility",),
        bounded=False,
        constraint=_check_n_docs,
        trec_eval=(
            TrecMeasure(
                "utility",
                "Utility(a={}, b={}, c={}, d={})",
                ((1.0, -1.0, 0.0, 0.0),),
                "values",
            ),
        ),
        doc="""Set utility: ``a * A + b * B + c * C + d * D`` (trec_eval ``utility``).

        A = relevant retrieved, B = non-relevant (or unjudged) retrieved, C = relevant not
        retrieved, D = non-relevant not retrieved = n_docs - A - B - C (the contingency
        table of Manning et al. 2008, sec. 8.3). The defaults a = 1, b = -1, c = d = 0 are
        trec_eval's (``-m utility.1,-1,0,0``): relevant retrieved minus non-relevant
        retrieved. D needs the collection size, so ``d != 0`` requires ``n_docs=``
        (trec_eval -N); ``trec_eval -m utility.a,b,c,d`` is ``Utility(a=a, b=b, c=c,
        d=d, n_docs=N)`` with N its -N, 0 when not given (then D = -(A + B + C), as
        trec_eval computes it). Not bounded: the value can be negative and grows with
        the ranking.
        """,
    )
)
