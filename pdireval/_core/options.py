"""The options of an evaluating call, validated once into frozen objects.

Every public function that evaluates takes its options as keywords; they are turned
into an :class:`Evaluation` (and, for comparisons, a :class:`Significance`) at the
front door and travel as that one object down to the engine. A misspelt or
ill-typed option fails here, with the option's name, whatever function was called.
"""

from __future__ import annotations

import difflib
from collections.abc import Hashable, Mapping
from dataclasses import dataclass, field, fields
from typing import Any, get_args

import numpy as np
import pandas as pd

from pdireval._core.errors import MetricError, SchemaError
from pdireval.typing import Baseline, ColumnsLike, Correction, QueryPolicy, Test, TiePolicy

__all__ = ["Evaluation", "Qrels", "Significance", "split_options"]

QUERY_POLICIES: tuple[str, ...] = get_args(QueryPolicy)
TIE_POLICIES: tuple[str, ...] = get_args(TiePolicy)
TESTS: tuple[str, ...] = get_args(Test)
CORRECTIONS: tuple[str, ...] = get_args(Correction)


def _choice(name: str, value: Any, choices: tuple[str, ...], extra: str = "") -> Any:
    if not isinstance(value, str) or value not in choices:
        msg = f"{name}={value!r} is not supported; use one of {list(choices)}{extra}"
        raise MetricError(msg)
    return value


def _flag(name: str, value: Any) -> bool:
    if not isinstance(value, bool | np.bool_):
        msg = f"{name}= must be True or False, got {value!r} ({type(value).__name__})"
        raise MetricError(msg)
    return bool(value)


def _whole(name: str, value: Any, minimum: int, *, optional: bool = False) -> int | None:
    if optional and value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int | np.integer) or value < minimum:
        also = " (or None for no limit)" if optional else ""
        msg = f"{name}={value!r} must be a whole number >= {minimum}{also}"
        raise MetricError(msg)
    return int(value)


def _threshold(value: Any) -> float | None:
    if value is None:
        return None
    number = not isinstance(value, bool) and isinstance(value, int | float | np.number)
    if not number or not np.isfinite(value) or value < 0:
        msg = (
            f"rel_threshold={value!r} must be a finite number >= 0 (the smallest label "
            "counted as relevant, e.g. 0.5 for probabilities), or None"
        )
        raise MetricError(msg)
    return float(value)


@dataclass(frozen=True, slots=True)
class Qrels:
    """Judgments given next to a run (``qrels=``): the frame and its column roles;
    ``check_overlap``: refuse a run that shares no query or document with them (a part
    of a call of several is checked with the others, see ``pdireval.engine.parts``).
    """

    frame: pd.DataFrame
    columns: ColumnsLike = None
    check_overlap: bool = True


def judgments_of(qrels: Any, columns: ColumnsLike = None) -> Any:
    """``qrels=`` as one frame: a mapping of judge name to judgments becomes one frame
    with a ``judge`` column (the judges in the mapping's order); anything else as it is.
    The judges' query and doc ids must be of one kind (``columns``: their roles).
    """
    if not isinstance(qrels, Mapping):
        return qrels
    if not qrels:
        msg = "qrels= is an empty mapping; give one judgments frame per judge name"
        raise SchemaError(msg)
    frames = []
    for judge, frame in qrels.items():
        if not isinstance(frame, pd.DataFrame):
            msg = (
                "qrels= must be a pandas DataFrame of judgments, or a mapping of judge name "
                f"to one; qrels[{judge!r}] is a {type(frame).__name__}"
            )
            raise MetricError(msg)
        if "judge" in frame.columns:
            msg = (
                f"qrels[{judge!r}] already has a 'judge' column; give either a mapping of "
                "judge name to judgments, or one frame with a judge column"
            )
            raise SchemaError(msg)
        frames.append(frame.assign(judge=judge))
    _same_kinds(qrels, columns)
    order = pd.CategoricalDtype(list(qrels), ordered=True)
    joined = pd.concat(frames, ignore_index=True)
    return joined.assign(judge=joined["judge"].astype(order))


def _same_kinds(judges: Mapping[Any, pd.DataFrame], columns: ColumnsLike) -> None:
    """Refuse judges whose query or doc ids are of different kinds (numbers and strings)."""
    from pdireval._core.ids import same_kind
    from pdireval._core.roles import as_column_map

    resolved = {judge: as_column_map(columns).resolve(frame) for judge, frame in judges.items()}
    for role in ("query", "doc"):
        sides = [
            (f"the judgments of judge {judge!r}", frame[getattr(resolved[judge], role)])
            for judge, frame in judges.items()
            if getattr(resolved[judge], role) is not None and len(frame)
        ]
        same_kind(sides, role)


def _qrels(frame: Any, columns: Any) -> Qrels | None:
    frame = judgments_of(frame, columns)
    if frame is None:
        if columns is not None:
            msg = (
                "qrels_columns= names the columns of qrels=, which was not given; pass the "
                "judgments as qrels=..., or leave qrels_columns= out"
            )
            raise MetricError(msg)
        return None
    if not isinstance(frame, pd.DataFrame):
        hint = (
            "; merge Dask frames with pdireval.dask.merge_qrels first"
            if type(frame).__module__.startswith("dask")
            else ""
        )
        msg = f"qrels= must be a pandas DataFrame of judgments, got {type(frame).__name__}{hint}"
        raise MetricError(msg)
    return Qrels(frame, columns)


