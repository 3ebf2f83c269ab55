"""The options of evaluating calls, declared once.

Every keyword option shared by pdireval's functions -- the evaluation options
(``queries``, ``ties``, ...), the significance options (``baseline``, ``test``, ...) and
``risk_alpha`` -- is declared here as an :class:`Option`: its name, default, the type
as the documentation spells it, its description and its check. From that one
declaration come

* the options' validation into the frozen :class:`Evaluation` and :class:`Significance`
  objects that travel down to the engine (a misspelt option gets a did-you-mean, an
  ill-typed one a :class:`~pdireval.ParameterError` naming it, whatever was called);
* the keyword parameters that ``help()``, IDEs and the API reference show for every
  function decorated with :func:`takes` (which itself takes ``**options``);
* the "Other Parameters" entries of those functions' docstrings.

Adding an option is one :class:`Option` here, the field of the frozen object it lives
in, its key in :class:`pdireval.typing.EvaluationOptions` (for type checkers), and tests;
``tests/core/test_options.py`` checks that the four agree.
"""

from __future__ import annotations

import difflib
import functools
import inspect
import re
import textwrap
from collections.abc import Callable, Hashable, Mapping, Sequence
from dataclasses import dataclass, field, fields
from typing import Any, TypeVar, cast, get_args

import numpy as np
import pandas as pd

from pdireval._core.errors import ParameterError, SchemaError
from pdireval._core.frames import as_pandas
from pdireval._core.ids import same_kind
from pdireval._core.roles import ResolvedColumns, as_column_map
from pdireval.typing import ColumnsLike, Correction, QueryPolicy, Test, TiePolicy, TrecEvalVersion

__all__ = [
    "COMPARISON",
    "EVALUATION",
    "RISK",
    "SIGNIFICANCE",
    "Evaluation",
    "Option",
    "Qrels",
    "Significance",
    "check",
    "comparison_options",
    "excluding",
    "judgments_of",
    "level",
    "resamples",
    "split_options",
    "takes",
]

QUERY_POLICIES: tuple[str, ...] = get_args(QueryPolicy)
TIE_POLICIES: tuple[str, ...] = get_args(TiePolicy)
#: The trec_eval versions whose numbers pdireval gives (``trec_eval_version=``).
TREC_EVAL_VERSIONS: tuple[str, ...] = get_args(TrecEvalVersion)
TESTS: tuple[str, ...] = get_args(Test)
CORRECTIONS: tuple[str, ...] = get_args(Correction)


# --------------------------------------------------------------------------- checks


def _choice(choices: tuple[str, ...], *, none: bool = False) -> Callable[[str, Any], Any]:
    def check(name: str, value: Any) -> Any:
        if none and value is None:
            return None
        if not isinstance(value, str) or value not in choices:
            also = " or None" if none else ""
            close = difflib.get_close_matches(str(value), choices, n=1)
            hint = f"; did you mean {close[0]!r}?" if close else ""
            msg = f"{name}={value!r} is not supported{hint} (use one of {list(choices)}{also})"
            raise ParameterError(msg)
        return value

    return check


def _flag(name: str, value: Any) -> bool:
    if not isinstance(value, bool | np.bool_):
        msg = f"{name}= must be True or False, got {value!r} ({type(value).__name__})"
        raise ParameterError(msg)
    return bool(value)


def whole(name: str, value: Any, minimum: int, *, optional: bool = False) -> int | None:
    """``value`` as an int >= ``minimum`` (or None when ``optional``), else
    :class:`~pdireval.ParameterError`.
    """
    if optional and value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int | np.integer) or value < minimum:
        also = " (or None for no limit)" if optional else ""
        msg = f"{name}={value!r} must be a whole number >= {minimum}{also}"
        raise ParameterError(msg)
    return int(value)


def _max_rank(name: str, value: Any) -> int | None:
    return whole(name, value, 1, optional=True)


def _threshold(name: str, value: Any) -> float | None:
    if value is None:
        return None
    number = not isinstance(value, bool) and isinstance(value, int | float | np.number)
    if not number or not np.isfinite(value) or value < 0:
        msg = (
            f"{name}={value!r} must be a finite number >= 0 (the smallest label "
            "counted as relevant, e.g. 0.5 for probabilities), or None"
        )
        raise ParameterError(msg)
    return float(value)


def level(name: str, value: Any) -> float:
    """``value`` as a float strictly between 0 and 1, else :class:`~pdireval.ParameterError`."""
    number = not isinstance(value, bool) and isinstance(value, int | float | np.number)
    if not number or not 0 < float(value) < 1:
        msg = f"{name}={value!r} must be a number strictly between 0 and 1 (e.g. 0.05 or 0.95)"
        raise ParameterError(msg)
    return float(value)


