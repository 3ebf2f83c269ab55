"""Metrics of your own: declare a family once and use it everywhere by name.

:func:`define` registers a vectorised kernel over the prepared arrays -- the same
contract as the built-in families. :func:`define_per_query` wraps a plain Python
function of one query's ranked labels; it is convenient and slow (a Python loop over
queries), meant for prototypes and small collections.
"""

from __future__ import annotations

import inspect
import math
import numbers
import re
import reprlib
from collections.abc import Callable, Mapping
from typing import Any

import numpy as np

from pdireval._core.errors import MetricError
from pdireval._prepare.ranked import Ranked
from pdireval.metrics._base import (
    REGISTRY,
    Cutoff,
    Family,
    Param,
    boolean,
    integer_at_least,
    plain_number,
    register,
    rel_param,
)
from pdireval.metrics._parse import family_named

__all__ = ["QueryFailureError", "define", "define_per_query"]

_NAME = re.compile(r"^[A-Za-z][A-Za-z0-9_]*$")


def define(
    name: str,
    kernel: Callable[..., np.ndarray],
    *,
    params: Mapping[str, Any] | None = None,
    cutoff: Cutoff = "none",
    aliases: tuple[str, ...] = (),
    bounded: bool = True,
    average_kernel: Callable[..., np.ndarray] | None = None,
    needs: tuple[str, ...] = (),
    doc: str = "",
    replace: bool = False,
) -> Family:
    """Declare a metric family: a vectorised kernel over the prepared arrays.

    Parameters
    ----------
    name : str
        The metric's name (letters, digits, underscores), used in strings such as
        ``"Name(param=1)@10"`` by every function, the command line and the Dask backend.
    kernel : callable
        ``kernel(ranked, *, k, rel, **params) -> ndarray``: one float64 value per
        group of ``ranked`` (a :class:`~pdireval.metrics.Ranked`). ``k`` is the cutoff
        (None without one); ``rel`` the minimum label counted as relevant. Compute with
        numpy over the arrays -- ``np.bincount`` per group, masks over ``position`` --
        and no Python loop over queries.
    params : mapping of str to default value, optional
        The metric's other parameters and their defaults; a value given later must have
        the default's type (a whole number, a number, True/False or a string). Pass a
        :class:`~pdireval.metrics.Param` for a check of your own.
    cutoff : {"none", "optional", "required"}
        Whether the metric takes ``@k``.
    aliases : tuple of str
        Other names it answers to (case-insensitive).
    bounded : bool
        Whether every value lies in [0, 1].
    average_kernel : callable, optional
        The kernel of the expected value over every order of tied scores
        (``ties="average"``); without one that policy is refused for this metric.
    needs : tuple of str
        Column roles the kernel reads besides query, doc, rel and rank/score
        (``("known",)``); frames without them are refused.
    doc : str
        What the metric measures, shown by ``help()`` and in reports.
    replace : bool
        Replace a metric of your own of the same name (e.g. when a notebook cell runs
        again); a built-in family is never replaced.

    Returns
    -------
    Family
        The registered family; ``family @ 10`` and ``family(param=...)`` give metrics.

    Raises
    ------
    MetricError
        When declared: a bad or taken name, or bad parameter declarations. When
        evaluated: the kernel returned no 1-D array of one number per group (True/False
        read as 1/0, NaN where undefined, no infinity), wrote into the read-only arrays
        of ``ranked``, or failed in floating point (evaluation raises on overflow,
        division by zero, invalid operations and numpy's warnings).

    Examples
    --------
    Precision at k, declared again (it gives the built-in ``P@k``'s numbers):

    >>> import numpy as np, pandas as pd, pdireval
    >>> from pdireval.metrics import define
    >>> def precision(ranked, *, k, rel):
    ...     hits = ranked.per_query_count(ranked.relevant(rel) & (ranked.position <= k))
    ...     return hits / k
    >>> MyP = define("MyP", precision, cutoff="required", replace=True)
    >>> df = pd.DataFrame({"query": "q", "doc": ["a", "b", "c"], "rank": [1, 2, 3],
    ...                    "rel": [1, 0, 1]})
    >>> pdireval.evaluate(df, ["MyP@2", "P@2", MyP(rel=2) @ 3])
    metric  MyP@2  P@2  MyP(rel=2)@3
    query
    q         0.5  0.5           0.0
    """
    for spelling in (name, *aliases):
        if not isinstance(spelling, str) or not _NAME.match(spelling):
            msg = (
                "a metric name or alias is letters, digits and underscores, starting with a "
                f"letter: {spelling!r}"
            )
            raise MetricError(msg)
    if not callable(kernel):
        msg = f"kernel must be a function kernel(ranked, *, k, rel, ...), got {kernel!r}"
        raise MetricError(msg)
    _refuse_taken(name, aliases, replace)
    declared = (rel_param(), *(_param(key, value) for key, value in (params or {}).items()))
    for role, function in (("kernel", kernel), ("average_kernel", average_kernel)):
        if function is not None:
            _check_signature(name, role, function, ["k", *(param.name for param in declared)])
    if name in REGISTRY:  # a metric of your own, replaced
        del REGISTRY[name]
    family = Family(
        name,
        kernel,
        params=declared,
        cutoff=cutoff,
        aliases=aliases,
        bounded=bounded,
        average_kernel=average_kernel,
        needs=needs,
        doc=doc or f"{name}: a metric defined with pdireval.metrics.define.",
    )
    family.user_defined = True  # type: ignore[attr-defined]
    return register(family)


