"""64-bit id keys: equal ids get equal keys whatever the dtype, unequal ones differ."""

from __future__ import annotations

import itertools
import sys

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pdireval._prepare import arrays as _arrays
from pdireval._prepare import groups as _groups
from pdireval._prepare import keys as _keys
from pdireval._prepare import sorting as _sorting
from pdireval._prepare.arrays import series_of
from pdireval._prepare.keys import id_keys

pa = pytest.importorskip("pyarrow")
ids = st.text(alphabet=st.sampled_from("ab\x00é0123456789xyz"), max_size=30)


@settings(max_examples=200, deadline=None)
@given(st.lists(ids, max_size=60), st.integers(1, 4), st.integers(0, 5))
def test_keys_agree_with_equality_across_dtypes_and_chunks(values, n_chunks, skip) -> None:
    """Every representation of the same strings gets the same keys; distinct strings differ."""
    cuts = np.linspace(0, len(values), n_chunks + 1).astype(int)
    variants = []
    for arrow_type in (pa.string(), pa.large_string()):
        chunks = [pa.array(values[a:b], type=arrow_type) for a, b in itertools.pairwise(cuts)]
        variants.append(pd.Series(pd.arrays.ArrowStringArray(pa.chunked_array(chunks, arrow_type))))
    plain = pd.Series(values, dtype="str")
    # Categories built from Arrow strings: pandas 2 builds them from Python strings with a
    # hash table that stops at a NUL ("" and "\x00" would be one category).
    arrow = pd.Series(values, dtype=_arrays.string_dtype())
    variants += [plain, plain.astype(object), arrow.astype("category")]
    variants.append(plain.astype(pd.StringDtype("python")))
    defaults = _keys._BLOCK
    try:
        for block in (defaults, 3):
            _keys._BLOCK = block
            for variant in variants:
                keys = id_keys(variant)
                assert keys is not None
                assert keys.dtype == np.uint64
                sliced = id_keys(variant.iloc[skip:].reset_index(drop=True))
                np.testing.assert_array_equal(sliced, keys[skip:])
                same_key = keys[:, None] == keys[None, :]
                same_value = np.array(values, dtype=object)[:, None] == np.array(values, object)
                np.testing.assert_array_equal(same_key, same_value)
    finally:
        _keys._BLOCK = defaults


def test_integer_ids_are_their_own_keys_and_other_dtypes_have_none() -> None:
    assert id_keys(pd.Series([3, -1, 3])).tolist() == [3, 2**64 - 1, 3]
    assert id_keys(pd.Series([3, -1], dtype="Int32")).tolist() == [3, 2**64 - 1]
    assert id_keys(pd.Series([1.5, 2.0])) is None
    assert id_keys(pd.Series(["a", 1], dtype=object)) is None


def test_categories_map_to_the_keys_of_their_values() -> None:
    """Two categorical columns with different categories agree on shared values."""
    left = pd.Series(["b", "a", "c"], dtype="category")
    right = pd.Series(pd.Categorical(["a", "c"], categories=["c", "x", "a"]))
    assert id_keys(left)[[1, 2]].tolist() == id_keys(right).tolist()


@pytest.mark.parametrize("dtype", ["object", "str"])
def test_string_categories_give_their_strings_in_order(dtype: str) -> None:
    """Rows of a categorical column are strings taken by their codes: the categories'
    strings must be the categories, in their order."""
    categories = pd.Index(["d2", "é", "", "d10"], dtype=dtype)
    keys = _keys.category_keys(categories)
    assert keys.tolist() == id_keys(series_of(categories)).tolist()
    strings = _arrays.category_strings(categories)
    assert strings.type == pa.large_string()
    assert strings.to_pylist() == ["d2", "é", "", "d10"]


def test_other_categories_have_no_strings(monkeypatch: pytest.MonkeyPatch) -> None:
    numbers = pd.Index([3, 1, 2])
    assert _keys.category_keys(numbers).tolist() == [3, 1, 2]
    assert _arrays.category_strings(numbers) is None
    mixed = pd.Index(["a", 1], dtype=object)
    assert _keys.category_keys(mixed) is None
    assert _arrays.category_strings(mixed) is None
    monkeypatch.setattr(_arrays, "_CATEGORY_STRINGS_KEPT", 2)  # too many to hold a copy of
    many = pd.Index(["a", "b", "c"], dtype=object)
    assert _keys.category_keys(many).tolist() == id_keys(series_of(many)).tolist()
    assert _arrays.category_strings(many) is None


