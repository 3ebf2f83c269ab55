"""df.ireval.plot: what each figure contains, rendered with the Agg backend."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import pdireval
from pdireval import plotting
from pdireval.datasets import example, toy

matplotlib = pytest.importorskip("matplotlib")
matplotlib.use("Agg")
plt = pytest.importorskip("matplotlib.pyplot")
to_rgb = matplotlib.colors.to_rgb

RUNS = ["strong", "medium", "weak"]  # the order they first appear in the example


@pytest.fixture(scope="module")
def df() -> pd.DataFrame:
    """The example collection: 50 topics, three runs."""
    return example()


@pytest.fixture(autouse=True)
def _close_figures():
    """Each test starts and ends without open figures."""
    plt.close("all")
    yield
    plt.close("all")


def the_legend(ax):
    """The legend of ``ax``: its own, or the figure's (below the axes of a new figure)."""
    legends = [ax.get_legend(), *ax.figure.legends]
    shown = [legend for legend in legends if legend is not None]
    assert len(shown) <= 1
    return shown[0] if shown else None


def legend_texts(ax) -> list[str]:
    legend = the_legend(ax)
    return [] if legend is None else [text.get_text() for text in legend.get_texts()]


def tick_texts(ticks) -> list[str]:
    return [tick.get_text() for tick in ticks]


# -- pr_curve ---------------------------------------------------------------------------------


def test_pr_curve_one_averaged_line_per_run(df: pd.DataFrame) -> None:
    ax = df.ireval.plot.pr_curve(points=11)
    lines = ax.get_lines()
    assert [line.get_label() for line in lines] == RUNS
    assert legend_texts(ax) == RUNS
    expected = pdireval.pr_curve(df, average=True)
    for line, run in zip(lines, RUNS, strict=True):
        want = expected[expected["run"] == run]
        np.testing.assert_allclose(line.get_xdata(), want["recall"])
        np.testing.assert_allclose(line.get_ydata(), want["precision"])
    assert ax.get_xlim() == (-0.02, 1.02)  # markers at 0 and 1 drawn whole
    assert ax.get_ylim() == (-0.02, 1.02)
    assert (ax.get_xlabel(), ax.get_ylabel()) == ("Recall", "Interpolated precision")


def test_pr_curve_points_sets_the_recall_levels(df: pd.DataFrame) -> None:
    ax = df.ireval.plot.pr_curve(points=5)
    np.testing.assert_allclose(ax.get_lines()[0].get_xdata(), [0.0, 0.25, 0.5, 0.75, 1.0])


def test_pr_curve_per_query_on_given_axes_adds_a_thin_line_per_query(df: pd.DataFrame) -> None:
    _fig, ax = plt.subplots()
    df.ireval.plot.pr_curve(per_query=True, ax=ax)
    assert [line.get_label() for line in ax.get_lines()] == RUNS  # the means, on top
    assert legend_texts(ax) == RUNS
    # one translucent collection per run, a curve per query, in the run's colour
    assert len(ax.collections) == 3
    table = pdireval.pr_curve(df)
    for lines, mean, run in zip(ax.collections, ax.get_lines(), RUNS, strict=True):
        assert lines.get_alpha() < 1
        curves = lines.get_segments()
        assert len(curves) == 50
        want = table[(table["run"] == run) & (table["query"] == "401")]
        np.testing.assert_allclose(curves[0][:, 1], want["precision"])
        np.testing.assert_allclose(lines.get_colors()[0][:3], to_rgb(mean.get_color()))


def test_pr_curve_per_query_one_panel_per_run(df: pd.DataFrame) -> None:
    ax = df.ireval.plot.pr_curve(per_query=True)
    panels = ax.figure.axes
    assert [panel.get_title() for panel in panels] == RUNS
    assert ax is panels[0]
    expected = pdireval.pr_curve(df, average=True)
    for panel, run in zip(panels, RUNS, strict=True):
        grey, queries = panel.collections  # the other runs' means, this run's queries
        assert len(grey.get_segments()) == 2
        assert len(queries.get_segments()) == 50
        (own,) = panel.get_lines()  # its mean, on top
        np.testing.assert_allclose(
            own.get_ydata(), expected.loc[expected["run"] == run, "precision"]
        )
        np.testing.assert_allclose(queries.get_colors()[0][:3], to_rgb(own.get_color()))
    assert panels[0].get_shared_x_axes().joined(panels[0], panels[2])
    assert panels[0].get_shared_y_axes().joined(panels[0], panels[2])


def test_single_run_has_no_legend() -> None:
    frame = toy()
    one = frame[frame["run"] == "system1"].drop(columns="run")
    ax = one.ireval.plot.pr_curve()
    assert len(ax.get_lines()) == 1
    assert ax.get_legend() is None


