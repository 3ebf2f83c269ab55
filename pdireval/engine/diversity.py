"""Diversity (intent-aware) measures over subtopic judgments, as ndeval computes them.

A frame with a subtopic column holds one row per (run, query, doc, subtopic) judgment
(:func:`pdireval.merge_qrels` with subtopic qrels builds it). :func:`split` turns it into
the ordinary frame the engine evaluates -- one row per document, labelled with its best
subtopic label -- and the table of (document row, subtopic, label) pairs the measures
here read. Everything is vectorised over queries; the greedy ideal ranking takes one
vectorised step per rank.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from pdireval._core.errors import ParameterError, SchemaError
from pdireval._core.roles import ResolvedColumns

__all__ = ["Subtopics", "diversity_values", "split"]


@dataclass(frozen=True)
class Subtopics:
    """The subtopic judgments of a collapsed frame: one entry per judged (row, subtopic)."""

    row: np.ndarray  # row of the collapsed frame (a document of one run and query)
    subtopic: np.ndarray  # the subtopic, coded per query (equal codes, equal subtopic)
    label: np.ndarray  # the judgment's label


def split(frame: pd.DataFrame, columns: ResolvedColumns) -> tuple[pd.DataFrame, Subtopics]:
    """The frame with one row per (run, query, doc) -- label = best subtopic label --
    and its subtopic judgments.
    """
    subtopic, rel = columns.name("subtopic"), columns.name("rel")
    keys = [name for name in (columns.run, columns.query, columns.doc) if name is not None]
    columns.require(frame, "query", "doc", "rel")
    judged = frame[subtopic].notna().to_numpy()
    repeated = frame.duplicated([*keys, subtopic]).to_numpy() & judged
    if repeated.any():
        example = frame.loc[repeated, [*keys, subtopic]].iloc[0].to_dict()
        msg = (
            f"{int(repeated.sum())} (query, doc, subtopic) judgment(s) appear more than once, "
            f"e.g. {example}; each document is judged once per subtopic"
        )
        raise SchemaError(msg)
    grouped = frame.groupby(keys, sort=False, observed=True, dropna=False)
    for name in (columns.rank, columns.score):
        if name is not None and (grouped[name].nunique(dropna=False) > 1).any():
            msg = (
                f"the rows of one document (one per subtopic) disagree on {name!r}; a "
                "document has one place in a ranking"
            )
            raise SchemaError(msg)
    row = grouped.ngroup().to_numpy()  # groups numbered in order of first appearance
    first = ~frame.duplicated(keys).to_numpy()
    collapsed = frame.loc[first].drop(columns=subtopic).reset_index(drop=True)
    collapsed[rel] = grouped[rel].max().to_numpy()
    query_code = pd.factorize(frame[columns.query].to_numpy()[judged])[0].astype(np.int64)
    subtopic_code = _sorted_codes(frame[subtopic].to_numpy()[judged])
    pair = query_code * (int(subtopic_code.max(initial=0)) + 1) + subtopic_code
    # one code per (query, subtopic), a query's subtopics numbered in the order of their ids
    codes = np.unique(pair, return_inverse=True)[1].astype(np.int64)
    numbers = pd.to_numeric(frame[rel], errors="coerce")
    labels = numbers.to_numpy(dtype=np.float64, na_value=np.nan)[judged]
    rows = row[judged]
    order = np.lexsort((codes, rows))  # each document's judgments in subtopic order
    return collapsed, Subtopics(rows[order], codes[order], labels[order])


def _sorted_codes(values: np.ndarray) -> np.ndarray:
    """Codes of ``values`` numbered in the sorted order of the values (of their text when
    they do not sort), so that the sums over a query's subtopics take one order whatever
    the order of the frame's rows and whichever other runs and queries it holds.
    """
    codes, uniques = pd.factorize(values)
    try:
        rank = np.argsort(np.asarray(uniques), kind="stable")
    except TypeError:  # ids of several types
        rank = np.argsort(np.asarray(uniques).astype(str), kind="stable")
    numbers = np.empty(len(rank), dtype=np.int64)
    numbers[rank] = np.arange(len(rank))
    return numbers[codes]


def _discount(kind: str, depth: np.ndarray) -> np.ndarray:
    return 1.0 / np.log2(1.0 + depth) if kind == "log" else 1.0 / depth


_FIRST_BLOCK, _LAST_BLOCK = 1 << 10, 1 << 20  # ranks summed at a time: doubling, capped


def _rank_series(kind: str, alpha: float, k: int) -> float:
    """``sum over r = 1..k of (1 - alpha)^(r - 1) * discount(r)``, a block of ranks at a
    time (blocks doubling in size), and stopping where the rest cannot change a float64:
    after rank r the rest is at most (1 - alpha)^r / alpha of the first term. A cutoff
    far beyond any ranking costs no memory, and with alpha > 0 little time.
    """
    total, start, block = 0.0, 1, _FIRST_BLOCK
    while start <= k:
        ranks = np.arange(float(start), float(min(k, start + block - 1)) + 1.0)
        terms = (1.0 - alpha) ** (ranks - 1) * _discount(kind, ranks)
        total += float(np.sum(terms))
        start += len(ranks)
        block = min(2 * block, _LAST_BLOCK)
        rest = (1.0 - alpha) ** (start - 1) / alpha if alpha > 0 else np.inf
        if rest <= total * 1e-17:
            break
    return total


def _ideal_values(
    group: np.ndarray,
    doc: np.ndarray,
    subtopic: np.ndarray,
    doc_order: np.ndarray,
    n_groups: int,
    alpha: float,
    weights: np.ndarray,
) -> np.ndarray:
    """Per group, ``sum over ranks r of weights[r - 1] * G(r)`` of the greedy ideal
    ranking of its relevant pairs, to ``len(weights)`` ranks.

    At each rank the document whose unseen-so-far subtopics gain most comes next
    (ties: the largest document id, as ndeval); a subtopic seen c times adds
    (1 - alpha)^c. ``doc`` numbers the candidate documents, ``doc_order`` ranks them
    by id descending. Each group's value is summed rank by rank, in rank order, and a
    rank without gain adds nothing: ranks past a group's last relevant document --
    however many are asked for, and whatever the other groups need -- leave it as it
    is, bit for bit.
    """
    out = np.zeros(n_groups)
    if not len(doc) or not len(weights):
        return out
    docs, pair_doc = np.unique(doc, return_inverse=True)
    doc_group = np.zeros(len(docs), dtype=np.int64)
    doc_group[pair_doc] = group
    order = np.lexsort((doc_order[docs], doc_group))  # by group, largest id first
    rank_of = np.empty(len(docs), dtype=np.int64)
    rank_of[order] = np.arange(len(docs))
    pair_doc = rank_of[pair_doc]
    doc_group = doc_group[order]
    starts = np.flatnonzero(np.r_[True, doc_group[1:] != doc_group[:-1]])
    segment = np.repeat(np.arange(len(starts)), np.diff(np.r_[starts, len(docs)]))
    keys, pair_key = np.unique(group * (subtopic.max() + 1) + subtopic, return_inverse=True)
    seen = np.zeros(len(keys))
    chosen = np.zeros(len(docs), dtype=bool)
    for weight in weights:
        gain = np.bincount(pair_doc, weights=(1.0 - alpha) ** seen[pair_key], minlength=len(docs))
        gain[chosen] = -1.0
        best = np.maximum.reduceat(gain, starts)
        if not (best > 0).any():
            break
        top = np.flatnonzero(gain >= best[segment] - 1e-12 * np.maximum(best[segment], 1.0))
        first = top[np.unique(segment[top], return_index=True)[1]]
        first = first[gain[first] > 0]
        out[doc_group[first]] += gain[first] * weight  # one document per group and rank
        chosen[first] = True
        picked = np.isin(pair_doc, first)
        seen += np.bincount(pair_key[picked], minlength=len(keys))
    return out


def diversity_values(
    family: str,
    params: dict,
    k: float | None,
    position: np.ndarray,
    group: np.ndarray,
    n_groups: int,
    doc_order: np.ndarray,
    pairs: Subtopics,
) -> np.ndarray:
    """One diversity measure per group (ndeval's definitions; see the families' docs)."""
    rel = params["rel"]
    relevant = (pairs.label >= rel) & (pairs.label >= 0)
    row, subtopic = pairs.row[relevant], pairs.subtopic[relevant]
    pair_group = group[row]
    # subtopics with a relevant document, per group
    keyed = np.unique(pair_group * (subtopic.max(initial=0) + 1) + subtopic)
    n_sub = np.bincount(keyed // (subtopic.max(initial=0) + 1), minlength=n_groups).astype(float)
    retrieved = ~np.isnan(position[row])
    r_row, r_sub, r_group = row[retrieved], subtopic[retrieved], pair_group[retrieved]
    r_pos = position[r_row]
    order = np.lexsort((r_pos, r_sub, r_group))
    r_sub, r_group, r_pos = r_sub[order], r_group[order], r_pos[order]
    new = np.r_[True, (r_group[1:] != r_group[:-1]) | (r_sub[1:] != r_sub[:-1])]
    index = np.arange(len(r_pos))
    seen = index - np.maximum.accumulate(np.where(new, index, 0))  # earlier in subtopic
    alpha = params.get("alpha", 0.5)
    weight = (1.0 - alpha) ** seen

    def total(mask: np.ndarray, values: np.ndarray) -> np.ndarray:
        return np.bincount(r_group[mask], weights=values[mask], minlength=n_groups)

    with np.errstate(divide="ignore", invalid="ignore"):
        if family in ("alpha_DCG", "alpha_nDCG", "ERR_IA", "nERR_IA"):
            kind = "log" if family.startswith("alpha") else "reciprocal"
            assert k is not None
            inside = r_pos <= k
            value = total(inside, weight * _discount(kind, r_pos))
            if family in ("alpha_DCG", "ERR_IA"):
                best_case = n_sub * _rank_series(kind, alpha, int(k))
                return value if k == 1 else np.where(n_sub > 0, value / best_case, 0.0)
            # the ideal ranking holds the relevant documents only: deeper ranks add nothing
            depth = min(int(k), int(np.bincount(pair_group, minlength=1).max(initial=0)))
            discounts = _discount(kind, np.arange(1.0, depth + 1.0))
            ideal = _ideal_values(pair_group, row, subtopic, doc_order, n_groups, alpha, discounts)
            return np.where(ideal > 0, value / ideal, 0.0)
        if family == "P_IA":
            assert k is not None
            found = total(r_pos <= k, np.ones(len(r_pos)))
            return np.where(n_sub > 0, found / (k * n_sub), 0.0)
        if family == "StRecall":
            assert k is not None
            covered = total((r_pos <= k) & new, np.ones(len(r_pos)))
            return np.where(n_sub > 0, covered / n_sub, 0.0)
        if family == "AP_IA":  # mean over subtopics of each subtopic's AP
            base = subtopic.max(initial=0) + 1
            keys, sizes = np.unique(pair_group * base + subtopic, return_counts=True)
            size = sizes[np.searchsorted(keys, r_group * base + r_sub)]
            every = np.ones(len(r_pos), dtype=bool)
            return np.where(n_sub > 0, total(every, (seen + 1) / r_pos / size) / n_sub, 0.0)
        beta = params["beta"]
        factor = (1.0 - (1.0 - alpha) * beta) / n_sub
        every = np.ones(len(r_pos), dtype=bool)
        value = total(every, beta ** (r_pos - 1) * weight) * factor
        if family == "NRBP":
            return np.where(n_sub > 0, value, 0.0)
        depth = int(np.bincount(pair_group, minlength=n_groups).max(initial=0))
        if beta < 1:  # ranks past beta^d < 1e-17 change nothing a float64 holds
            depth = min(depth, int(np.ceil(np.log(1e-17) / np.log(beta))) + 1)
        depth = max(depth, 1)
        patience = beta ** np.arange(depth)
        ideal_value = (
            _ideal_values(pair_group, row, subtopic, doc_order, n_groups, alpha, patience) * factor
        )
        return np.where(n_sub > 0, value / ideal_value, np.nan)


def refuse_policy(ties: str) -> None:
    """Diversity measures rank as trec_eval and ndeval do; other tie policies do not apply."""
    if ties != "trec":
        msg = f"ties={ties!r} is not available for the diversity measures; use ties='trec'"
        raise ParameterError(msg)
