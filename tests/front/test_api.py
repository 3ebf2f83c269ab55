"""Typed functions and the .ireval accessor: columns, results, query sets, ranking, aggregates."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import pdireval
from pdireval import ColumnMap, IREvalAccessor


def _frame() -> pd.DataFrame:
    """Hand-made frame; per query AP / RR / P@2 / NumRel:

    * q1: a (rank 1, rel 0), b (rank 2, rel 1), c judged rel 1, not retrieved
      -> AP = (1/2) / 2 = 0.25, RR = 0.5, P@2 = 0.5, NumRel = 2
    * q2: a (rank 1, rel 2), b (rank 2, rel 0)
      -> AP = 1, RR = 1, P@2 = 0.5, NumRel = 1
    * q10: a (rank 1, rel 0), b (rank 2, rel 0), c (rank 3, rel 1)
      -> AP = 1/3, RR = 1/3, P@2 = 0, NumRel = 1
    """
    return pd.DataFrame(
        {
            "query": ["q2", "q2", "q1", "q1", "q1", "q10", "q10", "q10"],
            "doc": ["a", "b", "a", "b", "c", "a", "b", "c"],
            "rank": [1, 2, 1, 2, np.nan, 1, 2, 3],
            "rel": [2, 0, 0, 1, 1, 0, 0, 1],
        }
    )


EXPECTED = {
    "AP": {"q1": 0.25, "q10": 1 / 3, "q2": 1.0},
    "RR": {"q1": 0.5, "q10": 1 / 3, "q2": 1.0},
    "P@2": {"q1": 0.5, "q10": 0.0, "q2": 0.5},
    "NumRel": {"q1": 2.0, "q10": 1.0, "q2": 1.0},
}


def _with_runs() -> pd.DataFrame:
    """Run "bm25" is _frame(); run "dense" ranks a relevant doc first in every query, so its RR
    is 1 everywhere and its AP 1, except on q1 (c not retrieved): AP = (1/1) / 2 = 1/2."""
    dense = _frame().assign(rank=[1, 2, 2, 1, np.nan, 2, 3, 1])
    return pd.concat([_frame().assign(run="bm25"), dense.assign(run="dense")], ignore_index=True)


# --- result shape -----------------------------------------------------------------------------


def test_evaluate_hand_computed_values() -> None:
    """Per-query values match the hand computation in _frame's docstring."""
    result = pdireval.evaluate(_frame(), list(EXPECTED))
    for label, values in EXPECTED.items():
        assert result[label].to_dict() == pytest.approx(values)


def test_result_layout() -> None:
    """Columns are canonical labels named "metric", values float64, index the sorted query ids."""
    result = pdireval.evaluate(_frame(), ["map", "recip_rank", "P_2", "num_rel"])
    assert result.columns.tolist() == ["AP", "RR", "P@2", "NumRel"]
    assert result.columns.name == "metric"
    assert (result.dtypes == np.float64).all()
    assert result.index.tolist() == ["q1", "q10", "q2"]  # sorted as strings
    assert result.index.name == "query"
    assert not isinstance(result.index, pd.MultiIndex)


def test_index_named_like_mapped_query_column() -> None:
    """With query="topic", the index is named "topic"."""
    frame = _frame().rename(columns={"query": "topic"})
    result = frame.ireval(query="topic").evaluate("AP")
    assert result.index.name == "topic"
    assert result["AP"].to_dict() == pytest.approx(EXPECTED["AP"])


def test_single_metric_string_gives_one_column_frame() -> None:
    """A single name still gives a DataFrame (one column), never a Series or a float."""
    result = pdireval.evaluate(_frame(), "AP")
    assert isinstance(result, pd.DataFrame)
    assert result.columns.tolist() == ["AP"]


def test_run_column_gives_run_query_multiindex() -> None:
    """With a run column the index is (run, query), sorted, named after both columns."""
    result = pdireval.evaluate(_with_runs(), ["AP", "RR"])
    assert isinstance(result.index, pd.MultiIndex)
    assert list(result.index.names) == ["run", "query"]
    assert result.index.tolist() == [
        ("bm25", "q1"),
        ("bm25", "q10"),
        ("bm25", "q2"),
        ("dense", "q1"),
        ("dense", "q10"),
        ("dense", "q2"),
    ]
    assert result.loc["bm25", "AP"].to_dict() == pytest.approx(EXPECTED["AP"])
    assert result.loc["dense", "AP"].tolist() == [0.5, 1.0, 1.0]
    assert result.loc["dense", "RR"].tolist() == [1.0, 1.0, 1.0]


def test_summary_with_runs_is_run_by_metric_frame() -> None:
    """summary with a run column: DataFrame, one row per run, one column per label."""
    result = pdireval.summary(_with_runs(), ["AP", "RR"])
    assert isinstance(result, pd.DataFrame)
    assert result.index.tolist() == ["bm25", "dense"]
    assert result.index.name == "run"
    assert result.columns.tolist() == ["AP", "RR"]
    assert (result.dtypes == np.float64).all()
    assert result.loc["bm25", "AP"] == pytest.approx((0.25 + 1 / 3 + 1.0) / 3)
    assert result.loc["dense", "AP"] == pytest.approx((0.5 + 1.0 + 1.0) / 3)
    assert result.loc["dense", "RR"] == pytest.approx(1.0)


