"""Session-wide test settings.

The shared helpers are plain modules next to the tests (``adversarial.py``: generated
runs and judgments and the bridge to pytrec_eval; ``reference.py``: slow, literal
implementations of the measures; ``strategies.py``: hypothesis strategies), imported
explicitly where they are used.

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

_EXIT_STATUS = {"value": 0}
_PREPARATION = os.environ.get("PDIREVAL_PREPARATION", "fast")


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
    return f"pdireval preparation: {_PREPARATION}"


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
