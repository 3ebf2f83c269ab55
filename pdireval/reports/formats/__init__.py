"""Output formats: every way a report or a table is written, one module per format.

A format module declares ``FORMAT``, a :class:`Format`: its name and other spellings,
the file suffix, a one-line description, and what it can write -- a report rendered as
text (``render``), a report written to a path (``write``: a workbook, a folder of CSV
files) and a plain table (``table``: the command line's summary and per-query tables).
:data:`FORMATS` finds the modules of this package when first asked, so a new format is
its module alone: ``Report.to_<name>()``, ``Report.render(name)`` and the command line's
``--format <name>`` take it from there.
"""

from __future__ import annotations

import importlib
import pkgutil
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from pdireval._core.registry import Registry

if TYPE_CHECKING:  # pragma: no cover
    import pandas as pd

__all__ = ["Format", "formats"]


@dataclass(frozen=True)
class Format:
    """One output format (see the package docstring).

    ``render(report, **options) -> str``; ``write(report, path, **options) -> Path or
    list of Paths``; ``table(frame) -> str``. A format has ``render`` or ``write`` or both;
    ``table`` when it writes plain tables too. ``tabular``: the command line writes its
    tables in this format (with a baseline, the comparison), not a report.
    """

    name: str
    suffix: str
    doc: str
    render: Callable[..., str] | None = None
    write: Callable[..., Any] | None = None
    table: Callable[[pd.DataFrame], str] | None = None
    aliases: tuple[str, ...] = ()
    tabular: bool = False


_FORMATS: Registry[Format] = Registry("output format", "format")


def formats() -> Registry[Format]:
    """Every output format, its module imported on the first call."""
    if not len(_FORMATS):
        for found in pkgutil.iter_modules(__path__):
            module = importlib.import_module(f"{__name__}.{found.name}")
            declared: Format = module.FORMAT
            _FORMATS.add(declared.name, declared, aliases=declared.aliases, doc=declared.doc)
    return _FORMATS
