"""Condorcet fusion's pairwise majorities against a plain double loop.

pdireval counts the majorities of all the candidate pairs of a query at once, a tile of
queries at a time (a query with very many candidates split into tiles), in whole votes
when the weights allow it, else in floats summed run after run. Here the wins minus
losses of each candidate (Copeland's score) are counted again a pair at a time, from
the rankings written plainly (``fusion_reference``), on generated runs with equal
scores, documents some runs did not retrieve, runs that skip queries, weights of zero
and weights that are not whole numbers; and with tiles so small that a query is split.
"""

from __future__ import annotations

import warnings
from typing import Any
from unittest import mock

import fusion_reference as reference
import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import pdireval
from pdireval.fusion import methods
from pdireval.fusion._runs import read_runs

QUERIES = ("q1", "q2", "10", "é")
DOCS = tuple(f"d{i}" for i in range(12))
SCORES = (-1.0, 0.0, 0.5, 1.0, 2.0)
#: Whole numbers, halves, and weights whose sums round (0.1 + 0.2 > 0.3 in floats).
WEIGHTS = (0.0, 0.1, 0.2, 0.3, 0.5, 1.0, 1.5, 2.0, 1 / 3)
#: Pairs per tile: one pair, a few (queries split into tiles), the default.
LIMITS = (1, 2, 5, 16, 40, methods._PAIRS_AT_A_TIME)


@st.composite
def fusion_cases(draw: st.DrawFn) -> tuple[pd.DataFrame, list[float]]:
    """2-5 runs of few distinct scores, each skipping some queries, and their weights."""
    n_runs = draw(st.integers(2, 5))
    queries = draw(st.lists(st.sampled_from(QUERIES), min_size=1, max_size=3, unique=True))
    rows = []
    for r in range(n_runs):
        for query in queries:
            if not draw(st.integers(0, 4)):  # about one in five: the run skips the query
                continue
            docs = draw(st.lists(st.sampled_from(DOCS), min_size=1, max_size=9, unique=True))
            rows += [(f"run{r}", query, doc, draw(st.sampled_from(SCORES))) for doc in docs]
    for r in range(n_runs):  # every run retrieves something somewhere
        if not any(row[0] == f"run{r}" for row in rows):
            rows.append((f"run{r}", queries[0], "d0", 1.0))
    weights = draw(st.lists(st.sampled_from(WEIGHTS), min_size=n_runs, max_size=n_runs))
    if not any(weights):
        weights[draw(st.integers(0, n_runs - 1))] = 1.0
    return pd.DataFrame(rows, columns=["run", "query", "doc", "score"]), weights


def plain_copeland(frame: pd.DataFrame, weights: list[float]) -> dict[tuple[Any, Any], int]:
    """(query, doc) -> wins minus losses, a pair of candidates at a time: x beats y when
    the weights of the runs ranking x above y, summed run after run, exceed those of the
    runs ranking y above x (a retrieved document is above one not retrieved)."""
    runs = reference.rankings(frame)
    names = list(runs)
    out = {}
    for query in runs[names[0]]:
        places = {run: {d: i for i, (d, _) in enumerate(runs[run][query])} for run in names}
        candidates = sorted({doc for p in places.values() for doc in p})
        for x in candidates:
            wins = 0
            for y in candidates:
                for_x, for_y = 0.0, 0.0
                for run, weight in zip(names, weights, strict=True):
                    if reference._above(places[run], x, y):
                        for_x += weight
                    elif reference._above(places[run], y, x):
                        for_y += weight
                wins += (for_x > for_y) - (for_y > for_x)
            out[query, x] = wins
    return out


def fast_copeland(frame: pd.DataFrame, weights: list[float]) -> dict[tuple[Any, Any], int]:
    runs = read_runs(frame, None, None)
    score = methods._copeland(runs, np.asarray(weights, dtype=np.float64))
    queries, docs = runs.queries[runs.pair_query], runs.docs[runs.pair_doc]
    return {(q, d): int(s) for q, d, s in zip(queries, docs, score, strict=True)}


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(case=fusion_cases(), limit=st.sampled_from(LIMITS))
def test_copeland_scores_match_a_plain_double_loop(
    case: tuple[pd.DataFrame, list[float]], limit: int
) -> None:
    frame, weights = case
    with mock.patch.object(methods, "_PAIRS_AT_A_TIME", limit):
        fast = fast_copeland(frame, weights)
    assert fast == plain_copeland(frame, weights)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(case=fusion_cases(), limit=st.sampled_from(LIMITS))
