"""Column roles of the long frame: defaults, ecosystem synonyms and resolution.

A long frame holds one row per (query, doc) pair that is retrieved and/or judged,
optionally per run. Each column plays a *role*; :class:`ColumnMap` says which
column plays which role. Roles left unset resolve to the default column name or,
when that column is absent, to one of the common synonyms of the ecosystem.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, fields, replace

import pandas as pd

from pdireval._errors import SchemaError

__all__ = ["DEFAULT_COLUMNS", "SYNONYMS", "ColumnMap", "ResolvedColumns", "as_column_map"]

ROLES = ("query", "doc", "rank", "rel", "score", "run", "known")

#: Columns looked for, in order, when the default column of a role is absent.
SYNONYMS: dict[str, tuple[str, ...]] = {
    "query": ("qid", "query_id"),
    "doc": ("docno", "doc_id"),
    "rel": ("relevance", "label"),
    "run": ("system",),
}


@dataclass(frozen=True)
class ColumnMap:
    """Which column of a frame plays which role; ``None`` means the default column.

    Parameters
    ----------
    query, doc, rank, rel, score, run, known : str, optional
        Column names. An unset role resolves to the column named like the role
        (``"query"``, ``"doc"``, ...) or, when that is absent, to a synonym:
        ``qid``/``query_id``, ``docno``/``doc_id``, ``relevance``/``label``,
        ``system``.

    Examples
    --------
    >>> ColumnMap().remap(query="qid", rel="label")
    ColumnMap(query='qid', doc=None, rank=None, rel='label', score=None, run=None, known=None)
    """

    query: str | None = None
    doc: str | None = None
    rank: str | None = None
    rel: str | None = None
    score: str | None = None
    run: str | None = None
    known: str | None = None

    def remap(self, **names: str | None) -> ColumnMap:
        """Return a copy with the given roles mapped to new column names (``None`` keeps)."""
        unknown = sorted(set(names) - set(ROLES))
        if unknown:
            msg = f"unknown column role(s) {unknown}; the roles are {list(ROLES)}"
            raise SchemaError(msg)
        return replace(self, **{role: name for role, name in names.items() if name is not None})

    def resolve(self, frame: pd.DataFrame) -> ResolvedColumns:
        """Find the column of each role in ``frame``; raise :class:`SchemaError` when unclear."""
        present = set(frame.columns)
        found: dict[str, str | None] = {}
        for field in fields(self):
            role, explicit = field.name, getattr(self, field.name)
            if explicit is not None:
                if explicit not in present:
                    msg = (
                        f"column {explicit!r} given for role {role!r} is not in the frame "
                        f"(columns: {list(frame.columns)}); pass an existing column name"
                    )
                    raise SchemaError(msg)
                found[role] = explicit
            elif role in present:
                found[role] = role
            else:
                candidates = [name for name in SYNONYMS.get(role, ()) if name in present]
                if len(candidates) > 1:
                    msg = (
                        f"columns {candidates} could both be the {role!r} column; "
                        f"choose one with df.ireval({role}={candidates[0]!r})"
                    )
                    raise SchemaError(msg)
                found[role] = candidates[0] if candidates else None
        return ResolvedColumns(**found)


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


def as_column_map(columns: ColumnMap | Mapping[str, str] | None) -> ColumnMap:
    """Accept a :class:`ColumnMap`, a ``{role: column}`` mapping or ``None``."""
    if columns is None:
        return DEFAULT_COLUMNS
    if isinstance(columns, ColumnMap):
        return columns
    if isinstance(columns, Mapping):
        return DEFAULT_COLUMNS.remap(**dict(columns))
    msg = f"columns= must be a ColumnMap or a {{role: column}} dict, got {type(columns).__name__}"
    raise SchemaError(msg)
