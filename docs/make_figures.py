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

#: file name -> how to draw it on the example frame (README figures first)
README_FIGURES = {
    "pr_curve": lambda df, ax: df.ireval.plot.pr_curve(ax=ax),
    "per_query": lambda df, ax: df.ireval.plot.per_query("AP", baseline="medium", ax=ax),
}
OTHER_FIGURES = {
    "distribution": lambda df, ax: df.ireval.plot.distribution("nDCG@10", ax=ax),
    "at_k": lambda df, ax: df.ireval.plot.at_k("nDCG", ks=range(1, 21), ax=ax),
    "systems": lambda df, ax: df.ireval.plot.systems("AP", ci=0.95, ax=ax),
}


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
        fig, ax = plt.subplots(figsize=(6.4, 4.0))
        draw(df, ax)
        fig.tight_layout()
        path = args.out / f"{name}.png"
        fig.savefig(path, dpi=DPI)
        plt.close(fig)
        written.append(path)
        print(path)
    return written


if __name__ == "__main__":
    main()
