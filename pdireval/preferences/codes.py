"""Ids as integer codes shared by a run and its judgments, with trec_eval's order of ids.

trec_eval compares ids as byte strings (``strcmp``): it lists queries in that order,
breaks ties between equal scores by it, and numbers the judged documents a run did not
retrieve in it. Each id column here gets integer codes (one per distinct value, shared
by every frame that holds the role) and, per code, the place of the id's text in that
order. Ids are matched by value; numbers and strings never match (see
:mod:`pdireval._core.ids`).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc

from pdireval._core.ids import same_kind

__all__ = ["Codes", "encode", "text_order"]


@dataclass(frozen=True)
class Codes:
    """The codes of one id role across several columns.

    ``parts[i]`` are the codes of the i-th column's rows; ``values`` the distinct ids
    (``values[code]``); ``order[code]`` the place of the id's text among all of them
    (0 first), trec_eval's order.
    """

    parts: tuple[np.ndarray, ...]
    values: pd.Index
    order: np.ndarray

    def text(self, code: int) -> str:
        """The id of ``code`` as shown in messages."""
        return repr(self.values[code])


def text_order(values: pd.Index) -> np.ndarray:
    """The place of each value's text in byte order (``strcmp``), 0 first.

    Examples
    --------
    >>> text_order(pd.Index(["b", "a", "B", "10", "9"])).tolist()
    [4, 3, 2, 0, 1]
    """
    texts = pa.array(np.asarray(values.astype(str), dtype=object), pa.large_string())
    ranked = pc.sort_indices(texts).to_numpy(zero_copy_only=False)
    order = np.empty(len(values), dtype=np.int64)
    order[ranked] = np.arange(len(values), dtype=np.int64)
    return order


def encode(role: str, sides: list[tuple[str, pd.Series]]) -> Codes:
    """Codes of the ids of ``role`` in every (description, column) of ``sides``; ids of
    different kinds on two sides (numbers and strings) are refused, both sides named.
    """
    same_kind(sides, role)
    factorized = [pd.factorize(ids) for _, ids in sides]  # each column once, natively
    pooled = [np.asarray(values, dtype=object) for _, values in factorized]
    values = pd.Index(np.concatenate(pooled) if pooled else [], dtype=object).unique()
    parts = tuple(
        values.get_indexer(pd.Index(side_values, dtype=object)).astype(np.int64)[codes]
        for codes, side_values in factorized
    )
    return Codes(parts, values, text_order(values))
