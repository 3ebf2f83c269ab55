"""Reports: one significance vocabulary in the paper table, LaTeX, Markdown, HTML, Excel, CSV."""

from __future__ import annotations

import re
import shutil
import subprocess
import sys

import numpy as np
import pandas as pd
import pytest

import pdireval
from pdireval._core import escape
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


def test_paper_table_marks_direction_and_baseline(report) -> None:
    """better is significantly above base_run on both metrics: ▲ after its values; same is
    not marked; the legend names the baseline, the test, the correction and alpha."""
    table = report.table()
    # better: (3 + mean(GAINS)) / 10 = (3 + 21 / 12) / 10 = 0.475 for both P@10 and R@10
    assert table.loc["better"].tolist() == ["0.4750▲", "0.4750▲"]
    assert table.loc["same"].tolist() == ["0.3000", "0.3000"]
    assert table.loc["base_run"].tolist() == ["0.3000", "0.3000"]
    assert report.legend() == (
        "▲/▼: significantly better/worse than base_run; sign test, Holm's correction "
        "over 4 comparisons, alpha = 0.05."
    )


def _worse_and_better() -> pd.DataFrame:
    """Three runs, the baseline in the middle: one significantly worse, one better."""
    f = frame()
    worse = f[f["run"] == "base_run"].assign(run="worse")
    worse.loc[worse["rank"] <= 2, "rel"] = 0  # 1 hit in the top 10 instead of 3
    return pd.concat([f[f["run"] != "same"], worse], ignore_index=True)


def test_worse_runs_get_the_other_mark_in_every_format() -> None:
    report = _worse_and_better().ireval.report("P@10", baseline="base_run", test="sign")
    assert report.table().loc["worse", "P@10"].endswith("▼")
    assert report.table().loc["better", "P@10"].endswith("▲")
    assert r"$^{\blacktriangledown}$" in report.to_latex()
    assert "▼" in report.to_markdown()
    assert '<span style="color:#cf222e">▼</span>' in report.to_html()


def test_several_baselines_get_letters() -> None:
    report = _worse_and_better().ireval.report("P@10", baseline=["base_run", "better"], test="sign")
    cell = report.table().loc["worse", "P@10"]
    assert cell.endswith("▼a▼b")
    assert "a = base_run, b = better" in report.legend()


def test_intervals_in_the_paper_table(report) -> None:
    """± is the half-width of the 95% t interval of each run's mean over its queries."""
    stats = pytest.importorskip("scipy.stats")
    per_query = frame().ireval.evaluate("P@10").xs("better", level="run")["P@10"]
    half = stats.t.ppf(0.975, len(per_query) - 1) * per_query.std(ddof=1) / np.sqrt(12)
    assert report.intervals.loc["better", "P@10"] == pytest.approx(half)
    assert report.table(ci=True).loc["better", "P@10"] == f"0.4750 ± {half:.4f}▲"


@pytest.mark.parametrize(
    ("p", "text"),
    [(7.3e-18, "<0.001"), (0.000999, "<0.001"), (0.001, "0.00100"), (0.04846, "0.0485"),
     (0.5, "0.500"), (1.0, "1.00"), (float("nan"), "")],
)  # fmt: skip
def test_p_values_as_journals_print_them(p: float, text: str) -> None:
    from pdireval.reports.numbers import format_p

    assert format_p(p) == text


def test_comparison_text_is_compact_and_formatted(report) -> None:
    shown = report.comparison_text()
    assert list(shown.columns) == [
        "Run", "Baseline", "Metric", "Mean", "Baseline mean", "Δ", "Δ %",
        "95% CI of Δ (unadjusted)", "p (adjusted)", "", "d", "W/T/L",
    ]  # fmt: skip
    first = shown.iloc[0]
    assert first["Δ"] == "+0.1750"
    assert first["Δ %"] == "+58.3%"
    assert first[""] == "▲"
    assert first["W/T/L"] == "12/0/0"
    assert re.fullmatch(r"<0\.001|0\.\d+", first["p (adjusted)"])


