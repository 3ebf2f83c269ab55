"""Long ids: a run holding one very long doc id against the same bytes in ordinary ids.

Reading a run and hashing its ids should cost what the bytes of the ids cost, however
they are split into ids. Two run files of ``--lines`` lines (``q Q0 d<i> <rank> <score>
tag``) hold the same number of id bytes:

* ``long``: one doc id of ``--long-id`` characters, every other id as short as it comes;
* ``spread``: no long id, the same characters spread over every doc id (each padded).

Timed in turn in one process (A B C, C B A, ...; medians of ``--repeat``), the same
inputs each time:

* ``read_run`` of each file, and a plain Python parser (``line.split()`` per line, the
  fields into lists: the peer the long file is measured against);
* the 64-bit keys of the doc column of each file (``pdireval._prepare.keys.id_keys``),
  the step whose cost grew with the longest id times the rows around it;
* ``evaluate(run, ["AP", "nDCG@10"], qrels=qrels)`` of each run, with qrels judging one
  document in ten (the long one among them).

The ratios ``long / spread`` should be close to 1; ``read_run(long) / Python split``
says how reading compares with the plain parser on the file with the long id.

Examples
--------
    python benchmarks/bench_long_ids.py                         # 200k lines, a 2 MB id
    python benchmarks/bench_long_ids.py --lines 20000 --long-id 200000 --repeat 3
    python benchmarks/bench_long_ids.py --json long_ids.json
"""

from __future__ import annotations

import argparse
import gc
import json
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import bench_core as core  # the benchmarks folder is not a package


def write_runs(directory: Path, lines: int, long_id: int) -> tuple[Path, Path, Path]:
    """The ``long`` and ``spread`` run files and a qrels file judging both runs' docs.

    Both runs hold ``lines`` lines of one query; doc ``i`` is ``d<i>`` in ``long`` except
    the middle one (``long_id`` characters), and ``d<i>`` padded with ``x`` in ``spread``
    so that the two files hold the same number of id bytes.
    """
    middle = lines // 2
    short = [f"d{i}" for i in range(lines)]
    long_doc = "d" + "x" * (long_id - 1)
    extra = len(long_doc) - len(short[middle])
    pad, rest = divmod(extra, lines)
    docs = {
        "long": [long_doc if i == middle else doc for i, doc in enumerate(short)],
        "spread": [doc + "x" * (pad + (i < rest)) for i, doc in enumerate(short)],
    }
    paths = []
    for name, ids in docs.items():
        path = directory / f"{name}.run"
        with open(path, "w", encoding="utf-8") as handle:
            for i, doc in enumerate(ids):
                handle.write(f"q Q0 {doc} {i + 1} {lines - i} tag\n")
        paths.append(path)
    qrels = directory / "judged.qrels"
    with open(qrels, "w", encoding="utf-8") as handle:
        for ids in docs.values():
            for i in sorted({*range(0, lines, 10), middle}):
                handle.write(f"q 0 {ids[i]} {i % 3}\n")
    return paths[0], paths[1], qrels


def python_split(path: Path) -> tuple[list[str], list[str], list[float], list[str]]:
    """The plain parser: the query, doc, score and tag fields of every line."""
    queries, docs, scores, tags = [], [], [], []
    with open(path, encoding="utf-8") as handle:
        for line in handle:
            fields = line.split()
            if fields:
                queries.append(fields[0])
                docs.append(fields[2])
                scores.append(float(fields[4]))
                tags.append(fields[5])
    return queries, docs, scores, tags


def in_turn(calls: dict[str, Callable[[], object]], repeat: int) -> dict[str, float]:
    """Median seconds of each call, the calls alternated (A B C, C B A, ...)."""
    times: dict[str, list[float]] = {name: [] for name in calls}
    for turn in range(repeat):
        for name in list(calls) if turn % 2 == 0 else list(calls)[::-1]:
            gc.collect()
            start = time.perf_counter()
            calls[name]()
            times[name].append(time.perf_counter() - start)
    return {name: statistics.median(values) for name, values in times.items()}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--lines", type=int, default=200_000)
    parser.add_argument("--long-id", type=int, default=2_000_000, help="characters")
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--json", type=Path, help="write the results here")
    args = parser.parse_args(argv)

    import pdireval
    from pdireval._prepare.keys import id_keys

    with tempfile.TemporaryDirectory() as scratch:
        long_path, spread_path, qrels_path = write_runs(Path(scratch), args.lines, args.long_id)
        frames = {"long": pdireval.read_run(long_path), "spread": pdireval.read_run(spread_path)}
        qrels = pdireval.read_qrels(qrels_path)
        docs = {name: frame["doc"] for name, frame in frames.items()}
        if frames["long"]["doc"].tolist() != python_split(long_path)[1]:
            msg = "read_run and the Python parser read different doc ids"
            raise SystemExit(msg)
        calls: dict[str, Callable[[], object]] = {
            "read_run long": lambda: pdireval.read_run(long_path),
            "read_run spread": lambda: pdireval.read_run(spread_path),
            "python split long": lambda: python_split(long_path),
            "keys long": lambda: id_keys(docs["long"]),
            "keys spread": lambda: id_keys(docs["spread"]),
            "evaluate long": lambda: pdireval.evaluate(
                frames["long"], ["AP", "nDCG@10"], qrels=qrels
            ),
            "evaluate spread": lambda: pdireval.evaluate(
                frames["spread"], ["AP", "nDCG@10"], qrels=qrels
            ),
        }
        for call in calls.values():
            call()  # warm-up
        medians = in_turn(calls, args.repeat)

    ratios = {
        "read_run: long / spread": medians["read_run long"] / medians["read_run spread"],
        "read_run long / Python split": medians["read_run long"] / medians["python split long"],
        "id keys: long / spread": medians["keys long"] / medians["keys spread"],
        "evaluate(qrels=): long / spread": medians["evaluate long"] / medians["evaluate spread"],
    }
    print(f"{args.lines:,} lines, one id of {args.long_id:,} characters; medians of {args.repeat}")
    print("\n| call | median s |\n| --- | ---: |")
    for name, value in medians.items():
        print(f"| {name} | {value:.4f} |")
    print("\n| ratio | value |\n| --- | ---: |")
    for name, value in ratios.items():
        print(f"| {name} | {value:.2f} |")
    if args.json:
        results = {
            "environment": core.environment(),
            "lines": args.lines,
            "long_id": args.long_id,
            "medians_s": medians,
            "ratios": ratios,
        }
        args.json.write_text(json.dumps(results, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
