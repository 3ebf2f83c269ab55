"""The last printed digit: the command line computes each trec_eval measure in trec_eval's
own order of floating-point operations, so that its fourth decimal is trec_eval's even
where the exact value lies on a rounding boundary of ``%.4f``.

Two checks, on generated queries:

* trec_eval 9.0.8's C loops, ported line by line below (same operations, same order, the
  C library's ``log2``), give each query's value to the last bit; the command line's CSV
  (every number in full) must hold exactly those values;
* the trec_eval 9.0.8 program itself (built by the fixture of
  ``test_trec_eval_binary.py``, skipped without its source) and the command line print
  the same bytes for files whose values fall on the boundaries: x.xxxx5 exactly in
  decimal (set_map's a^2 / (retrieved R) such as 9 / 160, precision and recall at
  cutoffs of 32 and 160, average precisions found by search), among ties, unjudged
  documents, relevant documents not retrieved and queries without relevant documents.
"""

from __future__ import annotations

import io
import math
import subprocess
from dataclasses import dataclass
from fractions import Fraction
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from pdireval import cli
from pdireval.cli.measures import parse_measures
from pdireval.cli.run import _summarise
from pdireval.metrics._segments import libm_log2, running_sum

NONPOOL, UNJUDGED = -1, -2  # trec_eval's labels of a document not in the qrels / judged < 0
EPSILON = 0.00001  # trec_eval's INFAP_EPSILON
#: gains of no short binary form (their sums round), at least 1 apart (trec_eval sorts the
#: gains comparing the whole part of their differences); 1.03 + 1 + 1 + ... + 1 rounds
#: otherwise than 1.03 + 8 (G's costs past the ideal ranking)
GAINS = {1: 1.03, 2: 2.3, 3: 3.7, 4: 5.3}
GAINS_SPEC = ",".join(f"{level}={gain}" for level, gain in GAINS.items())


@dataclass
class Query:
    """One query as trec_eval sees it: the labels of its ranking (``NONPOOL`` for a
    document without a judgment, ``UNJUDGED`` for a negative label) and every label of
    its judgments, retrieved or not."""

    ranking: list[int]
    judged: list[int]
    ties: bool = False  # written with tied scores (trec_eval orders them by document id)

    def num_rel(self, level: int = 1) -> int:
        return sum(label >= level for label in self.judged)

    def found(self, level: int = 1) -> int:
        return sum(label >= level for label in self.ranking)

    def rel_levels(self) -> list[int]:
        labels = [label for label in self.judged if label >= 0]
        return [labels.count(level) for level in range(max(labels, default=-1) + 1)]


# ------------------------------------------------------------------ trec_eval 9.0.8, ported


def c_map(q: Query) -> float:
    total, found = 0.0, 0
    for i, label in enumerate(q.ranking):
        if label >= 1:
            found += 1
            total += found / (i + 1)
    return total / q.num_rel() if found else 0.0


def c_bpref(q: Query) -> float:
    num_nonrel, num_rel = (q.rel_levels() or [0])[0], q.num_rel()
    nonrel, bpref = 0, 0.0
    for label in q.ranking:
        if label in (NONPOOL, UNJUDGED):
            continue
        if 0 <= label < 1:
            nonrel += 1
        elif nonrel > 0:
            bpref += 1.0 - (min(nonrel, num_rel) / min(num_nonrel, num_rel))
        else:
            bpref += 1.0
    return bpref / num_rel if num_rel else bpref


def c_infap(q: Query) -> float:
    nonrel = rel = unjudged = 0
    total = 0.0
    for j, label in enumerate(q.ranking):
        if label == NONPOOL:
            continue
        if label == UNJUDGED:
            unjudged += 1
            continue
        if 0 <= label < 1:
            nonrel += 1
            continue
        rel += 1
        if j == 0:
            total += 1.0
        else:
            fj = float(j)
            total += 1.0 / (fj + 1.0) + (fj / (fj + 1.0)) * ((rel - 1 + nonrel + unjudged) / fj) * (
                (rel - 1 + EPSILON) / (rel - 1 + nonrel + 2 * EPSILON)
            )
    return total / q.num_rel() if q.num_rel() else total


