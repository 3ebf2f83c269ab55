"""The Excel rendering of a :class:`~pdireval.Report` (openpyxl, imported here only).

Values stay numbers: what a reader sees -- four decimals, the ▲/▼ marks after a
significant value, ``<0.001`` for tiny p-values -- lives in each cell's number format,
so the sheet still sorts, sums and charts. One named font throughout (LibreOffice and
Excel both have Arial or a metric twin), column widths fitted to the bold headers.
"""

from __future__ import annotations

import math
from collections.abc import Hashable
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd

from pdireval._core.escape import excel_is_formula, excel_text
from pdireval._core.optional import optional
from pdireval.reports.levels import cell_key, grid_of
from pdireval.reports.numbers import BETTER, WORSE, best_runs, format_p, p_decimals
from pdireval.stats.comparison import COMPARISON_COLUMNS

if TYPE_CHECKING:  # pragma: no cover
    from pdireval.reports.model import Report

__all__ = ["write_workbook"]

FONT = "Arial"
GREEN, RED = "D8F0DC", "F9D7D9"
_FILTER_FROM = 10  # rows: a filter on a shorter table only gets in the way
_HEADER_WIDTH = 10  # digit widths: a longer header (a run's name) wraps onto more lines
_NAME_WIDTH = 30  # digit widths: a longer name in a text column wraps
#: Printable width in pixels (96 per inch) of the narrower of A4 and Letter, with margins
#: of half an inch: portrait 8.27 in (A4) and landscape 11 in (Letter), less 1 in.
_PRINTABLE = {"portrait": 7.27 * 96, "landscape": 10.0 * 96}
_MIN_SCALE = 0.75  # fit to the page width only down to 7.5 pt (10 pt text)
_LINE = 13.0  # points: height of one line of 10 pt text


def _openpyxl() -> Any:
    return optional("openpyxl", purpose="Report.to_excel")


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


