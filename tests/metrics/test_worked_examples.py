"""The worked examples of the lecture notes (``../shared/seeds/``), with their printed digits.

Each test names the note it comes from. The notes print rounded numbers (2 to 4
decimals); where they *truncate* instead, or where their arithmetic slips, the
comment says so and the test checks what the note's own definition gives.
Expected numbers are the notes' (or exact fractions that the notes' formulas
spell out), never values read off pdireval.
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest

import pdireval
from pdireval.datasets import toy
from pdireval.stats.summary import aggregate

# Note files (../shared/seeds/).
N000 = "000_64c356606c5d8a4b.txt"
N001 = "001_7520d1f2f713b803.txt"
N002 = "002_0700abc891719c11.txt"
N003 = "003_c82c3c208e0419ad.txt"
N004 = "004_68a43309e60df701.txt"


def ranking(
    labels: list[int | None],
    *,
    query: str = "q",
    judged_only: dict | None = None,
    docs: list[str] | None = None,
) -> pd.DataFrame:
    """A long frame for one ranking: labels in rank order, plus judged unretrieved docs."""
    docs = docs or [f"{query}-d{i}" for i in range(1, len(labels) + 1)]
    frame = pd.DataFrame(
        {
            "query": query,
            "doc": docs,
            "rank": range(1, len(labels) + 1),
            "rel": pd.array(labels, dtype="Int64"),
        }
    )
    if judged_only:
        extra = pd.DataFrame(
            {
                "query": query,
                "doc": list(judged_only),
                "rank": pd.array([None] * len(judged_only), dtype="Int64"),
                "rel": pd.array(list(judged_only.values()), dtype="Int64"),
            }
        )
        frame = pd.concat([frame, extra], ignore_index=True)
    return frame


def hits(positions: list[int], depth: int) -> list[int]:
    """Binary labels of a ranking of ``depth`` documents, relevant at ``positions`` (1-based)."""
    return [1 if i in positions else 0 for i in range(1, depth + 1)]


def one(frame: pd.DataFrame, metric: str) -> float:
    table = pdireval.evaluate(frame, metric)
    assert len(table) == 1
    return float(table.iloc[0, 0])


def rounds_to(value: float, printed: float, decimals: int) -> bool:
    """``value`` rounded half-up to ``decimals`` is ``printed`` (what a note's table shows)."""
    return abs(value - printed) <= 0.5 * 10.0**-decimals + 1e-12


def truncates_to(value: float, printed: float, decimals: int) -> bool:
    """``value`` cut (not rounded) to ``decimals`` is ``printed``."""
    scale = 10**decimals
    return math.floor(value * scale + 1e-9) == round(printed * scale)


# --------------------------------------------------------------------------- notes 000 / 001


def test_precision_at_k_000_001() -> None:
    """000/001 "Precision@K": Prec@3 of 2/3, Prec@4 of 2/4, Prec@5 of 3/5."""
    # The ranking is an image in the notes; the AP example's (1/1 + 2/3 + 3/5) places the
    # relevant documents at ranks 1, 3 and 5, which gives exactly these precisions.
    frame = ranking(hits([1, 3, 5], 5))
    assert one(frame, "P@3") == pytest.approx(2 / 3, abs=1e-12)
    assert one(frame, "P@4") == pytest.approx(2 / 4, abs=1e-12)
    assert one(frame, "P@5") == pytest.approx(3 / 5, abs=1e-12)


def test_average_precision_000_001() -> None:
    """000 "Mean Average Precision": (1/3)(1/1 + 2/3 + 3/5) ≈ 0.76 (R = 3)."""
    frame = ranking(hits([1, 3, 5], 5))
    value = one(frame, "AP")
    assert value == pytest.approx((1 / 1 + 2 / 3 + 3 / 5) / 3, abs=1e-12)
    assert rounds_to(value, 0.76, 2)
    # A relevant document that is never retrieved contributes precision 0 (001 "Mean
    # average precision"): a fourth relevant, unretrieved document makes R = 4.
    missed = ranking(hits([1, 3, 5], 5), judged_only={"never-found": 1})
    assert one(missed, "AP") == pytest.approx((1 / 1 + 2 / 3 + 3 / 5) / 4, abs=1e-12)


LECTURE_DCG_LABELS = [3, 2, 3, 0, 0, 1, 2, 2, 3, 0]


def test_dcg_example_000_001() -> None:
    """000/001 "DCG Example": DCG_p = rel_1 + sum_{i>=2} rel_i / log2 i (jarvelin, base 2)."""
    frame = ranking(LECTURE_DCG_LABELS)
    printed_gain = [3, 2, 1.89, 0, 0, 0.39, 0.71, 0.67, 0.95, 0]  # 2 decimals
    printed_dcg = [3, 5, 6.89, 6.89, 6.89, 7.28, 7.99, 8.66, 9.61, 9.61]  # 2 decimals
    metrics = [f"DCG(discount='jarvelin')@{k}" for k in range(1, 11)]
    values = pdireval.evaluate(frame, metrics).iloc[0].to_numpy()
    gains = np.diff(values, prepend=0.0)
    for k in range(10):
        assert rounds_to(values[k], printed_dcg[k], 2), (k + 1, values[k])
        assert rounds_to(gains[k], printed_gain[k], 2), (k + 1, gains[k])
    # The same with the base given explicitly, and without a cutoff (the whole ranking).
    assert one(frame, "DCG(discount='jarvelin', base=2)") == pytest.approx(values[-1], abs=1e-12)


def test_dcg_discounts_000_001() -> None:
    """001 "Discounted Cumulative Gain": with base 2 the discount at rank 4 is 1/2, at 8 1/3."""
    for rank, discount in [(4, 1 / 2), (8, 1 / 3)]:
        frame = ranking([1 if i == rank else 0 for i in range(1, 9)])
        assert one(frame, "DCG(discount='jarvelin')") == pytest.approx(discount, abs=1e-12)


def test_ndcg_example_001() -> None:
    """001 "NDCG - Example": NDCG_GT = 1.00, NDCG_RF1 = 1.00, NDCG_RF2 = 0.9203."""
    truth = {"d4": 2, "d3": 2, "d2": 1, "d1": 0}

    def frame(order: list[str]) -> pd.DataFrame:
        return ranking([truth[doc] for doc in order], docs=order)

    ground_truth = frame(["d4", "d3", "d2", "d1"])
    rf1 = frame(["d3", "d4", "d2", "d1"])
    rf2 = frame(["d3", "d2", "d4", "d1"])
    lecture = "nDCG(discount='jarvelin')"  # the note's DCG: rel_1 + sum rel_i / log2 i
    assert one(ground_truth, lecture) == pytest.approx(1.0, abs=1e-12)
    assert one(rf1, lecture) == pytest.approx(1.0, abs=1e-12)
    assert rounds_to(one(rf2, lecture), 0.9203, 4)
    # It is the lecture discount that gives 0.9203: trec_eval's log2(i + 1) does not
    # (it gives (2 + 1/log2 3 + 2/2) / (2 + 2/log2 3 + 1/2) = 0.9652), nor does gain='exp'.
    expected_log2 = (2 + 1 / math.log2(3) + 2 / 2) / (2 + 2 / math.log2(3) + 1 / 2)
    assert one(rf2, "nDCG") == pytest.approx(expected_log2, abs=1e-12)
    assert not rounds_to(one(rf2, "nDCG"), 0.9203, 4)
    assert not rounds_to(one(rf2, "nDCG(gain='exp')"), 0.9203, 4)


# --------------------------------------------------------------------------- note 004


def test_average_precision_examples_004() -> None:
    """004 "Mean Average Precision": AP = 21/30 = 0.7 and AP = 23/36 ≈ 0.639."""
    # The note's hit tables sit next to the other formula; the formulas themselves say
    # where the hits are: (1/1 + 2/4 + 3/5) -> ranks 1, 4, 5; (1/2 + 2/3 + 3/4) -> 2, 3, 4.
    assert one(ranking(hits([1, 4, 5], 5)), "AP") == pytest.approx(21 / 30, abs=1e-12)
    value = one(ranking(hits([2, 3, 4], 5)), "AP")
    assert value == pytest.approx(23 / 36, abs=1e-12)
    assert rounds_to(value, 0.639, 3)


def test_reciprocal_rank_example_004() -> None:
    """004 "Mean Reciprocal Rank": movies A, B, C recommended, only C liked: RR = 1/3."""
    frame = ranking([0, 0, 1], docs=["A", "B", "C"])
    assert one(frame, "RR") == pytest.approx(1 / 3, abs=1e-12)


# --------------------------------------------------------------------------- note 002

# 002 "Mean Reciprocal Rank (MRR) - An example": the 15 documents of each ranking, with
# the relevant ones (marked with a bullet in the note).
Q1 = [
    "d123",
    "d84",
    "d56",
    "d6",
    "d8",
    "d9",
    "d511",
    "d129",
    "d187",
    "d25",
    "d38",
    "d48",
    "d250",
    "d113",
    "d3",
]
Q1_RELEVANT = {"d123", "d56", "d9", "d25", "d3"}
Q2 = [
    "d425",
    "d87",
    "d56",
    "d32",
    "d124",
    "d615",
    "d512",
    "d129",
    "d4",
    "d130",
    "d193",
    "d715",
    "d810",
    "d5",
    "d3",
]
Q2_RELEVANT = {"d56", "d129", "d3"}


def _mrr_frame() -> pd.DataFrame:
    return pd.concat(
        [
            ranking([int(doc in Q1_RELEVANT) for doc in Q1], query="q1", docs=Q1),
            ranking([int(doc in Q2_RELEVANT) for doc in Q2], query="q2", docs=Q2),
        ],
        ignore_index=True,
    )


def test_mrr_with_rank_threshold_002() -> None:
    """002 MRR example, S_h = 3: RR(q1) = 1, RR(q2) = 0.33, MRR = (1 + 0.33)/2 = 0.67."""
    frame = _mrr_frame()
    per_query = pdireval.evaluate(frame, "RR@3")["RR@3"]
    assert per_query["q1"] == pytest.approx(1.0, abs=1e-12)
    assert per_query["q2"] == pytest.approx(1 / 3, abs=1e-12)
    assert rounds_to(per_query["q2"], 0.33, 2)
    mrr = pdireval.mrr(frame, 3)
    assert mrr == pytest.approx((1 + 1 / 3) / 2, abs=1e-12)
    assert rounds_to(mrr, 0.67, 2)
    assert float(pdireval.summary(frame, "RR@3")["RR@3"]) == pytest.approx(mrr, abs=1e-15)
    # With S_h = 2 the first correct answer of q2 (rank 3) is past the threshold: RR = 0.
    assert pdireval.rr(frame, 2)["q2"] == 0.0


def test_average_precision_of_q1_002() -> None:
    """002 "MAP - An example": MAP_q1 = (1 + 0.66 + 0.5 + 0.4 + 0.33 + 0 x 5) / 10 = 0.28."""
    # R_q1 has 10 relevant documents (002 "Revised Reference Collections"); q1 retrieves
    # five of them, at ranks 1, 3, 6, 10 and 15. The note truncates each precision to two
    # decimals (2/3 -> 0.66, 5/15 -> 0.33) and the result too (0.289 -> 0.28); exactly,
    # AP = (1 + 2/3 + 3/6 + 4/10 + 5/15) / 10 = 0.29.
    r_q1 = ["d3", "d5", "d9", "d25", "d39", "d44", "d56", "d71", "d89", "d123"]
    unretrieved = {doc: 1 for doc in r_q1 if doc not in Q1}
    frame = ranking([int(doc in r_q1) for doc in Q1], query="q1", docs=Q1, judged_only=unretrieved)
    assert one(frame, "NumRel") == 10
    table = pdireval.evaluate(frame, ["AP", "P@1", "P@3", "P@6", "P@10", "P@15"]).iloc[0]
    for label, printed in [("P@1", 1), ("P@3", 0.66), ("P@6", 0.5), ("P@10", 0.4), ("P@15", 0.33)]:
        assert truncates_to(table[label], printed, 2), label
    assert table["AP"] == pytest.approx((1 + 2 / 3 + 3 / 6 + 4 / 10 + 5 / 15) / 10, abs=1e-12)
    assert not truncates_to(table["AP"], 0.28, 2)  # 0.29; the note's 0.28 is 0.289 cut
    assert truncates_to((1 + 0.66 + 0.5 + 0.4 + 0.33) / 10, 0.28, 2)
    # (MAP_q2 = 0.254 in the note averages 10 interpolated precisions, not AP: not covered.)


def test_graded_exercise_002() -> None:
    """002 class exercise: rel 3,2,3,0,1,2, DCG = 13.846, IDCG = 14.588, NDCG = 0.949."""
    # DCG = sum (2^rel - 1) / log2(1 + i); the ideal ordering 3,3,2,2,1,0 of the same six
    # judged documents. The note truncates each term to 3 decimals (1.8928 -> 1.892,
    # 1.0686 -> 1.068), so its DCG 13.846 is 0.002 below the exact 13.848; its IDCG term at
    # rank 4 is printed 1.286 although 3 / 2.322 = 1.292, so its IDCG 14.588 is 0.007 below
    # the exact 14.595. Both ratios round to the printed NDCG 0.949.
    labels = [3, 2, 3, 0, 1, 2]
    frame = ranking(labels)
    ideal = ranking(sorted(labels, reverse=True))
    metrics = [f"DCG(gain='exp')@{k}" for k in range(1, 7)]
    terms = np.diff(pdireval.evaluate(frame, metrics).iloc[0].to_numpy(), prepend=0.0)
    for got, printed in zip(terms, [7, 1.892, 3.5, 0, 0.386, 1.068], strict=True):
        assert truncates_to(got, printed, 3)
    ideal_terms = np.diff(pdireval.evaluate(ideal, metrics).iloc[0].to_numpy(), prepend=0.0)
    for rank, (got, printed) in enumerate(
        zip(ideal_terms, [7, 4.416, 1.5, 1.292, 0.386, 0], strict=True), start=1
    ):
        assert truncates_to(got, printed, 3), rank
    dcg = one(frame, "DCG(gain='exp')")
    idcg = one(ideal, "DCG(gain='exp')")
    assert abs(dcg - 13.846) < 0.003
    assert abs(idcg - 14.588) < 0.01
    ndcg = one(frame, "nDCG(gain='exp')")
    assert ndcg == pytest.approx(dcg / idcg, abs=1e-12)
    assert rounds_to(ndcg, 0.949, 3)
    assert one(frame, "nDCG(gain='exp')@6") == pytest.approx(ndcg, abs=1e-12)
    assert one(ideal, "nDCG(gain='exp')") == pytest.approx(1.0, abs=1e-12)


GMAP_RUNS = {
    "Run 1": [0.05, 0.10, 0.50, 0.50, 0.75],
    "Run 2": [0.10, 0.30, 0.45, 0.45, 0.60],
}


def test_gmap_example_002() -> None:
    """002 "GMAP - example": MAP 0.38 for both runs, GMAP 0.25 (Run 1) and 0.33 (Run 2)."""
    table = pd.DataFrame(GMAP_RUNS, index=pd.Index([f"#{i}" for i in range(1, 6)], name="topic"))
    means = aggregate(table, "mean")
    gmeans = aggregate(table, "gmean")
    for run in GMAP_RUNS:
        assert rounds_to(means[run], 0.38, 2)
        assert gmeans[run] == pytest.approx(math.prod(GMAP_RUNS[run]) ** (1 / 5), rel=1e-12)
    assert rounds_to(gmeans["Run 1"], 0.25, 2)
    assert rounds_to(gmeans["Run 2"], 0.33, 2)

    # The same through the run path: a (run, topic) table with one AP column.
    long = table.stack().rename("AP").to_frame().swaplevel().sort_index()
    long.index.names = ["run", "topic"]
    by_run = aggregate(long, "gmean")
    assert by_run.loc["Run 1", "AP"] == pytest.approx(gmeans["Run 1"], rel=1e-12)
    assert by_run.loc["Run 2", "AP"] == pytest.approx(gmeans["Run 2"], rel=1e-12)


# Rankings whose AP is exactly each value of the GMAP table (R relevant documents):
# 1/20 = 0.05, 1/10 = 0.10, 1/2 = 0.50, (1/1 + 2/4)/2 = 0.75, (1/2 + 2/20)/2 = 0.30,
# (1/2 + 2/5)/2 = 0.45, (1/1 + 2/10)/2 = 0.60.
AP_RANKINGS = {
    0.05: [20],
    0.10: [10],
    0.50: [2],
    0.75: [1, 4],
    0.30: [2, 20],
    0.45: [2, 5],
    0.60: [1, 10],
}


def test_gmap_example_002_end_to_end() -> None:
    """002 GMAP example again, from runs whose per-topic AP are the table's values."""
    parts = []
    for run, values in GMAP_RUNS.items():
        for topic, value in enumerate(values, start=1):
            part = ranking(
                hits(AP_RANKINGS[value], 20),
                query=f"t{topic}",
                docs=[f"t{topic}-{run}-{i}" for i in range(1, 21)],
            )
            parts.append(part.assign(run=run))
    frame = pd.concat(parts, ignore_index=True)
    per_topic = pdireval.ap(frame)
    for run, values in GMAP_RUNS.items():
        np.testing.assert_allclose(per_topic.loc[run].to_numpy(), values, rtol=0, atol=1e-12)
    run_1, run_2 = (frame[frame["run"] == run] for run in GMAP_RUNS)
    assert rounds_to(pdireval.map(run_1), 0.38, 2)
    assert rounds_to(pdireval.map(run_2), 0.38, 2)
    assert rounds_to(pdireval.gmap(run_1), 0.25, 2)
    assert rounds_to(pdireval.gmap(run_2), 0.33, 2)


# --------------------------------------------------------------------------- note 003

# 003 "Ranking Effectiveness": the relevance of rankings A-D read off their precision rows
# (a hit wherever precision@k rises). Topic 1 has 6 relevant documents, topic 2 has 3.
NOTE_003 = {
    "A": ("system1", "topic1", [1, 0, 1, 1, 1, 1, 0, 0, 0, 1]),
    "B": ("system2", "topic1", [0, 1, 0, 0, 1, 1, 1, 0, 1, 1]),
    "C": ("system1", "topic2", [1, 0, 0, 0, 0, 1, 0, 0, 0, 1]),
    "D": ("system2", "topic2", [0, 1, 0, 0, 1, 0, 1, 0, 0, 0]),
}
PRECISION_003 = {
    "A": [1.00, 0.50, 0.67, 0.75, 0.80, 0.83, 0.71, 0.63, 0.56, 0.60],
    "B": [0.00, 0.50, 0.33, 0.25, 0.40, 0.50, 0.57, 0.50, 0.56, 0.60],
    "C": [1.00, 0.50, 0.33, 0.25, 0.20, 0.33, 0.29, 0.25, 0.22, 0.30],
    "D": [0.00, 0.50, 0.33, 0.25, 0.40, 0.33, 0.43, 0.38, 0.33, 0.30],
}
RECALL_003 = {
    "A": [0.17, 0.17, 0.33, 0.50, 0.67, 0.83, 0.83, 0.83, 0.83, 1.00],
    "B": [0.00, 0.17, 0.17, 0.17, 0.33, 0.50, 0.67, 0.67, 0.83, 1.00],
    "C": [0.33, 0.33, 0.33, 0.33, 0.33, 0.66, 0.66, 0.66, 0.66, 1.00],  # 2/3 cut to 0.66
    "D": [0.00, 0.33, 0.33, 0.33, 0.67, 0.67, 1.00, 1.00, 1.00, 1.00],
}
AP_003 = {"A": 0.78, "B": 0.52, "C": 0.54, "D": 0.44}


def _frame_003(name: str) -> pd.DataFrame:
    _, topic, labels = NOTE_003[name]
    return ranking(labels, query=topic)


@pytest.mark.parametrize("name", sorted(NOTE_003))
def test_precision_and_recall_rows_003(name: str) -> None:
    """003 "Precision@k and Recall@k" / "Precision-Recall Curves": the rows of A, B, C, D."""
    frame = _frame_003(name)
    metrics = [f"P@{k}" for k in range(1, 11)] + [f"R@{k}" for k in range(1, 11)]
    values = pdireval.evaluate(frame, metrics).iloc[0]
    for k in range(1, 11):
        assert rounds_to(values[f"P@{k}"], PRECISION_003[name][k - 1], 2), (name, k)
        printed = RECALL_003[name][k - 1]
        if name == "C" and printed == 0.66:  # the note truncates 2/3 in ranking C's row
            assert truncates_to(values[f"R@{k}"], printed, 2), (name, k)
        else:
            assert rounds_to(values[f"R@{k}"], printed, 2), (name, k)
    # "Both have precision = 0.6 and recall = 1.0" (rankings A and B on topic 1, at 10).
    if name in ("A", "B"):
        assert values["P@10"] == pytest.approx(0.6)
        assert values["R@10"] == pytest.approx(1.0)


@pytest.mark.parametrize("name", sorted(NOTE_003))
def test_average_precision_003(name: str) -> None:
    """003 "Average Precision (Alternative 1)" and "MAP": A 0.78, B 0.52, C 0.54, D 0.44."""
    # The note prints C's AP as 0.44 in "The MAP for System 1 ... is (0.78 + 0.44)/2 = 0.66"
    # but computes C: (1.0 + 0.33 + 0.3)/3 = 0.54 right after; 0.54 is C's AP (and the
    # only value that gives the printed MAP 0.66), 0.44 is D's.
    exact = {
        "A": (1 + 2 / 3 + 3 / 4 + 4 / 5 + 5 / 6 + 6 / 10) / 6,
        "B": (1 / 2 + 2 / 5 + 3 / 6 + 4 / 7 + 5 / 9 + 6 / 10) / 6,
        "C": (1 + 2 / 6 + 3 / 10) / 3,
        "D": (1 / 2 + 2 / 5 + 3 / 7) / 3,
    }
    value = one(_frame_003(name), "AP")
    assert value == pytest.approx(exact[name], abs=1e-12)
    assert rounds_to(value, AP_003[name], 2)


def test_mean_average_precision_003() -> None:
    """003 "MAP": system 1 (A, C) 0.66, system 2 (B, D) 0.48."""
    frame = pd.concat(
        [_frame_003(name).assign(run=NOTE_003[name][0]) for name in NOTE_003], ignore_index=True
    )
    result = pdireval.summary(frame, "AP")["AP"]
    assert rounds_to(result["system1"], 0.66, 2)
    assert rounds_to(result["system2"], 0.48, 2)
    assert not rounds_to((0.78 + 0.44) / 2, 0.66, 2)  # the misprinted C value cannot give 0.66


def test_example_frame_holds_the_rankings_of_003() -> None:
    """``pdireval.datasets.toy()`` is note 003's rankings A-D."""
    frame = toy()
    for name, (run, topic, labels) in NOTE_003.items():
        rows = frame[(frame["run"] == run) & (frame["query"] == topic)].sort_values("rank")
        assert rows["rel"].tolist() == labels, name
        assert rows["rank"].tolist() == list(range(1, 11)), name
    ap = pdireval.evaluate(frame, ["AP", "NumRel", "R@10"])
    for name, (run, topic, _) in NOTE_003.items():
        assert rounds_to(ap.loc[(run, topic), "AP"], AP_003[name], 2), name
        assert ap.loc[(run, topic), "NumRel"] == {"topic1": 6, "topic2": 3}[topic]
        assert ap.loc[(run, topic), "R@10"] == 1.0  # every ranking finds all relevant
    result = pdireval.summary(frame, "AP")["AP"]
    assert rounds_to(result["system1"], 0.66, 2)
    assert rounds_to(result["system2"], 0.48, 2)


def test_dcg_and_ndcg_table_003() -> None:
    """003 "Normalized Discounted Cumulative Gain (NDCG)": the DCG@k / DCG*@k / NDCG@k rows."""
    # DCG@k = sum (2^r - 1) / log2(1 + i). The ideal row 3,3,3,2,2,2,1,0,0,0 is the ranking's
    # own labels sorted, so the query's judged documents are exactly the ten retrieved ones.
    frame = ranking(LECTURE_DCG_LABELS)
    ideal = ranking([3, 3, 3, 2, 2, 2, 1, 0, 0, 0])
    printed_dcg = [7.00, 8.89, 12.39, 12.39, 12.39, 12.75, 13.75, 14.70, 16.80, 16.80]
    printed_ideal = [7.00, 11.42, 14.92, 16.21, 17.37, 18.44, 18.77, 18.77, 18.77, 18.77]
    printed_ndcg = [1.00, 0.78, 0.83, 0.76, 0.71, 0.69, 0.73, 0.78, 0.90, 0.90]
    cuts = range(1, 11)
    metrics = [f"DCG(gain='exp')@{k}" for k in cuts] + [f"nDCG(gain='exp')@{k}" for k in cuts]
    ours = pdireval.evaluate(frame, metrics).iloc[0]
    best = pdireval.evaluate(ideal, metrics).iloc[0]
    for k in cuts:
        assert rounds_to(ours[f"DCG(gain='exp')@{k}"], printed_dcg[k - 1], 2), k
        assert rounds_to(best[f"DCG(gain='exp')@{k}"], printed_ideal[k - 1], 2), k
        assert rounds_to(ours[f"nDCG(gain='exp')@{k}"], printed_ndcg[k - 1], 2), k
        assert best[f"nDCG(gain='exp')@{k}"] == pytest.approx(1.0, abs=1e-12)


def test_reciprocal_rank_row_003() -> None:
    """003 "Mean Reciprocal Rank (MRR)": reciprocal rank 1, 0.50, 0.33, ..., 0.10 by rank."""
    printed = [1, 0.50, 0.33, 0.25, 0.20, 0.17, 0.14, 0.13, 0.11, 0.10]  # 1/8 shown as 0.13
    frame = pd.concat(
        [ranking(hits([rank], 10), query=f"r{rank:02d}") for rank in range(1, 11)],
        ignore_index=True,
    )
    rr = pdireval.rr(frame)
    for rank in range(1, 11):
        assert rr[f"r{rank:02d}"] == pytest.approx(1 / rank, abs=1e-12)
        assert rounds_to(rr[f"r{rank:02d}"], printed[rank - 1], 2)
    assert pdireval.mrr(frame) == pytest.approx(sum(1 / r for r in range(1, 11)) / 10)


@pytest.mark.parametrize(
    ("name", "printed", "expected_levels"),
    [
        # A: "(2 * 1.0 + 7 * 0.83 + 2 * 0.6) / 11 = 0.82" -- 0.83 is 5/6 rounded.
        ("A", 0.82, [1.0] * 2 + [5 / 6] * 7 + [0.6] * 2),
        # B: "(11 * 0.6) / 11 = 0.6".
        ("B", 0.6, [0.6] * 11),
    ],
)
def test_eleven_point_interpolated_average_precision_003(
    name: str, printed: float, expected_levels: list[float]
) -> None:
    """003 "Average Precision (Alternative 2)": interpolated precision at 0, 0.1, ..., 1."""
    frame = _frame_003(name)
    levels = [f"IPrec@{level / 10}" for level in range(11)]
    values = pdireval.evaluate(frame, [*levels, "iAP"]).iloc[0]
    np.testing.assert_allclose(values[levels].to_numpy(), expected_levels, rtol=0, atol=1e-12)
    assert rounds_to(values["iAP"], printed, 2)
