"""The command line's tables of several runs: the user's measure names, every number in
full (the shortest text that reads back as it), suggestions in the user's naming."""

from __future__ import annotations

import io
import json
import math

import numpy as np
import pandas as pd
import pytest

from pdireval.cli.main import main

QRELS = "".join(
    f"{q} 0 d{d} {int((q * 7 + d * 3) % 4 == 0)}\n" for q in range(1, 8) for d in range(9)
)


def _run(tag: str, seed: int) -> str:
    rng = np.random.default_rng(seed)
    lines = []
    for q in range(1, 8):
        docs = rng.permutation(9)[:7]
        lines += [f"{q} Q0 d{d} {r + 1} {10 - r} {tag}\n" for r, d in enumerate(docs)]
    return "".join(lines)


@pytest.fixture
def files(tmp_path):
    (tmp_path / "qrels").write_text(QRELS)
    (tmp_path / "a.run").write_text(_run("bm25", 1))
    (tmp_path / "b.run").write_text(_run("dense", 2))
    return [str(tmp_path / name) for name in ("qrels", "a.run", "b.run")]


def _out(capsys, *args: str) -> str:
    assert main(list(args)) == 0, capsys.readouterr().err
    return capsys.readouterr().out


def test_tables_name_measures_as_the_user_did(files, capsys) -> None:
    out = _out(capsys, *files, "-m", "map", "-m", "ndcg_cut.10", "-m", "nDCG@5")
    header = out.splitlines()[0].split()
    assert header == ["map", "ndcg_cut_10", "nDCG@5"]
    table = pd.read_csv(io.StringIO(_out(capsys, *files, "-m", "P.5,10", "--format", "csv")))
    assert list(table.columns) == ["run", "P_5", "P_10"]


def test_csv_numbers_are_exact_means_in_shortest_form(files, capsys) -> None:
    """Each summary number is the correctly rounded sum of the per-query values over the
    queries, written as the shortest text that reads back as it."""
    per_query = pd.read_csv(
        io.StringIO(_out(capsys, *files, "-m", "map", "-m", "P.3", "--format", "csv", "-q")),
        dtype={"query": str},
        # pandas 2's default parser can be 1 ulp off; pandas 3 reads exactly (and
        # deprecates the option)
        **({"float_precision": "round_trip"} if int(pd.__version__.split(".")[0]) < 3 else {}),
    )
    text = _out(capsys, *files, "-m", "map", "-m", "P.3", "--format", "csv")
    rows = [line.split(",") for line in text.splitlines()[1:]]
    for run, *numbers in rows:
        block = per_query[per_query["run"] == run]
        for column, written in zip(["map", "P_3"], numbers, strict=True):
            expected = math.fsum(block[column]) / len(block)
            assert written == repr(expected)
    answer = json.loads(_out(capsys, *files, "-m", "map", "-m", "P.3", "--format", "json"))
    from_json = {row["run"]: [row["map"], row["P_3"]] for row in answer["summary"]}
    assert from_json == {run: [float(n) for n in numbers] for run, *numbers in rows}


def test_comparison_rows_name_measures_as_the_user_did(files, capsys) -> None:
    pytest.importorskip("scipy")
    text = _out(
        capsys, *files, "-m", "map", "-m", "nDCG@5", "--format", "csv", "--baseline", "bm25"
    )
    table = pd.read_csv(io.StringIO(text))
    assert table.columns[0] == "run"  # no unnamed index column
    assert table["metric"].tolist() == ["map", "nDCG@5"]


@pytest.mark.parametrize(
    ("typed", "meant"),
    [("mapp", "'map'"), ("ndcg_cutt.10", "'ndcg_cut.10'"), ("recip_rnk", "'recip_rank'")],
)
def test_a_misspelt_trec_eval_name_suggests_the_trec_eval_name(files, capsys, typed, meant):
    assert main([*files[:2], "-m", typed]) == 1
    err = capsys.readouterr().err
    assert f"did you mean {meant}" in err


def test_a_misspelt_pdireval_name_suggests_the_pdireval_name(files, capsys) -> None:
    assert main([*files[:2], "-m", "nDGC@10"]) == 1
    assert "'nDCG'" in capsys.readouterr().err
