"""Tests every registered metric family must pass, whatever it computes.

Each family is evaluated (with cutoffs where it takes them, plus ``rel=0``/``rel=2``,
gain and discount variants) on a small hand-made frame and on frames drawn by
:func:`strategies.long_frames`, and checked against its declaration (names, labels,
bounds, docstring), the slow reference of ``reference.py``, and invariants that hold
for any correct evaluator. A newly registered family is tested here without a line of
its own.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from reference import REFERENCE, reference_frame
from strategies import long_frames, perfect_ranking

import pdireval
from pdireval import parse_metric
from pdireval.metrics import REGISTRY, Metric
from pdireval.stats.summary import GMEAN_FLOOR

CUTOFFS = (1, 2, 3, 5, 10)
GAIN_TABLE = {1: 1.5, 2: 4.0, 3: 5.0}  # every positive label of the strategy has a gain
SETTINGS = settings(
    max_examples=40,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)

#: Families DESIGN.md §2 lists as core: they must exist and have a slow reference.
CORE_FAMILIES = (
    "P",
    "R",
    "AP",
    "RR",
    "nDCG",
    "DCG",
    "Rprec",
    "Success",
    "NumRel",
    "NumRet",
    "NumRelRet",
    "Bpref",
)


def _variants(family: Any) -> list[Metric]:
    """The family at its defaults and with the parameter values worth varying."""
    needed = {"n_docs": 50} if "n_docs" in family.params else {}  # Fallout's collection size
    metrics = [family(**needed)]
    if "rel" in family.params:
        metrics += [family(rel=0, **needed), family(rel=2, **needed)]
    if "gain" in family.params:
        metrics += [family(gain="exp"), family(gain=GAIN_TABLE), family(gain="exp", rel=2)]
    if "discount" in family.params:
        metrics += [family(discount="jarvelin", base=2), family(discount="jarvelin", base=3)]
    if "rel_only" in family.params:
        metrics += [family(rel_only=True), family(rel_only=True, gain="exp", rel=2)]
    if "norm" in family.params:
        metrics += [family(norm="min")]
    if "beta" in family.params:
        metrics += [family(beta=0.5), family(fbeta=2), family(alpha=0.2)]
    if "max_label" in family.params:
        metrics += [family(max_label="query"), family(max_label=2, rel=2)]
    if "negative" in family.params:
        metrics += [family(negative="unjudged")]
    if "judged_only" in family.params:
        metrics += [family(judged_only=True, **needed)]
    return metrics


#: Recall levels for families whose cutoff is a recall level (IPrec@r).
RECALL_LEVELS = (0.0, 0.3, 0.5, 1.0)


def registry_metrics() -> list[Metric]:
    """Every registered family, with each cutoff when it takes one."""
    metrics: list[Metric] = []
    for family in REGISTRY.values():
        if "subtopic" in family.needs:  # subtopic judgments: tests/test_diversity.py
            continue
        if {"nugget", "sentence"} & set(family.needs):  # answers: tests/metrics/test_nuggets.py
            continue  # and tests/metrics/test_citations.py
        for metric in _variants(family):
            if family.cutoff != "required":
                metrics.append(metric)
            if family.cutoff != "none":
                cuts = RECALL_LEVELS if family.cutoff_kind == "recall" else CUTOFFS
                metrics += [metric @ k for k in cuts]
    return list(dict.fromkeys(metrics))


METRICS = registry_metrics()
REFERENCED = [metric for metric in METRICS if metric.family.name in REFERENCE]
LABELS = [metric.label for metric in METRICS]


def _columns(frame: pd.DataFrame) -> dict[str, Any]:
    return {"run": "run" if "run" in frame.columns else None}


def _reference_specs(metrics: list[Metric]) -> list[tuple[str, str, dict[str, Any], int | None]]:
    return [(m.label, m.family.name, m.parameters, m.k) for m in metrics]


# --------------------------------------------------------------------------- the registry


def test_core_families_are_registered_and_referenced() -> None:
    missing = [name for name in CORE_FAMILIES if name not in REGISTRY]
    assert missing == []
    assert [name for name in CORE_FAMILIES if name not in REFERENCE] == []
    # The generated metric list really spans the registry, variants included.
    diversity = {
        name
        for name, family in REGISTRY.items()
        if {"subtopic", "nugget", "sentence"} & set(family.needs)
    }
    assert {metric.family.name for metric in METRICS} == set(REGISTRY) - diversity
    assert "nDCG(gain='exp')@10" in LABELS
    assert "P(rel=2)@5" in LABELS


# --------------------------------------------------------------------------- the reference


@settings(SETTINGS, max_examples=100)
@given(frame=long_frames(), queries=st.sampled_from(["judged", "retrieved", "all"]))
def test_agrees_with_the_slow_reference_on_every_query(frame: pd.DataFrame, queries: str) -> None:
    ours = pdireval.evaluate(frame, REFERENCED, queries=queries)
    expected = reference_frame(
        frame, _reference_specs(REFERENCED), queries=queries, **_columns(frame)
    )
    assert sorted(map(str, ours.index)) == sorted(map(str, expected))
    mismatches = []
    for key, values in expected.items():
        for label, value in values.items():
            got = float(ours.loc[key, label])
            if math.isnan(value) and math.isnan(got):
                continue
            if not abs(got - value) <= 1e-9:
                mismatches.append((key, label, got, value))
    assert mismatches == []


@SETTINGS
@given(frame=long_frames())
def test_result_shape_and_dtypes(frame: pd.DataFrame) -> None:
    ours = pdireval.evaluate(frame, METRICS)
    assert list(ours.columns) == LABELS
    assert ours.columns.name == "metric"
    assert all(dtype == np.float64 for dtype in ours.dtypes)
    if "run" in frame.columns:
        assert list(ours.index.names) == ["run", "query"]
    else:
        assert ours.index.name == "query"
    assert ours.index.is_unique
    assert list(ours.index) == sorted(ours.index)


@SETTINGS
@given(frame=long_frames(), kind=st.sampled_from(["polars", "polars-lazy", "arrow"]))
def test_polars_frames_and_arrow_tables_give_the_pandas_numbers(
    frame: pd.DataFrame, kind: str
) -> None:
    """Every measure of the registry, on the same frame handed over as polars or Arrow."""
    pl = pytest.importorskip("polars")
    import pyarrow as pa

    import pdireval.polars

    foreign = {
        "polars": lambda: pl.from_pandas(frame),
        "polars-lazy": lambda: pl.from_pandas(frame).lazy(),
        "arrow": lambda: pa.Table.from_pandas(frame, preserve_index=False),
    }[kind]()
    expected = pdireval.evaluate(frame, METRICS)
    ours = pdireval.evaluate(foreign, METRICS)
    # the same queries; in the same order, except that polars gives a categorical column
    # its categories in the order they appear (it has no order of its own to keep)
    keys = [str(key) for key in expected.index]
    assert sorted(str(key) for key in ours.index) == sorted(keys)
    ours.index = pd.Index([str(key) for key in ours.index])
    np.testing.assert_array_equal(ours.loc[keys].to_numpy(), expected.to_numpy())
    if kind.startswith("polars"):  # the polars accessor: a polars table of the same numbers
        table = foreign.ireval.evaluate(METRICS)
        assert isinstance(table, pl.DataFrame)
        names = list(expected.index.names)
        assert table.columns == [*names, *LABELS]
        rows = [str(key[0] if len(key) == 1 else key) for key in table.select(names).rows()]
        values = pd.DataFrame(table.select(LABELS).to_numpy(), index=rows)
        np.testing.assert_array_equal(values.loc[keys].to_numpy(), expected.to_numpy())


# --------------------------------------------------------------------------- invariants


@SETTINGS
@given(frame=long_frames())
def test_bounded_families_stay_in_unit_interval(frame: pd.DataFrame) -> None:
    ours = pdireval.evaluate(frame, METRICS, queries="all")
    for metric in METRICS:
        values = ours[metric.label].dropna().to_numpy()
        if metric.family.bounded:
            assert np.all((values >= 0) & (values <= 1)), metric.label
        if metric.family.name in REFERENCE:  # counts and DCG with non-negative gains
            assert np.all(values >= 0), metric.label


@SETTINGS
@given(frame=long_frames(), data=st.data())
def test_row_order_does_not_matter(frame: pd.DataFrame, data: st.DataObject) -> None:
    permutation = data.draw(st.permutations(range(len(frame))))
    shuffled = frame.iloc[list(permutation)]
    first = pdireval.evaluate(frame, METRICS)
    second = pdireval.evaluate(shuffled, METRICS)
    pd.testing.assert_index_equal(first.index, second.index)
    np.testing.assert_allclose(second.to_numpy(), first.to_numpy(), rtol=0, atol=1e-12)


@SETTINGS
@given(frame=long_frames(), data=st.data())
def test_relabelling_queries_relabels_the_index(frame: pd.DataFrame, data: st.DataObject) -> None:
    old = sorted(frame["query"].unique())
    new = data.draw(st.permutations([f"new-{i:02d}" for i in range(len(old))]))
    mapping = dict(zip(old, new, strict=True))  # a bijection that reorders the sorted ids
    relabelled = frame.assign(query=frame["query"].map(mapping))
    first = pdireval.evaluate(frame, METRICS, queries="all")
    second = pdireval.evaluate(relabelled, METRICS, queries="all")
    assert len(first) == len(second)
    for key in first.index:
        new_key = (key[0], mapping[key[1]]) if isinstance(key, tuple) else mapping[key]
        np.testing.assert_allclose(
            second.loc[new_key].to_numpy(dtype=float),
            first.loc[key].to_numpy(dtype=float),
            rtol=0,
            atol=1e-12,
        )


@SETTINGS
@given(frame=long_frames())
def test_the_input_frame_is_not_modified(frame: pd.DataFrame) -> None:
    before = frame.copy(deep=True)
    pdireval.evaluate(frame, METRICS)
    pdireval.summary(frame, ["AP", "nDCG@5"], agg="gmean")
    frame.ireval.evaluate(["P@3"])
    pd.testing.assert_frame_equal(frame, before)
    assert frame.index.equals(before.index)


@SETTINGS
@given(frame=long_frames(), validate=st.booleans())
def test_accessor_and_validate_flag_give_the_same_values(
    frame: pd.DataFrame, validate: bool
) -> None:
    metrics = ["AP", "nDCG@3", "P@2", "Bpref", "RR@3"]
    expected = pdireval.evaluate(frame, metrics)
    pd.testing.assert_frame_equal(frame.ireval.evaluate(metrics, validate=validate), expected)


@SETTINGS
@given(frame=long_frames(runs=True))
def test_each_run_evaluates_as_if_alone(frame: pd.DataFrame) -> None:
    metrics = ["AP", "nDCG@3", "P@2", "Bpref", "RR", "NumRet", "DCG(gain='exp')"]
    together = pdireval.evaluate(frame, metrics)
    for run, part in frame.groupby("run", sort=True):
        alone = pdireval.evaluate(part.drop(columns="run"), metrics)
        mine = together[together.index.get_level_values("run") == run].droplevel("run")
        # Compared as strings: index dtypes may differ between a level and a flat index.
        assert list(map(str, mine.index)) == list(map(str, alone.index))
        np.testing.assert_allclose(mine.to_numpy(), alone.to_numpy(), rtol=0, atol=1e-12)


@SETTINGS
@given(frame=long_frames())
def test_query_policies_nest(frame: pd.DataFrame) -> None:
    metrics = ["AP", "NumRet", "NumRel", "nDCG@5"]
    everything = pdireval.evaluate(frame, metrics, queries="all")
    judged = pdireval.evaluate(frame, metrics, queries="judged")
    retrieved = pdireval.evaluate(frame, metrics, queries="retrieved")
    assert set(retrieved.index) <= set(judged.index) <= set(everything.index)
    pd.testing.assert_frame_equal(everything.loc[judged.index], judged)
    pd.testing.assert_frame_equal(judged.loc[retrieved.index], retrieved)
    assert (retrieved["NumRet"] > 0).all()
    unjudged = everything.index.difference(judged.index)
    assert everything.loc[unjudged].isna().all().all()
    assert not judged.isna().any().any()


# --------------------------------------------------------------------------- cross-metric sanity


@SETTINGS
@given(frame=long_frames())
def test_cutoff_monotonicity_and_counts(frame: pd.DataFrame) -> None:
    cuts = range(1, 13)
    metrics = ["AP", "RR", "NumRet", "NumRel", "NumRelRet", "Rprec"] + [
        f"{name}@{k}" for name in ("P", "R", "AP", "RR", "Success") for k in cuts
    ]
    ours = pdireval.evaluate(frame, metrics)
    tol = 1e-12
    for name in ("R", "AP", "RR", "Success"):
        at = np.column_stack([ours[f"{name}@{k}"] for k in cuts])
        assert np.all(np.diff(at, axis=1) >= -tol), f"{name}@k decreases in k"
    hits = np.column_stack([ours[f"P@{k}"] * k for k in cuts])
    assert np.all(np.diff(hits, axis=1) >= -tol)
    assert np.all(np.diff(hits, axis=1) <= 1 + tol)  # at most one more hit per rank
    assert np.all(hits <= ours["NumRelRet"].to_numpy()[:, None] + tol)
    assert np.all(ours["NumRelRet"] <= ours["NumRel"])
    assert np.all(ours["NumRelRet"] <= ours["NumRet"])
    for k in cuts:
        assert np.all(ours[f"AP@{k}"] <= ours["AP"] + tol)
        assert np.all(ours[f"RR@{k}"] <= ours["RR"] + tol)
        assert np.all(ours[f"Success@{k}"] >= ours[f"RR@{k}"] - tol)
        deep = ours["NumRet"] <= k  # the whole ranking is within k
        assert np.allclose(hits[deep.to_numpy(), k - 1], ours.loc[deep, "NumRelRet"], atol=tol)
        found, relevant = ours.loc[deep, "NumRelRet"], ours.loc[deep, "NumRel"]
        recall = (found / relevant.where(relevant > 0)).fillna(0.0)
        assert np.allclose(ours.loc[deep, f"R@{k}"], recall, rtol=0, atol=tol)
    # Rprec <= 1 and equals R@R when R > 0 (precision and recall meet at rank R).
    for key, row in ours.iterrows():
        r = int(row["NumRel"])
        if 1 <= r <= max(cuts):
            assert abs(row["Rprec"] - row[f"R@{r}"]) <= tol
            assert abs(row["Rprec"] - row[f"P@{r}"]) <= tol, key


@SETTINGS
@given(frame=long_frames())
def test_a_perfect_ranking_scores_one(frame: pd.DataFrame) -> None:
    perfect = perfect_ranking(frame)
    metrics = [
        "NumRel",
        "AP",
        "RR",
        "Rprec",
        "Bpref",
        "nDCG",
        "nDCG(gain='exp')",
        "nDCG(discount='jarvelin', base=3)",
        "nDCG(rel=2)",
        "NumRel(rel=2)",
    ]
    metrics += [f"nDCG@{k}" for k in CUTOFFS] + [f"nDCG(gain='exp')@{k}" for k in CUTOFFS]
    ours = pdireval.evaluate(perfect, metrics)
    has_relevant = ours["NumRel"] > 0
    for label in ours.columns:
        if label.startswith("NumRel"):
            continue
        relevant = has_relevant if "rel=2" not in label else ours["NumRel(rel=2)"] > 0
        np.testing.assert_allclose(
            ours.loc[relevant, label], 1.0, rtol=0, atol=1e-12, err_msg=label
        )
        assert (ours.loc[~relevant, label] == 0).all(), label


@SETTINGS
@given(
    frame=long_frames(),
    agg=st.sampled_from(["mean", "gmean", "hmean", "median"]),
    queries=st.sampled_from(["judged", "all"]),
)
def test_summary_aggregates_the_per_query_table(
    frame: pd.DataFrame, agg: str, queries: str
) -> None:
    metrics = ["AP", "nDCG@3", "NumRet"]
    table = pdireval.evaluate(frame, metrics, queries=queries)
    result = pdireval.summary(frame, metrics, agg=agg, queries=queries)

    def expected(values: np.ndarray) -> float:
        values = values[~np.isnan(values)]  # unjudged queries under queries="all"
        if len(values) == 0:
            return math.nan
        if agg == "mean":
            return float(np.mean(values))
        if agg == "median":
            return float(np.median(values))
        if agg == "gmean":
            return math.exp(sum(math.log(max(v, GMEAN_FLOOR)) for v in values) / len(values))
        return 0.0 if min(values) == 0 else len(values) / sum(1 / v for v in values)

    if "run" in frame.columns:
        for run, part in table.groupby(level="run"):
            for label in metrics:
                np.testing.assert_allclose(
                    result.loc[run, label], expected(part[label].to_numpy()), rtol=1e-12
                )
    else:
        for label in metrics:
            np.testing.assert_allclose(result[label], expected(table[label].to_numpy()), rtol=1e-12)


@pytest.mark.parametrize("family", sorted({metric.family.name for metric in METRICS}))
def test_every_family_evaluates_on_a_small_frame(family: str) -> None:
    """Each family (every variant and cutoff) runs and gives one float per judged query."""
    frame = pd.DataFrame(
        {
            "query": ["a", "a", "a", "b", "b", "c"],
            "doc": ["x", "y", "z", "x", "w", "v"],
            "rank": [1, 2, None, 1, 2, 1],
            "rel": [1, None, 2, 0, -1, None],
            "known": [True, False, False, False, True, False],
            "time": [0.1, 0.1, 0.1, 0.2, 0.2, 0.3],
        }
    )
    metrics = [metric for metric in METRICS if metric.family.name == family]
    ours = pdireval.evaluate(frame, metrics)
    assert list(ours.index) == ["a", "b"]  # "c" has no judgment
    # NaN only where a family declares a value undefined (e.g. no relevant document found)
    assert ours.notna().all().all() or family in MAY_BE_NAN


# --- every family of the registry ------------------------------------------------------------

#: Families evaluated on ordinary frames (the diversity families, which need subtopic
#: judgments, are checked against ndeval in tests/test_diversity.py; the nugget families
#: read nugget frames, tests/metrics/test_nuggets.py).
FAMILIES = sorted(
    name
    for name, family in REGISTRY.items()
    if not {"subtopic", "nugget", "sentence"} & set(family.needs)
)


def _cut(family, rank: int):
    """A valid cutoff for ``family``: the rank, or for recall-level families rank / 10."""
    return rank / 10 if family.cutoff_kind == "recall" else rank


#: Parameters some families cannot do without (the collection size of Fallout).
NEEDED = {"Fallout": {"n_docs": 1000}}

#: Families whose value is NaN where it is undefined (no relevant document found, none known;
#: for Accuracy, no pair of a relevant and a non-relevant retrieved document to order).
MAY_BE_NAN = {"SearchLength", "ESL", "Coverage", "Novelty", "Accuracy"}


def _default(name: str) -> Metric:
    """The family's default metric, with @5 (recall level 0.5) when it takes a cutoff."""
    family = REGISTRY[name]
    metric = family(**NEEDED.get(name, {}))
    return metric if family.cutoff == "none" else metric @ _cut(family, 5)


