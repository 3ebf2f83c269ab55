"""Compat, NERR8..NERR11, Accuracy and R_cap: ir_measures' (and BEIR's) numbers.

ir_measures (0.4.3) computes ``Compat`` and ``Accuracy`` with its own Python code and
the NERR family through ``cwl_eval``; BEIR's capped recall is transcribed below from
its ``recall_cap`` (BEIR itself pulls in torch and is not installed here). The data is
the adversarial generator's -- tied scores, unjudged and unretrieved documents, queries
without relevant documents, negative and graded labels -- and hypothesis frames. Every
tool breaks ties in its own way (ir_measures and BEIR keep the input order, its
``Compat`` sorts doc ids ascending, pdireval takes trec_eval's doc id descending), which
is a question of the ranking, not of the measure: each tool is handed the ranking
pdireval evaluates, as distinct positive scores.
"""

from __future__ import annotations

import logging
import math
from typing import Any

import pandas as pd
import pytest
from adversarial import adversarial_case
from hypothesis import HealthCheck, given, settings
from strategies import long_frames

import pdireval
from pdireval import MetricError, parse_metric
from pdireval.metrics import REGISTRY, Compat, RelP
from pdireval.metrics.cwl import RESIDUALS, VALUES

ir_measures = pytest.importorskip("ir_measures")
pytest.importorskip("cwl")

TOLERANCE = 1e-9

COMPAT = ["Compat", "Compat(p=0.8)", "Compat(normalize=False)", "Compat(p=0.5,normalize=False)"]
NERR = [
    "NERR8(max_rel=3)@1", "NERR8(max_rel=3)@5", "NERR8(max_rel=3)@2000",
    "NERR8(min_rel=1,max_rel=2)@10", "NERR9(max_rel=3)@1", "NERR9(max_rel=3)@10",
    "NERR9(max_rel=1)@3", "NERR10(max_rel=3)", "NERR10(min_rel=1,max_rel=3,p=0.5)",
    "NERR10(max_rel=1,p=0.99)", "NERR11(max_rel=3)", "NERR11(T=2.5,max_rel=3)",
    "NERR11(T=0.5,min_rel=2,max_rel=3)",
]  # fmt: skip
ACCURACY = ["Accuracy", "Accuracy@1", "Accuracy@5", "Accuracy(rel=2)", "Accuracy(rel=0)@10"]
#: ir_measures' parser refuses negative numbers; its measure objects take them
OBJECTS = {
    "NERR8(min_rel=-1,max_rel=3)@5": lambda: ir_measures.NERR8(min_rel=-1, max_rel=3, cutoff=5),
}


@pytest.fixture(autouse=True)
def _quiet_cwl_eval():
    """ir_measures' cwl_eval bridge warns whenever labels fall outside [min_rel, max_rel]."""
    logger = logging.getLogger("ir_measures.cwl_eval")
    level = logger.level
    logger.setLevel(logging.ERROR)
    yield
    logger.setLevel(level)


# --------------------------------------------------------------------------- the bridge


def _ordered(frame: pd.DataFrame) -> pd.DataFrame:
    """The retrieved rows of a long frame in pdireval's order (rank, or score descending
    with ties by doc id descending as text), each scored n..1 inside its query."""
    retrieved = frame.dropna(subset=["rank" if "rank" in frame.columns else "score"]).copy()
    retrieved["text"] = retrieved["doc"].astype(str)
    if "rank" in frame.columns:
        retrieved = retrieved.sort_values(["rank"], kind="stable")
    else:
        retrieved = retrieved.sort_values("text", ascending=False, kind="stable")
        retrieved = retrieved.sort_values("score", ascending=False, kind="stable")
    retrieved["query_id"] = retrieved["query"].astype(str)
    retrieved = retrieved.sort_values("query_id", kind="stable")  # cwl_eval reads blocks
    position = retrieved.groupby("query_id", sort=False).cumcount()
    size = retrieved.groupby("query_id", sort=False)["doc"].transform("size")
    return pd.DataFrame(
        {
            "query_id": retrieved["query_id"],
            "doc_id": retrieved["text"],
            "score": (size - position).astype(float),
        }
    )


