"""The command line on TREC files: ``pdireval`` against the trec_eval program (9.0.8 or 10.0).

Both programs get the same run and qrels files and the same options; they are run in
turn (trec_eval, pdireval, trec_eval, ...) ``--repeat`` times each, and the table gives
median wall times, their ratio, peak memory (the maximum resident set of each process,
from GNU time) and whether the outputs are byte for byte identical. Start-up is timed the
same way: ``python -c "import pandas"``, ``python -c "import pdireval"``, ``pdireval
--version`` and ``pdireval --help``; ``python -c "import pandas"`` is also timed in turn
with the two programs, for the bound "no slower than importing pandas and running
trec_eval". File reading is timed in one process, in turn:
``read_run`` / ``read_qrels`` against a bare pyarrow CSV parse of the same file.

trec_eval is built from its C source (``--trec-eval-source``, by default
``../shared/trec_eval-<version>`` next to the clone, ``--trec-eval-version`` 9.0.8 or
10.0, which pdireval is given too) into a temporary directory, or taken from
``--trec-eval``. The ratio of each in-turn pair goes to stderr.

Examples
--------
    python benchmarks/bench_cli.py                         # both workloads, ~5 minutes
    python benchmarks/bench_cli.py --workloads trec-dl --repeat 5
    python benchmarks/bench_cli.py --trec-eval-version 10.0
    python benchmarks/bench_cli.py --json cli.json --data-dir /tmp/files --reuse
"""

from __future__ import annotations

import argparse
import gc
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pandas as pd

sys.path.insert(0, str(Path(__file__).resolve().parent))

import bench_core as core  # the benchmarks folder is not a package
import bench_scale as scale

#: workload -> (queries, depth, trec_eval options)
WORKLOADS = {
    "msmarco": (7000, 1000, []),
    "trec-dl": (200, 1000, ["-m", "all_trec"]),
}
PDIREVAL = [sys.executable, "-m", "pdireval"]
#: The commands run as on a user's machine: Python reads modules from their compiled
#: bytecode (pip writes it at install). PYTHONDONTWRITEBYTECODE, set in some sandboxes,
#: would make every start compile pdireval's modules again (about 0.1 s) while pandas,
#: installed with its bytecode, starts compiled; ``compile_package`` writes pdireval's.
USERS_ENVIRONMENT = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}


def compile_package() -> None:
    """Write pdireval's bytecode, as ``pip install`` does, before anything is timed."""
    import compileall

    import pdireval

    compileall.compile_dir(Path(pdireval.__file__).parent, quiet=1)


def build_trec_eval(source: Path, into: Path) -> Path:
    """trec_eval compiled from ``source`` in ``into`` (its own Makefile, the system's cc)."""
    build = into / "trec_eval-src"
    shutil.copytree(source, build, ignore=shutil.ignore_patterns("*.o", "trec_eval"))
    subprocess.run(["make", "-s"], cwd=build, check=True, capture_output=True)
    return build / "trec_eval"


def write_files(workload: str, directory: Path, seed: int = 42) -> tuple[Path, Path]:
    """The workload's run and qrels as TREC files (scores to 6 significant digits, which
    both programs read as doubles and keep apart and in order)."""
    queries, depth, _ = WORKLOADS[workload]
    if workload == "trec-dl":
        run, qrels = scale.make_graded_workload(queries, depth, seed=seed)
    else:
        run, qrels = core.make_workload(queries, depth, seed)
    run_path, qrels_path = directory / f"{workload}.run", directory / f"{workload}.qrels"
    rank = run.groupby("query", sort=False).cumcount() + 1
    lines = pd.DataFrame(
        {
            "query": run["query"],
            "q0": "Q0",
            "doc": run["doc"],
            "rank": rank,
            "score": run["score"].map("{:.6g}".format),
            "tag": "bench",
        }
    )
    lines.to_csv(run_path, sep=" ", header=False, index=False)
    qrels.assign(iteration=0)[["query", "iteration", "doc", "rel"]].to_csv(
        qrels_path, sep=" ", header=False, index=False
    )
    return run_path, qrels_path


