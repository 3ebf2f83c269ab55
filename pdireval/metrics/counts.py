"""Per-query counts: ``NumRel``, ``NumRet`` and ``NumRelRet``."""

from __future__ import annotations

import numpy as np

from pdireval._prepare.ranked import Ranked
from pdireval.metrics._base import Family, register, rel_param


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
        doc="Number of judged documents labelled >= rel, retrieved or not (trec_eval num_rel).",
    )
)
NumRet = register(
    Family(
        "NumRet",
        _num_ret,
        aliases=("num_ret",),
        bounded=False,
        doc="Number of retrieved documents (trec_eval num_ret).",
    )
)
NumRelRet = register(
    Family(
        "NumRelRet",
        _num_rel_ret,
        params=(rel_param(),),
        aliases=("num_rel_ret",),
        bounded=False,
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
        doc="Number of retrieved documents judged non-relevant: 0 <= label < rel "
        "(trec_eval num_nonrel_judged_ret).",
    )
)
