"""Metrics of your own: declared through the public API, they behave like built-ins."""

from __future__ import annotations

import re
import warnings

import numpy as np
import pandas as pd
import pytest
from adversarial import adversarial_case
from hypothesis import given, settings
from hypothesis import strategies as st

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


# ------------------------------------------------- what a metric of your own returns or does


def _runs() -> pd.DataFrame:
    """Two runs of two queries; q2 of run b retrieved a single relevant document."""
    return pd.DataFrame(
        {
            "run": ["a", "a", "a", "b", "b"],
            "query": ["q1", "q1", "q2", "q1", "q2"],
            "doc": ["x", "y", "z", "x", "z"],
            "rank": [1, 2, 1, 1, 1],
            "rel": [1, 0, 1, 1, 2],
        }
    )


@pytest.fixture
def forget():
    """Metrics declared by a test are forgotten after it."""
    before = set(REGISTRY)
    yield
    for name in set(REGISTRY) - before:
        del REGISTRY[name]


def _only_at_b_q2(value):
    """A per-query function that returns ``value`` for run b's q2 (labels [2]) alone."""

    def function(ranking, judgments, *, rel):
        return value if list(ranking) == [2.0] else 0.5

    return function


@pytest.mark.parametrize(
    ("value", "found", "hint"),
    [
        (None, r"None \(NoneType", "ends without `return`"),
        ("0.5", r"'0\.5' \(str", "not its text"),
        (b"1", r"b'1' \(bytes", "not its text"),
        (True, r"True \(bool", r"float\(\.\.\.\)"),
        (np.bool_(False), r"(np\.)?False_? \(bool", r"float\(\.\.\.\)"),
        (np.array([0.5]), r"array\(\[0\.5\]\) \(ndarray", "not an array"),
        ([0.5], r"\[0\.5\] \(list", "not an array"),
        (1j, r"1j \(complex", "one number"),
        (float("inf"), "inf, an infinite value", "one number"),
        pytest.param(-(10**400), r"-100+\.\.\.0+, an infinite value", "one number", id="huge"),
    ],
)
def test_a_per_query_value_that_is_no_number_names_the_query(forget, value, found, hint) -> None:
    define_per_query("Odd", _only_at_b_q2(value))
    with pytest.raises(MetricError, match=rf"^the function of Odd returned {found}") as error:
        pdireval.evaluate(_runs(), ["AP", "Odd"])
    message = str(error.value)
    assert "for run 'b', query 'q2';" in message
    assert re.search(hint, message), message
    assert "NaN where the measure is undefined" in message


@settings(max_examples=80, deadline=None)
@given(
    value=st.one_of(
        st.floats(),
        st.integers(-(2**70), 2**70),
        st.floats(width=32).map(np.float32),
        st.integers(-(2**63), 2**63 - 1).map(np.int64),
        st.booleans(),
        st.text(max_size=3),
        st.none(),
        st.lists(st.floats(), max_size=2),
    )
)
def test_a_per_query_value_is_a_number_or_a_named_error(value) -> None:
    """A real number (NaN included) is the query's value; anything else names the query."""
    define_per_query("Anything", _only_at_b_q2(value), bounded=False, replace=True)
    try:
        number = isinstance(value, int | float | np.number) and not isinstance(value, bool)
        if number and not np.isinf(float(value)):
            values = pdireval.evaluate(_runs(), "Anything")["Anything"].to_numpy()
            np.testing.assert_array_equal(values, [0.5, 0.5, 0.5, float(value)])
        else:
            with pytest.raises(
                MetricError,
                match=r"^the function of Anything returned .* for run 'b', query 'q2'; ",
            ):
                pdireval.evaluate(_runs(), "Anything")
    finally:
        REGISTRY.pop("Anything", None)


@pytest.mark.parametrize(
    "value", [0.25, 1, np.float32(0.25), np.int64(1), np.float64("nan"), float("nan"), -3]
)
def test_a_per_query_number_is_its_value(forget, value) -> None:
    define_per_query("Fine", _only_at_b_q2(value), bounded=False)
    values = pdireval.evaluate(_runs(), "Fine")["Fine"]
    assert values.dtype == np.float64
    np.testing.assert_array_equal(values.to_numpy(), [0.5, 0.5, 0.5, float(value)])


