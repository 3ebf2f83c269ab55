"""Citation support of generated answers (citation frames): support precision and recall,
strict and weighted, as the TREC 2024 RAG track's support evaluation defines them."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import pdireval
from pdireval import MetricError, ParameterError, SchemaError
from pdireval.engine.support import citation_support

SETTINGS = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
COLUMNS = ["support_precision", "support_recall", "weighted_precision", "weighted_recall"]
MEASURES = [
    "support_precision",
    "support_recall",
    "weighted_support_precision",
    "weighted_support_recall",
]
WEIGHT = {"full_support": 1.0, "partial_support": None, "no_support": 0.0}


def reference(frame: pd.DataFrame, partial: float = 0.5) -> pd.DataFrame:
    """The four scores per (run, query) by a plain pandas groupby, from the definitions:
    precision over the (sentence, doc) pairs, recall over the sentences with the best
    grade of each (a sentence without citations: unsupported); 0 where there is nothing
    to count.
    """
    weight = frame["support"].map({"full_support": 1.0, "partial_support": partial}).fillna(0.0)
    full = (frame["support"] == "full_support").astype(float)
    rows = frame.assign(weight=weight, full=full, cited=frame["doc"].notna())
    out = {}
    for (run, query), answer in rows.groupby(["run", "query"], sort=False):
        pairs = answer[answer["cited"]]
        said = answer[answer["sentence"].notna()]
        best = said.groupby("sentence")[["weight", "full"]].max()
        out[(run, query)] = {
            "support_precision": pairs["full"].mean() if len(pairs) else 0.0,
            "support_recall": best["full"].mean() if len(best) else 0.0,
            "weighted_precision": pairs["weight"].mean() if len(pairs) else 0.0,
            "weighted_recall": best["weight"].mean() if len(best) else 0.0,
        }
    table = pd.DataFrame.from_dict(out, orient="index")
    table.index = pd.MultiIndex.from_tuples(table.index, names=["run", "query"])
    return table.sort_index()[COLUMNS]


@st.composite
def citation_frames(draw) -> pd.DataFrame:
    """Answers of 1-3 runs to 1-3 queries: 0-4 sentences each, 0-3 cited docs per
    sentence, any grades; every run answers every query.
    """
    runs = [f"bm25+monoT5-3B (rerank top-100, run {i})" for i in range(draw(st.integers(1, 3)))]
    queries = [f"q{i}" for i in range(draw(st.integers(1, 3)))]
    grades = st.sampled_from(list(WEIGHT))
    cited = st.lists(st.sampled_from(["d1", "d2", "d3", "d4"]), max_size=3, unique=True)
    rows = []
    for run in runs:
        for query in queries:
            n_sentences = draw(st.integers(0, 4))
            if not n_sentences:
                rows.append((run, query, None, None, None))
            for sentence in range(n_sentences):
                docs = draw(cited)
                if not docs:
                    rows.append((run, query, sentence, None, None))
                rows.extend((run, query, sentence, doc, draw(grades)) for doc in docs)
    frame = pd.DataFrame(rows, columns=["run", "query", "sentence", "doc", "support"])
    frame["sentence"] = frame["sentence"].astype("Int64")
    return frame


@SETTINGS
@given(frame=citation_frames(), partial=st.sampled_from([0.0, 0.25, 0.5, 1.0]))
def test_scores_match_the_reference(frame: pd.DataFrame, partial: float) -> None:
    got = citation_support(frame, partial=partial).sort_index()
    want = reference(frame, partial)
    np.testing.assert_allclose(got.to_numpy(), want.to_numpy(), rtol=0, atol=1e-12)
    assert list(got.index) == list(want.index)


@SETTINGS
@given(frame=citation_frames())
def test_the_measures_are_the_scores(frame: pd.DataFrame) -> None:
    evaluated = pdireval.evaluate(frame, MEASURES).sort_index()
    scores = citation_support(frame).sort_index()
    np.testing.assert_array_equal(evaluated.to_numpy(), scores.to_numpy())


def answer(*sentences: list[tuple[str, str]], run: str = "rag-a", query: str = "q1") -> list:
    """The rows of one answer: per sentence a list of (doc, grade)."""
    rows = []
    for position, cited in enumerate(sentences):
        if not cited:
            rows.append((run, query, position, None, None))
        rows.extend((run, query, position, doc, grade) for doc, grade in cited)
    return rows or [(run, query, None, None, None)]


def scores(rows: list) -> dict[str, float]:
    frame = pd.DataFrame(rows, columns=["run", "query", "sentence", "doc", "support"])
    return citation_support(frame).iloc[0].to_dict()


def test_an_answer_without_sentences_scores_zero() -> None:
    assert scores(answer()) == dict.fromkeys(COLUMNS, 0.0)


def test_an_answer_without_citations_scores_zero() -> None:
    assert scores(answer([], [])) == dict.fromkeys(COLUMNS, 0.0)


def test_a_sentence_without_citations_counts_against_recall_only() -> None:
    got = scores(answer([("d1", "full_support")], []))
    assert got == {
        "support_precision": 1.0,
        "support_recall": 0.5,
        "weighted_precision": 1.0,
        "weighted_recall": 0.5,
    }


def test_all_unsupported_scores_zero() -> None:
    got = scores(answer([("d1", "no_support"), ("d2", "no_support")], [("d1", "no_support")]))
    assert got == dict.fromkeys(COLUMNS, 0.0)


def test_partial_support_only_counts_in_the_weighted_scores() -> None:
    got = scores(answer([("d1", "partial_support")], [("d2", "partial_support")]))
    assert got == {
        "support_precision": 0.0,
        "support_recall": 0.0,
        "weighted_precision": 0.5,
        "weighted_recall": 0.5,
    }


def test_recall_takes_the_best_citation_of_a_sentence_and_precision_every_one() -> None:
    got = scores(answer([("d1", "no_support"), ("d2", "partial_support"), ("d3", "full_support")]))
    assert got["support_recall"] == got["weighted_recall"] == 1.0
    assert got["support_precision"] == pytest.approx(1 / 3)
    assert got["weighted_precision"] == pytest.approx(1.5 / 3)


def test_partial_credit_is_a_parameter() -> None:
    frame = pd.DataFrame(
        answer([("d1", "partial_support")]), columns=["run", "query", "sentence", "doc", "support"]
    )
    got = citation_support(frame, partial=0.25).iloc[0]
    assert got["weighted_precision"] == got["weighted_recall"] == 0.25
    with pytest.raises(MetricError, match="partial"):
        citation_support(frame, partial=1.5)


@pytest.mark.parametrize(
    ("spelling", "weight"),
    [
        ("Full Support", 1.0),
        ("FS", 1.0),
        ("fs", 1.0),
        ("Partial Support", 0.5),
        ("PS", 0.5),
        ("partial-support", 0.5),
        ("No Support", 0.0),
        ("NS", 0.0),
    ],
)
def test_the_track_spellings_of_the_grades_are_read(spelling: str, weight: float) -> None:
    assert scores(answer([("d1", spelling)]))["weighted_precision"] == weight


def test_unknown_grades_are_refused_with_the_rows_named() -> None:
    frame = pd.DataFrame(
        answer([("d1", "full_support"), ("d2", "supported")]),
        columns=["run", "query", "sentence", "doc", "support"],
    )
    with pytest.raises(SchemaError, match=r"'supported'.*row 1 \(run 'rag-a', query 'q1'"):
        citation_support(frame)


def test_a_cited_doc_without_a_grade_is_refused() -> None:
    frame = pd.DataFrame(
        answer([("d1", None)]), columns=["run", "query", "sentence", "doc", "support"]
    )
    with pytest.raises(SchemaError, match="every cited doc needs a grade"):
        citation_support(frame)


def test_a_grade_without_a_cited_doc_is_refused() -> None:
    frame = pd.DataFrame(
        [("rag-a", "q1", 0, None, "full_support")],
        columns=["run", "query", "sentence", "doc", "support"],
    )
    with pytest.raises(SchemaError, match="take no support grade"):
        citation_support(frame)


def test_a_pair_graded_twice_for_one_answer_is_refused() -> None:
    frame = pd.DataFrame(
        answer([("d1", "full_support"), ("d1", "no_support")]),
        columns=["run", "query", "sentence", "doc", "support"],
    )
    with pytest.raises(SchemaError, match=r"more than once.*rows 0 .* 1 "):
        citation_support(frame)


def test_the_same_doc_in_two_runs_or_sentences_is_no_repeat() -> None:
    rows = answer([("d1", "full_support")], [("d1", "no_support")]) + answer(
        [("d1", "no_support")], run="rag-b"
    )
    frame = pd.DataFrame(rows, columns=["run", "query", "sentence", "doc", "support"])
    got = citation_support(frame)
    assert got.loc[("rag-a", "q1"), "support_precision"] == 0.5
    assert got.loc[("rag-b", "q1"), "support_precision"] == 0.0


@pytest.mark.parametrize("missing", ["sentence", "support", "doc", "query"])
def test_missing_columns_are_refused(missing: str) -> None:
    frame = pd.DataFrame(
        answer([("d1", "full_support")]), columns=["run", "query", "sentence", "doc", "support"]
    ).drop(columns=missing)
    with pytest.raises(SchemaError, match=f"'{missing}'"):
        citation_support(frame)


def test_a_run_missing_an_answer_is_refused() -> None:
    rows = (
        answer([("d1", "full_support")])
        + answer([("d1", "full_support")], query="q2")
        + answer([("d1", "no_support")], run="rag-b")
    )
    frame = pd.DataFrame(rows, columns=["run", "query", "sentence", "doc", "support"])
    with pytest.raises(SchemaError, match=r"\['rag-b'\] have no answer for query 'q2'"):
        citation_support(frame)


def test_options_that_cut_a_ranking_are_refused() -> None:
    frame = pd.DataFrame(
        answer([("d1", "full_support")]), columns=["run", "query", "sentence", "doc", "support"]
    )
    with pytest.raises(ParameterError, match="max_rank"):
        citation_support(frame, max_rank=3)


def test_citation_and_ranking_measures_are_refused_together() -> None:
    frame = pd.DataFrame(
        answer([("d1", "full_support")]), columns=["run", "query", "sentence", "doc", "support"]
    )
    with pytest.raises(MetricError, match="separate calls"):
        pdireval.evaluate(frame, ["support_precision", "AP"])


def test_other_column_names_through_columns() -> None:
    frame = pd.DataFrame(
        answer([("d1", "full_support")], [("d2", "no_support")]),
        columns=["system", "qid", "position", "docid", "grade"],
    )
    got = citation_support(
        frame, columns={"sentence": "position", "doc": "docid", "support": "grade"}
    )
    assert got.index.names == ["system", "qid"]
    assert got.iloc[0]["support_recall"] == 0.5


def two_judges() -> pd.DataFrame:
    rows = []
    for judge, grade in (("gpt-4o", "full_support"), ("human", "no_support")):
        for run, other in (("rag-a", "partial_support"), ("rag-b", "no_support")):
            for query in ("q1", "q2", "q3"):
                rows += [
                    (judge, *row)
                    for row in answer([("d1", grade), ("d2", other)], [], run=run, query=query)
                ]
    return pd.DataFrame(rows, columns=["judge", "run", "query", "sentence", "doc", "support"])


def test_compare_and_summary_take_a_citation_frame_with_one_result_per_judge() -> None:
    frame = two_judges()
    summary = pdireval.summary(frame, ["weighted_support_precision", "support_recall"])
    assert summary.index.names == ["run", "judge"]
    # gpt-4o: rag-a (1 + 0.5) / 2, rag-b (1 + 0) / 2; human: (0 + 0.5) / 2, 0
    assert summary.loc[("rag-a", "gpt-4o"), "weighted_support_precision"] == 0.75
    assert summary.loc[("rag-b", "gpt-4o"), "weighted_support_precision"] == 0.5
    assert summary.loc[("rag-a", "human"), "weighted_support_precision"] == 0.25
    assert summary.loc[("rag-b", "human"), "weighted_support_precision"] == 0.0
    assert summary.loc[("rag-a", "human"), "support_recall"] == 0.0
    assert summary.loc[("rag-a", "gpt-4o"), "support_recall"] == 0.5
    compared = pdireval.compare(frame, ["weighted_support_precision"], baseline="rag-a")
    assert sorted(compared["judge"]) == ["gpt-4o", "human"]
    assert list(compared["run"]) == ["rag-b", "rag-b"]
    delta = compared.set_index("judge")["delta"]
    assert delta["gpt-4o"] == pytest.approx(-0.25)
    assert delta["human"] == pytest.approx(-0.25)


def test_citation_support_has_one_row_per_run_judge_and_query() -> None:
    got = citation_support(two_judges())
    assert got.index.names == ["run", "judge", "query"]
    assert len(got) == 2 * 2 * 3


def test_a_frame_not_given_as_a_citation_frame_is_refused_by_the_kernels() -> None:
    from pdireval._core.options import Evaluation
    from pdireval._core.roles import resolve
    from pdireval.engine.evaluate import _per_query
    from pdireval.metrics import parse_metrics

    run = pd.DataFrame({"query": ["q1"], "doc": ["d1"], "rank": [1], "rel": [1]})
    with pytest.raises(SchemaError, match="citation support measure"):
        _per_query(run, parse_metrics(["support_precision"]), resolve(run, None), Evaluation())


def test_agreement_and_alpha_on_support_grades_match_the_krippendorff_package() -> None:
    krippendorff = pytest.importorskip("krippendorff")
    from pdireval.judgments.nuggets import support_agreement, support_alpha

    frame = two_judges()
    llm = frame[frame["judge"] == "gpt-4o"]
    third = llm.copy()
    cited_rows = third["doc"].notna().to_numpy()
    third.loc[cited_rows, "support"] = third.loc[cited_rows, "support"].iloc[::-1].to_numpy()
    frame = pd.concat([frame, third.assign(judge="third")], ignore_index=True)
    order = {"no_support": 0, "partial_support": 1, "full_support": 2}
    cited = frame[frame["doc"].notna()]
    matrix = (
        cited.assign(code=cited["support"].map(order))
        .pivot_table(index=["run", "query", "sentence", "doc"], columns="judge", values="code")
        .T.to_numpy(dtype=float)
    )
    for level in ("ordinal", "nominal", "interval"):
        want = krippendorff.alpha(reliability_data=matrix, level_of_measurement=level)
        assert support_alpha(frame, level=level) == pytest.approx(want, abs=1e-12)
    pairs = support_agreement(frame)
    assert list(pairs["citations"]) == [len(cited) // 3] * 3


def test_alpha_on_nugget_assignments_matches_the_krippendorff_package() -> None:
    krippendorff = pytest.importorskip("krippendorff")
    from pdireval.judgments.nuggets import nugget_alpha

    rng = np.random.default_rng(3)
    labels = ["not_support", "partial_support", "support"]
    base = pd.DataFrame(
        {
            "run": "rag-a",
            "query": "q1",
            "nugget": [f"n{i}" for i in range(12)],
            "importance": "vital",
        }
    )
    codes = rng.integers(0, 3, size=(3, 12))
    codes[1, :6] = codes[0, :6]  # agreement well above chance on half the nuggets
    judges = [
        base.assign(judge=name, assignment=[labels[c] for c in row])
        for name, row in zip(["a", "b", "c"], codes, strict=True)
    ]
    judges[2] = judges[2].iloc[:8]  # judge c assessed two thirds of the nuggets
    frame = pd.concat(judges, ignore_index=True)
    matrix = codes.astype(float)
    matrix[2, 8:] = np.nan
    for level in ("ordinal", "nominal", "interval"):
        want = krippendorff.alpha(reliability_data=matrix, level_of_measurement=level)
        assert nugget_alpha(frame, level=level) == pytest.approx(want, abs=1e-12)


def test_report_per_query_and_collections_take_a_citation_frame() -> None:
    pytest.importorskip("scipy")
    frame = two_judges()
    human = frame[frame["judge"] == "human"].drop(columns="judge")
    report = pdireval.report(human, ["weighted_support_precision"], baseline="rag-a")
    text = report.to_markdown()
    assert "weighted\\_support\\_precision" in text  # Markdown escapes the underscores
    assert "rag-b" in text
    wide = pdireval.per_query(human, "weighted_support_precision", baseline="rag-a")
    assert list(wide.index) == ["q1", "q2", "q3"]
    # two collections: one result per collection, each as if alone
    other = human.assign(support=human["support"].replace("no_support", "full_support"))
    both = pd.concat([human.assign(collection="c1"), other.assign(collection="c2")])
    summary = pdireval.summary(both, ["weighted_support_precision"])
    for name, part in (("c1", human), ("c2", other)):
        alone = pdireval.summary(part, ["weighted_support_precision"])
        got = summary.xs(name, level="collection")["weighted_support_precision"]
        np.testing.assert_array_equal(
            got.loc[alone.index].to_numpy(), alone["weighted_support_precision"].to_numpy()
        )


def test_seeds_of_a_citation_frame_are_averaged_per_answer() -> None:
    frame = two_judges()
    human = frame[frame["judge"] == "human"].drop(columns="judge")
    other = human.assign(support=human["support"].replace("no_support", "full_support"))
    seeded = pd.concat([human.assign(seed=1), other.assign(seed=2)])
    by_seed = pdireval.seed_summary(seeded, ["support_precision"])
    one = pdireval.summary(human, ["support_precision"])["support_precision"]
    two = pdireval.summary(other, ["support_precision"])["support_precision"]
    expected = (one + two) / 2
    got = by_seed[("support_precision", "mean")]
    assert (by_seed[("support_precision", "seeds")] == 2).all()
    np.testing.assert_allclose(got.loc[expected.index].to_numpy(), expected.to_numpy())
