"""What judgments imply, once per call whatever the run: judged documents, judgment
groups, their members and the preferences between them.

A judgment group (JG) is one user's judgments of one information need; its sub-groups
(JSGs) each rank some documents by level. trec_eval represents a group in one of two
ways, and so does this module:

* a group with **one sub-group** is a set of equivalence classes, one per level: every
  line of a class is preferred to every line of each lower class. A document listed
  twice at one level counts twice; listed at two levels, it is an error. Its members
  are its lines, sorted by class; the counting needs no list of its pairs.
* a group with **several sub-groups** is a partial order: the preferences of each
  sub-group, closed under transitivity (a > b in one and b > c in another give a > c),
  each pair once. A cycle (a > b and b > a) is an error, and so is a document whose
  level goes from 0 to a positive level (or back) between two of its listings, taken in
  the order of the sub-groups' names and, within one, of the levels descending. Its
  members are its documents, each with its last level in that order; its pairs are
  listed (the "edges").

``prefs_pair`` pools the preferences of a query's groups per pair of documents: the
pairs of the queries where that differs from counting preferences -- several groups,
or a document listed twice -- are listed too.

Pairs are listed on sorted integer arrays: the lines of a group (or sub-group) sorted by
level descending, each line paired with the block of lines below its level; the
transitive closure composes the pairs with themselves until nothing is added (the
length of the paths covered doubles each time).

Members have a relevance: level > 0 relevant; level 0 non-relevant, and with one
sub-group any level <= 0. ``candidate`` members are those trec_eval's ``_Rnonrel``
measures may set aside: the lines of the lowest class (one sub-group), the non-relevant
documents (several).
"""

from __future__ import annotations

from dataclasses import dataclass, replace

import numpy as np
import pandas as pd

from pdireval._core.errors import SchemaError
from pdireval.preferences.codes import Codes, text_order

__all__ = ["Preferences", "build", "expand", "runs_of"]


@dataclass(frozen=True)
class Preferences:
    """The judged documents, groups, members and preference pairs of every query.

    Queries are the query codes of the call (``n_queries`` of them, judged or not).
    Judged documents ("jdocs") are numbered query by query, each query's in the text
    order of their ids: ``doc_start[q]:doc_start[q + 1]``; ``doc_code[j]`` is the id code
    of jdoc ``j`` and ``doc_query[j]`` its query.

    Groups are numbered query by query in the text order of their names
    (``group_query``; ``group_single``: one sub-group). Members are sorted by group
    (``member_start``), and within a one-sub-group group by class (``member_class``: 0
    for the highest level; ``member_last``: the lowest class).

    ``edge_*``: the preferences of the groups of several sub-groups, ``edge_hi``
    preferred to ``edge_lo`` (jdocs), with their members. ``pair_*``: every preference
    of the queries whose ``prefs_pair`` pools several (``query_pooled``: several groups,
    or a document listed twice in a group), numbered by unordered pair of documents
    (``pair_unordered``; its documents ``unordered_a < unordered_b``).
    """

    n_queries: int
    doc_start: np.ndarray
    doc_code: np.ndarray
    doc_query: np.ndarray
    group_query: np.ndarray
    group_single: np.ndarray
    member_group: np.ndarray
    member_doc: np.ndarray
    member_class: np.ndarray
    member_last: np.ndarray
    member_rel: np.ndarray
    member_nonrel: np.ndarray
    member_candidate: np.ndarray
    member_start: np.ndarray
    edge_group: np.ndarray
    edge_hi: np.ndarray
    edge_lo: np.ndarray
    edge_hi_member: np.ndarray
    edge_lo_member: np.ndarray
    query_pooled: np.ndarray
    pair_hi: np.ndarray
    pair_lo: np.ndarray
    pair_unordered: np.ndarray
    unordered_a: np.ndarray
    unordered_b: np.ndarray

    @property
    def n_docs(self) -> int:
        """The number of judged documents (jdocs)."""
        return len(self.doc_code)

    @property
    def n_groups(self) -> int:
        """The number of judgment groups."""
        return len(self.group_query)

    def judged_queries(self) -> np.ndarray:
        """The codes of the queries that have judgments, ascending."""
        return np.unique(self.group_query)


