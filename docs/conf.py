"""Sphinx configuration of the pdireval documentation.

Build from the repository root (``pip install -e ".[docs]"`` first)::

    sphinx-build -W --keep-going -b html docs docs/_build/html
"""

from __future__ import annotations

import sys
from pathlib import Path

import matplotlib

matplotlib.use("Agg")  # examples draw off screen

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))  # this checkout's pdireval first
sys.path.insert(0, str(HERE / "_ext"))

import pdireval  # noqa: E402

project = "pdireval"
author = "pdireval developers"
copyright = "pdireval developers"  # noqa: A001 - Sphinx's name
release = pdireval.__version__
version = ".".join(release.split(".")[:2])

extensions = [
    "sphinx.ext.autodoc",
    "sphinx.ext.autosummary",
    "sphinx.ext.mathjax",
    "numpydoc",
    "sphinx_copybutton",
    "pdireval_docs",
]

exclude_patterns = ["_build", "figures/README*", "**.ipynb_checkpoints"]
templates_path = ["_templates"]
default_role = "code"
nitpicky = False

# API reference: one page per public function or class, generated from the docstrings.
autosummary_generate = True
autosummary_imported_members = True
autodoc_typehints = "none"  # the numpydoc sections carry the types
numpydoc_show_class_members = False
numpydoc_class_members_toctree = False
numpydoc_xref_param_type = False
numpydoc_attributes_as_param_list = True

html_theme = "pydata_sphinx_theme"
html_title = f"pdireval {release}"
html_static_path = ["_static"]
html_css_files = ["pdireval.css"]
html_show_sourcelink = False
html_theme_options = {
    "navbar_align": "left",
    "show_toc_level": 2,
    "navigation_with_keys": False,
    "secondary_sidebar_items": ["page-toc"],
    "footer_start": ["copyright"],
    "footer_end": ["theme-version"],
}
html_sidebars = {"**": []}  # pages are one level deep: no section navigation

copybutton_prompt_text = r">>> |\.\.\. |\$ "
copybutton_prompt_is_regexp = True
