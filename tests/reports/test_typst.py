"""Typst output: the paper table as a Typst figure that compiles, every name read back as
the text it is, from ``Report.to_typst`` and from the command line's ``--format typst``.

Typst itself (the ``typst`` package, in the ``dev`` extra) compiles the output; its query
of the compiled document gives back the table's cells, which must be the report's.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from levels_frames import LEVELS, seeded_table

import pdireval
import pdireval.datasets
from pdireval import ParameterError
from pdireval._core.options import Evaluation, Significance
from pdireval.cli.main import main
from pdireval.datasets import example
from pdireval.metrics import parse_metrics
from pdireval.reports.build import build_report
from pdireval.reports.levels import MACRO

METRICS = ["AP", "nDCG@10", "P@10"]


@pytest.fixture(scope="module")
def report() -> pdireval.Report:
    return example().ireval.report(METRICS, baseline="medium")


@pytest.fixture(scope="module")
def levelled() -> pdireval.Report:
    table = seeded_table(["AP", "nDCG@10"])
    metrics = parse_metrics(list(table.columns))
    return build_report(table, metrics, Evaluation(), Significance(baseline="bm25"), levels=LEVELS)


def _strings(text: str) -> list[str]:
    """The Typst string literals of ``text``, decoded."""
    literals = re.findall(r'"((?:[^"\\]|\\.)*)"', text)
    escapes = {"\\\\": "\\", '\\"': '"'}

    def decoded(literal: str) -> str:
        literal = re.sub(r"\\u\{([0-9a-f]+)\}", lambda m: chr(int(m.group(1), 16)), literal)
        return re.sub(r'\\[\\"]', lambda m: escapes[m.group(0)], literal)

    return [decoded(literal) for literal in literals]


def _compiled(tmp_path: Path, text: str) -> list[dict]:
    """Compile ``text`` (a page around it) and return the document's tables' cells as
    rows of texts, the header first: what a reader of the PDF sees.
    """
    typst = pytest.importorskip("typst")
    source = tmp_path / "table.typ"
    source.write_text("#set page(width: 30cm, height: auto)\n" + text + "\n", encoding="utf-8")
    typst.compile(str(source), output=str(tmp_path / "table.pdf"))  # raises on any error
    import json

    return json.loads(typst.query(str(source), "table"))


def _text(node: object) -> str:
    """The text a content node shows (strings, sequences, strong, super)."""
    if isinstance(node, dict):
        if "text" in node:
            return node["text"]
        if "body" in node:
            return _text(node["body"])
        return "".join(_text(child) for child in node.get("children", []))
    return ""


def _cells(table: dict) -> tuple[list[str], list[str]]:
    """The header cells' texts and the body cells' texts of a compiled table."""
    header = next(child for child in table["children"] if child["func"] == "header")
    body = [child for child in table["children"] if child["func"] not in ("header", "hline")]
    return [_text(cell) for cell in header["children"]], [_text(cell) for cell in body]


def test_the_table_holds_the_report_cells(report, tmp_path) -> None:
    text = report.to_typst()
    (table,) = _compiled(tmp_path, text)
    header, body = _cells(table)
    assert header == ["Run", *METRICS]
    expected = []
    cells = report.cells()
    for run, row in zip(report.summary.index, cells, strict=True):
        expected.append(report.run_labels()[run])
        expected += [value + marks for value, marks, _ in row]
    assert body == expected
    assert table["columns"] == ["auto"] * (1 + len(METRICS))


def test_best_values_are_bold_and_marks_superscript(report) -> None:
    text = report.to_typst()
    strong = re.findall(r'strong\("([^"]*)"\)', text)
    best = [value for row in report.cells() for value, _, is_best in row if is_best]
    assert strong == best
    marked = sum(1 for row in report.cells() for _, marks, _ in row if marks)
    assert text.count("#super(") == marked
    assert report.legend().replace("alpha", "α") in " ".join(_strings(text))


def test_caption_label_and_ci(report, tmp_path) -> None:
    text = report.to_typst(caption="Effectiveness on the example topics.", label="tab:ex", ci=True)
    assert text.rstrip().endswith(") <tab:ex>")
    assert "Effectiveness on the example topics." in _strings(text)
    assert "±" in text
    assert "half-width" in " ".join(_strings(text))
    _compiled(tmp_path, text + "\nSee @tab:ex.")  # the label can be referred to


@pytest.mark.parametrize("label", ["tab results", "1tab", "a<b>", "x y"])
def test_a_label_typst_cannot_read_is_refused(report, label) -> None:
    with pytest.raises(ParameterError, match="Typst label"):
        report.to_typst(label=label)


def test_collections_span_their_measures_and_transpose(levelled, tmp_path) -> None:
    text = levelled.to_typst()
    for name in ("robust04", "msmarco", "trec-covid", MACRO):
        assert f'table.cell(colspan: 2, align: center)[#"{name}"]' in text
    assert text.count("table.hline(start:") == 4
    (table,) = _compiled(tmp_path, text)
    header, body = _cells(table)
    width = 1 + 2 * 4
    assert len(body) == width * len(levelled.summary)
    transposed = levelled.to_typst(transpose=True)
    (table,) = _compiled(tmp_path, transposed)
    header, body = _cells(table)
    assert header == ["dataset", "Metric", *levelled.run_labels().values()]
    assert len(body) == (2 + len(levelled.summary)) * 4 * 2
    assert transposed.count("table.hline(stroke: 0.5pt)") == 4  # under the header, 3 groups


def test_the_command_line_writes_the_same_table(tmp_path, capsys) -> None:
    paths = pdireval.datasets.write_example(tmp_path)
    assert main(["--format", "typst", "-m", "map", *map(str, paths)]) == 0
    out = capsys.readouterr().out
    assert out.startswith("#figure(")
    (table,) = _compiled(tmp_path, out)
    header, _ = _cells(table)
    assert header == ["Run", "AP"]  # a report names measures as pdireval does
    frame = example()
    expected = frame.ireval.report("AP", baseline=None).to_typst()  # every pair
    assert out == expected + "\n"


HOSTILE = (
    '"); #panic("x") //',
    "\\",
    'a"b',
    "#set page(width: 1cm)",
    "$x^2$",
    "*bold* _em_ `raw`",
    "<label> @ref",
    "= Heading",
    "- item",
    "// comment",
    "/* open",
    "]",
    "[",
    "a\nb",
    "tab:\tsep",
    "\x01ctrl",
)
names = st.one_of(
    st.sampled_from(HOSTILE),
    st.text(
        alphabet=st.characters(blacklist_categories=("Cs",), blacklist_characters="\x00"),
        min_size=1,
        max_size=12,
    ).filter(lambda s: s.strip() == s and s),
)


def _frame(run_a: str, run_b: str) -> pdireval.Report:
    frame = example()
    frame = frame[frame["run"].isin(["medium", "strong"])].copy()
    frame["run"] = frame["run"].map({"medium": run_a, "strong": run_b})
    return frame


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.tuples(names, names, names).filter(lambda t: t[0] != t[1]))
def test_every_name_reads_back_as_its_text(tmp_path_factory, case) -> None:
    run_a, run_b, caption = case
    report = _frame(run_a, run_b).ireval.report(["AP"], baseline=run_a)
    text = report.to_typst(caption=caption)
    strings = _strings(text)
    assert f"{run_a} (baseline)" in strings
    assert run_b in strings
    assert caption in strings
    (table,) = _compiled(tmp_path_factory.mktemp("typst"), text)
    _, body = _cells(table)
    assert body[0] == f"{run_a} (baseline)"
    assert body[2] == run_b
