"""Per-query figures: differences to a baseline on one shared query order, distributions."""

from __future__ import annotations

from collections.abc import Hashable, Sequence
from typing import TYPE_CHECKING, Any, Literal

import numpy as np
import pandas as pd

from pdireval._core.errors import SchemaError
from pdireval._core.options import EVALUATION, Evaluation, takes
from pdireval.engine import evaluate as _evaluate
from pdireval.metrics import parse_metrics
from pdireval.plotting import _look as look
from pdireval.plotting._styles import REFERENCE, RunStyle, drawing_order
from pdireval.stats.comparison import per_query_table
from pdireval.typing import ColumnsLike as Columns
from pdireval.typing import MetricLike

if TYPE_CHECKING:  # pragma: no cover - for type checkers only
    from matplotlib.axes import Axes

#: Up to this many queries, the query ids label the x axis (unless ``query_labels=``).
MAX_QUERY_TICKS = 60
#: Up to this many compared runs, per-query differences are bars; more: a heat map.
MAX_BAR_RUNS = 3
#: Width per query, inches, when every query id is labelled.
_PER_QUERY_LABEL = 0.13
#: A heat map's cell without a value: hatched grey, unlike the near-white of no difference.
NO_VALUE: dict[str, Any] = {
    "facecolor": REFERENCE,
    "edgecolor": "0.45",
    "hatch": "////",
    "linewidth": 0.0,
}

Sort = Literal["delta", "baseline", "query"]


def query_order(values: pd.DataFrame, deltas: pd.DataFrame, sort: Sort | Hashable) -> pd.Index:
    """The queries in the order shared by every run of the figure.

    ``"delta"``: the mean difference over the compared runs, largest gain first;
    ``"baseline"``: the baseline's value, highest first; ``"query"``: the query ids; a
    compared run's id: that run's difference, largest gain first. Ties keep the query id
    order; queries without a value come last.
    """
    by_id = values.sort_index(kind="stable")
    if isinstance(sort, str) and sort == "query":
        return by_id.index
    if isinstance(sort, str) and sort == "delta":
        key = deltas.loc[by_id.index].mean(axis=1, skipna=True)
    elif isinstance(sort, str) and sort == "baseline":
        key = by_id.iloc[:, 0]
    elif sort in deltas.columns:
        key = deltas[sort].loc[by_id.index]
    else:
        msg = (
            f"sort={sort!r} is neither 'delta', 'baseline', 'query' nor a compared run "
            f"{list(deltas.columns)}"
        )
        raise SchemaError(msg)
    return key.sort_values(ascending=False, kind="stable", na_position="last").index


