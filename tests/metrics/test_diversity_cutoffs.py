"""Diversity measures at cutoffs past the end of the ranking, and per query.

A cutoff past a query's documents (retrieved or judged) cuts nothing: alpha_nDCG,
nERR_IA and StRecall give the value at that depth bit for bit, however large the
cutoff. alpha_DCG, ERR_IA and P_IA are divided by a quantity that grows with k (ndeval's
best case of k ranks; k itself), so past the ranking they change by exactly that
quantity. A query's values never depend on the other queries of the frame.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from strategies import DOC_IDS, LABELS, QUERY_IDS, RUN_IDS, SCORES

import pdireval

HUGE = 10**9

#: Families whose cutoff only cuts the ranking (and the ideal ranking).
CUTTING = ("alpha_nDCG", "nERR_IA", "StRecall")
#: Families divided by ndeval's best case of k ranks: discount of rank r.
BEST_CASE = {"ERR_IA": lambda r: 1.0 / r, "alpha_DCG": lambda r: 1.0 / math.log2(1.0 + r)}
#: Every diversity family (the ones without a cutoff too).
EVERY = (*CUTTING, *BEST_CASE, "P_IA", "AP_IA", "NRBP", "nNRBP")


@st.composite
def diversity_frames(
    draw: st.DrawFn, *, max_queries: int = 3, max_docs: int = 10, max_subtopics: int = 4
) -> pd.DataFrame:
    """A frame of subtopic judgments merged with a run (:func:`pdireval.merge_qrels`).

    Queries with one to ``max_subtopics`` subtopics; documents judged for several
    subtopics, with graded, zero and negative labels, or not at all; unretrieved judged
    documents, unjudged retrieved ones; ranked by rank or by scores with ties; with or
    without a run column. The first document of the first query is judged relevant
    and retrieved by every run, so that the run and the judgments overlap.
    """
    runs: list[Any] = draw(
        st.one_of(
            st.just([None]), st.lists(st.sampled_from(RUN_IDS), min_size=1, max_size=2, unique=True)
        )
    )
    ranking = draw(st.sampled_from(["rank", "score"]))
    queries = draw(
        st.lists(st.sampled_from(QUERY_IDS), min_size=1, max_size=max_queries, unique=True)
    )
    judged, retrieved = [], []
    for number, query in enumerate(queries):
        docs = draw(st.lists(st.sampled_from(DOC_IDS), min_size=1, max_size=max_docs, unique=True))
        subtopics = draw(st.integers(1, max_subtopics))
        for position, doc in enumerate(docs):
            for subtopic in range(1, subtopics + 1):
                label = draw(st.one_of(st.none(), st.sampled_from(LABELS)))
                if number == 0 and position == 0 and subtopic == 1:
                    label = 1
                if label is not None:
                    judged.append((query, f"s{subtopic}", doc, label))
        for run in runs:
            hits = draw(st.lists(st.booleans(), min_size=len(docs), max_size=len(docs)))
            if number == 0:
                hits[0] = True
            order = draw(st.permutations([doc for doc, hit in zip(docs, hits, strict=True) if hit]))
            extra = draw(st.integers(0, 2))  # unjudged documents nobody judged
            order = [*order, *(f"u{i}" for i in range(extra))]
            scores = draw(
                st.lists(st.sampled_from(SCORES), min_size=len(order), max_size=len(order))
            )
            for rank, (doc, score) in enumerate(zip(order, scores, strict=True), start=1):
                retrieved.append(
                    {"run": run, "query": query, "doc": doc, "rank": rank, "score": score}
                )
    run_frame = pd.DataFrame(retrieved).drop(columns="score" if ranking == "rank" else "rank")
    if runs == [None]:
        run_frame = run_frame.drop(columns="run")
    qrels = pd.DataFrame(judged, columns=["query", "subtopic", "doc", "rel"])
    return pdireval.merge_qrels(run_frame, qrels)


def _keys(frame: pd.DataFrame) -> list[str]:
    return ["run", "query"] if "run" in frame.columns else ["query"]


def _depths(frame: pd.DataFrame) -> pd.Series:
    """Documents (retrieved or judged) of each (run, query): past them a cutoff cuts nothing."""
    return frame.groupby(_keys(frame), observed=True)["doc"].nunique()


def _cutoffs(depths: pd.Series, start: int) -> list[int]:
    """Each depth (at least ``start``), one past it, further, and 10**9."""
    deepest = int(depths.max())
    ks = {max(int(d), start) + step for d in depths for step in (0, 1)}
    return sorted(ks | {deepest + 7, 2 * deepest + 20, HUGE})


def _name(family: str, alpha: float, k: int) -> str:
    """The result column of ``family(alpha=alpha)@k``."""
    name = f"{family}{'' if family == 'StRecall' else f'(alpha={alpha})'}@{k}"
    return pdireval.parse_metric(name).label


def _best_case(family: str, alpha: float, k: float) -> float:
    """``sum_{r<=k} (1 - alpha)^(r-1) * discount(r)``, summed until it stops changing."""
    total, r = 0.0, 1
    while r <= k:
        term = (1.0 - alpha) ** (r - 1) * BEST_CASE[family](r)
        if total + term == total:
            break
        total += term
        r += 1
    return total


settings_ = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@settings_
@given(frame=diversity_frames(), alpha=st.sampled_from([0.5, 0.1, 0.75, 1.0]))
def test_a_cutoff_past_the_documents_cuts_nothing(frame: pd.DataFrame, alpha: float) -> None:
    depths = _depths(frame)
    ks = _cutoffs(depths, start=1)
    names = [_name(family, alpha, k) for family in CUTTING for k in ks]
    table = pdireval.evaluate(frame, names, queries="all")
    assert len(table) == len(depths)
    for key, depth in depths.items():
        for family in CUTTING:
            at_depth = table.loc[key, _name(family, alpha, depth)]
            past = [table.loc[key, _name(family, alpha, k)] for k in ks if k >= depth]
            np.testing.assert_array_equal(past, [at_depth] * len(past), err_msg=str(key))


@settings_
@given(frame=diversity_frames(), alpha=st.sampled_from([0.5, 0.1, 0.75, 1.0]))
def test_past_the_documents_the_best_case_alone_changes(frame: pd.DataFrame, alpha: float) -> None:
    """alpha_DCG and ERR_IA times their best case, and P_IA times k, stop changing."""
    depths = _depths(frame)
    ks = _cutoffs(depths, start=2)
    names = [_name(family, alpha, k) for family in BEST_CASE for k in ks]
    names += [f"P_IA@{k}" for k in ks]
    table = pdireval.evaluate(frame, names, queries="all")
    for key, depth in depths.items():
        start = max(int(depth), 2)
        for family in BEST_CASE:
            total = [
                table.loc[key, _name(family, alpha, k)] * _best_case(family, alpha, k)
                for k in ks
                if k >= start
            ]
            np.testing.assert_allclose(total, total[0], rtol=1e-13, atol=0, err_msg=str(key))
        found = [table.loc[key, f"P_IA@{k}"] * k for k in ks if k >= start]
        np.testing.assert_allclose(found, found[0], rtol=1e-13, atol=0, err_msg=str(key))


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    frame=diversity_frames(max_queries=4), alpha=st.sampled_from([0.5, 0.1, 1.0]), data=st.data()
)
def test_a_query_has_its_values_alone_and_among_others(
    frame: pd.DataFrame, alpha: float, data: st.DataObject
) -> None:
    """Bit for bit: neither how deep another query's ideal ranking goes, nor which
    subtopic another run's rows mention first, nor the order of the rows changes a value.
    """
    names = [
        f"{family}(alpha={alpha}, beta=0.9)"
        if family in ("NRBP", "nNRBP")
        else family
        if family == "AP_IA"
        else f"P_IA@{k}"
        if family == "P_IA"
        else _name(family, alpha, k)
        for family in EVERY
        for k in (1, 3, 20)
    ]
    names = list(dict.fromkeys(names))
    table = pdireval.evaluate(frame, names, queries="all")
    permutation = data.draw(st.permutations(range(len(frame))))
    shuffled = pdireval.evaluate(frame.iloc[list(permutation)], names, queries="all")
    np.testing.assert_array_equal(shuffled.loc[table.index].to_numpy(), table.to_numpy())
    keys = _keys(frame)
    for key, part in frame.groupby(keys, observed=True, sort=False):
        alone = pdireval.evaluate(part, names, queries="all")
        assert len(alone) == 1
        np.testing.assert_array_equal(
            alone.to_numpy()[0], table.loc[key if len(keys) > 1 else key[0]].to_numpy()
        )


def _long_case(seed: int) -> pd.DataFrame:
    """Long rankings: many documents relevant to several of up to seven subtopics."""
    rng = np.random.default_rng(seed)
    run, qrels = [], []
    for query in ("q1", "q2", "q3"):
        docs = [f"d{i}" for i in range(int(rng.integers(20, 80)))]
        for doc in docs:
            for subtopic in range(int(rng.integers(1, 8))):
                if rng.random() < 0.6:
                    qrels.append((query, str(subtopic), doc, int(rng.choice([0, 1, 2]))))
        ranked = list(rng.permutation(docs))[: int(rng.integers(5, len(docs)))]
        run += [(query, doc, rank) for rank, doc in enumerate(ranked, start=1)]
    return pdireval.merge_qrels(
        pd.DataFrame(run, columns=["query", "doc", "rank"]),
        pd.DataFrame(qrels, columns=["query", "subtopic", "doc", "rel"]),
    )


@pytest.mark.parametrize("seed", range(6))
def test_long_rankings_past_their_end(seed: int) -> None:
    frame = _long_case(seed)
    depths = _depths(frame)
    ks = sorted({int(depths.max()), int(depths.max()) + 1, 2 * int(depths.max()) + 3, 1000, HUGE})
    for family in ("alpha_nDCG", "nERR_IA"):
        names = [_name(family, 0.9, k) for k in ks]
        values = pdireval.evaluate(frame, names).to_numpy()
        np.testing.assert_array_equal(values, np.repeat(values[:, :1], len(ks), axis=1))
    names = ["nNRBP(alpha=0.9, beta=0.99)", "alpha_nDCG@10", "nERR_IA@30"]
    table = pdireval.evaluate(frame, names)
    for query in ("q1", "q2", "q3"):
        alone = pdireval.evaluate(frame[frame["query"] == query], names)
        np.testing.assert_array_equal(alone.loc[query].to_numpy(), table.loc[query].to_numpy())


def test_the_reported_ranking() -> None:
    """Five documents: alpha_nDCG, nERR_IA and StRecall are the same from @5 on; ERR_IA
    and alpha_DCG are ndeval's (pyndeval's @5 and @20) and at @10**9 their limit."""
    pyndeval = pytest.importorskip("pyndeval")
    run = pd.DataFrame({"query": "q", "doc": list("abcde"), "rank": [1, 2, 3, 4, 5]})
    qrels = pd.DataFrame(
        {"query": "q", "doc": ["a", "b", "c", "a", "d"], "subtopic": [1, 1, 2, 2, 3], "rel": 1}
    )
    merged = pdireval.merge_qrels(run, qrels)
    ks = (5, 20, HUGE)
    names = [f"{f}@{k}" for f in ("alpha_nDCG", "nERR_IA", "StRecall", "ERR_IA", "alpha_DCG")
             for k in ks]  # fmt: skip
    values = pdireval.evaluate(merged, names).loc["q"]
    for family in ("alpha_nDCG", "nERR_IA", "StRecall"):
        assert values[f"{family}@5"] == values[f"{family}@20"] == values[f"{family}@{HUGE}"]
    judged = [(q, str(s), d, r) for q, d, s, r in qrels.itertuples(index=False)]
    ranking = [("q", doc, 5.0 - rank) for doc, rank in zip(run["doc"], run["rank"], strict=True)]
    theirs = pyndeval.RelevanceEvaluator(
        judged, measures=["ERR-IA@5", "ERR-IA@20", "alpha-DCG@5", "alpha-DCG@20"]
    ).evaluate(ranking)["q"]
    for family, spelled in (("ERR_IA", "ERR-IA"), ("alpha_DCG", "alpha-DCG")):
        for k in (5, 20):
            assert values[f"{family}@{k}"] == pytest.approx(theirs[f"{spelled}@{k}"], abs=1e-12)
        limit = values[f"{family}@20"] * _best_case(family, 0.5, 20) / _best_case(family, 0.5, HUGE)
        assert values[f"{family}@{HUGE}"] == pytest.approx(limit, rel=1e-14)
        assert values[f"{family}@{HUGE}"] < values[f"{family}@20"] < values[f"{family}@5"]
