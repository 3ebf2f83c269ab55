"""The command line's evaluation of TREC files: read the qrels and runs, evaluate, summarise
as trec_eval does, and write the chosen format.
"""

from __future__ import annotations

import argparse
import dataclasses
import io
import json
import math
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, TypeVar, cast

import numpy as np
import pandas as pd

import pdireval
from pdireval._core.errors import ParameterError, SchemaError
from pdireval.cli.files import STDIN, USAGE, InputError, UsageError, read_trec_file
from pdireval.cli.measures import (
    _COMPACT,
    _Measure,
    _metric,
    _metrics,
    _trec_measures,
    parse_measures,
)
from pdireval.cli.prefs import run_prefs
from pdireval.cli.versions import judged_queries_by_version, reset_empty_rankings
from pdireval.cli.zscores import floored_logs, standardise
from pdireval.engine.merge import merge_qrels
from pdireval.io.trec import _run_lines, read_qrels, read_run
from pdireval.metrics import Metric, parse_metric
from pdireval.metrics.interpolated import relevant_needed
from pdireval.reports.formats import Format, formats
from pdireval.reports.formats.json import records

if TYPE_CHECKING:
    from pdireval.reports.model import Report


def _options(args: argparse.Namespace, qrels: pd.DataFrame) -> dict:
    """trec_eval's -c, -M and -J, and the judgments, as the keyword arguments of every
    evaluating call (the runs are matched with the qrels without a merged frame).
    """
    return {
        "queries": "judged" if args.complete else "retrieved",
        "max_rank": args.max_rank,
        "judged_only": args.judged_only,
        "trec_eval_version": args.trec_eval_version,
        "qrels": qrels,
    }


def _evaluate(
    frame: pd.DataFrame, qrels: pd.DataFrame, measures: list[_Measure], args: argparse.Namespace
):
    """Per-query values (index (run, query)) with one column per measure name."""
    metrics = {m.name: _metric(m, args.level) for m in measures if m.metric}
    unique = list(dict.fromkeys(metrics.values()))
    counts = [parse_metric("NumRet"), _metric(_trec_measures("num_rel", None)[0], args.level)]
    unique += [metric for metric in counts if metric not in unique]
    values = pdireval.evaluate(frame, unique, **_options(args, qrels))
    table = pd.DataFrame(
        {name: values[metric.label] for name, metric in metrics.items()}, index=values.index
    )
    num_ret, num_rel = (values[metric.label].to_numpy() for metric in counts)
    for name, metric in metrics.items():
        _as_trec_eval(table, name, metric, num_ret, num_rel, args)
    _add_relstrings(table, frame, qrels, measures, args)
    return table


def _as_trec_eval(
    table: pd.DataFrame,
    name: str,
    metric: Metric,
    num_ret: np.ndarray,
    num_rel: np.ndarray,
    args: argparse.Namespace,
) -> None:
    """Give column ``name`` of ``table`` trec_eval's values where trec_eval's differ."""
    family = metric.family.name
    if args.judged_only and family in ("IPrec", "iAP"):
        # trec_eval divides 0 by 0 when -J leaves a query nothing retrieved: its
        # interpolated precision is NaN at every recall level needing no relevant
        # document, and so is the 11-point average, whose first level (0.0) needs none
        level = float(metric.k or 0.0) if family == "IPrec" else 0.0
        version = metric.parameters["version"] or args.trec_eval_version
        needed = relevant_needed(level, num_rel, version)
        table.loc[(num_ret == 0) & (needed == 0), name] = np.nan
    if family == "Rndcg" and args.level is not None:
        # trec_eval's Rndcg ignores -l but for a query with no document at that level
        table.loc[num_rel == 0, name] = 0.0


def _add_relstrings(
    table: pd.DataFrame,
    frame: pd.DataFrame,
    qrels: pd.DataFrame,
    measures: list[_Measure],
    args: argparse.Namespace,
) -> None:
    """Add a column to ``table`` per relstring measure, when printed per query."""
    for m in measures:
        if m.summary == "relstring" and args.per_query:
            labelled = merge_qrels(frame, qrels)
            table[m.name] = _relstrings(labelled, m.length, args).reindex(table.index)


def _evaluate_checked(
    frame: pd.DataFrame, qrels: pd.DataFrame, measures: list[_Measure], args: argparse.Namespace
):
    """``_evaluate``, and when it refuses the frame, the files' own line-numbered error
    where a run file lists a document twice for a query.
    """
    try:
        return _evaluate(frame, qrels, measures, args)
    except SchemaError:
        for path in args.runs:
            if path != STDIN:  # the standard input can be read only once
                read_run(path)  # raises "file, line N: document ... appears twice"
        raise


