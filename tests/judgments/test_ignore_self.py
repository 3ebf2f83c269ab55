"""``ignore_self=True``: a document whose id is the query id leaves the ranking.

The reference is BEIR's ``ignore_identical_ids``: drop those rows from the run, keep the
qrels, evaluate (ir_measures, which has no such option, evaluates the filtered run).
"""

from __future__ import annotations

import inspect

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import pdireval
from pdireval import ParameterError

QUERIES = ("1", "2", "q3")
DOCS = (*QUERIES, "d1", "d2", "d3", "d4", "d5")
METRICS = ["AP", "nDCG@5", "P@3", "RR", "R@5", "Rprec", "Bpref", "NumRet", "Success@1"]


@st.composite
def runs_finding_their_queries(draw: st.DrawFn) -> tuple[pd.DataFrame, pd.DataFrame]:
    """A run whose queries retrieve documents named like queries (themselves or others),
    with tied scores, and qrels that sometimes judge a query's own document.
    """
    run, qrels = [], []
    for query in QUERIES[: draw(st.integers(1, 3))]:
        docs = draw(st.lists(st.sampled_from(DOCS), min_size=1, max_size=7, unique=True))
        if draw(st.booleans()) and query not in docs:
            docs.insert(draw(st.integers(0, len(docs))), query)
        scores = draw(st.lists(st.sampled_from([0.5, 1.0, 2.0, 3.0]), min_size=len(docs),
                               max_size=len(docs)))  # fmt: skip
        run += [(query, doc, score) for doc, score in zip(docs, scores, strict=True)]
        judged = draw(st.lists(st.sampled_from(DOCS), min_size=1, max_size=5, unique=True))
        if docs[-1] not in judged:  # run and qrels share documents (else refused)
            judged.append(docs[-1])
        qrels += [(query, doc, draw(st.integers(0, 2))) for doc in judged]
    return (
        pd.DataFrame(run, columns=["query", "doc", "score"]),
        pd.DataFrame(qrels, columns=["query", "doc", "rel"]),
    )


def _ir_measures(run: pd.DataFrame, qrels: pd.DataFrame) -> pd.DataFrame:
    ir_measures = pytest.importorskip("ir_measures")
    kept = run[run["query"] != run["doc"]]  # BEIR's ignore_identical_ids
    measures = [ir_measures.parse_measure(name) for name in METRICS]
    found = ir_measures.iter_calc(
        measures,
        qrels.rename(columns={"query": "query_id", "doc": "doc_id", "rel": "relevance"}),
        kept.rename(columns={"query": "query_id", "doc": "doc_id"}),
    )
    rows = [(m.query_id, str(m.measure), float(m.value)) for m in found]
    table = pd.DataFrame(rows, columns=["query", "metric", "value"])
    return table.pivot(index="query", columns="metric", values="value")


@given(runs_finding_their_queries())
@settings(deadline=None, max_examples=60)
def test_ignore_self_equals_ir_measures_on_the_run_without_self_documents(
    case: tuple[pd.DataFrame, pd.DataFrame],
) -> None:
    run, qrels = case
    theirs = _ir_measures(run, qrels)
    ours = pdireval.evaluate(run, METRICS, qrels=qrels, queries="judged", ignore_self=True)
    assert sorted(ours.index) == sorted(theirs.index)
    for metric in METRICS:
        np.testing.assert_allclose(
            ours[metric].to_numpy(),
            theirs.loc[ours.index, metric].to_numpy(),
            rtol=1e-9,
            atol=1e-12,
            err_msg=metric,
        )


@given(runs_finding_their_queries())
@settings(deadline=None, max_examples=40)
def test_ignore_self_is_the_frame_without_self_documents_retrieved(
    case: tuple[pd.DataFrame, pd.DataFrame],
) -> None:
    """On a merged frame: the self rows become judged-but-unretrieved (or go, unjudged)."""
    run, qrels = case
    merged = pdireval.merge_qrels(run, qrels)
    self_rows = merged["query"] == merged["doc"]
    by_hand = merged.assign(score=merged["score"].mask(self_rows))
    by_hand = by_hand[by_hand["score"].notna() | by_hand["rel"].notna()]
    for queries in ("judged", "all"):
        expected = pdireval.evaluate(by_hand, METRICS, queries=queries)
        got = pdireval.evaluate(merged, METRICS, queries=queries, ignore_self=True)
        pd.testing.assert_frame_equal(got, expected)


