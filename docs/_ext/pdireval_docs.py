"""Sphinx directives and checks of the pdireval documentation.

Examples on the pages are standard ``.. code-block:: python`` blocks written as doctests
(``>>>`` lines and the output under them), so they read the same on any site that shows
reStructuredText; every page's examples run when it is read, and an output that differs
from the page's is a build warning (``-W`` fails the build). ``tests/across/test_docs.py`` runs
them too.

``.. pdireval-measures::``
    The catalogue of measures, generated from the metric registry
    (:data:`pdireval.metrics.REGISTRY`): one section per module of families, one entry
    per family with its aliases, parameters and defaults, cutoff, trec_eval names and
    the first paragraph of its definition. Measures added to the registry appear here
    without editing the page.

After an HTML build, ``example_report.html`` (``Report.to_html()`` of the example
collection) is written next to the pages, for the Reports page to show.
"""

from __future__ import annotations

import contextlib
import doctest
import importlib
import inspect
import io
from collections.abc import Iterable
from pathlib import Path
from typing import Any, ClassVar

from docutils import nodes
from docutils.parsers.rst import directives
from docutils.statemachine import StringList
from sphinx.application import Sphinx
from sphinx.util import logging
from sphinx.util.docutils import SphinxDirective
from sphinx.util.nodes import nested_parse_with_titles

LOGGER = logging.getLogger(__name__)
ROOT = Path(__file__).resolve().parents[2]


# --------------------------------------------------------------------------- doctests


#: How a page's ``>>>`` examples are compared with the output written under them.
DOCTEST_FLAGS = doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE


def _check_doctests(app: Sphinx, docname: str, source: list[str]) -> None:
    """Run the ``>>>`` examples of a page (standard code blocks, readable anywhere) when
    it is read, top to bottom in one namespace as ``doctest`` runs a text file; an
    example whose output differs from the page's is a build warning (``-W`` fails).
    """
    path = app.env.doc2path(docname)
    examples = doctest.DocTestParser().get_doctest(
        source[0], {"__name__": "__main__"}, docname, str(path), 0
    )
    if not examples.examples:
        return
    report = io.StringIO()
    runner = doctest.DocTestRunner(optionflags=DOCTEST_FLAGS)
    with contextlib.redirect_stdout(io.StringIO()):
        failed, _ = runner.run(examples, out=report.write, clear_globs=True)
    if failed:
        LOGGER.warning(
            "%d example(s) do not print what the page shows:\n%s",
            failed,
            report.getvalue(),
            location=docname,
        )


# --------------------------------------------------------------------------- measures

#: Section titles of the modules that declare the built-in families, in page order;
#: a module not listed here (a new family module) gets a section after these.
GROUPS = {
    "pdireval.metrics.precision": "Precision",
    "pdireval.metrics.recall": "Recall",
    "pdireval.metrics.average_precision": "Average precision",
    "pdireval.metrics.yaap": "Yet another average precision",
    "pdireval.metrics.reciprocal_rank": "Reciprocal rank and success",
    "pdireval.metrics.dcg": "Cumulative gain: DCG, nDCG and relatives",
    "pdireval.metrics.err": "Expected reciprocal rank",
    "pdireval.metrics.nerr": "Not (but nearly) ERR",
    "pdireval.metrics.rank_biased": "Rank-biased precision",
    "pdireval.metrics.compat": "Compatibility with an ideal ranking",
    "pdireval.metrics.accuracy": "Pairwise accuracy",
    "pdireval.metrics.interpolated": "Interpolated precision",
    "pdireval.metrics.set_based": "Set-based measures",
    "pdireval.metrics.bpref": "Incomplete judgments: bpref",
    "pdireval.metrics.inferred": "Incomplete judgments: inferred AP",
    "pdireval.metrics.judged": "Judgment coverage",
    "pdireval.metrics.gain": "trec_eval's gain measures",
    "pdireval.metrics.utility": "Utility",
    "pdireval.metrics.search_length": "Search length",
    "pdireval.metrics.user": "User-oriented measures",
    "pdireval.metrics.cwl": "User models: C/W/L measures",
    "pdireval.metrics.counts": "Counts",
    "pdireval.metrics.efficiency": "Efficiency",
}


def _first_paragraph(text: str | None) -> str:
    text = inspect.cleandoc(text or "")
    return text.split("\n\n", 1)[0].strip() if text else ""


