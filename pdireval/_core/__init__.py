"""The bottom layer: column roles, evaluation options, index levels, the rule for ids,
errors, escaping of users' names, optional imports and the pandas compatibility shims.

Rule: imports nothing of pdireval but ``pdireval._core``; every other layer may import it.
"""
