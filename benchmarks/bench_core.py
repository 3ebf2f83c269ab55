"""Benchmark pdireval against pytrec_eval, ir_measures, ranx and trectools (MS MARCO-dev-like).

Every tool starts from the same two pandas DataFrames -- a run (``query``, ``doc``, ``score``)
and qrels (``query``, ``doc``, ``rel``) with string ids -- and must end with per-query AP,
nDCG@10, P@10, R@100, RR and Rprec in a DataFrame (one row per query).  The timed section of
each tool covers that whole path, including whatever conversion the tool needs.

Each (tool, input order) pair is measured in a fresh Python subprocess, so that imports, JIT
caches and allocator state of one tool cannot influence another, and so that the peak memory
of the subprocess can be attributed to that tool alone.

Examples
--------
Smoke run (a few seconds)::

    python benchmarks/bench_core.py --queries 200

Full run (7,000 queries x 1,000 documents, about 7M rows)::

    python benchmarks/bench_core.py --json benchmarks/results.json
"""

from __future__ import annotations

import argparse
import gc
import json
import math
import os
import platform
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from importlib import metadata
from pathlib import Path

import numpy as np
import pandas as pd

REPO_ROOT = Path(__file__).resolve().parent.parent
LABELS = ("AP", "nDCG@10", "P@10", "R@100", "RR", "Rprec")
TOOLS = (
    "pdireval",
    "pdireval_qrels",
    "pdireval_trusted",
    "pytrec_eval",
    "ir_measures",
    "ranx",
    "trectools",
)
ORDERS = ("run-ordered", "shuffled")
DISTRIBUTIONS = {
    "pdireval": "pdireval",
    "pdireval_qrels": "pdireval",
    "pdireval_trusted": "pdireval",
    "pytrec_eval": "pytrec-eval-terrier",
    "ir_measures": "ir-measures",
    "ranx": "ranx",
    "trectools": "trectools",
}
RESULT_MARKER = "@@BENCH_RESULT@@"
MSMARCO_PASSAGES = 8_841_823
MSMARCO_MAX_QID = 1_200_000
AGREEMENT_TOLERANCE = 1e-6
# Metrics that a peer is known to compute differently from trec_eval: the agreement checks
# report their differences apart (marked "known") instead of flagging the tool.
KNOWN_DIFFERENCES: dict[str, dict[str, str]] = {
    "trectools": {
        "Rprec": "trectools 0.0.50 get_rprec cuts each ranking at R with groupby('query').apply; "
        "pandas 3 drops the grouping column there, so the top-R documents are joined with the "
        "qrels on the doc id alone and count for any query that judged that doc id relevant",
    },
}


# --------------------------------------------------------------------------------------------
# Workload
# --------------------------------------------------------------------------------------------


def _string_series(values: np.ndarray) -> pd.Series:
    """Turn integer ids into a Series of pandas' default string dtype.

    Parameters
    ----------
    values : numpy.ndarray or pyarrow.Array
        Integer ids (or already-string Arrow values).

    Returns
    -------
    pandas.Series
        A Series with the dtype pandas uses for ``pd.Series(["a"])`` (``str`` in pandas 3).
    """
    import pyarrow as pa

    arrow = values if isinstance(values, pa.Array) else pa.array(values)
    arrow = arrow.cast(pa.string())
    default = pd.Series(["x"]).dtype
    if isinstance(default, pd.StringDtype):
        return pd.Series(pd.array(arrow, dtype=default))
    return pd.Series(arrow.to_pylist(), dtype=object)  # pragma: no cover - pandas < 3


