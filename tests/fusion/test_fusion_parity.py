"""Fusion against ranx (the peer it follows) and against the plain reference.

Frames are drawn to break naive fusers: few distinct scores (ties within and across
runs), documents missing from some runs, uneven depths, runs that skip queries.

ranx leaves two things open that pdireval pins down, so the parity tests feed ranx
inputs on which ranx is well defined:

* ranx orders equal scores with an unstable sort, so methods and normalisations that
  use ranks (RRF, ISR, Borda, Condorcet, ``rank``, ``borda``) get, on the ranx side,
  scores without ties that follow trec_eval's order (``-rank``);
* ranx's Condorcet sorts with a comparator that is inconsistent when a pair of documents
  ties or when runs retrieved neither, so the result then depends on set order; it is
  compared only where the pairwise majorities form a strict order.

The reference (``fusion_reference``) checks everything, ties included.
"""

from __future__ import annotations

from typing import Any

import fusion_reference as reference
import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

import pdireval
from pdireval.fusion import METHODS, NORMS

ranx = pytest.importorskip("ranx", reason="ranx is not installed (pip install 'pdireval[test]')")
# numba warns inside ranx's own normalisations when it compiles them (a fresh install):
# the peer's warning, not pdireval's
pytestmark = pytest.mark.filterwarnings("ignore:.*unsafe cast from uint64 to int64:Warning:.*ranx")

QUERIES = ("q1", "q2", "10", "9", "é")
DOCS = (*(f"d{i}" for i in range(10)), "D1", "x-1")
SCORES = (-2.0, 0.0, 0.5, 1.0, 1.0, 3.0)
RANK_METHODS = ("RRF", "RBC", "ISR", "log_ISR", "logN_ISR", "BordaFuse", "wBordaFuse")
CONDORCET = ("Condorcet", "wCondorcet")
SCORE_METHODS = tuple(m for m in METHODS if m not in RANK_METHODS + CONDORCET)
ORDER_NORMS = ("rank", "borda")  # values that depend on the order of equal scores
RANX_NAMES = {
    "CombSUM": "sum",
    "CombMNZ": "mnz",
    "CombANZ": "anz",
    "CombGMNZ": "gmnz",
    "CombMAX": "max",
    "CombMIN": "min",
    "CombMED": "med",
    "RRF": "rrf",
    "RBC": "rbc",
    "ISR": "isr",
    "log_ISR": "log_isr",
    "logN_ISR": "logn_isr",
    "BordaFuse": "bordafuse",
    "wBordaFuse": "w_bordafuse",
    "Condorcet": "condorcet",
    "wCondorcet": "w_condorcet",
    "Mixed": "mixed",
    "WSum": "wsum",
    "WMNZ": "wmnz",
}
PARAMS: dict[str, dict[str, float]] = {"CombGMNZ": {"gamma": 0.5}, "RBC": {"phi": 0.8}}
SETTINGS = settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@st.composite
def run_frames(draw: st.DrawFn, continuous: bool = False) -> pd.DataFrame:
    """2-4 runs; each retrieves some queries, each to its own depth."""
    n_runs = draw(st.integers(2, 4))
    queries = draw(st.lists(st.sampled_from(QUERIES), min_size=1, max_size=3, unique=True))
    rows = []
    for r in range(n_runs):
        for query in queries:
            if not draw(st.integers(0, 4)):  # about one in five: the run skips the query
                continue
            docs = draw(st.lists(st.sampled_from(DOCS), min_size=1, max_size=7, unique=True))
            value = st.floats(-5, 5, allow_nan=False) if continuous else st.sampled_from(SCORES)
            rows += [(f"run{r}", query, doc, draw(value)) for doc in docs]
    frame = pd.DataFrame(rows, columns=["run", "query", "doc", "score"])
    for r in range(n_runs):  # every run retrieves something somewhere
        if not (frame["run"] == f"run{r}").any():
            frame.loc[len(frame)] = (f"run{r}", queries[0], "d0", 1.0)
    return frame


def _weights(frame: pd.DataFrame) -> list[float]:
    return [1.0, 2.0, 0.5, 1.5][: frame["run"].nunique()]


def _to_ranx(frame: pd.DataFrame, every_query: bool = True) -> list[Any]:
    """ranx runs; with ``every_query`` each has every query (ranx.fuse needs that), empty
    where the run retrieved nothing.

    Built with ``add_score``, whose ids are Python strings: ``Run.from_dict`` (and
    ``from_df``) store them as fixed-width numpy strings, and fusing runs whose longest
    ids differ truncates the others' ids to the first run's width ("x-1" becomes "x-").
    """
    from numba import types
    from numba.typed import Dict

    queries = sorted(set(frame["query"]))
    runs = []
    for name in pd.unique(frame["run"]):
        rows = frame[frame["run"] == name]
        run = ranx.Run(name=str(name))
        for query in queries if every_query else sorted(set(rows["query"])):
            run.run[query] = Dict.empty(key_type=types.unicode_type, value_type=types.float64)
        for query, doc, score in zip(rows["query"], rows["doc"], rows["score"], strict=True):
            run.add_score(query, doc, float(score))
        run.sort()
        runs.append(run)
    return runs


