"""TREC run/qrels reading and writing: formats, round trips, every malformed-input error."""

from __future__ import annotations

import gzip
import io
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import pdireval
from pdireval import SchemaError

RUN = """# a comment line
q1 Q0 d1 1 2.5 bm25
q1\tQ0\td2\t2\t  2.5\tbm25 trailing junk is ignored, as trec_eval ignores it

q2 Q0 007 9 -1e-3 bm25
"""
QRELS = "q1 0 d2 1\n# judged later\nq1 0 d9 2\nq2 0 007 0\nq3 0 x -1\n"


def test_read_run_columns_types_and_values():
    run = pdireval.read_run(io.StringIO(RUN))
    assert list(run.columns) == ["query", "doc", "score", "run"]
    assert run["query"].tolist() == ["q1", "q1", "q2"]
    assert run["doc"].tolist() == ["d1", "d2", "007"]  # ids stay strings: no 7
    assert run["score"].tolist() == [2.5, 2.5, -0.001]
    assert run["run"].tolist() == ["bm25"] * 3
    assert run["score"].dtype == np.float64
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


def test_gzip_and_paths(tmp_path: Path):
    path = tmp_path / "run.txt.gz"
    path.write_bytes(gzip.compress(RUN.encode()))
    assert pdireval.read_run(path).equals(pdireval.read_run(io.StringIO(RUN)))
    assert pdireval.read_run(str(path)).equals(pdireval.read_run(io.BytesIO(RUN.encode())))
    qrels = tmp_path / "qrels.gz"
    qrels.write_bytes(gzip.compress(QRELS.encode()))
    assert pdireval.read_qrels(qrels)["rel"].tolist() == [1, 2, 0, -1]


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
    assert out.getvalue() == "1 Q0 b 1 2.0 pdireval\n1 Q0 a 2 1.0 pdireval\n"
    back = pdireval.read_run(io.StringIO(out.getvalue()))
    assert back["doc"].tolist() == ["b", "a"]


def test_write_run_needs_rank_or_score():
    with pytest.raises(SchemaError, match="rank or a score column"):
        pdireval.write_run(pd.DataFrame({"query": [1], "doc": ["a"]}), io.StringIO())


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
    with pytest.raises(SchemaError, match="two different labels"):
        pdireval.write_qrels(clash, io.StringIO())


# --------------------------------------------------------------------------- malformed input

RUN_ERRORS = [
    ("q Q0 a 1 1.0 t\nq Q0 b 2 1.0\n", 2, "expected 6 fields", "q Q0 b 2 1.0"),
    ("q Q0 a 1 1.0 t\n\n# x\nq Q0 b 2\n", 4, "found 4", "q Q0 b 2"),
    ("q Q0 a 1 1.0 t\nq Q0 b 2 high t\n", 2, "score 'high' is not a finite number", "high"),
    ("q Q0 a 1 nan t\n", 1, "score 'nan' is not a finite number", "q Q0 a 1 nan t"),
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
    path.write_text(text)
    with pytest.raises(SchemaError, match=rf"bad\.run, line {line}: .*{problem}") as error:
        pdireval.read_run(path)
    assert shown in str(error.value)


def test_same_document_in_two_runs_of_one_file_is_allowed():
    run = pdireval.read_run(io.StringIO("q Q0 a 1 1 t1\nq Q0 a 1 1 t2\n"))
    assert run["run"].tolist() == ["t1", "t2"]


QRELS_ERRORS = [
    ("1 0 a 1\n1 0 b\n", 2, "expected 4 fields .* found 3"),
    ("1 0 a 1 extra\n", 1, "expected 4 fields .* found 5"),
    ("1 0 a 1\n1 0 b 1 2 3\n", 2, "found 6"),
    ("1 0 a yes\n", 1, "label 'yes' is not an integer"),
    ("1 0 a 1.5\n", 1, "label '1.5' is not an integer"),
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


def test_large_run_reads_in_seconds(tmp_path):
    n = 300_000
    lines = "".join(f"{i // 1000} Q0 D{i} {i % 1000 + 1} {1 - (i % 1000) / 1000} r\n"
                    for i in range(n))  # fmt: skip
    path = tmp_path / "big.run"
    path.write_text(lines)
    import time

    start = time.perf_counter()
    run = pdireval.read_run(path)
    assert len(run) == n
    assert time.perf_counter() - start < 5  # 7M lines take about 6 s on 2 cores
