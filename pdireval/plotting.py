"""Figures of an evaluation, drawn with matplotlib: ``df.ireval.plot``.

Every function takes the long frame (as :func:`pdireval.evaluate` does), draws on
``ax`` -- or on a new figure of a size that suits its content when ``ax`` is None --
and returns the matplotlib Axes. Figures stay readable with one run and with ten runs
named like ``bm25+monoT5-variant-3``: runs are told apart by colour with a legend
beside the plot, or named along the y axis where they are the categories; new figures
use matplotlib's constrained layout, so labels are not cut off when saved. A run keeps
its colour in every figure (``C0, C1, ...`` in the sorted order of the run ids).
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
['medium', 'strong', 'weak']
>>> ax.get_xlabel(), ax.get_ylabel()
('Recall', 'Interpolated precision')
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Hashable, Iterable, Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any, Literal, TypeVar, cast

import numpy as np
import pandas as pd

from pdireval import _escape as escape
from pdireval import _evaluate
from pdireval._comparison import per_query_table
from pdireval._errors import MetricError, MissingDependencyError
from pdireval._options import Evaluation
from pdireval._summary import aggregate, summary_table
from pdireval.curves import curve, without_cutoff
from pdireval.curves import pr_curve as pr_curve_table
from pdireval.metrics import Latency, parse_metrics
from pdireval.typing import Aggregate as Agg
from pdireval.typing import ColumnsLike as Columns
from pdireval.typing import MetricLike

if TYPE_CHECKING:  # pragma: no cover - for type checkers only
    from matplotlib.axes import Axes

__all__ = [
    "PlotAccessor",
    "at_k",
    "distribution",
    "per_query",
    "pr_curve",
    "systems",
    "tradeoff",
]

Kind = Literal["pr_curve", "per_query", "distribution", "at_k", "systems", "tradeoff"]

#: Up to this many queries, the per-query bars of one compared run are labelled.
MAX_QUERY_TICKS = 60
#: Up to this many compared runs, per-query differences are bars; more are lines.
MAX_BAR_RUNS = 3
#: The look of pdireval's figures, applied while drawing only (no global change).
STYLE = {
    "font.size": 9.5,
    "axes.titlesize": 11,
    "axes.titleweight": "bold",
    "axes.labelsize": 10,
    "axes.spines.top": False,
    "axes.spines.right": False,
    "legend.fontsize": 8.5,
    "legend.frameon": False,
    "xtick.labelsize": 9,
    "ytick.labelsize": 9,
}


_Plot = TypeVar("_Plot", bound=Callable[..., Any])


def _pyplot() -> Any:
    """Import :mod:`matplotlib.pyplot`, or raise :class:`MissingDependencyError` with the fix."""
    try:
        import matplotlib.pyplot as plt
    except ImportError as error:
        msg = (
            "plots need matplotlib, which is not installed; install it with "
            "pip install 'pdireval[plot]' (or pip install matplotlib)"
        )
        raise MissingDependencyError(msg) from error
    return plt


def _drawing(plot: _Plot) -> _Plot:
    """Check for matplotlib before a plot function computes anything.

    A user without matplotlib hears that first, not about a missing scipy or a bad
    metric name they will have to fix again after installing it.
    """

    @functools.wraps(plot)
    def checked(*args: Any, **kwargs: Any) -> Any:
        _pyplot()
        return plot(*args, **kwargs)

    return cast(_Plot, checked)


@contextmanager
def _style() -> Iterator[Any]:
    """Draw with pdireval's look (temporarily); yields :mod:`matplotlib.pyplot`."""
    plt = _pyplot()
    # Only the style's own keys are set and put back: restoring every rcParam (as
    # rc_context does) would also undo the backend a fresh Jupyter kernel resolves while
    # the first figure is drawn, and later figures would no longer show inline.
    saved = {key: plt.rcParams[key] for key in STYLE}
    plt.rcParams.update(STYLE)
    try:
        yield plt
    finally:
        plt.rcParams.update(saved)


def _axes(ax: Axes | None, size: tuple[float, float]) -> Axes:
    """``ax``, or the Axes of a new constrained-layout figure of ``size`` inches."""
    if ax is not None:
        return ax
    _, new = _pyplot().subplots(figsize=size, layout="constrained")
    return new


