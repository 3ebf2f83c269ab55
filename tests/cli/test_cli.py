"""The command line reproduces trec_eval 9.0.8's expected outputs, line for line.

The expected outputs are trec_eval's own (``../shared/trec_eval_testdata/v9.0.8``, or
``$PDIREVAL_TREC_TESTDATA``; see its README for the command behind each file); the tests
skip when the folder is absent. From files printed with ``-m all_trec`` the lines of the
measures pdireval has are compared -- in trec_eval's order, digit for digit.
"""

from __future__ import annotations

import json
import math
import os
import subprocess
import sys
from pathlib import Path

import pytest

from pdireval.cli.main import main


def _data_dir() -> Path | None:
    candidates = []
    if os.environ.get("PDIREVAL_TREC_TESTDATA"):
        candidates.append(Path(os.environ["PDIREVAL_TREC_TESTDATA"]))
    candidates.append(Path(__file__).resolve().parents[3] / "shared" / "trec_eval_testdata")
    return next((c for c in candidates if (c / "qrels.test").is_file()), None)


DATA = _data_dir()
needs_data = pytest.mark.skipif(
    DATA is None,
    reason="optional trec_eval test data not found; it enables the checks of the command line "
    "against trec_eval's own expected outputs (trec_eval 9.0.8's test/ folder: set "
    "$PDIREVAL_TREC_TESTDATA, or put it at ../shared/trec_eval_testdata next to the clone)",
)


def run_cli(capsys, *args: str) -> tuple[int, str, str]:
    status = main([str(a) for a in args])
    captured = capsys.readouterr()
    return status, captured.out, captured.err


def expected_lines(name: str, measures: set[str] | None = None) -> list[str]:
    lines = (DATA / "v9.0.8" / name).read_text().splitlines()
    if measures is None:
        return lines
    return [line for line in lines if line.split("\t")[0].strip() in measures]


@needs_data
def test_official_measures_equal_out_test(capsys):
    status, out, _ = run_cli(capsys, DATA / "qrels.test", DATA / "results.test")
    assert status == 0
    assert out.splitlines() == expected_lines("out.test")  # all 30 lines, exactly


@needs_data
def test_per_query_complete_equals_official_lines_of_out_test_aqc(capsys):
    status, out, _ = run_cli(capsys, "-q", "-c", DATA / "qrels.test", DATA / "results.trunc")
    assert status == 0
    official = {line.split("\t")[0].strip() for line in expected_lines("out.test")}
    want = expected_lines("out.test.aqc", official)
    assert len(want) == 84  # 27 lines for each of topics 301 and 303, 30 for 'all'
    assert out.splitlines() == want


CASES = [  # (expected file, options, qrels, run): the Makefile's commands
    ("out.test.a", [], "qrels.test", "results.test"),
    ("out.test.aq", ["-q"], "qrels.test", "results.test"),
    ("out.test.aqc", ["-q", "-c"], "qrels.test", "results.trunc"),
    ("out.test.aqcM", ["-q", "-c", "-M100"], "qrels.test", "results.trunc"),
    ("out.test.aql", ["-m", "relstring.20", "-q", "-l2"], "qrels.rel_level", "results.test"),
]


@needs_data
@pytest.mark.parametrize(("expected", "options", "qrels", "run"), CASES)
def test_all_trec_lines_of_supported_measures(capsys, expected, options, qrels, run):
    status, out, _ = run_cli(capsys, "-m", "all_trec", *options, DATA / qrels, DATA / run)
    assert status == 0
    mine = out.splitlines()
    names = {line.split("\t")[0].strip() for line in mine}
    want = expected_lines(expected, names)
    assert mine == want
    assert len(names) >= 80  # most of trec_eval's measures are covered
    assert {"infAP", "utility", "binG", "G", "ndcg_rel", "Rndcg"} <= names