def _relstrings(frame: pd.DataFrame, length: int, args: argparse.Namespace) -> pd.Series:
    """trec_eval's ``relstring``: the labels of each ranking's first ``length`` documents,
    a character each -- the label 0-9, ``>`` above 9, ``.`` for a negative label
    (judged but unusable), ``-`` for a document not in the qrels. Rankings are ordered
    as trec_eval orders them (score, then doc id, descending), cut at ``-M`` and, with
    ``-J``, left with their judged documents only.
    """
    rows = frame.loc[frame["score"].notna(), ["run", "query", "doc", "score", "rel"]]
    rows = rows.sort_values(
        ["run", "query", "score", "doc"], ascending=[True, True, False, False], kind="stable"
    )
    if args.max_rank is not None:
        rows = rows[_places(rows) < args.max_rank]
    if args.judged_only:
        rows = rows[rows["rel"].to_numpy(dtype=np.float64, na_value=np.nan) >= 0]
    rows = rows[_places(rows) < max(length, 0)]
    labels = rows["rel"].to_numpy(dtype=np.float64, na_value=np.nan)
    digits = np.clip(np.nan_to_num(labels, nan=0), 0, 9).astype(np.int64).astype(str)
    chars = np.where(np.isnan(labels), "-", np.where(labels < 0, ".", digits))
    chars = np.where(labels > 9, ">", chars)
    strings = pd.Series(chars, index=pd.MultiIndex.from_arrays([rows["run"], rows["query"]]))
    return strings.groupby(level=[0, 1], sort=False, observed=True).agg("".join)


def _places(rows: pd.DataFrame) -> np.ndarray:
    """Each row's 0-based place in its (run, query) ranking, rows in ranking order."""
    return rows.groupby(["run", "query"], sort=False, observed=True).cumcount().to_numpy()


def _in_order(values: np.ndarray) -> float:
    """Sum added up one value after the other, as trec_eval accumulates it."""
    return float(np.cumsum(values)[-1]) if len(values) else 0.0


def _exact_sum(values: np.ndarray) -> float:
    """The sum correctly rounded (the mean of 0.69 and 0.70 prints as 0.695)."""
    return math.fsum(values)


def _summarise(
    values: pd.DataFrame,
    measures: list[_Measure],
    retrieved: pd.MultiIndex,
    *,
    add: Callable[[np.ndarray], float] = _in_order,
    standardised: bool = False,
) -> pd.DataFrame:
    """One row per run, a column per measure, aggregated as trec_eval aggregates.

    trec_eval adds the values of the queries that retrieved something one by one, in
    the order of their ids as strings, and divides by the number of queries (with -c,
    of judged queries, the others adding 0 -- or log(0.00001) to a geometric mean).
    ``add`` sums: in trec_eval's order for its output (its last printed digit depends on
    it), or ``_exact_sum`` for tables whose numbers are printed in full. ``standardised``:
    the values are z-scores (``-Z``), counts summed as they are, and those of a geometric
    mean z-scores of the logs (trec_eval standardises the log it keeps per query).
    """
    rows = {}
    for run, block in values.groupby(level="run", sort=True, observed=True):
        queries = block.index.get_level_values(-1)
        order = np.argsort(np.asarray(queries.astype(str), dtype=object), kind="stable")
        block = block.iloc[order]
        seen = block.index.isin(retrieved)
        row: dict[str, object] = {}
        for m in measures:
            if m.summary == "relstring":  # per query only
                continue
            if m.summary == "runid":
                row[m.name] = run
            elif m.summary == "num_q":
                row[m.name] = len(block)
            else:
                column = block[m.name].to_numpy(dtype=np.float64)
                if not len(column):
                    row[m.name] = 0.0
                elif m.summary == "sum" and not standardised:
                    row[m.name] = round(math.fsum(column))
                elif m.summary == "sum":  # z-scores, added up as trec_eval adds them
                    row[m.name] = add(column[seen])
                elif m.summary == "gmean":
                    # under -Z the values are already z-scores of the logs
                    logs = column[seen] if standardised else floored_logs(column[seen])
                    total = add(logs) + np.count_nonzero(~seen) * math.log(1e-5)
                    row[m.name] = math.exp(total / len(column))
                else:
                    row[m.name] = add(column[seen]) / len(column)
        rows[run] = row
    # one row per run even without a summary line (relstring alone)
    return pd.DataFrame(list(rows.values()), index=pd.Index(list(rows), name="run"))


