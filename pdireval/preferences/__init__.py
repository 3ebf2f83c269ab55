"""Preference judgments and judgment groups: trec_eval's ``-R prefs``, ``-R qrels_prefs``
and ``-R qrels_jg`` evaluation, as frames.

* :func:`read_prefs`, :func:`read_qrels_jg` and :func:`prefs_from_qrels` give the
  judgments as frames (``formats``);
* :func:`evaluate_prefs` gives trec_eval's fourteen preference measures per query,
  :func:`evaluate_qrels_jg` its measures averaged over judgment groups, and
  :func:`prefs_summary` the "all" line of either (``evaluate``);
* :func:`trec_table` gives what trec_eval prints, in its order, for either version.

Modules, one step each: ``codes`` (ids as integer codes, in trec_eval's text order),
``ranking`` (trec_eval's rankings of a run), ``pairs`` (what the judgments imply, once
per call), ``counting`` (what one run fulfils, and the preference measures), ``groups``
(the judgment-group measures), ``measures`` (names, order, the "all" line) and
``reference`` (plain implementations the tests compare the others with).

Rule: imports ``pdireval.engine``, ``pdireval.io``, ``pdireval._prepare`` and
``pdireval._core`` and nothing above them; nothing of its siblings ``pdireval.judgments``
and ``pdireval.fusion``.
"""

from __future__ import annotations

from pdireval.preferences.evaluate import (
    RELATION_FORMATS,
    TrecTable,
    evaluate_prefs,
    evaluate_qrels_jg,
    prefs_summary,
    trec_table,
)
from pdireval.preferences.formats import prefs_from_qrels, read_prefs, read_qrels_jg
from pdireval.preferences.measures import JG_FAMILIES, PREFS_MEASURES

__all__ = [
    "JG_FAMILIES",
    "PREFS_MEASURES",
    "RELATION_FORMATS",
    "TrecTable",
    "evaluate_prefs",
    "evaluate_qrels_jg",
    "prefs_from_qrels",
    "prefs_summary",
    "read_prefs",
    "read_qrels_jg",
    "trec_table",
]
