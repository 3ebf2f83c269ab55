"""The evaluation engine: resolved roles and one frozen options object in, one per-query
table out (:mod:`~pdireval.engine.evaluate`); the parts of a frame with judge, collection
or seed columns (:mod:`~pdireval.engine.parts`); and the one way analyses of several runs
read a frame (:mod:`~pdireval.engine.runs`). Every analysis evaluates through it.

Rule: imports ``pdireval.metrics``, ``pdireval._prepare`` and ``pdireval._core`` only.
"""
