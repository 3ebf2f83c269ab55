"""Public type aliases of pdireval, for annotating code that calls it.

Every string option of the public functions has a ``Literal`` alias here, and the
keyword options shared by the evaluating functions are described by
:class:`EvaluationOptions` and :class:`SignificanceOptions`, so a wrapper of your own
can pass them on with full type checking::

    from typing import Unpack

    import pdireval
    from pdireval.typing import EvaluationOptions

    def my_table(frame, **options: Unpack[EvaluationOptions]):
        return pdireval.evaluate(frame, ["AP", "nDCG@10"], **options)

Examples
--------
>>> from typing import get_args
>>> from pdireval.typing import TiePolicy
>>> get_args(TiePolicy)
('trec', 'optimistic', 'pessimistic', 'average')
"""

from __future__ import annotations

from collections.abc import Hashable, Iterable, Mapping, Sequence
from typing import TYPE_CHECKING, Literal, TypeAlias, TypedDict

if TYPE_CHECKING:  # pragma: no cover - the aliases below are annotations only
    import numpy as np
    import pandas as pd

    from pdireval._core.roles import ColumnMap
    from pdireval.metrics import Family, Metric

__all__ = [
    "Aggregate",
    "Baseline",
    "CiMethod",
    "ColumnsLike",
    "ComparisonOptions",
    "Correction",
    "EvaluationOptions",
    "MetricLike",
    "MetricsLike",
    "QueryPolicy",
    "RankCorrelation",
    "SignificanceOptions",
    "Test",
    "TiePolicy",
    "TrecEvalVersion",
]

#: Which queries an evaluation reports: every judged one (``trec_eval -c``), only the
#: judged ones that retrieved something (plain ``trec_eval``), or all of them.
QueryPolicy: TypeAlias = Literal["judged", "retrieved", "all"]
TrecEvalVersion: TypeAlias = Literal["9.0.8", "10.0"]

#: How documents with equal scores are ordered.
TiePolicy: TypeAlias = Literal["trec", "optimistic", "pessimistic", "average"]

#: How per-query values are aggregated over queries.
Aggregate: TypeAlias = Literal["mean", "gmean", "hmean", "median"]

#: Paired significance tests.
Test: TypeAlias = Literal["t", "wilcoxon", "sign", "permutation", "bootstrap"]

#: Multiple-comparison corrections.
Correction: TypeAlias = Literal["holm", "bonferroni", "fdr_bh"]

#: Rank correlation coefficients.
RankCorrelation: TypeAlias = Literal["kendall", "spearman", "tau_ap", "tau_ap_b"]

#: Confidence intervals of a summary.
CiMethod: TypeAlias = Literal["t", "bootstrap"]

#: The baseline run(s) of a comparison: one run id, several, or ``None`` for all pairs.
Baseline: TypeAlias = "Hashable | Sequence[Hashable] | None"

#: Column roles: a :class:`pdireval.ColumnMap`, a ``{role: column}`` dict, or ``None``.
ColumnsLike: TypeAlias = "ColumnMap | Mapping[str, str] | None"

#: One metric: a name such as ``"nDCG@10"``, a family such as ``nDCG`` or ``P @ 10``.
MetricLike: TypeAlias = "str | Metric | Family"

#: One metric or several.
MetricsLike: TypeAlias = "str | Metric | Family | Iterable[str | Metric | Family]"


class EvaluationOptions(TypedDict, total=False):
    """Keyword options of every evaluating function (all optional).

    Attributes
    ----------
    queries : {"judged", "retrieved", "all"}
        Which queries are reported; default ``"judged"``.
    ties : {"trec", "optimistic", "pessimistic", "average"}
        How equal scores are ordered; default ``"trec"``.
    max_rank : int or None
        Evaluate only the top ``max_rank`` documents of each ranking (``trec_eval -M``).
    judged_only : bool
        Drop unjudged retrieved documents before evaluating (``trec_eval -J``).
    ignore_self : bool
        Leave the document whose id equals the query id out of each ranking (BEIR's
        ``ignore_identical_ids``, for ArguAna and Quora).
    rel_threshold : float or None
        The smallest label counted as relevant, for labels that are not whole numbers.
    validate : bool
        Check the frame (default ``True``).
    trec_eval_version : {"9.0.8", "10.0"}
        Whose rules the measures where trec_eval's versions differ follow (default
        ``"9.0.8"``).
    qrels : DataFrame, mapping of judge name to DataFrame, or None
        Judgments to match the frame against, as ``merge_qrels`` would, without
        building the merged frame; the frame is then a run without labels.
    qrels_columns : ColumnMap or dict, optional
        Column roles of ``qrels``.
    """

    queries: QueryPolicy
    ties: TiePolicy
    max_rank: int | None
    judged_only: bool
    ignore_self: bool
    rel_threshold: float | None
    validate: bool
    trec_eval_version: TrecEvalVersion
    qrels: pd.DataFrame | Mapping[Hashable, pd.DataFrame] | None
    qrels_columns: ColumnsLike


class SignificanceOptions(TypedDict, total=False):
    """Keyword options of the paired significance tests (all optional).

    Attributes
    ----------
    baseline : run id, list of run ids, or None
        The run(s) every other run is compared to; ``None``: all pairs.
    test : {"t", "wilcoxon", "sign", "permutation", "bootstrap"}
        The paired test; default ``"t"``.
    correction : {"holm", "bonferroni", "fdr_bh"} or None
        Multiple-comparison correction; default ``"holm"``.
    alpha : float
        Significance level; default 0.05.
    n_resamples : int
        Resamples of the permutation and bootstrap tests; default 10,000.
    seed : int, numpy SeedSequence or None
        Seed of the resampling tests.
    """

    baseline: Baseline
    test: Test
    correction: Correction | None
    alpha: float
    n_resamples: int
    seed: int | np.random.SeedSequence | None


class ComparisonOptions(EvaluationOptions, SignificanceOptions, total=False):
    """The options of :func:`pdireval.compare` and :func:`pdireval.report`: both kinds,
    and ``risk_alpha`` (URisk and TRisk next to each comparison; see
    :func:`pdireval.compare`).
    """

    risk_alpha: float | None
