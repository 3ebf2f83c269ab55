"""Run by .ci/run in the venv of the README's first command (pandas, numpy, pyarrow only).

Checks that a bare ``pip install .`` evaluates frames of every id dtype and that the
optional dependencies stay optional: each feature that needs one says how to install it.
Exits non-zero (an AssertionError) on any difference.
"""

from __future__ import annotations

import importlib.util

import numpy as np
import pandas as pd

import pdireval
from pdireval.datasets import example_qrels, example_run

OPTIONAL = ("scipy", "openpyxl", "matplotlib", "dask", "jinja2")
assert not [name for name in OPTIONAL if importlib.util.find_spec(name)], "not a bare install"

run, qrels = example_run(), example_qrels()
reference = pdireval.merge_qrels(run, qrels).ireval.summary(["AP", "nDCG@10", "P@10"])
for dtype in ("str", "object", "category", "string[python]", "int64"):
    if dtype == "int64":  # ids as numbers: "401" -> 401, "d401-07" -> 40107

        def convert(ids: pd.Series) -> pd.Series:
            return ids.str.replace(r"\D", "", regex=True).astype("int64")
    else:

        def convert(ids: pd.Series, dtype: str = dtype) -> pd.Series:
            return ids.astype(dtype)

    typed_run = run.assign(query=convert(run["query"]), doc=convert(run["doc"]))
    typed_qrels = qrels.assign(query=convert(qrels["query"]), doc=convert(qrels["doc"]))
    merged = pdireval.merge_qrels(typed_run, typed_qrels)
    summary = merged.ireval.summary(["AP", "nDCG@10", "P@10"])
    np.testing.assert_allclose(summary.to_numpy(), reference.to_numpy(), rtol=0, atol=1e-12)
    print(f"{dtype:>14}: MAP {summary.loc['strong', 'AP']:.4f} (strong run), as with str ids")

for call, extra in (
    (lambda: pdireval.compare(pdireval.datasets.example(), "AP"), "stats"),
    (lambda: pdireval.datasets.example().ireval.plot.systems("AP"), "plot"),
):
    message = ""
    try:
        call()
    except pdireval.MissingDependencyError as error:
        message = str(error)
    assert f"pdireval[{extra}]" in message, f"expected an install hint for [{extra}]: {message!r}"
    print(f"without the {extra!r} extra: {message}")
