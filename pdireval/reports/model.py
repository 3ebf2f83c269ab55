"""Reports for papers, spreadsheets and notebooks: one object, several renderings.

:func:`pdireval.report` evaluates a frame once and returns a :class:`Report`: the
compact *paper table* (runs x metrics, the mean, optionally its confidence interval,
the best run of each metric in bold and a mark after every significant difference),
the comparison behind the marks, the per-query values and the settings. Every
rendering -- LaTeX, Markdown, HTML, Excel, CSV -- writes the same numbers with the same
marks and legend (:mod:`pdireval.reports.numbers`).
"""

from __future__ import annotations

import functools
import math
from collections.abc import Callable, Hashable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, cast

import numpy as np
import pandas as pd

from pdireval._core.errors import ParameterError
from pdireval.metrics._base import Metric
from pdireval.reports.formats import formats
from pdireval.reports.levels import cell_key
from pdireval.reports.numbers import (
    BETTER,
    WORSE,
    Marks,
    best_runs,
    format_delta,
    format_p,
    format_percent,
    format_value,
    interval_level,
    interval_note,
)

__all__ = ["Report", "definition"]

_MEAN_INTERVAL = "half-width of the 95% Student t interval of each mean."
_SEED_INTERVAL = "half-width of the 95% Student t interval across the seeds' means."

TIE_RULE = (
    "rank column order when present; otherwise score descending, equal scores ordered by the "
    "'ties' policy above (trec: doc id descending compared as strings, as trec_eval); "
    "per-query differences within 1e-12 count as ties"
)

#: The comparison's columns as a person reads them, in the order shown.
COMPARISON_HEADERS = {
    "run": "Run",
    "baseline": "Baseline",
    "metric": "Metric",
    "mean": "Mean",
    "baseline_mean": "Baseline mean",
    "delta": "Δ",
    "relative_delta": "Δ %",
    "ci_low": "Δ CI low",
    "ci_high": "Δ CI high",
    "p_value": "p",
    "p_adjusted": "p (adjusted)",
    "significant": "Significant",
    "effect_size": "Effect size (d)",
    "wins": "Wins",
    "ties": "Ties",
    "losses": "Losses",
}


def definition(metric: Metric) -> str:
    """First sentence of the metric family's docstring."""
    text = " ".join((metric.family.__doc__ or "").strip().split("\n\n")[0].split())
    end = text.find(". ")
    return text if end < 0 else text[: end + 1]


def _interval_texts(comparison: pd.DataFrame, digits: int) -> list[str]:
    """Each comparison's interval of Δ as ``[low, high]`` ('' when a bound is missing)."""
    return [
        f"[{format_delta(lo, digits)}, {format_delta(hi, digits)}]"
        if not (math.isnan(lo) or math.isnan(hi))
        else ""
        for lo, hi in zip(comparison["ci_low"], comparison["ci_high"], strict=True)
    ]


def _mark_texts(comparison: pd.DataFrame) -> list[str]:
    """Each comparison's mark: ▲ (significantly better), ▼ (worse) or ''."""
    return [
        (BETTER if d > 0 else WORSE) if s else ""
        for s, d in zip(comparison["significant"], comparison["delta"], strict=True)
    ]


class _PaperTable(pd.DataFrame):
    """The paper table of :meth:`Report.table`: a DataFrame of strings that prints whole.

    ``print`` and a notebook show every run and every column, however wide, where a
    DataFrame would cut the middle columns to fit the display; anything derived from it
    (a selection, a copy) is a plain DataFrame again.
    """

    @property
    def _constructor(self) -> type[pd.DataFrame]:
        return pd.DataFrame

    def __repr__(self) -> str:
        return self.to_string()

    def __str__(self) -> str:
        return self.to_string()

    def _repr_html_(self) -> str:
        return self.to_html()


