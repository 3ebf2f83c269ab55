"""Fusion: worked examples, the fused run in the rest of pdireval, and every refusal."""

from __future__ import annotations

import io
import subprocess
import sys

import numpy as np
import pandas as pd
import pytest

import pdireval
from pdireval import ParameterError, SchemaError


@pytest.fixture
def runs() -> pd.DataFrame:
    return pd.DataFrame(
        {
            "run": ["bm25"] * 3 + ["dense"] * 3,
            "query": ["q1", "q1", "q2", "q1", "q1", "q2"],
            "doc": ["a", "b", "c", "b", "d", "c"],
            "score": [9.0, 7.0, 1.0, 0.9, 0.1, 0.4],
        }
    )


def test_rrf_worked_example(runs: pd.DataFrame) -> None:
    fused = pdireval.fuse(runs, "RRF", k=1)
    # q1: a = 1/2, b = 1/3 + 1/2, d = 1/3; q2: c = 1/2 + 1/2
    assert fused["query"].tolist() == ["q1", "q1", "q1", "q2"]
    assert fused["doc"].tolist() == ["b", "a", "d", "c"]
    np.testing.assert_allclose(fused["score"], [5 / 6, 1 / 2, 1 / 3, 1.0])
    assert fused["rank"].tolist() == [1, 2, 3, 1]
    assert (fused["run"] == "RRF").all()


def test_equal_scores_ranked_by_doc_id_descending() -> None:
    frame = pd.DataFrame(
        {
            "run": ["x", "x", "y", "y"],
            "query": "q",
            "doc": ["d10", "d9", "d9", "d10"],
            "score": [2.0, 1.0, 2.0, 1.0],
        }
    )
    fused = pdireval.fuse(frame, "CombSUM", norm=None)
    assert fused["doc"].tolist() == ["d9", "d10"]  # "d9" > "d10" as strings
    assert fused["rank"].tolist() == [1, 2]


def test_list_and_dict_of_frames_equal_the_long_frame(runs: pd.DataFrame) -> None:
    parts = {name: rows.drop(columns="run") for name, rows in runs.groupby("run", sort=False)}
    from_long = pdireval.fuse(runs, "wsum", weights=[1.0, 2.0])
    from_dict = pdireval.fuse(parts, "wsum", weights={"dense": 2.0, "bm25": 1.0})
    from_list = pdireval.fuse(
        [runs[runs.run == "bm25"], runs[runs.run == "dense"]], "wsum", weights=[1.0, 2.0]
    )
    pd.testing.assert_frame_equal(from_long, from_dict)
    pd.testing.assert_frame_equal(from_long, from_list)


def test_accessor_and_name(runs: pd.DataFrame) -> None:
    fused = runs.ireval.fuse("mnz", name="hybrid")
    pd.testing.assert_frame_equal(fused, pdireval.fuse(runs, "CombMNZ", name="hybrid"))
    assert (fused["run"] == "hybrid").all()


def test_accessor_column_mapping(runs: pd.DataFrame) -> None:
    renamed = runs.rename(columns={"query": "qid", "doc": "docno"})
    fused = renamed.ireval(query="qid", doc="docno").fuse("rrf")
    assert list(fused.columns) == ["qid", "docno", "score", "rank", "run"]
    expected = pdireval.fuse(runs, "rrf")
    np.testing.assert_allclose(fused["score"], expected["score"])


def test_fused_run_is_evaluated_written_and_compared(runs: pd.DataFrame) -> None:
    qrels = pd.DataFrame({"query": ["q1", "q1", "q2"], "doc": ["b", "d", "c"], "rel": [1, 1, 1]})
    fused = pdireval.fuse(runs, "rrf")
    # the inputs have no rank column: the fused run's scores give the same order
    both = pd.concat([runs, fused.drop(columns="rank")], ignore_index=True)
    values = pdireval.evaluate(pdireval.merge_qrels(both, qrels), "AP")
    assert values.loc[("RRF", "q1"), "AP"] == pytest.approx((1 + 2 / 3) / 2)
    out = io.StringIO()
    pdireval.write_run(fused, out)
    read = pdireval.read_run(io.StringIO(out.getvalue()))
    assert read["doc"].tolist() == fused["doc"].tolist()
    np.testing.assert_array_equal(read["score"], fused["score"])


