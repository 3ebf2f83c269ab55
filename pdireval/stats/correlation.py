"""Rank correlation: Spearman's rho, Kendall's tau-b, Yilmaz et al.'s tau_ap and its
tie-aware form tau_ap_b (Urbano & Marrero).

Three levels:

* two sequences -- :func:`spearman`, :func:`kendall`, :func:`tau_ap`, :func:`tau_ap_b`;
* per query, between the rankings of two runs of a long frame or between a run and
  the ideal ordering by label -- :func:`rank_correlation`
  (``df.ireval.rank_correlation``); for rankings of different documents, use
  rank-biased overlap (:mod:`pdireval.stats.overlap`, ``method="rbo"``);
* between system orderings -- :func:`system_correlation`: how two metrics, or two
  qrels versions, order the same runs (Voorhees 2000; Yilmaz et al. 2008).

All three coefficients are computed by one grouped numpy kernel each, vectorised
over queries (one sort; Kendall's discordant pairs by a bottom-up merge count,
O(n log^2 n)); no Python loop per query. Sequences are values of one kind: both rank
positions (1 = top) or both scores. Mixing a rank with a score flips the sign.

Examples
--------
R1 the ideal ranking of ten documents, R2 a new ranking function's:

>>> import pdireval
>>> r1 = [1, 2, 3, 4, 5, 6, 7, 8, 9, 10]
>>> r2 = [2, 3, 1, 5, 4, 7, 8, 10, 6, 9]
>>> round(pdireval.spearman(r1, r2), 4)   # 1 - 6 * 24 / (10 * 99)
0.8545
>>> round(pdireval.kendall(r1, r2), 4)
0.6889
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Literal

import numpy as np
import pandas as pd

from pdireval._core.errors import MetricError, ParameterError, SchemaError
from pdireval._core.roles import ColumnMap, as_column_map
from pdireval._prepare import algorithms
from pdireval._prepare.checks import check_no_nulls, check_unique_docs, labels_of, ranking_key
from pdireval.engine.evaluate import documents
from pdireval.stats.overlap import rank_biased_overlap
from pdireval.typing import RankCorrelation

__all__ = [
    "kendall",
    "rank_correlation",
    "spearman",
    "system_correlation",
    "tau_ap",
    "tau_ap_b",
]

METHODS: tuple[str, ...] = ("spearman", "kendall", "tau_ap", "tau_ap_b")


# --------------------------------------------------------------------------- grouped kernels


def _sorted_by(group: np.ndarray, *keys: np.ndarray) -> np.ndarray:
    """Permutation sorting rows by group, then by ``keys`` (first key most significant)."""
    return np.lexsort((*reversed(keys), group))


def _tie_sums(group: np.ndarray, value: np.ndarray, n_groups: int, power: int) -> np.ndarray:
    """Per group, the sum over runs of tied values of ``t ** power - t`` (t the run length)."""
    order = _sorted_by(group, value)
    g, v = group[order], value[order]
    new = np.r_[True, (g[1:] != g[:-1]) | (v[1:] != v[:-1])] if len(g) else np.zeros(0, bool)
    starts = np.flatnonzero(new)
    t = np.diff(np.r_[starts, len(g)]).astype(np.float64)
    return np.bincount(g[starts], weights=t**power - t, minlength=n_groups)


def _average_ranks(group: np.ndarray, value: np.ndarray) -> np.ndarray:
    """1-based rank of each value inside its group, ties sharing their average rank."""
    n = len(value)
    order = _sorted_by(group, value)
    g, v = group[order], value[order]
    index = np.arange(n)
    if not n:
        return np.zeros(0)
    new_group = np.r_[True, g[1:] != g[:-1]]
    new_value = new_group | np.r_[True, v[1:] != v[:-1]]
    group_start = np.maximum.accumulate(np.where(new_group, index, 0))
    position = index - group_start + 1
    run = np.cumsum(new_value) - 1
    first = position[new_value][run]
    last = np.maximum.reduceat(position, np.flatnonzero(new_value))[run]
    ranks = np.empty(n)
    ranks[order] = (first + last) / 2.0
    return ranks


def _grouped_spearman(group: np.ndarray, x: np.ndarray, y: np.ndarray, n_groups: int):
    """Spearman's rho per group with the tie correction (= Pearson on average ranks)."""
    d = _average_ranks(group, x) - _average_ranks(group, y)
    k = np.bincount(group, minlength=n_groups).astype(np.float64)
    sum_d2 = np.bincount(group, weights=d * d, minlength=n_groups)
    base = (k**3 - k) / 12.0
    sx = base - _tie_sums(group, x, n_groups, 3) / 12.0
    sy = base - _tie_sums(group, y, n_groups, 3) / 12.0
    rho = np.full(n_groups, np.nan)
    ok = (sx > 0) & (sy > 0)
    rho[ok] = (sx[ok] + sy[ok] - sum_d2[ok]) / (2.0 * np.sqrt(sx[ok] * sy[ok]))
    return np.clip(rho, -1.0, 1.0)