def resamples(value: Any, name: str = "n_resamples") -> int:
    """A number of resamples (a whole number >= 1), else :class:`~pdireval.ParameterError`."""
    return int(whole(name, value, 1))  # type: ignore[arg-type]


def _resamples(name: str, value: Any) -> int:
    return resamples(value, name)


def _baseline(name: str, value: Any) -> Any:
    if value is None or (isinstance(value, Hashable) and not isinstance(value, tuple)):
        return value
    if isinstance(value, list | tuple):
        return tuple(value)
    msg = f"{name}={value!r} must be a run id, a list of run ids or None"
    raise ParameterError(msg)


def _seed(name: str, value: Any) -> Any:
    return value  # checked where resamples are drawn (a SeedSequence is welcome)


def _risk_alpha(name: str, value: Any) -> float | None:
    if value is None:
        return None
    number = not isinstance(value, bool) and isinstance(value, int | float | np.number)
    if not number or not np.isfinite(float(value)) or float(value) < 0:
        msg = f"{name}={value!r} must be a number >= 0 (e.g. 1, 2 or 5), or None"
        raise ParameterError(msg)
    return float(value)


def as_given(name: str, value: Any) -> Any:
    return value  # checked with the option it belongs to (qrels with qrels_columns)


# --------------------------------------------------------------------------- declarations


@dataclass(frozen=True)
class Option:
    """One keyword option: name, default, the type as documented, description and check.

    ``check(name, value)`` returns the value as stored, or raises
    :class:`~pdireval.ParameterError` saying what is wrong and what is allowed.
    """

    name: str
    default: Any
    spelled: str
    doc: str
    check: Callable[[str, Any], Any]

    def entry(self, indent: str) -> str:
        """The option as a numpydoc parameter entry."""
        head = f"{indent}{self.name} : {self.spelled}"
        body = textwrap.fill(
            " ".join(self.doc.split()),
            width=88,
            initial_indent=f"{indent}    ",
            subsequent_indent=f"{indent}    ",
            break_on_hyphens=False,
            break_long_words=False,
        )
        return f"{head}\n{body}"


EVALUATION: tuple[Option, ...] = (
    Option(
        "queries",
        "judged",
        '{"judged", "retrieved", "all"}, default "judged"',
        """``"judged"``: every query with at least one judgment, those that retrieved
nothing scoring 0 (``trec_eval -c``); ``"retrieved"``: judged queries that retrieved
something (plain ``trec_eval``); ``"all"``: also unjudged queries, their values NaN
(a measure of the run alone, such as ``Latency``, keeps its value).""",
        _choice(QUERY_POLICIES),
    ),
    Option(
        "ties",
        "trec",
        '{"trec", "optimistic", "pessimistic", "average"}, default "trec"',
        """How documents with equal scores are ordered (a rank column is always used as
given): ``"trec"`` doc id descending (trec_eval); ``"optimistic"`` / ``"pessimistic"``
higher / lower labels first inside each group of equal scores; ``"average"`` the exact
expected value over every order of each group (McSherry & Najork 2008), for P, R, AP,
RR, DCG, CG and nDCG (with or without ``@k``).""",
        _choice(TIE_POLICIES),
    ),
    Option(
        "max_rank",
        None,
        "int, optional",
        """Evaluate only the top ``max_rank`` documents of each ranking (``trec_eval -M``).""",
        _max_rank,
    ),
    Option(
        "judged_only",
        False,
        "bool, default False",
        """Drop the retrieved documents without a judgment (no label, or a negative one)
and rank the rest again, after ``max_rank`` (``trec_eval -J``).""",
        _flag,
    ),
    Option(
        "ignore_self",
        False,
        "bool, default False",
        """Leave out of each ranking the document whose id equals the query id, and rank
the rest again, before ``max_rank`` (BEIR's ``ignore_identical_ids``: in ArguAna and
Quora the queries are documents of the collection too, and each would find itself).
Judgments are kept: a judged document equal to its query counts as judged but not
retrieved. Ids are compared as text.""",
        _flag,
    ),
    Option(
        "rel_threshold",
        None,
        "float, optional",
        """Labels need not be whole numbers (averaged grades, LLM probabilities): the
smallest label counted as relevant, for every measure -- it takes the place of the
measures' ``rel=`` (which must then be left at its default). Binary measures count
labels ``>= rel_threshold``; graded ones (nDCG, DCG) give those labels their gain (the
label itself by default) and the others none. Measures that read labels as whole grades
(ERR, the diversity measures, a ``gain=`` mapping) refuse fractional labels. ``None``
(default): labels are whole numbers.""",
        _threshold,
    ),
    Option(
        "validate",
        True,
        "bool, default True",
        """Check the frame (null ids, duplicate documents, ranks, labels). Turn off only
for frames already validated, e.g. in a tight loop.""",
        _flag,
    ),
    Option(
        "trec_eval_version",
        "9.0.8",
        '{"9.0.8", "10.0"}, default "9.0.8"',
        """Whose numbers the measures give where trec_eval's versions differ: trec_eval 10.0
turns a recall level r into a number of relevant documents by rounding r R, 9.0.8 by
``floor(r R + 0.9)``, which changes interpolated precision (``IPrec@r``) and its average
(``iAP``, ``11pt_avg``) on some queries. The default is 9.0.8's rule, that of
pytrec_eval, ir_measures and most published results; ``"10.0"`` matches a trec_eval
10.0 program.""",
        _choice(TREC_EVAL_VERSIONS),
    ),
    Option(
        "qrels",
        None,
        "DataFrame or mapping of judge name to DataFrame, optional",
        """Judgments (query, doc, rel) for a frame that is a run without labels: the run
is matched against them as :func:`pdireval.merge_qrels` would merge it -- same checks,
same numbers -- without building the merged frame. A mapping ``{judge: qrels}``, or a
judge column, gives one result per judge.""",
        as_given,
    ),
    Option(
        "qrels_columns",
        None,
        "ColumnMap or dict, optional",
        """Column roles of ``qrels`` (defaults and synonyms otherwise).""",
        as_given,
    ),
)

