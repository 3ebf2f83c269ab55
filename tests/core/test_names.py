"""Metric name grammar, canonical labels, metric objects and the registry (DESIGN §2)."""

from __future__ import annotations

import pandas as pd
import pytest

import pdireval
from pdireval import MetricError, PdirevalError, parse_metric
from pdireval.metrics import AP, REGISTRY, RR, Metric, P, R, nDCG

# --- accepted names -----------------------------------------------------------------------------

NAMES = [
    ("AP", "AP"),
    ("ap", "AP"),
    ("map", "AP"),
    ("MAP", "AP"),
    ("AP()", "AP"),
    ("AP(rel=1)", "AP"),
    ("AP@10", "AP@10"),
    ("map_cut_10", "AP@10"),
    ("map_cut.10", "AP@10"),
    ("P@10", "P@10"),
    ("P_10", "P@10"),
    ("p.10", "P@10"),
    ("precision@5", "P@5"),
    ("P(rel=2)@10", "P(rel=2)@10"),
    ("P(rel=1)@10", "P@10"),
    ("p(rel=2)@5", "P(rel=2)@5"),
    (" P @ 10 ", "P@10"),
    ("R@100", "R@100"),
    ("recall_100", "R@100"),
    ("recall.5", "R@5"),
    ("RR", "RR"),
    ("mrr", "RR"),
    ("recip_rank", "RR"),
    ("RR@10", "RR@10"),
    ("nDCG", "nDCG"),
    ("ndcg", "nDCG"),
    ("NDCG@10", "nDCG@10"),
    ("ndcg_cut_10", "nDCG@10"),
    ("Ndcg_Cut.10", "nDCG@10"),
    ("nDCG@10", "nDCG@10"),
    ("nDCG(gain='linear', discount='log2')@10", "nDCG@10"),
    ("nDCG(gain='exp')@10", "nDCG(gain='exp')@10"),
    ("nDCG(gain = 'exp') @ 10", "nDCG(gain='exp')@10"),
    ("nDCG(gain={0: 0, 1: 1, 2: 3})@5", "nDCG(gain={0: 0, 1: 1, 2: 3})@5"),
    ("nDCG(gain={2: 3, 0: 0, 1: 1})@5", "nDCG(gain={0: 0, 1: 1, 2: 3})@5"),
    ("nDCG(discount='jarvelin', base=10)", "nDCG(discount='jarvelin', base=10)"),
    ("nDCG(base=10, discount='jarvelin')", "nDCG(discount='jarvelin', base=10)"),
    ("nDCG(discount='jarvelin', base=2)", "nDCG(discount='jarvelin')"),
    ("DCG@5", "DCG@5"),
    ("Rprec", "Rprec"),
    ("Success@1", "Success@1"),
    ("success_5", "Success@5"),
    ("NumRel", "NumRel"),
    ("num_rel", "NumRel"),
    ("NumRet", "NumRet"),
    ("num_ret", "NumRet"),
    ("NumRelRet", "NumRelRet"),
    ("num_rel_ret", "NumRelRet"),
    ("Bpref", "Bpref"),
    ("bpref", "Bpref"),
]


@pytest.mark.parametrize(("spec", "label"), NAMES)
def test_name_parses_to_canonical_label(spec: str, label: str) -> None:
    """Each spelling (alias, trec_eval name, case, spacing) normalises to one canonical label."""
    metric = parse_metric(spec)
    assert isinstance(metric, Metric)
    assert metric.label == label
    assert str(metric) == repr(metric) == label


@pytest.mark.parametrize(("spec", "label"), NAMES)
def test_label_parses_back_to_equal_metric(spec: str, label: str) -> None:
    """The canonical label is itself a valid name for the same metric."""
    assert parse_metric(label) == parse_metric(spec)
    assert hash(parse_metric(label)) == hash(parse_metric(spec))