def test_depth_keeps_the_top_of_each_ranking(runs: pd.DataFrame) -> None:
    fused = pdireval.fuse(runs, "CombSUM", norm=None, depth=1)
    pairs = set(zip(fused["query"], fused["doc"], strict=True))
    assert pairs == {("q1", "a"), ("q1", "b"), ("q2", "c")}


def test_runs_with_different_query_sets_cover_every_query() -> None:
    frame = pd.DataFrame(
        {"run": ["x", "y"], "query": ["q1", "q2"], "doc": ["a", "b"], "score": [1.0, 2.0]}
    )
    fused = pdireval.fuse(frame, "CombSUM", norm=None)
    assert fused["query"].tolist() == ["q1", "q2"]
    assert fused["score"].tolist() == [1.0, 2.0]


def test_input_is_not_modified(runs: pd.DataFrame) -> None:
    before = runs.copy()
    pdireval.fuse(runs, "condorcet")
    pdireval.normalize(runs, "borda")
    pd.testing.assert_frame_equal(runs, before)


def test_normalize_min_max(runs: pd.DataFrame) -> None:
    out = pdireval.normalize(runs, "min-max")
    q1 = out[(out.run == "bm25") & (out["query"] == "q1")]
    assert q1["score"].tolist() == [1.0, 0.0]
    one = out[(out.run == "bm25") & (out["query"] == "q2")]
    assert one["score"].tolist() == [0.0]  # one document: max == min, floored denominator


def test_import_pdireval_leaves_fusion_unloaded() -> None:
    code = "import sys, pdireval; print('pdireval.fusion' in sys.modules)"
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert done.stdout.strip() == "False"


# ----------------------------------------------------------------------------- search


def test_optimize_fusion_finds_the_weight_that_ranks_the_relevant_first(runs) -> None:
    qrels = pd.DataFrame({"query": ["q1"], "doc": ["d"], "rel": [1]})
    found = pdireval.optimize_fusion(runs, qrels, "wsum", metric="RR", step=0.25)
    assert dict(found.best) == {"weights": {"bm25": 0.0, "dense": 1.0}} or found.score == 1.0
    assert len(found.table) == 5
    best = pdireval.fuse(runs, "wsum", **found.best)
    top = best[(best["query"] == "q1") & (best["rank"] == 1)]["doc"].item()
    assert top == "b"  # d is never first: dense ranks b first, bm25 ranks d nowhere
    by_hand = pdireval.evaluate(pdireval.merge_qrels(best, qrels), "RR")["RR"].mean()
    assert found.score == pytest.approx(by_hand)
    assert found.table["RR"].max() == pytest.approx(found.score)


def test_optimize_fusion_parameter_grid_and_cross_validation(runs) -> None:
    qrels = pd.DataFrame({"query": ["q1", "q2"], "doc": ["b", "c"], "rel": [1, 1]})
    found = pdireval.optimize_fusion(runs, qrels, "rrf", params={"k": [1, 60]}, folds=2)
    assert found.table["k"].tolist() == [1, 60]
    assert found.folds is not None
    assert found.folds["queries"].sum() == 2
    assert set(found.best) == {"k"}


def test_weight_grid_is_every_multiple_of_step_summing_to_one() -> None:
    from pdireval.fusion.search import weight_grid

    grid = weight_grid(3, 0.1)
    assert len(grid) == 66  # C(12, 2)
    assert (0.1, 0.2, 0.7) in grid
    assert all(abs(sum(w) - 1) < 1e-9 for w in grid)


# ---------------------------------------------------------------------------- refusals


