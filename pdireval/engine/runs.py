"""Runs side by side: the one way every analysis of several runs reads its frame.

Comparisons, risk, Tukey's test, meta-evaluation and the judges' conclusions all ask
the same of a frame: evaluate it once (every option of :func:`pdireval.evaluate`, the
query policy among them), take its runs in the user's order, compare runs within each
judge and collection, and line up the values of every run on the same queries. This
module does that once:

* :func:`run_order` -- the user's order of the runs: a categorical run column's
  categories, else the order in which the runs first appear;
* :func:`evaluated` -- the per-query table of a frame with its levels and runs;
* :func:`blocks` -- the table split by judge and collection, every run checked to have
  every seed of its block;
* :func:`matrices` -- one :class:`Matrix` (query x run, a query's value averaged over
  the seeds) per block and metric.

In all-pairs comparisons the run that comes first in the user's order is the baseline
of each pair.
"""

from __future__ import annotations

from collections.abc import Hashable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from pdireval._core.errors import ParameterError, SchemaError
from pdireval._core.levels import Levels
from pdireval._core.options import Evaluation
from pdireval._core.options import whole as options_whole
from pdireval._core.roles import one_at_a_time, resolve
from pdireval.engine import evaluate as _evaluate
from pdireval.metrics import parse_metrics
from pdireval.typing import ColumnsLike, MetricsLike

__all__ = [
    "Block",
    "Evaluated",
    "Matrix",
    "aligned",
    "blocks",
    "evaluated",
    "matrices",
    "run_order",
    "runs_of",
    "seed_sequence",
    "stacked",
    "whole",
]

_SHOWN = 10  # query ids listed in an error message


def run_order(frame: pd.DataFrame, column: Hashable | None) -> list[Hashable] | None:
    """The runs of ``frame`` in the user's order: a categorical column's categories (those
    present; pandas sorts and groups categoricals in this order too), else the order in
    which the runs first appear (as ``pd.concat`` put them); ``None`` without a run column.

    Examples
    --------
    >>> run_order(pd.DataFrame({"run": ["b", "b", "a", "c", "a"]}), "run")
    ['b', 'a', 'c']
    >>> runs = pd.Categorical(["b", "a"], categories=["z", "b", "a"])
    >>> run_order(pd.DataFrame({"run": runs}), "run")
    ['b', 'a']
    """
    if column is None or column not in frame.columns:
        return None
    values = frame[column]
    if isinstance(values.dtype, pd.CategoricalDtype):
        present = np.zeros(len(values.cat.categories), dtype=bool)
        codes = values.cat.codes.to_numpy()
        present[codes[codes >= 0]] = True
        return list(values.cat.categories[present])
    return list(pd.unique(values.dropna().to_numpy()))


def in_order(runs: list[Hashable], order: list[Hashable] | None) -> list[Hashable]:
    """``runs`` in the user's ``order`` (runs it lacks after, in their own order)."""
    if not order:
        return runs
    known = set(runs)
    return [run for run in order if run in known] + [run for run in runs if run not in order]


@dataclass(frozen=True)
class Evaluated:
    """A frame evaluated once: the per-query table, which level is which, and the runs
    in the user's order.
    """

    table: pd.DataFrame
    levels: Levels
    runs: list[Hashable]

    def refuse_more_than_one(self, role: str, action: str) -> None:
        """Refuse a table with several values of ``role`` (judge, collection or seed)
        where ``action`` takes one at a time, saying how to select one.
        """
        name = getattr(self.levels, role)
        if name is None:
            return
        values = list(self.table.index.get_level_values(name).unique())
        if len(values) > 1:
            raise SchemaError(one_at_a_time(role, name, f"the frame of {action}", values))


def evaluated(
    frame: pd.DataFrame,
    metrics: MetricsLike,
    columns: ColumnsLike,
    options: Evaluation | Mapping[str, Any],
    action: str,
) -> Evaluated:
    """Evaluate ``frame`` once for an analysis of its runs (``action`` names the analysis
    in messages): at least two runs, judge, collection and seed levels as
    :func:`pdireval.compare` has them.
    """
    evaluation = options if isinstance(options, Evaluation) else Evaluation.from_options(options)
    roles = resolve(frame, columns)  # once, for the evaluation and the runs' order
    table, levels = _evaluate.per_part(frame, parse_metrics(metrics), roles, evaluation)
    runs = runs_of(table, action, levels)
    order = run_order(frame, roles.run)
    return Evaluated(table, levels, in_order(runs, order))


