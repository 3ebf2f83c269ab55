"""Unsupervised fusion methods: each maps the (normalised) rows of the runs to one fused
score per (query, doc) pair.

A method is declared once -- its name, the names it is also known by (ranx's among
them), its parameters with their defaults, whether it takes one weight per run -- and
computed from per-pair sums over the rows (``np.bincount`` on the pair codes).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from pdireval._core.errors import ParameterError
from pdireval._core.registry import Registry
from pdireval._prepare.arrays import bincount
from pdireval.fusion._runs import Runs, ranking_positions

__all__ = ["METHODS", "Method", "find_method"]

#: Marks a parameter without a default: the caller must give it.
REQUIRED: Any = object()

Kernel = Callable[..., np.ndarray]
#: A tile of candidate pairs: (rows, row_ok, cols, col_ok), see :func:`_tiles`.
Tile = tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]


@dataclass(frozen=True)
class Method:
    """A fusion method: ``kernel(runs, weights, **params)`` gives a score per pair."""

    name: str
    kernel: Kernel
    aliases: tuple[str, ...] = ()
    params: Mapping[str, Any] = field(default_factory=dict)
    weighted: bool = False
    doc: str = ""
    formula: str = ""  # the fused score, as the documentation writes it (reST)
    cite: str = ""  # the reference, a citation of the documentation (reST)

    def parameters(self, given: Mapping[str, Any]) -> dict[str, float]:
        """The method's parameters: the defaults updated with ``given``, checked."""
        unknown = sorted(set(given) - set(self.params))
        if unknown:
            known = sorted(self.params) or "none"
            msg = f"{self.name} has no parameter {unknown}; its parameters: {known}"
            raise ParameterError(msg)
        values = {**self.params, **given}
        missing = sorted(name for name, value in values.items() if value is REQUIRED)
        if missing:
            msg = f"{self.name} needs the parameter(s) {missing}, e.g. {missing[0]}=0.5"
            raise ParameterError(msg)
        checked = {}
        for name, value in values.items():
            if isinstance(value, bool) or not isinstance(value, (int, float, np.number)):
                msg = f"{self.name}: {name}={value!r} must be a number"
                raise ParameterError(msg)
            if not np.isfinite(value):
                msg = f"{self.name}: {name}={value!r} must be finite"
                raise ParameterError(msg)
            checked[name] = float(value)
        _check_ranges(self.name, checked)
        return checked


def _check_ranges(method: str, params: dict[str, float]) -> None:
    ranges = {"k": (0.0, np.inf), "sigma": (0.0, 1.0), "phi": (0.0, 1.0)}
    for name, value in params.items():
        low, high = ranges.get(name, (-np.inf, np.inf))
        if not low <= value <= high:
            msg = f"{method}: {name}={value!r} must be in [{low}, {high}]"
            raise ParameterError(msg)


# ------------------------------------------------------------------------------ kernels


def _comb_sum(runs: Runs, weights: np.ndarray) -> np.ndarray:
    return runs.per_pair(runs.score)


def _comb_mnz(runs: Runs, weights: np.ndarray) -> np.ndarray:
    return runs.per_pair(runs.score) * runs.per_pair()


def _comb_anz(runs: Runs, weights: np.ndarray) -> np.ndarray:
    return runs.per_pair(runs.score) / runs.per_pair()


def _comb_gmnz(runs: Runs, weights: np.ndarray, *, gamma: float) -> np.ndarray:
    return runs.per_pair(runs.score) * runs.per_pair() ** gamma


def _extreme(runs: Runs, ufunc: np.ufunc, start: float) -> np.ndarray:
    out = np.full(runs.n_pairs, start)
    ufunc.at(out, runs.pair, runs.score)
    return out


def _comb_max(runs: Runs, weights: np.ndarray) -> np.ndarray:
    return _extreme(runs, np.maximum, -np.inf)


def _comb_min(runs: Runs, weights: np.ndarray) -> np.ndarray:
    return _extreme(runs, np.minimum, np.inf)


