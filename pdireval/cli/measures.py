"""The command line's measures: trec_eval names, nicknames and parameters as trec_eval reads
them, or pdireval names, turned into the metrics to evaluate and the lines to print.
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Sequence
from dataclasses import dataclass

from pdireval._core.errors import MetricError
from pdireval.metrics import REGISTRY, Metric, parse_metric
from pdireval.metrics._base import TrecMeasure

#: trec_eval's measures in the order of its table, which is the order it prints them in,
#: per version: 10.0 adds dcg and ideal_dcg after G, and rbp, rbp_resid and unj at the
#: end. The measures themselves -- pdireval name, default parameters, summary, whether -l
#: applies -- are declared on the metric families (``Family.trec_eval``); runid, num_q and
#: relstring are the command line's own.
_TABLE_9 = (
    "runid", "num_q", "num_ret", "num_rel", "num_rel_ret", "map", "gm_map", "Rprec",
    "bpref", "recip_rank", "iprec_at_recall", "P", "relstring", "recall", "infAP", "gm_bpref",
    "Rprec_mult", "utility", "11pt_avg", "binG", "G", "ndcg", "ndcg_rel", "Rndcg",
    "ndcg_cut", "map_cut", "relative_P", "success", "set_P", "set_relative_P",
    "set_recall", "set_map", "set_F", "num_nonrel_judged_ret", "prefs_num_prefs_poss",
    "prefs_num_prefs_ful", "prefs_num_prefs_ful_ret", "prefs_simp", "prefs_pair",
    "prefs_avgjg", "prefs_avgjg_Rnonrel", "prefs_simp_ret", "prefs_pair_ret",
    "prefs_avgjg_ret", "prefs_avgjg_Rnonrel_ret", "prefs_simp_imp", "prefs_pair_imp",
    "prefs_avgjg_imp", "map_avgjg", "P_avgjg", "Rprec_mult_avgjg", "yaap",
)  # fmt: skip
_AFTER_G = _TABLE_9.index("G") + 1
_TABLE = {
    "9.0.8": _TABLE_9,
    "10.0": (
        *_TABLE_9[:_AFTER_G], "dcg", "ideal_dcg", *_TABLE_9[_AFTER_G:],
        "rbp", "rbp_resid", "unj",
    ),
}  # fmt: skip
_ALL_TREC_9 = _TABLE_9[: _TABLE_9.index("num_nonrel_judged_ret") + 1]
#: trec_eval's nicknames: the measures each names, printed in table order
_NICKNAMES: dict[str, dict[str, tuple[str, ...]]] = {
    "9.0.8": {
        "official": _TABLE_9[: _TABLE_9.index("P") + 1],
        "all_trec": _ALL_TREC_9,
        "set": (
            "runid", "num_q", "num_ret", "num_rel", "num_rel_ret", "utility", "set_P",
            "set_recall", "set_relative_P", "set_map", "set_F",
        ),
        "all_prefs": ("runid", "num_q", *_TABLE_9[_TABLE_9.index("prefs_num_prefs_poss"):
                                                  _TABLE_9.index("map_avgjg")]),
        "prefs": (
            "runid", "num_q", "prefs_num_prefs_poss", "prefs_num_prefs_ful",
            "prefs_num_prefs_ful_ret", "prefs_simp", "prefs_pair", "prefs_avgjg",
        ),
        "qrels_jg": ("runid", "num_q", "map_avgjg", "P_avgjg", "Rprec_mult_avgjg"),
    },
}  # fmt: skip
_NICKNAMES["10.0"] = _NICKNAMES["9.0.8"] | {"all_trec": (*_ALL_TREC_9, "rbp", "rbp_resid", "unj")}


def _trec_table(version: str = "9.0.8") -> dict[str, TrecMeasure | None]:
    """Every measure of trec_eval ``version`` that pdireval computes, in its print order
    (the registry declares them, the command line has runid, num_q and relstring).
    """
    declared: dict[str, TrecMeasure | None] = {name: None for name in _OWN}
    declared |= {m.name: m for family in REGISTRY.values() for m in family.trec_eval}
    return {name: declared[name] for name in _TABLE[version] if name in declared}


#: The command line's own measures: the run's tag, the number of queries, and the labels
#: of each ranking's first documents as a string (printed per query only).
_OWN = ("runid", "num_q", "relstring")
_PAIR = re.compile(r"([^=,]+)=([^=,]*)")
_WHOLE = re.compile(r"[+-]?[0-9]+")  # a level trec_eval 10.0 reads (its valid_int)


_COMPACT = ("AP", "nDCG@10", "P@10", "R@100", "RR", "Rprec")


@dataclass(frozen=True)
class _Measure:
    """One output line's measure: printed name, pdireval metric, kind of summary."""

    name: str
    metric: Metric | None  # None: runid / num_q
    order: tuple[int, int]
    summary: str = "mean"  # "mean", "sum", "gmean", "runid", "num_q", "relstring"
    leveled: bool = True  # -l applies (trec_eval's ndcg measures ignore the level)
    length: int = 10  # relstring: how many documents


