"""Hand-computed values of measures, and slow per-query references where a loop is clearer.

Each expected value is counted by hand from the small ranking it comes with (the
comments show the counting): normalised AP@k, CG, F@k, Fallout, Judged@k, RBP and its
residual, ERR, and the trec_eval measures infAP, utility, G, binG, ndcg_rel and Rndcg
(whose parity with trec_eval is in ``test_parity_trec_eval.py``).
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest
from adversarial import adversarial_case

import pdireval
from pdireval import MetricError

LOG2_3 = math.log2(3)


def _ranking(labels: list[float | None], unretrieved: list[int] = ()) -> pd.DataFrame:
    """One query: the labels in rank order (None = unjudged), then unretrieved judged docs."""
    rows = [(f"d{i}", i, label) for i, label in enumerate(labels, start=1)]
    rows += [(f"u{i}", None, label) for i, label in enumerate(unretrieved)]
    frame = pd.DataFrame(rows, columns=["doc", "rank", "rel"]).assign(query="q")
    return frame.astype({"rank": "Float64", "rel": "Float64"})


def _value(frame: pd.DataFrame, metric: str, **options) -> float:
    return float(pdireval.evaluate(frame, metric, **options).iloc[0, 0])


def test_ap_normalised_by_min_k_r() -> None:
    """AP@2 divides by R = 5; note 003's AP_1@2 by min(2, 5) = 2, so a perfect top 2 scores 1."""
    frame = _ranking([1, 1, 0, 1], unretrieved=[1, 1])
    assert _value(frame, "AP@2") == pytest.approx(2 / 5)
    assert _value(frame, "AP(norm='min')@2") == pytest.approx(1.0)
    # Without a cutoff (or with k >= R) both normalisations agree.
    assert _value(frame, "AP(norm='min')") == _value(frame, "AP")
    assert _value(frame, "AP(norm='min')@10") == _value(frame, "AP@10")


def test_cumulative_gain() -> None:
    """CG@k adds the gains of the top k, in any order (notes 001/002): labels 3, 2, 3, 0, 1, 2."""
    frame = _ranking([3, 2, 3, 0, 1, 2])
    assert _value(frame, "CG@3") == 8
    assert _value(frame, "CG") == 11
    assert _value(frame, "CG(gain='exp')@3") == 7 + 3 + 7
    reordered = _ranking([3, 3, 2, 0, 1, 2])
    assert _value(reordered, "CG@3") == _value(frame, "CG@3")
    assert _value(frame, "DCG(discount='none')@4") == _value(frame, "CG@4")


def test_f_at_k() -> None:
    """F@3 of P@3 = 2/3 and R@3 = 1: F1 = 0.8, F2 = (5 * 2/3) / (4 * 2/3 + 1) = 10/11.

    Van Rijsbergen's F_2 is fbeta=2; trec_eval's and ir_measures' beta is the recall
    weight w = fbeta^2 = 4; alpha = 1 / (1 + w) = 0.2."""
    frame = _ranking([1, 0, 1, 0])
    assert _value(frame, "F@3") == pytest.approx(0.8)
    assert _value(frame, "F(fbeta=2)@3") == pytest.approx(10 / 11)
    assert _value(frame, "F(beta=4)@3") == pytest.approx(10 / 11)
    assert _value(frame, "F(alpha=0.2)@3") == pytest.approx(10 / 11)
    assert _value(_ranking([0, 0], unretrieved=[1]), "F@2") == 0.0


def test_fallout() -> None:
    """b / (b + d): 2 non-relevant (one unjudged) of 4 retrieved, 97 non-relevant in all."""
    frame = _ranking([1, 0, None, 1], unretrieved=[1])
    assert _value(frame, "Fallout(n_docs=100)") == pytest.approx(2 / 97)
    assert _value(frame, "Fallout(n_docs=100)@2") == pytest.approx(1 / 97)
    with pytest.raises(MetricError, match=r"Fallout needs the collection size.*n_docs="):
        pdireval.evaluate(frame, "Fallout")


