"""Rows of an id column taken chunk by chunk equal ``Series.take``."""

from __future__ import annotations

import itertools

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pdireval._prepare.arrays import string_dtype, take

pa = pytest.importorskip("pyarrow")


def _arrow_dtypes() -> list:
    """Arrow-backed dtypes an id column may have, with the Arrow type of their chunks."""
    return [
        (string_dtype(), pa.large_string()),
        (pd.StringDtype("pyarrow"), pa.large_string()),
        (pd.ArrowDtype(pa.large_string()), pa.large_string()),
        (pd.ArrowDtype(pa.string()), pa.string()),
    ]


@pytest.mark.parametrize(("dtype", "arrow_type"), _arrow_dtypes())
@settings(max_examples=100, deadline=None)
@given(
    st.lists(st.text(alphabet="ab\x00é1", max_size=6), min_size=4, max_size=40),
    st.integers(1, 4),
    st.data(),
)
def test_take_from_chunks_equals_series_take(
    dtype, arrow_type, values: list, n_chunks: int, data
) -> None:
    """Rows in any order, repeated, inside one chunk or across several; every Arrow-backed
    string dtype keeps its dtype and array type.
    """
    cuts = np.linspace(0, len(values), n_chunks + 1).astype(int)
    chunks = [pa.array(values[a:b], type=arrow_type) for a, b in itertools.pairwise(cuts)]
    column = pd.Series(pd.array(pa.chunked_array(chunks), dtype=dtype), name="doc")
    assert column.array._pa_array.num_chunks == n_chunks  # the chunked path is exercised
    rows = np.array(
        data.draw(st.lists(st.integers(0, len(values) - 1), max_size=30)), dtype=np.int64
    )
    if data.draw(st.booleans()) and len(rows):  # all in the chunk of the first row
        chunk = int(np.searchsorted(cuts, rows[0], side="right")) - 1
        rows = np.clip(rows, cuts[chunk], max(cuts[chunk + 1] - 1, cuts[chunk]))
    taken = take(column, rows)
    assert taken.dtype == column.dtype
    assert type(taken.array) is type(column.array)
    assert taken.name == "doc"
    assert taken.tolist() == [values[row] for row in rows.tolist()]
