"""Every analysis of several runs reads runs, queries and the judge, collection and seed
roles through one mechanism (``pdireval.engine.runs``): the same query policy, the user's
run order, a block per judge and collection, a query's value averaged over the seeds.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable
from typing import Any

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import pdireval
from pdireval.datasets import example, example_qrels, example_run

pytest.importorskip("scipy")

#: Runs renamed so that their sorted order (Beta, Zed, alpha) differs from the order in
#: which they first appear (Zed, alpha, Beta).
NAMES = {"strong": "Zed", "medium": "alpha", "weak": "Beta"}
APPEARANCE = ["Zed", "alpha", "Beta"]


@pytest.fixture(scope="module")
def frame() -> pd.DataFrame:
    df = example()
    return df.assign(run=df["run"].map(NAMES))


def _runs_of(out: Any) -> list:
    if isinstance(out, pd.DataFrame) and "run" in out.columns:
        found = list(dict.fromkeys(out["baseline"].tolist() + out["run"].tolist()))
        if "baseline" in out.columns:  # the order of first appearance over both columns
            order = []
            for run, base in zip(out["run"], out["baseline"], strict=True):
                for name in (base, run):
                    if name not in order:
                        order.append(name)
            return order
        return found
    return list(dict.fromkeys(out.index.get_level_values("run")))


ANALYSES: dict[str, Callable[[pd.DataFrame], Any]] = {
    "compare": lambda f: pdireval.compare(f, "AP"),
    "tukey_hsd": lambda f: pdireval.tukey_hsd(f, "AP", n_resamples=99, seed=1),
    "asl_curve": lambda f: pdireval.asl_curve(f, "AP", n_resamples=99, seed=1).sort_values(
        ["run", "baseline"], key=lambda c: c.map({n: i for i, n in enumerate(APPEARANCE)})
    ),
}


@pytest.mark.parametrize("name", sorted(ANALYSES))
def test_all_pairs_follow_the_users_order_the_earlier_run_the_baseline(frame, name) -> None:
    out = ANALYSES[name](frame)
    pairs = list(zip(out["run"], out["baseline"], strict=True))
    expected = [(b, a) for a, b in itertools.combinations(APPEARANCE, 2)]
    assert pairs == expected
    tables = frame.ireval.evaluate("AP")["AP"]
    for run, base in pairs:  # delta = run - baseline, never the reverse
        if "delta" in out.columns:
            delta = out.loc[(out["run"] == run) & (out["baseline"] == base), "delta"].iloc[0]
            assert delta == pytest.approx(tables[run].mean() - tables[base].mean(), abs=1e-12)


def test_runs_keep_the_users_order_in_every_table(frame) -> None:
    assert pdireval.risk(frame, "AP", baseline="alpha")["run"].tolist() == ["Zed", "Beta"]
    assert pdireval.georisk(frame, "AP").index.tolist() == APPEARANCE
    assert pdireval.per_query(frame, "AP")["value"].columns.tolist() == APPEARANCE
    qrels = example_qrels()
    run = example_run().assign(run=lambda f: f["run"].map(NAMES))
    found = pdireval.judge_conclusions(run, {"a": qrels, "b": qrels}, "AP")
    assert found.scores.index.tolist() == APPEARANCE
    categorical = frame.assign(
        run=pd.Categorical(frame["run"], categories=["Beta", "alpha", "Zed"])
    )
    assert pdireval.risk(categorical, "AP", baseline="Zed")["run"].tolist() == ["Beta", "alpha"]
    assert pdireval.georisk(categorical, "AP").index.tolist() == ["Beta", "alpha", "Zed"]


def _collections(frame: pd.DataFrame) -> pd.DataFrame:
    """Two collections: the example, and the example with the strong run's AP shuffled."""
    other = frame.assign(score=frame["score"].where(frame["run"] != "Zed", -frame["score"]))
    return pd.concat([frame.assign(dataset="c1"), other.assign(dataset="c2")], ignore_index=True)


BLOCKED = {
    "risk": lambda f, **o: pdireval.risk(f, ["AP", "P@10"], baseline="alpha", **o),
    "tukey_hsd": lambda f, **o: pdireval.tukey_hsd(f, "AP", n_resamples=199, seed=3, **o),
    "asl_curve": lambda f, **o: pdireval.asl_curve(f, "AP", n_resamples=99, seed=3, **o),
    "swap_rate": lambda f, **o: pdireval.swap_rate(f, "AP", sizes=[5], n_trials=50, seed=3, **o),
    "ranking_stability": lambda f, **o: pdireval.ranking_stability(
        f, "AP", sizes=[5], n_trials=50, seed=3, **o
    ),
    "compare": lambda f, **o: pdireval.compare(f, "AP", correction=None, **o),
}