def _qrels(frame: pd.DataFrame) -> pd.DataFrame:
    judged = frame.dropna(subset=["rel"])
    return pd.DataFrame(
        {
            "query_id": judged["query"].astype(str),
            "doc_id": judged["doc"].astype(str),
            "relevance": judged["rel"].astype("int64"),
        }
    )


def _measure(name: str) -> Any:
    return OBJECTS[name]() if name in OBJECTS else ir_measures.parse_measure(name)


def _theirs(name: str, run: pd.DataFrame, qrels: pd.DataFrame) -> dict[str, float]:
    """ir_measures' value per query; for Accuracy one query at a time, NaN where it
    gives none (no relevant document retrieved) or fails (nothing non-relevant)."""
    measure = _measure(name)
    if not name.startswith("Accuracy"):
        return {m.query_id: float(m.value) for m in ir_measures.iter_calc([measure], qrels, run)}
    out = {}
    for query in sorted(set(qrels["query_id"])):
        part = run[run["query_id"] == query]
        try:
            values = [
                m.value
                for m in ir_measures.iter_calc([measure], qrels[qrels["query_id"] == query], part)
            ]
        except ZeroDivisionError:  # every document of the top k is relevant
            values = []
        out[query] = float(values[0]) if values else math.nan
    return out


def _mismatches(name: str, frame: pd.DataFrame) -> list[tuple[str, float, float]]:
    theirs = _theirs(name, _ordered(frame), _qrels(frame))
    ours = pdireval.evaluate(frame, name)
    values = {str(query): value for query, value in ours.iloc[:, 0].items()}
    found = []
    for query, value in theirs.items():
        mine = values.get(query, math.nan if math.isnan(value) else 0.0)
        same = (math.isnan(value) and math.isnan(mine)) or abs(mine - value) <= TOLERANCE
        if not same:
            found.append((query, mine, value))
    return found


def _adversarial(seed: int) -> pd.DataFrame:
    run, qrels = adversarial_case(seed)
    return pdireval.merge_qrels(run, qrels)


# --------------------------------------------------------------------------- parity


@pytest.mark.parametrize("seed", range(3))
@pytest.mark.parametrize("name", COMPAT + NERR + ACCURACY + list(OBJECTS))
def test_adversarial_runs_give_ir_measures_numbers(name: str, seed: int) -> None:
    assert _mismatches(name, _adversarial(seed)) == []


def _cwl_eval_values(name: str, frame: pd.DataFrame) -> dict[str, list[float]]:
    """cwl_eval's five C/W/L values and their residuals per query, from the gains and the
    1000-position rankings ir_measures hands it."""
    from cwl.ruler.ranking import RankingMaker
    from ir_measures.providers.cwl_eval import IrmQrelHandler

    measure = ir_measures.parse_measure(name)
    handler = IrmQrelHandler(None, measure["min_rel"], measure["max_rel"])
    for query, doc, rel in _qrels(frame).itertuples(index=False):
        handler.put_value(query, doc, max(rel, 0))  # ir_measures reads negative labels as 0
    convert = ir_measures.cwl_eval._evaluator([measure], []).__class__._irm_convert_to_measure
    out = {}
    judged = set(_qrels(frame)["query_id"])
    for query, docs in _ordered(frame).groupby("query_id", sort=False):
        if query not in judged:  # ir_measures skips it; pdireval's queries="judged" too
            continue
        maker = RankingMaker(query, handler, None, 1.0, 0.0, 1.0, 1.0, max_n=1000)
        for doc in docs["doc_id"]:
            maker.add(doc, "_")
        metric = convert(None, measure)
        metric.residuals = True
        metric.measure(maker.get_ranking())
        out[query] = [float(x) for x in metric.get_scores()] + [
            float(metric.residual_expected_utility),
            float(metric.residual_expected_total_utility),
            float(metric.residual_expected_cost),
            float(metric.residual_expected_total_cost),
            float(metric.residual_expected_items),
        ]
    return out


