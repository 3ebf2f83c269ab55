"""Plots with 1, 3, 10 and 20 runs named like real experiments: styles, order, layout.

Every figure is drawn with the Agg backend, saved as users save it, and then measured:
texts inside the figure, tick labels apart, legends off the data, axes not squeezed.
"""

from __future__ import annotations

import io
import itertools

import numpy as np
import pandas as pd
import pytest

import pdireval
from pdireval.datasets import example_qrels, example_run
from pdireval.plotting import run_styles

matplotlib = pytest.importorskip("matplotlib")
matplotlib.use("Agg")
plt = pytest.importorskip("matplotlib.pyplot")

NAMES = [
    "bm25",
    "bm25+rm3",
    "bm25+monoT5-3b-rerank-top1000-fold3",
    "splade-v3-distil",
    "colbertv2-plaid-k1000",
    "bm25+monoT5-base-rerank-top100-fold1",
    "dense-contriever-msmarco-ft",
    "bm25+duoT5-3b-rerank-top50-fold2",
    "hybrid-rrf-bm25-splade-k60",
    "tct-colbert-v2-hnp-msmarco",
    "bm25+monoBERT-large-rerank-top1000",
    "ance-firstp-msmarco",
    "bm25-prf-axiomatic-beta0.4",
    "unicoil-noexp-msmarco-passage",
    "bm25+monoT5-3b-rerank-top1000-fold4",
    "docT5query-expanded-bm25",
    "qld-dirichlet-mu1000",
    "rankllama-7b-rerank-top100",
    "bm25+rankGPT-4-listwise-top20",
    "spladepp-ensembledistil",
]
SIZES = [1, 3, 10, 20]


@pytest.fixture(scope="module")
def twenty() -> pd.DataFrame:
    """Twenty runs with long names (noisy copies of the example's three), timed per query."""
    run = example_run()
    rng = np.random.default_rng(0)
    parts = []
    for i, name in enumerate(NAMES):
        part = run[run["run"] == ["strong", "medium", "weak"][i % 3]].copy()
        part["score"] += rng.normal(0, 0.3, len(part))
        topic = part["query"].astype(int)
        part = part.assign(run=name, time=0.01 * (1 + i) ** 1.7 + 0.0001 * (topic % 7))
        parts.append(part)
    return pdireval.merge_qrels(pd.concat(parts, ignore_index=True), example_qrels())


def first(frame: pd.DataFrame, n: int) -> pd.DataFrame:
    """The first ``n`` runs; one run without a run column."""
    part = frame[frame["run"].isin(NAMES[:n])]
    return part.drop(columns="run") if n == 1 else part


@pytest.fixture(autouse=True)
def _close_figures():
    plt.close("all")
    yield
    plt.close("all")


FIGURES = {
    "pr_curve": lambda df: df.ireval.plot.pr_curve(),
    "pr_curve_per_query": lambda df: df.ireval.plot.pr_curve(per_query=True),
    "at_k": lambda df: df.ireval.plot.at_k("nDCG", ks=[1, 3, 5, 10, 20, 50, 100]),
    "at_k_1_to_20": lambda df: df.ireval.plot.at_k("P"),
    "distribution": lambda df: df.ireval.plot.distribution("AP"),
    "systems": lambda df: df.ireval.plot.systems("AP", ci_method="bootstrap", seed=0),
    "per_query": lambda df: df.ireval.plot.per_query("AP"),
    "tradeoff": lambda df: df.ireval.plot.tradeoff("nDCG@10"),
}


def boxes(texts, renderer) -> list:
    shown = [t for t in texts if t is not None and t.get_visible() and t.get_text()]
    return [t.get_window_extent(renderer) for t in shown]


def shown_tick_labels(axis, limits) -> list:
    low, high = sorted(limits)
    span = high - low
    return [
        label
        for tick in axis.get_major_ticks()
        if low - 1e-9 * span <= tick.get_loc() <= high + 1e-9 * span
        for label in (tick.label1, tick.label2)
        if label.get_visible() and label.get_text()
    ]


def within(box, area) -> bool:
    """``box`` lies inside ``area`` (one pixel of tolerance)."""
    return bool(
        area.x0 - 1 <= box.x0
        and box.x1 <= area.x1 + 1
        and area.y0 - 1 <= box.y0
        and box.y1 <= area.y1 + 1
    )


