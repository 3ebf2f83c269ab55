"""Comparing systems: paired tests, corrections, effect sizes, per-query tables, summary CIs."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pandas as pd
import pytest

import pdireval
from pdireval._core.options import Significance
from pdireval.datasets import toy
from pdireval.stats import comparison as _comparison
from pdireval.stats.comparison import COMPARISON_COLUMNS
from pdireval.stats.significance import adjust_pvalues

stats = pytest.importorskip("scipy.stats")


def compare_table(table: pd.DataFrame, **options) -> pd.DataFrame:
    """The comparison of a per-query table with the significance options given."""
    return _comparison.compare_table(table, Significance.from_options(options))


TESTS = ["t", "wilcoxon", "sign", "permutation", "bootstrap"]
CORRECTIONS = ["holm", "bonferroni", "fdr_bh", None]


def per_query(values: dict[str, dict[str, list[float]]]) -> pd.DataFrame:
    """A per-query table like evaluate's: {metric: {run: values by query q00, q01, ...}}."""
    columns = {}
    for metric, runs in values.items():
        columns[metric] = pd.concat(
            {
                run: pd.Series(v, index=pd.Index([f"q{i:02d}" for i in range(len(v))]))
                for run, v in runs.items()
            }
        )
    table = pd.DataFrame(columns)
    table.index.names = ["run", "query"]
    table.columns.name = "metric"
    return table


def ranked_frame(hits: dict[str, list[int]]) -> pd.DataFrame:
    """A long frame where run r puts hits[r][i] relevant documents in the top 10 of query i.

    Every run carries the judgments of every query (10 relevant documents per query),
    so P@10 of (r, i) is hits[r][i] / 10.
    """
    rows = []
    for run, counts in hits.items():
        for i, count in enumerate(counts):
            query = f"q{i:02d}"
            for rank in range(1, 11):
                relevant = rank <= count
                doc = f"{query}-rel{rank}" if relevant else f"{query}-{run}-non{rank}"
                rows.append((run, query, doc, rank, int(relevant)))
            for j in range(count + 1, 11):
                rows.append((run, query, f"{query}-rel{j}", None, 1))
    return pd.DataFrame(rows, columns=["run", "query", "doc", "rank", "rel"])


RNG = np.random.default_rng(12345)
BASE = RNG.uniform(0.1, 0.6, size=12)
GAIN = np.linspace(0.05, 0.2, 12)  # a better run: ahead on every query, by varying amounts


# --- required behaviour -------------------------------------------------------------------


@pytest.mark.parametrize(("test", "correction"), list(itertools.product(TESTS, CORRECTIONS)))
def test_run_ahead_on_every_query_is_significant(test, correction) -> None:
    """A run better than the baseline on all 12 queries (two metrics, so the correction
    counts 2 comparisons) is significant under every test and correction."""
    table = per_query(
        {"AP": {"base": BASE, "better": BASE + GAIN}, "P@5": {"base": BASE, "better": BASE + GAIN}}
    )
    result = compare_table(table, baseline="base", test=test, correction=correction, seed=1)
    assert len(result) == 2
    assert result["significant"].all()
    assert (result["p_adjusted"] < 0.05).all()
    assert (result["wins"] == 12).all()
    assert (result["losses"] == 0).all()
    assert (result["ci_low"] > 0).all()


@pytest.mark.parametrize(("test", "correction"), list(itertools.product(TESTS, CORRECTIONS)))
def test_identical_runs_are_never_significant(test, correction) -> None:
    """Identical runs: p = 1, not significant, all ties, delta 0, effect size undefined."""
    frame = toy()
    twin = frame.assign(run=frame["run"].map({"system1": "copy", "system2": "copy2"}))
    both = pd.concat([frame[frame["run"] == "system1"], twin[twin["run"] == "copy"]])
    result = both.ireval.compare(["AP", "nDCG@5", "P@5"], test=test, correction=correction, seed=0)
    assert len(result) == 3
    assert not result["significant"].any()
    assert (result["p_value"] == 1).all()
    assert (result["p_adjusted"] == 1).all()
    assert (result["delta"] == 0).all()
    assert (result["ties"] == 2).all()
    assert result["effect_size"].isna().all()


