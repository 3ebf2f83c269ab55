"""Reproduction, efficiency and pooling agree with plain pandas on the same frames.

Each test builds its expected value the slow, obvious way -- a Python loop over the
per-query values, ``groupby`` over the rows -- from generated runs with ties, unjudged
queries, judged documents nobody retrieved and query ids of different (but matchable)
dtypes on the two sides of a reproduction.
"""

from __future__ import annotations

import math
import warnings

import numpy as np
import pandas as pd
import pyarrow as pa
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import pdireval

stats = pytest.importorskip("scipy.stats")

TEXT = ("str", "object", "category")
NUMBERS = ("int64", "arrow-int")
METRICS = ["AP", "P@3", "RR"]


def _as(values: pd.Series, dtype: str) -> pd.Series:
    """Integer ids ``values`` as the id dtype ``dtype`` (text ids are ``q<n>``)."""
    if dtype == "int64":
        return values.astype(np.int64)
    if dtype == "arrow-int":  # an Arrow array over the numpy buffer
        numbers = pa.array(values.to_numpy(np.int64))
        return pd.Series(pd.array(numbers, dtype=pd.ArrowDtype(pa.int64())))
    text = ("q" + values.astype(str)).astype(object)
    return text.astype({"str": "str", "object": object, "category": "category"}[dtype])


@st.composite
def experiments(draw: st.DrawFn, runs: tuple[str, ...] = ("base", "adv")) -> pd.DataFrame:
    """``merge_qrels`` of ``runs`` (a time per query, ties) and qrels with unjudged queries."""
    rows, judgments = [], []
    for query in range(draw(st.integers(2, 6))):
        judged = draw(st.booleans()) or query == 0
        if judged:
            labels = draw(st.lists(st.integers(-1, 2), min_size=1, max_size=8))
            judgments += [(query, f"d{doc}", label) for doc, label in enumerate(labels)]
        for run in runs:
            if query and not draw(st.integers(0, 5)):  # this run skipped the query
                continue
            docs = draw(st.lists(st.integers(0, 9), min_size=1, max_size=8, unique=True))
            docs = docs if query else [0, *(doc for doc in docs if doc)]
            time = draw(st.sampled_from([0.004, 0.01, 0.25, 1.5]))
            rows += [(run, query, f"d{doc}", float(draw(st.integers(0, 3))), time) for doc in docs]
    run_frame = pd.DataFrame(rows, columns=["run", "query", "doc", "score", "time"])
    qrels = pd.DataFrame(judgments, columns=["query", "doc", "rel"])
    return pdireval.merge_qrels(run_frame, qrels)


def _with_ids(frame: pd.DataFrame, dtype: str) -> pd.DataFrame:
    out = frame.copy()
    out["query"] = _as(out["query"], dtype).array
    return out


def _values(frame: pd.DataFrame, run: str) -> dict[str, dict[object, float]]:
    """Per-query values of ``run`` as plain dicts keyed by the query's text."""
    table = pdireval.evaluate(frame, METRICS).loc[run]
    return {
        name: {str(query): value for query, value in table[name].items() if not math.isnan(value)}
        for name in METRICS
    }


def _effect(values: dict, name: str) -> float:
    """Mean per-query improvement of the advanced run over the baseline (shared queries)."""
    adv, base = values["adv"][name], values["base"][name]
    gains = [adv[q] - base[q] for q in adv if q in base]
    return sum(gains) / len(gains) if gains else math.nan


def _mean(values: dict[object, float]) -> float:
    return sum(values.values()) / len(values) if values else math.nan


def _improvement(values: dict, name: str) -> float:
    base = _mean(values["base"][name])
    return (_mean(values["adv"][name]) - base) / base if base else math.nan


