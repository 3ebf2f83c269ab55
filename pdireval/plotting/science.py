"""Figures of risk, all-pairs tests and judges, drawn with matplotlib.

:func:`risk_plot` shows, run by run, how many queries a run wins and loses against a
baseline and by how much, with its TRisk; :func:`pairs_heatmap` shows the p-values of
all pairs of runs (:func:`pdireval.tukey_hsd`) as a matrix; :func:`judges_scatter` shows
each run's score under two judges (:func:`pdireval.judge_conclusions`); :func:`asl_plot`
and :func:`topics_plot` compare measures: how many pairs of runs each tells apart, and
how steady its conclusions stay on fewer topics. Each draws on
``ax`` (or on a new figure when ``ax`` is None) and returns the Axes, in the look of
``df.ireval.plot`` (runs in their colours and markers, legends without a frame); nothing is
shown and no global matplotlib setting is changed. matplotlib is optional (``pip install
'pdireval[plot]'``) and imported only when a figure is drawn.

Examples
--------
>>> import matplotlib
>>> matplotlib.use("Agg")
>>> import pdireval
>>> from pdireval.plotting import risk_plot
>>> from pdireval.datasets import example
>>> ax = risk_plot(example(), "AP", baseline="medium")
>>> [label.get_text() for label in ax.get_yticklabels()]
['strong', 'weak']
"""

from __future__ import annotations

import textwrap
from collections.abc import Hashable, Sequence
from typing import TYPE_CHECKING, Any, Unpack

import numpy as np
import pandas as pd

from pdireval._core.errors import MetricError, ParameterError, SchemaError
from pdireval._core.options import EVALUATION, takes
from pdireval.engine.runs import matrices
from pdireval.plotting import _look as look
from pdireval.plotting._styles import COLOURS, LINESTYLES, MARKERS, run_styles
from pdireval.stats.risk import TRISK_THRESHOLD, _alphas, _baseline_of, urisk_trisk
from pdireval.stats.tukey import _run_means

if TYPE_CHECKING:  # pragma: no cover - for type checkers only
    from matplotlib.axes import Axes

    from pdireval.judgments.conclusions import JudgeConclusions
    from pdireval.typing import ColumnsLike, EvaluationOptions, MetricLike

__all__ = ["asl_plot", "judges_scatter", "pairs_heatmap", "risk_plot", "topics_plot"]

_GAINS = ("#c7e9c0", "#74c476", "#238b45")
_LOSSES = ("#fcbba1", "#fb6a4a", "#cb181d")


def _edges(bins: Sequence[float]) -> list[float]:
    values = list(bins)
    ok = all(
        not isinstance(v, bool) and isinstance(v, int | float | np.number) and v > 0 for v in values
    )
    if not values or not ok or sorted(values) != values or len(set(values)) != len(values):
        msg = f"bins={bins!r} must be increasing positive numbers, e.g. (0.1, 0.3)"
        raise ParameterError(msg)
    return [float(v) for v in values]


