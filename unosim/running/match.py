"""Full games ("matches"): rounds until the scoring mode ends the game (docs/rules.md 1.15-1.18, 4.11,
4.20, 4.21).

Scoring modes (``scoring=``):

``standard`` (default)
    The round winner scores the points left in the other hands (docs/rules.md 1.15); the first to the
    target (500) wins (1.16).  With ``partners=True`` seats i and i + n/2 form a team (n even,
    n >= 4), the team scores the other teams' hands, and the team reaching the target wins (1.18;
    the team target is an Interpretation).
``self_loser``
    Everyone adds the points left in their own hand; the first to the limit (default 200) loses
    (4.20) and every other seat wins.  The records' ``loser`` is that seat and the summary's
    ``seat_avoided_loss_rate`` the share of matches each seat finished without losing; ``winner``
    keeps its old meaning, the seat with the lowest total (ties: lowest seat).  See docs/scoring.md.
``lowest_wins``
    Own-hand scoring; when someone reaches the target, the lowest total wins (4.20).
``elimination``
    Own-hand scoring; seats at or above the target leave the table (the dealer and turn order skip
    them); the last two play by the two-player rules (1.17); the last one left wins.  Aliases:
    ``elimination_last_one``, ``elimination_final_two``, ``hp_challenge``,
    ``tournament_elimination`` (docs/rules.md 4.20 says they are equivalent).
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

from .. import ENGINE_VERSION, __version__
from ..analysis.stats import capped_count, mean_ci, proportion_ci
from ..analysis.stats import ratio_se as _ratio_se
from ..analysis.teams import add_team_columns, with_teams
from ..console import compile_seconds
from ..core import enums as E
from ..errors import SimulationError
from ..players.plugins import as_names, load_files
from ..players.policies import pack_policies, parse_policies, replays
from ..ruleset.rules import RuleSet
from ..validate import (
    SEATINGS,
    boolean,
    check_batch,
    check_first,
    check_progress,
    check_seating,
    choice,
    integer,
    known_options,
    optional_integer,
)
from .rounds import (
    SIMULATE_OPTIONS,
    RoundRun,
    SimulationResult,
    check_inputs,
    default_batch,
    pack_rules,
    run_batches,
    warm_up,
)

SCORINGS = {
    "standard": E.SC_STANDARD,
    "self_loser": E.SC_SELF_LOSER,
    "lowest_wins": E.SC_LOWEST_WINS,
    "elimination": E.SC_ELIMINATION,
    "elimination_last_one": E.SC_ELIMINATION,
    "elimination_final_two": E.SC_ELIMINATION,
    "hp_challenge": E.SC_ELIMINATION,
    "tournament_elimination": E.SC_ELIMINATION,
    "lazy": E.SC_LAZY,
    "lazy_scoring": E.SC_LAZY,
    "rotating_partners": E.SC_ROTATING,
}
DEALER_RULES = ("clockwise", "winner", "loser")
MATCH_END_NAMES = ("done", "round_cap")


#: match options of simulate(mode="match") (see the module docstring)
MATCH_OPTIONS = ("scoring", "target", "partners", "max_rounds", "dealer", "rounds", "rounds_per_partner",
                 "round_records")
# Round k of match m is seeded from (seed, m * 65536 + k): more rounds would reuse the next match's seeds.
MAX_MATCH_ROUNDS = 65536
MAX_TARGET = 10**9
_FIXED_LENGTH = ("lazy", "lazy_scoring", "rotating_partners")


@dataclass(frozen=True)
class MatchSpec:
    scoring: str = "standard"
    target: int | None = None  # None: 500, or 200 for self_loser
    partners: bool = False
    max_rounds: int = 1000
    dealer: str = "clockwise"
    rounds: int | None = None  # lazy: 10; rotating partners: 3 x rounds_per_partner
    rounds_per_partner: int | None = None  # rotating partners: 4

    @classmethod
    def checked(cls, players: int, rules: RuleSet, scoring: Any = "standard", target: Any = None,
                partners: Any = False, max_rounds: Any = 1000, dealer: Any = "clockwise", rounds: Any = None,
                rounds_per_partner: Any = None) -> MatchSpec:
        """The match options, each checked for type and range, then as a combination."""
        spec = cls(choice("scoring", scoring, SCORINGS),
                   optional_integer("target", target, 1, MAX_TARGET),
                   boolean("partners", partners),
                   integer("max_rounds", max_rounds, 1, MAX_MATCH_ROUNDS),
                   choice("dealer", dealer, DEALER_RULES),
                   optional_integer("rounds", rounds, 1, MAX_MATCH_ROUNDS),
                   optional_integer("rounds_per_partner", rounds_per_partner, 1, MAX_MATCH_ROUNDS))
        spec.validate(players, rules)
        return spec

    def resolved_target(self) -> int:
        if self.target is not None:
            return self.target
        return 200 if self.scoring == "self_loser" else 500

    def resolved_rounds(self) -> int:
        """Rounds of a fixed-length match (lazy: 10; rotating partners: 3 x rounds_per_partner)."""
        if self.rounds is not None:
            return self.rounds
        if self.scoring in ("lazy", "lazy_scoring"):
            return 10
        return 3 * self.resolved_per_partner()

    def resolved_per_partner(self) -> int:
        return 4 if self.rounds_per_partner is None else self.rounds_per_partner

    def target_option(self) -> int | None:
        """The target as a run's metadata records it: ``None`` for scorings of a fixed number of rounds."""
        return None if self.scoring in _FIXED_LENGTH else self.resolved_target()

    def meta(self) -> dict[str, Any]:
        """The match options as a run's metadata (and a store cell's key) records them."""
        return {"scoring": self.scoring, "target": self.target_option(), "partners": self.partners,
                "max_rounds": self.max_rounds, "dealer": self.dealer, **self.fixed_length_options()}

    def fixed_length_options(self) -> dict[str, int | None]:
        """``rounds`` and ``rounds_per_partner`` as a run's metadata records them: resolved where the
        scoring uses them, ``None`` where it does not."""
        return {"rounds": self.resolved_rounds() if self.scoring in _FIXED_LENGTH else None,
                "rounds_per_partner": self.resolved_per_partner() if self.scoring == "rotating_partners" else None}


    def validate(self, players: int, rules: RuleSet) -> None:
        if self.scoring not in SCORINGS:
            raise SimulationError(f"scoring={self.scoring!r} is unknown; accepted: {', '.join(SCORINGS)}")
        if self.dealer != "clockwise":
            raise SimulationError(f"dealer={self.dealer!r} is not simulated yet; accepted: clockwise "
                                  "(lazy scoring sets its own dealer)")
        if self.target is not None and self.scoring in _FIXED_LENGTH:
            raise SimulationError(f"target={self.target} does nothing with scoring={self.scoring!r}, whose matches "
                                  "last a fixed number of rounds; accepted: drop target, or set rounds")
        if self.rounds is not None and self.scoring not in _FIXED_LENGTH:
            raise SimulationError(f"rounds={self.rounds} applies to scoring=lazy or rotating_partners only, "
                                  f"not scoring={self.scoring!r}; accepted: drop rounds, or use one of those")
        if self.rounds_per_partner is not None and self.scoring != "rotating_partners":
            raise SimulationError(f"rounds_per_partner={self.rounds_per_partner} applies to "
                                  f"scoring=rotating_partners only, not scoring={self.scoring!r}; accepted: drop it")
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
        mi = np.zeros(E.NMI, np.int64)
        mi[E.MI_MODE] = SCORINGS[self.scoring]
        mi[E.MI_TARGET] = self.resolved_target()
        mi[E.MI_PARTNERS] = int(self.partners)
        mi[E.MI_MAX_ROUNDS] = self.max_rounds
        mi[E.MI_SEATING] = seating
        mi[E.MI_DEALER_RULE] = DEALER_RULES.index(self.dealer)
        mi[E.MI_ROUNDS] = self.resolved_rounds()
        mi[E.MI_PER_PARTNER] = self.resolved_per_partner()
        return mi


