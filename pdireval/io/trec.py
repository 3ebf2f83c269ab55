"""TREC run and qrels files, read and written as the package docstring says."""

from __future__ import annotations

import codecs
import contextlib
import gzip
import io
import mmap
import os
import re
import zlib
from collections.abc import Callable, Iterator, Mapping, Sequence
from pathlib import Path
from typing import IO, Any

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.csv as pa_csv

from pdireval._core.errors import SchemaError
from pdireval._core.roles import ColumnMap, as_column_map
from pdireval._prepare import algorithms
from pdireval._prepare.groups import factorize_sorted
from pdireval.io import irds as _irds

__all__ = ["read_qrels", "read_queries", "read_run", "write_qrels", "write_run"]

PathOrBuffer = str | bytes | os.PathLike[str] | IO[str] | IO[bytes]

_RUN_FIELDS = "qid Q0 docno rank score tag"
_QRELS_FIELDS = "qid iter docno rel"
_N_FIELDS = {"run": 6, "qrels": 4}
#: The fields kept: query, doc, score and tag of a run (its "Q0" and rank fields are
#: ignored, as trec_eval ignores them), every field of qrels.
_KEPT = {"run": (0, 2, 4, 5), "qrels": (0, 1, 2, 3)}
_NUMBER = {"run": 4, "qrels": 3}  # the score, the label
_BOM = b"\xef\xbb\xbf"
_GZIP = b"\x1f\x8b"
_OTHER_COMPRESSION = (  # (signature, format, how to decompress)
    (re.compile(rb"BZh[1-9](?:1AY&SY|\x17rE8P\x90)"), "bzip2", "bunzip2"),
    (re.compile(rb"\xfd7zXZ\x00"), "xz", "unxz"),
    (re.compile(rb"\x28\xb5\x2f\xfd"), "zstd", "unzstd"),
    (re.compile(rb"PK\x03\x04"), "zip", "unzip"),
)
_TO_SPACE = bytes.maketrans(b"\t\x0b\x0c", b"   ")
_COMMENT = re.compile(rb"\n#[^\n]*")  # on normalised text: lines starting with '#'
_COMMENT_LINE = re.compile(rb"\n([ \t\x0b\x0c]*#[^\n]*)")  # on b"\n" + a file's text
_NONBLANK = re.compile(rb"[^ \t\n\r\x0b\x0c]")
_AFTER_SIXTH = re.compile(rb"(\n(?:[^ \n]++ ){5}[^ \n]++) [^\n]*+")  # on b"\n" + text
# the score syntax Arrow's float parser accepts (it also takes a few odd spellings, such
# as 'nan(0)'; those are checked with Arrow itself)
_SCORE = re.compile(
    rb"[+-]?(?:(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?|inf|infinity|nan)", re.I
)
_LABEL = re.compile(rb"[+-]?[0-9]+")
_LABEL_RE2 = r"^[+-]?[0-9]+$"
_INT64 = (-(2**63), 2**63 - 1)
_SHOWN = 200  # characters of a line shown in a message
_BLOCK = 1 << 18  # bytes scanned at a time: a block stays in the CPU cache
_CSV_BLOCK = 1 << 22  # bytes parsed per CSV block: larger ones hold more memory at once
_SMALLEST_CSV_BLOCK = 1 << 16  # below this, another block costs more than it saves
_HEAD = 1 << 16  # bytes read to find a file's first line
_CODED = pa.dictionary(pa.int32(), pa.binary())  # a field of few distinct values
_NOT_PLAIN = (b"\x00", b"\r", b"\t", b"\x0b", b"\x0c", b"#")  # bytes that need normalising
#: an empty field, in text whose fields are single-space separated: a space at a line's
#: start or end, or two in a row (also at the text's start or end, see ``_empty_field``)
_EMPTY_FIELD = (b"  ", b"\n ", b" \n")
_NOT_IN_IDS = r"[ \t\n\r\x0b\x0c\x00]"  # what an id written to a TREC file must not hold


# --------------------------------------------------------------------------- reading


def _load(source: PathOrBuffer, encoding: str) -> tuple[bytes, str]:
    """UTF-8 bytes of ``source`` (decompressed, decoded, checked) and a name for messages."""
    if isinstance(source, str | bytes | os.PathLike):  # a file name, as open() takes
        name = os.fsdecode(source)
        data = Path(name).read_bytes()  # OSError (missing file, directory) names the path
    else:
        name = str(getattr(source, "name", "<buffer>"))
        if not callable(getattr(source, "read", None)):
            raise _not_a_file(source, "read")
        content = source.read()
        if isinstance(content, str):  # already decoded; lone surrogates fail the check below
            data, encoding = content.encode("utf-8", "surrogatepass"), "utf-8"
        else:
            data = bytes(content)
    data = _to_utf8(_decompress(data, name), name, encoding)
    if b"\x00" in data:
        at = data.index(b"\x00")
        problem = "holds a NUL byte (\\x00): a TREC file is text; is this a binary file?"
        raise _fail_at(data, at, name, problem)
    return data, name


def _not_a_file(source: object, verb: str) -> SchemaError:
    kind = type(source).__name__
    return SchemaError(
        f"expected a path or a file object to {verb}, got {kind}: pass a file name "
        "(str or pathlib.Path), or an open file or io.StringIO/io.BytesIO"
    )


def _decompress(data: bytes, name: str) -> bytes:
    if data[:2] == _GZIP:
        try:
            return gzip.decompress(data)
        except EOFError as error:
            msg = (
                f"{name}: the gzip stream ends before its end marker, so the file is "
                "truncated (an interrupted download or copy?); re-create or re-download it"
            )
            raise SchemaError(msg) from error
        except (OSError, zlib.error) as error:
            msg = (
                f"{name}: starts with the gzip signature (bytes 1f 8b) but is not a valid "
                f"gzip stream ({error}); check the file, e.g. with gzip -t"
            )
            raise SchemaError(msg) from error
    for signature, kind, tool in _OTHER_COMPRESSION:
        if signature.match(data):
            msg = (
                f"{name}: is {kind}-compressed; only gzip is decompressed when reading: "
                f"decompress it first ({tool}) or compress it with gzip"
            )
            raise SchemaError(msg)
    return data


def _to_utf8(data: bytes, name: str, encoding: str) -> bytes:
    if codecs.lookup(encoding).name == "utf-8":
        if data.startswith(_BOM):
            data = data[len(_BOM) :]
        if not data.isascii():
            try:
                data.decode("utf-8")
            except UnicodeDecodeError as error:
                raise _undecodable(data, name, error, "UTF-8") from None
        return data
    try:
        text = data.decode(encoding)
    except UnicodeDecodeError as error:
        raise _undecodable(data, name, error, encoding) from None
    return text.removeprefix("\ufeff").encode("utf-8")


