"""``--trec-eval-version``: the command line prints what trec_eval 9.0.8 or 10.0 prints.

Two checks, for each version: trec_eval's own test invocations (the 10.0 Makefile's
``quicktest`` list) give the version's expected files, byte for byte; and the program of
each version, built from its source, prints the same lines and exits with the same status
as the command line on generated files (ties, many relevant documents, judged queries
without results, labels above 9, negative labels) -- for 10.0 also with ``#`` comment
lines and a run read from the standard input.
"""

from __future__ import annotations

import io
import os
import subprocess
import sys
from pathlib import Path

import pytest
from trec_files import OPTIONS, write_case

from pdireval import cli


def _data() -> Path | None:
    candidates = (
        [Path(os.environ["PDIREVAL_TREC_TESTDATA"])]
        if os.environ.get("PDIREVAL_TREC_TESTDATA")
        else []
    )
    candidates.append(Path(__file__).resolve().parents[3] / "shared" / "trec_eval_testdata")
    return next((path for path in candidates if (path / "qrels.test").is_file()), None)


DATA = _data()

#: trec_eval 10.0's quicktest: arguments (files under its test folder) -> expected output
QUICKTEST = [
    ("qrels.test results.test", "out.test"),
    ("qrels.test.with-comments results.test", "out.test"),
    ("qrels.comment.test results.comment.test", "out.comment.test"),
    ("-m all_trec qrels.test results.test", "out.test.a"),
    ("-m all_trec -q qrels.test results.test", "out.test.aq"),
    ("-m all_trec -q -c qrels.test results.trunc", "out.test.aqc"),
    ("-m all_trec -q -c -M100 qrels.test results.trunc", "out.test.aqcM"),
    ("-m all_trec -mrelstring.20 -q -l2 qrels.rel_level results.test", "out.test.aql"),
    (
        "-q -miprec_at_recall..10,.20,.25,.75,.50 -m P.5,7,3 -m recall.20,2000 "
        "-m Rprec_mult.5.0,0.2,0.35 -mutility.2,-1,0,0 -m 11pt_avg..25,.5,.75 "
        "-mndcg.1=3,2=9,4=4.5 -mndcg_cut.10,20,23.4 -msuccess.2,5,20 qrels.test results.test",
        "out.test.meas_params",
    ),
    ("-q -m all_trec -Z zscores_file qrels.test results.test", "out.test.aqZ"),
    ("-m all_prefs -q -R prefs prefs.test prefs.results.test", "out.test.prefs"),
    ("-m all_prefs -q -R prefs prefs.comment.test prefs.results.test", "out.test.prefs"),
    ("-m all_prefs -q -R qrels_prefs qrels.test results.test", "out.test.qrels_prefs"),
    ("-m qrels_jg -q -R qrels_jg qrels.123 results.test", "out.test.qrels_jg"),
    ("-m qrels_jg -q -R qrels_jg qrels.comments.123 results.test", "out.test.qrels_jg"),
]
#: the inputs trec_eval 9.0.8 refuses (its comment lines) or has no expected file for
ONLY_10 = {
    "qrels.test.with-comments results.test",
    "qrels.comment.test results.comment.test",
    "-m all_prefs -q -R prefs prefs.comment.test prefs.results.test",
    "-m qrels_jg -q -R qrels_jg qrels.comments.123 results.test",
}


def _ours(capsys, arguments: list[str]) -> tuple[int, str]:
    capsys.readouterr()
    status = cli.main(arguments)
    return status, capsys.readouterr().out


@pytest.mark.skipif(DATA is None, reason="optional trec_eval test data not found; it enables "
                    "the quicktest comparison (set $PDIREVAL_TREC_TESTDATA)")  # fmt: skip
@pytest.mark.parametrize("version", ["9.0.8", "10.0"])
@pytest.mark.parametrize(("arguments", "expected"), QUICKTEST, ids=[e for _, e in QUICKTEST])
def test_quicktest_prints_the_versions_expected_output(
    capsys, version: str, arguments: str, expected: str
) -> None:
    if version == "9.0.8" and arguments in ONLY_10:
        pytest.skip("trec_eval 9.0.8 refuses comment lines and has no expected output here")
    assert DATA is not None
    folder = DATA if version == "10.0" else DATA / "v9.0.8"
    # each version's own files first (its zscores_file), then the shared inputs
    words = [
        str(folder / w) if (folder / w).is_file() else str(DATA / w) if (DATA / w).is_file() else w
        for w in arguments.split()
    ]
    status, out = _ours(capsys, ["--trec-eval-version", version, *words])
    assert status == 0
    assert out == (folder / expected).read_text()