@needs_data
def test_measure_parameters_equal_out_test_meas_params(capsys):
    args = ["-q", "-m", "P.5,7,3", "-m", "recall.20,2000", "-m", "Rprec_mult.5.0,0.2,0.35",
            "-m", "ndcg_cut.10,20", "-m", "success.2,5,20", "-mndcg.1=3,2=9,4=4.5",
            "-m", "iprec_at_recall..10,.20,.25,.75,.50"]  # fmt: skip
    status, out, _ = run_cli(capsys, *args, DATA / "qrels.test", DATA / "results.test")
    assert status == 0
    mine = out.splitlines()
    names = {line.split("\t")[0].strip() for line in mine}
    assert "P_3" in names
    assert "Rprec_mult_5.00" in names
    assert "ndcg_1=3,2=9,4=4.5" in names
    assert mine == expected_lines("out.test.meas_params", names)


@needs_data
def test_nicknames_and_pdireval_names_select_the_same_values(capsys):
    _, trec, _ = run_cli(capsys, "-m", "map", "-m", "ndcg_cut.10", DATA / "qrels.test",
                         DATA / "results.test")  # fmt: skip
    _, ours, _ = run_cli(capsys, "--format", "csv", "-m", "AP", "-m", "nDCG@10",
                         DATA / "qrels.test", DATA / "results.test")  # fmt: skip
    values = dict(line.split("\t")[0::2] for line in trec.splitlines())
    row = ours.splitlines()[1].split(",")
    assert [float(v) for v in row[1:]] == pytest.approx(
        [float(values["map                   "]), float(values["ndcg_cut_10           "])],
        abs=5e-5,
    )


@needs_data
def test_no_summary_keeps_only_per_query_lines(capsys):
    _, out, _ = run_cli(capsys, "-q", "-n", "-m", "map", DATA / "qrels.test",
                        DATA / "results.test")  # fmt: skip
    assert [line.split("\t")[1] for line in out.splitlines()] == ["301", "302", "303"]


@needs_data
def test_several_runs_give_one_table_and_a_comparison(capsys, tmp_path):
    out_json = tmp_path / "r.json"
    status, _, _ = run_cli(
        capsys, "-c", "--format", "json", "-o", out_json, "--baseline", "results.test",
        DATA / "qrels.test", DATA / "results.test", DATA / "results.trunc",
    )  # fmt: skip
    assert status == 0
    payload = json.loads(out_json.read_text())
    runs = [row["run"] for row in payload["summary"]]
    assert runs == ["results.test", "results.trunc"]  # both tagged STANDARD: file names
    assert {row["run"] for row in payload["comparison"]} == {"results.trunc"}
    status, out, _ = run_cli(capsys, "-c", DATA / "qrels.test", DATA / "results.test",
                             DATA / "results.trunc")  # fmt: skip
    assert status == 0
    assert "results.trunc" in out
    assert "nDCG@10" in out


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["missing.qrels", "missing.run"], "No such file"),
        (["-m", "nope", "QRELS", "RUN"], "unknown metric 'nope'"),
        (["-m", "map.5", "QRELS", "RUN"], "takes no parameters"),
        (["--format", "xlsx", "QRELS", "RUN"], "needs an output file"),
        (["--format", "latex", "QRELS", "RUN"], "two or more runs"),
        (["--baseline", "other", "QRELS", "RUN"], "is not a run tag"),
        (["BADQRELS", "RUN"], "line 1: expected 4 fields"),
    ],
)
def test_errors_exit_non_zero_with_one_line(capsys, tmp_path, args, message):
    (tmp_path / "q").write_text("1 0 a 1\n")
    (tmp_path / "r").write_text("1 Q0 a 1 1.0 t\n")
    (tmp_path / "bad").write_text("1 0 a\n")
    paths = {"QRELS": tmp_path / "q", "RUN": tmp_path / "r", "BADQRELS": tmp_path / "bad"}
    status, out, err = run_cli(capsys, *[paths.get(a, a) for a in args])
    assert status != 0
    assert out == ""
    assert len(err.strip().splitlines()) == 1
    assert err.startswith("pdireval: error: ")
    assert message in err


def test_demo_prints_the_comparison(capsys):
    status, out, _ = run_cli(capsys, "demo")
    assert status == 0
    assert "strong" in out
    assert "medium" in out
    assert "weak" in out
    assert "each run against 'medium'" in out
    assert "significantly better/worse than medium" in out


def test_python_dash_m_and_console_entry_point():
    result = subprocess.run([sys.executable, "-m", "pdireval", "--help"],
                            capture_output=True, text=True, check=False)  # fmt: skip
    assert result.returncode == 0
    assert "--baseline" in result.stdout
    assert "QRELS" not in result.stderr