@takes(EVALUATION)
def risk_plot(
    frame: pd.DataFrame,
    metric: MetricLike,
    *,
    baseline: Hashable,
    alpha: float = 1.0,
    bins: Sequence[float] = (0.1, 0.3),
    ax: Axes | None = None,
    columns: ColumnsLike = None,
    **options: Unpack[EvaluationOptions],
) -> Axes:
    """Per-query wins and losses of every run against a baseline, by size, with TRisk.

    Parameters
    ----------
    frame : DataFrame
        Long frame with a run column holding at least two runs.
    metric : str or Metric
        One measure.
    baseline : run id
        The run the others are compared with.
    alpha : float
        Risk aversion of the TRisk shown next to each run (default 1).
    bins : sequence of float
        Edges that split the size of a per-query difference into classes, drawn from
        light to dark (default: below 0.1, 0.1 to 0.3, 0.3 and more).
    ax : matplotlib Axes, optional
        Where to draw; a new figure when omitted.
    columns, **options
        Column roles and evaluation options, as in :func:`pdireval.risk`.

    Returns
    -------
    matplotlib Axes
        One row per run, in the frame's run order (a categorical's categories) from the
        top: losses to the left of 0, wins to the right (numbers of queries), and the
        run's TRisk on the right, marked ``*`` beyond +-2 -- which a note under the
        legend explains (about the 5% level). Long run names are broken at spaces, and a
        new figure widens for them: the bars keep their width.

    Raises
    ------
    SchemaError, MetricError
        As in :func:`pdireval.risk`; more than one metric.
    MissingDependencyError
        matplotlib is not installed.

    Examples
    --------
    >>> import matplotlib
    >>> matplotlib.use("Agg")
    >>> from pdireval.plotting import risk_plot
    >>> from pdireval.datasets import example
    >>> ax = risk_plot(example(), "nDCG@10", baseline="medium", alpha=5)
    >>> ax.get_xlabel()
    'Queries lost (left) and won (right) against medium'
    """
    look.pyplot()  # matplotlib first: a user without it hears that before anything else
    (level,) = _alphas([alpha])
    edges = _edges(bins)
    found = list(matrices(frame, metric, columns, options, "risk_plot", one=True))
    if len(found) != 1:
        msg = f"risk_plot draws one metric, got {[m.metric for m in found]}"
        raise MetricError(msg)
    matrix = found[0]
    base = _baseline_of(matrix, baseline)
    others = [run for run in matrix.runs if run != base]  # the frame's run order
    position = matrix.runs.index(base)
    differences = np.delete(matrix.values, position, axis=1).T - matrix.values[:, position]
    differences[np.abs(differences) <= 1e-12] = 0.0
    _, trisk = urisk_trisk(differences, level)
    limits = [0.0, *edges, np.inf]
    with look.style():
        ax, owned = look.new_axes(ax, (7.0, 2.4 + 0.45 * len(others)))
        rows = np.arange(len(others))[::-1]
        _risk_bars(ax, differences, limits, rows)
        n = differences.shape[1]
        ax.axvline(0, color="0.2", linewidth=0.8)
        ax.set_xlim(-n * 1.02, n * 1.02)
        ax.set_yticks(rows, [_wrapped(run) for run in others])
        marks = ["*" if abs(value) > TRISK_THRESHOLD else "" for value in trisk]
        right = ax.secondary_yaxis("right")
        right.set_yticks(
            rows,
            [
                "TRisk " + f"{v:.2f}".replace("-", "\u2212") + m
                for v, m in zip(trisk, marks, strict=True)
            ],
        )
        right.spines["right"].set_visible(False)
        right.tick_params(length=0)
        against = f"Queries lost (left) and won (right) against {look.name(base)}"
        ax.set_xlabel(textwrap.fill(against, 64, break_on_hyphens=False))
        ax.set_title(f"{look.name(matrix.metric)}: per-query differences, alpha = {level:g}")
        if owned:
            look.widen_for_ticks(ax)
        _risk_legend(ax, len(limits) - 1)
    return ax


#: What the ``*`` after a TRisk means, written under the risk plot's legend.
RISK_NOTE = (
    f"* |TRisk| > {TRISK_THRESHOLD:g}: differs from the baseline at about the 5% level "
    "(TRisk < 0: riskier than the baseline)"
)


def _risk_bars(ax: Axes, differences: np.ndarray, limits: list[float], rows: np.ndarray) -> None:
    """Stacked bars per run: wins right of 0, losses left, by size class, light to dark."""
    size = np.abs(differences)
    for i in range(len(limits) - 1):
        low, high = limits[i], limits[i + 1]
        in_class = (size > low) & (size <= high) if i else (size > 0) & (size <= high)
        wins = ((differences > 0) & in_class).sum(axis=1)
        losses = ((differences < 0) & in_class).sum(axis=1)
        start_w = ((differences > 0) & (size <= low) & (size > 0)).sum(axis=1)
        start_l = ((differences < 0) & (size <= low) & (size > 0)).sum(axis=1)
        label = f"{low:g}-{high:g}" if np.isfinite(high) else f">{low:g}"
        ax.barh(rows, wins, left=start_w, color=_GAINS[min(i, 2)], label=f"win {label}")
        ax.barh(rows, -losses, left=-start_l, color=_LOSSES[min(i, 2)], label=f"loss {label}")


