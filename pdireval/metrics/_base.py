"""Declared metric families, concrete metrics and the registry that names them.

A :class:`Family` is declared once per measure (name, parameters with defaults,
whether it takes a cutoff, kernel, docstring). Calling a family with parameters
or applying ``@ k`` gives a :class:`Metric`, the hashable value every metric name
normalises to; its :attr:`Metric.label` is the canonical result column name.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, Literal

import numpy as np

from pdireval._core.errors import MetricError
from pdireval._prepare.ranked import Ranked

__all__ = ["REGISTRY", "Family", "Metric", "Param", "TrecMeasure", "register"]

Kernel = Callable[..., np.ndarray]
Cutoff = Literal["required", "optional", "none"]
CutoffKind = Literal["rank", "recall"]


@dataclass(frozen=True)
class Param:
    """A metric parameter: name, default, and a function that checks and normalises values."""

    name: str
    default: Any
    check: Callable[[str, Any], Any]
    doc: str = ""
    show: Callable[[Any], str] = repr


def integer_at_least(minimum: int) -> Callable[[str, Any], int]:
    """Parameter check: a whole number >= ``minimum``."""

    def check(name: str, value: Any) -> int:
        if isinstance(value, bool) or not isinstance(value, int | np.integer) or value < minimum:
            msg = f"parameter {name}= must be a whole number >= {minimum}, got {value!r}"
            raise MetricError(msg)
        return int(value)

    return check


def number_above(minimum: float) -> Callable[[str, Any], float]:
    """Parameter check: a real number > ``minimum``."""

    def check(name: str, value: Any) -> float:
        if isinstance(value, bool) or not isinstance(value, int | float | np.number):
            msg = f"parameter {name}= must be a number > {minimum}, got {value!r}"
            raise MetricError(msg)
        if not value > minimum:
            msg = f"parameter {name}= must be > {minimum}, got {value!r}"
            raise MetricError(msg)
        return plain_number(value)

    return check


def plain_number(value: float | np.number) -> int | float:
    """``10.0`` -> ``10`` and ``np.float64(0.5)`` -> ``0.5``: equal values get equal labels."""
    value = float(value)
    return int(value) if value.is_integer() else value


def boolean(name: str, value: Any) -> bool:
    """Parameter check: True or False."""
    if not isinstance(value, bool | np.bool_):
        msg = f"parameter {name}= must be True or False, got {value!r}"
        raise MetricError(msg)
    return bool(value)


#: trec_eval's default cutoffs of P, recall, map_cut, ndcg_cut and relative_P.
TREC_CUTOFFS: tuple[int, ...] = (5, 10, 15, 20, 30, 100, 200, 500, 1000)


@dataclass(frozen=True)
class TrecMeasure:
    """One trec_eval measure a family computes, declared on the family.

    Parameters
    ----------
    name : str
        trec_eval's name, e.g. ``"map_cut"``.
    spelled : str
        The pdireval name; ``{}`` stands for trec_eval's parameter (``"AP@{}"``).
    defaults : tuple
        trec_eval's default parameters (its cutoffs or recall levels; for ``"value"``
        its one number, for ``"values"`` one tuple of its numbers).
    parameter : {"none", "cutoffs", "levels", "value", "values", "pairs"}
        What ``name.x,y`` takes: nothing, whole cutoffs (read as C's atol), recall
        levels (atof, printed with two decimals), one number that changes the value
        (set_F's x), several numbers in a fixed order that fill the ``{}`` of
        ``spelled`` in turn (utility's ``a,b,c,d``, atof each), or ``name=value`` pairs
        (ndcg's ``level=gain``, rbp's ``p=``), or a list of numbers as given (11pt_avg's
        recall levels). With the last four, trec_eval prints the measure as
        ``name_<parameters as typed>``.
    summary : {"mean", "sum", "gmean"}
        How trec_eval aggregates it over queries.
    leveled : bool
        Whether trec_eval's ``-l`` (relevance level) applies.

    Examples
    --------
    >>> from pdireval.metrics import AP
    >>> [(m.name, m.spelled) for m in AP.trec_eval]
    [('map', 'AP'), ('gm_map', 'AP'), ('map_cut', 'AP@{}')]
    >>> AP.trec_eval[2].key(10)
    'map_cut_10'
    >>> from pdireval.metrics import Utility
    >>> Utility.trec_eval[0].metric_name((2.0, -1.0, 0.0, 0.5))
    'Utility(a=2.0, b=-1.0, c=0.0, d=0.5)'
    """

    name: str
    spelled: str
    defaults: tuple[float | tuple[float, ...], ...] = ()
    parameter: Literal["none", "cutoffs", "levels", "value", "values", "pairs", "list"] = "none"
    summary: Literal["mean", "sum", "gmean"] = "mean"
    leveled: bool = True

    def key(self, value: float | tuple[float, ...] | None = None) -> str:
        """trec_eval's printed name for one parameter value, e.g. ``P_10`` (a measure
        that takes a value, values or pairs prints as ``name_<parameters as typed>``,
        which only the command line knows: here, its name).
        """
        if value is not None and self.parameter == "pairs":
            msg = f"trec_eval measure {self.name!r} takes name=value pairs, got {value!r}"
            raise MetricError(msg)
        together = self.parameter in ("values", "list")
        if value is not None and together != isinstance(value, tuple):
            many = "its numbers together" if together else "one number"
            msg = f"trec_eval measure {self.name!r} takes {many} per value, got {value!r}"
            raise MetricError(msg)
        if value is None or isinstance(value, tuple) or self.parameter in ("none", "value"):
            return self.name
        if self.parameter == "levels":
            return f"{self.name}_{value:.2f}"
        return f"{self.name}_{value:g}"

    def metric_name(self, value: float | tuple[float, ...] | None = None) -> str:
        """The pdireval name for one parameter value, e.g. ``P@10``."""
        if "{}" not in self.spelled:
            return self.spelled
        if self.parameter == "list":  # the numbers as given, or none: the family's default
            if value is None:
                return self.spelled.split("(")[0]
            return self.spelled.format(repr(tuple(value) if isinstance(value, tuple) else (value,)))
        if self.parameter == "values":  # None: trec_eval's defaults
            values = value if value is not None else self.defaults[0]
            return self.spelled.format(
                *map(repr, values if isinstance(values, tuple) else (values,))
            )
        if isinstance(value, tuple):
            msg = f"trec_eval measure {self.name!r} takes one number per value, got {value!r}"
            raise MetricError(msg)
        return self.spelled.format(repr(value) if self.parameter == "value" else f"{value:g}")


#: ir_measures' ``judged_only=True``: evaluate the ranking without its unjudged documents
#: (trec_eval's -J for one metric); the families ir_measures accepts it for take it.
JUDGED_ONLY = Param(
    "judged_only", False, boolean, "evaluate the ranking with its unjudged documents removed"
)

#: Rewrites another tool's parameter spellings: returns the family to use and its params.
Synonyms = Callable[[dict[str, Any]], tuple[str, dict[str, Any]]]


def one_of(*choices: str) -> Callable[[str, Any], str]:
    """Parameter check: one of the given strings."""

    def check(name: str, value: Any) -> str:
        if value not in choices:
            msg = f"parameter {name}= must be one of {list(choices)}, got {value!r}"
            raise MetricError(msg)
        return value

    return check


class Family:
    """A declared metric family such as precision (``P``) or nDCG.

    Parameters
    ----------
    name : str
        Canonical name, spelled as ir_measures spells it.
    kernel : callable
        ``kernel(ranked, k=..., **params)`` returning one float64 value per group.
    params : sequence of Param
        Parameters with their defaults; ``rel`` is shared by every family.
    cutoff : {"required", "optional", "none"}
        Whether ``@k`` must, may or must not be given.
    cutoff_kind : {"rank", "recall"}
        ``@k`` is a rank (a whole number >= 1) or a recall level (a number in [0, 1]).
    aliases : sequence of str
        Other names (case-insensitive), e.g. trec_eval names.
    cutoff_aliases : sequence of str
        Names that take the cutoff as a suffix, such as trec_eval's ``P_10``/``P.10``.
    presets : mapping of str to mapping, optional
        Names that mean the family with some parameters set, such as trec_eval's
        ``ndcg_rel`` for ``nDCG(rel_only=True)``.
    bounded : bool
        Whether every value lies in [0, 1].
    constraint : callable, optional
        Checks parameter values together; raises :class:`MetricError`.
    average_kernel : callable, optional
        The kernel of the expected value over every order of each group of tied
        scores (``ties="average"``), with the same signature as ``kernel``; families
        without one refuse that policy.
    needs : sequence of str
        Column roles the family reads besides query, doc, rel and rank/score (e.g.
        ``("known",)``); evaluating it on a frame without them is refused.
    whole_labels : bool
        Whether the family reads labels as whole grades (ERR's grade scale, ndeval's
        judgments): labels that are not whole numbers (``rel_threshold=``) are refused.
    needs_judgments : bool
        Whether a value needs the query's judgments (every relevance measure): under
        ``queries="all"`` an unjudged query is NaN. ``False`` for a measure of the run
        alone (``Latency``), which keeps its value there.
    doc : str
        One-paragraph description shown in ``help()`` and the README catalogue.
    """

    def __init__(
        self,
        name: str,
        kernel: Kernel,
        *,
        params: tuple[Param, ...] = (),
        cutoff: Cutoff = "none",
        cutoff_kind: CutoffKind = "rank",
        aliases: tuple[str, ...] = (),
        cutoff_aliases: tuple[str, ...] = (),
        presets: Mapping[str, Mapping[str, Any]] | None = None,
        bounded: bool = True,
        average_kernel: Kernel | None = None,
        constraint: Callable[[dict[str, Any]], None] | None = None,
        needs: tuple[str, ...] = (),
        whole_labels: bool = False,
        needs_judgments: bool = True,
        judged_only: bool = False,
        synonyms: Synonyms | None = None,
        trec_eval: tuple[TrecMeasure, ...] = (),
        doc: str = "",
    ) -> None:
        if judged_only:
            params = (*params, JUDGED_ONLY)
        self.name = name
        self.kernel = kernel
        self.needs_judgments = needs_judgments
        self.params = {param.name: param for param in params}
        self.synonyms = synonyms
        self.trec_eval = trec_eval
        self.cutoff = cutoff
        self.cutoff_kind = cutoff_kind
        self.aliases = aliases
        self.cutoff_aliases = cutoff_aliases
        self.presets = dict(presets or {})
        self.average_kernel = average_kernel
        self.bounded = bounded
        self.constraint = constraint
        self.needs = needs
        self.whole_labels = whole_labels
        self.__doc__ = doc

    def __repr__(self) -> str:
        return self.name

    def __call__(self, **params: Any) -> Metric:
        """Return the metric of this family with the given parameters (no cutoff yet)."""
        return self._metric(params, None)

    def __matmul__(self, k: float) -> Metric:
        return self._metric({}, k)

    @property
    def default(self) -> Metric:
        """The metric with every parameter at its default and no cutoff."""
        return self._metric({}, None)

    def _metric(self, params: Mapping[str, Any], k: float | None) -> Metric:
        if self.synonyms is not None:  # another tool's spelling of the same metric
            target, params = self.synonyms(dict(params))
            if target != self.name:
                return REGISTRY[target]._metric(params, k)
        spelled = "recall" if self.cutoff_kind == "recall" else "cutoff"
        if spelled in params and spelled not in self.params and self.cutoff != "none":
            params = dict(params)
            value = params.pop(spelled)
            if k is not None:
                msg = (
                    f"{self.name} is given its cutoff twice ({spelled}={value!r} and @{k}); "
                    f"give it once, e.g. {self.name}@{k}"
                )
                raise MetricError(msg)
            k = value
        unknown = sorted(set(params) - set(self.params))
        if unknown:
            import difflib

            close = difflib.get_close_matches(unknown[0], list(self.params), n=1)
            hint = f"; did you mean {close[0]!r}?" if close else ""
            msg = (
                f"{self.name} has no parameter {unknown[0]!r} "
                f"(parameters: {list(self.params)}){hint}"
            )
            raise MetricError(msg)
        values = tuple(
            (name, param.check(name, params[name]) if name in params else param.default)
            for name, param in self.params.items()
        )
        if self.constraint is not None:
            self.constraint(dict(values))
        metric = Metric(self, values, None)
        return metric.at(k) if k is not None else metric


@dataclass(frozen=True)
class Metric:
    """One concrete metric: a family, its parameter values and an optional cutoff ``k``.

    Metrics are hashable and compare by value, so names that mean the same metric
    (``"map"``, ``"AP"``, ``AP()``) collapse to one result column.

    Examples
    --------
    >>> from pdireval.metrics import P, nDCG
    >>> (P @ 10).label, P(rel=2) @ 5, nDCG(gain="exp") @ 10
    ('P@10', P(rel=2)@5, nDCG(gain='exp')@10)
    """

    family: Family
    params: tuple[tuple[str, Any], ...]
    k: int | float | None  # a rank (int) or, for recall-level families, a level

    def __post_init__(self) -> None:
        if self.k is None:
            return
        if self.family.cutoff_kind == "recall":
            number = not isinstance(self.k, bool) and isinstance(self.k, int | float | np.number)
            if not number or not 0 <= self.k <= 1:
                msg = (
                    f"the cutoff of {self.family.name} is a recall level between 0 and 1, "
                    f"got {self.k!r} (e.g. {self.family.name}@0.5)"
                )
                raise MetricError(msg)
            object.__setattr__(self, "k", float(self.k))
        elif isinstance(self.k, bool) or not isinstance(self.k, int | np.integer) or self.k < 1:
            msg = f"the cutoff of {self.family.name} must be a whole number >= 1, got {self.k!r}"
            raise MetricError(msg)
        if self.family.cutoff == "none":
            msg = f"{self.family.name} takes no cutoff; use {self.family.name} without @{self.k}"
            raise MetricError(msg)

    def at(self, k: float) -> Metric:
        """Return this metric with cutoff ``k``."""
        return Metric(self.family, self.params, k)

    def __matmul__(self, k: float) -> Metric:
        return self.at(k)

    @property
    def parameters(self) -> dict[str, Any]:
        """Parameter values by name, defaults included."""
        return dict(self.params)

    @property
    def label(self) -> str:
        """Canonical label: ``Name(non-default params)@k``."""
        shown = [
            f"{name}={self.family.params[name].show(value)}"
            for name, value in self.params
            if value != self.family.params[name].default
        ]
        text = self.family.name + (f"({', '.join(shown)})" if shown else "")
        return text + (f"@{self.k}" if self.k is not None else "")

    def __repr__(self) -> str:
        return self.label

    __str__ = __repr__

    def validate(self) -> Metric:
        """Raise :class:`MetricError` when a required cutoff is missing."""
        if self.k is None and self.family.cutoff == "required":
            msg = f"{self.family.name} needs a cutoff: write {self.label}@k, e.g. {self.label}@10"
            raise MetricError(msg)
        return self

    def compute(self, ranked: Ranked, *, average: bool = False) -> np.ndarray:
        """Return one float64 value per group of ``ranked``.

        With ``average``, the expected value over every order of each group of tied
        scores (``ties="average"``).
        """
        kernel = self.family.kernel
        if average:
            if self.family.average_kernel is None:
                supported = sorted(n for n, f in REGISTRY.items() if f.average_kernel is not None)
                msg = (
                    f"ties='average' is not available for {self.label}; it is for {supported} "
                    "-- use ties='trec', 'optimistic' or 'pessimistic'"
                )
                raise MetricError(msg)
            kernel = self.family.average_kernel
        parameters = self.parameters
        if parameters.pop(JUDGED_ONLY.name, False):
            ranked = ranked.judged_only()
        return self._checked(kernel(ranked, k=self.k, **parameters), ranked.n_groups)

    def _checked(self, values: Any, n_groups: int) -> np.ndarray:
        """A kernel's result as float64, one value per group: numbers (or True/False),
        finite or NaN -- never a value broadcast to every query, a string converted, or
        an infinity passed on.
        """
        whose = "your kernel" if getattr(self.family, "user_defined", False) else "the kernel"
        array = values if isinstance(values, np.ndarray) else None
        if array is None or array.ndim != 1 or len(array) != n_groups:
            found = (
                f"an array of shape {array.shape}" if array is not None else type(values).__name__
            )
            msg = (
                f"{whose} of {self.label} returned {found}; it must return a 1-D numpy array "
                f"of one number per (run, query) group ({n_groups} here), e.g. from np.bincount "
                "(..., minlength=ranked.n_groups)"
            )
            raise MetricError(msg)
        if array.dtype.kind not in "biuf":
            msg = (
                f"{whose} of {self.label} returned values of dtype {array.dtype}; it must "
                "return numbers (float64), not strings or objects"
            )
            raise MetricError(msg)
        out = np.array(array, dtype=np.float64)  # a copy: nothing of the kernel's is shared
        if np.isinf(out).any():
            row = int(np.flatnonzero(np.isinf(out))[0])
            msg = (
                f"{whose} of {self.label} returned an infinite value (group {row}); a value "
                "is a finite number, or NaN where it is undefined"
            )
            raise MetricError(msg)
        return out


#: Every registered family by canonical name.
REGISTRY: dict[str, Family] = {}


def register(family: Family) -> Family:
    """Add ``family`` to the registry (once) and return it."""
    if family.name in REGISTRY:
        msg = f"metric family {family.name!r} is registered twice"
        raise MetricError(msg)
    REGISTRY[family.name] = family
    return family


def rel_param() -> Param:
    """The ``rel=`` parameter shared by every family: minimum label counted as relevant."""
    return Param(
        "rel",
        1,
        integer_at_least(0),
        "minimum relevance label counted as relevant (trec_eval -l); negative labels never count",
    )
