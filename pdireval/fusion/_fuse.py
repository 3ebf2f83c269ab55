"""Fusing runs into one: read, normalise, combine, rank."""

from __future__ import annotations

from collections.abc import Hashable, Mapping, Sequence
from typing import Any

import numpy as np
import pandas as pd

from pdireval._core.errors import ParameterError, SchemaError
from pdireval.fusion._runs import Runs, RunsLike, read_runs, run_frame
from pdireval.fusion.methods import Method, find_method
from pdireval.fusion.normalization import Norm, apply_norm

__all__ = ["fuse", "fuse_runs", "require_several", "weights_of"]

Weights = Sequence[float] | Mapping[Hashable, float] | None


def fuse(
    runs: RunsLike,
    method: str = "wsum",
    *,
    norm: Norm | None = "min-max",
    weights: Weights = None,
    depth: int | None = None,
    name: Any = None,
    columns: Any = None,
    **params: float,
) -> pd.DataFrame:
    """Fuse several runs into one.

    Parameters
    ----------
    runs : DataFrame, list or dict of DataFrames
        A long frame with ``run``, ``query``, ``doc`` and ``score`` columns, or one frame
        per run (a dict's keys name them; a list's frames are named by their ``run``
        column, else ``run1``, ``run2``, ...). At least two runs.
    method : str, default "wsum"
        The fusion method (any case; ranx's names work too): ``CombSUM``, ``CombMNZ``,
        ``CombANZ``, ``CombGMNZ`` (``gamma=``), ``CombMAX``, ``CombMIN``, ``CombMED``,
        ``RRF`` (``k=60``), ``RBC`` (``phi=``), ``ISR``, ``log_ISR``, ``logN_ISR``
        (``sigma=0.01``), ``BordaFuse``, ``wBordaFuse``, ``Condorcet``, ``wCondorcet``,
        ``Mixed``, ``WSum``, ``WMNZ``. The user guide gives each one's formula.
    norm : str or None, default "min-max"
        How each run's scores for a query are normalised first (see
        :func:`pdireval.normalize`); None to combine them as they are.
    weights : sequence or dict of float, optional
        One weight per run, for the weighted methods (``wBordaFuse``, ``wCondorcet``,
        ``Mixed``, ``WSum``, ``WMNZ``): a dict by run name, or a sequence in the order the
        runs are given (a long frame's runs in the order they first appear). Weights are
        finite and >= 0, not all zero. Default: 1 for every run.
    depth : int, optional
        Fuse only the top ``depth`` documents of each run's ranking of each query.
    name : optional
        The fused run's name (its ``run`` column); default the method's name.
    columns : ColumnMap or dict, optional
        Column roles, as for :func:`pdireval.evaluate`. A rank column is ignored: runs
        are ranked by their scores.
    **params : float
        The method's parameters (``k``, ``gamma``, ``sigma``, ``phi``).

    Returns
    -------
    DataFrame
        The fused run: columns query, doc, score, rank and run, one row per document any
        run retrieved for the query, ranked per query (score descending, equal scores
        by doc id descending, as trec_eval ranks them). It can be evaluated, merged
        with qrels, concatenated with its inputs and written as it is.

    Raises
    ------
    SchemaError
        A missing column, a missing or non-finite score, a document listed twice for a
        query of a run, only one run.
    MetricError
        An unknown method, normalisation or parameter; weights that are missing, negative,
        all zero or not one per run.

    Notes
    -----
    A run that retrieved nothing for a query (runs with different query sets) counts
    as an empty ranking of that query: the fused run covers every query of any run.
    Methods that use ranks take them, per run and query, from the normalised scores in
    trec_eval's order. Scores equal those of ranx [1]_ (see the user guide for its
    undocumented choices and the few places where pdireval differs).

    References
    ----------
    .. [1] Bassani, E. & Romelli, L. (2022). ranx.fuse: A Python Library for Metasearch.
       CIKM 2022, 4808-4812.

    Examples
    --------
    >>> import pandas as pd, pdireval
    >>> runs = pd.DataFrame({"run": ["bm25"] * 3 + ["dense"] * 3, "query": "q1",
    ...                      "doc": ["a", "b", "c", "c", "a", "d"],
    ...                      "score": [9.0, 7.0, 5.0, 0.9, 0.8, 0.1]})
    >>> pdireval.fuse(runs, "rrf", k=1).round(4)
      query doc   score  rank run
    0    q1   a  0.8333     1  RRF
    1    q1   c  0.7500     2  RRF
    2    q1   b  0.3333     3  RRF
    3    q1   d  0.2500     4  RRF
    """
    read = read_runs(runs, columns, depth)
    chosen = find_method(method)
    score = fuse_runs(read, chosen, norm=norm, weights=weights, params=params)
    return run_frame(read, score, chosen.name if name is None else name)


def fuse_runs(
    runs: Runs,
    method: Method,
    *,
    norm: str | None,
    weights: Weights,
    params: Mapping[str, Any],
) -> np.ndarray:
    """The fused score of each (query, doc) pair of ``runs``."""
    require_several(runs)
    values = method.parameters(params)
    weight_array = weights_of(runs, method, weights)
    return method.kernel(apply_norm(runs, norm), weight_array, **values)


def require_several(runs: Runs) -> None:
    """Refuse fewer than two runs."""
    if runs.n_runs < 2:
        found = f"one: {runs.names[0]!r}" if runs.names else "none"
        msg = (
            f"fusion needs at least two runs, found {found}; give a frame whose run column "
            "holds several runs, or a list or dict of run frames"
        )
        raise SchemaError(msg)


def weights_of(runs: Runs, method: Method, weights: Weights) -> np.ndarray:
    """One weight per run code, checked (all ones by default)."""
    if weights is None:
        return np.ones(runs.n_runs)
    if not method.weighted:
        msg = (
            f"{method.name} takes no weights; use a weighted method (wBordaFuse, wCondorcet, "
            "Mixed, WSum, WMNZ) or leave weights out"
        )
        raise ParameterError(msg)
    values = _by_name(runs, weights) if isinstance(weights, Mapping) else _in_order(runs, weights)
    try:
        array = np.array(values, dtype=np.float64)
    except (TypeError, ValueError):
        msg = f"weights must be numbers, got {values!r}"
        raise ParameterError(msg) from None
    if not np.isfinite(array).all() or (array < 0).any() or not (array > 0).any():
        msg = (
            f"weights must be finite and >= 0 with at least one > 0, got {values!r}; a run "
            "that should count against the others is better left out"
        )
        raise ParameterError(msg)
    return array


def _by_name(runs: Runs, weights: Mapping) -> list:
    """The weights of a dict by run name, in run-code order; every run named once."""
    missing = [name for name in runs.names if name not in weights]
    extra = [name for name in weights if name not in set(runs.names)]
    if missing or extra:
        msg = (
            f"weights must name every run once: missing {missing}, unknown {extra} "
            f"(runs: {list(runs.names)})"
        )
        raise ParameterError(msg)
    return [weights[name] for name in runs.names]


def _in_order(runs: Runs, weights: object) -> list:
    """The weights of a sequence, one per run in the order the runs were given."""
    if not isinstance(weights, Sequence | np.ndarray) or isinstance(weights, str):
        msg = f"weights must be a sequence or a dict of numbers, got {type(weights).__name__}"
        raise ParameterError(msg)
    values = list(weights)
    if len(values) != runs.n_runs:
        msg = (
            f"{len(values)} weight(s) for {runs.n_runs} runs {list(runs.names)}; give "
            "one weight per run, or a dict {run name: weight}"
        )
        raise ParameterError(msg)
    return values
