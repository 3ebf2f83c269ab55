"""Typed public functions: the real API behind the ``.ireval`` accessor.

Every function here checks what the user passed -- metrics, column roles, options --
and hands one frozen options object to the evaluation engine, which validates and
prepares the frame once and runs every requested metric over the same arrays.
"""

from __future__ import annotations

from collections.abc import Hashable, Mapping
from typing import TYPE_CHECKING, Unpack

import numpy as np
import pandas as pd

from pdireval._core.errors import MetricError, ParameterError, SchemaError
from pdireval._core.options import (
    COMPARISON,
    EVALUATION,
    Evaluation,
    comparison_options,
    takes,
)
from pdireval._core.roles import ResolvedColumns, resolve
from pdireval.engine import evaluate as _evaluate
from pdireval.engine.merge import merge_qrels
from pdireval.engine.runs import evaluated, run_order
from pdireval.metrics import (
    AP,
    DCG,
    RR,
    AllScore,
    Latency,
    P,
    R,
    Rprec,
    StrictAll,
    StrictVital,
    Success,
    VitalScore,
    nDCG,
    parse_metrics,
)
from pdireval.metrics._base import Metric
from pdireval.stats.comparison import compare_table, per_query_table
from pdireval.stats.curves import curve, pr_curve
from pdireval.stats.summary import aggregate, efficiency_table, in_run_order, summary_table
from pdireval.stats.summary import seed_summary as seed_summary_table

if TYPE_CHECKING:
    from pdireval.reports.model import Report
    from pdireval.typing import (
        Aggregate,
        CiMethod,
        ColumnsLike,
        ComparisonOptions,
        EvaluationOptions,
        MetricLike,
        MetricsLike,
    )

__all__ = [
    "ap",
    "compare",
    "curve",
    "dcg",
    "efficiency",
    "evaluate",
    "gmap",
    "map",
    "merge_qrels",
    "mrr",
    "ndcg",
    "nugget_scores",
    "per_query",
    "pr_curve",
    "precision",
    "r_precision",
    "recall",
    "report",
    "rr",
    "seed_summary",
    "success",
    "summary",
    "tie_groups",
]


def _per_query(
    frame: pd.DataFrame,
    metrics: MetricsLike,
    columns: ColumnsLike | ResolvedColumns,
    evaluation: Evaluation,
) -> pd.DataFrame:
    return _evaluate.per_query(frame, parse_metrics(metrics), columns, evaluation)


@takes(EVALUATION)
def evaluate(
    frame: pd.DataFrame,
    metrics: MetricsLike,
    *,
    columns: ColumnsLike = None,
    **options: Unpack[EvaluationOptions],
) -> pd.DataFrame:
    """Per-query values of one or more metrics.

    Parameters
    ----------
    frame : DataFrame
        Long frame: one row per (query, doc) retrieved and/or judged, with columns
        for the roles query, doc, rel and rank or score (optionally run).
    metrics : str, Metric or list of them
        Names such as ``"AP"``, ``"nDCG@10"``, ``"P(rel=2)@5"``, trec_eval names such
        as ``"P_10"``, or objects such as ``P @ 10``. Duplicates collapse.
    columns : ColumnMap or dict, optional
        Which column plays which role, e.g. ``{"query": "qid", "rel": "label"}``.
    **options
        The evaluation options (below), the same for every evaluating call.

    Returns
    -------
    DataFrame
        float64 values, index the sorted query ids (named like the query column) or
        a (run, query) MultiIndex, one column per canonical metric label
        (``columns.name == "metric"``).

    Raises
    ------
    SchemaError
        The frame breaks the long-frame contract; the message says what and how to fix it.
    MetricError
        A metric name, parameter or option is not understood.

    Notes
    -----
    Ranking follows trec_eval. A rank column gives the order only: positions are
    renumbered 1..n inside each query, so ranks 1, 5, 9 act as 1, 2, 3 and 0-based
    ranks (PyTerrier's) work as they are. Without a rank column, documents are
    ordered by score descending, ties broken by doc id descending compared as strings
    (``"d9"`` before ``"d10"``). Relevance labels below ``rel`` -- and negative
    labels, which mark pooled but unjudged documents -- are not relevant; unjudged
    documents count as not relevant.

    References
    ----------
    F. McSherry and M. Najork. Computing information retrieval performance measures
    efficiently in the presence of tied scores. ECIR 2008.

    Examples
    --------
    >>> import pandas as pd, pdireval
    >>> df = pd.DataFrame({"query": ["q1"] * 4, "doc": ["a", "b", "c", "d"],
    ...                    "rank": [1, 2, 3, None], "rel": [1, 0, 1, 1]})
    >>> pdireval.evaluate(df, ["AP", "P@2", "R@3"])
    metric        AP  P@2       R@3
    query
    q1      0.555556  0.5  0.666667

    A run and its qrels as two frames:

    >>> run = df[df["rank"].notna()].drop(columns="rel")
    >>> qrels = df[["query", "doc", "rel"]]
    >>> pdireval.evaluate(run, ["AP", "P@2", "R@3"], qrels=qrels)
    metric        AP  P@2       R@3
    query
    q1      0.555556  0.5  0.666667
    """
    table, _ = _evaluate.per_part(
        frame, parse_metrics(metrics), columns, Evaluation.from_options(options)
    )
    return table


