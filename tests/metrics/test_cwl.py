"""C/W/L measures: a plain reference, cwl_eval parity, identities and worked values.

The reference below follows the C/W/L definitions one position at a time (Moffat et
al. 2017; Azzopardi, Thomas & Moffat 2019): the continuation C(i) -- or, for TBG and
U-measure, the weights W(i) -- of each model over exactly ``depth`` positions, then
EU, ETU, EC, ETC and ED from them. The vectorised kernels are checked against it on
hypothesis frames, and both against the ``cwl_eval`` package itself on generated runs.
"""

from __future__ import annotations

import math
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from reference import rankings_of
from strategies import long_frames

import pdireval
from pdireval import MetricError
from pdireval.metrics import REGISTRY, parse_metric
from pdireval.metrics.cwl import RESIDUALS, VALUES

FAMILIES = ("P_CWL", "SDCG", "RBP_CWL", "RR_CWL", "AP_CWL", "INST", "BPM", "TBG", "U", "IFT")
REQUIRED = {"P_CWL", "SDCG"}  # the cutoff is the model's k


# --------------------------------------------------------------------------- the reference


def _continuation(family: str, gains: list[float], costs: list[float], params: dict) -> list[float]:
    depth = len(gains)
    out = []
    gained = spent = 0.0
    for i in range(1, depth + 1):
        gained += gains[i - 1]
        spent += costs[i - 1]
        if family == "P_CWL":
            c = 1.0 if i < depth else 0.0
        elif family == "SDCG":
            c = math.log2(i + 1) / math.log2(i + 2) if i < depth else 0.0
        elif family == "RBP_CWL":
            c = params["p"]
        elif family == "RR_CWL":
            c = 1.0 if gained == 0 else 0.0
        elif family == "AP_CWL":
            here = sum(gains[j - 1] / j for j in range(i, depth + 1))
            below = sum(gains[j - 1] / j for j in range(i + 1, depth + 1))
            c = below / here if below > 0 else 0.0
        elif family == "INST":
            still = params["T"] - gained
            c = ((i + params["T"] + still - 1) / (i + params["T"] + still)) ** 2
        elif family == "BPM":
            c = 1.0 if gained < params["T"] and spent < params["K"] else 0.0
        elif family == "IFT":
            goal = 1 - 1 / (1 + params["b1"] * math.exp((params["T"] - gained) * params["R1"]))
            rate = 1 / (1 + params["b2"] * math.exp((params["A"] - gained / spent) * params["R2"]))
            c = {"goal": goal, "rate": rate, "both": goal * rate}[params["variant"]]
        else:
            raise AssertionError(family)
        out.append(c)
    return out


def _weights(family: str, costs: list[float], params: dict) -> list[float]:
    """Unnormalised W(i) of the models declared by their weights (TBG, U-measure)."""
    before = [sum(costs[: i - 1]) for i in range(1, len(costs) + 1)]
    if family == "TBG":
        return [2.0 ** (-t / params["halflife"]) for t in before]
    weights = [max(0.0, 1.0 - t / params["L"]) for t in before]
    if len(weights) > 1:  # pdireval's choice at depth 1, where cwl_eval divides 0 by 0
        weights[-1] = 0.0
    return weights


def cwl_reference(
    family: str,
    params: dict[str, Any],
    k: int | None,
    ranking: list[Any],
    judged: list[Any] = (),
    best: bool = False,
) -> dict[str, float]:
    """The five C/W/L values of one query, ``ranking`` its labels in rank order and
    ``judged`` all its judged labels; in the ``best`` case a document without a judgment
    (or below the ranking) has gain 1, else 0."""
    depth = 1000 if k is None else k
    least = max(params.get("rel", 1), 0)
    scale = params["max_label"]
    if scale == "query":
        scale = max([label for label in judged if label >= 0], default=0)
    labels = [*ranking[:depth], *[None] * max(0, depth - len(ranking))]
    unknown = 1.0 if best else 0.0
    gains = [
        unknown
        if label is None or math.isnan(label) or label < 0
        else 0.0
        if label < least or scale == 0
        else min(label, scale) / scale
        for label in labels
    ]
    costs = [float(params["cost"])] * depth
    if family in ("TBG", "U"):
        raw = _weights(family, costs, params)
        norm = sum(raw)
        weights = [w / norm for w in raw]
        c = [raw[i + 1] / raw[i] if raw[i] > 0 else 0.0 for i in range(depth - 1)] + [0.0]
        expected_depth = norm / raw[0]
    else:
        c = _continuation(family, gains, costs, params)
        reach = [math.prod(c[:i]) for i in range(depth)]
        weights = [r / sum(reach) for r in reach]
        expected_depth = sum(reach)
    last = [math.prod(c[:i]) * (1 - c[i]) for i in range(depth)]
    total_gain = np.cumsum(gains)
    total_cost = np.cumsum(costs)
    return {
        "EU": sum(w * g for w, g in zip(weights, gains, strict=True)),
        "ETU": sum(p * t for p, t in zip(last, total_gain, strict=True)),
        "EC": sum(w * c for w, c in zip(weights, costs, strict=True)),
        "ETC": sum(p * t for p, t in zip(last, total_cost, strict=True)),
        "ED": expected_depth,
    }


