"""Statistics of per-query tables: summaries and intervals, paired significance tests and
corrections, risk, Tukey's HSD, meta-evaluation (ASL, swap rates, stability), rank
correlation and overlap, query performance prediction, curves and reproductions.

Rule: imports ``pdireval.engine`` and the layers below it only.
"""
