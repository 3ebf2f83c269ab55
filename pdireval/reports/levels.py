"""The wide paper table of a report over collections, judges and seeds.

Papers that evaluate on several collections (BEIR and the like) print one row per
system and, for each collection, a block of metric columns, then a macro average: the
mean of the collection means. This module computes that table from a per-query table
with judge, collection and seed levels (:class:`~pdireval._core.levels.Levels`), and lays
any report table out as a :class:`Grid` -- header rows with their spans, row labels
and cells -- that the LaTeX, Markdown, HTML and Excel writers render, as it is or
transposed.
"""

from __future__ import annotations

from collections.abc import Hashable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, cast

import numpy as np
import pandas as pd

from pdireval._core.errors import SchemaError
from pdireval._core.levels import Levels
from pdireval.stats.significance import scipy_stats
from pdireval.stats.summary import aggregate

if TYPE_CHECKING:  # pragma: no cover
    from pdireval.reports.model import Report

__all__ = ["MACRO", "Grid", "cell_key", "grid_of", "levelled_summary"]

#: The label of the macro-average block (the mean of the collection means).
MACRO = "Average"


def cell_key(label: Any) -> str:
    """The text that names a column of the paper table for its marks: the metric's
    label, or the parts of a (judge, collection, metric) column joined.
    """
    if isinstance(label, tuple):
        return "\x1f".join(str(part) for part in label)
    return str(label)


def t_half_widths(count: pd.DataFrame, spread: pd.DataFrame) -> pd.DataFrame:
    """Half-width of the 95% Student t interval from counts and standard deviations."""
    stats = scipy_stats()
    factor = pd.DataFrame(
        stats.t.ppf(0.975, np.maximum(count.to_numpy() - 1, 1)),
        index=count.index,
        columns=count.columns,
    )
    half = pd.DataFrame(factor * spread / np.sqrt(count))
    return half.where(count >= 2)


def _by(names: list[Hashable]) -> Any:
    return names[0] if len(names) == 1 else names


def _blocks(table: pd.DataFrame, levels: Levels) -> list[tuple]:
    """The (judge, collection) values of the table, in the order they first appear."""
    if not levels.within:
        return [()]
    arrays = [table.index.get_level_values(table.index.names.index(n)) for n in levels.within]
    return list(dict.fromkeys(zip(*arrays, strict=True)))


def levelled_summary(
    table: pd.DataFrame, levels: Levels, order: Sequence[Hashable]
) -> tuple[pd.DataFrame, pd.DataFrame, bool]:
    """The paper table's means, their ± half-widths, and whether it has a macro average.

    Each cell is the mean over queries; with a seed level, the mean over seeds of each
    seed's mean, and ± is the 95% t interval across the seeds' means. Without seeds, ±
    is the 95% t interval over the queries, and the macro average has none. The macro
    average (one block per judge) is the mean of the collection means, when there are
    two collections or more.
    """
    per_group = aggregate(table, "mean", levels)
    assert isinstance(per_group, pd.DataFrame)  # grouped by the run at least
    means, half = _cell_means(table, per_group, levels)
    blocks = _blocks(table, levels)
    macro = _has_macro_average(blocks, levels)
    if not levels.within:
        return means.reindex(list(order)), half.reindex(list(order)), False
    parts_mean = {block: _block_of(means, block, levels) for block in blocks}
    parts_half = {block: _block_of(half, block, levels) for block in blocks}
    judges = list(dict.fromkeys(block[:-1] for block in blocks)) if macro else []
    if macro:
        macro_mean, macro_half = _macro_average(per_group, levels)
        for judge in judges:
            key = (*judge, MACRO)
            parts_mean[key] = _judge_of(macro_mean, judge, levels)
            parts_half[key] = _judge_of(macro_half, judge, levels)
    columns = _column_order(list(parts_mean), judges)
    summary = _side_by_side(parts_mean, columns, levels)
    intervals = _side_by_side(parts_half, columns, levels)
    return summary.reindex(list(order)), intervals.reindex(list(order)), macro


def _cell_means(
    table: pd.DataFrame, per_group: pd.DataFrame, levels: Levels
) -> tuple[pd.DataFrame, pd.DataFrame]:
    """The mean of each (run, judge, collection) and its ± half-width: across the seeds'
    means with a seed level, else across the queries.
    """
    groups = _by([levels.run, *levels.within])
    if levels.seed is not None:
        grouped = per_group.groupby(level=groups, sort=False, observed=True)
        return grouped.mean(), t_half_widths(grouped.count(), grouped.std(ddof=1))
    grouped = table.groupby(level=groups, sort=False, observed=True)
    return per_group, t_half_widths(grouped.count(), grouped.std(ddof=1))


def _has_macro_average(blocks: list[tuple], levels: Levels) -> bool:
    """Whether the table has a macro average: two collections or more.

    Raises
    ------
    SchemaError
        When a collection has the macro average's name.
    """
    collections = {block[-1] for block in blocks} if levels.collection is not None else set()
    macro = len(collections) > 1
    if macro and MACRO in collections:
        msg = (
            f"a {levels.collection} is named {MACRO!r}, the name of the report's macro-average "
            f"column; rename that {levels.collection}"
        )
        raise SchemaError(msg)
    return macro


def _block_of(frame: pd.DataFrame, block: tuple, levels: Levels) -> pd.DataFrame:
    """The rows of one (judge, collection) block, without its levels."""
    key = block if len(block) > 1 else block[0]
    return cast(pd.DataFrame, frame.xs(key, level=_by(levels.within)))


