"""Plain text: the paper table with the baseline labelled and the marks aligned, the
legend under it (what ``print(report)`` shows); a plain table with four decimals. Numbers
are written by :mod:`pdireval.reports.numbers` (a negative one with ``−``, U+2212).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import pandas as pd

from pdireval.reports.formats import Format
from pdireval.reports.numbers import format_value

if TYPE_CHECKING:  # pragma: no cover
    from pdireval.reports.model import Report

__all__ = ["FORMAT"]


def render(report: Report) -> str:
    """The paper table as plain text, baseline labelled, with the legend under it."""
    rows = report.cells()
    labels = report.run_labels()
    table = pd.DataFrame(
        [[text + mark for text, mark, _ in row] for row in rows],
        index=pd.Index([labels[run] for run in report.summary.index], name="run"),
        columns=report.summary.columns,
    )
    for at, label in enumerate(table.columns):  # marks padded: the decimal points align
        width = max(len(row[at][1]) for row in rows)
        table[label] = [f"{text}{mark:<{width}}" for text, mark, _ in (r[at] for r in rows)]
    text = "\n".join(line.rstrip() for line in table.to_string().splitlines())
    return f"{text}\n\n{report.legend()}" + "".join(" " + note for note in report.notes)


def table(frame: pd.DataFrame) -> str:
    """A plain table as text, numbers with four decimals (a negative one with a true
    minus sign, as in every rendering).
    """
    return frame.to_string(float_format=lambda value: format_value(value, 4)) + "\n"


FORMAT = Format(
    "text",
    ".txt",
    "the paper table and its legend as plain text, for a terminal",
    render=render,
    table=table,
    aliases=("table", "txt"),
)