@takes(EVALUATION)
@look.drawing
def per_query(
    frame: pd.DataFrame,
    metric: MetricLike,
    baseline: Any = None,
    *,
    sort: Sort | Hashable = "delta",
    chart: Literal["auto", "bars", "heatmap"] = "auto",
    query_labels: bool | None = None,
    order: Sequence[Hashable] | None = None,
    ax: Axes | None = None,
    columns: Columns = None,
    **options: Any,
) -> Axes:
    """Per-query differences to a baseline run, every run on one query order: what the mean hides.

    The differences ``run - baseline`` of ``metric`` on each query are drawn for every
    other run, with the queries in one order shared by all runs (by default the mean
    difference, largest gain first): the k-th position is the same query for every run.
    Up to three compared runs, as bars side by side (each run in its colour; runs beyond
    the tenth also in its hatch, see :func:`run_styles`); more, as a heat map with a row
    per run (blue: better than the baseline, red: worse, hatched grey: no value).

    Parameters
    ----------
    frame : DataFrame
        Long frame with a run column holding at least two runs.
    metric : str or Metric
        One metric.
    baseline : run id, optional
        The run the others are compared to; the first run of the run order when omitted.
    sort : {"delta", "baseline", "query"} or run id
        The shared query order: the mean difference over the compared runs (largest gain
        first), the baseline's value (highest first), the query ids, or one compared
        run's difference.
    chart : {"auto", "bars", "heatmap"}
        Bars (``"auto"``: up to three compared runs) or a heat map (more).
    query_labels : bool, optional
        Label the x axis with the query ids. By default when there are at most 60
        queries; ``True`` labels more and widens a new figure so that they do not
        overlap; ``False`` leaves them out.
    order : sequence of run ids, optional
        The run order: styles (see :func:`run_styles`), the default baseline, and the
        order of the compared runs; runs not named follow in the order they first appear.
    ax : matplotlib Axes, optional
        Where to draw; a new figure when omitted.
    columns, **options
        As in :func:`pdireval.per_query`.

    Returns
    -------
    matplotlib Axes
        x = the queries in the shared order (their ids as tick labels, see
        ``query_labels``), y = the difference (bars; a legend of the compared runs
        below, titled ``Run − baseline``) or the compared runs (heat map, with a colour
        bar of the difference).

    Raises
    ------
    SchemaError
        No run column, fewer than two runs, or an unknown baseline
        (as :func:`pdireval.per_query`); an unknown ``sort``.
    MissingDependencyError
        matplotlib is not installed.

    Notes
    -----
    The differences are those of :func:`pdireval.per_query`. A query without a value
    in a run (``queries="all"``) has no bar, or a hatched grey cell, named "no value"
    under the colour bar. With more than 60 queries
    the ids are left off the axis; ``query_labels=True`` shows them all (a new figure
    grows about 0.13 inch per query).

    Examples
    --------
    >>> import matplotlib
    >>> matplotlib.use("Agg")
    >>> from pdireval.datasets import example
    >>> from pdireval.plotting import per_query
    >>> ax = per_query(example(), "AP", baseline="medium")
    >>> len(ax.patches)  # 2 runs x 50 topics
    100
    >>> [text.get_text() for text in ax.figure.legends[0].get_texts()]
    ['strong', 'weak']
    >>> ax.figure.legends[0].get_title().get_text()
    'Run − medium'
    >>> [tick.get_text() for tick in ax.get_xticklabels()][:3]  # the largest mean gain first
    ['419', '446', '449']
    """
    if chart not in ("auto", "bars", "heatmap"):
        msg = f"chart={chart!r}: use 'auto', 'bars' or 'heatmap'"
        raise SchemaError(msg)
    runs, styles = drawing_order(frame, columns, order)
    values, deltas = _differences(frame, metric, baseline, runs, columns, options)
    base = values.columns[0]
    compared = [run for run in runs if run in deltas.columns]
    deltas = deltas.loc[:, compared]
    queries = query_order(values, deltas, sort)
    deltas = deltas.loc[queries]
    label = look.label_of(metric)
    heatmap = chart == "heatmap" or (chart == "auto" and len(compared) > MAX_BAR_RUNS)
    labelled = len(queries) <= MAX_QUERY_TICKS if query_labels is None else query_labels
    width = _figure_width(len(queries), labelled)
    with look.style():
        if heatmap:
            ax, owned = _draw_heatmap(ax, deltas, label, base, width)
        else:
            ax, owned, bars = _draw_bars(ax, deltas, styles, label, width)
        _query_axis(ax, queries, labelled, _order_named(sort, base))
        ax.set_title(f"{label} per query: difference to {look.name(base)}")
        if not heatmap:
            names = [look.name(run) for run in compared]
            look.legend(ax, bars, names, owned=owned, title=f"Run − {look.name(base)}")
    return ax


def _differences(
    frame: pd.DataFrame,
    metric: MetricLike,
    baseline: Any,
    runs: list[Hashable],
    columns: Columns,
    options: dict[str, Any],
) -> tuple[pd.DataFrame, pd.DataFrame]:
    """The per-query values (the baseline's first) and the differences to the baseline of
    the other runs; the first run is the baseline when none is named.
    """
    metrics = parse_metrics(metric)
    if baseline is None and runs != [None]:
        baseline = runs[0]
    evaluation = Evaluation.from_options(options)
    table = per_query_table(
        _evaluate.per_query(frame, metrics, columns, evaluation),
        baseline=baseline,
        runs=[run for run in runs if run is not None],
    )
    values, deltas = pd.DataFrame(table["value"]), pd.DataFrame(table["delta"])
    return values, deltas


