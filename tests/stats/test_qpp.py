"""Query performance prediction: correlations against scipy, sMARE by hand and by a loop."""

from __future__ import annotations

import re

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import pdireval
from pdireval.stats.qpp import QPP_COLUMNS, smare

stats = pytest.importorskip("scipy.stats")


def average_ranks(values: list[float]) -> list[float]:
    """1-based ranks, ties sharing the mean of the positions they occupy."""
    order = sorted(range(len(values)), key=lambda i: values[i])
    ranks = [0.0] * len(values)
    start = 0
    while start < len(order):
        end = start
        while end + 1 < len(order) and values[order[end + 1]] == values[order[start]]:
            end += 1
        for position in range(start, end + 1):
            ranks[order[position]] = (start + end) / 2 + 1
        start = end + 1
    return ranks


def reference_smare(predicted: list[float], actual: list[float]) -> float:
    c = len(predicted)
    rp, re = average_ranks(predicted), average_ranks(actual)
    return sum(abs(a - b) / c for a, b in zip(rp, re, strict=True)) / c


def queries(n: int) -> pd.Index:
    return pd.Index([f"q{i}" for i in range(n)], name="query")


def test_smare_by_hand() -> None:
    # ranks by measure 1, 3, 2, 4; by predictor 1, 2, 4, 3: errors 0, 1, 2, 1 -> 4 / 4 / 4
    assert smare([1.0, 2.0, 4.0, 3.0], [0.1, 0.5, 0.3, 0.9]) == 0.25
    assert smare([1, 2, 3], [1, 2, 3]) == 0.0
    # a tie: ranks by measure 1.5, 1.5, 3; by predictor 1, 2, 3 -> (0.5 + 0.5 + 0) / 9
    assert smare([1, 2, 3], [0.2, 0.2, 0.7]) == pytest.approx(1 / 9)


samples = st.integers(3, 30).flatmap(
    lambda n: st.tuples(
        st.lists(st.integers(0, 6).map(float), min_size=n, max_size=n),
        st.lists(st.integers(0, 10).map(lambda v: v / 10), min_size=n, max_size=n),
    )
)


@settings(max_examples=80, deadline=None)
@given(sample=samples)
def test_correlations_match_scipy_and_smare_the_loop(sample) -> None:
    x, y = sample
    table = pdireval.qpp_evaluation(
        pd.Series(x, index=queries(len(x)), name="p"),
        pd.Series(y, index=queries(len(y)), name="AP"),
    )
    row = table.iloc[0]
    assert list(table.columns) == list(QPP_COLUMNS)
    assert row["queries"] == len(x)
    assert row["smare"] == pytest.approx(reference_smare(x, y))
    if np.ptp(x) > 0 and np.ptp(y) > 0:
        assert row["pearson"] == pytest.approx(stats.pearsonr(x, y).statistic)
        assert row["kendall"] == pytest.approx(stats.kendalltau(x, y).statistic)
        assert row["spearman"] == pytest.approx(stats.spearmanr(x, y).statistic)
    else:
        assert np.isnan(row[["pearson", "kendall", "spearman"]].to_numpy(float)).all()


def test_per_collection_rows_equal_the_collections_alone() -> None:
    rng = np.random.default_rng(0)
    index = pd.MultiIndex.from_product(
        [["c1", "c2", "c3"], [f"q{i}" for i in range(8)]], names=["collection", "query"]
    )
    values = pd.DataFrame({"AP": rng.random(24), "P@10": rng.integers(0, 11, 24) / 10}, index=index)
    predictors = pd.DataFrame({"a": rng.random(24), "b": rng.normal(size=24)}, index=index)
    table = pdireval.qpp_evaluation(predictors, values, by="collection")
    assert table["collection"].tolist() == ["c1"] * 4 + ["c2"] * 4 + ["c3"] * 4
    for collection in ("c1", "c2", "c3"):
        alone = pdireval.qpp_evaluation(predictors.loc[collection], values.loc[collection])
        mine = table[table["collection"] == collection].drop(columns="collection")
        pd.testing.assert_frame_equal(mine.reset_index(drop=True), alone)


def test_a_prediction_per_query_is_repeated_along_the_runs() -> None:
    pytest.importorskip("scipy")
    from pdireval.datasets import example

    df = example()
    values = pdireval.evaluate(df, "AP")  # (run, query)
    predictor = df[df["run"] == "medium"].groupby("query")["score"].max().rename("max_score")
    table = pdireval.qpp_evaluation(predictor, values, by="run")
    assert table["run"].tolist() == ["medium", "strong", "weak"]
    medium = pdireval.qpp_evaluation(predictor, values.loc["medium"])
    assert table.iloc[0]["kendall"] == medium.iloc[0]["kendall"]