def c_interpolated(q: Query, percents: list[float]) -> tuple[list[float], float]:
    """iprec_at_recall at each level, and 11pt_avg's mean of them."""
    num_rel, found, ret = q.num_rel(), q.found(), len(q.ranking)
    cutoffs = [int(p * num_rel + 0.9) for p in percents]
    values, total = [0.0] * len(percents), 0.0
    cut = len(percents) - 1
    while cut >= 0 and cutoffs[cut] > found:
        cut -= 1
    best = found / ret
    so_far, i = found, ret
    while i > 0 and so_far > 0:
        best = max(best, so_far / i)
        if q.ranking[i - 1] >= 1:
            while cut >= 0 and so_far == cutoffs[cut]:
                values[cut], total, cut = best, total + best, cut - 1
            so_far -= 1
        i -= 1
    while cut >= 0:
        values[cut], total, cut = best, total + best, cut - 1
    return values, total / len(percents)


def c_rprec_mult(q: Query, percents: list[float]) -> list[float]:
    num_rel, found, ret = q.num_rel(), q.found(), len(q.ranking)
    cutoffs = [int(p * num_rel + 0.9) for p in percents]
    values = [0.0] * len(percents)
    cut = len(percents) - 1
    while cut >= 0 and cutoffs[cut] > ret:
        values[cut], cut = found / cutoffs[cut], cut - 1
    so_far, i = found, ret
    while i > 0 and so_far > 0:
        while cut >= 0 and i == cutoffs[cut]:
            values[cut], cut = so_far / i, cut - 1
        if q.ranking[i - 1] >= 1:
            so_far -= 1
        i -= 1
    return values


def c_set(q: Query, beta: float) -> dict[str, float]:
    ret, num_rel, found = len(q.ranking), q.num_rel(), q.found()
    values = {
        "set_P": found / ret,
        "set_recall": found / num_rel if num_rel else 0.0,
        "set_relative_P": found / min(ret, num_rel) if num_rel else 0.0,
        "set_map": (float(found) * float(found)) / (float(ret) * float(num_rel))
        if num_rel
        else 0.0,
        "set_F_0.25": 0.0,
        "utility": 1.0 * found + -1.0 * (ret - found) + 0.0 * (num_rel - found)
        + 0.0 * (0 + found - ret - num_rel),
    }  # fmt: skip
    if found:
        precision, recall = found / ret, found / num_rel
        values["set_F_0.25"] = (beta + 1.0) * precision * recall / (beta * precision + recall)
    return values


def c_bin_g(q: Query) -> float:
    total, found = 0.0, 0
    for i, label in enumerate(q.ranking):
        if label >= 1:
            found += 1
            total += 1.0 / math.log2(3 + i - found)
    return total / q.num_rel() if found else 0.0


def c_ndcg_cut(q: Query, cutoffs: list[int]) -> list[float]:
    levels = q.rel_levels()
    ideal = [float(level) for level in range(len(levels) - 1, 0, -1) for _ in range(levels[level])]
    values = []
    for k in cutoffs:
        dcg = 0.0
        for i, label in enumerate(q.ranking[:k]):
            if label > 0:
                dcg += label / math.log2(i + 2)
        ideal_dcg = 0.0
        for i, gain in enumerate(ideal[:k]):
            ideal_dcg += gain / math.log2(i + 2)
        values.append(dcg / ideal_dcg if ideal_dcg > 0.0 else dcg)
    return values


