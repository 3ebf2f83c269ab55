"""Diversity measures: ndeval's numbers (pyndeval), the subtopic frame, and its errors."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest

import pdireval
from pdireval import MetricError, ParameterError, SchemaError

pyndeval = pytest.importorskip("pyndeval")

#: ndeval name -> pdireval name
NAMES = {
    "ERR-IA": "ERR_IA",
    "nERR-IA": "nERR_IA",
    "alpha-DCG": "alpha_DCG",
    "alpha-nDCG": "alpha_nDCG",
    "P-IA": "P_IA",
    "strec": "StRecall",
    "NRBP": "NRBP",
    "nNRBP": "nNRBP",
    "MAP-IA": "AP_IA",
}
CUTOFFS = (1, 2, 3, 5, 10, 20)


def _case(seed: int) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Queries with 1-4 subtopics, documents relevant to several, graded, zero and negative
    labels, unjudged retrieved documents, unretrieved relevant ones, a query without any
    relevant document and one nobody retrieved; distinct scores (no tie to break)."""
    rng = np.random.default_rng(seed)
    qrels, run = [], []
    for number in range(12):
        query = str(100 + number)
        pool = [f"d{i}" for i in rng.permutation(30)[: rng.integers(3, 20)]]
        subtopics = [str(s) for s in range(1, rng.integers(2, 6))]
        none_relevant = number == 3
        for doc in pool:
            for subtopic in subtopics:
                if rng.random() < 0.45:
                    label = 0 if none_relevant else int(rng.choice([-1, 0, 1, 1, 2, 3]))
                    qrels.append((query, subtopic, doc, label))
        if number == 5:
            continue  # judged, never retrieved
        retrieved = list(rng.permutation(pool + [f"u{i}" for i in range(5)]))
        retrieved = retrieved[: rng.integers(1, len(retrieved) + 1)]
        scores = rng.permutation(len(retrieved)).astype(float)
        run += [(query, doc, score) for doc, score in zip(retrieved, scores, strict=True)]
    qrels_frame = pd.DataFrame(qrels, columns=["query", "subtopic", "doc", "rel"])
    run_frame = pd.DataFrame(run, columns=["query", "doc", "score"])
    return run_frame, qrels_frame


def _ndeval(run, qrels, measures, **options) -> dict:
    judged = list(qrels[["query", "subtopic", "doc", "rel"]].itertuples(index=False, name=None))
    ranking = list(run[["query", "doc", "score"]].itertuples(index=False, name=None))
    evaluator = pyndeval.RelevanceEvaluator(judged, measures=measures, **options)
    return evaluator.evaluate(ranking)


def _measures() -> list[str]:
    with_cutoff = [f"{name}@{k}" for name in NAMES if name not in pyndeval.NOCUTOFF_MEASURES
                   for k in CUTOFFS]  # fmt: skip
    return with_cutoff + sorted(pyndeval.NOCUTOFF_MEASURES)


def _ours(name: str, **params) -> str:
    base, _, k = name.partition("@")
    inner = ", ".join(f"{key}={value}" for key, value in params.items())
    return NAMES[base] + (f"({inner})" if inner else "") + (f"@{k}" if k else "")


@pytest.mark.parametrize("seed", range(8))
@pytest.mark.parametrize(
    "options",
    [{}, {"relevance_level": 2}, {"alpha": 0.3, "beta": 0.8}],
    ids=["default", "rel2", "ab"],
)
def test_equals_ndeval(seed: int, options: dict) -> None:
    run, qrels = _case(seed)
    measures = _measures()
    expected = _ndeval(run, qrels, measures, **options)
    params = {}
    if "relevance_level" in options:
        params["rel"] = options["relevance_level"]
    merged = pdireval.merge_qrels(run, qrels)
    names = {}
    for measure in measures:
        mine = dict(params)
        base = measure.partition("@")[0]
        if "alpha" in options and base not in ("P-IA", "strec", "MAP-IA"):
            mine["alpha"] = options["alpha"]
        if "beta" in options and base in ("NRBP", "nNRBP"):
            mine["beta"] = options["beta"]
        names[measure] = _ours(measure, **mine)
    ours = pdireval.evaluate(merged, list(dict.fromkeys(names.values())), queries="judged")
    assert len(expected) >= 10
    mismatches = []
    for query, values in expected.items():
        for measure, value in values.items():
            got = float(ours.loc[query, pdireval.parse_metric(names[measure]).label])
            if math.isnan(value) and math.isnan(got):
                continue
            if not abs(got - value) <= 1e-9:
                mismatches.append((query, measure, got, value))
    assert mismatches == []