def test_draws_on_the_given_axes(df: pd.DataFrame) -> None:
    _fig, (left, right) = plt.subplots(1, 2)
    assert df.ireval.plot.pr_curve(ax=right) is right
    assert len(right.get_lines()) == 3
    assert len(left.get_lines()) == 0
    assert len(plt.get_fignums()) == 1  # no new figure


def test_new_figure_when_no_axes(df: pd.DataFrame) -> None:
    first = df.ireval.plot.at_k("P", ks=[1, 2])
    second = df.ireval.plot.at_k("P", ks=[1, 2])
    assert first.figure is not second.figure
    assert len(plt.get_fignums()) == 2


# -- per_query --------------------------------------------------------------------------------


def test_per_query_bars_share_one_query_order(df: pd.DataFrame) -> None:
    ax = df.ireval.plot.per_query("AP", baseline="medium")
    assert len(ax.patches) == 2 * 50
    assert legend_texts(ax) == ["strong", "weak"]
    assert the_legend(ax).get_title().get_text() == "Run − medium"
    table = pdireval.per_query(df, "AP", baseline="medium")["delta"]
    queries = tick_texts(ax.get_xticklabels())
    assert sorted(queries) == sorted(table.index)
    # position i is the same query for both runs: its bar is that query's difference
    for container, run in zip(ax.containers, ["strong", "weak"], strict=True):
        centres = np.array([bar.get_x() + bar.get_width() / 2 for bar in container])
        heights = np.array([bar.get_height() for bar in container])
        at = np.rint(centres).astype(int)
        np.testing.assert_array_equal(at, np.arange(50))
        np.testing.assert_allclose(heights, table.loc[queries, run].to_numpy())
    # the order: the mean difference over the compared runs, largest gain first
    mean = table.loc[queries].mean(axis=1).to_numpy()
    assert np.all(np.diff(mean) <= 1e-12)
    assert ax.get_ylabel() == "Δ AP"
    assert ax.get_xlabel() == "Queries (50), by the mean difference"


@pytest.mark.parametrize("sort", ["baseline", "query", "weak"])
def test_per_query_sort_options(df: pd.DataFrame, sort: str) -> None:
    ax = df.ireval.plot.per_query("AP", baseline="medium", sort=sort)
    queries = tick_texts(ax.get_xticklabels())
    table = pdireval.per_query(df, "AP", baseline="medium")
    key = {
        "baseline": table[("value", "medium")],
        "query": pd.Series(-np.arange(50), index=sorted(table.index)),
        "weak": table[("delta", "weak")],
    }[sort]
    assert np.all(np.diff(key.loc[queries].to_numpy()) <= 0)


def test_per_query_unknown_sort_is_an_error(df: pd.DataFrame) -> None:
    with pytest.raises(pdireval.SchemaError, match="sort='nope'"):
        df.ireval.plot.per_query("AP", sort="nope")


def test_per_query_one_run_labels_the_queries() -> None:
    frame = toy()  # two runs, two topics
    ax = frame.ireval.plot.per_query("AP", baseline="system1")
    assert len(ax.patches) == 2
    # topic2 loses less than topic1, so it comes first
    assert tick_texts(ax.get_xticklabels()) == ["topic2", "topic1"]
    heights = [bar.get_height() for bar in ax.patches]
    assert heights == pytest.approx([-0.1016, -0.2538], abs=1e-4)


def test_per_query_default_baseline_is_first_run(df: pd.DataFrame) -> None:
    ax = df.ireval.plot.per_query("nDCG@10")
    assert legend_texts(ax) == ["medium", "weak"]
    assert the_legend(ax).get_title().get_text() == "Run − strong"
    ax = df.ireval.plot.per_query("nDCG@10", order=["weak"])
    assert legend_texts(ax) == ["strong", "medium"]


def test_per_query_needs_runs() -> None:
    frame = toy().drop(columns="run").drop_duplicates(["query", "doc"])
    with pytest.raises(pdireval.SchemaError):
        frame.ireval.plot.per_query("AP")


# -- distribution -----------------------------------------------------------------------------


def test_distribution_box_and_points_per_run(df: pd.DataFrame) -> None:
    ax = df.ireval.plot.distribution("nDCG@10")
    assert tick_texts(ax.get_yticklabels()) == RUNS  # the first run on top
    assert list(ax.get_yticks()) == [3, 2, 1]
    assert len(ax.collections) == 3  # one scatter per run
    values = pdireval.evaluate(df, "nDCG@10")["nDCG@10"]
    for collection, run in zip(ax.collections, RUNS, strict=True):
        offsets = collection.get_offsets()
        assert len(offsets) == 50
        np.testing.assert_allclose(np.sort(offsets[:, 0]), np.sort(values.loc[run].to_numpy()))
    assert ax.get_xlabel() == "nDCG@10 per query"


