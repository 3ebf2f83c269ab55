"""Ten and twenty runs with long names (``bm25+monoT5-3B (rerank top-100, fine-tuned)``):
all-pairs tables that name each run once, a hint for a table a column would shrink,
workbooks whose names stay on one line, HTML whose names and numbers line up."""

from __future__ import annotations

import re
import shutil
import subprocess

import numpy as np
import pandas as pd
import pytest

import pdireval
from pdireval._core import escape
from pdireval.reports.formats.latex import estimated_width

pytest.importorskip("scipy")

SYSTEMS = [
    "bm25", "bm25+RM3", "dense-tasb", "splade++", "colbertv2", "bm25+monoT5-3B",
    "bm25+monoBERT", "dense+duoT5", "bm25+RankGPT", "hybrid-rrf",
]  # fmt: skip


def long_names(count: int) -> list[str]:
    """``count`` names of 30 to 50 characters: ``bm25 (rerank top-100, fine-tuned)``, ..."""
    return [
        f"{SYSTEMS[i % 10]} (rerank top-{100 * (1 + i // 10)}, fine-tuned)" for i in range(count)
    ]


def runs_of(names: list[str], queries: int = 25, seed: int = 3) -> pd.DataFrame:
    """Runs of rising quality (seeded): query, doc, rank, rel, score and run columns."""
    rng = np.random.default_rng(seed)
    rows = []
    for i, run in enumerate(names):
        for query in range(queries):
            relevant = rng.random(15) < 0.15 + 0.05 * i
            rows += [
                (run, f"q{query}", f"d{query}-{rank}", rank, int(rel), 1.0 / rank)
                for rank, rel in enumerate(relevant, start=1)
            ]
    return pd.DataFrame(rows, columns=["run", "query", "doc", "rank", "rel", "score"])


@pytest.fixture(scope="module", params=[10, 20])
def all_pairs(request) -> pdireval.Report:
    return runs_of(long_names(request.param)).ireval.report(["AP", "nDCG@10"], baseline=None)


def _legend(tex: str) -> list[str]:
    start = tex.index(r"\begin{minipage}")
    return tex[start : tex.index(r"\end{minipage}")].splitlines()[1:]


def _body(tex: str) -> list[list[str]]:
    rows = tex.split("\\midrule\n")[1].split("\n\\bottomrule")[0].splitlines()
    return [row.removesuffix(r" \\").split(" & ") for row in rows]


# ---------------------------------------------------------------------------- LaTeX


def test_all_pairs_name_each_run_once_in_a_short_legend(all_pairs) -> None:
    tex = all_pairs.to_latex()
    runs = list(all_pairs.summary.index)
    for run in runs:
        assert tex.count(escape.latex(run)) == 1, run
    assert len(_legend(tex)) <= len(runs)
    assert "baseline a" not in tex
    assert [row[0] for row in _body(tex)] == [f"R{i}" for i in range(1, len(runs) + 1)]


def test_all_pairs_marks_carry_the_number_of_the_run_compared_with(all_pairs) -> None:
    tex = all_pairs.to_latex()
    runs = list(all_pairs.summary.index)
    metrics = [str(m) for m in all_pairs.summary.columns]
    body = _body(tex)
    significant = all_pairs.comparison[all_pairs.comparison["significant"].astype(bool)]
    assert len(significant) > 0
    expected: dict[tuple[int, int], str] = {}
    for run, base, metric, delta in significant[["run", "baseline", "metric", "delta"]].values:
        key = (runs.index(run), metrics.index(str(metric)))
        sign = r"\blacktriangle" if delta > 0 else r"\blacktriangledown"
        expected[key] = expected.get(key, "") + rf"{sign}\mathrm{{{runs.index(base) + 1}}}"
    for row, cells in enumerate(body):
        for column in range(len(metrics)):
            signs = cells[1 + 3 * column + 2]  # integer part, decimals, marks
            want = expected.get((row, column), "")
            assert signs == (f"$^{{{want}}}$" if want else ""), (row, column)


def test_all_pairs_headers_stand_over_the_numbers_not_the_marks(all_pairs) -> None:
    """Each metric is integer part | decimals | marks; the metric's name is written in the
    number's two columns (ending where the decimals end), none over the marks."""
    tex = all_pairs.to_latex()
    spec = re.search(r"\\begin\{tabular\}\{(.*)\}", tex).group(1)
    assert spec == "l" + "r@{}l@{}l" * 2
    header = tex.split("\\toprule\n")[1].splitlines()[0].removesuffix(r" \\").split(" & ")
    for at, metric in enumerate(["AP", "nDCG@10"]):
        whole, decimals, marks = header[1 + 3 * at : 4 + 3 * at]
        assert rf"\hphantom{{{escape.latex(metric)}}}" in whole
        assert decimals.endswith(rf"\llap{{{escape.latex(metric)}}}")
        assert marks == ""
    assert r"\multicolumn" not in tex.split("\\toprule\n")[1].split("\\midrule")[0]


