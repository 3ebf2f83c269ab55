"""Reports for spreadsheets, papers and notebooks: one object, several renderings.

:func:`pdireval.report` evaluates a frame once and returns a :class:`Report` holding the
summary, the comparison and the per-query tables. It renders to Excel (openpyxl, extra
``excel``, imported only by :meth:`Report.to_excel`), LaTeX (booktabs), Markdown, CSV
files and HTML for notebooks (pandas Styler when jinja2 is installed, plain tables
otherwise).
"""

from __future__ import annotations

import math
from collections.abc import Hashable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from pdireval._comparison import compare_table, per_query_table
from pdireval._errors import MissingDependencyError
from pdireval._options import Evaluation, Significance
from pdireval._summary import aggregate
from pdireval._version import __version__
from pdireval.metrics._base import Metric

__all__ = ["Report", "build_report"]

#: Markers of significance against the 1st, 2nd, ... baseline (LaTeX, then plain text).
_LATEX_MARKS = (r"\dagger", r"\ddagger", r"\S", r"\P", r"\star")
_TEXT_MARKS = ("†", "‡", "§", "¶", "*")
_TESTS = {
    "t": "paired t-test",
    "wilcoxon": "Wilcoxon signed-rank test",
    "sign": "sign test",
    "permutation": "paired randomisation (permutation) test",
    "bootstrap": "paired bootstrap test",
}
_CORRECTIONS = {
    "holm": "Holm",
    "bonferroni": "Bonferroni",
    "fdr_bh": "Benjamini-Hochberg (FDR)",
    None: "no",
}
TIE_RULE = (
    "rank column order when present; otherwise score descending, equal scores ordered by the "
    "'ties' policy above (trec: doc id descending compared as strings, as trec_eval); "
    "per-query differences within 1e-12 count as ties"
)


def definition(metric: Metric) -> str:
    """First sentence of the metric family's docstring."""
    text = " ".join((metric.family.__doc__ or "").strip().split("\n\n")[0].split())
    end = text.find(". ")
    return text if end < 0 else text[: end + 1]


def _mark(index: int, marks: Sequence[str]) -> str:
    return marks[index] if index < len(marks) else str(index + 1)


def _plain(value: Any) -> Any:
    """A cell value for openpyxl: Python scalars, None for missing or infinite numbers."""
    if isinstance(value, np.generic):
        value = value.item()
    if isinstance(value, float) and not math.isfinite(value):
        return None
    if value is None or value is pd.NA:
        return None
    if isinstance(value, bool | int | float | str):
        return value
    return str(value)


def _text(value: Any, digits: int) -> str:
    """A cell as text for Markdown/LaTeX: floats with ``digits`` decimals, missing empty."""
    value = _plain(value)
    if value is None:
        return ""
    if isinstance(value, float):
        return f"{value:.{digits}f}"
    return str(value)


