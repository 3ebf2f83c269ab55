"""Pairwise accuracy of a ranking (ir_measures' ``Accuracy``): relevant above non-relevant.

Examples
--------
>>> import pandas as pd, pdireval
>>> df = pd.DataFrame({"query": "q1", "doc": ["a", "b", "c", "d", "e"],
...                    "rank": [1, 2, 3, 4, None], "rel": [1, 0, None, 2, 1]})
>>> pdireval.evaluate(df, ["Accuracy", "Accuracy@2", "Accuracy(rel=2)"]).round(4).T
query             q1
metric
Accuracy         0.5
Accuracy@2       1.0
Accuracy(rel=2)  0.0
"""

from __future__ import annotations

import numpy as np

from pdireval._prepare.ranked import Ranked
from pdireval.metrics._base import Family, register, rel_param

__all__ = ["Accuracy"]


def _accuracy(ranked: Ranked, *, k: int | None, rel: int) -> np.ndarray:
    shown = ranked.num_ret if k is None else np.minimum(ranked.num_ret, k)
    in_top = ranked.position <= shown[ranked.group]
    # The rows are the judged documents; the unjudged ones only take up positions. At
    # rel > 0 the rows hold every relevant document; at rel <= 0 every non-relevant one
    # (a negative label), since an unjudged document reads as label 0 and is relevant.
    listed = in_top & (ranked.relevant(rel) if rel > 0 else ranked.label < 0)
    group = ranked.group[listed]
    count = np.bincount(group, minlength=ranked.n_groups).astype(np.float64)
    others_above = ranked.position[listed] - ranked.within_query_cumsum(listed)[listed]
    above = np.bincount(group, others_above, minlength=ranked.n_groups)
    pairs = count * (shown - count)
    # misordered pairs: a non-relevant document above a relevant one
    misordered = above if rel > 0 else pairs - above
    out = np.full(ranked.n_groups, np.nan)
    np.subtract(1.0, misordered / np.where(pairs > 0, pairs, 1.0), out=out, where=pairs > 0)
    return out


Accuracy = register(
    Family(
        "Accuracy",
        _accuracy,
        params=(rel_param(),),
        cutoff="optional",
        doc="""Pairwise accuracy (ir_measures): how often relevant ranks above non-relevant.

        Over the retrieved documents (the top k with ``@k``), the fraction of the pairs of
        a relevant document (label >= rel) and a non-relevant one in which the relevant
        one ranks higher: ``1 - sum_{relevant d} nonrel_above(d) / (n_rel n_nonrel)``,
        the area under the ROC curve of the retrieved list (the Mann-Whitney statistic).
        Relevant documents that were not retrieved do not count: it diagnoses how a
        model orders what it returned (e.g. that its training and test accuracy agree),
        not how much it finds. NaN when there is no such pair -- no relevant or no
        non-relevant document retrieved in the top k (ir_measures leaves the first out
        and fails on the second). As in ir_measures, an unjudged document counts as
        label 0: non-relevant, but relevant at ``rel=0``, where a negative label is the
        only non-relevant one.

        References
        ----------
        S. MacAvaney, C. Macdonald and I. Ounis. Streamlining evaluation with ir-measures.
        ECIR 2022 (the ``Accuracy`` measure of its package). J. A. Hanley and B. J. McNeil.
        The meaning and use of the area under a receiver operating characteristic (ROC)
        curve. Radiology 143(1), 1982.
        """,
    )
)
