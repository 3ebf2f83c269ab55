"""User-oriented measures of lecture note 002 and ``SearchLength``: hand-computed values.

Note 002 gives formulas but no worked numbers for these measures, so every expected
value below is counted by hand from the frame it comes with (the comments show the
counting). The ranking of note 002's MRR example (query q1: relevant at ranks 1, 3,
6, 10, 15 of 15) is reused where it fits.
"""

from __future__ import annotations

import itertools
import math

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from strategies import long_frames

import pdireval
from pdireval import SchemaError
from pdireval.metrics.user import expected_search_length

Q1_RELEVANT = (1, 3, 6, 10, 15)  # note 002, MRR example, query q1 (15 ranked documents)


def note_002_q1(known: tuple[int, ...] = (), unretrieved_relevant: int = 0) -> pd.DataFrame:
    """q1 of note 002, docs named by rank; ``known`` ranks flagged known; extra relevant
    documents that were not retrieved (named u1, u2, ...) are known too."""
    ranks = list(range(1, 16))
    frame = pd.DataFrame(
        {
            "query": "q1",
            "doc": [f"r{r}" for r in ranks],
            "rank": ranks,
            "rel": [int(r in Q1_RELEVANT) for r in ranks],
            "known": [r in known for r in ranks],
        }
    )
    extra = pd.DataFrame(
        {
            "query": "q1",
            "doc": [f"u{i}" for i in range(1, unretrieved_relevant + 1)],
            "rank": np.nan,
            "rel": 1,
            "known": True,
        }
    )
    return pd.concat([frame, extra], ignore_index=True) if unretrieved_relevant else frame


# ------------------------------------------------------------------------ SearchLength


def test_search_length_of_note_002_rankings() -> None:
    """q1's first relevant document is at rank 1, q2's at rank 3 (note 002's S_correct);
    a query with no relevant retrieved document has no search length (NaN)."""
    q2 = pd.DataFrame(
        {"query": "q2", "doc": [f"s{r}" for r in range(1, 16)], "rank": range(1, 16)}
    ).assign(rel=lambda f: f["rank"].isin([3, 8, 15]).astype(int))
    q3 = pd.DataFrame({"query": "q3", "doc": ["a", "b", "c"], "rank": [1, 2, np.nan]})
    q3 = q3.assign(rel=[0, 0, 1])  # its relevant document was not retrieved
    frame = pd.concat([note_002_q1().drop(columns="known"), q2, q3], ignore_index=True)
    values = pdireval.evaluate(frame, "SearchLength")["SearchLength"]
    assert values["q1"] == 1.0
    assert values["q2"] == 3.0
    assert math.isnan(values["q3"])
    # the mean skips the undefined query: (1 + 3) / 2
    assert pdireval.summary(frame, "SearchLength")["SearchLength"] == 2.0


def test_search_length_counts_unjudged_positions_and_rel() -> None:
    """Unjudged documents take up positions; rel=2 looks for the first label >= 2."""
    frame = pd.DataFrame(
        {"query": "q", "doc": list("abcd"), "rank": [1, 2, 3, 4], "rel": [np.nan, 1, 0, 2]}
    )
    result = pdireval.evaluate(frame, ["SearchLength", "SearchLength(rel=2)"])
    assert result.loc["q"].tolist() == [2.0, 4.0]
    assert pdireval.parse_metric("search_length") == pdireval.parse_metric("SearchLength")


# ------------------------------------------------------------------------ Coverage, Novelty


def test_coverage_and_novelty_by_hand() -> None:
    """q1 of note 002 with known = {r1, r2, r6} plus two known relevant documents not
    retrieved. K ∩ R = {r1, r6, u1, u2} (r2 is not relevant), R ∩ A = {r1, r3, r6, r10,
    r15}. Coverage = |{r1, r6}| / 4 = 0.5; Novelty = |{r3, r10, r15}| / 5 = 0.6.
    At k = 5: A = r1..r5, K ∩ R ∩ A = {r1} -> 1/4; R ∩ A = {r1, r3} -> novelty 1/2."""
    frame = note_002_q1(known=(1, 2, 6), unretrieved_relevant=2)
    result = pdireval.evaluate(frame, ["Coverage", "Novelty", "Coverage@5", "Novelty@5"])
    assert result.loc["q1"].tolist() == [0.5, 0.6, 0.25, 0.5]