def test_summary_without_runs_is_series_by_label() -> None:
    """summary without a run column: a float64 Series indexed by label."""
    result = pdireval.summary(_frame(), ["AP", "P@2"])
    assert isinstance(result, pd.Series)
    assert result.index.tolist() == ["AP", "P@2"]
    assert result.dtype == np.float64
    assert result["AP"] == pytest.approx((0.25 + 1 / 3 + 1.0) / 3)
    assert result["P@2"] == pytest.approx(1 / 3)


def test_summary_equals_mean_of_evaluate() -> None:
    """Summaries are computed from the per-query table."""
    metrics = ["AP", "nDCG@2", "R@2", "Bpref"]
    table = pdireval.evaluate(_with_runs(), metrics)
    pd.testing.assert_frame_equal(
        pdireval.summary(_with_runs(), metrics),
        table.groupby(level="run").mean(),
        check_names=False,
    )


# --- columns: mapping, synonyms, defaults -------------------------------------------------------


def test_typed_function_equals_accessor_with_mapping() -> None:
    """pdireval.evaluate(df, m, columns={...}) == df.ireval(**mapping).evaluate(m)."""
    frame = _with_runs().rename(
        columns={"query": "topic", "doc": "docid", "rank": "pos", "rel": "grade", "run": "sys"}
    )
    mapping = {"query": "topic", "doc": "docid", "rank": "pos", "rel": "grade", "run": "sys"}
    metrics = ["AP", "nDCG@2", "P@1"]
    typed = pdireval.evaluate(frame, metrics, columns=mapping)
    accessor = frame.ireval(**mapping).evaluate(metrics)
    pd.testing.assert_frame_equal(typed, accessor)
    pd.testing.assert_frame_equal(
        typed, pdireval.evaluate(frame, metrics, columns=ColumnMap(**mapping))
    )
    assert list(typed.index.names) == ["sys", "topic"]
    plain = pdireval.evaluate(_with_runs(), metrics)
    np.testing.assert_array_equal(typed.to_numpy(), plain.to_numpy())


def test_accessor_mapping_can_be_chained() -> None:
    """df.ireval(query=...)(rel=...) keeps both mappings."""
    frame = _frame().rename(columns={"query": "topic", "rel": "grade"})
    chained = frame.ireval(query="topic")(rel="grade").evaluate("AP")
    assert chained["AP"].to_dict() == pytest.approx(EXPECTED["AP"])


@pytest.mark.parametrize(
    "names",
    [
        {"query": "qid", "doc": "docno", "rel": "relevance", "run": "system"},
        {"query": "query_id", "doc": "doc_id", "rel": "label", "run": "system"},
        {"query": "qid", "doc": "doc_id", "rel": "label", "run": "system"},
    ],
)
def test_synonyms_are_recognised(names: dict[str, str]) -> None:
    """Ecosystem spellings are found without any mapping; the index takes their names."""
    frame = _with_runs().rename(columns=names)
    result = frame.ireval.evaluate(["AP"])
    assert list(result.index.names) == [names["run"], names["query"]]
    expected = pdireval.evaluate(_with_runs(), ["AP"])
    np.testing.assert_array_equal(result.to_numpy(), expected.to_numpy())


def test_default_column_wins_over_synonym() -> None:
    """`query` beats `qid` and `rel` beats `label`: the synonyms' contents are ignored."""
    frame = _frame().assign(qid="one", label=[9, 9, 9, 9, 9, 9, 9, 9], docno="same")
    result = frame.ireval.evaluate(["AP", "NumRel"])
    assert result.index.tolist() == ["q1", "q10", "q2"]
    assert result["NumRel"].to_dict() == EXPECTED["NumRel"]


def test_explicit_mapping_wins_over_default() -> None:
    """An explicit role mapping uses the named column even when the default one exists."""
    frame = _frame()
    frame["topic"] = frame["query"].map({"q1": "t1", "q10": "t10", "q2": "t2"})
    result = frame.ireval(query="topic").evaluate("NumRel")
    assert result.index.tolist() == ["t1", "t10", "t2"]
    assert result["NumRel"].tolist() == [2.0, 1.0, 1.0]


def test_pyterrier_frame_with_query_text() -> None:
    """A PyTerrier frame (text in `query`, id in `qid`) is evaluated by mapping query="qid"."""
    frame = _frame().rename(columns={"query": "qid"})
    frame["query"] = "text of " + frame["qid"]
    frame = frame.rename(columns={"doc": "docno", "rel": "label"})
    result = frame.ireval(query="qid").evaluate("AP")
    assert result.index.name == "qid"
    assert result["AP"].to_dict() == pytest.approx(EXPECTED["AP"])


