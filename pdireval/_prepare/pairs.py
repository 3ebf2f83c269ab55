"""Pairs of rows with equal (query, doc) ids in two frames: a run and its qrels.

A tiny share of a run's rows are judged. A table lookup of the doc ids' keys first
keeps the few rows whose doc may be judged; those are joined with the judgments on
(query, doc) keys, and the ids of each joined pair compared exactly, so that a key is
never taken for the ids. Without keys (float or mixed ids) the ids are joined by value,
as Python objects where the two sides' dtypes differ.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from pdireval._prepare.arrays import as_python_objects, equal, take
from pdireval._prepare.keys import category_keys, key_table_hits, pair_keys
from pdireval._prepare.sorting import distinct_keys, join_on_keys

__all__ = ["IdPairs", "match_pairs", "sorted_pair_keys"]


@dataclass(frozen=True)
class IdPairs:
    """The (query, doc) ids of one frame's rows, and what is known of them.

    ``doc_keys`` are the doc ids' keys (None: not computed, or no keys); for the
    qrels, ``pairs`` are their distinct (query, doc) keys, sorted, and the row of each
    (None when there are no keys, or when two rows share one).
    """

    query: pd.Series
    doc: pd.Series
    doc_keys: np.ndarray | None = None
    pairs: tuple[np.ndarray, np.ndarray] | None = None


def sorted_pair_keys(
    query: pd.Series, doc: pd.Series, doc_keys: np.ndarray | None
) -> tuple[np.ndarray, np.ndarray] | None:
    """The distinct (query, doc) keys of the rows (``doc_keys``: their doc ids' keys),
    sorted, and the row of each; None when the ids have no keys or two rows share a key
    (a repeated pair, or rarely two different ones).
    """
    keys = None if doc_keys is None else pair_keys(query, doc, doc_keys)
    if keys is None:
        return None
    distinct, first, _ = distinct_keys(keys)
    return (distinct, first) if len(distinct) == len(keys) else None


def match_pairs(
    run: IdPairs, qrels: IdPairs, convert: tuple[bool, bool]
) -> tuple[np.ndarray, np.ndarray]:
    """Pairs (run row, qrels row) with equal (query, doc), in run row order.

    ``convert`` says, for query and doc, whether the two sides' dtypes differ (their
    ids are then compared as Python objects where keys do not decide). Neither frame
    has a missing id, and the qrels no repeated (query, doc). Keys the sides lack are
    not computed: categorical run docs are looked up by category, other ids without
    keys by value.

    Examples
    --------
    >>> run = IdPairs(pd.Series(["q1", "q1", "q2"]), pd.Series(["a", "b", "a"]))
    >>> qrels = IdPairs(pd.Series(["q2", "q1"]), pd.Series(["a", "b"]))
    >>> [part.tolist() for part in match_pairs(run, qrels, (False, False))]
    [[1, 2], [1, 0]]
    """
    run_keys, category_keys_ = run.doc_keys, None
    if run_keys is None and isinstance(run.doc.dtype, pd.CategoricalDtype):
        category_keys_ = category_keys(run.doc.cat.categories)  # once: there may be millions
    candidates = _maybe_judged(run, qrels, convert[1], category_keys_)
    left = IdPairs(take(run.query, candidates), take(run.doc, candidates))
    if qrels.pairs is not None:  # the candidates' doc keys are the run's, taken
        left_doc_keys = None
        if run_keys is not None:
            left_doc_keys = run_keys[candidates]
        elif category_keys_ is not None:
            left_doc_keys = category_keys_[run.doc.array.codes[candidates]]
        left_keys = pair_keys(left.query, left.doc, left_doc_keys)
        if left_keys is not None:
            rows, judgments = join_on_keys(left_keys, *qrels.pairs)
            same = equal(left.query, rows, qrels.query, judgments)
            same &= equal(left.doc, rows, qrels.doc, judgments)
            return candidates[rows[same]], judgments[same]
    return _joined_by_value(left, candidates, qrels, convert)


def _joined_by_value(
    left: IdPairs, candidates: np.ndarray, qrels: IdPairs, convert: tuple[bool, bool]
) -> tuple[np.ndarray, np.ndarray]:
    """Pairs of equal ids found by a join of the values themselves, in run row order."""
    sides = []
    for side in (left, qrels):
        ids = {"q": side.query.array, "d": side.doc.array}
        for name, differ in zip(("q", "d"), convert, strict=True):
            if differ:
                ids[name] = as_python_objects(ids[name])
        sides.append(pd.DataFrame(ids))
    sides[0]["row"] = candidates
    sides[1]["judgment"] = np.arange(len(qrels.doc))
    matched = sides[0].merge(sides[1], on=["q", "d"], how="inner").sort_values("row", kind="stable")
    return matched["row"].to_numpy(), matched["judgment"].to_numpy()


def _maybe_judged(
    run: IdPairs, qrels: IdPairs, differ: bool, run_category_keys: np.ndarray | None
) -> np.ndarray:
    """Run rows whose doc may be judged: all rows that are, and a few percent more.

    Keys depend on the values only, whatever the dtype, so the two sides' keys compare;
    categorical run docs are looked up by category (``run_category_keys``).
    """
    judged_keys = qrels.doc_keys
    if run_category_keys is not None and judged_keys is not None:
        hits = key_table_hits(run_category_keys, judged_keys)
        return np.flatnonzero(hits[run.doc.array.codes])
    if run.doc_keys is None or judged_keys is None:
        if differ:
            run_docs = pd.Series(as_python_objects(run.doc))
            return np.flatnonzero(run_docs.isin(set(as_python_objects(qrels.doc))).to_numpy())
        return np.flatnonzero(run.doc.isin(qrels.doc.unique()).to_numpy())
    return np.flatnonzero(key_table_hits(run.doc_keys, judged_keys))