def _macro_average(per_group: pd.DataFrame, levels: Levels) -> tuple[pd.DataFrame, pd.DataFrame]:
    """The mean of the collection means per (run, judge), and its ± half-width across the
    seeds (none without seeds).
    """
    by_judge = [levels.run, *([levels.judge] if levels.judge is not None else [])]
    seeded = [*by_judge, *([levels.seed] if levels.seed is not None else [])]
    per_seed_macro = per_group.groupby(level=_by(seeded), sort=False, observed=True).mean()
    if levels.seed is None:
        return per_seed_macro, per_seed_macro * np.nan
    grouped = per_seed_macro.groupby(level=_by(by_judge), sort=False, observed=True)
    return grouped.mean(), t_half_widths(grouped.count(), grouped.std(ddof=1))


def _judge_of(frame: pd.DataFrame, judge: tuple, levels: Levels) -> pd.DataFrame:
    """The rows of one judge (all rows when the table has no judge level)."""
    if not judge:
        return frame
    return cast(pd.DataFrame, frame.xs(judge[0], level=levels.judge))


def _side_by_side(
    parts: dict[tuple, pd.DataFrame], columns: list[tuple], levels: Levels
) -> pd.DataFrame:
    """The blocks ``columns`` of ``parts`` side by side, column levels named."""
    names = [*levels.within, "metric"]
    wide = pd.concat({c: parts[c] for c in columns}, axis=1, names=names[:-1])
    wide.columns = wide.columns.set_names(names)
    return wide


def _column_order(blocks: list[tuple], judges: list[tuple]) -> list[tuple]:
    """The blocks in table order, each judge's macro average after its collections."""
    if not judges:
        return blocks
    out = []
    for judge in judges:
        out += [b for b in blocks if b[:-1] == judge and b[-1] != MACRO]
        out.append((*judge, MACRO))
    return out


# --- the layout every writer renders ----------------------------------------------------


@dataclass(frozen=True)
class Grid:
    """A paper table laid out for a writer, names not yet escaped.

    ``header`` holds the header rows over the value columns, top to bottom, each a list
    of (text, span); ``corner`` the headers of the row-label columns (written on the
    last header row); ``labels`` each row's labels ('' where it repeats the row above);
    ``cells`` each row's (value text, marks as (better?, baseline letter), best?);
    ``breaks`` the rows that start a new group (a rule above them).
    """

    corner: list[str]
    header: list[list[tuple[str, int]]]
    labels: list[list[str]]
    cells: list[list[tuple[str, list[tuple[bool, str]], bool]]]
    breaks: list[int]

    @property
    def width(self) -> int:
        """The number of value columns."""
        return sum(span for _, span in self.header[-1])


def _spans(keys: list[tuple], depth: int) -> list[tuple[str, int]]:
    """Runs of equal prefixes (the first ``depth + 1`` parts) of ``keys``, as (text, span)."""
    out: list[tuple[str, int]] = []
    previous: tuple | None = None
    for key in keys:
        prefix = key[: depth + 1]
        if out and prefix == previous:
            out[-1] = (out[-1][0], out[-1][1] + 1)
        else:
            out.append((str(key[depth]), 1))
        previous = prefix
    return out


def grid_of(
    report: Report, *, ci: bool, digits: int, transpose: bool = False, short: bool = False
) -> Grid:
    """The report's paper table as a :class:`Grid`: runs x columns, or transposed;
    ``short`` names the runs R1, R2, ...
    """
    runs = list(report.summary.index)
    names = report.run_labels(short=short)
    columns = [c if isinstance(c, tuple) else (c,) for c in report.summary.columns]
    grid_cells = _grid_cells(report, ci=ci, digits=digits)
    depth = len(columns[0]) if columns else 1
    if not transpose:
        header = [_spans(columns, level) for level in range(depth)]
        return Grid(
            corner=["Run"],
            header=header,
            labels=[[names[run]] for run in runs],
            cells=grid_cells,
            breaks=[],
        )
    level_names = list(report.summary.columns.names) if depth > 1 else []
    corner = [str(name) for name in level_names[:-1]] + ["Metric"]
    labels, breaks = _row_labels(columns, depth)
    cells = [[grid_cells[r][c] for r in range(len(runs))] for c in range(len(columns))]
    return Grid(
        corner=corner,
        header=[[(names[run], 1) for run in runs]],
        labels=labels,
        cells=cells,
        breaks=breaks,
    )


def _grid_cells(
    report: Report, *, ci: bool, digits: int
) -> list[list[tuple[str, list[tuple[bool, str]], bool]]]:
    """The cells of the runs x columns table: (value text, marks, best?)."""
    marks = report.marks
    rows = report.cells(ci=ci, digits=digits)
    return [
        [
            (text, marks.of_cell(run, cell_key(label)), best)
            for (text, _, best), label in zip(row, report.summary.columns, strict=True)
        ]
        for run, row in zip(report.summary.index, rows, strict=True)
    ]


def _row_labels(columns: list[tuple], depth: int) -> tuple[list[list[str]], list[int]]:
    """The transposed table's row labels, and the rows where the first part of the label
    changes (a new group, when labels have two parts or more).
    """
    labels, breaks = [], []
    previous: tuple | None = None
    for at, key in enumerate(columns):
        labels.append(_label_parts(key, previous, depth))
        if depth > 1 and previous is not None and previous[0] != key[0]:
            breaks.append(at)
        previous = key
    return labels, breaks


def _label_parts(key: tuple, previous: tuple | None, depth: int) -> list[str]:
    """The parts of one row's label: '' for each part but the last that repeats the row above."""
    shown = []
    for part in range(depth):
        same = previous is not None and previous[: part + 1] == key[: part + 1]
        shown.append("" if same and part < depth - 1 else str(key[part]))
    return shown
