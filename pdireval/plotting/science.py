"""Figures of risk, all-pairs tests and judges, drawn with matplotlib.

:func:`risk_plot` shows, run by run, how many queries a run wins and loses against a
baseline and by how much, with its TRisk; :func:`pairs_heatmap` shows the p-values of
all pairs of runs (:func:`pdireval.tukey_hsd`) as a matrix; :func:`judges_scatter` shows
each run's score under two judges (:func:`pdireval.judge_conclusions`); :func:`asl_plot`
and :func:`topics_plot` compare measures: how many pairs of runs each tells apart, and
how steady its conclusions stay on fewer topics. Each draws on
``ax`` (or on a new figure when ``ax`` is None) and returns the Axes; nothing is shown and
no global matplotlib setting is changed. matplotlib is optional (``pip install
'pdireval[plot]'``) and imported only when a figure is drawn.

Examples
--------
>>> import matplotlib
>>> matplotlib.use("Agg")
>>> import pdireval
>>> from pdireval.plotting import risk_plot
>>> from pdireval.datasets import example
>>> ax = risk_plot(example(), "AP", baseline="medium")
>>> [label.get_text() for label in ax.get_yticklabels()]
['strong', 'weak']
"""

from __future__ import annotations

from collections.abc import Hashable, Sequence
from typing import TYPE_CHECKING, Any, Unpack

import numpy as np
import pandas as pd

from pdireval._core import escape
from pdireval._core.errors import MetricError, ParameterError, SchemaError
from pdireval._core.options import EVALUATION, takes
from pdireval.engine.runs import matrices
from pdireval.plotting._look import legend, pyplot
from pdireval.plotting._styles import COLOURS, LINESTYLES, MARKERS
from pdireval.stats.risk import TRISK_THRESHOLD, _alphas, _baseline_of, urisk_trisk
from pdireval.stats.tukey import _run_means

if TYPE_CHECKING:  # pragma: no cover - for type checkers only
    from matplotlib.axes import Axes

    from pdireval.judgments.conclusions import JudgeConclusions
    from pdireval.typing import ColumnsLike, EvaluationOptions, MetricLike

__all__ = ["asl_plot", "judges_scatter", "pairs_heatmap", "risk_plot", "topics_plot"]

_GAINS = ("#c7e9c0", "#74c476", "#238b45")
_LOSSES = ("#fcbba1", "#fb6a4a", "#cb181d")


def _axes(ax: Axes | None, size: tuple[float, float]) -> Axes:
    if ax is not None:
        return ax
    _, new = pyplot().subplots(figsize=size, layout="constrained")
    return new


def _edges(bins: Sequence[float]) -> list[float]:
    values = list(bins)
    ok = all(
        not isinstance(v, bool) and isinstance(v, int | float | np.number) and v > 0 for v in values
    )
    if not values or not ok or sorted(values) != values or len(set(values)) != len(values):
        msg = f"bins={bins!r} must be increasing positive numbers, e.g. (0.1, 0.3)"
        raise ParameterError(msg)
    return [float(v) for v in values]


