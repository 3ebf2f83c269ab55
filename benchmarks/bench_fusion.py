"""Benchmark run fusion: pdireval against ranx, frames in, fused frame out.

Ten runs of 7,000 queries x 1,000 documents (70M rows) by default, each run drawing its
documents from a pool of 2,000 per query (so documents are missing from some runs),
scores from a per-run distribution, a fifth of the queries' scores rounded (ties). The
frames have pandas' default string ids, rows grouped by run and query, best first.

Timed, for each method (RRF; CombMNZ with min-max; WSum with min-max and equal weights):

* ``pdireval``: ``pdireval.fuse(frame, method, ...)`` on the long frame, which returns the
  ranked fused frame (query, doc, score, rank, run);
* ``ranx``: the long frame split by run, ids cast to ``object`` (``Run.from_df`` insists),
  one ``Run.from_df`` per run, ``ranx.fuse`` and ``to_dataframe()``. ranx's numba
  functions are compiled by an untimed call on a small frame first.

The two are called in turn (pdireval, ranx, ranx, pdireval, ...) in one process and the
medians and their ratio reported. Peak memory is measured apart, each tool and method
in a fresh process (peak RSS during the call minus RSS before it).

``--against RRF`` times pdireval's method against pdireval's own RRF on the same runs
instead of ranx: what a method that compares documents with each other (Condorcet)
costs beyond a sum per row.

The score check compares the two fused runs per (query, doc). ranx orders equal input
scores with an unstable sort, pdireval by doc id descending (trec_eval), so RRF's scores
differ on the queries with rounded (tied) scores; the score-based methods agree.

Examples
--------
Smoke run (seconds)::

    python benchmarks/bench_fusion.py --scale 0.01

A tenth of the full size (700 queries, 7M rows)::

    python benchmarks/bench_fusion.py --scale 0.1 --repeats 3

Condorcet against RRF, 1,000 queries of 100 documents per run::

    python benchmarks/bench_fusion.py --scale 0.143 --depth 100 --methods Condorcet --against RRF
"""

from __future__ import annotations

import argparse
import gc
import json
import statistics
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

import numpy as np
import pandas as pd

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(ROOT))

import bench_core as core  # noqa: E402 - the benchmarks folder is not a package

#: method -> (pdireval method, ranx method, norm)
METHODS = {
    "RRF": ("rrf", "rrf", None),
    "CombMNZ": ("mnz", "mnz", "min-max"),
    "WSum": ("wsum", "wsum", "min-max"),
    "BordaFuse": ("bordafuse", "bordafuse", None),
    "Condorcet": ("condorcet", "condorcet", None),
}
MARKER = "@@FUSION_RESULT@@"


def make_runs(n_runs: int, queries: int, depth: int, seed: int = 42) -> pd.DataFrame:
    """``n_runs`` runs of ``depth`` documents per query, each drawn from a pool of 2 x depth."""
    rng = np.random.default_rng(seed)
    pool = 2 * depth
    base = rng.integers(0, core.MSMARCO_PASSAGES - pool, size=queries)
    query_ids = rng.choice(core.MSMARCO_MAX_QID, size=queries, replace=False)
    rounded = rng.random(queries) < 0.2
    runs, query_col, doc_col, score_col = [], [], [], []
    for r in range(n_runs):
        chosen = np.argpartition(rng.random((queries, pool)), depth, axis=1)[:, :depth]
        quality = rng.normal(0, 1, (queries, pool))[np.arange(queries)[:, None], chosen]
        score = 10 + (1 + r % 3) * quality + rng.normal(0, 1, (queries, depth))
        score[rounded] = np.round(score[rounded], 1)
        order = np.argsort(-score, axis=1, kind="stable")  # best first, as a run file
        take = np.arange(queries)[:, None]
        runs.append(np.full(queries * depth, r))
        query_col.append(np.repeat(query_ids, depth))
        doc_col.append((base[:, None] + chosen[take, order]).ravel())
        score_col.append(score[take, order].ravel())
    names = np.array([f"run{r}" for r in range(n_runs)], dtype=object)
    return pd.DataFrame(
        {
            "run": core._string_series(names[np.concatenate(runs)].astype(str)),
            "query": core._string_series(np.concatenate(query_col)),
            "doc": core._string_series(np.concatenate(doc_col)),
            "score": np.concatenate(score_col),
        }
    )


def fuse_pdireval(frame: pd.DataFrame, method: str) -> pd.DataFrame:
    import pdireval

    name, _, norm = METHODS[method]
    return pdireval.fuse(frame, name, norm=norm)


def fuse_ranx(frame: pd.DataFrame, method: str) -> pd.DataFrame:
    import ranx

    _, name, norm = METHODS[method]
    ids = {"query": object, "doc": object}
    runs = [
        ranx.Run.from_df(rows.astype(ids), "query", "doc", "score", name=str(run))
        for run, rows in frame.groupby("run", sort=False)
    ]
    params = {"weights": [1.0] * len(runs)} if name == "wsum" else {}
    return ranx.fuse(runs, norm=norm, method=name, params=params).to_dataframe()


def fuse_rrf(frame: pd.DataFrame, method: str) -> pd.DataFrame:
    """pdireval's RRF, whatever the method: the yardstick of ``--against RRF``."""
    return fuse_pdireval(frame, "RRF")


TOOLS: dict[str, Callable[[pd.DataFrame, str], pd.DataFrame]] = {
    "pdireval": fuse_pdireval,
    "ranx": fuse_ranx,
    "RRF": fuse_rrf,
}