GNU_TIME = Path("/usr/bin/time")


def run_once(command: list[str]) -> tuple[float, float, bytes]:
    """Wall seconds, peak resident MB and standard output of one run of ``command``.

    The peak comes from GNU time when it is there: a child's peak counts the memory of
    the process it was forked from until it runs the command, so the benchmark's own
    frames would show in a peak read with ``wait4``; GNU time is a small process.
    """
    with tempfile.TemporaryFile() as out, tempfile.NamedTemporaryFile("r") as peak:
        timed = [str(GNU_TIME), "-f", "%M", "-o", peak.name, *command]
        start = time.perf_counter()
        process = subprocess.Popen(
            timed if GNU_TIME.exists() else command,
            stdout=out,
            stderr=subprocess.DEVNULL,
            env=USERS_ENVIRONMENT,
        )
        _, status, usage = os.wait4(process.pid, 0)
        seconds = time.perf_counter() - start
        process.returncode = os.waitstatus_to_exitcode(status)
        if process.returncode != 0:
            msg = f"{command} exited with {process.returncode}"
            raise RuntimeError(msg)
        kilobytes = float(peak.read().split()[-1]) if GNU_TIME.exists() else usage.ru_maxrss
        out.seek(0)
        return seconds, kilobytes / 1024, out.read()


def in_turn(commands: dict[str, list[str]], repeat: int) -> dict[str, dict]:
    """Each command run ``repeat`` times, the commands alternating."""
    runs: dict[str, list[tuple[float, float, bytes]]] = {name: [] for name in commands}
    for turn in range(repeat):
        names = list(commands) if turn % 2 == 0 else list(commands)[::-1]
        for name in names:
            runs[name].append(run_once(commands[name]))
    return {
        name: {
            "median_s": statistics.median(r[0] for r in results),
            "times_s": [r[0] for r in results],
            "peak_mb": max(r[1] for r in results),
            "output": results[0][2],
        }
        for name, results in runs.items()
    }


