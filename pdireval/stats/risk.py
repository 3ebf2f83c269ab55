r"""Risk-sensitive evaluation: what a run gains and what it risks against a baseline.

A mean improvement can hide queries where the new run is much worse than the
baseline. Risk-sensitive measures weigh those losses more:

* **URisk** (Wang, Bennett & Collins-Thompson 2012; the TREC Web track 2013-14): the
  mean per-query difference to the baseline, losses counted ``1 + alpha`` times;
* **TRisk** (Dinçer, Macdonald & Ounis 2014): URisk divided by its standard error, a
  paired t statistic of the risk-weighted differences. TRisk > 2 reads as a
  significant gain, TRisk < -2 as a significant risk of harm (about the 5% level);
* **GeoRisk** (Dinçer, Macdonald & Ounis 2016): the geometric mean of a run's mean
  effectiveness and of its standardised risk against *every* run of the frame, the
  baseline among them (an observed/expected comparison as in a chi-squared test).

``alpha = 0`` is risk-neutral: URisk is then the mean difference and TRisk the paired t
statistic.

Examples
--------
>>> import pdireval
>>> from pdireval.datasets import example
>>> table = pdireval.risk(example(), "AP", baseline="medium", alpha=[0, 5])
>>> table[["run", "alpha", "wins", "losses", "urisk", "trisk"]].round(3)
      run  alpha  wins  losses  urisk   trisk
0  strong    0.0    47       2  0.303  14.127
1  strong    5.0    47       2  0.294  11.893
2    weak    0.0     0      49 -0.359 -14.939
3    weak    5.0     0      49 -2.157 -14.939
"""

from __future__ import annotations

import math
from collections.abc import Hashable, Sequence
from typing import TYPE_CHECKING, Any, Unpack

import numpy as np
import pandas as pd

from pdireval._core.errors import ParameterError, SchemaError
from pdireval._core.options import EVALUATION, takes
from pdireval.engine.runs import Matrix, matrices, stacked
from pdireval.stats.significance import TIE_TOLERANCE

if TYPE_CHECKING:
    from pdireval.typing import ColumnsLike, EvaluationOptions, MetricsLike

__all__ = ["RISK_COLUMNS", "georisk", "risk"]

#: Columns of the table returned by :func:`risk`, in order.
RISK_COLUMNS = (
    "run",
    "baseline",
    "metric",
    "alpha",
    "mean",
    "baseline_mean",
    "wins",
    "ties",
    "losses",
    "urisk",
    "trisk",
    "p_value",
    "significant",
    "georisk",
)

#: |TRisk| above this reads as significant (Dinçer et al. 2014: about the 5% level).
TRISK_THRESHOLD = 2.0


def _alphas(alpha: Any) -> list[float]:
    """The risk-aversion parameter(s): numbers >= 0, one or a sequence."""
    values = list(alpha) if isinstance(alpha, Sequence | np.ndarray) else [alpha]
    if not values:
        msg = "alpha=[] gives no risk-aversion level; pass a number >= 0 (e.g. 1) or a list"
        raise ParameterError(msg)
    for value in values:
        number = not isinstance(value, bool) and isinstance(value, int | float | np.number)
        if not number or not math.isfinite(float(value)) or float(value) < 0:
            msg = (
                f"alpha={value!r} must be a finite number >= 0 (0: risk-neutral; the TREC "
                "Web track used 1, 5 and 10)"
            )
            raise ParameterError(msg)
    return [float(value) for value in dict.fromkeys(values)]


def _weighted(differences: np.ndarray, alpha: float) -> np.ndarray:
    """Per-query differences with losses counted ``1 + alpha`` times."""
    return np.where(differences < 0, (1.0 + alpha) * differences, differences)


