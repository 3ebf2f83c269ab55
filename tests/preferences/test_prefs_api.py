"""The public functions of preference and judgment-group evaluation: hand-computed values,
the query sets, runs, rankings, summaries, trec_eval's two versions, and the readers.
"""

from __future__ import annotations

import io

import numpy as np
import pandas as pd
import pytest

import pdireval
from pdireval.preferences import trec_table

#: Two users disagree on a and b; the run ranks b, a, then an unjudged x; c is not
#: retrieved. trec_eval numbers b 0, a 1, c 2.
PREFS = pd.DataFrame(
    {
        "query": "q1",
        "group": ["u1", "u1", "u1", "u2", "u2"],
        "subgroup": "s",
        "doc": ["a", "b", "c", "b", "a"],
        "rel": [2.0, 1.0, 0.0, 1.0, 0.0],
    }
)
RUN = pd.DataFrame({"query": "q1", "doc": ["b", "a", "x"], "score": [3.0, 2.0, 1.0]})
#: Worked out by hand (and printed by trec_eval 9.0.8 for the same files):
#: u1 prefers a>b (both retrieved, not fulfilled), a>c and b>c (fulfilled by
#: implication); u2 prefers b>a (fulfilled). The pair {a, b} scores 1/2.
HAND = {
    "prefs_num_prefs_poss": 4.0,
    "prefs_num_prefs_ful": 3.0,
    "prefs_num_prefs_ful_ret": 1.0,
    "prefs_simp": 3 / 4,
    "prefs_pair": (0.5 + 1 + 1) / 3,
    "prefs_avgjg": (2 / 3 + 1) / 2,
    "prefs_avgjg_Rnonrel": (4 / 5 + 1) / 2,
    "prefs_simp_ret": 1 / 2,
    "prefs_pair_ret": 0.5,
    "prefs_avgjg_ret": (0 + 1) / 2,
    "prefs_avgjg_Rnonrel_ret": (4 / 5 + 1) / 2,
    "prefs_simp_imp": 3 / 4,
    "prefs_pair_imp": 2.5 / 3,
    "prefs_avgjg_imp": (2 / 3 + 1) / 2,
}


def test_hand_computed_values() -> None:
    values = pdireval.evaluate_prefs(RUN, PREFS)
    assert list(values.columns) == list(HAND)
    assert values.columns.name == "metric"
    assert values.index.name == "query"
    for measure, expected in HAND.items():
        assert values.at["q1", measure] == pytest.approx(expected, abs=1e-15), measure


def test_rnonrel_keeps_r_of_the_lowest_class_as_trec_eval_does() -> None:
    """One relevant document a and three non-relevant ones: the first of them in the
    run's numbering (c) is kept, and every line of the group meets it -- the
    non-relevant ones too: 1 fulfilled of 4 (trec_eval prints 0.2500, and 0.3333
    among the retrieved).
    """
    prefs = pd.DataFrame(
        {
            "query": "q1",
            "group": "u",
            "subgroup": "s",
            "doc": list("abcd"),
            "rel": [1.0, 0.0, 0.0, 0.0],
        }
    )
    run = pd.DataFrame({"query": "q1", "doc": ["a", "c", "b"], "score": [3.0, 2.0, 1.0]})
    values = pdireval.evaluate_prefs(run, prefs, ["prefs_avgjg_Rnonrel", "prefs_avgjg_Rnonrel_ret"])
    assert values.loc["q1"].tolist() == [0.25, pytest.approx(1 / 3)]


def test_ties_follow_each_reader_of_trec_eval() -> None:
    """Equal scores: the preference measures put the smaller id first, the judgment-group
    measures the larger one (as every other trec_eval measure).
    """
    tied = pd.DataFrame({"query": "q1", "doc": ["a", "b"], "score": [1.0, 1.0]})
    prefs = PREFS.iloc[:2]  # a > b
    assert pdireval.evaluate_prefs(tied, prefs, "prefs_simp_ret").iat[0, 0] == 1.0
    qrels = pd.DataFrame({"query": "q1", "group": "u", "doc": ["a", "b"], "rel": [1, 0]})
    assert pdireval.evaluate_qrels_jg(tied, qrels, "map_avgjg").iat[0, 0] == 0.5