SIGNIFICANCE: tuple[Option, ...] = (
    Option(
        "baseline",
        None,
        "run id, list of run ids, or None",
        """One run: every other run is compared to it. A list: each listed run in turn (a
pair already compared is not repeated in reverse). ``None`` (default): all pairs in the
runs' order (the order they first appear in the frame, or a categorical's categories),
the earlier run of each pair its baseline.""",
        _baseline,
    ),
    Option(
        "test",
        "t",
        '{"t", "wilcoxon", "sign", "permutation", "bootstrap"}, default "t"',
        """Two-sided paired test of the per-query differences ``run - baseline``: ``"t"``
Student's paired t-test (as ``scipy.stats.ttest_rel``); ``"wilcoxon"`` the signed-rank
test (``scipy.stats.wilcoxon`` with its defaults: zero differences dropped); ``"sign"``
the exact binomial sign test over wins and losses (ties dropped); ``"permutation"`` a
paired randomisation test (``n_resamples`` random sign flips of the differences);
``"bootstrap"`` the shift-method bootstrap test of the mean difference (``n_resamples``
resamples of the queries).""",
        _choice(TESTS),
    ),
    Option(
        "correction",
        "holm",
        '{"holm", "bonferroni", "fdr_bh"} or None, default "holm"',
        """Multiple-comparison adjustment applied across every comparison of the call
(pairs x metrics): Holm's step-down, Bonferroni, or Benjamini-Hochberg false discovery
rate. ``None`` leaves the p-values as they are.""",
        _choice(CORRECTIONS, none=True),
    ),
    Option(
        "alpha",
        0.05,
        "float, default 0.05",
        """A comparison is significant when its adjusted p-value is below ``alpha``; the
intervals have level ``1 - alpha``.""",
        level,
    ),
    Option(
        "n_resamples",
        10_000,
        "int, default 10000",
        """Resamples of the permutation and bootstrap tests.""",
        _resamples,
    ),
    Option(
        "seed",
        None,
        "int or numpy SeedSequence, optional",
        """Seed of the resampling tests: with a seed their results are reproducible; each
metric uses the same resamples, so a comparison's p-value does not depend on the others
in the call.""",
        _seed,
    ),
)

RISK: tuple[Option, ...] = (
    Option(
        "risk_alpha",
        None,
        "float, optional",
        """Adds the risk-sensitive columns ``urisk`` and ``trisk`` (Dinçer, Macdonald &
Ounis 2014): the mean per-query difference with losses counted ``1 + risk_alpha``
times, and its t statistic; see :func:`pdireval.risk`.""",
        _risk_alpha,
    ),
)

#: The options of :func:`pdireval.compare` and :func:`pdireval.report` beyond evaluation.
COMPARISON: tuple[Option, ...] = SIGNIFICANCE + RISK


def excluding(declared: Sequence[Option], *names: str) -> tuple[Option, ...]:
    """``declared`` without the options called ``names`` (a function that fixes them)."""
    return tuple(option for option in declared if option.name not in names)