@takes(EVALUATION)
def summary(
    frame: pd.DataFrame,
    metrics: MetricsLike,
    *,
    agg: Aggregate = "mean",
    ci: float | None = None,
    ci_method: CiMethod = "t",
    n_resamples: int = 10_000,
    seed: int | np.random.SeedSequence | None = None,
    columns: ColumnsLike = None,
    **options: Unpack[EvaluationOptions],
) -> pd.Series | pd.DataFrame:
    """Aggregate per-query values over queries: MAP, GMAP, MRR, mean nDCG@k, ...

    Parameters
    ----------
    frame, metrics, columns
        As in :func:`evaluate`.
    agg : {"mean", "gmean", "hmean", "median"}
        ``"gmean"`` floors values at 1e-5 first, like trec_eval's gm_map; ``"hmean"``
        is 0 when any value is 0. NaN values (unjudged queries under
        ``queries="all"``) are skipped.
    ci : float, optional
        Confidence level of an interval around each aggregate, e.g. ``0.95``. ``None``
        (default) returns the aggregates alone.
    ci_method : {"t", "bootstrap"}
        ``"t"``: Student t interval for the mean (needs scipy; ``agg="mean"`` only);
        ``"bootstrap"``: percentile interval of ``n_resamples`` bootstrap resamples of
        the queries, for any ``agg``.
    n_resamples, seed
        Number of bootstrap resamples and the seed of ``numpy.random.default_rng``
        (same seed, same interval).
    **options
        The evaluation options (below).

    Returns
    -------
    Series or DataFrame
        Without a run column, a Series indexed by metric label; with one, a DataFrame
        with one row per run and one column per metric, the runs in the frame's order
        (the order they first appear, or a categorical's categories), as in reports and
        plots. When the frame has a time
        column, the efficiency statistics of :func:`efficiency` follow the metrics
        (``latency_mean`` ... ``mrt``; ``queries`` too without a run column). With ``ci``
        (efficiency left out): without a run
        column a DataFrame indexed by metric with columns ``[agg, "ci_low",
        "ci_high"]``; with one, a DataFrame with one row per run and (metric, stat)
        column pairs, so ``result["AP"]`` has the columns ``[agg, "ci_low",
        "ci_high"]``.

    Examples
    --------
    >>> import pandas as pd, pdireval
    >>> df = pd.DataFrame({"query": ["q1", "q1", "q2", "q2"], "doc": ["a", "b", "a", "b"],
    ...                    "rank": [1, 2, 1, 2], "rel": [0, 1, 1, 0]})
    >>> pdireval.summary(df, ["AP", "RR"])
    metric
    AP    0.75
    RR    0.75
    Name: mean, dtype: float64
    >>> pdireval.summary(df, ["AP", "RR"], ci=0.9, ci_method="bootstrap", seed=0)
            mean  ci_low  ci_high
    metric
    AP      0.75     0.5      1.0
    RR      0.75     0.5      1.0
    """
    parsed = parse_metrics(metrics)
    evaluation = Evaluation.from_options(options)
    roles = resolve(frame, columns)  # once, for the times and the evaluation
    timed = roles.time is not None and ci is None
    table, levels = _evaluate.per_part(
        frame, parse_metrics([*parsed, Latency]) if timed else parsed, roles, evaluation
    )
    runs = run_order(frame, roles.run)
    if ci is not None:
        intervals = summary_table(
            table,
            agg=agg,
            ci=ci,
            ci_method=ci_method,
            n_resamples=n_resamples,
            seed=seed,
            levels=levels,
        )
        return in_run_order(intervals, runs, levels)
    if not timed:
        return in_run_order(aggregate(table, agg, levels=levels), runs, levels)
    label = Latency.default.label
    latency = table[label]
    if Latency.default not in parsed:  # added here for the statistics only
        table = table.drop(columns=label)
    result = aggregate(table, agg, levels=levels)
    stats = efficiency_table(latency, levels)
    if isinstance(result, pd.Series):
        return pd.concat([result, stats.iloc[0]]).rename(agg)
    return in_run_order(pd.concat([result, stats.drop(columns="queries")], axis=1), runs, levels)


