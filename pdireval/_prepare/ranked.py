"""``Ranked``: the prepared arrays every metric kernel reads, and helpers over them.

One evaluating call prepares its frame once into a :class:`Ranked`; every metric of
the call is a kernel ``kernel(ranked, k=..., **params) -> ndarray`` returning one
float64 value per (run, query) group. It is also the input of metrics you declare
yourself (:func:`pdireval.metrics.define`).
"""

from __future__ import annotations

from collections.abc import Callable, Hashable
from dataclasses import dataclass, field
from typing import Any, TypeVar

import numpy as np

__all__ = ["Ranked", "block_starts", "positions_in_blocks", "safe_divide"]

T = TypeVar("T")


@dataclass(eq=False)
class Ranked:
    """The judged retrieved documents of every group in rank order, and all judgments.

    Unjudged retrieved documents never add to a metric; they only take up positions.
    So the arrays hold just the *judged* retrieved rows, each with its position in
    its group's full ranking, plus the number of retrieved documents per group. A
    group is one query (of one run); kernels return one value per group.

    Attributes
    ----------
    n_groups : int
        Number of (run, query) groups; every kernel returns one value per group.
    num_ret : ndarray of float
        Number of retrieved documents of each group.
    group : ndarray of int
        Group code of each judged retrieved row; a group's rows are contiguous and
        in rank order.
    position : ndarray of int
        1-based position of each of these rows in its group's full ranking.
    label : ndarray of float
        Relevance label of each of these rows (negative labels included: they mark
        pooled but unjudged documents, as in trec_eval).
    judged_group, judged_label : ndarray
        Group code and label of every judged row, retrieved or not.
    known, judged_known : ndarray of bool
        The ``known`` flag (the user already knew the document; user-oriented
        measures) of each judged retrieved row and of each judged row; all False when
        the frame has no known column.
    tie_first, tie_size : ndarray of int
        For each judged retrieved row, the first position and the size of its group of
        equal scores (its own position and 1 when not tied, or when ranked by rank).
    time : ndarray of float, optional
        Each group's processing time in seconds (NaN when not timed); None when the
        frame has no time column.

    Examples
    --------
    >>> import numpy as np
    >>> ranked = Ranked.from_labels([[1, 0, 2], [0]], judged=[[1, 0, 2, 1], [0]])
    >>> ranked.per_query_count(ranked.relevant(1)).tolist()
    [2.0, 0.0]
    >>> ranked.num_relevant(1).tolist()
    [3.0, 0.0]
    """

    n_groups: int
    num_ret: np.ndarray
    group: np.ndarray
    position: np.ndarray
    label: np.ndarray
    judged_group: np.ndarray
    judged_label: np.ndarray
    known: np.ndarray
    judged_known: np.ndarray
    tie_first: np.ndarray
    tie_size: np.ndarray
    time: np.ndarray | None = None
    _cache: dict[Hashable, Any] = field(default_factory=dict, repr=False)

    @classmethod
    def from_labels(
        cls,
        rankings: list[list[float]],
        judged: list[list[float]] | None = None,
    ) -> Ranked:
        """Arrays of fully judged rankings, one list of labels per group (for examples).

        ``judged`` lists every judgment of each group (retrieved or not); by default
        the ranked labels themselves.
        """
        judged = rankings if judged is None else judged
        group = np.repeat(np.arange(len(rankings)), [len(r) for r in rankings])
        starts = [np.arange(1, len(r) + 1) for r in rankings]
        position = np.concatenate(starts) if starts else np.zeros(0, dtype=np.int64)
        judged_group = np.repeat(np.arange(len(judged)), [len(j) for j in judged])
        labels = np.array([x for r in rankings for x in r], dtype=np.float64)
        return cls(
            n_groups=len(rankings),
            num_ret=np.array([len(r) for r in rankings], dtype=np.float64),
            group=group,
            position=position.astype(np.int64),
            label=labels,
            judged_group=judged_group,
            judged_label=np.array([x for j in judged for x in j], dtype=np.float64),
            known=np.zeros(len(group), dtype=bool),
            judged_known=np.zeros(len(judged_group), dtype=bool),
            tie_first=position.astype(np.int64),
            tie_size=np.ones(len(group), dtype=np.int64),
        )

    def __post_init__(self) -> None:
        """Every array read-only: a kernel that wrote into one would change the other
        metrics of the same call.
        """
        for value in vars(self).values():
            if isinstance(value, np.ndarray):
                value.flags.writeable = False

    def cached(self, key: Hashable, compute: Callable[[], T]) -> T:
        """Return ``compute()`` once per key and call, so metrics of one call share work
        (arrays read-only: metrics of the call share them).
        """
        if key not in self._cache:
            value = compute()
            if isinstance(value, np.ndarray):
                value.flags.writeable = False
            self._cache[key] = value
        cached: T = self._cache[key]
        return cached

    def per_query_sum(self, weights: np.ndarray, mask: np.ndarray | None = None) -> np.ndarray:
        """Sum ``weights`` of the rows per group (optionally only where ``mask``)."""
        group = self.group if mask is None else self.group[mask]
        weights = weights if mask is None else weights[mask]
        return np.bincount(group, weights=weights, minlength=self.n_groups)

    def per_group(self, group: np.ndarray) -> np.ndarray:
        """Count the entries of ``group`` (group codes, e.g. ``judged_group``) per group."""
        return np.bincount(group, minlength=self.n_groups).astype(np.float64)

    def per_query_count(self, mask: np.ndarray) -> np.ndarray:
        """Count the rows per group where ``mask`` holds."""
        return np.bincount(self.group[mask], minlength=self.n_groups).astype(np.float64)

    def within_query_cumsum(self, mask: np.ndarray) -> np.ndarray:
        """Running count of ``mask`` inside each group, inclusive of the row itself."""
        total = np.cumsum(mask, dtype=np.int64)
        if not len(total):
            return total
        starts = self.cached("starts", lambda: np.flatnonzero(block_starts(self.group)))
        before = total[starts] - mask[starts]
        return total - np.repeat(before, np.diff(np.concatenate((starts, [len(total)]))))

    def relevant(self, rel: int) -> np.ndarray:
        """Mask of the rows whose label is at least ``rel`` (never a negative label)."""
        return self.cached(("relevant", rel), lambda: self.label >= max(rel, 0))

    def relevant_so_far(self, rel: int) -> np.ndarray:
        """Number of relevant rows at or above each row, inside its group."""
        return self.cached(
            ("relevant_so_far", rel), lambda: self.within_query_cumsum(self.relevant(rel))
        )

    def num_relevant(self, rel: int) -> np.ndarray:
        """Number of judged documents per group with label at least ``rel`` (retrieved or not)."""

        def count() -> np.ndarray:
            hits = self.judged_group[self.judged_label >= max(rel, 0)]
            return np.bincount(hits, minlength=self.n_groups).astype(np.float64)

        return self.cached(("num_relevant", rel), count)

    def judged_only(self) -> Ranked:
        """The same groups with the unjudged retrieved documents dropped and ranked again.

        trec_eval's ``-J``: documents without a judgment (or with a negative label) are
        removed from each ranking, the others move up, and the number retrieved shrinks
        accordingly. Groups of equal scores keep the documents that remain.
        """

        def compute() -> Ranked:
            kept = self.label >= 0
            group = self.group[kept]
            position = positions_in_blocks(block_starts(group), len(group))
            tie_first, tie_size = _kept_ties(group, self.tie_first[kept], position)
            return Ranked(
                n_groups=self.n_groups,
                num_ret=np.bincount(group, minlength=self.n_groups).astype(np.float64),
                group=group,
                position=position,
                label=self.label[kept],
                judged_group=self.judged_group,
                judged_label=self.judged_label,
                known=self.known[kept],
                judged_known=self.judged_known,
                tie_first=tie_first,
                tie_size=tie_size,
                time=self.time,
            )

        return self.cached("judged_only", compute)


