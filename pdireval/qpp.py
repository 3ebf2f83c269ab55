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

from collections.abc import Hashable, Sequence
from typing import Any

import numpy as np
import pandas as pd

from pdireval._errors import SchemaError
from pdireval.correlation import kendall, spearman

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
    p = pd.Series(np.asarray(predicted, dtype=np.float64))
    e = pd.Series(np.asarray(actual, dtype=np.float64))
    if len(p) != len(e):
        msg = f"smare needs as many predictions as values, got {len(p)} and {len(e)}"
        raise SchemaError(msg)
    c = len(p)
    if c == 0:
        return float("nan")
    errors = (p.rank(method="average") - e.rank(method="average")).abs() / c
    return float(errors.mean())


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


def _refuse_bad_values(table: pd.DataFrame, what: str) -> None:
    for column in table.columns:
        numbers = pd.to_numeric(table[column], errors="coerce")
        bad = numbers.isna() | ~np.isfinite(numbers.to_numpy(np.float64, na_value=np.nan))
        if bad.any():
            ids = list(table.index[bad.to_numpy()])
            msg = (
                f"{what} {column!r} has no finite number for {int(bad.sum())} quer"
                f"{'y' if bad.sum() == 1 else 'ies'}: {_shown(ids)}. Every query needs a "
                "prediction and a value: drop those queries from both sides (e.g. with "
                "dropna()), or fill them in"
            )
            raise SchemaError(msg)


def _aligned(predictor: pd.DataFrame, values: pd.DataFrame) -> pd.DataFrame:
    """Predictions repeated along the values' index (on the levels they share)."""
    own = list(predictor.index.names)
    if any(name is None for name in own) and predictor.index.nlevels > 1:
        msg = "name the index levels of the predictor (e.g. ['collection', 'query'])"
        raise SchemaError(msg)
    index = values.index
    missing = [name for name in own if name not in index.names]
    if missing and not (len(own) == 1 and index.nlevels == 1):
        msg = (
            f"the predictor's index levels {own} are not all levels of the values' "
            f"index {list(index.names)}; name them alike"
        )
        raise SchemaError(msg)
    keys: pd.Index = index
    if isinstance(index, pd.MultiIndex):
        keys = index.droplevel([i for i, name in enumerate(index.names) if name not in own])
        if isinstance(keys, pd.MultiIndex):
            keys = keys.reorder_levels(own)
    if predictor.index.has_duplicates:
        ids = list(predictor.index[predictor.index.duplicated()].unique())
        msg = f"the predictor has several rows for queries {_shown(ids)}; give one per query"
        raise SchemaError(msg)
    lacking = keys.unique().difference(predictor.index)
    extra = predictor.index.difference(keys.unique())
    if len(lacking) or len(extra):
        msg = (
            f"the predictor and the values are not about the same queries: "
            f"{len(lacking)} with values but no prediction {_shown(list(lacking))}, "
            f"{len(extra)} with a prediction but no value {_shown(list(extra))}. "
            "Give both the same query ids (and the same id type: '401' is not 401)"
        )
        raise SchemaError(msg)
    out = predictor.reindex(keys)
    out.index = values.index
    return out


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
        :func:`pdireval.evaluate` returns them. A prediction is repeated along index
        levels of ``values`` that the predictor lacks (e.g. ``run``): group by them.
    by : index level name or list of them, optional
        Levels of ``values``' index that group the queries (e.g. ``"collection"`` or
        ``["run", "collection"]``): one row per group. By default all queries form one
        group.

    Returns
    -------
    DataFrame
        One row per (group, predictor, metric); columns the ``by`` levels, then
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
    """
    predictors = _as_frame(predictor, "predictor")
    measured = _as_frame(values, "values")
    levels = (
        []
        if by is None
        else ([by] if isinstance(by, str) or not isinstance(by, Sequence) else list(by))
    )
    unknown = [level for level in levels if level not in measured.index.names]
    if unknown:
        msg = (
            f"by={by!r}: {unknown} are not index levels of the values {list(measured.index.names)}"
        )
        raise SchemaError(msg)
    _refuse_bad_values(predictors, "predictor")
    _refuse_bad_values(measured, "measure")
    aligned = _aligned(predictors, measured)
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
        for name in aligned.columns:
            x = pd.to_numeric(aligned[name]).to_numpy(np.float64)[positions]
            for label in measured.columns:
                y = pd.to_numeric(measured[label]).to_numpy(np.float64)[positions]
                rows.append(
                    (
                        *key,
                        name,
                        label,
                        len(positions),
                        _pearson(x, y),
                        kendall(x, y) if len(x) else np.nan,
                        spearman(x, y) if len(x) else np.nan,
                        smare(x, y),
                    )
                )
    out = pd.DataFrame(rows, columns=[*levels, *QPP_COLUMNS])
    return out.astype({"queries": np.int64})
