"""Meta-evaluation: ASL curves, discriminative power, swap rates and ranking stability,
each against a plain loop over the same resamples.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from science_frames import frame_with_p10

import pdireval
from pdireval.stats import meta

matrices = st.integers(2, 7).flatmap(
    lambda n: st.integers(2, 4).flatmap(
        lambda m: st.lists(
            st.lists(st.integers(0, 10).map(lambda v: v / 10), min_size=m, max_size=m),
            min_size=n,
            max_size=n,
        )
    )
)


def t_statistic(sample: list[float]) -> float:
    """Student's t of the mean; 0 for all zeros, +-inf for one non-zero constant."""
    n = len(sample)
    mean = sum(sample) / n
    sd = math.sqrt(sum((x - mean) ** 2 for x in sample) / (n - 1))
    if sd <= 1e-12 * max(1.0, abs(mean)):
        return 0.0 if abs(mean) <= 1e-12 else math.copysign(math.inf, mean)
    return mean / (sd / math.sqrt(n))


def reference_asl(values: np.ndarray, n_resamples: int, seed: int) -> list[float]:
    """Sakai's paired bootstrap test, resample by resample and pair by pair."""
    n, m = values.shape
    u = np.random.default_rng(np.random.SeedSequence(seed)).random((n_resamples, n))
    out = []
    for i in range(m):
        for j in range(i + 1, m):
            z = [0.0 if abs(d) <= 1e-12 else d for d in values[:, j] - values[:, i]]
            observed = abs(t_statistic(z))
            mean = sum(z) / n
            w = [x - mean for x in z]
            slack = 1e-9 * max(1.0, observed if math.isfinite(observed) else 0.0)
            hits = 0
            for b in range(n_resamples):
                sample = [w[min(int(u[b, q] * n), n - 1)] for q in range(n)]
                hits += abs(t_statistic(sample)) >= observed - slack
            out.append(hits / n_resamples)
    return out


@settings(max_examples=20, deadline=None)
@given(values=matrices, seed=st.integers(0, 2**32))
def test_asl_matches_the_reference_loop(values, seed) -> None:
    matrix = np.array(values)
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(meta, "BLOCK_ELEMENTS", 29)
        curve = pdireval.asl_curve(frame_with_p10(matrix), "P@10", n_resamples=40, seed=seed)
    m = matrix.shape[1]
    pairs = [(f"r{j}", f"r{i}") for i in range(m) for j in range(i + 1, m)]
    expected = dict(zip(pairs, reference_asl(matrix, 40, seed), strict=True))
    got = {(r, b): a for r, b, a in zip(curve.run, curve.baseline, curve.asl, strict=True)}
    assert got == pytest.approx(expected)
    assert curve["asl"].is_monotonic_increasing


def test_asl_of_identical_and_of_always_better_runs() -> None:
    base = np.random.default_rng(1).integers(0, 7, 20) / 10
    values = np.c_[base, base, base + 0.3]
    curve = pdireval.asl_curve(frame_with_p10(values), "P@10", n_resamples=200, seed=0)
    asl = {(r, b): a for r, b, a in zip(curve.run, curve.baseline, curve.asl, strict=True)}
    assert asl[("r1", "r0")] == 1.0  # the same run: never significant
    assert asl[("r2", "r0")] == 0.0  # 0.3 better on every query
    power = pdireval.discriminative_power(frame_with_p10(values), "P@10", n_resamples=200, seed=0)
    assert power.loc["P@10"].tolist() == [3, 2, pytest.approx(2 / 3)]


def test_discriminative_power_counts_the_asl_curve() -> None:
    values = np.random.default_rng(4).integers(0, 11, (15, 5)) / 10
    frame = frame_with_p10(values)
    curve = pdireval.asl_curve(frame, ["P@10", "AP"], n_resamples=300, seed=9)
    power = pdireval.discriminative_power(frame, ["P@10", "AP"], alpha=0.1, n_resamples=300, seed=9)
    for metric, block in curve.groupby("metric"):
        assert power.loc[metric, "significant"] == (block["asl"] < 0.1).sum()
        assert power.loc[metric, "pairs"] == 10


def reference_swaps(values, size, n_trials, seed, min_difference=0.0):
    n, m = values.shape
    shuffles = np.random.default_rng(np.random.SeedSequence(seed)).random((n_trials, n))
    compared = swapped = 0
    for t in range(n_trials):
        order = np.argsort(shuffles[t])
        first, second = order[:size], order[size : 2 * size]
        for i in range(m):
            for j in range(i + 1, m):
                a = values[first, j].mean() - values[first, i].mean()
                b = values[second, j].mean() - values[second, i].mean()
                a = 0.0 if abs(a) <= 1e-12 else a
                b = 0.0 if abs(b) <= 1e-12 else b
                if a != 0 and abs(a) >= min_difference:
                    compared += 1
                    swapped += a * b < 0
    return compared, swapped


