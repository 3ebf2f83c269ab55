"""The citation support of generated answers, per answer (see
:mod:`pdireval.engine.citations` for citation frames).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Unpack

import pandas as pd

from pdireval._core.options import EVALUATION, Evaluation, takes
from pdireval.engine.evaluate import per_part
from pdireval.metrics.citations import (
    SupportPrecision,
    SupportRecall,
    WeightedPrecision,
    WeightedRecall,
)

if TYPE_CHECKING:
    from pdireval.typing import ColumnsLike, EvaluationOptions

__all__ = ["citation_support"]

#: The columns of :func:`citation_support`, in order.
COLUMNS = ("support_precision", "support_recall", "weighted_precision", "weighted_recall")


@takes(EVALUATION)
def citation_support(
    frame: pd.DataFrame,
    *,
    columns: ColumnsLike = None,
    partial: float = 0.5,
    **options: Unpack[EvaluationOptions],
) -> pd.DataFrame:
    """Support of generated answers by their citations, per (run, query), as the TREC
    2024 RAG track evaluates it.

    Parameters
    ----------
    frame : DataFrame
        A citation frame: one row per (run, query, sentence, cited doc) with the grade of
        the support the document gives the sentence -- columns ``run`` (optional),
        ``query``, ``sentence``, ``doc``, ``support``, and optionally ``judge``,
        ``collection`` and ``seed``. The grades are ``"full_support"``,
        ``"partial_support"`` and ``"no_support"``; the track's spellings ``"Full
        Support"``/``"FS"``, ... are read as these. A row whose doc is empty (its grade
        too) stands for a sentence without citations, one whose sentence is empty for
        an answer without sentences. :func:`pdireval.read_rag_answers` reads the
        track's answer files into the rows of such a frame, to be joined with grades.
    columns : ColumnMap or dict, optional
        Which column plays which role, e.g. ``{"sentence": "position", "doc": "docid"}``.
    partial : float
        Credit of a partially supporting citation in the weighted scores (0.5).
    **options
        The evaluation options (below), as for :func:`pdireval.evaluate`;
        ``queries="retrieved"`` leaves out the answers without sentences, and the
        options that cut a ranking (``max_rank``, ``ignore_self``, ``qrels``) are
        refused.

    Returns
    -------
    DataFrame
        One row per (run[, judge, collection, seed], query), the ids as index levels in
        that order, and the columns ``support_precision``, ``support_recall``,
        ``weighted_precision`` and ``weighted_recall`` (``columns.name == "metric"``).

    Raises
    ------
    SchemaError
        A missing column, a grade outside those above, a cited doc without a grade, or
        a (sentence, doc) pair graded twice for one answer; the message names the rows.

    Notes
    -----
    With the weight of a grade 1 (full), ``partial`` (partial) or 0 (none), Thakur et
    al. (2025) define per answer:

    * ``weighted_precision``: the mean weight of its (sentence, cited doc) pairs --
      how far its citations support the sentences they are attached to;
    * ``weighted_recall``: the mean over its sentences of the best weight among the
      sentence's citations -- how far its sentences are supported. A sentence without
      citations counts as unsupported.

    ``support_precision`` and ``support_recall`` are the same with ``partial = 0``:
    the share of pairs graded full support, and the share of sentences with at least
    one fully supporting citation. Where the paper leaves a choice: an answer without
    citations scores 0 on precision (the share is undefined), an answer without
    sentences 0 on all four; and the frame's pairs are all scored -- the track graded
    the first three citations of each sentence only, which
    :func:`pdireval.read_rag_answers` can keep with ``max_citations=3``. The same
    scores are measures of their own (``support_precision``, ``support_recall``,
    ``weighted_support_precision``, ``weighted_support_recall``):
    :func:`pdireval.evaluate`, :func:`pdireval.summary`, :func:`pdireval.compare` and
    :func:`pdireval.report` take a citation frame as they take a run.

    References
    ----------
    N. Thakur, R. Pradeep, S. Upadhyay, D. Campos, N. Craswell and J. Lin. Support
    evaluation for the TREC 2024 RAG track: comparing human versus LLM judges.
    arXiv:2504.15205, 2025.

    Examples
    --------
    >>> import pandas as pd, pdireval
    >>> frame = pd.DataFrame({
    ...     "run": ["rag-a"] * 3 + ["rag-b"] * 3, "query": "q1",
    ...     "sentence": [0, 0, 1, 0, 1, 2],
    ...     "doc": ["d1", "d2", "d3", "d1", "d3", None],
    ...     "support": ["full_support", "no_support", "partial_support",
    ...                 "partial_support", "full_support", None]})
    >>> pdireval.citation_support(frame).round(4).T
    run                    rag-a   rag-b
    query                     q1      q1
    metric
    support_precision   0.3333  0.5000
    support_recall      0.5000  0.3333
    weighted_precision  0.5000  0.7500
    weighted_recall     0.7500  0.5000
    """
    metrics = [
        SupportPrecision.default,
        SupportRecall.default,
        WeightedPrecision(partial=partial),
        WeightedRecall(partial=partial),
    ]
    table, _ = per_part(frame, metrics, columns, Evaluation.from_options(options))
    table = table[[m.label for m in metrics]]
    table.columns = pd.Index(COLUMNS, name="metric")
    return table