def _tie_broken(frame: pd.DataFrame) -> pd.DataFrame:
    """Scores replaced by ``-rank`` in trec_eval's order: no ties left for ranx to order."""
    ranked = pdireval.normalize(frame, "rank")
    return ranked.assign(score=-ranked["rank"].astype(float))


def _skips_queries(frame: pd.DataFrame) -> bool:
    return frame.groupby("run")["query"].nunique().min() < frame["query"].nunique()


def _ranx_fuse(frame: pd.DataFrame, method: str, norm: str | None, weights=None) -> dict:
    params = dict(PARAMS.get(method, {}))
    if METHODS[method].weighted:
        params["weights"] = weights
    fused = ranx.fuse(_to_ranx(frame), norm=norm, method=RANX_NAMES[method], params=params)
    return {q: dict(docs) for q, docs in fused.to_dict().items()}


def _as_dict(fused: pd.DataFrame) -> dict:
    out: dict[Any, dict[Any, float]] = {}
    for query, doc, score in zip(fused["query"], fused["doc"], fused["score"], strict=True):
        out.setdefault(query, {})[doc] = score
    return out


def _assert_same(ours: dict, theirs: dict) -> None:
    theirs = {q: docs for q, docs in theirs.items() if docs}  # ranx keeps empty queries
    assert set(ours) == set(theirs)
    for query, docs in theirs.items():
        assert set(ours[query]) == set(docs), query
        for doc, score in docs.items():
            assert ours[query][doc] == pytest.approx(score, abs=1e-9, rel=1e-9), (query, doc)


def _assert_trec_ordered(fused: pd.DataFrame) -> None:
    """Ranks 1..n per query, score descending, equal scores by doc id descending."""
    for _, rows in fused.groupby("query", sort=False):
        assert rows["rank"].tolist() == list(range(1, len(rows) + 1))
        expected = reference.trec_sorted(list(zip(rows["doc"], rows["score"], strict=True)))
        assert rows["doc"].tolist() == [doc for doc, _ in expected]


# --------------------------------------------------------------------- normalisations


@pytest.mark.parametrize("norm", sorted(NORMS))
@SETTINGS
@given(frame=run_frames(continuous=False))
def test_normalize_matches_ranx(norm: str, frame: pd.DataFrame) -> None:
    ours = pdireval.normalize(frame, norm)
    given_frame = _tie_broken(frame) if norm in ORDER_NORMS else frame
    runs = _to_ranx(given_frame, every_query=norm == "borda")
    normalised = (
        ranx.normalization.norm_switch(norm)(runs)
        if norm == "borda"
        else [ranx.normalization.norm_switch(norm)(run) for run in runs]
    )
    for run in normalised:
        mine = ours[ours["run"] == run.name]
        _assert_same(_as_dict(mine), {q: dict(d) for q, d in run.to_dict().items()})


@pytest.mark.parametrize("norm", sorted(NORMS))
@SETTINGS
@given(frame=run_frames())
def test_normalize_matches_reference(norm: str, frame: pd.DataFrame) -> None:
    ours = pdireval.normalize(frame, norm)
    expected = reference.normalise(reference.rankings(frame), norm)
    for run, by_query in expected.items():
        for query, ranking in by_query.items():
            rows = ours[(ours["run"] == run) & (ours["query"] == query)]
            assert rows["doc"].tolist() == [doc for doc, _ in ranking]
            np.testing.assert_allclose(rows["score"], [s for _, s in ranking], atol=1e-12)
            assert rows["rank"].tolist() == list(range(1, len(ranking) + 1))


# ------------------------------------------------------------------------ methods


@pytest.mark.parametrize("norm", [None, *sorted(NORMS)])
@pytest.mark.parametrize("method", SCORE_METHODS)
@SETTINGS
@given(frame=run_frames())
def test_score_methods_match_ranx(method: str, norm: str | None, frame: pd.DataFrame) -> None:
    # ranx's zmuv loses the next query's documents after a query a run did not retrieve
    assume(norm != "zmuv" or not _skips_queries(frame))
    weights = _weights(frame) if METHODS[method].weighted else None
    ours = pdireval.fuse(frame, method, norm=norm, weights=weights, **PARAMS.get(method, {}))
    if method in ("CombMAX", "CombMIN"):
        # ranx scores a run that missed the document -1e9 (CombMAX) or 1e9 (CombMIN),
        # which wins over scores beyond; pdireval takes only the runs that retrieved it
        normalised = frame if norm is None else pdireval.normalize(frame, norm)
        assume(normalised["score"].abs().max() < 1e9)
    given_frame = _tie_broken(frame) if norm in ORDER_NORMS else frame
    _assert_same(_as_dict(ours), _ranx_fuse(given_frame, method, norm, weights))


