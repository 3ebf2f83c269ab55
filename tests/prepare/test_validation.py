"""Bad inputs are refused with clear messages, and the input frame is never modified (DESIGN §1)."""

from __future__ import annotations

import re

import numpy as np
import pandas as pd
import pytest

import pdireval
from pdireval import MetricError, ParameterError, PdirevalError, SchemaError


def _frame(**changes: object) -> pd.DataFrame:
    """A valid long frame: q1 retrieves a, b; q2 retrieves a; every row judged."""
    frame = pd.DataFrame(
        {"query": ["q1", "q1", "q2"], "doc": ["a", "b", "a"], "rank": [1, 2, 1], "rel": [1, 0, 1]}
    )
    return frame.assign(**changes)


def _refused(frame: pd.DataFrame, match: str, **options: object) -> pytest.ExceptionInfo:
    """Evaluate and check the error is a SchemaError that is also a ValueError."""
    with pytest.raises(SchemaError, match=match) as info:
        pdireval.evaluate(frame, ["AP"], **options)
    assert isinstance(info.value, ValueError)
    assert isinstance(info.value, PdirevalError)
    return info


def test_valid_frame_is_accepted() -> None:
    """The base frame of this module is valid, so each refusal below is due to its one change."""
    result = pdireval.evaluate(_frame(), ["AP"])
    assert result["AP"].tolist() == [1.0, 1.0]


# --- missing and ambiguous columns -------------------------------------------------------------


@pytest.mark.parametrize(
    ("role", "synonyms"),
    [("query", "'qid', 'query_id'"), ("doc", "'docno', 'doc_id'"), ("rel", "'relevance', 'label'")],
)
def test_missing_column_names_role_columns_and_fix(role: str, synonyms: str) -> None:
    """A missing role names itself, its synonyms, the columns found and the remapping fix."""
    frame = _frame().drop(columns=role)
    info = _refused(frame, f"column '{role}'")
    message = str(info.value)
    assert synonyms in message
    assert str(list(frame.columns)) in message
    assert f"df.ireval({role}=" in message


def test_missing_rank_and_score_says_both() -> None:
    """Without a rank or a score column the message names both and how to map one."""
    info = _refused(_frame().drop(columns="rank"), "neither a 'rank' nor a 'score' column")
    assert "['query', 'doc', 'rel']" in str(info.value)
    assert "df.ireval(rank=" in str(info.value)


def test_two_synonyms_for_one_role_names_both() -> None:
    """Both `qid` and `query_id` (and no `query`) is ambiguous: both names and the fix appear."""
    frame = _frame().rename(columns={"query": "qid"}).assign(query_id=["x", "x", "y"])
    info = _refused(frame, r"\['qid', 'query_id'\]")
    assert "df.ireval(query='qid')" in str(info.value)


def test_two_synonyms_with_default_column_is_fine() -> None:
    """With the default column present, synonyms are ignored and nothing is ambiguous."""
    frame = _frame().assign(qid=["x", "y", "z"], query_id=["u", "u", "u"])
    assert pdireval.evaluate(frame, "AP").index.tolist() == ["q1", "q2"]


@pytest.mark.parametrize(
    "call",
    [
        lambda frame: frame.ireval(query="topic").evaluate("AP"),
        lambda frame: pdireval.evaluate(frame, "AP", columns={"query": "topic"}),
    ],
    ids=["accessor", "function"],
)
def test_explicit_column_that_does_not_exist(call) -> None:
    """A mapped column that is not in the frame is named, with the columns that exist."""
    with pytest.raises(SchemaError, match=r"column 'topic' given for role 'query'") as info:
        call(_frame())
    assert "['query', 'doc', 'rank', 'rel']" in str(info.value)


def test_unknown_role_in_columns_mapping() -> None:
    """A misspelt role in columns= is refused and the valid roles are listed."""
    with pytest.raises(SchemaError, match=r"unknown column role\(s\) \['qry'\].*'query'"):
        pdireval.evaluate(_frame(), "AP", columns={"qry": "query"})


