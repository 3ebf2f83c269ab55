"""The names of trec_eval's preference and judgment-group measures, their order and how
their ``all`` line is formed.

Names are trec_eval's, as it prints them. A request names measures (``prefs_simp``),
trec_eval's sets (``all_prefs``, ``prefs``, ``qrels_jg``), a family with its default
cutoffs (``P_avgjg``), a family with cutoffs in trec_eval's ``-m`` syntax
(``P_avgjg.5,10``) or one printed measure (``P_avgjg_10``, ``Rprec_mult_avgjg_0.50``).
"""

from __future__ import annotations

import difflib
import math
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from pdireval._core.errors import MetricError

__all__ = [
    "JG_FAMILIES",
    "PREFS_MEASURES",
    "SUMMED",
    "JgMeasure",
    "jg_measures",
    "prefs_measures",
    "trec_order",
]

#: trec_eval's preference measures (``-m all_prefs``), in the order it prints them.
PREFS_MEASURES = (
    "prefs_num_prefs_poss",
    "prefs_num_prefs_ful",
    "prefs_num_prefs_ful_ret",
    "prefs_simp",
    "prefs_pair",
    "prefs_avgjg",
    "prefs_avgjg_Rnonrel",
    "prefs_simp_ret",
    "prefs_pair_ret",
    "prefs_avgjg_ret",
    "prefs_avgjg_Rnonrel_ret",
    "prefs_simp_imp",
    "prefs_pair_imp",
    "prefs_avgjg_imp",
)
#: The measures whose ``all`` line is the sum over the queries, not the mean.
SUMMED = frozenset(PREFS_MEASURES[:3])
_PREFS_SETS = {"all_prefs": PREFS_MEASURES, "prefs": PREFS_MEASURES[:6]}

#: trec_eval's judgment-group families (``-m qrels_jg``), in its order, with their
#: default cutoffs (``None``: no cutoff).
JG_FAMILIES: dict[str, tuple[float, ...] | None] = {
    "map_avgjg": None,
    "P_avgjg": (5, 10, 15, 20, 30, 100, 200, 500, 1000),
    "Rprec_mult_avgjg": (0.2, 0.4, 0.6, 0.8, 1.0, 1.2, 1.4, 1.6, 1.8, 2.0),
}
_PRINTED = re.compile(r"^(P_avgjg|Rprec_mult_avgjg)_(.+)$")
_WITH_CUTOFFS = re.compile(r"^(P_avgjg|Rprec_mult_avgjg)\.(.+)$")


@dataclass(frozen=True)
class JgMeasure:
    """One printed judgment-group measure: its family and cutoff (a number of documents
    for ``P_avgjg``, a multiple of R for ``Rprec_mult_avgjg``, ``None`` for ``map_avgjg``).

    Examples
    --------
    >>> JgMeasure("Rprec_mult_avgjg", 0.2).name
    'Rprec_mult_avgjg_0.20'
    """

    family: str
    cutoff: float | None = None

    @property
    def name(self) -> str:
        """The name trec_eval prints."""
        if self.cutoff is None:
            return self.family
        if self.family == "P_avgjg":
            return f"P_avgjg_{int(self.cutoff)}"
        return f"{self.family}_{self.cutoff:3.2f}"


def _requested(measures: str | Sequence[str] | None, default: str) -> list[str]:
    if measures is None:
        return [default]
    if isinstance(measures, str):
        return [measures]
    if not isinstance(measures, Iterable) or not all(isinstance(m, str) for m in measures):
        msg = f"measures= must be a name or a list of names, got {measures!r}"
        raise MetricError(msg)
    return list(measures)


def _unknown(name: str, known: Iterable[str], what: str) -> MetricError:
    close = difflib.get_close_matches(name, list(known), n=1)
    hint = f"; did you mean {close[0]!r}?" if close else ""
    return MetricError(
        f"{name!r} is not one of trec_eval's {what}{hint} (known: {sorted(set(known))})"
    )


