"""trec_eval's preference formats as frames: reading the files, checking user frames.

* ``prefs`` (``trec_eval -R prefs``): ``qid jg jsg docno rel_level`` per line -- a
  judgment group (one user's view of one information need), a sub-group within it, a
  document and its level, a number. Documents of one sub-group with different levels
  imply the preferences between them (higher preferred).
* ``qrels_prefs`` (``-R qrels_prefs``): ordinary qrels ``qid iter docno rel`` read as
  preferences, the ``iter`` field as the judgment group and one sub-group per group.
* ``qrels_jg`` (``-R qrels_jg``): qrels whose second field names a judgment group
  (``qid jg docno rel``): one set of ordinary judgments per group.

Frames: a preference frame has the columns ``query``, ``group``, ``subgroup``, ``doc``
and ``rel`` (float64); a judgment-group frame ``query``, ``group``, ``doc`` and ``rel``.
"""

from __future__ import annotations

import gzip
import os
from collections.abc import Sequence
from pathlib import Path
from typing import IO, Any

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc

from pdireval._core.errors import SchemaError
from pdireval._core.roles import resolve
from pdireval._prepare.arrays import string_array
from pdireval.io import read_qrels

__all__ = [
    "PREFS_COLUMNS",
    "QRELS_JG_COLUMNS",
    "checked_prefs",
    "checked_qrels_jg",
    "prefs_from_qrels",
    "read_prefs",
    "read_qrels_jg",
]

PathOrBuffer = str | bytes | os.PathLike[str] | IO[str] | IO[bytes]

#: The columns of a preference frame, in order.
PREFS_COLUMNS = ("query", "group", "subgroup", "doc", "rel")
#: The columns of a judgment-group frame, in order.
QRELS_JG_COLUMNS = ("query", "group", "doc", "rel")

_PREFS_FIELDS = "qid jg jsg docno rel_level"
_GZIP = b"\x1f\x8b"
# what C's atof reads as a whole field (trec_eval reads a level with atof)
_NUMBER = (
    r"^[+-]?(?:(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?|[iI][nN][fF]"
    r"|[iI][nN][fF][iI][nN][iI][tT][yY])$"
)
_SHOWN = 200  # characters of a line shown in a message


# --------------------------------------------------------------------------- reading


