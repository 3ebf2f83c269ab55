"""Read the answers of the TREC 2024 RAG track, and their support grades, into the rows
of a citation frame (see :func:`pdireval.citation_support`).

The track's answer format is JSON Lines, one object per answer: ``run_id``,
``topic_id``, ``topic`` (the query's text), ``references`` (the ids of the documents
the answer may cite), ``response_length`` and ``answer``, a list of sentences, each an
object with its ``text`` and ``citations``, indices into ``references``. The track's
support evaluation writes the same objects with ``support_eval`` added: per sentence an
object with ``citations`` and ``eval_scores``, the grades (``FS``, ``PS``, ``NS``) of
its first citations, three at most.
"""

from __future__ import annotations

import os
from typing import Any

import pandas as pd

from pdireval._core.errors import SchemaError
from pdireval._core.roles import SUPPORT_SPELLINGS
from pdireval.io.jsonl import LineError, read_records, record_id

__all__ = ["read_rag_answers", "read_rag_support"]

_ANSWER_COLUMNS = ("run", "query", "sentence", "text", "doc")


def read_rag_answers(
    path: str | os.PathLike[str],
    *,
    run: str | None = None,
    max_citations: int | None = None,
    encoding: str = "utf-8",
) -> pd.DataFrame:
    """Read answers in the TREC 2024 RAG format into the rows of a citation frame.

    Parameters
    ----------
    path : str or path-like
        A JSON Lines file, per line an answer: ``run_id``, ``topic_id``,
        ``references`` (doc ids) and ``answer``, a list of ``{"text": ...,
        "citations": [indices into references]}``; other fields are ignored. Blank
        lines are skipped.
    run : str, optional
        The run of every answer. By default each line's ``run_id``, and for a line
        without one the file's name without its suffix.
    max_citations : int, optional
        Keep only the first ``max_citations`` citations of each sentence (the track
        graded three); all by default.
    encoding : str
        The file's encoding (UTF-8 by default).

    Returns
    -------
    DataFrame
        Columns ``run``, ``query``, ``sentence`` (the sentence's position in its answer,
        from 0), ``text`` (the sentence) and ``doc`` (the cited doc id): one row per
        citation of each sentence, in file order, the ids as strings. A sentence without
        citations is one row with the doc missing, an answer without sentences one row
        with the sentence missing; a citation repeated within a sentence is read once.
        Join the support grades on (run, query, sentence, doc) to evaluate it with
        :func:`pdireval.citation_support`.

    Raises
    ------
    SchemaError
        A line that is not an answer of that form, or a citation outside
        ``references``, named with the line's number.

    Examples
    --------
    >>> import json, pathlib, tempfile, pdireval
    >>> record = {"run_id": "rag-a", "topic_id": "q1", "topic": "what is python",
    ...           "references": ["d7", "d3"], "response_length": 9, "answer": [
    ...     {"text": "Python is a language.", "citations": [1, 0]},
    ...     {"text": "It is popular.", "citations": []}]}
    >>> path = pathlib.Path(tempfile.mkdtemp()) / "rag-a.jsonl"
    >>> _ = path.write_text(json.dumps(record) + "\\n")
    >>> answers = pdireval.read_rag_answers(path)
    >>> answers.dropna(subset=["doc"])
         run query  sentence                   text doc
    0  rag-a    q1         0  Python is a language.  d3
    1  rag-a    q1         0  Python is a language.  d7
    >>> answers["doc"].isna().tolist()  # the second sentence cites nothing
    [False, False, True]
    """
    if max_citations is not None and (
        isinstance(max_citations, bool) or not isinstance(max_citations, int) or max_citations < 1
    ):
        msg = f"max_citations= must be a whole number >= 1 or None, got {max_citations!r}"
        raise SchemaError(msg)
    rows = read_records(
        path, encoding, lambda record, stem: _answer(record, run, stem, max_citations)
    )
    return _frame(rows, _ANSWER_COLUMNS)


def read_rag_support(
    path: str | os.PathLike[str], *, run: str | None = None, encoding: str = "utf-8"
) -> pd.DataFrame:
    """Read the support grades of the TREC 2024 RAG track's support evaluation into a
    citation frame.

    Parameters
    ----------
    path : str or path-like
        A JSON Lines file, per line an answer as :func:`read_rag_answers` reads it with
        ``support_eval`` added: a list with an object per sentence of ``answer``, in
        order, whose ``eval_scores`` grade the sentence's first citations (``"FS"``,
        ``"PS"``, ``"NS"``, or the spellings :func:`pdireval.citation_support` reads).
    run : str, optional
        As in :func:`read_rag_answers`.
    encoding : str
        The file's encoding (UTF-8 by default).

    Returns
    -------
    DataFrame
        The columns of :func:`read_rag_answers` and ``support``, the canonical grade
        (``full_support``, ``partial_support``, ``no_support``): one row per graded
        citation; the citations the evaluation did not grade (after the first three)
        are left out, and a sentence without graded citations is one row with the doc
        and support missing. :func:`pdireval.citation_support` takes it as it is.

    Raises
    ------
    SchemaError
        A line that is not of that form -- no ``support_eval``, one with another number
        of sentences than ``answer``, a grade that is not one (the evaluation writes
        ``null`` where its judge's reply was none of them) -- named with its number.

    Examples
    --------
    >>> import json, pathlib, tempfile, pdireval
    >>> record = {"run_id": "rag-a", "topic_id": "q1", "references": ["d7", "d3"],
    ...           "answer": [{"text": "Python is a language.", "citations": [1, 0]}],
    ...           "support_eval": [{"citations": [1, 0], "eval_scores": ["FS", "PS"]}]}
    >>> path = pathlib.Path(tempfile.mkdtemp()) / "support.jsonl"
    >>> _ = path.write_text(json.dumps(record) + "\\n")
    >>> pdireval.read_rag_support(path)[["sentence", "doc", "support"]]
       sentence doc          support
    0         0  d3     full_support
    1         0  d7  partial_support
    """
    rows = read_records(path, encoding, lambda record, stem: _graded(record, run, stem))
    return _frame(rows, (*_ANSWER_COLUMNS, "support"))


