"""Opt-in Dask backend: ``import pdireval.dask`` registers ``.ireval`` on dask DataFrames.

``import pdireval`` never imports dask; this module does, at its top. Each query is brought
to one partition by a single shuffle on the query column, then the pandas engine
(:func:`pdireval.evaluate`, :func:`pdireval.merge_qrels`) runs on every partition, so the
numbers are those of pandas. Install with ``pip install "pdireval[dask]"``.

Examples
--------
>>> import dask.dataframe as dd
>>> import pdireval.dask
>>> from pdireval.datasets import example
>>> ddf = dd.from_pandas(example(), npartitions=4)
>>> ddf.ireval.summary(["AP", "nDCG@10"]).round(4)
metric      AP  nDCG@10
run
strong  0.8781   0.9347
medium  0.5756   0.7178
weak    0.2161   0.2868
"""

from __future__ import annotations

import logging
from collections.abc import Hashable, Iterable, Mapping
from typing import Any

import numpy as np
import pandas as pd

from pdireval._core.errors import ParameterError, SchemaError
from pdireval._core.ids import id_kind
from pdireval._core.levels import GROUP_ROLES, Levels
from pdireval._core.optional import optional
from pdireval._core.options import (
    EVALUATION,
    Evaluation,
    Option,
    Significance,
    as_given,
    check,
    excluding,
    judgments_of,
    takes,
)
from pdireval._core.roles import (
    DEFAULT_COLUMNS,
    ROLES,
    ColumnMap,
    ResolvedColumns,
    as_column_map,
)
from pdireval._prepare.merge import has_subtopics, merge_resolved, merge_subtopics
from pdireval.engine import evaluate as _evaluate
from pdireval.engine.merge import merge_qrels as merge_frames
from pdireval.engine.parts import PART_ROLES
from pdireval.engine.runs import run_order
from pdireval.metrics import Latency, Metric, parse_metrics
from pdireval.stats.comparison import compare_table
from pdireval.stats.summary import aggregate, efficiency_table, in_run_order, summary_table
from pdireval.typing import Aggregate as Agg
from pdireval.typing import Baseline, CiMethod, Correction, MetricLike, Test

optional("dask.dataframe", purpose="pdireval.dask")  # the install hint, when dask is missing

import dask  # noqa: E402
import dask.dataframe as dd  # noqa: E402
from dask.dataframe.extensions import register_dataframe_accessor  # noqa: E402

__all__ = ["DaskIREvalAccessor", "compare", "evaluate", "merge_qrels", "summary"]

#: The evaluation options a Dask frame takes: those of pandas but ``qrels=`` (merge the
#: judgments in with :func:`merge_qrels`).
DASK_EVALUATION = (
    *excluding(EVALUATION, "qrels", "qrels_columns"),
    Option(
        "qrels",
        None,
        "None",
        """Not taken by the Dask backend: merge the judgments into the frame with
:func:`merge_qrels` first.""",
        as_given,
    ),
)

#: How a Dask frame is brought into partitions of whole queries.
PARTITIONING = (
    Option(
        "shuffle",
        True,
        "bool, default True",
        """Shuffle on the query ids first, on a hash of their values that does not
depend on the dtype (so partitions whose query columns differ in dtype still agree).
``False`` evaluates the partitions as they are -- right for the output of
:func:`merge_qrels`, or one file per run -- and checks, when the result is computed, that
no (run, judge, collection, seed, query) group has rows in two partitions.""",
        as_given,
    ),
    Option(
        "npartitions",
        None,
        "int, optional",
        """Partitions after the shuffle; those of ``frame`` by default.""",
        as_given,
    ),
)

Columns = ColumnMap | Mapping[str, str] | None

_KEY = "__pdireval_partition_key__"


class _RoutineShuffleLines(logging.Filter):
    """Drop the two lines distributed's P2P shuffle logs at WARNING for every shuffle it
    starts and ends (informational, not warnings); its real warnings and errors pass.
    """

    ROUTINE = ("Shuffle %s initialized by task", "Shuffle %s deactivated due to stimulus")

    def filter(self, record: logging.LogRecord) -> bool:
        return not (isinstance(record.msg, str) and record.msg.startswith(self.ROUTINE))


_SHUFFLE_LOG = logging.getLogger("distributed.shuffle._scheduler_plugin")
if not any(isinstance(f, _RoutineShuffleLines) for f in _SHUFFLE_LOG.filters):
    _SHUFFLE_LOG.addFilter(_RoutineShuffleLines())