def tools_of(args: argparse.Namespace) -> list[str]:
    """pdireval and what it is timed against."""
    return ["pdireval", args.against]


def warm_up(args: argparse.Namespace) -> None:
    """Import both tools and compile ranx's numba functions on a small frame."""
    small = make_runs(args.runs, 5, 20, seed=1)
    for method in args.methods:
        for tool in tools_of(args):
            TOOLS[tool](small, method)


def agree(ours: pd.DataFrame, theirs: pd.DataFrame) -> float:
    """Largest score difference over the (query, doc) pairs; inf when the pairs differ."""
    left = ours.set_index(["query", "doc"])["score"]
    right = theirs.astype({"q_id": str, "doc_id": str}).set_index(["q_id", "doc_id"])["score"]
    right.index.names = ["query", "doc"]
    if len(left) != len(right) or not left.index.sort_values().equals(right.index.sort_values()):
        return float("inf")
    return float((left - right.reindex(left.index)).abs().max())


def in_turn(args: argparse.Namespace) -> list[dict]:
    frame = make_runs(args.runs, args.queries, args.depth)
    warm_up(args)
    records = []
    for method in args.methods:
        tools = tools_of(args)
        times: dict[str, list[float]] = {tool: [] for tool in tools}
        results = {}
        for repeat in range(args.repeats):
            order = tools if repeat % 2 == 0 else tools[::-1]
            for tool in order:
                gc.collect()
                start = time.perf_counter()
                results[tool] = TOOLS[tool](frame, method)
                times[tool].append(time.perf_counter() - start)
        medians = {tool: statistics.median(values) for tool, values in times.items()}
        records.append(
            {
                "method": method,
                "rows": len(frame),
                "fused rows": len(results["pdireval"]),
                **{f"{tool} s": round(value, 3) for tool, value in medians.items()},
            }
        )
        if args.against == "ranx":
            records[-1]["ranx / pdireval"] = round(medians["ranx"] / medians["pdireval"], 2)
            records[-1]["max score difference"] = agree(results["pdireval"], results["ranx"])
        else:  # how many times RRF's time the method takes
            records[-1]["pdireval / RRF"] = round(medians["pdireval"] / medians["RRF"], 2)
        del results
        gc.collect()
    return records


class _PeakRss:
    """Highest resident set size seen while the ``with`` block runs (VmRSS polled every
    5 ms; the kernel's peak counter cannot be reset everywhere)."""

    def __enter__(self) -> _PeakRss:
        import threading

        self.peak = core.current_rss_mb()
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._poll, daemon=True)
        self._thread.start()
        return self

    def _poll(self) -> None:
        while not self._stop.wait(0.005):
            self.peak = max(self.peak, core.current_rss_mb())

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._thread.join()
        self.peak = max(self.peak, core.current_rss_mb())


def memory_worker(args: argparse.Namespace) -> None:
    """One tool, one method, in this fresh process: peak RSS added by the call."""
    frame = make_runs(args.runs, args.queries, args.depth)
    small = make_runs(args.runs, 5, 20, seed=1)
    TOOLS[args.tool](small, args.methods[0])  # imports, compiles
    gc.collect()
    before = core.current_rss_mb()
    with _PeakRss() as watch:
        TOOLS[args.tool](frame, args.methods[0])
    peak = watch.peak - before
    print(MARKER + json.dumps({"tool": args.tool, "method": args.methods[0], "peak MB": peak}))


def memory(args: argparse.Namespace) -> list[dict]:
    records = []
    for method in args.methods:
        for tool in tools_of(args):
            command = [sys.executable, __file__, "--worker", "--tool", tool, "--methods", method]
            command += ["--runs", str(args.runs), "--queries", str(args.queries)]
            command += ["--depth", str(args.depth)]
            done = subprocess.run(command, capture_output=True, text=True, check=False)
            lines = [line for line in done.stdout.splitlines() if line.startswith(MARKER)]
            if not lines:
                print(done.stderr[-2000:], file=sys.stderr)
                continue
            records.append(json.loads(lines[-1][len(MARKER) :]))
    return records


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--runs", type=int, default=10)
    parser.add_argument("--queries", type=int, default=7000)
    parser.add_argument("--depth", type=int, default=1000)
    parser.add_argument("--scale", type=float, default=1.0, help="fraction of the queries")
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--methods", default="RRF,CombMNZ,WSum")
    parser.add_argument(
        "--against",
        choices=["ranx", "RRF"],
        default="ranx",
        help="time pdireval against ranx, or against pdireval's RRF on the same runs",
    )
    parser.add_argument("--no-memory", action="store_true", help="skip the memory processes")
    parser.add_argument("--json", type=Path, help="also write the records here")
    parser.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--tool", choices=list(TOOLS), help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    args.methods = [m for m in args.methods.split(",") if m]
    unknown = sorted(set(args.methods) - set(METHODS))
    if unknown:
        parser.error(f"unknown methods {unknown}; choose from {list(METHODS)}")
    args.queries = max(round(args.queries * args.scale), 1)
    return args


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    if args.worker:
        memory_worker(args)
        return 0
    print(f"{args.runs} runs x {args.queries} queries x {args.depth} documents")
    timing = in_turn(args)
    print(pd.DataFrame(timing).to_string(index=False))
    peaks = [] if args.no_memory else memory(args)
    if peaks:
        print(pd.DataFrame(peaks).pivot(index="method", columns="tool", values="peak MB").round(0))
    if args.json:
        args.json.write_text(json.dumps({"timing": timing, "memory": peaks}, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
