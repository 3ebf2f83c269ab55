"""The Dask backend gives the pandas numbers, lazily, on a real multi-process cluster."""

from __future__ import annotations

import json
import logging
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

dd = pytest.importorskip("dask.dataframe")
distributed = pytest.importorskip("distributed")

from adversarial import adversarial_case  # noqa: E402

import pdireval  # noqa: E402
import pdireval.dask  # noqa: E402
from pdireval.datasets import example  # noqa: E402

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
    for queries in ("judged", "retrieved"):
        actual = ddf.ireval.summary(METRICS, agg=agg, queries=queries)
        expected = df.ireval.summary(METRICS, agg=agg, queries=queries)
        _assert_same(actual, expected)


def test_summary_with_interval_matches_pandas(client) -> None:
    """summary(ci=...) goes through the same per-query table."""
    df = example()
    actual = pdireval.dask.summary(
        _scrambled(df, 3, 2), ["AP"], ci=0.9, ci_method="bootstrap", n_resamples=200, seed=0
    )
    expected = pdireval.summary(df, ["AP"], ci=0.9, ci_method="bootstrap", n_resamples=200, seed=0)
    pd.testing.assert_frame_equal(actual, expected, check_index_type=False, rtol=0, atol=1e-12)


def test_compare_matches_pandas(client) -> None:
    """compare on dask equals pdireval.compare on the same rows."""
    pytest.importorskip("scipy")
    df = example()
    ddf = _scrambled(df, 4, seed=3)
    actual = ddf.ireval.compare(["AP", "nDCG@10"], baseline="weak", test="t")
    expected = df.ireval.compare(["AP", "nDCG@10"], baseline="weak", test="t")
    pd.testing.assert_frame_equal(
        actual.astype({"run": str, "baseline": str}),
        expected.astype({"run": str, "baseline": str}),
        rtol=0,
        atol=1e-12,
    )


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
    with pytest.raises(pdireval.SchemaError, match=r"\(run, query\) pair\(s\) have rows in more"):
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
    expected = frame.ireval.summary(["AP", "nDCG@10"])
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
    with pytest.raises((pdireval.MetricError, pdireval.SchemaError), match=message):
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
