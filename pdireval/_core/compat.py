"""What pandas does not promise: every private attribute pdireval uses, in one place.

Each entry is a shortcut around a public pandas call that costs noticeably more on the
data pdireval handles, with the public call as its fallback. ``tests/core/test_compat.py``
checks, for the pandas in use, that every shortcut is taken and gives what the public
call gives: a release that renames or changes one fails that test loudly instead of
silently taking the slower path.

Nothing here writes into pandas' objects or caches.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import pandas as pd

__all__ = [
    "SHORTCUTS",
    "arrow_array_like",
    "categorical_dtype",
    "concat_same_type",
    "masked_parts",
    "series_around",
]

_SingleBlockManager: Any
try:  # pandas' wrapping of one array as a Series' data, used by its own constructors
    from pandas.core.internals import (  # type: ignore[import-not-found,no-redef]
        SingleBlockManager as _SingleBlockManager,
    )
except ImportError:  # pragma: no cover - a pandas that moved it
    _SingleBlockManager = None

#: The shortcuts available in the pandas in use (``tests/core/test_compat.py`` wants all).
SHORTCUTS = {
    "series_around": _SingleBlockManager is not None and hasattr(pd.Series, "_from_mgr"),
    "arrow_array_like": hasattr(pd.arrays.ArrowExtensionArray, "_from_pyarrow_array"),
    "masked_parts": all(
        isinstance(getattr(pd.array([1, None], dtype="Int64"), name, None), np.ndarray)
        for name in ("_data", "_mask")
    ),
    "concat_same_type": hasattr(pd.api.extensions.ExtensionArray, "_concat_same_type"),
    "categorical_dtype": hasattr(pd.CategoricalDtype, "_from_fastpath"),
}


def series_around(array: Any, index: pd.Index | None = None, name: Any = None) -> pd.Series:
    """``pd.Series(array, index=index, name=name, copy=False)``, without pandas' inspection
    of the array: some forty checks that pandas 2.2's Arrow strings answer through a
    Python method each (35 microseconds a Series, a tenth of a small call's time).

    Private: ``SingleBlockManager.from_array`` and ``Series._from_mgr``.
    """
    if index is None:
        index = pd.RangeIndex(len(array))
    if SHORTCUTS["series_around"]:
        try:
            manager = _SingleBlockManager.from_array(array, index)
            series = pd.Series._from_mgr(manager, manager.axes)  # type: ignore[attr-defined]
        except (AttributeError, TypeError):  # pragma: no cover - a changed signature
            return pd.Series(array, index=index, name=name, copy=False)
        series.name = name
        return series
    return pd.Series(array, index=index, name=name, copy=False)  # pragma: no cover


def arrow_array_like(template: Any, chunked: Any) -> Any:
    """An array of ``template``'s Arrow-backed dtype holding ``chunked`` (Arrow data of the
    same type), built without reading the data again.

    Private: ``ArrowExtensionArray._from_pyarrow_array`` (pandas 3; pandas 2 has none).
    Otherwise the array type's public constructor takes the data as it is; one that
    would give another dtype (pandas 3's NaN-semantics strings) leaves it to
    ``pd.array``, which reads the data again.
    """
    if SHORTCUTS["arrow_array_like"]:
        return template._from_pyarrow_array(chunked)
    try:
        built = type(template)(chunked)
    except (TypeError, ValueError):  # pragma: no cover - a constructor that refuses it
        built = None
    if built is not None and built.dtype == template.dtype:
        return built
    return pd.array(chunked, dtype=template.dtype)  # pragma: no cover - public, slower


def masked_parts(array: Any) -> tuple[np.ndarray, np.ndarray]:
    """The values (arbitrary under the mask) and the mask of a nullable integer array,
    not copied.

    Private: ``BaseMaskedArray._data`` and ``._mask``. The public way copies the values
    with a fill value and the mask.
    """
    if SHORTCUTS["masked_parts"]:
        return array._data, array._mask
    filled = array.to_numpy(dtype=array.dtype.numpy_dtype, na_value=0)  # pragma: no cover
    return np.asarray(filled), np.asarray(array.isna(), dtype=bool)  # pragma: no cover


def concat_same_type(arrays: Sequence[Any]) -> Any:
    """Arrays of one extension dtype joined end to end, with no Series on the way.

    Private (documented for extension-array authors): ``ExtensionArray._concat_same_type``.
    """
    joiner = getattr(type(arrays[0]), "_concat_same_type", None)
    if joiner is not None:
        return joiner(list(arrays))
    series = [pd.Series(array, copy=False) for array in arrays]  # pragma: no cover
    return pd.concat(series, ignore_index=True).array  # pragma: no cover


def categorical_dtype(categories: pd.Index, ordered: bool) -> pd.CategoricalDtype:
    """``pd.CategoricalDtype(categories, ordered)`` for categories the caller knows to be
    distinct and present, without pandas hashing every one to check it (3 s for seven
    million strings). pandas 2 checks them again when a categorical is built on the
    dtype; pandas 3 does not.

    Private: ``CategoricalDtype._from_fastpath``.
    """
    if SHORTCUTS["categorical_dtype"]:
        return pd.CategoricalDtype._from_fastpath(categories, ordered)  # type: ignore[attr-defined]
    return pd.CategoricalDtype(categories, ordered=ordered)  # pragma: no cover
