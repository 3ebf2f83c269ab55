"""pdireval: information-retrieval evaluation as a pandas operation.

``import pdireval`` registers the ``DataFrame.ireval`` accessor and imports
nothing beyond numpy, pandas and pyarrow; reading files, reports, the example collection
and the analyses beyond evaluation are loaded when first used.

Examples
--------
>>> import pandas as pd, pdireval
>>> df = pd.DataFrame({"query": ["q1", "q1", "q1"], "doc": ["a", "b", "c"],
...                    "score": [0.9, 0.5, 0.1], "rel": [0, 2, 1]})
>>> df.ireval.evaluate(["AP", "nDCG@2"]).round(4)
metric      AP  nDCG@2
query
q1      0.5833  0.4796
"""

from __future__ import annotations

import ast
import importlib
import inspect
from pathlib import Path
from typing import Any

from pdireval import _accessor  # registers DataFrame.ireval
from pdireval._core.errors import MetricError as MetricError
from pdireval._core.errors import MissingDependencyError as MissingDependencyError
from pdireval._core.errors import ParameterError as ParameterError
from pdireval._core.errors import PdirevalError as PdirevalError
from pdireval._core.errors import SchemaError as SchemaError
from pdireval._core.frames import accepting_frames
from pdireval._core.version import __version__ as __version__


def _public_names() -> dict[str, tuple[str, str | None]]:
    """Each public name and where it lives, read from this package's stub
    (``__init__.pyi``, the one list of public names): ``from M import a as a`` gives
    ``a -> (M, "a")``, and ``from pdireval import m as m`` the module ``pdireval.m``.
    """
    tree = ast.parse((Path(__file__).parent / "__init__.pyi").read_text(encoding="utf-8"))
    names: dict[str, tuple[str, str | None]] = {}
    for node in tree.body:
        if isinstance(node, ast.ImportFrom) and node.module:
            for alias in node.names:
                if node.module == "pdireval":
                    names[alias.asname or alias.name] = (f"pdireval.{alias.name}", None)
                else:
                    names[alias.asname or alias.name] = (node.module, alias.name)
    return names


_LOADED_WHEN_USED = _public_names()
__all__ = sorted(_LOADED_WHEN_USED)


def __getattr__(name: str) -> Any:
    """A public name, loaded when first used (PEP 562): ``import pdireval`` stays about
    as fast as ``import pandas``, and ``pdireval.evaluate`` works as if imported at once.
    A public function takes polars frames and Arrow tables where it takes pandas frames.
    """
    if name not in _LOADED_WHEN_USED:
        msg = f"module 'pdireval' has no attribute {name!r}"
        raise AttributeError(msg)
    module, attribute = _LOADED_WHEN_USED[name]
    value = importlib.import_module(module)
    if attribute is not None:
        value = getattr(value, attribute)
        if inspect.isfunction(value):
            value = accepting_frames(value)
            globals()[name] = value  # one function object per name, however often asked
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))


del _accessor
