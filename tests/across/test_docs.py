"""The documentation's examples hold and its pages read anywhere.

The pages' examples are standard code blocks written as doctests, so GitHub shows them
as they are; here (and in the Sphinx build) they run and print what the pages show.
"""

from __future__ import annotations

import doctest
import importlib
import re
from pathlib import Path

import pytest

DOCS = Path(__file__).resolve().parents[2] / "docs"
PAGES = sorted(DOCS.glob("*.rst"))
#: Pages whose examples use an optional dependency beyond the test extra's usual ones.
NEEDS = {"dask.rst": "dask.dataframe", "polars.rst": "polars"}


def _with_examples(page: Path) -> bool:
    return ">>> " in page.read_text(encoding="utf-8")


@pytest.mark.parametrize("page", [p for p in PAGES if _with_examples(p)], ids=lambda p: p.name)
def test_page_examples_print_what_the_page_shows(page: Path) -> None:
    pytest.importorskip("scipy")
    pytest.importorskip("matplotlib").use("Agg")
    if page.name in NEEDS:
        pytest.importorskip(NEEDS[page.name])
    failures, attempted = doctest.testfile(
        str(page),
        module_relative=False,
        optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE,
    )
    assert attempted > 0
    assert failures == 0


MINE = [
    "index.rst",
    "getting_started.rst",
    "frames.rst",
    "measures.rst",
    "comparing.rst",
    "dask.rst",
    "more.rst",
    "reports.rst",
    "judgments.rst",
]


@pytest.mark.parametrize("name", MINE)
def test_examples_are_standard_code_blocks(name: str) -> None:
    """No example hides in a directive that only this project's Sphinx extension knows
    (GitHub drops it); every page above has examples that run.
    """
    text = (DOCS / name).read_text(encoding="utf-8")
    assert ".. pdireval-example::" not in text
    assert re.search(r"\.\. code-block:: python\n\n\s+>>> ", text)


def test_the_catalogue_names_trec_eval_measures(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every family's entry lists trec_eval's names, not the objects that declare them."""
    pytest.importorskip("sphinx")
    from pdireval.metrics import REGISTRY

    monkeypatch.syspath_prepend(str(DOCS / "_ext"))
    extension = importlib.import_module("pdireval_docs")
    names = extension._trec_eval_names()
    text = "\n".join(
        line for family in REGISTRY.values() for line in extension._family_rst(family, names)
    )
    assert "TrecMeasure(" not in text
    assert ":trec_eval: ``map``, ``gm_map``, ``map_cut``" in text
    assert "``P``" in text
