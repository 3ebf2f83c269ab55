"""TREC run/qrels reading and writing: formats, round trips, every malformed-input error.

The reference for reading is trec_eval's parser (get_trec_results.c, get_qrels.c):
fields are runs of ASCII whitespace (C ``isspace``), blank lines and lines whose first
non-blank character is ``#`` are skipped, run fields after the sixth are ignored.
:func:`trec_lines` below is that rule written the plain way; the reader under test
parses with pyarrow's CSV reader after normalising the whitespace.
"""

from __future__ import annotations

import bz2
import gzip
import io
import math
import os
import re
import threading
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

import pdireval
import pdireval.io.trec as trec_io
from pdireval import SchemaError

RUN = """# a comment line
q1 Q0 d1 1 2.5 bm25
q1\tQ0\td2\t2\t  2.5\tbm25 trailing junk is ignored, as trec_eval ignores it

q2 Q0 007 9 -1e-3 bm25
"""
QRELS = "q1 0 d2 1\n# judged later\nq1 0 d9 2\nq2 0 007 0\nq3 0 x -1\n"
STR = pd.Series(["a"]).dtype  # pandas' default string dtype: what the readers return
TESTDATA = Path(
    os.environ.get("PDIREVAL_TREC_TESTDATA")
    or Path(__file__).resolve().parents[3] / "shared" / "trec_eval_testdata"
)
TESTDATA_REASON = (
    "optional trec_eval test data not found; it enables reading trec_eval's own test files "
    "(trec_eval 9.0.8's test/ folder: set $PDIREVAL_TREC_TESTDATA, or put it at "
    "../shared/trec_eval_testdata next to the clone)"
)


def trec_lines(data: bytes) -> list[list[bytes]]:
    """The fields of every data line, split as trec_eval splits them."""
    lines = [line.split() for line in data.split(b"\n")]
    return [fields for fields in lines if fields and not fields[0].startswith(b"#")]


def expected_run(data: bytes) -> pd.DataFrame:
    rows = trec_lines(data)
    return pd.DataFrame(
        {
            "query": pd.Series([f[0].decode() for f in rows], dtype=STR),
            "doc": pd.Series([f[2].decode() for f in rows], dtype=STR),
            "score": np.array([float(f[4]) for f in rows], dtype=np.float64),
            "run": pd.Series([f[5].decode() for f in rows], dtype=STR),
        }
    )


def expected_qrels(data: bytes) -> pd.DataFrame:
    """trec_eval's reading; the second field kept as the subtopic when it varies."""
    rows = trec_lines(data)
    columns = {"query": pd.Series([f[0].decode() for f in rows], dtype=STR)}
    if len({f[1] for f in rows}) > 1:
        columns["subtopic"] = pd.Series([f[1].decode() for f in rows], dtype=STR)
    columns["doc"] = pd.Series([f[2].decode() for f in rows], dtype=STR)
    columns["rel"] = pd.Series(np.array([int(f[3]) for f in rows], dtype=np.int64))
    return pd.DataFrame(columns)


def test_read_run_columns_types_and_values():
    run = pdireval.read_run(io.StringIO(RUN))
    assert list(run.columns) == ["query", "doc", "score", "run"]
    assert run["query"].tolist() == ["q1", "q1", "q2"]
    assert run["doc"].tolist() == ["d1", "d2", "007"]  # ids stay strings: no 7
    assert run["score"].tolist() == [2.5, 2.5, -0.001]
    assert run["run"].tolist() == ["bm25"] * 3
    assert run["score"].dtype == np.float64
    assert [run[c].dtype for c in ("query", "doc", "run")] == [STR] * 3
    assert isinstance(run.index, pd.RangeIndex)


def test_read_run_ignores_the_rank_field_and_ranks_like_trec_eval():
    # the file claims d1 is first; equal scores are ordered by doc id descending instead
    text = "q Q0 d1 1 1.0 t\nq Q0 d2 2 1.0 t\nq Q0 d3 3 0.5 t\n"
    run = pdireval.read_run(io.StringIO(text))
    assert "rank" not in run.columns
    qrels = pd.DataFrame({"query": ["q"], "doc": ["d1"], "rel": [1]})
    df = pdireval.merge_qrels(run, qrels)
    assert df.ireval.evaluate("RR").iloc[0, 0] == pytest.approx(0.5)  # d2 ranks above d1


def test_read_qrels_columns_types_and_comments():
    qrels = pdireval.read_qrels(io.StringIO(QRELS))
    assert list(qrels.columns) == ["query", "doc", "rel"]
    assert qrels["doc"].tolist() == ["d2", "d9", "007", "x"]
    assert qrels["rel"].tolist() == [1, 2, 0, -1]
    assert qrels["rel"].dtype == np.int64
    assert [qrels[c].dtype for c in ("query", "doc")] == [STR] * 2


def test_frames_read_are_their_own(tmp_path: Path):
    # a file of one parser block gives one chunk, whose numbers numpy views read-only
    (tmp_path / "run").write_text(RUN)
    (tmp_path / "qrels").write_text(QRELS)
    run, qrels = pdireval.read_run(tmp_path / "run"), pdireval.read_qrels(tmp_path / "qrels")
    run.loc[0, "score"] = -7.0
    qrels.loc[0, "rel"] = 9
    assert run["score"].iat[0] == -7.0
    assert qrels["rel"].iat[0] == 9
    assert pdireval.read_qrels(tmp_path / "qrels")["rel"].iat[0] == 1


def test_gzip_and_paths(tmp_path: Path):
    path = tmp_path / "run.txt.gz"
    path.write_bytes(gzip.compress(RUN.encode()))
    assert pdireval.read_run(path).equals(pdireval.read_run(io.StringIO(RUN)))
    assert pdireval.read_run(str(path)).equals(pdireval.read_run(io.BytesIO(RUN.encode())))
    qrels = tmp_path / "qrels.gz"
    qrels.write_bytes(gzip.compress(QRELS.encode()))
    assert pdireval.read_qrels(qrels)["rel"].tolist() == [1, 2, 0, -1]
    # a gzip stream is recognised by its content, whatever the name
    renamed = tmp_path / "run.txt"
    renamed.write_bytes(gzip.compress(RUN.encode()))
    assert pdireval.read_run(renamed).equals(pdireval.read_run(io.StringIO(RUN)))