@dataclass(frozen=True, repr=False)
class Report:
    """The results of several runs, ready to paste into a paper, a sheet or a notebook.

    Build one with :func:`pdireval.report` (or ``df.ireval.report``).

    Attributes
    ----------
    summary : DataFrame
        Mean of each metric: one row per run, one column per metric. The runs are in
        the frame's order, the baseline(s) first, as every rendering lists them.
    comparison : DataFrame
        The table of :func:`pdireval.compare`: one row per (run, baseline, metric).
    per_query : DataFrame
        Index (metric, query); columns (stat, run) as in :func:`pdireval.per_query`,
        each metric's block sorted by its own first difference.
    intervals : DataFrame
        Half-width of the 95% Student t interval of each mean (runs x metrics); NaN
        when a run has fewer than two queries.
    settings : dict
        Query policy, test, correction, alpha, resampling, baselines and version.
    efficiency : DataFrame or None
        Latency statistics per run (:func:`pdireval.efficiency`) when the frame has a
        time column.
    definitions : dict
        Metric label -> first sentence of its family's definition.
    within : tuple
        The judge and collection levels the runs were compared within (the names of
        the comparison's first columns); empty for a frame without them. The summary's
        columns are then (judge, collection, metric) (those present), with a macro
        average block, ``Average``, across two collections or more.
    notes : tuple of str
        Sentences that explain the table beyond the marks' legend (the macro average,
        the seeds).
    mean_interval : str
        What ± is when ``ci=True``.

    Examples
    --------
    >>> import pdireval
    >>> from pdireval.datasets import example
    >>> report = example().ireval.report(["AP", "P@10"], baseline="medium")
    >>> print(report.table())
    metric      AP    P@10
    run
    medium  0.5756  0.5520
    strong  0.8781▲ 0.7520▲
    weak    0.2161▼ 0.3000▼
    >>> print(report.legend())  # doctest: +NORMALIZE_WHITESPACE
    ▲/▼: significantly better/worse than medium; paired t-test, Holm's correction over 4
    comparisons, alpha = 0.05.

    Printed, a report shows its table with the baseline labelled, then the legend. The
    runs keep the frame's order, the baseline first:

    >>> print(report)  # doctest: +NORMALIZE_WHITESPACE
    metric                 AP    P@10
    run
    medium (baseline)  0.5756   0.5520
    strong            0.8781▲  0.7520▲
    weak              0.2161▼  0.3000▼
    <BLANKLINE>
    ▲/▼: significantly better/worse than medium; paired t-test, Holm's correction over 4
    comparisons, alpha = 0.05.
    """

    summary: pd.DataFrame
    comparison: pd.DataFrame
    per_query: pd.DataFrame
    intervals: pd.DataFrame
    settings: dict[str, Any] = field(default_factory=dict)
    definitions: dict[str, str] = field(default_factory=dict)
    efficiency: pd.DataFrame | None = None
    within: tuple[Hashable, ...] = ()
    notes: tuple[str, ...] = ()
    mean_interval: str = _MEAN_INTERVAL

    def __repr__(self) -> str:
        runs = list(self.summary.index)
        columns = self.summary.columns
        if isinstance(columns, pd.MultiIndex):
            metrics = list(dict.fromkeys(columns.get_level_values(-1)))
        else:
            metrics = list(columns)
        return f"<Report: runs {runs}, metrics {metrics}, {len(self.comparison)} comparisons>"

    def __str__(self) -> str:
        """The paper table as plain text, baseline labelled, with the legend under it."""
        return self.render("text")

    # --- the shared vocabulary ------------------------------------------------------------

    @property
    def marks(self) -> Marks:
        """Which cells differ significantly from which baseline, and which way."""
        comparison = self.comparison
        if self.within:  # a cell is named by its judge, collection and metric
            keys = zip(*(comparison[name] for name in [*self.within, "metric"]), strict=True)
            comparison = comparison.assign(metric=[cell_key(key) for key in keys])
        return Marks.of(
            comparison,
            self.settings["test"],
            self.settings["correction"],
            self.settings["alpha"],
        )

    def legend(self) -> str:
        """The sentence that explains the marks (test, correction, alpha, baselines)."""
        return self.marks.legend()

    def interval_note(self) -> str:
        """What the comparison's interval of Δ is, and how it relates to the marks."""
        return interval_note(
            self.settings["test"],
            self.settings["correction"],
            self.settings["alpha"],
            len(self.comparison),
        )

    def run_labels(self, *, short: bool = False) -> dict[Hashable, str]:
        """Run -> its name in a table, baselines labelled: ``bm25 (baseline)``, or
        ``(baseline a)`` when there are several; ``short`` gives R1, R2, ... in row order.
        """
        marks = self.marks
        labels = {}
        for number, run in enumerate(self.summary.index, start=1):
            name = f"R{number}" if short else str(run)
            if run in marks.baselines:
                letter = marks.letter(marks.baselines.index(run))
                name += f" (baseline {letter})" if letter else " (baseline)"
            labels[run] = name
        return labels

    def cells(self, *, ci: bool = False, digits: int = 4) -> list[list[tuple[str, str, bool]]]:
        """The paper table as (value text, marks, best?) per run and metric."""
        best, marks = best_runs(self.summary), self.marks
        rows = []
        for run, row in self.summary.iterrows():
            cells = []
            for label in self.summary.columns:
                text = format_value(row[label], digits)
                half = float(self.intervals.loc[run, label]) if ci else np.nan  # type: ignore[arg-type, index]
                if text and ci and not math.isnan(half):
                    text += f" ± {format_value(half, digits)}"
                mark = marks.text(run, cell_key(label))
                cells.append((text, mark, run in best.get(str(label), ())))
            rows.append(cells)
        return rows

    def table(self, *, ci: bool = False, digits: int = 4, transpose: bool = False) -> pd.DataFrame:
        """The compact paper table as text: runs x metrics, marks after the values.

        Parameters
        ----------
        ci : bool
            Write each mean as ``mean ± half-width`` of its 95% t interval.
        digits : int
            Decimals of every value.
        transpose : bool
            One row per metric (per collection and metric), one column per run.

        Returns
        -------
        DataFrame
            Strings, one row per run, one column per metric (per collection and metric
            for a report over collections); the best value of each metric is not marked
            here (the renderings print it in bold). Printed (or shown in a notebook) it
            shows every column, however many and wide, instead of cutting the middle
            ones as pandas does to fit the display.
        """
        rows = [[text + mark for text, mark, _ in row] for row in self.cells(ci=ci, digits=digits)]
        table = pd.DataFrame(rows, index=self.summary.index, columns=self.summary.columns)
        return _PaperTable(table.T if transpose else table)

    def comparison_text(self, digits: int = 4) -> pd.DataFrame:
        """The comparison as a person reads it: readable headers, formatted numbers."""
        table = self.comparison
        shown = pd.DataFrame(
            {
                **{str(name): table[name].astype(str) for name in self.within},
                "Run": table["run"].astype(str),
                "Baseline": table["baseline"].astype(str),
                "Metric": table["metric"].astype(str),
                "Mean": [format_value(v, digits) for v in table["mean"]],
                "Baseline mean": [format_value(v, digits) for v in table["baseline_mean"]],
                "Δ": [format_delta(v, digits) for v in table["delta"]],
                "Δ %": [format_percent(v) for v in table["relative_delta"]],
                self._interval_header(): _interval_texts(table, digits),
                "p (adjusted)": [format_p(v) for v in table["p_adjusted"]],
                "": _mark_texts(table),
                "d": [format_value(v, 2) for v in table["effect_size"]],
                "W/T/L": [
                    f"{w}/{t}/{lo}"
                    for w, t, lo in zip(table["wins"], table["ties"], table["losses"], strict=True)
                ],
            }
        )
        if "urisk" in table.columns:
            alpha = self.settings.get("risk alpha")
            shown[f"URisk (α = {alpha:g})"] = [format_delta(v, digits) for v in table["urisk"]]
            shown["TRisk"] = [format_delta(v, 2) for v in table["trisk"]]
        return shown

    def _interval_header(self) -> str:
        adjusted = " (unadjusted)" if self.settings["correction"] is not None else ""
        return f"{interval_level(self.settings['alpha'])} CI of Δ{adjusted}"

    def efficiency_text(self) -> pd.DataFrame:
        """The efficiency table as a person reads it (milliseconds, queries per second)."""
        if self.efficiency is None:
            return pd.DataFrame()
        table = self.efficiency
        return pd.DataFrame(
            {
                "Run": [str(run) for run in table.index],
                "Queries": [f"{int(n)}" for n in table["queries"]],
                "Mean (ms)": [format_value(1000 * v, 1) for v in table["latency_mean"]],
                "Median (ms)": [format_value(1000 * v, 1) for v in table["latency_median"]],
                "p95 (ms)": [format_value(1000 * v, 1) for v in table["latency_p95"]],
                "p99 (ms)": [format_value(1000 * v, 1) for v in table["latency_p99"]],
                "Queries/s": [format_value(v, 1) for v in table["qps"]],
            }
        )

    @property
    def about(self) -> pd.DataFrame:
        """Settings and metric definitions as a two-column (item, value) table."""
        rows = [
            (key, "none" if value is None else str(value)) for key, value in self.settings.items()
        ]
        rows += [(f"metric {label}", text) for label, text in self.definitions.items()]
        return pd.DataFrame(rows, columns=["item", "value"])

    def per_query_flat(self) -> pd.DataFrame:
        """The per-query table with flat columns: metric, query, one per run, ``run - base``."""
        base = self.settings.get("per_query_baseline")
        names = [
            str(run) if stat == "value" else f"{run} - {base}"
            for stat, run in zip(
                *(self.per_query.columns.get_level_values(i) for i in (0, 1)), strict=True
            )
        ]
        flat = self.per_query.copy()
        flat.columns = names
        # a run may be named "metric" or "query": its column follows the key columns
        return flat.reset_index(allow_duplicates=True)

    # --- renderings -----------------------------------------------------------------------

    def render(self, name: str, **options: Any) -> str:
        """The report as text in an output format: ``"text"``, ``"markdown"``,
        ``"latex"``, ``"html"``, ``"json"``, ... (each format's options as keywords).

        Every format of :func:`pdireval.reports.formats.formats` can be asked for here, or as
        ``report.to_<format>()``; a format that writes files (``"excel"``, ``"csv"``)
        is written with :meth:`write`.

        Examples
        --------
        >>> import pdireval
        >>> from pdireval.datasets import example
        >>> report = example().ireval.report("AP", baseline="medium")
        >>> report.render("markdown") == report.to_markdown()
        True
        """
        declared = formats()[name]
        if declared.render is None:
            msg = (
                f"the {declared.name} format writes files, not text: "
                f"report.write({declared.name!r}, path)"
            )
            raise ParameterError(msg)
        return declared.render(self, **options)

    def write(self, name: str, path: str | Path, **options: Any) -> Path | list[Path]:
        """Write the report to ``path`` in an output format and return what was written
        (a workbook for ``"excel"``, a folder of files for ``"csv"``, a text file for the
        formats that render text).
        """
        declared = formats()[name]
        if declared.write is not None:
            return cast("Path | list[Path]", declared.write(self, path, **options))
        target = Path(path)
        target.write_text(self.render(name, **options) + "\n", encoding="utf-8")
        return target

    def __getattr__(self, name: str) -> Callable[..., Any]:
        """``report.to_<format>(...)`` for every output format without a method of its
        own (``to_typst``, ``to_json``): :meth:`render` or :meth:`write` in that format.
        """
        if name.startswith("to_") and name[3:] in formats():
            declared = formats()[name[3:]]
            if declared.render is not None:
                return functools.partial(self.render, declared.name)
            return functools.partial(self.write, declared.name)
        msg = f"{type(self).__name__!r} object has no attribute {name!r}"
        raise AttributeError(msg)

    def _repr_html_(self) -> str:
        from pdireval.reports.formats.html import fragment

        return fragment(self, ci=False, digits=4, per_query_rows=20)

    def to_latex(
        self,
        *,
        caption: str | None = None,
        label: str | None = None,
        ci: bool = False,
        digits: int = 4,
        abbreviate: bool | None = None,
        wide: bool = False,
        transpose: bool = False,
    ) -> str:
        r"""The paper table as a LaTeX ``table`` with booktabs rules, sized to fit the column.

        The best value of each metric is bold; ``$^{\blacktriangle}$`` /
        ``$^{\blacktriangledown}$`` (with the baseline's letter when there are several;
        with the number of the run compared with when the runs are written R1, R2, ...
        and there are several baselines) mark significant differences, explained in a
        note under the table. The first
        line is a comment naming the packages the table needs (``booktabs``,
        ``amssymb`` for the triangles, ``graphicx`` for the scaling); it compiles with
        exactly those in one- and two-column documents.

        Values align on the decimal point: each metric is a pair of columns, the
        integer part right-aligned and the decimals (with the marks) left-aligned. A
        table wider than the line (``\linewidth``: the column of a two-column paper) is
        scaled down to it, a narrower one is left as it is; when the scaling would leave
        less than 70% of the size, a comment above the table says so and what to try
        (``wide=True``, ``transpose=True``, fewer measures, ``ci=False``).

        Parameters
        ----------
        caption, label : str, optional
            ``\caption`` and ``\label`` of the table.
        ci : bool
            Write each mean as ``mean ± half-width`` of its 95% t interval.
        digits : int
            Decimals of every value.
        abbreviate : bool, optional
            Write the runs as R1, R2, ... with a key under the table. By default they
            are abbreviated when a run name is longer than 12 characters, which would
            make the table too wide (or scale it too small) for a column.
        wide : bool
            A ``table*`` float that spans both columns of a two-column paper (the same
            as ``table`` in a one-column document).
        transpose : bool
            One row per metric (per collection and metric for a report over
            collections) and one column per run.

        Examples
        --------
        >>> import pdireval
        >>> from pdireval.datasets import example
        >>> report = example().ireval.report("AP", baseline="medium")
        >>> print(report.to_latex(caption="MAP of three runs.", label="tab:map"))
        ... # doctest: +NORMALIZE_WHITESPACE
        % Needs \usepackage{booktabs,amssymb,graphicx} in the preamble.
        \begin{table}
        \centering
        \caption{MAP of three runs.}
        \label{tab:map}
        \resizebox{\ifdim\width>\linewidth\linewidth\else\width\fi}{!}{%
        \begin{tabular}{lr@{}l}
        \toprule
        Run & \multicolumn{2}{c}{AP} \\
        \midrule
        medium (baseline) & 0 & .5756 \\
        strong & \textbf{0} & \textbf{.8781}$^{\blacktriangle}$ \\
        weak & 0 & .2161$^{\blacktriangledown}$ \\
        \bottomrule
        \end{tabular}}
        \par\smallskip\begin{minipage}{\linewidth}\footnotesize\raggedright
        $^{\blacktriangle}$/$^{\blacktriangledown}$: significantly better/worse than medium;
        paired t-test, Holm's correction over 2 comparisons, $\alpha$ = 0.05. Best value per
        metric in bold.
        \end{minipage}
        \end{table}
        """
        return self.render(
            "latex",
            caption=caption,
            label=label,
            ci=ci,
            digits=digits,
            abbreviate=abbreviate,
            wide=wide,
            transpose=transpose,
        )

    def to_markdown(
        self, *, ci: bool = False, digits: int = 4, per_query: bool = False, transpose: bool = False
    ) -> str:
        """The paper table, its legend and the comparison as GitHub-flavoured Markdown.

        Parameters
        ----------
        ci : bool
            Write each mean as ``mean ± half-width`` of its 95% t interval.
        digits : int
            Decimals of every value.
        per_query : bool
            Add the per-query table (long: one row per metric and query).
        transpose : bool
            One row per metric (per collection and metric) and one column per run.

        Examples
        --------
        >>> import pdireval
        >>> from pdireval.datasets import example
        >>> report = example().ireval.report("AP", baseline="medium")
        >>> print(report.to_markdown().splitlines()[2:7])  # doctest: +NORMALIZE_WHITESPACE
        ['| Run | AP |', '|---|---:|', '| medium (baseline) | 0.5756 |',
         '| strong | **0.8781**▲ |', '| weak | 0.2161▼ |']
        """
        return self.render(
            "markdown", ci=ci, digits=digits, per_query=per_query, transpose=transpose
        )

    def to_html(
        self,
        *,
        ci: bool = False,
        digits: int = 4,
        per_query_rows: int = 20,
        title: str = "Evaluation report",
        transpose: bool = False,
    ) -> str:
        """A complete HTML page: the paper table, legend, comparison and first per-query rows.

        Self-contained (UTF-8, one style block, no external files), so it can be saved
        and opened as it is. Best values are bold, green ▲ and red ▼ marks sit in a
        space of their own so values align, and a table wider than the window scrolls
        sideways inside the page. In a notebook the report shows the same content as a
        fragment (without ``<html>``, ``<head>`` and ``<title>``).

        Parameters
        ----------
        ci : bool
            Write each mean as ``mean ± half-width`` of its 95% t interval.
        digits : int
            Decimals of every value.
        per_query_rows : int
            Per-query rows shown (0: none).
        title : str
            The page's ``<title>`` and heading.
        transpose : bool
            One row per metric (per collection and metric) and one column per run.

        Examples
        --------
        >>> import pdireval
        >>> from pdireval.datasets import example
        >>> page = example().ireval.report("AP", baseline="medium").to_html()
        >>> print(page[:15], "<title>Evaluation report</title>" in page)
        <!DOCTYPE html> True
        """
        return self.render(
            "html",
            ci=ci,
            digits=digits,
            per_query_rows=per_query_rows,
            title=title,
            transpose=transpose,
        )

    def to_csv(self, folder: str | Path) -> list[Path]:
        """Write summary.csv, comparison.csv, per_query.csv and about.csv into ``folder``.

        The folder is created when missing; values keep full precision. Returns the paths.
        """
        return cast("list[Path]", self.write("csv", folder))

    def to_excel(self, path: str | Path, *, digits: int = 4, transpose: bool = False) -> Path:
        """Write a workbook: Results (the paper table), Comparisons, Per query and About.

        Values are stored as numbers; their formats show ``digits`` decimals, the marks
        after significant values and journal-style p-values. The best value per metric
        is bold, significant cells are shaded green (better) or red (worse), headers are
        frozen, long tables get a filter, and columns fit their contents. A report over
        collections has a header row of collections (merged over their metrics) above
        the metrics; ``transpose=True`` writes one row per (collection and) metric and
        one column per run.

        Raises
        ------
        MissingDependencyError
            openpyxl is not installed (``pip install 'pdireval[excel]'``).
        """
        return cast(Path, self.write("excel", path, digits=digits, transpose=transpose))
