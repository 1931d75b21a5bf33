"""Full games ("matches"): rounds until the scoring mode ends the game (RULES.md 1.15-1.18, 4.11,
4.20, 4.21).

Scoring modes (``scoring=``):

``standard`` (default)
    The round winner scores the points left in the other hands (RULES.md 1.15); the first to the
    target (500) wins (1.16).  With ``partners=True`` seats i and i + n/2 form a team (n even,
    n >= 4), the team scores the other teams' hands, and the team reaching the target wins (1.18;
    the team target is an Interpretation).
``self_loser``
    Everyone adds the points left in their own hand; the first to the limit (default 200) loses
    (4.20).  The reported winner is the seat with the lowest total (ties: lowest seat).
``lowest_wins``
    Own-hand scoring; when someone reaches the target, the lowest total wins (4.20).
``elimination``
    Own-hand scoring; seats at or above the target leave the table (the dealer and turn order skip
    them); the last two play by the two-player rules (1.17); the last one left wins.  Aliases:
    ``elimination_last_one``, ``elimination_final_two``, ``hp_challenge``,
    ``tournament_elimination`` (RULES.md 4.20 says they are equivalent).
``lazy``
    No running score (4.11): the round winner leads the next round, the player with the highest
    hand deals it; a match is ``rounds`` rounds (default 10) and the most round wins wins.
``rotating_partners``
    Four players; each player partners each other player for ``rounds_per_partner`` rounds (4,
    so 12 rounds); each member of the winning team is credited with that round's team score; the
    highest total wins (4.21).

The dealer passes clockwise (1.3) after every round (``dealer="clockwise"``); ``winner`` or
``loser`` keep the round's winner or its highest hand dealing.  A capped round (turn cap) scores
nothing.  ``max_rounds`` (default 1000) ends a runaway match, recorded as ``round_cap``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from . import ENGINE_VERSION, __version__, nb
from . import enums as E
from .policies import POLICIES, pack_policies, parse_policies
from .policy_api import load_policy_files, obs_buffer, run_kernel, slot_for
from .rules import RuleSet
from .sim import (
    DEFAULT_BATCH,
    SimulationError,
    SimulationResult,
    check_batch,
    check_inputs,
    check_seating,
    pack_rules,
    run_batches,
    run_meta,
    warm_up,
)
from .stats import mean_ci, proportion_ci

SCORINGS = {
    "standard": nb.SC_STANDARD,
    "self_loser": nb.SC_SELF_LOSER,
    "lowest_wins": nb.SC_LOWEST_WINS,
    "elimination": nb.SC_ELIMINATION,
    "elimination_last_one": nb.SC_ELIMINATION,
    "elimination_final_two": nb.SC_ELIMINATION,
    "hp_challenge": nb.SC_ELIMINATION,
    "tournament_elimination": nb.SC_ELIMINATION,
    "lazy": nb.SC_LAZY,
    "lazy_scoring": nb.SC_LAZY,
    "rotating_partners": nb.SC_ROTATING,
}
DEALER_RULES = ("clockwise", "winner", "loser")
MATCH_END_NAMES = ("done", "round_cap")


@dataclass(frozen=True)
class MatchSpec:
    scoring: str = "standard"
    target: int | None = None  # None: 500, or 200 for self_loser
    partners: bool = False
    max_rounds: int = 1000
    dealer: str = "clockwise"
    rounds: int | None = None  # lazy: 10; rotating partners: 3 x rounds_per_partner
    rounds_per_partner: int = 4

    def resolved_target(self) -> int:
        if self.target is not None:
            return self.target
        return 200 if self.scoring == "self_loser" else 500

    def validate(self, players: int, rules: RuleSet) -> None:
        if self.scoring not in SCORINGS:
            raise SimulationError(f"scoring={self.scoring!r} is unknown; accepted: {', '.join(SCORINGS)}")
        t = self.resolved_target()
        if not isinstance(t, (int, np.integer)) or t <= 0:
            raise SimulationError(f"target={self.target!r} is not positive; accepted: a positive integer")
        if self.max_rounds < 1:
            raise SimulationError(f"max_rounds={self.max_rounds!r} is not positive; accepted: a positive integer")
        if self.dealer not in DEALER_RULES:
            raise SimulationError(f"dealer={self.dealer!r} is unknown; accepted: {', '.join(DEALER_RULES)}")
        if self.dealer != "clockwise":
            raise SimulationError(f"dealer={self.dealer!r} is not simulated yet; accepted: clockwise "
                                  "(lazy scoring sets its own dealer)")
        if self.partners:
            if self.scoring != "standard":
                raise SimulationError(f"partners with scoring={self.scoring!r} is not defined; accepted: "
                                      "partners with standard scoring")
            if players < 4 or players % 2:
                raise SimulationError(f"partners need an even number of players >= 4, got players={players}; "
                                      "accepted: 4, 6, 8, 10")
        if self.scoring == "rotating_partners" and players != 4:
            raise SimulationError(f"rotating_partners is simulated for 4 players, got players={players}; "
                                  "accepted: 4 (the 8-player two-table schedule is not in the sources)")
        if rules.play_to_last or rules.uno_seven_rounds:
            raise SimulationError("play_to_last / uno_seven_rounds rounds have no points to score; accepted: "
                                  "--mode round with those rules")

    def pack(self, seating: int) -> np.ndarray:
        mi = np.zeros(nb.NMI, np.int64)
        mi[nb.MI_MODE] = SCORINGS[self.scoring]
        mi[nb.MI_TARGET] = self.resolved_target()
        mi[nb.MI_PARTNERS] = int(self.partners)
        mi[nb.MI_MAX_ROUNDS] = self.max_rounds
        mi[nb.MI_SEATING] = seating
        mi[nb.MI_DEALER_RULE] = DEALER_RULES.index(self.dealer)
        default_rounds = 10 if self.scoring in ("lazy", "lazy_scoring") else 3 * self.rounds_per_partner
        mi[nb.MI_ROUNDS] = self.rounds if self.rounds is not None else default_rounds
        mi[nb.MI_PER_PARTNER] = self.rounds_per_partner
        return mi


def _ratio_se(num: np.ndarray, den: np.ndarray) -> tuple[float, float]:
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


def summarize_matches(records: pd.DataFrame, meta: dict[str, Any]) -> dict[str, Any]:
    n = int(meta["players"])
    pols = list(meta["policies"])
    m = len(records)
    rounds = records["rounds"].to_numpy(np.float64)
    mean_r, se_r, _, _ = mean_ci(rounds)
    winners = records["winner"].to_numpy()
    seat_w = np.bincount(winners[winners >= 0].astype(np.int64), minlength=n)[:n]
    p, se, _, _ = proportion_ci(seat_w, np.full(n, m))
    wpol = records["winner_policy"].to_numpy()
    pol_w = np.bincount(wpol[wpol >= 0].astype(np.int64), minlength=n)[:n]
    names = list(dict.fromkeys(pols))
    seat_idx = {nm: [i for i, q in enumerate(pols) if q == nm] for nm in names}
    pmw, pmw_se, prw, prw_se = {}, {}, {}, {}
    rw = records[[f"round_wins_{s}" for s in range(n)]].to_numpy(np.float64)
    sm = records[[f"policy_at_seat_{s}" for s in range(n)]].to_numpy()
    for nm in names:
        k = len(seat_idx[nm])
        wins = int(pol_w[seat_idx[nm]].sum())
        pr, pse, _, _ = proportion_ci(wins, m)
        pmw[nm], pmw_se[nm] = float(pr) / k, float(pse) / k
        mine = np.isin(sm, seat_idx[nm])
        r, rse = _ratio_se((rw * mine).sum(axis=1), rounds * k)
        prw[nm], prw_se[nm] = r, rse
    seat_rw = [_ratio_se(rw[:, s], rounds) for s in range(n)]
    scores = records[[f"score_{s}" for s in range(n)]].to_numpy(np.float64)

    def num(x: float) -> float | None:
        return None if x is None or not np.isfinite(x) else float(x)

    return {
        "mode": "match",
        "games": m,
        "players": n,
        "rules": meta["rules"],
        "policies": pols,
        "seating": meta["seating"],
        "scoring": meta["scoring"],
        "target": meta["target"],
        "seed": meta["seed"],
        "mean_rounds": num(mean_r),
        "sd_rounds": num(float(rounds.std(ddof=1)) if m > 1 else float("nan")),
        "se_rounds": num(se_r),
        "mean_turns_per_match": num(float(records["turns"].mean())),
        "seat_match_win_rate": [num(x) for x in np.atleast_1d(p)],
        "seat_match_win_rate_se": [num(x) for x in np.atleast_1d(se)],
        "policy_match_win_rate": {k: num(v) for k, v in pmw.items()},
        "policy_match_win_rate_se": {k: num(v) for k, v in pmw_se.items()},
        "seat_round_win_rate": [num(r) for r, _ in seat_rw],
        "seat_round_win_rate_se": [num(s) for _, s in seat_rw],
        "policy_round_win_rate": {k: num(v) for k, v in prw.items()},
        "policy_round_win_rate_se": {k: num(v) for k, v in prw_se.items()},
        "mean_final_score_by_seat": [num(x) for x in scores.mean(axis=0)] if m else [None] * n,
        "capped_matches": int((records["end_reason"].astype(object) == "round_cap").sum()),
    }


def simulate_matches(rules: str | RuleSet = "official", players: int = 4, policies: str | list[str] = "random",
                     games: int = 1000, seed: int = 0, threads: int | None = None, deck: str = "classic",
                     batch_size: int | None = None, progress: bool = False, seating: str = "fixed",
                     scoring: str = "standard", target: int | None = None, partners: bool = False,
                     max_rounds: int = 1000, dealer: str = "clockwise", rounds: int | None = None,
                     rounds_per_partner: int = 4, round_records: bool = False,
                     policy_files: list[str] | str | None = None) -> SimulationResult:
    """Play ``games`` full matches.  Same seed, same matches, for any thread count or batch size."""
    n, g, t, seed, rs, dk = check_inputs(rules, players, games, seed, threads, deck)
    files = load_policy_files(policy_files)
    specs = parse_policies(policies, n)
    if any(POLICIES[s.name].pid == E.POL_EXTERNAL for s in specs):
        raise SimulationError("plain-Python policies play --mode round only; accepted: numba policies "
                              "(unosim.policy_api) in match mode")
    spec = MatchSpec(scoring, target, bool(partners), int(max_rounds), dealer, rounds, int(rounds_per_partner))
    spec.validate(n, rs)
    sm = check_seating(seating)
    ri, rf = pack_rules(rs, dk)
    pol, pp = pack_policies(specs)
    slot = slot_for(pol)
    mi = spec.pack(sm)
    bs = check_batch(batch_size, max(50, min(DEFAULT_BATCH // 20, -(-g // (4 * t)))))
    compile_s = warm_up(n, dk, kind="match")
    out = {
        "winner": np.empty(g, np.int16), "rounds": np.empty(g, np.int32), "end": np.empty(g, np.int8),
        "scores": np.empty((g, n), np.int64), "rwins": np.empty((g, n), np.int32),
        "seatmap": np.empty((g, n), np.int16), "turns": np.empty(g, np.int64),
    }
    no_rounds = np.zeros((0, 7), np.int64)
    no_off = np.zeros(0, np.int64)

    def work(lo: int, hi: int) -> None:
        run_kernel(nb.play_match_batch_nb, (lo, hi - lo, np.uint64(seed), n, dk.face_color, dk.face_rank,
                                            dk.face_points, ri, rf, pol, pp, mi, int(dk.random_pairing),
                                            out["winner"][lo:hi], out["rounds"][lo:hi], out["end"][lo:hi],
                                            out["scores"][lo:hi], out["rwins"][lo:hi], out["seatmap"][lo:hi],
                                            out["turns"][lo:hi], no_off, no_rounds), dk, slot, specs)

    done, interrupted, elapsed = run_batches(g, bs, t, work, progress, "matches")
    sel = {k: v[done] for k, v in out.items()} if interrupted else out
    idx = np.flatnonzero(done) if interrupted else np.arange(g)
    winner = sel["winner"].astype(np.int64)
    wpol = np.where(winner >= 0, np.take_along_axis(sel["seatmap"].astype(np.int64),
                                                    np.maximum(winner, 0)[:, None], axis=1)[:, 0], -1)
    rec = pd.DataFrame({
        "match": idx.astype(np.int64),
        "winner": sel["winner"],
        "winner_policy": wpol.astype(np.int16),
        "rounds": sel["rounds"],
        "turns": sel["turns"],
        "end_reason": pd.Categorical.from_codes(sel["end"].astype(np.int8), categories=list(MATCH_END_NAMES)),
    })
    for s in range(n):
        rec[f"score_{s}"] = sel["scores"][:, s]
    for s in range(n):
        rec[f"round_wins_{s}"] = sel["rwins"][:, s]
    for s in range(n):
        rec[f"policy_at_seat_{s}"] = sel["seatmap"][:, s]
    meta = run_meta(rs, n, specs, seed, g, dk, t, bs)
    meta.update({"mode": "match", "seating": seating, "scoring": scoring, "target": spec.resolved_target(),
                 "partners": bool(partners), "max_rounds": int(max_rounds), "dealer": dealer,
                 "rounds": int(mi[nb.MI_ROUNDS]), "rounds_per_partner": int(rounds_per_partner),
                 "games_completed": int(len(rec)), "interrupted": interrupted})
    if files:
        meta["policy_files"] = files
    summary = summarize_matches(rec, meta) if len(rec) else {"games": 0}
    summary.update({"deck": dk.name, "games_per_second": len(rec) / elapsed if elapsed > 0 else None,
                    "compile_seconds": round(compile_s, 4), "threads": t, "engine_version": ENGINE_VERSION,
                    "unosim_version": __version__})
    extra: dict[str, Any] = {}
    if round_records and len(rec):
        extra["rounds"] = round_records_frame(sel, idx, seed, n, dk, ri, rf, pol, pp, mi, slot)
    return SimulationResult(rec, summary, meta, interrupted, extra)


def round_records_frame(sel, idx, seed, n, dk, ri, rf, pol, pp, mi, slot) -> pd.DataFrame:
    """Per-round records of the given matches, replayed deterministically (same seeds) into exact-size
    buffers: one row per round (match, round, dealer, winner, winner_points, turns, capped)."""
    rounds = sel["rounds"].astype(np.int64)
    frames = []
    # replay contiguous runs of match indices (interrupted runs may have gaps)
    breaks = np.flatnonzero(np.diff(idx) != 1) + 1
    for part in np.split(np.arange(len(idx)), breaks):
        if not len(part):
            continue
        lo, cnt = int(idx[part[0]]), len(part)
        off = np.concatenate([[0], np.cumsum(rounds[part])[:-1]]).astype(np.int64)
        buf = np.zeros((int(rounds[part].sum()), 7), np.int64)
        tmp = {k: np.empty((cnt,) + v.shape[1:], v.dtype) for k, v in sel.items()}
        nb.play_match_batch_nb(lo, cnt, np.uint64(seed), n, dk.face_color, dk.face_rank, dk.face_points,
                               ri, rf, pol, pp, mi, int(dk.random_pairing), tmp["winner"], tmp["rounds"], tmp["end"],
                               tmp["scores"],
                               tmp["rwins"], tmp["seatmap"], tmp["turns"], off, buf, np.full(4, -1, np.int64),
                               obs_buffer(dk), slot)
        frames.append(buf)
    allr = np.concatenate(frames) if frames else np.zeros((0, 7), np.int64)
    df = pd.DataFrame(allr, columns=["match", "round", "dealer", "winner", "winner_points", "turns", "capped"])
    return df.astype({"round": np.int32, "dealer": np.int16, "winner": np.int16, "winner_points": np.int32,
                      "turns": np.int32, "capped": bool})
