"""The Dask backend gives the pandas numbers, lazily, on a real multi-process cluster."""

from __future__ import annotations

import inspect
import json
import logging
import os
import subprocess
import sys
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

dask = pytest.importorskip("dask")
dd = pytest.importorskip("dask.dataframe")
distributed = pytest.importorskip("distributed")

from adversarial import adversarial_case  # noqa: E402

import pdireval  # noqa: E402
import pdireval.dask  # noqa: E402
from pdireval._core.roles import ColumnMap  # noqa: E402
from pdireval.datasets import example  # noqa: E402
from pdireval.metrics import parse_metrics  # noqa: E402
from pdireval.stats.summary import EFFICIENCY  # noqa: E402

METRICS = ["AP", "nDCG@10", "P@5", "R@20", "RR", "Rprec", "Bpref", "NumRet"]


@pytest.fixture(scope="module")
def client():
    """Two worker processes, one thread each; no dashboard, no fixed port, quiet logs."""
    logging.getLogger("distributed").setLevel(logging.ERROR)
    cluster = distributed.LocalCluster(
        n_workers=2,
        threads_per_worker=1,
        processes=True,
        dashboard_address=None,
        silence_logs=logging.ERROR,
    )
    client = distributed.Client(cluster)
    try:
        yield client
    finally:
        client.close()
        cluster.close()


def _pandas_shape(lazy, keys: list[str]) -> pd.DataFrame:
    table = lazy.compute().set_index(keys).sort_index()
    table.columns.name = "metric"
    return table


def _assert_same(actual: pd.DataFrame, expected: pd.DataFrame) -> None:
    """Same ids (compared as strings: dask may store them as arrow strings), same values."""
    assert actual.index.names == expected.index.names
    assert [tuple(map(str, np.atleast_1d(i))) for i in actual.index] == [
        tuple(map(str, np.atleast_1d(i))) for i in expected.index
    ]
    assert list(actual.columns) == list(expected.columns)
    np.testing.assert_allclose(actual.to_numpy(), expected.to_numpy(), rtol=0, atol=1e-12)


def _scrambled(frame: pd.DataFrame, npartitions: int, seed: int):
    """The frame's rows in random order, split into partitions (queries span several)."""
    order = np.random.default_rng(seed).permutation(len(frame))
    return dd.from_pandas(frame.iloc[order].reset_index(drop=True), npartitions=npartitions)


def _two_runs(seed: int) -> tuple[pd.DataFrame, pd.DataFrame]:
    """An adversarial run, a second run that misses a third of its queries and a third that
    retrieved one query only (so most partitions hold no row of it)."""
    run, qrels = adversarial_case(seed)
    queries = run["query"].unique()
    kept = queries[np.random.default_rng(seed).random(len(queries)) < 0.66]
    other = run[run["query"].isin(kept)].assign(score=lambda f: -f["score"])
    single = run[run["query"] == queries[0]].assign(run="c")
    runs = [run.assign(run="a"), other.assign(run="b"), single]
    return pd.concat(runs, ignore_index=True), qrels


def test_evaluate_is_lazy_and_matches_pandas(client) -> None:
    """evaluate returns a dask DataFrame; computed, it is pandas' per-query table."""
    df = example()
    lazy = _scrambled(df, 5, seed=0).ireval.evaluate(METRICS)
    assert isinstance(lazy, dd.DataFrame)
    assert list(lazy.columns) == ["run", "query", *METRICS]
    assert (lazy.dtypes[METRICS] == np.float64).all()
    _assert_same(_pandas_shape(lazy, ["run", "query"]), pdireval.evaluate(df, METRICS))


def test_nothing_computed_until_compute(client) -> None:
    """A data error (a document listed twice) surfaces only at compute time; a bad
    metric name or a missing column is refused at call time."""
    df = example()
    bad = pd.concat([df, df.iloc[[0]]], ignore_index=True)
    lazy = pdireval.dask.evaluate(dd.from_pandas(bad, npartitions=3), ["AP"])
    with pytest.raises(pdireval.SchemaError, match=r"more than once|duplicate"):
        lazy.compute()
    ddf = dd.from_pandas(df, npartitions=3)
    with pytest.raises(pdireval.MetricError):
        ddf.ireval.evaluate(["NotAMetric"])
    with pytest.raises(pdireval.SchemaError, match="qid"):
        ddf.ireval(query="qid").evaluate(["AP"])


