"""``rel_threshold=``: labels that are not whole numbers, and one relevance threshold for
every measure in place of their ``rel=``.
"""

from __future__ import annotations

import io

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from strategies import long_frames

import pdireval
from pdireval import MetricError, ParameterError, SchemaError
from pdireval.metrics import Metric

#: Measures whose value does not change when every label (and the threshold) is halved:
#: binary ones, and nDCG with gain = label (numerator and ideal halve alike).
SCALE_FREE = [
    "P@3", "R@5", "AP", "AP@5", "RR", "RR@3", "nDCG", "nDCG@5", "Rprec", "Bpref",
    "Success@2", "NumRel", "NumRelRet", "infAP", "SetP", "SetR", "SetF", "IPrec@0.5",
    "RBP(p=0.8)",
]  # fmt: skip
#: Graded measures, whose values scale with the labels.
GRADED = ["DCG@5", "nDCG(gain='exp')@5"]


def _with_rel(name: str, rel: float) -> Metric:
    metric = pdireval.parse_metric(name)
    explicit = metric.family(**{**metric.parameters, "rel": rel})
    return explicit if metric.k is None else explicit @ metric.k


def _values(frame: pd.DataFrame, metrics: list, **options) -> np.ndarray:
    return pdireval.evaluate(frame, metrics, **options).to_numpy()


@given(long_frames(), st.integers(0, 3))
@settings(deadline=None, max_examples=60)
def test_a_whole_threshold_is_the_measures_rel(frame: pd.DataFrame, rel: int) -> None:
    names = SCALE_FREE + GRADED
    by_threshold = _values(frame, names, rel_threshold=rel)
    by_rel = _values(frame, [_with_rel(name, rel) for name in names])
    np.testing.assert_allclose(by_threshold, by_rel, rtol=1e-12, atol=1e-12)


@given(long_frames(), st.integers(0, 3))
@settings(deadline=None, max_examples=60)
def test_halved_labels_with_a_halved_threshold_give_the_same_numbers(
    frame: pd.DataFrame, rel: int
) -> None:
    halved = frame.assign(rel=frame["rel"].astype("float64") / 2)  # 0.5, 1.5: not whole
    got = _values(halved, SCALE_FREE, rel_threshold=rel / 2)
    expected = _values(frame, [_with_rel(name, rel) for name in SCALE_FREE])
    np.testing.assert_allclose(got, expected, rtol=1e-12, atol=1e-12)
    dcg = _values(halved, ["DCG@5"], rel_threshold=rel / 2)
    np.testing.assert_allclose(dcg, _values(frame, [_with_rel("DCG@5", rel)]) / 2, atol=1e-12)


def test_probabilities_evaluate_against_a_threshold() -> None:
    frame = pd.DataFrame(
        {"query": "q", "doc": list("abcd"), "rank": [1, 2, 3, 4], "rel": [0.2, 0.9, 0.5, 0.7]}
    )
    table = pdireval.evaluate(frame, ["P@2", "RR", "NumRel", "nDCG@3"], rel_threshold=0.6)
    assert table.loc["q", ["P@2", "RR", "NumRel"]].tolist() == [0.5, 0.5, 2.0]
    # gains 0.9 (b, rank 2) and 0.7 (d, rank 4); labels below 0.6 gain nothing
    ideal = 0.9 + 0.7 / np.log2(3)
    assert table.loc["q", "nDCG@3"] == pytest.approx(0.9 / np.log2(3) / ideal, rel=1e-12)


