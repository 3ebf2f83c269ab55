"""Score standardisation: each query's values as z-scores against reference runs.

A query's measure value depends on how hard the query is; the z-score ``(value - mean) /
stddev``, with the mean and standard deviation of that query and measure over a set of
reference runs, puts queries on one scale, so that a run's mean over queries weighs each
query alike and means over different query sets can be compared (Webber, Moffat & Zobel,
"Score standardization for inter-collection comparison of retrieval systems", SIGIR 2008).
trec_eval's ``-Z`` does the same with a file of means and deviations (see
:func:`pdireval.read_zscores`).
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from pdireval._core.errors import SchemaError

__all__ = ["STATS_COLUMNS", "zscore_stats", "zscores"]

#: The columns of a frame of per-query statistics: one row per query and measure.
STATS_COLUMNS = ("query", "measure", "mean", "stddev")


def zscore_stats(table: pd.DataFrame, *, query: str = "query") -> pd.DataFrame:
    """Each query's and measure's mean and sample standard deviation over the runs of a
    per-query table: what :func:`zscores` standardises against.

    Parameters
    ----------
    table : DataFrame
        Per-query values of the reference runs, as :func:`pdireval.evaluate` returns them:
        an index level ``query`` (the others -- run, judge, ... -- are pooled), a column
        per measure.
    query : str, default "query"
        The index level of the query ids.

    Returns
    -------
    DataFrame
        Columns ``query``, ``measure``, ``mean`` and ``stddev`` (the sample standard
        deviation, n - 1 in the denominator, NaN for a query of one run), queries as
        strings, in the table's order of queries and measures.

    Examples
    --------
    >>> import pdireval
    >>> from pdireval.datasets import example
    >>> table = pdireval.evaluate(example(), ["AP", "P@10"])
    >>> stats = pdireval.zscore_stats(table)
    >>> stats.head(2).round(4)
      query measure    mean  stddev
    0   401      AP  0.5873  0.2322
    1   401    P@10  0.8000  0.2000
    """
    if query not in table.index.names:
        msg = (
            f"zscore_stats needs the query ids as an index level named {query!r}; the "
            f"table's levels are {list(table.index.names)} (pass query=...)"
        )
        raise SchemaError(msg)
    numbers = table.select_dtypes("number")
    grouped = numbers.groupby(level=query, sort=False, observed=True)
    means = grouped.mean().stack(future_stack=True)
    deviations = grouped.std(ddof=1).stack(future_stack=True)
    return pd.DataFrame(
        {
            "query": means.index.get_level_values(0).astype(str),
            "measure": means.index.get_level_values(1).astype(str),
            "mean": means.to_numpy(dtype=np.float64),
            "stddev": deviations.to_numpy(dtype=np.float64),
        }
    )


def zscores(
    table: pd.DataFrame, stats: pd.DataFrame, *, query: str = "query", missing: float = np.nan
) -> pd.DataFrame:
    """Each value of a per-query table as a z-score, ``(value - mean) / stddev``, with the
    mean and standard deviation of its query and measure (trec_eval's ``-Z``).

    Parameters
    ----------
    table : DataFrame
        Per-query values (an index level ``query``, a column per measure), as
        :func:`pdireval.evaluate` returns them.
    stats : DataFrame
        Columns ``query``, ``measure``, ``mean``, ``stddev``: from :func:`zscore_stats`
        on reference runs, or :func:`pdireval.read_zscores` for a trec_eval file. Queries
        are matched as text; measures by the table's column names.
    query : str, default "query"
        The index level of the query ids.
    missing : float, default NaN
        The value where no z-score is defined: the query and measure have no statistics,
        or their standard deviation is 0 and the value is not the mean (at the mean it
        is 0). trec_eval writes -1000000 there.

    Returns
    -------
    DataFrame
        The table's shape, z-scores in place of the values (a NaN value with a
        deviation to divide by stays NaN).

    Examples
    --------
    >>> import pdireval
    >>> from pdireval.datasets import example
    >>> table = pdireval.evaluate(example(), ["AP", "P@10"])
    >>> z = pdireval.zscores(table, pdireval.zscore_stats(table))
    >>> z.groupby(level="run").mean().round(3)
    metric     AP   P@10
    run
    medium  0.042  0.057
    strong  0.935  0.890
    weak   -0.977 -0.947
    """
    absent = [name for name in STATS_COLUMNS if name not in stats.columns]
    if absent:
        msg = (
            f"stats needs the columns {list(STATS_COLUMNS)} ({absent} missing): build it "
            "with pdireval.zscore_stats or pdireval.read_zscores"
        )
        raise SchemaError(msg)
    if query not in table.index.names:
        msg = f"the table has no index level {query!r} (its levels: {list(table.index.names)})"
        raise SchemaError(msg)
    keys: pd.MultiIndex = pd.MultiIndex.from_arrays(
        [stats["query"].astype(str).to_numpy(), stats["measure"].astype(str).to_numpy()]
    )
    first = ~keys.duplicated()  # a query and measure given twice: the first one
    keys = keys[first]
    # a last slot for the values without statistics (position -1)
    means = np.append(stats["mean"].to_numpy(np.float64)[first], np.nan)
    deviations = np.append(stats["stddev"].to_numpy(np.float64)[first], np.nan)
    queries = table.index.get_level_values(query).astype(str)
    out = table.copy()
    for column in table.columns:
        if not pd.api.types.is_numeric_dtype(table[column]):
            continue
        at = keys.get_indexer(
            pd.MultiIndex.from_arrays([queries, np.full(len(queries), str(column))])
        )
        found = at >= 0
        z = _standardised(table[column].to_numpy(np.float64), means[at], deviations[at], missing)
        out[column] = np.where(found, z, missing)
    return out


def _standardised(
    values: np.ndarray, means: np.ndarray, deviations: np.ndarray, missing: float
) -> np.ndarray:
    """(value - mean) / stddev; with a deviation of 0, 0 at the mean and ``missing``
    elsewhere.
    """
    spread = deviations != 0  # NaN too, as in trec_eval: the z-score is then NaN
    with np.errstate(divide="ignore", invalid="ignore"):
        z = (values - means) / np.where(spread, deviations, 1.0)
    flat = np.where(values == means, 0.0, missing)
    return np.where(spread, z, flat)