def test_missing_strings_have_no_keys() -> None:
    assert id_keys(pd.Series(["a", None], dtype=object)) is None
    assert id_keys(pd.Series(["a", None], dtype="str")) is None


short_ids = st.text(alphabet=st.sampled_from("ab\x00é0129\xff"), max_size=7).filter(
    lambda text: len(text.encode()) <= 7
)


@settings(max_examples=200, deadline=None)
@given(st.lists(short_ids, max_size=40), st.integers(1, 3), st.integers(0, 3))
def test_byte_order_keys_sort_like_the_bytes(values, n_chunks, skip) -> None:
    """Keys order ids as strcmp orders their UTF-8 bytes, and tie exactly on equal ids."""
    cuts = np.linspace(0, len(values), n_chunks + 1).astype(int)
    chunks = [pa.array(values[a:b], type=pa.string()) for a, b in itertools.pairwise(cuts)]
    arrow = pd.Series(pd.arrays.ArrowStringArray(pa.chunked_array(chunks, pa.string())))
    for variant in (arrow.iloc[skip:], arrow.astype(object).iloc[skip:]):
        keys = _keys.byte_order_keys(variant)
        assert keys is not None
        texts = variant.tolist()
        for (a, ka), (b, kb) in itertools.combinations(zip(texts, keys, strict=True), 2):
            assert (ka < kb) == (a.encode() < b.encode())
            assert (ka == kb) == (a == b)


def test_byte_order_keys_leave_long_missing_and_non_string_ids_to_the_caller() -> None:
    assert _keys.byte_order_keys(pd.Series(["12345678"])) is None  # 8 bytes
    assert _keys.byte_order_keys(pd.Series(["é" * 4])) is None  # 4 characters, 8 bytes
    assert _keys.byte_order_keys(pd.Series(["a", None], dtype=object)) is None
    assert _keys.byte_order_keys(pd.Series([1, 2])) is None


@settings(max_examples=60, deadline=None)
@given(
    st.lists(st.integers(0, 2**64 - 1), min_size=64, max_size=300),
    st.lists(st.integers(0, 2**64 - 1), min_size=1024, max_size=1500),
    st.integers(0, 50),
)
def test_search_scattered_finds_what_searchsorted_finds(haystack, needles, repeats) -> None:
    ordered = np.sort(np.array(haystack, dtype=np.uint64))
    values = np.array(needles, dtype=np.uint64)
    values[:repeats] = ordered[:repeats]  # some values present, some more than once
    left, right = _sorting.search_scattered(ordered, values, ("left", "right"))
    np.testing.assert_array_equal(left, np.searchsorted(ordered, values, "left"))
    np.testing.assert_array_equal(right, np.searchsorted(ordered, values, "right"))


@settings(max_examples=150, deadline=None)
@given(
    st.lists(st.integers(0, 2**40), max_size=400),
    st.sampled_from(["as drawn", "sorted", "small", "negative", "huge"]),
)
def test_stable_argsort_orders_like_numpys_stable_sort(values, shape) -> None:
    array = np.array(values, dtype=np.int64)
    if shape == "sorted":
        array.sort()
    elif shape == "small":
        array %= 7  # many repeats, below 2**16: the radix path
    elif shape == "negative":
        array -= 2**39
    elif shape == "huge" and len(array):
        array[0] = 2**62  # value * n would overflow
    expected = np.argsort(array, kind="stable")
    np.testing.assert_array_equal(_sorting.stable_argsort(array), expected)
    if shape != "negative":
        unsigned = array.astype(np.uint64)
        np.testing.assert_array_equal(_sorting.stable_argsort(unsigned), expected)


@settings(max_examples=200, deadline=None)
@given(
    st.lists(st.integers(0, 2**64 - 1), max_size=300),
    st.sampled_from([2**64 - 1, 2**16 - 1, 0xFFFF_0000_FFFF_0000, 7]),
    st.booleans(),
)
def test_argsort_keys_orders_like_numpys_stable_sort(values, mask: int, strided: bool) -> None:
    """Masks make small values (sorted with their row) and repeats; a strided view is
    read like a copy."""
    array = np.array(values, dtype=np.uint64) & np.uint64(mask)
    if strided:
        array = np.repeat(array, 2)[::2]
    found = _sorting.argsort_keys(array)
    np.testing.assert_array_equal(found, np.argsort(array, kind="stable"))
    assert found.dtype == np.intp


