"""Do a paper's conclusions survive a change of judge? The same runs evaluated under
several sets of judgments (human assessors, an LLM judge, a re-judged pool): each run's
score under each judge, how each judge orders the runs against a reference judge, and
which pairwise significance conclusions change.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Hashable, Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from pdireval._core.errors import SchemaError
from pdireval._core.options import EVALUATION, SIGNIFICANCE, excluding, takes
from pdireval._core.roles import as_column_map
from pdireval.typing import ColumnsLike

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
        Mean of each metric per run (rows, in the runs' order: as they first appear in
        the frame, or a categorical's categories) and (judge, metric) (columns).
    agreement : DataFrame
        Per (judge, metric), the judges other than the reference: ``kendall``
        (Kendall's tau-b), ``tau_ap`` and ``tau_ap_b`` between the run ordering of that
        judge and the reference's, ``changed`` (how many pairwise conclusions changed)
        and ``pairs``. ``tau_ap`` (Yilmaz, Aslam & Robertson 2008) takes the
        reference's ordering as the truth and walks down the judge's ordering, best
        run first, so that a disagreement about the best runs costs most; it is
        defined for orderings without ties and NaN where two runs tie on a mean under
        either judge (P@10 on 50 topics often ties). ``tau_ap_b`` (Urbano & Marrero
        2017) is the AP correlation of orderings with ties (symmetric; see
        :func:`pdireval.stats.correlation.tau_ap_b`).
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


@takes(excluding(SIGNIFICANCE, "baseline"), EVALUATION)
def judge_conclusions(
    run: pd.DataFrame,
    qrels: Mapping[Hashable, pd.DataFrame] | pd.DataFrame,
    metrics: Any,
    *,
    reference: Hashable | None = None,
    columns: ColumnsLike = None,
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
    columns : ColumnMap or dict, optional
        Which column of ``run`` plays which role.
    **options
        The significance and evaluation options of :func:`pdireval.compare` (below),
        applied under every judge; every pair of runs is compared.

    Returns
    -------
    JudgeConclusions
        ``scores``, ``agreement`` (Kendall's tau, tau_AP and tau_AP,b of each judge's
        run order against the reference's, and how many conclusions changed) and ``pairs``
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
    The run is evaluated once with every judge's labels (as ``qrels=`` with a judge
    column evaluates it), so each judge's numbers are those of the run evaluated with
    that judge's qrels alone; the comparisons, and their correction for multiple
    comparisons, are made under each judge on its own. A frame with several
    collections is refused: select one first. The conclusion for a pair is the sign of the
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
    strong  0.8781  0.8847
    medium  0.5756  0.6617
    weak    0.2161  0.1894
    >>> found.agreement[["judge", "metric", "kendall", "changed"]]
        judge metric  kendall  changed
    0  strict     AP      1.0        0
    """
    from pdireval._core.options import split_options
    from pdireval.engine.runs import evaluated
    from pdireval.stats.comparison import compare_table
    from pdireval.stats.correlation import kendall, tau_ap, tau_ap_b

    judgments, judges = _by_judge(qrels, options.pop("qrels_columns", None))
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
    evaluation, significance = split_options({**options, **judgments})
    found = evaluated(run, metrics, columns, evaluation, "judge_conclusions")
    found.refuse_more_than_one("collection", "judge_conclusions")
    level = found.levels.judge
    compared = {
        judge: compare_table(
            found.table.xs(judge, level=level, drop_level=True).pipe(pd.DataFrame),
            significance,
            dataclasses.replace(found.levels, judge=None),
            runs=found.runs,
        )
        for judge in judges
    }
    scores = _scores(found, judges)
    pairs = _pairs(compared, reference)
    rows = []
    for judge in judges:
        if judge == reference:
            continue
        for metric in found.table.columns:
            theirs, ours = scores[(judge, metric)], scores[(reference, metric)]
            changed = pairs[(pairs["judge"] == judge) & (pairs["metric"] == metric)]
            tied = theirs.duplicated().any() or ours.duplicated().any()
            rows.append(
                {
                    "judge": judge,
                    "metric": metric,
                    "kendall": kendall(theirs, ours),
                    "tau_ap": np.nan if tied else tau_ap(theirs, ours, descending=True),
                    "tau_ap_b": tau_ap_b(theirs, ours, descending=True),
                    "changed": int(changed["flipped"].sum()),
                    "pairs": len(changed),
                }
            )
    return JudgeConclusions(reference, scores, pd.DataFrame(rows), pairs)


def _by_judge(
    qrels: Mapping[Hashable, pd.DataFrame] | pd.DataFrame, columns: Any
) -> tuple[dict[str, Any], list[Hashable]]:
    """The judgments as ``qrels=``/``qrels_columns=`` options of one frame with a judge
    column, and the judges in their order (a mapping's; a categorical's categories; else
    as they first appear).
    """
    from pdireval._core.options import judgments_of
    from pdireval.engine.runs import run_order

    if not isinstance(qrels, pd.DataFrame):
        if not isinstance(qrels, Mapping):
            msg = (
                "qrels must be a mapping of judge name to judgments, or one frame with a "
                f"judge column; got {type(qrels).__name__}"
            )
            raise SchemaError(msg)
        given = as_column_map(columns).remap(judge=False) if columns is not None else None
        frame = judgments_of(dict(qrels), given) if qrels else None
        names = list(qrels)
        roles = None if given is None else given.remap(judge="judge")
        return {"qrels": frame, "qrels_columns": roles}, names
    judge = as_column_map(columns).resolve(qrels).judge
    if judge is None:
        msg = (
            f"qrels has no judge column (columns: {list(qrels.columns)}); give a mapping "
            "such as {'human': qrels, 'llm': llm_qrels}, or a frame with a 'judge' column "
            "(another name: qrels_columns={'judge': '<column>'})"
        )
        raise SchemaError(msg)
    if qrels[judge].isna().any():
        msg = f"the judge column {judge!r} has missing values; every judgment names its judge"
        raise SchemaError(msg)
    return {"qrels": qrels, "qrels_columns": columns}, run_order(qrels, judge) or []


def _scores(found: Any, judges: list[Hashable]) -> pd.DataFrame:
    """Mean of each metric per run (rows, in the runs' order) and (judge, metric)."""
    levels = found.levels
    means = found.table.groupby(level=[levels.run, levels.judge], observed=True).mean()
    wide = means.unstack(level=levels.judge)  # columns (metric, judge)
    wide.columns = wide.columns.set_names(["metric", "judge"])
    wide = wide.swaplevel(axis=1)
    order = [(judge, metric) for judge in judges for metric in found.table.columns]
    frame = wide.reindex(
        index=pd.Index(found.runs, name="run"),
        columns=pd.MultiIndex.from_tuples(order, names=["judge", "metric"]),
    )
    return frame.astype(np.float64)


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