@pytest.mark.parametrize("agg", ["mean", "gmean"])
def test_summary_matches_pandas(client, agg: str) -> None:
    """summary per run equals pandas' to 1e-12, also under another query policy."""
    df = example()
    ddf = _scrambled(df, 4, seed=1)
    same_rows = ddf.compute()  # the runs in the order they first appear in these rows
    for queries in ("judged", "retrieved"):
        actual = ddf.ireval.summary(METRICS, agg=agg, queries=queries)
        expected = same_rows.ireval.summary(METRICS, agg=agg, queries=queries)
        _assert_same(actual, expected)


def test_summary_with_interval_matches_pandas(client) -> None:
    """summary(ci=...) goes through the same per-query table."""
    ddf = _scrambled(example(), 3, 2)
    options = {"ci": 0.9, "ci_method": "bootstrap", "n_resamples": 200, "seed": 0}
    actual = pdireval.dask.summary(ddf, ["AP"], **options)
    expected = pdireval.summary(ddf.compute(), ["AP"], **options)
    pd.testing.assert_frame_equal(actual, expected, check_index_type=False, rtol=0, atol=1e-12)


def test_compare_matches_pandas(client) -> None:
    """compare on dask equals pdireval.compare on the same rows in the same order (the
    runs' first appearance decides the pairs), for one baseline and for all pairs."""
    pytest.importorskip("scipy")
    ddf = _scrambled(example(), 4, seed=3)
    same_rows = ddf.compute()
    for baseline in ("weak", None):
        actual = ddf.ireval.compare(["AP", "nDCG@10"], baseline=baseline, test="t")
        expected = same_rows.ireval.compare(["AP", "nDCG@10"], baseline=baseline, test="t")
        pd.testing.assert_frame_equal(actual, expected, check_exact=True)


def _partitioned(pieces: list[pd.DataFrame]):
    """One partition per piece, in this order, rows in their order."""
    parts = [dd.from_pandas(piece, npartitions=1, sort=False) for piece in pieces]
    return dd.concat(parts)


def test_compare_pairs_follow_the_first_appearance_of_the_runs(client) -> None:
    """Partition order first, then row order in a partition: medium (partition 0), then
    weak (row 0 of partition 1) before strong (row 1 of partition 1). The earlier run of
    each pair is its baseline, as pandas gives it for the computed frame."""
    frame = example()
    runs = {name: frame[frame["run"] == name] for name in ("weak", "medium", "strong")}
    medium = runs["medium"]
    half = medium["query"].isin(medium["query"].unique()[::2])
    second = pd.concat([runs["weak"].iloc[:1], runs["strong"], runs["weak"].iloc[1:]])
    ddf = _partitioned([medium[half], pd.concat([second, medium[~half]])])
    same_rows = ddf.compute()
    assert pdireval.engine.runs.run_order(same_rows, "run") == ["medium", "weak", "strong"]

    actual = ddf.ireval.compare(["AP", "P@5"], test="sign")
    pairs = list(dict.fromkeys(zip(actual["run"], actual["baseline"], strict=True)))
    assert pairs == [("weak", "medium"), ("strong", "medium"), ("strong", "weak")]
    expected = same_rows.ireval.compare(["AP", "P@5"], test="sign")
    pd.testing.assert_frame_equal(actual, expected, check_exact=True)
    # the shuffle (and a baseline list) do not change the order; sorted order would
    listed = pdireval.dask.compare(ddf, "AP", baseline=["strong", "weak"], npartitions=3)
    assert list(zip(listed["run"], listed["baseline"], strict=True)) == [
        ("medium", "strong"),
        ("weak", "strong"),
        ("medium", "weak"),
    ]
    unshuffled = pdireval.dask.compare(_partitioned(list(runs.values())), "AP", shuffle=False)
    assert list(zip(unshuffled["run"], unshuffled["baseline"], strict=True)) == [
        ("medium", "weak"),
        ("strong", "weak"),
        ("strong", "medium"),
    ]


