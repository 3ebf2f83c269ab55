"""Judging sheets: the holes in the judgments written out to be judged, and read back.

A sheet lists each unjudged (query, doc) once, with an empty label to fill: an Excel
workbook (``.xlsx``, with the texts of queries and documents when given) or a TREC
qrels template (``.txt`` / ``.qrels``). Reading a filled sheet back gives a qrels frame
of a new judge, and refuses a sheet whose labels are missing or not whole numbers, or
whose ids were edited, added or removed.
"""

from __future__ import annotations

import hashlib
import math
import re
import zipfile
import zlib
from collections import Counter
from collections.abc import Collection, Hashable, Iterable, Mapping
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from pdireval._core.errors import SchemaError
from pdireval._core.escape import excel_text
from pdireval._core.ids import refuse_text_collisions
from pdireval._core.optional import optional
from pdireval._core.roles import as_column_map
from pdireval.io.workbook import Sheet, written
from pdireval.typing import ColumnsLike

__all__ = ["PLACEHOLDER", "read_judging_sheet", "write_judging_sheet"]

#: The label field of an unfilled line of a TREC qrels template: not a number, so a line
#: left unfilled can never be read as a judgment.
PLACEHOLDER = "?"
_SHEET, _HIDDEN = "Judgments", "pdireval"
_TITLE = "pdireval judging sheet"
_QUERY, _QUERY_TEXT, _DOC, _DOC_TEXT, _LABEL = "query", "query text", "doc", "doc text", "label"
_TEXT_WIDTH = 60  # digit widths: a longer text wraps onto more lines
_QUERY_TEXT_WIDTH = 30  # digit widths: a query's text, beside the document's
_DOC_TEXT_WIDTH = 90  # digit widths: a document's text (landscape: fills the page)
_TO_FILL = "FFF2CC"  # the label column's fill: where the judge types
_CELL_LIMIT = 32_767  # characters an Excel cell holds (UTF-16 code units, as Excel counts)
_ID_SHOWN = 40  # characters of a long id shown in a message
_TEMPLATES = (".txt", ".qrels")
_IDS_LINE = re.compile(r"^#\s*ids:\s*(\d+) documents, sha256 ([0-9a-f]{64})\s*$")
_LABELS_LINE = re.compile(r"^#\s*labels:(.*)$")


def _openpyxl() -> Any:
    return optional(
        "openpyxl",
        purpose="an .xlsx judging sheet",
        hint="or use a TREC qrels template (a path ending in .txt or .qrels)",
    )


def _kind(path: str | Path) -> str:
    suffix = Path(path).suffix.lower()
    if suffix == ".xlsx":
        return "xlsx"
    if suffix in _TEMPLATES:
        return "trec"
    msg = (
        f"{str(path)!r}: a judging sheet is an Excel workbook (.xlsx) or a TREC qrels "
        f"template ({' or '.join(_TEMPLATES)}); name the file with one of these endings"
    )
    raise SchemaError(msg)


def _text(value: Any) -> str | None:
    """An id as the sheet holds it (text); None for a missing one."""
    if isinstance(value, np.generic):
        value = value.item()
    if value is None or value is pd.NA or (isinstance(value, float) and math.isnan(value)):
        return None
    return str(value)


def _pairs(holes: pd.DataFrame, columns: ColumnsLike) -> pd.DataFrame:
    """The distinct (query, doc) of a holes table, grouped by query (queries in sorted
    order of their text, documents in the table's order), as given and as text.
    """
    resolved = as_column_map(columns).resolve(holes)
    resolved.require(holes, "query", "doc")
    query, doc = resolved.name("query"), resolved.name("doc")
    for role, name in (("query", query), ("doc", doc)):
        refuse_text_collisions([holes[name]], role, "the holes")
    pairs = holes[[query, doc]].drop_duplicates(ignore_index=True)
    texts = {role: [_text(v) for v in pairs[name]] for role, name in (("q", query), ("d", doc))}
    for role, name in (("q", query), ("d", doc)):
        if None in texts[role]:
            at = texts[role].index(None)
            msg = f"the holes' {name!r} column is missing for row {at}; every hole needs its ids"
            raise SchemaError(msg)
    order = np.argsort(np.array(texts["q"], dtype=object), kind="stable")
    return pd.DataFrame(
        {
            "query": pairs[query].take(order).reset_index(drop=True),
            "doc": pairs[doc].take(order).reset_index(drop=True),
            "query_text": np.array(texts["q"], dtype=object)[order],
            "doc_text": np.array(texts["d"], dtype=object)[order],
        }
    )