def _trec_eval_names() -> dict[str, list[str]]:
    """trec_eval measure names by pdireval family, as the families declare them."""
    from pdireval.metrics import REGISTRY

    return {
        name: list(dict.fromkeys(measure.name for measure in family.trec_eval))
        for name, family in REGISTRY.items()
        if family.trec_eval
    }


def _literal(text: Any) -> str:
    return "``" + str(text) + "``"


def _forms(family: Any) -> str:
    """How the family is written: ``P@k``, ``AP`` / ``AP@k``, ``IPrec@r``."""
    k = "r" if family.cutoff_kind == "recall" else "k"
    params = ", ".join(f"{p}=..." for p in family.params if p != "rel")
    name = family.name
    with_params = f"{name}({params})" if params else None
    if family.cutoff == "required":
        forms = [f"{name}@{k}"] + ([f"{with_params}@{k}"] if with_params else [])
    elif family.cutoff == "optional":
        forms = [name, f"{name}@{k}"] + ([f"{with_params}@{k}"] if with_params else [])
    else:
        forms = [name] + ([with_params] if with_params else [])
    return ", ".join(_literal(f) for f in forms)


def _cutoff(family: Any) -> str:
    what = "a recall level in [0, 1]" if family.cutoff_kind == "recall" else "a rank k ≥ 1"
    return {
        "required": f"required: {what}",
        "optional": f"optional: {what}; without it, "
        + getattr(family, "without_cutoff", "the whole ranking"),
        "none": "none",
    }[family.cutoff]


def _family_rst(family: Any, trec_names: dict[str, list[str]]) -> list[str]:
    lines = [f".. _measure-{family.name}:", "", family.name, "^" * max(len(family.name), 3), ""]
    summary = _first_paragraph(family.__doc__)
    if summary:
        lines += [*summary.splitlines(), ""]
    fields = [(":Written:", _forms(family)), (":Cutoff:", _cutoff(family))]
    aliases = [*family.aliases]
    aliases += [f"{a}_k" for a in family.cutoff_aliases if a not in family.aliases]
    aliases += list(family.presets)
    if aliases:
        fields.append((":Also named:", ", ".join(_literal(a) for a in aliases)))
    trec = trec_names.get(family.name, [])
    if trec:
        fields.append((":trec_eval:", ", ".join(_literal(t) for t in trec)))
    ir_measures = getattr(family, "ir_measures", None)
    if ir_measures:
        fields.append((":ir_measures:", _literal(ir_measures)))
    if family.needs:
        fields.append((":Needs columns:", ", ".join(_literal(n) for n in family.needs)))
    if "rel" not in family.params:
        fields.append((":``rel=``:", "not taken: the measure does not read relevance levels"))
    fields.append((":Range:", "[0, 1]" if family.bounded else "unbounded"))
    ties = "yes" if family.average_kernel is not None else "no"
    fields.append((":``ties='average'``:", ties))
    for name, text in fields:
        lines.append(f"{name} {text}")
    lines.append("")
    params = [p for name, p in family.params.items() if name != "rel"]  # shared: see page
    if params:
        lines += [
            ".. list-table::",
            "   :header-rows: 1",
            "   :widths: 15 15 70",
            "   :class: pdireval-params",
            "",
            "   * - parameter",
            "     - default",
            "     - meaning",
        ]
        for param in params:
            doc = " ".join((param.doc or "").split()) or "–"
            lines += [
                f"   * - {_literal(param.name)}",
                f"     - {_literal(repr(param.default))}",
                f"     - {doc}",
            ]
        lines.append("")
    return lines


def _groups(registry: dict[str, Any]) -> Iterable[tuple[str, list[Any]]]:
    by_module: dict[str, list[Any]] = {}
    for family in registry.values():
        by_module.setdefault(getattr(family.kernel, "__module__", "") or "", []).append(family)
    known = [m for m in GROUPS if m in by_module]
    others = sorted(m for m in by_module if m not in GROUPS)
    for module in known + others:
        title = GROUPS.get(module) or module.rsplit(".", 1)[-1].replace("_", " ").capitalize()
        yield title, by_module[module]


