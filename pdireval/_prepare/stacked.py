"""A run's columns followed by rows for the judged documents it did not retrieve.

What :func:`~pdireval.merge_qrels` appends below a run, column by column, in the run's
dtypes: ids (categorical ids keep their codes and gain the new categories), missing
ranks and scores (integer ranks become nullable), missing values elsewhere.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd
import pyarrow as pa

from pdireval._core import compat as _compat
from pdireval._prepare.arrays import (
    arrow_strings,
    as_python_objects,
    category_strings,
    equal,
    series_of,
    string_series,
    take,
)
from pdireval._prepare.keys import category_keys, id_keys, key_table_hits
from pdireval._prepare.sorting import distinct_keys, join_on_keys

__all__ = ["stacked_column"]


def stacked_column(column: pd.Series, extra: Any, n_added: int, rank_name: str | None) -> Any:
    """A run column followed by ``n_added`` rows for the judged documents it lacks: the
    ids ``extra`` (id columns), or missing values.

    An integer rank column becomes nullable integers (missing = not retrieved): UInt64
    from 64-bit unsigned ranks, which Int64 cannot all hold, Int64 from the others; float
    columns keep their dtype; categorical ids keep the run's codes and gain the new
    categories; other columns get pandas' usual promotion (int -> float).
    """
    n_run = len(column)
    if extra is not None:
        if isinstance(column.dtype, pd.CategoricalDtype):
            return _extend_categorical(column.array, extra)
        return _appended(column, extra)
    if column.name == rank_name and pd.api.types.is_integer_dtype(column.dtype):
        unsigned = pd.api.types.is_unsigned_integer_dtype(column.dtype)
        wide = np.uint64 if unsigned and getattr(column.dtype, "itemsize", 8) == 8 else np.int64
        values = np.zeros(n_run + n_added, dtype=wide)
        missing = np.ones(n_run + n_added, dtype=bool)
        if isinstance(column.dtype, np.dtype):  # plain integers: none missing, no mask
            values[:n_run] = column.to_numpy()
            missing[:n_run] = False
        else:
            values[:n_run] = column.to_numpy(dtype=wide, na_value=0)
            missing[:n_run] = column.isna().to_numpy()
        return pd.arrays.IntegerArray(values, missing)
    if column.dtype.kind == "f" and isinstance(column.dtype, np.dtype):  # e.g. scores
        return np.concatenate([column.to_numpy(), np.full(n_added, np.nan, dtype=column.dtype)])
    filled = np.r_[np.arange(n_run), np.full(n_added, -1)]
    extension = isinstance(column.dtype, pd.api.extensions.ExtensionDtype)
    values = column.array if extension else column.to_numpy()
    return pd.api.extensions.take(values, filled, allow_fill=True)


def _appended(column: pd.Series, extra: Any) -> Any:
    """The values of ``column`` followed by the ids ``extra``, in the column's dtype."""
    values = column.array
    if isinstance(extra, pd.api.extensions.ExtensionArray) and extra.dtype == column.dtype:
        return _compat.concat_same_type([values, extra])  # no Series on the way
    if column.dtype == object:  # objects stay objects (pandas 3 would infer strings)
        stacked = np.concatenate([column.to_numpy(), np.asarray(extra, dtype=object)])
        return pd.Series(stacked, dtype=object, copy=False)
    added = pd.Series(extra)
    if added.dtype != column.dtype and column.dtype != object:
        added = added.astype(column.dtype)
    return pd.concat([column, added], ignore_index=True).array


