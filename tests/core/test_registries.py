"""Every named choice is declared once, in a registry, and what users see of it -- the
type aliases, the command line's help, the documentation -- agrees with the registry.
"""

from __future__ import annotations

import contextlib
import io
import re
from pathlib import Path
from typing import get_args

import pytest

import pdireval
from pdireval._core.registry import Registry
from pdireval.fusion.methods import METHODS
from pdireval.fusion.normalization import NORMS
from pdireval.fusion.supervised import SUPERVISED, SupervisedMethod
from pdireval.plotting import KINDS, Kind
from pdireval.reports.formats import formats
from pdireval.stats.significance import CORRECTIONS, TESTS
from pdireval.typing import Correction, Test

DOCS = Path(__file__).resolve().parents[2] / "docs"

REGISTRIES: dict[str, Registry] = {
    "fusion methods": METHODS,
    "normalisations": NORMS,
    "supervised fusion methods": SUPERVISED,
    "plot kinds": KINDS,
    "tests": TESTS,
    "corrections": CORRECTIONS,
    "output formats": formats(),
}


def test_type_aliases_list_exactly_the_registered_choices() -> None:
    assert list(get_args(Test)) == list(TESTS)
    assert list(get_args(Correction)) == list(CORRECTIONS)
    assert list(get_args(Kind)) == list(KINDS)
    assert list(get_args(SupervisedMethod)) == list(SUPERVISED)


@pytest.mark.parametrize("kind", sorted(REGISTRIES))
def test_an_unknown_name_is_refused_with_the_closest_one(kind: str) -> None:
    registry = REGISTRIES[kind]
    first = next(iter(registry))
    assert registry[first.upper()] is registry[first]  # any case
    with pytest.raises(pdireval.ParameterError, match=rf"did you mean {first!r}\?"):
        registry[first + "x"]
    with pytest.raises(pdireval.ParameterError, match="is not a"):
        registry["no such choice"]


def test_each_output_format_is_its_own_module_named_after_it() -> None:
    from pdireval.cli.main import _format_names

    registered = formats()
    assert all(registered[name].name == name for name in registered)
    assert sorted(registered) == sorted([*_format_names(), "text"])
    assert all(f.render is not None or f.write is not None for f in registered.values())


def test_the_command_lines_help_lists_every_format_method_and_normalisation() -> None:
    from pdireval.cli.main import main

    out = io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.suppress(SystemExit):
        main(["--help"])
    text = " ".join(out.getvalue().split())
    for name in formats():
        if name != "text":
            assert name in text
    out = io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.suppress(SystemExit):
        main(["fuse", "--help"])
    text = " ".join(out.getvalue().split())
    assert all(name in text for name in METHODS)
    assert all(name in text for name in NORMS)


def test_the_documentation_tables_are_the_registries() -> None:
    fusion = (DOCS / "fusion.rst").read_text(encoding="utf-8")
    assert ".. pdireval-choices:: pdireval.fusion.methods.METHODS" in fusion
    assert ".. pdireval-choices:: pdireval.fusion.normalization.NORMS" in fusion
    comparing = (DOCS / "comparing.rst").read_text(encoding="utf-8")
    for name in [*TESTS, *CORRECTIONS]:
        assert re.search(rf'``"?{re.escape(name)}"?``', comparing), name
    reports = (DOCS / "reports.rst").read_text(encoding="utf-8")
    assert ".. pdireval-choices:: pdireval.reports.formats.formats" in reports
