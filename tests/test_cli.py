"""The command line reproduces trec_eval 9.0.8's expected outputs, line for line.

The expected outputs are trec_eval's own (``../shared/trec_eval_testdata/v9.0.8``, or
``$PDIREVAL_TREC_TESTDATA``; see its README for the command behind each file); the tests
skip when the folder is absent. From files printed with ``-m all_trec`` the lines of the
measures pdireval has are compared -- in trec_eval's order, digit for digit.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from pdireval.cli import main


def _data_dir() -> Path | None:
    candidates = []
    if os.environ.get("PDIREVAL_TREC_TESTDATA"):
        candidates.append(Path(os.environ["PDIREVAL_TREC_TESTDATA"]))
    candidates.append(Path(__file__).resolve().parents[2] / "shared" / "trec_eval_testdata")
    return next((c for c in candidates if (c / "qrels.test").is_file()), None)


DATA = _data_dir()
needs_data = pytest.mark.skipif(DATA is None, reason="trec_eval test data not found")


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
    ("out.test.aql", ["-q", "-l2"], "qrels.rel_level", "results.test"),
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
            "-m", "ndcg_cut.10,20", "-m", "success.2,5,20",
            "-m", "iprec_at_recall..10,.20,.25,.75,.50"]  # fmt: skip
    status, out, _ = run_cli(capsys, *args, DATA / "qrels.test", DATA / "results.test")
    assert status == 0
    mine = out.splitlines()
    names = {line.split("\t")[0].strip() for line in mine}
    assert "P_3" in names
    assert "Rprec_mult_5.00" in names
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
    assert "Each run against 'medium'" in out


def test_python_dash_m_and_console_entry_point():
    result = subprocess.run([sys.executable, "-m", "pdireval", "--help"],
                            capture_output=True, text=True, check=False)  # fmt: skip
    assert result.returncode == 0
    assert "--baseline" in result.stdout
    assert "QRELS" not in result.stderr
