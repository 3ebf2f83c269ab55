"""Randomised Tukey HSD and letter groups: a plain loop as reference, obvious cases."""

from __future__ import annotations

import itertools

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from science_frames import frame_with_p10

import pdireval
from pdireval.stats import tukey
from pdireval.stats.tukey import TUKEY_COLUMNS, compact_letters


def reference_tukey(values: np.ndarray, n_resamples: int, seed: int):
    """Carterette's algorithm as a loop: shuffle each query's values among the runs, record
    the largest difference of run means; count, per pair, the shuffles at least as large.
    Also counts, with the same shuffles, those where the pair's own difference is as large.
    """
    n, m = values.shape
    keys = np.random.default_rng(np.random.SeedSequence(seed)).random((n_resamples, n, m))
    means = values.mean(axis=0)
    pairs = [(j, i) for i in range(m) for j in range(i + 1, m)]
    beyond = dict.fromkeys(pairs, 0)
    own = dict.fromkeys(pairs, 0)
    for b in range(n_resamples):
        shuffled = np.empty_like(values)
        for q in range(n):
            shuffled[q] = values[q, np.argsort(keys[b, q])]
        resampled = [sum(shuffled[q, r] for q in range(n)) / n for r in range(m)]
        largest = max(resampled) - min(resampled)
        for j, i in pairs:
            observed = abs(means[j] - means[i])
            beyond[(j, i)] += largest >= observed - 1e-9 * max(1.0, observed)
            own[(j, i)] += abs(resampled[j] - resampled[i]) >= observed - 1e-9 * max(1.0, observed)
    p = [(beyond[pair] + 1) / (n_resamples + 1) for pair in pairs]
    p_own = [(own[pair] + 1) / (n_resamples + 1) for pair in pairs]
    return p, p_own


matrices = st.integers(2, 6).flatmap(
    lambda n: st.integers(2, 4).flatmap(
        lambda m: st.lists(
            st.lists(st.integers(0, 10).map(lambda v: v / 10), min_size=m, max_size=m),
            min_size=n,
            max_size=n,
        )
    )
)


@settings(max_examples=25, deadline=None)
@given(values=matrices, seed=st.integers(0, 2**32))
def test_the_vectorised_test_gives_the_reference_loops_p_values(values, seed) -> None:
    matrix = np.array(values)
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(tukey, "BLOCK_ELEMENTS", 37)  # many blocks of resamples
        table = pdireval.tukey_hsd(frame_with_p10(matrix), "P@10", n_resamples=60, seed=seed)
    expected, own = reference_tukey(matrix, 60, seed)
    assert table["p_value"].tolist() == expected
    # the largest difference among all runs is at least the pair's own: more conservative
    assert all(p >= q for p, q in zip(expected, own, strict=True))


def test_identical_runs_get_p_one_and_very_different_runs_the_smallest_p() -> None:
    rng = np.random.default_rng(3)
    base = rng.integers(0, 6, 30) / 10
    values = np.c_[base, base, np.minimum(base + 0.4, 1.0) + (base == 1) * 0]
    table = pdireval.tukey_hsd(frame_with_p10(values), "P@10", n_resamples=500, seed=1)
    p = dict(zip(zip(table.run, table.baseline, strict=True), table.p_value, strict=True))
    assert p[("r1", "r0")] == 1.0
    assert p[("r2", "r0")] == pytest.approx(1 / 501)
    assert p[("r2", "r1")] == pytest.approx(1 / 501)
    assert list(table.columns) == list(TUKEY_COLUMNS)
    assert table["significant"].tolist() == [False, True, True]


def test_two_runs_agree_with_the_paired_randomisation_test() -> None:
    pytest.importorskip("scipy")
    rng = np.random.default_rng(5)
    values = np.c_[rng.integers(0, 11, 25), rng.integers(0, 11, 25)] / 10
    frame = frame_with_p10(values)
    ours = pdireval.tukey_hsd(frame, "P@10", n_resamples=20_000, seed=2)["p_value"].iloc[0]
    theirs = pdireval.compare(frame, "P@10", test="permutation", n_resamples=20_000, seed=4)
    assert ours == pytest.approx(theirs["p_value"].iloc[0], abs=0.02)