class _Gains:
    """trec_eval's ``setup_gains`` and its walk down the ideal ranking's gain levels."""

    def __init__(self, q: Query, gains: dict[int, float]) -> None:
        self.levels = [[level, gain, 0] for level, gain in gains.items()]
        for level, count in enumerate(q.rel_levels()):
            entry = next((e for e in self.levels if e[0] == level), None)
            if entry is None:
                self.levels.append([level, float(level), count])
            else:
                entry[2] = count
        self.levels.sort(key=lambda entry: entry[1])
        self.cur = len(self.levels) - 1
        self.ideal = self.levels[self.cur][1] if self.cur >= 0 else 0.0
        self.at_level = 0

    def gain(self, label: int) -> float:
        return next((gain for level, gain, _ in self.levels if level == label), 0.0)

    def step(self) -> float:
        self.at_level += 1
        while self.cur >= 0 and self.at_level > self.levels[self.cur][2]:
            self.at_level, self.cur = 1, self.cur - 1
            self.ideal = self.levels[self.cur][1] if self.cur >= 0 else 0.0
        return self.ideal


def c_ndcg(q: Query, gains: dict[int, float]) -> float:
    walk, dcg, ideal_dcg, i = _Gains(q, gains), 0.0, 0.0, 0
    while i < len(q.ranking) or walk.ideal > 0.0:
        if i < len(q.ranking) and walk.gain(q.ranking[i]) != 0:
            dcg += walk.gain(q.ranking[i]) / math.log2(i + 2)
        if walk.ideal > 0.0 and walk.step() > 0.0:
            ideal_dcg += walk.ideal / math.log2(i + 2)
        i += 1
    return dcg / ideal_dcg if ideal_dcg > 0.0 else 0.0


def c_ndcg_rel(q: Query, gains: dict[int, float]) -> float:
    walk, dcg, ideal_dcg, total, num_rel, found, i = _Gains(q, gains), 0.0, 0.0, 0.0, 0, 0, 0
    while i < len(q.ranking) or walk.ideal > 0.0:
        gain = walk.gain(q.ranking[i]) if i < len(q.ranking) else 0.0
        if gain != 0:
            dcg += gain / math.log2(i + 2)
        if walk.ideal > 0.0 and walk.step() > 0.0:
            num_rel += 1
            ideal_dcg += walk.ideal / math.log2(i + 2)
        if gain > 0:
            total += dcg / ideal_dcg
            found += 1
        i += 1
    if not ideal_dcg:
        return 0.0
    total += float(num_rel - found) * dcg / ideal_dcg
    return total / num_rel if total > 0.0 else 0.0


def c_rndcg(q: Query, gains: dict[int, float]) -> float:
    if q.num_rel() == 0:
        return 0.0
    walk, dcg, ideal_dcg, total, points, i = _Gains(q, gains), 0.0, 0.0, 0.0, 0, 0
    old = walk.ideal
    ret = len(q.ranking)
    while i < ret and walk.ideal > 0.0:
        gain = walk.gain(q.ranking[i])
        if walk.step() != old:
            if ideal_dcg > 0.0:
                total, points = total + dcg / ideal_dcg, points + 1
            old = walk.ideal
        if gain != 0:
            dcg += gain / math.log2(i + 2)
        if walk.ideal > 0.0:
            ideal_dcg += walk.ideal / math.log2(i + 2)
        i += 1
    if i < ret:
        for at in range(i, ret):
            if walk.gain(q.ranking[at]) != 0:
                dcg += walk.gain(q.ranking[at]) / math.log2(at + 2)
        i = ret
        if ideal_dcg > 0.0:
            total, points = total + dcg / ideal_dcg, points + 1
    while walk.ideal > 0.0:
        if walk.step() != old:
            if ideal_dcg > 0.0:
                total, points = total + dcg / ideal_dcg, points + 1
            old = walk.ideal
        if walk.ideal > 0.0:
            ideal_dcg += walk.ideal / math.log2(i + 2)
        i += 1
    return total / points if points else math.nan


def c_g(q: Query, gains: dict[int, float]) -> float:
    walk = _Gains(q, gains)
    value = results = ideal = cost = 0.0
    i, ret = 0, len(q.ranking)
    while i < ret and walk.ideal > 0.0:
        gain = walk.gain(q.ranking[i])
        results += gain
        ideal_gain = walk.step()
        if ideal_gain > 0.0:
            ideal += ideal_gain
        cost += ideal_gain if ideal_gain >= 1.0 else 1.0
        if gain != 0:
            value += gain / math.log2(2 + cost - results)
        i += 1
    while i < ret:
        gain = walk.gain(q.ranking[i])
        results += gain
        cost += 1.0
        if gain != 0:
            value += gain / math.log2(2 + cost - results)
        i += 1
    while walk.ideal > 0.0:
        if walk.step() > 0.0:
            ideal += walk.ideal
    return value / ideal if ideal > 0.0 else 0.0


