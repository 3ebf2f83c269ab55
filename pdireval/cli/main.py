"""The ``pdireval`` command line: trec_eval's output for TREC files, and tables of runs.

Usage::

    pdireval QRELS RUN [RUN ...] [-m MEASURE ...] [-q] [-c] [-n] [-l LEVEL] [-M DEPTH] [-J]
             [--format FORMAT] [-o FILE] [--baseline RUN]
             [--load MODULE]   # e.g. a file declaring metrics with pdireval.metrics.define
    pdireval demo        # evaluate and compare the built-in example collection
    pdireval demo --write DIR [--force]  # write it as TREC files (qrels.txt, strong.txt, ...)
    pdireval fuse -m rrf RUN1 RUN2 ... > fused.run   # fuse runs (pdireval fuse --help)

With one run, the default ``--format trec`` prints what trec_eval 9.0.8 prints (or 10.0,
``--trec-eval-version 10.0``), line for line. Options follow trec_eval: ``-q`` per-query lines,
``-c`` average over every judged topic (``queries="judged"``; otherwise the topics that
retrieved something), ``-n`` no summary lines, ``-l`` relevance level, ``-M`` evaluation
depth, ``-J`` judged documents only. Measures are trec_eval names and nicknames
(``official`` -- the default --, ``all_trec``, ``map``, ``P.5,10``, ``ndcg_cut.10``) or
pdireval names (``nDCG@10``).

Exit status: 0 done; 1 bad input (a malformed line, an unknown measure); 2 bad usage, an
empty run or qrels file, or a qrels file where a run goes (or the reverse) -- trec_eval
exits with 2 for these too; 4 with ``--trec-eval-version 10.0`` (without ``-c``) for a
judged query the run did not retrieve, as trec_eval 10.0; 7 when no query of a run has
both results and judgments (trec_eval's status; a run file of blank lines only is one).
"""

from __future__ import annotations

import argparse
import atexit
import contextlib
import importlib
import importlib.util
import os
import pkgutil
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import NoReturn, get_args

import pandas as pd

import pdireval
from pdireval._core.errors import MissingDependencyError, PdirevalError
from pdireval._core.version import __version__
from pdireval.cli.files import InputError, UsageError
from pdireval.typing import TrecEvalVersion

__all__ = ["main"]

#: How long Arrow keeps freed pages before handing them back (see _give_back_freed_memory).
_FREED_PAGES_KEPT_MS = 100

#: The demo's closing lines: how to get its runs as files, and what to try on them.
DEMO_HINT = (
    "'pdireval demo --write DIR' writes these runs and their qrels as TREC files;\n"
    "then try: cd DIR && pdireval qrels.txt strong.txt -q -m map"
)


def demo(output=None) -> int:
    """Evaluate and compare the three runs of the built-in example collection."""
    from pdireval.cli.measures import _COMPACT
    from pdireval.cli.run import _report_text
    from pdireval.datasets import example
    from pdireval.reports.formats import formats

    out = output or sys.stdout
    frame = example()
    metrics = list(_COMPACT)
    print("pdireval demo: 50 topics, graded judgments, three runs (pdireval.datasets)\n", file=out)
    with pd.option_context("display.width", 120):
        try:
            report = pdireval.report(frame, metrics, baseline="medium")
        except MissingDependencyError as error:  # a bare install: no scipy for the tests
            summary = frame.ireval.summary(metrics).loc[["strong", "medium", "weak"]]
            print("Mean over topics (AP = MAP, RR = MRR)\n", file=out)
            print(formats()["text"].table(summary), file=out, end="")  # type: ignore[misc]
            print(f"\n({error})", file=out)
        else:
            print("Mean over topics (AP = MAP, RR = MRR); each run against 'medium'\n", file=out)
            print(_report_text(report), file=out, end="")
    print(f"\npdireval {pdireval.__version__} -- {DEMO_HINT}", file=out)
    return 0


class _DemoParser(argparse.ArgumentParser):
    def error(self, message: str) -> NoReturn:
        msg = f"'pdireval demo' takes nothing, or --write DIR [--force] ({message})"
        raise UsageError(msg)


def _demo_parser() -> argparse.ArgumentParser:
    parser = _DemoParser(
        prog="pdireval demo",
        description="Evaluate and compare the built-in example collection, or write it as "
        "TREC files (qrels.txt, strong.txt, medium.txt, weak.txt) to try pdireval on.",
    )
    parser.add_argument("--write", metavar="DIR", help="write the TREC files into DIR")
    parser.add_argument(
        "--force", action="store_true", help="with --write: replace files DIR already holds"
    )
    return parser


def _demo_command(argv: Sequence[str]) -> int:
    """``pdireval demo``, or ``pdireval demo --write DIR [--force]``: the example
    collection's TREC files, to try the command line on; files already there are
    replaced only with ``--force``.
    """
    args = _demo_parser().parse_args(argv)
    if args.write is None:
        if args.force:
            msg = "'pdireval demo --force' replaces files written with --write DIR; give DIR"
            raise UsageError(msg)
        return demo()
    written = _write_demo(Path(args.write), force=args.force)
    print(f"wrote {', '.join(str(path) for path in written)}")
    print(f"try: cd {args.write} && pdireval {written[0].name} {written[1].name}")
    return 0