def _registry_frame() -> pd.DataFrame:
    """Three judged queries with graded, unjudged, negative and unretrieved rows, and an unjudged
    query (dropped under queries="judged")."""
    return pd.DataFrame(
        {
            "query": ["q1"] * 6 + ["q2"] * 3 + ["q3"] * 2 + ["q4"],
            "doc": ["a", "b", "c", "d", "e", "f", "a", "b", "c", "a", "b", "a"],
            "rank": [1, 2, 3, 4, 5, np.nan, 1, 2, np.nan, 1, 2, 1],
            "rel": [0, 2, np.nan, 1, -1, 3, 0, 0, 0, 2, 1, np.nan],
            "known": [False, True] + [False] * 5 + [True, False, True, False, False],
            "time": [0.1] * 6 + [0.2] * 3 + [0.3] * 2 + [0.4],
        }
    )


def test_registry_holds_the_core_families() -> None:
    """The DESIGN §2 core labels are all registered."""
    core = {"P", "R", "AP", "RR", "nDCG", "DCG", "Rprec", "Success"}
    core |= {"NumRel", "NumRet", "NumRelRet", "Bpref"}
    assert core <= set(REGISTRY)


@pytest.mark.parametrize("name", FAMILIES)
def test_family_label_round_trip(name: str) -> None:
    """The default metric's label parses back to an equal metric; the registry key is the name."""
    metric = _default(name)
    assert REGISTRY[name].name == name
    assert parse_metric(metric.label) == metric
    assert parse_metric(metric.label.lower()) == metric