def _cell_text(text: str) -> str:
    """A text as a cell can hold it: a text beyond Excel's limit (counted as Excel counts,
    see :func:`_excel_length`) is cut, visibly.
    """
    if _excel_length(text) <= _CELL_LIMIT:
        return text
    room = _CELL_LIMIT - 40  # room for the note
    units = text.encode("utf-16-le", "surrogatepass")[: 2 * room]
    kept = units.decode("utf-16-le", "ignore")  # a character cut in two is dropped
    return kept + f" … (cut: {len(text) - len(kept)} more characters)"


def _texts(texts: object, what: str) -> dict[str, str]:
    """Id (as text) -> text, from a mapping, a Series indexed by id or a two-column frame."""
    if texts is None:
        return {}
    if isinstance(texts, pd.DataFrame):
        if texts.shape[1] != 2:
            msg = (
                f"{what}: a frame of texts has two columns, the id and the text (got "
                f"{list(texts.columns)}); select them, e.g. topics[['query', 'text']]"
            )
            raise SchemaError(msg)
        texts = pd.Series(texts.iloc[:, 1].to_numpy(), index=texts.iloc[:, 0].to_numpy())
    if isinstance(texts, pd.Series):
        if not texts.index.is_unique:
            repeated = texts.index[texts.index.duplicated()][0]
            msg = f"{what}: id {repeated!r} has more than one text; give each id one text"
            raise SchemaError(msg)
        texts = dict(zip(texts.index, texts.to_numpy(), strict=True))
    if not isinstance(texts, Mapping):
        msg = (
            f"{what} must be a mapping of id to text, a Series indexed by id, or a frame "
            f"(id, text); got {type(texts).__name__}"
        )
        raise SchemaError(msg)
    found: dict[str, str] = {}
    for key, value in texts.items():
        name = _text(key)
        if name is not None and _text(value) is not None:
            found[name] = _cell_text(str(value))
    return found


def _allowed(labels: object) -> tuple[int, ...] | None:
    """The labels a judge may give, as sorted whole numbers (None: any whole number)."""
    if labels is None:
        return None
    if isinstance(labels, str) or not isinstance(labels, Iterable):
        msg = f"labels={labels!r} must be the whole numbers a judge may give, e.g. range(4)"
        raise SchemaError(msg)
    allowed = []
    for label in labels:
        number = _whole(label)
        if number is None:
            msg = f"labels= holds {label!r}; the labels a judge may give are whole numbers"
            raise SchemaError(msg)
        allowed.append(number)
    if not allowed:
        msg = "labels= is empty; give the labels a judge may use, e.g. range(4)"
        raise SchemaError(msg)
    return tuple(sorted(set(allowed)))


def _whole(value: Any) -> int | None:
    """A whole number from a cell or a field (an int, a whole float, or such text)."""
    if isinstance(value, np.generic):
        value = value.item()
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value
    if isinstance(value, float):
        return int(value) if math.isfinite(value) and value == round(value) else None
    if isinstance(value, str):
        text = value.strip()
        if re.fullmatch(r"[+-]?\d+", text):
            return int(text)
        try:
            number = float(text)
        except ValueError:
            return None
        return _whole(number)
    return None


def _checksum(pairs: Iterable[tuple[str, str]]) -> str:
    lines = sorted(f"{query}\t{doc}" for query, doc in pairs)
    return hashlib.sha256("\n".join(lines).encode("utf-8")).hexdigest()


