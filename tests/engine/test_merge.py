"""``merge_qrels`` attaches exactly the right labels, whatever the id dtypes and key clashes."""

from __future__ import annotations

import json
import warnings

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import pdireval
from pdireval._prepare import keys as _keys
from pdireval._prepare import stacked as _stacked
from pdireval._prepare.arrays import string_dtype

query_ids = st.sampled_from(["q1", "q2", "10", "9", ""])
doc_ids = st.text(alphabet="abé0", max_size=10)
STRING_DTYPES = ("str", "object", "category", "python")


def _as(series: pd.Series, dtype: str) -> pd.Series:
    return series.astype(pd.StringDtype("python") if dtype == "python" else dtype)


def _reference(run: pd.DataFrame, qrels: pd.DataFrame) -> tuple[list, list]:
    """Labels of the run rows, and the (query, doc, rel) of the judgments not retrieved."""
    label = {(q, d): r for q, d, r in zip(qrels["query"], qrels["doc"], qrels["rel"], strict=True)}
    pairs = list(zip(run["query"], run["doc"], strict=True))
    retrieved = set(pairs)
    missing = [(q, d, r) for (q, d), r in label.items() if (q, d) not in retrieved]
    return [label.get(pair) for pair in pairs], sorted(missing)


def _merged_or_refused(
    run: pd.DataFrame, qrels: pd.DataFrame, expected_labels: list
) -> pd.DataFrame | None:
    """merge_qrels' result, or None after checking that a run sharing no query or no
    document with its qrels is refused."""
    run_queries = set(run["query"].astype(str))
    qrels_queries = set(qrels["query"].astype(str))
    unrelated = len(run) > 0 and (
        not run_queries & qrels_queries or all(label is None for label in expected_labels)
    )
    if unrelated:
        with pytest.raises(pdireval.SchemaError, match="none of the run's"):
            pdireval.merge_qrels(run, qrels)
        return None
    return pdireval.merge_qrels(run, qrels)


@settings(max_examples=150, deadline=None)
@given(
    st.lists(st.tuples(query_ids, doc_ids), max_size=40, unique=True),
    st.lists(
        st.tuples(query_ids, doc_ids, st.integers(-1, 3)), max_size=25, unique_by=lambda t: t[:2]
    ),
    st.sampled_from(STRING_DTYPES),
    st.sampled_from(STRING_DTYPES),
    st.sampled_from(["table", "tiny table", "clashing pair keys"]),
)
def test_labels_match_a_dictionary_lookup(pairs, judgments, run_dtype, qrels_dtype, mode) -> None:
    """Any mix of string dtypes; a 2-slot doc table (most rows pass the filter) and pair keys
    that ignore the query (so they clash) exercise the exact checks and the fallback join."""
    run = pd.DataFrame(pairs, columns=["query", "doc"]).assign(score=np.arange(len(pairs), 0, -1.0))
    qrels = pd.DataFrame(judgments, columns=["query", "doc", "rel"])
    run = run.astype({"query": "str", "doc": "str"}) if len(run) else run
    expected_labels, expected_missing = _reference(run, qrels)
    run = run.assign(doc=_as(run["doc"], run_dtype), query=_as(run["query"], run_dtype))
    qrels = qrels.assign(doc=_as(qrels["doc"], qrels_dtype), query=_as(qrels["query"], qrels_dtype))
    patch = {
        "tiny table": ("_MAX_TABLE_BITS", 1),
        "clashing pair keys": ("_PAIR_MIX", np.uint64(0)),
    }
    name, value = patch.get(mode, ("_SPARE_BITS", _keys._SPARE_BITS))
    default = getattr(_keys, name)
    try:
        setattr(_keys, name, value)
        merged = _merged_or_refused(run, qrels, expected_labels)
    finally:
        setattr(_keys, name, default)
    if merged is None:
        return
    labels = (
        merged["rel"]
        .iloc[: len(run)]
        .astype(object)
        .where(merged["rel"].iloc[: len(run)].notna(), None)
    )
    assert labels.tolist() == expected_labels
    added = merged.iloc[len(run) :]
    found = sorted(
        zip(added["query"].astype(str), added["doc"].astype(str), added["rel"], strict=True)
    )
    assert found == [(str(q), str(d), r) for q, d, r in expected_missing]
    if run_dtype == "category":  # the run's codes and categories are kept, new ones appended
        for name in ("query", "doc"):
            kept = merged[name].cat.categories[: len(run[name].cat.categories)]
            assert kept.equals(run[name].cat.categories)
            codes = merged[name].cat.codes.iloc[: len(run)].to_numpy()
            np.testing.assert_array_equal(codes, run[name].cat.codes.to_numpy())
            assert merged[name].cat.categories.is_unique


