r"""Meta-evaluation: can a measure tell these systems apart on a topic set of this size.

Three answers, each from the per-query values of the runs of one frame:

* :func:`asl_curve` and :func:`discriminative_power` (Sakai 2006): a paired bootstrap
  test for every pair of runs; the share of pairs whose achieved significance level
  (ASL) is below ``alpha`` is the measure's discriminative power;
* :func:`swap_rate` (Voorhees & Buckley 2002): split the topics into two disjoint sets
  of the same size, and count how often the two sets order a pair of runs differently;
* :func:`ranking_stability`: Kendall's tau between the ordering of the runs on all
  topics and on random subsets of them.

All resample in blocks of resamples at once (no loop per query or per resample) and are
reproducible with ``seed=``; every measure of a call sees the same resamples.

Examples
--------
>>> import pdireval
>>> from pdireval.datasets import example
>>> pdireval.discriminative_power(example(), ["AP", "P@10"], n_resamples=500, seed=1)
        pairs  significant  discriminative_power
metric
AP          3            3                   1.0
P@10        3            3                   1.0
"""

from __future__ import annotations

import math
from collections.abc import Iterator, Sequence
from typing import TYPE_CHECKING, Any, Unpack

import numpy as np
import pandas as pd

from pdireval._core.errors import ParameterError, SchemaError
from pdireval._core.options import EVALUATION, level, resamples, takes
from pdireval.engine.runs import Block, Matrix, matrices, seed_sequence, stacked, whole

if TYPE_CHECKING:
    from pdireval.typing import ColumnsLike, EvaluationOptions, MetricsLike

__all__ = ["asl_curve", "discriminative_power", "ranking_stability", "swap_rate"]

#: Resampling works in blocks of about this many array elements.
BLOCK_ELEMENTS = 1 << 21
#: Values this close to 0 count as 0 (floating-point noise).
TOLERANCE = 1e-12


