"""trec_eval 9.0.8 built from its C source for the tests that run the program itself.

The source is looked for where ``PDIREVAL_TREC_EVAL_SOURCE`` points, else in
``../shared/trec_eval-9.0.8`` next to the clone. A test module imports the fixture
``trec_eval``; the program is built once per session and only run.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest


def _source() -> Path | None:
    candidates = []
    if os.environ.get("PDIREVAL_TREC_EVAL_SOURCE"):
        candidates.append(Path(os.environ["PDIREVAL_TREC_EVAL_SOURCE"]))
    candidates.append(Path(__file__).resolve().parents[2] / "shared" / "trec_eval-9.0.8")
    return next((path for path in candidates if (path / "trec_eval.c").is_file()), None)


@pytest.fixture(scope="session")
def trec_eval(tmp_path_factory) -> Path:
    """trec_eval 9.0.8 built from its source in a temporary directory, once per session."""
    source = _source()
    if source is None:
        pytest.skip(
            "optional trec_eval 9.0.8 source not found; it enables the comparison with the "
            "trec_eval program itself, built here (set $PDIREVAL_TREC_EVAL_SOURCE, or put the "
            "source at ../shared/trec_eval-9.0.8 next to the clone)"
        )
    compiler = shutil.which("cc") or shutil.which("gcc")
    if compiler is None or shutil.which("make") is None:
        pytest.skip("no C compiler or make to build trec_eval 9.0.8 with")
    build = tmp_path_factory.getbasetemp() / "trec_eval-9.0.8"
    if (build / "trec_eval").is_file():
        return build / "trec_eval"
    shutil.copytree(
        source, build, ignore=shutil.ignore_patterns("*.o", "trec_eval"), dirs_exist_ok=True
    )
    done = subprocess.run(
        ["make", "-s", f"CC={compiler}"], cwd=build, capture_output=True, text=True, check=False
    )
    if done.returncode != 0 or not (build / "trec_eval").is_file():
        pytest.fail(f"building trec_eval 9.0.8 failed:\n{done.stderr[-2000:]}")
    return build / "trec_eval"
