"""Run and qrels files for the tests that compare the command line with the trec_eval
programs, and the sets of options they are run with.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
from adversarial import adversarial_case


def write_case(
    directory: Path,
    seed: int,
    *,
    all_retrieved: bool = False,
    comments: bool = False,
    negative: bool = True,
) -> tuple[Path, Path]:
    """An adversarial run and qrels as TREC files, some labels above 9 (below -1, a query
    whose labels are all negative crashes trec_eval 9.0.8).

    ``all_retrieved``: the qrels keep only the queries the run retrieved (trec_eval 10.0
    stops at a judged query without results unless -c). ``comments``: ``#`` lines here and
    there in both files, as trec_eval 10.0 reads them (in the first column, never two in a
    row, never the last line). ``negative=False``: no negative labels (trec_eval's
    prefs_avgjg_Rnonrel reads past an array when a query's lowest level has fewer
    documents than it has relevant ones, which negative labels make possible).
    """
    run, qrels = adversarial_case(seed)
    rng = np.random.default_rng(seed)
    labels = qrels["rel"].to_numpy().copy()
    odd = rng.random(len(labels))
    labels[odd < 0.03] = 12
    if all_retrieved:
        kept = qrels["query"].isin(run["query"]).to_numpy()
        qrels, labels = qrels[kept], labels[kept]
    if not negative:
        kept = labels >= 0
        qrels, labels = qrels[kept], labels[kept]
    run_path, qrels_path = directory / f"run{seed}", directory / f"qrels{seed}"
    lines = [
        f"{q} Q0 {d} {i} {s:g} tag{i % 3}\n"  # the tag varies: one file is one run
        for i, (q, d, s) in enumerate(run[["query", "doc", "score"]].itertuples(index=False))
    ]
    judged = zip(qrels["query"], qrels["doc"], labels, strict=True)
    judgments = [f"{q} 0 {d} {r}\n" for q, d, r in judged]
    if comments:
        lines, judgments = _commented(lines, rng), _commented(judgments, rng)
    run_path.write_text("".join(lines))
    qrels_path.write_text("".join(judgments))
    return run_path, qrels_path


def _commented(lines: list[str], rng: np.random.Generator) -> list[str]:
    """``lines`` with a comment line before some of them (the first one included)."""
    out = []
    for at, line in enumerate(lines):
        if at == 0 or rng.random() < 0.05:
            out.append(f"# comment {at} # with Q0 4 fields\n" if at % 2 else "#\n")
        out.append(line)
    return out


OPTIONS = [
    [],
    ["-q"],
    ["-c"],
    ["-n", "-q"],
    ["-J"],
    ["-q", "-J"],
    ["-M", "5"],
    ["-l", "2"],
    ["-m", "all_trec"],
    ["-q", "-m", "all_trec"],
    ["-q", "-c", "-J", "-m", "all_trec"],
    ["-q", "-c", "-M", "3", "-l", "2", "-m", "all_trec"],
    ["-q", "-J", "-M", "4", "-m", "all_trec"],
    ["-m", "P.1,3,7", "-m", "ndcg_cut.3,17", "-q"],
    ["-m", "set_F.0.25", "-m", "set_F", "-q"],
    ["-m", "iprec_at_recall.0.15,0.5", "-q", "-J"],
    ["-m", "ndcg.1=2,2=5,0=1", "-m", "G.3=1", "-q"],
    ["-m", "ndcg_rel.2=4", "-m", "Rndcg.1=3", "-c"],
    ["-m", "relstring.4", "-q", "-J"],
    ["-m", "relstring", "-q", "-M", "2"],
    ["-m", "Rprec_mult.0.5,2", "-m", "map_cut.5,10", "-m", "success.1,5", "-q"],
    ["-m", "gm_map", "-m", "gm_bpref", "-c", "-q"],
    ["-m", "relative_P.5", "-m", "set_relative_P", "-m", "num_nonrel_judged_ret", "-q"],
]