def runs_of(table: pd.DataFrame, action: str, levels: Levels | None = None) -> list[Hashable]:
    """The runs of a per-query table (in table order); at least two, else :class:`SchemaError`."""
    if not isinstance(table.index, pd.MultiIndex) or (levels is not None and levels.run is None):
        msg = (
            f"{action} needs a frame with a run column and at least two runs; this frame has "
            "no run column (name it 'run' or map it with df.ireval(run='<column>'))"
        )
        raise SchemaError(msg)
    runs = list(table.index.get_level_values(0).unique())
    if len(runs) < 2:
        msg = (
            f"{action} needs at least two runs; the run column holds only {runs}. "
            "Put the runs to compare in one frame (pd.concat, then pdireval.merge_qrels)"
        )
        raise SchemaError(msg)
    return runs


@dataclass(frozen=True)
class Block:
    """The rows of one (judge, collection): ``key`` the (level, value) of each present,
    ``table`` indexed by (run, [seed,] query).
    """

    key: tuple[tuple[Hashable, Hashable], ...]
    table: pd.DataFrame

    @property
    def where(self) -> str:
        """``in dataset='c1'``: where the block is, for messages."""
        if not self.key:
            return "in the table"
        return "in " + ", ".join(f"{name}={value!r}" for name, value in self.key)

    def labelled(self, out: pd.DataFrame) -> pd.DataFrame:
        """``out`` with a first column per level of the key, holding its value."""
        for at, (name, value) in enumerate(self.key):
            if name in out.columns:
                msg = (
                    f"the level {name!r} is named like a column of the result "
                    f"{list(out.columns)}; rename that column of the frame"
                )
                raise SchemaError(msg)
            out.insert(at, name, [value] * len(out))
        return out


def blocks(found: Evaluated, action: str, *, one: bool = False) -> list[Block]:
    """The table of ``found`` per (judge, collection), in table order; every run present
    in each block and, with a seed level, with the same seeds.

    ``one``: the analysis takes one judge and collection at a time; a table of several
    is refused, saying how to select one.
    """
    levels, table = found.levels, found.table
    if not levels.within:
        out = [Block((), table)]
    else:
        by = levels.within[0] if len(levels.within) == 1 else levels.within
        out = []
        for key, part in table.groupby(level=by, sort=False, observed=True):
            values = key if isinstance(key, tuple) else (key,)
            named = tuple(zip(levels.within, values, strict=True))
            out.append(Block(named, part.droplevel(levels.within)))
    if one:
        for role in ("judge", "collection"):
            found.refuse_more_than_one(role, action)
    for block in out:
        present = set(block.table.index.get_level_values(0))
        absent = [run for run in found.runs if run not in present]
        if absent:
            msg = (
                f"runs {absent} have no rows {block.where}, where other runs have; runs are "
                "compared within each judge and collection, so every run needs results "
                "for each of them"
            )
            raise SchemaError(msg)
        if levels.seed is not None:
            check_seeds(block.table, found.runs, levels.seed, block.where)
    return out


def check_seeds(part: pd.DataFrame, runs: list[Hashable], seed: Hashable, where: str) -> None:
    """Every run has every seed of the block, else :class:`SchemaError` naming them."""
    pairs = pd.MultiIndex.from_arrays(
        [part.index.get_level_values(0), part.index.get_level_values(part.index.names.index(seed))]
    ).unique()
    seeds = list(dict.fromkeys(pairs.get_level_values(1)))
    have: dict[Hashable, set] = {run: set() for run in runs}
    for run, value in pairs:
        have[run].add(value)
    for run in runs:
        missing = [value for value in seeds if value not in have[run]]
        if missing:
            msg = (
                f"run {run!r} has no results for {seed}={missing[0]!r} {where} "
                f"(missing {seed} values: {missing}), which other runs have; compare runs on "
                f"the same {seed} values: add those results or drop that {seed} for every run"
            )
            raise SchemaError(msg)


def aligned(table: pd.DataFrame, label: str, where: str = "") -> pd.DataFrame:
    """Query x run values of one metric (a (run, query) table); refuse queries that
    some runs lack.

    Queries without a value for every run (all NaN: unjudged under ``queries="all"``)
    are left out, as :func:`pdireval.summary` skips them. ``where`` says where the
    table comes from (``in dataset='c1'``) for the messages.
    """
    prefix = f"{where}: " if where and where != "in the table" else ""
    wide = table[label].unstack(level=0)
    missing = wide.isna()
    partial = missing.any(axis=1) & ~missing.all(axis=1)
    if partial.any():
        queries = list(wide.index[partial])
        lacking = [run for run in wide.columns if missing.loc[partial, run].any()]
        shown = queries[:_SHOWN] + (["..."] if len(queries) > _SHOWN else [])
        many = f"{len(queries)} quer{'y' if len(queries) == 1 else 'ies'}"
        undefined = table[label].unstack(level=0, fill_value=0).isna()  # NaN values, not rows
        if undefined.loc[partial].any().any():  # the rows exist: the metric is undefined there
            msg = prefix + (
                f"{label} is undefined (NaN) for runs {lacking} on {many} where other runs "
                f"have a value: {shown}. A paired test needs a value of every run on every "
                f"query: compare a metric defined everywhere, or drop those queries first"
            )
            raise SchemaError(msg)
        msg = prefix + (
            f"runs {lacking} have no {label} value for {many} that other runs have: {shown}. "
            "Runs are compared on the same queries: evaluate with queries='judged' and give "
            "every run the judgments of every query (pdireval.merge_qrels(run, qrels) does), "
            "or remove those queries from the frame"
        )
        raise SchemaError(msg)
    wide = wide.loc[~missing.all(axis=1)]
    if wide.empty:
        msg = f"{prefix}no query has a {label} value for the runs; nothing to compare"
        raise SchemaError(msg)
    return wide


