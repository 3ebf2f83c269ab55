"""trec_eval's own test data: pdireval reproduces the expected outputs of 9.0.8 and 10.0.

The data (qrels, runs and the ``out.*`` files trec_eval printed) lives outside the
project, in ``../shared/trec_eval_testdata`` next to the clone, or where the
environment variable ``PDIREVAL_TREC_TESTDATA`` points; the tests skip when it is
absent. The files are read with pandas here (no reader of pdireval's is used):
qrels ``qid iter docno rel``, runs ``qid Q0 docno rank score tag [junk...]``. As
trec_eval does, the ranking comes from the score (descending, ties by docno
descending) and the file's rank field is dropped. The 9.0.8 cases round the scores
through float32 (pytrec_eval's reading); both trec_eval programs read doubles, and the
files' scores give the same rankings either way.

Which command produced each expected file is in the data's README (Makefile
``quicktest``): ``-q`` prints per-query lines, ``-c`` evaluates every qrels topic
(``queries="judged"``; otherwise ``queries="retrieved"``), ``-l2`` sets ``rel=2``,
``-M100`` keeps the top 100 of each ranking. trec_eval prints 4 decimals, so
values are compared to 5e-5. The ``all`` lines are means over the evaluated
queries, except ``num_ret``/``num_rel``/``num_rel_ret`` (sums) and
``gm_map``/``gm_bpref`` (geometric means with trec_eval's 1e-5 floor).

The measures compared here are the library's; every line of every file, with the
other measures, z-scores and the preference and judgment-group files, is compared
through the command line in ``tests/cli/test_trec_eval_versions.py``.
``out.test.qrels_jg`` (judgment groups) is reproduced here by averaging pdireval's
values over the judges of qrels.123.
"""

from __future__ import annotations

import io
import math
import os
import re
from dataclasses import dataclass
from functools import cache
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import pdireval


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
    "own expected outputs (trec_eval 9.0.8's test/ folder: set $PDIREVAL_TREC_TESTDATA, or put "
    "it at ../shared/trec_eval_testdata next to the clone)",
)

TOLERANCE = 5e-5 + 1e-9  # trec_eval prints %6.4f
SUMMED = {"num_ret", "num_rel", "num_rel_ret"}
GEOMETRIC = {"gm_map": "map", "gm_bpref": "bpref"}


# --------------------------------------------------------------------------- reading the files


def _lines(path: Path) -> list[list[str]]:
    """Whitespace-split fields of each line; blank lines and '#' comment lines skipped."""
    out = []
    for line in path.read_text().splitlines():
        stripped = line.strip()
        if stripped and not stripped.startswith("#"):
            out.append(stripped.split())
    return out


@cache
def read_qrels(name: str) -> pd.DataFrame:
    frame = pd.read_csv(
        io.StringIO("\n".join(" ".join(fields[:4]) for fields in _lines(DATA / name))),
        sep=" ",
        header=None,
        names=["query", "iteration", "doc", "rel"],
        dtype={"query": str, "iteration": str, "doc": str, "rel": np.int64},
    )
    return frame[["query", "doc", "rel"]]


@cache
def read_run(name: str, float32: bool) -> pd.DataFrame:
    """A TREC run (first six fields; trailing junk ignored), score-ranked like trec_eval."""
    rows = [fields[:6] for fields in _lines(DATA / name)]
    frame = pd.DataFrame(rows, columns=["query", "q0", "doc", "rank", "score", "tag"])
    score = pd.to_numeric(frame["score"]).to_numpy(dtype=np.float64)
    if float32:  # as pytrec_eval (trec_eval 9.0.8 inside) passes them: float
        score = score.astype(np.float32).astype(np.float64)
    return pd.DataFrame({"query": frame["query"], "doc": frame["doc"], "score": score})


def read_expected(path: Path) -> dict[str, dict[str, float]]:
    """``{measure: {qid or 'all': value}}`` from a trec_eval output (text values skipped)."""
    out: dict[str, dict[str, float]] = {}
    for measure, query, value in _lines(path):
        try:
            out.setdefault(measure, {})[query] = float(value)
        except ValueError:  # runid, relstring
            continue
    return out


def top_k(run: pd.DataFrame, k: int) -> pd.DataFrame:
    """trec_eval -M k: keep the first k documents of each ranking (score desc, docno desc)."""
    ordered = run.sort_values(["query", "score", "doc"], ascending=[True, False, False])
    return ordered.groupby("query", sort=False).head(k)


# --------------------------------------------------------------------------- measure names