def _value(measure: _Measure, value: object, *, z: bool = False) -> str:
    """A value as trec_eval prints it (``%6.4f`` for a number: ``0.0 / 0.0`` is ``  -nan``;
    under ``-Z`` every number, counts too).
    """
    if measure.summary == "runid":
        return str(value)
    if measure.summary == "relstring":
        return f"'{value if isinstance(value, str) else ''}'"  # NaN: nothing retrieved
    if measure.summary in ("num_q", "sum") and not z:
        return str(round(float(value)))  # type: ignore[arg-type]
    number = float(value)  # type: ignore[arg-type]
    if math.isnan(number):  # C prints the sign of a NaN; trec_eval's own are 0 / 0, -nan
        return "   nan" if z and math.copysign(1.0, number) > 0 else "  -nan"
    return f"{number:6.4f}"


def _name(measure: _Measure, z: bool) -> str:
    """A measure's name as printed: padded to 22, after ``Z`` for a standardised one."""
    prefix = "Z" if z and measure.summary not in ("runid", "relstring") else ""
    return f"{prefix}{measure.name:<22}"


def _trec_lines(run, values, summary, measures, retrieved, args) -> list[str]:
    z = args.zscores is not None
    lines: list[str] = []
    if args.per_query:
        block = values.xs(run, level="run")
        ran = retrieved.get_level_values("query")[retrieved.get_level_values("run") == run]
        block = block[block.index.isin(ran)]
        texts = np.asarray(block.index.astype(str), dtype=object)
        order = np.argsort(texts, kind="stable")  # trec_eval's order: ids as strings
        shown = [m for m in measures if m.summary not in ("runid", "num_q", "gmean")]
        cells = [[_value(m, v, z=z) for v in block[m.name].to_numpy()[order]] for m in shown]
        names = [_name(m, z) for m in shown]
        for at, query in enumerate(texts[order]):
            lines.extend(
                f"{name}\t{query}\t{column[at]}" for name, column in zip(names, cells, strict=True)
            )
    if not args.no_summary:
        for m in measures:
            if m.summary == "relstring":
                continue
            lines.append(f"{_name(m, z)}\tall\t{_value(m, summary.at[run, m.name], z=z)}")
    return lines


# --------------------------------------------------------------------------- commands


def _load(
    args: argparse.Namespace,
) -> tuple[pd.DataFrame, pd.DataFrame, pd.MultiIndex, pd.MultiIndex]:
    """The runs in one frame (a run column naming each), the qrels, the (run, query)
    pairs that retrieved something, and those that trec_eval 10.0 ranks its one document
    for (``-c``: judged queries without results).

    One file is one run, as in trec_eval, whatever its tag column holds: the run is named
    by the tag of its last line (trec_eval's ``runid``), or by its file name when two files
    end with the same tag.
    """
    qrels = _reading(args.qrels, _qrels_file)
    read = [_reading(path, _run_file) for path in args.runs]
    names = _run_names([tag for _, tag in read], args.runs)
    runs, empty = judged_queries_by_version([run for run, _ in read], qrels, args)
    queries = [run["query"].unique().astype(object) for run in runs]
    _refuse_unjudged_runs(queries, qrels, args)
    which = np.repeat(np.arange(len(runs), dtype=np.int32), [len(run) for run in runs])
    frame = runs[0] if len(runs) == 1 else pd.concat(runs, ignore_index=True)
    frame["run"] = pd.Categorical.from_codes(which, dtype=pd.CategoricalDtype(names))
    _note_unjudged(np.unique(np.concatenate(queries)), qrels)
    return frame, qrels, _pairs(names, queries), _pairs(names, empty)


def _run_names(tags: list[str | None], paths: list[str]) -> list[str]:
    """Each run's name: the tag of its last line (trec_eval's runid), an empty run's its
    file's; every run's file name when two runs end with the same tag.
    """
    names = [tag or _file_name(path) for tag, path in zip(tags, paths, strict=True)]
    if len(set(names)) != len(names):  # e.g. two files tagged STANDARD: name runs by file
        names = [_file_name(path) for path in paths]
        if len(set(names)) != len(names):
            msg = f"two runs share the tag and the file name {names}; rename one"
            raise UsageError(msg)
    return names