def _write_demo(folder: Path, *, force: bool) -> list[Path]:
    """Write the example collection's files into ``folder``; refuse (usage error) to
    replace files already there unless ``force``. The files are written aside first, so
    that their names are known before anything in ``folder`` changes.
    """
    import shutil
    import tempfile

    from pdireval.datasets import write_example

    with tempfile.TemporaryDirectory() as aside:
        made = write_example(aside)
        targets = [folder / path.name for path in made]
        there = [str(path) for path in targets if path.exists() or path.is_symlink()]
        if there and not force:
            msg = (
                f"{', '.join(there)} already exist{'s' * (len(there) == 1)}; "
                f"'pdireval demo --write {folder} --force' replaces "
                f"{'it' if len(there) == 1 else 'them'}"
            )
            raise UsageError(msg)
        folder.mkdir(parents=True, exist_ok=True)
        for path, target in zip(made, targets, strict=True):
            shutil.copyfile(path, target)
    return targets


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="pdireval",
        description=(
            "Evaluate TREC runs against qrels; with one run the default output is "
            "trec_eval's. 'pdireval demo' evaluates the built-in example collection; "
            "'pdireval demo --write DIR' writes it as TREC files to try this command on "
            "(--force: replace files DIR holds); 'pdireval fuse -m rrf RUN1 RUN2 ...' fuses "
            "runs (see 'pdireval fuse --help'). Exit status: 0 done, 1 bad input, 2 bad "
            "usage or an empty file, 4 a judged query without results (10.0 without -c), 7 "
            "no query has both results and judgments (2, 4 and 7 as trec_eval)."
        ),
    )
    parser.add_argument("qrels", help="qrels file: qid iter docno rel (.gz allowed)")
    parser.add_argument("runs", nargs="+", help="run file(s): qid Q0 docno rank score tag")
    parser.add_argument(
        "-m",
        dest="measures",
        action="append",
        metavar="MEASURE",
        help="measure: trec_eval name or nickname (official, all_trec, map, P.5,10, "
        "ndcg_cut.10) or pdireval name (nDCG@10); repeat for several (default: official)",
    )
    parser.add_argument("-q", dest="per_query", action="store_true", help="per-query values")
    parser.add_argument(
        "-c", dest="complete", action="store_true",
        help="average over every judged topic; topics that retrieved nothing score 0",
    )  # fmt: skip
    parser.add_argument("-n", dest="no_summary", action="store_true", help="no summary lines")
    parser.add_argument(
        "-l",
        dest="level",
        type=int,
        metavar="LEVEL",
        help="relevance level: labels >= LEVEL are relevant (default 1)",
    )
    parser.add_argument(
        "-M",
        dest="max_rank",
        type=int,
        metavar="DEPTH",
        help="evaluate only the top DEPTH documents of each ranking",
    )
    parser.add_argument(
        "-J",
        dest="judged_only",
        action="store_true",
        help="drop unjudged retrieved documents before evaluating",
    )
    parser.add_argument(
        "-R",
        dest="rel_format",
        choices=("qrels", "prefs", "qrels_prefs", "qrels_jg"),
        default="qrels",
        metavar="FORMAT",
        help="the judgments' format: qrels (default), prefs (preference judgments: qid "
        "jg docno rel_level), qrels_prefs (qrels read as preferences) or qrels_jg (qrels "
        "whose second field names a judgment group); -m all_prefs, prefs or qrels_jg",
    )
    parser.add_argument(
        "-N",
        dest="num_docs",
        type=int,
        default=0,
        metavar="NUM",
        help="number of documents in the collection, for utility's d (default 0)",
    )
    parser.add_argument(
        "-Z",
        dest="zscores",
        metavar="FILE",
        help="print each value as a z-score against FILE's per-query means and standard "
        "deviations (lines: qid measure mean stddev), -1000000 where it has none",
    )
    parser.add_argument(
        "--trec-eval-version",
        dest="trec_eval_version",
        choices=get_args(TrecEvalVersion),
        default="9.0.8",
        metavar="VERSION",
        help="print what trec_eval VERSION prints, 9.0.8 or 10.0 (default 9.0.8: the numbers "
        "of pytrec_eval, ir_measures and most published work; 10.0 rounds the recall levels "
        "of iprec_at_recall and 11pt_avg, lists queries without results under -c -q and "
        "adds rbp, rbp_resid and unj to all_trec)",
    )
    parser.add_argument(
        "--format",
        metavar="FORMAT",
        help=(
            "output format: trec (trec_eval's lines), table, or "
            f"{', '.join(_format_names())} (excel also as xlsx; default: trec for one "
            "run, table for several)"
        ),
    )
    parser.add_argument("-o", dest="output", metavar="FILE", help="write to FILE")
    parser.add_argument("--baseline", metavar="RUN", help="compare every run with this run tag")
    parser.add_argument(
        "--load",
        action="append",
        default=[],
        metavar="MODULE",
        help="import a Python module or .py file first, e.g. one declaring metrics with "
        "pdireval.metrics.define, so that -m can name them; repeat for several",
    )
    parser.add_argument("--version", action="version", version=f"pdireval {__version__}")
    return parser


