"""Reports: Excel, LaTeX, Markdown, CSV and HTML renderings of summary/comparison/per-query."""

from __future__ import annotations

import re
import shutil
import subprocess
import sys

import numpy as np
import pandas as pd
import pytest

import pdireval
from pdireval.datasets import toy

pytest.importorskip("scipy")
openpyxl = pytest.importorskip("openpyxl")

GAINS = [1, 2, 1, 3, 2, 1, 2, 3, 1, 2, 1, 2]


def frame() -> pd.DataFrame:
    """Runs base_run, better (more relevant documents on every query) and same (= base_run).

    Query i has 10 relevant documents; base_run and same put 3 of them in the top 10,
    better puts 3 + GAINS[i]. P@10 is the number of hits / 10.
    """
    rows = []
    for run in ("base_run", "better", "same"):
        for i, gain in enumerate(GAINS):
            query, hits = f"q{i:02d}", 3 + (gain if run == "better" else 0)
            for rank in range(1, 11):
                relevant = rank <= hits
                doc = f"{query}-rel{rank}" if relevant else f"{query}-{run}-non{rank}"
                rows.append((run, query, doc, rank, int(relevant)))
            rows += [(run, query, f"{query}-rel{j}", None, 1) for j in range(hits + 1, 11)]
    return pd.DataFrame(rows, columns=["run", "query", "doc", "rank", "rel"])


@pytest.fixture(scope="module")
def report() -> pdireval.Report:
    return frame().ireval.report(["P@10", "R@10"], baseline="base_run", test="sign")


def test_report_tables(report) -> None:
    """The report holds summary, comparison and per-query tables that agree with the API."""
    f = frame()
    pd.testing.assert_frame_equal(report.summary, f.ireval.summary(["P@10", "R@10"]))
    pd.testing.assert_frame_equal(
        report.comparison, f.ireval.compare(["P@10", "R@10"], baseline="base_run", test="sign")
    )
    pd.testing.assert_frame_equal(
        report.per_query.loc["P@10"], f.ireval.per_query("P@10", baseline="base_run")
    )
    assert report.comparison["significant"].tolist() == [True, True, False, False]
    about = dict(zip(report.about["item"], report.about["value"], strict=True))
    assert about["pdireval version"] == pdireval.__version__
    assert about["test"] == "sign"
    assert about["correction"] == "holm"
    assert about["queries"] == "judged"
    assert "trec_eval" in about["tie rule"]
    assert about["metric P@10"].startswith("Precision at k")
    assert "<Report: runs ['base_run', 'better', 'same']" in repr(report)


def test_excel(report, tmp_path) -> None:
    """Sheets, values, number formats, frozen panes, filters, bold best values and marks."""
    path = report.to_excel(tmp_path / "report.xlsx")
    book = openpyxl.load_workbook(path)
    assert book.sheetnames == ["Summary", "Comparison", "Per-query", "About"]

    summary = book["Summary"]
    assert [c.value for c in summary[1]] == ["run", "P@10", "R@10"]
    assert summary.freeze_panes == "B2"
    assert summary.auto_filter.ref == "A1:C4"
    assert summary["A3"].value == "better"
    assert summary["B3"].value == pytest.approx(
        report.summary.loc["better", "P@10"], rel=1e-15
    )  # Excel keeps 15 digits
    assert summary["B3"].number_format == "0.0000"
    assert summary["B3"].font.bold  # better is best on P@10
    assert not summary["B2"].font.bold
    assert not summary["B4"].font.bold
    assert summary["B3"].fill.fgColor.rgb.endswith("FFEB9C")  # significant vs base_run
    assert summary["B4"].fill.fill_type is None
    assert summary["A1"].font.bold
    assert summary.column_dimensions["A"].width >= len("base_run")

    comparison = book["Comparison"]
    header = [c.value for c in comparison[1]]
    assert header == list(report.comparison.columns)
    col = {name: i + 1 for i, name in enumerate(header)}
    assert comparison.freeze_panes == "D2"
    assert comparison.auto_filter.ref == "A1:P5"
    assert comparison.cell(2, col["run"]).value == "better"
    assert comparison.cell(2, col["significant"]).value is True
    assert comparison.cell(2, col["wins"]).value == 12
    delta = comparison.cell(2, col["delta"])
    assert delta.value == pytest.approx(report.comparison["delta"][0])
    assert delta.font.bold
    assert delta.fill.fgColor.rgb.endswith("C6EFCE")
    assert not comparison.cell(4, col["delta"]).font.bold  # same vs base_run: not significant
    assert comparison.cell(2, col["relative_delta"]).number_format == "0.00%"
    p_cell = comparison.cell(2, col["p_value"])  # 2 / 2^12 = 0.00049
    assert p_cell.value == pytest.approx(2 / 4096)
    assert p_cell.number_format == "0.0000"
    assert comparison.cell(4, col["p_value"]).value == 1
    assert comparison.cell(4, col["effect_size"]).value is None  # NaN -> empty cell
    assert comparison.column_dimensions["K"].width >= len("p_adjusted")

    per_query = book["Per-query"]
    assert [c.value for c in per_query[1]] == [
        "metric",
        "query",
        "base_run",
        "better",
        "same",
        "better - base_run",
        "same - base_run",
    ]
    assert per_query.freeze_panes == "C2"
    assert per_query.max_row == 1 + 2 * len(GAINS)
    assert per_query["F2"].value == pytest.approx(0.3)  # largest P@10 gain first
    assert per_query["F2"].number_format == "0.0000"

    about = {row[0]: row[1] for row in book["About"].iter_rows(min_row=2, values_only=True)}
    assert about["test description"] == "sign test"
    assert about["pdireval version"] == pdireval.__version__
    assert about["metric R@10"].startswith("Recall")


