"""Agreement between judges, checked against scikit-learn, statsmodels and krippendorff."""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

import pdireval
from pdireval import ParameterError, SchemaError

JUDGES = ("human", "gpt", "umbrela", "z")
QUERIES = ("q1", "q2", "10")


@st.composite
def label_sets(draw: st.DrawFn) -> pd.DataFrame:
    """Judgments of 2-4 judges over a few (query, doc) items, with holes.

    Some draws use a single label value, some leave a judge's label out of most items.
    """
    judges = draw(st.integers(2, 4))
    items = draw(st.integers(1, 14))
    values = draw(st.sampled_from([(0, 1), (0, 1, 2, 3), (2,), (0, 3), (1, 2, 4)]))
    rows = []
    for item in range(items):
        query = QUERIES[item % len(QUERIES)]
        for judge in JUDGES[:judges]:
            if draw(st.booleans()) or draw(st.booleans()):  # about 3 in 4 labelled
                rows.append((judge, query, f"d{item}", draw(st.sampled_from(values))))
    frame = pd.DataFrame(rows, columns=["judge", "query", "doc", "rel"])
    judged = frame["judge"].nunique()
    assume(judged >= 2)  # fewer judges: an error of its own, tested below
    return frame.astype({"rel": np.int64})


def _wide(frame: pd.DataFrame) -> pd.DataFrame:
    return frame.pivot(index=["query", "doc"], columns="judge", values="rel")


def _sklearn_kappa(a: np.ndarray, b: np.ndarray, weights: str | None) -> float:
    from sklearn.metrics import cohen_kappa_score

    labels = np.arange(min(a.min(), b.min()), max(a.max(), b.max()) + 1)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with np.errstate(all="ignore"):
            return float(cohen_kappa_score(a, b, labels=labels, weights=weights))


def _shares_a_document(frame: pd.DataFrame) -> bool:
    return bool((_wide(frame).notna().sum(axis=1) >= 2).any())


@given(label_sets())
@settings(deadline=None)
def test_pair_kappas_equal_scikit_learn(frame: pd.DataFrame) -> None:
    pytest.importorskip("sklearn")
    if not _shares_a_document(frame):
        with pytest.raises(SchemaError, match="common document"):
            pdireval.agreement(frame)
        return
    table = pdireval.agreement(frame)
    wide = _wide(frame)
    judges = sorted(frame["judge"].unique())
    assert list(table.index) == [(a, b) for i, a in enumerate(judges) for b in judges[i + 1 :]]
    for (a, b), row in table.iterrows():
        both = wide[[a, b]].dropna().astype(np.int64)
        assert row["documents"] == len(both)
        if not len(both):
            assert row[["agreement", "kappa"]].isna().all()
            continue
        assert row["agreement"] == pytest.approx((both[a] == both[b]).mean())
        for column, weights in [
            ("kappa", None),
            ("kappa_linear", "linear"),
            ("kappa_quadratic", "quadratic"),
        ]:
            expected = _sklearn_kappa(both[a].to_numpy(), both[b].to_numpy(), weights)
            np.testing.assert_allclose(row[column], expected, rtol=1e-12, atol=1e-12)


@given(label_sets())
@settings(deadline=None)
def test_query_agreement_is_agreement_of_each_query_alone(frame: pd.DataFrame) -> None:
    if not _shares_a_document(frame):
        return
    table = pdireval.query_agreement(frame)
    assert table.index.names == ["judge_a", "judge_b", "query"]
    assert (table["documents"] > 0).all()
    expected = []
    for query, part in frame.groupby("query"):
        if part["judge"].nunique() < 2 or not _shares_a_document(part):
            continue
        alone = pdireval.agreement(part)
        alone = alone[alone["documents"] > 0]
        expected.append(alone.assign(query=query).set_index("query", append=True))
    want = pd.concat(expected).sort_index()
    got = table.sort_index()
    pd.testing.assert_frame_equal(got, want, check_names=False, check_column_type=False)


