"""Run styles with 10 and 20 runs named like experiments: no run in the reference grey,
distinct bars beyond ten runs, a heat map cell without a value unlike a zero, titles
wrapped at spaces only.
"""

from __future__ import annotations

import colorsys

import numpy as np
import pandas as pd
import pytest

from pdireval.plotting import run_styles

matplotlib = pytest.importorskip("matplotlib")
matplotlib.use("Agg")
plt = pytest.importorskip("matplotlib.pyplot")
colors = pytest.importorskip("matplotlib.colors")

SYSTEMS = [
    "bm25",
    "SPLADE++",
    "bm25+monoT5-3B",
    "ColBERTv2",
    "bm25+RM3",
    "dense-contriever",
    "bm25+duoT5",
    "hybrid-RRF",
    "uniCOIL",
    "rankLLaMA-7B",
]
SETTINGS = ["(rerank top-100, fine-tuned)", "(rerank top-1000, zero-shot)", "(first stage)"]


def names(n: int) -> list[str]:
    return [f"{SYSTEMS[i % 10]} {SETTINGS[i // 10]}" for i in range(n)]


def runs(n: int, queries: int = 6, docs: int = 12) -> pd.DataFrame:
    """``n`` runs over the same judged documents, each ranking them by a noisy score."""
    rng = np.random.default_rng(n)
    rel = rng.integers(0, 3, size=(queries, docs)) * (rng.random((queries, docs)) < 0.4)
    rows = []
    for i, name in enumerate(names(n)):
        for q in range(queries):
            scores = rel[q] * (0.3 + 0.1 * i) + rng.normal(size=docs)
            for rank, d in enumerate(np.argsort(-scores)):
                rows.append((f"q{q}", f"d{d}", rank + 1, int(rel[q, d]), scores[d], name))
    return pd.DataFrame(rows, columns=["query", "doc", "rank", "rel", "score", "run"])


@pytest.fixture(autouse=True)
def _close_figures():
    plt.close("all")
    yield
    plt.close("all")


def saturation(colour) -> float:
    return colorsys.rgb_to_hsv(*colors.to_rgb(colour))[1]


# -- no run in the reference grey ---------------------------------------------------------------


def test_no_run_colour_is_grey() -> None:
    styles = run_styles(range(40)).values()
    assert min(saturation(style.color) for style in styles) > 0.3


@pytest.mark.parametrize("n", [10, 20])
def test_pr_panels_draw_no_run_in_the_grey_of_the_other_runs(n: int) -> None:
    ax = runs(n).ireval.plot.pr_curve(per_query=True)
    panels = [panel for panel in ax.figure.axes if panel.get_visible()]
    assert len(panels) == n
    for panel in panels:
        reference = panel.collections[0]  # the other runs' means, drawn first
        assert len(reference.get_paths()) == n - 1
        grey = colors.to_rgba(reference.get_colors()[0])
        assert saturation(grey) == 0.0
        (mean,) = panel.get_lines()
        assert colors.to_rgba(mean.get_color()) != grey
        assert saturation(mean.get_color()) > 0.3  # a colour, not another grey


# -- bars beyond ten runs ------------------------------------------------------------------------


def test_bar_hatches_follow_the_line_styles() -> None:
    from pdireval.plotting._styles import HATCHES, LINESTYLES

    styles = list(run_styles(range(40)).values())
    assert all(
        HATCHES.index(s.hatch) == LINESTYLES.index(s.linestyle) for s in styles
    )  # dashed lines, hatched bars: one more look per block of ten runs
    assert len({(s.color, s.hatch) for s in styles}) == 40
    assert [s.hatch for s in styles[:10]] == [""] * 10  # the first ten bars plain