def test_coverage_and_novelty_when_undefined() -> None:
    """Nothing known -> Coverage NaN (K ∩ R empty) and every find is new (Novelty 1);
    nothing relevant retrieved -> Novelty NaN, Coverage 0 when a relevant doc was known;
    no known column at all -> refused, naming the column."""
    plain = note_002_q1().drop(columns="known")
    for metric in ("Coverage", "Novelty"):
        with pytest.raises(pdireval.SchemaError, match=rf"{metric} needs a 'known' column"):
            pdireval.evaluate(plain, metric)
    result = pdireval.evaluate(plain.assign(known=False), ["Coverage", "Novelty"])
    assert math.isnan(result.loc["q1", "Coverage"])
    assert result.loc["q1", "Novelty"] == 1.0
    missed = pd.DataFrame(
        {"query": "q", "doc": ["a", "b"], "rank": [1, np.nan], "rel": [0, 1], "known": [0, 1]}
    )
    result = pdireval.evaluate(missed, ["Coverage", "Novelty"])
    assert result.loc["q", "Coverage"] == 0.0
    assert math.isnan(result.loc["q", "Novelty"])


def test_known_column_dtypes_and_mapping() -> None:
    """1/0, nullable booleans (missing = False) and object True/False/None all work, and the
    role can be mapped to another column."""
    base = note_002_q1(known=(1, 3)).drop(columns="known")
    flags = [r in (1, 3) for r in range(1, 16)]
    variants = {
        "ints": [int(f) for f in flags],
        "nullable": pd.array([True if f else None for f in flags], dtype="boolean"),
        "objects": [True if f else None for f in flags],
    }
    for name, values in variants.items():
        frame = base.assign(seen=values)
        value = frame.ireval(known="seen").evaluate("Novelty").loc["q1", "Novelty"]
        assert value == pytest.approx(3 / 5), name  # r6, r10, r15 are new
        typed = pdireval.evaluate(frame, "Novelty", columns={"known": "seen"})
        assert typed.loc["q1", "Novelty"] == pytest.approx(3 / 5), name


@pytest.mark.parametrize(
    ("values", "found"),
    [(["yes"] * 15, "'yes'"), (list(range(15)), "2.0")],
)
def test_known_column_must_be_boolean(values: list, found: str) -> None:
    frame = note_002_q1().assign(known=values)
    with pytest.raises(SchemaError, match=rf"column 'known' \(known\) must be boolean.*{found}"):
        pdireval.evaluate(frame, "Coverage")


def test_known_flags_follow_the_rows_through_judged_only_and_max_rank() -> None:
    """With judged_only=True the unjudged rows drop out and the flags stay with their docs;
    max_rank=5 keeps r1..r5: novelty over {r1, r3}, r3 known -> 1/2."""
    frame = note_002_q1(known=(3,))
    frame.loc[frame["rank"] == 2, "rel"] = np.nan  # unjudged r2 between r1 and r3
    shuffled = frame.sample(frac=1.0, random_state=1)
    assert pdireval.evaluate(shuffled, "Novelty", judged_only=True).iloc[0, 0] == 0.8
    assert pdireval.evaluate(shuffled, "Novelty", max_rank=5).iloc[0, 0] == 0.5


# ------------------------------------------------------------------------ n wanted documents