def _risk_legend(ax: Axes, columns: int) -> None:
    """The size classes under the x label, and under them what the ``*`` of TRisk means.

    The legend is placed below everything the axes draw beneath them (tick labels, a
    wrapped x label), measured on the final layout, whatever the figure's height.
    """
    from matplotlib.transforms import ScaledTranslation

    figure = look.figure_of(ax)
    figure.draw_without_rendering()
    renderer = _renderer(figure)
    tight = ax.get_tightbbox(renderer)
    below = ax.get_window_extent(renderer).y0 - (tight.y0 if tight is not None else 0.0)
    drop = below / figure.dpi + 0.12  # inches from the axes' bottom to the legend
    legend = ax.legend(
        loc="upper center",
        bbox_to_anchor=(0.5, 0.0),
        bbox_transform=ax.transAxes + ScaledTranslation(0.0, -drop, figure.dpi_scale_trans),
        ncol=columns,
        fontsize=8,
        title="size of the per-query difference",
    )
    ax.annotate(
        RISK_NOTE,
        (0.5, 0.0),
        xycoords=legend,
        xytext=(0, -2),
        textcoords="offset points",
        ha="center",
        va="top",
        fontsize=8,
        color="0.3",
    )


def _renderer(figure: Any) -> Any:
    """The renderer of ``figure``'s canvas, which measures text as it will be drawn."""
    return figure.canvas.get_renderer()


def _wrapped(run: Hashable, width: int = 28) -> str:
    """A run's name as a label, broken at spaces into lines of about ``width`` characters."""
    return textwrap.fill(look.name(run), width, break_long_words=False, break_on_hyphens=False)


def pairs_heatmap(
    pairs: pd.DataFrame, metric: str | None = None, *, ax: Axes | None = None
) -> Axes:
    """The p-values of all pairs of runs as a matrix, runs ordered by their mean.

    Parameters
    ----------
    pairs : DataFrame
        All pairs of runs with columns ``run``, ``baseline``, ``metric``, ``mean``,
        ``baseline_mean``, ``p_value`` and ``significant``: what
        :func:`pdireval.tukey_hsd` returns.
    metric : str, optional
        The metric to draw; may be omitted when ``pairs`` holds one.
    ax : matplotlib Axes, optional
        Where to draw; a new figure when omitted.

    Returns
    -------
    matplotlib Axes
        Cell (i, j) is coloured by the p-value of runs i and j (dark: small) and
        labelled with it (``.012``, ``<.001``), in bold when the pair differs
        significantly. The labels are sized to fit inside their cells; where even
        6-point numbers would not fit, stars say the level instead (``***`` below 0.001,
        ``**`` below 0.01, ``*`` below 0.05, as the colour bar's label says), and in
        cells smaller still the colour alone. A new figure grows with the run names, so
        that the cells keep their size.

    Raises
    ------
    SchemaError
        A column is missing, or ``metric`` names no metric of ``pairs``.
    MissingDependencyError
        matplotlib is not installed.

    Examples
    --------
    >>> import matplotlib
    >>> matplotlib.use("Agg")
    >>> import pdireval
    >>> from pdireval.plotting import pairs_heatmap
    >>> from pdireval.datasets import example
    >>> pairs = pdireval.tukey_hsd(example(), "AP", n_resamples=1000, seed=1)
    >>> ax = pairs_heatmap(pairs)
    >>> [label.get_text() for label in ax.get_xticklabels()]
    ['strong', 'medium', 'weak']
    """
    look.pyplot()
    chosen, block = _pairs_of_metric(pairs, metric)
    order, p, significant = _pair_matrices(block)
    n = len(order)
    cell = max(0.3, min(0.5, 8.0 / n))  # inches: twenty runs still fit a page's width
    with look.style() as plt:
        ax, owned = look.new_axes(ax, (1.4 + cell * n, 0.9 + cell * n))
        image = ax.imshow(p, cmap="viridis", vmin=0.0, vmax=1.0)
        # names on one line along x: the lines of wrapped, slanted names would interleave
        ax.set_xticks(
            range(n), [look.name(run) for run in order], rotation=45, ha="right",
            rotation_mode="anchor",
        )  # fmt: skip
        # our cells are tall enough for a name in two lines; a user's may not be
        ax.set_yticks(range(n), [_wrapped(run) if owned else look.name(run) for run in order])
        ax.spines[:].set_visible(False)
        ax.tick_params(length=0)
        ax.set_title(f"{look.name(chosen)}: p-values of all pairs (bold: significant)")
        bar = plt.colorbar(image, ax=ax, label="p-value", shrink=0.8)
        bar.outline.set_visible(False)
        if owned:
            _grow_for_names(ax)
        if _label_cells(ax, p, significant, _p_value) is None:
            stars = _label_cells(ax, p, significant, _stars)
            bar.set_label("p-value" if stars is None else _STARS_NOTE)
    return ax


