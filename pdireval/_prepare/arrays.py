"""Id columns as arrays: their Arrow data, conversions, takes and exact comparisons.

The mechanics the preparation is built on, with no notion of queries or documents:

* Python-string ids (object, or Python-backed strings) are read as Arrow strings once
  (:func:`arrow_strings`), so that later steps read bytes, not Python objects;
* rows are taken from columns made of several Arrow chunks without gluing the chunks
  together first (:func:`take`);
* ids at given rows are compared exactly, whatever the two columns' dtypes (:func:`equal`);
* long passes over integer codes go a block of rows at a time (:func:`gathered`,
  :func:`bincount`): numpy converts narrow indices to ``intp`` first, a temporary twice
  their size whose fresh pages the kernel must fault in.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc

from pdireval._core import compat as _compat

__all__ = [
    "TEMPORARY_ROWS",
    "adjacent_differs",
    "arrow_data",
    "arrow_strings",
    "as_python_objects",
    "bincount",
    "block_firsts",
    "category_strings",
    "equal",
    "gathered",
    "holds_python_objects",
    "holds_strings",
    "large_strings",
    "scattered_start",
    "series_of",
    "string_array",
    "string_dtype",
    "string_series",
    "take",
]

#: Rows a temporary array of a long column holds: it stays in the CPU cache, and the
#: allocator hands the same memory out again rather than fresh pages from the kernel.
TEMPORARY_ROWS = 1 << 18
_PROBE = 1 << 12  # rows looked at to tell ids in blocks from scattered ones
_SHORT_PROBE = 1 << 6  # rows looked at first: most scattered ids show in fewer
#: Categories converted to Arrow strings, at most: a few rows' worth of more categories
#: cost less read as they are.
_CATEGORY_STRINGS_KEPT = 1 << 20


# ---------------------------------------------------------------------- Arrow data


def arrow_data(values: pd.Series | pd.Index | Any) -> pa.ChunkedArray | None:
    """The Arrow data of an Arrow-backed column (not copied); None for other storage."""
    array = values.array if isinstance(values, pd.Series | pd.Index) else values
    dtype = array.dtype
    backed = isinstance(dtype, pd.ArrowDtype) or (  # pandas 2.2 spells NaN-strings' storage
        isinstance(dtype, pd.StringDtype) and dtype.storage in ("pyarrow", "pyarrow_numpy")
    )
    return array.__arrow_array__() if backed else None


def holds_strings(arrow: pa.Array | pa.ChunkedArray) -> bool:
    """Whether Arrow data holds strings, whatever the width of their offsets.

    Examples
    --------
    >>> holds_strings(pa.array(["q1"], type=pa.large_string())), holds_strings(pa.array([1]))
    (True, False)
    """
    return bool(pa.types.is_string(arrow.type) or pa.types.is_large_string(arrow.type))


def large_strings(chunked: pa.ChunkedArray) -> pa.LargeStringArray | None:
    """Arrow strings (a chunked array) as one large-string array; None for other types."""
    if not holds_strings(chunked):
        return None
    return chunked.combine_chunks().cast(pa.large_string())


def holds_python_objects(dtype: Any) -> bool:
    """Whether a column of ``dtype`` holds Python objects (object, or Python-backed strings)."""
    python_strings = isinstance(dtype, pd.StringDtype) and dtype.storage == "python"
    return python_strings or dtype == np.dtype(object)


def string_dtype() -> Any:
    """Pandas' Arrow-backed string dtype with NaN for missing values (pandas 3's ``str``)."""
    try:
        return pd.StringDtype("pyarrow", na_value=np.nan)
    except TypeError:  # pragma: no cover - pandas < 2.3 spells it as a storage
        return pd.StringDtype("pyarrow_numpy")


_EMPTY_STRINGS = pd.array([], dtype=string_dtype())  # the dtype's array type, to build more


def string_array(strings: pa.Array | pa.ChunkedArray) -> Any:
    """Arrow strings as an array of :func:`string_dtype`, without a pass over them."""
    if isinstance(strings, pa.Array):
        strings = pa.chunked_array([strings])
    if not pa.types.is_large_string(strings.type):
        strings = strings.cast(pa.large_string())
    return _compat.arrow_array_like(_EMPTY_STRINGS, strings)


def string_series(strings: pa.Array | pa.ChunkedArray, name: Any = None) -> pd.Series:
    """Arrow strings as a Series of :func:`string_dtype`, not copied."""
    return _compat.series_around(string_array(strings), name=name)


def series_of(values: pd.Index | Any, name: Any = None) -> pd.Series:
    """``values`` (an Index or an array) as a Series of their dtype, sharing their data
    (to be read, not written).

    Examples
    --------
    >>> series_of(pd.Index(["d1", "d2"], dtype=object), name="doc").tolist()
    ['d1', 'd2']
    """
    if isinstance(values, pd.Index):
        values = values.array
    if arrow_data(values) is not None:
        return _compat.series_around(values, name=name)
    if type(values) is pd.arrays.NumpyExtensionArray:  # not its subclasses (Python strings)
        values = np.asarray(values)  # its own array (to_numpy scans objects in pandas 2)
    return pd.Series(values, dtype=values.dtype, copy=False, name=name)


# ---------------------------------------------------------------------- Python strings


def arrow_strings(ids: pd.Series) -> pd.Series | None:
    """Python-string ids as :func:`string_dtype` (missing stays missing, index kept);
    None unless the column holds Python objects that are all ``str`` or missing.

    When equal ids come in blocks (a run in run order) only the first id of each block
    is converted.

    Examples
    --------
    >>> arrow_strings(pd.Series(["q1", "q1", None], dtype=object)).tolist()
    ['q1', 'q1', nan]
    >>> arrow_strings(pd.Series(["q1", 2], dtype=object)) is None
    True
    """
    if not holds_python_objects(ids.dtype):
        return None
    values = ids.to_numpy(dtype=object)
    firsts = block_firsts(values)
    sample = values if firsts is None else values[firsts]
    try:  # Arrow infers the type in the same pass: strings, or bytes, or an error
        array = pa.array(sample, from_pandas=True)
    except (pa.ArrowException, TypeError, ValueError):  # numbers, mixed, or a str subclass
        return None
    if pa.types.is_null(array.type):  # every id missing
        array = pa.nulls(len(array), pa.large_string())
    elif not holds_strings(array):  # bytes, or str and bytes mixed
        return None
    if firsts is not None:
        block = np.repeat(  # int32: half the temporary of intp indices
            np.arange(len(firsts), dtype=np.int32), np.diff(np.r_[firsts, len(values)])
        )
        array = array.take(pa.array(block))
    converted = string_array(array)
    return _compat.series_around(converted, index=ids.index, name=ids.name)


def block_firsts(values: np.ndarray) -> np.ndarray | None:
    """First row of each block of equal values when there are few blocks (one per
    eight rows at most), else None; scattered values show in a prefix, with no full pass.

    Examples
    --------
    >>> block_firsts(np.array(["q1"] * 10 + ["q2"] * 10, dtype=object)).tolist()
    [0, 10]
    """
    if len(values) < 16:
        return None
    try:
        for probe in (_SHORT_PROBE, _PROBE):
            head = values[:probe]
            head_differs = np.asarray(head[1:] != head[:-1], dtype=bool)
            if np.count_nonzero(head_differs) * 8 > len(head):
                return None
        rest = values[len(head) - 1 :]  # from the prefix's last value: no pair compared twice
        rest_differs = np.asarray(rest[1:] != rest[:-1], dtype=bool)
        changes = np.flatnonzero(np.r_[True, head_differs, rest_differs])
    except (TypeError, ValueError):  # values whose comparison is not a plain bool
        return None
    return changes if len(changes) * 8 <= len(values) else None


def as_python_objects(values: pd.Series | Any) -> np.ndarray:
    """Ids as Python objects (ints, strs), so values of different dtypes compare by value."""
    if isinstance(values, np.ndarray) and values.dtype == object:
        return values
    return np.asarray(pd.Series(values).astype(object).to_numpy(), dtype=object)


def category_strings(categories: pd.Index) -> pa.LargeStringArray | None:
    """String categories (up to a million) as one Arrow large-string array; else None.

    Rows of a categorical column are then strings taken by their codes, with no Python
    object read.
    """
    if len(categories) > _CATEGORY_STRINGS_KEPT:
        return None
    series = series_of(categories)
    chunked = arrow_data(series)
    if chunked is None:
        converted = arrow_strings(series)
        if converted is None or converted.hasnans:
            return None
        chunked = arrow_data(converted)
    return large_strings(chunked)


# ---------------------------------------------------------------------- rows


def take(values: pd.Series, rows: np.ndarray) -> pd.Series:
    """``values.take(rows)`` (same dtype, fresh RangeIndex), cheap on chunked Arrow data.

    ``Series.take`` on a column of several Arrow chunks (what ``pd.concat`` produces)
    first concatenates every chunk: a copy of the whole column to read a few rows.
    Taking from each chunk separately avoids it.

    Examples
    --------
    >>> column = pd.concat([pd.Series(["a", "b"]), pd.Series(["c"])], ignore_index=True)
    >>> take(column, np.array([2, 0])).tolist()
    ['c', 'a']
    """
    chunked = arrow_data(values)
    if chunked is None or not len(rows):
        return series_of(values.array.take(rows), name=values.name)
    rows = np.asarray(rows, dtype=np.int64)
    taken = _take_chunks(chunked, rows)
    return _compat.series_around(_compat.arrow_array_like(values.array, taken), name=values.name)


def _take_chunks(chunked: pa.ChunkedArray, rows: np.ndarray) -> pa.ChunkedArray:
    """``chunked.take(rows)``, each chunk taken on its own (rows in any order)."""
    bounds = np.cumsum([0, *(len(chunk) for chunk in chunked.chunks)])
    first = int(np.searchsorted(bounds, rows.min(), side="right")) - 1
    if rows.max() < bounds[first + 1]:  # all in one chunk (a merged run's own rows)
        return pa.chunked_array([chunked.chunk(first).take(pa.array(rows - bounds[first]))])
    order = np.argsort(rows, kind="stable")
    ascending = rows[order]
    cuts = np.searchsorted(ascending, bounds)
    pieces = [
        chunk.take(pa.array(ascending[cuts[i] : cuts[i + 1]] - bounds[i]))
        for i, chunk in enumerate(chunked.chunks)
        if cuts[i + 1] > cuts[i]
    ]
    inverse = np.empty_like(order)
    inverse[order] = np.arange(len(order))
    return pa.chunked_array([pa.concat_arrays(pieces).take(pa.array(inverse))])


def equal(left: pd.Series, rows: np.ndarray, right: pd.Series, at: np.ndarray) -> np.ndarray:
    """``left[rows] == right[at]`` element-wise (no id missing), as a bool array."""
    strings = _strings_at(left, rows), _strings_at(right, at)
    if strings[0] is not None and strings[1] is not None:  # Arrow compares the bytes
        same = pc.equal(*strings)
        return np.asarray(same.to_numpy(zero_copy_only=False), dtype=bool)
    one, other = _values_at(left, rows), _values_at(right, at)
    if one.dtype != other.dtype:
        one, other = as_python_objects(one), as_python_objects(other)
    return np.asarray(one == other, dtype=bool)


def _strings_at(ids: pd.Series, rows: np.ndarray) -> pa.LargeStringArray | None:
    """The ids at ``rows`` as Arrow large strings, when they are Arrow strings in one
    chunk or string categories (up to a million); else None.
    """
    values = ids.array
    if isinstance(values, pd.Categorical):  # string categories taken by the rows' codes
        codes = values.codes[rows]
        if len(codes) and codes.min() < 0:
            return None
        strings = category_strings(values.categories)
        return None if strings is None else strings.take(pa.array(codes))
    chunked = arrow_data(values)
    if chunked is None or chunked.num_chunks != 1 or not holds_strings(chunked):
        return None
    taken = chunked.chunk(0).take(pa.array(rows))
    return taken if taken.type == pa.large_string() else taken.cast(pa.large_string())


def _values_at(ids: pd.Series, rows: np.ndarray) -> Any:
    """The ids at ``rows``, categorical ones as their categories' values; numpy data as
    a plain array (numpy compares Python objects several times faster than pandas).
    """
    values = ids.array
    if isinstance(values, pd.Categorical):
        rows, values = values.codes[rows], values.categories.array
    if isinstance(values, pd.arrays.NumpyExtensionArray):
        return np.asarray(values).take(rows)
    return values.take(rows)


# ---------------------------------------------------------------------- neighbours


def adjacent_differs(values: pd.Series | np.ndarray) -> np.ndarray:
    """``values[i + 1] != values[i]`` for each i, computed without hashing."""
    if isinstance(values, np.ndarray):  # e.g. codes
        return np.asarray(values[1:] != values[:-1], dtype=bool)
    chunked = arrow_data(values)
    if chunked is not None:
        n = len(chunked)
        differs = pc.not_equal(chunked.slice(1, n - 1), chunked.slice(0, n - 1))
        return np.asarray(differs.to_numpy(zero_copy_only=False), dtype=bool)
    if isinstance(values.dtype, pd.CategoricalDtype):
        codes = values.array.codes
        return np.asarray(codes[1:] != codes[:-1])
    array = values.to_numpy()
    return np.asarray(array[1:] != array[:-1], dtype=bool)


def scattered_start(values: pd.Series | np.ndarray) -> bool:
    """Whether the first rows change value more than once in eight rows: ids that come
    in blocks do not, so the full comparison of neighbours can be skipped.
    """
    if len(values) <= 2 * _PROBE:
        return False
    head = values[:_PROBE] if isinstance(values, np.ndarray) else values.iloc[:_PROBE]
    return int(np.count_nonzero(adjacent_differs(head))) * 8 > _PROBE


# ---------------------------------------------------------------------- narrow indices


def gathered(values: np.ndarray, rows: np.ndarray) -> np.ndarray:
    """``values[rows]``, a block of rows at a time when ``rows`` are narrower than ``intp``.

    Examples
    --------
    >>> gathered(np.array([10, 20, 30]), np.array([2, 0, 2], dtype=np.int32)).tolist()
    [30, 10, 30]
    """
    if rows.dtype == np.intp or len(rows) <= TEMPORARY_ROWS:
        return values[rows]
    out = np.empty(len(rows), dtype=values.dtype)
    for begin in range(0, len(rows), TEMPORARY_ROWS):
        out[begin : begin + TEMPORARY_ROWS] = values[rows[begin : begin + TEMPORARY_ROWS]]
    return out


def bincount(values: np.ndarray, minlength: int) -> np.ndarray:
    """``np.bincount(values, minlength=minlength)``, a block of rows at a time when
    ``values`` are narrower than ``intp``.

    Examples
    --------
    >>> bincount(np.array([0, 2, 2], dtype=np.int32), 4).tolist()
    [1, 0, 2, 0]
    """
    if values.dtype == np.intp or len(values) <= TEMPORARY_ROWS:
        return np.bincount(values, minlength=minlength)
    block = max(TEMPORARY_ROWS, 4 * minlength)  # each block's counts cost less than its rows
    counts = np.zeros(minlength, dtype=np.intp)
    for begin in range(0, len(values), block):
        piece = np.bincount(values[begin : begin + block], minlength=minlength)
        if len(piece) > minlength:
            return np.bincount(values, minlength=minlength)  # values beyond minlength
        counts += piece
    return counts