def test_compare_takes_the_categories_order_of_a_categorical_run_column(client) -> None:
    """A categorical run column orders the runs by its categories, as in pandas."""
    frame = example()
    frame = frame.assign(run=pd.Categorical(frame["run"], ["strong", "weak", "medium"]))
    ddf = _scrambled(frame, 3, seed=5)
    actual = ddf.ireval.compare("AP", test="sign")
    pairs = list(zip(actual["run"].astype(str), actual["baseline"].astype(str), strict=True))
    assert pairs == [("weak", "strong"), ("medium", "strong"), ("medium", "weak")]
    expected = ddf.compute().ireval.compare("AP", test="sign")
    pd.testing.assert_frame_equal(actual, expected, check_exact=True)


def test_compare_refuses_bad_risk_alpha_before_computing(client) -> None:
    broken = dd.from_pandas(pd.DataFrame({"query": ["q"], "doc": ["d"], "rank": [0.5]}), 1)
    with pytest.raises(pdireval.ParameterError, match="risk_alpha"):
        pdireval.dask.compare(broken, "AP", risk_alpha=-1)


def test_compare_with_risk_matches_pandas(client) -> None:
    ddf = _scrambled(example(), 4, seed=8)
    actual = ddf.ireval.compare("AP", baseline="medium", risk_alpha=2)
    expected = ddf.compute().ireval.compare("AP", baseline="medium", risk_alpha=2)
    assert {"urisk", "trisk"} <= set(actual.columns)
    pd.testing.assert_frame_equal(actual, expected, check_exact=True)


# ------------------------------------------------------------------ time column: latency


def _timed(frame: pd.DataFrame, seed: int = 0) -> pd.DataFrame:
    """The frame with a time per (run, collection, seed, query): each judge of a query
    sees the same ranking, answered once."""
    by = [name for name in ("run", "collection", "seed", "query") if name in frame.columns]
    groups = frame.groupby(by, sort=False).ngroup().to_numpy()
    times = np.random.default_rng(seed).gamma(2.0, 0.05, groups.max() + 1)
    return frame.assign(time=times[groups])


@pytest.mark.parametrize("roles", [(), ("judge",), ("judge", "collection", "seed")])
def test_summary_of_a_timed_frame_has_the_latency_columns_of_pandas(client, roles) -> None:
    """Several runs, queries split over partitions: the same columns, the same numbers,
    with and without Latency among the metrics, and with an interval (no latency)."""
    frame = _timed(_with_roles(example(), roles), seed=len(roles))
    ddf = _scrambled(frame, 5, seed=2)
    same_rows = ddf.compute()
    for metrics in (["AP", "nDCG@10"], ["AP", "Latency"]):
        actual = ddf.ireval.summary(metrics)
        expected = same_rows.ireval.summary(metrics)
        assert "latency_p95" in actual.columns
        pd.testing.assert_frame_equal(actual, expected, check_exact=True)
    actual = ddf.ireval.summary("AP", ci=0.9)
    pd.testing.assert_frame_equal(actual, same_rows.ireval.summary("AP", ci=0.9), check_exact=True)


def test_summary_of_one_timed_run_counts_its_queries(client) -> None:
    """Without a run column the summary is a Series, the timed queries included."""
    frame = example()
    frame = _timed(frame[frame["run"] == "weak"].drop(columns="run"))
    ddf = _scrambled(frame, 3, seed=4)
    actual = ddf.ireval.summary(["AP", "RR"])
    expected = ddf.compute().ireval.summary(["AP", "RR"])
    assert list(actual.index) == ["AP", "RR", *EFFICIENCY]
    assert actual["queries"] == 50
    # the same numbers; pandas 2.2 may add a mean in another order (the last bit)
    pd.testing.assert_series_equal(actual, expected, check_exact=False, rtol=1e-15, atol=0)


def test_a_time_column_switched_off_adds_no_latency(client) -> None:
    """columns={"time": False} reaches every partition: no latency, as in pandas."""
    ddf = _scrambled(_timed(example()), 3, seed=6)
    actual = pdireval.dask.summary(ddf, "AP", columns={"time": False})
    expected = pdireval.summary(ddf.compute(), "AP", columns={"time": False})
    assert list(actual.columns) == ["AP"]
    pd.testing.assert_frame_equal(actual, expected, check_exact=True)
    with pytest.raises(pdireval.SchemaError, match="Latency needs a 'time' column"):
        ddf.ireval(time=False).evaluate("Latency")


# ------------------------------------------------- judge, collection and seed: more groups


