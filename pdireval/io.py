"""Read and write TREC run and qrels files.

Formats (whitespace-separated, one judgment or retrieved document per line):

* run: ``qid Q0 docno rank score tag`` -- read as columns ``query, doc, score, run``
  (the tag becomes the run column). Fields after the sixth are ignored, as trec_eval
  ignores them. The rank field is **not** kept: trec_eval ranks by score (descending,
  ties by docno descending), and so does :func:`pdireval.evaluate` when a frame has a
  score column and no rank column -- a file read here evaluates exactly as trec_eval
  evaluates it.
* qrels: ``qid iter docno rel`` -- read as columns ``query, doc, rel`` (the iteration
  field is dropped); ``rel`` is int64 (negative = pooled but unjudged).

Ids are kept as strings (``"007"`` stays ``"007"``). Lines starting with ``#`` and blank
lines are skipped; a ``.gz`` file (or any gzip stream) is decompressed transparently.
Malformed input raises :class:`pdireval.SchemaError` naming the file, the line number and
the line.
"""

from __future__ import annotations

import csv
import gzip
import io
import os
import re
from collections.abc import Mapping
from pathlib import Path
from typing import IO

import numpy as np
import pandas as pd

from pdireval._errors import SchemaError
from pdireval._prepare.columns import ColumnMap, as_column_map
from pdireval._prepare.duplicates import repeated_rows

__all__ = ["read_qrels", "read_run", "write_qrels", "write_run"]

PathOrBuffer = str | os.PathLike[str] | IO[str] | IO[bytes]

_COMMENT = re.compile(rb"(?m)^[ \t]*#[^\n]*")
_RUN_FIELDS = "qid Q0 docno rank score tag"
_QRELS_FIELDS = "qid iter docno rel"


# --------------------------------------------------------------------------- reading


def _load(source: PathOrBuffer) -> tuple[bytes, str]:
    """Raw (decompressed) bytes of ``source`` and a name for messages."""
    if isinstance(source, str | os.PathLike):
        name = os.fspath(source)
        data = Path(name).read_bytes()
    else:
        name = str(getattr(source, "name", "<buffer>"))
        content = source.read()
        data = content.encode() if isinstance(content, str) else bytes(content)
    if data[:2] == b"\x1f\x8b":
        data = gzip.decompress(data)
    return data, name


def _lines(data: bytes) -> list[bytes]:
    return data.split(b"\n")


def _is_skipped(line: bytes) -> bool:
    stripped = line.strip()
    return not stripped or stripped.startswith(b"#")


def _fail(name: str, number: int, line: bytes, problem: str) -> SchemaError:
    text = line.decode(errors="replace").rstrip("\r")
    return SchemaError(f"{name}, line {number}: {problem}: {text!r}")


def _data_lines(data: bytes) -> list[tuple[int, bytes]]:
    """(1-based line number, line) of every line that holds data, in order."""
    return [(n, line) for n, line in enumerate(_lines(data), start=1) if not _is_skipped(line)]


def _diagnose(data: bytes, name: str, kind: str) -> None:
    """Walk the file line by line and raise on the first malformed line (error path only)."""
    for number, line in _data_lines(data):
        fields = line.split()
        if kind == "run":
            if len(fields) < 6:
                problem = f"expected 6 fields ({_RUN_FIELDS}), found {len(fields)}"
                raise _fail(name, number, line, problem)
            try:
                if not np.isfinite(float(fields[4])):
                    raise ValueError
            except ValueError:
                problem = f"the score {fields[4].decode(errors='replace')!r} is not a finite number"
                raise _fail(name, number, line, problem) from None
        else:
            if len(fields) != 4:
                problem = f"expected 4 fields ({_QRELS_FIELDS}), found {len(fields)}"
                raise _fail(name, number, line, problem)
            try:
                int(fields[3])
            except ValueError:
                problem = (
                    f"the relevance label {fields[3].decode(errors='replace')!r} is not an integer"
                )
                raise _fail(name, number, line, problem) from None


