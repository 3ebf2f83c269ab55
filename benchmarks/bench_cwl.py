"""C/W/L measures: pdireval against cwl_eval on the same generated run, as a ratio.

Usage::

    python benchmarks/bench_cwl.py [--queries 100] [--depth 1000] [--repeat 3]

Both compute INST(T=2), RBP(p=0.8), AP, TBG(halflife=224) and U(L=1000) in the C/W/L
form, with all five values (EU, ETU, EC, ETC, ED), over cwl_eval's default depth of 1000.
cwl_eval's timed section builds each topic's ranking from its qrels (read outside the
timer) and measures it; pdireval's is one ``evaluate`` of the merged frame.
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

import numpy as np
import pandas as pd

import pdireval

MEASURES = {  # pdireval name -> cwl_eval class and arguments
    "INST(T=2, max_label=3)": ("INSTCWLMetric", (2.0,)),
    "RBP_CWL(p=0.8, max_label=3)": ("RBPCWLMetric", (0.8,)),
    "AP_CWL(max_label=3)": ("APCWLMetric", ()),
    "TBG(halflife=224, max_label=3)": ("TBGCWLMetric", (224,)),
    "U(L=1000, max_label=3)": ("UMeasureCWLMetric", (1000,)),
}


def generated(queries: int, depth: int, seed: int = 0) -> pd.DataFrame:
    """A ranked run of ``depth`` documents per query, graded 0-3, a fifth unjudged."""
    rng = np.random.default_rng(seed)
    n = queries * depth
    labels = rng.choice([0, 0, 0, 1, 2, 3], size=n).astype(float)
    labels[rng.random(n) < 0.2] = np.nan
    return pd.DataFrame(
        {
            "query": np.repeat([f"q{i}" for i in range(queries)], depth),
            "doc": np.tile([f"d{i}" for i in range(depth)], queries),
            "rank": np.tile(np.arange(1, depth + 1), queries),
            "rel": labels,
        }
    )


def timed(function: Callable[[], object], repeat: int) -> float:
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        function()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--queries", type=int, default=100)
    parser.add_argument("--depth", type=int, default=1000)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    frame = generated(args.queries, args.depth)
    values = ("EU", "ETU", "EC", "ETC", "ED")
    names = [f"{name[:-1]}, value='{v}')" for name in MEASURES for v in values]
    ours = timed(lambda: pdireval.evaluate(frame, names), args.repeat)
    print(f"pdireval  {ours:8.3f} s  ({args.queries} queries x {args.depth})")
    try:
        from cwl.ruler import cwl_ruler
        from cwl.ruler.ranking import RankingMaker
        from cwl.seeker.trec_qrel_handler import TrecQrelHandler
    except ImportError:
        print("cwl_eval  skipped (pip install cwl-eval)")
        return
    judged = frame.dropna(subset=["rel"])
    with tempfile.TemporaryDirectory() as directory:
        qrels = Path(directory) / "qrels"
        qrels.write_text(
            "".join(f"{q} 0 {d} {r / 3!r}\n" for q, d, r in judged[["query", "doc", "rel"]].values)
        )
        handler = TrecQrelHandler(str(qrels))
    topics = [(query, part["doc"].tolist()) for query, part in frame.groupby("query", sort=False)]

    def theirs() -> None:
        metrics = [getattr(cwl_ruler, name)(*arguments) for name, arguments in MEASURES.values()]
        for query, docs in topics:
            maker = RankingMaker(query, handler, None, max_n=1000)
            for doc in docs:
                maker.add(doc, "D")
            ranking = maker.get_ranking()
            for metric in metrics:
                metric.measure(ranking)

    reference = timed(theirs, args.repeat)
    print(f"cwl_eval  {reference:8.3f} s  ratio cwl_eval / pdireval = {reference / ours:.1f}")


if __name__ == "__main__":
    main()