def _extend_categorical(column: pd.Categorical, extra: object) -> pd.Categorical:
    """``column``'s values followed by ``extra``'s, with ``column``'s categories and codes.

    Values of ``extra`` that are not yet categories are appended as new categories.
    """
    categories = column.categories
    extra = pd.Series(extra)
    haystack = series_of(categories)
    if category_strings(categories) is not None:  # compared as the strings it holds
        every = np.arange(len(categories), dtype=column.codes.dtype)
        haystack = series_of(pd.Categorical.from_codes(every, dtype=column.dtype, validate=False))
    codes = _positions_in(haystack, extra, category_keys(categories))
    new = codes < 0
    dtype = column.dtype
    if new.any():
        added, new_codes = _unique_in_order(extra[new])
        codes[new] = len(categories) + new_codes
        combined = added if len(categories) == 0 else _categories_then(categories, added)
        dtype = _compat.categorical_dtype(combined, bool(column.ordered))  # distinct: new
    codes = np.concatenate([column.codes, codes.astype(column.codes.dtype, copy=False)])
    return pd.Categorical.from_codes(codes, dtype=dtype, validate=False)


def _categories_then(categories: pd.Index, added: pd.Index) -> pd.Index:
    """``categories`` followed by ``added``, in the dtype of ``categories``.

    ``Index.append`` infers the dtype of Python objects again: pandas 3 turns object
    categories of strings into its ``str`` dtype (scanning and converting every one),
    pandas 2 scans them to find they are objects.

    Examples
    --------
    >>> import pandas as pd
    >>> _categories_then(pd.Index(["a"], dtype=object), pd.Index(["b"])).dtype
    dtype('O')
    """
    if categories.dtype != object:
        return categories.append(added)
    values = np.concatenate([categories.to_numpy(), added.to_numpy(dtype=object)])
    return pd.Index(values, dtype=object, copy=False)


def _positions_in(
    haystack: pd.Series, needles: pd.Series, haystack_keys: np.ndarray | None
) -> np.ndarray:
    """Position of each needle in ``haystack`` (distinct values, their keys), -1 when absent."""
    position = np.full(len(needles), -1, dtype=np.int64)
    needle_keys = id_keys(needles)
    if haystack_keys is None or needle_keys is None:
        found = pd.Index(haystack).get_indexer(as_python_objects(needles))
        return found.astype(np.int64)
    candidates = np.flatnonzero(key_table_hits(haystack_keys, needle_keys))
    distinct, first, of_key = distinct_keys(needle_keys)
    again = np.flatnonzero(first[of_key] != np.arange(len(needles)))  # repeated keys
    if len(again) and not equal(needles, again, needles, first[of_key[again]]).all():
        # two different needles share a key: look the candidates up by value
        lookup = pd.Index(as_python_objects(take(haystack, candidates)))
        at = lookup.get_indexer(as_python_objects(needles))
        position[at >= 0] = candidates[at[at >= 0]]
        return position
    # Every needle equals the first one with its key: each distinct key is looked up once.
    rows, which = join_on_keys(haystack_keys[candidates], distinct, np.arange(len(distinct)))
    same = equal(take(haystack, candidates), rows, needles, first[which])
    found = np.full(len(distinct), -1, dtype=np.int64)
    found[which[same]] = candidates[rows[same]]
    return found[of_key]


def _unique_in_order(values: pd.Series) -> tuple[pd.Index, np.ndarray]:
    """Distinct values in order of appearance, and each value's position among them.

    Categorical values are read as their categories' values first (factorizing a
    categorical may list the uniques in category order), and Python strings go through
    Arrow (pandas 2 hashes them only up to a NUL character).
    """
    dtype, converted = values.dtype, None
    if isinstance(dtype, pd.CategoricalDtype):
        plain = values.array
        dtype, strings = plain.categories.dtype, category_strings(plain.categories)
        if strings is not None and not (plain.codes < 0).any():  # no Python object read
            converted = string_series(strings.take(pa.array(plain.codes)))
        else:
            values = series_of(plain.categories.take(plain.codes))
    if converted is None:
        converted = arrow_strings(values)
    codes, uniques = pd.factorize(values if converted is None else converted)
    if uniques.dtype != dtype:  # Arrow strings of Python strings: back to the ids' dtype
        return pd.Index(np.asarray(uniques, dtype=object), dtype=dtype), codes
    return pd.Index(uniques), codes