def scoring_text(scoring: str, target: int | None) -> str:
    """``"standard to 500"``; ``"lazy"`` for a scoring without a target."""
    return scoring if target is None else f"{scoring} to {target}"


def applicable_options(options: dict[str, Any]) -> dict[str, Any]:
    """The match options of a saved run that apply to its scoring (the metadata of older runs recorded
    ``target``, ``rounds`` and ``rounds_per_partner`` for every scoring)."""
    scoring = options.get("scoring", "standard")
    out = {k: v for k, v in options.items() if v is not None}
    if scoring in _FIXED_LENGTH:
        out.pop("target", None)
    else:
        out.pop("rounds", None)
    if scoring != "rotating_partners":
        out.pop("rounds_per_partner", None)
    return out



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
    pmw, pmw_se, pmw_ci, prw, prw_se = {}, {}, {}, {}, {}
    rw = records[[f"round_wins_{s}" for s in range(n)]].to_numpy(np.float64)
    sm = records[[f"policy_at_seat_{s}" for s in range(n)]].to_numpy()
    for nm in names:
        k = len(seat_idx[nm])
        wins = int(pol_w[seat_idx[nm]].sum())
        pr, pse, plo, phi = proportion_ci(wins, m)
        pmw[nm], pmw_se[nm], pmw_ci[nm] = float(pr) / k, float(pse) / k, [plo / k, phi / k]
        mine = np.isin(sm, seat_idx[nm])
        r, rse = _ratio_se((rw * mine).sum(axis=1), rounds * k)
        prw[nm], prw_se[nm] = r, rse
    seat_rw = [_ratio_se(rw[:, s], rounds) for s in range(n)]
    scores = records[[f"score_{s}" for s in range(n)]].to_numpy(np.float64)

    def num(x: float) -> float | None:
        return None if x is None or not np.isfinite(x) else float(x)

    summary = {
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
        "policy_match_win_rate_ci": {k: [num(x) for x in v] for k, v in pmw_ci.items()},
        "seat_round_win_rate": [num(r) for r, _ in seat_rw],
        "seat_round_win_rate_se": [num(s) for _, s in seat_rw],
        "policy_round_win_rate": {k: num(v) for k, v in prw.items()},
        "policy_round_win_rate_se": {k: num(v) for k, v in prw_se.items()},
        "mean_final_score_by_seat": [num(x) for x in scores.mean(axis=0)] if m else [None] * n,
        "capped_matches": capped_count(records, "round_cap"),
    }
    if "loser" in records:
        summary.update(avoided_loss(records, n, pols))
    return with_teams(summary, records, meta)




