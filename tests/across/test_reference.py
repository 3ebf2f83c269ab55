"""The preparation's fast steps agree with their plain reference on generated inputs.

Each fast step (``pdireval._prepare.algorithms``) chooses among routes by the size and
shape of its input -- ids in blocks or scattered, judged rows counted or ordered, runs
of ties scanned or bisected, keys that collide. The thresholds are drawn here, so that
small generated inputs take every route, and every id dtype is tried (pandas' ``str``,
Python strings in ``object`` and in Python-backed storage, categorical, integers,
nullable integers). The reference (``pdireval._prepare.reference``) is the oracle.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Iterator

import numpy as np
import pandas as pd
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st
from strategies import long_frames

import pdireval
from pdireval._core.roles import ColumnMap
from pdireval._prepare import algorithms, arrays, groups, keys, ordering, reference
from pdireval._prepare.ordering import TieBreak
from pdireval._prepare.pairs import IdPairs, match_pairs, sorted_pair_keys

ID_DTYPES = ("str", "object", "python", "category", "int64", "Int64")
#: Strings whose byte order differs from a naive reading ("d10" < "d9"), and the empty
#: string, a NUL character (pandas 2 hashes Python strings only up to one) and non-ASCII.
TEXT_IDS = ("d1", "d9", "d10", "D1", "", "a\x00", "a", "é", "ü-2", "x y")


def _as(values: list, dtype: str) -> pd.Series:
    """Ids as one of the dtypes users hold (integer dtypes: numbered in first-seen order)."""
    if dtype in ("int64", "Int64"):
        numbers = pd.factorize(pd.Series(values, dtype=object))[0] * 7 - 5
        return pd.Series(numbers, dtype=dtype)
    if dtype == "python":
        return pd.Series(values, dtype=pd.StringDtype("python"))
    if dtype == "category":
        return pd.Series(values, dtype="str").astype("category")
    return pd.Series(values, dtype=dtype)


@contextlib.contextmanager
def _routes(data: st.DataObject) -> Iterator[None]:
    """Thresholds drawn so that small inputs take the routes of large ones."""
    choices = {
        (arrays, "_PROBE"): [arrays._PROBE, 2],
        (groups, "_BLOCKS_FROM_ROWS"): [groups._BLOCKS_FROM_ROWS, 0],
        (groups, "_ARROW_INTEGERS_FROM_ROWS"): [groups._ARROW_INTEGERS_FROM_ROWS, 0],
        (groups, "_WINDOW"): [groups._WINDOW, 3],
        (groups, "_FEW_ROWS"): [groups._FEW_ROWS, 0],
        (keys, "_MAX_TABLE_BITS"): [keys._MAX_TABLE_BITS, 1],
        (keys, "_SHORT_WORDS"): [keys._SHORT_WORDS, 0],  # every id hashed as a long one
        (keys, "_WORD_MAJOR_ROWS"): [keys._WORD_MAJOR_ROWS, 1],
        (keys, "_LONG_STEP"): [keys._LONG_STEP, 1, 3],
        (keys, "_PAIR_MIX"): [keys._PAIR_MIX, np.uint64(0)],  # pair keys ignore the query
        (ordering, "_COUNTING_PASSES"): [ordering._COUNTING_PASSES, 0, 10**9],
        (ordering, "_ORDERED_ROWS"): [ordering._ORDERED_ROWS, 0],
        (ordering, "_SCANNED_ROWS"): [ordering._SCANNED_ROWS, 0],
        (ordering, "_COARSE_BITS"): [ordering._COARSE_BITS, 60],
    }
    with pytest.MonkeyPatch.context() as monkeypatch:
        for (module, name), values in choices.items():
            monkeypatch.setattr(module, name, data.draw(st.sampled_from(values), label=name))
        yield


def _blocks_or_scattered(data: st.DataObject, values: list) -> list:
    if data.draw(st.booleans(), label="in blocks"):
        return sorted(values, key=lambda value: (len(value), value))
    return values


# ---------------------------------------------------------------------------- groups


@settings(max_examples=200, deadline=None)
@given(
    st.lists(st.sampled_from(TEXT_IDS), min_size=0, max_size=40),
    st.sampled_from(ID_DTYPES),
    st.booleans(),
    st.data(),
)
def test_group_codes_agree(query_ids: list, dtype: str, with_runs: bool, data) -> None:
    query_ids = _blocks_or_scattered(data, query_ids)
    frame = {"query": _as(query_ids, dtype)}
    columns = ColumnMap().resolve(pd.DataFrame({"query": [], "doc": []}))
    if with_runs:
        runs = data.draw(st.lists(st.sampled_from(["b", "a"]), min_size=len(query_ids)))
        frame["run"] = _as(runs[: len(query_ids)], "str")
        columns = ColumnMap(run="run").resolve(pd.DataFrame({"query": [], "doc": [], "run": []}))
    with _routes(data):
        codes, index = groups.group_codes(frame, columns)
    expected_codes, expected_index = reference.group_codes(frame, columns)
    np.testing.assert_array_equal(codes, expected_codes)
    pd.testing.assert_index_equal(index, expected_index, exact=True)


@settings(max_examples=200, deadline=None)
@given(
    st.lists(st.tuples(st.integers(0, 3), st.sampled_from(TEXT_IDS)), max_size=50),
    st.sampled_from(ID_DTYPES),
    st.data(),
)
def test_repeated_rows_agree(rows: list, dtype: str, data) -> None:
    if data.draw(st.booleans(), label="groups in blocks"):
        rows = sorted(rows, key=lambda row: row[0])
    group = np.array([g for g, _ in rows], dtype=np.int32)
    docs = _as([doc for _, doc in rows], dtype)
    with _routes(data):
        found = groups.repeated_rows(group, docs)
    np.testing.assert_array_equal(found, reference.repeated_rows(group, docs))


# ---------------------------------------------------------------------------- pairs


@settings(max_examples=200, deadline=None)
@given(
    st.lists(st.tuples(st.sampled_from(TEXT_IDS[:5]), st.sampled_from(TEXT_IDS)), max_size=40),
    st.lists(
        st.tuples(st.sampled_from(TEXT_IDS[:5]), st.sampled_from(TEXT_IDS)),
        max_size=20,
        unique=True,
    ),
    st.sampled_from(ID_DTYPES),
    st.sampled_from(ID_DTYPES),
    st.data(),
)
def test_match_pairs_agree(run_rows: list, judged: list, run_dtype: str, qrels_dtype: str, data):
    if (run_dtype in ("int64", "Int64")) != (qrels_dtype in ("int64", "Int64")):
        qrels_dtype = run_dtype  # numbers never match strings: refused before matching
    every = pd.Series([*run_rows, *judged], dtype=object)  # the same numbers on both sides
    codes = pd.factorize(every)[0]
    if run_dtype in ("int64", "Int64"):
        run_rows = [(q, str(c)) for (q, _), c in zip(run_rows, codes, strict=False)]
        judged = [(q, str(c)) for (q, _), c in zip(judged, codes[len(run_rows) :], strict=False)]
    run = IdPairs(
        _as([q for q, _ in run_rows], run_dtype), _as([d for _, d in run_rows], run_dtype)
    )
    query, doc = _as([q for q, _ in judged], qrels_dtype), _as([d for _, d in judged], qrels_dtype)
    # pandas 2.2 makes "a\x00" and "a" one category: the judgments would then repeat a pair,
    # which the duplicate check refuses long before pairs are matched
    assume(len(set(zip(query.astype(object), doc.astype(object), strict=True))) == len(judged))
    convert = (run.query.dtype != query.dtype, run.doc.dtype != doc.dtype)
    with _routes(data):
        doc_keys = keys.id_keys(doc)
        qrels = IdPairs(query, doc, doc_keys, sorted_pair_keys(query, doc, doc_keys))
        run_keys = None if run_dtype == "category" else keys.id_keys(run.doc)
        found = match_pairs(IdPairs(run.query, run.doc, run_keys), qrels, convert)
    expected = reference.match_pairs(run, qrels, convert)
    np.testing.assert_array_equal(found[0], expected[0])
    np.testing.assert_array_equal(found[1], expected[1])


# ---------------------------------------------------------------------------- positions

#: Scores with many ties, and some that differ only in their last bits.
SCORES = [0.0, -0.0, 0.5, 1.0, 1.0 + 2**-40, 1.0 + 2**-44, 2.5, -3.0, 1e300]


@st.composite
def rankings(draw: st.DrawFn) -> dict:
    """Groups of retrieved rows, in rank order or shuffled; scores with ties or ranks."""
    n_groups = draw(st.integers(1, 5))
    sizes = draw(st.lists(st.integers(0, 12), min_size=n_groups, max_size=n_groups))
    group = np.repeat(np.arange(n_groups), sizes)
    n = len(group)
    by_rank = draw(st.booleans())
    if by_rank:
        key = np.concatenate([np.random.default_rng(s).permutation(s) + 1 for s in sizes])
        key = key.astype(np.float64)
        if n and draw(st.booleans()):  # a repeated rank
            key[draw(st.integers(0, n - 1))] = key[draw(st.integers(0, n - 1))]
    else:
        key = np.array(draw(st.lists(st.sampled_from(SCORES), min_size=n, max_size=n)))
    order = np.arange(n)
    if draw(st.booleans()):  # rows in rank order: each group contiguous, best first
        order = np.lexsort((key if by_rank else -key, group))
    else:
        order = np.array(draw(st.permutations(range(n))), dtype=np.int64)
    labels = draw(st.lists(st.sampled_from([np.nan, -1.0, 0.0, 1.0, 2.0]), min_size=n))
    judged = draw(st.lists(st.booleans(), min_size=n, max_size=n))
    return {
        "group": group[order].astype(np.int32),
        "key": key[order],
        "by_rank": by_rank,
        "docs": [draw(st.sampled_from(TEXT_IDS)) for _ in range(n)],
        "label": np.array(labels[:n], dtype=np.float64),
        "judged": np.flatnonzero(judged),
        "n_groups": n_groups,
    }


@settings(max_examples=300, deadline=None)
@given(
    rankings(),
    st.sampled_from(ID_DTYPES),
    st.sampled_from(["trec", "optimistic", "pessimistic", "average"]),
    st.data(),
)
def test_judged_positions_agree(case: dict, dtype: str, policy: str, data) -> None:
    docs = _as(case["docs"], dtype)
    ties = TieBreak(
        doc_ids=lambda rows: arrays.take(docs, rows), label=case["label"], policy=policy
    )
    descending = not case["by_rank"] and data.draw(st.booleans(), label="scores as given")
    key = -case["key"] if descending else case["key"]
    arguments = (case["group"], key, case["judged"], case["n_groups"])
    options = {"by_rank": case["by_rank"], "ties": ties, "descending": descending}
    with _routes(data):
        found = ordering.judged_positions(*arguments, **options)
    expected = reference.judged_positions(*arguments, **options)
    np.testing.assert_array_equal(found.num_ret, expected.num_ret)
    np.testing.assert_array_equal(found.repeated, expected.repeated)
    if not len(expected.repeated):  # equal ranks have no order of their own
        np.testing.assert_array_equal(found.position, expected.position)
        np.testing.assert_array_equal(found.tie_first, expected.tie_first)
        np.testing.assert_array_equal(found.tie_size, expected.tie_size)


# ---------------------------------------------------------------------------- end to end

METRICS = ["AP", "nDCG@5", "P@3", "RR", "NumRet", "Rprec", "Bpref"]
#: The measures with an expected value over the orders of tied scores (ties="average").
AVERAGED = ["AP", "nDCG@5", "P@3", "RR", "R@5"]


@contextlib.contextmanager
def _through_the_reference() -> Iterator[None]:
    with pytest.MonkeyPatch.context() as monkeypatch:
        for step in algorithms.STEPS:
            monkeypatch.setattr(algorithms, step, getattr(reference, step))
        yield


def _outcome(call) -> pd.DataFrame | str:
    try:
        return call()
    except pdireval.SchemaError as error:
        return f"refused: {error}"


@settings(max_examples=100, deadline=None)
@given(
    long_frames(),
    st.sampled_from(ID_DTYPES[:4]),
    st.sampled_from(["trec", "optimistic", "pessimistic", "average"]),
    st.data(),
)
def test_evaluate_agrees_with_the_reference_preparation(frame, dtype, ties, data) -> None:
    frame = frame.astype({"query": "str", "doc": "str"})
    if dtype != "str":
        frame = frame.assign(query=_as(frame["query"].tolist(), dtype))
        frame = frame.assign(doc=_as(frame["doc"].tolist(), dtype))
    options = {"ties": ties, "queries": "all"}
    metrics = AVERAGED if ties == "average" else METRICS
    with _routes(data):
        found = _outcome(lambda: pdireval.evaluate(frame, metrics, **options))
    with _through_the_reference():
        expected = _outcome(lambda: pdireval.evaluate(frame, metrics, **options))
    if isinstance(expected, str):
        assert found == expected
    else:
        pd.testing.assert_frame_equal(found, expected)


@settings(max_examples=100, deadline=None)
@given(long_frames(), st.sampled_from(ID_DTYPES[:4]), st.sampled_from(ID_DTYPES[:4]), st.data())
def test_merging_with_qrels_agrees_with_the_reference(frame, run_dtype, qrels_dtype, data) -> None:
    frame = frame.astype({"query": "str", "doc": "str"})
    judged = frame[frame["rel"].notna()]
    qrels = judged[["query", "doc", "rel"]].drop_duplicates(["query", "doc"])
    run = frame[frame.filter(["rank", "score"]).notna().any(axis=1)].drop(columns="rel")
    run = run.assign(query=_as(run["query"].tolist(), run_dtype))
    run = run.assign(doc=_as(run["doc"].tolist(), run_dtype))
    qrels = qrels.assign(query=_as(qrels["query"].tolist(), qrels_dtype))
    qrels = qrels.assign(doc=_as(qrels["doc"].tolist(), qrels_dtype))

    def both() -> tuple:
        merged = _outcome(lambda: pdireval.merge_qrels(run, qrels))
        direct = _outcome(lambda: pdireval.evaluate(run, METRICS, qrels=qrels, queries="all"))
        return merged, direct

    with _routes(data):
        found = both()
    with _through_the_reference():
        expected = both()
    for one, other in zip(found, expected, strict=True):
        if isinstance(other, str):
            assert one == other
        else:
            pd.testing.assert_frame_equal(one, other)


def test_the_suite_runs_through_the_preparation_it_names() -> None:
    """``PDIREVAL_PREPARATION=reference`` (CI runs the suite once so) swaps every step."""
    through = os.environ.get("PDIREVAL_PREPARATION", "fast")
    fast = {"group_codes": groups, "repeated_rows": groups, "judged_positions": ordering}
    for step in algorithms.STEPS:
        used = getattr(algorithms, step)
        if through == "reference":
            assert used is getattr(reference, step)
        else:
            module = fast.get(step)
            assert used is (match_pairs if module is None else getattr(module, step))


@given(
    n_runs=st.integers(0, 4),
    n_queries=st.sampled_from([1, 5, 3_000_000]),
    rows=st.integers(0, 300),
    seed=st.integers(0, 2**32 - 1),
)
@settings(max_examples=60, deadline=None)
def test_pair_codes_rank_the_pairs_that_occur(n_runs, n_queries, rows, seed) -> None:
    """Every way of numbering the (run, query) pairs -- one run, a table of every pair,
    a sorted factorize of 64-bit pairs for sparse ones -- is a sorted factorize."""
    from pdireval._prepare.groups import _pair_codes

    rng = np.random.default_rng(seed)
    rows = rows if n_runs else 0
    run_codes = rng.integers(0, max(n_runs, 1), rows).astype(np.int32)
    query_codes = rng.integers(0, n_queries, rows).astype(np.int32)
    codes, pairs = _pair_codes(run_codes, query_codes, n_runs, n_queries)
    expected_codes, expected_pairs = pd.factorize(
        run_codes.astype(np.int64) * n_queries + query_codes, sort=True
    )
    assert codes.tolist() == expected_codes.tolist()
    assert np.asarray(pairs).tolist() == np.asarray(expected_pairs).tolist()