def test_columns_of_wrong_type() -> None:
    """columns= must be a mapping or ColumnMap; a list is refused with the accepted forms."""
    with pytest.raises(SchemaError, match=r"ColumnMap or a .*dict, got list"):
        pdireval.evaluate(_frame(), "AP", columns=["query"])


def test_accessor_mapping_is_keyword_only() -> None:
    """df.ireval('qid') is a TypeError: roles must be named."""
    with pytest.raises(TypeError):
        _frame().ireval("query")


# --- duplicates -----------------------------------------------------------------------------------


def test_duplicate_doc_within_query_ranked() -> None:
    """The same doc twice in one query (distinct ranks) is refused, naming the pair and the fix."""
    frame = _frame(rank=[1, 3, 1])
    frame = pd.concat([frame, _frame().iloc[[0]].assign(rank=2)], ignore_index=True)
    info = _refused(frame, r"1 duplicate \(query, doc\) row")
    assert "{'query': 'q1', 'doc': 'a'}" in str(info.value)
    assert "drop_duplicates" in str(info.value)


def test_duplicate_doc_within_query_scored() -> None:
    """Duplicates are found when ranking by score too."""
    frame = _frame().drop(columns="rank").assign(score=[1.0, 2.0, 3.0])
    frame = pd.concat([frame, frame.iloc[[1]].assign(score=0.5)], ignore_index=True)
    info = _refused(frame, "duplicate")
    assert "{'query': 'q1', 'doc': 'b'}" in str(info.value)


def test_duplicate_doc_retrieved_and_judged_unretrieved() -> None:
    """A doc both as a retrieved row and as a judged-unretrieved row is a duplicate (bad merge)."""
    frame = pd.DataFrame(
        {"query": ["q", "q"], "doc": ["a", "a"], "rank": [1, np.nan], "rel": [np.nan, 1]}
    )
    _refused(frame, r"duplicate \(query, doc\)")


def test_duplicate_doc_within_run_names_run() -> None:
    """With a run column the duplicate key includes the run."""
    frame = pd.DataFrame(
        {"run": ["r", "r"], "query": ["q", "q"], "doc": ["a", "a"], "rank": [1, 2], "rel": [1, 1]}
    )
    info = _refused(frame, r"1 duplicate \((run, query, doc|query, doc, run)\) row")
    assert "{'run': 'r'" in str(info.value) or "'run': 'r'}" in str(info.value)
    assert "once per run and query" in str(info.value)


_CLUEWEB = "clueweb09-en0000-00-00001"


@pytest.mark.parametrize(
    ("docs", "duplicate"),
    [
        ([_CLUEWEB, _CLUEWEB[:-1] + "2"], None),
        ([_CLUEWEB, "x", _CLUEWEB], _CLUEWEB),
        (["abcdefgh", "abcdefghi", "abcdefg"], None),
        (["", "a", ""], ""),
        (["\u00e9" * 9, "\u00e9" * 9 + "x", "\u00e9" * 9], "\u00e9" * 9),
        ([7, 2**40, 7], 7),
        ([-1, 2**63 - 1], None),
    ],
)
def test_duplicate_detection_on_awkward_doc_ids(docs: list, duplicate: object) -> None:
    """Long ids sharing a prefix, empty, non-ASCII and large integer ids are compared exactly."""
    frame = pd.DataFrame({"query": "q", "doc": docs, "rank": range(1, len(docs) + 1), "rel": 1})
    if duplicate is None:
        assert pdireval.evaluate(frame, "NumRet")["NumRet"].tolist() == [len(docs)]
    else:
        info = _refused(frame, r"1 duplicate \(query, doc\) row")
        shown = re.escape(repr(duplicate))
        assert re.search(rf"'doc': (np\.int64\()?{shown}", str(info.value))