def test_query_sets() -> None:
    prefs = pd.concat([PREFS, PREFS.assign(query="q2")], ignore_index=True)
    run = pd.concat([RUN, RUN.assign(query="q3")], ignore_index=True)
    judged = pdireval.evaluate_prefs(run, prefs, ["prefs_num_prefs_poss", "prefs_simp"])
    assert judged.index.tolist() == ["q1", "q2"]
    assert judged.loc["q2"].tolist() == [4.0, 0.0]  # nothing retrieved: nothing fulfilled
    retrieved = pdireval.evaluate_prefs(run, prefs, "prefs_simp", queries="retrieved")
    assert retrieved.index.tolist() == ["q1"]
    everything = pdireval.evaluate_prefs(run, prefs, "prefs_simp", queries="all")
    assert everything.index.tolist() == ["q1", "q2", "q3"]
    assert np.isnan(everything.at["q3", "prefs_simp"])


def test_several_runs_are_evaluated_each_on_its_own() -> None:
    other = pd.DataFrame({"query": "q1", "doc": ["c", "a"], "score": [2.0, 1.0]})
    both = pd.concat([RUN.assign(system="one"), other.assign(system="two")], ignore_index=True)
    values = pdireval.evaluate_prefs(both, PREFS)
    assert values.index.names == ["system", "query"]
    pd.testing.assert_frame_equal(
        values.xs("two", level="system"), pdireval.evaluate_prefs(other, PREFS)
    )
    pd.testing.assert_frame_equal(
        values.xs("one", level="system"), pdireval.evaluate_prefs(RUN, PREFS)
    )
    summary = pdireval.prefs_summary(values)
    assert summary.index.tolist() == ["one", "two"]


def test_rank_column_and_synonyms() -> None:
    """A rank column ranks (PyTerrier's 0-based one too); ``qid``/``docno`` are found;
    rows without a score are not retrieved; the inputs are left as they were.
    """
    ranked = pd.DataFrame(
        {"qid": "q1", "docno": ["x", "a", "b"], "rank": [2, 0, 1], "score": [9.0, 1.0, 0.0]}
    )
    before = ranked.copy()
    by_rank = pdireval.evaluate_prefs(ranked, PREFS, "prefs_simp_ret")
    assert by_rank.index.name == "qid"
    assert by_rank.iat[0, 0] == 0.5  # a above b: u1 fulfilled, u2 not
    by_score = pdireval.evaluate_prefs(ranked, PREFS, "prefs_simp_ret", columns={"rank": False})
    assert by_score.iat[0, 0] == 0.5  # x, a, b by score
    pd.testing.assert_frame_equal(ranked, before)
    unretrieved = RUN.assign(score=[3.0, np.nan, 1.0])  # a not retrieved
    values = pdireval.evaluate_prefs(unretrieved, PREFS, "prefs_num_prefs_ful_ret")
    assert values.iat[0, 0] == 0.0


def test_max_rank_cuts_each_ranking() -> None:
    cut = pdireval.evaluate_prefs(RUN, PREFS, "prefs_num_prefs_ful", max_rank=1)
    assert cut.iat[0, 0] == 2.0  # b retrieved alone: b>a (u2) and b>c (u1) fulfilled
    jg = pd.DataFrame({"query": "q1", "group": "u", "doc": ["a", "b"], "rel": [1, 1]})
    assert pdireval.evaluate_qrels_jg(RUN, jg, "P_avgjg_5", max_rank=1).iat[0, 0] == 0.2


def test_judgment_groups_are_averaged() -> None:
    qrels = pd.DataFrame(
        {
            "query": "q1",
            "group": ["alice", "alice", "bob", "bob"],
            "doc": ["b", "c", "a", "x"],
            "rel": [1, 2, -1, 1],
        }
    )
    values = pdireval.evaluate_qrels_jg(
        RUN, qrels, ["map_avgjg", "P_avgjg.1,3", "Rprec_mult_avgjg_1"]
    )
    # alice: b at 1 of R=2 (c missed): AP 1/2, P@1 1, P@3 1/3, R-prec (2 docs) 1/2;
    # bob: x at 3 of R=1: AP 1/3, P@1 0, P@3 1/3, R-prec (1 doc) 0
    expected = [(1 / 2 + 1 / 3) / 2, 0.5, 1 / 3, 0.25]
    assert values.columns.tolist() == [
        "map_avgjg",
        "P_avgjg_1",
        "P_avgjg_3",
        "Rprec_mult_avgjg_1.00",
    ]
    assert values.loc["q1"].tolist() == pytest.approx(expected)
    judged_only = pdireval.evaluate_qrels_jg(RUN, qrels, "map_avgjg", judged_only=True)
    # -J: alice ranks b only (AP 1/2); bob ranks a (unjudged, -1: left out), x: AP 1
    assert judged_only.iat[0, 0] == pytest.approx((1 / 2 + 1) / 2)
    lenient = pdireval.evaluate_qrels_jg(RUN, qrels, "P_avgjg_3", rel_threshold=2)
    assert lenient.iat[0, 0] == pytest.approx((0 + 0) / 2)