def test_excel_small_p_values_scientific(tmp_path) -> None:
    """p-values below 1e-4 get a scientific number format."""
    rows = frame()
    big = pd.concat([rows.assign(query=rows["query"] + f"-{k}") for k in range(2)])
    rep = big.ireval.report("P@10", baseline="base_run", test="sign", correction=None)
    book = openpyxl.load_workbook(rep.to_excel(tmp_path / "r.xlsx"))
    cell = book["Comparison"]["J2"]
    assert cell.value == pytest.approx(2 / 2**24)
    assert cell.number_format == "0.00E+00"


def test_excel_without_openpyxl(report, tmp_path, monkeypatch) -> None:
    """Without openpyxl, to_excel says how to install it."""
    monkeypatch.setitem(sys.modules, "openpyxl", None)
    with pytest.raises(pdireval.MissingDependencyError, match=r"pdireval\[excel\]"):
        report.to_excel(tmp_path / "x.xlsx")
    assert not (tmp_path / "x.xlsx").exists()


def test_latex_structure(report) -> None:
    """booktabs rules, one column per metric plus run, bold best values, markers, legend."""
    tex = report.to_latex(caption="Results 100%")
    lines = tex.splitlines()
    assert lines[0] == r"\begin{table}"
    assert lines[-1] == r"\end{table}"
    for rule in (r"\toprule", r"\midrule", r"\bottomrule"):
        assert lines.count(rule) == 1
    spec = re.search(r"\\begin\{tabular\}\{([a-z]+)\}", tex).group(1)
    assert spec == "lrr"
    body = lines[lines.index(r"\midrule") + 1 : lines.index(r"\bottomrule")]
    header = lines[lines.index(r"\toprule") + 1]
    assert header == r"run & P@10 & R@10 \\"
    assert len(body) == 3
    for line in [header, *body]:
        assert len(re.findall(r"(?<!\\)&", line)) == len(spec) - 1
        assert line.endswith(r"\\")
    assert body[0].startswith(r"base\_run & ")  # underscores escaped
    # better: (3 + mean(GAINS)) / 10 = (3 + 21 / 12) / 10 = 0.475 for both P@10 and R@10
    assert body[1] == r"better & \textbf{0.4750}$^{\dagger}$ & \textbf{0.4750}$^{\dagger}$ \\"
    assert r"\textbf" not in body[2]
    assert "dagger" not in body[2]
    assert r"${}^{\dagger}$ significantly different from base\_run" in tex
    assert r"sign test, Holm correction, $\alpha$ = 0.05" in tex
    assert r"\caption{Results 100\%}" in tex
    assert tex.count(r"\begin{") == tex.count(r"\end{")
    assert tex.count("{") == tex.count("}")