def read_prefs(path_or_buffer: PathOrBuffer, *, encoding: str = "utf-8") -> pd.DataFrame:
    """Read a trec_eval preference file (``trec_eval -R prefs``) into a frame.

    Parameters
    ----------
    path_or_buffer : str, path or file-like
        Preferences in trec_eval's ``prefs`` format, ``qid jg jsg docno rel_level`` per
        line, fields separated by spaces and/or tabs: the query, the judgment group (a
        user's judgments of one information need), the sub-group within it, the
        document and its level (a number). A gzip stream is decompressed; blank lines
        and lines whose first field starts with ``#`` are skipped (trec_eval 10.0 skips
        such comment lines; 9.0.8 has none).
    encoding : str, default "utf-8"
        Encoding of a file or binary buffer (text buffers are already decoded).

    Returns
    -------
    DataFrame
        Columns ``query``, ``group``, ``subgroup``, ``doc`` as strings and ``rel``
        (float64), in file order, fresh RangeIndex; empty when the file holds no lines.

    Raises
    ------
    SchemaError
        A line without exactly five fields, or a level that is not a number (or is
        NaN); the message names the file, the line number and the line.
    OSError
        The file cannot be read.

    See Also
    --------
    prefs_from_qrels : ordinary judgments as preferences (``-R qrels_prefs``).
    evaluate_prefs : the preference measures of a run.

    Notes
    -----
    Within a sub-group, every document is preferred to every document of a lower level;
    documents of one level are tied. A judgment group with one sub-group is a complete
    ordering by level; several sub-groups of one group express a partial order, closed
    under transitivity (a > b in one sub-group and b > c in another imply a > c). A level
    of 0 marks a non-relevant document. Different groups may disagree. The file is
    checked for these rules when it is evaluated (:func:`evaluate_prefs`).

    Examples
    --------
    >>> import io, pdireval
    >>> text = "q1 u1 s1 d1 3\\nq1 u1 s1 d2 2\\nq1 u1 s1 d3 0\\n"
    >>> pdireval.read_prefs(io.StringIO(text))
      query group subgroup doc  rel
    0    q1    u1       s1  d1  3.0
    1    q1    u1       s1  d2  2.0
    2    q1    u1       s1  d3  0.0
    """
    text, name = _text(path_or_buffer, encoding)
    lines = pa.array(text.split("\n"), pa.large_string())
    trimmed = pc.ascii_trim_whitespace(lines)
    blank = pc.equal(pc.binary_length(trimmed), 0).to_numpy(zero_copy_only=False)
    fields = pc.ascii_split_whitespace(trimmed)
    counts = pc.list_value_length(fields).to_numpy(zero_copy_only=False)
    comment = pc.starts_with(trimmed, "#").to_numpy(zero_copy_only=False)
    data = ~blank & ~comment
    wrong = np.flatnonzero(data & (counts != 5))
    if len(wrong):
        at = int(wrong[0])
        problem = f"expected 5 fields ({_PREFS_FIELDS}), found {int(counts[at])}"
        raise _line_error(name, at, lines[at].as_py(), problem)
    kept = pc.filter(fields, pa.array(data))
    columns = [pc.list_element(kept, place) for place in range(5)] if len(kept) else None
    rel = _levels(columns[4], lines, np.flatnonzero(data), name) if columns else np.zeros(0)
    names = PREFS_COLUMNS[:4]
    frame = pd.DataFrame(
        {
            column: string_array(columns[place] if columns else pa.array([], pa.large_string()))
            for place, column in enumerate(names)
        }
    )
    frame["rel"] = rel
    return frame


def read_qrels_jg(path_or_buffer: PathOrBuffer, *, encoding: str = "utf-8") -> pd.DataFrame:
    """Read qrels of several judgment groups (``trec_eval -R qrels_jg``) into a frame.

    Parameters
    ----------
    path_or_buffer : str, path or file-like
        Judgments in TREC qrels format whose second field names the judgment group
        (the user, or the set of judgments) of each line: ``qid jg docno rel``. Read as
        :func:`pdireval.read_qrels` reads qrels (gzip, comments, blank lines).
    encoding : str, default "utf-8"
        Encoding of a file or binary buffer.

    Returns
    -------
    DataFrame
        Columns ``query``, ``group``, ``doc`` as strings and ``rel`` (int64), in file
        order.

    Raises
    ------
    SchemaError
        A line without exactly four fields, a label that is not an integer, or a
        document judged twice by one group for a query; the message names the file,
        the line number and the line.

    See Also
    --------
    evaluate_qrels_jg : precision and average precision averaged over the groups.

    Examples
    --------
    >>> import io, pdireval
    >>> pdireval.read_qrels_jg(io.StringIO("1 alice d1 1\\n1 bob d1 0\\n"))
      query  group doc  rel
    0     1  alice  d1    1
    1     1    bob  d1    0
    """
    frame = read_qrels(path_or_buffer, encoding=encoding, subtopics=True)
    return frame.rename(columns={"subtopic": "group"})[list(QRELS_JG_COLUMNS)]