@takes(EVALUATION)
def risk_plot(
    frame: pd.DataFrame,
    metric: MetricLike,
    *,
    baseline: Hashable,
    alpha: float = 1.0,
    bins: Sequence[float] = (0.1, 0.3),
    ax: Axes | None = None,
    columns: ColumnsLike = None,
    **options: Unpack[EvaluationOptions],
) -> Axes:
    """Per-query wins and losses of every run against a baseline, by size, with TRisk.

    Parameters
    ----------
    frame : DataFrame
        Long frame with a run column holding at least two runs.
    metric : str or Metric
        One measure.
    baseline : run id
        The run the others are compared with.
    alpha : float
        Risk aversion of the TRisk shown next to each run (default 1).
    bins : sequence of float
        Edges that split the size of a per-query difference into classes, drawn from
        light to dark (default: below 0.1, 0.1 to 0.3, 0.3 and more).
    ax : matplotlib Axes, optional
        Where to draw; a new figure when omitted.
    columns, **options
        Column roles and evaluation options, as in :func:`pdireval.risk`.

    Returns
    -------
    matplotlib Axes
        One row per run: losses to the left of 0, wins to the right (numbers of
        queries), and the run's TRisk on the right, marked ``*`` beyond +-2.

    Raises
    ------
    SchemaError, MetricError
        As in :func:`pdireval.risk`; more than one metric.
    MissingDependencyError
        matplotlib is not installed.

    Examples
    --------
    >>> import matplotlib
    >>> matplotlib.use("Agg")
    >>> from pdireval.plotting import risk_plot
    >>> from pdireval.datasets import example
    >>> ax = risk_plot(example(), "nDCG@10", baseline="medium", alpha=5)
    >>> ax.get_xlabel()
    'Queries lost (left) and won (right) against medium'
    """
    pyplot()  # matplotlib first: a user without it hears that before anything else
    from matplotlib.transforms import ScaledTranslation

    (level,) = _alphas([alpha])
    edges = _edges(bins)
    found = list(matrices(frame, metric, columns, options, "risk_plot", one=True))
    if len(found) != 1:
        msg = f"risk_plot draws one metric, got {[m.metric for m in found]}"
        raise MetricError(msg)
    matrix = found[0]
    base = _baseline_of(matrix, baseline)
    others = [run for run in matrix.runs if run != base]
    position = matrix.runs.index(base)
    differences = np.delete(matrix.values, position, axis=1).T - matrix.values[:, position]
    differences[np.abs(differences) <= 1e-12] = 0.0
    _, trisk = urisk_trisk(differences, level)
    limits = [0.0, *edges, np.inf]
    ax = _axes(ax, (7.0, 2.4 + 0.45 * len(others)))
    rows = np.arange(len(others))[::-1]
    ax.spines[["top", "right"]].set_visible(False)
    for i in range(len(limits) - 1):
        low, high = limits[i], limits[i + 1]
        size = np.abs(differences)
        in_class = (size > low) & (size <= high) if i else (size > 0) & (size <= high)
        wins = ((differences > 0) & in_class).sum(axis=1)
        losses = ((differences < 0) & in_class).sum(axis=1)
        start_w = ((differences > 0) & (size <= low) & (size > 0)).sum(axis=1)
        start_l = ((differences < 0) & (size <= low) & (size > 0)).sum(axis=1)
        label = f"{low:g}-{high:g}" if np.isfinite(high) else f">{low:g}"
        ax.barh(rows, wins, left=start_w, color=_GAINS[min(i, 2)], label=f"win {label}")
        ax.barh(rows, -losses, left=-start_l, color=_LOSSES[min(i, 2)], label=f"loss {label}")
    n = differences.shape[1]
    ax.axvline(0, color="0.2", linewidth=0.8)
    ax.set_xlim(-n * 1.02, n * 1.02)
    ax.set_yticks(rows, [escape.matplotlib(run) for run in others])
    marks = ["*" if abs(value) > TRISK_THRESHOLD else "" for value in trisk]
    right = ax.secondary_yaxis("right")
    right.set_yticks(rows, [f"TRisk {v:.2f}{m}" for v, m in zip(trisk, marks, strict=True)])
    right.spines["right"].set_visible(False)
    right.tick_params(length=0)
    ax.set_xlabel(f"Queries lost (left) and won (right) against {escape.matplotlib(base)}")
    ax.set_title(f"{escape.matplotlib(matrix.metric)}: per-query differences, alpha = {level:g}")
    below: dict[str, Any] = {  # under the x label, whatever the figure's height
        "bbox_to_anchor": (0.5, 0.0),
        "bbox_transform": ax.transAxes
        + ScaledTranslation(0.0, -0.5, ax.figure.dpi_scale_trans),  # half an inch
        "ncol": len(limits) - 1,
        "fontsize": 8,
        "title": "size of the per-query difference",
        "frameon": False,
    }
    ax.legend(loc="upper center", **below)
    return ax