def test_qrels_with_fractional_labels_next_to_a_run() -> None:
    run = pd.DataFrame({"query": "q", "doc": list("abc"), "score": [3.0, 2.0, 1.0]})
    qrels = pd.DataFrame({"query": "q", "doc": ["b", "c", "z"], "rel": [0.75, 0.25, 1.0]})
    merged = run.merge(qrels, how="outer", on=["query", "doc"])
    metrics = ["AP", "nDCG@3", "R@2"]
    pd.testing.assert_frame_equal(
        pdireval.evaluate(run, metrics, qrels=qrels, rel_threshold=0.5),
        pdireval.evaluate(merged, metrics, rel_threshold=0.5),
        check_index_type=False,  # pandas 2: matched ids come back as strings, pd.merge's as objects
    )
    merged_by_pdireval = pdireval.merge_qrels(run, qrels)  # labels kept as they are
    assert str(merged_by_pdireval["rel"].dtype) == "Float64"
    assert merged_by_pdireval["rel"].tolist()[1:] == [0.75, 0.25, 1.0]
    pd.testing.assert_frame_equal(
        pdireval.evaluate(merged_by_pdireval, metrics, rel_threshold=0.5),
        pdireval.evaluate(run, metrics, qrels=qrels, rel_threshold=0.5),
    )
    with pytest.raises(SchemaError, match=r"whole numbers.*rel_threshold="):
        pdireval.evaluate(merged_by_pdireval, metrics)  # no policy given: refused, not rounded


def test_fractional_labels_without_a_threshold_name_the_option() -> None:
    frame = pd.DataFrame({"query": "q", "doc": ["a"], "rank": [1], "rel": [0.5]})
    with pytest.raises(SchemaError, match=r"whole numbers.*rel_threshold="):
        pdireval.evaluate(frame, "AP")


def test_a_second_threshold_is_refused() -> None:
    frame = pd.DataFrame({"query": "q", "doc": ["a"], "rank": [1], "rel": [1]})
    with pytest.raises(MetricError, match=r"P\(rel=2\)@1 sets rel= and the call sets"):
        pdireval.evaluate(frame, "P(rel=2)@1", rel_threshold=0.5)
    with pytest.raises(MetricError, match="give it once"):
        pdireval.pr_curve(frame, rel=2, interpolated=False, rel_threshold=0.5)
    with pytest.raises(MetricError, match="give it once"):
        pdireval.tie_groups(frame, 1, rel=2, rel_threshold=0.5)


@pytest.mark.parametrize("name", ["ERR@5", "nDCG(gain={0: 0, 1: 1, 2: 3})@5"])
def test_measures_reading_whole_grades_refuse_fractional_labels(name: str) -> None:
    frame = pd.DataFrame({"query": "q", "doc": ["a", "b"], "rank": [1, 2], "rel": [1.5, 0]})
    with pytest.raises(MetricError, match=r"needs whole-number labels.*1\.5"):
        pdireval.evaluate(frame, name, rel_threshold=1)
    whole = frame.assign(rel=[2, 0])  # whole labels: the threshold is their rel
    assert pdireval.evaluate(whole, name, rel_threshold=1).iloc[0, 0] > 0


def test_diversity_measures_refuse_fractional_labels() -> None:
    frame = pd.DataFrame(
        {"query": "q", "doc": ["a", "b"], "rank": [1, 2], "subtopic": ["s1", "s2"],
         "rel": [0.5, 1.0]}
    )  # fmt: skip
    with pytest.raises(MetricError, match="needs whole-number labels"):
        pdireval.evaluate(frame, "alpha_nDCG@2", rel_threshold=0.5)


@pytest.mark.parametrize("value", [-0.5, float("inf"), float("nan"), "0.5", True])
def test_bad_thresholds_are_refused(value: object) -> None:
    frame = pd.DataFrame({"query": "q", "doc": ["a"], "rank": [1], "rel": [1]})
    with pytest.raises(ParameterError, match="rel_threshold="):
        pdireval.evaluate(frame, "AP", rel_threshold=value)  # type: ignore[arg-type]


def test_infinite_labels_are_refused_with_a_threshold_too() -> None:
    frame = pd.DataFrame({"query": "q", "doc": ["a"], "rank": [1], "rel": [np.inf]})
    with pytest.raises(SchemaError, match="finite numbers"):
        pdireval.evaluate(frame, "AP", rel_threshold=0.5)


def test_read_qrels_still_reads_whole_labels() -> None:
    """TREC files hold whole labels; fractional ones come in frames."""
    with pytest.raises(SchemaError):
        pdireval.read_qrels(io.StringIO("q 0 d 0.5\n"))
