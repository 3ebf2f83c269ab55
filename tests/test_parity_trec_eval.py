"""Parity with trec_eval 9.0.8 (pytrec-eval-terrier) to 1e-9 on adversarial data."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from adversarial import CUTOFFS, adversarial_case, to_trec_dicts, truncate

import pdireval

pytrec_eval = pytest.importorskip("pytrec_eval")

CUTS = ",".join(map(str, CUTOFFS))
TREC_MEASURES = {
    "map",
    "recip_rank",
    "ndcg",
    "Rprec",
    "bpref",
    "num_rel",
    "num_ret",
    "num_rel_ret",
    f"P.{CUTS}",
    f"recall.{CUTS}",
    f"map_cut.{CUTS}",
    f"ndcg_cut.{CUTS}",
    f"success.{CUTS}",
    "set_P",
    "set_recall",
    "set_F",
    "set_map",
    "set_relative_P",
    f"relative_P.{CUTS}",
    "num_nonrel_judged_ret",
    "Rprec_mult.0.2,0.5,1.5,2.0",
    "iprec_at_recall",
    "11pt_avg",
}
RECALL_LEVELS = ("0.00", "0.10", "0.20", "0.30", "0.40", "0.50", "0.60", "0.70", "0.80", "0.90")
RECALL_LEVELS += ("1.00",)


def _pairs(level: int) -> dict[str, str]:
    """pdireval metric name -> trec_eval result key."""
    rel = "" if level == 1 else f"(rel={level})"
    pairs = {
        f"AP{rel}": "map",
        f"RR{rel}": "recip_rank",
        "nDCG": "ndcg",  # trec_eval's ndcg ignores the relevance level
        f"Rprec{rel}": "Rprec",
        f"Bpref{rel}": "bpref",
        f"NumRel{rel}": "num_rel",
        "NumRet": "num_ret",
        f"NumRelRet{rel}": "num_rel_ret",
        f"SetP{rel}": "set_P",
        f"SetR{rel}": "set_recall",
        f"SetF{rel}": "set_F",
        f"SetAP{rel}": "set_map",
        f"SetRelP{rel}": "set_relative_P",
        f"NumNonRelJudgedRet{rel}": "num_nonrel_judged_ret",
        f"iAP{rel}": "11pt_avg",
    }
    inner = "" if level == 1 else f"rel={level}, "
    for mult in ("0.2", "0.5", "1.5", "2.0"):
        pairs[f"Rprec({inner}mult={mult})"] = f"Rprec_mult_{mult}0"
    for recall in RECALL_LEVELS:
        pairs[f"IPrec{rel}@{float(recall)}"] = f"iprec_at_recall_{recall}"
    for k in CUTOFFS:
        pairs.update(
            {
                f"P{rel}@{k}": f"P_{k}",
                f"R{rel}@{k}": f"recall_{k}",
                f"AP{rel}@{k}": f"map_cut_{k}",
                f"nDCG@{k}": f"ndcg_cut_{k}",
                f"Success{rel}@{k}": f"success_{k}",
            }
        )
    return pairs


def _trec_eval(run: pd.DataFrame, qrels: pd.DataFrame, measures, level: int) -> dict:
    run_dict, qrels_dict = to_trec_dicts(run, qrels)
    evaluator = pytrec_eval.RelevanceEvaluator(qrels_dict, measures, relevance_level=level)
    return evaluator.evaluate(run_dict)


def _compare(ours: pd.DataFrame, expected: dict, pairs: dict[str, str]) -> list[str]:
    """Mismatches beyond 1e-9. Where trec_eval divides 0 by 0 (set measures and
    iprec_at_recall_0.00 when -J leaves a query nothing retrieved) it reports NaN;
    pdireval deliberately reports 0 there, as for any query that retrieved nothing."""
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
def test_retrieved_policy_equals_plain_trec_eval(seed: int, level: int) -> None:
    run, qrels = adversarial_case(seed)
    expected = _trec_eval(run, qrels, TREC_MEASURES, level)
    pairs = _pairs(level)
    ours = pdireval.evaluate(pdireval.merge_qrels(run, qrels), list(pairs), queries="retrieved")
    assert sorted(ours.index) == sorted(expected)
    assert _compare(ours, expected, pairs) == []


@pytest.mark.parametrize("level", [1, 2])
@pytest.mark.parametrize("seed", range(12))
def test_judged_policy_equals_trec_eval_c(seed: int, level: int) -> None:
    """``trec_eval -c``: judged queries without retrieved documents score 0."""
    run, qrels = adversarial_case(seed)
    pairs = _pairs(level)
    ours = pdireval.evaluate(pdireval.merge_qrels(run, qrels), list(pairs))
    judged = set(qrels["query"])
    assert set(ours.index) == judged
    expected = _trec_eval(run, qrels, TREC_MEASURES, level)
    unretrieved = judged - set(expected)
    assert unretrieved, "the generator should produce judged queries without retrieved docs"
    num_rel = qrels[qrels["rel"] >= level].groupby("query").size()
    for query in unretrieved:
        expected[query] = {key: 0.0 for key in pairs.values()}
        expected[query]["num_rel"] = float(num_rel.get(query, 0))
    assert _compare(ours, expected, pairs) == []


@pytest.mark.parametrize("k", CUTOFFS)
@pytest.mark.parametrize("seed", range(6))
def test_rr_at_k_equals_recip_rank_of_truncated_run(seed: int, k: int) -> None:
    run, qrels = adversarial_case(seed)
    expected = _trec_eval(truncate(run, k), qrels, {"recip_rank"}, 1)
    ours = pdireval.evaluate(pdireval.merge_qrels(run, qrels), f"RR@{k}", queries="retrieved")
    assert _compare(ours, expected, {f"RR@{k}": "recip_rank"}) == []


@pytest.mark.parametrize("seed", range(6))
def test_rank_column_gives_the_same_values_as_scores(seed: int) -> None:
    """Ranking by a rank column that encodes trec_eval's order changes nothing."""
    run, qrels = adversarial_case(seed)
    ranked = truncate(run, 10_000)
    ranked = ranked.assign(rank=ranked.groupby("query").cumcount() + 1).drop(columns="score")
    metrics = list(_pairs(1))
    by_score = pdireval.evaluate(pdireval.merge_qrels(run, qrels), metrics)
    by_rank = pdireval.evaluate(pdireval.merge_qrels(ranked, qrels), metrics)
    pd.testing.assert_frame_equal(by_score, by_rank)