def _dense(value: np.ndarray) -> np.ndarray:
    """Dense 0-based codes of ``value`` (equal values, equal codes; order kept)."""
    return np.unique(value, return_inverse=True)[1].reshape(-1).astype(np.int64)


def _greater_before(group: np.ndarray, y: np.ndarray) -> np.ndarray:
    """For rows in their final order, how many earlier rows of the same group have a larger y.

    A bottom-up merge count, all groups at once: at level l, each block of 2^(l+1)
    positions splits into a left and a right half, and every right-half row counts the
    left-half rows of its block with a larger y by a binary search over the sorted
    (block, y) keys of the left halves.
    """
    n = len(y)
    out = np.zeros(n, dtype=np.int64)
    if n < 2:
        return out
    code = _dense(y)
    span = int(code.max()) + 2
    index = np.arange(n)
    new_group = np.r_[True, group[1:] != group[:-1]]
    position = index - np.maximum.accumulate(np.where(new_group, index, 0))
    group_id = np.cumsum(new_group) - 1
    longest = int(position.max()) + 1
    level = 0
    while (1 << level) < longest:
        block = group_id.astype(np.int64) * ((longest >> (level + 1)) + 1) + (
            position >> (level + 1)
        )
        right = ((position >> level) & 1).astype(bool)
        left_keys = np.sort(block[~right] * span + code[~right])
        rb, rc = block[right], code[right]
        above = np.searchsorted(left_keys, rb * span + span - 1, side="left")
        at_most = np.searchsorted(left_keys, rb * span + rc, side="right")
        out[right] += above - at_most
        level += 1
    return out


def _grouped_kendall(group: np.ndarray, x: np.ndarray, y: np.ndarray, n_groups: int):
    """Kendall's tau-b per group: (C - D) / sqrt((n0 - n1) (n0 - n2))."""
    order = _sorted_by(group, x, y)
    g = group[order]
    discordant = np.bincount(
        g, weights=_greater_before(g, y[order]).astype(np.float64), minlength=n_groups
    )
    k = np.bincount(group, minlength=n_groups).astype(np.float64)
    n0 = k * (k - 1) / 2.0
    n1 = _tie_sums(group, x, n_groups, 2) / 2.0
    n2 = _tie_sums(group, y, n_groups, 2) / 2.0
    joint = _dense(x).astype(np.float64) * (len(y) + 1) + _dense(y)
    n3 = _tie_sums(group, joint, n_groups, 2) / 2.0
    concordant = n0 - n1 - n2 + n3 - discordant
    denominator = (n0 - n1) * (n0 - n2)
    tau = np.full(n_groups, np.nan)
    ok = denominator > 0
    tau[ok] = (concordant[ok] - discordant[ok]) / np.sqrt(denominator[ok])
    return np.clip(tau, -1.0, 1.0)


