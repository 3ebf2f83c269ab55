"""The fast ways of reading TREC files against the plain rules they must keep.

A file on disk is scanned in blocks to decide whether Arrow can parse it as it is: what
is found in any block (tabs, comments, carriage returns, bytes that are not UTF-8) must
send it the long way, with the same frame or error as text read from a buffer; a UTF-8
character split between two blocks must not. The check for a document listed twice
looks at the (query, doc) pairs first and at the runs (or subtopics) only when one
repeats: its verdict and message must be those of the plain rule written below.
"""

from __future__ import annotations

import io
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import pdireval
import pdireval.io.trec as trec_io
from pdireval import SchemaError

STR = pd.Series(["a"]).dtype

LINES = [f"q{i // 7} Q0 d{i} {i} {i / 3!r} run\n" for i in range(60)]  # 1,500+ bytes


def expected_run(data: bytes) -> pd.DataFrame:
    """trec_eval's reading: whitespace-separated fields, '#' lines and blank ones skipped."""
    rows = [line.split() for line in data.split(b"\n")]
    rows = [f for f in rows if f and not f[0].startswith(b"#")]
    return pd.DataFrame(
        {
            "query": pd.Series([f[0].decode() for f in rows], dtype=STR),
            "doc": pd.Series([f[2].decode() for f in rows], dtype=STR),
            "score": np.array([float(f[4]) for f in rows], dtype=np.float64),
            "run": pd.Series([f[5].decode() for f in rows], dtype=STR),
        }
    )


@pytest.fixture
def small_scan_blocks(monkeypatch) -> int:
    monkeypatch.setattr(trec_io, "_BLOCK", 256)
    return 256


@pytest.mark.parametrize(
    "line",
    [
        "q40 Q0\td40 1 0.5 run\n",  # a tab
        "q40 Q0 d40 1 0.5 run\r\n",  # a Windows line end
        "# a comment of six fields here\n",
        "#a Q0 d 1 0.5 run\n",  # a comment that Arrow would read as a line
        "q40 Q0 d40\x0b1 0.5 run\n",  # a vertical tab
        "q40 Q0  d40 1 0.5 run\n",  # two spaces: an empty field for Arrow
        " q40 Q0 d40 1 0.5 run\n",  # a space before the first field
        "q40 Q0 d40 1 0.5 run \n",  # a space after the last
    ],
)
def test_what_a_late_scan_block_holds_sends_the_file_the_long_way(
    small_scan_blocks: int, tmp_path: Path, line: str
):
    lines = [*LINES]
    lines[40] = line  # well past the first block
    data = "".join(lines).encode()
    assert data.index(line.encode()) > 4 * small_scan_blocks
    path = tmp_path / "run"
    path.write_bytes(data)
    assert trec_io._plain_file(path, "utf-8") is None
    pd.testing.assert_frame_equal(pdireval.read_run(path), expected_run(data))
    pd.testing.assert_frame_equal(pdireval.read_run(io.BytesIO(data)), expected_run(data))


@pytest.mark.parametrize("shift", [0, 1])
@pytest.mark.parametrize("first", [b" ", b"\n"])
def test_an_empty_field_across_two_scan_blocks_sends_the_file_the_long_way(
    small_scan_blocks: int, tmp_path: Path, shift: int, first: bytes
):
    """Two separators in a row, the first ending a scan block and the second starting
    the next: two spaces, or a line end and a space."""
    head = "".join(LINES[:8]).encode()
    at = 4 * small_scan_blocks - 1 - shift  # the last byte of a scan block
    stem, tail = b"q9 Q0 d", b" 1 0.5 run"
    # a doc id as long as needed to bring ``first`` to ``at``
    fill = at - len(head) - len(stem) - (len(tail) if first == b"\n" else 0)
    line = stem + b"x" * fill + (tail + b"\n " if first == b"\n" else b"  1 0.5 run\n")
    data = head + line + "".join(LINES[9:]).encode()
    assert data[at : at + 2] == first + b" "
    path = tmp_path / "run"
    path.write_bytes(data)
    assert trec_io._plain_file(path, "utf-8") is None
    pd.testing.assert_frame_equal(pdireval.read_run(path), expected_run(data))


def test_a_field_left_out_is_refused_though_two_spaces_mark_its_place(
    small_scan_blocks: int, tmp_path: Path
):
    """Q0 and the rank are never converted, yet a line without one is still refused."""
    lines = [*LINES]
    lines[40] = "q40  d40 1 0.5 run\n"
    path = tmp_path / "run"
    path.write_bytes("".join(lines).encode())
    with pytest.raises(SchemaError, match=r"line 41: expected 6 fields .* found 5"):
        pdireval.read_run(path)


def test_a_space_at_the_end_of_the_file_sends_it_the_long_way(tmp_path: Path):
    data = "".join(LINES).encode().removesuffix(b"\n") + b" "
    path = tmp_path / "run"
    path.write_bytes(data)
    assert trec_io._plain_file(path, "utf-8") is None
    pd.testing.assert_frame_equal(pdireval.read_run(path), expected_run(data))