def make_workload(
    n_queries: int = 7000,
    depth: int = 1000,
    seed: int = 42,
    tie_fraction: float = 0.2,
    unretrieved_fraction: float = 0.15,
) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Generate a deterministic MS MARCO-dev-like run and qrels.

    The run holds ``depth`` documents for each of ``n_queries`` queries, grouped by query
    (ascending numeric query id) and sorted by descending score.  A ``tie_fraction`` of the
    queries have their scores rounded to one decimal, which creates many tied scores.  Each
    query has 1 (90%), 2 (8%) or 3 (2%) relevant documents with ``rel == 1``; a relevant
    document is retrieved at a log-uniformly drawn rank, or -- with probability
    ``unretrieved_fraction`` -- is a document that the run does not contain.

    Parameters
    ----------
    n_queries : int, default 7000
        Number of queries.
    depth : int, default 1000
        Number of retrieved documents per query.
    seed : int, default 42
        Seed of the numpy random generator.
    tie_fraction : float, default 0.2
        Fraction of queries whose scores contain ties.
    unretrieved_fraction : float, default 0.15
        Probability that a relevant document is missing from the run.

    Returns
    -------
    run : pandas.DataFrame
        Columns ``query`` (str), ``doc`` (str) and ``score`` (float64).
    qrels : pandas.DataFrame
        Columns ``query`` (str), ``doc`` (str) and ``rel`` (int64).
    """
    import pyarrow as pa

    rng = np.random.default_rng(seed)
    qids = np.sort(rng.choice(MSMARCO_MAX_QID, size=n_queries, replace=False))
    # Strictly increasing cumulative gaps give distinct doc ids per query; permuting each row
    # decorrelates doc id and rank (which matters for trec_eval's tie-breaking on doc id).
    avg_gap = max(1, MSMARCO_PASSAGES // depth)
    docs = rng.integers(1, 2 * avg_gap, size=(n_queries, depth)).cumsum(axis=1)
    docs_max = docs[:, -1].copy()
    docs = rng.permuted(docs, axis=1)
    top = rng.uniform(15.0, 35.0, size=(n_queries, 1))
    scores = top - rng.exponential(10.0 / depth, size=(n_queries, depth)).cumsum(axis=1)
    tied = rng.random(n_queries) < tie_fraction
    scores[tied] = np.round(scores[tied], 1)

    n_rel = rng.choice([1, 2, 3], size=n_queries, p=[0.9, 0.08, 0.02])
    rel_query = np.repeat(np.arange(n_queries), n_rel)
    log_rank = rng.uniform(0.0, math.log(depth), size=rel_query.size)
    rank = np.minimum(np.exp(log_rank).astype(np.int64) - 1, depth - 1)
    retrieved = rng.random(rel_query.size) >= unretrieved_fraction
    unseen = docs_max[rel_query] + rng.integers(1, 1_000_000, size=rel_query.size)
    rel_docs = np.where(retrieved, docs[rel_query, rank], unseen)

    query_ids = pa.array(qids).cast(pa.string())
    run = pd.DataFrame(
        {
            "query": _string_series(query_ids.take(np.repeat(np.arange(n_queries), depth))),
            "doc": _string_series(docs.ravel()),
            "score": scores.ravel(),
        }
    )
    qrels = pd.DataFrame(
        {
            "query": _string_series(query_ids.take(rel_query)),
            "doc": _string_series(rel_docs),
            "rel": np.ones(rel_query.size, dtype=np.int64),
        }
    ).drop_duplicates(["query", "doc"], ignore_index=True)
    return run, qrels


def shuffle_rows(frame: pd.DataFrame, seed: int) -> pd.DataFrame:
    """Return the rows of ``frame`` in a seeded random order with a fresh RangeIndex.

    Parameters
    ----------
    frame : pandas.DataFrame
        Frame to shuffle.
    seed : int
        Seed of the permutation.

    Returns
    -------
    pandas.DataFrame
        The shuffled copy.
    """
    order = np.random.default_rng(seed).permutation(len(frame))
    return frame.take(order).reset_index(drop=True)


def build_inputs(args: argparse.Namespace, order: str) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Build the run and qrels frames for one input order.

    Parameters
    ----------
    args : argparse.Namespace
        Parsed command line (``queries``, ``depth``, ``seed``, ``tie_fraction``,
        ``unretrieved``).
    order : {"run-ordered", "shuffled"}
        Row order of both frames.

    Returns
    -------
    tuple of pandas.DataFrame
        ``(run, qrels)``.
    """
    run, qrels = make_workload(
        args.queries, args.depth, args.seed, args.tie_fraction, args.unretrieved
    )
    if order == "shuffled":
        run = shuffle_rows(run, args.seed + 1)
        qrels = shuffle_rows(qrels, args.seed + 2)
    dtype = ID_DTYPES[getattr(args, "id_dtype", "str")]
    if dtype is not None:  # what users hold: pandas 2's object strings, categories, ...
        ids = {"query": dtype, "doc": dtype}
        run, qrels = run.astype(ids), qrels.astype(ids)
    return run, qrels


#: --id-dtype: how the id columns are stored (None: pandas' default string dtype)
ID_DTYPES: dict[str, object] = {"str": None, "object": object, "category": "category"}


# --------------------------------------------------------------------------------------------
# Tools: each takes (run, qrels) DataFrames and returns a per-query DataFrame with LABELS.
# Peers are imported inside the functions, so that a missing one is reported as skipped.
# --------------------------------------------------------------------------------------------


def import_tool(tool: str) -> None:
    """Import a tool's package, raising ImportError when it is not available.

    Parameters
    ----------
    tool : str
        One of :data:`TOOLS`.
    """
    if tool.startswith("pdireval"):
        if str(REPO_ROOT) not in sys.path:
            sys.path.insert(0, str(REPO_ROOT))
        import pdireval

        pdireval.merge_qrels, pdireval.evaluate  # noqa: B018 - fail early if API is missing
    elif tool == "pytrec_eval":
        import pytrec_eval  # noqa: F401
    elif tool == "ir_measures":
        import ir_measures  # noqa: F401
    elif tool == "ranx":
        import ranx  # noqa: F401
    elif tool == "trectools":
        import trectools  # noqa: F401
    else:
        msg = f"unknown tool {tool!r}"
        raise ValueError(msg)


def run_pdireval(run: pd.DataFrame, qrels: pd.DataFrame) -> pd.DataFrame:
    """Evaluate with pdireval: ``merge_qrels`` then ``evaluate``.

    Parameters
    ----------
    run, qrels : pandas.DataFrame
        Benchmark inputs.

    Returns
    -------
    pandas.DataFrame
        Per-query metrics as returned by ``pdireval.evaluate``.
    """
    import pdireval

    frame = pdireval.merge_qrels(run, qrels)
    return pdireval.evaluate(frame, list(LABELS))


