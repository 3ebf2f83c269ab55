"""The metric name grammar: ``Name``, ``Name@k``, ``Name(param=value, ...)@k`` and aliases."""

from __future__ import annotations

import ast
import difflib
import re
from collections.abc import Iterable
from typing import Any, cast

from pdireval._core.errors import MetricError
from pdireval.metrics._base import REGISTRY, Family, Metric

__all__ = ["MetricLike", "family_named", "parse_metric", "parse_metrics"]

MetricLike = str | Metric | Family

_GRAMMAR = re.compile(
    r"^\s*(?P<name>[A-Za-z0-9][\w.\-]*?)\s*(?:\((?P<params>.*)\))?\s*(?:@\s*(?P<k>\S+))?\s*$",
    re.DOTALL,
)
_SUFFIXED = re.compile(r"^(?P<base>.+?)[_.](?P<k>\d+(?:\.\d+)?)$")


_SPELLINGS: dict[tuple[int, ...], dict[str, tuple[Family, dict[str, Any]]]] = {}
_PARSED: dict[str, Metric] = {}  # names read before, under the registry _SPELLINGS holds
_PARSED_KEPT = 4096


def _names() -> dict[str, tuple[Family, dict[str, Any]]]:
    """Every accepted spelling (lower case) -> family and the parameters it presets."""
    registered = tuple(map(id, REGISTRY.values()))  # user-defined families change the table
    table = _SPELLINGS.get(registered)
    if table is None:
        _SPELLINGS.clear()
        _PARSED.clear()
        table = _SPELLINGS[registered] = _spellings()
    return table


def _spellings() -> dict[str, tuple[Family, dict[str, Any]]]:
    table: dict[str, tuple[Family, dict[str, Any]]] = {}
    for family in REGISTRY.values():
        for spelling in (family.name, *family.aliases):
            table[spelling.lower()] = (family, {})
        for spelling, preset in family.presets.items():
            table[spelling.lower()] = (family, dict(preset))
    return table


def _suffix_names() -> dict[str, Family]:
    """Spellings that carry the cutoff as a suffix (``P_10``, ``ndcg_cut.10``)."""
    return {
        alias.lower(): family for family in REGISTRY.values() for alias in family.cutoff_aliases
    }


def family_named(spelling: str) -> Family | None:
    """The family a name (no parameters, no ``@k``) resolves to, as parsing resolves it:
    a name, alias or preset (any case), or a name with its cutoff as a suffix
    (``P_10``, ``ndcg_cut.10``) or the stem of one (``ndcg_cut``); None when none does.

    Examples
    --------
    >>> family_named("MAP"), family_named("p_5"), family_named("ndcg_cut"), family_named("xyz")
    (AP, P, nDCG, None)
    """
    lower = spelling.lower()
    entry = _names().get(lower)
    if entry is not None:
        return entry[0]
    suffixes = _suffix_names()
    suffixed = _SUFFIXED.match(lower)
    return suffixes.get(suffixed["base"] if suffixed else lower) or suffixes.get(lower)


def _did_you_mean(name: str) -> str:
    spellings = {**_names(), **_suffix_names()}
    close = difflib.get_close_matches(name.lower(), list(spellings), n=3, cutoff=0.6)
    suggestions = list(dict.fromkeys(_family_of(spellings[spelling]).name for spelling in close))
    return f"; did you mean {' or '.join(map(repr, suggestions))}?" if suggestions else ""


def _family_of(entry: object) -> Family:
    return cast(Family, entry[0] if isinstance(entry, tuple) else entry)


def _parse_params(text: str, original: str) -> dict[str, Any]:
    try:
        call = ast.parse(f"f({text})", mode="eval").body
        if not isinstance(call, ast.Call) or not isinstance(call.func, ast.Name) or call.args:
            raise ValueError
        names = [keyword.arg for keyword in call.keywords]
        if None in names or len(set(names)) != len(names):
            raise ValueError
        return {str(keyword.arg): ast.literal_eval(keyword.value) for keyword in call.keywords}
    except (SyntaxError, ValueError) as error:
        msg = (
            f"cannot read the parameters of {original!r}; write them once each as "
            "Name(param=value, ...), e.g. nDCG(gain='exp')@10"
        )
        raise MetricError(msg) from error