def test_argsort_keys_on_wide_values_with_long_runs_of_equals() -> None:
    """Values too wide to carry their row number: runs of equal values in row order."""
    rng = np.random.default_rng(3)
    array = rng.choice(np.array([2**63, 2**63 + 5, 7, 2**40], dtype=np.uint64), size=5000)
    expected = np.argsort(array, kind="stable")
    np.testing.assert_array_equal(_sorting.argsort_keys(array), expected)


def test_argsort_keys_leaves_wide_or_other_arrays_to_numpy() -> None:
    """Wide values go to numpy's stable sort; small values carry their row and are
    sorted as such at any length."""
    wide = np.array([2**63 + 5, 1, 2**63 + 5, 0, 1], dtype=np.uint64)
    np.testing.assert_array_equal(_sorting.argsort_keys(wide), [3, 1, 4, 0, 2])
    values = np.array([5, 1, 5, 0, 1], dtype=np.uint64)
    np.testing.assert_array_equal(_sorting.argsort_keys(values), [3, 1, 4, 0, 2])
    signed = np.array([3, -1, 3], dtype=np.int64)
    np.testing.assert_array_equal(_sorting.argsort_keys(signed), [1, 0, 2])


@settings(max_examples=100, deadline=None)
@given(st.lists(st.tuples(ids, st.integers(1, 12)), min_size=1, max_size=25), st.booleans())
def test_grouping_codes_match_a_sorted_factorize_read_whole_or_by_blocks(
    blocks, by_blocks: bool
) -> None:
    """Ids in blocks (a run in run order), every id dtype: codes of the ids in sorted order
    (NUL characters included), whether the column is hashed whole or block by block.
    """

    values = [value for value, count in blocks for _ in range(count)]
    arrow = pd.Series(values, dtype=_arrays.string_dtype())
    variants = [arrow, arrow.astype(object), arrow.astype("category")]
    variants.append(pd.Series([len(v) * 31 + v.count("a") for v in values], dtype="int64"))
    threshold = 0 if by_blocks else _groups._BLOCKS_FROM_ROWS
    for column in variants:
        original = _groups._BLOCKS_FROM_ROWS
        _groups._BLOCKS_FROM_ROWS = threshold
        try:
            codes, uniques = _groups.factorize_sorted(column)
        finally:
            _groups._BLOCKS_FROM_ROWS = original
        plain = column.astype(object).tolist()  # compared in Python: every byte counts
        expected_uniques = sorted(set(plain))
        at = {value: code for code, value in enumerate(expected_uniques)}
        np.testing.assert_array_equal(codes, [at[value] for value in plain])
        assert list(uniques) == expected_uniques


@pytest.mark.parametrize("dtype", ["object", "str"])
def test_factorize_tells_nul_characters_apart_with_a_missing_id(dtype: str) -> None:
    """With a missing id (-1, pandas' factorize rather than Arrow's dictionary encoding),
    ids that differ after a NUL stay apart, and the distinct ids keep the column's dtype."""

    column = pd.Series(["q\x00", None, "q", "q\x00"], dtype=object)
    if dtype == "str":
        column = column.astype(_arrays.string_dtype())
    codes, uniques = _groups._factorize(column)
    assert codes.tolist() == [1, -1, 0, 1]
    assert list(uniques) == ["q", "q\x00"]
    assert uniques.dtype == column.dtype


@pytest.mark.parametrize(
    ("values", "expected"),
    [
        (["q1", np.nan, None, pd.NA], ["q1", None, None, None]),  # missing stays missing
        ([np.str_("q1"), "q2"], ["q1", "q2"]),
        ([None, None], [None, None]),
        ([], []),
        ([b"q1", b"q2"], None),  # bytes are not strings
        (["q1", b"q1"], None),
        ([b"q1", "q1"], None),
        (["q1", 1], None),
        (["q1", 1.5], None),
        (["q1", True], None),
    ],
)
def test_only_python_strings_become_arrow_strings(values: list, expected: list | None) -> None:
    for repeat in (1, 40):  # whole, and read by blocks of equal ids
        ids = pd.Series([value for value in values for _ in range(repeat)], dtype=object)
        converted = _arrays.arrow_strings(ids)
        if expected is None:
            assert converted is None
        else:
            assert converted is not None
            assert converted.dtype == _arrays.string_dtype()
            want = [value for value in expected for _ in range(repeat)]
            got = converted.astype(object).where(converted.notna(), None).tolist()
            assert got == want