def prefs_from_qrels(qrels: pd.DataFrame, *, group: str | None = None) -> pd.DataFrame:
    """Ordinary judgments as preferences, as ``trec_eval -R qrels_prefs`` reads a qrels file.

    Each query's judgments become one judgment group (or one per value of ``group``,
    trec_eval's ``iter`` field) with a single sub-group: every document is preferred to
    the documents of lower labels of its group.

    Parameters
    ----------
    qrels : DataFrame
        Judgments with ``query``, ``doc`` and ``rel`` columns (or their synonyms
        ``qid``, ``docno``, ``relevance``/``label``), as :func:`pdireval.read_qrels`
        reads them.
    group : str, optional
        The column naming each judgment's group. By default ``group`` if present, else
        the subtopic column :func:`pdireval.read_qrels` keeps when a file's second field
        varies (trec_eval's ``iter``), else one group ``"0"`` per query.

    Returns
    -------
    DataFrame
        A preference frame: ``query``, ``group``, ``subgroup`` (``"0"``), ``doc`` and
        ``rel`` (float64), one row per judgment, in the order of ``qrels``.

    Examples
    --------
    >>> import pandas as pd, pdireval
    >>> qrels = pd.DataFrame({"query": ["q1", "q1"], "doc": ["d1", "d2"], "rel": [1, 0]})
    >>> pdireval.prefs_from_qrels(qrels)
      query group subgroup doc  rel
    0    q1     0        0  d1  1.0
    1    q1     0        0  d2  0.0
    """
    roles = resolve(qrels, None)
    roles.require(qrels, "query", "doc", "rel")
    chosen = group if group is not None else _group_column(qrels, roles.subtopic)
    if chosen is not None and chosen not in qrels.columns:
        msg = f"group={chosen!r} is not a column of the qrels (columns: {list(qrels.columns)})"
        raise SchemaError(msg)
    n = len(qrels)
    groups = qrels[chosen].to_numpy() if chosen is not None else np.full(n, "0", dtype=object)
    frame = pd.DataFrame(
        {
            "query": qrels[roles.name("query")].to_numpy(),
            "group": groups,
            "subgroup": np.full(n, "0", dtype=object),
            "doc": qrels[roles.name("doc")].to_numpy(),
            "rel": _numbers(qrels[roles.name("rel")], "rel", "the qrels"),
        }
    )
    return checked_prefs(frame, "the qrels")


def _group_column(frame: pd.DataFrame, subtopic: str | None) -> str | None:
    return "group" if "group" in frame.columns else subtopic


# --------------------------------------------------------------------------- user frames


def checked_prefs(prefs: pd.DataFrame, what: str = "the preferences") -> pd.DataFrame:
    """A preference frame with its five columns, ids without nulls and finite-or-infinite
    numeric levels (``what`` names the frame in messages); the input is not modified.
    """
    return _checked(prefs, PREFS_COLUMNS, what, read_prefs)


def checked_qrels_jg(qrels: pd.DataFrame, what: str = "the judgments") -> pd.DataFrame:
    """A judgment-group frame with its four columns, ids without nulls and whole-number
    labels (trec_eval reads them as integers).
    """
    checked = _checked(qrels, QRELS_JG_COLUMNS, what, read_qrels_jg)
    labels = checked["rel"].to_numpy()
    fraction = np.flatnonzero(~np.isfinite(labels) | (labels != np.round(labels)))
    if len(fraction):
        row = int(fraction[0])
        msg = (
            f"{what} have a label that is not a whole number on row {row}: {labels[row]!r}; "
            "judgment-group labels are integers (trec_eval reads them so), e.g. "
            "qrels['rel'] = qrels['rel'].round().astype(int)"
        )
        raise SchemaError(msg)
    return checked


def _checked(frame: Any, names: Sequence[str], what: str, reader: Any) -> pd.DataFrame:
    if not isinstance(frame, pd.DataFrame):
        msg = (
            f"{what} must be a pandas DataFrame with columns {list(names)}, got "
            f"{type(frame).__name__}; read a file with pdireval.{reader.__name__}(path)"
        )
        raise SchemaError(msg)
    roles = resolve(frame, None)
    found = {
        "query": roles.query,
        "doc": roles.doc,
        "rel": roles.rel,
        "group": "group" if "group" in frame.columns else roles.subtopic,
        "subgroup": "subgroup" if "subgroup" in frame.columns else None,
    }
    missing = [name for name in names if found[name] is None]
    if missing:
        msg = (
            f"{what} lack the column(s) {missing} (columns: {list(frame.columns)}); a "
            f"frame of {'preferences' if 'subgroup' in names else 'judgment groups'} has "
            f"the columns {list(names)}, as pdireval.{reader.__name__} reads them"
        )
        raise SchemaError(msg)
    out = pd.DataFrame({name: frame[str(found[name])].to_numpy() for name in names})
    for name in names[:-1]:
        _refuse_nulls(out[name], name, what)
    out["rel"] = _numbers(out["rel"], str(found["rel"]), what)
    return out