@pytest.mark.parametrize(
    ("spec", "family", "k", "options"),
    [
        ("map_cut_10", "AP", 10, {"rel": 1, "norm": "R", "judged_only": False}),
        ("P(rel=2)@10", "P", 10, {"rel": 2, "judged_only": False}),
        ("recall_100", "R", 100, {"rel": 1, "judged_only": False}),
        ("RR", "RR", None, {"rel": 1, "judged_only": False}),
        ("P(cutoff=5, judged_only=True)", "P", 5, {"rel": 1, "judged_only": True}),
        ("IPrec(recall=0.5)", "IPrec", 0.5, {"rel": 1, "version": None, "judged_only": False}),
        (
            "nDCG(gain={0: 0, 1: 1, 2: 3})@5",
            "nDCG",
            5,
            {
                "rel": 1,
                "gain": ((0, 0), (1, 1), (2, 3)),
                "discount": "log2",
                "base": 2,
                "rel_only": False,
                "judged_only": False,
            },
        ),
        (
            "nDCG(discount='jarvelin', base=10)",
            "nDCG",
            None,
            {
                "rel": 1,
                "gain": "linear",
                "discount": "jarvelin",
                "base": 10,
                "rel_only": False,
                "judged_only": False,
            },
        ),
        ("NumRet", "NumRet", None, {}),
    ],
)
def test_parsed_family_cutoff_and_parameters(spec: str, family: str, k, options: dict) -> None:
    """Parsing fills in the family, the cutoff and every parameter (defaults included)."""
    metric = parse_metric(spec)
    assert metric.family is REGISTRY[family]
    assert metric.k == k
    assert metric.parameters == options


def test_default_parameters_never_in_label() -> None:
    """Parameters at their default are left out of the label, whichever way they are given."""
    assert (P(rel=1) @ 10).label == "P@10"
    assert nDCG(rel=1, gain="linear", discount="log2", base=2).label == "nDCG"
    assert (nDCG(gain="exp", discount="log2") @ 3).label == "nDCG(gain='exp')@3"


# --- metric objects ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("obj", "spec"),
    [
        (P @ 10, "P@10"),
        (P(rel=2) @ 5, "P(rel=2)@5"),
        (R @ 100, "recall_100"),
        (AP, "map"),
        (AP @ 10, "map_cut_10"),
        (RR(), "recip_rank"),
        (nDCG @ 10, "ndcg_cut_10"),
        (nDCG(gain="exp") @ 10, "nDCG(gain='exp')@10"),
        (nDCG(gain={0: 0, 1: 1, 2: 3}) @ 5, "nDCG(gain={0: 0, 1: 1, 2: 3})@5"),
    ],
)
def test_metric_objects_equal_parsed_strings(obj, spec: str) -> None:
    """Objects from pdireval.metrics equal the parsed strings, hash alike and share one label."""
    metric = parse_metric(obj)
    assert metric == parse_metric(spec)
    assert hash(metric) == hash(parse_metric(spec))
    assert len({metric, parse_metric(spec)}) == 1
    assert {metric: "x"}[parse_metric(spec)] == "x"
    assert metric.label == parse_metric(spec).label


def test_different_metrics_differ() -> None:
    """Cutoff and parameters are part of a metric's identity."""
    metrics = {P @ 10, P @ 5, P(rel=2) @ 10, nDCG @ 10, nDCG(gain="exp") @ 10, AP, AP @ 10}
    assert len(metrics) == 7


@pytest.mark.parametrize(
    "specs",
    [
        ["AP", "map", "AP()"],
        ["AP", AP, AP(rel=1), "MAP", "average_precision"],
        ["P@10", P @ 10, "P_10", "p.10", "P(rel=1)@10"],
        ["ndcg_cut_10", nDCG @ 10, "nDCG(gain='linear')@10"],
    ],
)
def test_duplicates_collapse_in_evaluate(specs: list) -> None:
    """Spellings of the same metric give a single result column."""
    frame = pd.DataFrame({"query": ["q"] * 2, "doc": ["a", "b"], "rank": [1, 2], "rel": [0, 1]})
    result = pdireval.evaluate(frame, specs)
    assert result.columns.tolist() == [parse_metric(specs[0]).label]


def test_evaluate_keeps_first_seen_order() -> None:
    """Columns come in the order the metrics were first asked for."""
    frame = pd.DataFrame({"query": ["q"] * 2, "doc": ["a", "b"], "rank": [1, 2], "rel": [0, 1]})
    result = pdireval.evaluate(frame, ["RR", "P_1", "map", "mrr", "AP"])
    assert result.columns.tolist() == ["RR", "P@1", "AP"]


