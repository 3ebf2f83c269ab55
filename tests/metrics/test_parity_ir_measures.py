"""Every measure name ir_measures accepts and pdireval has gives ir_measures' number.

ir_measures (0.4) computes through several providers (pytrec_eval, its own judged,
msmarco and compat code, cwl_eval for the NERR family, gdeval for ERR@k and exp-log2
nDCG@k). The data is the adversarial generator's -- unjudged and unretrieved documents,
queries without relevant documents, negative and graded labels -- with distinct scores
per query: the providers break ties differently (pytrec_eval and pdireval by doc id
descending, the msmarco and judged providers ascending), which is a different question.
Each measure is computed in a call of its own (ir_measures can mix parameters of one
family asked for together).
"""

from __future__ import annotations

import math
import shutil

import numpy as np
import pandas as pd
import pytest
from adversarial import adversarial_case

import pdireval

ir_measures = pytest.importorskip("ir_measures")

#: (ir_measures name, pdireval name) -- the same string wherever pdireval spells it alike
SHARED = [
    "AP", "AP@5", "AP(rel=2)", "P@1", "P@5", "P(rel=2)@10", "P(cutoff=3)", "R@10", "R@1000",
    "RR", "RR(rel=2)", "RR@5", "Rprec", "Rprec(rel=3)", "nDCG", "nDCG@10",
    "nDCG(dcg='log2')@5", "nDCG(gains={0: 0, 1: 1, 2: 3, 3: 7})@10",
    "nDCG(gains={-1: 0, 0: 1, 1: 2, 2: 2, 3: 5})", "Judged@5", "Judged@20", "NumRel",
    "NumRet", "NumRelRet", "NumRet(rel=2)", "SetP", "SetP(rel=2)", "SetP(relative=True)",
    "SetR", "SetF", "SetF(beta=0.25)", "SetF(beta=4.0)", "SetAP", "Success@1", "Success@5",
    "IPrec@0.0", "IPrec@0.5", "IPrec(recall=0.3)", "infAP", "Bpref", "Bpref(rel=2)",
    "AP(judged_only=True)", "P(judged_only=True)@5", "R(judged_only=True)@10",
    "RR(judged_only=True)", "Rprec(judged_only=True)", "nDCG(judged_only=True)@10",
    "SetP(judged_only=True)", "SetF(judged_only=True)", "SetAP(judged_only=True)",
    "Success(judged_only=True)@5", "NumQ", "Compat", "Compat(p=0.8)",
    "Compat(normalize=False)", "NERR8(max_rel=3)@10", "NERR9(max_rel=3)@5",
    "NERR10(max_rel=3)", "NERR10(min_rel=1,max_rel=3,p=0.5)", "NERR11(max_rel=3)",
    "NERR11(T=2.5,max_rel=3)",
]  # fmt: skip
#: computed by gdeval (perl): labels 0..4 and numeric query ids only, 5 printed decimals
GDEVAL = ["ERR@10", "ERR@20", "nDCG(dcg='exp-log2')@10"]


def _case(seed: int) -> tuple[pd.DataFrame, pd.DataFrame]:
    run, qrels = adversarial_case(seed)
    # distinct scores: no tie to break; positive: Compat gives a document it was not
    # given the score 0 when it orders equally relevant documents by the run's scores
    scores = np.random.default_rng(seed).permutation(len(run)).astype(float) + 1.0
    return run.assign(score=scores), qrels


def _ir_measures_frames(run: pd.DataFrame, qrels: pd.DataFrame):
    # cwl_eval (the NERR family) reads a query's documents as one block of the run
    run_ = run.rename(columns={"query": "query_id", "doc": "doc_id"}).sort_values(
        "query_id", key=lambda ids: ids.astype(str), kind="stable"
    )
    qrels_ = qrels.rename(columns={"query": "query_id", "doc": "doc_id", "rel": "relevance"})
    return run_.astype({"query_id": str, "doc_id": str}), qrels_.astype(
        {"query_id": str, "doc_id": str}
    )


#: ir_measures' parser refuses negative numbers; its measure objects take them
OBJECTS = {
    "nDCG(gains={-1: 0, 0: 1, 1: 2, 2: 2, 3: 5})": lambda: ir_measures.nDCG(
        gains={-1: 0, 0: 1, 1: 2, 2: 2, 3: 5}
    ),
}


def _theirs(name: str, run: pd.DataFrame, qrels: pd.DataFrame) -> dict[str, float]:
    measure = OBJECTS[name]() if name in OBJECTS else ir_measures.parse_measure(name)
    run_, qrels_ = _ir_measures_frames(run, qrels)
    return {m.query_id: float(m.value) for m in ir_measures.iter_calc([measure], qrels_, run_)}


def _differences(name: str, seed: int, tolerance: float) -> list[str]:
    run, qrels = _case(seed)
    theirs = _theirs(name, run, qrels)
    ours = pdireval.evaluate(pdireval.merge_qrels(run, qrels), name, queries="judged")
    values = ours.iloc[:, 0]
    found = []
    for query, value in theirs.items():
        if query not in values.index:
            found.append(f"{name} {query}: missing here, ir_measures {value}")
        elif not math.isclose(values[query], value, rel_tol=0, abs_tol=tolerance):
            found.append(f"{name} {query}: {values[query]} here, ir_measures {value}")
    return found


@pytest.mark.parametrize("seed", range(3))
@pytest.mark.parametrize("name", SHARED)
def test_shared_names_give_ir_measures_numbers(name: str, seed: int) -> None:
    differences = _differences(name, seed, 1e-9)
    if name in ("NumRel", "NumQ"):
        # ir_measures reports 0 for a judged query that retrieved nothing (its fill value
        # for queries its backend skipped); pdireval counts its judgments (trec_eval -c).
        run, _ = _case(seed)
        retrieved = set(run["query"])
        differences = [d for d in differences if d.split()[1].rstrip(":") in retrieved]
    assert differences == []


def _numeric_graded_case(seed: int) -> tuple[pd.DataFrame, pd.DataFrame]:
    """gdeval's conditions: numeric query ids, labels 0..4."""
    run, qrels = _case(seed)
    return run, qrels.assign(rel=qrels["rel"].clip(lower=0, upper=4))


@pytest.mark.skipif(shutil.which("perl") is None, reason="gdeval needs perl")
@pytest.mark.parametrize("seed", range(2))
@pytest.mark.parametrize("name", GDEVAL)
def test_gdeval_names_give_ir_measures_numbers(name: str, seed: int) -> None:
    run, qrels = _numeric_graded_case(seed)
    theirs = _theirs(name, run, qrels)
    merged = pdireval.merge_qrels(run, qrels)
    ours = pdireval.evaluate(merged, name, queries="judged").iloc[:, 0]
    assert theirs  # gdeval ran
    for query, value in theirs.items():
        assert ours[query] == pytest.approx(value, abs=6e-6), (name, query)


def test_judged_only_parameter_equals_the_evaluation_option() -> None:
    """P(judged_only=True)@5 is P@5 under evaluate(..., judged_only=True), per query."""
    run, qrels = _case(0)
    merged = pdireval.merge_qrels(run, qrels)
    names = ["AP", "P@5", "nDCG@10", "RR", "SetF", "IPrec@0.5"]
    option = pdireval.evaluate(merged, names, judged_only=True)
    parameter = pdireval.evaluate(merged, [f"{n.split('@')[0]}(judged_only=True)" + (
        f"@{n.split('@')[1]}" if "@" in n else "") for n in names])  # fmt: skip
    np.testing.assert_array_equal(option.to_numpy(), parameter.to_numpy())
