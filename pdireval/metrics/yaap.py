"""Yet another average precision (``YAAP``, trec_eval ``yaap``; Robertson 2012)."""

from __future__ import annotations

import math

import numpy as np

from pdireval._prepare.ranked import Ranked
from pdireval.metrics._base import Family, TrecMeasure, register, rel_param


def _libm_log(values: np.ndarray) -> np.ndarray:
    """The natural logarithm of each (positive) value as the C library computes it (numpy's
    vectorised ``log`` may differ from it in the last bit): once per distinct value.
    """
    distinct, inverse = np.unique(values, return_inverse=True)
    logs = np.array([math.log(value) for value in distinct.tolist()], dtype=np.float64)
    return logs[inverse].reshape(values.shape)


def _yaap(ranked: Ranked, *, k: None, rel: int) -> np.ndarray:
    relevant = ranked.relevant(rel)
    # the precision at each relevant document, added in rank order (trec_eval's loop)
    precision = ranked.relevant_so_far(rel)[relevant] / ranked.position[relevant]
    found = np.bincount(ranked.group[relevant], weights=precision, minlength=ranked.n_groups)
    return _libm_log((1.0 + found) / (1.0 + ranked.num_relevant(rel) - found))


YAAP = register(
    Family(
        "YAAP",
        _yaap,
        params=(rel_param(),),
        aliases=("yet_another_ap",),
        bounded=False,
        trec_eval=(TrecMeasure("yaap", "YAAP"),),
        doc="""Yet another average precision (Robertson 2012; trec_eval ``yaap``).

        ``YAAP = log((1 + S) / (1 + R - S))``, where S is the sum of the precisions at
        the ranks of the relevant retrieved documents (AP's numerator: AP = S / R) and R
        the number of relevant documents. Monotone with AP on one query, but a logit-like
        scale that averages across queries better than AP: not bounded, 0 when S = R / 2,
        log(1 / (1 + R)) when nothing relevant was found, 0 when R = 0 and nothing is
        found. trec_eval computes it without a cutoff; -l is ``rel=``.

        References
        ----------
        S. Robertson. On smoothing average precision. ECIR 2012, LNCS 7224, 158-169.
        """,
    )
)
