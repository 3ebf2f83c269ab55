"""64-bit keys of id columns: equal ids get equal keys, computed with vectorised numpy.

Hash tables of millions of string ids are the slow part of matching and
de-duplicating runs. Reducing every id to a ``uint64`` first lets the callers
sort or look up plain integers and compare the ids themselves only where two
keys are equal:

* integer ids are their own keys;
* strings are hashed from their raw Arrow bytes, read eight at a time, in
  blocks small enough for the temporaries to stay in cache;
* Python ``object`` strings are converted to Arrow first (about 4x faster than
  a pandas hash table of the objects);
* categorical ids take the keys of their categories, so two frames with
  different categories still agree; string categories are kept as Arrow
  strings too, so rows are compared by the strings their codes pick.

Keys depend only on the id values, never on the frame, so keys of a run and of
its qrels can be compared.
"""

from __future__ import annotations

import functools
import sys
from typing import Any

import numpy as np
import pandas as pd

from pdireval._prepare.take import arrow_series, series_of

__all__ = [
    "RADIX_ROWS",
    "TEMPORARY_ROWS",
    "argsort_keys",
    "arrow_strings",
    "bincount",
    "byte_order_keys",
    "category_keys",
    "category_strings",
    "gathered",
    "holds_python_objects",
    "id_keys",
    "large_strings",
    "python_string_blocks",
    "python_string_keys",
    "search_scattered",
    "spread",
    "stable_argsort",
    "string_array",
    "string_dtype",
    "string_series",
    "vectorised_sort",
]

_MULTIPLIER = np.uint64(0x9E3779B97F4A7C15)
_BLOCK = 1 << 14  # strings hashed per step: the temporaries stay in the CPU cache
_PROBE = 1 << 12  # rows looked at to tell grouped ids from scattered ones
_SHORT_PROBE = 1 << 6  # rows looked at first: most scattered ids show in fewer

#: Rows a temporary array of a long column holds: it stays in the CPU cache, and the
#: allocator hands the same memory out again rather than fresh pages from the kernel
#: (slow to fault in).
TEMPORARY_ROWS = 1 << 18
_CONVERTED_ROWS = 1 << 18  # Python strings converted to Arrow at a time, for their keys


def id_keys(ids: pd.Series) -> np.ndarray | None:
    """Keys of ``ids`` (no missing values) as uint64; None when the dtype has no fast path.

    Parameters
    ----------
    ids : Series
        Query or doc ids: integers, strings (Arrow, Python or object) or categorical.

    Returns
    -------
    ndarray of uint64 or None
        One key per row, in a new array; equal ids get equal keys, unequal ids rarely
        collide.
        None for other dtypes (floats, mixed objects), which callers compare directly.

    Examples
    --------
    >>> import pandas as pd
    >>> keys = id_keys(pd.Series(["d1", "d22", "d1"], dtype="str"))
    >>> bool(keys[0] == keys[2]), bool(keys[0] == keys[1])
    (True, False)
    """
    dtype = ids.dtype
    if not len(ids):
        return np.zeros(0, dtype=np.uint64)
    if isinstance(dtype, pd.CategoricalDtype):
        keys = category_keys(dtype.categories)
        if keys is None:
            return None
        return gathered(keys, ids.array.codes)
    if pd.api.types.is_integer_dtype(dtype):
        return ids.to_numpy(dtype=np.int64, copy=True).view(np.uint64)  # callers may modify
    chunked = getattr(ids.array, "_pa_array", None)
    if chunked is None:
        chunked = _as_arrow_strings(ids)
        if chunked is None:
            return None
    return _string_keys(chunked)


def holds_python_objects(dtype: Any) -> bool:
    """Whether a column of ``dtype`` holds Python objects (object, or Python-backed strings)."""
    python_strings = isinstance(dtype, pd.StringDtype) and dtype.storage == "python"
    return python_strings or dtype == np.dtype(object)


def _python_objects(ids: pd.Series) -> np.ndarray | None:
    """The ids as an array of Python objects, when their dtype holds Python objects; else None."""
    return ids.to_numpy(dtype=object) if holds_python_objects(ids.dtype) else None


