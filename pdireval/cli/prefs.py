"""The command line's ``-R prefs``, ``-R qrels_prefs`` and ``-R qrels_jg``: trec_eval's
preference measures and its judgment-group measures, from the judgments in those forms.
"""

from __future__ import annotations

import argparse
import math
from collections.abc import Callable

import pandas as pd

from pdireval.cli.files import USAGE, UsageError, read_trec_file
from pdireval.io.trec import read_qrels
from pdireval.preferences import read_prefs, read_qrels_jg
from pdireval.preferences.evaluate import trec_table
from pdireval.preferences.measures import SUMMED

__all__ = ["FORMATS", "run_prefs"]

#: trec_eval's -R formats besides qrels: how each is read, and its measures' nickname
FORMATS: dict[str, tuple[Callable[[str], pd.DataFrame], str]] = {
    "prefs": (read_prefs, "all_prefs"),
    "qrels_prefs": (read_qrels, "all_prefs"),
    "qrels_jg": (read_qrels_jg, "qrels_jg"),
}
_COUNTS = frozenset({*SUMMED, "num_q"})
_NICKNAMES = frozenset({"all_prefs", "prefs", "qrels_jg"})


def run_prefs(args: argparse.Namespace, runs: list[tuple[pd.DataFrame, str]]) -> list[str]:
    """trec_eval's lines for the runs (each with its name) against the judgments of
    ``args.qrels`` in the ``-R`` format ``args.rel_format``.
    """
    read, nickname = FORMATS[args.rel_format]
    if args.format not in (None, "trec") or args.zscores is not None:
        msg = f"-R {args.rel_format} prints trec_eval's lines only: drop --format and -Z"
        raise UsageError(msg)
    judgments = read_trec_file(args.qrels, "qrels", read, USAGE)
    specs = args.measures or [nickname]
    # runid and num_q are printed when asked for, by name or by a nickname of trec_eval's
    shown = {name for name in ("runid", "num_q") if name in specs or set(specs) & _NICKNAMES}
    measures = [spec for spec in specs if spec not in ("runid", "num_q")]
    lines: list[str] = []
    for run, name in runs:
        table = trec_table(
            run,
            judgments,
            measures,
            rel_format=args.rel_format,
            complete=args.complete,
            version=args.trec_eval_version,
            max_rank=args.max_rank,
            judged_only=args.judged_only,
            rel_threshold=1 if args.level is None else args.level,
        )
        lines += _lines(table.per_query, table.summary, name, shown, args)
    return lines


def _lines(
    per_query: pd.DataFrame,
    summary: pd.DataFrame,
    name: str,
    shown: set[str],
    args: argparse.Namespace,
) -> list[str]:
    """The -q lines of one run, then its ``all`` lines (runid and num_q first, when
    ``shown``).
    """
    lines = []
    if args.per_query:
        queries = per_query.index.get_level_values("query").astype(str)
        for at, query in enumerate(queries):
            for measure in per_query.columns:
                value = _value(measure, per_query[measure].iloc[at])
                lines.append(f"{measure:<22}\t{query}\t{value}")
    if not args.no_summary:
        row = summary.iloc[0]
        if "runid" in shown:
            lines.append(f"{'runid':<22}\tall\t{name}")
        lines += [
            f"{measure:<22}\tall\t{_value(measure, row[measure])}"
            for measure in row.index
            if measure != "num_q" or "num_q" in shown
        ]
    return lines


def _value(measure: str, value: float) -> str:
    """As trec_eval prints it: counts as whole numbers, the rest ``%6.4f``."""
    if measure in _COUNTS:
        return str(round(value))
    return "  -nan" if math.isnan(value) else f"{value:6.4f}"