def _pairs(names: list[str], queries: list[np.ndarray]) -> pd.MultiIndex:
    """The (run, query) pairs of each run's queries."""
    return pd.MultiIndex.from_arrays(
        [
            np.repeat(np.asarray(names, dtype=object), [len(ids) for ids in queries]),
            np.concatenate(queries) if queries else np.array([], dtype=object),
        ],
        names=["run", "query"],
    )


def _file_name(path: str) -> str:
    """A run's name when its tag does not name it: its file's name (``stdin`` for -)."""
    return "stdin" if path == "-" else Path(path).name


def _refuse_unjudged_runs(
    queries: list[np.ndarray], qrels: pd.DataFrame, args: argparse.Namespace
) -> None:
    """Refuse a run none of whose queries has judgments, as trec_eval refuses it (status
    7: no query with both results and judgments) -- among several runs too, where it
    would otherwise leave the table without a word.
    """
    # as Python strings: isin on Arrow strings converts the values one by one
    judged = pd.Index(qrels["query"].unique(), dtype=object)
    for path, ids in zip(args.runs, queries, strict=True):
        if not judged.isin(ids).any():
            msg = (
                f"no query of run file '{path}' has judgments in '{args.qrels}' (the run's "
                f"{_some(ids)}; the qrels' {_some(judged.to_numpy())}): both files must use "
                "the same query ids"
            )
            raise InputError(msg, 7)


def _some(ids: np.ndarray) -> str:
    """``3 queries, e.g. ['1', '10', '2']``: how many ids, and the first few as strings."""
    texts = sorted(map(str, ids))
    return f"{len(texts):,} {'query' if len(texts) == 1 else 'queries'}, e.g. {texts[:3]}"


def _qrels_file(path: str) -> pd.DataFrame:
    """The qrels file, refused where trec_eval refuses it (see ``cli.read_trec_file``)."""
    return read_trec_file(path, "qrels", read_qrels, USAGE)


def _run_file(path: str) -> tuple[pd.DataFrame, str | None]:
    """A run file, refused where trec_eval refuses it (see ``cli.read_trec_file``); ``-``
    is the standard input (as in trec_eval 10.0).
    """
    if path == "-":
        return read_trec_file(STDIN, "run", _standard_input, USAGE)
    return read_trec_file(path, "run", _run_without_duplicate_check, USAGE)


def _standard_input(path: str) -> tuple[pd.DataFrame, str | None]:
    """The run read from the standard input, named ``path`` in messages."""
    data = sys.stdin.buffer.read()
    if not data:
        msg = "the run read from the standard input (-) is empty (qid Q0 docno rank score tag)"
        raise InputError(msg, 2)
    return _run_lines(io.BytesIO(data), "utf-8")


def _note_unjudged(queries: np.ndarray, qrels: pd.DataFrame) -> None:
    """Say which of the runs' queries have no judgments: trec_eval leaves them out
    without a word.
    """
    unjudged = queries[
        ~pd.Index(queries, dtype=object).isin(qrels["query"].unique().astype(object))
    ]
    if len(unjudged):
        print(
            f"pdireval: note: {len(unjudged)} of the runs' {len(queries)} queries have no "
            f"judgments and are left out, e.g. {sorted(map(str, unjudged))[:5]}",
            file=sys.stderr,
        )


def _run_without_duplicate_check(path: str) -> tuple[pd.DataFrame, str | None]:
    """The run file as the command line needs it (see ``io._run_lines``), leaving the
    check for a document listed twice to the evaluation (see ``_evaluate_checked``).
    """
    return _run_lines(path, "utf-8")


_Read = TypeVar("_Read")
_LARGE_FILE = 50_000_000  # bytes: about a second of reading


def _progress(message: str) -> None:
    """A sign of life on stderr, only when a person watches it (a terminal): never in
    pipes, files or tests.
    """
    if sys.stderr.isatty():
        print(f"pdireval: {message}", file=sys.stderr, flush=True)


def _reading(path: str, read: Callable[[str], _Read]) -> _Read:
    """Read one TREC file, telling a watching user what takes the time."""
    size = Path(path).stat().st_size if Path(path).is_file() else 0
    if size > _LARGE_FILE:
        _progress(f"reading {path} ({size / 1e6:,.0f} MB) ...")
    started = time.perf_counter()
    result = read(path)
    if size > _LARGE_FILE:
        frame = cast("pd.DataFrame", result[0] if isinstance(result, tuple) else result)
        _progress(f"read {len(frame):,} lines in {time.perf_counter() - started:.1f} s")
    return result


