"""Blocks of equal ids: a run usually lists each query's documents together.

Looking only at the first row of each block of equal (run, query) ids -- thousands
of rows instead of millions -- is enough to factorize the queries, to group the rows
and to see which queries are judged. When the rows are scattered (shuffled input)
every row is its own block and the same code does the full work.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from pdireval._prepare.keys import id_keys
from pdireval._prepare.take import take

__all__ = ["Blocks", "adjacent_differs", "blocks_of", "scattered_start"]

_MIX = np.uint64(0x94D049BB133111EB)
_PROBE = 1 << 12  # rows looked at first: scattered ids show in a prefix


@dataclass(frozen=True)
class Blocks:
    """The first row of each block of equal ids, over ``n`` rows."""

    firsts: np.ndarray
    n: int
    _keys: dict[int, np.ndarray | None] = field(default_factory=dict, repr=False, compare=False)

    @property
    def lengths(self) -> np.ndarray:
        """Rows in each block."""
        return np.diff(np.r_[self.firsts, self.n])

    def spread(self, per_block: np.ndarray) -> np.ndarray:
        """One value per row from one value per block."""
        return np.repeat(per_block, self.lengths)

    @property
    def scattered(self) -> bool:
        """Every row is a block of its own."""
        return len(self.firsts) == self.n

    def keys(self, ids: pd.Series) -> np.ndarray | None:
        """A uint64 per block, equal for equal ids (hashed from the first row of each
        block); None when the dtype has no keys. Computed once per column.
        """
        if id(ids) not in self._keys:
            self._keys[id(ids)] = id_keys(ids if self.scattered else take(ids, self.firsts))
        return self._keys[id(ids)]

    def group_ids(self, columns: list[pd.Series]) -> np.ndarray:
        """A number per row, equal for rows whose ids are equal in every column.

        Small codes when the rows come in blocks; 64-bit keys of the ids when they are
        scattered (unequal ids collide with a chance of about one in 2**64).
        """
        mixed = np.zeros(len(self.firsts), dtype=np.uint64)
        for column in columns:
            keys = self.keys(column)
            if keys is None:  # ids without keys (floats, mixed objects): their codes
                values = column if self.scattered else take(column, self.firsts)
                keys = pd.factorize(values)[0].astype(np.uint64)
            mixed *= _MIX
            mixed ^= keys
        if self.scattered:
            return mixed
        codes = pd.factorize(mixed)[0]
        small = len(codes) == 0 or int(codes.max()) < 2**31 - 1
        return self.spread(codes.astype(np.int32 if small else np.int64))


def blocks_of(columns: list[pd.Series]) -> Blocks:
    """Blocks of rows where every column keeps its value; each row alone when there are
    more than one block per eight rows (scattered ids).
    """
    n = len(columns[0])
    if n > 1 and not scattered_start(columns[0]):
        change = np.r_[True, adjacent_differs(columns[0])]
        for column in columns[1:]:
            change[1:] |= adjacent_differs(column)
        firsts = np.flatnonzero(change)
        if len(firsts) * 8 <= n:
            return Blocks(firsts, n)
    return Blocks(np.arange(n), n)


def scattered_start(values: pd.Series | np.ndarray) -> bool:
    """Whether the first rows change value more than once in eight rows: ids that come
    in blocks do not, so the full comparison of neighbours can be skipped.
    """
    if len(values) <= 2 * _PROBE:
        return False
    head = values[:_PROBE] if isinstance(values, np.ndarray) else values.iloc[:_PROBE]
    return int(np.count_nonzero(adjacent_differs(head))) * 8 > _PROBE


def adjacent_differs(values: pd.Series | np.ndarray) -> np.ndarray:
    """``values[i + 1] != values[i]`` for each i, computed without hashing."""
    if isinstance(values, np.ndarray):  # e.g. codes
        return np.asarray(values[1:] != values[:-1], dtype=bool)
    chunked = getattr(values.array, "_pa_array", None)
    if chunked is not None:
        import pyarrow.compute as pc

        n = len(chunked)
        differs = pc.not_equal(chunked.slice(1, n - 1), chunked.slice(0, n - 1))
        return np.asarray(differs.to_numpy(zero_copy_only=False), dtype=bool)
    if isinstance(values.dtype, pd.CategoricalDtype):
        codes = values.array.codes
        return np.asarray(codes[1:] != codes[:-1])
    array = values.to_numpy()
    return np.asarray(array[1:] != array[:-1], dtype=bool)
