"""Draw the README's figures from the built-in example collection.

Run from the repository root (needs matplotlib: ``pip install -e ".[plot]"``)::

    python docs/make_figures.py            # writes docs/figures/*.png
    python docs/make_figures.py --all      # also the figures the README does not show

The PNGs are committed; rerun this script when a plot changes.
"""

from __future__ import annotations

import argparse
from pathlib import Path

import matplotlib

matplotlib.use("Agg")  # files only, no display

import matplotlib.pyplot as plt

from pdireval.datasets import example

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
}


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
