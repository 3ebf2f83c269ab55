"""The mistakes of a first hour with pdireval get errors that name the real fix."""

from __future__ import annotations

import ast
import importlib
import io
import sys
from pathlib import Path

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
    if with_qrels_option:
        evaluate = lambda: both.ireval.evaluate("AP", qrels=qrels)  # noqa: E731
    else:
        evaluate = lambda: pdireval.merge_qrels(both, qrels).ireval.evaluate("AP")  # noqa: E731
    with pytest.raises(pdireval.SchemaError, match="duplicate") as info:
        evaluate()
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


def _skip_reasons(tree: ast.Module) -> list[str]:
    """The texts given to pytest.skip / skipif in a module, and constants named *_REASON."""
    texts = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and getattr(node.func, "attr", "") in ("skip", "skipif"):
            parts = [*node.args, *(keyword.value for keyword in node.keywords)]
        elif isinstance(node, ast.Assign) and any(
            isinstance(target, ast.Name) and target.id.endswith("REASON") for target in node.targets
        ):
            parts = [node.value]
        else:
            continue
        texts += [
            part.value
            for part in parts
            if isinstance(part, ast.Constant) and isinstance(part.value, str)
        ]
    return texts


def test_skips_for_missing_trec_eval_files_say_they_are_optional() -> None:
    """A test skipped for want of trec_eval's source or test data says that the files are
    optional and what they enable, not just a path.
    """
    reasons = [
        (path.name, reason)
        for path in Path(__file__).resolve().parents[1].rglob("*.py")
        for reason in _skip_reasons(ast.parse(path.read_text(encoding="utf-8")))
        if "trec_eval" in reason and "not found" in reason
    ]
    assert len(reasons) >= 4
    for name, reason in reasons:
        assert "optional" in reason, f"{name}: {reason!r}"
        assert "enables" in reason, f"{name}: {reason!r}"
