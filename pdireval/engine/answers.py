"""What nugget frames and citation frames share: generated answers, judged row by row.

Both kinds of frame name an answer by its run and query (and judge, collection, seed),
and both are turned into the ranked frame the engine evaluates
(:mod:`pdireval.engine.nuggets`, :mod:`pdireval.engine.citations`). The checks and the
naming of rows in messages are the same for both and live here.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import pandas as pd

from pdireval._core.errors import MetricError, ParameterError, SchemaError
from pdireval._core.options import Evaluation
from pdireval._core.roles import PART_ROLES, ResolvedColumns

__all__ = [
    "KEPT",
    "answers_call",
    "free_names",
    "kept_roles",
    "ranked_roles",
    "refuse_missing_answers",
    "refuse_ranking_options",
    "rows",
]

#: The roles an answer frame keeps: they name its answers.
KEPT = ("run", *PART_ROLES, "query")


def answers_call(metrics: Sequence[Any], families: Sequence[Any], kind: str) -> bool:
    """Whether ``metrics`` are all measures of ``families``, which read ``kind`` (e.g.
    ``"a nugget frame"``); a mix with other measures is refused.
    """
    mine = [m.label for m in metrics if m.family in families]
    if not mine:
        return False
    others = [m.label for m in metrics if m.family not in families]
    if others:
        more = f" and {len(others) - 3} more" if len(others) > 3 else ""
        msg = (
            f"{mine} read {kind} and {others[:3]}{more} another frame: evaluate them in "
            "separate calls"
        )
        raise MetricError(msg)
    return True


def kept_roles(roles: ResolvedColumns) -> dict[str, str]:
    """Role -> column of the roles that name an answer, in :data:`KEPT` order."""
    return {role: getattr(roles, role) for role in KEPT if getattr(roles, role) is not None}


def refuse_ranking_options(options: Evaluation, measures: str, reads: str, kind: str) -> None:
    """The options that cut or re-judge a ranking mean nothing for ``measures`` (e.g.
    ``"nugget measures"``), which read ``reads`` from their frame, ``kind`` (e.g. ``"a
    nugget frame"``).
    """
    if options.qrels is not None:
        msg = f"{measures} read {reads} from the frame; drop qrels="
        raise ParameterError(msg)
    if options.max_rank is not None or options.ignore_self:
        msg = f"max_rank= and ignore_self= cut a ranking; {kind} has none: drop them for {measures}"
        raise ParameterError(msg)


def refuse_missing_answers(frame: pd.DataFrame, kept: dict[str, str], empty: str) -> None:
    """Every run answers every query another run answers (within one judge, collection
    and seed): a missing answer would be left out of one run's mean and of the paired
    comparisons. ``empty`` says how a frame gives an empty answer.
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
        every = answers.loc[(answers[parts] == first[parts]).all(axis=1), run].unique()
    else:
        every = answers[run].unique()
    missing = sorted(set(every) - set(short.loc[block, run]), key=str)
    where = ", ".join(f"{name} {first[name]!r}" for name in [*parts, query])
    more = short[[*parts, query]].drop_duplicates()
    others = f" (and {len(more) - 1} more queries)" if len(more) > 1 else ""
    msg = (
        f"run(s) {missing[:5]} have no answer for {where}{others}, which other runs "
        f"answer; give each run's answer to every query -- {empty} -- or select the "
        "queries all runs answer"
    )
    raise SchemaError(msg)


def rows(
    frame: pd.DataFrame, roles: ResolvedColumns, mask: np.ndarray, named: Sequence[str]
) -> str:
    """The rows of ``mask`` as a message names them, by the answer's roles and ``named``
    ones: ``rows 3 (run 'a', query 'q1', nugget 'n2') and 7 (...)``, at most five.
    """
    where = np.flatnonzero(mask)
    names = [r for r in (*KEPT, *named) if getattr(roles, r) is not None]
    shown = []
    for i in where[:5]:
        ids = ", ".join(f"{r} {_plain(frame[roles.name(r)].iloc[i])!r}" for r in names)
        shown.append(f"{_plain(frame.index[i])!r} ({ids})")
    more = f" and {len(where) - 5} more" if len(where) > 5 else ""
    return f"row{'s' if len(where) > 1 else ''} {', '.join(shown)}{more}"


def _plain(value: object) -> object:
    """A numpy scalar as the Python value it holds (shown as ``3``, not ``np.int64(3)``)."""
    return value.item() if isinstance(value, np.generic) else value


def free_names(taken: set[str], prefix: str) -> tuple[str, str, str]:
    """Names for the doc, rank and rel columns of the ranked frame that no kept column has:
    ``{prefix}_row``, ``{prefix}_position``, ``{prefix}_label`` (underscores before them
    while taken).
    """
    names = []
    for base in (f"{prefix}_row", f"{prefix}_position", f"{prefix}_label"):
        name = base
        while name in taken:
            name = f"_{name}"
        names.append(name)
    return names[0], names[1], names[2]


def ranked_roles(
    kept: dict[str, str], doc: str, rank: str, rel: str, answer: Sequence[str]
) -> ResolvedColumns:
    """The roles of the ranked frame: the answer's roles kept, ``doc``/``rank``/``rel``
    the new columns, and the frame kind's own roles (``answer``, e.g. ``("nugget",
    "importance", "assignment")``) naming the label column -- only the conversion makes
    them one column with rel, which the engine asks of such a measure's frame.
    """
    return ResolvedColumns(
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
        **dict.fromkeys(answer, rel),
    )