@dataclass(frozen=True)
class MatchRun(RoundRun):
    """A validated match-mode run: the arguments every run has, plus the match options."""

    spec: MatchSpec
    round_records: bool

    def execute(self, summarize: bool = True) -> SimulationResult:
        return run_matches(self, summarize)

    def mode_meta(self) -> dict[str, Any]:
        return {"mode": "match", "seating": self.seating, **self.spec.meta()}


def check_matches(rules: str | RuleSet = "official", players: int = 4, policies: str | list[str] = "greedy",
                  games: int = 1000, seed: int = 0, threads: int | None = None, deck: str = "classic",
                  batch_size: int | None = None, progress: bool = False, seating: str = "fixed",
                  first: int = 0, policy_files: list[str] | str | None = None, **options: Any) -> MatchRun:
    """Check every argument of :func:`simulate_matches` without running anything."""
    known_options(options, SIMULATE_OPTIONS + MATCH_OPTIONS, "simulate")
    round_records = boolean("round_records", options.pop("round_records", False))
    n, g, t, seed, rs, dk = check_inputs(rules, players, games, seed, threads, deck, mode="match",
                                         round_records=round_records)
    files = load_files(policy_files)
    specs = parse_policies(as_names(policies), n)
    stepped = [sp.name for sp in specs if replays(sp.name)]
    if stepped and round_records:
        raise SimulationError(f"policy {stepped[0]!r} reads the engine's state, and its matches are played step by "
                              "step without round records; accepted: drop round_records (--round-records)")
    spec = MatchSpec.checked(n, rs, **options)
    seating_name = SEATINGS[check_seating(seating)]
    bs = check_batch(batch_size, default_batch("match", g, t, slow=bool(stepped)))
    return MatchRun(n, g, seed, t, rs, dk, specs, seating_name, bs, check_progress(progress), spec, round_records,
                    first=check_first(first, g), policy_files=tuple(files))


