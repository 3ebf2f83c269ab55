"""The command-line page shows what the command prints: each ``$ pdireval ...`` of its
console blocks runs on the files ``pdireval demo --write`` writes, and prints the lines
shown (up to a closing ``...``)."""

from __future__ import annotations

import re
import shlex
from pathlib import Path

import pytest

from pdireval.cli.main import main

PAGE = Path(__file__).resolve().parents[2] / "docs" / "cli.rst"
_BLOCK = re.compile(r"\.\. code-block:: console\n\n((?:(?:   .*)?\n)+)")


def _blocks(text: str) -> list[list[tuple[str, list[str]]]]:
    """Each console block's ``$ pdireval`` lines: (arguments, shown lines), in order."""
    blocks = []
    for block in _BLOCK.findall(text):
        found: list[tuple[str, list[str]]] = []
        for line in (line[3:] for line in block.rstrip("\n").split("\n")):
            if line.startswith("$ "):
                found.append((line[2:], []))
            elif found:
                found[-1][1].append(line)
        commands = [(c, shown) for c, shown in found if c.startswith("pdireval ")]
        if commands:
            blocks.append(commands)
    return blocks


def _words(lines: list[str]) -> list[list[str]]:
    return [line.split() for line in lines]


def test_the_page_has_no_directive_that_github_drops() -> None:
    text = PAGE.read_text(encoding="utf-8")
    assert ".. pdireval-cli::" not in text
    assert sum(len(block) for block in _blocks(text)) >= 6


@pytest.mark.parametrize(
    "block", _blocks(PAGE.read_text(encoding="utf-8")), ids=lambda b: b[-1][0][:40]
)
def test_each_command_prints_what_the_page_shows(block, tmp_path, capsys, monkeypatch):
    """The commands of a block run one after the other in one folder (a block may write a
    file that its next command reads)."""
    pytest.importorskip("scipy")
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("COLUMNS", "90")
    assert main(["demo", "--write", "example"]) == 0
    monkeypatch.chdir(tmp_path / "example")
    for command, expected in block:
        capsys.readouterr()
        try:
            status = main(shlex.split(command)[1:])
        except SystemExit as done:  # --help
            status = done.code
        printed = capsys.readouterr().out.rstrip("\n")
        assert status == 0, command
        lines = printed.split("\n") if printed else []
        shown = expected
        if shown and shown[-1] == "...":
            shown = shown[:-1]
            lines = lines[: len(shown)]
        # the words of each line: the page's tabs are the terminal's columns
        assert _words(lines) == _words(shown), command
