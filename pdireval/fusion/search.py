"""Grid search of a fusion method's weights and parameters, evaluated with pdireval."""

from __future__ import annotations

import itertools
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from types import MappingProxyType
from typing import Any

import numpy as np
import pandas as pd

from pdireval._core.errors import ParameterError
from pdireval._core.options import EVALUATION, Evaluation, excluding, takes
from pdireval.engine.evaluate import per_part
from pdireval.engine.merge import merge_qrels
from pdireval.fusion._fuse import require_several
from pdireval.fusion._runs import Runs, RunsLike, read_runs, run_frame
from pdireval.fusion.methods import Method, find_method
from pdireval.fusion.normalization import Norm, apply_norm
from pdireval.metrics import parse_metrics

__all__ = ["FusionSearch", "optimize_fusion", "weight_grid"]

#: ranx's default grid of each method's parameters: (first, last, step)
_DEFAULT_GRIDS: dict[str, tuple[float, float, float]] = {
    "k": (10, 100, 10),
    "gamma": (0.01, 1.0, 0.01),
    "sigma": (0.01, 1.0, 0.01),
    "phi": (0.01, 1.0, 0.01),
}

#: Fused rows evaluated at once (several configurations share one evaluation).
_ROWS_AT_A_TIME = 4_000_000


@dataclass(frozen=True)
class FusionSearch:
    """What :func:`optimize_fusion` found.

    Attributes
    ----------
    method, metric : str
        The method searched and the measure it was judged by.
    best : mapping
        The best configuration, as keyword arguments of :func:`pdireval.fuse`
        (``weights`` as a dict by run name, and the method's parameters).
    score : float
        Its mean ``metric`` over the judged queries.
    table : DataFrame
        Every configuration tried, in the order tried: its weights (a tuple, in the
        order of the runs) and parameters, and its mean ``metric``.
    folds : DataFrame or None
        With cross-validation, per fold: the configuration chosen on the other folds,
        its score there (``train``) and on the fold (``test``).
    """

    method: str
    metric: str
    best: Mapping[str, Any]
    score: float
    table: pd.DataFrame
    folds: pd.DataFrame | None = None


def weight_grid(n_runs: int, step: float) -> list[tuple[float, ...]]:
    """Every ``n_runs`` weights that are multiples of ``step`` and sum to 1.

    Examples
    --------
    >>> weight_grid(2, 0.5)
    [(0.0, 1.0), (0.5, 0.5), (1.0, 0.0)]
    """
    if isinstance(step, bool) or not isinstance(step, (int, float)) or not 0 < step <= 1:
        msg = f"step={step!r} must be a number in (0, 1], such as 0.1"
        raise ParameterError(msg)
    parts = round(1 / step)
    if not np.isclose(parts * step, 1.0, rtol=0, atol=1e-9):
        msg = f"step={step!r} must divide 1 into whole parts (0.1, 0.05, 0.25, ...)"
        raise ParameterError(msg)
    grid = []
    for counts in itertools.product(range(parts + 1), repeat=n_runs):
        if sum(counts) == parts:
            grid.append(tuple(round(count / parts, 12) for count in counts))
    return grid


def _param_grid(method: Method, params: Mapping[str, Sequence[float]] | None) -> dict:
    given = dict(params or {})
    unknown = sorted(set(given) - set(method.params))
    if unknown:
        msg = f"{method.name} has no parameter {unknown}; its parameters: {sorted(method.params)}"
        raise ParameterError(msg)
    grid = {}
    for name in method.params:
        values: list[Any]
        if name in given:
            tried: Any = given[name]
            values = [tried] if np.isscalar(tried) else list(tried)
        else:
            first, last, step = _DEFAULT_GRIDS[name]
            count = round((last - first) / step) + 1
            values = [round(first + i * step, 10) for i in range(count)]
        if not values:
            msg = f"no values to try for {name}"
            raise ParameterError(msg)
        grid[name] = values
    return grid


