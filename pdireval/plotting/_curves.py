"""Curves: precision against recall, and a metric against the rank cutoff k."""

from __future__ import annotations

import math
import textwrap
from collections.abc import Hashable, Iterable, Sequence
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd

from pdireval._core.options import EVALUATION, takes
from pdireval.plotting import _look as look
from pdireval.plotting._styles import REFERENCE, RunStyle, drawing_order
from pdireval.stats.curves import curve, without_cutoff
from pdireval.stats.curves import pr_curve as pr_curve_table
from pdireval.typing import ColumnsLike as Columns
from pdireval.typing import MetricLike

if TYPE_CHECKING:  # pragma: no cover - for type checkers only
    from matplotlib.axes import Axes

#: Panels per row of the per-query precision-recall curves, at most.
PANEL_COLUMNS = 5
#: A panel's title: lines of about this many characters, at most this many lines.
TITLE_WIDTH, TITLE_LINES = 26, 3
#: Cutoffs labelled on the k axis, at most.
MAX_K_TICKS = 8


def _by_run(table: pd.DataFrame, axis: str, runs: Sequence[Hashable]) -> dict[Hashable, Any]:
    """Rows of a curve table per run, in ``runs`` order (the column before ``axis`` is the run)."""
    names = list(table.columns)
    if names.index(axis) != 1:
        return {None: table}
    parts: dict[Hashable, pd.DataFrame] = dict(
        iter(table.groupby(names[0], sort=False, observed=True))
    )
    return {run: parts[run] for run in runs if run in parts}


def _frame_pr(ax: Axes, title: str | None = None, *, labels: bool = True) -> None:
    """Axes limits, ticks and labels of a precision-recall plot (or of shared panels)."""
    ax.set_xlim(-0.02, 1.02)  # markers at 0 and 1 whole, the 1.0 labels inside
    ax.set_ylim(-0.02, 1.02)
    ticks = np.linspace(0.0, 1.0, 6)
    ax.set_xticks(ticks, [f"{tick:.1f}" for tick in ticks])
    ax.set_yticks(ticks, [f"{tick:.1f}" for tick in ticks])
    if labels:
        ax.set_xlabel("Recall")
        ax.set_ylabel("Interpolated precision")
    if title is not None:
        ax.set_title(title)


