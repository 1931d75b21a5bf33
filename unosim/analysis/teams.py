"""Match results by team (``--partners``, docs/rules.md 1.18) and the individual-score note (4.21).

In partners mode (standard scoring, n even, n >= 4) seats ``t`` and ``t + n/2`` are team ``t``
(``team = seat % (n/2)``) and share one score; a match is won by a *team*.  The seat that went out
in the deciding round only finished its team's win, so per-seat match "win" rates are relabelled
here (``seat_went_out_deciding_round``) and the per-seat policy match win rate, which would credit
a team's win to one partner's policy, is left out.  Policies are compared by *team composition*
instead: the multiset of policy names on each team, e.g. ``greedy+greedy vs random+random``.

Conventions (as for seats and policies in :mod:`unosim.running.match`):

* Every match is in the denominator, matches stopped at ``max_rounds`` (``round_cap``, no winner)
  included, so team match win rates add up to ``1 - capped_matches / games``.
* Match win rates get a Wilson interval (:func:`unosim.analysis.stats.proportion_ci`); round win rates the
  cluster-robust ratio error (:func:`unosim.analysis.stats.ratio_se`, clusters = matches).
* A composition held by ``k`` teams of a line-up (e.g. ``greedy+random vs greedy+random``, k = 2)
  reports its *per-team share*: wins / (matches x k), with the error and interval of the per-match
  indicator "a team of this composition won" divided by ``k``.

``rotating_partners`` (4.21) changes partners every few rounds and each player keeps their own
score, so its results stay per player; the summary says so (``individual_scores``,
``scoring_note``).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping
from typing import Any

import numpy as np
import pandas as pd

from .stats import _num, _nums, mean_ci, proportion_ci, ratio_se

ROTATING_NOTE = ("individual scores: partners change every {k} rounds and each player keeps their own "
                 "score, so every result is per player")
#: summary keys that would credit a team's match win to one seat or one policy
SOLO_MATCH_KEYS = ("policy_match_win_rate", "policy_match_win_rate_se", "policy_match_win_rate_ci")
SEAT_KEYS_RENAMED = {"seat_match_win_rate": "seat_went_out_deciding_round",
                     "seat_match_win_rate_se": "seat_went_out_deciding_round_se"}


def team_seats(n: int) -> list[list[int]]:
    """Seats of each team: ``[[0, n/2], [1, n/2 + 1], ...]``."""
    half = n // 2
    return [[t, t + half] for t in range(half)]


def add_team_columns(records: pd.DataFrame, n: int) -> None:
    """Add ``winner_team`` (-1: no winner) and ``team_score_<t>`` to partners-mode match records."""
    half = n // 2
    w = records["winner"].to_numpy()
    records["winner_team"] = np.where(w >= 0, w % half, -1).astype(np.int16)
    for t in range(half):
        records[f"team_score_{t}"] = records[f"score_{t}"]


def _seat_maps(records: pd.DataFrame, n: int) -> np.ndarray:
    return records[[f"policy_at_seat_{s}" for s in range(n)]].to_numpy(np.int64)


def _compositions(seat_map: np.ndarray, pols: list[str], half: int) -> list[str]:
    """Each team's composition ("a+b", names sorted) for one match's seat map."""
    return ["+".join(sorted((pols[seat_map[t]], pols[seat_map[t + half]]))) for t in range(half)]


def line_up_name(compositions: list[str]) -> str:
    """``"greedy+greedy vs random+random"``: the teams' compositions, sorted."""
    return " vs ".join(sorted(compositions))


