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