@settings(max_examples=80, deadline=None)
@given(
    st.lists(st.tuples(st.integers(-3, 3), st.integers(-(2**40), 9)), max_size=30, unique=True),
    st.lists(
        st.tuples(st.integers(-3, 3), st.integers(-(2**40), 9), st.integers(0, 2)),
        max_size=20,
        unique_by=lambda t: t[:2],
    ),
    st.sampled_from(["int64", "int32", "Int64", "category"]),
)
def test_integer_ids_of_any_width_match(pairs, judgments, qrels_dtype) -> None:
    run = pd.DataFrame(pairs, columns=["query", "doc"], dtype="int64").assign(score=1.0)
    qrels = pd.DataFrame(judgments, columns=["query", "doc", "rel"], dtype="int64")
    expected_labels, expected_missing = _reference(run, qrels)
    if qrels_dtype == "int32":
        qrels = qrels.assign(doc=qrels["doc"].clip(-(2**31), 2**31 - 1))
        qrels = qrels.drop_duplicates(["query", "doc"])
        expected_labels, expected_missing = _reference(run, qrels)
    qrels = qrels.astype({"query": qrels_dtype, "doc": qrels_dtype})
    merged = _merged_or_refused(run, qrels, expected_labels)
    if merged is None:
        return
    labels = merged["rel"].iloc[: len(run)]
    assert labels.astype(object).where(labels.notna(), None).tolist() == expected_labels
    assert len(merged) - len(run) == len(expected_missing)


def test_the_run_frame_is_not_modified_by_hashing_integer_ids() -> None:
    run = pd.DataFrame({"query": [1, 1], "doc": [5, 6], "score": [2.0, 1.0]})
    qrels = pd.DataFrame({"query": [1], "doc": [6], "rel": [1]})
    before = run.copy()
    pdireval.merge_qrels(run, qrels).ireval.evaluate(["AP"])
    pd.testing.assert_frame_equal(run, before)


@pytest.mark.parametrize("dtype", ["float64", "mixed"])
def test_ids_without_keys_are_joined_directly(dtype: str) -> None:
    docs = [1.5, 2.5] if dtype == "float64" else [1, "b"]
    run = pd.DataFrame(
        {
            "query": ["q", "q"],
            "doc": pd.Series(docs, dtype=None if dtype == "float64" else object),
            "score": [2.0, 1.0],
        }
    )
    qrels = pd.DataFrame(
        {"query": ["q"], "doc": pd.Series(docs[1:], dtype=run["doc"].dtype), "rel": [1]}
    )
    merged = pdireval.merge_qrels(run, qrels)
    assert merged["rel"].tolist() == [pd.NA, 1]


def test_categorical_ids_without_keys_extend_their_categories() -> None:
    """Float categories have no 64-bit keys: looked up by value instead."""
    run = pd.DataFrame(
        {"query": ["q", "q"], "doc": pd.Categorical([1.5, 2.5]), "score": [2.0, 1.0]}
    )
    qrels = pd.DataFrame({"query": ["q", "q"], "doc": [2.5, 7.5], "rel": [1, 2]})
    merged = pdireval.merge_qrels(run, qrels)
    assert merged["doc"].tolist() == [1.5, 2.5, 7.5]
    assert merged["doc"].cat.categories.tolist() == [1.5, 2.5, 7.5]
    assert merged["rel"].tolist() == [pd.NA, 1, 2]


