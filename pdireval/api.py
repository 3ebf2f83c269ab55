"""Typed public functions: the real API behind the ``.ireval`` accessor.

Every evaluating function takes a long frame (DESIGN §1), validates it once,
prepares it once and runs all requested metrics over the same prepared arrays.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

import numpy as np
import pandas as pd

from pdireval._comparison import (
    Baseline,
    CiMethod,
    Correction,
    Test,
    compare_table,
    per_query_table,
    summary_table,
)
from pdireval._errors import MetricError
from pdireval._prepare.columns import ColumnMap, as_column_map
from pdireval._prepare.merge import merge_qrels
from pdireval._prepare.ranking import QueryPolicy, TiePolicy, prepare
from pdireval._report import Report, build_report
from pdireval._summary import Agg, aggregate
from pdireval.correlation import Method
from pdireval.correlation import rank_correlation as _rank_correlation
from pdireval.curves import curve as _curve
from pdireval.curves import pr_curve as _pr_curve
from pdireval.metrics import AP, DCG, RR, MetricLike, P, R, Rprec, Success, nDCG, parse_metrics
from pdireval.metrics._base import Metric

__all__ = [
    "ap",
    "compare",
    "curve",
    "dcg",
    "evaluate",
    "gmap",
    "map",
    "merge_qrels",
    "mrr",
    "ndcg",
    "per_query",
    "pr_curve",
    "precision",
    "r_precision",
    "rank_correlation",
    "recall",
    "report",
    "rr",
    "success",
    "summary",
    "ties",
]

Columns = ColumnMap | Mapping[str, str] | None


def evaluate(
    frame: pd.DataFrame,
    metrics: MetricLike | Iterable[MetricLike],
    *,
    columns: Columns = None,
    queries: QueryPolicy = "judged",
    max_rank: int | None = None,
    judged_only: bool = False,
    ties: TiePolicy = "trec",
    validate: bool = True,
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
    queries : {"judged", "retrieved", "all"}
        ``"judged"`` (default): every query with at least one judgment, those that
        retrieved nothing scoring 0 (``trec_eval -c``); ``"retrieved"``: judged
        queries that retrieved something (plain ``trec_eval``); ``"all"``: also
        unjudged queries, with NaN values.
    max_rank : int, optional
        Evaluate only the top ``max_rank`` documents of each ranking (``trec_eval -M``).
    judged_only : bool
        Drop the retrieved documents without a judgment (no label, or a negative one)
        and rank the rest again, after ``max_rank`` (``trec_eval -J``).
    ties : {"trec", "optimistic", "pessimistic", "average"}
        How documents with equal scores are ordered (a rank column is always used as
        given): ``"trec"`` doc id descending (trec_eval); ``"optimistic"`` /
        ``"pessimistic"`` higher / lower labels first inside each group of equal scores;
        ``"average"`` the exact expected value over every order of each group (McSherry
        & Najork 2008), for P, R, AP, RR, DCG, CG and nDCG (with or without ``@k``).
    validate : bool
        Check the frame (null ids, duplicate documents, ranks, labels). Turn off only
        for frames already validated, e.g. in a tight loop.

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
        A metric name or parameter is not understood.

    Notes
    -----
    Ranking follows trec_eval. A rank column gives the order only: positions are
    renumbered 1..n inside each query, so ranks 1, 5, 9 act as 1, 2, 3. Without a rank
    column, documents are ordered by score descending, ties broken by doc id
    descending compared as strings (``"d9"`` before ``"d10"``). Relevance labels
    below ``rel`` -- and negative labels, which mark pooled but unjudged documents --
    are not relevant; unjudged documents count as not relevant.

    Examples
    --------
    >>> import pandas as pd, pdireval
    >>> df = pd.DataFrame({"query": ["q1"] * 4, "doc": ["a", "b", "c", "d"],
    ...                    "rank": [1, 2, 3, None], "rel": [1, 0, 1, 1]})
    >>> pdireval.evaluate(df, ["AP", "P@2", "R@3"])
    metric        AP  P@2       R@3
    query
    q1      0.555556  0.5  0.666667
    """
    parsed = parse_metrics(metrics)
    resolved = as_column_map(columns).resolve(frame)
    prepared = prepare(
        frame,
        resolved,
        queries=queries,
        max_rank=max_rank,
        judged_only=judged_only,
        ties=ties,
        validate=validate,
    )
    values = {metric.label: metric.compute(prepared.ranked) for metric in parsed}
    table = pd.DataFrame(values, index=prepared.index, dtype=np.float64)
    table.loc[prepared.blank] = np.nan
    table = table.loc[prepared.keep]
    table.columns.name = "metric"
    return table


