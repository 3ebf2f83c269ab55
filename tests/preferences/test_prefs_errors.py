"""Malformed files, frames and arguments are refused with messages that say what was
found and how to fix it.
"""

from __future__ import annotations

import gzip
import io

import pandas as pd
import pytest

import pdireval
from pdireval.preferences import trec_table

RUN = pd.DataFrame({"query": "q1", "doc": ["a", "b", "c"], "score": [3.0, 2.0, 1.0]})
PREFS = pd.DataFrame(
    {"query": "q1", "group": "u", "subgroup": "s", "doc": ["a", "b"], "rel": [1.0, 0.0]}
)
QRELS_JG = pd.DataFrame({"query": "q1", "group": ["u", "v"], "doc": ["a", "a"], "rel": [1, 0]})


# --------------------------------------------------------------------------- files


@pytest.mark.parametrize(
    ("text", "found"),
    [
        ("q1 u s a 1\nq1 u s b\n", r"line 2: expected 5 fields .* found 4: 'q1 u s b'"),
        ("q1 u s a 1 extra\n", r"line 1: expected 5 fields .* found 6"),
        ("\n# a comment\nq1 u s a high\n", r"line 3: the level 'high' is not a number"),
        ("q1 u s a nan\n", r"line 1: the level 'nan' is not a number"),
    ],
)
def test_malformed_prefs_lines_are_named(text: str, found: str) -> None:
    with pytest.raises(pdireval.SchemaError, match=found):
        pdireval.read_prefs(io.StringIO(text))


def test_prefs_file_errors_name_the_file(tmp_path) -> None:
    path = tmp_path / "bad.prefs"
    path.write_bytes(b"q1 u s a 1\nq1 u s b \xff 1\n")
    with pytest.raises(pdireval.SchemaError, match=r"bad.prefs, line 2: .* not valid utf-8"):
        pdireval.read_prefs(path)
    with pytest.raises(pdireval.SchemaError, match="expected a path or a file-like object"):
        pdireval.read_prefs(PREFS)  # type: ignore[arg-type]
    with pytest.raises(OSError, match=r"missing\.prefs"):
        pdireval.read_prefs(tmp_path / "missing.prefs")


def test_prefs_files_read_as_trec_eval_reads_them(tmp_path) -> None:
    """Tabs and runs of spaces, blank and comment lines, a '#' inside an id, CRLF line
    ends, gzip, an empty file.
    """
    text = "# comment\n\nq1\tu  s a#1 2\r\n  q1 u s b 1.5e0\n"
    path = tmp_path / "prefs.gz"
    path.write_bytes(gzip.compress(text.encode()))
    frame = pdireval.read_prefs(path)
    assert frame["doc"].tolist() == ["a#1", "b"]
    assert frame["rel"].tolist() == [2.0, 1.5]
    empty = pdireval.read_prefs(io.StringIO(""))
    assert list(empty.columns) == ["query", "group", "subgroup", "doc", "rel"]
    assert len(empty) == 0


def test_qrels_jg_files() -> None:
    with pytest.raises(pdireval.SchemaError, match="appears twice"):
        pdireval.read_qrels_jg(io.StringIO("1 u d1 1\n1 u d1 0\n"))
    with pytest.raises(pdireval.SchemaError, match="line 1"):
        pdireval.read_qrels_jg(io.StringIO("1 u d1 1.5\n"))
    frame = pdireval.read_qrels_jg(io.StringIO("1 u d1 1\n1 v d1 0\n"))  # two groups: fine
    assert frame["group"].tolist() == ["u", "v"]


# --------------------------------------------------------------------------- frames


def test_missing_columns_are_named() -> None:
    with pytest.raises(pdireval.SchemaError, match=r"lack the column\(s\) \['subgroup'\]"):
        pdireval.evaluate_prefs(RUN, PREFS.drop(columns="subgroup"))
    with pytest.raises(pdireval.SchemaError, match="must be a pandas DataFrame"):
        pdireval.evaluate_prefs(RUN, [1, 2])  # type: ignore[arg-type]
    with pytest.raises(pdireval.SchemaError, match="neither a score nor a rank column"):
        pdireval.evaluate_prefs(RUN.drop(columns="score"), PREFS)
    with pytest.raises(pdireval.SchemaError, match=r"lack the column\(s\) \['group'\]"):
        pdireval.evaluate_qrels_jg(RUN, QRELS_JG.drop(columns="group"))


def test_bad_levels_and_ids() -> None:
    with pytest.raises(pdireval.SchemaError, match="not a number in column 'rel'"):
        pdireval.evaluate_prefs(RUN, PREFS.assign(rel=["high", 0.0]))
    with pytest.raises(pdireval.SchemaError, match="missing doc on row 1"):
        pdireval.evaluate_prefs(RUN, PREFS.assign(doc=["a", None]))
    with pytest.raises(pdireval.SchemaError, match="not a whole number on row 0"):
        pdireval.evaluate_qrels_jg(RUN, QRELS_JG.assign(rel=[1.5, 0]))
    with pytest.raises(pdireval.SchemaError, match="must hold numbers"):
        pdireval.evaluate_prefs(RUN.assign(score=["x", "y", "z"]), PREFS)
    with pytest.raises(pdireval.SchemaError, match="convert one side"):
        pdireval.evaluate_prefs(RUN.assign(query=1), PREFS)