def _same(program: Path, version: str, arguments: list[str], capsys) -> None:
    """The program and the command line on ``arguments``: same status, and the same
    output when the program finishes.
    """
    expected = subprocess.run([str(program), *arguments], capture_output=True, text=True)
    status, out = _ours(capsys, ["--trec-eval-version", version, *arguments])
    assert status == expected.returncode, (arguments, expected.stderr)
    if status == 0:
        assert out == expected.stdout, arguments


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_10_prints_what_the_10_program_prints(trec_eval_10, tmp_path, capsys, seed) -> None:
    """Without -c on files whose judged queries all have results; with -c on files where
    some have none (10.0 ranks a one-document ranking for each)."""
    (tmp_path / "retrieved").mkdir()
    (tmp_path / "missing").mkdir()
    retrieved = write_case(tmp_path / "retrieved", seed, all_retrieved=True)
    missing = write_case(tmp_path / "missing", seed)
    for options in OPTIONS:
        run, qrels = missing if "-c" in options else retrieved
        _same(trec_eval_10, "10.0", [*options, str(qrels), str(run)], capsys)


@pytest.mark.parametrize("options", [[], ["-q"], ["-q", "-m", "all_trec"]])
def test_10_stops_at_a_judged_query_without_results(
    trec_eval_10, tmp_path, capsys, options
) -> None:
    """trec_eval 10.0 without -c exits with status 4 at a judged query the run did not
    retrieve; the command line too, saying which query and the ways on."""
    run, qrels = write_case(tmp_path, 0)
    arguments = [*options, str(qrels), str(run)]
    expected = subprocess.run([str(trec_eval_10), *arguments], capture_output=True, text=True)
    assert expected.returncode == 4
    status = cli.main(["--trec-eval-version", "10.0", *arguments])
    captured = capsys.readouterr()
    assert status == 4
    assert captured.out == ""
    assert "-c" in captured.err
    assert "--trec-eval-version 9.0.8" in captured.err


@pytest.mark.parametrize("seed", [3, 4])
def test_10_skips_comment_lines(trec_eval_10, tmp_path, capsys, seed) -> None:
    run, qrels = write_case(tmp_path, seed, all_retrieved=True, comments=True)
    assert run.read_text().startswith("#")
    for options in (["-q"], ["-q", "-m", "all_trec"], ["-c", "-m", "all_trec"]):
        _same(trec_eval_10, "10.0", [*options, str(qrels), str(run)], capsys)


def test_a_run_read_from_the_standard_input(trec_eval_10, tmp_path, capsys, monkeypatch) -> None:
    run, qrels = write_case(tmp_path, 5, all_retrieved=True)
    expected = subprocess.run(
        [str(trec_eval_10), "-q", str(qrels), "-"],
        input=run.read_text(),
        capture_output=True,
        text=True,
        check=True,
    )
    for version in ("9.0.8", "10.0"):
        monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(run.read_bytes())))
        status, out = _ours(capsys, ["--trec-eval-version", version, "-q", str(qrels), "-"])
        assert status == 0
        if version == "10.0":
            assert out == expected.stdout


@pytest.mark.parametrize("seed", [0, 1])
def test_9_still_prints_what_the_9_program_prints_on_missing_queries(
    trec_eval, tmp_path, capsys, seed
) -> None:
    """9.0.8 (the default) leaves a judged query without results out, without -c."""
    run, qrels = write_case(tmp_path, seed)
    for options in (["-q"], ["-q", "-c"], ["-m", "all_trec", "-c", "-q"]):
        _same(trec_eval, "9.0.8", [*options, str(qrels), str(run)], capsys)


@pytest.mark.parametrize("version", ["9.0.8", "10.0"])
@pytest.mark.parametrize(
    "options",
    [
        ["-R", "qrels_prefs", "-m", "all_prefs", "-q"],
        ["-R", "qrels_prefs", "-m", "prefs", "-c", "-M", "3"],
        ["-R", "qrels_jg", "-m", "qrels_jg", "-q", "-J"],
        ["-R", "qrels_jg", "-m", "P_avgjg.1,3", "-m", "map_avgjg", "-c", "-q", "-l", "2"],
    ],
)
def test_judgment_formats_print_what_each_program_prints(
    trec_eval, trec_eval_10, tmp_path, capsys, version, options
) -> None:
    """-R qrels_prefs and -R qrels_jg on generated files, against each version's program."""
    program = trec_eval if version == "9.0.8" else trec_eval_10
    retrieved = version == "10.0" and "-c" not in options
    run, qrels = write_case(tmp_path, 6, all_retrieved=retrieved, negative=False)
    _same(program, version, [*options, str(qrels), str(run)], capsys)


@pytest.mark.parametrize(
    ("measure", "version"),
    [("rbp", "9.0.8"), ("unj", "9.0.8"), ("dcg", "9.0.8"), ("ideal_dcg", "9.0.8")],
)
def test_a_measure_of_the_other_version_names_it(tmp_path, capsys, measure, version) -> None:
    run, qrels = write_case(tmp_path, 0)
    status = cli.main(["--trec-eval-version", version, "-m", measure, str(qrels), str(run)])
    assert status == 1
    assert "--trec-eval-version 10.0" in capsys.readouterr().err