@given(label_sets())
@settings(deadline=None)
def test_confusion_matrix_equals_a_crosstab(frame: pd.DataFrame) -> None:
    wide = _wide(frame)
    a, b = sorted(frame["judge"].unique())[:2]
    both = wide[[a, b]].dropna().astype(np.int64)
    if not len(both):
        with pytest.raises(SchemaError, match="no document in common"):
            pdireval.confusion_matrix(frame, a, b)
        return
    matrix = pdireval.confusion_matrix(frame, a, b)
    values = sorted(set(both[a]) | set(both[b]))
    want = pd.crosstab(both[a], both[b]).reindex(index=values, columns=values, fill_value=0)
    np.testing.assert_array_equal(matrix.to_numpy(), want.to_numpy())
    assert list(matrix.index) == values
    assert list(matrix.columns) == values
    assert (matrix.index.name, matrix.columns.name) == (a, b)
    assert np.trace(matrix.to_numpy()) == (both[a] == both[b]).sum()


@given(label_sets())
@settings(deadline=None)
def test_fleiss_kappa_equals_statsmodels(frame: pd.DataFrame) -> None:
    inter_rater = pytest.importorskip("statsmodels.stats.inter_rater")
    complete = _wide(frame).dropna()
    if not len(complete):
        with pytest.raises(SchemaError, match="labelled by every judge"):
            pdireval.fleiss_kappa(frame)
        return
    counts, _ = inter_rater.aggregate_raters(complete.to_numpy().astype(np.int64))
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore")
        expected = inter_rater.fleiss_kappa(counts, method="fleiss")
    got = pdireval.fleiss_kappa(frame)
    if len(np.unique(complete.to_numpy())) == 1:
        assert np.isnan(got)
    else:
        assert got == pytest.approx(expected, rel=1e-12, abs=1e-12)


@pytest.mark.parametrize("level", ["nominal", "ordinal", "interval"])
@given(frame=label_sets())
@settings(deadline=None)
def test_krippendorff_alpha_equals_the_krippendorff_package(
    level: str, frame: pd.DataFrame
) -> None:
    krippendorff = pytest.importorskip("krippendorff")
    wide = _wide(frame)
    pairable = wide[wide.notna().sum(axis=1) >= 2]
    if not len(pairable):
        with pytest.raises(SchemaError, match="labelled by two judges"):
            pdireval.krippendorff_alpha(frame, level=level)  # type: ignore[arg-type]
        return
    got = pdireval.krippendorff_alpha(frame, level=level)  # type: ignore[arg-type]
    if len(np.unique(pairable.stack().dropna())) == 1:  # the package refuses one value
        assert np.isnan(got)
        return
    data = pairable.T.to_numpy(dtype=np.float64)
    expected = krippendorff.alpha(reliability_data=data, level_of_measurement=level)
    assert got == pytest.approx(expected, rel=1e-9, abs=1e-12)


def _two_judges() -> dict[str, pd.DataFrame]:
    human = pd.DataFrame({"qid": ["q1", "q1", "q2"], "docno": ["a", "b", "c"], "rel": [0, 1, 2]})
    llm = pd.DataFrame({"qid": ["q1", "q1", "q2"], "docno": ["a", "b", "c"], "rel": [0, 2, 2]})
    return {"human": human, "llm": llm}


def test_a_mapping_reads_as_a_frame_with_a_judge_column() -> None:
    judges = _two_judges()
    frame = pd.concat([f.assign(who=name) for name, f in judges.items()], ignore_index=True)
    by_mapping = pdireval.agreement(judges)
    by_frame = pdireval.agreement(frame, judge="who")
    pd.testing.assert_frame_equal(by_mapping, by_frame)
    by_query = pdireval.query_agreement(frame, judge="who")
    assert by_query.index.names == ["judge_a", "judge_b", "qid"]


def test_inputs_are_not_modified() -> None:
    judges = _two_judges()
    before = {name: frame.copy() for name, frame in judges.items()}
    pdireval.agreement(judges)
    pdireval.krippendorff_alpha(judges)
    for name, frame in judges.items():
        pd.testing.assert_frame_equal(frame, before[name])


def test_missing_and_negative_labels_are_not_judgments() -> None:
    human = pd.DataFrame({"query": "q", "doc": ["a", "b", "c", "d"], "rel": [0, 1, -1, 1]})
    llm = pd.DataFrame({"query": "q", "doc": ["a", "b", "c", "d"], "rel": [0, 1, 1, None]})
    table = pdireval.agreement({"human": human, "llm": llm})
    assert table["documents"].tolist() == [2]
    assert table["kappa"].tolist() == [1.0]