def _meta_of(frame: object, name: str = "frame") -> pd.DataFrame:
    """The empty pandas frame that describes a dask DataFrame's columns; anything else is
    refused, saying what to use instead.
    """
    if isinstance(frame, dd.DataFrame):
        return frame._meta
    kind = type(frame)
    fix = (
        "use the pandas functions (pdireval.evaluate, df.ireval...) or make it a dask "
        "DataFrame with dd.from_pandas(frame, npartitions=...)"
        if isinstance(frame, pd.DataFrame)
        else "read it with dask.dataframe (dd.read_parquet, dd.read_csv, dd.from_pandas)"
    )
    msg = (
        f"pdireval.dask takes a dask DataFrame as {name}, got "
        f"{kind.__module__}.{kind.__qualname__}; {fix}"
    )
    raise SchemaError(msg)


def _group_roles(resolved: ResolvedColumns) -> list[str]:
    """The roles of a frame that group its rows, in the order of the result's index
    levels: run, judge, collection, seed (those present), then query.
    """
    return [role for role in (*GROUP_ROLES, "query") if getattr(resolved, role) is not None]


def _keys(resolved: ResolvedColumns) -> list[str]:
    """The columns of :func:`_group_roles`: the id columns of a per-query table."""
    return [resolved.name(role) for role in _group_roles(resolved)]


def _evaluate_partition(
    part: pd.DataFrame,
    metrics: list[Metric],
    columns: ColumnMap,
    options: Evaluation,
    levels: list[str],
    checked: None = None,
) -> pd.DataFrame:
    """The pandas engine on one partition, its ids as columns (``levels``: the judge,
    collection and seed columns, given back the partition's dtypes -- a partition without
    rows would otherwise give them as objects; ``checked``: the colocation check's
    result, passed only so that every partition waits for it).
    """
    frame = part.drop(columns=_KEY, errors="ignore")
    table, _ = _evaluate.per_part(frame, metrics, columns, options)
    table = table.reset_index()
    table.columns.name = None
    mismatched = {
        name: frame[name].dtype for name in levels if table[name].dtype != frame[name].dtype
    }
    return table.astype(mismatched) if mismatched else table


def _groups_of(part: pd.DataFrame, names: list[str]) -> pd.DataFrame:
    """The distinct (run, ..., query) ids of one partition, as plain Python objects."""
    ids = part[names].drop_duplicates()
    return pd.DataFrame({name: ids[name].astype(object) for name in names})


def _refuse_split(parts: list[pd.DataFrame], roles: list[str]) -> None:
    """Raise when a (run, judge, collection, seed, query) group has rows in more than one
    partition (``roles``: the roles of the groups' columns).
    """
    ids = pd.concat(parts, ignore_index=True)
    split = ids[ids.duplicated(keep=False)].drop_duplicates()
    if len(split):
        example = ", ".join(f"{name}={value!r}" for name, value in split.iloc[0].items())
        what = "pair(s)" if len(roles) == 2 else "group(s)"
        msg = (
            f"shuffle=False evaluates every partition on its own, but {len(split)} "
            f"({', '.join(roles)}) {what} have rows in more than one partition (e.g. "
            f"{example}), so their values would come from part of their rows; pass "
            "shuffle=True (the default) to bring each query into one partition first, or "
            "build the frame with pdireval.dask.merge_qrels, whose partitions hold whole "
            "queries"
        )
        raise SchemaError(msg)


def _check_partitioning(shuffle: object, npartitions: object) -> None:
    if not isinstance(shuffle, bool):
        msg = f"shuffle={shuffle!r} must be True or False"
        raise ParameterError(msg)
    if npartitions is None:
        return
    if isinstance(npartitions, bool) or not isinstance(npartitions, int) or npartitions < 1:
        msg = f"npartitions={npartitions!r} must be a whole number >= 1, or None"
        raise ParameterError(msg)
    if not shuffle:
        msg = (
            "npartitions= sets the partitions of the shuffle; with shuffle=False the "
            "frame keeps its own partitions (repartition it first if needed)"
        )
        raise ParameterError(msg)


def _query_kind_is_number(meta: pd.DataFrame, query: str) -> bool:
    return bool(id_kind(meta[query]) == "number")


