"""Judge, collection and seed columns: each combination evaluated as if selected alone.

The contract: the measures of a frame with several judges (collections, seeds) equal
those of each judge's (collection's, seed's) rows evaluated on their own, under a level
of their own, levels in the order run, judge, collection, seed, query.
"""

from __future__ import annotations

import re
import warnings

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from strategies import long_frames

import pdireval
from pdireval import ParameterError, SchemaError
from pdireval.datasets import example

METRICS = ["AP", "nDCG@5", "P@3", "RR", "R@5", "num_rel_ret"]


def _same(whole: pd.DataFrame, alone: pd.DataFrame) -> None:
    """Equal values under equal ids (the query level's dtype may differ after stacking)."""
    assert list(whole.index.names) == list(alone.index.names)
    assert [tuple(map(str, np.atleast_1d(i))) for i in whole.index] == [
        tuple(map(str, np.atleast_1d(i))) for i in alone.index
    ]
    np.testing.assert_array_equal(whole.to_numpy(), alone.to_numpy())
    assert list(whole.columns) == list(alone.columns)


def _part(table: pd.DataFrame, **values: object) -> pd.DataFrame:
    rows = np.logical_and.reduce(
        [table.index.get_level_values(level) == value for level, value in values.items()]
    )
    return table[rows].droplevel(list(values))


@st.composite
def frames_with_parts(draw: st.DrawFn) -> tuple[pd.DataFrame, list[str]]:
    """Long frames, one per (collection, seed), stacked with those columns (query ids
    repeat across collections on purpose)."""
    runs = draw(st.booleans())
    ranking = draw(st.sampled_from(["rank", "score"]))
    roles = draw(st.sampled_from([["collection"], ["seed"], ["collection", "seed"]]))
    collections = ["trec-covid", "nfcorpus", "10"] if "collection" in roles else [None]
    seeds = [3, 1] if "seed" in roles else [None]
    pieces = []
    for collection in collections[: draw(st.integers(1, len(collections)))]:
        for seed in seeds[: draw(st.integers(1, len(seeds)))]:
            piece = draw(long_frames(ranking=ranking, runs=runs, max_queries=3, max_docs=6))
            piece["query"] = piece["query"].astype(str)
            if collection is not None:
                piece["collection"] = collection
            if seed is not None:
                piece["seed"] = seed
            pieces.append(piece)
    kept = [piece for piece in pieces if len(piece)] or pieces[:1]  # pandas 2: no empty ones
    with warnings.catch_warnings():  # pandas 2.2 on a piece whose labels are all missing
        warnings.filterwarnings("ignore", "The behavior of DataFrame concatenation", FutureWarning)
        return pd.concat(kept, ignore_index=True), roles


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(frames_with_parts(), st.sampled_from(["judged", "retrieved", "all"]))
def test_collections_and_seeds_equal_their_rows_alone(
    drawn: tuple[pd.DataFrame, list[str]], queries: str
) -> None:
    frame, roles = drawn
    before = frame.copy()
    whole = pdireval.evaluate(frame, METRICS, queries=queries)
    pd.testing.assert_frame_equal(frame, before)  # the input is not modified
    keys = frame[roles].drop_duplicates()
    seen = 0
    for key in keys.itertuples(index=False):
        values = dict(zip(roles, key, strict=True))
        rows = np.logical_and.reduce([frame[r] == v for r, v in values.items()])
        alone = pdireval.evaluate(frame[rows].drop(columns=roles), METRICS, queries=queries)
        if alone.empty:
            continue
        got = _part(whole, **values)
        _same(got, alone)
        seen += len(alone)
    assert seen == len(whole)
    expected = (["run"] if "run" in frame.columns else []) + roles + ["query"]
    assert list(whole.index.names) == expected