@pytest.mark.parametrize("seed", range(2))
@pytest.mark.parametrize(
    "name", ["NERR8(max_rel=3)@5", "NERR9(max_rel=3)@10", "NERR10(max_rel=3)", "NERR11(max_rel=3)"]
)
def test_nerr_values_and_residuals_are_cwl_evals(name: str, seed: int) -> None:
    """Every C/W/L value (value=) and residual of the NERR family, against cwl_eval."""
    frame = _adversarial(seed)
    expected = _cwl_eval_values(name, frame)
    base = parse_metric(name)
    metrics = [
        base.family(**{**base.parameters, "value": value}).at(base.k) if base.k else
        base.family(**{**base.parameters, "value": value})
        for value in (*VALUES, *RESIDUALS)
    ]  # fmt: skip
    ours = pdireval.evaluate(frame, metrics)
    ours.index = ours.index.map(str)
    assert expected
    for query, values in expected.items():
        got = ours.loc[query, [m.label for m in metrics]].tolist()
        assert got == pytest.approx(values, rel=1e-9, abs=1e-12), query


def test_the_adversarial_runs_hold_the_hard_cases() -> None:
    """Ties, unjudged, negative and graded labels, queries without relevant documents,
    and Accuracy's undefined cases (nothing relevant, nothing non-relevant, in the top k)."""
    frame = _adversarial(0)
    assert frame.duplicated(["query", "score"]).any()
    assert frame["rel"].isna().any()
    assert (frame["rel"] < 0).any()
    assert (frame["rel"] >= 2).any()
    values = pdireval.evaluate(frame, ["NumRel", "Accuracy@1", "Accuracy", "Compat"])
    assert (values["NumRel"] == 0).any()
    assert values["Accuracy"].isna().any()
    assert values["Accuracy"].notna().any()
    assert values["Accuracy@1"].isna().all()  # one document: never a pair
    assert ((values["Compat"] > 0) & (values["Compat"] < 1)).any()


@pytest.mark.parametrize("name", COMPAT + NERR + ACCURACY)
@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(frame=long_frames(runs=False, max_queries=4, max_docs=12))
def test_hypothesis_frames_give_ir_measures_numbers(frame: pd.DataFrame, name: str) -> None:
    assert _mismatches(name, frame) == []


@pytest.mark.parametrize(
    "name",
    ["Compat", "Compat(p=0.8, normalize=False)", "NERR8(max_rel=3)@10", "NERR9(max_rel=3)@5",
     "NERR10(max_rel=3)", "NERR10(p=0.5, max_rel=2)", "NERR11(T=2.0, max_rel=3)", "Accuracy",
     "Accuracy@10", "Accuracy(rel=2)@5"],
)  # fmt: skip
def test_ir_measures_names_parse_to_the_same_parameters(name: str) -> None:
    theirs = ir_measures.parse_measure(name)
    ours = parse_metric(name)
    assert ours.family.name == theirs.NAME
    params = dict(theirs.params)
    assert ours.k == params.pop("cutoff", None)
    for key, value in params.items():
        assert ours.parameters[key] == value, key


# --------------------------------------------------------------------------- by hand


def _one_query(ranking: list[float | None], unretrieved: list[float] = ()) -> pd.DataFrame:
    docs = [f"d{i}" for i in range(len(ranking) + len(unretrieved))]
    return pd.DataFrame(
        {
            "query": "q",
            "doc": docs,
            "rank": [*range(1, len(ranking) + 1), *[None] * len(unretrieved)],
            "rel": [*ranking, *unretrieved],
        }
    )


def test_compat_by_hand() -> None:
    # run: 0, 2, 1, unjudged; not retrieved: 2. Ideal: the 2 retrieved (place 2), the other
    # 2, the 1. D = max(4, 3) = 4; overlaps at depths 1..4: 0, 1, 2, 2.
    frame = _one_query([0, 2, 1, None], [2])
    p = 0.95
    weights = [p**i for i in range(4)]
    overlap = weights[1] * 1 / 2 + weights[2] * 2 / 3 + weights[3] * 2 / 4
    ideal = weights[0] + weights[1] + weights[2] + weights[3] * 3 / 4
    values = pdireval.evaluate(frame, ["Compat", "Compat(normalize=False)"]).iloc[0]
    assert values["Compat"] == pytest.approx(overlap / ideal, abs=1e-15)
    assert values["Compat(normalize=False)"] == pytest.approx(overlap / sum(weights), abs=1e-15)