@takes(EVALUATION)
def nugget_scores(
    assignments: pd.DataFrame,
    *,
    columns: ColumnsLike = None,
    partial: float = 0.5,
    okay: float = 1,
    **options: Unpack[EvaluationOptions],
) -> pd.DataFrame:
    """Nugget scores of generated answers, per (run, query), as nuggetizer computes them.

    Parameters
    ----------
    assignments : DataFrame
        A nugget frame: one row per (run, query, nugget) with the nugget's importance
        (``"vital"`` or ``"okay"``) and the answer's support of it (``"support"``,
        ``"partial_support"`` or ``"not_support"``) -- columns ``run`` (optional),
        ``query``, ``nugget``, ``importance``, ``assignment``, and optionally ``judge``,
        ``collection`` and ``seed``. :func:`pdireval.read_nuggets` reads nuggetizer's
        files into one. A row whose nugget is missing (importance and assignment too)
        stands for an answer without nuggets.
    columns : ColumnMap or dict, optional
        Which column plays which role, e.g. ``{"query": "qid", "nugget": "text"}``.
    partial : float
        Credit of a partially supported nugget in ``vital`` and ``all`` (nuggetizer:
        0.5).
    okay : float
        Weight of an okay nugget in ``strict_all`` and ``all``, a vital one weighing 1
        (nuggetizer: 1, every nugget alike).
    **options
        The evaluation options (below), as for :func:`evaluate`; ``queries="retrieved"``
        leaves out the answers without nuggets, and the options that cut a ranking
        (``max_rank``, ``ignore_self``, ``qrels``) are refused.

    Returns
    -------
    DataFrame
        One row per (run[, judge, collection, seed], query), the ids as index levels in
        that order, and the columns ``strict_vital``, ``strict_all``, ``vital`` and
        ``all`` (``columns.name == "metric"``).

    Raises
    ------
    SchemaError
        A missing column, an importance or assignment outside the labels above, or a
        nugget assigned twice for one answer; the message names the rows.

    Notes
    -----
    ``strict_vital`` is the share of vital nuggets with ``support``; ``strict_all`` the
    share of all nuggets with ``support``; ``vital`` and ``all`` count
    ``partial_support`` as ``partial`` (Pradeep et al., 2024). As in nuggetizer, an
    answer without a vital nugget scores 0 on the vital scores, and one without nuggets
    0 on all four. The same scores are measures of their own: ``pdireval.evaluate(frame,
    ["strict_vital", "vital"])``, :func:`summary`, :func:`compare` and :func:`report`
    take a nugget frame as they take a run.

    References
    ----------
    R. Pradeep, N. Thakur, S. Upadhyay, D. Campos, N. Craswell and J. Lin. Initial nugget
    evaluation results for the TREC 2024 RAG track with the AutoNuggetizer framework.
    arXiv:2411.09607, 2024.

    Examples
    --------
    >>> import pandas as pd, pdireval
    >>> frame = pd.DataFrame({
    ...     "run": ["rag-a"] * 3 + ["rag-b"] * 3, "query": ["q1"] * 6,
    ...     "nugget": ["n1", "n2", "n3"] * 2,
    ...     "importance": ["vital", "vital", "okay"] * 2,
    ...     "assignment": ["support", "partial_support", "support",
    ...                    "not_support", "support", "partial_support"]})
    >>> pdireval.nugget_scores(frame).round(4)
    metric       strict_vital  strict_all  vital     all
    run   query
    rag-a q1              0.5      0.6667   0.75  0.8333
    rag-b q1              0.5      0.3333   0.50  0.5000
    """
    metrics = [
        StrictVital.default,
        StrictAll(okay=okay),
        VitalScore(partial=partial),
        AllScore(partial=partial, okay=okay),
    ]
    table = evaluate(assignments, metrics, columns=columns, **options)
    table = table[[m.label for m in metrics]]
    table.columns = pd.Index(["strict_vital", "strict_all", "vital", "all"], name="metric")
    return table


@takes(EVALUATION)
def seed_summary(
    frame: pd.DataFrame,
    metrics: MetricsLike,
    *,
    ci: float = 0.95,
    columns: ColumnsLike = None,
    **options: Unpack[EvaluationOptions],
) -> pd.DataFrame:
    """The mean over seeds (or folds) of each seed's mean, with an interval across seeds.

    Parameters
    ----------
    frame, metrics, columns
        As in :func:`evaluate`; the frame needs a seed column (``seed``, ``fold``, or
        mapped with ``columns={"seed": ...}``): one ranking per run, seed and query.
    ci : float
        Level of the Student t interval of the mean across the seeds (default 0.95).
    **options
        The evaluation options (below).

    Returns
    -------
    DataFrame
        One row per run (and judge, collection when present), the runs in the frame's
        order; columns (metric, stat)
        with stat ``mean`` (of the per-seed means), ``seeds``, ``sd`` (across the seed
        means) and ``ci_low``/``ci_high`` (Student t, seeds - 1 degrees of freedom; NaN
        with one seed). The interval says how far the result moves from one seed to
        another on these queries; :func:`compare` with ``test="bootstrap"`` accounts
        for queries and seeds at once.

    Raises
    ------
    MetricError
        The frame has no seed column.
    MissingDependencyError
        scipy is not installed (the t quantile).

    Examples
    --------
    >>> import pandas as pd, pdireval
    >>> from pdireval.datasets import example
    >>> frame = example()
    >>> seeds = pd.concat([frame.assign(seed=s) for s in (1, 2)])
    >>> pdireval.seed_summary(seeds, "AP").round(4)
    metric      AP
    stat      mean seeds   sd  ci_low  ci_high
    run
    strong  0.8781   2.0  0.0  0.8781   0.8781
    medium  0.5756   2.0  0.0  0.5756   0.5756
    weak    0.2161   2.0  0.0  0.2161   0.2161
    """
    evaluation = Evaluation.from_options(options)
    roles = resolve(frame, columns)
    table, levels = _evaluate.per_part(frame, parse_metrics(metrics), roles, evaluation)
    result = seed_summary_table(table, levels, ci=ci)
    return in_run_order(result, run_order(frame, roles.run), levels)