def _grouped_tau_ap(group: np.ndarray, x: np.ndarray, y: np.ndarray, n_groups: int):
    """tau_ap of ranking x against reference y, per group (no ties allowed)."""
    order = _sorted_by(group, x)
    g, ranked_y = group[order], y[order]
    index = np.arange(len(g))
    new_group = np.r_[True, g[1:] != g[:-1]] if len(g) else np.zeros(0, bool)
    above = index - np.maximum.accumulate(np.where(new_group, index, 0))  # i - 1
    correct = above - _greater_before(g, ranked_y)  # C(i): above i in x and in y
    later = above > 0
    terms = np.bincount(g[later], weights=correct[later] / above[later], minlength=n_groups).astype(
        np.float64
    )
    k = np.bincount(group, minlength=n_groups).astype(np.float64)
    tau = np.full(n_groups, np.nan)
    ok = k > 1
    tau[ok] = 2.0 * terms[ok] / (k[ok] - 1.0) - 1.0
    return tau


def _walked_tau_ap(group: np.ndarray, walked: np.ndarray, other: np.ndarray, n_groups: int):
    """Urbano & Marrero's asymmetric tau_AP,b*: going down ``walked`` (tie groups in it
    share their first position p), each item below the top group counts the items of
    earlier tie groups that ``other`` ranks strictly above it, divided by p - 1.
    """
    order = _sorted_by(group, walked, other)
    g, w, o = group[order], walked[order], other[order]
    n = len(g)
    index = np.arange(n)
    new_group = np.r_[True, g[1:] != g[:-1]] if n else np.zeros(0, bool)
    new_tie = new_group | np.r_[True, w[1:] != w[:-1]] if n else np.zeros(0, bool)
    new_pair = new_tie | np.r_[True, o[1:] != o[:-1]] if n else np.zeros(0, bool)
    group_start = np.maximum.accumulate(np.where(new_group, index, 0))
    tie_start = np.maximum.accumulate(np.where(new_tie, index, 0))
    pair_start = np.maximum.accumulate(np.where(new_pair, index, 0))
    above = tie_start - group_start  # p - 1: the items of earlier tie groups
    # earlier rows ranked strictly above by ``other``, less those of the item's own tie group
    better_before = _greater_before(g, -o) - (pair_start - tie_start)
    below_top = above > 0
    terms = np.bincount(
        g[below_top], weights=better_before[below_top] / above[below_top], minlength=n_groups
    )
    counted = np.bincount(g[below_top], minlength=n_groups).astype(np.float64)
    tau = np.full(n_groups, np.nan)
    ok = counted > 0
    tau[ok] = 2.0 * terms[ok] / counted[ok] - 1.0
    return tau


def _grouped_tau_ap_b(group: np.ndarray, x: np.ndarray, y: np.ndarray, n_groups: int):
    """Urbano & Marrero's tau_AP,b per group: the mean of tau_AP,b* both ways (ties allowed)."""
    return (_walked_tau_ap(group, x, y, n_groups) + _walked_tau_ap(group, y, x, n_groups)) / 2.0


_KERNELS = {
    "spearman": _grouped_spearman,
    "kendall": _grouped_kendall,
    "tau_ap": _grouped_tau_ap,
    "tau_ap_b": _grouped_tau_ap_b,
}


def _check_method(method: str) -> None:
    if method not in METHODS:
        msg = f"method={method!r} is not a rank correlation; use one of {list(METHODS)}"
        raise ParameterError(msg)


def _refuse_ties(group: np.ndarray, value: np.ndarray, n_groups: int, what: str) -> None:
    if len(value) and _tie_sums(group, value, n_groups, 2).any():
        msg = (
            f"tau_ap needs {what} without ties (Yilmaz et al. define it for total orders); "
            "break the ties first, or use tau_ap_b (Urbano & Marrero's tau_AP for rankings "
            "with ties) or kendall (tau-b)"
        )
        raise MetricError(msg)