@takes(PARTITIONING, DASK_EVALUATION)
def evaluate(
    frame: dd.DataFrame,
    metrics: MetricLike | Iterable[MetricLike],
    *,
    columns: Columns = None,
    **options: Any,
) -> dd.DataFrame:
    """Per-query values of one or more metrics, lazily, on a dask DataFrame.

    Parameters
    ----------
    frame : dask DataFrame
        A long frame (as for :func:`pdireval.evaluate`), in any number of partitions,
        with every role the pandas engine takes: run, judge, collection and seed columns
        included.
    metrics, columns
        As in :func:`pdireval.evaluate`.
    **options
        The partitioning options and the evaluation options of
        :func:`pdireval.evaluate` (below) but ``qrels=``: merge the judgments in with
        :func:`merge_qrels`.

    Returns
    -------
    dask DataFrame
        Lazy; nothing is computed until ``.compute()``. Unlike the pandas result the ids
        are *columns*, not the index (dask has no MultiIndex): the run, judge,
        collection and seed columns (those present, in that order), the query column,
        then one float64 column per canonical metric label, i.e.
        ``pdireval.evaluate(df, ...).reset_index()`` with the rows grouped by partition
        instead of sorted. ``result.compute().set_index(["run", "query"]).sort_index()``
        gives the pandas table.

    Raises
    ------
    SchemaError, MetricError
        At call time for unknown metrics, missing columns and bad options; at compute
        time for problems in the data (duplicate documents, bad ranks, ...) and, with
        ``shuffle=False``, for a group split over partitions.

    Notes
    -----
    One shuffle on the query column puts all rows of a query -- every run's, judge's,
    collection's and seed's -- in one partition; :func:`pdireval.evaluate` then runs on
    each partition, so the values are exactly those of the pandas engine. A query id
    used by two collections is two queries: both land in one partition, and the engine
    keeps them apart.

    Examples
    --------
    >>> import dask.dataframe as dd, pandas as pd, pdireval.dask
    >>> df = pd.DataFrame({"query": ["q1", "q1", "q2", "q2"], "doc": ["a", "b", "a", "b"],
    ...                    "rank": [1, 2, 1, 2], "rel": [0, 1, 1, 0]})
    >>> lazy = pdireval.dask.evaluate(dd.from_pandas(df, npartitions=2), ["AP", "RR"])
    >>> lazy.compute().sort_values("query").to_string(index=False)
    'query   AP  RR\\n   q1 0.5 0.5\\n   q2 1.0 1.0'

    Several judges' labels of the same rankings (a ``judge`` column) give a level each:

    >>> judged = pd.concat([df.assign(judge="human"), df.assign(judge="llm", rel=1)])
    >>> lazy = pdireval.dask.evaluate(dd.from_pandas(judged, npartitions=2), ["AP"])
    >>> lazy.compute().sort_values(["judge", "query"]).to_string(index=False)
    'judge query  AP\\nhuman    q1 0.5\\nhuman    q2 1.0\\n  llm    q1 1.0\\n  llm    q2 1.0'
    """
    shuffle, npartitions = options.pop("shuffle", True), options.pop("npartitions", None)
    _check_partitioning(shuffle, npartitions)
    parsed = parse_metrics(metrics)
    resolved = as_column_map(columns).resolve(_meta_of(frame))
    resolved.require(frame._meta, "query")
    explicit = resolved.explicit()  # every partition resolves the roles the frame did
    evaluation = Evaluation.from_options(options)
    if evaluation.qrels is not None:  # a partition would count every judged query as its own
        msg = (
            "qrels= is not taken by the Dask backend: merge the judgments into the frame "
            "with pdireval.dask.merge_qrels(run, qrels) and evaluate its result"
        )
        raise ParameterError(msg)
    levels = [name for role in PART_ROLES if (name := getattr(resolved, role)) is not None]
    meta = _evaluate_partition(frame._meta, parsed, explicit, evaluation, levels)
    query = resolved.name("query")
    if shuffle:
        numeric = _query_kind_is_number(frame._meta, query)
        keyed = frame.map_partitions(_with_key, query, numeric, frame._meta.dtypes.to_dict())
        frame = keyed.shuffle(on=_KEY, npartitions=npartitions)
        return frame.map_partitions(
            _evaluate_partition,
            parsed,
            explicit,
            evaluation,
            levels,
            meta=meta,
            enforce_metadata=False,
        )
    # Every partition waits for the check that no group is split between them.
    roles = _group_roles(resolved)
    names = _keys(resolved)
    parts = frame.to_delayed()
    checked = dask.delayed(_refuse_split)(
        [dask.delayed(_groups_of)(p, names) for p in parts], roles
    )
    evaluated = [
        dask.delayed(_evaluate_partition)(p, parsed, explicit, evaluation, levels, checked)
        for p in parts
    ]
    return dd.from_delayed(evaluated, meta=meta, verify_meta=False)


