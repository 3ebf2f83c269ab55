"""Holes in the judgments: the retrieved documents nobody judged, and what they could change.

A test collection judges a pool; a run that was not pooled, or is evaluated deeper than
the pool, retrieves documents without a judgment -- holes. Every measure reads a hole as
non-relevant, which biases the scores of such runs downwards (Buckley & Voorhees 2004;
Sakai 2007). :func:`holes` lists the holes in the top k of every ranking;
:func:`hole_counts` counts them; :func:`bounds` evaluates the runs once with every hole
non-relevant and once with every hole at the top grade, and says which comparisons of
runs those fills reverse. :func:`pdireval.write_judging_sheet` turns the holes into a
sheet to judge.

Examples
--------
>>> import pandas as pd, pdireval
>>> run = pd.DataFrame({"query": "q1", "doc": ["a", "b", "c"], "rank": [1, 2, 3]})
>>> qrels = pd.DataFrame({"query": "q1", "doc": ["a", "c"], "rel": [1, 0]})
>>> pdireval.holes(run, k=3, qrels=qrels)
  query doc  position
0    q1   b         2
"""

from __future__ import annotations

from collections.abc import Hashable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, get_args

import numpy as np
import pandas as pd

from pdireval._core.errors import ParameterError, SchemaError
from pdireval._core.options import EVALUATION, Evaluation, Qrels, excluding, takes
from pdireval._core.roles import ResolvedColumns, as_column_map
from pdireval._prepare.arrays import take
from pdireval._prepare.checks import labels_of
from pdireval._prepare.matching import join_resolved
from pdireval._prepare.merge import has_subtopics
from pdireval._prepare.prepare import grouped_positions, self_documents
from pdireval.engine.evaluate import per_part
from pdireval.engine.parts import refuse_parts
from pdireval.metrics import parse_metrics
from pdireval.typing import QueryPolicy

if TYPE_CHECKING:
    from pdireval.typing import ColumnsLike, MetricsLike

__all__ = ["FILLS", "Bounds", "bounds", "hole_counts", "holes"]

#: The columns of :attr:`Bounds.per_query`, :attr:`Bounds.means` and :attr:`Bounds.pairs`
#: for each metric: the value as the engine reads the holes, with every hole labelled 0,
#: with every hole labelled with the top grade, and the smaller and larger of the two fills.
FILLS = ("observed", "holes_nonrelevant", "holes_relevant", "low", "high")


@dataclass(frozen=True)
class _Holes:
    """A frame's retrieved rows and their judgments, as :func:`holes` reads them.

    ``position`` (NaN: not retrieved), ``group`` (codes of ``index``), ``label`` (NaN:
    no judgment) and ``judged_query`` (the row's query has a judgment) are per row of
    ``frame``; ``judgment`` is the qrels row judging each frame row (-1: none), when the
    judgments were given as ``qrels``.
    """

    frame: pd.DataFrame
    resolved: ResolvedColumns
    position: np.ndarray
    group: np.ndarray
    index: pd.Index
    label: np.ndarray
    judged_query: np.ndarray
    judgment: np.ndarray | None

    def in_scope(self, queries: QueryPolicy) -> np.ndarray:
        """Rows whose query is in the query set (``"all"``: every query)."""
        return self.judged_query if queries != "all" else np.ones(len(self.label), dtype=bool)

    def hole_rows(self, k: int | None, queries: QueryPolicy) -> np.ndarray:
        """The rows of the holes in the top ``k`` (every depth: ``None``), in evaluation
        order: by (run, query), then position.
        """
        retrieved = ~np.isnan(self.position)
        top = retrieved if k is None else retrieved & (np.nan_to_num(self.position) <= k)
        hole = top & ~(self.label >= 0) & self.in_scope(queries)
        rows = np.flatnonzero(hole)
        return rows[np.lexsort((self.position[rows], self.group[rows]))]


def _checked_k(k: object) -> int:
    if isinstance(k, bool) or not isinstance(k, int | np.integer) or k < 1:
        msg = f"k={k!r} must be a whole number >= 1: the depth of each ranking to look for holes in"
        raise ParameterError(msg)
    return int(k)


