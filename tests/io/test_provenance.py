"""read_run keeps a run file's comment lines (ir_metadata blocks); write_run writes them."""

from __future__ import annotations

import gzip
import io
from pathlib import Path

import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import pdireval
from pdireval import SchemaError

METADATA = (
    "# ir_metadata.start",
    "# platform:",
    "#   hardware: {cpu: 2 cores}",
    "# method: {retrieval: bm25, k1: 0.9, b: 0.4}",
    "# ir_metadata.end",
)
LINES = ("q1 Q0 d1 1 2.5 bm25", "q1 Q0 d2 2 1.5 bm25", "q2 Q0 d9 1 0.1 bm25")


def _text(*lines: str) -> str:
    return "".join(f"{line}\n" for line in lines)


def test_comment_block_is_kept_and_the_rows_are_those_without_it() -> None:
    run = pdireval.read_run(io.StringIO(_text(*METADATA, *LINES)))
    plain = pdireval.read_run(io.StringIO(_text(*LINES)))
    assert run.attrs["comments"] == METADATA
    pd.testing.assert_frame_equal(run, plain)


def test_comment_lines_in_the_middle_are_kept_in_file_order() -> None:
    text = _text(LINES[0], "# after the first line", LINES[1], "  # indented, with\tTab", LINES[2])
    run = pdireval.read_run(io.StringIO(text.replace("\n", "\r\n")))  # Windows line ends
    assert run.attrs["comments"] == ("# after the first line", "  # indented, with\tTab")
    assert run["doc"].tolist() == ["d1", "d2", "d9"]


def test_no_comments_is_an_empty_tuple_on_the_fast_path_too(tmp_path: Path) -> None:
    path = tmp_path / "plain.run"
    path.write_text(_text(*LINES))  # no '#': read straight from disk by Arrow
    assert pdireval.read_run(path).attrs["comments"] == ()
    assert pdireval.read_run(io.StringIO(_text(*LINES))).attrs["comments"] == ()


def test_a_hash_inside_an_id_is_no_comment() -> None:
    run = pdireval.read_run(io.StringIO("q1 Q0 doc#1 1 2.0 r#1\n"))
    assert run.attrs["comments"] == ()
    assert run["doc"].tolist() == ["doc#1"]


@pytest.mark.parametrize("name", ["run.txt", "run.txt.gz"])
def test_round_trip_through_a_file(tmp_path: Path, name: str) -> None:
    source = tmp_path / "source.txt"
    source.write_text(_text(METADATA[0], *LINES[:2], *METADATA[1:], LINES[2]))
    run = pdireval.read_run(source)
    target = tmp_path / name
    pdireval.write_run(run, target, comments=run.attrs["comments"])
    raw = gzip.decompress(target.read_bytes()) if name.endswith(".gz") else target.read_bytes()
    assert raw.decode().splitlines()[: len(METADATA)] == list(METADATA)  # at the top
    again = pdireval.read_run(target)
    assert again.attrs["comments"] == METADATA
    pd.testing.assert_frame_equal(again, run)


@given(
    st.lists(
        st.text(st.characters(blacklist_categories=("Cs",), blacklist_characters="\n\r\x00"))
        .map(lambda s: "#" + s)
        .filter(lambda s: s == s.rstrip("\r")),
        max_size=6,
    )
)
@settings(deadline=None, max_examples=50)
def test_any_comment_lines_read_back_as_written(comments: list[str]) -> None:
    run = pdireval.read_run(io.StringIO(_text(*LINES)))
    out = io.BytesIO()
    pdireval.write_run(run, out, comments=comments)
    again = pdireval.read_run(io.BytesIO(out.getvalue()))
    expected = tuple(comments)
    assert again.attrs["comments"] == expected


def test_comments_are_written_only_when_given() -> None:
    run = pdireval.read_run(io.StringIO(_text(*METADATA, *LINES)))
    out = io.StringIO()
    pdireval.write_run(run, out)
    assert "#" not in out.getvalue()


def test_comment_text_gets_a_hash_and_a_string_is_split_into_lines() -> None:
    frame = pd.DataFrame({"query": "q", "doc": ["a"], "score": [1.0]})
    out = io.StringIO()
    pdireval.write_run(frame, out, comments="model: bm25\n# seed: 1")
    assert out.getvalue().splitlines()[:2] == ["# model: bm25", "# seed: 1"]


@pytest.mark.parametrize(
    ("comments", "match"),
    [(["# two\nlines"], "line break"), ([1], "list of strings"), (7, "list of strings")],
)
def test_bad_comments_are_refused(comments: object, match: str) -> None:
    frame = pd.DataFrame({"query": "q", "doc": ["a"], "score": [1.0]})
    with pytest.raises(SchemaError, match=match):
        pdireval.write_run(frame, io.StringIO(), comments=comments)  # type: ignore[arg-type]