def summary(
    frame: pd.DataFrame,
    metrics: MetricLike | Iterable[MetricLike],
    *,
    agg: Agg = "mean",
    columns: Columns = None,
    queries: QueryPolicy = "judged",
    max_rank: int | None = None,
    judged_only: bool = False,
    ties: TiePolicy = "trec",
    validate: bool = True,
    ci: float | None = None,
    ci_method: CiMethod = "t",
    n_resamples: int = 10_000,
    seed: Any = None,
) -> pd.Series | pd.DataFrame:
    """Aggregate per-query values over queries: MAP, GMAP, MRR, mean nDCG@k, ...

    Parameters
    ----------
    frame, metrics, columns, queries, max_rank, judged_only, ties, validate
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

    Returns
    -------
    Series or DataFrame
        A Series indexed by metric label; with a run column, a DataFrame with one
        row per run and one column per metric. With ``ci``: without a run column a
        DataFrame indexed by metric with columns ``[agg, "ci_low", "ci_high"]``; with
        one, a DataFrame with one row per run and (metric, stat) column pairs, so
        ``result["AP"]`` has the columns ``[agg, "ci_low", "ci_high"]`` and
        ``result.xs("mean", axis=1, level="stat")`` is the table without ``ci``.

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
    table = evaluate(
        frame,
        metrics,
        columns=columns,
        queries=queries,
        max_rank=max_rank,
        judged_only=judged_only,
        ties=ties,
        validate=validate,
    )
    if ci is not None:
        return summary_table(
            table, agg=agg, ci=ci, ci_method=ci_method, n_resamples=n_resamples, seed=seed
        )
    return aggregate(table, agg, by_run=isinstance(table.index, pd.MultiIndex))


def _single(frame: pd.DataFrame, metric: Metric, options: dict[str, Any]) -> pd.Series:
    return evaluate(frame, metric, **options)[metric.label]


def _aggregated(frame: pd.DataFrame, metric: Metric, agg: Agg, options: dict[str, Any]):
    result = summary(frame, metric, agg=agg, **options)
    return result[metric.label] if isinstance(result, pd.DataFrame) else float(result.iloc[0])


def precision(frame: pd.DataFrame, k: int, *, rel: int = 1, **options: Any) -> pd.Series:
    """Per-query precision at k (``P@k``); options as in :func:`evaluate`."""
    return _single(frame, P(rel=rel) @ k, options)


def recall(frame: pd.DataFrame, k: int, *, rel: int = 1, **options: Any) -> pd.Series:
    """Per-query recall at k (``R@k``); options as in :func:`evaluate`."""
    return _single(frame, R(rel=rel) @ k, options)


def _ap(k: int | None, rel: int) -> Metric:
    metric = AP(rel=rel)
    return metric @ k if k is not None else metric


def ap(frame: pd.DataFrame, k: int | None = None, *, rel: int = 1, **options: Any) -> pd.Series:
    """Per-query average precision (``AP`` or ``AP@k``); options as in :func:`evaluate`."""
    return _single(frame, _ap(k, rel), options)


def map(  # noqa: A001 - the name users expect
    frame: pd.DataFrame, k: int | None = None, *, rel: int = 1, **options: Any
) -> float | pd.Series:
    """Mean average precision: a float, or a Series by run when the frame has a run column."""
    return _aggregated(frame, _ap(k, rel), "mean", options)


def gmap(
    frame: pd.DataFrame, k: int | None = None, *, rel: int = 1, **options: Any
) -> float | pd.Series:
    """Geometric mean average precision (values floored at 1e-5, as trec_eval's gm_map)."""
    return _aggregated(frame, _ap(k, rel), "gmean", options)


def _rr(k: int | None, rel: int) -> Metric:
    metric = RR(rel=rel)
    return metric @ k if k is not None else metric


def rr(frame: pd.DataFrame, k: int | None = None, *, rel: int = 1, **options: Any) -> pd.Series:
    """Per-query reciprocal rank (``RR`` or ``RR@k``); options as in :func:`evaluate`."""
    return _single(frame, _rr(k, rel), options)


def mrr(
    frame: pd.DataFrame, k: int | None = None, *, rel: int = 1, **options: Any
) -> float | pd.Series:
    """Mean reciprocal rank: a float, or a Series by run when the frame has a run column."""
    return _aggregated(frame, _rr(k, rel), "mean", options)


def _gain_metric(family, k, rel, gain, discount, base) -> Metric:
    metric = family(rel=rel, gain=gain, discount=discount, base=base)
    return metric @ k if k is not None else metric


def ndcg(
    frame: pd.DataFrame,
    k: int | None = None,
    *,
    rel: int = 1,
    gain: str | Mapping[int, float] = "linear",
    discount: str = "log2",
    base: float = 2,
    **options: Any,
) -> pd.Series:
    """Per-query nDCG (``nDCG`` or ``nDCG@k``); see :data:`pdireval.metrics.nDCG`."""
    return _single(frame, _gain_metric(nDCG, k, rel, gain, discount, base), options)


def dcg(
    frame: pd.DataFrame,
    k: int | None = None,
    *,
    rel: int = 1,
    gain: str | Mapping[int, float] = "linear",
    discount: str = "log2",
    base: float = 2,
    **options: Any,
) -> pd.Series:
    """Per-query DCG (``DCG`` or ``DCG@k``); see :data:`pdireval.metrics.DCG`."""
    return _single(frame, _gain_metric(DCG, k, rel, gain, discount, base), options)


def r_precision(frame: pd.DataFrame, *, rel: int = 1, **options: Any) -> pd.Series:
    """Per-query R-precision (``Rprec``); options as in :func:`evaluate`."""
    return _single(frame, Rprec(rel=rel), options)


def success(frame: pd.DataFrame, k: int, *, rel: int = 1, **options: Any) -> pd.Series:
    """Per-query success at k (``Success@k``); options as in :func:`evaluate`."""
    return _single(frame, Success(rel=rel) @ k, options)


def compare(
    frame: pd.DataFrame,
    metrics: MetricLike | Iterable[MetricLike],
    *,
    baseline: Baseline = None,
    test: Test = "t",
    correction: Correction | None = "holm",
    alpha: float = 0.05,
    n_resamples: int = 10_000,
    seed: Any = None,
    columns: Columns = None,
    queries: QueryPolicy = "judged",
    max_rank: int | None = None,
    judged_only: bool = False,
    ties: TiePolicy = "trec",
    validate: bool = True,
) -> pd.DataFrame:
    """Paired significance tests between runs, with effect sizes and confidence intervals.

    Parameters
    ----------
    frame, metrics, columns, queries, max_rank, judged_only, ties, validate
        As in :func:`evaluate`; the frame needs a run column with at least two runs.
    baseline : run id, list of run ids, or None
        One run: every other run is compared to it. A list: each listed run in turn
        (a pair already compared is not repeated in reverse). ``None`` (default): all
        pairs, the run that sorts first as the baseline of each pair.
    test : {"t", "wilcoxon", "sign", "permutation", "bootstrap"}
        Two-sided paired test of the per-query differences ``run - baseline``:
        ``"t"`` Student's paired t-test (as ``scipy.stats.ttest_rel``); ``"wilcoxon"``
        the signed-rank test (``scipy.stats.wilcoxon`` with its defaults: zero
        differences dropped); ``"sign"`` the exact binomial sign test over wins and
        losses (ties dropped); ``"permutation"`` a paired randomisation test
        (``n_resamples`` random sign flips of the differences); ``"bootstrap"`` the
        shift-method bootstrap test of the mean difference (``n_resamples``
        resamples of the queries).
    correction : {"holm", "bonferroni", "fdr_bh"} or None
        Multiple-comparison adjustment applied across *every* comparison of the call
        (pairs x metrics): Holm's step-down, Bonferroni, or Benjamini-Hochberg false
        discovery rate. ``None`` leaves the p-values as they are.
    alpha : float
        A comparison is ``significant`` when ``p_adjusted < alpha``; the interval
        ``ci_low``..``ci_high`` of the mean difference has level ``1 - alpha``.
    n_resamples : int
        Resamples of the permutation and bootstrap tests.
    seed : int or numpy SeedSequence, optional
        Seed of ``numpy.random.default_rng``. With a seed the permutation and
        bootstrap results are reproducible; each metric uses the same resamples, so a
        comparison's p-value does not depend on the other comparisons in the call.

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
    MetricError
        Unknown ``test=``/``correction=``, or ``alpha``/``n_resamples`` out of range.
    MissingDependencyError
        scipy is not installed (``pip install 'pdireval[stats]'``).

    Notes
    -----
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
    >>> from pdireval._example import example_frame
    >>> result = pdireval.compare(example_frame(), ["AP", "P@5"], baseline="system1")
    >>> result[["run", "baseline", "metric", "delta", "wins", "losses"]].round(4)
           run baseline metric   delta  wins  losses
    0  system2  system1     AP -0.1777     0       2
    1  system2  system1    P@5 -0.1000     1       1
    """
    table = evaluate(
        frame,
        metrics,
        columns=columns,
        queries=queries,
        max_rank=max_rank,
        judged_only=judged_only,
        ties=ties,
        validate=validate,
    )
    return compare_table(
        table,
        baseline=baseline,
        test=test,
        correction=correction,
        alpha=alpha,
        n_resamples=n_resamples,
        seed=seed,
    )


def per_query(
    frame: pd.DataFrame,
    metric: MetricLike,
    *,
    baseline: Any = None,
    columns: Columns = None,
    queries: QueryPolicy = "judged",
    max_rank: int | None = None,
    judged_only: bool = False,
    ties: TiePolicy = "trec",
    validate: bool = True,
) -> pd.DataFrame:
    """Per-query values of one metric, run by run, with the differences to a baseline.

    What the mean hides: which queries a run wins and which it loses.

    Parameters
    ----------
    frame, columns, queries, max_rank, judged_only, ties, validate
        As in :func:`evaluate`; the frame needs a run column with at least two runs.
    metric : str or Metric
        One metric.
    baseline : run id, optional
        The run the others are compared to; the run that sorts first when omitted.

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
    >>> from pdireval._example import example_frame
    >>> pdireval.per_query(example_frame(), "AP", baseline="system1").round(4)
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
    table = evaluate(
        frame,
        parsed,
        columns=columns,
        queries=queries,
        max_rank=max_rank,
        judged_only=judged_only,
        ties=ties,
        validate=validate,
    )
    return per_query_table(table, baseline=baseline)


def report(
    frame: pd.DataFrame,
    metrics: MetricLike | Iterable[MetricLike],
    *,
    baseline: Baseline = None,
    test: Test = "t",
    correction: Correction | None = "holm",
    alpha: float = 0.05,
    n_resamples: int = 10_000,
    seed: Any = None,
    columns: Columns = None,
    queries: QueryPolicy = "judged",
    max_rank: int | None = None,
    judged_only: bool = False,
    ties: TiePolicy = "trec",
    validate: bool = True,
) -> Report:
    """Evaluate once and build a :class:`~pdireval.report.Report` of the runs.

    Parameters
    ----------
    frame, metrics, columns, queries, max_rank, judged_only, ties, validate
        As in :func:`evaluate`; the frame needs a run column with at least two runs.
    baseline, test, correction, alpha, n_resamples, seed
        As in :func:`compare`. The per-query table takes its deltas to ``baseline``
        (the first of a list; the run that sorts first when ``None``).

    Returns
    -------
    Report
        ``summary`` (mean per run and metric), ``comparison`` (as :func:`compare`),
        ``per_query`` (as :func:`per_query`, one block per metric) and ``about``;
        render with ``to_excel(path)``, ``to_latex()``, ``to_markdown()``,
        ``to_csv(folder)``, or display it in a notebook.

    Raises
    ------
    SchemaError, MetricError, MissingDependencyError
        As in :func:`compare`.

    Examples
    --------
    >>> import pdireval
    >>> from pdireval._example import example_frame
    >>> rep = pdireval.report(example_frame(), ["AP", "nDCG@10"], baseline="system1")
    >>> rep
    <Report: runs ['system1', 'system2'], metrics ['AP', 'nDCG@10'], 2 comparisons>
    >>> rep.comparison[["run", "metric", "significant"]]
           run   metric  significant
    0  system2       AP        False
    1  system2  nDCG@10        False
    """
    parsed = parse_metrics(metrics)
    table = evaluate(
        frame,
        parsed,
        columns=columns,
        queries=queries,
        max_rank=max_rank,
        judged_only=judged_only,
        ties=ties,
        validate=validate,
    )
    settings = {
        "queries": queries,
        "max_rank": max_rank,
        "judged_only": judged_only,
        "ties": ties,
    }
    return build_report(
        table,
        parsed,
        baseline=baseline,
        test=test,
        correction=correction,
        alpha=alpha,
        n_resamples=n_resamples,
        seed=seed,
        settings=settings,
    )


def rank_correlation(
    frame: pd.DataFrame,
    run_a: Any = None,
    run_b: Any = None,
    *,
    method: Method = "kendall",
    columns: Columns = None,
) -> pd.Series:
    """Per-query rank correlation of two runs, or of a run and the ideal ordering by label.

    See :func:`pdireval.correlation.rank_correlation`.
    """
    return _rank_correlation(frame, run_a, run_b, method=method, columns=columns)


def pr_curve(frame: pd.DataFrame, **options: Any) -> pd.DataFrame:
    """Precision-recall curve per query as a long table; see :func:`pdireval.curves.pr_curve`."""
    return _pr_curve(frame, **options)


def curve(
    frame: pd.DataFrame, metric: MetricLike, ks: Iterable[int] = range(1, 11), **options: Any
) -> pd.DataFrame:
    """A metric at several cutoffs as a long table; see :func:`pdireval.curves.curve`."""
    return _curve(frame, metric, ks, **options)


def ties(
    frame: pd.DataFrame,
    k: int,
    *,
    rel: int = 1,
    columns: Columns = None,
    queries: QueryPolicy = "judged",
) -> pd.DataFrame:
    """Groups of equal scores that straddle the cutoff k: where the tie rule changes P@k.

    Parameters
    ----------
    frame, columns, queries
        As in :func:`evaluate` (ranked by score; a rank column has no ties).
    k : int
        The cutoff to check.
    rel : int
        Minimum label counted as relevant, for the ``relevant`` column.

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
    >>> pdireval.ties(df, 2)
      query  first_rank  last_rank  size  judged  relevant
    0     q           2          3     2       1         1
    """
    if isinstance(k, bool) or not isinstance(k, int | np.integer) or k < 1:
        msg = f"k={k!r} must be a whole number >= 1"
        raise MetricError(msg)
    resolved = as_column_map(columns).resolve(frame)
    prepared = prepare(frame, resolved, queries=queries)
    ranked = prepared.ranked
    keep = prepared.keep[ranked.group]
    group, first = ranked.group[keep], ranked.tie_first[keep]
    size, relevant = ranked.tie_size[keep], ranked.relevant(rel)[keep]
    judged = ranked.label[keep] >= 0
    new = np.ones(len(group), dtype=bool)
    new[1:] = (group[1:] != group[:-1]) | (first[1:] != first[:-1])
    starts = np.flatnonzero(new)
    block = np.cumsum(new) - 1
    table = pd.DataFrame(
        {
            "first_rank": first[starts],
            "last_rank": first[starts] + size[starts] - 1,
            "size": size[starts],
            "judged": np.bincount(block, weights=judged, minlength=len(starts)).astype(int),
            "relevant": np.bincount(block, weights=relevant, minlength=len(starts)).astype(int),
        }
    )
    straddles = ((table["first_rank"] <= k) & (table["last_rank"] > k)).to_numpy()
    ids = prepared.index.take(group[starts][straddles]).to_frame(index=False)
    return pd.concat([ids, table[straddles].reset_index(drop=True)], axis=1)
