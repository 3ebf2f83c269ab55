"""HTML: a self-contained page (or a notebook's fragment) of the paper table, legend,
comparison and first per-query rows, names escaped for HTML.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from pdireval._core import escape
from pdireval.reports.formats import Format
from pdireval.reports.levels import Grid, grid_of
from pdireval.reports.numbers import BETTER, WORSE, format_value

if TYPE_CHECKING:  # pragma: no cover
    from pdireval.reports.model import Report

__all__ = ["FORMAT", "fragment"]


def render(
    report: Report,
    *,
    ci: bool = False,
    digits: int = 4,
    per_query_rows: int = 20,
    title: str = "Evaluation report",
    transpose: bool = False,
) -> str:
    """A complete HTML page (see :meth:`pdireval.Report.to_html`)."""
    return "\n".join(
        [
            "<!DOCTYPE html>",
            '<html lang="en">',
            "<head>",
            '<meta charset="utf-8">',
            '<meta name="viewport" content="width=device-width, initial-scale=1">',
            f"<title>{escape.html(title)}</title>",
            "</head>",
            '<body style="margin: 1.5em; max-width: 100%">',
            f'<h1 style="font: 600 20px system-ui, sans-serif">{escape.html(title)}</h1>',
            fragment(
                report, ci=ci, digits=digits, per_query_rows=per_query_rows, transpose=transpose
            ),
            "</body>",
            "</html>",
        ]
    )


def fragment(
    report: Report, *, ci: bool, digits: int, per_query_rows: int, transpose: bool = False
) -> str:
    """The report as an HTML fragment (a notebook cell's output)."""
    grid = grid_of(report, ci=ci, digits=digits, transpose=transpose)
    head, body = _html_table(grid)
    plain = len(grid.header) == 1 and not grid.breaks and report.per_query.index.nlevels == 2
    legend = f"{report.legend()} Best value per metric in bold."
    legend += "".join(" " + text for text in report.notes)
    if ci:
        legend += " ±: " + report.mean_interval
    parts = [
        '<div class="pdireval-report">',
        _HTML_STYLE if plain else _HTML_GRID_STYLE,
        '<div class="scroll"><table class="paper">',
        head,
        body + "</table></div>",
        f'<p class="legend">{escape.html(legend)}</p>',
        "<details><summary>Comparisons</summary>",
        '<div class="scroll">',
        report.comparison_text(digits).to_html(
            index=False, border=0, classes=f"ids{3 + len(report.within)}"
        ),
        "</div>",
        f'<p class="legend">{escape.html(report.interval_note())}</p>',
        "</details>",
    ]
    if report.efficiency is not None:
        parts += [
            "<details><summary>Efficiency</summary>",
            '<div class="scroll">',
            report.efficiency_text().to_html(index=False, border=0, classes="ids1"),
            "</div>",
            "</details>",
        ]
    per_query = report.per_query_flat()
    if per_query_rows:
        first_rows = per_query.head(per_query_rows)
        parts += [
            f"<details><summary>Per query (first {len(first_rows)} of {len(per_query)} rows)"
            "</summary>",
            '<div class="scroll">',
            first_rows.to_html(
                index=False,
                border=0,
                classes=f"ids{report.per_query.index.nlevels}",
                float_format=lambda v: format_value(v, digits),
            ),
            "</div>",
            "</details>",
        ]
    parts.append("</div>")
    return "\n".join(parts)


_HTML_STYLE = """<style>
.pdireval-report {font-family: system-ui, -apple-system, "Segoe UI", Helvetica, Arial,
  sans-serif; font-size: 14px; color: #1f2328; line-height: 1.4; max-width: 100%}
.pdireval-report .scroll {overflow-x: auto; max-width: 100%}
.pdireval-report table {border-collapse: collapse; margin: 0.4em 0}
.pdireval-report th, .pdireval-report td {padding: 3px 10px; text-align: right;
  font-variant-numeric: tabular-nums; border: none; white-space: nowrap}
.pdireval-report thead th {font-weight: 600; vertical-align: bottom; white-space: normal}
.pdireval-report tbody th {font-weight: normal; text-align: left}
.pdireval-report tbody th, .pdireval-report .ids3 td:nth-child(-n+2),
.pdireval-report .ids1 td:first-child {white-space: nowrap}
.pdireval-report thead tr {border-bottom: 1px solid #888}
.pdireval-report table.paper {border-top: 2px solid #444; border-bottom: 2px solid #444}
.pdireval-report tbody tr:nth-child(even) {background: #f6f8fa}
.pdireval-report .ids3 :is(td, th):nth-child(-n+3),
.pdireval-report .ids2 :is(td, th):nth-child(-n+2),
.pdireval-report .ids1 :is(td, th):first-child,
.pdireval-report table.paper th:first-child {text-align: left}
.pdireval-report .mark {display: inline-block; min-width: 1.2em; text-align: left}
/* the best values bold by a stroke: the digits keep their widths, the points their places */
.pdireval-report table.paper td b {font-weight: inherit;
  -webkit-text-stroke: 0.04em currentColor}
.pdireval-report .legend {font-size: 12px; color: #57606a; margin: 0.2em 0 0.8em;
  max-width: 60em}
.pdireval-report summary {cursor: pointer; font-weight: 600; margin-top: 0.6em}
</style>"""


_HTML_GRID_STYLE = _HTML_STYLE.replace(
    "</style>",
    ".pdireval-report th.span {text-align: center; background: linear-gradient(#888, #888)"
    " no-repeat center bottom / calc(100% - 16px) 1px}\n"
    ".pdireval-report thead tr.spans {border-bottom: none}\n"
    ".pdireval-report tr.group {border-top: 1px solid #888}\n"
    + "".join(
        f".pdireval-report .ids{n} :is(td, th):nth-child(-n+{n}) {{text-align: left}}\n"
        for n in range(3, 8)
    )
    + "</style>",
)


def _html_table(grid: Grid) -> tuple[str, str]:
    """The ``<thead>`` and ``<tbody>`` of a paper table (names escaped)."""
    head, body = _html_head(grid), _html_body(grid)
    return f"<thead>{''.join(head)}</thead>", "<tbody>" + "".join(body) + "</tbody>"


def _html_head(grid: Grid) -> list[str]:
    """The header rows: the spanning headers, then the row-label and value columns' names."""
    stub = len(grid.corner)
    head = []
    for spans in grid.header[:-1]:
        cells = [f'<th colspan="{stub}"></th>'] if stub > 1 else ["<th></th>"]
        cells += [_html_span(text, span) for text, span in spans]
        head.append('<tr class="spans">' + "".join(cells) + "</tr>")
    cells = [f'<th style="text-align:left">{escape.html(h)}</th>' for h in grid.corner]
    cells += [
        f'<th style="text-align:right;padding-right:calc(10px + {_marks_width(grid, at)}em)">'
        f"{escape.html(text)}</th>"
        for at, (text, _) in enumerate(grid.header[-1])
    ]
    head.append("<tr>" + "".join(cells) + "</tr>")
    return head


def _marks_width(grid: Grid, at: int) -> float:
    """The width in em of the marks after the values of column ``at``: the widest of its
    cells, so that every value, and the header, end at one place.
    """
    widths = [sum(1.0 + 0.6 * len(x) for _, x in marks) for _, marks, _ in _column(grid, at)]
    return round(max([1.2, *widths]), 1)


def _column(grid: Grid, at: int) -> list[tuple[str, list[tuple[bool, str]], bool]]:
    """The cells of value column ``at``."""
    return [row[at] for row in grid.cells]


def _html_span(text: str, span: int) -> str:
    """A spanning header over ``span`` value columns."""
    if span > 1:
        return f'<th colspan="{span}" class="span">{escape.html(text)}</th>'
    return f'<th class="span">{escape.html(text)}</th>'


def _html_body(grid: Grid) -> list[str]:
    """The rows: labels, then each value with its marks; a group's first row ruled."""
    widths = [_marks_width(grid, at) for at in range(grid.width)]
    body = []
    for at, (labels, row) in enumerate(zip(grid.labels, grid.cells, strict=True)):
        shown = [f'<th scope="row">{escape.html(label)}</th>' for label in labels]
        shown += [
            _html_value(text, marks, best, widths[at]) for at, (text, marks, best) in enumerate(row)
        ]
        start = ' class="group"' if at in grid.breaks else ""
        body.append(f"<tr{start}>" + "".join(shown) + "</tr>")
    return body


def _html_value(text: str, marks: list[tuple[bool, str]], best: bool, room: float) -> str:
    """A value's cell: the value (bold when best), then its coloured marks in a box as
    wide as the column's widest marks, so that the values of a column end at one place.
    """
    value = f"<b>{escape.html(text)}</b>" if best and text else escape.html(text)
    signs = "".join(
        f'<span style="color:{"#1a7f37" if better else "#cf222e"}">'
        f"{BETTER if better else WORSE}{letter}</span>"
        for better, letter in marks
    )
    return f'<td>{value}<span class="mark" style="width:{room}em">{signs}</span></td>'


FORMAT = Format(
    "html",
    ".html",
    "a self-contained HTML page of the report, for a browser or a notebook",
    render=render,
    aliases=("htm",),
)