def _first_seen(ids: pd.Series) -> pd.Series:
    """The distinct ids of one partition, in the order they first appear."""
    return ids.drop_duplicates()


def _computed(
    frame: dd.DataFrame,
    metrics: list[Metric],
    columns: Columns,
    options: Mapping[str, Any],
    *,
    runs: bool = False,
) -> tuple[pd.DataFrame, Levels, list[Hashable] | None]:
    """The per-query table of ``frame`` as :func:`pdireval.evaluate` gives it, which index
    level is which and -- with ``runs`` -- the runs in the order they first appear in
    the frame (partition by partition), found in the same computation.
    """
    lazy = evaluate(frame, metrics, columns=columns, **options)
    resolved = as_column_map(columns).resolve(_meta_of(frame))
    order = None
    if runs and resolved.run is not None:
        ids = frame[resolved.run]
        seen = ids.map_partitions(_first_seen, meta=ids._meta)
        computed, first = dask.compute(lazy, seen)
        order = run_order(first.to_frame(), resolved.run)
    else:
        (computed,) = dask.compute(lazy)
    table = _indexed(computed, resolved)
    return table, Levels.of(table, resolved.roles()), order


def _indexed(computed: pd.DataFrame, resolved: ResolvedColumns) -> pd.DataFrame:
    """The computed rows in the shape and order of :func:`pdireval.evaluate`: sorted by
    run, judge, collection, seed and query (a categorical column in the order of its
    categories, as pandas orders the parts), the ids as the index, the judge, collection
    and seed levels of the dtype pandas gives them.
    """
    keys = _keys(resolved)
    table = computed.sort_values(keys, kind="stable", ignore_index=True)
    inferred = {}
    for role in PART_ROLES:  # pandas builds these levels from the values (the parts' keys)
        name = getattr(resolved, role)
        if name is not None:
            inferred[name] = pd.Index(table[name].drop_duplicates().tolist()).dtype
    table = table.astype(inferred).set_index(keys)
    table.columns.name = "metric"
    return table


@takes(PARTITIONING, DASK_EVALUATION)
def summary(
    frame: dd.DataFrame,
    metrics: MetricLike | Iterable[MetricLike],
    *,
    agg: Agg = "mean",
    columns: Columns = None,
    ci: float | None = None,
    ci_method: CiMethod = "t",
    n_resamples: int = 10_000,
    seed: Any = None,
    **options: Any,
) -> pd.Series | pd.DataFrame:
    """Aggregated values (MAP, mean nDCG@k, ...) of a dask DataFrame, as pandas.

    Parameters
    ----------
    frame : dask DataFrame
        A long frame.
    metrics, agg, columns, ci, ci_method, n_resamples, seed
        As in :func:`pdireval.summary`.
    **options
        The partitioning and evaluation options of :func:`evaluate` (below).

    Returns
    -------
    Series or DataFrame
        Computed (not lazy): exactly what :func:`pdireval.summary` returns for the same
        rows in pandas -- a row per run, judge, collection and seed present, and the
        latency statistics of :func:`pdireval.efficiency` when the frame has a time
        column. The per-query table (queries x runs rows, small) is computed on the
        cluster with :func:`evaluate`, then aggregated in pandas.

    Examples
    --------
    >>> import dask.dataframe as dd, pandas as pd, pdireval.dask
    >>> df = pd.DataFrame({"query": ["q1", "q1", "q2", "q2"], "doc": ["a", "b", "a", "b"],
    ...                    "rank": [1, 2, 1, 2], "rel": [0, 1, 1, 0]})
    >>> pdireval.dask.summary(dd.from_pandas(df, npartitions=2), ["AP", "RR"])
    metric
    AP    0.75
    RR    0.75
    Name: mean, dtype: float64

    With a time column (seconds per query), the latency statistics follow:

    >>> timed = df.assign(time=[0.2, 0.2, 0.4, 0.4])
    >>> pdireval.dask.summary(dd.from_pandas(timed, npartitions=2), "AP")[
    ...     ["AP", "queries", "latency_mean", "mrt"]].round(3)
    AP                0.75
    queries           2.00
    latency_mean      0.30
    mrt             300.00
    Name: mean, dtype: float64
    """
    parsed = parse_metrics(metrics)
    resolved = as_column_map(columns).resolve(_meta_of(frame))
    timed = resolved.time is not None and ci is None  # as pdireval.summary decides
    evaluated = parse_metrics([*parsed, Latency]) if timed else parsed
    table, levels, runs = _computed(frame, evaluated, columns, options, runs=True)
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
    return in_run_order(_with_efficiency(table, levels, parsed, agg), runs, levels)


