"""Aggregation of per-query values into one number per metric (and run)."""

from __future__ import annotations

from typing import Literal

import numpy as np
import pandas as pd

from pdireval._errors import MetricError

__all__ = ["AGGREGATES", "GMEAN_FLOOR", "Agg", "aggregate"]

Agg = Literal["mean", "gmean", "hmean", "median"]
AGGREGATES: tuple[str, ...] = ("mean", "gmean", "hmean", "median")

#: trec_eval's floor for the geometric mean (gm_map): values below it count as 1e-5.
GMEAN_FLOOR = 1e-5


def _gmean(values: pd.Series) -> float:
    values = values.dropna()
    if values.empty:
        return np.nan
    return float(np.exp(np.log(np.maximum(values.to_numpy(), GMEAN_FLOOR)).mean()))


def _hmean(values: pd.Series) -> float:
    values = values.dropna().to_numpy()
    if len(values) == 0:
        return np.nan
    if np.any(values < 0):
        return np.nan
    if np.any(values == 0):
        return 0.0
    return float(len(values) / np.sum(1.0 / values))


def aggregate(table: pd.DataFrame, agg: str, *, by_run: bool) -> pd.Series | pd.DataFrame:
    """Aggregate a per-query table column-wise (per run when ``by_run``); NaN values are skipped."""
    if agg not in AGGREGATES:
        msg = f"agg={agg!r} is not an aggregate; use one of {list(AGGREGATES)}"
        raise MetricError(msg)
    how = {"mean": "mean", "median": "median", "gmean": _gmean, "hmean": _hmean}[agg]
    if by_run:
        grouped = table.groupby(level=0, sort=True, observed=True)
        return grouped.agg(how).astype(np.float64)
    result = table.agg(how) if isinstance(how, str) else table.apply(how)
    return result.astype(np.float64).rename(agg)