def _figure_width(queries: int, labelled: bool) -> float:
    """The width of a new figure, inches: wider when every query id is labelled."""
    width = 8.0
    if labelled:
        width = max(width, 2.0 + _PER_QUERY_LABEL * queries)
    return width


def _order_named(sort: Sort | Hashable, base: Hashable) -> str:
    """The shared query order, as the x axis names it."""
    ordering = {"delta": "the mean difference", "baseline": f"{look.name(base)}'s value"}
    return ordering.get(sort, "query id") if isinstance(sort, str) else f"{look.name(sort)}'s Δ"


def _draw_heatmap(
    ax: Axes | None, deltas: pd.DataFrame, label: str, base: Hashable, width: float
) -> tuple[Axes, bool]:
    """The heat map of the differences, on ``ax`` or a new figure; whether it is new."""
    rows = 1.4 + 0.28 * len(deltas.columns)
    ax, owned = look.new_axes(ax, (width, max(rows, 3.0)))
    _heatmap(ax, deltas, label, base)
    if owned:
        look.widen_for_ticks(ax)
    return ax, owned


def _draw_bars(
    ax: Axes | None,
    deltas: pd.DataFrame,
    styles: dict[Hashable, RunStyle],
    label: str,
    width: float,
) -> tuple[Axes, bool, list[Any]]:
    """The bars of the differences, on ``ax`` or a new figure; whether it is new, the bars."""
    ax, owned = look.new_axes(ax, (width, 4.5))
    bars = _bars(ax, deltas, styles)
    ax.set_ylabel(f"Δ {label}")
    ax.grid(True, axis="y", alpha=0.3)
    return ax, owned, bars


def _query_axis(ax: Axes, queries: pd.Index, labelled: bool, how: str) -> None:
    """The x axis of the queries: their ids as tick labels when ``labelled``."""
    positions = np.arange(len(queries))
    if labelled:
        ax.set_xticks(positions, [look.name(q) for q in queries], rotation=90, fontsize=7)
    else:
        ax.set_xticks([])
    ax.set_xlim(-0.5, len(queries) - 0.5)
    ax.set_xlabel(f"Queries ({len(queries)}), by {how}")


def _bars(ax: Axes, deltas: pd.DataFrame, styles: dict[Hashable, RunStyle]) -> list[Any]:
    """Bars of each compared run side by side at each query's position; a zero line.

    Each run's bars have its colour and its hatch: runs ten apart share a colour, not a
    hatch.
    """
    width = 0.8 / deltas.shape[1]
    positions = np.arange(len(deltas), dtype=np.float64)
    bars = []
    for i, run in enumerate(deltas.columns):
        shown = deltas[run].to_numpy(dtype=np.float64)
        kept = ~np.isnan(shown)
        x = positions[kept] - 0.4 + width * (i + 0.5)
        bars.append(ax.bar(x, shown[kept], width=width, **styles[run].fill()))
    ax.axhline(0.0, color="black", lw=0.8)
    return bars