def _checked_queries(queries: object) -> QueryPolicy:
    if queries not in get_args(QueryPolicy):
        msg = f"queries={queries!r} must be one of {list(get_args(QueryPolicy))}"
        raise ParameterError(msg)
    return queries  # type: ignore[return-value]


def _refuse_subtopics(frame: pd.DataFrame, resolved: ResolvedColumns, what: str) -> None:
    if resolved.subtopic is not None and has_subtopics(frame, resolved):
        msg = (
            f"{what} judge documents per subtopic (column {resolved.subtopic!r}); holes are "
            "documents without a judgment of the whole query: collapse the judgments to one "
            "label per (query, doc) first, e.g. qrels.groupby(['query', 'doc'])['rel'].max()"
        )
        raise SchemaError(msg)


def _read(
    frame: pd.DataFrame,
    qrels: pd.DataFrame | None,
    columns: ColumnsLike,
    qrels_columns: ColumnsLike,
    ignore_self: bool = False,
) -> _Holes:
    """Positions, groups and judgments of every row of ``frame`` (a merged frame, or a
    run with ``qrels``), with the checks evaluation makes; ``ignore_self``: a document
    equal to its query leaves its ranking, as evaluating with ``ignore_self=True`` does.
    """
    resolved = as_column_map(columns).resolve(frame)
    qrels_cols = None if qrels is None else as_column_map(qrels_columns).resolve(qrels)
    refuse_parts(
        resolved, None if qrels is None or qrels_cols is None else Qrels(qrels, qrels_cols)
    )
    _refuse_subtopics(frame, resolved, "the frame's rows")
    # trec_eval's order (ids and ranks checked), and the (run, query) groups
    position, group, index = grouped_positions(frame, resolved)
    if _flag("ignore_self", ignore_self):
        position = _without_self(position, group, len(index), self_documents(frame, resolved))
    if qrels is None:
        resolved.require_labels(frame)
        label = labels_of(frame[resolved.name("rel")], resolved.name("rel"), whole=False)
        judged_group = np.bincount(group, weights=~np.isnan(label), minlength=len(index)) > 0
        return _Holes(frame, resolved, position, group, index, label, judged_group[group], None)
    assert qrels_cols is not None  # resolved with qrels above
    qrels_cols.require(qrels, "query", "doc", "rel")
    _refuse_subtopics(qrels, qrels_cols, "the qrels")
    joined = join_resolved(frame, qrels, resolved, qrels_cols, whole=False)
    judgment = np.full(len(frame), -1, dtype=np.int64)
    judgment[joined.row] = joined.judgment
    label = np.full(len(frame), np.nan)
    label[joined.row] = joined.labels[joined.judgment]
    judged = np.zeros(len(joined.group), dtype=bool)  # run rows, then judged ones it missed
    judged[joined.row] = True
    judged[len(frame) :] = True
    judged_group = np.bincount(joined.group, weights=judged, minlength=len(joined.index)) > 0
    return _Holes(
        frame,
        resolved,
        position,
        group,
        index,
        label,
        judged_group[joined.group[: len(frame)]],
        judgment,
    )


def _flag(name: str, value: object) -> bool:
    if not isinstance(value, bool | np.bool_):
        msg = f"{name}= must be True or False, got {value!r} ({type(value).__name__})"
        raise ParameterError(msg)
    return bool(value)


def _without_self(
    position: np.ndarray, group: np.ndarray, n_groups: int, self_rows: np.ndarray
) -> np.ndarray:
    """Positions with each ranking's self document (at most one per ranking, documents
    being unique in it) taken out and the documents below it moved up one place.
    """
    self_rows = self_rows & ~np.isnan(position)
    at = np.full(n_groups, np.inf)
    at[group[self_rows]] = position[self_rows]
    moved = position - (at[group] < position)
    return np.where(self_rows, np.nan, moved)