def test_weighted_condorcet_matches_reference_with_any_weights(
    case: tuple[pd.DataFrame, list[float]], limit: int
) -> None:
    frame, weights = case
    with mock.patch.object(methods, "_PAIRS_AT_A_TIME", limit):
        fused = pdireval.fuse(frame, "wCondorcet", weights=weights)
    expected = reference.fuse(frame, "wCondorcet", None, weights)
    ours: dict[Any, dict[Any, float]] = {}
    for query, doc, score in zip(fused["query"], fused["doc"], fused["score"], strict=True):
        ours.setdefault(query, {})[doc] = score
    assert ours == {query: docs for query, docs in expected.items() if docs}


def test_rounded_weight_sums_decide_as_summed_run_after_run() -> None:
    """0.1 + 0.2 is a little more than 0.3 in floats: the first two runs outweigh the
    third, in wCondorcet as in the plain sums."""
    frame = pd.DataFrame(
        {
            "run": ["a", "a", "b", "b", "c", "c"],
            "query": "q",
            "doc": ["x", "y", "x", "y", "y", "x"],
            "score": [2.0, 1.0, 2.0, 1.0, 2.0, 1.0],
        }
    )
    weights = [0.1, 0.2, 0.3]
    assert 0.1 + 0.2 > 0.3
    assert fast_copeland(frame, weights) == {("q", "x"): 1, ("q", "y"): -1}
    assert fast_copeland(frame, weights) == plain_copeland(frame, weights)


@pytest.mark.parametrize("limit", [1, 3, 7, 64, 1000])
def test_tiles_stay_within_the_limit_and_cover_each_pair_once(limit: int) -> None:
    """Queries of 0 to 300 candidates: no tile holds more than ``limit`` pairs (a query of
    more is split), and each ordered pair of candidates of a query is compared once."""
    count = np.array([0, 1, 2, 3, 5, 5, 6, 7, 40, 9, 300, 2, 4], dtype=np.int64)
    first = np.cumsum(count) - count
    pad = int(count.sum())
    query_of = np.repeat(np.arange(len(count)), count)
    seen = np.zeros((pad, pad), dtype=np.int64)
    for rows, row_ok, cols, col_ok in methods._tiles(count, first, pad, limit):
        assert rows.shape[0] == cols.shape[0]
        assert rows.shape[0] * rows.shape[1] * cols.shape[1] <= limit
        for row, row_valid, col, col_valid in zip(rows, row_ok, cols, col_ok, strict=True):
            x, y = np.meshgrid(row[row_valid], col[col_valid], indexing="ij")
            assert (query_of[x] == query_of[y]).all()  # one query per line of a tile
            np.add.at(seen, (x.ravel(), y.ravel()), 1)
            if cols is not rows:  # the other side of the pairs too
                np.add.at(seen, (y.ravel(), x.ravel()), 1)
    same_query = query_of[:, None] == query_of[None, :]
    several = count[query_of] > 1
    expected = same_query & several[:, None]
    np.fill_diagonal(expected, several)
    np.testing.assert_array_equal(seen, expected.astype(np.int64))


@pytest.mark.parametrize(
    ("weights", "votes"),
    [
        ([1.0, 1.0, 1.0], [1, 1, 1]),
        ([1.0, 2.0, 0.5, 1.5], [2, 4, 1, 3]),
        ([0.25, 3.0], [1, 12]),
        ([0.1, 0.2], None),  # not a whole number times any power of two tried
        ([1 / 3, 1.0], None),
        ([2.0**40, 2.0**40], None),  # whole, but more votes than the counts hold
    ],
)
def test_whole_votes(weights: list[float], votes: list[int] | None) -> None:
    found = methods._whole_votes(np.array(weights))
    assert (found is None) if votes is None else found.tolist() == votes


@pytest.mark.parametrize(
    "weights",
    [[1e308, 1e308, 1e308], [1.7e308, 1.7e308, 1e-300], [0.1, 1.7e308, 3.0], [2.0**40, 1, 1]],
)
def test_huge_weights_warn_nothing_and_sum_as_in_python(weights: list[float]) -> None:
    """Weights too large for whole votes, whose sums overflow to inf in floats."""
    frame = pd.DataFrame(
        {
            "run": ["a", "a", "a", "b", "b", "c", "c", "c"],
            "query": "q",
            "doc": ["x", "y", "z", "y", "x", "z", "x", "y"],
            "score": [3.0, 2.0, 1.0, 2.0, 1.0, 3.0, 2.0, 1.0],
        }
    )
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        fast = fast_copeland(frame, weights)
        pdireval.fuse(frame, "wCondorcet", weights=weights)
    assert fast == plain_copeland(frame, weights)