def test_t_and_wilcoxon_match_scipy() -> None:
    """p-values equal scipy.stats.ttest_rel / wilcoxon on the same numbers, for every pair."""
    rng = np.random.default_rng(7)
    runs = {name: rng.uniform(0, 1, size=25) for name in ("a", "b", "c")}
    table = per_query({"AP": runs})
    for test, reference in (("t", stats.ttest_rel), ("wilcoxon", stats.wilcoxon)):
        result = compare_table(table, test=test, correction=None)
        assert list(zip(result["run"], result["baseline"], strict=True)) == [
            ("b", "a"),
            ("c", "a"),
            ("c", "b"),
        ]
        for row in result.itertuples():
            expected = reference(runs[row.run], runs[row.baseline]).pvalue
            assert row.p_value == pytest.approx(expected, rel=1e-12)


def test_t_interval_and_effect_size_by_hand() -> None:
    """Differences 1, 2, 3: mean 2, sd 1, d = 2, t interval 2 ± t(0.975, 2)/sqrt(3)."""
    table = per_query({"DCG": {"base": [1.0, 1.0, 1.0], "run": [2.0, 3.0, 4.0]}})
    row = compare_table(table, baseline="base", alpha=0.05).iloc[0]
    half = stats.t.ppf(0.975, 2) * 1 / math.sqrt(3)
    assert row["delta"] == pytest.approx(2.0)
    assert row["mean"] == pytest.approx(3.0)
    assert row["baseline_mean"] == pytest.approx(1.0)
    assert row["relative_delta"] == pytest.approx(2.0)
    assert row["effect_size"] == pytest.approx(2.0)
    assert row["ci_low"] == pytest.approx(2 - half)
    assert row["ci_high"] == pytest.approx(2 + half)


def test_sign_test_by_hand() -> None:
    """7 wins, 2 losses, 1 tie: two-sided binomial p = 2 (C(9,0)+C(9,1)+C(9,2)) / 2^9."""
    base = [0.5] * 10
    run = [0.6] * 7 + [0.4] * 2 + [0.5]
    row = compare_table(per_query({"AP": {"b": base, "r": run}}), test="sign").iloc[0]
    assert (row["wins"], row["ties"], row["losses"]) == (7, 1, 2)
    assert row["p_value"] == pytest.approx(2 * (1 + 9 + 36) / 512)


def test_permutation_close_to_exact_enumeration() -> None:
    """With 8 queries all 256 sign flips can be enumerated; the sampled p is close."""
    diffs = np.array([0.3, -0.1, 0.2, 0.25, 0.05, -0.15, 0.4, 0.1])
    flips = np.array(list(itertools.product([-1, 1], repeat=8)))
    exact = np.mean(np.abs(flips @ diffs) >= abs(diffs.sum()) - 1e-12)
    table = per_query({"AP": {"b": np.zeros(8) + 0.5, "r": 0.5 + diffs}})
    p = compare_table(table, test="permutation", n_resamples=40_000, seed=3)["p_value"][0]
    # Hand count, in units of 0.05: |d| = 1, 2, 2, 3, 4, 5, 6, 8 (total 31), observed sum 21.
    # A flip with positive set S sums to 2 s - 31, s = sum(S); |2 s - 31| >= 21 iff s <= 5
    # or s >= 26. Subsets with s <= 5: {} 1, singles 6, pairs 7 (1+2 twice, 1+3, 1+4, 2+2,
    # 2+3 twice), triples 1 (1+2+2) = 15; the same number by complement have s >= 26.
    assert exact == pytest.approx(30 / 256)
    assert p == pytest.approx(exact, abs=0.01)