def test_the_console_command_writes_everything_and_runs_exit_handlers(capsys, tmp_path):
    # the command leaves without tearing the interpreter down: its output must still be
    # whole, its status main's, and exit handlers (here a --load module's) must still run
    lines = [f"q{i // 50} Q0 d{i} {i % 50 + 1} {-i} r\n" for i in range(5000)]
    (tmp_path / "run").write_text("".join(lines))
    (tmp_path / "qrels").write_text("".join(f"q{i} 0 d{50 * i} 1\n" for i in range(100)))
    (tmp_path / "bye.py").write_text(
        "import atexit, pathlib\natexit.register(pathlib.Path('exited').write_text, 'yes')\n"
    )
    arguments = ["-q", "-m", "all_trec", "--load", "bye.py", "qrels", "run"]
    done = subprocess.run(
        [sys.executable, "-m", "pdireval", *arguments],
        capture_output=True, text=True, cwd=tmp_path, check=False, timeout=300,
    )  # fmt: skip
    monkeypatch = pytest.MonkeyPatch()
    with monkeypatch.context() as patched:
        patched.chdir(tmp_path)
        # without --load: its exit handler would run when the test session ends
        assert (
            main([argument for argument in arguments if argument not in ("--load", "bye.py")]) == 0
        )
    assert done.returncode == 0, done.stderr
    assert len(done.stdout) > 100_000  # more than a pipe holds at once
    assert done.stdout == capsys.readouterr().out
    assert (tmp_path / "exited").read_text() == "yes"
    buffered = {k: v for k, v in os.environ.items() if k != "PYTHONUNBUFFERED"}
    summary = subprocess.run(  # a few lines: still in the buffer when the command ends
        [sys.executable, "-m", "pdireval", "qrels", "run"],
        capture_output=True, text=True, cwd=tmp_path, check=True, timeout=300, env=buffered,
    )  # fmt: skip
    with monkeypatch.context() as patched:
        patched.chdir(tmp_path)
        assert main(["qrels", "run"]) == 0
    assert summary.stdout == capsys.readouterr().out
    assert summary.stdout.startswith("runid")
    refused = subprocess.run(
        [sys.executable, "-m", "pdireval", "qrels", "bye.py"],
        capture_output=True, text=True, cwd=tmp_path, check=False, timeout=300,
    )  # fmt: skip
    assert refused.returncode == 1
    assert "pdireval: error:" in refused.stderr


# ----------------------------------------------------------------- corners found against trec_eval

QRELS_J = "1 0 a 1\n1 0 b 0\n2 0 x 0\n3 0 y 1\n3 0 z 2\n"
#: query 2 retrieves only an unjudged document, query 4 has no judgments at all
RUN_J = (
    "1 Q0 a 1 3.0 r\n1 Q0 c 2 2.0 r\n2 Q0 u 1 1.0 r\n3 Q0 u 1 2.0 r\n3 Q0 y 2 1.0 r\n4 Q0 y 1 1 r\n"
)


def _files(tmp_path: Path, qrels: str, run: str) -> tuple[Path, Path]:
    (tmp_path / "q").write_text(qrels)
    (tmp_path / "r").write_text(run)
    return tmp_path / "q", tmp_path / "r"


def _lines(out: str) -> dict[tuple[str, str], str]:
    return {(m.strip(), q): v for m, q, v in (line.split("\t") for line in out.splitlines())}


