"""The one rule for ids of different kinds, wherever frames meet.

Ids match by value, so the number 1 and the string '1' never match: every call that
combines frames refuses numbers on one side and strings on the other, naming both, and
refuses two ids of one mixed column that read the same as text. Each place where frames
meet is listed here; a new one belongs in ``MEETINGS``.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import pdireval
from pdireval._core.ids import id_kind, refuse_text_collisions, same_kind

RUN = pd.DataFrame({"query": ["1", "1", "2"], "doc": ["1", "2", "1"], "score": [2.0, 1.0, 1.0]})
QRELS = pd.DataFrame({"query": ["1", "2"], "doc": ["1", "1"], "rel": [1, 0]})


def _numbers(frame: pd.DataFrame, role: str) -> pd.DataFrame:
    return frame.assign(**{role: frame[role].astype(np.int64)})


def _fuse(a: pd.DataFrame, b: pd.DataFrame) -> Any:
    return pdireval.fuse({"a": a, "b": b}, method="rrf")


def _fuse_list(a: pd.DataFrame, b: pd.DataFrame) -> Any:
    return pdireval.fuse([a.assign(run="a"), b.assign(run="b")], method="combsum")


def _merge(run: pd.DataFrame, qrels: pd.DataFrame) -> Any:
    return pdireval.merge_qrels(run, qrels)


def _qrels_option(run: pd.DataFrame, qrels: pd.DataFrame) -> Any:
    return pdireval.evaluate(run, "AP", qrels=qrels)


def _judges(a: pd.DataFrame, b: pd.DataFrame) -> Any:
    return pdireval.evaluate(RUN, "AP", qrels={"human": a, "llm": b})


def _agreement(a: pd.DataFrame, b: pd.DataFrame) -> Any:
    return pdireval.agreement({"human": a, "llm": b})


def _judge_conclusions(a: pd.DataFrame, b: pd.DataFrame) -> Any:
    runs = pd.concat([RUN.assign(run="x"), RUN.assign(run="y")], ignore_index=True)
    return pdireval.judge_conclusions(runs, {"human": a, "llm": b}, "AP", test="sign")


def _reproduction(a: pd.DataFrame, b: pd.DataFrame) -> Any:
    def merged(run: pd.DataFrame) -> pd.DataFrame:
        numbers = run["query"].dtype == np.int64
        return pdireval.merge_qrels(
            run.assign(run="x"), _numbers(QRELS, "query") if numbers else QRELS
        )

    return pdireval.reproduction(merged(a), merged(b), "AP", baseline="x")


#: Every call where two frames meet: (name, call, first frame, second frame).
MEETINGS: list[tuple[str, Callable[[pd.DataFrame, pd.DataFrame], Any], pd.DataFrame, pd.DataFrame]]
MEETINGS = [
    ("fuse (dict)", _fuse, RUN, RUN),
    ("fuse (list)", _fuse_list, RUN, RUN),
    ("merge_qrels", _merge, RUN, QRELS),
    ("qrels=", _qrels_option, RUN, QRELS),
    ("judges as a mapping", _judges, QRELS, QRELS),
    ("agreement", _agreement, QRELS, QRELS),
    ("judge_conclusions", _judge_conclusions, QRELS, QRELS),
    ("reproduction", _reproduction, RUN, RUN),
]


@pytest.mark.parametrize(
    ("name", "call", "first", "second"), MEETINGS, ids=[m[0] for m in MEETINGS]
)
@pytest.mark.parametrize("role", ["query", "doc"])
@pytest.mark.parametrize("numbers_in", ["first", "second"])
def test_numbers_meeting_strings_are_refused_everywhere(
    name: str, call: Callable, first: pd.DataFrame, second: pd.DataFrame, role: str,
    numbers_in: str,
) -> None:  # fmt: skip
    pytest.importorskip("scipy")
    if name == "reproduction" and role == "doc":
        pytest.skip("the two frames of a reproduction meet on their query ids only")
    call(first, second)  # the same kind on both sides: no error
    a, b = (
        (_numbers(first, role), second)
        if numbers_in == "first"
        else (first, _numbers(second, role))
    )
    with pytest.raises(
        pdireval.SchemaError, match=rf"{role} ids are (numbers|strings).*1 is not '1'"
    ):
        call(a, b)


def test_fused_runs_of_int_and_str_ids_are_refused_not_listed_twice() -> None:
    a = pd.DataFrame({"query": [1, 1], "doc": [1, 2], "score": [2.0, 1.0]})
    b = pd.DataFrame({"query": ["1", "1"], "doc": ["1", "2"], "score": [2.0, 1.0]})
    with pytest.raises(pdireval.SchemaError, match=r"in run 'a' but strings \(\w+\) in run 'b'"):
        pdireval.fuse({"a": a, "b": b}, method="rrf")
    fused = pdireval.fuse({"a": a, "b": b.astype({"query": "int64", "doc": "int64"})})
    assert len(fused) == 2  # one ranking of two documents


def test_a_mixed_column_whose_ids_read_alike_is_refused(tmp_path: Path) -> None:
    holes = pd.DataFrame({"query": pd.Series([1, "1"], dtype=object), "doc": ["a", "a"]})
    with pytest.raises(pdireval.SchemaError, match=r"query ids 1 and '1' in the holes"):
        pdireval.write_judging_sheet(holes, tmp_path / "sheet.txt")
    assert not (tmp_path / "sheet.txt").exists()
    mixed = pd.DataFrame(
        {"query": pd.Series([1, "1"], dtype=object), "doc": ["a", "b"], "score": [1.0, 1.0]}
    )
    with pytest.raises(pdireval.SchemaError, match=r"read the same as text"):
        pdireval.fuse({"a": mixed, "b": mixed.iloc[:1]}, method="rrf")


def test_mixed_ids_that_read_differently_still_match_by_value() -> None:
    """1 and 'b' in one object column are two ids that nothing confuses: kept."""
    run = pd.DataFrame(
        {"query": "q", "doc": pd.Series([1, "b"], dtype=object), "score": [2.0, 1.0]}
    )
    qrels = pd.DataFrame({"query": ["q"], "doc": pd.Series(["b"], dtype=object), "rel": [1]})
    assert pdireval.merge_qrels(run, qrels)["rel"].tolist() == [pd.NA, 1]


KINDS = {
    "int64": pd.Series([1, 2, 3]),
    "float64": pd.Series([1.0, 2.5]),
    "Int64": pd.Series([1, 2], dtype="Int64"),
    "str": pd.Series(["1", "2"], dtype="str"),
    "object str": pd.Series(["1", "2"], dtype=object),
    "category str": pd.Series(["1", "2"], dtype="category"),
    "category int": pd.Series([1, 2], dtype="category"),
    "object int": pd.Series([1, 2], dtype=object),
}
NUMBERS = {"int64", "float64", "Int64", "category int", "object int"}


@given(a=st.sampled_from(sorted(KINDS)), b=st.sampled_from(sorted(KINDS)))
@settings(max_examples=64, deadline=None)
def test_kinds_meet_when_both_are_numbers_or_both_strings(a: str, b: str) -> None:
    sides = [("one", KINDS[a]), ("other", KINDS[b])]
    if (a in NUMBERS) == (b in NUMBERS):
        assert same_kind(sides, "doc") == [id_kind(KINDS[a]), id_kind(KINDS[b])]
    else:
        with pytest.raises(pdireval.SchemaError, match="1 is not '1'"):
            same_kind(sides, "doc")


@given(st.lists(st.one_of(st.integers(-3, 3), st.sampled_from(["-1", "0", "1", "x"])), max_size=8))
@settings(max_examples=100, deadline=None)
def test_text_collisions_are_exactly_distinct_values_with_equal_text(values: list) -> None:
    column = pd.Series(values, dtype=object)
    distinct = set(values)
    clash = len({str(v) for v in distinct}) < len(distinct)
    if clash:
        with pytest.raises(pdireval.SchemaError, match="read the same as text"):
            refuse_text_collisions([column], "query", "the frame")
    else:
        refuse_text_collisions([column], "query", "the frame")