def test_duplicate_detection_on_a_slice() -> None:
    """A sliced frame (offset string buffers) is checked on its own rows only."""
    docs = ["x", "y", "abcdefghijklmnop", "abcdefghijklmnoq", "abcdefghijklmnop"]
    frame = pd.DataFrame({"query": "q", "doc": docs, "rank": range(1, 6), "rel": 1})
    assert pdireval.evaluate(frame.iloc[2:4], "NumRet")["NumRet"].tolist() == [2.0]
    _refused(frame.iloc[2:], "duplicate")
    _refused(frame.iloc[1:].assign(doc=["y", "y", "z", "w"]), "duplicate")


def test_same_doc_in_two_runs_is_fine() -> None:
    """The same (query, doc) in two runs is not a duplicate: each run is evaluated alone."""
    frame = pd.DataFrame(
        {
            "run": ["r1", "r1", "r2", "r2"],
            "query": ["q"] * 4,
            "doc": ["a", "b", "b", "a"],
            "rank": [1, 2, 1, 2],
            "rel": [1, 0, 0, 1],
        }
    )
    result = pdireval.evaluate(frame, ["RR"])
    assert result["RR"].tolist() == [1.0, 0.5]


def test_duplicate_rank_within_query() -> None:
    """Two documents with the same rank in one query: the rank and the query are named."""
    info = _refused(_frame(rank=[2, 2, 1]), "rank 2 appears more than once for query 'q1'")
    assert "re-rank" in str(info.value)


def test_same_rank_in_different_queries_and_runs_is_fine() -> None:
    """Rank 1 once per (run, query) is normal."""
    frame = pd.DataFrame(
        {"run": ["x", "y"], "query": ["q", "q"], "doc": ["a", "b"], "rank": [1, 1], "rel": [1, 0]}
    )
    assert pdireval.evaluate(frame, "RR")["RR"].tolist() == [1.0, 0.0]


# --- ranks, labels, scores --------------------------------------------------------------------


@pytest.mark.parametrize(
    ("ranks", "found"),
    [
        ([-1, 2, 1], "[-1]"),  # integers shown as integers
        ([1.5, 2, 1], "[1.5]"),
        ([1, np.inf, 1], "[inf]"),
    ],
)
def test_bad_rank_values(ranks: list[float], found: str) -> None:
    """Negative, fractional or infinite ranks are refused, showing the bad values."""
    info = _refused(_frame(rank=ranks), r"column 'rank' \(rank\) must hold whole numbers >= 0")
    assert f"found {found}" in str(info.value)
    assert "NaN" in str(info.value)  # tells how to mark judged-but-unretrieved rows


@pytest.mark.parametrize("hidden", [-7, 0, 2, 2**40])
@pytest.mark.parametrize("dtype", ["Int64", "Int32", "UInt64"])
def test_values_under_the_mask_of_integer_ranks_are_not_read(hidden: int, dtype: str) -> None:
    """Nullable integer ranks are read as stored, with their mask: whatever value sits
    under a missing rank (negative, repeated, too large to pack) changes nothing."""
    if hidden < 0 and dtype.startswith("U"):
        pytest.skip("no negative unsigned values")
    frame = pd.DataFrame(
        {
            "query": ["q1", "q1", "q1", "q2", "q2"],
            "doc": ["a", "b", "c", "a", "d"],
            "rank": [2, 1, 0, 1, 0],
            "rel": [1, 0, 1, 1, 2],
        }
    )
    missing = np.array([False, False, True, False, True])  # c and d judged, not retrieved
    ranks = pd.arrays.IntegerArray(
        np.where(missing, hidden, frame["rank"]).astype(dtype.lower()), missing
    )
    as_floats = frame.assign(rank=np.where(missing, np.nan, frame["rank"]))
    measures = ["AP", "nDCG@2", "P@1", "R@2", "RR"]
    expected = pdireval.evaluate(as_floats, measures)
    pd.testing.assert_frame_equal(pdireval.evaluate(frame.assign(rank=ranks), measures), expected)