def test_relative_recall_and_recall_effort_by_hand() -> None:
    """q1 of note 002 (relevant at 1, 3, 6, 10, 15). Wanting n = 3: found 5 -> relative
    recall min(5, 3)/3 = 1; the 3rd relevant is at rank 6 -> effort 3/6. Wanting 6: 5/6
    found, never all found -> effort 0. Top 5 holds 2 relevant -> RelativeRecall(n=3)@5 = 2/3."""
    metrics = [
        "RelativeRecall(n=3)",
        "RecallEffort(n=3)",
        "RelativeRecall(n=6)",
        "RecallEffort(n=6)",
        "RelativeRecall(n=3)@5",
        "RecallEffort",
    ]
    result = pdireval.evaluate(note_002_q1(), metrics).loc["q1"]
    expected = [1.0, 0.5, 5 / 6, 0.0, 2 / 3, 1.0]
    np.testing.assert_allclose(result.to_numpy(), expected, rtol=0, atol=1e-15)


def test_n_parameter_is_checked() -> None:
    with pytest.raises(pdireval.MetricError, match=r"n= must be a whole number >= 1, got 0"):
        pdireval.parse_metric("ESL(n=0)")


# ------------------------------------------------------------------------ ESL


def test_esl_on_a_total_order() -> None:
    """Without ties ESL = rank of the n-th relevant - n: q1 of note 002 gives 0 (n=1),
    1 (n=2: rank 3), 3 (n=3: rank 6), 10 (n=5: rank 15), NaN (n=6)."""
    metrics = [f"ESL(n={n})" if n > 1 else "ESL" for n in (1, 2, 3, 5, 6)]
    result = pdireval.evaluate(note_002_q1(), metrics).loc["q1"].tolist()
    assert result[:4] == [0.0, 1.0, 3.0, 10.0]
    assert math.isnan(result[4])


def _esl_by_enumeration(levels: list[list[bool]], n: int) -> float:
    """Mean number of non-relevant documents read before the n-th relevant, over every
    order of the documents inside each level (Cooper's definition, by brute force)."""
    orders = itertools.product(*(set(itertools.permutations(level)) for level in levels))
    lengths = []
    for order in orders:
        flat = [doc for level in order for doc in level]
        seen = 0
        for nonrelevant_read, relevant in enumerate(flat):
            seen += relevant
            if seen == n:
                lengths.append(nonrelevant_read + 1 - n)
                break
    return float(np.mean(lengths)) if lengths else math.nan


@pytest.mark.parametrize(
    ("levels", "n"),
    [
        ([[True, False], [True, False, False]], 2),  # the docstring example: 2
        ([[False, False, True, True, False]], 1),  # one level: i s / (r + 1) = 3/3
        ([[False, True], [False, False, False, True, True], [True]], 2),
        ([[False, True], [False, False, False, True, True], [True]], 3),
        ([[True], [False, True, True, False]], 4),  # fewer than n relevant: NaN
    ],
)
def test_expected_search_length_formula_under_ties(levels: list[list[bool]], n: int) -> None:
    """Cooper's j + i s / (r + 1) equals the expectation over all tie-breaking orders."""
    group, first, last, relevant = [], [], [], []
    position = 1
    for level in levels:
        for doc in level:
            group.append(0)
            first.append(position)
            last.append(position + len(level) - 1)
            relevant.append(doc)
        position += len(level)
    got = expected_search_length(
        np.array(group), np.array(first), np.array(last), np.array(relevant), n, 1
    )
    expected = _esl_by_enumeration(levels, n)
    if math.isnan(expected):
        assert math.isnan(got[0])
    else:
        assert got[0] == pytest.approx(expected, abs=1e-12)


def test_expected_search_length_over_several_groups() -> None:
    """Groups are independent; a group without relevant rows gets NaN."""
    got = expected_search_length(
        np.array([0, 0, 2, 2]),
        np.array([1, 1, 1, 2]),
        np.array([2, 2, 1, 4]),
        np.array([False, True, True, True]),
        1,
        3,
    )
    # group 0: one level {non, rel}: 1 * 1 / 2; group 2: the first doc is relevant: 0
    np.testing.assert_array_equal(got, [0.5, np.nan, 0.0])


# ------------------------------------------------------------------------ Satisfaction