def run_pdireval_qrels(run: pd.DataFrame, qrels: pd.DataFrame) -> pd.DataFrame:
    """Evaluate with pdireval: ``evaluate(run, ..., qrels=qrels)``, no merged frame built.

    Parameters
    ----------
    run, qrels : pandas.DataFrame
        Benchmark inputs.

    Returns
    -------
    pandas.DataFrame
        Per-query metrics as returned by ``pdireval.evaluate``.
    """
    import pdireval

    return pdireval.evaluate(run, list(LABELS), qrels=qrels)


def run_pdireval_trusted(run: pd.DataFrame, qrels: pd.DataFrame) -> pd.DataFrame:
    """Evaluate with pdireval, skipping the frame checks (``validate=False``).

    Parameters
    ----------
    run, qrels : pandas.DataFrame
        Benchmark inputs.

    Returns
    -------
    pandas.DataFrame
        Per-query metrics as returned by ``pdireval.evaluate``.
    """
    import pdireval

    frame = pdireval.merge_qrels(run, qrels)
    return pdireval.evaluate(frame, list(LABELS), validate=False)


def _arrow_chunks(series: pd.Series):
    """Return the values of ``series`` as a pyarrow ChunkedArray (zero-copy when Arrow-backed).

    Parameters
    ----------
    series : pandas.Series
        Any Series.

    Returns
    -------
    pyarrow.ChunkedArray
        The values.
    """
    import pyarrow as pa

    values = getattr(series.array, "_pa_array", None)
    if values is None:
        values = pa.chunked_array([pa.array(series.to_numpy())])
    return values


def frame_to_nested_dict(frame: pd.DataFrame, value_column: str) -> dict[str, dict[str, object]]:
    """Convert a long (query, doc, value) frame to ``{query: {doc: value}}`` quickly.

    Queries are dictionary-encoded with Arrow; if the codes are not already grouped, rows are
    grouped with a stable radix sort on the codes.  Each query's dict is then built with
    ``dict(zip(...))`` over contiguous slices, which avoids any per-row Python bookkeeping.

    Parameters
    ----------
    frame : pandas.DataFrame
        Frame with ``query`` and ``doc`` columns.
    value_column : str
        Column holding the values (``score`` or ``rel``).

    Returns
    -------
    dict
        Nested dict as expected by pytrec_eval.
    """
    import pyarrow as pa
    import pyarrow.compute as pc

    def as_text(values: pa.ChunkedArray) -> pa.ChunkedArray:
        # pytrec_eval takes string ids only: integer ids are converted (timed, as for a user)
        return values if pa.types.is_string(values.type) else pc.cast(values, pa.string())

    encoded = pc.dictionary_encode(as_text(_arrow_chunks(frame["query"]))).combine_chunks()
    codes = encoded.indices.to_numpy()
    queries = encoded.dictionary.to_pylist()
    docs = as_text(_arrow_chunks(frame["doc"]))
    values = frame[value_column].to_numpy()
    if codes.size and not bool(np.all(codes[1:] >= codes[:-1])):
        keys = codes.astype(np.uint16) if len(queries) <= np.iinfo(np.uint16).max else codes
        order = np.argsort(keys, kind="stable")
        codes, docs, values = codes[order], docs.take(order), values[order]
    docs = docs.to_numpy(zero_copy_only=False)
    values = values.tolist()
    cuts = (np.flatnonzero(codes[1:] != codes[:-1]) + 1).tolist()
    starts, ends = [0, *cuts], [*cuts, codes.size]
    return {
        queries[codes[a]]: dict(zip(docs[a:b], values[a:b], strict=True))
        for a, b in zip(starts, ends, strict=True)
        if b > a
    }


def run_pytrec_eval(run: pd.DataFrame, qrels: pd.DataFrame) -> pd.DataFrame:
    """Evaluate with pytrec_eval, including the DataFrame -> nested dict conversion.

    Parameters
    ----------
    run, qrels : pandas.DataFrame
        Benchmark inputs.

    Returns
    -------
    pandas.DataFrame
        Per-query metrics built with ``DataFrame.from_dict`` (included in the timing).
    """
    import pytrec_eval

    names = {
        "map": "AP",
        "ndcg_cut_10": "nDCG@10",
        "P_10": "P@10",
        "recall_100": "R@100",
        "recip_rank": "RR",
        "Rprec": "Rprec",
    }
    measures = {"map", "ndcg_cut.10", "P.10", "recall.100", "recip_rank", "Rprec"}
    evaluator = pytrec_eval.RelevanceEvaluator(frame_to_nested_dict(qrels, "rel"), measures)
    results = evaluator.evaluate(frame_to_nested_dict(run, "score"))
    frame = pd.DataFrame.from_dict(results, orient="index").rename(columns=names)
    return frame[list(LABELS)].rename_axis("query")


