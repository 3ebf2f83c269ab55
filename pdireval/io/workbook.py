"""Excel workbooks written cell by cell with openpyxl (imported here only): one named
font, fitted column widths and row heights, printable pages, and texts that a
spreadsheet would read as formulas stored as text. The report's workbook and the
judging sheet both write through :class:`Sheet`.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import pandas as pd

from pdireval._core.escape import excel_is_formula, excel_text
from pdireval._core.optional import optional

__all__ = [
    "FONT",
    "Sheet",
    "id_text",
    "letter",
    "line_count",
    "openpyxl",
    "plain",
    "text_width",
    "wrapped_lines",
    "written",
]

FONT = "Arial"
_FILTER_FROM = 10  # rows: a filter on a shorter table only gets in the way
_HEADER_WIDTH = 10  # digit widths: a longer header (a run's name) wraps onto more lines
_HEADER_LINES = 4  # a header wraps onto about this many lines at most: wider if longer
_WIDEST = 60  # digit widths: the widest column (a longer text wraps)
NAME_WIDTH = 40  # digit widths: a longer name in a text column wraps
#: Printable width in pixels (96 per inch) of the narrower of A4 and Letter, with margins
#: of half an inch: portrait 8.27 in (A4) and landscape 11 in (Letter), less 1 in.
_PRINTABLE = {"portrait": 7.27 * 96, "landscape": 10.0 * 96}
_MIN_SCALE = 0.75  # fit to the page width only down to 7.5 pt (10 pt text)
_LINE = 13.0  # points: height of one line of 10 pt text


def openpyxl(purpose: str, hint: str = "") -> Any:
    """The openpyxl package, or the error that says how to install it."""
    return optional("openpyxl", purpose=purpose, hint=hint)


def id_text(value: Any) -> str | None:
    """An id or a name as text, whatever its type: ``10`` and ``"051"`` in one column
    must both be text, or the column sorts and looks up numbers and texts apart.
    """
    value = plain(value)
    return None if value is None else str(value)


def plain(value: Any) -> Any:
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


def written(cell: Any, value: Any) -> Any:
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


class Sheet:
    """One worksheet written row by row, with one font and fitted column widths."""

    def __init__(self, book: Any, title: str) -> None:
        from openpyxl.styles import Font

        self.sheet = book.active if book.active.title == "Sheet" else book.create_sheet()
        self.sheet.title = title
        self.font = Font(name=FONT, size=10)
        self.bold = Font(name=FONT, size=10, bold=True)
        self.widths: dict[int, float] = {}
        self.wrapped: dict[int, list[tuple[int, str, float]]] = {}  # row -> (column, text, scale)
        self.page_columns = 1_000  # columns printed on one page (set by finish)
        self.widest = _WIDEST  # digit widths: the widest column

    def cell(self, row: int, column: int, value: Any, **style: Any) -> Any:
        """Write one cell; ``wrap`` (characters) wraps a longer text onto more lines."""
        from openpyxl.styles import Alignment, PatternFill

        cell = written(self.sheet.cell(row=row, column=column), value)
        cell.font = self.bold if style.get("bold") else self.font
        if style.get("format"):
            cell.number_format = style["format"]
        if style.get("fill"):
            cell.fill = PatternFill("solid", start_color=style["fill"], end_color=style["fill"])
        shown = style.get("shown", "" if value is None else str(value))
        length = text_width(shown) * (1.1 if style.get("bold") else 1.0)
        wrap: float | None = style.get("wrap")
        wraps = wrap is not None and length > wrap
        if style.get("center"):
            cell.alignment = Alignment(horizontal="center")
        elif style.get("right") or wrap is not None:  # wraps if wider than estimated too
            cell.alignment = Alignment(
                horizontal="right" if style.get("right") else None, wrap_text=wrap is not None
            )
        scale = 1.1 if style.get("bold") else 1.0
        if wrap is None:
            width = length + 2
        else:  # wrapped at spaces only: the longest word sets the least width
            words = (text_width(word) * scale for word in shown.split())
            width = max(min(length, wrap), max(words, default=0.0)) + 2
        self.widths[column] = max(self.widths.get(column, 0), width)
        if wraps:
            self.wrapped.setdefault(row, []).append((column, shown, scale))
        return cell

    def header(self, names: list[str], text_columns: int = 1, row: int = 1) -> None:
        """Bold headers, aligned like their columns (the first ``text_columns`` left);
        a long header (a run's name) wraps at spaces onto a few lines rather than
        widening its column, which is as wide as its longest word.
        """
        for column, name in enumerate(names, start=1):
            wrap = max(_HEADER_WIDTH, 1.1 * text_width(name) / _HEADER_LINES)
            self.cell(row, column, name, bold=True, right=column > text_columns, wrap=wrap)

    def note(self, row: int, text: str, columns: int) -> None:
        """A note under the table, wrapped across the table's width."""
        from openpyxl.styles import Alignment

        cell = written(self.sheet.cell(row=row, column=1), text)
        cell.font = self.font
        cell.alignment = Alignment(wrap_text=True, vertical="top")
        columns = min(columns, self.page_columns)  # a note cut across two pages is lost
        if columns > 1:
            self.sheet.merge_cells(start_row=row, start_column=1, end_row=row, end_column=columns)
        width = sum(self.widths.get(c, 10) for c in range(1, columns + 1))
        self.sheet.row_dimensions[row].height = _LINE * line_count(text_width(text), width) + 2

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
            self.sheet.column_dimensions[get_column_letter(column)].width = min(width, self.widest)
        for row, cells in self.wrapped.items():
            lines = max(
                wrapped_lines(text, min(self.widths[column], self.widest) - 1, scale)
                for column, text, scale in cells
            )
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
        needed = sum(pixels(width, self.widest) for width in self.widths.values())
        setup.orientation = "portrait" if needed <= _PRINTABLE["portrait"] else "landscape"
        fits = _PRINTABLE[setup.orientation] / needed >= _MIN_SCALE
        self.sheet.sheet_properties.pageSetUpPr.fitToPage = fits
        if not fits:
            used = np.cumsum(
                [pixels(self.widths.get(c, 10), self.widest) for c in range(1, columns + 1)]
            )
            self.page_columns = max(
                1, int(np.searchsorted(used, _PRINTABLE[setup.orientation], "right"))
            )
        if fits:
            setup.fitToWidth, setup.fitToHeight = 1, 0
        self.sheet.print_title_rows = f"1:{header_rows}"
        first_free = range_boundaries(frozen)[0]
        if not fits and first_free > 1:
            self.sheet.print_title_cols = f"A:{get_column_letter(first_free - 1)}"


def letter(column: int) -> str:
    """The letter(s) of a column: 1 -> A."""
    from openpyxl.utils import get_column_letter

    return str(get_column_letter(column))


def line_count(length: float, width: float) -> int:
    """Lines a text ``length`` wide takes in a cell ``width`` wide (25% more when it wraps:
    lines break between words, not anywhere).
    """
    return 1 if length <= width else math.ceil(1.25 * length / max(1.0, width))


def wrapped_lines(text: str, width: float, scale: float = 1.0) -> int:
    """Lines ``text`` takes in a cell ``width`` digit widths wide when it wraps at spaces
    (as Excel and LibreOffice wrap it), a word wider than the cell broken across lines;
    ``scale`` widens every character (1.1: bold).

    Examples
    --------
    >>> wrapped_lines("bm25+monoT5-3B (rerank top-100, fine-tuned)", 40)
    1
    >>> wrapped_lines("bm25+monoT5-3B (rerank top-100, fine-tuned)", 14)
    3
    """
    space = text_width(" ") * scale
    lines = 0
    for paragraph in str(text).split("\n"):
        lines += 1
        used = -space
        for word in paragraph.split():
            size = text_width(word) * scale
            if used + space + size <= width:
                used += space + size
                continue
            if used > 0:
                lines += 1
            extra = max(0, math.ceil(size / max(width, 1.0)) - 1)  # a word broken up
            lines += extra
            used = size - extra * width
    return max(lines, 1)


def text_width(text: str) -> float:
    """Width of ``text`` in Arial, in digit widths (the unit of a column's width):
    narrow letters count half, wide ones more, so names are not given room they leave
    empty.

    Examples
    --------
    >>> text_width("0.1234"), text_width("il"), text_width("WM")
    (5.5, 1.0, 2.6)
    """
    return sum(
        0.5 if char in _NARROW else 1.3 if char in _WIDE else 0.85 if char.isalpha() else 1.0
        for char in text
    )


_NARROW = frozenset("iljtfrI.,:;!|'()[]- ")
_WIDE = frozenset("mwMWOQGDHNU@%")


def pixels(width: float, widest: float = _WIDEST) -> float:
    """Screen pixels of a column ``width`` characters wide (Arial 10: 7 px a digit), at
    most ``widest``.
    """
    return min(width, widest) * 7 + 5