def _checked(declared: Sequence[Option], options: Mapping[str, Any]) -> dict[str, Any]:
    """The declared options' values (the given one, else the default), each checked."""
    refuse_unknown(options, [option.name for option in declared])
    return {
        option.name: option.check(option.name, options.get(option.name, option.default))
        for option in declared
    }


def check(name: str, value: Any) -> Any:
    """One declared option's value, checked (e.g. ``check("risk_alpha", 2)``)."""
    for option in (*EVALUATION, *COMPARISON):
        if option.name == name:
            return option.check(name, value)
    msg = f"no option is named {name!r}"
    raise ParameterError(msg)


def refuse_unknown(options: Mapping[str, Any], known: Sequence[str]) -> None:
    """Refuse a keyword that is no option, suggesting the closest one."""
    unknown = [name for name in options if name not in known]
    if unknown:
        close = difflib.get_close_matches(unknown[0], known, n=1)
        hint = f"; did you mean {close[0]!r}?" if close else ""
        msg = f"unknown option {unknown[0]!r}{hint} (options: {list(known)})"
        raise ParameterError(msg)


# --------------------------------------------------------------------------- frozen objects


@dataclass(frozen=True, slots=True)
class Qrels:
    """Judgments given next to a run (``qrels=``): the frame and its column roles
    (resolved once, when the options are checked);
    ``check_overlap``: refuse a run that shares no query or document with them (a part
    of a call of several is checked with the others, see ``pdireval.engine.parts``).
    """

    frame: pd.DataFrame
    roles: ResolvedColumns
    check_overlap: bool = True


@dataclass(frozen=True, slots=True)
class Evaluation:
    """How one evaluating call ranks, cuts and reports: the evaluation options.

    Build it with :meth:`from_options`, which checks every value (:data:`EVALUATION`).
    ``qrels`` holds the judgments given next to a run (``qrels=``, ``qrels_columns=``);
    the options proper (:meth:`as_options`) leave it out.
    """

    queries: str = "judged"
    ties: str = "trec"
    max_rank: int | None = None
    judged_only: bool = False
    ignore_self: bool = False
    rel_threshold: float | None = None
    validate: bool = True
    trec_eval_version: str = "9.0.8"
    qrels: Qrels | None = field(default=None, compare=False, repr=False)

    @classmethod
    def from_options(cls, options: Mapping[str, Any]) -> Evaluation:
        """Check keyword options (names and values) and freeze them."""
        values = _checked(EVALUATION, options)
        qrels = _qrels(values.pop("qrels"), values.pop("qrels_columns"))
        evaluation = cls(**values, qrels=qrels)
        if evaluation.ties == "average" and (
            evaluation.max_rank is not None or evaluation.judged_only
        ):
            msg = (
                "ties='average' cannot be combined with max_rank= or judged_only= (they cut "
                "or re-rank a ranking whose tied documents have no fixed order); use "
                "ties='trec', 'optimistic' or 'pessimistic' with them"
            )
            raise ParameterError(msg)
        return evaluation

    def as_options(self) -> dict[str, Any]:
        """The options as keywords, e.g. to record them in a report (qrels left out)."""
        return {f.name: getattr(self, f.name) for f in fields(self) if f.name != "qrels"}


@dataclass(frozen=True, slots=True)
class Significance:
    """How runs are compared: baseline, test, correction, level and resampling
    (:data:`SIGNIFICANCE`).
    """

    baseline: Any = None
    test: str = "t"
    correction: str | None = "holm"
    alpha: float = 0.05
    n_resamples: int = 10_000
    seed: Any = None

    @classmethod
    def from_options(cls, options: Mapping[str, Any]) -> Significance:
        """Check keyword options (names and values) and freeze them."""
        return cls(**_checked(SIGNIFICANCE, options))


def split_options(options: Mapping[str, Any]) -> tuple[Evaluation, Significance]:
    """Evaluation and significance options from one set of keywords, both checked."""
    refuse_unknown(options, [option.name for option in (*EVALUATION, *SIGNIFICANCE)])
    return (
        Evaluation.from_options(_only(EVALUATION, options)),
        Significance.from_options(_only(SIGNIFICANCE, options)),
    )


def comparison_options(
    options: Mapping[str, Any],
) -> tuple[Evaluation, Significance, float | None]:
    """The options of :func:`pdireval.compare`: evaluation, significance and
    ``risk_alpha``, all checked.
    """
    refuse_unknown(options, [option.name for option in (*EVALUATION, *COMPARISON)])
    evaluation, significance = split_options(_only((*EVALUATION, *SIGNIFICANCE), options))
    return evaluation, significance, _checked(RISK, _only(RISK, options))["risk_alpha"]


