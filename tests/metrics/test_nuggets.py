"""Nugget scores of generated answers (nugget frames): nuggetizer's four scores as measures."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import pdireval
from pdireval import MetricError, ParameterError, SchemaError

SETTINGS = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
SCORES = ["strict_vital", "strict_all", "vital", "all"]


def reference(nuggets: list[dict], partial: float = 0.5, okay: float = 1.0) -> dict[str, float]:
    """nuggetizer's ``calculate_nugget_scores`` for one answer, written out plainly, with
    the partial credit and the okay weight as parameters (0.5 and 1 in nuggetizer).
    """
    vital = [n for n in nuggets if n["importance"] == "vital"]

    def credit(n: dict, part: float) -> float:
        return {"support": 1.0, "partial_support": part}.get(n["assignment"], 0.0)

    def weight(n: dict) -> float:
        return 1.0 if n["importance"] == "vital" else okay

    def share(items: list[dict], part: float, weighed: bool) -> float:
        total = sum(weight(n) if weighed else 1.0 for n in items)
        got = sum((weight(n) if weighed else 1.0) * credit(n, part) for n in items)
        return got / total if total else 0.0

    return {
        "strict_vital": share(vital, 0.0, False),
        "strict_all": share(nuggets, 0.0, True),
        "vital": share(vital, partial, False),
        "all": share(nuggets, partial, True),
    }


def reference_table(frame: pd.DataFrame, keys: list[str], **weights: float) -> pd.DataFrame:
    """Every answer (the ``keys`` columns) scored by :func:`reference`, keys sorted."""
    rows = {}
    for key, answer in frame.groupby(keys, sort=True):
        nuggets = answer[answer["nugget"].notna()].to_dict("records")
        rows[key if isinstance(key, tuple) else (key,)] = reference(nuggets, **weights)
    table = pd.DataFrame.from_dict(rows, orient="index")
    return table[SCORES]


@st.composite
def nugget_frames(draw: st.DrawFn) -> pd.DataFrame:
    """Runs x queries, each answer with 0..5 nuggets of any importance and assignment (an
    answer without nuggets as one row with the nugget missing), rows shuffled.
    """
    runs = draw(st.lists(st.sampled_from(["a", "b", "c"]), min_size=1, max_size=3, unique=True))
    queries = draw(st.lists(st.sampled_from(["q1", "q2", "q3", "q4"]), min_size=1, unique=True))
    rows = []
    for run in runs:
        for query in queries:
            n = draw(st.integers(0, 5))
            if n == 0:
                rows.append((run, query, None, None, None))
            for i in range(n):
                importance = draw(st.sampled_from(["vital", "okay"]))
                assignment = draw(st.sampled_from(["support", "partial_support", "not_support"]))
                rows.append((run, query, f"n{i}", importance, assignment))
    frame = pd.DataFrame(rows, columns=["run", "query", "nugget", "importance", "assignment"])
    order = draw(st.permutations(range(len(frame))))
    return frame.iloc[list(order)].reset_index(drop=True)


@SETTINGS
@given(frame=nugget_frames(), partial=st.sampled_from([0.5, 0.0, 0.25, 1.0]))
def test_scores_agree_with_nuggetizer_definitions(frame: pd.DataFrame, partial: float) -> None:
    ours = pdireval.nugget_scores(frame, partial=partial)
    expected = reference_table(frame, ["run", "query"], partial=partial)
    assert ours.columns.tolist() == SCORES
    assert ours.index.names == ["run", "query"]
    assert ours.index.tolist() == expected.index.tolist()
    np.testing.assert_allclose(ours.to_numpy(), expected.to_numpy(), rtol=0, atol=1e-12)


@SETTINGS
@given(frame=nugget_frames(), okay=st.sampled_from([0.0, 0.5, 2.0]))
def test_okay_weight_agrees_with_the_reference(frame: pd.DataFrame, okay: float) -> None:
    ours = pdireval.nugget_scores(frame, okay=okay)
    expected = reference_table(frame, ["run", "query"], okay=okay)
    np.testing.assert_allclose(ours.to_numpy(), expected.to_numpy(), rtol=0, atol=1e-12)


def _answers() -> pd.DataFrame:
    """Two runs, three queries: q2 of run x has no vital nugget, q3 of run y no nugget."""
    rows = [
        ("x", "q1", "n1", "vital", "support"),
        ("x", "q1", "n2", "vital", "partial_support"),
        ("x", "q1", "n3", "okay", "not_support"),
        ("x", "q2", "n1", "okay", "support"),
        ("x", "q3", "n1", "vital", "not_support"),
        ("y", "q1", "n1", "vital", "not_support"),
        ("y", "q1", "n2", "vital", "support"),
        ("y", "q1", "n3", "okay", "support"),
        ("y", "q2", "n1", "okay", "partial_support"),
        ("y", "q3", None, None, None),
    ]
    return pd.DataFrame(rows, columns=["run", "query", "nugget", "importance", "assignment"])


def test_degenerate_answers_score_zero_as_in_nuggetizer() -> None:
    table = pdireval.nugget_scores(_answers())
    # q2 of x: no vital nugget -> the vital scores are 0; one okay nugget supported -> all 1.
    assert table.loc[("x", "q2")].tolist() == [0.0, 1.0, 0.0, 1.0]
    # q3 of y: no nuggets at all -> 0 everywhere, and the answer is kept.
    assert table.loc[("y", "q3")].tolist() == [0.0, 0.0, 0.0, 0.0]
    # q1 of x by hand: vital 1 support + 1 partial of 2; all: 1 support + 1 partial of 3.
    assert table.loc[("x", "q1")].tolist() == pytest.approx([1 / 2, 1 / 3, 1.5 / 2, 1.5 / 3])


def test_the_measures_are_evaluated_by_name_and_alias() -> None:
    frame = _answers()
    by_name = pdireval.evaluate(frame, ["strict_vital", "vital", "all_score"])
    assert by_name.columns.tolist() == ["strict_vital", "vital", "all"]
    scores = pdireval.nugget_scores(frame)
    pd.testing.assert_frame_equal(by_name, scores[["strict_vital", "vital", "all"]])
    quarter = pdireval.evaluate(frame, "vital(partial=0.25)")
    assert quarter.loc[("x", "q1"), "vital(partial=0.25)"] == pytest.approx(1.25 / 2)


def test_summary_is_the_mean_over_answers_as_nuggetizer_averages() -> None:
    frame = _answers()
    means = pdireval.summary(frame, SCORES)
    expected = reference_table(frame, ["run", "query"]).groupby(level=0).mean()
    np.testing.assert_allclose(means.to_numpy(), expected.to_numpy(), rtol=0, atol=1e-12)
    assert means.index.tolist() == ["x", "y"]


def test_a_judge_column_gives_one_result_per_judge() -> None:
    frame = _answers()
    human = frame.assign(judge="human")
    llm = frame.assign(
        judge="llm", assignment=frame["assignment"].where(frame["nugget"].isna(), "support")
    )
    both = pd.concat([llm, human], ignore_index=True)
    table = pdireval.nugget_scores(both)
    assert table.index.names == ["run", "judge", "query"]
    expected = reference_table(both, ["run", "judge", "query"])
    assert table.index.tolist() == expected.index.tolist()
    np.testing.assert_allclose(table.to_numpy(), expected.to_numpy(), rtol=0, atol=1e-12)
    # every nugget supported by the llm judge: 1 wherever there is a nugget to count
    assert table.loc[("x", "llm", "q1")].tolist() == [1.0, 1.0, 1.0, 1.0]


def test_compare_and_report_take_nugget_scores() -> None:
    pytest.importorskip("scipy")
    frame = _answers()
    result = pdireval.compare(frame, ["vital", "all"], baseline="x")
    scores = reference_table(frame, ["run", "query"])
    assert result["metric"].tolist() == ["vital", "all"]
    for metric in ("vital", "all"):
        row = result[result["metric"] == metric].iloc[0]
        delta = scores.loc["y", metric].to_numpy() - scores.loc["x", metric].to_numpy()
        assert row["run"] == "y"
        assert row["delta"] == pytest.approx(delta.mean())
        assert row["wins"] == (delta > 0).sum()
        assert row["losses"] == (delta < 0).sum()
    report = pdireval.report(frame, ["strict_vital", "vital"], baseline="x")
    assert report.summary.index.tolist() == ["x", "y"]
    summary = report.summary
    assert float(summary.loc["y", "vital"]) == pytest.approx(scores.loc["y", "vital"].mean())
    assert "vital" in report.to_markdown()


def test_the_accessor_maps_nugget_roles() -> None:
    frame = _answers().rename(columns={"nugget": "text", "query": "qid", "assignment": "grade"})
    via = frame.ireval(nugget="text", assignment="grade").evaluate(["strict_all", "all"])
    direct = pdireval.nugget_scores(_answers())[["strict_all", "all"]]
    np.testing.assert_array_equal(via.to_numpy(), direct.to_numpy())
    assert via.index.names == ["run", "qid"]


def test_unknown_labels_are_refused_with_the_rows() -> None:
    frame = _answers()
    frame.loc[4, "importance"] = "Vital"
    with pytest.raises(
        SchemaError,
        match=r"importance column 'importance' holds 'Vital'.*"
        r"row 4 \(run 'x', query 'q3', nugget 'n1'\)",
    ):
        pdireval.nugget_scores(frame)
    frame = _answers()
    frame.loc[[1, 6], "assignment"] = "supported"
    with pytest.raises(
        SchemaError, match=r"'supported'.*rows 1 \(.*\), 6 \(run 'y', query 'q1', nugget 'n2'\)"
    ):
        pdireval.evaluate(frame, "vital")


def test_nuggetizers_failed_label_is_refused_with_the_way_out() -> None:
    frame = _answers()
    frame.loc[0, "assignment"] = "failed"
    with pytest.raises(SchemaError, match=r"nuggetizer writes 'failed'.*replace\('failed'"):
        pdireval.nugget_scores(frame)


def test_a_nugget_assigned_twice_for_one_answer_is_refused() -> None:
    frame = pd.concat([_answers(), _answers().iloc[[2]]], ignore_index=True)
    with pytest.raises(
        SchemaError,
        match=r"more than once for one answer \(run, query, nugget\).*"
        r"rows 2 .*, 10 \(run 'x', query 'q1', nugget 'n3'\)",
    ):
        pdireval.nugget_scores(frame)
    # the same nugget once per judge is one assignment per answer and judge
    judged = pd.concat([_answers().assign(judge="a"), _answers().assign(judge="b")])
    assert len(pdireval.nugget_scores(judged)) == 12


def test_a_row_without_nugget_takes_no_labels() -> None:
    frame = _answers()
    frame.loc[9, "assignment"] = "support"
    with pytest.raises(SchemaError, match=r"take no assignment.*row 9"):
        pdireval.nugget_scores(frame)


def test_missing_columns_and_wrong_calls_are_refused() -> None:
    with pytest.raises(SchemaError, match=r"column 'importance'.*not found"):
        pdireval.nugget_scores(_answers().drop(columns="importance"))
    with pytest.raises(MetricError, match=r"evaluate them in separate calls"):
        pdireval.evaluate(_answers(), ["vital", "AP"])
    run = pd.DataFrame({"query": ["q1"], "doc": ["d"], "rank": [1], "rel": [1]})
    with pytest.raises(SchemaError, match=r"column 'nugget'"):
        pdireval.evaluate(run, "vital")
    with pytest.raises(ParameterError, match=r"drop qrels="):
        pdireval.evaluate(_answers(), "vital", qrels=run)
    with pytest.raises(ParameterError, match=r"max_rank= and ignore_self="):
        pdireval.evaluate(_answers(), "vital", max_rank=2)
    with pytest.raises(MetricError, match=r"partial= must be between 0 and 1"):
        pdireval.nugget_scores(_answers(), partial=2)


def test_the_input_frame_is_not_modified() -> None:
    frame = _answers()
    before = frame.copy()
    pdireval.nugget_scores(frame)
    pd.testing.assert_frame_equal(frame, before)


def test_retrieved_queries_leave_out_answers_without_nuggets() -> None:
    every = pdireval.nugget_scores(_answers())
    retrieved = pdireval.nugget_scores(_answers(), queries="retrieved")
    assert ("y", "q3") in every.index
    assert retrieved.index.tolist() == [key for key in every.index if key != ("y", "q3")]
    pd.testing.assert_frame_equal(retrieved, every.drop(index=[("y", "q3")]))


def test_run_order_and_categorical_runs_are_kept() -> None:
    frame = _answers()
    frame["run"] = pd.Categorical(frame["run"], categories=["y", "x"])
    means = pdireval.summary(frame, ["vital"])
    assert means.index.tolist() == ["y", "x"]


def test_every_evaluation_reads_nugget_frames_from_their_nugget_columns() -> None:
    """The engine itself turns a nugget frame into the frame it evaluates, so analyses,
    figures and partitions that call it take nugget frames; ranking columns a nugget frame
    also has (doc, rank, rel) are never read as nuggets, and a frame without nugget
    columns is refused, never scored."""
    from pdireval._core.options import Evaluation
    from pdireval.engine.evaluate import per_query
    from pdireval.metrics import parse_metrics

    answers = _answers()
    expected = pdireval.nugget_scores(answers)["vital"]
    for label in (7, 2):  # 2 would decode as a nugget's code: the columns decide
        frame = answers.assign(doc=lambda f: f["nugget"].fillna("none"), rank=1, rel=label)
        found = per_query(frame, parse_metrics("vital"), None, Evaluation())["vital"]
        pd.testing.assert_series_equal(found, expected, check_names=False)
    risk = pdireval.risk(answers, "vital", baseline="x")
    assert risk["run"].tolist() == ["y"]
    assert risk["metric"].tolist() == ["vital"]
    ranking = answers.dropna().rename(columns={"nugget": "doc"}).drop(columns="importance")
    ranking = ranking.assign(rank=1, rel=2).drop(columns="assignment")
    with pytest.raises(SchemaError, match=r"column 'nugget' not found"):
        per_query(ranking, parse_metrics("vital"), None, Evaluation())
    with pytest.raises(SchemaError, match=r"column 'nugget' not found"):
        pdireval.risk(ranking, "vital", baseline="x")


# --- agreement between judges on assignments ---------------------------------------------


def _two_judges(seed: int) -> pd.DataFrame:
    """The answers of _answers under two judges, the second changing some assignments."""
    rng = np.random.default_rng(seed)
    first = _answers().dropna()
    second = first.copy()
    change = rng.random(len(second)) < 0.4
    second.loc[change, "assignment"] = rng.choice(
        ["support", "partial_support", "not_support"], change.sum()
    )
    return pd.concat([first.assign(judge="llm"), second.assign(judge="human")])


@pytest.mark.parametrize("seed", range(5))
def test_nugget_agreement_is_agreement_on_each_answers_nuggets(seed: int) -> None:
    """The same kappas as pdireval.agreement on items (query, (run, nugget)) labelled
    0 < 1 < 2 for not_support < partial_support < support, written out by hand."""
    both = _two_judges(seed)
    codes = {"not_support": 0, "partial_support": 1, "support": 2}
    by_hand = pd.DataFrame(
        {
            "query": both["query"].to_numpy(),
            "doc": [
                f"{run}|{nugget}" for run, nugget in zip(both["run"], both["nugget"], strict=True)
            ],
            "rel": both["assignment"].map(codes).to_numpy(),
            "judge": both["judge"].to_numpy(),
        }
    )
    expected = pdireval.agreement(by_hand).rename(columns={"documents": "nuggets"})
    found = pdireval.nugget_agreement(both)
    pd.testing.assert_frame_equal(found, expected)
    # the same nugget of two runs' answers is two items, not one
    assert found["nuggets"].iloc[0] == len(both) // 2


def test_nugget_agreement_refuses_what_it_cannot_compare() -> None:
    with pytest.raises(SchemaError, match=r"'judge'"):
        pdireval.nugget_agreement(_answers())
    twice = _two_judges(0)
    twice = pd.concat([twice, twice.iloc[:1]])
    with pytest.raises(SchemaError, match=r"assigned more than once"):
        pdireval.nugget_agreement(twice)
    wrong = _two_judges(0)
    wrong.iloc[2, wrong.columns.get_loc("assignment")] = "supports"
    with pytest.raises(SchemaError, match=r"'supports'"):
        pdireval.nugget_agreement(wrong)
    with pytest.raises(SchemaError, match=r"two judges"):
        pdireval.nugget_agreement(_answers().dropna().assign(judge="llm"))


def test_labels_that_are_not_text_are_refused_by_name() -> None:
    """Numbers where labels belong (a frame coded 0/1/2 already) are not read as labels."""
    coded = _answers().dropna()
    coded["assignment"] = coded["assignment"].map(
        {"not_support": 0, "partial_support": 1, "support": 2}
    )
    with pytest.raises(SchemaError, match=r"assignment column 'assignment' holds"):
        pdireval.nugget_scores(coded)


def test_a_run_missing_an_answer_is_refused_by_name() -> None:
    answers = _answers()
    short = answers[~((answers["run"] == "y") & (answers["query"] == "q2"))]
    with pytest.raises(SchemaError, match=r"\['y'\] have no answer for query 'q2'"):
        pdireval.nugget_scores(short)
    # within one judge: a judge who assessed fewer queries, for every run, is fine
    human = answers[answers["query"] == "q1"].assign(judge="human")
    both = pd.concat([answers.assign(judge="llm"), human])
    table = pdireval.nugget_scores(both)
    assert len(table.xs("human", level="judge")) == 2
    more_of_x = answers[(answers["run"] == "x") & (answers["query"] == "q2")]
    uneven = pd.concat([both, more_of_x.assign(judge="human")])
    with pytest.raises(SchemaError, match=r"\['y'\] have no answer for judge 'human', query 'q2'"):
        pdireval.nugget_scores(uneven)
