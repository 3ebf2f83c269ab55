"""Metrics of your own: declared through the public API, they behave like built-ins."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from adversarial import adversarial_case

import pdireval
from pdireval import MetricError
from pdireval.metrics import REGISTRY, Ranked, define, define_per_query

pytest.importorskip("scipy")


def _precision(ranked: Ranked, *, k: int, rel: int) -> np.ndarray:
    hits = ranked.per_query_count(ranked.relevant(rel) & (ranked.position <= k))
    return hits / k


def _dcg_weights(ranked: Ranked, rel: int, k: int) -> np.ndarray:
    counted = ranked.relevant(rel) & (ranked.position <= k)
    gains = np.where(counted, ranked.label, 0.0)
    return ranked.per_query_sum(gains / np.log2(ranked.position + 1.0))


def _ndcg(ranked: Ranked, *, k: int, rel: int) -> np.ndarray:
    """nDCG@k with linear gains, the ideal ranking from every judged document."""
    dcg = _dcg_weights(ranked, rel, k)
    ideal = np.zeros(ranked.n_groups)
    for group in range(ranked.n_groups):  # small test data: clarity over speed
        labels = ranked.judged_label[ranked.judged_group == group]
        best = np.sort(np.where(labels >= rel, labels, 0.0))[::-1][:k]
        ideal[group] = np.sum(best / np.log2(np.arange(2, len(best) + 2)))
    return np.divide(dcg, ideal, out=np.zeros_like(dcg), where=ideal > 0)


def _slow_precision(ranking: np.ndarray, judgments: np.ndarray, *, k: int, rel: int) -> float:
    return float(np.sum(ranking >= rel) / k)


@pytest.fixture(scope="module")
def declared():
    families = [
        define("MyP", _precision, cutoff="required", replace=True),
        define("MyNDCG", _ndcg, cutoff="required", replace=True),
        define_per_query("SlowP", _slow_precision, cutoff="required", replace=True),
    ]
    yield families
    for family in families:
        REGISTRY.pop(family.name, None)


@pytest.mark.parametrize("seed", range(4))
@pytest.mark.parametrize("level", [1, 2])
def test_redeclared_p_and_ndcg_give_the_built_in_numbers(declared, seed: int, level: int) -> None:
    run, qrels = adversarial_case(seed)
    frame = pdireval.merge_qrels(run, qrels)
    suffix = "" if level == 1 else f"(rel={level})"
    for k in (1, 3, 10):
        names = {
            f"MyP{suffix}@{k}": f"P{suffix}@{k}",
            f"SlowP{suffix}@{k}": f"P{suffix}@{k}",
            f"MyNDCG{suffix}@{k}": f"nDCG{suffix}@{k}",
        }
        table = pdireval.evaluate(frame, [*names, *set(names.values())])
        for mine, builtin in names.items():
            np.testing.assert_allclose(table[mine], table[builtin], rtol=0, atol=1e-12)


def test_a_defined_metric_works_everywhere(declared) -> None:
    """summary, compare, report, curves and the name grammar take it like a built-in."""
    frame = pdireval.datasets.toy()
    summary = pdireval.summary(frame, ["MyP@5", "P@5"])
    np.testing.assert_allclose(summary["MyP@5"], summary["P@5"])
    compared = pdireval.compare(frame, ["MyP@5", "P@5"], test="sign")
    pd.testing.assert_series_equal(
        compared["p_value"].iloc[[0]].reset_index(drop=True),
        compared["p_value"].iloc[[1]].reset_index(drop=True),
    )
    report = pdireval.report(frame, "MyNDCG@10", test="sign")
    assert list(report.summary.columns) == ["MyNDCG@10"]
    curve = pdireval.curve(frame, "MyP", ks=[1, 2, 3])
    np.testing.assert_allclose(
        curve["value"], pdireval.curve(frame, "P", ks=[1, 2, 3])["value"], rtol=0, atol=1e-12
    )
    assert pdireval.parse_metric("myp(rel=2)@5").label == "MyP(rel=2)@5"


def test_a_defined_metric_plots(declared) -> None:
    matplotlib = pytest.importorskip("matplotlib")
    matplotlib.use("Agg")
    ax = pdireval.datasets.toy().ireval.plot.at_k("MyP", ks=range(1, 6))
    assert len(ax.get_lines()) == 2
    matplotlib.pyplot.close("all")


def test_a_defined_metric_works_on_dask(declared) -> None:
    dd = pytest.importorskip("dask.dataframe")
    import pdireval.dask

    frame = pdireval.datasets.example()
    lazy = dd.from_pandas(frame, npartitions=3)
    on_dask = pdireval.dask.summary(lazy, ["MyP@10", "P@10"])
    np.testing.assert_allclose(on_dask["MyP@10"], on_dask["P@10"], rtol=0, atol=1e-12)


def test_parameters_of_your_own() -> None:
    def weighted(ranked: Ranked, *, k: None, rel: int, weight: float, top: int) -> np.ndarray:
        found = ranked.per_query_count(ranked.relevant(rel) & (ranked.position <= top))
        return weight * found

    family = define("Weighted", weighted, params={"weight": 0.5, "top": 2}, bounded=False)
    try:
        frame = pdireval.datasets.toy()
        table = pdireval.evaluate(frame, ["Weighted", "Weighted(weight=2.0, top=1)"])
        assert table["Weighted"].tolist() == [0.5, 0.5, 0.5, 0.5]
        assert table["Weighted(weight=2, top=1)"].tolist() == [2.0, 2.0, 0.0, 0.0]
        with pytest.raises(MetricError, match="top= must be a whole number"):
            family(top="one")
        with pytest.raises(MetricError, match="weight= must be a number"):
            pdireval.parse_metric("Weighted(weight='heavy')")
    finally:
        REGISTRY.pop("Weighted", None)


def test_names_are_checked() -> None:
    with pytest.raises(MetricError, match=r"already names the built-in metric AP"):
        define("AP", _precision)
    with pytest.raises(MetricError, match="letters, digits and underscores"):
        define("my metric", _precision)
    with pytest.raises(MetricError, match="rel= is every metric's parameter"):
        define("Bad", _precision, params={"rel": 2})
    family = define("Twice", _precision, cutoff="required")
    try:
        with pytest.raises(MetricError, match="pass replace=True"):
            define("Twice", _precision, cutoff="required")
        assert define("Twice", _precision, cutoff="required", replace=True) is not family
    finally:
        REGISTRY.pop("Twice", None)


def test_a_name_read_before_follows_the_registry() -> None:
    """Names are read once and remembered; declaring, replacing or removing a metric
    changes what a name stands for at once.
    """
    with pytest.raises(MetricError, match="unknown metric"):
        pdireval.parse_metric("Later@3")
    first = define("Later", _precision, cutoff="required")
    try:
        assert pdireval.parse_metric("Later@3").family is first
        second = define("Later", _precision, cutoff="required", replace=True)
        assert pdireval.parse_metric("Later@3").family is second
    finally:
        REGISTRY.pop("Later", None)
    with pytest.raises(MetricError, match="unknown metric"):
        pdireval.parse_metric("Later@3")


def test_result_columns_are_not_shared_between_calls() -> None:
    frame = pdireval.datasets.toy()
    first = pdireval.evaluate(frame, ["AP", "P@2"])
    first.columns.name = "changed"
    second = pdireval.evaluate(frame, ["AP", "P@2"])
    assert second.columns.name == "metric"
    assert second.columns is not first.columns
