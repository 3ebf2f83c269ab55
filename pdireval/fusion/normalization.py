"""Score normalisations, per (run, query) ranking, as ranx defines them.

Each maps the scores of one ranking (a run's documents for one query) to comparable
values before they are combined. ``x`` is a score, ``n`` the number of documents the
ranking retrieved, ``i`` a document's 0-based position and ``c`` the number of
documents any run retrieved for the query (the candidates). Denominators are floored
at ``1e-9`` as ranx does, so a ranking whose scores are all equal maps to zeros.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from typing import Any, Literal

import numpy as np
import pandas as pd

from pdireval._core.registry import Registry
from pdireval.fusion._runs import Runs, RunsLike, read_runs

__all__ = ["NORMS", "Norm", "apply_norm", "normalize"]

Norm = Literal["min-max", "max", "sum", "zmuv", "rank", "borda", "min-max-inverted"]

_FLOOR = 1e-9


def _floored(values: np.ndarray) -> np.ndarray:
    return np.maximum(values, _FLOOR)


def _extremes(runs: Runs) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Highest and lowest score of each ranking, and its length (the best is at
    position 1, the worst at position n: no reduction needed).
    """
    count = runs.per_group()
    groups = runs.n_runs * runs.n_queries
    high, low = np.zeros(groups), np.zeros(groups)
    first = runs.position == 1
    high[runs.group[first]] = runs.score[first]
    last = runs.position == count[runs.group]
    low[runs.group[last]] = runs.score[last]
    return high, low, count


def _min_max(runs: Runs) -> Runs:
    high, low, _ = _extremes(runs)
    g = runs.group
    return runs.with_scores((runs.score - low[g]) / _floored(high - low)[g])


def _min_max_inverted(runs: Runs) -> Runs:
    high, low, _ = _extremes(runs)
    g = runs.group
    score = (high[g] - runs.score) / _floored(high - low)[g]
    return runs.with_scores(score, runs.positions_of(score))


def _max(runs: Runs) -> Runs:
    high, _, _ = _extremes(runs)
    return runs.with_scores(runs.score / _floored(high)[runs.group])


def _sum(runs: Runs) -> Runs:
    _, low, count = _extremes(runs)
    total = runs.per_group(runs.score)
    g = runs.group
    return runs.with_scores((runs.score - low[g]) / _floored(total - low * count)[g])


def _zmuv(runs: Runs) -> Runs:
    count = np.maximum(runs.per_group(), 1)
    g = runs.group
    mean = runs.per_group(runs.score) / count
    centred = runs.score - mean[g]
    std = np.sqrt(runs.per_group(centred * centred) / count)
    return runs.with_scores(centred / _floored(std)[g])


def _rank(runs: Runs) -> Runs:
    count = runs.per_group()
    return runs.with_scores(1.0 - (runs.position - 1) / count[runs.group])


def _borda(runs: Runs) -> Runs:
    """Every candidate gets a score in every run: a retrieved document ``1 - i / c``, the
    others ``(c - n + 1) / (2 c)`` (the mean of the points left, scaled like the rest).
    """
    candidates = runs.candidates()
    count = runs.per_group()
    # every (run, pair): the retrieved rows keep their place, the others are added
    full_run = np.repeat(np.arange(runs.n_runs, dtype=np.int64), runs.n_pairs)
    full_pair = np.tile(np.arange(runs.n_pairs, dtype=np.int64), runs.n_runs)
    full_query = runs.pair_query[full_pair]
    full_group = full_run * runs.n_queries + full_query
    c = candidates[full_query]
    score = (0.5 - (count[full_group] - 1) / (2 * c)).astype(np.float64)
    row = runs.run * runs.n_pairs + runs.pair
    score[row] = 1.0 - (runs.position - 1) / candidates[runs.row_query]
    # retrieved documents first, in their order; the others after them, tied
    position = np.zeros(len(full_run), dtype=np.int64)
    position[row] = runs.position
    unretrieved = np.ones(len(full_run), dtype=bool)
    unretrieved[row] = False
    if unretrieved.any():
        tail = replace(
            runs,
            group=full_group[unretrieved],
            pair=full_pair[unretrieved],
            score=np.zeros(int(unretrieved.sum())),
        )
        position[unretrieved] = (
            count[full_group[unretrieved]] + tail.positions_of(tail.score)
        ).astype(np.int64)
    return replace(
        runs, run=full_run, group=full_group, pair=full_pair, score=score, position=position
    )