def pairs_heatmap(
    pairs: pd.DataFrame, metric: str | None = None, *, ax: Axes | None = None
) -> Axes:
    """The p-values of all pairs of runs as a matrix, runs ordered by their mean.

    Parameters
    ----------
    pairs : DataFrame
        All pairs of runs with columns ``run``, ``baseline``, ``metric``, ``mean``,
        ``baseline_mean``, ``p_value`` and ``significant``: what
        :func:`pdireval.tukey_hsd` returns.
    metric : str, optional
        The metric to draw; may be omitted when ``pairs`` holds one.
    ax : matplotlib Axes, optional
        Where to draw; a new figure when omitted.

    Returns
    -------
    matplotlib Axes
        Cell (i, j) is coloured by the p-value of runs i and j (dark: small) and
        labelled with it, in bold when the pair differs significantly.

    Raises
    ------
    SchemaError
        A column is missing, or ``metric`` names no metric of ``pairs``.
    MissingDependencyError
        matplotlib is not installed.

    Examples
    --------
    >>> import matplotlib
    >>> matplotlib.use("Agg")
    >>> import pdireval
    >>> from pdireval.plotting import pairs_heatmap
    >>> from pdireval.datasets import example
    >>> pairs = pdireval.tukey_hsd(example(), "AP", n_resamples=1000, seed=1)
    >>> ax = pairs_heatmap(pairs)
    >>> [label.get_text() for label in ax.get_xticklabels()]
    ['strong', 'medium', 'weak']
    """
    plt = pyplot()
    chosen, block = _pairs_of_metric(pairs, metric)
    order, p, significant = _pair_matrices(block)
    ax = _axes(ax, (1.6 + 0.7 * len(order), 1.2 + 0.6 * len(order)))
    image = ax.imshow(p, cmap="viridis", vmin=0.0, vmax=1.0)
    _label_cells(ax, p, significant)
    labels = [escape.matplotlib(run) for run in order]
    ax.set_xticks(range(len(order)), labels, rotation=45, ha="right")
    ax.set_yticks(range(len(order)), labels)
    ax.set_title(f"{escape.matplotlib(chosen)}: p-values of all pairs (bold: significant)")
    plt.colorbar(image, ax=ax, label="p-value", shrink=0.8)
    return ax


def _pairs_of_metric(pairs: pd.DataFrame, metric: str | None) -> tuple[Any, pd.DataFrame]:
    """The metric to draw (``metric``, or the only one of ``pairs``) and its pairs."""
    needed = ("run", "baseline", "metric", "mean", "baseline_mean", "p_value", "significant")
    missing = [column for column in needed if column not in pairs.columns]
    if missing:
        msg = f"pairs_heatmap needs columns {list(needed)}; {missing} are missing"
        raise SchemaError(msg)
    metrics = list(dict.fromkeys(pairs["metric"]))
    if metric is None and len(metrics) != 1:
        msg = f"the pairs hold several metrics {metrics}; name one with metric="
        raise SchemaError(msg)
    chosen = metrics[0] if metric is None else metric
    if chosen not in metrics:
        msg = f"metric {chosen!r} is not in the pairs (metrics: {metrics})"
        raise SchemaError(msg)
    return chosen, pairs[pairs["metric"] == chosen]


def _pair_matrices(block: pd.DataFrame) -> tuple[list[Hashable], np.ndarray, np.ndarray]:
    """The runs by their mean, highest first, and the symmetric matrices of their pairs'
    p-values (NaN on the diagonal) and significance.
    """
    means = _run_means(block)
    order = sorted(means, key=lambda run: -means[run])
    index = {run: i for i, run in enumerate(order)}
    p = np.full((len(order), len(order)), np.nan)
    significant = np.zeros_like(p, dtype=bool)
    for run, base, value, flag in zip(
        block["run"], block["baseline"], block["p_value"], block["significant"], strict=True
    ):
        i, j = index[run], index[base]
        p[i, j] = p[j, i] = value
        significant[i, j] = significant[j, i] = bool(flag)
    return order, p, significant


def _label_cells(ax: Axes, p: np.ndarray, significant: np.ndarray) -> None:
    """Write each pair's p-value in its cell, in bold when the pair differs significantly."""
    for i in range(len(p)):
        for j in range(len(p)):
            if i == j:
                continue
            ax.text(
                j,
                i,
                "<0.001" if p[i, j] < 0.001 else f"{p[i, j]:.3f}",
                ha="center",
                va="center",
                fontsize=8,
                color="white" if p[i, j] < 0.5 else "black",
                fontweight="bold" if significant[i, j] else "normal",
            )