def _correlate(
    method: str, group: np.ndarray, x: np.ndarray, y: np.ndarray, n_groups: int
) -> np.ndarray:
    _check_method(method)
    if method == "tau_ap":
        _refuse_ties(group, x, n_groups, "the ranking")
        _refuse_ties(group, y, n_groups, "the reference ranking")
    return _KERNELS[method](group, x, y, n_groups)


# --------------------------------------------------------------------------- two sequences


def _pair(x: Any, y: Any, descending: bool = False) -> tuple[np.ndarray, np.ndarray]:
    a = np.asarray(x, dtype=np.float64).reshape(-1)
    b = np.asarray(y, dtype=np.float64).reshape(-1)
    if len(a) != len(b):
        msg = f"x and y must have the same length, got {len(a)} and {len(b)}"
        raise SchemaError(msg)
    if np.isnan(a).any() or np.isnan(b).any():
        msg = "x and y must not hold missing values (NaN); drop the items missing from either"
        raise SchemaError(msg)
    return (-a, -b) if descending else (a, b)


def _one(method: str, x: Any, y: Any, descending: bool = False) -> float:
    a, b = _pair(x, y, descending)
    return float(_correlate(method, np.zeros(len(a), dtype=np.int64), a, b, 1)[0])


def spearman(x: Any, y: Any) -> float:
    r"""Spearman's rank correlation coefficient rho of two rankings of the same items.

    Parameters
    ----------
    x, y : array-like of numbers
        The positions (or scores) of the same K items in two rankings, item j at
        index j of both.

    Returns
    -------
    float
        rho in [-1, 1]; NaN when fewer than 2 items or one side is constant.

    Notes
    -----
    Without ties this is the classical formula,

    .. math:: \rho = 1 - \frac{6 \sum_j (s_{1,j} - s_{2,j})^2}{K (K^2 - 1)},

    computed on the ranks of the values (so scores work too). With ties, values share
    their average rank and the tie-corrected form is used,

    .. math:: \rho = \frac{S_x + S_y - \sum_j d_j^2}{2 \sqrt{S_x S_y}}, \quad
              S_x = \frac{K^3 - K}{12} - \sum_{\text{ties}} \frac{t^3 - t}{12},

    which equals Pearson's correlation of the average ranks (``scipy.stats.spearmanr``)
    and reduces to the formula above when nothing ties.

    References
    ----------
    Kendall & Gibbons (1990), Rank Correlation Methods, 5th ed., ch. 3.

    Examples
    --------
    >>> spearman([1, 2, 3, 4], [4, 3, 2, 1])
    -1.0
    >>> round(spearman([1, 2, 2, 3], [1, 2, 3, 4]), 4)   # a tie in x
    0.9487
    """
    return _one("spearman", x, y)


def kendall(x: Any, y: Any) -> float:
    r"""Kendall's tau-b of two rankings of the same items (ties accounted for).

    Parameters
    ----------
    x, y : array-like of numbers
        As in :func:`spearman`.

    Returns
    -------
    float
        tau-b in [-1, 1]; NaN when fewer than 2 items or one side is constant.

    Notes
    -----
    .. math:: \tau_b = \frac{C - D}{\sqrt{(n_0 - n_1)(n_0 - n_2)}}

    with C and D the concordant and discordant pairs, n_0 = K(K-1)/2 and n_1, n_2 the
    pairs tied in x and in y; without ties it is tau-a, (C - D) / n_0. It equals
    ``scipy.stats.kendalltau(x, y, variant="b")``.

    Examples
    --------
    >>> kendall([1, 2, 3], [1, 3, 2])
    0.3333333333333333
    """
    return _one("kendall", x, y)