def _colours(runs: Iterable[Hashable]) -> dict[Hashable, str]:
    """A stable colour per run: ``C0, C1, ...`` in sorted run order (same in every figure)."""
    ordered = sorted(runs, key=str)
    return {run: f"C{i % 10}" for i, run in enumerate(ordered)}


def _split(table: pd.DataFrame | pd.Series, run: str | None) -> dict[Hashable, Any]:
    """Rows of a result table per run, in sorted run order; one entry when there is no run."""
    if run is None:
        return {None: table}
    return {key: part for key, part in table.groupby(run, sort=True, observed=True)}


def _run_column(table: pd.DataFrame, axis: str) -> str | None:
    """Name of the run column of an averaged curve table (the column before ``axis``)."""
    names = list(table.columns)
    return str(names[0]) if names.index(axis) == 1 else None


def _name(name: object) -> str:
    """A name users chose, as a label: a ``$`` in it is shown, not read as math."""
    return escape.matplotlib(name)


def _legend(ax: Axes, n_entries: int, title: str | None = "Run", *, fewest: int = 2) -> None:
    """No legend below ``fewest`` entries; inside the plot for a few; beside it for many."""
    if n_entries < fewest:
        return
    if n_entries <= 4:
        ax.legend(title=title, loc="best")
    else:
        ax.legend(title=title, loc="upper left", bbox_to_anchor=(1.01, 1.0), borderaxespad=0)


def _integer_ticks(axis: Any) -> None:
    from matplotlib.ticker import MaxNLocator

    axis.set_major_locator(MaxNLocator(integer=True))


def _label(metric: MetricLike) -> str:
    """Canonical label of one metric."""
    parsed = parse_metrics(metric)
    if len(parsed) != 1:
        msg = f"this plot takes one metric, got {[m.label for m in parsed]}"
        raise MetricError(msg)
    return parsed[0].label


def _bounded(metric: MetricLike) -> bool:
    return bool(parse_metrics(metric)[0].family.bounded)


def _per_query_values(
    frame: pd.DataFrame, metric: MetricLike, columns: Columns, options: dict[str, Any]
) -> tuple[str, dict[Hashable, pd.Series]]:
    """(canonical label, per-query values of each run without NaN) of one metric."""
    label = _label(metric)
    evaluation = Evaluation.from_options(options)
    values = _evaluate.per_query(frame, parse_metrics(metric), columns, evaluation)[label]
    if isinstance(values.index, pd.MultiIndex):
        groups = values.groupby(level=0, sort=True, observed=True)
        return label, {run: part.dropna() for run, part in groups}
    return label, {None: values.dropna()}


@_drawing
def pr_curve(
    frame: pd.DataFrame,
    *,
    points: int = 11,
    per_query: bool = False,
    rel: int = 1,
    ax: Axes | None = None,
    columns: Columns = None,
    **options: Any,
) -> Axes:
    """Interpolated precision-recall curves, averaged over queries: one line per run.

    Parameters
    ----------
    frame : DataFrame
        Long frame, as in :func:`pdireval.evaluate`.
    points : int
        Number of recall levels from 0 to 1 (11: the classic eleven-point curve).
    per_query : bool
        Also draw every query's interpolated curve, thin and translucent, in its run's
        colour, under the averaged one.
    rel : int
        Minimum label counted as relevant.
    ax : matplotlib Axes, optional
        Where to draw; a new figure when omitted.
    columns, **options
        Column mapping and the options of :func:`pdireval.evaluate` (``queries=``,
        ``max_rank=``, ``judged_only=``, ``validate=``).

    Returns
    -------
    matplotlib Axes
        Recall on x (0..1), mean interpolated precision on y (0..1.02); a legend names
        the runs when there are several (beside the plot when there are more than four).

    Raises
    ------
    MissingDependencyError
        matplotlib is not installed.

    Notes
    -----
    The values are those of :func:`pdireval.pr_curve` (``interpolated=True``):
    ``IPrec@r``, the highest precision at any recall >= r, averaged over the queries
    of ``queries=`` (a judged query without relevant documents counts as 0).

    Examples
    --------
    >>> import matplotlib
    >>> matplotlib.use("Agg")
    >>> from pdireval.datasets import example
    >>> from pdireval.plotting import pr_curve
    >>> ax = pr_curve(example(), points=11)
    >>> len(ax.get_lines()), len(ax.get_lines()[0].get_xdata())
    (3, 11)
    """
    table = pr_curve_table(frame, points=points, rel=rel, average=True, columns=columns, **options)
    run = _run_column(table, "recall")
    runs = _split(table, run)
    colours = _colours(runs)
    with _style():
        ax = _axes(ax, (7.0, 4.5))
        if per_query:
            queries = pr_curve_table(frame, points=points, rel=rel, columns=columns, **options)
            recall_at = list(queries.columns).index("recall")
            keys = [key for key in (run, queries.columns[recall_at - 1]) if key is not None]
            for group, part in queries.groupby(keys, sort=True, observed=True):
                owner = group[0] if run is not None else None
                ax.plot(part["recall"], part["precision"], color=colours[owner], alpha=0.15, lw=0.8)
        for key, part in runs.items():
            ax.plot(
                part["recall"],
                part["precision"],
                marker="o",
                markersize=3,
                color=colours[key],
                label="" if key is None else _name(key),
            )
        ax.set_xlim(0.0, 1.0)
        ax.set_ylim(0.0, 1.02)
        ax.set_xlabel("Recall")
        ax.set_ylabel("Interpolated precision")
        ax.set_title(f"{points}-point interpolated precision-recall curve")
        ax.grid(True, alpha=0.3)
        _legend(ax, len(runs))
    return ax