def composition_rows(records: pd.DataFrame, meta: Mapping[str, Any]) -> list[dict[str, Any]]:
    """Match win rate per team composition within each line-up (see the module conventions).

    One row per (line-up, composition): ``line_up``, ``team`` (the composition), ``teams`` (how
    many teams of the line-up have it), ``matches`` (matches played with this line-up), ``wins``,
    ``win_rate``, ``win_rate_se``, ``ci_lo``, ``ci_hi`` (95% Wilson).  Line-ups with the most
    matches come first; under ``--seating rotate/shuffle`` one line-up appears in several seat
    orders and is counted together.
    """
    n = int(meta["players"])
    half = n // 2
    pols = [str(p) for p in meta["policies"]]
    uniq, inv = np.unique(_seat_maps(records, n), axis=0, return_inverse=True)
    inv = np.asarray(inv).ravel()
    comps = [_compositions(row, pols, half) for row in uniq]
    names = list(dict.fromkeys(c for cs in comps for c in cs))
    comp_id = np.array([[names.index(c) for c in cs] for cs in comps], np.int64).reshape(len(uniq), half)
    line_ups = [line_up_name(cs) for cs in comps]
    lu_names = list(dict.fromkeys(line_ups))
    match_lu = np.array([lu_names.index(lu) for lu in line_ups], np.int64)[inv]
    winner = records["winner"].to_numpy().astype(np.int64)
    won = winner >= 0
    win_comp = np.full(len(records), -1, np.int64)
    win_comp[won] = comp_id[inv[won], winner[won] % half]
    counts = np.bincount(match_lu, minlength=len(lu_names))
    rows = []
    for j in sorted(range(len(lu_names)), key=lambda j: (-counts[j], lu_names[j])):
        in_lu = match_lu == j
        for comp, k in Counter(lu_names[j].split(" vs ")).items():
            wins = int((in_lu & (win_comp == names.index(comp))).sum())
            p, se, lo, hi = proportion_ci(wins, int(counts[j]))
            rows.append({"line_up": lu_names[j], "team": comp, "teams": int(k), "matches": int(counts[j]),
                         "wins": wins, "win_rate": _num(p / k), "win_rate_se": _num(se / k),
                         "ci_lo": _num(lo / k), "ci_hi": _num(hi / k)})
    return rows


def team_summary(records: pd.DataFrame, meta: Mapping[str, Any]) -> dict[str, Any]:
    """The partners-mode summary keys (``team_*``), lists indexed by team (see the module doc)."""
    n = int(meta["players"])
    half = n // 2
    m = len(records)
    pols = [str(p) for p in meta["policies"]]
    winner = records["winner"].to_numpy().astype(np.int64)
    wins = np.bincount(winner[winner >= 0] % half, minlength=half)[:half]
    p, se, lo, hi = proportion_ci(wins, np.full(half, m))
    rounds = records["rounds"].to_numpy(np.float64)
    rw = records[[f"round_wins_{s}" for s in range(n)]].to_numpy(np.float64)
    team_rw = [ratio_se(rw[:, t] + rw[:, t + half], rounds) for t in range(half)]
    scores = records[[f"score_{t}" for t in range(half)]].to_numpy(np.float64)  # = score_{t + half}
    team_sc = [mean_ci(scores[:, t])[:2] for t in range(half)]
    fixed = meta.get("seating", "fixed") == "fixed"
    return {
        "teams": half,
        "team_seats": team_seats(n),
        "team_policies": [[pols[a], pols[b]] for a, b in team_seats(n)] if fixed else None,
        "team_match_win_rate": _nums(p),
        "team_match_win_rate_se": _nums(se),
        "team_match_win_rate_ci": [_nums(c) for c in zip(lo, hi, strict=True)],
        "team_round_win_rate": _nums(r for r, _ in team_rw),
        "team_round_win_rate_se": _nums(s for _, s in team_rw),
        "team_mean_final_score": _nums(x for x, _ in team_sc),
        "team_mean_final_score_se": _nums(s for _, s in team_sc),
        "team_composition_match_win_rate": composition_rows(records, meta),
    }


def with_teams(summary: dict[str, Any], records: pd.DataFrame, meta: Mapping[str, Any]) -> dict[str, Any]:
    """The match summary organised by team in partners mode; elsewhere marked as individual scores.

    Partners: the per-seat match win rate becomes ``seat_went_out_deciding_round`` (same values),
    the per-seat policy match win rate is dropped, and :func:`team_summary`'s keys are added.
    """
    partners = bool(meta.get("partners"))
    if not partners:
        out = {**summary, "partners": False, "individual_scores": True}
        if meta.get("scoring") == "rotating_partners":
            out["scoring_note"] = ROTATING_NOTE.format(k=int(meta.get("rounds_per_partner", 4)))
        return out
    out = {SEAT_KEYS_RENAMED.get(k, k): v for k, v in summary.items() if k not in SOLO_MATCH_KEYS}
    out.update({"partners": True, "individual_scores": False})
    out.update(team_summary(records, meta))
    return out