def tau_ap(x: Any, y: Any, *, descending: bool = False) -> float:
    r"""Yilmaz, Aslam & Robertson's AP correlation tau_ap of ranking x against reference y.

    Parameters
    ----------
    x : array-like of numbers
        The ranking evaluated: position (or, with ``descending=True``, score) of each item.
    y : array-like of numbers
        The reference ("true") ranking of the same items.
    descending : bool
        ``False`` (default): smaller values rank higher (positions, 1 = top);
        ``True``: larger values rank higher (scores, metric values of systems).

    Returns
    -------
    float
        tau_ap in [-1, 1]; NaN for fewer than 2 items.

    Raises
    ------
    MetricError
        x or y has ties (tau_ap is defined for total orders).

    Notes
    -----
    .. math:: \tau_{ap} = \frac{2}{K - 1} \sum_{i=2}^{K} \frac{C(i)}{i - 1} - 1

    where, going down ranking x, C(i) is the number of items above the i-th one in x
    that the reference also ranks above it. Like tau it is 1 for equal and -1 for
    reversed rankings, but a swap near the top costs more than one near the bottom;
    it is not symmetric.

    References
    ----------
    E. Yilmaz, J. A. Aslam, S. Robertson (2008), A new rank correlation coefficient
    for information retrieval, SIGIR.

    Examples
    --------
    A swap at the top costs more than the same swap at the bottom (tau gives 2/3 to both):

    >>> round(tau_ap([1, 2, 3, 4], [2, 1, 3, 4]), 4), round(tau_ap([1, 2, 3, 4], [1, 2, 4, 3]), 4)
    (0.3333, 0.7778)
    """
    return _one("tau_ap", x, y, descending)


def tau_ap_b(x: Any, y: Any, *, descending: bool = False) -> float:
    r"""Urbano & Marrero's tau_AP,b: the AP correlation of two rankings that may tie.

    Parameters
    ----------
    x, y : array-like of numbers
        Two rankings of the same items: positions (or, with ``descending=True``,
        scores, e.g. the mean effectiveness of systems). Either may tie.
    descending : bool
        ``False`` (default): smaller values rank higher; ``True``: larger values do.

    Returns
    -------
    float
        tau_AP,b in [-1, 1]; NaN with fewer than 2 items or when every item ties.

    Notes
    -----
    For ties that are part of the rankings (two systems with the same mean score).
    Going down ranking y, an item whose tie group starts at position p > 1 counts
    the items of earlier tie groups that x ranks strictly above it, C; with m such
    items,

    .. math:: \tau^*_{AP,b}(x, y) = \frac{2}{m} \sum_i \frac{C_i}{p_i - 1} - 1,
              \qquad \tau_{AP,b} = \frac{\tau^*_{AP,b}(x, y) + \tau^*_{AP,b}(y, x)}{2}.

    It is symmetric; without ties it is the mean of :func:`tau_ap` taken each way.

    References
    ----------
    J. Urbano, M. Marrero (2017), The treatment of ties in AP correlation, ICTIR.

    Examples
    --------
    Two systems tie on the second ranking:

    >>> round(tau_ap_b([0.4, 0.3, 0.2, 0.1], [0.4, 0.3, 0.3, 0.1], descending=True), 4)
    0.8333
    """
    return _one("tau_ap_b", x, y, descending)


# --------------------------------------------------------------------------- per query


