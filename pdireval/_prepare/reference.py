"""The preparation's fast steps written plainly: the oracle the fast path is tested against.

Each function has the name and signature of its fast counterpart in
:mod:`pdireval._prepare.algorithms` and computes the same thing the obvious way -- Python
values, sets, dicts and sorts, a row at a time -- with no keys, no hashing of bytes, no
packing of bits and no shortcut for rows that come in order. They are slow, and meant
to be read against the definitions:

* a group is a distinct (run, query) pair; groups are numbered in the order of the
  sorted ids (categorical ids in the order of their categories);
* a document repeats when its (group, doc) occurred in an earlier row;
* a run row and a judgment pair up when their (query, doc) values are equal;
* a ranking is ordered by rank, or by score descending, equal scores by doc id
  descending compared as strings byte by byte (trec_eval's ``strcmp``) -- or, with the
  optimistic and pessimistic policies, by label first (unjudged lowest).

The property tests compare the two on generated frames; setting the environment
variable ``PDIREVAL_PREPARATION=reference`` runs the whole test suite through these.
"""

from __future__ import annotations

from collections.abc import Hashable, Mapping
from typing import Any

import numpy as np
import pandas as pd

from pdireval._core.roles import ResolvedColumns
from pdireval._prepare.ordering import Positions, TieBreak
from pdireval._prepare.pairs import IdPairs

__all__ = ["group_codes", "judged_positions", "match_pairs", "repeated_rows"]


def _values(ids: pd.Series) -> list[Any]:
    """The ids as Python values (a categorical's values, not its codes)."""
    return ids.astype(object).tolist()


def _sort_keys(ids: pd.Series) -> list[Any]:
    """One sortable value per row: a categorical's category position, else the id, or
    -- for ids Python cannot order (numbers and strings mixed) -- pandas' sorted codes.
    """
    if isinstance(ids.dtype, pd.CategoricalDtype):
        return ids.cat.codes.tolist()
    values = _values(ids)
    try:
        sorted(set(values))
    except TypeError:
        return pd.factorize(ids, sort=True)[0].tolist()
    return values


def group_codes(
    frame: pd.DataFrame | Mapping[Hashable, pd.Series], columns: ResolvedColumns
) -> tuple[np.ndarray, pd.Index]:
    """The (run, query) group of each row, numbered in sorted order, and the groups' ids."""
    names = [name for name in (columns.run, columns.query) if name is not None]
    id_columns = [frame[name] for name in names]
    keys = list(zip(*(_sort_keys(ids) for ids in id_columns), strict=True))
    distinct = sorted(set(keys))
    code_of = {key: code for code, key in enumerate(distinct)}
    first_row: dict[Any, int] = {}
    for row, key in enumerate(keys):
        first_row.setdefault(key, row)
    firsts = np.array([first_row[key] for key in distinct], dtype=np.intp)
    levels = [
        pd.Index(ids.array.take(firsts), dtype=ids.dtype, name=name)
        for ids, name in zip(id_columns, names, strict=True)
    ]
    index = levels[0] if len(levels) == 1 else pd.MultiIndex.from_arrays(levels)
    return np.array([code_of[key] for key in keys], dtype=np.intp), index


def repeated_rows(
    group: np.ndarray, docs: pd.Series, *, keys: np.ndarray | None = None
) -> np.ndarray:
    """Rows (ascending) whose (group, doc) occurred in an earlier row; ``keys`` unused."""
    seen: set[tuple[int, Any]] = set()
    repeated = []
    for row, pair in enumerate(zip(group.tolist(), _values(docs), strict=True)):
        if pair in seen:
            repeated.append(row)
        seen.add(pair)
    return np.array(repeated, dtype=np.int64)


def match_pairs(
    run: IdPairs, qrels: IdPairs, convert: tuple[bool, bool]
) -> tuple[np.ndarray, np.ndarray]:
    """Pairs (run row, qrels row) whose (query, doc) values are equal, in run row order."""
    judged = zip(_values(qrels.query), _values(qrels.doc), strict=True)
    judgment_of = {pair: row for row, pair in enumerate(judged)}
    rows, judgments = [], []
    for row, pair in enumerate(zip(_values(run.query), _values(run.doc), strict=True)):
        if pair in judgment_of:
            rows.append(row)
            judgments.append(judgment_of[pair])
    return np.array(rows, dtype=np.intp), np.array(judgments, dtype=np.intp)


def judged_positions(
    group: np.ndarray,
    key: np.ndarray,
    judged: np.ndarray,
    n_groups: int,
    *,
    by_rank: bool,
    ties: TieBreak,
    descending: bool = False,
) -> Positions:
    """Each group's number of retrieved rows, and for each ``judged`` row its 1-based
    position in its group's ranking and the first position and size of its group of
    equal scores; with ranks, the rows whose rank occurs twice in their group.
    """
    n = len(group)
    better_first = [-value if descending else value for value in key.tolist()]
    position = np.zeros(n, dtype=np.int64)
    members: dict[tuple[int, Any], list[int]] = {}  # rows of each (group, key)
    at, previous = 0, None
    for row in _trec_order(group, better_first, ties, by_rank):
        at = at + 1 if group[row] == previous else 1
        previous = group[row]
        position[row] = at
        members.setdefault((int(group[row]), better_first[row]), []).append(row)
    tie_first, tie_size = position.copy(), np.ones(n, dtype=np.int64)
    repeated = []
    for rows in members.values():
        if by_rank:
            repeated += rows if len(rows) > 1 else []
            continue
        tie_first[rows] = min(position[row] for row in rows)
        tie_size[rows] = len(rows)
    num_ret = np.bincount(group, minlength=n_groups).astype(np.float64)
    return Positions(
        num_ret=num_ret,
        position=position[judged],
        repeated=np.array(sorted(repeated), dtype=np.int64),
        tie_first=tie_first[judged],
        tie_size=tie_size[judged],
    )


def _trec_order(
    group: np.ndarray, better_first: list[Any], ties: TieBreak, by_rank: bool
) -> list[int]:
    """The rows by group, then best first: equal scores by label under the optimistic
    and pessimistic policies, then by doc id descending as trec_eval's ``strcmp`` does.
    """
    n = len(group)
    doc_bytes = [str(doc).encode("utf-8") for doc in _values(ties.doc_ids(np.arange(n)))]
    order = sorted(range(n), key=lambda row: doc_bytes[row], reverse=True)
    if not by_rank and ties.policy in ("optimistic", "pessimistic") and ties.label is not None:
        labels = [-np.inf if np.isnan(label) else label for label in ties.label.tolist()]
        sign = -1 if ties.policy == "optimistic" else 1
        order = sorted(order, key=lambda row: sign * labels[row])
    return sorted(order, key=lambda row: (group[row], better_first[row]))
