"""The built-in example collection: deterministic, realistic, and as documented."""

from __future__ import annotations

import hashlib

import pandas as pd

import pdireval
from pdireval.datasets import example, example_qrels, example_run


def test_shape_and_columns():
    run, qrels = example_run(), example_qrels()
    assert list(run.columns) == ["query", "doc", "score", "run"]
    assert list(qrels.columns) == ["query", "doc", "rel"]
    assert run["query"].nunique() == 50
    assert qrels["query"].nunique() == 50
    assert set(run["run"]) == {"strong", "medium", "weak"}
    assert set(qrels["rel"]) == {0, 1, 2, 3}
    assert (run.groupby(["run", "query"]).size() == 25).all()


def test_deterministic():
    def digest(frame: pd.DataFrame) -> str:
        return hashlib.sha256(frame.to_csv(index=False).encode()).hexdigest()

    assert digest(example_run()) == digest(example_run())
    assert digest(example_qrels()) == digest(example_qrels())


def test_has_ties_unjudged_unretrieved_relevant_and_a_query_without_relevant():
    df = example()
    retrieved = df[df["score"].notna()]
    assert retrieved.duplicated(["run", "query", "score"]).any()  # tied scores
    assert retrieved["rel"].isna().any()  # retrieved but never judged
    unretrieved = df[df["score"].isna()]
    assert (unretrieved["rel"] > 0).any()  # relevant but not retrieved
    relevant = example_qrels().query("rel > 0").groupby("query").size()
    assert set(example_qrels()["query"]) - set(relevant.index) == {"450"}


def test_runs_have_clearly_different_quality():
    means = example().ireval.summary(["AP", "nDCG@10", "P@10"])
    for metric in means.columns:
        assert means.loc["strong", metric] > means.loc["medium", metric] + 0.1
        assert means.loc["medium", metric] > means.loc["weak", metric] + 0.1


def test_example_equals_merge_of_its_parts():
    run, qrels = example_run(), example_qrels()
    pd.testing.assert_frame_equal(example(), pdireval.merge_qrels(run, qrels))


def test_benchmark_is_five_systems_on_three_collections_with_three_seeds() -> None:
    from pdireval.datasets import benchmark

    runs, qrels = benchmark()
    again, judged = benchmark()
    pd.testing.assert_frame_equal(runs, again)
    pd.testing.assert_frame_equal(qrels, judged)
    assert runs.groupby(["collection", "run", "seed"]).ngroups == 3 * 5 * 3
    assert runs.groupby(["collection", "run", "seed", "query"]).size().eq(20).all()
    assert not qrels.duplicated(["collection", "query", "doc"]).any()
    assert set(runs["query"]) == {str(i) for i in range(1, 21)}  # ids repeat per collection