def write_judging_sheet(
    holes: pd.DataFrame,
    path: str | Path,
    *,
    query_texts: object = None,
    doc_texts: object = None,
    labels: Collection[int] | None = None,
    columns: ColumnsLike = None,
) -> Path:
    """Write the holes in the judgments as a sheet to judge.

    Parameters
    ----------
    holes : DataFrame
        The documents to judge: query and doc columns, such as :func:`pdireval.holes`
        returns (its run and position columns are not written: a judge should not see
        which system ranked a document where). Each (query, doc) is listed once.
    path : str or Path
        ``.xlsx``: an Excel workbook; ``.txt`` or ``.qrels``: a TREC qrels template.
    query_texts, doc_texts : mapping, Series or DataFrame, optional
        The text of each query and document (id -> text; a frame of two columns, id
        and text, such as ``read_queries(...)[["query", "text"]]``), written next to
        the ids in a workbook. Ids are matched as text; an id without a text gets an
        empty cell.
    labels : collection of int, optional
        The labels a judge may give, e.g. ``range(4)``; a workbook offers them in a
        drop-down list, and :func:`read_judging_sheet` refuses any other.
    columns : ColumnMap or dict, optional
        Column roles of ``holes``.

    Returns
    -------
    Path
        ``path``.

    Raises
    ------
    SchemaError
        A path with another ending, a missing id, texts for a TREC template (it has
        no place for them), an id a TREC file cannot hold (empty, with whitespace, a
        query starting with ``#``), an id a workbook cannot hold (a control character,
        or longer than the 32,767 characters of an Excel cell: write a TREC template),
        or ``labels`` that are not whole numbers. Nothing is written then.
    MissingDependencyError
        An ``.xlsx`` path without openpyxl installed.

    Notes
    -----
    The rows are grouped by query (queries in sorted order of their ids as text), the
    documents of a query in the order of ``holes``. In a workbook, the sheet
    "Judgments" has the columns ``query``, ``query text`` (with texts), ``doc``,
    ``doc text`` (with texts) and ``label``, empty and shaded, to fill in; the ids are
    text cells, and texts that a spreadsheet would read as formulas are stored as
    text. A hidden sheet "pdireval" keeps every (query, doc) as written, so that
    :func:`read_judging_sheet` finds ids that were edited, added or removed; rows may
    be sorted and filtered freely. A TREC template has one line ``query 0 doc ?`` per
    document: the label field holds ``?``, which no reader takes for a label, and a
    comment line records a SHA-256 checksum of the ids.

    Examples
    --------
    >>> import tempfile, pandas as pd, pdireval
    >>> from pathlib import Path
    >>> found = pd.DataFrame({"query": ["q1", "q1"], "doc": ["d7", "d2"]})
    >>> path = pdireval.write_judging_sheet(found, Path(tempfile.mkdtemp()) / "to_judge.txt")
    >>> print(path.read_text(), end="")  # doctest: +ELLIPSIS
    # pdireval judging sheet: replace each ? with the document's label
    # ids: 2 documents, sha256 ...
    q1 0 d7 ?
    q1 0 d2 ?
    """
    kind = _kind(path)
    pairs = _pairs(holes, columns)
    allowed = _allowed(labels)
    if kind == "trec":
        if query_texts is not None or doc_texts is not None:
            msg = (
                "a TREC qrels template has no place for texts; write an .xlsx judging "
                "sheet to show them, or leave query_texts= and doc_texts= out"
            )
            raise SchemaError(msg)
        Path(path).write_text(_template(pairs, allowed), encoding="utf-8")
        return Path(path)
    for role in ("query", "doc"):
        for value in pairs[f"{role}_text"]:
            if excel_text(value) != value:
                msg = (
                    f"{role} id {_shown(value)} holds a control character, which an .xlsx "
                    "cell cannot hold; write a TREC qrels template (.txt) instead"
                )
                raise SchemaError(msg)
    _refuse_long_ids(pairs)
    _workbook(pairs, Path(path), _texts(query_texts, "query_texts"), _texts(doc_texts, "doc_texts"),
              allowed, show_texts=(query_texts is not None, doc_texts is not None))  # fmt: skip
    return Path(path)


def _excel_length(text: str) -> int:
    """The characters of ``text`` as Excel counts them: UTF-16 code units (a character
    beyond the Basic Multilingual Plane, such as an emoji, counts twice).
    """
    if text.isascii():
        return len(text)
    return len(text.encode("utf-16-le", "surrogatepass")) // 2


