"""``irds:<dataset-id>`` paths read through ir_datasets, on a dataset registered here
(no network): qrels, scored documents as a run, queries, and what the dataset documents.
"""

from __future__ import annotations

import io
import sys
from pathlib import Path
from typing import Any

import pandas as pd
import pytest

import pdireval
from pdireval import MissingDependencyError, SchemaError

ir_datasets = pytest.importorskip("ir_datasets")
from ir_datasets.datasets.base import Dataset  # noqa: E402
from ir_datasets.formats import (  # noqa: E402
    BaseQrels,
    BaseQueries,
    BaseScoredDocs,
    GenericQrel,
    GenericQuery,
    GenericScoredDoc,
    TrecQrel,
)

NAME = "pdireval-test/tiny"
QRELS = [("1", "d1", 2), ("1", "d2", 0), ("1", "d3", 1), ("2", "d1", 3), ("2", "d4", 0)]
SCORED = [("1", "d1", 9.5), ("1", "d3", 7.0), ("1", "d9", 3.0), ("2", "d4", 5.0)]
QUERIES = [("1", "what is a qrel"), ("2", "who judges the judges")]
LEVELS = {0: "not relevant", 1: "related", 2: "highly relevant", 3: "perfect"}


class _Qrels(BaseQrels):
    def __init__(self, rows: list[tuple], cls: type = GenericQrel) -> None:
        self._rows, self._cls = rows, cls

    def qrels_iter(self):
        return (self._cls(*row) for row in self._rows)

    def qrels_cls(self) -> type:
        return self._cls

    def qrels_defs(self) -> dict[int, str]:
        return LEVELS


class _Queries(BaseQueries):
    def queries_iter(self):
        return (GenericQuery(*row) for row in QUERIES)

    def queries_cls(self) -> type:
        return GenericQuery


class _Scored(BaseScoredDocs):
    def scoreddocs_iter(self):
        return (GenericScoredDoc(*row) for row in SCORED)

    def scoreddocs_cls(self) -> type:
        return GenericScoredDoc


class _Documentation:
    def documentation(self) -> dict[str, Any]:
        return {"official_measures": ["nDCG@10", "RR(rel=2)"]}


def _register(name: str, *parts: object) -> str:
    if name not in set(ir_datasets.registry):
        ir_datasets.registry.register(name, Dataset(*parts))
    return f"irds:{name}"


@pytest.fixture(scope="module")
def tiny() -> str:
    return _register(NAME, _Qrels(QRELS), _Queries(), _Scored(), _Documentation())


def test_qrels_read_as_read_qrels_reads_the_same_judgments(tiny: str) -> None:
    qrels = pdireval.read_qrels(tiny)
    text = "".join(f"{q} 0 {d} {r}\n" for q, d, r in QRELS)
    pd.testing.assert_frame_equal(qrels, pdireval.read_qrels(io.StringIO(text)))
    assert qrels.attrs["ir_datasets"] == {
        "dataset": NAME,
        "official_measures": ("nDCG@10", "RR(rel=2)"),
        "relevance_levels": LEVELS,
    }


def test_scored_documents_are_a_run_and_evaluate_with_the_official_measures(tiny: str) -> None:
    run = pdireval.read_run(tiny)
    assert run.columns.tolist() == ["query", "doc", "score", "run"]
    assert run["run"].unique().tolist() == [NAME]
    text = "".join(f"{q} Q0 {d} 0 {s} {NAME}\n" for q, d, s in SCORED)
    pd.testing.assert_frame_equal(run, pdireval.read_run(io.StringIO(text)), check_like=True)
    qrels = pdireval.read_qrels(tiny)
    official = list(qrels.attrs["ir_datasets"]["official_measures"])
    table = pdireval.evaluate(run.drop(columns="run"), official, qrels=qrels)
    # query 1: d1 (2) at 1, d3 (1) at 2; RR with rel=2 counts d1 only
    assert table.loc["1", "RR(rel=2)"] == 1.0
    # query 2: its only relevant document (d1, label 3) was not retrieved
    assert table.loc["2", "RR(rel=2)"] == 0.0


def test_queries_are_a_frame_of_ids_and_fields(tiny: str) -> None:
    queries = pdireval.read_queries(tiny)
    assert queries.columns.tolist() == ["query", "text"]
    assert queries.values.tolist() == [list(row) for row in QUERIES]
    assert queries.attrs["ir_datasets"]["dataset"] == NAME


def test_trec_qrels_keep_an_iteration_that_varies_as_subtopics() -> None:
    rows = [("1", "d1", 1, "a"), ("1", "d1", 0, "b"), ("1", "d2", 1, "a")]
    source = _register("pdireval-test/subtopics", _Qrels(rows, TrecQrel))
    qrels = pdireval.read_qrels(source)
    assert qrels.columns.tolist() == ["query", "subtopic", "doc", "rel"]
    assert qrels["subtopic"].tolist() == ["a", "b", "a"]
    assert pdireval.read_qrels(source, subtopics=False).columns.tolist() == [
        "query",
        "doc",
        "rel",
    ]
    constant = _register("pdireval-test/iteration", _Qrels([("1", "d1", 1, "0")], TrecQrel))
    assert pdireval.read_qrels(constant).columns.tolist() == ["query", "doc", "rel"]


def test_a_document_judged_twice_is_refused() -> None:
    source = _register("pdireval-test/twice", _Qrels([("1", "d1", 1), ("1", "d1", 0)]))
    with pytest.raises(SchemaError, match="judges a document twice"):
        pdireval.read_qrels(source)


def test_a_dataset_without_documentation_records_no_official_measures() -> None:
    source = _register("pdireval-test/undocumented", _Qrels(QRELS))
    record = pdireval.read_qrels(source).attrs["ir_datasets"]
    assert record["official_measures"] == ()
    assert record["relevance_levels"] == LEVELS


def test_an_unknown_dataset_is_a_clear_error(tiny: str) -> None:
    with pytest.raises(SchemaError, match=r"no dataset 'pdireval-test/tiyn'.*did you mean"):
        pdireval.read_qrels("irds:pdireval-test/tiyn")
    with pytest.raises(SchemaError, match=r"ir-datasets\.com"):
        pdireval.read_run("irds:no-such-collection/at-all")


def test_a_dataset_without_what_is_asked_says_what_it_has() -> None:
    source = _register("pdireval-test/queries-only", _Queries())
    with pytest.raises(SchemaError, match=r"has no qrels \(it provides \['queries'\]\)"):
        pdireval.read_qrels(source)
    with pytest.raises(SchemaError, match="has no scoreddocs"):
        pdireval.read_run(source)


def test_read_queries_takes_irds_ids_only() -> None:
    with pytest.raises(SchemaError, match="irds:<dataset-id>"):
        pdireval.read_queries("topics.txt")


def test_missing_package_gives_an_install_hint(tiny: str, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "ir_datasets", None)  # import ir_datasets fails
    with pytest.raises(MissingDependencyError, match=r"pip install 'pdireval\[irds\]'"):
        pdireval.read_qrels(tiny)


def test_a_path_object_named_irds_is_a_file(tmp_path: Path) -> None:
    path = tmp_path / "irds:local"
    path.write_text("1 0 d1 1\n")
    assert pdireval.read_qrels(path)["doc"].tolist() == ["d1"]
