"""The README's code runs: its Python blocks execute and its doctest example holds."""

from __future__ import annotations

import doctest
import re
from pathlib import Path

import pytest

README = Path(__file__).resolve().parents[1] / "README.md"
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
