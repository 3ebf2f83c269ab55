r"""Query performance prediction: how well a predictor foresees per-query effectiveness.

A predictor gives every query a score before (or without) judging it; the evaluation
gives every query a value of a measure. :func:`qpp_evaluation` compares the two as the
literature does: Pearson's r, Kendall's tau and Spearman's rho between them, and sMARE
(Faggioli et al. 2021), the mean scaled absolute difference of the query's rank by the
predictor and by the measure (0 is perfect, lower is better).

Examples
--------
>>> import pdireval
>>> from pdireval.datasets import example
>>> df = example()
>>> run = df[df["run"] == "medium"].drop(columns="run")
>>> values = pdireval.evaluate(run, ["AP", "nDCG@10"])
>>> predictor = run.groupby("query")["score"].max().rename("max_score")  # post-retrieval
>>> pdireval.qpp_evaluation(predictor, values).round(3)
   predictor   metric  queries  pearson  kendall  spearman  smare
0  max_score       AP       50    0.393    0.214     0.294  0.266
1  max_score  nDCG@10       50    0.523    0.278     0.375  0.242
"""

from __future__ import annotations

import numbers
import reprlib
from collections.abc import Hashable, Iterable, Mapping, Sequence
from typing import Any

import numpy as np
import pandas as pd

from pdireval._core.errors import SchemaError
from pdireval.stats.correlation import kendall, spearman

__all__ = ["QPP_COLUMNS", "qpp_evaluation", "smare"]

#: Columns of the table returned by :func:`qpp_evaluation` after the grouping levels.
QPP_COLUMNS = ("predictor", "metric", "queries", "pearson", "kendall", "spearman", "smare")

_SHOWN = 10  # ids listed in an error message


def smare(predicted: Any, actual: Any) -> float:
    r"""Mean scaled absolute rank error (sMARE) of a predictor over the queries.

    Parameters
    ----------
    predicted, actual : array-like of numbers
        The predictor's score and the measure's value of the same queries, query j at
        position j of both.

    Returns
    -------
    float
        In [0, 1); 0 when both order the queries alike. NaN without queries.

    Raises
    ------
    SchemaError
        The two have different lengths, or a value is missing, infinite or not a number
        (text, True/False, None): the positions and values are named. Drop those queries
        from both sides, or fill them in.

    Notes
    -----
    With :math:`r^p_q` and :math:`r^e_q` the ranks of query q among the c queries by
    the predictor and by the measure (ties share their average rank),

    .. math:: \mathrm{sMARE} = \frac{1}{c} \sum_q \frac{|r^p_q - r^e_q|}{c}.

    References
    ----------
    G. Faggioli, O. Zendel, J. S. Culpepper, N. Ferro, F. Scholer (2021), sMARE: a new
    paradigm to evaluate and understand query performance prediction methods,
    Information Retrieval Journal 25.

    Examples
    --------
    >>> smare([0.1, 0.2, 0.3, 0.4], [0.4, 0.3, 0.2, 0.1])  # reversed: (3 + 1 + 1 + 3) / 16
    0.5
    """
    p, e = _sequence(predicted, "predicted"), _sequence(actual, "actual")
    if len(p) != len(e):
        msg = f"smare needs as many predictions as values, got {len(p)} and {len(e)}"
        raise SchemaError(msg)
    positions = pd.RangeIndex(len(p))
    noun = ("at", "position", "positions")
    x = _finite_numbers(p, "smare's argument predicted", positions, noun)
    y = _finite_numbers(e, "smare's argument actual", positions, noun)
    return _smare(x, y)


def _smare(x: np.ndarray, y: np.ndarray) -> float:
    """The sMARE of two float64 arrays of finite numbers."""
    c = len(x)
    if c == 0:
        return float("nan")
    errors = (pd.Series(x).rank(method="average") - pd.Series(y).rank(method="average")).abs()
    return float((errors / c).mean())