def python_string_blocks(ids: pd.Series) -> np.ndarray | None:
    """The first row of each block of equal ids, when the ids are Python strings (object
    or Python-backed string dtype), none missing, that come in few blocks; else None.

    Such ids need not be converted whole: the first row of each block stands for the
    rest (equal ids, so equal strings).

    Examples
    --------
    >>> import pandas as pd
    >>> python_string_blocks(pd.Series(["q1"] * 10 + ["q2"] * 10, dtype=object)).tolist()
    [0, 10]
    >>> python_string_blocks(pd.Series(["q1"] * 10 + [None] * 10, dtype=object)) is None
    True
    """
    values = _python_objects(ids)
    if values is None:
        return None
    firsts = _block_firsts(values)
    if firsts is None or pd.api.types.infer_dtype(values[firsts], skipna=False) != "string":
        return None
    return firsts


def python_string_keys(ids: pd.Series) -> np.ndarray | None:
    """Keys of Python-string ids (object or Python-backed string dtype), as
    :func:`id_keys` gives them, without a converted copy of the column: each block of
    rows is converted to Arrow and hashed on its own.

    None unless every id is a ``str`` (so also when one is missing).

    Examples
    --------
    >>> import pandas as pd
    >>> ids = pd.Series(["d1", "d22", "d1"], dtype=object)
    >>> bool((python_string_keys(ids) == id_keys(ids.astype("str"))).all())
    True
    >>> python_string_keys(pd.Series(["d1", None], dtype=object)) is None
    True
    """
    values = _python_objects(ids)
    if values is None:
        return None
    import pyarrow as pa

    keys = np.empty(len(values), dtype=np.uint64)
    for begin in range(0, len(values), _CONVERTED_ROWS):
        part = values[begin : begin + _CONVERTED_ROWS]
        try:  # Arrow infers the type in the same pass: strings, or bytes, or an error
            array = pa.array(part)
        except (pa.ArrowException, TypeError, ValueError):  # numbers, mixed, or a str subclass
            return None
        if not pa.types.is_string(array.type) or array.null_count:  # bytes, or None
            return None
        _hash_strings(*_string_buffers(array), keys[begin : begin + len(part)])
    return keys


_CATEGORY_STRINGS_KEPT = 1 << 20  # categories converted to Arrow strings, at most


def category_keys(categories: pd.Index) -> np.ndarray | None:
    """Keys of categories as :func:`id_keys` gives them to their values; None when the
    categories are Python objects that are not all strings.
    """
    series = series_of(categories)
    chunked = getattr(series.array, "_pa_array", None)
    if chunked is None and holds_python_objects(series.dtype):
        chunked = _as_arrow_strings(series)  # None unless all are strings
    if chunked is not None:
        return _string_keys(chunked)
    return None if holds_python_objects(series.dtype) else id_keys(series)


def category_strings(categories: pd.Index) -> Any:
    """String categories (up to a million) as one Arrow large-string array; else None.

    Rows of a categorical column are then strings taken by their codes, with no
    Python object read.
    """
    if len(categories) > _CATEGORY_STRINGS_KEPT:
        return None
    series = series_of(categories)
    chunked = getattr(series.array, "_pa_array", None)
    if chunked is None and holds_python_objects(series.dtype):
        chunked = _as_arrow_strings(series)
    return None if chunked is None else large_strings(chunked)


def _chunked(array: Any) -> Any:
    import pyarrow as pa

    return pa.chunked_array([array])


def string_series(strings: Any) -> pd.Series:
    """Arrow strings (one array) as a Series of :func:`string_dtype`, not copied."""
    return series_of(string_array(_chunked(strings)))


def holds_strings(arrow: Any) -> bool:
    """Whether Arrow data (an array or a chunked array) holds strings, whatever the width
    of their offsets.

    Examples
    --------
    >>> import pyarrow as pa
    >>> holds_strings(pa.array(["q1"], type=pa.large_string())), holds_strings(pa.array([1]))
    (True, False)
    """
    import pyarrow as pa

    return bool(pa.types.is_string(arrow.type) or pa.types.is_large_string(arrow.type))


def large_strings(chunked: Any) -> Any:
    """Arrow strings (a chunked array) as one large-string array; None for other types."""
    import pyarrow as pa

    if not holds_strings(chunked):
        return None
    return chunked.combine_chunks().cast(pa.large_string())


def spread(keys: np.ndarray, bits: int, multiplier: np.uint64 = _MULTIPLIER) -> np.ndarray:
    """``bits``-bit hash of each key (Fibonacci hashing by an odd ``multiplier``), e.g. to
    index a table.

    Examples
    --------
    >>> import numpy as np
    >>> spread(np.array([1, 2, 3], dtype=np.uint64), 4).tolist()
    [9, 3, 13]
    """
    mixed = keys * multiplier
    mixed >>= np.uint64(64 - bits)
    return mixed.view(np.int64)  # < 2**bits: usable as indices by every numpy


