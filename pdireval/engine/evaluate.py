"""The evaluation engine: frame + column roles + options -> one per-query table.

Everything that evaluates -- the typed functions, curves, comparisons, reports, plots,
the Dask backend and the command line -- comes through :func:`per_query`: the frame is
validated and prepared once (:func:`pdireval._prepare.prepare.prepare`), every metric
kernel runs over the same prepared arrays, and the values are wrapped once.
"""

from __future__ import annotations

import dataclasses
import warnings
from collections.abc import Sequence

import numpy as np
import pandas as pd

from pdireval._core.errors import MetricError, SchemaError
from pdireval._core.levels import Levels
from pdireval._core.options import Evaluation
from pdireval._core.roles import ResolvedColumns, resolve
from pdireval._prepare.matching import Matched, join_resolved
from pdireval._prepare.merge import has_subtopics, merge_subtopics
from pdireval._prepare.prepare import Prepared, positions, prepare, self_documents
from pdireval.engine import diversity as _diversity
from pdireval.engine.citations import citation_frame
from pdireval.engine.nuggets import nugget_frame
from pdireval.engine.parts import evaluate_parts, has_parts, refuse_parts
from pdireval.metrics import Metric
from pdireval.metrics._define import QueryFailureError
from pdireval.typing import ColumnsLike

__all__ = [
    "at_threshold",
    "documents",
    "of_version",
    "per_part",
    "per_query",
    "prepared",
    "relevance_level",
    "tie_groups",
]


def _documents(
    frame: pd.DataFrame, resolved: ResolvedColumns
) -> tuple[pd.DataFrame, ResolvedColumns, _diversity.Subtopics | None]:
    """A frame of subtopic judgments as one row per document, and its judgments."""
    if resolved.subtopic is None:
        return frame, resolved, None
    collapsed, subtopics = _diversity.split(frame, resolved)
    return collapsed, dataclasses.replace(resolved, subtopic=None), subtopics


def documents(
    frame: pd.DataFrame, resolved: ResolvedColumns
) -> tuple[pd.DataFrame, ResolvedColumns]:
    """The frame with one row per (run, query, doc): a frame of judgments per subtopic
    (what :func:`pdireval.merge_qrels` builds from diversity qrels) collapsed to each
    document's best label; any other frame as it is.
    """
    collapsed, resolved, _ = _documents(frame, resolved)
    return collapsed, resolved


def _judged(
    frame: pd.DataFrame, roles: ResolvedColumns, options: Evaluation
) -> tuple[pd.DataFrame, ResolvedColumns, Matched | None]:
    """The frame to evaluate and its column roles, and -- when the options carry qrels --
    the run's judgments, matched without building the merged frame (judgments per
    subtopic are merged into the frame instead).
    """
    qrels = options.qrels
    if qrels is None:
        return frame, roles, None
    check = qrels.check_overlap
    if has_subtopics(qrels.frame, qrels.roles):
        merged = merge_subtopics(frame, qrels.frame, roles, qrels.roles, check_overlap=check)
        labelled = dataclasses.replace(roles, rel=qrels.roles.rel, subtopic=qrels.roles.subtopic)
        return merged, labelled, None
    joined = join_resolved(
        frame,
        qrels.frame,
        roles,
        qrels.roles,
        check_overlap=check,
        whole=options.rel_threshold is None,
    )
    return frame, roles, joined.matched(qrels.frame, qrels.roles)


def prepared(
    frame: pd.DataFrame, columns: ColumnsLike | ResolvedColumns, options: Evaluation
) -> tuple[Prepared, ResolvedColumns]:
    """Prepare ``frame`` (its roles resolved, or resolved here) for the metric kernels."""
    roles = resolve(frame, columns)
    refuse_parts(roles, options.qrels)
    frame, original, matched = _judged(frame, roles, options)
    frame, resolved, _ = _documents(frame, original)
    return prepare(frame, resolved, options, matched), resolved