# --------------------------------------------------------------------------- helpers


def runs_of(*keys: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """For rows sorted by ``keys``: each row's run number (rows equal in every key form
    a run) and each run's end (exclusive).

    Examples
    --------
    >>> runs_of(np.array([0, 0, 1, 1, 1]))
    (array([0, 0, 1, 1, 1]), array([2, 5]))
    """
    n = len(keys[0])
    new = np.zeros(n, dtype=bool)
    if n:
        new[0] = True
        for key in keys:
            new[1:] |= key[1:] != key[:-1]
    run = np.cumsum(new) - 1
    ends = np.append(np.flatnonzero(new)[1:], n).astype(np.int64)
    return run, ends


def expand(first: np.ndarray, stop: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """All (i, j) with ``first[i] <= j < stop[i]``: i repeated, j counting up.

    Examples
    --------
    >>> expand(np.array([1, 3]), np.array([3, 4]))
    (array([0, 0, 1]), array([1, 2, 3]))
    """
    counts = np.maximum(stop - first, 0)
    total = int(counts.sum())
    i = np.repeat(np.arange(len(first), dtype=np.int64), counts)
    offset = np.arange(total, dtype=np.int64) - np.repeat(np.cumsum(counts) - counts, counts)
    return i, first[i] + offset


def _dense(*columns: tuple[np.ndarray, int]) -> tuple[np.ndarray, np.ndarray]:
    """Rank rows by several integer columns (most significant first, each given with
    its number of values): each row's dense rank, and the packed key of each rank.
    """
    key = np.zeros(len(columns[0][0]), dtype=np.int64)
    for values, size in columns:
        key = key * max(size, 1) + values
    unique, inverse = np.unique(key, return_inverse=True)
    return inverse.astype(np.int64).reshape(-1), unique


def _inverse(order: np.ndarray) -> np.ndarray:
    """The permutation undoing ``order``: ``_inverse(order)[order[i]] == i``."""
    undone = np.empty(len(order), dtype=np.int64)
    undone[order] = np.arange(len(order), dtype=np.int64)
    return undone


def _below_level(*blocks: np.ndarray, level: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """For rows sorted by ``blocks`` then ``level`` descending: the (preferred, less
    preferred) row pairs -- each row with every row of its block at a lower level.
    """
    level_run, level_ends = runs_of(*blocks, level)
    block_run, block_ends = runs_of(*blocks)
    return expand(level_ends[level_run], block_ends[block_run])


def _distinct_edges(
    g: np.ndarray, a: np.ndarray, b: np.ndarray
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    order = np.lexsort((b, a, g))
    g, a, b = g[order], a[order], b[order]
    keep = np.ones(len(g), dtype=bool)
    keep[1:] = (g[1:] != g[:-1]) | (a[1:] != a[:-1]) | (b[1:] != b[:-1])
    return g[keep], a[keep], b[keep]


@dataclass(frozen=True)
class _Names:
    """What messages need to name a query, a group and a document."""

    queries: Codes
    docs: Codes
    groups: pd.Index  # group names by group number
    group_query: np.ndarray
    doc_code: np.ndarray  # id code of each jdoc

    def group(self, group: int) -> str:
        return (
            f"judgment group {self.groups[group]!r} of query "
            f"{self.queries.text(int(self.group_query[group]))}"
        )

    def doc(self, jdoc: int) -> str:
        return self.docs.text(int(self.doc_code[jdoc]))


@dataclass(frozen=True)
class _Lines:
    group: np.ndarray
    subgroup: np.ndarray
    doc: np.ndarray
    level: np.ndarray

    def where(self, mask: np.ndarray) -> _Lines:
        return _Lines(self.group[mask], self.subgroup[mask], self.doc[mask], self.level[mask])


@dataclass(frozen=True)
class _Part:
    """The members of the groups of one kind, and their preferences: the pairs of
    ``pooled`` groups (one sub-group), or all of them (several).
    """

    member_group: np.ndarray
    member_doc: np.ndarray
    member_level: np.ndarray
    member_class: np.ndarray
    member_last: np.ndarray
    member_candidate: np.ndarray
    pair_group: np.ndarray
    pair_hi: np.ndarray
    pair_lo: np.ndarray
    pair_hi_member: np.ndarray
    pair_lo_member: np.ndarray


# --------------------------------------------------------------------------- building


def build(
    query: np.ndarray,
    group: pd.Series,
    subgroup: pd.Series,
    doc: np.ndarray,
    level: np.ndarray,
    queries: Codes,
    docs: Codes,
) -> Preferences:
    """The preferences of a preference frame's rows: ``query`` and ``doc`` as codes (of
    ``queries`` and ``docs``), ``group`` and ``subgroup`` as the frame's names.

    Raises
    ------
    SchemaError
        A judgment group that contradicts itself (see the module's docstring).
    """
    n_queries, n_ids = len(queries.values), len(docs.values)
    group_codes, group_names = pd.factorize(group.to_numpy())
    group_order = text_order(pd.Index(group_names))
    sub_codes, sub_names = pd.factorize(subgroup.to_numpy())
    n_names, n_subs = max(len(group_names), 1), max(len(sub_names), 1)
    g, g_keys = _dense((query, n_queries), (group_order[group_codes], n_names))
    s, s_keys = _dense((g, len(g_keys)), (text_order(pd.Index(sub_names))[sub_codes], n_subs))
    jdoc, d_keys = _dense((query, n_queries), (docs.order[doc], n_ids))
    group_query = g_keys // n_names
    doc_query = d_keys // max(n_ids, 1)
    doc_code = _inverse(docs.order)[d_keys % max(n_ids, 1)]
    group_names_by_number = pd.Index(group_names)[_inverse(group_order)[g_keys % n_names]]
    names = _Names(queries, docs, group_names_by_number, group_query, doc_code)
    single = np.bincount(s_keys // n_subs, minlength=len(g_keys)) == 1
    lines = _Lines(g, s, jdoc, np.asarray(level, dtype=np.float64))
    one, repeats = _single_subgroup(lines.where(single[g]), names)
    pooled = np.bincount(group_query, minlength=n_queries) > 1
    pooled[group_query[repeats]] = True
    one = _with_class_pairs(one, pooled[group_query])
    several = _several_subgroups(lines.where(~single[g]), names)
    doc_start = np.searchsorted(doc_query, np.arange(n_queries + 1)).astype(np.int64)
    return _assemble(
        _Judged(n_queries, doc_start, doc_code, doc_query, group_query, single, pooled),
        one,
        several,
    )


@dataclass(frozen=True)
class _Judged:
    n_queries: int
    doc_start: np.ndarray
    doc_code: np.ndarray
    doc_query: np.ndarray
    group_query: np.ndarray
    single: np.ndarray
    pooled: np.ndarray


def _single_subgroup(lines: _Lines, names: _Names) -> tuple[_Part, np.ndarray]:
    """Groups of one sub-group: equivalence classes by level, every line a member
    (pairs come later, for the groups that need them); and the groups that list a
    document twice.
    """
    order = np.lexsort((lines.doc, -lines.level, lines.group))
    g, d, level = lines.group[order], lines.doc[order], lines.level[order]
    _refuse_two_levels(g, d, level, names)
    class_run, _ = runs_of(g, -level)
    group_run, group_ends = runs_of(g)
    group_starts = np.append(0, group_ends[:-1])
    first_class = class_run[group_starts][group_run] if len(g) else class_run
    lowest = class_run[group_ends[group_run] - 1] if len(g) else class_run
    by_doc = np.lexsort((d, g))
    again = (g[by_doc][1:] == g[by_doc][:-1]) & (d[by_doc][1:] == d[by_doc][:-1])
    repeats = np.unique(g[by_doc][1:][again])
    none = np.zeros(0, dtype=np.int64)
    part = _Part(
        member_group=g,
        member_doc=d,
        member_level=level,
        member_class=class_run - first_class,
        member_last=class_run == lowest,
        member_candidate=class_run == lowest,
        pair_group=none,
        pair_hi=none,
        pair_lo=none,
        pair_hi_member=none,
        pair_lo_member=none,
    )
    return part, repeats


def _with_class_pairs(part: _Part, pooled_group: np.ndarray) -> _Part:
    """``part`` (one-sub-group groups) with the pairs of its groups in ``pooled_group``:
    every line with every line of a lower class.
    """
    rows = np.flatnonzero(pooled_group[part.member_group])
    g, level = part.member_group[rows], part.member_level[rows]
    hi, lo = _below_level(g, level=-level)
    none = np.full(len(hi), -1, dtype=np.int64)
    return replace(
        part,
        pair_group=g[hi],
        pair_hi=part.member_doc[rows][hi],
        pair_lo=part.member_doc[rows][lo],
        pair_hi_member=none,
        pair_lo_member=none,
    )


def _refuse_two_levels(g: np.ndarray, d: np.ndarray, level: np.ndarray, names: _Names) -> None:
    order = np.lexsort((level, d, g))
    g, d, level = g[order], d[order], level[order]
    clash = np.flatnonzero((g[1:] == g[:-1]) & (d[1:] == d[:-1]) & (level[1:] != level[:-1]))
    if len(clash):
        at = int(clash[0])
        msg = (
            f"document {names.doc(int(d[at]))} has two levels ({level[at]:g} and "
            f"{level[at + 1]:g}) in {names.group(int(g[at]))}, which has one sub-group: "
            "a document has one level in a sub-group; list it once, or put the other "
            "judgment in another sub-group or judgment group"
        )
        raise SchemaError(msg)


def _several_subgroups(lines: _Lines, names: _Names) -> _Part:
    """Groups of several sub-groups: the transitive closure of their sub-groups'
    preferences, every document a member.
    """
    order = np.lexsort((lines.doc, -lines.level, lines.subgroup, lines.group))
    g, s, d, level = (
        lines.group[order],
        lines.subgroup[order],
        lines.doc[order],
        lines.level[order],
    )
    hi, lo = _below_level(g, s, level=-level)
    direct = d[hi] != d[lo]  # a document listed above itself prefers nothing
    eg, ea, eb = _closure(*_distinct_edges(g[hi][direct], d[hi][direct], d[lo][direct]), names)
    member_group, member_doc, member_level = _final_levels(g, d, level, names)
    width = int(d.max(initial=0)) + 1
    key = member_group * width + member_doc  # sorted: members come sorted by (group, doc)
    zeros = np.zeros(len(member_group), dtype=np.int64)
    return _Part(
        member_group=member_group,
        member_doc=member_doc,
        member_level=member_level,
        member_class=zeros,
        member_last=zeros.astype(bool),
        member_candidate=member_level == 0,
        pair_group=eg,
        pair_hi=ea,
        pair_lo=eb,
        pair_hi_member=np.searchsorted(key, eg * width + ea),
        pair_lo_member=np.searchsorted(key, eg * width + eb),
    )


def _final_levels(
    g: np.ndarray, d: np.ndarray, level: np.ndarray, names: _Names
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Each (group, document) of lines sorted by (group, sub-group, level descending):
    its last level in that order, after refusing a level that goes from 0 to a positive
    level, or back, between two consecutive listings of a document.
    """
    order = np.lexsort((np.arange(len(g)), d, g))  # each document's listings, in order
    g, d, level = g[order], d[order], level[order]
    same = (g[1:] == g[:-1]) & (d[1:] == d[:-1])
    flip = same & (((level[:-1] > 0) & (level[1:] == 0)) | ((level[:-1] == 0) & (level[1:] > 0)))
    if flip.any():
        at = int(np.flatnonzero(flip)[0])
        msg = (
            f"document {names.doc(int(d[at]))} is non-relevant (level 0) in one sub-group "
            f"and relevant (level {max(level[at], level[at + 1]):g}) in another of "
            f"{names.group(int(g[at]))}: a judgment group is one user's consistent "
            "judgments; put the contradicting judgment in a judgment group of its own"
        )
        raise SchemaError(msg)
    last = np.append(~same, True)[: len(g)]
    return g[last], d[last], level[last]


def _closure(
    g: np.ndarray, a: np.ndarray, b: np.ndarray, names: _Names
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The transitive closure of the distinct edges a > b of each group ``g``, sorted by
    (g, a, b); a cycle is refused.
    """
    width = int(max(a.max(initial=0), b.max(initial=0))) + 1
    while True:
        source = g * width + a  # sorted: the edges are sorted by (g, a, b)
        first = np.searchsorted(source, g * width + b, side="left")
        stop = np.searchsorted(source, g * width + b, side="right")
        edge, other = expand(first, stop)
        cg, ca, cb = g[edge], a[edge], b[other]
        loop = np.flatnonzero(ca == cb)
        if len(loop):
            at = int(loop[0])
            _refuse_cycle(int(cg[at]), int(ca[at]), int(b[edge[at]]), names)
        grown = _distinct_edges(np.append(g, cg), np.append(a, ca), np.append(b, cb))
        if len(grown[0]) == len(g):
            return g, a, b
        g, a, b = grown


def _refuse_cycle(group: int, one: int, other: int, names: _Names) -> None:
    msg = (
        f"the preferences of {names.group(group)} contradict each other: document "
        f"{names.doc(one)} is preferred to {names.doc(other)} and {names.doc(other)} to "
        f"{names.doc(one)} (directly or through other documents of its sub-groups); a "
        "judgment group must be consistent: put the contradicting sub-group in a judgment "
        "group of its own"
    )
    raise SchemaError(msg)


def _assemble(judged: _Judged, one: _Part, several: _Part) -> Preferences:
    """One :class:`Preferences` of the parts of both kinds of groups."""
    parts = (one, several)

    def joined(name: str) -> np.ndarray:
        return np.concatenate([getattr(part, name) for part in parts])

    member_group = joined("member_group")
    by_group = np.argsort(member_group, kind="stable")
    place = _inverse(by_group)
    offset = len(one.member_group)  # the second part's members follow the first's
    level = joined("member_level")[by_group]
    is_single = judged.single[member_group[by_group]]
    pooled_edge = judged.pooled[judged.group_query[several.pair_group]]
    pair_hi = np.append(one.pair_hi, several.pair_hi[pooled_edge])
    pair_lo = np.append(one.pair_lo, several.pair_lo[pooled_edge])
    n_docs = len(judged.doc_code)
    unordered, keys = _dense(
        (np.minimum(pair_hi, pair_lo), n_docs), (np.maximum(pair_hi, pair_lo), n_docs)
    )
    return Preferences(
        n_queries=judged.n_queries,
        doc_start=judged.doc_start,
        doc_code=judged.doc_code,
        doc_query=judged.doc_query,
        group_query=judged.group_query,
        group_single=judged.single,
        member_group=member_group[by_group],
        member_doc=joined("member_doc")[by_group],
        member_class=joined("member_class")[by_group],
        member_last=joined("member_last")[by_group],
        member_rel=level > 0,
        member_nonrel=(level == 0) | (is_single & (level < 0)),
        member_candidate=joined("member_candidate")[by_group],
        member_start=np.searchsorted(member_group[by_group], np.arange(len(judged.single) + 1)),
        edge_group=several.pair_group,
        edge_hi=several.pair_hi,
        edge_lo=several.pair_lo,
        edge_hi_member=place[several.pair_hi_member + offset],
        edge_lo_member=place[several.pair_lo_member + offset],
        query_pooled=judged.pooled,
        pair_hi=pair_hi,
        pair_lo=pair_lo,
        pair_unordered=unordered,
        unordered_a=keys // max(n_docs, 1),
        unordered_b=keys % max(n_docs, 1),
    )