def test_latex_structure(report) -> None:
    """A comment naming the packages, booktabs rules, caption and label, two columns per
    metric (integer part | decimals and marks), bold best, marks, legend."""
    tex = report.to_latex(caption="Results 100%", label="tab:results")
    lines = tex.splitlines()
    assert lines[0] == r"% Needs \usepackage{booktabs,amssymb,graphicx} in the preamble."
    assert lines[1] == r"\begin{table}"
    assert lines[-1] == r"\end{table}"
    assert r"\caption{Results 100\%}" in lines
    assert r"\label{tab:results}" in lines
    for rule in (r"\toprule", r"\midrule", r"\bottomrule"):
        assert lines.count(rule) == 1
    spec = re.search(r"\\begin\{tabular\}\{([a-z@{}]+)\}", tex).group(1)
    assert spec == "lr@{}lr@{}l"
    body = lines[lines.index(r"\midrule") + 1 : lines.index(r"\bottomrule")]
    header = lines[lines.index(r"\toprule") + 1]
    assert header == r"Run & \multicolumn{2}{c}{P@10} & \multicolumn{2}{c}{R@10} \\"
    assert len(body) == 3
    for line in body:
        assert len(re.findall(r"(?<!\\)&", line)) == 4
        assert line.endswith(r"\\")
    assert body[0].startswith(r"base\_run (baseline) & ")  # underscores escaped, labelled
    assert body[1] == (
        r"better & \textbf{0} & \textbf{.4750}$^{\blacktriangle}$ & \textbf{0} & "
        r"\textbf{.4750}$^{\blacktriangle}$ \\"
    )
    assert "blacktriangle" not in body[2]
    assert r"better/worse than base\_run; sign test" in tex
    assert r"$\alpha$ = 0.05" in tex
    assert "Runs:" not in tex  # short names: no key
    assert tex.count(r"\begin{") == tex.count(r"\end{")
    assert tex.count("{") == tex.count("}")
    assert report.to_latex(wide=True).splitlines()[1] == r"\begin{table*}"


@pytest.mark.skipif(shutil.which("pdflatex") is None, reason="pdflatex not installed")
def test_latex_compiles(report, tmp_path) -> None:  # pragma: no cover - needs TeX
    """With pdflatex installed, the table compiles with the packages its comment names."""
    tex = report.to_latex(ci=True)
    packages = re.search(r"\\usepackage\{([^}]*)\}", tex.splitlines()[0]).group(1)
    doc = f"\\documentclass{{article}}\\usepackage{{{packages}}}\\begin{{document}}\n"
    (tmp_path / "t.tex").write_text(doc + tex + "\n\\end{document}\n")
    done = subprocess.run(
        ["pdflatex", "-interaction=nonstopmode", "-halt-on-error", "t.tex"],
        cwd=tmp_path,
        capture_output=True,
    )
    assert done.returncode == 0, done.stdout.decode(errors="replace")[-2000:]


def _read_markdown(text: str, title: str) -> pd.DataFrame:
    block = text.split(f"## {title}\n\n")[1].split("\n\n")[0].splitlines()
    cells = [[c.strip() for c in line.strip("|").split(" | ")] for line in block]
    assert re.fullmatch(r"\|(---:?\|)+", block[1])
    return pd.DataFrame(cells[2:], columns=cells[0])


def test_markdown_paper_table_and_comparisons(report) -> None:
    text = report.to_markdown(digits=6, per_query=True)
    results = _read_markdown(text, "Results").set_index("Run")
    assert results.loc["better", "P@10"] == "**0.475000**▲"
    numbers = results.map(lambda cell: float(cell.strip("*▲▼")))
    np.testing.assert_allclose(numbers.to_numpy(), report.summary.to_numpy(), atol=5e-7)
    assert escape.markdown(report.legend()) in text
    assert "than base\\_run;" in text  # the run's name escaped, as in the tables
    comparisons = _read_markdown(text, "Comparisons")
    assert comparisons["Run"].tolist() == ["better", "better", "same", "same"]
    per_query = _read_markdown(text, "Per query")
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


def test_html(report) -> None:
    """Self-contained HTML: bold best values, coloured marks, the legend, details."""
    html = report._repr_html_()
    assert "<b>0.4750</b>" in html
    assert '<span style="color:#1a7f37">▲</span>' in html
    assert "better/worse than base_run" in html
    assert html.count("<details>") == 2