def _with_roles(frame: pd.DataFrame, roles, seed: int = 0) -> pd.DataFrame:
    """The frame repeated per judge (other labels), collection (the same query ids,
    other labels and a query fewer) and seed (other scores), as ``roles`` asks; with
    all three, 20 of its queries (a small graph to send)."""
    rng = np.random.default_rng(seed)
    if len(roles) == 3:
        frame = frame[frame["query"].isin(frame["query"].unique()[:20])]
    if "judge" in roles:
        noise = pd.array(rng.integers(-1, 2, len(frame)), dtype="Int64")
        other = frame.assign(rel=(frame["rel"] + noise).clip(lower=0))
        frame = pd.concat([frame.assign(judge="trec"), other.assign(judge="llm")])
    if "collection" in roles:
        relabelled = frame["rel"].where(frame["score"].isna(), (frame["rel"] + 1) % 4)
        other = frame.assign(rel=relabelled)
        other = other[other["query"] != other["query"].iloc[0]]
        frame = pd.concat([frame.assign(collection="robust"), other.assign(collection="core")])
    if "seed" in roles:
        other = frame.assign(score=frame["score"] + rng.normal(0, 1, len(frame)))
        frame = pd.concat([frame.assign(seed=10), other.assign(seed=2)])  # 10 > 2 > "10"
    return frame.reset_index(drop=True)


ROLE_CASES = [("judge",), ("collection",), ("seed",), ("judge", "collection", "seed")]


@pytest.mark.parametrize("roles", ROLE_CASES)
def test_evaluate_summary_and_compare_take_every_role(client, roles) -> None:
    """Scrambled partitions: levels in the order run, judge, collection, seed, query,
    and the values, aggregates and comparisons of pandas on the same rows."""
    pytest.importorskip("scipy")
    ddf = _scrambled(_with_roles(example(), roles), 4, seed=len(roles))
    same_rows = ddf.compute()
    levels = ["run", *roles, "query"]
    lazy = ddf.ireval.evaluate(["AP", "nDCG@10"])
    assert list(lazy.columns) == [*levels, "AP", "nDCG@10"]
    actual = _pandas_shape(lazy, levels)
    expected = same_rows.ireval.evaluate(["AP", "nDCG@10"])
    assert list(expected.index.names) == levels
    _assert_same(actual, expected)

    summary = ddf.ireval.summary(["AP", "P@5"])
    assert list(summary.index.names) == ["run", *roles]
    pd.testing.assert_frame_equal(
        summary, same_rows.ireval.summary(["AP", "P@5"]), check_exact=True
    )
    compared = ddf.ireval.compare(["AP", "P@5"], test="t")
    within = [role for role in roles if role in ("judge", "collection")]
    assert list(compared.columns[: len(within) + 2]) == [*within, "run", "baseline"]
    pd.testing.assert_frame_equal(
        compared, same_rows.ireval.compare(["AP", "P@5"], test="t"), check_exact=True
    )


def test_roles_under_other_names_through_the_accessor(client) -> None:
    """ddf.ireval(judge=..., collection=..., seed=...) maps every role pandas maps."""
    frame = _with_roles(example(), ("judge", "collection", "seed"), seed=3)
    names = {"judge": "assessor", "collection": "dataset", "seed": "repeat", "run": "system"}
    renamed = frame.rename(columns=names)
    ddf = _scrambled(renamed, 4, seed=9)
    actual = ddf.ireval(**names).summary(["AP", "RR"])
    assert list(actual.index.names) == ["system", "assessor", "dataset", "repeat"]
    expected = ddf.compute().ireval(**names).summary(["AP", "RR"])
    pd.testing.assert_frame_equal(actual, expected, check_exact=True)


def test_the_accessor_takes_the_roles_of_the_pandas_accessor() -> None:
    """The same list, from one declaration; anything else is refused by name."""
    from pdireval._accessor import IREvalAccessor
    from pdireval._core.roles import ROLES

    taken = inspect.signature(IREvalAccessor.__call__).parameters
    assert [name for name in taken if name != "self"] == list(ROLES)
    ddf = dd.from_pandas(example(), npartitions=2)
    every = {role: f"column_{role}" for role in ROLES}
    assert ddf.ireval(**every)._columns == ColumnMap(**every)
    with pytest.raises(pdireval.SchemaError, match=r"unknown column role\(s\) \['fold'\]"):
        ddf.ireval(fold="f")
    for role in ROLES:
        assert role in (type(ddf.ireval).__call__.__doc__ or "")