@pytest.mark.parametrize("n", [20, 21])
def test_bars_of_many_runs_differ_in_colour_or_hatch(n: int) -> None:
    ax = runs(n).ireval.plot.per_query("AP", chart="bars")
    assert len(ax.containers) == n - 1
    looks = []
    for bars in ax.containers:
        faces = {colors.to_hex(patch.get_facecolor()) for patch in bars.patches}
        hatches = {patch.get_hatch() or "" for patch in bars.patches}
        assert len(faces) == len(hatches) == 1  # one look per run
        looks.append((faces.pop(), hatches.pop()))
    assert len(set(looks)) == n - 1
    legend = ax.figure.legends[0]
    handles = getattr(legend, "legend_handles", None) or legend.legendHandles
    assert [handle.get_hatch() or "" for handle in handles] == [hatch for _, hatch in looks]


# -- a heat map cell without a value -------------------------------------------------------------


def cell_colour(ax, pixels: np.ndarray, row: int, column: int) -> np.ndarray:
    """The mean RGB of the middle half of one heat map cell, as rendered."""
    (x0, y0), (x1, y1) = ax.transData.transform(
        [[column - 0.25, row - 0.25], [column + 0.25, row + 0.25]]
    )
    height = pixels.shape[0]
    xs = slice(int(min(x0, x1)), int(max(x0, x1)) + 1)
    ys = slice(int(height - max(y0, y1)), int(height - min(y0, y1)) + 1)
    return pixels[ys, xs, :3].reshape(-1, 3).mean(axis=0)


@pytest.mark.parametrize("n", [10, 20])
def test_heat_map_tells_no_value_from_no_difference(
    n: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    from pdireval.plotting import _queries

    original = _queries._differences

    def with_gaps(*args, **kwargs):
        values, deltas = original(*args, **kwargs)
        deltas = deltas.copy()
        deltas.iloc[1, 0] = np.nan
        deltas.iloc[2, 1] = 0.0
        return values, deltas

    monkeypatch.setattr(_queries, "_differences", with_gaps)
    ax = runs(n).ireval.plot.per_query("AP", chart="heatmap")
    figure = ax.figure
    figure.canvas.draw()
    pixels = np.asarray(figure.canvas.buffer_rgba()).astype(np.float64)
    cells = ax.images[0].get_array()
    (missing,) = zip(*np.nonzero(np.ma.getmaskarray(cells)), strict=True)
    zeros = list(zip(*np.nonzero(cells.filled(np.nan) == 0.0), strict=True))
    assert zeros
    nothing = cell_colour(ax, pixels, *missing)
    zero = cell_colour(ax, pixels, *zeros[0])
    assert np.linalg.norm(nothing - zero) > 40  # of 255: seen at a glance
    named = [
        text.get_text()
        for other in figure.axes
        if other.get_legend()
        for text in other.get_legend().get_texts()
    ]
    assert named == ["no value"]


def test_heat_map_without_gaps_names_no_missing_value() -> None:
    ax = runs(10).ireval.plot.per_query("AP", chart="heatmap")
    assert not [other for other in ax.figure.axes if other.get_legend()]
    assert not ax.patches


# -- titles wrapped at spaces -------------------------------------------------------------------


@pytest.mark.parametrize("n", [10, 20])
def test_panel_titles_break_between_words(n: int) -> None:
    ax = runs(n).ireval.plot.pr_curve(per_query=True)
    titles = [panel.get_title() for panel in ax.figure.axes if panel.get_visible()]
    assert [title.replace("\n", " ") for title in titles] == names(n)
    assert all(len(title.split("\n")) > 1 for title in titles)  # long names do wrap


def test_a_name_too_long_for_its_lines_ends_in_an_ellipsis() -> None:
    from pdireval.plotting._curves import wrap

    name = "bm25 then monoT5-3B then duoT5 then a listwise LLM (rerank top-100, fine-tuned, fold 3)"
    lines = wrap(name, width=20, lines=3).split("\n")
    assert len(lines) == 3
    assert lines[-1].endswith("…")
    assert all(len(line) <= 20 for line in lines)
    assert name.startswith(" ".join(lines)[:-1])