def test_ids_are_compared_as_text_and_the_input_is_kept() -> None:
    frame = pd.DataFrame(
        {"query": [7, 7, 7], "doc": ["7", "x", "y"], "rank": [1, 2, 3], "rel": [1, 0, 1]}
    )
    before = frame.copy()
    got = pdireval.evaluate(frame, ["P@1", "AP", "NumRet", "NumRel"], ignore_self=True)
    assert got.loc[7].tolist() == [0.0, 0.25, 2.0, 2.0]
    pd.testing.assert_frame_equal(frame, before)


def test_default_keeps_the_self_document() -> None:
    frame = pd.DataFrame({"query": "q", "doc": ["q", "x"], "rank": [1, 2], "rel": [1, 0]})
    assert pdireval.evaluate(frame, "P@1").iloc[0, 0] == 1.0
    assert pdireval.evaluate(frame, "P@1", ignore_self=True).iloc[0, 0] == 0.0


def test_ignore_self_comes_before_max_rank() -> None:
    frame = pd.DataFrame({"query": "q", "doc": ["q", "a", "b"], "rank": [1, 2, 3], "rel": 1})
    assert pdireval.evaluate(frame, "NumRet", max_rank=2, ignore_self=True).iloc[0, 0] == 2.0


def test_diversity_measures_leave_the_self_document_out_too() -> None:
    run = pd.DataFrame({"query": "q", "doc": ["q", "a", "b"], "score": [3.0, 2.0, 1.0]})
    qrels = pd.DataFrame({"query": "q", "subtopic": ["s1", "s2"], "doc": ["a", "b"], "rel": 1})
    merged = pdireval.merge_qrels(run, qrels)
    alone = pdireval.merge_qrels(run[run["doc"] != "q"], qrels)
    metrics = ["alpha_nDCG@2", "P_IA@1"]
    pd.testing.assert_frame_equal(
        pdireval.evaluate(merged, metrics, ignore_self=True), pdireval.evaluate(alone, metrics)
    )


def test_every_evaluating_function_takes_ignore_self() -> None:
    import pdireval.api

    for name in pdireval.api.__all__:
        function = getattr(pdireval.api, name)
        if function.__module__ != "pdireval.api":
            continue
        parameters = inspect.signature(function).parameters
        if "judged_only" in parameters:
            assert parameters["ignore_self"].default is False, name


def test_ignore_self_takes_booleans_only() -> None:
    frame = pd.DataFrame({"query": "q", "doc": ["q", "x"], "rank": [1, 2], "rel": [1, 0]})
    with pytest.raises(ParameterError, match="ignore_self= must be True or False"):
        pdireval.evaluate(frame, "AP", ignore_self="yes")  # type: ignore[arg-type]


def test_every_surface_leaves_the_self_document_out() -> None:
    """The accessor, summary, compare and the Dask backend pass the option on."""
    frame = pd.DataFrame(
        {
            "run": ["a"] * 3 + ["b"] * 3,
            "query": "q",
            "doc": ["q", "x", "y"] * 2,
            "score": [3.0, 2.0, 1.0, 1.0, 3.0, 2.0],
            "rel": [1, 0, 1] * 2,
        }
    )
    without = frame.assign(score=frame["score"].mask(frame["doc"] == "q"))  # judged, not retrieved
    expected = pdireval.evaluate(without, ["P@1", "AP"])
    pd.testing.assert_frame_equal(frame.ireval.evaluate(["P@1", "AP"], ignore_self=True), expected)
    pd.testing.assert_frame_equal(
        pdireval.summary(frame, ["P@1", "AP"], ignore_self=True),
        pdireval.summary(without, ["P@1", "AP"]),
    )
    dd = pytest.importorskip("dask.dataframe")
    backend = pytest.importorskip("pdireval.dask")
    lazy = backend.evaluate(dd.from_pandas(frame, npartitions=2), ["P@1"], ignore_self=True)
    got = lazy.compute().set_index(["run", "query"]).sort_index()
    np.testing.assert_array_equal(got["P@1"].to_numpy(), expected["P@1"].to_numpy())