@pytest.mark.parametrize(
    ("change", "error", "match"),
    [
        (lambda f: f.assign(score=[np.nan, *f.score[1:]]), SchemaError, "NaN or infinite"),
        (lambda f: f.assign(score=[np.inf, *f.score[1:]]), SchemaError, "NaN or infinite"),
        (lambda f: f.assign(score="high"), SchemaError, "must hold numbers"),
        (lambda f: pd.concat([f, f.iloc[:1]]), SchemaError, "duplicate"),
        (lambda f: f[f.run == "bm25"], SchemaError, "at least two runs, found one: 'bm25'"),
        (lambda f: f.drop(columns="score"), SchemaError, "column 'score'"),
        (lambda f: f.drop(columns="run"), SchemaError, "column 'run'"),
        (lambda f: f.assign(doc=[None, *f.doc[1:]]), SchemaError, "doc column 'doc' is missing"),
    ],
)
def test_bad_frames_are_refused(runs, change, error, match) -> None:
    with pytest.raises(error, match=match):
        pdireval.fuse(change(runs), "rrf")


@pytest.mark.parametrize(
    ("kwargs", "match"),
    [
        ({"method": "wsum", "weights": [1.0, -1.0]}, "finite and >= 0"),
        ({"method": "wsum", "weights": [0.0, 0.0]}, "at least one > 0"),
        ({"method": "wsum", "weights": [1.0, np.nan]}, "finite"),
        ({"method": "wsum", "weights": [1.0]}, "1 weight"),
        ({"method": "wsum", "weights": {"bm25": 1.0}}, "missing \\['dense'\\]"),
        ({"method": "wsum", "weights": {"bm25": 1, "dense": 1, "x": 1}}, "unknown \\['x'\\]"),
        ({"method": "rrf", "weights": [1.0, 2.0]}, "RRF takes no weights"),
        ({"method": "rff"}, "did you mean 'RRF'"),
        ({"method": "rrf", "kk": 3}, "no parameter \\['kk'\\]"),
        ({"method": "rrf", "k": -1}, "k=-1.0 must be in"),
        ({"method": "gmnz"}, "needs the parameter\\(s\\) \\['gamma'\\]"),
        ({"method": "logn_isr", "sigma": 2.0}, "sigma=2.0 must be in"),
        ({"method": "rrf", "norm": "minmax"}, "is not a normalisation"),
        ({"method": "rrf", "depth": 0}, "depth=0"),
    ],
)
def test_bad_options_are_refused(runs, kwargs, match) -> None:
    options = dict(kwargs)
    method = options.pop("method")
    with pytest.raises((ParameterError, SchemaError), match=match):
        pdireval.fuse(runs, method, **options)


def test_not_a_frame_is_refused() -> None:
    with pytest.raises(SchemaError, match="got int"):
        pdireval.fuse(3, "rrf")  # type: ignore[arg-type]


def test_bad_step_is_refused(runs) -> None:
    qrels = pd.DataFrame({"query": ["q1"], "doc": ["d"], "rel": [1]})
    with pytest.raises(ParameterError, match="divide 1"):
        pdireval.optimize_fusion(runs, qrels, "wsum", step=0.3)


def test_user_guide_examples_run() -> None:
    import doctest
    from pathlib import Path

    page = Path(__file__).resolve().parents[2] / "docs" / "fusion.rst"
    failed, attempted = doctest.testfile(
        str(page), module_relative=False, optionflags=doctest.NORMALIZE_WHITESPACE
    )
    assert attempted > 5
    assert failed == 0


# ------------------------------------------------------------------------ command line


def test_command_line_fuses_run_files(tmp_path, runs, capsys) -> None:
    from pdireval.cli.fuse import main

    paths = []
    for name, rows in runs.groupby("run", sort=False):
        path = tmp_path / f"{name}.run"
        pdireval.write_run(rows, path)
        paths.append(str(path))
    assert main(["-m", "wsum", "--weights", "1,2", *paths]) == 0
    written = pdireval.read_run(io.StringIO(capsys.readouterr().out))
    expected = pdireval.fuse(runs, "wsum", weights=[1.0, 2.0])
    assert written["doc"].tolist() == expected["doc"].tolist()
    np.testing.assert_array_equal(written["score"], expected["score"])
    assert (written["run"] == "WSum").all()