# --- the accessor is a stateless shell ----------------------------------------------------------


def test_accessor_call_returns_new_accessor_without_state() -> None:
    """df.ireval(query="qid") is a new accessor; df.ireval afterwards uses the defaults again."""
    frame = _frame()
    frame["qid"] = "t-" + frame["query"]
    plain = frame.ireval
    mapped = plain(query="qid")
    assert isinstance(plain, IREvalAccessor)
    assert isinstance(mapped, IREvalAccessor)
    assert mapped is not plain
    assert mapped.evaluate("NumRet").index.tolist() == ["t-q1", "t-q10", "t-q2"]
    assert plain.evaluate("NumRet").index.tolist() == ["q1", "q10", "q2"]
    assert frame.ireval.evaluate("NumRet").index.tolist() == ["q1", "q10", "q2"]


def test_accessor_has_no_instance_dict() -> None:
    """The accessor cannot hold extra state (slots only)."""
    accessor = _frame().ireval
    with pytest.raises(AttributeError):
        accessor.cache = {}


def test_accessor_sees_current_frame() -> None:
    """Nothing is cached between accesses: a changed frame gives changed results."""
    frame = _frame()
    before = frame.ireval.evaluate("NumRel")["NumRel"].sum()
    frame.loc[frame["rel"] == 0, "rel"] = 1
    after = frame.ireval.evaluate("NumRel")["NumRel"].sum()
    assert (before, after) == (4.0, 8.0)


# --- query policies -----------------------------------------------------------------------------


def _policy_frame() -> pd.DataFrame:
    """q1 retrieved and judged; q2 judged (2 relevant) but retrieved nothing; q3 retrieved but
    unjudged; q4 judged only with a negative label (pooled, unjudged) and retrieved nothing."""
    return pd.DataFrame(
        {
            "query": ["q1", "q1", "q1", "q2", "q2", "q2", "q3", "q3", "q4"],
            "doc": ["a", "b", "c", "x", "y", "z", "a", "b", "w"],
            "rank": [1, 2, np.nan, np.nan, np.nan, np.nan, 1, 2, np.nan],
            "rel": [0, 1, 1, 1, 2, 0, np.nan, np.nan, -1],
        }
    )


def test_judged_policy_is_default_and_scores_empty_queries_zero() -> None:
    """queries="judged" (default): every judged query, those retrieving nothing valued 0;
    NumRel still counts the relevant documents of such a query."""
    metrics = ["AP", "nDCG@5", "P@1", "NumRel", "NumRet"]
    result = pdireval.evaluate(_policy_frame(), metrics)
    pd.testing.assert_frame_equal(
        result, pdireval.evaluate(_policy_frame(), metrics, queries="judged")
    )
    assert result.index.tolist() == ["q1", "q2", "q4"]  # q3 only in the run: excluded
    assert result.loc["q1", "AP"] == pytest.approx(0.25)
    assert result.loc["q2"].to_dict() == {
        "AP": 0.0,
        "nDCG@5": 0.0,
        "P@1": 0.0,
        "NumRel": 2.0,
        "NumRet": 0.0,
    }
    assert result.loc["q4", "NumRel"] == 0.0


def test_retrieved_policy_drops_queries_without_results() -> None:
    """queries="retrieved": only judged queries that retrieved something (plain trec_eval)."""
    result = pdireval.evaluate(_policy_frame(), ["AP", "NumRel"], queries="retrieved")
    assert result.index.tolist() == ["q1"]
    assert result.loc["q1", "NumRel"] == 2.0


def test_all_policy_adds_unjudged_queries_as_nan() -> None:
    """queries="all": also unjudged retrieved queries, with NaN values for every metric."""
    result = pdireval.evaluate(_policy_frame(), ["AP", "NumRet", "P@1"], queries="all")
    assert result.index.tolist() == ["q1", "q2", "q3", "q4"]
    assert result.loc["q3"].isna().all()
    assert result.loc[["q1", "q2", "q4"]].notna().all().all()
    assert result.loc["q2", "AP"] == 0.0


def test_all_policy_nan_is_skipped_by_summary() -> None:
    """NaN rows of unjudged queries do not enter the mean."""
    mean_all = pdireval.summary(_policy_frame(), "AP", queries="all")["AP"]
    mean_judged = pdireval.summary(_policy_frame(), "AP")["AP"]
    assert mean_all == pytest.approx(mean_judged)
    assert mean_judged == pytest.approx(0.25 / 3)


def test_policies_apply_per_run() -> None:
    """With runs, a (run, query) pair is judged only by its own rows."""
    frame = pd.concat(
        [
            _policy_frame().assign(run="r1"),
            pd.DataFrame(
                {"run": "r2", "query": ["q5"], "doc": ["a"], "rank": [1.0], "rel": [np.nan]}
            ),
        ],
        ignore_index=True,
    )
    judged = pdireval.evaluate(frame, "AP")
    assert judged.index.tolist() == [("r1", "q1"), ("r1", "q2"), ("r1", "q4")]
    everything = pdireval.evaluate(frame, "AP", queries="all")
    assert np.isnan(everything.loc[("r2", "q5"), "AP"])