def run_ir_measures(run: pd.DataFrame, qrels: pd.DataFrame) -> pd.DataFrame:
    """Evaluate with ``ir_measures.iter_calc`` on DataFrame inputs.

    ir_measures reads DataFrames with columns ``query_id``/``doc_id``/``score`` and
    ``query_id``/``doc_id``/``relevance``, so the columns are renamed (in the timing).

    Parameters
    ----------
    run, qrels : pandas.DataFrame
        Benchmark inputs.

    Returns
    -------
    pandas.DataFrame
        Per-query metrics, pivoted from the ``Metric`` records (included in the timing).
    """
    import ir_measures
    from ir_measures import AP, RR, P, R, Rprec, nDCG

    measures = [AP, nDCG @ 10, P @ 10, R @ 100, RR, Rprec]
    run = run.rename(columns={"query": "query_id", "doc": "doc_id"})
    qrels = qrels.rename(columns={"query": "query_id", "doc": "doc_id", "rel": "relevance"})
    records = [
        (m.query_id, str(m.measure), m.value) for m in ir_measures.iter_calc(measures, qrels, run)
    ]
    long = pd.DataFrame(records, columns=["query", "measure", "value"])
    frame = long.pivot(index="query", columns="measure", values="value")
    return frame[list(LABELS)].rename_axis(columns=None)


def run_ranx(run: pd.DataFrame, qrels: pd.DataFrame) -> pd.DataFrame:
    """Evaluate with ranx: ``Qrels.from_df`` / ``Run.from_df`` then ``evaluate``.

    ``from_df`` insists on ``object`` id columns, so the pandas 3 ``str`` columns are cast
    with ``astype(object)`` (in the timing).  ranx computes with numba on all cores.

    Parameters
    ----------
    run, qrels : pandas.DataFrame
        Benchmark inputs.

    Returns
    -------
    pandas.DataFrame
        Per-query metrics from ``evaluate(..., return_mean=False)`` (included in the timing).
    """
    from ranx import Qrels, Run, evaluate

    metrics = {
        "map": "AP",
        "ndcg@10": "nDCG@10",
        "precision@10": "P@10",
        "recall@100": "R@100",
        "mrr": "RR",
        "r-precision": "Rprec",
    }
    ids = {"query": object, "doc": object}
    ranx_qrels = Qrels.from_df(qrels.astype(ids), "query", "doc", "rel")
    ranx_run = Run.from_df(run.astype(ids), "query", "doc", "score")
    scores = evaluate(
        ranx_qrels, ranx_run, list(metrics), return_mean=False, save_results_in_run=False
    )
    index = pd.Index(list(ranx_run.get_query_ids()), name="query")
    return pd.DataFrame({label: scores[name] for name, label in metrics.items()}, index=index)


def run_trectools(run: pd.DataFrame, qrels: pd.DataFrame) -> pd.DataFrame:
    """Evaluate with trectools: ``TrecRun`` / ``TrecQrel`` from DataFrames, then ``TrecEval``.

    trectools keeps TREC-format frames: ``run_data`` with columns ``query``, ``q0``, ``docid``,
    ``rank``, ``score``, ``system`` and ``qrels_data`` with ``query``, ``q0``, ``docid``,
    ``rel``, ids as strings.  The run is sorted like trec_eval (query, score descending, doc id
    descending) before ``load_run_from_dataframe``, because that loader does not sort and
    ``get_ndcg`` ranks the documents in the stored order (the file reader ``read_run`` sorts,
    but with the doc id ascending).  The qrels frame is assigned to ``qrels_data`` as
    ``read_qrel`` would build it (trectools has no DataFrame loader for qrels).  Each metric is
    one ``TrecEval.get_*(per_query=True)`` call: ``get_map``, ``get_ndcg(depth=10)``
    (``trec_eval=True``: linear gain, like trec_eval's ``ndcg_cut``), ``get_precision(10)``,
    ``get_recall(100)``, ``get_reciprocal_rank`` and ``get_rprec``, with no depth cut for AP,
    RR and Rprec.  The per-query frames omit (or leave NaN) queries that score 0 -- trectools'
    own means count them as 0 -- so they are aligned on the evaluated queries (run queries
    that have judgments, as in trec_eval) and filled with 0.  All of it is timed.

    Parameters
    ----------
    run, qrels : pandas.DataFrame
        Benchmark inputs.

    Returns
    -------
    pandas.DataFrame
        Per-query metrics, one column per label.
    """
    import warnings

    from trectools import TrecEval, TrecQrel, TrecRun

    frame = pd.DataFrame(
        {"query": run["query"].astype(str), "docid": run["doc"].astype(str), "score": run["score"]}
    ).sort_values(["query", "score", "docid"], ascending=[True, False, False], ignore_index=True)
    frame.insert(1, "q0", "Q0")
    frame.insert(3, "rank", frame.groupby("query", sort=False).cumcount() + 1)
    frame["system"] = "bench"
    trec_run = TrecRun()
    trec_run.load_run_from_dataframe(frame)
    trec_qrels = TrecQrel()
    trec_qrels.qrels_data = pd.DataFrame(
        {
            "query": qrels["query"].astype(str),
            "q0": "0",
            "docid": qrels["doc"].astype(str),
            "rel": qrels["rel"],
        }
    )
    evaluator = TrecEval(trec_run, trec_qrels)
    whole = 10**9  # depth: no cut-off, as trec_eval's map, recip_rank and Rprec
    with warnings.catch_warnings():  # pandas deprecation warnings on trectools' code
        warnings.simplefilter("ignore", DeprecationWarning)
        warnings.simplefilter("ignore", FutureWarning)
        parts = {
            "AP": evaluator.get_map(depth=whole, per_query=True),
            "nDCG@10": evaluator.get_ndcg(depth=10, per_query=True),
            "P@10": evaluator.get_precision(depth=10, per_query=True),
            "R@100": evaluator.get_recall(depth=100, per_query=True),
            "RR": evaluator.get_reciprocal_rank(depth=whole, per_query=True),
            "Rprec": evaluator.get_rprec(depth=whole, per_query=True),
        }
    judged = trec_qrels.topics()
    index = pd.Index([q for q in trec_run.topics() if q in judged], name="query")
    columns = {}
    for label, part in parts.items():
        values = part.iloc[:, 0]
        values.index = values.index.astype(str)  # get_reciprocal_rank's index is categorical
        columns[label] = values.reindex(index).fillna(0.0)
    return pd.DataFrame(columns, index=index)