def _shown(value: str) -> str:
    """An id for a message: its start when it is long."""
    if len(value) <= _ID_SHOWN:
        return repr(value)
    return f"{value[:_ID_SHOWN]!r}..."


def _refuse_long_ids(pairs: pd.DataFrame) -> None:
    """Refuse an id longer than an Excel cell holds: a workbook would keep it cut.

    openpyxl cuts a longer text to the limit without a word, and Excel cuts or refuses
    it; a cut id would come back as another document.
    """
    for query, doc in zip(pairs["query_text"], pairs["doc_text"], strict=True):
        for role, value in (("query", query), ("doc", doc)):
            length = _excel_length(value)
            if length <= _CELL_LIMIT:
                continue
            where = (
                f"the query id {_shown(query)}"
                if role == "query"
                else f"the doc id {_shown(doc)} of query {_shown(query)}"
            )
            counted = "" if length == len(value) else " (counted as Excel counts them)"
            msg = (
                f"{where} is {length:,} characters long{counted}, and an Excel cell holds "
                f"at most {_CELL_LIMIT:,}: the workbook would hold it cut, a different id. "
                "Write a TREC qrels template instead (a path ending in .txt or .qrels), "
                "which holds ids of any length"
            )
            raise SchemaError(msg)


def _template(pairs: pd.DataFrame, allowed: tuple[int, ...] | None) -> str:
    """A TREC qrels template: comment lines, then ``query 0 doc ?`` per document."""
    for role in ("query", "doc"):
        for value in pairs[f"{role}_text"]:
            if not value or any(char.isspace() for char in value) or "\x00" in value:
                msg = (
                    f"{role} id {_shown(value)} cannot be written to a TREC qrels file "
                    "(empty, or holding whitespace or a NUL character); write an .xlsx "
                    "judging sheet"
                )
                raise SchemaError(msg)
    starts = [value for value in pairs["query_text"] if value.startswith("#")]
    if starts:
        msg = (
            f"query id {_shown(starts[0])} starts with '#', which a TREC qrels file reads "
            "as a comment; write an .xlsx judging sheet"
        )
        raise SchemaError(msg)
    texts = list(zip(pairs["query_text"], pairs["doc_text"], strict=True))
    header = [
        f"# {_TITLE}: replace each {PLACEHOLDER} with the document's label",
    ]
    if allowed is not None:
        header.append("# labels: " + " ".join(str(label) for label in allowed))
    header.append(f"# ids: {len(texts)} documents, sha256 {_checksum(texts)}")
    lines = [f"{query} 0 {doc} {PLACEHOLDER}" for query, doc in texts]
    return "\n".join([*header, *lines]) + "\n"


def _workbook(
    pairs: pd.DataFrame,
    path: Path,
    query_texts: dict[str, str],
    doc_texts: dict[str, str],
    allowed: tuple[int, ...] | None,
    *,
    show_texts: tuple[bool, bool],
) -> None:
    openpyxl = _openpyxl()
    from openpyxl.worksheet.datavalidation import DataValidation

    book = openpyxl.Workbook()
    sheet = Sheet(book, _SHEET)
    sheet.widest = _DOC_TEXT_WIDTH
    names = [_QUERY, *([_QUERY_TEXT] if show_texts[0] else []), _DOC]
    names += [*([_DOC_TEXT] if show_texts[1] else []), _LABEL]
    sheet.header(names, text_columns=len(names))
    where = {name: column for column, name in enumerate(names, start=1)}
    for row, (query, doc) in enumerate(
        zip(pairs["query_text"], pairs["doc_text"], strict=True), start=2
    ):
        sheet.cell(row, where[_QUERY], query)
        sheet.cell(row, where[_DOC], doc)
        if show_texts[0]:
            sheet.cell(
                row,
                where[_QUERY_TEXT],
                query_texts.get(query),
                wrap=_QUERY_TEXT_WIDTH if show_texts[1] else _TEXT_WIDTH,
            )
        if show_texts[1]:
            sheet.cell(row, where[_DOC_TEXT], doc_texts.get(doc), wrap=_DOC_TEXT_WIDTH)
        sheet.cell(row, where[_LABEL], None, fill=_TO_FILL, shown="label")
    last = len(pairs) + 1
    label_column = sheet.sheet.cell(row=1, column=where[_LABEL]).column_letter
    if allowed is not None:
        choices = DataValidation(
            type="list",
            formula1='"' + ",".join(str(label) for label in allowed) + '"',
            allow_blank=True,
            showErrorMessage=True,
            errorTitle="Label",
            error="Choose one of the labels " + ", ".join(str(label) for label in allowed),
        )
        sheet.sheet.add_data_validation(choices)
        choices.add(f"{label_column}2:{label_column}{max(last, 2)}")
    sheet.finish(len(pairs), len(names), "A2")
    ids = book.create_sheet(_HIDDEN)
    ids.append([_TITLE, "every (query, doc) as written, to find edited ids; do not edit"])
    ids.append(["labels", " ".join(str(label) for label in allowed) if allowed else ""])
    ids.append([_QUERY, _DOC])
    for row, (query, doc) in enumerate(zip(pairs["query_text"], pairs["doc_text"], strict=True)):
        written(ids.cell(row=row + 4, column=1), query)  # text, never a formula
        written(ids.cell(row=row + 4, column=2), doc)
    ids.sheet_state = "hidden"
    book.active = 0
    book.save(path)


