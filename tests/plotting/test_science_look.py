"""Figures of risk, all-pairs tests, judges and measures stay readable with many long names."""

from __future__ import annotations

import itertools

import numpy as np
import pandas as pd
import pytest
from science_frames import frame_with_p10

matplotlib = pytest.importorskip("matplotlib")
matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
from matplotlib.colors import to_hex  # noqa: E402

from pdireval.judgments.conclusions import JudgeConclusions  # noqa: E402
from pdireval.plotting import run_styles  # noqa: E402
from pdireval.plotting.science import (  # noqa: E402
    asl_plot,
    judges_scatter,
    pairs_heatmap,
    risk_plot,
    topics_plot,
)

MODELS = ("bm25", "BM25-rm3", "splade-v3", "ColBERTv2", "dense-e5", "TCT", "contriever", "uniCOIL")


def long_names(n: int) -> list[str]:
    """Run names as users write them: long, with spaces, commas and capitals."""
    return [
        f"{MODELS[i % len(MODELS)]}+monoT5-3B (rerank top-{100 * (1 + i // len(MODELS))}, "
        f"{'fine-tuned' if i % 2 else 'zero-shot'})"
        for i in range(n)
    ]


@pytest.fixture(autouse=True)
def _close_figures():
    yield
    plt.close("all")


def _pairs(n: int) -> pd.DataFrame:
    """All pairs of n runs: most p-values below 0.001, some near 1, one exactly 1."""
    runs = long_names(n)
    rows = []
    for (i, a), (j, b) in itertools.combinations(enumerate(runs), 2):
        p = 1.0 if (i, j) == (0, 1) else 1e-5 if j - i > 2 else 0.9 - 0.01 * i
        rows.append((a, b, "AP", 1.0 - i / n, 1.0 - j / n, p, p < 0.05))
    columns = ["run", "baseline", "metric", "mean", "baseline_mean", "p_value", "significant"]
    return pd.DataFrame(rows, columns=columns)


def _cells_hold_their_labels(ax) -> None:
    figure = ax.figure
    figure.draw_without_rendering()
    renderer = figure.canvas.get_renderer()
    assert ax.texts
    for text in ax.texts:
        x, y = text.get_position()
        (x0, y0), (x1, y1) = ax.transData.transform([(x - 0.5, y + 0.5), (x + 0.5, y - 0.5)])
        box = text.get_window_extent(renderer)
        gap_x, gap_y = 0.05 * (x1 - x0), 0.1 * (y1 - y0)
        assert x0 + gap_x <= box.x0, text.get_text()
        assert box.x1 <= x1 - gap_x, text.get_text()
        assert y0 + gap_y <= box.y0, text.get_text()
        assert box.y1 <= y1 - gap_y, text.get_text()


@pytest.mark.parametrize("n", [10, 20])
def test_pairs_heatmap_labels_fit_their_cells_with_a_gap(n: int) -> None:
    pairs = _pairs(n)
    ax = pairs_heatmap(pairs)
    _cells_hold_their_labels(ax)
    shown = {text.get_text() for text in ax.texts}
    assert {"<.001", "1.000"} <= shown  # p-values, written as journals print them
    assert len(ax.texts) == n * (n - 1)
    # the run names along y are whole, broken at spaces only
    names = [label.get_text().replace("\n", " ") for label in ax.get_yticklabels()]
    assert sorted(names) == sorted(long_names(n))


def test_pairs_heatmap_on_small_axes_writes_stars_that_fit() -> None:
    _, ax = plt.subplots(figsize=(7.5, 7.5), layout="constrained")
    ax = pairs_heatmap(_pairs(10), ax=ax)
    shown = {text.get_text() for text in ax.texts}
    assert shown <= {"***", "**", "*"}
    assert "***" in shown
    assert "***" in ax.figure.axes[-1].get_ylabel()  # the colour bar says what stars mean
    _cells_hold_their_labels(ax)


def _conclusions(runs: list[str], x: list[float], y: list[float]) -> JudgeConclusions:
    columns = pd.MultiIndex.from_tuples([("human", "AP"), ("llm", "AP")], names=["judge", "metric"])
    scores = pd.DataFrame(
        np.column_stack([x, y]), index=pd.Index(runs, name="run"), columns=columns
    )
    agreement = pd.DataFrame({"judge": ["llm"], "metric": ["AP"], "kendall": [1.0]})
    return JudgeConclusions("human", scores, agreement, pd.DataFrame())


