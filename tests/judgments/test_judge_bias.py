"""The bias of an LLM judge: per run, the mean of (LLM - gold) on the queries judged by
both with a t interval, and the pairs of runs whose order the LLM reverses."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import pdireval
from pdireval.datasets import example_qrels, example_run
from pdireval.judgments.bias import BIAS_COLUMNS, PAIR_COLUMNS, judge_bias

stats = pytest.importorskip("scipy.stats")


def lenient_for(run: pd.DataFrame, human: pd.DataFrame, name: str) -> pd.DataFrame:
    """An LLM judge that calls every document ``name`` retrieved at least relevant."""
    retrieved = pd.MultiIndex.from_frame(run.loc[run["run"] == name, ["query", "doc"]])
    mine = pd.MultiIndex.from_frame(human[["query", "doc"]]).isin(retrieved)
    return human.assign(rel=np.where(mine, human["rel"].clip(lower=1), human["rel"]))


@pytest.fixture(scope="module")
def case():
    run, human = example_run(), example_qrels()
    gold = human[human["query"].isin(human["query"].unique()[::3])]
    return run, lenient_for(run, human, "weak"), gold


def test_bias_is_mean_difference_with_t_interval(case) -> None:
    run, llm, gold = case
    found = judge_bias(run, ["P@10", "AP"], qrels=llm, gold=gold, alpha=0.1)
    assert list(found.bias.columns) == list(BIAS_COLUMNS)
    assert list(found.bias["run"]) == ["strong", "strong", "medium", "medium", "weak", "weak"]
    for _, row in found.bias.iterrows():
        alone = run[run["run"] == row["run"]].drop(columns="run")
        under_gold = pdireval.evaluate(alone, row["metric"], qrels=gold)[row["metric"]]
        under_llm = pdireval.evaluate(alone, row["metric"], qrels=llm)[row["metric"]]
        difference = (under_llm.reindex(under_gold.index) - under_gold).to_numpy()
        low, high = stats.t.interval(
            0.9, len(difference) - 1, loc=difference.mean(), scale=stats.sem(difference)
        )
        assert row["bias"] == pytest.approx(difference.mean(), abs=1e-12)
        assert (row["ci_low"], row["ci_high"]) == pytest.approx((low, high), abs=1e-9)
        assert row["n"] == len(difference) == gold["query"].nunique()
        assert row["gold_mean"] == pytest.approx(under_gold.mean(), abs=1e-12)


def test_the_favoured_run_is_biased_most_and_swaps(case) -> None:
    run, llm, gold = case
    found = judge_bias(run, "P@10", qrels=llm, gold=gold)
    biggest = found.bias.loc[found.bias["bias"].idxmax(), "run"]
    assert biggest == "weak"
    assert list(found.pairs.columns) == list(PAIR_COLUMNS)
    assert len(found.pairs) == 3  # every pair once, the earlier run first
    assert list(zip(found.pairs["run"], found.pairs["other"], strict=True)) == [
        ("strong", "medium"),
        ("strong", "weak"),
        ("medium", "weak"),
    ]
    swaps = found.swaps
    assert list(zip(swaps["run"], swaps["other"], strict=True)) == [("medium", "weak")]
    row = swaps.iloc[0]
    assert row["gold_delta"] > 0 > row["llm_delta"]


def test_swapped_is_a_sign_change() -> None:
    run, human = example_run(), example_qrels()
    found = judge_bias(run, "AP", qrels=human, gold=human)  # the same labels
    assert not found.pairs["swapped"].any()
    assert np.allclose(found.bias["bias"], 0.0)
    assert np.allclose(found.bias["ci_low"], 0.0)
    assert np.allclose(found.bias["ci_high"], 0.0)


def test_errors(case) -> None:
    run, llm, gold = case
    with pytest.raises(pdireval.ParameterError, match="alpha=2"):
        judge_bias(run, "AP", qrels=llm, gold=gold, alpha=2)
    extra = pd.DataFrame({"query": ["999"], "doc": ["x"], "rel": [1]})
    with pytest.raises(pdireval.SchemaError, match=r"not queries of the run: \['999'\]"):
        judge_bias(run, "AP", qrels=llm, gold=pd.concat([gold, extra]))
    one = gold[gold["query"] == gold["query"].iloc[0]]
    with pytest.raises(pdireval.SchemaError, match="at least 2"):
        judge_bias(run, "AP", qrels=llm, gold=one)
    with pytest.raises(pdireval.SchemaError, match="judged by both"):
        judge_bias(run, "AP", qrels=llm[~llm["query"].isin(gold["query"])], gold=gold)