def apart(extents) -> None:
    for one, other in itertools.combinations(extents, 2):
        assert not one.overlaps(other), (one, other)


def _is_scatter(collection) -> bool:
    return type(collection).__name__ == "PathCollection"


def check_layout(figure) -> None:
    """Texts inside the figure, no two tick labels of an axis (or two titles) overlapping,
    no legend over any axes, direct labels inside their axes and apart."""
    figure.savefig(io.BytesIO(), format="png")
    figure.canvas.draw()
    renderer = figure.canvas.get_renderer()
    page = figure.bbox
    axes = [ax for ax in figure.axes if ax.get_visible()]
    inside = boxes([figure._suptitle, figure._supxlabel, figure._supylabel], renderer)
    titles = []
    for ax in axes:
        for axis, limits in ((ax.xaxis, ax.get_xlim()), (ax.yaxis, ax.get_ylim())):
            ticks = boxes(shown_tick_labels(axis, limits), renderer)
            apart(ticks)
            inside += ticks
            # a tick label never runs into the plotting area of another panel
            for other in axes:
                if other is not ax:
                    for tick in ticks:
                        assert not tick.overlaps(other.get_window_extent(renderer))
        titles += boxes([ax.title], renderer)
        inside += boxes([ax.xaxis.label, ax.yaxis.label], renderer)
        labels = boxes(ax.texts, renderer)
        apart(labels)
        data = ax.get_window_extent(renderer)
        points = np.vstack(
            [ax.transData.transform(c.get_offsets()) for c in ax.collections if _is_scatter(c)]
            or [np.empty((0, 2))]
        )
        for label in labels:  # direct labels stay in the plotting area, off the points
            assert within(label, data), (label, data)
            covered = [p for p in points if label.padded(-1).contains(*p)]
            assert len(covered) <= 0, ("a name covers a point", label, covered)
    apart(titles)
    legends = [*figure.legends, *(ax.get_legend() for ax in axes if ax.get_legend())]
    for legend in legends:
        extent = legend.get_window_extent(renderer)
        inside.append(extent)
        for ax in axes:
            assert not extent.overlaps(ax.get_window_extent(renderer)), "legend over an axes"
    for box in [*inside, *titles]:
        assert within(box, page), (box, page)


@pytest.mark.parametrize("n", SIZES)
@pytest.mark.parametrize("kind", sorted(FIGURES))
def test_every_figure_is_laid_out_cleanly(twenty: pd.DataFrame, kind: str, n: int) -> None:
    if kind == "per_query" and n == 1:
        pytest.skip("per-query differences need two runs")
    ax = FIGURES[kind](first(twenty, n))
    check_layout(ax.figure)


def test_the_layout_check_can_fail(twenty: pd.DataFrame) -> None:
    """The check above catches a legend over the data and overlapping tick labels."""
    ax = first(twenty, 10).ireval.plot.at_k("P")
    ax.legend(loc="center")
    with pytest.raises(AssertionError, match="legend over an axes"):
        check_layout(ax.figure)
    _figure, crowded = plt.subplots(figsize=(2, 2))
    crowded.set_xticks(range(20), [f"query-{i}" for i in range(20)])
    with pytest.raises(AssertionError):
        check_layout(crowded.figure)


# -- styles ------------------------------------------------------------------------------------


def test_styles_distinct_for_twenty_and_a_hundred_runs() -> None:
    styles = list(run_styles(range(100)).values())
    assert len({(s.color, s.marker) for s in styles}) == 100
    assert len({(s.color, s.marker, s.linestyle) for s in styles[:40]}) == 40
    assert len({s.color for s in styles[:10]}) == 10  # ten colours before any repeats


def test_styles_stay_when_runs_are_added() -> None:
    before = run_styles(NAMES[:10])
    after = run_styles([*NAMES[:10], "aaa-sorts-first", *NAMES[10:]])
    assert all(after[run] == style for run, style in before.items())


def test_run_styles_refuses_a_run_twice() -> None:
    with pytest.raises(pdireval.SchemaError, match="more than once"):
        run_styles(["bm25", "dense", "bm25"])


def line_styles(ax) -> dict[str, tuple]:
    return {
        line.get_label(): (line.get_color(), line.get_marker(), line.get_linestyle())
        for line in ax.get_lines()
    }


