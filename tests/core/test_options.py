"""The evaluation options: every evaluating function takes all of them, checked the same way."""

from __future__ import annotations

from typing import get_args

import pandas as pd
import pytest
from evaluating import EVALUATING, toy_run

import pdireval
from pdireval import ParameterError
from pdireval.datasets import toy
from pdireval.typing import EvaluationOptions

# A valid value other than the default, for each option.
NON_DEFAULT = {
    "queries": "all",
    "ties": "pessimistic",
    "max_rank": 5,
    "judged_only": True,
    "ignore_self": True,
    "rel_threshold": 2,
    "validate": False,
    "trec_eval_version": "10.0",
}
# A value that must be refused, naming the option.
INVALID = {
    "queries": "some",
    "ties": "random",
    "max_rank": 0,
    "judged_only": "no",
    "ignore_self": 1,
    "rel_threshold": -1,
    "validate": "yes",
    "trec_eval_version": "10",
}


def test_the_options_are_the_typed_ones() -> None:
    """The qrels given next to a run are tested in ``test_qrels_option.py``."""
    typed = set(EvaluationOptions.__annotations__) - {"qrels", "qrels_columns"}
    assert set(NON_DEFAULT) == typed
    assert set(INVALID) == typed


@pytest.mark.parametrize("option", sorted(NON_DEFAULT))
@pytest.mark.parametrize("name", sorted(EVALUATING))
def test_every_evaluating_function_takes_every_option(name: str, option: str) -> None:
    EVALUATING[name](toy_run(), **{option: NON_DEFAULT[option]})
    with pytest.raises(ParameterError, match=rf"\b{option}="):
        EVALUATING[name](toy_run(), **{option: INVALID[option]})


@pytest.mark.parametrize("name", sorted(EVALUATING))
def test_a_misspelt_option_is_refused_with_a_suggestion(name: str) -> None:
    with pytest.raises(ParameterError, match=r"unknown option 'tie'.*did you mean 'ties'"):
        EVALUATING[name](toy_run(), tie="average")


def test_options_change_the_result() -> None:
    """Each option reaches the engine: the per-query table changes with it."""
    frame = toy()
    plain = pdireval.evaluate(frame, ["AP", "P@5"])
    assert not plain.equals(pdireval.evaluate(frame, ["AP", "P@5"], max_rank=3))
    topic1 = frame[frame["query"] == "topic1"]
    unjudged = pd.concat([frame, topic1.assign(query="unjudged", rel=float("nan"))])
    assert len(pdireval.evaluate(unjudged, "AP", queries="all")) == len(plain) + 2


@pytest.mark.parametrize("value", ["no", 0, 1, None, "False"])
def test_judged_only_takes_booleans_only(value: object) -> None:
    """``judged_only="no"`` must not switch -J on (a non-empty string is truthy)."""
    with pytest.raises(ParameterError, match=r"judged_only= must be True or False"):
        pdireval.evaluate(toy(), "AP", judged_only=value)  # type: ignore[arg-type]


def test_policies_are_the_typed_literals() -> None:
    from pdireval._core.options import QUERY_POLICIES, TIE_POLICIES
    from pdireval.typing import QueryPolicy, TiePolicy

    assert get_args(QueryPolicy) == QUERY_POLICIES
    assert get_args(TiePolicy) == TIE_POLICIES