def string_dtype() -> Any:
    """Pandas' Arrow-backed string dtype with NaN for missing values (pandas 3's ``str``)."""
    try:
        return pd.StringDtype("pyarrow", na_value=np.nan)
    except TypeError:  # pragma: no cover - pandas < 2.3 spells it as a storage
        return pd.StringDtype("pyarrow_numpy")


def string_array(chunked: Any) -> Any:
    """Arrow large strings as an array of :func:`string_dtype`, without a pass over them.

    pandas 2 makes ``pd.array(chunked, dtype=...)`` read every string again (a tenth of a
    millisecond per hundred thousand); its array type takes the data as it is. pandas 3's
    array type would give the other missing-value semantics, so there ``pd.array`` it is.
    """
    dtype = string_dtype()
    if _array_type_keeps_dtype():
        return dtype.construct_array_type()(chunked)
    return pd.array(chunked, dtype=dtype)


@functools.cache
def _array_type_keeps_dtype() -> bool:
    """Whether :func:`string_dtype`'s array type, given Arrow strings, has that dtype."""
    import pyarrow as pa

    dtype = string_dtype()
    probe = pa.chunked_array([pa.array(["q"], type=pa.large_string())])
    try:
        return bool(dtype.construct_array_type()(probe).dtype == dtype)
    except (TypeError, ValueError):  # pragma: no cover - a pandas whose array type refuses it
        return False


def arrow_strings(ids: pd.Series) -> pd.Series | None:
    """Python-string ids as :func:`string_dtype` (missing stays missing, index kept);
    else None.

    Object columns and Python-backed string columns are converted, once; ids that
    are not all ``str`` (numbers, bytes, mixed) give None. When equal ids come in
    blocks (a run in run order) only the first id of each block is converted.

    Examples
    --------
    >>> import pandas as pd
    >>> arrow_strings(pd.Series(["q1", "q1", None], dtype=object)).tolist()
    ['q1', 'q1', nan]
    >>> arrow_strings(pd.Series(["q1", 2], dtype=object)) is None
    True
    """
    values = _python_objects(ids)
    if values is None:
        return None
    import pyarrow as pa

    firsts = _block_firsts(values)
    sample = values if firsts is None else values[firsts]
    try:  # Arrow infers the type in the same pass: strings, or bytes, or an error
        array = pa.array(sample, from_pandas=True)
    except (pa.ArrowException, TypeError, ValueError):  # numbers, mixed, or a str subclass
        return None
    if pa.types.is_null(array.type):  # every id missing
        array = pa.nulls(len(array), pa.large_string())
    elif pa.types.is_string(array.type):
        array = array.cast(pa.large_string())
    elif not pa.types.is_large_string(array.type):  # bytes, or str and bytes mixed
        return None
    if firsts is not None:
        block = np.repeat(  # int32: half the temporary of intp indices
            np.arange(len(firsts), dtype=np.int32), np.diff(np.r_[firsts, len(values)])
        )
        array = array.take(pa.array(block))
    converted = string_array(_chunked(array))
    return arrow_series(converted, index=ids.index, name=ids.name)


def _block_firsts(values: np.ndarray) -> np.ndarray | None:
    """First row of each block of equal values when there are few blocks, else None."""
    if len(values) < 16:
        return None
    try:
        for probe in (_SHORT_PROBE, _PROBE):  # scattered values show in a prefix: no full pass
            head = values[:probe]
            head_differs = np.asarray(head[1:] != head[:-1], dtype=bool)
            if np.count_nonzero(head_differs) * 8 > len(head):
                return None
        rest = values[len(head) - 1 :]  # from the prefix's last value: no pair compared twice
        rest_differs = np.asarray(rest[1:] != rest[:-1], dtype=bool)
        changes = np.flatnonzero(np.r_[True, head_differs, rest_differs])
    except (TypeError, ValueError):  # values whose comparison is not a plain bool
        return None
    return changes if len(changes) * 8 <= len(values) else None


def _as_arrow_strings(ids: pd.Series) -> Any:
    """Python strings as a chunked Arrow array; None unless every id is a ``str``."""
    converted = arrow_strings(ids)
    if converted is None or converted.isna().any():
        return None
    return converted.array._pa_array