def test_breakeven_is_r_precision() -> None:
    """At rank R precision equals recall: the breakeven point is R-precision."""
    frame = _ranking([1, 0, 1, 1, 0], unretrieved=[1])
    assert pdireval.parse_metric("breakeven") == pdireval.parse_metric("Rprec")
    p_at_r = _value(frame, "P@4")
    assert _value(frame, "Rprec") == p_at_r == _value(frame, "R@4") == 0.75


@pytest.mark.parametrize(
    ("spec", "message"),
    [
        ("SetF(alpha=0.5, beta=2)", r"give F one weight, not beta and alpha"),
        ("F(fbeta=2, beta=4)@5", r"give F one weight, not beta and fbeta"),
        ("SetF(alpha=1.5)", r"alpha= must be in \(0, 1\]"),
        ("IPrec@1.5", r"recall level between 0 and 1"),
        ("IPrec@high", r"recall level such as 0.5"),
        ("AP(norm='max')@5", r"norm= must be one of \['R', 'min'\]"),
    ],
)
def test_bad_parameters(spec: str, message: str) -> None:
    """Bad values of the new parameters are refused with what was found and what is allowed."""
    with pytest.raises(MetricError, match=message):
        pdireval.parse_metric(spec)


def test_recall_levels_label_as_decimals() -> None:
    """IPrec labels show the recall level as a decimal; trec_eval names map onto them."""
    assert pdireval.parse_metric("iprec_at_recall_0.50").label == "IPrec@0.5"
    assert pdireval.parse_metric("IPrec@1").label == "IPrec@1.0"
    assert np.isclose(pdireval.parse_metric("IPrec@0.30").k, 0.3)


#: Ranks 1..4 labelled 1, 0, unjudged, 2, and a relevant document (label 1) not retrieved.
EXAMPLE = _ranking([1, 0, None, 2], unretrieved=[1])


# --------------------------------------------------------------------------- Judged@k


def test_judged_at_k() -> None:
    """As ir_measures: a negative label is a judgment, and the divisor is min(k, retrieved);
    negative='unjudged' reads a negative label as trec_eval does (pooled, not judged)."""
    frame = _ranking([1, None, -1, 0, 2])
    assert _value(frame, "Judged@1") == 1.0
    assert _value(frame, "Judged@3") == pytest.approx(2 / 3)
    assert _value(frame, "Judged@5") == pytest.approx(4 / 5)
    assert _value(frame, "Judged@10") == pytest.approx(4 / 5)  # 5 retrieved
    assert _value(frame, "Judged") == pytest.approx(4 / 5)
    assert _value(frame, "judged_5") == _value(frame, "Judged@5")
    assert _value(frame, "Judged(negative='unjudged')@3") == pytest.approx(1 / 3)
    assert _value(frame, "Judged(negative='unjudged')@10") == pytest.approx(3 / 5)
    # judged_only drops the unjudged documents: all that is left is judged.
    assert _value(frame, "Judged@2", judged_only=True) == 1.0
    assert _value(frame, "Judged@5", judged_only=True) == 1.0
    # judged_only drops negative labels too (trec_eval -J): 1, 0, 2 remain
    assert _value(frame, "Judged(negative='unjudged')@5", judged_only=True) == 1.0


# --------------------------------------------------------------------------- RBP


def test_rbp_and_residual_by_hand() -> None:
    """Relevant at ranks 1 and 4, ranks 1, 2, 4 judged: p = 0.8."""
    assert _value(EXAMPLE, "RBP") == pytest.approx(0.2 * (1 + 0.8**3))
    assert _value(EXAMPLE, "RBP(p=0.5)") == pytest.approx(0.5 * (1 + 0.5**3))
    assert _value(EXAMPLE, "RBP(rel=2)") == pytest.approx(0.2 * 0.8**3)
    assert _value(EXAMPLE, "RBP@3") == pytest.approx(0.2)
    # Residual: the unjudged rank 3 and everything past rank 4.
    assert _value(EXAMPLE, "RBPResidual") == pytest.approx(0.2 * 0.8**2 + 0.8**4)
    assert _value(EXAMPLE, "RBPResidual@2") == pytest.approx(0.8**2)
    assert _value(EXAMPLE, "rbp_resid") == _value(EXAMPLE, "RBPResidual")


