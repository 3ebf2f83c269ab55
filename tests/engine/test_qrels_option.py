"""``qrels=``: a run evaluated against qrels gives the numbers of its merged frame, without it."""

from __future__ import annotations

import re
from typing import Any

import numpy as np
import pandas as pd
import pytest
from evaluating import EVALUATING, toy_run
from hypothesis import given, settings
from hypothesis import strategies as st

import pdireval
from pdireval import ParameterError, SchemaError

METRICS = [
    "AP",
    "nDCG@5",
    "nDCG",
    "P@3",
    "R@5",
    "RR",
    "Rprec",
    "Bpref",
    "infAP",
    "NumRel",
    "NumRet",
    "NumRelRet",
    "ERR@5",
    "Judged@5",
    "SetF",
]
AVERAGED = ["AP", "nDCG@5", "nDCG", "P@3", "R@5", "RR", "DCG@5"]  # what ties="average" takes


def _split(frame: pd.DataFrame) -> tuple[pd.DataFrame, pd.DataFrame]:
    """A merged frame's run (retrieved rows, no labels) and qrels (one row per judgment)."""
    ranked_by = "rank" if "rank" in frame.columns else "score"
    run = frame[frame[ranked_by].notna()].drop(columns="rel").reset_index(drop=True)
    judged = frame[frame["rel"].notna()]
    qrels = judged.drop_duplicates(["query", "doc"])[["query", "doc", "rel"]]
    return run, qrels.reset_index(drop=True)


def _same(one: Any, other: Any) -> None:
    if isinstance(one, pd.DataFrame | pd.Series):
        if isinstance(one, pd.DataFrame):
            pd.testing.assert_frame_equal(one, other)
        else:
            pd.testing.assert_series_equal(one, other)
    elif isinstance(one, float):
        assert one == other or (np.isnan(one) and np.isnan(other))
    else:  # a Report: its tables
        pd.testing.assert_frame_equal(one.per_query, other.per_query)
        pd.testing.assert_frame_equal(one.table(), other.table())


@pytest.mark.parametrize("name", sorted(EVALUATING))
def test_every_evaluating_function_takes_qrels(name: str) -> None:
    frame = toy_run()
    run, qrels = _split(frame)
    merged = pdireval.merge_qrels(run, qrels)
    _same(EVALUATING[name](run, qrels=qrels), EVALUATING[name](merged))
    with pytest.raises(ParameterError, match=r"qrels= must be a pandas DataFrame"):
        EVALUATING[name](run, qrels=qrels.to_dict())
    with pytest.raises(ParameterError, match=r"qrels_columns= names the columns of qrels="):
        EVALUATING[name](run, qrels_columns={"rel": "label"})


@st.composite
def runs_and_qrels(draw: st.DrawFn) -> tuple[pd.DataFrame, pd.DataFrame]:
    """A run (maybe several: a run column) and qrels over overlapping queries and docs:
    tied scores, judged documents no run retrieved, queries on one side only, negative
    labels, and optionally a rank column, a known column and a time column."""
    queries = ["q1", "q2", "q3", "q4"]
    docs = [f"d{i}" for i in range(8)]
    run_ids = draw(st.sampled_from([[None], ["A"], ["A", "B"], ["A", "B", "C"]]))
    rows = []
    for run_id in run_ids:
        for query in draw(st.lists(st.sampled_from(queries[:3]), max_size=3, unique=True)):
            retrieved = draw(st.lists(st.sampled_from(docs), min_size=1, max_size=6, unique=True))
            time = draw(st.floats(0, 2, allow_nan=False))
            for doc in retrieved:
                score = float(draw(st.integers(0, 3)))
                rows.append((run_id, query, doc, score, draw(st.booleans()), time))
    run = pd.DataFrame(rows, columns=["run", "query", "doc", "score", "known", "time"]).astype(
        {"score": float, "known": bool, "time": float}
    )
    if run_ids == [None]:
        run = run.drop(columns="run")
    if draw(st.booleans()):  # ranked by a rank column instead of scores
        keys = [c for c in ("run", "query") if c in run.columns]
        descending = [True] * len(keys) + [False, False]
        ordered = run.sort_values([*keys, "score", "doc"], ascending=descending)
        rank = ordered.groupby(keys, sort=False).cumcount() + draw(st.sampled_from([0, 1]))
        run = run.assign(rank=rank.reindex(run.index)).drop(columns="score")
    for optional in ("known", "time"):
        if draw(st.booleans()):
            run = run.drop(columns=optional)
    run = run.sample(frac=1, random_state=draw(st.integers(0, 9))).reset_index(drop=True)
    judgments = draw(
        st.lists(
            st.tuples(st.sampled_from(queries[1:]), st.sampled_from(docs), st.integers(-1, 3)),
            min_size=1,
            max_size=20,
            unique_by=lambda t: t[:2],
        )
    )
    qrels = pd.DataFrame(judgments, columns=["query", "doc", "rel"])
    dtype = draw(st.sampled_from(["str", "object", "category"]))
    return run.astype({"query": dtype, "doc": dtype}), qrels


@st.composite
def options(draw: st.DrawFn) -> dict[str, Any]:
    chosen: dict[str, Any] = {
        "queries": draw(st.sampled_from(["judged", "retrieved", "all"])),
        "ties": draw(st.sampled_from(["trec", "optimistic", "pessimistic", "average"])),
    }
    if chosen["ties"] != "average":
        chosen["max_rank"] = draw(st.sampled_from([None, 1, 3]))
        chosen["judged_only"] = draw(st.booleans())
    return chosen