#: One parameter setting per family (non-default where a parameter exists).
SETTINGS = {
    "P_CWL": {},
    "SDCG": {},
    "RBP_CWL": {"p": 0.6},
    "RR_CWL": {},
    "AP_CWL": {},
    "INST": {"T": 2},
    "BPM": {"T": 1.5, "K": 4},
    "TBG": {"halflife": 3},
    "U": {"L": 5},
    "IFT": {"T": 1.5, "b1": 0.8, "R1": 5, "A": 0.3, "b2": 0.7, "R2": 4},
}


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    frame=long_frames(runs=False, max_queries=4, max_docs=10),
    depth=st.sampled_from([1, 2, 3, 7, 12]),
    variant=st.sampled_from(["both", "goal", "rate"]),
    max_label=st.sampled_from([1, 3, "query"]),
    cost=st.sampled_from([1, 0.5, 2.5]),
    rel=st.sampled_from([0, 1, 2]),
)
def test_kernels_agree_with_the_plain_reference(
    frame: pd.DataFrame, depth: int, variant: str, max_label: int | str, cost: float, rel: int
) -> None:
    metrics, expected_specs = [], []
    for family in FAMILIES:
        params = {**SETTINGS[family], "max_label": max_label, "cost": cost, "rel": rel}
        if family == "IFT":
            params["variant"] = variant
        for value in (*VALUES, *RESIDUALS):
            metric = REGISTRY[family](**params, value=value) @ depth
            metrics.append(metric)
            expected_specs.append((metric, family, metric.parameters, value))
    ours = pdireval.evaluate(frame, metrics, queries="retrieved")
    rankings = rankings_of(frame)
    for query, row in ours.iterrows():
        ranking, judged = rankings[query]
        for metric, family, params, value in expected_specs:
            if value in VALUES:
                expected = cwl_reference(family, params, depth, ranking, judged)[value]
            else:
                value = value.removeprefix("Res")
                best = cwl_reference(family, params, depth, ranking, judged, best=True)
                expected = (
                    best[value] - cwl_reference(family, params, depth, ranking, judged)[value]
                )
            got = row[metric.label]
            assert got == pytest.approx(expected, rel=1e-9, abs=1e-12), (query, metric.label)


def test_default_depth_is_1000_and_agrees_with_the_reference() -> None:
    frame = pd.DataFrame(
        {
            "query": ["q1"] * 4 + ["q2"] * 2,
            "doc": ["a", "b", "c", "d", "a", "b"],
            "rank": [1, 2, 3, 4, 1, 2],
            "rel": [0, 1, None, 2, 0, 0],
        }
    )
    for family in FAMILIES:
        if family in REQUIRED:
            continue
        params = {**SETTINGS[family], "max_label": 2}
        metrics = [REGISTRY[family](**params, value=v) for v in VALUES]
        ours = pdireval.evaluate(frame, metrics)
        for query, ranking in (("q1", [0, 1, math.nan, 2]), ("q2", [0, 0])):
            full = cwl_reference(family, metrics[0].parameters, None, ranking)
            got = [ours.loc[query, m.label] for m in metrics]
            assert got == pytest.approx([full[v] for v in VALUES], rel=1e-9), (family, query)


# --------------------------------------------------------------------------- cwl_eval parity

