"""Search length (``SearchLength``): the rank of the first relevant document (Cooper 1968).

Examples
--------
>>> import pandas as pd, pdireval
>>> df = pd.DataFrame({"query": ["q1", "q1", "q1", "q2"], "doc": ["a", "b", "c", "a"],
...                    "rank": [1, 2, 3, 1], "rel": [0, 0, 1, 0]})
>>> pdireval.evaluate(df, "SearchLength")
metric  SearchLength
query
q1               3.0
q2               NaN
"""

from __future__ import annotations

import numpy as np

from pdireval._prepare.ranked import Ranked
from pdireval.metrics._base import Family, register, rel_param

__all__ = ["SearchLength"]


def _search_length(ranked: Ranked, *, k: None, rel: int) -> np.ndarray:
    first = ranked.relevant(rel) & (ranked.relevant_so_far(rel) == 1)
    values = np.full(ranked.n_groups, np.nan)
    values[ranked.group[first]] = ranked.position[first]
    return values


SearchLength = register(
    Family(
        "SearchLength",
        _search_length,
        params=(rel_param(),),
        bounded=False,
        aliases=("search_length", "first_rel_rank"),
        doc="""Search length: rank of the first document labelled >= rel (NaN when there is none).

        ``SearchLength = min {i : rel_i >= rel}`` -- how many documents a user reads to
        reach the first relevant one, counting it (so ``RR = 1 / SearchLength`` where
        both are defined). Unjudged documents take up positions like non-relevant ones.
        A query that retrieves no relevant document has no search length: its value
        is NaN (not 0, which would read as "better than rank 1"), and :func:`summary`
        averages over the queries that have one. Cooper (1968) defines search length as a
        user-oriented measure; see also ``ESL`` for n wanted documents.

        """,
    )
)
