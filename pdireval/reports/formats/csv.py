"""CSV: the report's tables as CSV files in a folder, values in full precision; a plain
table as CSV text (the command line's).
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, cast

import pandas as pd

from pdireval.reports.formats import Format

if TYPE_CHECKING:  # pragma: no cover
    from pdireval.reports.model import Report

if TYPE_CHECKING:  # pragma: no cover
    pass

__all__ = ["FORMAT"]


def write(report: Report, folder: str | Path) -> list[Path]:
    """Write the report's tables as CSV files into ``folder`` (:meth:`Report.to_csv`)."""
    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    frames = {
        "summary.csv": report.summary.reset_index(),
        "comparison.csv": report.comparison,
        "per_query.csv": report.per_query_flat(),
        "about.csv": report.about,
    }
    paths = []
    for name, frame in frames.items():
        path = folder / name
        frame.to_csv(path, index=False)
        paths.append(path)
    return paths


def table(frame: pd.DataFrame) -> str:
    """A plain table as CSV, each number as the shortest text that reads back as it
    (pandas 2 writes 17 significant digits).
    """
    index = bool(frame.index.name) or frame.index.nlevels > 1
    return frame.to_csv(index=index, float_format=_shortest)


def _shortest(value: object) -> str:
    return repr(float(cast("float", value)))


FORMAT = Format(
    "csv",
    ".csv",
    "the tables as CSV, values in full precision (a folder of files for a report)",
    write=write,
    table=table,
    tabular=True,
)