def _only(declared: Sequence[Option], options: Mapping[str, Any]) -> dict[str, Any]:
    names = _names(declared)
    return {name: value for name, value in options.items() if name in names}


def _names(declared: Sequence[Option]) -> frozenset[str]:
    return frozenset(option.name for option in declared)


# --------------------------------------------------------------------------- qrels=


def judgments_of(qrels: Any, columns: ColumnsLike = None) -> Any:
    """``qrels=`` as one frame: a mapping of judge name to judgments becomes one frame
    with a ``judge`` column (the judges in the mapping's order); anything else as it is.
    The judges' query and doc ids must be of one kind (``columns``: their roles). A
    polars frame or an Arrow table is turned into a pandas one.
    """
    qrels = as_pandas(qrels)
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
            raise ParameterError(msg)
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
            raise ParameterError(msg)
        return None
    if not isinstance(frame, pd.DataFrame):
        hint = (
            "; merge Dask frames with pdireval.dask.merge_qrels first"
            if type(frame).__module__.startswith("dask")
            else ""
        )
        msg = f"qrels= must be a pandas DataFrame of judgments, got {type(frame).__name__}{hint}"
        raise ParameterError(msg)
    return Qrels(frame, as_column_map(columns).resolve(frame))


# --------------------------------------------------------------------------- the decorator

_F = TypeVar("_F", bound=Callable[..., Any])
_PLACEHOLDER = re.compile(r"^(?P<indent>[ ]*)\*\*options\n(?:(?P=indent)[ ]{4}.*\n|\n)*", re.M)


def takes(*groups: Sequence[Option]) -> Callable[[_F], _F]:
    """Give a function that takes ``**options`` the declared options as its keywords.

    The decorated function keeps its behaviour; it gains the declared options as
    keyword parameters of its signature (what ``help()``, IDEs and the API reference
    show), an "Other Parameters" entry for each in its docstring (in place of the
    ``**options`` entry of its Parameters), and a did-you-mean for a misspelt keyword.
    The function itself turns ``options`` into frozen objects (``Evaluation.from_options``).

    Examples
    --------
    >>> @takes(EVALUATION)
    ... def count(frame, **options):
    ...     '''Count.
    ...
    ...     Parameters
    ...     ----------
    ...     **options
    ...         The evaluation options.
    ...     '''
    ...     return Evaluation.from_options(options).queries
    >>> count(None, queries="all")
    'all'
    >>> str(inspect.signature(count))[:44]
    "(frame, *, queries='judged', ties='trec', ma"
    >>> count(None, querie="all")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    pdireval.ParameterError: unknown option 'querie'; did you mean 'queries'? (options: ...
    """
    declared = [option for group in groups for option in group]

    def decorate(function: _F) -> _F:
        signature = inspect.signature(function)
        own = [p for p in signature.parameters.values() if p.kind is not p.VAR_KEYWORD]
        taken = {p.name for p in own}
        extra = [
            inspect.Parameter(o.name, inspect.Parameter.KEYWORD_ONLY, default=o.default)
            for o in declared
            if o.name not in taken
        ]
        accepted = frozenset(taken) | _names(declared)
        keywords = [p.name for p in own if p.kind is p.KEYWORD_ONLY] + [p.name for p in extra]

        @functools.wraps(function)
        def with_options(*args: Any, **kwargs: Any) -> Any:
            if not accepted.issuperset(kwargs):
                refuse_unknown({k: v for k, v in kwargs.items() if k not in accepted}, keywords)
            return function(*args, **kwargs)

        with_options.__signature__ = signature.replace(  # type: ignore[attr-defined]
            parameters=[*own, *extra]
        )
        with_options.__doc__ = documented(function.__doc__, declared)
        return cast(_F, with_options)

    return decorate


def documented(doc: str | None, declared: Sequence[Option]) -> str | None:
    """``doc`` with its ``**options`` entry replaced by an "Other Parameters" section
    documenting ``declared`` (placed before "Returns").
    """
    if not doc or "**options" not in doc:
        return doc
    match = _PLACEHOLDER.search(doc)
    if match is None:
        return doc
    indent = match.group("indent")
    doc = doc[: match.start()] + doc[match.end() :]
    entries = "\n".join(option.entry(indent) for option in declared)
    section = f"{indent}Other Parameters\n{indent}----------------\n{entries}\n\n"
    returns = re.search(rf"^{indent}Returns\n{indent}-------\n", doc, re.M)
    at = returns.start() if returns else len(doc)
    before = doc[:at].rstrip() + "\n\n"
    return before + section + (doc[at:] if returns else f"{indent}")