@settings(max_examples=20, deadline=None)
@given(values=matrices, seed=st.integers(0, 2**32), minimum=st.sampled_from([0.0, 0.1]))
def test_swap_rate_matches_the_reference_loop(values, seed, minimum) -> None:
    matrix = np.array(values)
    size = max(1, matrix.shape[0] // 2)
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(meta, "BLOCK_ELEMENTS", 23)
        table = pdireval.swap_rate(
            frame_with_p10(matrix),
            "P@10",
            sizes=size,
            n_trials=30,
            min_difference=minimum,
            seed=seed,
        )
    compared, swapped = reference_swaps(matrix, size, 30, seed, minimum)
    assert table[["comparisons", "swaps"]].iloc[0].tolist() == [compared, swapped]


def test_swap_rate_known_answers() -> None:
    base = np.random.default_rng(2).integers(0, 7, 20) / 10
    better = pdireval.swap_rate(frame_with_p10(np.c_[base, base + 0.2]), "P@10", seed=1)
    assert (better["swaps"] == 0).all()
    assert (better["comparisons"] == 1000).all()
    assert better["size"].tolist() == sorted(set(better["size"]))
    assert better["size"].max() == 10
    same = pdireval.swap_rate(frame_with_p10(np.c_[base, base]), "P@10", sizes=[3], seed=1)
    assert same["comparisons"].iloc[0] == 0
    assert math.isnan(same["swap_rate"].iloc[0])


@settings(max_examples=20, deadline=None)
@given(values=matrices, seed=st.integers(0, 2**32))
def test_ranking_stability_matches_scipy_on_the_same_subsets(values, seed) -> None:
    stats = pytest.importorskip("scipy.stats")
    matrix = np.array(values)
    n = matrix.shape[0]
    size = max(1, n - 2)
    table = pdireval.ranking_stability(
        frame_with_p10(matrix), "P@10", sizes=size, n_trials=25, seed=seed
    )
    shuffles = np.random.default_rng(np.random.SeedSequence(seed)).random((25, n))
    full = matrix.mean(axis=0)
    taus = []
    for t in range(25):
        subset = matrix[np.argsort(shuffles[t])[:size]].mean(axis=0)
        tau = stats.kendalltau(np.round(full, 12), np.round(subset, 12)).statistic
        if not math.isnan(tau):
            taus.append(tau)
    row = table.iloc[0]
    assert row["trials"] == len(taus)
    if taus:
        assert row["tau_mean"] == pytest.approx(np.mean(taus))
        assert row["tau_min"] == pytest.approx(min(taus))


def test_all_topics_give_the_full_ordering() -> None:
    values = np.random.default_rng(6).integers(0, 11, (12, 4)) / 10
    table = pdireval.ranking_stability(frame_with_p10(values), "P@10", sizes=12, seed=3)
    assert table[["tau_mean", "tau_min", "tau_below_09"]].iloc[0].tolist() == [1.0, 1.0, 0.0]


FRAME = frame_with_p10([[0.1, 0.4], [0.3, 0.2], [0.5, 0.5]])


@pytest.mark.parametrize(
    ("call", "error", "match"),
    [
        (lambda: pdireval.swap_rate(FRAME, "P@10", sizes=2), pdireval.ParameterError, "1 to 1"),
        (lambda: pdireval.swap_rate(FRAME, "P@10", sizes=[]), pdireval.ParameterError, "sizes"),
        (lambda: pdireval.swap_rate(FRAME, "P@10", sizes=0), pdireval.ParameterError, ">= 1"),
        (
            lambda: pdireval.swap_rate(FRAME, "P@10", n_trials=0),
            pdireval.ParameterError,
            "n_trials",
        ),
        (
            lambda: pdireval.swap_rate(FRAME, "P@10", min_difference=-1),
            pdireval.ParameterError,
            "min_difference",
        ),
        (
            lambda: pdireval.ranking_stability(FRAME, "P@10", sizes=4),
            pdireval.ParameterError,
            "1 to 3",
        ),
        (
            lambda: pdireval.swap_rate(FRAME[FRAME["query"] == "q00"], "P@10"),
            pdireval.SchemaError,
            "more queries",
        ),
        (
            lambda: pdireval.asl_curve(FRAME[FRAME.run == "r0"], "P@10"),
            pdireval.SchemaError,
            "two runs",
        ),
        (
            lambda: pdireval.discriminative_power(FRAME, "P@10", alpha=0),
            pdireval.ParameterError,
            "alpha",
        ),
        (lambda: pdireval.asl_curve(FRAME, "P@10", n_resamples=0), pdireval.ParameterError, "n_re"),
        (
            lambda: pdireval.asl_curve(FRAME[FRAME["query"] == "q00"], "P@10"),
            pdireval.SchemaError,
            "at least two queries",
        ),
    ],
)
def test_bad_input_is_refused(call, error, match) -> None:
    with pytest.raises(error, match=match):
        call()