@pytest.mark.parametrize(
    ("dtype", "categories"),
    [("category", ["trec", "llm"]), ("category", ["llm", "trec"]), ("str", None)],
)
def test_judge_levels_of_any_dtype_order_as_in_pandas(client, dtype, categories) -> None:
    """A categorical judge column orders the judges by its categories (table and
    comparison blocks), its level holding the values, as in pandas."""
    frame = _with_roles(example(), ("judge",), seed=1)
    judge = frame["judge"].astype(dtype)
    if categories is not None:
        judge = pd.Categorical(frame["judge"], categories)
    ddf = _scrambled(frame.assign(judge=judge), 3, seed=1)
    same_rows = ddf.compute()
    table = pdireval.dask._computed(ddf, parse_metrics("AP"), None, {})[0]
    expected = same_rows.ireval.evaluate("AP")
    pd.testing.assert_frame_equal(table, expected, check_exact=True)
    pd.testing.assert_frame_equal(
        ddf.ireval.compare("AP", test="sign"),
        same_rows.ireval.compare("AP", test="sign"),
        check_exact=True,
    )


def test_empty_partitions_keep_the_levels_dtypes_and_warn_nothing() -> None:
    """More partitions than queries after the shuffle: partitions without rows give
    no object levels and no concatenation warning (synchronous, so that a warning of the
    engine would reach this process)."""
    frame = _timed(_with_roles(example(), ("judge", "seed"), seed=2))
    ddf = _scrambled(frame, 3, seed=0)
    same_rows = ddf.compute()
    synchronous = {"scheduler": "sync", "dataframe.shuffle.method": "tasks"}
    with dask.config.set(synchronous), warnings.catch_warnings():
        warnings.simplefilter("error")
        # dask's own notice when another test's distributed client is still alive
        warnings.filterwarnings("ignore", "Running on a single-machine scheduler")
        lazy = ddf.ireval.evaluate("AP", npartitions=70)
        assert lazy.compute()["seed"].dtype == np.int64
        actual = ddf.ireval.summary(["AP", "P@5"], npartitions=70)
        compared = ddf.ireval.compare("AP", npartitions=70, test="sign")
    pd.testing.assert_frame_equal(
        actual, same_rows.ireval.summary(["AP", "P@5"]), check_exact=False, rtol=1e-15, atol=0
    )
    assert actual.index.get_level_values("seed").dtype == np.int64
    assert list(actual.index.get_level_values("seed")[:2]) == [2, 10]
    pd.testing.assert_frame_equal(compared, same_rows.ireval.compare("AP", test="sign"))


@pytest.mark.parametrize(
    ("role", "values"), [("judge", ("trec", "llm")), ("collection", ("robust", "core"))]
)
def test_one_partition_per_judge_or_collection_needs_no_shuffle(client, role, values) -> None:
    """The groups are (run, judge, query) or (run, collection, query): a frame split by
    judge or collection (the same query ids in both) is whole without a shuffle; a frame
    cut by row count is refused, naming the groups."""
    frame = _with_roles(example(), (role,), seed=4)
    by_role = _partitioned([frame[frame[role] == value] for value in values])
    actual = pdireval.dask.summary(by_role, ["AP", "nDCG@10"], shuffle=False)
    expected = by_role.compute().ireval.summary(["AP", "nDCG@10"])
    pd.testing.assert_frame_equal(actual, expected, check_exact=True)
    cut = dd.from_pandas(frame, npartitions=5)
    with pytest.raises(pdireval.SchemaError, match=rf"\(run, {role}, query\) group\(s\) have"):
        pdireval.dask.summary(cut, "AP", shuffle=False)


def test_missing_judges_are_refused_at_compute_time(client) -> None:
    frame = _with_roles(example(), ("judge",))
    frame.loc[3, "judge"] = None
    with pytest.raises(pdireval.SchemaError, match=r"judge column 'judge' .* missing value"):
        _scrambled(frame, 3, seed=0).ireval.summary("AP")