def _with_efficiency(
    table: pd.DataFrame, levels: Levels, parsed: list[Metric], agg: str
) -> pd.Series | pd.DataFrame:
    """The aggregates of a per-query table with a Latency column, followed by the latency
    statistics, as :func:`pdireval.summary` puts them (Latency itself only if asked for).
    """
    label = Latency.default.label
    latency = table[label]
    if Latency.default not in parsed:  # added for the statistics only
        table = table.drop(columns=label)
    result = aggregate(table, agg, levels=levels)
    stats = efficiency_table(latency, levels)
    if isinstance(result, pd.Series):
        return pd.concat([result, stats.iloc[0]]).rename(agg)
    return pd.concat([result, stats.drop(columns="queries")], axis=1)


@takes(PARTITIONING, DASK_EVALUATION)
def compare(
    frame: dd.DataFrame,
    metrics: MetricLike | Iterable[MetricLike],
    *,
    baseline: Baseline = None,
    test: Test = "t",
    correction: Correction | None = "holm",
    alpha: float = 0.05,
    n_resamples: int = 10_000,
    seed: Any = None,
    risk_alpha: float | None = None,
    columns: Columns = None,
    **options: Any,
) -> pd.DataFrame:
    """Paired significance tests between the runs of a dask DataFrame, as pandas.

    Parameters
    ----------
    frame : dask DataFrame
        A long frame with a run column and at least two runs.
    metrics, baseline, test, correction, alpha, n_resamples, seed, risk_alpha, columns
        As in :func:`pdireval.compare`. With ``baseline=None`` the pairs follow the
        order in which the runs first appear in ``frame`` (partition by partition, then
        row by row; a categorical run column's categories), the earlier run of each pair
        its baseline -- what :func:`pdireval.compare` gives for ``frame.compute()``.
    **options
        The partitioning and evaluation options of :func:`evaluate` (below).

    Returns
    -------
    DataFrame
        Computed: the per-query table is computed with :func:`evaluate` (queries x runs
        rows) and compared in pandas, so the result equals :func:`pdireval.compare`'s:
        runs compared within each judge and collection, a column per such level. The
        runs' order is found in the same computation, without another pass over the
        frame.

    Examples
    --------
    >>> import dask.dataframe as dd, pdireval.dask
    >>> from pdireval.datasets import toy
    >>> ddf = dd.from_pandas(toy(), npartitions=2)
    >>> result = pdireval.dask.compare(ddf, "AP", baseline="system1", test="sign")
    >>> result[["run", "baseline", "metric", "wins", "losses"]]
           run baseline metric  wins  losses
    0  system2  system1     AP     0       2
    """
    significance = Significance.from_options(
        {
            "baseline": baseline,
            "test": test,
            "correction": correction,
            "alpha": alpha,
            "n_resamples": n_resamples,
            "seed": seed,
        }
    )
    check("risk_alpha", risk_alpha)  # refused before anything is computed
    parsed = parse_metrics(metrics)
    table, levels, runs = _computed(frame, parsed, columns, options, runs=True)
    return compare_table(table, significance, levels, risk_alpha=risk_alpha, runs=runs)


def _colocation_key(ids: pd.Series, numeric: bool) -> np.ndarray:
    """A uint64 per id, equal for ids that :func:`pdireval.merge_qrels` matches.

    The run's and the qrels' query columns may have different dtypes (arrow and object
    strings, categorical, int32 and int64); the key does not depend on them.
    """
    if isinstance(ids.dtype, pd.CategoricalDtype):
        ids = ids.astype(ids.dtype.categories.dtype)
    if numeric:  # 1 (int32), 1 (int64) and 1.0 match in merge_qrels: hash them alike
        return pd.util.hash_array(ids.to_numpy(dtype=np.float64))
    return pd.util.hash_array(ids.astype(str).to_numpy(dtype=object))


