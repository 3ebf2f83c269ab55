"""The command-line page shows what the command prints: each ``$ pdireval ...`` of its
console blocks runs on the files ``pdireval demo --write`` writes, and prints the lines
shown (up to a closing ``...``)."""

from __future__ import annotations

import re
import shlex
from pathlib import Path

import pytest

from pdireval.cli import main

PAGE = Path(__file__).resolve().parents[1] / "docs" / "cli.rst"
_BLOCK = re.compile(r"\.\. code-block:: console\n\n((?:(?:   .*)?\n)+)")


def _commands(text: str) -> list[tuple[str, list[str]]]:
    """(arguments, shown lines) of each ``$ pdireval`` line of the page's console blocks."""
    found: list[tuple[str, list[str]]] = []
    for block in _BLOCK.findall(text):
        lines = [line[3:] for line in block.rstrip("\n").split("\n")]
        for line in lines:
            if line.startswith("$ "):
                found.append((line[2:], []))
            elif found:
                found[-1][1].append(line)
    return [(command, shown) for command, shown in found if command.startswith("pdireval ")]


def _words(lines: list[str]) -> list[list[str]]:
    return [line.split() for line in lines]


def test_the_page_has_no_directive_that_github_drops() -> None:
    text = PAGE.read_text(encoding="utf-8")
    assert ".. pdireval-cli::" not in text
    assert len(_commands(text)) >= 5


@pytest.mark.parametrize(
    ("command", "shown"), _commands(PAGE.read_text(encoding="utf-8")), ids=lambda v: str(v)[:40]
)
def test_each_command_prints_what_the_page_shows(command, shown, tmp_path, capsys, monkeypatch):
    pytest.importorskip("scipy")
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("COLUMNS", "90")
    assert main(["demo", "--write", "example"]) == 0
    monkeypatch.chdir(tmp_path / "example")
    capsys.readouterr()
    try:
        status = main(shlex.split(command)[1:])
    except SystemExit as done:  # --help
        status = done.code
    printed = capsys.readouterr().out.rstrip("\n").split("\n")
    assert status == 0
    if shown and shown[-1] == "...":
        shown = shown[:-1]
        printed = printed[: len(shown)]
    # the words of each line: the page's tabs are the terminal's columns
    assert _words(printed) == _words(shown)
