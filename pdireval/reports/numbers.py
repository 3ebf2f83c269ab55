"""How results are written for people: numbers, p-values and significance marks.

One vocabulary for every rendering -- Excel, HTML, Markdown, LaTeX and the command
line -- so that a table reads the same wherever it is pasted:

* metric values with a fixed number of decimals (4 by default), differences with a sign;
* negative numbers with a true minus sign, ``−`` (U+2212), as journals typeset them, in
  every number written as text (:func:`format_value`, :func:`format_delta`); the
  tabular outputs (CSV, JSON, Excel) keep numbers as numbers;
* p-values as journals print them: ``<0.001``, otherwise three significant digits;
* a mark after a value when the run differs significantly from a baseline: ``▲`` better,
  ``▼`` worse, followed by the baseline's letter when there are several baselines
  (``▲a``), explained by a legend that names the test, the correction and alpha.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Hashable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from pdireval.stats.significance import CORRECTIONS, TESTS

__all__ = [
    "BETTER",
    "MINUS",
    "WORSE",
    "Marks",
    "format_delta",
    "format_p",
    "format_percent",
    "format_value",
    "interval_note",
]

BETTER, WORSE = "▲", "▼"
#: The sign of a negative number written as text: the minus sign U+2212, not the hyphen.
MINUS = "\u2212"


def _test_name(test: str) -> str:
    """The test as a reader names it (``paired t-test``)."""
    return TESTS.entry(test).doc if test in TESTS else test


def _correction_name(correction: str | None) -> str:
    """The correction as a reader names it (``Holm's correction``)."""
    if correction is None:
        return "no correction"
    return CORRECTIONS.entry(correction).doc if correction in CORRECTIONS else correction


def _missing(value: Any) -> bool:
    return value is None or value is pd.NA or (isinstance(value, float) and math.isnan(value))


def _number(value: Any, digits: int, plus: str) -> str:
    """A number with ``digits`` decimals, ``−`` before a negative one and ``plus`` before a
    positive one; no sign when it rounds to zero ('' when missing).
    """
    if _missing(value):
        return ""
    number = float(value)
    text = f"{abs(number):.{digits}f}"
    if number == 0 or math.isnan(number) or float(text) == 0:
        return text
    return (MINUS if number < 0 else plus) + text


def format_value(value: Any, digits: int = 4) -> str:
    """A metric value with ``digits`` decimals ('' when missing), a negative one with a
    true minus sign (``−0.52``).

    Examples
    --------
    >>> format_value(0.45), format_value(float("nan")), format_value(12, digits=2)
    ('0.4500', '', '12.00')
    >>> format_value(-0.5237, 2), format_value(-0.00001)
    ('−0.52', '0.0000')
    """
    return _number(value, digits, "")


def format_delta(value: Any, digits: int = 4) -> str:
    """A difference with its sign: ``+0.0123``, ``−0.0040`` (a true minus sign).

    Examples
    --------
    >>> format_delta(0.0123), format_delta(-0.004), format_delta(0.0)
    ('+0.0123', '−0.0040', '0.0000')
    """
    return _number(value, digits, "+")


def format_percent(value: Any) -> str:
    """A relative difference in percent with one decimal: ``+12.3%``.

    Examples
    --------
    >>> format_percent(0.1234), format_percent(-0.5)
    ('+12.3%', '−50.0%')
    """
    if _missing(value) or not math.isfinite(float(value)):
        return ""
    return format_delta(100 * float(value), 1) + "%"


def format_p(value: Any) -> str:
    """A p-value as journals print it: ``<0.001``, else three significant digits.

    Examples
    --------
    >>> format_p(7.3e-18), format_p(0.04846), format_p(0.5), format_p(1.0)
    ('<0.001', '0.0485', '0.500', '1.00')
    """
    if _missing(value):
        return ""
    p = float(value)
    if p < 0.001:
        return "<0.001"
    return f"{p:.{p_decimals(p)}f}"


def p_decimals(p: float) -> int:
    """Decimals that show ``p`` (>= 0.001) with three significant digits."""
    return max(0, 2 - math.floor(math.log10(p))) if p > 0 else 3


@dataclass(frozen=True)
class Marks:
    """Which (run, metric) cells differ significantly from which baseline, and which way.

    Built from a comparison table (:func:`pdireval.compare`); ``baselines`` are listed in
    the order they were compared, each with a letter when there are several.
    """

    baselines: tuple[Hashable, ...]
    cells: dict[tuple[Hashable, str], tuple[tuple[int, bool], ...]]
    test: str
    correction: str | None
    alpha: float
    n_comparisons: int

    @classmethod
    def of(cls, comparison: pd.DataFrame, test: str, correction: str | None, alpha: float) -> Marks:
        """The marks of a comparison table."""
        baselines = tuple(dict.fromkeys(comparison["baseline"]))
        order = {base: i for i, base in enumerate(baselines)}
        cells: dict[tuple[Hashable, str], list[tuple[int, bool]]] = {}
        significant = comparison[comparison["significant"].astype(bool)]
        for run, base, metric, delta in zip(
            significant["run"],
            significant["baseline"],
            significant["metric"],
            significant["delta"],
            strict=True,
        ):
            cells.setdefault((run, str(metric)), []).append((order[base], bool(delta > 0)))
        return cls(
            baselines=baselines,
            cells={key: tuple(sorted(value)) for key, value in cells.items()},
            test=test,
            correction=correction,
            alpha=alpha,
            n_comparisons=len(comparison),
        )

    def letter(self, index: int) -> str:
        """The baseline's letter (empty when there is one baseline)."""
        if len(self.baselines) < 2:
            return ""
        return _letters(index)

    def of_cell(self, run: Hashable, metric: str) -> list[tuple[bool, str]]:
        """(better?, baseline letter) for each baseline the cell differs from."""
        return [(better, self.letter(i)) for i, better in self.cells.get((run, metric), ())]

    def text(self, run: Hashable, metric: str) -> str:
        """The marks of one cell as plain text, e.g. ``▲`` or ``▲a▼b``."""
        return "".join(
            (BETTER if better else WORSE) + letter for better, letter in self.of_cell(run, metric)
        )

    def direction(self, run: Hashable, metric: str) -> int:
        """+1 when the cell is only better, -1 only worse, 0 otherwise (for shading)."""
        ways = {better for better, _ in self.of_cell(run, metric)}
        return 0 if len(ways) != 1 else (1 if ways == {True} else -1)

    def legend(
        self,
        name: Callable[[object], str] = str,
        symbols: tuple[str, str, str] = (BETTER, WORSE, "alpha"),
    ) -> str:
        """One sentence that explains the marks and names the test.

        ``name`` writes a baseline's name for the output format (escaping it);
        ``symbols`` are how the format writes ▲, ▼ and alpha.
        """
        if not self.baselines:
            return "No comparison."
        if len(self.baselines) == 1:
            against = f"than {name(self.baselines[0])}"
        else:
            named = ", ".join(
                f"{_letters(i)} = {name(base)}" for i, base in enumerate(self.baselines)
            )
            against = f"than baseline a, b, ... ({named})"
        test = _test_name(self.test)
        correction = _correction_name(self.correction)
        plural = "s" if self.n_comparisons != 1 else ""
        better, worse, alpha = symbols
        return (
            f"{better}/{worse}: significantly better/worse {against}; {test}, {correction} "
            f"over {self.n_comparisons} comparison{plural}, {alpha} = {self.alpha:g}."
        )


def interval_note(test: str, correction: str | None, alpha: float, n_comparisons: int) -> str:
    """What the interval of a difference is, and how it relates to the marks.

    The interval is computed one comparison at a time, while the marks use p-values
    adjusted over all comparisons (and, for the rank tests, another statistic than the
    mean): the note says so, so that an interval excluding 0 next to an unmarked value
    reads as intended, not as a contradiction.

    Examples
    --------
    >>> print(interval_note("t", "holm", 0.05, 4))  # doctest: +NORMALIZE_WHITESPACE
    CI of Δ: 95% Student t interval of the mean difference, for each comparison on its own
    (not adjusted for multiple comparisons); the marks use p-values after Holm's correction
    over 4 comparisons, so an interval can exclude 0 where no mark is shown.
    >>> print(interval_note("t", None, 0.01, 1))
    CI of Δ: 99% Student t interval of the mean difference.
    """
    kind = "bootstrap percentile" if test == "bootstrap" else "Student t"
    text = f"CI of Δ: {interval_level(alpha)} {kind} interval of the mean difference"
    if correction is not None:
        plural = "s" if n_comparisons != 1 else ""
        return (
            f"{text}, for each comparison on its own (not adjusted for multiple comparisons); "
            f"the marks use p-values after {_correction_name(correction)} over "
            f"{n_comparisons} comparison{plural}, so an interval can exclude 0 where no mark "
            "is shown."
        )
    if test != "t":
        return (
            f"{text}; the marks come from the {_test_name(test)}, which does not test the "
            "mean, so an interval and a mark can disagree."
        )
    return text + "."


def interval_level(alpha: float) -> str:
    """The confidence level ``1 - alpha`` in percent: ``95%``, ``99.9%``.

    Examples
    --------
    >>> interval_level(0.05), interval_level(0.001)
    ('95%', '99.9%')
    """
    return f"{round(100 * (1 - alpha), 6):g}%"


def _letters(index: int) -> str:
    """a, b, ..., z, aa, ab, ..."""
    text = ""
    index += 1
    while index:
        index, rest = divmod(index - 1, 26)
        text = chr(ord("a") + rest) + text
    return text


def best_runs(summary: pd.DataFrame) -> dict[str, set[Hashable]]:
    """Metric -> the runs with its highest value (ties all count as best)."""
    best: dict[str, set[Hashable]] = {}
    for label, column in summary.items():
        values = column.to_numpy(dtype=np.float64)
        if np.isnan(values).all():
            continue
        top = np.nanmax(values)
        best[str(label)] = {run for run, value in column.items() if value == top}
    return best


def column_widths(rows: Sequence[Sequence[str]]) -> list[int]:
    """The width of each column of a table of strings."""
    return [max(len(row[i]) for row in rows) for i in range(len(rows[0]))] if rows else []
