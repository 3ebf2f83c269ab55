"""Binary preference (``Bpref``, Buckley & Voorhees 2004), as computed by trec_eval."""

from __future__ import annotations

import numpy as np

from pdireval._prepare.ranked import Ranked, safe_divide
from pdireval.metrics._base import Family, TrecMeasure, register, rel_param


def _bpref(ranked: Ranked, *, k: None, rel: int) -> np.ndarray:
    relevant = ranked.relevant(rel)
    judged_nonrel = (ranked.label >= 0) & ~relevant
    nonrel_above = ranked.within_query_cumsum(judged_nonrel)[relevant]
    num_rel = ranked.num_relevant(rel)
    all_nonrel = ranked.judged_group[(ranked.judged_label >= 0) & (ranked.judged_label < rel)]
    num_nonrel = np.bincount(all_nonrel, minlength=ranked.n_groups).astype(np.float64)
    group = ranked.group[relevant]
    r, n = num_rel[group], num_nonrel[group]
    penalty = safe_divide(np.minimum(nonrel_above, r), np.minimum(r, n))
    total = np.bincount(group, weights=1.0 - penalty, minlength=ranked.n_groups)
    return safe_divide(total, num_rel)


Bpref = register(
    Family(
        "Bpref",
        _bpref,
        params=(rel_param(),),
        aliases=("bpref",),
        trec_eval=(
            TrecMeasure("bpref", "Bpref"),
            TrecMeasure("gm_bpref", "Bpref", summary="gmean"),
        ),
        doc="""Binary preference: how rarely judged non-relevant documents outrank relevant ones.

        ``Bpref = (1/R) * sum over relevant retrieved r of
        (1 - min(n_r, R) / min(R, N))`` where n_r counts the judged non-relevant
        documents ranked above r and N all judged non-relevant documents of the query.
        Unjudged documents are ignored; 0 when R = 0 (trec_eval ``bpref``).
        """,
    )
)
