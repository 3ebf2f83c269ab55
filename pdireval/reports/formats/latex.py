"""LaTeX: the paper table as a booktabs ``table``, sized to fit the column, names
escaped for LaTeX and the marks as superscript triangles.
"""

from __future__ import annotations

import dataclasses
import re
from typing import TYPE_CHECKING

from pdireval._core import escape
from pdireval._core.errors import ParameterError
from pdireval.reports.formats import Format
from pdireval.reports.levels import Grid, grid_of
from pdireval.reports.numbers import MINUS

if TYPE_CHECKING:  # pragma: no cover
    from pdireval.reports.model import Report
    from pdireval.reports.numbers import Marks

__all__ = ["FORMAT", "LATEX_PACKAGES", "estimated_width"]

#: The packages the table needs (its first line names them).
LATEX_PACKAGES = ("booktabs", "amssymb", "graphicx")
_LATEX_NAME = 12  # longer run names are abbreviated in LaTeX (R1, R2, ... and a key)
#: Points: the width of a column of a two-column article (3.5 in), and of its two
#: columns together (``table*``), each at 10 pt.
_COLUMN, _PAGE = 241.0, 505.0
_SMALLEST = 0.7  # a table scaled below this (text under 7 pt) gets a hint in a comment
_CHAR, _MARK = 5.0, 6.0  # points: a character of 10 pt text; a superscript mark


def render(
    report: Report,
    *,
    caption: str | None = None,
    label: str | None = None,
    ci: bool = False,
    digits: int = 4,
    abbreviate: bool | None = None,
    wide: bool = False,
    transpose: bool = False,
) -> str:
    """The paper table as a LaTeX ``table`` (see :meth:`pdireval.Report.to_latex`)."""
    runs = list(report.summary.index)
    grid, abbreviate, numbered = _layout(report, ci, digits, abbreviate, transpose)
    marks = report.marks
    float_env = "table*" if wide else "table"
    lines = [f"% Needs \\usepackage{{{','.join(LATEX_PACKAGES)}}} in the preamble."]
    lines += [rf"\begin{{{float_env}}}", r"\centering"]
    if ci:  # mean +- half-width cells are wide: tighter columns
        lines.append(r"\setlength{\tabcolsep}{4pt}")
    if caption:
        lines.append(rf"\caption{{{escape.latex(caption)}}}")
    if label:
        lines.append(rf"\label{{{_latex_label(label)}}}")
    lines += _size_hint(grid, ci=ci, wide=wide, transpose=transpose, split=numbered)
    lines += [
        r"\resizebox{\ifdim\width>\linewidth\linewidth\else\width\fi}{!}{%",
        *_latex_tabular(grid, split=numbered),
    ]
    note = [
        _marks_legend(marks, numbered)
        + " Best value per metric in bold."
        + "".join(" " + escape.latex(text) for text in report.notes)
    ]
    if ci:
        note.append(r"$\pm$: " + escape.latex(report.mean_interval))
    if abbreviate:
        key = "; ".join(f"R{i}~= {escape.latex(run)}" for i, run in enumerate(runs, start=1))
        note.insert(0, rf"Runs: {key}.\par")
    lines += [
        r"\par\smallskip\begin{minipage}{\linewidth}\footnotesize\raggedright",
        *note,
        r"\end{minipage}",
        rf"\end{{{float_env}}}",
    ]
    return "\n".join(lines)


def _layout(
    report: Report, ci: bool, digits: int, abbreviate: bool | None, transpose: bool
) -> tuple[Grid, bool, bool]:
    """The grid of the table, whether its runs are abbreviated, and whether its marks
    carry run numbers (abbreviated runs compared with several baselines).
    """
    if abbreviate is None:
        abbreviate = any(len(str(run)) > _LATEX_NAME for run in report.summary.index)
    numbered = abbreviate and len(report.marks.baselines) > 1
    grid = grid_of(report, ci=ci, digits=digits, transpose=transpose, short=abbreviate)
    if numbered:
        grid = _numbered(grid, report, transpose)
    return grid, abbreviate, numbered