def _check_signature(name: str, role: str, function: Callable[..., Any], passed: list[str]) -> None:
    """Refuse a kernel that cannot be called as ``function(ranked, k=..., rel=..., ...)``
    with the declared parameters: a keyword it does not take, or one it needs that is
    never passed. Functions whose signature Python cannot read are left to run.
    """
    try:
        signature = inspect.signature(function)
    except (TypeError, ValueError):
        return
    problems = _signature_problems(list(signature.parameters.values()), passed)
    if problems:
        msg = (
            f"the {role} of {name} {'; '.join(problems)}: it is called as "
            f"{role}(ranked, {', '.join(f'{key}=...' for key in passed)}); declare other "
            "parameters with params= (or give them defaults)"
        )
        raise MetricError(msg)


def _signature_problems(parameters: list[inspect.Parameter], passed: list[str]) -> list[str]:
    """What keeps a function of these parameters from being called with the ranked arrays
    and the keywords ``passed``: each problem as a phrase.
    """
    positional = [p for p in parameters if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
    problems = _keywords_not_taken(parameters, positional, passed)
    problems += _keywords_never_passed(parameters[1 if positional else 0 :], passed)
    if not positional and not any(p.kind is p.VAR_POSITIONAL for p in parameters):
        problems.insert(0, "takes no positional argument for the ranked arrays")
    return problems


def _keywords_not_taken(
    parameters: list[inspect.Parameter], positional: list[inspect.Parameter], passed: list[str]
) -> list[str]:
    """The keywords ``passed`` that the function does not take, each as a phrase."""
    if any(p.kind is p.VAR_KEYWORD for p in parameters):
        return []
    named = {p.name for p in parameters if p.kind in (p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY)}
    if positional:
        named.discard(positional[0].name)  # the ranked arrays
    return [f"does not take {key}=" for key in passed if key not in named]


def _keywords_never_passed(parameters: list[inspect.Parameter], passed: list[str]) -> list[str]:
    """The parameters without a default that are never passed, each as a phrase."""
    return [
        f"needs {p.name}, which is never passed"
        for p in parameters
        if p.default is p.empty
        and p.kind not in (p.VAR_POSITIONAL, p.VAR_KEYWORD)
        and p.name not in passed
    ]


def _refuse_taken(name: str, aliases: tuple[str, ...], replace: bool) -> None:
    """Refuse a name or alias that already names a metric -- in any case, and as parsing
    reads it (``P_5`` is ``P@5``, ``map`` is ``AP``) -- unless it names the metric of your
    own of this very name and ``replace`` is set. A built-in metric is never replaced.
    """
    for spelling in (name, *aliases):
        taken = family_named(spelling)
        if taken is None:
            continue
        yours = getattr(taken, "user_defined", False)
        if yours and replace and taken.name == name:
            continue
        if not yours:
            msg = (
                f"{spelling!r} already names the built-in metric {taken.name} (names are read "
                "in any case, and trec_eval's and ir_measures' spellings too); choose another "
                "name"
            )
        else:
            hint = ", or pass replace=True" if taken.name == name else ""
            msg = f"{spelling!r} already names your metric {taken.name}; choose another name{hint}"
        raise MetricError(msg)


def define_per_query(
    name: str,
    function: Callable[..., float],
    *,
    params: Mapping[str, Any] | None = None,
    cutoff: Cutoff = "none",
    bounded: bool = True,
    doc: str = "",
    replace: bool = False,
) -> Family:
    """Declare a metric from a Python function of one query (slow: a loop over queries).

    Parameters
    ----------
    name : str
        The metric's name, as in :func:`define`.
    function : callable
        ``function(ranking, judgments, **params) -> float`` for one query (of one
        run): ``ranking`` the labels of the retrieved documents in rank order -- cut at
        ``k`` when the metric has a cutoff -- with NaN for unjudged documents, and
        ``judgments`` the labels of every judged document of the query, retrieved or
        not. Both are float64 arrays of the labels as judged (negative ones included):
        the function decides what counts as relevant, e.g. with ``rel``. They are
        read-only (work on a copy to change them). The value is a number -- a float or
        an int, numpy's included, NaN where the measure is undefined for the query; not
        True/False, text, None, an array or an infinity.
    params, cutoff, bounded, doc, replace
        As in :func:`define` (``rel`` is passed to ``function`` too).

    Returns
    -------
    Family

    Raises
    ------
    MetricError
        When declared: as :func:`define`. When evaluated: the function returned no number
        for a query, wrote into its arrays, failed in floating point (evaluation raises
        on overflow, division by zero, invalid operations and numpy's warnings) or raised
        an exception; the message names the metric, the query (and run) and what happened.

    Notes
    -----
    The function runs once per query in Python: fine for hundreds of queries, slow for
    millions. For speed, write a vectorised kernel with :func:`define`.

    Examples
    --------
    nDCG@k in a dozen readable lines (it gives the built-in ``nDCG@k``'s numbers):

    >>> import numpy as np, pandas as pd, pdireval
    >>> from pdireval.metrics import define_per_query
    >>> def ndcg(ranking, judgments, *, k, rel):
    ...     gains = np.where(ranking >= rel, np.nan_to_num(ranking), 0.0)
    ...     discounts = np.log2(np.arange(2, len(gains) + 2))
    ...     ideal = np.sort(np.where(judgments >= rel, judgments, 0.0))[::-1][:k]
    ...     best = np.sum(ideal / np.log2(np.arange(2, len(ideal) + 2)))
    ...     return float(np.sum(gains / discounts) / best) if best > 0 else 0.0
    >>> SlowNDCG = define_per_query("SlowNDCG", ndcg, cutoff="required", replace=True)
    >>> df = pd.DataFrame({"query": "q", "doc": ["a", "b", "c", "d"],
    ...                    "rank": [1, 2, 3, None], "rel": [0, 2, 1, 3]})
    >>> pdireval.evaluate(df, ["SlowNDCG@3", "nDCG@3"]).round(6)
    metric  SlowNDCG@3    nDCG@3
    query
    q         0.369994  0.369994
    """
    if not callable(function):
        msg = f"function must be function(ranking, judgments, ...) -> float, got {function!r}"
        raise MetricError(msg)

    def kernel(ranked: Ranked, *, k: int | None, **values: Any) -> np.ndarray:
        return _per_query(ranked, function, k, values)

    return define(
        name,
        kernel,
        params=params,
        cutoff=cutoff,
        bounded=bounded,
        doc=doc or f"{name}: a per-query metric defined with pdireval.metrics.define_per_query.",
        replace=replace,
    )


class QueryFailureError(MetricError):
    """A per-query function failed on one group, or returned no number for it.

    Raised by the loop of :func:`define_per_query`; the engine, which knows the group's
    ids, turns it into a :class:`MetricError` naming the metric and the query (and run).

    Parameters
    ----------
    group : int
        The group (one query of one run) the function was called for.
    problem : str
        What the function returned or did, e.g. ``"returned None"``.
    fix : str
        How to fix it.
    """

    def __init__(self, group: int, problem: str, fix: str) -> None:
        self.group, self.problem, self.fix = group, problem, fix
        super().__init__(f"the function {problem} for group {group}; {fix}")

    def message(self, metric: str, where: str) -> str:
        """The whole message, with the metric's label and the group's ids."""
        return f"the function of {metric} {self.problem} for {where}; {self.fix}"


_RETURN = (
    "it must return one number for the query -- a float, or NaN where the measure is "
    "undefined for it"
)


def _value(value: Any, group: int) -> float:
    """``value`` as a float, or a :class:`QueryFailureError` saying what it is instead.

    A value is a real number (an int or a float, numpy's included), never True/False.
    """
    if type(value) is float or (isinstance(value, numbers.Real) and not isinstance(value, bool)):
        try:
            number = float(value)
        except OverflowError:  # an int too large for a float64
            number = math.inf
        if not math.isinf(number):
            return number
        problem = f"returned {reprlib.repr(value)}, an infinite value"
        raise QueryFailureError(group, problem, _RETURN)
    problem = f"returned {reprlib.repr(value)} ({type(value).__name__}, not a number)"
    if value is None:
        hint = "; a path of the function ends without `return` (or returns None)"
    elif isinstance(value, str | bytes):
        hint = ": compute the number itself, not its text"
    elif isinstance(value, bool | np.bool_):
        hint = ": return float(...) of it (1.0 or 0.0) if that is the value meant"
    elif isinstance(value, np.ndarray | list | tuple):
        hint = ", e.g. float(np.sum(...)), not an array of them"
    else:
        hint = ""
    raise QueryFailureError(group, problem, _RETURN + hint)


def _failure(error: Exception, group: int) -> QueryFailureError:
    """What a per-query function that raised ``error`` did, and how to fix it."""
    if isinstance(error, ValueError) and "read-only" in str(error):
        return QueryFailureError(
            group,
            f"wrote into its input ({error})",
            "the ranking and judgments it is given are read-only views of arrays every "
            "query shares: work on a copy, e.g. ranking = ranking.copy()",
        )
    if isinstance(error, FloatingPointError | RuntimeWarning):
        did = "warned" if isinstance(error, RuntimeWarning) else "failed in floating point"
        return QueryFailureError(
            group,
            f"{did} ({error})",
            "evaluation stops at overflow, division by zero and invalid operations (and at "
            "numpy's warnings): test for them -- e.g. return float('nan') when there is "
            "nothing to divide by, or when the ranking is empty",
        )
    return QueryFailureError(
        group,
        f"raised {type(error).__name__}: {error}",
        "it is called once per query (of each run), with that query's ranking (possibly "
        "empty) and judgments; make it handle this one",
    )


def _per_query(
    ranked: Ranked, function: Callable[..., float], k: int | None, values: dict[str, Any]
) -> np.ndarray:
    """Call ``function`` once per group with its ranking and judgments; each value must be
    a real number (NaN allowed), and a failure names its group (:class:`QueryFailureError`).
    """
    num_ret = ranked.num_ret.astype(np.int64)
    depth = num_ret if k is None else np.minimum(num_ret, k)
    ranking = np.full(int(depth.sum()), np.nan)
    start = np.cumsum(depth) - depth
    shown = ranked.position <= depth[ranked.group]
    ranking[start[ranked.group[shown]] + ranked.position[shown] - 1] = ranked.label[shown]
    judged_order = np.argsort(ranked.judged_group, kind="stable")
    judged_labels = ranked.judged_label[judged_order]
    judged_start = np.searchsorted(ranked.judged_group[judged_order], np.arange(ranked.n_groups))
    judged_end = np.r_[judged_start[1:], len(judged_labels)]
    ranking.flags.writeable = False  # each query's function sees views of these:
    judged_labels.flags.writeable = False  # one that wrote into them would change others
    out = np.empty(ranked.n_groups)
    options = values if k is None else {"k": k, **values}
    for group in range(ranked.n_groups):
        mine = ranking[start[group] : start[group] + depth[group]]
        judgments = judged_labels[judged_start[group] : judged_end[group]]
        try:
            value = function(mine, judgments, **options)
        except Exception as error:  # the user's code: name the query it failed for
            raise _failure(error, group) from error
        out[group] = _value(value, group)
    return out


def _param(name: str, default: Any) -> Param:
    """A parameter whose values must have the default's type."""
    if isinstance(default, Param):
        return default
    if name == "rel":
        msg = "rel= is every metric's parameter already (minimum label counted as relevant)"
        raise MetricError(msg)
    if isinstance(default, bool):
        return Param(name, default, boolean)
    if isinstance(default, int):
        return Param(name, default, integer_at_least(-(2**63)))
    if isinstance(default, float):
        return Param(name, default, _number)
    if isinstance(default, str):
        return Param(name, default, _text)
    msg = (
        f"parameter {name}= has a default of type {type(default).__name__}; use a number, "
        "True/False or a string, or declare a pdireval.metrics.Param with its own check"
    )
    raise MetricError(msg)


def _number(name: str, value: Any) -> int | float:
    if isinstance(value, bool) or not isinstance(value, int | float | np.number):
        msg = f"parameter {name}= must be a number, got {value!r}"
        raise MetricError(msg)
    return plain_number(value)  # 2.0 and 2 give one label


def _text(name: str, value: Any) -> str:
    if not isinstance(value, str):
        msg = f"parameter {name}= must be a string, got {value!r}"
        raise MetricError(msg)
    return value