@takes(EVALUATION)
def efficiency(
    frame: pd.DataFrame,
    *,
    columns: ColumnsLike = None,
    **options: Unpack[EvaluationOptions],
) -> pd.DataFrame:
    """How fast each run answered: latency percentiles and throughput, from the time column.

    Parameters
    ----------
    frame, columns
        As in :func:`evaluate`; the frame needs a time column (role ``time``: the
        seconds -- or a timedelta -- a run took for each query, on every row of the
        query or at least one).
    **options
        The evaluation options (below).

    Returns
    -------
    DataFrame
        One row per run (one row ``"all"`` without a run column); columns ``queries``
        (timed queries), ``latency_mean``, ``latency_median``, ``latency_p95``,
        ``latency_p99`` (seconds), ``qps`` (queries per second, answered one after the
        other) and ``mrt`` (mean response time in milliseconds, PyTerrier's name).
        The queries timed are those of the query policy, as for every measure: under
        ``queries="judged"`` (default) the judged queries the run answered, under
        ``queries="all"`` every query with a time, judged or not.

    Raises
    ------
    SchemaError
        No time column, times that are negative or not numbers, or a query with two
        different times.

    Notes
    -----
    :func:`summary` adds the same statistics to its table when the frame has a time
    column, and :class:`~pdireval.Report` shows them. ``Latency`` is also a metric, so
    :func:`compare` tests whether one run is significantly faster than another.

    Examples
    --------
    >>> import pandas as pd, pdireval
    >>> df = pd.DataFrame({"query": ["q1", "q1", "q2"], "doc": ["a", "b", "a"],
    ...                    "rank": [1, 2, 1], "rel": [1, 0, 1], "time": [0.12, 0.12, 0.3]})
    >>> pdireval.efficiency(df)[["queries", "latency_mean", "mrt"]].round(3)
         queries  latency_mean    mrt
    all        2          0.21  210.0
    """
    table = _per_query(
        frame,
        Latency,
        columns,
        Evaluation.from_options(options),
    )
    return efficiency_table(table[Latency.default.label])


def _single(
    frame: pd.DataFrame, metric: Metric, columns: ColumnsLike, evaluation: Evaluation
) -> pd.Series:
    return _per_query(frame, metric, columns, evaluation)[metric.label]


def _one_number(
    frame: pd.DataFrame,
    metric: Metric,
    agg: str,
    columns: ColumnsLike,
    evaluation: Evaluation,
) -> float:
    table = _per_query(frame, metric, columns, evaluation)
    if isinstance(table.index, pd.MultiIndex):
        runs = list(table.index.get_level_values(0).unique())
        if len(runs) > 1:
            msg = (
                f"the frame holds {len(runs)} runs {runs[:5]}, so there is no single "
                f"{agg} {metric.label}; use pdireval.summary(frame, {metric.label!r}, "
                f"agg={agg!r}) for one value per run"
            )
            raise SchemaError(msg)
    return float(aggregate(table, agg).to_numpy().reshape(-1)[0]) if len(table) else np.nan


def _cut(metric: Metric, k: int | None) -> Metric:
    return metric @ k if k is not None else metric


@takes(EVALUATION)
def precision(
    frame: pd.DataFrame,
    k: int,
    *,
    rel: int = 1,
    columns: ColumnsLike = None,
    **options: Unpack[EvaluationOptions],
) -> pd.Series:
    """Per-query precision at k (``P@k``).

    Parameters
    ----------
    frame, columns
        As in :func:`evaluate`.
    k : int
        The cutoff.
    rel : int
        Minimum label counted as relevant.
    **options
        The evaluation options (below).

    Returns
    -------
    Series
        float64 per query (or (run, query)), named ``P@k``.

    Examples
    --------
    >>> import pdireval
    >>> from pdireval.datasets import toy
    >>> pdireval.precision(toy(), 5).round(2).tolist()
    [0.8, 0.2, 0.4, 0.4]
    """
    return _single(
        frame,
        P(rel=rel) @ k,
        columns,
        Evaluation.from_options(options),
    )


@takes(EVALUATION)
def recall(
    frame: pd.DataFrame,
    k: int,
    *,
    rel: int = 1,
    columns: ColumnsLike = None,
    **options: Unpack[EvaluationOptions],
) -> pd.Series:
    """Per-query recall at k (``R@k``): the share of all relevant documents in the top k.

    Parameters
    ----------
    frame, columns
        As in :func:`evaluate`.
    k : int
        The cutoff.
    rel : int
        Minimum label counted as relevant.
    **options
        The evaluation options (below).

    Returns
    -------
    Series
        float64 per query (or (run, query)), named ``R@k``.

    Examples
    --------
    >>> import pdireval
    >>> from pdireval.datasets import toy
    >>> pdireval.recall(toy(), 5).round(3).tolist()
    [0.667, 0.333, 0.333, 0.667]
    """
    return _single(
        frame,
        R(rel=rel) @ k,
        columns,
        Evaluation.from_options(options),
    )