def read_judging_sheet(
    path: str | Path,
    *,
    judge: Hashable,
    holes: pd.DataFrame | None = None,
    labels: Collection[int] | None = None,
    columns: ColumnsLike = None,
) -> pd.DataFrame:
    """Read a filled judging sheet back as the judgments of a new judge.

    Parameters
    ----------
    path : str or Path
        A sheet :func:`write_judging_sheet` wrote (``.xlsx``, ``.txt`` or ``.qrels``),
        with every label filled in.
    judge : hashable
        The judge's name, put in the ``judge`` column.
    holes : DataFrame, optional
        The holes the sheet was written from: the sheet must list exactly their
        (query, doc) pairs (ids compared as text), and the ids come back with the
        holes' dtypes, ready to merge with the run.
    labels : collection of int, optional
        The labels a judge may give; by default those given when the sheet was written,
        else any whole number.
    columns : ColumnMap or dict, optional
        Column roles of ``holes``.

    Returns
    -------
    DataFrame
        ``query``, ``doc``, ``rel`` (int64) and ``judge``, one row per document in the
        sheet's order; ids as strings, or with the dtypes of ``holes`` when given.

    Raises
    ------
    SchemaError
        A label left empty (or the template's ``?``), a label that is not a whole
        number or not one of ``labels``; ids edited, added, removed or repeated (against
        the ids recorded in the sheet, and against ``holes``); a sheet without its
        record of the ids and no ``holes`` to check against; an ``.xlsx`` file that is
        not an Excel workbook (another file renamed, or one cut short). Each message
        names the file, and the rows or lines.
    MissingDependencyError
        An ``.xlsx`` path without openpyxl installed.
    OSError
        The file cannot be read (missing, a directory, no permission); the message
        names the path.

    Examples
    --------
    >>> import tempfile, pandas as pd, pdireval
    >>> from pathlib import Path
    >>> found = pd.DataFrame({"query": ["q1", "q1"], "doc": ["d7", "d2"]})
    >>> path = pdireval.write_judging_sheet(found, Path(tempfile.mkdtemp()) / "to_judge.txt")
    >>> _ = path.write_text(path.read_text().replace("d7 ?", "d7 2").replace("d2 ?", "d2 0"))
    >>> pdireval.read_judging_sheet(path, judge="alice", holes=found)
      query doc  rel  judge
    0    q1  d7    2  alice
    1    q1  d2    0  alice
    """
    kind = _kind(path)
    allowed = _allowed(labels)
    if kind == "trec":
        ids, label, recorded, stored = _read_template(Path(path), allowed)
    else:
        ids, label, recorded, stored = _read_workbook(Path(path), allowed)
    expected = None if holes is None else _pairs(holes, columns)
    if expected is not None:
        pairs = list(zip(expected["query_text"], expected["doc_text"], strict=True))
        _compare_ids(ids, pairs, "the holes given", path)
    if recorded is not None:
        _compare_ids(ids, recorded, "the ids written to the sheet", path)
    elif stored is None and expected is None:
        msg = (
            f"{str(path)!r} holds no record of the ids it was written with (the "
            "checksum line of a template, or the hidden sheet of a workbook, is gone), so "
            "edited ids cannot be found; pass the holes it was written from: "
            "read_judging_sheet(path, judge=..., holes=holes)"
        )
        raise SchemaError(msg)
    elif stored is not None and stored != (len(ids), _checksum(ids)):
        msg = (
            f"the ids of {str(path)!r} are not the ids it was written with (its checksum "
            "differs): a line was edited, added or removed; restore the lines, or pass "
            "the holes it was written from with holes= to see which"
        )
        raise SchemaError(msg)
    return _qrels(ids, label, judge, expected)


