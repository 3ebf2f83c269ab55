"""The preferences a run fulfils, counted per judgment group, and the values of trec_eval's
preference measures per query.

trec_eval numbers a query's judged documents by the run: the retrieved ones first, in
ranking order, then the others in the text order of their ids (:func:`ranks`). A
preference a > b is then

* *fulfilled among the retrieved* when both are retrieved and a ranks above b;
* *possible among the retrieved* when both are retrieved;
* *fulfilled by implication* when a is retrieved and b is not;
* *possible by implication* when exactly one of them is retrieved;
* *not occurring* when neither is.

A group of one sub-group is counted from its classes (one per level) without listing
its pairs: each member meets the retrieved and the other members of the lower classes
(prefix sums over the members sorted by class), and the pairs of two retrieved members
ranked in the order of their levels are counted one class at a time (a pass over the
retrieved members per level class, so the cost is the retrieved judged lines times the
number of levels of the largest group). A group of several sub-groups is counted over
its pairs.

The measures add these up per query (``prefs_simp``), average a ratio per judgment group
(``prefs_avgjg``), or average, over the pairs of documents some group prefers one of, the
share of those preferences that the ranking fulfils (``prefs_pair``: over the listed
pairs of the queries that pool several; otherwise it is ``prefs_simp``). ``_ret``
counts the retrieved pairs only, ``_imp`` the retrieved and implied ones, and the plain
measures count a pair that does not occur as possible but not fulfilled.
``prefs_avgjg_Rnonrel`` counts as many non-relevant documents per group as it has
relevant ones (see :func:`_rnonrel`).

Every step is a ``np.bincount``, a prefix sum or a search over sorted arrays; nothing
loops over queries.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from pdireval.preferences.pairs import Preferences, runs_of

__all__ = ["Ranks", "prefs_values", "ranks"]


@dataclass(frozen=True)
class Ranks:
    """Where one run put the judged documents.

    ``rank[j]`` is the place of jdoc ``j`` among its query's judged documents as
    trec_eval numbers them (from 0: the retrieved ones in ranking order, then the others
    in the text order of their ids); ``retrieved[q]`` is the number of query ``q``'s
    judged documents the run retrieved.
    """

    rank: np.ndarray
    retrieved: np.ndarray


def ranks(prefs: Preferences, position: np.ndarray) -> Ranks:
    """The :class:`Ranks` of a run that put jdoc ``j`` at ``position[j]`` of its query's
    ranking (0 first; -1: not retrieved).
    """
    n = prefs.n_docs
    missing = position < 0
    within = np.where(missing, np.arange(n, dtype=np.int64), position)
    order = np.lexsort((within, missing, prefs.doc_query))
    rank = np.empty(n, dtype=np.int64)
    rank[order] = np.arange(n, dtype=np.int64) - prefs.doc_start[prefs.doc_query[order]]
    retrieved = np.bincount(prefs.doc_query[~missing], minlength=prefs.n_queries)
    return Ranks(rank, retrieved.astype(np.int64))


def _ratio(numerator: np.ndarray, denominator: np.ndarray) -> np.ndarray:
    """The quotient as doubles, 0 / 0 giving NaN as in C."""
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.asarray(numerator, np.float64) / np.asarray(denominator, np.float64)


def _ratio_or_zero(numerator: np.ndarray, denominator: np.ndarray) -> np.ndarray:
    """The quotient where the denominator is not 0, else 0."""
    return np.where(denominator > 0, _ratio(numerator, np.maximum(denominator, 1)), 0.0)


def _sums(index: np.ndarray, weights: np.ndarray, size: int) -> np.ndarray:
    """Integer sums of ``weights`` per value of ``index``."""
    return np.bincount(index, weights=weights, minlength=size).astype(np.int64)


@dataclass(frozen=True)
class _Run:
    """The facts of one run about the members and the pairs of several sub-groups."""

    prefs: Preferences
    rank: np.ndarray  # per jdoc
    retrieved: np.ndarray  # per query: its judged documents retrieved
    member_rank: np.ndarray
    member_ret: np.ndarray
    edge_hi_ret: np.ndarray
    edge_lo_ret: np.ndarray
    edge_before: np.ndarray  # the preferred document ranks above the other

    @classmethod
    def of(cls, prefs: Preferences, found: Ranks) -> _Run:
        group_retrieved = found.retrieved[prefs.group_query]
        member_rank = found.rank[prefs.member_doc]
        limit = group_retrieved[prefs.edge_group]
        hi, lo = found.rank[prefs.edge_hi], found.rank[prefs.edge_lo]
        return cls(
            prefs,
            found.rank,
            found.retrieved,
            member_rank,
            member_rank < group_retrieved[prefs.member_group],
            hi < limit,
            lo < limit,
            hi < lo,
        )

    def edges(self, mask: np.ndarray) -> np.ndarray:
        """How many pairs of several-sub-group groups (those of ``mask``) each group has."""
        return np.bincount(self.prefs.edge_group[mask], minlength=self.prefs.n_groups)

    def members(self, mask: np.ndarray | None = None) -> np.ndarray:
        """How many members (those of ``mask``) each group has."""
        group = self.prefs.member_group
        return np.bincount(group if mask is None else group[mask], minlength=self.prefs.n_groups)


@dataclass(frozen=True)
class _Classes:
    """What the classes of one-sub-group groups give, one entry per member or group."""

    lower_ret: np.ndarray  # per member: retrieved members of lower classes
    lower_unret: np.ndarray  # per member: the others of lower classes
    implied: np.ndarray  # per group: pairs of a retrieved member and a lower other one
    last_ret: np.ndarray  # per group: retrieved members of the lowest class
    last_unret: np.ndarray  # per group: the others of the lowest class
    concordant: np.ndarray  # per group: retrieved pairs ranked in the order of levels
    concordant_last: np.ndarray  # per group: those whose less preferred is in the lowest

    @classmethod
    def of(cls, run: _Run) -> _Classes:
        prefs = run.prefs
        single = prefs.group_single[prefs.member_group]
        ret, unret = run.member_ret & single, ~run.member_ret & single
        class_run, class_ends = runs_of(prefs.member_group, prefs.member_class)
        end = class_ends[class_run]
        group_end = prefs.member_start[prefs.member_group + 1]
        with_ret = np.append(0, np.cumsum(ret))
        with_unret = np.append(0, np.cumsum(unret))
        last = prefs.member_last & single
        lower_unret = with_unret[group_end] - with_unret[end]
        return cls(
            lower_ret=with_ret[group_end] - with_ret[end],
            lower_unret=lower_unret,
            implied=_sums(prefs.member_group[ret], lower_unret[ret], prefs.n_groups),
            last_ret=run.members(last & ret),
            last_unret=run.members(last & unret),
            concordant=_concordant(run, ret),
            concordant_last=_concordant_last(run, ret, last),
        )


def _concordant(run: _Run, ret: np.ndarray) -> np.ndarray:
    """Per group, the pairs of two retrieved members of different classes whose member of
    the higher class ranks above the other: a pass per class k over the retrieved
    members sorted by rank, counting those of class k below each member of a higher
    class.
    """
    prefs = run.prefs
    rows = np.flatnonzero(ret)
    rows = rows[np.lexsort((run.member_rank[rows], prefs.member_group[rows]))]
    group, klass = prefs.member_group[rows], prefs.member_class[rows]
    group_run, group_ends = runs_of(group)
    end = group_ends[group_run]
    after = np.arange(1, len(rows) + 1)
    found = np.zeros(len(rows), dtype=np.int64)
    for k in range(1, int(klass.max(initial=0)) + 1):
        seen = np.append(0, np.cumsum(klass == k))
        found += np.where(klass < k, seen[end] - seen[after], 0)
    return _sums(group, found, prefs.n_groups)


def _concordant_last(run: _Run, ret: np.ndarray, last: np.ndarray) -> np.ndarray:
    """Per group, the retrieved members of the lowest class ranked below each retrieved
    member of a higher class, added up.
    """
    prefs = run.prefs
    width = int(run.rank.max(initial=0)) + 2
    lowest = np.sort(prefs.member_group[ret & last] * width + run.member_rank[ret & last])
    higher = np.flatnonzero(ret & ~last)
    group = prefs.member_group[higher]
    at_most = np.searchsorted(lowest, group * width + run.member_rank[higher], side="right")
    below = np.searchsorted(lowest, (group + 1) * width, side="left") - at_most
    return _sums(group, below, prefs.n_groups)


@dataclass(frozen=True)
class _GroupCounts:
    """trec_eval's counts of each judgment group."""

    ful_ret: np.ndarray
    poss_ret: np.ndarray
    ful_imp: np.ndarray
    poss_imp: np.ndarray
    not_occurring: np.ndarray
    rel: np.ndarray
    nonrel: np.ndarray
    rel_ret: np.ndarray
    nonrel_ret: np.ndarray

    @classmethod
    def of(cls, run: _Run, classes: _Classes) -> _GroupCounts:
        prefs = run.prefs
        n = prefs.n_groups
        ret = run.member_ret

        def over(mask: np.ndarray, values: np.ndarray) -> np.ndarray:
            return _sums(prefs.member_group[mask], values[mask], n)

        hi, lo = run.edge_hi_ret, run.edge_lo_ret
        ful_imp = classes.implied + run.edges(hi & ~lo)
        return cls(
            ful_ret=classes.concordant + run.edges(hi & lo & run.edge_before),
            poss_ret=over(ret, classes.lower_ret) + run.edges(hi & lo),
            ful_imp=ful_imp,
            poss_imp=ful_imp + over(~ret, classes.lower_ret) + run.edges(~hi & lo),
            not_occurring=over(~ret, classes.lower_unret) + run.edges(~hi & ~lo),
            rel=run.members(prefs.member_rel),
            nonrel=run.members(prefs.member_nonrel),
            rel_ret=run.members(prefs.member_rel & ret),
            nonrel_ret=run.members(prefs.member_nonrel & ret),
        )

    @property
    def fulfilled(self) -> np.ndarray:
        return self.ful_ret + self.ful_imp

    @property
    def possible(self) -> np.ndarray:
        return self.poss_ret + self.poss_imp + self.not_occurring


