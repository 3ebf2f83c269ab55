"""A slow, obviously correct reference for the core metrics, written from the definitions.

Every function here takes one query's ranking as a plain list of labels in rank
order (``None`` or NaN for a retrieved document that is not judged) and the list
of all judged labels of the query (retrieved or not, negative labels included).
The code is deliberately naive: Python loops, no numpy, no shared work, so that it
can be read against the formulas of DESIGN.md §2 and the lecture notes and serve
as the independent oracle of the property tests.

Conventions (trec_eval's):

* a label is *relevant* when it is a number ``>= rel`` (and ``>= 0``: a negative
  label means "pooled but unjudged" and is never relevant, with gain 0);
* R is the number of relevant *judged* documents of the query, retrieved or not;
* a ratio whose denominator is 0 is 0.

:func:`reference_frame` applies the per-query functions to a whole long frame
(grouping and ordering the rows itself, with trec_eval's tie rule) so that the
tests compare it with ``pdireval.evaluate`` query by query.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import pandas as pd

Label = float | int | None

__all__ = [
    "REFERENCE",
    "average_precision",
    "bpref",
    "dcg",
    "ndcg",
    "num_rel",
    "num_rel_ret",
    "num_ret",
    "precision",
    "r_precision",
    "recall",
    "reciprocal_rank",
    "reference_frame",
    "reference_value",
    "success",
]


# --------------------------------------------------------------------------- helpers


def is_judged(label: Label) -> bool:
    """A label is a judgment when it is present (not None / NaN)."""
    return label is not None and not (isinstance(label, float) and math.isnan(label))


def is_relevant(label: Label, rel: int) -> bool:
    """Relevant: judged, not negative, and at least ``rel``."""
    return is_judged(label) and label >= 0 and label >= rel


def count_relevant(labels: Sequence[Label], rel: int) -> int:
    total = 0
    for label in labels:
        if is_relevant(label, rel):
            total += 1
    return total


def divide(numerator: float, denominator: float) -> float:
    return numerator / denominator if denominator != 0 else 0.0


def top(ranking: Sequence[Label], k: int | None) -> list[Label]:
    return list(ranking) if k is None else list(ranking[:k])


# --------------------------------------------------------------------------- metrics


def precision(ranking: Sequence[Label], judged: Sequence[Label], *, k: int, rel: int = 1) -> float:
    """P@k: relevant documents among the first k, divided by k (even if fewer retrieved)."""
    return count_relevant(top(ranking, k), rel) / k


def recall(ranking: Sequence[Label], judged: Sequence[Label], *, k: int, rel: int = 1) -> float:
    """R@k: relevant documents among the first k over all judged relevant documents."""
    return divide(count_relevant(top(ranking, k), rel), count_relevant(judged, rel))


def average_precision(
    ranking: Sequence[Label],
    judged: Sequence[Label],
    *,
    k: int | None = None,
    rel: int = 1,
    norm: str = "R",
) -> float:
    """AP (AP@k): sum of P@i at each relevant position i (<= k), divided by R -- or, with
    norm="min" and a cutoff, by min(k, R) (note 003's AP_1@k)."""
    total = 0.0
    found = 0
    for position, label in enumerate(top(ranking, k), start=1):
        if is_relevant(label, rel):
            found += 1
            total += found / position
    relevant = count_relevant(judged, rel)
    if norm == "min" and k is not None:
        relevant = min(relevant, k)
    return divide(total, relevant)


def reciprocal_rank(
    ranking: Sequence[Label], judged: Sequence[Label], *, k: int | None = None, rel: int = 1
) -> float:
    """RR (RR@k): 1 / position of the first relevant document (within k), else 0."""
    for position, label in enumerate(top(ranking, k), start=1):
        if is_relevant(label, rel):
            return 1.0 / position
    return 0.0


def success(ranking: Sequence[Label], judged: Sequence[Label], *, k: int, rel: int = 1) -> float:
    """Success@k: 1 when a relevant document is among the first k."""
    return 1.0 if count_relevant(top(ranking, k), rel) > 0 else 0.0


def r_precision(
    ranking: Sequence[Label], judged: Sequence[Label], *, rel: int = 1, mult: float = 1
) -> float:
    """Rprec: P@R with R the number of relevant documents (0 when R = 0); with ``mult``,
    precision at rank floor(mult * R + 0.9), trec_eval's rounding in Rprec_mult)."""
    cutoff = math.floor(mult * count_relevant(judged, rel) + 0.9)
    if cutoff == 0:
        return 0.0
    return count_relevant(top(ranking, cutoff), rel) / cutoff


def num_rel(ranking: Sequence[Label], judged: Sequence[Label], *, rel: int = 1) -> float:
    return float(count_relevant(judged, rel))


def num_ret(ranking: Sequence[Label], judged: Sequence[Label]) -> float:
    return float(len(ranking))


def num_rel_ret(ranking: Sequence[Label], judged: Sequence[Label], *, rel: int = 1) -> float:
    return float(count_relevant(ranking, rel))


def bpref(ranking: Sequence[Label], judged: Sequence[Label], *, rel: int = 1) -> float:
    """trec_eval's bpref.

    ``(1/R) * sum over relevant retrieved r of (1 - min(n_r, R) / min(R, N))``, where
    n_r counts the judged non-relevant documents (0 <= label < rel) ranked above r and
    N all judged non-relevant documents of the query. Unjudged and negative labels
    are skipped. A relevant document with no non-relevant one above it scores 1.
    """
    r = count_relevant(judged, rel)
    n = 0
    for label in judged:
        if is_judged(label) and 0 <= label < rel:
            n += 1
    total = 0.0
    nonrel_above = 0
    for label in ranking:
        if not is_judged(label) or label < 0:
            continue
        if label >= rel:
            if nonrel_above == 0:
                total += 1.0
            else:
                total += 1.0 - min(nonrel_above, r) / min(r, n)
        else:
            nonrel_above += 1
    return divide(total, r)


def gain_of(label: Label, *, gain: str | Mapping[int, float], rel: int) -> float:
    """Gain of one label: a mapping's gain for every label it lists; else 0 unless
    relevant, then label (linear, and labels a mapping does not list) or 2**label - 1."""
    if not isinstance(gain, str) and is_judged(label) and int(label) in dict(gain):
        return float(dict(gain)[int(label)])
    if not is_relevant(label, rel):
        return 0.0
    if gain == "exp":
        return 2.0 ** float(label) - 1.0
    return float(label)


def discount_of(position: int, *, discount: str, base: float) -> float:
    """log2: log2(i + 1); jarvelin: max(1, log_base(i)) (rank 1 and ranks < base undiscounted)."""
    if discount == "log2":
        return math.log2(position + 1)
    return max(1.0, math.log(position) / math.log(base))


def dcg(
    ranking: Sequence[Label],
    judged: Sequence[Label],
    *,
    k: int | None = None,
    rel: int = 1,
    gain: str | Mapping[int, float] = "linear",
    discount: str = "log2",
    base: float = 2,
) -> float:
    """DCG@k = sum over the first k positions i of gain(label_i) / discount(i)."""
    total = 0.0
    for position, label in enumerate(top(ranking, k), start=1):
        total += gain_of(label, gain=gain, rel=rel) / discount_of(
            position, discount=discount, base=base
        )
    return total


def ndcg(
    ranking: Sequence[Label],
    judged: Sequence[Label],
    *,
    k: int | None = None,
    rel: int = 1,
    gain: str | Mapping[int, float] = "linear",
    discount: str = "log2",
    base: float = 2,
    rel_only: bool = False,
) -> float:
    """nDCG@k: DCG@k over the DCG@k of the ideal ranking of all judged documents.

    ``rel_only``: the mean over the judged documents with a positive gain of nDCG at the
    rank of each (of the whole ranking, cut at k, for those not retrieved within k)."""
    options = {"rel": rel, "gain": gain, "discount": discount, "base": base}
    ideal = sorted(judged, key=lambda label: gain_of(label, gain=gain, rel=rel), reverse=True)
    if not rel_only:
        return divide(dcg(ranking, judged, k=k, **options), dcg(ideal, judged, k=k, **options))
    cut = top(ranking, k)
    positive = [label for label in judged if gain_of(label, gain=gain, rel=rel) > 0]
    whole = divide(dcg(cut, judged, **options), dcg(ideal, judged, **options))
    at_ranks = [
        divide(dcg(cut, judged, k=i, **options), dcg(ideal, judged, k=i, **options))
        for i, label in enumerate(cut, start=1)
        if gain_of(label, gain=gain, rel=rel) > 0
    ]
    total = sum(at_ranks) + whole * (len(positive) - len(at_ranks))
    return divide(total, len(positive))


#: Family name (pdireval.metrics.REGISTRY key) -> reference function.
REFERENCE: dict[str, Callable[..., float]] = {
    "P": precision,
    "R": recall,
    "AP": average_precision,
    "RR": reciprocal_rank,
    "Success": success,
    "Rprec": r_precision,
    "NumRel": num_rel,
    "NumRet": num_ret,
    "NumRelRet": num_rel_ret,
    "Bpref": bpref,
    "DCG": dcg,
    "nDCG": ndcg,
}


def reference_value(
    family: str,
    params: Mapping[str, Any],
    k: int | None,
    ranking: Sequence[Label],
    judged: Sequence[Label],
) -> float:
    """Value of metric ``family(**params) @ k`` for one query."""
    function = REFERENCE[family]
    options = dict(params)
    if options.pop("judged_only", False):  # trec_eval -J: unjudged and negative labels go
        ranking = [label for label in ranking if is_judged(label) and label >= 0]
    if k is not None:
        options["k"] = k
    return function(ranking, judged, **options)


# --------------------------------------------------------------------------- whole frames


def _missing(value: Any) -> bool:
    return value is None or value is pd.NA or (isinstance(value, float) and math.isnan(value))


def rankings_of(
    frame: pd.DataFrame,
    *,
    query: str = "query",
    doc: str = "doc",
    rel: str = "rel",
    rank: str | None = "rank",
    score: str | None = "score",
    run: str | None = None,
) -> dict[Any, tuple[list[Label], list[Label]]]:
    """Group a long frame by (run,) query into ``(ranking labels, judged labels)``.

    The ranking comes from the rank column when it exists, else from the score
    (descending, ties broken by doc id descending compared as strings, trec_eval's
    rule). Rows with a missing rank (or score) are judged but not retrieved.
    """
    use_rank = rank is not None and rank in frame.columns
    groups: dict[Any, dict[str, list]] = {}
    for row in frame.to_dict("records"):
        key = (row[run], row[query]) if run is not None else row[query]
        entry = groups.setdefault(key, {"retrieved": [], "judged": []})
        label = None if _missing(row[rel]) else float(row[rel])
        if label is not None:
            entry["judged"].append(label)
        order = row[rank] if use_rank else row[score]
        if not _missing(order):
            entry["retrieved"].append((float(order), str(row[doc]), label))
    result = {}
    for key, entry in groups.items():
        retrieved = entry["retrieved"]
        if use_rank:
            retrieved.sort(key=lambda item: item[0])
        else:
            retrieved.sort(key=lambda item: item[1], reverse=True)  # doc id descending ...
            retrieved.sort(key=lambda item: -item[0])  # ... then score descending (stable)
        result[key] = ([label for _, _, label in retrieved], entry["judged"])
    return result


def reference_frame(
    frame: pd.DataFrame,
    metrics: Sequence[tuple[str, str, Mapping[str, Any], int | None]],
    *,
    queries: str = "judged",
    **columns: Any,
) -> dict[Any, dict[str, float]]:
    """Reference values ``{query key: {label: value}}`` under a query policy.

    ``metrics`` holds ``(label, family name, params, k)`` tuples. ``queries`` is
    ``"judged"`` (queries with at least one judgment, any label), ``"retrieved"``
    (judged queries that retrieved something) or ``"all"`` (every query; unjudged
    ones get NaN).
    """
    out: dict[Any, dict[str, float]] = {}
    for key, (ranking, judged) in rankings_of(frame, **columns).items():
        has_judgment = len(judged) > 0
        if queries == "judged" and not has_judgment:
            continue
        if queries == "retrieved" and not (has_judgment and ranking):
            continue
        values = {}
        for label, family, params, k in metrics:
            if not has_judgment:
                values[label] = math.nan
            else:
                values[label] = reference_value(family, params, k, ranking, judged)
        out[key] = values
    return out