def _grow_for_names(ax: Axes) -> None:
    """Make a figure of our own larger by the run names along both axes: the cells keep
    the size the figure was made for.
    """
    figure = look.figure_of(ax)
    renderer = _renderer(figure)
    left = [t.get_window_extent(renderer).width for t in ax.get_yticklabels() if t.get_text()]
    down = [t.get_window_extent(renderer).height for t in ax.get_xticklabels() if t.get_text()]
    look.grow(
        figure,
        width=max(left, default=0.0) / figure.dpi,
        height=max(down, default=0.0) / figure.dpi,
    )


def _p_value(p: float) -> str:
    """A p-value in three decimals without the leading zero, as journals print them."""
    return "<.001" if p < 0.001 else f"{p:.3f}".removeprefix("0")


def _stars(p: float) -> str:
    """A p-value as stars: *** below 0.001, ** below 0.01, * below 0.05."""
    return "***" if p < 0.001 else "**" if p < 0.01 else "*" if p < 0.05 else ""


_STARS_NOTE = "p-value (*** < 0.001, ** < 0.01, * < 0.05)"
#: Cell labels are not written smaller than this (points); p-values smaller become stars.
_SMALLEST_FONT = 6.0
#: The share of a cell's width and height a label may take: the rest is the gap around it.
_FILL = (0.82, 0.62)


def _label_cells(ax: Axes, p: np.ndarray, significant: np.ndarray, mark: Any) -> float | None:
    """Write ``mark(p)`` of each pair in its cell, in bold when the pair differs significantly.

    The font is chosen on the final layout so that the widest label fits inside its cell
    with a gap (at most the figure's usual 8.5 points); the font size, or None (nothing
    written) when it would be smaller than :data:`_SMALLEST_FONT` points.
    """
    figure = look.figure_of(ax)
    figure.draw_without_rendering()
    renderer = _renderer(figure)
    corners = ax.transData.transform([(0.0, 0.0), (1.0, 1.0)])
    width, height = np.abs(corners[1] - corners[0])
    texts = {mark(value) for value in p[~np.isnan(p)]} - {""}
    if not texts:
        return 8.5
    widest = max(texts, key=len)
    probe = ax.text(0, 0, widest, fontsize=10.0, fontweight="bold")
    box = probe.get_window_extent(renderer)
    probe.remove()
    size = min(8.5, 10.0 * _FILL[0] * width / box.width, 10.0 * _FILL[1] * height / box.height)
    if size < _SMALLEST_FONT:
        return None
    for (i, j), value in np.ndenumerate(p):
        if i != j and mark(value):
            ax.text(
                j,
                i,
                mark(value),
                ha="center",
                va="center",
                fontsize=size,
                color="white" if value < 0.5 else "black",
                fontweight="bold" if significant[i, j] else "normal",
            )
    return size


