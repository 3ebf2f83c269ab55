"""Judging sheets: what reading and writing one refuses, and the file each message names.

The round trips of :func:`pdireval.write_judging_sheet` and
:func:`pdireval.read_judging_sheet` are tested with the holes in ``test_holes.py``; here
are the files a user may hand back (edited, renamed, cut short) and the ids a workbook
cannot hold.
"""

from __future__ import annotations

import re
import zipfile
from pathlib import Path

import pandas as pd
import pytest

import pdireval
from pdireval import SchemaError

openpyxl = pytest.importorskip("openpyxl")

CELL_LIMIT = 32_767  # characters an Excel cell holds


@pytest.fixture
def holes() -> pd.DataFrame:
    return pd.DataFrame({"query": ["q1", "q1", "q2"], "doc": ["d7", "d2", "d5"]})


def _filled_template(path: Path, holes: pd.DataFrame, **options) -> str:
    """A template written for ``holes`` with every label filled with 1; its text."""
    pdireval.write_judging_sheet(holes, path, **options)
    text = path.read_text().replace(" ?\n", " 1\n")
    path.write_text(text)
    return text


def _names_the_file(error: pytest.ExceptionInfo, path: Path) -> None:
    message = str(error.value)
    assert str(path) in message
    assert "<buffer>" not in message


@pytest.mark.parametrize(
    ("edit", "problem"),
    [
        (
            lambda text: text.replace("d2 1", "d2 yes"),
            "the relevance label 'yes' is not an integer",
        ),
        (lambda text: text.replace("q1 0 d2 1", "q1 d2 1"), "expected 4 fields"),
        (lambda text: text + "q1 0 d7 2\n", "appears twice"),
    ],
)
def test_errors_reading_a_template_name_its_file(tmp_path, holes, edit, problem) -> None:
    path = tmp_path / "to judge.txt"
    path.write_text(edit(_filled_template(path, holes)))
    with pytest.raises(SchemaError, match=re.escape(problem)) as error:
        pdireval.read_judging_sheet(path, judge="alice")
    _names_the_file(error, path)
    assert re.search(rf"{re.escape(str(path))}, line \d+", str(error.value))


def test_a_template_that_is_not_utf8_is_refused_naming_its_file_and_line(tmp_path, holes):
    path = tmp_path / "sheet.qrels"
    text = _filled_template(path, holes)
    path.write_bytes(text.replace("q2 0 d5", "q2 0 d\xe95").encode("latin-1"))
    with pytest.raises(SchemaError, match=r"line 5: the bytes b'\\xe9' are not valid UTF-8") as e:
        pdireval.read_judging_sheet(path, judge="alice")
    _names_the_file(e, path)


def test_an_edited_record_of_the_labels_is_refused_naming_the_file(tmp_path, holes):
    path = tmp_path / "sheet.txt"
    text = _filled_template(path, holes, labels=range(3))
    path.write_text(text.replace("# labels: 0 1 2", "# labels: 0 1 two"))
    with pytest.raises(SchemaError, match=r"line 2: the labels recorded .* \('0 1 two'\)") as error:
        pdireval.read_judging_sheet(path, judge="alice")
    _names_the_file(error, path)
    assert len(pdireval.read_judging_sheet(path, judge="alice", labels=[1])) == 3

    workbook = tmp_path / "sheet.xlsx"
    pdireval.write_judging_sheet(holes, workbook, labels=range(3))
    book = openpyxl.load_workbook(workbook)
    for row in range(2, 5):
        book["Judgments"].cell(row, 3).value = 1
    book["pdireval"].cell(2, 2).value = "0 1 two"
    book.save(workbook)
    with pytest.raises(SchemaError, match=r"hidden sheet 'pdireval'.* not whole numbers") as error:
        pdireval.read_judging_sheet(workbook, judge="alice")
    _names_the_file(error, workbook)
    assert len(pdireval.read_judging_sheet(workbook, judge="alice", labels=[1], holes=holes)) == 3
    book["pdireval"].delete_rows(2, 2)
    book.save(workbook)
    with pytest.raises(SchemaError, match=r"hidden sheet 'pdireval'.* was edited") as error:
        pdireval.read_judging_sheet(workbook, judge="alice")
    _names_the_file(error, workbook)


def test_edited_ids_are_refused_naming_the_file(tmp_path, holes):
    template = tmp_path / "sheet.txt"
    template.write_text(_filled_template(template, holes).replace("q2 0 d5", "q2 0 d6"))
    with pytest.raises(SchemaError, match=r"\('q2', 'd6'\)") as error:
        pdireval.read_judging_sheet(template, judge="alice", holes=holes)
    _names_the_file(error, template)

    workbook = tmp_path / "sheet.xlsx"
    pdireval.write_judging_sheet(holes, workbook)
    book = openpyxl.load_workbook(workbook)
    sheet = book["Judgments"]
    for row in range(2, 5):
        sheet.cell(row, 3).value = 1
    sheet.cell(4, 2).value = "d6"
    book.save(workbook)
    for known in ({}, {"holes": holes}):
        with pytest.raises(SchemaError, match=r"edited or added\): \('q2', 'd6'\)") as error:
            pdireval.read_judging_sheet(workbook, judge="alice", **known)
        _names_the_file(error, workbook)


