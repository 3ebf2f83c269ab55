"""Read nuggetizer's assignment output (JSON Lines) into a nugget frame.

nuggetizer (Pradeep et al., 2024) writes one JSON object per answer: the query id
``qid``, the ``run_id`` of the run that generated the answer, and ``nuggets``, a list
of objects with the nugget's ``text``, its ``importance`` (``vital``/``okay``) and its
``assignment`` (``support``/``partial_support``/``not_support``); other fields (the
query, the answer's text, its length, traces) are ignored.
"""

from __future__ import annotations

import os
from typing import Any

import pandas as pd

from pdireval.io.jsonl import LineError, read_records, record_id

__all__ = ["read_nuggets"]

_COLUMNS = ("run", "query", "nugget", "importance", "assignment")


def read_nuggets(
    path: str | os.PathLike[str], *, run: str | None = None, encoding: str = "utf-8"
) -> pd.DataFrame:
    """Read nuggetizer's assignment output into a nugget frame.

    Parameters
    ----------
    path : str or path-like
        A JSON Lines file as nuggetizer's ``assign`` writes it: per line an object
        with ``qid``, ``run_id`` (optional) and ``nuggets``, a list of objects with
        ``text``, ``importance`` and ``assignment``. Blank lines are skipped.
    run : str, optional
        The run of every answer. By default each line's ``run_id``, and for a line
        without one the file's name without its suffix, as nuggetizer names a run.
    encoding : str
        The file's encoding (UTF-8 by default).

    Returns
    -------
    DataFrame
        Columns ``run``, ``query``, ``nugget`` (the nugget's text), ``importance``,
        ``assignment``: one row per nugget of each answer, in file order, the ids as
        strings. An answer with an empty list of nuggets is one row with the nugget,
        importance and assignment missing, so that it scores 0 as nuggetizer scores it.
        :func:`pdireval.nugget_scores`, :func:`pdireval.evaluate` and the other
        evaluating calls take it as it is.

    Raises
    ------
    SchemaError
        A line that is not a JSON object of that form, named with its number.

    Examples
    --------
    >>> import json, pathlib, tempfile, pdireval
    >>> record = {"qid": "q1", "run_id": "rag-a", "nuggets": [
    ...     {"text": "Python is a language", "importance": "vital", "assignment": "support"},
    ...     {"text": "It is used for data science", "importance": "okay",
    ...      "assignment": "partial_support"}]}
    >>> path = pathlib.Path(tempfile.mkdtemp()) / "rag-a.jsonl"
    >>> _ = path.write_text(json.dumps(record) + "\\n")
    >>> pdireval.read_nuggets(path)
         run query                       nugget importance       assignment
    0  rag-a    q1         Python is a language      vital          support
    1  rag-a    q1  It is used for data science       okay  partial_support
    """
    rows = read_records(path, encoding, lambda record, stem: _answer(record, run, stem))
    data = {name: [row[i] for row in rows] for i, name in enumerate(_COLUMNS)}
    return pd.DataFrame(data, columns=list(_COLUMNS))


def _answer(record: dict[str, Any], run: str | None, stem: str) -> list[tuple[Any, ...]]:
    """The rows of one line: (run, query, nugget, importance, assignment) per nugget."""
    query = record_id(record, "qid")
    name = run if run is not None else (record_id(record, "run_id") if "run_id" in record else stem)
    nuggets = record.get("nuggets")
    if not isinstance(nuggets, list):
        found = "none" if nuggets is None else type(nuggets).__name__
        msg = f"'nuggets' must be a list of nuggets, found {found}"
        raise LineError(msg)
    if not nuggets:
        return [(name, query, None, None, None)]
    return [(name, query, *_nugget(nugget, i)) for i, nugget in enumerate(nuggets, start=1)]


def _nugget(nugget: Any, position: int) -> tuple[str, str, str]:
    """A nugget's text, importance and assignment, each a string."""
    if not isinstance(nugget, dict):
        msg = f"nugget {position} must be an object, found {type(nugget).__name__}"
        raise LineError(msg)
    values = []
    for key in ("text", "importance", "assignment"):
        value = nugget.get(key)
        if not isinstance(value, str):
            found = "no such field" if key not in nugget else f"{value!r}"
            hint = (
                " (nuggetizer's create output has no assignments: read the output of "
                "its assign step)"
                if key == "assignment" and key not in nugget
                else ""
            )
            msg = f"nugget {position}: '{key}' must be a string, found {found}{hint}"
            raise LineError(msg)
        values.append(value)
    return values[0], values[1], values[2]