def _parse_k(text: str, original: str, family: Family) -> int | float:
    if family.cutoff_kind == "recall":
        try:
            return float(text)
        except ValueError:
            msg = f"the cutoff in {original!r} must be a recall level such as 0.5"
            raise MetricError(msg) from None
    if not text.isdigit() or int(text) < 1:
        msg = f"the cutoff in {original!r} must be a whole number >= 1, e.g. P@10"
        raise MetricError(msg)
    return int(text)


def parse_metric(spec: MetricLike) -> Metric:
    """Normalise a metric name, family or metric object to a :class:`Metric`.

    Parameters
    ----------
    spec : str, Family or Metric
        ``"AP"``, ``"nDCG@10"``, ``"P(rel=2)@5"``, a trec_eval name such as
        ``"P_10"``, ``"ndcg_cut.10"`` or ``"recip_rank"``, or an object like ``P @ 10``.

    Returns
    -------
    Metric

    Raises
    ------
    MetricError
        Unknown name (with a did-you-mean), bad parameters, or a missing cutoff.

    Examples
    --------
    >>> parse_metric("ndcg_cut_10"), parse_metric("map"), parse_metric("p(rel=2)@5")
    (nDCG@10, AP, P(rel=2)@5)
    """
    if isinstance(spec, Metric):
        return spec.validate()
    if isinstance(spec, Family):
        return spec.default.validate()
    if not isinstance(spec, str):
        msg = f"a metric is a name like 'nDCG@10' or an object like P @ 10, got {spec!r}"
        raise MetricError(msg)
    return _remembered(spec, _names())


def _remembered(spec: str, names: dict[str, tuple[Family, dict[str, Any]]]) -> Metric:
    """The metric ``spec`` names, read once; ``names`` is :func:`_names` (called first:
    a changed registry forgets the names read before).
    """
    parsed = _PARSED.get(spec)
    if parsed is None:
        parsed = _parse_name(spec, names)
        if len(_PARSED) >= _PARSED_KEPT:
            _PARSED.clear()
        _PARSED[spec] = parsed
    return parsed


def _parse_name(spec: str, names: dict[str, tuple[Family, dict[str, Any]]]) -> Metric:
    """The metric a name stands for (see :func:`parse_metric`)."""
    match = _GRAMMAR.match(spec)
    if match is None:
        hint = _did_you_mean(spec)
        msg = f"cannot read metric {spec!r}; write Name, Name@k or Name(param=value)@k{hint}"
        raise MetricError(msg)
    name, k_text = match["name"], match["k"]
    family, preset = names.get(name.lower(), (None, {}))
    if family is None:
        suffixed = _SUFFIXED.match(name)
        family = _suffix_names().get(suffixed["base"].lower()) if suffixed else None
        if family is None or suffixed is None:
            msg = f"unknown metric {spec!r}{_did_you_mean(name)}"
            raise MetricError(msg)
        if k_text is not None:
            msg = f"metric {spec!r} gives its cutoff twice; write {family.name}@{suffixed['k']}"
            raise MetricError(msg)
        k_text = suffixed["k"]
    k = _parse_k(k_text, spec, family) if k_text is not None else None
    params = _parse_params(match["params"], spec) if match["params"] else {}
    return family._metric({**preset, **params}, k).validate()


def parse_metrics(specs: MetricLike | Iterable[MetricLike]) -> list[Metric]:
    """Parse one metric or many; duplicates (by value) collapse, order is kept."""
    if isinstance(specs, str | Metric | Family):
        specs = [specs]
    if not isinstance(specs, Iterable):
        msg = (
            f"metrics must be a name like 'nDCG@10', a metric object like P @ 10, or a list "
            f"of them; got {type(specs).__name__} {specs!r}"
        )
        raise MetricError(msg)
    names = _names()
    metrics = [
        _remembered(spec, names) if isinstance(spec, str) else parse_metric(spec) for spec in specs
    ]
    if not metrics:
        msg = "no metric given; pass a name like 'AP' or a list such as ['AP', 'nDCG@10']"
        raise MetricError(msg)
    return list(dict.fromkeys(metrics))
