"""Fusion written plainly, a document at a time, from the definitions in the user guide.

The oracle the vectorised :mod:`pdireval.fusion` is compared with: Python dicts, lists
and sorts, no codes and no bincount. Rankings are lists of (doc, score), best first, in
trec_eval's order (score descending, equal scores by doc id descending as UTF-8 bytes).
"""

from __future__ import annotations

import math
import statistics
from typing import Any

import pandas as pd

Ranking = list[tuple[Any, float]]


def trec_sorted(pairs: list[tuple[Any, float]]) -> Ranking:
    by_doc = sorted(pairs, key=lambda pair: str(pair[0]).encode("utf-8"), reverse=True)
    return sorted(by_doc, key=lambda pair: -pair[1])


def rankings(frame: pd.DataFrame, depth: int | None = None) -> dict[Any, dict[Any, Ranking]]:
    """run -> query -> ranking; every run gets every query (empty when it retrieved none)."""
    queries = sorted(set(frame["query"]), key=str)
    out: dict[Any, dict[Any, Ranking]] = {}
    for run in pd.unique(frame["run"]):
        rows = frame[frame["run"] == run]
        out[run] = {}
        for query in queries:
            mine = rows[rows["query"] == query]
            ranking = trec_sorted(list(zip(mine["doc"], mine["score"].astype(float), strict=True)))
            out[run][query] = ranking[:depth] if depth is not None else ranking
    return out


def normalise(runs: dict[Any, dict[Any, Ranking]], norm: str | None) -> dict:
    if norm is None:
        return runs
    out: dict[Any, dict[Any, Ranking]] = {run: {} for run in runs}
    first = next(iter(runs.values()))
    for query in first:
        candidates = {doc for run in runs.values() for doc, _ in run[query]}
        for run, by_query in runs.items():
            ranking = by_query[query]
            scores = [score for _, score in ranking]
            n = len(ranking)
            high, low = (max(scores), min(scores)) if scores else (0.0, 0.0)
            if norm == "min-max":
                new = [(d, (s - low) / max(high - low, 1e-9)) for d, s in ranking]
            elif norm == "min-max-inverted":
                new = trec_sorted([(d, (high - s) / max(high - low, 1e-9)) for d, s in ranking])
            elif norm == "max":
                new = [(d, s / max(high, 1e-9)) for d, s in ranking]
            elif norm == "sum":
                new = [(d, (s - low) / max(sum(scores) - low * n, 1e-9)) for d, s in ranking]
            elif norm == "zmuv":
                mean = sum(scores) / n if n else 0.0
                std = math.sqrt(sum((s - mean) ** 2 for s in scores) / n) if n else 0.0
                new = [(d, (s - mean) / max(std, 1e-9)) for d, s in ranking]
            elif norm == "rank":
                new = [(d, 1 - i / n) for i, (d, _) in enumerate(ranking)]
            elif norm == "borda":
                c = len(candidates)
                retrieved = {d for d, _ in ranking}
                new = [(d, 1 - i / c) for i, (d, _) in enumerate(ranking)]
                rest = [d for d in candidates if d not in retrieved]
                rest = sorted(rest, key=lambda d: str(d).encode("utf-8"), reverse=True)
                new += [(d, 0.5 - (n - 1) / (2 * c)) for d in rest]
            else:
                raise ValueError(norm)
            out[run][query] = new
    return out


def fuse(
    frame: pd.DataFrame,
    method: str,
    norm: str | None = "min-max",
    weights: list[float] | None = None,
    depth: int | None = None,
    **params: float,
) -> dict[Any, dict[Any, float]]:
    """query -> doc -> fused score."""
    runs = normalise(rankings(frame, depth), norm)
    names = list(runs)
    w = dict(zip(names, weights or [1.0] * len(names), strict=True))
    out: dict[Any, dict[Any, float]] = {}
    for query in runs[names[0]]:
        lists = {run: runs[run][query] for run in names}
        scores = {run: dict(ranking) for run, ranking in lists.items()}
        places = {run: {d: i + 1 for i, (d, _) in enumerate(r)} for run, r in lists.items()}
        candidates = sorted({d for r in lists.values() for d, _ in r}, key=str)
        c = len(candidates)
        fused = {}
        for doc in candidates:
            present = [run for run in names if doc in scores[run]]
            values = [scores[run][doc] for run in present]
            total, m = sum(values), len(values)
            isr = sum(1 / places[run][doc] ** 2 for run in present)
            if method == "CombSUM":
                fused[doc] = total
            elif method == "CombMNZ":
                fused[doc] = total * m
            elif method == "CombANZ":
                fused[doc] = total / m
            elif method == "CombGMNZ":
                fused[doc] = total * m ** params["gamma"]
            elif method == "CombMAX":
                fused[doc] = max(values)
            elif method == "CombMIN":
                fused[doc] = min(values)
            elif method == "CombMED":
                fused[doc] = statistics.median(values)
            elif method == "RRF":
                fused[doc] = sum(1 / (params.get("k", 60) + places[run][doc]) for run in present)
            elif method == "RBC":
                phi = params["phi"]
                fused[doc] = sum((1 - phi) * phi ** (places[run][doc] - 1) for run in present)
            elif method == "ISR":
                fused[doc] = isr * m
            elif method == "log_ISR":
                fused[doc] = isr * math.log(m)
            elif method == "logN_ISR":
                fused[doc] = isr * math.log(m + params.get("sigma", 0.01))
            elif method in ("BordaFuse", "wBordaFuse"):
                fused[doc] = sum(
                    w[run] * (c - places[run][doc] + 1)
                    if doc in places[run]
                    else w[run] * (c - len(lists[run]) + 1) / 2
                    for run in names
                )
            elif method == "Mixed":
                fused[doc] = sum(w[run] * scores[run][doc] for run in present) * math.sqrt(m)
            elif method == "WSum":
                fused[doc] = sum(w[run] * scores[run][doc] for run in present)
            elif method == "WMNZ":
                fused[doc] = total * sum(w[run] for run in present)
            elif method not in ("Condorcet", "wCondorcet"):
                raise ValueError(method)
        if method in ("Condorcet", "wCondorcet"):
            copeland = {doc: 0 for doc in candidates}
            for x in candidates:
                for y in candidates:
                    margin = sum(w[run] for run in names if _above(places[run], x, y)) - sum(
                        w[run] for run in names if _above(places[run], y, x)
                    )
                    copeland[x] += (margin > 0) - (margin < 0)
            order = trec_sorted(list(copeland.items()))
            fused = {doc: float(c - i) for i, (doc, _) in enumerate(order)}
        out[query] = fused
    return out


def _above(places: dict[Any, int], x: Any, y: Any) -> bool:
    """Whether a run ranks x above y (a retrieved document is above one not retrieved)."""
    return x in places and (y not in places or places[x] < places[y])


def ranked_frame(fused: dict[Any, dict[Any, float]]) -> pd.DataFrame:
    """The fused scores as a run frame ranked in trec_eval's order."""
    rows = []
    for query in sorted(fused, key=str):
        for rank, (doc, score) in enumerate(trec_sorted(list(fused[query].items())), 1):
            rows.append((query, doc, score, rank))
    return pd.DataFrame(rows, columns=["query", "doc", "score", "rank"])