@takes(EVALUATION)
def ap(
    frame: pd.DataFrame,
    k: int | None = None,
    *,
    rel: int = 1,
    columns: ColumnsLike = None,
    **options: Unpack[EvaluationOptions],
) -> pd.Series:
    """Per-query average precision (``AP``, or ``AP@k`` with a cutoff).

    Parameters
    ----------
    frame, columns
        As in :func:`evaluate`.
    k : int, optional
        Count only the relevant documents in the top k (still divided by all of them).
    rel : int
        Minimum label counted as relevant.
    **options
        The evaluation options (below).

    Returns
    -------
    Series
        float64 per query (or (run, query)), named ``AP`` or ``AP@k``.

    Examples
    --------
    >>> import pdireval
    >>> from pdireval.datasets import toy
    >>> pdireval.ap(toy()).round(4).tolist()
    [0.775, 0.5444, 0.5212, 0.4429]
    """
    return _single(
        frame,
        _cut(AP(rel=rel), k),
        columns,
        Evaluation.from_options(options),
    )


@takes(EVALUATION)
def map(  # noqa: A001 - the name users expect
    frame: pd.DataFrame,
    k: int | None = None,
    *,
    rel: int = 1,
    columns: ColumnsLike = None,
    **options: Unpack[EvaluationOptions],
) -> float:
    """Mean average precision of the frame's one run.

    Parameters
    ----------
    frame, columns
        As in :func:`evaluate`.
    k : int, optional
        Mean of ``AP@k`` instead of ``AP``.
    rel : int
        Minimum label counted as relevant.
    **options
        The evaluation options (below).

    Returns
    -------
    float
        The mean of AP over the queries (NaN when there is none).

    Raises
    ------
    SchemaError
        The frame holds several runs: use ``summary(frame, "AP")`` for one value per run.

    Examples
    --------
    >>> import pdireval
    >>> from pdireval.datasets import toy
    >>> frame = toy()
    >>> round(pdireval.map(frame[frame["run"] == "system1"]), 4)
    0.6597
    """
    return _one_number(
        frame,
        _cut(AP(rel=rel), k),
        "mean",
        columns,
        Evaluation.from_options(options),
    )


@takes(EVALUATION)
def gmap(
    frame: pd.DataFrame,
    k: int | None = None,
    *,
    rel: int = 1,
    columns: ColumnsLike = None,
    **options: Unpack[EvaluationOptions],
) -> float:
    """Geometric mean average precision of the frame's one run (trec_eval's gm_map).

    AP values below 1e-5 count as 1e-5, as in trec_eval, so one query with AP 0 does
    not make the mean 0 (Robertson 2006).

    Parameters
    ----------
    frame, columns
        As in :func:`evaluate`.
    k : int, optional
        Geometric mean of ``AP@k`` instead of ``AP``.
    rel : int
        Minimum label counted as relevant.
    **options
        The evaluation options (below).

    Returns
    -------
    float

    Raises
    ------
    SchemaError
        The frame holds several runs: use ``summary(frame, "AP", agg="gmean")``.

    References
    ----------
    S. Robertson. On GMAP: and other transformations. CIKM 2006.

    Examples
    --------
    >>> import pdireval
    >>> from pdireval.datasets import toy
    >>> frame = toy()
    >>> round(pdireval.gmap(frame[frame["run"] == "system2"]), 4)
    0.4804
    """
    return _one_number(
        frame,
        _cut(AP(rel=rel), k),
        "gmean",
        columns,
        Evaluation.from_options(options),
    )


@takes(EVALUATION)
def rr(
    frame: pd.DataFrame,
    k: int | None = None,
    *,
    rel: int = 1,
    columns: ColumnsLike = None,
    **options: Unpack[EvaluationOptions],
) -> pd.Series:
    """Per-query reciprocal rank of the first relevant document (``RR`` or ``RR@k``).

    Parameters
    ----------
    frame, columns
        As in :func:`evaluate`.
    k : int, optional
        0 when the first relevant document lies below k.
    rel : int
        Minimum label counted as relevant.
    **options
        The evaluation options (below).

    Returns
    -------
    Series
        float64 per query (or (run, query)), named ``RR`` or ``RR@k``.

    Examples
    --------
    >>> import pdireval
    >>> from pdireval.datasets import toy
    >>> pdireval.rr(toy()).tolist()
    [1.0, 1.0, 0.5, 0.5]
    """
    return _single(
        frame,
        _cut(RR(rel=rel), k),
        columns,
        Evaluation.from_options(options),
    )


