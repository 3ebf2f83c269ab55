"""The judge-bias figure: runs top to bottom in the frame's order with their intervals,
long names wrapped, and the pairs the LLM orders differently joined in red."""

from __future__ import annotations

import matplotlib

matplotlib.use("Agg")

import itertools

import matplotlib.colors as mcolors
import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
import pytest

import pdireval
from pdireval.judgments.bias import judge_bias
from pdireval.plotting import judge_bias_plot, run_styles
from pdireval.plotting._bias import SWAP_COLOUR

pytest.importorskip("scipy")

LONG = "bm25+monoT5-3B (rerank top-100, fine-tuned)"


def case(runs: int, seed: int = 0):
    rng = np.random.default_rng(seed)
    queries, docs = 24, 15
    rel = rng.integers(0, 3, (queries, docs)) * (rng.random((queries, docs)) < 0.4)
    qrels = pd.DataFrame(
        {
            "query": np.repeat([f"q{i}" for i in range(queries)], docs),
            "doc": np.tile([f"d{j}" for j in range(docs)], queries),
            "rel": rel.ravel(),
        }
    )
    names = [f"{LONG} #{i}" for i in range(runs)]
    parts = []
    for at, name in enumerate(names):
        score = rel * (1 - at / runs) * 2 + rng.normal(0, 1, rel.shape)
        parts.append(qrels[["query", "doc"]].assign(score=score.ravel(), run=name))
    run = pd.concat(parts, ignore_index=True)
    last = run[run["run"] == names[-1]].sort_values("score", ascending=False)
    favoured = pd.MultiIndex.from_frame(last.groupby("query").head(5)[["query", "doc"]])
    liked = pd.MultiIndex.from_frame(qrels[["query", "doc"]]).isin(favoured)
    llm = qrels.assign(rel=np.where(liked, 2, qrels["rel"]))
    gold = qrels[qrels["query"].isin([f"q{i}" for i in range(0, queries, 2)])]
    return run, llm, gold, names


@pytest.fixture(autouse=True)
def _close():
    yield
    plt.close("all")


@pytest.mark.parametrize("runs", [10, 20])
def test_runs_top_to_bottom_in_frame_order(runs) -> None:
    run, llm, gold, names = case(runs)
    order = names[::-1]
    ordered = run.assign(run=pd.Categorical(run["run"], categories=order))
    found = judge_bias(ordered, "nDCG@10", qrels=llm, gold=gold)
    left, _right = judge_bias_plot(found)
    labels = [tick.get_text() for tick in left.get_yticklabels()]
    assert [label.replace("\n", " ") for label in labels] == order
    assert all("\n" in label for label in labels)  # long names wrapped
    ticks = left.get_yticks()
    assert list(ticks) == sorted(ticks, reverse=True)  # the first run on top
    points = [line for line in left.get_lines() if line.get_marker() not in ("None", None, "")]
    styles = run_styles(order)
    bias = found.bias.set_index("run")["bias"]
    for line, name, y in zip(points, order, ticks, strict=True):
        assert line.get_ydata()[0] == y
        assert line.get_xdata()[0] == pytest.approx(bias[name])
        assert mcolors.same_color(line.get_color(), styles[name].color)
    figure = left.figure
    assert figure.get_size_inches()[0] > 10.0  # widened for the names
    figure.canvas.draw()
    boxes = [t.get_window_extent() for t in left.get_yticklabels()]
    assert all(a.y0 >= b.y1 - 1 for a, b in itertools.pairwise(boxes))  # no overlap


def test_pairs_ordered_differently_are_red() -> None:
    run, llm, gold, _names = case(6, seed=3)
    found = judge_bias(run, "nDCG@10", qrels=llm, gold=gold)
    assert len(found.swaps) > 0
    _, right = judge_bias_plot(found)
    red = [line for line in right.get_lines() if mcolors.same_color(line.get_color(), SWAP_COLOUR)]
    assert len(red) == len(found.swaps)
    means = found.bias.set_index("run")
    drawn = {(tuple(line.get_xdata()), tuple(line.get_ydata())) for line in red}
    expected = {
        (
            (means.loc[a, "gold_mean"], means.loc[b, "gold_mean"]),
            (means.loc[a, "llm_mean"], means.loc[b, "llm_mean"]),
        )
        for a, b in zip(found.swaps["run"], found.swaps["other"], strict=True)
    }
    assert drawn == expected
    assert right.get_title().startswith(f"{len(found.swaps)} pair")


def test_no_swaps_no_red_and_metric_choice() -> None:
    run, _, gold, _ = case(3)
    found = judge_bias(run, ["AP", "P@5"], qrels=gold, gold=gold)
    with pytest.raises(pdireval.MetricError, match="several metrics"):
        judge_bias_plot(found)
    with pytest.raises(pdireval.MetricError, match="was not evaluated"):
        judge_bias_plot(found, "nDCG")
    _, right = judge_bias_plot(found, "AP")
    lines = right.get_lines()
    assert not [x for x in lines if mcolors.same_color(x.get_color(), SWAP_COLOUR)]
    assert right.get_title().startswith("0 pairs")


def test_draws_on_given_axes_without_resizing() -> None:
    run, llm, gold, _ = case(3)
    found = judge_bias(run, "AP", qrels=llm, gold=gold)
    figure, axes = plt.subplots(1, 2, figsize=(8, 3))
    left, right = judge_bias_plot(found, axes=(axes[0], axes[1]))
    assert (left, right) == (axes[0], axes[1])
    assert tuple(figure.get_size_inches()) == (8, 3)