def _undecodable(data: bytes, name: str, error: UnicodeDecodeError, encoding: str) -> SchemaError:
    bad = data[error.start : error.end]
    problem = (
        f"the bytes {bad!r} are not valid {encoding}; pass the file's encoding, e.g. "
        "encoding='latin-1' (which reads every byte as one character)"
    )
    return _fail_at(data, error.start, name, problem)


def _fail_at(data: bytes, at: int, name: str, problem: str) -> SchemaError:
    """The error for the line holding byte ``at`` of ``data``."""
    begin = data.rfind(b"\n", 0, at) + 1
    end = data.find(b"\n", at)
    line = data[begin : len(data) if end < 0 else end]
    return _fail(name, data.count(b"\n", 0, at) + 1, line, problem)


def _shown_id(value: Any) -> str:
    """An id for a message, as users wrote it: ``repr`` of its start when it is longer
    than ``_SHOWN`` characters.
    """
    if isinstance(value, np.generic):
        value = value.item()
    text = value if isinstance(value, str) else str(value)
    if len(text) <= _SHOWN:
        return repr(value)
    return f"{text[:_SHOWN]!r}... ({len(text):,} characters)"


def _fail(name: str, number: int, line: bytes, problem: str) -> SchemaError:
    text = line.decode(errors="replace").rstrip("\r")
    if len(text) > _SHOWN:
        text = text[:_SHOWN] + "..."
    return SchemaError(f"{name}, line {number}: {problem}: {text!r}")


def _normalise(data: bytes, name: str, *, full: bool) -> bytes:
    """Make ``data`` single-space separated, without comment lines, keeping line numbers.

    ``full=False`` only turns line ends into ``\\n`` and other whitespace into spaces
    (a file with single spaces or tabs between fields is then ready); ``full=True`` also
    collapses runs of spaces and strips the ends of lines.
    """
    if b"\r" in data:
        data = data.replace(b"\r\n", b"\n").removesuffix(b"\r")
        if b"\r" in data:
            problem = (
                "holds a carriage return (\\r) that does not end the line (old Mac line "
                "endings?); convert the line endings to \\n (e.g. tr '\\r' '\\n')"
            )
            raise _fail_at(data, data.index(b"\r"), name, problem)
    if any(byte in data for byte in (b"\t", b"\x0b", b"\x0c")):
        data = data.translate(_TO_SPACE)
    if full:
        while b"  " in data:
            data = data.replace(b"  ", b" ")
        data = data.replace(b"\n ", b"\n").replace(b" \n", b"\n")
        data = data.removeprefix(b" ").removesuffix(b" ")
    if b"#" in data:
        data = _COMMENT.sub(b"\n", data)
        if data.startswith(b"#"):
            end = data.find(b"\n")
            data = data[end:] if end >= 0 else b""
    return data


def _texts(data: bytes, name: str, kind: str) -> Iterator[bytes]:
    """Normalised versions of ``data`` to try parsing, cheapest first."""
    light = _normalise(data, name, full=False)
    yield light
    full = _normalise(data, name, full=True)
    if full != light:
        yield full
    if kind == "run":  # lines with more than six fields, not all alike
        yield _AFTER_SIXTH.sub(rb"\1", b"\n" + full)[1:]


def _first_line(text: bytes) -> bytes | None:
    """The first line holding a field, or None when there is none."""
    match = _NONBLANK.search(text)
    if match is None:
        return None
    end = text.find(b"\n", match.start())
    return text[text.rfind(b"\n", 0, match.start()) + 1 : len(text) if end < 0 else end]


def _n_columns(first: bytes, kind: str) -> int:
    """The fields every line must have: a run's first line may have more than six."""
    n = _N_FIELDS[kind]
    return max(n, len(first.split())) if kind == "run" else n


def _read_csv(
    text: bytes | str, n_columns: int, kind: str, *, compact: bool = False
) -> pa.Table | None:
    """The kept fields of every line of single-space separated ``text`` (each line must
    have ``n_columns`` fields); None when a line has an empty field (two separators in
    a row, or one at an edge). ``text`` is the text itself or the name of a file holding
    it that :func:`_plain_file` has scanned (which refuses empty fields). Fields are read
    as bytes -- ``text`` is valid UTF-8, so no field needs checking again -- and viewed as
    strings; only the kept fields are converted (Arrow still counts every field of a
    line). Qrels labels, and with ``compact`` a run's queries and tags, are
    dictionary-encoded (a few values each).
    """
    if isinstance(text, bytes) and _empty_field(text):
        return None
    names = [str(i) for i in range(n_columns)]
    kept = [str(i) for i in _KEPT[kind]]
    types = {name: pa.large_binary() for name in kept}
    if kind == "run":
        types["4"] = pa.float64()
        if compact:  # the queries and tags: a few thousand values in millions of lines
            types["0"] = types["5"] = _CODED
    else:  # the labels: a few values, checked and converted once each
        types["3"] = _CODED
    table = pa_csv.read_csv(
        pa.py_buffer(text) if isinstance(text, bytes) else text,
        read_options=pa_csv.ReadOptions(column_names=names, block_size=_csv_block(text)),
        parse_options=pa_csv.ParseOptions(
            delimiter=" ", quote_char=False, double_quote=False, escape_char=False
        ),
        convert_options=pa_csv.ConvertOptions(
            column_types=types,
            include_columns=kept,
            null_values=[],
            true_values=[],
            false_values=[],
            strings_can_be_null=False,
        ),
    )
    return pa.table({name: _as_text(table.column(name)) for name in kept})


def _empty_field(text: bytes | bytearray, before: bytes = b"\n", *, whole: bool = True) -> bool:
    """Whether single-space separated ``text`` has an empty field, ``before`` being the
    byte before it (a line end at the start of a text). ``whole``: the text ends there, so
    a space at its end is one; else ``text`` is a block of a longer text, whose next
    block is checked with this one's last byte as ``before``.

    Looked for a block at a time: two bytes in a row that are spaces, line ends (or other
    control bytes) first, with numpy -- rare in a run -- and only where there are some,
    the exact patterns.
    """
    view = memoryview(text)
    for start in range(0, len(view), _BLOCK):
        block = view[start : start + _BLOCK]
        if (before + bytes(block[:1])) in _EMPTY_FIELD:
            return True
        gaps = np.frombuffer(block, np.uint8) <= ord(" ")
        if np.logical_and(gaps[1:], gaps[:-1]).any():
            plain = bytes(block)
            if any(pattern in plain for pattern in _EMPTY_FIELD):
                return True
        before = bytes(block[-1:])
    return whole and text.endswith(b" ")