RUNNERS: dict[str, Callable[[pd.DataFrame, pd.DataFrame], pd.DataFrame]] = {
    "pdireval": run_pdireval,
    "pdireval_qrels": run_pdireval_qrels,
    "pdireval_trusted": run_pdireval_trusted,
    "pytrec_eval": run_pytrec_eval,
    "ir_measures": run_ir_measures,
    "ranx": run_ranx,
    "trectools": run_trectools,
}


def source_digest(package_dir: Path) -> str | None:
    """Return a short SHA-256 over the ``.py`` files of a package checkout.

    It identifies the pdireval code that was measured even when it is not committed yet.

    Parameters
    ----------
    package_dir : pathlib.Path
        Package directory.

    Returns
    -------
    str or None
        First 12 hex digits, or ``None`` when the directory has no Python files.
    """
    import hashlib

    digest = hashlib.sha256()
    files = sorted(package_dir.rglob("*.py"))
    for path in files:
        digest.update(str(path.relative_to(package_dir)).encode())
        digest.update(path.read_bytes())
    return digest.hexdigest()[:12] if files else None


def tool_version(tool: str) -> str | None:
    """Return the installed version of a tool, or ``None`` when unknown.

    Parameters
    ----------
    tool : str
        One of :data:`TOOLS`.

    Returns
    -------
    str or None
        Version string.
    """
    module = sys.modules.get(tool)
    version = getattr(module, "__version__", None)
    if version:
        return str(version)
    try:
        return metadata.version(DISTRIBUTIONS[tool])
    except metadata.PackageNotFoundError:
        return None


# --------------------------------------------------------------------------------------------
# Memory
# --------------------------------------------------------------------------------------------


def _status_kb(field: str) -> int | None:
    """Read a ``kB`` field (e.g. ``VmRSS``) of ``/proc/self/status``; ``None`` if unavailable.

    Parameters
    ----------
    field : str
        Field name.

    Returns
    -------
    int or None
        Value in KiB.
    """
    try:
        with open("/proc/self/status", encoding="ascii") as handle:
            for line in handle:
                if line.startswith(field + ":"):
                    return int(line.split()[1])
    except OSError:
        return None
    return None


def maxrss_mb() -> float:
    """Return ``getrusage(RUSAGE_SELF).ru_maxrss`` in MiB.

    Returns
    -------
    float
        Peak resident set size of this process.
    """
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return peak / 2**20 if sys.platform == "darwin" else peak / 2**10


def current_rss_mb() -> float:
    """Return the current resident set size in MiB (falls back to the peak off Linux).

    Returns
    -------
    float
        Current RSS.
    """
    rss = _status_kb("VmRSS")
    return rss / 2**10 if rss is not None else maxrss_mb()


def reset_peak_rss() -> bool:
    """Reset the kernel's peak-RSS counter to the current RSS (Linux ``clear_refs`` 5).

    After a reset, ``ru_maxrss`` no longer remembers the transient peak of data generation.

    Returns
    -------
    bool
        Whether the reset worked.
    """
    try:
        with open("/proc/self/clear_refs", "w", encoding="ascii") as handle:
            handle.write("5")
    except OSError:
        return False
    return maxrss_mb() <= current_rss_mb() + 1.0


# --------------------------------------------------------------------------------------------
# Worker: one tool, one order, in a fresh process
# --------------------------------------------------------------------------------------------


