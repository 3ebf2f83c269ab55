"""`import pdireval` is cheap and side-effect free: no optional dependency, one accessor."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

import pdireval

OPTIONAL = ("matplotlib", "scipy", "dask", "openpyxl", "pytrec_eval", "polars")

# Runs in a fresh interpreter: what import pdireval (then one evaluation) adds to the process.
_PROBE = f"""
import json, sys
import pandas as pd
optional = {OPTIONAL!r}
loaded = lambda: sorted(m for m in optional if m in sys.modules)
facts = {{"with_pandas_only": loaded(), "accessor_before": hasattr(pd.DataFrame(), "ireval")}}
frame_attrs, series_attrs = set(dir(pd.DataFrame)), set(dir(pd.Series))
import pdireval, pdireval.api, pdireval.metrics
facts["after_import"] = loaded()
parts = ("pdireval.datasets", "pdireval.plotting", "pdireval.reports.model",
         "pdireval.reports.formats.excel", "pdireval.io.trec", "pdireval.judgments.pooling",
         "pdireval.stats.reproduction", "pdireval.stats.overlap", "pdireval.stats.correlation",
         "pdireval.dask", "pdireval.stats.risk", "pdireval.stats.tukey", "pdireval.stats.meta",
         "pdireval.stats.qpp", "pdireval.plotting.science")
facts["parts_after_import"] = sorted(m for m in parts if m in sys.modules)
facts["read_run"] = pdireval.read_run.__module__
facts["parts_after_use"] = sorted(m for m in parts if m in sys.modules)
facts["accessor_after"] = type(pd.DataFrame().ireval).__name__
facts["new_frame_attrs"] = sorted(set(dir(pd.DataFrame)) - frame_attrs)
facts["new_series_attrs"] = sorted(set(dir(pd.Series)) - series_attrs)
df = pd.DataFrame({{"query": ["q", "q"], "doc": ["a", "b"], "score": [1.0, 0.5], "rel": [0, 1]}})
facts["ap"] = df.ireval.evaluate(["AP", "nDCG@5", "P@1", "Bpref"])["AP"].tolist()
df.ireval.summary(["AP"], agg="gmean")
pdireval.merge_qrels(df.drop(columns="rel"), df.drop(columns="score"))
facts["after_evaluate"] = loaded()
# Control: the probe does see an optional module once it is imported.
facts["control"] = {{}}
for name in optional:
    try:
        __import__(name)
    except ImportError:
        continue
    facts["control"][name] = name in sys.modules
print(json.dumps(facts))
"""


@pytest.fixture(scope="module")
def facts() -> dict:
    """Run the probe once in a fresh interpreter that imports this checkout."""
    root = str(Path(pdireval.__file__).resolve().parent.parent)
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [root, env.get("PYTHONPATH")]))
    done = subprocess.run(
        [sys.executable, "-c", _PROBE],
        capture_output=True,
        text=True,
        env=env,
        check=False,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout.strip().splitlines()[-1])


def test_import_does_not_pull_optional_dependencies(facts: dict) -> None:
    """After `import pdireval` (and its public submodules) no optional package is loaded."""
    assert facts["with_pandas_only"] == []
    assert facts["after_import"] == []


def test_optional_parts_load_when_first_used(facts: dict) -> None:
    """`import pdireval` loads no example collection, figures, reports, file reading or
    analyses beyond evaluation; the first use of one loads it, and only it."""
    assert facts["parts_after_import"] == []
    assert facts["read_run"] == "pdireval.io.trec"
    assert facts["parts_after_use"] == ["pdireval.io.trec"]


def test_evaluating_does_not_pull_optional_dependencies(facts: dict) -> None:
    """Evaluating, summarising and merging with core metrics needs only numpy and pandas."""
    assert facts["ap"] == [0.5]  # the relevant b is ranked second
    assert facts["after_evaluate"] == []


def test_probe_sees_loaded_modules(facts: dict) -> None:
    """Control: each installed optional module shows in sys.modules once imported, so the empty
    lists above are meaningful."""
    assert facts["control"], "no optional package installed: the control cannot run"
    assert all(facts["control"].values())


def test_accessor_registered_on_import(facts: dict) -> None:
    """The `ireval` accessor exists on DataFrames only after `import pdireval`."""
    assert facts["accessor_before"] is False
    assert facts["accessor_after"] == "IREvalAccessor"


def test_accessor_is_the_only_attribute_added(facts: dict) -> None:
    """Nothing but `ireval` is attached to pd.DataFrame, and nothing to pd.Series."""
    assert facts["new_frame_attrs"] == ["ireval"]
    assert facts["new_series_attrs"] == []


def test_accessor_available_here() -> None:
    """In this process too, an empty DataFrame has the accessor."""
    import pandas as pd

    assert isinstance(pd.DataFrame().ireval, pdireval.IREvalAccessor)


def test_public_names_exist() -> None:
    """Every name in pdireval.__all__ is importable, including the DESIGN §3 functions; errors
    inherit the builtins."""
    for name in pdireval.__all__:
        assert hasattr(pdireval, name), name
    design = {"evaluate", "summary", "merge_qrels", "ap", "map", "rr", "mrr", "ndcg", "precision"}
    assert design <= set(pdireval.__all__)
    assert issubclass(pdireval.SchemaError, ValueError)
    assert issubclass(pdireval.MetricError, ValueError)
    assert issubclass(pdireval.MissingDependencyError, ImportError)


_LIGHT_PROBE = """
import json, sys
import pdireval
plain = sorted(m for m in sys.modules if m.startswith("pdireval"))
from pdireval import cli
try:
    cli.main(["--version"])
except SystemExit:
    pass
after_version = sorted(m for m in sys.modules if m.startswith("pdireval"))
print(json.dumps({"plain": plain, "after_version": after_version}))
"""


def test_import_and_version_load_no_evaluation_code() -> None:
    """`import pdireval` and `pdireval --version` load the accessor and the command line's
    parser only: the metrics, the evaluation and file reading come with their first use, so
    that starting costs little more than importing pandas."""
    root = str(Path(pdireval.__file__).resolve().parent.parent)
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [root, env.get("PYTHONPATH")]))
    done = subprocess.run(
        [sys.executable, "-c", _LIGHT_PROBE], capture_output=True, text=True, env=env, timeout=120
    )
    assert done.returncode == 0, done.stderr
    found = json.loads(done.stdout.strip().splitlines()[-1])
    heavy = {"pdireval.api", "pdireval.metrics", "pdireval.io.trec", "pdireval.engine.evaluate"}
    assert not heavy & set(found["plain"]), found["plain"]
    assert not heavy & set(found["after_version"]), found["after_version"]
    assert "pdireval.cli.main" in found["after_version"]  # control: the probe sees modules
