"""What the command line does differently for trec_eval 10.0 (``--trec-eval-version 10.0``)
beyond the measures: which judged queries it evaluates, and how.

trec_eval 10.0 walks the queries of the qrels, not those of the run. Without ``-c`` a
judged query the run did not retrieve stops it (exit status 4); with ``-c`` that query is
evaluated on a ranking of one document that is in no qrels (``ceci_nest_pas_un_docno``),
and then num_ret, utility, relstring, rbp_resid and the unj values are set back to 0 (or
'' for relstring). Every other value of such a query is what that one-document ranking
gives -- 0 for most measures -- and all of them are printed under ``-q`` and summed.
"""

from __future__ import annotations

import argparse

import numpy as np
import pandas as pd

from pdireval.cli.files import InputError

__all__ = [
    "BOGUS_DOC",
    "add_empty_rankings",
    "judged_queries_by_version",
    "refuse_unretrieved",
    "reset_empty_rankings",
]

#: The document trec_eval 10.0 ranks for a judged query without results under -c.
BOGUS_DOC = "ceci_nest_pas_un_docno"
#: The values trec_eval 10.0 sets back for such a query: by exact name, and by prefix.
_ZEROED = ("num_ret", "utility", "rbp_resid")
_ZEROED_PREFIX = "unj"


def judged_queries_by_version(
    runs: list[pd.DataFrame], qrels: pd.DataFrame, args: argparse.Namespace
) -> tuple[list[pd.DataFrame], list[np.ndarray]]:
    """The runs as trec_eval ``--trec-eval-version`` reads them, and per run the judged
    queries it ranks one document for: none for 9.0.8; for 10.0, with ``-c``, those the
    run did not retrieve, and without ``-c`` a refusal when there is one.
    """
    if args.trec_eval_version != "10.0":
        return runs, [np.array([], dtype=object)] * len(runs)
    if args.complete:
        return add_empty_rankings(runs, qrels)
    refuse_unretrieved(runs, qrels, args.runs)
    return runs, [np.array([], dtype=object)] * len(runs)


def _missing(run: pd.DataFrame, judged: pd.Index) -> np.ndarray:
    """The judged queries ``run`` has no result for, in the qrels' order."""
    return judged[~judged.isin(run["query"].unique())].to_numpy(dtype=object)


def refuse_unretrieved(runs: list[pd.DataFrame], qrels: pd.DataFrame, paths: list[str]) -> None:
    """trec_eval 10.0 without ``-c``: a judged query a run did not retrieve stops it
    (status 4); say which, and the ways on.
    """
    judged = pd.Index(qrels["query"].unique())
    for run, path in zip(runs, paths, strict=True):
        missing = _missing(run, judged)
        if len(missing):
            first = sorted(map(str, missing))[0]
            msg = (
                f"run file '{path}' has no results for judged query {first!r} "
                f"({len(missing)} such queries): trec_eval 10.0 stops here with status 4. "
                "Use -c to score such queries 0, or --trec-eval-version 9.0.8, which leaves "
                "them out"
            )
            raise InputError(msg, 4)


def add_empty_rankings(
    runs: list[pd.DataFrame], qrels: pd.DataFrame
) -> tuple[list[pd.DataFrame], list[np.ndarray]]:
    """trec_eval 10.0 with ``-c``: each run with a one-document ranking (``BOGUS_DOC``,
    score 1) for every judged query it did not retrieve; and those queries per run.
    """
    judged = pd.Index(qrels["query"].unique())
    completed, added = [], []
    for run in runs:
        missing = _missing(run, judged)
        added.append(missing)
        if not len(missing):
            completed.append(run)
            continue
        bogus = pd.DataFrame(
            {
                "query": pd.Categorical(missing, categories=_categories(run, missing)),
                "doc": np.full(len(missing), BOGUS_DOC, dtype=object),
                "score": np.ones(len(missing)),
            }
        )
        run = run.assign(
            query=pd.Categorical(run["query"], categories=bogus["query"].cat.categories)
        )
        completed.append(
            pd.concat([run, bogus.astype({"doc": run["doc"].dtype})], ignore_index=True)
        )
    return completed, added


def _categories(run: pd.DataFrame, missing: np.ndarray) -> pd.Index:
    """The run's query categories with the missing queries added."""
    known = run["query"].cat.categories if hasattr(run["query"], "cat") else pd.Index([])
    return known.append(pd.Index(missing, dtype=object)).unique()


def reset_empty_rankings(values: pd.DataFrame, empty: pd.MultiIndex) -> None:
    """Set back, in ``values`` (index (run, query), a column per printed name), what
    trec_eval 10.0 sets back for the queries evaluated on its one-document ranking.
    """
    rows = values.index.isin(empty)
    if not rows.any():
        return
    for name in values.columns:
        if name == "relstring":
            values.loc[rows, name] = ""
        elif name in _ZEROED or str(name).startswith(_ZEROED_PREFIX):
            values.loc[rows, name] = 0.0