def test_twenty_runs_have_twenty_looks(twenty: pd.DataFrame) -> None:
    looks = line_styles(twenty.ireval.plot.at_k("P", ks=[1, 5, 10]))
    assert sorted(looks) == sorted(NAMES)
    assert len({(color, marker) for color, marker, _ in looks.values()}) == 20


def test_a_run_keeps_its_look_when_runs_are_added(twenty: pd.DataFrame) -> None:
    ten = first(twenty, 10)
    extra = first(twenty, 3).assign(run=lambda f: "aaa-" + f["run"].astype(str))
    looks = line_styles(ten.ireval.plot.pr_curve())
    grown = line_styles(pd.concat([ten, extra], ignore_index=True).ireval.plot.pr_curve())
    assert all(grown[run] == look for run, look in looks.items())
    # a figure of a subset styles its runs as the full figure does, given the order
    subset = twenty[twenty["run"].isin([NAMES[4], NAMES[12]])]
    some = line_styles(subset.ireval.plot.pr_curve(order=NAMES))
    full = line_styles(twenty.ireval.plot.pr_curve())
    assert some == {run: full[run] for run in (NAMES[4], NAMES[12])}


def test_categorical_runs_follow_their_categories(twenty: pd.DataFrame) -> None:
    three = first(twenty, 3)
    categories = [NAMES[2], NAMES[0], NAMES[1]]
    frame = three.assign(run=pd.Categorical(three["run"], categories=categories))
    ax = frame.ireval.plot.distribution("AP")
    assert [t.get_text() for t in ax.get_yticklabels()] == categories


def test_order_must_be_a_list(twenty: pd.DataFrame) -> None:
    with pytest.raises(pdireval.SchemaError, match="list of run ids"):
        first(twenty, 3).ireval.plot.at_k("P", order="bm25")


# -- legends and sizes -------------------------------------------------------------------------


def axes_inches(ax) -> tuple[float, float]:
    ax.figure.canvas.draw()
    box = ax.get_window_extent()
    return box.width / ax.figure.dpi, box.height / ax.figure.dpi


@pytest.mark.parametrize("kind", ["pr_curve", "at_k", "tradeoff"])
def test_a_legend_does_not_squeeze_the_axes(twenty: pd.DataFrame, kind: str) -> None:
    alone = axes_inches(FIGURES[kind](first(twenty, 1)))
    for n in (3, 10, 20):
        ax = FIGURES[kind](first(twenty, n))
        width, height = axes_inches(ax)
        assert width >= 0.95 * alone[0], (n, alone, width)
        assert height >= 0.95 * alone[1], (n, alone, height)


@pytest.mark.parametrize("kind", ["distribution", "systems"])
def test_long_names_do_not_narrow_the_axes(twenty: pd.DataFrame, kind: str) -> None:
    three = first(twenty, 3)
    short = three.assign(run=three["run"].map(dict(zip(NAMES[:3], "abc", strict=True))))
    assert axes_inches(FIGURES[kind](three))[0] >= 0.95 * axes_inches(FIGURES[kind](short))[0]


def test_legend_below_in_columns(twenty: pd.DataFrame) -> None:
    ax = twenty.ireval.plot.at_k("P", ks=[1, 5, 10])
    (legend,) = ax.figure.legends
    ax.figure.canvas.draw()
    assert legend.get_window_extent().y1 <= ax.xaxis.label.get_window_extent().y0
    assert legend._ncols >= 2  # the number of columns has no public getter


def test_on_given_axes_the_legend_goes_beside_and_nothing_is_resized(
    twenty: pd.DataFrame,
) -> None:
    figure, ax = plt.subplots(figsize=(6, 4))
    first(twenty, 10).ireval.plot.at_k("P", ax=ax)
    assert tuple(figure.get_size_inches()) == (6.0, 4.0)
    assert figure.legends == []
    figure.canvas.draw()
    assert ax.get_legend().get_window_extent().x0 >= ax.get_window_extent().x1


# -- what the figures say ----------------------------------------------------------------------


def test_tradeoff_names_few_points_beside_them(twenty: pd.DataFrame) -> None:
    ax = first(twenty, 3).ireval.plot.tradeoff("AP")
    assert sorted(t.get_text() for t in ax.texts) == sorted(NAMES[:3])
    assert ax.figure.legends == []
    assert ax.get_legend() is None
    ax = first(twenty, 10).ireval.plot.tradeoff("AP")
    assert len(ax.texts) == 0
    assert [t.get_text() for t in ax.figure.legends[0].get_texts()] == NAMES[:10]