# --- ranking ------------------------------------------------------------------------------------


def _scored(docs: list, scores: list[float], rels: list[float]) -> pd.DataFrame:
    return pd.DataFrame({"query": "q", "doc": docs, "score": scores, "rel": rels})


def test_score_ranks_descending() -> None:
    """Without a rank column, the highest score is rank 1: order b, c, a -> RR = 1/3."""
    frame = _scored(["a", "b", "c"], [0.1, 0.9, 0.5], [1, 0, 0])
    result = pdireval.evaluate(frame, ["RR", "P@1", "AP"])
    assert result.loc["q"].tolist() == pytest.approx([1 / 3, 0.0, 1 / 3])


@pytest.mark.parametrize(
    ("docs", "rels", "rr"),
    [
        (["d10", "d9"], [1, 0], 0.5),  # "d9" > "d10": d9 first, the relevant d10 second
        (["d10", "d9"], [0, 1], 1.0),
        (["d9", "d10"], [0, 1], 0.5),
        (["a", "b", "c"], [1, 0, 0], 1 / 3),  # c, b, a
        (["b", "c", "a"], [0, 0, 1], 1 / 3),  # row order does not matter
    ],
)
def test_score_ties_broken_by_doc_id_descending_as_strings(docs, rels, rr) -> None:
    """Equal scores are ordered by doc id descending as strings (trec_eval's rule)."""
    frame = _scored(docs, [1.0] * len(docs), rels)
    assert pdireval.evaluate(frame, "RR")["RR"].tolist() == pytest.approx([rr])


def test_ties_only_reorder_within_equal_scores() -> None:
    """x scores highest, then the tie d9 > d10, then e: with d10 relevant, RR = 1/3."""
    frame = _scored(["d10", "e", "x", "d9"], [1.0, 0.5, 2.0, 1.0], [1, 0, 0, 0])
    assert pdireval.evaluate(frame, "RR")["RR"].tolist() == pytest.approx([1 / 3])


@pytest.mark.parametrize(
    "docs",
    [
        pd.Series([10, 9], dtype="int64"),
        pd.Series([10, 9], dtype="Int64"),
        pd.Categorical([10, 9]),
        pd.Series(["10", "9"], dtype="str"),
        pd.Categorical(["d10", "d9"], categories=["d9", "d10"]),
    ],
    ids=["int64", "Int64", "category-int", "str", "category-order"],
)
def test_tied_ids_compared_as_strings_whatever_the_dtype(docs) -> None:
    """Tied docs 10 and 9 (or d10/d9): "9" > "10" as strings, so 9 comes first.
    With 10 relevant, RR = 1/2."""
    frame = _scored(list(range(2)), [1.0, 1.0], [1, 0]).assign(doc=docs)
    assert pdireval.evaluate(frame, "RR")["RR"].tolist() == [0.5]


def test_tied_object_integer_ids_compared_as_strings() -> None:
    """Object-dtype integer doc ids tie-break as strings like every other dtype."""
    frame = _scored([10, 9], [1.0, 1.0], [1, 0])
    frame["doc"] = frame["doc"].astype(object)
    assert pdireval.evaluate(frame, "RR")["RR"].tolist() == [0.5]


def test_rank_column_wins_over_score() -> None:
    """With both columns the rank is used: scores that rank a last are ignored."""
    frame = _scored(["a", "b", "c"], [0.1, 0.2, 0.3], [1, 0, 0]).assign(rank=[1, 2, 3])
    assert pdireval.evaluate(frame, "RR")["RR"].tolist() == [1.0]
    assert pdireval.evaluate(frame.drop(columns="rank"), "RR")["RR"].tolist() == [
        pytest.approx(1 / 3)
    ]


def test_missing_rank_means_judged_not_retrieved() -> None:
    """A relevant doc without a rank counts in NumRel and lowers recall, but is not retrieved."""
    frame = pd.DataFrame(
        {"query": "q", "doc": ["a", "b", "c"], "rank": [1, 2, np.nan], "rel": [1, 0, 1]}
    )
    result = pdireval.evaluate(frame, ["NumRet", "NumRel", "NumRelRet", "R@10", "AP"])
    assert result.loc["q"].to_dict() == {
        "NumRet": 2.0,
        "NumRel": 2.0,
        "NumRelRet": 1.0,
        "R@10": 0.5,
        "AP": 0.5,
    }


def test_missing_score_means_judged_not_retrieved() -> None:
    """Without a rank column, a missing score marks a judged but unretrieved document."""
    frame = _scored(["a", "b", "c"], [1.0, 0.5, np.nan], [1, 0, 1])
    result = pdireval.evaluate(frame, ["NumRet", "NumRel", "AP"])
    assert result.loc["q"].tolist() == [2.0, 2.0, 0.5]


