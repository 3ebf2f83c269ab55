"""Supervised fusion: methods that learn, from judged queries, how likely a run's document
at each rank is relevant, and fuse other queries with what they learned.

:func:`fusion_fit` learns from training runs and judgments and returns a
:class:`FusionModel` -- immutable, its learned values inspectable -- whose
:meth:`FusionModel.fuse` applies them to runs of the same systems.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from types import MappingProxyType
from typing import Any, Literal

import numpy as np
import pandas as pd

from pdireval._core.errors import ParameterError, SchemaError
from pdireval._core.registry import Registry
from pdireval.fusion._fuse import require_several
from pdireval.fusion._runs import Runs, RunsLike, read_runs, run_frame
from pdireval.fusion.normalization import Norm, apply_norm, norm_name

__all__ = ["SUPERVISED", "FusionModel", "SupervisedMethod", "fusion_fit"]

SupervisedMethod = Literal["probfuse", "segfuse", "slidefuse", "bayesfuse", "mapfuse", "posfuse"]

#: The supervised methods, by the names :func:`fusion_fit` takes (any case).
SUPERVISED: Registry[str] = Registry("supervised fusion method", "method")
for _name, _doc in (
    ("ProbFuse", "probability of relevance per segment of the ranking (Lillis et al. 2006)"),
    ("SegFuse", "segments growing in size, normalised scores (Shokouhi 2007)"),
    ("SlideFuse", "ProbFuse with a sliding window of positions (Lillis et al. 2008)"),
    ("BayesFuse", "log-odds of relevance per segment (Aslam & Montague 2001)"),
    ("MAPFuse", "each run weighted by its MAP on the training queries (Lillis et al. 2010)"),
    ("PosFuse", "probability of relevance at each position (Lillis et al. 2010)"),
):
    SUPERVISED.add(_name.lower(), _name, doc=_doc)
#: SegFuse's segments: ranks [0, 5), [5, 15), [15, 35), ... (0-based), sizes 10 * 2^(k-1) - 5
_SEGFUSE_BOUNDS = np.array([0] + [10 * 2 ** (k - 1) - 5 for k in range(1, 11)])
#: BayesFuse's segments of ranks (0-based), and the log-odds of a document not retrieved
_BAYES_BOUNDS = np.array([0, 5, 10, 15, 20, 30, 100, 200, 500, 1000])
_MISSING_LOG_ODDS = float(np.log(0.001 / 0.999))


@dataclass(frozen=True)
class FusionModel:
    """A supervised fusion method with what it learned; see :func:`fusion_fit`.

    Attributes
    ----------
    method : str
        The method's name (``ProbFuse``, ``SegFuse``, ...).
    runs : tuple
        The names of the runs it was trained on; :meth:`fuse` needs runs of these names.
    params : mapping
        The method's parameters (``n_segments``, ``w``).
    learned_ : mapping
        Per run, what was learned: for ``MAPFuse`` its mean average precision, for the
        others an array of probabilities (log-odds for ``BayesFuse``) by segment or rank.
    norm : str or None
        The normalisation applied before fusing.
    """

    method: str
    runs: tuple[Any, ...]
    params: Mapping[str, Any]
    learned_: Mapping[Any, Any]
    norm: str | None

    def fuse(self, runs: RunsLike, *, name: Any = None, columns: Any = None) -> pd.DataFrame:
        """Fuse ``runs`` (the trained systems' runs of other queries) with what was learned.

        Returns the fused run frame, as :func:`pdireval.fuse` does.
        """
        read = read_runs(runs, columns, None)
        require_several(read)
        if set(read.names) != set(self.runs):
            msg = (
                f"the model was trained on the runs {list(self.runs)}, got {list(read.names)}; "
                "fuse runs of the same systems, named as in training"
            )
            raise SchemaError(msg)
        normalised = apply_norm(read, self.norm)
        score = _APPLY[self.method](normalised, [self.learned_[n] for n in read.names], self)
        return run_frame(read, score, self.method if name is None else name)


def fusion_fit(
    runs: RunsLike,
    qrels: pd.DataFrame,
    method: SupervisedMethod = "probfuse",
    *,
    norm: Norm | None = "min-max",
    n_segments: int | None = None,
    w: int | None = None,
    columns: Any = None,
    qrels_columns: Any = None,
) -> FusionModel:
    """Learn a supervised fusion method from runs and judgments of training queries.

    Parameters
    ----------
    runs : DataFrame, list or dict of DataFrames
        The training runs, as for :func:`pdireval.fuse`.
    qrels : DataFrame
        Judgments (query, doc, rel); a document is relevant at ``rel >= 1``.
    method : {"probfuse", "segfuse", "slidefuse", "bayesfuse", "mapfuse", "posfuse"}
        The method (any case).
    norm : str or None, default "min-max"
        Normalisation applied when fusing (only SegFuse uses the scores).
    n_segments : int
        ProbFuse's number of segments each ranking is cut into (required for ProbFuse).
    w : int
        SlideFuse's half window, in ranks (required for SlideFuse).
    columns, qrels_columns : ColumnMap or dict, optional
        Column roles of ``runs`` and ``qrels``.

    Returns
    -------
    FusionModel
        Immutable; ``model.fuse(other_runs)`` fuses, ``model.learned_`` holds what was
        learned per run.

    Raises
    ------
    SchemaError
        Runs or qrels refused, fewer than two runs, no training query with judgments.
    MetricError
        An unknown method, a missing or bad ``n_segments`` or ``w``.

    Notes
    -----
    The training queries are those of the runs that have judgments. With ``h(q, i)``
    whether the document at 0-based rank ``i`` of a run for query ``q`` is relevant, as
    in ranx [1]_:

    * **PosFuse** [2]_: ``P(i)`` = mean of ``h(q, i)`` over the queries whose ranking
      reaches rank ``i``; a document at rank ``i`` scores ``P(i)`` (0 beyond the
      longest training ranking), summed over runs.
    * **ProbFuse** [3]_: each ranking is cut into ``n_segments`` segments of
      ``ceil(n / n_segments)`` ranks; ``P(k)`` = mean over the training queries of the
      fraction of relevant documents in segment ``k``; a document in segment ``k``
      scores ``P(k) / (k + 1)``.
    * **SegFuse** [4]_: segments of ranks [0, 5), [5, 15), [15, 35), ... (sizes
      ``10 * 2^(k-1) - 5``); ``P(k)`` as for ProbFuse with fixed sizes; a document scores
      ``P(k) (s + 1)``, ``s`` its normalised score.
    * **SlideFuse** [5]_: ``P(i)`` as for PosFuse, averaged over the ranks ``i - w`` to
      ``i + w`` that exist in the ranking (ranks beyond the longest training ranking count
      as 0).
    * **BayesFuse** [6]_: segments [0, 5), [5, 10), [10, 15), [15, 20), [20, 30),
      [30, 100), [100, 200), [200, 500), [500, 1000); per segment the mean precision
      ``p`` over the training queries (0 and 1 moved to 0.001 and 0.999), a document
      scores ``log(p / (1 - p))``, and ``log(0.001 / 0.999)`` for each run that did not
      retrieve it (or retrieved it below rank 1,000), summed over runs.
    * **MAPFuse** [2]_: a run's MAP over the training queries divided by the rank
      (1-based), summed over runs.

    References
    ----------
    .. [1] Bassani, E. & Romelli, L. (2022). ranx.fuse: A Python library for metasearch.
       CIKM 2022.
    .. [2] Lillis, D., Zhang, L., Toolan, F., Collier, R. W., Leonard, D. & Dunnion, J.
       (2010). Estimating probabilities for effective data fusion. SIGIR 2010.
    .. [3] Lillis, D., Toolan, F., Collier, R. & Dunnion, J. (2006). ProbFuse: a
       probabilistic approach to data fusion. SIGIR 2006.
    .. [4] Shokouhi, M. (2007). Segmentation of search engine results for effective
       data-fusion. ECIR 2007.
    .. [5] Lillis, D., Toolan, F., Collier, R. & Dunnion, J. (2008). Extending
       probabilistic data fusion using sliding windows. ECIR 2008.
    .. [6] Aslam, J. A. & Montague, M. (2001). Models for metasearch. SIGIR 2001.

    Examples
    --------
    >>> import pandas as pd, pdireval
    >>> train = pd.DataFrame({"run": ["a", "a", "b", "b"], "query": "q1",
    ...                       "doc": ["d1", "d2", "d2", "d1"], "score": [2.0, 1.0, 2.0, 1.0]})
    >>> qrels = pd.DataFrame({"query": ["q1"], "doc": ["d2"], "rel": [1]})
    >>> model = pdireval.fusion_fit(train, qrels, "posfuse")
    >>> {run: probs.tolist() for run, probs in model.learned_.items()}
    {'a': [0.0, 1.0], 'b': [1.0, 0.0]}
    >>> model.fuse(train.assign(query="q2"))
      query doc  score  rank      run
    0    q2  d2    2.0     1  PosFuse
    1    q2  d1    0.0     2  PosFuse
    """
    name = SUPERVISED[method]
    params = _params(name, n_segments, w)
    read = read_runs(runs, columns, None)
    require_several(read)
    judgments = _judgments(read, qrels, qrels_columns if qrels_columns is not None else columns)
    hits, training = _hits(read, judgments)
    n_queries = judgments["query"].nunique()
    learned: dict[Any, Any] = {}
    for code, run in enumerate(read.names):  # a loop over the runs, each vectorised
        mine = np.flatnonzero(training & (read.run == code))
        learned[run] = _LEARN[name](read, mine, hits, n_queries, params, judgments)
    return FusionModel(
        method=name,
        runs=read.names,
        params=MappingProxyType(params),
        learned_=MappingProxyType(learned),
        norm=norm_name(norm),
    )


def _params(name: str, n_segments: int | None, w: int | None) -> dict[str, int]:
    def whole(value: Any, label: str, low: int) -> int:
        if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < low:
            msg = f"{name}: {label}={value!r} must be a whole number >= {low}"
            raise ParameterError(msg)
        return int(value)

    if name == "ProbFuse":
        return {"n_segments": whole(n_segments, "n_segments", 1)}
    if name == "SlideFuse":
        return {"w": whole(w, "w", 0)}
    if n_segments is not None or w is not None:
        msg = f"{name} takes neither n_segments nor w"
        raise ParameterError(msg)
    return {}


def _judgments(read: Runs, qrels: pd.DataFrame, columns: Any) -> pd.DataFrame:
    """The judgments of the training queries (queries of the runs with judgments), as
    codes: query and doc positions in ``read``'s sorted ids (-1: a doc no run retrieved).
    """
    from pdireval._core.roles import as_column_map

    resolved = as_column_map(columns).remap(score=False, rank=False, run=False).resolve(qrels)
    resolved.require(qrels, "query", "doc", "rel")
    try:
        rel = pd.to_numeric(qrels[resolved.name("rel")]).to_numpy(dtype=np.float64)
    except (TypeError, ValueError):
        msg = f"the rel column {resolved.name('rel')!r} of the qrels must hold numbers"
        raise SchemaError(msg) from None
    judged = pd.DataFrame(
        {
            "query": read.queries.get_indexer(pd.Index(qrels[resolved.name("query")])),
            "doc": read.docs.get_indexer(pd.Index(qrels[resolved.name("doc")])),
            "rel": rel,
            "doc_id": qrels[resolved.name("doc")].to_numpy(),
        }
    )
    judged = judged[judged["query"] >= 0]
    if judged.empty:
        msg = "no query of the runs has judgments in the qrels; train on judged queries"
        raise SchemaError(msg)
    return judged


def _hits(read: Runs, judged: pd.DataFrame) -> tuple[np.ndarray, np.ndarray]:
    """Per row whether its document is relevant (``rel >= 1``), and whether the row
    belongs to a training query.
    """
    n_docs = max(len(read.docs), 1)
    relevant = judged[(judged["doc"] >= 0) & (judged["rel"] >= 1)]
    keys = relevant["query"].to_numpy(np.int64) * n_docs + relevant["doc"].to_numpy(np.int64)
    row_key = read.row_query.astype(np.int64) * n_docs + read.pair_doc[read.pair]
    training = np.zeros(read.n_queries, dtype=bool)
    training[judged["query"].to_numpy()] = True
    return np.isin(row_key, keys).astype(np.float64), training[read.row_query]


# -------------------------------------------------------------------------- learning


def _by_rank(read: Runs, rows: np.ndarray, hits: np.ndarray) -> np.ndarray:
    """Mean relevance at each 0-based rank over the queries whose ranking reaches it."""
    rank = read.position[rows] - 1
    length = int(rank.max()) + 1 if len(rank) else 0
    found = np.bincount(rank, weights=hits[rows], minlength=length)
    return found / np.maximum(np.bincount(rank, minlength=length), 1)


def _learn_positions(read, rows, hits, n_queries, params, *_: Any) -> np.ndarray:
    return _by_rank(read, rows, hits)


def _learn_probfuse(read, rows, hits, n_queries, params, *_: Any) -> np.ndarray:
    n_segments = params["n_segments"]
    at = rows
    segment = _probfuse_segment(read, at, n_segments)
    cell = read.group[at] * n_segments + segment  # (ranking, segment)
    cells = read.n_runs * read.n_queries * n_segments
    found = np.bincount(cell, weights=hits[at], minlength=cells)
    size = np.bincount(cell, minlength=cells)
    fraction = np.divide(found, size, out=np.zeros(cells), where=size > 0)
    return fraction.reshape(-1, n_segments).sum(axis=0) / n_queries


def _probfuse_segment(read: Runs, at: np.ndarray, n_segments: int) -> np.ndarray:
    length = read.per_group()[read.group[at]]
    size = np.ceil(length / n_segments)
    return ((read.position[at] - 1) // size).astype(np.int64)


def _segment_means(rank: np.ndarray, hits: np.ndarray, bounds: np.ndarray, n_queries: int):
    inside = rank < bounds[-1]
    segment = np.searchsorted(bounds, rank[inside], side="right") - 1
    found = np.bincount(segment, weights=hits[inside], minlength=len(bounds) - 1)
    return found / np.diff(bounds) / n_queries


def _learn_segfuse(read, rows, hits, n_queries, params, *_: Any) -> np.ndarray:
    return _segment_means(read.position[rows] - 1, hits[rows], _SEGFUSE_BOUNDS, n_queries)


def _learn_bayesfuse(read, rows, hits, n_queries, params, *_: Any) -> np.ndarray:
    precision = _segment_means(read.position[rows] - 1, hits[rows], _BAYES_BOUNDS, n_queries)
    precision = np.where(precision == 0, 0.001, precision)
    against = np.where(1 - precision == 0, 0.001, 1 - precision)
    return np.log(precision / against)


def _learn_mapfuse(read, rows, hits, n_queries, params, judged) -> float:
    """The run's MAP over the training queries (``trec_eval -c``: a training query the run
    did not answer counts 0).
    """
    from pdireval._core.options import Evaluation
    from pdireval._core.roles import DEFAULT_COLUMNS
    from pdireval._prepare.merge import merge_resolved
    from pdireval.engine.evaluate import per_query
    from pdireval.metrics import AP

    frame = pd.DataFrame(
        {
            "query": read.row_query[rows],
            "doc": read.docs.take(read.pair_doc[read.pair[rows]]).to_numpy(),
            "score": read.score[rows],
        }
    )
    qrels = pd.DataFrame({"query": judged["query"], "doc": judged["doc_id"], "rel": judged["rel"]})
    # a run may share no relevant document with the training judgments: AP 0, no error
    resolved = (DEFAULT_COLUMNS.resolve(frame), DEFAULT_COLUMNS.resolve(qrels))
    merged = merge_resolved(frame, qrels, *resolved, check_overlap=False)
    values = per_query(merged, [AP.default], None, Evaluation())
    return float(values["AP"].sum() / n_queries)


_LEARN: dict[str, Callable[..., Any]] = {
    "PosFuse": _learn_positions,
    "SlideFuse": _learn_positions,
    "ProbFuse": _learn_probfuse,
    "SegFuse": _learn_segfuse,
    "BayesFuse": _learn_bayesfuse,
    "MAPFuse": _learn_mapfuse,
}


# -------------------------------------------------------------------------- applying


def _per_row(runs: Runs, learned: list[Any], value: Any) -> np.ndarray:
    """``value(run code, rows of that run, what it learned)`` gathered into one array."""
    out = np.zeros(len(runs.run))
    for code, values in enumerate(learned):  # a loop over the runs
        rows = np.flatnonzero(runs.run == code)
        out[rows] = value(rows, values)
    return out


def _at_rank(values: np.ndarray, rank: np.ndarray) -> np.ndarray:
    """``values[rank]``, 0 beyond the end."""
    out = np.zeros(len(rank))
    inside = rank < len(values)
    out[inside] = values[rank[inside]]
    return out


def _apply_posfuse(runs: Runs, learned: list[Any], model: FusionModel) -> np.ndarray:
    return runs.per_pair(
        _per_row(runs, learned, lambda rows, p: _at_rank(p, runs.position[rows] - 1))
    )


def _apply_probfuse(runs: Runs, learned: list[Any], model: FusionModel) -> np.ndarray:
    n_segments = model.params["n_segments"]

    def value(rows: np.ndarray, probs: np.ndarray) -> np.ndarray:
        segment = _probfuse_segment(runs, rows, n_segments)
        return probs[segment] / (segment + 1)

    return runs.per_pair(_per_row(runs, learned, value))


def _apply_segfuse(runs: Runs, learned: list[Any], model: FusionModel) -> np.ndarray:
    def value(rows: np.ndarray, probs: np.ndarray) -> np.ndarray:
        rank = runs.position[rows] - 1
        segment = np.searchsorted(_SEGFUSE_BOUNDS, rank, side="right") - 1
        prob = np.where(rank < _SEGFUSE_BOUNDS[-1], probs[np.minimum(segment, 9)], 0.0)
        return prob * (runs.score[rows] + 1)

    return runs.per_pair(_per_row(runs, learned, value))


def _apply_slidefuse(runs: Runs, learned: list[Any], model: FusionModel) -> np.ndarray:
    w = model.params["w"]
    length = runs.per_group()

    def value(rows: np.ndarray, probs: np.ndarray) -> np.ndarray:
        rank = runs.position[rows] - 1
        first = np.maximum(rank - w, 0)
        last = np.minimum(rank + w, length[runs.group[rows]].astype(np.int64) - 1)
        cumulative = np.concatenate([[0.0], np.cumsum(probs)])
        top = np.minimum(last + 1, len(probs))
        bottom = np.minimum(first, len(probs))
        return (cumulative[top] - cumulative[bottom]) / (last - first + 1)

    return runs.per_pair(_per_row(runs, learned, value))


def _apply_bayesfuse(runs: Runs, learned: list[Any], model: FusionModel) -> np.ndarray:
    def value(rows: np.ndarray, odds: np.ndarray) -> np.ndarray:
        rank = runs.position[rows] - 1
        segment = np.searchsorted(_BAYES_BOUNDS, rank, side="right") - 1
        inside = rank < _BAYES_BOUNDS[-1]
        return np.where(inside, odds[np.minimum(segment, len(odds) - 1)], _MISSING_LOG_ODDS)

    retrieved = runs.per_pair(_per_row(runs, learned, value) - _MISSING_LOG_ODDS)
    return retrieved + runs.n_runs * _MISSING_LOG_ODDS


def _apply_mapfuse(runs: Runs, learned: list[Any], model: FusionModel) -> np.ndarray:
    return runs.per_pair(
        _per_row(runs, learned, lambda rows, ap: ap / runs.position[rows].astype(np.float64))
    )


_APPLY: dict[str, Callable[[Runs, list[Any], FusionModel], np.ndarray]] = {
    "PosFuse": _apply_posfuse,
    "SlideFuse": _apply_slidefuse,
    "ProbFuse": _apply_probfuse,
    "SegFuse": _apply_segfuse,
    "BayesFuse": _apply_bayesfuse,
    "MAPFuse": _apply_mapfuse,
}
