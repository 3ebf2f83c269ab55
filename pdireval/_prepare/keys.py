"""64-bit keys of id columns: equal ids get equal keys, computed with vectorised numpy.

Hash tables of millions of string ids are the slow part of matching and checking
runs. Reducing every id to a ``uint64`` first lets the callers sort or look up plain
integers and compare the ids themselves only where two keys are equal -- a key is
never taken for the id:

* integer ids are their own keys;
* strings are hashed from their raw Arrow bytes, read eight at a time, in blocks
  small enough for the temporaries to stay in the CPU cache; the cost is linear in the
  bytes of the ids, however they are split into ids (a 2 MB id costs what 2 MB of short
  ids cost: its words are hashed all at once, not a step per word);
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
#: Strings of up to this many 8-byte words are hashed word after word, a step per word
#: over the strings of a block still that long; longer ones by :func:`_long_keys`, whose
#: steps do not depend on the longest string.
_SHORT_WORDS = 32
_WORD_MAJOR_ROWS = 512  # long strings read a word at a time while this many are that long
_LONG_STEP = 1 << 14  # words of the longest strings hashed per step
_MIX_1 = np.uint64(0xBF58476D1CE4E5B9)  # SplitMix64's multipliers
_MIX_2 = np.uint64(0x94D049BB133111EB)
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
    """Keys of one block of strings, in time linear in their bytes.

    A string of up to ``_SHORT_WORDS`` words: its length, then each 8-byte word, folded
    in, word after word, over the strings still that long only. A longer one by
    :func:`_long_keys`, whose steps do not grow with the longest string. Which it is
    depends on the string's length alone: equal strings, equal keys.
    """
    start = offsets[:-1]
    length = offsets[1:] - start
    if not len(start):
        return
    np.multiply(length.view(np.uint64), _MULTIPLIER, out=out)
    out ^= _word(words, start, length)
    long = length > 8 * _SHORT_WORDS
    rows = None  # every row (a block of ids of one length, the common case)
    if long.any() or int(length.min()) <= 8:
        rows = np.flatnonzero((length > 8) & ~long)
    for word in range(1, _SHORT_WORDS):
        at = 8 * word
        if rows is None:  # all rows: no gather, no scatter
            out *= _MULTIPLIER
            out ^= _word(words, start + at, length - at)
            if int(length.min()) <= at + 8:  # some end here
                rows = np.flatnonzero(length > at + 8)
            continue
        if not len(rows):
            break
        folded = out[rows] * _MULTIPLIER
        folded ^= _word(words, start[rows] + at, length[rows] - at)
        out[rows] = folded
        rows = rows[length[rows] > at + 8]  # only the rows still that long go on
    if long.any():
        where = np.flatnonzero(long)
        out[where] = _long_keys(words, start[where], length[where])


def _long_keys(words: np.ndarray, start: np.ndarray, length: np.ndarray) -> np.ndarray:
    """Keys of strings longer than ``_SHORT_WORDS`` words, in time linear in their bytes.

    Each word is mixed with its place in its string (SplitMix64's finaliser), the mixed
    words of a string summed, and the sum mixed with the length: unequal strings rarely
    get equal keys, whatever their length. A sum can be taken in any order, so the words
    are read word after word across the strings while many are that long (a step per
    word, over hundreds of strings), then the words left of the few longer ones all at
    once (:func:`_word_sums`): a string of any length costs its words, never a step per
    word for a handful of strings.
    """
    sums = np.zeros(len(start), dtype=np.uint64)
    rows = np.arange(len(start))  # the strings still being read, and their bytes
    at, left, partial = start, length, np.zeros(len(start), dtype=np.uint64)
    word = 0
    while len(rows) >= _WORD_MAJOR_ROWS:
        whole = int(left.min()) >= 8  # a whole word in every string: no bytes to drop
        value = words[at] if whole else _word(words, at, left)
        value += np.uint64((word + 1) * int(_MULTIPLIER) % 2**64)
        _mix(value)
        partial += value
        word += 1
        at = at + 8
        left = left - 8
        ended = left <= 0
        if ended.any():
            sums[rows[ended]] = partial[ended]
            going = ~ended
            rows, at, left, partial = rows[going], at[going], left[going], partial[going]
    if len(rows):
        sums[rows] = partial + _word_sums(words, at, left, word)
    sums ^= length.view(np.uint64) * _MULTIPLIER
    _mix(sums)
    return sums


def _word_sums(words: np.ndarray, at: np.ndarray, left: np.ndarray, place: int) -> np.ndarray:
    """The sum of the mixed words of each string (as :func:`_long_keys` mixes them), its
    words read all at once, ``_LONG_STEP`` words at a time; ``at``, ``left``: where each
    string's words begin and the bytes left, ``place``: the place of those first words.
    """
    n_words = (left + 7) // 8
    first = np.cumsum(n_words) - n_words  # each string's first word among all
    total = int(n_words.sum())
    sums = np.zeros(len(at), dtype=np.uint64)
    for begin in range(0, total, _LONG_STEP):
        word = np.arange(begin, min(begin + _LONG_STEP, total), dtype=np.int64)
        string = np.searchsorted(first, word, side="right") - 1
        offset = 8 * (word - first[string])
        value = _word(words, at[string] + offset, left[string] - offset)
        offset >>= 3
        offset += place + 1
        value += offset.view(np.uint64) * _MULTIPLIER  # the same word elsewhere differs
        _mix(value)
        bounds = np.flatnonzero(np.r_[True, string[1:] != string[:-1]])
        sums[string[bounds]] += np.add.reduceat(value, bounds)  # a string once per step
    return sums


def _mix(values: np.ndarray) -> None:
    """SplitMix64's finaliser, in place: every bit of a value moves every bit of its hash."""
    values ^= values >> np.uint64(30)
    values *= _MIX_1
    values ^= values >> np.uint64(27)
    values *= _MIX_2
    values ^= values >> np.uint64(31)


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