def test_per_query_heatmap_rows_share_the_query_order(twenty: pd.DataFrame) -> None:
    ten = first(twenty, 10)
    ax = ten.ireval.plot.per_query("AP")
    queries = [t.get_text() for t in ax.get_xticklabels()]
    runs = [t.get_text() for t in ax.get_yticklabels()]
    assert runs == NAMES[1:10]  # the first run is the baseline
    (image,) = ax.images
    cells = np.ma.getdata(image.get_array())
    deltas = pdireval.per_query(ten, "AP", baseline=NAMES[0])["delta"]
    np.testing.assert_allclose(cells, deltas.loc[queries, runs].to_numpy().T)
    mean = deltas.loc[queries, runs].mean(axis=1).to_numpy()
    assert np.all(np.diff(mean) <= 1e-12)


def test_per_query_ids_on_request_for_many_queries(twenty: pd.DataFrame) -> None:
    three = first(twenty, 3)
    many = pd.concat([three, three.assign(query=three["query"] + "b")], ignore_index=True)
    assert [t.get_text() for t in many.ireval.plot.per_query("AP").get_xticklabels()] == []
    ax = many.ireval.plot.per_query("AP", query_labels=True)
    assert len(ax.get_xticklabels()) == 100
    check_layout(ax.figure)


@pytest.mark.parametrize(
    ("ks", "labels"),
    [
        ([1, 10, 20], ["1", "10", "20"]),
        (range(1, 21), ["1", "5", "10", "15", "20"]),
        ([1, 5, 10, 20, 50, 100, 1000], ["1", "5", "10", "20", "50", "100", "1000"]),
    ],
)
def test_at_k_labels_the_cutoffs_evaluated(twenty: pd.DataFrame, ks, labels) -> None:
    ax = first(twenty, 3).ireval.plot.at_k("P", ks=ks)
    assert [t.get_text() for t in ax.get_xticklabels()] == labels
    assert {int(k) for k in labels} <= set(ks)
    check_layout(ax.figure)


def test_pr_curve_one_is_labelled_inside_the_figure(twenty: pd.DataFrame) -> None:
    ax = first(twenty, 10).ireval.plot.pr_curve()
    ax.figure.canvas.draw()
    (one,) = [t for t in ax.get_xticklabels() if t.get_text() == "1.0"]
    assert one.get_window_extent().x1 <= ax.figure.bbox.x1
    (top,) = [t for t in ax.get_yticklabels() if t.get_text() == "1.0"]
    assert top.get_window_extent().y1 <= ax.figure.bbox.y1


def test_tradeoff_of_one_run_draws_its_point(twenty: pd.DataFrame) -> None:
    one = first(twenty, 1)
    ax = one.ireval.plot.tradeoff("AP")
    (point,) = ax.collections
    latency = one.groupby("query")["time"].first().mean() * 1000.0
    np.testing.assert_allclose(point.get_offsets(), [[latency, one.ireval.map()]])
    assert len(ax.texts) == 0  # nothing to name


def test_tradeoff_points_are_the_runs_means(twenty: pd.DataFrame) -> None:
    ten = first(twenty, 10)
    ax = ten.ireval.plot.tradeoff("AP")
    offsets = np.vstack([points.get_offsets() for points in ax.collections])
    means = pdireval.summary(ten, "AP")["AP"]
    latency = ten.groupby(["run", "query"])["time"].first().groupby("run").mean() * 1000.0
    np.testing.assert_allclose(offsets[:, 0], latency.loc[NAMES[:10]].to_numpy())
    np.testing.assert_allclose(offsets[:, 1], means.loc[NAMES[:10]].to_numpy())