def prefs_values(prefs: Preferences, found: Ranks) -> dict[str, np.ndarray]:
    """The values of trec_eval's preference measures for every query code (queries
    without judgments get 0), for the run whose judged documents are at ``found``.
    """
    run = _Run.of(prefs, found)
    classes = _Classes.of(run)
    counts = _GroupCounts.of(run, classes)
    n_q = prefs.n_queries

    def per_query(values: np.ndarray) -> np.ndarray:
        return np.bincount(prefs.group_query, weights=values, minlength=n_q)

    groups = np.bincount(prefs.group_query, minlength=n_q)

    def averaged(per_group: np.ndarray) -> np.ndarray:
        total = per_query(per_group)  # NaN stays NaN, and fails "total > 0" as in C
        with np.errstate(invalid="ignore"):
            return np.where(total > 0, total / np.maximum(groups, 1), 0.0)

    ful, poss = counts.fulfilled, counts.possible
    imp_poss = counts.poss_ret + counts.poss_imp
    simp = _ratio_or_zero(per_query(ful), per_query(poss))
    simp_ret = _ratio_or_zero(per_query(counts.ful_ret), per_query(counts.poss_ret))
    simp_imp = _ratio_or_zero(per_query(ful), per_query(imp_poss))
    pair, pair_ret, pair_imp = _pair_values(run, (simp, simp_ret, simp_imp))
    rnonrel, rnonrel_ret = _rnonrel(run, counts, classes)
    return {
        "prefs_num_prefs_poss": per_query(poss),
        "prefs_num_prefs_ful": per_query(ful),
        "prefs_num_prefs_ful_ret": per_query(counts.ful_ret),
        "prefs_simp": simp,
        "prefs_pair": pair,
        "prefs_avgjg": averaged(_ratio_or_zero(ful, poss)),
        "prefs_avgjg_Rnonrel": averaged(rnonrel),
        "prefs_simp_ret": simp_ret,
        "prefs_pair_ret": pair_ret,
        "prefs_avgjg_ret": averaged(_ratio_or_zero(counts.ful_ret, counts.poss_ret)),
        "prefs_avgjg_Rnonrel_ret": averaged(rnonrel_ret),
        "prefs_simp_imp": simp_imp,
        "prefs_pair_imp": pair_imp,
        "prefs_avgjg_imp": averaged(_ratio_or_zero(ful, imp_poss)),
    }


