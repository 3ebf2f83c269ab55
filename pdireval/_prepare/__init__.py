"""Preparation: a long frame and its roles into the sorted arrays the metric kernels read
(ids and their keys, the duplicate check, trec_eval's ordering with ties, matching a run
with its qrels), each fast step with a plain reference implementation.

Rule: imports ``pdireval._core`` only.
"""
