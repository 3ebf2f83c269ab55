"""Out-of-core benchmark: a partitioned Parquet run evaluated with ``pdireval.dask``.

The script writes a run of ``--rows`` rows (queries x ``--depth`` documents, MS MARCO-like
labels, ids as strings) as one Parquet file per ``--rows-per-file`` rows, plus one qrels file,
then evaluates it on a ``distributed`` cluster::

    run = dd.read_parquet(RUN_DIR)
    merged = pdireval.dask.merge_qrels(run, qrels)            # one shuffle on the query
    table = pdireval.dask.evaluate(merged, METRICS, shuffle=False).compute()

It reports the generation time, the evaluation time (wall clock, including reading the
Parquet files), the peak RSS of every worker process during the evaluation and the mean of
each metric.  By default the cluster is a ``LocalCluster`` (``--workers`` processes with one
thread each and ``--memory-limit`` each); ``--scheduler tcp://host:8786`` uses an existing
cluster instead, whose workers must be able to read ``--data-dir`` (a shared file system or
an ``s3://``/``gs://`` URL that ``dask.dataframe.read_parquet`` understands).

Examples
--------
Small smoke run::

    python benchmarks/bench_dask.py --rows 1000000

The issue's size (generate once, then evaluate again without regenerating)::

    python benchmarks/bench_dask.py --rows 50000000 --data-dir /tmp/pdireval-dask
    python benchmarks/bench_dask.py --rows 50000000 --data-dir /tmp/pdireval-dask --reuse
"""

from __future__ import annotations

import argparse
import json
import resource
import sys
import time
from pathlib import Path

import numpy as np
import pandas as pd

sys.path.insert(0, str(Path(__file__).resolve().parent))

import bench_core as core  # the benchmarks folder is not a package

REPO_ROOT = Path(__file__).resolve().parent.parent


def generate(data_dir: Path, rows: int, depth: int, rows_per_file: int, seed: int) -> dict:
    """Write ``data_dir/run/part-*.parquet`` and ``data_dir/qrels.parquet``.

    Every file holds whole queries (``rows_per_file // depth`` of them), generated with
    :func:`bench_core.make_workload` and renumbered so that query ids are unique across files.
    The queries of different files are not interleaved in the files, but nothing in the
    evaluation relies on that: ``merge_qrels`` shuffles on the query id.

    Parameters
    ----------
    data_dir : pathlib.Path
        Output directory (created).
    rows : int
        Total run rows (rounded down to whole queries).
    depth : int
        Retrieved documents per query.
    rows_per_file : int
        Rows per Parquet file.
    seed : int
        Base seed; file ``i`` uses ``seed + i``.

    Returns
    -------
    dict
        ``rows``, ``queries``, ``files``, ``qrels_rows``, ``bytes`` and ``seconds``.
    """
    start = time.perf_counter()
    run_dir = data_dir / "run"
    run_dir.mkdir(parents=True, exist_ok=True)
    for old in run_dir.glob("part-*.parquet"):
        old.unlink()
    n_queries = rows // depth
    per_file = max(1, rows_per_file // depth)
    qrels_parts, offset, index = [], 0, 0
    while offset < n_queries:
        count = min(per_file, n_queries - offset)
        run, qrels = core.make_workload(count, depth, seed + index)
        # Renumber: the generator draws ids per call, so make them unique across files.
        uniques = pd.unique(run["query"])
        mapping = pd.Series(
            (np.arange(offset, offset + count) + 1).astype(str), index=pd.Index(uniques)
        )
        run["query"] = core._string_series(mapping.loc[run["query"]].to_numpy())
        qrels["query"] = core._string_series(mapping.loc[qrels["query"]].to_numpy())
        run.to_parquet(run_dir / f"part-{index:05d}.parquet", index=False)
        qrels_parts.append(qrels)
        offset += count
        index += 1
    qrels = pd.concat(qrels_parts, ignore_index=True)
    qrels.to_parquet(data_dir / "qrels.parquet", index=False)
    size = sum(p.stat().st_size for p in data_dir.rglob("*.parquet"))
    return {
        "rows": n_queries * depth,
        "queries": n_queries,
        "files": index,
        "qrels_rows": len(qrels),
        "bytes": size,
        "seconds": time.perf_counter() - start,
    }


def _reset_peak() -> bool:
    """Reset this process's peak-RSS counter (run on every worker; Linux only)."""
    try:
        with open("/proc/self/clear_refs", "w", encoding="ascii") as handle:
            handle.write("5")
    except OSError:
        return False
    return True


def _peak_mb() -> float:
    """Peak RSS of this process in MiB (run on every worker)."""
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return peak / 2**20 if sys.platform == "darwin" else peak / 2**10


def _current_mb() -> float:
    """Current RSS of this process in MiB (run on every worker; the peak off Linux)."""
    try:
        with open("/proc/self/status", encoding="ascii") as handle:
            for line in handle:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1]) / 2**10
    except OSError:
        pass
    return _peak_mb()


def _spilled(dask_worker) -> int:
    """Bytes this worker spilled to disk so far (0 when unknown)."""
    try:
        return int(dask_worker.data.spilled_total.disk)
    except AttributeError:
        return 0