@pytest.mark.parametrize(
    ("argv", "status", "message"),
    [
        (["-m", "rrf", "a.run"], 1, "No such file"),
        (["-m", "rff", "{a}", "{b}"], 1, "did you mean 'RRF'"),
        (["--weights", "1,x", "{a}", "{b}"], 2, "--weights"),
        (["{a}", "{a}"], 2, "given twice"),
        (["-m", "rrf", "{a}"], 1, "at least two runs"),
    ],
)
def test_command_line_refusals(tmp_path, runs, capsys, argv, status, message) -> None:
    from pdireval.cli.fuse import main

    paths = {}
    for name, rows in runs.groupby("run", sort=False):
        paths["a" if name == "bm25" else "b"] = str(tmp_path / f"{name}.run")
        pdireval.write_run(rows, paths["a" if name == "bm25" else "b"])
    assert main([arg.format(**paths) for arg in argv]) == status
    assert message in capsys.readouterr().err


def test_no_numpy_warning_on_degenerate_rankings() -> None:
    """One document, equal scores, zeros and negative scores: every method and
    normalisation gives finite numbers without a warning."""
    import warnings

    from pdireval.fusion import METHODS, NORMS

    frame = pd.DataFrame(
        {
            "run": ["a", "a", "b", "b", "c"],
            "query": ["q1", "q2", "q2", "q2", "q3"],
            "doc": ["d1", "d1", "d1", "d2", "d9"],
            "score": [0.0, -1.0, 5.0, 5.0, -3.0],
        }
    )
    params = {"CombGMNZ": {"gamma": 0.5}, "RBC": {"phi": 0.0}, "logN_ISR": {"sigma": 0.0}}
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        for method in METHODS:
            for norm in [None, *NORMS]:
                fused = pdireval.fuse(frame, method, norm=norm, **params.get(method, {}))
                assert np.isfinite(fused["score"]).all(), (method, norm)


def test_one_run_name_in_two_frames_of_a_list_is_refused(runs: pd.DataFrame) -> None:
    bm25 = runs[runs.run == "bm25"]
    with pytest.raises(SchemaError, match="run 'bm25' is in frames 0 and 1"):
        pdireval.fuse([bm25, bm25.assign(doc="z")], "rrf")


def test_optimize_fusion_with_a_user_defined_measure(runs: pd.DataFrame) -> None:
    from pdireval.metrics import define

    def top_hit(ranked, *, k, rel):
        return ranked.per_query_count(ranked.relevant(rel) & (ranked.position <= k)) > 0

    define("FusionTopHit", top_hit, cutoff="required", replace=True)
    qrels = pd.DataFrame({"query": ["q1"], "doc": ["d"], "rel": [1]})
    found = pdireval.optimize_fusion(runs, qrels, "wsum", metric="FusionTopHit@2", step=0.5)
    # (0, 1): dense alone ranks d second. (0.5, 0.5): a and b tie at 0.5 above d.
    # (1, 0): b and d tie at 0 below a, and d > b as doc ids; ties go to the first tried
    assert found.table["FusionTopHit@2"].tolist() == [1.0, 0.0, 1.0]
    assert dict(found.best) == {"weights": {"bm25": 0.0, "dense": 1.0}}


@pytest.mark.parametrize("method", ["bordafuse", "combmnz", "rrf", "combsum"])
def test_an_empty_run_is_a_run_that_retrieved_nothing(method: str) -> None:
    """An empty frame is not dropped: it counts among the runs, its rankings empty, as a
    run without results for the query (BordaFuse gives each candidate (c + 1) / 2 from it).
    """
    a = pd.DataFrame({"query": ["1", "1", "2"], "doc": ["x", "y", "x"], "score": [2.0, 1.0, 1.0]})
    empty = a.iloc[:0]
    none = pd.DataFrame({"query": ["3"], "doc": ["z"], "score": [1.0]})  # retrieved elsewhere
    with_empty = pdireval.fuse({"a": a, "e": empty}, method=method)
    with_other = pdireval.fuse({"a": a, "e": none}, method=method)
    pd.testing.assert_frame_equal(
        with_empty, with_other[with_other["query"] != "3"].reset_index(drop=True)
    )
    if method == "bordafuse":
        assert with_empty["score"].tolist() == [2 + 1.5, 1 + 1.5, 1 + 1.0]
