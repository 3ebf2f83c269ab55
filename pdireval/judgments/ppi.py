"""Prediction-powered inference: the mean of a metric from many LLM labels and a few
human ones, with an interval that stays valid however biased the LLM judge is.

An LLM judge labels every query of a collection; human assessors ("gold") label a
random sample of them. The mean of a metric under the LLM's labels is precise but may be
biased; the mean under the gold labels alone is unbiased but wide. Prediction-powered
inference (PPI; Angelopoulos, Bates, Fannjiang, Jordan & Zrnic, Science 2023) corrects
the LLM's mean by the LLM's error measured on the gold sample, and its power-tuned form
PPI++ (Angelopoulos, Duchi & Zrnic 2024) weighs the LLM's labels by how much they help:

    theta = lam * mean(Yhat_unlabelled) + mean(Y - lam * Yhat)

with ``Y`` the metric under gold labels on the gold queries, ``Yhat`` the metric under
LLM labels on those queries and ``Yhat_unlabelled`` under LLM labels on the other queries
of the run. The functions here compute the numbers of ppi-python's ``ppi_mean_pointestimate``
and ``ppi_mean_ci`` on those values, for every run and metric of a call at once.
"""

from __future__ import annotations

import math
from collections.abc import Hashable
from dataclasses import dataclass
from statistics import NormalDist
from typing import Any, cast

import numpy as np
import pandas as pd

from pdireval._core.errors import ParameterError, SchemaError
from pdireval._core.options import EVALUATION, Evaluation, check, excluding, level, takes
from pdireval._core.roles import resolve
from pdireval.typing import ColumnsLike, MetricsLike

__all__ = ["PPI_COLUMNS", "ppi"]

#: Columns of the table :func:`ppi` returns without ``baseline=``, in order.
PPI_COLUMNS = (
    "run",
    "metric",
    "estimate",
    "ci_low",
    "ci_high",
    "lam",
    "n_gold",
    "n_unlabelled",
    "classic_estimate",
    "classic_ci_low",
    "classic_ci_high",
    "llm_estimate",
)
#: Columns added with ``baseline=`` (after ``ci_high``), and the ``baseline`` column.
_TEST_COLUMNS = ("p_value", "p_adjusted", "significant")

#: The names the two sets of labels get as judges of one evaluation.
_LLM, _GOLD = "llm", "gold"
_SHOWN = 5  # query ids named in a message


# --------------------------------------------------------------------------- both judges


@dataclass(frozen=True)
class TwoJudges:
    """The per-query values of a frame under the LLM's and the gold labels.

    ``llm`` and ``gold`` are indexed by (run, query) -- run ``None`` for a frame without
    a run column -- one column per metric label; ``runs`` in the user's order;
    ``queries`` the query ids of the run frame (to tell a gold query the run lacks from
    one the LLM did not judge); ``has_runs`` whether the frame has a run column.
    """

    llm: pd.DataFrame
    gold: pd.DataFrame
    runs: list[Hashable]
    queries: pd.Index
    has_runs: bool


def _refuse_judge_column(frame: Any, name: str) -> None:
    if isinstance(frame, pd.DataFrame) and "judge" in frame.columns:
        values = list(pd.unique(frame["judge"].dropna()))[:_SHOWN]
        msg = (
            f"{name}= has a 'judge' column (judges {values}); it takes the labels of one "
            f"judge: select them first, e.g. {name}[{name}['judge'] == {values[0]!r}]"
            if values
            else f"{name}= has an empty 'judge' column; drop it"
        )
        raise SchemaError(msg)


def two_judges(
    run: pd.DataFrame,
    metrics: MetricsLike,
    qrels: pd.DataFrame,
    gold: pd.DataFrame,
    columns: ColumnsLike,
    options: dict[str, Any],
    action: str,
) -> TwoJudges:
    """Evaluate ``run`` once under both sets of labels (as two judges of one call)."""
    from pdireval.engine.evaluate import per_part
    from pdireval.engine.runs import Evaluated, in_order, run_order
    from pdireval.metrics import parse_metrics

    for name, frame in (("qrels", qrels), ("gold", gold)):
        if not isinstance(frame, pd.DataFrame):
            msg = f"{name}= must be a pandas DataFrame of judgments, got {type(frame).__name__}"
            raise ParameterError(msg)
        _refuse_judge_column(frame, name)
    evaluation = Evaluation.from_options({**options, "qrels": {_LLM: qrels, _GOLD: gold}})
    roles = resolve(run, columns)
    table, levels = per_part(run, parse_metrics(metrics), roles, evaluation)
    found = Evaluated(table, levels, [])
    for role in ("collection", "seed"):
        found.refuse_more_than_one(role, action)
    extra = [name for name in (levels.collection, levels.seed) if name is not None]
    if extra:
        table = table.droplevel(extra)
    has_runs = levels.run is not None
    if not has_runs:
        table = pd.concat({None: table}, names=["run"])
    judge = 1  # the judge level, after the run level
    present = set(table.index.get_level_values(judge))
    empty = table.iloc[:0].droplevel(judge)
    llm = cast(pd.DataFrame, table.xs(_LLM, level=judge)) if _LLM in present else empty
    gold_table = cast(pd.DataFrame, table.xs(_GOLD, level=judge)) if _GOLD in present else empty
    runs = list(dict.fromkeys(table.index.get_level_values(0)))
    if has_runs:
        runs = in_order(runs, run_order(run, roles.run))
    queries = pd.Index(pd.unique(run[roles.query])) if roles.query is not None else pd.Index([])
    return TwoJudges(llm, gold_table, runs, queries, has_runs)


