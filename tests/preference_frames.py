"""Generated preference and judgment-group data that trec_eval accepts, and the bridge to
the trec_eval program (files written, its output read back).

Adversarial on purpose: ties of scores and of levels, ids whose text order differs from
their length or case (``d10`` before ``d2``, ``D`` before ``d``), several judgment groups
that disagree, groups of one and of several sub-groups, documents listed twice at one
level, non-relevant and negative levels, judged documents nobody retrieved, retrieved
documents nobody judged, queries only in the run and queries only in the judgments.

Every generated set of judgments is consistent (trec_eval stops, or aborts, on the
others): a group of several sub-groups takes its levels from one hidden order of the
documents, each sub-group through its own increasing map that keeps 0 at 0.
"""

from __future__ import annotations

import subprocess
from pathlib import Path

import numpy as np
import pandas as pd
from hypothesis import strategies as st

DOCS = ["d1", "d10", "d2", "D3", "d3", "e", "E7", "d1a", "x", "d9"]
GROUPS = ["g1", "g10", "g2", "G", "u"]
SUBGROUPS = ["s1", "s10", "s2", "S"]


def _levels(rng: np.random.Generator, n: int, *, negative: bool) -> np.ndarray:
    choices = [0.0, 0.0, 1.0, 2.0, 3.0, 0.5]
    if negative:
        choices.append(-1.0)
    return rng.choice(choices, size=n)


def _single_group(rng: np.random.Generator, docs: list[str]) -> list[tuple[str, str, float]]:
    """One sub-group: some documents, one level each, some listed twice at that level."""
    chosen = list(rng.choice(docs, size=rng.integers(1, len(docs) + 1), replace=False))
    levels = _levels(rng, len(chosen), negative=False)
    lines = [("s", doc, float(level)) for doc, level in zip(chosen, levels, strict=True)]
    for at in rng.integers(0, len(lines), size=rng.integers(0, 3)):
        lines.append(lines[int(at)])  # listed twice at its level
    if rng.random() < 0.3:
        # negative levels: the lowest class is then never smaller than the number of
        # relevant lines (trec_eval's _Rnonrel reads past the class's end otherwise)
        n_rel = sum(level > 0 for _, _, level in lines)
        lines += [("s", f"n{i}", -1.0) for i in range(n_rel + int(rng.integers(0, 3)))]
    return lines


def _several_groups(rng: np.random.Generator, docs: list[str]) -> list[tuple[str, str, float]]:
    """Several sub-groups drawing from one hidden order of the documents."""
    hidden = dict(zip(docs, _levels(rng, len(docs), negative=True), strict=True))
    lines = []
    n_sub = int(rng.integers(2, 4))
    for name in rng.choice(SUBGROUPS, size=n_sub, replace=False):
        scale, shift = float(rng.choice([1.0, 2.0, 0.5])), float(rng.choice([0.0, 1.0]))
        chosen = rng.choice(docs, size=rng.integers(1, len(docs) + 1), replace=False)
        for doc in chosen:
            level = hidden[doc]
            mapped = level * scale + shift if level > 0 else level
            lines.append((str(name), str(doc), float(mapped)))
    return lines


def prefs_frame(seed: int) -> pd.DataFrame:
    """A consistent preference frame (query, group, subgroup, doc, rel)."""
    rng = np.random.default_rng(seed)
    rows = []
    for query in ["q1", "q10", "q2", "Q3", "q4"][: int(rng.integers(2, 6))]:
        docs = list(rng.choice(DOCS, size=rng.integers(2, len(DOCS) + 1), replace=False))
        for group in rng.choice(GROUPS, size=rng.integers(1, 4), replace=False):
            several = rng.random() < 0.5
            lines = _several_groups(rng, docs) if several else _single_group(rng, docs)
            rows += [(query, str(group), sub, doc, level) for sub, doc, level in lines]
    return pd.DataFrame(rows, columns=["query", "group", "subgroup", "doc", "rel"])


def qrels_jg_frame(seed: int) -> pd.DataFrame:
    """Judgments of several groups per query (query, group, doc, rel)."""
    rng = np.random.default_rng(seed)
    rows = []
    for query in ["q1", "q10", "q2", "Q3", "q4"][: int(rng.integers(2, 6))]:
        for group in rng.choice(GROUPS, size=rng.integers(1, 4), replace=False):
            docs = list(rng.choice(DOCS, size=rng.integers(1, len(DOCS) + 1), replace=False))
            labels = list(rng.choice([0, 0, 1, 2, 3], size=len(docs)))
            if rng.random() < 0.3:  # pooled but unjudged: never fewer than the relevant
                extra = [f"n{i}" for i in range(sum(r > 0 for r in labels) + rng.integers(0, 3))]
                docs, labels = docs + extra, labels + [-1] * len(extra)
            rows += [(query, str(group), str(d), int(r)) for d, r in zip(docs, labels, strict=True)]
    return pd.DataFrame(rows, columns=["query", "group", "doc", "rel"])


