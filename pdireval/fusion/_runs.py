"""The runs to fuse, read once into flat arrays: one row per (run, query, doc).

Every fusion step works on these arrays: the run of each row (numbered in the order
the runs are given), its (run, query) group, its (query, doc) pair -- the unit a fused
score is given to -- its score and its 1-based position in its ranking, in trec_eval's
order (score descending, equal scores by doc id descending compared as strings).
"""

from __future__ import annotations

from collections.abc import Hashable, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any

import numpy as np
import pandas as pd

from pdireval._core.errors import SchemaError
from pdireval._core.frames import foreign_kind
from pdireval._core.ids import refuse_text_collisions, same_kind
from pdireval._core.roles import ColumnMap, as_column_map
from pdireval._prepare import algorithms
from pdireval._prepare.arrays import bincount, take
from pdireval._prepare.checks import check_unique_docs
from pdireval._prepare.groups import factorize_sorted
from pdireval._prepare.ordering import TieBreak

__all__ = ["Runs", "RunsLike", "ranking_positions", "read_runs", "run_frame"]

#: What the fusion functions accept: one long frame with a run column, or run frames.
RunsLike = pd.DataFrame | Sequence[pd.DataFrame] | Mapping[Hashable, pd.DataFrame]


@dataclass(frozen=True)
class Runs:
    """The rows of the runs as arrays (see the module docstring)."""

    names: tuple[Any, ...]  # run names, in the order the runs are given
    queries: pd.Index  # sorted query ids
    docs: pd.Index  # sorted doc ids
    columns: tuple[str, str]  # names of the query and doc columns of the input
    run: np.ndarray  # run code of each row
    group: np.ndarray  # run * n_queries + query of each row
    pair: np.ndarray  # (query, doc) pair of each row, pairs ordered by (query, doc)
    pair_query: np.ndarray  # query code of each pair
    pair_doc: np.ndarray  # doc code of each pair
    score: np.ndarray  # float64
    position: np.ndarray  # 1-based position of each row in its (run, query) ranking

    @property
    def n_runs(self) -> int:
        return len(self.names)

    @property
    def n_queries(self) -> int:
        return len(self.queries)

    @property
    def row_query(self) -> np.ndarray:
        """Query code of each row."""
        return self.pair_query[self.pair]

    @property
    def n_pairs(self) -> int:
        return len(self.pair_query)

    def per_group(self, values: np.ndarray | None = None) -> np.ndarray:
        """Sum of ``values`` (default: count of rows) per (run, query) group."""
        n = self.n_runs * self.n_queries
        if values is None:
            return bincount(self.group, n).astype(np.float64)
        return np.bincount(self.group, weights=values, minlength=n)

    def per_pair(self, values: np.ndarray | None = None) -> np.ndarray:
        """Sum of ``values`` (default: count of rows) per (query, doc) pair."""
        if values is None:
            return bincount(self.pair, self.n_pairs).astype(np.float64)
        return np.bincount(self.pair, weights=values, minlength=self.n_pairs)

    def candidates(self) -> np.ndarray:
        """Number of distinct documents each query's runs retrieved together."""
        return bincount(self.pair_query, self.n_queries).astype(np.float64)

    def with_scores(self, score: np.ndarray, position: np.ndarray | None = None) -> Runs:
        """The same rows with new scores (and positions, when the order changed)."""
        return replace(self, score=score, position=self.position if position is None else position)

    def positions_of(self, score: np.ndarray) -> np.ndarray:
        """1-based positions of ``score`` in each (run, query) ranking, trec_eval's order."""
        doc_codes = self.pair_doc[self.pair]
        docs = self.docs
        return ranking_positions(self.group, score, self.n_runs * self.n_queries, docs, doc_codes)


def ranking_positions(
    group: np.ndarray, score: np.ndarray, n_groups: int, docs: pd.Index, doc_codes: np.ndarray
) -> np.ndarray:
    """1-based position of each row in its group by ``score`` descending, equal scores by
    doc id (``docs[doc_codes]``) descending as strings: trec_eval's order.
    """
    if not len(group):
        return np.zeros(0, dtype=np.int64)
    found = algorithms.judged_positions(
        group,
        score,
        np.arange(len(group)),
        n_groups,
        by_rank=False,
        ties=TieBreak(doc_ids=lambda rows: pd.Series(docs.take(doc_codes[rows]))),
        descending=True,
    )
    return found.position.astype(np.int64)