def test_a_run_sharing_no_query_with_the_qrels_is_refused() -> None:
    """The commonest id mistake (other ids, or text instead of ids) names both sides."""
    run = pd.DataFrame({"query": ["401", "402"], "doc": ["a", "b"], "score": [1.0, 2.0]})
    qrels = pd.DataFrame({"query": ["q401", "q402"], "doc": ["a", "b"], "rel": [1, 0]})
    with pytest.raises(
        pdireval.SchemaError,
        match=r"none of the run's queries is in the qrels \(the run has its 2 queries",
    ) as info:
        pdireval.merge_qrels(run, qrels)
    assert "'401'" in str(info.value)
    assert "'q401'" in str(info.value)


def test_a_run_sharing_no_document_with_the_qrels_is_refused() -> None:
    run = pd.DataFrame({"query": ["1", "1"], "doc": ["7", "8"], "score": [1.0, 2.0]})
    qrels = pd.DataFrame({"query": ["1", "1"], "doc": ["d7", "d8"], "rel": [1, 0]})
    with pytest.raises(pdireval.SchemaError, match=r"none of the run's documents") as info:
        pdireval.merge_qrels(run, qrels)
    assert "'7'" in str(info.value)
    assert "'d7'" in str(info.value)


def test_partial_overlap_is_recorded_on_the_merged_frame() -> None:
    run = pd.DataFrame(
        {"query": ["1", "1", "2", "3"], "doc": ["a", "b", "a", "c"], "score": [2.0, 1.0, 1.0, 1.0]}
    )
    qrels = pd.DataFrame({"query": ["1", "4"], "doc": ["a", "z"], "rel": [1, 1]})
    merged = pdireval.merge_qrels(run, qrels)
    assert merged.attrs["pdireval"]["queries"] == {
        "run": 3,
        "qrels": 2,
        "both": 1,
        "run_only": ("2", "3"),  # read-only; a list once through JSON
    }
    # The unjudged run queries are not evaluated under the default query policy.
    assert merged.ireval.evaluate("AP").index.tolist() == ["1", "4"]


def test_an_empty_run_is_not_an_overlap_error() -> None:
    run = pd.DataFrame({"query": pd.Series([], dtype=str), "doc": pd.Series([], dtype=str),
                        "score": pd.Series([], dtype=float)})  # fmt: skip
    qrels = pd.DataFrame({"query": ["1"], "doc": ["a"], "rel": [1]})
    assert pdireval.merge_qrels(run, qrels).ireval.evaluate("AP")["AP"].tolist() == [0.0]


@pytest.mark.parametrize("kind", ["float", "mixed"])
def test_overlap_of_ids_without_keys(kind: str) -> None:
    """Float or mixed ids (compared as Python objects) are counted and refused alike."""
    ids = [1.5, 2.5, 1.5, 3.5] if kind == "float" else [1, "b", 1, "c"]
    run = pd.DataFrame({"query": ids, "doc": ["a", "b", "c", "d"], "score": [4.0, 3, 2, 1]})
    qrels = pd.DataFrame({"query": [ids[0], ids[0], ids[1]], "doc": ["a", "z", "b"], "rel": 1})
    merged = pdireval.merge_qrels(run, qrels)
    assert merged.attrs["pdireval"]["queries"]["both"] == 2
    assert merged.attrs["pdireval"]["queries"]["run_only"] == (ids[3],)
    with pytest.raises(pdireval.SchemaError, match="the run has its 3 queries"):
        pdireval.merge_qrels(
            run, qrels.assign(query=[9.5, 9.5, 8.5] if kind == "float" else ["x"] * 3)
        )


def test_merge_record_is_read_only_shared_by_derived_frames_and_pickles() -> None:
    """The record holds the roles and the query overlap only -- nothing a later call
    trusts about the data -- and is shared, not deep-copied, by derived frames."""
    import copy
    import pickle

    run = pd.DataFrame({"query": ["q1", "q1", "q2"], "doc": ["a", "b", "a"], "score": 1.0})
    qrels = pd.DataFrame({"query": ["q1"], "doc": ["a"], "rel": [1]})
    merged = pdireval.merge_qrels(run, qrels)
    record = merged.attrs["pdireval"]
    assert set(record) == {"columns", "queries"}
    assert record["queries"]["both"] == 1
    assert list(record["queries"]["run_only"]) == ["q2"]
    for change in (
        lambda: record.__setitem__("queries", {}),
        lambda: record.update(columns={}),
        lambda: record["columns"].__setitem__("query", "doc"),
        lambda: record["queries"].pop("both"),
    ):
        with pytest.raises(TypeError, match="read-only"):
            change()
    derived = merged[merged["score"] > 0]
    assert derived.attrs["pdireval"] is record  # shared, not deep-copied by pandas
    assert copy.deepcopy(record) is record
    restored = pickle.loads(pickle.dumps(merged))
    assert type(restored.attrs["pdireval"]) is dict
    assert restored.attrs["pdireval"]["queries"]["run_only"] == ["q2"]
    assert pdireval.evaluate(restored, "AP").equals(pdireval.evaluate(merged, "AP"))