def test_negative_integer_ranks_are_shown_as_integers() -> None:
    ranks = pd.array([1, -3, None], dtype="Int64")
    info = _refused(_frame(rank=ranks, rel=[1, 0, 1]), r"must hold whole numbers >= 0")
    assert "found [-3]" in str(info.value)


def test_non_numeric_rank() -> None:
    """A rank column of strings is refused with the dtype and the conversion fix."""
    info = _refused(_frame(rank=["1", "2", "1"]), r"column 'rank' \(rank\) must be numeric")
    assert "pd.to_numeric" in str(info.value)


def test_non_numeric_rel() -> None:
    """String labels are refused: dtype, sample values and the fix appear."""
    frame = _frame(rel=["1", "0", "1"])
    info = _refused(frame, r"column 'rel' \(relevance label\) must be numeric")
    message = str(info.value)
    assert f"dtype {frame['rel'].dtype}" in message
    assert "['1', '0', '1']" in message
    assert "pd.to_numeric" in message


def test_bool_rel_hint_is_a_working_fix() -> None:
    """When boolean labels are refused, the suggested fix (.astype(int)) must make them valid."""
    frame = _frame(rel=[True, False, True])
    with pytest.raises(SchemaError, match=r"booleans.*\.astype\(int\)"):
        pdireval.evaluate(frame, "AP")
    fixed = frame.assign(rel=frame["rel"].astype(int))
    assert pdireval.evaluate(fixed, "AP")["AP"].tolist() == [1.0, 1.0]


def test_fractional_rel() -> None:
    """Fractional labels are refused, showing the value and asking for graded levels."""
    info = _refused(_frame(rel=[0.5, 0, 1]), "must hold whole numbers, found \\[0.5\\]")
    assert "levels" in str(info.value)


def test_float_whole_rel_and_negative_rel_are_fine() -> None:
    """Labels 1.0 and -1 (pooled but unjudged) are valid labels."""
    result = pdireval.evaluate(_frame(rel=[1.0, -1.0, 2.0]), ["AP", "NumRel"])
    assert result["NumRel"].tolist() == [1.0, 1.0]


def test_non_numeric_score() -> None:
    """A string score column is refused, naming the column and the fix."""
    frame = _frame().drop(columns="rank").assign(score=["high", "low", "mid"])
    info = _refused(frame, r"column 'score' \(score\) must be numeric")
    assert "pd.to_numeric" in str(info.value)


# --- null ids and empty rows ------------------------------------------------------------------


@pytest.mark.parametrize("role", ["query", "doc", "run"])
def test_null_ids(role: str) -> None:
    """A missing query, doc or run id is refused with the count, the row and the fix."""
    frame = _frame(run=["r", "r", "r"])
    values = frame[role].tolist()
    values[1] = None
    frame = frame.assign(**{role: values})
    info = _refused(frame, f"column '{role}' \\({role} ids\\) has 1 missing")
    assert "row 1" in str(info.value)
    assert "fill or drop" in str(info.value)


def test_null_query_in_categorical() -> None:
    """A NaN in a categorical query column is caught too."""
    query = pd.Categorical(["q1", None, "q2"])
    _refused(_frame(query=query), "missing value")


@pytest.mark.parametrize("ranked_by", ["rank", "score"])
def test_row_neither_retrieved_nor_judged(ranked_by: str) -> None:
    """A row with no rank/score and no label carries nothing: refused, naming both columns."""
    frame = _frame(rel=[1, np.nan, 1])
    if ranked_by == "rank":
        frame = frame.assign(rank=[1, np.nan, 1])
    else:
        frame = frame.drop(columns="rank").assign(score=[1.0, np.nan, 1.0])
    info = _refused(frame, "1 row\\(s\\) are neither retrieved")
    assert f"'{ranked_by}' missing" in str(info.value)
    assert "'rel' missing" in str(info.value)
    assert "row 1" in str(info.value)