def pdireval_name(measure: str, rel: int) -> str | None:
    """pdireval metric for a trec_eval measure name, or None when pdireval has none."""
    level = "" if rel == 1 else f"(rel={rel})"
    fixed = {
        "map": f"AP{level}",
        "Rprec": f"Rprec{level}",
        "Rprec_mult_1.00": f"Rprec{level}",
        "bpref": f"Bpref{level}",
        "recip_rank": f"RR{level}",
        "num_rel": f"NumRel{level}",
        "num_ret": "NumRet",
        "num_rel_ret": f"NumRelRet{level}",
        "ndcg": "nDCG",  # trec_eval's ndcg ignores -l: every positive label is a gain
    }
    if measure in fixed:
        return fixed[measure]
    if measure in GEOMETRIC:
        return pdireval_name(GEOMETRIC[measure], rel)
    cutoff = re.fullmatch(r"(P|recall|map_cut|ndcg_cut|success)_(\d+)", measure)
    if cutoff:
        family = {
            "P": f"P{level}",
            "recall": f"R{level}",
            "map_cut": f"AP{level}",
            "ndcg_cut": "nDCG",
            "success": f"Success{level}",
        }[cutoff[1]]
        return f"{family}@{cutoff[2]}"
    gains = re.fullmatch(r"ndcg_((?:\d+=[\d.]+,?)+)", measure)  # -mndcg.1=3,2=9,4=4.5
    if gains:
        table = {
            int(label): float(gain)
            for label, gain in (pair.split("=") for pair in gains[1].split(","))
        }
        return f"nDCG(gain={table!r})"
    return None


# --------------------------------------------------------------------------- the cases


@dataclass(frozen=True)
class Case:
    expected: str  # output file, relative to the data folder
    qrels: str
    run: str
    covered: frozenset[str]  # trec_eval measures this case must compare
    rel: int = 1
    queries: str = "retrieved"
    max_rank: int | None = None
    per_query: bool = True

    @property
    def float32(self) -> bool:
        return self.expected.startswith("v9.0.8/")

    @property
    def id(self) -> str:
        return self.expected + (
            ""
            if self.qrels in ("qrels.test", "qrels.rel_level", "qrels.comment.test")
            else f"+{self.qrels}"
        )


CUTS = (5, 10, 15, 20, 30, 100, 200, 500, 1000)
OFFICIAL = frozenset(
    {"num_ret", "num_rel", "num_rel_ret", "map", "gm_map", "Rprec", "bpref", "recip_rank"}
    | {f"P_{k}" for k in CUTS}
)
ALL_TREC = OFFICIAL | frozenset(
    {"ndcg", "gm_bpref", "Rprec_mult_1.00", "success_1", "success_5", "success_10"}
    | {f"{name}_{k}" for name in ("recall", "ndcg_cut", "map_cut") for k in CUTS}
)
MEAS_PARAMS = frozenset(
    {
        "P_3",
        "P_5",
        "P_7",
        "recall_20",
        "recall_2000",
        "ndcg_1=3,2=9,4=4.5",
        "ndcg_cut_10",
        "ndcg_cut_20",
        "ndcg_cut_23",
        "success_2",
        "success_5",
        "success_20",
    }
)


def _cases() -> list[Case]:
    cases = []
    for version in ("v9.0.8/", ""):  # trec_eval 9.0.8 (pytrec_eval: float32 scores) and 10.0
        test = dict(qrels="qrels.test", run="results.test")
        cases += [
            Case(version + "out.test", covered=OFFICIAL, per_query=False, **test),
            Case(version + "out.test.a", covered=ALL_TREC, per_query=False, **test),
            Case(version + "out.test.aq", covered=ALL_TREC, **test),
            Case(
                version + "out.test.aqc", "qrels.test", "results.trunc", ALL_TREC, queries="judged"
            ),
            Case(
                version + "out.test.aqcM",
                "qrels.test",
                "results.trunc",
                ALL_TREC,
                queries="judged",
                max_rank=100,
            ),
            Case(version + "out.test.aql", "qrels.rel_level", "results.test", ALL_TREC, rel=2),
            Case(version + "out.test.meas_params", covered=MEAS_PARAMS, **test),
        ]
    cases += [
        Case("out.test", "qrels.test.with-comments", "results.test", OFFICIAL, per_query=False),
        Case(
            "out.comment.test",
            "qrels.comment.test",
            "results.comment.test",
            OFFICIAL,
            per_query=False,
        ),
    ]
    return cases


CASES = _cases()


def _frame(case: Case, *, truncate: bool) -> pd.DataFrame:
    run = read_run(case.run, case.float32)
    if truncate and case.max_rank is not None:
        run = top_k(run, case.max_rank)
    return pdireval.merge_qrels(run, read_qrels(case.qrels))


