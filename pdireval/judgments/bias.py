"""How far an LLM judge's numbers are from human ones: the bias of each run's metric
under the LLM's labels, and the pairs of runs the LLM orders differently.

LLM judges are not biased evenly: a judge may favour the runs built on its own model
(Balog, Metzler & Qin 2025), so a run's score can rise under the LLM while another's
falls, and the LLM may order two runs the other way round than people do. On the
queries judged by both, :func:`judge_bias` measures each run's mean difference
``LLM - gold`` with a t interval, and lists the pairs of runs whose order the LLM's means
reverse; :func:`pdireval.plotting.judge_bias_plot` draws both.
"""

from __future__ import annotations

from collections.abc import Hashable
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from pdireval._core.options import EVALUATION, excluding, level, takes
from pdireval.judgments.ppi import sample, two_judges
from pdireval.typing import ColumnsLike, MetricsLike

__all__ = ["BIAS_COLUMNS", "PAIR_COLUMNS", "JudgeBias", "judge_bias"]

#: Columns of :attr:`JudgeBias.bias`, in order.
BIAS_COLUMNS = ("run", "metric", "bias", "ci_low", "ci_high", "n", "gold_mean", "llm_mean")
#: Columns of :attr:`JudgeBias.pairs`, in order.
PAIR_COLUMNS = ("metric", "run", "other", "gold_delta", "llm_delta", "swapped")


@dataclass(frozen=True)
class JudgeBias:
    """The bias of an LLM judge against gold labels, run by run.

    Attributes
    ----------
    bias : DataFrame
        One row per (run, metric), runs in the frame's order (a categorical's
        categories) and metrics as requested: ``bias`` the mean of (metric under the
        LLM's labels - metric under the gold labels) over the queries judged by both,
        ``ci_low`` and ``ci_high`` its t interval of level ``1 - alpha``, ``n`` those
        queries, ``gold_mean`` and ``llm_mean`` the run's means on them.
    pairs : DataFrame
        Every pair of runs and metric: ``run`` and ``other`` (``run`` the earlier in the
        runs' order), ``gold_delta`` and ``llm_delta`` (mean of ``run`` minus mean of
        ``other`` on the shared queries, under each set of labels) and ``swapped``:
        whether the two order the pair differently (the signs of the deltas differ; a
        tie under one and not the other counts as a different order).
    runs : list
        The runs, in the frame's order.
    alpha : float
        One minus the intervals' level.
    """

    bias: pd.DataFrame
    pairs: pd.DataFrame
    runs: list[Hashable]
    alpha: float

    @property
    def swaps(self) -> pd.DataFrame:
        """The pairs of runs the LLM orders differently from the gold labels."""
        return self.pairs[self.pairs["swapped"]].reset_index(drop=True)


