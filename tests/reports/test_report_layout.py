"""Reports that fit where they are pasted: ten runs with long names in a two-column paper,
on a printed A4/Letter page, in a browser; rows in the user's order; intervals explained."""

from __future__ import annotations

import html.parser
import re
import shutil
import subprocess

import numpy as np
import pandas as pd
import pytest

import pdireval
from pdireval._core import escape

pytest.importorskip("scipy")

NAMES = [
    "bm25",
    "bm25+rm3",
    "bm25+monoT5-3b-rerank-top1000-fold3",
    "bm25+monoBERT-large-rerank-top100",
    "splade-v3-distil-cocondenser-ensemble",
    "colbertv2-plaid-msmarco-passage-k1000",
    "bm25+duoT5-3b-pairwise-top50-fold3",
    "dense_contriever_msmarco_finetuned",
    "hybrid-bm25-splade-rrf-k60-weighted",
    "bm25+rankllama-7b-listwise-top100-v2",
]
METRICS = ["AP", "nDCG@10", "P@10", "RR"]


def ten_runs(names: list = NAMES, queries: int = 20) -> pd.DataFrame:
    """Runs of rising quality (seeded), query ids mixing ``"10"`` and ``"051"``."""
    rng = np.random.default_rng(7)
    ids = [str(q) if q % 3 else f"{q:03d}" for q in range(1, queries + 1)]
    rows = []
    for i, run in enumerate(names):
        for query in ids:
            relevant = rng.random(10) < 0.2 + 0.05 * i
            rows += [
                (run, query, f"{query}-{run}-{rank}", rank, int(rel))
                for rank, rel in enumerate(relevant, start=1)
            ]
    return pd.DataFrame(rows, columns=["run", "query", "doc", "rank", "rel"])


@pytest.fixture(scope="module")
def report() -> pdireval.Report:
    return ten_runs().ireval.report(METRICS, baseline="bm25")


# ---------------------------------------------------------------------------- LaTeX


def test_long_names_are_abbreviated_with_a_key(report) -> None:
    tex = report.to_latex()
    body = tex.split("\\midrule\n")[1].split("\n\\bottomrule")[0].splitlines()
    assert [line.split(" & ")[0] for line in body] == [
        "R1 (baseline)",
        *(f"R{i}" for i in range(2, 11)),
    ]
    key = tex.split("Runs: ")[1].split(r"\par")[0]
    assert key == "; ".join(f"R{i}~= {escape.latex(n)}" for i, n in enumerate(NAMES, 1)) + "."
    full = report.to_latex(abbreviate=False)
    assert "Runs:" not in full
    assert r"dense\_contriever\_msmarco\_finetuned & " in full


def test_values_align_on_the_decimal_point(report) -> None:
    """Each metric is two columns, integer part right-aligned | decimals left-aligned, so
    the point is the column boundary whether a value is bold, marked or neither."""
    tex = report.to_latex()
    spec = re.search(r"\\begin\{tabular\}\{(.*)\}", tex).group(1)
    assert spec == "l" + "r@{}l" * len(METRICS)
    body = tex.split("\\midrule\n")[1].split("\n\\bottomrule")[0].splitlines()
    marked = unmarked = 0
    for line in body:
        cells = line.removesuffix(r" \\").split(" & ")[1:]
        assert len(cells) == 2 * len(METRICS)
        for whole, decimals in zip(cells[::2], cells[1::2], strict=True):
            assert re.fullmatch(r"(\\textbf\{)?0\}?", whole), whole
            assert re.fullmatch(r"(\\textbf\{)?\.\d{4}\}?(\$\^\{\\blacktriangle\}\$)?", decimals)
            marked += "blacktriangle" in decimals
            unmarked += "blacktriangle" not in decimals
    assert marked
    assert unmarked


