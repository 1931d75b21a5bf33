"""Summary statistics with confidence intervals for simulated UNO rounds.

Pure numpy/pandas: no plotting here (see :mod:`unosim.reports.report`).

Input is the engine's ``records`` DataFrame (one row per round, columns ``game``, ``winner``
(-1 when the round has no winner), ``turns``, ``winner_points``, ``cards_drawn``, ``end_reason``,
``reshuffles``, ``hand_points_<seat>``) plus the run's ``meta`` dict (``players``, ``policies``,
``rules``, ``seed``, ``games``).

Conventions
-----------
* Every rate uses *all* rounds as its denominator, rounds that hit the turn cap included, so the
  seat win rates add up to ``1 - capped/games`` rather than 1.
* Proportions get a Wilson score interval; means get a normal-approximation interval with the
  sample standard deviation.  The ``se`` reported next to a proportion is the plain binomial
  ``sqrt(p (1 - p) / n)``.
* A policy's win rate is its *per-seat share*: wins / (games x seats it holds), so four seats of
  the same policy give ~0.25 each.  At most one seat wins a round, so the wins of a policy's seats
  are not independent trials; the standard error and interval are therefore computed on the
  per-round indicator "some seat of this policy won" (``games`` trials) and divided by the seat
  count.  This is exact, and narrower than naively treating ``games x seats`` as independent trials.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from statistics import NormalDist
from typing import Any

import numpy as np
import pandas as pd

__all__ = [
    "z_value",
    "mean_ci",
    "proportion_ci",
    "ratio_se",
    "players_of",
    "policies_of",
    "seat_wins",
    "capped_count",
    "seat_table",
    "policy_table",
    "summarize",
]

#: Columns of :func:`seat_table` and :func:`policy_table` (in this order, after the index).
TABLE_COLUMNS = ("rate", "se", "ci_lo", "ci_hi", "wins", "n")


def z_value(level: float = 0.95) -> float:
    """Two-sided standard-normal quantile for a confidence ``level`` (1.959964... for 0.95)."""
    if not 0.0 < level < 1.0:
        raise ValueError(f"confidence level must be in (0, 1), got {level!r}")
    return NormalDist().inv_cdf(0.5 + level / 2.0)


def mean_ci(x: Any, level: float = 0.95) -> tuple[float, float, float, float]:
    """Mean of ``x`` with a normal-approximation confidence interval.

    Returns ``(mean, se, lo, hi)`` with ``se = sd / sqrt(n)`` (sample sd, ``ddof=1``).  NaNs in
    ``x`` are ignored.  With no observations everything is NaN; with one observation the mean is
    returned and ``se``, ``lo`` and ``hi`` are NaN.
    """
    a = np.asarray(x, dtype=np.float64).ravel()
    a = a[~np.isnan(a)]
    n = a.size
    nan = float("nan")
    if n == 0:
        return nan, nan, nan, nan
    mean = float(a.mean())
    if n == 1:
        return mean, nan, nan, nan
    se = float(a.std(ddof=1)) / math.sqrt(n)
    half = z_value(level) * se
    return mean, se, mean - half, mean + half


def proportion_ci(k: Any, n: Any, level: float = 0.95) -> tuple[Any, Any, Any, Any]:
    """Proportion ``k / n`` with a Wilson score confidence interval.

    Returns ``(p, se, lo, hi)`` where ``se = sqrt(p (1 - p) / n)``.  ``k`` and ``n`` may be
    scalars (floats are returned) or array-likes of the same shape (arrays are returned).  Where
    ``n == 0`` all four values are NaN.
    """
    z = z_value(level)
    k_arr = np.asarray(k, dtype=np.float64)
    n_arr = np.asarray(n, dtype=np.float64)
    if np.any(k_arr < 0) or np.any(k_arr > n_arr):
        raise ValueError("proportion_ci needs 0 <= k <= n")
    with np.errstate(divide="ignore", invalid="ignore"):
        ok = n_arr > 0
        safe_n = np.where(ok, n_arr, 1.0)
        p = k_arr / safe_n
        se = np.sqrt(p * (1.0 - p) / safe_n)
        z2n = z * z / safe_n
        denom = 1.0 + z2n
        centre = (p + z2n / 2.0) / denom
        half = (z / denom) * np.sqrt(p * (1.0 - p) / safe_n + z2n / (4.0 * safe_n))
        lo = np.clip(centre - half, 0.0, 1.0)
        hi = np.clip(centre + half, 0.0, 1.0)
    out = tuple(np.where(ok, v, np.nan) for v in (p, se, lo, hi))
    if np.ndim(k) == 0 and np.ndim(n) == 0:
        return tuple(float(v) for v in out)  # type: ignore[return-value]
    return out


def ratio_se(num: np.ndarray, den: np.ndarray) -> tuple[float, float]:
    """Ratio estimator sum(num)/sum(den) with a cluster-robust (delta-method) standard error,
    clusters = matches (rounds within a match are not independent)."""
    m = len(num)
    if m == 0 or den.sum() == 0:
        return float("nan"), float("nan")
    r = num.sum() / den.sum()
    if m < 2:
        return float(r), float("nan")
    resid = num - r * den
    se = np.sqrt((resid ** 2).sum() / (m * (m - 1))) / den.mean()
    return float(r), float(se)


# ---- helpers on (records, meta) --------------------------------------------------------------------


def players_of(records: pd.DataFrame, meta: Mapping[str, Any]) -> int:
    """Number of seats: ``meta["players"]``, else the count of ``hand_points_*`` columns."""
    if meta.get("players") is not None:
        return int(meta["players"])
    cols = [c for c in records.columns if str(c).startswith("hand_points_")]
    if cols:
        return len(cols)
    if "policies" in meta:
        return len(meta["policies"])
    raise ValueError("cannot tell the number of players: meta has no 'players'")


def policies_of(records: pd.DataFrame, meta: Mapping[str, Any]) -> list[str]:
    """Policy name per seat as plain strings (``"?"`` for every seat when meta has none)."""
    players = players_of(records, meta)
    pols = meta.get("policies")
    if pols is None:
        return ["?"] * players
    pols = [str(p) for p in pols]
    if len(pols) != players:
        raise ValueError(f"meta['policies'] has {len(pols)} entries for {players} players")
    return pols


def seat_wins(records: pd.DataFrame, players: int) -> np.ndarray:
    """Rounds won by each seat, an int64 array of length ``players`` (capped rounds count nowhere)."""
    w = records["winner"].to_numpy()
    w = w[w >= 0].astype(np.int64, copy=False)
    if w.size and int(w.max()) >= players:
        raise ValueError(f"winner seat {int(w.max())} out of range for {players} players")
    return np.bincount(w, minlength=players)[:players].astype(np.int64)


def capped_count(records: pd.DataFrame, reason: str = "turn_cap") -> int:
    """Rounds that ended at the turn cap (``end_reason == "turn_cap"``), or matches at the round cap with
    ``reason="round_cap"``; ``winner < 0`` if the records have no such column."""
    if "end_reason" in records.columns:
        return int((records["end_reason"] == reason).sum())  # a categorical compares by its codes
    return int((records["winner"].to_numpy() < 0).sum())


def seat_table(records: pd.DataFrame, meta: Mapping[str, Any], level: float = 0.95) -> pd.DataFrame:
    """Win rate per seat with a Wilson interval.

    Index ``seat`` (0 = dealer's left, first to act).  Columns ``rate, se, ci_lo, ci_hi, wins, n``
    plus ``policy``.  ``n`` is the number of rounds, capped rounds included.
    """
    players = players_of(records, meta)
    wins = seat_wins(records, players)
    n = np.full(players, len(records), dtype=np.int64)
    p, se, lo, hi = proportion_ci(wins, n, level)
    df = pd.DataFrame(
        {"rate": p, "se": se, "ci_lo": lo, "ci_hi": hi, "wins": wins, "n": n,
         "policy": policies_of(records, meta) if meta.get("seating", "fixed") == "fixed"
         else [f"({meta['seating']})"] * players},
        index=pd.RangeIndex(players, name="seat"),
    )
    return df


def policy_table(records: pd.DataFrame, meta: Mapping[str, Any], level: float = 0.95) -> pd.DataFrame:
    """Per-seat-share win rate per policy (policies in order of first seat).

    ``rate = wins / (games x seats)``; ``n = games x seats``; extra column ``seats``.  The standard
    error and the Wilson interval come from the per-round indicator "a seat of this policy won"
    (``games`` trials, exact because at most one seat wins a round) divided by ``seats``.
    """
    pols = policies_of(records, meta)
    if "winner_policy" in records.columns:
        # seating rotate/shuffle: wins are counted by the winner's position in the policy list
        wp = records["winner_policy"].to_numpy()
        wins = np.bincount(wp[wp >= 0].astype(np.int64), minlength=len(pols))[: len(pols)]
    else:
        wins = seat_wins(records, len(pols))
    games = len(records)
    names = list(dict.fromkeys(pols))
    seats = np.array([pols.count(name) for name in names], dtype=np.int64)
    pwins = np.array([int(wins[[i for i, q in enumerate(pols) if q == name]].sum()) for name in names],
                     dtype=np.int64)
    P, se_p, lo_p, hi_p = proportion_ci(pwins, np.full(len(names), games, dtype=np.int64), level)
    return pd.DataFrame(
        {"rate": P / seats, "se": se_p / seats, "ci_lo": lo_p / seats, "ci_hi": hi_p / seats,
         "wins": pwins, "n": games * seats, "seats": seats},
        index=pd.Index(names, name="policy"),
    )


def _num(x: Any) -> float | None:
    """Plain float, or None when not finite (keeps the summary strict-JSON serialisable)."""
    if x is None:
        return None
    v = float(x)
    return v if math.isfinite(v) else None


def _nums(xs: Sequence[Any]) -> list[float | None]:
    return [_num(x) for x in xs]


def summarize(records: pd.DataFrame, meta: Mapping[str, Any]) -> dict[str, Any]:
    """One run's headline numbers as plain Python values (``json.dumps`` works, strictly).

    Keys: ``games`` (rows in ``records``), ``players``, ``rules``, ``policies``, ``seed``,
    ``mean_turns``, ``sd_turns``, ``se_turns`` (all rounds), ``seat_win_rate`` and
    ``seat_win_rate_se`` (lists by seat, denominator all rounds incl. capped),
    ``policy_win_rate`` and ``policy_win_rate_se`` (dicts, per-seat share, see module doc),
    ``mean_winner_points`` and ``se_winner_points`` (rounds that had a winner),
    ``mean_cards_drawn``, ``capped_games``.  Undefined values (no rounds, no winners) are ``None``.
    """
    players = players_of(records, meta)
    pols = policies_of(records, meta)
    turns = records["turns"].to_numpy(dtype=np.float64)
    mean_t, se_t, _, _ = mean_ci(turns)
    sd_t = float(turns.std(ddof=1)) if turns.size > 1 else float("nan")
    st = seat_table(records, meta)
    pt = policy_table(records, meta)
    has_winner = records["winner"].to_numpy() >= 0
    mean_wp, se_wp, _, _ = mean_ci(records["winner_points"].to_numpy()[has_winner])
    mean_cd = mean_ci(records["cards_drawn"].to_numpy())[0] if "cards_drawn" in records else None
    seed = meta.get("seed")
    return {
        "games": int(len(records)),
        "players": int(players),
        "rules": str(meta.get("rules", "")),
        "policies": pols,
        "seed": int(seed) if seed is not None else None,
        "mean_turns": _num(mean_t),
        "sd_turns": _num(sd_t),
        "se_turns": _num(se_t),
        "seat_win_rate": _nums(st["rate"].tolist()),
        "seat_win_rate_se": _nums(st["se"].tolist()),
        "policy_win_rate": {str(k): _num(v) for k, v in pt["rate"].items()},
        "policy_win_rate_se": {str(k): _num(v) for k, v in pt["se"].items()},
        "mean_winner_points": _num(mean_wp),
        "se_winner_points": _num(se_wp),
        "mean_cards_drawn": _num(mean_cd),
        "capped_games": capped_count(records),
    }