def _hole_table(read: _Holes, rows: np.ndarray) -> pd.DataFrame:
    frame, resolved = read.frame, read.resolved
    query, doc = resolved.name("query"), resolved.name("doc")
    table = pd.DataFrame(
        {
            query: take(frame[query], rows).array,
            doc: take(frame[doc], rows).array,
            "position": read.position[rows].astype(np.int64),
        }
    )
    if resolved.run is not None:
        table.insert(0, resolved.run, take(frame[resolved.run], rows).array)
    return table


def holes(
    frame: pd.DataFrame,
    k: int = 10,
    *,
    qrels: pd.DataFrame | None = None,
    columns: ColumnsLike = None,
    qrels_columns: ColumnsLike = None,
    queries: QueryPolicy = "judged",
    ignore_self: bool = False,
) -> pd.DataFrame:
    """The unjudged documents in the top k of every ranking: the holes in the judgments.

    Parameters
    ----------
    frame : DataFrame
        A long frame with labels (a merged frame: a missing or negative label is no
        judgment, as everywhere in pdireval), or a run without labels given with
        ``qrels``. A run column gives every run's holes.
    k : int
        The depth of each ranking to look at (default 10).
    qrels : DataFrame, optional
        Judgments (query, doc, rel) of a run given without labels.
    columns, qrels_columns : ColumnMap or dict, optional
        Column roles of the frame and of the qrels.
    queries : {"judged", "retrieved", "all"}
        ``"judged"`` and ``"retrieved"`` (default ``"judged"``): the holes of the queries
        with at least one judgment, the queries evaluation reports; ``"all"``: also
        those of queries nobody judged.
    ignore_self : bool
        Leave the document whose id equals its query id out of each ranking, as
        evaluating with ``ignore_self=True`` does: it is no hole, and the documents
        below it move up one place.

    Returns
    -------
    DataFrame
        One row per hole: the run column (when there is one), the query and doc columns
        (named and typed as in ``frame``) and ``position``, the document's 1-based place
        in the ranking as evaluation orders it. Rows are sorted by run and query as
        :func:`pdireval.evaluate` sorts them, then by position; fresh RangeIndex.

    Raises
    ------
    SchemaError
        The frame or the qrels break the long-frame contract (missing columns, missing
        ids, a document twice in one ranking, labels that are not numbers), or the
        judgments are per subtopic.
    MetricError
        ``k`` is not a whole number >= 1, or ``queries`` is not a query policy.

    See Also
    --------
    hole_counts : how many holes each ranking has.
    bounds : the values of measures with the holes filled.
    write_judging_sheet : the holes as a sheet to judge.

    Notes
    -----
    A hole is a retrieved document with no label or a negative one (trec_eval's
    "pooled but unjudged"). Positions follow evaluation's order: the rank column,
    else the score descending with ties broken by document id descending (trec_eval's
    rule) -- the order ``ties="trec"`` evaluates. A document missing from several runs'
    judgments is a hole of each of them; :func:`pdireval.write_judging_sheet` lists it once.

    Examples
    --------
    >>> import pdireval
    >>> from pdireval.datasets import example_qrels, example_run
    >>> found = pdireval.holes(example_run(), k=10, qrels=example_qrels())
    >>> found.head(3)
          run query      doc  position
    0  medium   401  d401-34         6
    1  medium   402  d402-59         5
    2  medium   402  d402-23         7
    >>> found.groupby("run").size()
    run
    medium     94
    strong     51
    weak      144
    dtype: int64
    """
    k = _checked_k(k)
    read = _read(frame, qrels, columns, qrels_columns, ignore_self)
    return _hole_table(read, read.hole_rows(k, _checked_queries(queries)))


