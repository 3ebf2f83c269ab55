"""Qrels, runs and queries of the ir_datasets catalogue, read as pdireval frames.

``pdireval.read_qrels("irds:<dataset-id>")`` and ``read_run`` / ``read_queries`` with such
an id read through the optional ``ir_datasets`` package (MacAvaney et al. 2021), which
downloads and caches the files of each dataset on first use. The frames are those the
TREC file readers return; the dataset's id, its documented relevance levels and its
official measures are recorded in ``frame.attrs["ir_datasets"]``.
"""

from __future__ import annotations

import difflib
from types import ModuleType
from typing import Any

import numpy as np
import pandas as pd

from pdireval._core.errors import SchemaError
from pdireval._core.optional import optional

__all__ = ["PREFIX", "is_irds", "qrels", "queries", "run"]

#: What marks a path as an ir_datasets id.
PREFIX = "irds:"


def is_irds(source: object) -> bool:
    """Whether ``source`` names an ir_datasets dataset (a str starting with ``irds:``)."""
    return isinstance(source, str) and source.startswith(PREFIX)


def _ir_datasets() -> ModuleType:
    return optional("ir_datasets", purpose="reading 'irds:' ids")


def _dataset(source: str, provides: str) -> tuple[str, Any]:
    """The dataset id and the ir_datasets dataset, which must provide ``provides``."""
    name = source[len(PREFIX) :]
    ir_datasets = _ir_datasets()
    try:
        dataset = ir_datasets.load(name)
    except KeyError:
        close = difflib.get_close_matches(name, list(ir_datasets.registry), n=3, cutoff=0.6)
        hint = f"; did you mean {', '.join(repr(PREFIX + c) for c in close)}?" if close else ""
        msg = (
            f"ir_datasets has no dataset {name!r}{hint} The ids are listed at "
            "https://ir-datasets.com, e.g. 'irds:msmarco-passage/dev/small'"
        )
        raise SchemaError(msg) from None
    if not getattr(dataset, f"has_{provides}")():
        offered = [
            kind
            for kind in ("docs", "queries", "qrels", "scoreddocs")
            if getattr(dataset, f"has_{kind}")()
        ]
        msg = (
            f"ir_datasets' {name!r} has no {provides} (it provides {offered}); pick a "
            "subset that has them, e.g. a '/dev' or '/test' split"
        )
        raise SchemaError(msg)
    return name, dataset


def _record(name: str, dataset: Any) -> dict[str, Any]:
    """What ir_datasets documents about the dataset's judgments."""
    try:
        documented = dataset.documentation() or {}
    except AttributeError:  # a dataset registered without documentation
        documented = {}
    official = documented.get("official_measures", ())
    levels = dataset.qrels_defs() if dataset.has_qrels() else {}
    return {
        "dataset": name,
        "official_measures": tuple(official if isinstance(official, list) else ()),
        "relevance_levels": {int(label): str(text) for label, text in (levels or {}).items()},
    }


def _strings(values: pd.Series) -> pd.Series:
    return values.astype("str")


def qrels(source: str) -> pd.DataFrame:
    """The judgments of an ir_datasets dataset, as :func:`pdireval.read_qrels` returns them."""
    name, dataset = _dataset(source, "qrels")
    fields = dataset.qrels_cls()._fields
    table = pd.DataFrame.from_records(dataset.qrels_iter(), columns=fields)
    frame = pd.DataFrame(
        {
            "query": _strings(table["query_id"]),
            "doc": _strings(table["doc_id"]),
            "rel": table["relevance"].to_numpy(dtype=np.int64),
        }
    )
    subtopic = next((f for f in ("subtopic_id", "iteration") if f in fields), None)
    if subtopic is not None and (subtopic == "subtopic_id" or table[subtopic].nunique() > 1):
        frame.insert(1, "subtopic", _strings(table[subtopic]))
    keys = [c for c in ("query", "subtopic", "doc") if c in frame.columns]
    repeated = frame.duplicated(keys)
    if repeated.any():
        first = frame[keys].to_numpy()[int(np.argmax(repeated.to_numpy()))].tolist()
        msg = (
            f"ir_datasets' {name!r} judges a document twice ({int(repeated.sum())} repeated "
            f"judgment(s), e.g. {dict(zip(keys, first, strict=True))}); keep one label per "
            "document, e.g. qrels.drop_duplicates(['query', 'doc'], keep='last')"
        )
        raise SchemaError(msg)
    frame.attrs["ir_datasets"] = _record(name, dataset)
    return frame


def run(source: str) -> pd.DataFrame:
    """The scored documents of an ir_datasets dataset (e.g. its BM25 run), as a run frame."""
    name, dataset = _dataset(source, "scoreddocs")
    table = pd.DataFrame.from_records(
        dataset.scoreddocs_iter(), columns=dataset.scoreddocs_cls()._fields
    )
    frame = pd.DataFrame(
        {
            "query": _strings(table["query_id"]),
            "doc": _strings(table["doc_id"]),
            "score": table["score"].to_numpy(dtype=np.float64),
            "run": pd.Series(name, index=table.index, dtype="str"),
        }
    )
    frame.attrs["ir_datasets"] = _record(name, dataset)
    return frame


def queries(source: str) -> pd.DataFrame:
    """The queries of an ir_datasets dataset: ``query`` and one column per query field."""
    name, dataset = _dataset(source, "queries")
    table = pd.DataFrame.from_records(dataset.queries_iter(), columns=dataset.queries_cls()._fields)
    table = table.rename(columns={"query_id": "query"})
    table["query"] = _strings(table["query"])
    table.attrs["ir_datasets"] = _record(name, dataset)
    return table