def _pairs_of_metric(pairs: pd.DataFrame, metric: str | None) -> tuple[Any, pd.DataFrame]:
    """The metric to draw (``metric``, or the only one of ``pairs``) and its pairs."""
    needed = ("run", "baseline", "metric", "mean", "baseline_mean", "p_value", "significant")
    missing = [column for column in needed if column not in pairs.columns]
    if missing:
        msg = f"pairs_heatmap needs columns {list(needed)}; {missing} are missing"
        raise SchemaError(msg)
    metrics = list(dict.fromkeys(pairs["metric"]))
    if metric is None and len(metrics) != 1:
        msg = f"the pairs hold several metrics {metrics}; name one with metric="
        raise SchemaError(msg)
    chosen = metrics[0] if metric is None else metric
    if chosen not in metrics:
        msg = f"metric {chosen!r} is not in the pairs (metrics: {metrics})"
        raise SchemaError(msg)
    return chosen, pairs[pairs["metric"] == chosen]


def _pair_matrices(block: pd.DataFrame) -> tuple[list[Hashable], np.ndarray, np.ndarray]:
    """The runs by their mean, highest first, and the symmetric matrices of their pairs'
    p-values (NaN on the diagonal) and significance.
    """
    means = _run_means(block)
    order = sorted(means, key=lambda run: -means[run])
    index = {run: i for i, run in enumerate(order)}
    p = np.full((len(order), len(order)), np.nan)
    significant = np.zeros_like(p, dtype=bool)
    for run, base, value, flag in zip(
        block["run"], block["baseline"], block["p_value"], block["significant"], strict=True
    ):
        i, j = index[run], index[base]
        p[i, j] = p[j, i] = value
        significant[i, j] = significant[j, i] = bool(flag)
    return order, p, significant


def judges_scatter(
    found: JudgeConclusions,
    metric: Hashable,
    *,
    judge: Hashable | None = None,
    ax: Axes | None = None,
) -> Axes:
    """Each run's score under the reference judge (x) against another judge (y).

    Parameters
    ----------
    found : JudgeConclusions
        What :func:`pdireval.judge_conclusions` returned.
    metric : str
        One of its metrics, as labelled in ``found.scores``.
    judge : hashable, optional
        The judge on the y axis; by default the first that is not the reference.
    ax : matplotlib Axes, optional
        Where to draw; a new figure when None.

    Returns
    -------
    matplotlib Axes
        One point per run in the run's colour and marker (those of ``df.ireval.plot``,
        by the runs' order), the diagonal (equal scores), and Kendall's tau in the
        title. Up to eight runs, each point is named beside it where the name covers no
        other name or point; otherwise the runs are named in a legend.

    Examples
    --------
    >>> import matplotlib
    >>> matplotlib.use("Agg")
    >>> import pdireval
    >>> from pdireval.datasets import example_qrels, example_run
    >>> from pdireval.plotting import judges_scatter
    >>> human = example_qrels()
    >>> strict = human.assign(rel=(human["rel"] >= 2).astype("int64"))
    >>> found = pdireval.judge_conclusions(example_run(), {"human": human, "strict": strict},
    ...                                    "AP")
    >>> ax = judges_scatter(found, "AP")
    >>> ax.get_xlabel(), ax.get_ylabel()
    ('AP under human', 'AP under strict')
    """
    judges = list(dict.fromkeys(found.scores.columns.get_level_values("judge")))
    others = [name for name in judges if name != found.reference]
    chosen = others[0] if judge is None else judge
    if chosen not in others:
        msg = f"judge={chosen!r} is not one of the judges held against the reference: {others}"
        raise SchemaError(msg)
    metrics = list(dict.fromkeys(found.scores.columns.get_level_values("metric")))
    if metric not in metrics:
        msg = f"metric {metric!r} was not evaluated; the metrics are {metrics}"
        raise MetricError(msg)
    x = found.scores[(found.reference, metric)]
    y = found.scores[(chosen, metric)]
    styles = run_styles(x.index)  # the runs' order: the styles of df.ireval.plot
    low = float(min(x.min(), y.min()))
    high = float(max(x.max(), y.max()))
    margin = 0.08 * max(high - low, 1e-9)
    span = (low - margin, high + margin)
    with look.style():
        ax, owned = look.new_axes(ax, (5.0, 4.8))
        ax.plot(span, span, color="0.75", lw=1, zorder=1, label="_equal scores")
        points = np.column_stack([x.to_numpy(np.float64), y.to_numpy(np.float64)])
        handles = [
            ax.scatter(
                px,
                py,
                s=42,
                color=style.color,
                marker=style.marker,
                zorder=3,
                label=look.name(run),
            )
            for (px, py), (run, style) in zip(points, styles.items(), strict=True)
        ]
        row = found.agreement[
            (found.agreement["judge"] == chosen) & (found.agreement["metric"] == metric)
        ]
        tau = float(row["kendall"].iloc[0]) if len(row) else float("nan")
        name, ref, other = (look.name(v) for v in (metric, found.reference, chosen))
        ax.set_xlabel(f"{name} under {ref}")
        ax.set_ylabel(f"{name} under {other}")
        ax.set_title(f"Runs under two judges: Kendall's tau = {tau:.3f}")
        ax.set_xlim(*span)
        ax.set_ylim(*span)
        ax.grid(True, alpha=0.3)
        names = [look.name(run) for run in styles]
        short = [_wrapped(run) for run in styles]  # long names in two or three lines
        if len(names) > MAX_NAMED_POINTS or not _name_points(ax, points, short):
            look.legend(ax, handles, names, owned=owned, title="Run")
    return ax