@pytest.mark.parametrize("max_rank", [1, 3, 10])
@pytest.mark.parametrize("seed", range(4))
def test_max_rank_equals_trec_eval_on_the_truncated_run(seed: int, max_rank: int) -> None:
    """``max_rank=n`` is trec_eval -M n: the top n of each ranking, by trec_eval's order."""
    run, qrels = adversarial_case(seed)
    pairs = _pairs(1)
    expected = _trec_eval(truncate(run, max_rank), qrels, TREC_MEASURES, 1)
    merged = pdireval.merge_qrels(run, qrels)
    ours = pdireval.evaluate(merged, list(pairs), queries="retrieved", max_rank=max_rank)
    assert _compare(ours, expected, pairs) == []


@pytest.mark.parametrize("seed", range(8))
def test_run_ordered_input_with_ties_in_any_order(seed: int) -> None:
    """Rows already grouped by query in score order (ties in random order): the sort-free path."""
    run, qrels = adversarial_case(seed)
    shuffled = run.sample(frac=1, random_state=seed)
    ordered = shuffled.sort_values(["query", "score"], ascending=[True, False], kind="stable")
    expected = _trec_eval(run, qrels, TREC_MEASURES, 1)
    pairs = _pairs(1)
    ours = pdireval.evaluate(pdireval.merge_qrels(ordered, qrels), list(pairs), queries="retrieved")
    assert _compare(ours, expected, pairs) == []


@pytest.mark.parametrize("level", [1, 2])
@pytest.mark.parametrize("seed", range(6))
def test_judged_only_equals_trec_eval_J(seed: int, level: int) -> None:
    """``judged_only=True`` is trec_eval -J: unjudged (and negatively labelled) docs dropped."""
    run, qrels = adversarial_case(seed)
    pairs = _pairs(level)
    run_dict, qrels_dict = to_trec_dicts(run, qrels)
    evaluator = pytrec_eval.RelevanceEvaluator(
        qrels_dict, TREC_MEASURES, relevance_level=level, judged_docs_only_flag=True
    )
    expected = evaluator.evaluate(run_dict)
    merged = pdireval.merge_qrels(run, qrels)
    ours = pdireval.evaluate(merged, list(pairs), queries="retrieved", judged_only=True)
    assert _compare(ours, expected, pairs) == []


@pytest.mark.parametrize("beta", [0.5, 2.0, 3.0])
@pytest.mark.parametrize("seed", range(4))
def test_set_f_beta_is_trec_eval_set_f_of_beta_squared(seed: int, beta: float) -> None:
    """SetF(beta=b) takes the beta of the notes; trec_eval's set_F.x takes x = b**2."""
    run, qrels = adversarial_case(seed)
    expected = _trec_eval(run, qrels, {f"set_F.{beta * beta}"}, 1)
    label = f"SetF(beta={beta})"
    ours = pdireval.evaluate(pdireval.merge_qrels(run, qrels), label, queries="retrieved")
    assert _compare(ours, expected, {label: "set_F"}) == []
    alpha = 1 / (1 + beta * beta)
    by_alpha = pdireval.evaluate(pdireval.merge_qrels(run, qrels), f"SetF(alpha={alpha})")
    np.testing.assert_allclose(
        by_alpha.iloc[:, 0].to_numpy(),
        pdireval.evaluate(pdireval.merge_qrels(run, qrels), label).iloc[:, 0].to_numpy(),
        rtol=0,
        atol=1e-12,
    )