@dataclass(frozen=True, slots=True)
class Evaluation:
    """How one evaluating call ranks, cuts and reports: the evaluation options.

    Build it with :meth:`from_options`, which checks every value. ``qrels`` holds the
    judgments given next to a run (``qrels=``, ``qrels_columns=``); the options proper
    (:meth:`as_options`) leave it out.
    """

    queries: str = "judged"
    ties: str = "trec"
    max_rank: int | None = None
    judged_only: bool = False
    ignore_self: bool = False
    rel_threshold: float | None = None
    validate: bool = True
    qrels: Qrels | None = field(default=None, compare=False, repr=False)

    @classmethod
    def from_options(cls, options: Mapping[str, Any]) -> Evaluation:
        """Check keyword options (names and values) and freeze them."""
        _refuse_unknown(options, _names(cls))
        evaluation = cls(
            queries=_choice("queries", options.get("queries", "judged"), QUERY_POLICIES),
            ties=_choice("ties", options.get("ties", "trec"), TIE_POLICIES),
            max_rank=_whole("max_rank", options.get("max_rank"), 1, optional=True),
            judged_only=_flag("judged_only", options.get("judged_only", False)),
            ignore_self=_flag("ignore_self", options.get("ignore_self", False)),
            rel_threshold=_threshold(options.get("rel_threshold")),
            validate=_flag("validate", options.get("validate", True)),
            qrels=_qrels(options.get("qrels"), options.get("qrels_columns")),
        )
        if evaluation.ties == "average" and (
            evaluation.max_rank is not None or evaluation.judged_only
        ):
            msg = (
                "ties='average' cannot be combined with max_rank= or judged_only= (they cut "
                "or re-rank a ranking whose tied documents have no fixed order); use "
                "ties='trec', 'optimistic' or 'pessimistic' with them"
            )
            raise MetricError(msg)
        return evaluation

    def as_options(self) -> dict[str, Any]:
        """The options as keywords, e.g. to record them in a report (qrels left out)."""
        return {f.name: getattr(self, f.name) for f in fields(self) if f.name != "qrels"}


@dataclass(frozen=True, slots=True)
class Significance:
    """How runs are compared: test, correction, level and resampling."""

    baseline: Baseline = None
    test: str = "t"
    correction: str | None = "holm"
    alpha: float = 0.05
    n_resamples: int = 10_000
    seed: Any = None

    @classmethod
    def from_options(cls, options: Mapping[str, Any]) -> Significance:
        """Check keyword options (names and values) and freeze them."""
        _refuse_unknown(options, _names(cls))
        correction = options.get("correction", "holm")
        if correction is not None:
            _choice("correction", correction, CORRECTIONS, " or None")
        return cls(
            baseline=_baseline(options.get("baseline")),
            test=_choice("test", options.get("test", "t"), TESTS),
            correction=correction,
            alpha=level("alpha", options.get("alpha", 0.05)),
            n_resamples=resamples(options.get("n_resamples", 10_000)),
            seed=options.get("seed"),
        )


def level(name: str, value: Any) -> float:
    """``value`` as a float strictly between 0 and 1, else :class:`MetricError`."""
    number = not isinstance(value, bool) and isinstance(value, int | float | np.number)
    if not number or not 0 < float(value) < 1:
        msg = f"{name}={value!r} must be a number strictly between 0 and 1 (e.g. 0.05 or 0.95)"
        raise MetricError(msg)
    return float(value)


def resamples(value: Any) -> int:
    """A number of resamples (a whole number >= 1), else :class:`MetricError`."""
    return int(_whole("n_resamples", value, 1))  # type: ignore[arg-type]


def _baseline(value: Any) -> Baseline:
    if value is None or (isinstance(value, Hashable) and not isinstance(value, tuple)):
        return value
    if isinstance(value, list | tuple):
        return tuple(value)
    msg = f"baseline={value!r} must be a run id, a list of run ids or None"
    raise MetricError(msg)


def _names(cls: type) -> tuple[str, ...]:
    names = tuple(f.name for f in fields(cls))
    return (*names, "qrels_columns") if "qrels" in names else names


def _refuse_unknown(options: Mapping[str, Any], known: tuple[str, ...]) -> None:
    unknown = [name for name in options if name not in known]
    if unknown:
        close = difflib.get_close_matches(unknown[0], known, n=1)
        hint = f"; did you mean {close[0]!r}?" if close else ""
        msg = f"unknown option {unknown[0]!r} (options: {list(known)}){hint}"
        raise MetricError(msg)


def split_options(options: Mapping[str, Any]) -> tuple[Evaluation, Significance]:
    """Evaluation and significance options from one set of keywords, both checked."""
    evaluation_names = _names(Evaluation)
    significance_names = _names(Significance)
    _refuse_unknown(options, evaluation_names + significance_names)
    return (
        Evaluation.from_options({k: v for k, v in options.items() if k in evaluation_names}),
        Significance.from_options({k: v for k, v in options.items() if k in significance_names}),
    )
