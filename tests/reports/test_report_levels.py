"""The paper's wide table: systems x (collection, metric), seeds averaged, marks per collection."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from levels_frames import LEVELS, seeded_table

from pdireval._core.errors import SchemaError
from pdireval._core.levels import Levels
from pdireval._core.options import Evaluation, Significance
from pdireval.datasets import example
from pdireval.metrics import parse_metrics
from pdireval.reports.build import build_report
from pdireval.reports.levels import MACRO, cell_key
from pdireval.stats.comparison import compare_table
from pdireval.stats.summary import seed_summary

METRICS = ["AP", "nDCG@10"]
SIGNIFICANCE = Significance(baseline="bm25")


def _report(table, levels=LEVELS, significance=SIGNIFICANCE, **options):
    return build_report(
        table, parse_metrics(list(table.columns)), Evaluation(), significance, levels=levels,
        **options,
    )  # fmt: skip


@pytest.fixture(scope="module")
def table() -> pd.DataFrame:
    return seeded_table(METRICS)


@pytest.fixture(scope="module")
def report(table):
    return _report(table)


def test_wide_table_values_are_groupby_means(table, report) -> None:
    per_seed = table.groupby(level=["system", "dataset", "seed"]).mean()
    cells = per_seed.groupby(level=["system", "dataset"]).mean()
    collections = ["robust04", "msmarco", "trec-covid"]
    assert list(report.summary.index) == ["bm25", "dense", "colbert", "splade", "monot5"]
    expected_columns = [(c, m) for c in [*collections, MACRO] for m in METRICS]
    assert list(report.summary.columns) == expected_columns
    assert report.summary.columns.names == ["dataset", "metric"]
    for run in report.summary.index:
        for collection in collections:
            for metric in METRICS:
                assert report.summary.loc[run, (collection, metric)] == pytest.approx(
                    cells.loc[(run, collection), metric], rel=1e-12
                )
        for metric in METRICS:  # macro average: the mean of the collection means
            macro = np.mean([cells.loc[(run, c), metric] for c in collections])
            assert report.summary.loc[run, (MACRO, metric)] == pytest.approx(macro, rel=1e-12)


def test_marks_are_the_within_collection_comparisons(table, report) -> None:
    comparison = compare_table(table, SIGNIFICANCE, LEVELS)
    pd.testing.assert_frame_equal(report.comparison, comparison)
    assert list(comparison.columns[:2]) == ["dataset", "run"]
    marks = report.marks
    significant = 0
    for row in comparison.itertuples(index=False):
        text = marks.text(row.run, cell_key((row.dataset, row.metric)))
        expected = ("▲" if row.delta > 0 else "▼") if row.significant else ""
        assert text == expected
        significant += bool(row.significant)
    assert significant >= 4  # the table shows marks (monot5 beats bm25 everywhere)
    for run in report.summary.index:  # no marks on the macro average
        for metric in METRICS:
            assert marks.text(run, cell_key((MACRO, metric))) == ""
    assert "24 comparisons" in report.legend()


def test_intervals_are_over_seeds(table, report) -> None:
    seeds = seed_summary(table, LEVELS)
    for run, collection in [("colbert", "msmarco"), ("bm25", "trec-covid")]:
        row = seeds.loc[(run, collection), "AP"]
        half = (row["ci_high"] - row["ci_low"]) / 2
        assert report.intervals.loc[run, (collection, "AP")] == pytest.approx(half)
    per_seed = table.groupby(level=["system", "dataset", "seed"]).mean()
    macro_per_seed = per_seed.groupby(level=["system", "seed"]).mean()["AP"].loc["dense"]
    from scipy import stats

    low, high = stats.t.interval(0.95, 2, macro_per_seed.mean(), stats.sem(macro_per_seed))
    assert report.intervals.loc["dense", (MACRO, "AP")] == pytest.approx((high - low) / 2)


def test_latex_has_a_header_per_collection_and_the_marks(report) -> None:
    text = report.to_latex()
    lines = text.splitlines()
    spans = next(line for line in lines if "robust04" in line)
    assert spans.startswith(" & ")
    for name in ("robust04", "msmarco", "trec-covid", MACRO):
        assert rf"\multicolumn{{4}}{{c}}{{{name}}}" in spans
    assert r"\cmidrule(lr){2-5}\cmidrule(lr){6-9}\cmidrule(lr){10-13}\cmidrule(lr){14-17}" in text
    assert r"\begin{tabular}{l" + "r@{}l" * 8 + "}" in text
    monot5 = next(line for line in lines if line.startswith("monot5"))
    marked = sum(
        report.marks.text("monot5", cell_key(key)) == "▲" for key in report.summary.columns
    )
    assert monot5.count(r"\blacktriangle") == marked
    assert "macro average" in text


def test_latex_transposed_has_a_row_per_collection_and_metric(report) -> None:
    text = report.to_latex(transpose=True)
    assert r"\begin{tabular}{ll" + "r@{}l" * 5 + "}" in text
    assert r"dataset & Metric & \multicolumn{2}{c}{bm25 (baseline)}" in text
    rows = [line for line in text.splitlines() if "nDCG@10 &" in line]
    assert len(rows) == 4
    assert all(row.startswith(" & ") for row in rows)
    assert text.count(r"\midrule") == 4  # under the header, then between the collections


def test_excel_merges_a_header_per_collection(tmp_path, report) -> None:
    openpyxl = pytest.importorskip("openpyxl")
    path = report.to_excel(tmp_path / "wide.xlsx")
    sheet = openpyxl.load_workbook(path)["Results"]
    merged = sorted(str(cells) for cells in sheet.merged_cells.ranges if cells.min_row == 1)
    assert merged == ["B1:C1", "D1:E1", "F1:G1", "H1:I1"]
    assert [sheet.cell(1, c).value for c in (2, 4, 6, 8)] == [
        "robust04", "msmarco", "trec-covid", MACRO,
    ]  # fmt: skip
    assert [sheet.cell(2, c).value for c in range(1, 4)] == ["Run", "AP", "nDCG@10"]
    assert sheet.freeze_panes == "B3"
    for row, run in enumerate(report.summary.index, start=3):
        for column, key in enumerate(report.summary.columns, start=2):
            cell = sheet.cell(row, column)
            assert cell.value == pytest.approx(report.summary.loc[run, key])
            mark = report.marks.text(run, cell_key(key))
            assert cell.number_format == "0.0000" + (f'"{mark}"' if mark else "")
    comparisons = openpyxl.load_workbook(path)["Comparisons"]
    assert [comparisons.cell(1, c).value for c in (1, 2)] == ["dataset", "Run"]
    per_query = openpyxl.load_workbook(path)["Per query"]
    assert [per_query.cell(1, c).value for c in range(1, 5)] == [
        "Metric", "dataset", "seed", "Query",
    ]  # fmt: skip
    assert per_query.cell(2, 3).data_type == "s"  # seed ids are text


def test_markdown_html_and_print_show_every_block(report) -> None:
    markdown = report.to_markdown()
    assert "| Run | robust04 / AP | robust04 / nDCG@10 |" in markdown
    assert "| dataset | Run | Baseline | Metric |" in markdown
    html = report.to_html()
    assert '<th colspan="2" class="span">trec-covid</th>' in html
    printed = str(report)
    assert printed.splitlines()[0].split() == [
        "dataset",
        "robust04",
        "msmarco",
        "trec-covid",
        MACRO,
    ]
    assert "macro average" in printed
    transposed = report.to_html(transpose=True)
    assert transposed.count('<tr class="group">') == 3


def test_user_names_are_escaped_in_every_format(tmp_path) -> None:
    hostile = seeded_table(
        ["AP"],
        collections=("=1+2", "a_b & <i>|"),
        systems=("bm25", "$x^2$"),
        strengths=(1.0, 3.0),
        seeds=(1, 2),
        n_queries=6,
    )
    report = _report(hostile)
    latex = report.to_latex()
    assert r"\multicolumn{2}{c}{a\_b \& \textless{}i\textgreater{}\textbar{}}" in latex
    assert r"\$x\textasciicircum{}2\$" in latex
    assert "a_b & <i>|" not in latex
    markdown = report.to_markdown()
    assert r"a\_b &amp; &lt;i&gt;\| / AP" in markdown
    html = report.to_html()
    assert "a_b &amp; &lt;i&gt;|" in html
    assert "<i>" not in html
    openpyxl = pytest.importorskip("openpyxl")
    sheet = openpyxl.load_workbook(report.to_excel(tmp_path / "x.xlsx"))["Results"]
    formula = sheet.cell(1, 2)
    assert formula.value == "=1+2"
    assert formula.data_type == "s"


def test_one_collection_has_no_macro_average(table) -> None:
    one = table[table.index.get_level_values("dataset") == "msmarco"]
    report = _report(one)
    assert list(report.summary.columns) == [("msmarco", "AP"), ("msmarco", "nDCG@10")]
    assert "macro" not in report.to_latex()


def test_a_collection_named_like_the_macro_average_is_refused(table) -> None:
    renamed = table.rename(index={"msmarco": MACRO}, level="dataset")
    with pytest.raises(SchemaError, match="macro-average"):
        _report(renamed)


def test_a_missing_seed_is_refused(table) -> None:
    drop = (table.index.get_level_values("system") == "dense") & (
        table.index.get_level_values("seed") == 2
    )
    with pytest.raises(SchemaError, match="run 'dense' has no results for seed=2"):
        _report(table[~drop])


def test_seeds_without_collections_give_one_column_per_metric(table) -> None:
    one = table.xs("robust04", level="dataset")
    levels = Levels(query="query", run="system", seed="seed")
    report = _report(one, levels)
    per_seed = one.groupby(level=["system", "seed"]).mean()
    expected = per_seed.groupby(level="system").mean().reindex(report.summary.index)
    pd.testing.assert_frame_equal(report.summary, expected, check_names=False)
    assert "seed" in report.mean_interval
    assert list(report.comparison.columns[:1]) == ["run"]


def test_judges_get_a_block_each_with_their_own_macro_average(table) -> None:
    one = table.xs(1, level="seed", drop_level=False)
    judged = pd.concat({"nist": one, "llm": one.clip(upper=0.7)}, names=["judge"])
    judged = judged.reorder_levels(["system", "judge", "dataset", "seed", "query"])
    levels = Levels(query="query", run="system", judge="judge", collection="dataset", seed="seed")
    report = _report(judged, levels)
    blocks = list(dict.fromkeys(key[:2] for key in report.summary.columns))
    assert blocks == [
        ("nist", "robust04"), ("nist", "msmarco"), ("nist", "trec-covid"), ("nist", MACRO),
        ("llm", "robust04"), ("llm", "msmarco"), ("llm", "trec-covid"), ("llm", MACRO),
    ]  # fmt: skip
    llm = judged.xs("llm", level="judge").groupby(level=["system", "dataset"]).mean()
    assert report.summary.loc["dense", ("llm", "msmarco", "AP")] == pytest.approx(
        llm.loc[("dense", "msmarco"), "AP"]
    )
    assert report.to_latex().count(r"\cmidrule") == 2 + 8  # judges, then their blocks


def test_transpose_of_a_plain_report() -> None:
    report = example().ireval.report(["AP", "P@10"], baseline="medium")
    pd.testing.assert_frame_equal(report.table(transpose=True), report.table().T)
    text = report.to_latex(transpose=True)
    assert r"Metric & \multicolumn{2}{c}{medium (baseline)}" in text
    assert "| Metric | medium (baseline) | strong | weak |" in report.to_markdown(transpose=True)


def test_risk_columns_in_every_comparison_rendering(tmp_path, table) -> None:
    report = _report(table, risk_alpha=1)
    assert report.settings["risk alpha"] == 1
    text = report.comparison_text()
    assert list(text.columns[-2:]) == ["URisk (α = 1)", "TRisk"]
    assert "URisk (α = 1)" in report.to_markdown()
    assert "TRisk" in report.to_html()
    openpyxl = pytest.importorskip("openpyxl")
    sheet = openpyxl.load_workbook(report.to_excel(tmp_path / "r.xlsx"))["Comparisons"]
    header = [cell.value for cell in sheet[1]]
    assert header[-2:] == ["URisk (α = 1)", "TRisk"]
    assert sheet.cell(2, len(header) - 1).value == pytest.approx(report.comparison["urisk"][0])


def test_latex_notes_are_plain_latex(table) -> None:
    """Every character of the wide table's LaTeX is ASCII (pdflatex reads it as it is)."""
    for test in ("t", "bootstrap"):
        report = _report(
            table, significance=Significance(baseline="bm25", test=test, n_resamples=99)
        )
        text = report.to_latex(ci=True)
        assert text.isascii(), sorted({char for char in text if not char.isascii()})
