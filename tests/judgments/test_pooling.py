"""Depth-k pooling: the pool of several runs and each run's contribution to it."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import pdireval
from pdireval import ParameterError, SchemaError


def _runs(seed: int, ties: bool = False) -> pd.DataFrame:
    """Four runs over six queries, 30 documents each from a shared set of 60."""
    rng = np.random.default_rng(seed)
    rows = []
    for run in ("bm25", "dense", "rerank", "tfidf"):
        for q in range(6):
            docs = rng.choice(60, size=30, replace=False)
            scores = rng.permutation(30).astype(float)  # distinct scores
            if ties:
                scores = np.floor(scores / 3)
            rows += [(run, f"q{q}", f"d{d:02d}", s) for d, s in zip(docs, scores, strict=True)]
    return pd.DataFrame(rows, columns=["run", "query", "doc", "score"])


@pytest.mark.filterwarnings("ignore:The inplace keyword")  # inside trectools
@pytest.mark.parametrize("depth", [1, 5, 10])
@pytest.mark.parametrize("seed", range(3))
def test_pool_equals_trectools_depth_pooling(tmp_path, seed: int, depth: int) -> None:
    """Without tied scores, trectools' topX pool and ours hold the same documents."""
    trectools = pytest.importorskip("trectools")
    runs = _runs(seed)
    paths = []
    for name, part in runs.groupby("run"):
        path = tmp_path / f"{name}.txt"
        pdireval.write_run(part.drop(columns="run"), path, tag=str(name))
        paths.append(str(path))
    theirs = trectools.TrecPoolMaker().make_pool_from_files(paths, strategy="topX", topX=depth)
    ours = pdireval.pool(runs, depth=depth)
    mine = {query: set(part["doc"]) for query, part in ours.groupby("query")}
    assert mine == {str(topic): set(docs) for topic, docs in theirs.pool.items()}


def test_pool_columns_by_hand() -> None:
    """q1: a ranks d1 > d2 > d3, b ranks d3 > d4: depth 2 pools d1, d2 (a), d3, d4 (b)."""
    runs = pd.DataFrame(
        {
            "run": ["a", "a", "a", "b", "b"],
            "query": "q1",
            "doc": ["d1", "d2", "d3", "d3", "d4"],
            "score": [3.0, 2.0, 1.0, 2.0, 1.0],
        }
    )
    table = pdireval.pool(runs, depth=2)
    assert table.to_dict("list") == {
        "query": ["q1"] * 4,
        "doc": ["d1", "d2", "d3", "d4"],
        "runs": [1, 1, 1, 1],
        "best_rank": [1, 2, 1, 2],
    }
    both = pdireval.pool(runs, depth=3)
    assert both.set_index("doc").loc["d3", "runs"] == 2
    assert both.set_index("doc").loc["d3", "best_rank"] == 1


def test_ties_at_the_cutoff_follow_trec_eval() -> None:
    """Equal scores are ordered by doc id descending, as evaluation orders them: with d1 and
    d2 tied for the first place, depth 1 pools d2."""
    run = pd.DataFrame({"query": "q", "doc": ["d1", "d2", "d3"], "score": [1.0, 1.0, 0.5]})
    assert pdireval.pool(run, depth=1)["doc"].tolist() == ["d2"]
    ranked = run.assign(rank=[1, 2, 3])  # a rank column is taken as given
    assert pdireval.pool(ranked, depth=1)["doc"].tolist() == ["d1"]


def test_contribution_by_hand() -> None:
    """Depth 2: a pools d1, d2; b pools d2, d3; c pools d4, d5. Unique: a d1, b d3, c d4 and
    d5. Judged relevant: d1, d4 (and d2, shared); d3 judged not relevant; d5 unjudged."""
    runs = pd.DataFrame(
        {
            "run": ["a", "a", "b", "b", "c", "c"],
            "query": "q",
            "doc": ["d1", "d2", "d2", "d3", "d4", "d5"],
            "rank": [1, 2, 1, 2, 1, 2],
        }
    )
    qrels = pd.DataFrame({"query": "q", "doc": ["d1", "d2", "d3", "d4"], "rel": [1, 1, 0, 2]})
    table = pdireval.pool_contribution(runs, qrels, depth=2)
    assert table.to_dict("index") == {
        "a": {"pooled": 2, "unique": 1, "unique_relevant": 1, "judged": 1.0},
        "b": {"pooled": 2, "unique": 1, "unique_relevant": 0, "judged": 1.0},
        "c": {"pooled": 2, "unique": 2, "unique_relevant": 1, "judged": 0.5},
    }
    # judged is Judged@depth over the run's queries
    judged = pdireval.evaluate(pdireval.merge_qrels(runs, qrels), "Judged@2")
    assert judged["Judged@2"].groupby(level="run").mean().to_dict() == table["judged"].to_dict()


def test_contribution_needs_runs_and_depth_is_checked() -> None:
    one = _runs(0).query("run == 'bm25'").drop(columns="run")
    with pytest.raises(SchemaError, match="needs a run column"):
        pdireval.pool_contribution(one)
    with pytest.raises(ParameterError, match="depth=0 must be a whole number"):
        pdireval.pool(one, depth=0)
