"""The Excel rendering of a :class:`~pdireval.Report` (openpyxl, imported here only).

Values stay numbers: what a reader sees -- four decimals, the ▲/▼ marks after a
significant value, ``<0.001`` for tiny p-values -- lives in each cell's number format,
so the sheet still sorts, sums and charts. One named font throughout (LibreOffice and
Excel both have Arial or a metric twin), column widths fitted to the bold headers.
"""

from __future__ import annotations

from collections.abc import Hashable
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from pdireval.io import workbook
from pdireval.io.workbook import NAME_WIDTH, Sheet, id_text, letter, plain
from pdireval.reports.formats import Format
from pdireval.reports.levels import cell_key, grid_of
from pdireval.reports.numbers import BETTER, WORSE, best_runs, format_p, p_decimals
from pdireval.stats.comparison import COMPARISON_COLUMNS

if TYPE_CHECKING:  # pragma: no cover
    from pdireval.reports.model import Report

__all__ = ["FORMAT", "write_workbook"]

GREEN, RED = "D8F0DC", "F9D7D9"


def _number(digits: int, suffix: str = "") -> str:
    """A number format with ``digits`` decimals and a literal suffix (the marks)."""
    quoted = f'"{suffix}"' if suffix else ""
    return ("0." + "0" * digits if digits else "0") + quoted


def _p_format(value: float) -> str:
    """Journal style: ``<0.001``, else three significant digits."""
    if value < 0.001:
        return '"<0.001"'
    decimals = p_decimals(value)
    return "0." + "0" * decimals if decimals else "0"


def write_workbook(report: Report, path: Path, digits: int, *, transpose: bool = False) -> Path:
    """Write ``report`` to ``path`` (see :meth:`pdireval.Report.to_excel`)."""
    openpyxl = workbook.openpyxl("Report.to_excel")
    book = openpyxl.Workbook()
    _results(book, report, digits, transpose)
    _comparisons(book, report, digits)
    _per_query(book, report, digits)
    if report.efficiency is not None:
        _efficiency(book, report)
    about = Sheet(book, "About")
    about.header(["Item", "Value"], text_columns=2)
    for row, (item, value) in enumerate(report.about.itertuples(index=False), start=2):
        about.cell(row, 1, item)
        about.cell(row, 2, value, wrap=70)
    about.finish(len(report.about), 2, "A2")
    book.save(path)
    return path


def _results(book: Any, report: Report, digits: int, transpose: bool = False) -> None:
    from openpyxl.utils import get_column_letter

    sheet = Sheet(book, "Results")
    grid = grid_of(report, ci=False, digits=digits, transpose=transpose)
    stub, depth = len(grid.corner), len(grid.header)
    for row, spans in enumerate(grid.header[:-1], start=1):  # collections over metrics
        column = stub + 1
        for text, span in spans:
            sheet.cell(row, column, text, bold=True, center=True, shown="")
            if span > 1:
                sheet.sheet.merge_cells(
                    start_row=row, start_column=column, end_row=row, end_column=column + span - 1
                )
            column += span
    last = [*grid.corner, *(text for text, _ in grid.header[-1])]
    sheet.header(last, text_columns=stub, row=depth)
    values = report.summary.to_numpy(dtype=np.float64)
    if transpose:
        values = values.T
    keys = [cell_key(label) for label in report.summary.columns]
    runs = list(report.summary.index)
    marks = report.marks
    for at, (labels, cells) in enumerate(zip(grid.labels, grid.cells, strict=True)):
        row = depth + 1 + at
        for column, label in enumerate(labels, start=1):
            sheet.cell(row, column, label, wrap=NAME_WIDTH)
        for column, (_, _, best) in enumerate(cells):
            run, key = (runs[column], keys[at]) if transpose else (runs[at], keys[column])
            value = plain(values[at, column])
            text = marks.text(run, key)
            direction = marks.direction(run, key)
            shown = "" if value is None else f"{value:.{digits}f}{text}"
            sheet.cell(
                row,
                stub + 1 + column,
                value,
                format=_number(digits, text),
                bold=best,
                fill=GREEN if direction > 0 else RED if direction < 0 else None,
                shown=shown,
                right=True,
            )
    rows = len(grid.labels)
    sheet.finish(rows, stub + grid.width, f"{get_column_letter(stub + 1)}{depth + 1}", depth)
    note = report.legend() + " Best value per metric in bold."
    note += "".join(" " + text for text in report.notes)
    sheet.note(depth + rows + 2, note, stub + grid.width)


def _best(report: Report) -> dict[str, set[Hashable]]:
    return best_runs(report.summary)


def _comparisons(book: Any, report: Report, digits: int) -> None:
    sheet = Sheet(book, "Comparisons")
    table = report.comparison
    risk = "urisk" in table.columns
    names = _comparison_names(report, risk)
    ids = len(report.within) + 3
    sheet.header(names, text_columns=ids)
    value = _number(digits)
    signed = f'+{value};"−"{value};{value}'
    places = [table[name].tolist() for name in report.within]
    columns = [*COMPARISON_COLUMNS, *(("urisk", "trisk") if risk else ())]
    records: list[Any] = list(table[columns].itertuples(index=False))
    for row, record in enumerate(records, start=2):
        cells: list[tuple[Any, dict[str, Any]]] = [
            *((id_text(place[row - 2]), {"wrap": NAME_WIDTH}) for place in places),
            *_comparison_cells(record, value, signed),
        ]
        if risk:
            cells += _risk_cells(record, signed)
        for column, (content, style) in enumerate(cells, start=1):
            _styled_number(content, style, digits)
            sheet.cell(row, column, content, right=column > ids, **style)
    sheet.finish(len(table), len(names), f"{letter(ids + 1)}2")
    sheet.note(len(table) + 3, f"{report.legend()} {report.interval_note()}", len(names))