@takes(excluding(EVALUATION, "qrels", "qrels_columns"))
def optimize_fusion(
    runs: RunsLike,
    qrels: pd.DataFrame,
    method: str = "wsum",
    *,
    metric: str = "nDCG@10",
    norm: Norm | None = "min-max",
    step: float = 0.1,
    params: Mapping[str, Sequence[float]] | None = None,
    folds: int | None = None,
    seed: int = 0,
    depth: int | None = None,
    columns: Any = None,
    qrels_columns: Any = None,
    **options: Any,
) -> FusionSearch:
    """Search the weights and parameters of a fusion method that evaluate best.

    Parameters
    ----------
    runs : DataFrame, list or dict of DataFrames
        The runs to fuse, as for :func:`pdireval.fuse`.
    qrels : DataFrame
        Judgments (query, doc, rel), as for :func:`pdireval.merge_qrels`.
    method : str, default "wsum"
        The fusion method.
    metric : str, default "nDCG@10"
        Any measure :func:`pdireval.evaluate` knows (including user-defined ones); its
        mean over the queries of the query policy (by default every judged query,
        ``trec_eval -c``) is maximised.
    norm : str or None, default "min-max"
        Normalisation, as for :func:`pdireval.fuse`.
    step : float, default 0.1
        For weighted methods: the weights tried are every combination of multiples of
        ``step`` that sum to 1 (ranx's grid).
    params : dict of lists, optional
        Values to try for the method's parameters, e.g. ``{"k": [20, 60, 100]}``;
        by default ranx's grids (RRF's ``k`` from 10 to 100 by 10; ``gamma``, ``sigma``
        and ``phi`` from 0.01 to 1 by 0.01).
    folds : int, optional
        Cross-validate over this many folds of the judged queries: each fold is
        scored with the configuration that is best on the other folds.
    seed : int, default 0
        Seed of the split of queries into folds.
    depth, columns
        As for :func:`pdireval.fuse`.
    qrels_columns : ColumnMap or dict, optional
        Column roles of ``qrels``.
    **options
        The evaluation options of :func:`pdireval.evaluate` (below), with which every
        configuration is evaluated.

    Returns
    -------
    FusionSearch
        ``best`` (keyword arguments for :func:`pdireval.fuse`), its ``score``, the
        ``table`` of every configuration tried and, with ``folds``, the per-fold results.

    Raises
    ------
    MetricError
        An unknown method, parameter or measure; a step that does not divide 1.
    SchemaError
        Runs or qrels that :func:`pdireval.fuse` or :func:`pdireval.merge_qrels` refuse.

    Notes
    -----
    Ties between configurations go to the first tried. ranx keeps only the weight
    combinations whose floating-point sum is exactly 1.0, which silently skips some
    (with ``step=0.1`` and three runs, ``(0.1, 0.2, 0.7)`` among others); here every
    combination of whole multiples of ``step`` is tried.

    Examples
    --------
    >>> import pandas as pd, pdireval
    >>> runs = pd.DataFrame({"run": ["bm25"] * 2 + ["dense"] * 2, "query": "q1",
    ...                      "doc": ["a", "b", "b", "a"], "score": [2.0, 1.0, 2.0, 1.0]})
    >>> qrels = pd.DataFrame({"query": ["q1"], "doc": ["b"], "rel": [1]})
    >>> found = pdireval.optimize_fusion(runs, qrels, "wsum", metric="RR", step=0.5)
    >>> dict(found.best), found.score
    ({'weights': {'bm25': 0.0, 'dense': 1.0}}, 1.0)
    """
    evaluation = Evaluation.from_options(options)  # checked before anything is fused
    chosen = find_method(method)
    read = read_runs(runs, columns, depth)
    require_several(read)
    weights = weight_grid(read.n_runs, step) if chosen.weighted else [None]
    grid = _param_grid(chosen, params)
    configs = [
        (w, dict(zip(grid, values, strict=True)))
        for w in weights
        for values in itertools.product(*grid.values())
    ]
    normalised = apply_norm(read, norm)
    per_query = _per_query(
        read, normalised, chosen, configs, (qrels, qrels_columns), metric, columns, evaluation
    )
    means = per_query.mean(axis=1).to_numpy()
    table = pd.DataFrame(
        {
            **({"weights": [w for w, _ in configs]} if chosen.weighted else {}),
            **{name: [p[name] for _, p in configs] for name in grid},
            metric: means,
        }
    )
    best = int(np.nanargmax(means)) if np.isfinite(means).any() else 0
    found_folds = None
    if folds is not None:
        found_folds = _cross_validate(per_query, configs, read, folds, seed)
    return FusionSearch(
        method=chosen.name,
        metric=metric,
        best=_as_arguments(read, configs[best]),
        score=float(means[best]),
        table=table,
        folds=found_folds,
    )


def _as_arguments(runs: Runs, config: tuple[Any, dict]) -> Mapping[str, Any]:
    weights, params = config
    arguments: dict[str, Any] = {}
    if weights is not None:
        arguments["weights"] = dict(zip(runs.names, weights, strict=True))
    arguments.update(params)
    return MappingProxyType(arguments)


def _per_query(
    read: Runs,
    normalised: Runs,
    method: Method,
    configs: list[tuple[Any, dict]],
    judgments: tuple[pd.DataFrame, Any],
    metric: str,
    columns: Any,
    evaluation: Evaluation,
) -> pd.DataFrame:
    """Per configuration (rows) and query (columns), the metric's value.

    Configurations are fused as runs named 0, 1, ... of one frame, evaluated together.
    """
    qrels, qrels_columns = judgments
    metrics = parse_metrics(metric)
    per_block = max(_ROWS_AT_A_TIME // max(read.n_pairs, 1), 1)
    pieces = []
    for begin in range(0, len(configs), per_block):
        frames = []
        for number in range(begin, min(begin + per_block, len(configs))):
            weights, params = configs[number]
            weight_array = np.ones(read.n_runs) if weights is None else np.array(weights)
            score = method.kernel(normalised, weight_array, **method.parameters(params))
            frames.append(run_frame(read, score, number))
        fused = pd.concat(frames, ignore_index=True)
        merged = merge_qrels(fused, qrels, columns=columns, qrels_columns=qrels_columns)
        values = per_part(merged, metrics, columns, evaluation)[0]
        pieces.append(values.iloc[:, 0].unstack(level=-1))
    table = pd.concat(pieces)
    return table.reindex(range(len(configs)))


def _cross_validate(
    per_query: pd.DataFrame, configs: list, read: Runs, folds: int, seed: int
) -> pd.DataFrame:
    queries = per_query.columns
    if isinstance(folds, bool) or not isinstance(folds, int) or not 2 <= folds <= len(queries):
        msg = f"folds={folds!r} must be a whole number from 2 to the {len(queries)} judged queries"
        raise ParameterError(msg)
    order = np.random.default_rng(seed).permutation(len(queries))
    fold_of = np.empty(len(queries), dtype=np.int64)
    fold_of[order] = np.arange(len(queries)) % folds
    values = per_query.to_numpy()
    rows = []
    for fold in range(folds):  # a few folds, each a vectorised mean over configurations
        test = fold_of == fold
        train_means = values[:, ~test].mean(axis=1)
        chosen = int(np.nanargmax(train_means))
        rows.append(
            {
                "fold": fold,
                "queries": int(test.sum()),
                "best": dict(_as_arguments(read, configs[chosen])),
                "train": float(train_means[chosen]),
                "test": float(values[chosen, test].mean()),
            }
        )
    return pd.DataFrame(rows)
