"""Rank-biased overlap: the bounds against the definition on explicit extensions of the
lists, the point estimate against the rbo package's numbers, and the per-query form
against the two-list form."""

from __future__ import annotations

import itertools

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import pdireval
from pdireval import ParameterError, SchemaError
from pdireval.stats.overlap import rbo

DEPTH = 3000  # p <= 0.95: p ** 3000 < 1e-60, the sums below are complete


def _weighted(agreements: list[float], p: float) -> float:
    """(1 - p) * sum_d p^(d-1) A_d over the given depths 1, 2, ..."""
    return sum((1 - p) * p**d * a for d, a in enumerate(agreements))


def _agreements(a: list[str], b: list[str]) -> list[float]:
    """A_d = |a[:d] & b[:d]| / d for d = 1 .. DEPTH (both lists long enough)."""
    seen_a: set[str] = set()
    seen_b: set[str] = set()
    common = 0
    out = []
    for d in range(DEPTH):
        x, y = a[d], b[d]
        if x == y:
            common += 1
        else:
            common += (x in seen_b) + (y in seen_a)
        seen_a.add(x)
        seen_b.add(y)
        out.append(common / (d + 1))
    return out


def _fresh(prefix: str) -> list[str]:
    return [f"{prefix}{i}" for i in range(DEPTH)]


def _slow_min(a: list[str], b: list[str], p: float) -> float:
    """The lists continued with items nobody else has: nothing more agrees."""
    return _weighted(_agreements(a + _fresh("#a"), b + _fresh("#b")), p)


def _slow_max(a: list[str], b: list[str], p: float) -> float:
    """Each list continued with the other's items it lacks, in the other's order, then
    with the same new items: every unseen item agrees as early as it can."""
    a_more = a + [item for item in b if item not in a] + _fresh("#")
    b_more = b + [item for item in a if item not in b] + _fresh("#")
    return _weighted(_agreements(a_more, b_more), p)


def _slow_ext(a: list[str], b: list[str], p: float) -> float:
    """Webber et al.'s extrapolation: beyond the shorter list (length s) its agreement
    X_s / s continues; beyond the longer (length l) A_l stays."""
    short, long = sorted((a, b), key=len)
    s, ell = len(short), len(long)
    if s == 0:
        return 0.0
    x = [len(set(short[:d]) & set(long[:d])) for d in range(1, ell + 1)]
    agreements = []
    for d in range(1, DEPTH + 1):
        if d <= s:
            agreements.append(x[d - 1] / d)
        elif d <= ell:
            agreements.append((x[d - 1] + x[s - 1] * (d - s) / s) / d)
        else:
            agreements.append((x[ell - 1] + x[s - 1] * (ell - s) / s) / ell)
    return _weighted(agreements, p)


rankings = st.integers(0, 12).flatmap(
    lambda n: st.tuples(
        st.permutations("abcdefghijklmnop").map(lambda items: list(items[:n])),
        st.permutations("abcdefghijklmnop").flatmap(
            lambda items: st.integers(0, 12).map(lambda m: list(items[:m]))
        ),
    )
)


@settings(max_examples=150, deadline=None)
@given(pair=rankings, p=st.sampled_from([0.5, 0.8, 0.9, 0.95]))
def test_bounds_and_estimate_follow_the_definition(pair: tuple[list[str], list[str]], p: float):
    a, b = pair
    result = rbo(a, b, p=p)
    if min(len(a), len(b)) == 0:
        assert (result.min, result.ext, result.max) == (0.0, 0.0, 1.0)
        return
    assert result.min == pytest.approx(_slow_min(a, b, p), abs=1e-12)
    assert result.max == pytest.approx(_slow_max(a, b, p), abs=1e-12)
    assert result.ext == pytest.approx(_slow_ext(a, b, p), abs=1e-12)
    assert result.residual == pytest.approx(result.max - result.min, abs=1e-15)
    assert result.min <= result.ext <= result.max
    assert rbo(b, a, p=p) == pytest.approx(result, abs=1e-15)  # symmetric


@pytest.mark.parametrize("n", [1, 2, 5, 40])
@pytest.mark.parametrize("p", [0.5, 0.9, 0.98])
def test_identical_and_disjoint_lists(n: int, p: float) -> None:
    items = [f"d{i}" for i in range(n)]
    same = rbo(items, items, p=p)
    assert same.ext == pytest.approx(1.0, abs=1e-12)
    assert same.max == pytest.approx(1.0, abs=1e-12)
    assert same.min == pytest.approx(_slow_min(items, items, p), abs=1e-12)
    apart = rbo(items, [f"e{i}" for i in range(n)], p=p)
    assert apart.min == 0.0
    assert apart.ext == 0.0