def _parse(data: bytes, name: str, kind: str) -> pd.DataFrame:
    """Parse with pandas' C engine; on any trouble, find and report the bad line."""
    if kind == "run":
        n_fields, dtypes = 6, {0: str, 1: str, 2: str, 3: str, 4: np.float64, 5: str}
    else:  # read a 5th field only to notice lines with too many
        n_fields, dtypes = 5, {0: str, 1: str, 2: str, 3: np.int64, 4: str}
    if b"#" in data:
        data = _COMMENT.sub(b"", data)
    options = {
        "sep": r"\s+",
        "header": None,
        "names": list(range(n_fields)),
        "dtype": dtypes,
        "engine": "c",
        "quoting": csv.QUOTE_NONE,
        "keep_default_na": False,
        "na_values": [],
        "skip_blank_lines": True,
    }
    # runs: skip Q0 and rank unless the first line has extra fields (then read all six)
    usecols = [[0, 2, 4, 5], list(range(6))] if kind == "run" else [None]
    try:
        for attempt, columns in enumerate(usecols):
            try:
                frame = pd.read_csv(io.BytesIO(data), usecols=columns, **options)
                break
            except ValueError as error:
                if attempt + 1 == len(usecols) or "names" not in str(error):
                    raise
    except (ValueError, pd.errors.ParserError) as error:
        _diagnose(data, name, kind)
        msg = f"{name}: cannot read this {kind} file ({error})"
        raise SchemaError(msg) from error
    if kind == "run":
        bad = (frame[5] == "").to_numpy() | ~np.isfinite(frame[4].to_numpy())
    else:  # missing fields read as "", so a 5th field that is not "" is one too many
        bad = (frame[2] == "").to_numpy() | (frame[4] != "").to_numpy()
    if bad.any():
        _diagnose(data, name, kind)
        number, line = _data_lines(data)[int(np.flatnonzero(bad)[0])]
        raise _fail(name, number, line, "malformed line")
    return frame


def _refuse_duplicates(frame: pd.DataFrame, data: bytes, name: str, what: str) -> None:
    group = pd.factorize(frame["query"])[0].astype(np.int64)
    if "run" in frame.columns:
        runs = pd.factorize(frame["run"])[0]
        group = runs * (int(group.max(initial=0)) + 1) + group
    repeated = repeated_rows(group, frame["doc"])
    if len(repeated):
        row = int(repeated[0])
        lines = _data_lines(_COMMENT.sub(b"", data) if b"#" in data else data)
        same = np.flatnonzero(
            (frame["query"].to_numpy() == frame["query"].iat[row])
            & (frame["doc"].to_numpy() == frame["doc"].iat[row])
        )
        first = lines[int(same[0])][0]
        number, line = lines[row]
        problem = (
            f"document {frame['doc'].iat[row]!r} appears twice {what} for query "
            f"{frame['query'].iat[row]!r} (first on line {first})"
        )
        raise _fail(name, number, line, problem)


def read_run(path_or_buffer: PathOrBuffer) -> pd.DataFrame:
    """Read a TREC run file into a long frame ranked by score, as trec_eval ranks it.

    Parameters
    ----------
    path_or_buffer : str, path or file-like
        A run in TREC format, ``qid Q0 docno rank score tag`` per line; ``.gz`` (any
        gzip stream) is decompressed, ``#`` comment lines and blank lines are skipped,
        fields after the sixth are ignored (as trec_eval ignores them).

    Returns
    -------
    DataFrame
        Columns ``query`` (str), ``doc`` (str), ``score`` (float64), ``run`` (str, the
        tag), in file order, with a fresh RangeIndex. There is no rank column: the file's
        rank field is not trusted. :func:`pdireval.evaluate` ranks by score descending,
        ties by doc id descending compared as strings -- trec_eval's rule.

    Raises
    ------
    SchemaError
        A line with fewer than six fields, a score that is not a number, or the same
        document twice for a query of one run; the message names the file, the line
        number and the line.

    Notes
    -----
    Scores are kept as float64 (trec_eval 10.0 does the same; 9.0.8 rounds them to
    float32, which matters only for scores that differ below float32 precision). A file
    may hold several runs (different tags); a document may then appear once per run.

    Examples
    --------
    >>> import io, pdireval
    >>> text = "q1 Q0 d1 1 2.5 bm25\\nq1 Q0 d2 2 2.5 bm25\\nq2 Q0 d9 1 0.1 bm25\\n"
    >>> pdireval.read_run(io.StringIO(text))
      query doc  score   run
    0    q1  d1    2.5  bm25
    1    q1  d2    2.5  bm25
    2    q2  d9    0.1  bm25
    """
    data, name = _load(path_or_buffer)
    raw = _parse(data, name, "run")
    frame = pd.DataFrame(
        {
            "query": raw[0].astype(str),
            "doc": raw[2].astype(str),
            "score": raw[4].to_numpy(dtype=np.float64),
            "run": raw[5].astype(str),
        }
    )
    _refuse_duplicates(frame, data, name, "in the run")
    return frame


