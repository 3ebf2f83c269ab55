"""LaTeX: the paper table as a booktabs ``table``, sized to fit the column, names
escaped for LaTeX and the marks as superscript triangles.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from pdireval._core import escape
from pdireval._core.errors import ParameterError
from pdireval.reports.formats import Format
from pdireval.reports.levels import Grid, grid_of

if TYPE_CHECKING:  # pragma: no cover
    from pdireval.reports.model import Report

__all__ = ["FORMAT", "LATEX_PACKAGES"]

#: The packages the table needs (its first line names them).
LATEX_PACKAGES = ("booktabs", "amssymb", "graphicx")
_LATEX_NAME = 12  # longer run names are abbreviated in LaTeX (R1, R2, ... and a key)


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
    if abbreviate is None:
        abbreviate = any(len(str(run)) > _LATEX_NAME for run in runs)
    float_env = "table*" if wide else "table"
    lines = [f"% Needs \\usepackage{{{','.join(LATEX_PACKAGES)}}} in the preamble."]
    lines += [rf"\begin{{{float_env}}}", r"\centering"]
    if ci:  # mean +- half-width cells are wide: tighter columns
        lines.append(r"\setlength{\tabcolsep}{4pt}")
    if caption:
        lines.append(rf"\caption{{{escape.latex(caption)}}}")
    if label:
        lines.append(rf"\label{{{_latex_label(label)}}}")
    lines += [
        r"\resizebox{\ifdim\width>\linewidth\linewidth\else\width\fi}{!}{%",
        *_latex_tabular(
            grid_of(report, ci=ci, digits=digits, transpose=transpose, short=abbreviate)
        ),
    ]
    marks = report.marks
    note = [
        marks.legend(
            escape.latex, (r"$^{\blacktriangle}$", r"$^{\blacktriangledown}$", r"$\alpha$")
        )
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


def _latex_label(label: str) -> str:
    r"""A ``\label`` key: letters, digits and ``:-_.`` only (LaTeX reads no escapes there)."""
    if not re.fullmatch(r"[A-Za-z0-9:_.\-]+", str(label)):
        msg = (
            f"label={label!r}: a LaTeX label is letters, digits and ':', '-', '_', '.', "
            "e.g. label='tab:results'"
        )
        raise ParameterError(msg)
    return str(label)


def _latex_tabular(grid: Grid) -> list[str]:
    r"""The ``tabular`` of a paper table: header rows (``\cmidrule`` under each spanning
    header), then the rows; each value is two columns, aligned on the decimal point.
    """
    stub = len(grid.corner)
    lines = [r"\begin{tabular}{" + "l" * stub + "r@{}l" * grid.width + "}", r"\toprule"]
    lines += _latex_header(grid)
    lines.append(r"\midrule")
    for at, (labels, row) in enumerate(zip(grid.labels, grid.cells, strict=True)):
        if at in grid.breaks:
            lines.append(r"\midrule")
        cells = [escape.latex(text) for text in labels]
        for text, marks, best in row:
            cells += _latex_value(text, marks, best)
        lines.append(" & ".join(cells) + r" \\")
    return [*lines, r"\bottomrule", r"\end{tabular}}"]


def _latex_header(grid: Grid) -> list[str]:
    r"""The header rows, a ``\cmidrule`` under each header that spans others (not the last row)."""
    stub = len(grid.corner)
    lines = []
    for depth, spans in enumerate(grid.header):
        last = depth == len(grid.header) - 1
        cells = [escape.latex(text) for text in grid.corner] if last else [""] * stub
        rules, column = [], stub + 1
        for text, span in spans:
            cells.append(rf"\multicolumn{{{2 * span}}}{{c}}{{{escape.latex(text)}}}")
            if not last:
                rules.append(rf"\cmidrule(lr){{{column}-{column + 2 * span - 1}}}")
            column += 2 * span
        lines.append(" & ".join(cells) + r" \\")
        if rules:
            lines.append("".join(rules))
    return lines


def _latex_value(text: str, marks: list[tuple[bool, str]], best: bool) -> list[str]:
    """A value as its two columns: the whole part, then the decimals and the marks."""
    whole, dot, rest = text.partition(".")
    rest = (dot + rest).replace(" ± ", r" $\pm$ ")
    if best and text:
        whole, rest = rf"\textbf{{{whole}}}", rf"\textbf{{{rest}}}" if rest else ""
    signs = "".join(
        (r"\blacktriangle" if better else r"\blacktriangledown")
        + (rf"\mathrm{{{letter}}}" if letter else "")
        for better, letter in marks
    )
    return [whole, rest + (f"$^{{{signs}}}$" if signs else "")]


FORMAT = Format(
    "latex",
    ".tex",
    "the paper table as a LaTeX table (booktabs), for a paper",
    render=render,
    aliases=("tex",),
)
