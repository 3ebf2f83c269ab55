"""Efficiency: per-query times (role ``time``), latency statistics, reports and the trade-off."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import pdireval
from pdireval import SchemaError
from pdireval.datasets import example

TIMES = {"strong": 0.200, "medium": 0.020, "weak": 0.050}


def _timed() -> pd.DataFrame:
    """The example collection, each query of a run timed: a base time plus 1 ms per topic."""
    frame = example()
    topic = frame["query"].astype(int) - 401
    frame["time"] = frame["run"].map(TIMES) + 0.001 * topic
    return frame


def test_latency_is_the_time_of_each_query() -> None:
    frame = _timed()
    table = pdireval.evaluate(frame, ["AP", "Latency"])
    expected = table.index.to_frame(index=False)
    want = expected["run"].map(TIMES) + 0.001 * (expected["query"].astype(int) - 401)
    np.testing.assert_allclose(table["Latency"].to_numpy(), want.to_numpy(), rtol=0, atol=1e-12)


def test_efficiency_statistics_by_hand() -> None:
    """Times b + 0.001 i for i = 0..49: mean b + 0.0245, median the same, the 95th
    percentile (linear) b + 0.04655, throughput 50 / total."""
    stats = pdireval.efficiency(_timed())
    for run, base in TIMES.items():
        row = stats.loc[run]
        assert row["queries"] == 50
        assert row["latency_mean"] == pytest.approx(base + 0.0245)
        assert row["latency_median"] == pytest.approx(base + 0.0245)
        assert row["latency_p95"] == pytest.approx(base + 0.04655)
        assert row["latency_p99"] == pytest.approx(base + 0.04851)
        assert row["qps"] == pytest.approx(1 / (base + 0.0245))
        assert row["mrt"] == pytest.approx(1000 * (base + 0.0245))


def test_timedelta_times_count_their_seconds() -> None:
    frame = _timed()
    as_timedelta = frame.assign(time=pd.to_timedelta(frame["time"], unit="s"))
    pd.testing.assert_frame_equal(pdireval.efficiency(as_timedelta), pdireval.efficiency(frame))


def test_summary_and_report_show_efficiency() -> None:
    frame = _timed()
    summary = frame.ireval.summary(["AP"])
    assert list(summary.columns) == [
        "AP", "latency_mean", "latency_median", "latency_p95", "latency_p99", "qps", "mrt",
    ]  # fmt: skip
    one = frame[frame["run"] == "weak"].drop(columns="run")
    single = one.ireval.summary("AP")
    assert single["queries"] == 50
    assert single["mrt"] == pytest.approx(1000 * (0.05 + 0.0245))
    pytest.importorskip("scipy")
    report = frame.ireval.report("AP", baseline="medium")
    pd.testing.assert_frame_equal(report.efficiency, pdireval.efficiency(frame))
    assert "## Efficiency" in report.to_markdown()
    assert list(report.summary.columns) == ["AP"]


def test_latency_compares_like_a_metric() -> None:
    pytest.importorskip("scipy")
    result = pdireval.compare(_timed(), "Latency", baseline="medium", test="sign")
    assert result["wins"].tolist() == [50, 50]  # strong and weak both take longer


@pytest.mark.parametrize(
    ("times", "message"),
    [
        ([-0.1], "durations >= 0"),
        ([float("inf")], "durations >= 0"),
        ([0.1, 0.2], "several times for query 'q1'"),
    ],
)
def test_bad_times_are_refused(times: list[float], message: str) -> None:
    frame = pd.DataFrame({"query": "q1", "doc": ["a", "b"], "rank": [1, 2], "rel": [1, 0]}).assign(
        time=(times * 2)[:2]
    )
    with pytest.raises(SchemaError, match=message):
        pdireval.efficiency(frame)


def test_without_a_time_column() -> None:
    with pytest.raises(SchemaError, match=r"Latency needs a 'time' column"):
        pdireval.efficiency(example())
    assert "latency_mean" not in example().ireval.summary("AP").columns


def test_tradeoff_marks_the_pareto_front() -> None:
    matplotlib = pytest.importorskip("matplotlib")
    matplotlib.use("Agg")
    ax = _timed().ireval.plot.tradeoff("AP")
    front = ax.get_lines()[0]
    # medium is fastest; strong is slower and better; weak is slower and worse: dominated
    np.testing.assert_allclose(front.get_xdata(), [1000 * (0.02 + 0.0245), 1000 * (0.2 + 0.0245)])
    assert sorted(t.get_text() for t in ax.texts) == ["medium", "strong", "weak"]  # named points
    matplotlib.pyplot.close("all")


def test_a_time_too_small_to_divide_by_gives_infinite_throughput_without_a_warning() -> None:
    frame = pd.DataFrame(
        {
            "query": ["q1", "q2"],
            "doc": ["a", "a"],
            "rank": [1, 1],
            "rel": [1, 0],
            "time": [5e-324, 0.0],
        }
    )
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("error")
        stats = pdireval.efficiency(frame)
    assert np.isinf(stats["qps"].iloc[0])
    assert stats["latency_mean"].iloc[0] == pytest.approx(2.5e-324, abs=5e-324)
