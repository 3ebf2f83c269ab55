"""trec_eval's file of per-query means and standard deviations (``trec_eval -Z``): one
line per query and measure, ``qid measure mean stddev``, fields separated by whitespace.
"""

from __future__ import annotations

import os
from pathlib import Path

import numpy as np
import pandas as pd

from pdireval._core.errors import SchemaError

__all__ = ["read_zscores", "write_zscores"]

_FIELDS = "qid measure mean stddev"


def read_zscores(path: str | os.PathLike[str]) -> pd.DataFrame:
    """Read a trec_eval z-scores file (``trec_eval -Z``).

    Parameters
    ----------
    path : str or path
        A text file of lines ``qid measure mean stddev`` (trec_eval's measure names, e.g.
        ``map``, ``P_10``), as trec_eval's ``make_zscore_file.py`` or
        :func:`write_zscores` writes it.

    Returns
    -------
    DataFrame
        Columns ``query`` and ``measure`` (text), ``mean`` and ``stddev`` (float64), in
        file order: what :func:`pdireval.zscores` takes.

    Raises
    ------
    SchemaError
        A line without exactly four fields (a blank line included, as trec_eval), or a
        mean or deviation that is not a number; the message names the file and line.

    Examples
    --------
    >>> import pathlib, tempfile, pdireval
    >>> with tempfile.TemporaryDirectory() as folder:
    ...     path = pathlib.Path(folder) / "zscores"
    ...     _ = path.write_text("301 map 0.2 0.1\\n301 P_10 0.4 0.2\\n")
    ...     pdireval.read_zscores(path)
      query measure  mean  stddev
    0   301     map   0.2     0.1
    1   301    P_10   0.4     0.2
    """
    text = Path(path).read_text(encoding="utf-8")
    lines = pd.Series(text.splitlines(), dtype=object)
    fields = lines.str.split()
    counts = fields.map(len).to_numpy()
    if (counts != 4).any():
        at = int(np.flatnonzero(counts != 4)[0])
        msg = (
            f"{path}, line {at + 1}: {counts[at]} fields where a z-scores file has 4 "
            f"({_FIELDS}): {lines[at]!r}"
        )
        raise SchemaError(msg)
    columns = {name: fields.str[place] for place, name in enumerate(("query", "measure"))}
    numbers = {name: _numbers(fields.str[place], lines, path, name)
               for place, name in ((2, "mean"), (3, "stddev"))}  # fmt: skip
    return pd.DataFrame(
        {**columns, **numbers}, columns=["query", "measure", "mean", "stddev"]
    ).astype({"query": object, "measure": object})


def _numbers(texts: pd.Series, lines: pd.Series, path: object, what: str) -> np.ndarray:
    """The field as doubles; a field that is not a number is refused, naming its line."""
    values = pd.to_numeric(texts, errors="coerce").to_numpy(dtype=np.float64)
    bad = np.isnan(values) & ~texts.str.lower().str.lstrip("+-").isin(["nan"]).to_numpy()
    if bad.any():
        at = int(np.flatnonzero(bad)[0])
        msg = (
            f"{path}, line {at + 1}: the {what} {texts[at]!r} is not a number ({_FIELDS}): "
            f"{lines[at]!r}"
        )
        raise SchemaError(msg)
    return values


def write_zscores(stats: pd.DataFrame, path: str | os.PathLike[str]) -> Path:
    """Write per-query statistics (:func:`pdireval.zscore_stats`) as a trec_eval z-scores
    file, numbers in full (the shortest text that reads back as the same double).

    Parameters
    ----------
    stats : DataFrame
        Columns ``query``, ``measure``, ``mean``, ``stddev``. Name the measures as the
        tool that reads the file does (trec_eval: ``map``, ``P_10``).
    path : str or path
        Where to write.

    Returns
    -------
    Path
        The file written.
    """
    missing = {"query", "measure", "mean", "stddev"} - set(stats.columns)
    if missing:
        msg = f"stats needs the columns query, measure, mean, stddev ({sorted(missing)} missing)"
        raise SchemaError(msg)
    names = pd.concat([stats["query"], stats["measure"]]).astype(str)
    if (names.str.len() == 0).any() or names.str.contains(r"\s").any():
        bad = names[(names.str.len() == 0) | names.str.contains(r"\s")].iloc[0]
        msg = f"a query or measure name holds whitespace or is empty: {bad!r}"
        raise SchemaError(msg)
    texts = [
        stats[column].astype(str) if column in ("query", "measure")
        else stats[column].astype(np.float64).map(repr)
        for column in ("query", "measure", "mean", "stddev")
    ]  # fmt: skip
    lines = texts[0] + " " + texts[1] + " " + texts[2] + " " + texts[3] + "\n"
    target = Path(path)
    target.write_text("".join(lines.tolist()), encoding="utf-8")
    return target