def _blocks(total: int, cells: int) -> Iterator[tuple[int, int]]:
    size = max(1, BLOCK_ELEMENTS // max(cells, 1))
    for start in range(0, total, size):
        yield start, min(size, total - start)


def _pairs(matrix: Matrix) -> list[tuple[int, int]]:
    """Column pairs (run, baseline) in :func:`pdireval.compare`'s order for all pairs."""
    m = len(matrix.runs)
    return [(j, i) for i in range(m) for j in range(i + 1, m)]


def _t_statistics(samples: np.ndarray) -> np.ndarray:
    """Student's t of the mean of each sample (last axis): 0 when the values are all 0,
    +-inf when they are one non-zero constant.
    """
    n = samples.shape[-1]
    mean = samples.mean(axis=-1)
    spread = samples.std(axis=-1, ddof=1)
    flat = spread <= TOLERANCE * np.maximum(1.0, np.abs(mean))
    with np.errstate(divide="ignore", invalid="ignore"):
        t = np.where(flat, np.sign(mean) * np.inf, mean / (spread / math.sqrt(n)))
    return np.where(flat & (np.abs(mean) <= TOLERANCE), 0.0, t)


def bootstrap_asl(differences: np.ndarray, n_resamples: int, rng: np.random.Generator):
    """Achieved significance levels of Sakai's paired bootstrap test, one per row of
    ``differences`` (pairs x queries). Query i of resample b is query
    ``floor(u * n)`` for ``u`` the (b, i) entry of ``rng.random`` draws, block by block.
    """
    k, n = differences.shape
    observed = np.abs(_t_statistics(differences))
    shifted = differences - differences.mean(axis=1, keepdims=True)
    count = np.zeros(k)
    slack = 1e-9 * np.maximum(1.0, np.where(np.isfinite(observed), observed, 0.0))
    for _, size in _blocks(n_resamples, k * n):
        picks = np.minimum((rng.random((size, n)) * n).astype(np.intp), n - 1)
        resampled = np.abs(_t_statistics(shifted[:, picks]))  # pairs x size
        count += (resampled >= observed[:, None] - slack[:, None]).sum(axis=1)
    return count / n_resamples


#: Columns of the table returned by :func:`asl_curve`, in order.
ASL_COLUMNS = ("metric", "run", "baseline", "delta", "asl")


@takes(EVALUATION)
def asl_curve(
    frame: pd.DataFrame,
    metrics: MetricsLike,
    *,
    n_resamples: int = 1000,
    seed: int | np.random.SeedSequence | None = None,
    columns: ColumnsLike = None,
    **options: Unpack[EvaluationOptions],
) -> pd.DataFrame:
    r"""Achieved significance level of every pair of runs (Sakai's paired bootstrap test).

    Parameters
    ----------
    frame : DataFrame
        Long frame with a run column holding at least two runs.
    metrics : str, Metric or list of them
        The measure(s) to meta-evaluate.
    n_resamples : int
        Bootstrap samples of the queries (default 1,000, as in Sakai 2006).
    seed : int, numpy SeedSequence or None
        Seed of the bootstrap; every measure uses the same samples.
    columns : ColumnMap or dict, optional
        Which column plays which role.
    **options
        Evaluation options (``queries``, ``ties``, ``max_rank``, ``judged_only``, ...).

    Returns
    -------
    DataFrame
        One row per (metric, pair), sorted by ASL within each metric (the ASL curve:
        plot ``asl`` against the row number); columns ``metric``, ``run``,
        ``baseline``, ``delta`` (difference of the means) and ``asl``.

    Raises
    ------
    SchemaError
        No run column or a single run, a query some runs lack, or fewer than two queries.
    MetricError
        ``n_resamples`` or ``seed`` out of range.

    Notes
    -----
    For the per-query differences :math:`z` of a pair over n queries,
    :math:`t(z) = \bar{z} / (s_z / \sqrt{n})`. The differences are shifted to mean 0,
    :math:`w = z - \bar{z}`, and resampled with replacement B times; the ASL is the
    share of resamples with :math:`|t(w^{*b})| \ge |t(z)|`. A pair that agrees on every
    query has ASL 1; a pair whose differences are one non-zero constant has ASL 0.

    References
    ----------
    T. Sakai (2006), Evaluating evaluation metrics based on the bootstrap, SIGIR.
    B. Efron & R. Tibshirani (1993), An introduction to the bootstrap.

    Examples
    --------
    >>> import pdireval
    >>> from pdireval.datasets import toy
    >>> pdireval.asl_curve(toy(), "AP", n_resamples=200, seed=3).round(4)
      metric      run baseline   delta    asl
    0     AP  system2  system1 -0.1777  0.465
    """
    n_resamples = resamples(n_resamples)
    sequence = seed_sequence(seed)
    blocks = []
    for matrix in matrices(frame, metrics, columns, options, "asl_curve"):
        if len(matrix.queries) < 2:
            msg = (
                f"asl_curve needs at least two queries with values to bootstrap, "
                f"{matrix.metric} has {len(matrix.queries)}"
            )
            raise SchemaError(msg)
        pairs = _pairs(matrix)
        values = matrix.values
        differences = np.array([values[:, j] - values[:, i] for j, i in pairs])
        differences[np.abs(differences) <= TOLERANCE] = 0.0
        asl = bootstrap_asl(differences, n_resamples, np.random.default_rng(sequence))
        block = pd.DataFrame(
            {
                "metric": matrix.metric,
                "run": [matrix.runs[j] for j, _ in pairs],
                "baseline": [matrix.runs[i] for _, i in pairs],
                "delta": differences.mean(axis=1),
                "asl": asl,
            }
        )
        blocks.append((matrix.block, block.sort_values("asl", kind="stable")))
    return stacked(blocks, ASL_COLUMNS, by=["metric"])


@takes(EVALUATION)
def discriminative_power(
    frame: pd.DataFrame,
    metrics: MetricsLike,
    *,
    alpha: float = 0.05,
    n_resamples: int = 1000,
    seed: int | np.random.SeedSequence | None = None,
    columns: ColumnsLike = None,
    **options: Unpack[EvaluationOptions],
) -> pd.DataFrame:
    """Discriminative power of each measure: the share of run pairs with ASL < alpha.

    Parameters
    ----------
    frame, metrics, n_resamples, seed, columns, **options
        As in :func:`asl_curve`.
    alpha : float
        Significance level (default 0.05).

    Returns
    -------
    DataFrame
        Index metric; columns ``pairs``, ``significant`` (pairs with ASL < alpha) and
        ``discriminative_power`` (their share).

    Raises
    ------
    SchemaError, MetricError
        As in :func:`asl_curve`; ``alpha`` outside (0, 1).

    References
    ----------
    T. Sakai (2006), Evaluating evaluation metrics based on the bootstrap, SIGIR.

    Examples
    --------
    >>> import pdireval
    >>> from pdireval.datasets import example
    >>> pdireval.discriminative_power(example(), "nDCG@10", n_resamples=500, seed=2)
             pairs  significant  discriminative_power
    metric
    nDCG@10      3            3                   1.0
    """
    threshold = level("alpha", alpha)
    curve = asl_curve(
        frame, metrics, n_resamples=n_resamples, seed=seed, columns=columns, **options
    )
    by = [column for column in curve.columns if column not in ASL_COLUMNS] + ["metric"]
    grouped = curve.groupby(by if len(by) > 1 else "metric", sort=False)["asl"]
    out = pd.DataFrame(
        {
            "pairs": grouped.size().astype(np.int64),
            "significant": grouped.apply(lambda asl: int((asl < threshold).sum())).astype(np.int64),
        }
    )
    out["discriminative_power"] = out["significant"] / out["pairs"]
    if len(by) == 1:
        out.index.name = "metric"
    return out


def _sizes(sizes: Any, largest: int, queries: int, what: str) -> list[int]:
    """Topic-set sizes: whole numbers in 1..largest (by default up to 10 of them)."""
    if largest < 1:
        msg = f"{what} needs more queries with values than the frame's {queries}"
        raise SchemaError(msg)
    if sizes is None:
        return sorted({round(s) for s in np.linspace(1, largest, num=min(10, largest))})
    values = list(sizes) if isinstance(sizes, Sequence | np.ndarray) else [sizes]
    checked = [whole("sizes", value, 1) for value in values]
    if not checked or max(checked) > largest:
        msg = (
            f"sizes={sizes!r}: {what} takes topic-set sizes from 1 to {largest} for a "
            f"frame of {queries} queries"
        )
        raise ParameterError(msg)
    return sorted(set(checked))


def _shuffled(rng: np.random.Generator, count: int, n: int) -> np.ndarray:
    """``count`` random orders of n queries: the argsort of ``rng.random`` draws."""
    return np.argsort(rng.random((count, n)), axis=1)


def _signs(values: np.ndarray) -> np.ndarray:
    return np.where(np.abs(values) <= TOLERANCE, 0.0, np.sign(values))


def swap_counts(
    values: np.ndarray, size: int, n_trials: int, min_difference: float, rng: np.random.Generator
) -> tuple[int, int]:
    """(comparisons, swaps) over ``n_trials`` splits into two disjoint sets of ``size``."""
    n, m = values.shape
    left = np.array([j for i in range(m) for j in range(i + 1, m)], dtype=np.intp)
    right = np.array([i for i in range(m) for _ in range(i + 1, m)], dtype=np.intp)
    compared = swapped = 0
    for _, count in _blocks(n_trials, n + 2 * size * m):
        order = _shuffled(rng, count, n)
        first = values[order[:, :size]].mean(axis=1)  # count x runs
        second = values[order[:, size : 2 * size]].mean(axis=1)
        d_first = first[:, left] - first[:, right]
        d_second = second[:, left] - second[:, right]
        counted = (np.abs(d_first) > TOLERANCE) & (np.abs(d_first) >= min_difference)
        compared += int(counted.sum())
        swapped += int((counted & (_signs(d_first) * _signs(d_second) < 0)).sum())
    return compared, swapped


@takes(EVALUATION)
def swap_rate(
    frame: pd.DataFrame,
    metrics: MetricsLike,
    *,
    sizes: int | Sequence[int] | None = None,
    n_trials: int = 1000,
    min_difference: float = 0.0,
    seed: int | np.random.SeedSequence | None = None,
    columns: ColumnsLike = None,
    **options: Unpack[EvaluationOptions],
) -> pd.DataFrame:
    """How often two disjoint topic sets of the same size order a pair of runs differently.

    Parameters
    ----------
    frame : DataFrame
        Long frame with a run column holding at least two runs.
    metrics : str, Metric or list of them
        The measure(s) to meta-evaluate.
    sizes : int or list of int, optional
        Topic-set sizes, each at most half the queries; by default up to ten sizes
        from 1 to half the queries.
    n_trials : int
        Random splits per size (default 1,000).
    min_difference : float
        Count a pair only when its difference of means on the first set is at least
        this (Voorhees & Buckley bin the pairs by this difference); default 0.
    seed : int, numpy SeedSequence or None
        Seed of the splits; every measure and size uses the same stream.
    columns : ColumnMap or dict, optional
        Which column plays which role.
    **options
        Evaluation options (``queries``, ``ties``, ``max_rank``, ``judged_only``, ...).

    Returns
    -------
    DataFrame
        One row per (metric, size); columns ``metric``, ``size``, ``comparisons``
        (pair x trial comparisons counted), ``swaps`` and ``swap_rate``
        (swaps / comparisons; NaN with no comparison).

    Raises
    ------
    SchemaError
        No run column or a single run, a query some runs lack, or fewer than two queries.
    MetricError
        A size out of range, ``n_trials`` < 1, a negative ``min_difference``.

    Notes
    -----
    Each trial shuffles the queries and takes the first ``size`` as one set and the
    next ``size`` as the other. A pair of runs is compared when its difference of
    means on the first set is non-zero (and at least ``min_difference``); it is a swap
    when the second set's difference has the opposite sign (a tie there is no swap).

    References
    ----------
    E. M. Voorhees & C. Buckley (2002), The effect of topic set size on retrieval
    experiment error, SIGIR.

    Examples
    --------
    >>> import pdireval
    >>> from pdireval.datasets import example
    >>> pdireval.swap_rate(example(), "AP", sizes=[2, 10, 25], n_trials=500, seed=1)
      metric  size  comparisons  swaps  swap_rate
    0     AP     2         1500      5   0.003333
    1     AP    10         1500      0   0.000000
    2     AP    25         1500      0   0.000000
    """
    n_trials = whole("n_trials", n_trials, 1)
    minimum = _non_negative("min_difference", min_difference)
    sequence = seed_sequence(seed)
    rows = []
    for matrix in matrices(frame, metrics, columns, options, "swap_rate"):
        checked = _sizes(sizes, len(matrix.queries) // 2, len(matrix.queries), "swap_rate")
        rng = np.random.default_rng(sequence)
        for size in checked:
            compared, swapped = swap_counts(matrix.values, size, n_trials, minimum, rng)
            rate = swapped / compared if compared else float("nan")
            rows.append((matrix.block, (matrix.metric, size, compared, swapped, rate)))
    names = ["metric", "size", "comparisons", "swaps", "swap_rate"]
    out = _rows(rows, names)
    return out.astype({"size": np.int64, "comparisons": np.int64, "swaps": np.int64})


def _rows(rows: list[tuple[Block, tuple]], names: list[str]) -> pd.DataFrame:
    """One row per (block, values) pair, a first column per judge and collection level."""
    parts = [(block, pd.DataFrame([values], columns=names)) for block, values in rows]
    return stacked(parts, names, by=["metric"])


def _non_negative(name: str, value: Any) -> float:
    number = not isinstance(value, bool) and isinstance(value, int | float | np.number)
    if not number or not math.isfinite(float(value)) or float(value) < 0:
        msg = f"{name}={value!r} must be a finite number >= 0"
        raise ParameterError(msg)
    return float(value)


def stability_taus(
    values: np.ndarray, size: int, n_trials: int, rng: np.random.Generator
) -> np.ndarray:
    """Kendall's tau-b between the run means on all queries and on ``n_trials`` random
    subsets of ``size`` queries (NaN where either ordering is all ties).
    """
    n, m = values.shape
    left = np.array([j for i in range(m) for j in range(i + 1, m)], dtype=np.intp)
    right = np.array([i for i in range(m) for _ in range(i + 1, m)], dtype=np.intp)
    full = values.mean(axis=0)
    full_signs = _signs(full[left] - full[right])
    out = np.empty(n_trials)
    for start, count in _blocks(n_trials, n + size * m):
        order = _shuffled(rng, count, n)
        means = values[order[:, :size]].mean(axis=1)
        signs = _signs(means[:, left] - means[:, right])
        numerator = (signs * full_signs).sum(axis=1)
        untied = np.count_nonzero(full_signs) * np.count_nonzero(signs, axis=1)
        with np.errstate(divide="ignore", invalid="ignore"):
            out[start : start + count] = np.where(untied > 0, numerator / np.sqrt(untied), np.nan)
    return out


@takes(EVALUATION)
def ranking_stability(
    frame: pd.DataFrame,
    metrics: MetricsLike,
    *,
    sizes: int | Sequence[int] | None = None,
    n_trials: int = 1000,
    seed: int | np.random.SeedSequence | None = None,
    columns: ColumnsLike = None,
    **options: Unpack[EvaluationOptions],
) -> pd.DataFrame:
    """How much the ordering of the runs changes when only some of the topics are used.

    Parameters
    ----------
    frame : DataFrame
        Long frame with a run column holding at least two runs.
    metrics : str, Metric or list of them
        The measure(s) to meta-evaluate.
    sizes : int or list of int, optional
        Numbers of topics drawn (without replacement), each at most the number of
        queries; by default up to ten sizes from 1 to all queries.
    n_trials : int
        Random subsets per size (default 1,000).
    seed : int, numpy SeedSequence or None
        Seed of the subsets.
    columns : ColumnMap or dict, optional
        Which column plays which role.
    **options
        Evaluation options (``queries``, ``ties``, ``max_rank``, ``judged_only``, ...).

    Returns
    -------
    DataFrame
        One row per (metric, size); columns ``metric``, ``size``, ``trials``,
        ``tau_mean``, ``tau_sd``, ``tau_min`` (over the trials where both orderings
        are not all ties) and ``tau_below_09`` (share of trials with tau < 0.9, the
        threshold below which Voorhees (2000) calls two orderings different).

    Raises
    ------
    SchemaError, MetricError
        As in :func:`swap_rate`.

    Notes
    -----
    Kendall's tau-b between the run means on all queries and on the subset: the sum
    over run pairs of the product of the signs of the two differences, divided by the
    square root of the product of the numbers of untied pairs on each side (it is
    ``scipy.stats.kendalltau``).

    References
    ----------
    E. M. Voorhees (2000), Variations in relevance judgments and the measurement of
    retrieval effectiveness, Information Processing & Management 36(5). E. M. Voorhees
    & C. Buckley (2002), The effect of topic set size on retrieval experiment error,
    SIGIR.

    Examples
    --------
    >>> import pdireval
    >>> from pdireval.datasets import example
    >>> table = pdireval.ranking_stability(example(), "AP", sizes=[1, 5, 50], seed=1)
    >>> table.round(3)
      metric  size  trials  tau_mean  tau_sd  tau_min  tau_below_09
    0     AP     1     974     0.976   0.124    0.333         0.036
    1     AP     5    1000     1.000   0.000    1.000         0.000
    2     AP    50    1000     1.000   0.000    1.000         0.000
    """
    n_trials = whole("n_trials", n_trials, 1)
    sequence = seed_sequence(seed)
    rows = []
    for matrix in matrices(frame, metrics, columns, options, "ranking_stability"):
        checked = _sizes(sizes, len(matrix.queries), len(matrix.queries), "ranking_stability")
        rng = np.random.default_rng(sequence)
        for size in checked:
            taus = stability_taus(matrix.values, size, n_trials, rng)
            valid = taus[~np.isnan(taus)]
            found = (
                matrix.metric,
                size,
                valid.size,
                valid.mean() if valid.size else np.nan,
                valid.std(ddof=1) if valid.size > 1 else np.nan,
                valid.min() if valid.size else np.nan,
                (valid < 0.9).mean() if valid.size else np.nan,
            )
            rows.append((matrix.block, found))
    names = ["metric", "size", "trials", "tau_mean", "tau_sd", "tau_min", "tau_below_09"]
    return _rows(rows, names).astype({"size": np.int64, "trials": np.int64})