def _sequence(data: Any, what: str) -> pd.Series:
    """``data`` (a sequence, array or Series of values) as a Series numbered 0, 1, ..."""
    if isinstance(data, pd.Series):
        return data.reset_index(drop=True)
    if isinstance(data, np.ndarray):
        if data.ndim == 1:
            return pd.Series(data)
    elif isinstance(data, Iterable) and not isinstance(data, str | bytes | Mapping):
        items = list(data)
        return pd.Series(items, dtype=None if items else np.float64)
    msg = (
        f"smare's {what} values must be one sequence of numbers (a list, 1-D array or "
        f"Series), one per query, got {type(data).__name__}"
        + (f" of shape {data.shape}" if isinstance(data, np.ndarray) else "")
    )
    raise SchemaError(msg)


def _plain(value: object) -> object:
    """A numpy scalar as Python's, for messages (``nan``, not ``np.float64(nan)``)."""
    return value.item() if isinstance(value, np.generic) else value


def _real(value: object) -> float:
    """``value`` as a float when it is a real number (not True/False), else NaN."""
    if not isinstance(value, numbers.Real) or isinstance(value, bool | np.bool_):
        return np.nan
    try:
        return float(value)
    except OverflowError:  # an int too large for a float64
        return np.inf


def _finite_numbers(
    values: pd.Series, what: str, ids: pd.Index, noun: tuple[str, str, str]
) -> np.ndarray:
    """``values`` as float64, or a :class:`SchemaError` naming each missing, infinite or
    non-numeric value (text, True/False, None) by its id and saying how to fix it.

    The one check of :func:`smare` (ids: positions) and :func:`qpp_evaluation` (ids:
    query ids). A number is an int or float (numpy's included), never True/False or
    text such as ``"0.5"``.
    """
    kind = values.dtype.kind
    if kind in "iuf":  # numbers; nullable ones give NaN where missing
        out = values.to_numpy(dtype=np.float64, na_value=np.nan)
        good = np.isfinite(out)
    elif kind == "O":  # objects: numbers, text, None, ... one by one
        out = np.fromiter((_real(v) for v in values), dtype=np.float64, count=len(values))
        good = np.isfinite(out)
    else:  # True/False, dates, complex numbers: no number of a query
        out = np.full(len(values), np.nan)
        good = np.zeros(len(values), dtype=bool)
    if good.all():
        return out
    bad = np.flatnonzero(~good)
    found = [reprlib.repr(_plain(values.iloc[i])) for i in bad[:_SHOWN]]
    found += ["..."] if len(bad) > _SHOWN else []
    where = f"{noun[0]} {len(bad)} {noun[1] if len(bad) == 1 else noun[2]}"
    msg = (
        f"{what} has no finite number {where}: {_shown(list(ids[bad]))} "
        f"(found [{', '.join(found)}]). "
        "Every query needs a prediction and a "
        "value, each a finite number (not text, True/False or None): drop those queries "
        "from both sides (e.g. with dropna()), fill them in, or convert text to numbers "
        "(e.g. with pd.to_numeric)"
    )
    raise SchemaError(msg)


def _pearson(x: np.ndarray, y: np.ndarray) -> float:
    if len(x) < 2 or np.ptp(x) == 0 or np.ptp(y) == 0:  # a constant side has no correlation
        return float("nan")
    dx, dy = x - x.mean(), y - y.mean()
    denominator = np.sqrt((dx * dx).sum() * (dy * dy).sum())
    return float(np.clip((dx * dy).sum() / denominator, -1, 1)) if denominator > 0 else np.nan


def _as_frame(data: Any, what: str) -> pd.DataFrame:
    if isinstance(data, pd.Series):
        name = data.name if data.name is not None else what
        return data.to_frame(name)
    if isinstance(data, pd.DataFrame):
        return data
    msg = (
        f"the {what} must be a pandas Series or DataFrame indexed by query id, "
        f"got {type(data).__name__}"
    )
    raise SchemaError(msg)


def _shown(ids: Sequence[Any]) -> list[Any]:
    return list(ids[:_SHOWN]) + (["..."] if len(ids) > _SHOWN else [])


def _numbers(table: pd.DataFrame, what: str) -> pd.DataFrame:
    """``table`` with every column as float64, each value checked by :func:`_finite_numbers`."""
    return pd.DataFrame(
        {
            position: _finite_numbers(
                table.iloc[:, position],
                f"{what} {column!r}",
                table.index,
                ("for", "query", "queries"),
            )
            for position, column in enumerate(table.columns)
        },
        index=table.index,
    ).set_axis(table.columns, axis=1)


