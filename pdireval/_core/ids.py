"""The one rule for ids of different kinds, wherever frames meet.

Ids are matched by value. Where two frames meet -- a run and its judgments
(:func:`pdireval.merge_qrels`, ``qrels=``), the runs of a fusion, the judges of a
mapping, a judging sheet and the holes it was written from, an original and a
reproduced experiment, the judges whose agreement is measured -- the ids of a role
(query, doc) must be of one kind on every side: numbers with numbers, strings with
strings. The number ``1`` and the string ``'1'`` are different values, so ids of
different kinds never match; rather than fuse ``1`` and ``'1'`` as two documents,
or pair no query at all, such frames are refused with both sides named and the
conversion that makes them meet (``.astype(str)``).

A column of mixed Python objects (numbers, strings, tuples, ... in one object
column) is matched by value as it is, but two of its ids that read the same as text
(``1`` and ``'1'``) are refused: a table, a TREC file or a judging sheet could not
tell them apart.

Examples
--------
>>> import pandas as pd
>>> id_kind(pd.Series([1, 2])), id_kind(pd.Series(["1", "2"])), id_kind(pd.Series([1, "b"]))
('number', 'string', 'other')
>>> a, b = pd.Series([1, 2]), pd.Series(["1", "2"])
>>> same_kind([("run 'a'", a), ("run 'b'", b)], "doc")  # doctest: +ELLIPSIS
Traceback (most recent call last):
...
pdireval.SchemaError: doc ids are numbers (int64) in run 'a' but strings (...) in \
run 'b', so none would match: ids are matched by value, and 1 is not '1'; convert one side, \
e.g. frame['doc'] = frame['doc'].astype(str)
"""

from __future__ import annotations

from collections.abc import Hashable, Sequence
from typing import Any

import numpy as np
import pandas as pd

from pdireval._core.errors import SchemaError

__all__ = ["id_kind", "refuse_text_collisions", "same_kind"]

_SHOWN = 3  # colliding ids named in a message


def id_kind(ids: pd.Series | pd.Index) -> str:
    """``'number'``, ``'string'`` or ``'other'``: the kind of id a column holds, which
    matching ids by value needs to agree on (a categorical column: its categories').
    """
    dtype = ids.dtype.categories.dtype if isinstance(ids.dtype, pd.CategoricalDtype) else ids.dtype
    if pd.api.types.is_numeric_dtype(dtype) and not pd.api.types.is_bool_dtype(dtype):
        return "number"
    if isinstance(dtype, pd.StringDtype):
        return "string"
    if isinstance(ids.dtype, pd.CategoricalDtype):  # no missing category: pandas' cached answer
        inferred = ids.dtype.categories.inferred_type
    else:
        inferred = pd.api.types.infer_dtype(ids, skipna=True)
    if inferred == "string":
        return "string"
    if inferred in ("integer", "floating", "mixed-integer-float", "decimal"):
        return "number"
    return "other"


def same_kind(sides: Sequence[tuple[str, pd.Series | pd.Index]], role: str) -> list[str]:
    """Refuse ids of one ``role`` that are numbers on one side and strings on another.

    ``sides`` are (description, ids) pairs, e.g. ``("the run", run["doc"])``; the
    description names the side in the message. Sides of mixed objects are checked
    together for ids that read the same as text. Returns each side's kind.

    Raises
    ------
    SchemaError
        Numbers on one side and strings on another, or two ids of mixed-object sides
        that read the same as text.
    """
    kinds = [id_kind(ids) for _, ids in sides]
    definite = [(at, kind) for at, kind in enumerate(kinds) if kind in ("number", "string")]
    for at, kind in definite[1:]:
        first, first_kind = definite[0]
        if kind != first_kind:
            (one, ids_one), (other, ids_other) = sides[first], sides[at]
            name = ids_one.name if ids_one.name is not None else role
            msg = (
                f"{role} ids are {first_kind}s ({ids_one.dtype}) in {one} but {kind}s "
                f"({ids_other.dtype}) in {other}, so none would match: ids are matched by "
                f"value, and 1 is not '1'; convert one side, e.g. "
                f"frame[{name!r}] = frame[{name!r}].astype(str)"
            )
            raise SchemaError(msg)
    mixed = [ids for (_, ids), kind in zip(sides, kinds, strict=True) if kind == "other"]
    if mixed:
        others = [ids for (_, ids), kind in zip(sides, kinds, strict=True) if kind != "other"]
        where = " and ".join(description for description, _ in sides)
        refuse_text_collisions([*mixed, *others], role, where)
    return kinds


def refuse_text_collisions(
    columns: Sequence[pd.Series | pd.Index | Any], role: str, where: str
) -> None:
    """Refuse two different ids among ``columns`` that read the same as text (``1`` and
    ``'1'``; ``where`` names the frames in the message). Only columns of mixed Python
    objects can hold such ids: other columns cost a dtype check.
    """
    if not any(_mixed(ids) for ids in columns):
        return
    distinct: dict[Any, None] = {}
    for ids in columns:
        values = ids.dtype.categories if isinstance(ids.dtype, pd.CategoricalDtype) else ids
        for value in pd.unique(np.asarray(values, dtype=object)):
            if not _missing(value):
                distinct[_plain(value)] = None
    texts: dict[str, Hashable] = {}
    clashes: list[str] = []
    for value in distinct:
        text = str(value)
        if text in texts and len(clashes) < _SHOWN:
            clashes.append(f"{texts[text]!r} and {value!r}")
        texts.setdefault(text, value)
    if clashes:
        msg = (
            f"{role} ids {', '.join(clashes)} in {where} are different values that read the "
            f"same as text, so no table, TREC file or judging sheet could tell them apart; "
            f"give every {role} id one kind, e.g. frame[...].astype(str)"
        )
        raise SchemaError(msg)


def _mixed(ids: Any) -> bool:
    dtype = getattr(ids, "dtype", None)
    if isinstance(dtype, pd.CategoricalDtype):
        dtype = dtype.categories.dtype
    return dtype == np.dtype(object) and id_kind(ids) == "other"


def _plain(value: Any) -> Any:
    return value.item() if isinstance(value, np.generic) else value


def _missing(value: Any) -> bool:
    try:
        return bool(pd.isna(value))
    except (TypeError, ValueError):  # a tuple or array id
        return False
