"""``merge_qrels``: one long frame from a run frame and a qrels frame."""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np
import pandas as pd

from pdireval._columns import ColumnMap, as_column_map
from pdireval._errors import SchemaError
from pdireval._ranking import check_no_nulls, labels_of

__all__ = ["merge_qrels"]


def merge_qrels(
    run: pd.DataFrame,
    qrels: pd.DataFrame,
    *,
    columns: ColumnMap | Mapping[str, str] | None = None,
    qrels_columns: ColumnMap | Mapping[str, str] | None = None,
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

    row, judgment = _match((run[run_cols.query], run[run_cols.doc]), (q_query, q_doc), convert)
    run_label = np.full(len(run), np.nan)
    run_label[row] = labels[judgment]
    if run_cols.run is not None:
        run_codes, run_ids = pd.factorize(run[run_cols.run], sort=True)
    else:
        run_codes, run_ids = np.zeros(len(run), dtype=np.intp), pd.Index([None])
    found = np.zeros((len(run_ids), len(qrels)), dtype=bool)  # (run, judgment) retrieved?
    found[run_codes[row], judgment] = True
    missing_run, missing_judgment = np.nonzero(~found)

    added = {
        run_cols.query: q_query.array.take(missing_judgment),
        run_cols.doc: q_doc.array.take(missing_judgment),
    }
    if run_cols.run is not None:
        added[run_cols.run] = pd.Index(run_ids).take(missing_run).array
    base = run
    for name in added:
        if isinstance(run[name].dtype, pd.CategoricalDtype):  # stay categorical, no re-encoding
            widened = _widen_categories(run[name], added[name])
            base = run.copy(deep=False) if base is run else base
            base[name] = widened
            added[name] = pd.Categorical(added[name], dtype=widened.dtype)
    result = pd.concat([base, pd.DataFrame(added)], ignore_index=True)[list(run.columns)]
    rank_name = run_cols.rank
    if rank_name is not None and pd.api.types.is_integer_dtype(run[rank_name].dtype):
        result[rank_name] = _nullable_ints(result[rank_name].to_numpy(dtype=np.float64))
    result[rel_name] = _nullable_ints(np.concatenate([run_label, labels[missing_judgment]]))
    return result


def _match(
    run_ids: tuple[pd.Series, pd.Series],
    qrels_ids: tuple[pd.Series, pd.Series],
    convert: list[bool],
) -> tuple[np.ndarray, np.ndarray]:
    """Pairs (run row, qrels row) with equal (query, doc).

    Only run rows whose doc is judged somewhere are merged exactly: the judged docs are
    a tiny share of a run, so a hash lookup of the doc column finds the candidates.
    ``convert`` says, for query and doc, whether the two sides need comparing as Python
    objects because their dtypes differ.
    """
    (run_query, run_doc), (q_query, q_doc) = run_ids, qrels_ids
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
    right = pd.DataFrame({"q": keys["q"][1], "d": keys["d"][1], "judgment": np.arange(len(q_doc))})
    matched = left.merge(right, on=["q", "d"], how="inner")
    return matched["row"].to_numpy(), matched["judgment"].to_numpy()


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


def _widen_categories(column: pd.Series, extra: object) -> pd.Series:
    """The categorical ``column`` with the values of ``extra`` it lacks added as categories.

    Adding categories at the end keeps the codes, so the run's rows are not re-encoded.
    """
    values = pd.Index(pd.unique(np.asarray(extra, dtype=object)))
    new = values.difference(column.cat.categories)
    if not len(new):
        return column
    dtype = pd.CategoricalDtype(column.cat.categories.append(new), ordered=column.cat.ordered)
    codes = pd.Categorical.from_codes(column.cat.codes.to_numpy(), dtype=dtype)
    return pd.Series(codes, index=column.index, name=column.name)