def urisk_trisk(differences: np.ndarray, alpha: float) -> tuple[np.ndarray, np.ndarray]:
    """URisk and TRisk of each row of ``differences`` (comparisons x queries, run - baseline).

    TRisk is 0 where every difference is 0, +-inf where the weighted differences are
    one non-zero constant, NaN with fewer than two queries.
    """
    weighted = _weighted(differences, alpha)
    k, n = weighted.shape
    if n == 0:
        return np.full(k, np.nan), np.full(k, np.nan)
    urisk = weighted.mean(axis=1)
    if n < 2:
        return urisk, np.full(k, np.nan)
    spread = weighted.std(axis=1, ddof=1)
    constant = spread <= TIE_TOLERANCE * np.maximum(1.0, np.abs(urisk))
    with np.errstate(divide="ignore", invalid="ignore"):
        trisk = np.where(constant, np.sign(urisk) * np.inf, urisk / (spread / math.sqrt(n)))
    trisk = np.where(constant & (np.abs(urisk) <= TIE_TOLERANCE), 0.0, trisk)
    return urisk, trisk


def _incomplete_beta_fraction(x: np.ndarray, a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """The continued fraction of the regularized incomplete beta function (Abramowitz &
    Stegun 26.5.8), evaluated by the modified Lentz method; converges fast for
    ``x < (a + 1) / (a + b + 2)``.
    """
    tiny = 1e-300
    c = np.ones_like(x)
    d = 1.0 - (a + b) * x / (a + 1.0)
    d = 1.0 / np.where(np.abs(d) < tiny, tiny, d)
    fraction = d.copy()
    for m in range(1, 400):
        for numerator in (
            m * (b - m) * x / ((a + 2 * m - 1) * (a + 2 * m)),
            -(a + m) * (a + b + m) * x / ((a + 2 * m) * (a + 2 * m + 1)),
        ):
            d = 1.0 + numerator * d
            d = 1.0 / np.where(np.abs(d) < tiny, tiny, d)
            c = 1.0 + numerator / c
            c = np.where(np.abs(c) < tiny, tiny, c)
            fraction *= d * c
        if np.all(np.abs(d * c - 1.0) < 1e-15):
            break
    return fraction


def _incomplete_beta(x: np.ndarray, y: np.ndarray, a: float, b: float) -> np.ndarray:
    """The regularized incomplete beta function I_x(a, b) for 0 <= x <= 1, with
    ``y = 1 - x`` given exactly (no cancellation when x is close to 1).
    """
    out = np.where(x <= 0, 0.0, 1.0)
    inside = (x > 0) & (y > 0)
    if not inside.any():
        return out
    xs, ys = x[inside], y[inside]
    flip = xs >= (a + 1.0) / (a + b + 2.0)  # there I_x(a, b) = 1 - I_(1-x)(b, a)
    x1, y1 = np.where(flip, ys, xs), np.where(flip, xs, ys)
    a1, b1 = np.where(flip, b, a), np.where(flip, a, b)
    log_beta = math.lgamma(a) + math.lgamma(b) - math.lgamma(a + b)
    front = np.exp(a1 * np.log(x1) + b1 * np.log(y1) - log_beta) / a1
    value = front * _incomplete_beta_fraction(x1, a1, b1)
    out[inside] = np.where(flip, 1.0 - value, value)
    return out


def trisk_p_values(trisk: np.ndarray, queries: int) -> np.ndarray:
    """Two-sided p-values of TRisk values read as Student t statistics with
    ``queries - 1`` degrees of freedom (Dinçer, Macdonald & Ounis 2014); NaN with fewer
    than two queries.

    Examples
    --------
    >>> trisk_p_values(np.array([0.0, 2.0, np.inf]), 31).round(4)
    array([1.    , 0.0546, 0.    ])
    """
    trisk = np.asarray(trisk, dtype=np.float64)
    if queries < 2:
        return np.full(trisk.shape, np.nan)
    df = float(queries - 1)
    square = np.where(np.isnan(trisk), 0.0, trisk * trisk)
    finite = np.isfinite(square)
    x = np.where(finite, df / (df + np.where(finite, square, 0.0)), 0.0)
    y = np.where(finite, square / (df + np.where(finite, square, 0.0)), 1.0)
    p = _incomplete_beta(x, y, df / 2.0, 0.5)
    return np.where(np.isnan(trisk), np.nan, p)


def _standard_normal_cdf(x: np.ndarray) -> np.ndarray:
    return np.array([0.5 * math.erfc(-value / math.sqrt(2.0)) for value in x], dtype=np.float64)


def georisk_values(values: np.ndarray, alpha: float) -> np.ndarray:
    r"""GeoRisk of every run (column) of a query x run matrix of non-negative values.

    With :math:`x_{ij}` the value of run i on query j, :math:`S_i = \sum_j x_{ij}`,
    :math:`T_j = \sum_i x_{ij}`, :math:`N = \sum_{ij} x_{ij}` and :math:`c` queries:
    :math:`e_{ij} = S_i T_j / N`, :math:`z_{ij} = (x_{ij} - e_{ij}) / \sqrt{e_{ij}}`
    (0 where :math:`e_{ij} = 0`), ZRisk the sum of the :math:`z_{ij}` with the negative
    ones counted :math:`1 + \alpha` times, and
    :math:`\mathrm{GeoRisk}_i = \sqrt{S_i / c \cdot \Phi(\mathrm{ZRisk}_i / c)}`.
    """
    n = values.shape[0]
    if n == 0:
        return np.full(values.shape[1], np.nan)
    run_sums = values.sum(axis=0)
    query_sums = values.sum(axis=1)
    total = run_sums.sum()
    if total <= 0:
        return np.zeros(values.shape[1])
    expected = np.outer(query_sums, run_sums) / total
    z = np.zeros_like(values)
    positive = expected > 0
    z[positive] = (values[positive] - expected[positive]) / np.sqrt(expected[positive])
    zrisk = _weighted(z, alpha).sum(axis=0)
    return np.sqrt(run_sums / n * _standard_normal_cdf(zrisk / n))


def _refuse_negative(matrix: Matrix) -> None:
    if (matrix.values < 0).any():
        lowest = float(matrix.values.min())
        msg = (
            f"GeoRisk needs non-negative values, but {matrix.metric} takes values down to "
            f"{lowest:g}; use a measure bounded below by 0 (AP, nDCG, P@k, ...)"
        )
        raise SchemaError(msg)


def _baseline_of(matrix: Matrix, baseline: Any) -> Hashable:
    if baseline is None or isinstance(baseline, list | tuple):
        msg = f"baseline={baseline!r} must name one run of the frame; its runs are {matrix.runs}"
        raise SchemaError(msg)
    if baseline not in matrix.runs:
        msg = f"baseline run {baseline!r} not found in the frame; its runs are {matrix.runs}"
        raise SchemaError(msg)
    return baseline


def _risk_block(matrix: Matrix, baseline: Hashable, alphas: list[float]) -> pd.DataFrame:
    """The rows of one metric: every other run, every alpha."""
    position = matrix.runs.index(baseline)
    others = [run for run in matrix.runs if run != baseline]
    base = matrix.values[:, position]
    runs = np.delete(matrix.values, position, axis=1).T  # runs x queries
    differences = runs - base
    differences[np.abs(differences) <= TIE_TOLERANCE] = 0.0
    wins, losses = (differences > 0).sum(axis=1), (differences < 0).sum(axis=1)
    _refuse_negative(matrix)
    rows = []
    for alpha in alphas:
        urisk, trisk = urisk_trisk(differences, alpha)
        geo = georisk_values(matrix.values, alpha)
        rows.append(
            pd.DataFrame(
                {
                    "run": others,
                    "baseline": [baseline] * len(others),
                    "metric": matrix.metric,
                    "alpha": alpha,
                    "mean": runs.mean(axis=1),
                    "baseline_mean": base.mean(),
                    "wins": wins.astype(np.int64),
                    "ties": (differences.shape[1] - wins - losses).astype(np.int64),
                    "losses": losses.astype(np.int64),
                    "urisk": urisk,
                    "trisk": trisk,
                    "p_value": trisk_p_values(trisk, differences.shape[1]),
                    "significant": np.abs(trisk) > TRISK_THRESHOLD,
                    "georisk": np.delete(geo, position),
                }
            )
        )
    block = pd.concat(rows, ignore_index=True)
    order = {run: i for i, run in enumerate(others)}
    block["_run"] = block["run"].map(order)
    return block.sort_values(["_run"], kind="stable").drop(columns="_run")


@takes(EVALUATION)
def risk(
    frame: pd.DataFrame,
    metrics: MetricsLike,
    *,
    baseline: Hashable,
    alpha: float | Sequence[float] = 1.0,
    columns: ColumnsLike = None,
    **options: Unpack[EvaluationOptions],
) -> pd.DataFrame:
    r"""URisk, TRisk and GeoRisk of every run against a baseline run.

    Parameters
    ----------
    frame : DataFrame
        Long frame with a run column holding at least two runs (as for
        :func:`pdireval.evaluate`).
    metrics : str, Metric or list of them
        The measure(s) whose per-query values are compared.
    baseline : run id
        The run every other run is compared with.
    alpha : float or list of floats
        Risk aversion, >= 0: a loss counts ``1 + alpha`` times as much as a win of the
        same size (default 1). A list gives one row per value.
    columns : ColumnMap or dict, optional
        Which column plays which role.
    **options
        Evaluation options (``queries``, ``ties``, ``max_rank``, ``judged_only``, ...).

    Returns
    -------
    DataFrame
        One row per (run, metric, alpha), runs in the frame's order; columns ``run``,
        ``baseline``, ``metric``, ``alpha``, ``mean``, ``baseline_mean``,
        ``wins``/``ties``/``losses`` (queries above / equal to / below the baseline),
        ``urisk``, ``trisk``, ``p_value`` (two-sided, TRisk read as a Student t
        statistic with c - 1 degrees of freedom), ``significant`` (``|trisk| > 2``, the
        paper's reading at about the 5% level: a gain when TRisk is positive, a risk of
        harm when negative) and ``georisk`` (higher is better).

    Raises
    ------
    SchemaError
        No run column or a single run, a baseline that is not a run of the frame, a
        query some runs lack, or (GeoRisk) a measure with negative values.
    MetricError
        ``alpha`` negative, not finite or not a number.

    Notes
    -----
    With :math:`\Delta_j = r_j - b_j` the difference of the run to the baseline on
    query j of c queries, :math:`\delta_j = \Delta_j` for a win or tie and
    :math:`(1 + \alpha) \Delta_j` for a loss:

    .. math:: \mathrm{URisk} = \frac{1}{c} \sum_j \delta_j, \qquad
              \mathrm{TRisk} = \frac{\mathrm{URisk}}{s_\delta / \sqrt{c}}

    with :math:`s_\delta` the sample standard deviation of the :math:`\delta_j`
    (divisor c - 1), so that TRisk at ``alpha=0`` is the paired t statistic
    (``scipy.stats.ttest_rel``). Dinçer et al. (2014) read TRisk inferentially: under
    the hypothesis that the run risks nothing against the baseline it follows Student's
    t distribution with c - 1 degrees of freedom, which gives ``p_value`` (two-sided;
    at ``alpha=0`` that of the paired t-test). TRisk is 0 where the runs agree on every query and
    +-inf where the weighted differences are one non-zero constant. Differences within
    1e-12 of 0 count as ties.

    GeoRisk compares every run with all runs of the frame (the baseline is one of
    them): with :math:`x_{ij}` run i's value on query j, :math:`S_i` its sum over the
    queries, :math:`T_j` the sum of query j over the runs and N the sum of all,
    :math:`e_{ij} = S_i T_j / N` is the value expected if the runs differed only in
    overall effectiveness, :math:`z_{ij} = (x_{ij} - e_{ij}) / \sqrt{e_{ij}}`,
    ZRisk sums the :math:`z_{ij}`, negative ones counted :math:`1 + \alpha` times, and

    .. math:: \mathrm{GeoRisk}_i = \sqrt{\frac{S_i}{c}\,
              \Phi\!\left(\frac{\mathrm{ZRisk}_i}{c}\right)}

    (:math:`\Phi` the standard normal distribution function; :math:`z_{ij} = 0` where
    :math:`e_{ij} = 0`). It changes when runs are added to or removed from the frame.

    References
    ----------
    L. Wang, P. N. Bennett, K. Collins-Thompson (2012), Robust ranking models via
    risk-sensitive optimization, SIGIR. B. T. Dinçer, C. Macdonald, I. Ounis (2014),
    Hypothesis testing for the risk-sensitive evaluation of retrieval systems, SIGIR.
    B. T. Dinçer, C. Macdonald, I. Ounis (2016), Risk-sensitive evaluation and learning
    to rank using multiple baselines, SIGIR.

    Examples
    --------
    >>> import pdireval
    >>> from pdireval.datasets import toy
    >>> table = pdireval.risk(toy(), ["AP", "P@5"], baseline="system1", alpha=1)
    >>> table[["run", "metric", "wins", "losses", "urisk", "trisk"]].round(4)
           run metric  wins  losses   urisk   trisk
    0  system2     AP     0       2 -0.3554 -2.3345
    1  system2    P@5     1       1 -0.3000 -0.6000
    """
    alphas = _alphas(alpha)
    parts = [
        (matrix.block, _risk_block(matrix, _baseline_of(matrix, baseline), alphas))
        for matrix in matrices(frame, metrics, columns, options, "risk")
    ]
    return stacked(parts, RISK_COLUMNS, by=["run"])


@takes(EVALUATION)
def georisk(
    frame: pd.DataFrame,
    metrics: MetricsLike,
    *,
    alpha: float = 1.0,
    columns: ColumnsLike = None,
    **options: Unpack[EvaluationOptions],
) -> pd.DataFrame:
    r"""GeoRisk of every run of the frame, measured against all of them.

    Parameters
    ----------
    frame, metrics, columns, **options
        As in :func:`risk`.
    alpha : float
        Risk aversion, >= 0 (default 1).

    Returns
    -------
    DataFrame
        Index run (the frame's runs), one column per metric (``columns.name ==
        "metric"``); higher is better.

    Raises
    ------
    SchemaError
        As in :func:`risk`.

    Notes
    -----
    The definition is in :func:`risk`. At ``alpha=0`` and with identical runs GeoRisk
    is :math:`\sqrt{\bar{x}/2}`, the mean value weighted by :math:`\Phi(0) = 1/2`.

    References
    ----------
    B. T. Dinçer, C. Macdonald, I. Ounis (2016), Risk-sensitive evaluation and learning
    to rank using multiple baselines, SIGIR.

    Examples
    --------
    >>> import pdireval
    >>> from pdireval.datasets import example
    >>> pdireval.georisk(example(), ["AP", "nDCG@10"], alpha=5).round(4)
    metric      AP  nDCG@10
    run
    strong  0.5985   0.6130
    medium  0.4895   0.5465
    weak    0.2435   0.2459
    """
    (level,) = _alphas([alpha])
    values: dict[tuple, dict[str, np.ndarray]] = {}
    runs: list[Hashable] = []
    names: list[Hashable] = []
    for matrix in matrices(frame, metrics, columns, options, "georisk"):
        _refuse_negative(matrix)
        runs, names = matrix.runs, [name for name, _ in matrix.block.key]
        key = tuple(value for _, value in matrix.block.key)
        values.setdefault(key, {})[matrix.metric] = georisk_values(matrix.values, level)
    parts = {
        key: pd.DataFrame(columns, index=pd.Index(runs, name="run"))
        for key, columns in values.items()
    }
    out = parts[()] if not names else pd.concat(parts, names=[*names, "run"])
    out.columns.name = "metric"
    return out