def test_one_baseline_keeps_its_letterless_marks_and_names(all_pairs) -> None:
    names = long_names(4)
    report = runs_of(names, queries=15).ireval.report("AP", baseline=names[0])
    tex = report.to_latex()
    assert [row[0] for row in _body(tex)] == ["R1 (baseline)", "R2", "R3", "R4"]
    assert re.search(r"\\begin\{tabular\}\{lr@\{\}l\}", tex)
    assert "than " + escape.latex(names[0]) in tex


def _seeded(metrics: list[str]) -> pdireval.Report:
    from pdireval.datasets import benchmark

    runs, qrels = benchmark()
    return pdireval.report(runs, metrics, qrels=qrels, baseline="bm25")


def _hint(tex: str) -> list[str]:
    return [line for line in tex.splitlines() if line.startswith("% This table is about")]


def test_a_table_a_column_would_shrink_says_how_to_widen_it() -> None:
    wide = _seeded(["AP", "nDCG@10", "P@10"])
    hint = _hint(wide.to_latex(ci=True))
    assert len(hint) == 1
    assert "wide=True" in hint[0]
    assert "transpose=True" in hint[0]
    scale = float(re.search(r"scaled to about (\d+)%", hint[0]).group(1))
    assert scale < 70
    assert _hint(wide.to_latex(ci=True, wide=True, transpose=True)) == []  # 520 pt of 505
    narrow = _seeded(["AP"])
    assert _hint(narrow.to_latex()) == []


@pytest.mark.skipif(shutil.which("pdflatex") is None, reason="pdflatex is not installed")
def test_the_estimated_width_is_close_to_the_typeset_one(tmp_path, all_pairs) -> None:
    """The hint relies on the estimate: within 15% of what TeX typesets, for narrow, wide,
    ``ci`` and all-pairs tables; the all-pairs table compiles with the named packages."""
    cases = [(_seeded(["AP"]), False), (_seeded(["AP", "nDCG@10", "P@10"]), True)]
    cases += [(all_pairs, False), (all_pairs, True)]
    lines, estimates = [], []
    for report, ci in cases:
        tex = report.to_latex(ci=ci)
        tabular = tex[tex.index(r"\begin{tabular}") : tex.index(r"\end{tabular}") + 13]
        separation = "4pt" if ci else "6pt"
        lines.append(
            rf"\setlength{{\tabcolsep}}{{{separation}}}\setbox0=\hbox{{{tabular}}}"
            r"\typeout{NATURAL=\the\wd0}"
        )
        estimates.append(estimated_width(report, ci=ci))
    document = "\n".join(
        [
            r"\documentclass[twocolumn]{article}",
            r"\usepackage{booktabs,amssymb,graphicx}",
            r"\begin{document}",
            *lines,
            all_pairs.to_latex(caption="All pairs."),
            r"\end{document}",
        ]
    )
    (tmp_path / "w.tex").write_text(document)
    done = subprocess.run(
        ["pdflatex", "-interaction=nonstopmode", "-halt-on-error", "w.tex"],
        cwd=tmp_path,
        capture_output=True,
        timeout=120,
    )
    log = (tmp_path / "w.log").read_text(errors="replace")
    assert done.returncode == 0, log[-2000:]
    typeset = [float(v) for v in re.findall(r"NATURAL=([\d.]+)pt", log)]
    assert len(typeset) == len(estimates)
    for natural, estimate in zip(typeset, estimates, strict=True):
        assert abs(estimate - natural) <= 0.15 * natural, (estimate, natural)


# ---------------------------------------------------------------------------- Excel


@pytest.fixture(scope="module", params=[10, 20])
def book(request, tmp_path_factory):
    openpyxl = pytest.importorskip("openpyxl")
    names = long_names(request.param)
    report = runs_of(names, queries=12).ireval.report(["AP", "nDCG@10"], baseline=names[0])
    path = tmp_path_factory.mktemp("book") / "report.xlsx"
    return openpyxl.load_workbook(report.to_excel(path)), names


