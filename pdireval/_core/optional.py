"""Optional dependencies, imported when a function first needs them.

``import pdireval`` imports numpy, pandas and pyarrow only. scipy, openpyxl, matplotlib,
dask and ir_datasets are extras: :func:`optional` imports one of them, or raises a
:class:`~pdireval.MissingDependencyError` that says which extra installs it and what
needed it. Every optional import of the package goes through here.

Examples
--------
>>> optional("math", extra="stats", purpose="a test").sqrt(4.0)
2.0
>>> optional("no_such_package", extra="stats", purpose="significance tests")
Traceback (most recent call last):
...
pdireval.MissingDependencyError: significance tests need no_such_package, which is not \
installed; install it with pip install 'pdireval[stats]' (or pip install no_such_package)
"""

from __future__ import annotations

import importlib
from types import ModuleType

from pdireval._core.errors import MissingDependencyError

__all__ = ["EXTRAS", "optional"]

#: The extra that installs each optional package, and the package's name on PyPI.
EXTRAS: dict[str, tuple[str, str]] = {
    "scipy": ("stats", "scipy"),
    "openpyxl": ("excel", "openpyxl"),
    "matplotlib": ("plot", "matplotlib"),
    "dask": ("dask", "dask[dataframe] distributed"),
    "distributed": ("dask", "distributed"),
    "ir_datasets": ("irds", "ir-datasets"),
    "polars": ("polars", "polars"),
}


def optional(module: str, *, extra: str | None = None, purpose: str, hint: str = "") -> ModuleType:
    """Import ``module`` (e.g. ``"scipy.stats"``), or say how to install it.

    Parameters
    ----------
    module : str
        The module to import.
    extra : str, optional
        pdireval's extra that installs it; by default the one :data:`EXTRAS` names.
    purpose : str
        What needs it, as the start of the message (``"significance tests"``).
    hint : str, optional
        Another way, added to the message (``"or use a .txt template"``).

    Raises
    ------
    MissingDependencyError
        The package is not installed (also an :class:`ImportError`).
    """
    try:
        return importlib.import_module(module)
    except ImportError as error:
        top = module.split(".")[0]
        known_extra, package = EXTRAS.get(top, (extra or "all", top))
        extra = extra or known_extra
        msg = (
            f"{purpose} need{'s' if not purpose.endswith('s') else ''} {top}, which is not "
            f"installed; install it with pip install 'pdireval[{extra}]' (or pip install "
            f"{package}){', ' + hint if hint else ''}"
        )
        raise MissingDependencyError(msg) from error