# --- options ----------------------------------------------------------------------------------


def test_unknown_query_policy() -> None:
    """An unknown queries= value is a pdireval ValueError listing the policies."""
    policies = r"queries='some'.*'judged', 'retrieved', 'all'"
    with pytest.raises(PdirevalError, match=policies) as info:
        pdireval.evaluate(_frame(), "AP", queries="some")
    assert isinstance(info.value, ValueError)


def test_unknown_agg() -> None:
    """An unknown agg= value is a MetricError listing the aggregates."""
    with pytest.raises(
        ParameterError, match=r"agg='max'.*'mean', 'gmean', 'hmean', 'median'"
    ) as info:
        pdireval.summary(_frame(), "AP", agg="max")
    assert isinstance(info.value, ValueError)


# --- the input frame is never modified --------------------------------------------------------


def _awkward_frame() -> pd.DataFrame:
    """Shuffled rows, a non-default index, categorical ids, tied scores and missing values."""
    return pd.DataFrame(
        {
            "query": pd.Categorical(["q2", "q2", "q1", "q1", "q2", "q3"]),
            "doc": pd.Categorical(["b", "a", "a", "c", "c", "z"]),
            "score": [1.0, 1.0, 0.5, 0.7, np.nan, 0.1],
            "rel": [0, 1, 1, np.nan, 2, np.nan],
        },
        index=[5, 3, 9, 1, 0, 0],
    )


@pytest.mark.parametrize(
    "call",
    [
        lambda df: pdireval.evaluate(df, ["AP", "nDCG@2", "P@1"], queries="all"),
        lambda df: df.ireval.evaluate(["RR", "Bpref", "NumRet"]),
        lambda df: pdireval.summary(df, ["AP", "nDCG@2"], agg="gmean"),
        lambda df: df.ireval.summary(["AP"], agg="median"),
        lambda df: df.ireval.ndcg(2),
        lambda df: df.ireval.map(),
    ],
)
def test_input_not_modified_score_ties_categoricals(call) -> None:
    """Evaluating (with ties, categoricals, NaNs and a duplicated index) leaves the frame as is."""
    frame = _awkward_frame()
    snapshot = frame.copy(deep=True)
    call(frame)
    pd.testing.assert_frame_equal(frame, snapshot)


def test_input_not_modified_ranked_with_run() -> None:
    """A ranked frame with a run column (unsorted) is not modified either."""
    frame = pd.DataFrame(
        {
            "run": ["r2", "r1", "r1", "r2"],
            "query": [2, 1, 1, 1],
            "doc": ["a", "b", "a", "a"],
            "rank": [1.0, 2.0, 1.0, np.nan],
            "rel": [1, 0, 1, 1],
        }
    )
    snapshot = frame.copy(deep=True)
    pdireval.evaluate(frame, ["AP", "R@5"], queries="all")
    pdireval.summary(frame, ["AP"])
    pd.testing.assert_frame_equal(frame, snapshot)


def test_merge_qrels_does_not_modify_inputs() -> None:
    """merge_qrels leaves both inputs alone (also their dtypes), and its result is independent."""
    run = pd.DataFrame(
        {
            "query": pd.Categorical(["q1", "q1", "q2"]),
            "doc": ["a", "b", "c"],
            "rank": [1, 2, 1],
            "score": [0.5, 0.5, 0.1],
        }
    )
    qrels = pd.DataFrame({"query": ["q1", "q1", "q3"], "doc": ["b", "z", "y"], "rel": [1, 2, 0]})
    run_snapshot, qrels_snapshot = run.copy(deep=True), qrels.copy(deep=True)
    merged = pdireval.merge_qrels(run, qrels)
    pd.testing.assert_frame_equal(run, run_snapshot)
    pd.testing.assert_frame_equal(qrels, qrels_snapshot)
    merged.loc[0, "rank"] = 99
    merged.loc[0, "score"] = -1.0
    pd.testing.assert_frame_equal(run, run_snapshot)


