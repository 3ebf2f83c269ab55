"""Citation support of generated answers: support precision and recall, strict and weighted.

A citation frame holds one row per (run, query, sentence, cited doc): the grade of the
support the cited document gives the answer sentence (``full_support``,
``partial_support``, ``no_support``), as the support evaluation of the TREC 2024 RAG
track assesses it (Thakur et al., 2025). The engine evaluates it like a run
(:mod:`pdireval.engine.citations`): each (sentence, citation) pair is a row, and so is
each sentence with the best grade of its citations; the label of a row is
:func:`label_code` of its kind and grade, which the kernels here read back (see
:func:`pdireval.citation_support`).
"""

from __future__ import annotations

import numpy as np

from pdireval._core.errors import MetricError
from pdireval._core.roles import SUPPORT_GRADES
from pdireval._prepare.ranked import Ranked
from pdireval.metrics._base import Family, Param, register
from pdireval.metrics.nuggets import _number_in

__all__ = [
    "CITATION_FAMILIES",
    "GRADES",
    "SupportPrecision",
    "SupportRecall",
    "WeightedPrecision",
    "WeightedRecall",
    "label_code",
]

GRADES = SUPPORT_GRADES


def label_code(sentence: np.ndarray, grade: np.ndarray) -> np.ndarray:
    """The label the engine carries for a row of a citation frame: ``3 * sentence +
    grade`` (0..5), ``sentence`` True for a sentence's row (its best grade; 0 for a
    sentence without citations) and False for a (sentence, citation) pair's row,
    ``grade`` the position of the grade in :data:`GRADES`.
    """
    return 3 * np.asarray(sentence, dtype=np.int64) + np.asarray(grade, dtype=np.int64)


def _decoded(ranked: Ranked) -> tuple[np.ndarray, np.ndarray]:
    """Each row's kind (True: a sentence, False: a pair) and grade code, from its label."""
    label = ranked.label
    whole = np.isfinite(label) & (label == np.round(label)) & (label >= 0) & (label <= 5)
    if not whole.all():
        msg = (
            "citation support measures (support_precision, support_recall, "
            "weighted_support_precision, weighted_support_recall) read a citation frame -- "
            "columns run, query, sentence, doc and support; pass one to pdireval.evaluate, "
            "summary, compare or report, or use pdireval.citation_support"
        )
        raise MetricError(msg)
    code = label.astype(np.int64)
    return code >= 3, code % 3


def _share(ranked: Ranked, *, sentences: bool, partial: float) -> np.ndarray:
    """Credit over count per answer, of its pairs (precision) or of its sentences
    (recall): ``full_support`` 1, ``partial_support`` ``partial``, ``no_support`` 0;
    0 where the answer has none.
    """
    sentence, grade = _decoded(ranked)
    rows = (sentence if sentences else ~sentence).astype(np.float64)
    credit = np.choose(grade, [0.0, partial, 1.0])
    total = ranked.per_query_sum(rows)
    gained = ranked.per_query_sum(rows * credit)
    out = np.zeros(ranked.n_groups)
    np.divide(gained, total, out=out, where=total > 0)
    return out


def _support_precision(ranked: Ranked, *, k: None) -> np.ndarray:
    return _share(ranked, sentences=False, partial=0.0)


def _weighted_precision(ranked: Ranked, *, k: None, partial: float) -> np.ndarray:
    return _share(ranked, sentences=False, partial=partial)


def _support_recall(ranked: Ranked, *, k: None) -> np.ndarray:
    return _share(ranked, sentences=True, partial=0.0)


def _weighted_recall(ranked: Ranked, *, k: None, partial: float) -> np.ndarray:
    return _share(ranked, sentences=True, partial=partial)


_NEEDS = ("sentence", "support")
_PARTIAL = Param(
    "partial",
    0.5,
    _number_in(0.0, 1.0),
    "credit of a partially supporting citation (TREC 2024 RAG: 0.5)",
)
_PRECISION_ZERO = """0 for an answer without citations, where the share is undefined
        (Thakur et al. leave that case open)."""
_RECALL_ZERO = """A sentence without citations counts as unsupported; 0 for an answer
        without sentences."""

SupportPrecision = register(
    Family(
        "support_precision",
        _support_precision,
        average_kernel=_support_precision,
        needs=_NEEDS,
        doc=f"""Share of an answer's citations that fully support their sentence.

        ``support_precision = |(sentence, doc) pairs graded full_support| / |(sentence,
        doc) pairs|`` per (run, query), read from a citation frame (columns run,
        query, sentence, doc, support); the citation support evaluation of the TREC
        2024 RAG track (Thakur et al., 2025) without partial credit.
        {_PRECISION_ZERO}
        """,
    )
)

WeightedPrecision = register(
    Family(
        "weighted_support_precision",
        _weighted_precision,
        average_kernel=_weighted_precision,
        params=(_PARTIAL,),
        needs=_NEEDS,
        doc=f"""Support of an answer's citations, partial support weighing ``partial``.

        ``weighted_support_precision = (|full_support| + partial * |partial_support|) /
        |(sentence, doc) pairs|`` per (run, query), ``partial = 0.5``: the weighted
        precision of Thakur et al. (2025), the share of the citations that support
        their sentence, a full support weighing 1 and a partial one 0.5.
        {_PRECISION_ZERO}
        """,
    )
)

SupportRecall = register(
    Family(
        "support_recall",
        _support_recall,
        average_kernel=_support_recall,
        needs=_NEEDS,
        doc=f"""Share of an answer's sentences fully supported by at least one citation.

        ``support_recall = |sentences with a full_support citation| / |sentences|`` per
        (run, query), read from a citation frame; the citation support evaluation of
        the TREC 2024 RAG track (Thakur et al., 2025) without partial credit.
        {_RECALL_ZERO}
        """,
    )
)

WeightedRecall = register(
    Family(
        "weighted_support_recall",
        _weighted_recall,
        average_kernel=_weighted_recall,
        params=(_PARTIAL,),
        needs=_NEEDS,
        doc=f"""Support of an answer's sentences by their best citation.

        ``weighted_support_recall = sum over sentences of the best grade's weight /
        |sentences|`` per (run, query): the weighted recall of Thakur et al. (2025),
        ``full_support`` weighing 1, ``partial_support`` ``partial = 0.5``,
        ``no_support`` 0. {_RECALL_ZERO}
        """,
    )
)

#: The citation support families: evaluated on citation frames only.
CITATION_FAMILIES = (SupportPrecision, WeightedPrecision, SupportRecall, WeightedRecall)
