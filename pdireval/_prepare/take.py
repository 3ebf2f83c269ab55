"""Rows of an id column by position, without gluing its Arrow chunks together first.

``Series.take`` on a column made of several Arrow chunks (what ``pd.concat`` and
``merge_qrels`` produce) first concatenates every chunk: a copy of the whole
column to read a few rows. Taking from each chunk separately avoids it.

pandas 2 builds a Series from an Index or from numpy data wrapped in an extension
array by copying it and scanning its objects (milliseconds for a hundred thousand
ids); :func:`series_of` hands it the plain array instead.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

__all__ = ["series_of", "take"]


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
        return pd.Series(rebuild(pa.chunked_array([taken])), name=values.name)

    rows = np.asarray(rows, dtype=np.int64)
    bounds = np.cumsum([0, *(len(chunk) for chunk in chunked.chunks)])
    first = int(np.searchsorted(bounds, rows.min(), side="right")) - 1
    if rows.max() < bounds[first + 1]:  # all in one chunk (a merged run's own rows)
        taken = chunked.chunk(first).take(pa.array(rows - bounds[first]))
        return pd.Series(rebuild(pa.chunked_array([taken])), name=values.name)
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
    return pd.Series(rebuild(pa.chunked_array([taken.take(pa.array(inverse))])), name=values.name)


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
    if isinstance(values, pd.arrays.NumpyExtensionArray):
        values = np.asarray(values)  # its own array (to_numpy scans objects in pandas 2)
    return pd.Series(values, dtype=values.dtype, copy=False, name=name)
