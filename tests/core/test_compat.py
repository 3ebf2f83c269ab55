"""Every private pandas attribute pdireval uses still works, and still gives what the
public call gives.

These tests fail loudly when a pandas release renames or changes an attribute that
``pdireval._core.compat`` reads -- instead of the library silently falling back to the
slower public call. Each fallback is checked too, so that it stays right.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pyarrow as pa
import pytest

from pdireval._core import compat as _compat
from pdireval._prepare.arrays import string_dtype


def test_every_shortcut_is_available_in_this_pandas() -> None:
    expected = dict.fromkeys(_compat.SHORTCUTS, True)
    expected["arrow_array_like"] = int(pd.__version__.split(".")[0]) >= 3  # new in pandas 3
    changed = [name for name, present in _compat.SHORTCUTS.items() if present != expected[name]]
    assert not changed, (
        f"pandas {pd.__version__} changed what pdireval._core.compat uses: {changed}"
    )


def _arrow_arrays() -> list:
    strings = pa.chunked_array([pa.array(["d2", None, "d1"], type=pa.large_string())])
    return [
        pd.array(strings, dtype=string_dtype()),
        pd.array(strings, dtype=pd.StringDtype("pyarrow")),
        pd.array(strings, dtype=pd.ArrowDtype(pa.large_string())),
        pd.array(pa.chunked_array([pa.array([3, None, 1])]), dtype=pd.ArrowDtype(pa.int64())),
    ]


@pytest.fixture(params=[True, False], ids=["shortcut", "public"])
def shortcuts(request, monkeypatch: pytest.MonkeyPatch) -> bool:
    """Run a test with the shortcuts taken, and with every one replaced by its fallback."""
    if not request.param:
        for name in _compat.SHORTCUTS:
            monkeypatch.setitem(_compat.SHORTCUTS, name, False)
    return bool(request.param)


@pytest.mark.parametrize("index", [None, pd.Index([10, 11, 12]), pd.Index(["a", "b", "c"])])
@pytest.mark.parametrize("array", _arrow_arrays(), ids=lambda a: str(a.dtype))
def test_series_around_equals_the_public_constructor(array, index, shortcuts: bool) -> None:
    wrapped = _compat.series_around(array, index=index, name="doc")
    expected = pd.Series(array, index=index, name="doc", copy=False)
    pd.testing.assert_series_equal(wrapped, expected, check_index_type=True)
    assert wrapped.array is array


@pytest.mark.parametrize("array", _arrow_arrays(), ids=lambda a: str(a.dtype))
def test_arrow_array_like_keeps_the_dtype_and_takes_the_data_as_it_is(
    array, shortcuts: bool
) -> None:
    data = array.__arrow_array__()
    taken = data.take(pa.array([2, 0]))
    rebuilt = _compat.arrow_array_like(array, taken)
    assert rebuilt.dtype == array.dtype
    assert type(rebuilt) is type(array)
    assert rebuilt.__arrow_array__().equals(taken)
    assert list(rebuilt) == [array[2], array[0]]


@pytest.mark.parametrize("dtype", ["Int64", "UInt64", "Int32"])
def test_masked_parts_are_the_arrays_own_values_and_mask(dtype: str, shortcuts: bool) -> None:
    array = pd.array([5, None, 7], dtype=dtype)
    data, mask = _compat.masked_parts(array)
    assert mask.tolist() == [False, True, False]
    assert data[~mask].tolist() == [5, 7]
    assert data.dtype == array.dtype.numpy_dtype
    if shortcuts:  # not copied
        assert np.shares_memory(data, array._data)


@pytest.mark.parametrize(
    "arrays",
    [
        [pd.array(["a", None], dtype=string_dtype()), pd.array(["b"], dtype=string_dtype())],
        [pd.array([1, None], dtype="Int64"), pd.array([3], dtype="Int64")],
        [
            pd.Categorical(["a"], categories=["a", "b"]),
            pd.Categorical(["b"], categories=["a", "b"]),
        ],
    ],
    ids=["str", "Int64", "category"],
)
def test_concat_same_type_equals_pd_concat(arrays: list) -> None:
    joined = _compat.concat_same_type(arrays)
    expected = pd.concat([pd.Series(a) for a in arrays], ignore_index=True)
    pd.testing.assert_series_equal(pd.Series(joined), expected)


@pytest.mark.parametrize("ordered", [False, True])
def test_categorical_dtype_equals_the_public_one(ordered: bool, shortcuts: bool) -> None:
    categories = pd.Index(["d2", "d10", "é"], dtype=string_dtype())
    dtype = _compat.categorical_dtype(categories, ordered)
    assert dtype == pd.CategoricalDtype(categories, ordered=ordered)
    assert dtype.categories.equals(categories)
    codes = np.array([2, 0, 1, 2], dtype=np.int8)
    built = pd.Categorical.from_codes(codes, dtype=dtype, validate=False)
    assert built.tolist() == ["é", "d2", "d10", "é"]
