"""Efficiency: how long a run took per query (``Latency``), from the frame's time column."""

from __future__ import annotations

import numpy as np

from pdireval._prepare.ranked import Ranked
from pdireval.metrics._base import Family, register

__all__ = ["Latency"]


def _latency(ranked: Ranked, *, k: None) -> np.ndarray:
    if ranked.time is None:  # pragma: no cover - the engine refuses a frame without times
        return np.full(ranked.n_groups, np.nan)
    return ranked.time


Latency = register(
    Family(
        "Latency",
        _latency,
        needs=("time",),
        needs_judgments=False,
        bounded=False,
        aliases=("response_time", "query_time"),
        doc="""Processing time of the query, in seconds: the run's time column.

        A run frame may carry a per-query time (role ``time``: seconds, or a timedelta);
        every row of a query holds the same value, or none. Its mean is the mean
        response time; :func:`pdireval.efficiency` adds the median, the 95th and 99th
        percentiles and the throughput. NaN for a query without a time (e.g. one the
        run did not retrieve anything for); a timed query keeps its time under
        ``queries="all"`` though nobody judged it.
        """,
    )
)