def _workbook_bytes(tmp_path: Path, holes: pd.DataFrame) -> bytes:
    path = tmp_path / "written.xlsx"
    pdireval.write_judging_sheet(holes, path)
    return path.read_bytes()


def _zip_without_a_workbook() -> bytes:
    path = Path(__import__("tempfile").mkdtemp()) / "other.zip"
    with zipfile.ZipFile(path, "w") as archive:
        archive.writestr("notes.txt", "not a workbook")
    return path.read_bytes()


@pytest.mark.parametrize(
    ("content", "found"),
    [
        (lambda book: b"q1 0 d7 1\nq1 0 d2 0\n", r"is not an Excel workbook.* b'q1 0 d7 "),
        (lambda book: b"", "is empty"),
        (lambda book: book[: len(book) // 2], "zip archive but not a complete Excel workbook"),
        (lambda book: book[:-40], "zip archive but not a complete Excel workbook"),
        (lambda book: _zip_without_a_workbook(), "zip archive but not a complete"),
        (
            lambda book: b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1" + bytes(504),
            r"Excel 97-2003 .* \(.xls\)",
        ),
    ],
    ids=["text", "empty", "cut in half", "cut at the end", "another zip", "xls"],
)
def test_a_file_that_is_no_workbook_is_refused_saying_what_it_is(
    tmp_path, holes, content, found
) -> None:
    path = tmp_path / "filled.xlsx"
    path.write_bytes(content(_workbook_bytes(tmp_path, holes)))
    with pytest.raises(SchemaError, match=found) as error:
        pdireval.read_judging_sheet(path, judge="alice")
    _names_the_file(error, path)
    assert "save it as an Excel workbook (.xlsx)" in str(error.value)
    assert not isinstance(error.value.__context__, SchemaError)


def test_a_missing_workbook_is_an_os_error_naming_it(tmp_path):
    path = tmp_path / "nowhere.xlsx"
    with pytest.raises(FileNotFoundError, match=r"nowhere\.xlsx"):
        pdireval.read_judging_sheet(path, judge="alice")


@pytest.mark.parametrize(
    ("query", "doc", "message"),
    [
        ("q1", "d" * (CELL_LIMIT + 1), r"the doc id 'd{40}'\.\.\. of query 'q1' is 32,768 "),
        ("q" * 40_000, "d1", r"the query id 'q{40}'\.\.\. is 40,000 characters long,"),
        ("q1", "\U0001f600" * 16_384, r"of query 'q1' is 32,768 .* as Excel counts them"),
    ],
    ids=["doc", "query", "emoji count twice"],
)
def test_ids_longer_than_an_excel_cell_are_refused_never_cut(tmp_path, query, doc, message):
    holes = pd.DataFrame({"query": ["q0", query], "doc": ["d0", doc]})
    path = tmp_path / "sheet.xlsx"
    with pytest.raises(SchemaError, match=message) as error:
        pdireval.write_judging_sheet(holes, path)
    assert ".txt" in str(error.value)
    assert len(str(error.value)) < 500  # the id's start, not the id
    assert not path.exists()
    # The TREC template holds the id whole.
    template = tmp_path / "sheet.txt"
    _filled_template(template, holes)
    judged = pdireval.read_judging_sheet(template, judge="alice", holes=holes)
    assert judged["query"].tolist() == sorted(holes["query"])
    assert set(zip(judged["query"], judged["doc"], strict=True)) == {("q0", "d0"), (query, doc)}


def test_an_id_as_long_as_a_cell_holds_comes_back_whole(tmp_path):
    doc = "d" + "x" * (CELL_LIMIT - 2) + "z"
    holes = pd.DataFrame({"query": ["q1", "q1"], "doc": ["d1", doc]})
    path = tmp_path / "sheet.xlsx"
    pdireval.write_judging_sheet(holes, path)
    book = openpyxl.load_workbook(path)
    for row in (2, 3):
        book["Judgments"].cell(row, 3).value = 1
    book.save(path)
    judged = pdireval.read_judging_sheet(path, judge="alice")
    assert judged["doc"].tolist() == ["d1", doc]


def test_texts_are_cut_to_what_excel_counts(tmp_path, holes):
    """A text of characters Excel counts twice (beyond the Basic Multilingual Plane) is cut
    to the cell's limit as Excel counts it, visibly, never a character cut in two."""
    path = tmp_path / "sheet.xlsx"
    pdireval.write_judging_sheet(holes, path, doc_texts={"d2": "\U0001f600" * 20_000})
    sheet = openpyxl.load_workbook(path)["Judgments"]
    (text,) = [row[2] for row in sheet.iter_rows(min_row=2, values_only=True) if row[2]]
    assert len(text.encode("utf-16-le")) // 2 <= CELL_LIMIT
    kept = (CELL_LIMIT - 40) // 2
    assert text == "\U0001f600" * kept + f" … (cut: {20_000 - kept} more characters)"