def hole_counts(
    frame: pd.DataFrame,
    k: int = 10,
    *,
    qrels: pd.DataFrame | None = None,
    columns: ColumnsLike = None,
    qrels_columns: ColumnsLike = None,
    queries: QueryPolicy = "judged",
    ignore_self: bool = False,
) -> pd.DataFrame:
    """How many of the top k documents of each ranking are holes (unjudged).

    Parameters
    ----------
    frame, k, qrels, columns, qrels_columns, queries, ignore_self
        As for :func:`holes`.

    Returns
    -------
    DataFrame
        One row per ranking that retrieved something, indexed by query or (run, query)
        as :func:`pdireval.evaluate` indexes its table: ``retrieved`` (documents in the
        top k), ``holes`` (of those, unjudged) and ``judged`` (the share judged: the
        measure ``Judged@k``, except that ``Judged@k`` counts a negative label as a
        judgment, as ir_measures does, where it is a hole here, as in trec_eval).

    Raises
    ------
    SchemaError, MetricError
        As for :func:`holes`.

    Examples
    --------
    >>> import pdireval
    >>> from pdireval.datasets import example_qrels, example_run
    >>> counts = pdireval.hole_counts(example_run(), k=10, qrels=example_qrels())
    >>> counts.loc["weak"].head(3)
           retrieved  holes  judged
    query
    401           10      2     0.8
    402           10      5     0.5
    403           10      5     0.5
    """
    k = _checked_k(k)
    queries = _checked_queries(queries)
    read = _read(frame, qrels, columns, qrels_columns, ignore_self)
    n = len(read.index)
    retrieved = ~np.isnan(read.position) & (np.nan_to_num(read.position) <= k)
    retrieved &= read.in_scope(queries)
    hole = np.zeros(len(read.label), dtype=bool)
    hole[read.hole_rows(k, queries)] = True
    in_top = np.bincount(read.group, weights=retrieved, minlength=n).astype(np.int64)
    holes_in = np.bincount(read.group, weights=hole, minlength=n).astype(np.int64)
    kept = np.flatnonzero(in_top > 0)
    with np.errstate(invalid="ignore", divide="ignore"):
        share = 1.0 - holes_in[kept] / in_top[kept]
    return pd.DataFrame(
        {"retrieved": in_top[kept], "holes": holes_in[kept], "judged": share},
        index=read.index.take(kept),
    )


@dataclass(frozen=True)
class Bounds:
    """Measures with the holes in the judgments filled both ways.

    Attributes
    ----------
    per_query : DataFrame
        Index as :func:`pdireval.evaluate`'s table; columns (metric, fill) with the fills
        ``observed`` (the holes as evaluation reads them),
        ``holes_nonrelevant`` (every hole labelled 0), ``holes_relevant`` (every hole
        labelled ``top_label``), ``low`` and ``high`` (the smaller and the larger of the
        two fills).
    means : DataFrame
        The same columns, one row per run (the mean over its queries, NaN skipped, as
        :func:`pdireval.summary` averages); a frame without a run column gives one row,
        labelled ``"all"``. ``low`` and ``high`` are the smaller and larger of the two
        fills' means.
    pairs : DataFrame
        Every pair of runs and metric: ``run_a``, ``run_b``, ``metric``, the difference
        of the means (run_a minus run_b) under each of those fills (``low`` and
        ``high``: of the two fills), and ``reversed``: the sign of the difference (-,
        0 or +) under a uniform fill is not the observed one. Empty without two runs.
    top_label : float
        The label the holes were given in ``holes_relevant``.
    """

    per_query: pd.DataFrame
    means: pd.DataFrame
    pairs: pd.DataFrame
    top_label: float

    @property
    def reversed_pairs(self) -> pd.DataFrame:
        """The comparisons of runs that a uniform fill of the holes reverses (or ties)."""
        return self.pairs[self.pairs["reversed"]].reset_index(drop=True)