def _expected(original: pd.DataFrame, redone: pd.DataFrame) -> dict[str, dict[str, float]]:
    """Breuer et al.'s measures computed query by query in plain Python."""
    before = {run: _values(original, run) for run in ("base", "adv")}
    after = {run: _values(redone, run) for run in ("base", "adv")}
    out = {}
    for name in METRICS:
        row: dict[str, float] = {}
        same = all(set(before[r][name]) == set(after[r][name]) for r in before)
        for run, suffix in (("base", "baseline"), ("adv", "advanced")):
            old, new = before[run][name], after[run][name]
            if same:
                errors = [(old[q] - new[q]) ** 2 for q in old]
                row[f"rmse_{suffix}"] = math.sqrt(sum(errors) / len(errors)) if errors else math.nan
        original_effect = _effect(before, name)
        row["effect_ratio"] = (
            _effect(after, name) / original_effect if original_effect else math.nan
        )
        row["delta_ri"] = _improvement(before, name) - _improvement(after, name)
        out[name] = row
    return out


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(experiments(), experiments(), st.sampled_from([TEXT, NUMBERS]), st.data())
def test_reproduction_measures_agree_with_plain_python(original, redone, family, data) -> None:
    original = _with_ids(original, data.draw(st.sampled_from(family)))
    redone = _with_ids(redone, data.draw(st.sampled_from(family)))
    found = pdireval.reproduction(original, redone, METRICS, baseline="base", advanced="adv")
    for name, row in _expected(original, redone).items():
        for column, value in row.items():
            assert found.loc[name, column] == pytest.approx(value, nan_ok=True, abs=1e-12), (
                name,
                column,
            )


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(experiments(), experiments(), st.sampled_from(TEXT), st.sampled_from(NUMBERS))
def test_reproduction_refuses_ids_that_cannot_match(original, redone, text, number) -> None:
    with pytest.raises(pdireval.SchemaError, match="convert one side"):
        pdireval.reproduction(
            _with_ids(original, text), _with_ids(redone, number), METRICS, baseline="base"
        )


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(experiments(), st.sampled_from(TEXT + NUMBERS), st.sampled_from(["judged", "retrieved"]))
def test_efficiency_agrees_with_groupby(frame, dtype, queries) -> None:
    frame = _with_ids(frame, dtype)
    found = pdireval.efficiency(frame, queries=queries)
    judged = set(frame.loc[frame["rel"].notna(), "query"])
    retrieved = frame[frame["score"].notna() & frame["query"].isin(judged)]  # evaluated
    for run, rows in retrieved.groupby("run"):
        seconds = rows.groupby("query", observed=True)["time"].first().to_numpy(np.float64)
        expected = {
            "queries": len(seconds),
            "latency_mean": seconds.mean(),
            "latency_median": np.median(seconds),
            "latency_p95": np.quantile(seconds, 0.95),
            "latency_p99": np.quantile(seconds, 0.99),
            "qps": len(seconds) / seconds.sum(),
            "mrt": seconds.mean() * 1000,
        }
        for column, value in expected.items():
            assert found.loc[run, column] == pytest.approx(value, rel=1e-12), (run, column)


def _pool_by_hand(frame: pd.DataFrame, depth: int) -> dict[tuple[str, str], tuple[int, int]]:
    """(query, doc) -> (runs, best rank), each ranking by score, ties by doc descending."""
    pooled: dict[tuple[str, str], tuple[int, int]] = {}
    retrieved = frame[frame["score"].notna()]
    for (_, query), rows in retrieved.groupby(["run", "query"], observed=True):
        ranking = sorted(zip(rows["score"], rows["doc"], strict=True), reverse=True)
        for position, (_, doc) in enumerate(ranking[:depth], start=1):
            runs, best = pooled.get((str(query), doc), (0, position))
            pooled[str(query), doc] = (runs + 1, min(best, position))
    return pooled


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(experiments(), st.sampled_from(TEXT + NUMBERS), st.integers(1, 5))
def test_pool_agrees_with_sorting_each_ranking(frame, dtype, depth) -> None:
    frame = _with_ids(frame, dtype)
    found = pdireval.pool(frame, depth)
    rows = {
        (str(query), doc): (runs, best)
        for query, doc, runs, best in found[["query", "doc", "runs", "best_rank"]].itertuples(
            index=False
        )
    }
    assert rows == _pool_by_hand(frame, depth)


def _scipy_p(test, *samples: np.ndarray) -> float:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return float(test(*samples).pvalue)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    st.lists(st.floats(0, 1), min_size=2, max_size=12),
    st.lists(st.floats(-0.5, 0.5), min_size=2, max_size=12),
    st.booleans(),
)
def test_reproduction_p_values_are_scipy_s_where_they_are_defined(values, shifts, paired) -> None:
    from pdireval.stats import reproduction as reproducibility

    first = np.asarray(values)
    second = np.resize(np.asarray(shifts), len(first)) + first if paired else np.asarray(shifts)
    if paired:
        difference = first - second
        difference[np.abs(difference) <= 1e-12] = 0.0  # equal values, as compare reads them
        found = reproducibility._paired_p(stats, first - second)
        if not difference.any():
            expected = 1.0
        elif np.std(difference, ddof=1) <= 1e-12:
            expected = 0.0  # one constant difference: t is infinite
        else:
            expected = _scipy_p(stats.ttest_rel, difference, np.zeros_like(difference))
    else:
        found = reproducibility._unpaired_p(stats, first, second)
        if max(np.std(first, ddof=1), np.std(second, ddof=1)) <= 1e-12:
            expected = 1.0 if abs(first.mean() - second.mean()) <= 1e-12 else 0.0
        else:
            expected = _scipy_p(stats.ttest_ind, first, second)
    if expected in (0.0, 1.0):
        assert found == expected
    else:
        assert found == pytest.approx(expected, rel=1e-6, abs=1e-12)