def test_rank_gaps_only_give_the_order() -> None:
    """Ranks 1, 5, 9 behave like 1, 2, 3 (documented decision: ranks are an order, and
    positions are counted from them)."""
    metrics = ["P@3", "P@2", "RR", "AP", "nDCG@3", "Success@2", "R@2"]
    base = pd.DataFrame({"query": "q", "doc": ["a", "b", "c"], "rel": [0, 0, 1]})
    gapped = pdireval.evaluate(base.assign(rank=[1, 5, 9]), metrics)
    dense = pdireval.evaluate(base.assign(rank=[1, 2, 3]), metrics)
    pd.testing.assert_frame_equal(gapped, dense)
    assert gapped.loc["q", "RR"] == pytest.approx(1 / 3)
    assert gapped.loc["q", "P@3"] == pytest.approx(1 / 3)


def test_validate_false_gives_same_values() -> None:
    """validate=False skips the checks only: a valid frame gives the same table."""
    frame = _with_runs()
    pd.testing.assert_frame_equal(
        pdireval.evaluate(frame, list(EXPECTED), validate=False),
        pdireval.evaluate(frame, list(EXPECTED)),
    )


def test_unsorted_rows_are_ranked() -> None:
    """Row order does not matter: a shuffled frame gives the same table."""
    frame = _frame()
    shuffled = frame.sample(frac=1, random_state=3)
    pd.testing.assert_frame_equal(
        pdireval.evaluate(frame, list(EXPECTED)), pdireval.evaluate(shuffled, list(EXPECTED))
    )


# --- aggregates ---------------------------------------------------------------------------------


def _three_queries() -> pd.DataFrame:
    """AP (and RR) per query: q1 = 1, q2 = 1/2, q3 = 0 (its relevant doc was not retrieved)."""
    return pd.DataFrame(
        {
            "query": ["q1", "q2", "q2", "q3", "q3"],
            "doc": ["a", "a", "b", "a", "b"],
            "rank": [1, 1, 2, 1, np.nan],
            "rel": [1, 0, 1, 0, 1],
        }
    )


@pytest.mark.parametrize(
    ("agg", "expected"),
    [
        ("mean", 0.5),
        ("gmean", (1.0 * 0.5 * 1e-5) ** (1 / 3)),  # 0 floored at 1e-5 (trec_eval gm_map)
        ("hmean", 0.0),  # any zero makes the harmonic mean 0
        ("median", 0.5),
    ],
)
def test_aggregates_hand_computed(agg: str, expected: float) -> None:
    """summary(agg=...) over per-query values 1, 1/2, 0."""
    result = pdireval.summary(_three_queries(), ["AP", "RR"], agg=agg)
    assert result.name == agg
    assert result.tolist() == pytest.approx([expected, expected])


def test_aggregates_without_zero() -> None:
    """Over 1 and 1/2: gmean sqrt(1/2), hmean 2 / (1 + 2) = 2/3."""
    frame = _three_queries().query("query != 'q3'")
    assert pdireval.summary(frame, "AP", agg="gmean")["AP"] == pytest.approx(np.sqrt(0.5))
    assert pdireval.summary(frame, "AP", agg="hmean")["AP"] == pytest.approx(2 / 3)
    assert pdireval.summary(frame, "AP", agg="median")["AP"] == pytest.approx(0.75)


def test_gmean_floor_changes_result() -> None:
    """gmap floors a 0 at 1e-5: over 1 and 0 it is sqrt(1e-5), not 0."""
    frame = pd.DataFrame(
        {"query": ["q1", "q2"], "doc": ["a", "a"], "rank": [1, np.nan], "rel": [1, 1]}
    )
    # q1 = 1, q2 = 0 -> sqrt(1 * 1e-5)
    assert pdireval.gmap(frame) == pytest.approx(np.sqrt(1e-5))


def test_aggregates_by_run() -> None:
    """gmean per run with runs: bm25 = (1/4 * 1/3 * 1)^(1/3), dense = (1/2 * 1 * 1)^(1/3)."""
    result = pdireval.summary(_with_runs(), "AP", agg="gmean")
    assert result["AP"].tolist() == pytest.approx([(0.25 / 3) ** (1 / 3), 0.5 ** (1 / 3)])


# --- shortcuts ----------------------------------------------------------------------------------

SHORTCUTS = [
    ("ap", (), {}, "AP"),
    ("ap", (2,), {}, "AP@2"),
    ("ap", (), {"rel": 2}, "AP(rel=2)"),
    ("rr", (), {}, "RR"),
    ("rr", (1,), {}, "RR@1"),
    ("ndcg", (), {}, "nDCG"),
    ("ndcg", (2,), {}, "nDCG@2"),
    ("ndcg", (2,), {"gain": "exp"}, "nDCG(gain='exp')@2"),
    ("ndcg", (), {"discount": "jarvelin", "base": 3}, "nDCG(discount='jarvelin', base=3)"),
    ("dcg", (3,), {}, "DCG@3"),
    ("precision", (2,), {}, "P@2"),
    ("precision", (2,), {"rel": 2}, "P(rel=2)@2"),
    ("recall", (2,), {}, "R@2"),
    ("r_precision", (), {}, "Rprec"),
    ("success", (1,), {}, "Success@1"),
]