def test_rbp_of_an_all_relevant_ranking() -> None:
    """n relevant documents: RBP = 1 - p^n and the residual is the tail p^n."""
    frame = _ranking([1] * 5)
    assert _value(frame, "RBP(p=0.9)") == pytest.approx(1 - 0.9**5)
    assert _value(frame, "RBPResidual(p=0.9)") == pytest.approx(0.9**5)


@pytest.mark.parametrize("p", [0, 1, 1.5, -0.2, True, "0.8"])
def test_rbp_persistence_must_be_a_probability(p) -> None:
    with pytest.raises(MetricError, match=r"parameter p= is a persistence probability"):
        pdireval.parse_metric(f"RBP(p={p!r})")


# --------------------------------------------------------------------------- ERR


def test_err_by_hand() -> None:
    """Labels 1 at rank 1 and 2 at rank 4. On the 0..4 scale (the default, as gdeval and
    ir_measures): R = 1/16 and 3/16."""
    expected = 1 / 16 + (1 / 4) * (3 / 16) * (15 / 16)
    assert _value(EXAMPLE, "ERR") == pytest.approx(expected)
    assert _value(EXAMPLE, "ERR(max_label=4)") == pytest.approx(expected)
    assert _value(EXAMPLE, "ERR@3") == pytest.approx(1 / 16)
    # g_max = the query's largest judged label, 2: R = 1/4 and 3/4.
    by_query = 1 / 4 + (1 / 4) * (3 / 4) * (3 / 4)
    assert _value(EXAMPLE, "ERR(max_label='query')") == pytest.approx(by_query)
    # Labels above max_label count as max_label: R = 1/2 for both.
    assert _value(EXAMPLE, "ERR(max_label=1)") == pytest.approx(1 / 2 + (1 / 4) * (1 / 2) * (1 / 2))
    assert _value(EXAMPLE, "ERR(rel=2, max_label='query')") == pytest.approx((1 / 4) * (3 / 4))


def test_err_of_one_perfect_document_at_the_top() -> None:
    """Chapelle et al.: a top-grade document at rank 1 gives (2^g - 1) / 2^g."""
    assert _value(_ranking([4, 0, 0]), "ERR") == pytest.approx(15 / 16)
    assert _value(_ranking([3, 0, 0]), "ERR(max_label='query')") == pytest.approx(7 / 8)
    assert _value(_ranking([0, 3]), "ERR(max_label='query')") == pytest.approx(7 / 16)
    assert _value(_ranking([0, 0], unretrieved=[2]), "ERR") == 0.0


# --------------------------------------------------------------------------- trec_eval measures


def test_trec_eval_measures_by_hand() -> None:
    """EXAMPLE with trec_eval's formulas (ideal gains 2, 1, 1; R = 3 at rel=1)."""
    # binG: relevant at rank 1 (0 missed above) and rank 4 (2 missed above).
    assert _value(EXAMPLE, "binG") == pytest.approx((1 + 1 / 2) / 3)
    # G: costs of the ideal ranking 2, 3, 4, then +1 per rank; gains retrieved 1, then 3.
    assert _value(EXAMPLE, "G") == pytest.approx((1 / LOG2_3 + 2 / math.log2(2 + 5 - 3)) / 4)
    # infAP: rank 4 has 2 pooled documents above (1 relevant, 1 not; rank 3 is not pooled).
    precision_4 = 1 / 4 + (2 / 4) * (1 + 1e-5) / (2 + 2e-5)
    assert _value(EXAMPLE, "infAP") == pytest.approx((1 + precision_4) / 3, abs=1e-12)
    # Utility: 2 relevant retrieved, 2 others retrieved, 1 relevant missed.
    assert _value(EXAMPLE, "Utility") == 0.0
    assert _value(EXAMPLE, "Utility(a=3, b=-0.5, c=-2)") == pytest.approx(6 - 1 - 2)
    assert _value(EXAMPLE, "Utility(d=0.01, n_docs=100)") == pytest.approx(0.01 * 95)
    assert _value(EXAMPLE, "utility") == _value(EXAMPLE, "Utility")