def test_bad_input_is_refused_with_the_queries_named() -> None:
    values = pd.Series([0.1, 0.5, 0.3], index=queries(3), name="AP")
    guess = pd.Series([1.0, np.nan, 3.0], index=queries(3), name="clarity")
    with pytest.raises(pdireval.SchemaError, match=r"predictor 'clarity'.*\['q1'\]"):
        pdireval.qpp_evaluation(guess, values)
    with pytest.raises(pdireval.SchemaError, match=r"measure 'AP'.*\['q2'\]"):
        pdireval.qpp_evaluation(guess.fillna(2), values.where(values != 0.3))
    other = pd.Series([1.0, 2.0, 3.0], index=pd.Index(["q0", "q1", "x9"], name="query"))
    with pytest.raises(pdireval.SchemaError, match=r"\['q2'\].*\['x9'\]"):
        pdireval.qpp_evaluation(other, values)
    numbers = pd.Series([1.0, 2.0, 3.0], index=pd.Index([0, 1, 2], name="query"))
    with pytest.raises(pdireval.SchemaError, match="same id type"):
        pdireval.qpp_evaluation(numbers, values)
    twice = pd.Series([1.0, 2.0, 3.0, 4.0], index=pd.Index(["q0", "q1", "q2", "q2"]))
    with pytest.raises(pdireval.SchemaError, match="several rows"):
        pdireval.qpp_evaluation(twice, values)
    with pytest.raises(pdireval.SchemaError, match="not index levels"):
        pdireval.qpp_evaluation(guess.fillna(2), values, by="collection")
    with pytest.raises(pdireval.SchemaError, match="Series or DataFrame"):
        pdireval.qpp_evaluation([1, 2, 3], values)
    with pytest.raises(pdireval.SchemaError, match="no finite number"):
        pdireval.qpp_evaluation(guess.fillna(np.inf), values)


# ------------------------------------------------------------- one check of the values

BAD_VALUES = [
    (np.nan, "nan"),
    (np.inf, "inf"),
    (None, "None|nan"),
    ("0.5", "'0.5'"),
    ("high", "'high'"),
    (True, "True"),
]


@pytest.mark.parametrize(("bad", "shown"), BAD_VALUES)
def test_smare_refuses_what_qpp_evaluation_refuses(bad, shown: str) -> None:
    """One check: the same finding and fix, named by position (smare) or query."""
    predicted = [0.1, bad, 0.3, 0.2]
    with pytest.raises(pdireval.SchemaError, match=r"no finite number at 1 position") as positional:
        smare(predicted, [1, 2, 3, 4])
    message = str(positional.value)
    assert "smare's argument predicted" in message
    assert re.search(rf"position: \[1\] \(found \[({shown})\]\)", message), message
    with pytest.raises(pdireval.SchemaError, match=r"argument actual .*\[1\]"):
        smare([1, 2, 3, 4], predicted)
    values = pd.Series([0.1, 0.5, 0.3, 0.2], index=queries(4), name="AP")
    guess = pd.Series(predicted, index=queries(4), name="clarity", dtype=object)
    with pytest.raises(pdireval.SchemaError, match=r"no finite number for 1 query") as named:
        pdireval.qpp_evaluation(guess, values)
    assert re.search(rf"query: \['q1'\] \(found \[({shown})\]\)", str(named.value))
    # after the ids, the finding and the fix are the same words
    assert message.split("]). ")[1] == str(named.value).split("]). ")[1]


@settings(max_examples=60, deadline=None)
@given(
    good=st.lists(st.floats(-1e6, 1e6), min_size=1, max_size=12),
    bad=st.sampled_from([value for value, _ in BAD_VALUES]),
    data=st.data(),
)
def test_one_bad_value_anywhere_is_named(good: list[float], bad, data) -> None:
    position = data.draw(st.integers(0, len(good)))
    predicted = [*good[:position], bad, *good[position:]]
    actual = list(range(len(predicted)))
    with pytest.raises(pdireval.SchemaError, match=rf"position: \[{position}\] \(found"):
        smare(predicted, actual)
    with pytest.raises(pdireval.SchemaError, match=rf"position: \[{position}\] \(found"):
        smare(np.array(actual, dtype=float), pd.Series(predicted, dtype=object))
    assert smare(good, good) == 0.0


