"""Scale benchmark: pdireval vs peers and a numpy lower bound, on three workload shapes.

Workloads (each run-ordered or shuffled, ids as pandas ``str``, ``object`` or ``category``):

* ``msmarco`` -- MS MARCO-dev-like: 7,000 queries x 1,000, ~1 relevant document per query
  (:func:`bench_core.make_workload`);
* ``trec-dl`` -- TREC-DL-like: 200 queries x 1,000, graded labels 0-3, ~200 judged documents
  per query (:func:`make_graded_workload`);
* ``wide`` -- 100,000 queries x 100 (10M rows), MS MARCO-like labels; ``--queries`` scales it
  for the check that time is linear in rows.

Tools are those of ``bench_core.py`` (``pdireval``, ``pdireval_trusted``, ``pytrec_eval``,
``ir_measures``, ``ranx``, ``trectools``) plus ``pdireval_evaluate`` (``evaluate`` on an
already merged frame) and ``numpy_lb``, the numpy lower bound of the same work
(:func:`run_numpy_lb`).  Each (workload, size, ids, order, tool) case runs in a fresh
subprocess, with bench_core's warm-up, peak-RSS reset and repetition logic.

Examples
--------
Smoke run (seconds)::

    python benchmarks/bench_scale.py --workloads trec-dl --only pdireval,numpy_lb

Linearity check on the 100k x 100 shape (1M, 3M, 10M rows)::

    python benchmarks/bench_scale.py --workloads wide --queries 10000,30000,100000 \\
        --only pdireval,numpy_lb --orders shuffled
"""

from __future__ import annotations

import argparse
import functools
import gc
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import pandas as pd

sys.path.insert(0, str(Path(__file__).resolve().parent))

import bench_core as core  # the benchmarks folder is not a package

LABELS = core.LABELS
WORKLOADS = {
    "msmarco": (7000, 1000),
    "trec-dl": (200, 1000),
    "wide": (100_000, 100),
    "small": (50, 100),
    "tiny": (1, 10),
}
TOOLS = (
    "pdireval",
    "pdireval_qrels",
    "pdireval_trusted",
    "pdireval_evaluate",
    "pdireval_evaluate_trusted",
    "pdireval_rank",
    "numpy_lb",
    "floor",
    "pytrec_eval",
    "ir_measures",
    "ranx",
    "trectools",
)
IDS = ("str", "object", "category", "int")
ORDERS = core.ORDERS
RESULT_MARKER = core.RESULT_MARKER


# --------------------------------------------------------------------------------------------
# Workloads
# --------------------------------------------------------------------------------------------


