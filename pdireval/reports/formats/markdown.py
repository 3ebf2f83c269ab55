"""Markdown: the paper table, its legend, the comparison (and the per-query table) as
GitHub-flavoured Markdown tables, every cell escaped for Markdown.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

import pandas as pd

from pdireval._core import escape
from pdireval.reports.formats import Format
from pdireval.reports.levels import Grid, grid_of
from pdireval.reports.numbers import BETTER, WORSE, format_value

if TYPE_CHECKING:  # pragma: no cover
    from pdireval.reports.model import Report

__all__ = ["FORMAT"]


def render(
    report: Report,
    *,
    ci: bool = False,
    digits: int = 4,
    per_query: bool = False,
    transpose: bool = False,
) -> str:
    """The report as GitHub-flavoured Markdown (see :meth:`pdireval.Report.to_markdown`)."""
    grid = grid_of(report, ci=ci, digits=digits, transpose=transpose)
    numeric = [False] * len(grid.corner) + [True] * grid.width
    out = [
        "## Results",
        "",
        _markdown_rows(_grid_header(grid), _grid_rows(grid), numeric=numeric),
        "",
        _legend(report, ci),
        "",
        "## Comparisons",
        "",
        _markdown_frame(report.comparison_text(digits), [str(n) for n in report.within]),
        "",
        report.interval_note(),
        "",
    ]
    if report.efficiency is not None:
        out += ["## Efficiency", "", _markdown_frame(report.efficiency_text()), ""]
    if per_query:
        out += ["## Per query", "", _per_query_table(report, digits), ""]
    return "\n".join(out)


def _grid_header(grid: Grid) -> list[str]:
    """The paper table's one header row, spanning headers repeated: "robust04 / AP"."""
    header = [escape.markdown(text) for text in grid.corner]
    for column in range(grid.width):
        parts = [_covering(row, column) for row in grid.header]
        header.append(" / ".join(escape.markdown(part) for part in parts))
    return header


def _grid_rows(grid: Grid) -> list[list[str]]:
    """The paper table's rows: labels escaped, best values in bold, marks after."""
    return [
        [
            *(escape.markdown(label) for label in labels),
            *((f"**{text}**" if best and text else text) + _mark_text(marks)
              for text, marks, best in cells),
        ]
        for labels, cells in zip(grid.labels, grid.cells, strict=True)
    ]  # fmt: skip


def _legend(report: Report, ci: bool) -> str:
    """The sentences under the paper table: the marks, bold, the notes and the ±."""
    legend = report.marks.legend(escape.markdown) + " Best value per metric in bold."
    legend += "".join(" " + escape.markdown(text) for text in report.notes)
    if ci:
        legend += " ±: " + report.mean_interval
    return legend


def _per_query_table(report: Report, digits: int) -> str:
    """The per-query table as Markdown, values with ``digits`` decimals."""
    flat = report.per_query_flat()
    text = flat.astype(object).map(
        lambda v: format_value(v, digits) if isinstance(v, float) else str(v)
    )
    places = [str(name) for name in report.per_query.index.names[1:-1]]
    return _markdown_frame(text, places)


def _covering(row: list[tuple[str, int]], column: int) -> str:
    """The text of the header that spans value column ``column`` in a header row."""
    end = 0
    for text, span in row:
        end += span
        if column < end:
            return text
    return ""


def _mark_text(marks: list[tuple[bool, str]]) -> str:
    """Marks as plain text: ``▲``, ``▲a▼b``."""
    return "".join((BETTER if better else WORSE) + letter for better, letter in marks)


def _markdown_rows(
    header: Sequence[str], rows: Sequence[Sequence[str]], numeric: list[bool]
) -> str:
    """A Markdown table of cells already written for Markdown (names escaped)."""
    lines = ["| " + " | ".join(header) + " |"]
    lines.append("|" + "|".join("---:" if number else "---" for number in numeric) + "|")
    lines += ["| " + " | ".join(row) + " |" for row in rows]
    return "\n".join(lines)


def _markdown_frame(frame: pd.DataFrame, places: Sequence[str] = ()) -> str:
    """A table of text cells as Markdown, every cell escaped (names users chose are in
    it); columns other than names (and the ``places``: judge, collection, seed) are
    right-aligned.
    """
    names = ("Run", "Baseline", "Metric", "metric", "query", *places)
    numeric = [str(column) not in names for column in frame.columns]
    rows = [[escape.markdown(value) for value in row] for row in frame.itertuples(index=False)]
    header = [escape.markdown(column) for column in frame.columns]
    return _markdown_rows(header, rows, numeric)


def table(frame: pd.DataFrame) -> str:
    """A plain table as Markdown (numbers with four decimals, names escaped)."""
    shown = frame.reset_index() if frame.index.name or frame.index.nlevels > 1 else frame
    text = shown.astype(object).map(
        lambda v: format_value(v, 4) if isinstance(v, float) else str(v)
    )
    return _markdown_frame(text)


FORMAT = Format(
    "markdown",
    ".md",
    "the paper table, legend and comparison as Markdown, for a README or an issue",
    render=render,
    table=table,
    aliases=("md",),
)