@pytest.mark.parametrize("name", sorted(BLOCKED))
def test_a_collection_column_gives_one_block_per_collection(frame, name) -> None:
    """With a collection column each analysis is the analysis of each collection's rows,
    stacked, with the collection as a first column (as compare has it)."""
    both = _collections(frame)
    call = BLOCKED[name]
    out = call(both, columns={"collection": "dataset"})
    assert out.columns[0] == "dataset"
    assert out["dataset"].drop_duplicates().tolist() == ["c1", "c2"]
    for value in ("c1", "c2"):
        alone = call(both[both["dataset"] == value].drop(columns="dataset"))
        mine = out[out["dataset"] == value].drop(columns="dataset").reset_index(drop=True)
        pd.testing.assert_frame_equal(mine, alone, check_dtype=False)


def test_georisk_of_collections_is_indexed_by_collection_then_run(frame) -> None:
    both = _collections(frame)
    out = pdireval.georisk(both, "AP", columns={"collection": "dataset"})
    assert out.index.names == ["dataset", "run"]
    for value in ("c1", "c2"):
        alone = pdireval.georisk(both[both["dataset"] == value].drop(columns="dataset"), "AP")
        pd.testing.assert_frame_equal(out.loc[value], alone)


def test_seeds_are_averaged_per_query(frame) -> None:
    seeds = pd.concat([frame.assign(seed=1), frame.assign(seed=2)], ignore_index=True)
    for name in ("risk", "tukey_hsd", "asl_curve"):
        pd.testing.assert_frame_equal(BLOCKED[name](seeds), BLOCKED[name](frame))


def test_a_figure_of_one_block_refuses_several_in_one_message(frame) -> None:
    pytest.importorskip("matplotlib")
    from pdireval.plotting.science import risk_plot

    both = _collections(frame)
    one = r"has a collection column \('dataset'.*this call evaluates one collection at a time"
    with pytest.raises(pdireval.SchemaError, match=rf"the frame of risk_plot {one}"):
        risk_plot(both, "AP", baseline="alpha", columns={"collection": "dataset"})
    with pytest.raises(pdireval.SchemaError, match=rf"the frame {one}"):  # the same message
        pdireval.pr_curve(both, columns={"collection": "dataset"})


# ---------------------------------------------------------------------- judges' conclusions


def _walk(x: list[float], y: list[float]) -> float:
    """tau_AP from its definition: down x (best first), C(i) = items above i in x that
    y also ranks above i."""
    order = sorted(range(len(x)), key=lambda i: -x[i])
    total = 0.0
    for at in range(1, len(order)):
        i = order[at]
        total += sum(y[j] > y[i] for j in order[:at]) / at
    return 2 * total / (len(x) - 1) - 1


def _ap_runs(reference: list[int], judge: list[int]) -> tuple[pd.DataFrame, dict]:
    """Runs whose AP under a reference judge (doc 'a' relevant) is 1/reference[i] and
    under another judge (doc 'b' relevant) 1/judge[i], on two identical queries."""
    rows = []
    for i, (pa, pb) in enumerate(zip(reference, judge, strict=True)):
        ranking = [f"f{n}" for n in range(8)]
        ranking[pa - 1], ranking[pb - 1] = "a", "b"
        for query in ("q1", "q2"):
            rows += [
                {"run": f"r{i}", "query": query, "doc": doc, "rank": at + 1}
                for at, doc in enumerate(ranking)
            ]
    qrels = {
        "reference": pd.DataFrame({"query": ["q1", "q2"], "doc": ["a", "a"], "rel": [1, 1]}),
        "judge": pd.DataFrame({"query": ["q1", "q2"], "doc": ["b", "b"], "rel": [1, 1]}),
    }
    return pd.DataFrame(rows), qrels


def test_tau_ap_walks_the_judges_order_against_the_reference_as_truth() -> None:
    """Reference AP 1/5 .. 1/1 (r4 best); the judge puts r1 first, then r0, r2, r3, r4."""
    run, qrels = _ap_runs([5, 4, 3, 2, 1], [2, 1, 4, 5, 6])
    found = pdireval.judge_conclusions(run, qrels, "AP", test="sign")
    row = found.agreement.iloc[0]
    theirs, ours = found.scores["judge"]["AP"], found.scores["reference"]["AP"]
    assert row["tau_ap"] == pytest.approx(_walk(list(theirs), list(ours)))
    assert row["tau_ap"] == pytest.approx(-0.5)  # not -0.875, the worst run on top
    assert row["tau_ap_b"] == pytest.approx(pdireval.tau_ap_b(theirs, ours, descending=True))


