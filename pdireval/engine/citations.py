"""Citation frames: generated answers judged by the support of their citations.

A citation frame holds one row per (run, query, sentence, cited doc) -- optionally per
judge, collection and seed -- with the grade of the support the cited document gives
the sentence (``full_support``, ``partial_support`` or ``no_support``; the TREC 2024
RAG track's "Full Support"/"FS" spellings are read as these). A row whose doc is empty
stands for a sentence without citations, a row whose sentence is empty for an answer
without sentences. :func:`as_ranked_frame` checks such a frame and turns it into the
long frame the engine evaluates: a retrieved row per (sentence, citation) pair and one
per sentence with the best grade of its citations, the kind and grade coded in the
label (:func:`pdireval.metrics.citations.label_code`), so that the citation support
measures, judges, collections, seeds, summaries, comparisons and reports take it as
they take a run.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd

from pdireval._core.errors import SchemaError
from pdireval._core.options import Evaluation
from pdireval._core.roles import SUPPORT_GRADES, SUPPORT_SPELLINGS, ResolvedColumns
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
from pdireval.metrics.citations import CITATION_FAMILIES, label_code

__all__ = ["as_ranked_frame", "citation_frame", "grade_codes", "is_citation_call"]

#: The roles of a citation frame that name its label column once it is turned.
CITATION_ROLES = ("sentence", "support")


def is_citation_call(metrics: Sequence[Metric]) -> bool:
    """Whether ``metrics`` are citation support measures (all of them; a mix is refused)."""
    return answers_call(metrics, CITATION_FAMILIES, "a citation frame")


def citation_frame(
    frame: pd.DataFrame, roles: ResolvedColumns, metrics: Sequence[Metric], options: Evaluation
) -> tuple[pd.DataFrame, ResolvedColumns]:
    """The frame and roles the engine evaluates ``metrics`` on: for citation support
    measures, the ranked frame of the citation frame ``frame`` (once: a frame turned
    already, whose support role names its label column, is kept); any other call's frame
    as it is.
    """
    if not is_citation_call(metrics) or (roles.support is not None and roles.support == roles.rel):
        return frame, roles
    return as_ranked_frame(frame, roles, options)


def as_ranked_frame(
    frame: pd.DataFrame, roles: ResolvedColumns, options: Evaluation
) -> tuple[pd.DataFrame, ResolvedColumns]:
    """The long frame the engine evaluates for the citation frame ``frame``, and its roles.

    Rows, in this order: each (sentence, citation) pair in frame order, labelled with its
    grade; each sentence in order of first appearance, labelled with the best grade of
    its citations (``no_support`` for one without); each answer without sentences, not
    retrieved, so that it scores 0.
    """
    refuse_ranking_options(
        options, "citation support measures", "the support grades", "a citation frame"
    )
    roles.require(frame, "query", "sentence", "doc", "support")
    kept = kept_roles(roles)
    ids = list(kept.values())
    sentence, doc = roles.name("sentence"), roles.name("doc")
    has_sentence = frame[sentence].notna().to_numpy()
    cited = frame[doc].notna().to_numpy()
    _refuse_doc_without_sentence(frame, roles, cited & ~has_sentence)
    grades = grade_codes(frame, roles, cited)
    refuse_repeats(frame, roles, kept)
    refuse_missing_answers(
        frame, kept, "an answer without sentences is a row with the sentence empty"
    )
    rows = frame[ids].reset_index(drop=True)
    pairs = rows[cited]
    # each sentence once, with the best grade of its citations (0: none)
    keys = frame[[*ids, sentence]].reset_index(drop=True)[has_sentence]
    group = keys.groupby([*ids, sentence], sort=False, dropna=False).ngroup().to_numpy()
    best = np.zeros(group.max() + 1 if len(group) else 0, dtype=np.int64)
    np.maximum.at(best, group, grades[has_sentence])
    first = ~pd.Series(group).duplicated().to_numpy()
    sentences = keys[ids][first]
    # each answer without sentences once
    answer = rows.groupby(ids, sort=False, dropna=False).ngroup().to_numpy()
    empty = ~np.isin(answer, answer[has_sentence]) & ~pd.Series(answer).duplicated().to_numpy()
    ranked = pd.concat([pairs, sentences, rows[empty]], ignore_index=True)
    n_pairs, n_sentences, n = len(pairs), len(sentences), len(ranked)
    doc_name, rank, rel = free_names({*ids, sentence, doc}, "citation")
    ranked[doc_name] = np.arange(n, dtype=np.int64)
    ranked[rank] = np.where(np.arange(n) < n_pairs + n_sentences, np.arange(1, n + 1), np.nan)
    kind = np.r_[np.zeros(n_pairs), np.ones(n_sentences), np.zeros(n - n_pairs - n_sentences)]
    grade = np.r_[grades[cited], best, np.zeros(n - n_pairs - n_sentences)]
    ranked[rel] = label_code(kind, grade)
    return ranked, ranked_roles(kept, doc_name, rank, rel, CITATION_ROLES)


def grade_codes(frame: pd.DataFrame, roles: ResolvedColumns, cited: np.ndarray) -> np.ndarray:
    """Each row's support grade as its position in :data:`SUPPORT_GRADES` (0 for rows
    without a citation); a grade of another spelling, a cited doc without a grade, or a
    grade on a row without a cited doc is refused with the rows named.
    """
    column = roles.name("support")
    values = frame[column].astype(object).to_numpy()
    missing = pd.isna(values)
    # each distinct spelling read once, not each row
    inverse, kinds = pd.factorize(pd.Series(values, dtype=object), use_na_sentinel=True)
    spelled = pd.Index([_canonical(kind) for kind in kinds], dtype=object)
    known = pd.Index(SUPPORT_GRADES, dtype=object).get_indexer(spelled)
    codes = np.append(known, -1)[inverse]  # -1: missing, or not a grade
    bad = cited & (codes < 0)
    if bad.any():
        found = sorted({repr(v) for v in values[bad]})
        msg = (
            f"the support column {column!r} holds {', '.join(found[:5])}; the grades are "
            f"{list(SUPPORT_GRADES)} (also spelled 'Full Support', 'FS', ...) "
            f"({_rows(frame, roles, bad)}); every cited doc needs a grade"
        )
        raise SchemaError(msg)
    stray = ~cited & ~missing
    if stray.any():
        msg = (
            "rows without a cited doc stand for a sentence without citations (or an answer "
            f"without sentences) and take no support grade, but {_rows(frame, roles, stray)} "
            "have one: give their doc, or leave the grade empty"
        )
        raise SchemaError(msg)
    return np.where(cited, codes, 0).astype(np.int64)


def _canonical(value: object) -> object:
    """A grade's canonical name, or the value itself when it is not a grade's spelling."""
    if not isinstance(value, str):
        return value
    key = value.strip().lower().replace(" ", "_").replace("-", "_")
    return SUPPORT_SPELLINGS.get(key, value)


def _refuse_doc_without_sentence(
    frame: pd.DataFrame, roles: ResolvedColumns, mask: np.ndarray
) -> None:
    if mask.any():
        msg = (
            f"a cited doc belongs to an answer sentence, but {_rows(frame, roles, mask)} have "
            "no sentence: give each citation's sentence"
        )
        raise SchemaError(msg)


def refuse_repeats(frame: pd.DataFrame, roles: ResolvedColumns, kept: dict[str, str]) -> None:
    """A (sentence, doc) pair twice for one answer (run, query[, judge, ...]) is refused;
    so is a sentence listed twice without citations.
    """
    keys = [*kept.values(), roles.name("sentence"), roles.name("doc")]
    present = frame[roles.name("sentence")].notna().to_numpy()
    repeated = frame[keys].duplicated(keep=False).to_numpy() & present
    if repeated.any():
        answer = ", ".join(keys)
        msg = (
            f"a citation is graded more than once for one answer ({answer}): "
            f"{_rows(frame, roles, repeated)}; keep one grade per sentence and cited doc, "
            f"e.g. frame.drop_duplicates({keys!r})"
        )
        raise SchemaError(msg)


def _rows(frame: pd.DataFrame, roles: ResolvedColumns, mask: np.ndarray) -> str:
    """The rows of ``mask`` named by answer, sentence and doc (see :func:`answers.rows`)."""
    return rows(frame, roles, mask, ("sentence", "doc"))
