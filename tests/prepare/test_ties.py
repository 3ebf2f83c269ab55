"""Tie policies: ``ties="average"`` is the mean over every order of the tied documents."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pandas as pd
import pytest

import pdireval
from pdireval import MetricError, ParameterError

AVERAGED = [
    "P@1", "P@3", "R@2", "AP", "AP@3", "AP(norm='min')@2", "RR", "RR@2", "DCG@3", "nDCG",
    "nDCG@2", "nDCG(gain='exp')@4", "CG@3", "AP(rel=2)", "RR(rel=2)", "nDCG(rel=2)@3",
    "DCG(discount='jarvelin', base=3)@4",
]  # fmt: skip


def _case(seed: int) -> pd.DataFrame:
    """Two or three queries of up to 7 retrieved docs with scores 0-2 (many ties), graded,
    negative and missing labels, and relevant documents that were not retrieved."""
    rng = np.random.default_rng(seed)
    rows = []
    for query in ("q1", "q2", "q3")[: rng.integers(2, 4)]:
        depth = int(rng.integers(1, 8))
        for i in range(depth):
            label = rng.choice([np.nan, -1, 0, 1, 2, 3], p=[0.25, 0.05, 0.2, 0.25, 0.15, 0.1])
            rows.append((query, f"d{i}", float(rng.integers(0, 3)), label))
        for i in range(int(rng.integers(0, 3))):
            rows.append((query, f"u{i}", np.nan, float(rng.integers(0, 3))))
    return pd.DataFrame(rows, columns=["query", "doc", "score", "rel"])


def _brute_force_mean(frame: pd.DataFrame, metrics: list[str]) -> pd.DataFrame:
    """Evaluate every order of every group of equal scores (via a rank column); average."""
    retrieved = frame[frame["score"].notna()]
    unretrieved = frame[frame["score"].isna()]
    per_query, queries = [], []
    for query, rows in retrieved.groupby("query", sort=True):
        blocks = [list(g.index) for _, g in rows.groupby("score", sort=True)][::-1]
        orders = itertools.product(*(itertools.permutations(block) for block in blocks))
        tables, count = [], 0
        for order in orders:
            ranked = [row for block in order for row in block]
            ordered = rows.loc[ranked].assign(rank=np.arange(1, len(ranked) + 1))
            extra = unretrieved[unretrieved["query"] == query].assign(rank=np.nan)
            one = pd.concat([ordered, extra]).drop(columns="score")
            tables.append(pdireval.evaluate(one, metrics))
            count += 1
        if len(tables[0]):  # a query without judgments is not evaluated
            per_query.append(sum(t.to_numpy() for t in tables) / count)
            queries.append(query)
    return pd.DataFrame(np.vstack(per_query), index=queries, columns=tables[0].columns)


def _orders(frame: pd.DataFrame) -> int:
    sizes = frame[frame["score"].notna()].groupby(["query", "score"]).size()
    return max(math.prod(math.factorial(s) for s in sizes.xs(q, level=0)) for q in
               frame["query"].unique() if q in sizes.index.get_level_values(0))  # fmt: skip


@pytest.mark.parametrize("seed", range(40))
def test_average_equals_the_mean_over_every_order(seed: int) -> None:
    frame = _case(seed)
    if _orders(frame) > 3000:
        pytest.skip("too many orders to enumerate")
    ours = pdireval.evaluate(frame, AVERAGED, ties="average", queries="retrieved")
    expected = _brute_force_mean(frame, AVERAGED)
    np.testing.assert_allclose(
        ours.loc[expected.index].to_numpy(), expected.to_numpy(), rtol=0, atol=1e-9
    )


@pytest.mark.parametrize("seed", range(40))
def test_pessimistic_average_optimistic_are_ordered(seed: int) -> None:
    """Pessimistic <= average <= optimistic; "trec" is the default."""
    frame = _case(seed)
    low, mid, high = (
        pdireval.evaluate(frame, AVERAGED, ties=policy)
        for policy in ("pessimistic", "average", "optimistic")
    )
    assert (low.to_numpy() <= mid.to_numpy() + 1e-12).all()
    assert (mid.to_numpy() <= high.to_numpy() + 1e-12).all()
    pd.testing.assert_frame_equal(
        pdireval.evaluate(frame, AVERAGED, ties="trec"), pdireval.evaluate(frame, AVERAGED)
    )


def test_optimistic_and_pessimistic_by_hand() -> None:
    """Three documents tied at the top, one relevant: it comes first or last."""
    frame = pd.DataFrame(
        {"query": "q", "doc": ["a", "b", "c"], "score": [1.0, 1.0, 1.0], "rel": [0, 1, np.nan]}
    )
    assert pdireval.evaluate(frame, "RR", ties="optimistic")["RR"].iloc[0] == 1.0
    assert pdireval.evaluate(frame, "RR", ties="pessimistic")["RR"].iloc[0] == pytest.approx(1 / 3)
    average = pdireval.evaluate(frame, "RR", ties="average")["RR"].iloc[0]
    assert average == pytest.approx((1 + 1 / 2 + 1 / 3) / 3)
    assert pdireval.evaluate(frame, "RR")["RR"].iloc[0] == pytest.approx(1 / 2)  # "c" > "b" > "a"


def test_a_rank_column_is_used_as_given() -> None:
    frame = pd.DataFrame(
        {"query": "q", "doc": ["a", "b"], "rank": [1, 2], "score": [1.0, 1.0], "rel": [0, 1]}
    )
    for policy in ("optimistic", "pessimistic", "average"):
        assert pdireval.evaluate(frame, "RR", ties=policy)["RR"].iloc[0] == 0.5


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"ties": "random"}, r"ties='random' is not supported"),
        ({"ties": "average", "max_rank": 5}, r"cannot be combined with max_rank"),
        ({"ties": "average", "judged_only": True}, r"cannot be combined"),
    ],
)
def test_bad_tie_options(options: dict, message: str) -> None:
    with pytest.raises(ParameterError, match=message):
        pdireval.evaluate(_case(0), "AP", **options)


@pytest.mark.parametrize("metric", ["Bpref", "Rprec", "nDCG(rel_only=True)", "Success@1"])
def test_average_refused_where_not_defined(metric: str) -> None:
    with pytest.raises(MetricError, match="ties='average'"):
        pdireval.evaluate(_case(0), metric, ties="average")


def test_ties_diagnostic_lists_groups_straddling_k() -> None:
    """Only groups holding a judged document with positions on both sides of k are listed."""
    frame = pd.DataFrame(
        {
            "query": ["q1"] * 5 + ["q2"] * 3,
            "doc": ["a", "b", "c", "d", "e", "a", "b", "c"],
            "score": [5.0, 4.0, 4.0, 4.0, 1.0, 2.0, 2.0, 1.0],
            "rel": [1, np.nan, 1, 0, 1, np.nan, np.nan, 1],
        }
    )
    table = frame.ireval.tie_groups(2)
    assert table.to_dict("list") == {
        "query": ["q1"],
        "first_rank": [2],
        "last_rank": [4],
        "size": [3],
        "judged": [2],
        "relevant": [1],
    }
    assert frame.ireval.tie_groups(4).empty  # the group ends at 4: k = 4 does not cut it
    # q2's tie at the top holds no judged document: no order changes any value there.
    assert "q2" not in set(frame.ireval.tie_groups(1)["query"])


def test_ideal_dcg_is_the_normaliser_of_ndcg() -> None:
    frame = _case(3)
    table = pdireval.evaluate(frame, ["DCG@3", "IDCG@3", "nDCG@3"])
    ratio = np.divide(table["DCG@3"], table["IDCG@3"], out=np.zeros(len(table)),
                      where=table["IDCG@3"] > 0)  # fmt: skip
    np.testing.assert_allclose(table["nDCG@3"], ratio, rtol=0, atol=1e-12)


@pytest.mark.parametrize("seed", range(25))
def test_esl_is_the_mean_search_length_over_the_orders_of_tied_documents(seed: int) -> None:
    """Cooper's ESL on the weak ordering = the mean, over every order of the tied
    documents, of the non-relevant documents read before the n-th relevant one."""
    frame = _case(seed)
    if _orders(frame) > 3000:
        pytest.skip("too many orders to enumerate")
    metrics = ["ESL", "ESL(n=2)", "ESL(rel=2)"]
    expected = _brute_force_mean(frame, metrics)
    for policy in ("trec", "optimistic"):  # ESL does not depend on the tie policy
        ours = pdireval.evaluate(frame, metrics, ties=policy, queries="retrieved")
        np.testing.assert_allclose(
            ours.loc[expected.index].to_numpy(), expected.to_numpy(), rtol=0, atol=1e-9
        )


def test_tie_policy_reaches_compare_per_query_report_and_curves() -> None:
    """Every function built on evaluate forwards ties= (and the report records it)."""
    frame = pd.concat(
        [_case(5).assign(run="a"), _case(5).assign(run="b", score=lambda f: -f["score"])],
        ignore_index=True,
    )
    for policy in ("optimistic", "average"):
        table = pdireval.evaluate(frame, "AP", ties=policy)
        delta = (table.loc["b", "AP"] - table.loc["a", "AP"]).mean()
        assert pdireval.compare(frame, "AP", ties=policy, correction=None)["delta"].iloc[0] == (
            pytest.approx(delta)
        )
        curve = pdireval.curve(frame, "P", ks=[1, 2], ties=policy)
        expected = pdireval.evaluate(frame, ["P@1"], ties=policy)["P@1"]
        assert curve[curve["k"] == 1]["value"].to_numpy() == pytest.approx(expected.to_numpy())
    report = pdireval.report(frame, "AP", ties="optimistic", test="sign")
    about = dict(zip(report.about["item"], report.about["value"], strict=True))
    assert about["ties"] == "optimistic"