# --- empty input ------------------------------------------------------------------------------


def test_empty_frame_gives_empty_table() -> None:
    """Zero rows give an empty float64 table with the metric columns and the query index name."""
    empty = _frame().rename(columns={"query": "qid"}).iloc[:0]
    result = pdireval.evaluate(empty, ["AP", "nDCG@10"])
    assert result.shape == (0, 2)
    assert result.columns.tolist() == ["AP", "nDCG@10"]
    assert result.columns.name == "metric"
    assert result.index.name == "qid"
    assert not isinstance(result.index, pd.MultiIndex)
    assert (result.dtypes == np.float64).all()


def test_empty_frame_with_run_gives_empty_multiindex() -> None:
    """Zero rows with a run column give an empty (run, query) MultiIndex."""
    empty = _frame(run=["r", "r", "r"]).iloc[:0]
    result = pdireval.evaluate(empty, ["AP", "P@5"])
    assert result.shape == (0, 2)
    assert isinstance(result.index, pd.MultiIndex)
    assert list(result.index.names) == ["run", "query"]
    assert result.columns.tolist() == ["AP", "P@5"]


def test_empty_frame_summary() -> None:
    """The summary of nothing is NaN by label (no run) or an empty run x metric table."""
    summary = pdireval.summary(_frame().iloc[:0], ["AP", "RR"])
    assert summary.index.tolist() == ["AP", "RR"]
    assert summary.isna().all()
    by_run = pdireval.summary(_frame(run=["r", "r", "r"]).iloc[:0], ["AP"])
    assert isinstance(by_run, pd.DataFrame)
    assert by_run.shape == (0, 1)


def test_empty_frame_built_from_column_names() -> None:
    """The obvious empty frame, pd.DataFrame(columns=[...]), evaluates to an empty table."""
    empty = pd.DataFrame(columns=["query", "doc", "rank", "rel"])
    result = pdireval.evaluate(empty, ["AP"])
    assert result.shape == (0, 1)


# --- query id dtypes --------------------------------------------------------------------------

_IDS = ["10", "10", "9", "9", "2"]


def _with_query(query: object) -> pd.DataFrame:
    """q10: rel at rank 2 (AP .5); q9: rel at rank 1 (AP 1); q2: nothing relevant (AP 0)."""
    return pd.DataFrame(
        {
            "query": query,
            "doc": ["a", "b", "a", "c", "a"],
            "rank": [1, 2, 1, 2, 1],
            "rel": [0, 1, 1, 0, 0],
        }
    )


@pytest.mark.parametrize(
    "query",
    [
        pd.Series(_IDS, dtype="str"),
        pd.Series(_IDS, dtype=pd.StringDtype("python")),
        pd.Series(_IDS, dtype=object),
        pd.Series(_IDS, dtype="category"),
        pd.Series([int(i) for i in _IDS], dtype="int64"),
    ],
    ids=["str", "python-str", "object", "category", "int"],
)
def test_query_id_dtypes_give_same_values(query: pd.Series) -> None:
    """Query ids of any dtype give the same per-query values; the index holds the ids themselves."""
    result = pdireval.evaluate(_with_query(query), ["AP", "RR"])
    assert set(result.index) == set(query)
    assert result.index.name == "query"
    by_id = {str(qid): ap for qid, ap in result["AP"].items()}
    assert by_id == {"10": 0.5, "9": 1.0, "2": 0.0}
    assert result["RR"].to_dict() == result["AP"].to_dict()


def test_integer_query_ids_sorted_numerically() -> None:
    """Integer ids sort as numbers and keep their integer dtype in the index."""
    result = pdireval.evaluate(_with_query([10, 10, 9, 9, 2]), "AP")
    assert result.index.tolist() == [2, 9, 10]
    assert pd.api.types.is_integer_dtype(result.index.dtype)


