"""The fast repeated-(group, doc) finder agrees with pandas' exact ``duplicated``."""

from __future__ import annotations

import itertools

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pdireval._prepare import duplicates as _duplicates
from pdireval._prepare import keys as _keys
from pdireval._prepare.duplicates import repeated_rows

ids = st.text(alphabet=st.sampled_from("ab\x00é0123456789xyz"), max_size=20)


def _expected(group: np.ndarray, docs: pd.Series) -> np.ndarray:
    """Rows repeating an earlier (group, doc), by a Python set (every byte compared)."""
    seen: set = set()
    repeated = []
    for row, pair in enumerate(zip(group.tolist(), docs.astype(object).tolist(), strict=True)):
        if pair in seen:
            repeated.append(row)
        seen.add(pair)
    return np.array(repeated, dtype=np.int64)


@settings(max_examples=200, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 3), ids), max_size=60), st.integers(1, 4))
def test_matches_pandas_on_arrow_strings_split_into_chunks(rows, n_chunks: int) -> None:
    """Any strings (NULs, non-ASCII, shared 8-byte prefixes), over several Arrow chunks."""
    pa = pytest.importorskip("pyarrow")
    group = np.array([g for g, _ in rows], dtype=np.int32)
    values = [doc for _, doc in rows]
    cuts = np.linspace(0, len(values), n_chunks + 1).astype(int)
    chunks = [pa.array(values[a:b], type=pa.large_string()) for a, b in itertools.pairwise(cuts)]
    docs = pd.Series(pd.arrays.ArrowStringArray(pa.chunked_array(chunks, pa.large_string())))
    _check_in_small_pieces(group, docs)
    in_blocks = np.sort(group)  # each group contiguous: sorted a window at a time
    _check_in_small_pieces(in_blocks, docs)


def _check_in_small_pieces(group: np.ndarray, docs: pd.Series) -> None:
    """Also hash 7 strings and sort windows of 3 rows at a time (more edge cases)."""
    defaults = _keys._BLOCK, _duplicates._WINDOW
    try:
        for block, window in (defaults, (7, 3)):
            _keys._BLOCK, _duplicates._WINDOW = block, window
            np.testing.assert_array_equal(repeated_rows(group, docs), _expected(group, docs))
    finally:
        _keys._BLOCK, _duplicates._WINDOW = defaults


@settings(max_examples=100, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 3), ids), min_size=1, max_size=60), st.data())
def test_matches_pandas_on_sliced_and_other_dtypes(rows, data) -> None:
    """Slices (offset buffers), object, categorical and integer doc ids."""
    group = np.array([g for g, _ in rows], dtype=np.int32)
    docs = pd.Series([doc for _, doc in rows], dtype="str")
    start = data.draw(st.integers(0, len(rows) - 1))
    sliced, sliced_group = docs.iloc[start:].reset_index(drop=True), group[start:]
    arrow = sliced.astype(_keys.string_dtype())  # pandas 2: no NUL-safe object categories
    variants = (sliced, sliced.astype(object), arrow.astype("category"))
    variants += (sliced.astype(pd.StringDtype("python")),)  # pandas without pyarrow
    for variant in variants:
        found = repeated_rows(sliced_group, variant)
        np.testing.assert_array_equal(found, _expected(sliced_group, variant))
    numbers = pd.Series([len(doc) * 7 - 3 for _, doc in rows], dtype="int64")
    np.testing.assert_array_equal(repeated_rows(group, numbers), _expected(group, numbers))
