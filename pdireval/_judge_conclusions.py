"""Do a paper's conclusions survive a change of judge? The same runs evaluated under
several sets of judgments (human assessors, an LLM judge, a re-judged pool): each run's
score under each judge, how each judge orders the runs against a reference judge, and
which pairwise significance conclusions change.
"""

from __future__ import annotations

from collections.abc import Hashable, Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from pdireval._errors import SchemaError
from pdireval._prepare.columns import as_column_map

__all__ = ["JudgeConclusions", "judge_conclusions"]

#: A pairwise conclusion: the run significantly better, worse, or no difference found.
_BETTER, _WORSE, _NONE = "better", "worse", "not significant"


@dataclass(frozen=True)
class JudgeConclusions:
    """The runs under each judge, and what changes against the reference judge.

    Attributes
    ----------
    reference : hashable
        The judge the others are held against.
    scores : DataFrame
        Mean of each metric per run (rows) and (judge, metric) (columns).
    agreement : DataFrame
        Per (judge, metric), the judges other than the reference: Kendall's tau and
        tau_AP between the run orderings of that judge and the reference's (tau_AP
        weighs disagreement among the reference's best runs most; Yilmaz, Aslam &
        Robertson 2008), and the number of pairwise conclusions that changed.
    pairs : DataFrame
        Every pair of runs, metric and judge: the difference of means and the conclusion
        (``"better"``, ``"worse"`` or ``"not significant"``) under that judge and under
        the reference, and whether it changed (``flipped``).
    """

    reference: Hashable
    scores: pd.DataFrame
    agreement: pd.DataFrame
    pairs: pd.DataFrame

    @property
    def flips(self) -> pd.DataFrame:
        """The pairwise conclusions another judge reverses or loses."""
        return self.pairs[self.pairs["flipped"]].reset_index(drop=True)


def judge_conclusions(
    run: pd.DataFrame,
    qrels: Mapping[Hashable, pd.DataFrame] | pd.DataFrame,
    metrics: Any,
    *,
    reference: Hashable | None = None,
    **options: Any,
) -> JudgeConclusions:
    """Evaluate the same runs under several judges and say which conclusions change.

    Parameters
    ----------
    run : DataFrame
        Two or more runs (a ``run`` column), without labels: each judge's are matched
        to it as ``qrels=`` matches them.
    qrels : mapping of judge name to qrels frame, or DataFrame
        Two or more sets of judgments of the same runs, e.g. ``{"human": qrels,
        "llm": llm_qrels}``, or one qrels frame with a ``judge`` column (another
        column mapped with ``qrels_columns={"judge": ...}``); its judges in the order
        they first appear (a categorical's in category order).
    metrics : metric or list of metrics
        As in :func:`pdireval.evaluate`.
    reference : hashable, optional
        The judge the others are held against; by default the first of ``qrels``.
    **options
        The options of :func:`pdireval.compare` (``test``, ``correction``, ``alpha``,
        ``queries``, ...), applied under every judge; the comparison is of every pair
        of runs (``baseline=None``).

    Returns
    -------
    JudgeConclusions
        ``scores``, ``agreement`` (Kendall's tau and tau_AP of each judge's run order
        against the reference's, and how many conclusions changed) and ``pairs``
        (every pairwise conclusion under each judge; ``flips`` keeps the changed ones).

    Raises
    ------
    SchemaError
        Fewer than two judges, a reference that is not one of them, or fewer than two
        runs.
    MissingDependencyError
        scipy is not installed (the significance tests need it).

    Notes
    -----
    Each judge's numbers are those of the run evaluated with that judge's qrels alone:
    nothing is shared between judges. The conclusion for a pair is the sign of the
    difference when the (corrected) test finds it significant, else "not significant";
    a conclusion "flips" when another judge gives a different one (Voorhees 2000 asks
    the same of system orderings under different assessors).

    Examples
    --------
    >>> import pdireval
    >>> from pdireval.datasets import example_qrels, example_run
    >>> human = example_qrels()
    >>> strict = human.assign(rel=(human["rel"] >= 2).astype("int64"))  # a stricter judge
    >>> found = pdireval.judge_conclusions(example_run(), {"human": human, "strict": strict},
    ...                                    "AP")
    >>> found.scores.round(4)
    judge    human  strict
    metric      AP      AP
    run
    medium  0.5756  0.6617
    strong  0.8781  0.8847
    weak    0.2161  0.1894
    >>> found.agreement[["judge", "metric", "kendall", "changed"]]
        judge metric  kendall  changed
    0  strict     AP      1.0        0
    """
    from pdireval.api import compare
    from pdireval.correlation import kendall, tau_ap

    qrels = _by_judge(qrels, options.get("qrels_columns"))
    if options.get("qrels_columns") is not None:  # each judge's frame has no judge column
        options["qrels_columns"] = as_column_map(options["qrels_columns"]).remap(judge=False)
    judges = list(qrels)
    if len(judges) < 2:
        msg = (
            f"judge_conclusions needs two or more sets of judgments to compare, got "
            f"{len(judges)}; pass a mapping such as {{'human': qrels, 'llm': llm_qrels}}"
        )
        raise SchemaError(msg)
    reference = judges[0] if reference is None else reference
    if reference not in judges:
        msg = f"reference={reference!r} is not one of the judges {judges}"
        raise SchemaError(msg)
    options = {key: value for key, value in options.items() if key != "baseline"}
    compared = {
        judge: compare(run, metrics, baseline=None, qrels=labels, **options)
        for judge, labels in qrels.items()
    }
    scores = _scores(compared)
    pairs = _pairs(compared, reference)
    rows = []
    for judge in judges:
        if judge == reference:
            continue
        for metric in scores.columns.get_level_values("metric").unique():
            theirs, ours = scores[(judge, metric)], scores[(reference, metric)]
            changed = pairs[(pairs["judge"] == judge) & (pairs["metric"] == metric)]
            rows.append(
                {
                    "judge": judge,
                    "metric": metric,
                    "kendall": kendall(theirs, ours),
                    "tau_ap": tau_ap(theirs, ours),
                    "changed": int(changed["flipped"].sum()),
                    "pairs": len(changed),
                }
            )
    return JudgeConclusions(reference, scores, pd.DataFrame(rows), pairs)