def _id(value: Any) -> str | None:
    """An id or a name as text, whatever its type: ``10`` and ``"051"`` in one column
    must both be text, or the column sorts and looks up numbers and texts apart.
    """
    value = _plain(value)
    return None if value is None else str(value)


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
        self.wrapped: dict[int, list[tuple[int, float]]] = {}  # row -> (column, its width)
        self.page_columns = 1_000  # columns printed on one page (set by finish)

    def cell(self, row: int, column: int, value: Any, **style: Any) -> Any:
        """Write one cell; ``wrap`` (characters) wraps a longer text onto more lines."""
        from openpyxl.styles import Alignment, PatternFill

        cell = _written(self.sheet.cell(row=row, column=column), value)
        cell.font = self.bold if style.get("bold") else self.font
        if style.get("format"):
            cell.number_format = style["format"]
        if style.get("fill"):
            cell.fill = PatternFill("solid", start_color=style["fill"], end_color=style["fill"])
        shown = style.get("shown", "" if value is None else str(value))
        length = _text_width(shown) * (1.1 if style.get("bold") else 1.0)
        wrap: float | None = style.get("wrap")
        wraps = wrap is not None and length > wrap
        if style.get("center"):
            cell.alignment = Alignment(horizontal="center")
        elif style.get("right") or wrap is not None:  # wraps if wider than estimated too
            cell.alignment = Alignment(
                horizontal="right" if style.get("right") else None, wrap_text=wrap is not None
            )
        width = (length if wrap is None else min(length, wrap)) + 2
        self.widths[column] = max(self.widths.get(column, 0), width)
        if wraps:
            self.wrapped.setdefault(row, []).append((column, length))
        return cell

    def header(self, names: list[str], text_columns: int = 1, row: int = 1) -> None:
        """Bold headers, aligned like their columns (the first ``text_columns`` left);
        a long header (a run's name) wraps rather than widening its column.
        """
        for column, name in enumerate(names, start=1):
            self.cell(row, column, name, bold=True, right=column > text_columns, wrap=_HEADER_WIDTH)

    def note(self, row: int, text: str, columns: int) -> None:
        """A note under the table, wrapped across the table's width."""
        from openpyxl.styles import Alignment

        cell = _written(self.sheet.cell(row=row, column=1), text)
        cell.font = self.font
        cell.alignment = Alignment(wrap_text=True, vertical="top")
        columns = min(columns, self.page_columns)  # a note cut across two pages is lost
        if columns > 1:
            self.sheet.merge_cells(start_row=row, start_column=1, end_row=row, end_column=columns)
        width = sum(self.widths.get(c, 10) for c in range(1, columns + 1))
        self.sheet.row_dimensions[row].height = _LINE * _lines(_text_width(text), width) + 2

    def finish(self, rows: int, columns: int, frozen: str, header_rows: int = 1) -> None:
        """Freeze the headers, fit the widths and the wrapped rows' heights, set up printing.

        A sheet is fitted to the page width only when its text stays at 7.5 pt or more
        (on the narrower of A4 and Letter); a wider one prints at full size over several
        pages, each repeating the header row and the columns left of ``frozen``.
        """
        from openpyxl.styles import Alignment
        from openpyxl.utils import get_column_letter, range_boundaries
        from openpyxl.worksheet.page import PageMargins

        self.sheet.freeze_panes = frozen
        if rows >= _FILTER_FROM:
            last = rows + header_rows
            self.sheet.auto_filter.ref = f"A{header_rows}:{get_column_letter(columns)}{last}"
        for column, width in self.widths.items():
            self.sheet.column_dimensions[get_column_letter(column)].width = min(width, 60)
        for row, cells in self.wrapped.items():
            lines = max(_lines(length, self.widths[column] - 2) for column, length in cells)
            if lines > 1:
                self.sheet.row_dimensions[row].height = _LINE * lines + 2
                for cell in self.sheet[row]:  # the row's other cells level with its first line
                    cell.alignment = Alignment(
                        horizontal=cell.alignment.horizontal,
                        wrap_text=cell.alignment.wrap_text,
                        vertical="bottom" if row <= header_rows else "top",
                    )
        setup = self.sheet.page_setup
        self.sheet.page_margins = PageMargins(left=0.5, right=0.5, top=0.75, bottom=0.75)
        needed = sum(_pixels(width) for width in self.widths.values())
        setup.orientation = "portrait" if needed <= _PRINTABLE["portrait"] else "landscape"
        fits = _PRINTABLE[setup.orientation] / needed >= _MIN_SCALE
        self.sheet.sheet_properties.pageSetUpPr.fitToPage = fits
        if not fits:
            used = np.cumsum([_pixels(self.widths.get(c, 10)) for c in range(1, columns + 1)])
            self.page_columns = max(
                1, int(np.searchsorted(used, _PRINTABLE[setup.orientation], "right"))
            )
        if fits:
            setup.fitToWidth, setup.fitToHeight = 1, 0
        self.sheet.print_title_rows = f"1:{header_rows}"
        first_free = range_boundaries(frozen)[0]
        if not fits and first_free > 1:
            self.sheet.print_title_cols = f"A:{get_column_letter(first_free - 1)}"


def _letter(column: int) -> str:
    """The letter(s) of a column: 1 -> A."""
    from openpyxl.utils import get_column_letter

    return str(get_column_letter(column))


def _lines(length: float, width: float) -> int:
    """Lines a text ``length`` wide takes in a cell ``width`` wide (25% more when it wraps:
    lines break between words, not anywhere).
    """
    return 1 if length <= width else math.ceil(1.25 * length / max(1.0, width))


def _text_width(text: str) -> float:
    """Width of ``text`` in Arial, in digit widths (the unit of a column's width):
    narrow letters count half, wide ones more, so names are not given room they leave
    empty.

    Examples
    --------
    >>> _text_width("0.1234"), _text_width("il"), _text_width("WM")
    (5.5, 1.0, 2.6)
    """
    return sum(
        0.5 if char in _NARROW else 1.3 if char in _WIDE else 0.85 if char.isalpha() else 1.0
        for char in text
    )


_NARROW = frozenset("iljtfrI.,:;!|'()[]- ")
_WIDE = frozenset("mwMWOQGDHNU@%")


def _pixels(width: float) -> float:
    """Screen pixels of a column ``width`` characters wide (Arial 10: 7 px a digit)."""
    return min(width, 60) * 7 + 5