_C_FLOAT = re.compile(r"\s*[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?")
_C_INTEGER = re.compile(r"\s*[+-]?\d+")


def _c_number(text: str, *, whole: bool) -> float:
    """What C's atol (``whole``) or atof reads from ``text``: its numeric prefix, else 0."""
    found = (_C_INTEGER if whole else _C_FLOAT).match(text)
    return float(found.group()) if found else 0.0


def _trec_parameters(measure: TrecMeasure, params: str) -> tuple[float, ...]:
    """The parameters of ``name.params``, read, sorted and checked as trec_eval does."""
    spec = f"{measure.name}.{params}"
    whole = measure.parameter == "cutoffs"
    values = [_c_number(text, whole=whole) for text in params.split(",")]
    if measure.parameter == "value":
        if len(values) != 1:
            msg = f"trec_eval measure {measure.name!r} takes one parameter (got {spec})"
            raise MetricError(msg)
        return tuple(values)
    values.sort()
    if whole and values[0] <= 0:
        msg = f"cutoffs must be positive whole numbers (got {spec})"
        raise MetricError(msg)
    if len(set(values)) != len(values):
        msg = f"duplicate cutoffs in {spec}, which trec_eval refuses"
        raise MetricError(msg)
    return tuple(values)


def _pairs(name: str, params: str) -> list[tuple[str, str]]:
    """``name=value`` pairs as typed, refused when a part is not one."""
    parts = params.split(",")
    pairs = [_PAIR.fullmatch(part) for part in parts]
    if not all(pairs):
        msg = f"{name}.{params}: parameters must be level=gain pairs, e.g. {name}.1=1,2=3"
        raise MetricError(msg)
    return [(pair.group(1), pair.group(2)) for pair in pairs if pair]


def _gains(name: str, pairs: list[tuple[str, str]], version: str = "9.0.8") -> dict[int, float]:
    """``level=gain`` pairs as trec_eval reads them (C's atol and atof); trec_eval 10.0
    ignores a pair whose level is not a whole number (``1.5=3``, ``a=5``, ``p=0.9``), 9.0.8
    reads its numeric prefix (level 1, level 0, level 0).
    """
    if version == "10.0":
        pairs = [(level, gain) for level, gain in pairs if _WHOLE.fullmatch(level)]
    gains = {
        int(_c_number(level, whole=True)): _c_number(gain, whole=False) for level, gain in pairs
    }
    if len(gains) != len(pairs):
        shown = ",".join(f"{level}={gain}" for level, gain in pairs)
        msg = f"{name}.{shown} gives a relevance level two gains"
        raise MetricError(msg)
    return gains


