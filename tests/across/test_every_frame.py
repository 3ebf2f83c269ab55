"""Every public function that takes a frame, on the frames users bring.

Generated merged frames -- ids of every dtype (pandas ``str``, ``object``, categorical,
integers, and Arrow columns sharing a numpy buffer), judgments per subtopic, a ``time``
column, unjudged queries -- go through each function. Each call must give a result, or
refuse with a pdireval error; never change its input; and give what the same call gives
on a clean deep copy of the frame.
"""

from __future__ import annotations

import io
from collections.abc import Callable

import numpy as np
import pandas as pd
import pyarrow as pa
import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

import pdireval

pytest.importorskip("scipy")

ID_DTYPES = ("str", "object", "category", "int64", "arrow-int")


def _ids(values: list[int], dtype: str) -> object:
    numbers = np.asarray(values, dtype=np.int64)
    if dtype == "int64":
        return numbers
    if dtype == "arrow-int":  # an Arrow array over the numpy buffer, not a copy
        return pd.array(pa.array(numbers), dtype=pd.ArrowDtype(pa.int64()))
    text = pd.Series([f"q{v}" if v >= 0 else "" for v in values], dtype=object)
    return text.astype({"str": "str", "object": object, "category": "category"}[dtype])


@st.composite
def frames(draw: st.DrawFn) -> tuple[pd.DataFrame, pd.DataFrame]:
    """A run of two runs (with times) and its qrels, maybe judged per subtopic."""
    n_queries = draw(st.integers(1, 4))
    rows, judgments = [], []
    for query in range(n_queries):
        docs = draw(st.lists(st.integers(0, 20), min_size=2, max_size=7, unique=True))
        for run in ("a", "b"):
            order = draw(st.permutations(docs))
            scores = draw(st.lists(st.sampled_from([1.0, 2.0, 3.0]), min_size=len(order)))
            time = draw(st.sampled_from([0.01, 0.2]))
            rows += [(run, query, d, s, time) for d, s in zip(order, scores, strict=False)]
        judged = draw(st.lists(st.integers(0, 20), min_size=1, max_size=5, unique=True))
        subtopics = draw(st.sampled_from([None, 1, 2]))
        for doc in judged:
            for sub in range(subtopics or 1):
                judgments.append((query, sub, doc, draw(st.integers(-1, 2))))
    run = pd.DataFrame(rows, columns=["run", "query", "doc", "score", "time"])
    qrels = pd.DataFrame(judgments, columns=["query", "subtopic", "doc", "rel"])
    if not any(sub for _, sub, _, _ in judgments) and draw(st.booleans()):
        qrels = qrels.drop(columns="subtopic")
    elif "subtopic" in qrels:
        qrels["subtopic"] = qrels["subtopic"].astype(str)
    dtype = draw(st.sampled_from(ID_DTYPES))
    for frame in (run, qrels):
        frame["query"] = _ids(frame["query"].tolist(), dtype)
        frame["doc"] = _ids(frame["doc"].tolist(), dtype)
    return run, qrels


CALLS: dict[str, Callable[[pd.DataFrame], object]] = {
    "evaluate": lambda f: pdireval.evaluate(f, ["AP", "nDCG@5", "P@2", "RR"], queries="all"),
    "summary": lambda f: pdireval.summary(f, ["AP", "P@2"], queries="all"),
    "compare": lambda f: pdireval.compare(f, "AP"),
    "report": lambda f: pdireval.report(f, ["AP", "P@2"]).table(),
    "per_query": lambda f: pdireval.per_query(f, "AP", baseline="a"),
    "pool": lambda f: pdireval.pool(f, 3),
    "pool_contribution": lambda f: pdireval.pool_contribution(f, depth=3),
    "rank_biased_overlap": lambda f: pdireval.rank_biased_overlap(f, "a", "b"),
    "rank_correlation": lambda f: pdireval.rank_correlation(f, "a", "b"),
    "efficiency": lambda f: pdireval.efficiency(f),
    "tie_groups": lambda f: pdireval.tie_groups(f, 2),
    "curve": lambda f: pdireval.curve(f, "P", ks=[1, 2, 5]),
    "pr_curve": lambda f: pdireval.pr_curve(f),
    "write_run": lambda f: _written(pdireval.write_run, f),
    "write_qrels": lambda f: _written(pdireval.write_qrels, f),
}


def _written(write: Callable, frame: pd.DataFrame) -> str:
    buffer = io.StringIO()
    write(frame, buffer)
    return buffer.getvalue()


def _outcome(call: Callable[[pd.DataFrame], object], frame: pd.DataFrame) -> object:
    try:
        return call(frame)
    except (pdireval.SchemaError, pdireval.MetricError) as error:
        return f"refused: {error}"


def _same(found: object, expected: object) -> None:
    if isinstance(expected, pd.DataFrame):
        pd.testing.assert_frame_equal(found, expected)  # type: ignore[arg-type]
    elif isinstance(expected, pd.Series):
        pd.testing.assert_series_equal(found, expected)  # type: ignore[arg-type]
    else:
        assert found == expected


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(frames(), st.sampled_from(sorted(CALLS)))
def test_every_function_gives_a_result_or_a_clear_error(case, name: str) -> None:
    run, qrels = case
    try:
        merged = pdireval.merge_qrels(run, qrels)
    except pdireval.SchemaError:
        assume(False)  # no query or document in common: refused, tested elsewhere
        raise
    before = merged.copy(deep=True)
    found = _outcome(CALLS[name], merged)
    pd.testing.assert_frame_equal(merged, before)  # the input is never changed
    clean = merged.copy(deep=True)
    clean.attrs = {"pdireval": {"columns": dict(merged.attrs["pdireval"]["columns"])}}
    _same(found, _outcome(CALLS[name], clean))


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(frames())
def test_qrels_next_to_the_run_give_the_merged_frame_s_numbers(case) -> None:
    run, qrels = case
    names = ["AP", "nDCG@5", "P@2", "RR"]
    merged = _outcome(lambda _: pdireval.merge_qrels(run, qrels), run)
    assume(isinstance(merged, pd.DataFrame))
    expected = pdireval.evaluate(merged, names, queries="all")
    found = pdireval.evaluate(run, names, qrels=qrels, queries="all")
    pd.testing.assert_frame_equal(found, expected)
