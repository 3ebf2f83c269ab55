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

from pdireval._core.errors import SchemaError
from pdireval._core.options import Evaluation
from pdireval._core.roles import NUGGET_ASSIGNMENTS, NUGGET_IMPORTANCES, ResolvedColumns
from pdireval.engine.answers import (
    answers_call,
    free_names,
    kept_roles,
    ranked_roles,
    refuse_missing_answers,
    refuse_ranking_options,
    rows,
)
from pdireval.metrics import Metric
from pdireval.metrics.nuggets import NUGGET_FAMILIES, label_code

__all__ = ["as_ranked_frame", "is_nugget_call", "nugget_frame"]

#: The roles of a nugget frame that name its label column once it is turned.
NUGGET_ROLES = ("nugget", "importance", "assignment")


def is_nugget_call(metrics: Sequence[Metric]) -> bool:
    """Whether ``metrics`` are nugget measures (all of them; a mix is refused)."""
    return answers_call(metrics, NUGGET_FAMILIES, "a nugget frame")


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
    refuse_ranking_options(
        options, "nugget measures", "the nuggets' importance and assignment", "a nugget frame"
    )
    roles.require(frame, "query", "nugget", "importance", "assignment")
    kept = kept_roles(roles)
    present = frame[[roles.name("nugget")]].notna().to_numpy()[:, 0]
    importance = label_codes(frame, roles, "importance", NUGGET_IMPORTANCES, present)
    assignment = label_codes(frame, roles, "assignment", NUGGET_ASSIGNMENTS, present)
    refuse_repeats(frame, roles, kept, present)
    refuse_missing_answers(frame, kept, "an answer without nuggets is a row with the nugget empty")
    labels = [roles.name(role) for role in NUGGET_ROLES]
    doc, rank, rel = free_names({*kept.values(), *labels}, "nugget")
    ranked = frame[[*kept.values(), *labels]].reset_index(drop=True)
    n = len(ranked)
    ranked[doc] = np.arange(n, dtype=np.int64)
    ranked[rank] = np.where(present, np.arange(1, n + 1), np.nan)
    ranked[rel] = label_code(importance, assignment)
    return ranked, ranked_roles(kept, doc, rank, rel, NUGGET_ROLES)


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


def _rows(frame: pd.DataFrame, roles: ResolvedColumns, mask: np.ndarray) -> str:
    """The rows of ``mask`` named by answer and nugget (see :func:`answers.rows`)."""
    return rows(frame, roles, mask, ("nugget",))
