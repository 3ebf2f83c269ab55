"""A frame with judge, collection or seed columns, as the parts evaluated one at a time.

Several sets of judgments (a ``judge`` column), several test collections (a
``collection`` column: query ids are scoped by it) and repeated runs (a ``seed`` column)
share one frame. Each combination is evaluated on its own, exactly as if the user had
selected its rows, and the results are put together with one index level per role: run,
judge, collection, seed, then query. The loop is over the few combinations, never over
queries or rows.

The judge column may be in the frame (what :func:`pdireval.merge_qrels` builds from
judgments of several judges) or in the judgments given with ``qrels=``; the collection
column is in the frame, and in ``qrels=`` too when given; the seed column in the frame.
A judge who judged some collections only has results on those.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Hashable
from dataclasses import dataclass
from typing import Literal, cast

import numpy as np
import pandas as pd

from pdireval._core.errors import SchemaError
from pdireval._core.levels import Levels
from pdireval._core.options import Evaluation, Qrels
from pdireval._core.roles import PART_ROLES, ResolvedColumns, one_at_a_time
from pdireval._prepare.matching import no_overlap

__all__ = [
    "PART_ROLES",
    "WITHOUT_PARTS",
    "Part",
    "Parts",
    "each_part",
    "evaluate_parts",
    "has_parts",
    "parts",
    "refuse_parts",
]


WITHOUT_PARTS: dict[str, Literal[False]] = {role: False for role in PART_ROLES}


@dataclass(frozen=True)
class Part:
    """One combination of judge, collection and seed: its key (the values of the roles
    present, in role order), the frame's rows and the judgments given with it.
    """

    key: tuple[Hashable, ...]
    frame: pd.DataFrame
    qrels: pd.DataFrame | None


@dataclass(frozen=True)
class Parts:
    """The parts of one call: the level name of each role present, and the parts."""

    names: dict[str, Hashable]
    items: list[Part]


def has_parts(roles: ResolvedColumns, qrels: Qrels | None) -> bool:
    """Whether the frame, or the judgments given with it, have a judge, collection or
    seed column.
    """
    return any(getattr(roles, role) for role in PART_ROLES) or (
        qrels is not None and any(getattr(qrels.roles, role) for role in PART_ROLES)
    )


def refuse_parts(roles: ResolvedColumns, qrels: Qrels | None) -> None:
    """Refuse a frame with judge, collection or seed columns where a call evaluates one
    set of judgments on one collection at a time.
    """
    for where, resolved in (("the frame", roles), ("qrels=", qrels and qrels.roles)):
        for role in PART_ROLES:
            column = resolved and getattr(resolved, role)
            if column:
                raise SchemaError(one_at_a_time(role, column, where))


def _refuse_conflicts(mine: ResolvedColumns, theirs: ResolvedColumns | None) -> None:
    """A judge column on both sides, a collection column on one side, a seed column in
    the judgments: refused, saying where each belongs.
    """
    if theirs is None:
        return
    if theirs.judge is not None and mine.judge is not None:
        msg = (
            f"both the frame ({mine.judge!r}) and qrels= ({theirs.judge!r}) have a judge "
            "column; give the labels of each judge once: in the frame (merge_qrels) or in "
            "qrels="
        )
        raise SchemaError(msg)
    _refuse_one_sided_collection(mine, theirs)
    if theirs.seed is not None:
        msg = (
            f"qrels= has a seed column ({theirs.seed!r}); seeds belong to runs, and "
            "every seed of a run is judged by the same judgments: drop it from qrels="
        )
        raise SchemaError(msg)


def _level_names(
    frame: pd.DataFrame, mine: ResolvedColumns, qrels: Qrels | None
) -> tuple[list[str], dict[str, Hashable]]:
    """The part roles of the frame, and the level name of every part role (the judge's
    may come from the judgments), missing values refused.
    """
    frame_roles = [role for role in PART_ROLES if getattr(mine, role) is not None]
    for role in frame_roles:
        _refuse_missing(frame, mine.name(role), role, "the frame")
    names: dict[str, Hashable] = {role: mine.name(role) for role in frame_roles}
    if qrels is not None and qrels.roles.judge is not None:
        _refuse_missing(qrels.frame, qrels.roles.judge, "judge", "qrels=")
        names["judge"] = qrels.roles.judge
    return frame_roles, {role: names[role] for role in PART_ROLES if role in names}


def _judged_parts(
    found: dict[str, Hashable], piece: pd.DataFrame, qrels: Qrels, names: dict[str, Hashable]
) -> list[Part]:
    """The parts of one (collection, seed) of the frame with judgments given next to
    it: the collection's judgments, one part per judge when they name judges.
    """
    theirs = qrels.roles
    judged = qrels.frame
    if theirs.collection is not None:
        judged = judged[_equals(judged[theirs.collection], found["collection"])]
    if theirs.judge is None:
        return [Part(_key(found, names), piece, judged)]
    items = []
    for judge in _sorted_values(qrels.frame[names["judge"]]):
        labels = judged[_equals(judged[names["judge"]], judge)]
        if labels.empty and theirs.collection is not None:
            continue  # a judge who judged other collections only: no results here
        items.append(Part(_key({**found, "judge": judge}, names), piece, labels))
    return items


def parts(frame: pd.DataFrame, roles: ResolvedColumns, qrels: Qrels | None) -> Parts:
    """Split ``frame`` (and its judgments) into one part per (judge, collection, seed),
    in the sorted order of each role's values.

    Raises
    ------
    SchemaError
        A role's column in both the frame and the judgments where it belongs to one, a
        collection column on one side only, or missing values in a role's column.
    """
    _refuse_conflicts(roles, None if qrels is None else qrels.roles)
    frame_roles, names = _level_names(frame, roles, qrels)
    items: list[Part] = []
    for key, rows in _groups(frame, [roles.name(role) for role in frame_roles]):
        found = dict(zip(frame_roles, key, strict=True))
        piece = frame.iloc[rows] if rows is not None else frame
        if qrels is None:
            items.append(Part(_key(found, names), piece, None))
        else:
            items += _judged_parts(found, piece, qrels, names)
    columns_of = {role: frame[name] for role, name in names.items() if role in frame_roles}
    if qrels is not None and qrels.roles.judge is not None:
        columns_of["judge"] = qrels.frame[names["judge"]]
    rank = {
        role: {value: at for at, value in enumerate(_sorted_values(column))}
        for role, column in columns_of.items()
    }
    items.sort(key=lambda part: tuple(rank[r][v] for r, v in zip(names, part.key, strict=True)))
    return Parts(names, items)


def _sorted_values(column: pd.Series) -> list[Hashable]:
    """The distinct values of ``column``, sorted (a categorical's in category order)."""
    return list(column.drop_duplicates().sort_values(kind="stable"))


def _key(found: dict[str, Hashable], names: dict[str, Hashable]) -> tuple[Hashable, ...]:
    return tuple(found[role] for role in names)


def _refuse_one_sided_collection(mine: ResolvedColumns, theirs: ResolvedColumns) -> None:
    if (mine.collection is None) == (theirs.collection is None):
        return
    has, lacks = ("the run", "qrels=") if theirs.collection is None else ("qrels=", "the run")
    column = mine.collection or theirs.collection
    msg = (
        f"{has} has a collection column ({column!r}) and {lacks} has none; query ids are "
        "scoped by their collection, so give both sides the column (or drop it from both "
        "when the query ids are unique)"
    )
    raise SchemaError(msg)


def _refuse_missing(frame: pd.DataFrame, column: Hashable, role: str, where: str) -> None:
    missing = frame[column].isna()
    if missing.any():
        at = frame.index[np.flatnonzero(missing.to_numpy())[0]]
        msg = (
            f"the {role} column {column!r} of {where} has {int(missing.sum())} missing "
            f"value(s), e.g. at row {at!r}; every row names its {role}: fill them or drop "
            "those rows"
        )
        raise SchemaError(msg)


def _groups(
    frame: pd.DataFrame, by: list[str]
) -> list[tuple[tuple[Hashable, ...], np.ndarray | None]]:
    """The frame's rows per combination of the ``by`` columns; one group of every row
    without ``by``.
    """
    if not by:
        return [((), None)]
    grouped = frame.groupby(by, sort=False, observed=True).indices
    return [
        (cast(tuple, key) if len(by) > 1 else (key,), np.asarray(rows))
        for key, rows in grouped.items()
    ]


def _equals(column: pd.Series, value: Hashable) -> np.ndarray:
    return np.asarray(column == value, dtype=bool)


def evaluate_parts(
    frame: pd.DataFrame,
    roles: ResolvedColumns,
    options: Evaluation,
    evaluate: Callable[[pd.DataFrame, ResolvedColumns, Evaluation], pd.DataFrame],
) -> tuple[pd.DataFrame, Levels]:
    """``evaluate`` on every part, and the results as one table with a level per role.

    ``evaluate(frame, roles, options)`` gives one part's per-query table (index query,
    or (run, query)); the parts are evaluated with the judge, collection and seed roles
    switched off, so each gives exactly what selecting its rows would.
    """
    found = parts(frame, roles, options.qrels)
    plain = roles.without_parts()
    given = options.qrels
    levels = Levels(query=roles.query, run=roles.run, **found.names)
    if not found.items:  # no rows: the empty table, with the levels it would have
        qrels = None if given is None else Qrels(given.frame.iloc[:0], given.roles.without_parts())
        table = evaluate(frame.iloc[:0], plain, dataclasses.replace(options, qrels=qrels))
        return _empty(table, found.names, roles.run), levels

    def one(part: Part, check: bool) -> pd.DataFrame:
        qrels = None
        if part.qrels is not None and given is not None:
            qrels = Qrels(part.qrels, given.roles.without_parts(), check)
        return evaluate(part.frame, plain, dataclasses.replace(options, qrels=qrels))

    tables = each_part(found.items, one)
    run_column = None if roles.run is None else frame[roles.run]
    return _joined(tables, found.names, roles.run, run_column), levels


def _empty(table: pd.DataFrame, names: dict[str, Hashable], run: Hashable | None) -> pd.DataFrame:
    """The empty table of a frame without rows, with the levels it would have."""
    empty = [table.index.get_level_values(at)[:0] for at in range(table.index.nlevels)]
    if len(empty) == 1:
        empty.insert(0, pd.Index([], dtype=object))  # an empty run level, then dropped
        level_names = [None, *table.index.names]
    else:
        level_names = list(table.index.names)
    arrays = [*empty[:-1], *[pd.Index([], dtype=object) for _ in names], empty[-1]]
    index = pd.MultiIndex.from_arrays(
        arrays, names=[*level_names[:-1], *names.values(), level_names[-1]]
    )
    return table.set_axis(index if run is not None else index.droplevel(0))


def each_part(
    items: list[Part], call: Callable[[Part, bool], pd.DataFrame]
) -> dict[tuple[Hashable, ...], pd.DataFrame]:
    """``call(part, check)`` for every part, by key. A part whose run shares no query or
    document with its judgments (a seed that retrieved only unjudged documents, say) is
    evaluated as it is; the call is refused only when no part shares any, as the run as
    a whole would be.
    """
    out = {}
    failures: list[SchemaError] = []
    for part in items:
        try:
            out[part.key] = call(part, True)
        except SchemaError as error:
            if not no_overlap(error):
                raise
            failures.append(error)
            out[part.key] = call(part, False)
    if failures and len(failures) == len(items):
        raise failures[0]
    return out


def _joined(
    tables: dict[tuple[Hashable, ...], pd.DataFrame],
    names: dict[str, Hashable],
    run: Hashable | None,
    run_column: pd.Series | None,
) -> pd.DataFrame:
    """The parts' tables as one, levels in the order run, judge, collection, seed, query,
    sorted by run then by part (queries in each part's order).
    """
    level_names = list(names.values())
    keyed = tables if len(level_names) > 1 else {key[0]: t for key, t in tables.items()}
    joined = pd.concat(keyed, names=level_names)
    if run is None or run_column is None:
        return joined
    order = [run, *level_names, joined.index.names[-1]]
    joined = joined.reorder_levels(cast(list[str], order))
    runs = joined.index.get_level_values(0)
    codes = pd.Index(_sorted_values(run_column)).get_indexer(runs)
    return joined.iloc[np.argsort(codes, kind="stable")]