def test_a_name_that_fits_its_column_keeps_its_row_one_line_high(book) -> None:
    """Run names of 33 to 50 characters fit their column (its width and the estimated
    width of the name), so no row of names is made taller than one line."""
    from pdireval.io.workbook import text_width, wrapped_lines

    workbook, names = book
    for title, columns in (("Results", "A"), ("Comparisons", "AB")):
        sheet = workbook[title]
        rows = range(2, 2 + len(names) - 1)
        for letter in columns:
            width = sheet.column_dimensions[letter].width
            for row in rows:
                name = str(sheet[f"{letter}{row}"].value)
                assert text_width(name) <= width - 1, (title, name, width)
                assert wrapped_lines(name, width - 1) == 1
        heights = [sheet.row_dimensions[row].height for row in rows]
        assert all(height is None for height in heights), (title, heights)


def test_long_headers_wrap_at_spaces_in_columns_as_wide_as_their_longest_word(book) -> None:
    from pdireval.io.workbook import text_width, wrapped_lines

    workbook, names = book
    sheet = workbook["Per query"]
    header = [cell for cell in sheet[1]]
    height = sheet.row_dimensions[1].height
    widest = 0
    for cell in header:
        width = sheet.column_dimensions[cell.column_letter].width
        words = str(cell.value).split()
        assert max(1.1 * text_width(word) for word in words) <= width - 1, cell.value
        lines = wrapped_lines(str(cell.value), width - 1, 1.1)
        widest = max(widest, lines)
        if cell.value in names:  # a run's name: three or four lines, never more
            assert lines <= 4, (cell.value, width)
        assert cell.alignment.wrap_text
    assert height == pytest.approx(13.0 * widest + 2)
    assert widest <= 6


def test_wrapped_lines_break_at_spaces_only() -> None:
    from pdireval.io.workbook import text_width, wrapped_lines

    name = "bm25+monoT5-3B (rerank top-100, fine-tuned)"
    words = name.split()
    longest = max(text_width(word) for word in words)
    assert wrapped_lines(name, text_width(name)) == 1
    assert wrapped_lines(name, text_width(name) - 0.1) == 2
    assert wrapped_lines(name, longest) == len(words) - 1 or wrapped_lines(name, longest) == len(
        words
    )
    assert wrapped_lines("x" * 30, 10) == 3  # a word wider than the cell is broken
    assert wrapped_lines("a\nb", 10) == 2


# ---------------------------------------------------------------------------- HTML


def _paper(page: str) -> tuple[list[str], list[list[str]]]:
    """The value headers and the value cells of each row of the page's paper table."""
    paper = page.split('<table class="paper">')[1].split("</table>")[0]
    head = paper.split("</thead>")[0].split("<tr>")[-1]
    headers = re.findall(r"<th style=\"([^\"]*)\">", head)
    rows = paper.split("<tbody>")[1].split("</tr>")[:-1]
    return headers, [re.findall(r"<td>(.*?)</td>", row) for row in rows]


def test_html_run_names_stay_on_one_line(all_pairs) -> None:
    page = all_pairs.to_html()
    rule = re.search(
        r"\.pdireval-report tbody th, \.pdireval-report \.ids3 td:nth-child\(-n\+2\),\s*"
        r"\.pdireval-report \.ids1 td:first-child \{([^}]*)\}",
        page,
    )
    assert rule is not None
    assert "white-space: nowrap" in rule.group(1)
    assert "max-width" not in rule.group(1)
    assert "overflow-wrap" not in rule.group(1)
    assert ".pdireval-report .scroll {overflow-x: auto" in page  # a wide table scrolls


def test_html_numbers_end_with_their_right_aligned_header_bold_or_not(all_pairs) -> None:
    """In each value column every mark sits in a box of one width, so the values end at
    one place, and the header, right-aligned, stops short of the column's end by that
    width: names left, numbers right. Bold is a stroke, not a wider face: the digits
    (tabular) keep their widths and the decimal points their places."""
    page = all_pairs.to_html()
    headers, rows = _paper(page)
    assert len(headers) == 1 + 2  # the run column, then AP and nDCG@10
    assert headers[0] == "text-align:left"
    for at, header in enumerate(headers[1:]):
        cells = [row[at] for row in rows]
        marks = {re.search(r'class="mark" style="width:([\d.]+)em"', c).group(1) for c in cells}
        assert len(marks) == 1
        room = marks.pop()
        assert header == f"text-align:right;padding-right:calc(10px + {room}em)"
        widest = max(c.count("▲") + c.count("▼") for c in cells)
        assert float(room) >= widest  # a triangle and a letter take less than 1.6em
    assert re.search(
        r"\.pdireval-report table\.paper td b \{font-weight: inherit;\s*"
        r"-webkit-text-stroke: [\d.]+em currentColor\}",
        page,
    )
    assert "font-variant-numeric: tabular-nums" in page