def test_satisfaction_and_frustration_by_hand() -> None:
    """Ranks 1-5: rel 1, 0, unjudged, 1, -1 (pooled, unjudged); relevant unretrieved f.
    Satisfaction = 2/5, Frustration = 1/5 (only b is judged non-relevant). @3: 1/3 and 1/3.
    @10: only 5 were returned, so the same as without a cutoff (P@10 would be 2/10)."""
    frame = pd.DataFrame(
        {
            "query": "q",
            "doc": list("abcdef"),
            "rank": [1, 2, 3, 4, 5, np.nan],
            "rel": [1, 0, np.nan, 1, -1, 1],
        }
    )
    metrics = ["Satisfaction", "Frustration", "Satisfaction@3", "Frustration@3"]
    metrics += ["Satisfaction@10", "Frustration@10", "Frustration(rel=2)"]
    result = pdireval.evaluate(frame, metrics).loc["q"]
    expected = [2 / 5, 1 / 5, 1 / 3, 1 / 3, 2 / 5, 1 / 5, 3 / 5]
    np.testing.assert_allclose(result.to_numpy(), expected, rtol=0, atol=1e-15)


def test_satisfaction_when_nothing_is_retrieved() -> None:
    frame = pd.DataFrame({"query": "q", "doc": ["a"], "rank": [np.nan], "rel": [1]})
    result = pdireval.evaluate(frame, ["Satisfaction", "Frustration", "RelativeRecall"])
    assert result.loc["q"].tolist() == [0.0, 0.0, 0.0]


# ------------------------------------------------------------------------ relations


def _untied_queries(frame: pd.DataFrame) -> list:
    """(run,) query keys whose retrieved documents have pairwise different scores (or ranks)."""
    keys = frame.columns.intersection(["run", "query"]).tolist()
    index = pd.MultiIndex.from_frame(frame[keys]) if len(keys) > 1 else pd.Index(frame["query"])
    if "score" not in frame.columns or "rank" in frame.columns:
        return list(index.unique())
    tied = frame["score"].notna() & frame.duplicated([*keys, "score"], keep=False)
    return list(set(index.unique()) - set(index[tied.to_numpy()].unique()))


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(frame=long_frames())
def test_relations_to_other_measures(frame: pd.DataFrame) -> None:
    """RecallEffort(n=1) = RR; SearchLength = 1/RR and ESL = SearchLength - 1 where
    defined; Satisfaction = SetP; Satisfaction + Frustration <= 1; without a known
    column (all False) Novelty is 1 wherever something relevant was retrieved."""
    metrics = ["RR", "RecallEffort", "SearchLength", "ESL", "Satisfaction", "SetP"]
    metrics += ["Frustration", "Novelty", "NumRelRet", "Satisfaction@3", "Frustration@3"]
    ours = pdireval.evaluate(frame, metrics)
    np.testing.assert_allclose(ours["RecallEffort"], ours["RR"], rtol=0, atol=1e-12)
    found = ours["RR"] > 0
    assert ours.loc[~found, "SearchLength"].isna().all()
    np.testing.assert_allclose(ours.loc[found, "SearchLength"], 1 / ours.loc[found, "RR"])
    # ESL reads the groups of equal scores as levels: with ties it averages over their
    # orders (tests/test_ties.py); where every level is one document it is SearchLength - 1.
    untied = ours["ESL"].index.isin(_untied_queries(frame))
    np.testing.assert_allclose(ours.loc[untied, "ESL"], ours.loc[untied, "SearchLength"] - 1)
    np.testing.assert_allclose(ours["Satisfaction"], ours["SetP"], rtol=0, atol=1e-12)
    for cut in ("", "@3"):
        total = ours[f"Satisfaction{cut}"] + ours[f"Frustration{cut}"]
        assert (total <= 1 + 1e-12).all()
    assert ours.loc[ours["NumRelRet"] == 0, "Novelty"].isna().all()
    unknown = pdireval.evaluate(frame.assign(known=False), metrics)
    assert (unknown.loc[unknown["NumRelRet"] > 0, "Novelty"] == 1).all()
    assert (ours["Novelty"].dropna() <= 1).all()
