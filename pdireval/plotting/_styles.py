"""Which run gets which look: colour, marker, line style and hatch, stable as runs are added.

A run's style is chosen by its position in the run order: the order given with ``order=``,
then the runs not named there in the order they first appear in the frame (a categorical
run column: the order of its categories). Position ``i`` gets colour ``i mod 10`` of
:data:`COLOURS` (matplotlib's ``tab10`` with its grey replaced by indigo: grey is kept for
what is not a run, such as the other runs' means behind a panel), a marker that changes
with every block of ten runs, and a solid, dashed, dotted or dash-dotted line -- for bars:
no hatch, ``///``, ``...`` or ``xxx`` -- for the first, second, third and fourth block: no
two of the first 100 runs share both colour and marker, and no two of the first 40 share
colour and line style, or colour and hatch.

Adding runs at the end of the order (``pd.concat([frame, new_runs])``, or names appended
to ``order=``) therefore leaves every earlier run its style. A hash of the name would keep
a style even when runs are removed, but two of ten names would often share a style; the
order keeps both promises at once, and ``order=`` names the runs a figure lacks, so that
several figures of different subsets keep the same styles.
"""

from __future__ import annotations

from collections.abc import Hashable, Iterable, Sequence
from dataclasses import dataclass
from typing import Any

import pandas as pd

from pdireval._core.errors import SchemaError
from pdireval._core.roles import as_column_map
from pdireval.engine.runs import run_order
from pdireval.typing import ColumnsLike as Columns

__all__ = ["REFERENCE", "RunStyle", "drawing_order", "run_styles"]

#: matplotlib's ``tab10`` palette (``C0`` ... ``C9``) with its grey (``C7``) replaced by
#: indigo, written out so that a changed ``axes.prop_cycle`` does not change pdireval's
#: colours. No run is grey: grey is :data:`REFERENCE`, for what is not a run.
COLOURS = (
    "#1f77b4",
    "#ff7f0e",
    "#2ca02c",
    "#d62728",
    "#9467bd",
    "#8c564b",
    "#e377c2",
    "#393b79",
    "#bcbd22",
    "#17becf",
)
MARKERS = ("o", "s", "^", "D", "v", "P", "X", "<", ">", "*")
LINESTYLES = ("-", "--", ":", "-.")
#: The hatch of a run's bars, per block of ten runs, as :data:`LINESTYLES` for its lines.
HATCHES = ("", "///", "...", "xxx")
#: The colour of what is drawn for comparison and is not a run (the other runs' means
#: behind a run's panel); no colour of :data:`COLOURS` is grey.
REFERENCE = "#c8c8c8"
#: Blocks of ten runs shift the marker by this much: a colour meets a new marker in each
#: of the first ten blocks (3 and 10 share no divisor).
_MARKER_SHIFT = 3


@dataclass(frozen=True)
class RunStyle:
    """The look of one run in every figure: a colour, a marker, a line style and a hatch.

    Examples
    --------
    >>> style = RunStyle("#1f77b4", "o", "--", "///")
    >>> style.line()
    {'color': '#1f77b4', 'marker': 'o', 'linestyle': '--'}
    >>> style.fill()
    {'color': '#1f77b4', 'hatch': '///', 'edgecolor': 'white', 'linewidth': 0.0}
    """

    color: str
    marker: str
    linestyle: str
    hatch: str = ""

    def line(self) -> dict[str, Any]:
        """Keyword arguments of ``ax.plot`` that draw a line in this style."""
        return {"color": self.color, "marker": self.marker, "linestyle": self.linestyle}

    def fill(self) -> dict[str, Any]:
        """Keyword arguments of ``ax.bar`` that fill a bar in this style (a white hatch)."""
        return {"color": self.color, "hatch": self.hatch, "edgecolor": "white", "linewidth": 0.0}


def style_at(position: int) -> RunStyle:
    """The style of the run at ``position`` (0-based) of the run order."""
    block = position // len(COLOURS)
    return RunStyle(
        COLOURS[position % len(COLOURS)],
        MARKERS[(position + _MARKER_SHIFT * block) % len(MARKERS)],
        LINESTYLES[block % len(LINESTYLES)],
        HATCHES[block % len(HATCHES)],
    )


def run_styles(runs: Iterable[Hashable]) -> dict[Hashable, RunStyle]:
    """The style of each run, by its position in ``runs``: the styles of pdireval's figures.

    Parameters
    ----------
    runs : iterable of run ids
        The runs in the order that gives them their style (each once). Appending a run
        never changes the style of the runs before it.

    Returns
    -------
    dict
        Run id -> :class:`RunStyle` (``color``, ``marker``, ``linestyle``, ``hatch``), in
        the order of ``runs``; ``style.line()`` gives the keyword arguments of ``ax.plot``,
        ``style.fill()`` those of ``ax.bar``.

    Raises
    ------
    SchemaError
        A run is named twice.

    Examples
    --------
    Draw your own figure in the colours of pdireval's:

    >>> from pdireval.plotting import run_styles
    >>> styles = run_styles(["bm25", "bm25+rerank"])
    >>> styles["bm25+rerank"]
    RunStyle(color='#ff7f0e', marker='s', linestyle='-', hatch='')
    >>> run_styles(["bm25", "bm25+rerank", "dense"])["bm25+rerank"] == styles["bm25+rerank"]
    True
    >>> len({(s.color, s.marker) for s in run_styles(range(20)).values()})
    20
    >>> run_styles(range(20))[17]  # the second block of ten: dashed, hatched
    RunStyle(color='#393b79', marker='o', linestyle='--', hatch='///')
    """
    ordered = list(runs)
    seen: set[Hashable] = set()
    twice = [run for run in ordered if run in seen or seen.add(run)]  # type: ignore[func-returns-value]
    if twice:
        msg = f"runs named more than once in the run order: {twice[:5]}; name each run once"
        raise SchemaError(msg)
    return {run: style_at(i) for i, run in enumerate(ordered)}


def drawing_order(
    frame: pd.DataFrame, columns: Columns, order: Sequence[Hashable] | None
) -> tuple[list[Hashable], dict[Hashable, RunStyle]]:
    """(the runs of ``frame`` in drawing order, the style of every run of the order).

    ``order`` first (runs it names that the frame lacks keep their place and style, so a
    figure of a subset styles its runs as the figure of all runs does), then the frame's
    other runs in the user's order (:func:`~pdireval.engine.runs.run_order`; a categorical's
    unused categories keep their place and style). A frame without a run column has the
    single run ``None``.
    """
    column = as_column_map(columns).resolve(frame).run
    if column is None:
        return [None], {None: style_at(0)}
    values = frame[column]
    found = run_order(frame, column) or []
    present = set(found)
    appearance: list[Any] = found
    if isinstance(values.dtype, pd.CategoricalDtype):  # unused categories keep a style
        appearance = list(values.cat.categories)
    if isinstance(order, str | bytes):
        msg = f"order= takes a list of run ids, got the string {order!r}; write order=[{order!r}]"
        raise SchemaError(msg)
    given = [] if order is None else list(order)
    listed = set(given)
    styles = run_styles(given + [run for run in appearance if run not in listed])
    return [run for run in styles if run in present], styles