def _with_key(
    part: pd.DataFrame, query: str, numeric: bool, dtypes: dict | None = None
) -> pd.DataFrame:
    """The partition with its colocation key, and (``dtypes``) the frame's column dtypes:
    the shuffle concatenates partitions, which must agree (a categorical column stays
    categorical with the partition's own categories).
    """
    if dtypes is not None:
        for name, dtype in dtypes.items():
            if name not in part.columns or part[name].dtype == dtype:
                continue
            if isinstance(dtype, pd.CategoricalDtype):
                part = part.assign(**{name: part[name].astype("category")})
            else:
                part = part.assign(**{name: part[name].astype(dtype)})
    return part.assign(**{_KEY: _colocation_key(part[query], numeric)})


def _merge_partition(
    run: pd.DataFrame,
    qrels: pd.DataFrame,
    runs: Any,
    resolved: ResolvedColumns,
    qrels_columns: ColumnMap,
    meta: pd.DataFrame,
    subtopics: bool = False,
    judge: tuple[str, Any] | None = None,
) -> pd.DataFrame:
    """merge_qrels on one partition: its run rows and the judgments of its queries
    (``judge``: the judge column's name and the one judge whose labels ``qrels`` are).
    """
    run, qrels = run.drop(columns=_KEY), qrels.drop(columns=_KEY)
    q_query, q_doc = qrels_columns.query, qrels_columns.doc
    if resolved.run is not None and len(qrels):
        # A run that retrieved none of this partition's queries still gets their judged
        # documents, as in pandas: add them as unranked run rows (merge_qrels labels them).
        present = set(run[resolved.run].unique())
        missing = [name for name in runs if name not in present]
        if missing:
            judged = qrels[[q_query, q_doc]].drop_duplicates()  # once, whatever the subtopics
            pad = pd.DataFrame(
                {
                    resolved.query: np.tile(judged[q_query].to_numpy(dtype=object), len(missing)),
                    resolved.doc: np.tile(judged[q_doc].to_numpy(dtype=object), len(missing)),
                    resolved.run: np.repeat(np.asarray(missing, dtype=object), len(judged)),
                }
            )
            run = pd.concat([run, pad], ignore_index=True)
    # One partition may hold only queries nobody judged: the overlap is checked on the whole.
    merge = merge_subtopics if subtopics else merge_resolved
    merged = merge(
        run,
        qrels,
        resolved.explicit().resolve(run),
        qrels_columns.resolve(qrels),
        check_overlap=False,
    )
    if judge is not None:  # pandas adds the judge's name to the rows of its labels
        name, value = judge
        merged[name] = np.repeat(np.asarray([value], dtype=object), len(merged))
    return merged.astype(meta.dtypes.to_dict())


def _refuse_parts_in_merge(resolved: ResolvedColumns, q_resolved: ResolvedColumns) -> None:
    """Refuse collection and seed columns: the Dask merge takes one collection and one
    seed at a time (a judge column of the qrels is taken).
    """
    for role in ("collection", "seed"):
        name = getattr(resolved, role)
        if name is None:
            continue
        select = f"run[run[{name!r}] == value].drop(columns={name!r})"
        if role == "collection":
            theirs = q_resolved.name("collection")
            judged = f"qrels[qrels[{theirs!r}] == value].drop(columns={theirs!r})"
        else:
            judged = "qrels"
        msg = (
            f"the run has a {role} column ({name!r}), and pdireval.dask.merge_qrels merges "
            f"one {role} at a time: merge each on its own and concatenate, e.g. "
            f"dd.concat([pdireval.dask.merge_qrels({select}, {judged}).assign("
            f"{name}=value) for value in values]), or pass {role}=False in columns= "
            "when the column means something else"
        )
        raise SchemaError(msg)


