"""Reading TREC files: ``read_run`` / ``read_qrels`` against a bare pyarrow CSV parse.

The bare parse is ``pyarrow.csv.read_csv`` with the options ``bench_cli.py`` gives it
(space-separated, column names given, types inferred). Each reading function and its
bare parse are called in turn in one process (A B, B A, ...), ``--repeat`` times each,
and the ratio of their medians is printed; ``--rounds`` repeats the whole measurement
(the machine may be shared, so only ratios in turn mean anything). The files are those
of ``bench_cli.py`` (written into ``--data-dir`` unless ``--reuse`` finds them there).

Examples
--------
    python benchmarks/bench_read.py --data-dir /tmp/files --reuse
    python benchmarks/bench_read.py --workloads trec-dl --repeat 9 --rounds 3
    python benchmarks/bench_read.py --profile msmarco   # cProfile of one read_run
"""

from __future__ import annotations

import argparse
import cProfile
import gc
import pstats
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import bench_cli as cli  # the benchmarks folder is not a package

RUN_FIELDS = ["query", "q0", "doc", "rank", "score", "tag"]
QRELS_FIELDS = ["query", "iteration", "doc", "rel"]


def bare(path: Path, names: list[str]) -> object:
    """The bare parse ``bench_cli.py`` compares with."""
    import pyarrow.csv as pacsv

    return pacsv.read_csv(
        path,
        read_options=pacsv.ReadOptions(column_names=names),
        parse_options=pacsv.ParseOptions(delimiter=" "),
    )


def in_turn(calls: dict[str, Callable[[], object]], repeat: int) -> dict[str, float]:
    """Median seconds of each call, the calls alternating (after one warm-up each)."""
    times: dict[str, list[float]] = {name: [] for name in calls}
    for call in calls.values():
        call()
    for turn in range(repeat):
        for name in list(calls) if turn % 2 == 0 else list(calls)[::-1]:
            gc.collect()
            start = time.perf_counter()
            calls[name]()
            times[name].append(time.perf_counter() - start)
    return {name: statistics.median(values) for name, values in times.items()}


def files(workloads: list[str], directory: Path, reuse: bool) -> dict[str, tuple[Path, Path]]:
    found = {}
    for workload in workloads:
        run, qrels = directory / f"{workload}.run", directory / f"{workload}.qrels"
        if not (reuse and run.exists() and qrels.exists()):
            run, qrels = cli.write_files(workload, directory)
        found[workload] = (run, qrels)
    return found


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--workloads", default="trec-dl,msmarco")
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--data-dir", type=Path, help="where the files are (a temp dir)")
    parser.add_argument("--reuse", action="store_true", help="files in --data-dir as they are")
    parser.add_argument("--profile", help="profile one read_run of this workload instead")
    args = parser.parse_args(argv)

    import pdireval

    with tempfile.TemporaryDirectory() as scratch:
        directory = args.data_dir or Path(scratch)
        directory.mkdir(parents=True, exist_ok=True)
        workloads = [args.profile] if args.profile else args.workloads.split(",")
        paths = files(workloads, directory, args.reuse)
        if args.profile:
            run = paths[args.profile][0]
            pdireval.read_run(run)
            profile = cProfile.Profile()
            profile.runcall(pdireval.read_run, run)
            pstats.Stats(profile).sort_stats("cumulative").print_stats(25)
            return 0
        print("| file | reading | bare parse | ratio |\n| --- | ---: | ---: | ---: |")
        for workload, (run, qrels) in paths.items():
            cases = {
                f"{workload} run": (lambda p=run: pdireval.read_run(p), run, RUN_FIELDS),
                f"{workload} qrels": (lambda p=qrels: pdireval.read_qrels(p), qrels, QRELS_FIELDS),
            }
            for label, (read, path, names) in cases.items():
                for _ in range(args.rounds):
                    med = in_turn(
                        {"read": read, "bare": lambda p=path, n=names: bare(p, n)}, args.repeat
                    )
                    print(
                        f"| {label} | {med['read'] * 1e3:.1f} ms | {med['bare'] * 1e3:.1f} ms "
                        f"| {med['read'] / med['bare']:.2f} |",
                        flush=True,
                    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
