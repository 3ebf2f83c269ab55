"""polars frames and Arrow tables, at the functions and through polars' ``.ireval``.

Every measure of the registry on polars and Arrow inputs: tests/across/test_common.py.
"""

from __future__ import annotations

import inspect

import numpy as np
import pandas as pd
import pyarrow as pa
import pytest

import pdireval
from pdireval import datasets

pl = pytest.importorskip("polars")
import pdireval.polars  # noqa: E402 - registers polars' .ireval once polars is there


@pytest.fixture(scope="module")
def frame() -> pd.DataFrame:
    return datasets.example()


def test_merge_qrels_takes_a_polars_run_and_arrow_judgments() -> None:
    run, qrels = datasets.example_run(), datasets.example_qrels()
    expected = pdireval.merge_qrels(run, qrels)
    merged = pdireval.merge_qrels(pl.from_pandas(run), pa.Table.from_pandas(qrels))
    assert isinstance(merged, pd.DataFrame)
    pd.testing.assert_frame_equal(
        pdireval.evaluate(merged, ["AP", "nDCG@10"]), pdireval.evaluate(expected, ["AP", "nDCG@10"])
    )


def test_qrels_option_and_judges_take_polars_frames(frame: pd.DataFrame) -> None:
    run = frame.drop(columns="rel")
    qrels = datasets.example_qrels()
    strict = qrels.assign(rel=(qrels["rel"] >= 2).astype(int))
    expected = pdireval.evaluate(run, ["AP"], qrels={"lenient": qrels, "strict": strict})
    ours = pdireval.evaluate(
        pl.from_pandas(run), ["AP"], qrels={"lenient": pl.from_pandas(qrels), "strict": strict}
    )
    pd.testing.assert_frame_equal(ours, expected, check_index_type=False)
    # the pandas accessor's qrels= takes a polars frame as well
    pd.testing.assert_frame_equal(
        run.ireval.evaluate(["AP"], qrels=pl.from_pandas(qrels)),
        pdireval.evaluate(run, ["AP"], qrels=qrels),
    )


def test_fuse_takes_a_list_and_a_dict_of_polars_runs() -> None:
    run = datasets.example_run()
    runs = {name: part.drop(columns="run") for name, part in run.groupby("run", sort=False)}
    expected = pdireval.fuse(runs, "rrf")
    ours = pdireval.fuse({name: pl.from_pandas(part) for name, part in runs.items()}, "rrf")
    pd.testing.assert_frame_equal(ours, expected)
    listed = pdireval.fuse([pa.Table.from_pandas(part) for part in runs.values()], "rrf")
    pd.testing.assert_frame_equal(listed, pdireval.fuse(list(runs.values()), "rrf"))


def test_the_accessor_gives_polars_tables_of_the_pandas_numbers(frame: pd.DataFrame) -> None:
    polars_frame = pl.from_pandas(frame)
    summary = polars_frame.ireval.summary(["AP", "P@5"])
    expected = frame.ireval.summary(["AP", "P@5"])
    assert isinstance(summary, pl.DataFrame)
    assert summary.columns == ["run", "AP", "P@5"]
    assert summary["run"].to_list() == [str(run) for run in expected.index]
    np.testing.assert_array_equal(summary.select(["AP", "P@5"]).to_numpy(), expected.to_numpy())
    compared = polars_frame.ireval.compare(["AP"])
    assert compared.columns == list(frame.ireval.compare(["AP"]).columns)
    # a table with column levels: joined with "/"
    wide = polars_frame.ireval.per_query(["AP"])
    assert wide.columns[0] == "query"
    assert "value/strong" in wide.columns
    assert "delta/weak" in wide.columns
    # a Series: beside its index
    ap = polars_frame.ireval.ap()
    assert ap.columns == ["run", "query", "AP"]
    np.testing.assert_array_equal(ap["AP"].to_numpy(), frame.ireval.ap().to_numpy())


def test_the_accessor_maps_roles_and_collects_a_lazy_frame(frame: pd.DataFrame) -> None:
    renamed = frame.rename(columns={"query": "qid", "rel": "label"})
    lazy = pl.from_pandas(renamed).lazy()
    table = lazy.ireval(query="qid", rel="label").evaluate(["AP"])
    expected = renamed.ireval(query="qid", rel="label").evaluate(["AP"])
    assert table.columns == ["run", "qid", "AP"]
    np.testing.assert_array_equal(table["AP"].to_numpy(), expected["AP"].to_numpy())


