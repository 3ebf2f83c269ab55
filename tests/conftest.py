"""Session-wide test settings.

The tests sit in folders that mirror the package's layers (``core``, ``prepare``,
``metrics``, ``engine``, ``stats``, ``judgments``, ``fusion``, ``io``, ``reports``,
``plotting``, ``cli``, ``front`` for the typed functions, the accessor and Dask), and
``across`` holds the suites that cut across them: every measure of the registry, the
reference implementations, hostile names, no hidden state, every frame users bring, the
docs and the README.

The shared helpers are plain modules next to this file, imported explicitly where they
are used (``adversarial.py``: generated runs and judgments and the bridge to pytrec_eval;
``reference.py``: slow, literal implementations of the measures; ``strategies.py``:
hypothesis strategies; ``evaluating.py``: every evaluating function; and a few frames
and references of one subject). The fixture ``trec_eval`` (``trec_eval_program.py``)
builds trec_eval 9.0.8 from its source for the tests that run the program itself.

``PDIREVAL_PREPARATION=reference`` runs the whole suite with the preparation's fast
steps replaced by their plain reference implementations
(``pdireval._prepare.reference``): every test then checks the oracle too, and the
oracle's numbers must be the ones the tests expect.
"""

from __future__ import annotations

import os
import sys
import threading

import pytest
from trec_eval_program import trec_eval, trec_eval_10  # noqa: F401  (fixtures for every folder)

_EXIT_STATUS = {"value": 0}
_PREPARATION = os.environ.get("PDIREVAL_PREPARATION", "fast")
#: The share of each property test's examples drawn (1: all). .ci/run's second and third
#: passes over the same tests (the reference preparation, the oldest versions) draw a
#: quarter: every test still runs, on fewer generated frames.
_EXAMPLES = os.environ.get("PDIREVAL_HYPOTHESIS_EXAMPLES", "1")


def pytest_configure(config) -> None:
    if _PREPARATION not in ("fast", "reference"):
        msg = f"PDIREVAL_PREPARATION={_PREPARATION!r}: use 'fast' (the default) or 'reference'"
        raise ValueError(msg)
    if _PREPARATION == "reference":
        from pdireval._prepare import algorithms, reference

        for step in algorithms.STEPS:
            setattr(algorithms, step, getattr(reference, step))


@pytest.fixture(autouse=True)
def _metric_registry_as_it_was():
    """Every test leaves the metric registry as it found it: a metric a test defines
    (``pdireval.metrics.define``) is gone afterwards, whatever order the tests run in.
    """
    from pdireval.metrics import REGISTRY

    before = dict(REGISTRY)
    yield
    if REGISTRY.keys() != before.keys():
        REGISTRY.clear()
        REGISTRY.update(before)


def pytest_report_header(config) -> str:
    return f"pdireval preparation: {_PREPARATION}; share of hypothesis examples: {_EXAMPLES}"


def pytest_collection_modifyitems(config, items) -> None:
    """Draw ``PDIREVAL_HYPOTHESIS_EXAMPLES`` of each property test's examples (at least 5)."""
    share = float(_EXAMPLES)
    if not 0 < share <= 1:
        msg = f"PDIREVAL_HYPOTHESIS_EXAMPLES={_EXAMPLES!r}: give a share in (0, 1]"
        raise ValueError(msg)
    if share == 1:
        return
    from hypothesis import settings

    for item in items:
        test = getattr(item, "obj", None)
        # hypothesis reads a test's settings from this attribute when the test runs
        full = getattr(test, "_hypothesis_internal_use_settings", None)
        if full is None or getattr(test, "_pdireval_examples_scaled", False):
            continue
        fewer = max(5, round(full.max_examples * share))
        test._hypothesis_internal_use_settings = settings(full, max_examples=fewer)
        test._pdireval_examples_scaled = True


def pytest_sessionfinish(session, exitstatus) -> None:
    _EXIT_STATUS["value"] = int(exitstatus)


def pytest_unconfigure(config) -> None:
    """Leave even if a library left a non-daemon thread behind.

    With the oldest supported dask and distributed, a thread of their schedulers can
    outlive the whole session and keep the interpreter from exiting after the results
    are reported; CI would then wait for ever. Such threads are named on stderr.
    """
    lingering = [
        thread.name
        for thread in threading.enumerate()
        if thread is not threading.main_thread() and thread.is_alive() and not thread.daemon
    ]
    if lingering:
        sys.stdout.flush()
        sys.stderr.write(
            f"conftest: leaving {len(lingering)} non-daemon thread(s) behind at exit: "
            f"{', '.join(lingering[:5])}\n"
        )
        sys.stderr.flush()
        os._exit(_EXIT_STATUS["value"])