def make_graded_workload(
    n_queries: int = 200,
    depth: int = 1000,
    judged: int = 200,
    seed: int = 42,
    tie_fraction: float = 0.2,
    unretrieved_fraction: float = 0.3,
) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Generate a deterministic TREC-DL-like run and qrels with graded labels 0-3.

    Each query has about ``judged`` judged documents (Poisson); ``1 - unretrieved_fraction``
    of them are retrieved, drawn with a bias towards the top of the ranking (as pooling does),
    the rest are documents the run does not contain.  Labels are 0-3, higher labels being more
    likely near the top; unretrieved judged documents get mostly 0 or 1.

    Parameters
    ----------
    n_queries : int, default 200
        Number of queries.
    depth : int, default 1000
        Number of retrieved documents per query.
    judged : int, default 200
        Mean number of judged documents per query.
    seed : int, default 42
        Seed of the numpy random generator.
    tie_fraction : float, default 0.2
        Fraction of queries whose scores are rounded to one decimal (ties).
    unretrieved_fraction : float, default 0.3
        Share of the judged documents that are not in the run.

    Returns
    -------
    run : pandas.DataFrame
        Columns ``query`` (str), ``doc`` (str) and ``score`` (float64), grouped by query and
        sorted by descending score.
    qrels : pandas.DataFrame
        Columns ``query`` (str), ``doc`` (str) and ``rel`` (int64).
    """
    import pyarrow as pa

    rng = np.random.default_rng(seed)
    qids = np.sort(rng.choice(core.MSMARCO_MAX_QID, size=n_queries, replace=False))
    avg_gap = max(1, core.MSMARCO_PASSAGES // depth)
    docs = rng.integers(1, 2 * avg_gap, size=(n_queries, depth)).cumsum(axis=1)
    docs_max = docs[:, -1].copy()
    docs = rng.permuted(docs, axis=1)
    top = rng.uniform(15.0, 35.0, size=(n_queries, 1))
    scores = top - rng.exponential(10.0 / depth, size=(n_queries, depth)).cumsum(axis=1)
    tied = rng.random(n_queries) < tie_fraction
    scores[tied] = np.round(scores[tied], 1)

    n_judged = np.maximum(1, rng.poisson(judged, size=n_queries))
    n_ret = np.minimum(depth, np.round(n_judged * (1 - unretrieved_fraction)).astype(np.int64))
    n_unret = n_judged - n_ret
    # Pool-like choice of the retrieved judged ranks: smallest of uniform * sqrt(rank) keys.
    keys = rng.random((n_queries, depth)) * np.sqrt(np.arange(1, depth + 1))
    chosen = np.argsort(keys, axis=1)
    ret_rank = chosen[np.arange(depth) < n_ret[:, None]]
    ret_query = np.repeat(np.arange(n_queries), n_ret)
    x = rng.random(ret_rank.size) * (0.35 + ret_rank / depth)
    ret_rel = np.select([x < 0.05, x < 0.12, x < 0.25], [3, 2, 1], 0)
    un_query = np.repeat(np.arange(n_queries), n_unret)
    within = np.arange(un_query.size) - np.repeat(np.cumsum(n_unret) - n_unret, n_unret)
    un_docs = docs_max[un_query] + 1 + within * 1000 + rng.integers(0, 1000, size=un_query.size)
    un_rel = np.select([rng.random(un_query.size) < 0.2], [1], 0)

    rel_query = np.concatenate([ret_query, un_query])
    rel_docs = np.concatenate([docs[ret_query, ret_rank], un_docs])
    rels = np.concatenate([ret_rel, un_rel]).astype(np.int64)
    order = np.argsort(rel_query, kind="stable")
    query_ids = pa.array(qids).cast(pa.string())
    run = pd.DataFrame(
        {
            "query": core._string_series(query_ids.take(np.repeat(np.arange(n_queries), depth))),
            "doc": core._string_series(docs.ravel()),
            "score": scores.ravel(),
        }
    )
    qrels = pd.DataFrame(
        {
            "query": core._string_series(query_ids.take(rel_query[order])),
            "doc": core._string_series(rel_docs[order]),
            "rel": rels[order],
        }
    )
    return run, qrels


def one_query(depth: int, seed: int) -> tuple[pd.DataFrame, pd.DataFrame]:
    """One MS MARCO-like query of ``depth`` documents whose relevant document was retrieved.

    Parameters
    ----------
    depth : int
        Retrieved documents.
    seed : int
        Workload seed.

    Returns
    -------
    run, qrels : pandas.DataFrame
        The first such query of a 50-query workload.
    """
    run, qrels = core.make_workload(50, depth, seed)
    retrieved = qrels.merge(run, on=["query", "doc"])["query"]
    query = retrieved.iloc[0]
    pick = lambda frame: frame[frame["query"] == query].reset_index(drop=True)  # noqa: E731
    return pick(run), pick(qrels)


def convert_ids(frame: pd.DataFrame, ids: str) -> pd.DataFrame:
    """Return ``frame`` with its ``query`` and ``doc`` columns in the requested id dtype.

    Parameters
    ----------
    frame : pandas.DataFrame
        Run or qrels with ``str`` id columns.
    ids : {"str", "object", "category", "int"}
        Target dtype (``"int"``: int64, the workloads' ids being numeric strings).

    Returns
    -------
    pandas.DataFrame
        The converted frame (the same object for ``"str"``).
    """
    if ids == "str":
        return frame
    target = "int64" if ids == "int" else ids
    return frame.astype({"query": target, "doc": target})


def build_inputs(args: argparse.Namespace) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Build the run and qrels of one case (workload, size, order, ids).

    Parameters
    ----------
    args : argparse.Namespace
        Worker command line (``workload``, ``queries``, ``depth``, ``seed``, ``order``,
        ``ids``).

    Returns
    -------
    tuple of pandas.DataFrame
        ``(run, qrels)``.
    """
    if args.workload == "trec-dl":
        run, qrels = make_graded_workload(args.queries, args.depth, seed=args.seed)
    elif args.workload == "tiny":
        run, qrels = one_query(args.depth, args.seed)
    else:
        run, qrels = core.make_workload(args.queries, args.depth, args.seed)
    if args.order == "shuffled":
        run = core.shuffle_rows(run, args.seed + 1)
        qrels = core.shuffle_rows(qrels, args.seed + 2)
    return convert_ids(run, args.ids), convert_ids(qrels, args.ids)


# --------------------------------------------------------------------------------------------
# The numpy lower bound
# --------------------------------------------------------------------------------------------


def attach_labels(run: pd.DataFrame, qrels: pd.DataFrame) -> pd.DataFrame:
    """Add a ``rel`` column (0 when unjudged) to the run rows; not timed.

    Parameters
    ----------
    run, qrels : pandas.DataFrame
        Benchmark inputs.

    Returns
    -------
    pandas.DataFrame
        ``run`` with an int64 ``rel`` column, rows in the run's order.
    """
    keys = ["query", "doc"]
    plain = {"query": object, "doc": object}
    labels = run[keys].astype(plain).merge(qrels.astype(plain), on=keys, how="left")["rel"]
    return run.assign(rel=labels.fillna(0).to_numpy(dtype=np.int64))


def _segment_rank(codes: np.ndarray) -> np.ndarray:
    """Return the 0-based position of each element within its run of equal ``codes``.

    Parameters
    ----------
    codes : numpy.ndarray
        Grouped (non-decreasing) codes.

    Returns
    -------
    numpy.ndarray
        ``0, 1, 2, ...`` restarting at every new code.
    """
    if codes.size == 0:
        return np.zeros(0, dtype=np.int64)
    starts = np.flatnonzero(np.r_[True, codes[1:] != codes[:-1]])
    lengths = np.diff(np.r_[starts, codes.size])
    return np.arange(codes.size) - np.repeat(starts, lengths)


def run_numpy_lb(labelled: pd.DataFrame, qrels: pd.DataFrame) -> pd.DataFrame:
    """The numpy lower bound: per-query metrics from a run whose labels are already merged.

    The work left is what any evaluator must do: factorize the query column, order the rows
    by (query, descending score) with one sort (skipped when they already are), and run the
    metric kernels on the relevant rows only.  The judged documents the run missed enter
    through the number of relevant documents and the ideal DCG, computed from ``qrels``.
    Score ties are left in an arbitrary order (trec_eval orders them by doc id) and the score
    is packed into the low bits of a 64-bit key, so a handful of near-equal scores may swap:
    both make this slightly *less* work than an exact evaluator does.

    Parameters
    ----------
    labelled : pandas.DataFrame
        Run with ``query``, ``score`` and an int ``rel`` column (0 = unjudged).
    qrels : pandas.DataFrame
        Judgments (``query``, ``rel``), for R and the ideal DCG.

    Returns
    -------
    pandas.DataFrame
        Per-query AP, nDCG@10, P@10, R@100, RR and Rprec, indexed by query.
    """
    codes, uniques = pd.factorize(labelled["query"], sort=False)
    q_codes = pd.Index(uniques).get_indexer(qrels["query"])
    return _kernels(
        codes, uniques, labelled["score"].to_numpy(), labelled["rel"].to_numpy(),
        q_codes, qrels["rel"].to_numpy(),
    )  # fmt: skip


def _kernels(
    codes: np.ndarray,
    uniques: object,
    score: np.ndarray,
    rel: np.ndarray,
    q_codes: np.ndarray,
    q_rel: np.ndarray,
) -> pd.DataFrame:
    """The six metrics from query codes, scores and labels of the run rows (lower bounds' core).

    Parameters
    ----------
    codes : numpy.ndarray
        Query code of each run row, ``0 .. len(uniques) - 1``.
    uniques : array-like
        The query ids, indexed by code.
    score, rel : numpy.ndarray
        Score and label (0 when unjudged) of each run row.
    q_codes, q_rel : numpy.ndarray
        Query code (-1 when the run lacks the query) and label of each qrels row.

    Returns
    -------
    pandas.DataFrame
        Per-query AP, nDCG@10, P@10, R@100, RR and Rprec of the run's queries with a relevant
        document, indexed by query.
    """
    n_q = len(uniques)  # type: ignore[arg-type]
    counts = np.bincount(codes, minlength=n_q)
    change = codes[1:] != codes[:-1]
    # grouped (each query's rows contiguous, in any query order) and by descending score
    sorted_rows = codes.size < 2 or (
        int(np.count_nonzero(change)) + 1 == int(np.count_nonzero(counts))
        and bool(np.all(change | (score[1:] <= score[:-1])))
    )
    if not sorted_rows:
        bits = max(1, int(n_q - 1).bit_length())
        flipped = (-score).view(np.int64)
        orderable = np.where(flipped < 0, ~flipped, flipped ^ np.int64(-(2**63))).view(np.uint64)
        key = (codes.astype(np.uint64) << np.uint64(64 - bits)) | (orderable >> np.uint64(bits))
        order = np.argsort(key)
        codes, rel = codes[order], rel[order]
        change = codes[1:] != codes[:-1]
    firsts = np.flatnonzero(np.r_[True, change]) if codes.size else np.zeros(0, np.int64)
    starts = np.zeros(n_q, dtype=np.int64)
    starts[codes[firsts]] = firsts
    hit = np.flatnonzero(rel > 0)
    hq, gain = codes[hit], rel[hit].astype(np.float64)
    pos = hit - starts[hq]  # 0-based rank of each relevant retrieved document

    keep = (q_codes >= 0) & (q_rel > 0)
    q_codes, q_rel = q_codes[keep], q_rel[keep]
    n_rel = np.bincount(q_codes, minlength=n_q).astype(np.float64)
    ideal_order = np.lexsort((-q_rel, q_codes))
    i_codes, i_rel = q_codes[ideal_order], q_rel[ideal_order]
    i_pos = _segment_rank(i_codes)
    top = i_pos < 10
    idcg = np.bincount(i_codes[top], i_rel[top] / np.log2(i_pos[top] + 2.0), minlength=n_q)

    found = _segment_rank(hq) + 1.0  # relevant documents up to and including this one
    safe_r = np.where(n_rel > 0, n_rel, 1.0)
    ap = np.bincount(hq, found / (pos + 1.0), minlength=n_q) / safe_r
    in10 = pos < 10
    dcg = np.bincount(hq[in10], gain[in10] / np.log2(pos[in10] + 2.0), minlength=n_q)
    ndcg = np.divide(dcg, idcg, out=np.zeros(n_q), where=idcg > 0)
    p10 = np.bincount(hq[in10], minlength=n_q) / 10.0
    r100 = np.bincount(hq[pos < 100], minlength=n_q) / safe_r
    first = np.full(n_q, np.inf)
    if hq.size:
        lead = np.r_[True, hq[1:] != hq[:-1]]  # hits are in rank order within a query
        first[hq[lead]] = pos[lead]
    rr = 1.0 / (first + 1.0)
    rprec = np.bincount(hq[pos < n_rel[hq]], minlength=n_q) / safe_r
    table = pd.DataFrame(
        {"AP": ap, "nDCG@10": ndcg, "P@10": p10, "R@100": r100, "RR": rr, "Rprec": rprec},
        index=pd.Index(uniques, name="query"),
    )
    return table[(n_rel > 0) & (counts > 0)]


def _arrow_ids(ids: pd.Series):
    """The ids as a pyarrow array: zero-copy for Arrow strings, converted otherwise."""
    import pyarrow as pa

    values = getattr(ids.array, "_pa_array", None)
    return values if values is not None else pa.array(ids.to_numpy())


def _query_codes(run_ids: pd.Series, qrels_ids: pd.Series) -> tuple[np.ndarray, object, np.ndarray]:
    """Codes of the run's query ids, the distinct ids, and the qrels' codes (-1: not in run)."""
    import pyarrow.compute as pc

    if isinstance(run_ids.dtype, pd.CategoricalDtype):
        codes = run_ids.cat.codes.to_numpy().astype(np.int64)
        uniques = run_ids.cat.categories
    elif run_ids.dtype.kind in "iu":
        codes, uniques = pd.factorize(run_ids.to_numpy())
    else:
        encoded = pc.dictionary_encode(_arrow_ids(run_ids))
        if hasattr(encoded, "combine_chunks"):
            encoded = encoded.combine_chunks()
        codes = encoded.indices.to_numpy().astype(np.int64)
        uniques = encoded.dictionary.to_numpy(zero_copy_only=False)
    q_codes = pd.Index(uniques).get_indexer(np.asarray(qrels_ids, dtype=object))
    return codes, uniques, q_codes


def _judged_doc_rows(run_ids: pd.Series, qrels_ids: pd.Series) -> np.ndarray:
    """Indices of the run rows whose doc id occurs anywhere in the qrels (one hash lookup)."""
    import pyarrow as pa
    import pyarrow.compute as pc

    judged = pd.unique(np.asarray(qrels_ids, dtype=object))
    if run_ids.dtype.kind in "iu":
        return np.flatnonzero(pd.Index(judged.astype(np.int64)).get_indexer(run_ids) >= 0)
    categorical = isinstance(run_ids.dtype, pd.CategoricalDtype)
    # categories: Arrow's lookup of each category once (pandas' isin reads Arrow strings
    # one Python object at a time), then the codes read the answer
    values = pd.Series(run_ids.cat.categories) if categorical else run_ids
    mask = pc.is_in(_arrow_ids(values), value_set=pa.array(judged, type=pa.string()))
    if hasattr(mask, "combine_chunks"):
        mask = mask.combine_chunks()
    known = mask.to_numpy(zero_copy_only=False)
    return np.flatnonzero(known[run_ids.cat.codes.to_numpy()] if categorical else known)


def run_floor(run: pd.DataFrame, qrels: pd.DataFrame) -> pd.DataFrame:
    """The floor: the whole job from the two frames, written for speed and nothing else.

    Timed, from ``run`` (query, doc, score) and ``qrels`` (query, doc, rel) as given: the
    query ids dictionary-encoded (Arrow; categorical codes and integer factorization as they
    come), the run rows whose doc id is judged found with one hash-set lookup (Arrow
    ``is_in``), their labels attached by an exact join of those few rows only, the
    grouped-and-sorted check, at most one sort, and the kernels of :func:`run_numpy_lb`.
    Like it, the floor checks nothing (duplicates, ranks, labels) and leaves tied scores in
    arbitrary order, so it does less than an exact evaluator must.

    Parameters
    ----------
    run, qrels : pandas.DataFrame
        Benchmark inputs.

    Returns
    -------
    pandas.DataFrame
        Per-query AP, nDCG@10, P@10, R@100, RR and Rprec, indexed by query.
    """
    codes, uniques, q_codes = _query_codes(run["query"], qrels["query"])
    rows = _judged_doc_rows(run["doc"], qrels["doc"])
    candidates = pd.DataFrame(
        {"row": rows, "q": codes[rows], "doc": np.asarray(run["doc"].take(rows), dtype=object)}
    )
    judged = pd.DataFrame(
        {"q": q_codes, "doc": np.asarray(qrels["doc"], dtype=object), "rel": qrels["rel"]}
    )
    hits = candidates.merge(judged[judged["q"] >= 0], on=["q", "doc"])
    rel = np.zeros(len(run), dtype=np.int64)
    rel[hits["row"].to_numpy()] = hits["rel"].to_numpy()
    return _kernels(codes, uniques, run["score"].to_numpy(), rel, q_codes, qrels["rel"].to_numpy())


def run_pdireval_evaluate(
    frame: pd.DataFrame, qrels: pd.DataFrame, *, validate: bool = True
) -> pd.DataFrame:
    """``pdireval.evaluate`` alone, on a frame already merged by ``merge_qrels``.

    Parameters
    ----------
    frame : pandas.DataFrame
        Output of ``pdireval.merge_qrels(run, qrels)`` (built outside the timer).
    qrels : pandas.DataFrame
        Unused.
    validate : bool, default True
        Passed to ``evaluate`` (``pdireval_evaluate_trusted`` turns it off).

    Returns
    -------
    pandas.DataFrame
        Per-query metrics.
    """
    import pdireval

    return pdireval.evaluate(frame, list(LABELS), validate=validate)


RUNNERS = dict(core.RUNNERS) | {
    "pdireval_evaluate": run_pdireval_evaluate,
    "numpy_lb": run_numpy_lb,
    "floor": run_floor,
    "pdireval_evaluate_trusted": functools.partial(run_pdireval_evaluate, validate=False),
    "pdireval_rank": core.run_pdireval,  # on the run given as a rank column (prepare)
}


def prepare(tool: str, run: pd.DataFrame, qrels: pd.DataFrame) -> pd.DataFrame:
    """Do the untimed preparation some tools are granted (merging the labels in advance).

    Parameters
    ----------
    tool : str
        One of :data:`TOOLS`.
    run, qrels : pandas.DataFrame
        Benchmark inputs.

    Returns
    -------
    pandas.DataFrame
        The first argument to pass to the tool's runner.
    """
    if tool == "numpy_lb":
        return attach_labels(run, qrels)
    if tool in ("pdireval_evaluate", "pdireval_evaluate_trusted"):
        core.import_tool("pdireval")
        import pdireval

        return pdireval.merge_qrels(run, qrels)
    if tool == "pdireval_rank":
        return with_rank(run)
    return run


def with_rank(run: pd.DataFrame) -> pd.DataFrame:
    """The run ranked as trec_eval ranks it, given as a 1-based ``rank`` column (no score).

    Parameters
    ----------
    run : pandas.DataFrame
        Benchmark run (``query``, ``doc``, ``score``), any row order.

    Returns
    -------
    pandas.DataFrame
        ``query``, ``doc`` and ``rank``: rows grouped by query come in rank order, as in a
        run file (score ties put in trec_eval's order); scattered rows keep their order.
    """
    order = pd.DataFrame(
        {"q": run["query"].astype(str), "s": run["score"], "d": run["doc"].astype(str)}
    ).sort_values(["q", "s", "d"], ascending=[True, False, False], kind="stable")
    rank = order.groupby("q", sort=False).cumcount().to_numpy() + 1
    ranks = np.empty(len(run), dtype=np.int64)
    ranks[order.index.to_numpy()] = rank
    ranked = run[["query", "doc"]].assign(rank=ranks)
    blocks = pd.factorize(run["query"])[0]
    if len(blocks) and bool(np.all(blocks[1:] >= blocks[:-1])):  # grouped: as a run file is
        ranked = ranked.iloc[np.lexsort((ranks, blocks))].reset_index(drop=True)
    return ranked


# --------------------------------------------------------------------------------------------
# Worker
# --------------------------------------------------------------------------------------------


def measure(args: argparse.Namespace) -> dict:
    """Time one case in this process and record its peak extra memory.

    A case with ``against`` (another tool) times both tools on the same inputs, in
    alternating rounds (A B, B A, ...): their ratio is then free of the differences
    between processes, which at millions of rows reach tens of percent here.

    Parameters
    ----------
    args : argparse.Namespace
        Worker command line.

    Returns
    -------
    dict
        Timings, memory figures and status (and ``against_times`` for a paired case).
    """
    record: dict = {k: getattr(args, k) for k in ("workload", "queries", "ids", "order", "tool")}
    t0 = time.perf_counter()
    run, qrels = build_inputs(args)
    record["generate_seconds"] = time.perf_counter() - t0
    record["rows"] = len(run)
    record["qrels_rows"] = len(qrels)
    tool = args.tool
    against = getattr(args, "against", None)
    tools = [tool] if against is None else [tool, against]
    for name in tools:
        if name not in ("numpy_lb", "floor"):
            package = "pdireval" if name.startswith("pdireval") else name
            try:
                core.import_tool(package)
            except ImportError as exc:
                return record | {"status": "skipped", "error": f"{type(exc).__name__}: {exc}"}
            if name == tool:  # the record is the tool's; ``against`` only times alongside
                record["version"] = core.tool_version(package)
    inputs = {name: prepare(name, run, qrels) for name in tools}
    if all(n in ("numpy_lb", "pdireval_evaluate", "pdireval_evaluate_trusted") for n in tools):
        del run
    if args.warmup_queries > 0:
        for name in tools:
            RUNNERS[name](*core._warmup_inputs(inputs[name], qrels, max(10, args.warmup_queries)))
    gc.collect()
    record["peak_reset"] = core.reset_peak_rss()
    baseline = core.current_rss_mb() if record["peak_reset"] else core.maxrss_mb()
    times: dict[str, list[float]] = {name: [] for name in tools}
    target = args.repeat
    # Collecting before each call of a millisecond would time refilling the caches it
    # emptied, not the call: small cases run their repetitions back to back.
    collect = record["rows"] >= 100_000
    while len(times[tool]) < target:
        for name in tools if len(times[tool]) % 2 == 0 else tools[::-1]:
            if collect:
                gc.collect()
            start = time.perf_counter()
            result = RUNNERS[name](inputs[name], qrels)
            times[name].append(time.perf_counter() - start)
            if name == tool and len(times[tool]) == 1:
                core._save_result(result, Path(args.out))
                if times[tool][0] > args.slow_threshold:
                    target = min(args.repeat, 2)
            del result
    record["peak_extra_mb"] = max(0.0, core.maxrss_mb() - baseline)
    record["times"] = times[tool]
    record["median_seconds"] = statistics.median(times[tool])
    if against is not None:
        record["against"] = against
        record["against_times"] = times[against]
        record["against_median_seconds"] = statistics.median(times[against])
    record["status"] = "ok"
    return record


def spawn(case: dict, args: argparse.Namespace, out: Path) -> dict:
    """Run one case in a fresh subprocess and return its record.

    Parameters
    ----------
    case : dict
        ``workload``, ``queries``, ``depth``, ``ids``, ``order`` and ``tool``.
    args : argparse.Namespace
        Parent command line (seed, repetitions, warm-up, timeout).
    out : pathlib.Path
        Parquet file for the per-query results.

    Returns
    -------
    dict
        The worker's record plus ``result_path``.
    """
    python = getattr(args, "python", None) or sys.executable
    command = [python, str(Path(__file__).resolve()), "--case", json.dumps(case)]
    for name in ("seed", "repeat", "slow_threshold", "warmup_queries"):
        command += [f"--{name.replace('_', '-')}", str(getattr(args, name))]
    command += ["--out", str(out)]
    env = dict(os.environ)
    if case.get("arrow_pool"):  # e.g. "system": see targets.py on measuring memory
        env["ARROW_DEFAULT_MEMORY_POOL"] = case["arrow_pool"]
    try:
        proc = subprocess.run(
            command, capture_output=True, text=True, timeout=args.timeout, check=False, env=env
        )
    except subprocess.TimeoutExpired:
        return case | {"status": "error", "error": "timeout"}
    for line in reversed(proc.stdout.splitlines()):
        if line.startswith(RESULT_MARKER):
            return json.loads(line[len(RESULT_MARKER) :]) | {"result_path": str(out)}
    tail = proc.stderr.strip().splitlines()[-1:] or [f"exit status {proc.returncode}"]
    return case | {"status": "error", "error": tail[0]}


# --------------------------------------------------------------------------------------------
# Report
# --------------------------------------------------------------------------------------------


def _case_key(record: dict) -> tuple:
    """Key of the case a record belongs to (everything but the tool)."""
    return (record["workload"], record["queries"], record["ids"], record["order"])


def agreement_flags(records: list[dict]) -> None:
    """Add ``agree``: the largest |mean difference| to pdireval's result on the same case.

    Metrics listed for the tool in ``bench_core.KNOWN_DIFFERENCES`` are left out of ``agree``;
    their differences go to ``agree_known`` (``{label: |mean difference|}``), reported apart.

    Parameters
    ----------
    records : list of dict
        Records with ``result_path``; modified in place.
    """
    ref = {
        _case_key(r): pd.read_parquet(r["result_path"])
        for r in records
        if r["tool"] == "pdireval" and r.get("status") == "ok"
    }
    for r in records:
        base = ref.get(_case_key(r))
        if base is None or r.get("status") != "ok":
            r["agree"] = None
            continue
        frame = pd.read_parquet(r["result_path"])
        diffs = (frame.mean() - base.mean()).abs()
        known = [label for label in LABELS if label in core.KNOWN_DIFFERENCES.get(r["tool"], {})]
        r["agree"] = float(diffs.drop(known).max())
        r["agree_known"] = {
            label: float(diffs[label]) for label in known if diffs[label] > core.AGREEMENT_TOLERANCE
        }
        r["n_queries"] = len(frame)


def table(records: list[dict]) -> str:
    """Render the Markdown results table with ratios to pdireval and to the lower bound.

    Parameters
    ----------
    records : list of dict
        Worker records.

    Returns
    -------
    str
        Markdown table.
    """
    medians = {
        (_case_key(r), r["tool"]): r["median_seconds"] for r in records if r.get("status") == "ok"
    }
    lines = [
        "| workload | rows | ids | order | tool | median s | s / M rows | vs pdireval "
        "| vs numpy_lb | peak extra MB | max mean diff |",
        "| --- | ---: | --- | --- | --- | ---: | ---: | ---: | ---: | ---: | ---: |",
    ]
    for r in records:
        head = f"| {r['workload']} | {r.get('rows', '')} | {r['ids']} | {r['order']} | {r['tool']}"
        if r.get("status") != "ok":
            lines.append(f"{head} | {r.get('status')}: {str(r.get('error'))[:60]} |||||||")
            continue
        med = r["median_seconds"]
        pdi = medians.get((_case_key(r), "pdireval"))
        lb = medians.get((_case_key(r), "numpy_lb"))
        ratio = f"{med / pdi:.2f}x" if pdi else "n/a"
        vs_lb = f"{med / lb:.2f}x" if lb else "n/a"
        agree = "n/a" if r.get("agree") is None else f"{r['agree']:.1e}"
        known = [f"{k} {v:.1e}" for k, v in (r.get("agree_known") or {}).items()]
        if known:
            agree += f" (known: {', '.join(known)})"
        lines.append(
            f"{head} | {med:.3f} | {med / r['rows'] * 1e6:.3f} | {ratio} | {vs_lb} "
            f"| {r['peak_extra_mb']:.0f} | {agree} |"
        )
    return "\n".join(lines)


def _split(text: str, allowed: tuple[str, ...], flag: str) -> list[str]:
    """Parse a comma-separated list of names checked against ``allowed`` (bench_core's)."""
    return core._split(text, allowed, flag)


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
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--workloads", default="trec-dl,wide", help=", ".join(WORKLOADS))
    parser.add_argument(
        "--queries", default="", help="comma-separated query counts (default: per workload)"
    )
    parser.add_argument("--ids", default="str", help=f"comma-separated ({', '.join(IDS)})")
    parser.add_argument("--orders", default=",".join(ORDERS))
    parser.add_argument("--only", default="pdireval,numpy_lb,pytrec_eval", help=", ".join(TOOLS))
    parser.add_argument("--seed", type=int, default=42)
    parser.add_argument("--repeat", type=int, default=3, help="timed repetitions")
    parser.add_argument("--slow-threshold", type=float, default=20.0, help="then 2 repetitions")
    parser.add_argument("--warmup-queries", type=int, default=50)
    parser.add_argument("--timeout", type=float, default=1200.0, help="seconds per case")
    parser.add_argument("--json", metavar="PATH", help="also write the records as JSON")
    parser.add_argument("--python", default=sys.executable, help="interpreter of the workers")
    parser.add_argument("--case", help=argparse.SUPPRESS)  # worker: one case as JSON
    parser.add_argument("--out", help=argparse.SUPPRESS)
    return parser.parse_args(argv)


def main(argv: list[str] | None = None) -> int:
    """Run the benchmark cases and print the Markdown table.

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
    if args.case:
        vars(args).update(json.loads(args.case))
        try:
            record = measure(args)
        except Exception as exc:  # reported to the parent, which carries on
            import traceback

            traceback.print_exc()
            record = {k: getattr(args, k) for k in ("workload", "queries", "ids", "order")}
            record |= {"tool": args.tool, "status": "error", "error": f"{exc!r}"}
        print(RESULT_MARKER + json.dumps(record), flush=True)
        return 0
    workloads = _split(args.workloads, tuple(WORKLOADS), "--workloads")
    tools = _split(args.only, TOOLS, "--only")
    ids_list = _split(args.ids, IDS, "--ids")
    orders = _split(args.orders, ORDERS, "--orders")
    sizes = [int(q) for q in args.queries.split(",") if q.strip()]
    records = []
    with tempfile.TemporaryDirectory(prefix="pdireval-scale-") as tmp:
        for workload in workloads:
            default_q, depth = WORKLOADS[workload]
            for queries in sizes or [default_q]:
                for ids in ids_list:
                    for order in orders:
                        for tool in tools:
                            case = dict(
                                workload=workload, queries=queries, depth=depth, ids=ids,
                                order=order, tool=tool,
                            )  # fmt: skip
                            label = " ".join(str(v) for v in case.values())
                            print(f"[scale] {label} ...", file=sys.stderr, flush=True)
                            out = Path(tmp) / f"{len(records)}.parquet"
                            record = spawn(case, args, out)
                            med = record.get("median_seconds")
                            done = f"{med:.3f} s" if med is not None else record.get("error")
                            print(f"[scale]   {record.get('status')} {done}", file=sys.stderr)
                            records.append(record)
        agreement_flags(records)
    seen = {(r["tool"], label) for r in records for label in r.get("agree_known") or {}}
    print(table(records) + core.known_notes(seen))
    if args.json:
        env = core.environment()
        clean = [{k: v for k, v in r.items() if k != "result_path"} for r in records]
        payload = {"environment": env, "results": clean}
        Path(args.json).write_text(json.dumps(payload, indent=2) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