@pytest.mark.parametrize(
    ("first", "second"),
    [
        ("nDCG(discount='jarvelin', base=10)", "nDCG(discount='jarvelin', base=10.0)"),
        ("nDCG(gain={0: 0, 1: 1})", "nDCG(gain={0: 0.0, 1: 1.0})"),
    ],
)
def test_equal_metrics_have_one_label(first: str, second: str) -> None:
    """Metrics that compare equal have the same canonical label (so columns do not depend on
    which spelling came first)."""
    assert parse_metric(first) == parse_metric(second)
    assert parse_metric(first).label == parse_metric(second).label


# --- errors --------------------------------------------------------------------------------------


def _metric_error(spec: object, match: str) -> str:
    """Parse and return the message of the MetricError (also a ValueError) raised."""
    with pytest.raises(MetricError, match=match) as info:
        parse_metric(spec)
    assert isinstance(info.value, ValueError)
    assert isinstance(info.value, PdirevalError)
    return str(info.value)


@pytest.mark.parametrize(
    ("spec", "suggestion"),
    [("nDGC@10", "nDCG"), ("precison@5", "P"), ("Bperf", "Bpref"), ("reciprank", "RR")],
)
def test_unknown_name_did_you_mean(spec: str, suggestion: str) -> None:
    """An unknown name is quoted and a close canonical name is suggested."""
    message = _metric_error(spec, r"unknown metric")
    assert repr(spec) in message
    assert f"did you mean '{suggestion}'" in message or f"or '{suggestion}'" in message


def test_unknown_name_without_close_match() -> None:
    """Far-off names are refused without a misleading suggestion."""
    message = _metric_error("xyz", r"unknown metric 'xyz'")
    assert "did you mean" not in message


def test_unknown_parameter_did_you_mean() -> None:
    """An unknown parameter names the family, the valid parameters and the closest one."""
    message = _metric_error("nDCG(gian='exp')@10", r"nDCG has no parameter 'gian'")
    assert "['rel', 'gain', 'discount', 'base', 'rel_only', 'judged_only']" in message
    assert "did you mean 'gain'" in message


def test_unknown_parameter_on_object() -> None:
    """Calling a family with an unknown keyword is a MetricError too; cutoff= is the
    cutoff (ir_measures' spelling) wherever the family takes one."""
    assert AP(cutoff=5) == AP @ 5
    with pytest.raises(
        MetricError,
        match=r"AP has no parameter 'depth' \(parameters: \['rel', 'norm', 'judged_only'\]\)",
    ):
        AP(depth=5)


@pytest.mark.parametrize(
    ("spec", "match"),
    [
        ("P(rel=-1)@5", r"rel= must be a whole number >= 0, got -1"),
        ("P(rel=2.5)@5", r"rel= must be a whole number >= 0, got 2\.5"),
        ("P(rel=True)@5", r"rel= must be a whole number >= 0, got True"),
        ("nDCG(gain='cubic')", r"gain= must be one of \['linear', 'exp'\], got 'cubic'"),
        ("nDCG(gain={0.5: 1})", r"gain= mapping keys must be whole relevance labels, got 0\.5"),
        ("nDCG(gain={1: 'a'})", r"gain= mapping values must be numbers, got 'a' for label 1"),
        (
            "nDCG(discount='ln')",
            r"discount= must be one of \['log2', 'jarvelin', 'none'\], got 'ln'",
        ),
        ("nDCG(base=1, discount='jarvelin')", r"base= must be > 1, got 1"),
        ("nDCG(base='e', discount='jarvelin')", r"base= must be a number > 1, got 'e'"),
        ("nDCG(base=10)", r"base= only applies to discount='jarvelin'"),
        ("DCG(base=10)@5", r"base= only applies to discount='jarvelin'"),
    ],
)
def test_bad_parameter_value(spec: str, match: str) -> None:
    """Bad parameter values are refused, naming the parameter, the value and what is allowed."""
    _metric_error(spec, match)


@pytest.mark.parametrize("spec", ["P", "R", "Success", "precision", "P()", "P(rel=2)"])
def test_missing_cutoff(spec: str) -> None:
    """P, R and Success need @k: the message shows how to write it."""
    message = _metric_error(spec, r"needs a cutoff")
    assert "@k" in message
    assert "@10" in message


@pytest.mark.parametrize("obj", [P, R, P(rel=2)])
def test_missing_cutoff_on_objects(obj) -> None:
    """Family objects without @k are refused when used as metrics."""
    _metric_error(obj, r"needs a cutoff")