@pytest.mark.parametrize("dtype", ["str", "int64", "category"])
def test_a_merged_frame_is_checked_for_duplicates_every_time(
    dtype: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Nothing merge_qrels found is trusted later: each evaluation checks the frame in hand."""
    from pdireval._prepare import prepare as ranking

    run = pd.DataFrame({"query": [1, 1, 2], "doc": [10, 11, 10], "score": [2.0, 1.0, 1.0]})
    qrels = pd.DataFrame({"query": [1, 2], "doc": [10, 10], "rel": [1, 1]})
    run, qrels = run.astype({"query": dtype, "doc": dtype}), qrels.astype({"query": dtype})
    qrels = qrels.astype({"doc": dtype})
    merged = pdireval.merge_qrels(run, qrels)
    calls = []
    check = ranking.check_unique_docs
    monkeypatch.setattr(
        ranking, "check_unique_docs", lambda *a, **k: calls.append(1) or check(*a, **k)
    )
    pdireval.evaluate(merged, "AP")
    assert calls == [1]
    changed = merged.copy()
    changed.loc[1, "doc"] = changed.loc[0, "doc"]  # in place: query 1 now retrieves one doc twice
    with pytest.raises(pdireval.SchemaError, match=r"more than once|duplicate"):
        pdireval.evaluate(changed, "AP")


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_judged_rows_the_run_missed_get_missing_scores_in_the_run_dtype(dtype: str) -> None:
    run = pd.DataFrame({"query": ["q", "q"], "doc": ["a", "b"], "score": [2.0, 1.0]})
    run = run.astype({"score": dtype})
    qrels = pd.DataFrame({"query": ["q", "q"], "doc": ["a", "c"], "rel": [1, 1]})
    merged = pdireval.merge_qrels(run, qrels)
    assert merged["score"].dtype == np.dtype(dtype)
    assert merged["score"].isna().tolist() == [False, False, True]


@pytest.mark.parametrize("dtype", ["str", "int64", "category"])
def test_a_merged_frame_round_trips_through_parquet_with_its_record(dtype: str, tmp_path) -> None:
    run = pd.DataFrame({"query": [1, 1, 2], "doc": [10, 11, 10], "score": [2.0, 1.0, 1.0]})
    qrels = pd.DataFrame({"query": [1, 2], "doc": [12, 10], "rel": [1, 1]})
    run = run.astype({"query": dtype, "doc": dtype})
    qrels = qrels.astype({"query": dtype, "doc": dtype})
    merged = pdireval.merge_qrels(run, qrels)
    path = tmp_path / "merged.parquet"
    merged.to_parquet(path)  # pandas stores attrs as JSON: the record must be JSON
    restored = pd.read_parquet(path)
    assert restored.attrs["pdireval"]["queries"] == json.loads(
        json.dumps(merged.attrs["pdireval"]["queries"])
    )
    read_back, original = pdireval.evaluate(restored, "AP"), pdireval.evaluate(merged, "AP")
    assert read_back["AP"].tolist() == original["AP"].tolist()  # ids may come back in
    assert (
        read_back.index.astype(str).tolist() == original.index.astype(str).tolist()
    )  # a new dtype
    restored.loc[1, "doc"] = restored.loc[0, "doc"]
    with pytest.raises(pdireval.SchemaError, match="duplicate"):
        pdireval.evaluate(restored, "AP")


def _without_record(frame: pd.DataFrame) -> pd.DataFrame:
    plain = frame.copy()
    plain.attrs = {}
    return plain


@settings(max_examples=80, deadline=None)
@given(
    st.lists(
        st.tuples(st.sampled_from(["A", "B"]), query_ids, doc_ids),
        max_size=40,
        unique_by=lambda t: t,
    ),
    st.lists(
        st.tuples(query_ids, doc_ids, st.integers(-1, 3)),
        min_size=1,
        max_size=25,
        unique_by=lambda t: t[:2],
    ),
    st.sampled_from(["str", "object", "category"]),
    st.booleans(),
    st.randoms(use_true_random=False),
)
def test_evaluating_a_merged_frame_gives_the_numbers_of_a_fresh_copy(
    rows, judgments, dtype, with_runs, random
) -> None:
    random.shuffle(rows)
    run = pd.DataFrame(rows, columns=["run", "query", "doc"]).assign(
        score=[float(random.randint(0, 3)) for _ in rows]
    )
    if not with_runs:
        run = run.drop(columns="run").drop_duplicates(["query", "doc"])
    qrels = pd.DataFrame(judgments, columns=["query", "doc", "rel"])
    run = run.astype({"query": dtype, "doc": dtype})
    try:
        merged = pdireval.merge_qrels(run, qrels)
    except pdireval.SchemaError:
        return  # no overlap: refused (tested above)
    metrics = ["AP", "nDCG@5", "P@2", "NumRet"]
    for queries in ("judged", "all"):
        expected = pdireval.evaluate(_without_record(merged), metrics, queries=queries)
        assert pdireval.evaluate(merged, metrics, queries=queries).equals(expected)


@settings(max_examples=200, deadline=None)
@given(
    st.lists(st.text(alphabet="abé", max_size=3), max_size=12, unique=True),
    st.lists(st.text(alphabet="abé", max_size=3), max_size=20),
    st.sampled_from(["str", "object"]),
    st.integers(0, 3),
)
def test_positions_among_categories_are_exact_when_keys_collide(
    haystack: list, needles: list, dtype: str, modulus: int
) -> None:
    """Repeated needles are looked up once; needles whose keys clash with other values
    (keys taken from the length modulo ``modulus``; 0: one key per value) are placed by
    value."""

    def weak_keys(values: pd.Series) -> np.ndarray:
        if modulus == 0:
            return np.array(
                [sum(map(ord, value)) * 31 + len(value) for value in values], dtype=np.uint64
            )
        return np.array([len(value) % modulus for value in values], dtype=np.uint64)

    hay, wanted = pd.Series(haystack, dtype=dtype), pd.Series(needles, dtype=dtype)
    expected = pd.Index(haystack, dtype=object).get_indexer(needles).tolist()
    default = _stacked.id_keys
    try:
        _stacked.id_keys = weak_keys
        found = _stacked._positions_in(hay, wanted, weak_keys(hay))
    finally:
        _stacked.id_keys = default
    assert found.tolist() == expected


@pytest.mark.parametrize(
    ("dtype", "docs"),
    [
        ("object", ["a", "b", "z"]),
        ("str", ["a", "b", "z"]),
        ("int64", [1, 2, 9]),
        ("float64", [1.5, 2.5, 9.5]),
    ],
)
def test_categorical_doc_ids_keep_their_categories_dtype(dtype: str, docs: list) -> None:
    """Judged documents the run lacks join the categories without changing their dtype."""
    ids = pd.Index(docs, dtype=string_dtype() if dtype == "str" else dtype)
    run = pd.DataFrame({"query": ["q", "q"], "doc": pd.Categorical(ids[:2]), "score": [2.0, 1.0]})
    qrels = pd.DataFrame({"query": ["q", "q"], "doc": pd.Series(ids[1:]), "rel": [1, 2]})
    merged = pdireval.merge_qrels(run, qrels)
    assert merged["doc"].cat.categories.dtype == ids.dtype
    assert merged["doc"].tolist() == docs
    assert merged["rel"].tolist() == [pd.NA, 1, 2]


def test_labels_too_large_for_int64_are_kept_as_floats() -> None:
    run = pd.DataFrame({"query": ["q1"], "doc": ["a"], "score": [1.0]})
    qrels = pd.DataFrame({"query": ["q1"], "doc": ["a"], "rel": [1e20]})
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no numpy cast warning escapes
        merged = pdireval.merge_qrels(run, qrels)
    assert merged["rel"].tolist() == [1e20]