def _frame(rows: list[tuple[Any, ...]], columns: tuple[str, ...]) -> pd.DataFrame:
    data = {name: [row[i] for row in rows] for i, name in enumerate(columns)}
    frame = pd.DataFrame(data, columns=list(columns))
    frame["sentence"] = frame["sentence"].astype("Int64")
    return frame


def _sentences(
    record: dict[str, Any], run: str | None, stem: str
) -> tuple[str, str, list[str], list[Any]]:
    """The run, query, references and sentences of one answer."""
    query = record_id(record, "topic_id")
    name = run if run is not None else (record_id(record, "run_id") if "run_id" in record else stem)
    references = record.get("references")
    if not isinstance(references, list) or not all(isinstance(r, str) for r in references):
        found = "no such field" if "references" not in record else repr(references)[:60]
        msg = f"'references' must be a list of doc ids (strings), found {found}"
        raise LineError(msg)
    answer = record.get("answer")
    if not isinstance(answer, list):
        found = "no such field" if "answer" not in record else type(answer).__name__
        msg = f"'answer' must be a list of sentences, found {found}"
        raise LineError(msg)
    return name, query, references, answer


def _answer(
    record: dict[str, Any], run: str | None, stem: str, max_citations: int | None
) -> list[tuple[Any, ...]]:
    """The rows of one answer: (run, query, sentence, text, doc) per citation."""
    name, query, references, answer = _sentences(record, run, stem)
    if not answer:
        return [(name, query, None, None, None)]
    rows: list[tuple[Any, ...]] = []
    for position, sentence in enumerate(answer):
        text, cited = _sentence(sentence, position, references)
        docs: list[str | None] = list(dict.fromkeys(cited[:max_citations]))
        rows.extend((name, query, position, text, doc) for doc in docs or [None])
    return rows


def _graded(record: dict[str, Any], run: str | None, stem: str) -> list[tuple[Any, ...]]:
    """The rows of one graded answer: (run, query, sentence, text, doc, grade)."""
    name, query, references, answer = _sentences(record, run, stem)
    graded = record.get("support_eval")
    if not isinstance(graded, list) or len(graded) != len(answer):
        found = (
            "no such field"
            if "support_eval" not in record
            else (
                f"{len(graded)} for {len(answer)} sentences"
                if isinstance(graded, list)
                else type(graded).__name__
            )
        )
        msg = f"'support_eval' must be a list with an entry per sentence of 'answer', found {found}"
        raise LineError(msg)
    if not answer:
        return [(name, query, None, None, None, None)]
    rows: list[tuple[Any, ...]] = []
    for position, (sentence, grades) in enumerate(zip(answer, graded, strict=True)):
        text, cited = _sentence(sentence, position, references)
        scores = grades.get("eval_scores") if isinstance(grades, dict) else None
        if not isinstance(scores, list) or not all(isinstance(s, str) for s in scores):
            found = repr(scores) if isinstance(grades, dict) else type(grades).__name__
            msg = (
                f"support_eval {position}: 'eval_scores' must be a list of grades "
                f"(strings), found {found}; a null grade is a reply of the judge that "
                "was none of them: grade it first"
            )
            raise LineError(msg)
        if len(scores) > len(cited):
            msg = f"sentence {position} has {len(cited)} citations and {len(scores)} grades"
            raise LineError(msg)
        pairs = dict(zip(cited, scores, strict=False))  # the first citations are graded
        rows.extend((name, query, position, text, d, _grade(g, position)) for d, g in pairs.items())
        if not pairs:
            rows.append((name, query, position, text, None, None))
    return rows


def _grade(value: str, position: int) -> str:
    key = value.strip().lower().replace(" ", "_").replace("-", "_")
    if key not in SUPPORT_SPELLINGS:
        msg = f"sentence {position}: {value!r} is not a support grade (FS, PS, NS)"
        raise LineError(msg)
    return SUPPORT_SPELLINGS[key]


def _sentence(sentence: Any, position: int, references: list[str]) -> tuple[str, list[str]]:
    """A sentence's text and the doc ids it cites, in order."""
    if not isinstance(sentence, dict) or not isinstance(sentence.get("text"), str):
        msg = f"sentence {position} must be an object with a 'text' string, found {sentence!r}"[
            :300
        ]
        raise LineError(msg)
    citations = sentence.get("citations", [])
    if not isinstance(citations, list):
        msg = f"sentence {position}: 'citations' must be a list, found {citations!r}"
        raise LineError(msg)
    docs = []
    for index in citations:
        if isinstance(index, bool) or not isinstance(index, int):
            msg = f"sentence {position}: citation {index!r} is not an index into 'references'"
            raise LineError(msg)
        if not 0 <= index < len(references):
            msg = (
                f"sentence {position}: citation {index} is outside 'references' "
                f"({len(references)} doc ids, indices 0 to {len(references) - 1})"
            )
            raise LineError(msg)
        docs.append(references[index])
    return sentence["text"], docs
