"""Agreement between relevance judges: Cohen's, Fleiss' kappa and Krippendorff's alpha.

Several sets of labels for the same documents (two assessors, a human and an LLM, two
prompts of one model) agree more or less; these statistics say how much more than
chance. The judgments come either as one long frame with a judge column or as a
mapping ``{judge: qrels frame}``; every function reads them the same way.

Examples
--------
>>> import pandas as pd, pdireval
>>> human = pd.DataFrame({"query": "q1", "doc": ["a", "b", "c", "d"], "rel": [0, 1, 2, 2]})
>>> llm = pd.DataFrame({"query": "q1", "doc": ["a", "b", "c", "d"], "rel": [0, 2, 2, 2]})
>>> pdireval.agreement({"human": human, "llm": llm})[["documents", "agreement", "kappa"]]
statistic        documents  agreement     kappa
judge_a judge_b
human   llm              4       0.75  0.555556
"""

from __future__ import annotations

from collections.abc import Hashable, Mapping
from dataclasses import dataclass
from itertools import combinations
from typing import TYPE_CHECKING, Literal

import numpy as np
import pandas as pd

from pdireval._core.errors import ParameterError, SchemaError
from pdireval._core.ids import same_kind
from pdireval._core.roles import as_column_map
from pdireval._prepare.checks import labels_of

if TYPE_CHECKING:
    from pdireval.typing import ColumnsLike

__all__ = ["agreement", "confusion_matrix", "fleiss_kappa", "krippendorff_alpha", "query_agreement"]

#: Judgments of several judges: one frame with a judge column, or ``{judge: qrels frame}``.
Judgments = pd.DataFrame | Mapping[Hashable, pd.DataFrame]

#: The kappas of a pair of judges: unweighted, linearly and quadratically weighted.
_KAPPAS = {"kappa": "nominal", "kappa_linear": "linear", "kappa_quadratic": "quadratic"}
_LEVELS = ("nominal", "ordinal", "interval")
_PAIR = ["judge_a", "judge_b"]


@dataclass(frozen=True)
class _Labels:
    """The judged documents as a matrix: one row per (query, doc), one column per judge."""

    judges: pd.Index  # judge names, sorted
    queries: pd.Index  # query ids; ``item_query`` indexes into them
    query_name: str
    item_query: np.ndarray  # query code of each (query, doc) item
    matrix: np.ndarray  # item x judge labels (float64), NaN where the judge gave none


def _frames(
    judgments: Judgments, judge: str, columns: ColumnsLike
) -> tuple[pd.Series, pd.Series, np.ndarray, pd.Series, str]:
    """Query ids, doc ids, labels and judge names of every row, and the query column name."""
    column_map = as_column_map(columns)
    if isinstance(judgments, pd.DataFrame):
        resolved = column_map.resolve(judgments)
        resolved.require(judgments, "query", "doc", "rel")
        if judge not in judgments.columns:
            msg = (
                f"judge column {judge!r} not found (columns: {list(judgments.columns)}); name "
                "the column that says whose label a row holds with judge='<column>', or pass "
                "the judgments as a {judge: qrels frame} mapping"
            )
            raise SchemaError(msg)
        query, doc, rel = (resolved.name(role) for role in ("query", "doc", "rel"))
        return (
            judgments[query],
            judgments[doc],
            labels_of(judgments[rel], rel),
            judgments[judge],
            query,
        )
    if not isinstance(judgments, Mapping):
        msg = (
            "judgments must be a DataFrame with a judge column or a {judge: qrels frame} "
            f"mapping, got {type(judgments).__name__}"
        )
        raise SchemaError(msg)
    queries: list[pd.Series] = []
    docs: list[pd.Series] = []
    labels: list[np.ndarray] = []
    names: list[pd.Series] = []
    for name, frame in judgments.items():
        if not isinstance(frame, pd.DataFrame):
            msg = f"the judgments of judge {name!r} must be a DataFrame, got {type(frame).__name__}"
            raise SchemaError(msg)
        resolved = column_map.resolve(frame)
        resolved.require(frame, "query", "doc", "rel")
        rel = resolved.name("rel")
        queries.append(frame[resolved.name("query")].reset_index(drop=True))
        docs.append(frame[resolved.name("doc")].reset_index(drop=True))
        labels.append(labels_of(frame[rel], rel))
        names.append(pd.Series([name] * len(frame), dtype=object))
    if not names:
        msg = "no judgments given: pass a {judge: qrels frame} mapping with two judges or more"
        raise SchemaError(msg)
    judges = list(judgments)
    for role, ids in (("query", queries), ("doc", docs)):
        same_kind(
            [(f"the judgments of judge {j!r}", i) for j, i in zip(judges, ids, strict=True)], role
        )
    return (
        pd.concat(queries, ignore_index=True),
        pd.concat(docs, ignore_index=True),
        np.concatenate(labels),
        pd.concat(names, ignore_index=True),
        "query",
    )


