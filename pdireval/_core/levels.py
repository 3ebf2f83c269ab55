"""Which index level of a per-query table plays which role.

A per-query table is indexed by its groups and then the query: ``run``, ``judge``,
``collection`` and ``seed`` (each only when the frame has that column), always in that
order, then ``query``. Levels are named after the user's columns, so code that reads a
table is told which level is which by a :class:`Levels`, never by guessing from names.
"""

from __future__ import annotations

from collections.abc import Hashable, Mapping
from dataclasses import dataclass

import pandas as pd

__all__ = ["GROUP_ROLES", "Levels"]

#: The roles that become index levels before ``query``, in their order.
GROUP_ROLES = ("run", "judge", "collection", "seed")


@dataclass(frozen=True)
class Levels:
    """The index level names of a per-query table by role (``None``: no such level).

    Examples
    --------
    >>> levels = Levels(query="qid", run="system", collection="dataset")
    >>> levels.names
    ['system', 'dataset', 'qid']
    >>> levels.within
    ['dataset']
    """

    query: Hashable
    run: Hashable | None = None
    judge: Hashable | None = None
    collection: Hashable | None = None
    seed: Hashable | None = None

    @property
    def names(self) -> list[Hashable]:
        """Every level, in the table's order (groups, then ``query``)."""
        return [*self.groups, self.query]

    @property
    def groups(self) -> list[Hashable]:
        """The levels before ``query``: run, judge, collection, seed (those present)."""
        found = (getattr(self, role) for role in GROUP_ROLES)
        return [name for name in found if name is not None]

    @property
    def within(self) -> list[Hashable]:
        """The levels comparisons stay within: judge and collection (those present)."""
        return [name for name in (self.judge, self.collection) if name is not None]

    @property
    def extra(self) -> list[Hashable]:
        """The levels besides run and query: judge, collection, seed (those present)."""
        return [name for name in (self.judge, self.collection, self.seed) if name is not None]

    @classmethod
    def of(cls, table: pd.DataFrame | pd.Series, roles: Mapping[str, Hashable | None]) -> Levels:
        """The levels of ``table`` given the column of each role (``None``: absent);
        the query level is the table's last.
        """
        present = set(table.index.names)
        found = {role: roles.get(role) for role in GROUP_ROLES}
        return cls(
            query=table.index.names[-1],
            **{role: name for role, name in found.items() if name in present},
        )
