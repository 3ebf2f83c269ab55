"""trec_eval's own expected outputs of its preference and judgment-group measures.

The data (the inputs and the ``out.*`` files trec_eval printed) lives outside the
project, in ``../shared/trec_eval_testdata`` next to the clone, or where the environment
variable ``PDIREVAL_TREC_TESTDATA`` points; the tests skip when it is absent. Its top
level holds trec_eval 10.0's outputs, ``v9.0.8/`` those of 9.0.8:

* ``out.test.prefs``: ``-m all_prefs -q -R prefs prefs.test prefs.results.test``
* ``out.test.qrels_prefs``: ``-m all_prefs -q -R qrels_prefs qrels.test results.test``
* ``out.test.qrels_jg``: ``-m qrels_jg -q -R qrels_jg qrels.123 results.test``

Every printed line (per query, and ``all``, ``runid`` and ``num_q`` included) is
reproduced to the 4 decimals trec_eval prints; the counts exactly. 10.0's files with
comments (``prefs.comment.test``, ``qrels.comments.123``) give the same output.
"""

from __future__ import annotations

import os
from pathlib import Path

import pandas as pd
import pytest

import pdireval
from pdireval.preferences import trec_table


def _data_dir() -> Path | None:
    candidates = []
    if os.environ.get("PDIREVAL_TREC_TESTDATA"):
        candidates.append(Path(os.environ["PDIREVAL_TREC_TESTDATA"]))
    candidates.append(Path(__file__).resolve().parents[3] / "shared" / "trec_eval_testdata")
    for candidate in candidates:
        if (candidate / "qrels.test").is_file():
            return candidate
    return None


DATA = _data_dir()
pytestmark = pytest.mark.skipif(
    DATA is None,
    reason="optional trec_eval test data not found; it enables the checks against trec_eval's "
    "own expected outputs (trec_eval's test/ folder: set $PDIREVAL_TREC_TESTDATA, or put "
    "it at ../shared/trec_eval_testdata next to the clone)",
)

TOLERANCE = 5e-5 + 1e-9  # trec_eval prints %6.4f
VERSIONS = {"10.0": "", "9.0.8": "v9.0.8/"}


def _expected(path: Path) -> dict[tuple[str, str], str]:
    out = {}
    for line in path.read_text().splitlines():
        if line.strip():
            measure, query, value = line.split()
            out[measure, query] = value
    return out


def _run(name: str) -> tuple[pd.DataFrame, str]:
    run = pdireval.read_run(DATA / name)
    return run.drop(columns="run"), str(run["run"].iloc[-1])


def _printed(table, runid: str) -> dict[tuple[str, str], object]:
    got: dict[tuple[str, str], object] = {("runid", "all"): runid}
    for query, row in table.per_query.iterrows():
        for measure, value in row.items():
            got[measure, str(query)] = value
    for measure, value in table.summary.loc["all"].items():
        got[str(measure), "all"] = value
    return got


def _check(expected: dict[tuple[str, str], str], got: dict[tuple[str, str], object]) -> None:
    assert set(got) == set(expected)
    wrong = []
    for key, text in expected.items():
        value = got[key]
        if key[0] == "runid":
            ok = value == text
        elif key[0] in (
            "num_q",
            "prefs_num_prefs_poss",
            "prefs_num_prefs_ful",
            "prefs_num_prefs_ful_ret",
        ):
            ok = float(value) == float(text)  # type: ignore[arg-type]
        else:
            ok = abs(float(value) - float(text)) <= TOLERANCE  # type: ignore[arg-type]
        if not ok:
            wrong.append((key, text, value))
    assert not wrong, wrong[:10]


@pytest.mark.parametrize("version", list(VERSIONS))
def test_prefs(version: str) -> None:
    run, runid = _run("prefs.results.test")
    prefs = pdireval.read_prefs(DATA / "prefs.test")
    table = trec_table(run, prefs, "all_prefs", version=version)
    _check(_expected(DATA / VERSIONS[version] / "out.test.prefs"), _printed(table, runid))


@pytest.mark.parametrize("version", list(VERSIONS))
def test_qrels_prefs(version: str) -> None:
    run, runid = _run("results.test")
    qrels = pdireval.read_qrels(DATA / "qrels.test")
    table = trec_table(run, qrels, "all_prefs", rel_format="qrels_prefs", version=version)
    _check(_expected(DATA / VERSIONS[version] / "out.test.qrels_prefs"), _printed(table, runid))


@pytest.mark.parametrize("version", list(VERSIONS))
def test_qrels_jg(version: str) -> None:
    run, runid = _run("results.test")
    qrels_jg = pdireval.read_qrels_jg(DATA / "qrels.123")
    table = trec_table(run, qrels_jg, "qrels_jg", rel_format="qrels_jg", version=version)
    _check(_expected(DATA / VERSIONS[version] / "out.test.qrels_jg"), _printed(table, runid))


def test_files_with_comments_give_the_same_output() -> None:
    """10.0's copies with '#' comment lines (and a '#' inside a document id, which is
    data) print what the plain files print.
    """
    if not (DATA / "prefs.comment.test").is_file():
        pytest.skip("this copy of the test data has no comment files (trec_eval 10.0's)")
    run, runid = _run("prefs.results.test")
    prefs = pdireval.read_prefs(DATA / "prefs.comment.test")
    assert "CR93E-10505#37" in set(prefs["doc"])
    table = trec_table(run, prefs, "all_prefs", version="10.0")
    _check(_expected(DATA / "out.test.prefs"), _printed(table, runid))
    run, runid = _run("results.test")
    qrels_jg = pdireval.read_qrels_jg(DATA / "qrels.comments.123")
    table = trec_table(run, qrels_jg, "qrels_jg", rel_format="qrels_jg", version="10.0")
    _check(_expected(DATA / "out.test.qrels_jg"), _printed(table, runid))


def test_the_evaluating_functions_give_the_printed_values() -> None:
    """evaluate_prefs (queries="retrieved", plain trec_eval) and prefs_summary give the
    numbers of the per-query lines and of the all line.
    """
    run, _ = _run("prefs.results.test")
    prefs = pdireval.read_prefs(DATA / "prefs.test")
    values = pdireval.evaluate_prefs(run, prefs, queries="retrieved")
    expected = _expected(DATA / "out.test.prefs")
    for (measure, query), text in expected.items():
        if query == "all" and measure in values.columns:
            assert abs(pdireval.prefs_summary(values)[measure] - float(text)) <= TOLERANCE
        elif query != "all":
            assert abs(values.at[query, measure] - float(text)) <= TOLERANCE
