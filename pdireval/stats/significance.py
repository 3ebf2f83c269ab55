"""Private statistics kernels: paired tests, p-value corrections and confidence intervals.

Everything works on numpy arrays of per-query values that are already aligned (one row
per comparison, one column per query). scipy supplies the test distributions and is
imported only inside the functions that need it.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

import numpy as np

from pdireval._core.optional import optional
from pdireval._core.options import Significance

__all__ = [
    "adjust_pvalues",
    "bootstrap_statistic",
    "paired_statistics",
    "scipy_stats",
    "t_interval",
    "two_way_bootstrap_means",
]

#: Per-query differences this close to 0 count as ties (floating-point noise).
TIE_TOLERANCE = 1e-12
#: Resampling works in blocks of about this many matrix elements.
BLOCK_ELEMENTS = 1 << 22


def scipy_stats() -> Any:
    """Import :mod:`scipy.stats`, or raise :class:`MissingDependencyError` with the fix."""
    return optional("scipy.stats", purpose="significance tests and t intervals")


def adjust_pvalues(p_values: np.ndarray, correction: str | None) -> np.ndarray:
    """Adjust p-values for multiple comparisons (NaN values are kept and not counted)."""
    raw = np.asarray(p_values, dtype=np.float64)
    out = raw.copy()
    if correction is None:
        return out
    finite = ~np.isnan(raw)
    p = raw[finite]
    m = p.size
    if m == 0:
        return out
    if correction == "bonferroni":
        adjusted = np.minimum(1.0, p * m)
    else:
        order = np.argsort(p, kind="stable")
        ordered = p[order]
        i = np.arange(1, m + 1)
        if correction == "holm":
            steps = np.maximum.accumulate((m - i + 1) * ordered)
        else:  # fdr_bh
            steps = np.minimum.accumulate((m / i * ordered)[::-1])[::-1]
        adjusted = np.empty(m)
        adjusted[order] = np.minimum(1.0, steps)
    out[finite] = np.maximum(adjusted, p)
    return out


def _blocks(n_resamples: int, n: int) -> Iterator[tuple[int, int]]:
    size = max(1, BLOCK_ELEMENTS // max(n, 1))
    for start in range(0, n_resamples, size):
        yield start, min(size, n_resamples - start)


def _permutation_pvalues(diffs: np.ndarray, n_resamples: int, seed: Any) -> np.ndarray:
    """Two-sided paired randomisation test: random sign flips of the differences."""
    rng = np.random.default_rng(seed)
    n = diffs.shape[1]
    observed = np.abs(diffs.mean(axis=1))
    slack = 1e-9 * np.maximum(1.0, observed)
    count = np.zeros(diffs.shape[0])
    for _, size in _blocks(n_resamples, n):
        signs = 1.0 - 2.0 * rng.integers(0, 2, size=(size, n))
        resampled = np.abs(signs @ diffs.T) / n  # size x comparisons
        count += (resampled >= observed - slack).sum(axis=0)
    return (count + 1) / (n_resamples + 1)


def bootstrap_statistic(
    values: np.ndarray,
    statistic: Callable[[np.ndarray], np.ndarray],
    n_resamples: int,
    seed: Any,
) -> np.ndarray:
    """Bootstrap distribution of ``statistic`` for each row of ``values`` (rows x resamples).

    ``statistic`` maps a (resamples x n) block to one value per resample. The same
    resampled query indices are used for every row.
    """
    rng = np.random.default_rng(seed)
    values = np.atleast_2d(values)
    n = values.shape[1]
    out = np.empty((values.shape[0], n_resamples))
    for start, size in _blocks(n_resamples, n):
        picks = rng.integers(0, n, size=(size, n))
        for row, sample in enumerate(values):
            out[row, start : start + size] = statistic(sample[picks])
    return out


def _row_mean(block: np.ndarray) -> np.ndarray:
    return block.mean(axis=1)


def _counts(picks: np.ndarray, n: int) -> np.ndarray:
    """How often each of ``n`` indices was drawn, per row of ``picks`` (rows x n)."""
    rows = picks.shape[0]
    flat = (picks + n * np.arange(rows)[:, None]).ravel()
    return np.bincount(flat, minlength=rows * n).reshape(rows, n).astype(np.float64)


def two_way_bootstrap_means(cube: np.ndarray, n_resamples: int, seed: Any) -> np.ndarray:
    """Two-way (pigeonhole) bootstrap of the mean of (k x queries x seeds) values.

    Each resample draws the queries with replacement and, independently, the seeds with
    replacement, and takes the mean over every (drawn query, drawn seed) cell: the
    bootstrap for a crossed two-way random effects design (Owen 2007; Davison & Hinkley
    1997, section 3.8). Every comparison uses the same draws. Returns k x resamples.

    The draws of a block are the query indices (block x queries), then the seed indices
    (block x seeds), from ``numpy.random.default_rng(seed)``.
    """
    rng = np.random.default_rng(seed)
    k, n, s = cube.shape
    out = np.empty((k, n_resamples))
    for start, size in _blocks(n_resamples, n * max(k, s)):
        query_picks = rng.integers(0, n, size=(size, n))
        seed_picks = rng.integers(0, s, size=(size, s))
        by_query = np.einsum("kns,bs->kbn", cube, _counts(seed_picks, s))
        totals = np.einsum("kbn,bn->kb", by_query, _counts(query_picks, n))
        out[:, start : start + size] = totals / (n * s)
    return out


def t_interval(values: np.ndarray, level: float) -> tuple[float, float]:
    """Student t interval for the mean of ``values`` (NaN with fewer than two values)."""
    n = values.size
    if n < 2:
        return np.nan, np.nan
    stats = scipy_stats()
    mean = values.mean()
    half = stats.t.ppf(0.5 + level / 2, n - 1) * values.std(ddof=1) / np.sqrt(n)
    return float(mean - half), float(mean + half)


def paired_statistics(
    runs: np.ndarray, baselines: np.ndarray, significance: Significance
) -> dict[str, np.ndarray]:
    """Everything :func:`pdireval.compare` reports, for k comparisons over n queries.

    ``runs`` and ``baselines`` are (k x n) arrays of per-query values, aligned by query.
    Returns one array of length k per output column (``p_value`` unadjusted).

    (k x n x s) arrays hold the values of s seeds (repeated runs) per query: the
    bootstrap test is then the two-way bootstrap over queries and seeds
    (:func:`two_way_bootstrap_means`); every other test, the interval of the t test,
    the effect size and wins/ties/losses use the per-query differences averaged over
    the seeds.
    """
    test, alpha = significance.test, significance.alpha
    n_resamples, seed = significance.n_resamples, significance.seed
    stats = scipy_stats()
    cube = None
    if runs.ndim == 3:
        cube = runs - baselines
        cube[np.abs(cube) <= TIE_TOLERANCE] = 0.0
        runs, baselines = runs.mean(axis=2), baselines.mean(axis=2)
    diffs = runs - baselines
    diffs[np.abs(diffs) <= TIE_TOLERANCE] = 0.0
    k, n = diffs.shape
    delta = diffs.mean(axis=1) if n else np.full(k, np.nan)
    sd = diffs.std(axis=1, ddof=1) if n > 1 else np.full(k, np.nan)
    wins = (diffs > 0).sum(axis=1)
    losses = (diffs < 0).sum(axis=1)
    identical = (wins + losses) == 0
    se = sd / np.sqrt(n) if n else sd
    with np.errstate(divide="ignore", invalid="ignore"):
        effect = np.where(sd > 0, delta / sd, np.nan)
        t_stat = delta / se
    level = 1 - alpha

    if test == "t":
        p = 2 * stats.t.sf(np.abs(t_stat), n - 1) if n > 1 else np.full(k, np.nan)
        p = np.where((sd == 0) & ~identical, 0.0, p)
    elif test == "wilcoxon":
        p = np.array(
            [
                np.nan if n == 0 else stats.wilcoxon(row).pvalue if row.any() else 1.0
                for row in diffs
            ]
        )
    elif test == "sign":
        p = np.minimum(1.0, 2 * stats.binom.cdf(np.minimum(wins, losses), wins + losses, 0.5))
    elif test == "permutation":
        p = _permutation_pvalues(diffs, n_resamples, seed) if n else np.full(k, np.nan)
    else:  # bootstrap
        if cube is None:
            means = bootstrap_statistic(diffs, _row_mean, n_resamples, seed)
        else:
            means = two_way_bootstrap_means(cube, n_resamples, seed)
        observed = np.abs(delta)[:, None]
        shifted = np.abs(means - delta[:, None])
        count = (shifted >= observed - 1e-9 * np.maximum(1.0, observed)).sum(axis=1)
        p = (count + 1) / (n_resamples + 1)
    p = np.where(identical, 1.0, p)

    if test == "bootstrap":
        low, high = np.quantile(means, [alpha / 2, 1 - alpha / 2], axis=1)
    elif n > 1:
        half = stats.t.ppf(0.5 + level / 2, n - 1) * se
        low, high = delta - half, delta + half
    else:
        low = high = np.full(k, np.nan)
    return {
        "delta": delta,
        "ci_low": low,
        "ci_high": high,
        "p_value": p.astype(np.float64),
        "effect_size": effect,
        "wins": wins,
        "ties": n - wins - losses,
        "losses": losses,
    }
