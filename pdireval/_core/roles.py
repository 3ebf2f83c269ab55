"""Column roles of the long frame: defaults, ecosystem synonyms and resolution.

A long frame holds one row per (query, doc) pair that is retrieved and/or judged,
optionally per run. Each column plays a *role*; :class:`ColumnMap` says which
column plays which role. Roles left unset resolve to the roles recorded by
:func:`pdireval.merge_qrels` on the frame it built, else to the default column name
or, when that column is absent, to one of the common synonyms of the ecosystem.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, fields, replace
from typing import Any, Literal, NoReturn

import pandas as pd

from pdireval._core.errors import SchemaError
from pdireval._core.frames import foreign_kind

__all__ = [
    "ATTRS_KEY",
    "DEFAULT_COLUMNS",
    "NUGGET_ASSIGNMENTS",
    "NUGGET_IMPORTANCES",
    "PART_ROLES",
    "ROLES",
    "SUPPORT_GRADES",
    "SUPPORT_SPELLINGS",
    "SYNONYMS",
    "ColumnMap",
    "MergeRecord",
    "ResolvedColumns",
    "as_column_map",
    "check_frame",
    "one_at_a_time",
    "resolve",
]

ROLES = (
    "query",
    "doc",
    "rank",
    "rel",
    "score",
    "run",
    "known",
    "subtopic",
    "time",
    "judge",
    "collection",
    "seed",
    "nugget",
    "importance",
    "assignment",
    "sentence",
    "support",
)

#: The labels of a nugget frame's importance and assignment columns, in code order.
NUGGET_IMPORTANCES = ("okay", "vital")
NUGGET_ASSIGNMENTS = ("not_support", "partial_support", "support")

#: The support grades of a citation frame's support column, in code order (worst first).
SUPPORT_GRADES = ("no_support", "partial_support", "full_support")

#: The spellings of the support grades read as them (compared in lower case, with spaces
#: and hyphens read as underscores): the names above, the labels of the support judges
#: of the TREC 2024 RAG track ("Full Support", ...) and their abbreviations (FS, PS, NS).
SUPPORT_SPELLINGS: dict[str, str] = {
    **{grade: grade for grade in SUPPORT_GRADES},
    "fs": "full_support",
    "ps": "partial_support",
    "ns": "no_support",
}

#: Columns looked for, in order, when the default column of a role is absent.
SYNONYMS: dict[str, tuple[str, ...]] = {
    "query": ("qid", "query_id"),
    "doc": ("docno", "doc_id"),
    "rel": ("relevance", "label"),
    "run": ("system",),
    "subtopic": ("iteration", "intent", "subtopic_id"),
    "seed": ("fold",),
}

#: Key of ``DataFrame.attrs`` under which merge_qrels records the roles it used.
ATTRS_KEY = "pdireval"


class MergeRecord(dict):
    """What ``merge_qrels`` recorded on its result, under ``frame.attrs["pdireval"]``:
    the column roles it used and how the run's queries overlap the judged ones.

    Read-only all the way down, so that the frames pandas derives from the result share
    it instead of copying it: pandas deep-copies ``attrs`` whenever it makes a Series or
    frame from another (every column read), which for a dict of dicts costs more than
    many of the operations themselves. A plain ``dict`` when pickled, and plain JSON for
    ``to_parquet``.

    Examples
    --------
    >>> record = MergeRecord({"columns": {"query": "qid"}, "queries": {"run_only": ["q9"]}})
    >>> record["queries"]["run_only"]
    ('q9',)
    >>> import copy
    >>> copy.deepcopy(record) is record
    True
    """

    def __init__(self, record: Mapping[str, Any]) -> None:
        super().__init__({key: _read_only(value) for key, value in record.items()})

    def __deepcopy__(self, memo: dict[int, Any]) -> MergeRecord:
        return self

    def __reduce__(self) -> tuple[type[dict], tuple[dict[str, Any]]]:
        return dict, (_plain(self),)

    def _refuse(self, *args: Any, **kwargs: Any) -> NoReturn:
        msg = "merge_qrels' record is read-only; copy it with dict(...) to change it"
        raise TypeError(msg)

    __setitem__ = __delitem__ = _refuse
    update = pop = popitem = clear = setdefault = __ior__ = _refuse


def _read_only(value: Any) -> Any:
    if isinstance(value, Mapping):
        return MergeRecord(value)
    if isinstance(value, list | tuple):
        return tuple(_read_only(item) for item in value)
    return value


def _plain(value: Any) -> Any:
    if isinstance(value, Mapping):
        return {key: _plain(item) for key, item in value.items()}
    if isinstance(value, tuple):
        return [_plain(item) for item in value]
    return value


#: The roles whose columns split a frame into parts, in the order of their index levels.
PART_ROLES = ("judge", "collection", "seed")


def one_at_a_time(role: str, column: Any, where: str, values: list | None = None) -> str:
    """The one message of a call that takes one judge, collection or seed at a time, for
    a frame with such a column (``where``: which frame; ``values``: those it holds).

    Examples
    --------
    >>> print(one_at_a_time("collection", "dataset", "the frame", ["c1", "c2"]))
    ... # doctest: +NORMALIZE_WHITESPACE
    the frame has a collection column ('dataset' holding 2: ['c1', 'c2']), and this call
    evaluates one collection at a time: select one first, e.g. frame[frame['dataset'] ==
    'c1'], or pass collection=False in columns= when the column means something else
    """
    held, example = "", "..."
    if values:
        held = f" holding {len(values)}: {values[:5]}{' ...' if len(values) > 5 else ''}"
        example = repr(values[0])
    return (
        f"{where} has a {role} column ({column!r}{held}), and this call "
        f"evaluates one {role} at a time: select one first, e.g. frame[frame[{column!r}] == "
        f"{example}], or pass {role}=False in columns= when the column means something else"
    )


def resolve(frame: pd.DataFrame, columns: Any) -> ResolvedColumns:
    """The roles of ``frame``'s columns (``columns``: a :class:`ColumnMap`, a dict, None,
    or roles resolved already), found once, at the front door of a call.
    """
    if isinstance(columns, ResolvedColumns):
        return columns
    return as_column_map(columns).resolve(frame)


Column = str | Literal[False] | None


@dataclass(frozen=True)
class ColumnMap:
    """Which column of a frame plays which role.

    Parameters
    ----------
    query, doc, rank, rel, score, run, known, subtopic, time : str, False or None
        A column name; ``None`` (default) for the column named like the role
        (``"query"``, ``"doc"``, ...) or, when that is absent, a synonym
        (``qid``/``query_id``, ``docno``/``doc_id``, ``relevance``/``label``,
        ``system``, ``iteration``/``intent``/``subtopic_id``, ``fold``); ``False`` for
        "this frame has no such column" even if one of those names exists -- e.g.
        ``rank=False`` ranks by score although the frame has a rank column. ``known``
        flags documents the user already knew, ``subtopic`` the intent a judgment is for
        (diversity measures), ``time`` a run's processing time of each query
        (efficiency).
    judge, collection, seed : str, False or None
        As above. ``judge`` names the set of labels a judgment belongs to (human
        assessors, an LLM judge), ``collection`` the test collection a query belongs to
        (query ids are scoped by it), ``seed`` the repetition (seed or fold) of a run;
        each gives results an index level of its own.
    nugget, importance, assignment : str, False or None
        As above, for a nugget frame (generated answers judged by nuggets, see
        :func:`pdireval.nugget_scores`): the nugget's id or text, its importance
        (``vital``/``okay``) and the answer's support of it
        (``support``/``partial_support``/``not_support``).
    sentence, support : str, False or None
        As above, for a citation frame (generated answers judged by the support of
        their citations, see :func:`pdireval.citation_support`): the answer sentence's
        id and the support grade of the cited document (the ``doc`` role) for it
        (``full_support``/``partial_support``/``no_support``).

    Examples
    --------
    >>> ColumnMap().remap(query="qid", rel="label")
    ColumnMap(query='qid', doc=None, rank=None, rel='label', score=None, run=None, known=None,
              subtopic=None, time=None, judge=None, collection=None, seed=None, nugget=None,
              importance=None, assignment=None, sentence=None, support=None)
    """

    query: Column = None
    doc: Column = None
    rank: Column = None
    rel: Column = None
    score: Column = None
    run: Column = None
    known: Column = None
    subtopic: Column = None
    time: Column = None
    judge: Column = None
    collection: Column = None
    seed: Column = None
    nugget: Column = None
    importance: Column = None
    assignment: Column = None
    sentence: Column = None
    support: Column = None

    @classmethod
    def pyterrier(cls) -> ColumnMap:
        """The roles of PyTerrier's result frames: ids in ``qid``/``docno``, ranked by score.

        PyTerrier results carry the query *text* in ``query`` and the query id in
        ``qid``, and a 0-based ``rank`` derived from the scores. PyTerrier's own
        evaluation (through ir_measures and trec_eval) ranks by score with ties by doc id
        descending, so this mapping ignores the rank column to give the same numbers.

        Examples
        --------
        >>> import pandas as pd, pdireval
        >>> res = pd.DataFrame({"qid": ["1", "1"], "docno": ["d1", "d2"],
        ...                     "query": ["text", "text"], "score": [2.0, 1.0],
        ...                     "rank": [0, 1]})
        >>> qrels = pd.DataFrame({"qid": ["1"], "docno": ["d2"], "label": [1]})
        >>> merged = pdireval.merge_qrels(res, qrels, columns=ColumnMap.pyterrier())
        >>> merged.ireval.evaluate(["AP", "RR"])
        metric   AP   RR
        qid
        1       0.5  0.5
        """
        return cls(query="qid", doc="docno", rank=False)

    def remap(self, **names: Column) -> ColumnMap:
        """Return a copy with the given roles mapped to new column names (``None`` keeps)."""
        unknown = sorted(set(names) - set(ROLES))
        if unknown:
            msg = f"unknown column role(s) {unknown}; the roles are {list(ROLES)}"
            raise SchemaError(msg)
        for role, name in names.items():
            if not (name is None or name is False or isinstance(name, str)):
                msg = (
                    f"{role}={name!r}: give a column name (str), False for no such column, "
                    "or None for the default"
                )
                raise SchemaError(msg)
        return replace(self, **{role: name for role, name in names.items() if name is not None})

    def resolve(self, frame: pd.DataFrame) -> ResolvedColumns:
        """Find the column of each role in ``frame``; raise :class:`SchemaError` when unclear."""
        check_frame(frame)
        labels = frame.columns
        duplicated = (
            [] if labels.is_unique else sorted({str(c) for c in labels[labels.duplicated()]})
        )
        present = set(labels)
        recorded = _recorded_roles(frame, present)
        found: dict[str, str | None] = {}
        for field in fields(self):
            role, explicit = field.name, getattr(self, field.name)
            if explicit is None and role in recorded:
                explicit = recorded[role]
            if explicit is False:
                found[role] = None
            elif explicit is not None:
                if explicit not in present:
                    msg = (
                        f"column {explicit!r} given for role {role!r} is not in the frame "
                        f"(columns: {list(frame.columns)}); pass an existing column name"
                    )
                    raise SchemaError(msg)
                found[role] = explicit
            else:
                found[role] = _default_column(role, present)
        resolved = ResolvedColumns(**found)
        resolved.check_distinct(duplicated)
        return resolved


def _default_column(role: str, present: set[Any]) -> str | None:
    """The default column of ``role`` if present (it always wins), else its one synonym."""
    if role in present:
        return role
    candidates = [name for name in SYNONYMS.get(role, ()) if name in present]
    if len(candidates) > 1:
        msg = (
            f"columns {candidates} could both be the {role!r} column; choose one with "
            f"df.ireval({role}={candidates[0]!r}) or columns={{'{role}': {candidates[0]!r}}}"
        )
        raise SchemaError(msg)
    return candidates[0] if candidates else None


def _recorded_roles(frame: pd.DataFrame, present: set[Any]) -> dict[str, str | Literal[False]]:
    """The roles :func:`pdireval.merge_qrels` recorded on the frame it built, if present
    (``present``: the frame's column labels).
    """
    recorded = frame.attrs.get(ATTRS_KEY, {}).get("columns", {})
    return {
        role: name
        for role, name in recorded.items()
        if role in ROLES and (name is False or name in present)
    }


def check_frame(frame: object) -> None:
    """Refuse anything but a pandas DataFrame, saying what was given and what to do."""
    if isinstance(frame, pd.DataFrame):
        return
    kind = type(frame)
    module = kind.__module__.split(".")[0]
    if module.startswith("dask"):  # dask, and dask_expr before dask 2025
        fix = (
            "for dask DataFrames use the Dask backend: import pdireval.dask, then "
            "ddf.ireval.evaluate(...) or pdireval.dask.merge_qrels(...)"
        )
    elif isinstance(frame, pd.Series):
        fix = "pass the DataFrame the Series came from (or series.to_frame())"
    elif foreign_kind(frame):
        fix = (
            "the functions of pdireval (pdireval.evaluate, ...) take it as it is, and "
            "import pdireval.polars gives polars frames .ireval; here, convert it with "
            ".to_pandas()"
        )
    elif isinstance(frame, Mapping | list | tuple):
        fix = "build one first, e.g. pd.DataFrame(data)"
    else:
        fix = "pass a pandas DataFrame with query, doc, rank or score, and rel columns"
    msg = f"expected a pandas DataFrame, got {kind.__module__}.{kind.__qualname__}; {fix}"
    raise SchemaError(msg)


DEFAULT_COLUMNS = ColumnMap()


@dataclass(frozen=True)
class ResolvedColumns:
    """Actual column names found in one frame (``None``: the role is absent)."""

    query: str | None
    doc: str | None
    rank: str | None
    rel: str | None
    score: str | None
    run: str | None
    known: str | None
    subtopic: str | None
    time: str | None
    judge: str | None = None
    collection: str | None = None
    seed: str | None = None
    nugget: str | None = None
    importance: str | None = None
    assignment: str | None = None
    sentence: str | None = None
    support: str | None = None

    def roles(self) -> dict[str, str | None]:
        """Role -> column name (None for absent roles)."""
        return {field.name: getattr(self, field.name) for field in fields(self)}

    def explicit(self) -> ColumnMap:
        """A column map that resolves to exactly these columns in any frame with them."""
        return ColumnMap(
            **{r: (name if name is not None else False) for r, name in self.roles().items()}
        )

    def without_parts(self) -> ResolvedColumns:
        """These roles with judge, collection and seed switched off (one part of a frame)."""
        return replace(self, judge=None, collection=None, seed=None)

    def refuse_parts(self, where: str) -> None:
        """Refuse a judge, collection or seed column where a call takes one judge,
        collection and seed at a time (``where``: the frame's name in the message).
        """
        for role in PART_ROLES:
            column = getattr(self, role)
            if column is not None:
                raise SchemaError(one_at_a_time(role, column, where))

    def check_distinct(self, duplicated: list[str]) -> None:
        """Refuse a column playing two roles, or a role played by a duplicated column label."""
        by_column: dict[str, list[str]] = {}
        for role, name in self.roles().items():
            if name is not None:
                by_column.setdefault(name, []).append(role)
                if name in duplicated:
                    msg = (
                        f"the frame has several columns named {name!r} (the {role!r} column); "
                        "rename them so that each name is used once, e.g. "
                        "df.columns = [...] or df.loc[:, ~df.columns.duplicated()]"
                    )
                    raise SchemaError(msg)
        for name, roles in by_column.items():
            if len(roles) > 1:
                msg = (
                    f"column {name!r} would be used for the roles {roles}; each role needs "
                    f"its own column: map them to different columns, e.g. "
                    f"df.ireval({roles[0]}=..., {roles[1]}=...)"
                )
                raise SchemaError(msg)

    def name(self, role: str) -> str:
        """The column of ``role``, which :meth:`require` has checked to exist."""
        column = getattr(self, role)
        if column is None:
            msg = f"no column plays the role {role!r}; map one with df.ireval({role}='<column>')"
            raise SchemaError(msg)
        return str(column)

    def require(self, frame: pd.DataFrame, *roles: str, fix: str | None = None) -> None:
        """Raise :class:`SchemaError` naming the first role in ``roles`` without a column.

        ``fix`` is the remedy shown, with ``%s`` standing for the role; by default the
        accessor mapping and the ``columns=`` argument.
        """
        for role in roles:
            if getattr(self, role) is None:
                hint = SYNONYMS.get(role, ())
                also = f" (or one of {list(hint)})" if hint else ""
                remedy = (
                    fix % role
                    if fix
                    else f"df.ireval({role}='<column>') or columns={{'{role}': '<column>'}}"
                )
                msg = (
                    f"column {role!r}{also} not found (columns: {list(frame.columns)}); "
                    f"map it with {remedy}"
                )
                raise SchemaError(msg)

    def require_labels(self, frame: pd.DataFrame) -> None:
        """:meth:`require` for the relevance labels of a frame evaluated on its own: a
        run without its judgments is refused with the two ways to give them.
        """
        if self.rel is None:
            msg = (
                f"relevance labels are missing: no column 'rel' (or one of "
                f"{list(SYNONYMS.get('rel', ()))}) among {list(frame.columns)}; pass the "
                "judgments next to the run with qrels=qrels (e.g. "
                "run.ireval.evaluate(metrics, qrels=qrels)) or merge them in first with "
                "pdireval.merge_qrels(run, qrels); labels in a column of another name: map "
                "it with df.ireval(rel='<column>') or columns={'rel': '<column>'}"
            )
            raise SchemaError(msg)


def as_column_map(columns: ColumnMap | Mapping[str, Any] | None) -> ColumnMap:
    """Accept a :class:`ColumnMap`, a ``{role: column}`` mapping or ``None``."""
    if columns is None:
        return DEFAULT_COLUMNS
    if isinstance(columns, ColumnMap):
        return columns
    if isinstance(columns, Mapping):
        return DEFAULT_COLUMNS.remap(**dict(columns))
    msg = f"columns= must be a ColumnMap or a {{role: column}} dict, got {type(columns).__name__}"
    raise SchemaError(msg)