@dataclass(frozen=True)
class Sample:
    """One metric's values by group (a run, or a run's differences to the baseline):
    ``y``/``y_hat`` on the gold queries (gold and LLM labels), ``unlabelled`` the LLM's on
    the other queries, each with the code of its group (``groups[code]``).
    """

    groups: list[Hashable]
    y: np.ndarray
    y_hat: np.ndarray
    gold_code: np.ndarray
    unlabelled: np.ndarray
    unlabelled_code: np.ndarray

    def counts(self) -> tuple[np.ndarray, np.ndarray]:
        """Gold and unlabelled queries per group."""
        size = len(self.groups)
        return (
            np.bincount(self.gold_code, minlength=size),
            np.bincount(self.unlabelled_code, minlength=size),
        )


def _codes(index: pd.Index, groups: list[Hashable]) -> np.ndarray:
    """The position in ``groups`` of each row's group (the first level of ``index``)."""
    known = pd.Index(groups, dtype=object)
    return known.get_indexer(index.get_level_values(0).astype(object)).astype(np.int64)


def _shown(values: Any) -> list[Any]:
    values = list(dict.fromkeys(values))
    return values[:_SHOWN] + (["..."] if len(values) > _SHOWN else [])


def _named(group: Hashable) -> str:
    return "the run" if group is None else f"run {group!r}"


def sample(
    llm: pd.Series,
    gold: pd.Series,
    groups: list[Hashable],
    queries: pd.Index,
    *,
    minimum: int = 2,
) -> Sample:
    """Split one metric's (group, query) values into the gold sample and the rest, refusing
    gold queries without an LLM value and groups with fewer than ``minimum`` gold queries.
    """
    llm, gold = llm.dropna(), gold.dropna()
    shared = gold.index.isin(llm.index)
    gold_code = _codes(gold.index, groups)
    both = np.bincount(gold_code[shared], minlength=len(groups))
    for at, group in enumerate(groups):
        if both[at] == 0:
            mine = gold.index.get_level_values(1)[gold_code == at]
            theirs = llm.index.get_level_values(1)[_codes(llm.index, groups) == at]
            msg = (
                f"no query of {_named(group)} is judged by both qrels= (the LLM's labels: "
                f"{theirs.nunique()} queries, e.g. {_shown(theirs)}) and gold= ("
                f"{mine.nunique()} queries, e.g. {_shown(mine)}) for {gold.name}; gold= must "
                "hold human labels of a random sample of the queries the LLM judged"
            )
            raise SchemaError(msg)
    if not shared.all():
        _refuse_outside(gold.index[~shared], queries, gold.name)
    few = np.flatnonzero(both < minimum)
    if few.size:
        group = groups[few[0]]
        msg = (
            f"{_named(group)} has {both[few[0]]} gold-judged quer"
            f"{'y' if both[few[0]] == 1 else 'ies'} for {gold.name}; at least {minimum} are "
            "needed to estimate the variance of the LLM's error: judge more queries by hand"
        )
        raise SchemaError(msg)
    unlabelled = llm[~llm.index.isin(gold.index)]
    return Sample(
        groups,
        gold.to_numpy(np.float64),
        llm.reindex(gold.index).to_numpy(np.float64),
        gold_code,
        unlabelled.to_numpy(np.float64),
        _codes(unlabelled.index, groups),
    )


