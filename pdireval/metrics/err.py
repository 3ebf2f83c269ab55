"""Expected reciprocal rank (Chapelle et al. 2009): ``ERR``/``ERR@k``."""

from __future__ import annotations

from typing import Any

import numpy as np

from pdireval._core.errors import MetricError
from pdireval._prepare.ranked import Ranked
from pdireval.metrics._base import Family, Param, integer_at_least, register, rel_param
from pdireval.metrics._segments import group_cumsum


def _max_label(name: str, value: Any) -> int | str:
    if value == "query":
        return "query"
    if isinstance(value, str):
        msg = f"parameter {name}= must be a whole number >= 1 or 'query', got {value!r}"
        raise MetricError(msg)
    return integer_at_least(1)(name, value)


def _err(ranked: Ranked, *, k: int | None, rel: int, max_label: int | str) -> np.ndarray:
    if max_label == "query":  # the largest judged label of each query
        top = np.zeros(ranked.n_groups)
        judged = ranked.judged_label >= 0
        np.maximum.at(top, ranked.judged_group[judged], ranked.judged_label[judged])
    else:
        top = np.full(ranked.n_groups, float(max_label))
    counted = ranked.relevant(rel)  # cached: never modify it in place
    if k is not None:
        counted = counted & (ranked.position <= k)
    group = ranked.group[counted]
    grade = np.minimum(ranked.label[counted], top[group])
    # R_i = (2^g - 1) / 2^g_max, written so that no power of two overflows; at g = g_max,
    # 1 - R_i = 2^-g_max exactly, whose log is taken directly (it may underflow to 0).
    stop = np.exp2(grade - top[group]) - np.exp2(-top[group])
    # prod_{j<i} (1 - R_j) inside the query, as exp of a running sum of logs; rows with
    # R = 0 (not relevant, unjudged) multiply by 1 and are left out.
    at_top = grade == top[group]
    log_going_on = np.where(at_top, -top[group] * np.log(2.0), np.log1p(-np.where(at_top, 0, stop)))
    before = group_cumsum(log_going_on, group) - log_going_on
    weights = stop * np.exp(before) / ranked.position[counted]
    return np.bincount(group, weights=weights, minlength=ranked.n_groups)


ERR = register(
    Family(
        "ERR",
        _err,
        params=(
            rel_param(),
            Param(
                "max_label",
                4,
                _max_label,
                "g_max of R = (2^g - 1) / 2^g_max: the top grade of the scale (4: the 0..4 "
                "scale of the paper and gdeval), or 'query' for each query's largest label",
            ),
        ),
        cutoff="optional",
        whole_labels=True,
        aliases=("expected_reciprocal_rank",),
        cutoff_aliases=("err",),
        doc="""Expected reciprocal rank (Chapelle et al. 2009), of the top k with ``ERR@k``.

        A cascade user stops at position i with probability
        ``R_i = (2^g_i - 1) / 2^g_max`` and ``ERR = sum_i (1 / i) R_i prod_{j<i} (1 - R_j)``.
        g_i is the label (0 for labels below rel, negative or missing). g_max is the top
        grade of the relevance scale, ``max_label=4`` by default: the 0..4 scale of the
        paper and of the TREC Web track's gdeval, which ir_measures' ``ERR@k`` uses
        (labels above g_max count as g_max, where gdeval stops). ``max_label='query'``
        takes each query's largest judged label instead, which makes a query's ERR
        comparable across runs but not across queries. 0 when the query has no label
        >= rel. No power of two is formed, so no g_max overflows; a g_max far above the
        labels makes R tiny, and below float64's smallest number (g_max - g > 1074,
        e.g. ``max_label=2000`` on labels 0..3) the value is reported as its nearest
        float64, 0.

        References
        ----------
        O. Chapelle, D. Metzler, Y. Zhang and P. Grinspan. Expected reciprocal rank for
        graded relevance. CIKM 2009.
        """,
    )
)