@pytest.mark.parametrize("test", ["permutation", "bootstrap"])
def test_resampling_tests_reproducible_with_seed(test) -> None:
    """Same seed, same numbers; another seed, other numbers (borderline differences)."""
    rng = np.random.default_rng(0)
    table = per_query({"AP": {"b": rng.uniform(size=15), "r": rng.uniform(size=15)}})
    first = compare_table(table, test=test, seed=42, n_resamples=2000)
    again = compare_table(table, test=test, seed=42, n_resamples=2000)
    other = compare_table(table, test=test, seed=43, n_resamples=2000)
    pd.testing.assert_frame_equal(first, again)
    assert first["p_value"][0] != other["p_value"][0]
    assert 1 / 2001 <= first["p_value"][0] <= 1


def test_resampling_in_small_blocks(monkeypatch) -> None:
    """Resamples drawn in many blocks (a tiny block size) still give the right p-value."""
    monkeypatch.setattr("pdireval.stats.significance.BLOCK_ELEMENTS", 64)
    table = per_query({"AP": {"b": BASE, "r": BASE + GAIN}})
    result = compare_table(table, test="permutation", n_resamples=1000, seed=0)
    # All-positive differences: only the identity flip is as extreme, about 1/2^12 of flips.
    assert result["p_value"][0] < 0.01
    boot = compare_table(table, test="bootstrap", n_resamples=1000, seed=0)
    assert boot["ci_low"][0] >= GAIN.min() - 1e-12
    assert boot["ci_high"][0] <= GAIN.max() + 1e-12


def test_bootstrap_interval_is_percentile_of_means() -> None:
    """The bootstrap interval lies within the range of the differences and holds the mean."""
    rng = np.random.default_rng(5)
    b, r = rng.uniform(size=30), rng.uniform(size=30)
    row = compare_table(per_query({"AP": {"b": b, "r": r}}), test="bootstrap", seed=1).iloc[0]
    d = r - b
    assert d.min() < row["ci_low"] < d.mean() < row["ci_high"] < d.max()


# --- corrections: textbook definitions on hand-computed cases -------------------------------

P = np.array([0.01, 0.04, 0.03, 0.2])


@pytest.mark.parametrize(
    ("method", "expected"),
    [
        (None, [0.01, 0.04, 0.03, 0.2]),
        # p * m with m = 4
        ("bonferroni", [0.04, 0.16, 0.12, 0.8]),
        # sorted 0.01, 0.03, 0.04, 0.2 times 4, 3, 2, 1 = 0.04, 0.09, 0.08, 0.2; running max
        ("holm", [0.04, 0.09, 0.09, 0.2]),
        # sorted times m/i: 0.04, 0.06, 0.0533, 0.2; running min from the largest
        ("fdr_bh", [0.04, 0.16 / 3, 0.16 / 3, 0.2]),
    ],
)
def test_corrections_by_hand(method, expected) -> None:
    """Each correction matches its definition on four p-values."""
    np.testing.assert_allclose(adjust_pvalues(P, method), expected, rtol=1e-12)


def test_corrections_cap_at_one_and_skip_nan() -> None:
    """Adjusted p-values stop at 1; NaN stays NaN and does not count in m."""
    np.testing.assert_allclose(adjust_pvalues(np.array([0.5, 0.6]), "bonferroni"), [1.0, 1.0])
    adjusted = adjust_pvalues(np.array([0.02, np.nan, 0.03]), "bonferroni")
    np.testing.assert_allclose(adjusted, [0.04, np.nan, 0.06])


@pytest.mark.parametrize("method", ["holm", "bonferroni", "fdr_bh"])
def test_adjusted_never_below_raw(method) -> None:
    """Over many random p-value vectors, adjusted >= raw and <= 1."""
    rng = np.random.default_rng(11)
    for _ in range(200):
        p = rng.uniform(size=rng.integers(1, 12)) ** 3
        adjusted = adjust_pvalues(p, method)
        assert np.all(adjusted >= p)
        assert np.all(adjusted <= 1)


