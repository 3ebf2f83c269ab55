"""trec_eval's experimental gain measures ``G`` and ``binG`` (Buckley 2008).

Both reward a relevant document by how little was lost before it, instead of by a
fixed rank discount: its gain is divided by log2(2 + what the ranking is behind).
"""

from __future__ import annotations

import numpy as np

from pdireval._prepare.ranked import Ranked, safe_divide
from pdireval.metrics._base import Family, TrecMeasure, register, rel_param
from pdireval.metrics._segments import last_at_or_before, libm_log2, running_sum
from pdireval.metrics.dcg import GainSpec, _dcg_params, _gains, _ideal


def _g(ranked: Ranked, *, k: None, rel: int, gain: GainSpec) -> np.ndarray:
    # every sum is added up rank by rank, and log2 is the C library's, as in trec_eval
    ideal_group, ideal_gains, ideal_position = _ideal(ranked, gain, rel)
    # The "cost" of the ideal ranking down to rank n: its gains, each at least 1.
    ideal_cost = running_sum(np.maximum(ideal_gains, 1.0), ideal_group)
    n_ideal = np.bincount(ideal_group, minlength=ranked.n_groups)
    gains = ranked.cached(
        ("gains", gain, rel), lambda: _gains(ranked.label, gain, rel, ranked.judged_label)
    )
    counted = gains != 0
    group, position, gains = ranked.group[counted], ranked.position[counted], gains[counted]
    so_far = running_sum(gains, group)
    cost = last_at_or_before(ideal_group, ideal_position, ideal_cost, group, position)
    cost = _ones_added(cost, np.maximum(position - n_ideal[group], 0))  # 1 per rank past them
    value = np.bincount(
        group, weights=gains / libm_log2(2.0 + cost - so_far), minlength=ranked.n_groups
    )
    ideal_total = np.bincount(ideal_group, weights=ideal_gains, minlength=ranked.n_groups)
    return safe_divide(value, ideal_total)


def _ones_added(start: np.ndarray, count: np.ndarray) -> np.ndarray:
    """``start`` with 1.0 added ``count`` times, each sum rounded as trec_eval's loop rounds
    it: in one addition when ``start`` is a whole number (whole gains, the usual case),
    where no sum rounds; one at a time otherwise.
    """
    total = start + count
    fractional = np.flatnonzero(start != np.floor(start))
    if len(fractional):
        value, left = start[fractional].copy(), count[fractional].copy()
        while np.any(left > 0):
            value = np.where(left > 0, value + 1.0, value)
            left -= 1
        total[fractional] = value
    return total


def _bin_g(ranked: Ranked, *, k: None, rel: int) -> np.ndarray:
    relevant = ranked.relevant(rel)
    found = ranked.relevant_so_far(rel)[relevant]
    missed_before = ranked.position[relevant] - found  # non-relevant or unjudged above
    value = np.bincount(
        ranked.group[relevant],
        weights=1.0 / libm_log2(2.0 + missed_before),
        minlength=ranked.n_groups,
    )
    return safe_divide(value, ranked.num_relevant(rel))


G = register(
    Family(
        "G",
        _g,
        params=_dcg_params()[:2],
        trec_eval=(TrecMeasure("G", "G", parameter="pairs", leveled=False),),
        doc="""trec_eval's normalised gain ``G`` (experimental, Buckley 2008).

        A relevant document at rank n adds ``gain_n / log2(2 + C(n) - S(n))``, where
        S(n) is the gain retrieved down to rank n (inclusive) and C(n) the ideal
        ranking's gain down to rank n, each ideal rank counting at least 1 (ranks past
        the ideal's last positive gain count 1). The sum is divided by the total gain
        of the judged documents, so G lies in [0, 1]; 0 when no judged document has a
        positive gain. Gains as in ``nDCG`` (default: the label, as trec_eval).
        trec_eval's ``G`` ignores -l; here ``rel=`` zeroes the gains below it, which
        changes nothing at rel=1.
        """,
    )
)

binG = register(
    Family(
        "binG",
        _bin_g,
        params=(rel_param(),),
        trec_eval=(TrecMeasure("binG", "binG"),),
        doc="""trec_eval's binary G ``binG`` (experimental, Buckley 2008).

        ``binG = (1 / R) sum_{relevant retrieved d} 1 / log2(2 + b_d)``, with b_d the
        number of non-relevant (or unjudged) documents ranked above d and R the number
        of judged documents labelled >= rel; 0 when R = 0.
        """,
    )
)