def test_judged_only_prints_nan_where_trec_eval_divides_zero_by_zero(capsys, tmp_path):
    """-J leaves query 2 nothing retrieved: trec_eval's interpolated precision is 0/0
    (printed -nan) at every level needing no relevant document, and so is the mean."""
    pytrec_eval = pytest.importorskip("pytrec_eval")
    qrels, run = _files(tmp_path, QRELS_J, RUN_J)
    args = ["-q", "-J", "-m", "iprec_at_recall..0.15,0.9", "-m", "set_F.0.25", qrels, run]
    status, out, err = run_cli(capsys, *args)
    assert status == 0
    assert "1 of the runs' 4 queries have no judgments" in err
    lines = _lines(out)
    judgments = {"1": {"a": 1, "b": 0}, "2": {"x": 0}, "3": {"y": 1, "z": 2}}
    ranking = {"1": {"a": 3.0, "c": 2.0}, "2": {"u": 1.0}, "3": {"u": 2.0, "y": 1.0}}
    measures = {"set_F.0.25", "iprec_at_recall.0.0,0.9"}
    reference = pytrec_eval.RelevanceEvaluator(judgments, measures, judged_docs_only_flag=True)
    for query, values in reference.evaluate(ranking).items():
        for name, value in values.items():
            shown = "  -nan" if value != value else f"{value:6.4f}"  # C's %6.4f
            printed = "set_F_0.25" if name == "set_F" else name  # pytrec_eval drops 0.25
            assert lines[printed, query] == shown, (name, query)
    assert lines["iprec_at_recall_0.00", "2"] == "  -nan"
    assert lines["iprec_at_recall_0.00", "all"] == "  -nan"
    assert lines["set_F_0.25", "all"] == "0.6111"  # (1 + 0 + 0.8333) / 3


def test_means_add_up_in_query_order_as_trec_eval(capsys, tmp_path):
    """trec_eval adds the per-query values one by one, in query id order, and divides:
    here that gives 0.64374999..., printed 0.6437, where the exact mean 0.64375 would
    print 0.6438."""
    rprec = [0.5, 1.0, 0.4, 0.0, 1.0, 2 / 3, 1.0, 7 / 12]  # R-precision of queries 1..8
    relevant_in_top = [(2, 1), (1, 1), (5, 2), (1, 0), (1, 1), (3, 2), (1, 1), (12, 7)]
    qrels, run = [], []
    for query, (num_rel, found) in enumerate(relevant_in_top, start=1):
        qrels += [f"{query} 0 rel{i} 1" for i in range(num_rel)]
        ranking = [f"rel{i}" for i in range(found)] + [f"other{i}" for i in range(num_rel - found)]
        run += [f"{query} Q0 {doc} {r} {100 - r} t" for r, doc in enumerate(ranking, start=1)]
    qrels_path, run_path = _files(tmp_path, "\n".join(qrels) + "\n", "\n".join(run) + "\n")
    status, out, _ = run_cli(capsys, "-q", "-m", "Rprec", qrels_path, run_path)
    assert status == 0
    lines = _lines(out)
    assert [float(lines["Rprec", str(q)]) for q in range(1, 9)] == pytest.approx(rprec, abs=5e-5)
    total = 0.0
    for value in rprec:
        total += value
    assert f"{total / 8:.4f}" == "0.6437" != f"{math.fsum(rprec) / 8:.4f}"
    assert lines["Rprec", "all"] == "0.6437"


@pytest.mark.parametrize(
    ("measure", "names"),
    [
        ("iprec_at_recall..0.15,0.9", ["iprec_at_recall_0.00", "iprec_at_recall_0.90"]),
        ("P.10,5", ["P_5", "P_10"]),
        ("P.5x,2", ["P_2", "P_5"]),  # atol reads "5x" as 5
        ("set_F.0.25", ["set_F_0.25"]),  # named by the parameters as typed
        ("set_F.0.250", ["set_F_0.250"]),
        ("set_F", ["set_F"]),
        ("ndcg.1=2,0=1", ["ndcg_1=2,0=1"]),
    ],
)
def test_measure_parameters_are_read_as_trec_eval_reads_them(capsys, tmp_path, measure, names):
    qrels, run = _files(tmp_path, QRELS_J, RUN_J)
    status, out, _ = run_cli(capsys, "-m", measure, qrels, run)
    assert status == 0
    assert [line.split("\t")[0].strip() for line in out.splitlines()] == names


@pytest.mark.parametrize(
    ("measure", "message"),
    [
        ("P.5,5", "duplicate cutoffs"),
        ("P.0,5", "positive whole numbers"),
        ("P.abc", "positive whole numbers"),
        ("iprec_at_recall.0.5,.5", "duplicate cutoffs"),
        ("set_F.1,2", "takes one parameter"),
    ],
)
def test_measure_parameters_trec_eval_refuses(capsys, tmp_path, measure, message):
    qrels, run = _files(tmp_path, QRELS_J, RUN_J)
    status, _, err = run_cli(capsys, "-m", measure, qrels, run)
    assert status == 1
    assert message in err


