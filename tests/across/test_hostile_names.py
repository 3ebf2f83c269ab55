"""Names users choose reach every output format as text: never a formula, markup or math.

Runs, queries and metrics of your own are named by users -- carelessly, or by someone who
means harm. Every writer (Excel, Markdown, HTML, LaTeX, the command line's workbook) must
write a generated name so that it reads back as the same text and starts nothing.
"""

from __future__ import annotations

import html.parser
import re
import subprocess
import sys

import numpy as np
import openpyxl
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import pdireval
from pdireval._core import escape as _escape

#: Names that start formulas, markup, math or commands in one format or another.
HOSTILE = (
    '=HYPERLINK("http://x","y")',
    "=cmd|' /C calc'!A0",
    "=1+1",
    "+1",
    "-2",
    "@SUM(A1)",
    "\tx",
    "\rx",
    "<script>alert(1)</script>",
    "a|b",
    "a\nb",
    "alphabet",
    "$x^2$",
    "50% & more",
    "a_b#c{d}~e^f\\g",
    "**bold** `code` [link](x)",
    "<b>x</b>",
    "tab:\tsep",
)

names = st.one_of(
    st.sampled_from(HOSTILE),
    st.text(
        alphabet=st.characters(blacklist_categories=("Cs",), blacklist_characters="\x00"),
        min_size=1,
        max_size=12,
    ).filter(lambda s: s.strip() == s and s),
)


def _frame(run_a: str, run_b: str, queries: list[str]) -> pd.DataFrame:
    rows = []
    for q, query in enumerate(queries):
        for run, shift in ((run_a, 0), (run_b, 1)):
            for d in range(4):
                rows.append((run, query, f"d{d}", float(4 - (d + shift * q) % 4), int(d == q % 4)))
    return pd.DataFrame(rows, columns=["run", "query", "doc", "score", "rel"])


def _report(run_a: str, run_b: str, queries: list[str]) -> pdireval.Report:
    return pdireval.report(_frame(run_a, run_b, queries), ["AP", "P@2"], baseline=run_a)


hostile_reports = st.tuples(
    names, names, st.lists(names, min_size=2, max_size=4, unique=True)
).filter(lambda t: t[0] != t[1])


# ---------------------------------------------------------------------------- Excel


def _cells(path) -> list:
    book = openpyxl.load_workbook(path)
    return [cell for sheet in book.worksheets for row in sheet.iter_rows() for cell in row]


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(hostile_reports)
def test_excel_writes_every_name_as_text(tmp_path_factory, case) -> None:
    run_a, run_b, queries = case
    path = tmp_path_factory.mktemp("xlsx") / "report.xlsx"
    _report(run_a, run_b, queries).to_excel(path)
    cells = _cells(path)
    assert not [cell.coordinate for cell in cells if cell.data_type == "f"]  # no formula
    texts = {cell.value for cell in cells if isinstance(cell.value, str)}
    for name in (run_a, run_b, *queries):
        if not re.fullmatch(r"-?[1-9][0-9]{0,14}|0", name):  # numeric query ids are numbers
            assert _escape.excel_text(name) in texts, name


def test_a_formula_like_name_is_marked_as_text(tmp_path) -> None:
    path = tmp_path / "report.xlsx"
    _report("=1+1", "@x", ["q1", "-q2"]).to_excel(path)
    cells = [cell for cell in _cells(path) if cell.value in ("=1+1", "@x", "-q2")]
    assert cells
    assert all(cell.data_type == "s" and cell.quotePrefix for cell in cells)


