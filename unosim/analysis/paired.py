"""Common-random-numbers comparisons: paired differences between two arms' records.

Pure numpy/pandas (no simulation here).  Two arms run with the same master seed and the same
players play game ``g`` from the same per-game seed (``(seed, g)``, see :func:`unosim.core.nb.game_seed_nb`),
so their records are paired on the ``game`` column (``match`` in match mode).

What the arms share (RULES/engine facts, see :mod:`unosim.lab.experiments` for the full list):

* same deck (same size): the identical shuffle, deal and starting card; the random streams then
  stay in step until the first decision that differs between the arms;
* decks of different sizes: only the per-game seed; the shuffle permutes a different number of
  cards, so the deals are unrelated (the seat assignment of ``seating="shuffle"`` and the Flip face
  pairing have their own streams from ``(seed, g)`` and stay shared).

Metrics (``metric=``) are a records column (``turns``, ``winner_points``, ``cards_drawn``,
``rounds``, ...) or a derived indicator: ``seat<K>_win`` = (winner == K), ``capped`` = the round
hit the turn cap (the match hit the round cap).  ``winner_points`` is averaged over every row
(capped rounds score 0), so that both arms are averaged over the same games.

Intervals are normal intervals at ``level`` (95%: ``stats.z_value()``).  The difference is always
``b - a`` (the arm minus the reference arm).

>>> d = paired_difference(records_official, records_stacking, "turns")   # doctest: +SKIP
>>> d["diff"], d["ci_lo"], d["ci_hi"], d["n"]                             # doctest: +SKIP
"""

from __future__ import annotations

import math
import re
from typing import Any

import numpy as np
import pandas as pd

from .stats import z_value

__all__ = ["index_column", "metric_values", "paired_difference", "independent_se", "variance_ratio",
           "mean_row"]

_SEAT_WIN = re.compile(r"^seat(\d+)_win$")


def index_column(records: pd.DataFrame) -> str:
    """The pairing column: ``game`` (round mode) or ``match`` (match mode)."""
    for c in ("game", "match"):
        if c in records.columns:
            return c
    raise ValueError("records have neither a 'game' nor a 'match' column; accepted: engine records")


def metric_values(records: pd.DataFrame, metric: str) -> np.ndarray:
    """One float per row of ``records`` for ``metric`` (see the module doc)."""
    m = _SEAT_WIN.match(metric)
    if m:
        return (records["winner"].to_numpy() == int(m.group(1))).astype(np.float64)
    if metric == "capped":
        return records["end_reason"].isin(("turn_cap", "round_cap")).to_numpy(np.float64)
    if metric in records.columns and metric not in ("game", "match", "end_reason"):
        return records[metric].to_numpy(np.float64)
    cols = [c for c in records.columns if c not in ("game", "match", "end_reason")]
    raise ValueError(f"unknown metric {metric!r}; accepted: seat<K>_win, capped, {', '.join(cols)}")


def _aligned(records_a: pd.DataFrame, records_b: pd.DataFrame, metric: str) -> tuple[np.ndarray, np.ndarray]:
    """The metric of both arms on the games both have (inner join on the index column)."""
    ka, kb = index_column(records_a), index_column(records_b)
    ga, gb = records_a[ka].to_numpy(), records_b[kb].to_numpy()
    xa, xb = metric_values(records_a, metric), metric_values(records_b, metric)
    if len(ga) == len(gb) and np.array_equal(ga, gb):
        return xa, xb
    common, ia, ib = np.intersect1d(ga, gb, assume_unique=True, return_indices=True)
    return xa[ia], xb[ib]


def _interval(est: float, se: float, n: int, level: float) -> dict[str, Any]:
    half = z_value(level) * se if math.isfinite(se) else float("nan")
    return {"se": se, "ci_lo": est - half, "ci_hi": est + half, "half_width": half, "n": int(n)}


def mean_row(x: np.ndarray, level: float = 0.95) -> dict[str, Any]:
    """Mean of ``x`` with a normal interval: keys mean, se, ci_lo, ci_hi, half_width, n."""
    n = len(x)
    mean = float(x.mean()) if n else float("nan")
    se = float(x.std(ddof=1) / math.sqrt(n)) if n > 1 else float("nan")
    return {"mean": mean, **_interval(mean, se, n, level)}


def paired_difference(records_a: pd.DataFrame, records_b: pd.DataFrame, metric: str, level: float = 0.95
                      ) -> dict[str, Any]:
    """Mean of ``metric`` in b minus a over the games both arms played, paired game by game.

    Keys: ``diff``, ``se`` (sd of the per-game differences / sqrt(n)), ``ci_lo``, ``ci_hi``,
    ``half_width``, ``n`` (matched games), ``mean_a``, ``mean_b``.  Identical arms give exactly 0
    with se 0.
    """
    a, b = _aligned(records_a, records_b, metric)
    n = len(a)
    d = b - a
    diff = float(d.mean()) if n else float("nan")
    se = float(d.std(ddof=1) / math.sqrt(n)) if n > 1 else float("nan")
    return {"diff": diff, **_interval(diff, se, n, level),
            "mean_a": float(a.mean()) if n else float("nan"), "mean_b": float(b.mean()) if n else float("nan")}


def independent_se(records_a: pd.DataFrame, records_b: pd.DataFrame, metric: str) -> float:
    """Standard error the same difference would have with independent seeds:
    sqrt(var(a)/n_a + var(b)/n_b), each arm on all its own rows."""
    a, b = metric_values(records_a, metric), metric_values(records_b, metric)
    if len(a) < 2 or len(b) < 2:
        return float("nan")
    return float(math.sqrt(a.var(ddof=1) / len(a) + b.var(ddof=1) / len(b)))


def variance_ratio(records_a: pd.DataFrame, records_b: pd.DataFrame, metric: str) -> float:
    """var(b - a) paired / (var(a) + var(b)) on the matched games: the variance of a paired
    difference relative to independent seeds (0 for identical arms, 1 when pairing does not help;
    the same games are needed for the same precision times this ratio)."""
    a, b = _aligned(records_a, records_b, metric)
    if len(a) < 2:
        return float("nan")
    den = a.var(ddof=1) + b.var(ddof=1)
    return float((b - a).var(ddof=1) / den) if den > 0 else float("nan")