def rank_correlation(
    frame: pd.DataFrame,
    run_a: Any = None,
    run_b: Any = None,
    *,
    method: RankCorrelation | Literal["rbo"] = "kendall",
    p: float = 0.9,
    columns: ColumnMap | Mapping[str, str] | None = None,
) -> pd.Series:
    """Per-query rank correlation between two runs, or between a run and the ideal ranking.

    Parameters
    ----------
    frame : DataFrame
        Long frame with query, doc and rank or score columns; a run column
        to compare two runs, a rel column to compare with the ideal ranking.
    run_a, run_b : run ids, optional
        Two runs of the frame's run column: correlates run_a's ranking of each query
        with run_b's over the documents both retrieved (run_b is the reference of
        ``tau_ap``). With ``run_b=None``, correlates run_a's ranking -- the frame's
        only ranking when it has no run column -- with the *ideal ordering by label*
        over its retrieved judged documents (the labels are the reference; documents
        with equal labels tie).
    method : {"kendall", "spearman", "tau_ap", "tau_ap_b", "rbo"}
        Kendall's tau-b (default), Spearman's rho (tie-corrected), tau_ap, tau_ap_b
        (tau_ap for rankings with ties, Urbano & Marrero 2017), or the
        extrapolated rank-biased overlap of two runs' full rankings
        (:func:`pdireval.rank_biased_overlap` gives its bounds too).
    p : float
        RBO's persistence (``method="rbo"`` only), 0 < p < 1.
    columns : ColumnMap or dict, optional
        Which column plays which role.

    Returns
    -------
    Series
        float64 per query (index named like the query column, sorted), named after
        the method; NaN for queries with fewer than 2 documents in common (or where
        one side is constant, e.g. all labels equal).

    Raises
    ------
    SchemaError
        Missing columns, an unknown run, no run column when two runs are asked for,
        a document ranked twice in one query of a run.
    MetricError
        Unknown method; ``tau_ap`` on rankings with ties (labels always tie when two
        documents share a grade, so ``tau_ap`` against the ideal needs distinct labels).

    Notes
    -----
    Ranking order comes from the rank column, else from the score (higher first);
    equal scores are ties, not broken by doc id, since tie-aware coefficients can
    use them. Documents only one run retrieved are left out: the coefficients compare
    orderings of the same items. Grouped numpy kernels compute every query at once.

    Examples
    --------
    >>> import pandas as pd, pdireval
    >>> df = pd.DataFrame({"run": ["a"] * 3 + ["b"] * 3, "query": "q1",
    ...                    "doc": ["x", "y", "z"] * 2, "rank": [1, 2, 3, 2, 1, 3],
    ...                    "rel": [2, 1, 0] * 2})
    >>> pdireval.rank_correlation(df, "a", "b", method="spearman")
    query
    q1    0.5
    Name: spearman, dtype: float64
    >>> pdireval.rank_correlation(df, "b")   # run b against the ideal ordering by label
    query
    q1    0.333333
    Name: kendall, dtype: float64
    """
    if method == "rbo":
        if run_b is None:
            msg = "method='rbo' compares two runs' rankings; name both runs"
            raise ParameterError(msg)
        return rank_biased_overlap(frame, run_a, run_b, p=p, columns=columns)["ext"].rename("rbo")
    _check_method(method)
    resolved = as_column_map(columns).resolve(frame)
    frame, resolved = documents(frame, resolved)  # judgments per subtopic: one row per doc
    resolved.require(frame, "query", "doc")
    if resolved.rank is None and resolved.score is None:
        msg = f"neither a 'rank' nor a 'score' column found (columns: {list(frame.columns)})"
        raise SchemaError(msg)
    rows_a = _run_rows(frame, resolved.run, run_a)
    rows_b = None if run_b is None else _run_rows(frame, resolved.run, run_b)
    check_no_nulls(frame, resolved)
    check_unique_docs(frame, resolved, algorithms.group_codes(frame, resolved)[0])
    key = ranking_key(frame, resolved, validate=True)  # ties stay ties: no doc id order
    if rows_b is None:
        resolved.require(frame, "rel")
        label = labels_of(frame[resolved.rel], resolved.name("rel"))[rows_a]
        keep = ~np.isnan(key[rows_a]) & (label >= 0)
        rows, x, y = rows_a[keep], key[rows_a][keep], -label[keep]
        query = frame[resolved.query].to_numpy()[rows]
    else:
        ids = frame[[resolved.query, resolved.doc]]
        left = ids.iloc[rows_a].set_axis(["q", "d"], axis=1).assign(x=key[rows_a])
        right = ids.iloc[rows_b].set_axis(["q", "d"], axis=1).assign(y=key[rows_b])
        both = left.dropna().merge(right.dropna(), on=["q", "d"])
        query, x, y = both["q"].to_numpy(), both["x"].to_numpy(), both["y"].to_numpy()
    codes, ids_sorted = pd.factorize(pd.Series(query, dtype=frame[resolved.query].dtype), sort=True)
    values = _correlate(method, codes.astype(np.int64), x, y, len(ids_sorted))
    index = pd.Index(ids_sorted, name=resolved.query)
    return pd.Series(values, index=index, name=method, dtype=np.float64)