@pytest.mark.skipif(shutil.which("pdflatex") is None, reason="pdflatex not installed")
def test_latex_compiles(report, tmp_path) -> None:  # pragma: no cover - needs TeX
    """With pdflatex installed, the table compiles in a minimal document."""
    doc = "\\documentclass{article}\\usepackage{booktabs}\\begin{document}\n"
    (tmp_path / "t.tex").write_text(doc + report.to_latex() + "\n\\end{document}\n")
    done = subprocess.run(
        ["pdflatex", "-interaction=nonstopmode", "t.tex"], cwd=tmp_path, capture_output=True
    )
    assert done.returncode == 0


def _read_markdown(text: str, title: str) -> pd.DataFrame:
    block = text.split(f"## {title}\n\n")[1].split("\n\n")[0].splitlines()
    cells = [[c.strip() for c in line.strip("|").split(" | ")] for line in block]
    assert re.fullmatch(r"\|(---:?\|)+", block[1])
    return pd.DataFrame(cells[2:], columns=cells[0])


def test_markdown_round_trip(report) -> None:
    """Every Markdown table reads back to the report's values at the printed precision."""
    text = report.to_markdown(digits=6)
    summary = _read_markdown(text, "Summary").set_index("run").astype(float)
    np.testing.assert_allclose(summary.to_numpy(), report.summary.to_numpy(), atol=5e-7)
    assert list(summary.columns) == ["P@10", "R@10"]
    comparison = _read_markdown(text, "Comparison")
    assert list(comparison.columns) == list(report.comparison.columns)
    assert comparison["significant"].tolist() == ["True", "True", "False", "False"]
    np.testing.assert_allclose(
        comparison["p_value"].astype(float), report.comparison["p_value"], atol=5e-7
    )
    assert comparison["effect_size"].tolist()[2:] == ["", ""]  # NaN written empty
    per_query = _read_markdown(text, "Per-query")
    flat = report.per_query_flat()
    assert per_query["query"].tolist() == flat["query"].tolist()
    np.testing.assert_allclose(
        per_query.iloc[:, 2:].astype(float), flat.iloc[:, 2:].to_numpy(), atol=5e-7
    )


def test_markdown_escapes_pipes() -> None:
    """A run name holding '|' does not break the table."""
    f = toy().replace({"run": {"system1": "a|b"}})
    text = f.ireval.report("AP").to_markdown()
    assert r"| a\|b | " in text


def test_csv_round_trip(report, tmp_path) -> None:
    """to_csv writes four files that read back to the same tables (full precision)."""
    paths = report.to_csv(tmp_path / "out")
    assert [p.name for p in paths] == [
        "summary.csv",
        "comparison.csv",
        "per_query.csv",
        "about.csv",
    ]
    summary = pd.read_csv(paths[0], index_col="run")
    pd.testing.assert_frame_equal(summary, report.summary, check_names=False)
    comparison = pd.read_csv(paths[1])
    pd.testing.assert_frame_equal(comparison, report.comparison)
    per_query = pd.read_csv(paths[2])
    pd.testing.assert_frame_equal(per_query, report.per_query_flat())
    about = pd.read_csv(paths[3])
    assert about["item"].tolist() == report.about["item"].tolist()


def test_html_with_styler(report) -> None:
    """In a notebook the report renders with pandas Styler (bold best, shaded significant)."""
    pytest.importorskip("jinja2")
    html = report._repr_html_()
    assert html.count("<table") == 3
    assert "font-weight: bold" in html
    assert "#C6EFCE" in html


def test_html_without_jinja2(report, monkeypatch) -> None:
    """Without jinja2 the report falls back to plain DataFrame HTML instead of failing."""
    monkeypatch.setitem(sys.modules, "jinja2", None)
    html = report._repr_html_()
    assert html.count("<table") == 3
    assert "font-weight: bold" not in html
    assert "better" in html


def test_report_errors() -> None:
    """A report needs two runs and valid options, like compare."""
    one = toy().query("run == 'system1'")
    with pytest.raises(pdireval.SchemaError, match="at least two runs"):
        one.ireval.report("AP")
    with pytest.raises(pdireval.MetricError, match="test='x'"):
        toy().ireval.report("AP", test="x")