@pytest.mark.parametrize("frame_of", [_frame, _with_runs], ids=["no-run", "runs"])
@pytest.mark.parametrize(("name", "args", "kwargs", "label"), SHORTCUTS)
def test_shortcuts_equal_evaluate_column(frame_of, name, args, kwargs, label) -> None:
    """pdireval.x(df, ...) and df.ireval.x(...) equal the column `label` of evaluate."""
    frame = frame_of()
    expected = pdireval.evaluate(frame, label)[label]
    typed = getattr(pdireval, name)(frame, *args, **kwargs)
    via_accessor = getattr(frame.ireval, name)(*args, **kwargs)
    pd.testing.assert_series_equal(typed, expected)
    pd.testing.assert_series_equal(via_accessor, expected)


def test_shortcuts_pass_options() -> None:
    """columns= and queries= reach the shortcut's evaluation."""
    frame = _policy_frame().rename(columns={"query": "topic"})
    result = pdireval.ap(frame, columns={"query": "topic"}, queries="all")
    assert result.index.tolist() == ["q1", "q2", "q3", "q4"]
    assert np.isnan(result["q3"])
    accessor = frame.ireval(query="topic").precision(1, queries="retrieved")
    assert accessor.index.tolist() == ["q1"]


@pytest.mark.parametrize(
    ("name", "label", "agg"),
    [("map", "AP", "mean"), ("mrr", "RR", "mean"), ("gmap", "AP", "gmean")],
)
def test_mean_shortcuts_float_without_run(name: str, label: str, agg: str) -> None:
    """map/mrr/gmap return a plain float equal to the summary, without a run column."""
    frame = _three_queries()
    for value in (getattr(pdireval, name)(frame), getattr(frame.ireval, name)()):
        assert type(value) is float
        assert value == pytest.approx(pdireval.summary(frame, label, agg=agg)[label])


@pytest.mark.parametrize(
    ("name", "label", "agg"),
    [("map", "AP", "mean"), ("mrr", "RR", "mean"), ("gmap", "AP", "gmean")],
)
def test_mean_shortcuts_one_number_per_run(name: str, label: str, agg: str) -> None:
    """map/mrr/gmap give a float for a frame with one run, and refuse several runs."""
    frame = _with_runs()
    expected = pdireval.summary(frame, label, agg=agg)[label]
    for run in ("bm25", "dense"):
        one = frame[frame["run"] == run]
        for value in (getattr(pdireval, name)(one), getattr(one.ireval, name)()):
            assert isinstance(value, float)
            assert value == expected[run]
    with pytest.raises(pdireval.SchemaError, match=r"holds 2 runs .*pdireval.summary"):
        getattr(pdireval, name)(frame)


def test_map_hand_computed_and_with_cutoff() -> None:
    """MAP of _frame = (1/4 + 1/3 + 1) / 3; MAP@2 drops q10's hit at rank 3."""
    assert pdireval.map(_frame()) == pytest.approx((0.25 + 1 / 3 + 1.0) / 3)
    assert pdireval.map(_frame(), 2) == pytest.approx((0.25 + 0.0 + 1.0) / 3)
    assert pdireval.mrr(_frame(), 2) == pytest.approx((0.5 + 0.0 + 1.0) / 3)


# --- merge_qrels -------------------------------------------------------------------------------


def _run() -> pd.DataFrame:
    return pd.DataFrame({"query": ["q1", "q1", "q2"], "doc": ["a", "b", "a"], "rank": [1, 2, 1]})


def _qrels() -> pd.DataFrame:
    """b relevant for q1, c (not retrieved) highly relevant; q3 judged only."""
    return pd.DataFrame(
        {"query": ["q1", "q1", "q3"], "doc": ["b", "c", "z"], "rel": [1, 2, 0], "iter": 0}
    )


def test_merge_qrels_attaches_labels_and_appends_unretrieved() -> None:
    """Run rows keep their order and get their labels (missing = unjudged); judged docs that
    were not retrieved follow with a missing rank; extra qrels columns are not carried over."""
    merged = pdireval.merge_qrels(_run(), _qrels())
    assert merged.columns.tolist() == ["query", "doc", "rank", "rel"]
    assert merged.index.equals(pd.RangeIndex(5))
    assert merged[["query", "doc"]].to_numpy().tolist() == [
        ["q1", "a"],
        ["q1", "b"],
        ["q2", "a"],
        ["q1", "c"],
        ["q3", "z"],
    ]
    assert merged["rel"].isna().tolist() == [True, False, True, False, False]
    assert merged["rel"].dropna().tolist() == [1, 2, 0]
    assert merged["rank"].isna().tolist() == [False, False, False, True, True]


def test_merge_qrels_keeps_integer_rank_as_nullable_int() -> None:
    """An int64 rank column becomes Int64 (not float) so ranks stay whole numbers."""
    merged = pdireval.merge_qrels(_run(), _qrels())
    assert merged["rank"].dtype == "Int64"
    assert merged["rank"].iloc[:3].tolist() == [1, 2, 1]
    assert merged["rel"].dtype == "Int64"


