"""The fast path against the plain reference implementations (``pdireval.preferences.
reference``), on generated data: every value of every judged query, or the same refusal.

The hypothesis cases draw judgments without any care for consistency (documents at two
levels of a sub-group, cycles across sub-groups, non-relevant and relevant at once,
negative levels, lowest classes smaller than R), runs with tied scores, documents
nobody judged or retrieved, and queries on one side only; the generated files of
``tests/preference_frames.py`` add larger, consistent cases.
"""

from __future__ import annotations

import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from preference_frames import prefs_cases, prefs_frame, qrels_jg_cases, qrels_jg_frame, run_frame

import pdireval
from pdireval.preferences.measures import jg_measures
from pdireval.preferences.reference import jg_reference, prefs_reference

JG_NAMES = ["qrels_jg", "P_avgjg.1,2,3", "Rprec_mult_avgjg.0.1,0.5,1.2,3"]


def _same(fast, reference: dict) -> None:
    assert sorted(map(str, fast.index)) == sorted(map(str, reference))
    for query, values in reference.items():
        for measure, expected in values.items():
            got = fast.at[query, measure]
            assert math.isclose(got, expected, rel_tol=1e-12, abs_tol=1e-12), (
                query,
                measure,
                got,
                expected,
            )


def _prefs_agree(prefs, run, max_rank) -> None:
    try:
        expected = prefs_reference(run, prefs, max_rank=max_rank)
    except pdireval.SchemaError:
        with pytest.raises(pdireval.SchemaError):
            pdireval.evaluate_prefs(run, prefs, max_rank=max_rank)
        return
    _same(pdireval.evaluate_prefs(run, prefs, max_rank=max_rank), expected)


@settings(max_examples=300, deadline=None)
@given(case=prefs_cases(), max_rank=st.sampled_from([None, 1, 3]))
def test_prefs_fast_path_is_the_reference(case, max_rank) -> None:
    prefs, run = case
    _prefs_agree(prefs, run, max_rank)


@settings(max_examples=100, deadline=None)
@given(case=qrels_jg_cases())
def test_qrels_prefs_fast_path_is_the_reference(case) -> None:
    qrels, run = case
    _prefs_agree(pdireval.prefs_from_qrels(qrels), run, None)


@settings(max_examples=200, deadline=None)
@given(
    case=qrels_jg_cases(),
    max_rank=st.sampled_from([None, 2]),
    judged_only=st.booleans(),
    rel_threshold=st.sampled_from([0, 1, 2]),
)
def test_qrels_jg_fast_path_is_the_reference(case, max_rank, judged_only, rel_threshold) -> None:
    qrels, run = case
    options = {"max_rank": max_rank, "judged_only": judged_only, "rel_threshold": rel_threshold}
    expected = jg_reference(run, qrels, jg_measures(JG_NAMES), **options)
    _same(pdireval.evaluate_qrels_jg(run, qrels, JG_NAMES, **options), expected)


@pytest.mark.parametrize("seed", range(40))
def test_generated_files_agree(seed: int) -> None:
    prefs = prefs_frame(seed)
    run = run_frame(seed, sorted(set(prefs["query"])))
    _prefs_agree(prefs, run, None)
    _prefs_agree(prefs, run, 4)
    qrels = qrels_jg_frame(seed)
    run = run_frame(seed, sorted(set(qrels["query"])))
    _prefs_agree(pdireval.prefs_from_qrels(qrels), run, None)
    for judged_only in (False, True):
        expected = jg_reference(run, qrels, jg_measures(JG_NAMES), judged_only=judged_only)
        fast = pdireval.evaluate_qrels_jg(run, qrels, JG_NAMES, judged_only=judged_only)
        _same(fast, expected)