def simulate_matches(rules: str | RuleSet = "official", players: int = 4, policies: str | list[str] = "greedy",
                     games: int = 1000, seed: int = 0, threads: int | None = None, deck: str = "classic",
                     batch_size: int | None = None, progress: bool = False, seating: str = "fixed",
                     first: int = 0, policy_files: list[str] | str | None = None, **options: Any
                     ) -> SimulationResult:
    """Play ``games`` full matches.  Same seed, same matches, for any thread count or batch size.

    ``options``: ``scoring``, ``target``, ``partners``, ``max_rounds``, ``dealer``, ``rounds``,
    ``rounds_per_partner``, ``round_records`` (see the module docstring).  ``first``: play matches
    first .. first+games-1 (see :func:`unosim.running.sim.simulate`)."""
    return check_matches(rules=rules, players=players, policies=policies, games=games, seed=seed,
                         threads=threads, deck=deck, batch_size=batch_size, progress=progress, seating=seating,
                         first=first, policy_files=policy_files, **options).execute()


def run_matches(run: MatchRun, summarize: bool = True) -> SimulationResult:
    """Play a validated match-mode run (see :func:`simulate_matches`)."""
    from ..core import nb
    from ..players.policy_api import run_kernel, slot_for
    from .steps import run_external_match_batch

    n, g, t, seed, rs, dk, specs, spec, bs, first = (run.players, run.games, run.threads, run.seed, run.rules,
                                                     run.deck, run.specs, run.spec, run.batch_size, run.first)
    sm = SEATINGS.index(run.seating)
    ri, rf = pack_rules(rs, dk)
    pol, pp = pack_policies(specs)
    c0 = compile_seconds()  # every compile or cache load of this run: the policy slot's and the kernel's
    slot = slot_for(pol)
    mi = spec.pack(sm)
    warm_up(n, dk, kind="match")
    compile_s = compile_seconds() - c0
    out = alloc_matches(g, n)
    no_rounds = np.zeros((0, 7), np.int64)
    no_off = np.zeros(0, np.int64)

    stepped = any(replays(sp.name) for sp in specs)

    def work(lo: int, hi: int) -> None:
        if stepped:  # plain-Python seats that read the engine's state (lookahead): step by step (unosim.running.steps)
            run_external_match_batch(out, lo, hi, seed, n, dk, ri, rf, pol, pp, mi, slot, specs, first)
            return
        run_kernel(nb.play_match_batch_nb, (first + lo, hi - lo, np.uint64(seed), n, dk.face_color, dk.face_rank,
                                            dk.face_points, ri, rf, pol, pp, mi, int(dk.random_pairing),
                                            out["winner"][lo:hi], out["rounds"][lo:hi], out["end"][lo:hi],
                                            out["scores"][lo:hi], out["rwins"][lo:hi], out["seatmap"][lo:hi],
                                            out["turns"][lo:hi], no_off, no_rounds), dk, slot, specs)

    done, interrupted, elapsed = run_batches(g, bs, t, work, run.progress, "matches")
    sel = {k: v[done] for k, v in out.items()} if interrupted else out
    idx = (np.flatnonzero(done) if interrupted else np.arange(g)) + first
    rec = match_records(sel, idx, n, spec)
    meta = run.meta(len(rec), interrupted)
    summary = match_summary(rec, meta, elapsed, compile_s)
    extra: dict[str, Any] = {}
    if run.round_records and len(rec):
        extra["rounds"] = round_records_frame(sel, idx, seed, n, dk, ri, rf, pol, pp, mi, slot)
    return SimulationResult(rec, summary, meta, interrupted, extra)


def alloc_matches(g: int, n: int) -> dict[str, np.ndarray]:
    """The match kernel's outputs for ``g`` matches of ``n`` seats."""
    return {"winner": np.empty(g, np.int16), "rounds": np.empty(g, np.int32), "end": np.empty(g, np.int8),
            "scores": np.empty((g, n), np.int64), "rwins": np.empty((g, n), np.int32),
            "seatmap": np.empty((g, n), np.int16), "turns": np.empty(g, np.int64)}


