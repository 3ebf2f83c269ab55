"""The figure of an LLM judge's bias: each run's bias with its interval, and each run's
mean under gold labels against its mean under the LLM's, the pairs of runs the LLM
orders differently joined by a line.
"""

from __future__ import annotations

from collections.abc import Hashable
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd

from pdireval._core.errors import MetricError, SchemaError
from pdireval.plotting import _look as look
from pdireval.plotting._styles import run_styles
from pdireval.plotting.science import MAX_NAMED_POINTS, _name_points, _wrapped

if TYPE_CHECKING:  # pragma: no cover - for type checkers only
    from matplotlib.axes import Axes

    from pdireval.judgments.bias import JudgeBias

__all__ = ["SWAP_COLOUR", "judge_bias_plot"]

#: The colour of the lines joining two runs the LLM orders differently from gold.
SWAP_COLOUR = "#cb181d"


def _metric_of(result: JudgeBias, metric: Hashable | None) -> Hashable:
    if not hasattr(result, "bias") or not hasattr(result, "pairs"):
        msg = f"expected what pdireval.judge_bias returns, got {type(result).__name__}"
        raise SchemaError(msg)
    metrics = list(dict.fromkeys(result.bias["metric"]))
    if metric is None:
        if len(metrics) != 1:
            msg = f"the result holds several metrics {metrics}; name one with metric="
            raise MetricError(msg)
        return metrics[0]
    if metric not in metrics:
        msg = f"metric {metric!r} was not evaluated; the metrics are {metrics}"
        raise MetricError(msg)
    return metric


@look.drawing
def judge_bias_plot(
    result: JudgeBias,
    metric: Hashable | None = None,
    *,
    axes: tuple[Axes, Axes] | None = None,
) -> tuple[Axes, Axes]:
    """Each run's bias under an LLM judge, and the runs under gold and LLM labels.

    Parameters
    ----------
    result : JudgeBias
        What :func:`pdireval.judge_bias` returned.
    metric : str, optional
        One of its metrics; may be omitted when it has one.
    axes : pair of matplotlib Axes, optional
        Where to draw the two panels; a new figure when None.

    Returns
    -------
    tuple of two matplotlib Axes
        Left: one row per run, in the runs' order from the top (long names broken at
        spaces; a new figure widens for them), the bias ``LLM - gold`` as a point in the
        run's colour and marker with its interval, and a line at 0. Right: each run's
        mean under gold labels (x) against its mean under the LLM's labels (y), the
        diagonal (no bias), and a red line joining each pair of runs the LLM orders
        differently (their number in the title). Up to eight runs are named beside their
        points where there is room, else in a legend below.

    Raises
    ------
    MetricError
        ``metric`` was not evaluated, or omitted for a result of several metrics.
    MissingDependencyError
        matplotlib is not installed.

    Examples
    --------
    >>> import matplotlib
    >>> matplotlib.use("Agg")
    >>> import pdireval
    >>> from pdireval.datasets import example_qrels, example_run
    >>> from pdireval.plotting import judge_bias_plot
    >>> human = example_qrels()
    >>> llm = human.assign(rel=human["rel"].clip(upper=1))
    >>> found = pdireval.judge_bias(example_run(), "nDCG@10", qrels=llm, gold=human)
    >>> left, right = judge_bias_plot(found)
    >>> [label.get_text() for label in left.get_yticklabels()]
    ['strong', 'medium', 'weak']
    >>> right.get_xlabel(), right.get_ylabel()
    ('nDCG@10 under gold labels', 'nDCG@10 under LLM labels')
    """
    chosen = _metric_of(result, metric)
    rows = result.bias[result.bias["metric"] == chosen]
    pairs = result.pairs[(result.pairs["metric"] == chosen) & result.pairs["swapped"]]
    runs = list(rows["run"])
    styles = run_styles(runs)
    with look.style() as plt:
        owned = axes is None
        if axes is None:
            height = max(3.4, 1.4 + 0.42 * len(runs))
            _, made = plt.subplots(1, 2, figsize=(10.0, height), layout="constrained")
            left, right = made[0], made[1]
        else:
            left, right = axes
        _bias_panel(left, rows, styles, result.alpha)
        handles = _scatter_panel(right, rows, pairs, styles)
        if owned:
            look.widen_for_ticks(left)
        names = [look.name(run) for run in runs]
        short = [_wrapped(run) for run in runs]
        points = rows[["gold_mean", "llm_mean"]].to_numpy(np.float64)
        if len(runs) > MAX_NAMED_POINTS or not _name_points(right, points, short):
            look.legend(right, handles, names, owned=owned, title="Run")
    return left, right