def test_bytes_are_a_path_as_open_takes_them(tmp_path: Path):
    path = tmp_path / "run.txt"
    path.write_text(RUN)
    run = pdireval.read_run(os.fsencode(path))
    assert run.equals(pdireval.read_run(path))
    pdireval.write_run(run, os.fsencode(tmp_path / "by-bytes.txt"))
    pdireval.write_run(run, tmp_path / "by-path.txt")
    assert (tmp_path / "by-bytes.txt").read_bytes() == (tmp_path / "by-path.txt").read_bytes()


@pytest.mark.parametrize("source", [42, None, ["q1 Q0 d1 1 2.5 t"]])
def test_anything_but_a_path_or_a_file_is_refused(source, tmp_path: Path):
    with pytest.raises(SchemaError, match="expected a path or a file object to read, got"):
        pdireval.read_run(source)
    with pytest.raises(SchemaError, match="expected a path or a file object to read, got"):
        pdireval.read_qrels(source)
    run = pdireval.read_run(io.StringIO(RUN))
    with pytest.raises(SchemaError, match="expected a path or a file object to write, got"):
        pdireval.write_run(run, source)


# --------------------------------------------------------------------------- empty files

EMPTY = [b"", b"\n", b"\n\n  \n\t\n", b"# only a comment", b"# one\n   # two\n\n", b"\r\n\r\n"]


@pytest.mark.parametrize("content", EMPTY)
@pytest.mark.parametrize("compress", [False, True])
def test_a_file_without_data_lines_reads_as_an_empty_frame(tmp_path, content, compress):
    # trec_eval refuses an empty file; an empty frame with the usual columns is what
    # a reader returns for "nothing retrieved" (merge_qrels/evaluate take it from there)
    path = tmp_path / "empty"
    path.write_bytes(gzip.compress(content) if compress else content)
    run = pdireval.read_run(path)
    assert list(run.columns) == ["query", "doc", "score", "run"]
    assert run.dtypes.tolist() == [STR, STR, np.dtype(np.float64), STR]
    assert len(run) == 0
    assert isinstance(run.index, pd.RangeIndex)
    qrels = pdireval.read_qrels(path)
    assert list(qrels.columns) == ["query", "doc", "rel"]
    assert qrels.dtypes.tolist() == [STR, STR, np.dtype(np.int64)]
    assert len(qrels) == 0


# --------------------------------------------------------------------------- the format


def test_whitespace_line_ends_and_comments_follow_trec_eval():
    variants = [
        b"q1 Q0 d1 1 2.5 t\nq1 Q0 d2 2 1 t\n",
        b"q1 Q0 d1 1 2.5 t\r\nq1 Q0 d2 2 1 t\r\n",  # CRLF
        b"q1\tQ0\td1\t1\t2.5\tt\nq1\tQ0\td2\t2\t1\tt",  # tabs, no final newline
        b"  q1  Q0 \t d1 1   2.5 t  \n\tq1 Q0 d2 2 1 t\t\r\n",  # runs, leading, trailing
        b"q1\x0bQ0\x0cd1 1 2.5 t\nq1 Q0 d2 2 1 t\n",  # vertical tab, form feed (isspace)
        b"\xef\xbb\xbfq1 Q0 d1 1 2.5 t\nq1 Q0 d2 2 1 t\n",  # UTF-8 byte-order mark
        b"#c\n\n  # indented comment\nq1 Q0 d1 1 2.5 t\n#\nq1 Q0 d2 2 1 t\n#end",
        b"q1 Q0 d1 1 2.5 t extra\nq1 Q0 d2 2 1 t and more fields\n",
    ]
    first = pdireval.read_run(io.BytesIO(variants[0]))
    assert first["doc"].tolist() == ["d1", "d2"]
    for data in variants[1:]:
        pd.testing.assert_frame_equal(pdireval.read_run(io.BytesIO(data)), first)


def test_hash_inside_a_line_is_data():
    run = pdireval.read_run(io.StringIO("q Q0 CR#93E-1860 1 1 t#1\nq#2 Q0 d 1 1 t\n"))
    assert run["doc"].tolist() == ["CR#93E-1860", "d"]
    assert run["query"].tolist() == ["q", "q#2"]
    assert run["run"].tolist() == ["t#1", "t"]


def test_scores_inf_are_read_and_rank_like_trec_eval():
    pytrec_eval = pytest.importorskip("pytrec_eval")
    text = "q Q0 a 1 -inf t\nq Q0 b 2 1e400 t\nq Q0 c 3 -Infinity t\nq Q0 d 4 0 t\n"
    run = pdireval.read_run(io.StringIO(text))
    assert run["score"].tolist() == [-math.inf, math.inf, -math.inf, 0.0]
    qrels = {"q": {"a": 1, "c": 1}}
    df = pdireval.merge_qrels(run, pdireval.read_qrels(io.StringIO("q 0 a 1\nq 0 c 1\n")))
    ours = df.ireval.evaluate(["AP", "RR"]).iloc[0].tolist()
    scores = dict(zip(run["doc"], run["score"], strict=True))
    evaluator = pytrec_eval.RelevanceEvaluator(qrels, {"map", "recip_rank"})
    theirs = evaluator.evaluate({"q": scores})["q"]
    assert ours == pytest.approx([theirs["map"], theirs["recip_rank"]])


def test_score_spellings():
    tokens = ["1", "-1", "+1.5", ".5", "5.", "1e3", "1E-3", "-0", "00012", "1e-400"]
    text = "".join(f"q Q0 d{i} 1 {token} t\n" for i, token in enumerate(tokens))
    run = pdireval.read_run(io.StringIO(text))
    assert run["score"].tolist() == [float(token) for token in tokens]


def test_labels_span_64_bits_and_take_a_sign():
    text = "q 0 a 9223372036854775807\nq 0 b -9223372036854775808\nq 0 c +3\nq 0 d -07\n"
    labels = pdireval.read_qrels(io.StringIO(text))["rel"].tolist()
    assert labels == [2**63 - 1, -(2**63), 3, -7]