def _refuse_outside(keys: pd.Index, queries: pd.Index, label: Any) -> None:
    """Gold queries without an LLM value: not queries of the run, or not judged by the LLM."""
    missing = keys.get_level_values(1)
    foreign = missing[~missing.isin(queries)]
    if len(foreign):
        msg = (
            f"gold= judges queries that are not queries of the run: {_shown(foreign)}. The "
            "gold queries must be a sample of the run's queries; keep only those, e.g. "
            "gold[gold['query'].isin(run['query'])]"
        )
        raise SchemaError(msg)
    msg = (
        f"the LLM's labels (qrels=) give no {label} value for gold queries {_shown(missing)}; "
        "PPI needs the LLM's labels on every gold query: label those queries with the LLM "
        "too, or leave them out of gold="
    )
    raise SchemaError(msg)


# --------------------------------------------------------------------------- the estimate


def _group_mean(values: np.ndarray, codes: np.ndarray, counts: np.ndarray) -> np.ndarray:
    size = len(counts)
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.bincount(codes, weights=values, minlength=size) / counts


def estimates(found: Sample, alpha: float, lam: float | None) -> dict[str, np.ndarray]:
    """PPI (``lam`` given) or PPI++ (``lam=None``) estimate and interval of each group.

    As ppi-python's ``ppi_mean_pointestimate`` / ``ppi_mean_ci``: lambda =
    cov(Y, Yhat) / ((1 + n/N) var(Yhat and Yhat_unlabelled)) (covariance over n, variance
    over n + N - 1), clipped to [0, 1]; variances of the interval over n and N; a normal
    interval. With LLM values that do not vary, lambda does not change the estimate and
    is 0.
    """
    n, big_n = (count.astype(np.float64) for count in found.counts())
    g, u = found.gold_code, found.unlabelled_code
    mean_y = _group_mean(found.y, g, n)
    mean_hat = _group_mean(found.y_hat, g, n)
    mean_u = _group_mean(found.unlabelled, u, big_n)
    dy, dh = found.y - mean_y[g], found.y_hat - mean_hat[g]
    du = found.unlabelled - mean_u[u]
    var_y = _group_mean(dy * dy, g, n)
    var_u = _group_mean(du * du, u, big_n)
    if lam is None:
        covariance = _group_mean(dy * dh, g, n)
        var_hat = _group_mean(dh * dh, g, n)
        pooled = (n * mean_hat + big_n * mean_u) / (n + big_n)
        spread = n * (var_hat + (mean_hat - pooled) ** 2) + big_n * (var_u + (mean_u - pooled) ** 2)
        variance = spread / (n + big_n - 1)
        with np.errstate(divide="ignore", invalid="ignore"):
            tuned = covariance / ((1 + n / big_n) * variance)
        lams = np.where(variance > 0, np.clip(tuned, 0.0, 1.0), 0.0)
    else:
        lams = np.full(len(n), float(lam))
    estimate = lams * mean_u + mean_y - lams * mean_hat
    rest = dy - lams[g] * dh
    with np.errstate(divide="ignore", invalid="ignore"):
        se = np.sqrt(lams**2 * var_u / big_n + _group_mean(rest * rest, g, n) / n)
        classic_se = np.sqrt(var_y / n)
    z = NormalDist().inv_cdf(1 - alpha / 2)
    return {
        "estimate": estimate,
        "ci_low": estimate - z * se,
        "ci_high": estimate + z * se,
        "se": se,
        "lam": lams,
        "n_gold": n.astype(np.int64),
        "n_unlabelled": big_n.astype(np.int64),
        "classic_estimate": mean_y,
        "classic_ci_low": mean_y - z * classic_se,
        "classic_ci_high": mean_y + z * classic_se,
        "llm_estimate": (n * mean_hat + big_n * mean_u) / (n + big_n),
    }


def _p_values(estimate: np.ndarray, se: np.ndarray) -> np.ndarray:
    """Two-sided p-values of the normal test of a mean of 0."""
    with np.errstate(divide="ignore", invalid="ignore"):
        z = np.abs(estimate / se)
    p = np.array([math.erfc(value / math.sqrt(2)) if np.isfinite(value) else np.nan for value in z])
    return np.where((se == 0) & (estimate == 0), 1.0, np.where(se == 0, 0.0, p))


def _lam(value: Any) -> float | None:
    if value is None:
        return None
    number = not isinstance(value, bool) and isinstance(value, int | float | np.number)
    if not number or not 0 <= float(value) <= 1:
        msg = (
            f"lam={value!r} must be a number between 0 and 1 (1: PPI; 0: the gold labels "
            "alone), or None to choose it from the data (PPI++)"
        )
        raise ParameterError(msg)
    return float(value)