def _by_judge(
    qrels: Mapping[Hashable, pd.DataFrame] | pd.DataFrame, columns: Any
) -> Mapping[Hashable, pd.DataFrame]:
    """A qrels frame with a judge column as one frame per judge (the column dropped)."""
    if not isinstance(qrels, pd.DataFrame):
        return qrels
    judge = as_column_map(columns).resolve(qrels).judge
    if judge is None:
        msg = (
            f"qrels has no judge column (columns: {list(qrels.columns)}); give a mapping "
            "such as {'human': qrels, 'llm': llm_qrels}, or a frame with a 'judge' column "
            "(another name: qrels_columns={'judge': '<column>'})"
        )
        raise SchemaError(msg)
    values = qrels[judge]
    if values.isna().any():
        msg = f"the judge column {judge!r} has missing values; every judgment names its judge"
        raise SchemaError(msg)
    names = values.cat.categories if isinstance(values.dtype, pd.CategoricalDtype) else None
    order = list(values.unique()) if names is None else [n for n in names if (values == n).any()]
    return {name: qrels[(values == name).to_numpy()].drop(columns=judge) for name in order}


def _scores(compared: Mapping[Hashable, pd.DataFrame]) -> pd.DataFrame:
    """Mean per run and (judge, metric), from the comparisons' two sides."""
    columns = {}
    for judge, table in compared.items():
        both = pd.concat(
            [
                table[["run", "metric", "mean"]],
                table[["baseline", "metric", "baseline_mean"]].set_axis(
                    ["run", "metric", "mean"], axis=1
                ),
            ]
        ).drop_duplicates(["run", "metric"])
        for metric, part in both.groupby("metric", sort=False):
            columns[(judge, metric)] = part.set_index("run")["mean"]
    if any(len(column) < 2 for column in columns.values()):
        msg = "judge_conclusions needs two or more runs (a run column with two values)"
        raise SchemaError(msg)
    frame = pd.DataFrame(columns).sort_index()
    frame.columns = pd.MultiIndex.from_tuples(list(columns), names=["judge", "metric"])
    frame.index.name = "run"
    return frame


def _conclusion(table: pd.DataFrame) -> np.ndarray:
    delta = table["delta"].to_numpy(dtype=np.float64)
    significant = table["significant"].to_numpy(dtype=bool)
    return np.where(significant, np.where(delta > 0, _BETTER, _WORSE), _NONE)


def _pairs(compared: Mapping[Hashable, pd.DataFrame], reference: Hashable) -> pd.DataFrame:
    """Every pairwise conclusion under each judge, next to the reference judge's."""
    keys = ["run", "baseline", "metric"]
    ours = compared[reference][keys].assign(
        reference_delta=compared[reference]["delta"].to_numpy(),
        reference_conclusion=_conclusion(compared[reference]),
    )
    parts = []
    for judge, table in compared.items():
        mine = table[keys].assign(
            judge=pd.Series([judge] * len(table), index=table.index, dtype=object),
            delta=table["delta"].to_numpy(),
            conclusion=_conclusion(table),
        )
        parts.append(mine.merge(ours, on=keys, how="outer"))
    pairs = pd.concat(parts, ignore_index=True)
    pairs["flipped"] = pairs["conclusion"] != pairs["reference_conclusion"]
    order = ["judge", *keys, "delta", "conclusion", "reference_delta", "reference_conclusion"]
    return pairs[[*order, "flipped"]]