#: Up to this many runs, the judges' scatter names each point beside it (no legend).
MAX_NAMED_POINTS = 8
#: Directions a name may take from its point: unit (x, y) and the alignment of the name.
_AROUND = (
    ((1.0, 0.0), "left", "center"),
    ((-1.0, 0.0), "right", "center"),
    ((0.0, 1.0), "center", "bottom"),
    ((0.0, -1.0), "center", "top"),
    ((0.7, 0.7), "left", "bottom"),
    ((-0.7, 0.7), "right", "bottom"),
    ((0.7, -0.7), "left", "top"),
    ((-0.7, -0.7), "right", "top"),
)
#: Distances (points) tried from near to far; beyond the first, a thin line leads back.
_DISTANCES = (6.0, 16.0, 30.0)


def _name_points(ax: Axes, points: np.ndarray, names: list[str]) -> bool:
    """Name each point near it, where the name covers no other name and no point.

    Each name tries the directions of :data:`_AROUND` at the distances of
    :data:`_DISTANCES`, nearest first, and takes the first place inside the axes that
    is clear; a name set apart gets a thin line to its point. When a name finds no
    place, every name is removed and False returned: the caller draws a legend instead.
    """
    from matplotlib.transforms import Bbox

    figure = look.figure_of(ax)
    figure.draw_without_rendering()  # the final layout: positions in pixels
    renderer = _renderer(figure)
    area = ax.get_window_extent(renderer)
    pixels = ax.transData.transform(points)
    reach = 5.0 * figure.dpi / 72.0  # half a marker and a little
    markers = [Bbox.from_bounds(px - reach, py - reach, 2 * reach, 2 * reach) for px, py in pixels]
    taken: list[Any] = []
    labels: list[Any] = []
    for i, (point, text) in enumerate(zip(points, names, strict=True)):
        others = [box for j, box in enumerate(markers) if j != i] + taken
        label = _placed(ax, point, text, (area, others), renderer)
        if label is None:
            for placed in labels:
                placed.remove()
            return False
        labels.append(label)
        taken.append(_text_box(label, renderer))
    return True


def _text_box(label: Any, renderer: Any) -> Any:
    """The window extent of an annotation's text, without the line leading to its point."""
    from matplotlib.text import Text

    label.get_window_extent(renderer)  # places the text for this renderer
    return Text.get_window_extent(label, renderer)