def test_ndcg_rel_and_rndcg_by_hand() -> None:
    idcg = [2, 2 + 1 / LOG2_3, 2 + 1 / LOG2_3 + 1 / 2]  # ideal DCG at ranks 1..3
    dcg_4 = 1 + 2 / math.log2(5)
    # nDCG(rel_only=True): nDCG at rank 1, at rank 4 (ideal cut at R = 3), and at the end for the
    # unretrieved relevant document.
    expected = (1 / idcg[0] + 2 * dcg_4 / idcg[2]) / 3
    assert _value(EXAMPLE, "nDCG(rel_only=True)") == pytest.approx(expected)
    assert _value(EXAMPLE, "ndcg_rel") == _value(EXAMPLE, "nDCG(rel_only=True)")
    # With @3 the ranking stops at rank 3: two relevant documents missed.
    assert _value(EXAMPLE, "nDCG(rel_only=True)@3") == pytest.approx(
        (1 / idcg[0] + 2 / idcg[2]) / 3
    )
    # Rndcg: the ideal gain drops after rank 1 (2 -> 1) and rank 3 (1 -> 0).
    assert _value(EXAMPLE, "Rndcg") == pytest.approx((1 / idcg[0] + 1 / idcg[2]) / 2)


def test_rndcg_counts_the_whole_ranking_two_documents_past_the_last_level() -> None:
    """trec_eval's boundary (checked against pytrec_eval): one relevant document, so one
    R level at rank 1; the whole ranking counts only when at least 3 were retrieved."""
    assert _value(_ranking([0, 0, 1]), "Rndcg") == pytest.approx((0 + 1 / 2) / 2)
    assert _value(_ranking([0, 1]), "Rndcg") == 0.0
    assert _value(_ranking([0, 0], unretrieved=[0]), "Rndcg") == 0.0


def test_infap_equals_ap_with_complete_judgments() -> None:
    """Without negative labels infAP is AP up to trec_eval's epsilon."""
    run, qrels = adversarial_case(3)
    merged = pdireval.merge_qrels(run, qrels.assign(rel=qrels["rel"].clip(lower=0)))
    ours = pdireval.evaluate(merged, ["infAP", "AP", "infAP(rel=2)", "AP(rel=2)"])
    np.testing.assert_allclose(ours["infAP"], ours["AP"], atol=1e-4)
    np.testing.assert_allclose(ours["infAP(rel=2)"], ours["AP(rel=2)"], atol=1e-4)
    assert (ours["AP"] > 0).sum() > 10


def test_utility_needs_the_collection_size_for_d() -> None:
    with pytest.raises(MetricError, match=r"needs the collection size.*n_docs="):
        pdireval.parse_metric("Utility(d=1)")
    with pytest.raises(MetricError, match=r"parameter a= must be a finite number"):
        pdireval.parse_metric("Utility(a='x')")
    assert pdireval.parse_metric("Utility(a=1.0, b=-1.0)").label == "Utility"


# --------------------------------------------------------------------------- slow references