@takes(EVALUATION)
def mrr(
    frame: pd.DataFrame,
    k: int | None = None,
    *,
    rel: int = 1,
    columns: ColumnsLike = None,
    **options: Unpack[EvaluationOptions],
) -> float:
    """Mean reciprocal rank of the frame's one run.

    Parameters
    ----------
    frame, columns
        As in :func:`evaluate`.
    k : int, optional
        Mean of ``RR@k`` instead of ``RR``.
    rel : int
        Minimum label counted as relevant.
    **options
        The evaluation options (below).

    Returns
    -------
    float

    Raises
    ------
    SchemaError
        The frame holds several runs: use ``summary(frame, "RR")`` for one value per run.

    Examples
    --------
    >>> import pdireval
    >>> from pdireval.datasets import toy
    >>> frame = toy()
    >>> pdireval.mrr(frame[frame["run"] == "system2"])
    0.5
    """
    return _one_number(
        frame,
        _cut(RR(rel=rel), k),
        "mean",
        columns,
        Evaluation.from_options(options),
    )


@takes(EVALUATION)
def ndcg(
    frame: pd.DataFrame,
    k: int | None = None,
    *,
    rel: int = 1,
    gain: str | Mapping[int, float] = "linear",
    discount: str = "log2",
    base: float = 2,
    columns: ColumnsLike = None,
    **options: Unpack[EvaluationOptions],
) -> pd.Series:
    """Per-query normalised discounted cumulative gain (``nDCG`` or ``nDCG@k``).

    Parameters
    ----------
    frame, columns
        As in :func:`evaluate`.
    k : int, optional
        The cutoff; all retrieved documents without it.
    rel, gain, discount, base
        The parameters of ``nDCG`` (see the measures catalogue): minimum label counted,
        ``'linear'`` or ``'exp'`` gains (or a mapping label -> gain), the ``'log2'``
        or ``'jarvelin'`` discount and its base.
    **options
        The evaluation options (below).

    Returns
    -------
    Series
        float64 per query (or (run, query)), named by the canonical label.

    Examples
    --------
    >>> import pdireval
    >>> from pdireval.datasets import toy
    >>> pdireval.ndcg(toy(), 5).round(4).tolist()
    [0.786, 0.4693, 0.3452, 0.4776]
    """
    metric = nDCG(rel=rel, gain=gain, discount=discount, base=base)
    return _single(
        frame,
        _cut(metric, k),
        columns,
        Evaluation.from_options(options),
    )


@takes(EVALUATION)
def dcg(
    frame: pd.DataFrame,
    k: int | None = None,
    *,
    rel: int = 1,
    gain: str | Mapping[int, float] = "linear",
    discount: str = "log2",
    base: float = 2,
    columns: ColumnsLike = None,
    **options: Unpack[EvaluationOptions],
) -> pd.Series:
    """Per-query discounted cumulative gain (``DCG`` or ``DCG@k``).

    Parameters
    ----------
    frame, columns
        As in :func:`evaluate`.
    k : int, optional
        The cutoff; all retrieved documents without it.
    rel, gain, discount, base
        As in :func:`ndcg`.
    **options
        The evaluation options (below).

    Returns
    -------
    Series
        float64 per query (or (run, query)), named by the canonical label.

    Examples
    --------
    >>> import pdireval
    >>> from pdireval.datasets import toy
    >>> pdireval.dcg(toy(), 3).round(4).tolist()
    [1.5, 1.0, 0.6309, 0.6309]
    """
    metric = DCG(rel=rel, gain=gain, discount=discount, base=base)
    return _single(
        frame,
        _cut(metric, k),
        columns,
        Evaluation.from_options(options),
    )


@takes(EVALUATION)
def r_precision(
    frame: pd.DataFrame,
    *,
    rel: int = 1,
    columns: ColumnsLike = None,
    **options: Unpack[EvaluationOptions],
) -> pd.Series:
    """Per-query R-precision (``Rprec``): precision at rank R, the number of relevant documents.

    Parameters
    ----------
    frame, columns
        As in :func:`evaluate`.
    rel : int
        Minimum label counted as relevant.
    **options
        The evaluation options (below).

    Returns
    -------
    Series
        float64 per query (or (run, query)), named ``Rprec``.

    Examples
    --------
    >>> import pdireval
    >>> from pdireval.datasets import toy
    >>> pdireval.r_precision(toy()).round(4).tolist()
    [0.8333, 0.3333, 0.5, 0.3333]
    """
    return _single(
        frame,
        Rprec(rel=rel),
        columns,
        Evaluation.from_options(options),
    )


@takes(EVALUATION)
def success(
    frame: pd.DataFrame,
    k: int,
    *,
    rel: int = 1,
    columns: ColumnsLike = None,
    **options: Unpack[EvaluationOptions],
) -> pd.Series:
    """Per-query success at k (``Success@k``): 1 when a relevant document is in the top k.

    Parameters
    ----------
    frame, columns
        As in :func:`evaluate`.
    k : int
        The cutoff.
    rel : int
        Minimum label counted as relevant.
    **options
        The evaluation options (below).

    Returns
    -------
    Series
        0.0 or 1.0 per query (or (run, query)), named ``Success@k``.

    Examples
    --------
    >>> import pdireval
    >>> from pdireval.datasets import toy
    >>> pdireval.success(toy(), 1).tolist()
    [1.0, 1.0, 0.0, 0.0]
    """
    return _single(
        frame,
        Success(rel=rel) @ k,
        columns,
        Evaluation.from_options(options),
    )