def test_no_shared_query_is_an_error(capsys, tmp_path):
    qrels, run = _files(tmp_path, "1 0 a 1\n", "2 Q0 a 1 1.0 r\n")
    status, out, err = run_cli(capsys, qrels, run)
    assert status == 7  # trec_eval: "No queries with both results and relevance info"
    assert out == ""
    assert f"no query of run file '{run}' has judgments in '{qrels}'" in err
    assert "the run's 1 query, e.g. ['2']; the qrels' 1 query, e.g. ['1']" in err


# ------------------------------------------------ files refused, never skipped without a word


@pytest.mark.parametrize(
    ("content", "status", "message"),
    [
        ("", 2, "cannot read run file '{path}': it is empty"),
        ("\n  \n\t\n", 7, "run file '{path}' has no result line, only blank lines or comments"),
        ("# a comment only\n", 7, "run file '{path}' has no result line"),
        ("9 Q0 a 1 1.0 r\n", 7, "no query of run file '{path}' has judgments"),
    ],
)
def test_a_run_without_results_is_refused_in_every_mode(capsys, tmp_path, content, status, message):
    """An empty run file (trec_eval: "Cannot read results file", status 2), one of blank
    lines or comments only, or one whose queries have no judgments (trec_eval: "No
    queries with both results and relevance info", status 7) stops the command, alone or
    among several runs -- the table never loses a run without a word."""
    qrels, run = _files(tmp_path, QRELS_J, RUN_J)
    odd = tmp_path / "odd.run"
    odd.write_text(content)
    calls = [
        [qrels, odd],
        [qrels, run, odd],
        [qrels, odd, run],
        ["--format", "csv", qrels, run, odd],
    ]
    for arguments in calls:
        got, out, err = run_cli(capsys, *arguments)
        assert (got, out) == (status, ""), arguments
        assert len(err.strip().splitlines()) == 1, err
        assert err.startswith("pdireval: error: ")
        assert message.format(path=odd) in err
    if status == 7 and content.strip():  # fusing needs no judgments: only files without lines
        return
    got, out, err = run_cli(capsys, "fuse", "-m", "rrf", run, odd)
    assert (got, out) == (status, "")
    assert err.startswith("pdireval fuse: error: ")
    assert message.format(path=odd) in err


@pytest.mark.parametrize(
    ("content", "message"),
    [
        ("", "cannot read qrels file '{path}': it is empty"),
        ("\n\n", "qrels file '{path}' has no judgment line, only blank lines or comments"),
        ("# judged later\n", "qrels file '{path}' has no judgment line"),
    ],
)
def test_qrels_without_judgments_are_refused(capsys, tmp_path, content, message):
    """trec_eval refuses an empty qrels file (or one of blank lines) with status 2; before,
    the command blamed the run's query ids."""
    _, run = _files(tmp_path, QRELS_J, RUN_J)
    qrels = tmp_path / "empty.qrels"
    qrels.write_text(content)
    got, out, err = run_cli(capsys, qrels, run)
    assert (got, out) == (2, "")
    assert message.format(path=qrels) in err
    assert "query ids" not in err


def test_a_file_in_the_wrong_place_is_named_with_the_usage(capsys, tmp_path):
    """A qrels file where a run goes (or a run file where the qrels go) is named, with the
    command's usage -- not the reading functions' advice to Python users."""
    qrels, run = _files(tmp_path, QRELS_J, RUN_J)
    usage = "the qrels file comes first: pdireval QRELS RUN [RUN ...]"
    for arguments, named, kind in [
        ([run, qrels], run, "a run file (qid Q0 docno rank score tag), given where the qrels"),
        ([qrels, run, qrels], qrels, "a qrels file (qid iter docno rel), given where a run"),
        ([qrels, qrels], qrels, "a qrels file (qid iter docno rel), given where a run"),
    ]:
        got, out, err = run_cli(capsys, *arguments)
        assert (got, out) == (2, ""), arguments
        assert f"pdireval: error: '{named}' is {kind}" in err
        assert usage in err
        assert "read_qrels" not in err
        assert "read_run" not in err
    for arguments in ([run, qrels], [qrels, run]):
        got, out, err = run_cli(capsys, "fuse", *arguments)
        assert (got, out) == (2, "")
        assert f"'{qrels}' is a qrels file" in err
        assert "pdireval fuse takes run files only: pdireval fuse [-m METHOD] RUN RUN" in err
        assert "read_qrels" not in err