def _labels(judgments: Judgments, judge: str, columns: ColumnsLike) -> _Labels:
    """Read the judgments into the item x judge matrix, refusing what cannot be compared."""
    query, doc, label, names, query_name = _frames(judgments, judge, columns)
    for ids, role in ((query, "query"), (doc, "doc"), (names, "judge")):
        missing = np.asarray(ids.isna(), dtype=bool)
        if missing.any():
            msg = (
                f"{int(missing.sum())} judgment(s) have no {role} id; every row needs a query, "
                "a doc and a judge: fill or drop them"
            )
            raise SchemaError(msg)
    judged = ~np.isnan(label) & (label >= 0)  # negative: pooled but not judged (trec_eval)
    rows = np.flatnonzero(judged)
    query_codes, queries = pd.factorize(query.take(rows), sort=True)
    doc_codes, docs = pd.factorize(doc.take(rows))
    judge_codes, judges = pd.factorize(names.take(rows), sort=True)
    if len(judges) < 2:
        found = list(judges) if len(judges) else "no judged labels at all"
        msg = (
            f"agreement needs two judges or more, found {found}; give the labels of each "
            "judge (a judge column with a value per judge, or a {judge: qrels frame} mapping)"
        )
        raise SchemaError(msg)
    pair_key = query_codes.astype(np.int64) * max(len(docs), 1) + doc_codes
    items, item_codes = np.unique(pair_key, return_inverse=True)
    cell = item_codes.astype(np.int64) * len(judges) + judge_codes
    order = np.argsort(cell, kind="stable")
    repeated = np.flatnonzero(np.diff(cell[order]) == 0)
    if len(repeated):
        row = order[repeated[0]]
        msg = (
            f"judge {judges[judge_codes[row]]!r} labels document {docs[doc_codes[row]]!r} of "
            f"query {queries[query_codes[row]]!r} twice ({len(repeated)} repeated "
            "judgment(s)); keep one label per judge and document, e.g. "
            "frame.drop_duplicates([judge, query, doc])"
        )
        raise SchemaError(msg)
    matrix = np.full((len(items), len(judges)), np.nan)
    matrix[item_codes, judge_codes] = label[rows]
    item_query = (items // max(len(docs), 1)).astype(np.intp)
    return _Labels(pd.Index(judges), pd.Index(queries), query_name, item_query, matrix)


def _disagreement(values: np.ndarray, weights: str) -> np.ndarray:
    """Weight of each pair of label values: 0 for equal labels, larger further apart."""
    apart = np.subtract.outer(values, values)
    if weights == "nominal":
        return (apart != 0).astype(np.float64)
    if weights == "linear":
        return np.abs(apart)
    return apart**2


def _kappas(
    a: np.ndarray, b: np.ndarray, group: np.ndarray, groups: int
) -> tuple[np.ndarray, np.ndarray, dict[str, np.ndarray]]:
    """Documents, share of equal labels and Cohen's kappas of each group, all at once.

    kappa = 1 - D_o / D_e, with D_o the mean disagreement weight of the observed label
    pairs and D_e its expectation when both judges label independently with their own
    label frequencies in the group (Cohen 1960, 1968). NaN where D_e = 0.
    """
    values, codes = np.unique(np.concatenate([a, b]), return_inverse=True)
    size = len(values)
    code_a, code_b = codes[: len(a)], codes[len(a) :]
    documents = np.bincount(group, minlength=groups)
    count_a = np.bincount(group * size + code_a, minlength=groups * size).reshape(groups, size)
    count_b = np.bincount(group * size + code_b, minlength=groups * size).reshape(groups, size)
    share = np.bincount(group, weights=code_a == code_b, minlength=groups)
    kappas = {}
    with np.errstate(divide="ignore", invalid="ignore"):
        for column, weights in _KAPPAS.items():
            weight = _disagreement(values, weights)
            observed = np.bincount(group, weights=weight[code_a, code_b], minlength=groups)
            expected = ((count_a @ weight) * count_b).sum(axis=1) / documents
            kappas[column] = np.where(expected > 0, 1 - observed / expected, np.nan)
        share = np.where(documents > 0, share / documents, np.nan)
    return documents, share, kappas


def _pairs(labels: _Labels) -> list[tuple[int, int]]:
    return list(combinations(range(len(labels.judges)), 2))


def _pair_table(labels: _Labels, by_query: bool) -> pd.DataFrame:
    """One row per pair of judges (and query): documents, agreement and the kappas."""
    parts = []
    for a, b in _pairs(labels):
        both = ~np.isnan(labels.matrix[:, a]) & ~np.isnan(labels.matrix[:, b])
        group = labels.item_query[both] if by_query else np.zeros(int(both.sum()), np.intp)
        groups = len(labels.queries) if by_query else 1
        documents, share, kappas = _kappas(
            labels.matrix[both, a], labels.matrix[both, b], group, groups
        )
        keep = np.flatnonzero(documents > 0) if by_query else np.arange(1)
        part = pd.DataFrame(
            {"documents": documents[keep], "agreement": share[keep]}
            | {column: values[keep] for column, values in kappas.items()}
        )
        part.insert(0, "judge_a", labels.judges[a])
        part.insert(1, "judge_b", labels.judges[b])
        if by_query:
            part.insert(2, labels.query_name, labels.queries.take(keep))
        parts.append(part)
    table = pd.concat(parts, ignore_index=True)
    if not (table["documents"] > 0).any():
        msg = (
            f"no two judges label a common document (judges: {list(labels.judges)}); "
            "agreement is measured on the documents both judges of a pair labelled: check "
            "that the query and doc ids of the judgments match (same spelling and type)"
        )
        raise SchemaError(msg)
    table = table.astype({"documents": np.int64})
    index = [*_PAIR, labels.query_name] if by_query else _PAIR
    table = table.set_index(index)
    table.columns.name = "statistic"
    return table


def agreement(
    judgments: Judgments, *, judge: str = "judge", columns: ColumnsLike = None
) -> pd.DataFrame:
    """Agreement of each pair of judges on the documents both labelled: Cohen's kappas.

    Parameters
    ----------
    judgments : DataFrame or mapping
        The labels of two judges or more: a frame of judgments (query, doc, rel) with a
        column naming the judge of each row, or a mapping ``{judge: qrels frame}``.
    judge : str
        The judge column of a frame (default ``"judge"``); unused with a mapping.
    columns : ColumnMap or dict, optional
        Which columns hold the query, doc and rel of the frame(s).

    Returns
    -------
    DataFrame
        One row per pair of judges (index ``judge_a``, ``judge_b``; judges sorted, each
        pair once) with the columns ``documents`` (documents both labelled),
        ``agreement`` (share of them given the same label), ``kappa`` (Cohen's kappa),
        ``kappa_linear`` and ``kappa_quadratic`` (weighted kappa for graded labels).

    Raises
    ------
    SchemaError
        Fewer than two judges, a judge labelling a document twice, labels that are not
        whole numbers, or no pair of judges with a document in common.

    See Also
    --------
    query_agreement : the same per query.
    confusion_matrix : which labels two judges give the documents.
    fleiss_kappa, krippendorff_alpha : one number for all judges together.

    Notes
    -----
    Cohen's kappa is ``kappa = 1 - D_o / D_e``: ``D_o`` is the mean
    disagreement weight ``w(a, b)`` over the documents both judges labelled, and
    ``D_e`` its expectation if both judged independently with the label
    frequencies they have on those documents. Unweighted kappa counts any difference
    (``w = 1`` when ``a != b``, else 0); the weighted ones count how far apart the
    labels are, ``|a - b|`` (linear) or ``(a - b)**2`` (quadratic) (Cohen 1960, 1968).

    * The weights use the label *values*: labels 0, 1 and 3 are 3 apart, not 2 (as when
      the labels present are numbered in order, scikit-learn's ``cohen_kappa_score``
      default; pass it ``labels=range(0, 4)`` to get these numbers).
    * A document counts for a pair when both judges gave it a label; missing
      (NaN) and negative labels (pooled but not judged, as in trec_eval) are not labels.
    * Kappa is NaN when chance agreement is complete (both judges give every document
      one and the same label); a pair with no document in common gets ``documents`` 0
      and NaN (an error when no pair has one).

    References
    ----------
    J. Cohen. A coefficient of agreement for nominal scales. Educational and
    Psychological Measurement 20(1), 1960. J. Cohen. Weighted kappa: nominal scale
    agreement with provision for scaled disagreement or partial credit. Psychological
    Bulletin 70(4), 1968.

    Examples
    --------
    >>> import pandas as pd, pdireval
    >>> labels = pd.DataFrame({
    ...     "judge": ["human"] * 4 + ["llm"] * 4,
    ...     "query": "q1", "doc": ["a", "b", "c", "d"] * 2,
    ...     "rel": [0, 1, 2, 2, 0, 2, 2, 2]})
    >>> pdireval.agreement(labels).round(3)
    statistic        documents  agreement  kappa  kappa_linear  kappa_quadratic
    judge_a judge_b
    human   llm              4       0.75  0.556         0.714            0.833
    """
    return _pair_table(_labels(judgments, judge, columns), by_query=False)


def query_agreement(
    judgments: Judgments, *, judge: str = "judge", columns: ColumnsLike = None
) -> pd.DataFrame:
    """:func:`agreement` of each pair of judges, query by query.

    Parameters
    ----------
    judgments : DataFrame or mapping
        The labels of two judges or more, as for :func:`agreement`.
    judge : str
        The judge column of a frame (default ``"judge"``).
    columns : ColumnMap or dict, optional
        Which columns hold the query, doc and rel.

    Returns
    -------
    DataFrame
        Index ``judge_a``, ``judge_b`` and the query column; a row for each query on
        which the two judges labelled a document in common; the columns of
        :func:`agreement`. A query whose documents one judge labels all alike often has
        a NaN kappa: agreement is then all there is to read.

    Raises
    ------
    SchemaError
        As :func:`agreement`.

    Examples
    --------
    >>> import pandas as pd, pdireval
    >>> labels = pd.DataFrame({
    ...     "judge": ["human"] * 4 + ["llm"] * 4,
    ...     "query": ["q1", "q1", "q2", "q2"] * 2, "doc": ["a", "b", "c", "d"] * 2,
    ...     "rel": [0, 1, 0, 1, 0, 1, 1, 1]})
    >>> pdireval.query_agreement(labels)[["documents", "agreement", "kappa"]]
    statistic              documents  agreement  kappa
    judge_a judge_b query
    human   llm     q1             2        1.0    1.0
                    q2             2        0.5    0.0
    """
    return _pair_table(_labels(judgments, judge, columns), by_query=True)


def confusion_matrix(
    judgments: Judgments,
    a: Hashable | None = None,
    b: Hashable | None = None,
    *,
    judge: str = "judge",
    columns: ColumnsLike = None,
) -> pd.DataFrame:
    """How often judge ``a`` gives one label where judge ``b`` gives another.

    Parameters
    ----------
    judgments : DataFrame or mapping
        The labels of two judges or more, as for :func:`agreement`.
    a, b : judge name, optional
        The two judges; may be left out when there are exactly two.
    judge : str
        The judge column of a frame (default ``"judge"``).
    columns : ColumnMap or dict, optional
        Which columns hold the query, doc and rel.

    Returns
    -------
    DataFrame
        Counts of the documents both labelled: rows are ``a``'s labels (index named
        ``a``), columns ``b``'s (named ``b``); every label either judge gives on those
        documents appears on both sides. The diagonal holds the documents they agree on.

    Raises
    ------
    SchemaError
        As :func:`agreement`; unknown judges; ``a`` and ``b`` share no document.
    MetricError
        More than two judges and ``a``, ``b`` not given.

    Examples
    --------
    >>> import pandas as pd, pdireval
    >>> human = pd.DataFrame({"query": "q1", "doc": ["a", "b", "c", "d"], "rel": [0, 1, 2, 2]})
    >>> llm = pd.DataFrame({"query": "q1", "doc": ["a", "b", "c", "d"], "rel": [0, 2, 2, 2]})
    >>> pdireval.confusion_matrix({"human": human, "llm": llm}, "human", "llm")
    llm    0  1  2
    human
    0      1  0  0
    1      0  0  1
    2      0  0  2
    """
    labels = _labels(judgments, judge, columns)
    judges = list(labels.judges)
    if a is None and b is None and len(judges) == 2:
        a, b = judges
    if a is None or b is None:
        msg = (
            f"name the two judges to compare, e.g. confusion_matrix(judgments, "
            f"{judges[0]!r}, {judges[1]!r}); the judges are {judges}"
        )
        raise ParameterError(msg)
    for name in (a, b):
        if name not in judges:
            msg = f"judge {name!r} not found; the judges are {judges}"
            raise SchemaError(msg)
    label_a = labels.matrix[:, judges.index(a)]
    label_b = labels.matrix[:, judges.index(b)]
    both = ~np.isnan(label_a) & ~np.isnan(label_b)
    if not both.any():
        msg = (
            f"judges {a!r} and {b!r} label no document in common; check that the query "
            "and doc ids of their judgments match (same spelling and type)"
        )
        raise SchemaError(msg)
    values, codes = np.unique(np.concatenate([label_a[both], label_b[both]]), return_inverse=True)
    size = len(values)
    counts = np.bincount(codes[: both.sum()] * size + codes[both.sum() :], minlength=size * size)
    index = pd.Index(values.astype(np.int64), name=a)
    return pd.DataFrame(
        counts.reshape(size, size).astype(np.int64),
        index=index,
        columns=pd.Index(values.astype(np.int64), name=b),
    )


def fleiss_kappa(
    judgments: Judgments, *, judge: str = "judge", columns: ColumnsLike = None
) -> float:
    """Fleiss' kappa of all judges, over the documents every judge labelled.

    Parameters
    ----------
    judgments : DataFrame or mapping
        The labels of two judges or more, as for :func:`agreement`.
    judge : str
        The judge column of a frame (default ``"judge"``).
    columns : ColumnMap or dict, optional
        Which columns hold the query, doc and rel.

    Returns
    -------
    float
        ``kappa = (P - P_e) / (1 - P_e)``, NaN when every judge gives every document
        the same label (``P_e = 1``).

    Raises
    ------
    SchemaError
        As :func:`agreement`, or no document labelled by every judge.

    Notes
    -----
    For N documents each labelled by the same n judges, with ``n_ij`` the judges
    giving document i label j: ``P`` is the mean over documents of
    ``sum_j n_ij (n_ij - 1) / (n (n - 1))`` and ``P_e = sum_j p_j**2``, with
    ``p_j`` the share of all labels that are j (Fleiss 1971). Labels are nominal
    categories. Fleiss' kappa needs every document labelled by every judge, so
    documents some judge did not label are left out; :func:`krippendorff_alpha` uses
    them too.

    References
    ----------
    J. L. Fleiss. Measuring nominal scale agreement among many raters. Psychological
    Bulletin 76(5), 1971.

    Examples
    --------
    >>> import pandas as pd, pdireval
    >>> labels = pd.DataFrame({
    ...     "judge": ["x"] * 3 + ["y"] * 3 + ["z"] * 3,
    ...     "query": "q1", "doc": ["a", "b", "c"] * 3,
    ...     "rel": [1, 0, 1, 1, 0, 0, 1, 0, 1]})
    >>> round(pdireval.fleiss_kappa(labels), 4)
    0.55
    """
    labels = _labels(judgments, judge, columns)
    complete = labels.matrix[~np.isnan(labels.matrix).any(axis=1)]
    if not len(complete):
        msg = (
            f"no document is labelled by every judge ({list(labels.judges)}); Fleiss' "
            "kappa needs complete labels: use krippendorff_alpha, which allows missing "
            "ones, or select the judges that share documents"
        )
        raise SchemaError(msg)
    counts = _category_counts(complete)
    raters = complete.shape[1]
    share = counts.sum(axis=0) / counts.sum()
    observed = ((counts * (counts - 1)).sum(axis=1) / (raters * (raters - 1))).mean()
    chance = float((share**2).sum())
    return float((observed - chance) / (1 - chance)) if chance < 1 else float("nan")


def _category_counts(matrix: np.ndarray) -> np.ndarray:
    """Per row of an item x judge matrix, how many judges gave each label (NaN: none)."""
    given = ~np.isnan(matrix)
    values, codes = np.unique(matrix[given], return_inverse=True)
    row = np.nonzero(given)[0]
    counts = np.bincount(row * len(values) + codes, minlength=len(matrix) * len(values))
    return counts.reshape(len(matrix), len(values)).astype(np.float64)


def krippendorff_alpha(
    judgments: Judgments,
    *,
    level: Literal["nominal", "ordinal", "interval"] = "ordinal",
    judge: str = "judge",
    columns: ColumnsLike = None,
) -> float:
    """Krippendorff's alpha of all judges; documents may lack some judges' labels.

    Parameters
    ----------
    judgments : DataFrame or mapping
        The labels of two judges or more, as for :func:`agreement`.
    level : {"ordinal", "nominal", "interval"}
        How labels differ: ``"ordinal"`` (default; graded relevance is ordered, and
        the distance between grades depends on how often the grades between them
        are used), ``"nominal"`` (any two different labels differ equally) or
        ``"interval"`` (squared difference of the label values).
    judge : str
        The judge column of a frame (default ``"judge"``).
    columns : ColumnMap or dict, optional
        Which columns hold the query, doc and rel.

    Returns
    -------
    float
        ``alpha = 1 - D_o / D_e``; NaN when all labels are the same.

    Raises
    ------
    SchemaError
        As :func:`agreement`, or no document labelled by two judges.
    MetricError
        An unknown ``level``.

    Notes
    -----
    With the coincidence matrix ``o_ck = sum_u m_u(c, k) / (m_u - 1)`` over the
    documents u labelled by ``m_u >= 2`` judges (``m_u(c, k)`` the ordered pairs of
    their labels valued c and k), ``n_c = sum_k o_ck`` and ``n = sum_c n_c``:
    ``alpha = 1 - (n - 1) sum_ck o_ck d_ck / sum_ck n_c n_k d_ck`` (Krippendorff 2011),
    with ``d_ck`` the squared distance of labels c and k at the chosen level. Documents
    labelled by one judge only cannot be compared and do not count. The ordinal
    distance between labels c and k is ``(sum_{g=c..k} n_g - (n_c + n_k) / 2)**2``.

    References
    ----------
    K. Krippendorff. Computing Krippendorff's alpha-reliability. University of
    Pennsylvania, 2011.

    Examples
    --------
    >>> import pandas as pd, pdireval
    >>> labels = pd.DataFrame({
    ...     "judge": ["x"] * 3 + ["y"] * 3 + ["z"] * 2,
    ...     "query": "q1", "doc": ["a", "b", "c", "a", "b", "c", "a", "b"],
    ...     "rel": [2, 0, 1, 2, 0, 2, 2, 1]})
    >>> round(pdireval.krippendorff_alpha(labels, level="nominal"), 4)
    0.3
    """
    if level not in _LEVELS:
        msg = f"level={level!r} is not supported; use one of {list(_LEVELS)}"
        raise ParameterError(msg)
    labels = _labels(judgments, judge, columns)
    given = (~np.isnan(labels.matrix)).sum(axis=1)
    pairable = labels.matrix[given >= 2]
    if not len(pairable):
        msg = (
            f"no document is labelled by two judges or more ({list(labels.judges)}); "
            "check that the query and doc ids of the judgments match (same spelling and type)"
        )
        raise SchemaError(msg)
    counts = _category_counts(pairable)
    values = np.unique(pairable[~np.isnan(pairable)])
    scaled = counts / (counts.sum(axis=1) - 1)[:, None]
    coincidence = scaled.T @ counts - np.diag(scaled.sum(axis=0))
    totals = coincidence.sum(axis=1)
    if level == "nominal":
        distance = (np.subtract.outer(values, values) != 0).astype(np.float64)
    elif level == "interval":
        distance = np.subtract.outer(values, values) ** 2
    else:
        middle = np.cumsum(totals) - totals / 2
        distance = np.subtract.outer(middle, middle) ** 2
    expected = float(totals @ distance @ totals)
    if expected <= 0:
        return float("nan")
    return float(1 - (totals.sum() - 1) * (coincidence * distance).sum() / expected)