def _placed(ax: Axes, point: np.ndarray, text: str, where: tuple[Any, Any], renderer: Any) -> Any:
    """The first annotation of ``text`` around ``point`` inside the area of ``where`` whose
    text and leading line cross none of its boxes to avoid, or None.
    """
    from matplotlib.path import Path

    area, avoid = where
    scale = look.figure_of(ax).dpi / 72.0  # pixels per point
    start = ax.transData.transform(point)
    for distance in _DISTANCES:
        for (dx, dy), ha, va in _AROUND:
            line = {"arrowstyle": "-", "color": "0.5", "lw": 0.6, "shrinkA": 0, "shrinkB": 4}
            label = ax.annotate(
                text,
                tuple(point),
                xytext=(dx * distance, dy * distance),
                textcoords="offset points",
                ha=ha,
                va=va,
                fontsize=8.5,
                arrowprops=line if distance > _DISTANCES[0] else None,
            )
            box = _text_box(label, renderer)
            lead = Path([start, start + scale * distance * np.array([dx, dy])])
            inside = area.x0 <= box.x0 and box.x1 <= area.x1 and area.y0 <= box.y0
            if inside and box.y1 <= area.y1 and _clear(box, lead, avoid):
                return label
            label.remove()
    return None


def _clear(box: Any, lead: Any, avoid: list[Any]) -> bool:
    """Whether a name's ``box`` overlaps none of ``avoid``, and its ``lead`` line crosses
    none but those its point lies in (a point hard by another: its line leaves them).
    """
    start = lead.vertices[0]
    return not any(
        box.overlaps(other) or (lead.intersects_bbox(other) and not other.contains(*start))
        for other in avoid
    )