def test_correction_spans_runs_and_metrics() -> None:
    """Bonferroni over 2 runs x 2 metrics multiplies by 4: the correction spans the call."""
    rng = np.random.default_rng(2)
    runs = {name: rng.uniform(size=10) for name in ("a", "b", "c")}
    table = per_query({"AP": runs, "RR": {k: v[::-1] for k, v in runs.items()}})
    result = compare_table(table, baseline="a", correction="bonferroni")
    assert len(result) == 4
    np.testing.assert_allclose(result["p_adjusted"], np.minimum(1, 4 * result["p_value"]))
    holm = compare_table(table, baseline="a", correction="holm")
    smallest = holm["p_value"].idxmin()
    assert holm["p_adjusted"][smallest] == pytest.approx(min(1, 4 * holm["p_value"][smallest]))


# --- the frame-level API --------------------------------------------------------------------


def test_compare_on_toy() -> None:
    """Columns, means, deltas and counts agree with summary and per-query values."""
    frame = toy()
    result = frame.ireval.compare(["AP", "P@5"], baseline="system1")
    assert tuple(result.columns) == COMPARISON_COLUMNS
    assert result["metric"].tolist() == ["AP", "P@5"]
    means = frame.ireval.summary(["AP", "P@5"])
    for row in result.itertuples():
        assert row.mean == pytest.approx(means.loc[row.run, row.metric])
        assert row.baseline_mean == pytest.approx(means.loc[row.baseline, row.metric])
        assert row.delta == pytest.approx(row.mean - row.baseline_mean)
        assert row.wins + row.ties + row.losses == 2
    assert result["wins"].tolist() == [0, 1]  # system2 is behind on AP for both topics
    assert result["significant"].dtype == bool
    assert pdireval.compare(frame, ["AP", "P@5"], baseline="system1").equals(result)


def test_baseline_choices() -> None:
    """None: all pairs; one run: every other run; a list: no pair twice."""
    frame = ranked_frame({"a": [1, 2, 3], "b": [2, 2, 4], "c": [3, 4, 5]})
    pairs = lambda result: list(zip(result["run"], result["baseline"], strict=True))  # noqa: E731
    assert pairs(frame.ireval.compare("P@10")) == [("b", "a"), ("c", "a"), ("c", "b")]
    assert pairs(frame.ireval.compare("P@10", baseline="b")) == [("a", "b"), ("c", "b")]
    listed = frame.ireval.compare("P@10", baseline=["a", "b"])
    assert pairs(listed) == [("b", "a"), ("c", "a"), ("c", "b")]


def test_run_missing_a_query_scores_zero_when_judged() -> None:
    """A run with only judgments for a query (retrieved nothing) scores 0 there under
    queries='judged', and the query takes part in the comparison."""
    frame = ranked_frame({"a": [5, 5, 5], "b": [6, 6, 0]})
    frame = frame[~((frame["run"] == "b") & (frame["query"] == "q02") & frame["rank"].notna())]
    result = frame.ireval.compare("P@10", baseline="a", test="sign")
    assert (result["wins"][0], result["losses"][0]) == (2, 1)
    assert result["baseline_mean"][0] == pytest.approx(0.5)
    assert result["mean"][0] == pytest.approx(0.4)


def test_missing_run_query_pair_is_refused() -> None:
    """Under queries='retrieved' a run that retrieved nothing for q02 lacks that query: the
    error names the run, the query and the remedies instead of dropping it."""
    frame = ranked_frame({"a": [5, 5, 5], "b": [6, 6, 0]})
    frame = frame[~((frame["run"] == "b") & (frame["query"] == "q02") & frame["rank"].notna())]
    with pytest.raises(pdireval.SchemaError, match=r"runs \['b'\].*\['q02'\].*queries='judged'"):
        frame.ireval.compare("P@10", queries="retrieved")
    with pytest.raises(pdireval.SchemaError, match="merge_qrels"):
        frame.ireval.per_query("P@10", queries="retrieved")