@pytest.mark.parametrize(
    "values",
    [["q1", "q2", "q1"], [np.str_("q1"), "q2"], ["q1", None], ["q1", np.nan], [b"q1"], ["q1", 2]],
)
def test_keys_of_python_strings_read_in_blocks_or_none(values: list, monkeypatch) -> None:
    monkeypatch.setattr(_keys, "_CONVERTED_ROWS", 2)
    ids = pd.Series(values, dtype=object)
    keys = _keys.python_string_keys(ids)
    if all(isinstance(value, str) for value in values):
        assert keys is not None
        np.testing.assert_array_equal(keys, id_keys(ids.astype(_arrays.string_dtype())))
    else:
        assert keys is None


@settings(max_examples=100, deadline=None)
@given(
    st.lists(st.integers(0, 9), max_size=40),
    st.sampled_from([np.int8, np.int32, np.int64, np.intp]),
    st.integers(1, 7),
)
def test_gathered_by_blocks_is_fancy_indexing(rows: list, dtype: type, block: int) -> None:
    values = np.arange(100, 110, dtype=np.int64)
    index = np.array(rows, dtype=dtype)
    with pytest.MonkeyPatch.context() as monkeypatch:
        monkeypatch.setattr(_arrays, "TEMPORARY_ROWS", block)
        found = _arrays.gathered(values, index)
    assert found.dtype == values.dtype
    np.testing.assert_array_equal(found, values[index.astype(np.intp)])


@settings(max_examples=100, deadline=None)
@given(
    st.lists(st.integers(0, 1), max_size=40),
    st.sampled_from([np.int8, np.int32, np.intp]),
    st.integers(1, 12),
    st.sampled_from([0, 2, 5]),
)
def test_bincount_by_blocks_is_numpys(values: list, dtype: type, block: int, length: int) -> None:
    """Counts by blocks of 8 to 12 rows (of values 0 and 1) are numpy's, also when the
    values exceed ``minlength``."""
    array = np.array(values, dtype=dtype)
    with pytest.MonkeyPatch.context() as monkeypatch:
        monkeypatch.setattr(_arrays, "TEMPORARY_ROWS", block)
        found = _arrays.bincount(array, length)
    np.testing.assert_array_equal(found, np.bincount(array, minlength=length))


@settings(max_examples=100, deadline=None)
@given(
    st.lists(st.integers(0, 5), min_size=1, max_size=30),
    st.permutations(["a", "b", "c", "d", "e", "f"]),
    st.booleans(),
    st.booleans(),
)
def test_categorical_ids_factorize_like_pandas(codes, categories, ordered, missing) -> None:
    """From the codes: the categories used, in the categories' order (unused ones and
    unsorted categories included); a missing id is left to pandas."""

    column = pd.Series(pd.Categorical.from_codes(codes, categories=categories, ordered=ordered))
    if missing:
        column.iloc[0] = np.nan
    found_codes, found_uniques = _groups._factorize(column)
    expected_codes, expected_uniques = pd.factorize(column, sort=True)
    np.testing.assert_array_equal(found_codes, expected_codes)
    pd.testing.assert_index_equal(found_uniques, pd.Index(expected_uniques))


@settings(max_examples=100, deadline=None)
@given(
    st.sampled_from(["int8", "int32", "int64", "uint64"]).flatmap(
        lambda dtype: st.tuples(
            st.just(dtype),
            st.lists(
                st.integers(int(np.iinfo(dtype).min), int(np.iinfo(dtype).max)).flatmap(
                    lambda v: st.sampled_from([v, v, 0])
                ),
                min_size=1,
                max_size=30,
            ),
        )
    )
)
def test_integer_ids_factorized_by_arrow_like_pandas(case) -> None:
    """Millions of integer ids are factorized by Arrow: same codes and sorted ids (of
    the same dtype) as pandas' sorted factorize, extremes of each dtype included."""

    dtype, values = case
    column = pd.Series(values, dtype=dtype)
    with pytest.MonkeyPatch.context() as monkeypatch:
        monkeypatch.setattr(_groups, "_ARROW_INTEGERS_FROM_ROWS", 0)
        found_codes, found_uniques = _groups._factorize(column)
    expected_codes, expected_uniques = pd.factorize(column, sort=True)
    np.testing.assert_array_equal(found_codes, expected_codes)
    pd.testing.assert_index_equal(found_uniques, pd.Index(expected_uniques))