def test_merge_qrels_with_several_judges_matches_pandas(client) -> None:
    """Judgments per judge (a mapping, as pandas takes it): the rows of pandas, a
    partition per (query, judge), and pandas' values under every query policy."""
    from pdireval.datasets import example_qrels, example_run

    run, qrels = example_run(), example_qrels()
    unanswered = run["query"].isin(run["query"].unique()[:10])
    run = run[~((run["run"] == "weak") & unanswered)]
    fewer = qrels[qrels["query"].isin(qrels["query"].unique()[::2])]
    judges = {"trec": qrels, "llm": fewer.assign(rel=(fewer["rel"] + 1) % 3)}
    merged = pdireval.dask.merge_qrels(_scrambled(run, 4, seed=5), judges)
    expected_rows = pdireval.merge_qrels(run, judges)
    rows = merged.compute()
    key = ["judge", "run", "query", "doc"]
    assert list(rows.columns) == list(expected_rows.columns)
    assert rows["judge"].dtype == expected_rows["judge"].dtype
    got = rows.sort_values(key).reset_index(drop=True)
    want = expected_rows.sort_values(key).reset_index(drop=True)
    assert got[key].astype(str).equals(want[key].astype(str))
    assert got["rel"].equals(want["rel"])
    for queries in ("judged", "retrieved", "all"):
        actual = pdireval.dask.evaluate(merged, ["AP", "P@5"], shuffle=False, queries=queries)
        _assert_same(
            _pandas_shape(actual, ["run", "judge", "query"]),
            expected_rows.ireval.evaluate(["AP", "P@5"], queries=queries),
        )


@pytest.mark.parametrize("role", ["collection", "seed"])
def test_merge_qrels_refuses_collections_and_seeds(role) -> None:
    """The Dask merge takes one collection and one seed at a time: refused at call
    time, saying how to merge them one by one."""
    from pdireval.datasets import example_qrels, example_run

    run, qrels = example_run().assign(**{role: 1}), example_qrels()
    if role == "collection":
        qrels = qrels.assign(collection=1)
    with pytest.raises(pdireval.SchemaError, match=f"merges one {role} at a time: merge each"):
        pdireval.dask.merge_qrels(dd.from_pandas(run, npartitions=2), qrels)


@pytest.mark.parametrize("seed", [0, 1])
def test_merge_and_evaluate_adversarial(client, seed: int) -> None:
    """Adversarial run + qrels, scrambled over partitions: merge_qrels then evaluate give the
    pandas rows and values; judged queries that no run retrieved appear once per run."""
    run, qrels = _two_runs(seed)
    merged = pdireval.dask.merge_qrels(_scrambled(run, 4, seed), qrels)
    expected_rows = pdireval.merge_qrels(run, qrels)
    rows = merged.compute()
    key = ["run", "query", "doc"]
    assert not rows.duplicated(key).any()
    assert len(rows) == len(expected_rows)
    got = rows.sort_values(key).reset_index(drop=True)
    want = expected_rows.sort_values(key).reset_index(drop=True)
    assert got[key].astype(str).equals(want[key].astype(str))
    assert got["rel"].astype("Float64").equals(want["rel"].astype("Float64"))

    only_judged = set(qrels["query"]) - set(run["query"])
    assert only_judged, "the case should hold queries judged but never retrieved"
    for name in ("a", "b", "c"):
        mine = rows[rows["run"] == name]
        assert set(mine["query"]) == set(run["query"][run["run"] == name]) | set(qrels["query"])

    metrics = ["AP", "nDCG@10", "P@5", "Bpref", "NumRel"]
    expected = pdireval.evaluate(expected_rows, metrics)
    lazy = pdireval.dask.evaluate(merged, metrics, shuffle=False)
    _assert_same(_pandas_shape(lazy, ["run", "query"]), expected)
    reshuffled = pdireval.dask.evaluate(_scrambled(expected_rows, 3, seed), metrics)
    _assert_same(_pandas_shape(reshuffled, ["run", "query"]), expected)


def test_merge_without_run_column_and_dask_qrels(client) -> None:
    """One run, qrels given as a dask frame: each judged-only query is added once."""
    run, qrels = adversarial_case(7)
    merged = pdireval.dask.merge_qrels(_scrambled(run, 5, 7), dd.from_pandas(qrels, 2))
    rows = merged.compute()
    expected_rows = pdireval.merge_qrels(run, qrels)
    assert len(rows) == len(expected_rows)
    assert not rows.duplicated(["query", "doc"]).any()
    actual = pdireval.dask.evaluate(merged, ["AP", "R@20"], shuffle=False)
    _assert_same(_pandas_shape(actual, ["query"]), pdireval.evaluate(expected_rows, ["AP", "R@20"]))