def _comb_med(runs: Runs, weights: np.ndarray) -> np.ndarray:
    order = np.lexsort((runs.score, runs.pair))
    ordered = runs.score[order]
    count = runs.per_pair().astype(np.int64)
    start = np.cumsum(count) - count
    return (ordered[start + (count - 1) // 2] + ordered[start + count // 2]) / 2


def _rrf(runs: Runs, weights: np.ndarray, *, k: float) -> np.ndarray:
    return runs.per_pair(1.0 / (k + runs.position))


def _rbc(runs: Runs, weights: np.ndarray, *, phi: float) -> np.ndarray:
    return runs.per_pair((1.0 - phi) * phi ** (runs.position - 1.0))


def _inverse_square_ranks(runs: Runs) -> np.ndarray:
    return runs.per_pair(1.0 / runs.position.astype(np.float64) ** 2)


def _isr(runs: Runs, weights: np.ndarray) -> np.ndarray:
    return _inverse_square_ranks(runs) * runs.per_pair()


def _log_isr(runs: Runs, weights: np.ndarray) -> np.ndarray:
    return _inverse_square_ranks(runs) * np.log(runs.per_pair())


def _logn_isr(runs: Runs, weights: np.ndarray, *, sigma: float) -> np.ndarray:
    return _inverse_square_ranks(runs) * np.log(runs.per_pair() + sigma)


def _borda_points(runs: Runs, weights: np.ndarray) -> np.ndarray:
    """Weighted Borda count: a run gives its i-th document (0-based) ``c - i`` points and
    each candidate it did not retrieve ``(c - n + 1) / 2``, the mean of the points left.
    """
    candidates = runs.candidates()
    count = runs.per_group().reshape(runs.n_runs, runs.n_queries)
    unranked = (candidates[None, :] - count + 1) / 2  # per (run, query)
    w = weights[runs.run]
    points = candidates[runs.row_query] - (runs.position - 1) - unranked.ravel()[runs.group]
    return runs.per_pair(w * points) + (weights @ unranked)[runs.pair_query]


def _condorcet(runs: Runs, weights: np.ndarray) -> np.ndarray:
    """Condorcet fusion: documents ordered by their pairwise majorities (Copeland's rule:
    wins minus losses), scored ``c - i`` for the i-th (0-based) of ``c`` candidates.
    """
    copeland = _copeland(runs, weights)
    place = ranking_positions(runs.pair_query, copeland, runs.n_queries, runs.docs, runs.pair_doc)
    return runs.candidates()[runs.pair_query] - place + 1.0


#: Candidate pairs compared at a time, at most (a tile of one or more queries' pairs, or
#: part of one query's): bounds the temporaries, a few bytes per pair, and keeps them in
#: the CPU cache.
_PAIRS_AT_A_TIME = 1 << 18
#: Queries compared together have at most this many times the candidates of the fewest
#: among them: the padding of their tile to the most stays below about half of it.
_SPREAD = 1.25
#: Largest scale (a power of two) tried to make the weights whole numbers of votes.
_MAX_SHIFT = 24


def _copeland(runs: Runs, weights: np.ndarray) -> np.ndarray:
    """Per candidate, the number of candidates it beats minus those that beat it: x beats
    y when the runs ranking x above y weigh more than those ranking y above x (a run ranks
    a document it retrieved above one it did not; a run that retrieved neither abstains).

    The candidates of a query are compared all against all, a tile of queries with about
    as many candidates at a time (a query with very many, a tile of its pairs at a time),
    one run at a time. The weight of the runs ranking x above y is counted in whole votes
    when the weights are whole numbers times a power of two (the sums of such weights
    are exact in floats, so the comparisons are the same), else summed in floats run
    after run, in the order the runs are given.
    """
    used = np.flatnonzero(weights > 0)  # a run of weight 0 abstains
    place = _places(runs, used)
    count = bincount(runs.pair_query, runs.n_queries).astype(np.int64)
    first = np.cumsum(count) - count
    votes = _whole_votes(weights[used])
    limit = _PAIRS_AT_A_TIME if votes is not None else max(_PAIRS_AT_A_TIME // 4, 1)
    score = np.zeros(runs.n_pairs)
    for rows, row_ok, cols, col_ok in _tiles(count, first, runs.n_pairs, limit):
        square = rows is cols
        beats = _beats(place[:, rows], place[:, cols], weights[used], votes, square)
        if not col_ok.all():  # padded columns: no candidate
            beats *= col_ok[:, None, :]
        score[rows[row_ok]] += beats.sum(axis=2, dtype=np.int64)[row_ok]
        if not square:  # the columns' side of the pairs
            score[cols[col_ok]] -= beats.sum(axis=1, dtype=np.int64)[col_ok]
    return score


def _places(runs: Runs, used: np.ndarray) -> np.ndarray:
    """Each used run's position of each pair (its row ``i`` for ``used[i]``), the
    narrowest integers that hold one more than the deepest position: that value for the
    pairs a run did not retrieve and for one extra pair, the padding of the tiles.
    """
    absent = int(runs.position.max(initial=0)) + 1
    code = np.full(runs.n_runs, -1, dtype=np.int64)
    code[used] = np.arange(len(used))
    place = np.full((len(used), runs.n_pairs + 1), absent, dtype=_narrowest(absent))
    if len(used) == runs.n_runs:
        place[runs.run, runs.pair] = runs.position
    else:
        slot = code[runs.run]
        kept = slot >= 0
        place[slot[kept], runs.pair[kept]] = runs.position[kept]
    return place


def _narrowest(largest: int) -> np.dtype:
    """The narrowest signed integers holding ``largest``."""
    for dtype in (np.int8, np.int16, np.int32):
        if largest <= np.iinfo(dtype).max:
            return np.dtype(dtype)
    return np.dtype(np.int64)


def _whole_votes(weights: np.ndarray) -> np.ndarray | None:
    """The weights times the smallest power of two that makes them all whole numbers
    (their sums, with a total below 2**31, are then exact in floats as in integers), or
    ``None`` when there is none small enough.
    """
    if weights.max(initial=0.0) >= 2**31:
        return None
    for shift in range(_MAX_SHIFT + 1):
        scaled = weights * 2.0**shift
        if (scaled == np.floor(scaled)).all():
            return scaled.astype(np.int64) if scaled.sum() < 2**31 else None
    return None


def _beats(
    rows: np.ndarray,
    cols: np.ndarray,
    weights: np.ndarray,
    votes: np.ndarray | None,
    square: bool,
) -> np.ndarray:
    """Whether each row candidate of a tile beats each column candidate (1), loses (-1)
    or ties (0), ``(queries, rows, columns)``; ``rows`` and ``cols`` hold each run's places
    of them, ``square`` when they are the same candidates.
    """

    def weigh(ahead: np.ndarray, behind: np.ndarray) -> np.ndarray:
        if votes is None:
            return _float_above(ahead, behind, weights)
        return _votes_above(ahead, behind, votes)

    above = weigh(rows, cols)
    # below: the weight ranking the column above the row, as the tile seen the other way
    below = (above if square else weigh(cols, rows)).transpose(0, 2, 1)
    if votes is None:
        return (above > below).astype(np.int8) - (below > above)
    margin = np.subtract(above, below, dtype=above.dtype)  # within +-(total votes)
    return np.sign(margin, out=margin)


def _votes_above(rows: np.ndarray, cols: np.ndarray, votes: np.ndarray) -> np.ndarray:
    """The votes of the runs ranking each row candidate above each column candidate."""
    shape = (rows.shape[1], rows.shape[2], cols.shape[2])
    total = np.zeros(shape, dtype=_narrowest(int(votes.sum())))
    ahead = np.empty(shape, dtype=bool)
    step = np.empty_like(total)
    for row, col, vote in zip(rows, cols, votes, strict=True):
        np.less(row[:, :, None], col[:, None, :], out=ahead)
        if vote == 1:
            total += ahead
        else:
            np.multiply(ahead, total.dtype.type(vote), out=step)
            total += step
    return total


def _float_above(rows: np.ndarray, cols: np.ndarray, weights: np.ndarray) -> np.ndarray:
    """The weight of the runs ranking each row candidate above each column candidate,
    summed run after run.
    """
    shape = (rows.shape[1], rows.shape[2], cols.shape[2])
    total, step = np.zeros(shape), np.empty(shape)
    ahead = np.empty(shape, dtype=bool)
    with np.errstate(over="ignore"):  # huge weights: sums of inf tie, as in Python
        for row, col, weight in zip(rows, cols, weights, strict=True):
            np.less(row[:, :, None], col[:, None, :], out=ahead)
            np.multiply(ahead, weight, out=step)
            total += step
    return total


def _tiles(count: np.ndarray, first: np.ndarray, pad: int, limit: int) -> Iterator[Tile]:
    """The tiles of candidate pairs to compare: ``(rows, row_ok, cols, col_ok)``, each
    ``(queries, n)``, the pair codes of a tile's row and column candidates per query
    (``pad`` where a query has fewer) and whether each is a candidate; ``cols is rows``
    when the tile compares candidates with each other, else the columns are other
    candidates of the same query. A tile holds at most ``limit`` pairs.
    """
    order = np.argsort(count, kind="stable")
    order = order[count[order] > 1]  # one candidate: beats none
    sizes = count[order]
    at = 0
    while at < len(order):
        similar = int(np.searchsorted(sizes, sizes[at] * _SPREAD, side="right"))
        stop = min(similar, at + max(limit // int(sizes[similar - 1]) ** 2, 1))
        width = int(sizes[stop - 1])
        if width**2 <= limit:
            yield _tile_of_queries(order[at:stop], count, first, width, pad)
        else:  # one query with more pairs than a tile holds
            yield from _tiles_of_query(int(first[order[at]]), width, limit)
        at = stop


def _tile_of_queries(
    queries: np.ndarray, count: np.ndarray, first: np.ndarray, width: int, pad: int
) -> Tile:
    """All the pairs of ``queries`` at once, each padded to ``width`` candidates."""
    offset = np.arange(width)
    ok = offset < count[queries][:, None]
    codes = np.where(ok, first[queries][:, None] + offset, pad)
    return codes, ok, codes, ok


def _tiles_of_query(start: int, width: int, limit: int) -> Iterator[Tile]:
    """The pairs of one query of ``width`` candidates from ``start``, in square tiles: the
    candidates in spans, each span with itself and with each later span.
    """
    side = max(math.isqrt(limit), 1)
    spans = [
        np.arange(start + at, start + min(at + side, width))[None, :]
        for at in range(0, width, side)
    ]
    for i, rows in enumerate(spans):
        for cols in spans[i:]:
            yield rows, np.ones(rows.shape, bool), cols, np.ones(cols.shape, bool)


def _mixed(runs: Runs, weights: np.ndarray) -> np.ndarray:
    return runs.per_pair(weights[runs.run] * runs.score) * np.sqrt(runs.per_pair())


def _wsum(runs: Runs, weights: np.ndarray) -> np.ndarray:
    return runs.per_pair(weights[runs.run] * runs.score)


def _wmnz(runs: Runs, weights: np.ndarray) -> np.ndarray:
    return runs.per_pair(runs.score) * runs.per_pair(weights[runs.run])


_ALL = (
    Method(
        "CombSUM",
        _comb_sum,
        ("sum", "comb_sum"),
        formula="``Σ s_r``",
        cite="[Fox1993]_",
        doc="sum of the scores",
    ),
    Method(
        "CombMNZ",
        _comb_mnz,
        ("mnz", "comb_mnz"),
        formula="``m Σ s_r``",
        cite="[Fox1993]_",
        doc="sum times number of runs",
    ),
    Method(
        "CombANZ",
        _comb_anz,
        ("anz", "comb_anz"),
        formula="``Σ s_r / m``",
        cite="[Fox1993]_",
        doc="sum over number of runs",
    ),
    Method(
        "CombGMNZ",
        _comb_gmnz,
        ("gmnz", "comb_gmnz"),
        {"gamma": REQUIRED},
        formula="``m^gamma Σ s_r`` (``gamma`` required)",
        cite="[Lee1997]_",
        doc="sum times number of runs to the power gamma",
    ),
    Method(
        "CombMAX",
        _comb_max,
        ("max", "comb_max"),
        formula="``max s_r``",
        cite="[Fox1993]_",
        doc="highest score",
    ),
    Method(
        "CombMIN",
        _comb_min,
        ("min", "comb_min"),
        formula="``min s_r``",
        cite="[Fox1993]_",
        doc="lowest score",
    ),
    Method(
        "CombMED",
        _comb_med,
        ("med", "comb_med"),
        formula="``median s_r``",
        cite="[Fox1993]_",
        doc="median score",
    ),
    Method(
        "RRF",
        _rrf,
        ("reciprocal_rank_fusion",),
        {"k": 60},
        formula="``Σ 1 / (k + p_r)``, ``k=60``",
        cite="[Cormack2009]_",
        doc="sum of 1 / (k + rank)",
    ),
    Method(
        "RBC",
        _rbc,
        ("rank_biased_centroid",),
        {"phi": REQUIRED},
        formula="``Σ (1 - phi) phi^(p_r - 1)`` (``phi`` required)",
        cite="[Bailey2017]_",
        doc="sum of (1-phi) phi^i",
    ),
    Method(
        "ISR",
        _isr,
        (),
        formula="``m Σ 1 / p_r²``",
        cite="[Mourao2015]_",
        doc="sum of 1 / rank^2 times number of runs",
    ),
    Method(
        "log_ISR",
        _log_isr,
        (),
        formula="``log(m) Σ 1 / p_r²``",
        cite="[Mourao2015]_",
        doc="sum of 1 / rank^2 times log(number of runs)",
    ),
    Method(
        "logN_ISR",
        _logn_isr,
        (),
        {"sigma": 0.01},
        formula="``log(m + sigma) Σ 1 / p_r²``, ``sigma=0.01``",
        cite="[Mourao2015]_",
        doc="sum of 1 / rank^2 times log(number of runs + sigma)",
    ),
    Method(
        "BordaFuse",
        _borda_points,
        (),
        formula="Borda count: ``c - p_r + 1`` points from each run that retrieved it, "
        "``(c - n_r + 1) / 2`` from each that did not",
        cite="[Aslam2001]_",
        doc="Borda count",
    ),
    Method(
        "wBordaFuse",
        _borda_points,
        ("w_bordafuse", "weighted_bordafuse"),
        weighted=True,
        formula="the same, each run's points times ``w_r``",
        cite="[Aslam2001]_",
        doc="weighted Borda count",
    ),
    Method(
        "Condorcet",
        _condorcet,
        (),
        formula="pairwise majorities (below); score ``c - i``",
        cite="[Montague2002]_",
        doc="pairwise majority order",
    ),
    Method(
        "wCondorcet",
        _condorcet,
        ("w_condorcet", "weighted_condorcet"),
        weighted=True,
        formula="the same with weighted votes",
        cite="[Montague2002]_",
        doc="weighted pairwise majority order",
    ),
    Method(
        "Mixed",
        _mixed,
        (),
        weighted=True,
        formula="``sqrt(m) Σ w_r s_r``",
        cite="[Wu2002]_",
        doc="weighted sum times square root of number of runs",
    ),
    Method(
        "WSum",
        _wsum,
        ("weighted_sum",),
        weighted=True,
        formula="``Σ w_r s_r`` (the default method)",
        cite="[Wu2002]_",
        doc="weighted sum of the scores",
    ),
    Method(
        "WMNZ",
        _wmnz,
        (),
        weighted=True,
        formula="``(Σ s_r) (Σ w_r)``",
        cite="[Wu2002]_",
        doc="sum times the weights of the runs",
    ),
)

#: The fusion methods by canonical name (any case, and their aliases, find them).
METHODS: Registry[Method] = Registry("fusion method", "method")
for _method in _ALL:
    METHODS.add(_method.name, _method, aliases=_method.aliases, doc=_method.doc)


def find_method(method: str | Method) -> Method:
    """The method called ``method`` (any case; ranx's names too)."""
    return method if isinstance(method, Method) else METHODS[method]
