"""One point per run: aggregates with intervals, and effectiveness against latency."""

from __future__ import annotations

from collections.abc import Hashable, Sequence
from typing import TYPE_CHECKING, Any, Literal

import numpy as np
import pandas as pd

from pdireval._core.errors import MissingDependencyError
from pdireval._core.options import EVALUATION, Evaluation, takes
from pdireval.engine import evaluate as _evaluate
from pdireval.metrics import Latency, parse_metrics
from pdireval.plotting import _look as look
from pdireval.plotting._styles import RunStyle, drawing_order
from pdireval.stats.summary import aggregate, summary_table
from pdireval.typing import Aggregate as Agg
from pdireval.typing import ColumnsLike as Columns
from pdireval.typing import MetricLike

if TYPE_CHECKING:  # pragma: no cover - for type checkers only
    from matplotlib.axes import Axes

#: Up to this many runs, the trade-off plot names each point beside it (no legend).
MAX_DIRECT_LABELS = 8


@takes(EVALUATION)
@look.drawing
def systems(
    frame: pd.DataFrame,
    metric: MetricLike,
    ci: float | None = 0.95,
    *,
    agg: Agg = "mean",
    ci_method: Literal["t", "bootstrap"] = "t",
    n_resamples: int = 10_000,
    seed: Any = None,
    order: Sequence[Hashable] | None = None,
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
    order : sequence of run ids, optional
        The run order that gives each run its colour and marker, as in
        :func:`pr_curve` (the runs are drawn by their aggregate).
    ax : matplotlib Axes, optional
        Where to draw; a new figure when omitted.
    columns, **options
        As in :func:`pdireval.evaluate`.

    Returns
    -------
    matplotlib Axes
        One marker (with its interval) per run, in the run's colour and marker; runs
        on y with their ids as tick labels, best at the top; the aggregate on x.

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
    label = look.label_of(metric)
    _, styles = drawing_order(frame, columns, order)
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
    single = list(stats.index) == [None]
    with look.style():
        ax, owned = look.new_axes(ax, (5.5, max(2.0, 1.2 + 0.36 * len(stats))))
        for y, (run, row) in enumerate(stats.iterrows()):
            bars = None
            if ci is not None:
                bars = [[row[agg] - row["ci_low"]], [row["ci_high"] - row[agg]]]
            style = styles[run]
            ax.errorbar(
                row[agg], y, xerr=bars, fmt=style.marker, color=style.color, capsize=4, ms=6
            )
        if single:
            ax.set_yticks([])
        else:
            ax.set_yticks(np.arange(len(stats)), [look.name(run) for run in stats.index])
        ax.set_ylim(-0.6, len(stats) - 0.4)
        interval = "" if ci is None else f" with {ci:.0%} CI ({ci_method})"
        ax.set_xlabel(f"{agg.capitalize()} {label}{interval}")
        ax.set_title(f"Runs by {agg} {label}" if not single else f"{agg.capitalize()} {label}")
        ax.grid(True, axis="x", alpha=0.3)
        if owned:
            look.widen_for_ticks(ax)
    return ax


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


@takes(EVALUATION)
@look.drawing
def tradeoff(
    frame: pd.DataFrame,
    metric: MetricLike,
    *,
    agg: Agg = "mean",
    order: Sequence[Hashable] | None = None,
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
    order : sequence of run ids, optional
        The run order that gives each run its colour and marker, as in :func:`pr_curve`.
    ax : matplotlib Axes, optional
        Where to draw; a new figure when omitted.
    columns, **options
        As in :func:`pdireval.evaluate`.

    Returns
    -------
    matplotlib Axes
        x = mean latency in milliseconds (logarithmic when the runs span more than a
        factor of 10), y = the aggregated metric; one marker per run in its colour and
        marker, the front as a dashed line through its runs. Up to eight runs, each
        point is named beside it; more runs are named in a legend below the figure.

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
    >>> sorted(text.get_text() for text in ax.texts)  # each point named
    ['medium', 'strong', 'weak']
    >>> ax.get_lines()[0].get_xdata().round(6).tolist()  # the front: medium, then strong
    [20.0, 200.0]
    """
    label = look.label_of(metric)
    runs, styles = drawing_order(frame, columns, order)
    evaluation = Evaluation.from_options(options)
    metrics = [*parse_metrics(metric), Latency.default]
    table = _evaluate.per_query(frame, metrics, columns, evaluation)
    latency = table.pop(Latency.default.label)
    if isinstance(table.index, pd.MultiIndex):
        points = pd.DataFrame(
            {
                "effect": aggregate(table, agg)[label],
                "ms": 1000.0 * latency.groupby(level=0, sort=False, observed=True).mean(),
            }
        ).loc[runs]
    else:  # one run (a None key would be dropped by groupby as missing)
        effect = pd.Series(aggregate(table, agg)).loc[label]  # a Series by metric label
        points = pd.DataFrame({"effect": [effect], "ms": [1000.0 * latency.mean()]}, index=[None])
    front = _pareto_front(points)
    with look.style():
        ax, owned = look.new_axes(ax, (7.0, 4.5))
        ax.plot(
            points.loc[front, "ms"].to_numpy(),
            points.loc[front, "effect"].to_numpy(),
            ls="--",
            color="0.45",
            lw=1,
            zorder=1,
            label="_front",
        )
        handles = []
        for run, row in points.iterrows():
            style: RunStyle = styles[run]
            handles.append(
                ax.scatter(
                    row["ms"], row["effect"], s=42, color=style.color, marker=style.marker, zorder=3
                )
            )
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
        names = ["" if run is None else look.name(run) for run in points.index]
        few = runs != [None] and len(points) <= MAX_DIRECT_LABELS
        if runs != [None] and not (few and _direct_labels(ax, points, names)):
            look.legend(ax, handles, names, owned=owned, title="Run")
    return ax


#: Where a name may go around its point: (x, y) offset in points and alignment.
_PLACES = (
    ((7, 0), "left", "center"),
    ((-7, 0), "right", "center"),
    ((5, 7), "left", "bottom"),
    ((-5, 7), "right", "bottom"),
    ((5, -7), "left", "top"),
    ((-5, -7), "right", "top"),
)


#: A white ground under a name: the front's dashed line does not run through it.
_GROUND = {"boxstyle": "round,pad=0.1", "facecolor": "white", "edgecolor": "none", "alpha": 0.85}


def _direct_labels(ax: Axes, points: pd.DataFrame, names: list[str]) -> bool:
    """Name each point beside it, where the name covers no other name and no point.

    Each name tries the places of :data:`_PLACES` in turn (right, left, above, below)
    and takes the first inside the axes that is clear. When a name finds no such place,
    every name is removed and False returned: the caller draws a legend instead.
    """
    from matplotlib.transforms import Bbox

    ax.margins(x=0.08, y=0.12)
    look.figure_of(ax).draw_without_rendering()  # the final layout: positions in pixels
    data = points[["ms", "effect"]].to_numpy(dtype=np.float64)
    pixels = ax.transData.transform(data)
    area = ax.get_window_extent()
    markers = [Bbox.from_bounds(x - 5, y - 5, 10, 10) for x, y in pixels]
    taken: list[Any] = []
    labels = []
    for i, ((x, y), text) in enumerate(zip(data, names, strict=True)):
        for offset, ha, va in _PLACES:
            label = ax.annotate(
                text, (x, y), xytext=offset, textcoords="offset points", ha=ha, va=va,
                fontsize=8.5, bbox=_GROUND,
            )  # fmt: skip
            box = label.get_window_extent()
            others = [marker for j, marker in enumerate(markers) if j != i]
            if _inside(box, area) and not any(box.overlaps(o) for o in [*taken, *others]):
                taken.append(box)
                labels.append(label)
                break
            label.remove()
        else:
            for label in labels:
                label.remove()
            return False
    return True


def _inside(box: Any, area: Any) -> bool:
    return bool(area.x0 <= box.x0 and box.x1 <= area.x1 and area.y0 <= box.y0 and box.y1 <= area.y1)


def _pareto_front(points: pd.DataFrame) -> list[Hashable]:
    """Runs no other run beats on both latency (lower) and effect (higher), fastest first."""
    ordered = points.sort_values(["ms", "effect"], ascending=[True, False], kind="stable")
    effect = ordered["effect"].to_numpy(dtype=np.float64)
    best_before = np.concatenate([[-np.inf], np.maximum.accumulate(effect)[:-1]])
    return list(ordered.index[effect > best_before])