long_ids = st.text(alphabet=st.sampled_from("ab\x00é0z\U0001f600"), max_size=90)


@settings(max_examples=150, deadline=None)
@given(
    st.lists(long_ids, max_size=40),
    st.integers(1, 3),
    st.integers(0, 5),
    st.sampled_from(
        [(32, 512, 1 << 14), (0, 1, 2), (0, 3, 1), (1, 10**9, 1), (2, 2, 5), (3, 4, 64)]
    ),
)
def test_long_ids_get_keys_that_agree_with_equality(values, n_chunks, skip, sizes) -> None:
    """Ids longer than ``_SHORT_WORDS`` words are hashed word after word while at least
    ``_WORD_MAJOR_ROWS`` are that long, then from all their words left, ``_LONG_STEP``
    words at a time: equal ids get equal keys in every representation, in any block,
    chunk or step; unequal ones differ. Small sizes put ids of a few bytes on every
    route and cut them across steps."""
    values = values + [value + value for value in values[:5]]  # longer, sharing a start
    cuts = np.linspace(0, len(values), n_chunks + 1).astype(int)
    chunks = [pa.array(values[a:b], type=pa.large_string()) for a, b in itertools.pairwise(cuts)]
    plain = pd.Series(values, dtype="str")
    variants = [
        pd.Series(pd.arrays.ArrowStringArray(pa.chunked_array(chunks, pa.large_string()))),
        plain,
        plain.astype(object),
        pd.Series(values, dtype=_arrays.string_dtype()).astype("category"),
    ]
    same_value = np.array(values, dtype=object)[:, None] == np.array(values, dtype=object)
    with pytest.MonkeyPatch.context() as monkeypatch:
        names = ("_SHORT_WORDS", "_WORD_MAJOR_ROWS", "_LONG_STEP")
        for name, size in zip(names, sizes, strict=True):
            monkeypatch.setattr(_keys, name, size)
        for block in (_keys._BLOCK, 3):
            monkeypatch.setattr(_keys, "_BLOCK", block)
            for variant in variants:
                keys = id_keys(variant)
                assert keys is not None
                np.testing.assert_array_equal(keys[:, None] == keys[None, :], same_value)
                sliced = id_keys(variant.iloc[skip:].reset_index(drop=True))
                np.testing.assert_array_equal(sliced, keys[skip:])
            python = _keys.python_string_keys(plain.astype(object))
            np.testing.assert_array_equal(python, id_keys(plain))


def test_keys_of_short_ids_do_not_depend_on_the_long_ones_beside_them() -> None:
    """Which way an id is hashed depends on its own length only: an id gets the same key
    beside ids of any length, and ids that differ in one byte, far in, differ."""
    long = "x" * 100_000
    alone = id_keys(pd.Series(["d1", "d22", "a" * 256, "a" * 257], dtype="str"))
    beside = id_keys(pd.Series(["d1", long, "d22", "a" * 256, long + "y", "a" * 257], dtype="str"))
    np.testing.assert_array_equal(beside[[0, 2, 3, 5]], alone)
    assert beside[1] != beside[4]
    assert len(set(beside.tolist())) == 6


def _calls_while(work) -> int:
    """Python and C functions called while ``work()`` runs: steps, counted, not timed."""
    count = 0

    def profile(frame, event, arg) -> None:
        nonlocal count
        count += event in ("call", "c_call")

    previous = sys.getprofile()
    sys.setprofile(profile)
    try:
        work()
    finally:
        sys.setprofile(previous)
    return count


@pytest.mark.parametrize("dtype", ["str", "object"])
def test_the_steps_of_hashing_do_not_grow_with_the_longest_id(dtype: str) -> None:
    """A long id among short ones costs its bytes, not a step per word of it for every
    row around it: from a 1,000- to a 200,000-character id, hashing the column takes
    fewer than one more step per thousand characters (a step per word would be 25,000)."""
    short = [f"d{i}" for i in range(3000)]

    def steps(length: int) -> int:
        ids = pd.Series([*short[:1500], "x" * length, *short[1500:]], dtype=dtype)
        return _calls_while(lambda: id_keys(ids))

    assert steps(200_000) - steps(1_000) < 200_000 // 1_000