def test_compat_ideal_ties_follow_the_run() -> None:
    """Equally relevant documents in the run's order are ideal, before the rest."""
    for ranking in ([1, 1, 1, 0], [1, 1, 1, 0, None], [2, 1, 1, 0]):
        value = pdireval.evaluate(_one_query(ranking), "Compat").iloc[0, 0]
        assert value == pytest.approx(1.0, abs=1e-15)
    # An equally relevant document not retrieved comes after the retrieved one: the
    # overlaps at depths 1 and 2 are 1 and 1 (0 and 1 the other way round).
    p = 0.95
    value = pdireval.evaluate(_one_query([1], [1]), "Compat").iloc[0, 0]
    assert value == pytest.approx((1 + p / 2) / (1 + p), abs=1e-15)
    assert pdireval.evaluate(_one_query([0, 0]), ["Compat"]).iloc[0, 0] == 0.0  # no relevant


def test_nerr_by_hand() -> None:
    # gains 1/3, 0, 1 (labels 1, 0, 3 of max_rel=3)
    frame = _one_query([1, 0, 3])
    names = ["NERR8(max_rel=3)@2", "NERR9(max_rel=3)@3", "NERR10(max_rel=3)", "NERR11(max_rel=3)"]
    values = pdireval.evaluate(frame, names).iloc[0]
    # NERR8@2: C = 2/3, 0; reach 1, 2/3
    assert values[names[0]] == pytest.approx((1 / 3) / (5 / 3), abs=1e-15)
    # NERR9@3: C = 1/2 * 2/3, 2/3 * 1, 0; reach 1, 1/3, 2/9
    assert values[names[1]] == pytest.approx((1 / 3 + 2 / 9) / (14 / 9), abs=1e-15)
    # NERR10: C = 0.6, 0.9, 0 -> reach 1, 0.6, 0.54, then 0
    assert values[names[2]] == pytest.approx((1 / 3 + 0.54) / 2.14, abs=1e-15)
    # NERR11 (T=1): f(i) = ((i+1)/(i+2))^2 -> reach 1, 8/27, 1/6
    assert values[names[3]] == pytest.approx(0.5 / (1 + 8 / 27 + 1 / 6), abs=1e-15)


def test_nerr_without_gain_reads_to_the_depth() -> None:
    frame = _one_query([0, None])
    values = pdireval.evaluate(
        frame, ["NERR8(value='ED')@7", "NERR10(value='ED')@20", "NERR10(value='ED')"]
    ).iloc[0]
    assert values.tolist() == pytest.approx([7, (1 - 0.9**20) / 0.1, (1 - 0.9**1000) / 0.1])


def test_nerr_parameters_are_checked() -> None:
    with pytest.raises(MetricError, match="min_rel=3 must be below max_rel=3"):
        parse_metric("NERR10(min_rel=3, max_rel=3)")
    with pytest.raises(MetricError, match="whole number"):
        parse_metric("NERR10(max_rel=2.5)")
    with pytest.raises(MetricError, match="needs a cutoff"):
        parse_metric("NERR8(max_rel=3)")
    assert parse_metric("NERR10@10").k == 10  # the model's depth, as pdireval's C/W/L


