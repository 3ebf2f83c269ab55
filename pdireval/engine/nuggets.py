"""Nugget frames: generated answers judged by nuggets, evaluated like runs.

Every evaluation of the engine starts here: a call of nugget measures turns its nugget
frame into a ranked one (:func:`nugget_frame`), so that every analysis, figure and
partitioned frame takes nugget frames as it takes runs.

A nugget frame holds one row per (run, query, nugget) -- optionally per judge,
collection and seed -- with the nugget's importance (``vital``/``okay``) and whether
the run's answer supports it (``support``/``partial_support``/``not_support``), as
nuggetizer assigns them. :func:`as_ranked_frame` checks such a frame and turns it into
the long frame the engine evaluates: every nugget a retrieved row whose label codes its
importance and assignment (:func:`pdireval.metrics.nuggets.label_code`), so that the
nugget measures, judges, collections, seeds, summaries, comparisons and reports take it
as they take a run.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd

from pdireval._core.errors import MetricError, ParameterError, SchemaError
from pdireval._core.options import Evaluation
from pdireval._core.roles import (
    NUGGET_ASSIGNMENTS,
    NUGGET_IMPORTANCES,
    PART_ROLES,
    ResolvedColumns,
)
from pdireval.metrics import Metric
from pdireval.metrics.nuggets import NUGGET_FAMILIES, label_code

__all__ = ["as_ranked_frame", "is_nugget_call", "nugget_frame"]

#: The roles a nugget frame keeps: they name its answers.
KEPT = ("run", *PART_ROLES, "query")


def is_nugget_call(metrics: Sequence[Metric]) -> bool:
    """Whether ``metrics`` are nugget measures (all of them; a mix is refused)."""
    nuggets = [m.label for m in metrics if m.family in NUGGET_FAMILIES]
    if not nuggets:
        return False
    others = [m.label for m in metrics if m.family not in NUGGET_FAMILIES]
    if others:
        more = f" and {len(others) - 3} more" if len(others) > 3 else ""
        msg = (
            f"{nuggets} read a nugget frame and {others[:3]}{more} a ranking: evaluate "
            "them in separate calls"
        )
        raise MetricError(msg)
    return True


def nugget_frame(
    frame: pd.DataFrame, roles: ResolvedColumns, metrics: Sequence[Metric], options: Evaluation
) -> tuple[pd.DataFrame, ResolvedColumns]:
    """The frame and roles the engine evaluates ``metrics`` on: for nugget measures, the
    ranked frame of the nugget frame ``frame`` (once: a frame turned already, whose nugget
    roles name its label column, is kept); any other call's frame as it is.
    """
    if not is_nugget_call(metrics) or (roles.nugget is not None and roles.nugget == roles.rel):
        return frame, roles
    return as_ranked_frame(frame, roles, options)


def as_ranked_frame(
    frame: pd.DataFrame, roles: ResolvedColumns, options: Evaluation
) -> tuple[pd.DataFrame, ResolvedColumns]:
    """The long frame the engine evaluates for the nugget frame ``frame``, and its roles.

    Each nugget is a retrieved row in frame order, labelled with its importance and
    assignment's code; a row without a nugget (and without importance and assignment)
    stands for an answer with no nuggets, which scores 0 as in nuggetizer.
    """
    _refuse_options(options)
    roles.require(frame, "query", "nugget", "importance", "assignment")
    kept = {role: getattr(roles, role) for role in KEPT if getattr(roles, role) is not None}
    present = frame[[roles.name("nugget")]].notna().to_numpy()[:, 0]
    importance = label_codes(frame, roles, "importance", NUGGET_IMPORTANCES, present)
    assignment = label_codes(frame, roles, "assignment", NUGGET_ASSIGNMENTS, present)
    refuse_repeats(frame, roles, kept, present)
    _refuse_missing_answers(frame, kept)
    labels = [roles.name(role) for role in ("nugget", "importance", "assignment")]
    doc, rank, rel = _free_names({*kept.values(), *labels})
    ranked = frame[[*kept.values(), *labels]].reset_index(drop=True)
    n = len(ranked)
    ranked[doc] = np.arange(n, dtype=np.int64)
    ranked[rank] = np.where(present, np.arange(1, n + 1), np.nan)
    ranked[rel] = label_code(importance, assignment)
    resolved = ResolvedColumns(
        query=kept["query"],
        doc=doc,
        rank=rank,
        rel=rel,
        score=None,
        run=kept.get("run"),
        known=None,
        subtopic=None,
        time=None,
        judge=kept.get("judge"),
        collection=kept.get("collection"),
        seed=kept.get("seed"),
        # the nugget roles name the label column: only this conversion makes them one
        # column with rel, which the engine asks of a nugget measure's frame
        nugget=rel,
        importance=rel,
        assignment=rel,
    )
    return ranked, resolved


def _refuse_options(options: Evaluation) -> None:
    """The options that cut or re-judge a ranking mean nothing for nuggets."""
    if options.qrels is not None:
        msg = (
            "nugget measures read the nuggets' importance and assignment from the frame; "
            "drop qrels="
        )
        raise ParameterError(msg)
    if options.max_rank is not None or options.ignore_self:
        msg = (
            "max_rank= and ignore_self= cut a ranking; a nugget frame has none: drop them "
            "for nugget measures"
        )
        raise ParameterError(msg)


def label_codes(
    frame: pd.DataFrame,
    roles: ResolvedColumns,
    role: str,
    labels: tuple[str, ...],
    present: np.ndarray,
) -> np.ndarray:
    """Each row's position of its ``role`` label in ``labels`` (0 for rows without a
    nugget); a label outside ``labels``, or one on a row without a nugget, is refused
    with the rows named.
    """
    column = roles.name(role)
    values = frame[column].astype(object).to_numpy()
    missing = pd.isna(values)
    codes = (
        pd.Index(labels, dtype=object).get_indexer(pd.Index(values, dtype=object)).astype(np.int64)
    )  # -1: other
    bad = present & (codes < 0)
    if bad.any():
        found = sorted({repr(v) for v in values[bad]})
        hint = (
            "; nuggetizer writes 'failed' where its model gave no answer and scores such a "
            "nugget as not supported (assignment) or okay (importance): replace it first, "
            f"e.g. frame[{column!r}].replace('failed', ...)"
            if "'failed'" in found
            else ""
        )
        msg = (
            f"the {role} column {column!r} holds {', '.join(found[:5])}; the labels are "
            f"{list(labels)} ({_rows(frame, roles, bad)}){hint}"
        )
        raise SchemaError(msg)
    stray = ~present & ~missing
    if stray.any():
        msg = (
            f"rows without a nugget stand for an answer with no nuggets and take no {role}, "
            f"but {_rows(frame, roles, stray)} have one: give their nugget, or leave the "
            f"{role} empty"
        )
        raise SchemaError(msg)
    return np.where(present, codes, 0)


def refuse_repeats(
    frame: pd.DataFrame, roles: ResolvedColumns, kept: dict[str, str], present: np.ndarray
) -> None:
    """A nugget assigned twice for one answer (run, query, nugget[, judge]) is refused."""
    keys = [*kept.values(), roles.name("nugget")]
    repeated = frame[keys].duplicated(keep=False).to_numpy() & present
    if repeated.any():
        answer = ", ".join(keys)
        msg = (
            f"a nugget is assigned more than once for one answer ({answer}): "
            f"{_rows(frame, roles, repeated)}; keep one assignment per nugget, e.g. "
            f"frame.drop_duplicates({keys!r})"
        )
        raise SchemaError(msg)


def _refuse_missing_answers(frame: pd.DataFrame, kept: dict[str, str]) -> None:
    """Every run answers every query another run answers (within one judge, collection
    and seed): a missing answer would be left out of one run's mean and of the paired
    comparisons. An answer without nuggets is a row whose nugget is empty.
    """
    run = kept.get("run")
    if run is None:
        return
    parts = [kept[role] for role in PART_ROLES if role in kept]
    query = kept["query"]
    answers = frame[[*parts, query, run]].drop_duplicates()
    if parts:
        runs = answers.groupby(parts, sort=False, dropna=False)[run].transform("nunique")
    else:
        runs = pd.Series(answers[run].nunique(), index=answers.index)
    answered = answers.groupby([*parts, query], sort=False, dropna=False)[run].transform("nunique")
    short = answers[(answered < runs).to_numpy()]
    if short.empty:
        return
    first = short.iloc[0]
    block = (short[[*parts, query]] == first[[*parts, query]]).all(axis=1)
    if parts:
        same_part = (answers[parts] == first[parts]).all(axis=1)
        every = answers.loc[same_part, run].unique()
    else:
        every = answers[run].unique()
    missing = sorted(set(every) - set(short.loc[block, run]), key=str)
    where = ", ".join(f"{name} {first[name]!r}" for name in [*parts, query])
    more = short[[*parts, query]].drop_duplicates()
    others = f" (and {len(more) - 1} more queries)" if len(more) > 1 else ""
    msg = (
        f"run(s) {missing[:5]} have no answer for {where}{others}, which other runs "
        "answer; give each run's answer to every query -- an answer without nuggets is "
        "a row with the nugget empty -- or select the queries all runs answer"
    )
    raise SchemaError(msg)


def _rows(frame: pd.DataFrame, roles: ResolvedColumns, mask: np.ndarray) -> str:
    """The rows of ``mask`` as a message names them: ``rows 3 (run 'a', query 'q1', nugget
    'n2') and 7 (...)``, at most five.
    """
    where = np.flatnonzero(mask)
    names = [r for r in (*KEPT, "nugget") if getattr(roles, r) is not None]
    shown = []
    for i in where[:5]:
        ids = ", ".join(f"{r} {frame[roles.name(r)].iloc[i]!r}" for r in names)
        shown.append(f"{frame.index[i]!r} ({ids})")
    more = f" and {len(where) - 5} more" if len(where) > 5 else ""
    return f"row{'s' if len(where) > 1 else ''} {', '.join(shown)}{more}"


def _free_names(taken: set[str]) -> tuple[str, str, str]:
    """Names for the doc, rank and rel columns that no kept column has."""
    names = []
    for base in ("nugget_row", "nugget_position", "nugget_label"):
        name = base
        while name in taken:
            name = f"_{name}"
        names.append(name)
    return names[0], names[1], names[2]