def test_the_command_line_workbook_writes_tags_as_text(tmp_path) -> None:
    qrels = tmp_path / "qrels"
    qrels.write_text("q1 0 d1 1\nq1 0 d2 0\n")
    runs = []
    for i, tag in enumerate(("=1+1", "@SUM(A1)")):
        path = tmp_path / f"run{i}"
        path.write_text(f"q1 Q0 d1 1 {2 - i} {tag}\nq1 Q0 d2 2 {1 + i} {tag}\n")
        runs.append(str(path))
    out = tmp_path / "out.xlsx"
    done = subprocess.run(
        [sys.executable, "-m", "pdireval", "--format", "xlsx", "-o", str(out), str(qrels), *runs],
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    cells = _cells(out)
    assert not [cell.coordinate for cell in cells if cell.data_type == "f"]
    assert {"=1+1", "@SUM(A1)"} <= {cell.value for cell in cells}


# ---------------------------------------------------------------------------- Markdown


def _unescaped_pipes(line: str) -> int:
    return len(re.findall(r"(?<!\\)\|", line))


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(hostile_reports)
def test_markdown_tables_keep_their_shape_and_hold_no_markup(case) -> None:
    run_a, run_b, queries = case
    text = _report(run_a, run_b, queries).to_markdown(per_query=True)
    assert "<script" not in text
    assert "<b>" not in text
    for block in text.split("\n\n"):
        lines = [line for line in block.split("\n") if line.startswith("|")]
        if lines:
            assert len({_unescaped_pipes(line) for line in lines}) == 1, block
    for name in (run_a, run_b):
        assert _escape.markdown(name) in text


# ---------------------------------------------------------------------------- HTML


class _Tags(html.parser.HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.tags: list[str] = []
        self.text: list[str] = []

    def handle_starttag(self, tag: str, attrs: list) -> None:
        self.tags.append(tag)

    def handle_data(self, data: str) -> None:
        self.text.append(data)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(hostile_reports)
def test_html_holds_names_as_text_only(case) -> None:
    run_a, run_b, queries = case
    parser = _Tags()
    parser.feed(_report(run_a, run_b, queries).to_html())
    assert set(parser.tags) <= {
        "div", "style", "table", "thead", "tbody", "tr", "th", "td", "b", "span", "p",
        "details", "summary", "html", "head", "meta", "title", "body", "h1",
    }  # fmt: skip
    text = "".join(parser.text)
    for name in (run_a, run_b):
        assert name.replace("\r", "\n") in text.replace("\r", "\n")


# ---------------------------------------------------------------------------- LaTeX


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(hostile_reports)
def test_latex_escapes_every_name(case) -> None:
    run_a, run_b, queries = case
    text = _report(run_a, run_b, queries).to_latex(caption=run_a)
    for name in (run_a, run_b):
        assert _escape.latex(name) in text
    body = text.replace(_escape.latex(run_a), "").replace(_escape.latex(run_b), "")
    assert "<script" not in body


def test_the_latex_legend_leaves_a_run_called_alphabet_alone() -> None:
    text = _report("alphabet", "alpha", ["q1", "q2"]).to_latex()
    assert "than alphabet;" in text
    assert r"$\alpha$ = 0.05" in text
    assert text.count(r"$\alpha$") == 1


def test_a_latex_label_with_commands_is_refused() -> None:
    report = _report("a", "b", ["q1", "q2"])
    with pytest.raises(pdireval.ParameterError, match="LaTeX label"):
        report.to_latex(label=r"tab}\input{/etc/passwd")
    assert r"\label{tab:main}" in report.to_latex(label="tab:main")


def test_every_user_name_is_escaped_for_each_format() -> None:
    """The escaping functions themselves: nothing special survives."""
    for name in HOSTILE:
        assert "\n" not in _escape.markdown(name)
        assert "<" not in _escape.markdown(name)
        assert not re.search(r"(?<!\\)[|*_`\[\]$]", _escape.markdown(name))
        latex = _escape.latex(name)
        assert not re.search(r"(?<!\\)[&%$#_{}~^]", latex.replace(r"\{}", "").replace("{}", ""))
        assert "<" not in _escape.html(name)
        assert "$" not in _escape.matplotlib(name).replace(r"\$", "")
    assert np.all([_escape.excel_is_formula(name) for name in HOSTILE[:8]])