def read_qrels(path_or_buffer: PathOrBuffer) -> pd.DataFrame:
    """Read a TREC qrels file (relevance judgments).

    Parameters
    ----------
    path_or_buffer : str, path or file-like
        Judgments in TREC format, ``qid iter docno rel`` per line; ``.gz`` is
        decompressed, ``#`` comment lines and blank lines are skipped.

    Returns
    -------
    DataFrame
        Columns ``query`` (str), ``doc`` (str), ``rel`` (int64), in file order, fresh
        RangeIndex. The iteration field is dropped. Ready for
        :func:`pdireval.merge_qrels`.

    Raises
    ------
    SchemaError
        A line without exactly four fields, a label that is not an integer, or the same
        document judged twice for a query; the message names the file, the line number
        and the line.

    Examples
    --------
    >>> import io, pdireval
    >>> pdireval.read_qrels(io.StringIO("# topic 1\\n1 0 d1 2\\n1 0 d7 0\\n"))
      query doc  rel
    0     1  d1    2
    1     1  d7    0
    """
    data, name = _load(path_or_buffer)
    raw = _parse(data, name, "qrels")
    frame = pd.DataFrame(
        {
            "query": raw[0].astype(str),
            "doc": raw[2].astype(str),
            "rel": raw[3].to_numpy(dtype=np.int64),
        }
    )
    _refuse_duplicates(frame, data, name, "in the qrels")
    return frame


# --------------------------------------------------------------------------- writing


def _open_for_writing(target: PathOrBuffer, text: str) -> None:
    if isinstance(target, str | os.PathLike):
        path = Path(target)
        if path.suffix == ".gz":
            with gzip.open(path, "wt", encoding="utf-8", newline="\n") as handle:
                handle.write(text)
        else:
            path.write_text(text, encoding="utf-8", newline="\n")
    else:
        try:
            target.write(text)  # type: ignore[arg-type]
        except TypeError:
            target.write(text.encode())  # type: ignore[arg-type]


def _resolved(frame: pd.DataFrame, columns: ColumnMap | Mapping[str, str] | None):
    return as_column_map(columns).resolve(frame)


