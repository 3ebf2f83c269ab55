r"""All pairs of runs at once: the randomised Tukey HSD test and letter groups.

Comparing every pair of m runs with a paired test makes m (m - 1) / 2 tests, and some
of them come out significant by chance. Carterette's randomised version of Tukey's
honestly significant difference test controls the family-wise error of all pairs at
once: within each query the runs' values are shuffled among the runs (under the null
hypothesis that the runs do not differ, any assignment is as likely), and a pair's
difference of means is compared with the largest difference of means among *all* runs
of each shuffle.

:func:`letter_groups` turns the pairs into the letters papers print: a compact letter
display (runs sharing a letter do not differ significantly) and, as ranx prints them,
the labels of the runs each run beats.

Examples
--------
>>> import pdireval
>>> from pdireval.datasets import example
>>> pairs = pdireval.tukey_hsd(example(), "AP", n_resamples=2000, seed=1)
>>> pairs[["run", "baseline", "delta", "p_value", "significant"]].round(4)
      run baseline   delta  p_value  significant
0  medium   strong -0.3025   0.0005         True
1    weak   strong -0.6620   0.0005         True
2    weak   medium -0.3595   0.0005         True
"""

from __future__ import annotations

from collections.abc import Hashable, Iterator
from typing import TYPE_CHECKING, Any, Unpack

import numpy as np
import pandas as pd

from pdireval._core.errors import SchemaError
from pdireval._core.options import EVALUATION, level, resamples, takes
from pdireval.engine.runs import matrices, seed_sequence, stacked

if TYPE_CHECKING:
    from pdireval.typing import ColumnsLike, EvaluationOptions, MetricsLike

__all__ = ["TUKEY_COLUMNS", "letter_groups", "tukey_hsd"]

#: Columns of the table returned by :func:`tukey_hsd`, in order.
TUKEY_COLUMNS = (
    "run",
    "baseline",
    "metric",
    "mean",
    "baseline_mean",
    "delta",
    "p_value",
    "significant",
)

#: Resampling works in blocks of about this many matrix elements (resamples x queries x runs).
BLOCK_ELEMENTS = 1 << 21