def _rankings(merged: pd.DataFrame) -> dict[str, tuple[list[float], list[float]]]:
    """query -> (labels of the retrieved documents in trec_eval's order (NaN = unjudged),
    labels of all judged documents)."""
    out = {}
    for query, part in merged.groupby("query"):
        retrieved = part[part["score"].notna()]
        retrieved = retrieved.sort_values(["score", "doc"], ascending=[False, False])
        labels = retrieved["rel"].to_numpy(dtype=float, na_value=np.nan).tolist()
        out[query] = (labels, part["rel"].dropna().astype(float).tolist())
    return out


def _slow_judged(ranking, judged, k):
    return sum(1 for label in ranking[:k] if label == label) / min(k, len(ranking))  # not NaN


def _slow_rbp(ranking, judged, k, p, rel):
    return (1 - p) * sum(p**i for i, label in enumerate(ranking[:k]) if label >= rel)


def _slow_residual(ranking, judged, k, p):
    top = ranking[:k]
    unjudged = sum(p**i for i, label in enumerate(top) if not label >= 0)
    return (1 - p) * unjudged + p ** len(top)


def test_err_with_a_top_grade_far_above_the_labels_is_exact_or_underflows() -> None:
    """R = (2^g - 1) / 2^g_max is formed without a power that could overflow: exact while
    float64 holds it, and its nearest float64 -- 0 -- below 2^-1074 (g_max = 2000 on
    labels 1 and 3: about 4.5 * 2^-2000)."""
    assert _value(_ranking([1]), "ERR(max_label=1000)") == 2.0**-1000
    assert _value(_ranking([3, 1]), "ERR(max_label=1000)") == 7 * 2.0**-1000 + 2.0**-1001
    assert _value(_ranking([1, 3]), "ERR(max_label=2000)") == 0.0
    assert _value(_ranking([2000, 1]), "ERR(max_label=2000)") == 1.0


def _slow_err(ranking, judged, k, rel, max_label):
    g_max = max([label for label in judged if label >= 0], default=0)
    g_max = max_label if max_label is not None else g_max
    value, going_on = 0.0, 1.0
    for i, label in enumerate(ranking[:k], start=1):
        grade = min(label, g_max) if label >= max(rel, 0) else 0  # NaN >= x is False
        stop = (2**grade - 1) / 2**g_max
        value += going_on * stop / i
        going_on *= 1 - stop
    return value


@pytest.mark.parametrize("seed", range(6))
def test_rbp_judged_and_err_agree_with_slow_references(seed: int) -> None:
    run, qrels = adversarial_case(seed)
    merged = pdireval.merge_qrels(run, qrels)
    cases = []
    for k in (1, 3, 10, None):
        at = "" if k is None else f"@{k}"
        cases += [
            (f"Judged{at}", lambda r, j, k=k: _slow_judged(r, j, k or len(r)) if r else 0.0),
            (f"RBP{at}", lambda r, j, k=k: _slow_rbp(r, j, k, 0.8, 1)),
            (f"RBP(p=0.95, rel=2){at}", lambda r, j, k=k: _slow_rbp(r, j, k, 0.95, 2)),
            (f"RBPResidual(p=0.6){at}", lambda r, j, k=k: _slow_residual(r, j, k, 0.6)),
            (f"ERR{at}", lambda r, j, k=k: _slow_err(r, j, k, 1, 4)),
            (f"ERR(max_label='query'){at}", lambda r, j, k=k: _slow_err(r, j, k, 1, None)),
            (f"ERR(rel=2, max_label=2){at}", lambda r, j, k=k: _slow_err(r, j, k, 2, 2)),
        ]
    ours = pdireval.evaluate(merged, [name for name, _ in cases], queries="retrieved")
    rankings = _rankings(merged)
    assert len(ours) > 20
    mismatches = []
    for query in ours.index:
        ranking, judged = rankings[query]
        for name, slow in cases:
            label = pdireval.parse_metric(name).label
            want = slow(ranking, judged)
            if not math.isclose(ours.loc[query, label], want, rel_tol=0, abs_tol=1e-12):
                mismatches.append((query, label, ours.loc[query, label], want))
    assert mismatches == []
