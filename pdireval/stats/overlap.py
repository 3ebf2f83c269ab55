r"""Rank-biased overlap: how similar two rankings are, the top weighing most.

Rank correlations (:mod:`pdireval.stats.correlation`) compare two orderings of the *same*
items. Two runs rarely retrieve the same documents, and their rankings are
truncated at different depths. Rank-biased overlap (RBO; Webber, Moffat & Zobel
2010) handles both: at every depth d it takes the agreement

.. math:: A_d = \frac{|S_{:d} \cap L_{:d}|}{d} = \frac{X_d}{d},

the share of the two top-d lists they have in common, and averages the agreements
with geometrically decreasing weights,

.. math:: \mathrm{RBO}(S, L, p) = (1 - p) \sum_{d=1}^{\infty} p^{d-1} A_d .

A searcher who looks at the top ``1 / (1 - p)`` documents on average: ``p=0.9``
weighs the top 10 by about 86%. Seen to finite depths, the rankings fix RBO only
up to an interval: its lower bound ``min`` (everything unseen disagrees), the
``residual`` (how much the unseen part could still add), ``max = min + residual``,
and the point estimate ``ext`` (the agreement seen at the deepest depth continues
for ever). Lists of different lengths are handled as in the paper's section 4.2:
the shorter one is taken as a prefix of a longer ranking.

Examples
--------
>>> from pdireval.stats.overlap import rbo
>>> rbo(["a", "b", "c", "d"], ["b", "a", "c", "e"], p=0.9)  # doctest: +ELLIPSIS
RankBiasedOverlap(min=0.422..., residual=0.459..., max=0.881..., ext=0.717...)
"""

from __future__ import annotations

from collections.abc import Hashable, Iterable, Mapping
from typing import NamedTuple

import numpy as np
import pandas as pd

from pdireval._core.errors import ParameterError, SchemaError
from pdireval._core.roles import ColumnMap, as_column_map
from pdireval._prepare.arrays import take
from pdireval._prepare.prepare import positions
from pdireval.engine.evaluate import documents

__all__ = ["RankBiasedOverlap", "rank_biased_overlap", "rbo"]

FORMS: tuple[str, ...] = ("min", "residual", "max", "ext")


class RankBiasedOverlap(NamedTuple):
    """RBO of two rankings seen to finite depths: its bounds and its point estimate.

    Attributes
    ----------
    min : float
        Lower bound: the unseen parts of the rankings share nothing.
    residual : float
        How much more the unseen parts could add: ``max - min``.
    max : float
        Upper bound: the unseen parts agree as much as they can.
    ext : float
        Extrapolated point estimate, between ``min`` and ``max``.
    """

    min: float
    residual: float
    max: float
    ext: float


def _check_p(p: object) -> float:
    if isinstance(p, bool) or not isinstance(p, int | float | np.number) or not 0 < p < 1:
        msg = (
            f"p={p!r} must be a number strictly between 0 and 1 (the persistence: "
            "0.9 weighs the top 10 documents by about 86%)"
        )
        raise ParameterError(msg)
    return float(p)


def _check_depth(depth: object) -> int | None:
    if depth is None:
        return None
    if isinstance(depth, bool) or not isinstance(depth, int | np.integer) or depth < 1:
        msg = f"depth={depth!r} must be a whole number >= 1, or None for the whole rankings"
        raise ParameterError(msg)
    return int(depth)