def test_merge_matches_ids_of_different_dtypes(client) -> None:
    """int32 query ids in the run and int64 in the qrels still meet in one partition."""
    run, qrels = adversarial_case(3)
    run = run.assign(query=run["query"].astype(np.int32))
    qrels = qrels.assign(query=qrels["query"].astype(np.int64))
    merged = pdireval.dask.merge_qrels(_scrambled(run, 4, 3), qrels).compute()
    expected = pdireval.merge_qrels(run, qrels)
    assert len(merged) == len(expected)
    assert int(merged["rel"].notna().sum()) == int(expected["rel"].notna().sum())


def test_column_mapping(client) -> None:
    """ddf.ireval(query=..., doc=..., rel=..., run=...) reads other columns."""
    df = example()
    renamed = df.rename(columns={"query": "topic", "doc": "docno", "rel": "grade", "run": "tag"})
    ddf = dd.from_pandas(renamed, npartitions=3)
    accessor = ddf.ireval(query="topic", rel="grade", run="tag")
    actual = _pandas_shape(accessor.evaluate(["AP"]), ["tag", "topic"])
    expected = renamed.ireval(query="topic", rel="grade", run="tag").evaluate(["AP"])
    _assert_same(actual, expected)


_PROBE = """
import json, sys
import pdireval
facts = {"after_pdireval": sorted(m for m in ("dask", "distributed") if m in sys.modules)}
import dask.dataframe as dd
facts["accessor_before"] = hasattr(dd.DataFrame, "ireval")
import pdireval.dask
import pandas as pd
ddf = dd.from_pandas(pd.DataFrame({"query": ["q"], "doc": ["d"], "rank": [1], "rel": [1]}), 1)
facts["accessor_after"] = type(ddf.ireval).__name__
print(json.dumps(facts))
"""


def test_import_pdireval_does_not_import_dask() -> None:
    """In a fresh interpreter `import pdireval` leaves dask out; `import pdireval.dask`
    registers the accessor on dask DataFrames."""
    root = str(Path(pdireval.__file__).resolve().parent.parent)
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [root, env.get("PYTHONPATH")]))
    done = subprocess.run(
        [sys.executable, "-c", _PROBE],
        capture_output=True,
        text=True,
        env=env,
        check=False,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    facts = json.loads(done.stdout.strip().splitlines()[-1])
    assert facts["after_pdireval"] == []
    assert facts["accessor_before"] is False
    assert facts["accessor_after"] == "DaskIREvalAccessor"


# ------------------------------------------------------ partitions never give wrong numbers


def test_split_queries_are_refused_without_a_shuffle(client) -> None:
    """A merged frame cut into partitions by row count splits queries: shuffle=False must
    refuse it at compute (it used to give MAP 0.4534 instead of 0.8781), the default
    shuffles and gives pandas' numbers."""
    frame = example()
    ddf = dd.from_pandas(frame, npartitions=4)
    with pytest.raises(pdireval.SchemaError, match=r"\(run, query\) pair\(s\) have rows in"):
        pdireval.dask.evaluate(ddf, ["AP"], shuffle=False).compute()
    with pytest.raises(pdireval.SchemaError, match="pass shuffle=True"):
        ddf.ireval.summary("AP", shuffle=False)
    with pytest.raises(pdireval.SchemaError, match="pass shuffle=True"):
        ddf.ireval.compare("AP", shuffle=False)
    actual = ddf.ireval.summary("AP")
    pd.testing.assert_frame_equal(actual, frame.ireval.summary("AP"), check_index_type=False)
    assert round(actual.loc["strong", "AP"], 4) == 0.8781


def test_one_partition_per_run_needs_no_shuffle(client) -> None:
    """The engine evaluates each (run, query) on its own rows, so whole runs per
    partition are fine without a shuffle."""
    frame = example()
    parts = [dd.from_pandas(frame[frame["run"] == run], npartitions=1)
             for run in sorted(frame["run"].unique())]  # fmt: skip
    ddf = dd.concat(parts)
    actual = pdireval.dask.summary(ddf, ["AP", "nDCG@10"], shuffle=False)
    expected = ddf.compute().ireval.summary(["AP", "nDCG@10"])  # runs sorted, as concatenated
    pd.testing.assert_frame_equal(actual, expected, check_index_type=False)


def test_merge_qrels_output_needs_no_shuffle(client) -> None:
    from pdireval.datasets import example_qrels, example_run

    merged = pdireval.dask.merge_qrels(
        dd.from_pandas(example_run(), npartitions=4), example_qrels()
    )
    actual = _pandas_shape(pdireval.dask.evaluate(merged, ["AP"], shuffle=False), ["run", "query"])
    _assert_same(actual, example().ireval.evaluate(["AP"]))


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"shuffle": "no"}, "shuffle='no' must be True or False"),
        ({"npartitions": 0}, "npartitions=0 must be a whole number"),
        ({"npartitions": 2, "shuffle": False}, "with shuffle=False the frame keeps"),
        ({"ties": "sideways"}, "ties"),
        ({"shufle": True}, "unknown option 'shufle'"),
    ],
)
def test_bad_options_fail_at_call_time(options, message) -> None:
    """Before anything is computed: this frame's computation would itself fail."""
    broken = dd.from_pandas(pd.DataFrame({"query": ["q"], "doc": ["d"], "rank": [0.5]}), 1)
    with pytest.raises((pdireval.ParameterError, pdireval.SchemaError), match=message):
        pdireval.dask.evaluate(broken, ["AP"], **options)


