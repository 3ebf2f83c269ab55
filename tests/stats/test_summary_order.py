"""summary and seed_summary list the runs in the frame's order, as reports and plots do:
the order in which they first appear, or a categorical column's categories."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import pdireval

#: Not in alphabetical order, nor in reverse.
RUNS = ["zeta", "Alpha", "mid", "beta"]


def _frame(runs: list[str], seed: int = 0, **extra: list) -> pd.DataFrame:
    """A judged frame, the runs' rows one run after the other in ``runs``' order, each with
    its own quality (so that the rows of a summary can be told apart)."""
    rng = np.random.default_rng(seed)
    rows = []
    for at, run in enumerate(runs):
        for query in range(8):
            for rank in range(1, 11):
                rel = int(rng.random() < 0.1 + 0.15 * at)
                rows.append((run, f"q{query}", f"d{rank}", rank, rel, 0.1 * (at + 1)))
    frame = pd.DataFrame(rows, columns=["run", "query", "doc", "rank", "rel", "time"])
    return frame.assign(**extra) if extra else frame


def _expected(frame: pd.DataFrame, metric: str) -> dict[str, float]:
    """Each run's mean, computed run by run (the reference the rows must match)."""
    return {
        run: float(pdireval.summary(part.drop(columns=["run", "time"]), metric).iloc[0])
        for run, part in frame.groupby("run", sort=False)
    }


def test_summary_keeps_the_frame_order() -> None:
    frame = _frame(RUNS).drop(columns="time")
    assert sorted(RUNS) != RUNS
    table = pdireval.summary(frame, ["AP", "P@5"])
    assert list(table.index) == RUNS
    expected = _expected(_frame(RUNS), "AP")
    assert table["AP"].to_dict() == pytest.approx(expected)
    # the order the runs first appear in, not the order of the blocks' sizes or names
    shuffled = frame.sample(frac=1.0, random_state=1)
    first = list(dict.fromkeys(shuffled["run"]))
    assert list(pdireval.summary(shuffled, "AP").index) == first


def test_categorical_runs_follow_their_categories() -> None:
    frame = _frame(RUNS).drop(columns="time")
    order = ["mid", "beta", "zeta", "unused", "Alpha"]
    frame["run"] = pd.Categorical(frame["run"], categories=order)
    table = pdireval.summary(frame, "AP")
    assert list(table.index) == [run for run in order if run != "unused"]


@pytest.mark.parametrize("options", [{"ci": 0.9, "ci_method": "bootstrap"}, {"agg": "median"}])
def test_every_form_of_summary_keeps_the_order(options: dict) -> None:
    frame = _frame(RUNS).drop(columns="time")
    table = pdireval.summary(frame, "AP", n_resamples=200, seed=0, **options)
    assert list(table.index) == RUNS


def test_the_latency_columns_keep_the_order() -> None:
    frame = _frame(RUNS)
    table = pdireval.summary(frame, "AP")
    assert list(table.index) == RUNS
    # each run answered in its own time: the latency follows its run
    expected = {run: 0.1 * (at + 1) for at, run in enumerate(RUNS)}
    assert table["latency_mean"].to_dict() == pytest.approx(expected)


def test_seed_summary_and_collections_keep_the_order() -> None:
    pytest.importorskip("scipy")
    seeds = pd.concat([_frame(RUNS, seed=s).assign(seed=s) for s in (1, 2)]).drop(columns="time")
    table = pdireval.seed_summary(seeds, "AP")
    assert list(table.index) == RUNS
    collections = pd.concat(
        [_frame(RUNS, seed=s).assign(collection=name) for s, name in ((3, "b"), (4, "a"))]
    ).drop(columns="time")
    wide = pdireval.summary(collections, "AP")
    runs = list(dict.fromkeys(wide.index.get_level_values("run")))
    assert runs == RUNS
    # each run's rows stay together, its collections in the order they had
    for run in RUNS:
        assert list(wide.loc[run].index) == sorted(wide.loc[run].index)


def test_the_summary_and_the_report_list_runs_alike() -> None:
    pytest.importorskip("scipy")
    frame = _frame(RUNS).drop(columns="time")
    report = pdireval.report(frame, "AP", baseline=None)
    assert list(report.summary.index) == list(pdireval.summary(frame, "AP").index)