def match_records(sel: dict[str, np.ndarray], idx: np.ndarray, n: int, spec: MatchSpec) -> pd.DataFrame:
    """The per-match records from the match kernel's outputs ``sel`` (winner, rounds, end, scores, rwins,
    seatmap, turns; one row per match, global indices ``idx``)."""
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
    if spec.scoring == "self_loser":
        add_loser_columns(rec, sel)
    for s in range(n):
        rec[f"score_{s}"] = sel["scores"][:, s]
    for s in range(n):
        rec[f"round_wins_{s}"] = sel["rwins"][:, s]
    for s in range(n):
        rec[f"policy_at_seat_{s}"] = sel["seatmap"][:, s]
    if spec.partners:
        add_team_columns(rec, n)
    return rec


def add_loser_columns(rec: pd.DataFrame, sel: dict[str, np.ndarray]) -> None:
    """self_loser (docs/rules.md 4.20): the first to the limit loses and every other seat wins.  ``loser``: the
    seat with the highest final total of a finished match (the one that reached the limit; when several
    cross it in the same round, the highest total, ties to the lowest seat); -1 for a match stopped at
    max_rounds.  ``loser_policy``: the policy in that seat (-1 likewise)."""
    done = sel["end"] == MATCH_END_NAMES.index("done")
    loser = np.where(done, np.argmax(sel["scores"], axis=1), -1).astype(np.int64)
    lpol = np.where(loser >= 0, np.take_along_axis(sel["seatmap"].astype(np.int64),
                                                   np.maximum(loser, 0)[:, None], axis=1)[:, 0], -1)
    rec["loser"] = loser.astype(np.int16)
    rec["loser_policy"] = lpol.astype(np.int16)


def avoided_loss(records: pd.DataFrame, n: int, pols: list[str]) -> dict[str, Any]:
    """self_loser's own result: the share of all matches each seat (and each policy, per seat it holds)
    finished without losing; a match stopped at max_rounds counts for nobody, as it does for wins."""
    m = len(records)
    loser = records["loser"].to_numpy().astype(np.int64)
    finished = int((loser >= 0).sum())
    seat_l = np.bincount(loser[loser >= 0], minlength=n)[:n]
    p, se, _, _ = proportion_ci(finished - seat_l, np.full(n, m))
    lpol = records["loser_policy"].to_numpy().astype(np.int64)
    pol_l = np.bincount(lpol[lpol >= 0], minlength=n)[:n]
    by_pol, by_pol_se = {}, {}
    for nm in dict.fromkeys(pols):
        idx = [i for i, q in enumerate(pols) if q == nm]
        k = len(idx)
        r, rse, _, _ = proportion_ci(int(pol_l[idx].sum()), m)  # as policy_match_win_rate: per seat held
        by_pol[nm], by_pol_se[nm] = finished / m - float(r) / k, float(rse) / k
    return {"seat_match_loss_rate": [float(x) for x in seat_l / max(m, 1)],
            "seat_avoided_loss_rate": [float(x) for x in np.atleast_1d(p)],
            "seat_avoided_loss_rate_se": [float(x) for x in np.atleast_1d(se)],
            "policy_avoided_loss_rate": by_pol, "policy_avoided_loss_rate_se": by_pol_se}


def match_summary(records: pd.DataFrame, meta: dict[str, Any], elapsed: float, compile_s: float
                  ) -> dict[str, Any]:
    """The summary of match-mode ``records`` with timing and versions."""
    summary = summarize_matches(records, meta) if len(records) else {"games": 0}
    summary.update({"deck": meta["deck"], "games_per_second": len(records) / elapsed if elapsed > 0 else None,
                    "compile_seconds": round(compile_s, 4), "threads": meta["threads"],
                    "engine_version": ENGINE_VERSION, "unosim_version": __version__})
    return summary


def round_records_frame(sel, idx, seed, n, dk, ri, rf, pol, pp, mi, slot) -> pd.DataFrame:
    """Per-round records of the given matches, replayed deterministically (same seeds) into exact-size
    buffers: one row per round (match, round, dealer, winner, winner_points, turns, capped)."""
    from ..core import nb
    from ..players.policy_api import obs_buffer

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