def test_a_seed_makes_it_reproducible_and_metrics_share_the_shuffles() -> None:
    values = np.random.default_rng(0).integers(0, 11, (12, 4)) / 10
    frame = frame_with_p10(values)
    first = pdireval.tukey_hsd(frame, ["P@10", "AP"], n_resamples=300, seed=11)
    again = pdireval.tukey_hsd(frame, ["P@10", "AP"], n_resamples=300, seed=11)
    pd.testing.assert_frame_equal(first, again)
    sequence = pdireval.tukey_hsd(frame, "P@10", n_resamples=300, seed=np.random.SeedSequence(11))
    assert sequence["p_value"].tolist() == first.query("metric == 'P@10'")["p_value"].tolist()


significance_patterns = st.integers(2, 7).flatmap(
    lambda m: st.tuples(
        st.lists(st.floats(0, 1), min_size=m, max_size=m, unique=True),
        st.lists(st.booleans(), min_size=m * (m - 1) // 2, max_size=m * (m - 1) // 2),
    )
)


@settings(max_examples=200, deadline=None)
@given(pattern=significance_patterns)
def test_compact_letters_share_a_letter_exactly_when_not_significant(pattern) -> None:
    means, flags = pattern
    runs = [f"s{i}" for i in range(len(means))]
    pairs = list(itertools.combinations(runs, 2))
    different = {frozenset(pair) for pair, flag in zip(pairs, flags, strict=True) if flag}
    best_first = sorted(runs, key=lambda run: -means[runs.index(run)])
    letters = compact_letters(best_first, different)
    for a, b in pairs:
        shared = set(letters[a]) & set(letters[b])
        assert bool(shared) == (frozenset((a, b)) not in different)
    assert "a" in letters[best_first[0]]


def test_letter_groups_of_a_pairs_table() -> None:
    pairs = pd.DataFrame(
        {
            "run": ["B", "C", "C"],
            "baseline": ["A", "A", "B"],
            "metric": "AP",
            "mean": [0.5, 0.2, 0.2],
            "baseline_mean": [0.4, 0.4, 0.5],
            "significant": [False, True, True],
        }
    )
    groups = pdireval.letter_groups(pairs)
    assert groups.index.tolist() == [("AP", "A"), ("AP", "B"), ("AP", "C")]
    assert groups["label"].tolist() == ["a", "b", "c"]
    assert groups["group"].tolist() == ["a", "a", "b"]  # A and B together, C apart
    assert groups["beats"].tolist() == ["c", "c", ""]  # as ranx's superscripts
    with pytest.raises(pdireval.SchemaError, match="missing"):
        pdireval.letter_groups(pairs.iloc[:2])
    with pytest.raises(pdireval.SchemaError, match="significant"):
        pdireval.letter_groups(pairs.drop(columns="significant"))


def test_compare_with_all_pairs_feeds_letter_groups_too() -> None:
    pytest.importorskip("scipy")
    from pdireval.datasets import example

    groups = pdireval.letter_groups(pdireval.compare(example(), "AP"))
    assert groups.index.get_level_values("run").tolist() == ["strong", "medium", "weak"]
    assert groups["group"].tolist() == ["a", "b", "c"]


@pytest.mark.parametrize(
    ("options", "match"),
    [
        ({"n_resamples": 0}, "n_resamples"),
        ({"seed": -1}, "seed"),
        ({"seed": "x"}, "seed"),
        ({"alpha": 1.5}, "alpha"),
    ],
)
def test_bad_options_are_refused(options, match) -> None:
    with pytest.raises(pdireval.ParameterError, match=match):
        pdireval.tukey_hsd(frame_with_p10([[0.1, 0.2], [0.3, 0.1]]), "P@10", **options)


def test_one_run_is_refused() -> None:
    frame = frame_with_p10([[0.1, 0.2], [0.3, 0.1]])
    with pytest.raises(pdireval.SchemaError, match="at least two runs"):
        pdireval.tukey_hsd(frame[frame.run == "r0"], "P@10")
