"""64-bit keys of id columns: equal ids get equal keys, computed with vectorised numpy.

Hash tables of millions of string ids are the slow part of matching and checking
runs. Reducing every id to a ``uint64`` first lets the callers sort or look up plain
integers and compare the ids themselves only where two keys are equal -- a key is
never taken for the id:

* integer ids are their own keys;
* strings are hashed from their raw Arrow bytes, read eight at a time, in blocks
  small enough for the temporaries to stay in the CPU cache;
* Python ``object`` strings are converted to Arrow first (about 4x faster than a
  pandas hash table of the objects);
* categorical ids take the keys of their categories, so two frames with different
  categories still agree.

Keys depend only on the id values, never on the frame, so keys of a run and of its
qrels compare. :func:`byte_order_keys` are another kind: short strings as integers
that sort like their bytes.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pyarrow as pa

from pdireval._prepare.arrays import (
    arrow_data,
    arrow_strings,
    block_firsts,
    gathered,
    holds_python_objects,
    holds_strings,
    series_of,
)

__all__ = [
    "byte_order_keys",
    "category_keys",
    "id_keys",
    "key_table_hits",
    "pair_keys",
    "python_string_blocks",
    "python_string_keys",
    "spread",
]

_MULTIPLIER = np.uint64(0x9E3779B97F4A7C15)
_PAIR_MIX = np.uint64(0xBF58476D1CE4E5B9)
_BLOCK = 1 << 14  # strings hashed per step: the temporaries stay in the CPU cache
_CONVERTED_ROWS = 1 << 18  # Python strings converted to Arrow at a time, for their keys
_SPARE_BITS = 8  # lookup table of ~256 slots per wanted key: <1% of other keys pass
_MAX_TABLE_BITS = 22  # at most 4 MB, so that lookups stay in the CPU cache
_LOOKUP_BLOCK = 1 << 16


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
    chunked = arrow_data(ids)
    if chunked is None:
        chunked = _as_arrow_strings(ids)
        if chunked is None:
            return None
    return _string_keys(chunked)


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
    if not holds_python_objects(ids.dtype):
        return None
    values = ids.to_numpy(dtype=object)
    firsts = block_firsts(values)
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
    if not holds_python_objects(ids.dtype):
        return None
    values = ids.to_numpy(dtype=object)
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


def category_keys(categories: pd.Index) -> np.ndarray | None:
    """Keys of categories as :func:`id_keys` gives them to their values; None when the
    categories are Python objects that are not all strings.
    """
    series = series_of(categories)
    chunked = arrow_data(series)
    if chunked is None and holds_python_objects(series.dtype):
        chunked = _as_arrow_strings(series)  # None unless all are strings
    if chunked is not None:
        return _string_keys(chunked)
    return None if holds_python_objects(series.dtype) else id_keys(series)


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


def _as_arrow_strings(ids: pd.Series) -> pa.ChunkedArray | None:
    """Python strings as a chunked Arrow array; None unless every id is a ``str``."""
    converted = arrow_strings(ids)
    if converted is None or converted.hasnans:
        return None
    return arrow_data(converted)


def _string_keys(chunked: pa.ChunkedArray) -> np.ndarray | None:
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


def _string_buffers(array: pa.Array) -> tuple[np.ndarray, np.ndarray]:
    """The int64 offsets (one past each string) and the bytes of an Arrow string array."""
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
    chunked = _as_arrow_strings(ids)
    if chunked is None:
        chunked = arrow_data(ids)
    if chunked is None or chunked.null_count:
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


def pair_keys(query: pd.Series, doc: pd.Series, doc_keys: np.ndarray | None) -> np.ndarray | None:
    """One key per (query, doc) row (``doc_keys``: the doc ids' keys, or None to compute
    them); None when either column has no keys.
    """
    query_keys = id_keys(query)
    if doc_keys is None:
        doc_keys = id_keys(doc)
    if query_keys is None or doc_keys is None:
        return None
    query_keys *= _PAIR_MIX
    query_keys ^= doc_keys
    return query_keys


def key_table_hits(keys: np.ndarray, wanted: np.ndarray) -> np.ndarray:
    """Bool per key: may be one of ``wanted`` (always True when it is; rarely when not).

    A table of about 256 bits per wanted key, capped to stay in the CPU cache: a tiny
    share of a run's rows are judged, and this leaves them and few others.
    """
    largest = min(_MAX_TABLE_BITS, len(keys).bit_length() + 1)  # no larger than needed
    bits = min(max(len(wanted).bit_length() + _SPARE_BITS, 10), largest)
    table = np.zeros(1 << bits, dtype=bool)
    table[spread(wanted, bits)] = True
    hits = np.empty(len(keys), dtype=bool)
    for begin in range(0, len(keys), _LOOKUP_BLOCK):  # cache-sized pieces
        piece = keys[begin : begin + _LOOKUP_BLOCK]
        np.take(table, spread(piece, bits), out=hits[begin : begin + len(piece)])
    return hits
