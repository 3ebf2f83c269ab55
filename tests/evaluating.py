"""Every public function that evaluates a frame, and a small frame to call them on:
shared by the tests of the evaluation options and of ``qrels=``."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pandas as pd

import pdireval
from pdireval.datasets import toy

# Every public function that evaluates a frame, called with the options given.
EVALUATING: dict[str, Callable[..., Any]] = {
    "evaluate": lambda f, **o: pdireval.evaluate(f, ["AP", "P@5"], **o),
    "summary": lambda f, **o: pdireval.summary(f, "AP", **o),
    "compare": lambda f, **o: pdireval.compare(f, "AP", test="sign", **o),
    "per_query": lambda f, **o: pdireval.per_query(f, "AP", **o),
    "report": lambda f, **o: pdireval.report(f, "AP", test="sign", **o),
    "precision": lambda f, **o: pdireval.precision(f, 5, **o),
    "recall": lambda f, **o: pdireval.recall(f, 5, **o),
    "ap": lambda f, **o: pdireval.ap(f, **o),
    "map": lambda f, **o: pdireval.map(f[f["run"] == "system1"], **o),
    "gmap": lambda f, **o: pdireval.gmap(f[f["run"] == "system1"], **o),
    "rr": lambda f, **o: pdireval.rr(f, **o),
    "mrr": lambda f, **o: pdireval.mrr(f[f["run"] == "system1"], **o),
    "ndcg": lambda f, **o: pdireval.ndcg(f, 10, **o),
    "dcg": lambda f, **o: pdireval.dcg(f, 10, **o),
    "r_precision": lambda f, **o: pdireval.r_precision(f, **o),
    "success": lambda f, **o: pdireval.success(f, 1, **o),
    "tie_groups": lambda f, **o: pdireval.tie_groups(f, 2, **o),
    "pr_curve": lambda f, **o: pdireval.pr_curve(f, **o),
    "curve": lambda f, **o: pdireval.curve(f, "P", ks=[1, 2], **o),
    "accessor.evaluate": lambda f, **o: f.ireval.evaluate("AP", **o),
    "accessor.summary": lambda f, **o: f.ireval.summary("AP", **o),
    "accessor.compare": lambda f, **o: f.ireval.compare("AP", test="sign", **o),
    "accessor.per_query": lambda f, **o: f.ireval.per_query("AP", **o),
    "accessor.report": lambda f, **o: f.ireval.report("AP", test="sign", **o),
    "accessor.ndcg": lambda f, **o: f.ireval.ndcg(5, **o),
    "accessor.tie_groups": lambda f, **o: f.ireval.tie_groups(2, **o),
    "accessor.pr_curve": lambda f, **o: f.ireval.pr_curve(**o),
    "accessor.curve": lambda f, **o: f.ireval.curve("P", [1, 2], **o),
}


def toy_run() -> pd.DataFrame:
    return toy().drop(columns="rank").assign(score=lambda f: -f.index.to_numpy() // 2 * 1.0)