@_drawing
def per_query(
    frame: pd.DataFrame,
    metric: MetricLike,
    baseline: Any = None,
    *,
    ax: Axes | None = None,
    columns: Columns = None,
    **options: Any,
) -> Axes:
    """Per-query differences to a baseline run, sorted: what the mean hides.

    For every run other than the baseline, the differences ``run - baseline`` of
    ``metric`` on each query are sorted from the largest gain to the largest loss and
    drawn as bars (up to three compared runs) or as lines (more), one colour per run.

    Parameters
    ----------
    frame : DataFrame
        Long frame with a run column holding at least two runs.
    metric : str or Metric
        One metric.
    baseline : run id, optional
        The run the others are compared to; the run that sorts first when omitted.
    ax : matplotlib Axes, optional
        Where to draw; a new figure when omitted.
    columns, **options
        As in :func:`pdireval.per_query`.

    Returns
    -------
    matplotlib Axes
        x = queries in order of the difference (labelled with the query ids when one run
        is compared and there are at most 60 queries), y = the difference; a zero line;
        a legend of the compared runs titled ``Run − baseline``.

    Raises
    ------
    SchemaError
        No run column, fewer than two runs, or an unknown baseline
        (as :func:`pdireval.per_query`).
    MissingDependencyError
        matplotlib is not installed.

    Notes
    -----
    Each compared run is sorted on its own, so with several runs the k-th bar (or
    point) of each is its k-th best query, not the same query. The differences are
    those of :func:`pdireval.per_query`.

    Examples
    --------
    >>> import matplotlib
    >>> matplotlib.use("Agg")
    >>> from pdireval.datasets import example
    >>> from pdireval.plotting import per_query
    >>> ax = per_query(example(), "AP", baseline="medium")
    >>> len(ax.patches)  # 2 runs x 50 topics
    100
    >>> [text.get_text() for text in ax.get_legend().get_texts()]
    ['strong', 'weak']
    >>> ax.get_legend().get_title().get_text()
    'Run − medium'
    """
    metrics = parse_metrics(metric)
    evaluation = Evaluation.from_options(options)
    table = per_query_table(
        _evaluate.per_query(frame, metrics, columns, evaluation), baseline=baseline
    )
    values, deltas = table["value"], table["delta"]
    base = values.columns[0]
    label = _label(metric)
    colours = _colours(values.columns)
    runs = list(deltas.columns)
    with _style():
        ax = _axes(ax, (8.0, 4.5))
        width = 0.8 / len(runs)
        for i, run in enumerate(runs):
            delta = deltas[run].dropna().sort_values(ascending=False, kind="stable")
            name = _name(run)
            if len(runs) <= MAX_BAR_RUNS:
                x = np.arange(len(delta)) - 0.4 + width * (i + 0.5)
                ax.bar(x, delta.to_numpy(), width=width, color=colours[run], label=name)
            else:
                x = np.arange(len(delta), dtype=np.float64)
                ax.plot(x, delta.to_numpy(), color=colours[run], lw=1.3, label=name)
            if len(runs) == 1 and len(delta) <= MAX_QUERY_TICKS:
                ax.set_xticks(np.arange(len(delta)), [_name(q) for q in delta.index], rotation=90)
                ax.tick_params(axis="x", labelsize=7)
        if len(runs) > 1 or len(table) > MAX_QUERY_TICKS:
            _integer_ticks(ax.xaxis)
        ax.axhline(0.0, color="black", lw=0.8)
        ax.set_xlim(-0.6, len(table) - 0.4)
        ax.set_xlabel("Queries, sorted by the difference")
        ax.set_ylabel(f"Δ {label}")
        ax.set_title(f"{_name(label)} per query: difference to {_name(base)}")
        ax.grid(True, axis="y", alpha=0.3)
        _legend(ax, len(runs), title=f"Run − {_name(base)}", fewest=1)
    return ax