LEVELS_11 = [i / 10 for i in range(11)]
MULTIPLES = [0.2, 0.4, 0.6, 0.8, 1.0, 1.2, 1.4, 1.6, 1.8, 2.0]
NDCG_CUTOFFS = [5, 10, 32, 1000]


def c_values(q: Query) -> dict[str, float]:
    """Every ported measure of one query, by the name the command line prints."""
    iprec, average = c_interpolated(q, LEVELS_11)
    values = {
        "map": c_map(q),
        "bpref": c_bpref(q),
        "infAP": c_infap(q),
        "11pt_avg": average,
        "binG": c_bin_g(q),
        "ndcg": c_ndcg(q, {}),
        "ndcg_rel": c_ndcg_rel(q, {}),
        "Rndcg": c_rndcg(q, {}),
        "G": c_g(q, {}),
        f"ndcg_{GAINS_SPEC}": c_ndcg(q, GAINS),
        f"ndcg_rel_{GAINS_SPEC}": c_ndcg_rel(q, GAINS),
        f"Rndcg_{GAINS_SPEC}": c_rndcg(q, GAINS),
        f"G_{GAINS_SPEC}": c_g(q, GAINS),
        **c_set(q, 0.25),
    }
    values |= {f"iprec_at_recall_{p:.2f}": v for p, v in zip(LEVELS_11, iprec, strict=True)}
    multiples = c_rprec_mult(q, MULTIPLES)
    values |= {f"Rprec_mult_{p:.2f}": v for p, v in zip(MULTIPLES, multiples, strict=True)}
    cut = c_ndcg_cut(q, NDCG_CUTOFFS)
    return values | {f"ndcg_cut_{k}": v for k, v in zip(NDCG_CUTOFFS, cut, strict=True)}


# ------------------------------------------------------------------ generated queries


def _random_query(rng: np.random.Generator, depth: int, top: int = 4) -> Query:
    kinds = rng.choice(
        [NONPOOL, UNJUDGED, 0, 1, 2, 3, 4][: top + 3], size=depth, p=_weights(top)
    ).tolist()
    unretrieved = rng.integers(0, top + 1, size=int(rng.integers(0, 12))).tolist()
    judged = [label for label in kinds if label != NONPOOL] + unretrieved
    judged = [-1 if label == UNJUDGED else label for label in judged]
    return Query(kinds, judged, ties=bool(rng.random() < 0.5))


def _weights(top: int) -> list[float]:
    weights = [3.0, 1.0, 3.0] + [2.0 / level for level in range(1, top + 1)]
    return [w / sum(weights) for w in weights]


def _deep_queries(rng: np.random.Generator) -> list[Query]:
    """Relevant documents at and near rank 1620, whose discount is log2(1621), where
    numpy's log2 is not the C library's (nor is it for binG's and G's 2 + 1619), and many
    ranks past the ideal ranking for G's costs."""
    alone = [NONPOOL] * 1619 + [1] + [NONPOOL] * 5
    depth = int(rng.integers(1625, 1700))
    ranking = [NONPOOL] * depth
    for rank in (1619, 1620, 1621, *rng.integers(0, depth, size=3).tolist()):
        ranking[rank] = int(rng.integers(1, 5))
    judged = [label for label in ranking if label != NONPOOL] + [0, 0, 1]
    return [Query(alone, [1, 0]), Query(ranking, judged)]


