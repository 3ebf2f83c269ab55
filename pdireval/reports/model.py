"""Reports for papers, spreadsheets and notebooks: one object, several renderings.

:func:`pdireval.report` evaluates a frame once and returns a :class:`Report`: the
compact *paper table* (runs x metrics, the mean, optionally its confidence interval,
the best run of each metric in bold and a mark after every significant difference),
the comparison behind the marks, the per-query values and the settings. Every
rendering -- LaTeX, Markdown, HTML, Excel, CSV -- writes the same numbers with the same
marks and legend (:mod:`pdireval.reports.numbers`).
"""

from __future__ import annotations

import math
import re
from collections.abc import Hashable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, cast

import numpy as np
import pandas as pd

from pdireval._core import escape
from pdireval._core.errors import ParameterError, SchemaError
from pdireval._core.levels import Levels
from pdireval._core.options import Evaluation, Significance
from pdireval._core.version import __version__
from pdireval.engine.runs import run_order
from pdireval.metrics._base import Metric
from pdireval.reports.excel import write_workbook
from pdireval.reports.levels import (
    MACRO,
    Grid,
    cell_key,
    grid_of,
    levelled_summary,
    t_half_widths,
)
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
from pdireval.stats.comparison import compare_table, per_query_table
from pdireval.stats.summary import aggregate, efficiency_table

__all__ = ["Report", "build_report", "run_order"]