def reading(run_path: Path, qrels_path: Path, repeat: int) -> dict[str, float]:
    """Median seconds of read_run / read_qrels and of a bare pyarrow parse, in turn."""
    import pyarrow.csv as pacsv

    import pdireval

    def arrow(path: Path, names: list[str]) -> object:
        return pacsv.read_csv(
            path,
            read_options=pacsv.ReadOptions(column_names=names),
            parse_options=pacsv.ParseOptions(delimiter=" "),
        )

    calls = {
        "read_run": lambda: pdireval.read_run(run_path),
        "arrow_run": lambda: arrow(run_path, ["query", "q0", "doc", "rank", "score", "tag"]),
        "read_qrels": lambda: pdireval.read_qrels(qrels_path),
        "arrow_qrels": lambda: arrow(qrels_path, ["query", "iteration", "doc", "rel"]),
    }
    times: dict[str, list[float]] = {name: [] for name in calls}
    for call in calls.values():
        call()  # warm-up
    for turn in range(repeat):
        for name in list(calls) if turn % 2 == 0 else list(calls)[::-1]:
            gc.collect()
            start = time.perf_counter()
            calls[name]()
            times[name].append(time.perf_counter() - start)
    return {name: statistics.median(values) for name, values in times.items()}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--workloads", default="trec-dl,msmarco")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument(
        "--trec-eval-version",
        choices=["9.0.8", "10.0"],
        default="9.0.8",
        help="the trec_eval to compare with (pdireval is given the same version)",
    )
    parser.add_argument("--trec-eval-source", type=Path, help="its C source (../shared)")
    parser.add_argument("--trec-eval", type=Path, help="a trec_eval program to use instead")
    parser.add_argument("--data-dir", type=Path, help="where to write the files (a temp dir)")
    parser.add_argument("--reuse", action="store_true", help="files in --data-dir as they are")
    parser.add_argument("--json", type=Path, help="write the results here")
    args = parser.parse_args(argv)
    shared = Path(__file__).resolve().parents[2] / "shared"
    source = args.trec_eval_source or shared / f"trec_eval-{args.trec_eval_version}"
    version = ["--trec-eval-version", args.trec_eval_version]
    compile_package()

    with tempfile.TemporaryDirectory() as scratch:
        directory = args.data_dir or Path(scratch)
        directory.mkdir(parents=True, exist_ok=True)
        trec_eval = args.trec_eval or build_trec_eval(source, Path(scratch))
        results: dict[str, object] = {"environment": core.environment()}
        rows = []
        for workload in args.workloads.split(","):
            run_path = directory / f"{workload}.run"
            qrels_path = directory / f"{workload}.qrels"
            if not (args.reuse and run_path.exists() and qrels_path.exists()):
                run_path, qrels_path = write_files(workload, directory)
            options = WORKLOADS[workload][2]
            files = [str(qrels_path), str(run_path)]
            timed = in_turn(
                {
                    "trec_eval": [str(trec_eval), *options, *files],
                    "pdireval": [*PDIREVAL, *version, *options, *files],
                    "import pandas": [sys.executable, "-c", "import pandas"],
                },
                args.repeat,
            )
            same = timed["trec_eval"]["output"] == timed["pdireval"]["output"]
            with open(run_path, "rb") as handle:
                lines = sum(1 for _ in handle)
            binary, mine = timed["trec_eval"]["median_s"], timed["pdireval"]["median_s"]
            ratio = binary / mine
            pairs = [
                b / m
                for b, m in zip(
                    timed["trec_eval"]["times_s"], timed["pdireval"]["times_s"], strict=True
                )
            ]
            print(
                f"[cli] {workload}: trec_eval {args.trec_eval_version} / pdireval per pair: "
                + ", ".join(f"{pair:.2f}" for pair in pairs),
                file=sys.stderr,
            )
            bound = mine / (timed["import pandas"]["median_s"] + binary)
            rows.append(
                f"| {workload}, {lines:,} run lines, {' '.join(options) or 'official'} "
                f"| {binary:.2f} s, {timed['trec_eval']['peak_mb']:.0f} MB "
                f"| {mine:.2f} s, {timed['pdireval']['peak_mb']:.0f} MB "
                f"| {ratio:.2f} | {bound:.2f} | {'yes' if same else '**no**'} |"
            )
            read = reading(run_path, qrels_path, args.repeat)
            results[workload] = {
                name: {k: v for k, v in value.items() if k != "output"}
                for name, value in timed.items()
            } | {"identical": same, "ratio": ratio, "pairs": pairs, "bound": bound, "reading": read}
            print(
                f"[cli] {workload}: read_run {read['read_run']:.3f} s / arrow "
                f"{read['arrow_run']:.3f} s = {read['read_run'] / read['arrow_run']:.2f}; "
                f"read_qrels {read['read_qrels']:.3f} s / arrow {read['arrow_qrels']:.3f} s "
                f"= {read['read_qrels'] / read['arrow_qrels']:.2f}",
                file=sys.stderr,
            )
        startup = in_turn(
            {
                "import pandas": [sys.executable, "-c", "import pandas"],
                "import pdireval": [sys.executable, "-c", "import pdireval"],
                "pdireval --version": [*PDIREVAL, "--version"],
                "pdireval --help": [*PDIREVAL, "--help"],
            },
            max(args.repeat, 5),
        )
        results["startup"] = {
            name: {k: v for k, v in value.items() if k != "output"}
            for name, value in startup.items()
        }
    print(
        f"| files | trec_eval {args.trec_eval_version} | `pdireval` "
        "| trec_eval time / pdireval time | pdireval / (import pandas + trec_eval) | identical |"
    )
    print("| --- | ---: | ---: | ---: | ---: | --- |")
    print("\n".join(rows))
    base = startup["import pandas"]["median_s"]
    print("\n| start-up | median s | / `import pandas` |\n| --- | ---: | ---: |")
    for name, value in startup.items():
        print(f"| `{name}` | {value['median_s']:.3f} | {value['median_s'] / base:.2f} |")
    if args.json:
        args.json.write_text(json.dumps(results, indent=2, default=str))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