@_drawing
def distribution(
    frame: pd.DataFrame,
    metric: MetricLike,
    *,
    points: bool = True,
    ax: Axes | None = None,
    columns: Columns = None,
    **options: Any,
) -> Axes:
    """The per-query distribution of a metric, per run: a box plot with the queries as points.

    Parameters
    ----------
    frame : DataFrame
        Long frame, as in :func:`pdireval.evaluate`.
    metric : str or Metric
        One metric (with its cutoff), e.g. ``"AP"`` or ``"nDCG@10"``.
    points : bool
        Draw every query as a point over its run's box (spread by a fixed, seeded
        jitter, so the figure is the same every time).
    ax : matplotlib Axes, optional
        Where to draw; a new figure when omitted.
    columns, **options
        As in :func:`pdireval.evaluate`.

    Returns
    -------
    matplotlib Axes
        One horizontal box per run, the run ids as y tick labels (sorted, the first on
        top); x = the metric. Queries whose value is NaN (unjudged, ``queries="all"``)
        are left out.

    Raises
    ------
    MissingDependencyError
        matplotlib is not installed.

    Examples
    --------
    >>> import matplotlib
    >>> matplotlib.use("Agg")
    >>> from pdireval.datasets import example
    >>> from pdireval.plotting import distribution
    >>> ax = distribution(example(), "nDCG@10")
    >>> [tick.get_text() for tick in ax.get_yticklabels()]
    ['medium', 'strong', 'weak']
    >>> len(ax.collections)  # one scatter of 50 topics per run
    3
    """
    label, runs = _per_query_values(frame, metric, columns, options)
    colours = _colours(runs)
    positions = np.arange(len(runs), 0, -1)  # the first run on top
    data = [part.to_numpy(dtype=np.float64) for part in runs.values()]
    with _style():
        ax = _axes(ax, (7.0, 1.3 + 0.5 * len(runs)))
        boxes: dict[str, Any] = {"positions": positions, "widths": 0.55, "showfliers": not points}
        boxes["medianprops"] = {"color": "black"}
        try:  # matplotlib >= 3.10 names the direction
            ax.boxplot(data, orientation="horizontal", **boxes)
        except TypeError:
            ax.boxplot(data, vert=False, **boxes)
        if points:
            rng = np.random.default_rng(0)
            for position, (run, values) in zip(positions, runs.items(), strict=True):
                jitter = rng.uniform(-0.17, 0.17, size=len(values))
                ax.scatter(values, position + jitter, s=9, alpha=0.6, color=colours[run], zorder=3)
        single = list(runs) == [None]
        if single:
            ax.set_yticks([])
        else:
            ax.set_yticks(positions, [_name(run) for run in runs])
        ax.set_ylim(0.4, len(runs) + 0.6)
        ax.set_xlabel(f"{label} per query")
        if _bounded(metric):
            ax.set_xlim(-0.02, 1.02)
        ax.set_title(f"{label}: distribution over queries")
        ax.grid(True, axis="x", alpha=0.3)
    return ax