def test_one_label_value_gives_nan_kappa_not_a_warning() -> None:
    same = pd.DataFrame({"query": "q", "doc": ["a", "b"], "rel": [1, 1]})
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        table = pdireval.agreement({"x": same, "y": same})
        alpha = pdireval.krippendorff_alpha({"x": same, "y": same})
        fleiss = pdireval.fleiss_kappa({"x": same, "y": same})
    assert table["agreement"].tolist() == [1.0]
    assert table[["kappa", "kappa_linear", "kappa_quadratic"]].isna().all(axis=None)
    assert np.isnan(alpha)
    assert np.isnan(fleiss)


def test_disjoint_documents_are_an_error_that_says_so() -> None:
    x = pd.DataFrame({"query": "q", "doc": ["a", "b"], "rel": [0, 1]})
    y = pd.DataFrame({"query": "q", "doc": ["c", "d"], "rel": [0, 1]})
    for call in (pdireval.agreement, pdireval.query_agreement):
        with pytest.raises(SchemaError, match=r"no two judges label a common document"):
            call({"x": x, "y": y})
    with pytest.raises(SchemaError, match="every judge"):
        pdireval.fleiss_kappa({"x": x, "y": y})
    with pytest.raises(SchemaError, match="two judges or more"):
        pdireval.krippendorff_alpha({"x": x, "y": y})


def test_a_pair_without_common_documents_among_others_is_nan() -> None:
    x = pd.DataFrame({"query": "q", "doc": ["a", "b"], "rel": [0, 1]})
    y = pd.DataFrame({"query": "q", "doc": ["c", "d"], "rel": [0, 1]})
    z = pd.DataFrame({"query": "q", "doc": ["a", "b", "c", "d"], "rel": [0, 1, 1, 1]})
    table = pdireval.agreement({"x": x, "y": y, "z": z})
    assert table["documents"].tolist() == [0, 2, 2]
    assert np.isnan(table.loc[("x", "y"), "kappa"])


@pytest.mark.parametrize(
    ("frame", "match"),
    [
        (pd.DataFrame({"judge": "x", "query": "q", "doc": ["a"], "rel": [1]}), "two judges"),
        (
            pd.DataFrame({"judge": ["x", "x", "y"], "query": "q", "doc": "a", "rel": [1, 0, 1]}),
            "judge 'x' labels document 'a' of query 'q' twice",
        ),
        (
            pd.DataFrame({"judge": ["x", "y"], "query": "q", "doc": "a", "rel": [0.5, 1.0]}),
            "whole numbers",
        ),
        (pd.DataFrame({"query": "q", "doc": ["a"], "rel": [1]}), "judge column 'judge'"),
        (
            pd.DataFrame({"judge": ["x", "y"], "query": ["q", None], "doc": "a", "rel": [1, 1]}),
            "no query id",
        ),
    ],
)
def test_bad_judgments_are_refused(frame: pd.DataFrame, match: str) -> None:
    with pytest.raises(SchemaError, match=match):
        pdireval.agreement(frame)


def test_confusion_matrix_needs_two_named_judges_among_more() -> None:
    x = pd.DataFrame({"query": "q", "doc": ["a", "b"], "rel": [0, 1]})
    judges = {"x": x, "y": x, "z": x}
    with pytest.raises(ParameterError, match="name the two judges"):
        pdireval.confusion_matrix(judges)
    with pytest.raises(SchemaError, match="judge 'w' not found"):
        pdireval.confusion_matrix(judges, "x", "w")
    assert pdireval.confusion_matrix(judges, "x", "z").to_numpy().tolist() == [[1, 0], [0, 1]]


def test_unknown_level_is_refused() -> None:
    with pytest.raises(ParameterError, match="level='ratio'"):
        pdireval.krippendorff_alpha(_two_judges(), level="ratio")  # type: ignore[arg-type]


def test_not_judgments_are_refused() -> None:
    with pytest.raises(SchemaError, match="DataFrame with a judge column"):
        pdireval.agreement([1, 2])  # type: ignore[arg-type]
    with pytest.raises(SchemaError, match="no judgments"):
        pdireval.agreement({})