@dataclass(frozen=True, repr=False)
class Report:
    """Summary, comparison and per-query tables of several runs, ready to render.

    Build one with :func:`pdireval.report` (or ``df.ireval.report``).

    Attributes
    ----------
    summary : DataFrame
        Mean of each metric: one row per run, one column per metric.
    comparison : DataFrame
        The table of :func:`pdireval.compare`.
    per_query : DataFrame
        Index (metric, query); columns (stat, run) as in :func:`pdireval.per_query`,
        each metric's block sorted by its own first delta.
    settings : dict
        Query policy, test, correction, alpha, resampling, baseline and version.
    definitions : dict
        Metric label -> first sentence of its family's definition.

    Examples
    --------
    >>> import pdireval
    >>> from pdireval.datasets import toy
    >>> report = toy().ireval.report(["AP", "P@5"], baseline="system1")
    >>> report.summary.round(4)
    metric       AP  P@5
    run
    system1  0.6597  0.5
    system2  0.4820  0.4
    >>> print(report.to_markdown().splitlines()[2])
    | run | AP | P@5 |
    """

    summary: pd.DataFrame
    comparison: pd.DataFrame
    per_query: pd.DataFrame
    settings: dict[str, Any] = field(default_factory=dict)
    definitions: dict[str, str] = field(default_factory=dict)

    def __repr__(self) -> str:
        runs = list(self.summary.index)
        metrics = list(self.summary.columns)
        return f"<Report: runs {runs}, metrics {metrics}, {len(self.comparison)} comparisons>"

    # --- tables shared by the renderings ------------------------------------------------

    @property
    def about(self) -> pd.DataFrame:
        """Settings and metric definitions as a two-column (item, value) table."""
        rows = [
            (key, "none" if value is None else str(_plain(value)))
            for key, value in self.settings.items()
        ]
        rows += [(f"metric {label}", text) for label, text in self.definitions.items()]
        return pd.DataFrame(rows, columns=["item", "value"])

    def per_query_flat(self) -> pd.DataFrame:
        """The per-query table with flat columns: metric, query, one per run, ``run - base``."""
        base = self.settings.get("per_query_baseline")
        names = [str(run) if stat == "value" else f"{run} - {base}" for stat, run in self.per_query]
        flat = self.per_query.copy()
        flat.columns = names
        return flat.reset_index()

    def _baselines(self) -> list[Hashable]:
        return list(dict.fromkeys(self.comparison["baseline"]))

    def _significant(self) -> dict[tuple[Hashable, str], list[int]]:
        """(run, metric) -> indices of the baselines it differs from significantly."""
        order = {base: i for i, base in enumerate(self._baselines())}
        marks: dict[tuple[Hashable, str], list[int]] = {}
        rows = self.comparison[self.comparison["significant"]]
        for run, base, metric in zip(rows["run"], rows["baseline"], rows["metric"], strict=True):
            marks.setdefault((run, metric), []).append(order[base])
        return marks

    def _best(self) -> dict[str, Hashable]:
        """Metric -> run with the highest value (higher is better for every metric here)."""
        return {
            label: column.idxmax() for label, column in self.summary.items() if column.notna().any()
        }

    def _legend(self) -> list[tuple[int, Hashable]]:
        return list(enumerate(self._baselines()))

    def _test_text(self) -> str:
        correction = _CORRECTIONS[self.settings.get("correction")]
        return (
            f"{_TESTS[self.settings['test']]}, {correction} correction, "
            f"alpha = {self.settings['alpha']}"
        )

    # --- renderings -----------------------------------------------------------------------

    def to_latex(self, *, digits: int = 4, caption: str | None = None) -> str:
        r"""The summary as a booktabs table: best value per metric bold, significance marked.

        A marker after a value says the run differs significantly from the baseline of
        that marker (see the legend under the table). Needs ``\usepackage{booktabs}``.

        Examples
        --------
        >>> import pdireval
        >>> from pdireval.datasets import toy
        >>> report = toy().ireval.report("P@5", baseline="system1")
        >>> print(report.to_latex())  # doctest: +ELLIPSIS
        \begin{table}
        \centering
        \begin{tabular}{lr}
        \toprule
        run & P@5 \\
        \midrule
        system1 & \textbf{0.5000} \\
        system2 & 0.4000 \\
        \bottomrule
        \end{tabular}
        ...
        \end{table}
        """
        best, marks = self._best(), self._significant()
        labels = list(self.summary.columns)
        lines = [
            r"\begin{table}",
            r"\centering",
            r"\begin{tabular}{l" + "r" * len(labels) + "}",
            r"\toprule",
            " & ".join(["run", *(_latex_escape(str(label)) for label in labels)]) + r" \\",
            r"\midrule",
        ]
        for run, row in self.summary.iterrows():
            cells = [_latex_escape(str(run))]
            for label in labels:
                text = _text(row[label], digits)
                if text and best.get(label) == run:
                    text = rf"\textbf{{{text}}}"
                signs = [_mark(i, _LATEX_MARKS) for i in marks.get((run, label), [])]
                if signs:
                    text += "$^{" + ",".join(signs) + "}$"
                cells.append(text)
            lines.append(" & ".join(cells) + r" \\")
        lines += [r"\bottomrule", r"\end{tabular}"]
        legend = [
            f"${{}}^{{{_mark(i, _LATEX_MARKS)}}}$ significantly different from "
            f"{_latex_escape(str(base))}"
            for i, base in self._legend()
        ]
        note = "; ".join(legend) + (" " if legend else "")
        note += f"({_latex_escape(self._test_text())}). Best value per metric in bold."
        lines += [r"\par\smallskip{\footnotesize " + note.replace("alpha", r"$\alpha$") + "}"]
        if caption:
            lines.append(rf"\caption{{{_latex_escape(caption)}}}")
        lines.append(r"\end{table}")
        return "\n".join(lines)

    def to_markdown(self, *, digits: int = 4) -> str:
        """The three tables as GitHub-flavoured Markdown (no extra package needed).

        Values are written with ``digits`` decimals and no markers, so the tables read
        back as numbers; the ``significant`` column says which differences are significant.
        """
        summary = self.summary.reset_index()
        sections = [
            ("Summary", summary),
            ("Comparison", self.comparison),
            ("Per-query", self.per_query_flat()),
        ]
        out = []
        for title, frame in sections:
            out += [f"## {title}", "", _markdown_table(frame, digits), ""]
        out += [f"Test: {self._test_text()}.", ""]
        return "\n".join(out)

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

    def to_excel(self, path: str | Path) -> Path:
        """Write a workbook with sheets Summary, Comparison, Per-query and About.

        Numbers carry number formats (4 decimals, percentages for ``relative_delta``,
        scientific notation for p-values below 1e-4), header rows are frozen and
        filtered, the best value per metric is bold, significant differences are
        shaded (Summary: the run's cell; Comparison: delta and adjusted p-value, green
        for gains and red for losses), and columns are as wide as their contents.

        Raises
        ------
        MissingDependencyError
            openpyxl is not installed (``pip install 'pdireval[excel]'``).
        """
        try:
            import openpyxl
            from openpyxl.styles import Font, PatternFill
            from openpyxl.utils import get_column_letter
        except ImportError as error:  # pragma: no cover - openpyxl is in the test extra
            msg = (
                "Report.to_excel needs openpyxl, which is not installed; install it with "
                "pip install 'pdireval[excel]' (or pip install openpyxl)"
            )
            raise MissingDependencyError(msg) from error
        bold = Font(bold=True)
        fills = {
            name: PatternFill("solid", start_color=color, end_color=color)
            for name, color in (("gain", "C6EFCE"), ("loss", "FFC7CE"), ("mark", "FFEB9C"))
        }
        book = openpyxl.Workbook()

        def write(title, frame, formats, frozen, styles=None, notes=()):
            sheet = book.active if book.active.title == "Sheet" else book.create_sheet()
            sheet.title = title
            header = [str(name) for name in frame.columns]
            sheet.append(header)
            for cell in sheet[1]:
                cell.font = bold
            widths = [len(name) for name in header]
            for r, row in enumerate(frame.itertuples(index=False), start=2):
                for c, value in enumerate(row, start=1):
                    cell = sheet.cell(row=r, column=c, value=_plain(value))
                    fmt = formats.get(header[c - 1])
                    if isinstance(cell.value, float) and fmt:
                        small = fmt == "p" and 0 < abs(cell.value) < 1e-4
                        cell.number_format = "0.00E+00" if small else _FORMATS[fmt]
                    shown = _shown(cell.value, cell.number_format)
                    widths[c - 1] = max(widths[c - 1], len(shown))
            for (r, c), (font, fill) in (styles or {}).items():
                cell = sheet.cell(row=r + 2, column=c + 1)
                if font:
                    cell.font = bold
                if fill:
                    cell.fill = fills[fill]
            last = get_column_letter(len(header))
            sheet.auto_filter.ref = f"A1:{last}{len(frame) + 1}"
            sheet.freeze_panes = frozen
            for line in notes:
                sheet.append([])
                sheet.append([line])
            for c, width in enumerate(widths, start=1):
                sheet.column_dimensions[get_column_letter(c)].width = min(width + 2, 80)

        # Summary: best bold, significant cells shaded.
        summary = self.summary.reset_index()
        best, marks = self._best(), self._significant()
        styles: dict[tuple[int, int], tuple[bool, str | None]] = {}
        runs = list(self.summary.index)
        for c, label in enumerate(self.summary.columns, start=1):
            for r, run in enumerate(runs):
                styles[r, c] = (best.get(label) == run, "mark" if (run, label) in marks else None)
        legend = ", ".join(str(base) for base in self._baselines())
        write(
            "Summary",
            summary,
            dict.fromkeys(map(str, self.summary.columns), "value"),
            "B2",
            styles,
            notes=[
                "Bold: best value per metric. Shaded: significantly different from a "
                f"baseline ({legend}); see the Comparison sheet ({self._test_text()}).",
            ],
        )
        # Comparison: significant rows marked on delta and p_adjusted.
        comparison = self.comparison
        formats = dict.fromkeys(
            ("mean", "baseline_mean", "delta", "ci_low", "ci_high"), "value"
        ) | {
            "relative_delta": "percent",
            "p_value": "p",
            "p_adjusted": "p",
            "effect_size": "effect",
        }
        columns = list(comparison.columns)
        styles = {}
        for r, (significant, delta) in enumerate(
            zip(comparison["significant"], comparison["delta"], strict=True)
        ):
            if significant:
                fill = "gain" if delta > 0 else "loss"
                for name in ("delta", "p_adjusted", "significant"):
                    styles[r, columns.index(name)] = (True, fill)
        write("Comparison", comparison, formats, "D2", styles)
        flat = self.per_query_flat()
        write("Per-query", flat, dict.fromkeys(map(str, flat.columns[2:]), "value"), "C2")
        write("About", self.about, {}, "A2")
        path = Path(path)
        book.save(path)
        return path

    def _repr_html_(self) -> str:
        """HTML for notebooks: pandas Styler when jinja2 is installed, plain tables if not."""
        try:
            import jinja2  # noqa: F401 - Styler renders with jinja2
        except ImportError:
            styled = False
        else:
            styled = True
        best, rows = self._best(), 50
        flat = self.per_query_flat()
        parts = [f"<p>{len(self.comparison)} comparisons; {self._test_text()}.</p>"]
        for title, frame in (
            ("Summary", self.summary),
            ("Comparison", self.comparison),
            ("Per-query", flat.head(rows)),
        ):
            parts.append(f"<h4>{title}</h4>")
            if not styled:
                parts.append(frame._repr_html_() or frame.to_html())
                continue
            styler = frame.style.format(precision=4)
            if title == "Summary":
                styler = styler.apply(
                    lambda col: [
                        "font-weight: bold" if best.get(col.name) == run else ""
                        for run in col.index
                    ],
                    axis=0,
                )
            elif title == "Comparison":
                styler = styler.apply(_shade_significant, axis=1)
            parts.append(styler.to_html())
        if len(flat) > rows:
            parts.append(f"<p>first {rows} of {len(flat)} per-query rows</p>")
        return "\n".join(parts)


