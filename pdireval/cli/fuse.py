"""``pdireval fuse``: fuse TREC run files into one, written to standard output.

Usage::

    pdireval fuse -m rrf [--k 60] [--norm min-max] [--weights 1,2] [--depth N]
                  [--name NAME] [-o FILE] RUN1 RUN2 [RUN ...]

Each file is one run, named by its path; the fused run is written as a TREC run file
(tag: the method's name or ``--name``) to standard output, or to ``-o FILE``.
"""

from __future__ import annotations

import argparse
import sys

from pdireval._core.errors import PdirevalError
from pdireval.cli.files import FUSE_USAGE, InputError, UsageError, read_trec_file

__all__ = ["main"]


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> None:  # type: ignore[override]
        raise UsageError(message)


def _parser() -> argparse.ArgumentParser:
    from pdireval.fusion.methods import METHODS
    from pdireval.fusion.normalization import NORMS

    parser = _Parser(
        prog="pdireval fuse",
        description="Fuse TREC run files into one run (written to standard output).",
        epilog=f"Methods: {', '.join(METHODS)} (any case; ranx's names work too).",
    )
    parser.add_argument("runs", nargs="+", metavar="RUN", help="TREC run files (two or more)")
    parser.add_argument("-m", "--method", default="wsum", help="fusion method (default wsum)")
    parser.add_argument(
        "--norm",
        default="min-max",
        help=f"score normalisation: {', '.join(NORMS)}, or none (default min-max)",
    )
    parser.add_argument("--weights", help="one weight per run, comma-separated: 1,0.5")
    parser.add_argument("--depth", type=int, help="fuse only the top DEPTH of each ranking")
    parser.add_argument("--name", help="tag of the fused run (default: the method's name)")
    parser.add_argument("-o", "--output", help="write to this file instead of standard output")
    for param, help_text in (
        ("k", "RRF's k (default 60)"),
        ("gamma", "CombGMNZ's gamma"),
        ("sigma", "logN_ISR's sigma (default 0.01)"),
        ("phi", "RBC's phi"),
    ):
        parser.add_argument(f"--{param}", type=float, help=help_text)
    return parser


def _weights(text: str | None) -> list[float] | None:
    if text is None:
        return None
    try:
        return [float(part) for part in text.split(",")]
    except ValueError:
        msg = f"--weights {text!r}: give numbers separated by commas, e.g. 1,0.5"
        raise UsageError(msg) from None


def _refuse_repeated(paths: list[str]) -> None:
    """Refuse a run file named more than once."""
    repeated = sorted({path for path in paths if paths.count(path) > 1})
    if repeated:
        msg = f"run file(s) given twice: {repeated}; give each run once"
        raise UsageError(msg)


def _method_params(args: argparse.Namespace) -> dict[str, float]:
    """The method's parameters given on the command line (``--k``, ``--gamma``, ...)."""
    params = {p: getattr(args, p) for p in ("k", "gamma", "sigma", "phi")}
    return {name: value for name, value in params.items() if value is not None}


def _fuse_files(args: argparse.Namespace) -> None:
    """Read the run files ``args`` names, fuse them and write the fused run."""
    _refuse_repeated(args.runs)
    from pdireval.fusion import fuse
    from pdireval.io.trec import read_run, write_run

    runs = {
        path: read_trec_file(path, "run", read_run, FUSE_USAGE).drop(columns="run")
        for path in args.runs
    }
    fused = fuse(
        runs,
        args.method,
        norm=None if args.norm.lower() == "none" else args.norm,
        weights=_weights(args.weights),
        depth=args.depth,
        name=args.name,
        **_method_params(args),
    )
    write_run(fused, args.output if args.output else sys.stdout)


def main(argv: list[str]) -> int:
    """Fuse the run files named in ``argv`` (the arguments after ``fuse``); exit status.

    0 when done, 1 for bad input (a file or value pdireval refuses), 2 for bad usage or an
    empty run file, 7 for a run file without a result line (blank lines or comments only):
    a run file is refused as ``pdireval QRELS RUN`` refuses it.

    Examples
    --------
    >>> import contextlib, io, tempfile, os
    >>> folder = tempfile.mkdtemp()
    >>> for name, lines in {"a": "q1 Q0 d1 1 2.0 a\\nq1 Q0 d2 2 1.0 a\\n",
    ...                     "b": "q1 Q0 d2 1 5.0 b\\n"}.items():
    ...     with open(os.path.join(folder, name), "w") as handle:
    ...         _ = handle.write(lines)
    >>> out = io.StringIO()
    >>> with contextlib.redirect_stdout(out):
    ...     status = main(["-m", "rrf", "--k", "1", *(os.path.join(folder, n) for n in "ab")])
    >>> status
    0
    >>> print(out.getvalue(), end="")
    q1 Q0 d2 1 0.8333333333333333 RRF
    q1 Q0 d1 2 0.5 RRF
    """
    try:
        _fuse_files(_parser().parse_args(argv))
        return 0
    except SystemExit as done:  # --help
        return int(done.code or 0)
    except BrokenPipeError:
        sys.stderr.close()
        return 0
    except UsageError as error:
        print(f"pdireval fuse: error: {error}", file=sys.stderr)
        return 2
    except InputError as error:  # as the evaluating command refuses the file
        print(f"pdireval fuse: error: {error}", file=sys.stderr)
        return error.status
    except (PdirevalError, ValueError, OSError) as error:
        print(f"pdireval fuse: {error}", file=sys.stderr)
        return 1
