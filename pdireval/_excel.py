"""The Excel rendering of a :class:`~pdireval.Report` (openpyxl, imported here only).

Values stay numbers: what a reader sees -- four decimals, the ▲/▼ marks after a
significant value, ``<0.001`` for tiny p-values -- lives in each cell's number format,
so the sheet still sorts, sums and charts. One named font throughout (LibreOffice and
Excel both have Arial or a metric twin), column widths fitted to the bold headers.
"""

from __future__ import annotations

import math
import re
from collections.abc import Hashable
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd

from pdireval._errors import MissingDependencyError
from pdireval._escape import excel_is_formula, excel_text
from pdireval._format import BETTER, WORSE, best_runs, format_p, p_decimals

if TYPE_CHECKING:  # pragma: no cover
    from pdireval._report import Report

__all__ = ["write_workbook"]

FONT = "Arial"
GREEN, RED = "D8F0DC", "F9D7D9"
_FILTER_FROM = 10  # rows: a filter on a shorter table only gets in the way


def _openpyxl() -> Any:
    try:
        import openpyxl
    except ImportError as error:  # pragma: no cover - openpyxl is in the test extra
        msg = (
            "Report.to_excel needs openpyxl, which is not installed; install it with "
            "pip install 'pdireval[excel]' (or pip install openpyxl)"
        )
        raise MissingDependencyError(msg) from error
    return openpyxl


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


def _id(value: Any) -> Any:
    """An id cell: a whole number when the id is one written plainly ("401"), else text."""
    if isinstance(value, str) and re.fullmatch(r"-?[1-9][0-9]{0,14}|0", value):
        return int(value)
    return _plain(value)


def _plain(value: Any) -> Any:
    """A cell value: Python scalars, None for missing or infinite numbers."""
    if isinstance(value, np.generic):
        value = value.item()
    if value is None or value is pd.NA:
        return None
    if isinstance(value, float) and not math.isfinite(value):
        return None
    if isinstance(value, bool | int | float | str):
        return value
    return str(value)


def _written(cell: Any, value: Any) -> Any:
    """``cell`` holding ``value``; a text a spreadsheet would read as a formula (``=...``,
    ``+...``, ``-...``, ``@...``) is stored as text and shown as typed.
    """
    if isinstance(value, str):
        value = excel_text(value)
    cell.value = value
    if isinstance(value, str) and excel_is_formula(value):
        cell.data_type = "s"  # a string cell: never evaluated
        cell.quotePrefix = True  # and marked as text, as a leading apostrophe marks it
    return cell


class _Sheet:
    """One worksheet written row by row, with one font and fitted column widths."""

    def __init__(self, book: Any, title: str) -> None:
        from openpyxl.styles import Font

        self.sheet = book.active if book.active.title == "Sheet" else book.create_sheet()
        self.sheet.title = title
        self.font = Font(name=FONT, size=10)
        self.bold = Font(name=FONT, size=10, bold=True)
        self.widths: dict[int, float] = {}

    def cell(self, row: int, column: int, value: Any, **style: Any) -> Any:
        from openpyxl.styles import Alignment, PatternFill

        cell = _written(self.sheet.cell(row=row, column=column), value)
        cell.font = self.bold if style.get("bold") else self.font
        if style.get("format"):
            cell.number_format = style["format"]
        if style.get("fill"):
            cell.fill = PatternFill("solid", start_color=style["fill"], end_color=style["fill"])
        if style.get("right"):
            cell.alignment = Alignment(horizontal="right")
        shown = style.get("shown", "" if value is None else str(value))
        width = len(shown) * (1.15 if style.get("bold") else 1.0) + 2
        self.widths[column] = max(self.widths.get(column, 0), width)
        return cell

    def header(self, names: list[str], text_columns: int = 1) -> None:
        """Bold headers, aligned like their columns (the first ``text_columns`` left)."""
        for column, name in enumerate(names, start=1):
            self.cell(1, column, name, bold=True, right=column > text_columns)

    def note(self, row: int, text: str, columns: int) -> None:
        """A note under the table, wrapped across the table's width."""
        from openpyxl.styles import Alignment

        cell = _written(self.sheet.cell(row=row, column=1), text)
        cell.font = self.font
        cell.alignment = Alignment(wrap_text=True, vertical="top")
        if columns > 1:
            self.sheet.merge_cells(start_row=row, start_column=1, end_row=row, end_column=columns)
        width = sum(self.widths.get(c, 10) for c in range(1, columns + 1))
        self.sheet.row_dimensions[row].height = 13 * max(1, math.ceil(len(text) / width))

    def finish(self, rows: int, columns: int, frozen: str) -> None:
        """Freeze the headers, fit the widths, print across the page width."""
        from openpyxl.utils import get_column_letter

        self.sheet.freeze_panes = frozen
        if rows >= _FILTER_FROM:
            self.sheet.auto_filter.ref = f"A1:{get_column_letter(columns)}{rows + 1}"
        for column, width in self.widths.items():
            self.sheet.column_dimensions[get_column_letter(column)].width = min(width, 60)
        setup = self.sheet.page_setup
        setup.orientation = "landscape" if columns > 6 else "portrait"
        self.sheet.sheet_properties.pageSetUpPr.fitToPage = True
        setup.fitToWidth, setup.fitToHeight = 1, 0
        self.sheet.print_title_rows = "1:1"