#: pdireval family -> cwl_eval class and its arguments, for SETTINGS and a depth.
CWL_EVAL_CLASSES = {
    "P_CWL": lambda k: ("PrecisionCWLMetric", (k,)),
    "SDCG": lambda k: ("NDCGCWLMetric", (k,)),
    "RBP_CWL": lambda k: ("RBPCWLMetric", (0.6,)),
    "RR_CWL": lambda k: ("RRCWLMetric", ()),
    "AP_CWL": lambda k: ("APCWLMetric", ()),
    "INST": lambda k: ("INSTCWLMetric", (2.0,)),
    "BPM": lambda k: ("BPMCWLMetric", (1.5, 4)),
    "TBG": lambda k: ("TBGCWLMetric", (3,)),
    "U": lambda k: ("UMeasureCWLMetric", (5,)),
    "IFT": lambda k: ("IFTGoalRateCWLMetric", (1.5, 0.8, 5, 0.3, 0.7, 4)),
}


def _generated(seed: int) -> pd.DataFrame:
    """Runs of 1..30 documents over 8 queries: tied scores, labels 0..3, unjudged and
    negatively labelled documents, relevant documents never retrieved, one query without
    a relevant document."""
    rng = np.random.default_rng(seed)
    rows = []
    for q in range(8):
        n = int(rng.integers(1, 31))
        for d in range(n + 5):  # the last five are judged but not retrieved
            label = rng.choice([np.nan, -1, 0, 0, 1, 2, 3], p=[0.2, 0.05, 0.3, 0.15, 0.1, 0.1, 0.1])
            if q == 3:
                label = np.nan if label != label else 0.0  # no relevant document
            score = float(rng.integers(0, 6)) if d < n else np.nan  # few scores: many ties
            if d < n or label == label:  # a row is retrieved, judged or both
                rows.append({"query": f"q{q}", "doc": f"d{d}", "score": score, "rel": label})
    return pd.DataFrame(rows)


def _cwl_eval_values(
    frame: pd.DataFrame, tmp_path: Path, max_label: int, cost: float, depth: int
) -> dict[tuple[str, str], list[float]]:
    """cwl_eval's five values per (query, family), reading its own qrels and cost files."""
    ruler = pytest.importorskip("cwl.ruler.cwl_ruler")
    from cwl.cwl_eval import read_in_cost_file
    from cwl.ruler.ranking import RankingMaker
    from cwl.seeker.trec_qrel_handler import TrecQrelHandler

    judged = frame[frame["rel"] >= 0]  # negative labels: unjudged for cwl_eval too
    qrels = tmp_path / "gains.qrels"
    qrels.write_text(
        "".join(
            f"{q} 0 {d} {min(r, max_label) / max_label!r}\n"
            for q, d, r in judged[["query", "doc", "rel"]].values
        )
    )
    costs = tmp_path / "costs.txt"
    costs.write_text(f"D {cost!r}\n")
    handler = TrecQrelHandler(str(qrels))
    handler.validate_gains(min_gain=0.0, max_gain=1.0)
    cost_table = read_in_cost_file(str(costs))
    out = {}
    retrieved = frame.dropna(subset=["score"])
    # trec_eval's order: score descending, ties by document id descending
    ordered = retrieved.sort_values(["query", "score", "doc"], ascending=[True, False, False])
    for query, docs in ordered.groupby("query", sort=False):
        for family in FAMILIES:
            name, args = CWL_EVAL_CLASSES[family](depth)
            maker = RankingMaker(
                query, handler, cost_table, max_gain=1.0, max_cost=cost, min_cost=cost, max_n=depth
            )
            for doc in docs["doc"]:
                maker.add(doc, "D")
            metric = getattr(ruler, name)(*args)
            metric.residuals = True
            with np.errstate(divide="ignore", invalid="ignore"):  # U-measure at depth 1
                metric.measure(maker.get_ranking())
            residuals = [
                metric.residual_expected_utility,
                metric.residual_expected_total_utility,
                metric.residual_expected_cost,
                metric.residual_expected_total_cost,
                metric.residual_expected_items,
            ]
            out[query, family] = [float(x) for x in [*metric.get_scores(), *residuals]]
    return out