def merge_qrels(
    run: dd.DataFrame,
    qrels: pd.DataFrame | dd.DataFrame | Mapping[Hashable, pd.DataFrame],
    *,
    columns: Columns = None,
    qrels_columns: Columns = None,
    npartitions: int | None = None,
) -> dd.DataFrame:
    """Attach relevance labels to a dask run and add the judged documents it did not retrieve.

    Parameters
    ----------
    run : dask DataFrame
        Retrieved documents, as for :func:`pdireval.merge_qrels`.
    qrels : DataFrame, dask DataFrame or mapping
        Judgments. They are small next to a run: a dask qrels frame is computed once, at
        call time, to check it (duplicate judgments, dtypes) and to find out which
        queries are judged. With a judge column (or a mapping of judge name to
        judgments, as :func:`pdireval.merge_qrels` takes) the run gets the labels of
        each judge, a judge column telling them apart.
    columns, qrels_columns
        As in :func:`pdireval.merge_qrels`.
    npartitions : int, optional
        Partitions of the result (per judge); those of ``run`` by default.

    Returns
    -------
    dask DataFrame
        Lazy. The rows of :func:`pdireval.merge_qrels` (same columns and dtypes as dask
        gives them), partitioned so that every query -- all its runs, its run rows and
        its judged documents nobody retrieved -- lies in one partition (per judge): pass
        it to :func:`evaluate` with ``shuffle=False``. Rows are grouped by partition,
        not in the run's order. A query judged but never retrieved appears once (per
        run and judge), not once per partition.

    Raises
    ------
    SchemaError
        As :func:`pdireval.merge_qrels`; and for a collection or seed column, which this
        function does not take: merge each collection or seed on its own (the message
        shows how) and concatenate the results with ``dd.concat``.

    Notes
    -----
    The run is shuffled once, on a hash of its query ids that does not depend on their
    dtype; the qrels are shuffled the same way into the same partitions, then
    :func:`pdireval.merge_qrels` runs on each pair of partitions. With a run column the
    run ids are found at call time (one small reduction), because every run gets the
    judgments of every query. Several judges' judgments are merged judge by judge with
    the one shuffled run, as pandas merges them judge by judge.

    Examples
    --------
    >>> import dask.dataframe as dd, pandas as pd, pdireval.dask
    >>> run = pd.DataFrame({"query": ["q1", "q1", "q2"], "doc": ["a", "b", "a"],
    ...                     "score": [2.0, 1.0, 1.0]})
    >>> qrels = pd.DataFrame({"query": ["q1", "q1", "q3"], "doc": ["b", "c", "a"],
    ...                       "rel": [1, 2, 1]})
    >>> merged = pdireval.dask.merge_qrels(dd.from_pandas(run, npartitions=2), qrels)
    >>> len(merged.compute())  # 3 run rows, c of q1 and a of q3 (judged, never retrieved)
    5
    >>> lazy = pdireval.dask.evaluate(merged, ["AP"], shuffle=False)
    >>> lazy.compute().sort_values("query").to_string(index=False)
    'query   AP\\n   q1 0.25\\n   q3 0.00'
    """
    _meta_of(run, "run")
    given = qrels.compute() if isinstance(qrels, dd.DataFrame) else qrels
    judgments: pd.DataFrame = judgments_of(given, qrels_columns)
    if npartitions is not None:
        _check_partitioning(True, npartitions)
    resolved = as_column_map(columns).resolve(run._meta)
    q_resolved = as_column_map(qrels_columns).resolve(judgments)
    # Validate both frames now (missing columns, clashes, dtypes, duplicate judgments).
    meta = merge_frames(run._meta, judgments, columns=columns, qrels_columns=qrels_columns)
    _refuse_parts_in_merge(resolved, q_resolved)
    meta = meta.iloc[:0]
    query, q_query = resolved.name("query"), q_resolved.name("query")
    numeric = _query_kind_is_number(run._meta, query) and _query_kind_is_number(judgments, q_query)
    n = npartitions or run.npartitions
    keyed_run = run.map_partitions(_with_key, query, numeric)
    keyed_run = keyed_run.shuffle(on=_KEY, npartitions=n)
    runs = None
    if resolved.run is not None:  # every partition needs them: one small reduction, now
        runs = _unique(run[resolved.run].drop_duplicates().compute())

    def merged_with(labels: pd.DataFrame, judge: tuple[str, Any] | None) -> dd.DataFrame:
        """The shuffled run merged with ``labels`` (one judge's, or all)."""
        roles = q_resolved.explicit().remap(judge=False)
        keyed_qrels = _with_key(labels, q_query, numeric)
        keyed_qrels = dd.from_pandas(keyed_qrels, npartitions=1, sort=False).shuffle(
            on=_KEY, npartitions=n
        )
        return dd.map_partitions(
            _merge_partition,
            keyed_run,
            keyed_qrels,
            runs,
            resolved,
            roles,
            meta,
            has_subtopics(labels, roles.resolve(labels)),
            judge,
            meta=meta,
            align_dataframes=False,
        )

    if q_resolved.judge is None:
        return merged_with(judgments, None)
    # One merge per judge (a few), of the one shuffled run: pandas merges each judge's
    # labels on their own too.
    name = q_resolved.name("judge")
    meta = meta.assign(**{name: meta[name].astype(judgments[name].dtype)})
    judges = judgments[name].drop_duplicates().sort_values(kind="stable")
    return dd.concat(
        [
            merged_with(judgments[judgments[name] == value].drop(columns=name), (name, value))
            for value in judges
        ]
    )