def per_query(
    frame: pd.DataFrame,
    metrics: Sequence[Metric],
    columns: ColumnsLike | ResolvedColumns,
    options: Evaluation,
) -> pd.DataFrame:
    """Per-query values of ``metrics``: index query (or (run, query)), one column per label.

    ``columns``: the frame's roles, resolved at the caller's front door (or resolved here).
    A frame with judge, collection or seed columns is refused: see :func:`per_part`.
    """
    frame, roles = nugget_frame(frame, resolve(frame, columns), metrics, options)
    frame, roles = citation_frame(frame, roles, metrics, options)
    refuse_parts(roles, options.qrels)
    return _per_query(frame, metrics, roles, options)


def per_part(
    frame: pd.DataFrame,
    metrics: Sequence[Metric],
    columns: ColumnsLike | ResolvedColumns,
    options: Evaluation,
) -> tuple[pd.DataFrame, Levels]:
    """Per-query values of ``metrics`` with a level per judge, collection and seed when the
    frame (or its judgments) has those columns, and which level is which.
    """
    frame, roles = nugget_frame(frame, resolve(frame, columns), metrics, options)
    frame, roles = citation_frame(frame, roles, metrics, options)
    if has_parts(roles, options.qrels):
        return evaluate_parts(
            frame, roles, options, lambda part, plain, how: _per_query(part, metrics, plain, how)
        )
    table = _per_query(frame, metrics, roles, options)
    return table, Levels.of(table, roles.roles())


def _per_query(
    frame: pd.DataFrame, metrics: Sequence[Metric], roles: ResolvedColumns, options: Evaluation
) -> pd.DataFrame:
    frame, original, matched = _judged(frame, roles, options)
    _refuse_missing_roles(metrics, original, frame)
    documents, resolved, subtopics = _documents(frame, original)
    ready = prepare(documents, resolved, options, matched)
    values = {}
    for metric in metrics:
        effective = at_threshold(metric, options.rel_threshold, ready.ranked.judged_label)
        effective = of_version(effective, options.trec_eval_version)
        if "subtopic" in metric.family.needs and subtopics is not None:
            values[metric.label] = _diverse(
                effective, documents, resolved, ready, subtopics, options
            )
        else:
            values[metric.label] = _compute(effective, ready)
    unjudged = frozenset(m.label for m in metrics if not m.family.needs_judgments)
    return ready.table(values, unjudged)


def relevance_level(rel: int, options: Evaluation) -> float:
    """The smallest relevant label of a call that takes ``rel=`` itself (curves, tie
    groups): ``rel_threshold=`` when given, and then ``rel`` must be left at 1.
    """
    if options.rel_threshold is None:
        return rel
    if rel != 1:
        msg = (
            f"rel={rel} and rel_threshold={options.rel_threshold:g} both set the smallest "
            "relevant label; give it once"
        )
        raise MetricError(msg)
    return options.rel_threshold


def at_threshold(metric: Metric, threshold: float | None, labels: np.ndarray) -> Metric:
    """``metric`` with ``rel_threshold=`` in place of its ``rel=`` (the same metric
    without a threshold); refuses a second threshold, and fractional labels where the
    metric reads labels as whole grades.
    """
    if threshold is None or "rel" not in metric.family.params:
        return metric
    if metric.parameters["rel"] != metric.family.params["rel"].default:
        msg = (
            f"{metric.label} sets rel= and the call sets rel_threshold={threshold:g}; give "
            f"the smallest relevant label once: drop rel= from {metric.label}, or drop "
            "rel_threshold="
        )
        raise MetricError(msg)
    mapping = not isinstance(metric.parameters.get("gain", "linear"), str)
    if metric.family.whole_labels or mapping:
        finite = labels[np.isfinite(labels)]
        fractional = finite[finite != np.round(finite)]
        if len(fractional):
            why = "a gain= mapping lists whole labels" if mapping else "it reads whole grades"
            msg = (
                f"{metric.label} needs whole-number labels ({why}), and the labels "
                f"include {fractional[0]:g}; map them to grades first, or use a measure "
                "that takes them as they are (nDCG, AP, P, ...)"
            )
            raise MetricError(msg)
    params = tuple((n, threshold if n == "rel" else v) for n, v in metric.params)
    return Metric(metric.family, params, metric.k)