@takes(excluding(EVALUATION, "qrels", "qrels_columns"))
def bounds(
    frame: pd.DataFrame,
    metrics: MetricsLike,
    *,
    k: int | None = None,
    top_label: float | None = None,
    qrels: pd.DataFrame | None = None,
    columns: ColumnsLike = None,
    qrels_columns: ColumnsLike = None,
    **options: Any,
) -> Bounds:
    r"""The measures with every hole non-relevant and with every hole at the top grade.

    Parameters
    ----------
    frame : DataFrame
        A long frame with labels, or a run given with ``qrels``, as for :func:`holes`.
        With labels in the frame, they must be one set of judgments shared by every run
        (as :func:`pdireval.merge_qrels` builds it).
    metrics : str, Metric or list of them
        As in :func:`pdireval.evaluate`.
    k : int, optional
        Fill only the holes in the top ``k`` of some run (what judging
        ``holes(frame, k)`` would settle); by default every hole, at any depth.
    top_label : float, optional
        The label of a relevant hole; by default the largest label of the judgments.
    qrels : DataFrame, optional
        Judgments of a run given without labels.
    columns, qrels_columns : ColumnMap or dict, optional
        Column roles of the frame and of the qrels.
    **options
        The evaluation options of :func:`pdireval.evaluate` (below), applied to every
        fill.

    Returns
    -------
    Bounds
        ``per_query``, ``means`` and ``pairs`` (every comparison of two runs, and
        whether a fill reverses it; ``reversed_pairs`` keeps those).

    Raises
    ------
    SchemaError
        As for :func:`holes`; labels in the frame that differ between runs; judgments
        without a label above 0 and no ``top_label``.
    MetricError
        A metric or an option is not understood, or ``top_label`` is not a number > 0.

    See Also
    --------
    holes : the holes themselves.

    Notes
    -----
    Each fill is a new set of judgments -- the judgments as given, plus every hole
    with one label -- evaluated by :func:`pdireval.evaluate` as any judgments are: no
    measure is computed here. A fill labels documents, not rows: a document that two
    runs retrieved gets the same label in both, and a run that did not retrieve a
    document filled as relevant misses it (its recall drops). That is what makes a
    comparison of two runs under one fill a comparison under one possible set of
    judgments. Holes of queries without any judgment are not filled: such a query is
    not evaluated (or NaN under ``queries="all"``), and filling it would change which
    queries are.

    **When the fills are bounds.** For a measure that can only grow when a label
    grows, at a fixed depth -- ``P@k``, ``DCG@k``, ``RR``, ``Success@k``, ``RBP``,
    ``NumRelRet`` -- the two fills are the lowest and the highest value any judgment of
    the holes could give (labels between 0 and ``top_label``), per query and in the
    mean: ``low <= true value <= high``. Measures normalised by the relevant documents
    -- ``AP``, ``nDCG``, ``Rprec``, ``R@k``, ``Bpref`` -- are not monotone: a hole
    labelled relevant raises the number of relevant documents (or the ideal ranking),
    which can lower the value of a run that ranks it low or not at all. For them the
    two fills are the two extreme uniform judgments, not guaranteed bounds: a mixed
    judgment can fall outside ``[low, high]``.

    The observed value reads a hole as non-relevant, so for most measures it equals
    ``holes_nonrelevant``; measures that tell a judged non-relevant document from an
    unjudged one (``Bpref``, ``Judged@k``, and any measure under ``judged_only=True``,
    which drops unjudged documents from the ranking, Sakai 2007) can differ, and the
    observed value need not lie between the fills.

    **Which comparisons the holes could reverse.** ``pairs`` gives, for every two runs,
    the difference of their means under each fill. ``reversed`` checks the two uniform
    fills only -- every hole non-relevant, every hole at the top grade -- not every
    judgment of the holes: a judgment that helps one run and hurts the other (relevant
    where only run_b retrieved the hole, non-relevant where only run_a did) can move a
    difference further than either fill. ``reversed=False`` is therefore no proof that
    judging the holes cannot change the conclusion; ``reversed=True`` is a judgment
    that does. Lu, Moffat & Culpepper (2016) bound each run by the mass of its
    residual; the difference of two runs needs both residuals at once.

    References
    ----------
    C. Buckley and E. M. Voorhees. Retrieval evaluation with incomplete information.
    SIGIR 2004. T. Sakai. Alternatives to Bpref. SIGIR 2007. X. Lu, A. Moffat and
    J. S. Culpepper. The effect of pooling and evaluation depth on IR metrics.
    Information Retrieval Journal 19(4), 2016.

    Examples
    --------
    >>> import pandas as pd, pdireval
    >>> run = pd.DataFrame({"run": ["a"] * 3 + ["b"] * 3, "query": "q1",
    ...                     "doc": ["d1", "d2", "d3", "d4", "d1", "d2"],
    ...                     "rank": [1, 2, 3, 1, 2, 3]})
    >>> qrels = pd.DataFrame({"query": "q1", "doc": ["d1", "d2"], "rel": [1, 0]})
    >>> found = pdireval.bounds(run, ["P@3", "RR"], qrels=qrels)
    >>> found.means["P@3"].round(4)
    fill  observed  holes_nonrelevant  holes_relevant     low    high
    run
    a       0.3333             0.3333          0.6667  0.3333  0.6667
    b       0.3333             0.3333          0.6667  0.3333  0.6667
    >>> found.pairs[["run_a", "run_b", "metric", "observed", "holes_relevant", "reversed"]]
      run_a run_b metric  observed  holes_relevant  reversed
    0     a     b    P@3       0.0             0.0     False
    1     a     b     RR       0.5             0.0      True

    Run ``b`` ranks the unjudged ``d4`` first: if it is relevant, ``b`` ties ``a`` on RR.
    """
    k = None if k is None else _checked_k(k)
    parsed = parse_metrics(metrics)
    Evaluation.from_options(options)  # the options checked before anything is computed

    def evaluate(
        frame: pd.DataFrame, columns: ColumnsLike, qrels: Any, qrels_columns: ColumnsLike
    ) -> pd.DataFrame:
        given = {**options, "qrels": qrels, "qrels_columns": qrels_columns}
        return per_part(frame, parsed, columns, Evaluation.from_options(given))[0]

    observed = evaluate(frame, columns, qrels, qrels_columns)
    read = _read(frame, qrels, columns, qrels_columns, bool(options.get("ignore_self", False)))
    rows = read.hole_rows(k, "judged")  # an unjudged query stays unjudged
    if qrels is None:
        _refuse_labels_per_run(read)
        labels = read.label
    else:
        judged_cols = as_column_map(qrels_columns).resolve(qrels)
        labels = labels_of(qrels[judged_cols.name("rel")], judged_cols.name("rel"), whole=False)
    top = _top_label(top_label, labels)
    filled = {}
    for fill, value in (("holes_nonrelevant", 0.0), ("holes_relevant", top)):
        if qrels is None:
            table = evaluate(_filled_frame(read, rows, value), read.resolved.explicit(), None, None)
        else:
            filled_qrels = _filled_qrels(read, rows, qrels, judged_cols, labels, value)
            table = evaluate(frame, columns, filled_qrels, judged_cols.explicit())
        filled[fill] = table.reindex(observed.index)
    per_query = _by_fill(observed, filled)
    means = _means(per_query)
    return Bounds(per_query, means, _pairs(means), top)


