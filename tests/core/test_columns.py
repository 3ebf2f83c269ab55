"""Column roles: what is accepted as a frame, how roles resolve, and conflicts refused."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import pdireval
from pdireval import ColumnMap, SchemaError


def _frame() -> pd.DataFrame:
    return pd.DataFrame(
        {
            "query": ["q1", "q1", "q1", "q2"],
            "doc": ["a", "b", "c", "a"],
            "rank": [1, 2, 3, 1],
            "score": [0.1, 0.2, 0.3, 1.0],
            "rel": [0, 1, 1, 1],
        }
    )


@pytest.mark.parametrize(
    ("given", "fix"),
    [
        (_frame()["rel"], r"to_frame"),
        (_frame().to_dict("list"), r"pd\.DataFrame\(data\)"),
        ([("q1", "a", 1, 1)], r"pd\.DataFrame\(data\)"),
        (42, r"pandas DataFrame with query, doc"),
        ("frame.csv", r"pandas DataFrame with query, doc"),
    ],
)
def test_non_frames_are_refused_with_what_was_given(given: object, fix: str) -> None:
    with pytest.raises(SchemaError, match=r"expected a pandas DataFrame, got .*" + fix):
        pdireval.evaluate(given, "AP")  # type: ignore[arg-type]


def test_dask_frames_point_to_the_dask_backend() -> None:
    dd = pytest.importorskip("dask.dataframe")
    lazy = dd.from_pandas(_frame(), npartitions=1)
    for call in (
        lambda: pdireval.evaluate(lazy, "AP"),
        lambda: pdireval.merge_qrels(lazy, _frame()[["query", "doc", "rel"]]),
    ):
        with pytest.raises(SchemaError, match=r"import pdireval\.dask"):
            call()


@pytest.mark.parametrize(
    ("mapping", "roles"),
    [
        ({"query": "doc"}, r"\['query', 'doc'\]"),
        ({"rel": "rank"}, r"\['rank', 'rel'\]"),
        ({"rank": "score"}, r"\['rank', 'score'\]"),
    ],
)
def test_one_column_for_two_roles_is_refused(mapping: dict, roles: str) -> None:
    with pytest.raises(SchemaError, match=r"would be used for the roles " + roles):
        _frame().ireval(**mapping).evaluate("AP")


def test_a_duplicated_column_label_is_refused_when_used() -> None:
    frame = pd.concat([_frame(), _frame()[["rel"]]], axis=1)
    with pytest.raises(SchemaError, match=r"several columns named 'rel'"):
        frame.ireval.evaluate("AP")
    unused = pd.concat([_frame(), _frame()[["rel"]].rename(columns={"rel": "x"})] * 1, axis=1)
    unused = pd.concat([unused, unused[["x"]]], axis=1)  # a duplicated column nobody uses
    assert unused.ireval.evaluate("AP").shape == (2, 1)


def test_false_means_no_such_column() -> None:
    """rank=False ranks by score although a rank column exists."""
    by_score = _frame().ireval(rank=False).evaluate("RR")
    assert by_score["RR"].tolist() == [1.0, 1.0]  # score order: c (rel), b, a
    assert _frame().ireval.evaluate("RR")["RR"].tolist() == [0.5, 1.0]


def test_bad_role_values_are_refused() -> None:
    with pytest.raises(SchemaError, match=r"give a column name"):
        _frame().ireval(query=3)  # type: ignore[arg-type]
    with pytest.raises(SchemaError, match=r"unknown column role"):
        ColumnMap().remap(topic="query")


def test_recorded_roles_are_used_and_explicit_mapping_wins() -> None:
    run = _frame().rename(columns={"query": "qid"}).drop(columns="rel")
    run["query"] = "text of " + run["qid"]  # the query text, as PyTerrier keeps it
    qrels = _frame()[["query", "doc", "rel"]].rename(columns={"query": "qid"})
    merged = pdireval.merge_qrels(run, qrels, columns={"query": "qid"})
    assert merged.ireval.evaluate("AP").index.name == "qid"
    assert merged.ireval(query="query").evaluate("AP").index.tolist() == [
        "text of q1",
        "text of q2",
    ]
    # A recorded column that is gone (renamed by the user) is not used.
    renamed = merged.rename(columns={"qid": "topic"})
    assert renamed.ireval.evaluate("AP").index.name == "query"


def test_default_column_wins_and_two_synonyms_are_ambiguous() -> None:
    frame = _frame().rename(columns={"query": "qid"}).assign(query_id="x")
    with pytest.raises(SchemaError, match=r"\['qid', 'query_id'\] could both be"):
        frame.ireval.evaluate("AP")


def test_ranks_beyond_float_precision_keep_their_order() -> None:
    """int64 ranks above 2**53 are distinct although float64 cannot tell them apart."""
    base = 2**60
    frame = pd.DataFrame(
        {
            "query": ["q"] * 3,
            "doc": ["a", "b", "c"],
            "rank": np.array([base + 2, base + 1, base + 3], dtype=np.int64),
            "rel": [1, 0, 0],
        }
    )
    assert float(base + 1) == float(base + 2)  # what a float64 key would lose
    assert frame.ireval.evaluate("RR")["RR"].tolist() == [0.5]


@pytest.mark.parametrize("dtype", ["object", "str", "category", "int64"])
@pytest.mark.parametrize("rows", [2, 40])
def test_result_index_keeps_the_query_dtype_in_any_row_order(dtype: str, rows: int) -> None:
    """Grouped rows (first row of each block read) and shuffled rows give the same index."""
    half = rows // 2
    frame = pd.DataFrame(
        {
            "query": np.repeat(["1", "2"], half),
            "doc": [f"d{i}" for i in range(rows)],
            "rank": np.tile(np.arange(1, half + 1), 2),
            "rel": 1,
        }
    )
    frame["query"] = frame["query"].astype(dtype)
    grouped = pdireval.evaluate(frame, "AP").index
    shuffled = pdireval.evaluate(frame.sample(frac=1, random_state=0), "AP").index
    assert grouped.dtype == frame["query"].dtype
    pd.testing.assert_index_equal(grouped, shuffled)


@pytest.mark.parametrize("dtype", ["object", "str", pd.StringDtype("python")])
def test_ids_differing_only_in_nul_characters_stay_apart(dtype) -> None:
    """'q' and 'q\\x00' (and '' and '\\x00') are different queries and documents."""
    frame = pd.DataFrame(
        {
            "query": ["q", "q", "q\x00", "q\x00", "", "\x00"],
            "doc": ["a", "a\x00", "a", "", "", "\x00"],
            "rank": [1, 2, 1, 2, 1, 1],
            "rel": [0, 1, 1, 0, 1, 0],
        }
    )
    frame = frame.astype({"query": dtype, "doc": dtype})
    table = pdireval.evaluate(frame, ["RR", "NumRet"])
    assert len(table) == 4
    assert table["NumRet"].sum() == 6
    by_query = dict(zip(table.index, table["RR"], strict=True))
    assert by_query == {"q": 0.5, "q\x00": 1.0, "": 1.0, "\x00": 0.0}
    qrels = frame[["query", "doc", "rel"]]
    merged = pdireval.merge_qrels(frame.drop(columns="rel"), qrels)
    pd.testing.assert_frame_equal(
        merged.ireval.evaluate(["RR", "NumRet"]).reset_index(drop=True),
        table.reset_index(drop=True),
    )
