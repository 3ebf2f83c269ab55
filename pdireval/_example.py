"""A small built-in example: two systems, two topics (the rankings A-D of lecture note 003)."""

from __future__ import annotations

import pandas as pd

__all__ = ["example_frame"]

# Relevance of the top 10 of each ranking, read off note 003's precision@k rows.
_RANKINGS = {
    ("system1", "topic1"): [1, 0, 1, 1, 1, 1, 0, 0, 0, 1],  # ranking A
    ("system2", "topic1"): [0, 1, 0, 0, 1, 1, 1, 0, 1, 1],  # ranking B
    ("system1", "topic2"): [1, 0, 0, 0, 0, 1, 0, 0, 0, 1],  # ranking C
    ("system2", "topic2"): [0, 1, 0, 0, 1, 0, 1, 0, 0, 0],  # ranking D
}


def example_frame() -> pd.DataFrame:
    """Return the example long frame (columns run, query, doc, rank, rel).

    Topic 1 has six relevant documents, topic 2 three; each system retrieves ten
    documents per topic and finds all relevant ones. Note 003 gives MAP 0.66 for
    system 1 and 0.48 for system 2.

    Examples
    --------
    >>> example_frame().ireval.map().round(2).to_dict()
    {'system1': 0.66, 'system2': 0.48}
    """
    rows = []
    for (run, query), labels in _RANKINGS.items():
        relevant = nonrelevant = 0
        for rank, label in enumerate(labels, start=1):
            if label:
                relevant += 1
                doc = f"{query}-rel{relevant}"
            else:
                nonrelevant += 1
                doc = f"{query}-{run}-non{nonrelevant}"
            rows.append((run, query, doc, rank, label))
    return pd.DataFrame(rows, columns=["run", "query", "doc", "rank", "rel"])