def _top_label(top_label: object, labels: np.ndarray) -> float:
    if top_label is not None:
        if (
            isinstance(top_label, bool)
            or not isinstance(top_label, int | float | np.integer | np.floating)
            or not np.isfinite(top_label)
            or top_label <= 0
        ):
            msg = (
                f"top_label={top_label!r} must be a finite number > 0: the label of a relevant hole"
            )
            raise ParameterError(msg)
        return float(top_label)
    largest = np.nanmax(labels, initial=-np.inf)
    if not largest > 0:
        msg = (
            "the judgments hold no label above 0, so there is no top grade to give the "
            "holes; name the label of a relevant document with top_label=, e.g. top_label=1"
        )
        raise SchemaError(msg)
    return float(largest)


def _refuse_labels_per_run(read: _Holes) -> None:
    """A merged frame's labels must be one set of judgments shared by its runs: filling
    a hole labels the document for every run.
    """
    frame, resolved = read.frame, read.resolved
    query, doc = resolved.name("query"), resolved.name("doc")
    labelled = np.flatnonzero(~np.isnan(read.label))
    table = pd.DataFrame(
        {
            query: take(frame[query], labelled).array,
            doc: take(frame[doc], labelled).array,
            "label": read.label[labelled],
        }
    )
    grouped = table.groupby([query, doc], sort=False, observed=True)
    problem = ""
    differ = grouped["label"].nunique() > 1
    if differ.any():
        problem = (
            f"(query, doc) {differ.index[int(np.argmax(differ.to_numpy()))]!r} has different labels"
        )
    elif resolved.run is not None:
        table["run"] = take(frame[resolved.run], labelled).array
        present = table.groupby([query, doc], sort=False, observed=True)["run"].nunique()
        runs = frame[resolved.run].nunique()
        fewer = present < runs
        if fewer.any():
            key = fewer.index[int(np.argmax(fewer.to_numpy()))]
            problem = f"(query, doc) {key!r} is judged in the rows of some runs but not of others"
    if problem:
        msg = (
            f"bounds fills each hole once for every run, so the frame's labels must be one "
            f"set of judgments shared by the runs, as merge_qrels builds them: {problem}; "
            "give the runs and their judgments separately: bounds(run, metrics, qrels=qrels)"
        )
        raise SchemaError(msg)