def test_reports_and_figures_come_back_as_from_pandas(frame: pd.DataFrame) -> None:
    pytest.importorskip("scipy")
    report = pl.from_pandas(frame).ireval.report(["AP"])
    assert isinstance(report, pdireval.Report)
    assert report.to_markdown() == frame.ireval.report(["AP"]).to_markdown()


def test_nugget_frames_in_polars_score_as_in_pandas() -> None:
    nuggets = pd.DataFrame(
        {
            "run": ["a"] * 3 + ["b"] * 3,
            "query": ["q1"] * 6,
            "nugget": ["n1", "n2", "n3"] * 2,
            "importance": ["vital", "okay", "vital"] * 2,
            "assignment": ["support", "partial_support", "not_support"] * 2,
        }
    )
    expected = pdireval.nugget_scores(nuggets)
    pd.testing.assert_frame_equal(pdireval.nugget_scores(pl.from_pandas(nuggets)), expected)


def test_files_read_into_polars_frames(tmp_path) -> None:
    qrels_path, run_path, *_ = datasets.write_example(tmp_path)
    run = pdireval.polars.read_run(run_path)
    qrels = pdireval.polars.read_qrels(qrels_path)
    assert isinstance(run, pl.DataFrame)
    assert isinstance(qrels, pl.DataFrame)
    expected = pdireval.read_run(run_path)
    assert run.columns == [str(c) for c in expected.columns]
    assert run.height == len(expected)
    assert run["doc"].to_list() == expected["doc"].tolist()
    merged = pdireval.merge_qrels(run, qrels)
    assert len(merged) == len(pdireval.merge_qrels(expected, pdireval.read_qrels(qrels_path)))


def test_the_functions_keep_their_signatures_and_stay_one_object() -> None:
    assert pdireval.evaluate is pdireval.evaluate
    parameters = inspect.signature(pdireval.evaluate).parameters
    assert "queries" in parameters
    assert "qrels" in parameters
    method = inspect.signature(pl.DataFrame({"a": [1]}).ireval.evaluate)
    assert "metrics" in method.parameters
    assert method.return_annotation == "pl.DataFrame"


def test_an_unconverting_entry_says_how_to_convert() -> None:
    from pdireval.fusion import fuse  # the module's own function, not pdireval.fuse

    with pytest.raises(pdireval.SchemaError, match=r"pdireval\.fuse|to_pandas"):
        fuse(pl.DataFrame({"query": ["q"], "doc": ["d"], "score": [1.0], "run": ["r"]}), "rrf")


def test_other_objects_are_left_as_they_are() -> None:
    from pdireval._core.frames import as_pandas, foreign_kind

    frame = pd.DataFrame({"a": [1]})
    assert as_pandas(frame) is frame
    assert foreign_kind(frame["a"]) is None
    assert foreign_kind(pa.array([1, 2])) is None  # an array is not a table
    assert as_pandas(["AP", 1]) == ["AP", 1]
    assert foreign_kind(pl.DataFrame({"a": [1]})) == "polars"
    assert foreign_kind(pa.table({"a": [1]}).to_batches()[0]) == "arrow"


def test_figures_of_a_polars_frame_are_the_pandas_figures(frame: pd.DataFrame) -> None:
    matplotlib = pytest.importorskip("matplotlib")
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    ours = pl.from_pandas(frame).ireval.plot.systems("AP", ci=None)
    theirs = frame.ireval.plot.systems("AP", ci=None)
    assert [t.get_text() for t in ours.get_xticklabels()] == [
        t.get_text() for t in theirs.get_xticklabels()
    ]
    drawn = [
        [
            *(line.get_xydata().tolist() for line in axes.lines),
            *(c.get_offsets().tolist() for c in axes.collections),
            *(bar.get_height() for bar in axes.patches),
        ]
        for axes in (ours, theirs)
    ]
    assert drawn[0] == drawn[1]
    assert drawn[0]  # something was drawn
    plt.close("all")


def test_any_arrow_stream_is_taken(frame: pd.DataFrame) -> None:
    """An object of another library that exports an Arrow stream (the PyCapsule
    interface), as DuckDB relations do."""
    table = pa.Table.from_pandas(frame, preserve_index=False)

    class Stream:
        def __arrow_c_stream__(self, requested_schema=None):
            return table.__arrow_c_stream__(requested_schema)

    pd.testing.assert_frame_equal(  # ids come back as Arrow gives them (dtypes may differ)
        pdireval.evaluate(Stream(), ["AP"]),
        pdireval.evaluate(frame, ["AP"]),
        check_index_type=False,
    )
