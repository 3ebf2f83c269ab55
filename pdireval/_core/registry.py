"""Registries of named choices: every name a user can pass for a choice (a fusion method,
a score normalisation, a significance test, a correction, an output format, a plot kind)
is declared once in a :class:`Registry`, with its aliases and a one-line description.

Looking a name up is case-insensitive and answers an unknown name with a
:class:`~pdireval.ParameterError` that lists the names and suggests the closest; the
documentation's tables and the command line's help are made from the same registry.

Examples
--------
>>> colours = Registry("colour", "colour")
>>> red = colours.add("red", "#f00", aliases=("rouge",), doc="the colour of fire")
>>> colours["ROUGE"], colours.names(), list(colours)
('#f00', ('red',), ['red'])
>>> colours["rde"]
Traceback (most recent call last):
...
pdireval.ParameterError: colour='rde' is not a colour; did you mean 'red'? (colours: 'red')
"""

from __future__ import annotations

import difflib
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import Any, Generic, TypeVar

from pdireval._core.errors import ParameterError

__all__ = ["Entry", "Registry"]

T = TypeVar("T")


@dataclass(frozen=True)
class Entry(Generic[T]):
    """One named choice: its canonical name, the value it stands for, other spellings
    and a one-line description for tables and help texts.
    """

    name: str
    value: T
    aliases: tuple[str, ...] = ()
    doc: str = ""


class Registry(Mapping[str, T]):
    """The named choices of one kind, in the order they were declared: a read-only
    mapping of canonical name to value that also finds aliases, in any case.

    Parameters
    ----------
    kind : str
        What a choice is, for messages (``"fusion method"``).
    parameter : str
        The parameter users pass it as (``"method"``).
    """

    def __init__(self, kind: str, parameter: str) -> None:
        self.kind = kind
        self.parameter = parameter
        self._entries: dict[str, Entry[T]] = {}
        self._spellings: dict[str, str] = {}

    def add(self, name: str, value: T, *, aliases: tuple[str, ...] = (), doc: str = "") -> T:
        """Declare ``name`` (and its ``aliases``) for ``value``; returns ``value``."""
        for spelling in dict.fromkeys(spelling.lower() for spelling in (name, *aliases)):
            key = spelling
            if key in self._spellings:
                msg = f"{self.kind} {spelling!r} is declared twice"
                raise ParameterError(msg)
            self._spellings[key] = name
        others = tuple(a for a in dict.fromkeys(aliases) if a.lower() != name.lower())
        self._entries[name] = Entry(name, value, others, doc)
        return value

    def __getitem__(self, name: object) -> T:
        return self.entry(name).value

    def __contains__(self, name: object) -> bool:
        return isinstance(name, str) and name.strip().lower() in self._spellings

    def __iter__(self) -> Iterator[str]:
        return iter(self._entries)

    def get(self, name: object, default: Any = None) -> Any:
        """The value of ``name`` (any case, or an alias), else ``default``."""
        if name in self:
            return self._entries[self._spellings[str(name).strip().lower()]].value
        return default

    def entries(self) -> list[Entry[T]]:
        """The declarations, in their declared order."""
        return list(self._entries.values())

    def __len__(self) -> int:
        return len(self._entries)

    def entry(self, name: object) -> Entry[T]:
        """The declaration of ``name`` (any case, or an alias), else :class:`ParameterError`."""
        if name in self:
            return self._entries[self._spellings[str(name).strip().lower()]]
        close = difflib.get_close_matches(str(name).lower(), list(self._spellings), n=1)
        hint = f"; did you mean {self._spellings[close[0]]!r}?" if close else ""
        listed = ", ".join(repr(known) for known in self.names())
        plural = f"{self.kind}s" if not self.kind.endswith("s") else self.kind
        msg = f"{self.parameter}={name!r} is not a {self.kind}{hint} ({plural}: {listed})"
        raise ParameterError(msg)

    def canonical(self, name: object) -> str:
        """The canonical name of ``name`` (any case, or an alias)."""
        return self.entry(name).name

    def names(self) -> tuple[str, ...]:
        """The canonical names, in their declared order."""
        return tuple(self._entries)

    def table(self) -> list[tuple[str, str, str]]:
        """(name, other spellings, description) of each choice, for documentation."""
        return [(e.name, ", ".join(e.aliases), e.doc) for e in self._entries.values()]
