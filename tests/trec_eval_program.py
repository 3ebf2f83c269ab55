"""trec_eval 9.0.8 and 10.0 built from their C source for the tests that run the programs.

Each source is looked for where ``PDIREVAL_TREC_EVAL_SOURCE`` (9.0.8) or
``PDIREVAL_TREC_EVAL_10_SOURCE`` (10.0) points, else in ``../shared/trec_eval-9.0.8`` and
``../shared/trec_eval-10.0`` next to the clone. A test takes the fixture ``trec_eval``
(9.0.8) or ``trec_eval_10``; each program is built once per test process and only run.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

#: version -> the environment variable naming its source folder
_SOURCES = {"9.0.8": "PDIREVAL_TREC_EVAL_SOURCE", "10.0": "PDIREVAL_TREC_EVAL_10_SOURCE"}


def _source(version: str) -> Path | None:
    candidates = []
    if os.environ.get(_SOURCES[version]):
        candidates.append(Path(os.environ[_SOURCES[version]]))
    candidates.append(Path(__file__).resolve().parents[2] / "shared" / f"trec_eval-{version}")
    return next((path for path in candidates if (path / "trec_eval.c").is_file()), None)


def build(version: str, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The trec_eval program of ``version``, built in a temporary directory (skipping,
    saying why, without its source or a compiler).
    """
    source = _source(version)
    if source is None:
        pytest.skip(
            f"optional trec_eval {version} source not found; it enables the comparison with "
            f"the trec_eval {version} program itself, built here (set ${_SOURCES[version]}, "
            f"or put the source at ../shared/trec_eval-{version} next to the clone)"
        )
    compiler = shutil.which("cc") or shutil.which("gcc")
    if compiler is None or shutil.which("make") is None:
        pytest.skip(f"no C compiler or make to build trec_eval {version} with")
    folder = tmp_path_factory.getbasetemp() / f"trec_eval-{version}"
    if (folder / "trec_eval").is_file():
        return folder / "trec_eval"
    shutil.copytree(
        source, folder, ignore=shutil.ignore_patterns("*.o", "trec_eval"), dirs_exist_ok=True
    )
    done = subprocess.run(
        ["make", "-s", f"CC={compiler}"], cwd=folder, capture_output=True, text=True, check=False
    )
    if done.returncode != 0 or not (folder / "trec_eval").is_file():
        pytest.fail(f"building trec_eval {version} failed:\n{done.stderr[-2000:]}")
    return folder / "trec_eval"


@pytest.fixture(scope="session")
def trec_eval(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """trec_eval 9.0.8 built from its source, once per test process."""
    return build("9.0.8", tmp_path_factory)


@pytest.fixture(scope="session")
def trec_eval_10(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """trec_eval 10.0 built from its source, once per test process."""
    return build("10.0", tmp_path_factory)