def test_a_worked_example() -> None:
    """Subtopics a: d1, d2; b: d2, d3; c: d4. Ranking d1 d2 d3 dx d4. G = 1, 1.5, 0.5, 0, 1
    (alpha = 0.5); the greedy ideal takes d2 (gain 2), d4 (1), then d3 (largest id, 0.5)."""
    run = pd.DataFrame({"query": "q", "doc": ["d1", "d2", "d3", "dx", "d4"],
                        "score": [5.0, 4.0, 3.0, 2.0, 1.0]})  # fmt: skip
    qrels = pd.DataFrame({"query": "q", "subtopic": list("aabbc"),
                          "doc": ["d1", "d2", "d2", "d3", "d4"], "rel": 1})  # fmt: skip
    merged = pdireval.merge_qrels(run, qrels)
    values = merged.ireval.evaluate(["alpha_nDCG@2", "P_IA@2", "StRecall@2", "NRBP"]).loc["q"]
    dcg, ideal = 1 + 1.5 / np.log2(3), 2 + 1 / np.log2(3)
    assert values["alpha_nDCG@2"] == pytest.approx(dcg / ideal, abs=1e-15)
    assert values["P_IA@2"] == pytest.approx((2 / 2 + 1 / 2 + 0) / 3, abs=1e-15)
    assert values["StRecall@2"] == pytest.approx(2 / 3, abs=1e-15)
    assert values["NRBP"] == pytest.approx(0.75 / 3 * (1 + 0.75 + 0.125 + 0.0625), abs=1e-15)


def test_the_subtopic_frame() -> None:
    """One row per (query, doc, subtopic) judgment, one row for an unjudged document; the
    ordinary measures see each document once, with its best subtopic label."""
    run, qrels = _case(0)
    merged = pdireval.merge_qrels(run, qrels)
    assert "subtopic" in merged.columns
    assert merged.attrs["pdireval"]["columns"]["subtopic"] == "subtopic"
    judged_rows = merged["subtopic"].notna()
    assert judged_rows.sum() >= len(qrels)  # every judgment, once per run that has it
    best = qrels.groupby(["query", "doc"], as_index=False)["rel"].max()
    ordinary = pdireval.merge_qrels(run, best)
    names = ["AP", "nDCG@10", "P@5", "RR", "Bpref"]
    pd.testing.assert_frame_equal(
        pdireval.evaluate(merged, names), pdireval.evaluate(ordinary, names), check_exact=True
    )


def test_constant_iteration_column_is_not_a_subtopic() -> None:
    run, qrels = _case(1)
    best = qrels.groupby(["query", "doc"], as_index=False)["rel"].max().assign(iteration="0")
    merged = pdireval.merge_qrels(run, best)
    assert "iteration" not in merged.columns


def test_errors() -> None:
    run, qrels = _case(2)
    plain = pdireval.merge_qrels(run, qrels.groupby(["query", "doc"], as_index=False)["rel"].max())
    with pytest.raises(SchemaError, match="alpha_nDCG@5 needs a 'subtopic' column"):
        pdireval.evaluate(plain, "alpha_nDCG@5")
    with pytest.raises(SchemaError, match="judgment\\(s\\) appear more than once"):
        pdireval.merge_qrels(run, pd.concat([qrels, qrels.head(1)]))
    with pytest.raises(MetricError, match="needs a cutoff"):
        pdireval.parse_metric("alpha_nDCG")
    merged = pdireval.merge_qrels(run, qrels)
    with pytest.raises(ParameterError, match="ties='optimistic' is not available"):
        pdireval.evaluate(merged, "P_IA@5", ties="optimistic")