def _string_keys(chunked: Any) -> np.ndarray | None:
    """Keys of an Arrow (large_)string chunked array from the bytes of each string."""
    if not holds_strings(chunked):
        return None
    if chunked.null_count:  # a missing id has no bytes to hash
        return None
    keys = np.empty(len(chunked), dtype=np.uint64)
    done = 0
    for array in chunked.chunks:
        _hash_strings(*_string_buffers(array), keys[done : done + len(array)])
        done += len(array)
    return keys


def _string_buffers(array: Any) -> tuple[np.ndarray, np.ndarray]:
    """The int64 offsets (one past each string) and the bytes of an Arrow string array."""
    import pyarrow as pa  # present: the caller holds Arrow data

    _, offset_buffer, data_buffer = array.buffers()
    offset_type = np.int64 if pa.types.is_large_string(array.type) else np.int32
    offsets = np.frombuffer(offset_buffer, dtype=offset_type)
    offsets = offsets[array.offset : array.offset + len(array) + 1].astype(np.int64, copy=False)
    data = np.frombuffer(data_buffer, dtype=np.uint8) if data_buffer else np.zeros(0, np.uint8)
    return offsets, data


def _hash_strings(offsets: np.ndarray, data: np.ndarray, out: np.ndarray) -> None:
    """Write into ``out`` the keys of the strings ``data[offsets[i]:offsets[i + 1]]``.

    Strings that end within eight bytes of the end of ``data`` (a word read there
    would run past it) are hashed from a zero-padded copy of the tail; all others
    are read in place.
    """
    n = len(offsets) - 1
    in_place = int(np.searchsorted(offsets[1:], len(data) - 8, side="right")) if n else 0
    words = _word_view(data)
    for begin in range(0, in_place, _BLOCK):
        end = min(begin + _BLOCK, in_place)
        _hash_block(words, offsets[begin : end + 1], out[begin:end])
    if in_place < n:
        base = int(offsets[in_place])
        tail = np.zeros(int(offsets[n]) - base + 8, dtype=np.uint8)
        tail[: len(tail) - 8] = data[base : int(offsets[n])]
        _hash_block(_word_view(tail), offsets[in_place:] - base, out[in_place:])


def _word_view(data: np.ndarray) -> np.ndarray:
    """``data`` as little-endian uint64 words starting at every byte offset (stride 1)."""
    count = max(len(data) - 7, 0)
    return np.ndarray(shape=(count,), dtype="<u8", buffer=data, strides=(1,))