@pytest.mark.parametrize("dtype", ["uint64", "UInt64", "uint64[pyarrow]"])
def test_merge_qrels_keeps_64_bit_unsigned_ranks_exact(dtype) -> None:
    """Ranks of 2**63 and more do not fit Int64: the merged column is UInt64, the values
    are the run's, and the merged frame evaluates as the run with ``qrels=`` does."""
    ranks = np.array([2**63 + 7, 2**63 + 5, 3], dtype=np.uint64)
    run = pd.DataFrame(
        {"query": ["q1", "q1", "q2"], "doc": ["d1", "d2", "d1"], "rank": pd.Series(ranks)}
    ).astype({"rank": dtype})
    qrels = pd.DataFrame({"query": ["q1", "q1", "q2"], "doc": ["d1", "d3", "d1"], "rel": 1})
    merged = pdireval.merge_qrels(run, qrels)
    assert merged["rank"].dtype == "UInt64"
    assert merged["rank"].iloc[:3].tolist() == ranks.tolist()
    result = pdireval.evaluate(merged, ["AP", "RR"])
    # q1: d2 (rank 2**63 + 5) first, the relevant d1 second, the relevant d3 unretrieved
    assert result.to_numpy().tolist() == [[0.25, 0.5], [1.0, 1.0]]
    pd.testing.assert_frame_equal(result, pdireval.evaluate(run, ["AP", "RR"], qrels=qrels))


def test_merge_qrels_score_column() -> None:
    """A score column is kept; unretrieved rows have a missing score."""
    run = _run().drop(columns="rank").assign(score=[2.0, 1.0, 5.0])
    merged = pdireval.merge_qrels(run, _qrels())
    assert merged["score"].tolist()[:3] == [2.0, 1.0, 5.0]
    assert merged["score"].iloc[3:].isna().all()


def test_merge_qrels_result_evaluates() -> None:
    """Evaluating the merged frame counts the unretrieved relevant doc c: q1 AP = (1/2)/2."""
    result = pdireval.merge_qrels(_run(), _qrels()).ireval.evaluate(["AP", "NumRel", "NumRet"])
    assert result.index.tolist() == ["q1", "q3"]  # q2 is unjudged
    assert result.loc["q1"].tolist() == [0.25, 2.0, 2.0]
    assert result.loc["q3"].tolist() == [0.0, 0.0, 0.0]


def test_merge_qrels_applies_judgments_to_every_run() -> None:
    """With a run column, each run gets the labels and its own unretrieved judged rows."""
    run = pd.concat(
        [_run().assign(run="r1"), _run().iloc[[1]].assign(run="r2", rank=1)], ignore_index=True
    )
    merged = pdireval.merge_qrels(run, _qrels())
    assert merged.columns.tolist() == ["query", "doc", "rank", "run", "rel"]
    added = merged.iloc[len(run) :]
    pairs = sorted(zip(added["run"], added["query"], added["doc"], strict=True))
    assert pairs == [("r1", "q1", "c"), ("r1", "q3", "z"), ("r2", "q1", "c"), ("r2", "q3", "z")]
    assert added["rank"].isna().all()
    result = merged.ireval.evaluate("NumRel")
    assert result["NumRel"].to_dict() == {
        ("r1", "q1"): 2.0,
        ("r1", "q3"): 0.0,
        ("r2", "q1"): 2.0,
        ("r2", "q3"): 0.0,
    }


def test_merge_qrels_with_synonyms_and_mapping() -> None:
    """Synonym columns are found on both sides; the label column keeps the qrels' name."""
    run = _run().rename(columns={"query": "qid", "doc": "docno"})
    qrels = _qrels().rename(columns={"query": "query_id", "doc": "doc_id", "rel": "grade"})
    merged = pdireval.merge_qrels(run, qrels, qrels_columns={"rel": "grade"})
    assert merged.columns.tolist() == ["qid", "docno", "rank", "grade"]
    assert merged["grade"].dropna().tolist() == [1, 2, 0]


def test_merge_qrels_integer_ids() -> None:
    """Integer ids on both sides match."""
    run = pd.DataFrame({"query": [1, 1], "doc": [10, 9], "score": [1.0, 1.0]})
    qrels = pd.DataFrame({"query": [1, 1], "doc": [9, 7], "rel": [1, 1]})
    merged = pdireval.merge_qrels(run, qrels)
    assert merged["rel"].isna().tolist() == [True, False, False]
    assert merged["doc"].tolist() == [10, 9, 7]


