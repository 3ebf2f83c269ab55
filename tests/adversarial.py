"""Adversarial runs and judgments, and the bridge to pytrec_eval (trec_eval 9.0.8).

The generator produces what breaks naive evaluators: tied scores, unjudged
retrieved documents, relevant documents that were not retrieved, queries whose
judgments hold no relevant document, queries only in the run or only in the
qrels, negative labels, rankings shorter than the cutoffs, and ids whose string
order differs from their numeric order ("d10" < "d9"). Scores are multiples of
0.25 so that trec_eval 9.0.8's float32 scores equal ours exactly.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

CUTOFFS = (1, 3, 5, 10, 20)


def adversarial_case(seed: int, n_queries: int = 40) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Return ``(run, qrels)`` frames (columns query/doc/score and query/doc/rel)."""
    rng = np.random.default_rng(seed)
    run_parts, qrels_parts = [], []
    for number in range(n_queries):
        query = str(rng.choice([number, number * 10 + 9, 1000 + number]))  # "19" < "9"
        pool = np.array([f"d{i}" for i in rng.permutation(40)[: rng.integers(1, 30)]])
        kind = rng.random()
        if kind > 0.1:  # retrieved something (else: only judged)
            depth = int(rng.integers(1, len(pool) + 1))
            docs = rng.permutation(pool)[:depth]
            levels = rng.integers(1, 6)
            scores = rng.integers(0, levels * 4 + 1, size=depth) / 4.0  # many ties
            run_parts.append(pd.DataFrame({"query": query, "doc": docs, "score": scores}))
        if kind < 0.92:  # judged (else: only retrieved)
            judged = rng.permutation(pool)[: rng.integers(1, len(pool) + 1)]
            extra = np.array([f"x{i}" for i in range(rng.integers(0, 4))])  # never retrieved
            judged = np.concatenate([judged, extra])
            no_relevant = rng.random() < 0.1
            high = 1 if no_relevant else 4
            labels = rng.integers(-1, high, size=len(judged))
            qrels_parts.append(pd.DataFrame({"query": query, "doc": judged, "rel": labels}))
    run = pd.concat(run_parts, ignore_index=True).drop_duplicates(["query", "doc"])
    qrels = pd.concat(qrels_parts, ignore_index=True).drop_duplicates(["query", "doc"])
    return run.reset_index(drop=True), qrels.reset_index(drop=True)


def to_trec_dicts(run: pd.DataFrame, qrels: pd.DataFrame) -> tuple[dict, dict]:
    """Convert frames to pytrec_eval's nested dicts."""
    run_dict: dict = {}
    for query, doc, score in run[["query", "doc", "score"]].itertuples(index=False):
        run_dict.setdefault(str(query), {})[str(doc)] = float(score)
    qrels_dict: dict = {}
    for query, doc, rel in qrels[["query", "doc", "rel"]].itertuples(index=False):
        qrels_dict.setdefault(str(query), {})[str(doc)] = int(rel)
    return run_dict, qrels_dict


def truncate(run: pd.DataFrame, k: int) -> pd.DataFrame:
    """Keep the top k documents of each query by trec_eval's ordering."""
    ordered = run.sort_values(["query", "score", "doc"], ascending=[True, False, False])
    return ordered.groupby("query", sort=False).head(k)