def _refuse_nulls(ids: pd.Series, name: str, what: str) -> None:
    missing = ids.isna().to_numpy()
    if missing.any():
        row = int(np.flatnonzero(missing)[0])
        msg = (
            f"{what} have a missing {name} on row {row} ({int(missing.sum())} row(s) in "
            f"all); every row needs a {name}: drop or fill those rows first"
        )
        raise SchemaError(msg)


def _numbers(values: pd.Series, name: str, what: str) -> np.ndarray:
    numbers = pd.to_numeric(pd.Series(values.to_numpy()), errors="coerce").to_numpy(
        dtype=np.float64, na_value=np.nan
    )
    bad = np.flatnonzero(np.isnan(numbers))
    if len(bad):
        row = int(bad[0])
        msg = (
            f"{what} have a level that is not a number in column {name!r}: "
            f"{values.iloc[row]!r} on row {row} ({len(bad)} row(s) in all); every level "
            "must be a number (higher: preferred; 0: not relevant)"
        )
        raise SchemaError(msg)
    return numbers


# --------------------------------------------------------------------------- files


def _text(source: PathOrBuffer, encoding: str) -> tuple[str, str]:
    """The text of a file or buffer (gzip decompressed, BOM dropped) and its name."""
    if isinstance(source, str | bytes | os.PathLike):
        name = os.fsdecode(source)
        data: bytes | str = Path(name).read_bytes()
    elif hasattr(source, "read"):
        name = str(getattr(source, "name", "the buffer"))
        data = source.read()
    else:
        msg = (
            f"expected a path or a file-like object, got {type(source).__name__}; pass "
            "the file's path, or io.StringIO(text) for text in memory"
        )
        raise SchemaError(msg)
    text = data if isinstance(data, str) else _decoded(data, name, encoding)
    return text.removeprefix("\ufeff"), name


def _decoded(data: bytes, name: str, encoding: str) -> str:
    if data[:2] == _GZIP:
        data = gzip.decompress(data)
    try:
        return data.decode(encoding)
    except UnicodeDecodeError as error:
        line = data.count(b"\n", 0, error.start) + 1
        msg = (
            f"{name}, line {line}: bytes {data[error.start : error.end]!r} are not "
            f"valid {encoding}; pass the file's encoding, e.g. encoding='latin-1'"
        )
        raise SchemaError(msg) from None


def _levels(field: pa.ChunkedArray, lines: pa.Array, rows: np.ndarray, name: str) -> np.ndarray:
    """The levels of the data lines (``rows``: their places in ``lines``) as float64."""
    ok = pc.match_substring_regex(field, _NUMBER).to_numpy(zero_copy_only=False)
    if not ok.all():
        at = int(rows[np.flatnonzero(~ok)[0]])
        token = field[int(np.flatnonzero(~ok)[0])].as_py()
        problem = f"the level {token!r} is not a number"
        raise _line_error(name, at, lines[at].as_py(), problem)
    return np.asarray(pc.cast(field, pa.float64()).to_numpy(zero_copy_only=False), np.float64)


def _line_error(name: str, at: int, line: str, problem: str) -> SchemaError:
    shown = line.rstrip("\r")
    if len(shown) > _SHOWN:
        shown = shown[:_SHOWN] + "..."
    return SchemaError(f"{name}, line {at + 1}: {problem}: {shown!r}")