def _trec_measures(
    name: str, params: str | None, version: str = "9.0.8", num_docs: int = 0
) -> list[_Measure]:
    measure = _trec_table(version)[name]
    order = _TABLE[version].index(name)
    _refuse_parameters(name, measure, params)
    # trec_eval names a measure of one value or of pairs by the parameters as typed
    printed = name if params is None else f"{name}_{params}"
    if name == "relstring":
        length = 10 if params is None else int(_c_number(params, whole=False))
        return [_Measure(printed, None, (order, 0), name, length=length)]
    if measure is None:  # runid, num_q: summary lines only
        return [_Measure(name, None, (order, 0), name)]
    if measure.parameter == "pairs" and params is not None:
        return [_pair_measure(measure, params, printed, order, version)]
    if measure.parameter in ("values", "list") and params is not None:
        return [_values_measure(measure, params, printed, order, num_docs)]
    return _parameter_measures(measure, params, printed, order)


def _refuse_parameters(name: str, measure: TrecMeasure | None, params: str | None) -> None:
    """Refuse parameters given to a trec_eval measure that takes none."""
    takes = name == "relstring" or (measure is not None and measure.parameter != "none")
    if params is not None and not takes:
        msg = f"trec_eval measure {name!r} takes no parameters (got {name}.{params})"
        raise MetricError(msg)


def _pair_measure(
    measure: TrecMeasure, params: str, printed: str, order: int, version: str
) -> _Measure:
    """The measure of ``ndcg.1=1,2=3``, ``rbp.p=0.95,2=1`` and the like: the metric with
    those gains (levels as trec_eval ``version`` reads them) and, for rbp and rbp_resid,
    the persistence ``p`` (the last one given).
    """
    base = parse_metric(measure.metric_name())
    pairs = _pairs(measure.name, params)
    changed: dict[str, object] = {}
    if "p" in base.family.params:
        given = [value for level, value in pairs if level == "p"]
        if given:
            changed["p"] = _c_number(given[-1], whole=False)
    if "gain" in base.family.params and measure.name != "rbp_resid":
        gains = _gains(measure.name, pairs, version)
        if gains:
            changed["gain"] = gains
    metric = base.family(**(base.parameters | changed))
    return _Measure(printed, metric, (order, 0), measure.summary, measure.leveled)


def _values_measure(
    measure: TrecMeasure, params: str, printed: str, order: int, num_docs: int
) -> _Measure:
    """The measure of ``utility.2,-1,0,0``: trec_eval's numbers in their order (atof); a
    collection size ``num_docs`` (``-N``) where a parameter needs one (utility's d).
    """
    values = tuple(_c_number(text, whole=False) for text in params.split(","))
    default = measure.defaults[0] if measure.parameter == "values" else values
    example = default if isinstance(default, tuple) else (default,)
    if len(values) != len(example):
        msg = (
            f"{measure.name}.{params}: trec_eval's {measure.name} takes {len(example)} "
            f"numbers, e.g. {measure.name}." + ",".join(f"{v:g}" for v in example)
        )
        raise MetricError(msg)
    metric = parse_metric(measure.metric_name(values))
    if "n_docs" in metric.family.params and metric.parameters.get("d"):
        metric = metric.family(**(metric.parameters | {"n_docs": num_docs}))
    return _Measure(printed, metric, (order, 0), measure.summary, measure.leveled)


def _parameter_measures(
    measure: TrecMeasure, params: str | None, printed: str, order: int
) -> list[_Measure]:
    """A measure per parameter value (``P.5,10``: P_5 and P_10), or per default one."""
    values: tuple[float | tuple[float, ...] | None, ...] = (
        _trec_parameters(measure, params) if params is not None else measure.defaults or (None,)
    )
    return [
        _Measure(
            printed if measure.parameter == "value" else measure.key(value),
            parse_metric(measure.metric_name(value)),
            (order, index),
            measure.summary,
            measure.leveled,
        )
        for index, value in enumerate(values)
    ]


