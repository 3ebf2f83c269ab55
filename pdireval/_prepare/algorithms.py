"""The four steps of the preparation that have a fast path, as the preparation calls them.

* :func:`group_codes` -- the (run, query) groups of a frame, numbered in sorted order;
* :func:`repeated_rows` -- rows whose (group, doc) occurred in an earlier row;
* :func:`match_pairs` -- the (run row, qrels row) pairs with equal (query, doc);
* :func:`judged_positions` -- trec_eval's order of each ranking, ties included: how many
  documents each group retrieved and where its judged ones stand.

Each has a plain, obviously correct counterpart of the same name and signature in
:mod:`pdireval._prepare.reference`, which the property tests compare it with on
generated frames. The preparation calls the steps through this module, so the test
suite can run whole through the reference (``PDIREVAL_PREPARATION=reference``).
"""

from __future__ import annotations

from pdireval._prepare.groups import group_codes, repeated_rows
from pdireval._prepare.ordering import judged_positions
from pdireval._prepare.pairs import match_pairs

__all__ = ["STEPS", "group_codes", "judged_positions", "match_pairs", "repeated_rows"]

#: The names of the steps, which the reference implements too.
STEPS = ("group_codes", "repeated_rows", "match_pairs", "judged_positions")