def _unique(ids: pd.Series) -> list:
    return list(ids.unique())


@register_dataframe_accessor("ireval")
class DaskIREvalAccessor:
    """IR evaluation for long-format dask DataFrames (registered by ``import pdireval.dask``).

    Mirrors the pandas ``.ireval`` accessor: call it to map columns
    (``ddf.ireval(query="qid")``); ``evaluate`` is lazy, ``summary`` and ``compare``
    compute and return pandas objects.

    Examples
    --------
    >>> import dask.dataframe as dd, pandas as pd, pdireval.dask
    >>> df = pd.DataFrame({"qid": [1, 1, 2], "doc": ["a", "b", "a"],
    ...                    "rank": [1, 2, 1], "label": [0, 1, 1]})
    >>> ddf = dd.from_pandas(df, npartitions=2)
    >>> ddf.ireval(query="qid").summary(["RR", "P@1"])
    metric
    RR     0.75
    P@1    0.50
    Name: mean, dtype: float64
    """

    __slots__ = ("_columns", "_obj")

    def __init__(self, obj: dd.DataFrame, columns: ColumnMap = DEFAULT_COLUMNS) -> None:
        self._obj, self._columns = obj, columns

    def __call__(self, **roles: str | None) -> DaskIREvalAccessor:
        """Return an accessor that reads the given roles from other columns.

        Parameters
        ----------
        **roles : str or None
            A column name per role; the roles are those of the pandas accessor and of
            :class:`~pdireval.ColumnMap`: ROLES. ``None`` keeps a role's column.

        Returns
        -------
        DaskIREvalAccessor
            A new accessor; this one is unchanged.

        Raises
        ------
        SchemaError
            A keyword that is not a role, or a value that is not a column name.

        Examples
        --------
        >>> import dask.dataframe as dd, pandas as pd, pdireval.dask
        >>> df = pd.DataFrame({"qid": [1, 1, 1, 1], "doc": ["a", "b", "a", "b"],
        ...                    "rank": [1, 2, 1, 2], "label": [0, 1, 1, 1],
        ...                    "assessor": ["ann", "ann", "bob", "bob"]})
        >>> ddf = dd.from_pandas(df, npartitions=2)
        >>> ddf.ireval(query="qid", judge="assessor").summary("RR")
        metric     RR
        assessor
        ann       0.5
        bob       1.0
        """
        return DaskIREvalAccessor(self._obj, self._columns.remap(**roles))

    if __call__.__doc__:  # the roles listed from their one declaration
        __call__.__doc__ = __call__.__doc__.replace("ROLES", ", ".join(ROLES))

    def evaluate(self, metrics: MetricLike | Iterable[MetricLike], **options: Any) -> dd.DataFrame:
        """Lazy per-query values; see :func:`pdireval.dask.evaluate`."""
        return evaluate(self._obj, metrics, columns=self._columns, **options)

    def summary(
        self, metrics: MetricLike | Iterable[MetricLike], agg: Agg = "mean", **options: Any
    ) -> pd.Series | pd.DataFrame:
        """Aggregated values; see :func:`pdireval.dask.summary`."""
        return summary(self._obj, metrics, agg=agg, columns=self._columns, **options)

    def compare(self, metrics: MetricLike | Iterable[MetricLike], **options: Any) -> pd.DataFrame:
        """Paired significance tests between runs; see :func:`pdireval.dask.compare`."""
        return compare(self._obj, metrics, columns=self._columns, **options)
