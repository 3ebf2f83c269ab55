"""Typed public functions: the real API behind the ``.ireval`` accessor.

Every evaluating function takes a long frame (DESIGN §1), validates it once,
prepares it once and runs all requested metrics over the same prepared arrays.
"""

from __future__ import annotations

import builtins
from collections.abc import Iterable, Mapping
from typing import Any

import numpy as np
import pandas as pd

from pdireval._aggregate import Agg, aggregate
from pdireval._columns import ColumnMap, as_column_map
from pdireval._errors import SchemaError
from pdireval._ranking import QueryPolicy, check_no_nulls, labels_of, prepare
from pdireval.metrics import AP, DCG, RR, MetricLike, P, R, Rprec, Success, nDCG, parse_metrics
from pdireval.metrics._base import Metric

__all__ = [
    "ap",
    "dcg",
    "evaluate",
    "gmap",
    "map",
    "merge_qrels",
    "mrr",
    "ndcg",
    "precision",
    "r_precision",
    "recall",
    "rr",
    "success",
    "summary",
]

Columns = ColumnMap | Mapping[str, str] | None


def evaluate(
    frame: pd.DataFrame,
    metrics: MetricLike | Iterable[MetricLike],
    *,
    columns: Columns = None,
    queries: QueryPolicy = "judged",
    max_rank: int | None = None,
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
    prepared = prepare(frame, resolved, queries=queries, max_rank=max_rank, validate=validate)
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
    validate: bool = True,
) -> pd.Series | pd.DataFrame:
    """Aggregate per-query values over queries: MAP, GMAP, MRR, mean nDCG@k, ...

    Parameters
    ----------
    frame, metrics, columns, queries, max_rank, validate
        As in :func:`evaluate`.
    agg : {"mean", "gmean", "hmean", "median"}
        ``"gmean"`` floors values at 1e-5 first, like trec_eval's gm_map; ``"hmean"``
        is 0 when any value is 0. NaN values (unjudged queries under
        ``queries="all"``) are skipped.

    Returns
    -------
    Series or DataFrame
        A Series indexed by metric label; with a run column, a DataFrame with one
        row per run and one column per metric.

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
    """
    table = evaluate(
        frame, metrics, columns=columns, queries=queries, max_rank=max_rank, validate=validate
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


def merge_qrels(
    run: pd.DataFrame,
    qrels: pd.DataFrame,
    *,
    columns: Columns = None,
    qrels_columns: Columns = None,
) -> pd.DataFrame:
    """Attach relevance labels to a run and add the judged documents it did not retrieve.

    Parameters
    ----------
    run : DataFrame
        Retrieved documents: query, doc and rank or score columns, optionally a run
        column (then the judgments are applied to every run).
    qrels : DataFrame
        Judgments: query, doc and rel columns (other columns, such as TREC's
        iteration field, are not carried over). Each (query, doc) at most once.
    columns, qrels_columns : ColumnMap or dict, optional
        Column roles of ``run`` and of ``qrels`` (defaults and synonyms otherwise).

    Returns
    -------
    DataFrame
        A new long frame (fresh RangeIndex): every run row in its original order with
        the label added (missing = unjudged), then one row per judged document a run
        did not retrieve, with missing rank/score. Column names are those of ``run``
        plus the qrels' rel column. Neither input is modified.

    Examples
    --------
    >>> import pandas as pd, pdireval
    >>> run = pd.DataFrame({"query": ["q1", "q1"], "doc": ["a", "b"], "score": [2.0, 1.0]})
    >>> qrels = pd.DataFrame({"query": ["q1", "q1"], "doc": ["b", "c"], "rel": [1, 2]})
    >>> pdireval.merge_qrels(run, qrels)
      query doc  score   rel
    0    q1   a    2.0  <NA>
    1    q1   b    1.0     1
    2    q1   c    NaN     2
    """
    run_cols = as_column_map(columns).resolve(run)
    qrels_cols = as_column_map(qrels_columns).resolve(qrels)
    run_cols.require(run, "query", "doc", fix="columns={'%s': '<column>'}")
    qrels_cols.require(qrels, "query", "doc", "rel", fix="qrels_columns={'%s': '<column>'}")
    check_no_nulls(run, run_cols)
    check_no_nulls(qrels, qrels_cols)
    rel_name = qrels_cols.rel
    if run_cols.rel is not None or rel_name in run.columns:
        clash = run_cols.rel or rel_name
        msg = (
            f"the run already has a column {clash!r} that would hold the relevance labels; "
            "drop or rename it before merge_qrels (or evaluate the run directly)"
        )
        raise SchemaError(msg)
    convert = [
        _matchable(run[getattr(run_cols, role)], qrels[getattr(qrels_cols, role)], role)
        for role in ("query", "doc")
    ]

    q_query, q_doc = qrels[qrels_cols.query], qrels[qrels_cols.doc]
    labels = labels_of(qrels[rel_name], rel_name)
    duplicated = pd.DataFrame({"q": q_query.array, "d": q_doc.array}).duplicated().to_numpy()
    if duplicated.any():
        first = np.flatnonzero(duplicated)[0]
        msg = (
            f"the qrels judge ({q_query.iloc[first]!r}, {q_doc.iloc[first]!r}) more than once "
            f"({int(duplicated.sum())} duplicate judgment(s)); keep one label per (query, doc)"
        )
        raise SchemaError(msg)

    run_query, run_doc = run[run_cols.query], run[run_cols.doc]
    if convert[1]:
        run_docs = pd.Series(_as_python_objects(run_doc))
        candidates = np.flatnonzero(run_docs.isin(set(_as_python_objects(q_doc))).to_numpy())
    else:
        candidates = np.flatnonzero(_is_in(run_doc, q_doc))
    keys = {
        "q": (run_query.array.take(candidates), q_query.array),
        "d": (run_doc.array.take(candidates), q_doc.array),
    }
    for (name, (left_ids, right_ids)), differ in zip(list(keys.items()), convert, strict=True):
        if differ:
            keys[name] = (_as_python_objects(left_ids), _as_python_objects(right_ids))
    left = pd.DataFrame({"q": keys["q"][0], "d": keys["d"][0], "row": candidates})
    right = pd.DataFrame({"q": keys["q"][1], "d": keys["d"][1], "judgment": np.arange(len(qrels))})
    matched = left.merge(right, on=["q", "d"], how="inner")
    row, judgment = matched["row"].to_numpy(), matched["judgment"].to_numpy()

    run_label = np.full(len(run), np.nan)
    run_label[row] = labels[judgment]
    if run_cols.run is not None:
        run_codes, run_ids = pd.factorize(run[run_cols.run], sort=True)
    else:
        run_codes, run_ids = np.zeros(len(run), dtype=np.intp), pd.Index([None])
    found = np.zeros((builtins.max(len(run_ids), 1), len(qrels)), dtype=bool)
    found[run_codes[row], judgment] = True
    missing_run, missing_judgment = np.nonzero(~found)

    added = {
        run_cols.query: q_query.array.take(missing_judgment),
        run_cols.doc: q_doc.array.take(missing_judgment),
    }
    if run_cols.run is not None:
        added[run_cols.run] = pd.Index(run_ids).take(missing_run).array
    result = pd.concat([run, pd.DataFrame(added)], ignore_index=True)[list(run.columns)]
    rank_name = run_cols.rank
    if rank_name is not None and pd.api.types.is_integer_dtype(run[rank_name].dtype):
        result[rank_name] = _nullable_ints(result[rank_name].to_numpy(dtype=np.float64))
    result[rel_name] = _nullable_ints(np.concatenate([run_label, labels[missing_judgment]]))
    for role in ("query", "doc", "run"):
        name = getattr(run_cols, role)
        if name is not None:
            result[name] = _keep_categorical(result[name], run[name])
    return result


def _is_in(values: pd.Series, lookup: pd.Series) -> np.ndarray:
    """``values.isin(lookup)`` as a bool array; straight on Arrow data when it is Arrow-backed."""
    chunked = getattr(values.array, "_pa_array", None)
    if chunked is None:
        return values.isin(lookup.unique()).to_numpy()
    import pyarrow as pa
    import pyarrow.compute as pc

    value_set = pa.array(np.asarray(lookup.unique(), dtype=object), type=chunked.type)
    return pc.is_in(chunked, value_set=value_set).to_numpy(zero_copy_only=False)


def _nullable_ints(values: np.ndarray) -> pd.arrays.IntegerArray:
    """Whole-number floats (NaN = missing) as a nullable ``Int64`` array, without checks."""
    missing = np.isnan(values)
    return pd.arrays.IntegerArray(np.where(missing, 0, values).astype(np.int64), missing)


def _id_kind(ids: pd.Series) -> str:
    """'number', 'string' or 'other': what matching ids by value needs to agree on."""
    dtype = ids.dtype.categories.dtype if isinstance(ids.dtype, pd.CategoricalDtype) else ids.dtype
    if pd.api.types.is_numeric_dtype(dtype) and not pd.api.types.is_bool_dtype(dtype):
        return "number"
    if isinstance(dtype, pd.StringDtype):
        return "string"
    values = ids.dtype.categories if isinstance(ids.dtype, pd.CategoricalDtype) else ids
    inferred = pd.api.types.infer_dtype(values, skipna=True)
    if inferred == "string":
        return "string"
    if inferred in ("integer", "floating", "mixed-integer-float", "decimal"):
        return "number"
    return "other"


def _matchable(run_ids: pd.Series, qrels_ids: pd.Series, role: str) -> bool:
    """Refuse ids that could never match; True when the dtypes differ but the values can."""
    run_kind, qrels_kind = _id_kind(run_ids), _id_kind(qrels_ids)
    if "other" not in (run_kind, qrels_kind) and run_kind != qrels_kind:
        msg = (
            f"{role} ids are {run_kind}s ({run_ids.dtype}) in the run but {qrels_kind}s "
            f"({qrels_ids.dtype}) in the qrels, so none would match; convert one side, "
            f"e.g. qrels[{qrels_ids.name!r}].astype(str)"
        )
        raise SchemaError(msg)
    return run_ids.dtype != qrels_ids.dtype


def _as_python_objects(values: pd.Series | pd.api.extensions.ExtensionArray) -> np.ndarray:
    """Ids as Python objects (ints, strs), so values of different dtypes compare by value."""
    return np.asarray(pd.Series(values).astype(object).to_numpy(), dtype=object)


def _keep_categorical(column: pd.Series, original: pd.Series) -> pd.Series:
    """Give a concatenated column back the categorical dtype of the run's column."""
    if not isinstance(original.dtype, pd.CategoricalDtype):
        return column
    added = pd.Index(column.dropna().unique()).difference(original.cat.categories)
    categories = original.cat.categories.append(added)
    return column.astype(pd.CategoricalDtype(categories, ordered=original.cat.ordered))
