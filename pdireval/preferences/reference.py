"""Plain implementations of the preference and judgment-group measures, for the tests.

One query at a time, with Python lists, sets and dicts, written from the definitions
in the docstrings of :func:`pdireval.evaluate_prefs` and :func:`pdireval.evaluate_qrels_jg`
(trec_eval's rules and quirks included) and nothing of the fast modules but the measure
names. Slow, and meant to be obviously right; ``tests/preferences`` compares the fast
path with them.

Ids are compared as text (``str``), as trec_eval compares them.
"""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

import pandas as pd

from pdireval._core.errors import SchemaError
from pdireval.preferences.measures import JgMeasure

__all__ = ["jg_reference", "prefs_reference"]


# --------------------------------------------------------------------------- rankings


def _rows(frame: pd.DataFrame, *columns: str) -> list[tuple[Any, ...]]:
    """The rows of ``frame``'s ``columns``, as Python values."""
    return list(zip(*(frame[column].tolist() for column in columns), strict=True))


def _ranking(
    run: pd.DataFrame, query: Any, *, smaller_id_first: bool, max_rank: int | None
) -> list[Any]:
    """The documents the run retrieved for ``query``, in trec_eval's order."""
    rows = [
        (doc, float(score)) for q, doc, score in _rows(run, "query", "doc", "score") if q == query
    ]
    if smaller_id_first:
        rows.sort(key=lambda row: str(row[0]))
    else:
        rows.sort(key=lambda row: str(row[0]), reverse=True)
    rows.sort(key=lambda row: -row[1])  # stable: ties keep the order of the ids
    docs = [doc for doc, _ in rows]
    return docs if max_rank is None else docs[:max_rank]


# --------------------------------------------------------------------------- preferences


@dataclass
class _Group:
    """One judgment group of a query: its preferences (preferred, other), with
    repeats, and its members (document, level) -- lines or distinct documents.
    """

    single: bool
    prefs: list[tuple[Any, Any]] = field(default_factory=list)
    members: list[tuple[Any, float]] = field(default_factory=list)
    lowest: list[Any] = field(default_factory=list)  # one sub-group: lowest class's docs


def _one_subgroup(lines: list[tuple[Any, float]]) -> _Group:
    levels: dict[str, set[float]] = defaultdict(set)
    for doc, level in lines:
        levels[str(doc)].add(level)
    if any(len(found) > 1 for found in levels.values()):
        msg = "a document has two levels in a sub-group"
        raise SchemaError(msg)
    group = _Group(single=True, members=list(lines))
    group.prefs = [(a, b) for a, la in lines for b, lb in lines if lb < la]
    lowest = min(level for _, level in lines)
    group.lowest = [doc for doc, level in lines if level == lowest]
    return group


def _below(lines: list[tuple[Any, float]]) -> set[tuple[Any, Any]]:
    """The preferences of one sub-group between different documents."""
    return {(a, b) for a, la in lines for b, lb in lines if lb < la and a != b}


def _closure(edges: set[tuple[Any, Any]]) -> set[tuple[Any, Any]]:
    """Preferences closed under transitivity; a cycle is refused."""
    while True:
        more = {(a, d) for a, b in edges for c, d in edges if b == c}
        if any(a == d for a, d in more):
            msg = "the preferences of a judgment group contradict each other"
            raise SchemaError(msg)
        if more <= edges:
            return edges
        edges = edges | more


def _flips(before: float | None, level: float) -> bool:
    """Whether a document goes from non-relevant to relevant, or back."""
    if before is None:
        return False
    return (before > 0 and level == 0) or (before == 0 and level > 0)


def _final_levels(subgroups: dict[str, list[tuple[Any, float]]]) -> dict[Any, float]:
    """Each document's last level, sub-groups by name, levels descending."""
    final: dict[Any, float] = {}
    for name in sorted(subgroups, key=str):
        for doc, level in sorted(subgroups[name], key=lambda line: -line[1]):
            if _flips(final.get(doc), level):
                msg = "a document is both non-relevant and relevant in a judgment group"
                raise SchemaError(msg)
            final[doc] = level
    return final


def _several_subgroups(subgroups: dict[str, list[tuple[Any, float]]]) -> _Group:
    edges: set[tuple[Any, Any]] = set()
    for lines in subgroups.values():
        edges |= _below(lines)
    edges = _closure(edges)
    members = list(_final_levels(subgroups).items())
    return _Group(single=False, prefs=sorted(edges, key=str), members=members)


def _groups(prefs: pd.DataFrame, query: Any) -> list[_Group]:
    by_group: dict[Any, dict[Any, list[tuple[Any, float]]]] = defaultdict(lambda: defaultdict(list))
    for q, group, subgroup, doc, rel in _rows(prefs, "query", "group", "subgroup", "doc", "rel"):
        if q == query:
            by_group[group][subgroup].append((doc, float(rel)))
    found = []
    for name in sorted(by_group, key=str):
        subgroups = by_group[name]
        if len(subgroups) == 1:
            found.append(_one_subgroup(next(iter(subgroups.values()))))
        else:
            found.append(_several_subgroups(subgroups))
    return found


