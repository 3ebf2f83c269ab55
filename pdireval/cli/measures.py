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

#: trec_eval's print order (``-m all_trec``). The measures themselves -- pdireval name,
#: default parameters, summary, whether -l applies -- are declared on the metric
#: families (``Family.trec_eval``); runid, num_q and relstring are the command line's own.
_PRINT_ORDER = (
    "runid", "num_q", "num_ret", "num_rel", "num_rel_ret", "map", "gm_map", "Rprec",
    "bpref", "recip_rank", "iprec_at_recall", "P", "relstring", "recall", "infAP", "gm_bpref",
    "Rprec_mult", "utility", "11pt_avg", "binG", "G", "ndcg", "ndcg_rel", "Rndcg",
    "ndcg_cut", "map_cut", "relative_P", "success", "set_P", "set_relative_P",
    "set_recall", "set_map", "set_F", "num_nonrel_judged_ret",
)  # fmt: skip
_ORDER = {name: position for position, name in enumerate(_PRINT_ORDER)}


def _trec_table() -> dict[str, TrecMeasure | None]:
    """Every trec_eval measure the registry declares, in trec_eval's print order."""
    declared: dict[str, TrecMeasure | None] = {name: None for name in _OWN}
    declared |= {m.name: m for family in REGISTRY.values() for m in family.trec_eval}
    return dict(sorted(declared.items(), key=lambda item: _ORDER.get(item[0], len(_ORDER))))


#: The command line's own measures: the run's tag, the number of queries, and the labels
#: of each ranking's first documents as a string (printed per query only).
_OWN = ("runid", "num_q", "relstring")
#: Measures whose parameters are ``level=gain`` pairs; the others keep gain = level.
_GAIN_PAIRS = frozenset({"ndcg", "ndcg_rel", "Rndcg", "G"})
_PAIR = re.compile(r"([^=,]+)=([^=,]*)")


_OFFICIAL = [
    "runid",
    "num_q",
    "num_ret",
    "num_rel",
    "num_rel_ret",
    "map",
    "gm_map",
    "Rprec",
    "bpref",
    "recip_rank",
    "iprec_at_recall",
    "P",
]
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


def _gains(name: str, params: str) -> dict[int, float]:
    """``level=gain`` pairs as trec_eval reads them (C's atol and atof)."""
    parts = params.split(",")
    pairs = [_PAIR.fullmatch(part) for part in parts]
    if not all(pairs):
        msg = f"{name}.{params}: parameters must be level=gain pairs, e.g. {name}.1=1,2=3"
        raise MetricError(msg)
    gains = {
        int(_c_number(pair.group(1), whole=True)): _c_number(pair.group(2), whole=False)
        for pair in pairs
        if pair
    }
    if len(gains) != len(parts):
        msg = f"{name}.{params} gives a relevance level two gains"
        raise MetricError(msg)
    return gains


def _trec_measures(name: str, params: str | None) -> list[_Measure]:
    measure = _trec_table()[name]
    order = _ORDER.get(name, len(_ORDER))
    _refuse_parameters(name, measure, params)
    # trec_eval names a measure of one value or of pairs by the parameters as typed
    printed = name if params is None else f"{name}_{params}"
    if name == "relstring":
        length = 10 if params is None else int(_c_number(params, whole=False))
        return [_Measure(printed, None, (order, 0), name, length=length)]
    if measure is None:  # runid, num_q: summary lines only
        return [_Measure(name, None, (order, 0), name)]
    if name in _GAIN_PAIRS and params is not None:
        return [_gain_measure(measure, params, printed, order)]
    return _parameter_measures(measure, params, printed, order)


def _refuse_parameters(name: str, measure: TrecMeasure | None, params: str | None) -> None:
    """Refuse parameters given to a trec_eval measure that takes none."""
    takes = name == "relstring" or (measure is not None and measure.parameter != "none")
    if params is not None and not (takes or name in _GAIN_PAIRS):
        msg = f"trec_eval measure {name!r} takes no parameters (got {name}.{params})"
        raise MetricError(msg)


def _gain_measure(measure: TrecMeasure, params: str, printed: str, order: int) -> _Measure:
    """The measure of ``ndcg.1=1,2=3`` and the like: the metric with those gains."""
    base = parse_metric(measure.metric_name())
    metric = base.family(**(base.parameters | {"gain": _gains(measure.name, params)}))
    return _Measure(printed, metric, (order, 0), measure.summary, measure.leveled)


def _parameter_measures(
    measure: TrecMeasure, params: str | None, printed: str, order: int
) -> list[_Measure]:
    """A measure per parameter value (``P.5,10``: P_5 and P_10), or per default one."""
    values: tuple[float | None, ...] = (
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


def parse_measures(specs: Sequence[str], *, trec_order: bool = True) -> list[_Measure]:
    """Turn ``-m`` arguments into measures, duplicates dropped: in trec_eval's print order,
    or (``trec_order=False``, for the tables) in the order asked.
    """
    # as in trec_eval, a measure is computed once, with the first parameters given for it
    given: dict[str, str] = {}
    for spec in specs:
        family, dot, params = spec.partition(".")
        if dot and family in _trec_table():
            given.setdefault(family, params)
    asked: list[tuple[int, _Measure]] = []
    for position, spec in enumerate(specs):
        if spec in ("official", "all_trec"):
            families = _OFFICIAL if spec == "official" else list(_trec_table())
            for family in families:
                asked += [(position, m) for m in _trec_measures(family, given.get(family))]
            continue
        family = spec.partition(".")[0]
        if family in _trec_table():
            asked += [(position, m) for m in _trec_measures(family, given.get(family))]
            continue
        metric = _pdireval_metric(spec)
        metric.validate()
        asked.append((position, _Measure(metric.label, metric, (len(_ORDER) + 1, position))))
    first: dict[tuple[str, str], tuple[int, _Measure]] = {}
    for position, m in asked:
        first.setdefault((m.name, m.summary), (position, m))
    if trec_order:
        return sorted((m for _, m in first.values()), key=lambda m: m.order)
    return [m for _, m in sorted(first.values(), key=lambda pair: (pair[0], pair[1].order))]


def _pdireval_metric(spec: str) -> Metric:
    """The pdireval metric ``spec`` names; an unknown name is answered in the naming it
    resembles: trec_eval's (``mapp``: did you mean ``map``?) or else pdireval's.
    """
    try:
        return parse_metric(spec)
    except MetricError as error:
        family, dot, params = spec.partition(".")
        names = [*_trec_table(), "official", "all_trec"]
        close = difflib.get_close_matches(family, names, n=2, cutoff=0.75)
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