def of_version(metric: Metric, version: str) -> Metric:
    """``metric`` by the rules of trec_eval ``version`` (``trec_eval_version=``), for a
    family whose versions differ and that does not name a version itself.
    """
    if "version" not in metric.family.params or metric.parameters["version"] is not None:
        return metric
    params = tuple((n, version if n == "version" else v) for n, v in metric.params)
    return Metric(metric.family, params, metric.k)


def _diverse(
    metric: Metric,
    frame: pd.DataFrame,
    resolved: ResolvedColumns,
    ready: Prepared,
    subtopics: _diversity.Subtopics,
    options: Evaluation,
) -> np.ndarray:
    """A diversity measure: the rankings in evaluation order, then ndeval's definitions."""
    _diversity.refuse_policy(options.ties)
    position, group = positions(frame, resolved)
    leave = np.zeros(len(position), dtype=bool)
    if options.ignore_self:  # a document equal to its query leaves the ranking
        leave |= self_documents(frame, resolved)
    if options.judged_only:  # trec_eval -J: unjudged documents leave the ranking
        numbers = pd.to_numeric(frame[resolved.name("rel")], errors="coerce")
        label = numbers.to_numpy(dtype=np.float64, na_value=np.nan)
        leave |= ~(label >= 0)
    if leave.any():
        position = np.where(leave, np.nan, position)
        retrieved = ~np.isnan(position)
        order = np.lexsort((position[retrieved], group[retrieved]))
        rows = np.flatnonzero(retrieved)[order]
        starts = np.r_[True, group[rows][1:] != group[rows][:-1]]
        index = np.arange(len(rows))
        position[rows] = index - np.maximum.accumulate(np.where(starts, index, 0)) + 1
    if options.max_rank is not None:
        position = np.where(position <= options.max_rank, position, np.nan)
    doc_order = -pd.factorize(frame[resolved.name("doc")].astype(str), sort=True)[0]
    with np.errstate(under="ignore"):
        return _diversity.diversity_values(
            metric.family.name,
            metric.parameters,
            metric.k,
            position,
            group,
            len(ready.index),
            doc_order,
            subtopics,
        )


def _compute(metric: Metric, ready: Prepared) -> np.ndarray:
    """One metric's values; a floating-point overflow or invalid operation is an error.

    A metric of your own (:func:`pdireval.metrics.define`, ``define_per_query``) runs
    with numpy's warnings as errors too, and what goes wrong in it -- a value that is no
    number, a write into the read-only arrays, a floating-point failure -- is a
    :class:`MetricError` naming the metric and, for a per-query function, the query.
    Built-in metrics pay nothing for these checks.
    """
    yours = bool(getattr(metric.family, "user_defined", False))
    try:
        with np.errstate(over="raise", invalid="raise", divide="raise", under="ignore"):
            if not yours:
                return metric.compute(ready.ranked, average=ready.average)
            with warnings.catch_warnings():
                warnings.simplefilter("error", RuntimeWarning)
                return metric.compute(ready.ranked, average=ready.average)
    except QueryFailureError as failure:  # a per-query function, on one group
        msg = failure.message(metric.label, _group_named(ready, failure.group))
        raise MetricError(msg) from failure.__cause__
    except MetricError:
        raise
    except (FloatingPointError, RuntimeWarning) as error:
        msg = _floating_point_failure(metric, ready, error, yours)
        raise MetricError(msg) from error
    except ValueError as error:
        if not (yours and "read-only" in str(error)):
            raise
        msg = (
            f"your kernel of {metric.label} wrote into the prepared arrays ({error}); they "
            "are read-only because every metric of the call reads them: compute into new "
            "arrays, or a copy (e.g. labels = ranked.label.copy())"
        )
        raise MetricError(msg) from error


