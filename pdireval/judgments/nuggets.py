"""Agreement of judges on the assignments of a nugget frame and on the support grades of
a citation frame (see :mod:`pdireval.engine.nuggets` and :mod:`pdireval.engine.citations`).
"""

from __future__ import annotations

from typing import Literal

import numpy as np
import pandas as pd

from pdireval._core.roles import NUGGET_ASSIGNMENTS, ResolvedColumns, resolve
from pdireval.engine import citations as _citations
from pdireval.engine.answers import kept_roles
from pdireval.engine.nuggets import label_codes, refuse_repeats
from pdireval.judgments.agreement import agreement, krippendorff_alpha
from pdireval.typing import ColumnsLike

__all__ = ["nugget_agreement", "nugget_alpha", "support_agreement", "support_alpha"]

Level = Literal["nominal", "ordinal", "interval"]


def nugget_agreement(assignments: pd.DataFrame, *, columns: ColumnsLike = None) -> pd.DataFrame:
    """Agreement of each pair of judges on the assignments of the nuggets both assessed.

    Parameters
    ----------
    assignments : DataFrame
        A nugget frame (run, query, nugget, importance, assignment) with a ``judge``
        column naming whose assignment a row holds (an LLM and a human assessor, say).
    columns : ColumnMap or dict, optional
        Which column plays which role, e.g. ``{"judge": "assessor"}``.

    Returns
    -------
    DataFrame
        As :func:`pdireval.agreement`, one row per pair of judges, with ``nuggets`` (the
        nuggets of an answer both judges assessed) in place of ``documents``: the
        share of equal assignments, Cohen's kappa, and the weighted kappas, which read
        ``not_support`` < ``partial_support`` < ``support`` as 0 < 1 < 2.

    Raises
    ------
    SchemaError
        No judge column, fewer than two judges, unknown assignment labels, or a nugget
        assigned twice by one judge for one answer.

    Examples
    --------
    >>> import pandas as pd, pdireval
    >>> llm = pd.DataFrame({
    ...     "run": "rag-a", "query": "q1", "nugget": ["n1", "n2", "n3", "n4"],
    ...     "importance": "vital",
    ...     "assignment": ["support", "partial_support", "not_support", "support"]})
    >>> human = llm.assign(assignment=["support", "support", "not_support", "support"])
    >>> both = pd.concat([llm.assign(judge="llm"), human.assign(judge="human")])
    >>> pdireval.nugget_agreement(both).round(3)
    statistic        nuggets  agreement  kappa  kappa_linear  kappa_quadratic
    judge_a judge_b
    human   llm            4       0.75  0.556         0.714            0.833
    """
    table = agreement(_nugget_labels(assignments, columns), judge="judge")
    return table.rename(columns={"documents": "nuggets"})


def nugget_alpha(
    assignments: pd.DataFrame, *, level: Level = "ordinal", columns: ColumnsLike = None
) -> float:
    """Krippendorff's alpha of all judges on the assignments of a nugget frame.

    Parameters
    ----------
    assignments : DataFrame
        A nugget frame with a ``judge`` column, as for :func:`pdireval.nugget_agreement`;
        a nugget of an answer need not be assessed by every judge.
    level : {"ordinal", "nominal", "interval"}
        How assignments differ (:func:`pdireval.krippendorff_alpha`): ordinal by
        default, ``not_support`` < ``partial_support`` < ``support``.
    columns : ColumnMap or dict, optional
        Which column plays which role.

    Returns
    -------
    float
        Alpha over the nuggets of an answer assessed by two judges or more; NaN when
        all their assignments are the same.

    Raises
    ------
    SchemaError
        As :func:`pdireval.nugget_agreement`, or no nugget assessed by two judges.

    Examples
    --------
    >>> import pandas as pd, pdireval
    >>> llm = pd.DataFrame({
    ...     "run": "rag-a", "query": "q1", "nugget": ["n1", "n2", "n3", "n4"],
    ...     "importance": "vital",
    ...     "assignment": ["support", "partial_support", "not_support", "support"]})
    >>> human = llm.assign(assignment=["support", "support", "not_support", "support"])
    >>> both = pd.concat([llm.assign(judge="llm"), human.assign(judge="human")])
    >>> round(pdireval.nugget_alpha(both), 4)
    0.75
    """
    return krippendorff_alpha(_nugget_labels(assignments, columns), level=level, judge="judge")


def _nugget_labels(assignments: pd.DataFrame, columns: ColumnsLike) -> pd.DataFrame:
    """The assignments as judgments: query, doc (a nugget of an answer), rel, judge."""
    roles = resolve(assignments, columns)
    roles.require(assignments, "query", "nugget", "assignment", "judge")
    present = assignments[roles.name("nugget")].notna().to_numpy()
    codes = label_codes(assignments, roles, "assignment", NUGGET_ASSIGNMENTS, present)
    refuse_repeats(assignments, roles, kept_roles(roles), present)
    # an answer's nugget: the same nugget in two runs' answers is two items
    return _judgments(assignments, roles, present, codes, ("nugget",))


