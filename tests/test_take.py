"""Rows of an id column taken chunk by chunk equal ``Series.take``."""

from __future__ import annotations

import itertools

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pdireval._prepare.keys import string_dtype
from pdireval._prepare.take import take

pa = pytest.importorskip("pyarrow")


@settings(max_examples=200, deadline=None)
@given(
    st.lists(st.text(alphabet="ab\x00é1", max_size=6), min_size=1, max_size=40),
    st.integers(1, 4),
    st.data(),
)
def test_take_from_chunks_equals_series_take(values: list, n_chunks: int, data) -> None:
    """Rows in any order, repeated, inside one chunk or across several."""
    cuts = np.linspace(0, len(values), n_chunks + 1).astype(int)
    chunks = [pa.array(values[a:b], type=pa.large_string()) for a, b in itertools.pairwise(cuts)]
    column = pd.Series(pd.array(pa.chunked_array(chunks), dtype=string_dtype()), name="doc")
    rows = np.array(
        data.draw(st.lists(st.integers(0, len(values) - 1), max_size=30)), dtype=np.int64
    )
    if data.draw(st.booleans()) and len(rows):  # all in the chunk of the first row
        chunk = int(np.searchsorted(cuts, rows[0], side="right")) - 1
        rows = np.clip(rows, cuts[chunk], max(cuts[chunk + 1] - 1, cuts[chunk]))
    taken = take(column, rows)
    assert taken.dtype == column.dtype
    assert taken.name == "doc"
    assert taken.tolist() == [values[row] for row in rows.tolist()]