def test_smare_takes_sequences_of_numbers_only() -> None:
    small, indexed = np.array([1, 2, 3], dtype=np.int8), pd.Series([3.0, 2.0, 1.0], index=[9, 8, 7])
    assert smare(small, indexed) == pytest.approx(reference_smare([1, 2, 3], [3, 2, 1]))
    assert smare(iter([1.0, 2.0]), (1, 2)) == 0.0
    assert np.isnan(smare([], []))
    with pytest.raises(pdireval.SchemaError, match=r"one sequence of numbers .* shape \(2, 2\)"):
        smare(np.zeros((2, 2)), np.zeros((2, 2)))
    with pytest.raises(pdireval.SchemaError, match=r"one sequence of numbers .* got str"):
        smare("abc", [1, 2, 3])
    with pytest.raises(pdireval.SchemaError, match="as many predictions as values"):
        smare([1, 2], [1, 2, 3])


# ---------------------------------------------------------------- several runs

RUNS = ("bm25", "dense", "rm3")


def _three_runs(seed: int = 0) -> tuple[pd.Series, pd.DataFrame]:
    """A predictor of 15 queries and the AP and nDCG of three runs on them."""
    rng = np.random.default_rng(seed)
    index = pd.MultiIndex.from_product([RUNS, [f"q{i}" for i in range(15)]],
                                       names=["run", "query"])  # fmt: skip
    values = pd.DataFrame({"AP": rng.random(45), "nDCG@10": rng.random(45)}, index=index)
    predictor = pd.Series(rng.normal(size=15), index=queries(15), name="clarity")
    return predictor, values


def test_each_run_is_judged_on_its_own_queries_by_default() -> None:
    predictor, values = _three_runs()
    table = pdireval.qpp_evaluation(predictor, values)
    assert list(table.columns) == ["run", *QPP_COLUMNS]
    assert table["run"].tolist() == ["bm25", "bm25", "dense", "dense", "rm3", "rm3"]
    assert (table["queries"] == 15).all()
    for run in RUNS:
        alone = pdireval.qpp_evaluation(predictor, values.loc[run])
        mine = table[table["run"] == run].drop(columns="run").reset_index(drop=True)
        pd.testing.assert_frame_equal(mine, alone)
        x, y = predictor.to_numpy(), values.loc[run, "AP"].to_numpy()
        row = mine.iloc[0]
        assert row["kendall"] == pytest.approx(stats.kendalltau(x, y).statistic)
        assert row["smare"] == pytest.approx(reference_smare(list(x), list(y)))
    pd.testing.assert_frame_equal(pdireval.qpp_evaluation(predictor, values, by="run"), table)
    pooled = pdireval.qpp_evaluation(predictor, values, by=[])
    assert list(pooled.columns) == list(QPP_COLUMNS)
    assert pooled["queries"].tolist() == [45, 45]


def test_the_default_groups_by_every_level_the_predictor_lacks() -> None:
    """Values by (run, judge, collection, query), a predictor by (collection, query):
    one row per run and judge; a predictor with the run level groups by judge alone."""
    rng = np.random.default_rng(1)
    index = pd.MultiIndex.from_product(
        [RUNS, ["human", "llm"], ["c1", "c2"], [f"q{i}" for i in range(15)]],
        names=["run", "judge", "collection", "query"],
    )
    values = pd.Series(rng.random(len(index)), index=index, name="AP")
    per_collection = pd.Series(
        rng.normal(size=30),
        index=pd.MultiIndex.from_product(
            [["c1", "c2"], [f"q{i}" for i in range(15)]], names=["collection", "query"]
        ),
        name="clarity",
    )
    table = pdireval.qpp_evaluation(per_collection, values)
    assert list(table.columns[:2]) == ["run", "judge"]
    assert len(table) == 6
    assert (table["queries"] == 30).all()
    expected = pdireval.qpp_evaluation(per_collection, values, by=["run", "judge"])
    pd.testing.assert_frame_equal(table, expected)
    per_run = pd.concat({run: per_collection for run in RUNS}, names=["run"])
    by_judge = pdireval.qpp_evaluation(per_run.rename("clarity"), values)
    assert list(by_judge.columns[:1]) == ["judge"]
    assert by_judge["queries"].tolist() == [90, 90]