def _format_names() -> list[str]:
    """The output formats, named by their modules, without importing them (``--help``
    answers at once).
    """
    spec = importlib.util.find_spec("pdireval.reports")
    folders = [] if spec is None else list(spec.submodule_search_locations or [])
    found = pkgutil.iter_modules([str(Path(folder) / "formats") for folder in folders])
    return sorted(module.name for module in found if module.name != "text")


def _load_modules(names: Sequence[str]) -> None:
    """Import each ``--load`` module (a dotted name, or a path to a .py file)."""
    for name in names:
        path = Path(name)
        try:
            if path.suffix == ".py":
                spec = importlib.util.spec_from_file_location(path.stem, path)
                if spec is None or spec.loader is None or not path.is_file():
                    msg = f"--load {name}: no such Python file"
                    raise UsageError(msg)
                module = importlib.util.module_from_spec(spec)
                sys.modules[path.stem] = module
                spec.loader.exec_module(module)
            else:
                sys.path.insert(0, str(Path.cwd()))
                try:
                    importlib.import_module(name)
                finally:
                    sys.path.remove(str(Path.cwd()))
        except UsageError:
            raise
        except Exception as error:  # the user's module: say which one failed, and how
            msg = f"--load {name} failed: {type(error).__name__}: {error}"
            raise UsageError(msg) from error


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line; return the exit status (0 ok, 1 bad input, 2 bad usage or
    an empty file, 7 no query with both results and judgments: trec_eval's statuses).

    Examples
    --------
    >>> from pdireval.cli.main import main
    >>> main(["demo"])  # doctest: +ELLIPSIS
    pdireval demo: 50 topics, ...
    0
    """
    argv = list(sys.argv[1:] if argv is None else argv)
    try:
        if not argv:
            _parser().print_usage(sys.stderr)
            print("pdireval: try 'pdireval demo', or 'pdireval --help'", file=sys.stderr)
            return 2
        if argv[0] == "demo":
            return _demo_command(argv[1:])
        if argv[0] == "fuse":
            from pdireval.cli.fuse import main as fuse

            return fuse(argv[1:])
        args = _parser().parse_args(argv)
        _load_modules(args.load)
        # loaded after the arguments are read: --help and --version need no more than this
        from pdireval.cli.run import run_eval

        return run_eval(args)
    except BrokenPipeError:  # e.g. pdireval demo | head
        sys.stderr.close()
        return 0
    except UsageError as error:
        print(f"pdireval: error: {error}", file=sys.stderr)
        return 2
    except InputError as error:
        print(f"pdireval: error: {error}", file=sys.stderr)
        return error.status
    except (PdirevalError, ValueError, OSError, ImportError) as error:
        print(f"pdireval: error: {error}", file=sys.stderr)
        return 1


def console() -> None:  # pragma: no cover - the console-script entry point
    """Entry point of the ``pdireval`` console script (and of ``python -m pdireval``)."""
    _give_back_freed_memory()
    _leave(main())


def _leave(status: int) -> NoReturn:  # pragma: no cover - ends the process
    """End the command line's process once its output is written, without tearing the
    interpreter down: freeing a large run's arrays one by one at exit takes a tenth of a
    second after the results are out. Exit handlers (a ``--load`` module's too) still run.
    """
    atexit._run_exitfuncs()
    for stream in (sys.stdout, sys.stderr):
        # the reader may have left (| head), or the stream be closed
        with contextlib.suppress(OSError, ValueError):
            stream.flush()
    os._exit(status)


def _give_back_freed_memory() -> None:
    """Let Arrow hand memory back to the system soon after it is freed, in the command
    line's own process only (never on import, never in ``main``, which a notebook may
    call): reading a large file frees as much as it keeps, and an allocator that holds on
    to freed pages would make the peak far above what the data needs. Pages are kept for
    a tenth of a second (``_FREED_PAGES_KEPT_MS``) rather than none: reading a file in
    blocks frees and takes memory block after block, and pages handed back at once are
    taken back (and zeroed by the system) for the next block -- on a 7M-line run that
    was a tenth of the command's time, for a peak 5-10% lower. Arrow builds without
    jemalloc, or ``ARROW_DEFAULT_MEMORY_POOL`` set by the user, keep their allocator.
    """
    import pyarrow as pa

    if os.environ.get("ARROW_DEFAULT_MEMORY_POOL"):
        return
    try:
        pa.set_memory_pool(pa.jemalloc_memory_pool())
        pa.jemalloc_set_decay_ms(_FREED_PAGES_KEPT_MS)
    except NotImplementedError:  # this Arrow build has no jemalloc
        return
