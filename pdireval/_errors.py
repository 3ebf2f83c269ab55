"""Exception classes raised by pdireval.

Every error also inherits the matching builtin, so ``except ValueError`` keeps
working in code that does not know about pdireval.
"""

from __future__ import annotations

__all__ = ["MetricError", "MissingDependencyError", "PdirevalError", "SchemaError"]


class PdirevalError(Exception):
    """Base class of every error raised by pdireval."""


class SchemaError(PdirevalError, ValueError):
    """The input frame does not follow the long-frame contract (columns, ids, ranks, labels)."""


class MetricError(PdirevalError, ValueError):
    """A metric name, parameter or option is not understood."""


class MissingDependencyError(PdirevalError, ImportError):
    """An optional dependency needed by the called function is not installed."""