def test_query_dtypes_differing_between_partitions_stay_together(client) -> None:
    """The shuffle key hashes the id values, not their dtype: partitions holding the same
    queries as object strings, Arrow strings and categories still meet."""
    frame = example()
    pieces = np.array_split(np.random.default_rng(0).permutation(len(frame)), 3)
    parts = []
    for rows, dtype in zip(pieces, ["object", "str", "category"], strict=True):
        part = frame.iloc[np.sort(rows)]
        parts.append(dd.from_pandas(part.assign(query=part["query"].astype(dtype)), 1))
    ddf = dd.concat(parts)
    actual = pdireval.dask.summary(ddf, ["AP", "P@10"])
    expected = frame.ireval.summary(["AP", "P@10"])
    pd.testing.assert_frame_equal(actual, expected, check_index_type=False)


def test_routine_shuffle_lines_are_dropped_and_real_warnings_kept() -> None:
    log = logging.getLogger("distributed.shuffle._scheduler_plugin")

    def make(msg: str, *args: str) -> logging.LogRecord:
        return log.makeRecord(log.name, logging.WARNING, __file__, 1, msg, args, None)

    routine = [
        make("Shuffle %s initialized by task %r executed on worker %s", "abc", "t", "w"),
        make("Shuffle %s deactivated due to stimulus '%s'", "abc", "s"),
    ]
    real = make("Shuffle %s restarted due to stimulus '%s", "abc", "s")
    assert [log.filter(record) for record in routine] == [False, False]
    assert log.filter(real)


@pytest.mark.parametrize("dtype", ["str", "object", "category"])
def test_summary_of_a_merged_frame_with_unjudged_queries_matches_pandas(client, dtype) -> None:
    """Queries only in the run (unjudged) or only in the qrels, ids of every text dtype,
    every query policy: the Dask summary is pandas'."""
    run, qrels = _two_runs(11)
    merged = pdireval.merge_qrels(run, qrels)
    merged = merged.astype({"query": dtype, "doc": dtype})
    assert not set(run["query"]) <= set(qrels["query"])  # some queries are unjudged
    lazy = _scrambled(merged, 4, seed=3)
    for queries in ("judged", "retrieved", "all"):
        actual = pdireval.dask.summary(lazy, METRICS, queries=queries)
        expected = pdireval.summary(merged, METRICS, queries=queries)
        _assert_same(actual, expected)


def test_a_frame_that_is_not_dask_is_refused_with_the_way_out() -> None:
    from pdireval.datasets import example_qrels, example_run

    for call in (pdireval.dask.evaluate, pdireval.dask.summary, pdireval.dask.compare):
        with pytest.raises(pdireval.SchemaError, match=r"got pandas.*dd\.from_pandas"):
            call(example(), "AP")
    with pytest.raises(pdireval.SchemaError, match=r"a dask DataFrame as run, got builtins\.dict"):
        pdireval.dask.merge_qrels({"query": [1]}, example_qrels())
    with pytest.raises(pdireval.SchemaError, match="as run, got pandas"):
        pdireval.dask.merge_qrels(example_run(), example_qrels())
