"""Agreement of judges on the assignments of a nugget frame (see
:mod:`pdireval.engine.nuggets` for nugget frames).
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from pdireval._core.roles import NUGGET_ASSIGNMENTS, resolve
from pdireval.engine.nuggets import KEPT, label_codes, refuse_repeats
from pdireval.judgments.agreement import agreement
from pdireval.typing import ColumnsLike

__all__ = ["nugget_agreement"]


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
    roles = resolve(assignments, columns)
    roles.require(assignments, "query", "nugget", "assignment", "judge")
    present = assignments[roles.name("nugget")].notna().to_numpy()
    codes = label_codes(assignments, roles, "assignment", NUGGET_ASSIGNMENTS, present)
    kept = {role: getattr(roles, role) for role in KEPT if getattr(roles, role) is not None}
    refuse_repeats(assignments, roles, {**kept, "judge": roles.name("judge")}, present)
    rows = np.flatnonzero(present)
    answer = [roles.name(role) for role in ("run", "collection", "seed") if getattr(roles, role)]
    item = assignments[[*answer, roles.name("nugget")]].iloc[rows]
    labels = pd.DataFrame(
        {
            "query": assignments[roles.name("query")].iloc[rows].to_numpy(),
            # an answer's nugget: the same nugget in two runs' answers is two items
            "doc": item.groupby(list(item.columns), sort=False, dropna=False).ngroup().to_numpy(),
            "rel": codes[rows].astype(np.float64),
            "judge": assignments[roles.name("judge")].iloc[rows].to_numpy(),
        }
    )
    table = agreement(labels, judge="judge")
    return table.rename(columns={"documents": "nuggets"})
