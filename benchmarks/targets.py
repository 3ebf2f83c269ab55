"""Performance targets: every id dtype and shape against the floor and pytrec_eval, in one run.

Runs the cases of ``bench_scale.py`` that the targets need -- each case in a fresh process,
medians of ``--repeat`` repetitions, the ratios taken between tools measured in this run --
and prints a table of the targets, met or not, followed by every measurement.

Targets (``pdireval`` = ``merge_qrels`` + ``evaluate`` with validation on, from two frames):

* MS MARCO-like (7,000 x 1,000) and wide (100,000 x 100), every id dtype (``str``,
  ``object``, ``category``, ``int``), run order and shuffled: at most 1.3x the floor
  (``bench_scale.run_floor``, the same job written for speed and nothing else; the two
  timed in turn in one process, as TREC-DL-like below, and each also alone), at least 4x
  faster than pytrec_eval, peak extra memory at most 1.3x the floor's. The memory target is
  the floor's job, from the two frames to the metrics: ``evaluate(run, ..., qrels=qrels)``
  (``merge_qrels`` returns a frame, which holds a copy of the run's columns; its memory is
  listed too). Memory is measured in
  cases of its own with Arrow on the system allocator: Arrow's default pool keeps freed
  memory for reuse, so what a tool allocates through Arrow may never show in the RSS
  (the floor's Arrow work read as 34 MB with it, 220 MB without); times keep the default;
* TREC-DL-like (200 x 1,000, graded): at least 3x faster than pytrec_eval, every id dtype,
  the two timed in turn in one process (A B, B A, ...): a call of tens of milliseconds
  takes one of two times some 50% apart on this machine, switching every few seconds
  within one process, so medians from separate processes minutes apart compare the
  machine's moments as much as the tools; each tool is also run alone, for its values
  and its times; the floor is timed in turn with pytrec_eval the same way;
* a given rank column costs no more than ranking by score (5% allowed for noise): the two
  are timed in turn in one process, whose ratio is free of the tens of percent by which
  processes differ at millions of rows;
* validation adds at most 15% to ``evaluate`` (the two timed in turn in one process);
* the first call in a fresh process takes at most 1.3x a warm call (the median over
  ``FIRST_CALL_PROCESSES`` fresh processes: one process is one sample, and a first call
  may wait for the kernel to find fresh memory);
* ``evaluate`` on one query of 10 documents (labels merged) takes at most 0.5 ms, and 50
  queries x 100 documents (``merge_qrels`` + ``evaluate``) are faster than pytrec_eval (its
  dict build included; timed in turn, as TREC-DL-like).

Next to each pytrec_eval target the table gives the floor's own ratio, measured the same
way in the same run. Where the floor misses the goal too, the goal is beyond the job done
with these libraries (pdireval checks and orders ties on top of the floor's work), and the
target becomes the floor: pdireval at most 1.3x its time, the two ratios divided.
``--from-json`` recomputes the targets from the measurements a run stored with ``--json``.

Examples
--------
Everything (about 30 minutes on two cores)::

    python benchmarks/targets.py --json benchmarks/targets.json

A smoke run at a tenth of the sizes (about two minutes; the ratios are not the targets')::

    python benchmarks/targets.py --quick

The same cases under another interpreter, e.g. a virtual environment with pandas 2.2::

    python benchmarks/targets.py --python /path/to/venv/bin/python
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import bench_core as core  # the benchmarks folder is not a package
import bench_scale as scale

ALL_IDS = ("str", "object", "category", "int")


@dataclass(frozen=True)
class Target:
    """One target: what is compared, the goal, and the measured value.

    Attributes
    ----------
    name : str
        What the target asks for.
    case : str
        The case it was measured on.
    value : float or None
        The measured ratio or time (None when a measurement failed).
    goal : str
        The goal, e.g. ``"<= 1.30"``.
    met : bool or None
        Whether the goal is met (None when it could not be measured).
    floor : float or None
        For a pytrec_eval target, the same ratio with the floor in pdireval's place,
        measured in the same run the same way (alone, or in turn with pytrec_eval): where
        the floor misses the goal too, the goal is out of reach of the job done with these
        libraries, whatever pdireval does. None elsewhere.
    """

    name: str
    case: str
    value: float | None
    goal: str
    met: bool | None
    floor: float | None = None


def _median(records: dict, key: tuple) -> float | None:
    record = records.get(key)
    if record is None or record.get("status") != "ok":
        return None
    return float(record["median_seconds"])


def _in_turn(paired: dict, key: tuple) -> tuple[float | None, float | None]:
    """Medians of a tool and of the tool it was timed in turn with, in one process."""
    record = paired.get(key)
    if record is None or record.get("status") != "ok":
        return None, None
    return float(record["median_seconds"]), float(record["against_median_seconds"])


def _ratio(a: float | None, b: float | None) -> float | None:
    return None if a is None or b is None or b == 0 else a / b


def _check(
    name: str, case: str, value: float | None, op: str, bound: float, floor: float | None = None
) -> Target:
    met = None if value is None else (value <= bound if op == "<=" else value >= bound)
    return Target(name, case, value, f"{op} {bound:g}", met, floor)


def _peer_target(
    case: str, speedup: float | None, floor_speedup: float | None, goal: float
) -> Target:
    """pytrec_eval / pdireval >= ``goal``; where the floor's own ratio misses the goal, the
    target becomes the floor: pdireval at most 1.3x the floor's time, read off the two
    ratios (pytrec_eval / floor over pytrec_eval / pdireval, measured the same way).
    """
    if floor_speedup is not None and floor_speedup < goal:
        against_floor = _ratio(floor_speedup, speedup)
        return _check(
            "time / floor (floor misses the pytrec_eval goal)",
            case,
            against_floor,
            "<=",
            1.3,
            floor_speedup,
        )
    return _check("pytrec_eval / pdireval", case, speedup, ">=", goal, floor_speedup)


FIRST_CALL_PROCESSES = 5
PAIRED_REPEAT = 11  # repetitions of each tool in a case timed in turn with pytrec_eval


def plan(args: argparse.Namespace) -> list[dict]:
    """The cases to run, as ``bench_scale`` case dictionaries (plus ``warmup``, ``repeat``).

    Parameters
    ----------
    args : argparse.Namespace
        Command line.

    Returns
    -------
    list of dict
        Cases, in the order they run.
    """
    scale_down = 10 if args.quick else 1
    cases = []

    def add(workload: str, ids: str, order: str, tool: str, **extra: int | str) -> None:
        queries, depth = scale.WORKLOADS[workload]
        if workload in ("msmarco", "wide", "trec-dl"):
            queries = max(10, queries // scale_down)
        case = dict(workload=workload, queries=queries, depth=depth, ids=ids, order=order)
        cases.append(case | {"tool": tool} | extra)

    for workload in ("msmarco", "wide"):
        for ids in args.ids:
            for order in core.ORDERS:
                for tool in ("floor", "pdireval", "pdireval_qrels", "pytrec_eval"):
                    if tool != "pdireval_qrels" or workload == "msmarco":
                        add(workload, ids, order, tool)
                for tool in ("floor", "pdireval", "pdireval_qrels"):  # memory, see the top
                    add(workload, ids, order, tool, arrow_pool="system", repeat=1)
                # the time against the floor: both in one process, in turn (see the top)
                add(workload, ids, order, "pdireval", against="floor")
    for ids in args.ids:
        for order in core.ORDERS:
            for tool in ("pdireval", "pytrec_eval"):  # each alone: values compared, times shown
                add("trec-dl", ids, order, tool)
            # the ratio: both in one process, in turn (see the top); the floor's the same way
            for tool in ("pdireval", "floor"):
                add("trec-dl", ids, order, tool, against="pytrec_eval", repeat=PAIRED_REPEAT)
    for order in core.ORDERS:  # timed in turn with ranking by score, in one process
        add("msmarco", "str", order, "pdireval_rank", against="pdireval")
    for ids in ("str", "object"):  # validation on, timed in turn with validation off
        add("msmarco", ids, "run-ordered", "pdireval_evaluate", against="pdireval_evaluate_trusted")
    for _ in range(FIRST_CALL_PROCESSES):
        add("msmarco", "str", "run-ordered", "pdireval", warmup=0, repeat=max(args.repeat, 3))
    for tool in ("pdireval", "pytrec_eval"):
        add("small", "str", "run-ordered", tool, repeat=max(args.repeat, 51))
    add("small", "str", "run-ordered", "pdireval", against="pytrec_eval", repeat=101)
    for tool in ("pdireval", "pdireval_evaluate", "pytrec_eval"):
        add("tiny", "str", "run-ordered", tool, repeat=max(args.repeat, 201))
    return cases


def targets(records: list[dict], ids_list: list[str]) -> list[Target]:
    """Evaluate the targets from the records of one run.

    Parameters
    ----------
    records : list of dict
        ``bench_scale`` records, with ``warmup`` set on the first-call case.
    ids_list : list of str
        The id dtypes measured.

    Returns
    -------
    list of Target
        One row per target and case.
    """
    timed = [r for r in records if "warmup" not in r and "arrow_pool" not in r]
    alone = [r for r in timed if "against" not in r]
    warm = {(r["workload"], r["ids"], r["order"], r["tool"]): r for r in alone}
    paired = {
        (r["workload"], r["ids"], r["order"], r["tool"], r["against"]): r
        for r in timed
        if "against" in r
    }
    memory = {
        (r["workload"], r["ids"], r["order"], r["tool"]): r for r in records if "arrow_pool" in r
    }
    rows = []
    for workload in ("msmarco", "wide"):
        for ids in ids_list:
            for order in core.ORDERS:
                case = f"{workload}, {ids}, {order}"
                pdi = _median(warm, (workload, ids, order, "pdireval"))
                peer = _median(warm, (workload, ids, order, "pytrec_eval"))
                floor_alone = _median(warm, (workload, ids, order, "floor"))
                paired_pdi, floor = _in_turn(paired, (workload, ids, order, "pdireval", "floor"))
                ratio = _ratio(paired_pdi, floor)
                rows.append(_check("time / floor", f"{case}, in turn", ratio, "<=", 1.3))
                speedup, floor_speedup = _ratio(peer, pdi), _ratio(peer, floor_alone)
                rows.append(_peer_target(case, speedup, floor_speedup, 4))
                mem = [memory.get((workload, ids, order, t)) for t in ("pdireval_qrels", "floor")]
                ok = all(m is not None and m.get("status") == "ok" for m in mem)
                # a floor that allocated under 1 MB beyond its inputs was not measured
                ok = ok and mem[1]["peak_extra_mb"] >= 1.0  # type: ignore[index]
                extra = _ratio(
                    mem[0]["peak_extra_mb"] if ok else None,  # type: ignore[index]
                    mem[1]["peak_extra_mb"] if ok else None,  # type: ignore[index]
                )
                rows.append(_check("peak memory / floor", f"{case}, qrels=", extra, "<=", 1.3))
    for ids in ids_list:
        for order in core.ORDERS:
            pdi, peer = _in_turn(paired, ("trec-dl", ids, order, "pdireval", "pytrec_eval"))
            floor, floor_peer = _in_turn(paired, ("trec-dl", ids, order, "floor", "pytrec_eval"))
            case = f"trec-dl, {ids}, {order}, in turn"
            speedup, floor_speedup = _ratio(peer, pdi), _ratio(floor_peer, floor)
            rows.append(_peer_target(case, speedup, floor_speedup, 3))
    for order in core.ORDERS:
        given, by_score = _in_turn(paired, ("msmarco", "str", order, "pdireval_rank", "pdireval"))
        case = f"msmarco, str, {order}, in turn"
        rows.append(_check("rank column / by score", case, _ratio(given, by_score), "<=", 1.05))
    for ids in ("str", "object"):
        key = ("msmarco", ids, "run-ordered", "pdireval_evaluate", "pdireval_evaluate_trusted")
        on, off = _in_turn(paired, key)
        case = f"msmarco, {ids}, evaluate only, in turn"
        rows.append(_check("validate=True / False", case, _ratio(on, off), "<=", 1.15))
    first = [r for r in records if "warmup" in r and r.get("status") == "ok"]
    ratios = [r["times"][0] / statistics.median(r["times"][1:]) for r in first]
    value = statistics.median(ratios) if ratios else None
    case = f"msmarco, str, {len(ratios)} fresh processes"
    rows.append(_check("first call / warm call", case, value, "<=", 1.3))
    tiny = _median(warm, ("tiny", "str", "run-ordered", "pdireval_evaluate"))
    tiny_ms = None if tiny is None else tiny * 1e3
    case = "evaluate, 6 measures, labels merged"
    rows.append(_check("ms, one query of 10 docs", case, tiny_ms, "<=", 0.5))
    pdi, peer = _in_turn(paired, ("small", "str", "run-ordered", "pdireval", "pytrec_eval"))
    rows.append(_check("pytrec_eval / pdireval", "50 x 100, in turn", _ratio(peer, pdi), ">=", 1))
    return rows


def in_turn_table(records: list[dict]) -> str:
    """The Markdown table of the cases timed in turn with another tool.

    Parameters
    ----------
    records : list of dict
        ``bench_scale`` records with ``against``.

    Returns
    -------
    str
        Markdown.
    """
    lines = [
        "| workload | ids | order | tool | median s | in turn with | median s | ratio |",
        "| --- | --- | --- | --- | ---: | --- | ---: | ---: |",
    ]
    for r in records:
        head = f"| {r['workload']} | {r['ids']} | {r['order']} | {r['tool']}"
        if r.get("status") != "ok":
            lines.append(f"{head} | {r.get('status')}: {str(r.get('error'))[:60]} ||||")
            continue
        mine, other = r["median_seconds"], r["against_median_seconds"]
        lines.append(f"{head} | {mine:.4f} | {r['against']} | {other:.4f} | {other / mine:.2f} |")
    return "\n".join(lines)


def render(rows: list[Target]) -> str:
    """The Markdown table of the targets.

    Parameters
    ----------
    rows : list of Target
        Evaluated targets.

    Returns
    -------
    str
        Markdown.
    """
    lines = [
        "| target | case | measured | goal | met | the floor's |",
        "| --- | --- | ---: | --- | --- | ---: |",
    ]
    for t in rows:
        value = "failed" if t.value is None else _shown(t.value, t)
        met = {True: "met", False: "**not met**", None: "n/a"}[t.met]
        floor = "" if t.floor is None else f"{t.floor:.2f}"
        lines.append(f"| {t.name} | {t.case} | {value} | {t.goal} | {met} | {floor} |")
    met = sum(t.met is True for t in rows)
    lines.append(f"\n{met} of {len(rows)} targets met.")
    return "\n".join(lines)


def _shown(value: float, target: Target) -> str:
    """``value`` to two decimals, or to three where two would show a miss as the goal."""
    shown = f"{value:.2f}"
    if target.met is False and float(shown) == float(target.goal.split()[-1]):
        shown = f"{value:.3f}"
    return shown


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
    parser.add_argument("--ids", default=",".join(ALL_IDS), help="comma-separated id dtypes")
    parser.add_argument("--repeat", type=int, default=5, help="timed repetitions per case")
    parser.add_argument("--quick", action="store_true", help="a tenth of the sizes (smoke run)")
    parser.add_argument("--python", default=sys.executable, help="interpreter of the workers")
    parser.add_argument("--seed", type=int, default=42)
    parser.add_argument("--timeout", type=float, default=1200.0, help="seconds per case")
    parser.add_argument("--json", metavar="PATH", help="also write targets and records as JSON")
    parser.add_argument(
        "--from-json",
        metavar="PATH",
        help="measure nothing: the targets of the records a run wrote with --json",
    )
    args = parser.parse_args(argv)
    args.ids = core._split(args.ids, ALL_IDS, "--ids")
    return args


def workers_environment(python: str) -> dict:
    """The machine and library versions as the workers' interpreter sees them.

    Parameters
    ----------
    python : str
        Interpreter of the workers (``--python``).

    Returns
    -------
    dict
        What :func:`bench_core.environment` returns, run under ``python``.
    """
    code = (
        "import json, sys; sys.path.insert(0, sys.argv[1]); import bench_core; "
        "print(json.dumps(bench_core.environment()))"
    )
    here = str(Path(__file__).resolve().parent)
    done = subprocess.run([python, "-c", code, here], capture_output=True, text=True, check=True)
    return json.loads(done.stdout)


def main(argv: list[str] | None = None) -> int:
    """Run the cases, print the targets table and the measurements.

    Parameters
    ----------
    argv : list of str, optional
        Command-line arguments.

    Returns
    -------
    int
        Exit status (0 also when targets are not met: this measures, it does not gate).
    """
    args = parse_args(argv)
    if args.from_json:
        stored = json.loads(Path(args.from_json).read_text(encoding="utf-8"))
        rows = targets(stored["results"], args.ids)
        print(render(rows))
        if args.json:
            stored["targets"] = [t.__dict__ for t in rows]
            Path(args.json).write_text(json.dumps(stored, indent=2) + "\n", encoding="utf-8")
        return 0
    records = []
    with tempfile.TemporaryDirectory(prefix="pdireval-targets-") as tmp:
        for number, case in enumerate(plan(args)):
            settings = argparse.Namespace(
                seed=args.seed,
                repeat=case.pop("repeat", args.repeat),
                slow_threshold=60.0,
                warmup_queries=case.get("warmup", 50),
                timeout=args.timeout,
                python=args.python,
            )
            label = " ".join(str(v) for k, v in case.items() if k != "warmup")
            print(f"[targets] {label} ...", file=sys.stderr, flush=True)
            out = Path(tmp) / f"{number}.parquet"
            work = {k: v for k, v in case.items() if k != "warmup"}  # arrow_pool: for spawn
            record = scale.spawn(work, settings, out)
            for extra in ("warmup", "arrow_pool"):
                if extra in case:
                    record[extra] = case[extra]
            med = record.get("median_seconds")
            done = f"{med:.4f} s" if med is not None else record.get("error")
            print(f"[targets]   {record.get('status')} {done}", file=sys.stderr, flush=True)
            records.append(record)
        timed = [r for r in records if "warmup" not in r and "arrow_pool" not in r]
        scale.agreement_flags(timed)
    rows = targets(records, args.ids)
    print(render(rows))
    print()
    print(scale.table([r for r in timed if "against" not in r]))
    print("\nTimed in turn in one process (medians):\n")
    print(in_turn_table([r for r in timed if "against" in r]))
    print("\nPeak extra memory, Arrow on the system allocator (one repetition):\n")
    print(scale.table([r for r in records if "arrow_pool" in r]))
    if args.json:
        clean = [{k: v for k, v in r.items() if k != "result_path"} for r in records]
        payload = {
            "environment": workers_environment(args.python),
            "targets": [t.__dict__ for t in rows],
            "results": clean,
        }
        Path(args.json).write_text(json.dumps(payload, indent=2) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