@_drawing
def at_k(
    frame: pd.DataFrame,
    metric: MetricLike,
    ks: Iterable[int] = range(1, 21),
    *,
    ax: Axes | None = None,
    columns: Columns = None,
    **options: Any,
) -> Axes:
    """A metric against the rank cutoff k (``P@k``, ``nDCG@k``, ``R@k``): one line per run.

    Parameters
    ----------
    frame : DataFrame
        Long frame, as in :func:`pdireval.evaluate`.
    metric : str or Metric
        One metric that takes a cutoff, named without it: ``"P"``, ``"nDCG"``, ``"R"``.
    ks : iterable of int
        The cutoffs (default 1..20).
    ax : matplotlib Axes, optional
        Where to draw; a new figure when omitted.
    columns, **options
        As in :func:`pdireval.curve`.

    Returns
    -------
    matplotlib Axes
        k on x (whole numbers), the mean over queries on y (0..1 for bounded metrics);
        a legend when there are several runs.

    Raises
    ------
    MetricError
        As :func:`pdireval.curve` (a metric without cutoffs, or given with one).
    MissingDependencyError
        matplotlib is not installed.

    Examples
    --------
    >>> import matplotlib
    >>> matplotlib.use("Agg")
    >>> from pdireval.datasets import example
    >>> from pdireval.plotting import at_k
    >>> ax = at_k(example(), "P", ks=range(1, 11))
    >>> ax.get_ylabel(), ax.get_lines()[0].get_xdata().tolist()
    ('Mean P@k', [1, 2, 3, 4, 5, 6, 7, 8, 9, 10])
    """
    base = without_cutoff(metric)
    label = base.label
    table = curve(frame, metric, ks, average=True, columns=columns, **options)
    run = _run_column(table, "k")
    runs = _split(table, run)
    colours = _colours(runs)
    with _style():
        ax = _axes(ax, (7.0, 4.5))
        for key, part in runs.items():
            ax.plot(
                part["k"].to_numpy(),
                part["value"].to_numpy(),
                marker="o",
                markersize=3,
                color=colours[key],
                label="" if key is None else _name(key),
            )
        _integer_ticks(ax.xaxis)
        ax.set_xlabel("k (rank cutoff)")
        ax.set_ylabel(f"Mean {label}@k")
        if base.family.bounded:
            ax.set_ylim(0.0, 1.02)
        ax.set_title(f"{label}@k")
        ax.grid(True, alpha=0.3)
        _legend(ax, len(runs))
    return ax