@pytest.mark.parametrize(
    "name",
    ["alpha_nDCG@10", "alpha_DCG@5", "ERR_IA@5", "nERR_IA@20", "P_IA@10", "StRecall@10",
     "AP_IA", "NRBP", "nNRBP"],
)  # fmt: skip
def test_ir_measures_names(name: str) -> None:
    """ir_measures reads the subtopic from the qrels' iteration field and runs pyndeval."""
    ir_measures = pytest.importorskip("ir_measures")
    run, qrels = _case(3)
    measure = ir_measures.parse_measure(name)
    judged = qrels.rename(
        columns={"query": "query_id", "doc": "doc_id", "rel": "relevance", "subtopic": "iteration"}
    )
    ranking = run.rename(columns={"query": "query_id", "doc": "doc_id"})
    theirs = {m.query_id: m.value for m in ir_measures.iter_calc([measure], judged, ranking)}
    ours = pdireval.evaluate(pdireval.merge_qrels(run, qrels), name, queries="judged").iloc[:, 0]
    assert len(theirs) >= 10
    for query, value in theirs.items():
        assert ours[query] == pytest.approx(value, abs=1e-9, nan_ok=True), query


def test_read_qrels_keeps_subtopics(tmp_path) -> None:
    text = "1 a d1 1\n1 a d2 0\n1 b d2 2\n2 a d9 1\n"
    (tmp_path / "q").write_text(text)
    qrels = pdireval.read_qrels(tmp_path / "q")
    assert list(qrels.columns) == ["query", "subtopic", "doc", "rel"]
    assert qrels["subtopic"].tolist() == ["a", "a", "b", "a"]
    with pytest.raises(SchemaError, match="appears twice in the qrels"):  # once per subtopic
        pdireval.read_qrels(tmp_path / "q", subtopics=False)
    (tmp_path / "plain").write_text("1 0 d1 1\n1 0 d2 0\n")
    assert "subtopic" not in pdireval.read_qrels(tmp_path / "plain").columns
    assert "subtopic" in pdireval.read_qrels(tmp_path / "plain", subtopics=True).columns
    (tmp_path / "twice").write_text("1 a d1 1\n1 b d1 0\n1 a d1 2\n")
    with pytest.raises(SchemaError, match=r"line 3: .*first on line 1"):
        pdireval.read_qrels(tmp_path / "twice")


def test_dask_gives_the_pandas_numbers() -> None:
    dd = pytest.importorskip("dask.dataframe")
    import pdireval.dask

    run, qrels = _case(4)
    runs = pd.concat([run.assign(run="a"), run.iloc[::2].assign(run="b")], ignore_index=True)
    names = ["alpha_nDCG@10", "ERR_IA@5", "AP_IA", "nNRBP", "AP", "P@5"]
    expected = pdireval.evaluate(pdireval.merge_qrels(runs, qrels), names)
    merged = pdireval.dask.merge_qrels(dd.from_pandas(runs, npartitions=3), qrels)
    actual = pdireval.dask.evaluate(merged, names, shuffle=False).compute()
    actual = actual.set_index(["run", "query"]).sort_index()
    np.testing.assert_allclose(actual.to_numpy(), expected.to_numpy(), rtol=0, atol=1e-12)
    assert [tuple(map(str, i)) for i in actual.index] == [
        tuple(map(str, i)) for i in expected.index
    ]


@pytest.mark.parametrize("seed", range(4))
def test_bounded_families_stay_in_the_unit_interval(seed: int) -> None:
    from pdireval.metrics import REGISTRY

    run, qrels = _case(seed)
    merged = pdireval.merge_qrels(run, qrels)
    names = [
        f"{name}@5" if family.cutoff == "required" else name
        for name, family in REGISTRY.items()
        if "subtopic" in family.needs and family.bounded
    ]
    assert sorted(names) == ["AP_IA", "NRBP", "P_IA@5", "StRecall@5"]
    values = pdireval.evaluate(merged, names, queries="all").to_numpy()
    assert ((values >= 0) & (values <= 1)).all()