def _labels_of(
    values: list[Any], where: list[str], allowed: tuple[int, ...] | None, path: Path
) -> np.ndarray:
    """Each filled label as a whole number; refuses empty, non-numeric and other labels."""
    empty = [at for at, value in zip(where, values, strict=True) if _blank(value)]
    if empty:
        msg = (
            f"{len(empty)} label(s) in {str(path)!r} are not filled in ({_examples(empty)}); "
            "give every document a label"
        )
        raise SchemaError(msg)
    numbers = [_whole(value) for value in values]
    bad = [(at, v) for at, v, n in zip(where, values, numbers, strict=True) if n is None]
    if bad:
        shown = ", ".join(f"{at}: {value!r}" for at, value in bad[:3])
        msg = (
            f"{len(bad)} label(s) in {str(path)!r} are not whole numbers ({shown}); "
            "labels are grades such as 0, 1, 2"
        )
        raise SchemaError(msg)
    if allowed is not None:
        outside = [(at, n) for at, n in zip(where, numbers, strict=True) if n not in allowed]
        if outside:
            shown = ", ".join(f"{at}: {number}" for at, number in outside[:3])
            msg = (
                f"{len(outside)} label(s) in {str(path)!r} are not among the labels "
                f"{list(allowed)} ({shown}); correct them"
            )
            raise SchemaError(msg)
    return np.array(numbers, dtype=np.int64)


def _blank(value: Any) -> bool:
    return value is None or (isinstance(value, str) and value.strip() in ("", PLACEHOLDER))


def _examples(where: list[str]) -> str:
    more = f" and {len(where) - 3} more" if len(where) > 3 else ""
    return ", ".join(where[:3]) + more


def _read_template(
    path: Path, allowed: tuple[int, ...] | None
) -> tuple[list[tuple[str, str]], np.ndarray, None, tuple[int, str] | None]:
    """The ids and labels of a TREC template, and its recorded (count, checksum).

    The file is read by :func:`pdireval.read_qrels` from its path, so that a message
    about a line names the file.
    """
    from pdireval.io.trec import read_qrels

    data = path.read_bytes()
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as error:
        number = data.count(b"\n", 0, error.start) + 1
        msg = (
            f"{str(path)!r}, line {number}: the bytes {data[error.start : error.end]!r} are "
            "not valid UTF-8, the encoding a judging sheet is written in; save the file as "
            "UTF-8 text"
        )
        raise SchemaError(msg) from None
    stored, written_labels = None, None
    unfilled = []
    for number, line in enumerate(text.removeprefix("\ufeff").split("\n"), start=1):
        if match := _IDS_LINE.match(line):
            stored = (int(match.group(1)), match.group(2))
        elif match := _LABELS_LINE.match(line):
            if allowed is None:  # else the labels given are the ones allowed
                line_of = f"{str(path)!r}, line {number}"
                written_labels = _recorded_labels(match.group(1), line_of)
        elif not line.lstrip().startswith("#") and line.split()[-1:] == [PLACEHOLDER]:
            unfilled.append(f"line {number}")
    if unfilled:
        msg = (
            f"{len(unfilled)} label(s) in {str(path)!r} still hold the placeholder "
            f"{PLACEHOLDER!r} ({_examples(unfilled)}); replace each with the document's label"
        )
        raise SchemaError(msg)
    frame = read_qrels(path, subtopics=False)
    ids = list(zip(frame["query"].tolist(), frame["doc"].tolist(), strict=True))
    where = [f"{query} {doc}" for query, doc in ids]
    label = _labels_of(frame["rel"].tolist(), where, allowed or written_labels, path)
    return ids, label, None, stored