@pytest.mark.parametrize(
    ("bad", "message"),
    [
        (b"\xe9", r"line 41: the bytes b'\\xe9' are not valid UTF-8"),
        (b"\x00", r"line 41: holds a NUL byte"),
        (b"\r", r"line 41: holds a carriage return"),
    ],
)
def test_a_bad_byte_in_a_late_scan_block_gives_the_error_of_the_line(
    small_scan_blocks: int, tmp_path: Path, bad: bytes, message: str
):
    data = bytearray("".join(LINES).encode())
    at = data.index(b"d40")
    assert at > 4 * small_scan_blocks
    data[at + 1 : at + 1] = bad
    path = tmp_path / "run"
    path.write_bytes(bytes(data))
    with pytest.raises(SchemaError, match=message):
        pdireval.read_run(path)


@pytest.mark.parametrize("shift", [0, 1, 2, 3])
def test_a_character_split_between_scan_blocks_is_read_the_fast_way(
    monkeypatch, small_scan_blocks: int, tmp_path: Path, shift: int
):
    head = "".join(LINES[:8]).encode()
    # the three bytes of '中' across the end of the second block, at every split
    at = 2 * small_scan_blocks - 1 - shift
    filler = at - len(head) - len("q9 Q0 ")
    assert filler > 0
    line = f"q9 Q0 {'x' * filler}中 1 0.5 run\n".encode()
    data = head + line + "".join(LINES[9:]).encode()
    assert data[at : at + 3] == "中".encode()
    path = tmp_path / "run"
    path.write_bytes(data)
    assert trec_io._plain_file(path, "utf-8") == str(path)
    loaded: list[object] = []
    load = trec_io._load
    monkeypatch.setattr(trec_io, "_load", lambda *a: loaded.append(a) or load(*a))
    pd.testing.assert_frame_equal(pdireval.read_run(path), expected_run(data))
    assert not loaded  # parsed from disk: never read whole


def plainly_repeated(rows: list[tuple[str, str, str]]) -> tuple[int, int] | None:
    """(line, first line) of the first (tag, query, doc) seen before, 1-based; else None."""
    first: dict[tuple[str, str, str], int] = {}
    for number, row in enumerate(rows, start=1):
        if row in first:
            return number, first[row]
        first[row] = number
    return None


@pytest.mark.parametrize("n_rows", [40, 5_000])
@pytest.mark.parametrize("seed", range(9))
def test_documents_listed_twice_as_the_plain_rule_finds_them(
    tmp_path: Path, n_rows: int, seed: int
):
    rng = np.random.default_rng(seed)
    tags = ["a", "b", "c"][: 1 + seed % 3]
    kind = ("none", "within a run", "across runs")[seed // 3]
    # runs one after another, queries in blocks; every doc of a query once per run
    rows = []
    per_query = 50
    for tag in tags:
        for q in range(n_rows // per_query // len(tags) + 1):
            docs = rng.choice(10 * per_query, size=per_query, replace=False)
            rows += [(tag, f"q{q}", f"d{d}") for d in docs]
    rows = rows[:n_rows]
    if kind != "none":  # a repeat: within one run, or a doc of another run (allowed)
        at = int(rng.integers(n_rows // 2, n_rows))
        source = rows[int(rng.integers(0, at))]
        tag = source[0] if kind == "within a run" else rows[at][0]
        rows[at] = (tag, source[1], source[2])
    data = "".join(f"{q} Q0 {d} 1 {i} {t}\n" for i, (t, q, d) in enumerate(rows)).encode()
    path = tmp_path / "run"
    path.write_bytes(data)
    repeated = plainly_repeated(rows)
    if kind == "across runs" and len(tags) > 1 and rows[at][0] != source[0]:
        assert repeated is None  # the case of a (query, doc) in two runs is met
    if repeated is None:
        pd.testing.assert_frame_equal(pdireval.read_run(path), expected_run(data))
        return
    number, first = repeated
    with pytest.raises(SchemaError, match=rf"line {number}: .* \(first on line {first}\)"):
        pdireval.read_run(path)


def test_a_document_of_two_subtopics_is_judged_once_in_each(tmp_path: Path):
    path = tmp_path / "qrels"
    path.write_bytes(b"q 1 d 1\nq 2 d 0\nq 1 e 1\n")
    assert pdireval.read_qrels(path)["subtopic"].tolist() == ["1", "2", "1"]
    path.write_bytes(b"q 1 d 1\nq 2 d 0\nq 1 d 0\n")
    with pytest.raises(SchemaError, match=r"line 3: .*'d' appears twice .*first on line 1"):
        pdireval.read_qrels(path)


@pytest.mark.parametrize("n_rows", [6, 6_000])
def test_a_document_of_two_runs_is_listed_once_in_each(tmp_path: Path, n_rows: int):
    half = n_rows // 2
    lines = [f"q{i // 100} Q0 d{i} 1 {i} one\n" for i in range(half)]
    lines += [f"q{i // 100} Q0 d{i} 1 {i} two\n" for i in range(half)]  # the same pairs
    data = "".join(lines).encode()
    path = tmp_path / "run"
    path.write_bytes(data)
    pd.testing.assert_frame_equal(pdireval.read_run(path), expected_run(data))
    doc = min(half, 100) - 1  # a doc of query q0
    lines.append(f"q0 Q0 d{doc} 1 0 two\n")  # twice in run two
    path.write_bytes("".join(lines).encode())
    first = half + doc + 1
    with pytest.raises(SchemaError, match=rf"line {n_rows + 1}: .*first on line {first}\)"):
        pdireval.read_run(path)