def judges_scatter(
    found: JudgeConclusions,
    metric: Hashable,
    *,
    judge: Hashable | None = None,
    ax: Axes | None = None,
) -> Axes:
    """Each run's score under the reference judge (x) against another judge (y).

    Parameters
    ----------
    found : JudgeConclusions
        What :func:`pdireval.judge_conclusions` returned.
    metric : str
        One of its metrics, as labelled in ``found.scores``.
    judge : hashable, optional
        The judge on the y axis; by default the first that is not the reference.
    ax : matplotlib Axes, optional
        Where to draw; a new figure when None.

    Returns
    -------
    matplotlib Axes
        Points named by run, the diagonal (equal scores), and Kendall's tau in the title.

    Examples
    --------
    >>> import matplotlib
    >>> matplotlib.use("Agg")
    >>> import pdireval
    >>> from pdireval.datasets import example_qrels, example_run
    >>> from pdireval.plotting import judges_scatter
    >>> human = example_qrels()
    >>> strict = human.assign(rel=(human["rel"] >= 2).astype("int64"))
    >>> found = pdireval.judge_conclusions(example_run(), {"human": human, "strict": strict},
    ...                                    "AP")
    >>> ax = judges_scatter(found, "AP")
    >>> ax.get_xlabel(), ax.get_ylabel()
    ('AP under human', 'AP under strict')
    """
    judges = list(dict.fromkeys(found.scores.columns.get_level_values("judge")))
    others = [name for name in judges if name != found.reference]
    chosen = others[0] if judge is None else judge
    if chosen not in others:
        msg = f"judge={chosen!r} is not one of the judges held against the reference: {others}"
        raise SchemaError(msg)
    metrics = list(dict.fromkeys(found.scores.columns.get_level_values("metric")))
    if metric not in metrics:
        msg = f"metric {metric!r} was not evaluated; the metrics are {metrics}"
        raise MetricError(msg)
    x = found.scores[(found.reference, metric)]
    y = found.scores[(chosen, metric)]
    ax = _axes(ax, (5.0, 4.6))
    low = float(min(x.min(), y.min()))
    high = float(max(x.max(), y.max()))
    margin = 0.05 * max(high - low, 1e-9)
    ax.plot([low - margin, high + margin], [low - margin, high + margin], color="0.75", lw=1)
    ax.scatter(x.to_numpy(), y.to_numpy(), color="#1f77b4", zorder=3)
    for run in x.index:
        ax.annotate(
            escape.matplotlib(run),
            (float(x[run]), float(y[run])),
            xytext=(5, 4),
            textcoords="offset points",
            fontsize=8,
        )
    row = found.agreement[
        (found.agreement["judge"] == chosen) & (found.agreement["metric"] == metric)
    ]
    tau = float(row["kendall"].iloc[0]) if len(row) else float("nan")
    name, ref, other = (escape.matplotlib(v) for v in (metric, found.reference, chosen))
    ax.set_xlabel(f"{name} under {ref}")
    ax.set_ylabel(f"{name} under {other}")
    ax.set_title(f"Runs under two judges: Kendall's tau = {tau:.3f}")
    ax.set_xlim(low - margin, high + 3 * margin)
    ax.set_ylim(low - margin, high + 3 * margin)
    return ax


