"""polars frames evaluated as pandas ones: ``import pdireval.polars`` registers ``.ireval``.

On a polars ``DataFrame`` (or ``LazyFrame``, collected when a method is called),
``frame.ireval`` has every method of the pandas accessor, with the same options and the
same numbers: the frame is turned into a pandas one once per call (polars'
``to_pandas()``), and a table comes back as a polars DataFrame, its pandas index levels
as its first columns (a column index of several levels is joined with ``/``, e.g.
``value/bm25``). Reports, figures and single numbers come back as they do from pandas.
:func:`read_run` and :func:`read_qrels` read files into polars frames.

The functions of :mod:`pdireval` take polars frames and Arrow tables as they are, and
return what they return for pandas frames.

Examples
--------
>>> import polars as pl, pdireval, pdireval.polars
>>> df = pl.DataFrame({"query": ["q1", "q1", "q2"], "doc": ["a", "b", "a"],
...                    "score": [0.9, 0.5, 0.3], "rel": [0, 1, 1]})
>>> df.ireval.evaluate(["AP", "P@1"])
shape: (2, 3)
┌───────┬─────┬─────┐
│ query ┆ AP  ┆ P@1 │
│ ---   ┆ --- ┆ --- │
│ str   ┆ f64 ┆ f64 │
╞═══════╪═════╪═════╡
│ q1    ┆ 0.5 ┆ 0.0 │
│ q2    ┆ 1.0 ┆ 1.0 │
└───────┴─────┴─────┘
>>> pdireval.evaluate(df, ["AP"])  # the functions take polars frames too
metric   AP
query
q1      0.5
q2      1.0
"""

from __future__ import annotations

import functools
import inspect
from collections.abc import Callable
from typing import Any

import pandas as pd

from pdireval._accessor import IREvalAccessor
from pdireval._core.frames import as_pandas
from pdireval._core.optional import optional
from pdireval._core.roles import DEFAULT_COLUMNS, ColumnMap

optional("polars", purpose="pdireval.polars")  # the install hint, when polars is missing

import polars as pl  # noqa: E402

__all__ = ["PolarsIREval", "read_qrels", "read_run", "to_polars"]


def to_polars(value: Any) -> Any:
    """A pandas table as a polars DataFrame (its index levels first, a column index of
    several levels joined with ``/``), a Series as a one-column frame beside its index;
    anything else as it is.

    Examples
    --------
    >>> import pandas as pd
    >>> table = pd.DataFrame({"AP": [0.5]}, index=pd.Index(["q1"], name="query"))
    >>> to_polars(table).columns
    ['query', 'AP']
    """
    if isinstance(value, pd.Series):
        value = value.to_frame(name=value.name if value.name is not None else "value")
    if not isinstance(value, pd.DataFrame):
        return value
    table = pd.DataFrame(value, copy=False)
    if isinstance(table.columns, pd.MultiIndex):
        table.columns = ["/".join(str(part) for part in label) for label in table.columns]
    else:
        table.columns = [str(label) for label in table.columns]
    named = any(name is not None for name in table.index.names)
    if named or not isinstance(table.index, pd.RangeIndex):
        table = table.reset_index(drop=not named)
    return pl.from_pandas(table)


def _method(name: str) -> Callable[..., Any]:
    """The polars accessor's method ``name``: the pandas accessor's, on the converted frame."""
    pandas_method = getattr(IREvalAccessor, name)

    @functools.wraps(pandas_method)
    def method(self: PolarsIREval, *args: Any, **kwargs: Any) -> Any:
        args = tuple(as_pandas(arg) for arg in args)
        kwargs = {key: as_pandas(value) for key, value in kwargs.items()}
        return to_polars(getattr(self.pandas, name)(*args, **kwargs))

    signature = inspect.signature(pandas_method)
    if signature.return_annotation in ("pd.DataFrame", "pd.Series"):
        method.__signature__ = signature.replace(  # type: ignore[attr-defined]
            return_annotation="pl.DataFrame"
        )
    return method


class PolarsIREval:
    """IR evaluation for long-format polars frames: the pandas accessor's methods, returning
    polars tables (see :mod:`pdireval.polars`).

    ``frame.ireval(query="qid", rel="label")`` reads roles from other columns, as in pandas.
    """

    __slots__ = ("_columns", "_frame")

    def __init__(self, frame: pl.DataFrame | pl.LazyFrame, columns: ColumnMap = DEFAULT_COLUMNS):
        self._frame, self._columns = frame, columns

    def __call__(self, **roles: str | None) -> PolarsIREval:
        """Return an accessor that reads the given roles from other columns."""
        return PolarsIREval(self._frame, self._columns.remap(**roles))

    @property
    def pandas(self) -> IREvalAccessor:
        """The pandas accessor of this frame, converted now (a LazyFrame is collected)."""
        return IREvalAccessor(as_pandas(self._frame), self._columns)

    @property
    def plot(self) -> Any:
        """Matplotlib figures of this frame, as ``df.ireval.plot`` draws them in pandas."""
        return self.pandas.plot


_METHODS = sorted(
    name
    for name, member in vars(IREvalAccessor).items()
    if not name.startswith("_") and callable(member)
)
for _name in _METHODS:
    setattr(PolarsIREval, _name, _method(_name))

pl.api.register_dataframe_namespace("ireval")(PolarsIREval)
pl.api.register_lazyframe_namespace("ireval")(PolarsIREval)


def read_run(*args: Any, **kwargs: Any) -> pl.DataFrame:
    """A run file as a polars DataFrame: :func:`pdireval.read_run`, same arguments.

    Parameters
    ----------
    *args, **kwargs
        As for :func:`pdireval.read_run`.

    Returns
    -------
    polars.DataFrame
        The columns :func:`pdireval.read_run` gives, in a polars frame.

    Examples
    --------
    >>> import tempfile, pdireval.polars
    >>> from pdireval.datasets import write_example
    >>> with tempfile.TemporaryDirectory() as folder:
    ...     qrels_file, strong_file, *_ = write_example(folder)
    ...     run = pdireval.polars.read_run(strong_file)
    >>> run.columns, run.height
    (['query', 'doc', 'score', 'run'], 1250)
    """
    from pdireval.io import read_run as read

    return to_polars(read(*args, **kwargs))


def read_qrels(*args: Any, **kwargs: Any) -> pl.DataFrame:
    """A qrels file as a polars DataFrame: :func:`pdireval.read_qrels`, same arguments.

    Parameters
    ----------
    *args, **kwargs
        As for :func:`pdireval.read_qrels`.

    Returns
    -------
    polars.DataFrame
        The columns :func:`pdireval.read_qrels` gives, in a polars frame.

    Examples
    --------
    >>> import tempfile, pdireval.polars
    >>> from pdireval.datasets import write_example
    >>> with tempfile.TemporaryDirectory() as folder:
    ...     qrels_file, *_ = write_example(folder)
    ...     qrels = pdireval.polars.read_qrels(qrels_file)
    >>> qrels.columns
    ['query', 'doc', 'rel']
    """
    from pdireval.io import read_qrels as read

    return to_polars(read(*args, **kwargs))