def prefs_measures(measures: str | Sequence[str] | None) -> list[str]:
    """The preference measures a request names, each once, in the order named.

    Examples
    --------
    >>> prefs_measures(["prefs_simp", "prefs"])  # doctest: +NORMALIZE_WHITESPACE
    ['prefs_simp', 'prefs_num_prefs_poss', 'prefs_num_prefs_ful', 'prefs_num_prefs_ful_ret',
     'prefs_pair', 'prefs_avgjg']
    """
    names: list[str] = []
    for name in _requested(measures, "all_prefs"):
        if name in _PREFS_SETS:
            names.extend(_PREFS_SETS[name])
        elif name in PREFS_MEASURES:
            names.append(name)
        else:
            raise _unknown(name, [*PREFS_MEASURES, *_PREFS_SETS], "preference measures")
    return list(dict.fromkeys(names))


def jg_measures(measures: str | Sequence[str] | None) -> list[JgMeasure]:
    """The judgment-group measures a request names, each once, in the order named.

    Examples
    --------
    >>> [m.name for m in jg_measures(["map_avgjg", "P_avgjg.10,5", "Rprec_mult_avgjg_1"])]
    ['map_avgjg', 'P_avgjg_5', 'P_avgjg_10', 'Rprec_mult_avgjg_1.00']
    """
    found: list[JgMeasure] = []
    for name in _requested(measures, "qrels_jg"):
        found.extend(_jg_measure(name))
    return list(dict.fromkeys(found))


def _jg_measure(name: str) -> list[JgMeasure]:
    if name == "qrels_jg":
        return [m for family in JG_FAMILIES for m in _jg_measure(family)]
    if name in JG_FAMILIES:
        defaults = JG_FAMILIES[name]
        return [JgMeasure(name, c) for c in defaults] if defaults else [JgMeasure(name)]
    for pattern, many in ((_WITH_CUTOFFS, True), (_PRINTED, False)):
        match = pattern.match(name)
        if match:
            family, given = match.groups()
            texts = given.split(",") if many else [given]
            cutoffs = sorted(_cutoff(family, text, name) for text in texts)
            if len(set(cutoffs)) != len(cutoffs):
                msg = f"{name!r} names a cutoff twice; name each once"
                raise MetricError(msg)
            return [JgMeasure(family, c) for c in cutoffs]
    known = [*JG_FAMILIES, "qrels_jg", "P_avgjg_10", "Rprec_mult_avgjg_1.00"]
    raise _unknown(name, known, "judgment-group measures")


def _cutoff(family: str, text: str, name: str) -> float:
    try:
        value = float(text)
    except ValueError:
        value = math.nan
    if family == "P_avgjg":
        if not math.isfinite(value) or value != int(value) or value < 1:
            msg = f"{name!r}: P_avgjg's cutoffs are whole numbers of documents >= 1, got {text!r}"
            raise MetricError(msg)
        return float(int(value))
    if not math.isfinite(value):
        msg = f"{name!r}: Rprec_mult_avgjg's cutoffs are multiples of R (numbers), got {text!r}"
        raise MetricError(msg)
    return value


def trec_order(names: Sequence[str]) -> list[str]:
    """``names`` (printed names of one kind) in the order trec_eval prints them.

    Examples
    --------
    >>> trec_order(["prefs_avgjg", "prefs_simp", "prefs_num_prefs_poss"])
    ['prefs_num_prefs_poss', 'prefs_simp', 'prefs_avgjg']
    >>> trec_order(["P_avgjg_10", "map_avgjg", "Rprec_mult_avgjg_0.20", "P_avgjg_5"])
    ['map_avgjg', 'P_avgjg_5', 'P_avgjg_10', 'Rprec_mult_avgjg_0.20']
    """
    families = list(JG_FAMILIES)

    def place(name: str) -> tuple[int, float]:
        if name in PREFS_MEASURES:
            return PREFS_MEASURES.index(name), 0.0
        measure = jg_measures(name)[0]
        return families.index(measure.family), measure.cutoff or 0.0

    return sorted(names, key=place)
