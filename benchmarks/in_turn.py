"""This checkout against an earlier revision of pdireval, timed in turn in one process.

A change to pdireval is judged by the ratio of its time to the previous code's on the same
inputs, the two called alternately (A B, B A, ...) in one process, so that both share the
machine's moments. The earlier revision is taken from git (``git archive``) into a
temporary folder and imported as ``pdireval_then``.

Each case builds its run and qrels once (workloads of ``bench_scale.py``, ids converted to
the dtype asked), checks that both revisions give the same per-query table, then times
``merge_qrels`` + ``evaluate`` and ``evaluate(run, ..., qrels=qrels)``.

Examples
--------
The last commit's parent against the work tree, on TREC-DL-like runs::

    python benchmarks/in_turn.py --rev HEAD~1 --workloads trec-dl

Every workload, id dtype and order (about 20 minutes)::

    python benchmarks/in_turn.py --rev main --workloads msmarco,trec-dl,wide
"""

from __future__ import annotations

import argparse
import gc
import importlib
import itertools
import re
import statistics
import subprocess
import sys
import tarfile
import tempfile
import time
from collections.abc import Callable
from io import BytesIO
from pathlib import Path

import pandas as pd

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(ROOT))

import bench_core as core  # noqa: E402 - the benchmarks folder is not a package
import bench_scale as scale  # noqa: E402

SHAPES = {
    "msmarco": (7000, 1000),
    "wide": (100_000, 100),
    "trec-dl": (200, 1000),
    "small": (50, 100),
}


def import_revision(rev: str, folder: Path):
    """pdireval as of ``rev``, imported as ``pdireval_then`` (its accessor as ``ireval_then``)."""
    archive = subprocess.run(
        ["git", "-C", str(ROOT), "archive", "--format=tar", rev, "pdireval"],
        check=True,
        capture_output=True,
    ).stdout
    with tarfile.open(fileobj=BytesIO(archive)) as tar:
        tar.extractall(folder, filter="data")
    package = folder / "pdireval_then"
    (folder / "pdireval").rename(package)
    for path in package.rglob("*.py"):
        text = re.sub(r"\bpdireval\b", "pdireval_then", path.read_text())
        text = text.replace('accessor("ireval")', 'accessor("ireval_then")')
        path.write_text(text)
    sys.path.insert(0, str(folder))
    return importlib.import_module("pdireval_then")


def inputs(workload: str, ids: str, order: str) -> tuple[pd.DataFrame, pd.DataFrame]:
    queries, depth = SHAPES[workload]
    if workload == "trec-dl":
        run, qrels = scale.make_graded_workload(queries, depth, seed=42)
    else:
        run, qrels = core.make_workload(queries, depth, 42)
    if order == "shuffled":
        run, qrels = core.shuffle_rows(run, 43), core.shuffle_rows(qrels, 44)
    return scale.convert_ids(run, ids), scale.convert_ids(qrels, ids)


def in_turn(then: Callable, now: Callable, repeat: int) -> tuple[float, float]:
    """Medians of ``then`` and ``now`` called alternately, ``repeat`` times each."""
    times: dict[Callable, list[float]] = {then: [], now: []}
    for i in range(repeat):
        for call in (then, now) if i % 2 == 0 else (now, then):
            gc.collect()
            started = time.perf_counter()
            call()
            times[call].append(time.perf_counter() - started)
    return statistics.median(times[then]), statistics.median(times[now])


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rev", default="HEAD", help="the earlier revision (git)")
    parser.add_argument("--workloads", default="trec-dl", help=f"of {sorted(SHAPES)}")
    parser.add_argument("--ids", default="str,object,category,int")
    parser.add_argument("--orders", default="run-ordered,shuffled")
    parser.add_argument("--repeat", type=int, default=5, help="timed calls of each revision")
    args = parser.parse_args(argv)
    import pdireval as now

    labels = list(core.LABELS)
    with tempfile.TemporaryDirectory() as folder:
        then = import_revision(args.rev, Path(folder))
        print(f"| workload | ids | order | call | {args.rev} ms | now ms | now / {args.rev} |")
        print("| --- | --- | --- | --- | ---: | ---: | ---: |")
        cases = itertools.product(
            args.workloads.split(","), args.ids.split(","), args.orders.split(",")
        )
        for workload, ids, order in cases:
            run, qrels = inputs(workload, ids, order)
            calls = {
                "merge_qrels + evaluate": lambda m, r=run, q=qrels: m.evaluate(
                    m.merge_qrels(r, q), labels
                ),
                "evaluate(qrels=)": lambda m, r=run, q=qrels: m.evaluate(r, labels, qrels=q),
            }
            for name, call in calls.items():
                pd.testing.assert_frame_equal(call(then), call(now), check_index_type=False)
                before, after = in_turn(lambda c=call: c(then), lambda c=call: c(now), args.repeat)
                print(
                    f"| {workload} | {ids} | {order} | {name} | {before * 1e3:.1f} | "
                    f"{after * 1e3:.1f} | {after / before:.2f} |",
                    flush=True,
                )
    return 0


if __name__ == "__main__":
    sys.exit(main())
