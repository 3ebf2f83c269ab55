"""Metrics of your own, diversity frames, large cutoffs and the command line's runs:
each either gives the right number or refuses with a clear error.
"""

from __future__ import annotations

import subprocess
import sys

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import pdireval
from pdireval import MetricError
from pdireval.metrics import REGISTRY, Ranked, define, define_per_query
from pdireval.metrics._parse import _names, _suffix_names

pyndeval = pytest.importorskip("pyndeval")


def _frame() -> pd.DataFrame:
    return pd.DataFrame(
        {
            "query": ["q1"] * 4 + ["q2"] * 3,
            "doc": ["a", "b", "c", "d", "a", "e", "f"],
            "rank": [1, 2, 3, 4, 1, 2, None],
            "rel": [1, 0, 2, None, 0, 1, 1],
        }
    )


@pytest.fixture
def registry():
    """Metrics declared by a test are forgotten after it."""
    before = dict(REGISTRY)
    yield
    for name in set(REGISTRY) - set(before):
        del REGISTRY[name]


# ---------------------------------------------------------------------------- names


def _built_in_spellings() -> list[str]:
    spellings = [name for name, (family, _) in _names().items() if not _yours(family)]
    spellings += [f"{stem}_5" for stem, family in _suffix_names().items() if not _yours(family)]
    return [s for s in spellings if s.replace("_", "a").replace(".", "a").isalnum()]


def _yours(family: object) -> bool:
    return bool(getattr(family, "user_defined", False))


@settings(
    max_examples=200, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(st.data())
def test_no_built_in_spelling_can_be_declared_again(registry, data) -> None:
    """Nothing is declared: each refused declaration leaves the registry as it was."""
    spelling = data.draw(st.sampled_from(_built_in_spellings()))
    cased = "".join(data.draw(st.sampled_from([c.lower(), c.upper()])) for c in spelling)
    if not cased[0].isalpha():
        return
    before = pdireval.evaluate(_frame(), ["AP", "P@2", "nDCG@3"])
    name, aliases = ("Mine", (cased,)) if data.draw(st.booleans()) else (cased, ())
    with pytest.raises(MetricError, match="already names the built-in metric"):
        define(name, lambda ranked, *, k, rel: ranked.num_ret, aliases=aliases)
    assert "Mine" not in REGISTRY
    pd.testing.assert_frame_equal(pdireval.evaluate(_frame(), ["AP", "P@2", "nDCG@3"]), before)


@pytest.mark.parametrize("name", ["ap", "MAP", "nDCG", "P_5", "recip_rank", "ndcg_cut", "Rprec"])
def test_the_reported_names_are_refused(registry, name: str) -> None:
    with pytest.raises(MetricError, match="built-in metric"):
        define(name, lambda ranked, *, k, rel: ranked.num_ret)
    with pytest.raises(MetricError, match="built-in metric"):
        define_per_query(name, lambda ranking, judgments, *, rel: 0.0)


def test_your_own_name_is_yours_to_replace(registry) -> None:
    define("Twice", lambda ranked, *, k, rel: ranked.num_ret)
    with pytest.raises(MetricError, match="already names your metric Twice"):
        define("twice", lambda ranked, *, k, rel: ranked.num_ret)
    with pytest.raises(MetricError, match="replace=True"):
        define("Twice", lambda ranked, *, k, rel: ranked.num_ret)
    define("Twice", lambda ranked, *, k, rel: 2 * ranked.num_ret, replace=True)
    assert pdireval.evaluate(_frame(), "Twice")["Twice"].tolist() == [8.0, 4.0]


def test_the_command_line_cannot_replace_a_measure(tmp_path) -> None:
    module = tmp_path / "mine.py"
    module.write_text(
        "from pdireval.metrics import define\n"
        "define('AP', lambda ranked, *, k, rel: ranked.num_ret)\n"
    )
    qrels, run = tmp_path / "qrels", tmp_path / "run"
    qrels.write_text("q1 0 d1 1\n")
    run.write_text("q1 Q0 d1 1 1.0 r\n")
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "pdireval",
            "--load",
            str(module),
            "-m",
            "map",
            str(qrels),
            str(run),
        ],
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode != 0
    assert "already names the built-in metric AP" in done.stderr


# ---------------------------------------------------------------------------- kernels


