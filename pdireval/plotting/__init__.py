"""Figures of an evaluation, drawn with matplotlib: ``df.ireval.plot``.

Every function takes the long frame (as :func:`pdireval.evaluate` does), draws on
``ax`` -- or on a new figure of a size that suits its content when ``ax`` is None --
and returns the matplotlib Axes. Figures stay readable with one run and with twenty runs
named like ``bm25+monoT5-3b-rerank-top1000-fold3``:

* Each run has one style -- colour, marker, line style and, for bars, hatch -- in every
  figure, given by its position in the run order: ``order=`` if given, then the runs in
  the order they first appear in the frame (see :func:`run_styles`). No two of the first
  100 runs share colour and marker, and adding runs at the end of the order leaves the
  others' styles. No run is grey: grey is what the runs are compared with.
* Legends go below the axes, in as many columns as fit, and a new figure grows by the
  legend's height instead of shrinking the plot; where runs are the categories, their
  names run along the y axis and the figure widens for them. On axes you pass, the
  legend goes beside them and nothing is resized.
* Per-query figures put every run on one query order, labelled with the query ids.

New figures use matplotlib's constrained layout, so labels are not cut off when saved.
Nothing is shown (no ``plt.show()``) and no global matplotlib setting is changed.

matplotlib is optional (``pip install 'pdireval[plot]'``) and imported only when a
figure is drawn; without it a :class:`pdireval.MissingDependencyError` says how to
install it. ``df.ireval.plot`` is a callable namespace, like pandas' ``df.plot``:
``df.ireval.plot.systems("AP")`` and ``df.ireval.plot("systems", "AP")`` are one call.

Examples
--------
>>> import matplotlib
>>> matplotlib.use("Agg")
>>> import pdireval
>>> from pdireval.datasets import example
>>> ax = example().ireval.plot.pr_curve()
>>> [line.get_label() for line in ax.get_lines()]
['strong', 'medium', 'weak']
>>> ax.get_xlabel(), ax.get_ylabel()
('Recall', 'Interpolated precision')

Rule: imports ``pdireval.judgments``, ``pdireval.stats`` and the layers below them;
nothing of ``pdireval.reports``, its sibling.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING, Any, Literal

import pandas as pd

from pdireval._core.registry import Registry
from pdireval.plotting._bias import judge_bias_plot
from pdireval.plotting._curves import at_k, pr_curve
from pdireval.plotting._look import STYLE
from pdireval.plotting._queries import MAX_BAR_RUNS, MAX_QUERY_TICKS, distribution, per_query
from pdireval.plotting._runs import systems, tradeoff
from pdireval.plotting._styles import RunStyle, run_styles
from pdireval.plotting.science import (
    asl_plot,
    judges_scatter,
    pairs_heatmap,
    risk_plot,
    topics_plot,
)
from pdireval.typing import ColumnsLike as Columns
from pdireval.typing import MetricLike

if TYPE_CHECKING:  # pragma: no cover - for type checkers only
    from matplotlib.axes import Axes

__all__ = [
    "KINDS",
    "MAX_BAR_RUNS",
    "MAX_QUERY_TICKS",
    "STYLE",
    "PlotAccessor",
    "RunStyle",
    "asl_plot",
    "at_k",
    "distribution",
    "judge_bias_plot",
    "judges_scatter",
    "pairs_heatmap",
    "per_query",
    "pr_curve",
    "risk_plot",
    "run_styles",
    "systems",
    "topics_plot",
    "tradeoff",
]

Kind = Literal["pr_curve", "per_query", "distribution", "at_k", "systems", "tradeoff"]

#: The figures ``df.ireval.plot(kind, ...)`` draws of a long frame, by kind.
KINDS: Registry[Callable[..., Any]] = Registry("plot kind", "kind")
for _kind, _function in (
    ("pr_curve", pr_curve),
    ("per_query", per_query),
    ("distribution", distribution),
    ("at_k", at_k),
    ("systems", systems),
    ("tradeoff", tradeoff),
):
    KINDS.add(_kind, _function, doc=(_function.__doc__ or "").strip().split("\n")[0])


class PlotAccessor:
    """``df.ireval.plot``: the figures of :mod:`pdireval.plotting` for the accessor's frame.

    A callable namespace, as pandas' ``df.plot``: ``df.ireval.plot.at_k("nDCG")`` and
    ``df.ireval.plot("at_k", "nDCG")`` draw the same figure. It holds the frame and the
    column mapping of the ``ireval`` accessor that made it, nothing else; each method
    delegates to the function of the same name, which returns the matplotlib Axes.

    Examples
    --------
    >>> import matplotlib
    >>> matplotlib.use("Agg")
    >>> from pdireval.datasets import example
    >>> df = example()
    >>> ax = df.ireval.plot("at_k", "nDCG", ks=range(1, 6))
    >>> ax.get_ylabel(), len(ax.get_lines())
    ('Mean nDCG@k', 3)
    >>> renamed = df.rename(columns={"run": "system"})
    >>> ax = renamed.ireval(run="system").plot.distribution("AP")
    >>> [tick.get_text() for tick in ax.get_yticklabels()]
    ['strong', 'medium', 'weak']
    """

    __slots__ = ("_columns", "_obj")

    def __init__(self, obj: pd.DataFrame, columns: Columns = None) -> None:
        self._obj, self._columns = obj, columns

    def __call__(self, kind: Kind, *args: Any, **kwargs: Any) -> Axes:
        """Draw the figure named by ``kind`` (one of the method names)."""
        return getattr(self, KINDS.canonical(kind))(*args, **kwargs)

    def pr_curve(self, points: int = 11, per_query: bool = False, **kwargs: Any) -> Axes:
        """Averaged interpolated precision-recall curves; see :func:`pdireval.plotting.pr_curve`."""
        return pr_curve(
            self._obj, points=points, per_query=per_query, columns=self._columns, **kwargs
        )

    def per_query(self, metric: MetricLike, baseline: Any = None, **kwargs: Any) -> Axes:
        """Per-query differences on one query order; see :func:`pdireval.plotting.per_query`."""
        return per_query(self._obj, metric, baseline, columns=self._columns, **kwargs)

    def distribution(self, metric: MetricLike, **kwargs: Any) -> Axes:
        """Per-query distribution per run; see :func:`pdireval.plotting.distribution`."""
        return distribution(self._obj, metric, columns=self._columns, **kwargs)

    def at_k(self, metric: MetricLike, ks: Iterable[int] = range(1, 21), **kwargs: Any) -> Axes:
        """A metric against the cutoff k; see :func:`pdireval.plotting.at_k`."""
        return at_k(self._obj, metric, ks, columns=self._columns, **kwargs)

    def systems(self, metric: MetricLike, ci: float | None = 0.95, **kwargs: Any) -> Axes:
        """Runs by mean with confidence intervals; see :func:`pdireval.plotting.systems`."""
        return systems(self._obj, metric, ci, columns=self._columns, **kwargs)

    def tradeoff(self, metric: MetricLike, **kwargs: Any) -> Axes:
        """Effectiveness against mean latency, Pareto front dashed; see :func:`.tradeoff`."""
        return tradeoff(self._obj, metric, columns=self._columns, **kwargs)