def write_workbook(report: Report, path: Path, digits: int) -> Path:
    """Write ``report`` to ``path`` (see :meth:`pdireval.Report.to_excel`)."""
    openpyxl = _openpyxl()
    book = openpyxl.Workbook()
    _results(book, report, digits)
    _comparisons(book, report, digits)
    _per_query(book, report, digits)
    if report.efficiency is not None:
        _efficiency(book, report)
    about = _Sheet(book, "About")
    about.header(["Item", "Value"], text_columns=2)
    for row, (item, value) in enumerate(report.about.itertuples(index=False), start=2):
        about.cell(row, 1, item)
        about.cell(row, 2, value, shown=str(value)[:60])
    about.finish(len(report.about), 2, "A2")
    book.save(path)
    return path


def _results(book: Any, report: Report, digits: int) -> None:
    sheet = _Sheet(book, "Results")
    labels = [str(label) for label in report.summary.columns]
    sheet.header(["Run", *labels])
    marks = report.marks
    best = {label: set(runs) for label, runs in _best(report).items()}
    for row, (run, values) in enumerate(report.summary.iterrows(), start=2):
        sheet.cell(row, 1, _plain(run))
        for column, label in enumerate(labels, start=2):
            value = _plain(values[label])
            text = marks.text(run, label)
            direction = marks.direction(run, label)
            shown = "" if value is None else f"{value:.{digits}f}{text}"
            sheet.cell(
                row,
                column,
                value,
                format=_number(digits, text),
                bold=run in best.get(label, ()),
                fill=GREEN if direction > 0 else RED if direction < 0 else None,
                shown=shown,
                right=True,
            )
    last = len(report.summary) + 1
    sheet.finish(len(report.summary), len(labels) + 1, "B2")
    sheet.note(last + 2, report.legend() + " Best value per metric in bold.", len(labels) + 1)


def _best(report: Report) -> dict[str, set[Hashable]]:
    return best_runs(report.summary)


def _comparisons(book: Any, report: Report, digits: int) -> None:
    sheet = _Sheet(book, "Comparisons")
    table = report.comparison
    names = [
        "Run", "Baseline", "Metric", "Mean", "Baseline mean", "Δ", "Δ %",
        "Δ CI low", "Δ CI high", "p", "p (adjusted)", "Significant", "Effect size (d)",
        "Wins", "Ties", "Losses",
    ]  # fmt: skip
    sheet.header(names, text_columns=3)
    value = _number(digits)
    signed = f'+{value};"−"{value};{value}'
    records: list[Any] = list(table.itertuples(index=False))
    for row, record in enumerate(records, start=2):
        better = record.significant and record.delta > 0
        worse = record.significant and record.delta < 0
        fill = GREEN if better else RED if worse else None
        cells: list[tuple[Any, dict[str, Any]]] = [
            (_plain(record.run), {}),
            (_plain(record.baseline), {}),
            (str(record.metric), {}),
            (_plain(record.mean), {"format": value}),
            (_plain(record.baseline_mean), {"format": value}),
            (_plain(record.delta), {"format": signed, "fill": fill, "bold": record.significant}),
            (_plain(record.relative_delta), {"format": '+0.0%;"−"0.0%;0.0%'}),
            (_plain(record.ci_low), {"format": signed}),
            (_plain(record.ci_high), {"format": signed}),
            (_plain(record.p_value), {"p": True}),
            (_plain(record.p_adjusted), {"p": True, "fill": fill, "bold": record.significant}),
            ((BETTER if better else WORSE) if record.significant else "", {"fill": fill}),
            (_plain(record.effect_size), {"format": "0.00"}),
            (int(record.wins), {}),
            (int(record.ties), {}),
            (int(record.losses), {}),
        ]
        for column, (content, style) in enumerate(cells, start=1):
            if style.pop("p", False) and isinstance(content, float):
                style["format"] = _p_format(content)
                style["shown"] = format_p(content)
            elif isinstance(content, float) and "format" in style:
                style.setdefault("shown", f"+{content:.{digits}f}")
            sheet.cell(row, column, content, right=column > 3, **style)
    sheet.finish(len(table), len(names), "D2")
    sheet.note(len(table) + 3, report.legend(), len(names))


def _efficiency(book: Any, report: Report) -> None:
    sheet = _Sheet(book, "Efficiency")
    table = report.efficiency
    assert table is not None  # the sheet is written only for timed runs
    names = ["Run", "Queries", "Mean (ms)", "Median (ms)", "p95 (ms)", "p99 (ms)", "Queries/s"]
    sheet.header(names)
    for row, (run, stats) in enumerate(table.iterrows(), start=2):
        sheet.cell(row, 1, _plain(run))
        sheet.cell(row, 2, int(stats["queries"]), right=True)
        for column, name in enumerate(
            ("latency_mean", "latency_median", "latency_p95", "latency_p99"), start=3
        ):
            value = _plain(1000 * stats[name])
            sheet.cell(row, column, value, format="0.0", right=True, shown=f"{value}")
        sheet.cell(row, 7, _plain(stats["qps"]), format="0.0", right=True)
    sheet.finish(len(table), len(names), "B2")


def _per_query(book: Any, report: Report, digits: int) -> None:
    sheet = _Sheet(book, "Per query")
    flat = report.per_query_flat()
    names = ["Metric", "Query", *(str(name) for name in flat.columns[2:])]
    sheet.header(names, text_columns=1)
    value = _number(digits)
    signed = f'+{value};"−"{value};{value}'
    first_delta = 2 + len(report.summary) + 1  # runs' values, then their differences
    for row, record in enumerate(flat.itertuples(index=False), start=2):
        sheet.cell(row, 1, str(record[0]))
        sheet.cell(row, 2, _id(record[1]), right=True)
        for column, number in enumerate(record[2:], start=3):
            content = _plain(number)
            shown = "" if content is None else f"+{float(content):.{digits}f}"
            style = signed if column >= first_delta else value
            sheet.cell(row, column, content, format=style, right=True, shown=shown)
    sheet.finish(len(flat), len(names), "C2")
