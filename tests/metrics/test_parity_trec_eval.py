"""Parity with trec_eval 9.0.8 (pytrec-eval-terrier) to 1e-9 on adversarial data.

The measures compared are the ones the metric families declare (``Family.trec_eval``):
a family that declares a trec_eval name is checked against it here, under the default
query policy, -c, -J and -M, at relevance levels 1 and 2.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from adversarial import CUTOFFS, adversarial_case, to_trec_dicts, truncate

import pdireval
from pdireval.metrics import REGISTRY, Metric
from pdireval.metrics._base import TrecMeasure

pytrec_eval = pytest.importorskip("pytrec_eval")

CUTS = ",".join(map(str, CUTOFFS))


def _declared() -> list[TrecMeasure]:
    """Every trec_eval measure the metric families declare that pytrec_eval computes (the
    others -- yaap and trec_eval 10's -- are compared with the programs themselves in
    test_trec_eval_measures.py), but the geometric means (per query they are their
    arithmetic measure: gm_map is map)."""
    return [
        measure
        for family in REGISTRY.values()
        for measure in family.trec_eval
        if measure.summary != "gmean" and measure.name in pytrec_eval.supported_measures
    ]


#: what pytrec_eval is asked for: every declared measure, cutoffs at the test's CUTOFFS
TREC_MEASURES = {f"{m.name}.{CUTS}" if m.parameter == "cutoffs" else m.name for m in _declared()}


def _at_level(metric: Metric, level: int) -> Metric:
    params = tuple((name, level if name == "rel" else value) for name, value in metric.params)
    return Metric(metric.family, params, metric.k)


def _pairs(level: int) -> dict[str, str]:
    """pdireval metric label -> trec_eval result key, derived from the registry."""
    pairs = {}
    for measure in _declared():
        values = CUTOFFS if measure.parameter == "cutoffs" else measure.defaults or (None,)
        for value in values:
            metric = pdireval.parse_metric(measure.metric_name(value))
            if measure.leveled and "rel" in metric.family.params:
                metric = _at_level(metric, level)
            pairs[metric.label] = measure.key(value)
    return pairs


def test_every_declared_measure_is_compared() -> None:
    """The comparison covers the whole registry's trec_eval names, and nothing else."""
    keys = set(_pairs(1).values())
    assert {"map", "P_5", "ndcg_cut_20", "iprec_at_recall_0.50", "Rprec_mult_0.20"} <= keys
    assert {"infAP", "utility", "G", "binG", "ndcg_rel", "Rndcg", "set_F", "11pt_avg"} <= keys
    assert len(_declared()) == 29


def _rndcg_at_level(expected: dict, ours: pd.DataFrame, qrels: pd.DataFrame, level: int) -> None:
    """trec_eval's Rndcg uses every gain whatever -l, except that a query without a document
    at the relevance level scores 0. pdireval's Rndcg (rel=1) is the same measure; check
    trec_eval's 0 on those queries, then leave them out of the comparison."""
    reaching = set(qrels.loc[qrels["rel"] >= level, "query"].astype(str))
    for query, values in expected.items():
        if query not in reaching:
            assert values["Rndcg"] == 0.0
            values["Rndcg"] = ours.loc[query, "Rndcg"]


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
    _rndcg_at_level(expected, ours, qrels, level)
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
    _rndcg_at_level(expected, ours, qrels, level)
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
    _rndcg_at_level(expected, ours, qrels, level)
    assert _compare(ours, expected, pairs) == []


@pytest.mark.parametrize("x", [0.25, 4.0, 9.0])
@pytest.mark.parametrize("seed", range(4))
def test_set_f_beta_is_trec_eval_set_f_x(seed: int, x: float) -> None:
    """SetF(beta=x) is trec_eval's set_F.x (as in ir_measures); the textbook F_beta is
    SetF(fbeta=b) with x = b**2, and alpha = 1 / (1 + x) gives it too."""
    run, qrels = adversarial_case(seed)
    expected = _trec_eval(run, qrels, {f"set_F.{x}"}, 1)
    merged = pdireval.merge_qrels(run, qrels)
    label = f"SetF(beta={x})"
    ours = pdireval.evaluate(merged, label, queries="retrieved")
    assert _compare(ours, expected, {label: "set_F"}) == []
    same = [f"SetF(fbeta={x**0.5})", f"SetF(alpha={1 / (1 + x)})"]
    for other in same:
        np.testing.assert_allclose(
            pdireval.evaluate(merged, other).iloc[:, 0].to_numpy(),
            pdireval.evaluate(merged, label).iloc[:, 0].to_numpy(),
            rtol=0,
            atol=1e-12,
        )


@pytest.mark.parametrize("k", [1, 3, 5, 10])
@pytest.mark.parametrize("seed", range(6))
def test_ndcg_rel_at_k_is_ndcg_rel_of_the_top_k(seed: int, k: int) -> None:
    """``nDCG(rel_only=True)@k`` is ndcg_rel of the ranking cut at k (trec_eval -M k)."""
    run, qrels = adversarial_case(seed)
    expected = _trec_eval(truncate(run, k), qrels, {"ndcg_rel"}, 1)
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
