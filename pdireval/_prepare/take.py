"""Rows of an id column by position, without gluing its Arrow chunks together first.

``Series.take`` on a column made of several Arrow chunks (what ``pd.concat`` and
``merge_qrels`` produce) first concatenates every chunk: a copy of the whole
column to read a few rows. Taking from each chunk separately avoids it.

pandas 2 builds a Series from an Index or from numpy data wrapped in an extension
array by copying it and scanning its objects (milliseconds for a hundred thousand
ids); :func:`series_of` hands it the plain array instead.

A Series of Arrow data is built around it directly (:func:`arrow_series`): pandas'
constructor inspects the array some forty times, which pandas 2.2's Arrow strings
answer through a Python method each (35 microseconds a Series, a tenth of a small
call's time).
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

_SingleBlockManager: Any
try:  # pandas' own wrapping of one array as a Series' data, used by its constructors
    from pandas.core.internals import (  # type: ignore[import-not-found,no-redef]
        SingleBlockManager as _SingleBlockManager,
    )
except ImportError:  # pragma: no cover - a pandas that moved it: the public constructor
    _SingleBlockManager = None

__all__ = ["arrow_series", "series_of", "take"]


def take(values: pd.Series, rows: np.ndarray) -> pd.Series:
    """``values.take(rows)`` (same dtype, fresh RangeIndex), cheap on chunked Arrow data.

    Parameters
    ----------
    values : Series
        Any column.
    rows : ndarray of int
        Positions (non-negative), in any order.

    Returns
    -------
    Series
        The values at ``rows``.

    Examples
    --------
    >>> import pandas as pd
    >>> column = pd.concat([pd.Series(["a", "b"]), pd.Series(["c"])], ignore_index=True)
    >>> take(column, np.array([2, 0])).tolist()
    ['c', 'a']
    """
    array = values.array
    chunked = getattr(array, "_pa_array", None)
    # pandas 3 builds an array of the same dtype from Arrow data by this method; pandas 2
    # by the array type's constructor.
    rebuild = getattr(array, "_from_pyarrow_array", None) or type(array)
    if chunked is None or not len(rows):
        return series_of(array.take(rows), name=values.name)
    import pyarrow as pa

    if chunked.num_chunks == 1:  # Arrow's take, without pandas' checks of the positions
        taken = chunked.chunk(0).take(pa.array(np.asarray(rows, dtype=np.int64)))
        return arrow_series(rebuild(pa.chunked_array([taken])), name=values.name)

    rows = np.asarray(rows, dtype=np.int64)
    bounds = np.cumsum([0, *(len(chunk) for chunk in chunked.chunks)])
    first = int(np.searchsorted(bounds, rows.min(), side="right")) - 1
    if rows.max() < bounds[first + 1]:  # all in one chunk (a merged run's own rows)
        taken = chunked.chunk(first).take(pa.array(rows - bounds[first]))
        return arrow_series(rebuild(pa.chunked_array([taken])), name=values.name)
    order = np.argsort(rows, kind="stable")
    ascending = rows[order]
    cuts = np.searchsorted(ascending, bounds)
    pieces = [
        chunk.take(pa.array(ascending[cuts[i] : cuts[i + 1]] - bounds[i]))
        for i, chunk in enumerate(chunked.chunks)
        if cuts[i + 1] > cuts[i]
    ]
    taken = pa.concat_arrays(pieces)
    inverse = np.empty_like(order)
    inverse[order] = np.arange(len(order))
    taken = taken.take(pa.array(inverse))
    return arrow_series(rebuild(pa.chunked_array([taken])), name=values.name)


def series_of(
    values: pd.Index | pd.api.extensions.ExtensionArray | np.ndarray, name: Any = None
) -> pd.Series:
    """``values`` as a Series of their dtype, sharing their data (to be read, not written).

    Parameters
    ----------
    values : Index, ExtensionArray or ndarray
        Ids, e.g. the categories of a column or rows taken from one.
    name : hashable, optional
        Name of the Series.

    Returns
    -------
    Series
        The values, not copied.

    Examples
    --------
    >>> series_of(pd.Index(["d1", "d2"], dtype=object), name="doc").tolist()
    ['d1', 'd2']
    """
    if isinstance(values, pd.Index):
        values = values.array
    if hasattr(values, "_pa_array"):
        return arrow_series(values, name=name)
    if isinstance(values, pd.arrays.NumpyExtensionArray):
        values = np.asarray(values)  # its own array (to_numpy scans objects in pandas 2)
    return pd.Series(values, dtype=values.dtype, copy=False, name=name)


def arrow_series(array: Any, index: pd.Index | None = None, name: Any = None) -> pd.Series:
    """``pd.Series(array, index=index, name=name)`` for an array of Arrow data, without
    pandas' inspection of it (the data is immutable, so sharing it is safe).

    Parameters
    ----------
    array : ExtensionArray
        An Arrow-backed pandas array, e.g. of pandas' ``str`` dtype.
    index : Index, optional
        Index of the Series (a RangeIndex by default).
    name : hashable, optional
        Name of the Series.

    Returns
    -------
    Series
        The array, not copied.

    Examples
    --------
    >>> import pyarrow as pa
    >>> strings = pd.array(pa.chunked_array([["d1", "d2"]]), dtype=pd.ArrowDtype(pa.string()))
    >>> arrow_series(strings, name="doc").tolist()
    ['d1', 'd2']
    """
    if index is None:
        index = pd.RangeIndex(len(array))
    try:
        manager = _SingleBlockManager.from_array(array, index)
        series = pd.Series._from_mgr(manager, manager.axes)  # type: ignore[attr-defined]
    except (AttributeError, TypeError):  # pragma: no cover - a pandas without these
        return pd.Series(array, index=index, name=name, copy=False)
    series.name = name
    return series
