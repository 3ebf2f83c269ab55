"""Read and write TREC run and qrels files.

Formats (one retrieved document or one judgment per line):

* run: ``qid Q0 docno rank score tag`` -- read as columns ``query, doc, score, run``
  (the tag becomes the run column). Fields after the sixth are ignored, as trec_eval
  ignores them. The rank field is **not** kept: trec_eval ranks by score (descending,
  ties by docno descending), and so does :func:`pdireval.evaluate` when a frame has a
  score column and no rank column -- a file read here evaluates exactly as trec_eval
  evaluates it.
* qrels: ``qid iter docno rel`` -- read as columns ``query, doc, rel`` (the iteration
  field is dropped); ``rel`` is int64 (negative = pooled but unjudged).

The rules, trec_eval's unless said otherwise:

* Fields are separated by any run of ASCII whitespace (spaces, tabs; also vertical
  tab and form feed); lines end with ``\\n`` or ``\\r\\n``. A carriage return anywhere
  else is refused: a file with old Mac line endings would otherwise read as one line.
* Blank lines and lines whose first non-blank character is ``#`` are skipped (a run's
  are kept in ``frame.attrs["comments"]``); a ``#`` elsewhere is data (``CR#93E-1860``
  is a document id).
* Ids are kept as strings, exactly as written (``"007"`` stays ``"007"``).
* Files are UTF-8 (ASCII is UTF-8) unless ``encoding=`` names another encoding; a
  leading UTF-8 byte-order mark is dropped. trec_eval compares ids as raw bytes; a
  byte that does not decode is refused rather than guessed at, and
  ``encoding="latin-1"`` reads any file byte for byte.
* A gzip stream is decompressed, whatever the file is called.
* A file without data lines reads as an empty frame with the usual columns and dtypes
  (trec_eval refuses an empty file; evaluating an empty run is left to the caller).

A path of the form ``"irds:<dataset-id>"`` reads the qrels, the scored documents (as a
run) or the queries of that dataset of the ir_datasets catalogue (optional package:
``pip install 'pdireval[irds]'``); the dataset's id, documented relevance levels and
official measures are then in ``frame.attrs["ir_datasets"]``.

:func:`read_nuggets` reads nuggetizer's assignment output (JSON Lines) into a nugget
frame.

:func:`read_rag_answers` reads answers in the TREC 2024 RAG format (JSON Lines) into the
rows of a citation frame, and :func:`read_rag_support` the track's support grades of
them into a citation frame.

Malformed input raises :class:`pdireval.SchemaError` naming the file, the line number,
the problem and the line. Files are parsed by pyarrow's CSV reader after the
whitespace is normalised, and checked line by line only when something is wrong.

Rule: imports ``pdireval._prepare`` and ``pdireval._core`` only.
"""

from __future__ import annotations

from pdireval.io.nuggets import read_nuggets
from pdireval.io.rag import read_rag_answers, read_rag_support
from pdireval.io.trec import read_qrels, read_queries, read_run, write_qrels, write_run
from pdireval.io.zscores import read_zscores, write_zscores

__all__ = [
    "read_nuggets",
    "read_qrels",
    "read_queries",
    "read_rag_answers",
    "read_rag_support",
    "read_run",
    "read_zscores",
    "write_qrels",
    "write_run",
    "write_zscores",
]