def _compile(tmp_path, name: str, document: str) -> str:
    (tmp_path / f"{name}.tex").write_text(document)
    done = subprocess.run(
        ["pdflatex", "-interaction=nonstopmode", "-halt-on-error", f"{name}.tex"],
        cwd=tmp_path,
        capture_output=True,
        timeout=120,
    )
    log = (tmp_path / f"{name}.log").read_text(errors="replace")
    assert done.returncode == 0, log[-3000:]
    return log


@pytest.mark.skipif(
    shutil.which("pdflatex") is None,
    reason="pdflatex is not installed (texlive-latex-base, -recommended and -extra)",
)
@pytest.mark.parametrize("options", ["", "twocolumn"])
@pytest.mark.parametrize("ci", [False, True])
def test_latex_fits_the_column_with_its_listed_packages(report, tmp_path, options, ci) -> None:
    """Ten long run names compile with exactly the packages the comment names, in one- and
    two-column articles, without an overfull line; without ``ci`` the tabular is at most
    a fifth wider than a column (scaled to no less than 80%: text stays at 8 pt)."""
    tex = report.to_latex(caption="Ten runs.", ci=ci)
    packages = re.fullmatch(r"% Needs \\usepackage\{(.*)\} in the preamble\.", tex.splitlines()[0])
    assert packages is not None
    tabular = tex[tex.index(r"\begin{tabular}") : tex.index(r"\end{tabular}") + 13]
    document = "\n".join(
        [
            rf"\documentclass[{options}]{{article}}",
            rf"\usepackage{{{packages.group(1)}}}",
            r"\begin{document}",
            "Text around the table. " * 20,
            tex,
            "Text around the table. " * 20,
            r"\setbox0=\hbox{" + tabular + "}",
            r"\typeout{NATURAL=\the\wd0;LINE=\the\linewidth}",
            r"\end{document}",
        ]
    )
    log = _compile(tmp_path, "table", document)
    assert "Overfull \\hbox" not in log
    assert "Undefined control sequence" not in log
    natural, line = (
        float(v) for v in re.search(r"NATURAL=([\d.]+)pt;LINE=([\d.]+)pt", log).groups()
    )
    if not ci:
        assert natural <= 1.25 * line, (natural, line)
    if not options and not ci:
        assert natural <= line  # a one-column page: no scaling at all


@pytest.mark.skipif(shutil.which("pdflatex") is None, reason="pdflatex is not installed")
def test_latex_without_amssymb_fails(report, tmp_path) -> None:
    """The listed packages are needed: the check above would notice a missing one."""
    document = "\n".join(
        [
            r"\documentclass{article}",
            r"\usepackage{booktabs,graphicx}",
            r"\begin{document}",
            report.to_latex(),
            r"\end{document}",
        ]
    )
    (tmp_path / "bad.tex").write_text(document)
    done = subprocess.run(
        ["pdflatex", "-interaction=nonstopmode", "-halt-on-error", "bad.tex"],
        cwd=tmp_path,
        capture_output=True,
        timeout=120,
    )
    assert done.returncode != 0


# ---------------------------------------------------------------------------- Excel


def test_excel_prints_at_a_legible_size(report, tmp_path) -> None:
    """A sheet is fitted to the page width only when that keeps 7.5 pt or more on A4 and
    Letter; a wider one prints at full size and repeats its header row and id columns."""
    openpyxl = pytest.importorskip("openpyxl")
    from openpyxl.utils import column_index_from_string

    from pdireval.io.workbook import _MIN_SCALE, _PRINTABLE, pixels

    book = openpyxl.load_workbook(report.to_excel(tmp_path / "r.xlsx"))
    fitted = []
    for sheet in book:
        setup = sheet.page_setup
        widths = [
            sheet.column_dimensions[letter].width
            for letter in sheet.column_dimensions
            if column_index_from_string(letter) <= sheet.max_column
        ]
        scale = _PRINTABLE[setup.orientation] / sum(pixels(w) for w in widths)
        assert sheet.print_title_rows.replace("$", "") == "1:1"
        if sheet.sheet_properties.pageSetUpPr.fitToPage:
            assert scale >= _MIN_SCALE, sheet.title
            assert (setup.fitToWidth, setup.fitToHeight) == (1, 0)
            fitted.append(sheet.title)
        else:
            assert scale < _MIN_SCALE
            assert sheet.print_title_cols is not None, sheet.title
    assert "Results" in fitted
    assert "Per query" not in fitted  # 21 columns: would print at about 5 pt