def _ported_queries(seed: int) -> list[Query]:
    rng = np.random.default_rng(seed)
    queries = [_random_query(rng, int(rng.integers(1, 70))) for _ in range(120)]
    queries += [_random_query(rng, int(rng.integers(60, 400))) for _ in range(6)]
    queries += _deep_queries(rng)
    queries.append(Query([1], [1]))  # one relevant document, first
    queries += [Query([0] * n + [1], [0] * n + [1]) for n in (7, 8, 9, 13)]  # G's costs
    queries.append(Query([0, NONPOOL, UNJUDGED], [0, -1, 0]))  # nothing relevant
    return [q for q in queries if any(label >= 0 for label in q.judged)]


def _qid(number: int) -> str:
    """Query ids whose string order is not their numeric order ("100" < "11")."""
    return str(number) if number % 2 else f"{number}0"


def _files(directory: Path, queries: list[Query], *, seed: int) -> tuple[Path, Path]:
    """A qrels and a run file holding ``queries``: each ranking in the order given, or
    for a query with ``ties``, neighbours sharing scores (trec_eval orders them by
    document id, descending)."""
    rng = np.random.default_rng(seed)
    run_lines, qrels_lines = [], []
    for number, q in enumerate(queries):
        query = _qid(number)
        judged = iter(q.judged)
        scores = np.arange(len(q.ranking), 0, -1, dtype=np.float64)
        if q.ties:
            scores = np.floor(scores / rng.integers(2, 4))
        for rank, label in enumerate(q.ranking):
            doc = f"d{rank:04d}"
            run_lines.append(f"{query} Q0 {doc} {rank + 1} {scores[rank]:g} tag\n")
            if label != NONPOOL:
                qrels_lines.append(f"{query} 0 {doc} {next(judged)}\n")
        qrels_lines += [f"{query} 0 x{i} {label}\n" for i, label in enumerate(judged)]
    run, qrels = directory / f"run{seed}", directory / f"qrels{seed}"
    run.write_text("".join(run_lines))
    qrels.write_text("".join(qrels_lines))
    return qrels, run


def _csv(capsys, *arguments: str) -> pd.DataFrame:
    capsys.readouterr()
    assert cli.main(["--format", "csv", "-q", *arguments]) == 0, capsys.readouterr().err
    text = capsys.readouterr().out
    # pandas 2's default parser can be 1 ulp off; pandas 3 reads exactly (and deprecates it)
    exact = {"float_precision": "round_trip"} if int(pd.__version__.split(".")[0]) < 3 else {}
    return pd.read_csv(io.StringIO(text), dtype={"query": str}, **exact)


PORTED = [
    "map", "bpref", "infAP", "11pt_avg", "iprec_at_recall", "binG", "set_P", "set_recall",
    "set_relative_P", "set_map", "set_F.0.25", "utility", "Rprec_mult", "ndcg", "ndcg_rel",
    "Rndcg", "G", "ndcg_cut." + ",".join(map(str, NDCG_CUTOFFS)),
]  # fmt: skip


@pytest.mark.parametrize("seed", [11, 12])
def test_every_value_equals_trec_eval_s_to_the_last_bit(tmp_path, capsys, seed) -> None:
    queries = _ported_queries(seed)
    for q in queries:
        q.ties = False  # the ports read each ranking in the order given
    qrels, run = _files(tmp_path, queries, seed=seed)
    measures = [argument for name in PORTED for argument in ("-m", name)]
    table = _csv(capsys, *measures, str(qrels), str(run)).set_index("query")
    gained = _csv(
        capsys,
        *[argument for name in ("ndcg", "ndcg_rel", "Rndcg", "G") for argument in
          ("-m", f"{name}.{GAINS_SPEC}")],
        str(qrels), str(run),
    ).set_index("query").drop(columns="run")  # fmt: skip
    table = table.join(gained)
    compared = 0
    for number, q in enumerate(queries):
        query = _qid(number)
        row = table.loc[query]
        for name, expected in c_values(q).items():
            got = float(row[name])
            assert got == expected or (math.isnan(got) and math.isnan(expected)), (
                query, name, got, expected,
            )  # fmt: skip
            compared += 1
    assert compared > 5000


# ------------------------------------------------------------------ against the program


