"""Holes in the judgments: holes, hole_counts, bounds and the judging sheets.

The holes are checked against a plain pandas reference on generated frames; the fills
of :func:`pdireval.bounds` against frames filled by hand and evaluated as any frame;
the bounds of monotone measures against random judgments of the holes; the sheets by
writing, filling and reading them back.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, assume, given, settings, target
from hypothesis import strategies as st
from strategies import long_frames

import pdireval
from pdireval import ParameterError, SchemaError

openpyxl = pytest.importorskip("openpyxl")

MONOTONE = ["P@3", "DCG@3", "RR", "Success@2", "RBP", "NumRelRet"]
OTHERS = ["AP", "nDCG", "R@5", "Rprec", "Bpref"]
SETTINGS = settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])


# --- a plain reference ---------------------------------------------------------------


def _keys(frame: pd.DataFrame) -> list[str]:
    return ["run", "query"] if "run" in frame.columns else ["query"]


def _reference_positions(frame: pd.DataFrame) -> pd.Series:
    """Each retrieved row's 1-based position: rank ascending, else score descending with
    ties by doc id descending (trec_eval); NaN for rows not retrieved.
    """
    order_by = "rank" if "rank" in frame.columns else "score"
    retrieved = frame[frame[order_by].notna()]
    position = pd.Series(np.nan, index=frame.index)
    for _, group in retrieved.groupby(_keys(frame), observed=True, sort=False):
        if order_by == "rank":
            ordered = sorted(group.index, key=lambda row: float(group.at[row, "rank"]))
        else:
            ordered = sorted(
                group.index,
                key=lambda row: (float(group.at[row, "score"]), str(group.at[row, "doc"])),
                reverse=True,
            )
        for place, row in enumerate(ordered, start=1):
            position[row] = place
    return position


def _reference_holes(frame: pd.DataFrame, k: int | None) -> set[tuple]:
    position = _reference_positions(frame)
    label = frame["rel"].astype("float64")
    judged_queries = set(frame.loc[label.notna(), "query"])
    rows = (
        position.notna()
        & ((position <= k) if k is not None else True)
        & ~(label >= 0)
        & frame["query"].isin(judged_queries)
    )
    keys = _keys(frame)
    return {
        (*(frame.at[row, key] for key in keys), frame.at[row, "doc"], int(position[row]))
        for row in frame.index[rows]
    }


def _filled_by_hand(frame: pd.DataFrame, labels: dict[tuple, float]) -> pd.DataFrame:
    """``frame`` with the documents ``labels`` names labelled so in every run; a run
    without a row for such a document gets one, judged but not retrieved.
    """
    filled = frame.copy()
    filled["rel"] = filled["rel"].astype("float64")
    added = []
    runs = sorted(set(frame["run"])) if "run" in frame.columns else [None]
    for (query, doc), value in labels.items():
        for run in runs:
            mine = (filled["query"] == query) & (filled["doc"] == doc)
            if run is not None:
                mine &= filled["run"] == run
            if mine.any():
                filled.loc[mine, "rel"] = value
            else:
                row = {"query": query, "doc": doc, "rel": value, "known": False, "time": np.nan}
                if run is not None:
                    row["run"] = run
                added.append(row)
    if added:
        extra = pd.DataFrame(added).astype({"query": frame["query"].dtype})
        filled = pd.concat([filled, extra], ignore_index=True)
    return filled


def _hole_documents(frame: pd.DataFrame, k: int | None = None) -> list[tuple]:
    return sorted({(hole[-3], hole[-2]) for hole in _reference_holes(frame, k)}, key=str)


def _split(frame: pd.DataFrame) -> tuple[pd.DataFrame, pd.DataFrame]:
    """A merged frame as a run and its qrels."""
    order_by = "rank" if "rank" in frame.columns else "score"
    run = frame[frame[order_by].notna()].drop(columns="rel")
    labelled = frame[frame["rel"].notna()]
    qrels = labelled[["query", "doc", "rel"]].drop_duplicates(["query", "doc"])
    return run, qrels


# --- holes -----------------------------------------------------------------------------


@SETTINGS
@given(long_frames(), st.integers(1, 6))
def test_holes_match_reference(frame, k):
    copy = frame.copy()
    found = pdireval.holes(frame, k)
    pd.testing.assert_frame_equal(frame, copy)
    keys = _keys(frame)
    assert list(found.columns) == [*keys, "doc", "position"]
    rows = {tuple(row) for row in found.itertuples(index=False)}
    assert rows == _reference_holes(frame, k)
    assert len(rows) == len(found)
    # Each ranking's holes are together, by position.
    for _, group in found.groupby(keys, observed=True, sort=False):
        assert group["position"].is_monotonic_increasing
        assert np.ptp(group.index) == len(group) - 1


@SETTINGS
@given(long_frames(), st.integers(1, 6))
def test_holes_of_a_run_with_qrels_match_the_merged_frame(frame, k):
    run, qrels = _split(frame)
    assume(len(run) and len(qrels))
    try:
        found = pdireval.holes(run, k, qrels=qrels)
    except SchemaError as error:  # a run that shares no query or document with the qrels
        assume("none of the run" not in str(error))
        raise
    expected = _reference_holes(frame, k)
    assert {tuple(row) for row in found.itertuples(index=False)} == expected


@SETTINGS
@given(long_frames(), st.integers(1, 6))
def test_hole_counts_count_the_holes(frame, k):
    counts = pdireval.hole_counts(frame, k)
    found = pdireval.holes(frame, k)
    keys = _keys(frame)
    per_ranking = found.groupby(keys, observed=True).size()
    holes = counts["holes"][counts["holes"] > 0]
    assert sorted(holes.items()) == sorted(per_ranking.items())
    assert (counts["retrieved"] <= k).all()
    assert (counts["retrieved"] > 0).all()
    np.testing.assert_allclose(counts["judged"], 1 - counts["holes"] / counts["retrieved"])
    # Judged@k counts a negative label as a judgment (as ir_measures does); a hole here.
    labels = frame["rel"].astype("float64")
    order_by = "rank" if "rank" in frame.columns else "score"
    unlabelled = frame.assign(rel=labels.where(labels >= 0))
    unlabelled = unlabelled[unlabelled["rel"].notna() | unlabelled[order_by].notna()]
    judged = pdireval.evaluate(unlabelled, f"Judged@{k}", queries="all")[f"Judged@{k}"]
    judged = judged.reindex(counts.index)
    np.testing.assert_allclose(counts["judged"][judged.notna()], judged.dropna())


def test_holes_by_hand():
    frame = pd.DataFrame(
        {
            "run": ["a"] * 4 + ["b"] * 3,
            "query": ["q1", "q1", "q1", "q2", "q1", "q1", "q2"],
            "doc": ["d1", "d2", "d3", "d9", "d3", "d4", "d8"],
            "score": [3.0, 2.0, 2.0, 1.0, 5.0, 4.0, 1.0],
            "rel": [1, None, -1, None, -1, None, None],
        }
    )
    found = pdireval.holes(frame, k=2)
    # q2 has no judgment: its holes do not count unless queries="all". Ties by doc id
    # descending: d3 before d2.
    assert found.to_dict("list") == {
        "run": ["a", "b", "b"],
        "query": ["q1", "q1", "q1"],
        "doc": ["d3", "d3", "d4"],
        "position": [2, 1, 2],
    }
    assert len(pdireval.holes(frame, k=2, queries="all")) == 5
    assert pdireval.hole_counts(frame, k=2).loc[("b", "q1"), "holes"] == 2


def test_holes_refuse_bad_arguments():
    frame = pd.DataFrame({"query": "q1", "doc": ["a"], "rank": [1], "rel": [1]})
    for k in (0, 1.5, True, "3"):
        with pytest.raises(ParameterError, match="k="):
            pdireval.holes(frame, k)
    with pytest.raises(ParameterError, match="queries="):
        pdireval.holes(frame, queries="some")
    with pytest.raises(SchemaError, match="relevance labels are missing"):
        pdireval.holes(frame.drop(columns="rel"))
    with pytest.raises(SchemaError, match="subtopic"):
        pdireval.holes(frame.drop(columns="rel"), qrels=frame.assign(subtopic=["1"]))


# --- bounds ----------------------------------------------------------------------------


@SETTINGS
@given(
    long_frames(),
    st.sampled_from([None, 2, 4]),
    st.sampled_from(["judged", "retrieved", "all"]),
    st.sampled_from(["trec", "optimistic", "pessimistic"]),
)
def test_bounds_are_the_hand_filled_frames_evaluated(frame, k, queries, ties):
    top = float(frame["rel"].astype("float64").max())
    assume(top > 0)
    copy = frame.copy()
    metrics = MONOTONE + OTHERS
    options = {"queries": queries, "ties": ties}
    found = pdireval.bounds(frame, metrics, k=k, **options)
    pd.testing.assert_frame_equal(frame, copy)
    documents = _hole_documents(frame, k)
    target(float(len(documents)))  # frames with many holes
    observed = pdireval.evaluate(frame, metrics, **options)
    for fill, value in (("holes_nonrelevant", 0.0), ("holes_relevant", top)):
        by_hand = _filled_by_hand(frame, dict.fromkeys(documents, value))
        expected = pdireval.evaluate(by_hand, metrics, **options).reindex(observed.index)
        got = found.per_query.xs(fill, axis=1, level="fill")
        pd.testing.assert_frame_equal(got, expected, check_names=False, check_index_type=False)
    got = found.per_query.xs("observed", axis=1, level="fill")
    pd.testing.assert_frame_equal(got, observed, check_names=False, check_index_type=False)
    assert found.top_label == top


@SETTINGS
@given(long_frames(), st.data())
def test_monotone_measures_lie_between_the_fills(frame, data):
    top = float(frame["rel"].astype("float64").max())
    assume(top > 0)
    found = pdireval.bounds(frame, MONOTONE)
    documents = _hole_documents(frame)
    target(float(len(documents)))
    grades = data.draw(st.lists(st.integers(0, int(top)), min_size=len(documents),
                                max_size=len(documents)))  # fmt: skip
    judged = pdireval.evaluate(_filled_by_hand(frame, dict(zip(documents, grades, strict=True))),
                               MONOTONE)  # fmt: skip
    judged = judged.reindex(found.per_query.index)
    observed = found.per_query.xs("observed", axis=1, level="fill")
    for metric in MONOTONE:
        low, high = found.per_query[(metric, "low")], found.per_query[(metric, "high")]
        assert (low <= judged[metric] + 1e-12).all()
        assert (judged[metric] <= high + 1e-12).all()
        assert (low <= observed[metric] + 1e-12).all()
        assert (observed[metric] <= high + 1e-12).all()
        means = found.means[metric]
        assert (means["low"] <= means["observed"] + 1e-12).all()
        assert (means["observed"] <= means["high"] + 1e-12).all()


def test_average_precision_can_leave_the_two_fills():
    """AP is not monotone in the labels: a mixed judgment beats both uniform fills."""
    run = pd.DataFrame(
        {"run": ["a"] * 2 + ["b"] * 2, "query": "q1", "doc": ["h1", "d0", "h2", "d0"],
         "rank": [1, 2, 1, 2]}
    )  # fmt: skip
    qrels = pd.DataFrame({"query": ["q1"], "doc": ["d0"], "rel": [0]})
    found = pdireval.bounds(run, "AP", qrels=qrels, top_label=1)
    a = found.per_query.loc[("a", "q1"), "AP"]
    assert (a["holes_nonrelevant"], a["holes_relevant"]) == (0.0, 0.5)
    mixed = pd.concat([qrels, pd.DataFrame({"query": ["q1"], "doc": ["h1"], "rel": [1]})])
    assert pdireval.evaluate(run, "AP", qrels=mixed).loc[("a", "q1"), "AP"] == 1.0 > a["high"]


def test_bounds_of_a_run_with_qrels_equal_those_of_the_merged_frame():
    from pdireval.datasets import example_qrels, example_run

    run, qrels = example_run(), example_qrels()
    copies = run.copy(), qrels.copy()
    given_apart = pdireval.bounds(run, ["P@10", "AP"], qrels=qrels, k=10)
    pdireval.holes(run, qrels=qrels)
    pdireval.hole_counts(run, qrels=qrels)
    pd.testing.assert_frame_equal(run, copies[0])
    pd.testing.assert_frame_equal(qrels, copies[1])
    merged = pdireval.bounds(pdireval.merge_qrels(run, qrels), ["P@10", "AP"], k=10)
    pd.testing.assert_frame_equal(given_apart.per_query, merged.per_query)
    pd.testing.assert_frame_equal(given_apart.pairs, merged.pairs)


def test_pairs_say_which_comparisons_a_fill_reverses():
    run = pd.DataFrame(
        {"run": ["a"] * 3 + ["b"] * 3, "query": "q1",
         "doc": ["d1", "d2", "d3", "d4", "d1", "d2"], "rank": [1, 2, 3, 1, 2, 3]}
    )  # fmt: skip
    qrels = pd.DataFrame({"query": "q1", "doc": ["d1", "d2"], "rel": [1, 0]})
    found = pdireval.bounds(run, ["P@3", "RR"], qrels=qrels)
    pairs = found.pairs.set_index("metric")
    assert pairs.loc["RR", ["observed", "holes_nonrelevant", "holes_relevant"]].tolist() == [
        0.5, 0.5, 0.0
    ]  # fmt: skip
    assert pairs.loc["RR", "reversed"]
    assert not pairs.loc["P@3", "reversed"]
    assert found.reversed_pairs["metric"].tolist() == ["RR"]
    means = found.means
    expected = means.loc["a", ("RR", "holes_relevant")] - means.loc["b", ("RR", "holes_relevant")]
    assert pairs.loc["RR", "holes_relevant"] == expected
    single = pdireval.bounds(run[run["run"] == "a"].drop(columns="run"), "RR", qrels=qrels)
    assert single.means.index.tolist() == ["all"]
    assert single.pairs.empty


def test_bounds_refuse_bad_input():
    frame = pd.DataFrame(
        {"run": ["a", "a", "b", "b"], "query": "q1", "doc": ["d1", "d2", "d1", "d2"],
         "rank": [1, 2, 1, 2], "rel": [1, None, 2, None]}
    )  # fmt: skip
    with pytest.raises(SchemaError, match="different labels"):
        pdireval.bounds(frame, "P@2")
    partial = frame.assign(rel=[1, None, None, None])
    with pytest.raises(SchemaError, match="some runs but not of others"):
        pdireval.bounds(partial, "P@2")
    zeros = frame.assign(rel=[0, None, 0, None])
    with pytest.raises(SchemaError, match="top_label="):
        pdireval.bounds(zeros, "P@2")
    assert pdireval.bounds(zeros, "P@2", top_label=1).top_label == 1.0
    for top in (0, -1, True, "2", float("nan")):
        with pytest.raises(ParameterError, match="top_label="):
            pdireval.bounds(zeros, "P@2", top_label=top)


# --- judging sheets --------------------------------------------------------------------


@pytest.fixture
def holes() -> pd.DataFrame:
    run = pd.DataFrame(
        {"run": ["a"] * 3 + ["b"] * 3, "query": [7, 7, 12, 7, 7, 12],
         "doc": ["d1", "d2", "=HYPERLINK(\"x\")", "d2", "d3", "d5"],
         "rank": [1, 2, 1, 1, 2, 1]}
    )  # fmt: skip
    qrels = pd.DataFrame({"query": [7, 12], "doc": ["d1", "d4"], "rel": [1, 0]})
    return pdireval.holes(run, qrels=qrels)


def _fill_workbook(path, labels) -> None:
    book = openpyxl.load_workbook(path)
    sheet = book["Judgments"]
    column = [cell.value for cell in sheet[1]].index("label") + 1
    for row, label in enumerate(labels, start=2):
        sheet.cell(row, column).value = label
    book.save(path)


def test_workbook_round_trip(tmp_path, holes):
    copy = holes.copy()
    path = tmp_path / "sheet.xlsx"
    pdireval.write_judging_sheet(
        holes, path, query_texts={7: "=cmd|' /C calc'!A0", "12": "q twelve"},
        doc_texts=pd.DataFrame({"id": ["d2"], "text": ["document two"]}), labels=range(3),
    )  # fmt: skip
    pd.testing.assert_frame_equal(holes, copy)
    book = openpyxl.load_workbook(path)
    sheet = book["Judgments"]
    assert [cell.value for cell in sheet[1]] == ["query", "query text", "doc", "doc text", "label"]
    assert sheet.freeze_panes == "A2"
    rows = list(sheet.iter_rows(min_row=2, values_only=True))
    assert [row[:3] for row in rows] == [
        ("12", "q twelve", '=HYPERLINK("x")'),
        ("12", "q twelve", "d5"),
        ("7", "=cmd|' /C calc'!A0", "d2"),
        ("7", "=cmd|' /C calc'!A0", "d3"),
    ]
    for row in sheet.iter_rows(min_row=2):
        filled = [cell for cell in row[:4] if cell.value is not None]
        assert all(cell.data_type == "s" for cell in filled)  # text, never a formula
    assert book["pdireval"].sheet_state == "hidden"
    (choices,) = sheet.data_validations.dataValidation
    assert (choices.formula1, str(choices.sqref)) == ('"0,1,2"', "E2:E5")
    _fill_workbook(path, [2, "0", 1.0, 1])
    judged = pdireval.read_judging_sheet(path, judge="alice", holes=holes)
    assert judged.to_dict("list") == {
        "query": [12, 12, 7, 7],
        "doc": ['=HYPERLINK("x")', "d5", "d2", "d3"],
        "rel": [2, 0, 1, 1],
        "judge": ["alice"] * 4,
    }
    assert judged["query"].dtype == holes["query"].dtype
    as_text = pdireval.read_judging_sheet(path, judge="alice")
    assert as_text["query"].tolist() == ["12", "12", "7", "7"]
    # The new judge's labels fill the holes.
    assert pdireval.holes(
        pd.DataFrame({"query": [7, 7], "doc": ["d2", "d3"], "rank": [1, 2]}),
        qrels=judged[["query", "doc", "rel"]],
    ).empty


def test_long_texts_are_cut_visibly(tmp_path, holes):
    path = tmp_path / "sheet.xlsx"
    pdireval.write_judging_sheet(holes, path, doc_texts={"d2": "x" * 40_000})
    sheet = openpyxl.load_workbook(path)["Judgments"]
    assert [cell.value for cell in sheet[1]] == ["query", "doc", "doc text", "label"]
    (text,) = [row[2] for row in sheet.iter_rows(min_row=2, values_only=True) if row[2]]
    assert len(text) <= 32_767
    assert text.endswith(f"… (cut: {40_000 - 32_727} more characters)")


def test_workbook_rows_may_be_sorted(tmp_path, holes):
    path = tmp_path / "sheet.xlsx"
    pdireval.write_judging_sheet(holes, path)
    book = openpyxl.load_workbook(path)
    sheet = book["Judgments"]
    rows = [[cell.value for cell in row] for row in sheet.iter_rows(min_row=2)]
    for row_number, row in enumerate(reversed(rows), start=2):
        for column, value in enumerate(row[:2], start=1):
            sheet.cell(row_number, column).value = value
            sheet.cell(row_number, column).data_type = "s"  # text, as a spreadsheet keeps it
        sheet.cell(row_number, 3).value = row_number
    book.save(path)
    judged = pdireval.read_judging_sheet(path, judge="x", holes=holes)
    assert judged["doc"].tolist() == ["d3", "d2", "d5", '=HYPERLINK("x")']
    assert judged["rel"].tolist() == [2, 3, 4, 5]


def test_template_round_trip(tmp_path, holes):
    path = tmp_path / "sheet.qrels"
    plain = holes[holes["doc"] != '=HYPERLINK("x")']
    pdireval.write_judging_sheet(plain, path, labels=[0, 1])
    text = path.read_text()
    assert text.splitlines()[-3:] == ["12 0 d5 ?", "7 0 d2 ?", "7 0 d3 ?"]
    path.write_text(text.replace("d5 ?", "d5 1").replace("d2 ?", "d2 0").replace("d3 ?", "d3 1"))
    judged = pdireval.read_judging_sheet(path, judge="bob")
    assert judged.to_dict("list") == {
        "query": ["12", "7", "7"], "doc": ["d5", "d2", "d3"], "rel": [1, 0, 1],
        "judge": ["bob"] * 3,
    }  # fmt: skip
    with_holes = pdireval.read_judging_sheet(path, judge="bob", holes=plain)
    assert with_holes["query"].tolist() == [12, 7, 7]
    path.write_text(path.read_text().replace("d5 1", "d5 2"))
    with pytest.raises(SchemaError, match=r"not among the labels \[0, 1\] \(12 d5: 2\)"):
        pdireval.read_judging_sheet(path, judge="bob")


def test_unfilled_and_bad_labels_are_refused(tmp_path, holes):
    path = tmp_path / "sheet.xlsx"
    pdireval.write_judging_sheet(holes, path, labels=range(3))
    with pytest.raises(SchemaError, match=r"4 label\(s\) .* not filled in \(row 2, row 3, row 4"):
        pdireval.read_judging_sheet(path, judge="x")
    for labels, message in (
        ([1, 1, None, 1], r"not filled in \(row 4\)"),
        ([1, "relevant", 1, 1], r"not whole numbers \(row 3: 'relevant'\)"),
        ([1, 1.5, 1, 1], "not whole numbers"),
        ([1, True, 1, 1], "not whole numbers"),
        ([1, 1, 7, 1], r"not among the labels \[0, 1, 2\] \(row 4: 7\)"),
    ):
        _fill_workbook(path, labels)
        with pytest.raises(SchemaError, match=message):
            pdireval.read_judging_sheet(path, judge="x")
    _fill_workbook(path, [1, 1, 2, 1])
    with pytest.raises(SchemaError, match=r"not among the labels \[0, 1\]"):
        pdireval.read_judging_sheet(path, judge="x", labels=[0, 1])
    template = tmp_path / "sheet.txt"
    pdireval.write_judging_sheet(holes, template)
    with pytest.raises(SchemaError, match=r"4 label\(s\) .* placeholder '\?' \(line 3"):
        pdireval.read_judging_sheet(template, judge="x")
    template.write_text(template.read_text().replace("?", "yes"))
    with pytest.raises(SchemaError, match="integer"):
        pdireval.read_judging_sheet(template, judge="x")


def test_edited_ids_are_refused(tmp_path, holes):
    path = tmp_path / "sheet.xlsx"
    pdireval.write_judging_sheet(holes, path)
    _fill_workbook(path, [1, 1, 1, 1])
    book = openpyxl.load_workbook(path)
    book["Judgments"].cell(3, 2).value = "d6"
    book.save(path)
    with pytest.raises(SchemaError, match=r"edited or added\): \('12', 'd6'\)"):
        pdireval.read_judging_sheet(path, judge="x")
    with pytest.raises(SchemaError, match="not the holes given"):
        pdireval.read_judging_sheet(path, judge="x", holes=holes)
    book["Judgments"].delete_rows(3)
    book.save(path)
    with pytest.raises(SchemaError, match=r"missing \(edited or removed\): \('12', 'd5'\)"):
        pdireval.read_judging_sheet(path, judge="x")
    book["Judgments"].append(["7", "d2", 1])
    book.save(path)
    with pytest.raises(SchemaError, match=r"listed twice: \('7', 'd2'\)"):
        pdireval.read_judging_sheet(path, judge="x")
    del book["pdireval"]
    book.save(path)
    with pytest.raises(SchemaError, match="no record of the ids"):
        pdireval.read_judging_sheet(path, judge="x")

    template = tmp_path / "sheet.txt"
    pdireval.write_judging_sheet(holes, template)
    filled = template.read_text().replace("?", "1")
    template.write_text(filled.replace("d5", "d6"))
    with pytest.raises(SchemaError, match="checksum differs"):
        pdireval.read_judging_sheet(template, judge="x")
    with pytest.raises(SchemaError, match=r"\('12', 'd6'\)"):
        pdireval.read_judging_sheet(template, judge="x", holes=holes)
    template.write_text("\n".join(line for line in filled.splitlines() if "sha256" not in line))
    with pytest.raises(SchemaError, match="no record of the ids"):
        pdireval.read_judging_sheet(template, judge="x")
    assert len(pdireval.read_judging_sheet(template, judge="x", holes=holes)) == 4


def test_sheets_refuse_what_they_cannot_hold(tmp_path, holes):
    with pytest.raises(SchemaError, match=r"\.xlsx\) or a TREC qrels template"):
        pdireval.write_judging_sheet(holes, tmp_path / "sheet.csv")
    with pytest.raises(SchemaError, match="no place for texts"):
        pdireval.write_judging_sheet(holes, tmp_path / "sheet.txt", doc_texts={"d2": "x"})
    spaced = holes.assign(doc=["a b", "c", "d", "e", "f"])
    with pytest.raises(SchemaError, match="whitespace"):
        pdireval.write_judging_sheet(spaced, tmp_path / "sheet.txt")
    with pytest.raises(SchemaError, match="labels="):
        pdireval.write_judging_sheet(holes, tmp_path / "sheet.xlsx", labels=[0, 0.5])
    with pytest.raises(SchemaError, match="control character"):
        pdireval.write_judging_sheet(holes.assign(doc="d\x1b"), tmp_path / "sheet.xlsx")
    assert not (tmp_path / "sheet.txt").exists()
    assert not (tmp_path / "sheet.xlsx").exists()


def test_frames_with_collections_are_taken_one_at_a_time() -> None:
    from pdireval.datasets import benchmark

    runs, qrels = benchmark()
    with pytest.raises(
        pdireval.SchemaError, match=r"collection column .* one collection at a time"
    ):
        pdireval.holes(runs, k=10, qrels=qrels)
    with pytest.raises(pdireval.SchemaError, match=r"one collection at a time"):
        pdireval.bounds(runs, "P@10", qrels=qrels)