def _aligned(predictor: pd.DataFrame, values: pd.DataFrame) -> pd.DataFrame:
    """Predictions repeated along the values' index (on the levels they share)."""
    own = list(predictor.index.names)
    _refuse_other_levels(predictor.index, values.index)
    keys = _shared_keys(values.index, own)
    _refuse_repeated_queries(predictor.index)
    _refuse_other_queries(predictor.index, keys)
    out = predictor.reindex(keys)
    out.index = values.index
    return out


def _refuse_other_levels(own_index: pd.Index, index: pd.Index) -> None:
    """Refuse a predictor whose index levels are unnamed (several) or not levels of the
    values' index (a single level is matched with a single one by position).
    """
    own = list(own_index.names)
    if any(name is None for name in own) and own_index.nlevels > 1:
        msg = "name the index levels of the predictor (e.g. ['collection', 'query'])"
        raise SchemaError(msg)
    missing = [name for name in own if name not in index.names]
    if missing and not (len(own) == 1 and index.nlevels == 1):
        msg = (
            f"the predictor's index levels {own} are not all levels of the values' "
            f"index {list(index.names)}; name them alike"
        )
        raise SchemaError(msg)


def _shared_keys(index: pd.Index, own: list[Hashable]) -> pd.Index:
    """The values' index on the predictor's levels ``own``, in the predictor's order."""
    keys: pd.Index = index
    if isinstance(index, pd.MultiIndex):
        keys = index.droplevel([i for i, name in enumerate(index.names) if name not in own])
        if isinstance(keys, pd.MultiIndex):
            keys = keys.reorder_levels(own)
    return keys


def _refuse_repeated_queries(own_index: pd.Index) -> None:
    """Refuse a predictor with several rows for a query."""
    if own_index.has_duplicates:
        ids = list(own_index[own_index.duplicated()].unique())
        msg = f"the predictor has several rows for queries {_shown(ids)}; give one per query"
        raise SchemaError(msg)


def _refuse_other_queries(own_index: pd.Index, keys: pd.Index) -> None:
    """Refuse a predictor and values that are not about the same queries."""
    lacking = keys.unique().difference(own_index)
    extra = own_index.difference(keys.unique())
    if len(lacking) or len(extra):
        msg = (
            f"the predictor and the values are not about the same queries: "
            f"{len(lacking)} with values but no prediction {_shown(list(lacking))}, "
            f"{len(extra)} with a prediction but no value {_shown(list(extra))}. "
            "Give both the same query ids (and the same id type: '401' is not 401)"
        )
        raise SchemaError(msg)


def _named_levels(by: Hashable | Sequence[Hashable], index: pd.Index) -> list[Hashable]:
    """The levels ``by`` names, each a level of ``index``."""
    levels = [by] if isinstance(by, str) or not isinstance(by, Sequence) else list(by)
    unknown = [level for level in levels if level not in index.names]
    if unknown:
        msg = f"by={by!r}: {unknown} are not index levels of the values {list(index.names)}"
        raise SchemaError(msg)
    return levels