@st.composite
def run_and_judges(draw: st.DrawFn) -> tuple[pd.DataFrame, dict[str, pd.DataFrame]]:
    """A run (maybe several runs) and two or three judges' qrels over its documents."""
    frame = draw(long_frames(runs=draw(st.booleans()), max_queries=3, max_docs=6))
    frame["query"] = frame["query"].astype(str)
    ranking = "rank" if "rank" in frame.columns else "score"
    run = frame[frame[ranking].notna()].drop(columns=["rel", "known", "time"])
    pairs = frame[["query", "doc"]].drop_duplicates()
    judges = {}
    for name in ["human", "gpt-4o", "umbrela"][: draw(st.integers(2, 3))]:
        size = {"min_size": len(pairs), "max_size": len(pairs)}
        labels = draw(st.lists(st.sampled_from([-1, 0, 1, 2]), **size))
        judged = draw(st.lists(st.booleans(), **size))
        judged[:1] = [True][: len(judged)]  # every judge judges something, if anything
        qrels = pairs.assign(rel=labels)[np.asarray(judged, dtype=bool)]
        judges[name] = qrels.reset_index(drop=True)
    return run.reset_index(drop=True), judges


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(run_and_judges(), st.sampled_from(["judged", "retrieved", "all"]))
def test_judges_equal_each_judge_alone(
    drawn: tuple[pd.DataFrame, dict[str, pd.DataFrame]], queries: str
) -> None:
    run, judges = drawn
    alone, disjoint = {}, []
    for name, qrels in judges.items():
        try:
            alone[name] = pdireval.evaluate(run, METRICS, qrels=qrels, queries=queries)
        except SchemaError as error:  # no query or document in common with this judge
            disjoint.append(error)
    if len(disjoint) == len(judges):  # no judge shares any: so does the whole call
        with pytest.raises(SchemaError, match=re.escape(str(disjoint[0]))):
            pdireval.evaluate(run, METRICS, qrels=judges, queries=queries)
        return
    by_mapping = pdireval.evaluate(run, METRICS, qrels=judges, queries=queries)
    stacked = pd.concat([q.assign(judge=name) for name, q in judges.items()])
    by_column = pdireval.evaluate(run, METRICS, qrels=stacked, queries=queries)
    merged = pdireval.merge_qrels(run, judges)
    by_merged = merged.ireval.evaluate(METRICS, queries=queries)
    for name, table in alone.items():
        for table_of_all in (by_mapping, by_column, by_merged):
            _same(_part(table_of_all, judge=name), table)
    for name in judges:  # a judge sharing nothing with the run is evaluated as it is
        for table_of_all in (by_mapping, by_column):
            _same(_part(table_of_all, judge=name), _part(by_merged, judge=name))
    assert "judge" in by_mapping.index.names


def test_levels_are_run_judge_collection_seed_query() -> None:
    run, qrels = _example()
    frame = pd.concat(
        [run.assign(collection=c, fold=s) for c in ("b", "a") for s in (2, 1)], ignore_index=True
    )
    judged = pd.concat([qrels.assign(collection=c) for c in ("a", "b")], ignore_index=True)
    table = pdireval.evaluate(frame, ["AP"], qrels={"llm": judged, "human": judged})
    assert list(table.index.names) == ["run", "judge", "collection", "fold", "query"]
    outer = table.index.droplevel("query").unique()
    assert outer[0] == ("medium", "llm", "a", 1)  # runs sorted; judges in the mapping's order
    assert outer[1] == ("medium", "llm", "a", 2)
    assert list(dict.fromkeys(outer.get_level_values("judge"))) == ["llm", "human"]


def test_one_judge_still_gets_its_level() -> None:
    run, qrels = _example()
    table = pdireval.evaluate(run, ["AP"], qrels={"human": qrels})
    assert table.index.names == ["run", "judge", "query"]
    plain = pdireval.evaluate(run, ["AP"], qrels=qrels)
    _same(_part(table, judge="human"), plain)


def _example() -> tuple[pd.DataFrame, pd.DataFrame]:
    frame = example()
    run = frame[frame["score"].notna()].drop(columns="rel")
    qrels = frame[["query", "doc", "rel"]].dropna().drop_duplicates(["query", "doc"])
    return run.reset_index(drop=True), qrels.reset_index(drop=True)