def _metric_lines(ax: Axes, table: pd.DataFrame, x: str, y: str) -> list[str]:
    """One line per metric (in the table's order), styled by its position."""
    names = []
    for at, (metric, rows) in enumerate(table.groupby("metric", sort=False)):
        ax.plot(
            rows[x].to_numpy(dtype=np.float64),
            rows[y].to_numpy(dtype=np.float64),
            color=COLOURS[at % len(COLOURS)],
            marker=MARKERS[(at // len(COLOURS)) % len(MARKERS)],
            linestyle=LINESTYLES[(at // len(COLOURS)) % len(LINESTYLES)],
            markersize=4,
            label=escape.matplotlib(metric),
        )
        names.append(escape.matplotlib(metric))
    return names


def _refuse_columns(table: Any, needed: Sequence[str], made_by: str) -> None:
    if not isinstance(table, pd.DataFrame) or not set(needed) <= set(table.columns):
        found = list(table.columns) if isinstance(table, pd.DataFrame) else type(table).__name__
        msg = f"expected the table {made_by} returns (columns {list(needed)}), got {found}"
        raise SchemaError(msg)


def asl_plot(curves: pd.DataFrame, *, alpha: float = 0.05, ax: Axes | None = None) -> Axes:
    """Achieved significance level curves: each measure's ASLs, sorted, against the pairs.

    Sakai (2006) compares measures by how many pairs of runs they tell apart: for each
    measure the bootstrap ASL of every pair, sorted from smallest; the further a curve
    stays below ``alpha``, the more discriminative the measure.

    Parameters
    ----------
    curves : DataFrame
        What :func:`pdireval.asl_curve` returned.
    alpha : float
        The significance level drawn as a horizontal line (default 0.05).
    ax : matplotlib Axes, optional
        Where to draw; a new figure when None.

    Returns
    -------
    matplotlib Axes
        One line per measure (pairs sorted by ASL on the x axis), the level ``alpha``,
        and each measure's discriminative power (the share of pairs below ``alpha``) in
        the legend.

    References
    ----------
    T. Sakai (2006), Evaluating evaluation metrics based on the bootstrap, SIGIR.

    Examples
    --------
    >>> import matplotlib
    >>> matplotlib.use("Agg")
    >>> import pdireval
    >>> from pdireval.datasets import example
    >>> from pdireval.plotting import asl_plot
    >>> curves = pdireval.asl_curve(example(), ["AP", "P@10"], n_resamples=200, seed=0)
    >>> ax = asl_plot(curves)
    >>> ax.get_ylabel()
    'achieved significance level'
    """
    _refuse_columns(curves, ("metric", "asl"), "pdireval.asl_curve")
    level = float(alpha)
    if not 0.0 < level < 1.0:
        msg = f"alpha={alpha!r} must be a level between 0 and 1, e.g. 0.05"
        raise ParameterError(msg)
    ranked = curves.assign(
        pair=curves.groupby("metric", sort=False).cumcount() + 1,
        asl=curves.groupby("metric", sort=False)["asl"].transform(
            lambda values: np.sort(values.to_numpy(dtype=np.float64))
        ),
    )
    ax, owned = _axes(ax, (5.6, 4.0)), ax is None
    _metric_lines(ax, ranked, "pair", "asl")
    ax.axhline(level, color="0.4", lw=1, linestyle="--")
    ax.annotate(
        f"alpha = {level:g}",
        (1.0, level),
        xycoords=("axes fraction", "data"),
        xytext=(-4, 3),
        textcoords="offset points",
        ha="right",
        fontsize=8,
        color="0.3",
    )
    power = ranked.groupby("metric", sort=False)["asl"].apply(lambda v: float((v < level).mean()))
    handles = ax.get_lines()[: len(power)]
    labels = [f"{escape.matplotlib(m)}: {share:.0%} of pairs" for m, share in power.items()]
    legend(ax, handles, labels, owned=owned, title="discriminative power")
    ax.set_xlabel("pairs of runs, sorted by ASL")
    ax.set_ylabel("achieved significance level")
    ax.set_ylim(0.0, max(float(ranked["asl"].max()), level) * 1.05 + 1e-3)
    ax.set_title("Which measure tells the runs apart?")
    return ax


def topics_plot(table: pd.DataFrame, *, ax: Axes | None = None) -> Axes:
    """How steady each measure's conclusions stay on fewer topics.

    Parameters
    ----------
    table : DataFrame
        What :func:`pdireval.swap_rate` returned (the swap rate against the topic set
        size: Voorhees & Buckley 2002) or :func:`pdireval.ranking_stability` (the mean
        Kendall's tau between the run ordering on a subset and on all topics).
    ax : matplotlib Axes, optional
        Where to draw; a new figure when None.

    Returns
    -------
    matplotlib Axes
        One line per measure against the number of topics.

    Examples
    --------
    >>> import matplotlib
    >>> matplotlib.use("Agg")
    >>> import pdireval
    >>> from pdireval.datasets import example
    >>> from pdireval.plotting import topics_plot
    >>> ax = topics_plot(pdireval.swap_rate(example(), ["AP", "P@10"], seed=0))
    >>> ax.get_ylabel()
    'swap rate'
    """
    if isinstance(table, pd.DataFrame) and "swap_rate" in table.columns:
        y, label, title = "swap_rate", "swap rate", "Conclusions that swap on fewer topics"
    else:
        _refuse_columns(table, ("metric", "size", "tau_mean"), "pdireval.ranking_stability")
        y, label = "tau_mean", "Kendall's tau with all topics (mean)"
        title = "Run orderings on fewer topics"
    _refuse_columns(table, ("metric", "size", y), "pdireval.swap_rate")
    ax, owned = _axes(ax, (5.6, 4.0)), ax is None
    names = _metric_lines(ax, table, "size", y)
    legend(ax, ax.get_lines()[: len(names)], names, owned=owned, title="measure")
    ax.set_xlabel("topics")
    ax.set_ylabel(label)
    ax.set_title(title)
    return ax
