"""The trec_eval program itself on generated preference and judgment-group files.

trec_eval 9.0.8 (the session fixture ``trec_eval`` builds it from its source) prints,
with ``-q``, every value of ``-m all_prefs`` (``-R prefs`` and ``-R qrels_prefs``) and of
``-m qrels_jg`` (``-R qrels_jg``); :func:`pdireval.preferences.trec_table` must give each
printed line, per query and ``all``, to the 4 decimals printed. The files come from
``tests/preference_frames.py``: ties of scores and of levels, ids whose text order is
not their natural one, several judgment groups that disagree, groups of one and of
several sub-groups, documents listed twice, negative levels, judged documents nobody
retrieved, retrieved documents nobody judged, queries only on one side; with ``-c``,
``-M`` and, for judgment groups, ``-J`` and ``-l``.

trec_eval 10.0 is checked too where the session has it (fixture ``trec_eval_10``), with
``-c``: it then prints the judged queries the run did not retrieve and adds them up.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from preference_frames import (
    prefs_frame,
    qrels_jg_frame,
    run_frame,
    trec_eval_lines,
    write_prefs,
    write_qrels_jg,
    write_run,
)

import pdireval
from pdireval.preferences import trec_table

TOLERANCE = 5e-5 + 1e-9  # trec_eval prints %6.4f
SEEDS = range(40)
#: trec_eval's options, and the keyword arguments of trec_table that say the same
PREFS_OPTIONS = {"": {}, "-c": {"complete": True}, "-M3": {"max_rank": 3}}
JG_OPTIONS = {
    **PREFS_OPTIONS,
    "-J": {"judged_only": True},
    "-l2": {"rel_threshold": 2},
    "-c -J -M4": {"complete": True, "judged_only": True, "max_rank": 4},
}


def _printed(table) -> dict[tuple[str, str], float]:
    got = {}
    for query, row in table.per_query.iterrows():
        for measure, value in row.items():
            got[measure, str(query)] = float(value)
    for measure, value in table.summary.loc["all"].items():
        got[str(measure), "all"] = float(value)
    return got


def _agree(expected: dict[tuple[str, str], str], table) -> None:
    got = _printed(table)
    expected = {key: text for key, text in expected.items() if key[0] != "runid"}
    assert set(got) == set(expected), sorted(set(got) ^ set(expected))[:10]
    wrong = [
        (key, text, got[key])
        for key, text in expected.items()
        if abs(got[key] - float(text)) > TOLERANCE
    ]
    assert not wrong, wrong[:10]


def _files(tmp_path: Path, seed: int, kind: str) -> tuple[Path, Path]:
    if kind == "prefs":
        judgments = prefs_frame(seed)
        path = write_prefs(judgments, tmp_path / "prefs")
    else:
        judgments = qrels_jg_frame(seed)
        path = write_qrels_jg(judgments, tmp_path / "qrels")
    run = run_frame(seed, sorted(set(judgments["query"])))
    return path, write_run(run, tmp_path / "run")


def _read_run(path: Path):
    return pdireval.read_run(path).drop(columns="run")


@pytest.mark.parametrize("seed", SEEDS)
def test_prefs(trec_eval: Path, tmp_path: Path, seed: int) -> None:
    prefs_file, run_file = _files(tmp_path, seed, "prefs")
    prefs, run = pdireval.read_prefs(prefs_file), _read_run(run_file)
    for flags, options in PREFS_OPTIONS.items():
        options_text = f"-q -m all_prefs {flags} -R prefs"
        expected = trec_eval_lines(trec_eval, *options_text.split(), str(prefs_file), str(run_file))
        _agree(expected, trec_table(run, prefs, **options))


@pytest.mark.parametrize("seed", SEEDS)
def test_qrels_prefs(trec_eval: Path, tmp_path: Path, seed: int) -> None:
    qrels_file, run_file = _files(tmp_path, seed, "qrels")
    qrels, run = pdireval.read_qrels(qrels_file), _read_run(run_file)
    for flags, options in PREFS_OPTIONS.items():
        options_text = f"-q -m all_prefs {flags} -R qrels_prefs"
        expected = trec_eval_lines(trec_eval, *options_text.split(), str(qrels_file), str(run_file))
        _agree(expected, trec_table(run, qrels, rel_format="qrels_prefs", **options))


@pytest.mark.parametrize("seed", SEEDS)
def test_qrels_jg(trec_eval: Path, tmp_path: Path, seed: int) -> None:
    qrels_file, run_file = _files(tmp_path, seed, "qrels")
    qrels_jg, run = pdireval.read_qrels_jg(qrels_file), _read_run(run_file)
    for flags, options in JG_OPTIONS.items():
        measures = ["map_avgjg", "P_avgjg.1,2,3,7", "Rprec_mult_avgjg.0.3,0.5,1.5,2.5"]
        # "-m qrels_jg" prints num_q; the other two give the cutoffs
        options_text = f"-q -m qrels_jg -m {' -m '.join(measures[1:])} {flags} -R qrels_jg"
        expected = trec_eval_lines(trec_eval, *options_text.split(), str(qrels_file), str(run_file))
        table = trec_table(run, qrels_jg, measures, rel_format="qrels_jg", **options)
        _agree(expected, table)


@pytest.mark.parametrize("seed", range(15))
def test_trec_eval_10_complete(request: pytest.FixtureRequest, tmp_path: Path, seed: int) -> None:
    try:
        program = request.getfixturevalue("trec_eval_10")
    except pytest.FixtureLookupError:
        pytest.skip("this checkout's tests/trec_eval_program.py does not build trec_eval 10.0")
    for kind, measure, rel_format in (
        ("prefs", "all_prefs", "prefs"),
        ("qrels", "all_prefs", "qrels_prefs"),
        ("qrels", "qrels_jg", "qrels_jg"),
    ):
        judgments_file, run_file = _files(tmp_path, seed, kind)
        options_text = f"-q -c -m {measure} -R {rel_format}"
        expected = trec_eval_lines(
            program, *options_text.split(), str(judgments_file), str(run_file)
        )
        reader = {
            "prefs": pdireval.read_prefs,
            "qrels_prefs": pdireval.read_qrels,
            "qrels_jg": pdireval.read_qrels_jg,
        }[rel_format]
        table = trec_table(
            _read_run(run_file),
            reader(judgments_file),
            rel_format=rel_format,
            complete=True,
            version="10.0",
        )
        _agree(expected, table)


def test_scores_are_compared_as_doubles(trec_eval: Path, tmp_path: Path) -> None:
    """Scores that differ below float32 precision are not tied: the trec_eval 9.0.8
    program reads them as doubles (only pytrec_eval rounds them to float32), so b ranks
    first and a > b is not fulfilled; as float32 they would tie and a (the smaller id)
    would come first.
    """
    prefs_file = tmp_path / "prefs"
    prefs_file.write_text("q1 u s a 2\nq1 u s b 1\n")
    run_file = tmp_path / "run"
    run_file.write_text("q1 Q0 a 1 1.00000001 r\nq1 Q0 b 2 1.00000002 r\n")
    expected = trec_eval_lines(
        trec_eval,
        "-q",
        "-m",
        "prefs_num_prefs_ful_ret",
        "-R",
        "prefs",
        str(prefs_file),
        str(run_file),
    )
    assert expected["prefs_num_prefs_ful_ret", "q1"] == "0"
    table = trec_table(_read_run(run_file), pdireval.read_prefs(prefs_file), "prefs")
    assert table.per_query.at["q1", "prefs_num_prefs_ful_ret"] == 0.0
