"""Rank correlation: note 002's class exercise, scipy cross-checks, a slow tau_ap reference."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import pdireval
from pdireval import MetricError, ParameterError, SchemaError
from pdireval.stats.correlation import _grouped_kendall, _grouped_spearman, _grouped_tau_ap

stats = pytest.importorskip("scipy.stats")

#: Note 002, "SRCC - class exercise": R1 the ideal ranking, R2 the new function's.
R1 = [1, 2, 3, 4, 5, 6, 7, 8, 9, 10]
R2 = [2, 3, 1, 5, 4, 7, 8, 10, 6, 9]


def test_note_002_class_exercise() -> None:
    """Sum of squared distances 24, K = 10: 1 - 6 * 24 / (10 * 99) = 0.8545... (the note
    prints 0.854, truncating)."""
    assert pdireval.spearman(R1, R2) == pytest.approx(1 - 6 * 24 / (10 * 99), abs=1e-15)
    assert math.floor(pdireval.spearman(R1, R2) * 1000) / 1000 == 0.854


def test_perfect_and_reversed() -> None:
    for function in (pdireval.spearman, pdireval.kendall, pdireval.tau_ap):
        assert function(R1, R1) == 1.0
        assert function(R1, R1[::-1]) == -1.0


def _tau_ap_slow(x: list[float], y: list[float]) -> float:
    """Yilmaz et al. (2008), literally: walk down ranking x; C(i) counts the items above
    the i-th that the reference y also ranks above it."""
    order = sorted(range(len(x)), key=lambda j: x[j])
    total = 0.0
    for i in range(1, len(order)):
        item = order[i]
        correct = sum(1 for above in order[:i] if y[above] < y[item])
        total += correct / i
    return 2.0 * total / (len(x) - 1) - 1.0


distinct = st.integers(2, 40).flatmap(
    lambda n: st.tuples(st.permutations(range(n)), st.permutations(range(n)))
)
with_ties = st.integers(2, 40).flatmap(
    lambda n: st.tuples(
        st.lists(st.integers(0, 5), min_size=n, max_size=n),
        st.lists(st.integers(0, 5), min_size=n, max_size=n),
    )
)


@settings(max_examples=200, deadline=None)
@given(pair=st.one_of(distinct, with_ties))
def test_spearman_and_kendall_match_scipy(pair: tuple[list[int], list[int]]) -> None:
    x, y = (np.asarray(v, dtype=float) for v in pair)
    if len(set(x)) == 1 or len(set(y)) == 1:  # undefined: both give NaN
        assert math.isnan(pdireval.spearman(x, y))
        assert math.isnan(pdireval.kendall(x, y))
        return
    expected_rho = stats.spearmanr(x, y).statistic
    expected_tau = stats.kendalltau(x, y, variant="b").statistic
    assert pdireval.spearman(x, y) == pytest.approx(expected_rho, abs=1e-12)
    assert pdireval.kendall(x, y) == pytest.approx(expected_tau, abs=1e-12)


@settings(max_examples=200, deadline=None)
@given(pair=distinct)
def test_tau_ap_matches_the_slow_reference(pair: tuple[list[int], list[int]]) -> None:
    x, y = (list(map(float, v)) for v in pair)
    assert pdireval.tau_ap(x, y) == pytest.approx(_tau_ap_slow(x, y), abs=1e-12)
    # larger-is-better scores: negate both and the value is the same
    negated = pdireval.tau_ap([-v for v in x], [-v for v in y], descending=True)
    assert negated == pytest.approx(_tau_ap_slow(x, y), abs=1e-12)


def test_tau_ap_weighs_the_top() -> None:
    """A swap at the top costs more than the same swap at the bottom; tau does not care."""
    top, bottom = [2, 1, 3, 4, 5], [1, 2, 3, 5, 4]
    assert pdireval.kendall(R1[:5], top) == pdireval.kendall(R1[:5], bottom)
    assert pdireval.tau_ap(R1[:5], top) < pdireval.tau_ap(R1[:5], bottom)


def test_tau_ap_refuses_ties() -> None:
    with pytest.raises(MetricError, match="tau_ap needs the ranking without ties"):
        pdireval.tau_ap([1, 1, 2], [1, 2, 3])


def test_bad_sequences() -> None:
    with pytest.raises(SchemaError, match="same length, got 2 and 3"):
        pdireval.kendall([1, 2], [1, 2, 3])
    with pytest.raises(SchemaError, match="missing values"):
        pdireval.spearman([1, np.nan], [1, 2])
    assert math.isnan(pdireval.kendall([1], [1]))


@settings(max_examples=60, deadline=None)
@given(
    sizes=st.lists(st.integers(0, 30), min_size=1, max_size=6),
    seed=st.integers(0, 2**32 - 1),
)
def test_grouped_kernels_equal_one_call_per_group(sizes: list[int], seed: int) -> None:
    """The grouped kernels give, for each group at once, what each group gives alone."""
    rng = np.random.default_rng(seed)
    group = np.repeat(np.arange(len(sizes)), sizes)
    x = rng.permutation(len(group)).astype(float)
    y = rng.integers(0, 4, len(group)).astype(float)
    y_distinct = rng.permutation(len(group)).astype(float)
    shuffle = rng.permutation(len(group))  # rows of a group need not be contiguous
    for kernel, reference in (
        (_grouped_spearman, lambda a, b: stats.spearmanr(a, b).statistic),
        (_grouped_kendall, lambda a, b: stats.kendalltau(a, b).statistic),
    ):
        got = kernel(group[shuffle], x[shuffle], y[shuffle], len(sizes))
        for g, n in enumerate(sizes):
            part = group == g
            if n < 2 or len(set(y[part])) < 2:
                assert math.isnan(got[g])
            else:
                assert got[g] == pytest.approx(reference(x[part], y[part]), abs=1e-12)
    got = _grouped_tau_ap(group[shuffle], x[shuffle], y_distinct[shuffle], len(sizes))
    for g, n in enumerate(sizes):
        part = group == g
        expected = _tau_ap_slow(list(x[part]), list(y_distinct[part])) if n > 1 else math.nan
        assert got[g] == pytest.approx(expected, abs=1e-12, nan_ok=True)


# --------------------------------------------------------------------------- per query


def two_runs() -> pd.DataFrame:
    """Run 'ideal' ranks q1 as R1, run 'new' as R2 (note 002); q2: two docs swapped, plus a
    document only one run retrieved and one judged but retrieved by neither."""
    docs = [f"d{i}" for i in range(1, 11)]
    q1 = pd.DataFrame({"query": "q1", "doc": docs * 2, "run": ["ideal"] * 10 + ["new"] * 10})
    q1 = q1.assign(rank=R1 + R2, rel=list(range(10, 0, -1)) * 2)
    q2 = pd.DataFrame(
        {
            "query": "q2",
            "doc": ["a", "b", "c", "a", "b", "z", "y"],
            "run": ["ideal"] * 3 + ["new"] * 3 + ["new"],
            "rank": [1, 2, 3, 2, 1, 3, np.nan],
            "rel": [1, 1, 0, 1, 1, 0, 2],
        }
    )
    return pd.concat([q1, q2], ignore_index=True)


def test_rank_correlation_between_two_runs() -> None:
    frame = two_runs()
    rho = pdireval.rank_correlation(frame, "new", "ideal", method="spearman")
    assert rho.name == "spearman"
    assert rho.index.name == "query"
    assert rho["q1"] == pytest.approx(1 - 6 * 24 / 990, abs=1e-15)
    assert rho["q2"] == -1.0  # only a, b in common, in reverse order
    tau = frame.ireval.rank_correlation("new", "ideal")
    assert tau["q1"] == pytest.approx(stats.kendalltau(R1, R2).statistic, abs=1e-12)
    assert tau["q2"] == -1.0


def test_rank_correlation_with_the_ideal_ordering() -> None:
    """Labels 10..1 on d1..d10 make R1 the ideal: 'new' gets the exercise's 0.8545;
    in q2 the labels tie (a, b both 1) so tau-b uses the tie correction."""
    frame = two_runs()
    rho = pdireval.rank_correlation(frame, "new", method="spearman")
    assert rho["q1"] == pytest.approx(1 - 6 * 24 / 990, abs=1e-15)
    # q2 of 'new': b(1) a(2) z(3) with labels 1, 1, 0 -> against the ideal by label
    expected = stats.kendalltau([2, 1, 3], [-1, -1, 0]).statistic
    assert pdireval.rank_correlation(frame, "new")["q2"] == pytest.approx(expected)
    single = frame[(frame["run"] == "ideal") & (frame["query"] == "q1")].drop(columns="run")
    assert single.ireval.rank_correlation(method="tau_ap")["q1"] == 1.0
    with pytest.raises(MetricError, match="reference ranking without ties"):
        frame[frame["run"] == "ideal"].ireval.rank_correlation(method="tau_ap")  # q2 labels tie


def test_rank_correlation_by_score_keeps_ties() -> None:
    frame = pd.DataFrame(
        {"query": "q", "doc": list("abcd"), "score": [3.0, 2.0, 2.0, 1.0], "rel": [3, 2, 1, 0]}
    )
    tau = pdireval.rank_correlation(frame)["q"]
    assert tau == pytest.approx(stats.kendalltau([-3, -2, -2, -1], [-3, -2, -1, 0]).statistic)
    with pytest.raises(MetricError, match="tau_ap needs the ranking without ties"):
        pdireval.rank_correlation(frame, method="tau_ap")


def test_rank_correlation_errors() -> None:
    frame = two_runs()
    with pytest.raises(SchemaError, match=r"several runs \['ideal', 'new'\]"):
        pdireval.rank_correlation(frame)
    with pytest.raises(SchemaError, match="run 'bm25' not found"):
        pdireval.rank_correlation(frame, "bm25", "new")
    with pytest.raises(ParameterError, match="method='pearson' is not a rank correlation"):
        pdireval.rank_correlation(frame, "new", "ideal", method="pearson")
    with pytest.raises(SchemaError, match="no run column"):
        pdireval.rank_correlation(frame.drop(columns="run"), "a", "b")
    doubled = pd.concat([frame, frame.iloc[[0]]])
    with pytest.raises(SchemaError, match=r"1 duplicate \(run, query, doc\) row.*'doc': 'd1'"):
        pdireval.rank_correlation(doubled, "ideal", "new")


# --------------------------------------------------------------------------- systems


def test_system_correlation_of_two_metrics() -> None:
    """How AP and P@5 order the two runs of the example frame, and of two qrels versions."""
    from pdireval.datasets import toy

    table = pdireval.summary(toy(), ["AP", "P@5", "nDCG"])
    assert pdireval.system_correlation(table["AP"], table["nDCG"]) == 1.0
    by_ap = pd.Series({"bm25": 0.31, "dense": 0.38, "rerank": 0.42, "tfidf": 0.22})
    by_ndcg = pd.Series({"tfidf": 0.30, "rerank": 0.52, "dense": 0.44, "bm25": 0.45, "x": 1})
    # one discordant pair (bm25, dense) of six; the extra run "x" is ignored
    assert pdireval.system_correlation(by_ap, by_ndcg) == pytest.approx(4 / 6)
    assert pdireval.system_correlation(by_ap, by_ndcg, method="spearman") == pytest.approx(0.8)
    # tau_ap with nDCG as the reference, systems ranked best first
    reference = by_ndcg.drop("x").sort_index()
    expected = pdireval.tau_ap(by_ap.sort_index(), reference, descending=True)
    got = pdireval.system_correlation(by_ap, by_ndcg, method="tau_ap")
    assert got == pytest.approx(expected)
    both = pdireval.system_correlation(table, table * [1, -1, 1])
    assert both.to_dict() == {"AP": 1.0, "P@5": -1.0, "nDCG": 1.0}


def test_system_correlation_needs_two_shared_runs() -> None:
    with pytest.raises(SchemaError, match="share 1 run"):
        pdireval.system_correlation(pd.Series({"a": 1.0}), pd.Series({"a": 2.0, "b": 1.0}))
