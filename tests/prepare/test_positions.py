"""Positions of judged documents in shuffled rows: counted per query or found by ordering.

Rows out of rank order take one of three routes: few judged documents per query are
counted against every row of their query, many are found in one ordering of all rows,
or in a sort of their packed keys when there are millions of rows. All must give the
same positions, ties and repeated ranks; the counts must match a
count done by hand.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pdireval._prepare import ordering as positions
from pdireval._prepare import sorting
from pdireval._prepare.ordering import Positions, TieBreak, judged_positions

#: Scores with many ties, and some that differ only in their last bits (told apart by
#: counting, equal in the keys the ordering route sorts on, then ordered exactly).
CLOSE_AND_EQUAL_SCORES = [0.0, -0.0, 0.5, 1.0, 1.0 + 2**-40, 1.0 + 2**-44, 2.5, -3.0, 1e300]


@st.composite
def shuffled_rankings(draw: st.DrawFn) -> dict:
    """Groups of rows in any order, scores with many ties, some rows judged."""
    n_groups = draw(st.integers(1, 6))
    sizes = draw(st.lists(st.integers(1, 12), min_size=n_groups, max_size=n_groups))
    group = np.repeat(np.arange(n_groups), sizes)
    n = len(group)
    score = np.array(
        draw(st.lists(st.sampled_from(CLOSE_AND_EQUAL_SCORES), min_size=n, max_size=n))
    )
    rank = np.concatenate([np.random.default_rng(size).permutation(size) + 1 for size in sizes])
    judged = np.flatnonzero(np.array(draw(st.lists(st.booleans(), min_size=n, max_size=n))))
    order = np.array(draw(st.permutations(range(n))))
    docs = np.array([f"d{draw(st.integers(0, 30))}" for _ in range(n)], dtype=object)
    inverse = np.empty(n, dtype=np.int64)
    inverse[order] = np.arange(n)
    return {
        "group": group[order],
        "score": score[order],
        "rank": rank[order].astype(np.float64),
        "judged": np.sort(inverse[judged]),
        "docs": docs[order],
        "n_groups": n_groups,
    }


def _three_routes(
    monkeypatch: pytest.MonkeyPatch, case: dict, by_rank: bool, descending: bool = False
) -> list:
    """Positions counted, found by ordering every row, and found by a sort (the route of
    millions of deeply judged rows); scores as an ascending key, or as given."""
    key = case["rank"] if by_rank else case["score"] if descending else -case["score"]
    docs = case["docs"]
    ties = TieBreak(doc_ids=lambda rows: pd.Series(docs[rows]))
    found = []
    for passes, ordered_rows in ((10**9, 1 << 21), (-1, 1 << 21), (-1, 0)):
        monkeypatch.setattr(positions, "_COUNTING_PASSES", passes)
        monkeypatch.setattr(positions, "_ORDERED_ROWS", ordered_rows)
        found.append(
            judged_positions(
                case["group"],
                key,
                case["judged"],
                case["n_groups"],
                by_rank=by_rank,
                ties=ties,
                descending=descending,
            )
        )
    return found


@settings(max_examples=300, deadline=None)
@given(shuffled_rankings(), st.booleans())
def test_counting_ordering_and_sorting_give_the_same_positions(case: dict, by_rank: bool) -> None:
    with pytest.MonkeyPatch.context() as monkeypatch:
        counted, ordered, sorted_ = _three_routes(monkeypatch, case, by_rank)
    for mine, theirs, sorts in zip(counted, ordered, sorted_, strict=True):
        np.testing.assert_array_equal(mine, theirs)
        np.testing.assert_array_equal(mine, sorts)


@settings(max_examples=200, deadline=None)
@given(shuffled_rankings())
def test_scores_as_given_rank_like_their_negation_by_every_route(case: dict) -> None:
    """A descending score (read negated, a block or a run of ties at a time) gives the
    positions of the ascending key minus the score."""
    with pytest.MonkeyPatch.context() as monkeypatch:
        negated = _three_routes(monkeypatch, case, by_rank=False)
        as_given = _three_routes(monkeypatch, case, by_rank=False, descending=True)
    for mine, theirs in zip(negated, as_given, strict=True):
        for field in Positions._fields:
            np.testing.assert_array_equal(getattr(mine, field), getattr(theirs, field))


@settings(max_examples=200, deadline=None)
@given(shuffled_rankings(), st.sampled_from([1, 10_000]))
def test_repeated_ranks_are_found_by_every_route(case: dict, spacing: int) -> None:
    """Ranks repeated inside a query, as a careless run file has them; ranks far apart
    are checked by hashing rather than in a table of every possible rank."""
    case["rank"] = np.minimum(case["rank"], 3) * spacing
    with pytest.MonkeyPatch.context() as monkeypatch:
        counted, ordered, sorted_ = _three_routes(monkeypatch, case, by_rank=True)
    pairs = list(zip(case["group"].tolist(), case["rank"].tolist(), strict=True))
    expected = [row for row, pair in enumerate(pairs) if pairs.count(pair) > 1]
    np.testing.assert_array_equal(counted.repeated, expected)
    np.testing.assert_array_equal(ordered.repeated, expected)
    np.testing.assert_array_equal(sorted_.repeated, expected)


@settings(max_examples=200, deadline=None)
@given(
    st.lists(st.tuples(st.integers(0, 3), st.integers(0, 5)), min_size=1, max_size=40),
    st.data(),
)
def test_counts_before_each_judged_key_match_a_count_by_hand(
    rows: list, data: st.DataObject
) -> None:
    group = np.array([g for g, _ in rows])
    packed = np.array([(g << 60) | value for g, value in rows], dtype=np.uint64)
    judged = np.array(
        data.draw(st.lists(st.integers(0, len(rows) - 1), max_size=8)), dtype=np.int64
    )
    num_ret = np.bincount(group, minlength=4).astype(np.float64)
    with pytest.MonkeyPatch.context() as monkeypatch:
        monkeypatch.setattr(positions, "_COUNTING_PASSES", 10**9)
        counted = positions._counted_before(packed, group, packed[judged], group[judged], num_ret)
    assert counted is not None
    before, through = counted
    for at, row in enumerate(judged.tolist()):
        same = group == group[row]
        assert before[at] == np.count_nonzero(same & (packed < packed[row]))
        assert through[at] == np.count_nonzero(same & (packed <= packed[row]))


def test_deeply_judged_queries_are_ordered_rather_than_counted() -> None:
    """A query with every document judged would take one pass per judged document."""
    group = np.zeros(100, dtype=np.int64)
    packed = np.arange(100, dtype=np.uint64)[::-1].copy()
    num_ret = np.array([100.0])
    assert positions._counted_before(packed, group, packed, group, num_ret) is None
    few = positions._counted_before(packed, group, packed[:2], group[:2], num_ret)
    assert few is not None
    np.testing.assert_array_equal(few[0], [99, 98])


@settings(max_examples=200, deadline=None)
@given(st.lists(st.integers(0, 2**64 - 1), max_size=200), st.lists(st.integers(0, 200), max_size=5))
def test_repeat_check_through_rounds_matches_a_set(values: list, repeats: list) -> None:
    """Many keys go through rounds of larger tables before the last, sorted, step."""
    keys = np.array(values + [values[i % len(values)] for i in repeats if values], np.uint64)
    expected = len(set(keys.tolist())) < len(keys)
    with pytest.MonkeyPatch.context() as monkeypatch:
        monkeypatch.setattr(sorting, "_LARGEST_SLOTTED", 4)
        assert sorting.has_repeat(keys) is expected


@settings(max_examples=200, deadline=None)
@given(
    st.lists(st.tuples(st.integers(0, 3), st.integers(0, 4)), min_size=1, max_size=40),
    st.data(),
)
def test_rows_holding_sought_keys_by_both_routes(rows: list, data: st.DataObject) -> None:
    """Rank 0 in the first group packs to key 0, what groups without a sought key compare to."""
    group = np.array([g for g, _ in rows])
    rank = np.array([value for _, value in rows], dtype=np.float64)
    packed = positions._packed_keys(group, rank, 4, by_rank=True)
    values = np.unique(data.draw(st.lists(st.sampled_from(packed.tolist()), min_size=1)))
    values = values.astype(np.uint64)
    expected = [row for row, value in enumerate(packed.tolist()) if value in values.tolist()]
    for passes in (10**9, -1):
        with pytest.MonkeyPatch.context() as monkeypatch:
            monkeypatch.setattr(positions, "_COUNTING_PASSES", passes)
            found, which = positions._rows_with(group, rank, True, values, 4)
        np.testing.assert_array_equal(found, expected)
        np.testing.assert_array_equal(values[which], packed[expected])


def test_a_group_without_a_sought_key_at_some_depth_holds_no_hit() -> None:
    """The second group has two sought keys, the first one: at the second depth the
    first group's row packed to 0 must not be taken for a hit."""
    group = np.array([0, 0, 1, 1])
    rank = np.array([0.0, 1.0, 1.0, 2.0])
    packed = positions._packed_keys(group, rank, 4, by_rank=True)
    with pytest.MonkeyPatch.context() as monkeypatch:
        monkeypatch.setattr(positions, "_COUNTING_PASSES", 10**9)
        found, which = positions._rows_with(group, rank, True, packed[1:], 4)
    np.testing.assert_array_equal(found, [1, 2, 3])
    np.testing.assert_array_equal(which, [0, 1, 2])