def test_excel(report, tmp_path) -> None:
    """Numbers stay numbers; formats show decimals, marks and journal p-values; one font."""
    path = report.to_excel(tmp_path / "report.xlsx")
    book = openpyxl.load_workbook(path)
    assert book.sheetnames == ["Results", "Comparisons", "Per query", "About"]
    results = book["Results"]
    assert [c.value for c in results[1]] == ["Run", "P@10", "R@10"]
    assert results["A2"].value == "base_run (baseline)"
    assert results["A3"].value == "better"
    expected = report.summary.loc["better", "P@10"]
    assert results["B3"].value == pytest.approx(expected, rel=1e-15)  # Excel keeps 15 digits
    assert results["B3"].number_format == '0.0000"▲"'
    assert results["B3"].font.bold
    assert results["B3"].fill.start_color.rgb.endswith("D8F0DC")
    assert not results["B2"].font.bold
    assert results.auto_filter.ref is None  # no filter on a three-row table
    fonts = {cell.font.name for sheet in book for row in sheet.iter_rows() for cell in row
             if cell.value is not None}  # fmt: skip
    assert fonts == {"Arial"}
    width = results.column_dimensions["B"].width
    assert width >= len("0.4750▲")
    comparisons = book["Comparisons"]
    header = [c.value for c in comparisons[1]]
    assert header[:7] == ["Run", "Baseline", "Metric", "Mean", "Baseline mean", "Δ", "Δ %"]
    p_column = header.index("p (adjusted)") + 1
    first_p = comparisons.cell(row=2, column=p_column)
    assert isinstance(first_p.value, float)
    assert first_p.number_format in ('"<0.001"', "0.000", "0.0000", "0.00000")
    per_query = book["Per query"]
    assert per_query.auto_filter.ref is not None  # 24 rows: a filter helps
    assert per_query["A2"].value == "P@10"


def test_excel_without_openpyxl(report, tmp_path, monkeypatch) -> None:
    monkeypatch.setitem(sys.modules, "openpyxl", None)
    with pytest.raises(pdireval.MissingDependencyError, match=r"pdireval\[excel\]"):
        report.to_excel(tmp_path / "x.xlsx")


def test_report_errors() -> None:
    """A report needs two runs and valid options, like compare."""
    one = toy().query("run == 'system1'")
    with pytest.raises(pdireval.SchemaError, match="at least two runs"):
        one.ireval.report("AP")
    with pytest.raises(pdireval.ParameterError, match="test='x'"):
        toy().ireval.report("AP", test="x")


def test_runs_named_like_the_key_columns(tmp_path) -> None:
    """Runs named "metric" and "query" get columns of their own after the key columns,
    in the flat table and in every rendering that holds it."""
    f = toy().replace({"run": {"system1": "metric", "system2": "query"}})
    report = f.ireval.report(["AP", "P@2"])
    flat = report.per_query_flat()
    assert list(flat.columns) == ["metric", "query", "metric", "query", "query - metric"]
    assert flat.iloc[:, 0].isin(["AP", "P@2"]).all()
    values = report.per_query.xs("value", axis=1, level=0)
    np.testing.assert_allclose(flat.iloc[:, 2:4].to_numpy(), values.to_numpy())
    assert "| metric | query | metric | query | query - metric |" in report.to_markdown(
        per_query=True
    )
    assert "topic1" in report.to_html()
    report.to_excel(tmp_path / "report.xlsx")
    per_query = pd.read_csv(report.to_csv(tmp_path / "csv")[2])
    np.testing.assert_allclose(per_query.iloc[:, 2:].to_numpy(), flat.iloc[:, 2:].to_numpy())


# --- one minus sign in every number written as text ---------------------------------------

#: A hyphen-minus before a digit: a negative number written with the wrong sign.
_HYPHEN_NUMBER = re.compile(r"(?<![A-Za-z0-9_])-\d")


@pytest.fixture(scope="module")
def worse_report() -> pdireval.Report:
    """The example's runs against its strong run: negative Δ, Δ %, interval and d."""
    from pdireval.datasets import example

    return example().ireval.report(["AP", "nDCG@10"], baseline="strong")