def _csv_block(text: bytes | str) -> int:
    """The bytes Arrow parses at a time in ``text`` (the text or a file's name).

    Blocks are parsed in parallel: a small file in a few blocks, a large one in many. A
    line longer than a block makes Arrow fail, and after such failures in parallel
    parses Arrow (15 to 23 at least) can hang or abort on a later call. So no line may
    be that long: every quarter of a block must hold a line end (no line is then longer
    than half a block), else the text is parsed as one block.
    """
    size = len(text) if isinstance(text, bytes) else os.path.getsize(text)
    block = min(max(size // 8, _SMALLEST_CSV_BLOCK), _CSV_BLOCK)
    if size <= block:  # one block whatever its lines
        return block
    quarter = max(block // 4, 1)
    starts = range(0, size - quarter + 1, quarter)
    # a file that cannot be mapped is parsed as one block, which is always safe
    with contextlib.suppress(OSError, ValueError), contextlib.ExitStack() as stack:
        if isinstance(text, bytes):
            view: bytes | mmap.mmap = text
        else:  # only the pages around each quarter's first line end are read
            handle = stack.enter_context(open(text, "rb"))
            view = stack.enter_context(mmap.mmap(handle.fileno(), 0, access=mmap.ACCESS_READ))
        if all(view.find(b"\n", start, start + quarter) >= 0 for start in starts):
            return block
    return min(size + 1, 2**31 - 1)


def _as_text(column: pa.ChunkedArray) -> pa.ChunkedArray:
    """Bytes known to be UTF-8 as strings, without copying or checking them again."""
    if column.type != pa.large_binary():
        return column
    return pa.chunked_array(
        [chunk.view(pa.large_string()) for chunk in column.chunks], pa.large_string()
    )


def _parse(data: bytes, name: str, kind: str, *, compact: bool = False) -> pa.Table | None:
    """The fields of ``data`` as an Arrow table (columns "0".."5"); None if it has no lines."""
    for text in _texts(data, name, kind):
        first = _first_line(text)
        if first is None:
            return None
        try:
            table = _read_csv(text, _n_columns(first, kind), kind, compact=compact)
        except pa.ArrowInvalid:
            continue
        if table is not None:  # else an empty field: normalise more
            break
    else:
        raise _diagnosed(data, name, kind)
    checked = _checked(table, kind)
    if checked is None:
        raise _diagnosed(data, name, kind)
    return checked


def _checked(table: pa.Table, kind: str) -> pa.Table | None:
    """The table with its labels as integers; None when a score is NaN or a label is no
    integer (the caller finds the line).
    """
    if kind == "run":
        return None if pc.any(pc.is_nan(table.column("4"))).as_py() else table
    numbers = []
    for chunk in table.column("3").chunks:  # a block of lines: each distinct label once
        words = chunk.dictionary.view(pa.string())
        if not pc.all(pc.match_substring_regex(words, _LABEL_RE2)).as_py():
            return None
        try:
            values = pc.cast(pc.utf8_ltrim(words, "+"), pa.int64())
        except pa.ArrowInvalid:  # out of range
            return None
        numbers.append(values.take(chunk.indices))
    return table.set_column(3, "3", pa.chunked_array(numbers, pa.int64()))


def _plain_file(source: PathOrBuffer, encoding: str) -> str | None:
    """The name of ``source`` when Arrow can parse the file as it is on disk -- UTF-8
    text without a byte-order mark, compression, NUL bytes, carriage returns, tabs,
    vertical tabs, form feeds, comments or empty fields (fields single-space separated)
    -- else None. The file is scanned in blocks read into one buffer, never held whole,
    so that reading it costs no more memory than its fields; each block is checked while
    it is in the CPU cache.
    """
    if not isinstance(source, str | bytes | os.PathLike):
        return None
    if codecs.lookup(encoding).name != "utf-8":
        return None
    name = os.fsdecode(source)
    if not os.path.isfile(name):  # a pipe (/dev/stdin, <(zcat ...)) can be read only once
        return None
    decoder = codecs.getincrementaldecoder("utf-8")()
    buffer = bytearray(_BLOCK)
    try:
        with open(name, "rb", buffering=0) as handle:
            size = handle.readinto(buffer)
            head = bytes(buffer[:size])
            if head.startswith((_BOM, _GZIP)) or any(
                signature.match(head) for signature, _, _ in _OTHER_COMPRESSION
            ):
                return None
            before = b"\n"  # the byte before each block
            while size:
                block = buffer if size == len(buffer) else buffer[:size]
                if any(byte in block for byte in _NOT_PLAIN) or _empty_field(
                    block, before, whole=False
                ):
                    return None
                if not block.isascii():
                    decoder.decode(block)
                before = bytes(block[-1:])
                size = handle.readinto(buffer)
            if before == b" ":  # the last line ends with a space
                return None
            decoder.decode(b"", final=True)
    except (OSError, UnicodeDecodeError):
        return None  # reading it whole says what is wrong
    return name


def _parse_file(name: str, kind: str, *, compact: bool = False) -> pa.Table | None:
    """The fields of a plain file (see ``_plain_file``) parsed from disk; None when it
    needs more than that (no field at all, uneven lines, empty fields, a bad number).
    """
    with open(name, "rb") as handle:
        head = handle.read(_HEAD)
    first = _first_line(head)
    if first is None or (len(head) == _HEAD and b"\n" not in head[head.find(first) :]):
        return None
    try:
        table = _read_csv(name, _n_columns(first, kind), kind, compact=compact)
    except pa.ArrowInvalid:
        return None
    return None if table is None else _checked(table, kind)


def _fields(
    source: PathOrBuffer, encoding: str, kind: str, *, compact: bool = False
) -> tuple[pa.Table | None, str, Callable[[], bytes], tuple[str, ...]]:
    """A file's fields (None when it has no lines), its name for messages, a function
    giving its text for the messages about a line, and its comment lines.
    """
    name = _plain_file(source, encoding)
    if name is not None:
        table = _parse_file(name, kind, compact=compact)
        if table is not None:  # a plain file holds no '#': no comment
            return table, name, lambda: _load(source, encoding)[0], ()
    data, name = _load(source, encoding)
    return _parse(data, name, kind, compact=compact), name, lambda: data, _comments(data)


def _comments(data: bytes) -> tuple[str, ...]:
    """The comment lines of a file's text (first field starting with '#'), in file order."""
    if b"#" not in data:
        return ()
    return tuple(line.rstrip(b"\r").decode() for line in _COMMENT_LINE.findall(b"\n" + data))


def _lines(data: bytes) -> Iterator[tuple[int, bytes, list[bytes]]]:
    """(1-based line number, line, fields) of every data line, as trec_eval splits it."""
    for number, line in enumerate(data.split(b"\n"), start=1):
        fields = line.split()  # bytes.split: ASCII whitespace, like C isspace
        if fields and not fields[0].startswith(b"#"):
            yield number, line, fields


def _score_problem(token: bytes) -> str | None:
    """Why ``token`` is no usable score (None when it is one): Arrow's float syntax, not NaN."""
    if _SCORE.fullmatch(token):
        value = float(token)
    else:
        try:
            value = pc.cast(pa.array([token.decode()]), pa.float64())[0].as_py()
        except pa.ArrowInvalid:
            return f"the score {token.decode()!r} is not a number"
    if np.isnan(value):
        return (
            f"the score {token.decode()!r} is NaN, which cannot be ranked; give the "
            "document a number (inf and -inf are accepted)"
        )
    return None


def _label_problem(token: bytes) -> str | None:
    label = token.decode()
    if not _LABEL.fullmatch(token):
        return f"the relevance label {label!r} is not an integer"
    if not _INT64[0] <= int(token) <= _INT64[1]:
        return f"the relevance label {label!r} is too large (labels are 64-bit integers)"
    return None


def _diagnosed(data: bytes, name: str, kind: str) -> SchemaError:
    """The error for the first malformed line (an error path: a Python loop over lines)."""
    for number, line, fields in _lines(data):
        if kind == "run":
            problem = None
            if len(fields) < 6:
                hint = " -- this looks like a qrels file: use read_qrels" * (len(fields) == 4)
                problem = f"expected 6 fields ({_RUN_FIELDS}), found {len(fields)}{hint}"
            else:
                problem = _score_problem(fields[4])
        elif len(fields) != 4:
            hint = " -- this looks like a run file: use read_run" * (len(fields) == 6)
            problem = f"expected 4 fields ({_QRELS_FIELDS}), found {len(fields)}{hint}"
        else:
            problem = _label_problem(fields[3])
        if problem is not None:
            return _fail(name, number, line, problem)
    msg = f"{name}: cannot read this {kind} file (no malformed line found; please report it)"
    return SchemaError(msg)


def _refuse_duplicates(
    frame: pd.DataFrame, text: Callable[[], bytes], name: str, what: str
) -> None:
    # ids in blocks (a file lists a query's lines together) are read once per block
    queries = factorize_sorted(frame["query"])[0]
    outer = [column for column in ("run", "subtopic") if column in frame.columns]
    # a document may appear once per run, once per subtopic: a (run, query, doc) that
    # repeats is a (query, doc) that does, so the runs and subtopics are read only when
    # a (query, doc) repeats (one run, one subtopic: the queries are the groups)
    repeated = algorithms.repeated_rows(queries, frame["doc"])
    if len(repeated) and outer:
        group = queries.astype(np.int64)
        for column in outer:
            codes, ids = factorize_sorted(frame[column])
            if len(ids) > 1:
                group = codes.astype(np.int64) * (int(group.max(initial=0)) + 1) + group
        repeated = algorithms.repeated_rows(group, frame["doc"])
    if len(repeated):
        row = int(repeated[0])
        lines = [(number, line) for number, line, _ in _lines(text())]
        same_ids = (frame["query"].to_numpy() == frame["query"].iat[row]) & (
            frame["doc"].to_numpy() == frame["doc"].iat[row]
        )
        for column in outer:
            same_ids &= frame[column].to_numpy() == frame[column].iat[row]
        same = np.flatnonzero(same_ids)
        first = lines[int(same[0])][0]
        number, line = lines[row]
        problem = (
            f"document {_shown_id(frame['doc'].iat[row])} appears twice {what} for query "
            f"{_shown_id(frame['query'].iat[row])} (first on line {first})"
        )
        raise _fail(name, number, line, problem)


def _strings(column: pa.ChunkedArray | pa.Array) -> Any:
    """Arrow strings as pandas' default string dtype (``str`` on pandas 3)."""
    dtype = pd.Series(["a"]).dtype
    if isinstance(dtype, pd.StringDtype):
        return pd.array(column, dtype=dtype)
    return column.to_numpy(zero_copy_only=False)


def _categorical(column: pa.ChunkedArray) -> pd.Categorical:
    """A dictionary-encoded field of UTF-8 bytes (see ``_read_csv``) with rows as a
    categorical of strings: a 32-bit code per line, each distinct value once.
    """
    as_text = pa.chunked_array(
        [
            pa.DictionaryArray.from_arrays(chunk.indices, chunk.dictionary.view(pa.string()))
            for chunk in column.chunks
        ],
        pa.dictionary(pa.int32(), pa.string()),
    )
    unified = pa.table({"field": as_text}).unify_dictionaries().column(0)
    codes = np.concatenate([chunk.indices.to_numpy() for chunk in unified.chunks])
    return pd.Categorical.from_codes(codes, categories=_strings(unified.chunk(0).dictionary))


def _writable(column: pa.ChunkedArray | np.ndarray, dtype: type) -> np.ndarray:
    """A numeric field as a new numpy array of its own (one chunk is viewed read-only)."""
    array: np.ndarray = np.asarray(column, dtype=dtype)
    return array if array.flags.writeable else array.copy()


def _frame(table: pa.Table | None, kind: str) -> pd.DataFrame:
    """The frame of a file's fields (by their place on the line: "0" is the query)."""

    def field(place: int) -> Any:
        if table is None:
            return pa.array([], pa.large_string()) if place != _NUMBER[kind] else np.zeros(0)
        return table.column(str(place))

    number = _writable(field(_NUMBER[kind]), np.float64 if kind == "run" else np.int64)
    if kind == "run":
        return pd.DataFrame(
            {
                "query": _strings(field(0)),
                "doc": _strings(field(2)),
                "score": number,
                "run": _strings(field(5)),
            },
            copy=False,  # every column is new: no second copy of millions of rows
        )
    return pd.DataFrame(
        {"query": _strings(field(0)), "doc": _strings(field(2)), "rel": number}, copy=False
    )


def read_run(path_or_buffer: PathOrBuffer, *, encoding: str = "utf-8") -> pd.DataFrame:
    """Read a TREC run file into a long frame ranked by score, as trec_eval ranks it.

    Parameters
    ----------
    path_or_buffer : str, path or file-like
        A run in TREC format, ``qid Q0 docno rank score tag`` per line, fields separated
        by spaces and/or tabs; a gzip stream is decompressed, blank lines are skipped,
        ``#`` comment lines are kept aside (see Returns), fields after the sixth are
        ignored (as trec_eval ignores them). ``"irds:<dataset-id>"`` reads the scored
        documents of an ir_datasets dataset (e.g. the BM25 run of
        ``"irds:msmarco-passage/dev/small"``) with the dataset id as the run name.
    encoding : str, default "utf-8"
        Encoding of a file or binary buffer (text buffers are already decoded). A
        leading UTF-8 byte-order mark is dropped.

    Returns
    -------
    DataFrame
        Columns ``query``, ``doc``, ``run`` (the tag) as strings (pandas' default string
        dtype) and ``score`` (float64), in file order, with a fresh RangeIndex; empty
        when the file holds no lines. There is no rank column: the file's rank field is
        not trusted. :func:`pdireval.evaluate` ranks by score descending, ties by doc id
        descending compared as strings -- trec_eval's rule. ``frame.attrs["comments"]``
        holds the file's comment lines (lines whose first field starts with ``#``, such
        as an ir_metadata block), in file order and as written, without their line
        ends; an empty tuple when there are none. They are kept for the record only:
        nothing is computed from them. Pass them to :func:`write_run` (``comments=``)
        to write them back.

    Raises
    ------
    SchemaError
        A line with fewer than six fields, a score that is not a number or is NaN, the
        same document twice for a query of one run, a byte that is not valid in
        ``encoding``, a NUL byte, a carriage return inside a line, or a damaged gzip
        stream; the message names the file, the line number and the line.
    OSError
        The file cannot be read (missing, a directory, no permission); the message
        names the path.

    Notes
    -----
    Scores are kept as float64, as trec_eval (9.0.8 and 10.0) reads them.
    ``inf`` and ``-inf`` are valid scores (trec_eval reads them with ``atof`` and ranks
    them first and last); ``nan`` is refused, since it has no place in a ranking. A
    file may hold several runs (different tags); a document may then appear once per
    run.

    Examples
    --------
    >>> import io, pdireval
    >>> text = "q1 Q0 d1 1 2.5 bm25\\nq1 Q0 d2 2 2.5 bm25\\nq2 Q0 d9 1 0.1 bm25\\n"
    >>> pdireval.read_run(io.StringIO(text))
      query doc  score   run
    0    q1  d1    2.5  bm25
    1    q1  d2    2.5  bm25
    2    q2  d9    0.1  bm25

    Comment lines, such as an ir_metadata block, are kept on the frame:

    >>> run = pdireval.read_run(io.StringIO("# ir_metadata.start\\n# method: bm25\\n" + text))
    >>> run.attrs["comments"]
    ('# ir_metadata.start', '# method: bm25')
    """
    if _irds.is_irds(path_or_buffer):
        return _irds.run(path_or_buffer)  # type: ignore[arg-type]
    table, name, text, comments = _fields(path_or_buffer, encoding, "run")
    frame = _frame(table, "run")
    _refuse_duplicates(frame, text, name, "in the run")
    frame.attrs["comments"] = comments
    return frame


def _run_lines(path_or_buffer: PathOrBuffer, encoding: str) -> tuple[pd.DataFrame, str | None]:
    """A run file as the command line needs it: query, doc and score, and the tag of the
    last line (trec_eval's run id; None without lines). Every line is
    checked, but not yet for a document listed twice (evaluation checks that anyway).
    """
    table = _fields(path_or_buffer, encoding, "run", compact=True)[0]
    if table is None or not table.num_rows:
        return _frame(None, "run").drop(columns="run"), None
    tags = table.column("5")
    last = tags.chunk(tags.num_chunks - 1)
    frame = pd.DataFrame(
        {
            "query": _categorical(table.column("0")),
            "doc": _strings(table.column("2")),
            "score": _writable(table.column("4"), np.float64),
        },
        copy=False,  # every column is new
    )
    return frame, last.dictionary[last.indices[-1].as_py()].as_py().decode()


def read_qrels(
    path_or_buffer: PathOrBuffer, *, encoding: str = "utf-8", subtopics: bool | None = None
) -> pd.DataFrame:
    """Read a TREC qrels file (relevance judgments).

    Parameters
    ----------
    path_or_buffer : str, path or file-like
        Judgments in TREC format, ``qid iter docno rel`` per line, fields separated by
        spaces and/or tabs; a gzip stream is decompressed, ``#`` comment lines and
        blank lines are skipped. ``"irds:<dataset-id>"`` reads the judgments of a
        dataset of the ir_datasets catalogue, e.g. ``"irds:msmarco-passage/dev/small"``
        (needs the optional ``ir_datasets`` package; see Notes).
    encoding : str, default "utf-8"
        Encoding of a file or binary buffer (text buffers are already decoded). A
        leading UTF-8 byte-order mark is dropped.
    subtopics : bool, optional
        Keep the second field as a ``subtopic`` column (diversity qrels judge documents
        per subtopic there). By default it is kept when it is not the same on every
        line (ordinary qrels hold a constant ``0``, which is dropped).

    Returns
    -------
    DataFrame
        Columns ``query``, ``doc`` as strings (pandas' default string dtype) and
        ``rel`` (int64), with ``subtopic`` (strings) after ``query`` when kept, in file
        order, fresh RangeIndex; empty when the file holds no lines. Ready for
        :func:`pdireval.merge_qrels`.

    Raises
    ------
    SchemaError
        A line without exactly four fields, a label that is not an integer (or does not
        fit in 64 bits), the same document judged twice for a query, a byte that is not
        valid in ``encoding``, a NUL byte, a carriage return inside a line, or a damaged
        gzip stream; the message names the file, the line number and the line.
    OSError
        The file cannot be read (missing, a directory, no permission); the message
        names the path.
    MissingDependencyError
        An ``irds:`` id without the ``ir_datasets`` package installed.

    Notes
    -----
    With an ``irds:`` id, ``frame.attrs["ir_datasets"]`` holds ``dataset`` (the id),
    ``relevance_levels`` (label -> meaning, as ir_datasets documents them) and
    ``official_measures`` (the measures the dataset's task reports, in the names
    pdireval and ir_measures share, e.g. ``('nDCG@10', 'RR(rel=2)', 'AP(rel=2)')`` for
    the TREC Deep Learning tracks: their binary measures count labels from 2 on as
    relevant). The labels themselves are kept as they are -- graded measures need
    them -- so evaluate with those names, e.g.
    ``pdireval.evaluate(run, qrels.attrs["ir_datasets"]["official_measures"],
    qrels=qrels)``. A local file whose name starts with ``irds:`` is read as a file
    when given as a :class:`pathlib.Path`.

    Examples
    --------
    >>> import io, pdireval
    >>> pdireval.read_qrels(io.StringIO("# topic 1\\n1 0 d1 2\\n1 0 d7 0\\n"))
      query doc  rel
    0     1  d1    2
    1     1  d7    0
    """
    if subtopics is not None and not isinstance(subtopics, bool):
        msg = f"subtopics={subtopics!r} must be True, False or None"
        raise SchemaError(msg)
    if _irds.is_irds(path_or_buffer):
        frame = _irds.qrels(path_or_buffer)  # type: ignore[arg-type]
        return frame.drop(columns="subtopic") if subtopics is False else frame
    table, name, text, _ = _fields(path_or_buffer, encoding, "qrels")
    frame = _frame(table, "qrels")
    iteration = pa.chunked_array([], pa.large_string()) if table is None else table.column("1")
    keep = subtopics
    if keep is None:  # the same value on every line: ordinary qrels
        keep = len(iteration) > 0 and not pc.all(pc.equal(iteration, iteration[0])).as_py()
    if keep:
        frame.insert(1, "subtopic", _strings(iteration))
    _refuse_duplicates(frame, text, name, "in the qrels")
    return frame


def read_queries(source: str) -> pd.DataFrame:
    """Read the queries of a dataset of the ir_datasets catalogue.

    Parameters
    ----------
    source : str
        ``"irds:<dataset-id>"``, e.g. ``"irds:msmarco-passage/dev/small"``.

    Returns
    -------
    DataFrame
        One row per query: ``query`` (the id, as a string) and one column per field
        ir_datasets gives its queries (``text``; or ``title``, ``description``,
        ``narrative`` for TREC topics), in the dataset's order.
        ``frame.attrs["ir_datasets"]`` as for :func:`read_qrels`.

    Raises
    ------
    SchemaError
        ``source`` is no ``irds:`` id, the dataset does not exist or has no queries.
    MissingDependencyError
        The ``ir_datasets`` package is not installed.

    Examples
    --------
    .. code-block:: python

        topics = pdireval.read_queries("irds:msmarco-passage/trec-dl-2019/judged")
        topics.head()
    """
    if not _irds.is_irds(source):
        msg = (
            f"read_queries reads the queries of an ir_datasets dataset, named "
            f"'irds:<dataset-id>' (e.g. 'irds:msmarco-passage/dev/small'); got {source!r}"
        )
        raise SchemaError(msg)
    return _irds.queries(source)


# --------------------------------------------------------------------------- writing


def _write(target: PathOrBuffer, lines: pa.Array, header: bytes = b"") -> None:
    """Write ``header`` then ``lines`` (each ending with a newline) as UTF-8 to a path or
    buffer.
    """
    payload = _joined(lines)
    if isinstance(target, str | bytes | os.PathLike):  # a file name, as open() takes
        path = Path(os.fsdecode(target))
        if path.suffix == ".gz":
            with gzip.open(path, "wb", compresslevel=6) as zipped:
                zipped.write(header)
                zipped.write(payload)
            return
        with open(path, "wb") as stream:
            stream.write(header)
            stream.write(payload)
        return
    handle: Any = target  # IO[str] or IO[bytes]
    if not callable(getattr(handle, "write", None)):
        raise _not_a_file(target, "write")
    if isinstance(handle, io.TextIOBase):
        handle.write(header.decode() + payload.tobytes().decode())
        return
    try:
        handle.write(header + payload.tobytes() if header else payload)
    except TypeError:  # a text stream that is no TextIOBase
        handle.write(header.decode() + payload.tobytes().decode())


def _comment_block(comments: object) -> bytes:
    """Comment lines to write at the top of a file, each starting with '#'."""
    if comments is None:
        return b""
    if isinstance(comments, str):
        comments = comments.splitlines()
    if not isinstance(comments, list | tuple) or not all(isinstance(c, str) for c in comments):
        msg = (
            "comments= must be a string or a list of strings (lines), e.g. "
            f"comments=run.attrs['comments']; got {comments!r}"
        )
        raise SchemaError(msg)
    lines = []
    for comment in comments:
        if any(end in comment for end in ("\n", "\r", "\x00")):
            msg = (
                f"comment {comment!r} holds a line break or NUL character; give one string per line"
            )
            raise SchemaError(msg)
        lines.append(comment if comment.lstrip(" \t\x0b\x0c").startswith("#") else f"# {comment}")
    return "".join(f"{line}\n" for line in lines).encode()


def _lines_of(*fields: pd.Series | pa.Array | str) -> pa.Array:
    """Lines of space-separated ``fields`` (columns or constants), each ending in a newline."""
    parts = []
    for field in fields:
        if isinstance(field, str):
            parts.append(pa.scalar(field, pa.large_string()))
        elif isinstance(field, pd.Series):
            parts.append(pa.array(field, type=pa.large_string()))
        else:
            parts.append(pc.cast(field, pa.large_string()))
    newline = pa.scalar("\n", pa.large_string())
    parts[-1] = pc.binary_join_element_wise(parts[-1], newline, pa.scalar("", pa.large_string()))
    return pc.binary_join_element_wise(*parts, pa.scalar(" ", pa.large_string()))


def _joined(lines: pa.Array) -> memoryview:
    """The concatenated values of a large_string array, without copying them."""
    lines = pa.concat_arrays([lines]) if lines.offset else lines
    if not len(lines):
        return memoryview(b"")
    offsets = np.frombuffer(lines.buffers()[1], dtype=np.int64)[: len(lines) + 1]
    return memoryview(lines.buffers()[2])[int(offsets[0]) : int(offsets[-1])]


def _resolved(frame: pd.DataFrame, columns: ColumnMap | Mapping[str, str] | None):
    return as_column_map(columns).resolve(frame)


def _numbers(frame: pd.DataFrame, column: str, role: str) -> pd.Series:
    try:
        return pd.to_numeric(frame[column])
    except (TypeError, ValueError) as error:
        msg = (
            f"the {role} column {column!r} must hold numbers ({error}); convert it, e.g. "
            f"frame[{column!r}] = pd.to_numeric(frame[{column!r}])"
        )
        raise SchemaError(msg) from error


def _row(label: Any) -> str:
    """A row label as users wrote it (``2``, not ``np.int64(2)``)."""
    return repr(label.item() if isinstance(label, np.generic) else label)


def _utf8(value: Any) -> bool:
    """Whether ``value`` (str, bytes or other) can be written as UTF-8 text."""
    try:
        (value if isinstance(value, bytes) else str(value).encode()).decode()
    except UnicodeError:
        return False
    return True


def _ids(values: pd.Series, what: str, column: str | None) -> pa.Array:
    """The ids of the written rows as Arrow strings; SchemaError for one that cannot be.

    ``column`` is None for the ``tag=`` argument.
    """

    def where(position: int) -> str:
        row = _row(values.index[position])
        return f" in row {row} (column {column!r})" if column else " (the tag= argument)"

    missing = values.isna().to_numpy()
    if missing.any():
        msg = (
            f"the {what}{where(int(np.flatnonzero(missing)[0]))} is missing; every line of a "
            f"TREC file needs one: fill it or drop the row (frame.dropna(subset=[{column!r}]))"
        )
        raise SchemaError(msg)
    try:
        array = pa.array(values.astype(str), type=pa.large_string(), from_pandas=True)
    except UnicodeError as error:  # bytes that are not UTF-8, lone surrogates
        position = next(i for i, value in enumerate(values) if not _utf8(value))
        msg = (
            f"the {what} {_shown_id(values.iat[position])}{where(position)} cannot be written as "
            f"UTF-8 ({error}): fix or re-encode the id"
        )
        raise SchemaError(msg) from error
    if isinstance(array, pa.ChunkedArray):
        array = array.combine_chunks()
    spaced = pc.match_substring_regex(array, _NOT_IN_IDS)
    empty = pc.equal(array, "")
    comment = pc.starts_with(array, "#") if what == "query id" else pc.equal(array, "\x00")
    bad = pc.or_(pc.or_(spaced, empty), comment)
    if not pc.any(bad).as_py():
        return array
    at = int(np.flatnonzero(bad.to_numpy(zero_copy_only=False))[0])
    value = array[at].as_py()
    if value == "":
        problem = "is empty, and a TREC line needs every field: give it an id or drop the row"
    elif comment[at].as_py():
        problem = (
            "starts with '#', which makes the line a comment that read_run, read_qrels and "
            "trec_eval skip: rename the query"
        )
    else:
        char = re.search(_NOT_IN_IDS, value).group()  # type: ignore[union-attr]
        fix = (
            "frame[col] = frame[col].str.replace(r'[\\s\\x00]', '_', regex=True)"
            if column
            else "choose a tag without it"
        )
        problem = (
            f"contains {char!r}; the fields of a TREC file are separated by whitespace, so "
            f"the line would not read back: replace it, e.g. {fix}"
        )
    msg = f"the {what} {_shown_id(value)}{where(at)} {problem}"
    raise SchemaError(msg)


def _group_starts(*codes: np.ndarray) -> np.ndarray:
    """Boolean mask of the rows (in sorted order) where a new group begins."""
    n = len(codes[0])
    starts = np.zeros(n, dtype=bool)
    if n:
        starts[0] = True
        for code in codes:
            starts[1:] |= code[1:] != code[:-1]
    return starts


def write_run(
    frame: pd.DataFrame,
    path_or_buffer: PathOrBuffer,
    *,
    tag: str = "pdireval",
    columns: ColumnMap | Mapping[str, str] | None = None,
    comments: str | Sequence[str] | None = None,
) -> None:
    """Write the retrieved rows of a long frame as a TREC run file.

    Parameters
    ----------
    frame : DataFrame
        A run or long frame: query, doc and a score and/or rank column, optionally a run
        column (written as the tag). Rows with neither rank nor score (judged but not
        retrieved) are skipped; other columns (such as rel) are ignored.
    path_or_buffer : str, path or file-like
        Where to write (UTF-8); a path ending in ``.gz`` is gzip-compressed.
    tag : str, default "pdireval"
        The tag written when the frame has no run column.
    columns : ColumnMap or dict, optional
        Column roles, as for :func:`pdireval.evaluate`.
    comments : str or list of str, optional
        Comment lines written at the top of the file, e.g. the ir_metadata block
        :func:`read_run` kept: ``comments=run.attrs["comments"]``. A line that does not
        start with ``#`` gets ``"# "`` in front; a string is split into its lines.
        Nothing is written from the frame's ``attrs`` unless passed here: a frame
        derived from a read run keeps its ``attrs`` through pandas operations, and its
        comments may describe a run it no longer is.

    Raises
    ------
    SchemaError
        An id (query, doc, run or tag) that would not read back: missing, empty,
        holding whitespace or a NUL character, or a query id starting with ``#`` (a
        comment line); the same document twice for a query of a run; a missing score
        on a ranked row; scores that rise with the rank. The message names the row.
        A comment that is not a string or holds a line break.

    Notes
    -----
    Lines are written ranked -- per query, in the order :func:`pdireval.evaluate` uses
    (rank column if present, else score descending with ties by doc id descending) --
    with ranks 1..n. Scores are written in the shortest form that reads back to the
    same float64, so :func:`read_run` returns them exactly; ``inf`` and ``-inf`` are
    written as such. Without a score column the score written is ``n - rank + 1``
    (n = documents retrieved for the query), so trec_eval reproduces the frame's
    order. With both a rank and a score column the scores are written as they are;
    trec_eval and :func:`read_run` rank by score, so a frame whose scores rise with
    its ranks is refused, and documents with equal scores are ranked by doc id
    descending when the file is read, whatever their ranks.

    Examples
    --------
    >>> import io, pandas as pd, pdireval
    >>> run = pd.DataFrame({"query": ["q1", "q1"], "doc": ["a", "b"], "score": [0.5, 1.5]})
    >>> out = io.StringIO(); pdireval.write_run(run, out, tag="demo")
    >>> print(out.getvalue(), end="")
    q1 Q0 b 1 1.5 demo
    q1 Q0 a 2 0.5 demo

    With a provenance comment:

    >>> out = io.StringIO()
    >>> pdireval.write_run(run, out, tag="demo", comments=["ir_metadata: model bm25"])
    >>> print(out.getvalue(), end="")
    # ir_metadata: model bm25
    q1 Q0 b 1 1.5 demo
    q1 Q0 a 2 0.5 demo
    """
    header = _comment_block(comments)
    cols = _resolved(frame, columns)
    cols.require(frame, "query", "doc")
    rank, score, run_col = cols.rank, cols.score, cols.run
    if rank is None and score is None:
        msg = (
            f"write_run needs a rank or a score column (columns: {list(frame.columns)}); "
            "map it with columns={'score': ...} or columns={'rank': ...}"
        )
        raise SchemaError(msg)
    by_rank = rank is not None
    key = _numbers(frame, rank if by_rank else score, "rank" if by_rank else "score")
    retrieved = frame.loc[key.notna().to_numpy()]
    if run_col is not None:
        runs = _ids(retrieved[run_col], "run name", run_col)
    else:
        runs = pa.repeat(_ids(pd.Series([tag]), "tag", None)[0], len(retrieved))
    query = _ids(retrieved[cols.query], "query id", cols.query)
    doc = _ids(retrieved[cols.doc], "doc id", cols.doc)
    scores = None
    if score is not None:
        scores = _numbers(retrieved, score, "score").to_numpy(dtype=np.float64, na_value=np.nan)
        if np.isnan(scores).any():
            row = _row(retrieved.index[int(np.flatnonzero(np.isnan(scores))[0])])
            msg = (
                f"row {row} has a rank but no score (column {score!r}); trec_eval ranks "
                "by score, so every line needs one: fill the scores, or drop the score "
                "column to write scores made from the ranks"
            )
            raise SchemaError(msg)
    # rank ascending, or score descending; ties by doc id descending (strings)
    run_codes = pd.factorize(_strings(runs), sort=True)[0]
    query_codes = pd.factorize(_strings(query), sort=True)[0]
    sort_keys = [("run", "ascending"), ("query", "ascending")]
    sort_keys += [("key", "ascending" if by_rank else "descending"), ("doc", "descending")]
    keys = {"run": run_codes, "query": query_codes, "doc": doc}
    keys["key"] = key[key.notna()].to_numpy(dtype=np.float64)
    order = pc.sort_indices(pa.table(keys), sort_keys=sort_keys).to_numpy()
    table = pd.DataFrame(
        {
            "run": _strings(runs.take(order)),
            "query": _strings(query.take(order)),
            "doc": _strings(doc.take(order)),
        },
        index=retrieved.index[order],
    )
    starts = _group_starts(run_codes[order], query_codes[order])
    group = np.cumsum(starts) - 1
    first = np.maximum.accumulate(np.where(starts, np.arange(len(table)), 0))
    position = np.arange(len(table)) - first + 1
    _refuse_repeats(table, group)
    if scores is None:
        written = (np.bincount(group)[group] - position + 1).astype(np.float64)
    else:
        written = scores[order]
        if by_rank:
            _refuse_rising_scores(table, written, starts)
    lines = _lines_of(
        table["query"], "Q0", table["doc"], pa.array(position), pa.array(written), table["run"]
    )
    _write(path_or_buffer, lines, header)


def _refuse_repeats(table: pd.DataFrame, group: np.ndarray) -> None:
    """Refuse a document listed twice for a query of a run (``table`` in written order)."""
    repeated = algorithms.repeated_rows(group, table["doc"])
    if len(repeated):
        at = int(repeated[0])
        doc, query = table["doc"].iat[at], table["query"].iat[at]
        before = np.flatnonzero((group == group[at]) & (table["doc"].to_numpy() == doc))[0]
        rows = f"{_row(table.index[before])} and {_row(table.index[at])}"
        msg = (
            f"document {_shown_id(doc)} appears twice for query {_shown_id(query)} "
            f"(rows {rows}); a run lists a document once per query (trec_eval and read_run "
            "refuse repeats): drop the duplicates, e.g. frame.drop_duplicates(['query', 'doc'])"
        )
        raise SchemaError(msg)


def _refuse_rising_scores(table: pd.DataFrame, scores: np.ndarray, starts: np.ndarray) -> None:
    """Refuse scores that rise with the rank (``table`` and ``scores`` in written order)."""
    rising = np.flatnonzero(~starts[1:] & (scores[1:] > scores[:-1]))
    if len(rising):
        at = int(rising[0]) + 1
        higher, lower = float(scores[at]), float(scores[at - 1])
        msg = (
            f"for query {_shown_id(table['query'].iat[at])}, row {_row(table.index[at])} is ranked "
            f"below row {_row(table.index[at - 1])} but has a higher score ({higher!r} > "
            f"{lower!r}); trec_eval and read_run rank by score, so the file would "
            "rank them the other way: drop the score column (scores are then made from the "
            "ranks) or the rank column (lines are then ranked by score)"
        )
        raise SchemaError(msg)


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
        Where to write (UTF-8); a path ending in ``.gz`` is gzip-compressed.
    columns : ColumnMap or dict, optional
        Column roles, as for :func:`pdireval.evaluate`.

    Raises
    ------
    SchemaError
        A label that is not a whole number (fractional, infinite, beyond 64 bits), two
        different labels for one (query, doc), or an id that would not read back
        (missing, empty, holding whitespace or a NUL character, a query id starting
        with ``#``). The message names the row.

    Notes
    -----
    The iteration field is written as ``0``; lines are sorted by query and doc id.
    Negative labels (pooled but unjudged) are written as they are.

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
    rel = _numbers(frame, cols.rel, "rel")
    judged = rel.notna().to_numpy()
    labels = _labels(rel[judged], cols.rel)
    rows = frame.loc[judged]
    query = _ids(rows[cols.query], "query id", cols.query)
    doc = _ids(rows[cols.doc], "doc id", cols.doc)
    query_codes = pd.factorize(_strings(query), sort=True)[0]
    sort_keys = [("query", "ascending"), ("doc", "ascending"), ("rel", "ascending")]
    keys = pa.table({"query": query_codes, "doc": doc, "rel": labels})
    order = pc.sort_indices(keys, sort_keys=sort_keys).to_numpy()
    query_codes, doc, labels = query_codes[order], doc.take(order), labels[order]
    same = query_codes[1:] == query_codes[:-1]
    if len(doc):
        same &= pc.equal(doc.slice(1), doc.slice(0, len(doc) - 1)).to_numpy(zero_copy_only=False)
    clash = np.flatnonzero(same & (labels[1:] != labels[:-1]))
    if len(clash):
        at = int(clash[0])
        rows_at = rows.index[order[at : at + 2]].tolist()
        msg = (
            f"write_qrels: (query, doc) {(query[int(order[at])].as_py(), doc[at].as_py())} "
            f"has two different labels, {labels[at]} and {labels[at + 1]} (rows {rows_at}); "
            "keep one judgment per document and query"
        )
        raise SchemaError(msg)
    keep = np.flatnonzero(np.concatenate([[len(order) > 0], ~same]))  # once per (query, doc)
    lines = _lines_of(query.take(order[keep]), "0", doc.take(keep), pa.array(labels[keep]))
    _write(path_or_buffer, lines)


def _labels(rel: pd.Series, column: str) -> np.ndarray:
    """Judged labels as int64; SchemaError for a label that is not a 64-bit whole number."""
    if pd.api.types.is_integer_dtype(rel.dtype) or pd.api.types.is_bool_dtype(rel.dtype):
        return rel.to_numpy(dtype=np.int64)
    values = rel.to_numpy(dtype=np.float64)
    fits = (values >= _INT64[0]) & (values < 2.0**63)  # False for inf and nan
    bad = ~fits | (values != np.round(values))
    if bad.any():
        at = int(np.flatnonzero(bad)[0])
        kind = "fractional" if fits[at] else "infinite or beyond 64 bits"
        msg = (
            f"write_qrels needs whole-number labels; found {float(values[at])!r} ({kind}) in row "
            f"{_row(rel.index[at])} of the rel column {column!r}: round or fix the labels"
        )
        raise SchemaError(msg)
    return values.astype(np.int64)
