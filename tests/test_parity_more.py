"""Parity of issue 4's trec_eval measures with trec_eval 9.0.8 (pytrec-eval-terrier) to 1e-9.

infAP, utility, G, binG, ndcg_rel (``nDCG(rel_only=True)``) and Rndcg on the adversarial
generator of ``adversarial.py``: relevance levels 1 and 2, trec_eval -J and -M.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from adversarial import adversarial_case, to_trec_dicts, truncate

import pdireval

pytrec_eval = pytest.importorskip("pytrec_eval")

TREC_MEASURES = {"infAP", "utility", "G", "binG", "ndcg_rel", "Rndcg"}


def _pairs(level: int) -> dict[str, str]:
    """pdireval metric name -> trec_eval result key."""
    rel = "" if level == 1 else f"(rel={level})"
    return {
        f"infAP{rel}": "infAP",
        f"Utility{rel}": "utility",
        f"binG{rel}": "binG",
        "G": "G",  # trec_eval's G, ndcg_rel and Rndcg ignore the relevance level
        "nDCG(rel_only=True)": "ndcg_rel",
        "Rndcg": "Rndcg",
    }


def _trec_eval(run: pd.DataFrame, qrels: pd.DataFrame, level: int, **options) -> dict:
    run_dict, qrels_dict = to_trec_dicts(run, qrels)
    evaluator = pytrec_eval.RelevanceEvaluator(
        qrels_dict, TREC_MEASURES, relevance_level=level, **options
    )
    return evaluator.evaluate(run_dict)


def _rndcg_at_level(expected: dict, ours: pd.DataFrame, qrels: pd.DataFrame, level: int) -> None:
    """trec_eval's Rndcg uses every gain whatever -l, except that a query without a document
    at the relevance level scores 0. pdireval's Rndcg (rel=1) is the same measure; check
    trec_eval's 0 on those queries, then leave them out of the comparison."""
    reaching = set(qrels.loc[qrels["rel"] >= level, "query"].astype(str))
    for query, values in expected.items():
        if query not in reaching:
            assert values["Rndcg"] == 0.0
            values["Rndcg"] = ours.loc[query, "Rndcg"]


def _compare(ours: pd.DataFrame, expected: dict, pairs: dict[str, str]) -> list[str]:
    """Mismatches beyond 1e-9 (trec_eval's 0/0 = NaN reported as 0, as pdireval does)."""
    mismatches = []
    for query, values in expected.items():
        for name, key in pairs.items():
            label = pdireval.parse_metric(name).label
            got = ours.loc[query, label]
            want = 0.0 if np.isnan(values[key]) else values[key]
            if not np.isclose(got, want, rtol=0, atol=1e-9):
                mismatches.append(f"{query} {label}: pdireval {got!r} trec_eval {values[key]!r}")
    return mismatches


@pytest.mark.parametrize("level", [1, 2])
@pytest.mark.parametrize("seed", range(12))
def test_retrieved_policy_equals_trec_eval(seed: int, level: int) -> None:
    run, qrels = adversarial_case(seed)
    expected = _trec_eval(run, qrels, level)
    pairs = _pairs(level)
    ours = pdireval.evaluate(pdireval.merge_qrels(run, qrels), list(pairs), queries="retrieved")
    _rndcg_at_level(expected, ours, qrels, level)
    assert sorted(ours.index) == sorted(expected)
    assert _compare(ours, expected, pairs) == []


@pytest.mark.parametrize("level", [1, 2])
@pytest.mark.parametrize("seed", range(8))
def test_judged_only_equals_trec_eval_J(seed: int, level: int) -> None:
    run, qrels = adversarial_case(seed)
    expected = _trec_eval(run, qrels, level, judged_docs_only_flag=True)
    pairs = _pairs(level)
    merged = pdireval.merge_qrels(run, qrels)
    ours = pdireval.evaluate(merged, list(pairs), queries="retrieved", judged_only=True)
    _rndcg_at_level(expected, ours, qrels, level)
    assert _compare(ours, expected, pairs) == []


@pytest.mark.parametrize("max_rank", [1, 3, 10])
@pytest.mark.parametrize("seed", range(6))
def test_max_rank_equals_trec_eval_on_the_truncated_run(seed: int, max_rank: int) -> None:
    run, qrels = adversarial_case(seed)
    expected = _trec_eval(truncate(run, max_rank), qrels, 1)
    pairs = _pairs(1)
    merged = pdireval.merge_qrels(run, qrels)
    ours = pdireval.evaluate(merged, list(pairs), queries="retrieved", max_rank=max_rank)
    assert _compare(ours, expected, pairs) == []


@pytest.mark.parametrize("k", [1, 3, 5, 10])
@pytest.mark.parametrize("seed", range(6))
def test_ndcg_rel_at_k_is_ndcg_rel_of_the_top_k(seed: int, k: int) -> None:
    """``nDCG(rel_only=True)@k`` is ndcg_rel of the ranking cut at k (trec_eval -M k)."""
    run, qrels = adversarial_case(seed)
    expected = _trec_eval(truncate(run, k), qrels, 1)
    label = f"nDCG(rel_only=True)@{k}"
    ours = pdireval.evaluate(pdireval.merge_qrels(run, qrels), label, queries="retrieved")
    assert _compare(ours, expected, {label: "ndcg_rel"}) == []


def test_trec_eval_measures_differ_from_their_neighbours() -> None:
    """The parity above is not vacuous: on the adversarial data infAP differs from AP
    (pooled-but-unjudged labels), ndcg_rel and Rndcg from nDCG, binG from G."""
    run, qrels = adversarial_case(0)
    merged = pdireval.merge_qrels(run, qrels)
    names = ["infAP", "AP", "nDCG(rel_only=True)", "Rndcg", "nDCG", "G", "binG", "Utility"]
    ours = pdireval.evaluate(merged, names, queries="retrieved")
    for first, second in [("infAP", "AP"), ("nDCG(rel_only=True)", "nDCG"), ("Rndcg", "nDCG")]:
        assert not np.allclose(ours[first], ours[second])
    assert not np.allclose(ours["G"], ours["binG"])
    assert (ours["Utility"] < 0).any()
    assert (ours["Utility"] > 0).any()