def _hash_block(words: np.ndarray, offsets: np.ndarray, out: np.ndarray) -> None:
    """Keys of one block of strings: length, then each 8-byte word, folded in."""
    start = offsets[:-1]
    length = offsets[1:] - start
    if not len(start):
        return
    np.multiply(length.view(np.uint64), _MULTIPLIER, out=out)
    out ^= _word(words, start, length)
    for word in range(1, (int(length.max()) + 7) // 8):
        rows = np.flatnonzero(length > 8 * word)
        if len(rows) == len(start):
            out *= _MULTIPLIER
            out ^= _word(words, start + 8 * word, length - 8 * word)
        else:
            folded = out[rows] * _MULTIPLIER
            folded ^= _word(words, start[rows] + 8 * word, length[rows] - 8 * word)
            out[rows] = folded


def _word(words: np.ndarray, at: np.ndarray, remaining: np.ndarray) -> np.ndarray:
    """The little-endian word at byte ``at`` keeping only its first ``remaining`` (<= 8) bytes."""
    value = words[at]
    drop = np.minimum(remaining, 8)
    np.subtract(8, drop, out=drop)
    drop <<= 3
    shift = drop.view(np.uint64)
    value <<= shift  # a shift by 64 (empty string) gives 0 in numpy
    value >>= shift
    return value


def byte_order_keys(ids: pd.Series) -> np.ndarray | None:
    """uint64 keys that sort like the ids' UTF-8 bytes (``strcmp``); None beyond 7 bytes.

    The first seven bytes go big-endian into the high bits and the length into the low
    byte, so equal keys mean equal strings and key order is byte order ("9" > "10",
    "a" < "a\\x00"). Ids of other dtypes, longer ids and missing values give None
    (the caller then sorts the strings themselves).
    """
    import pyarrow as pa  # a required dependency

    chunked = _as_arrow_strings(ids)
    if chunked is None:
        chunked = getattr(ids.array, "_pa_array", None)
    if chunked is None or not isinstance(chunked, pa.ChunkedArray) or chunked.null_count:
        return None
    if not holds_strings(chunked):
        return None
    array = chunked.combine_chunks() if chunked.num_chunks != 1 else chunked.chunk(0)
    offsets, data = _string_buffers(array)
    length = np.diff(offsets)
    if len(length) and int(length.max()) > 7:
        return None
    padded = np.zeros(int(offsets[-1] - offsets[0]) + 8, dtype=np.uint8)  # a word past the end
    padded[: len(padded) - 8] = data[offsets[0] : offsets[-1]]
    first = _word(_word_view(padded), offsets[:-1] - offsets[0], length)
    return first.byteswap() | length.astype(np.uint64)


def gathered(values: np.ndarray, rows: np.ndarray) -> np.ndarray:
    """``values[rows]``, a block of rows at a time when ``rows`` are narrower than ``intp``.

    numpy converts an index array to ``intp`` before it gathers: for millions of int32
    codes that is a temporary twice their size, whose fresh pages the kernel must fault
    in; a block at a time, one small temporary is reused.

    Examples
    --------
    >>> gathered(np.array([10, 20, 30]), np.array([2, 0, 2], dtype=np.int32)).tolist()
    [30, 10, 30]
    """
    if rows.dtype == np.intp or len(rows) <= TEMPORARY_ROWS:
        return values[rows]
    out = np.empty(len(rows), dtype=values.dtype)
    for begin in range(0, len(rows), TEMPORARY_ROWS):
        out[begin : begin + TEMPORARY_ROWS] = values[rows[begin : begin + TEMPORARY_ROWS]]
    return out


def bincount(values: np.ndarray, minlength: int) -> np.ndarray:
    """``np.bincount(values, minlength=minlength)``, a block of rows at a time when
    ``values`` are narrower than ``intp`` (numpy reads them through an ``intp`` copy).

    Examples
    --------
    >>> bincount(np.array([0, 2, 2], dtype=np.int32), 4).tolist()
    [1, 0, 2, 0]
    """
    if values.dtype == np.intp or len(values) <= TEMPORARY_ROWS:
        return np.bincount(values, minlength=minlength)
    block = max(TEMPORARY_ROWS, 4 * minlength)  # each block's counts cost less than its rows
    counts = np.zeros(minlength, dtype=np.intp)
    for begin in range(0, len(values), block):
        piece = np.bincount(values[begin : begin + block], minlength=minlength)
        if len(piece) > minlength:
            return np.bincount(values, minlength=minlength)  # values beyond minlength
        counts += piece
    return counts


def search_scattered(
    ordered: np.ndarray, values: np.ndarray, sides: tuple[str, ...] = ("left",)
) -> list[np.ndarray]:
    """``np.searchsorted(ordered, values, side)`` for each of ``sides``, values in any order.

    Many values scattered over a large array are searched in sorted order and put back:
    each search then starts where the previous one ended, in memory already read
    (about three times faster for tens of thousands of values, sort included).
    """
    if len(values) < 1024 or len(ordered) < 64:
        return [np.searchsorted(ordered, values, side) for side in sides]  # type: ignore[call-overload]
    order = argsort_keys(values) if values.dtype == np.uint64 else np.argsort(values)
    in_order = values[order]
    found = []
    for side in sides:
        at = np.empty(len(values), dtype=np.intp)
        at[order] = np.searchsorted(ordered, in_order, side)  # type: ignore[call-overload]
        found.append(at)
    return found


RADIX_ROWS = 1 << 21  # most values sorted by 16-bit digits: numpy's stable sort of more is as fast


def argsort_keys(values: np.ndarray) -> np.ndarray:
    """A stable ``np.argsort`` of uint64 ``values`` (other dtypes: ``np.argsort``).

    numpy's stable argsort of 64-bit integers is a merge sort, several times slower
    than its default sort. Where numpy vectorises its default argsort (x86-simd-sort:
    AVX-512 from numpy 1.25, AVX2 from numpy 2.0) that sort is used and the rows of
    equal values are put back in row order; elsewhere four stable passes over 16-bit
    digits, which numpy radix-sorts, lowest first (digits equal in every value skipped).
    Values small enough to carry their row number in their low bits are sorted as
    such, by value then row, with no argsort at all.

    Examples
    --------
    >>> argsort_keys(np.array([2**40, 3, 2**40 + 1, 3], dtype=np.uint64)).tolist()
    [1, 3, 0, 2]
    >>> argsort_keys(np.array([2**63, 5, 2**63, 5, 1], dtype=np.uint64)).tolist()
    [4, 1, 3, 0, 2]
    """
    n = len(values)
    if n < 2 or values.dtype != np.uint64:
        return np.argsort(values, kind="stable")
    row_bits = (n - 1).bit_length()
    if int(values.max()) >> (64 - row_bits) == 0:  # value and row in one word
        packed = values << np.uint64(row_bits)
        packed |= np.arange(n, dtype=np.uint64)
        packed.sort()
        packed &= np.uint64((1 << row_bits) - 1)
        return packed.astype(np.intp)
    if vectorised_sort() and row_bits <= 32:  # a run's number and a row fit in one word
        return _in_row_order_where_equal(values, np.argsort(values))
    if n <= RADIX_ROWS:
        return _by_16_bit_digits(values)
    return np.argsort(values, kind="stable")


def _in_row_order_where_equal(values: np.ndarray, order: np.ndarray) -> np.ndarray:
    """``order`` (sorting ``values``) with each run of equal values in row order."""
    ordered = values[order]
    equal = ordered[1:] == ordered[:-1]
    if not equal.any():
        return order
    tied = np.zeros(len(order), dtype=bool)
    tied[1:] = equal
    tied[:-1] |= equal  # every member of a run of equal values
    places = np.flatnonzero(tied)
    row_bits = (len(order) - 1).bit_length()
    run = np.cumsum(~equal[places[1:] - 1])  # the runs are in order: number them so
    packed = np.concatenate(([0], run)).astype(np.uint64) << np.uint64(row_bits)
    packed |= order[places].astype(np.uint64)
    packed.sort()  # by run, then row
    order[places] = packed & np.uint64((1 << row_bits) - 1)
    return order


def _by_16_bit_digits(values: np.ndarray) -> np.ndarray:
    """A stable argsort of uint64 ``values``, a 16-bit digit at a time, lowest first."""
    n = len(values)
    varying = int(np.bitwise_or.reduce(values) ^ np.bitwise_and.reduce(values))
    digits = np.ascontiguousarray(values).view(np.uint16).reshape(n, 4)  # a view, no copy
    if sys.byteorder == "big":
        digits = digits[:, ::-1]  # lowest digit first
    order = None
    for place in range(4):
        if (varying >> (16 * place)) & 0xFFFF:
            digit = digits[:, place] if order is None else digits[order, place]
            by_digit = np.argsort(digit, kind="stable")
            order = by_digit if order is None else order[by_digit]
    return np.arange(n) if order is None else order


@functools.cache
def vectorised_sort() -> bool:
    """Whether numpy sorts (and argsorts, by its default kind) 64-bit integers with
    SIMD instructions on this CPU: x86-simd-sort, AVX-512 from numpy 1.25, AVX2 from
    numpy 2.0. Several times faster than its scalar sort, and than hashing them here.
    """
    import importlib

    for module in ("numpy._core._multiarray_umath", "numpy.core._multiarray_umath"):  # 2, 1
        try:
            features = importlib.import_module(module).__cpu_features__
            break
        except (ImportError, AttributeError):
            continue
    else:  # pragma: no cover - a numpy without its table of CPU features
        return False
    if features.get("AVX512_SKX"):
        return True
    return bool(features.get("AVX2")) and int(np.__version__.split(".")[0]) >= 2


def stable_argsort(values: np.ndarray) -> np.ndarray:
    """``np.argsort(values, kind="stable")``, faster for non-negative integers.

    numpy sorts 64-bit integers stably with a merge sort several times slower than its
    default sort: values below 2**16 are radix-sorted as 16-bit integers instead, larger
    ones by :func:`argsort_keys`. Sorted values cost one pass.
    """
    n = len(values)
    if n < 2 or values.dtype.kind not in "iu":
        return np.argsort(values, kind="stable")
    if bool(np.all(values[1:] >= values[:-1])):
        return np.arange(n)
    low, high = int(values.min()), int(values.max())
    if low < 0:
        return np.argsort(values, kind="stable")
    if high < 2**16:
        return np.argsort(values.astype(np.uint16), kind="stable")
    return argsort_keys(values.astype(np.uint64))