def test_a_short_line_in_a_run_keeps_its_message_without_python_advice(capsys, tmp_path):
    qrels, run = _files(tmp_path, QRELS_J, RUN_J + "5 0 a 1\n")
    got, out, err = run_cli(capsys, qrels, run)
    assert (got, out) == (1, "")
    assert "line 7: expected 6 fields (qid Q0 docno rank score tag), found 4: '5 0 a 1'" in err
    assert "read_qrels" not in err
    got, _, err = run_cli(capsys, "fuse", run, run)
    assert got == 2  # the same file twice
    got, _, err = run_cli(capsys, "fuse", run, qrels)
    assert got == 1  # the run's short line, read first
    assert "found 4: '5 0 a 1'" in err
    assert "read_qrels" not in err


def test_demo_write_refuses_to_replace_files_unless_forced(capsys, tmp_path):
    folder = tmp_path / "example"
    assert main(["demo", "--write", str(folder)]) == 0
    names = ["qrels.txt", "strong.txt", "medium.txt", "weak.txt"]
    assert sorted(p.name for p in folder.iterdir()) == sorted(names)
    (folder / "qrels.txt").write_text("mine\n")
    (folder / "notes.txt").write_text("kept\n")
    capsys.readouterr()
    got, out, err = run_cli(capsys, "demo", "--write", folder)
    assert (got, out) == (2, "")
    assert all(str(folder / name) in err for name in names)
    assert f"'pdireval demo --write {folder} --force' replaces them" in err
    assert (folder / "qrels.txt").read_text() == "mine\n"  # untouched
    got, out, _ = run_cli(capsys, "demo", "--force", "--write", folder)
    assert got == 0
    assert out.startswith(f"wrote {folder / 'qrels.txt'}, ")
    assert (folder / "qrels.txt").read_text().startswith("401 0 ")
    assert (folder / "notes.txt").read_text() == "kept\n"
    # one file of the four there: it alone is named, and nothing is written
    other = tmp_path / "other"
    other.mkdir()
    (other / "weak.txt").write_text("mine\n")
    got, _, err = run_cli(capsys, "demo", "--write", other)
    assert got == 2
    assert f"{other / 'weak.txt'} already exists; " in err
    assert "replaces it" in err
    assert sorted(p.name for p in other.iterdir()) == ["weak.txt"]
    got, _, err = run_cli(capsys, "demo", "--force")
    assert got == 2
    assert "give DIR" in err


def test_demo_help_offers_force(capsys):
    with pytest.raises(SystemExit) as done:
        main(["demo", "--help"])
    assert done.value.code == 0
    out = capsys.readouterr().out
    assert "--write DIR" in out
    assert "--force" in out


USER_METRIC = """
import numpy as np
from pdireval.metrics import define


def precision(ranked, *, k, rel):
    top = ranked.relevant(rel) & (ranked.position <= k)
    return ranked.per_query_count(top) / k


define("CliP", precision, cutoff="required", replace=True)
"""


@pytest.fixture
def forget_cli_metric():
    yield
    from pdireval.metrics import REGISTRY

    REGISTRY.pop("CliP", None)
    sys.modules.pop("mine", None)


@pytest.mark.usefixtures("forget_cli_metric")
def test_load_makes_a_user_metric_nameable(capsys, tmp_path):
    (tmp_path / "mine.py").write_text(USER_METRIC)
    qrels, run = _files(tmp_path, QRELS_J, RUN_J)
    status, out, _ = run_cli(capsys, "--load", tmp_path / "mine.py", "-q", "-m", "CliP@2",
                             "-m", "P.2", qrels, run)  # fmt: skip
    assert status == 0
    lines = _lines(out)
    for query in ("1", "2", "3", "all"):
        assert lines["CliP@2", query] == lines["P_2", query]
    status, _, err = run_cli(capsys, "--load", tmp_path / "absent.py", qrels, run)
    assert status == 2
    assert "no such Python file" in err
    (tmp_path / "broken.py").write_text("raise RuntimeError('boom')\n")
    status, _, err = run_cli(capsys, "--load", tmp_path / "broken.py", qrels, run)
    assert status == 2
    assert "--load" in err
    assert "RuntimeError: boom" in err