def _numbering(ranking: list[Any], judged: Iterable[Any]) -> tuple[dict[Any, int], int]:
    """trec_eval's numbers of the judged documents, and how many were retrieved."""
    judged = set(judged)
    retrieved = [doc for doc in ranking if doc in judged]
    others = sorted(judged - set(retrieved), key=str)
    return {doc: at for at, doc in enumerate(retrieved + others)}, len(retrieved)


def _ratio(a: float, b: float) -> float:
    return a / b if b else math.nan


def _share(a: float, b: float) -> float:
    return a / b if b else 0.0


def _rel(group: _Group, level: float) -> bool:
    return level > 0


def _nonrel(group: _Group, level: float) -> bool:
    return level == 0 or (group.single and level < 0)


def _fulfilled(prefs: list[tuple[Any, Any]], number: dict[Any, int], n: int) -> int:
    """Preferences whose preferred document is retrieved and numbered first."""
    return sum(number[a] < number[b] and number[a] < n for a, b in prefs)


def _both_retrieved(
    prefs: list[tuple[Any, Any]], number: dict[Any, int], n: int
) -> list[tuple[Any, Any]]:
    return [(a, b) for a, b in prefs if max(number[a], number[b]) < n]


def _kept_pairs(group: _Group, number: dict[Any, int], keep: int) -> list[tuple[Any, Any]]:
    """trec_eval's ``recalculate``: the preferences counted when ``keep`` non-relevant
    documents stand for all of them (see ``pdireval.evaluate_prefs``).
    """
    rel_all = sum(level > 0 for _, level in group.members)
    if group.single:
        lowest = sorted(group.lowest, key=lambda d: number[d])[:keep]
        last = set(group.lowest)
        counted = [(a, b) for a, b in group.prefs if b not in last]
        return counted + [(a, b) for a, _ in group.members for b in lowest]
    nonrel = sorted((d for d, level in group.members if level == 0), key=lambda d: number[d])
    dropped = set(nonrel[rel_all:])
    return [(a, b) for a, b in group.prefs if a not in dropped and b not in dropped]


def _rnonrel(group: _Group, number: dict[Any, int], n: int, *, retrieved: bool) -> float:
    """One group's ratio of prefs_avgjg_Rnonrel (or its _ret variant)."""
    ret = [(d, level) for d, level in group.members if number[d] < n]
    pool = ret if retrieved else group.members
    big_r = sum(_rel(group, level) for _, level in pool)
    big_n = sum(_nonrel(group, level) for _, level in pool)
    rel_ret = sum(_rel(group, level) for _, level in ret)
    rel_all = sum(_rel(group, level) for _, level in group.members)
    if big_r >= big_n:
        prefs = _both_retrieved(group.prefs, number, n) if retrieved else group.prefs
        ful = _fulfilled(prefs, number, n) + rel_ret * (big_r - big_n)
        return _ratio(ful, len(prefs) + rel_all * (big_r - big_n))
    counted = _kept_pairs(group, number, big_r)
    if retrieved:
        counted = _both_retrieved(counted, number, n)
    return _ratio(_fulfilled(counted, number, n), len(counted))


def _averaged(ratios: list[float]) -> float:
    total = sum(ratios)  # NaN stays NaN and is not above 0
    return total / len(ratios) if total > 0 else 0.0


def _pairs(groups: list[_Group], number: dict[Any, int], n: int) -> tuple[float, float, float]:
    toward: dict[tuple[int, int], list[int]] = defaultdict(lambda: [0, 0])
    for group in groups:
        for a, b in group.prefs:
            first, second = sorted((number[a], number[b]))
            toward[first, second][0] += number[a] < number[b]
            toward[first, second][1] += 1
    both = [c / t for (i, j), (c, t) in toward.items() if j < n]
    one = [c / t for (i, j), (c, t) in toward.items() if i < n <= j]
    return (
        _share(sum(both) + sum(one), len(toward)),
        _share(sum(both), len(both)),
        _share(sum(both) + sum(one), len(both) + len(one)),
    )


def _counts(group: _Group, number: dict[Any, int], n: int) -> dict[str, int]:
    """trec_eval's counts of one group's preferences."""
    c = {"ful_ret": 0, "poss_ret": 0, "ful_imp": 0, "poss_imp": 0, "none": 0}
    for a, b in group.prefs:
        ra, rb = number[a], number[b]
        c["ful_ret"] += max(ra, rb) < n and ra < rb
        c["poss_ret"] += max(ra, rb) < n
        c["ful_imp"] += ra < n <= rb
        c["poss_imp"] += (ra < n) != (rb < n)
        c["none"] += min(ra, rb) >= n
    c["ful"] = c["ful_ret"] + c["ful_imp"]
    c["imp"] = c["poss_ret"] + c["poss_imp"]
    c["poss"] = c["imp"] + c["none"]
    return c