def qpp_evaluation(
    predictor: pd.Series | pd.DataFrame,
    values: pd.Series | pd.DataFrame,
    *,
    by: Hashable | Sequence[Hashable] | None = None,
) -> pd.DataFrame:
    """Pearson, Kendall, Spearman and sMARE between predictors and per-query values.

    Parameters
    ----------
    predictor : Series or DataFrame
        One predictor (a Series) or several (one column each), indexed by query id --
        or by the levels of ``values``' index it shares, e.g. (collection, query).
    values : Series or DataFrame
        Per-query values of one measure (a Series) or several (one column each), as
        :func:`pdireval.evaluate` returns them. A prediction is repeated along the index
        levels of ``values`` that the predictor lacks (e.g. ``run``).
    by : index level name or list of them, optional
        Levels of ``values``' index that group the queries (e.g. ``"collection"`` or
        ``["run", "collection"]``): one row per group. By default, the levels of
        ``values``' index that the predictor's index lacks -- ``run``, ``judge``,
        ``collection``, ``seed``, whichever ``values`` has, for a predictor indexed by
        query -- so that each run (judge, collection, seed) is compared with the
        predictor over its own queries, each query once. ``by=[]`` puts every row in
        one group: a prediction then counts once per run.

    Returns
    -------
    DataFrame
        One row per (group, predictor, metric); columns the grouping levels, then
        ``predictor``, ``metric``, ``queries``, ``pearson``, ``kendall`` (tau-b),
        ``spearman`` (with ties) and ``smare``. A correlation is NaN when a group has
        fewer than two queries or one side is constant.

    Raises
    ------
    SchemaError
        The predictor or a value is missing or not a finite number for some query, the
        two sides are about different queries, or ``by`` names no index level.

    Notes
    -----
    Kendall's tau-b and Spearman's rho equal ``scipy.stats.kendalltau`` and
    ``scipy.stats.spearmanr``, Pearson's r ``scipy.stats.pearsonr``; sMARE is
    :func:`smare`. A predictor of *difficulty* (high = hard) correlates negatively;
    negate it first to read sMARE.

    References
    ----------
    G. Faggioli, O. Zendel, J. S. Culpepper, N. Ferro, F. Scholer (2021), sMARE: a new
    paradigm to evaluate and understand query performance prediction methods,
    Information Retrieval Journal 25. D. Carmel & E. Yom-Tov (2010), Estimating the
    query difficulty for information retrieval, Morgan & Claypool.

    Examples
    --------
    >>> import pandas as pd, pdireval
    >>> values = pd.Series([0.1, 0.5, 0.3, 0.9], index=pd.Index(["q1", "q2", "q3", "q4"],
    ...                    name="query"), name="AP")
    >>> guess = pd.Series([1.0, 2.0, 4.0, 3.0], index=values.index, name="clarity")
    >>> pdireval.qpp_evaluation(guess, values).round(4)
      predictor metric  queries  pearson  kendall  spearman  smare
    0   clarity     AP        4    0.378   0.3333       0.4   0.25

    Values of two runs (index run, query): the prediction of a query serves both, and
    each run gets its own row.

    >>> runs = pd.concat({"bm25": values, "dense": values[::-1].set_axis(values.index)},
    ...                  names=["run", "query"])
    >>> pdireval.qpp_evaluation(guess, runs).round(4)
         run predictor metric  queries  pearson  kendall  spearman  smare
    0   bm25   clarity     AP        4   0.3780   0.3333       0.4  0.250
    1  dense   clarity     AP        4  -0.5292  -0.3333      -0.4  0.375
    """
    predictors = _as_frame(predictor, "predictor")
    measured = _as_frame(values, "values")
    levels = None if by is None else _named_levels(by, measured.index)
    predictors = _numbers(predictors, "predictor")
    measured = _numbers(measured, "measure")
    aligned = _aligned(predictors, measured)
    if levels is None:  # the levels a prediction is repeated along
        own = set(predictors.index.names)
        multi = isinstance(measured.index, pd.MultiIndex)
        levels = [name for name in measured.index.names if name not in own] if multi else []
    groups = (
        [((), np.arange(len(measured)))]
        if not levels
        else [
            (key if isinstance(key, tuple) else (key,), positions)
            for key, positions in pd.Series(np.arange(len(measured)), index=measured.index)
            .groupby(level=levels, sort=False)
            .indices.items()
        ]
    )
    rows = []
    for key, positions in groups:
        for i, name in enumerate(aligned.columns):
            x = aligned.iloc[:, i].to_numpy(np.float64)[positions]
            for j, label in enumerate(measured.columns):
                y = measured.iloc[:, j].to_numpy(np.float64)[positions]
                rows.append(
                    (
                        *key,
                        name,
                        label,
                        len(positions),
                        _pearson(x, y),
                        kendall(x, y) if len(x) else np.nan,
                        spearman(x, y) if len(x) else np.nan,
                        _smare(x, y),
                    )
                )
    out = pd.DataFrame(rows, columns=[*levels, *QPP_COLUMNS])
    return out.astype({"queries": np.int64})