def _warmup_inputs(
    run: pd.DataFrame, qrels: pd.DataFrame, n_queries: int
) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Select the rows of the first ``n_queries`` queries, for an untimed warm-up call.

    Parameters
    ----------
    run, qrels : pandas.DataFrame
        Benchmark inputs.
    n_queries : int
        Number of queries to keep (at least 10: ranx drops to one thread below that).

    Returns
    -------
    tuple of pandas.DataFrame
        Small ``(run, qrels)``.
    """
    keep = pd.unique(qrels["query"])[:n_queries]
    return (
        run[run["query"].isin(keep)].reset_index(drop=True),
        qrels[qrels["query"].isin(keep)].reset_index(drop=True),
    )


def measure(tool: str, order: str, args: argparse.Namespace, out_path: Path) -> dict:
    """Time one tool on one input order and record its peak extra memory.

    The sequence is: build inputs, import the tool, warm up on a small subset (imports, JIT),
    ``gc.collect()``, reset the peak-RSS counter and read the baseline RSS, then run the timed
    repetitions.  The per-query result of the first repetition is written to ``out_path``.

    Parameters
    ----------
    tool : str
        One of :data:`TOOLS`.
    order : str
        One of :data:`ORDERS`.
    args : argparse.Namespace
        Parsed command line.
    out_path : pathlib.Path
        Parquet file for the per-query results.

    Returns
    -------
    dict
        Timings, memory figures and status.
    """
    record: dict = {"tool": tool, "order": order}
    t0 = time.perf_counter()
    run, qrels = build_inputs(args, order)
    record["generate_seconds"] = time.perf_counter() - t0
    record["rows"] = len(run)
    record["qrels_rows"] = len(qrels)
    try:
        import_tool(tool)
    except ImportError as exc:
        return record | {"status": "skipped", "error": f"{type(exc).__name__}: {exc}"}
    record["version"] = tool_version(tool)
    if tool.startswith("pdireval"):
        record["source_digest"] = source_digest(Path(sys.modules["pdireval"].__file__).parent)
    runner = RUNNERS[tool]
    if args.warmup_queries > 0:
        runner(*_warmup_inputs(run, qrels, max(10, args.warmup_queries)))

    gc.collect()
    record["peak_reset"] = reset_peak_rss()
    baseline = current_rss_mb() if record["peak_reset"] else maxrss_mb()
    record["baseline_rss_mb"] = baseline

    times: list[float] = []
    target = args.repeat
    while len(times) < target:
        gc.collect()
        start = time.perf_counter()
        result = runner(run, qrels)
        times.append(time.perf_counter() - start)
        if len(times) == 1:
            _save_result(result, out_path)
            if times[0] > args.slow_threshold:
                target = min(args.repeat, args.repeat_slow)
        del result
    record["peak_extra_mb"] = max(0.0, maxrss_mb() - baseline)
    record["times"] = times
    record["median_seconds"] = statistics.median(times)
    record["status"] = "ok"
    return record


def _save_result(result: pd.DataFrame, path: Path) -> None:
    """Normalise a per-query result frame and write it to parquet.

    Parameters
    ----------
    result : pandas.DataFrame
        Per-query result of a tool.
    path : pathlib.Path
        Destination.
    """
    frame = pd.DataFrame(result)[list(LABELS)].astype("float64")
    frame.index = pd.Index(frame.index.astype(str), name="query")
    frame.to_parquet(path)


def worker_main(args: argparse.Namespace) -> int:
    """Entry point of a worker subprocess: measure and print one JSON record.

    Parameters
    ----------
    args : argparse.Namespace
        Parsed command line with ``worker_tool``, ``worker_order`` and ``worker_out``.

    Returns
    -------
    int
        Exit status.
    """
    try:
        record = measure(args.worker_tool, args.worker_order, args, Path(args.worker_out))
    except Exception as exc:  # reported to the parent, which carries on
        import traceback

        traceback.print_exc()
        record = {
            "tool": args.worker_tool,
            "order": args.worker_order,
            "status": "error",
            "error": f"{type(exc).__name__}: {exc}",
        }
    print(RESULT_MARKER + json.dumps(record), flush=True)
    return 0


# --------------------------------------------------------------------------------------------
# Parent: orchestrate workers, compare, report
# --------------------------------------------------------------------------------------------

CONFIG_FLAGS = (
    "queries",
    "depth",
    "seed",
    "tie_fraction",
    "unretrieved",
    "repeat",
    "repeat_slow",
    "slow_threshold",
    "warmup_queries",
    "id_dtype",
)


def spawn_worker(tool: str, order: str, args: argparse.Namespace, workdir: Path) -> dict:
    """Run :func:`measure` for one tool and order in a fresh Python subprocess.

    Parameters
    ----------
    tool : str
        One of :data:`TOOLS`.
    order : str
        One of :data:`ORDERS`.
    args : argparse.Namespace
        Parsed command line (its workload and repetition flags are forwarded).
    workdir : pathlib.Path
        Directory for the per-query result files.

    Returns
    -------
    dict
        The worker's record, with ``result_path`` added.
    """
    out_path = workdir / f"{tool}--{order}.parquet"
    command = [sys.executable, str(Path(__file__).resolve())]
    for name in CONFIG_FLAGS:
        command += [f"--{name.replace('_', '-')}", str(getattr(args, name))]
    command += ["--worker-tool", tool, "--worker-order", order, "--worker-out", str(out_path)]
    try:
        proc = subprocess.run(
            command, capture_output=True, text=True, timeout=args.timeout, check=False
        )
    except subprocess.TimeoutExpired:
        return {"tool": tool, "order": order, "status": "error", "error": "timeout"}
    for line in reversed(proc.stdout.splitlines()):
        if line.startswith(RESULT_MARKER):
            record = json.loads(line[len(RESULT_MARKER) :])
            if record.get("status") == "error":
                record["stderr_tail"] = proc.stderr[-2000:]
            return record | {"result_path": str(out_path)}
    tail = proc.stderr.strip().splitlines()[-1:] or [f"exit status {proc.returncode}"]
    return {"tool": tool, "order": order, "status": "error", "error": tail[0]}


def add_ratios(records: list[dict]) -> None:
    """Add ``ratio`` (median time / pdireval's median time, same order) to each record.

    Parameters
    ----------
    records : list of dict
        Worker records, modified in place.
    """
    reference = {
        r["order"]: r["median_seconds"]
        for r in records
        if r["tool"] == "pdireval" and r.get("status") == "ok"
    }
    for record in records:
        base = reference.get(record["order"])
        ok = record.get("status") == "ok" and base
        record["ratio"] = record["median_seconds"] / base if ok else None


def _fmt(value: float | None, spec: str) -> str:
    """Format a number, or ``n/a`` for ``None``.

    Parameters
    ----------
    value : float or None
        Number.
    spec : str
        Format spec.

    Returns
    -------
    str
        Formatted text.
    """
    return "n/a" if value is None else format(value, spec)


def timing_table(records: list[dict]) -> str:
    """Render the Markdown results table.

    Parameters
    ----------
    records : list of dict
        Worker records with ratios.

    Returns
    -------
    str
        Markdown table.
    """
    lines = [
        "| tool | order | median s | min s | reps | ratio to pdireval | peak extra MB |",
        "| --- | --- | ---: | ---: | ---: | ---: | ---: |",
    ]
    for r in records:
        if r.get("status") != "ok":
            note = r.get("status", "error") + ": " + str(r.get("error", ""))[:80]
            lines.append(f"| {r['tool']} | {r['order']} | {note} | | | | |")
            continue
        ratio = _fmt(r["ratio"], ".2f") + ("x" if r["ratio"] is not None else "")
        lines.append(
            f"| {r['tool']} | {r['order']} | {r['median_seconds']:.3f} | {min(r['times']):.3f} "
            f"| {len(r['times'])} "
            f"| {ratio} | {r['peak_extra_mb']:.0f} |"
        )
    return "\n".join(lines)


def agreement(records: list[dict]) -> tuple[str, list[dict]]:
    """Compare the per-query results of all tools with pdireval's (run-ordered) results.

    Parameters
    ----------
    records : list of dict
        Worker records with ``result_path``.

    Returns
    -------
    table : str
        Markdown table of the mean of each metric, with flags for means that differ from the
        reference by more than :data:`AGREEMENT_TOLERANCE`, and the number of queries whose
        per-query value differs.
    rows : list of dict
        The same information, for JSON.
    """
    frames = {
        (r["tool"], r["order"]): pd.read_parquet(r["result_path"])
        for r in records
        if r.get("status") == "ok" and Path(r.get("result_path", "")).exists()
    }
    if not frames:
        return "(no results to compare)", []
    ref_key = next(
        (k for k in [("pdireval", o) for o in ORDERS] if k in frames), next(iter(frames))
    )
    reference = frames[ref_key]
    header = "| tool | order | queries | " + " | ".join(LABELS) + " | flags |"
    lines = [header, "| --- | --- | ---: |" + " ---: |" * len(LABELS) + " --- |"]
    rows = []
    seen_known: set[tuple[str, str]] = set()
    for (tool, order), frame in frames.items():
        means = frame.mean()
        aligned = frame.reindex(reference.index)
        diffs = (aligned - reference).abs()
        known = KNOWN_DIFFERENCES.get(tool, {})
        differing = {label: int((diffs[label] > AGREEMENT_TOLERANCE).sum()) for label in LABELS}
        flags, known_flags = [], []
        for label in LABELS:
            off = abs(means[label] - reference[label].mean()) > AGREEMENT_TOLERANCE
            if label in known:
                if off or differing[label]:
                    known_flags.append(f"{label}: {differing[label]} q differ")
                    seen_known.add((tool, label))
                continue
            if off:
                flags.append(f"mean {label}")
        flags += [
            f"{label}: {n} q differ" for label, n in differing.items() if n and label not in known
        ]
        missing = int(aligned[LABELS[0]].isna().sum())
        if missing or len(frame) != len(reference):
            flags.append(f"{missing} ref queries missing, {len(frame)} vs {len(reference)}")
        status = "; ".join(flags) or "ok"
        if known_flags:
            status += f" (known: {'; '.join(known_flags)})"
        cells = " | ".join(f"{means[label]:.6f}" for label in LABELS)
        lines.append(f"| {tool} | {order} | {len(frame)} | {cells} | {status} |")
        rows.append(
            {
                "tool": tool,
                "order": order,
                "queries": len(frame),
                "means": {label: float(means[label]) for label in LABELS},
                "queries_differing": differing,
                "flags": flags,
                "known_flags": known_flags,
            }
        )
    note = f"Reference: {ref_key[0]} ({ref_key[1]}); tolerance {AGREEMENT_TOLERANCE:g}."
    return note + "\n\n" + "\n".join(lines) + known_notes(seen_known), rows


def known_notes(seen: set[tuple[str, str]]) -> str:
    """Explain the known differences (:data:`KNOWN_DIFFERENCES`) that showed up in a report.

    Parameters
    ----------
    seen : set of (str, str)
        ``(tool, label)`` pairs whose results differed from the reference.

    Returns
    -------
    str
        One line per difference, preceded by a blank line; empty when there is none.
    """
    notes = [
        f"- known difference, {tool} {label}: {KNOWN_DIFFERENCES[tool][label]}."
        for tool, label in sorted(seen)
    ]
    return "\n\n" + "\n".join(notes) if notes else ""


def environment() -> dict:
    """Describe the machine and library versions.

    Returns
    -------
    dict
        Python, platform, CPU model and count, the load average, and numpy/pandas/pyarrow
        versions.
    """
    info = {
        "python": platform.python_version(),
        "platform": platform.platform(),
        "cpu": _cpu_model(),
        "cpus": os.cpu_count(),
        "load_average": os.getloadavg() if hasattr(os, "getloadavg") else None,
        "numpy": np.__version__,
        "pandas": pd.__version__,
    }
    try:
        info["pyarrow"] = metadata.version("pyarrow")
    except metadata.PackageNotFoundError:
        info["pyarrow"] = None
    return info


def _cpu_model() -> str:
    """The CPU's model name (Linux), else what ``platform`` knows of the processor."""
    try:
        with open("/proc/cpuinfo", encoding="utf-8") as lines:
            for line in lines:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor()


def _split(text: str, allowed: tuple[str, ...], flag: str) -> list[str]:
    """Parse a comma-separated list of names, checking each against ``allowed``.

    Parameters
    ----------
    text : str
        Comma-separated names.
    allowed : tuple of str
        Valid names.
    flag : str
        Flag name for the error message.

    Returns
    -------
    list of str
        Names in the order of ``allowed``.
    """
    names = [name.strip() for name in text.split(",") if name.strip()]
    unknown = sorted(set(names) - set(allowed))
    if unknown:
        msg = f"{flag}: unknown {unknown}; choose from {', '.join(allowed)}"
        raise SystemExit(msg)
    return [name for name in allowed if name in names]


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    """Parse the command line.

    Parameters
    ----------
    argv : list of str, optional
        Arguments (defaults to ``sys.argv[1:]``).

    Returns
    -------
    argparse.Namespace
        Parsed arguments.
    """
    parser = argparse.ArgumentParser(
        description=__doc__.split("\n\n")[0], formatter_class=argparse.RawTextHelpFormatter
    )
    parser.add_argument("--queries", type=int, default=7000, help="number of queries")
    parser.add_argument("--depth", type=int, default=1000, help="documents per query")
    parser.add_argument("--seed", type=int, default=42, help="workload seed")
    parser.add_argument("--tie-fraction", type=float, default=0.2, help="queries with ties")
    parser.add_argument(
        "--unretrieved", type=float, default=0.15, help="share of relevant docs not retrieved"
    )
    parser.add_argument("--repeat", type=int, default=5, help="timed repetitions per tool")
    parser.add_argument(
        "--repeat-slow", type=int, default=3, help="repetitions for tools slower than the threshold"
    )
    parser.add_argument(
        "--slow-threshold",
        type=float,
        default=30.0,
        help="seconds; a first repetition slower than this switches to --repeat-slow",
    )
    parser.add_argument(
        "--warmup-queries",
        type=int,
        default=50,
        help="untimed warm-up on this many queries (0 disables)",
    )
    parser.add_argument(
        "--only", default=",".join(TOOLS), help=f"comma-separated tools ({', '.join(TOOLS)})"
    )
    parser.add_argument(
        "--orders", default=",".join(ORDERS), help=f"comma-separated orders ({', '.join(ORDERS)})"
    )
    parser.add_argument("--timeout", type=float, default=3600.0, help="seconds per worker")
    parser.add_argument(
        "--id-dtype",
        default="str",
        choices=sorted(ID_DTYPES),
        help="dtype of the query and doc columns (default: pandas' string dtype)",
    )
    parser.add_argument("--json", metavar="PATH", help="also write the results as JSON")
    parser.add_argument("--worker-tool", help=argparse.SUPPRESS)
    parser.add_argument("--worker-order", help=argparse.SUPPRESS)
    parser.add_argument("--worker-out", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.repeat < 1 or args.repeat_slow < 1:
        parser.error("--repeat and --repeat-slow must be at least 1")
    return args


def main(argv: list[str] | None = None) -> int:
    """Run the benchmark and print the Markdown tables.

    Parameters
    ----------
    argv : list of str, optional
        Command-line arguments.

    Returns
    -------
    int
        Exit status.
    """
    args = parse_args(argv)
    if args.worker_tool:
        return worker_main(args)
    tools = _split(args.only, TOOLS, "--only")
    orders = _split(args.orders, ORDERS, "--orders")
    records = []
    load_before = environment()["load_average"]
    with tempfile.TemporaryDirectory(prefix="pdireval-bench-") as tmp:
        for order in orders:
            for tool in tools:
                print(f"[bench] {tool} / {order} ...", file=sys.stderr, flush=True)
                record = spawn_worker(tool, order, args, Path(tmp))
                status = record.get("status")
                detail = f"median {record['median_seconds']:.3f} s" if status == "ok" else ""
                print(f"[bench]   {status} {detail} {record.get('error', '')}", file=sys.stderr)
                records.append(record)
        add_ratios(records)
        agree_text, agree_rows = agreement(records)
    rows = records[0].get("rows") if records else None
    print(
        f"Workload: {args.queries} queries x {args.depth} docs ({rows} run rows), "
        f"seed {args.seed}, {args.tie_fraction:.0%} queries with ties, "
        f"{args.unretrieved:.0%} of relevant docs unretrieved.\n"
    )
    print(timing_table(records))
    print("\nAgreement (mean per metric over queries):\n")
    print(agree_text)
    if args.json:
        payload = {
            "config": {name: getattr(args, name) for name in CONFIG_FLAGS},
            "environment": environment() | {"load_average_before": load_before},
            "results": [{k: v for k, v in r.items() if k != "result_path"} for r in records],
            "agreement": agree_rows,
        }
        Path(args.json).write_text(json.dumps(payload, indent=2) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