def _missing(values: pd.Series, n: int) -> pd.Series:
    """``n`` missing values for a column like ``values`` (False for a boolean one: a
    missing ``known`` flag is False).
    """
    if pd.api.types.is_bool_dtype(values.dtype) and not isinstance(
        values.dtype, pd.CategoricalDtype
    ):
        return pd.Series(np.zeros(n, dtype=bool))
    return values.iloc[:0].reset_index(drop=True).reindex(pd.RangeIndex(n))


def _filled_frame(read: _Holes, rows: np.ndarray, value: float) -> pd.DataFrame:
    """A merged frame with the documents of the holes at ``rows`` labelled ``value`` in
    every run: their unjudged rows relabelled, and a judged-but-not-retrieved row added
    for each run without a row for such a document.
    """
    frame, resolved = read.frame, read.resolved
    query, doc, rel = (resolved.name(role) for role in ("query", "doc", "rel"))
    keys = pd.MultiIndex.from_arrays(
        [take(frame[query], rows).array, take(frame[doc], rows).array]
    ).unique()
    of_hole = pd.MultiIndex.from_arrays([frame[query].array, frame[doc].array]).isin(keys)
    label = read.label.copy()
    label[of_hole & ~(read.label >= 0)] = value
    filled = frame.assign(**{rel: label})
    if resolved.run is None or not len(keys):
        return filled
    run = resolved.run
    have = pd.MultiIndex.from_arrays(
        [frame[run].array[of_hole], frame[query].array[of_hole], frame[doc].array[of_hole]]
    ).unique()
    runs = frame[run].drop_duplicates().reset_index(drop=True)
    wanted = pd.MultiIndex.from_arrays(
        [
            np.repeat(runs.to_numpy(dtype=object), len(keys)),
            np.tile(keys.get_level_values(0).to_numpy(dtype=object), len(runs)),
            np.tile(keys.get_level_values(1).to_numpy(dtype=object), len(runs)),
        ]
    )
    lacking = wanted[~wanted.isin(have)]
    if not len(lacking):
        return filled
    n = len(lacking)
    added = {
        name: _missing(frame[name], n)
        for name in frame.columns
        if name not in (run, query, doc, rel)
    }
    for level, name in enumerate((run, query, doc)):
        added[name] = pd.Series(lacking.get_level_values(level).to_numpy(dtype=object)).astype(
            frame[name].dtype
        )
    added[rel] = pd.Series(np.full(n, value))
    extra = pd.DataFrame(added)[list(frame.columns)]
    return pd.concat([filled.reset_index(drop=True), extra], ignore_index=True)