def test_merge_qrels_matches_ids_stored_with_different_dtypes() -> None:
    """Integer ids as object dtype (or categorical) in the qrels match int64 ids in the run."""
    run = pd.DataFrame({"query": [1, 1, 2], "doc": [10, 11, 10], "rank": [1, 2, 1]})
    for query_ids in (pd.Series([1, 2], dtype=object), pd.Categorical([1, 2])):
        qrels = pd.DataFrame({"query": query_ids, "doc": [11, 12], "rel": [1, 1]})
        merged = pdireval.merge_qrels(run, qrels)
        assert merged["rel"].tolist()[:3] == [pd.NA, 1, pd.NA]
        assert len(merged) == 4  # doc 12 of query 2 appended once, not doc 11 again
        assert pdireval.evaluate(merged, "RR")["RR"].tolist() == [0.5, 0.0]


def test_merge_qrels_keeps_a_categorical_query_column() -> None:
    """A categorical id column of the run stays categorical, gaining the qrels-only ids."""
    run = pd.DataFrame({"query": pd.Categorical(["q1", "q1"]), "doc": ["a", "b"], "rank": [1, 2]})
    qrels = pd.DataFrame({"query": ["q1", "q2"], "doc": ["b", "c"], "rel": [1, 1]})
    merged = pdireval.merge_qrels(run, qrels)
    assert isinstance(merged["query"].dtype, pd.CategoricalDtype)
    assert merged["query"].tolist() == ["q1", "q1", "q2"]
    assert list(merged["query"].cat.categories) == ["q1", "q2"]


def test_merge_qrels_on_an_empty_run_with_a_run_column() -> None:
    """No run rows means no runs to apply the judgments to: the result is empty, not an error."""
    run = pd.DataFrame(
        {
            "run": pd.Series([], dtype="str"),
            "query": pd.Series([], dtype="str"),
            "doc": pd.Series([], dtype="str"),
            "rank": pd.Series([], dtype="int64"),
        }
    )
    qrels = pd.DataFrame({"query": ["q1"], "doc": ["a"], "rel": [1]})
    merged = pdireval.merge_qrels(run, qrels)
    assert len(merged) == 0
    assert list(merged.columns) == ["run", "query", "doc", "rank", "rel"]
    assert pdireval.evaluate(merged, "AP").shape == (0, 1)


@pytest.mark.parametrize("dtype", ["int64", "Int64", "Int8", "UInt8", "int64[pyarrow]"])
@pytest.mark.parametrize("ties", ["trec", "optimistic", "pessimistic"])
def test_integer_labels_of_any_storage_give_the_numbers_of_float_labels(dtype, ties) -> None:
    """Integer labels are read at the judged rows only: every storage must agree."""
    frame = pd.DataFrame(
        {
            "query": ["a"] * 4 + ["b"] * 3,
            "doc": list("wxyzuvw"),
            "score": [4.0, 3.0, 3.0, 1.0, 2.0, 1.0, np.nan],
            "rel": [1, None, 2, 0, None, 1, 3],
        }
    )
    if dtype == "int64":  # no missing value possible: every row judged
        frame = frame.dropna(subset=["rel"])
    metrics = ["AP", "nDCG@3", "P@2", "NumRel"]
    expected = pdireval.evaluate(frame.astype({"rel": "float64"}), metrics, ties=ties)
    result = pdireval.evaluate(frame.astype({"rel": dtype}), metrics, ties=ties)
    pd.testing.assert_frame_equal(result, expected)


# --- signatures -----------------------------------------------------------------------------------

EVALUATION_OPTIONS = {
    "queries": "judged",
    "ties": "trec",
    "max_rank": None,
    "judged_only": False,
    "ignore_self": False,
    "rel_threshold": None,
    "validate": True,
    "qrels": None,
    "qrels_columns": None,
}
SIGNIFICANCE_OPTIONS = {
    "baseline": None,
    "test": "t",
    "correction": "holm",
    "alpha": 0.05,
    "n_resamples": 10_000,
    "seed": None,
}


def _evaluating_functions() -> list[str]:
    import pdireval.api

    return [
        name
        for name in pdireval.api.__all__
        if getattr(pdireval.api, name).__module__ == "pdireval.api"
    ]


@pytest.mark.parametrize("name", _evaluating_functions())
def test_signatures_show_every_option_with_its_default(name: str) -> None:
    """help() and the API reference show the real keyword parameters, not ``**options``."""
    import inspect

    parameters = inspect.signature(getattr(pdireval, name)).parameters
    assert not [p for p in parameters.values() if p.kind is p.VAR_KEYWORD]
    expected = dict(EVALUATION_OPTIONS)
    if name in ("compare", "report"):
        expected |= SIGNIFICANCE_OPTIONS
    for option, default in expected.items():
        assert option in parameters, f"{name}() does not show {option}="
        assert parameters[option].kind is inspect.Parameter.KEYWORD_ONLY
        assert parameters[option].default == default


def test_options_defaults_are_those_of_the_options_objects() -> None:
    from pdireval._core.options import Evaluation, Significance

    evaluation = Evaluation()
    significance = Significance()
    for option, default in EVALUATION_OPTIONS.items():
        if option != "qrels_columns":
            assert getattr(evaluation, option) == default
    for option, default in SIGNIFICANCE_OPTIONS.items():
        assert getattr(significance, option) == default
