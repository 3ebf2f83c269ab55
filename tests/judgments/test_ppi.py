"""Prediction-powered inference: the numbers of ppi-python on the per-query values of a
run under LLM and gold labels, for every run and metric of a call, and clear errors for
gold labels PPI cannot use."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import pdireval
from pdireval.judgments.ppi import PPI_COLUMNS, Sample, estimates, ppi
from pdireval.stats.significance import adjust_pvalues

ppi_py = pytest.importorskip("ppi_py")
pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")


def frames(seed: int, *, runs: int = 3, queries: int = 30, docs: int = 12, every: int = 3):
    """A run frame, LLM labels of every query (noisy, lenient for the last run's top
    documents) and gold labels of every ``every``-th query."""
    rng = np.random.default_rng(seed)
    names = [f"run {i} (rerank top-{10 * (i + 1)})" for i in range(runs)]
    rel = rng.integers(0, 3, (queries, docs)) * (rng.random((queries, docs)) < 0.5)
    ids = [f"q{i:02d}" for i in range(queries)]
    qrels = pd.DataFrame(
        {
            "query": np.repeat(ids, docs),
            "doc": np.tile([f"d{j}" for j in range(docs)], queries),
            "rel": rel.ravel(),
        }
    )
    parts = []
    for at, name in enumerate(names):
        score = rel * (1.0 - at / runs) + rng.normal(0.0, 1.0, rel.shape)
        parts.append(qrels[["query", "doc"]].assign(score=score.ravel(), run=name))
    run = pd.concat(parts, ignore_index=True)
    noisy = rng.random(len(qrels)) < 0.25
    llm = qrels.assign(rel=np.where(noisy, rng.integers(0, 3, len(qrels)), qrels["rel"]))
    gold = qrels[qrels["query"].isin(ids[::every])]
    return run, llm, gold


def values(run, labels, metric, name):
    """Per-query values of one run under one set of labels (independently of ppi)."""
    table = pdireval.evaluate(run[run["run"] == name].drop(columns="run"), metric, qrels=labels)
    return table[metric]


def reference(run, llm, gold, metric, name, lam, alpha):
    """ppi-python's estimate, interval and classical interval for one run."""
    under_llm, under_gold = values(run, llm, metric, name), values(run, gold, metric, name)
    y = under_gold.to_numpy()
    y_hat = under_llm.reindex(under_gold.index).to_numpy()
    rest = under_llm[~under_llm.index.isin(under_gold.index)].to_numpy()
    estimate = float(np.squeeze(ppi_py.ppi_mean_pointestimate(y, y_hat, rest, lam=lam)))
    low, high = (float(np.squeeze(v)) for v in ppi_py.ppi_mean_ci(y, y_hat, rest, alpha, lam=lam))
    classic = ppi_py.classical_mean_ci(y, alpha=alpha)
    return estimate, low, high, classic, len(y), len(rest), under_llm.mean()


@pytest.mark.parametrize("lam", [None, 1.0, 0.4, 0.0])
@pytest.mark.parametrize("metric", ["nDCG@10", "AP"])
def test_equals_ppi_python(lam, metric) -> None:
    run, llm, gold = frames(1)
    found = ppi(run, ["nDCG@10", "AP"], qrels=llm, gold=gold, lam=lam, alpha=0.1)
    assert list(found.columns) == list(PPI_COLUMNS)
    for name in pd.unique(run["run"]):
        row = found[(found["run"] == name) & (found["metric"] == metric)].iloc[0]
        estimate, low, high, classic, n, big_n, llm_mean = reference(
            run, llm, gold, metric, name, lam, 0.1
        )
        assert row["estimate"] == pytest.approx(estimate, abs=1e-9)
        assert row["ci_low"] == pytest.approx(low, abs=1e-6)
        assert row["ci_high"] == pytest.approx(high, abs=1e-6)
        assert (row["classic_ci_low"], row["classic_ci_high"]) == pytest.approx(classic, abs=1e-6)
        assert (row["n_gold"], row["n_unlabelled"]) == (n, big_n)
        assert row["llm_estimate"] == pytest.approx(llm_mean, abs=1e-12)
        if lam is not None:
            assert row["lam"] == lam