def test_unused_categories_are_not_queries() -> None:
    """Unused categories of a categorical query column are not reported, even with queries='all'."""
    query = pd.Categorical(_IDS, categories=["10", "9", "2", "77"])
    result = pdireval.evaluate(_with_query(query), "AP", queries="all")
    assert sorted(result.index.astype(str)) == ["10", "2", "9"]


# --- merge_qrels errors -----------------------------------------------------------------------


def _run() -> pd.DataFrame:
    return pd.DataFrame({"query": ["q1", "q1"], "doc": ["a", "b"], "score": [2.0, 1.0]})


def _qrels() -> pd.DataFrame:
    return pd.DataFrame({"query": ["q1", "q1"], "doc": ["b", "c"], "rel": [1, 2]})


def test_merge_qrels_duplicate_judgment() -> None:
    """A (query, doc) judged twice is refused, naming the pair, the count and the fix."""
    qrels = pd.concat([_qrels(), _qrels().iloc[[1]].assign(rel=0)], ignore_index=True)
    with pytest.raises(SchemaError, match=r"judge \('q1', 'c'\) more than once") as info:
        pdireval.merge_qrels(_run(), qrels)
    assert "1 duplicate judgment" in str(info.value)
    assert "keep one label" in str(info.value)


@pytest.mark.parametrize("column", ["rel", "label", "relevance"])
def test_merge_qrels_run_already_has_labels(column: str) -> None:
    """A run that already has a relevance column (or a synonym) is refused, naming it."""
    with pytest.raises(SchemaError, match=f"already has a column '{column}'") as info:
        pdireval.merge_qrels(_run().assign(**{column: 0}), _qrels())
    assert "drop or rename" in str(info.value)


@pytest.mark.parametrize("side", ["run", "qrels"])
@pytest.mark.parametrize("role", ["query", "doc"])
def test_merge_qrels_numeric_vs_string_ids(side: str, role: str) -> None:
    """Numeric ids on one side and strings on the other would never match: refused with the fix."""
    run, qrels = _run(), _qrels()
    if side == "run":
        run = run.assign(**{role: [1, 2]})
    else:
        qrels = qrels.assign(**{role: [1, 2]})
    with pytest.raises(SchemaError, match=f"{role} ids are .* in the run but .* in the qrels") as e:
        pdireval.merge_qrels(run, qrels)
    assert "int64" in str(e.value)
    assert ".astype(str)" in str(e.value)


def test_merge_qrels_categorical_numeric_vs_string_ids() -> None:
    """Integer ids stored as a categorical against string ids are refused like plain integers."""
    run = pd.DataFrame({"query": ["1", "1"], "doc": ["a", "b"], "rank": [1, 2]})
    qrels = pd.DataFrame({"query": pd.Categorical([1, 1]), "doc": ["b", "c"], "rel": [1, 1]})
    with pytest.raises(SchemaError, match="query ids"):
        pdireval.merge_qrels(run, qrels)


def test_merge_qrels_qrels_without_rel() -> None:
    """Qrels without a label column are refused, naming the missing role."""
    with pytest.raises(SchemaError, match="column 'rel'"):
        pdireval.merge_qrels(_run(), _qrels().drop(columns="rel"))


def test_merge_qrels_fractional_labels() -> None:
    """Fractional qrels labels are kept by merge_qrels; evaluating them needs a threshold."""
    merged = pdireval.merge_qrels(_run(), _qrels().assign(rel=[0.5, 1.0]))
    with pytest.raises(SchemaError, match="whole numbers"):
        pdireval.evaluate(merged, "AP")
    with pytest.raises(SchemaError, match="finite"):
        pdireval.merge_qrels(_run(), _qrels().assign(rel=[np.inf, 1.0]))


@pytest.mark.parametrize("bad", [0, -3, 2.5, True, "10"])
def test_bad_max_rank(bad: object) -> None:
    """max_rank= must be a whole number >= 1; the message shows the value."""
    with pytest.raises(ParameterError, match=r"max_rank=.* must be a whole number >= 1"):
        pdireval.evaluate(_frame(), "AP", max_rank=bad)