def _heatmap(ax: Axes, deltas: pd.DataFrame, label: str, base: Hashable) -> None:
    """A row per compared run, a column per query, the difference as colour (0 white).

    A cell without a value is left transparent over a hatched grey ground
    (:data:`NO_VALUE`), named "no value" under the colour bar when there is one.
    """
    from matplotlib import colormaps
    from matplotlib.patches import Rectangle

    cells = deltas.to_numpy(dtype=np.float64).T
    missing = np.isnan(cells)
    finite = np.abs(cells[~missing])
    reach = float(finite.max()) if finite.size and finite.max() > 0 else 1.0
    colours = colormaps["RdBu"].with_extremes(bad=(0.0, 0.0, 0.0, 0.0))  # the ground shows
    if missing.any():
        ground = Rectangle((0.0, 0.0), 1.0, 1.0, transform=ax.transAxes, zorder=-1, **NO_VALUE)
        ax.add_artist(ground)
    image = ax.imshow(
        np.ma.masked_invalid(cells),
        cmap=colours,
        vmin=-reach,
        vmax=reach,
        aspect="auto",
        interpolation="nearest",
    )
    ax.set_yticks(np.arange(len(deltas.columns)), [look.name(run) for run in deltas.columns])
    ax.spines[["left", "bottom"]].set_visible(False)
    colourbar = look.figure_of(ax).colorbar(image, ax=ax, fraction=0.04, pad=0.01)
    colourbar.set_label(f"Δ {label} (run − baseline)")  # the title names the baseline
    if missing.any():
        colourbar.ax.legend(
            handles=[Rectangle((0.0, 0.0), 1.0, 1.0, label="no value", **NO_VALUE)],
            loc="upper left",
            bbox_to_anchor=(0.0, -0.02),
            borderaxespad=0.0,
            handlelength=1.4,
            handleheight=1.4,
        )


@takes(EVALUATION)
@look.drawing
def distribution(
    frame: pd.DataFrame,
    metric: MetricLike,
    *,
    points: bool = True,
    order: Sequence[Hashable] | None = None,
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
    order : sequence of run ids, optional
        The run order (top to bottom) and styles, as in :func:`pr_curve`.
    ax : matplotlib Axes, optional
        Where to draw; a new figure when omitted.
    columns, **options
        As in :func:`pdireval.evaluate`.

    Returns
    -------
    matplotlib Axes
        One horizontal box per run, the run ids as y tick labels (in run order, the
        first on top); x = the metric. Queries whose value is NaN (unjudged,
        ``queries="all"``) are left out.

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
    ['strong', 'medium', 'weak']
    >>> len(ax.collections)  # one scatter of 50 topics per run
    3
    """
    runs, styles = drawing_order(frame, columns, order)
    label = look.label_of(metric)
    evaluation = Evaluation.from_options(options)
    table = _evaluate.per_query(frame, parse_metrics(metric), columns, evaluation)[label]
    if isinstance(table.index, pd.MultiIndex):
        data = [table.xs(run, level=0).dropna().to_numpy(dtype=np.float64) for run in runs]
    else:
        data = [table.dropna().to_numpy(dtype=np.float64)]
    positions = np.arange(len(runs), 0, -1)  # the first run on top
    with look.style():
        ax, owned = look.new_axes(ax, (5.5, max(2.0, 1.2 + 0.36 * len(runs))))
        boxes: dict[str, Any] = {"positions": positions, "widths": 0.55, "showfliers": not points}
        boxes["medianprops"] = {"color": "black"}
        try:  # matplotlib >= 3.10 names the direction
            ax.boxplot(data, orientation="horizontal", **boxes)
        except TypeError:
            ax.boxplot(data, vert=False, **boxes)
        if points:
            rng = np.random.default_rng(0)
            for position, run, values in zip(positions, runs, data, strict=True):
                jitter = rng.uniform(-0.17, 0.17, size=len(values))
                style = styles[run]
                ax.scatter(values, position + jitter, s=9, alpha=0.6, color=style.color, zorder=3)
        if runs == [None]:
            ax.set_yticks([])
        else:
            ax.set_yticks(positions, [look.name(run) for run in runs])
        ax.set_ylim(0.4, len(runs) + 0.6)
        ax.set_xlabel(f"{label} per query")
        if look.bounded(metric):
            ax.set_xlim(-0.02, 1.02)
        ax.set_title(f"{label}: distribution over queries")
        ax.grid(True, axis="x", alpha=0.3)
        if owned:
            look.widen_for_ticks(ax)
    return ax
