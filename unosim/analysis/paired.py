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

Intervals are at ``level`` (95%: ``stats.z_value()``): normal intervals for counts and lengths, and for the
0/1 metrics (``seat<K>_win``, ``capped``) the Agresti-Min interval for matched proportions (Agresti & Min,
Statistics in Medicine 24, 2005: the normal interval with half a pair added to each cell of the 2 x 2
table), because the plain one collapses to a single point when no game changes its outcome between the
arms, which a rule that rarely matters gives in small runs.  The difference is always ``b - a`` (the arm
minus the reference arm).

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
           "mean_row", "is_binary_metric", "matched_proportions_interval", "pairing_variance_ratio"]

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


def is_binary_metric(metric: str) -> bool:
    """Whether ``metric`` is a 0/1 indicator per game (a win of a seat, a capped round or match)."""
    return bool(_SEAT_WIN.match(metric)) or metric == "capped"


def matched_proportions_interval(a: np.ndarray, b: np.ndarray, level: float = 0.95) -> dict[str, Any]:
    """The Agresti-Min interval of p_b - p_a for paired 0/1 outcomes: with f games where only a is 1 and g
    where only b is 1, out of n, half a game is added to each of the four cells (n + 2 games), and the normal
    interval of the adjusted difference (g - f) / (n + 2) is taken: se = sqrt(f + g + 1 - (g - f)^2 / (n + 2))
    / (n + 2).  Keys as _interval's (``se`` the adjusted one)."""
    n = len(a)
    f = float(np.count_nonzero((a == 1) & (b == 0)))
    g = float(np.count_nonzero((a == 0) & (b == 1)))
    m = n + 2.0
    centre = (g - f) / m
    se = math.sqrt(max(f + g + 1.0 - (g - f) ** 2 / m, 0.0)) / m
    half = z_value(level) * se
    return {"se": se, "ci_lo": centre - half, "ci_hi": centre + half, "half_width": half, "n": int(n)}


def paired_difference(records_a: pd.DataFrame, records_b: pd.DataFrame, metric: str, level: float = 0.95
                      ) -> dict[str, Any]:
    """Mean of ``metric`` in b minus a over the games both arms played, paired game by game.

    Keys: ``diff``, ``se`` (sd of the per-game differences / sqrt(n); for a 0/1 metric the Agresti-Min
    one, :func:`matched_proportions_interval`), ``ci_lo``, ``ci_hi``, ``half_width``, ``n`` (matched
    games), ``mean_a``, ``mean_b``.  Identical arms differ by exactly 0 (with se 0 for a count or a length;
    a win rate's interval is then about +-2 / (n + 2) wide).  A 0/1 metric that never varied in either arm
    (no capped round at all) keeps the single point 0: the event did not happen.
    """
    a, b = _aligned(records_a, records_b, metric)
    n = len(a)
    d = b - a
    diff = float(d.mean()) if n else float("nan")
    varied = n > 1 and min(a.min(), b.min()) != max(a.max(), b.max())  # some game's outcome differs from another's
    if varied and is_binary_metric(metric):
        interval = matched_proportions_interval(a, b, level)
    else:
        interval = _interval(diff, float(d.std(ddof=1) / math.sqrt(n)) if n > 1 else float("nan"), n, level)
    return {"diff": diff, **interval,
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
    return pairing_variance_ratio(*_aligned(records_a, records_b, metric))


def pairing_variance_ratio(a: np.ndarray, b: np.ndarray) -> float:
    """:func:`variance_ratio` of two matched arrays of per-game values (nan with fewer than 2 games, or
    when neither arm varies)."""
    if len(a) < 2:
        return float("nan")
    den = a.var(ddof=1) + b.var(ddof=1)
    return float((b - a).var(ddof=1) / den) if den > 0 else float("nan")