@pytest.mark.parametrize(
    ("spec", "name"),
    [("Rprec@5", "Rprec"), ("NumRet@3", "NumRet"), ("Bpref@10", "Bpref"), ("num_rel@5", "NumRel")],
)
def test_cutoff_on_family_without_one(spec: str, name: str) -> None:
    """A cutoff on a family that takes none is refused, with the name to use instead."""
    message = _metric_error(spec, rf"{name} takes no cutoff")
    assert f"use {name} without @" in message


def test_cutoff_on_family_without_one_as_object() -> None:
    """`Rprec @ 5` on the object is refused the same way."""
    from pdireval.metrics import Rprec

    with pytest.raises(MetricError, match="Rprec takes no cutoff"):
        Rprec @ 5


@pytest.mark.parametrize("spec", ["P_10@5", "ndcg_cut_10@10", "map_cut.5@5"])
def test_cutoff_given_twice(spec: str) -> None:
    """A trec_eval suffix and an @k together are refused, with the suffix's reading."""
    _metric_error(spec, r"gives its cutoff twice")


@pytest.mark.parametrize("spec", ["P@0", "P_0", "P@1.5", "P@-1", "P@x", "nDCG@0", "AP@10@5"])
def test_bad_cutoff_in_name(spec: str) -> None:
    """Cutoffs must be whole numbers >= 1."""
    _metric_error(spec, r"cutoff in .* must be a whole number >= 1")


@pytest.mark.parametrize("k", [0, -3, 1.5, True, "5"])
def test_bad_cutoff_on_object(k) -> None:
    """`P @ k` with k not a whole number >= 1 is refused."""
    with pytest.raises(MetricError, match=r"cutoff of P must be a whole number >= 1"):
        P @ k


@pytest.mark.parametrize(
    "spec",
    ["AP(rel=)", "P(2)@5", "AP(rel=foo)", "AP(rel=2", "", "@5", "AP@", "nDCG(gain=exp)@10"],
)
def test_unparsable(spec: str) -> None:
    """Text that is not Name(param=value)@k is refused with the expected form."""
    _metric_error(spec, r"cannot read")


def test_parameter_given_twice() -> None:
    """A repeated parameter is an error, as it is in Python calls."""
    _metric_error("P(rel=2, rel=3)@5", r"rel")


def test_two_parameter_groups() -> None:
    """Two parameter groups are not the grammar."""
    _metric_error("P(rel=1)(rel=2)@5", r"cannot read")


def test_double_star_parameters() -> None:
    """`**mapping` is not the grammar, rather than silently ignored."""
    _metric_error("AP(**{'rel': 2})", r"cannot read")


@pytest.mark.parametrize("spec", [5, None, 1.5, ["AP"]])
def test_non_string_spec(spec) -> None:
    """Anything other than a name or a metric object is refused with the accepted forms."""
    _metric_error(spec, r"a metric is a name like 'nDCG@10' or an object like P @ 10")


def test_no_metric_given() -> None:
    """An empty metric list is an error, not an empty table."""
    frame = pd.DataFrame({"query": ["q"], "doc": ["a"], "rank": [1], "rel": [1]})
    with pytest.raises(MetricError, match="no metric given"):
        pdireval.evaluate(frame, [])


def test_evaluate_reports_metric_error() -> None:
    """Errors in names surface from evaluate as MetricError (with the did-you-mean)."""
    frame = pd.DataFrame({"query": ["q"], "doc": ["a"], "rank": [1], "rel": [1]})
    with pytest.raises(MetricError, match="did you mean 'nDCG'"):
        frame.ireval.evaluate(["AP", "nDGC@10"])


def test_negative_gain_is_refused() -> None:
    """A negative gain in a mapping is refused (it would take nDCG outside [0, 1])."""
    _metric_error("nDCG(gain={0: 0, 1: -1, 2: 3})", r"gains must be >= 0")


def test_preset_alias_ndcg_rel() -> None:
    """trec_eval's ndcg_rel names nDCG(rel_only=True); explicit parameters still apply."""
    assert parse_metric("ndcg_rel") == parse_metric("nDCG(rel_only=True)")
    assert parse_metric("ndcg_rel@10").label == "nDCG(rel_only=True)@10"
    assert parse_metric("ndcg_rel(gain='exp')").label == "nDCG(gain='exp', rel_only=True)"
    _metric_error("nDCG(rel_only=1)", r"rel_only= must be True or False")
