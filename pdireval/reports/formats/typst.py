"""Typst: the paper table as a Typst ``figure`` holding a ``table``, with its legend.

Every text users name (runs, measures of their own, collections, judges) and every
sentence of the legend is written as a Typst string literal (``#"..."``), which Typst
shows as it is: no name can start markup, a label, a reference or code. The table
follows the booktabs convention -- rules above and below, a thinner one under the
header and under each spanning header -- with best values in bold and the marks as
superscripts.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from pdireval._core.errors import ParameterError
from pdireval.reports.formats import Format
from pdireval.reports.levels import Grid, grid_of
from pdireval.reports.numbers import BETTER, WORSE

if TYPE_CHECKING:  # pragma: no cover
    from pdireval.reports.model import Report

__all__ = ["FORMAT"]

_THIN = "0.5pt"  # the rules inside the table; the top and bottom ones are Typst's default


def render(
    report: Report,
    *,
    caption: str | None = None,
    label: str | None = None,
    ci: bool = False,
    digits: int = 4,
    transpose: bool = False,
) -> str:
    """The paper table as Typst markup: a ``figure`` of kind ``table``, its legend
    under the table, ready to paste into a document or to ``#include``.

    Parameters
    ----------
    report : Report
        The report.
    caption : str, optional
        The figure's caption, written as text.
    label : str, optional
        A label to refer to the table with (``@tab:results``): letters, digits and
        ``_``, ``-``, ``:``, ``.``.
    ci : bool, default False
        Each mean with the half-width of its 95% interval (``0.5756 ± 0.0512``).
    digits : int, default 4
        Decimals of each mean.
    transpose : bool, default False
        Measures as rows and runs as columns.

    Returns
    -------
    str
        The Typst markup.

    Examples
    --------
    >>> from pdireval.datasets import example
    >>> report = example().ireval.report(["AP", "P@10"], baseline="medium")
    >>> text = report.to_typst(caption="Effectiveness.", label="tab:runs")
    >>> print(text.splitlines()[0])
    #figure(
    >>> text.rstrip().endswith("<tab:runs>")
    True
    """
    grid = grid_of(report, ci=ci, digits=digits, transpose=transpose)
    legend = report.marks.legend(str, (BETTER, WORSE, "α")) + " Best value per metric in bold."
    legend += "".join(" " + text for text in report.notes)
    if ci:
        legend += " ±: " + report.mean_interval
    lines = [
        "#figure(",
        "  kind: table,",
        "  stack(",
        "    spacing: 0.65em,",
        *("    " + line for line in _table(grid)),
        f"    text(size: 0.8em, {_string(legend)}),",
        "  ),",
    ]
    if caption:
        lines.append(f"  caption: [{_markup(caption)}],")
    lines.append(")" + (f" <{_label(label)}>" if label else ""))
    return "\n".join(lines)


def _string(text: object) -> str:
    r"""``text`` as a Typst string literal: backslash, quote and control characters
    escaped (``\u{..}``), everything else as it is.
    """

    def escaped(char: str) -> str:
        if char in '\\"':
            return "\\" + char
        if char < " " or char == "\x7f":
            return f"\\u{{{ord(char):x}}}"
        return char

    return '"' + "".join(escaped(char) for char in str(text)) + '"'


def _markup(text: object) -> str:
    """``text`` as content: the string literal embedded in markup (``#"..."``)."""
    return "#" + _string(text)


def _label(label: str) -> str:
    """A Typst label: letters, digits and ``_-:.`` (what ``<...>`` accepts)."""
    if not re.fullmatch(r"[A-Za-z_][A-Za-z0-9_:.\-]*", str(label)):
        msg = (
            f"label={label!r}: a Typst label starts with a letter or '_' and holds letters, "
            "digits and '_', '-', ':', '.', e.g. label='tab:results'"
        )
        raise ParameterError(msg)
    return str(label)


def _table(grid: Grid) -> list[str]:
    """The ``table(...)`` call: columns and alignment, the header rows with their
    spans and rules, then the rows (a thin rule above each new group).
    """
    stub = len(grid.corner)
    aligns = ", ".join(["left"] * stub + ["right"] * grid.width)
    lines = [
        "table(",
        f"  columns: {stub + grid.width},",
        f"  align: ({aligns},),",
        "  stroke: none,",
        "  table.hline(),",
        "  table.header(",
        *("    " + line for line in _header(grid)),
        "  ),",
        f"  table.hline(stroke: {_THIN}),",
    ]
    for at, (labels, row) in enumerate(zip(grid.labels, grid.cells, strict=True)):
        if at in grid.breaks:
            lines.append(f"  table.hline(stroke: {_THIN}),")
        cells = [f"[{_markup(text)}]" if text else "[]" for text in labels]
        cells += [_value(text, marks, best) for text, marks, best in row]
        lines.append("  " + ", ".join(cells) + ",")
    return [*lines, "  table.hline(),", "),"]


def _header(grid: Grid) -> list[str]:
    """The header rows: the corner's headers on the last one, each spanning header over
    its columns with a thin rule under it (not under the last row: the header's rule).
    """
    stub = len(grid.corner)
    lines = []
    for depth, spans in enumerate(grid.header):
        last = depth == len(grid.header) - 1
        cells = [f"[{_markup(text)}]" for text in grid.corner] if last else ["[]"] * stub
        rules, column = [], stub
        for text, span in spans:
            body = f"[{_markup(text)}]"
            cells.append(body if span == 1 else f"table.cell(colspan: {span}, align: center){body}")
            if not last and span > 1:
                rules.append(
                    f"table.hline(start: {column}, end: {column + span}, stroke: {_THIN}),"
                )
            column += span
        lines.append(", ".join(cells) + ",")
        lines += rules
    return lines


def _value(text: str, marks: list[tuple[bool, str]], best: bool) -> str:
    """A value cell: the number (bold when best) and its marks as a superscript."""
    if not text:
        return "[]"
    number = f"strong({_string(text)})" if best else _string(text)
    signs = "".join((BETTER if better else WORSE) + letter for better, letter in marks)
    return f"[#{number}" + (f"#super({_string(signs)})" if signs else "") + "]"


FORMAT = Format(
    "typst",
    ".typ",
    "the paper table as a Typst figure, for a paper written in Typst",
    render=render,
    aliases=("typ",),
)
