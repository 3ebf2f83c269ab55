"""The command line against the trec_eval 9.0.8 program itself, byte for byte.

trec_eval's C source is not part of this project. It is looked for in
``../shared/trec_eval-9.0.8`` next to the clone, or where ``PDIREVAL_TREC_EVAL_SOURCE``
points; the tests build it with the system's C compiler into a temporary directory and
skip, saying why, when the source or a compiler is missing. The program is only run:
nothing of it is part of pdireval.

The files are generated adversarially (ties, unjudged and unretrieved documents,
queries only in the run or only in the qrels, negative labels, labels above 9, ids whose
string order differs from their numeric order), and each set of options users combine
is run through both programs; the outputs must be identical.
"""

from __future__ import annotations

import subprocess

import pytest
from trec_files import OPTIONS, write_case

from pdireval import cli
from pdireval.cli.measures import parse_measures


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_the_command_line_prints_what_trec_eval_prints(trec_eval, tmp_path, capsys, seed) -> None:
    run, qrels = write_case(tmp_path, seed)
    for options in OPTIONS:
        arguments = [*options, str(qrels), str(run)]
        expected = subprocess.run(
            [str(trec_eval), *arguments], capture_output=True, text=True, check=True
        )
        capsys.readouterr()
        assert cli.main(arguments) == 0, (options, capsys.readouterr().err)
        assert capsys.readouterr().out == expected.stdout, options


def test_all_trec_names_the_measures_trec_eval_prints(trec_eval, tmp_path) -> None:
    """``-m all_trec`` prints the measure names the binary prints, no more, no fewer."""
    run, qrels = write_case(tmp_path, 3)
    arguments = ["-q", "-m", "all_trec", str(qrels), str(run)]
    expected = subprocess.run([str(trec_eval), *arguments], capture_output=True, text=True)
    names = {line.split("\t")[0].rstrip() for line in expected.stdout.splitlines()}
    assert names == {m.name for m in parse_measures(["all_trec"])}


REFUSED = {  # file name -> content, each refused by trec_eval 9.0.8 with its exit status
    "empty": "",  # "Cannot read results file" / "Cannot read qrels file": 2
    "blank": "\n \n\t\n",  # a run: "No queries with both results and relevance info": 7
    "unjudged": "99 Q0 d1 1 1.0 r\n",  # a run whose query has no judgments: 7
}


@pytest.mark.parametrize(
    ("qrels", "run", "named"),
    [
        ("qrels", "empty", "empty"),
        ("qrels", "blank", "blank"),
        ("qrels", "unjudged", "unjudged"),
        ("empty", "run", "empty"),
        ("blank", "run", "blank"),
        ("run", "qrels", "run"),  # swapped: the run file is where the qrels go
        ("qrels", "qrels", "qrels"),  # a qrels file where the run goes
    ],
)
def test_files_trec_eval_refuses_are_refused_with_its_status(
    trec_eval, tmp_path, capsys, qrels, run, named
) -> None:
    """An empty file, one of blank lines, a run without a judged query or files in the
    wrong place: trec_eval exits with 2 or 7 and prints nothing on standard output; the
    command line exits with the same status, its one-line message naming the file."""
    files = {"qrels": "1 0 d1 1\n1 0 d2 0\n", "run": "1 Q0 d1 1 2.0 r\n1 Q0 d3 2 1.0 r\n"}
    files |= REFUSED
    for name, content in files.items():
        (tmp_path / name).write_text(content)
    arguments = [str(tmp_path / qrels), str(tmp_path / run)]
    expected = subprocess.run([str(trec_eval), *arguments], capture_output=True, text=True)
    assert expected.returncode in (2, 7), expected.stderr
    assert expected.stdout == ""
    capsys.readouterr()
    assert cli.main(arguments) == expected.returncode
    captured = capsys.readouterr()
    assert captured.out == ""
    assert len(captured.err.strip().splitlines()) == 1, captured.err
    assert f"'{tmp_path / named}'" in captured.err
