"""Reproduction measures on per-query values small enough to work out by hand."""

from __future__ import annotations

import math

import pandas as pd
import pytest

import pdireval
from pdireval import SchemaError

pytest.importorskip("scipy")


def _experiment(values: dict[str, list[float]], queries: list[str]) -> pd.DataFrame:
    """Runs whose P@2 per query are the given values (0, 0.5 or 1)."""
    rows = []
    for run, per_query in values.items():
        for query, value in zip(queries, per_query, strict=True):
            relevant = int(value * 2)
            for rank in (1, 2):
                doc = f"{query}-{run}-{rank}"
                rows.append((run, query, doc, rank, int(rank <= relevant)))
    return pd.DataFrame(rows, columns=["run", "query", "doc", "rank", "rel"])


ORIGINAL = {"base": [0.5, 0.0, 1.0], "adv": [1.0, 0.5, 1.0]}
REPRODUCED = {"base": [0.5, 0.5, 1.0], "adv": [1.0, 0.5, 0.5]}


def test_reproduction_by_hand() -> None:
    queries = ["q1", "q2", "q3"]
    table = pdireval.reproduction(
        _experiment(ORIGINAL, queries),
        _experiment(REPRODUCED, queries),
        "P@2",
        baseline="base",
        advanced="adv",
    )
    row = table.loc["P@2"]
    # improvements per query: original (0.5, 0.5, 0), reproduced (0.5, 0, -0.5)
    assert row["effect_ratio"] == pytest.approx(0.0, abs=1e-15)
    # RI = (5/6 - 1/2) / (1/2) = 2/3 originally, (2/3 - 2/3) / (2/3) = 0 reproduced
    assert row["delta_ri"] == pytest.approx(2 / 3, abs=1e-15)
    assert row["rmse_baseline"] == pytest.approx(math.sqrt(0.25 / 3), abs=1e-15)
    assert row["rmse_advanced"] == pytest.approx(math.sqrt(0.25 / 3), abs=1e-15)
    # baseline differences (0, -0.5, 0): t = -1 on 2 degrees of freedom
    assert row["p_baseline"] == pytest.approx(1 - 1 / math.sqrt(3), abs=1e-12)
    assert row["p_advanced"] == pytest.approx(1 - 1 / math.sqrt(3), abs=1e-12)


def test_an_exact_reproduction() -> None:
    frame = _experiment(ORIGINAL, ["q1", "q2", "q3"])
    table = pdireval.reproduction(
        frame, frame.copy(), ["P@2", "P@1"], baseline="base", advanced="adv"
    )
    assert table["effect_ratio"].tolist() == [1.0, 1.0]
    assert table["delta_ri"].tolist() == [0.0, 0.0]
    assert table[["rmse_baseline", "rmse_advanced"]].to_numpy().sum() == 0.0
    assert table[["p_baseline", "p_advanced"]].to_numpy().tolist() == [[1.0, 1.0], [1.0, 1.0]]


def test_a_replication_on_other_queries() -> None:
    original = _experiment(ORIGINAL, ["q1", "q2", "q3"])
    replicated = _experiment({"base": [0.0, 0.5], "adv": [0.5, 1.0]}, ["t1", "t2"])
    row = pdireval.reproduction(original, replicated, "P@2", baseline="base", advanced="adv").loc[
        "P@2"
    ]
    assert row["effect_ratio"] == pytest.approx(0.5 / (1 / 3), abs=1e-12)
    assert row["delta_ri"] == pytest.approx(2 / 3 - (0.75 - 0.25) / 0.25, abs=1e-12)
    assert math.isnan(row["rmse_baseline"])
    assert math.isnan(row["rmse_advanced"])
    scipy_stats = pytest.importorskip("scipy.stats")
    expected = scipy_stats.ttest_ind([0.5, 0.0, 1.0], [0.0, 0.5]).pvalue
    assert row["p_baseline"] == pytest.approx(expected, abs=1e-12)


def test_baseline_only() -> None:
    frame = _experiment(ORIGINAL, ["q1", "q2", "q3"])
    row = pdireval.reproduction(frame, frame, "P@2", baseline="base").loc["P@2"]
    assert math.isnan(row["effect_ratio"])
    assert math.isnan(row["p_advanced"])
    assert row["rmse_baseline"] == 0.0


def test_errors_name_the_problem() -> None:
    frame = _experiment(ORIGINAL, ["q1", "q2", "q3"])
    with pytest.raises(SchemaError, match=r"run 'base' is not in the reproduced frame"):
        pdireval.reproduction(
            frame, frame.replace({"run": {"base": "bm25"}}), "P@2", baseline="base"
        )
    one_run = frame[frame["run"] == "base"].drop(columns="run")
    with pytest.raises(SchemaError, match="original frame has no run column"):
        pdireval.reproduction(one_run, frame, "P@2", baseline="base")
