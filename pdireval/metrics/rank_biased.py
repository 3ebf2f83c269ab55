"""Rank-biased precision (Moffat & Zobel 2008): ``RBP(p=)`` and its residual ``RBPResidual``.

A user reads the ranking top down and goes on from one document to the next with
probability p (the persistence), so position i is reached with probability p^(i-1).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from pdireval._core.errors import MetricError
from pdireval._prepare.ranked import Ranked
from pdireval.metrics._base import Family, Param, plain_number, register, rel_param


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


def _rbp(ranked: Ranked, *, k: int | None, rel: int, p: float) -> np.ndarray:
    counted = ranked.relevant(rel) & _in_top(ranked, k)
    return (1.0 - p) * ranked.per_query_sum(_reach(ranked, p), counted)


def _rbp_residual(ranked: Ranked, *, k: int | None, p: float) -> np.ndarray:
    # Unjudged retrieved positions plus everything below the ranking (or below k):
    # (1-p) sum_{unjudged i} p^(i-1) + p^n = 1 - (1-p) sum_{judged i} p^(i-1).
    judged = (ranked.label >= 0) & _in_top(ranked, k)
    return 1.0 - (1.0 - p) * ranked.per_query_sum(_reach(ranked, p), judged)


def _persistence_param() -> Param:
    return Param("p", 0.8, _persistence, "persistence: probability of reading on to the next rank")


RBP = register(
    Family(
        "RBP",
        _rbp,
        params=(rel_param(), _persistence_param()),
        cutoff="optional",
        aliases=("rank_biased_precision",),
        doc="""Rank-biased precision (Moffat & Zobel 2008): expected rate of relevant documents.

        ``RBP = (1 - p) * sum_i rel_i * p^(i - 1)`` over the retrieved documents (the top k
        with ``@k``), with rel_i = 1 for labels >= rel and 0 otherwise (unjudged documents
        count as non-relevant). The default persistence p = 0.8 is ir_measures'. The
        value is a lower bound: ``RBPResidual`` is the weight the unjudged and
        unretrieved positions could still add (``RBP + RBPResidual <= 1``). trec_eval
        10's ``rbp`` differs: p = 0.9 and graded gains rescaled to [0, 1].

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
        params=(_persistence_param(),),
        cutoff="optional",
        aliases=("rbp_resid", "rbp_residual"),
        doc="""RBP residual: the RBP weight of the positions whose relevance is unknown.

        ``(1 - p) * sum_{unjudged i <= n} p^(i - 1) + p^n``, with n the number retrieved
        (or min(k, n) with ``@k``): unjudged retrieved documents (no label or a negative
        label) and the unbounded tail below the ranking. It equals
        ``1 - (1 - p) * sum_{judged i} p^(i - 1)``; RBP lies in [RBP, RBP + residual]
        whatever the missing judgments are (Moffat & Zobel 2008, section 4).
        trec_eval 10's ``rbp_resid`` reports 0 when no retrieved document is unjudged
        and fixes p = 0.9; this one always counts the tail.
        """,
    )
)
