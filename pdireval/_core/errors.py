"""Exception classes raised by pdireval.

Every error also inherits the matching builtin, so ``except ValueError`` keeps
working in code that does not know about pdireval. The classes are public as
``pdireval.SchemaError`` and so on, and name themselves so in tracebacks.
"""

from __future__ import annotations

__all__ = [
    "MetricError",
    "MissingDependencyError",
    "ParameterError",
    "PdirevalError",
    "SchemaError",
]


class PdirevalError(Exception):
    """Base class of every error raised by pdireval."""


class SchemaError(PdirevalError, ValueError):
    """The input frame does not follow the long-frame contract (columns, ids, ranks, labels)."""


class MetricError(PdirevalError, ValueError):
    """A metric name or a metric's parameter is not understood, or a metric fails."""


class ParameterError(PdirevalError, ValueError):
    """A parameter of a call is not understood: an option (``queries=``, ``ties=``), a
    named choice (a fusion method, a test, a correction, a format, a plot kind) or a
    number out of its range (``alpha=``, ``n_resamples=``).
    """


class MissingDependencyError(PdirevalError, ImportError):
    """An optional dependency needed by the called function is not installed."""


for _error in (PdirevalError, SchemaError, MetricError, ParameterError, MissingDependencyError):
    _error.__module__ = "pdireval"