def _floating_point_failure(metric: Metric, ready: Prepared, error: Exception, yours: bool) -> str:
    """The message of a kernel that failed in floating point (or, your own, warned)."""
    if yours:
        did = "warned" if isinstance(error, RuntimeWarning) else "failed in floating point"
        return (
            f"your kernel of {metric.label} {did} ({error}); evaluation "
            "stops at overflow, division by zero and invalid operations (and at numpy's "
            "warnings): divide only where the divisor is not zero, e.g. np.divide(a, b, "
            "out=np.full_like(a, np.nan), where=b != 0) -- NaN is the value of a query "
            "where the measure is undefined"
        )
    largest = np.max(ready.ranked.judged_label, initial=0.0)
    return (
        f"computing {metric.label} failed in floating point ({error}); the largest "
        f"relevance label is {largest:g}: use labels on a small graded scale, or a gain "
        "mapping, so that gains stay finite"
    )


def _group_named(ready: Prepared, group: int) -> str:
    """A group's ids as a message names them: ``run 'bm25', query 'q2'``."""
    index = ready.index
    key = index[group]
    ids = key if isinstance(index, pd.MultiIndex) else (key,)
    return ", ".join(
        f"{'query' if name is None else name} {value!r}"
        for name, value in zip(index.names, ids, strict=True)
    )


#: (role, measure kind, frame) of the answer frames the engine converts.
_ANSWER_KINDS = (
    (
        "nugget",
        "a nugget measure",
        "a nugget frame (columns run, query, nugget, importance, assignment)",
    ),
    (
        "support",
        "a citation support measure",
        "a citation frame (columns run, query, sentence, doc, support)",
    ),
)


def _refuse_missing_roles(
    metrics: Sequence[Metric], columns: ResolvedColumns, frame: pd.DataFrame
) -> None:
    """A metric reading a column the frame lacks (``known``) would be silently undefined;
    a nugget or citation support measure reads labels only the engine's conversion of an
    answer frame makes (its answer roles name the label column, which no user's roles can).
    """
    for metric in metrics:
        for role, kind, frame_of in _ANSWER_KINDS:
            named = getattr(columns, role)
            if role in metric.family.needs and (named is None or named != columns.rel):
                msg = (
                    f"{metric.label} is {kind}: it reads {frame_of}, which this function was "
                    "not given as one"
                )
                raise SchemaError(msg)
        for role in metric.family.needs:
            if getattr(columns, role) is None:
                msg = (
                    f"{metric.label} needs a {role!r} column (columns: {list(frame.columns)}); "
                    f"add one, or map it with df.ireval({role}='<column>')"
                )
                raise SchemaError(msg)


def tie_groups(
    frame: pd.DataFrame, k: int, rel: int, columns: ColumnsLike, options: Evaluation
) -> pd.DataFrame:
    """Groups of equal scores that straddle cutoff ``k``; see :func:`pdireval.tie_groups`."""
    rel = relevance_level(rel, options)  # type: ignore[assignment]
    ready, _ = prepared(frame, columns, options)
    ranked = ready.ranked
    keep = ready.keep[ranked.group]
    group, first = ranked.group[keep], ranked.tie_first[keep]
    size, relevant = ranked.tie_size[keep], ranked.relevant(rel)[keep]
    judged = ranked.label[keep] >= 0
    new = np.ones(len(group), dtype=bool)
    new[1:] = (group[1:] != group[:-1]) | (first[1:] != first[:-1])
    starts = np.flatnonzero(new)
    block = np.cumsum(new) - 1
    table = pd.DataFrame(
        {
            "first_rank": first[starts],
            "last_rank": first[starts] + size[starts] - 1,
            "size": size[starts],
            "judged": np.bincount(block, weights=judged, minlength=len(starts)).astype(int),
            "relevant": np.bincount(block, weights=relevant, minlength=len(starts)).astype(int),
        }
    )
    straddles = ((table["first_rank"] <= k) & (table["last_rank"] > k)).to_numpy()
    ids = ready.index.take(group[starts][straddles]).to_frame(index=False)
    return pd.concat([ids, table[straddles].reset_index(drop=True)], axis=1)