def test_negative_numbers_have_the_minus_sign_in_text_and_markdown(worse_report) -> None:
    """Δ, its interval, Δ % and Cohen's d of a worse run are written with ``−`` (U+2212)
    in the text and Markdown renderings, never with a hyphen.
    """
    comparison = worse_report.comparison
    assert (comparison["delta"] < 0).all()
    assert (comparison["effect_size"] < 0).all()
    shown = worse_report.comparison_text()
    for column in ("Δ", "Δ %", "d"):
        assert all(text.startswith("−") for text in shown[column]), shown[column]
    texts = {
        "text": str(worse_report) + "\n" + shown.to_string(index=False),
        "markdown": worse_report.to_markdown(per_query=True),
    }
    for name, text in texts.items():
        assert _HYPHEN_NUMBER.search(text) is None, (name, _HYPHEN_NUMBER.findall(text))
        assert "−" in text, name


def test_negative_means_have_the_minus_sign_in_the_paper_table(worse_report) -> None:
    """A metric whose means are negative (a utility, a z-score) is written with ``−`` in
    the paper table of every text rendering, and a value that rounds to zero has no sign.
    """
    import dataclasses

    from pdireval.reports.formats import formats

    negative = dataclasses.replace(worse_report, summary=-worse_report.summary)
    for text in (str(negative), negative.to_markdown(), str(negative.table(ci=True))):
        assert _HYPHEN_NUMBER.search(text) is None, text
        assert text.count("−") >= negative.summary.size, text
    # HTML and Typst show the sign as it is; pdflatex has no text glyph for it: math minus.
    for text in (negative.to_html(per_query_rows=50), negative.to_typst()):
        assert _HYPHEN_NUMBER.search(text.replace("<!--", "")) is None
        assert "−" in text
    latex = negative.to_latex()
    assert "−" not in latex
    assert latex.count("$-$") >= negative.summary.size
    plain = formats()["text"].table(pd.DataFrame({"AP": [-0.25, -0.00001, 0.5]}))
    assert _HYPHEN_NUMBER.search(plain) is None
    assert "−0.2500" in plain
    assert "−0.0000" not in plain
    assert "0.0000" in plain


def test_format_value_and_delta_share_the_minus_sign() -> None:
    from pdireval.reports.numbers import MINUS, format_delta, format_value

    for value in (-0.5, -12.25, -1e-3):
        assert format_value(value, 4) == MINUS + format_value(-value, 4)
        assert format_delta(value, 4) == format_value(value, 4)
        assert format_delta(-value, 4) == "+" + format_value(-value, 4)
    assert format_value(-4e-5, 4) == format_value(4e-5, 4) == format_value(0.0, 4)


# --- the paper table prints whole ------------------------------------------------------------


def _wide_report() -> pdireval.Report:
    """Ten runs with long names and eight metrics: wider than any display."""
    rng = np.random.default_rng(3)
    rows = []
    names = [f"bm25+monoT5-3B (rerank top-{10 * (i + 1)}, fine-tuned)" for i in range(10)]
    for at, run in enumerate(names):
        for query in range(12):
            for rank in range(1, 21):
                rel = int(rng.random() < 0.15 + 0.05 * at)
                rows.append((run, f"q{query}", f"d{query}-{rank}", rank, rel, 1.0 / rank))
    frame = pd.DataFrame(rows, columns=["run", "query", "doc", "rank", "rel", "score"])
    metrics = ["AP", "nDCG@10", "nDCG@20", "P@5", "P@10", "R@20", "RR", "Rprec"]
    return frame.ireval.report(metrics, baseline=names[0])


@pytest.mark.parametrize("transpose", [False, True])
def test_the_printed_paper_table_shows_every_column(transpose: bool) -> None:
    """``print(report.table(ci=True))`` shows every column and every run, however wide the
    table and small the display, and is the same text as ``to_string()``.
    """
    report = _wide_report()
    table = report.table(ci=True, transpose=transpose)
    assert isinstance(table, pd.DataFrame)
    with pd.option_context("display.width", 60, "display.max_columns", 4, "display.max_rows", 4):
        printed = str(table)
        shown = repr(table)
        page = table._repr_html_()
    assert printed == shown == table.to_string()
    assert "..." not in printed
    assert "…" not in printed
    for label in [*table.columns, *table.index]:
        assert str(label) in printed
        assert str(label).replace("+", "") in page.replace("+", "")
    for row in table.itertuples(index=False):  # every cell, value ± half-width and mark
        for cell in row:
            assert cell in printed
    assert "..." not in page
    assert "…" not in page
    picked = table.iloc[:2]  # what is derived from it is a plain DataFrame
    assert type(picked) is pd.DataFrame