def estimated_width(
    report: Report,
    *,
    ci: bool = False,
    digits: int = 4,
    abbreviate: bool | None = None,
    transpose: bool = False,
) -> float:
    """The natural width in points, at 10 pt, of the tabular :meth:`pdireval.Report.to_latex`
    writes with these options, estimated from its texts (a character 5 pt, a mark 6 pt)
    and the space between columns; within about 10% of what TeX typesets.
    """
    grid, _, numbered = _layout(report, ci, digits, abbreviate, transpose)
    return _grid_width(grid, ci=ci, split=numbered)


def _marks_legend(marks: Marks, numbered: bool) -> str:
    """The sentence under the table that explains the marks; ``numbered``: the marks
    carry the number of the run they compare with, so no baseline is named again.
    """
    triangles = (r"$^{\blacktriangle}$", r"$^{\blacktriangledown}$", r"$\alpha$")
    if not numbered:
        return marks.legend(escape.latex, triangles)
    one = dataclasses.replace(marks, baselines=(None,))  # the sentence of one baseline
    numbered_triangles = (r"$^{\blacktriangle n}$", r"$^{\blacktriangledown n}$", r"$\alpha$")
    return one.legend(lambda _: r"R$n$", numbered_triangles)


def _numbered(grid: Grid, report: Report, transpose: bool) -> Grid:
    """The grid of abbreviated runs compared with several baselines: each mark carries the
    number of its baseline run (▲3: better than R3), the runs are R1, R2, ... and
    ``(baseline)`` is written only when some runs are not baselines.
    """
    runs = list(report.summary.index)
    marks = report.marks
    number = {
        marks.letter(at): str(runs.index(base) + 1)
        for at, base in enumerate(marks.baselines)
        if base in runs
    }
    every = len(marks.baselines) >= len(runs) - 1  # all pairs: every run but the last
    names = [
        f"R{at}" + ("" if every or run not in marks.baselines else " (baseline)")
        for at, run in enumerate(runs, start=1)
    ]
    cells = [
        [
            (text, [(better, number.get(x, x)) for better, x in signs], best)
            for text, signs, best in row
        ]
        for row in grid.cells
    ]
    if transpose:
        return dataclasses.replace(grid, header=[[(name, 1) for name in names]], cells=cells)
    return dataclasses.replace(grid, labels=[[name] for name in names], cells=cells)


def _grid_width(grid: Grid, *, ci: bool, split: bool) -> float:
    """The estimated natural width in points of the tabular of ``grid`` (see
    :func:`estimated_width`).
    """
    separation = 2 * (4.0 if ci else 6.0)
    stub = sum(
        max(len(text) for text in column) * _CHAR + separation
        for column in zip(grid.corner, *grid.labels, strict=False)
    )
    headers = [text for text, _ in grid.header[-1]]
    width = stub
    for at, header in enumerate(headers):
        values = [row[at] for row in grid.cells]
        number = max((len(text) for text, _, _ in values), default=0) * _CHAR
        signs = max((sum(_MARK + 3.5 * len(x) for _, x in m) for _, m, _ in values), default=0)
        if split:  # the header is over the number only
            width += max(number, len(header) * _CHAR) + signs + separation
        else:
            width += max(number + signs, len(header) * _CHAR) + separation
    return width


def _size_hint(grid: Grid, *, ci: bool, wide: bool, transpose: bool, split: bool) -> list[str]:
    """A comment above a table that a column would scale below 70%: how to make it fit."""
    width = _grid_width(grid, ci=ci, split=split)
    room = _PAGE if wide else _COLUMN
    if width * _SMALLEST <= room:
        return []
    scale = f"{100 * room / width:.0f}%"
    where = "across a two-column page" if wide else "in a column of a two-column paper"
    ways = [] if wide else ["wide=True (a table* across both columns)"]
    if not transpose and len(grid.labels) < len(grid.header[-1]) * len(grid.header):
        ways.append("transpose=True (a row per metric, a column per run)")
    ways.append("fewer measures or collections" + (", or ci=False" if ci else ""))
    return [
        f"% This table is about {width:.0f}pt wide: {where} ({room:.0f}pt) it is scaled "
        f"to about {scale}. Try {'; '.join(ways)}."
    ]