def parse_measures(
    specs: Sequence[str], *, trec_order: bool = True, version: str = "9.0.8", num_docs: int = 0
) -> list[_Measure]:
    """Turn ``-m`` arguments into measures, duplicates dropped: in the print order of
    trec_eval ``version``, or (``trec_order=False``, for the tables) in the order asked;
    ``num_docs`` is ``-N``, the collection size (utility's d).
    """
    table = _trec_table(version)
    # as in trec_eval, a measure is computed once, with the first parameters given for it
    given: dict[str, str] = {}
    for spec in specs:
        family, dot, params = spec.partition(".")
        if dot and family in table:
            given.setdefault(family, params)
    asked: list[tuple[int, _Measure]] = []
    for position, spec in enumerate(specs):
        family = spec.partition(".")[0]
        names = _NICKNAMES[version].get(spec) or ((family,) if family in _TABLE[version] else ())
        for name in names:
            if name not in table:
                _refuse_unavailable(name, spec, version)
            measures = _trec_measures(name, given.get(name), version, num_docs)
            asked += [(position, m) for m in measures]
        if not names:
            metric = _pdireval_metric(spec, version)
            metric.validate()
            order = (len(_TABLE[version]) + 1, position)
            asked.append((position, _Measure(metric.label, metric, order)))
    first: dict[tuple[str, str], tuple[int, _Measure]] = {}
    for position, m in asked:
        first.setdefault((m.name, m.summary), (position, m))
    if trec_order:
        return sorted((m for _, m in first.values()), key=lambda m: m.order)
    return [m for _, m in sorted(first.values(), key=lambda pair: (pair[0], pair[1].order))]


def _refuse_unavailable(name: str, spec: str, version: str) -> None:
    """A measure of trec_eval ``version`` that ordinary qrels do not give: a preference
    or judgment-group measure (``-R``), or one pdireval does not compute.
    """
    if name.startswith("prefs_"):
        msg = (
            f"-m {spec}: trec_eval's {name} is computed from preference judgments: add "
            "-R qrels_prefs (ordinary qrels read as preferences) or -R prefs"
        )
    elif name.endswith("_avgjg"):
        msg = f"-m {spec}: trec_eval's {name} needs judgment groups: add -R qrels_jg"
    else:
        msg = f"-m {spec}: pdireval does not compute trec_eval's {name} yet"
    raise MetricError(msg)


def _pdireval_metric(spec: str, version: str = "9.0.8") -> Metric:
    """The pdireval metric ``spec`` names; an unknown name is answered in the naming it
    resembles: trec_eval's (``mapp``: did you mean ``map``?) or else pdireval's; a
    measure of the other trec_eval version says which version has it.
    """
    family = spec.partition(".")[0]
    for other, names in _TABLE.items():
        if other != version and family in names and family not in _TABLE[version]:
            msg = (
                f"trec_eval {version} has no measure {family!r} (trec_eval {other} has): "
                f"use --trec-eval-version {other}"
            )
            raise MetricError(msg)
    try:
        return parse_metric(spec)
    except MetricError as error:
        family, dot, params = spec.partition(".")
        known = [*_trec_table(version), *_NICKNAMES[version]]
        close = difflib.get_close_matches(family, known, n=2, cutoff=0.75)
        if not close:
            raise
        suggestions = " or ".join(repr(name + dot + params) for name in close)
        msg = (
            f"unknown measure {spec!r}; did you mean {suggestions}? (trec_eval's names, "
            "e.g. map, P.10, ndcg_cut.10, or pdireval's, e.g. nDCG@10)"
        )
        raise MetricError(msg) from error


def _metric(measure: _Measure, level: int | None) -> Metric:
    """The measure's metric with ``rel=level`` where -l applies."""
    metric = measure.metric
    if metric is None:  # runid / num_q: never evaluated
        msg = f"{measure.name} is not a per-query measure"
        raise MetricError(msg)
    if level is None or not measure.leveled or "rel" not in metric.family.params:
        return metric
    params = tuple((k, level if k == "rel" else v) for k, v in metric.params)
    return Metric(metric.family, params, metric.k)


def _metrics(measures: list[_Measure], level: int | None) -> list[Metric]:
    return list(dict.fromkeys(_metric(m, level) for m in measures if m.metric))