@pytest.mark.parametrize(
    ("kernel", "problem"),
    [
        (lambda ranked, *, k, rel: 0.5, "returned float"),
        (lambda ranked, *, k, rel: np.float64(0.5), "returned float64"),
        (lambda ranked, *, k, rel: np.array([0.5]), r"shape \(1,\)"),
        (lambda ranked, *, k, rel: np.zeros((2, 2)), r"shape \(2, 2\)"),
        (lambda ranked, *, k, rel: None, "returned NoneType"),
        (lambda ranked, *, k, rel: np.array(["0.5", "0.1"]), "dtype <U3"),
        (lambda ranked, *, k, rel: np.array([0.5, None], dtype=object), "dtype object"),
        (lambda ranked, *, k, rel: np.array([np.inf, 0.0]), "infinite value"),
        (lambda ranked, *, k, rel: [0.5, 0.1], "returned list"),
    ],
)
def test_a_kernel_returns_one_number_per_query(registry, kernel, problem: str) -> None:
    define("Odd", kernel)
    with pytest.raises(
        MetricError, match=f"your kernel of Odd {problem}|your kernel of Odd .*{problem}"
    ):
        pdireval.evaluate(_frame(), ["AP", "Odd"])


@pytest.mark.parametrize(
    ("kernel", "problem"),
    [
        (lambda ranked, *, kk, rel: ranked.num_ret, "does not take k=.*needs kk"),
        (lambda ranked, *, rel: ranked.num_ret, "does not take k="),
        (lambda ranked, k: ranked.num_ret, "does not take rel="),
        (lambda *, k, rel: 0, "takes no positional argument"),
    ],
)
def test_a_kernel_that_cannot_be_called_is_refused_when_declared(registry, kernel, problem) -> None:
    with pytest.raises(MetricError, match=f"the kernel of Odd {problem}"):
        define("Odd", kernel)
    assert "Odd" not in REGISTRY


def test_a_kernel_may_take_its_arguments_as_it_likes(registry) -> None:
    define("Loose", lambda ranked, **given: ranked.num_ret * given["k"], cutoff="required")
    define("Spread", lambda *arrays, k, rel, scale=1.0: arrays[0].num_ret * scale)
    values = pdireval.evaluate(_frame(), ["Loose@2", "Spread"])
    assert values["Loose@2"].tolist() == [2 * n for n in values["Spread"]]


def test_a_kernel_of_booleans_and_nans_is_read_as_numbers(registry) -> None:
    define("Found", lambda ranked, *, k, rel: ranked.num_ret > 2)
    define("Gap", lambda ranked, *, k, rel: np.array([np.nan, 1.0]))
    values = pdireval.evaluate(_frame(), ["Found", "Gap"])
    assert values["Found"].tolist() == [1.0, 0.0]
    assert np.isnan(values["Gap"].iloc[0])


def test_a_kernel_cannot_change_what_the_other_measures_read(registry) -> None:
    def vandal(ranked: Ranked, *, k, rel) -> np.ndarray:
        ranked.label[:] = 0
        return ranked.num_ret

    define("Vandal", vandal)
    with pytest.raises(ValueError, match="read-only"):
        pdireval.evaluate(_frame(), ["AP", "Vandal"])

    def sly(ranked: Ranked, *, k, rel) -> np.ndarray:
        ranked.relevant(rel)[:] = False  # a shared, cached mask
        return ranked.num_ret

    define("Sly", sly)
    with pytest.raises(ValueError, match="read-only"):
        pdireval.evaluate(_frame(), ["Sly", "AP"])

    def per_query(ranking, judgments, *, rel):
        judgments[:] = 0
        return 0.0

    define_per_query("PerQueryVandal", per_query)
    with pytest.raises(ValueError, match="read-only"):
        pdireval.evaluate(_frame(), ["PerQueryVandal", "AP"])
    assert pdireval.evaluate(_frame(), "AP")["AP"].round(4).tolist() == [0.8333, 0.25]


# ---------------------------------------------------------------------------- diversity frames


def _diversity_case() -> tuple[pd.DataFrame, pd.DataFrame]:
    rng = np.random.default_rng(5)
    runs = []
    for run in ("a", "b"):
        for query in ("q1", "q2", "q3"):
            docs = rng.permutation([f"d{i}" for i in range(8)])[:6]
            runs.append(pd.DataFrame({"run": run, "query": query, "doc": docs,
                                      "score": np.arange(6, 0, -1.0)}))  # fmt: skip
    run = pd.concat(runs, ignore_index=True)
    judgments = [
        (query, str(sub), f"d{doc}", int(rng.integers(0, 3)))
        for query in ("q1", "q2", "q3")
        for sub in (1, 2)
        for doc in rng.choice(8, size=4, replace=False)
    ]
    qrels = pd.DataFrame(judgments, columns=["query", "subtopic", "doc", "rel"])
    return run, qrels