@pytest.mark.parametrize("name", [n for n in FAMILIES if "rel" in REGISTRY[n].params])
def test_family_non_default_rel_round_trip(name: str) -> None:
    """A non-default rel= shows in the label, which parses back to the same metric."""
    family = REGISTRY[name]
    metric = family(rel=2, **NEEDED.get(name, {}))
    metric = metric if family.cutoff == "none" else metric @ _cut(family, 5)
    assert "(rel=2" in metric.label
    assert parse_metric(metric.label) == metric
    assert metric != _default(name)


@pytest.mark.parametrize("name", FAMILIES)
def test_family_aliases_resolve(name: str) -> None:
    """Every alias (any case) names its family."""
    family = REGISTRY[name]
    suffix = f"@{_cut(family, 5)}" if family.cutoff == "required" else ""
    for alias in family.aliases:
        assert parse_metric(alias + suffix).family is family
        assert parse_metric(alias.upper() + suffix).family is family
    for alias in family.cutoff_aliases:
        assert parse_metric(f"{alias}_{_cut(family, 7)}") == family @ _cut(family, 7)


@pytest.mark.parametrize("name", FAMILIES)
def test_family_one_float64_per_query(name: str) -> None:
    """On a small frame each family returns one finite float64 per judged query."""
    metric = _default(name)
    result = pdireval.evaluate(_registry_frame(), metric)
    assert result.index.tolist() == ["q1", "q2", "q3"]
    assert result.columns.tolist() == [metric.label]
    assert result[metric.label].dtype == np.float64
    values = result[metric.label]
    assert np.isfinite(values if name not in MAY_BE_NAN else values.dropna()).all()