def test_ties_between_runs_leave_tau_ap_undefined_and_tau_ap_b_defined() -> None:
    pytest.importorskip("matplotlib")
    from pdireval.plotting.science import judges_scatter

    run, qrels = _ap_runs([5, 4, 3, 2, 1], [2, 2, 4, 5, 6])  # r0 and r1 tie under the judge
    found = pdireval.judge_conclusions(run, qrels, "AP", test="sign")
    row = found.agreement.iloc[0]
    assert np.isnan(row["tau_ap"])
    assert -1 <= row["tau_ap_b"] <= 1
    assert judges_scatter(found, "AP") is not None


def _brute_tau_ap_b(x: list[float], y: list[float]) -> float:
    """Urbano & Marrero's tau_AP,b from its definition (smaller = better)."""

    def walked(w: list[float], o: list[float]) -> float:
        n = len(w)
        p = [1 + sum(w[j] < w[i] for j in range(n)) for i in range(n)]
        below = [i for i in range(n) if p[i] > 1]
        if not below:
            return float("nan")
        s = sum(sum(w[j] < w[i] and o[j] < o[i] for j in range(n)) / (p[i] - 1) for i in below)
        return 2 * s / len(below) - 1

    return (walked(x, y) + walked(y, x)) / 2


@given(st.lists(st.tuples(st.integers(0, 4), st.integers(0, 4)), min_size=2, max_size=9))
@settings(max_examples=150, deadline=None)
def test_tau_ap_b_is_its_definition(pairs: list[tuple[int, int]]) -> None:
    x, y = [float(a) for a, _ in pairs], [float(b) for _, b in pairs]
    expected = _brute_tau_ap_b(x, y)
    found = pdireval.tau_ap_b(x, y)
    assert (np.isnan(expected) and np.isnan(found)) or found == pytest.approx(expected, abs=1e-12)
    if len(set(x)) == len(x) and len(set(y)) == len(y):  # no ties: tau_ap both ways, averaged
        both = (pdireval.tau_ap(x, y) + pdireval.tau_ap(y, x)) / 2
        assert found == pytest.approx(both, abs=1e-12)


# ---------------------------------------------------------------------- holes and ignore_self


@given(
    st.lists(st.sampled_from(["q1", "a", "b", "c", "d"]), min_size=1, max_size=5, unique=True),
    st.lists(st.sampled_from([None, 0, 1, 2]), min_size=5, max_size=5),
    st.integers(1, 5),
)
@settings(max_examples=80, deadline=None)
def test_bounds_with_ignore_self_never_fill_the_self_document(
    ranking: list[str], labels: list, k: int
) -> None:
    """The self document leaves the ranking: it is no hole, whatever its label, and the
    fills equal the frame filled by hand and evaluated with ignore_self=True."""
    run = pd.DataFrame({"query": "q1", "doc": ranking, "rank": range(1, len(ranking) + 1)})
    judged = [
        (doc, label) for doc, label in zip(ranking, labels, strict=False) if label is not None
    ]
    if not judged:
        judged.append((ranking[-1], 0))  # run and qrels share a document
    if not any(label for _, label in judged):
        judged.append(("z", 1))  # a relevant document nobody retrieved
    qrels = pd.DataFrame(
        {"query": "q1", "doc": [d for d, _ in judged], "rel": [lab for _, lab in judged]}
    )
    found = pdireval.bounds(run, ["AP", "P@3"], k=k, qrels=qrels, ignore_self=True)
    others = [doc for doc in ranking if doc != "q1"]
    holes = [doc for doc in others[:k] if doc not in set(qrels["doc"])]
    assert pdireval.holes(run, k=k, qrels=qrels, ignore_self=True)["doc"].tolist() == holes
    for fill, value in (("holes_nonrelevant", 0), ("holes_relevant", 2)):
        filled = pd.concat([qrels, pd.DataFrame({"query": "q1", "doc": holes, "rel": value})])
        expected = pdireval.evaluate(run, ["AP", "P@3"], qrels=filled, ignore_self=True)
        for metric in ("AP", "P@3"):
            got = found.per_query[(metric, fill)].iloc[0]
            assert got == pytest.approx(expected[metric].iloc[0], abs=1e-12)