@pytest.mark.parametrize(
    ("seed", "max_label", "cost", "depth"),
    [(1, 1, 1, 1000), (2, 3, 1, 1000), (3, 3, 2.5, 20), (4, 1, 0.5, 5), (5, 3, 1, 1)],
)
def test_parity_with_cwl_eval(
    tmp_path: Path, seed: int, max_label: int, cost: float, depth: int
) -> None:
    frame = _generated(seed)
    expected = _cwl_eval_values(frame, tmp_path, max_label, cost, depth)
    metrics = {
        family: [
            REGISTRY[family](**SETTINGS[family], max_label=max_label, cost=cost, value=v) @ depth
            for v in (*VALUES, *RESIDUALS)
        ]
        for family in FAMILIES
    }
    ours = pdireval.evaluate(frame, [m for ms in metrics.values() for m in ms], queries="all")
    checked = 0
    for (query, family), values in expected.items():
        got = [float(ours.loc[query, m.label]) for m in metrics[family]]
        if family == "U" and depth == 1:  # cwl_eval: no weight anywhere, 0 / 0 (NaN)
            assert np.isnan([values[i] for i in (0, 2, 4, 5, 7, 9)]).all()
            gain = ours.loc[query, metrics["P_CWL"][0].label]  # W(1) = 1 instead
            residual = ours.loc[query, metrics["P_CWL"][5].label]
            values = [gain, values[1], cost, values[3], 1.0, residual, values[6], 0, values[8], 0]
        assert got == pytest.approx(values, rel=1e-9, abs=1e-12), (query, family)
        checked += 1
    assert checked >= 8 * (len(FAMILIES) - 1)


