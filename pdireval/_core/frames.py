"""Frames of other libraries at the front door: polars frames and Arrow tables become pandas.

pdireval computes on pandas frames (numpy arrays, and Arrow buffers for string ids). A
polars ``DataFrame`` or ``LazyFrame`` (collected first), a pyarrow ``Table`` or
``RecordBatch``, and any other object that exports an Arrow stream (the Arrow PyCapsule
interface: DuckDB relations, for one) is turned into a pandas frame once, where a public
function receives it: the frame its own ``to_pandas()`` gives, so that the numbers are those
of converting it yourself. Nothing here imports polars: an object is recognised by the
module its type comes from.

Examples
--------
>>> import pyarrow as pa
>>> table = pa.table({"query": ["q1"], "doc": ["d1"], "rel": [1]})
>>> as_pandas(table)
  query doc  rel
0    q1  d1    1
>>> as_pandas([table])[0].shape
(1, 3)
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any, TypeVar

import pandas as pd

__all__ = ["accepting_frames", "as_pandas", "foreign_kind"]

_F = TypeVar("_F", bound=Callable[..., Any])


def foreign_kind(value: object) -> str | None:
    """``"polars"``, ``"polars-lazy"``, ``"arrow"`` (a pyarrow table or any Arrow stream)
    for a frame pdireval converts, else None (pandas, Dask, and anything else).
    """
    if isinstance(value, pd.DataFrame | pd.Series | type):
        return None
    module = type(value).__module__
    if module.startswith("polars"):
        name = type(value).__name__
        return {"DataFrame": "polars", "LazyFrame": "polars-lazy"}.get(name)
    if module.startswith("pyarrow"):
        return "arrow" if type(value).__name__ in ("Table", "RecordBatch") else None
    if module.startswith("dask") or not hasattr(value, "__arrow_c_stream__"):
        return None
    return "arrow"


def as_pandas(value: Any) -> Any:
    """``value`` with each foreign frame in it turned into a pandas DataFrame: the value
    itself, or the items (values) of a list, tuple or dict; anything else as it is.
    """
    kind = foreign_kind(value)
    if kind is not None:
        return _converted(value, kind)
    if isinstance(value, list | tuple) and any(foreign_kind(item) for item in value):
        return type(value)(as_pandas(item) for item in value)
    if isinstance(value, dict) and any(foreign_kind(item) for item in value.values()):
        return {key: as_pandas(item) for key, item in value.items()}
    return value


def _converted(value: Any, kind: str) -> pd.DataFrame:
    if kind == "polars-lazy":
        value = value.collect()
    if kind.startswith("polars") or hasattr(value, "to_pandas"):
        return value.to_pandas()
    import pyarrow as pa

    return pa.table(value).to_pandas()


def accepting_frames(function: _F) -> _F:
    """``function`` taking a polars frame or an Arrow table wherever it takes a pandas
    DataFrame (alone, or in a list, tuple or dict of frames), converted once on the way in.
    """

    @functools.wraps(function)
    def converting(*args: Any, **kwargs: Any) -> Any:
        args = tuple(as_pandas(arg) for arg in args)
        kwargs = {name: as_pandas(value) for name, value in kwargs.items()}
        return function(*args, **kwargs)

    converting.__pdireval_accepts_frames__ = True  # type: ignore[attr-defined]
    return converting  # type: ignore[return-value]