def _blocks(n_resamples: int, cells: int) -> Iterator[int]:
    size = max(1, BLOCK_ELEMENTS // max(cells, 1))
    for start in range(0, n_resamples, size):
        yield min(size, n_resamples - start)


def largest_differences(values: np.ndarray, n_resamples: int, rng: np.random.Generator):
    """For each resample, the largest difference of run means after shuffling every query's
    values among the runs (``values`` is queries x runs).

    A shuffle of query j in resample b orders the runs by ``rng.random`` keys drawn as
    one (resamples x queries x runs) array, block by block.
    """
    n, m = values.shape
    out = np.empty(n_resamples)
    rows = np.arange(n)[None, :, None]
    done = 0
    for size in _blocks(n_resamples, n * m):
        order = np.argsort(rng.random((size, n, m)), axis=2)
        means = values[rows, order].mean(axis=1)  # size x runs
        out[done : done + size] = means.max(axis=1) - means.min(axis=1)
        done += size
    return out


def tukey_pvalues(
    values: np.ndarray, pairs: list[tuple[int, int]], n_resamples: int, rng: np.random.Generator
) -> np.ndarray:
    """Randomised Tukey HSD p-values of ``pairs`` (column indices) of a queries x runs matrix."""
    means = values.mean(axis=0)
    observed = np.array([abs(means[i] - means[j]) for i, j in pairs])
    ranges = np.sort(largest_differences(values, n_resamples, rng))
    slack = 1e-9 * np.maximum(1.0, observed)
    at_least = n_resamples - np.searchsorted(ranges, observed - slack, side="left")
    return (at_least + 1) / (n_resamples + 1)


@takes(EVALUATION)
def tukey_hsd(
    frame: pd.DataFrame,
    metrics: MetricsLike,
    *,
    n_resamples: int = 10_000,
    seed: int | np.random.SeedSequence | None = None,
    alpha: float = 0.05,
    columns: ColumnsLike = None,
    **options: Unpack[EvaluationOptions],
) -> pd.DataFrame:
    r"""Randomised Tukey HSD test of every pair of runs (family-wise error controlled).

    Parameters
    ----------
    frame : DataFrame
        Long frame with a run column holding at least two runs.
    metrics : str, Metric or list of them
        The measure(s) compared; each is tested on its own.
    n_resamples : int
        Shuffles of the values among the runs (default 10,000).
    seed : int, numpy SeedSequence or None
        Seed of the shuffles; every measure uses the same shuffles.
    alpha : float
        A pair is ``significant`` when ``p_value < alpha``.
    columns : ColumnMap or dict, optional
        Which column plays which role.
    **options
        Evaluation options (``queries``, ``ties``, ``max_rank``, ``judged_only``, ...).

    Returns
    -------
    DataFrame
        One row per (pair, metric), pairs as in :func:`pdireval.compare` with
        ``baseline=None`` (the run that comes first in the frame is the baseline of its
        pair); columns ``run``, ``baseline``, ``metric``, ``mean``, ``baseline_mean``,
        ``delta`` (``mean - baseline_mean``), ``p_value`` (already adjusted for all the
        pairs of the metric: do not correct it again) and ``significant``.

    Raises
    ------
    SchemaError
        No run column or a single run, or a query some runs lack.
    MetricError
        ``n_resamples``, ``alpha`` or ``seed`` out of range.

    Notes
    -----
    With :math:`\bar{x}_i` the mean of run i over the c queries, each resample b
    shuffles the m values of every query among the runs independently and records
    :math:`q_b = \max_i \bar{x}^{(b)}_i - \min_i \bar{x}^{(b)}_i`. The p-value of the
    pair (i, k) is :math:`(1 + \#\{b : q_b \ge |\bar{x}_i - \bar{x}_k|\}) / (B + 1)`
    (never 0; 1 for identical runs). Shuffling the raw values within a query equals
    shuffling the residuals of a two-way (query, run) model, since the query effect is
    the same for every run. With two runs the test is the paired randomisation test.

    Unlike ``scipy.stats.tukey_hsd`` (the classical test, which ranx uses), it is
    paired over queries and assumes no distribution of the values.

    References
    ----------
    B. Carterette (2012), Multiple testing in statistical analysis of systems-based
    information retrieval experiments, ACM TOIS 30(1). J. W. Tukey (1949), Comparing
    individual means in the analysis of variance, Biometrics.

    Examples
    --------
    >>> import pdireval
    >>> from pdireval.datasets import toy
    >>> pairs = pdireval.tukey_hsd(toy(), ["AP", "P@5"], n_resamples=999, seed=7)
    >>> pairs[["run", "baseline", "metric", "delta", "p_value"]].round(4)  # 2 queries: 4 shuffles
           run baseline metric   delta  p_value
    0  system2  system1     AP -0.1777      0.5
    1  system2  system1    P@5 -0.1000      1.0
    """
    n_resamples = resamples(n_resamples)
    threshold = level("alpha", alpha)
    sequence = seed_sequence(seed)
    parts = []
    for matrix in matrices(frame, metrics, columns, options, "tukey_hsd"):
        m = len(matrix.runs)
        pairs = [(j, i) for i in range(m) for j in range(i + 1, m)]
        p = tukey_pvalues(matrix.values, pairs, n_resamples, np.random.default_rng(sequence))
        means = matrix.values.mean(axis=0)
        mean = np.array([means[j] for j, _ in pairs])
        baseline_mean = np.array([means[i] for _, i in pairs])
        found = pd.DataFrame(
            {
                "run": [matrix.runs[j] for j, _ in pairs],
                "baseline": [matrix.runs[i] for _, i in pairs],
                "metric": matrix.metric,
                "mean": mean,
                "baseline_mean": baseline_mean,
                "delta": mean - baseline_mean,
                "p_value": p,
                "significant": p < threshold,
            }
        )
        parts.append((matrix.block, found))
    return stacked(parts, TUKEY_COLUMNS, by=["run", "baseline"])


# --------------------------------------------------------------------------- letter groups


def compact_letters(order: list[Hashable], different: set[frozenset]) -> dict[Hashable, str]:
    """Piepho's insert-and-absorb compact letter display.

    ``order`` lists the runs best first; ``different`` holds the significantly
    different pairs. Runs sharing a letter are never significantly different, and every
    pair that is not significantly different shares a letter.
    """
    columns: list[frozenset] = [frozenset(order)]
    for pair in different:
        first, second = tuple(pair)
        split: list[frozenset] = []
        for column in columns:
            if first in column and second in column:
                split += [column - {first}, column - {second}]
            else:
                split.append(column)
        columns = [c for c in dict.fromkeys(split) if not any(c < other for other in split)]
    rank = {run: i for i, run in enumerate(order)}
    columns.sort(key=lambda column: sorted(rank[run] for run in column))
    letters = _letters(len(columns))
    return {
        run: "".join(
            letter for letter, column in zip(letters, columns, strict=True) if run in column
        )
        for run in order
    }


def _letters(count: int) -> list[str]:
    """a, b, ..., z, then aa, ab, ...: as many labels as asked."""
    alphabet = "abcdefghijklmnopqrstuvwxyz"
    out: list[str] = []
    width = 1
    while len(out) < count:
        for index in range(len(alphabet) ** width):
            label = ""
            for _ in range(width):
                index, digit = divmod(index, len(alphabet))
                label = alphabet[digit] + label
            out.append(label)
            if len(out) == count:
                break
        width += 1
    return out


_PAIR_COLUMNS = ("run", "baseline", "metric", "mean", "baseline_mean", "significant")


def letter_groups(pairs: pd.DataFrame) -> pd.DataFrame:
    """Letters for a table of all pairs: a compact letter display and ranx's superscripts.

    Parameters
    ----------
    pairs : DataFrame
        All pairs of runs, with columns ``run``, ``baseline``, ``metric``, ``mean``,
        ``baseline_mean`` and ``significant``: what :func:`tukey_hsd` returns, or
        :func:`pdireval.compare` with ``baseline=None``.

    Returns
    -------
    DataFrame
        Index (metric, run), runs by their order in ``pairs``; columns ``mean``,
        ``label`` (a, b, c, ... by that order), ``group`` (compact letter display:
        two runs that share a letter are not significantly different, and every pair
        that is not significantly different shares one; ``a`` goes to the best run) and
        ``beats`` (the labels of the runs this run is significantly better than -- the
        superscripts ranx prints next to a score).

    Raises
    ------
    SchemaError
        A column is missing, or a pair of runs is missing for a metric.

    References
    ----------
    H.-P. Piepho (2004), An algorithm for a letter-based representation of all-pairwise
    comparisons, Journal of Computational and Graphical Statistics 13(2).

    Examples
    --------
    >>> import pdireval
    >>> from pdireval.datasets import example
    >>> pairs = pdireval.tukey_hsd(example(), ["AP", "P@10"], n_resamples=2000, seed=1)
    >>> pdireval.letter_groups(pairs).round(4)
                     mean label group beats
    metric run
    AP     strong  0.8781     a     a    bc
           medium  0.5756     b     b     c
           weak    0.2161     c     c
    P@10   strong  0.7520     a     a    bc
           medium  0.5520     b     b     c
           weak    0.3000     c     c
    """
    missing = [column for column in _PAIR_COLUMNS if column not in pairs.columns]
    if missing:
        msg = (
            f"letter_groups needs a table of pairs with columns {list(_PAIR_COLUMNS)}; "
            f"{missing} are missing (pass what pdireval.tukey_hsd returns)"
        )
        raise SchemaError(msg)
    blocks = []
    for metric, block in pairs.groupby("metric", sort=False):
        blocks.append(_letters_of(metric, block))
    return pd.concat(blocks)


def _letters_of(metric: Any, block: pd.DataFrame) -> pd.DataFrame:
    """The mean, label, letter group and beaten runs of each run of one metric's pairs."""
    means = _run_means(block)  # runs in the order of the pairs, baseline first
    order = list(means)
    _refuse_missing_pairs(metric, order, block)
    different = _different_pairs(block)
    best_first = sorted(order, key=lambda run: -means[run])
    groups = compact_letters(best_first, different)
    labels = dict(zip(order, _letters(len(order)), strict=True))
    beats = _beaten_labels(order, means, different, labels)
    return pd.DataFrame(
        {
            "mean": [means[run] for run in order],
            "label": [labels[run] for run in order],
            "group": [groups[run] for run in order],
            "beats": [beats[run] for run in order],
        },
        index=pd.MultiIndex.from_arrays([[metric] * len(order), order], names=["metric", "run"]),
    )


def _run_means(block: pd.DataFrame) -> dict[Hashable, float]:
    """Each run's mean in a table of pairs of one metric, the runs in the order of the
    pairs (of each pair, the baseline first).
    """
    means: dict[Hashable, float] = {}
    for run, baseline, mean, baseline_mean in zip(
        block["run"], block["baseline"], block["mean"], block["baseline_mean"], strict=True
    ):
        means.setdefault(baseline, float(baseline_mean))
        means.setdefault(run, float(mean))
    return means


def _refuse_missing_pairs(metric: Any, order: list[Hashable], block: pd.DataFrame) -> None:
    """Refuse a table of pairs of one metric that lacks a pair of its runs."""
    seen = {frozenset(pair) for pair in zip(block["run"], block["baseline"], strict=True)}
    absent = [
        (a, b) for i, a in enumerate(order) for b in order[i + 1 :] if frozenset((a, b)) not in seen
    ]
    if absent:
        msg = (
            f"letter_groups needs every pair of runs; for {metric!r} the pairs {absent[:5]} "
            "are missing (compare with baseline=None, or use pdireval.tukey_hsd)"
        )
        raise SchemaError(msg)


def _different_pairs(block: pd.DataFrame) -> set[frozenset]:
    """The pairs of runs that differ significantly, each as a set of two runs."""
    significant = block["significant"].astype(bool).to_numpy()
    return {
        frozenset(pair)
        for pair, yes in zip(
            zip(block["run"], block["baseline"], strict=True), significant, strict=True
        )
        if yes
    }


def _beaten_labels(
    order: list[Hashable],
    means: dict[Hashable, float],
    different: set[frozenset],
    labels: dict[Hashable, str],
) -> dict[Hashable, str]:
    """For each run, the labels of the runs it is significantly better than."""
    return {
        run: "".join(
            labels[other]
            for other in order
            if frozenset((run, other)) in different and means[run] > means[other]
        )
        for run in order
    }