def _run_rows(frame: pd.DataFrame, run_column: str | None, run: Any) -> np.ndarray:
    """Positions of the rows of ``run`` (all rows when the frame holds one ranking)."""
    if run is None:
        if run_column is not None and frame[run_column].nunique() > 1:
            runs = sorted(frame[run_column].unique().tolist())
            msg = f"the frame holds several runs {runs}; name the run(s) to correlate"
            raise SchemaError(msg)
        return np.arange(len(frame))
    if run_column is None:
        msg = (
            f"run {run!r} given but the frame has no run column (columns: "
            f"{list(frame.columns)}); map it with df.ireval(run='<column>')"
        )
        raise SchemaError(msg)
    rows = np.flatnonzero((frame[run_column] == run).to_numpy())
    if not len(rows):
        runs = sorted(frame[run_column].unique().tolist())
        msg = f"run {run!r} not found in column {run_column!r}; its runs are {runs}"
        raise SchemaError(msg)
    return rows


# --------------------------------------------------------------------------- systems


def system_correlation(
    a: pd.Series | pd.DataFrame,
    b: pd.Series | pd.DataFrame,
    *,
    method: RankCorrelation = "kendall",
) -> float | pd.Series:
    """Correlation between two orderings of the same systems (runs).

    Parameters
    ----------
    a, b : Series or DataFrame
        Per-run values, higher = better, indexed by run: e.g. two columns of a
        :func:`pdireval.summary` table (how two metrics order the runs), or the same
        metric's summary under two qrels versions. Two DataFrames are correlated
        column by column over their common columns.
    method : {"kendall", "spearman", "tau_ap", "tau_ap_b"}
        For ``tau_ap``, ``b`` is the reference ordering and the top systems of ``a``
        weigh most; ``tau_ap_b`` (symmetric) allows ties.

    Returns
    -------
    float, or Series by column for two DataFrames

    Raises
    ------
    SchemaError
        The two share fewer than two runs, or hold missing values for shared runs.

    Notes
    -----
    Only runs present in both are compared. Kendall's tau between system orderings
    is the customary agreement statistic (Voorhees 2000 calls tau >= 0.9 equivalent
    rankings); tau_ap penalises disagreement among the best systems more.

    Examples
    --------
    >>> import pandas as pd, pdireval
    >>> by_ap = pd.Series({"bm25": 0.31, "dense": 0.38, "rerank": 0.42, "tfidf": 0.22})
    >>> by_ndcg = pd.Series({"bm25": 0.45, "dense": 0.44, "rerank": 0.52, "tfidf": 0.30})
    >>> round(pdireval.system_correlation(by_ap, by_ndcg), 4)
    0.6667
    """
    _check_method(method)
    if isinstance(a, pd.DataFrame) and isinstance(b, pd.DataFrame):
        shared = [column for column in a.columns if column in b.columns]
        values = {c: system_correlation(a[c], b[c], method=method) for c in shared}
        return pd.Series(values, dtype=np.float64, name=method)
    if not isinstance(a, pd.Series) or not isinstance(b, pd.Series):
        msg = "system_correlation takes two Series (or two DataFrames) indexed by run"
        raise SchemaError(msg)
    runs = a.index.intersection(b.index)
    if len(runs) < 2:
        msg = f"the two orderings share {len(runs)} run(s); at least two are needed"
        raise SchemaError(msg)
    return _one(method, a.loc[runs], b.loc[runs], descending=True)
