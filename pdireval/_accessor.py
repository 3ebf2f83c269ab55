"""The ``.ireval`` DataFrame accessor: a thin, stateless shell over :mod:`pdireval.api`."""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

import pandas as pd

from pdireval import api
from pdireval._prepare.columns import DEFAULT_COLUMNS, ColumnMap
from pdireval._summary import Agg
from pdireval.metrics import MetricLike

if TYPE_CHECKING:  # pragma: no cover - plotting is imported when df.ireval.plot is used
    from pdireval.plotting import PlotAccessor

__all__ = ["IREvalAccessor"]


@pd.api.extensions.register_dataframe_accessor("ireval")
class IREvalAccessor:
    """IR evaluation for long-format (query, doc, rank, rel) frames.

    ``df.ireval`` uses the default column names (and their synonyms);
    ``df.ireval(query="qid", rel="label", run="system")`` returns an accessor with
    other columns. Every method delegates to the function of the same name in
    :mod:`pdireval.api`, passing the column mapping.

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
    ) -> IREvalAccessor:
        """Return an accessor that reads the given roles from other columns."""
        names = dict(query=query, doc=doc, rank=rank, rel=rel, score=score, run=run, known=known)
        return IREvalAccessor(self._obj, self._columns.remap(**names))

    def evaluate(self, metrics: MetricLike | Iterable[MetricLike], **options: Any) -> pd.DataFrame:
        """Per-query values; see :func:`pdireval.evaluate`."""
        return api.evaluate(self._obj, metrics, columns=self._columns, **options)

    def summary(
        self, metrics: MetricLike | Iterable[MetricLike], agg: Agg = "mean", **options: Any
    ) -> pd.Series | pd.DataFrame:
        """Aggregated values; see :func:`pdireval.summary`."""
        return api.summary(self._obj, metrics, agg=agg, columns=self._columns, **options)

    def compare(self, metrics: MetricLike | Iterable[MetricLike], **options: Any) -> pd.DataFrame:
        """Paired significance tests between runs; see :func:`pdireval.compare`."""
        return api.compare(self._obj, metrics, columns=self._columns, **options)

    def per_query(self, metric: MetricLike, **options: Any) -> pd.DataFrame:
        """Query x run values and deltas to a baseline; see :func:`pdireval.per_query`."""
        return api.per_query(self._obj, metric, columns=self._columns, **options)

    def report(self, metrics: MetricLike | Iterable[MetricLike], **options: Any) -> api.Report:
        """Summary, comparison and per-query tables to render; see :func:`pdireval.report`."""
        return api.report(self._obj, metrics, columns=self._columns, **options)

    def precision(self, k: int, **options: Any) -> pd.Series:
        """Per-query ``P@k``; see :func:`pdireval.precision`."""
        return api.precision(self._obj, k, columns=self._columns, **options)

    def recall(self, k: int, **options: Any) -> pd.Series:
        """Per-query ``R@k``; see :func:`pdireval.recall`."""
        return api.recall(self._obj, k, columns=self._columns, **options)

    def ap(self, k: int | None = None, **options: Any) -> pd.Series:
        """Per-query ``AP``; see :func:`pdireval.ap`."""
        return api.ap(self._obj, k, columns=self._columns, **options)

    def map(self, k: int | None = None, **options: Any) -> float | pd.Series:
        """Mean average precision; see :func:`pdireval.map`."""
        return api.map(self._obj, k, columns=self._columns, **options)

    def gmap(self, k: int | None = None, **options: Any) -> float | pd.Series:
        """Geometric mean average precision; see :func:`pdireval.gmap`."""
        return api.gmap(self._obj, k, columns=self._columns, **options)

    def rr(self, k: int | None = None, **options: Any) -> pd.Series:
        """Per-query reciprocal rank; see :func:`pdireval.rr`."""
        return api.rr(self._obj, k, columns=self._columns, **options)

    def mrr(self, k: int | None = None, **options: Any) -> float | pd.Series:
        """Mean reciprocal rank; see :func:`pdireval.mrr`."""
        return api.mrr(self._obj, k, columns=self._columns, **options)

    def ndcg(self, k: int | None = None, **options: Any) -> pd.Series:
        """Per-query nDCG; see :func:`pdireval.ndcg`."""
        return api.ndcg(self._obj, k, columns=self._columns, **options)

    def dcg(self, k: int | None = None, **options: Any) -> pd.Series:
        """Per-query DCG; see :func:`pdireval.dcg`."""
        return api.dcg(self._obj, k, columns=self._columns, **options)

    def r_precision(self, **options: Any) -> pd.Series:
        """Per-query R-precision; see :func:`pdireval.r_precision`."""
        return api.r_precision(self._obj, columns=self._columns, **options)

    def ties(self, k: int, **options: Any) -> pd.DataFrame:
        """Groups of equal scores straddling cutoff k; see :func:`pdireval.ties`."""
        return api.ties(self._obj, k, columns=self._columns, **options)

    def success(self, k: int, **options: Any) -> pd.Series:
        """Per-query ``Success@k``; see :func:`pdireval.success`."""
        return api.success(self._obj, k, columns=self._columns, **options)

    def rank_correlation(self, run_a: Any = None, run_b: Any = None, **options: Any) -> pd.Series:
        """Per-query rank correlation; see :func:`pdireval.rank_correlation`."""
        return api.rank_correlation(self._obj, run_a, run_b, columns=self._columns, **options)

    def pr_curve(self, **options: Any) -> pd.DataFrame:
        """Precision-recall curves as a long table; see :func:`pdireval.pr_curve`."""
        return api.pr_curve(self._obj, columns=self._columns, **options)

    def curve(self, metric: MetricLike, ks: Iterable[int] = range(1, 11), **options: Any):
        """A metric at several cutoffs as a long table; see :func:`pdireval.curve`."""
        return api.curve(self._obj, metric, ks, columns=self._columns, **options)

    @property
    def plot(self) -> PlotAccessor:
        """matplotlib figures of this frame; see :mod:`pdireval.plotting`."""
        from pdireval.plotting import PlotAccessor

        return PlotAccessor(self._obj, self._columns)