def test_summary() -> None:
    prefs = pd.concat([PREFS, PREFS.assign(query="q2")], ignore_index=True)
    values = pdireval.evaluate_prefs(RUN, prefs, ["prefs_num_prefs_poss", "prefs_simp"])
    summary = pdireval.prefs_summary(values)
    assert summary.to_dict() == {"prefs_num_prefs_poss": 8.0, "prefs_simp": 0.375}
    with_nan = pdireval.evaluate_prefs(
        pd.concat([RUN, RUN.assign(query="q9")]), PREFS, "prefs_simp", queries="all"
    )
    assert pdireval.prefs_summary(with_nan)["prefs_simp"] == 0.75  # q9 left out


def test_trec_table_versions() -> None:
    """-c: 9.0.8 divides by the judged queries but prints and sums the retrieved ones;
    10.0 prints, and sums, the others too (scored on an empty ranking). Without -c, 10.0
    stops at a judged query the run did not retrieve.
    """
    prefs = pd.concat([PREFS, PREFS.assign(query="q2")], ignore_index=True)
    measures = ["prefs_simp", "prefs_num_prefs_poss"]  # printed in trec_eval's order
    plain = trec_table(RUN, prefs, measures)
    assert plain.per_query.columns.tolist() == ["prefs_num_prefs_poss", "prefs_simp"]
    assert plain.summary.loc["all"].tolist() == [1, 4.0, 0.75]
    old = trec_table(RUN, prefs, measures, complete=True)
    assert old.per_query.index.tolist() == ["q1"]
    assert old.summary.loc["all"].tolist() == [2, 4.0, 0.375]
    new = trec_table(RUN, prefs, measures, complete=True, version="10.0")
    assert new.per_query.index.tolist() == ["q1", "q2"]
    assert new.summary.loc["all"].tolist() == [2, 8.0, 0.375]
    with pytest.raises(pdireval.SchemaError, match=r"query 'q2' .* trec_eval 10\.0 stops there"):
        trec_table(RUN, prefs, measures, version="10.0")  # as trec_eval 10.0 stops
    retrieved_all = trec_table(RUN, PREFS, measures, version="10.0")
    assert retrieved_all.summary.equals(trec_table(RUN, PREFS, measures).summary)


def test_trec_table_orders_queries_as_text_and_names_runs() -> None:
    prefs = pd.concat([PREFS.assign(query=q) for q in ["9", "10"]], ignore_index=True)
    run = pd.concat([RUN.assign(query=q) for q in ["9", "10"]], ignore_index=True)
    table = trec_table(run.assign(run="bm25"), prefs, "prefs_simp")
    assert table.per_query.index.tolist() == [("bm25", "10"), ("bm25", "9")]
    assert table.summary.index.tolist() == ["bm25"]
    assert pdireval.evaluate_prefs(run, prefs).index.tolist() == ["10", "9"]


def test_prefs_from_qrels_groups() -> None:
    qrels = pdireval.read_qrels(io.StringIO("1 0 d1 1\n1 0 d2 0\n"))
    assert pdireval.prefs_from_qrels(qrels)["group"].tolist() == ["0", "0"]
    varying = pdireval.read_qrels(io.StringIO("1 a d1 1\n1 b d1 0\n"))
    assert pdireval.prefs_from_qrels(varying)["group"].tolist() == ["a", "b"]
    named = pd.DataFrame({"qid": 1, "docno": ["d1"], "label": [2], "judge": ["x"]})
    prefs = pdireval.prefs_from_qrels(named, group="judge")
    assert prefs.to_dict("list") == {
        "query": [1],
        "group": ["x"],
        "subgroup": ["0"],
        "doc": ["d1"],
        "rel": [2.0],
    }
    with pytest.raises(pdireval.SchemaError, match="group='who' is not a column"):
        pdireval.prefs_from_qrels(named, group="who")


def test_measure_names() -> None:
    prefs_set = pdireval.evaluate_prefs(RUN, PREFS, "prefs")
    assert prefs_set.columns.tolist() == list(HAND)[:6]
    qrels = pd.DataFrame({"query": "q1", "group": "u", "doc": ["a"], "rel": [1]})
    every = pdireval.evaluate_qrels_jg(RUN, qrels)
    assert every.columns[0] == "map_avgjg"
    assert every.columns[1:10].tolist() == [
        f"P_avgjg_{k}" for k in (5, 10, 15, 20, 30, 100, 200, 500, 1000)
    ]
    assert every.columns[-1] == "Rprec_mult_avgjg_2.00"
    assert tuple(HAND) == pdireval.preferences.PREFS_MEASURES