def _bias_panel(ax: Axes, rows: pd.DataFrame, styles: dict[Hashable, Any], alpha: float) -> None:
    """The bias of each run, top to bottom in the runs' order, with its interval."""
    at = np.arange(len(rows))[::-1].astype(np.float64)
    bias = rows["bias"].to_numpy(np.float64)
    low, high = rows["ci_low"].to_numpy(np.float64), rows["ci_high"].to_numpy(np.float64)
    ax.axvline(0, color="0.45", linewidth=0.9, zorder=1)
    for y, value, lo, hi, (run, style) in zip(at, bias, low, high, styles.items(), strict=True):
        ax.plot([lo, hi], [y, y], color=style.color, linewidth=1.6, zorder=2, label="_interval")
        ax.plot(
            [value],
            [y],
            linestyle="none",
            marker=style.marker,
            markersize=6.5,
            color=style.color,
            zorder=3,
            label=look.name(run),
        )
    ax.set_yticks(at, [_wrapped(run) for run in styles])
    ax.set_ylim(-0.7, len(rows) - 0.3)
    metric = look.name(rows["metric"].iloc[0])
    ax.set_xlabel(f"{metric}: LLM labels \u2212 gold labels (mean per query)")
    ax.set_title(f"Bias of the LLM judge, {1 - alpha:.0%} intervals")
    ax.grid(True, axis="x", alpha=0.3)


def _scatter_panel(
    ax: Axes, rows: pd.DataFrame, swapped: pd.DataFrame, styles: dict[Hashable, Any]
) -> list[Any]:
    """Gold mean (x) against LLM mean (y) per run, pairs ordered differently joined."""
    gold = rows["gold_mean"].to_numpy(np.float64)
    llm = rows["llm_mean"].to_numpy(np.float64)
    low, high = float(min(gold.min(), llm.min())), float(max(gold.max(), llm.max()))
    margin = 0.08 * max(high - low, 1e-9)
    span = (low - margin, high + margin)
    ax.plot(span, span, color="0.75", lw=1, zorder=1, label="_no bias")
    where = {run: at for at, run in enumerate(rows["run"])}
    for run, other in zip(swapped["run"], swapped["other"], strict=True):
        i, j = where[run], where[other]
        ax.plot(
            [gold[i], gold[j]],
            [llm[i], llm[j]],
            color=SWAP_COLOUR,
            linewidth=1.4,
            linestyle="--",
            zorder=2,
            label="_ordered differently",
        )
    handles = [
        ax.scatter(
            x, y, s=42, color=style.color, marker=style.marker, zorder=3, label=look.name(run)
        )
        for x, y, (run, style) in zip(gold, llm, styles.items(), strict=True)
    ]
    metric = look.name(rows["metric"].iloc[0])
    ax.set_xlim(*span)
    ax.set_ylim(*span)
    ax.set_xlabel(f"{metric} under gold labels")
    ax.set_ylabel(f"{metric} under LLM labels")
    count = len(swapped)
    ax.set_title(
        f"{count} pair{'' if count == 1 else 's'} of runs ordered differently"
        + (" (red)" if count else "")
    )
    ax.grid(True, alpha=0.3)
    return handles
