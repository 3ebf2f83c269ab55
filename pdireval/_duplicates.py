"""Find repeated (group, doc) pairs quickly, without building a hash table of every doc id.

A plain ``DataFrame.duplicated`` on a 7M-row run hashes every doc id into a
table of millions of entries (seconds). Here doc ids are reduced to 64-bit keys
with vectorised numpy -- integer ids and categorical codes as they are, strings
from their raw Arrow bytes read eight at a time -- combined with the group code,
and sorted; only rows whose keys collide are compared exactly.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

__all__ = ["repeated_rows"]

_MULTIPLIER = np.uint64(0x9E3779B97F4A7C15)
_MIX = np.uint64(0xBF58476D1CE4E5B9)


#: Bits to shift out of a little-endian word to keep its first n bytes, n = 0..8.
_DROP_BITS = np.array([0, 56, 48, 40, 32, 24, 16, 8, 0], dtype=np.uint64)


def _read_word(words: np.ndarray, at: np.ndarray, remaining: np.ndarray) -> np.ndarray:
    """The (up to) 8 bytes starting at byte offset ``at``, zero beyond ``remaining`` bytes.

    ``words`` views the zero-padded bytes as little-endian uint64 at every byte offset
    (stride 1), so one gather reads an unaligned word.
    """
    value = words[at]
    keep = np.minimum(remaining, 8)
    drop = _DROP_BITS[keep]
    value <<= drop
    value >>= drop
    empty = keep <= 0
    if empty.any():  # nothing to keep: a shift by 64 would keep everything
        value[empty] = 0
    return value


_CHUNK = 1 << 20  # strings hashed at a time: bounds the temporaries to a few MB


def _string_chunk_keys(offsets: np.ndarray, data: np.ndarray) -> np.ndarray:
    """Keys of the strings ``data[offsets[i]:offsets[i + 1]]`` (polynomial hash of 8-byte words)."""
    base = int(offsets[0])
    size = int(offsets[-1]) - base
    padded = np.zeros(size + 8, dtype=np.uint8)  # a zero tail to read past the last string
    padded[:size] = data[base : base + size]
    words = np.ndarray(shape=(size + 1,), dtype="<u8", buffer=padded, strides=(1,))
    start = offsets[:-1] - base
    length = np.diff(offsets)
    keys = length.astype(np.uint64)
    keys *= _MULTIPLIER
    keys += _read_word(words, start, length)
    for word in range(1, int((length.max() + 7) // 8) if len(length) else 0):
        rows = np.flatnonzero(length > 8 * word)
        word_keys = keys[rows]
        word_keys *= _MULTIPLIER
        word_keys += _read_word(words, start[rows] + 8 * word, length[rows] - 8 * word)
        keys[rows] = word_keys
    return keys


def _arrow_string_keys(docs: pd.Series) -> np.ndarray | None:
    """64-bit keys of Arrow-backed strings from their bytes; None when not Arrow-backed."""
    chunked = getattr(docs.array, "_pa_array", None)
    if chunked is None:
        return None
    import pyarrow as pa  # present whenever pandas holds Arrow-backed strings

    if not (pa.types.is_string(chunked.type) or pa.types.is_large_string(chunked.type)):
        return None
    offset_type = np.int64 if pa.types.is_large_string(chunked.type) else np.int32
    keys = np.empty(len(docs), dtype=np.uint64)
    done = 0
    for array in chunked.chunks:
        _, offset_buffer, data_buffer = array.buffers()
        offsets = np.frombuffer(offset_buffer, dtype=offset_type)[
            array.offset : array.offset + len(array) + 1
        ]
        data = np.frombuffer(data_buffer, dtype=np.uint8) if data_buffer else np.zeros(0, np.uint8)
        for begin in range(0, len(array), _CHUNK):
            end = min(begin + _CHUNK, len(array))
            piece = offsets[begin : end + 1].astype(np.int64)
            keys[done + begin : done + end] = _string_chunk_keys(piece, data)
        done += len(array)
    return keys


def _doc_keys(docs: pd.Series) -> np.ndarray:
    """64-bit keys such that equal doc ids get equal keys (unequal ones rarely collide)."""
    if isinstance(docs.dtype, pd.CategoricalDtype):
        return docs.cat.codes.to_numpy().astype(np.uint64)
    if pd.api.types.is_integer_dtype(docs.dtype):
        return docs.to_numpy(dtype=np.int64).view(np.uint64)
    keys = _arrow_string_keys(docs)
    if keys is None:
        keys = pd.factorize(docs)[0].astype(np.uint64)
    return keys


def repeated_rows(group: np.ndarray, docs: pd.Series) -> np.ndarray:
    """Positions of rows whose (group, doc) already occurred in an earlier row.

    Parameters
    ----------
    group : ndarray of int
        Group code of each row.
    docs : Series
        Doc id of each row (same length).

    Returns
    -------
    ndarray of int
        Row positions (sorted) that repeat an earlier row; empty when all are unique.
    """
    keys = group.astype(np.uint64)
    keys *= _MIX
    keys ^= _doc_keys(docs)
    sorted_keys = np.sort(keys)
    if not np.any(sorted_keys[1:] == sorted_keys[:-1]):
        return np.zeros(0, dtype=np.int64)
    order = np.argsort(keys)
    sorted_keys = keys[order]
    same = sorted_keys[1:] == sorted_keys[:-1]
    colliding = np.zeros(len(keys), dtype=bool)
    colliding[order[1:][same]] = True
    colliding[order[:-1][same]] = True
    rows = np.flatnonzero(colliding)
    exact = pd.DataFrame({"group": group[rows], "doc": docs.array.take(rows)})
    return rows[exact.duplicated().to_numpy()]