@pytest.mark.parametrize("name", [n for n in FAMILIES if REGISTRY[n].bounded])
@pytest.mark.parametrize("k", [1, 2, 5, 100])
def test_bounded_families_stay_in_unit_interval_at_every_cutoff(name: str, k: int) -> None:
    """Families declared bounded give values in [0, 1] (at several cutoffs)."""
    family = REGISTRY[name]
    cut = min(k / 100, 1.0) if family.cutoff_kind == "recall" else k
    metric = family(**NEEDED.get(name, {}))
    metric = metric if family.cutoff == "none" else metric @ cut
    values = pdireval.evaluate(_registry_frame(), metric, queries="retrieved")[metric.label]
    values = values.dropna() if name in MAY_BE_NAN else values
    assert ((values >= 0) & (values <= 1)).all()


def test_unbounded_counts_on_hand_computed_frame() -> None:
    """The counting families on the registry frame, by hand: q1 has b(2), d(1), f(3) relevant,
    retrieves 5 (b, d relevant); q2 none relevant; q3 both relevant and retrieved."""
    result = pdireval.evaluate(_registry_frame(), ["NumRel", "NumRet", "NumRelRet"])
    assert result.to_dict("list") == {
        "NumRel": [3.0, 0.0, 2.0],
        "NumRet": [5.0, 2.0, 2.0],
        "NumRelRet": [2.0, 0.0, 2.0],
    }


@pytest.mark.parametrize("name", FAMILIES)
def test_family_docstring(name: str) -> None:
    """Every family documents itself."""
    doc = REGISTRY[name].__doc__
    assert isinstance(doc, str)
    assert doc.strip()