@takes(COMPARISON, EVALUATION)
def compare(
    frame: pd.DataFrame,
    metrics: MetricsLike,
    *,
    columns: ColumnsLike = None,
    **options: Unpack[ComparisonOptions],
) -> pd.DataFrame:
    """Paired significance tests between runs, with effect sizes and confidence intervals.

    Parameters
    ----------
    frame, metrics, columns
        As in :func:`evaluate`; the frame needs a run column with at least two runs.
    **options
        The significance and the evaluation options (below).

    Returns
    -------
    DataFrame
        One row per (run, baseline, metric), in pair order then metric order, with
        columns ``run``, ``baseline``, ``metric``, ``mean``, ``baseline_mean``,
        ``delta`` (mean of the per-query differences), ``relative_delta`` (delta ÷
        baseline_mean; NaN when that is 0), ``ci_low``/``ci_high`` (interval of the
        delta), ``p_value``, ``p_adjusted``, ``significant``, ``effect_size``
        (paired Cohen's d: mean ÷ standard deviation of the differences; NaN when
        they do not vary), ``wins``/``ties``/``losses`` (queries where the run is
        above / equal to / below the baseline).

    Raises
    ------
    SchemaError
        No run column, a single run, an unknown baseline, or a query some runs lack.
    ParameterError
        Unknown ``test=``/``correction=``, or ``alpha``/``n_resamples`` out of range.
    MissingDependencyError
        scipy is not installed (``pip install 'pdireval[stats]'``).

    Notes
    -----
    With judge or collection columns (in the frame or in ``qrels=``) runs are compared
    within each judge and each collection, one multiple-comparison correction over all
    comparisons, and the result gains a column per level. With a seed column every run
    needs the same seeds; ``test="bootstrap"`` then resamples queries and seeds
    independently (a two-way bootstrap, Owen 2007), the other tests use each query's
    difference averaged over the seeds.

    Runs are compared on the same queries, chosen by the query policy: with
    ``queries="judged"`` a run that retrieved nothing for a judged query scores 0
    there, provided the frame holds that query's judgments for the run
    (:func:`merge_qrels` puts them there). A (run, query) pair that is still missing
    -- e.g. under ``queries="retrieved"`` -- raises :class:`SchemaError` naming the
    queries; nothing is dropped silently. Queries without a value for any run
    (unjudged under ``queries="all"``) are left out, as in :func:`summary`.
    Differences within 1e-12 of 0 count as ties. Identical runs get p = 1.

    The interval is Student's t interval of the mean difference, or, with
    ``test="bootstrap"``, the percentile interval of the bootstrap means. Permutation
    and bootstrap p-values are ``(b + 1) / (n_resamples + 1)``, b the resamples at
    least as extreme as observed, so they are never 0.

    References
    ----------
    Smucker, Allan & Carterette (2007), A comparison of statistical significance tests
    for information retrieval evaluation, CIKM. Sakai (2014), Statistical reform in
    information retrieval?, SIGIR Forum. Holm (1979); Benjamini & Hochberg (1995).

    Examples
    --------
    >>> import pdireval
    >>> from pdireval.datasets import toy
    >>> result = pdireval.compare(toy(), ["AP", "P@5"], baseline="system1")
    >>> result[["run", "baseline", "metric", "delta", "wins", "losses"]].round(4)
           run baseline metric   delta  wins  losses
    0  system2  system1     AP -0.1777     0       2
    1  system2  system1    P@5 -0.1000     1       1
    """
    evaluation, significance, risk_alpha = comparison_options(options)
    found = evaluated(frame, metrics, columns, evaluation, "compare")
    return compare_table(
        found.table, significance, found.levels, risk_alpha=risk_alpha, runs=found.runs
    )


@takes(EVALUATION)
def per_query(
    frame: pd.DataFrame,
    metric: MetricLike,
    *,
    baseline: Hashable | None = None,
    columns: ColumnsLike = None,
    **options: Unpack[EvaluationOptions],
) -> pd.DataFrame:
    """Per-query values of one metric, run by run, with the differences to a baseline.

    What the mean hides: which queries a run wins and which it loses.

    Parameters
    ----------
    frame, columns
        As in :func:`evaluate`; the frame needs a run column with at least two runs.
    metric : str or Metric
        One metric.
    baseline : run id, optional
        The run the others are compared to; by default the first run in the runs'
        order (the order they first appear in the frame, or a categorical's categories).
    **options
        The evaluation options (below).

    Returns
    -------
    DataFrame
        One row per query, sorted by the difference of the first other run to the
        baseline, largest gain first (ties in query order). Columns are (stat, run)
        pairs: ``("value", run)`` for the baseline then every other run, and
        ``("delta", run)`` = run - baseline for every other run, so
        ``result["delta"]`` is a query x run table of differences.

    Raises
    ------
    SchemaError
        As in :func:`compare`.

    Examples
    --------
    >>> import pdireval
    >>> from pdireval.datasets import toy
    >>> pdireval.per_query(toy(), "AP", baseline="system1").round(4)
    stat      value          delta
    run     system1 system2 system2
    query
    topic2   0.5444  0.4429 -0.1016
    topic1   0.7750  0.5212 -0.2538
    """
    parsed = parse_metrics(metric)
    if len(parsed) != 1:
        msg = f"per_query takes one metric, got {[m.label for m in parsed]}"
        raise MetricError(msg)
    evaluation = Evaluation.from_options(options)
    roles = resolve(frame, columns)  # once, for the evaluation and the runs' order
    table = _per_query(frame, parsed, roles, evaluation)
    return per_query_table(table, baseline=baseline, runs=run_order(frame, roles.run))