def test_unjudged_queries_are_left_out_under_all() -> None:
    """Under queries='all' a query no run has judgments for is NaN everywhere: skipped."""
    frame = ranked_frame({"a": [5, 5], "b": [6, 7]})
    extra = pd.DataFrame(
        {"run": ["a", "b"], "query": "q99", "doc": "x", "rank": [1, 1], "rel": [np.nan, np.nan]}
    )
    frame = pd.concat([frame, extra], ignore_index=True)
    result = frame.ireval.compare("P@10", queries="all", test="sign")
    assert result["wins"][0] + result["ties"][0] + result["losses"][0] == 2


# --- per-query table ------------------------------------------------------------------------


def test_per_query_table() -> None:
    """Values per run, deltas to the baseline, sorted by the first delta (gains first)."""
    frame = ranked_frame({"a": [5, 5, 5, 2], "b": [6, 3, 5, 9], "c": [1, 1, 1, 1]})
    table = frame.ireval.per_query("P@10", baseline="a")
    assert table.columns.tolist() == [
        ("value", "a"),
        ("value", "b"),
        ("value", "c"),
        ("delta", "b"),
        ("delta", "c"),
    ]
    assert table.index.tolist() == ["q03", "q00", "q02", "q01"]
    assert table["delta"]["b"].tolist() == pytest.approx([0.7, 0.1, 0.0, -0.2])
    assert table["delta"]["c"].tolist() == pytest.approx([-0.1, -0.4, -0.4, -0.4])
    assert table.index.name == "query"
    default = frame.ireval.per_query("P@10")
    assert default.columns[0] == ("value", "a")


def test_per_query_errors() -> None:
    """One metric only; the baseline must be a run."""
    frame = toy()
    with pytest.raises(pdireval.MetricError, match="one metric"):
        frame.ireval.per_query(["AP", "RR"])
    with pytest.raises(pdireval.SchemaError, match=r"baseline run\(s\) \['nope'\] not found"):
        frame.ireval.per_query("AP", baseline="nope")


# --- errors ---------------------------------------------------------------------------------


def test_bad_test_name() -> None:
    """An unknown test lists the supported ones."""
    with pytest.raises(pdireval.ParameterError, match=r"test='z' .*\['t', 'wilcoxon', 'sign'"):
        toy().ireval.compare("AP", test="z")


def test_bad_correction_name() -> None:
    """An unknown correction lists the supported ones and None."""
    with pytest.raises(pdireval.ParameterError, match=r"correction='bh'.*'fdr_bh'\] or None"):
        toy().ireval.compare("AP", correction="bh")


def test_unknown_baseline() -> None:
    """An unknown baseline run names the runs of the frame."""
    with pytest.raises(
        pdireval.SchemaError, match=r"\['system3'\] not found.*\['system1', 'system2'\]"
    ):
        toy().ireval.compare("AP", baseline="system3")
    with pytest.raises(pdireval.SchemaError, match="names no run"):
        toy().ireval.compare("AP", baseline=[])


def test_single_run_frames_refused() -> None:
    """One run, or no run column at all, cannot be compared."""
    frame = toy()
    one = frame[frame["run"] == "system1"]
    with pytest.raises(pdireval.SchemaError, match=r"at least two runs.*\['system1'\]"):
        one.ireval.compare("AP")
    with pytest.raises(pdireval.SchemaError, match="no run column"):
        one.drop(columns="run").ireval.compare("AP")
    with pytest.raises(pdireval.SchemaError, match="no run column"):
        one.drop(columns="run").ireval.per_query("AP")


@pytest.mark.parametrize(
    ("options", "pattern"),
    [
        ({"alpha": 0}, "alpha=0 must be a number strictly between 0 and 1"),
        ({"alpha": 1.5}, "alpha=1.5"),
        ({"n_resamples": 0}, "n_resamples=0 must be a whole number"),
    ],
)
def test_bad_numbers(options, pattern) -> None:
    """alpha and n_resamples are checked."""
    with pytest.raises(pdireval.ParameterError, match=pattern):
        toy().ireval.compare("AP", **options)


