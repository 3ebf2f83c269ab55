"""Conclusions under several judges: each judge's numbers are those of the run evaluated
with that judge's labels alone, and a change of conclusion is reported exactly where the
comparisons differ."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import pdireval
from pdireval.datasets import example_qrels, example_run

pytest.importorskip("scipy")
METRICS = ["AP", "P@10"]


@pytest.fixture(scope="module")
def run() -> pd.DataFrame:
    return example_run()


@pytest.fixture(scope="module")
def human() -> pd.DataFrame:
    return example_qrels()


def _favouring_weak(run: pd.DataFrame, human: pd.DataFrame) -> pd.DataFrame:
    """A judge who finds relevant exactly what the weak run retrieved at its top five."""
    top = run[run["run"] == "weak"].groupby("query", sort=False).head(5)
    liked = pd.MultiIndex.from_frame(top[["query", "doc"]])
    judged = pd.MultiIndex.from_frame(human[["query", "doc"]])
    return human.assign(rel=judged.isin(liked).astype("int64"))


def test_each_judge_scores_as_if_alone(run, human) -> None:
    other = _favouring_weak(run, human)
    found = pdireval.judge_conclusions(run, {"human": human, "other": other}, METRICS)
    for judge, labels in {"human": human, "other": other}.items():
        alone = pdireval.summary(run, METRICS, qrels=labels)
        pd.testing.assert_frame_equal(
            found.scores[judge].rename_axis(columns="metric"),
            alone.loc[found.scores.index],
            check_names=False,
            check_index_type=False,  # pandas 2: object run names against summary's strings
        )


def test_the_same_judgments_change_nothing(run, human) -> None:
    found = pdireval.judge_conclusions(run, {"a": human, "b": human.copy()}, METRICS)
    assert found.agreement["kendall"].tolist() == [1.0, 1.0]
    assert found.agreement["changed"].tolist() == [0, 0]
    assert found.flips.empty


def test_a_judge_who_reverses_the_order_is_reported(run, human) -> None:
    other = _favouring_weak(run, human)
    found = pdireval.judge_conclusions(run, {"human": human, "other": other}, METRICS)
    assert (found.agreement["kendall"] < 1).all()
    flips = found.flips
    assert len(flips) > 0
    assert (flips["judge"] == "other").all()
    assert (flips["conclusion"] != flips["reference_conclusion"]).all()
    # each changed conclusion agrees with that judge's own comparison
    mine = pdireval.compare(run, METRICS, baseline=None, qrels=other).set_index(
        ["run", "baseline", "metric"]
    )
    for row in flips.itertuples():
        compared = mine.loc[(row.run, row.baseline, row.metric)]
        assert compared["delta"] == pytest.approx(row.delta)
        assert bool(compared["significant"]) == (row.conclusion != "not significant")
    counted = found.agreement.set_index("metric")["changed"]
    assert counted.sum() == len(flips)


def test_reference_is_chosen_and_checked(run, human) -> None:
    other = _favouring_weak(run, human)
    found = pdireval.judge_conclusions(
        run, {"human": human, "other": other}, "AP", reference="other"
    )
    assert found.reference == "other"
    assert found.agreement["judge"].tolist() == ["human"]
    with pytest.raises(pdireval.SchemaError, match="not one of the judges"):
        pdireval.judge_conclusions(run, {"human": human, "other": other}, "AP", reference="x")


def test_one_judge_or_one_run_is_refused(run, human) -> None:
    with pytest.raises(pdireval.SchemaError, match="two or more sets of judgments"):
        pdireval.judge_conclusions(run, {"human": human}, "AP")
    with pytest.raises((pdireval.SchemaError, ValueError)):
        pdireval.judge_conclusions(run[run["run"] == "weak"], {"a": human, "b": human.copy()}, "AP")


def test_scatter_draws_each_run_at_its_two_scores(run, human) -> None:
    matplotlib = pytest.importorskip("matplotlib")
    matplotlib.use("Agg")
    from pdireval.plotting.science import judges_scatter

    other = _favouring_weak(run, human)
    found = pdireval.judge_conclusions(run, {"human": human, "llm $x$": other}, "AP")
    ax = judges_scatter(found, "AP")
    points = np.vstack([np.asarray(c.get_offsets()) for c in ax.collections])
    expected = found.scores[[("human", "AP"), ("llm $x$", "AP")]].to_numpy()
    assert sorted(map(tuple, points.tolist())) == sorted(map(tuple, expected.tolist()))
    assert ax.get_ylabel() == r"AP under llm \$x\$"  # a user's name, never mathtext
    assert sorted(text.get_text() for text in ax.texts) == sorted(found.scores.index)
    with pytest.raises(pdireval.SchemaError, match="not one of the judges"):
        judges_scatter(found, "AP", judge="human")
    with pytest.raises(pdireval.MetricError, match="was not evaluated"):
        judges_scatter(found, "P@10")
    matplotlib.pyplot.close("all")


def test_a_qrels_frame_with_a_judge_column_equals_the_mapping() -> None:
    human = example_qrels()
    strict = human.assign(rel=(human["rel"] >= 2).astype("int64"))
    by_mapping = pdireval.judge_conclusions(example_run(), {"human": human, "strict": strict}, "AP")
    stacked = pd.concat([strict.assign(who="strict"), human.assign(who="human")])
    stacked["who"] = stacked["who"].astype(pd.CategoricalDtype(["human", "strict"]))
    by_frame = pdireval.judge_conclusions(
        example_run(), stacked, "AP", qrels_columns={"judge": "who"}
    )
    pd.testing.assert_frame_equal(by_frame.scores, by_mapping.scores)
    pd.testing.assert_frame_equal(by_frame.pairs, by_mapping.pairs)
    with pytest.raises(pdireval.SchemaError, match=r"qrels has no judge column"):
        pdireval.judge_conclusions(example_run(), human, "AP")
    with pytest.raises(pdireval.SchemaError, match=r"two or more sets of judgments"):
        pdireval.judge_conclusions(example_run(), human.assign(judge="one"), "AP")