def test_parity_with_the_cwl_eval_command(tmp_path: Path) -> None:
    """The tool end to end: its files, its metric file, its printed table (4 decimals)."""
    pytest.importorskip("cwl")
    command = shutil.which("cwl-eval")
    if command is None:
        pytest.skip("the cwl-eval command is not installed")
    frame = _generated(7)
    judged = frame[frame["rel"] >= 0]
    (tmp_path / "qrels").write_text(
        "".join(f"{q} 0 {d} {r / 3!r}\n" for q, d, r in judged[["query", "doc", "rel"]].values)
    )
    ordered = frame.dropna(subset=["score"]).sort_values(
        ["query", "score", "doc"], ascending=[True, False, False]
    )
    (tmp_path / "run").write_text(
        "".join(
            f"{q} D {d} {i} {s} r\n"
            for i, (q, d, s) in enumerate(ordered[["query", "doc", "score"]].values)
        )
    )
    (tmp_path / "metrics").write_text(
        "INSTCWLMetric(2.0)\nBPMCWLMetric(1.5,4)\nTBGCWLMetric(3)\nUMeasureCWLMetric(5)\n"
        "PrecisionCWLMetric(10)\nNDCGCWLMetric(10)\nRBPCWLMetric(0.6)\nRRCWLMetric()\n"
        "APCWLMetric()\nIFTGoalCWLMetric(2.0, 0.9, 10)\nIFTRateCWLMetric(0.2, 0.9, 10)\n"
        "IFTGoalRateCWLMetric(1.5,0.8,5, 0.3, 0.7, 4)\n"
    )
    printed = subprocess.run(  # the tool writes cwl.log in its working directory
        [sys.executable, command, "qrels", "run", "-m", "metrics"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    names = ["INST(T=2)", "BPM(T=1.5, K=4)", "TBG(halflife=3)", "U(L=5)", "P_CWL@10",
             "SDCG@10", "RBP_CWL(p=0.6)", "RR_CWL", "AP_CWL", "IFT(variant='goal')",
             "IFT(variant='rate')", "IFT(T=1.5, b1=0.8, R1=5, A=0.3, b2=0.7, R2=4)"]  # fmt: skip
    lines = [line.split("\t") for line in printed.splitlines()]
    assert len(lines) == 8 * len(names)
    metrics = [parse_metric(name) for name in names]
    every = [
        m.family(**{**m.parameters, "max_label": 3, "value": v}) for m in metrics for v in VALUES
    ]
    every = [m.at(10) if m.family.name in REQUIRED else m for m in every]
    ours = pdireval.evaluate(frame, every)
    for index, line in enumerate(lines):
        query, numbers = line[0], [float(x) for x in line[2:]]
        mine = every[(index % len(names)) * 5 : (index % len(names)) * 5 + 5]
        got = [round(float(ours.loc[query, m.label]), 4) for m in mine]
        assert got == pytest.approx(numbers, abs=1.5e-4), (query, line[1])


# --------------------------------------------------------------------------- identities


@pytest.fixture
def graded() -> pd.DataFrame:
    return pd.DataFrame(
        {
            "query": ["q1"] * 6 + ["q2"] * 3,
            "doc": ["a", "b", "c", "d", "e", "f", "a", "b", "c"],
            "rank": [1, 2, 3, 4, 5, None, 1, 2, 3],
            "rel": [0, 1, None, 1, 0, 1, 0, 0, 0],
        }
    )


def test_precision_and_reciprocal_rank_are_their_classic_forms(graded: pd.DataFrame) -> None:
    result = pdireval.evaluate(
        graded, ["P_CWL@3", "P@3", "P_CWL(value='ED')@3", "RR_CWL", "RR", "RR_CWL(value='ED')"]
    )
    assert result["P_CWL@3"].tolist() == result["P@3"].tolist()
    assert result["P_CWL(value='ED')@3"].tolist() == [3.0, 3.0]
    assert result["RR_CWL"].tolist() == result["RR"].tolist()
    # q1's first relevant document is at rank 2; q2 has none: the user reads all 1000
    assert result["RR_CWL(value='ED')"].tolist() == [2.0, 1000.0]


def test_rbp_is_rbp_renormalised_over_the_depth(graded: pd.DataFrame) -> None:
    result = pdireval.evaluate(
        graded, ["RBP_CWL(p=0.5)@4", "RBP(p=0.5)@4", "RBP_CWL(p=0.5, value='ED')@4"]
    )
    assert result["RBP_CWL(p=0.5)@4"].tolist() == pytest.approx(
        (result["RBP(p=0.5)@4"] / (1 - 0.5**4)).tolist()
    )
    assert result["RBP_CWL(p=0.5, value='ED')@4"].tolist() == pytest.approx([1.875, 1.875])


def test_tbg_with_equal_costs_is_rbp(graded: pd.DataFrame) -> None:
    """2^(-cost / halflife) = 0.5 per document; ETU and ETC differ: TBG's user stops at
    the depth for sure, RBP's goes on with probability p^depth."""
    for value in ("EU", "EC", "ED"):
        tbg = pdireval.evaluate(graded, f"TBG(halflife=2, cost=2, value='{value}')")
        rbp = pdireval.evaluate(graded, f"RBP_CWL(p=0.5, cost=2, value='{value}')")
        assert tbg.iloc[:, 0].tolist() == pytest.approx(rbp.iloc[:, 0].tolist(), rel=1e-12)


def test_ap_is_trec_ap_when_everything_relevant_is_retrieved() -> None:
    frame = pd.DataFrame(
        {"query": "q", "doc": list("abcde"), "rank": [1, 2, 3, 4, 5], "rel": [1, 0, 1, 0, 1]}
    )
    result = pdireval.evaluate(frame, ["AP_CWL", "AP", "AP_CWL(value='ED')"])
    assert result["AP_CWL"].iloc[0] == pytest.approx(result["AP"].iloc[0])
    # a relevant document unretrieved lowers AP, not AP_CWL (its denominator is retrieved gain)
    more = pd.concat([frame, pd.DataFrame({"query": ["q"], "doc": ["z"], "rel": [1]})])
    again = pdireval.evaluate(more, ["AP_CWL", "AP"])
    assert again["AP_CWL"].iloc[0] == pytest.approx(result["AP_CWL"].iloc[0])
    assert again["AP"].iloc[0] < result["AP"].iloc[0]


def test_scaled_dcg_is_dcg_over_the_sum_of_discounts(graded: pd.DataFrame) -> None:
    result = pdireval.evaluate(graded, ["SDCG@5", "DCG@5"])
    discounts = sum(1 / math.log2(i + 1) for i in range(1, 6))
    assert result["SDCG@5"].tolist() == pytest.approx((result["DCG@5"] / discounts).tolist())


def test_inst_worked_example() -> None:
    """One relevant document (gain 1) at rank 1, T = 1, depth 2: C(1) = ((1+1+0-1)/(1+1+0))^2
    = 1/4 and C(2) = ((2+1+0-1)/(2+1+0))^2 = 4/9; reach (1, 1/4), ED = 5/4, W = (4/5, 1/5),
    EU = 4/5, L = (3/4, 1/4 * 5/9), ETU = 3/4 + 5/36 = 8/9."""
    frame = pd.DataFrame({"query": "q", "doc": ["a", "b"], "rank": [1, 2], "rel": [1, 0]})
    values = [f"INST(value='{v}')@2" for v in VALUES]
    got = pdireval.evaluate(frame, values).iloc[0].tolist()
    assert got == pytest.approx([4 / 5, 8 / 9, 1.0, 3 / 4 + 2 * 5 / 36, 5 / 4])


def test_bpm_stops_at_the_gain_or_the_cost_wanted() -> None:
    frame = pd.DataFrame(
        {"query": "q", "doc": list("abcdef"), "rank": range(1, 7), "rel": [0, 0, 1, 0, 1, 1]}
    )
    wanted = pdireval.evaluate(
        frame,
        ["BPM(T=1, K=10, value='ED')", "BPM(T=2, K=10, value='ED')", "BPM(T=5, K=2, value='ED')"],
    )
    assert wanted.iloc[0].tolist() == [3.0, 5.0, 2.0]


def test_labels_read_as_gains_up_to_max_label() -> None:
    frame = pd.DataFrame(
        {"query": "q", "doc": list("abcd"), "rank": [1, 2, 3, None], "rel": [3, 2, 5, 8]}
    )
    names = ["P_CWL@3", "P_CWL(max_label=4)@3", "P_CWL(rel=3)@3", "P_CWL(max_label='query')@3"]
    result = pdireval.evaluate(frame, names)
    assert result.iloc[0].tolist() == pytest.approx(
        [1.0, (3 / 4 + 2 / 4 + 1) / 3, 2 / 3, (3 / 8 + 2 / 8 + 5 / 8) / 3]
    )


# --------------------------------------------------------------------------- names and errors


@pytest.mark.parametrize(
    ("name", "label"),
    [
        ("inst(T=3)", "INST(T=3)"),
        ("BPM(T=2, K=5)@20", "BPM(T=2, K=5)@20"),
        ("TBG(halflife=224.0)", "TBG"),
        ("u_measure(L=500)", "U(L=500)"),
        ("CWL_nDCG@10", "SDCG@10"),
        ("cwl_p(value='ED')@5", "P_CWL(value='ED')@5"),
        ("RBP_CWL(p=0.8, max_label=3)", "RBP_CWL(max_label=3)"),
    ],
)
def test_names(name: str, label: str) -> None:
    assert parse_metric(name).label == label
    assert parse_metric(label) == parse_metric(name)


@pytest.mark.parametrize(
    ("name", "message"),
    [
        ("P_CWL", "needs a cutoff"),
        ("INST(value='EX')", "must be one of"),
        ("INST(T=0)", "must be > 0"),
        ("RBP_CWL(p=1)", "persistence probability"),
        ("TBG(cost=0)", "must be > 0"),
        ("U(max_label=0)", ">= 1"),
    ],
)
def test_bad_names_are_refused(name: str, message: str) -> None:
    with pytest.raises(MetricError, match=message):
        parse_metric(name)


def test_average_ties_are_refused() -> None:
    frame = pd.DataFrame({"query": "q", "doc": ["a", "b"], "score": [1.0, 1.0], "rel": [1, 0]})
    with pytest.raises(MetricError, match="ties='average' is not available"):
        pdireval.evaluate(frame, "INST", ties="average")


def test_many_queries_go_in_blocks(monkeypatch: pytest.MonkeyPatch) -> None:
    """Blocks of queries give the values of one block."""
    from pdireval.metrics import cwl

    frame = _generated(11)
    metrics = [REGISTRY[f](value=v) @ 9 for f in FAMILIES for v in VALUES]
    whole = pdireval.evaluate(frame, metrics)
    monkeypatch.setattr(cwl, "_BLOCK_CELLS", 20)  # two queries per block at depth 9
    pd.testing.assert_frame_equal(pdireval.evaluate(frame, metrics), whole)