def _differences(
    values: pd.DataFrame, label: str, runs: list[Hashable], baseline: Hashable
) -> pd.Series:
    """Per query ``run - baseline`` of one metric, indexed by (run, query)."""
    from pdireval.engine.runs import aligned

    wide = aligned(values, label)
    others = [run for run in runs if run != baseline and run in wide.columns]
    deltas = wide[others].sub(wide[baseline], axis=0)
    stacked = cast(pd.Series, deltas.T.stack())
    return stacked.rename(label)


@takes(excluding(EVALUATION, "qrels"))
def ppi(
    run: pd.DataFrame,
    metrics: MetricsLike,
    *,
    qrels: pd.DataFrame,
    gold: pd.DataFrame,
    alpha: float = 0.05,
    lam: float | None = None,
    baseline: Hashable | None = None,
    columns: ColumnsLike = None,
    correction: str | None = "holm",
    **options: Any,
) -> pd.DataFrame:
    r"""Mean of each metric from LLM labels corrected by a few human labels (PPI, PPI++).

    Each run is evaluated under the LLM's labels (``qrels=``, every query) and under the
    human labels (``gold=``, a random sample of the queries). With ``Y`` the metric under
    gold labels on the gold queries, ``Yhat`` under the LLM's labels on the same queries,
    and ``Yhat_u`` under the LLM's labels on the other queries of the run, the estimate is

    .. math:: \hat\theta = \lambda\,\overline{\hat Y_u} + \overline{Y - \lambda \hat Y}

    and the interval :math:`\hat\theta \pm z_{1-\alpha/2}\sqrt{\lambda^2
    \sigma^2(\hat Y_u)/N + \sigma^2(Y - \lambda \hat Y)/n}`.

    Parameters
    ----------
    run : DataFrame
        Runs without labels (query, doc, score or rank, optional run column).
    metrics : metric or list of metrics
        As in :func:`pdireval.evaluate`.
    qrels : DataFrame
        The LLM judge's labels (query, doc, rel) of all (or most) queries.
    gold : DataFrame
        Human labels of a random sample of those queries (at least 2), each of them
        judged by the LLM too.
    alpha : float, default 0.05
        The intervals have level ``1 - alpha``; with ``baseline``, a difference is
        significant when its adjusted p-value is below ``alpha``.
    lam : float, optional
        Weight of the LLM's labels, in [0, 1]: 1 is PPI (Angelopoulos et al. 2023), 0
        the gold labels alone; ``None`` (default) chooses the weight that minimises the
        variance, per run and metric (PPI++, Angelopoulos, Duchi & Zrnic 2024).
    baseline : run id, optional
        Estimate the difference ``run - baseline`` of every other run instead of its
        mean: the same estimate on the per-query differences, with a p-value.
    columns : ColumnMap or dict, optional
        Which column of ``run`` plays which role (``qrels_columns=`` names those of
        ``qrels`` and ``gold``).
    correction : {"holm", "bonferroni", "fdr_bh"} or None, default "holm"
        With ``baseline``: adjustment of the p-values over every row of the call.
    **options
        The evaluation options of :func:`pdireval.evaluate`, applied under both sets
        of labels.

    Returns
    -------
    DataFrame
        One row per (run, metric), runs in the frame's order and metrics as requested:
        ``run`` (``None`` for a frame without a run column), ``metric``, ``estimate``,
        ``ci_low``, ``ci_high``, ``lam`` (the weight used), ``n_gold`` and
        ``n_unlabelled`` (queries with gold labels, and the others),
        ``classic_estimate``, ``classic_ci_low``, ``classic_ci_high`` (the mean of the
        gold labels alone with its normal interval, as ppi-python's
        ``classical_mean_ci``) and ``llm_estimate`` (the mean under the LLM's labels on
        every query, uncorrected). With ``baseline``: one row per other run, a
        ``baseline`` column after ``run``, estimates of the difference, and
        ``p_value``, ``p_adjusted`` and ``significant`` after ``ci_high``.

    Raises
    ------
    SchemaError
        A gold query that is not a query of the run or has no LLM value, no query judged
        by both, fewer than 2 gold queries for a run, gold labels for every query (no
        query is left for the LLM's labels to add), judge columns in the labels, more than
        one collection or seed, a baseline that is not a run.
    ParameterError
        ``alpha`` not strictly between 0 and 1, ``lam`` outside [0, 1], an unknown
        correction.

    Notes
    -----
    The numbers are those of ppi-python's ``ppi_mean_pointestimate`` and
    ``ppi_mean_ci`` (two-sided) on the per-query values. The interval is valid when the
    gold queries are a uniformly random sample of the run's queries, whatever the LLM's
    errors; it is asymptotic (a normal interval), so a handful of gold queries gives
    intervals that cover less often than they claim. When gold queries were chosen
    otherwise (the easy ones, the first ones), the LLM's error on them need not be its
    error elsewhere and the estimate is biased. When the LLM's values do not vary at all
    the weight is set to 0 (it does not change the estimate). ``p_value`` is the normal
    test of a zero difference with the same estimate and standard error as the
    interval, so ``significant`` agrees with an interval that excludes 0 when no
    correction is made. A query whose value is undefined for a metric (NaN, such as a
    query the LLM did not judge under ``queries="all"``) is neither a gold nor an
    unlabelled query for that metric: ``n_gold`` and ``n_unlabelled`` count the
    queries used.

    Examples
    --------
    >>> import pdireval
    >>> from pdireval.datasets import example_qrels, example_run
    >>> human = example_qrels()
    >>> llm = human.assign(rel=human["rel"].clip(upper=1))  # an LLM that misses grade 2
    >>> sample = human[human["query"].isin(human["query"].unique()[::5])]  # 10 of 50
    >>> found = pdireval.ppi(example_run(), "nDCG@10", qrels=llm, gold=sample, lam=1)
    >>> found[["run", "n_gold", "n_unlabelled", "lam"]]
          run  n_gold  n_unlabelled  lam
    0  strong      10            40  1.0
    1  medium      10            40  1.0
    2    weak      10            40  1.0
    >>> found[["run", "estimate", "classic_estimate", "llm_estimate"]].round(3)
          run  estimate  classic_estimate  llm_estimate
    0  strong     0.918             0.964         0.929
    1  medium     0.693             0.724         0.715
    2    weak     0.316             0.301         0.334
    """
    level("alpha", alpha)
    weight = _lam(lam)
    correction = check("correction", correction)
    found = two_judges(run, metrics, qrels, gold, columns, options, "ppi")
    labels = list(found.llm.columns)
    if baseline is not None:
        _check_baseline(found, baseline)
    parts = []
    for label in labels:
        llm, gold_values = found.llm[label], found.gold[label]
        groups = found.runs
        if baseline is not None:
            llm = _differences(found.llm, label, found.runs, baseline)
            gold_values = _differences(found.gold, label, found.runs, baseline)
            groups = [run for run in found.runs if run != baseline]
        values = sample(llm, gold_values, groups, found.queries)
        _refuse_all_gold(values)
        result = estimates(values, alpha, weight)
        part = pd.DataFrame({"run": pd.Series(groups, dtype=object), "metric": label, **result})
        parts.append(part)
    out = pd.concat(parts, ignore_index=True)
    order = {run: at for at, run in enumerate(found.runs)}
    ranks = out["run"].map(order).to_numpy()
    out = out.iloc[np.argsort(ranks, kind="stable")].reset_index(drop=True)
    if baseline is None:
        return out[list(PPI_COLUMNS)]
    from pdireval.stats.significance import adjust_pvalues

    out.insert(1, "baseline", pd.Series([baseline] * len(out), dtype=object))
    out["p_value"] = _p_values(out["estimate"].to_numpy(), out["se"].to_numpy())
    out["p_adjusted"] = adjust_pvalues(out["p_value"].to_numpy(), correction)
    out["significant"] = out["p_adjusted"].to_numpy() < alpha
    head = ["run", "baseline", "metric", "estimate", "ci_low", "ci_high"]
    return out[[*head, *_TEST_COLUMNS, *PPI_COLUMNS[5:]]]


def _check_baseline(found: TwoJudges, baseline: Hashable) -> None:
    if not found.has_runs:
        msg = (
            "baseline= needs a frame with a run column and at least two runs; this frame "
            "has none (name it 'run' or map it with columns={'run': '<column>'})"
        )
        raise SchemaError(msg)
    if isinstance(baseline, list | tuple) or baseline not in found.runs:
        msg = f"baseline={baseline!r} is not a run of the frame; its runs are {found.runs}"
        raise SchemaError(msg)
    if len(found.runs) < 2:
        msg = f"baseline= needs at least two runs; the frame holds only {found.runs}"
        raise SchemaError(msg)


def _refuse_all_gold(values: Sample) -> None:
    _, unlabelled = values.counts()
    empty = np.flatnonzero(unlabelled == 0)
    if empty.size:
        msg = (
            f"gold= labels every query of {_named(values.groups[empty[0]])}: no query is "
            "left for the LLM's labels to add to. PPI estimates a mean from human labels of "
            "a sample of the queries; with human labels for all of them, evaluate with gold "
            "as the qrels (pdireval.summary)"
        )
        raise SchemaError(msg)
