"""Private statistics kernels: paired tests, p-value corrections and confidence intervals.

Everything works on numpy arrays of per-query values that are already aligned (one row
per comparison, one column per query). scipy supplies the test distributions and is
imported only inside the functions that need it.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

import numpy as np

from pdireval._core.optional import optional
from pdireval._core.options import Significance
from pdireval._core.registry import Registry

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


def _bonferroni(ordered: np.ndarray, m: int) -> np.ndarray:
    return np.minimum(1.0, ordered * m)


def _holm(ordered: np.ndarray, m: int) -> np.ndarray:
    i = np.arange(1, m + 1)
    return np.minimum(1.0, np.maximum.accumulate((m - i + 1) * ordered))


def _fdr_bh(ordered: np.ndarray, m: int) -> np.ndarray:
    i = np.arange(1, m + 1)
    return np.minimum(1.0, np.minimum.accumulate((m / i * ordered)[::-1])[::-1])


#: The multiple-comparison corrections: each adjusts the sorted p-values of m tests.
CORRECTIONS: Registry[Callable[[np.ndarray, int], np.ndarray]] = Registry(
    "correction", "correction"
)
CORRECTIONS.add("holm", _holm, doc="Holm's correction")
CORRECTIONS.add("bonferroni", _bonferroni, doc="Bonferroni correction")
CORRECTIONS.add("fdr_bh", _fdr_bh, doc="Benjamini-Hochberg correction")


def adjust_pvalues(p_values: np.ndarray, correction: str | None) -> np.ndarray:
    """Adjust p-values for multiple comparisons (NaN values are kept and not counted)."""
    raw = np.asarray(p_values, dtype=np.float64)
    out = raw.copy()
    if correction is None:
        return out
    adjust = CORRECTIONS[correction]
    finite = ~np.isnan(raw)
    p = raw[finite]
    if p.size == 0:
        return out
    order = np.argsort(p, kind="stable")
    adjusted = np.empty(p.size)
    adjusted[order] = adjust(p[order], p.size)
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


@dataclass(frozen=True)
class _Paired:
    """What a test reads: the per-query differences (k x n; with seeds, ``cube`` k x n x
    s), their means, standard deviations, wins and losses, and the settings.
    """

    diffs: np.ndarray
    cube: np.ndarray | None
    delta: np.ndarray
    sd: np.ndarray
    wins: np.ndarray
    losses: np.ndarray
    significance: Significance

    @property
    def n(self) -> int:
        return int(self.diffs.shape[1])

    def bootstrap_means(self) -> np.ndarray:
        """The bootstrap distribution of each comparison's mean difference (k x B)."""
        settings = self.significance
        if self.cube is None:
            return bootstrap_statistic(self.diffs, _row_mean, settings.n_resamples, settings.seed)
        return two_way_bootstrap_means(self.cube, settings.n_resamples, settings.seed)


def _t_test(paired: _Paired, stats: Any) -> np.ndarray:
    n, k = paired.n, len(paired.delta)
    if n < 2:
        return np.full(k, np.nan)
    with np.errstate(divide="ignore", invalid="ignore"):
        t_stat = paired.delta / (paired.sd / np.sqrt(n))
    p = 2 * stats.t.sf(np.abs(t_stat), n - 1)
    return np.where((paired.sd == 0) & (paired.wins + paired.losses > 0), 0.0, p)


def _wilcoxon(paired: _Paired, stats: Any) -> np.ndarray:
    return np.array(
        [
            np.nan if paired.n == 0 else stats.wilcoxon(row).pvalue if row.any() else 1.0
            for row in paired.diffs
        ]
    )


def _sign(paired: _Paired, stats: Any) -> np.ndarray:
    smaller = np.minimum(paired.wins, paired.losses)
    return np.minimum(1.0, 2 * stats.binom.cdf(smaller, paired.wins + paired.losses, 0.5))


def _permutation(paired: _Paired, stats: Any) -> np.ndarray:
    if not paired.n:
        return np.full(len(paired.delta), np.nan)
    settings = paired.significance
    return _permutation_pvalues(paired.diffs, settings.n_resamples, settings.seed)


def _bootstrap(paired: _Paired, stats: Any) -> np.ndarray:
    means = paired.bootstrap_means()
    observed = np.abs(paired.delta)[:, None]
    shifted = np.abs(means - paired.delta[:, None])
    count = (shifted >= observed - 1e-9 * np.maximum(1.0, observed)).sum(axis=1)
    return np.asarray((count + 1) / (paired.significance.n_resamples + 1))


#: The paired tests: each gives the two-sided p-value of every comparison.
TESTS: Registry[Callable[[_Paired, Any], np.ndarray]] = Registry("paired test", "test")
TESTS.add("t", _t_test, doc="paired t-test")
TESTS.add("wilcoxon", _wilcoxon, doc="Wilcoxon signed-rank test")
TESTS.add("sign", _sign, doc="sign test")
TESTS.add("permutation", _permutation, doc="paired randomisation test")
TESTS.add("bootstrap", _bootstrap, doc="paired bootstrap test")


def _interval(paired: _Paired, stats: Any) -> tuple[np.ndarray, np.ndarray]:
    """The interval of each mean difference: the bootstrap's percentiles, else Student's t."""
    alpha, n, k = paired.significance.alpha, paired.n, len(paired.delta)
    if paired.significance.test == "bootstrap":
        low, high = np.quantile(paired.bootstrap_means(), [alpha / 2, 1 - alpha / 2], axis=1)
        return low, high
    if n < 2:
        return np.full(k, np.nan), np.full(k, np.nan)
    half = stats.t.ppf(1 - alpha / 2, n - 1) * paired.sd / np.sqrt(n)
    return paired.delta - half, paired.delta + half


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
    stats = scipy_stats()
    cube = None
    if runs.ndim == 3:
        cube = runs - baselines
        cube[np.abs(cube) <= TIE_TOLERANCE] = 0.0
        runs, baselines = runs.mean(axis=2), baselines.mean(axis=2)
    diffs = runs - baselines
    diffs[np.abs(diffs) <= TIE_TOLERANCE] = 0.0
    k, n = diffs.shape
    paired = _Paired(
        diffs=diffs,
        cube=cube,
        delta=diffs.mean(axis=1) if n else np.full(k, np.nan),
        sd=diffs.std(axis=1, ddof=1) if n > 1 else np.full(k, np.nan),
        wins=(diffs > 0).sum(axis=1),
        losses=(diffs < 0).sum(axis=1),
        significance=significance,
    )
    identical = (paired.wins + paired.losses) == 0
    p = np.where(identical, 1.0, TESTS[significance.test](paired, stats))
    low, high = _interval(paired, stats)
    with np.errstate(divide="ignore", invalid="ignore"):
        effect = np.where(paired.sd > 0, paired.delta / paired.sd, np.nan)
    return {
        "delta": paired.delta,
        "ci_low": low,
        "ci_high": high,
        "p_value": p.astype(np.float64),
        "effect_size": effect,
        "wins": paired.wins,
        "ties": n - paired.wins - paired.losses,
        "losses": paired.losses,
    }
