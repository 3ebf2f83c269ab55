"""The command line names a measure one way, with or without ``--baseline``; its demo says
how to get files to try it on."""

from __future__ import annotations

import json
import sys

import pytest

import pdireval
from pdireval.cli.main import main

MEASURES = ["-m", "map", "-m", "ndcg_cut.10", "-m", "P.5", "-m", "nDCG@5"]


@pytest.fixture
def files(tmp_path) -> list[str]:
    """The example collection as TREC files: qrels, then the strong, medium and weak runs."""
    return [str(path) for path in pdireval.datasets.write_example(tmp_path)]


def _run(capsys, *args: str) -> tuple[str, str]:
    assert main(list(args)) == 0, capsys.readouterr().err
    captured = capsys.readouterr()
    return captured.out, captured.err


def _header(line: str) -> list[str]:
    """The measure names of a table's header line (after ``metric``, when it starts so)."""
    words = line.split()
    return words[1:] if words[0] == "metric" else words


def _names(text: str) -> tuple[list[str], list[str]]:
    """The measures of the paper table's header, and those of the comparison's Metric
    column (in order, each once), in the text printed with ``--baseline``.
    """
    lines = text.splitlines()
    paper = _header(next(line for line in lines if line.startswith("metric")))
    head = next(at for at, line in enumerate(lines) if line.split()[:2] == ["Run", "Baseline"])
    where = lines[head].split().index("Metric")
    rows = [line.split() for line in lines[head + 1 :] if line.strip()]
    return paper, list(dict.fromkeys(row[where] for row in rows))


def test_names_are_the_same_with_and_without_a_baseline(files, capsys) -> None:
    pytest.importorskip("scipy")
    plain, _ = _run(capsys, *MEASURES, *files)
    without = _header(plain.splitlines()[0])
    compared, _ = _run(capsys, *MEASURES, *files, "--baseline", "medium")
    paper, metrics = _names(compared)
    assert paper == without
    assert metrics == without
    assert without == ["map", "ndcg_cut_10", "P_5", "nDCG@5"]  # as -m named them


def test_the_comparison_of_a_trec_output_names_measures_alike(files, capsys) -> None:
    """``--format trec`` with ``--baseline``: trec_eval's lines on stdout, the comparison on
    stderr, both naming the measures as trec_eval prints them.
    """
    pytest.importorskip("scipy")
    out, err = _run(capsys, *MEASURES, "--format", "trec", *files, "--baseline", "medium")
    trec_names = list(dict.fromkeys(line.split()[0] for line in out.splitlines()))
    paper, metrics = _names(err)
    assert paper == metrics == trec_names


def test_json_and_text_name_the_comparison_alike(files, capsys) -> None:
    pytest.importorskip("scipy")
    compared, _ = _run(capsys, *MEASURES, *files, "--baseline", "medium")
    payload, _ = _run(capsys, *MEASURES, "--format", "json", *files, "--baseline", "medium")
    named = list(dict.fromkeys(row["metric"] for row in json.loads(payload)["comparison"]))
    assert named == _names(compared)[1]


@pytest.mark.parametrize("with_scipy", [True, False])
def test_the_demo_ends_with_how_to_write_its_files(
    monkeypatch, capsys, tmp_path, with_scipy
) -> None:
    """The demo's closing hint names ``pdireval demo --write``, and the command it suggests
    after it runs on the files that command writes.
    """
    if with_scipy:
        pytest.importorskip("scipy")
    else:
        monkeypatch.setitem(sys.modules, "scipy", None)
        monkeypatch.setitem(sys.modules, "scipy.stats", None)
    out, _ = _run(capsys, "demo")
    closing = out.rstrip().split("\n\n")[-1]
    assert "pdireval demo --write DIR" in closing
    suggested = closing.split("try: cd DIR && ", 1)[1].split()
    assert suggested[0] == "pdireval"
    _run(capsys, "demo", "--write", str(tmp_path))
    files = [word for word in suggested if word.endswith(".txt")]
    assert files
    assert all((tmp_path / name).is_file() for name in files)
