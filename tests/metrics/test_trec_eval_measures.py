"""trec_eval's yaap and utility.a,b,c,d (9.0.8 and 10.0), and 10.0's rbp, rbp_resid, unj,
dcg and ideal_dcg: the library against the programs themselves, per query and mean, to
the digit they print.

The programs are built by the fixtures ``trec_eval`` and ``trec_eval_10``
(``tests/trec_eval_program.py``; skipped without their source). The files are the
adversarial generator's (ties, unjudged and unretrieved documents, queries without a
relevant document, negative labels) with labels above 9 and labels below -1 added; the
library evaluates them with ``pdireval.evaluate(run, metrics, qrels=qrels,
queries="retrieved")``, each trec_eval name read as its family declares it
(``Family.trec_eval``). Then values counted by hand on small rankings.
"""

from __future__ import annotations

import math
import subprocess
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from adversarial import adversarial_case

import pdireval
from pdireval.metrics import REGISTRY
from pdireval.metrics._base import TrecMeasure


@pytest.fixture
def yaap() -> None:
    """YAAP is a family of its own module, registered when pdireval.metrics imports it."""
    assert "YAAP" in REGISTRY, "pdireval/metrics/__init__.py must import pdireval.metrics.yaap"


# --------------------------------------------------------------------------- the files