def test_encoding_argument_reads_other_encodings(tmp_path):
    latin = "q Q0 café 1 1 t\n".encode("latin-1")
    with pytest.raises(SchemaError, match=r"line 1: the bytes b'\\xe9' are not valid UTF-8"):
        pdireval.read_run(io.BytesIO(latin))
    assert pdireval.read_run(io.BytesIO(latin), encoding="latin-1")["doc"].tolist() == ["café"]
    path = tmp_path / "utf16.qrels"
    path.write_text("q 0 ä 1\n", encoding="utf-16")  # with a byte-order mark
    assert pdireval.read_qrels(path, encoding="utf-16")["doc"].tolist() == ["ä"]
    assert pdireval.read_run(io.StringIO("q Q0 中文 1 1 t\n"))["doc"].tolist() == ["中文"]


def tiny_blocks(monkeypatch) -> list[int]:
    """Blocks of 256 bytes; the block sizes Arrow is asked to parse with, as it is asked."""
    for constant in ("_BLOCK", "_CSV_BLOCK", "_SMALLEST_CSV_BLOCK"):
        monkeypatch.setattr(trec_io, constant, 256)
    blocks: list[int] = []
    parse = trec_io.pa_csv.read_csv

    def recorded(source, *, read_options, **options):
        blocks.append(read_options.block_size)
        return parse(source, read_options=read_options, **options)

    monkeypatch.setattr(trec_io.pa_csv, "read_csv", recorded)
    return blocks


@pytest.mark.parametrize("long_line", [False, True], ids=["short lines", "a long line"])
def test_files_that_need_several_parser_blocks(monkeypatch, tmp_path: Path, long_line: bool):
    # rows cross the boundaries of tiny blocks; a line longer than a block is read whole
    # in one block, as Arrow would fail on it (and some versions hang later)
    blocks = tiny_blocks(monkeypatch)
    lines = [f"q{i // 7} Q0 d{i} {i} {i / 3!r} run\n" for i in range(500)]
    if long_line:
        lines[123] = f"q17 Q0 {'x' * 1000} 1 0.5 run\n"
    data = "".join(lines).encode()
    pd.testing.assert_frame_equal(pdireval.read_run(io.BytesIO(data)), expected_run(data))
    (tmp_path / "run").write_bytes(data)  # parsed from disk
    pd.testing.assert_frame_equal(pdireval.read_run(tmp_path / "run"), expected_run(data))
    assert blocks == [len(data) + 1] * 2 if long_line else blocks == [256, 256]


def test_a_file_that_cannot_be_mapped_is_parsed_as_one_block(monkeypatch, tmp_path: Path):
    blocks = tiny_blocks(monkeypatch)

    def unmappable(*args, **kwargs):
        msg = "this file system cannot map files"
        raise OSError(msg)

    monkeypatch.setattr(trec_io.mmap, "mmap", unmappable)
    data = "".join(f"q{i // 7} Q0 d{i} {i} {i / 3!r} run\n" for i in range(500)).encode()
    (tmp_path / "run").write_bytes(data)
    pd.testing.assert_frame_equal(pdireval.read_run(tmp_path / "run"), expected_run(data))
    assert blocks == [len(data) + 1]