def test_accuracy_by_hand() -> None:
    # relevant at 1 and 4; non-relevant at 2 (label 0) and 3 (unjudged): pairs 4, misordered 2
    frame = _one_query([1, 0, None, 2], [1])
    values = pdireval.evaluate(frame, ["Accuracy", "Accuracy@2", "Accuracy(rel=2)"]).iloc[0]
    assert values.tolist() == [0.5, 1.0, 0.0]
    # rel=0: the unjudged document counts as label 0, relevant; the -1s do not: relevant
    # at 2 and 3, one non-relevant above each, 2 of 6 pairs misordered
    frame = _one_query([-1, None, 0, -1, -1])
    assert pdireval.evaluate(frame, "Accuracy(rel=0)").iloc[0, 0] == pytest.approx(2 / 3)
    # no pair: nothing relevant, or nothing non-relevant
    frame = _one_query([1, 2])
    values = pdireval.evaluate(frame, ["Accuracy", "Accuracy(rel=3)"]).iloc[0]
    assert values.isna().all()


# --------------------------------------------------------------------------- R_cap


def _beir_recall_cap(qrels: dict, results: dict, k_values: list[int]) -> dict[str, list[float]]:
    """BEIR's recall_cap (beir/retrieval/custom_metrics.py), per query instead of the
    rounded mean; it divides by zero for a query without relevant documents."""
    capped_recall: dict[str, list[float]] = {f"R_cap@{k}": [] for k in k_values}
    k_max = max(k_values)
    for query_id, doc_scores in results.items():
        top_hits = sorted(doc_scores.items(), key=lambda item: item[1], reverse=True)[0:k_max]
        query_relevant_docs = [d for d in qrels[query_id] if qrels[query_id][d] > 0]
        for k in k_values:
            retrieved_docs = [row[0] for row in top_hits[0:k] if qrels[query_id].get(row[0], 0) > 0]
            denominator = min(len(query_relevant_docs), k)
            capped_recall[f"R_cap@{k}"].append(len(retrieved_docs) / denominator)
    return capped_recall


@pytest.mark.parametrize("seed", range(4))
def test_r_cap_is_beirs_capped_recall(seed: int) -> None:
    run, qrels = adversarial_case(seed)  # tied scores: BEIR keeps the order it is given
    frame = pdireval.merge_qrels(run, qrels)
    ordered = _ordered(frame)
    judged = _qrels(frame)
    qrels_dict: dict = {}
    for query, doc, rel in judged.itertuples(index=False):
        qrels_dict.setdefault(query, {})[doc] = int(rel)
    relevant = {q for q, docs in qrels_dict.items() if max(docs.values()) > 0}
    results: dict = {}
    for query, doc, _ in ordered.itertuples(index=False):
        if query in relevant:  # BEIR: ZeroDivisionError for the others
            results.setdefault(query, {})[doc] = 0.0  # every score tied: the given order
    cutoffs = [1, 3, 5, 10, 20]
    beir = _beir_recall_cap(qrels_dict, results, cutoffs)
    ours = pdireval.evaluate(frame, [f"R_cap@{k}" for k in cutoffs])
    assert list(ours.columns) == [f"RelP@{k}" for k in cutoffs]  # an alias: RelP's column
    values = {str(q): row for q, row in ours.iterrows()}
    for k in cutoffs:
        for query, value in zip(results, beir[f"R_cap@{k}"], strict=True):
            assert values[query][f"RelP@{k}"] == pytest.approx(value, abs=TOLERANCE)
    # BEIR fails where no document is relevant; RelP scores that query 0
    without = [q for q in qrels_dict if q not in relevant and q in set(ordered["query_id"])]
    assert without
    with pytest.raises(ZeroDivisionError):
        _beir_recall_cap(qrels_dict, {without[0]: {"x": 1.0}}, [5])
    assert all(values[q]["RelP@5"] == 0.0 for q in without)


def test_r_cap_names_relative_precision() -> None:
    assert parse_metric("R_cap@10") == RelP @ 10
    assert parse_metric("r_cap@3") == parse_metric("relative_P_3")
    assert REGISTRY["Compat"] is Compat


def test_tau_ap_b_exists() -> None:
    """The tie-aware tau_AP (Urbano & Marrero's tau_AP,b) is already pdireval's."""
    assert callable(pdireval.tau_ap_b)
    assert pdireval.tau_ap_b([1, 2, 3], [1, 2, 3]) == pytest.approx(1.0)
