"""Hand-computed cases for measures trec_eval does not have (AP_1@k, CG, F@k, Fallout)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import pdireval
from pdireval import MetricError


def _ranking(labels: list[float | None], unretrieved: list[int] = ()) -> pd.DataFrame:
    """One query: the labels in rank order (None = unjudged), then unretrieved judged docs."""
    rows = [(f"d{i}", i, label) for i, label in enumerate(labels, start=1)]
    rows += [(f"u{i}", None, label) for i, label in enumerate(unretrieved)]
    frame = pd.DataFrame(rows, columns=["doc", "rank", "rel"]).assign(query="q")
    return frame.astype({"rank": "Float64", "rel": "Float64"})


def _value(frame: pd.DataFrame, metric: str) -> float:
    return float(pdireval.evaluate(frame, metric).iloc[0, 0])


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
    """F@3 of P@3 = 2/3 and R@3 = 1: F1 = 0.8, F2 = (5 * 2/3) / (4 * 2/3 + 1) = 10/11."""
    frame = _ranking([1, 0, 1, 0])
    assert _value(frame, "F@3") == pytest.approx(0.8)
    assert _value(frame, "F(beta=2)@3") == pytest.approx(10 / 11)
    assert _value(frame, "F(alpha=0.2)@3") == pytest.approx(10 / 11)  # beta^2 = 0.8 / 0.2
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
        ("SetF(alpha=0.5, beta=2)", r"either beta= or alpha="),
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