def test_contradicting_groups_are_refused() -> None:
    two_levels = PREFS.assign(doc=["a", "a"])
    with pytest.raises(
        pdireval.SchemaError,
        match=r"document 'a' has two levels \(0 and 1\) in judgment group 'u' of query 'q1'",
    ):
        pdireval.evaluate_prefs(RUN, two_levels)
    cycle = pd.DataFrame(
        {
            "query": "q1",
            "group": "u",
            "subgroup": ["s", "s", "t", "t"],
            "doc": ["a", "b", "b", "a"],
            "rel": [2.0, 1.0, 2.0, 1.0],
        }
    )
    with pytest.raises(pdireval.SchemaError, match="contradict each other: document 'a'"):
        pdireval.evaluate_prefs(RUN, cycle)
    flip = pd.DataFrame(
        {
            "query": "q1",
            "group": "u",
            "subgroup": ["s", "s", "t", "t"],
            "doc": ["a", "b", "a", "c"],
            "rel": [0.0, 1.0, 2.0, 1.0],
        }
    )
    with pytest.raises(pdireval.SchemaError, match=r"'a' is non-relevant .* and relevant"):
        pdireval.evaluate_prefs(RUN, flip)
    with pytest.raises(pdireval.SchemaError, match="judged twice by judgment group 'u'"):
        pdireval.evaluate_qrels_jg(RUN, pd.concat([QRELS_JG, QRELS_JG.iloc[:1]]))


def test_bad_runs() -> None:
    twice = pd.concat([RUN, RUN.iloc[:1]])
    with pytest.raises(pdireval.SchemaError, match="document 'a' appears twice in the run"):
        pdireval.evaluate_prefs(twice, PREFS)
    with pytest.raises(pdireval.SchemaError, match="two documents have the rank 1"):
        pdireval.evaluate_prefs(RUN.assign(rank=[1, 1, 2]), PREFS)
    with pytest.raises(pdireval.SchemaError, match="no query of the run has judgments"):
        pdireval.evaluate_prefs(RUN.assign(query="q9"), PREFS)
    with pytest.raises(pdireval.SchemaError, match="one collection at a time"):
        pdireval.evaluate_prefs(RUN.assign(collection="c"), PREFS)


# --------------------------------------------------------------------------- arguments


@pytest.mark.parametrize(
    ("measures", "found"),
    [
        ("prefs_smp", "did you mean 'prefs_simp'"),
        (["prefs_simp", 3], "a name or a list of names"),
    ],
)
def test_unknown_prefs_measures(measures, found: str) -> None:
    with pytest.raises(pdireval.MetricError, match=found):
        pdireval.evaluate_prefs(RUN, PREFS, measures)


@pytest.mark.parametrize(
    ("measures", "found"),
    [
        ("map_avg", "did you mean 'map_avgjg'"),
        ("P_avgjg.0", "whole numbers of documents >= 1"),
        ("P_avgjg.2.5", "whole numbers"),
        ("P_avgjg.5,5", "names a cutoff twice"),
        ("Rprec_mult_avgjg_x", "multiples of R"),
    ],
)
def test_unknown_jg_measures(measures: str, found: str) -> None:
    with pytest.raises(pdireval.MetricError, match=found):
        pdireval.evaluate_qrels_jg(RUN, QRELS_JG, measures)


@pytest.mark.parametrize(
    ("options", "found"),
    [
        ({"queries": "every"}, "queries='every' is not supported"),
        ({"max_rank": 0}, "max_rank=0 must be a whole number >= 1"),
    ],
)
def test_bad_prefs_options(options, found: str) -> None:
    with pytest.raises(pdireval.ParameterError, match=found):
        pdireval.evaluate_prefs(RUN, PREFS, **options)


@pytest.mark.parametrize(
    ("options", "found"),
    [
        ({"rel_threshold": -1}, "rel_threshold=-1 must be a finite number >= 0"),
        ({"judged_only": "yes"}, "judged_only= must be True or False"),
        ({"version": "11"}, "version='11' is not supported"),
        ({"rel_format": "qrels"}, "rel_format='qrels' is not supported"),
        ({"complete": 1}, "complete= must be True or False"),
    ],
)
def test_bad_trec_table_options(options, found: str) -> None:
    with pytest.raises(pdireval.ParameterError, match=found):
        trec_table(RUN, QRELS_JG, **{"rel_format": "qrels_jg", **options})


def test_summary_of_something_else() -> None:
    with pytest.raises(pdireval.SchemaError, match="expected the DataFrame of evaluate_prefs"):
        pdireval.prefs_summary(pd.Series([1.0]))  # type: ignore[arg-type]
