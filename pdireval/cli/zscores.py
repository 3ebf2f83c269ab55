"""The command line's ``-Z FILE``: each per-query value as a z-score against the file's
means and standard deviations (trec_eval's z-scores file), before the summary.
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd

from pdireval.cli.measures import _Measure
from pdireval.io.zscores import read_zscores
from pdireval.stats.zscores import zscores

__all__ = ["MISSING", "floored_logs", "standardise"]

#: What trec_eval prints where a query and measure have no z-score.
MISSING = -1_000_000.0
#: trec_eval's own NaN (0 / 0 on the machines it runs on): printed -nan.
NEGATIVE_NAN = math.copysign(math.nan, -1.0)


def floored_logs(values: np.ndarray) -> np.ndarray:
    """``log(max(v, 1e-5))`` of each value with the C library's log, as trec_eval takes
    it for a geometric mean (numpy's log may differ in the last bit).
    """
    return np.array([math.log(v if v > 1e-5 else 1e-5) for v in values.tolist()], dtype=float)


def standardise(values: pd.DataFrame, measures: list[_Measure], path: str) -> None:
    """Replace, in ``values`` (index (run, query), a column per printed name), every
    measure's values by z-scores against the file at ``path``, looked up by query id and
    printed name (``map``, ``P_10``), ``MISSING`` where the file has none.
    """
    stats = read_zscores(path)
    shown = [m for m in measures if m.metric is not None and m.name in values]
    columns = [m.name for m in shown]
    # a value that is NaN is trec_eval's 0 / 0, -nan, whose sign the z-score keeps
    raw = values[columns].to_numpy(dtype=float, copy=True)
    for at, measure in enumerate(shown):
        if measure.summary == "gmean":  # trec_eval keeps log(max(value, 1e-5)) per query
            raw[:, at] = floored_logs(raw[:, at])
    raw[np.isnan(raw)] = NEGATIVE_NAN
    frame = pd.DataFrame(raw, index=values.index, columns=columns)
    standardised = zscores(frame, stats, missing=MISSING).to_numpy(dtype=float)
    for at, column in enumerate(columns):
        values[column] = standardised[:, at]