def _metric_lines(ax: Axes, table: pd.DataFrame, x: str, y: str) -> list[str]:
    """One line per metric (in the table's order), styled by its position."""
    names = []
    for at, (metric, rows) in enumerate(table.groupby("metric", sort=False)):
        ax.plot(
            rows[x].to_numpy(dtype=np.float64),
            rows[y].to_numpy(dtype=np.float64),
            color=COLOURS[at % len(COLOURS)],
            marker=MARKERS[(at // len(COLOURS)) % len(MARKERS)],
            linestyle=LINESTYLES[(at // len(COLOURS)) % len(LINESTYLES)],
            markersize=4,
            label=look.name(metric),
            clip_on=False,  # a line at 0 is drawn over the axis, not hidden under it
            zorder=3,
        )
        names.append(look.name(metric))
    ax.xaxis.set_major_locator(_whole_ticks())  # pairs and topics are counted
    ax.grid(True, alpha=0.3)
    return names


def _whole_ticks() -> Any:
    """A tick locator at whole numbers only."""
    from matplotlib.ticker import MaxNLocator

    return MaxNLocator(integer=True)


def _refuse_columns(table: Any, needed: Sequence[str], made_by: str) -> None:
    if not isinstance(table, pd.DataFrame) or not set(needed) <= set(table.columns):
        found = list(table.columns) if isinstance(table, pd.DataFrame) else type(table).__name__
        msg = f"expected the table {made_by} returns (columns {list(needed)}), got {found}"
        raise SchemaError(msg)


def asl_plot(curves: pd.DataFrame, *, alpha: float = 0.05, ax: Axes | None = None) -> Axes:
    """Achieved significance level curves: each measure's ASLs, sorted, against the pairs.

    Sakai (2006) compares measures by how many pairs of runs they tell apart: for each
    measure the bootstrap ASL of every pair, sorted from smallest; the further a curve
    stays below ``alpha``, the more discriminative the measure.

    Parameters
    ----------
    curves : DataFrame
        What :func:`pdireval.asl_curve` returned.
    alpha : float
        The significance level drawn as a horizontal line (default 0.05).
    ax : matplotlib Axes, optional
        Where to draw; a new figure when None.

    Returns
    -------
    matplotlib Axes
        One line per measure (pairs sorted by ASL on the x axis), the level ``alpha``,
        and each measure's discriminative power (the share of pairs below ``alpha``) in
        the legend.

    References
    ----------
    T. Sakai (2006), Evaluating evaluation metrics based on the bootstrap, SIGIR.

    Examples
    --------
    >>> import matplotlib
    >>> matplotlib.use("Agg")
    >>> import pdireval
    >>> from pdireval.datasets import example
    >>> from pdireval.plotting import asl_plot
    >>> curves = pdireval.asl_curve(example(), ["AP", "P@10"], n_resamples=200, seed=0)
    >>> ax = asl_plot(curves)
    >>> ax.get_ylabel()
    'achieved significance level'
    """
    _refuse_columns(curves, ("metric", "asl"), "pdireval.asl_curve")
    level = float(alpha)
    if not 0.0 < level < 1.0:
        msg = f"alpha={alpha!r} must be a level between 0 and 1, e.g. 0.05"
        raise ParameterError(msg)
    ranked = curves.assign(
        pair=curves.groupby("metric", sort=False).cumcount() + 1,
        asl=curves.groupby("metric", sort=False)["asl"].transform(
            lambda values: np.sort(values.to_numpy(dtype=np.float64))
        ),
    )
    power = ranked.groupby("metric", sort=False)["asl"].apply(lambda v: float((v < level).mean()))
    with look.style():
        ax, owned = look.new_axes(ax, (5.6, 4.0))
        _metric_lines(ax, ranked, "pair", "asl")
        ax.axhline(level, color="0.4", lw=1, linestyle="--")
        ax.annotate(
            f"alpha = {level:g}",
            (1.0, level),
            xycoords=("axes fraction", "data"),
            xytext=(-4, 3),
            textcoords="offset points",
            ha="right",
            fontsize=8,
            color="0.3",
            zorder=4,  # above the curves, on a ground of its own
            bbox={"boxstyle": "round,pad=0.1", "facecolor": "white", "edgecolor": "none"},
        )
        handles = ax.get_lines()[: len(power)]
        labels = [f"{look.name(m)}: {share:.0%} of pairs" for m, share in power.items()]
        look.legend(ax, handles, labels, owned=owned, title="discriminative power")
        ax.set_xlabel("pairs of runs, sorted by ASL")
        ax.set_ylabel("achieved significance level")
        ax.set_ylim(0.0, max(float(ranked["asl"].max()), level) * 1.05 + 1e-3)
        ax.set_title("Which measure tells the runs apart?")
    return ax


def topics_plot(table: pd.DataFrame, *, ax: Axes | None = None) -> Axes:
    """How steady each measure's conclusions stay on fewer topics.

    Parameters
    ----------
    table : DataFrame
        What :func:`pdireval.swap_rate` returned (the swap rate against the topic set
        size: Voorhees & Buckley 2002) or :func:`pdireval.ranking_stability` (the mean
        Kendall's tau between the run ordering on a subset and on all topics).
    ax : matplotlib Axes, optional
        Where to draw; a new figure when None.

    Returns
    -------
    matplotlib Axes
        One line per measure against the number of topics (whole numbers); a swap
        rate's axis starts at 0.

    Examples
    --------
    >>> import matplotlib
    >>> matplotlib.use("Agg")
    >>> import pdireval
    >>> from pdireval.datasets import example
    >>> from pdireval.plotting import topics_plot
    >>> ax = topics_plot(pdireval.swap_rate(example(), ["AP", "P@10"], seed=0))
    >>> ax.get_ylabel()
    'swap rate'
    """
    if isinstance(table, pd.DataFrame) and "swap_rate" in table.columns:
        y, label, title = "swap_rate", "swap rate", "Conclusions that swap on fewer topics"
    else:
        _refuse_columns(table, ("metric", "size", "tau_mean"), "pdireval.ranking_stability")
        y, label = "tau_mean", "Kendall's tau with all topics (mean)"
        title = "Run orderings on fewer topics"
    _refuse_columns(table, ("metric", "size", y), "pdireval.swap_rate")
    with look.style():
        ax, owned = look.new_axes(ax, (5.6, 4.0))
        names = _metric_lines(ax, table, "size", y)
        look.legend(ax, ax.get_lines()[: len(names)], names, owned=owned, title="measure")
        ax.set_xlabel("topics")
        ax.set_ylabel(label)
        ax.set_title(title)
        if y == "swap_rate":  # a rate: from 0, with room above when every rate is 0
            top = float(np.nanmax(table[y].to_numpy(dtype=np.float64), initial=0.0))
            ax.set_ylim(0.0, max(top * 1.05, 0.05))
    return ax
