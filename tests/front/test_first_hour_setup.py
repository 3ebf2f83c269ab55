"""The set-up a newcomer reads: the `all` extra holds every optional feature, the README
and Getting started list every extra, and both give CI's test command."""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
#: Extras that are tools for working on pdireval, not features of it.
TOOLS = {"test", "bench", "dev", "docs", "all"}


def _extras() -> dict[str, list[str]]:
    text = (ROOT / "pyproject.toml").read_text(encoding="utf-8")
    return tomllib.loads(text)["project"]["optional-dependencies"]


def _features() -> list[str]:
    return [name for name in _extras() if name not in TOOLS]


def test_all_holds_every_feature_extra() -> None:
    extras = _extras()
    features = _features()
    assert {"stats", "excel", "irds", "plot", "dask"} <= set(features)
    for feature in features:
        missing = set(extras[feature]) - set(extras["all"])
        assert not missing, f"[all] lacks [{feature}]: {sorted(missing)}"


def test_the_readme_and_getting_started_name_every_feature_extra() -> None:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    setup = readme.split("## Set up", 1)[1].split("\n## ", 1)[0]
    table = (ROOT / "docs" / "getting_started.rst").read_text(encoding="utf-8")
    for feature in _features():
        assert f"`{feature}`" in setup, f"the README's set-up does not name [{feature}]"
        assert f"``pdireval[{feature}]``" in table, f"Getting started lacks [{feature}]"


def _numbered_commands(block: str) -> list[str]:
    """The commands of a block of ``# 1.``, ``# 2.`` steps, without the comments."""
    lines = [line.strip() for line in block.splitlines()]
    return [line for line in lines if line and not line.startswith(("#", ".."))]


def test_getting_started_gives_the_readme_and_ci_test_command() -> None:
    """Getting started says its two commands are CI's: they are the README's, which .ci/run
    runs verbatim (every core: ``-n auto``), and both say the suite takes minutes.
    """
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    block = re.search(r"## Set up.*?```bash\n(.*?)```", readme, re.S)
    assert block is not None
    page = (ROOT / "docs" / "getting_started.rst").read_text(encoding="utf-8")
    rst = re.search(r"Install\n-+\n.*?\.\. code-block:: bash\n\n(.*?)\n\S", page, re.S)
    assert rst is not None
    commands = _numbered_commands(block.group(1))
    assert _numbered_commands(rst.group(1)) == commands
    script = [line.strip() for line in (ROOT / ".ci" / "run").read_text().splitlines()]
    assert all(command in script for command in commands)
    assert "-n auto" in commands[1]
    assert "minutes" in block.group(1)
    assert "minutes" in page.split("A first evaluation", 1)[0]