#: The score normalisations: name -> function from runs to runs with normalised scores
#: (and positions); ``min_max`` and ``min-max`` are one.
NORMS: Registry[Callable[[Runs], Runs]] = Registry("normalisation", "norm")
for _name, _function, _doc in (
    ("min-max", _min_max, "``(x - min) / (max - min)``"),
    ("max", _max, "``x / max``"),
    ("sum", _sum, "``(x - min) / (sum - n min)`` [Montague2001]_"),
    ("zmuv", _zmuv, "``(x - mean) / std``, population standard deviation [Montague2001]_"),
    ("rank", _rank, "``1 - i / n``"),
    (
        "borda",
        _borda,
        "``1 - i / c`` retrieved; ``(c - n + 1) / (2c)`` for every candidate the run did "
        "not retrieve [Renda2003]_",
    ),
    ("min-max-inverted", _min_max_inverted, "``(max - x) / (max - min)``, for distances"),
):
    NORMS.add(_name, _function, aliases=(_name.replace("-", "_"),), doc=_doc)


def norm_name(norm: str | None) -> str | None:
    """The canonical name of ``norm`` (``min_max`` and ``min-max`` are one), or None."""
    if norm is None:
        return None
    return NORMS.canonical(norm)


def apply_norm(runs: Runs, norm: str | None) -> Runs:
    """``runs`` with the scores of each ranking normalised by ``norm`` (None: as they are)."""
    name = norm_name(norm)
    return runs if name is None else NORMS[name](runs)


def normalize(
    runs: RunsLike,
    method: Norm = "min-max",
    *,
    columns: Any = None,
    depth: int | None = None,
) -> pd.DataFrame:
    """Normalise the scores of each run's ranking of each query.

    Parameters
    ----------
    runs : DataFrame, list or dict of DataFrames
        A long frame with ``run``, ``query``, ``doc`` and ``score`` columns, or one frame
        per run (a dict's keys name them; a list's frames are named by their ``run``
        column, else ``run1``, ``run2``, ...).
    method : {"min-max", "max", "sum", "zmuv", "rank", "borda", "min-max-inverted"}
        The normalisation (see Notes).
    columns : ColumnMap or dict, optional
        Column roles, as for :func:`pdireval.evaluate`.
    depth : int, optional
        Keep only the top ``depth`` documents of each ranking before normalising.

    Returns
    -------
    DataFrame
        Columns run, query, doc, score (normalised) and rank (1-based, in each ranking's
        order after normalising), sorted by run (as given), query and rank. With
        ``"borda"`` every document any run retrieved for a query appears in every run.

    Raises
    ------
    SchemaError
        A missing column, a missing or non-finite score, a document listed twice for a
        query of a run.
    MetricError
        An unknown normalisation.

    Notes
    -----
    Per ranking, with scores ``x``, ``n`` documents, position ``i`` (0-based) and ``c``
    candidates for the query (documents any run retrieved), as in ranx [1]_:

    * ``min-max``: ``(x - min) / (max - min)``; ``min-max-inverted``: ``(max - x) /
      (max - min)`` (for distances: lower is better);
    * ``max``: ``x / max``; ``sum``: ``(x - min) / (sum - n min)``;
    * ``zmuv``: ``(x - mean) / std`` (population standard deviation);
    * ``rank``: ``1 - i / n``;
    * ``borda``: ``1 - i / c`` for a retrieved document, ``(c - n + 1) / (2 c)`` for a
      candidate the run did not retrieve.

    Every denominator is floored at ``1e-9``. Positions follow trec_eval's order
    (score descending, equal scores by doc id descending).

    References
    ----------
    .. [1] Bassani, E. & Romelli, L. (2022). ranx.fuse: A Python Library for Metasearch.
       CIKM 2022, 4808-4812.

    Examples
    --------
    >>> import pandas as pd, pdireval
    >>> run = pd.DataFrame({"run": "bm25", "query": "q1", "doc": ["a", "b", "c"],
    ...                     "score": [3.0, 2.0, 1.0]})
    >>> pdireval.normalize(run, "min-max")
        run query doc  score  rank
    0  bm25    q1   a    1.0     1
    1  bm25    q1   b    0.5     2
    2  bm25    q1   c    0.0     3
    """
    read = read_runs(runs, columns, depth)
    normalised = apply_norm(read, method)
    order = np.lexsort(
        (normalised.position, normalised.group % max(read.n_queries, 1), normalised.run)
    )
    query_col, doc_col = read.columns
    query_of = normalised.row_query
    return pd.DataFrame(
        {
            "run": np.asarray(read.names, dtype=object)[normalised.run[order]],
            query_col: read.queries.take(query_of[order]).array,
            doc_col: read.docs.take(normalised.pair_doc[normalised.pair[order]]).array,
            "score": normalised.score[order],
            "rank": normalised.position[order],
        }
    )