def test_scores_differing_in_their_last_bits_keep_their_order_by_every_route() -> None:
    rng = np.random.default_rng(7)
    score = rng.choice(CLOSE_AND_EQUAL_SCORES[3:6], size=60)
    group = np.repeat([0, 1], 30)
    docs = np.array([f"d{row:02d}" for row in range(60)], dtype=object)
    order = rng.permutation(60)
    case = {
        "group": group[order],
        "score": score[order],
        "rank": np.zeros(60),
        "judged": np.arange(60),
        "docs": docs[order],
        "n_groups": 2,
    }
    with pytest.MonkeyPatch.context() as monkeypatch:
        counted, ordered, sorted_ = _three_routes(monkeypatch, case, by_rank=False)
    same_group = case["group"][:, None] == case["group"][None, :]
    higher = case["score"][None, :] > case["score"][:, None]
    tied_before = (case["score"][None, :] == case["score"][:, None]) & (
        case["docs"][None, :] > case["docs"][:, None]  # trec_eval: doc id descending
    )
    by_hand = 1 + np.count_nonzero(same_group & (higher | tied_before), axis=1)
    for found in (counted, ordered, sorted_):
        np.testing.assert_array_equal(found.position, by_hand)


@settings(max_examples=200, deadline=None)
@given(shuffled_rankings(), st.sampled_from([40, 60]))
def test_scores_coarsened_to_their_top_bits_still_rank_exactly(case: dict, dropped: int) -> None:
    """The ordering route drops a score's low bits to fit the row number beside it:
    scores made equal are ranked exactly afterwards, as ties are."""
    with pytest.MonkeyPatch.context() as monkeypatch:
        monkeypatch.setattr(positions, "_COARSE_BITS", dropped)
        monkeypatch.setattr(positions, "_KEPT_SCORE_BITS", 0)
        counted, ordered, _ = _three_routes(monkeypatch, case, by_rank=False)
    for mine, theirs in zip(counted, ordered, strict=True):
        np.testing.assert_array_equal(mine, theirs)


