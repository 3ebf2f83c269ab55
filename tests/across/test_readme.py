"""The README's code runs: its Python blocks execute and its doctest example holds."""

from __future__ import annotations

import doctest
import re
import sys
import tomllib
from pathlib import Path

import pytest

README = Path(__file__).resolve().parents[2] / "README.md"
BLOCKS = re.findall(r"```python\n(.*?)```", README.read_text(encoding="utf-8"), re.DOTALL)


@pytest.mark.parametrize("block", [b for b in BLOCKS if not b.lstrip().startswith(">>>")])
def test_python_blocks_run(block: str) -> None:
    """Every plain Python block of the README runs without error."""
    exec(compile(block, str(README), "exec"), {})


def test_doctest_examples_hold() -> None:
    """The README's >>> examples print what the README says."""
    failures, attempted = doctest.testfile(
        str(README), module_relative=False, optionflags=doctest.NORMALIZE_WHITESPACE
    )
    assert attempted > 0
    assert failures == 0


def _setup_commands() -> list[str]:
    """The README's two numbered set-up commands."""
    block = re.search(r"## Set up.*?```bash\n(.*?)```", README.read_text(encoding="utf-8"), re.S)
    assert block is not None, "the README has no set-up block"
    return [line for line in block.group(1).splitlines() if line and not line.startswith("#")]


def test_ci_runs_both_setup_commands_verbatim() -> None:
    """.ci/run runs the README's set-up commands exactly as written, the first in a bare venv."""
    commands = _setup_commands()
    assert len(commands) == 2
    script = (README.parent / ".ci" / "run").read_text(encoding="utf-8")
    lines = [line.strip() for line in script.splitlines()]
    for command in commands:
        assert command in lines, f"{command!r} is not run by .ci/run"
    bare = script.index("python3 -m venv .ci-venv-bare")
    assert bare < script.index(commands[0]) < script.index("python3 -m venv .ci-venv\n")


def _section(title: str) -> str:
    text = README.read_text(encoding="utf-8")
    found = re.search(rf"^#+ {re.escape(title)}\n(.*?)(?=^## )", text, re.S | re.M)
    assert found is not None, f"the README has no section {title!r}"
    return found.group(1)


def test_setup_says_how_to_get_every_feature() -> None:
    """The set-up names the `all` extra, and that extra holds every optional feature's."""
    assert 'pip install ".[all]"' in _section("Set up")
    pyproject = README.parent / "pyproject.toml"
    extras = tomllib.loads(pyproject.read_text(encoding="utf-8"))["project"][
        "optional-dependencies"
    ]
    for feature in ("stats", "excel", "plot", "dask"):
        assert set(extras[feature]) <= set(extras["all"]), f"[all] lacks [{feature}]"


def test_first_command_says_what_a_bare_install_does(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """Without scipy (a bare install) the demo shows the means and how to get the tests;
    the README's first command promises a comparison only together with the extra for it.
    """
    from pdireval import cli

    monkeypatch.setitem(sys.modules, "scipy", None)
    monkeypatch.setitem(sys.modules, "scipy.stats", None)
    assert cli.main(["demo"]) == 0
    shown = capsys.readouterr().out
    assert "0.8781" in shown  # the strong run's MAP
    assert re.search(r"pdireval\[(stats|all)\]", shown), shown
    block = re.search(r"## Set up.*?```bash\n(.*?)```", README.read_text(encoding="utf-8"), re.S)
    assert block is not None
    comment = block.group(1).split("python3 -m pip install .", 1)[0]
    if "compar" in comment:
        assert "[all]" in comment or "stats" in comment, comment


def test_speed_reads_in_twenty_seconds_and_links_the_benchmarks() -> None:
    speed = _section("Correctness and speed").split("**Speed**", 1)
    assert len(speed) == 2, "no **Speed** paragraph"
    assert "(benchmarks/README.md)" in speed[1]
    assert len(speed[1].split()) <= 160  # about 20 seconds of reading