@takes(excluding(EVALUATION, "qrels"))
def judge_bias(
    run: pd.DataFrame,
    metrics: MetricsLike,
    *,
    qrels: pd.DataFrame,
    gold: pd.DataFrame,
    alpha: float = 0.05,
    columns: ColumnsLike = None,
    **options: Any,
) -> JudgeBias:
    """Each run's bias under an LLM judge, and the pairs of runs it orders differently.

    Parameters
    ----------
    run : DataFrame
        Runs without labels (query, doc, score or rank, optional run column).
    metrics : metric or list of metrics
        As in :func:`pdireval.evaluate`.
    qrels : DataFrame
        The LLM judge's labels (query, doc, rel).
    gold : DataFrame
        Human labels of some of those queries (at least 2 judged by both).
    alpha : float, default 0.05
        The intervals have level ``1 - alpha``.
    columns : ColumnMap or dict, optional
        Which column of ``run`` plays which role (``qrels_columns=`` names those of
        ``qrels`` and ``gold``).
    **options
        The evaluation options of :func:`pdireval.evaluate`, applied under both sets
        of labels.

    Returns
    -------
    JudgeBias
        ``bias`` (per run and metric, with a t interval), ``pairs`` (every pair of runs
        under both sets of labels) and ``swaps`` (the pairs ordered differently).

    Raises
    ------
    SchemaError
        As :func:`pdireval.ppi`: gold queries that are not queries of the run or have no
        LLM value, no query judged by both, fewer than 2.
    ParameterError
        ``alpha`` not strictly between 0 and 1.
    MissingDependencyError
        scipy is not installed (the t interval needs it).

    Notes
    -----
    The bias is measured on the queries judged by both; it is the LLM's bias on the
    whole collection when those are a random sample of its queries. Runs are ordered by
    their means on those queries. A run whose bias differs from the others' is what
    changes the LLM's order of the runs: a judge that prefers runs of its own family
    shows a larger bias for them.

    Examples
    --------
    >>> import pdireval
    >>> from pdireval.datasets import example_qrels, example_run
    >>> human = example_qrels()
    >>> llm = human.assign(rel=human["rel"].clip(upper=1))  # misses grade 2
    >>> found = pdireval.judge_bias(example_run(), "nDCG@10", qrels=llm, gold=human)
    >>> found.bias[["run", "n"]]
          run   n
    0  strong  50
    1  medium  50
    2    weak  50
    >>> len(found.swaps)
    0
    """
    from pdireval.stats.significance import scipy_stats

    level("alpha", alpha)
    stats = scipy_stats()
    found = two_judges(run, metrics, qrels, gold, columns, options, "judge_bias")
    rows, pairs = [], []
    for label in found.llm.columns:
        values = sample(found.llm[label], found.gold[label], found.runs, found.queries)
        n = np.bincount(values.gold_code, minlength=len(found.runs))
        difference = values.y_hat - values.y
        codes = values.gold_code
        with np.errstate(divide="ignore", invalid="ignore"):
            mean = np.bincount(codes, weights=difference, minlength=len(n)) / n
            gold_mean = np.bincount(codes, weights=values.y, minlength=len(n)) / n
            llm_mean = np.bincount(codes, weights=values.y_hat, minlength=len(n)) / n
            spread = difference - mean[codes]
            sd = np.sqrt(np.bincount(codes, weights=spread * spread, minlength=len(n)) / (n - 1))
            half = stats.t.ppf(1 - alpha / 2, n - 1) * sd / np.sqrt(n)
        rows.append(
            pd.DataFrame(
                {
                    "run": pd.Series(found.runs, dtype=object),
                    "metric": label,
                    "bias": mean,
                    "ci_low": mean - half,
                    "ci_high": mean + half,
                    "n": n.astype(np.int64),
                    "gold_mean": gold_mean,
                    "llm_mean": llm_mean,
                }
            )
        )
        pairs.append(_pairs(found.runs, label, gold_mean, llm_mean))
    bias = pd.concat(rows, ignore_index=True)
    order = {run: at for at, run in enumerate(found.runs)}
    ranks = bias["run"].map(order).to_numpy()
    bias = bias.iloc[np.argsort(ranks, kind="stable")].reset_index(drop=True)
    return JudgeBias(
        bias[list(BIAS_COLUMNS)],
        pd.concat(pairs, ignore_index=True)[list(PAIR_COLUMNS)],
        list(found.runs),
        float(alpha),
    )


def _pairs(
    runs: list[Hashable], label: str, gold_mean: np.ndarray, llm_mean: np.ndarray
) -> pd.DataFrame:
    """Every pair of runs (the earlier first) with its deltas under both sets of labels."""
    first, second = np.triu_indices(len(runs), k=1)
    gold_delta = gold_mean[first] - gold_mean[second]
    llm_delta = llm_mean[first] - llm_mean[second]
    return pd.DataFrame(
        {
            "metric": pd.Series([label] * len(first), dtype=object),
            "run": pd.Series([runs[i] for i in first], dtype=object),
            "other": pd.Series([runs[j] for j in second], dtype=object),
            "gold_delta": gold_delta,
            "llm_delta": llm_delta,
            "swapped": np.sign(gold_delta) != np.sign(llm_delta),
        }
    )