def support_agreement(citations: pd.DataFrame, *, columns: ColumnsLike = None) -> pd.DataFrame:
    """Agreement of each pair of judges on the support grades of the citations both graded.

    Parameters
    ----------
    citations : DataFrame
        A citation frame (run, query, sentence, doc, support; see
        :func:`pdireval.citation_support`) with a ``judge`` column naming whose grade a
        row holds (an LLM and a human assessor, say).
    columns : ColumnMap or dict, optional
        Which column plays which role, e.g. ``{"judge": "assessor"}``.

    Returns
    -------
    DataFrame
        As :func:`pdireval.agreement`, one row per pair of judges, with ``citations``
        (the (sentence, doc) pairs of an answer both judges graded) in place of
        ``documents``; the weighted kappas read ``no_support`` < ``partial_support`` <
        ``full_support`` as 0 < 1 < 2.

    Raises
    ------
    SchemaError
        No judge column, fewer than two judges, unknown grades, or a citation graded
        twice by one judge for one answer.

    Examples
    --------
    >>> import pandas as pd, pdireval
    >>> llm = pd.DataFrame({
    ...     "run": "rag-a", "query": "q1", "sentence": [0, 0, 1, 2], "doc": "d1",
    ...     "support": ["FS", "PS", "NS", "FS"]})
    >>> llm["doc"] = ["d1", "d2", "d1", "d3"]
    >>> human = llm.assign(support=["FS", "FS", "NS", "PS"])
    >>> both = pd.concat([llm.assign(judge="llm"), human.assign(judge="human")])
    >>> pdireval.support_agreement(both)[["citations", "agreement"]]
    statistic        citations  agreement
    judge_a judge_b
    human   llm              4        0.5
    """
    table = agreement(_support_labels(citations, columns), judge="judge")
    return table.rename(columns={"documents": "citations"})


def support_alpha(
    citations: pd.DataFrame, *, level: Level = "ordinal", columns: ColumnsLike = None
) -> float:
    """Krippendorff's alpha of all judges on the support grades of a citation frame.

    Parameters
    ----------
    citations : DataFrame
        A citation frame with a ``judge`` column, as for :func:`support_agreement`; a
        citation need not be graded by every judge.
    level : {"ordinal", "nominal", "interval"}
        How grades differ (:func:`pdireval.krippendorff_alpha`): ordinal by default,
        ``no_support`` < ``partial_support`` < ``full_support``.
    columns : ColumnMap or dict, optional
        Which column plays which role.

    Returns
    -------
    float
        Alpha over the citations graded by two judges or more; NaN when all their
        grades are the same.

    Raises
    ------
    SchemaError
        As :func:`support_agreement`, or no citation graded by two judges.

    Examples
    --------
    >>> import pandas as pd, pdireval
    >>> llm = pd.DataFrame({
    ...     "run": "rag-a", "query": "q1", "sentence": [0, 0, 1, 2],
    ...     "doc": ["d1", "d2", "d1", "d3"], "support": ["FS", "PS", "NS", "FS"]})
    >>> human = llm.assign(support=["FS", "FS", "NS", "PS"])
    >>> both = pd.concat([llm.assign(judge="llm"), human.assign(judge="human")])
    >>> round(pdireval.support_alpha(both, level="nominal"), 4)
    0.3
    """
    return krippendorff_alpha(_support_labels(citations, columns), level=level, judge="judge")


def _support_labels(citations: pd.DataFrame, columns: ColumnsLike) -> pd.DataFrame:
    """The graded citations as judgments: query, doc (a cited doc of a sentence of an
    answer), rel (the grade's code), judge.
    """
    roles = resolve(citations, columns)
    roles.require(citations, "query", "sentence", "doc", "support", "judge")
    cited = citations[roles.name("doc")].notna().to_numpy()
    codes = _citations.grade_codes(citations, roles, cited)
    _citations.refuse_repeats(citations, roles, kept_roles(roles))
    # a sentence's citation: the same doc cited in two sentences is two items
    return _judgments(citations, roles, cited, codes, ("sentence", "doc"))


def _judgments(
    frame: pd.DataFrame,
    roles: ResolvedColumns,
    judged: np.ndarray,
    codes: np.ndarray,
    item: tuple[str, ...],
) -> pd.DataFrame:
    """The ``judged`` rows of an answer frame as judgments for the agreement measures:
    query, doc (one item of an answer: its ``item`` roles within run, collection and
    seed), rel (the label's code) and judge.
    """
    rows = np.flatnonzero(judged)
    answer = [roles.name(role) for role in ("run", "collection", "seed") if getattr(roles, role)]
    items = frame[[*answer, *(roles.name(role) for role in item)]].iloc[rows]
    return pd.DataFrame(
        {
            "query": frame[roles.name("query")].iloc[rows].to_numpy(),
            "doc": items.groupby(list(items.columns), sort=False, dropna=False).ngroup().to_numpy(),
            "rel": codes[rows].astype(np.float64),
            "judge": frame[roles.name("judge")].iloc[rows].to_numpy(),
        }
    )