def _boundary_counts(limit: int = 60) -> list[tuple[int, int, int]]:
    """(relevant retrieved, retrieved, relevant) whose set_map a^2 / (retrieved R) is
    exactly halfway between two values of %.4f."""
    found = []
    for ret in range(1, limit + 1):
        for num_rel in range(1, limit + 1):
            for a in range(1, min(ret, num_rel) + 1):
                if (Fraction(a * a, ret * num_rel) * 10**4).denominator == 2:
                    found.append((a, ret, num_rel))
    return found


def _set_query(rng: np.random.Generator, a: int, ret: int, num_rel: int) -> Query:
    ranking = [int(rng.integers(1, 4)) for _ in range(a)]
    ranking += rng.choice([NONPOOL, UNJUDGED, 0], size=ret - a).tolist()
    ranking = rng.permutation(np.asarray(ranking, dtype=np.int64)).tolist()
    judged = [label for label in ranking if label != NONPOOL]
    judged = [-1 if label == UNJUDGED else label for label in judged]
    judged += [int(rng.integers(1, 4)) for _ in range(num_rel - a)] + [0] * int(rng.integers(3))
    return Query(ranking, judged)


_DECIMAL_RANKS = (1, 2, 4, 5, 8, 10, 16, 20, 25, 32, 40, 50, 64, 80)


def _ap_query(rng: np.random.Generator) -> Query | None:
    """A ranking whose average precision is exactly halfway between two values of %.4f
    (relevant documents at ranks whose precisions end in decimal), or None."""
    count = int(rng.integers(2, 7))
    ranks = sorted(rng.choice(_DECIMAL_RANKS, size=count, replace=False).tolist())
    num_rel = count + int(rng.integers(0, 12))
    ap = sum(Fraction(i + 1, rank) for i, rank in enumerate(ranks)) / num_rel
    if (ap * 10**4).denominator != 2:
        return None
    ranking = [int(rng.choice([NONPOOL, 0, UNJUDGED])) for _ in range(ranks[-1])]
    for rank in ranks:
        ranking[rank - 1] = int(rng.integers(1, 4))
    judged = [label for label in ranking if label != NONPOOL]
    judged = [-1 if label == UNJUDGED else label for label in judged]
    return Query(ranking, judged + [1] * (num_rel - count))


def _boundary_queries(seed: int) -> list[Query]:
    rng = np.random.default_rng(seed)
    counts = _boundary_counts()
    chosen = rng.choice(len(counts), size=90, replace=False)
    queries = [_set_query(rng, *counts[i]) for i in chosen]
    while len(queries) < 140:
        found = _ap_query(rng)
        if found is not None:
            queries.append(found)
    queries += [_random_query(rng, int(rng.integers(1, 200)), top=3) for _ in range(40)]
    for depth in (32, 160, 96):  # P and recall at 32 and 160: halves of 1/32 and 1/160
        for hits in (1, 3, 5, 7):
            ranking = rng.permutation([1] * hits + [0] * (depth - hits)).tolist()
            queries.append(Query(ranking, ranking + [1] * (depth - hits)))
    queries.append(Query([0, NONPOOL], [0, 0]))  # no relevant document
    return queries


OPTIONS = [
    ["-q", "-m", "all_trec"],
    ["-q", "-c", "-m", "all_trec"],
    ["-q", "-J", "-m", "all_trec"],
    ["-q", "-M", "40", "-l", "2", "-m", "all_trec"],
    ["-q", "-m", "P.32,96,160", "-m", "recall.32,160", "-m", "relative_P.32,160", "-m",
     "map_cut.32,160", "-m", "set_F.0.25", "-m", "Rprec_mult.0.2,0.6,1.4", "-m",
     "iprec_at_recall.0.15,0.35", "-m", "success.1,32", "-m", "ndcg_cut.32,160",
     "-m", f"ndcg.{GAINS_SPEC}", "-m", f"ndcg_rel.{GAINS_SPEC}", "-m", f"Rndcg.{GAINS_SPEC}",
     "-m", f"G.{GAINS_SPEC}"],
]  # fmt: skip