@takes(COMPARISON, EVALUATION)
def report(
    frame: pd.DataFrame,
    metrics: MetricsLike,
    *,
    columns: ColumnsLike = None,
    **options: Unpack[ComparisonOptions],
) -> Report:
    """Evaluate once and build a :class:`~pdireval.Report` of the runs.

    Parameters
    ----------
    frame, metrics, columns
        As in :func:`evaluate`; the frame needs a run column with at least two runs.
    **options
        The significance and the evaluation options (below), as for :func:`compare`.
        The runs keep the frame's order (the order they first appear, or a
        categorical's categories), the baseline(s) first; the per-query table takes its
        deltas to ``baseline`` (the first of a list; the first run when ``None``, which
        is also the baseline of each pair it is in).

    Returns
    -------
    Report
        ``summary`` (mean per run and metric; with collection or judge columns the wide
        table papers print: a block of metrics per judge and collection, marks from the
        comparisons within each, and a macro average across collections; with a seed
        column each cell the mean over seeds), ``comparison`` (as :func:`compare`),
        ``per_query`` (as :func:`per_query`, one block per metric), ``efficiency`` (as
        :func:`efficiency`, when the frame has a time column) and ``about``; render
        with ``to_excel(path)``, ``to_latex()``, ``to_markdown()``, ``to_html()``,
        ``to_csv(folder)``, or display it in a notebook.

    Raises
    ------
    SchemaError, MetricError, MissingDependencyError
        As in :func:`compare`.

    Examples
    --------
    >>> import pdireval
    >>> from pdireval.datasets import toy
    >>> rep = pdireval.report(toy(), ["AP", "nDCG@10"], baseline="system1")
    >>> rep
    <Report: runs ['system1', 'system2'], metrics ['AP', 'nDCG@10'], 2 comparisons>
    >>> rep.comparison[["run", "metric", "significant"]]
           run   metric  significant
    0  system2       AP        False
    1  system2  nDCG@10        False
    """
    evaluation, significance, risk_alpha = comparison_options(options)
    parsed = parse_metrics(metrics)
    roles = resolve(frame, columns)  # once, for the times, the evaluation and the runs
    timed = roles.time is not None and Latency.default not in parsed
    table, levels = _evaluate.per_part(
        frame, [*parsed, Latency.default] if timed else parsed, roles, evaluation
    )
    latency = table.pop(Latency.default.label) if timed else None
    from pdireval.reports.build import build_report  # loaded when first used

    runs = run_order(frame, roles.run)
    return build_report(
        table,
        parsed,
        evaluation,
        significance,
        latency=latency,
        runs=runs,
        levels=levels,
        risk_alpha=risk_alpha,
    )


@takes(EVALUATION)
def tie_groups(
    frame: pd.DataFrame,
    k: int,
    *,
    rel: int = 1,
    columns: ColumnsLike = None,
    **options: Unpack[EvaluationOptions],
) -> pd.DataFrame:
    """Groups of equal scores that straddle the cutoff k: where the tie rule changes P@k.

    Parameters
    ----------
    frame, columns
        As in :func:`evaluate` (ranked by score; a rank column has no ties).
    k : int
        The cutoff to check.
    rel : int
        Minimum label counted as relevant, for the ``relevant`` column.
    **options
        The evaluation options (below).

    Returns
    -------
    DataFrame
        One row per group of tied documents that holds a judged document and has
        positions on both sides of k: the query (and run) columns, ``first_rank``,
        ``last_rank``, ``size``, ``judged`` and ``relevant`` (documents in the group).

    Examples
    --------
    >>> import pandas as pd, pdireval
    >>> df = pd.DataFrame({"query": "q", "doc": ["a", "b", "c", "d"],
    ...                    "score": [3.0, 2.0, 2.0, 1.0], "rel": [0, 1, None, 0]})
    >>> pdireval.tie_groups(df, 2)
      query  first_rank  last_rank  size  judged  relevant
    0     q           2          3     2       1         1
    """
    if isinstance(k, bool) or not isinstance(k, int | np.integer) or k < 1:
        msg = f"k={k!r} must be a whole number >= 1"
        raise ParameterError(msg)
    if isinstance(rel, bool) or not isinstance(rel, int | np.integer) or rel < 0:
        msg = f"rel={rel!r} must be a whole number >= 0"
        raise ParameterError(msg)
    return _evaluate.tie_groups(
        frame,
        int(k),
        int(rel),
        columns,
        Evaluation.from_options(options),
    )
