"""Evaluating runs with preferences and judgment groups: the public functions.

One call reads the run's columns once, codes the ids of the run and the judgments
together, builds what the judgments imply once, and then ranks and counts each run (a
loop over the runs of the frame, each run's queries at once).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, NamedTuple

import numpy as np
import pandas as pd

from pdireval._core.errors import ParameterError, SchemaError
from pdireval._core.options import QUERY_POLICIES, TREC_EVAL_VERSIONS, whole
from pdireval._core.roles import resolve
from pdireval.preferences import counting, groups, pairs, ranking
from pdireval.preferences.codes import Codes, encode
from pdireval.preferences.formats import checked_prefs, checked_qrels_jg, prefs_from_qrels
from pdireval.preferences.measures import (
    SUMMED,
    JgMeasure,
    jg_measures,
    prefs_measures,
    trec_order,
)

if TYPE_CHECKING:
    from pdireval.typing import ColumnsLike, QueryPolicy, TrecEvalVersion

__all__ = [
    "RELATION_FORMATS",
    "TrecTable",
    "evaluate_prefs",
    "evaluate_qrels_jg",
    "prefs_summary",
    "trec_table",
]

#: trec_eval's ``-R`` formats :func:`trec_table` reads.
RELATION_FORMATS = ("prefs", "qrels_prefs", "qrels_jg")


# --------------------------------------------------------------------------- the run


@dataclass(frozen=True)
class _Call:
    """A run frame and its judgments, their ids coded together."""

    queries: Codes
    docs: Codes
    run_query: np.ndarray
    run_doc: np.ndarray
    key: np.ndarray  # score, or rank with by_rank
    by_rank: bool
    run_of_row: np.ndarray  # run number of each row (0 without a run column)
    run_names: pd.Index | None  # None: no run column
    query_name: Any
    run_name: Any

    @property
    def n_runs(self) -> int:
        return 1 if self.run_names is None else len(self.run_names)

    def rows(self) -> list[np.ndarray]:
        """The rows of each run (one run, maybe without rows, without a run column)."""
        if self.n_runs == 0:
            return []
        order = np.argsort(self.run_of_row, kind="stable")
        return np.split(order, np.searchsorted(self.run_of_row[order], np.arange(1, self.n_runs)))

    def run_label(self, number: int) -> str:
        if self.run_names is None:
            return "the run"
        return f"run {self.run_names[number]!r}"


def _read_run(run: pd.DataFrame, columns: ColumnsLike) -> tuple[dict[str, pd.Series], Any]:
    """The run's query, doc, key (score, or rank) and run columns, without the rows that
    have neither (not retrieved), and its resolved roles.
    """
    resolved = resolve(run, columns)
    resolved.require(run, "query", "doc")
    resolved.refuse_parts("the run")
    by_rank = resolved.rank is not None
    if not by_rank and resolved.score is None:
        msg = (
            f"the run has neither a score nor a rank column (columns: {list(run.columns)}); "
            "trec_eval ranks a run by score: map it with columns={'score': '<column>'}"
        )
        raise SchemaError(msg)
    name = resolved.name("rank" if by_rank else "score")
    key = pd.to_numeric(run[name], errors="coerce").to_numpy(dtype=np.float64, na_value=np.nan)
    if (np.isnan(key) & run[name].notna().to_numpy()).any():
        msg = f"the run's {'rank' if by_rank else 'score'} column {name!r} must hold numbers"
        raise SchemaError(msg)
    kept = ~np.isnan(key)
    roles = {"query": resolved.query, "doc": resolved.doc, "run": resolved.run}
    found = {
        role: run[column] if kept.all() else run[column][kept]
        for role, column in roles.items()
        if column is not None
    }
    for role in ("query", "doc"):
        if found[role].isna().any():
            msg = f"the run has a missing {role} id; drop or fill those rows first"
            raise SchemaError(msg)
    found["key"] = pd.Series(key[kept])
    return found, resolved


def _call(run: pd.DataFrame, judgments: pd.DataFrame, columns: ColumnsLike, what: str) -> _Call:
    found, resolved = _read_run(run, columns)
    queries = encode("query", [("the run", found["query"]), (what, judgments["query"])])
    docs = encode("doc", [("the run", found["doc"]), (what, judgments["doc"])])
    run_names, run_of_row = None, np.zeros(len(found["key"]), dtype=np.int64)
    if "run" in found:
        codes, names = pd.factorize(found["run"], sort=True)
        run_of_row, run_names = codes.astype(np.int64), pd.Index(names)
    _refuse_no_overlap(queries, what)
    return _Call(
        queries=queries,
        docs=docs,
        run_query=queries.parts[0],
        run_doc=docs.parts[0],
        key=found["key"].to_numpy(),
        by_rank=resolved.rank is not None,
        run_of_row=run_of_row,
        run_names=run_names,
        query_name=resolved.query,
        run_name=resolved.run,
    )


def _refuse_no_overlap(queries: Codes, what: str) -> None:
    run_side, judged_side = (np.unique(part) for part in queries.parts)
    if len(run_side) and not np.isin(run_side, judged_side).any():
        shown = [sorted(map(str, queries.values[side]))[:3] for side in (run_side, judged_side)]
        msg = (
            f"no query of the run has judgments in {what} (the run's {len(run_side)} "
            f"queries, e.g. {shown[0]}; {what}' {len(judged_side)}, e.g. {shown[1]}): both "
            "must use the same query ids"
        )
        raise SchemaError(msg)


# --------------------------------------------------------------------------- checks


def _choice(name: str, value: Any, choices: Sequence[str]) -> Any:
    if not isinstance(value, str) or value not in choices:
        msg = f"{name}={value!r} is not supported (use one of {list(choices)})"
        raise ParameterError(msg)
    return value


def _flag(name: str, value: Any) -> bool:
    if not isinstance(value, bool | np.bool_):
        msg = f"{name}= must be True or False, got {value!r}"
        raise ParameterError(msg)
    return bool(value)


def _threshold(value: Any) -> float:
    number = not isinstance(value, bool) and isinstance(value, int | float | np.number)
    if not number or not np.isfinite(value) or value < 0:
        msg = (
            f"rel_threshold={value!r} must be a finite number >= 0: the smallest label "
            "counted as relevant (trec_eval's -l)"
        )
        raise ParameterError(msg)
    return float(value)


# --------------------------------------------------------------------------- values


@dataclass(frozen=True)
class _Table:
    """Every (run, query) a call can report: values, and whether the query is judged
    and whether the run retrieved it.
    """

    call: _Call
    run: np.ndarray  # run number per row
    query: np.ndarray  # query code per row
    judged: np.ndarray
    retrieved: np.ndarray
    values: dict[str, np.ndarray]

    def frame(self, rows: np.ndarray, names: list[str], *, text_order: bool) -> pd.DataFrame:
        """The rows as a frame indexed like :func:`pdireval.evaluate` ((run,) query)."""
        call = self.call
        run, query = self.run[rows], self.query[rows]
        index_query = call.queries.values[query]
        order = _row_order(run, query, call.queries, text_order=text_order)
        data = {name: self.values[name][rows][order] for name in names}
        queries = pd.Index(list(index_query[order]), name=call.query_name)
        if call.run_names is None:
            index: pd.Index = queries
        else:
            runs = pd.Index(call.run_names[run[order]], name=call.run_name)
            index = pd.MultiIndex.from_arrays([runs, queries])
        frame = pd.DataFrame(data, index=index)
        frame.columns = pd.Index(names, name="metric")
        return frame


def _row_order(
    run: np.ndarray, query: np.ndarray, queries: Codes, *, text_order: bool
) -> np.ndarray:
    """Rows by run, then query: by value, or by the text of the ids (trec_eval)."""
    if text_order:
        return np.lexsort((queries.order[query], run))
    try:
        by_value = pd.Index(queries.values).argsort()
    except TypeError:  # ids that do not compare: by their text
        by_value = np.argsort(queries.order)
    place = np.empty(len(by_value), dtype=np.int64)
    place[by_value] = np.arange(len(by_value))
    return np.lexsort((place[query], run))


def _joined(parts: list[np.ndarray], dtype: Any) -> np.ndarray:
    return np.concatenate(parts).astype(dtype) if parts else np.zeros(0, dtype=dtype)


def _table(
    call: _Call,
    judged: np.ndarray,
    evaluate_run: Callable[[int, np.ndarray], dict[str, np.ndarray]],
    names: list[str],
) -> _Table:
    """Each run's values for the judged queries and the queries it retrieved
    (``evaluate_run`` gives the values of all query codes from a run's number and rows).
    """
    is_judged = np.zeros(len(call.queries.values), dtype=bool)
    is_judged[judged] = True
    runs, queries, present_parts = [], [], []
    parts: dict[str, list[np.ndarray]] = {name: [] for name in names}
    for number, rows in enumerate(call.rows()):
        values = evaluate_run(number, rows)
        present = np.zeros(len(is_judged), dtype=bool)
        present[call.run_query[rows]] = True
        codes = np.flatnonzero(is_judged | present)
        runs.append(np.full(len(codes), number))
        queries.append(codes)
        present_parts.append(present[codes])
        for name in names:
            parts[name].append(np.where(is_judged[codes], values[name][codes], np.nan))
    query = _joined(queries, np.int64)
    return _Table(
        call=call,
        run=_joined(runs, np.int64),
        query=query,
        judged=is_judged[query],
        retrieved=_joined(present_parts, bool),
        values={name: _joined(parts[name], np.float64) for name in names},
    )


def _select(table: _Table, queries: str) -> np.ndarray:
    if queries == "judged":
        return np.flatnonzero(table.judged)
    if queries == "retrieved":
        return np.flatnonzero(table.judged & table.retrieved)
    return np.arange(len(table.query))


def _prefs_table(
    run: pd.DataFrame,
    prefs: pd.DataFrame,
    names: list[str],
    max_rank: int | None,
    columns: ColumnsLike,
    what: str,
) -> _Table:
    checked = checked_prefs(prefs, what)
    call = _call(run, checked, columns, what)
    implied = pairs.build(
        call.queries.parts[1],
        checked["group"],
        checked["subgroup"],
        call.docs.parts[1],
        checked["rel"].to_numpy(),
        call.queries,
        call.docs,
    )

    def evaluate_run(number: int, rows: np.ndarray) -> dict[str, np.ndarray]:
        place = ranking.positions(
            call.run_query[rows],
            call.run_doc[rows],
            call.key[rows],
            docs=call.docs,
            queries=call.queries,
            by_rank=call.by_rank,
            smaller_id_first=True,
            max_rank=max_rank,
            run=call.run_label(number),
        )
        found = ranking.lookup(
            call.run_query[rows],
            call.run_doc[rows],
            place,
            implied.doc_query,
            implied.doc_code,
            len(call.docs.values),
        )
        return counting.prefs_values(implied, counting.ranks(implied, found))

    return _table(call, implied.judged_queries(), evaluate_run, names)


def _jg_table(
    run: pd.DataFrame,
    qrels_jg: pd.DataFrame,
    measures: list[JgMeasure],
    options: dict[str, Any],
    columns: ColumnsLike,
) -> _Table:
    checked = checked_qrels_jg(qrels_jg, "the judgments")
    call = _call(run, checked, columns, "the judgments")
    judgments = groups.build_groups(
        call.queries.parts[1],
        checked["group"],
        call.docs.parts[1],
        checked["rel"].to_numpy(),
        call.queries,
        call.docs,
    )

    def evaluate_run(number: int, rows: np.ndarray) -> dict[str, np.ndarray]:
        place = ranking.positions(
            call.run_query[rows],
            call.run_doc[rows],
            call.key[rows],
            docs=call.docs,
            queries=call.queries,
            by_rank=call.by_rank,
            smaller_id_first=False,
            max_rank=options["max_rank"],
            run=call.run_label(number),
        )
        found = ranking.lookup(
            call.run_query[rows],
            call.run_doc[rows],
            place,
            judgments.row_query,
            judgments.row_doc,
            len(call.docs.values),
        )
        return groups.jg_values(
            judgments,
            found,
            measures,
            judged_only=options["judged_only"],
            rel_threshold=options["rel_threshold"],
        )

    return _table(call, judgments.judged_queries(), evaluate_run, [m.name for m in measures])


# --------------------------------------------------------------------------- public


def evaluate_prefs(
    run: pd.DataFrame,
    prefs: pd.DataFrame,
    measures: str | Sequence[str] | None = None,
    *,
    queries: QueryPolicy = "judged",
    max_rank: int | None = None,
    columns: ColumnsLike = None,
) -> pd.DataFrame:
    """Per-query values of trec_eval's preference measures (``trec_eval -R prefs``).

    Preference judgments say which of two documents a user prefers (Carterette et al.
    2008); here they are implied by levels: within a sub-group of a judgment group, a
    document is preferred to every document of a lower level. trec_eval's measures
    (from its version 9) count the preferences a ranking *fulfils* -- the preferred
    document ranks above the other -- among those it could.

    Parameters
    ----------
    run : DataFrame
        A run: ``query``, ``doc`` and ``score`` columns (or their synonyms), and
        optionally ``run`` for several runs. Ranked as trec_eval ranks it for
        preferences: score descending, ties by doc id *ascending* compared as text
        (trec_eval's other measures break ties the other way). A rank column, if
        present, is used instead (ascending). Rows without a score are not retrieved.
    prefs : DataFrame
        Preferences as :func:`read_prefs` reads them (``query``, ``group``,
        ``subgroup``, ``doc``, ``rel``), or ordinary judgments turned into preferences
        by :func:`prefs_from_qrels`.
    measures : str or list of str, optional
        trec_eval's names (see Notes), or its sets ``"all_prefs"`` (the default: all
        fourteen) and ``"prefs"`` (the first six).
    queries : {"judged", "retrieved", "all"}, default "judged"
        ``"judged"``: every query with preferences, those the run did not retrieve
        scored on an empty ranking (``trec_eval -c``; 10.0 prints them); ``"retrieved"``:
        only those the run retrieved (plain trec_eval); ``"all"``: also the run's
        queries without preferences, with NaN values.
    max_rank : int, optional
        Keep the first ``max_rank`` documents of each ranking (``trec_eval -M``).
    columns : ColumnMap or dict, optional
        The run's column roles, as for :func:`pdireval.evaluate`.

    Returns
    -------
    DataFrame
        One row per (run, query) -- index ``query``, or (``run``, ``query``) with a run
        column -- and one float64 column per measure, named as trec_eval names it, in
        the order requested. Queries are sorted by id.

    Raises
    ------
    SchemaError
        Missing columns; levels that are not numbers; a judgment group that contradicts
        itself (a document at two levels of one sub-group, a cycle of preferences
        across sub-groups, a document both non-relevant and relevant); a document twice
        in a ranking; no query of the run with preferences.
    MetricError
        A name that is not one of the measures.

    See Also
    --------
    prefs_summary : the "all" line, as trec_eval forms it.
    evaluate_qrels_jg : ordinary measures averaged over judgment groups.

    Notes
    -----
    Counts per query, over all judgment groups (the ``all`` line sums them):
    ``prefs_num_prefs_poss`` (the preferences), ``prefs_num_prefs_ful`` (fulfilled:
    both documents retrieved and the preferred above, or only the preferred retrieved),
    ``prefs_num_prefs_ful_ret`` (fulfilled with both retrieved).

    Ratios (the ``all`` line averages them), each in three variants: the plain one
    counts a preference neither of whose documents was retrieved as possible but not
    fulfilled; ``_ret`` counts only preferences between two retrieved documents;
    ``_imp`` those with at least one retrieved.

    * ``prefs_simp``: fulfilled / possible, every preference of every group counted.
    * ``prefs_pair``: the average, over the pairs of documents some group prefers one
      of, of the share of the pair's preferences (across groups) the ranking fulfils;
      pairs of two unretrieved documents count 0.
    * ``prefs_avgjg``: fulfilled / possible of each judgment group, averaged over the
      groups (a user per group weighs the same whatever the number of judgments).
    * ``prefs_avgjg_Rnonrel``: ``prefs_avgjg`` with each group's non-relevant documents
      (level 0) counted as many times as it has relevant ones, R: with fewer, the
      missing ones count as fulfilled below every retrieved relevant document; with
      more, the first R in the ranking are kept. Akin to bpref (Buckley & Voorhees
      2004) with one group of two levels.

    As trec_eval computes them, quirks included: a document listed twice at one level
    of a one-sub-group group counts twice; ``prefs_avgjg_Rnonrel`` pairs every line of
    a group with the kept non-relevant ones (those kept among themselves too), and its
    ``_ret`` variant keeps, in a group of several sub-groups, as many non-relevant
    documents as the group has relevant ones, retrieved or not; a group whose ratio is
    0 / 0 makes the ``_Rnonrel`` value of its query 0. trec_eval 9.0.8 and 10.0 give the
    same values.

    Two cases differ from trec_eval on purpose. The judgments are checked whole: a
    group that contradicts itself is refused even in a query the run did not retrieve
    (trec_eval notices it only in the queries it evaluates). And where a one-sub-group
    group's lowest class has fewer lines than R (possible with negative levels only,
    e.g. qrels' -1 labels read by :func:`prefs_from_qrels`), trec_eval's
    ``prefs_avgjg_Rnonrel`` reads past the end of the class, an undefined result;
    pdireval keeps the class's lines.

    References
    ----------
    B. Carterette, P. N. Bennett, D. M. Chickering, S. T. Dumais. Here or There:
    Preference Judgments for Relevance. ECIR 2008.
    C. Buckley, E. M. Voorhees. Retrieval evaluation with incomplete information.
    SIGIR 2004.

    Examples
    --------
    >>> import pandas as pd, pdireval
    >>> prefs = pd.DataFrame({"query": "q1", "group": "u1", "subgroup": "s1",
    ...                       "doc": ["a", "b", "c"], "rel": [2.0, 1.0, 0.0]})
    >>> run = pd.DataFrame({"query": "q1", "doc": ["b", "a", "x"], "score": [3.0, 2.0, 1.0]})
    >>> pdireval.evaluate_prefs(run, prefs, ["prefs_num_prefs_poss", "prefs_simp",
    ...                                      "prefs_simp_ret"]).round(4)
    metric  prefs_num_prefs_poss  prefs_simp  prefs_simp_ret
    query
    q1                       3.0      0.6667             0.0
    """
    names = prefs_measures(measures)
    policy = _choice("queries", queries, QUERY_POLICIES)
    limit = whole("max_rank", max_rank, 1, optional=True)
    table = _prefs_table(run, prefs, names, limit, columns, "the preferences")
    return table.frame(_select(table, policy), names, text_order=False)


def evaluate_qrels_jg(
    run: pd.DataFrame,
    qrels_jg: pd.DataFrame,
    measures: str | Sequence[str] | None = None,
    *,
    queries: QueryPolicy = "judged",
    max_rank: int | None = None,
    judged_only: bool = False,
    rel_threshold: float = 1,
    columns: ColumnsLike = None,
) -> pd.DataFrame:
    """Per-query values of trec_eval's judgment-group measures (``trec_eval -R qrels_jg``).

    Each query is judged by several judgment groups (users, assessors): average
    precision, precision at a cutoff and precision at a multiple of R are computed
    against each group's judgments and averaged over the query's groups.

    Parameters
    ----------
    run : DataFrame
        A run (``query``, ``doc``, ``score``; optionally ``run``), ranked as trec_eval
        ranks it: score descending, ties by doc id descending compared as text. A rank
        column, if present, is used instead.
    qrels_jg : DataFrame
        Judgments with a ``group`` column, as :func:`read_qrels_jg` reads them
        (``query``, ``group``, ``doc``, ``rel``); integer labels, negative for a pooled
        but unjudged document.
    measures : str or list of str, optional
        ``"map_avgjg"``, ``"P_avgjg"`` (cutoffs 5, 10, 15, 20, 30, 100, 200, 500, 1000),
        ``"Rprec_mult_avgjg"`` (multiples 0.2, 0.4, ..., 2.0 of R), a family with
        cutoffs as trec_eval's ``-m`` takes them (``"P_avgjg.5,10"``), one printed
        measure (``"P_avgjg_10"``, ``"Rprec_mult_avgjg_0.50"``), or ``"qrels_jg"``
        (the default: all three families).
    queries : {"judged", "retrieved", "all"}, default "judged"
        As for :func:`evaluate_prefs`.
    max_rank : int, optional
        Keep the first ``max_rank`` documents of each ranking (``trec_eval -M``).
    judged_only : bool, default False
        Rank, for each group, only the documents it judged (``trec_eval -J``).
    rel_threshold : float, default 1
        The smallest label counted as relevant (``trec_eval -l``).
    columns : ColumnMap or dict, optional
        The run's column roles.

    Returns
    -------
    DataFrame
        One row per (run, query), one float64 column per measure as trec_eval names it
        (``map_avgjg``, ``P_avgjg_5``, ``Rprec_mult_avgjg_0.20``, ...).

    Raises
    ------
    SchemaError
        Missing columns, non-integer labels, a document judged twice by one group, a
        document twice in a ranking, or no query of the run judged.
    MetricError
        A name that is not one of the measures.

    See Also
    --------
    prefs_summary : the "all" line (the mean over the queries).

    Notes
    -----
    For a group with R relevant documents: ``map_avgjg`` is average precision (the
    precision at each retrieved relevant document, summed, over R; 0 when none is
    retrieved); ``P_avgjg_c`` the relevant documents in the top c over c;
    ``Rprec_mult_avgjg_x`` precision at c = floor(x R + 0.9) documents (0 when R is 0).
    Each is the mean over the query's groups. trec_eval 9.0.8 and 10.0 agree.

    References
    ----------
    E. M. Voorhees. Variations in relevance judgments and the measurement of retrieval
    effectiveness. Information Processing & Management 36(5), 2000.

    Examples
    --------
    >>> import pandas as pd, pdireval
    >>> qrels = pd.DataFrame({"query": "q1", "group": ["alice", "alice", "bob"],
    ...                       "doc": ["a", "b", "b"], "rel": [1, 0, 1]})
    >>> run = pd.DataFrame({"query": "q1", "doc": ["a", "b"], "score": [2.0, 1.0]})
    >>> pdireval.evaluate_qrels_jg(run, qrels, ["map_avgjg", "P_avgjg_5"])
    metric  map_avgjg  P_avgjg_5
    query
    q1           0.75        0.2
    """
    chosen = jg_measures(measures)
    options = {
        "max_rank": whole("max_rank", max_rank, 1, optional=True),
        "judged_only": _flag("judged_only", judged_only),
        "rel_threshold": _threshold(rel_threshold),
    }
    policy = _choice("queries", queries, QUERY_POLICIES)
    table = _jg_table(run, qrels_jg, chosen, options, columns)
    return table.frame(_select(table, policy), [m.name for m in chosen], text_order=False)


def prefs_summary(values: pd.DataFrame) -> pd.Series | pd.DataFrame:
    """The "all" line of trec_eval for a table of :func:`evaluate_prefs` or
    :func:`evaluate_qrels_jg`: the sum over the queries of ``prefs_num_prefs_poss``,
    ``prefs_num_prefs_ful`` and ``prefs_num_prefs_ful_ret``, the mean of every other
    measure.

    Parameters
    ----------
    values : DataFrame
        Per-query values, index ``query`` or (``run``, ``query``). Queries with NaN
        values (``queries="all"``) are left out.

    Returns
    -------
    Series or DataFrame
        A Series by measure, or with a run level a DataFrame run x measure.

    Notes
    -----
    trec_eval averages over the queries it evaluated: with ``queries="retrieved"``
    those the run retrieved, as plain trec_eval; with the default ``"judged"`` every
    judged query, as ``trec_eval -c`` divides (9.0.8 and 10.0 agree on the means; 10.0
    also adds the unretrieved queries' preferences to the sums, as the default does --
    :func:`pdireval.preferences.trec_table` gives either version's line exactly).

    Examples
    --------
    >>> import pandas as pd, pdireval
    >>> values = pd.DataFrame({"prefs_num_prefs_poss": [3.0, 5.0], "prefs_simp": [0.5, 1.0]},
    ...                       index=pd.Index(["q1", "q2"], name="query"))
    >>> pdireval.prefs_summary(values)
    prefs_num_prefs_poss    8.00
    prefs_simp              0.75
    dtype: float64
    """
    if not isinstance(values, pd.DataFrame):
        msg = (
            "expected the DataFrame of evaluate_prefs or evaluate_qrels_jg, got "
            f"{type(values).__name__}"
        )
        raise SchemaError(msg)
    how = {name: ("sum" if name in SUMMED else "mean") for name in values.columns}
    if values.index.nlevels == 1:
        return values.agg(how).astype(np.float64).rename_axis(None)
    grouped = values.groupby(level=0, sort=False, observed=True)
    summary = grouped.agg(how).astype(np.float64)
    summary.columns = values.columns
    return summary


class TrecTable(NamedTuple):
    """What trec_eval prints for one set of runs: the lines of each query (``-q``) and
    the ``all`` line of each run.

    ``per_query`` is indexed (``run``, ``query``) -- ``query`` without a run column --
    in trec_eval's order (query ids as text), with one column per measure in
    trec_eval's order. ``summary`` has one row per run (one row ``"all"`` without a run
    column): ``num_q`` and the measures, formed as trec_eval forms them.
    """

    per_query: pd.DataFrame
    summary: pd.DataFrame


def trec_table(
    run: pd.DataFrame,
    judgments: pd.DataFrame,
    measures: str | Sequence[str] | None = None,
    *,
    rel_format: str = "prefs",
    complete: bool = False,
    version: TrecEvalVersion = "9.0.8",
    max_rank: int | None = None,
    judged_only: bool = False,
    rel_threshold: float = 1,
    columns: ColumnsLike = None,
) -> TrecTable:
    """trec_eval's output for ``-R prefs``, ``-R qrels_prefs`` or ``-R qrels_jg``: the
    per-query values and the ``all`` line, both in trec_eval's measure order.

    Parameters
    ----------
    run : DataFrame
        The runs, as for :func:`evaluate_prefs` (one per value of a run column).
    judgments : DataFrame
        A preference frame (``rel_format="prefs"``), ordinary qrels
        (``"qrels_prefs"``, read as :func:`prefs_from_qrels` reads them) or a
        judgment-group frame (``"qrels_jg"``).
    measures : str or list of str, optional
        Default ``"all_prefs"`` (``"qrels_jg"`` for ``rel_format="qrels_jg"``).
    rel_format : {"prefs", "qrels_prefs", "qrels_jg"}, default "prefs"
        trec_eval's ``-R``.
    complete : bool, default False
        trec_eval's ``-c``: average over every judged query. 9.0.8 divides by their
        number but prints and sums only the queries the run retrieved; 10.0 scores the
        others on an empty ranking, prints them and adds them to the sums too.
    version : {"9.0.8", "10.0"}, default "9.0.8"
        The trec_eval whose output to give.
    max_rank, judged_only, rel_threshold : optional
        trec_eval's ``-M``, ``-J`` and ``-l`` (the last two for ``qrels_jg`` only:
        trec_eval's preference measures ignore them).
    columns : ColumnMap or dict, optional
        The run's column roles.

    Returns
    -------
    TrecTable
        ``per_query``: the rows ``trec_eval -q`` prints (the queries with judgments the
        run retrieved; with ``complete`` and 10.0, every judged query);
        ``summary``: ``num_q`` and each measure's ``all`` value (a sum for
        ``prefs_num_prefs_*``, else the sum over the printed queries in their order
        divided by ``num_q``). The ``runid`` line is the run's name.

    Raises
    ------
    SchemaError
        As :func:`evaluate_prefs` and :func:`evaluate_qrels_jg`; and, for 10.0 without
        ``complete``, a judged query the run did not retrieve: trec_eval 10.0 stops
        there ("result qid ... not found in qrels", status 4).

    Examples
    --------
    >>> import pandas as pd, pdireval
    >>> qrels = pd.DataFrame({"query": ["q1", "q1", "q2", "q2"], "doc": ["a", "b", "a", "c"],
    ...                       "rel": [1, 0, 1, 0]})
    >>> run = pd.DataFrame({"query": "q1", "doc": ["a", "b"], "score": [2.0, 1.0]})
    >>> table = pdireval.preferences.trec_table(run, qrels, "prefs_simp",
    ...                                         rel_format="qrels_prefs", complete=True)
    >>> table.per_query
    metric  prefs_simp
    query
    q1             1.0
    >>> table.summary
         num_q  prefs_simp
    all      2         0.5
    """
    kind = _choice("rel_format", rel_format, RELATION_FORMATS)
    chosen_version = _choice("version", version, TREC_EVAL_VERSIONS)
    complete = _flag("complete", complete)
    if kind == "qrels_jg":
        chosen = jg_measures(measures)
        options = {
            "max_rank": whole("max_rank", max_rank, 1, optional=True),
            "judged_only": _flag("judged_only", judged_only),
            "rel_threshold": _threshold(rel_threshold),
        }
        table = _jg_table(run, judgments, chosen, options, columns)
        names = trec_order([m.name for m in chosen])
    else:
        names = trec_order(prefs_measures(measures))
        prefs = judgments if kind == "prefs" else prefs_from_qrels(judgments)
        what = "the preferences" if kind == "prefs" else "the qrels"
        limit = whole("max_rank", max_rank, 1, optional=True)
        table = _prefs_table(run, prefs, names, limit, columns, what)
    if chosen_version == "10.0" and not complete:
        _refuse_unretrieved(table)
    shown = table.judged & (table.retrieved | (complete and chosen_version == "10.0"))
    per_query = table.frame(np.flatnonzero(shown), names, text_order=True)
    divisor_all = complete and chosen_version == "9.0.8"
    return TrecTable(per_query, _trec_summary(table, shown, names, divisor_all))


def _refuse_unretrieved(table: _Table) -> None:
    """trec_eval 10.0 without ``-c`` stops at a judged query a run did not retrieve."""
    missing = np.flatnonzero(table.judged & ~table.retrieved)
    if len(missing):
        call = table.call
        query = call.queries.text(int(table.query[missing[0]]))
        msg = (
            f"{call.run_label(int(table.run[missing[0]]))} has no results for the judged "
            f"query {query} ({len(missing)} such (run, query) pairs): trec_eval 10.0 stops "
            "there (status 4); pass complete=True to score such queries on an empty "
            "ranking (its -c), or version='9.0.8', which leaves them out"
        )
        raise SchemaError(msg)


def _trec_summary(
    table: _Table, shown: np.ndarray, names: list[str], divide_by_judged: bool
) -> pd.DataFrame:
    """The ``all`` line of each run: sums added one query after the other, in
    trec_eval's order, as trec_eval accumulates them.
    """
    call = table.call
    n_runs = call.n_runs
    rows = np.flatnonzero(shown)
    rows = rows[_row_order(table.run[rows], table.query[rows], call.queries, text_order=True)]
    printed = np.bincount(table.run[rows], minlength=n_runs)
    judged = np.bincount(table.run[table.judged], minlength=n_runs)
    num_q = judged if divide_by_judged else printed
    data: dict[str, np.ndarray] = {"num_q": num_q.astype(np.int64)}
    for name in names:
        total = np.bincount(table.run[rows], weights=table.values[name][rows], minlength=n_runs)
        mean = np.where(num_q > 0, total / np.maximum(num_q, 1), total)
        data[name] = total if name in SUMMED else mean
    if call.run_names is None:
        index = pd.Index(["all"])
    else:
        index = pd.Index(call.run_names, name=call.run_name)
    return pd.DataFrame(data, index=index)
