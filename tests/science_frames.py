"""Frames whose per-query values are chosen: P@10 of run r on query q is values[q][r].

Shared by the tests of risk, all-pairs tests, meta-evaluation and prediction.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd


def frame_with_p10(values: Sequence[Sequence[float]], runs: Sequence[str] | None = None):
    """A long frame (query, doc, rank, rel, run): P@10 of run j on query i is values[i][j].

    Values are rounded to tenths; each query also holds one relevant document that no
    run retrieved, so every query is judged whatever the values.
    """
    matrix = np.asarray(values, dtype=np.float64)
    n_queries, n_runs = matrix.shape
    runs = list(runs) if runs is not None else [f"r{j}" for j in range(n_runs)]
    hits = np.rint(matrix * 10).astype(int)
    rows = []
    for i in range(n_queries):
        for j, run in enumerate(runs):
            for rank in range(1, 11):
                rows.append((f"q{i:02d}", f"d{rank}", rank, int(rank <= hits[i, j]), run))
            rows.append((f"q{i:02d}", "unretrieved", None, 1, run))
    return pd.DataFrame(rows, columns=["query", "doc", "rank", "rel", "run"]).astype(
        {"rank": "Float64"}
    )