def write_run(
    frame: pd.DataFrame,
    path_or_buffer: PathOrBuffer,
    *,
    tag: str = "pdireval",
    columns: ColumnMap | Mapping[str, str] | None = None,
) -> None:
    """Write the retrieved rows of a long frame as a TREC run file.

    Parameters
    ----------
    frame : DataFrame
        A run or long frame: query, doc and a score and/or rank column, optionally a run
        column (written as the tag). Rows with neither rank nor score (judged but not
        retrieved) are skipped; other columns (such as rel) are ignored.
    path_or_buffer : str, path or file-like
        Where to write; a path ending in ``.gz`` is gzip-compressed.
    tag : str, default "pdireval"
        The tag written when the frame has no run column.
    columns : ColumnMap or dict, optional
        Column roles, as for :func:`pdireval.evaluate`.

    Notes
    -----
    Lines are written ranked -- per query, in the order :func:`pdireval.evaluate` uses
    (rank column if present, else score descending with ties by doc id descending) --
    with ranks 1..n. Scores are written with full precision (``repr``), so
    :func:`read_run` returns them exactly. Without a score column the score written is
    ``n - rank + 1`` (n = documents retrieved for the query), so trec_eval reproduces
    the frame's order.

    Examples
    --------
    >>> import io, pandas as pd, pdireval
    >>> run = pd.DataFrame({"query": ["q1", "q1"], "doc": ["a", "b"], "score": [0.5, 1.5]})
    >>> out = io.StringIO(); pdireval.write_run(run, out, tag="demo")
    >>> print(out.getvalue(), end="")
    q1 Q0 b 1 1.5 demo
    q1 Q0 a 2 0.5 demo
    """
    cols = _resolved(frame, columns)
    cols.require(frame, "query", "doc")
    query, doc, rank, score, run_col = cols.query, cols.doc, cols.rank, cols.score, cols.run
    if rank is None and score is None:
        msg = (
            f"write_run needs a rank or a score column (columns: {list(frame.columns)}); "
            "map it with columns={'score': ...} or columns={'rank': ...}"
        )
        raise SchemaError(msg)
    key = rank if rank is not None else score
    data = pd.DataFrame(
        {
            "run": frame[run_col].astype(str) if run_col else tag,
            "query": frame[query].astype(str),
            "doc": frame[doc].astype(str),
            "key": pd.to_numeric(frame[key]),
        }
    )
    if score is not None:
        data["score"] = pd.to_numeric(frame[score]).astype(np.float64)
    data = data[data["key"].notna()]
    # rank ascending, or score descending with ties by doc id descending (strings)
    ascending = [True, True, rank is not None, False]
    data = data.sort_values(["run", "query", "key", "doc"], ascending=ascending, kind="stable")
    position = data.groupby(["run", "query"], sort=False).cumcount() + 1
    if score is None:
        size = data.groupby(["run", "query"], sort=False)["doc"].transform("size")
        data["score"] = (size - position + 1).astype(np.float64)
    scores = [repr(float(value)) for value in data["score"].to_numpy()]
    lines = (
        data["query"]
        + " Q0 "
        + data["doc"]
        + " "
        + position.astype(str)
        + " "
        + pd.Series(scores, index=data.index, dtype=str)
        + " "
        + data["run"]
    )
    _open_for_writing(path_or_buffer, "".join(line + "\n" for line in lines))


def write_qrels(
    frame: pd.DataFrame,
    path_or_buffer: PathOrBuffer,
    *,
    columns: ColumnMap | Mapping[str, str] | None = None,
) -> None:
    """Write the judged rows of a qrels or long frame as a TREC qrels file.

    Parameters
    ----------
    frame : DataFrame
        query, doc and rel columns; rows without a label (unjudged) are skipped. With a
        run column (a merged long frame), each (query, doc) judgment is written once.
    path_or_buffer : str, path or file-like
        Where to write; a path ending in ``.gz`` is gzip-compressed.
    columns : ColumnMap or dict, optional
        Column roles, as for :func:`pdireval.evaluate`.

    Notes
    -----
    The iteration field is written as ``0``; lines are sorted by query and doc id.
    Labels must be whole numbers.

    Examples
    --------
    >>> import io, pandas as pd, pdireval
    >>> qrels = pd.DataFrame({"query": [1, 1], "doc": ["d7", "d1"], "rel": [0, 2]})
    >>> out = io.StringIO(); pdireval.write_qrels(qrels, out)
    >>> print(out.getvalue(), end="")
    1 0 d1 2
    1 0 d7 0
    """
    cols = _resolved(frame, columns)
    cols.require(frame, "query", "doc", "rel")
    data = pd.DataFrame(
        {
            "query": frame[cols.query].astype(str),
            "doc": frame[cols.doc].astype(str),
            "rel": pd.to_numeric(frame[cols.rel]),
        }
    )
    data = data[data["rel"].notna()].drop_duplicates(["query", "doc", "rel"])
    labels = data["rel"].to_numpy(dtype=np.float64)
    if not np.all(labels == np.round(labels)):
        msg = "write_qrels needs whole-number labels; found fractional values in the rel column"
        raise SchemaError(msg)
    if data.duplicated(["query", "doc"]).any():
        pair = data.loc[data.duplicated(["query", "doc"]), ["query", "doc"]].iloc[0].tolist()
        msg = f"write_qrels: (query, doc) {tuple(pair)} has two different labels"
        raise SchemaError(msg)
    data = data.sort_values(["query", "doc"], kind="stable")
    lines = data["query"] + " 0 " + data["doc"] + " " + data["rel"].astype(np.int64).astype(str)
    _open_for_writing(path_or_buffer, "".join(line + "\n" for line in lines))