def _points(ax) -> list:
    return [c for c in ax.collections if len(c.get_offsets()) == 1]


def test_judges_scatter_draws_each_run_in_its_own_style() -> None:
    runs = long_names(6)
    ax = judges_scatter(_conclusions(runs, [0.3, 0.31, 0.5, 0.52, 0.7, 0.71], [0.3] * 6), "AP")
    styles = run_styles(runs)
    points = _points(ax)
    colours = [to_hex(c.get_facecolor()[0]) for c in points]
    assert colours == [styles[run].color for run in runs]
    assert len(set(colours)) == len(runs)
    assert [c.get_label() for c in points] == runs


def _label_boxes(ax) -> list:
    from matplotlib.text import Text

    figure = ax.figure
    figure.draw_without_rendering()
    renderer = figure.canvas.get_renderer()
    boxes = []
    for text in ax.texts:
        text.get_window_extent(renderer)
        boxes.append(Text.get_window_extent(text, renderer))
    return boxes


def test_judges_scatter_names_close_points_without_overlap() -> None:
    runs = ["strong", "medium", "medium-rm3", "weak", "bm25", "bm25+rm3"]
    x = [0.88, 0.575, 0.552, 0.22, 0.5, 0.505]
    y = [0.59, 0.43, 0.418, 0.24, 0.3, 0.305]
    ax = judges_scatter(_conclusions(runs, x, y), "AP")
    assert sorted(text.get_text() for text in ax.texts) == sorted(runs)
    boxes = _label_boxes(ax)
    for a, b in itertools.combinations(boxes, 2):
        assert not a.overlaps(b)
    centres = ax.transData.transform(np.column_stack([x, y]))
    for text, box in zip(ax.texts, boxes, strict=True):
        for run, (cx, cy) in zip(runs, centres, strict=True):
            if run != text.get_text():  # no name covers another run's point
                assert not box.contains(cx, cy)


def test_judges_scatter_with_many_long_names_uses_a_legend() -> None:
    runs = long_names(10)
    x = list(np.linspace(0.4, 0.5, 10))
    ax = judges_scatter(_conclusions(runs, x, [v + 0.01 for v in x]), "AP")
    assert not ax.texts
    (shown,) = ax.figure.legends
    assert [t.get_text() for t in shown.get_texts()] == runs


def _long_frame(runs: list[str]) -> pd.DataFrame:
    rng = np.random.default_rng(3)
    return frame_with_p10(rng.random((8, len(runs))), runs=runs)


def test_risk_plot_keeps_the_frames_run_order() -> None:
    runs = ["zeta run", "base", "Alpha", "beta", "Beta 2"]
    frame = _long_frame(runs)
    ax = risk_plot(frame, "P@10", baseline="base")
    others = [run for run in runs if run != "base"]
    assert [t.get_text() for t in ax.get_yticklabels()] == others  # top to bottom
    frame["run"] = pd.Categorical(
        frame["run"], categories=["base", "beta", "zeta run", "Beta 2", "Alpha"]
    )
    ax = risk_plot(frame, "P@10", baseline="base")
    assert [t.get_text() for t in ax.get_yticklabels()] == ["beta", "zeta run", "Beta 2", "Alpha"]


def test_risk_plot_explains_the_star_of_trisk() -> None:
    ax = risk_plot(_long_frame(["base", "a", "b"]), "P@10", baseline="base")
    notes = [text.get_text() for text in ax.texts if "|TRisk| > 2" in text.get_text()]
    assert len(notes) == 1
    assert "5%" in notes[0]
    figure = ax.figure
    figure.draw_without_rendering()
    renderer = figure.canvas.get_renderer()
    (note,) = (text for text in ax.texts if "|TRisk|" in text.get_text())
    note_box = note.get_window_extent(renderer)
    legend_box = ax.get_legend().get_window_extent(renderer)
    label_box = ax.xaxis.label.get_window_extent(renderer)
    assert note_box.y1 <= legend_box.y0 + 1  # the note under the legend
    assert legend_box.y1 <= label_box.y0  # the legend under the x label
    assert note_box.x0 >= 0
    assert note_box.x1 <= figure.bbox.x1
    assert note_box.y0 >= 0