@takes(EVALUATION)
@look.drawing
def pr_curve(
    frame: pd.DataFrame,
    *,
    points: int = 11,
    per_query: bool = False,
    rel: int = 1,
    order: Sequence[Hashable] | None = None,
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
        Also draw every query's interpolated curve, thin and translucent, under the
        averaged one. With several runs (and no ``ax``), each run gets a panel of its
        own -- its queries and its mean, the other runs' means in grey -- on axes shared
        by all panels.
    rel : int
        Minimum label counted as relevant.
    order : sequence of run ids, optional
        The run order that gives each run its colour and marker (see
        :func:`run_styles`), and the order of the legend; runs not named follow in the
        order they first appear in the frame.
    ax : matplotlib Axes, optional
        Where to draw (every run on it, also with ``per_query=True``); a new figure when
        omitted.
    columns, **options
        Column mapping and the options of :func:`pdireval.evaluate` (``queries=``,
        ``max_rank=``, ``judged_only=``, ``validate=``).

    Returns
    -------
    matplotlib Axes
        Recall on x, mean interpolated precision on y (both 0..1); a legend below the
        figure names the runs when there are several. With per-query panels, the Axes of
        the first panel (``ax.figure.axes`` holds them all).

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
    >>> ax = pr_curve(example(), per_query=True)  # one panel per run
    >>> [panel.get_title() for panel in ax.figure.axes]
    ['strong', 'medium', 'weak']
    """
    runs, styles = drawing_order(frame, columns, order)
    table = pr_curve_table(frame, points=points, rel=rel, average=True, columns=columns, **options)
    means = _by_run(table, "recall", runs)
    queries = None
    if per_query:
        queries = pr_curve_table(frame, points=points, rel=rel, columns=columns, **options)
    title = f"{points}-point interpolated precision-recall curve"
    with look.style():
        if queries is not None and ax is None and len(means) > 1:
            return _pr_panels(means, queries, styles, title)
        ax, owned = look.new_axes(ax, (7.0, 4.5))
        if queries is not None:
            _query_curves(ax, queries, list(means), styles)
        handles = [
            ax.plot(
                part["recall"],
                part["precision"],
                markersize=4,
                label="" if run is None else look.name(run),
                **styles[run].line(),
            )[0]
            for run, part in means.items()
        ]
        _frame_pr(ax, title)
        ax.grid(True, alpha=0.3)
        if len(handles) > 1:
            look.legend(ax, handles, [look.name(run) for run in means], owned=owned, title="Run")
    return ax


def _query_curves(
    ax: Axes, queries: pd.DataFrame, runs: list[Hashable], styles: dict[Hashable, RunStyle]
) -> None:
    """Every query's curve of ``runs``, thin and translucent, in the run's colour.

    One line collection per run: a figure of 20 runs and 50 queries draws 20 artists,
    not 1000.
    """
    from matplotlib.collections import LineCollection

    recall_at = list(queries.columns).index("recall")
    query_column = queries.columns[recall_at - 1]
    run_column = queries.columns[0] if recall_at == 2 else None
    for run in runs:
        part = queries if run_column is None else queries[queries[run_column] == run]
        part = part.sort_values([query_column, "recall"], kind="stable")
        codes = pd.factorize(part[query_column])[0]
        points = part[["recall", "precision"]].to_numpy(dtype=np.float64)
        curves = np.split(points, np.flatnonzero(np.diff(codes)) + 1)
        lines = LineCollection(curves, colors=styles[run].color, alpha=0.15, linewidths=0.8)
        lines.set_label("_queries")
        ax.add_collection(lines, autolim=False)


def _pr_panels(
    means: dict[Hashable, pd.DataFrame],
    queries: pd.DataFrame,
    styles: dict[Hashable, RunStyle],
    title: str,
) -> Axes:
    """One panel per run: its query curves, its mean, the others' means in light grey.

    The grey is :data:`~pdireval.plotting._styles.REFERENCE`, a colour no run has.
    """
    plt = look.pyplot()
    across = min(PANEL_COLUMNS, len(means), max(3, math.ceil(math.sqrt(1.3 * len(means)))))
    down = math.ceil(len(means) / across)
    figure, grid = plt.subplots(
        down,
        across,
        figsize=(2.2 * across + 0.6, 2.3 * down + 0.7),
        sharex=True,
        sharey=True,
        squeeze=False,
        layout="constrained",
    )
    from matplotlib.collections import LineCollection

    panels = list(grid.ravel())
    _frame_pr(panels[0], labels=False)  # the panels share their axes
    curves = {run: part[["recall", "precision"]].to_numpy() for run, part in means.items()}
    for i, (run, part) in enumerate(means.items()):
        panel = panels[i]
        others = [curve for other, curve in curves.items() if other != run]
        panel.add_collection(
            LineCollection(others, colors=REFERENCE, linewidths=0.8), autolim=False
        )
        _query_curves(panel, queries, [run], styles)
        panel.plot(part["recall"], part["precision"], markersize=3.5, lw=2, **styles[run].line())
        panel.grid(True, alpha=0.3)
        panel.tick_params(labelbottom=i + across >= len(means), labelleft=i % across == 0)
        panel.set_title(look.name(wrap(str(run))), fontsize=8.5, fontweight="normal")
    for panel in panels[len(means) :]:
        panel.set_visible(False)
    figure.supxlabel("Recall", fontsize=10)
    figure.supylabel("Interpolated precision", fontsize=10)
    figure.suptitle(f"{title}s\neach query thin, the run's mean bold, other runs' means grey")
    return panels[0]


def wrap(text: str, width: int = TITLE_WIDTH, lines: int = TITLE_LINES) -> str:
    """``text`` in lines of at most ``width`` characters, broken at spaces only.

    A word is never split across lines (``bm25+monoT5-3B`` stays whole); a word longer
    than ``width`` is shortened in its middle, keeping its start and its end (where
    names like ``...-fold3`` and ``...-fold4`` differ). The lines are balanced (each as
    short as the same number of lines allows). A text that needs more than ``lines``
    lines keeps its first ``lines``, the last ending in "…".

    Examples
    --------
    >>> print(wrap("bm25+monoT5-3B (rerank top-100, fine-tuned)"))
    bm25+monoT5-3B (rerank
    top-100, fine-tuned)
    >>> print(wrap("bm25+monoT5-3b-rerank-top1000-fold3"))
    bm25+monoT5-3…op1000-fold3
    >>> print(wrap("a b c d e f g h i j k l", width=5, lines=2))
    a b c
    d e…
    """
    if len(text) <= width and "\n" not in text:
        return text
    words = [_shorten(word, width) for word in text.split()]
    shown = _lines(" ".join(words), width)
    if len(shown) > lines:
        last = shown[lines - 1].split(" ")
        while len(last) > 1 and len(" ".join(last)) + 1 > width:  # room for the "…"
            last.pop()
        return "\n".join([*shown[: lines - 1], _shorten(" ".join(last), width - 1) + "…"])
    fewest = len(shown)
    for narrower in range(-(-len(" ".join(words)) // max(fewest, 1)), width):
        balanced = _lines(" ".join(words), narrower)
        if len(balanced) == fewest and all(len(line) <= width for line in balanced):
            return "\n".join(balanced)
    return "\n".join(shown)


def _shorten(word: str, width: int) -> str:
    """``word``, or its start and end around "…" in ``width`` characters when longer."""
    if len(word) <= width:
        return word
    tail = (width - 1) // 2
    return word[: width - 1 - tail] + "…" + word[len(word) - tail :]


def _lines(text: str, width: int) -> list[str]:
    """Greedy lines of at most ``width`` characters, broken at spaces only."""
    return textwrap.wrap(text, max(width, 1), break_long_words=False, break_on_hyphens=False)


def cutoff_ticks(ks: Sequence[int], log: bool) -> list[int]:
    """The evaluated cutoffs to label: all of few, else the first, the last and round ones.

    Round: multiples of the smallest step of 1, 2, 5, 10, 20, 50, ... (on a logarithmic
    axis: 1, 2 and 5 times a power of ten) that leaves at most :data:`MAX_K_TICKS`.

    Examples
    --------
    >>> cutoff_ticks(range(1, 21), log=False)
    [1, 5, 10, 15, 20]
    >>> cutoff_ticks([1, 3, 5, 10], log=False)
    [1, 3, 5, 10]
    >>> cutoff_ticks([1, 5, 10, 20, 50, 100, 200, 500, 1000], log=True)
    [1, 5, 10, 50, 100, 500, 1000]
    >>> cutoff_ticks(range(1, 1001), log=True)
    [1, 5, 10, 50, 100, 500, 1000]
    """
    ks = sorted(set(ks))
    if len(ks) <= MAX_K_TICKS:
        return ks
    if log:
        for mantissas in ((1, 2, 5), (1, 5), (1,)):
            chosen = [k for k in ks if _leading(k) in mantissas]
            ticks = sorted({ks[0], *chosen, ks[-1]})
            if len(ticks) <= MAX_K_TICKS:
                return ticks
        return [ks[0], ks[-1]]
    step = 1
    for magnitude in (1, 10, 100, 1000, 10_000, 100_000):
        for base in (1, 2, 5):
            step = base * magnitude
            ticks = sorted({ks[0], *(k for k in ks if k % step == 0), ks[-1]})
            # the first and last are kept; a round one too close to them gives way
            ticks = [k for k in ticks if k in (ks[0], ks[-1]) or _apart(k, ks, step)]
            if len(ticks) <= MAX_K_TICKS:
                return ticks
    return [ks[0], ks[-1]]


def _leading(k: int) -> int:
    """``k``'s leading digit when it is that digit times a power of ten, else 0."""
    text = str(k)
    return int(text[0]) if k > 0 and set(text[1:]) <= {"0"} else 0


def _apart(k: int, ks: list[int], step: int) -> bool:
    return k - ks[0] >= step / 2 and ks[-1] - k >= step / 2


@takes(EVALUATION)
@look.drawing
def at_k(
    frame: pd.DataFrame,
    metric: MetricLike,
    ks: Iterable[int] = range(1, 21),
    *,
    order: Sequence[Hashable] | None = None,
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
    order : sequence of run ids, optional
        As in :func:`pr_curve`.
    ax : matplotlib Axes, optional
        Where to draw; a new figure when omitted.
    columns, **options
        As in :func:`pdireval.curve`.

    Returns
    -------
    matplotlib Axes
        k on x, labelled with cutoffs that were evaluated (all of them when there are at
        most eight; else the first, the last and round ones), logarithmic when the
        cutoffs are few and span a factor of 50 or more; the mean over queries on y
        (0..1 for bounded metrics); a legend below the figure when there are several runs.

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
    >>> ax = at_k(example(), "P", ks=[1, 5, 10, 20])
    >>> ax.get_ylabel(), ax.get_lines()[0].get_xdata().tolist()
    ('Mean P@k', [1, 5, 10, 20])
    >>> [tick.get_text() for tick in ax.get_xticklabels()]
    ['1', '5', '10', '20']
    """
    base = without_cutoff(metric)
    label = base.label
    ks = list(ks)
    runs, styles = drawing_order(frame, columns, order)
    table = curve(frame, metric, ks, average=True, columns=columns, **options)
    parts = _by_run(table, "k", runs)
    evaluated = sorted(set(ks))
    log = len(evaluated) < 0.5 * (evaluated[-1] - evaluated[0] + 1) and (
        evaluated[-1] >= 50 * max(evaluated[0], 1)
    )
    with look.style():
        ax, owned = look.new_axes(ax, (7.0, 4.5))
        handles = [
            ax.plot(
                part["k"].to_numpy(),
                part["value"].to_numpy(),
                markersize=4,
                label="" if run is None else look.name(run),
                **styles[run].line(),
            )[0]
            for run, part in parts.items()
        ]
        if log and evaluated[0] > 0:
            ax.set_xscale("log")
            ax.minorticks_off()
        ticks = cutoff_ticks(evaluated, log=log and evaluated[0] > 0)
        ax.set_xticks(ticks, [str(k) for k in ticks])
        ax.set_xlabel("k (rank cutoff)")
        ax.set_ylabel(f"Mean {label}@k")
        if base.family.bounded:
            ax.set_ylim(-0.02, 1.02)
        ax.set_title(f"{label}@k")
        ax.grid(True, alpha=0.3)
        if len(handles) > 1:
            look.legend(ax, handles, [look.name(run) for run in parts], owned=owned, title="Run")
    return ax
