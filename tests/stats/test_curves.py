"""Tidy curve tables: note 003's DCG@k / NDCG@k table and 11-point curve, raw PR points."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import pdireval
from pdireval import MetricError, ParameterError
from pdireval.datasets import toy

#: Note 003, "Normalized Discounted Cumulative Gain (NDCG)": gains of ranks 1..10 and rows.
GAINS_003 = [3, 2, 3, 0, 0, 1, 2, 2, 3, 0]
DCG_003 = [7.00, 8.89, 12.39, 12.39, 12.39, 12.75, 13.75, 14.70, 16.80, 16.80]
NDCG_003 = [1.00, 0.78, 0.83, 0.76, 0.71, 0.69, 0.73, 0.78, 0.90, 0.90]


def _ranking(labels: list[int], query: str = "q") -> pd.DataFrame:
    n = len(labels)
    return pd.DataFrame(
        {"query": query, "doc": [f"d{i}" for i in range(n)], "rank": range(1, n + 1)}
    ).assign(rel=labels)


def test_dcg_and_ndcg_table_003() -> None:
    """The note's DCG@k and NDCG@k rows, k = 1..10, as one long table each."""
    frame = _ranking(GAINS_003)
    dcg = frame.ireval.curve("DCG(gain='exp')", ks=range(1, 11))
    ndcg = pdireval.curve(frame, "nDCG(gain='exp')", ks=range(1, 11))
    assert list(dcg.columns) == ["query", "k", "value"]
    assert dcg["k"].tolist() == list(range(1, 11))
    np.testing.assert_allclose(dcg["value"].round(2), DCG_003, rtol=0, atol=1e-9)
    np.testing.assert_allclose(ndcg["value"].round(2), NDCG_003, rtol=0, atol=1e-9)


def test_curve_with_runs_pivots_and_averages() -> None:
    frame = toy()
    ks = [1, 3, 5, 10]
    table = frame.ireval.curve("nDCG", ks=ks)
    assert list(table.columns) == ["run", "query", "k", "value"]
    expected = pdireval.evaluate(frame, [f"nDCG@{k}" for k in ks])
    wide = table.pivot(index=["run", "query"], columns="k", values="value")
    np.testing.assert_allclose(wide.to_numpy(), expected.to_numpy(), rtol=0, atol=1e-15)
    mean = frame.ireval.curve("nDCG", ks=ks, average=True)
    assert list(mean.columns) == ["run", "k", "value"]
    by_run = expected.groupby(level="run").mean()
    np.testing.assert_allclose(
        mean.pivot(index="run", columns="k", values="value").to_numpy(), by_run.to_numpy()
    )


@pytest.mark.parametrize(
    ("metric", "match"),
    [
        ("AP@5", "without a cutoff"),
        ("NumRet", "takes no cutoff"),
        ("Nope", "unknown metric"),
        (["P", "R"], "one metric"),
    ],
)
def test_curve_errors(metric, match: str) -> None:
    with pytest.raises(MetricError, match=match):
        pdireval.curve(_ranking(GAINS_003), metric, ks=[1, 2])


def test_curve_needs_ks() -> None:
    with pytest.raises(ParameterError, match="ks= is empty"):
        pdireval.curve(_ranking(GAINS_003), "P", ks=[])


def test_eleven_point_curve_003() -> None:
    """Note 003, ranking A: interpolated precision 1, 1, then 5/6 x 7, then 0.6 x 2 (the
    levels of its "Alternative 2" example), and the average of two queries."""
    frame = toy()
    first = frame[(frame["run"] == "system1") & (frame["query"] == "topic1")]
    expected = [1.0] * 2 + [5 / 6] * 7 + [0.6] * 2  # "(2 * 1.0 + 7 * 0.83 + 2 * 0.6) / 11"
    table = first.drop(columns="run").ireval.pr_curve()
    assert list(table.columns) == ["query", "recall", "precision"]
    np.testing.assert_allclose(table["recall"], np.arange(11) / 10, rtol=0, atol=1e-15)
    np.testing.assert_allclose(table["precision"], expected, rtol=0, atol=1e-15)
    averaged = pdireval.pr_curve(frame, average=True, points=3)
    assert list(averaged.columns) == ["run", "recall", "precision"]
    per_query = pdireval.pr_curve(frame, points=3)
    means = per_query.groupby(["run", "recall"])["precision"].mean()
    np.testing.assert_allclose(averaged.set_index(["run", "recall"])["precision"], means)


def test_raw_pr_curve_by_hand() -> None:
    """Relevant at ranks 1, 3, 6 of a query with R = 4 (one relevant not retrieved):
    points (1/4, 1/1), (2/4, 2/3), (3/4, 3/6); a query without relevant docs has none."""
    frame = pd.concat(
        [
            _ranking([1, 0, 1, 0, 0, 1]),
            pd.DataFrame({"query": ["q"], "doc": ["x"], "rank": [np.nan], "rel": [1]}),
            _ranking([0, 0], query="z"),
        ],
        ignore_index=True,
    )
    table = pdireval.pr_curve(frame, interpolated=False)
    assert table["query"].tolist() == ["q", "q", "q"]
    np.testing.assert_allclose(table["recall"], [0.25, 0.5, 0.75])
    np.testing.assert_allclose(table["precision"], [1.0, 2 / 3, 0.5])
    # the interpolated curve of "z" is 0 everywhere; rows exist for every level
    interpolated = pdireval.pr_curve(frame, points=5)
    assert (interpolated.loc[interpolated["query"] == "z", "precision"] == 0).all()
    assert len(interpolated) == 10


def test_pr_curve_errors() -> None:
    with pytest.raises(MetricError, match="average=True needs interpolated=True"):
        pdireval.pr_curve(toy(), interpolated=False, average=True)
    with pytest.raises(ParameterError, match="points= must be a whole number >= 2"):
        pdireval.pr_curve(toy(), points=1)