def test_distribution_is_reproducible(df: pd.DataFrame) -> None:
    first = df.ireval.plot.distribution("AP").collections[0].get_offsets()
    second = df.ireval.plot.distribution("AP").collections[0].get_offsets()
    np.testing.assert_array_equal(first, second)


def test_distribution_without_points_has_no_scatter(df: pd.DataFrame) -> None:
    ax = df.ireval.plot.distribution("AP", points=False)
    assert len(ax.collections) == 0
    assert tick_texts(ax.get_yticklabels()) == RUNS


def test_distribution_rejects_two_metrics(df: pd.DataFrame) -> None:
    with pytest.raises(pdireval.MetricError, match="one metric"):
        df.ireval.plot.distribution(["AP", "RR"])


# -- at_k -------------------------------------------------------------------------------------


@pytest.mark.parametrize(("metric", "label"), [("P", "P"), ("ndcg", "nDCG"), ("R", "R")])
def test_at_k_one_line_per_run(df: pd.DataFrame, metric: str, label: str) -> None:
    ax = df.ireval.plot.at_k(metric)
    lines = ax.get_lines()
    assert len(lines) == 3
    assert legend_texts(ax) == RUNS
    assert lines[0].get_xdata().tolist() == list(range(1, 21))
    assert ax.get_ylabel() == f"Mean {label}@k"
    assert ax.get_xlabel() == "k (rank cutoff)"
    means = pdireval.summary(df, [f"{label}@1", f"{label}@20"])
    strong = lines[0].get_ydata()
    assert strong[0] == pytest.approx(means.loc["strong", f"{label}@1"])
    assert strong[-1] == pytest.approx(means.loc["strong", f"{label}@20"])


def test_at_k_rejects_a_metric_with_cutoff(df: pd.DataFrame) -> None:
    with pytest.raises(pdireval.MetricError, match="without a cutoff"):
        df.ireval.plot.at_k("nDCG@10")


# -- systems ----------------------------------------------------------------------------------


def test_systems_ordered_by_mean_with_intervals(df: pd.DataFrame) -> None:
    ax = df.ireval.plot.systems("AP", ci=0.95)
    assert tick_texts(ax.get_yticklabels()) == ["weak", "medium", "strong"]  # best on top
    table = pdireval.summary(df, "AP", ci=0.95)["AP"]
    assert len(ax.containers) == 3
    for y, (container, run) in enumerate(
        zip(ax.containers, ["weak", "medium", "strong"], strict=True)
    ):
        point, _, (bar,) = container
        assert point.get_xdata()[0] == pytest.approx(table.loc[run, "mean"])
        assert point.get_ydata()[0] == y
        segment = bar.get_segments()[0]
        assert segment[0][0] == pytest.approx(table.loc[run, "ci_low"])
        assert segment[1][0] == pytest.approx(table.loc[run, "ci_high"])
    assert ax.get_xlabel() == "Mean AP with 95% CI (t)"
    assert ax.get_ylim() == (-0.6, 2.6)


def test_systems_without_interval(df: pd.DataFrame) -> None:
    ax = df.ireval.plot.systems("nDCG@10", ci=None)
    assert tick_texts(ax.get_yticklabels()) == ["weak", "medium", "strong"]
    assert all(container[2] == () for container in ax.containers)  # no error bars
    assert ax.get_xlabel() == "Mean nDCG@10"


def test_systems_bootstrap_median(df: pd.DataFrame) -> None:
    ax = df.ireval.plot.systems("AP", agg="median", ci_method="bootstrap", seed=1)
    assert ax.get_xlabel() == "Median AP with 95% CI (bootstrap)"
    medians = pdireval.evaluate(df, "AP")["AP"].groupby(level="run").median()
    xs = [container[0].get_xdata()[0] for container in ax.containers]
    assert xs == pytest.approx(medians.sort_values().tolist())


def test_systems_single_run() -> None:
    frame = toy()
    one = frame[frame["run"] == "system1"].drop(columns="run")
    ax = one.ireval.plot.systems("AP", ci=0.9, ci_method="bootstrap", seed=0)
    assert tick_texts(ax.get_yticklabels()) == []  # one run: no name to show
    assert ax.get_title() == "Mean AP"
    assert ax.containers[0][0].get_xdata()[0] == pytest.approx(one.ireval.map())


