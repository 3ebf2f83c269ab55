"""Per-query tables with run, collection and seed levels, built from generated runs.

Each collection has its own queries and judgments; each system ranks the documents of a
query by a score that favours relevant documents by the system's strength, plus noise
that depends on the seed (a repeated run of the system). The tables are concatenated
outputs of :func:`pdireval.evaluate`, as a user builds them.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd

import pdireval
from pdireval._core.levels import Levels

LEVELS = Levels(query="query", run="system", collection="dataset", seed="seed")


def run_frame(
    rels: np.ndarray, strengths: Sequence[float], systems: Sequence[str], rng: np.random.Generator
) -> pd.DataFrame:
    """A long frame of the systems' rankings of (queries x docs) relevance labels."""
    n_queries, n_docs = rels.shape
    parts = []
    for system, strength in zip(systems, strengths, strict=True):
        scores = strength * rels + rng.normal(size=rels.shape)
        parts.append(
            pd.DataFrame(
                {
                    "query": np.repeat([f"q{i}" for i in range(n_queries)], n_docs),
                    "doc": np.tile([f"d{j}" for j in range(n_docs)], n_queries),
                    "score": scores.ravel(),
                    "rel": rels.ravel(),
                    "run": system,
                }
            )
        )
    return pd.concat(parts, ignore_index=True)


def seeded_table(
    metrics: Sequence[str] = ("AP", "nDCG@10"),
    *,
    collections: Sequence[str] = ("robust04", "msmarco", "trec-covid"),
    systems: Sequence[str] = ("bm25", "dense", "colbert", "splade", "monot5"),
    strengths: Sequence[float] = (1.0, 1.3, 1.6, 1.1, 2.2),
    seeds: Sequence[int] = (1, 2, 3),
    n_queries: int = 12,
    n_docs: int = 30,
    random_state: int = 0,
) -> pd.DataFrame:
    """Per-query table indexed by (system, dataset, seed, query): :data:`LEVELS`."""
    rng = np.random.default_rng(random_state)
    parts = {}
    for collection in collections:
        rels = (rng.random((n_queries, n_docs)) < 0.2).astype(np.int64)
        rels[:, 0] = 1  # every query judged
        for seed in seeds:
            frame = run_frame(rels, strengths, systems, rng)
            parts[collection, seed] = pdireval.evaluate(frame, list(metrics))
    table = pd.concat(parts, names=["dataset", "seed"])  # (dataset, seed, run, query)
    table = table.reorder_levels(["run", "dataset", "seed", "query"])
    table.index = table.index.set_names("system", level="run")
    order = {name: i for i, name in enumerate(systems)}
    ranks = table.index.get_level_values("system").map(order)
    return table.iloc[np.argsort(ranks, kind="stable")]