def _case(seed: int) -> tuple[pd.DataFrame, pd.DataFrame]:
    """The adversarial run and qrels of ``seed``, with labels above 9 in a quarter of the
    queries and labels of -3 for some -1s; the qrels keep only queries the run retrieved
    (trec_eval 10.0 stops, without -c, at a judged query without results).
    """
    run, qrels = adversarial_case(seed)
    rng = np.random.default_rng(1000 + seed)
    queries = qrels["query"].unique()
    high = set(rng.choice(queries, size=len(queries) // 4, replace=False))
    raised = qrels["query"].isin(high) & (qrels["rel"] > 0)
    qrels.loc[raised, "rel"] = qrels.loc[raised, "rel"].map({1: 10, 2: 12, 3: 17})
    lowered = (qrels["rel"] == -1) & (rng.random(len(qrels)) < 0.4)
    qrels.loc[lowered, "rel"] = -3
    qrels = qrels[qrels["query"].isin(run["query"])].reset_index(drop=True)
    return run, qrels


def _write(directory: Path, run: pd.DataFrame, qrels: pd.DataFrame) -> tuple[Path, Path]:
    run_lines = [
        f"{query} Q0 {doc} {rank} {score:g} tag\n"
        for rank, (query, doc, score) in enumerate(
            run[["query", "doc", "score"]].itertuples(index=False), start=1
        )
    ]
    qrels_lines = [f"{query} 0 {doc} {rel}\n" for query, doc, rel in qrels.itertuples(index=False)]
    (directory / "run").write_text("".join(run_lines))
    (directory / "qrels").write_text("".join(qrels_lines))
    return directory / "qrels", directory / "run"


def _program(binary: Path, arguments: list[str], qrels: Path, run: Path) -> dict:
    """``{(printed name, query): printed value}`` of ``trec_eval -q arguments``."""
    done = subprocess.run(
        [str(binary), "-q", *arguments, str(qrels), str(run)],
        capture_output=True,
        text=True,
        check=True,
    )
    lines = [line.split() for line in done.stdout.splitlines()]
    return {(name, query): value for name, query, value in lines}


def _all_negative(qrels: pd.DataFrame) -> set[str]:
    """Queries whose judgments are all negative: trec_eval reads a level count of the
    query before for them (its ideal DCG is the previous query's)."""
    best = qrels.groupby("query")["rel"].max()
    return set(best[best < 0].index)


def _compare(expected: dict, ours: pd.DataFrame, names: dict[str, str], skip=()) -> int:
    """Check every per-query line and the mean over queries (summed in trec_eval's query
    order) of each printed name; returns how many lines were compared."""
    compared = 0
    for name, label in names.items():
        queries = sorted(query for printed, query in expected if printed == name)
        queries.remove("all")
        assert sorted(ours.index) == queries, name
        total = 0.0
        for query in queries:
            value = float(ours.loc[query, label])
            total += value
            if query in skip:
                continue
            assert f"{value:.4f}" == expected[name, query], (name, query, value)
            compared += 1
        if not skip:
            assert f"{total / len(queries):.4f}" == expected[name, "all"], name
            compared += 1
    return compared


def _trec(name: str) -> TrecMeasure:
    return next(m for family in REGISTRY.values() for m in family.trec_eval if m.name == name)


# --------------------------------------------------------------------------- the declarations


@pytest.mark.usefixtures("yaap")
def test_the_families_declare_the_trec_eval_names() -> None:
    """What the command line reads: the trec_eval name, the pdireval metric, the kind of
    parameters it takes and whether -l applies."""
    spelled = {
        name: (_trec(name).spelled, _trec(name).parameter, _trec(name).leveled)
        for name in ("rbp", "rbp_resid", "unj", "yaap", "dcg", "ideal_dcg", "utility")
    }
    assert spelled == {
        "rbp": ("RBP(p=0.9, gain='linear')", "pairs", False),
        "rbp_resid": ("RBPResidual(p=0.9, zero_when_judged=True)", "pairs", False),
        "unj": ("Unjudged@{}", "cutoffs", False),
        "yaap": ("YAAP", "none", True),
        "dcg": ("DCG", "pairs", False),
        "ideal_dcg": ("IDCG", "pairs", False),
        "utility": ("Utility(a={}, b={}, c={}, d={})", "values", True),
    }
    assert [_trec("unj").key(k) for k in _trec("unj").defaults] == ["unj_5", "unj_10", "unj_20"]
    utility = _trec("utility")
    assert pdireval.parse_metric(utility.metric_name()).label == "Utility"
    assert utility.metric_name((2.0, -1.0, 0.5, 0.0)) == "Utility(a=2.0, b=-1.0, c=0.5, d=0.0)"
    assert utility.key((2.0, -1.0, 0.5, 0.0)) == "utility"  # printed as typed: utility_2,-1,...


# --------------------------------------------------------------------------- trec_eval 10.0

#: trec_eval 10.0 arguments -> {printed name: pdireval metric}. rbp runs alone: its gain
#: minimum and maximum start from uninitialised variables, which hold 0 then but what an
#: earlier measure left otherwise (the ideal DCG after dcg, ideal_dcg or ndcg; some value
#: of yaap's after yaap). dcg and ideal_dcg with gains run each alone: they share one
#: parameter table, which trec_eval frees twice.
RUNS_10 = [
    (["-m", "rbp"], {"rbp": "RBP(p=0.9, gain='linear')"}),
    (
        ["-m", "rbp_resid", "-m", "unj", "-m", "yaap"],
        {
            "rbp_resid": "RBPResidual(p=0.9, zero_when_judged=True)",
            "unj_5": "Unjudged@5",
            "unj_10": "Unjudged@10",
            "unj_20": "Unjudged@20",
            "yaap": "YAAP",
        },
    ),
    (["-m", "rbp.p=0.8,1=-2,3=7"], {"rbp_p=0.8,1=-2,3=7": "RBP(p=0.8, gain={1: -2, 3: 7})"}),
    (
        ["-m", "rbp_resid.p=0.5", "-m", "unj.1,3,7,50"],
        {
            "rbp_resid_p=0.5": "RBPResidual(p=0.5, zero_when_judged=True)",
            "unj_1": "Unjudged@1",
            "unj_3": "Unjudged@3",
            "unj_7": "Unjudged@7",
            "unj_50": "Unjudged@50",
        },
    ),
    (["-m", "rbp.0=0.25,2=0.5"], {"rbp_0=0.25,2=0.5": "RBP(p=0.9, gain={0: 0.25, 2: 0.5})"}),
    (["-m", "rbp.p=0.95,12=1"], {"rbp_p=0.95,12=1": "RBP(p=0.95, gain={12: 1})"}),
    (["-m", "dcg", "-m", "ideal_dcg"], {"dcg": "DCG", "ideal_dcg": "IDCG"}),
    (["-m", "dcg.1=3,2=9,4=4"], {"dcg_1=3,2=9,4=4": "DCG(gain={1: 3, 2: 9, 4: 4})"}),
    (
        ["-m", "ideal_dcg.1=3,2=9,10=30"],
        {"ideal_dcg_1=3,2=9,10=30": "IDCG(gain={1: 3, 2: 9, 10: 30})"},
    ),
]

#: Both versions: yaap at -l 2, and utility with trec_eval's four parameters and -N.
RUNS_BOTH = [
    (["-m", "yaap", "-m", "utility"], {"yaap": "YAAP", "utility": "Utility"}),
    (["-l", "2", "-m", "yaap"], {"yaap": "YAAP(rel=2)"}),
    (
        ["-m", "utility.2,-1.5,-0.5,0.25", "-N", "300"],
        {"utility_2,-1.5,-0.5,0.25": "Utility(a=2, b=-1.5, c=-0.5, d=0.25, n_docs=300)"},
    ),
    (  # without -N, trec_eval's collection size is 0
        ["-m", "utility.-1,0,-3,0.5"],
        {"utility_-1,0,-3,0.5": "Utility(a=-1, b=0, c=-3, d=0.5, n_docs=0)"},
    ),
]


@pytest.mark.usefixtures("yaap")
@pytest.mark.parametrize("seed", range(6))
def test_trec_eval_10_measures_per_query_and_mean(trec_eval_10, tmp_path, seed) -> None:
    run, qrels = _case(seed)
    qrels_path, run_path = _write(tmp_path, run, qrels)
    stale = _all_negative(qrels)
    compared = 0
    for arguments, names in RUNS_10:
        expected = _program(trec_eval_10, arguments, qrels_path, run_path)
        ours = pdireval.evaluate(run, list(names.values()), qrels=qrels, queries="retrieved")
        for name, metric in names.items():
            label = pdireval.parse_metric(metric).label
            skip = stale if name.startswith("ideal_dcg") else ()
            compared += _compare(expected, ours, {name: label}, skip)
    assert compared > 400


@pytest.mark.usefixtures("yaap")
@pytest.mark.parametrize("version", ["9.0.8", "10.0"])
@pytest.mark.parametrize("seed", range(4))
def test_yaap_and_utility_in_both_versions(request, tmp_path, version, seed) -> None:
    binary = request.getfixturevalue("trec_eval" if version == "9.0.8" else "trec_eval_10")
    run, qrels = _case(seed)
    qrels_path, run_path = _write(tmp_path, run, qrels)
    for arguments, names in RUNS_BOTH:
        expected = _program(binary, arguments, qrels_path, run_path)
        ours = pdireval.evaluate(run, list(names.values()), qrels=qrels, queries="retrieved")
        labels = {name: pdireval.parse_metric(metric).label for name, metric in names.items()}
        assert _compare(expected, ours, labels) > 20


def test_a_topic_whose_judgments_are_all_negative(trec_eval_10, tmp_path) -> None:
    """trec_eval reads such a topic's gain levels from the topic before (a buffer it does
    not reset): its ideal_dcg is the previous topic's, where the library's is 0; rbp,
    dcg and ndcg are 0 in both, every retrieved document having gain 0."""
    run = pd.DataFrame(
        {"query": ["1", "1", "2", "2"], "doc": ["a", "b", "c", "x"], "score": [3.0, 2, 3, 2]}
    )
    qrels = pd.DataFrame({"query": ["1", "1", "2"], "doc": ["a", "b", "c"], "rel": [3, 1, -1]})
    qrels_path, run_path = _write(tmp_path, run, qrels)
    expected = _program(trec_eval_10, ["-m", "ideal_dcg", "-m", "dcg"], qrels_path, run_path)
    assert expected["ideal_dcg", "2"] == expected["ideal_dcg", "1"] != "0.0000"
    ours = pdireval.evaluate(run, ["IDCG", "DCG", "RBP(p=0.9, gain='linear')"], qrels=qrels)
    assert ours.loc["2"].tolist() == [0.0, 0.0, 0.0]
    assert expected["dcg", "2"] == "0.0000"
    rbp = _program(trec_eval_10, ["-m", "rbp"], qrels_path, run_path)
    assert rbp["rbp", "2"] == "0.0000"
    assert f"{ours.loc['1', 'DCG']:.4f}" == expected["dcg", "1"]


@pytest.mark.usefixtures("yaap")
def test_a_judged_topic_on_trec_eval_10s_one_document_ranking(trec_eval_10, tmp_path) -> None:
    """Under -c trec_eval 10.0 evaluates a judged topic without results on a ranking of one
    document in no qrels; the library gives that ranking the program's values (the
    command line then sets rbp_resid, unj_* and an unparameterised utility back to 0)."""
    run = pd.DataFrame({"query": ["1", "1"], "doc": ["a", "u"], "score": [2.0, 1.0]})
    qrels = pd.DataFrame(
        {
            "query": ["1", "1", "2", "2", "2"],
            "doc": ["a", "b", "c", "d", "e"],
            "rel": [1, 0, 2, 1, 0],
        }
    )
    qrels_path, run_path = _write(tmp_path, run, qrels)
    arguments = ["-c", "-m", "yaap", "-m", "dcg", "-m", "ideal_dcg", "-m", "rbp_resid.p=0.5"]
    expected = _program(trec_eval_10, [*arguments, "-m", "unj"], qrels_path, run_path)
    expected |= _program(trec_eval_10, ["-c", "-m", "utility.2,-1,1.5,0"], qrels_path, run_path)
    expected |= _program(trec_eval_10, ["-c", "-m", "rbp"], qrels_path, run_path)
    bogus = pd.concat(
        [run, pd.DataFrame({"query": ["2"], "doc": ["ceci_nest_pas_un_docno"], "score": [1.0]})]
    )
    names = {
        "yaap": "YAAP",
        "ideal_dcg": "IDCG",
        "rbp_resid_p=0.5": "RBPResidual(p=0.5, zero_when_judged=True)",
        "utility_2,-1,1.5,0": "Utility(a=2, b=-1, c=1.5, d=0)",
        "rbp": "RBP(p=0.9, gain='linear')",
        "dcg": "DCG",
    }
    ours = pdireval.evaluate(bogus, list(names.values()), qrels=qrels)
    for name, metric in names.items():
        label = pdireval.parse_metric(metric).label
        assert f"{ours.loc['2', label]:.4f}" == expected[name, "2"], name
    assert expected["yaap", "2"] == f"{math.log(1 / 3):.4f}"
    assert expected["rbp_resid_p=0.5", "2"] == "1.0000"
    assert expected["utility_2,-1,1.5,0", "2"] == "2.0000"  # b * 1 + c * R, R = 2
    assert expected["unj_5", "2"] == "0.0000"  # set back to 0 by trec_eval


def test_only_the_interpolated_measures_differ_between_the_versions(
    trec_eval, trec_eval_10, tmp_path
) -> None:
    """The two programs print the same lines for every measure both have, parameters
    included, but iprec_at_recall and 11pt_avg (10.0 rounds p * R with lround)."""
    run, qrels = _case(7)
    qrels_path, run_path = _write(tmp_path, run, qrels)
    arguments = [
        "-m", "all_trec", "-m", "yaap", "-m", "utility.2,-1,0.5,0.25", "-N", "90",
        "-m", "ndcg.1=3,2=9", "-m", "set_F.0.5", "-m", "Rprec_mult.0.3,1.7",
    ]  # fmt: skip
    old = _program(trec_eval, arguments, qrels_path, run_path)
    new = _program(trec_eval_10, arguments, qrels_path, run_path)
    only_new = {name for name, _ in set(new) - set(old)}
    assert only_new == {"rbp", "rbp_resid", "unj_5", "unj_10", "unj_20"}
    differ = {name for (name, query), value in old.items() if new[name, query] != value}
    assert differ  # this case has recall cutoffs p * R whose fraction lies in [0.1, 0.5)
    assert {name.split("_")[0] for name in differ} <= {"iprec", "11pt"}


# --------------------------------------------------------------------------- by hand


def _ranking(labels: list[float | None], unretrieved: list[int] = ()) -> pd.DataFrame:
    """One query: the labels in rank order (None = unjudged), then unretrieved judged docs."""
    rows = [(f"d{i}", i, label) for i, label in enumerate(labels, start=1)]
    rows += [(f"u{i}", None, label) for i, label in enumerate(unretrieved)]
    frame = pd.DataFrame(rows, columns=["doc", "rank", "rel"]).assign(query="q")
    return frame.astype({"rank": "Float64", "rel": "Float64"})


def _value(frame: pd.DataFrame, metric: str) -> float:
    return float(pdireval.evaluate(frame, metric).iloc[0, 0])


#: labels 2, 0, unjudged, 1 retrieved; a 3 not retrieved: levels 0..3
GRADED = _ranking([2, 0, None, 1], unretrieved=[3])


def test_graded_rbp_rescales_the_gain_table_by_hand() -> None:
    # gains 0..3 lie above 1: divided by max - min = 3 (min starts at 0)
    assert _value(GRADED, "RBP(p=0.5, gain='linear')") == pytest.approx(0.5 * (2 / 3 + 0.125 / 3))
    # a gain below 0 moves the others up, (g + 1) / 4: level 2 to 0.75, level 0 to 0.25
    # and level 1 (-1) to 0; the unjudged document stays at 0
    assert _value(GRADED, "RBP(p=0.5, gain={1: -1})") == pytest.approx(0.5 * (0.75 + 0.25 * 0.5))
    # gains inside [0, 1] are not rescaled
    assert _value(GRADED, "RBP(p=0.5, gain={1: 0.5, 2: 1, 3: 0})") == pytest.approx(
        0.5 * (1 + 0.5 * 0.125)
    )
    # a listed level no document has still widens the table
    assert _value(GRADED, "RBP(p=0.5, gain={9: 6})") == pytest.approx(0.5 * (2 / 6 + 0.125 / 6))
    # 'exp': 2**label - 1 = 0, 1, 3, 7, divided by 7; rel=2 zeroes level 1
    assert _value(GRADED, "RBP(p=0.5, gain='exp')") == pytest.approx(0.5 * (3 / 7 + 0.125 / 7))
    assert _value(GRADED, "RBP(p=0.5, gain='exp', rel=2)") == pytest.approx(0.5 * 3 / 7)
    # binary, the default, is unchanged: relevant at ranks 1 and 4
    assert _value(GRADED, "RBP(p=0.5)") == pytest.approx(0.5 * (1 + 0.125))
    assert pdireval.parse_metric("RBP(gain={})").label == "RBP(gain='linear')"


def test_rbp_gains_are_checked() -> None:
    for bad in ("gain={-1: 1}", "gain={1: float('nan')}", "gain='log'", "gain={1.5: 2}"):
        with pytest.raises(pdireval.MetricError, match="gain"):
            pdireval.parse_metric(f"RBP({bad})")


def test_rbp_residual_zero_when_judged_by_hand() -> None:
    p = 0.5
    # unjudged rank 3 of 4: p^4 + (1 - p) p^2, with or without zero_when_judged
    both = [_value(GRADED, f"RBPResidual(p={p}{flag})") for flag in ("", ", zero_when_judged=True")]
    assert both == pytest.approx([p**4 + (1 - p) * p**2] * 2)
    judged = _ranking([2, 0, 1])
    assert _value(judged, "RBPResidual(p=0.5)") == pytest.approx(p**3)
    assert _value(judged, "RBPResidual(p=0.5, zero_when_judged=True)") == 0.0
    # a negative label is unjudged too; with @2 only the top 2 count
    negative = _ranking([1, 0, -1])
    assert _value(negative, "RBPResidual(p=0.5, zero_when_judged=True)") == pytest.approx(
        p**3 + (1 - p) * p**2
    )
    assert _value(negative, "RBPResidual(p=0.5, zero_when_judged=True)@2") == 0.0


def test_unjudged_by_hand() -> None:
    """Unjudged at 3 of 4 retrieved, divided by k even past the ranking's end."""
    assert _value(GRADED, "Unjudged@2") == 0.0
    assert _value(GRADED, "Unjudged@3") == pytest.approx(1 / 3)
    assert _value(GRADED, "Unjudged@5") == pytest.approx(1 / 5)
    assert _value(GRADED, "Judged(negative='unjudged')@5") == pytest.approx(3 / 4)  # not 4 / 5
    assert _value(GRADED, "Unjudged") == pytest.approx(1 / 4)
    assert _value(_ranking([None, -2, 1]), "unj_5") == pytest.approx(2 / 5)


@pytest.mark.usefixtures("yaap")
def test_yaap_by_hand() -> None:
    """Relevant at ranks 1 and 4 of GRADED, R = 3: S = 1 + 2/4."""
    assert _value(GRADED, "YAAP") == pytest.approx(math.log((1 + 1.5) / (1 + 3 - 1.5)))
    assert _value(GRADED, "yaap") == _value(GRADED, "YAAP")
    # rel=2: relevant at rank 1 only, R = 2: S = 1, so S = R / 2 and YAAP = 0
    assert _value(GRADED, "YAAP(rel=2)") == 0.0
    assert _value(_ranking([0, None], unretrieved=[1]), "YAAP") == pytest.approx(math.log(1 / 2))
    assert _value(_ranking([0, None]), "YAAP") == 0.0


def test_utility_with_trec_evals_collection_size_by_hand() -> None:
    """A = 2 (ranks 1 and 4), B = 2, C = 1 (the unretrieved 3); D = N - A - B - C."""
    assert _value(GRADED, "Utility(a=2, b=-1, c=-0.5, d=0.25, n_docs=20)") == pytest.approx(
        4 - 2 - 0.5 + 0.25 * 15
    )
    # trec_eval's default -N is 0: D = -(A + B + C)
    assert _value(GRADED, "Utility(d=0.5, n_docs=0)") == pytest.approx(2 - 2 - 0.5 * 5)
    with pytest.raises(pdireval.MetricError, match="n_docs"):
        pdireval.parse_metric("Utility(d=1)")