def _recorded_labels(text: str, where: str) -> tuple[int, ...] | None:
    """The labels a sheet recorded when it was written (None: any whole number)."""
    numbers = [_whole(word) for word in text.split()]
    if None in numbers:
        msg = (
            f"{where}: the labels recorded when the sheet was written ({text.strip()!r}) are "
            "not whole numbers: the line was edited; restore it, or pass the labels a "
            "judge may give with labels="
        )
        raise SchemaError(msg)
    return tuple(sorted({number for number in numbers if number is not None})) or None


def _load_workbook(path: Path) -> Any:
    """The workbook at ``path``; SchemaError when the file is not one."""
    openpyxl = _openpyxl()
    try:
        return openpyxl.load_workbook(path, data_only=True)
    except (zipfile.BadZipFile, KeyError, EOFError, zlib.error, SyntaxError) as error:
        raise _not_a_workbook(path, error) from error


def _not_a_workbook(path: Path, error: Exception) -> SchemaError:
    """The error for a ``.xlsx`` file that is not an Excel workbook: what it seems to be."""
    with open(path, "rb") as handle:
        head = handle.read(8)
    if not head:
        found = "is empty"
    elif head.startswith(b"PK"):  # a zip archive, as a workbook is, but not a whole one
        found = (
            f"is a zip archive but not a complete Excel workbook ({error}): it was cut "
            "short (an interrupted copy or download?) or is another zip file renamed"
        )
    elif head.startswith(b"\xd0\xcf\x11\xe0"):
        found = "is an old Excel 97-2003 workbook (.xls) or another Office file renamed"
    else:
        found = (
            f"is not an Excel workbook, which is a zip archive: it starts with {head!r} "
            "(a text file, such as a CSV or TREC file, renamed?)"
        )
    msg = (
        f"{str(path)!r} {found}; open it in a spreadsheet program and save it as an Excel "
        "workbook (.xlsx), copy it again if it was cut short, or write a new sheet with "
        "write_judging_sheet (a filled TREC template is read from a path ending in .txt "
        "or .qrels)"
    )
    return SchemaError(msg)


def _read_workbook(
    path: Path, allowed: tuple[int, ...] | None
) -> tuple[list[tuple[str, str]], np.ndarray, list[tuple[str, str]] | None, None]:
    """The ids and labels of a workbook, and the ids its hidden sheet recorded."""
    book = _load_workbook(path)
    if _SHEET not in book.sheetnames:
        msg = f"{str(path)!r} has no sheet {_SHEET!r} (sheets: {book.sheetnames}); restore its name"
        raise SchemaError(msg)
    rows = list(book[_SHEET].iter_rows(values_only=True))
    at = _columns_at(rows, path)
    ids, values, where = _judged_rows(rows, at, path)
    recorded, written_labels = None, None
    if _HIDDEN in book.sheetnames:
        recorded, written_labels = _hidden_record(book, allowed, path)
    label = _labels_of(values, where, allowed or written_labels, path)
    return ids, label, recorded, None


def _columns_at(rows: list[tuple[Any, ...]], path: Path) -> dict[str, int]:
    """Where the query, doc and label columns are in the sheet's first row."""
    header = [str(value).strip() if value is not None else "" for value in (rows or [()])[0]]
    missing = [name for name in (_QUERY, _DOC, _LABEL) if name not in header]
    if missing:
        msg = (
            f"the sheet {_SHEET!r} of {str(path)!r} has no column(s) {missing} in its first "
            f"row (found {header}); restore the headers"
        )
        raise SchemaError(msg)
    return {name: header.index(name) for name in (_QUERY, _DOC, _LABEL)}


