"""``python -m pdireval``: evaluate the built-in example and print per-query values and means."""

from __future__ import annotations

import pandas as pd

import pdireval
from pdireval._example import example_frame

METRICS = ["AP", "nDCG@10", "P@5", "R@10", "RR", "Rprec"]


def main() -> None:
    """Print the per-query table and the per-run summary of the example frame."""
    frame = example_frame()
    with pd.option_context("display.width", 120, "display.precision", 4):
        print("Per-query values (built-in example: two systems, two topics)\n")
        print(frame.ireval.evaluate(METRICS))
        print("\nMean over queries (MAP, mean nDCG@10, ..., MRR)\n")
        print(frame.ireval.summary(METRICS))
    print(f"\npdireval {pdireval.__version__}")


if __name__ == "__main__":
    main()