@pytest.mark.parametrize("n", [10, 20])
def test_risk_plot_with_long_names_keeps_the_bars_wide(n: int) -> None:
    runs = long_names(n)
    ax = risk_plot(_long_frame(runs), "P@10", baseline=runs[0])
    figure = ax.figure
    figure.draw_without_rendering()
    renderer = figure.canvas.get_renderer()
    assert ax.get_window_extent(renderer).width >= 0.5 * figure.bbox.width
    for label in ax.get_yticklabels():  # whole names, broken at spaces, inside the figure
        assert label.get_window_extent(renderer).x0 >= 0
    names = [t.get_text().replace("\n", " ") for t in ax.get_yticklabels()]
    assert names == runs[1:]


def _ticks_in_view(axis) -> np.ndarray:
    low, high = axis.get_view_interval()
    ticks = np.asarray(axis.get_ticklocs())
    return ticks[(ticks >= low) & (ticks <= high)]


def test_topics_plot_counts_topics_in_whole_numbers_from_zero() -> None:
    swaps = pd.DataFrame(
        {"metric": ["AP", "AP", "RR", "RR"], "size": [5, 6, 5, 6], "swap_rate": [0.0] * 4}
    )
    ax = topics_plot(swaps)
    ticks = _ticks_in_view(ax.xaxis)
    assert len(ticks) >= 2
    assert np.all(ticks == np.round(ticks))
    low, high = ax.get_ylim()
    assert low == 0.0
    assert high > 0.0
    for line in ax.get_lines():  # a rate of 0 is drawn over the axis, not hidden under it
        assert not line.get_clip_on()
        assert line.get_zorder() > ax.spines["bottom"].get_zorder()


def test_asl_plot_counts_pairs_in_whole_numbers_and_shows_a_curve_at_zero() -> None:
    curves = pd.DataFrame({"metric": ["AP"] * 3 + ["P@10"] * 3, "asl": [0.0] * 3 + [0.0, 0.2, 0.4]})
    ax = asl_plot(curves)
    ticks = _ticks_in_view(ax.xaxis)
    assert len(ticks) >= 2
    assert np.all(ticks == np.round(ticks))
    assert ax.get_ylim()[0] == 0.0
    zero = ax.get_lines()[0]
    assert not zero.get_clip_on()
    assert zero.get_zorder() > ax.spines["bottom"].get_zorder()


def _look(ax) -> tuple:
    (shown,) = ax.figure.legends
    return (
        shown.get_frame_on(),
        shown.get_title().get_fontweight(),
        ax.title.get_fontweight(),
        ax.title.get_fontsize(),
        ax.spines["top"].get_visible(),
        ax.spines["right"].get_visible(),
        ax.xaxis.label.get_fontsize(),
    )


def test_measure_figures_look_like_the_accessors_figures() -> None:
    from pdireval.datasets import example

    reference = _look(example().ireval.plot.at_k("nDCG", ks=range(1, 4)))
    swaps = pd.DataFrame({"metric": ["AP", "AP"], "size": [5, 10], "swap_rate": [0.2, 0.1]})
    assert _look(topics_plot(swaps)) == reference
    curves = pd.DataFrame({"metric": ["AP"] * 3, "asl": [0.01, 0.2, 0.4]})
    assert _look(asl_plot(curves)) == reference
    assert reference[0] is False  # legends without a frame


def test_risk_plot_writes_negative_trisk_with_the_minus_sign() -> None:
    """The TRisk labels write a negative value as the axes do (U+2212), not with a hyphen."""
    runs = long_names(10)
    ax = risk_plot(_long_frame(runs), "P@10", baseline=runs[0])
    ax.figure.draw_without_rendering()
    (right,) = (child for child in ax.get_children() if type(child).__name__ == "SecondaryAxis")
    labels = [label.get_text() for label in right.get_yticklabels()]
    assert all(label.startswith("TRisk ") for label in labels)
    assert not any("TRisk -" in label for label in labels)
    values = [float(label.split()[1].rstrip("*").replace("\u2212", "-")) for label in labels]
    assert any(value < 0 for value in values)