def test_excel_ids_and_names_are_text(tmp_path) -> None:
    """Query ids ``10`` and ``"051"`` in one column are both text; so are numeric run names."""
    openpyxl = pytest.importorskip("openpyxl")
    frame = ten_runs(names=[7, 12, 3], queries=12)
    report = frame.ireval.report("AP", baseline=12)
    path = report.to_excel(tmp_path / "ids.xlsx")
    book = openpyxl.load_workbook(path)
    queries = [row[1] for row in book["Per query"].iter_rows(min_row=2)]
    assert {cell.value for cell in queries} >= {"10", "003", "1"}
    assert all(cell.data_type == "s" for cell in queries)
    runs = [row[0] for row in book["Results"].iter_rows(min_row=2, max_row=4)]
    assert [cell.value for cell in runs] == ["12 (baseline)", "7", "3"]
    rows = book["Comparisons"].iter_rows(min_row=2, max_row=len(report.comparison) + 1, max_col=2)
    compared = [cell for row in rows for cell in row]
    assert [cell.value for cell in compared] == ["7", "12", "3", "12"]
    assert all(cell.data_type == "s" for cell in compared)


# ---------------------------------------------------------------------------- HTML


class _Page(html.parser.HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.tags: list[tuple[str, dict]] = []
        self.declarations: list[str] = []
        self.title = ""
        self._in_title = False

    def handle_decl(self, decl: str) -> None:
        self.declarations.append(decl)

    def handle_starttag(self, tag: str, attrs: list) -> None:
        self.tags.append((tag, dict(attrs)))
        self._in_title = tag == "title"

    def handle_data(self, data: str) -> None:
        if self._in_title:
            self.title += data

    def handle_endtag(self, tag: str) -> None:
        self._in_title = False


def test_to_html_is_a_page_and_the_notebook_gets_a_fragment(report) -> None:
    page = report.to_html(title="Runs <&> results")
    parser = _Page()
    parser.feed(page)
    assert page.startswith("<!DOCTYPE html>")
    assert parser.declarations == ["DOCTYPE html"]
    tags = [tag for tag, _ in parser.tags]
    assert tags[:3] == ["html", "head", "meta"]
    assert parser.tags[2][1] == {"charset": "utf-8"}
    assert parser.title == "Runs <&> results"  # escaped in the page, read back as text
    assert "body" in tags
    fragment = report._repr_html_()
    assert not re.search(r"<(!DOCTYPE|html|head|body|title)\b", fragment, re.IGNORECASE)
    assert fragment in page


def test_html_tables_scroll_and_only_best_values_are_bold(report) -> None:
    page = report.to_html()
    parser = _Page()
    parser.feed(page)
    tags = [tag for tag, _ in parser.tags]
    for at, tag in enumerate(tags):  # every table sits in a container of its own
        if tag == "table":
            assert tags[at - 1] == "div"
            assert parser.tags[at - 1][1].get("class") == "scroll"
    assert ".pdireval-report .scroll {overflow-x: auto" in page
    assert ".pdireval-report tbody th {font-weight: normal" in page
    paper = page.split('<table class="paper">')[1].split("</table>")[0]
    best = sum(len(runs) for runs in pdireval.reports.numbers.best_runs(report.summary).values())
    assert paper.count("<b>") == best
    assert "<b>bm25" not in paper


# ---------------------------------------------------------------------------- intervals


def test_the_interval_note_explains_an_interval_that_excludes_zero_without_a_mark(
    report, tmp_path
) -> None:
    """With Holm's correction some 95% intervals exclude 0 for a difference that is not
    significant; every rendering of the comparison says what the interval is."""
    table = report.comparison
    excludes = (table["ci_low"] > 0) | (table["ci_high"] < 0)
    assert (excludes & ~table["significant"]).any()  # the case the note is for
    note = report.interval_note()
    assert "not adjusted for multiple comparisons" in note
    assert "Holm's correction over 36 comparisons" in note
    assert "95% CI of Δ (unadjusted)" in report.comparison_text().columns
    assert note in report.to_markdown()
    assert escape.html(note) in report.to_html()
    openpyxl = pytest.importorskip("openpyxl")
    sheet = openpyxl.load_workbook(report.to_excel(tmp_path / "r.xlsx"))["Comparisons"]
    notes = [c.value for row in sheet.iter_rows() for c in row if isinstance(c.value, str)]
    assert any(note in text for text in notes)


def test_without_correction_the_note_makes_no_claim_about_adjustment() -> None:
    report = ten_runs(queries=12).ireval.report("AP", baseline="bm25", correction=None)
    assert report.interval_note() == "CI of Δ: 95% Student t interval of the mean difference."
    assert "(unadjusted)" not in "".join(report.comparison_text().columns)
    table = ten_runs().ireval.report(METRICS, baseline="bm25", correction=None).comparison
    excludes = (table["ci_low"] > 0) | (table["ci_high"] < 0)
    assert excludes.any()
    assert not excludes.all()
    assert (excludes == table["significant"]).all()  # t interval and t-test agree
    sign = ten_runs(queries=12).ireval.report("AP", baseline="bm25", test="sign", correction=None)
    assert "sign test, which does not test the mean" in sign.interval_note()


# ---------------------------------------------------------------------------- order


def test_rows_keep_the_frames_order_with_the_baseline_first() -> None:
    names = ["zeta", "alpha", "mid", "beta"]
    frame = ten_runs(names=names, queries=12)
    report = frame.ireval.report("AP", baseline="mid")
    assert list(report.summary.index) == ["mid", "zeta", "alpha", "beta"]
    assert list(report.intervals.index) == list(report.summary.index)
    assert list(report.per_query.columns.get_level_values(1)) == [
        "mid", "zeta", "alpha", "beta", "zeta", "alpha", "beta",
    ]  # fmt: skip
    assert report.comparison["run"].tolist() == ["zeta", "alpha", "beta"]
    assert report.run_labels()["mid"] == "mid (baseline)"
    pd.testing.assert_frame_equal(
        report.summary.sort_index(), frame.ireval.summary("AP").sort_index()
    )
    without = frame.ireval.report("AP", correction=None)  # all pairs: the frame's order
    assert list(without.summary.index) == names
    several = frame.ireval.report("AP", baseline=["beta", "zeta"])
    assert list(several.summary.index) == ["beta", "zeta", "alpha", "mid"]
    assert several.run_labels()["beta"] == "beta (baseline a)"
    assert several.run_labels()["zeta"] == "zeta (baseline b)"


def test_an_ordered_categorical_gives_its_order() -> None:
    frame = ten_runs(names=["c", "a", "b"], queries=12)
    frame["run"] = pd.Categorical(frame["run"], categories=["b", "c", "a"], ordered=True)
    report = frame.ireval.report("AP", correction=None)
    assert list(report.summary.index) == ["b", "c", "a"]


def test_print_shows_the_table_aligned_on_the_decimal_point(report, capsys) -> None:
    print(report)
    shown = capsys.readouterr().out
    assert shown == str(report) + "\n"
    lines = shown.splitlines()
    assert lines[2].startswith("bm25 (baseline)")
    for name in NAMES[1:]:
        assert any(line.startswith(name) for line in lines)
    assert shown.rstrip().endswith(report.legend())
    rows = lines[2:12]
    for column in range(len(METRICS)):  # the column-th point sits at one position
        points = {[m.start() for m in re.finditer(r"\d\.\d", row)][column] for row in rows}
        assert len(points) == 1
    assert repr(report).startswith("<Report: runs [")