def write_workbook(report: Report, path: Path, digits: int, *, transpose: bool = False) -> Path:
    """Write ``report`` to ``path`` (see :meth:`pdireval.Report.to_excel`)."""
    openpyxl = _openpyxl()
    book = openpyxl.Workbook()
    _results(book, report, digits, transpose)
    _comparisons(book, report, digits)
    _per_query(book, report, digits)
    if report.efficiency is not None:
        _efficiency(book, report)
    about = _Sheet(book, "About")
    about.header(["Item", "Value"], text_columns=2)
    for row, (item, value) in enumerate(report.about.itertuples(index=False), start=2):
        about.cell(row, 1, item)
        about.cell(row, 2, value, wrap=70)
    about.finish(len(report.about), 2, "A2")
    book.save(path)
    return path


def _results(book: Any, report: Report, digits: int, transpose: bool = False) -> None:
    from openpyxl.utils import get_column_letter

    sheet = _Sheet(book, "Results")
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
            sheet.cell(row, column, label, wrap=_NAME_WIDTH)
        for column, (_, _, best) in enumerate(cells):
            run, key = (runs[column], keys[at]) if transpose else (runs[at], keys[column])
            value = _plain(values[at, column])
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
    sheet = _Sheet(book, "Comparisons")
    table = report.comparison
    within = [str(name) for name in report.within]
    names = [
        *within, "Run", "Baseline", "Metric", "Mean", "Baseline mean", "Δ", "Δ %",
        "Δ CI low", "Δ CI high", "p", "p (adjusted)", "Significant", "Effect size (d)",
        "Wins", "Ties", "Losses",
    ]  # fmt: skip
    risk = "urisk" in table.columns
    if risk:
        names += [f"URisk (α = {report.settings.get('risk alpha'):g})", "TRisk"]
    ids = len(within) + 3
    sheet.header(names, text_columns=ids)
    value = _number(digits)
    signed = f'+{value};"−"{value};{value}'
    places = [table[name].tolist() for name in report.within]
    columns = [*COMPARISON_COLUMNS, *(("urisk", "trisk") if risk else ())]
    records: list[Any] = list(table[columns].itertuples(index=False))
    for row, record in enumerate(records, start=2):
        better = record.significant and record.delta > 0
        worse = record.significant and record.delta < 0
        fill = GREEN if better else RED if worse else None
        cells: list[tuple[Any, dict[str, Any]]] = [
            *((_id(place[row - 2]), {"wrap": _NAME_WIDTH}) for place in places),
            (_id(record.run), {"wrap": _NAME_WIDTH}),
            (_id(record.baseline), {"wrap": _NAME_WIDTH}),
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
        if risk:
            cells += [
                (_plain(record.urisk), {"format": signed}),
                (_plain(record.trisk), {"format": '+0.00;"−"0.00;0.00'}),
            ]
        for column, (content, style) in enumerate(cells, start=1):
            if style.pop("p", False) and isinstance(content, float):
                style["format"] = _p_format(content)
                style["shown"] = format_p(content)
            elif isinstance(content, float) and "format" in style:
                style.setdefault("shown", f"+{content:.{digits}f}")
            sheet.cell(row, column, content, right=column > ids, **style)
    sheet.finish(len(table), len(names), f"{_letter(ids + 1)}2")
    sheet.note(len(table) + 3, f"{report.legend()} {report.interval_note()}", len(names))


def _efficiency(book: Any, report: Report) -> None:
    sheet = _Sheet(book, "Efficiency")
    table = report.efficiency
    assert table is not None  # the sheet is written only for timed runs
    names = ["Run", "Queries", "Mean (ms)", "Median (ms)", "p95 (ms)", "p99 (ms)", "Queries/s"]
    sheet.header(names)
    for row, (run, stats) in enumerate(table.iterrows(), start=2):
        sheet.cell(row, 1, _id(run), wrap=_NAME_WIDTH)
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
            sheet.cell(row, column, _id(record[column - 1]))
        for column, number in enumerate(record[ids:], start=ids + 1):
            content = _plain(number)
            shown = "" if content is None else f"+{float(content):.{digits}f}"
            style = signed if column >= first_delta else value
            sheet.cell(row, column, content, format=style, right=True, shown=shown)
    sheet.finish(len(flat), len(names), f"{_letter(ids + 1)}2")
