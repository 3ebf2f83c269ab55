"""What every figure shares: matplotlib imported on demand, the look, new figures, legends.

Figures of our own grow to fit what they hold rather than shrinking the plotting area: a
legend goes below the axes, in as many columns as the figure's width takes, and the figure
gets taller by the legend's height; long run names along the y axis make it wider. On
axes a user gives, nothing is resized: the legend goes beside the axes, outside the data.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any, TypeVar, cast

from pdireval._core import escape
from pdireval._core.errors import MetricError
from pdireval._core.optional import optional
from pdireval.metrics import parse_metrics
from pdireval.typing import MetricLike

if TYPE_CHECKING:  # pragma: no cover - for type checkers only
    from matplotlib.axes import Axes
    from matplotlib.figure import Figure
    from matplotlib.legend import Legend

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
#: Space kept between the axes' decorations and a legend below them, inches.
_GAP = 0.08

_Plot = TypeVar("_Plot", bound=Callable[..., Any])


def pyplot() -> Any:
    """Import :mod:`matplotlib.pyplot`, or raise :class:`MissingDependencyError` with the fix."""
    return optional("matplotlib.pyplot", purpose="plots")


def drawing(plot: _Plot) -> _Plot:
    """Check for matplotlib before a plot function computes anything.

    A user without matplotlib hears that first, not about a missing scipy or a bad
    metric name they will have to fix again after installing it.
    """

    @functools.wraps(plot)
    def checked(*args: Any, **kwargs: Any) -> Any:
        pyplot()
        return plot(*args, **kwargs)

    return cast(_Plot, checked)


@contextmanager
def style() -> Iterator[Any]:
    """Draw with pdireval's look (temporarily); yields :mod:`matplotlib.pyplot`."""
    plt = pyplot()
    # Only the style's own keys are set and put back: restoring every rcParam (as
    # rc_context does) would also undo the backend a fresh Jupyter kernel resolves while
    # the first figure is drawn, and later figures would no longer show inline.
    saved = {key: plt.rcParams[key] for key in STYLE}
    plt.rcParams.update(STYLE)
    try:
        yield plt
    finally:
        plt.rcParams.update(saved)


def new_axes(ax: Axes | None, size: tuple[float, float]) -> tuple[Axes, bool]:
    """(``ax``, False), or (the Axes of a new constrained-layout figure of ``size``, True)."""
    if ax is not None:
        return ax, False
    _, new = pyplot().subplots(figsize=size, layout="constrained")
    return new, True


def name(text: object) -> str:
    """A name users chose, as a label: a ``$`` in it is shown, not read as math."""
    return escape.matplotlib(text)


def label_of(metric: MetricLike) -> str:
    """Canonical label of one metric."""
    parsed = parse_metrics(metric)
    if len(parsed) != 1:
        msg = f"this plot takes one metric, got {[m.label for m in parsed]}"
        raise MetricError(msg)
    return parsed[0].label


def bounded(metric: MetricLike) -> bool:
    """Whether the metric lies in [0, 1]."""
    return bool(parse_metrics(metric)[0].family.bounded)


def _inches(figure: Figure, pixels: float) -> float:
    return pixels / figure.dpi


def figure_of(ax: Axes) -> Figure:
    """The (root) figure ``ax`` is drawn on."""
    return cast("Figure", ax.figure)


def legend(
    ax: Axes,
    handles: Sequence[Any],
    labels: Sequence[str],
    *,
    owned: bool,
    title: str | None = None,
) -> Legend | None:
    """A legend that covers no data: below the figure's axes, or beside a user's axes.

    On a figure of our own (``owned``) the legend is a figure legend at the bottom, in as
    many columns as fit the width, and the figure grows by its height: the axes keep
    their size. On axes the user gave, the legend sits to the right of the axes.
    """
    if not handles:
        return None
    if not owned:
        return ax.legend(
            handles,
            labels,
            title=title,
            loc="upper left",
            bbox_to_anchor=(1.02, 1.0),
            borderaxespad=0.0,
        )
    figure = figure_of(ax)
    for most in range(min(len(handles), 6), 0, -1):
        rows = -(-len(handles) // most)
        shown = figure.legend(
            handles,
            labels,
            title=title,
            ncols=-(-len(handles) // rows),  # as few columns as these rows need
            loc="lower center",
            bbox_to_anchor=(0.5, 0.0),
            borderaxespad=0.2,
            columnspacing=1.4,
            handlelength=2.4,
        )
        if most == 1 or shown.get_window_extent().width <= 0.98 * figure.bbox.width:
            break
        shown.remove()
    grow(figure, height=_inches(figure, shown.get_window_extent().height) + _GAP, below=True)
    return shown


def grow(figure: Figure, *, width: float = 0.0, height: float = 0.0, below: bool = False) -> None:
    """Make ``figure`` larger by inches; with ``below``, the new height is kept free at the bottom.

    The axes keep their size: constrained layout lays them out in the area not kept free.
    """
    old_width, old_height = figure.get_size_inches()
    new_height = old_height + height
    figure.set_size_inches(old_width + width, new_height)
    engine: Any = figure.get_layout_engine()  # constrained layout: its set() takes rect
    if engine is None or not hasattr(engine, "set"):
        return
    rect = engine.get().get("rect", (0.0, 0.0, 1.0, 1.0))
    kept = float(rect[1]) * old_height + (height if below else 0.0)
    if kept > 0:
        engine.set(rect=(0.0, kept / new_height, 1.0, 1.0 - kept / new_height))


def widen_for_ticks(ax: Axes) -> None:
    """Widen a figure of our own by its longest y tick label: run names keep the axes' width."""
    figure = figure_of(ax)
    extents = [label.get_window_extent() for label in ax.get_yticklabels() if label.get_text()]
    if extents:
        grow(figure, width=_inches(figure, max(box.width for box in extents)))
