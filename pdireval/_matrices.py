"""Per-query tables as query x run matrices, one per metric: the input of the analyses of
many runs at once (risk, all-pairs tests, meta-evaluation).
"""

from __future__ import annotations

from collections.abc import Hashable, Iterator, Mapping
from typing import Any

import numpy as np
import pandas as pd

from pdireval import _evaluate
from pdireval._comparison import _aligned, _runs_of
from pdireval._errors import MetricError
from pdireval._options import Evaluation
from pdireval.metrics import parse_metrics
from pdireval.typing import ColumnsLike, MetricsLike

__all__ = ["Matrix", "matrices", "seed_sequence", "whole"]


class Matrix:
    """The values of one metric: ``values[query, run]``, every run on the same queries."""

    __slots__ = ("metric", "queries", "runs", "values")

    def __init__(self, metric: str, wide: pd.DataFrame) -> None:
        self.metric = metric
        self.runs: list[Hashable] = list(wide.columns)
        self.queries: pd.Index = wide.index
        self.values: np.ndarray = wide.to_numpy(np.float64)


def matrices(
    frame: pd.DataFrame,
    metrics: MetricsLike,
    columns: ColumnsLike,
    options: Mapping[str, Any],
    action: str,
) -> Iterator[Matrix]:
    """Evaluate ``frame`` once and give one :class:`Matrix` per metric.

    A frame without a run column or with one run, and a query that some runs lack, are
    refused with a :class:`~pdireval.SchemaError` that names ``action``.
    """
    table = _evaluate.per_query(
        frame, parse_metrics(metrics), columns, Evaluation.from_options(options)
    )
    _runs_of(table, action)
    for label in table.columns:
        yield Matrix(label, _aligned(table, label))


def whole(name: str, value: Any, minimum: int) -> int:
    """``value`` as an int >= ``minimum``, else :class:`~pdireval.MetricError`."""
    if isinstance(value, bool) or not isinstance(value, int | np.integer) or value < minimum:
        msg = f"{name}={value!r} must be a whole number >= {minimum}"
        raise MetricError(msg)
    return int(value)


def seed_sequence(seed: Any) -> np.random.SeedSequence:
    """The seed of a resampling analysis as a SeedSequence: every metric of a call draws
    the same resamples from it, also when no seed was given.
    """
    if isinstance(seed, np.random.SeedSequence):
        return seed
    whole_number = isinstance(seed, int | np.integer) and not isinstance(seed, bool)
    if seed is None or (whole_number and seed >= 0):
        return np.random.SeedSequence(None if seed is None else int(seed))
    msg = f"seed={seed!r} must be a whole number >= 0, a numpy SeedSequence or None"
    raise MetricError(msg)