def _filled_qrels(
    read: _Holes,
    rows: np.ndarray,
    judgments: pd.DataFrame,
    judged_cols: ResolvedColumns,
    labels: np.ndarray,
    value: float,
) -> pd.DataFrame:
    """The judgments with the holes at ``rows`` labelled ``value``: judged rows with a
    negative label relabelled, unjudged documents added once per (query, doc).
    """
    assert read.judgment is not None  # _read was given the judgments as qrels
    query, doc, rel = (judged_cols.name(role) for role in ("query", "doc", "rel"))
    judgment = read.judgment[rows]
    new_labels = labels.copy()
    new_labels[judgment[judgment >= 0]] = value
    unjudged = rows[judgment < 0]
    run_query, run_doc = read.resolved.name("query"), read.resolved.name("doc")
    added = pd.DataFrame(
        {
            query: take(read.frame[run_query], unjudged).array,
            doc: take(read.frame[run_doc], unjudged).array,
        }
    ).drop_duplicates(ignore_index=True)
    added[rel] = value
    given = pd.DataFrame(
        {query: judgments[query].array, doc: judgments[doc].array, rel: new_labels}
    )
    return pd.concat([given, added], ignore_index=True) if len(added) else given


def _by_fill(observed: pd.DataFrame, filled: dict[str, pd.DataFrame]) -> pd.DataFrame:
    """One table: columns (metric, fill)."""
    nonrelevant, relevant = filled["holes_nonrelevant"], filled["holes_relevant"]
    parts: dict[str, Any] = {
        "observed": observed,
        "holes_nonrelevant": nonrelevant,
        "holes_relevant": relevant,
        "low": np.fmin(nonrelevant, relevant),
        "high": np.fmax(nonrelevant, relevant),
    }
    columns = {
        (metric, fill): parts[fill][metric].to_numpy(dtype=np.float64)
        for metric in observed.columns
        for fill in FILLS
    }
    table = pd.DataFrame(columns, index=observed.index)
    table.columns = pd.MultiIndex.from_tuples(list(columns), names=["metric", "fill"])
    return table


def _means(per_query: pd.DataFrame) -> pd.DataFrame:
    """The mean of each (metric, fill) per run; ``low``/``high`` of the fills' means."""
    if isinstance(per_query.index, pd.MultiIndex):
        means = per_query.groupby(level=0, sort=True, observed=True).mean()
    else:
        means = per_query.mean().to_frame("all").T
        means.columns = per_query.columns
    for metric in per_query.columns.get_level_values("metric").unique():
        nonrelevant = means[(metric, "holes_nonrelevant")]
        relevant = means[(metric, "holes_relevant")]
        means[(metric, "low")] = np.fmin(nonrelevant, relevant)
        means[(metric, "high")] = np.fmax(nonrelevant, relevant)
    return means.astype(np.float64)


#: Columns of :attr:`Bounds.pairs`, in order.
PAIR_COLUMNS = ("run_a", "run_b", "metric", *FILLS, "reversed")


def _pairs(means: pd.DataFrame) -> pd.DataFrame:
    """Every pair of runs (in sorted order) and metric: differences under each fill."""
    names: Sequence[Hashable] = list(means.index) if means.index.name is not None else []
    runs = np.empty(len(names), dtype=object)
    runs[:] = names
    first, second = np.triu_indices(len(runs), k=1)
    records = []
    for metric in means.columns.get_level_values("metric").unique():
        table = means[metric]
        delta = {
            fill: table[fill].to_numpy()[first] - table[fill].to_numpy()[second]
            for fill in FILLS[:3]
        }
        sign = np.sign(delta["observed"])
        defined = np.isfinite(sign)
        reversed_ = defined & (
            (np.sign(delta["holes_nonrelevant"]) != sign)
            | (np.sign(delta["holes_relevant"]) != sign)
        )
        records.append(
            pd.DataFrame(
                {
                    "run_a": runs[first],
                    "run_b": runs[second],
                    "metric": metric,
                    **delta,
                    "low": np.fmin(delta["holes_nonrelevant"], delta["holes_relevant"]),
                    "high": np.fmax(delta["holes_nonrelevant"], delta["holes_relevant"]),
                    "reversed": reversed_,
                }
            )
        )
    if not records:
        return pd.DataFrame({name: [] for name in PAIR_COLUMNS})
    return pd.concat(records, ignore_index=True)[list(PAIR_COLUMNS)]