@settings(max_examples=200, deadline=None)
@given(runs_and_qrels(), options())
def test_a_run_against_qrels_gives_the_numbers_of_its_merged_frame(inputs, chosen) -> None:
    run, qrels = inputs
    metrics = AVERAGED if chosen["ties"] == "average" else METRICS
    before = run.copy()
    try:
        merged = pdireval.merge_qrels(run, qrels)
    except SchemaError as refused:  # no overlap: refused the same way
        with pytest.raises(SchemaError, match=re.escape(str(refused))):
            pdireval.evaluate(run, metrics, qrels=qrels, **chosen)
        return
    expected = pdireval.evaluate(merged, metrics, **chosen)
    result = pdireval.evaluate(run, metrics, qrels=qrels, **chosen)
    pd.testing.assert_frame_equal(result, expected)
    pd.testing.assert_frame_equal(run, before)  # the run is not modified
    if "time" in run.columns:
        _same(pdireval.summary(run, ["AP"], qrels=qrels), pdireval.summary(merged, ["AP"]))


def test_qrels_columns_map_the_qrels_roles() -> None:
    run, qrels = _split(toy_run())
    renamed = qrels.rename(columns={"query": "qid", "doc": "docno", "rel": "label"})
    # PyTerrier-like qrels: qid/docno/label are recognised; other names are mapped.
    _same(pdireval.evaluate(run, "AP", qrels=renamed), pdireval.evaluate(run, "AP", qrels=qrels))
    odd = qrels.rename(columns={"rel": "grade"})
    with pytest.raises(SchemaError, match="qrels_columns="):
        pdireval.evaluate(run, "AP", qrels=odd)
    mapped = pdireval.evaluate(run, "AP", qrels=odd, qrels_columns={"rel": "grade"})
    _same(mapped, pdireval.evaluate(run, "AP", qrels=qrels))


def test_a_labelled_run_is_refused() -> None:
    frame = toy_run()
    _, qrels = _split(frame)
    with pytest.raises(SchemaError, match="already has a column 'rel'"):
        pdireval.evaluate(frame, "AP", qrels=qrels)


def test_an_unretrieved_judgment_without_a_label_is_refused_like_its_merged_row() -> None:
    run = pd.DataFrame({"query": ["q1", "q1"], "doc": ["a", "b"], "score": [2.0, 1.0]})
    qrels = pd.DataFrame({"query": ["q1", "q1"], "doc": ["a", "c"], "rel": [1, None]})
    with pytest.raises(SchemaError, match="neither retrieved"):
        pdireval.evaluate(pdireval.merge_qrels(run, qrels), "AP")
    with pytest.raises(SchemaError, match=r"'rel' column is missing for 1 judgment.*'c'"):
        pdireval.evaluate(run, "AP", qrels=qrels)
    retrieved = pd.DataFrame({"query": ["q1", "q1"], "doc": ["a", "b"], "rel": [1, None]})
    _same(  # a retrieved document judged without a label is unjudged, as when merged
        pdireval.evaluate(run, "AP", qrels=retrieved),
        pdireval.evaluate(pdireval.merge_qrels(run, retrieved), "AP"),
    )


def test_judgments_per_subtopic_are_merged() -> None:
    run = pd.DataFrame({"query": ["q1"] * 3, "doc": ["a", "b", "c"], "score": [3.0, 2.0, 1.0]})
    qrels = pd.DataFrame(
        {
            "query": ["q1"] * 4,
            "doc": ["a", "b", "b", "d"],
            "subtopic": [1, 1, 2, 2],
            "rel": [1, 1, 1, 1],
        }
    )
    metrics = ["alpha_nDCG@3", "AP"]
    expected = pdireval.evaluate(pdireval.merge_qrels(run, qrels), metrics)
    _same(pdireval.evaluate(run, metrics, qrels=qrels), expected)


def test_the_dask_backend_refuses_qrels() -> None:
    dd = pytest.importorskip("dask.dataframe")
    import pdireval.dask

    run, qrels = _split(toy_run())
    with pytest.raises(ParameterError, match="merge_qrels"):
        pdireval.dask.evaluate(dd.from_pandas(run, npartitions=2), "AP", qrels=qrels)


@pytest.mark.parametrize("with_runs", [False, True])
@pytest.mark.parametrize("dtype", ["object", "str", "category", "python"])
def test_ids_in_blocks_read_as_they_are_give_the_merged_numbers(dtype: str, with_runs: bool):
    """Python-string ids in query blocks are read without a converted copy (the first row
    of each block stands for the rest): same numbers and the same index as merged."""
    rng = np.random.default_rng(7)
    queries = np.repeat([f"q{i}" for i in range(12)], 40)
    run = pd.DataFrame(
        {
            "query": queries,
            "doc": [f"d{i}" for i in rng.integers(0, 10**6, len(queries))],
            "score": rng.integers(0, 5, len(queries)).astype(float),
        }
    ).drop_duplicates(["query", "doc"])
    if with_runs:
        run = pd.concat([run.assign(run="A"), run.assign(run="B").iloc[::2]])
    judged = run.sample(60, random_state=1)[["query", "doc"]].drop_duplicates()
    extra = pd.DataFrame({"query": ["q0", "q99"], "doc": ["new", "new"]})
    qrels = pd.concat([judged, extra]).assign(rel=lambda f: rng.integers(-1, 3, len(f)))
    as_dtype = pd.StringDtype("python") if dtype == "python" else dtype
    run = run.astype({"query": as_dtype, "doc": as_dtype}).reset_index(drop=True)
    expected = pdireval.evaluate(pdireval.merge_qrels(run, qrels), METRICS)
    pd.testing.assert_frame_equal(pdireval.evaluate(run, METRICS, qrels=qrels), expected)