# --- summary with confidence intervals ------------------------------------------------------


def test_summary_without_ci_unchanged() -> None:
    """ci=None is today's summary exactly."""
    frame = toy()
    table = frame.ireval.evaluate(["AP", "P@5"])
    pd.testing.assert_frame_equal(
        frame.ireval.summary(["AP", "P@5"], ci=None), table.groupby(level=0).mean()
    )


def test_summary_t_interval_matches_scipy() -> None:
    """Without runs: a frame indexed by metric with [mean, ci_low, ci_high], the t interval
    of scipy.stats.t.interval."""
    frame = ranked_frame({"a": [1, 4, 6, 9, 3]}).drop(columns="run")
    result = frame.ireval.summary(["P@10", "P@5"], ci=0.9)
    assert result.columns.tolist() == ["mean", "ci_low", "ci_high"]
    assert result.index.tolist() == ["P@10", "P@5"]
    values = np.array([1, 4, 6, 9, 3]) / 10
    low, high = stats.t.interval(0.9, 4, loc=values.mean(), scale=stats.sem(values))
    assert result.loc["P@10"].tolist() == pytest.approx([values.mean(), low, high])


def test_summary_ci_by_run() -> None:
    """With runs: (metric, stat) columns; dropping to the stat level gives the plain summary."""
    frame = toy()
    result = frame.ireval.summary(["AP", "P@5"], ci=0.95, ci_method="bootstrap", seed=0)
    assert result.columns.names == ["metric", "stat"]
    assert result["AP"].columns.tolist() == ["mean", "ci_low", "ci_high"]
    plain = frame.ireval.summary(["AP", "P@5"])
    pd.testing.assert_frame_equal(result.xs("mean", axis=1, level="stat"), plain, check_names=False)
    assert (result.xs("ci_low", axis=1, level="stat") <= plain).all().all()
    again = frame.ireval.summary(["AP", "P@5"], ci=0.95, ci_method="bootstrap", seed=0)
    pd.testing.assert_frame_equal(result, again)


def test_summary_bootstrap_median_and_gmean() -> None:
    """Bootstrap intervals work for other aggregates and hold the point value."""
    frame = ranked_frame({"a": [1, 4, 6, 9, 3, 2, 8]}).drop(columns="run")
    for agg in ("median", "gmean", "hmean"):
        result = frame.ireval.summary("P@10", agg=agg, ci=0.95, ci_method="bootstrap", seed=1)
        row = result.loc["P@10"]
        assert row["ci_low"] <= row[agg] <= row["ci_high"]


def test_summary_ci_errors() -> None:
    """t intervals only for the mean; ci and ci_method are checked."""
    frame = toy()
    with pytest.raises(pdireval.ParameterError, match="use ci_method='bootstrap'"):
        frame.ireval.summary("AP", agg="median", ci=0.95)
    with pytest.raises(pdireval.ParameterError, match="ci=95 must be a number strictly between"):
        frame.ireval.summary("AP", ci=95)
    with pytest.raises(pdireval.ParameterError, match="ci_method='z'"):
        frame.ireval.summary("AP", ci=0.95, ci_method="z")


def test_undefined_values_get_their_own_advice() -> None:
    """SearchLength is NaN where nothing relevant was found: the message says so instead of
    suggesting to merge the judgments again."""
    frame = toy()
    worse = frame[frame["run"] == "system2"].assign(run="blind", rel=0)
    both = pd.concat([frame[frame["run"] == "system1"], worse], ignore_index=True)
    with pytest.raises(pdireval.SchemaError, match=r"SearchLength is undefined \(NaN\)") as info:
        pdireval.compare(both, "SearchLength")
    assert "merge_qrels" not in str(info.value)
