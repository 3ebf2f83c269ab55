"""Reading nuggetizer's assignment output (JSON Lines) into a nugget frame."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import pdireval
from pdireval import SchemaError


def nuggetizer_scores(nuggets: list[dict]) -> list[float]:
    """nuggetizer's ``calculate_nugget_scores`` (strict_vital, strict_all, vital, all),
    written out plainly: 0 where there is nothing to divide by.
    """
    vital = [n for n in nuggets if n["importance"] == "vital"]

    def share(items: list[dict], partial: float) -> float:
        full = sum(1 for n in items if n["assignment"] == "support")
        part = sum(partial for n in items if n["assignment"] == "partial_support")
        return (full + part) / len(items) if items else 0.0

    return [share(vital, 0.0), share(nuggets, 0.0), share(vital, 0.5), share(nuggets, 0.5)]


def _nugget(text: str, importance: str, assignment: str) -> dict:
    return {"text": text, "importance": importance, "assignment": assignment}


RECORDS = [
    {
        "query": "What is Python?",
        "qid": "q1",
        "answer_text": "Python is a high-level programming language...",
        "response_length": 42,
        "run_id": "rag-a",
        "nuggets": [
            _nugget("Python is a high-level programming language", "vital", "support"),
            _nugget("Python was created by Guido van Rossum", "vital", "partial_support"),
            _nugget("Python is used for data science", "okay", "partial_support"),
            _nugget("Python supports multithreading", "okay", "not_support"),
        ],
    },
    {
        "query": "Who wrote Hamlet?",
        "qid": "q2",
        "answer_text": "...",
        "response_length": 3,
        "run_id": "rag-a",
        "nuggets": [_nugget("Shakespeare wrote Hamlet", "okay", "support")],
    },
    {"query": "Empty", "qid": "q3", "run_id": "rag-a", "nuggets": []},
    {
        "query": "What is Python?",
        "qid": "q1",
        "run_id": "rag-b",
        "nuggets": [
            _nugget("Python is a high-level programming language", "vital", "not_support"),
            _nugget("Python was created by Guido van Rossum", "vital", "support"),
        ],
    },
]


def _write(path: Path, records: list, *, blank: bool = False) -> Path:
    lines = [json.dumps(r) if not isinstance(r, str) else r for r in records]
    if blank:
        lines.insert(1, "")
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def test_reads_the_assign_output_into_a_nugget_frame(tmp_path: Path) -> None:
    frame = pdireval.read_nuggets(_write(tmp_path / "out.jsonl", RECORDS, blank=True))
    assert frame.columns.tolist() == ["run", "query", "nugget", "importance", "assignment"]
    assert len(frame) == 4 + 1 + 1 + 2
    assert frame["run"].tolist() == ["rag-a"] * 6 + ["rag-b"] * 2
    assert frame["nugget"].iloc[1] == "Python was created by Guido van Rossum"
    empty = frame[frame["query"] == "q3"]
    assert len(empty) == 1
    assert empty[["nugget", "importance", "assignment"]].isna().all(axis=None)


def test_scores_of_a_file_are_nuggetizers(tmp_path: Path) -> None:
    frame = pdireval.read_nuggets(_write(tmp_path / "out.jsonl", RECORDS))
    # rag-b answers one query of rag-a's three: scored alone, each run is whole
    table = pd.concat(
        [pdireval.nugget_scores(frame[frame["run"] == r]) for r in ("rag-a", "rag-b")]
    )
    for record in RECORDS:
        got = table.loc[(record["run_id"], record["qid"])].tolist()
        assert got == pytest.approx(nuggetizer_scores(record["nuggets"]), abs=1e-12)
    # nuggetizer's global metrics: the mean over a run's records, the empty one included
    means = pdireval.summary(
        frame[frame["run"] == "rag-a"], ["strict_vital", "strict_all", "vital", "all"]
    )
    run_a = [nuggetizer_scores(r["nuggets"]) for r in RECORDS if r["run_id"] == "rag-a"]
    np.testing.assert_allclose(means.loc["rag-a"].to_numpy(), np.mean(run_a, axis=0), atol=1e-12)


def test_run_comes_from_run_id_then_the_file_name_or_the_argument(tmp_path: Path) -> None:
    records = [{k: v for k, v in RECORDS[0].items() if k != "run_id"}, RECORDS[3]]
    path = _write(tmp_path / "bm25-gpt4o.jsonl", records)
    frame = pdireval.read_nuggets(path)
    assert frame["run"].unique().tolist() == ["bm25-gpt4o", "rag-b"]
    assert pdireval.read_nuggets(path, run="mine")["run"].unique().tolist() == ["mine"]


def test_whole_number_ids_are_kept_as_strings(tmp_path: Path) -> None:
    record = {**RECORDS[1], "qid": 2024}
    frame = pdireval.read_nuggets(_write(tmp_path / "a.jsonl", [record]))
    assert frame["query"].tolist() == ["2024"]


@pytest.mark.parametrize(
    ("bad", "message"),
    [
        ('{"qid": "q9", "nuggets": [', r"line 3: not valid JSON"),
        ("[1, 2]", r"line 3: expected a JSON object per line, found list"),
        ('{"nuggets": []}', r"line 3: 'qid' must be a string, found no such field"),
        ('{"qid": true, "nuggets": []}', r"line 3: 'qid' must be a string, found True"),
        ('{"qid": "q9"}', r"line 3: 'nuggets' must be a list of nuggets, found none"),
        ('{"qid": "q9", "nuggets": ["x"]}', r"line 3: nugget 1 must be an object, found str"),
        (
            '{"qid": "q9", "nuggets": [{"text": "t", "importance": "vital"}]}',
            r"line 3: nugget 1: 'assignment' must be a string, found no such field "
            r"\(nuggetizer's create output has no assignments",
        ),
        (
            '{"qid": "q9", "nuggets": [{"text": "t", "importance": 1, "assignment": "x"}]}',
            r"line 3: nugget 1: 'importance' must be a string, found 1",
        ),
    ],
)
def test_malformed_lines_are_refused_by_number(tmp_path: Path, bad: str, message: str) -> None:
    path = _write(tmp_path / "bad.jsonl", [RECORDS[0], RECORDS[1], bad])
    with pytest.raises(SchemaError, match=message) as caught:
        pdireval.read_nuggets(path)
    assert str(path) in str(caught.value)
    assert bad[:30] in str(caught.value)


def test_unknown_labels_in_a_file_are_refused_when_scored(tmp_path: Path) -> None:
    record = {**RECORDS[1], "nuggets": [_nugget("t", "okay", "failed")]}
    frame = pdireval.read_nuggets(_write(tmp_path / "a.jsonl", [record]))
    with pytest.raises(
        SchemaError, match=r"holds 'failed'.*row 0 \(run 'rag-a', query 'q2', nugget 't'\)"
    ):
        pdireval.nugget_scores(frame)


def test_an_empty_file_reads_as_an_empty_frame(tmp_path: Path) -> None:
    path = tmp_path / "empty.jsonl"
    path.write_text("", encoding="utf-8")
    frame = pdireval.read_nuggets(path)
    assert frame.columns.tolist() == ["run", "query", "nugget", "importance", "assignment"]
    assert frame.empty
    assert isinstance(frame, pd.DataFrame)
