"""Expected values over every order of each group of equal scores (``ties="average"``).

Inside a group of n tied documents starting at position a, a random order puts each
document at each of the positions a..a+n-1 with probability 1/n. The expected value
of P@k, R@k, DCG@k (and so nDCG@k, CG@k), AP and RR follows in closed form -- no order
is enumerated (McSherry & Najork, "Computing information retrieval performance
measures efficiently in the presence of tied scores", ECIR 2008):

* a document's chance of being in the top k is clip(k - a + 1, 0, n) / n;
* its expected discount is the mean of 1/discount over the group's positions <= k;
* AP: a tie group with r relevant documents and c relevant ones ranked above it adds
  (r/n) * sum over its slots s (position a + s <= k) of
  (c + 1 + s (r - 1)/(n - 1)) / (a + s)  -- given slot s holds a relevant document,
  the other r - 1 fill the other n - 1 slots uniformly;
* RR: the first relevant document lies in the first group holding one; with r of its
  n documents relevant it sits at slot j with probability C(n-1-j, r-1) / C(n, r).
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from pdireval._prepare.ranked import Ranked
from pdireval.metrics._segments import group_cumsum

__all__ = [
    "expected_average_precision",
    "expected_discounted_gain",
    "expected_hits",
    "expected_reciprocal_rank",
]


def _span(ranked: Ranked, mask: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    return ranked.tie_first[mask].astype(np.int64), ranked.tie_size[mask].astype(np.int64)


def _prefix(values_at: Callable[[np.ndarray], np.ndarray], last: int) -> np.ndarray:
    """``P[p] = sum_{i=1..p} values_at(i)``, with ``P[0] = 0``."""
    return np.concatenate([[0.0], np.cumsum(values_at(np.arange(1, last + 1, dtype=np.float64)))])


def expected_hits(ranked: Ranked, rel: int, k: int | None) -> np.ndarray:
    """Expected number of relevant documents in the top k, per group."""
    relevant = ranked.relevant(rel)
    first, size = _span(ranked, relevant)
    chance = np.ones(len(first)) if k is None else np.clip(k - first + 1, 0, size) / size
    return np.bincount(ranked.group[relevant], weights=chance, minlength=ranked.n_groups)


def expected_discounted_gain(
    ranked: Ranked,
    gains: np.ndarray,
    k: int | None,
    discount: Callable[[np.ndarray], np.ndarray],
) -> np.ndarray:
    """Expected sum of gain / discount(position) over the top k, per group."""
    counted = gains != 0
    first, size = _span(ranked, counted)
    last = first + size - 1 if k is None else np.minimum(first + size - 1, k)
    top = int(last.max()) if len(last) else 0
    inverse = _prefix(lambda p: 1.0 / discount(p), max(top, 1))
    cap = len(inverse) - 1
    low, high = np.minimum(first - 1, cap), np.clip(last, 0, cap)
    mean_inverse = np.where(last >= first, inverse[high] - inverse[low], 0.0)
    weights = gains[counted] * mean_inverse / size
    return np.bincount(ranked.group[counted], weights=weights, minlength=ranked.n_groups)


def _relevant_tie_groups(ranked: Ranked, rel: int):
    """Per tie group holding relevant documents: query, first position, size, number
    relevant, and relevant documents ranked above it.
    """
    relevant = ranked.relevant(rel)
    group = ranked.group[relevant]
    first, size = _span(ranked, relevant)
    found = ranked.relevant_so_far(rel)[relevant]
    new = np.ones(len(group), dtype=bool)
    new[1:] = (group[1:] != group[:-1]) | (first[1:] != first[:-1])
    starts = np.flatnonzero(new)
    count = np.diff(np.r_[starts, len(group)])
    return group[starts], first[starts], size[starts], count, found[starts] - 1


def expected_average_precision(ranked: Ranked, rel: int, k: int | None) -> np.ndarray:
    """Expected sum of precision at the relevant documents (within k), per group."""
    group, first, size, r, above = _relevant_tie_groups(ranked, rel)
    last_slot = size - 1 if k is None else np.minimum(size - 1, k - first)
    reach = int((first + np.maximum(last_slot, 0)).max()) if len(first) else 0
    harmonic = _prefix(lambda p: 1.0 / p, max(reach, 1))
    valid = last_slot >= 0
    end = first + np.maximum(last_slot, 0)
    low = np.minimum(first - 1, len(harmonic) - 1)
    inverse_sum = np.where(valid, harmonic[end] - harmonic[low], 0.0)  # sum 1/(a+s)
    slot_sum = np.where(valid, (last_slot + 1) - first * inverse_sum, 0.0)  # sum s/(a+s)
    others = np.divide(r - 1, size - 1, out=np.zeros(len(r)), where=size > 1)
    value = (r / size) * ((above + 1) * inverse_sum + others * slot_sum)
    return np.bincount(group, weights=value, minlength=ranked.n_groups)


def expected_reciprocal_rank(ranked: Ranked, rel: int, k: int | None) -> np.ndarray:
    """Expected 1 / position of the first relevant document (0 beyond k), per group."""
    group, first, size, r, above = _relevant_tie_groups(ranked, rel)
    leading = above == 0  # the first tie group of each query holding a relevant document
    group, first, size, r = group[leading], first[leading], size[leading], r[leading]
    length = size - r + 1  # slots the first relevant document can take
    which = np.repeat(np.arange(len(group)), length)
    slot = np.arange(len(which)) - np.repeat(np.cumsum(length) - length, length)
    n, m = size[which].astype(np.float64), r[which].astype(np.float64)
    # P(slot j) = (r/n) prod_{t<j} (n - t - r)/(n - 1 - t): a running product per group.
    step = np.log(np.maximum(n - slot - m, 1.0)) - np.log(np.maximum(n - 1 - slot, 1.0))
    before = group_cumsum(step, which) - step
    chance = np.exp(np.log(m / n) + before)
    position = first[which] + slot
    counted = np.ones(len(position), dtype=bool) if k is None else position <= k
    weights = chance[counted] / position[counted]
    return np.bincount(group[which][counted], weights=weights, minlength=ranked.n_groups)
