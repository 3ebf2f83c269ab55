"""Rows of an id column by position, without gluing its Arrow chunks together first.

``Series.take`` on a column made of several Arrow chunks (what ``pd.concat`` and
``merge_qrels`` produce) first concatenates every chunk: a copy of the whole
column to read a few rows. Taking from each chunk separately avoids it.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

__all__ = ["take"]


def take(values: pd.Series, rows: np.ndarray) -> pd.Series:
    """``values.take(rows)`` (same dtype, fresh RangeIndex), cheap on chunked Arrow data.

    Parameters
    ----------
    values : Series
        Any column.
    rows : ndarray of int
        Positions, in any order.

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
    rebuild = getattr(array, "_from_pyarrow_array", None)
    if chunked is None or chunked.num_chunks < 2 or rebuild is None or not len(rows):
        return pd.Series(array.take(rows), name=values.name, dtype=values.dtype)
    import pyarrow as pa

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
