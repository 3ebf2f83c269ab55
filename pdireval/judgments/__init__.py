"""Analyses of judgments: agreement between judges, holes and bounds, judging sheets,
depth-k pools, and the conclusions of several judges.

Rule: imports ``pdireval.stats``, ``pdireval.io`` and the layers below them only.
"""
