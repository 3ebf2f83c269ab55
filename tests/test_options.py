"""The evaluation options: every evaluating function takes all of them, checked the same way."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, get_args

import pandas as pd
import pytest

import pdireval
from pdireval import ParameterError
from pdireval.datasets import toy
from pdireval.typing import EvaluationOptions

# Every public function that evaluates a frame, called with the options given.
EVALUATING: dict[str, Callable[..., Any]] = {
    "evaluate": lambda f, **o: pdireval.evaluate(f, ["AP", "P@5"], **o),
    "summary": lambda f, **o: pdireval.summary(f, "AP", **o),
    "compare": lambda f, **o: pdireval.compare(f, "AP", test="sign", **o),
    "per_query": lambda f, **o: pdireval.per_query(f, "AP", **o),
    "report": lambda f, **o: pdireval.report(f, "AP", test="sign", **o),
    "precision": lambda f, **o: pdireval.precision(f, 5, **o),
    "recall": lambda f, **o: pdireval.recall(f, 5, **o),
    "ap": lambda f, **o: pdireval.ap(f, **o),
    "map": lambda f, **o: pdireval.map(f[f["run"] == "system1"], **o),
    "gmap": lambda f, **o: pdireval.gmap(f[f["run"] == "system1"], **o),
    "rr": lambda f, **o: pdireval.rr(f, **o),
    "mrr": lambda f, **o: pdireval.mrr(f[f["run"] == "system1"], **o),
    "ndcg": lambda f, **o: pdireval.ndcg(f, 10, **o),
    "dcg": lambda f, **o: pdireval.dcg(f, 10, **o),
    "r_precision": lambda f, **o: pdireval.r_precision(f, **o),
    "success": lambda f, **o: pdireval.success(f, 1, **o),
    "tie_groups": lambda f, **o: pdireval.tie_groups(f, 2, **o),
    "pr_curve": lambda f, **o: pdireval.pr_curve(f, **o),
    "curve": lambda f, **o: pdireval.curve(f, "P", ks=[1, 2], **o),
    "accessor.evaluate": lambda f, **o: f.ireval.evaluate("AP", **o),
    "accessor.summary": lambda f, **o: f.ireval.summary("AP", **o),
    "accessor.compare": lambda f, **o: f.ireval.compare("AP", test="sign", **o),
    "accessor.per_query": lambda f, **o: f.ireval.per_query("AP", **o),
    "accessor.report": lambda f, **o: f.ireval.report("AP", test="sign", **o),
    "accessor.ndcg": lambda f, **o: f.ireval.ndcg(5, **o),
    "accessor.tie_groups": lambda f, **o: f.ireval.tie_groups(2, **o),
    "accessor.pr_curve": lambda f, **o: f.ireval.pr_curve(**o),
    "accessor.curve": lambda f, **o: f.ireval.curve("P", [1, 2], **o),
}

# A valid value other than the default, for each option.
NON_DEFAULT = {
    "queries": "all",
    "ties": "pessimistic",
    "max_rank": 5,
    "judged_only": True,
    "ignore_self": True,
    "rel_threshold": 2,
    "validate": False,
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
}


def _frame() -> pd.DataFrame:
    return toy().drop(columns="rank").assign(score=lambda f: -f.index.to_numpy() // 2 * 1.0)


def test_the_options_are_the_typed_ones() -> None:
    """The qrels given next to a run are tested in ``test_qrels_option.py``."""
    typed = set(EvaluationOptions.__annotations__) - {"qrels", "qrels_columns"}
    assert set(NON_DEFAULT) == typed
    assert set(INVALID) == typed


@pytest.mark.parametrize("option", sorted(NON_DEFAULT))
@pytest.mark.parametrize("name", sorted(EVALUATING))
def test_every_evaluating_function_takes_every_option(name: str, option: str) -> None:
    EVALUATING[name](_frame(), **{option: NON_DEFAULT[option]})
    with pytest.raises(ParameterError, match=rf"\b{option}="):
        EVALUATING[name](_frame(), **{option: INVALID[option]})


@pytest.mark.parametrize("name", sorted(EVALUATING))
def test_a_misspelt_option_is_refused_with_a_suggestion(name: str) -> None:
    with pytest.raises(ParameterError, match=r"unknown option 'tie'.*did you mean 'ties'"):
        EVALUATING[name](_frame(), tie="average")


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