@settings(max_examples=200, deadline=None)
@given(shuffled_rankings())
def test_rows_in_rank_order_give_what_shuffled_rows_give(case: dict) -> None:
    """Runs of equal scores in rank order are found by a scan of every row (small inputs)
    or by a bisection inside each query's rows; both agree with the shuffled rows."""
    key = -case["score"]
    docs = np.array([f"d{row}" for row in range(len(key))], dtype=object)  # no repeats
    order = np.lexsort((key, case["group"]))  # each query contiguous, best score first
    where = np.empty(len(order), dtype=np.int64)
    where[order] = np.arange(len(order))
    judged = np.sort(where[case["judged"]])
    shuffled = judged_positions(
        case["group"],
        key,
        case["judged"],
        case["n_groups"],
        by_rank=False,
        ties=TieBreak(doc_ids=lambda rows: pd.Series(docs[rows])),
    )
    back = np.argsort(order[judged])  # the ordered frame's judged rows, in original order
    for scanned_rows in (1 << 14, 0):
        with pytest.MonkeyPatch.context() as monkeypatch:
            monkeypatch.setattr(positions, "_SCANNED_ROWS", scanned_rows)
            found = judged_positions(
                case["group"][order],
                key[order],
                judged,
                case["n_groups"],
                by_rank=False,
                ties=TieBreak(doc_ids=lambda rows: pd.Series(docs[order][rows])),
            )
        np.testing.assert_array_equal(found.num_ret, shuffled.num_ret)
        for field in ("position", "tie_first", "tie_size"):
            np.testing.assert_array_equal(getattr(found, field)[back], getattr(shuffled, field))
