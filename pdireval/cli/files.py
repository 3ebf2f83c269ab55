"""The command line's reading of run and qrels files, refusing them where trec_eval does,
and its errors with their exit statuses.
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable
from typing import TypeVar, cast

import pandas as pd

from pdireval._core.errors import PdirevalError

__all__ = ["FUSE_USAGE", "STDIN", "USAGE", "InputError", "UsageError", "read_trec_file"]


class UsageError(Exception):
    """Bad command-line input (exit status 2)."""


class InputError(Exception):
    """Input refused with the exit status trec_eval gives it (2: an empty file; 7: no query
    with both results and judgments).
    """

    def __init__(self, message: str, status: int) -> None:
        super().__init__(message)
        self.status = status


#: how the standard input is named in messages (the run argument ``-``)
STDIN = "-"
#: how each command line is called, for the message about a file in the wrong place
USAGE = "the qrels file comes first: pdireval QRELS RUN [RUN ...]"
FUSE_USAGE = "pdireval fuse takes run files only: pdireval fuse [-m METHOD] RUN RUN [RUN ...]"
_FIELDS = {"run": "qid Q0 docno rank score tag", "qrels": "qid iter docno rel"}
_PYTHON_HINT = re.compile(r" -- this looks like a (?:run|qrels) file: use read_(?:run|qrels)")
_Read = TypeVar("_Read")


def read_trec_file(path: str, kind: str, read: Callable[[str], _Read], usage: str) -> _Read:
    """Read the run or qrels file ``path`` with ``read`` for the command line, refusing it
    where trec_eval refuses it: a file of no bytes (status 2); a file without a data line
    (blank lines or comments only: a run with status 7 -- trec_eval finds no query to
    evaluate -- a qrels file with 2); a qrels file where a run goes, or the reverse
    (status 2, with the command's ``usage``). A malformed line keeps the reading
    functions' message, without their advice to Python users.
    """
    if os.path.isfile(path) and os.path.getsize(path) == 0:
        msg = f"cannot read {kind} file '{path}': it is empty ({_FIELDS[kind]} per line)"
        raise InputError(msg, 2)
    try:
        result = read(path)
    except PdirevalError as error:
        other = "qrels" if kind == "run" else "run"
        if _reads_as(path, other):
            where = "a run file goes" if kind == "run" else "the qrels file goes"
            msg = f"'{path}' is a {other} file ({_FIELDS[other]}), given where {where}: {usage}"
            raise UsageError(msg) from error
        if _PYTHON_HINT.search(str(error)):  # a line of another kind in a file of this one
            raise type(error)(_PYTHON_HINT.sub("", str(error))) from error
        raise
    frame = cast("pd.DataFrame", result[0] if isinstance(result, tuple) else result)
    if not len(frame):
        what = "result" if kind == "run" else "judgment"
        msg = f"{kind} file '{path}' has no {what} line, only blank lines or comments"
        raise InputError(msg, 7 if kind == "run" else 2)
    return result


def _reads_as(path: str, kind: str) -> bool:
    """Whether ``path`` reads as a non-empty file of ``kind`` (an error path only)."""
    from pdireval.io.trec import _run_lines, read_qrels

    try:
        frame = _run_lines(path, "utf-8")[0] if kind == "run" else read_qrels(path)
    except (PdirevalError, ValueError, OSError):
        return False
    return len(frame) > 0
