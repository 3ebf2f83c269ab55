"""Per-query counts: ``NumQ``, ``NumRel``, ``NumRet``, ``NumRelRet``, ...

trec_eval and ir_measures report the *sum* of a count over the queries; pdireval's
summaries average every metric alike, so ``summary(frame, "NumRet", agg=...)`` is the
mean number retrieved -- multiply by the number of queries (``NumQ``'s sum) for the total.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from pdireval._prepare.ranked import Ranked
from pdireval.metrics._base import Family, TrecMeasure, register, rel_param


def _num_q(ranked: Ranked, *, k: None) -> np.ndarray:
    return np.ones(ranked.n_groups)


def _retrieved_at_rel(params: dict[str, Any]) -> tuple[str, dict[str, Any]]:
    """ir_measures' ``NumRet(rel=r)`` counts retrieved documents labelled >= r: NumRelRet."""
    return ("NumRelRet" if "rel" in params else "NumRet"), params


def _num_rel(ranked: Ranked, *, k: None, rel: int) -> np.ndarray:
    return ranked.num_relevant(rel)


def _num_ret(ranked: Ranked, *, k: None) -> np.ndarray:
    return ranked.num_ret


def _num_rel_ret(ranked: Ranked, *, k: None, rel: int) -> np.ndarray:
    return ranked.per_query_count(ranked.relevant(rel))


def _num_nonrel_judged_ret(ranked: Ranked, *, k: None, rel: int) -> np.ndarray:
    return ranked.per_query_count((ranked.label >= 0) & ~ranked.relevant(rel))


NumRel = register(
    Family(
        "NumRel",
        _num_rel,
        params=(rel_param(),),
        aliases=("num_rel",),
        bounded=False,
        trec_eval=(TrecMeasure("num_rel", "NumRel", summary="sum"),),
        doc="Number of judged documents labelled >= rel, retrieved or not (trec_eval num_rel).",
    )
)
NumQ = register(
    Family(
        "NumQ",
        _num_q,
        aliases=("num_q",),
        bounded=False,
        doc="1 for every query evaluated, so its sum over queries counts them (trec_eval "
        "num_q, ir_measures NumQ).",
    )
)
NumRet = register(
    Family(
        "NumRet",
        _num_ret,
        aliases=("num_ret",),
        bounded=False,
        synonyms=_retrieved_at_rel,
        trec_eval=(TrecMeasure("num_ret", "NumRet", summary="sum"),),
        doc="Number of retrieved documents (trec_eval num_ret); ``NumRet(rel=r)``, "
        "ir_measures' spelling, is ``NumRelRet(rel=r)``.",
    )
)
NumRelRet = register(
    Family(
        "NumRelRet",
        _num_rel_ret,
        params=(rel_param(),),
        aliases=("num_rel_ret",),
        bounded=False,
        trec_eval=(TrecMeasure("num_rel_ret", "NumRelRet", summary="sum"),),
        doc="Number of retrieved documents labelled >= rel (trec_eval num_rel_ret).",
    )
)
NumNonRelJudgedRet = register(
    Family(
        "NumNonRelJudgedRet",
        _num_nonrel_judged_ret,
        params=(rel_param(),),
        aliases=("num_nonrel_judged_ret",),
        bounded=False,
        trec_eval=(TrecMeasure("num_nonrel_judged_ret", "NumNonRelJudgedRet", summary="sum"),),
        doc="Number of retrieved documents judged non-relevant: 0 <= label < rel "
        "(trec_eval num_nonrel_judged_ret).",
    )
)