@pytest.mark.parametrize("seed", [21, 22])
def test_the_command_line_prints_the_last_digit_trec_eval_prints(
    trec_eval,
    tmp_path,
    capsys,
    seed,
) -> None:
    queries = _boundary_queries(seed)
    qrels, run = _files(tmp_path, queries, seed=seed)
    for options in OPTIONS:
        arguments = [*options, str(qrels), str(run)]
        expected = subprocess.run(
            [str(trec_eval), *arguments], capture_output=True, text=True, check=True
        ).stdout
        capsys.readouterr()
        assert cli.main(arguments) == 0, capsys.readouterr().err
        printed = capsys.readouterr().out
        if printed != expected:
            differ = sorted(set(printed.splitlines()) ^ set(expected.splitlines()))
            pytest.fail(f"{options}: lines of one program only: {differ[:12]}")


def test_the_boundaries_are_reached() -> None:
    """set_map's a^2 / (retrieved R) at a boundary prints differently from P x R for a
    third of the counts: the files exercise the last digit, not only its neighbours."""
    counts = _boundary_counts()
    differ = [
        (a, ret, num_rel)
        for a, ret, num_rel in counts
        if f"{(a / ret) * (a / num_rel):.4f}" != f"{a * a / (ret * num_rel):.4f}"
    ]
    assert len(counts) > 300
    assert len(differ) > 50
    assert (3, 4, 40) in differ  # 9/160 = 0.05625: trec_eval 0.0562, P x R 0.0563


# ------------------------------------------------------------------ the helpers themselves


def test_running_sums_add_in_order_inside_each_group() -> None:
    rng = np.random.default_rng(5)
    for sizes in ([1], [3, 1, 4], [700], [2] * 400, [1, 900, 3, 2]):
        group = np.repeat(np.arange(len(sizes)), sizes)
        values = rng.random(len(group)) / rng.integers(1, 50, len(group))
        expected = []
        for size, start in zip(sizes, np.cumsum([0, *sizes[:-1]]), strict=True):
            total = 0.0
            for value in values[start : start + size]:
                total += value
                expected.append(total)
        assert running_sum(values, group).tolist() == expected


def test_log2_is_the_c_library_s() -> None:
    whole = np.arange(1, 5000, dtype=np.float64)
    assert libm_log2(whole).tolist() == [math.log2(v) for v in whole]
    fractional = np.random.default_rng(3).random(2000) * 50 + 1
    assert libm_log2(fractional).tolist() == [math.log2(v) for v in fractional]
    assert libm_log2(np.array([0.0, 2.0, -1.0])).tolist()[:2] == [-math.inf, 1.0]


def test_geometric_means_take_the_c_library_s_log() -> None:
    """gm_map adds log(AP) query by query and prints exp(sum / n): numpy's log differs
    from the C library's for some values (found here by search), and the mean of a few
    of them then differs in its last bits -- the command line's must not."""
    values = np.random.default_rng(8).random(100_000)
    odd = np.asarray([v for v in values.tolist() if float(np.log(v)) != math.log(v)])
    if not len(odd):  # this numpy takes the C library's log: any values will do
        odd = values[:500]
    rng = np.random.default_rng(9)
    runs, queries, chosen = [], [], []
    for run in range(60):
        picked = rng.choice(odd, size=int(rng.integers(1, 6)), replace=False).tolist()
        runs += [f"r{run:02d}"] * len(picked)
        queries += [f"q{i}" for i in range(len(picked))]
        chosen.append(picked)
    index = pd.MultiIndex.from_arrays([runs, queries], names=["run", "query"])
    table = pd.DataFrame({"gm_map": np.concatenate(chosen)}, index=index)
    summary = _summarise(table, parse_measures(["gm_map"]), index)
    for run, picked in enumerate(chosen):
        total = 0.0
        for value in picked:
            total += math.log(max(value, 1e-5))
        assert summary.at[f"r{run:02d}", "gm_map"] == math.exp(total / len(picked)), run