def test_systems_without_scipy_names_both_fixes(
    df: pd.DataFrame, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setitem(sys.modules, "scipy", None)
    monkeypatch.setitem(sys.modules, "scipy.stats", None)
    with pytest.raises(pdireval.MissingDependencyError, match=r"pdireval\[stats\]") as info:
        df.ireval.plot.systems("AP", ci=0.95)
    assert "ci_method='bootstrap'" in str(info.value)
    ax = df.ireval.plot.systems("AP", ci=0.95, ci_method="bootstrap", seed=0)
    assert len(ax.containers) == 3  # the bootstrap needs no scipy


# -- the namespace ----------------------------------------------------------------------------


def test_callable_namespace_is_the_same_operation(df: pd.DataFrame) -> None:
    by_name = df.ireval.plot("at_k", "nDCG", ks=range(1, 6))
    by_method = df.ireval.plot.at_k("nDCG", ks=range(1, 6))
    for a, b in zip(by_name.get_lines(), by_method.get_lines(), strict=True):
        np.testing.assert_array_equal(a.get_ydata(), b.get_ydata())


def test_unknown_kind_lists_the_kinds(df: pd.DataFrame) -> None:
    with pytest.raises(pdireval.ParameterError, match=r"kind='bar'.*'pr_curve'"):
        df.ireval.plot("bar")


def test_column_mapping_reaches_the_plots(df: pd.DataFrame) -> None:
    renamed = df.rename(columns={"run": "tag", "query": "qid"})
    ax = renamed.ireval(run="tag", query="qid").plot.at_k("P", ks=[1, 5])
    assert legend_texts(ax) == RUNS
    ax = renamed.ireval(run="tag", query="qid").plot.per_query("AP", baseline="weak")
    assert the_legend(ax).get_title().get_text() == "Run − weak"
    assert legend_texts(ax) == ["strong", "medium"]


def test_options_reach_the_evaluation(df: pd.DataFrame) -> None:
    ax = df.ireval.plot.at_k("R", ks=[20], max_rank=5)
    capped = pdireval.summary(df, "R@5")
    assert ax.get_lines()[0].get_ydata()[0] == pytest.approx(capped.loc["strong", "R@5"])


def test_input_frame_untouched(df: pd.DataFrame) -> None:
    before = df.copy()
    df.ireval.plot.pr_curve(per_query=True)
    df.ireval.plot.distribution("AP")
    pd.testing.assert_frame_equal(df, before)


def test_plots_never_show(df: pd.DataFrame, monkeypatch: pytest.MonkeyPatch) -> None:
    shown = []
    monkeypatch.setattr(plt, "show", lambda *a, **k: shown.append(1))
    df.ireval.plot.pr_curve()
    df.ireval.plot.per_query("AP")
    df.ireval.plot.distribution("AP")
    df.ireval.plot.at_k("P", ks=[1, 2])
    df.ireval.plot.systems("AP", ci=None)
    assert shown == []


# -- optional dependency ----------------------------------------------------------------------


@pytest.mark.parametrize("kind", ["pr_curve", "per_query", "distribution", "at_k", "systems"])
def test_missing_matplotlib_gives_install_hint(
    df: pd.DataFrame, monkeypatch: pytest.MonkeyPatch, kind: str
) -> None:
    monkeypatch.setitem(sys.modules, "matplotlib", None)
    monkeypatch.setitem(sys.modules, "matplotlib.pyplot", None)
    args = () if kind == "pr_curve" else ("AP",)
    with pytest.raises(pdireval.MissingDependencyError, match=r"pip install 'pdireval\[plot\]'"):
        df.ireval.plot(kind, *args)
    with pytest.raises(ImportError):  # also an ImportError
        df.ireval.plot(kind, *args)


def test_plot_namespace_does_not_import_matplotlib() -> None:
    """Reaching df.ireval.plot (and pdireval.plotting) imports no matplotlib; drawing does."""
    root = str(Path(pdireval.__file__).resolve().parent.parent)
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [root, env.get("PYTHONPATH")]))
    probe = (
        "import sys, pdireval, pdireval.plotting\n"
        "from pdireval.datasets import example\n"
        "df = example()\n"
        "namespace = df.ireval.plot\n"
        "print('matplotlib' in sys.modules)\n"
        "import matplotlib; matplotlib.use('Agg')\n"
        "namespace.at_k('P', ks=[1])\n"
        "print('matplotlib.pyplot' in sys.modules)\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, env=env, check=False
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["False", "True"]


def test_figure_script_writes_small_pngs(tmp_path: Path) -> None:
    script = Path(__file__).resolve().parents[2] / "docs" / "make_figures.py"
    done = subprocess.run(
        [sys.executable, str(script), "--all", "--out", str(tmp_path)],
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    names = sorted(path.name for path in tmp_path.iterdir())
    many = ["per_query_many", "at_k_many", "pr_curve_panels"]
    assert names == sorted(f"{kind}.png" for kind in [*plotting.KINDS, *many])
    for path in tmp_path.iterdir():
        assert path.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
        assert path.stat().st_size < 150_000