@pytest.mark.parametrize("side", ["run", "qrels"])
def test_merge_qrels_refuses_missing_ids(side: str) -> None:
    """A missing doc id in either input of merge_qrels is refused, naming the column."""
    run = pd.DataFrame({"query": ["q1", "q1"], "doc": ["a", "b"], "rank": [1, 2]})
    qrels = pd.DataFrame({"query": ["q1", "q1"], "doc": ["b", "c"], "rel": [1, 0]})
    if side == "run":
        run.loc[1, "doc"] = None
    else:
        qrels.loc[0, "doc"] = None
    with pytest.raises(SchemaError, match=r"column 'doc' \(doc ids\) has 1 missing value"):
        pdireval.merge_qrels(run, qrels)


# --- metrics that cannot be computed from what the frame holds --------------------------------


def _graded(labels: list[int]) -> pd.DataFrame:
    n = len(labels)
    return pd.DataFrame(
        {"query": "q", "doc": [f"d{i}" for i in range(n)], "rank": range(1, n + 1), "rel": labels}
    )


def test_metrics_argument_of_the_wrong_kind() -> None:
    with pytest.raises(MetricError, match=r"metrics must be a name .* got int 42"):
        pdireval.evaluate(_graded([1, 0]), 42)  # type: ignore[arg-type]


def test_exponential_gain_beyond_float_range_is_refused() -> None:
    with pytest.raises(MetricError, match=r"gain='exp' .* label 5000"):
        pdireval.evaluate(_graded([5000, 1, 0]), "nDCG(gain='exp')")
    value = pdireval.evaluate(_graded([1023, 0]), "nDCG(gain='exp')").iloc[0, 0]
    assert value == 1.0  # the largest label that still fits


def test_err_with_large_grades_stays_finite() -> None:
    """R = (2^g - 1) / 2^g_max never overflows: a top grade at rank 1 stops the user. On
    the default 0..4 scale grade 5000 counts as 4: R = 15/16, then 1/16 at rank 2."""
    names = ["ERR(max_label='query')", "ERR(max_label=2000)", "ERR"]
    table = pdireval.evaluate(_graded([5000, 1, 0]), names)
    expected = [[1.0, 1.0, 15 / 16 + (1 / 16) * (1 / 16) / 2]]
    np.testing.assert_allclose(table.to_numpy(), expected, rtol=0, atol=1e-12)


def test_infinite_gain_in_a_mapping_is_refused() -> None:
    with pytest.raises(MetricError, match=r"gains must be finite"):
        pdireval.metrics.nDCG(gain={0: 0, 1: float("inf")})


def test_fallout_collection_smaller_than_the_documents_seen() -> None:
    with pytest.raises(MetricError, match=r"Fallout\(n_docs=2\) is smaller than the 3"):
        pdireval.evaluate(_graded([1, 1, 0]), "Fallout(n_docs=2)")


def test_interpolated_average_precision_levels_are_bounded() -> None:
    """A huge number of recall levels is refused at once instead of running for minutes."""
    with pytest.raises(MetricError, match=r"at most 10001 recall levels"):
        pdireval.parse_metric("iAP(points=100000000)")
    fine = pdireval.evaluate(_graded([1, 0, 1]), ["iAP(points=10001)", "iAP"])
    assert fine.iloc[0, 0] == pytest.approx(fine.iloc[0, 1], abs=0.01)


def test_floating_point_trouble_in_a_kernel_is_an_error_not_a_warning() -> None:
    """Any overflow left in a kernel surfaces as a MetricError naming the metric."""
    huge = pdireval.metrics.DCG(gain={0: 0, 1: 1e308})
    with pytest.raises(
        MetricError, match=r"DCG\(gain=.*(failed in floating point|returned an infinite value)"
    ):
        pdireval.evaluate(_graded([1, 1, 1]), huge)