# (a, b, p) -> RankingSimilarity(a, b).rbo_ext(p) of the rbo package, version 0.1.3
RBO_PACKAGE = {
    ("abcd", "bace", 0.9): 0.71775,
    ("abcd", "bace", 0.8): 0.672,
    ("abcd", "bace", 0.5): 0.46875,
    ("abcdefg", "abcdxyz", 0.9): 0.7394345714285713,
    ("abcdefg", "abcdxyz", 0.8): 0.8494232380952381,
    ("abcdefg", "abcdxyz", 0.5): 0.981845238095238,
    ("abcdef", "fa", 0.9): 0.548415,
    ("abcdef", "fa", 0.8): 0.45461333333333337,
    ("abcdef", "fa", 0.5): 0.25520833333333337,
    ("abcdefghij", "jihgfedcba", 0.9): 0.5116075656428573,
    ("abcdefghij", "jihgfedcba", 0.8): 0.2473058173968255,
    ("abcdefghij", "jihgfedcba", 0.5): 0.01629154265873016,
    ("abcde", "axbycz", 0.9): 0.62911,
    ("abcde", "axbycz", 0.8): 0.6622933333333333,
    ("abcde", "axbycz", 0.5): 0.7770833333333335,
}


@pytest.mark.parametrize(("a", "b", "p"), list(RBO_PACKAGE))
def test_extrapolation_equals_the_rbo_package(a: str, b: str, p: float) -> None:
    assert rbo(list(a), list(b), p=p).ext == pytest.approx(RBO_PACKAGE[a, b, p], abs=1e-12)


def test_depth_truncates_both_lists() -> None:
    a, b = list("abcdefgh"), list("bacdhgfe")
    assert rbo(a, b, depth=3) == rbo(a[:3], b[:3])


def test_bad_arguments() -> None:
    with pytest.raises(SchemaError, match="ranking b holds item 'x' more than once"):
        rbo(["x", "y"], ["x", "x"])
    for p in (0, 1, 1.5, -0.1, True, "0.9"):
        with pytest.raises(ParameterError, match="strictly between 0 and 1"):
            rbo(["x"], ["x"], p=p)  # type: ignore[arg-type]
    for depth in (0, -1, 2.5, True):
        with pytest.raises(ParameterError, match="depth="):
            rbo(["x"], ["x"], depth=depth)  # type: ignore[arg-type]


def _two_runs(seed: int) -> pd.DataFrame:
    """Two runs over a few queries with tied scores, different lengths and documents,
    a query only one run retrieved, and judgments of unretrieved documents."""
    rng = np.random.default_rng(seed)
    rows = []
    for run, query in itertools.product(["a", "b"], ["q1", "q2", "q3", "q10"]):
        if (run, query) == ("b", "q3"):
            continue
        n = int(rng.integers(1, 15))
        docs = rng.choice([f"d{i}" for i in range(20)], n, replace=False)
        scores = rng.integers(0, 4, n).astype(float)  # many ties
        rows += [(run, query, doc, score) for doc, score in zip(docs, scores, strict=True)]
    run = pd.DataFrame(rows, columns=["run", "query", "doc", "score"])
    judged = [f"d{i}" for i in range(20)] + ["d99"]  # d99: judged, retrieved by nobody
    qrels = pd.DataFrame({"query": "q1", "doc": judged, "rel": np.arange(21) % 3})
    return pdireval.merge_qrels(run, qrels)


def _evaluation_order(frame: pd.DataFrame, run: str, query: str) -> list[str]:
    """trec_eval's order: score descending, then doc id descending."""
    rows = frame[(frame["run"] == run) & (frame["query"] == query) & frame["score"].notna()]
    ordered = rows.sort_values(["score", "doc"], ascending=False)
    return ordered["doc"].tolist()


@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize("depth", [None, 4])
def test_per_query_equals_the_two_list_form(seed: int, depth: int | None) -> None:
    frame = _two_runs(seed)
    table = pdireval.rank_biased_overlap(frame, "a", "b", p=0.8, depth=depth)
    assert list(table.index) == ["q1", "q10", "q2", "q3"]
    assert list(table.columns) == ["min", "residual", "max", "ext"]
    for query in table.index:
        expected = rbo(
            _evaluation_order(frame, "a", query),
            _evaluation_order(frame, "b", query),
            p=0.8,
            depth=depth,
        )
        assert table.loc[query].tolist() == pytest.approx(list(expected), abs=1e-14)
    assert table.loc["q3"].tolist() == [0.0, 1.0, 1.0, 0.0]  # only run a retrieved q3
    by_correlation = pdireval.rank_correlation(frame, "a", "b", method="rbo", p=0.8)
    if depth is None:
        pd.testing.assert_series_equal(by_correlation, table["ext"].rename("rbo"))
        accessor = frame.ireval.rank_biased_overlap("a", "b", p=0.8)
        pd.testing.assert_frame_equal(accessor, table)


def test_per_query_errors() -> None:
    frame = _two_runs(0)
    with pytest.raises(SchemaError, match="run 'c' not found"):
        pdireval.rank_biased_overlap(frame, "a", "c")
    with pytest.raises(SchemaError, match="no run column"):
        pdireval.rank_biased_overlap(frame.drop(columns="run"), "a", "b")
    with pytest.raises(ParameterError, match="name both runs"):
        pdireval.rank_correlation(frame, "a", method="rbo")
    with pytest.raises(ParameterError, match="strictly between 0 and 1"):
        pdireval.rank_biased_overlap(frame, "a", "b", p=1.0)