def _latex_label(label: str) -> str:
    r"""A ``\label`` key: letters, digits and ``:-_.`` only (LaTeX reads no escapes there)."""
    if not re.fullmatch(r"[A-Za-z0-9:_.\-]+", str(label)):
        msg = (
            f"label={label!r}: a LaTeX label is letters, digits and ':', '-', '_', '.', "
            "e.g. label='tab:results'"
        )
        raise ParameterError(msg)
    return str(label)


def _latex_tabular(grid: Grid, *, split: bool = False) -> list[str]:
    r"""The ``tabular`` of a paper table: header rows (``\cmidrule`` under each spanning
    header), then the rows; each value is two columns, aligned on the decimal point, and
    with ``split`` a third for the marks, so that the header stands over the number.
    """
    stub = len(grid.corner)
    value = "r@{}l@{}l" if split else "r@{}l"
    lines = [r"\begin{tabular}{" + "l" * stub + value * grid.width + "}", r"\toprule"]
    lines += _latex_header(grid, split=split)
    lines.append(r"\midrule")
    for at, (labels, row) in enumerate(zip(grid.labels, grid.cells, strict=True)):
        if at in grid.breaks:
            lines.append(r"\midrule")
        cells = [escape.latex(text) for text in labels]
        for text, marks, best in row:
            whole, rest, signs = _latex_value(text, marks, best)
            cells += [whole, rest, signs] if split else [whole, rest + signs]
        lines.append(" & ".join(cells) + r" \\")
    return [*lines, r"\bottomrule", r"\end{tabular}}"]


def _latex_header(grid: Grid, *, split: bool = False) -> list[str]:
    r"""The header rows, a ``\cmidrule`` under each header that spans others (not the last
    row); with ``split`` each metric's name is right-aligned over its number, as the
    numbers are, and the marks' column has no header.
    """
    stub, per = len(grid.corner), 3 if split else 2
    lines = []
    for depth, spans in enumerate(grid.header):
        last = depth == len(grid.header) - 1
        cells = [escape.latex(text) for text in grid.corner] if last else [""] * stub
        rules, column = [], stub + 1
        for text, span in spans:
            name = escape.latex(text)
            if split and last:
                cells += _number_header(name, grid, column - stub - 1)
            else:
                cells.append(rf"\multicolumn{{{per * span}}}{{c}}{{{name}}}")
            if not last:
                rules.append(rf"\cmidrule(lr){{{column}-{column + per * span - 1}}}")
            column += per * span
        lines.append(" & ".join(cells) + r" \\")
        if rules:
            lines.append("".join(rules))
    return lines


def _number_header(name: str, grid: Grid, at: int) -> list[str]:
    r"""A metric's header over its number, its right end where the longest decimals end,
    written in the columns of the integer part and the decimals: the decimals' cell is as
    wide as those decimals and draws the name leftwards (``\llap``), the integer part's
    cell is at least as wide as the rest of the name, so the decimals never move right of
    the point and the marks' column, without a header, follows the numbers closely.
    """
    values = [row[at // 3] for row in grid.cells]
    rests = [_latex_value(text, [], True)[1] for text, _, best in values if text]
    widest = max(rests, key=len, default="")
    return [
        rf"\setbox0\hbox{{{widest}}}\hphantom{{{name}}}\kern-\wd0",
        rf"\hphantom{{{widest}}}\llap{{{name}}}",
        "",
    ]


def _latex_value(text: str, marks: list[tuple[bool, str]], best: bool) -> tuple[str, str, str]:
    """A value as its whole part, its decimals, and its marks."""
    whole, dot, rest = text.partition(".")
    whole = whole.replace(MINUS, "$-$")  # pdflatex has no glyph for U+2212 in text
    rest = (dot + rest).replace(" ± ", r" $\pm$ ")
    if best and text:
        whole, rest = rf"\textbf{{{whole}}}", rf"\textbf{{{rest}}}" if rest else ""
    signs = "".join(
        (r"\blacktriangle" if better else r"\blacktriangledown")
        + (rf"\mathrm{{{letter}}}" if letter else "")
        for better, letter in marks
    )
    return whole, rest, (f"$^{{{signs}}}$" if signs else "")


FORMAT = Format(
    "latex",
    ".tex",
    "the paper table as a LaTeX table (booktabs), for a paper",
    render=render,
    aliases=("tex",),
)