@_drawing
def systems(
    frame: pd.DataFrame,
    metric: MetricLike,
    ci: float | None = 0.95,
    *,
    agg: Agg = "mean",
    ci_method: Literal["t", "bootstrap"] = "t",
    n_resamples: int = 10_000,
    seed: Any = None,
    ax: Axes | None = None,
    columns: Columns = None,
    **options: Any,
) -> Axes:
    """Runs ordered by their mean, with confidence intervals: the best run on top.

    Parameters
    ----------
    frame : DataFrame
        Long frame, as in :func:`pdireval.evaluate`.
    metric : str or Metric
        One metric, e.g. ``"AP"`` (the points are then MAP).
    ci : float or None
        Confidence level of the error bars (default 0.95); ``None``: no bars.
    agg, ci_method, n_resamples, seed
        As in :func:`pdireval.summary`. ``ci_method="t"`` (Student t interval of the
        mean) needs scipy; ``"bootstrap"`` needs only numpy and works for every ``agg``.
    ax : matplotlib Axes, optional
        Where to draw; a new figure when omitted.
    columns, **options
        As in :func:`pdireval.evaluate`.

    Returns
    -------
    matplotlib Axes
        One marker (with its interval) per run, in the run's colour; runs on y with
        their ids as tick labels, best at the top; the aggregate on x.

    Raises
    ------
    MissingDependencyError
        matplotlib is not installed, or ``ci_method="t"`` without scipy (the message
        names both fixes: install ``pdireval[stats]`` or use ``ci_method="bootstrap"``).

    Notes
    -----
    Without scipy this raises rather than switching to a bootstrap interval on its own:
    the two intervals differ, and a figure should not change with what is installed.

    Examples
    --------
    >>> import matplotlib
    >>> matplotlib.use("Agg")
    >>> from pdireval.datasets import example
    >>> from pdireval.plotting import systems
    >>> ax = systems(example(), "AP", ci=0.95, ci_method="bootstrap", seed=0)
    >>> [tick.get_text() for tick in ax.get_yticklabels()]  # bottom to top
    ['weak', 'medium', 'strong']
    """
    label = _label(metric)
    per_query_values = _evaluate.per_query(
        frame, parse_metrics(metric), columns, Evaluation.from_options(options)
    )
    try:
        if ci is None:
            table = aggregate(per_query_values, agg)
        else:
            table = summary_table(
                per_query_values,
                agg=agg,
                ci=ci,
                ci_method=ci_method,
                n_resamples=n_resamples,
                seed=seed,
            )
    except MissingDependencyError as error:
        msg = (
            f"{error} -- or draw bootstrap intervals, which need no scipy: "
            "plot.systems(..., ci_method='bootstrap')"
        )
        raise MissingDependencyError(msg) from error
    stats = _systems_table(table, label, agg, ci)
    stats = stats.sort_values(agg, ascending=True, kind="stable")  # best last = on top
    colours = _colours(stats.index)
    single = list(stats.index) == [None]
    with _style():
        ax = _axes(ax, (7.0, 1.3 + 0.42 * len(stats)))
        for y, (run, row) in enumerate(stats.iterrows()):
            bars = None
            if ci is not None:
                bars = [[row[agg] - row["ci_low"]], [row["ci_high"] - row[agg]]]
            ax.errorbar(row[agg], y, xerr=bars, fmt="o", color=colours[run], capsize=4)
        if single:
            ax.set_yticks([])
        else:
            ax.set_yticks(np.arange(len(stats)), [_name(run) for run in stats.index])
        ax.set_ylim(-0.6, len(stats) - 0.4)
        interval = "" if ci is None else f" with {ci:.0%} CI ({ci_method})"
        ax.set_xlabel(f"{agg.capitalize()} {label}{interval}")
        ax.set_title(f"Runs by {agg} {label}" if not single else f"{agg.capitalize()} {label}")
        ax.grid(True, axis="x", alpha=0.3)
    return ax


@_drawing
def tradeoff(
    frame: pd.DataFrame,
    metric: MetricLike,
    *,
    agg: Agg = "mean",
    ax: Axes | None = None,
    columns: Columns = None,
    **options: Any,
) -> Axes:
    """Effectiveness against efficiency: each run's mean metric over its mean latency.

    The runs that no other run beats on both -- at least as fast and at least as good,
    better on one -- form the Pareto front, drawn as a dashed line: the runs worth
    choosing between.

    Parameters
    ----------
    frame : DataFrame
        Long frame with a time column (role ``time``: seconds per query), as for
        :func:`pdireval.efficiency`.
    metric : str or Metric
        One metric, e.g. ``"nDCG@10"``.
    agg : {"mean", "gmean", "hmean", "median"}
        How the metric is aggregated over queries.
    ax : matplotlib Axes, optional
        Where to draw; a new figure when omitted.
    columns, **options
        As in :func:`pdireval.evaluate`.

    Returns
    -------
    matplotlib Axes
        x = mean latency in milliseconds (logarithmic when the runs span more than a
        factor of 10), y = the aggregated metric; one marker per run in its colour, a
        legend of the runs, the front as a dashed line through its runs.

    Raises
    ------
    SchemaError
        The frame has no time column.
    MissingDependencyError
        matplotlib is not installed.

    Examples
    --------
    >>> import matplotlib
    >>> matplotlib.use("Agg")
    >>> from pdireval.datasets import example
    >>> from pdireval.plotting import tradeoff
    >>> frame = example()
    >>> frame["time"] = frame["run"].map({"strong": 0.2, "medium": 0.02, "weak": 0.05})
    >>> ax = tradeoff(frame, "AP")
    >>> [text.get_text() for text in ax.get_legend().get_texts()]
    ['medium', 'strong', 'weak']
    >>> ax.get_lines()[0].get_xdata().round(6).tolist()  # the front: medium, then strong
    [20.0, 200.0]
    """
    label = _label(metric)
    evaluation = Evaluation.from_options(options)
    metrics = [*parse_metrics(metric), Latency.default]
    table = _evaluate.per_query(frame, metrics, columns, evaluation)
    latency = table.pop(Latency.default.label)
    if not isinstance(table.index, pd.MultiIndex):
        table = pd.concat({None: table}, names=["run"])
        latency = pd.concat({None: latency}, names=["run"])
    points = pd.DataFrame(
        {
            "effect": aggregate(table, agg)[label],
            "ms": 1000.0 * latency.groupby(level=0, sort=True, observed=True).mean(),
        }
    )
    front = _pareto_front(points)
    colours = _colours(points.index)
    with _style():
        ax = _axes(ax, (7.0, 4.5))
        ax.plot(
            points.loc[front, "ms"].to_numpy(),
            points.loc[front, "effect"].to_numpy(),
            ls="--",
            color="0.45",
            lw=1,
            zorder=1,
            label="_front",
        )
        for run, row in points.iterrows():
            ax.scatter(row["ms"], row["effect"], s=40, color=colours[run], zorder=3,
                       label="" if run is None else _name(run))  # fmt: skip
        spread = points["ms"].max() / max(points["ms"].min(), 1e-12)
        if spread > 10:
            from matplotlib.ticker import FuncFormatter, LogLocator, NullFormatter

            ax.set_xscale("log")
            ax.xaxis.set_major_locator(LogLocator(subs=(1.0, 2.0, 5.0)))
            ax.xaxis.set_major_formatter(FuncFormatter(lambda value, _: f"{value:g}"))
            ax.xaxis.set_minor_formatter(NullFormatter())
        ax.set_xlabel("Mean latency (ms)")
        ax.set_ylabel(f"{agg.capitalize()} {label}")
        ax.set_title(f"{label} against latency (dashed: Pareto front)")
        ax.grid(True, alpha=0.3)
        _legend(ax, len(points))
    return ax