def read_runs(
    runs: RunsLike, columns: ColumnMap | Mapping[str, Any] | None, depth: int | None
) -> Runs:
    """Check the runs and read them into :class:`Runs` (``depth``: top rows kept per ranking).

    A run given as an empty frame is a run that retrieved nothing: it counts among the
    runs (as in ranx, its rankings are empty), it is not dropped.
    """
    frame, column_map, given = _one_frame(runs, columns)
    cols = column_map.remap(rank=False).resolve(frame)
    cols.require(frame, "query", "doc", "score", "run")
    query_col, doc_col = cols.name("query"), cols.name("doc")
    score = _scores(frame[cols.name("score")])
    run_values = frame[cols.name("run")]
    for role in ("run", "query", "doc"):
        column = frame[cols.name(role)]
        if column.isna().any():
            row = column.index[np.flatnonzero(column.isna().to_numpy())[0]]
            msg = (
                f"the {role} column {cols.name(role)!r} is missing at row {row!r}; fill or drop it"
            )
            raise SchemaError(msg)
    for role in ("query", "doc"):
        refuse_text_collisions([frame[cols.name(role)]], role, "the runs")
    run_codes, names = _runs_in_given_order(run_values, given)
    query_codes, queries = factorize_sorted(frame[query_col])
    n_queries = len(queries)
    group = run_codes.astype(np.int64, copy=False) * n_queries + query_codes
    check_unique_docs(frame, cols, group)
    doc_codes, docs = factorize_sorted(frame[doc_col])
    n_groups = len(names) * n_queries
    position = ranking_positions(group, score, n_groups, docs, doc_codes)
    if depth is not None:
        kept = np.flatnonzero(position <= _depth(depth))
        run_codes, group, score = run_codes[kept], group[kept], score[kept]
        position, doc_codes = position[kept], doc_codes[kept]
        query_codes = query_codes[kept]
    pair_key = query_codes.astype(np.int64) * max(len(docs), 1) + doc_codes
    pair, pair_keys = pd.factorize(pair_key, sort=True)
    n_docs = max(len(docs), 1)
    return Runs(
        names=names,
        queries=queries,
        docs=docs,
        columns=(query_col, doc_col),
        run=run_codes,
        group=group,
        pair=pair.astype(np.int64, copy=False),
        pair_query=(pair_keys // n_docs).astype(np.int64, copy=False),
        pair_doc=(pair_keys % n_docs).astype(np.int64, copy=False),
        score=score,
        position=position,
    )


def _one_frame(
    runs: RunsLike, columns: ColumnMap | Mapping[str, Any] | None
) -> tuple[pd.DataFrame, ColumnMap, list[Any] | None]:
    """One long frame with a run column, from a frame, a list or a dict of run frames,
    and the names of the runs given as frames (``None`` for one long frame): their ids
    checked to be of one kind, an empty frame kept as a run.
    """
    column_map = as_column_map(columns)
    if isinstance(runs, pd.DataFrame):
        return runs, column_map, None
    pieces, names, sides = [], [], []
    seen: dict[Any, int] = {}
    for i, (name, frame) in enumerate(_named_frames(runs)):
        cols = column_map.resolve(frame)
        if name is None and cols.run is not None and len(frame):
            found = _runs_of_piece(frame[cols.run], i, seen)
            pieces.append(frame)
        else:
            found = [f"run{i + 1}" if name is None else name]
            pieces.append(frame.assign(**{cols.run or "run": found[0]}))
        names.extend(found)
        sides.append((f"run {names[-1]!r}" if names else f"run {i}", frame, cols))
    if not pieces:
        msg = "no runs given; pass a list or dict of at least two run frames"
        raise SchemaError(msg)
    for role in ("query", "doc"):
        meeting = [(where, f[c.name(role)]) for where, f, c in sides if c.doc and len(f)]
        same_kind(meeting, role)
    return pd.concat(pieces, ignore_index=True), column_map, names


def _named_frames(runs: object) -> list[tuple[Any, pd.DataFrame]]:
    """(name, frame) of each run of a list (no name) or a dict; frames only."""
    if isinstance(runs, Mapping):
        named = list(runs.items())
    elif isinstance(runs, Sequence) and not isinstance(runs, str):
        named = [(None, frame) for frame in runs]
    else:
        found = type(runs).__name__
        if foreign_kind(runs):
            found = (
                f"a {type(runs).__module__.split('.')[0]} {found}; pdireval.fuse takes it as it "
                "is, or convert it with .to_pandas()"
            )
        msg = (
            "expected a pandas DataFrame with a run column, or a list or dict of run frames; "
            f"got {found}"
        )
        raise SchemaError(msg)
    for i, (_, frame) in enumerate(named):
        if not isinstance(frame, pd.DataFrame):
            msg = f"run {i} is a {type(frame).__name__}, not a DataFrame"
            raise SchemaError(msg)
    return named


def _runs_of_piece(values: pd.Series, at: int, seen: dict[Any, int]) -> list[Any]:
    """The runs of the ``at``-th frame of a list, each in no other frame of the list."""
    found = list(pd.unique(values))
    for run in found:
        if run in seen:
            msg = (
                f"run {run!r} is in frames {seen[run]} and {at} of the list; name the "
                "runs apart (their run column), or pass a dict {name: frame}"
            )
            raise SchemaError(msg)
        seen[run] = at
    return found


def _runs_in_given_order(
    values: pd.Series, given: list[Any] | None
) -> tuple[np.ndarray, tuple[Any, ...]]:
    """Run codes numbered in the order the runs were given (``given``), else in the
    order they first appear.
    """
    codes, uniques = factorize_sorted(values)
    if given is not None:
        names = list(dict.fromkeys(given))
        at = pd.Index(names).get_indexer(uniques)
        return at[codes].astype(np.int64), tuple(names)
    if not len(codes):
        return codes.astype(np.int64), ()
    starts = np.flatnonzero(np.r_[True, codes[1:] != codes[:-1]])
    order = pd.unique(codes[starts])  # sorted code of the 1st, 2nd, ... run to appear
    renumber = np.empty(len(uniques), dtype=np.int64)
    renumber[order] = np.arange(len(order))
    return renumber[codes], tuple(uniques.take(order).tolist())


def _scores(values: pd.Series) -> np.ndarray:
    try:
        score = pd.to_numeric(values).to_numpy(dtype=np.float64, na_value=np.nan)
    except (TypeError, ValueError) as error:
        msg = (
            f"the score column {values.name!r} must hold numbers ({error}); convert it, "
            f"e.g. frame[{values.name!r}] = pd.to_numeric(frame[{values.name!r}])"
        )
        raise SchemaError(msg) from None
    bad = ~np.isfinite(score)
    if bad.any():
        at = int(np.flatnonzero(bad)[0])
        msg = (
            f"{int(bad.sum())} score(s) are NaN or infinite, e.g. {score[at]!r} at row "
            f"{values.index[at]!r}; fusion combines scores, so every retrieved document needs "
            "a finite one: drop those rows or fill them"
        )
        raise SchemaError(msg)
    return score


def _depth(depth: int) -> int:
    if isinstance(depth, bool) or not isinstance(depth, (int, np.integer)) or depth < 1:
        msg = f"depth={depth!r}: give a whole number of documents >= 1, or None for all"
        raise SchemaError(msg)
    return int(depth)


def run_frame(runs: Runs, score: np.ndarray, name: Any) -> pd.DataFrame:
    """The fused run: one row per (query, doc) pair, ranked per query by ``score``."""
    n = runs.n_pairs
    rank = ranking_positions(runs.pair_query, score, runs.n_queries, runs.docs, runs.pair_doc)
    counts = bincount(runs.pair_query, runs.n_queries)
    start = np.cumsum(counts) - counts
    at = np.empty(n, dtype=np.int64)
    at[start[runs.pair_query] + rank - 1] = np.arange(n)
    query_col, doc_col = runs.columns
    return pd.DataFrame(
        {
            query_col: take(pd.Series(runs.queries), runs.pair_query[at]).array,
            doc_col: take(pd.Series(runs.docs), runs.pair_doc[at]).array,
            "score": score[at],
            "rank": rank[at],
            "run": np.full(n, name, dtype=object),
        }
    )
