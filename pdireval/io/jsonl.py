"""JSON Lines files of the RAG tools, read line by line with line-numbered errors.

nuggetizer's outputs and the TREC RAG track's answer and support files hold one JSON
object per line. :func:`read_records` turns every line into rows with a parser of its
own; a parser raises :class:`LineError` for what is wrong with its line, and the reader
names the file, the line's number and the line.
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

from pdireval._core.errors import SchemaError

__all__ = ["LineError", "read_records", "record_id"]


class LineError(Exception):
    """What is wrong with one line."""


def read_records(
    path: str | os.PathLike[str],
    encoding: str,
    parse: Callable[[dict[str, Any], str], list[tuple[Any, ...]]],
) -> list[tuple[Any, ...]]:
    """The rows of every line of ``path``, each line's by ``parse(record, stem)`` (the
    line's JSON object and the file's name without its suffix); blank lines are skipped.
    """
    path = Path(path)
    rows: list[tuple[Any, ...]] = []
    with path.open(encoding=encoding) as lines:
        for number, line in enumerate(lines, start=1):
            if not line.strip():
                continue
            try:
                rows.extend(parse(_record(line), path.stem))
            except LineError as error:
                shown = line.rstrip("\r\n")
                shown = shown if len(shown) <= 200 else shown[:200] + " ..."
                msg = f"{path}, line {number}: {error}; the line: {shown}"
                raise SchemaError(msg) from None
    return rows


def _record(line: str) -> dict[str, Any]:
    try:
        record = json.loads(line)
    except json.JSONDecodeError as error:
        msg = f"not valid JSON ({error.msg} at column {error.colno})"
        raise LineError(msg) from None
    if not isinstance(record, dict):
        msg = f"expected a JSON object per line, found {type(record).__name__}"
        raise LineError(msg)
    return record


def record_id(record: dict[str, Any], key: str) -> str:
    """A query or run id: a string, or a whole number kept as written."""
    value = record.get(key)
    if isinstance(value, str):
        return value
    if isinstance(value, int) and not isinstance(value, bool):
        return str(value)
    found = "no such field" if key not in record else f"{value!r}"
    msg = f"'{key}' must be a string, found {found}"
    raise LineError(msg)
