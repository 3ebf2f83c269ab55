"""Risk-sensitive evaluation: URisk, TRisk and GeoRisk against plain references."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from science_frames import frame_with_p10

import pdireval
from pdireval.datasets import example
from pdireval.stats.risk import RISK_COLUMNS, georisk_values, trisk_p_values, urisk_trisk


def reference_urisk(run: list[float], base: list[float], alpha: float) -> float:
    """URisk as the TREC Web track wrote it: (wins - (1 + alpha) * losses) / c."""
    reward = sum(r - b for r, b in zip(run, base, strict=True) if r > b)
    loss = sum(b - r for r, b in zip(run, base, strict=True) if r < b)
    return (reward - (1 + alpha) * loss) / len(run)


def reference_trisk(run: list[float], base: list[float], alpha: float) -> float:
    """TRisk: URisk over the standard error of the risk-weighted differences."""
    deltas = [(r - b) if r >= b else (1 + alpha) * (r - b) for r, b in zip(run, base, strict=True)]
    c = len(deltas)
    mean = sum(deltas) / c
    variance = sum((d - mean) ** 2 for d in deltas) / (c - 1)
    return mean / math.sqrt(variance / c)


def reference_georisk(values: list[list[float]], alpha: float) -> list[float]:
    """GeoRisk of every run, loop by loop from Dinçer, Macdonald & Ounis (2016)."""
    c, m = len(values), len(values[0])
    run_sums = [sum(values[j][i] for j in range(c)) for i in range(m)]
    query_sums = [sum(row) for row in values]
    total = sum(run_sums)
    out = []
    for i in range(m):
        zrisk = 0.0
        for j in range(c):
            expected = run_sums[i] * query_sums[j] / total
            z = 0.0 if expected == 0 else (values[j][i] - expected) / math.sqrt(expected)
            zrisk += z if z >= 0 else (1 + alpha) * z
        phi = 0.5 * (1 + math.erf(zrisk / c / math.sqrt(2)))
        out.append(math.sqrt(run_sums[i] / c * phi))
    return out


BASE = [0.5, 0.5, 0.5, 0.5]
RUN = [0.7, 0.2, 0.6, 0.5]  # differences 0.2, -0.3, 0.1, 0


def test_urisk_by_hand() -> None:
    # alpha = 1: (0.2 + 0.1 - 2 * 0.3) / 4 = -0.075; alpha = 0: (0.2 - 0.3 + 0.1) / 4 = 0
    table = pdireval.risk(frame_with_p10(np.c_[BASE, RUN]), "P@10", baseline="r0", alpha=[1, 0])
    assert table["urisk"].tolist() == pytest.approx([-0.075, 0.0], abs=1e-12)
    assert table[["wins", "ties", "losses"]].iloc[0].tolist() == [2, 1, 1]
    # weighted differences 0.2, -0.6, 0.1, 0: mean -0.075, sample sd 0.3594...
    sd = math.sqrt(sum((d + 0.075) ** 2 for d in (0.2, -0.6, 0.1, 0.0)) / 3)
    assert table["trisk"].iloc[0] == pytest.approx(-0.075 / (sd / 2))
    assert list(table.columns) == list(RISK_COLUMNS)


def test_georisk_by_hand() -> None:
    # two runs, two queries: x = [[1, 0], [0, 1]]; S = (1, 1), T = (1, 1), N = 2, e = 1/2
    # z = (+-1/2) / sqrt(1/2) = +-0.7071; alpha = 1: ZRisk = 0.7071 - 2 * 0.7071 = -0.7071
    zrisk = -math.sqrt(0.5)
    expected = math.sqrt(1 / 2 * 0.5 * (1 + math.erf(zrisk / 2 / math.sqrt(2))))
    assert georisk_values(np.array([[1.0, 0.0], [0.0, 1.0]]), 1.0) == pytest.approx(
        [expected, expected]
    )


values_matrices = st.integers(2, 8).flatmap(
    lambda c: st.integers(2, 4).flatmap(
        lambda m: st.lists(
            st.lists(st.integers(0, 10).map(lambda v: v / 10), min_size=m, max_size=m),
            min_size=c,
            max_size=c,
        )
    )
)


@settings(max_examples=60, deadline=None)
@given(values=values_matrices, alpha=st.sampled_from([0.0, 1.0, 2.5, 10.0]))
def test_kernels_match_the_plain_references(values: list[list[float]], alpha: float) -> None:
    matrix = np.array(values)
    base = matrix[:, 0]
    differences = (matrix[:, 1:] - base[:, None]).T
    differences[np.abs(differences) <= 1e-12] = 0.0
    urisk, trisk = urisk_trisk(differences, alpha)
    for k in range(matrix.shape[1] - 1):
        run = list(matrix[:, k + 1])
        assert urisk[k] == pytest.approx(reference_urisk(run, list(base), alpha), abs=1e-12)
        deltas = differences[k]
        if np.ptp(np.where(deltas < 0, (1 + alpha) * deltas, deltas)) > 1e-9:
            assert trisk[k] == pytest.approx(reference_trisk(run, list(base), alpha))
    if matrix.sum() > 0:
        assert georisk_values(matrix, alpha) == pytest.approx(reference_georisk(values, alpha))


@settings(max_examples=40, deadline=None)
@given(values=values_matrices)
def test_alpha_zero_is_the_mean_difference_and_the_paired_t(values: list[list[float]]) -> None:
    stats = pytest.importorskip("scipy.stats")
    matrix = np.array(values)
    table = pdireval.risk(frame_with_p10(matrix), "P@10", baseline="r0", alpha=0)
    for k, row in table.iterrows():
        differences = matrix[:, k + 1] - matrix[:, 0]
        assert row["urisk"] == pytest.approx(differences.mean(), abs=1e-12)
        assert row["urisk"] == pytest.approx(row["mean"] - row["baseline_mean"], abs=1e-12)
        if np.ptp(differences) > 1e-9:
            t = stats.ttest_rel(matrix[:, k + 1], matrix[:, 0]).statistic
            assert row["trisk"] == pytest.approx(t)


@settings(max_examples=40, deadline=None)
@given(values=values_matrices)
def test_more_risk_aversion_never_raises_urisk_or_georisk(values: list[list[float]]) -> None:
    table = pdireval.risk(frame_with_p10(values), "P@10", baseline="r0", alpha=[0, 1, 5])
    for _, block in table.groupby("run", sort=False):
        assert np.all(np.diff(block["urisk"].to_numpy()) <= 1e-12)
        assert np.all(np.diff(block["georisk"].to_numpy()) <= 1e-12)


def test_trisk_reading_and_edge_values() -> None:
    # every query lost: the weighting scales all differences alike, so TRisk keeps its value
    lost = np.array([[0.9, 0.5], [0.8, 0.6], [0.7, 0.1], [0.9, 0.2]])
    table = pdireval.risk(frame_with_p10(lost), "P@10", baseline="r0", alpha=[0, 1, 10])
    assert table["trisk"].to_numpy() == pytest.approx(np.full(3, table["trisk"].iloc[0]))
    assert table["significant"].all()  # TRisk about -4.4: a significant risk of harm
    # identical runs: no gain, no risk
    same = pdireval.risk(frame_with_p10(lost[:, [0, 0]]), "P@10", baseline="r0")
    assert same[["urisk", "trisk"]].iloc[0].tolist() == [0.0, 0.0]
    assert not same["significant"].iloc[0]
    # one constant gain: infinitely many standard errors
    gain = pdireval.risk(frame_with_p10(np.c_[lost[:, 0] - 0.1, lost[:, 0]]), "P@10", baseline="r0")
    assert gain["trisk"].iloc[0] == np.inf


def test_georisk_of_identical_runs_is_the_root_of_half_the_mean() -> None:
    values = np.array([[0.2, 0.2, 0.2], [0.6, 0.6, 0.6], [0.4, 0.4, 0.4]])
    table = pdireval.georisk(frame_with_p10(values), "P@10", alpha=0)
    assert table["P@10"].to_numpy() == pytest.approx(np.full(3, math.sqrt(0.4 / 2)))
    assert table.index.name == "run"
    assert table.columns.name == "metric"


def test_georisk_uses_every_run_and_risk_reports_it_for_the_others() -> None:
    values = np.array([[0.2, 0.5, 0.1], [0.6, 0.4, 0.9], [0.4, 0.3, 0.4]])
    frame = frame_with_p10(values)
    geo = pdireval.georisk(frame, "P@10", alpha=2)["P@10"]
    table = pdireval.risk(frame, "P@10", baseline="r1", alpha=2)
    assert table["run"].tolist() == ["r0", "r2"]
    assert table["georisk"].tolist() == pytest.approx(geo[["r0", "r2"]].tolist())
    assert geo.tolist() == pytest.approx(reference_georisk(values.tolist(), 2))


def test_the_input_frame_is_not_modified() -> None:
    frame = frame_with_p10([[0.1, 0.4], [0.3, 0.2]])
    before = frame.copy()
    pdireval.risk(frame, ["P@10", "AP"], baseline="r0")
    pd.testing.assert_frame_equal(frame, before)


@pytest.mark.parametrize(
    ("call", "error", "match"),
    [
        (lambda f: pdireval.risk(f, "P@10", baseline="nope"), pdireval.SchemaError, "'nope' not"),
        (lambda f: pdireval.risk(f, "P@10", baseline=["r0"]), pdireval.SchemaError, "one run"),
        (lambda f: pdireval.risk(f, "P@10", baseline=None), pdireval.SchemaError, "one run"),
        (
            lambda f: pdireval.risk(f, "P@10", baseline="r0", alpha=-1),
            pdireval.ParameterError,
            ">= 0",
        ),
        (lambda f: pdireval.risk(f, "P@10", baseline="r0", alpha=math.nan), ValueError, "finite"),
        (lambda f: pdireval.risk(f, "P@10", baseline="r0", alpha=[]), ValueError, "alpha=\\[\\]"),
        (lambda f: pdireval.georisk(f, "P@10", alpha="1"), pdireval.ParameterError, "alpha='1'"),
        (lambda f: pdireval.risk(f.query("run == 'r0'"), "P@10", baseline="r0"), ValueError, "two"),
        (
            lambda f: pdireval.risk(f[f.run == "r0"].drop(columns="run"), "P@10", baseline="r0"),
            pdireval.SchemaError,
            "no run column",
        ),
        (lambda f: pdireval.risk(f, "P@10", baseline="r0", queries="x"), ValueError, "queries"),
    ],
)
def test_bad_input_is_refused_with_a_clear_error(call, error, match) -> None:
    with pytest.raises(error, match=match):
        call(frame_with_p10([[0.1, 0.4], [0.3, 0.2]]))


def test_a_query_some_runs_lack_is_refused() -> None:
    frame = frame_with_p10([[0.1, 0.4], [0.3, 0.2]])
    frame = frame[~((frame["run"] == "r1") & (frame["query"] == "q01"))]
    with pytest.raises(pdireval.SchemaError, match="q01"):
        pdireval.risk(frame, "P@10", baseline="r0")


def test_negative_values_are_refused_by_georisk() -> None:
    from pdireval.engine.runs import Matrix
    from pdireval.stats.risk import _refuse_negative

    wide = pd.DataFrame({"a": [0.1, -0.2], "b": [0.3, 0.1]}, index=["q1", "q2"])
    with pytest.raises(pdireval.SchemaError, match="non-negative"):
        _refuse_negative(Matrix("delta", wide))


@settings(max_examples=200, deadline=None)
@given(
    st.lists(st.floats(-60, 60, allow_nan=False), min_size=1, max_size=20),
    st.integers(2, 5000),
)
def test_trisk_p_values_are_student_t_two_sided(values: list[float], queries: int) -> None:
    scipy_stats = pytest.importorskip("scipy.stats")
    trisk = np.asarray(values)
    got = trisk_p_values(trisk, queries)
    expected = 2 * scipy_stats.t.sf(np.abs(trisk), queries - 1)
    away = np.abs(trisk) > 1e-6  # scipy itself loses digits right next to 0
    np.testing.assert_allclose(got[away], expected[away], rtol=1e-9, atol=1e-13)
    assert np.all((got >= 0) & (got <= 1))


def test_trisk_p_values_by_hand_and_at_the_edges() -> None:
    t = np.array([0.0, 1e-8, 1.0, -3.0, np.inf, -np.inf, np.nan])
    cauchy = 1 - 2 * np.arctan(np.abs(t[:4])) / np.pi  # Student t with 1 degree of freedom
    got = trisk_p_values(t, 2)
    np.testing.assert_allclose(got[:4], cauchy, rtol=1e-12)
    assert list(got[4:6]) == [0.0, 0.0]
    assert np.isnan(got[6])
    assert np.isnan(trisk_p_values(np.array([1.0]), 1)).all()


def test_risk_neutral_p_value_is_the_paired_t_test() -> None:
    scipy_stats = pytest.importorskip("scipy.stats")
    frame = example()
    table = pdireval.risk(frame, "AP", baseline="medium", alpha=0)
    per_query = pdireval.evaluate(frame, "AP")["AP"].unstack(level=0)
    for row in table.itertuples():
        expected = scipy_stats.ttest_rel(per_query[row.run], per_query["medium"]).pvalue
        assert row.p_value == pytest.approx(expected, rel=1e-9)