@pytest.mark.parametrize("norm", [None, *sorted(NORMS)])
@pytest.mark.parametrize("method", RANK_METHODS)
@SETTINGS
@given(frame=run_frames())
def test_rank_methods_match_ranx(method: str, norm: str | None, frame: pd.DataFrame) -> None:
    weights = _weights(frame) if METHODS[method].weighted else None
    ours = pdireval.fuse(frame, method, norm=norm, weights=weights, **PARAMS.get(method, {}))
    normalised = frame if norm is None else pdireval.normalize(frame, norm)
    _assert_same(_as_dict(ours), _ranx_fuse(_tie_broken(normalised), method, None, weights))


def _strict_majorities(frame: pd.DataFrame, weights: list[float]) -> bool:
    """Whether ranx's Condorcet comparator is consistent and transitive on ``frame``."""
    runs = reference.rankings(frame)
    names = list(runs)
    for query in runs[names[0]]:
        places = {run: {d: i for i, (d, _) in enumerate(runs[run][query])} for run in names}
        docs = sorted({d for p in places.values() for d in p})
        wins = dict.fromkeys(docs, 0)
        for i, x in enumerate(docs):
            for y in docs[i + 1 :]:
                votes = list(zip(names, weights, strict=True))
                for_x = sum(w for r, w in votes if reference._above(places[r], x, y))
                for_y = sum(w for r, w in votes if reference._above(places[r], y, x))
                neither = sum(weights) - for_x - for_y
                if for_x == for_y or abs(for_x - for_y) < neither:
                    return False
                wins[x if for_x > for_y else y] += 1
        if sorted(wins.values()) != list(range(len(docs))):
            return False
    return True


@pytest.mark.parametrize("method", CONDORCET)
@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(frame=run_frames())
def test_condorcet_matches_ranx_where_ranx_is_defined(method: str, frame: pd.DataFrame) -> None:
    weights = _weights(frame) if method == "wCondorcet" else [1.0] * frame["run"].nunique()
    ours = pdireval.fuse(frame, method, weights=weights if method == "wCondorcet" else None)
    if _strict_majorities(frame, weights):
        expected = _ranx_fuse(_tie_broken(frame), method, None, weights)
        _assert_same(_as_dict(ours), expected)


@pytest.mark.parametrize("norm", [None, *sorted(NORMS)])
@pytest.mark.parametrize("method", sorted(METHODS))
@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(frame=run_frames(), depth=st.none() | st.integers(1, 4))
def test_methods_match_reference(
    method: str, norm: str | None, frame: pd.DataFrame, depth: int | None
) -> None:
    weights = _weights(frame) if METHODS[method].weighted else None
    params = PARAMS.get(method, {})
    ours = pdireval.fuse(frame, method, norm=norm, weights=weights, depth=depth, **params)
    expected = reference.fuse(frame, method, norm, weights, depth, **params)
    _assert_same(_as_dict(ours), expected)
    _assert_trec_ordered(ours)
    assert (ours["run"] == method).all()


@pytest.mark.parametrize("method", CONDORCET)
def test_condorcet_matches_ranx_on_seeded_majorities(method: str) -> None:
    """Three runs reorder one ranking a little (documents dropped at the bottom): the
    majorities are mostly a strict order, where ranx's Condorcet is defined."""
    rng = np.random.default_rng(7)
    compared = 0
    for _ in range(60):
        rows = []
        for query in ("q1", "q2"):
            docs = rng.permutation(DOCS)[: rng.integers(3, 9)]
            for r in range(3):
                noisy = np.arange(len(docs)) + rng.normal(0, 0.8, len(docs))
                keep = len(docs) - rng.integers(0, 2)
                for place, at in enumerate(np.argsort(noisy)[:keep]):
                    rows.append((f"run{r}", query, docs[at], float(-place)))
        frame = pd.DataFrame(rows, columns=["run", "query", "doc", "score"])
        weights = [1.0, 1.0, 1.0] if method == "Condorcet" else [1.0, 2.0, 1.5]
        if not _strict_majorities(frame, weights):
            continue
        compared += 1
        ours = pdireval.fuse(frame, method, weights=weights if method == "wCondorcet" else None)
        _assert_same(_as_dict(ours), _ranx_fuse(frame, method, None, weights))
    assert compared >= 15