@settings(max_examples=20, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    seed=st.integers(0, 10_000),
    runs=st.integers(1, 3),
    queries=st.integers(6, 25),
    every=st.integers(2, 4),
)
def test_random_frames_equal_ppi_python(seed, runs, queries, every) -> None:
    run, llm, gold = frames(seed, runs=runs, queries=queries, every=every)
    found = ppi(run, "P@5", qrels=llm, gold=gold)
    for name in pd.unique(run["run"]):
        row = found[found["run"] == name].iloc[0]
        estimate, low, high, *_ = reference(run, llm, gold, "P@5", name, None, 0.05)
        if np.isnan(estimate):  # ppi-python's 0/0 weight when the LLM's values are constant
            assert row["lam"] == 0.0
            assert row["estimate"] == pytest.approx(row["classic_estimate"], abs=1e-12)
            continue
        assert row["estimate"] == pytest.approx(estimate, abs=1e-9)
        assert (row["ci_low"], row["ci_high"]) == pytest.approx((low, high), abs=1e-6)
        assert row["ci_low"] <= row["estimate"] <= row["ci_high"]
        assert 0.0 <= row["lam"] <= 1.0


@settings(max_examples=60, deadline=None)
@given(
    st.lists(st.floats(0, 1), min_size=2, max_size=15),
    st.lists(st.floats(0, 1), min_size=2, max_size=15),
    st.lists(st.floats(0, 1), min_size=1, max_size=30),
)
def test_lam_one_is_classic_ppi(y, noise, rest) -> None:
    size = min(len(y), len(noise))
    gold = np.array(y[:size])
    guess = np.clip(gold + np.array(noise[:size]) - 0.5, 0, 1)
    unlabelled = np.array(rest)
    found = estimates(
        Sample(
            [0], gold, guess, np.zeros(size, np.int64), unlabelled, np.zeros(len(rest), np.int64)
        ),
        0.05,
        1.0,
    )
    assert found["estimate"][0] == pytest.approx(
        unlabelled.mean() + (gold - guess).mean(), abs=1e-12
    )
    se = np.sqrt(unlabelled.var() / len(rest) + (gold - guess).var() / size)
    assert found["ci_high"][0] - found["estimate"][0] == pytest.approx(1.959963984540054 * se)
    assert found["ci_low"][0] <= found["estimate"][0] <= found["ci_high"][0]


def test_ppi_narrower_than_gold_alone_with_a_good_judge() -> None:
    run, qrels, gold = frames(3, queries=60)
    found = ppi(run, "nDCG@10", qrels=qrels.assign(rel=qrels["rel"]), gold=gold)
    exact = ppi(
        run,
        "nDCG@10",
        qrels=pd.concat([gold, qrels[~qrels["query"].isin(gold["query"])]]),
        gold=gold,
    )
    width = exact["ci_high"] - exact["ci_low"]
    assert (width < exact["classic_ci_high"] - exact["classic_ci_low"]).all()
    assert (found["lam"] < exact["lam"]).all()  # a noisy judge weighs less


def test_baseline_differences_equal_ppi_python() -> None:
    run, llm, gold = frames(5, runs=3)
    names = list(pd.unique(run["run"]))
    base = names[1]
    found = ppi(run, ["AP", "P@5"], qrels=llm, gold=gold, baseline=base, lam=1, correction="holm")
    assert list(found["run"]) == [names[0], names[0], names[2], names[2]]
    assert set(found["baseline"]) == {base}
    for _, row in found.iterrows():
        diff_llm = values(run, llm, row["metric"], row["run"]) - values(
            run, llm, row["metric"], base
        )
        diff_gold = values(run, gold, row["metric"], row["run"]) - values(
            run, gold, row["metric"], base
        )
        y, y_hat = diff_gold.to_numpy(), diff_llm.reindex(diff_gold.index).to_numpy()
        rest = diff_llm[~diff_llm.index.isin(diff_gold.index)].to_numpy()
        assert row["estimate"] == pytest.approx(
            float(np.squeeze(ppi_py.ppi_mean_pointestimate(y, y_hat, rest, lam=1))), abs=1e-9
        )
        low, high = ppi_py.ppi_mean_ci(y, y_hat, rest, alpha=0.05, lam=1)
        assert (row["ci_low"], row["ci_high"]) == pytest.approx(
            (float(np.squeeze(low)), float(np.squeeze(high))), abs=1e-6
        )
        p = float(np.squeeze(ppi_py.ppi_mean_pval(y, y_hat, rest, lam=1)))
        assert row["p_value"] == pytest.approx(p, rel=1e-6, abs=1e-12)
    assert np.allclose(found["p_adjusted"], adjust_pvalues(found["p_value"].to_numpy(), "holm"))
    assert (found["significant"] == (found["p_adjusted"] < 0.05)).all()


