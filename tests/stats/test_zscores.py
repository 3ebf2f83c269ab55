"""Score standardisation: z-scores against per-query statistics, the statistics of
reference runs, trec_eval's z-scores file, and the command line's ``-Z`` against the
trec_eval programs.
"""

from __future__ import annotations

import math
import subprocess

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from trec_files import write_case

import pdireval
from pdireval import SchemaError
from pdireval.cli.main import main
from pdireval.datasets import example


def _table(values: dict[tuple[str, str], list[float]]) -> pd.DataFrame:
    """A per-query table: runs r0, r1, ... per query, one column per measure."""
    rows = []
    for (query, measure), numbers in values.items():
        rows += [(f"r{i}", query, measure, v) for i, v in enumerate(numbers)]
    long = pd.DataFrame(rows, columns=["run", "query", "measure", "value"])
    return long.pivot_table(index=["run", "query"], columns="measure", values="value")


@settings(max_examples=60, deadline=None)
@given(
    st.dictionaries(
        st.tuples(st.sampled_from(["q1", "q2", "10"]), st.sampled_from(["AP", "P@5"])),
        st.lists(st.floats(-5, 5, allow_nan=False), min_size=3, max_size=3),
        min_size=1,
    )
)
def test_zscores_are_value_minus_mean_over_deviation(values) -> None:
    """Against a plain loop: mean and sample deviation per query and measure; a
    deviation of 0 gives 0 at the mean and NaN elsewhere."""
    table = _table(values)
    stats = pdireval.zscore_stats(table)
    z = pdireval.zscores(table, stats)
    for (query, measure), numbers in values.items():
        mean = sum(numbers) / len(numbers)
        sd = math.sqrt(sum((v - mean) ** 2 for v in numbers) / (len(numbers) - 1))
        row = stats[(stats["query"] == query) & (stats["measure"] == measure)].iloc[0]
        assert row["mean"] == pytest.approx(mean, abs=1e-12)
        assert row["stddev"] == pytest.approx(sd, abs=1e-12)
        for i, value in enumerate(numbers):
            got = z.loc[(f"r{i}", query), measure]
            if row["stddev"] != 0:
                assert got == pytest.approx((value - row["mean"]) / row["stddev"])
            else:
                assert got == 0 or (math.isnan(got) and value != row["mean"])


def test_values_without_statistics_are_missing() -> None:
    table = pdireval.evaluate(example(), ["AP", "P@10"])
    stats = pdireval.zscore_stats(table)
    partial = stats[(stats["measure"] == "AP") & (stats["query"] != "401")]
    z = pdireval.zscores(table, partial, missing=-1e6)
    assert (z["P@10"] == -1e6).all()
    queries = z.index.get_level_values("query")
    assert (z.loc[queries == "401", "AP"] == -1e6).all()
    assert np.isfinite(z.loc[queries != "401", "AP"]).all()


def test_a_zscores_file_reads_back(tmp_path) -> None:
    table = pdireval.evaluate(example(), ["AP", "P@10"])
    stats = pdireval.zscore_stats(table)
    path = pdireval.write_zscores(stats, tmp_path / "zscores")
    back = pdireval.read_zscores(path)
    pd.testing.assert_frame_equal(back, stats.astype({"query": object, "measure": object}))


@pytest.mark.parametrize(
    ("text", "found"),
    [
        ("301 map 0.2\n", "3 fields"),
        ("301 map 0.2 0.1\n\n", "line 2: 0 fields"),
        ("301 map x 0.1\n", "the mean 'x' is not a number"),
        ("301 map 0.2 0.1 extra\n", "5 fields"),
    ],
)
def test_a_malformed_zscores_file_is_refused_naming_the_line(tmp_path, text, found) -> None:
    path = tmp_path / "zscores"
    path.write_text(text)
    with pytest.raises(SchemaError, match=found):
        pdireval.read_zscores(path)


def test_zscores_need_the_statistics_columns() -> None:
    table = pdireval.evaluate(example(), ["AP"])
    with pytest.raises(SchemaError, match=r"zscore_stats or pdireval\.read_zscores"):
        pdireval.zscores(table, pd.DataFrame({"query": ["401"], "mean": [0.1]}))


def _zscores_file(path, queries, seed: int) -> None:
    """Means and deviations for most measures of most queries (some left out, a zero
    deviation here and there), as trec_eval's make_zscore_file.py writes them.

    trec_eval's binary searches of the file read one entry past the end when a query
    id, or a measure name of a query, sorts after every one the file has (10.0 then
    crashes); a last query ``zzz`` and a last measure ``zzz`` of each query keep the
    searches inside, so every lookup, found or not, is well defined.
    """
    rng = np.random.default_rng(seed)
    names = ["map", "P_5", "P_10", "num_ret", "num_rel_ret", "recip_rank", "ndcg", "bpref",
             "iprec_at_recall_0.00", "Rprec", "gm_map", "set_F", "utility"]  # fmt: skip
    lines = []
    for query in queries:
        if rng.random() < 0.1:
            continue  # a query without statistics: every value -1000000
        for name in names:
            if rng.random() < 0.1:
                continue
            stddev = 0.0 if rng.random() < 0.05 else rng.uniform(0.01, 3)
            lines.append(f"{query} {name} {rng.uniform(0, 1):.4f} {stddev:.4f}\n")
        lines.append(f"{query} zzz 0 1\n")
    lines.append("zzz zzz 0 1\n")
    path.write_text("".join(lines))


@pytest.mark.parametrize("version", ["9.0.8", "10.0"])
@pytest.mark.parametrize(
    "options", [["-q"], ["-q", "-m", "all_trec"], ["-c", "-q", "-m", "all_trec"], ["-J", "-q"]]
)
def test_the_command_line_standardises_as_each_program(
    trec_eval, trec_eval_10, tmp_path, capsys, version, options
) -> None:
    program = trec_eval if version == "9.0.8" else trec_eval_10
    retrieved = version == "10.0" and "-c" not in options
    run, qrels = write_case(tmp_path, 7, all_retrieved=retrieved)
    queries = sorted({line.split()[0] for line in qrels.read_text().splitlines()})
    _zscores_file(tmp_path / "zscores", queries, 7)
    arguments = [*options, "-Z", str(tmp_path / "zscores"), str(qrels), str(run)]
    expected = subprocess.run([str(program), *arguments], capture_output=True, text=True)
    assert expected.returncode == 0, expected.stderr
    capsys.readouterr()
    assert main(["--trec-eval-version", version, *arguments]) == 0
    assert capsys.readouterr().out == expected.stdout