def _judged_rows(
    rows: list[tuple[Any, ...]], at: dict[str, int], path: Path
) -> tuple[list[tuple[str, str]], list[Any], list[str]]:
    """The ids, label cells and row names of the sheet's rows below the header, empty
    rows left out.
    """
    ids, values, where = [], [], []
    for number, row in enumerate(rows[1:], start=2):
        cells = [row[at[name]] if at[name] < len(row) else None for name in at]
        if all(_blank(cell) for cell in cells):
            continue  # an empty row (a sheet keeps formatted empty rows)
        query, doc = _text(cells[0]), _text(cells[1])
        if query is None or doc is None:
            msg = f"row {number} of {str(path)!r} has a label but no query or doc id; restore it"
            raise SchemaError(msg)
        ids.append((query, doc))
        values.append(cells[2])
        where.append(f"row {number}")
    return ids, values, where


def _hidden_record(
    book: Any, allowed: tuple[int, ...] | None, path: Path
) -> tuple[list[tuple[str, str]], tuple[int, ...] | None]:
    """The ids and the labels the workbook's hidden sheet recorded when it was written
    (the labels None when ``allowed`` gives them).
    """
    kept = list(book[_HIDDEN].iter_rows(values_only=True))
    if len(kept) < 3 or len(kept[1]) < 2 or any(len(row) < 2 for row in kept[3:]):
        msg = (
            f"the hidden sheet {_HIDDEN!r} of {str(path)!r}, which records the ids the "
            "sheet was written with, was edited; restore it, or delete it and pass the "
            "holes the sheet was written from with holes="
        )
        raise SchemaError(msg)
    written_labels = None
    if allowed is None:  # else the labels given are the ones allowed
        where_labels = f"{str(path)!r}, hidden sheet {_HIDDEN!r}"
        written_labels = _recorded_labels(str(kept[1][1] or ""), where_labels)
    recorded = [(_text(q) or "", _text(d) or "") for q, d, *_ in kept[3:]]
    return recorded, written_labels


def _compare_ids(
    ids: list[tuple[str, str]], expected: list[tuple[str, str]], against: str, path: Path | str
) -> None:
    """Refuse ids that are repeated, or not exactly those ``expected``."""
    counts = Counter(ids)
    seen = set(counts)
    repeated = [pair for pair, count in counts.items() if count > 1]
    wanted = set(expected)
    added = [pair for pair in ids if pair not in wanted]
    removed = [pair for pair in expected if pair not in seen]
    problems = []
    if repeated:
        problems.append(f"listed twice: {_pair_examples(repeated)}")
    if added:
        problems.append(f"not in {against} (edited or added): {_pair_examples(added)}")
    if removed:
        problems.append(f"in {against} but missing (edited or removed): {_pair_examples(removed)}")
    if problems:
        msg = (
            f"the (query, doc) ids of the judging sheet {str(path)!r} are not {against}: "
            + "; ".join(problems)
            + "; restore the ids as written (rows may be sorted, not edited)"
        )  # fmt: skip
        raise SchemaError(msg)


def _pair_examples(pairs: list[tuple[str, str]]) -> str:
    more = f" and {len(pairs) - 3} more" if len(pairs) > 3 else ""
    shown = [f"({_shown(query)}, {_shown(doc)})" for query, doc in pairs[:3]]
    return ", ".join(shown) + more


def _qrels(
    ids: list[tuple[str, str]], label: np.ndarray, judge: Hashable, expected: pd.DataFrame | None
) -> pd.DataFrame:
    """The judgments as a qrels frame; ids with the holes' dtypes when given."""
    if expected is None:
        query = pd.Series([q for q, _ in ids], dtype="str")
        doc = pd.Series([d for _, d in ids], dtype="str")
    else:
        row = {
            pair: at
            for at, pair in enumerate(
                zip(expected["query_text"], expected["doc_text"], strict=True)
            )
        }
        rows = np.array([row[pair] for pair in ids], dtype=np.int64)
        query = expected["query"].take(rows).reset_index(drop=True)
        doc = expected["doc"].take(rows).reset_index(drop=True)
    frame = pd.DataFrame({"query": query, "doc": doc, "rel": label})
    frame["judge"] = pd.Series(
        [judge] * len(frame), dtype="str" if isinstance(judge, str) else object
    )
    return frame
