"""The mistakes of a first hour with pdireval get errors that name the real fix."""

from __future__ import annotations

import importlib
import io
import sys

import pandas as pd
import pytest

import pdireval
from pdireval.datasets import example_qrels, example_run


def _run_file(tag: str) -> str:
    """The example collection's strong run as a TREC run file with the given tag."""
    run = example_run()
    buffer = io.StringIO()
    pdireval.write_run(run[run["run"] == "strong"].drop(columns="run"), buffer, tag=tag)
    return buffer.getvalue()


def test_import_dask_without_dask_names_the_extra(monkeypatch: pytest.MonkeyPatch) -> None:
    """Without dask, ``import pdireval.dask`` is a pdireval ImportError with the install hint."""
    for name in [m for m in sys.modules if m == "dask" or m.startswith(("dask.", "pdireval.dask"))]:
        monkeypatch.delitem(sys.modules, name)
    monkeypatch.setitem(sys.modules, "dask", None)  # ``import dask`` now fails
    with pytest.raises(pdireval.MissingDependencyError, match=r"pdireval\[dask\]") as info:
        importlib.import_module("pdireval.dask")
    assert isinstance(info.value, ImportError)
    assert "pdireval.dask" not in sys.modules


@pytest.mark.parametrize("with_qrels_option", [False, True])
def test_two_run_files_with_one_tag_are_not_told_to_drop_duplicates(
    with_qrels_option: bool,
) -> None:
    """Two runs that share a tag, concatenated: the fix is a name per run, not dropping rows
    (which would silently merge the two runs into one).
    """
    first = pdireval.read_run(io.StringIO(_run_file("bm25")))
    second = pdireval.read_run(io.StringIO(_run_file("bm25")))
    both = pd.concat([first, second])
    qrels = example_qrels()
    with pytest.raises(pdireval.SchemaError, match="duplicate") as info:
        if with_qrels_option:
            both.ireval.evaluate("AP", qrels=qrels)
        else:
            pdireval.merge_qrels(both, qrels).ireval.evaluate("AP")
    message = str(info.value)
    assert "drop_duplicates" not in message
    assert "its own name" in message
    assert "assign(run=" in message
    # the fix works: each run its own name
    named = pd.concat([first, second.assign(run="bm25-again")])
    assert len(named.ireval.evaluate("AP", qrels=qrels)) == 2 * qrels["query"].nunique()


def test_concatenated_frames_with_a_fresh_index_are_recognised_too() -> None:
    first = pdireval.read_run(io.StringIO(_run_file("bm25")))
    both = pd.concat([first, first], ignore_index=True)
    with pytest.raises(pdireval.SchemaError, match="its own name") as info:
        both.ireval.evaluate("AP", qrels=example_qrels())
    assert "drop_duplicates" not in str(info.value)


def test_a_document_repeated_once_is_still_told_to_drop_it() -> None:
    """The control: one stray repeated row in a run is a duplicate to drop."""
    run = pdireval.read_run(io.StringIO(_run_file("bm25")))
    stray = pd.concat([run, run.iloc[[5]]], ignore_index=True)
    with pytest.raises(pdireval.SchemaError, match="drop_duplicates") as info:
        stray.ireval.evaluate("AP", qrels=example_qrels())
    assert "its own name" not in str(info.value)


@pytest.mark.parametrize(
    "call",
    [
        lambda run: run.ireval.evaluate(["AP", "nDCG@10"]),
        lambda run: run.ireval.summary("AP"),
        lambda run: pdireval.evaluate(run.drop(columns="run"), "P@10"),
    ],
)
def test_forgotten_qrels_say_the_labels_are_missing_and_how_to_give_them(call) -> None:
    run = pdireval.read_run(io.StringIO(_run_file("bm25")))
    with pytest.raises(pdireval.SchemaError, match="relevance labels are missing") as info:
        call(run)
    message = str(info.value)
    assert "qrels=" in message
    assert "merge_qrels" in message
    assert "'rel'" in message  # and the column it looked for
