"""PyTerrier's frames: one documented call gives ir_measures' numbers; the naive call refuses.

PyTerrier results hold ``qid``, ``docid`` (an internal integer), ``docno``, ``score``,
a 0-based ``rank`` and the query *text* in ``query``; its qrels hold ``qid``, ``docno``,
``label`` (and sometimes ``iteration``). PyTerrier evaluates through ir_measures, which
ranks by score with ties by docno descending (trec_eval's rule).
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import pdireval
from pdireval import ColumnMap, SchemaError

ir_measures = pytest.importorskip("ir_measures")

MEASURES = ["AP", "nDCG@10", "P@5", "R@10", "RR", "Rprec", "nDCG", "AP@5"]


def _pyterrier_frames(seed: int) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Results and qrels shaped exactly like PyTerrier's (tied scores included)."""
    rng = np.random.default_rng(seed)
    rows, judgments = [], []
    for q in range(1, 9):
        qid, text = str(q), f"what is topic {q}"
        docs = rng.choice(60, size=int(rng.integers(3, 25)), replace=False)
        scores = np.round(rng.normal(size=len(docs)), 1)  # one decimal: ties happen
        order = np.argsort(-scores, kind="stable")  # PyTerrier: rank from a sort by score
        for rank, i in enumerate(order):
            rows.append((qid, int(docs[i]), f"doc{docs[i]}", float(scores[i]), rank, text))
        if q == 8:
            continue  # a query nobody judged
        for d in rng.choice(60, size=int(rng.integers(1, 12)), replace=False):
            judgments.append((qid, f"doc{d}", int(rng.integers(0, 3)), "0"))
    res = pd.DataFrame(rows, columns=["qid", "docid", "docno", "score", "rank", "query"])
    qrels = pd.DataFrame(judgments, columns=["qid", "docno", "label", "iteration"])
    return res, qrels


def _ir_measures(res: pd.DataFrame, qrels: pd.DataFrame) -> pd.DataFrame:
    run = res.rename(columns={"qid": "query_id", "docno": "doc_id"})[
        ["query_id", "doc_id", "score"]
    ]
    judged = qrels.rename(columns={"qid": "query_id", "docno": "doc_id", "label": "relevance"})
    measures = [ir_measures.parse_measure(name) for name in MEASURES]
    values = {
        (str(m.measure), m.query_id): m.value for m in ir_measures.iter_calc(measures, judged, run)
    }
    table = pd.Series(values).unstack(level=0)
    return table[[str(ir_measures.parse_measure(name)) for name in MEASURES]]


@pytest.mark.parametrize("seed", range(5))
def test_one_documented_call_gives_ir_measures_numbers(seed: int) -> None:
    res, qrels = _pyterrier_frames(seed)
    merged = pdireval.merge_qrels(res, qrels, columns=ColumnMap.pyterrier())
    ours = merged.ireval.evaluate(MEASURES, queries="retrieved")
    theirs = _ir_measures(res, qrels)
    assert ours.index.name == "qid"
    assert sorted(ours.index) == sorted(theirs.index)
    np.testing.assert_allclose(
        ours.loc[theirs.index].to_numpy(), theirs.to_numpy(), rtol=0, atol=1e-9
    )


def test_the_naive_call_is_refused_with_the_fix() -> None:
    """Default roles would read the run's query *texts* and the qrels' ids: refused."""
    res, qrels = _pyterrier_frames(0)
    with pytest.raises(SchemaError, match=r"ColumnMap\.pyterrier\(\)") as info:
        pdireval.merge_qrels(res, qrels)
    assert "'query'" in str(info.value)
    assert "'qid'" in str(info.value)


def test_merged_frame_remembers_its_roles() -> None:
    """The merged frame holds both `query` (text) and `qid`: the recorded roles pick qid,
    and rank by score as PyTerrier's evaluation does, without mapping again."""
    res, qrels = _pyterrier_frames(1)
    merged = pdireval.merge_qrels(res, qrels, columns=ColumnMap.pyterrier())
    recorded = merged.attrs["pdireval"]["columns"]
    assert recorded["query"] == "qid"
    assert recorded["doc"] == "docno"
    assert recorded["rank"] is False
    assert recorded["rel"] == "label"
    explicit = merged.ireval(query="qid", doc="docno", rank=False).evaluate("AP")
    pd.testing.assert_frame_equal(merged.ireval.evaluate("AP"), explicit)


def test_zero_based_rank_column_orders_like_one_based() -> None:
    """PyTerrier's 0-based ranks are accepted and give the order they say."""
    res, qrels = _pyterrier_frames(2)
    merged = pdireval.merge_qrels(res, qrels, columns={"query": "qid", "doc": "docno"})
    zero_based = merged.ireval(query="qid").evaluate(["AP", "nDCG@10"])
    one_based = (
        merged.assign(rank=merged["rank"] + 1).ireval(query="qid").evaluate(["AP", "nDCG@10"])
    )
    pd.testing.assert_frame_equal(zero_based, one_based)


def test_internal_docid_instead_of_docno_is_refused() -> None:
    """Matching PyTerrier's integer docid against the qrels' docno can never work."""
    res, qrels = _pyterrier_frames(3)
    with pytest.raises(SchemaError, match="doc ids"):
        pdireval.merge_qrels(res, qrels, columns={"query": "qid", "doc": "docid"})


@pytest.mark.parametrize("seed", range(3))
def test_qrels_given_next_to_pyterrier_results_give_ir_measures_numbers(seed: int) -> None:
    """The same documented roles with the qrels as a second frame: the same numbers, and
    the naive call is refused with the same fix."""
    res, qrels = _pyterrier_frames(seed)
    ours = pdireval.evaluate(
        res, MEASURES, qrels=qrels, columns=ColumnMap.pyterrier(), queries="retrieved"
    )
    theirs = _ir_measures(res, qrels)
    assert ours.index.name == "qid"
    np.testing.assert_allclose(
        ours.loc[theirs.index].to_numpy(), theirs.to_numpy(), rtol=0, atol=1e-9
    )
    with pytest.raises(SchemaError, match=r"ColumnMap\.pyterrier\(\)"):
        pdireval.evaluate(res, MEASURES, qrels=qrels)