def _ragged(lengths: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """For groups of the given lengths: each element's group, its 1-based index, and
    each group's offset into the flat array.
    """
    offset = np.r_[0, np.cumsum(lengths)[:-1]].astype(np.int64)
    group = np.repeat(np.arange(len(lengths)), lengths)
    index = np.arange(int(lengths.sum()), dtype=np.int64) - offset[group] + 1
    return group, index, offset


def _bounds(
    short: np.ndarray,
    long: np.ndarray,
    common_group: np.ndarray,
    common_depth: np.ndarray,
    p: float,
) -> np.ndarray:
    """RBO's min, residual, max and ext per group, as columns of a (n_groups, 4) array.

    ``short``/``long`` are each group's two list lengths (s <= l); every item the two
    lists share contributes its group and the depth max(position in S, position in L)
    at which it enters both prefixes. X_d is the number of shared items of depth <= d.
    """
    n = len(short)
    s, ell = short.astype(np.float64), long.astype(np.float64)
    group, d, offset = _ragged(long)
    entered = np.bincount(offset[common_group] + common_depth - 1, minlength=len(group))
    running = np.cumsum(entered)
    x = (running - np.r_[0, running][offset][group]).astype(np.float64)  # X_d, d = 1..l
    last = offset + long - 1
    x_l = np.where(long > 0, x[np.maximum(last, 0)] if len(x) else 0.0, 0.0)
    x_s = np.where(short > 0, x[np.maximum(offset + short - 1, 0)] if len(x) else 0.0, 0.0)
    scale = (1.0 - p) / p
    with np.errstate(under="ignore"):
        weight = p ** d.astype(np.float64) / d  # p^d / d
        p_l = p**ell

        def per_group(values: np.ndarray, where: np.ndarray | None = None) -> np.ndarray:
            if where is None:
                return np.bincount(group, weights=values * weight, minlength=n)
            return np.bincount(group[where], weights=(values * weight)[where], minlength=n)

        # lower bound: no further agreement, X_d = X_l beyond the seen depths
        rbo_min = scale * (per_group(x - x_l[group]) - x_l * np.log1p(-p))
        # point estimate (Webber et al. 2010, eq. 32)
        beyond_short = d > short[group]
        safe_s = np.maximum(s, 1.0)
        tail = x_s[group] * (d - s[group]) / safe_s[group]
        extrapolated = scale * (per_group(x) + per_group(tail, beyond_short))
        extrapolated += ((x_l - x_s) / np.maximum(ell, 1.0) + x_s / safe_s) * p_l
        extrapolated = np.where(short > 0, extrapolated, 0.0)
        # upper bound: the unseen items match the other list's unmatched ones first
        seen_max = np.where(beyond_short, x + d - s[group], x)
        full = long + short - x_l.astype(np.int64)  # from depth f on, the lists can agree fully
        middle_length = np.maximum(full - long - 1, 0)
        middle_group, k, _ = _ragged(middle_length)
        middle_d = ell[middle_group] + k
        middle_max = 2.0 - (ell + s - x_l)[middle_group] / middle_d
        middle = np.bincount(middle_group, weights=middle_max * p**middle_d, minlength=n)
        tail_start = np.maximum(full, long + 1).astype(np.float64)
        rbo_max = scale * (per_group(seen_max) + middle) + p ** (tail_start - 1.0)
    rbo_max = np.where(short > 0, np.minimum(rbo_max, 1.0), 1.0)  # nothing seen: anything goes
    rbo_min = np.clip(rbo_min, 0.0, rbo_max)
    extrapolated = np.clip(extrapolated, rbo_min, rbo_max)
    return np.column_stack([rbo_min, rbo_max - rbo_min, rbo_max, extrapolated])


def _overlap(
    query_a: np.ndarray,
    position_a: np.ndarray,
    query_b: np.ndarray,
    position_b: np.ndarray,
    common_query: np.ndarray,
    common_a: np.ndarray,
    common_b: np.ndarray,
    n_queries: int,
    p: float,
) -> np.ndarray:
    """RBO forms per query code from the two lists' positions and their shared items."""
    length_a = np.bincount(query_a, minlength=n_queries)
    length_b = np.bincount(query_b, minlength=n_queries)
    depth = np.maximum(common_a, common_b)
    return _bounds(
        np.minimum(length_a, length_b), np.maximum(length_a, length_b), common_query, depth, p
    )


def rbo(
    a: Iterable[Hashable], b: Iterable[Hashable], *, p: float = 0.9, depth: int | None = None
) -> RankBiasedOverlap:
    r"""Rank-biased overlap of two rankings given as item ids, best first.

    Parameters
    ----------
    a, b : iterable of hashable
        The two rankings, e.g. document ids in rank order; they may differ in length
        and in their items, but neither may repeat an item.
    p : float
        Persistence, 0 < p < 1 (default 0.9): the weight of depth d is proportional
        to p^(d-1).
    depth : int, optional
        Compare only the top ``depth`` items of each ranking.

    Returns
    -------
    RankBiasedOverlap
        ``min``, ``residual``, ``max`` and the extrapolated ``ext``; all 0 but
        ``residual`` = ``max`` = 1 when one ranking is empty (nothing seen, nothing
        known), and ``ext`` = 0 then.

    Raises
    ------
    SchemaError
        A ranking repeats an item.
    MetricError
        ``p`` outside (0, 1), or a bad ``depth``.

    Notes
    -----
    With s <= l the lengths of the two lists and X_d their overlap at depth d, the
    lower bound and the point estimate are Webber, Moffat & Zobel's (2010) eqs. 11
    and 32,

    .. math::
        \mathrm{RBO_{min}} = \frac{1-p}{p} \Big( \sum_{d=1}^{l} (X_d - X_l)
        \frac{p^d}{d} - X_l \ln(1-p) \Big),

        \mathrm{RBO_{ext}} = \frac{1-p}{p} \Big( \sum_{d=1}^{l} \frac{X_d}{d} p^d
        + \sum_{d=s+1}^{l} \frac{X_s (d-s)}{s\,d} p^d \Big)
        + \Big( \frac{X_l - X_s}{l} + \frac{X_s}{s} \Big) p^l ;

    the upper bound lets the unseen items of each list match the other list's
    unmatched items as early as possible, so the lists can agree fully from depth
    f = s + l - X_l on. Identical lists give ext = max = 1; disjoint ones min = ext = 0.

    References
    ----------
    W. Webber, A. Moffat, J. Zobel (2010), A similarity measure for indefinite
    rankings, ACM TOIS 28(4).

    Examples
    --------
    >>> rbo(["a", "b", "c"], ["a", "b", "c"]).ext
    1.0
    >>> rbo(["a", "b"], ["c", "d"]).min
    0.0
    >>> round(rbo(list("abcdefg"), list("abcdxyz"), p=0.8).ext, 4)
    0.8494
    """
    chosen_p, chosen_depth = _check_p(p), _check_depth(depth)
    lists = []
    for name, items in (("a", a), ("b", b)):
        ranking = list(items)[:chosen_depth]
        index = pd.Index(ranking)
        if index.has_duplicates:
            repeated = index[index.duplicated()][0]
            msg = (
                f"ranking {name} holds item {repeated!r} more than once; "
                "a ranking lists each item once"
            )
            raise SchemaError(msg)
        lists.append(index)
    in_a = lists[0].get_indexer(lists[1])  # each item of b: its index in a, or -1
    common_b = np.flatnonzero(in_a >= 0) + 1
    common_a = in_a[in_a >= 0] + 1
    values = _overlap(
        np.zeros(len(lists[0]), np.int64),
        np.arange(1, len(lists[0]) + 1),
        np.zeros(len(lists[1]), np.int64),
        np.arange(1, len(lists[1]) + 1),
        np.zeros(len(common_a), np.int64),
        common_a.astype(np.int64),
        common_b.astype(np.int64),
        1,
        chosen_p,
    )[0]
    return RankBiasedOverlap(*(float(value) for value in values))


def rank_biased_overlap(
    frame: pd.DataFrame,
    run_a: Hashable,
    run_b: Hashable,
    *,
    p: float = 0.9,
    depth: int | None = None,
    columns: ColumnMap | Mapping[str, str] | None = None,
) -> pd.DataFrame:
    """Per-query rank-biased overlap of two runs' rankings.

    Parameters
    ----------
    frame : DataFrame
        Long frame with run, query, doc and rank or score columns (judgment columns
        are ignored; rows nobody retrieved are left out).
    run_a, run_b : run ids
        The two runs of the frame's run column.
    p : float
        Persistence, 0 < p < 1 (default 0.9).
    depth : int, optional
        Compare only each run's top ``depth`` documents per query.
    columns : ColumnMap or dict, optional
        Which column plays which role.

    Returns
    -------
    DataFrame
        One row per query either run retrieved (index named like the query column,
        sorted), columns ``min``, ``residual``, ``max`` and ``ext`` as in :func:`rbo`.
        A query only one run retrieved has min = ext = 0 and max = 1.

    Raises
    ------
    SchemaError
        No run column, an unknown run, a document ranked twice, missing ids.
    MetricError
        ``p`` outside (0, 1), or a bad ``depth``.

    Notes
    -----
    Each run's ranking is its evaluation order: by rank, else by score with ties
    broken by document id (descending, as trec_eval does), so RBO compares exactly
    the rankings the metrics see. Vectorised over queries.

    Examples
    --------
    >>> import pandas as pd, pdireval
    >>> df = pd.DataFrame({"run": ["a"] * 3 + ["b"] * 3, "query": "q1",
    ...                    "doc": ["x", "y", "z", "y", "x", "w"], "rank": [1, 2, 3] * 2})
    >>> pdireval.rank_biased_overlap(df, "a", "b", p=0.9).round(4)
              min  residual    max   ext
    query
    q1     0.3117    0.5613  0.873  0.63
    """
    chosen_p, chosen_depth = _check_p(p), _check_depth(depth)
    resolved = as_column_map(columns).resolve(frame)
    if resolved.run is None:
        msg = (
            f"rank-biased overlap compares two runs, but the frame has no run column "
            f"(columns: {list(frame.columns)}); map it with df.ireval(run='<column>')"
        )
        raise SchemaError(msg)
    frame, resolved = documents(frame, resolved)  # judgments per subtopic: one row per doc
    position, _ = positions(frame, resolved)
    query, doc = resolved.name("query"), resolved.name("doc")
    run_values = frame[resolved.run]
    tables = []
    for run in (run_a, run_b):
        mask = (run_values == run).to_numpy(dtype=bool, na_value=False)
        if not mask.any():
            runs = sorted(map(str, run_values.dropna().unique()))
            msg = f"run {run!r} not found in column {resolved.run!r}; its runs are {runs}"
            raise SchemaError(msg)
        keep = mask & ~np.isnan(position)
        if chosen_depth is not None:
            keep &= position <= chosen_depth
        rows = np.flatnonzero(keep)
        tables.append(
            pd.DataFrame(
                {
                    "q": take(frame[query], rows).array,
                    "d": take(frame[doc], rows).array,
                    "position": position[rows].astype(np.int64),
                }
            )
        )
    both = pd.concat([tables[0]["q"], tables[1]["q"]], ignore_index=True)
    codes, ids = pd.factorize(both.astype(frame[query].dtype), sort=True)
    code_a, code_b = codes[: len(tables[0])], codes[len(tables[0]) :]
    shared = tables[0].assign(code=code_a).merge(tables[1], on=["q", "d"], suffixes=("_a", "_b"))
    values = _overlap(
        code_a.astype(np.int64),
        tables[0]["position"].to_numpy(),
        code_b.astype(np.int64),
        tables[1]["position"].to_numpy(),
        shared["code"].to_numpy(np.int64),
        shared["position_a"].to_numpy(np.int64),
        shared["position_b"].to_numpy(np.int64),
        len(ids),
        chosen_p,
    )
    return pd.DataFrame(values, index=pd.Index(ids, name=query), columns=list(FORMS))