@pytest.mark.parametrize("spread", [0.0001, 0.01])
def test_tradeoff_names_cover_no_point_or_give_way_to_a_legend(spread: float) -> None:
    """Eight runs close together: each name clear of the points and names, or a legend."""
    run = example_run()
    parts = []
    for i, name in enumerate(NAMES[:8]):
        part = run[run["run"] == "strong"].copy()
        part["score"] += np.random.default_rng(i).normal(0, 0.01, len(part))
        parts.append(part.assign(run=name, time=0.05 + spread * i))
    frame = pdireval.merge_qrels(pd.concat(parts, ignore_index=True), example_qrels())
    ax = frame.ireval.plot.tradeoff("AP")
    check_layout(ax.figure)
    named = sorted(t.get_text() for t in ax.texts)
    legend = [t.get_text() for legend in ax.figure.legends for t in legend.get_texts()]
    assert (named, legend) in ((sorted(NAMES[:8]), []), ([], NAMES[:8]))


# -- properties of the helpers -----------------------------------------------------------------

hypothesis = pytest.importorskip("hypothesis")
st = hypothesis.strategies


@hypothesis.given(st.sets(st.integers(1, 5000), min_size=1, max_size=300), st.booleans())
def test_cutoff_ticks_are_evaluated_cutoffs_with_both_ends(ks: set[int], log: bool) -> None:
    from pdireval.plotting._curves import MAX_K_TICKS, cutoff_ticks

    ticks = cutoff_ticks(sorted(ks), log=log)
    assert ticks == sorted(set(ticks))
    assert set(ticks) <= ks
    assert ticks[0] == min(ks)
    assert ticks[-1] == max(ks)
    assert len(ticks) <= max(MAX_K_TICKS, 2)
    if len(ks) <= MAX_K_TICKS:
        assert ticks == sorted(ks)


WORD = st.text(st.sampled_from("ab9-+_(),"), min_size=1, max_size=12)


@hypothesis.given(st.lists(WORD, min_size=1, max_size=6))
def test_wrapped_names_break_between_whole_words(words: list[str]) -> None:
    """At most six words of at most 12 characters: three lines of 26 hold them whole.

    Lines joined by spaces give the words back only when no line ends inside a word.
    """
    from pdireval.plotting._curves import wrap

    lines = wrap(" ".join(words)).split("\n")
    assert " ".join(lines).split(" ") == words
    assert all(len(line) <= 26 for line in lines)


def shortened_from(token: str, words: list[str]) -> bool:
    """``token`` is a word, or a word shortened around "…", or either with "…" after it."""
    for shown in {token, token.removesuffix("…")}:
        head, dots, tail = shown.partition("…")
        if shown in words or (dots and any(w.startswith(head) and w.endswith(tail) for w in words)):
            return True
    return False


@hypothesis.given(st.text(st.sampled_from("ab-+_ 9"), min_size=1, max_size=90))
def test_wrapped_names_fit_their_lines_and_shorten_only_with_an_ellipsis(name: str) -> None:
    from pdireval.plotting._curves import wrap

    lines = wrap(name).split("\n")
    assert len(lines) <= 3
    assert all(len(line) <= 26 for line in lines)
    tokens = " ".join(lines).split()
    assert all(shortened_from(token, name.split()) for token in tokens), tokens
    assert not any(token.endswith("…") for token in tokens[:-1])  # "…" ends the text


def test_per_query_chart_chooses_bars_or_heat_map(twenty: pd.DataFrame) -> None:
    three = first(twenty, 3)
    ax = three.ireval.plot.per_query("AP", chart="heatmap")
    assert len(ax.images) == 1
    assert [t.get_text() for t in ax.get_yticklabels()] == NAMES[1:3]
    ax = first(twenty, 6).ireval.plot.per_query("AP", chart="bars")
    assert len(ax.containers) == 5
    assert len(ax.images) == 0
    with pytest.raises(pdireval.SchemaError, match="chart='pie'"):
        three.ireval.plot.per_query("AP", chart="pie")


def test_heat_map_note_of_missing_values_is_laid_out_cleanly(
    twenty: pd.DataFrame, monkeypatch: pytest.MonkeyPatch
) -> None:
    from pdireval.plotting import _queries

    original = _queries._differences

    def with_gaps(*args, **kwargs):
        values, deltas = original(*args, **kwargs)
        return values, deltas.mask(deltas.index.to_series().eq(deltas.index[4]), axis=0)

    monkeypatch.setattr(_queries, "_differences", with_gaps)
    for n in (4, 20):
        ax = first(twenty, n).ireval.plot.per_query("AP", chart="heatmap")
        check_layout(ax.figure)
        assert np.ma.getmaskarray(ax.images[0].get_array()).any()