def _write(text: str | bytes, output: str | None) -> None:
    if output is None:
        sys.stdout.write(text if isinstance(text, str) else text.decode())
        return
    mode = "wb" if isinstance(text, bytes) else "w"
    with open(output, mode) as handle:
        handle.write(text)


@dataclass(frozen=True)
class _Results:
    """What one evaluation found, for the writer of the chosen format."""

    args: argparse.Namespace
    frame: pd.DataFrame  # the runs, a run column naming each
    qrels: pd.DataFrame
    measures: list[_Measure]
    values: pd.DataFrame  # per (run, query), a column per measure name
    summary: pd.DataFrame  # per run
    retrieved: pd.MultiIndex  # the (run, query) pairs that retrieved something

    def table(self) -> pd.DataFrame:
        """The per-query or summary table, a column per measure named as the user named
        it (``map``, ``ndcg_cut_10`` as trec_eval prints them; ``nDCG@10`` for pdireval's).
        """
        table = self.values if self.args.per_query else self.summary
        return table[[m.name for m in self.measures if m.metric is not None]]


def run_eval(args: argparse.Namespace) -> int:
    """Evaluate the files the arguments name and write the chosen format; 0 when done."""
    if args.rel_format != "qrels":  # preference judgments or judgment groups
        return _run_prefs(args)
    fmt = args.format or ("trec" if len(args.runs) == 1 else "table")
    default = ["official"] if fmt == "trec" else list(_COMPACT)
    measures = parse_measures(
        args.measures or default,
        trec_order=fmt == "trec",
        version=args.trec_eval_version,
        num_docs=args.num_docs,
    )
    frame, qrels, retrieved, empty = _load(args)
    if args.baseline is not None and args.baseline not in set(frame["run"]):
        msg = f"--baseline {args.baseline!r} is not a run tag; tags: {sorted(set(frame['run']))}"
        raise UsageError(msg)
    if len(frame) > 5_000_000:
        _progress(f"evaluating {len(frame):,} rows ...")
    values = _evaluate_checked(frame, qrels, measures, args)
    reset_empty_rankings(values, empty)
    if args.zscores is not None:
        standardise(values, measures, args.zscores)
    summary = _summarise(
        values,
        measures,
        retrieved,
        add=_in_order if fmt == "trec" else _exact_sum,
        standardised=args.zscores is not None,
    )
    if args.complete and "num_rel" in summary:
        # trec_eval's -c summary of num_rel counts the judgments labelled above 0 across
        # the qrels, whatever -l, -M and -J say
        summary["num_rel"] = int((qrels["rel"].to_numpy() > 0).sum())
    results = _Results(args, frame, qrels, measures, values, summary, retrieved)
    _WRITERS.get(fmt, _write_format)(results, fmt)
    return 0


def _run_prefs(args: argparse.Namespace) -> int:
    """``-R prefs``, ``qrels_prefs`` or ``qrels_jg``: trec_eval's lines for each run."""
    read = [_reading(path, _run_file) for path in args.runs]
    names = _run_names([tag for _, tag in read], args.runs)
    runs = [(run, name) for (run, _), name in zip(read, names, strict=True)]
    _write("".join(line + "\n" for line in run_prefs(args, runs)), args.output)
    return 0


def _write_trec(results: _Results, fmt: str) -> None:
    """trec_eval's own output: per-query lines (-q), then each run's summary."""
    lines = []
    for run in results.summary.index:
        lines.extend(
            _trec_lines(
                run,
                results.values,
                results.summary,
                results.measures,
                results.retrieved,
                results.args,
            )
        )
    _write("".join(line + "\n" for line in lines), results.args.output)
    if results.args.baseline is not None:
        print(_comparison_text(results, results.args), file=sys.stderr)


def _write_table(results: _Results, fmt: str) -> None:
    """A plain-text table; with a baseline, the paper table and the comparisons."""
    args = results.args
    text = formats()["text"].table(results.table())  # type: ignore[misc]
    if args.baseline is not None:  # the paper table with its marks, then the comparisons
        summary_text = "" if not args.per_query else text + "\n"
        text = summary_text + _comparison_text(results, args)
    _write(text, args.output)