class MeasuresDirective(SphinxDirective):
    """The catalogue of every registered measure."""

    has_content = False

    def run(self) -> list[nodes.Node]:
        from pdireval.metrics import REGISTRY

        # the families pdireval registers itself, not those an example page declares
        builtin = {name: REGISTRY[name] for name in BUILTIN if name in REGISTRY}
        trec_names = _trec_eval_names()
        lines: list[str] = []
        for title, families in _groups(builtin):
            lines += [title, "-" * len(title), ""]
            for family in families:
                lines += _family_rst(family, trec_names)
        container = nodes.section()
        container.document = self.state.document
        nested_parse_with_titles(self.state, StringList(lines, "<measures>"), container)
        return container.children


# --------------------------------------------------------------------------- named choices


class ChoicesDirective(SphinxDirective):
    """A table of the choices of a registry (``pdireval._core.registry.Registry``): the
    documentation lists what the code accepts, from the same declarations.

    ``.. pdireval-choices:: pdireval.fusion.methods.METHODS`` with ``:columns:`` a list of
    ``Header=field`` (``name``, ``aliases``, ``doc`` or ``value.<attribute>``).
    """

    required_arguments = 1
    option_spec: ClassVar[dict[str, Any]] = {"columns": directives.unchanged}

    def run(self) -> list[nodes.Node]:
        module, _, name = self.arguments[0].rpartition(".")
        registry = getattr(importlib.import_module(module), name)
        if callable(registry):  # a function that gives the registry (loaded when asked)
            registry = registry()
        spec = self.options.get("columns", "name=name, other names=aliases, doc=doc")
        columns = [part.strip().split("=", 1) for part in spec.split(",")]
        lines = [".. list-table::", "   :header-rows: 1", ""]
        rows = [[header for header, _ in columns]]
        rows += [[_field(e, field) or " " for _, field in columns] for e in registry.entries()]
        for row in rows:
            lines += ["   * - " + row[0], *(f"     - {cell}" for cell in row[1:])]
        container = nodes.section()
        container.document = self.state.document
        nested_parse_with_titles(self.state, StringList(lines, "<choices>"), container)
        return container.children


def _field(entry: Any, field: str) -> str:
    """One cell of a choices table: the entry's name (as code), its aliases, or a field."""
    if field == "name":
        return f"``{entry.name}``"
    if field == "aliases":
        return ", ".join(f"``{alias}``" for alias in entry.aliases)
    if field.startswith("value."):
        return str(getattr(entry.value, field[len("value.") :]) or "")
    return str(getattr(entry, field) or "")


# --------------------------------------------------------------------------- the report


#: ``Report._repr_html_()`` is the fragment a notebook shows inside its own page; this is
#: that page's look (a sans-serif font and padded table cells, as Jupyter styles tables).
NOTEBOOK_PAGE = """<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8">
<title>Report.to_html() of the example collection</title>
<style>
body {{ font-family: system-ui, -apple-system, "Segoe UI", Roboto, "Helvetica Neue", Arial,
        sans-serif; font-size: 14px; margin: 14px; color: #222; }}
table {{ border-collapse: collapse; font-variant-numeric: tabular-nums; margin: 4px 0; }}
th, td {{ padding: 4px 10px; }}
table.dataframe {{ border: none; }}
table.dataframe th, table.dataframe td {{ border-bottom: 1px solid #e0e0e0; }}
summary {{ cursor: pointer; margin: 8px 0 4px 0; font-weight: 600; }}
</style></head>
<body>
{body}
</body></html>
"""


def _write_report(app: Sphinx, exception: Exception | None) -> None:
    if exception is not None or app.builder.format != "html":
        return
    from pdireval.datasets import example

    report = example().ireval.report(["AP", "nDCG@10", "P@10", "RR"], baseline="medium")
    page = NOTEBOOK_PAGE.format(body=report._repr_html_())
    (Path(app.outdir) / "example_report.html").write_text(page, encoding="utf-8")


#: Names of the families registered by ``import pdireval`` (filled in by :func:`setup`).
BUILTIN: list[str] = []


def setup(app: Sphinx) -> dict[str, Any]:
    from pdireval.metrics import REGISTRY

    BUILTIN[:] = list(REGISTRY)
    app.add_directive("pdireval-measures", MeasuresDirective)
    app.add_directive("pdireval-choices", ChoicesDirective)
    app.connect("source-read", _check_doctests)
    app.connect("build-finished", _write_report)
    return {"version": "1", "parallel_read_safe": True, "parallel_write_safe": True}