def _comparison_names(report: Report, risk: bool) -> list[str]:
    """The headers of the comparisons sheet: the places, the comparison, the risk."""
    names = [
        *(str(name) for name in report.within), "Run", "Baseline", "Metric", "Mean",
        "Baseline mean", "Δ", "Δ %", "Δ CI low", "Δ CI high", "p", "p (adjusted)",
        "Significant", "Effect size (d)", "Wins", "Ties", "Losses",
    ]  # fmt: skip
    if risk:
        names += [f"URisk (α = {report.settings.get('risk alpha'):g})", "TRisk"]
    return names


def _comparison_cells(record: Any, value: str, signed: str) -> list[tuple[Any, dict[str, Any]]]:
    """One comparison's cells from the run on, each with its style (``p``: a p-value)."""
    better = record.significant and record.delta > 0
    worse = record.significant and record.delta < 0
    fill = GREEN if better else RED if worse else None
    return [
        (id_text(record.run), {"wrap": NAME_WIDTH}),
        (id_text(record.baseline), {"wrap": NAME_WIDTH}),
        (str(record.metric), {}),
        (plain(record.mean), {"format": value}),
        (plain(record.baseline_mean), {"format": value}),
        (plain(record.delta), {"format": signed, "fill": fill, "bold": record.significant}),
        (plain(record.relative_delta), {"format": '+0.0%;"−"0.0%;0.0%'}),
        (plain(record.ci_low), {"format": signed}),
        (plain(record.ci_high), {"format": signed}),
        (plain(record.p_value), {"p": True}),
        (plain(record.p_adjusted), {"p": True, "fill": fill, "bold": record.significant}),
        ((BETTER if better else WORSE) if record.significant else "", {"fill": fill}),
        (plain(record.effect_size), {"format": "0.00"}),
        (int(record.wins), {}),
        (int(record.ties), {}),
        (int(record.losses), {}),
    ]


def _risk_cells(record: Any, signed: str) -> list[tuple[Any, dict[str, Any]]]:
    """The URisk and TRisk cells of one comparison."""
    return [
        (plain(record.urisk), {"format": signed}),
        (plain(record.trisk), {"format": '+0.00;"−"0.00;0.00'}),
    ]


def _styled_number(content: Any, style: dict[str, Any], digits: int) -> None:
    """Complete ``style`` in place: a p-value's format and text, a number's text."""
    if style.pop("p", False) and isinstance(content, float):
        style["format"] = _p_format(content)
        style["shown"] = format_p(content)
    elif isinstance(content, float) and "format" in style:
        style.setdefault("shown", f"+{content:.{digits}f}")


def _efficiency(book: Any, report: Report) -> None:
    sheet = Sheet(book, "Efficiency")
    table = report.efficiency
    assert table is not None  # the sheet is written only for timed runs
    names = ["Run", "Queries", "Mean (ms)", "Median (ms)", "p95 (ms)", "p99 (ms)", "Queries/s"]
    sheet.header(names)
    for row, (run, stats) in enumerate(table.iterrows(), start=2):
        sheet.cell(row, 1, id_text(run), wrap=NAME_WIDTH)
        sheet.cell(row, 2, int(stats["queries"]), right=True)
        for column, name in enumerate(
            ("latency_mean", "latency_median", "latency_p95", "latency_p99"), start=3
        ):
            value = plain(1000 * stats[name])
            sheet.cell(row, column, value, format="0.0", right=True, shown=f"{value}")
        sheet.cell(row, 7, plain(stats["qps"]), format="0.0", right=True)
    sheet.finish(len(table), len(names), "B2")


def _per_query(book: Any, report: Report, digits: int) -> None:
    sheet = Sheet(book, "Per query")
    flat = report.per_query_flat()
    ids = report.per_query.index.nlevels  # metric, [judge, collection, seed,] query
    places = [str(name) for name in report.per_query.index.names[1:-1]]
    names = ["Metric", *places, "Query", *(str(name) for name in flat.columns[ids:])]
    sheet.header(names, text_columns=ids)
    value = _number(digits)
    signed = f'+{value};"−"{value};{value}'
    first_delta = ids + len(report.summary) + 1  # runs' values, then their differences
    for row, record in enumerate(flat.itertuples(index=False), start=2):
        sheet.cell(row, 1, str(record[0]))
        for column in range(2, ids + 1):
            sheet.cell(row, column, id_text(record[column - 1]))
        for column, number in enumerate(record[ids:], start=ids + 1):
            content = plain(number)
            shown = "" if content is None else f"+{float(content):.{digits}f}"
            style = signed if column >= first_delta else value
            sheet.cell(row, column, content, format=style, right=True, shown=shown)
    sheet.finish(len(flat), len(names), f"{letter(ids + 1)}2")


def _write(report: Report, path: str | Path, *, digits: int = 4, transpose: bool = False) -> Path:
    return write_workbook(report, Path(path), digits, transpose=transpose)


FORMAT = Format(
    "excel",
    ".xlsx",
    "an Excel workbook of the report (numbers stay numbers), for a spreadsheet",
    write=_write,
    aliases=("xlsx",),
)