def seed_means(table: pd.DataFrame, label: str, seed: Hashable, where: str) -> pd.DataFrame:
    """A (run, seed, query) table of one metric as (run, query): each query's value
    averaged over the seeds, refusing a query that has a value for some seeds only.
    """
    cube = table[label].unstack(level=seed)
    holes = cube.isna().any(axis=1) & ~cube.isna().all(axis=1)
    if holes.any():
        queries = list(dict.fromkeys(cube.index[holes].get_level_values(-1)))
        shown = queries[:_SHOWN] + (["..."] if len(queries) > _SHOWN else [])
        msg = (
            f"{label} has a value for some {seed} values of queries {shown} {where} but not "
            f"for others; each query needs a value for every {seed}: drop those queries"
        )
        raise SchemaError(msg)
    return cube.mean(axis=1, skipna=False).to_frame(label)


class Matrix:
    """The values of one metric in one block: ``values[query, run]``, every run (in the
    user's order) on the same queries; ``block`` where they come from.
    """

    __slots__ = ("block", "metric", "queries", "runs", "values")

    def __init__(self, metric: str, wide: pd.DataFrame, block: Block | None = None) -> None:
        self.metric = metric
        self.runs: list[Hashable] = list(wide.columns)
        self.queries: pd.Index = wide.index
        self.values: np.ndarray = wide.to_numpy(np.float64)
        self.block = block if block is not None else Block((), wide)


def matrices(
    frame: pd.DataFrame,
    metrics: MetricsLike,
    columns: ColumnsLike,
    options: Evaluation | Mapping[str, Any],
    action: str,
    *,
    one: bool = False,
) -> Iterator[Matrix]:
    """Evaluate ``frame`` once and give one :class:`Matrix` per (judge, collection) and
    metric, in that order; with a seed column each query's value is its mean over the
    seeds. ``one``: refuse a frame of several judges or collections (see :func:`blocks`).
    """
    found = evaluated(frame, metrics, columns, options, action)
    for block in blocks(found, action, one=one):
        for label in block.table.columns:
            part = block.table
            if found.levels.seed is not None:
                part = seed_means(part, label, found.levels.seed, block.where)
            wide = aligned(part, label, block.where)
            yield Matrix(label, wide[found.runs], block)


def stacked(
    parts: list[tuple[Block, pd.DataFrame]], columns: Sequence[str], by: Sequence[str]
) -> pd.DataFrame:
    """The rows of an analysis, block by block (in order): within a block, ordered by
    the first appearance of their ``by`` values (e.g. the pairs, in the runs' order)
    and then as given; a first column per judge and collection level, then ``columns``.
    """
    out = []
    for key in dict.fromkeys(block.key for block, _ in parts):
        rows = pd.concat([found for block, found in parts if block.key == key], ignore_index=True)
        keys = list(zip(*(rows[column] for column in by), strict=True))
        first = {value: at for at, value in enumerate(dict.fromkeys(keys))}
        order = np.argsort(
            np.array([first[value] for value in keys], dtype=np.int64), kind="stable"
        )
        chosen = rows.iloc[order][list(columns)].reset_index(drop=True)
        out.append(Block(key, chosen).labelled(chosen))
    names = [name for name, _ in parts[0][0].key] if parts else []
    return pd.concat(out, ignore_index=True)[[*names, *columns]]


def whole(name: str, value: Any, minimum: int) -> int:
    """``value`` as an int >= ``minimum``, else :class:`~pdireval.ParameterError`."""
    return int(options_whole(name, value, minimum))  # type: ignore[arg-type]


def seed_sequence(seed: Any) -> np.random.SeedSequence:
    """The seed of a resampling analysis as a SeedSequence: every metric of a call draws
    the same resamples from it, also when no seed was given.
    """
    if isinstance(seed, np.random.SeedSequence):
        return seed
    whole_number = isinstance(seed, int | np.integer) and not isinstance(seed, bool)
    if seed is None or (whole_number and seed >= 0):
        return np.random.SeedSequence(None if seed is None else int(seed))
    msg = f"seed={seed!r} must be a whole number >= 0, a numpy SeedSequence or None"
    raise ParameterError(msg)