def test_a_column_meaning_something_else_can_be_switched_off() -> None:
    run, qrels = _example()
    with_seed = run.assign(seed=7)
    table = pdireval.evaluate(with_seed, ["AP"], qrels=qrels, columns={"seed": False})
    _same(table, pdireval.evaluate(run, ["AP"], qrels=qrels))


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (lambda run, q: (run.assign(collection="a"), q), r"the run has a collection column"),
        (lambda run, q: (run, q.assign(collection="a")), r"qrels= has a collection column"),
        (lambda run, q: (run, q.assign(seed=1)), r"seeds belong to runs"),
        (
            lambda run, q: (run.assign(seed=np.where(run.index == 3, np.nan, 1.0)), q),
            r"seed column 'seed' of the frame has 1 missing value.*row 3",
        ),
        (
            lambda run, q: (run.assign(judge="a"), q.assign(judge="b")),
            r"both the frame \('judge'\) and qrels= \('judge'\) have a judge column",
        ),
    ],
)
def test_clear_errors(change, message: str) -> None:
    run, qrels = _example()
    frame, judged = change(run, qrels)
    with pytest.raises(SchemaError, match=message):
        pdireval.evaluate(frame, ["AP"], qrels=judged)


def test_qrels_mapping_errors() -> None:
    run, qrels = _example()
    with pytest.raises(SchemaError, match=r"empty mapping"):
        pdireval.evaluate(run, ["AP"], qrels={})
    with pytest.raises(ParameterError, match=r"qrels\['llm'\] is a list"):
        pdireval.evaluate(run, ["AP"], qrels={"llm": []})
    with pytest.raises(SchemaError, match=r"already has a 'judge' column"):
        pdireval.evaluate(run, ["AP"], qrels={"llm": qrels.assign(judge="x")})


def test_calls_that_take_one_judge_at_a_time_say_so() -> None:
    run, qrels = _example()
    with pytest.raises(SchemaError, match=r"qrels= has a judge column \('judge'\), and this call"):
        pdireval.stats.curves.pr_curve(run, qrels={"a": qrels, "b": qrels})
    with pytest.raises(SchemaError, match=r"the frame has a seed column \('seed'\)"):
        pdireval.stats.curves.pr_curve(run.assign(seed=1), qrels=qrels)


def test_risk_reads_judges_collections_and_seeds_as_compare_does() -> None:
    """risk takes the roles through the one mechanism: a block per (judge, collection),
    a query's value averaged over the seeds."""
    run, qrels = _example()
    alone = pdireval.risk(run, "AP", baseline="medium", qrels=qrels)
    seeds = pd.concat([run.assign(seed=1), run.assign(seed=2)], ignore_index=True)
    pd.testing.assert_frame_equal(pdireval.risk(seeds, "AP", baseline="medium", qrels=qrels), alone)
    judged = pdireval.risk(run, "AP", baseline="medium", qrels={"a": qrels, "b": qrels})
    assert judged["judge"].tolist() == ["a"] * len(alone) + ["b"] * len(alone)
    for judge in ("a", "b"):
        pd.testing.assert_frame_equal(
            judged[judged["judge"] == judge].drop(columns="judge").reset_index(drop=True),
            alone,
        )


def test_merge_qrels_keeps_the_judges_order_and_refuses_a_labelled_run() -> None:
    run, qrels = _example()
    merged = pdireval.merge_qrels(run, {"umbrela": qrels, "human": qrels})
    assert list(merged["judge"].cat.categories) == ["umbrela", "human"]
    assert merged.attrs["pdireval"]["columns"]["judge"] == "judge"
    assert len(merged) == 2 * len(pdireval.merge_qrels(run, qrels))
    with pytest.raises(SchemaError, match=r"the run has a judge column"):
        pdireval.merge_qrels(run.assign(judge="x"), qrels.assign(judge="y"))


def test_a_judge_of_one_collection_has_results_there_only() -> None:
    from pdireval.datasets import benchmark

    runs, qrels = benchmark()
    runs = runs[runs["seed"] == 1].drop(columns="seed")
    llm = qrels[qrels["collection"] == "news"]
    both = pdireval.evaluate(runs, "AP", qrels={"human": qrels, "llm": llm})
    assert set(_part(both, judge="llm").index.get_level_values("collection")) == {"news"}
    news = runs[runs["collection"] == "news"].drop(columns="collection")
    alone = pdireval.evaluate(news, "AP", qrels=llm.drop(columns="collection"))
    _same(_part(both, judge="llm", collection="news"), alone)
    _same(_part(both, judge="human"), pdireval.evaluate(runs, "AP", qrels=qrels))


def test_rankings_read_one_collection_at_a_time_everywhere() -> None:
    from pdireval.datasets import benchmark

    runs, _ = benchmark()
    with pytest.raises(SchemaError, match=r"collection column \('collection'\)"):
        pdireval.pool(runs, depth=10)  # query '1' of two collections is not one query