#: The packages :meth:`Report.to_latex` needs (its first line names them).
LATEX_PACKAGES = ("booktabs", "amssymb", "graphicx")
_LATEX_NAME = 12  # longer run names are abbreviated in LaTeX (R1, R2, ... and a key)
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
        rows = self.cells()
        labels = self.run_labels()
        table = pd.DataFrame(
            [[text + mark for text, mark, _ in row] for row in rows],
            index=pd.Index([labels[run] for run in self.summary.index], name="run"),
            columns=self.summary.columns,
        )
        for at, label in enumerate(table.columns):  # marks padded: the decimal points align
            width = max(len(row[at][1]) for row in rows)
            table[label] = [f"{text}{mark:<{width}}" for text, mark, _ in (r[at] for r in rows)]
        text = "\n".join(line.rstrip() for line in table.to_string().splitlines())
        return f"{text}\n\n{self.legend()}" + "".join(" " + note for note in self.notes)

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
            here (the renderings print it in bold).
        """
        rows = [[text + mark for text, mark, _ in row] for row in self.cells(ci=ci, digits=digits)]
        table = pd.DataFrame(rows, index=self.summary.index, columns=self.summary.columns)
        return table.T if transpose else table

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
                self._interval_header(): [
                    f"[{format_delta(lo, digits)}, {format_delta(hi, digits)}]"
                    if not (math.isnan(lo) or math.isnan(hi))
                    else ""
                    for lo, hi in zip(table["ci_low"], table["ci_high"], strict=True)
                ],
                "p (adjusted)": [format_p(v) for v in table["p_adjusted"]],
                "": [
                    (BETTER if d > 0 else WORSE) if s else ""
                    for s, d in zip(table["significant"], table["delta"], strict=True)
                ],
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
        ``$^{\blacktriangledown}$`` (with the baseline's letter when there are several)
        mark significant differences, explained in a note under the table. The first
        line is a comment naming the packages the table needs (``booktabs``,
        ``amssymb`` for the triangles, ``graphicx`` for the scaling); it compiles with
        exactly those in one- and two-column documents.

        Values align on the decimal point: each metric is a pair of columns, the
        integer part right-aligned and the decimals (with the marks) left-aligned. A
        table wider than the line (``\linewidth``: the column of a two-column paper) is
        scaled down to it, a narrower one is left as it is.

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
        runs = list(self.summary.index)
        if abbreviate is None:
            abbreviate = any(len(str(run)) > _LATEX_NAME for run in runs)
        float_env = "table*" if wide else "table"
        lines = [f"% Needs \\usepackage{{{','.join(LATEX_PACKAGES)}}} in the preamble."]
        lines += [rf"\begin{{{float_env}}}", r"\centering"]
        if ci:  # mean +- half-width cells are wide: tighter columns
            lines.append(r"\setlength{\tabcolsep}{4pt}")
        if caption:
            lines.append(rf"\caption{{{escape.latex(caption)}}}")
        if label:
            lines.append(rf"\label{{{_latex_label(label)}}}")
        lines += [
            r"\resizebox{\ifdim\width>\linewidth\linewidth\else\width\fi}{!}{%",
            *_latex_tabular(
                grid_of(self, ci=ci, digits=digits, transpose=transpose, short=abbreviate)
            ),
        ]
        marks = self.marks
        note = [
            marks.legend(
                escape.latex, (r"$^{\blacktriangle}$", r"$^{\blacktriangledown}$", r"$\alpha$")
            )
            + " Best value per metric in bold."
            + "".join(" " + escape.latex(text) for text in self.notes)
        ]
        if ci:
            note.append(r"$\pm$: " + escape.latex(self.mean_interval))
        if abbreviate:
            key = "; ".join(f"R{i}~= {escape.latex(run)}" for i, run in enumerate(runs, start=1))
            note.insert(0, rf"Runs: {key}.\par")
        lines += [
            r"\par\smallskip\begin{minipage}{\linewidth}\footnotesize\raggedright",
            *note,
            r"\end{minipage}",
            rf"\end{{{float_env}}}",
        ]
        return "\n".join(lines)

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
        grid = grid_of(self, ci=ci, digits=digits, transpose=transpose)
        header = [escape.markdown(text) for text in grid.corner]
        for column in range(grid.width):  # spanning headers repeated: "robust04 / AP"
            parts = [_covering(row, column) for row in grid.header]
            header.append(" / ".join(escape.markdown(part) for part in parts))
        rows = [
            [
                *(escape.markdown(label) for label in labels),
                *((f"**{text}**" if best and text else text) + _mark_text(marks)
                  for text, marks, best in cells),
            ]
            for labels, cells in zip(grid.labels, grid.cells, strict=True)
        ]  # fmt: skip
        legend = self.marks.legend(escape.markdown) + " Best value per metric in bold."
        legend += "".join(" " + escape.markdown(text) for text in self.notes)
        if ci:
            legend += " ±: " + self.mean_interval
        numeric = [False] * len(grid.corner) + [True] * grid.width
        out = [
            "## Results",
            "",
            _markdown_rows(header, rows, numeric=numeric),
            "",
            legend,
            "",
            "## Comparisons",
            "",
            _markdown_frame(self.comparison_text(digits), [str(n) for n in self.within]),
            "",
            self.interval_note(),
            "",
        ]
        if self.efficiency is not None:
            out += ["## Efficiency", "", _markdown_frame(self.efficiency_text()), ""]
        if per_query:
            flat = self.per_query_flat()
            text = flat.astype(object).map(
                lambda v: format_value(v, digits) if isinstance(v, float) else str(v)
            )
            places = [str(name) for name in self.per_query.index.names[1:-1]]
            out += ["## Per query", "", _markdown_frame(text, places), ""]
        return "\n".join(out)

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
        return "\n".join(
            [
                "<!DOCTYPE html>",
                '<html lang="en">',
                "<head>",
                '<meta charset="utf-8">',
                '<meta name="viewport" content="width=device-width, initial-scale=1">',
                f"<title>{escape.html(title)}</title>",
                "</head>",
                '<body style="margin: 1.5em; max-width: 100%">',
                f'<h1 style="font: 600 20px system-ui, sans-serif">{escape.html(title)}</h1>',
                self._html_fragment(
                    ci=ci, digits=digits, per_query_rows=per_query_rows, transpose=transpose
                ),
                "</body>",
                "</html>",
            ]
        )

    def _html_fragment(
        self, *, ci: bool, digits: int, per_query_rows: int, transpose: bool = False
    ) -> str:
        """The report as an HTML fragment (a notebook cell's output)."""
        grid = grid_of(self, ci=ci, digits=digits, transpose=transpose)
        head, body = _html_table(grid)
        plain = len(grid.header) == 1 and not grid.breaks and self.per_query.index.nlevels == 2
        legend = f"{self.legend()} Best value per metric in bold."
        legend += "".join(" " + text for text in self.notes)
        if ci:
            legend += " ±: " + self.mean_interval
        parts = [
            '<div class="pdireval-report">',
            _HTML_STYLE if plain else _HTML_GRID_STYLE,
            '<div class="scroll"><table class="paper">',
            head,
            body + "</table></div>",
            f'<p class="legend">{escape.html(legend)}</p>',
            "<details><summary>Comparisons</summary>",
            '<div class="scroll">',
            self.comparison_text(digits).to_html(
                index=False, border=0, classes=f"ids{3 + len(self.within)}"
            ),
            "</div>",
            f'<p class="legend">{escape.html(self.interval_note())}</p>',
            "</details>",
        ]
        if self.efficiency is not None:
            parts += [
                "<details><summary>Efficiency</summary>",
                '<div class="scroll">',
                self.efficiency_text().to_html(index=False, border=0, classes="ids1"),
                "</div>",
                "</details>",
            ]
        per_query = self.per_query_flat()
        if per_query_rows:
            first_rows = per_query.head(per_query_rows)
            parts += [
                f"<details><summary>Per query (first {len(first_rows)} of {len(per_query)} rows)"
                "</summary>",
                '<div class="scroll">',
                first_rows.to_html(
                    index=False,
                    border=0,
                    classes=f"ids{self.per_query.index.nlevels}",
                    float_format=lambda v: f"{v:.{digits}f}",
                ),
                "</div>",
                "</details>",
            ]
        parts.append("</div>")
        return "\n".join(parts)

    def _repr_html_(self) -> str:
        return self._html_fragment(ci=False, digits=4, per_query_rows=20)

    def to_csv(self, folder: str | Path) -> list[Path]:
        """Write summary.csv, comparison.csv, per_query.csv and about.csv into ``folder``.

        The folder is created when missing; values keep full precision. Returns the paths.
        """
        folder = Path(folder)
        folder.mkdir(parents=True, exist_ok=True)
        frames = {
            "summary.csv": self.summary.reset_index(),
            "comparison.csv": self.comparison,
            "per_query.csv": self.per_query_flat(),
            "about.csv": self.about,
        }
        paths = []
        for name, frame in frames.items():
            path = folder / name
            frame.to_csv(path, index=False)
            paths.append(path)
        return paths

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
        return write_workbook(self, Path(path), digits, transpose=transpose)


_HTML_STYLE = """<style>
.pdireval-report {font-family: system-ui, -apple-system, "Segoe UI", Helvetica, Arial,
  sans-serif; font-size: 14px; color: #1f2328; line-height: 1.4; max-width: 100%}
.pdireval-report .scroll {overflow-x: auto; max-width: 100%}
.pdireval-report table {border-collapse: collapse; margin: 0.4em 0}
.pdireval-report th, .pdireval-report td {padding: 3px 10px; text-align: right;
  font-variant-numeric: tabular-nums; border: none; white-space: nowrap}
.pdireval-report thead th {font-weight: 600; vertical-align: bottom; white-space: normal}
.pdireval-report tbody th {font-weight: normal; text-align: left}
.pdireval-report tbody th, .pdireval-report .ids3 td:nth-child(-n+2),
.pdireval-report .ids1 td:first-child {
  white-space: normal; overflow-wrap: break-word; min-width: 12em; max-width: 22em}
.pdireval-report thead tr {border-bottom: 1px solid #888}
.pdireval-report table.paper {border-top: 2px solid #444; border-bottom: 2px solid #444}
.pdireval-report tbody tr:nth-child(even) {background: #f6f8fa}
.pdireval-report .ids3 :is(td, th):nth-child(-n+3),
.pdireval-report .ids2 :is(td, th):nth-child(-n+2),
.pdireval-report .ids1 :is(td, th):first-child,
.pdireval-report table.paper th:first-child {text-align: left}
.pdireval-report .mark {display: inline-block; min-width: 1.2em; text-align: left}
.pdireval-report .legend {font-size: 12px; color: #57606a; margin: 0.2em 0 0.8em;
  max-width: 60em}
.pdireval-report summary {cursor: pointer; font-weight: 600; margin-top: 0.6em}
</style>"""


#: The style of a table with spanning headers or groups of rows.
_HTML_GRID_STYLE = _HTML_STYLE.replace(
    "</style>",
    ".pdireval-report th.span {text-align: center; background: linear-gradient(#888, #888)"
    " no-repeat center bottom / calc(100% - 16px) 1px}\n"
    ".pdireval-report thead tr.spans {border-bottom: none}\n"
    ".pdireval-report tr.group {border-top: 1px solid #888}\n"
    + "".join(
        f".pdireval-report .ids{n} :is(td, th):nth-child(-n+{n}) {{text-align: left}}\n"
        for n in range(3, 8)
    )
    + "</style>",
)


def _latex_label(label: str) -> str:
    r"""A ``\label`` key: letters, digits and ``:-_.`` only (LaTeX reads no escapes there)."""
    if not re.fullmatch(r"[A-Za-z0-9:_.\-]+", str(label)):
        msg = (
            f"label={label!r}: a LaTeX label is letters, digits and ':', '-', '_', '.', "
            "e.g. label='tab:results'"
        )
        raise ParameterError(msg)
    return str(label)


def _html_table(grid: Grid) -> tuple[str, str]:
    """The ``<thead>`` and ``<tbody>`` of a paper table (names escaped)."""
    stub = len(grid.corner)
    head = []
    for depth, spans in enumerate(grid.header):
        if depth < len(grid.header) - 1:
            cells = [f'<th colspan="{stub}"></th>'] if stub > 1 else ["<th></th>"]
            cells += [
                f'<th colspan="{span}" class="span">{escape.html(text)}</th>'
                if span > 1
                else f'<th class="span">{escape.html(text)}</th>'
                for text, span in spans
            ]
        else:
            names = [*grid.corner, *(text for text, _ in spans)]
            cells = [
                f'<th style="text-align:{"left" if i < stub else "right"}">{escape.html(h)}</th>'
                for i, h in enumerate(names)
            ]
        last = depth == len(grid.header) - 1
        head.append(("<tr>" if last else '<tr class="spans">') + "".join(cells) + "</tr>")
    body = []
    for at, (labels, row) in enumerate(zip(grid.labels, grid.cells, strict=True)):
        shown = [f'<th scope="row">{escape.html(label)}</th>' for label in labels]
        for text, marks, best in row:
            value = f"<b>{escape.html(text)}</b>" if best and text else escape.html(text)
            signs = "".join(
                f'<span style="color:{"#1a7f37" if better else "#cf222e"}">'
                f"{BETTER if better else WORSE}{letter}</span>"
                for better, letter in marks
            )
            shown.append(f'<td>{value}<span class="mark">{signs}</span></td>')
        start = ' class="group"' if at in grid.breaks else ""
        body.append(f"<tr{start}>" + "".join(shown) + "</tr>")
    return f"<thead>{''.join(head)}</thead>", "<tbody>" + "".join(body) + "</tbody>"


def _covering(row: list[tuple[str, int]], column: int) -> str:
    """The text of the header that spans value column ``column`` in a header row."""
    end = 0
    for text, span in row:
        end += span
        if column < end:
            return text
    return ""


def _mark_text(marks: list[tuple[bool, str]]) -> str:
    """Marks as plain text: ``▲``, ``▲a▼b``."""
    return "".join((BETTER if better else WORSE) + letter for better, letter in marks)


def _latex_tabular(grid: Grid) -> list[str]:
    r"""The ``tabular`` of a paper table: header rows (``\cmidrule`` under each spanning
    header), then the rows; each value is two columns, aligned on the decimal point.
    """
    stub = len(grid.corner)
    lines = [r"\begin{tabular}{" + "l" * stub + "r@{}l" * grid.width + "}", r"\toprule"]
    for depth, spans in enumerate(grid.header):
        last = depth == len(grid.header) - 1
        cells = [escape.latex(text) for text in grid.corner] if last else [""] * stub
        rules, column = [], stub + 1
        for text, span in spans:
            cells.append(rf"\multicolumn{{{2 * span}}}{{c}}{{{escape.latex(text)}}}")
            if not last:
                rules.append(rf"\cmidrule(lr){{{column}-{column + 2 * span - 1}}}")
            column += 2 * span
        lines.append(" & ".join(cells) + r" \\")
        if rules:
            lines.append("".join(rules))
    lines.append(r"\midrule")
    for at, (labels, row) in enumerate(zip(grid.labels, grid.cells, strict=True)):
        if at in grid.breaks:
            lines.append(r"\midrule")
        cells = [escape.latex(text) for text in labels]
        for text, marks, best in row:
            whole, dot, rest = text.partition(".")
            rest = (dot + rest).replace(" ± ", r" $\pm$ ")
            if best and text:
                whole, rest = rf"\textbf{{{whole}}}", rf"\textbf{{{rest}}}" if rest else ""
            signs = "".join(
                (r"\blacktriangle" if better else r"\blacktriangledown")
                + (rf"\mathrm{{{letter}}}" if letter else "")
                for better, letter in marks
            )
            cells += [whole, rest + (f"$^{{{signs}}}$" if signs else "")]
        lines.append(" & ".join(cells) + r" \\")
    return [*lines, r"\bottomrule", r"\end{tabular}}"]


def _markdown_rows(
    header: Sequence[str], rows: Sequence[Sequence[str]], numeric: list[bool]
) -> str:
    """A Markdown table of cells already written for Markdown (names escaped)."""
    lines = ["| " + " | ".join(header) + " |"]
    lines.append("|" + "|".join("---:" if number else "---" for number in numeric) + "|")
    lines += ["| " + " | ".join(row) + " |" for row in rows]
    return "\n".join(lines)


def _markdown_frame(frame: pd.DataFrame, places: Sequence[str] = ()) -> str:
    """A table of text cells as Markdown, every cell escaped (names users chose are in
    it); columns other than names (and the ``places``: judge, collection, seed) are
    right-aligned.
    """
    names = ("Run", "Baseline", "Metric", "metric", "query", *places)
    numeric = [str(column) not in names for column in frame.columns]
    rows = [[escape.markdown(value) for value in row] for row in frame.itertuples(index=False)]
    header = [escape.markdown(column) for column in frame.columns]
    return _markdown_rows(header, rows, numeric)


def build_report(
    table: pd.DataFrame,
    metrics: Sequence[Metric],
    evaluation: Evaluation,
    significance: Significance,
    *,
    latency: pd.Series | None = None,
    runs: Sequence[Hashable] | None = None,
    levels: Levels | None = None,
    risk_alpha: float | None = None,
) -> Report:
    """Build a :class:`Report` from a per-query table indexed by (run, query), and the
    per-query times when the frame has them.

    The report's runs are in the order of ``runs`` (the frame's order: see
    :func:`run_order`), the baseline(s) first; runs ``runs`` does not name follow in
    the table's order.

    With ``levels`` naming judge, collection or seed levels, the table is indexed by
    (run, judge, collection, seed, query) (those present) and the report's summary is
    the wide table papers print: one row per run, one block of metric columns per
    (judge, collection) in the table's order, then the macro average of the
    collections (the mean of the collection means, without marks) when there are two
    or more. The marks come from comparisons within each (judge, collection). With
    seeds, each value is the mean over seeds of the per-seed means, and ± (``ci=True``)
    the 95% t interval across the seeds.

    ``risk_alpha`` adds URisk and TRisk against the baseline to the comparison (see
    :func:`pdireval.risk`), with losses counted ``1 + risk_alpha`` times.
    """
    if levels is not None and levels.extra:
        if levels.run is None:
            msg = (
                "report needs a frame with a run column and at least two runs; this frame "
                "has no run column (name it 'run' or map it with df.ireval(run='<column>'))"
            )
            raise SchemaError(msg)
    else:
        levels = None
    present = list(table.index.get_level_values(0).unique())
    order = _ordered(present, runs, significance.baseline)
    rank = {run: i for i, run in enumerate(order)}
    table = table.iloc[np.argsort(table.index.get_level_values(0).map(rank), kind="stable")]
    comparison = compare_table(table, significance, levels, risk_alpha=risk_alpha, runs=order)
    baseline = significance.baseline
    reference: Hashable
    if baseline is None:
        reference = order[0]
    elif isinstance(baseline, list | tuple):
        reference = baseline[0]
    else:
        reference = baseline
    per_query = pd.concat(
        {
            label: per_query_table(table, label, baseline=reference, runs=order)
            for label in table.columns
        },
        names=["metric"],
    )
    test = significance.test
    resampling = test in ("permutation", "bootstrap")
    settings = evaluation.as_options()
    del settings["validate"]
    info: dict[str, Any] = {
        "pdireval version": __version__,
        **settings,
        "tie rule": TIE_RULE,
        "test": test,
        "correction": significance.correction,
        "correction scope": "all comparisons of the report (run pairs x metrics)",
        "alpha": significance.alpha,
        "n_resamples": significance.n_resamples if resampling else None,
        "seed": significance.seed if resampling else None,
        "baseline": baseline if baseline is not None else "all pairs",
        "per_query_baseline": reference,
        "summary": "mean over queries; ± is the half-width of the 95% Student t interval",
        "interval of Δ": interval_note(
            test, significance.correction, significance.alpha, len(comparison)
        ),
    }
    if risk_alpha is not None:
        info["risk alpha"] = risk_alpha
    definitions = {metric.label: definition(metric) for metric in metrics}
    efficiency = None if latency is None else efficiency_table(latency).reindex(order)
    if levels is not None:
        summary, intervals, macro = levelled_summary(table, levels, order)
        notes, about = _level_notes(levels, macro, significance.test)
        info["correction scope"] = about.pop("correction scope")
        info["summary"] = about.pop("summary")
        info.update(about)
        return Report(
            summary=summary,
            comparison=comparison,
            per_query=per_query,
            intervals=intervals,
            settings=info,
            definitions=definitions,
            efficiency=efficiency,
            within=tuple(levels.within),
            notes=notes,
            mean_interval=_SEED_INTERVAL if levels.seed is not None else _MEAN_INTERVAL,
        )
    summary = cast(pd.DataFrame, aggregate(table, "mean"))  # a (run, query) table
    return Report(
        summary=summary.reindex(order),
        comparison=comparison,
        per_query=per_query,
        intervals=_half_widths(table).reindex(order),
        settings=info,
        definitions=definitions,
        efficiency=efficiency,
    )


def _level_notes(levels: Levels, macro: bool, test: str) -> tuple[tuple[str, ...], dict[str, Any]]:
    """The sentences under a wide table, and the settings that describe its levels."""
    within = [str(name) for name in levels.within]
    notes = []
    about: dict[str, Any] = {
        "levels": ", ".join(
            f"{role} = {getattr(levels, role)}"
            for role in ("run", "judge", "collection", "seed")
            if getattr(levels, role) is not None
        ),
        "correction scope": "all comparisons of the report (run pairs x metrics"
        + "".join(f" x {name}" for name in within)
        + ")",
        "summary": "mean over queries; ± is the half-width of the 95% Student t interval",
    }
    if within:
        notes.append(f"Runs are compared within each {' and '.join(within)}.")
    if levels.seed is not None:
        seed = str(levels.seed)
        about["summary"] = (
            f"mean over queries for each {seed}, averaged over the {seed} values; ± is the "
            f"half-width of the 95% Student t interval across the {seed} values' means"
        )
        notes.append(f"Each value is the mean over {seed} values of the means over queries.")
        if test == "bootstrap":
            tested = f"the bootstrap test resamples queries and {seed} values (two-way)."
        else:
            tested = (
                "the test and the interval of the difference use each query's difference "
                f"averaged over the {seed} values."
            )
        notes.append(tested[0].upper() + tested[1:])
        about["seeds in tests"] = tested
    if macro:
        text = (
            f"{MACRO}: the mean of the {levels.collection} means (macro average), not tested, "
            "without marks."
        )
        notes.append(text)
        about["macro average"] = text
    return tuple(notes), about


def _ordered(
    present: list[Hashable], runs: Sequence[Hashable] | None, baseline: Any
) -> list[Hashable]:
    """``present`` in the order of ``runs``, the baseline(s) first."""
    known = set(present)
    order = list(dict.fromkeys([*(run for run in runs or () if run in known), *present]))
    bases = list(baseline) if isinstance(baseline, list | tuple) else [baseline]
    first = [base for base in dict.fromkeys(b for b in bases if b is not None) if base in known]
    return first + [run for run in order if run not in first]


def _half_widths(table: pd.DataFrame) -> pd.DataFrame:
    """Half-width of the 95% Student t interval of each run's mean, per metric."""
    grouped = table.groupby(level=0, sort=True, observed=True)
    return t_half_widths(grouped.count(), grouped.std(ddof=1))
