"""polars frames: what handing pdireval a polars frame costs against converting it yourself.

A user with a polars run and qrels can call ``pdireval.evaluate(run, metrics,
qrels=qrels)`` on them as they are, or convert both with ``to_pandas()`` first; the
polars accessor (``run.ireval.evaluate(...)``) adds turning the table back into polars.
Timed in turn in one process (A B C, C B A, ...; medians of ``--repeat``) on the same
frames, MS MARCO-like (``bench_core.make_workload``) with string ids:

* ``convert yourself``: ``to_pandas()`` of both, then ``pdireval.evaluate`` (the baseline);
* ``polars to pdireval``: ``pdireval.evaluate`` on the polars frames;
* ``polars accessor``: the merged polars frame's ``.ireval.evaluate``, against
  ``to_pandas()`` of it and the pandas accessor.

Ratios close to 1 mean the polars path costs nothing beyond the conversion a user would
write; every path is checked to give the same table first.

Examples
--------
    python benchmarks/bench_polars.py                          # 7,000 queries x 1,000
    python benchmarks/bench_polars.py --queries 200 --repeat 7  # TREC-DL-like
"""

from __future__ import annotations

import argparse
import gc
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path

import numpy as np
import polars as pl

sys.path.insert(0, str(Path(__file__).resolve().parent))

import bench_core as core

import pdireval
import pdireval.polars

METRICS = ["AP", "nDCG@10", "RR@10", "R@1000"]


def timed(call: Callable[[], object]) -> float:
    gc.collect()
    start = time.perf_counter()
    call()
    return time.perf_counter() - start


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--queries", type=int, default=7000)
    parser.add_argument("--depth", type=int, default=1000)
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args(argv)

    run, qrels = core.make_workload(args.queries, args.depth)
    run = run.astype({"query": str, "doc": str})
    qrels = qrels.astype({"query": str, "doc": str})
    polars_run, polars_qrels = pl.from_pandas(run), pl.from_pandas(qrels)
    merged = pl.from_pandas(pdireval.merge_qrels(run, qrels))

    cases: dict[str, Callable[[], object]] = {
        "convert yourself": lambda: pdireval.evaluate(
            polars_run.to_pandas(), METRICS, qrels=polars_qrels.to_pandas()
        ),
        "polars to pdireval": lambda: pdireval.evaluate(polars_run, METRICS, qrels=polars_qrels),
        "accessor, converted yourself": lambda: merged.to_pandas().ireval.evaluate(METRICS),
        "polars accessor": lambda: merged.ireval.evaluate(METRICS),
    }
    first = cases["convert yourself"]()
    assert np.array_equal(cases["polars to pdireval"]().to_numpy(), first.to_numpy())
    table = cases["polars accessor"]()
    assert np.array_equal(table.select(METRICS).to_numpy(), first.to_numpy())

    times: dict[str, list[float]] = {name: [] for name in cases}
    names = list(cases)
    for i in range(args.repeat):
        for name in names if i % 2 == 0 else names[::-1]:
            times[name].append(timed(cases[name]))
    median = {name: statistics.median(values) for name, values in times.items()}
    print(f"{args.queries} queries x {args.depth} documents, medians of {args.repeat}")
    for name in names:
        print(f"  {name:30s} {median[name]:8.3f} s")
    print(
        "  polars to pdireval / convert yourself: "
        f"{median['polars to pdireval'] / median['convert yourself']:.2f}"
    )
    print(
        "  polars accessor / accessor, converted yourself: "
        f"{median['polars accessor'] / median['accessor, converted yourself']:.2f}"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
