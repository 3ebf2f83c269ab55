"""JSON: tables as lists of records, every number in full (its shortest round-trip text)
and a missing value as null; a report as its tables and settings.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd

from pdireval.reports.formats import Format

if TYPE_CHECKING:  # pragma: no cover
    from pdireval.reports.model import Report

__all__ = ["FORMAT", "records"]


def records(table: pd.DataFrame) -> list[dict[str, Any]]:
    """A table's rows as JSON objects (the index as columns when it is named)."""
    frame = table.reset_index() if table.index.name or table.index.nlevels > 1 else table
    rows = frame.astype(object).where(frame.notna(), None).to_dict(orient="records")
    return [{str(key): _plain(value) for key, value in row.items()} for row in rows]


def _plain(value: object) -> object:
    """A numpy scalar as the Python value JSON writes; a missing value as None."""
    value = value.item() if isinstance(value, np.generic) else value
    return None if isinstance(value, float) and np.isnan(value) else value


def render(report: Report) -> str:
    """The report's summary, comparison, per-query table and settings as one object."""
    summary = report.summary.copy()
    summary.columns = [
        " / ".join(map(str, key)) if isinstance(key, tuple) else str(key) for key in summary.columns
    ]
    payload = {
        "summary": records(summary),
        "comparison": records(report.comparison),
        "per_query": records(report.per_query_flat()),
        "about": records(report.about),
    }
    return json.dumps(payload, indent=2, allow_nan=False)


def table(frame: pd.DataFrame) -> str:
    """A plain table as a JSON list of records."""
    return json.dumps(records(frame), indent=2, allow_nan=False)


FORMAT = Format(
    "json",
    ".json",
    "the tables as JSON records, numbers in full, for another program",
    render=render,
    table=table,
    tabular=True,
)