def _kept_ties(
    group: np.ndarray, old_first: np.ndarray, position: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """Groups of equal scores among the documents kept by judged_only, in the new ranks."""
    new = np.ones(len(group), dtype=bool)
    new[1:] = (group[1:] != group[:-1]) | (old_first[1:] != old_first[:-1])
    block = np.cumsum(new) - 1
    return position[new][block], np.bincount(block)[block]


def safe_divide(numerator: np.ndarray, denominator: np.ndarray) -> np.ndarray:
    """Elementwise ``numerator / denominator`` with 0 where the denominator is 0 (trec_eval)."""
    out = np.zeros(np.broadcast(numerator, denominator).shape, dtype=np.float64)
    np.divide(numerator, denominator, out=out, where=denominator != 0)
    return out


def block_starts(group: np.ndarray) -> np.ndarray:
    """Boolean mask: row starts a new group block."""
    starts = np.empty(len(group), dtype=bool)
    if len(group):
        starts[0] = True
        np.not_equal(group[1:], group[:-1], out=starts[1:])
    return starts


def positions_in_blocks(starts: np.ndarray, n: int) -> np.ndarray:
    """1-based position of each row inside its block."""
    index = np.arange(n, dtype=np.int64)
    block_start = np.maximum.accumulate(np.where(starts, index, 0)) if n else index
    return (index - block_start + 1).astype(np.int64)