def _shade_significant(row: pd.Series) -> list[str]:
    style = "font-weight: bold; background-color: #C6EFCE" if row["significant"] else ""
    return [style] * len(row)


_FORMATS = {"value": "0.0000", "percent": "0.00%", "p": "0.0000", "effect": "0.00"}


def _shown(value: Any, number_format: str) -> str:
    """Roughly what Excel shows for a value, to size the column."""
    if value is None:
        return ""
    if isinstance(value, float):
        if number_format == "0.00%":
            return f"{value:.2%}"
        if number_format == "0.00E+00":
            return f"{value:.2E}"
        decimals = number_format.count("0") - 1 if "." in number_format else 6
        return f"{value:.{max(decimals, 0)}f}"
    return str(value)


def _latex_escape(text: str) -> str:
    replace = {
        "\\": r"\textbackslash{}",
        "&": r"\&",
        "%": r"\%",
        "$": r"\$",
        "#": r"\#",
        "_": r"\_",
        "{": r"\{",
        "}": r"\}",
        "~": r"\textasciitilde{}",
        "^": r"\textasciicircum{}",
    }
    return "".join(replace.get(char, char) for char in text)


def _markdown_table(frame: pd.DataFrame, digits: int) -> str:
    def cell(value: Any) -> str:
        return _text(value, digits).replace("|", r"\|")

    numeric = [pd.api.types.is_numeric_dtype(dtype) for dtype in frame.dtypes]
    header = "| " + " | ".join(cell(name) for name in frame.columns) + " |"
    rule = "|" + "|".join("---:" if is_number else "---" for is_number in numeric) + "|"
    body = ["| " + " | ".join(cell(v) for v in row) + " |" for row in frame.itertuples(False)]
    return "\n".join([header, rule, *body])


def build_report(
    table: pd.DataFrame,
    metrics: Sequence[Metric],
    evaluation: Evaluation,
    significance: Significance,
) -> Report:
    """Build a :class:`Report` from a per-query table indexed by (run, query)."""
    comparison = compare_table(table, significance)
    runs = list(table.index.get_level_values(0).unique())
    baseline = significance.baseline
    if baseline is None:
        reference = runs[0]
    elif isinstance(baseline, list | tuple):
        reference = baseline[0]
    else:
        reference = baseline
    per_query = pd.concat(
        {label: per_query_table(table, label, baseline=reference) for label in table.columns},
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
        "test description": _TESTS.get(test, test),
        "correction": significance.correction,
        "correction scope": "all comparisons of the report (run pairs x metrics)",
        "alpha": significance.alpha,
        "n_resamples": significance.n_resamples if resampling else None,
        "seed": significance.seed if resampling else None,
        "baseline": baseline if baseline is not None else "all pairs",
        "per_query_baseline": reference,
        "summary": "mean over queries",
    }
    return Report(
        summary=aggregate(table, "mean"),
        comparison=comparison,
        per_query=per_query,
        settings=info,
        definitions={metric.label: definition(metric) for metric in metrics},
    )
