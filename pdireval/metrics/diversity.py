"""Diversity and marginal relevance: measures over subtopic (intent) judgments.

A document can be relevant and still redundant. TREC's diversity tasks judge documents
per subtopic of a query; these measures reward a ranking for covering many subtopics
early, and give less for a subtopic already seen. They read the subtopic judgments of
a frame built by :func:`pdireval.merge_qrels` from qrels with a ``subtopic`` column
(synonyms ``iteration``, ``intent``), and give the numbers of ndeval, the TREC Web
track's tool that ir_measures and pyndeval run: labels are relevant at ``rel`` or above,
a subtopic without a relevant document is not counted, and ideal rankings are built
greedily, a tie going to the largest document id (greedy is not always optimal, so a
normalised value can exceed 1). Unlike ndeval, cutoffs may exceed 20.

The gain of the document at rank r is G(r) = sum over the subtopics s it is relevant to
of (1 - alpha)^c(s), with c(s) the documents above r relevant to s; N is the number of
subtopics with a relevant document. Documents are ranked as trec_eval ranks them (score
descending, ties by document id descending); ir_measures hands pyndeval tied scores by
document id ascending, so on ties the two can differ.

A cutoff past the end of a query's ranking and of its judged documents cuts nothing:
alpha_nDCG, nERR_IA and StRecall then give exactly (bit for bit) the value at that
depth, whatever larger cutoff is asked for. alpha_DCG, ERR_IA and P_IA do not stop
changing there, because ndeval divides them by a quantity that grows with k: the best
case of k ranks (alpha_DCG, ERR_IA; it converges, so their values settle as k grows) and
k itself (P_IA, as trec_eval's P@k is divided by k even when fewer were retrieved).

Examples
--------
>>> import pandas as pd, pdireval
>>> run = pd.DataFrame({"query": "q", "doc": ["d1", "d2", "d3"], "score": [3.0, 2.0, 1.0]})
>>> qrels = pd.DataFrame({"query": "q", "subtopic": ["a", "a", "b"],
...                       "doc": ["d1", "d2", "d2"], "rel": 1})
>>> merged = pdireval.merge_qrels(run, qrels)
>>> merged.ireval.evaluate(["alpha_nDCG@2", "StRecall@1", "P_IA@2"]).round(4)
... # doctest: +NORMALIZE_WHITESPACE
metric  alpha_nDCG@2  StRecall@1  P_IA@2
query
q             0.8406         0.5    0.75
"""

from __future__ import annotations

import numpy as np

from pdireval._core.errors import MetricError
from pdireval._prepare.ranked import Ranked
from pdireval.metrics._base import Family, Param, number_above, register, rel_param


def _needs_subtopics(ranked: Ranked, **params: object) -> np.ndarray:
    msg = "a diversity measure needs subtopic judgments; the engine computes it separately"
    raise MetricError(msg)


def _unit(name: str, value: object) -> float:
    number = number_above(0)(name, value)
    if number > 1:
        msg = f"parameter {name}= must be in (0, 1], got {value!r}"
        raise MetricError(msg)
    return number


_ALPHA = Param("alpha", 0.5, _unit, "redundancy penalty: a subtopic seen c times adds (1-a)^c")


def _family(
    name: str, doc: str, *, cutoff: str = "required", params=(), aliases=(), bounded=False
) -> Family:
    return register(
        Family(
            name,
            _needs_subtopics,
            params=(rel_param(), *params),
            cutoff=cutoff,  # type: ignore[arg-type]
            aliases=aliases,
            needs=("subtopic",),
            whole_labels=True,
            bounded=bounded,
            doc=doc,
        )
    )


alpha_DCG = _family(
    "alpha_DCG",
    """alpha-DCG@k as ndeval reports it: ``sum_{r<=k} G(r) / log2(1 + r)`` divided by
    its best case ``N * sum_{r<=k} (1 - alpha)^(r-1) / log2(1 + r)`` (every document
    relevant to every subtopic) -- except at k = 1, where ndeval does not divide
    (Clarke et al. 2008). The best case grows with k, so the value keeps changing for
    cutoffs past the end of the ranking.""",
    params=(_ALPHA,),
    aliases=("alpha_dcg",),
)
alpha_nDCG = _family(
    "alpha_nDCG",
    """alpha-nDCG@k (Clarke et al. 2008): ``sum_{r<=k} G(r) / log2(1 + r)`` over the
    same sum of the greedy ideal ranking of all judged documents; 0 when the query has
    no relevant document.""",
    params=(_ALPHA,),
    aliases=("alpha_ndcg",),
)
ERR_IA = _family(
    "ERR_IA",
    """Intent-aware ERR@k as ndeval reports it: ``sum_{r<=k} G(r) / r`` divided by its
    best case ``N * sum_{r<=k} (1 - alpha)^(r-1) / r`` (not at k = 1). Chapelle et al.
    (2011) define ERR-IA; ndeval computes it as this cascade over the subtopics. The best
    case grows with k, so the value keeps changing for cutoffs past the end of the
    ranking.""",
    params=(_ALPHA,),
    aliases=("err_ia",),
)
nERR_IA = _family(
    "nERR_IA",
    """ERR_IA@k normalised by the greedy ideal ranking's value instead of the best case.""",
    params=(_ALPHA,),
    aliases=("nerr_ia",),
)
P_IA = _family(
    "P_IA",
    """Intent-aware precision@k (Agrawal et al. 2009): the mean over the N subtopics of
    the share of the top k relevant to each (divided by k even when fewer were
    retrieved).""",
    aliases=("p_ia",),
    bounded=True,
)
StRecall = _family(
    "StRecall",
    """Subtopic recall@k (Zhai, Cohen & Lafferty 2003): the share of the N subtopics
    with a relevant document in the top k.""",
    aliases=("strec", "s_recall"),
    bounded=True,
)
AP_IA = _family(
    "AP_IA",
    """Intent-aware average precision: the mean over the N subtopics of each one's AP
    (ndeval's MAP-IA), over the whole ranking.""",
    cutoff="none",
    aliases=("MAP_IA", "map_ia"),
    bounded=True,
)
_BETA = Param("beta", 0.5, _unit, "patience: the user reads on with probability beta")
NRBP = _family(
    "NRBP",
    """Novelty- and rank-biased precision (Clarke, Kolla & Vechtomova 2009):
    ``(1 - (1 - alpha) beta) / N * sum_r beta^(r-1) G(r)`` over the whole ranking.""",
    cutoff="none",
    params=(_ALPHA, _BETA),
    aliases=("nrbp",),
    bounded=True,
)
nNRBP = _family(
    "nNRBP",
    """NRBP over the NRBP of the greedy ideal ranking; NaN when the query has no relevant
    document.""",
    cutoff="none",
    params=(_ALPHA, _BETA),
    aliases=("nnrbp",),
)