def test_every_function_reads_a_diversity_frame_as_one_row_per_document() -> None:
    run, qrels = _diversity_case()
    diverse = pdireval.merge_qrels(run, qrels)
    best = qrels.groupby(["query", "doc"], as_index=False)["rel"].max()
    plain = pdireval.merge_qrels(run, best)
    pd.testing.assert_frame_equal(pdireval.pool(diverse, 3), pdireval.pool(plain, 3))
    pd.testing.assert_frame_equal(
        pdireval.pool_contribution(run, qrels, depth=3),
        pdireval.pool_contribution(run, best, depth=3),
    )
    pd.testing.assert_frame_equal(
        pdireval.rank_biased_overlap(diverse, "a", "b"),
        pdireval.rank_biased_overlap(plain, "a", "b"),
    )
    for method in ("kendall", "spearman"):
        pd.testing.assert_series_equal(
            pdireval.rank_correlation(diverse, "a", "b", method=method),
            pdireval.rank_correlation(plain, "a", "b", method=method),
        )


def test_pool_contribution_counts_diversity_judgments_by_document() -> None:
    run = pd.DataFrame({"run": ["a", "a", "b"], "query": "q", "doc": ["x", "y", "x"],
                        "rank": [1, 2, 1]})  # fmt: skip
    qrels = pd.DataFrame({"query": "q", "subtopic": ["1", "2", "1"], "doc": ["y", "y", "x"],
                          "rel": [0, 1, 0]})  # fmt: skip
    table = pdireval.pool_contribution(run, qrels, depth=2)
    assert table.loc["a"].tolist() == [2, 1, 1, 1.0]  # y alone and relevant for subtopic 2
    assert table.loc["b"].tolist() == [1, 0, 0, 1.0]


def test_a_subtopic_column_asked_for_stays_when_it_is_constant(tmp_path) -> None:
    path = tmp_path / "qrels"
    path.write_text("q1 1 d1 1\nq1 1 d2 0\n")
    qrels = pdireval.read_qrels(path, subtopics=True)
    run = pd.DataFrame({"query": "q1", "doc": ["d1", "d2"], "score": [2.0, 1.0]})
    merged = pdireval.merge_qrels(run, qrels)
    assert "subtopic" in merged.columns
    assert pdireval.evaluate(merged, "alpha_nDCG@2")["alpha_nDCG@2"].item() == 1.0


@pytest.mark.parametrize("name", ["alpha_nDCG", "alpha_DCG", "ERR_IA", "nERR_IA"])
def test_a_cutoff_beyond_every_ranking_costs_nothing(name: str) -> None:
    run, qrels = _diversity_case()
    merged = pdireval.merge_qrels(run, qrels)
    at_depth = pdireval.evaluate(merged, f"{name}@6")[f"{name}@6"]
    far = pdireval.evaluate(merged, f"{name}@1000000000")[f"{name}@1000000000"]
    if name in ("alpha_nDCG", "nERR_IA"):  # nothing past the ranking, nothing ideal past it
        np.testing.assert_allclose(far.to_numpy(), at_depth.to_numpy(), rtol=0, atol=1e-15)
    else:  # normalised by the best case at every rank down to k: a finite number
        assert np.isfinite(far.to_numpy()).all()


# ---------------------------------------------------------------------------- command line


def _trec_eval_map(tmp_path, run_lines: str) -> str:
    qrels, run = tmp_path / "qrels", tmp_path / "run"
    qrels.write_text("q1 0 d1 1\nq1 0 d3 1\nq2 0 d1 1\n")
    run.write_text(run_lines)
    done = subprocess.run(
        [sys.executable, "-m", "pdireval", "-m", "map", "-m", "runid", str(qrels), str(run)],
        capture_output=True,
        text=True,
        check=True,
    )
    return done.stdout


def test_one_file_is_one_run_whatever_its_tags(tmp_path) -> None:
    lines = "q1 Q0 d1 1 3 alpha\nq1 Q0 d2 2 2 beta\nq1 Q0 d3 3 1 alpha\nq2 Q0 d1 1 1 beta\n"
    mixed = _trec_eval_map(tmp_path, lines)
    same = _trec_eval_map(tmp_path, lines.replace("alpha", "beta"))
    assert mixed == same  # trec_eval ignores the tags but the last line's (runid)
    assert mixed.splitlines() == [
        "runid                 \tall\tbeta",
        "map                   \tall\t0.9167",
    ]
