"""Nugget frames and citation frames through the Dask backend give the pandas numbers."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

dask = pytest.importorskip("dask")
dd = pytest.importorskip("dask.dataframe")

import pdireval  # noqa: E402
import pdireval.dask  # noqa: E402

NUGGET_SCORES = ["strict_vital", "strict_all", "vital", "all"]
SUPPORT = [
    "support_precision",
    "support_recall",
    "weighted_support_precision",
    "weighted_support_recall",
]
RUNS = [f"bm25+monoT5-3B (rerank top-100, variant {i})" for i in range(3)]


def nugget_frame(seed: int) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    rows = []
    for judge in ("gpt-4o", "human"):
        for run in RUNS:
            for query in range(12):
                n = int(rng.integers(0, 5))
                if not n:
                    rows.append((judge, run, f"q{query}", None, None, None))
                rows += [
                    (
                        judge,
                        run,
                        f"q{query}",
                        f"n{i}",
                        rng.choice(["vital", "okay"]),
                        rng.choice(["support", "partial_support", "not_support"]),
                    )
                    for i in range(n)
                ]
    columns = ["judge", "run", "query", "nugget", "importance", "assignment"]
    return pd.DataFrame(rows, columns=columns)


def citation_frame(seed: int) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    rows = []
    for judge in ("gpt-4o", "human"):
        for run in RUNS:
            for query in range(12):
                n = int(rng.integers(0, 4))
                if not n:
                    rows.append((judge, run, f"q{query}", None, None, None))
                for sentence in range(n):
                    docs = rng.choice(["d1", "d2", "d3", "d4"], size=int(rng.integers(0, 3)))
                    docs = list(dict.fromkeys(docs))
                    if not docs:
                        rows.append((judge, run, f"q{query}", sentence, None, None))
                    rows += [
                        (
                            judge,
                            run,
                            f"q{query}",
                            sentence,
                            doc,
                            rng.choice(["full_support", "partial_support", "no_support"]),
                        )
                        for doc in docs
                    ]
    frame = pd.DataFrame(rows, columns=["judge", "run", "query", "sentence", "doc", "support"])
    frame["sentence"] = frame["sentence"].astype("Int64")
    return frame


def scrambled(frame: pd.DataFrame, npartitions: int, seed: int):
    """The rows in random order in several partitions: an answer spans partitions."""
    order = np.random.default_rng(seed).permutation(len(frame))
    return dd.from_pandas(frame.iloc[order].reset_index(drop=True), npartitions=npartitions)


@pytest.mark.parametrize(
    ("make", "metrics"), [(nugget_frame, NUGGET_SCORES), (citation_frame, SUPPORT)]
)
@pytest.mark.parametrize("seed", [0, 1])
def test_evaluate_summary_and_compare_match_pandas(make, metrics, seed: int) -> None:
    lazy = scrambled(make(seed), 4, seed)
    frame = lazy.compute()  # the same rows in the same order, in pandas
    with dask.config.set(scheduler="synchronous"):
        values = pdireval.dask.evaluate(lazy, metrics).compute()
        summary = pdireval.dask.summary(lazy, metrics)
        compared = pdireval.dask.compare(lazy, metrics, baseline=RUNS[0])
    expected = pdireval.evaluate(frame, metrics)
    got = values.set_index(["run", "judge", "query"]).sort_index()[expected.columns]
    want = expected.sort_index()
    assert [tuple(map(str, i)) for i in got.index] == [tuple(map(str, i)) for i in want.index]
    np.testing.assert_allclose(got.to_numpy(), want.to_numpy(), rtol=0, atol=1e-12)
    # one result per judge, as in pandas
    want_summary = pdireval.summary(frame, metrics)
    assert list(summary.index) == list(want_summary.index)
    assert summary.index.get_level_values("judge").nunique() == 2
    np.testing.assert_allclose(summary.to_numpy(), want_summary.to_numpy(), rtol=0, atol=1e-12)
    want_compared = pdireval.compare(frame, metrics, baseline=RUNS[0])
    keys = ["run", "judge", "metric"]
    assert compared[keys].equals(want_compared[keys])
    np.testing.assert_allclose(
        compared["delta"].to_numpy(), want_compared["delta"].to_numpy(), rtol=0, atol=1e-12
    )


def test_bad_grades_are_refused_at_compute_time() -> None:
    frame = citation_frame(0)
    frame.loc[frame["doc"].notna().idxmax(), "support"] = "supported"
    lazy = scrambled(frame, 3, 0)
    with (
        dask.config.set(scheduler="synchronous"),
        pytest.raises(pdireval.SchemaError, match="'supported'"),
    ):
        pdireval.dask.evaluate(lazy, SUPPORT).compute()