def _write_tabular(results: _Results, declared: Format) -> None:
    """The table in a tabular format (CSV, JSON); with a baseline, the comparisons too."""
    args = results.args
    assert declared.table is not None  # a tabular format writes tables
    if declared.name == "json":  # one object: the table, then the comparison
        payload: dict[str, object] = {
            "summary" if not args.per_query else "per_query": records(results.table())
        }
        if args.baseline is not None:
            payload["comparison"] = records(_comparison(results, args).reset_index(drop=True))
        _write(json.dumps(payload, indent=2, allow_nan=False) + "\n", args.output)
        return
    table = results.table() if args.baseline is None else _comparison(results, args)
    _write(declared.table(table), args.output)


def _write_report(results: _Results, declared: Format) -> None:
    """The comparison report of two or more runs, in a format that renders reports."""
    args = results.args
    if declared.render is None and args.output is None:
        msg = f"--format {declared.name} needs an output file: -o results{declared.suffix}"
        raise UsageError(msg)
    if results.summary.shape[0] < 2:
        msg = (
            f"--format {declared.name} writes a comparison report of two or more runs; "
            "for one run use --format table, csv or json"
        )
        raise UsageError(msg)
    metrics = _metrics(results.measures, args.level)
    options = _options(args, results.qrels)
    # a rendering for a paper or a sheet names the measures as pdireval does (nDCG@10)
    report = pdireval.report(results.frame, metrics, baseline=args.baseline, **options)
    if declared.render is not None:
        _write(declared.render(report) + "\n", args.output)
    else:
        report.write(declared.name, args.output)


def _write_format(results: _Results, fmt: str) -> None:
    """``--format`` of an output format: tables in a tabular one, else the report."""
    try:
        declared = formats().entry(fmt).value
    except ParameterError as error:
        msg = f"--format: {error}"
        raise UsageError(msg) from None
    if declared.tabular:
        _write_tabular(results, declared)
    else:
        _write_report(results, declared)


_WRITERS: dict[str, Callable[[_Results, str], None]] = {
    "trec": _write_trec,
    "table": _write_table,
    "text": _write_table,
}


def _comparison(results: _Results, args: argparse.Namespace) -> pd.DataFrame:
    """Each run against the baseline, the measures named as the user named them."""
    metrics = _metrics(results.measures, args.level)
    options = _options(args, results.qrels)
    result = pdireval.compare(results.frame, metrics, baseline=args.baseline, **options)
    named = _user_names(results.measures, args)
    keep = ["run", "metric", "mean", "baseline_mean", "delta", "p_value", "p_adjusted"]
    table = result[[*keep, "significant", "wins", "ties", "losses"]].reset_index(drop=True)
    return table.assign(
        metric=table["metric"].astype(str).map(lambda label: named.get(label, label))
    )


def _user_names(measures: list[_Measure], args: argparse.Namespace) -> dict[str, str]:
    """Metric label -> the measure's name as the user named it (``AP`` -> ``map``)."""
    return {_metric(m, args.level).label: m.name for m in measures if m.metric}


def _report(results: _Results, args: argparse.Namespace) -> Report:
    """The comparison report of the runs for the text output, each measure named as the
    user named it, as in the table without ``--baseline``, the CSV and the JSON
    (``map``, ``ndcg_cut_10``: trec_eval's names).
    """
    metrics = _metrics(results.measures, args.level)
    options = _options(args, results.qrels)
    report = pdireval.report(results.frame, metrics, baseline=args.baseline, **options)
    return _renamed(report, _user_names(results.measures, args))


def _renamed(report: Report, names: dict[str, str]) -> Report:
    """``report`` with its metrics renamed by ``names`` (label -> name) in every table."""
    names = {label: name for label, name in names.items() if label != name}
    if not names:
        return report
    return dataclasses.replace(
        report,
        summary=report.summary.rename(columns=names),
        intervals=report.intervals.rename(columns=names),
        comparison=report.comparison.assign(
            metric=[names.get(str(label), label) for label in report.comparison["metric"]]
        ),
        per_query=report.per_query.rename(index=names, level="metric"),
        definitions={names.get(label, label): text for label, text in report.definitions.items()},
    )


def _report_text(report: Report) -> str:
    """The paper table with its marks and legend, then the comparisons, as plain text."""
    comparison = report.comparison_text().to_string(index=False)
    return f"{report}\n\n{comparison}\n"


def _comparison_text(results: _Results, args: argparse.Namespace) -> str:
    report = _report(results, args)
    return f"Compared with {args.baseline}:\n\n" + _report_text(report)
