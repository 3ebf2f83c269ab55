"""Unsupervised fusion methods: each maps the (normalised) rows of the runs to one fused
score per (query, doc) pair.

A method is declared once -- its name, the names it is also known by (ranx's among
them), its parameters with their defaults, whether it takes one weight per run -- and
computed from per-pair sums over the rows (``np.bincount`` on the pair codes).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from pdireval._core.errors import ParameterError
from pdireval._core.registry import Registry
from pdireval.fusion._runs import Runs, ranking_positions

__all__ = ["METHODS", "Method", "find_method"]

#: Marks a parameter without a default: the caller must give it.
REQUIRED: Any = object()

Kernel = Callable[..., np.ndarray]


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


#: Candidate pairs compared at a time (times the number of runs): bounds the temporaries.
_PAIRS_AT_A_TIME = 1 << 21


def _copeland(runs: Runs, weights: np.ndarray) -> np.ndarray:
    """Per candidate, the number of candidates it beats minus those that beat it: x beats
    y when the runs ranking x above y weigh more than those ranking y above x (a run ranks
    a document it retrieved above one it did not; a run that retrieved neither abstains).
    """
    place = np.full((runs.n_pairs, runs.n_runs), np.inf)
    place[runs.pair, runs.run] = runs.position
    candidates = runs.candidates().astype(np.int64)
    query_first = np.cumsum(candidates) - candidates  # first pair of each query
    comparisons = np.cumsum(candidates * candidates)  # up to and including each query
    per_pair = candidates[runs.pair_query]
    first = query_first[runs.pair_query]
    score = np.zeros(runs.n_pairs)
    limit = max(_PAIRS_AT_A_TIME // runs.n_runs, 1)
    query = 0
    while query < runs.n_queries:  # blocks of whole queries, never one query at a time
        done = comparisons[query - 1] if query else 0
        stop = max(int(np.searchsorted(comparisons, done + limit, side="right")), query + 1)
        begin = int(query_first[query])
        end = int(query_first[stop]) if stop < runs.n_queries else runs.n_pairs
        x = np.repeat(np.arange(begin, end), per_pair[begin:end])
        offset = np.cumsum(per_pair[begin:end]) - per_pair[begin:end]
        y = first[x] + np.arange(len(x)) - np.repeat(offset, per_pair[begin:end])
        px, py = place[x], place[y]
        margin = (px < py).astype(np.float64) @ weights - (py < px).astype(np.float64) @ weights
        score[begin:end] = np.bincount(x - begin, weights=np.sign(margin), minlength=end - begin)
        query = stop
    return score


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
