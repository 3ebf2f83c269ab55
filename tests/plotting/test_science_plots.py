"""Figures of risk and all-pairs tests: what they draw is what the tables say."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from science_frames import frame_with_p10

import pdireval

matplotlib = pytest.importorskip("matplotlib")
matplotlib.use("Agg")
from pdireval.plotting.science import pairs_heatmap, risk_plot  # noqa: E402

VALUES = np.array(
    [[0.5, 0.9, 0.1], [0.5, 0.6, 0.4], [0.5, 0.2, 0.5], [0.5, 0.5, 0.0], [0.4, 0.8, 0.3]]
)


def test_risk_plot_bars_count_the_wins_and_losses() -> None:
    import matplotlib.pyplot as plt

    frame = frame_with_p10(VALUES, runs=["base", "a$b", "c"])
    ax = risk_plot(frame, "P@10", baseline="base", alpha=2)
    table = pdireval.risk(frame, "P@10", baseline="base", alpha=2)
    rows = {round(p.get_y() + p.get_height() / 2): p for p in ax.patches}
    assert len(rows) == 2
    for position, (_, row) in zip((1, 0), table.iterrows(), strict=True):
        widths = [
            p.get_width() for p in ax.patches if round(p.get_y() + p.get_height() / 2) == position
        ]
        assert sum(w for w in widths if w > 0) == row["wins"]
        assert -sum(w for w in widths if w < 0) == row["losses"]
    labels = [t.get_text() for t in ax.get_yticklabels()]
    assert labels == ["a\\$b", "c"]  # a $ in a run name is shown, not read as math
    right = [t.get_text() for t in ax.child_axes[0].get_yticklabels()]
    expected = [f"TRisk {v:.2f}{'*' if abs(v) > 2 else ''}" for v in table["trisk"]]
    assert right == [label.replace("-", "\u2212") for label in expected]  # the minus sign
    plt.close("all")


def test_pairs_heatmap_shows_the_p_values() -> None:
    import matplotlib.pyplot as plt

    frame = frame_with_p10(VALUES, runs=["base", "a", "c"])
    pairs = pdireval.tukey_hsd(frame, ["P@10", "AP"], n_resamples=199, seed=1)
    ax = pairs_heatmap(pairs, "P@10")
    shown = sorted(t.get_text() for t in ax.texts)
    p = pairs[pairs["metric"] == "P@10"]["p_value"]
    expected = sorted(2 * ["<.001" if v < 0.001 else f"{v:.3f}".removeprefix("0") for v in p])
    assert shown == expected
    means = pdireval.summary(frame, "P@10")["P@10"].sort_values(ascending=False)
    assert [t.get_text() for t in ax.get_xticklabels()] == list(means.index)
    with pytest.raises(pdireval.SchemaError, match="several metrics"):
        pairs_heatmap(pairs)
    with pytest.raises(pdireval.SchemaError, match="not in the pairs"):
        pairs_heatmap(pairs, "nDCG")
    with pytest.raises(pdireval.SchemaError, match="p_value"):
        pairs_heatmap(pairs.drop(columns="p_value"))
    plt.close("all")


def test_risk_plot_refuses_bad_input() -> None:
    frame = frame_with_p10(VALUES)
    with pytest.raises(pdireval.MetricError, match="one metric"):
        risk_plot(frame, ["P@10", "AP"], baseline="r0")
    with pytest.raises(pdireval.ParameterError, match="bins"):
        risk_plot(frame, "P@10", baseline="r0", bins=(0.3, 0.1))
    with pytest.raises(pdireval.SchemaError, match="not found"):
        risk_plot(frame, "P@10", baseline="nope")


def _curves() -> pd.DataFrame:
    return pd.DataFrame(
        {
            "metric": ["AP"] * 4 + ["P@10 <b>"] * 4,
            "run": list("abcd") * 2,
            "baseline": ["z"] * 8,
            "delta": [0.1] * 8,
            "asl": [0.30, 0.01, 0.04, 0.50, 0.2, 0.6, 0.001, 0.07],
        }
    )


def test_asl_plot_sorts_each_measure_and_states_its_power() -> None:
    from pdireval.plotting.science import asl_plot

    ax = asl_plot(_curves(), alpha=0.05)
    lines = [line for line in ax.get_lines() if len(line.get_xdata()) == 4]
    assert [list(line.get_ydata()) for line in lines] == [
        [0.01, 0.04, 0.30, 0.50],
        [0.001, 0.07, 0.2, 0.6],
    ]
    labels = [text.get_text() for text in ax.figure.legends[0].get_texts()]
    assert labels == ["AP: 50% of pairs", "P@10 <b>: 25% of pairs"]
    with pytest.raises(pdireval.ParameterError, match="alpha=2"):
        asl_plot(_curves(), alpha=2)
    with pytest.raises(pdireval.SchemaError, match=r"pdireval\.asl_curve"):
        asl_plot(_curves().drop(columns="asl"))


def test_topics_plot_reads_swap_rates_or_stability() -> None:
    from pdireval.plotting.science import topics_plot

    swaps = pd.DataFrame(
        {
            "metric": ["AP", "AP", "RR", "RR"],
            "size": [5, 10, 5, 10],
            "swap_rate": [0.2, 0.1, 0.3, 0.25],
        }
    )
    ax = topics_plot(swaps)
    assert ax.get_ylabel() == "swap rate"
    assert [list(line.get_ydata()) for line in ax.get_lines()] == [[0.2, 0.1], [0.3, 0.25]]
    stable = swaps.rename(columns={"swap_rate": "tau_mean"})
    assert topics_plot(stable).get_ylabel().startswith("Kendall's tau")
    with pytest.raises(pdireval.SchemaError, match=r"pdireval\.ranking_stability"):
        topics_plot(swaps.drop(columns="swap_rate"))