@given(
    lengths=st.lists(st.integers(0, 600), min_size=1, max_size=60),
    ends_with_line_end=st.booleans(),
)
@example(lengths=[256], ends_with_line_end=False)  # exactly one block
@example(lengths=[255], ends_with_line_end=True)
@example(lengths=[200, 56], ends_with_line_end=False)  # one byte over a block
@settings(
    max_examples=200, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
def test_no_line_is_longer_than_half_a_parser_block(
    monkeypatch, tmp_path: Path, lengths: list[int], ends_with_line_end: bool
):
    # Arrow is never given a line that does not fit in its block: the text is one block
    # (it is no longer than one), or every line (with its line end) fits in half of one
    tiny_blocks(monkeypatch)
    text = b"\n".join(b"x" * length for length in lengths) + (b"\n" if ends_with_line_end else b"")
    (tmp_path / "text").write_bytes(text)
    longest = max(len(line) + 1 for line in text.split(b"\n"))
    for source in (text, str(tmp_path / "text")):
        block = trec_io._csv_block(source)
        assert block >= len(text) or 2 * longest <= block  # one block, or lines that fit


def test_duplicate_line_is_refused():
    with pytest.raises(SchemaError, match=r"line 2: document 'd' appears twice .* line 1"):
        pdireval.read_run(io.StringIO("q Q0 d 1 1 t\nq Q0 d 1 1 t\n"))


# --------------------------------------------------------------------------- malformed input

RUN_ERRORS = [
    ("q Q0 a 1 1.0 t\nq Q0 b 2 1.0\n", 2, "expected 6 fields", "q Q0 b 2 1.0"),
    ("q Q0 a 1 1.0 t\n\n# x\nq Q0 b 2\n", 4, "found 4", "q Q0 b 2"),
    ("q Q0 a 1 1.0 t\nq Q0 b 2 high t\n", 2, "score 'high' is not a number", "high"),
    ("q Q0 a 1 nan t\n", 1, "score 'nan' is NaN", "q Q0 a 1 nan t"),
    ("q Q0 a 1 NaN(0) t\n", 1, r"score 'NaN\(0\)' is NaN", "NaN(0)"),
    ("q Q0 a 1 1_0 t\n", 1, "score '1_0' is not a number", "1_0"),  # Python's float takes it
    ("q Q0 a 1 0x10 t\n", 1, "score '0x10' is not a number", "0x10"),  # C's atof takes it
    ("q Q0 a 1 1.5x t\n", 1, "score '1.5x' is not a number", "1.5x"),
    ("q Q0 a 1 1 t\nq Q0  b 2\t1\n", 2, "found 5", "q Q0  b 2\t1"),
    # a first line with a seventh field: a later line with an empty field in the
    # place of Q0 or the rank still has seven, and is five fields to trec_eval
    ("q Q0 a 1 1 t x\nq  b 2 1 t\n", 2, "found 5", "q  b 2 1 t"),
    ("q Q0 a 1 1 t x\nq Q0 b  1 t\n", 2, "found 5", "q Q0 b  1 t"),
    ("q Q0 a 1 1 t\r\nq Q0 b 2 1 t\r\nq Q0 c\r3 1 t\r\n", 3, r"carriage return", "q Q0 c"),
    ("q Q0 a 1 1 t\rq Q0 b 2 1 t\r", 1, r"old Mac line endings", "q Q0 a 1 1 t"),
    ("q Q0 a 1 1 t\nq Q0 b\x00 2 1 t\n", 2, r"NUL byte", "q Q0 b"),
    ("1 0 a 1\n", 1, "found 4 -- this looks like a qrels file: use read_qrels", "1 0 a 1"),
    (
        "q Q0 a 1 1 t\nq Q0 b 2 1 t\nq Q0 a 3 0 t\n",
        3,
        "'a' appears twice.*first on line 1",
        "q Q0 a 3 0 t",
    ),
]


@pytest.mark.parametrize(("text", "line", "problem", "shown"), RUN_ERRORS)
def test_read_run_errors_name_file_line_and_content(tmp_path, text, line, problem, shown):
    path = tmp_path / "bad.run"
    path.write_bytes(text.encode())
    with pytest.raises(SchemaError, match=rf"bad\.run, line {line}: .*{problem}") as error:
        pdireval.read_run(path)
    assert repr(shown)[1:-1] in str(error.value)


def test_same_document_in_two_runs_of_one_file_is_allowed():
    run = pdireval.read_run(io.StringIO("q Q0 a 1 1 t1\nq Q0 a 1 1 t2\n"))
    assert run["run"].tolist() == ["t1", "t2"]


QRELS_ERRORS = [
    ("1 0 a 1\n1 0 b\n", 2, "expected 4 fields .* found 3"),
    ("1 0 a 1 extra\n", 1, "expected 4 fields .* found 5"),
    ("1 0 a 1\n1 0 b 1 2 3\n", 2, "found 6 -- this looks like a run file: use read_run"),
    ("1 0 a yes\n", 1, "label 'yes' is not an integer"),
    ("1 0 a 1.5\n", 1, "label '1.5' is not an integer"),
    ("1 0 a 0x1\n", 1, "label '0x1' is not an integer"),  # Arrow's integer parser takes it
    ("1 0 a 1\n1 0 b 99999999999999999999\n", 2, "label '99999999999999999999' is too large"),
    ("1 0 a -9223372036854775809\n", 1, "is too large"),
    ("1 0 a 1\n2 0 a 1\n1 0 a 0\n", 3, "'a' appears twice in the qrels for query '1'"),
]


@pytest.mark.parametrize(("text", "line", "problem"), QRELS_ERRORS)
def test_read_qrels_errors_name_file_line_and_content(tmp_path, text, line, problem):
    path = tmp_path / "bad.qrels"
    path.write_text(text)
    with pytest.raises(SchemaError, match=rf"bad\.qrels, line {line}: .*{problem}"):
        pdireval.read_qrels(path)


def test_error_from_a_buffer_and_gzip_names_the_source(tmp_path):
    with pytest.raises(SchemaError, match=r"<buffer>, line 1"):
        pdireval.read_qrels(io.StringIO("1 0 a\n"))
    path = tmp_path / "q.gz"
    path.write_bytes(gzip.compress(b"1 0 a 1\n1 0 b x\n"))
    with pytest.raises(SchemaError, match=r"q\.gz, line 2: .*'1 0 b x'"):
        pdireval.read_qrels(path)


def test_a_very_long_line_is_shortened_in_the_message():
    text = f"q Q0 d 1 {'9' * 5000}x t\n"
    with pytest.raises(SchemaError, match=r"line 1: the score .* is not a number") as error:
        pdireval.read_run(io.StringIO(text))
    assert len(str(error.value)) < 5000 + 400  # the token once, the line cut short
    assert str(error.value).endswith("...'")


def test_truncated_or_damaged_gzip_names_the_file(tmp_path):
    whole = gzip.compress(RUN.encode() * 50)
    truncated = tmp_path / "cut.run.gz"
    truncated.write_bytes(whole[: len(whole) // 2])
    with pytest.raises(SchemaError, match=r"cut\.run\.gz: the gzip stream ends .* truncated"):
        pdireval.read_run(truncated)
    fake = tmp_path / "fake.run"
    fake.write_bytes(b"\x1f\x8b" + b"not gzip at all\n" * 3)
    with pytest.raises(SchemaError, match=r"fake\.run: starts with the gzip signature"):
        pdireval.read_run(fake)
    corrupt = bytearray(whole)
    corrupt[-8] ^= 0xFF  # the CRC
    damaged = tmp_path / "crc.qrels.gz"
    damaged.write_bytes(bytes(corrupt))
    with pytest.raises(SchemaError, match=r"crc\.qrels\.gz: .*not a valid gzip stream"):
        pdireval.read_qrels(damaged)


def test_other_compression_is_named(tmp_path):
    path = tmp_path / "run.bz2"
    path.write_bytes(bz2.compress(RUN.encode()))
    with pytest.raises(SchemaError, match=r"run\.bz2: is bzip2-compressed; .*bunzip2"):
        pdireval.read_run(path)


def test_non_utf8_byte_names_the_line_and_the_bytes(tmp_path):
    path = tmp_path / "latin.qrels"
    path.write_bytes(b"1 0 a 1\n1 0 b 1\n1 0 caf\xe9 1\n")
    with pytest.raises(SchemaError, match=r"latin\.qrels, line 3: the bytes b'\\xe9' .*latin-1"):
        pdireval.read_qrels(path)
    with pytest.raises(SchemaError, match=r"<buffer>, line 1: the bytes b'\\xed'"):
        pdireval.read_qrels(io.StringIO("1 0 \ud800 1\n"))  # a lone surrogate in a text buffer


@pytest.mark.parametrize("reader", [pdireval.read_run, pdireval.read_qrels])
def test_unreadable_paths_raise_oserror_naming_the_path(tmp_path, reader):
    missing = tmp_path / "no-such-file.txt"
    with pytest.raises(FileNotFoundError, match=r"no-such-file\.txt"):
        reader(missing)
    with pytest.raises(IsADirectoryError, match=re.escape(tmp_path.name)):
        reader(tmp_path)


# --------------------------------------------------------------------------- properties

SEPARATORS = st.sampled_from([" ", " ", " ", "\t", "  ", " \t ", "\x0b", "\x0c"])
ID_CHARS = st.sampled_from("abcXYZ019-_.:/#éß中\u00a0\u2028")  # no ASCII whitespace
SCORES = st.one_of(
    st.floats(allow_nan=False).map(repr),
    st.floats(allow_nan=False, width=32).map(lambda x: f"{x:.6g}"),
    st.integers(-(10**20), 10**20).map(str),
    st.sampled_from(["inf", "-inf", "Infinity", "+2", ".5", "7.", "1E5", "-0", "0.0"]),
)


@st.composite
def trec_files(draw: st.DrawFn, kind: str) -> bytes:
    """Valid TREC files written in every way trec_eval accepts."""
    n = draw(st.integers(0, 25))
    queries = draw(st.lists(st.text(ID_CHARS, min_size=1, max_size=4), min_size=1, max_size=3))
    queries = [q for q in queries if not q.startswith("#")] or ["q"]
    lines = []
    for i in range(n):
        query = draw(st.sampled_from(queries))
        doc = f"{draw(st.text(ID_CHARS, max_size=3))}~{i}"  # unique
        if kind == "run":
            fields = [query, draw(st.sampled_from(["Q0", "0", "x"])), doc]
            fields += [draw(st.sampled_from(["1", "0", "r"])), draw(SCORES)]
            fields += [draw(st.text(ID_CHARS, min_size=1, max_size=3))]
            fields += draw(st.lists(st.text(ID_CHARS, min_size=1, max_size=3), max_size=3))
        else:
            label = draw(st.integers(-(2**63), 2**63 - 1))
            sign = draw(st.sampled_from(["", "+"])) if label >= 0 else ""
            fields = [query, draw(st.sampled_from(["0", "1", "Q0"])), doc, f"{sign}{label}"]
        line = "".join(f + draw(SEPARATORS) for f in fields[:-1]) + fields[-1]
        lines.append(
            draw(st.sampled_from(["", " ", "\t"])) + line + draw(st.sampled_from(["", " "]))
        )
        for _ in range(draw(st.integers(0, 1))):
            lines.append(draw(st.sampled_from(["", "   ", "# comment", "  #x y z", "#"])))
    end = draw(st.sampled_from(["\n", "\r\n"]))
    text = end.join(lines) + draw(st.sampled_from(["", end]))
    data = draw(st.sampled_from([b"", b"\xef\xbb\xbf"])) + text.encode()
    return gzip.compress(data) if draw(st.booleans()) else data


def _plain(data: bytes) -> bytes:
    data = gzip.decompress(data) if data[:2] == b"\x1f\x8b" else data
    return data.removeprefix(b"\xef\xbb\xbf")


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(trec_files("run"))
def test_read_run_parses_as_trec_eval_splits(data):
    pd.testing.assert_frame_equal(
        pdireval.read_run(io.BytesIO(data)), expected_run(_plain(data)), check_exact=True
    )


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(trec_files("qrels"))
def test_read_qrels_parses_as_trec_eval_splits(data):
    pd.testing.assert_frame_equal(
        pdireval.read_qrels(io.BytesIO(data)), expected_qrels(_plain(data)), check_exact=True
    )


@settings(max_examples=60, deadline=None)
@given(trec_files("run"), st.data())
def test_a_broken_line_is_reported_by_its_number(data, choices):
    text = _plain(data)
    lines = text.split(b"\n")
    data_lines = [
        i for i, line in enumerate(lines) if line.split() and not line.split()[0].startswith(b"#")
    ]
    if not data_lines:
        return
    at = choices.draw(st.sampled_from(data_lines))
    fields = lines[at].split()
    broken = choices.draw(
        st.sampled_from([b" ".join(fields[:5]), b" ".join([*fields[:4], b"score", *fields[5:]])])
    )
    lines[at] = broken + (b"\r" if lines[at].endswith(b"\r") else b"")
    with pytest.raises(SchemaError, match=rf"<buffer>, line {at + 1}: "):
        pdireval.read_run(io.BytesIO(b"\n".join(lines)))


# --------------------------------------------------------------------------- trec_eval's files


@pytest.mark.skipif(not TESTDATA.is_dir(), reason=TESTDATA_REASON)
@pytest.mark.parametrize(
    "name", ["results.test", "results.trunc", "results.comment.test", "results-302.test"]
)
def test_trec_eval_test_runs(name):
    data = (TESTDATA / name).read_bytes()
    pd.testing.assert_frame_equal(pdireval.read_run(TESTDATA / name), expected_run(data))


@pytest.mark.skipif(not TESTDATA.is_dir(), reason=TESTDATA_REASON)
@pytest.mark.parametrize(
    "name",
    ["qrels.test", "qrels.test.with-comments", "qrels.comment.test", "qrels.rel_level"],
)
def test_trec_eval_test_qrels(name):
    data = (TESTDATA / name).read_bytes()
    pd.testing.assert_frame_equal(pdireval.read_qrels(TESTDATA / name), expected_qrels(data))


@pytest.mark.skipif(not TESTDATA.is_dir(), reason=TESTDATA_REASON)
@pytest.mark.parametrize(
    ("qrels", "run", "output", "queries"),
    [
        ("qrels.comment.test", "results.comment.test", "out.comment.test", "retrieved"),
        ("qrels.test.with-comments", "results.test", "out.test", "retrieved"),
        ("qrels.test", "results.trunc", "out.test.aqc", "judged"),  # trec_eval -c
    ],
)
def test_files_read_here_evaluate_as_trec_eval_evaluates_them(qrels, run, output, queries):
    df = pdireval.merge_qrels(
        pdireval.read_run(TESTDATA / run), pdireval.read_qrels(TESTDATA / qrels)
    )
    table = df.ireval.evaluate(["AP", "P@5", "RR", "Rprec"], queries=queries)
    expected = {}
    for line in (TESTDATA / output).read_text().splitlines():
        measure, query, value = line.split()
        if query == "all":
            expected[measure] = value
    assert str(len(table)) == expected["num_q"]
    ours = table.mean()
    for measure, metric in [("map", "AP"), ("P_5", "P@5"), ("recip_rank", "RR")]:
        assert f"{ours[metric]:.4f}" == expected[measure], measure
    assert f"{ours['Rprec']:.4f}" == expected["Rprec"]


# --------------------------------------------------------------------------- writing


@pytest.mark.parametrize("suffix", ["txt", "txt.gz"])
def test_round_trip_example_collection(tmp_path: Path, suffix: str):
    from pdireval.datasets import example_qrels, example_run

    run, qrels = example_run(), example_qrels()
    pdireval.write_run(run, tmp_path / f"run.{suffix}")
    pdireval.write_qrels(qrels, tmp_path / f"qrels.{suffix}")
    back_run = pdireval.read_run(tmp_path / f"run.{suffix}")
    back_qrels = pdireval.read_qrels(tmp_path / f"qrels.{suffix}")
    key = ["run", "query", "doc"]
    pd.testing.assert_frame_equal(
        back_run.sort_values(key).reset_index(drop=True),
        run.sort_values(key).reset_index(drop=True),
        check_dtype=False,
    )
    pd.testing.assert_frame_equal(
        back_qrels.sort_values(["query", "doc"]).reset_index(drop=True),
        qrels.sort_values(["query", "doc"]).reset_index(drop=True),
        check_dtype=False,
    )
    metrics = ["AP", "nDCG@10", "P@5", "Bpref"]
    before = pdireval.merge_qrels(run, qrels).ireval.evaluate(metrics).sort_index()
    after = pdireval.merge_qrels(back_run, back_qrels).ireval.evaluate(metrics).sort_index()
    pd.testing.assert_frame_equal(before, after, check_exact=True)


def test_write_run_ranks_by_score_and_keeps_exact_scores():
    run = pd.DataFrame({"query": ["q", "q", "q"], "doc": ["a", "b", "c"],
                        "score": [0.1, 1 / 3, 1 / 3]})  # fmt: skip
    out = io.StringIO()
    pdireval.write_run(run, out, tag="x")
    lines = [line.split() for line in out.getvalue().splitlines()]
    assert [f[2] for f in lines] == ["c", "b", "a"]  # tie: doc id descending
    assert [f[3] for f in lines] == ["1", "2", "3"]
    assert float(lines[0][4]) == 1 / 3
    assert {f[5] for f in lines} == {"x"}


def test_write_run_from_ranks_only_and_skips_unretrieved_rows():
    df = pd.DataFrame({"query": [1, 1, 1], "doc": ["a", "b", "z"],
                       "rank": [2, 1, None], "rel": [0, 1, 1]})  # fmt: skip
    out = io.StringIO()
    pdireval.write_run(df, out)
    assert out.getvalue() == "1 Q0 b 1 2 pdireval\n1 Q0 a 2 1 pdireval\n"
    back = pdireval.read_run(io.StringIO(out.getvalue()))
    assert back["doc"].tolist() == ["b", "a"]


def test_write_run_needs_rank_or_score():
    with pytest.raises(SchemaError, match="rank or a score column"):
        pdireval.write_run(pd.DataFrame({"query": [1], "doc": ["a"]}), io.StringIO())


def test_write_run_to_binary_buffers_and_empty_frames(tmp_path):
    run = pd.DataFrame({"query": ["q"], "doc": ["é"], "score": [-math.inf]})
    out = io.BytesIO()
    pdireval.write_run(run, out)
    assert out.getvalue() == "q Q0 é 1 -inf pdireval\n".encode()
    assert pdireval.read_run(io.BytesIO(out.getvalue()))["score"].tolist() == [-math.inf]
    pdireval.write_run(run.iloc[:0], tmp_path / "empty.run")
    assert (tmp_path / "empty.run").read_bytes() == b""
    pdireval.write_qrels(pd.DataFrame({"query": [], "doc": [], "rel": []}), tmp_path / "e")
    assert len(pdireval.read_qrels(tmp_path / "e")) == 0


def test_write_qrels_skips_unjudged_and_writes_once_per_pair():
    from pdireval.datasets import example

    df = example()  # three runs: each judgment appears once per run
    out = io.StringIO()
    pdireval.write_qrels(df, out)
    back = pdireval.read_qrels(io.StringIO(out.getvalue()))
    from pdireval.datasets import example_qrels

    assert len(back) == len(example_qrels())


def test_write_qrels_refuses_fractional_and_conflicting_labels():
    frac = pd.DataFrame({"query": [1], "doc": ["a"], "rel": [0.5]})
    with pytest.raises(SchemaError, match="whole-number labels"):
        pdireval.write_qrels(frac, io.StringIO())
    clash = pd.DataFrame({"query": [1, 1], "doc": ["a", "a"], "rel": [0, 1]})
    with pytest.raises(SchemaError, match=r"two different labels, 0 and 1 \(rows \[0, 1\]\)"):
        pdireval.write_qrels(clash, io.StringIO())


@pytest.mark.parametrize(
    ("rel", "problem"),
    [
        ([math.inf], r"found inf \(infinite or beyond 64 bits\) in row 0"),
        ([1e19], r"beyond 64 bits"),
        ([1.0, 2.5], r"found 2.5 \(fractional\) in row 1"),
        (["a"], r"rel column 'rel' must hold numbers"),
    ],
)
def test_write_qrels_refuses_labels_it_cannot_write(rel, problem):
    frame = pd.DataFrame({"query": ["q"] * len(rel), "doc": list("ab")[: len(rel)], "rel": rel})
    with pytest.raises(SchemaError, match=problem):
        pdireval.write_qrels(frame, io.StringIO())


def test_write_qrels_keeps_big_and_negative_labels_exactly():
    labels = pd.array([2**62 + 1, -(2**63), -1, None], dtype="Int64")
    frame = pd.DataFrame({"query": ["q"] * 4, "doc": list("abcd"), "rel": labels})
    out = io.StringIO()
    pdireval.write_qrels(frame, out)
    assert pdireval.read_qrels(io.StringIO(out.getvalue()))["rel"].tolist() == [
        2**62 + 1,
        -(2**63),
        -1,
    ]


BAD_IDS = [
    ("doc", "a b", r"the doc id 'a b' in row 2 \(column 'doc'\) contains ' '.*str\.replace"),
    ("doc", "a\tb", r"contains '\\t'"),
    ("doc", "a\nb", r"contains '\\n'"),
    ("doc", "a\rb", r"contains '\\r'"),
    ("doc", "a\x00b", r"contains '\\x00'"),
    ("doc", "", r"the doc id '' in row 2 \(column 'doc'\) is empty"),
    ("doc", None, r"the doc id in row 2 \(column 'doc'\) is missing.*dropna"),
    ("doc", math.nan, r"the doc id in row 2 \(column 'doc'\) is missing"),
    ("query", "#7", r"the query id '#7' in row 2 .* starts with '#'.*comment"),
    ("query", "q 7", r"the query id 'q 7' in row 2"),
    ("run", "my run", r"the run name 'my run' in row 2 \(column 'run'\) contains ' '"),
    ("run", None, r"the run name in row 2 \(column 'run'\) is missing"),
    ("doc", b"\xff", r"the doc id b'\\xff' in row 2 \(column 'doc'\) cannot be written as UTF-8"),
]


@pytest.mark.parametrize(("column", "value", "problem"), BAD_IDS)
def test_write_run_refuses_ids_that_would_not_read_back(column, value, problem):
    frame = pd.DataFrame(
        {"query": ["q1"] * 3, "doc": ["a", "b", "c"], "score": [3.0, 2.0, 1.0], "run": "r"},
        index=[0, 1, 2],
        dtype=object,
    )
    frame.loc[2, column] = value
    with pytest.raises(SchemaError, match=problem):
        pdireval.write_run(frame, io.StringIO())
    if column != "run":
        frame = frame.drop(columns="run").rename(columns={"score": "rel"})
        frame["rel"] = [1, 0, 2]
        with pytest.raises(SchemaError, match=problem):
            pdireval.write_qrels(frame, io.StringIO())


def test_write_run_ignores_ids_of_rows_it_does_not_write():
    frame = pd.DataFrame({"query": ["q", "q"], "doc": ["a", None], "score": [1.0, None]})
    out = io.StringIO()
    pdireval.write_run(frame, out)
    assert out.getvalue() == "q Q0 a 1 1 pdireval\n"


@pytest.mark.parametrize("tag", ["", "two words", "tab\there"])
def test_write_run_refuses_a_tag_that_would_not_read_back(tag):
    run = pd.DataFrame({"query": ["q"], "doc": ["a"], "score": [1.0]})
    with pytest.raises(SchemaError, match=r"the tag .* \(the tag= argument\)"):
        pdireval.write_run(run, io.StringIO(), tag=tag)


def test_write_run_refuses_repeated_documents():
    run = pd.DataFrame({"query": ["q", "q", "q"], "doc": ["a", "b", "a"], "score": [3, 2, 1]})
    with pytest.raises(
        SchemaError, match=r"document 'a' appears twice for query 'q' \(rows 0 and 2\)"
    ):
        pdireval.write_run(run, io.StringIO())
    run["run"] = ["x", "x", "y"]  # once per run is fine
    pdireval.write_run(run, io.StringIO())


def test_write_run_with_ranks_and_scores():
    both = pd.DataFrame({"query": ["q"] * 3, "doc": ["a", "b", "c"], "rank": [1, 2, 3],
                         "score": [2.0, 2.0, 1.0]})  # fmt: skip
    out = io.StringIO()
    pdireval.write_run(both, out)
    assert out.getvalue() == "q Q0 a 1 2 pdireval\nq Q0 b 2 2 pdireval\nq Q0 c 3 1 pdireval\n"
    rising = both.assign(score=[1.0, 2.0, 0.5])
    with pytest.raises(SchemaError, match=r"row 1 is ranked below row 0 but has a higher score"):
        pdireval.write_run(rising, io.StringIO())
    missing = both.assign(score=[1.0, None, 0.5])
    with pytest.raises(SchemaError, match=r"row 1 has a rank but no score"):
        pdireval.write_run(missing, io.StringIO())
    with pytest.raises(SchemaError, match=r"the score column 'score' must hold numbers"):
        pdireval.write_run(both.drop(columns="rank").assign(score=["x", "1", "2"]), io.StringIO())


@st.composite
def run_frames(draw: st.DrawFn) -> pd.DataFrame:
    """Runs with safe ids, tied, negative and infinite scores, one to three runs."""
    ids = st.text(st.sampled_from("abcXYZ019-_.:#é中\u00a0\u2028"), min_size=1, max_size=4)
    queries = draw(st.lists(ids.filter(lambda q: q[0] != "#"), min_size=1, max_size=3))
    runs = draw(st.lists(ids, min_size=1, max_size=2, unique=True))
    scores = st.one_of(
        st.sampled_from([0.0, 1.0, -1.5, 2.5]),  # ties
        st.floats(allow_nan=False),
    )
    rows = draw(
        st.lists(
            st.tuples(st.sampled_from(runs), st.sampled_from(queries), ids, scores),
            max_size=30,
            unique_by=lambda row: row[:3],
        )
    )
    return pd.DataFrame(rows, columns=["run", "query", "doc", "score"]).astype({"score": float})


@settings(max_examples=150, deadline=None)
@given(run_frames())
def test_write_run_then_read_run_gives_the_frame_back(frame):
    out = io.BytesIO()
    pdireval.write_run(frame, out)
    back = pdireval.read_run(io.BytesIO(out.getvalue()))
    key = ["run", "query", "doc"]
    pd.testing.assert_frame_equal(
        back.sort_values(key).reset_index(drop=True),
        frame[back.columns].sort_values(key).reset_index(drop=True).astype({c: STR for c in key}),
        check_exact=True,
    )
    # lines come in the order trec_eval ranks them: score descending, ties doc descending
    for _, lines in back.groupby(["run", "query"], sort=False):
        pairs = list(zip(lines["score"], lines["doc"], strict=True))
        assert pairs == sorted(pairs, reverse=True)


@settings(max_examples=100, deadline=None)
@given(run_frames(), st.randoms(use_true_random=False))
def test_write_run_from_ranks_keeps_the_order(frame, random):
    frame = frame.drop(columns="score")
    frame["rank"] = frame.groupby(["run", "query"]).cumcount() + 1
    frame = frame.sample(frac=1, random_state=random.randrange(1000))
    out = io.BytesIO()
    pdireval.write_run(frame, out)
    back = pdireval.read_run(io.BytesIO(out.getvalue()))
    ranked = frame.sort_values(["run", "query", "rank"])
    assert back["doc"].tolist() == ranked["doc"].tolist()
    assert back["query"].tolist() == ranked["query"].tolist()


@settings(max_examples=100, deadline=None)
@given(
    st.lists(
        st.tuples(
            st.text(st.sampled_from("abc019#é"), min_size=1, max_size=3).filter(
                lambda q: q[0] != "#"
            ),
            st.text(st.sampled_from("xyz-_#中"), min_size=1, max_size=3),
            st.integers(-(2**63), 2**63 - 1),
        ),
        max_size=30,
        unique_by=lambda row: row[:2],
    )
)
def test_write_qrels_then_read_qrels_gives_the_frame_back(rows):
    frame = pd.DataFrame(rows, columns=["query", "doc", "rel"]).astype({"rel": np.int64})
    out = io.StringIO()
    pdireval.write_qrels(frame, out)
    back = pdireval.read_qrels(io.StringIO(out.getvalue()))
    expected = frame.sort_values(["query", "doc"]).reset_index(drop=True)
    pd.testing.assert_frame_equal(back, expected.astype({"query": STR, "doc": STR}))


# The same text read from a file on disk (Arrow parses the file itself when it needs no
# normalising) and from a buffer (always the bytes in memory): one frame, one error.
_FIELD = st.text(alphabet="abcXYZ019-_.é", min_size=1, max_size=6)
_SEPARATOR = st.sampled_from([" "] * 40 + ["  ", "\t"])


@st.composite
def _run_texts(draw: st.DrawFn) -> str:
    """Run files, most of them plain (single spaces, six fields, numbers for scores)."""
    lines = []
    for _ in range(draw(st.integers(0, 12))):
        fields = [
            draw(_FIELD),
            "Q0",
            draw(st.sampled_from(["d#1"] + [draw(_FIELD)] * 40)),  # a '#' in an id, rarely
            str(draw(st.integers(0, 99))),
            draw(st.sampled_from(["1", "0.5", "-2.25", "1e3", "3", "inf"] * 8 + ["x", "nan"])),
            draw(_FIELD),
        ]
        fields += draw(st.sampled_from([[]] * 40 + [["x"], ["x", "y"]]))  # ignored fields
        ending = draw(st.sampled_from([""] * 40 + [" ", "\r"]))
        lines.append(draw(_SEPARATOR).join(fields) + ending)
    return "\n".join(lines) + draw(st.sampled_from(["", "\n"]))


@st.composite
def _qrels_texts(draw: st.DrawFn) -> str:
    """Qrels files, most of them plain."""
    lines = []
    for _ in range(draw(st.integers(0, 12))):
        label = draw(st.sampled_from(["0", "1", "2", "-1", "+3"] * 8 + ["x", "1.5"]))
        fields = [draw(_FIELD), draw(st.sampled_from(["0"] * 20 + ["a"])), draw(_FIELD), label]
        lines.append(draw(_SEPARATOR).join(fields) + draw(st.sampled_from([""] * 40 + [" "])))
    return "\n".join(lines) + draw(st.sampled_from(["", "\n"]))


def _outcome(read, source):
    try:
        return read(source)
    except pdireval.SchemaError as error:
        return str(error).replace(str(source), "<buffer>")  # the same message otherwise


def _same_from_disk_and_memory(tmp_path, text: str, read) -> None:
    path = tmp_path / "file.txt"
    path.write_bytes(text.encode())
    from_disk = _outcome(read, path)
    in_memory = _outcome(read, io.BytesIO(text.encode()))
    if isinstance(in_memory, pd.DataFrame):
        pd.testing.assert_frame_equal(from_disk, in_memory)
    else:
        assert from_disk == in_memory


@settings(
    max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(text=_run_texts())
def test_a_file_on_disk_reads_as_the_same_bytes_in_memory(tmp_path, text):
    _same_from_disk_and_memory(tmp_path, text, pdireval.read_run)


@settings(
    max_examples=100, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(text=_qrels_texts())
def test_qrels_on_disk_read_as_the_same_bytes_in_memory(tmp_path, text):
    _same_from_disk_and_memory(tmp_path, text, pdireval.read_qrels)


def test_a_pipe_is_read_once(tmp_path):
    """A named pipe (what a shell's <(zcat run.gz) gives) holds the text once: it is
    read as it comes, not scanned first and read again."""
    text = "q1 Q0 d1 1 2.5 t\nq1 Q0 d2 2 1.5 t\n"
    pipe = tmp_path / "run.fifo"
    os.mkfifo(pipe)
    writer = threading.Thread(target=pipe.write_text, args=(text,))
    writer.start()
    frame = pdireval.read_run(pipe)
    writer.join()
    pd.testing.assert_frame_equal(frame, pdireval.read_run(io.StringIO(text)))


def test_a_run_with_a_two_megabyte_doc_id_reads_whole_and_is_checked(tmp_path):
    """One 2,000,000-character doc id among 20,000 lines: read back byte for byte, its
    repeats found (the message shows its start, not the id), and ids that differ only
    in their last character kept apart -- in runs, qrels and a merged frame."""
    long = "d" + "x" * 1_999_998 + "1"
    other = long[:-1] + "2"  # the same bytes but the last
    docs = [f"d{i}" for i in range(20_000)]
    docs[7_000], docs[13_000] = long, other
    lines = [f"q Q0 {doc} {i + 1} {20_000 - i} tag\n" for i, doc in enumerate(docs)]
    path = tmp_path / "long.run"
    path.write_text("".join(lines))
    run = pdireval.read_run(path)
    assert run["doc"].tolist() == docs
    assert run["score"].tolist() == list(range(20_000, 0, -1))

    qrels_path = tmp_path / "long.qrels"
    qrels_path.write_text(f"q 0 {long} 1\nq 0 d5 1\nq 0 {other} 0\n")
    qrels = pdireval.read_qrels(qrels_path)
    assert qrels["doc"].tolist() == [long, "d5", other]
    merged = pdireval.merge_qrels(run, qrels)
    assert merged.loc[merged["doc"] == long, "rel"].tolist() == [1]
    assert merged.loc[merged["doc"] == other, "rel"].tolist() == [0]
    values = pdireval.evaluate(run, ["NumRelRet", "RR"], qrels=qrels)
    assert values.loc[("tag", "q")].tolist() == [2.0, 1 / 6]

    lines[19_000] = f"q Q0 {long} 19001 1 tag\n"  # the long id listed twice
    path.write_text("".join(lines))
    with pytest.raises(SchemaError, match=r"line 19001: document 'dxxx.*\(2,000,000 ch") as error:
        pdireval.read_run(path)
    assert "first on line 7001" in str(error.value)
    assert len(str(error.value)) < 1_000