def run_frame(seed: int, queries: list[str]) -> pd.DataFrame:
    """A run over some of ``queries`` and a query of its own, with tied scores and
    documents nobody judged.
    """
    rng = np.random.default_rng(seed + 10_000)
    rows = []
    asked = [q for q in queries if rng.random() < 0.8] or queries[:1]
    asked.append("q_run_only")
    for query in asked:
        pool = [*DOCS, "u1", "u10", "u2"]
        docs = rng.choice(pool, size=rng.integers(1, len(pool) + 1), replace=False)
        scores = rng.choice([1.0, 2.0, 2.0, 3.0, 0.25, 1.5], size=len(docs))
        rows += [(query, str(d), float(s)) for d, s in zip(docs, scores, strict=True)]
    return pd.DataFrame(rows, columns=["query", "doc", "score"])


# --------------------------------------------------------------------------- files


def write_prefs(frame: pd.DataFrame, path: Path) -> Path:
    lines = [f"{r.query}\t{r.group}  {r.subgroup} {r.doc}\t{r.rel!r}\n" for r in frame.itertuples()]
    path.write_text("".join(lines))
    return path


def write_qrels_jg(frame: pd.DataFrame, path: Path) -> Path:
    path.write_text("".join(f"{r.query} {r.group}\t{r.doc} {r.rel}\n" for r in frame.itertuples()))
    return path


def write_run(frame: pd.DataFrame, path: Path) -> Path:
    lines = [
        f"{r.query} Q0 {r.doc} {at} {r.score!r} tag\n"
        for at, r in enumerate(frame.itertuples(), start=1)
    ]
    path.write_text("".join(lines))
    return path


def trec_eval_lines(program: Path, *args: str) -> dict[tuple[str, str], str]:
    """trec_eval's printed values, (measure, query) -> the text printed."""
    done = subprocess.run([str(program), *args], capture_output=True, text=True, check=True)
    out = {}
    for line in done.stdout.splitlines():
        if line.strip():
            measure, query, value = line.split()
            out[measure, query] = value
    return out


# --------------------------------------------------------------------------- hypothesis

QUERIES = ("q1", "q10", "q2", "Q")
LEVELS = (-1.0, 0.0, 0.0, 0.5, 1.0, 2.0, 3.0)


@st.composite
def prefs_cases(draw: st.DrawFn) -> tuple[pd.DataFrame, pd.DataFrame]:
    """A preference frame (consistent or not) and a run over some of its queries and one
    of its own, with tied scores.
    """
    line = st.tuples(
        st.sampled_from(QUERIES),
        st.sampled_from(GROUPS[:3]),
        st.sampled_from(SUBGROUPS[:2]),
        st.sampled_from(DOCS[:7]),
        st.sampled_from(LEVELS),
    )
    lines = draw(st.lists(line, min_size=1, max_size=30))
    prefs = pd.DataFrame(lines, columns=["query", "group", "subgroup", "doc", "rel"])
    return prefs, draw(runs(sorted(set(prefs["query"]))))


@st.composite
def qrels_jg_cases(draw: st.DrawFn) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Judgments of several groups (each document once per group) and a run."""
    line = st.tuples(
        st.sampled_from(QUERIES),
        st.sampled_from(GROUPS[:3]),
        st.sampled_from(DOCS[:7]),
        st.sampled_from([-1, 0, 1, 2, 3]),
    )
    lines = draw(st.lists(line, min_size=1, max_size=30))
    qrels = pd.DataFrame(lines, columns=["query", "group", "doc", "rel"])
    qrels = qrels.drop_duplicates(["query", "group", "doc"], ignore_index=True)
    return qrels, draw(runs(sorted(set(qrels["query"]))))


@st.composite
def runs(draw: st.DrawFn, queries: list[str]) -> pd.DataFrame:
    """A run over some of ``queries`` (the first one at least) and a query of its own,
    each document once.
    """
    rows = []
    for at, query in enumerate([*queries, "q_run_only"]):
        pool = st.sampled_from([*DOCS[:7], "u1", "u2"])
        docs = draw(st.lists(pool, unique=True, min_size=int(at == 0), max_size=9))
        scores = draw(
            st.lists(st.sampled_from([0.5, 1.0, 2.0]), min_size=len(docs), max_size=len(docs))
        )
        rows += [(query, doc, score) for doc, score in zip(docs, scores, strict=True)]
    return pd.DataFrame(rows, columns=["query", "doc", "score"]).astype({"score": float})