def _pair_values(
    run: _Run, simple: tuple[np.ndarray, np.ndarray, np.ndarray]
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``prefs_pair``, ``_ret`` and ``_imp`` of every query.

    The preferences of every group of a query are pooled per unordered pair of documents
    {a, b}, a numbered before b by the run: the pair scores the share of its preferences
    that prefer a. Pairs of two retrieved documents, and of one retrieved, score; pairs of
    two others count in ``prefs_pair``'s denominator only. A query of one group that
    lists each document once has one preference per pair: its values are
    ``prefs_simp``'s (``simple``).
    """
    prefs = run.prefs
    n_pairs = len(prefs.unordered_a)
    before = run.rank[prefs.pair_hi] < run.rank[prefs.pair_lo]
    toward_first = np.bincount(prefs.pair_unordered, weights=before, minlength=n_pairs)
    share = _ratio(toward_first, np.bincount(prefs.pair_unordered, minlength=n_pairs))
    query = prefs.doc_query[prefs.unordered_a]
    limit = run.retrieved[query]
    first = np.minimum(run.rank[prefs.unordered_a], run.rank[prefs.unordered_b])
    both = np.maximum(run.rank[prefs.unordered_a], run.rank[prefs.unordered_b]) < limit
    one = (first < limit) & ~both
    n_q = prefs.n_queries

    def per_query(mask: np.ndarray, weights: np.ndarray | None = None) -> np.ndarray:
        chosen = None if weights is None else weights[mask]
        return np.bincount(query[mask], weights=chosen, minlength=n_q)

    scored_both, scored_one = per_query(both, share), per_query(one, share)
    count_both, count_one = per_query(both), per_query(one)
    count_all = np.bincount(query, minlength=n_q)
    pooled = (
        _ratio_or_zero(scored_both + scored_one, count_all),
        _ratio_or_zero(scored_both, count_both),
        _ratio_or_zero(scored_both + scored_one, count_both + count_one),
    )
    chosen = prefs.query_pooled
    return (
        np.where(chosen, pooled[0], simple[0]),
        np.where(chosen, pooled[1], simple[1]),
        np.where(chosen, pooled[2], simple[2]),
    )


# --------------------------------------------------------------------------- _Rnonrel


def _rnonrel(run: _Run, counts: _GroupCounts, classes: _Classes) -> tuple[np.ndarray, np.ndarray]:
    """The per-group ratios of ``prefs_avgjg_Rnonrel`` and ``prefs_avgjg_Rnonrel_ret``.

    Each group's non-relevant documents are set to as many as it has relevant ones, R
    (for ``_ret``, among the retrieved). With N non-relevant ones and N <= R, R - N
    fulfilled preferences of every relevant document are added (R (R - N) possible);
    with N > R, the counts are redone keeping R of them (trec_eval's ``recalculate``):

    * one sub-group: the first R lines of the lowest class, in the run's numbering, take
      that class's place: the pairs between the other classes, and every line of the
      group (the lowest class's own included, as trec_eval counts them) against each
      kept line.
    * several sub-groups: the first R non-relevant documents are kept and the others
      dropped with their pairs.

    A group with nothing to count gives NaN, which makes its query's value 0 (trec_eval
    sums NaN and keeps 0 when the sum is not above 0).
    """
    plain_direct = _ratio(
        counts.fulfilled + counts.rel_ret * (counts.rel - counts.nonrel),
        counts.possible + counts.rel * (counts.rel - counts.nonrel),
    )
    ret_direct = _ratio(
        counts.ful_ret + counts.rel_ret * (counts.rel_ret - counts.nonrel_ret),
        counts.poss_ret + counts.rel * (counts.rel_ret - counts.nonrel_ret),
    )
    kept = _Kept.of(run, counts, classes)
    plain = np.where(counts.rel >= counts.nonrel, plain_direct, _ratio(*kept.plain()))
    ret = np.where(counts.rel_ret >= counts.nonrel_ret, ret_direct, _ratio(*kept.retrieved()))
    return plain, ret


@dataclass(frozen=True)
class _Kept:
    """What ``_Rnonrel`` keeps of each group, for one run."""

    run: _Run
    counts: _GroupCounts
    classes: _Classes
    candidate_place: np.ndarray  # per member: its place among its group's candidates
    sorted_keys: np.ndarray  # members by (group, rank), packed
    width: int

    @classmethod
    def of(cls, run: _Run, counts: _GroupCounts, classes: _Classes) -> _Kept:
        prefs = run.prefs
        candidates = np.flatnonzero(prefs.member_candidate)
        group, rank = prefs.member_group[candidates], run.member_rank[candidates]
        order = np.lexsort((rank, group))
        runs, ends = runs_of(group[order])
        starts = np.append(0, ends[:-1])
        place = np.full(len(prefs.member_group), -1, dtype=np.int64)
        place[candidates[order]] = np.arange(len(order), dtype=np.int64) - starts[runs]
        width = int(run.rank.max(initial=0)) + 2
        keys = np.sort(prefs.member_group * width + run.member_rank)
        return cls(run, counts, classes, place, keys, width)

    def below(self, group: np.ndarray, rank: np.ndarray) -> np.ndarray:
        """How many members of ``group`` the run numbers before ``rank``."""
        found = np.searchsorted(self.sorted_keys, group * self.width + rank, side="left")
        return found - self.run.prefs.member_start[group]

    def _over_higher(self, values: np.ndarray, *, retrieved: bool) -> np.ndarray:
        """Per group: ``values`` of its members above the lowest class (retrieved ones
        with ``retrieved``), added up, for one-sub-group groups.
        """
        prefs = self.run.prefs
        mask = prefs.group_single[prefs.member_group] & ~prefs.member_last
        if retrieved:
            mask = mask & self.run.member_ret
        return _sums(prefs.member_group[mask], values[mask], prefs.n_groups)

    def plain(self) -> tuple[np.ndarray, np.ndarray]:
        """Fulfilled and counted preferences per group, R non-relevant ones kept."""
        run, prefs, classes = self.run, self.run.prefs, self.classes
        ret = run.member_ret
        ones = np.ones(len(ret), dtype=np.int64)
        # one sub-group: the pairs not involving the lowest class ...
        ful = (classes.concordant - classes.concordant_last) + (
            classes.implied - self._over_higher(ones, retrieved=True) * classes.last_unret
        )
        size_last = classes.last_ret + classes.last_unret
        total = self._over_higher(classes.lower_ret + classes.lower_unret, retrieved=False) - (
            self._over_higher(ones, retrieved=False) * size_last
        )
        # ... and every line against each of the first R lines of the lowest class
        chosen = self._chosen(self.counts.rel)
        group = prefs.member_group[chosen]
        limit = run.retrieved[prefs.group_query[group]]
        ful += _sums(
            group, self.below(group, np.minimum(run.member_rank[chosen], limit)), prefs.n_groups
        )
        total += np.bincount(group, minlength=prefs.n_groups) * run.members()
        # several sub-groups: the pairs whose both documents are kept
        kept = self._kept(self.counts.rel)
        ful += run.edges(kept & run.edge_hi_ret & run.edge_before)
        total += run.edges(kept)
        return ful, total

    def retrieved(self) -> tuple[np.ndarray, np.ndarray]:
        """The same among the retrieved documents, R of the retrieved kept."""
        run, prefs, classes = self.run, self.run.prefs, self.classes
        ones = np.ones(len(run.member_ret), dtype=np.int64)
        ful = classes.concordant - classes.concordant_last
        total = self._over_higher(classes.lower_ret, retrieved=True) - (
            self._over_higher(ones, retrieved=True) * classes.last_ret
        )
        chosen = self._chosen(self.counts.rel_ret)
        chosen = chosen[run.member_ret[chosen]]
        group = prefs.member_group[chosen]
        ful = ful + _sums(group, self.below(group, run.member_rank[chosen]), prefs.n_groups)
        total = total + np.bincount(group, minlength=prefs.n_groups) * run.members(run.member_ret)
        # several sub-groups keep as many non-relevant documents as the group has
        # relevant ones, retrieved or not (trec_eval's rule)
        kept = self._kept(self.counts.rel) & run.edge_hi_ret & run.edge_lo_ret
        ful += run.edges(kept & run.edge_before)
        total += run.edges(kept)
        return ful, total

    def _chosen(self, keep: np.ndarray) -> np.ndarray:
        """The lowest-class lines of one-sub-group groups among the first ``keep[g]``."""
        prefs = self.run.prefs
        single = prefs.group_single[prefs.member_group]
        place = self.candidate_place
        within = (place >= 0) & (place < keep[prefs.member_group])
        return np.flatnonzero(single & within)

    def _kept(self, keep: np.ndarray) -> np.ndarray:
        """Per pair of a several-sub-group group: both its documents are kept (the first
        ``keep[g]`` non-relevant documents of the group, and every other document).
        """
        prefs = self.run.prefs
        dropped = self.candidate_place >= keep[prefs.member_group]
        return ~dropped[prefs.edge_hi_member] & ~dropped[prefs.edge_lo_member]
