"""A judging workbook with query and document texts prints on as few pages as its text
needs: fitted to the page's width, landscape when wide, the header row on every page,
rows as tall as their wrapped text."""

from __future__ import annotations

import math
import shutil
import subprocess

import numpy as np
import pandas as pd
import pytest

import pdireval
from pdireval.io.workbook import wrapped_lines

openpyxl = pytest.importorskip("openpyxl")

WORDS = [
    "retrieval", "neural", "ranking", "passage", "document", "query", "model",
    "transformer", "relevance", "judgment", "evaluation", "collection",
]  # fmt: skip


@pytest.fixture(scope="module")
def workbook(tmp_path_factory):
    rng = np.random.default_rng(1)
    holes = pd.DataFrame(
        [(f"q{q}", f"doc-{q}-{d:04d}") for q in range(4) for d in range(30)],
        columns=["query", "doc"],
    )
    queries = {f"q{q}": "what is " + " ".join(rng.choice(WORDS, 8)) for q in range(4)}
    docs = {doc: " ".join(rng.choice(WORDS, 60)) for doc in holes["doc"]}
    path = tmp_path_factory.mktemp("judge") / "judge.xlsx"
    pdireval.write_judging_sheet(holes, path, query_texts=queries, doc_texts=docs)
    return path, docs


def test_the_judging_sheet_prints_fitted_to_the_page_width(workbook) -> None:
    path, _ = workbook
    sheet = openpyxl.load_workbook(path)["Judgments"]
    setup = sheet.page_setup
    assert sheet.sheet_properties.pageSetUpPr.fitToPage
    assert (setup.fitToWidth, setup.fitToHeight) == (1, 0)
    assert setup.orientation == "landscape"
    assert sheet.print_title_rows.replace("$", "") == "1:1"
    margins = sheet.page_margins
    assert min(margins.left, margins.right, margins.top, margins.bottom) >= 0.25
    assert max(margins.left, margins.right, margins.top, margins.bottom) <= 1.0


def test_document_texts_get_the_page_width_and_rows_their_lines(workbook) -> None:
    """The document's text takes the room the page leaves (90 digit widths, the query's
    text 30), and each row is as tall as its wrapped lines, not taller."""
    path, docs = workbook
    sheet = openpyxl.load_workbook(path)["Judgments"]
    header = [cell.value for cell in sheet[1]]
    doc_text = sheet.cell(row=1, column=header.index("doc text") + 1).column_letter
    query_text = sheet.cell(row=1, column=header.index("query text") + 1).column_letter
    assert sheet.column_dimensions[doc_text].width == pytest.approx(90, abs=1)
    assert sheet.column_dimensions[query_text].width <= 32
    width = sheet.column_dimensions[doc_text].width
    for row in range(2, 12):
        text = docs[sheet.cell(row=row, column=header.index("doc") + 1).value]
        lines = wrapped_lines(text, width - 1)
        assert lines < 0.8 * math.ceil(1.25 * len(text) * 0.8 / 59)  # fewer than at 60 wide
        assert sheet.row_dimensions[row].height == pytest.approx(13.0 * lines + 2)


@pytest.mark.skipif(shutil.which("soffice") is None, reason="LibreOffice is not installed")
@pytest.mark.skipif(shutil.which("pdfinfo") is None, reason="poppler-utils is not installed")
def test_libreoffice_prints_the_sheet_on_the_pages_its_rows_need(workbook, tmp_path) -> None:
    path, _ = workbook
    done = subprocess.run(
        ["soffice", "--headless", "--convert-to", "pdf", "--outdir", str(tmp_path), str(path)],
        capture_output=True,
        timeout=180,
    )
    assert done.returncode == 0
    info = subprocess.run(
        ["pdfinfo", str(tmp_path / "judge.pdf")], capture_output=True, text=True, check=True
    ).stdout
    pages = int(info.split("Pages:")[1].split()[0])
    width, height = (float(v) for v in info.split("Page size:")[1].split()[:3:2])
    assert width > height  # landscape
    sheet = openpyxl.load_workbook(path)["Judgments"]
    rows = sum(sheet.row_dimensions[row].height or 13.0 for row in range(1, sheet.max_row + 1))
    printable = height - 72 * 1.5  # top and bottom margins of 0.75 in
    assert pages <= math.ceil(rows / printable) + 1  # one page across: columns never spill