@pytest.mark.parametrize(
    ("change", "what"),
    [
        (lambda ranking, judgments: ranking.__setitem__(0, 1.0), "assignment destination"),
        (lambda ranking, judgments: judgments.sort(), "sort array"),
        (lambda ranking, judgments: np.add(ranking, 1, out=ranking), "output array"),
    ],
)
def test_a_per_query_function_that_writes_into_its_input(forget, change, what) -> None:
    def function(ranking, judgments, *, rel):
        if list(ranking) == [2.0]:
            change(ranking, judgments)
        return 0.0

    define_per_query("Writer", function)
    with pytest.raises(
        MetricError,
        match=rf"^the function of Writer wrote into its input \({what} is read-only\) for "
        r"run 'b', query 'q2'; .* ranking = ranking\.copy\(\)",
    ) as error:
        pdireval.evaluate(_runs(), ["Writer", "AP"])
    assert isinstance(error.value.__cause__, ValueError)
    assert pdireval.evaluate(_runs(), "AP")["AP"].tolist() == [1.0, 1.0, 1.0, 1.0]


@pytest.mark.parametrize(
    ("body", "found"),
    [
        (lambda ranking: np.float64(1.0) / np.float64(0.0), r"failed in floating point \(divide"),
        (lambda ranking: np.mean(ranking[ranking > 5]), r"warned \(Mean of empty slice"),
        (lambda ranking: 1 / 0, "raised ZeroDivisionError: division by zero"),
        (lambda ranking: ranking[3], "raised IndexError: index 3 is out of bounds"),
    ],
)
def test_a_per_query_function_that_fails_names_the_query(forget, body, found) -> None:
    def function(ranking, judgments, *, rel):
        return body(ranking) if list(ranking) == [2.0] else 0.0

    define_per_query("Fails", function)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no numpy warning escapes
        with pytest.raises(
            MetricError, match=rf"^the function of Fails {found}.* for run 'b', query 'q2';"
        ):
            pdireval.evaluate(_runs(), "Fails")


def test_a_per_query_failure_names_the_query_alone_without_runs(forget) -> None:
    define_per_query("NoneForQ2", lambda ranking, judgments, *, rel: None)
    frame = _runs()[lambda f: f["run"] == "a"].drop(columns="run").rename(columns={"query": "qid"})
    with pytest.raises(MetricError, match=r"returned None .* for qid 'q1';"):
        pdireval.evaluate(frame, "NoneForQ2")


def test_a_kernel_that_writes_into_the_arrays(forget) -> None:
    def vandal(ranked, *, k, rel):
        ranked.label[:] = 0
        return ranked.num_ret

    define("Vandal", vandal)
    with pytest.raises(
        MetricError,
        match=r"^your kernel of Vandal wrote into the prepared arrays \(assignment destination "
        r"is read-only\); .* ranked\.label\.copy\(\)",
    ):
        pdireval.evaluate(_runs(), ["AP", "Vandal"])


@pytest.mark.parametrize(
    ("kernel", "found"),
    [
        (lambda ranked, *, k, rel: ranked.num_ret / (ranked.num_ret - 1), r"failed in floating"),
        (lambda ranked, *, k, rel: np.full(ranked.n_groups, np.mean(ranked.label[:0])), "warned"),
    ],
)
def test_a_kernel_that_fails_in_floating_point(forget, kernel, found) -> None:
    define("Fragile", kernel)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with pytest.raises(
            MetricError, match=rf"^your kernel of Fragile {found} .* np\.divide\(a, b"
        ) as error:
            pdireval.evaluate(_runs(), "Fragile")
    assert "relevance label" not in str(error.value)  # not the built-ins' advice


@pytest.mark.parametrize(
    ("kernel", "found"),
    [
        (lambda ranked, *, k, rel: np.zeros(ranked.n_groups + 1), r"array of shape \(5,\)"),
        (lambda ranked, *, k, rel: np.zeros((ranked.n_groups, 1)), r"array of shape \(4, 1\)"),
        (lambda ranked, *, k, rel: 0.5, "returned float"),
        (lambda ranked, *, k, rel: None, "returned NoneType"),
        (lambda ranked, *, k, rel: np.array(["0.5"] * 4), "dtype <U3"),
        (lambda ranked, *, k, rel: np.array([0.5, None, 1, 2], dtype=object), "dtype object"),
        (lambda ranked, *, k, rel: np.zeros(4, dtype=complex), "dtype complex128"),
    ],
)
def test_a_kernel_that_returns_no_numbers(forget, kernel, found) -> None:
    define("Shapeless", kernel)
    with pytest.raises(MetricError, match=rf"^your kernel of Shapeless .*{found}"):
        pdireval.evaluate(_runs(), "Shapeless")


def test_built_in_failures_keep_their_advice() -> None:
    huge = pdireval.metrics.DCG(gain={0: 0, 1: 1e308})
    frame = pd.DataFrame({"query": "q", "doc": ["a", "b", "c"], "rank": [1, 2, 3], "rel": 1})
    with pytest.raises(MetricError, match=r"^(computing|the kernel of) DCG") as error:
        pdireval.evaluate(frame, huge)
    assert "your kernel" not in str(error.value)
    assert "np.divide" not in str(error.value)