def _compare(case: Case, frame: pd.DataFrame, **options) -> tuple[set[str], list[str]]:
    expected = read_expected(DATA / case.expected)
    names = {m: pdireval_name(m, case.rel) for m in expected}
    names = {m: name for m, name in names.items() if name is not None}
    metrics = list(dict.fromkeys(names.values()))
    table = pdireval.evaluate(frame, metrics, queries=case.queries, **options)
    means = pdireval.summary(frame, metrics, queries=case.queries, **options)
    gmeans = pdireval.summary(frame, metrics, agg="gmean", queries=case.queries, **options)
    label = {m: pdireval.parse_metric(name).label for m, name in names.items()}

    problems = []
    if "num_q" in expected and expected["num_q"]["all"] != len(table):
        problems.append(f"num_q: trec_eval {expected['num_q']['all']} pdireval {len(table)}")
    for measure in names:
        column = label[measure]
        for query, value in expected[measure].items():
            if query == "all":
                if measure in SUMMED:
                    got = float(table[column].sum())
                elif measure in GEOMETRIC:
                    got = float(gmeans[column])
                else:
                    got = float(means[column])
            elif query in table.index:
                got = float(table.loc[query, column])
            else:
                problems.append(f"{measure} {query}: missing from pdireval's result")
                continue
            if not (math.isfinite(got) and abs(got - value) <= TOLERANCE):
                problems.append(f"{measure} {query}: trec_eval {value} pdireval {got!r}")
    if case.per_query:
        printed = {q for values in expected.values() for q in values if q != "all"}
        if case.queries == "retrieved":
            problems += [f"extra query {q}" for q in set(map(str, table.index)) - printed]
        problems += [f"query {q} not evaluated" for q in printed - set(map(str, table.index))]
    return set(names), problems


@pytest.mark.parametrize("case", CASES, ids=[case.id for case in CASES])
def test_expected_output(case: Case) -> None:
    covered, problems = _compare(case, _frame(case, truncate=True))
    assert covered == case.covered
    assert problems == []


MAX_RANK_CASES = [case for case in CASES if case.max_rank is not None]


@pytest.mark.parametrize("case", MAX_RANK_CASES, ids=[case.id for case in MAX_RANK_CASES])
def test_max_rank_option_is_trec_eval_M(case: Case) -> None:
    covered, problems = _compare(case, _frame(case, truncate=False), max_rank=case.max_rank)
    assert covered == case.covered
    assert problems == []


def _avgjg_name(measure: str) -> str | None:
    """pdireval metric behind a ``-R qrels_jg`` measure (mean over judgment groups)."""
    if measure == "map_avgjg":
        return "AP"
    if measure == "Rprec_mult_avgjg_1.00":
        return "Rprec"
    cutoff = re.fullmatch(r"P_avgjg_(\d+)", measure)
    return f"P@{cutoff[1]}" if cutoff else None


@pytest.mark.parametrize("version", ["v9.0.8/", ""])
def test_judgment_groups_qrels_jg(version: str) -> None:
    """out.test.qrels_jg: ``-R qrels_jg`` on qrels.123, whose iteration field names a judge.

    trec_eval evaluates the run against each judge's qrels and averages per query; the
    same composition of pdireval results must reproduce it (labels 0-6 and -1 here).
    """
    expected = read_expected(DATA / version / "out.test.qrels_jg")
    names = {m: _avgjg_name(m) for m in expected}
    names = {m: name for m, name in names.items() if name is not None}
    assert set(names.values()) == {"AP", "Rprec"} | {f"P@{k}" for k in CUTS}
    qrels = pd.DataFrame(
        [fields[:4] for fields in _lines(DATA / "qrels.123")],
        columns=["query", "judge", "doc", "rel"],
    ).astype({"rel": np.int64})
    run = read_run("results.test", float32=version.startswith("v9"))
    metrics = sorted(set(names.values()))
    per_judge = [
        pdireval.evaluate(pdireval.merge_qrels(run, part[["query", "doc", "rel"]]), metrics)
        for _, part in qrels.groupby("judge")
    ]
    assert len(per_judge) == 3
    table = sum(per_judge) / len(per_judge)
    assert expected["num_q"]["all"] == len(table)
    problems = []
    for measure, metric in names.items():
        for query, value in expected[measure].items():
            got = table[metric].mean() if query == "all" else table.loc[query, metric]
            if not abs(got - value) <= TOLERANCE:
                problems.append(f"{measure} {query}: trec_eval {value} pdireval {got!r}")
    assert problems == []


def test_parsed_inputs_look_like_the_files() -> None:
    """Guard the readers: counts read off the files with awk/wc."""
    qrels = read_qrels("qrels.test")
    assert len(qrels) == 3681
    assert qrels.groupby("query")["rel"].sum().to_dict() == {"301": 474, "302": 77, "303": 10}
    with_comments = read_qrels("qrels.test.with-comments")
    assert len(with_comments) == len(qrels)
    assert "CR#93E-1860" in set(with_comments["doc"])  # '#' inside a docno is no comment
    trunc = read_run("results.trunc", float32=False)
    assert trunc.groupby("query").size().to_dict() == {"301": 500, "303": 84}
    assert read_qrels("qrels.rel_level")["rel"].min() == -1
