"""Comparisons and summaries of tables with judge, collection and seed levels."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from levels_frames import LEVELS, seeded_table

from pdireval import ParameterError
from pdireval._core.errors import SchemaError
from pdireval._core.levels import Levels
from pdireval._core.options import Significance
from pdireval.datasets import example
from pdireval.stats import significance as _significance
from pdireval.stats.comparison import COMPARISON_COLUMNS, compare_table
from pdireval.stats.significance import adjust_pvalues, two_way_bootstrap_means
from pdireval.stats.summary import aggregate, seed_summary, summary_table

NUMBERS = ["mean", "baseline_mean", "delta", "ci_low", "ci_high", "p_value", "effect_size"]


@pytest.fixture(scope="module")
def table() -> pd.DataFrame:
    return seeded_table(n_queries=8)


def _one_seed(table: pd.DataFrame, seed: int) -> pd.DataFrame:
    return table.xs(seed, level="seed")


def test_levels_with_only_a_run_change_nothing() -> None:
    table = example().ireval.evaluate(["AP", "P@10"])
    plain = compare_table(table, Significance(baseline="medium"))
    levelled = compare_table(
        table, Significance(baseline="medium"), Levels(query="query", run="run")
    )
    pd.testing.assert_frame_equal(plain, levelled)


@pytest.mark.parametrize("test", ["t", "wilcoxon", "sign", "permutation", "bootstrap"])
def test_each_collection_is_compared_on_its_own(table, test) -> None:
    one = _one_seed(table, 2)
    levels = Levels(query="query", run="system", collection="dataset")
    settings_ = Significance(baseline="bm25", test=test, n_resamples=500, seed=3)
    both = compare_table(one, settings_, levels)
    assert list(both.columns) == ["dataset", *COMPARISON_COLUMNS]
    assert list(dict.fromkeys(both["dataset"])) == ["robust04", "msmarco", "trec-covid"]
    for name, part in both.groupby("dataset", sort=False):
        alone = compare_table(one.xs(name, level="dataset"), settings_)
        got = part.drop(columns="dataset").reset_index(drop=True)
        pd.testing.assert_frame_equal(
            got.drop(columns=["p_adjusted", "significant"]),
            alone.drop(columns=["p_adjusted", "significant"]),
        )
    # One correction over every comparison of the call (3 collections x 4 runs x 2 metrics).
    assert len(both) == 24
    expected = adjust_pvalues(both["p_value"].to_numpy(), "holm")
    np.testing.assert_array_equal(both["p_adjusted"].to_numpy(), expected)


@pytest.mark.parametrize("test", ["t", "wilcoxon", "sign", "permutation"])
def test_tests_other_than_bootstrap_use_differences_averaged_over_seeds(table, test) -> None:
    settings_ = Significance(baseline="bm25", test=test, n_resamples=500, seed=3)
    got = compare_table(table, settings_, LEVELS)
    averaged = table.groupby(level=["system", "dataset", "query"], sort=False).mean()
    expected = compare_table(
        averaged, settings_, Levels(query="query", run="system", collection="dataset")
    )
    pd.testing.assert_frame_equal(got[NUMBERS], expected[NUMBERS], rtol=1e-9)
    for column in ("wins", "ties", "losses", "p_adjusted", "significant"):
        pd.testing.assert_series_equal(got[column], expected[column], rtol=1e-9)


def test_means_are_the_means_of_per_seed_means(table) -> None:
    got = compare_table(table, Significance(baseline="bm25"), LEVELS)
    per_seed = table.groupby(level=["system", "dataset", "seed"]).mean()
    means = per_seed.groupby(level=["system", "dataset"]).mean()
    for row in got.itertuples(index=False):
        assert row.mean == pytest.approx(means.loc[(row.run, row.dataset), row.metric])
        assert row.baseline_mean == pytest.approx(
            means.loc[(row.baseline, row.dataset), row.metric]
        )
        assert row.delta == pytest.approx(row.mean - row.baseline_mean)


def reference_two_way(cube: np.ndarray, n_resamples: int, seed: int) -> np.ndarray:
    """Plain two-way bootstrap: loop over resamples, the same draws as the kernel."""
    rng = np.random.default_rng(seed)
    k, n, s = cube.shape
    query_picks = rng.integers(0, n, size=(n_resamples, n))
    seed_picks = rng.integers(0, s, size=(n_resamples, s))
    out = np.empty((k, n_resamples))
    for b in range(n_resamples):
        for row in range(k):
            out[row, b] = cube[row][np.ix_(query_picks[b], seed_picks[b])].mean()
    return out


@settings(max_examples=30, deadline=None)
@given(
    k=st.integers(1, 3),
    n=st.integers(1, 6),
    s=st.integers(1, 4),
    seed=st.integers(0, 2**32 - 1),
)
def test_two_way_bootstrap_matches_plain_loop(k, n, s, seed) -> None:
    cube = np.random.default_rng(seed).normal(size=(k, n, s))
    got = two_way_bootstrap_means(cube, 50, seed)
    np.testing.assert_allclose(got, reference_two_way(cube, 50, seed), rtol=1e-12, atol=1e-15)


def test_two_way_bootstrap_in_small_blocks_agrees_statistically(monkeypatch) -> None:
    rng = np.random.default_rng(5)
    cube = rng.normal(size=(2, 10, 4)) + rng.normal(size=(1, 1, 4))  # a seed effect
    whole = two_way_bootstrap_means(cube, 4000, 1)
    monkeypatch.setattr(_significance, "BLOCK_ELEMENTS", 64)
    blocked = two_way_bootstrap_means(cube, 4000, 1)
    assert not np.array_equal(whole, blocked)  # several blocks draw in another order
    np.testing.assert_allclose(whole.std(axis=1), blocked.std(axis=1), rtol=0.1)
    np.testing.assert_allclose(whole.mean(axis=1), cube.mean(axis=(1, 2)), atol=0.03)


def test_two_way_bootstrap_variance_counts_queries_and_seeds() -> None:
    """The bootstrap variance of the mean of a crossed design is close to
    var(query means)/n + var(seed means)/s (Owen 2007), not to the query term alone.
    """
    rng = np.random.default_rng(0)
    n, s = 40, 8
    cube = rng.normal(size=(1, n, 1)) + 2 * rng.normal(size=(1, 1, s))
    boot = two_way_bootstrap_means(cube, 20_000, 2)[0]
    block = cube[0]
    query_means, seed_means = block.mean(axis=1), block.mean(axis=0)
    expected = query_means.var() / n + seed_means.var() / s
    assert boot.var() == pytest.approx(expected, rel=0.1)
    assert boot.var() > 3 * query_means.var() / n


def test_bootstrap_with_seeds_is_two_way(table) -> None:
    settings_ = Significance(baseline="bm25", test="bootstrap", n_resamples=300, seed=7)
    got = compare_table(table, settings_, LEVELS)
    block = table.xs("msmarco", level="dataset")["AP"].unstack("system")
    wide = block.unstack("seed")  # query x (system, seed)
    runs = ["dense", "colbert", "splade", "monot5"]
    left = np.stack([wide[run].to_numpy() for run in runs])
    right = np.stack([wide["bm25"].to_numpy()] * len(runs))
    means = reference_two_way(left - right, 300, 7)
    delta = (left - right).mean(axis=(1, 2))
    count = (np.abs(means - delta[:, None]) >= np.abs(delta)[:, None] - 1e-9).sum(axis=1)
    rows = got[(got["dataset"] == "msmarco") & (got["metric"] == "AP")]
    np.testing.assert_allclose(rows["p_value"], (count + 1) / 301)
    low, high = np.quantile(means, [0.025, 0.975], axis=1)
    np.testing.assert_allclose(rows["ci_low"], low)
    np.testing.assert_allclose(rows["ci_high"], high)


def test_a_missing_seed_is_named(table) -> None:
    drop = (
        (table.index.get_level_values("system") == "splade")
        & (table.index.get_level_values("seed") == 3)
        & (table.index.get_level_values("dataset") == "msmarco")
    )
    with pytest.raises(SchemaError, match=r"run 'splade' has no results for seed=3 in dataset="):
        compare_table(table[~drop], Significance(baseline="bm25"), LEVELS)


def test_a_run_missing_a_collection_is_named(table) -> None:
    drop = (table.index.get_level_values("system") == "dense") & (
        table.index.get_level_values("dataset") == "trec-covid"
    )
    with pytest.raises(SchemaError, match=r"runs \['dense'\] have no rows in dataset='trec-covid'"):
        compare_table(table[~drop], Significance(baseline="bm25"), LEVELS)


def test_a_query_missing_some_seeds_is_refused(table) -> None:
    drop = (table.index.get_level_values("seed") == 1) & (
        table.index.get_level_values("query") == "q3"
    )
    with pytest.raises(SchemaError, match="every seed"):
        compare_table(table[~drop], Significance(baseline="bm25"), LEVELS)


def test_a_level_named_like_a_comparison_column_is_refused(table) -> None:
    renamed = table.rename_axis(index={"dataset": "metric"})
    levels = Levels(query="query", run="system", collection="metric", seed="seed")
    with pytest.raises(SchemaError, match="named like a column of the result"):
        compare_table(renamed, Significance(baseline="bm25"), levels)


def test_judges_and_collections_both_scope_the_comparisons(table) -> None:
    one = _one_seed(table, 1)
    judged = pd.concat({"nist": one, "llm": one * 0.9}, names=["judge"])
    judged = judged.reorder_levels(["system", "judge", "dataset", "query"])
    levels = Levels(query="query", run="system", judge="judge", collection="dataset")
    got = compare_table(judged, Significance(baseline="bm25", test="sign"), levels)
    assert list(got.columns[:3]) == ["judge", "dataset", "run"]
    assert len(got) == 2 * 3 * 4 * 2
    nist = got[got["judge"] == "nist"].drop(columns="judge").reset_index(drop=True)
    plain = compare_table(
        one,
        Significance(baseline="bm25", test="sign"),
        Levels(query="query", run="system", collection="dataset"),
    )
    pd.testing.assert_series_equal(nist["p_value"], plain["p_value"])


# --- summaries ----------------------------------------------------------------------


def test_aggregate_gives_one_row_per_group(table) -> None:
    got = aggregate(table, "mean", LEVELS)
    expected = table.groupby(level=["system", "dataset", "seed"]).mean()
    pd.testing.assert_frame_equal(got, expected)


def test_aggregate_without_levels_is_unchanged() -> None:
    table = example().ireval.evaluate(["AP"])
    pd.testing.assert_frame_equal(
        aggregate(table, "mean", Levels(query="query", run="run")), aggregate(table, "mean")
    )


def test_summary_table_intervals_per_group(table) -> None:
    got = summary_table(table, levels=LEVELS)
    part = table.xs(("colbert", "msmarco", 2), level=["system", "dataset", "seed"])
    alone = summary_table(part)
    row = got.loc[("colbert", "msmarco", 2)]
    for metric in table.columns:
        for stat in ("mean", "ci_low", "ci_high"):
            assert row[metric, stat] == pytest.approx(alone.loc[metric, stat])


def test_seed_summary_is_a_t_interval_over_seed_means(table) -> None:
    from scipy import stats

    got = seed_summary(table, LEVELS, ci=0.9)
    means = table.groupby(level=["system", "dataset", "seed"]).mean()
    seeds = means.xs(("monot5", "robust04"), level=["system", "dataset"])["AP"].to_numpy()
    interval = stats.t.interval(0.9, len(seeds) - 1, seeds.mean(), stats.sem(seeds))
    row = got.loc[("monot5", "robust04"), "AP"]
    assert row["mean"] == pytest.approx(seeds.mean())
    assert row["seeds"] == 3
    assert row["sd"] == pytest.approx(seeds.std(ddof=1))
    assert (row["ci_low"], row["ci_high"]) == pytest.approx(interval)


def test_seed_summary_needs_a_seed_level(table) -> None:

    with pytest.raises(ParameterError, match="seed level"):
        seed_summary(_one_seed(table, 1), Levels(query="query", run="system"))


# --- risk-sensitive columns -----------------------------------------------------------


def test_risk_columns_match_pdireval_risk() -> None:
    import pdireval

    frame = example()
    table = frame.ireval.evaluate(["AP"])
    got = compare_table(table, Significance(baseline="medium"), risk_alpha=2)
    assert list(got.columns[-2:]) == ["urisk", "trisk"]
    expected = pdireval.risk(frame, "AP", baseline="medium", alpha=2).set_index("run")
    for row in got.itertuples(index=False):
        assert row.urisk == pytest.approx(expected.loc[row.run, "urisk"])
        assert row.trisk == pytest.approx(expected.loc[row.run, "trisk"])
    plain = compare_table(table, Significance(baseline="medium"))
    pd.testing.assert_frame_equal(got.drop(columns=["urisk", "trisk"]), plain)


def test_risk_columns_with_seeds_use_seed_averaged_differences(table) -> None:
    from pdireval.stats.risk import urisk_trisk

    got = compare_table(table, Significance(baseline="bm25"), LEVELS, risk_alpha=5)
    block = table.xs("trec-covid", level="dataset")["nDCG@10"]
    averaged = block.groupby(level=["system", "query"]).mean().unstack("system")
    diffs = (averaged[["dense", "monot5"]].sub(averaged["bm25"], axis=0)).to_numpy().T
    urisk, trisk = urisk_trisk(diffs, 5.0)
    rows = got[(got["dataset"] == "trec-covid") & (got["metric"] == "nDCG@10")]
    rows = rows.set_index("run").loc[["dense", "monot5"]]
    np.testing.assert_allclose(rows["urisk"], urisk)
    np.testing.assert_allclose(rows["trisk"], trisk)


@pytest.mark.parametrize("value", [-1, "2", float("nan"), True])
def test_risk_alpha_must_be_a_number_at_least_zero(table, value) -> None:

    with pytest.raises(ParameterError, match="risk_alpha"):
        compare_table(table, Significance(baseline="bm25"), LEVELS, risk_alpha=value)
