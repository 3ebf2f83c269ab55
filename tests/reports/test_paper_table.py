"""One call, from a long frame with collection and seed columns to the paper's wide table.

3 collections x 5 systems x 3 seeds: ``pdireval.report`` evaluates, compares within each
collection and renders the table with marks in LaTeX and Excel. The numbers are checked
against each collection's and seed's rows evaluated alone, the marks against
``pdireval.compare`` on each collection alone (seed-averaged per-query differences).
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from levels_frames import run_frame

import pdireval

pytest.importorskip("scipy")

COLLECTIONS = ("robust04", "msmarco", "trec-covid")
SYSTEMS = ("bm25", "dense", "colbert", "splade", "monot5")
STRENGTHS = (1.0, 1.3, 1.6, 1.1, 2.4)
SEEDS = (1, 2, 3)
METRICS = ["AP", "nDCG@10"]


def _runs_and_qrels() -> tuple[pd.DataFrame, pd.DataFrame]:
    """A run frame (collection, seed, run columns; query ids repeat across collections)
    and qrels with a collection column."""
    rng = np.random.default_rng(11)
    runs, qrels = [], []
    for collection in COLLECTIONS:
        rels = (rng.random((15, 25)) < 0.25).astype(np.int64)
        rels[:, 0] = 1
        for seed in SEEDS:
            frame = run_frame(rels, STRENGTHS, SYSTEMS, rng)
            runs.append(frame.drop(columns="rel").assign(collection=collection, seed=seed))
        judged = frame[frame["run"] == SYSTEMS[0]][["query", "doc", "rel"]]
        qrels.append(judged.assign(collection=collection))
    return pd.concat(runs, ignore_index=True), pd.concat(qrels, ignore_index=True)


@pytest.fixture(scope="module")
def paper() -> tuple[pd.DataFrame, pd.DataFrame, pdireval.Report]:
    runs, qrels = _runs_and_qrels()
    report = pdireval.report(runs, METRICS, qrels=qrels, baseline="bm25")
    return runs, qrels, report


def test_the_wide_table_holds_each_collections_mean_over_seeds(paper) -> None:
    runs, qrels, report = paper
    summary = report.summary
    for collection in COLLECTIONS:
        rows = runs[runs["collection"] == collection]
        judged = qrels[qrels["collection"] == collection].drop(columns="collection")
        per_seed = []
        for seed in SEEDS:
            alone = rows[rows["seed"] == seed].drop(columns=["collection", "seed"])
            per_seed.append(pdireval.summary(alone, METRICS, qrels=judged))
        expected = sum(per_seed) / len(per_seed)
        for metric in METRICS:
            got = summary[(collection, metric)].astype(float)
            np.testing.assert_allclose(
                got.loc[list(SYSTEMS)].to_numpy(),
                expected.loc[list(SYSTEMS), metric].to_numpy(),
                rtol=1e-12,
            )
    assert list(summary.index) == list(SYSTEMS)  # the frame's order, the baseline first


def test_the_marks_are_each_collections_own_comparisons(paper) -> None:
    _, _, report = paper
    comparison = report.comparison
    assert set(comparison["collection"]) == set(COLLECTIONS)
    for collection in COLLECTIONS:
        mine = comparison[comparison["collection"] == collection]
        assert set(mine["run"]) == set(SYSTEMS[1:])
        assert (mine["baseline"] == "bm25").all()
    # one Holm correction over every comparison of the call
    assert len(comparison) == len(COLLECTIONS) * (len(SYSTEMS) - 1) * len(METRICS)
    strongest = comparison[comparison["run"] == "monot5"]
    assert strongest["significant"].all()
    latex = report.to_latex()
    for collection in COLLECTIONS:
        assert collection in latex
    assert "\\multicolumn" in latex
    assert latex.count("\\blacktriangle") + latex.count("▲") >= len(COLLECTIONS) * len(METRICS)


def test_the_workbook_has_the_wide_table(paper, tmp_path) -> None:
    openpyxl = pytest.importorskip("openpyxl")
    _, _, report = paper
    path = tmp_path / "paper.xlsx"
    report.to_excel(path)
    book = openpyxl.load_workbook(path)
    cells = {str(cell.value) for row in book.worksheets[0].iter_rows() for cell in row}
    assert set(COLLECTIONS) <= cells
    assert set(SYSTEMS) <= {value.split(" ")[0] for value in cells}


def test_compare_within_collections_equals_each_collection_alone() -> None:
    runs, qrels = _runs_and_qrels()
    one_seed = runs[runs["seed"] == 1].drop(columns="seed")
    together = pdireval.compare(one_seed, ["AP"], qrels=qrels, baseline="bm25", correction=None)
    for collection in COLLECTIONS:
        alone = pdireval.compare(
            one_seed[one_seed["collection"] == collection].drop(columns="collection"),
            ["AP"],
            qrels=qrels[qrels["collection"] == collection].drop(columns="collection"),
            baseline="bm25",
            correction=None,
        )
        mine = together[together["collection"] == collection].drop(columns="collection")
        pd.testing.assert_frame_equal(mine.reset_index(drop=True), alone)


def test_compare_stays_within_each_judge() -> None:
    from pdireval.datasets import example_qrels, example_run

    human = example_qrels()
    strict = human.assign(rel=(human["rel"] >= 2).astype("int64"))
    judges = {"human": human, "strict": strict}
    together = pdireval.compare(example_run(), "AP", qrels=judges, correction=None)
    for name, labels in judges.items():
        alone = pdireval.compare(example_run(), "AP", qrels=labels, correction=None)
        mine = together[together["judge"] == name].drop(columns="judge")
        pd.testing.assert_frame_equal(mine.reset_index(drop=True), alone)
    summary = pdireval.summary(example_run(), "AP", qrels=judges)
    assert summary.index.names == ["run", "judge"]
    alone = pdireval.summary(example_run(), "AP", qrels=strict)
    pd.testing.assert_frame_equal(summary.xs("strict", level="judge"), alone)


def test_seed_summary_and_a_missing_seed() -> None:
    runs, qrels = _runs_and_qrels()
    table = pdireval.seed_summary(runs, "AP", qrels=qrels)
    assert table.index.names == ["run", "collection"]
    assert (table[("AP", "seeds")] == len(SEEDS)).all()
    lacking = runs[~((runs["run"] == "dense") & (runs["seed"] == 3))]
    with pytest.raises(pdireval.SchemaError, match="dense"):
        pdireval.compare(lacking, "AP", qrels=qrels, baseline="bm25")
    with pytest.raises(pdireval.ParameterError, match="seed"):
        pdireval.seed_summary(runs[runs["seed"] == 1].drop(columns="seed"), "AP", qrels=qrels)
