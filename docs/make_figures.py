"""Draw the README's figures from the built-in example collection.

Run from the repository root (needs matplotlib: ``pip install -e ".[plot]"``)::

    python docs/make_figures.py            # writes docs/figures/*.png
    python docs/make_figures.py --all      # also the figures the README does not show

The figures of many runs use ten runs named like real experiments, made from the example's
three runs with their scores perturbed (so their numbers mean nothing).

The PNGs are committed; rerun this script when a plot changes.
"""

from __future__ import annotations

import argparse
from pathlib import Path

import matplotlib

matplotlib.use("Agg")  # files only, no display

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd

import pdireval
from pdireval.datasets import example, example_qrels, example_run

FIGURES = Path(__file__).resolve().parent / "figures"
DPI = 100

#: file name -> how to draw it on the example frame (README figures first); each figure
#: has the size pdireval gives it.
README_FIGURES = {
    "pr_curve": lambda df: df.ireval.plot.pr_curve(),
    "per_query": lambda df: df.ireval.plot.per_query("AP", baseline="medium"),
}
OTHER_FIGURES = {
    "distribution": lambda df: df.ireval.plot.distribution("nDCG@10"),
    "at_k": lambda df: df.ireval.plot.at_k("nDCG", ks=range(1, 21)),
    "systems": lambda df: df.ireval.plot.systems("AP", ci=0.95),
    "tradeoff": lambda df: _timed(df).ireval.plot.tradeoff("nDCG@10"),
    "per_query_many": lambda df: _many().ireval.plot.per_query("AP"),
    "at_k_many": lambda df: _many().ireval.plot.at_k("nDCG", ks=[1, 3, 5, 10, 20, 50, 100]),
    "pr_curve_panels": lambda df: df.ireval.plot.pr_curve(per_query=True),
}
#: Ten run names of the kind experiments have.
MANY = [
    "bm25",
    "bm25+rm3",
    "bm25+monoT5-3b-rerank-top1000-fold3",
    "splade-v3-distil",
    "colbertv2-plaid-k1000",
    "bm25+monoT5-base-rerank-top100-fold1",
    "dense-contriever-msmarco-ft",
    "bm25+duoT5-3b-rerank-top50-fold2",
    "hybrid-rrf-bm25-splade-k60",
    "tct-colbert-v2-hnp-msmarco",
]


def _many():
    """Ten runs with long names: the example's runs in turn, scores perturbed (seeded)."""
    run = example_run()
    rng = np.random.default_rng(0)
    parts = []
    for i, name in enumerate(MANY):
        part = run[run["run"] == ["strong", "medium", "weak"][i % 3]].copy()
        part["score"] += rng.normal(0, 0.3, len(part))
        parts.append(part.assign(run=name))
    return pdireval.merge_qrels(pd.concat(parts, ignore_index=True), example_qrels())


def _timed(df):
    """The example runs with made-up per-query times (the stronger, the slower)."""
    base = df["run"].map({"strong": 0.180, "medium": 0.025, "weak": 0.040})
    return df.assign(time=base + 0.0004 * (df["query"].astype(int) - 401))


def main(argv: list[str] | None = None) -> list[Path]:
    """Write the figures; return their paths."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--all", action="store_true", help="also the figures not in the README")
    parser.add_argument("--out", type=Path, default=FIGURES, help="folder (docs/figures)")
    args = parser.parse_args(argv)
    drawings = dict(README_FIGURES, **(OTHER_FIGURES if args.all else {}))
    args.out.mkdir(parents=True, exist_ok=True)
    df = example()
    written = []
    for name, draw in drawings.items():
        figure = draw(df).figure
        path = args.out / f"{name}.png"
        figure.savefig(path, dpi=DPI)
        plt.close(figure)
        written.append(path)
        print(path)
    return written


if __name__ == "__main__":
    main()
