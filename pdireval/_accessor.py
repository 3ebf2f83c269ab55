"""The ``.ireval`` DataFrame accessor: a thin, stateless shell over :mod:`pdireval.api`."""

from __future__ import annotations

from collections.abc import Hashable, Iterable, Mapping
from typing import TYPE_CHECKING, Literal, Unpack

import numpy as np
import pandas as pd

from pdireval._core.options import COMPARISON, EVALUATION, takes
from pdireval._core.roles import DEFAULT_COLUMNS, ColumnMap

if TYPE_CHECKING:
    from types import ModuleType

    from pdireval.plotting import PlotAccessor
    from pdireval.reports.model import Report
    from pdireval.typing import (
        Aggregate,
        CiMethod,
        ComparisonOptions,
        EvaluationOptions,
        MetricLike,
        MetricsLike,
        RankCorrelation,
    )

__all__ = ["IREvalAccessor"]


def _api() -> ModuleType:
    """:mod:`pdireval.api`, imported at the first evaluation rather than with pdireval."""
    from pdireval import api

    return api


@pd.api.extensions.register_dataframe_accessor("ireval")
class IREvalAccessor:
    """IR evaluation for long-format (query, doc, rank, rel) frames.

    ``df.ireval`` uses the default column names (and their synonyms);
    ``df.ireval(query="qid", rel="label", run="system")`` returns an accessor with
    other columns. Every method is the function of the same name in
    :mod:`pdireval` applied to the frame with this column mapping, and takes the same
    options.

    Examples
    --------
    >>> import pandas as pd, pdireval
    >>> df = pd.DataFrame({"qid": ["1", "1", "2"], "docno": ["a", "b", "a"],
    ...                    "rank": [1, 2, 1], "label": [0, 1, 1]})
    >>> df.ireval.evaluate(["RR", "P@1"])
    metric   RR  P@1
    qid
    1       0.5  0.0
    2       1.0  1.0
    """

    __slots__ = ("_columns", "_obj")

    def __init__(self, obj: pd.DataFrame, columns: ColumnMap = DEFAULT_COLUMNS) -> None:
        self._obj, self._columns = obj, columns

    def __call__(
        self,
        *,
        query: str | None = None,
        doc: str | None = None,
        rank: str | None = None,
        rel: str | None = None,
        score: str | None = None,
        run: str | None = None,
        known: str | None = None,
        subtopic: str | None = None,
        time: str | None = None,
        judge: str | None = None,
        collection: str | None = None,
        seed: str | None = None,
        nugget: str | None = None,
        importance: str | None = None,
        assignment: str | None = None,
        sentence: str | None = None,
        support: str | None = None,
    ) -> IREvalAccessor:
        """Return an accessor that reads the given roles from other columns.

        Examples
        --------
        >>> import pandas as pd, pdireval
        >>> df = pd.DataFrame({"topic": [1, 1], "docid": ["a", "b"],
        ...                    "pos": [1, 2], "grade": [0, 2]})
        >>> df.ireval(query="topic", doc="docid", rank="pos", rel="grade").rr().tolist()
        [0.5]
        """
        names = dict(
            query=query,
            doc=doc,
            rank=rank,
            rel=rel,
            score=score,
            run=run,
            known=known,
            subtopic=subtopic,
            time=time,
            judge=judge,
            collection=collection,
            seed=seed,
            nugget=nugget,
            importance=importance,
            assignment=assignment,
            sentence=sentence,
            support=support,
        )
        return IREvalAccessor(self._obj, self._columns.remap(**names))

    @takes(EVALUATION)
    def evaluate(self, metrics: MetricsLike, **options: Unpack[EvaluationOptions]) -> pd.DataFrame:
        """Per-query values of one or more metrics: :func:`pdireval.evaluate` on this frame."""
        return _api().evaluate(self._obj, metrics, columns=self._columns, **options)

    @takes(EVALUATION)
    def summary(
        self,
        metrics: MetricsLike,
        *,
        agg: Aggregate = "mean",
        ci: float | None = None,
        ci_method: CiMethod = "t",
        n_resamples: int = 10_000,
        seed: int | np.random.SeedSequence | None = None,
        **options: Unpack[EvaluationOptions],
    ) -> pd.Series | pd.DataFrame:
        """Aggregates over queries (MAP, mean nDCG@k, ...): :func:`pdireval.summary`."""
        return _api().summary(
            self._obj,
            metrics,
            agg=agg,
            ci=ci,
            ci_method=ci_method,
            n_resamples=n_resamples,
            seed=seed,
            columns=self._columns,
            **options,
        )

    @takes(COMPARISON, EVALUATION)
    def compare(self, metrics: MetricsLike, **options: Unpack[ComparisonOptions]) -> pd.DataFrame:
        """Paired significance tests between runs: :func:`pdireval.compare` on this frame."""
        return _api().compare(self._obj, metrics, columns=self._columns, **options)

    @takes(EVALUATION)
    def per_query(
        self,
        metric: MetricLike,
        *,
        baseline: Hashable | None = None,
        **options: Unpack[EvaluationOptions],
    ) -> pd.DataFrame:
        """Query x run values and deltas to a baseline: :func:`pdireval.per_query`."""
        return _api().per_query(
            self._obj, metric, baseline=baseline, columns=self._columns, **options
        )

    @takes(COMPARISON, EVALUATION)
    def report(self, metrics: MetricsLike, **options: Unpack[ComparisonOptions]) -> Report:
        """Summary, comparison and per-query tables to render: :func:`pdireval.report`."""
        return _api().report(self._obj, metrics, columns=self._columns, **options)

    @takes(EVALUATION)
    def precision(self, k: int, *, rel: int = 1, **options: Unpack[EvaluationOptions]) -> pd.Series:
        """Per-query ``P@k``: :func:`pdireval.precision` on this frame."""
        return _api().precision(self._obj, k, rel=rel, columns=self._columns, **options)

    @takes(EVALUATION)
    def recall(self, k: int, *, rel: int = 1, **options: Unpack[EvaluationOptions]) -> pd.Series:
        """Per-query ``R@k``: :func:`pdireval.recall` on this frame."""
        return _api().recall(self._obj, k, rel=rel, columns=self._columns, **options)

    @takes(EVALUATION)
    def ap(
        self, k: int | None = None, *, rel: int = 1, **options: Unpack[EvaluationOptions]
    ) -> pd.Series:
        """Per-query average precision: :func:`pdireval.ap` on this frame."""
        return _api().ap(self._obj, k, rel=rel, columns=self._columns, **options)

    @takes(EVALUATION)
    def map(
        self, k: int | None = None, *, rel: int = 1, **options: Unpack[EvaluationOptions]
    ) -> float:
        """Mean average precision of the frame's one run: :func:`pdireval.map`."""
        return _api().map(self._obj, k, rel=rel, columns=self._columns, **options)

    @takes(EVALUATION)
    def gmap(
        self, k: int | None = None, *, rel: int = 1, **options: Unpack[EvaluationOptions]
    ) -> float:
        """Geometric mean average precision of the frame's one run: :func:`pdireval.gmap`."""
        return _api().gmap(self._obj, k, rel=rel, columns=self._columns, **options)

    @takes(EVALUATION)
    def rr(
        self, k: int | None = None, *, rel: int = 1, **options: Unpack[EvaluationOptions]
    ) -> pd.Series:
        """Per-query reciprocal rank: :func:`pdireval.rr` on this frame."""
        return _api().rr(self._obj, k, rel=rel, columns=self._columns, **options)

    @takes(EVALUATION)
    def mrr(
        self, k: int | None = None, *, rel: int = 1, **options: Unpack[EvaluationOptions]
    ) -> float:
        """Mean reciprocal rank of the frame's one run: :func:`pdireval.mrr`."""
        return _api().mrr(self._obj, k, rel=rel, columns=self._columns, **options)

    @takes(EVALUATION)
    def ndcg(
        self,
        k: int | None = None,
        *,
        rel: int = 1,
        gain: str | Mapping[int, float] = "linear",
        discount: str = "log2",
        base: float = 2,
        **options: Unpack[EvaluationOptions],
    ) -> pd.Series:
        """Per-query nDCG: :func:`pdireval.ndcg` on this frame."""
        return _api().ndcg(
            self._obj,
            k,
            rel=rel,
            gain=gain,
            discount=discount,
            base=base,
            columns=self._columns,
            **options,
        )

    @takes(EVALUATION)
    def dcg(
        self,
        k: int | None = None,
        *,
        rel: int = 1,
        gain: str | Mapping[int, float] = "linear",
        discount: str = "log2",
        base: float = 2,
        **options: Unpack[EvaluationOptions],
    ) -> pd.Series:
        """Per-query DCG: :func:`pdireval.dcg` on this frame."""
        return _api().dcg(
            self._obj,
            k,
            rel=rel,
            gain=gain,
            discount=discount,
            base=base,
            columns=self._columns,
            **options,
        )

    @takes(EVALUATION)
    def r_precision(self, *, rel: int = 1, **options: Unpack[EvaluationOptions]) -> pd.Series:
        """Per-query R-precision: :func:`pdireval.r_precision` on this frame."""
        return _api().r_precision(self._obj, rel=rel, columns=self._columns, **options)

    @takes(EVALUATION)
    def success(self, k: int, *, rel: int = 1, **options: Unpack[EvaluationOptions]) -> pd.Series:
        """Per-query ``Success@k``: :func:`pdireval.success` on this frame."""
        return _api().success(self._obj, k, rel=rel, columns=self._columns, **options)

    @takes(EVALUATION)
    def tie_groups(
        self, k: int, *, rel: int = 1, **options: Unpack[EvaluationOptions]
    ) -> pd.DataFrame:
        """Groups of equal scores straddling cutoff k: :func:`pdireval.tie_groups`."""
        return _api().tie_groups(self._obj, k, rel=rel, columns=self._columns, **options)

    def rank_correlation(
        self,
        run_a: Hashable | None = None,
        run_b: Hashable | None = None,
        *,
        method: RankCorrelation | Literal["rbo"] = "kendall",
        p: float = 0.9,
    ) -> pd.Series:
        """Per-query rank correlation of two runs: :func:`pdireval.rank_correlation`."""
        from pdireval.stats.correlation import rank_correlation  # loaded when first used

        return rank_correlation(self._obj, run_a, run_b, method=method, p=p, columns=self._columns)

    def rank_biased_overlap(
        self, run_a: Hashable, run_b: Hashable, *, p: float = 0.9, depth: int | None = None
    ) -> pd.DataFrame:
        """Per-query rank-biased overlap of two runs: :func:`pdireval.rank_biased_overlap`."""
        from pdireval.stats.overlap import rank_biased_overlap  # loaded when first used

        return rank_biased_overlap(self._obj, run_a, run_b, p=p, depth=depth, columns=self._columns)

    @takes(EVALUATION)
    def pr_curve(
        self,
        *,
        interpolated: bool = True,
        points: int = 11,
        rel: int = 1,
        average: bool = False,
        **options: Unpack[EvaluationOptions],
    ) -> pd.DataFrame:
        """Precision-recall curves as a long table: :func:`pdireval.pr_curve`."""
        return _api().pr_curve(
            self._obj,
            interpolated=interpolated,
            points=points,
            rel=rel,
            average=average,
            columns=self._columns,
            **options,
        )

    @takes(EVALUATION)
    def curve(
        self,
        metric: MetricLike,
        ks: Iterable[int] = range(1, 11),
        *,
        average: bool = False,
        **options: Unpack[EvaluationOptions],
    ) -> pd.DataFrame:
        """A metric at several cutoffs as a long table: :func:`pdireval.curve`."""
        return _api().curve(
            self._obj, metric, ks, average=average, columns=self._columns, **options
        )

    def fuse(
        self,
        method: str = "wsum",
        *,
        norm: str | None = "min-max",
        weights: Iterable[float] | Mapping[Hashable, float] | None = None,
        depth: int | None = None,
        name: Hashable | None = None,
        **params: float,
    ) -> pd.DataFrame:
        """Fuse the runs of this frame into one: :func:`pdireval.fuse`."""
        from pdireval.fusion import fuse  # loaded when first used

        return fuse(
            self._obj,
            method,
            norm=norm,  # type: ignore[arg-type]
            weights=weights,  # type: ignore[arg-type]
            depth=depth,
            name=name,
            columns=self._columns,
            **params,
        )

    @property
    def plot(self) -> PlotAccessor:
        """Matplotlib figures of this frame; see :mod:`pdireval.plotting`."""
        from pdireval.plotting import PlotAccessor  # loaded when first used

        return PlotAccessor(self._obj, self._columns)