def evaluate(client, data_dir: str, metrics: list[str]) -> dict:
    """Evaluate the Parquet run on the cluster of ``client``.

    Parameters
    ----------
    client : distributed.Client
        Connected client.
    data_dir : str
        Directory (or URL) holding ``run/`` and ``qrels.parquet``.
    metrics : list of str
        Metric names.

    Returns
    -------
    dict
        ``seconds``, ``queries`` (rows of the result), ``means`` and per-worker memory.
    """
    import dask.dataframe as dd

    if str(REPO_ROOT) not in sys.path:
        sys.path.insert(0, str(REPO_ROOT))
    import pdireval.dask

    client.run(_reset_peak)
    before = client.run(_current_mb)
    start = time.perf_counter()
    run = dd.read_parquet(f"{data_dir}/run")
    qrels = pd.read_parquet(f"{data_dir}/qrels.parquet")
    merged = pdireval.dask.merge_qrels(run, qrels)
    table = pdireval.dask.evaluate(merged, metrics, shuffle=False).compute()
    seconds = time.perf_counter() - start
    peaks = client.run(_peak_mb)
    spilled = client.run(_spilled)
    workers = [
        {
            "worker": address,
            "rss_before_mb": round(before[address], 1),
            "peak_rss_mb": round(peaks[address], 1),
            "spilled_mb": round(spilled.get(address, 0) / 2**20, 1),
        }
        for address in sorted(peaks)
    ]
    means = table[[c for c in table.columns if c not in ("query", "run")]].mean()
    return {
        "seconds": seconds,
        "partitions": run.npartitions,
        "queries": len(table),
        "means": {k: float(v) for k, v in means.items()},
        "workers": workers,
    }


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
    parser.add_argument("--rows", type=int, default=10_000_000, help="run rows")
    parser.add_argument("--depth", type=int, default=100, help="documents per query")
    parser.add_argument("--rows-per-file", type=int, default=2_000_000, help="Parquet file size")
    parser.add_argument("--seed", type=int, default=42)
    parser.add_argument("--data-dir", default="/tmp/pdireval-dask", help="where data is written")
    parser.add_argument("--reuse", action="store_true", help="do not regenerate the data")
    parser.add_argument("--workers", type=int, default=2, help="LocalCluster worker processes")
    parser.add_argument("--threads", type=int, default=1, help="threads per worker")
    parser.add_argument("--memory-limit", default="6GiB", help="per LocalCluster worker")
    parser.add_argument("--scheduler", help="address of an existing cluster (tcp://host:8786)")
    parser.add_argument("--metrics", default=",".join(core.LABELS))
    parser.add_argument("--json", metavar="PATH", help="also write the results as JSON")
    return parser.parse_args(argv)


def main(argv: list[str] | None = None) -> int:
    """Generate (unless ``--reuse``), evaluate and print a Markdown summary.

    Parameters
    ----------
    argv : list of str, optional
        Command-line arguments.

    Returns
    -------
    int
        Exit status.
    """
    from distributed import Client, LocalCluster

    args = parse_args(argv)
    data_dir = Path(args.data_dir)
    gen = None
    if not args.reuse:
        print(f"[dask] writing {args.rows:,} rows to {data_dir} ...", file=sys.stderr, flush=True)
        gen = generate(data_dir, args.rows, args.depth, args.rows_per_file, args.seed)
        print(f"[dask]   {gen}", file=sys.stderr, flush=True)
    metrics = [m.strip() for m in args.metrics.split(",") if m.strip()]
    if args.scheduler:
        client, cluster = Client(args.scheduler), None
    else:
        cluster = LocalCluster(
            n_workers=args.workers,
            threads_per_worker=args.threads,
            memory_limit=args.memory_limit,
            local_directory=str(data_dir / "dask-worker-space"),
            dashboard_address=None,
        )
        client = Client(cluster)
    try:
        client.run(lambda: sys.path.insert(0, str(REPO_ROOT)))
        result = evaluate(client, str(data_dir), metrics)
    finally:
        client.close()
        if cluster is not None:
            cluster.close()
    rows = gen["rows"] if gen else None
    print(
        f"Run: {rows or '(reused)'} rows in {result['partitions']} Parquet files; "
        f"cluster: {args.scheduler or f'LocalCluster {args.workers} x {args.threads} thread, '}"
        f"{'' if args.scheduler else args.memory_limit + ' each'}\n"
    )
    if gen:
        print(
            f"generation: {gen['seconds']:.1f} s, {gen['bytes'] / 2**20:.0f} MiB of Parquet, "
            f"{gen['qrels_rows']} qrels rows"
        )
    print(f"evaluation: {result['seconds']:.1f} s for {result['queries']} queries\n")
    print("| worker | RSS before MB | peak RSS MB | spilled MB |")
    print("| --- | ---: | ---: | ---: |")
    for w in result["workers"]:
        print(
            f"| {w['worker']} | {w['rss_before_mb']:.0f} | {w['peak_rss_mb']:.0f} "
            f"| {w['spilled_mb']:.0f} |"
        )
    print("\nmeans: " + ", ".join(f"{k} {v:.6f}" for k, v in result["means"].items()))
    if args.json:
        payload = {"args": vars(args), "generate": gen, "evaluate": result}
        payload["environment"] = core.environment()
        Path(args.json).write_text(json.dumps(payload, indent=2) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