def test_no_arguments_print_the_usage_and_version_is_known(capsys):
    status, out, err = run_cli(capsys)
    assert status == 2
    assert out == ""
    assert "usage: pdireval" in err
    assert "pdireval demo" in err
    with pytest.raises(SystemExit) as exit_info:
        main(["--version"])
    assert exit_info.value.code == 0
    assert capsys.readouterr().out.startswith("pdireval 0.")
    status, _, err = run_cli(capsys, "demo", "extra")
    assert status == 2
    assert "'pdireval demo' takes nothing, or --write DIR [--force]" in err


def test_progress_only_when_a_person_watches(capsys, tmp_path, monkeypatch):
    import pdireval.cli.run as cli

    qrels, run = _files(tmp_path, QRELS_J, RUN_J * 1)
    monkeypatch.setattr(cli, "_LARGE_FILE", 0)  # every file counts as large
    status, _, err = run_cli(capsys, "-m", "map", qrels, run)
    assert status == 0
    assert "reading" not in err  # not a terminal: silent
    monkeypatch.setattr(cli.sys.stderr, "isatty", lambda: True)
    status, _, err = run_cli(capsys, "-m", "map", qrels, run)
    assert status == 0
    assert f"pdireval: reading {run} (0 MB) ..." in err
    assert "pdireval: read 6 lines in" in err


def test_diversity_qrels_from_files(capsys, tmp_path):
    """TREC diversity qrels name the subtopic in the second field; ndeval's numbers for
    the worked example (pyndeval gives alpha-nDCG@5 0.8343 and ERR-IA@5 0.5124)."""
    qrels = "1 a d1 1\n1 a d2 1\n1 b d2 1\n1 b d3 1\n1 c d4 1\n"
    run = "".join(
        f"1 Q0 {d} {i} {6 - i} r\n" for i, d in enumerate(["d1", "d2", "d3", "dx", "d4"], 1)
    )
    q, r = _files(tmp_path, qrels, run)
    status, out, _ = run_cli(capsys, "-m", "alpha_nDCG@5", "-m", "ERR_IA@5", "-m", "map", q, r)
    assert status == 0
    lines = _lines(out)
    assert lines["alpha_nDCG@5", "all"] == "0.8343"
    assert lines["ERR_IA@5", "all"] == "0.5124"
    assert lines["map", "all"] == "0.9500"  # each document once, with its best label


_POOL_PROBE = """
import sys
import pyarrow as pa
from pdireval import cli
sys.argv = ["pdireval", "--version"]
try:
    cli.console()
except SystemExit:
    pass
print(pa.default_memory_pool().backend_name)
"""


@pytest.mark.parametrize("chosen", [None, "system"])
def test_console_gives_freed_memory_back_unless_the_user_chose(chosen) -> None:
    """The console script (not ``main``, which notebooks call) switches Arrow to jemalloc
    returning freed pages at once, where the build has it; a pool chosen through
    ``ARROW_DEFAULT_MEMORY_POOL`` stays."""
    import os
    import subprocess
    import sys

    import pyarrow as pa

    env = {k: v for k, v in os.environ.items() if k != "ARROW_DEFAULT_MEMORY_POOL"}
    if chosen:
        env["ARROW_DEFAULT_MEMORY_POOL"] = chosen
    done = subprocess.run(
        [sys.executable, "-c", _POOL_PROBE], capture_output=True, text=True, env=env, timeout=120
    )
    assert done.returncode == 0, done.stderr
    try:
        pa.jemalloc_memory_pool()
        has_jemalloc = True
    except NotImplementedError:
        has_jemalloc = False
    expected = chosen or ("jemalloc" if has_jemalloc else pa.default_memory_pool().backend_name)
    assert done.stdout.split()[-1] == expected
