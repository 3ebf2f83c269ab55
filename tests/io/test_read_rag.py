"""Reading the TREC 2024 RAG track's answers and support grades into citation frames."""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd
import pytest

from pdireval import SchemaError
from pdireval.engine.support import citation_support
from pdireval.io import read_rag_answers, read_rag_support

RUN = "bm25+monoT5-3B (rerank top-100, fine-tuned)"


def record(**changes) -> dict:
    base = {
        "run_id": RUN,
        "topic_id": "2024-145979",
        "topic": "what is vicarious trauma",
        "references": ["msmarco_v2.1_doc_13_1647729865#2_3617397938", "d-b", "d-c"],
        "response_length": 30,
        "answer": [
            {"text": "Vicarious trauma is indirect.", "citations": [2, 0, 1, 2]},
            {"text": "It affects helpers.", "citations": []},
            {"text": "It can be treated.", "citations": [1]},
        ],
    }
    return {**base, **changes}


def write(tmp_path: Path, *records: object, name: str = "answers.jsonl") -> Path:
    path = tmp_path / name
    path.write_text(
        "\n".join(r if isinstance(r, str) else json.dumps(r) for r in records) + "\n",
        encoding="utf-8",
    )
    return path


def test_answers_read_as_one_row_per_citation(tmp_path: Path) -> None:
    frame = read_rag_answers(write(tmp_path, record(), "", record(topic_id=7, answer=[])))
    assert list(frame.columns) == ["run", "query", "sentence", "text", "doc"]
    assert frame["doc"].tolist()[:3] == [
        "d-c",
        "msmarco_v2.1_doc_13_1647729865#2_3617397938",
        "d-b",
    ]
    assert pd.isna(frame["doc"].iloc[3])
    assert frame["sentence"].tolist()[:5] == [0, 0, 0, 1, 2]
    assert frame["text"].iloc[3] == "It affects helpers."
    assert frame["run"].eq(RUN).all()
    # the repeated citation of sentence 0 is read once; the empty answer is one row
    assert len(frame) == 6
    last = frame.iloc[-1]
    assert last["query"] == "7"
    assert pd.isna(last["sentence"])
    assert pd.isna(last["doc"])


def test_max_citations_keeps_the_first_citations(tmp_path: Path) -> None:
    frame = read_rag_answers(write(tmp_path, record()), max_citations=1)
    assert frame["doc"].tolist()[0] == "d-c"
    assert frame["sentence"].tolist() == [0, 1, 2]
    with pytest.raises(SchemaError, match="max_citations"):
        read_rag_answers(write(tmp_path, record()), max_citations=0)


def test_the_run_defaults_to_the_file_name_and_can_be_given(tmp_path: Path) -> None:
    without = {k: v for k, v in record().items() if k != "run_id"}
    assert (
        read_rag_answers(write(tmp_path, without, name="my-run.jsonl"))["run"].iloc[0] == "my-run"
    )
    assert read_rag_answers(write(tmp_path, record()), run="other")["run"].eq("other").all()


@pytest.mark.parametrize(
    ("line", "problem"),
    [
        ("{not json", "not valid JSON"),
        ("[1, 2]", "expected a JSON object"),
        (json.dumps({k: v for k, v in record().items() if k != "topic_id"}), "'topic_id'"),
        (json.dumps(record(references="d1")), "'references' must be a list"),
        (json.dumps(record(answer={"text": "x"})), "'answer' must be a list"),
        (json.dumps(record(answer=[{"citations": [0]}])), "sentence 0 must be an object"),
        (json.dumps(record(answer=[{"text": "x", "citations": [3]}])), "citation 3 is outside"),
        (json.dumps(record(answer=[{"text": "x", "citations": ["0"]}])), "not an index"),
    ],
)
def test_bad_lines_are_refused_with_their_number(tmp_path: Path, line: str, problem: str) -> None:
    path = write(tmp_path, record(), line)
    with pytest.raises(SchemaError, match=rf"answers\.jsonl, line 2: .*{problem}") as error:
        read_rag_answers(path)
    assert "the line:" in str(error.value)


def graded(**changes) -> dict:
    grades = [
        {
            "answer": "Vicarious trauma is indirect.",
            "citations": [2, 0, 1, 2],
            "eval_scores": ["FS", "PS", "NS"],
        },
        {"answer": "It affects helpers.", "citations": [], "eval_scores": []},
        {"answer": "It can be treated.", "citations": [1], "eval_scores": ["Partial Support"]},
    ]
    return record(**{"support_eval": grades, **changes})


def test_support_grades_read_into_a_citation_frame(tmp_path: Path) -> None:
    frame = read_rag_support(write(tmp_path, graded()))
    assert list(frame.columns) == ["run", "query", "sentence", "text", "doc", "support"]
    assert frame["support"].tolist()[:3] == ["full_support", "partial_support", "no_support"]
    assert frame["doc"].tolist()[:3] == [
        "d-c",
        "msmarco_v2.1_doc_13_1647729865#2_3617397938",
        "d-b",
    ]
    assert pd.isna(frame["doc"].iloc[3])
    assert pd.isna(frame["support"].iloc[3])
    scores = citation_support(frame).iloc[0]
    # pairs: FS, PS, NS, PS -> 1/4 and (1 + .5 + .5) / 4; sentences: FS, none, PS
    assert scores["support_precision"] == 0.25
    assert scores["weighted_precision"] == 0.5
    assert scores["support_recall"] == pytest.approx(1 / 3)
    assert scores["weighted_recall"] == pytest.approx(1.5 / 3)


@pytest.mark.parametrize(
    ("changes", "problem"),
    [
        ({"support_eval": None}, "'support_eval' must be a list"),
        ({"support_eval": [{"eval_scores": []}]}, "1 for 3 sentences"),
    ],
)
def test_bad_support_lines_are_refused(tmp_path: Path, changes: dict, problem: str) -> None:
    with pytest.raises(SchemaError, match=rf"line 1: .*{problem}"):
        read_rag_support(write(tmp_path, graded(**changes)))


def test_a_null_or_unknown_grade_is_refused(tmp_path: Path) -> None:
    bad = graded()
    bad["support_eval"][0]["eval_scores"] = ["FS", None, "NS"]
    with pytest.raises(SchemaError, match=r"line 1: support_eval 0: .*null grade"):
        read_rag_support(write(tmp_path, bad))
    bad["support_eval"][0]["eval_scores"] = ["FS", "maybe", "NS"]
    with pytest.raises(SchemaError, match=r"line 1: sentence 0: 'maybe' is not a support grade"):
        read_rag_support(write(tmp_path, bad))