def test_runs_in_frame_order_and_without_run_column() -> None:
    run, llm, gold = frames(2)
    order = list(reversed(pd.unique(run["run"])))
    ordered = run.assign(run=pd.Categorical(run["run"], categories=order))
    found = ppi(ordered, ["AP", "P@5"], qrels=llm, gold=gold)
    assert list(found["run"]) == [order[0], order[0], order[1], order[1], order[2], order[2]]
    assert list(found["metric"]) == ["AP", "P@5"] * 3
    alone = run[run["run"] == order[0]].drop(columns="run")
    single = ppi(alone, "AP", qrels=llm, gold=gold)
    assert single["run"].tolist() == [None]
    assert single["estimate"].iloc[0] == pytest.approx(found["estimate"].iloc[0], abs=1e-12)


def test_queries_without_a_value_are_left_out_and_counted_out() -> None:
    """Queries the LLM did not judge are NaN under queries="all": not unlabelled queries."""
    run, llm, gold = frames(1)
    unjudged = [q for q in pd.unique(llm["query"]) if q not in set(gold["query"])][:3]
    partial = llm[~llm["query"].isin(unjudged)]
    judged = ppi(run, "AP", qrels=partial, gold=gold)
    every = ppi(run, "AP", qrels=partial, gold=gold, queries="all")
    assert (every["n_unlabelled"] == run["query"].nunique() - len(unjudged) - 10).all()
    pd.testing.assert_frame_equal(every, judged)


def test_gold_query_not_of_the_run() -> None:
    run, llm, gold = frames(1)
    extra = pd.DataFrame({"query": ["zz-unknown"], "doc": ["d0"], "rel": [1]})
    with pytest.raises(pdireval.SchemaError, match=r"not queries of the run: \['zz-unknown'\]"):
        ppi(run, "AP", qrels=llm, gold=pd.concat([gold, extra]))


def test_gold_query_without_llm_labels() -> None:
    run, llm, gold = frames(1)
    first = gold["query"].iloc[0]
    with pytest.raises(pdireval.SchemaError, match=rf"no AP value for gold queries \['{first}'\]"):
        ppi(run, "AP", qrels=llm[llm["query"] != first], gold=gold)


def test_no_query_judged_by_both() -> None:
    run, llm, gold = frames(1)
    with pytest.raises(pdireval.SchemaError, match=r"no query of run .* is judged by both"):
        ppi(run, "AP", qrels=llm[~llm["query"].isin(gold["query"])], gold=gold)


def test_fewer_than_two_gold_queries() -> None:
    run, llm, gold = frames(1)
    one = gold[gold["query"] == gold["query"].iloc[0]]
    with pytest.raises(pdireval.SchemaError, match=r"1 gold-judged query .* at least 2"):
        ppi(run, "AP", qrels=llm, gold=one)


def test_gold_for_every_query() -> None:
    run, llm, _ = frames(1)
    with pytest.raises(pdireval.SchemaError, match="labels every query"):
        ppi(run, "AP", qrels=llm, gold=llm)


@pytest.mark.parametrize("alpha", [0, 1, 1.5, -0.1, "0.05", True])
def test_alpha_outside(alpha) -> None:
    run, llm, gold = frames(1)
    with pytest.raises(pdireval.ParameterError, match=r"alpha=.* strictly between 0 and 1"):
        ppi(run, "AP", qrels=llm, gold=gold, alpha=alpha)


@pytest.mark.parametrize("lam", [-0.1, 1.01, "1", True, np.nan])
def test_lam_outside(lam) -> None:
    run, llm, gold = frames(1)
    with pytest.raises(pdireval.ParameterError, match=r"lam=.* between 0 and 1"):
        ppi(run, "AP", qrels=llm, gold=gold, lam=lam)


def test_bad_baseline_and_judge_columns() -> None:
    run, llm, gold = frames(1)
    with pytest.raises(pdireval.SchemaError, match="baseline='nope' is not a run"):
        ppi(run, "AP", qrels=llm, gold=gold, baseline="nope")
    with pytest.raises(pdireval.SchemaError, match="gold= has a 'judge' column"):
        ppi(run, "AP", qrels=llm, gold=gold.assign(judge="x"))
    with pytest.raises(pdireval.ParameterError, match="correction"):
        ppi(run, "AP", qrels=llm, gold=gold, baseline=run["run"].iloc[0], correction="nope")
