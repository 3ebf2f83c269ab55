"""The fast repeated-(group, doc) finder agrees with pandas' exact ``duplicated``."""

from __future__ import annotations

import itertools

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pdireval._prepare import arrays as _arrays
from pdireval._prepare import groups as _groups
from pdireval._prepare import keys as _keys
from pdireval._prepare import sorting as _sorting
from pdireval._prepare.groups import repeated_rows

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
    """Also hash 7 strings and check windows of 3 rows at a time (more edge cases)."""
    defaults = _keys._BLOCK, _groups._WINDOW, _groups._FEW_ROWS
    try:
        for settings_ in (defaults, (7, 3, 0), (_keys._BLOCK, _groups._WINDOW, 0)):
            _keys._BLOCK, _groups._WINDOW, _groups._FEW_ROWS = settings_
            found = repeated_rows(group, docs)
            np.testing.assert_array_equal(found, _expected(group, docs))
    finally:
        _keys._BLOCK, _groups._WINDOW, _groups._FEW_ROWS = defaults


@settings(max_examples=200, deadline=None)
@given(
    st.lists(st.lists(st.sampled_from("abcdefghij"), min_size=4, max_size=14), max_size=8),
    st.lists(st.tuples(st.integers(0, 7), st.sampled_from("abcdefghijk")), max_size=6),
    st.booleans(),
)
def test_groups_in_blocks_with_rows_appended(blocks, appended, shuffle_blocks) -> None:
    """A run in run order with judged documents appended after it (merged labels): most
    groups one block, a few split in two, checked in windows of whole groups."""
    order = list(range(len(blocks)))
    if shuffle_blocks:  # groups in blocks, but not in the order of their codes
        order = order[::-1]
    group = [g for g in order for _ in blocks[g]]
    docs = [doc for g in order for doc in blocks[g]]
    for g, doc in appended:
        if g < len(blocks):
            group.append(g)
            docs.append(doc)
    _check_in_small_pieces(np.array(group, dtype=np.int32), pd.Series(docs, dtype="str"))


@settings(max_examples=100, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 3), ids), min_size=1, max_size=60), st.data())
def test_matches_pandas_on_sliced_and_other_dtypes(rows, data) -> None:
    """Slices (offset buffers), object, categorical and integer doc ids."""
    group = np.array([g for g, _ in rows], dtype=np.int32)
    docs = pd.Series([doc for _, doc in rows], dtype="str")
    start = data.draw(st.integers(0, len(rows) - 1))
    sliced, sliced_group = docs.iloc[start:].reset_index(drop=True), group[start:]
    arrow = sliced.astype(_arrays.string_dtype())  # pandas 2: no NUL-safe object categories
    variants = (sliced, sliced.astype(object), arrow.astype("category"))
    variants += (sliced.astype(pd.StringDtype("python")),)  # pandas without pyarrow
    for variant in variants:
        found = repeated_rows(sliced_group, variant)
        np.testing.assert_array_equal(found, _expected(sliced_group, variant))
    numbers = pd.Series([len(doc) * 7 - 3 for _, doc in rows], dtype="int64")
    np.testing.assert_array_equal(repeated_rows(group, numbers), _expected(group, numbers))


@settings(max_examples=200, deadline=None)
@given(
    st.lists(st.integers(0, 2**64 - 1), max_size=300),
    st.lists(st.integers(0, 40), max_size=20),
    st.integers(0, 2**31 - 1),
)
def test_repeat_check_on_keys_matches_a_set(values, repeats, stale: int) -> None:
    """Keys sharing a slot, keys repeated, and scratch space left by an earlier check."""
    keys = np.array(values + [values[i % len(values)] for i in repeats if values], np.uint64)
    table = np.full(_sorting._slots(len(keys) + 1), stale % max(len(keys), 1), np.int32)
    expected = len(set(keys.tolist())) < len(keys)
    assert _sorting.has_repeat(keys, table) is expected
    assert _sorting.has_repeat(keys, table) is expected  # the table as left
    assert _sorting.has_repeat(keys) is expected


@pytest.mark.parametrize("repeat_at", [None, 0, 70_001, 199_999])
def test_windows_of_a_run_in_run_order_find_one_repeated_doc(repeat_at) -> None:
    """200,000 rows in blocks of 100 per query: checked window by window, each window's
    keys put through a table of slots."""
    rng = np.random.default_rng(7)
    group = np.repeat(np.arange(2_000, dtype=np.int32), 100)
    docs = rng.permutation(np.arange(200_000) * 7919 % 1_000_003)
    if repeat_at is not None:
        row = repeat_at - repeat_at % 100 + (1 if repeat_at % 100 == 0 else 0)
        docs[row] = docs[row - 1] if row % 100 else docs[row + 1]
    found = repeated_rows(group, pd.Series(docs.astype(str), dtype="str"))
    expected = _expected(group, pd.Series(docs))
    np.testing.assert_array_equal(found, expected)
    assert len(found) == (0 if repeat_at is None else 1)