def _query_prefs(groups: list[_Group], ranking: list[Any]) -> dict[str, float]:
    judged = {doc for group in groups for doc, _ in group.members}
    number, n = _numbering(ranking, judged)
    counts = [_counts(group, number, n) for group in groups]

    def total(name: str) -> int:
        return sum(c[name] for c in counts)

    def per_group(fulfilled: str, possible: str) -> float:
        return _averaged([_share(c[fulfilled], c[possible]) for c in counts])

    pair, pair_ret, pair_imp = _pairs(groups, number, n)
    return {
        "prefs_num_prefs_poss": float(total("poss")),
        "prefs_num_prefs_ful": float(total("ful")),
        "prefs_num_prefs_ful_ret": float(total("ful_ret")),
        "prefs_simp": _share(total("ful"), total("poss")),
        "prefs_pair": pair,
        "prefs_avgjg": per_group("ful", "poss"),
        "prefs_avgjg_Rnonrel": _averaged([_rnonrel(g, number, n, retrieved=False) for g in groups]),
        "prefs_simp_ret": _share(total("ful_ret"), total("poss_ret")),
        "prefs_pair_ret": pair_ret,
        "prefs_avgjg_ret": per_group("ful_ret", "poss_ret"),
        "prefs_avgjg_Rnonrel_ret": _averaged(
            [_rnonrel(g, number, n, retrieved=True) for g in groups]
        ),
        "prefs_simp_imp": _share(total("ful"), total("imp")),
        "prefs_pair_imp": pair_imp,
        "prefs_avgjg_imp": per_group("ful", "imp"),
    }


def prefs_reference(
    run: pd.DataFrame, prefs: pd.DataFrame, *, max_rank: int | None = None
) -> dict[Any, dict[str, float]]:
    """Every judged query's preference measures for one run (``query``, ``doc``,
    ``score``) and a preference frame; queries the run did not retrieve are scored on an
    empty ranking.
    """
    values = {}
    for query in sorted(set(prefs["query"]), key=str):
        ranking = _ranking(run, query, smaller_id_first=True, max_rank=max_rank)
        values[query] = _query_prefs(_groups(prefs, query), ranking)
    return values


# --------------------------------------------------------------------------- groups


def _average_precision(relevant: list[bool], big_r: int) -> float:
    total, seen = 0.0, 0
    for at, hit in enumerate(relevant, start=1):
        if hit:
            seen += 1
            total += seen / at
    return total / big_r if seen else 0.0


def _group_values(
    ranking: list[Any],
    labels: dict[Any, float],
    measure: JgMeasure,
    *,
    judged_only: bool,
    rel_threshold: float,
) -> float:
    """One measure against one group's labels (-1: a document the group did not judge)."""
    if judged_only:
        ranking = [doc for doc in ranking if labels.get(doc, -1) >= 0]
    label = [labels.get(doc, -1) for doc in ranking]
    relevant = [value >= max(rel_threshold, 0) for value in label]
    big_r = sum(value >= max(rel_threshold, 0) for value in labels.values())
    if measure.family == "map_avgjg":
        return _average_precision(relevant, big_r)
    if measure.family == "P_avgjg":
        cutoff = int(measure.cutoff or 0)
    else:
        cutoff = int((measure.cutoff or 0.0) * big_r + 0.9)
    return sum(relevant[:cutoff]) / cutoff if cutoff >= 1 else 0.0


def jg_reference(
    run: pd.DataFrame,
    qrels_jg: pd.DataFrame,
    measures: list[JgMeasure],
    *,
    max_rank: int | None = None,
    judged_only: bool = False,
    rel_threshold: float = 1,
) -> dict[Any, dict[str, float]]:
    """Every judged query's judgment-group measures for one run and a judgment-group
    frame; queries the run did not retrieve are scored on an empty ranking.
    """
    values = {}
    for query in sorted(set(qrels_jg["query"]), key=str):
        ranking = _ranking(run, query, smaller_id_first=False, max_rank=max_rank)
        labels: dict[Any, dict[Any, float]] = defaultdict(dict)
        for q, group, doc, rel in _rows(qrels_jg, "query", "group", "doc", "rel"):
            if q == query:
                labels[group][doc] = float(rel)
        values[query] = {
            m.name: sum(
                _group_values(
                    ranking, labels[g], m, judged_only=judged_only, rel_threshold=rel_threshold
                )
                for g in sorted(labels, key=str)
            )
            / len(labels)
            for m in measures
        }
    return values