def _pareto_front(points: pd.DataFrame) -> list[Hashable]:
    """Runs no other run beats on both latency (lower) and effect (higher), fastest first."""
    ordered = points.sort_values(["ms", "effect"], ascending=[True, False], kind="stable")
    front, best = [], -np.inf
    for run, row in ordered.iterrows():
        if row["effect"] > best:
            front.append(run)
            best = row["effect"]
    return front


def _systems_table(
    table: pd.Series | pd.DataFrame, label: str, agg: str, ci: float | None
) -> pd.DataFrame:
    """summary() output -> one row per run with columns [agg] or [agg, ci_low, ci_high]."""
    if ci is None:
        if isinstance(table, pd.Series):  # no run column: Series by metric
            return pd.DataFrame({agg: [table[label]]}, index=[None])
        return pd.DataFrame(table[[label]]).rename(columns={label: agg})
    if isinstance(table.columns, pd.MultiIndex):  # runs x (metric, stat)
        return pd.DataFrame(table[label])
    single = pd.DataFrame(table.loc[[label], [agg, "ci_low", "ci_high"]])  # metric x stat
    single.index = pd.Index([None])
    return single


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
    ['medium', 'strong', 'weak']
    """

    __slots__ = ("_columns", "_obj")

    _kinds: tuple[str, ...] = (
        "pr_curve",
        "per_query",
        "distribution",
        "at_k",
        "systems",
        "tradeoff",
    )

    def __init__(self, obj: pd.DataFrame, columns: Columns = None) -> None:
        self._obj, self._columns = obj, columns

    def __call__(self, kind: Kind, *args: Any, **kwargs: Any) -> Axes:
        """Draw the figure named by ``kind`` (one of the method names)."""
        if kind not in self._kinds:
            msg = f"kind={kind!r} is not a pdireval plot; use one of {list(self._kinds)}"
            raise MetricError(msg)
        return getattr(self, kind)(*args, **kwargs)

    def pr_curve(self, points: int = 11, per_query: bool = False, **kwargs: Any) -> Axes:
        """Averaged interpolated precision-recall curves; see :func:`pdireval.plotting.pr_curve`."""
        return pr_curve(
            self._obj, points=points, per_query=per_query, columns=self._columns, **kwargs
        )

    def per_query(self, metric: MetricLike, baseline: Any = None, **kwargs: Any) -> Axes:
        """Sorted per-query differences to a baseline; see :func:`pdireval.plotting.per_query`."""
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
