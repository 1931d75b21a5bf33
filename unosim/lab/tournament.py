"""Tournaments: rank a field of policies on common deals, with win rates, intervals and a rating.

>>> from unosim.lab.tournament import run_tournament
>>> t = run_tournament("random,greedy,greedy(challenge=0.5)", players=4, games=20_000, seed=7)
>>> t.table                       # one row per policy  # doctest: +SKIP

Design
------
* **Line-ups.**  A line-up is a multiset of ``players`` policies from the field.  When the field
  has at most ``max_lineups`` multisets (``C(P + N - 1, N)`` for P policies and N players) every
  one is played; otherwise a *balanced sample* of ``L`` line-ups (the largest ``L <= max_lineups``
  with ``L * N`` a multiple of ``P``): ``L * N / P`` seeded random permutations of the field are
  laid end to end and cut into consecutive groups of ``N``, so every policy holds exactly the same
  number of seats; then seats are swapped between line-ups (which keeps those counts) until no
  line-up repeats, where the sample size allows.  Either way a policy holds as many seat-rounds as any other.
* **Seats and deals.**  Every line-up is played with ``simulate(..., seating="rotate")`` and the
  *same seed*: round (or match) ``g`` is seeded from ``(seed, g)`` alone, so every line-up plays
  the same deals (common random numbers), and over ``N`` consecutive games every policy of the
  line-up plays every seat once.  ``games`` (per line-up) is rounded up to a multiple of ``N``.
* **Win rates.**  A policy's win rate is its per-seat share (as in :func:`unosim.analysis.stats.policy_table`):
  its wins / (games x seats it holds), summed over line-ups; rounds stopped at the turn cap count
  as a loss for every seat.  Because the line-ups share their deals, the standard error is the
  cluster-robust ratio error (:func:`unosim.analysis.stats.ratio_se`) with deal ``g`` as the cluster, and
  the interval is ``rate +- 1.96 se``.  In match mode the same holds for match wins, and round
  wins are counted over the rounds of every match.
* **Mean points.**  Round mode: points scored per round per seat (the winner scores the others'
  hands; every other seat scores 0).  Match mode: mean final score per seat.
* **Rating.**  A Plackett-Luce model on the finishing order *winner first, everyone else tied*
  (i.e. the Luce choice model of who wins the round, or the match in match mode), fitted by
  maximum likelihood with :mod:`choix` after rank breaking: the winner beats each seat of another
  policy at the table (``choix.ilsr_pairwise_dense``; consistent for the Luce model).  Ratings are
  on the Elo scale, centred on the field's mean: a gap of 400 points means 10:1 odds that the
  stronger policy finishes ahead of the weaker one.  Its uncertainty comes from a bootstrap over
  deals (the same resampled deals for every line-up, which keeps the common-random-numbers
  correlation): ``rating_se`` is the bootstrap standard deviation and ``rating_lo``/``rating_hi``
  the 2.5%/97.5% percentiles.
"""

from __future__ import annotations

import itertools
import json
import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, NamedTuple

import numpy as np
import pandas as pd

from ..analysis.stats import policy_table, ratio_se, z_value
from ..errors import SimulationError
from ..players.policies import parse_policy, split_top_level
from ..results.outdir import writes_folder
from ..running.sim import check_simulate
from ..validate import (
    check_games,
    check_memory,
    check_mode,
    check_players,
    check_seed,
    fits_in_memory,
    integer,
    record_bytes,
)

__all__ = ["TournamentError", "TournamentResult", "parse_field", "choose_lineups", "check_tournament",
           "run_tournament",
           "fit_ratings", "save_tournament", "load_tournament", "format_tournament", "TABLE_COLUMNS"]

DEFAULT_MAX_LINEUPS = 100
DEFAULT_BOOTSTRAP = 200
#: choix regularisation: a tiny prior that keeps the fit finite when some policy never wins.
RATING_ALPHA = 0.01
ELO_SCALE = 400.0 / math.log(10.0)

TABLE_COLUMNS = ("rate", "se", "ci_lo", "ci_hi", "wins", "n", "mean_points", "points_se",
                 "rating", "rating_se", "rating_lo", "rating_hi", "lineups", "seats")
MATCH_COLUMNS = ("round_rate", "round_se", "round_ci_lo", "round_ci_hi")


class TournamentError(SimulationError):
    """Bad input to a tournament (one-line message naming the bad value and the accepted ones)."""


@dataclass
class TournamentResult:
    table: pd.DataFrame                      # one row per policy of the field, in field order
    meta: dict[str, Any]
    lineups: list[tuple[str, ...]]
    runs: list[Any] = field(default_factory=list)  # SimulationResult per line-up (keep_runs=True)
    by_lineup: pd.DataFrame | None = None    # stats.policy_table of every line-up, stacked


# ---- the field and its line-ups ---------------------------------------------------------------------


def parse_field(policies: str | Sequence[str]) -> list[str]:
    """Canonical policy strings of the field (at least two, all different)."""
    items = split_top_level(policies, ",") if isinstance(policies, str) else list(policies)
    names = [str(parse_policy(s)) for s in items]
    if len(names) < 2:
        raise TournamentError(f"a tournament needs at least two policies, got {', '.join(names) or 'none'}; "
                              "accepted: a comma list such as random,greedy")
    seen: set[str] = set()
    for n in names:
        if n in seen:
            raise TournamentError(f"policy {n!r} appears twice in the field; accepted: distinct policies")
        seen.add(n)
    return names


def all_lineups(names: Sequence[str], players: int) -> list[tuple[str, ...]]:
    """Every multiset of ``players`` policies, each in field order."""
    return list(itertools.combinations_with_replacement(names, players))


def balanced_lineups(names: Sequence[str], players: int, count: int, seed: int) -> list[tuple[str, ...]]:
    """``count`` line-ups in which every policy holds the same number of seats (``count * players``
    must be a multiple of the field size): seeded permutations of the field laid end to end, cut
    into groups of ``players``; each group is then sorted into field order."""
    p = len(names)
    if (count * players) % p:
        raise ValueError(f"count*players={count * players} is not a multiple of the field size {p}")
    rng = np.random.default_rng([seed, 0x7041])
    seq = np.concatenate([rng.permutation(p) for _ in range(count * players // p)])
    groups = _distinct_by_swaps(seq.reshape(count, players), rng)
    return [tuple(names[i] for i in sorted(g)) for g in groups]


def _distinct_by_swaps(groups: np.ndarray, rng: np.random.Generator, tries: int = 50_000) -> np.ndarray:
    """Swap seats between line-ups (which keeps every policy's seat count) while that does not add
    duplicate line-ups, until no line-up repeats or ``tries`` swaps have been tried: under common
    random numbers a repeated line-up would replay the very same games."""
    groups = groups.copy()

    def dups() -> int:
        return len(groups) - len({tuple(sorted(g)) for g in groups})

    n_dup = dups()
    for _ in range(tries):
        if n_dup == 0:
            break
        a, b = rng.integers(len(groups), size=2)
        i, j = rng.integers(groups.shape[1], size=2)
        if a == b or groups[a, i] == groups[b, j]:
            continue
        groups[a, i], groups[b, j] = groups[b, j], groups[a, i]
        new = dups()
        if new <= n_dup:
            n_dup = new
        else:
            groups[a, i], groups[b, j] = groups[b, j], groups[a, i]
    return groups


def choose_lineups(names: Sequence[str], players: int, max_lineups: int = DEFAULT_MAX_LINEUPS,
                   seed: int = 0) -> tuple[list[tuple[str, ...]], str]:
    """(line-ups, design): ``"all"`` multisets when there are at most ``max_lineups``, else a
    ``"balanced"`` sample of the largest size <= max_lineups that gives every policy equal seats."""
    total = math.comb(len(names) + players - 1, players)
    if total <= max_lineups:
        return all_lineups(names, players), "all"
    step = len(names) // math.gcd(len(names), players)  # line-up counts giving equal seats
    count = (max_lineups // step) * step
    if count < 1:
        raise TournamentError(f"max_lineups={max_lineups} is too small for {len(names)} policies at "
                              f"{players} players; accepted: at least {step}")
    return balanced_lineups(names, players, count, seed), "balanced"


# ---- per line-up outcomes ------------------------------------------------------------------------


@dataclass
class _Outcomes:
    """Per line-up and deal: the field index of the winner (-1: none) and per-policy sums."""

    winner: np.ndarray        # (L, G) int64
    seats: np.ndarray         # (L, P) seats each policy holds in each line-up
    points: np.ndarray        # (G, P) points (round) / final score (match), summed over line-ups
    round_wins: np.ndarray | None = None  # match mode: (G, P) rounds won, summed over line-ups
    rounds_den: np.ndarray | None = None  # match mode: (G, P) rounds x seats, summed over line-ups


def _lineup_arrays(res, lineup: tuple[str, ...], index: dict[str, int], mode: str, npol: int):
    """(winner field index per game, points per game and policy, round wins, rounds x seats)."""
    rec = res.records
    fidx = np.array([index[n] for n in lineup], np.int64)
    wpol = rec["winner_policy"].to_numpy().astype(np.int64)
    winner = np.where(wpol >= 0, fidx[np.maximum(wpol, 0)], -1)
    g = len(rec)
    points = np.zeros((g, npol))
    if mode == "round":
        pts = rec["winner_points"].to_numpy(np.float64)
        ok = winner >= 0
        np.add.at(points, (np.flatnonzero(ok), winner[ok]), pts[ok])
        return winner, points, None, None
    n = len(lineup)
    at_seat = rec[[f"policy_at_seat_{s}" for s in range(n)]].to_numpy().astype(np.int64)
    pol_at_seat = fidx[at_seat]                                   # (G, n) field index per seat
    scores = rec[[f"score_{s}" for s in range(n)]].to_numpy(np.float64)
    rwins = rec[[f"round_wins_{s}" for s in range(n)]].to_numpy(np.float64)
    rows = np.repeat(np.arange(g), n)
    np.add.at(points, (rows, pol_at_seat.ravel()), scores.ravel())
    rw = np.zeros((g, npol))
    np.add.at(rw, (rows, pol_at_seat.ravel()), rwins.ravel())
    seats = np.bincount(fidx, minlength=npol).astype(np.float64)
    den = rec["rounds"].to_numpy(np.float64)[:, None] * seats[None, :]
    return winner, points, rw, den


# ---- ratings ---------------------------------------------------------------------------------------


def _comparisons(wins: np.ndarray, seats: np.ndarray) -> np.ndarray:
    """Rank-broken comparison counts: comp[i, j] = sum over line-ups of wins of i x seats of j, i != j."""
    comp = wins.T @ seats
    np.fill_diagonal(comp, 0.0)
    return comp


class _WinCodes:
    """The games with a winner as a sparse (deal x (line-up, policy)) count matrix, built once for every resample
    of the bootstrap."""

    def __init__(self, winner: np.ndarray, npol: int) -> None:
        from scipy import sparse

        nl, g = winner.shape
        ok = winner >= 0
        self.shape = (nl, npol)
        codes = (np.arange(nl)[:, None] * npol + winner)[ok]
        deal = np.broadcast_to(np.arange(g), (nl, g))[ok]
        self.by_deal = sparse.csc_matrix((np.ones(codes.shape[0]), (deal, codes)), shape=(g, nl * npol))

    def wins(self) -> np.ndarray:
        """(L, P) wins of each policy in each line-up."""
        return np.asarray(self.by_deal.sum(axis=0)).reshape(self.shape)

    def wins_many(self, weights: np.ndarray) -> np.ndarray:
        """(B, L, P) wins for B weightings of the deals at once (weights: B x deals).  The counts are whole
        numbers, so every sum is exact whatever its order."""
        return (self.by_deal.T @ weights.T).T.reshape((weights.shape[0], *self.shape))


_BOOTSTRAP_CELLS = 4_000_000  # deal weights held at once by fit_ratings' bootstrap (32 MB)


def _fit(comp: np.ndarray) -> np.ndarray:
    import choix

    return ELO_SCALE * choix.ilsr_pairwise_dense(comp, alpha=RATING_ALPHA)


def fit_ratings(winner: np.ndarray, seats: np.ndarray, bootstrap: int = DEFAULT_BOOTSTRAP, seed: int = 0
                ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Elo-scale Luce ratings (centred on 0) with bootstrap (se, lo, hi) over deals.

    ``winner``: (line-ups, deals) field index of each game's winner, -1 for none; ``seats``:
    (line-ups, policies) seats each policy holds.  With ``bootstrap=0`` the errors are NaN.
    """
    npol = seats.shape[1]
    games = _WinCodes(winner, npol)
    rating = _fit(_comparisons(games.wins(), seats))
    nan = np.full(npol, np.nan)
    if bootstrap < 2:
        return rating, nan, nan.copy(), nan.copy()
    g = winner.shape[1]
    rng = np.random.default_rng([seed, 0xB007])
    reps = np.empty((bootstrap, npol))
    block = max(1, min(bootstrap, _BOOTSTRAP_CELLS // max(g, 1)))  # resamples weighed in one product
    for b0 in range(0, bootstrap, block):
        w = np.stack([np.bincount(rng.integers(0, g, g), minlength=g) for _ in range(min(block, bootstrap - b0))])
        for k, wins in enumerate(games.wins_many(w.astype(np.float64))):
            reps[b0 + k] = _fit(_comparisons(wins, seats))
    lo, hi = np.percentile(reps, [2.5, 97.5], axis=0)
    return rating, reps.std(axis=0, ddof=1), lo, hi


# ---- the tournament --------------------------------------------------------------------------------


def _rate_columns(num: np.ndarray, den: np.ndarray, z: float, prefix: str = "") -> dict[str, list[float]]:
    """Per-policy ratio sum(num)/sum(den) over deals with its cluster-robust error and interval."""
    cols: dict[str, list[float]] = {f"{prefix}rate": [], f"{prefix}se": [], f"{prefix}ci_lo": [],
                                    f"{prefix}ci_hi": []}
    for i in range(num.shape[1]):
        r, se = ratio_se(num[:, i], den[:, i])
        cols[f"{prefix}rate"].append(r)
        cols[f"{prefix}se"].append(se)
        cols[f"{prefix}ci_lo"].append(max(0.0, r - z * se))
        cols[f"{prefix}ci_hi"].append(min(1.0, r + z * se))
    return cols


def _table(names: list[str], out: _Outcomes, games: int, mode: str, bootstrap: int, seed: int) -> pd.DataFrame:
    z = z_value(0.95)
    npol = len(names)
    k = out.seats.sum(axis=0)                                   # seats per policy over line-ups
    den = np.broadcast_to(k, (games, npol)).astype(np.float64)
    wins = np.zeros((games, npol))
    for row in out.winner:
        ok = row >= 0
        wins[np.flatnonzero(ok), row[ok]] += 1.0
    cols: dict[str, Any] = _rate_columns(wins, den, z)
    cols["wins"] = wins.sum(axis=0).astype(np.int64)
    cols["n"] = (games * k).astype(np.int64)
    pts = [ratio_se(out.points[:, i], den[:, i]) for i in range(npol)]
    cols["mean_points"] = [p for p, _ in pts]
    cols["points_se"] = [s for _, s in pts]
    rating, rse, rlo, rhi = fit_ratings(out.winner, out.seats, bootstrap, seed)
    cols.update(rating=rating, rating_se=rse, rating_lo=rlo, rating_hi=rhi)
    cols["lineups"] = (out.seats > 0).sum(axis=0).astype(np.int64)
    cols["seats"] = k.astype(np.int64)
    if mode == "match":
        cols.update(_rate_columns(out.round_wins, out.rounds_den, z, prefix="round_"))
    return pd.DataFrame(cols, index=pd.Index(names, name="policy"))


def check_tournament(policies: str | Sequence[str], players: int = 4, games: int = 10_000,
                     rules: str = "official", deck: str = "classic", seed: int = 0, mode: str = "round",
                     threads: int | None = None, max_lineups: int = DEFAULT_MAX_LINEUPS,
                     bootstrap: int = DEFAULT_BOOTSTRAP, policy_files: list[str] | str | None = None,
                     **match_options: Any) -> tuple[list[str], int, int, list[tuple[str, ...]], str]:
    """Check every argument of :func:`run_tournament` without playing: returns (field, players, games
    per line-up, line-ups, design) or raises a one-line :class:`~unosim.errors.UnosimError`.

    ``policy_files``: Python files defining policies the field may name (:mod:`unosim.players.policy_api`)."""
    from ..players.policy_api import load_policy_files

    load_policy_files(policy_files)
    names = parse_field(policies)
    n = check_players(players)
    mode = check_mode(mode)
    integer("bootstrap", bootstrap, 0, error=TournamentError)
    integer("max_lineups", max_lineups, 1, error=TournamentError)
    g = -(-check_games(games) // n) * n
    lineups, design = choose_lineups(names, n, int(max_lineups), check_seed(seed))
    check_simulate(rules=rules, players=n, policies=list(lineups[0]), games=g, seed=seed, threads=threads,
                   deck=deck, seating="rotate", mode=mode, policy_files=policy_files, **match_options)
    # two line-ups' records at a time (read from the store: the next is read before the last is released),
    # and per deal the winner of every line-up (int64) with the bootstrap's mask, codes and count matrix
    check_memory("games", g, 2 * record_bytes(mode, n, from_disk=True) + 48 * len(lineups),
                 advice="per line-up with this field (fewer games, or a smaller --max-lineups)")
    return names, n, g, lineups, design


class _Lineup(NamedTuple):
    """A line-up's records and meta, without the summary of a full result (which nothing reads unless its run is
    kept or saved)."""

    records: pd.DataFrame
    meta: dict[str, Any]


def _lineup_runs(lineups, n: int, g: int, rules: str, deck: str, seed: int, mode: str, threads,
                 match_options: dict[str, Any], cluster: dict[str, Any], policy_files=None, store=None,
                 progress: bool = False, summaries: bool = True):
    """Each line-up's run, in line-up order, through the results store (:mod:`unosim.results.store`): the missing
    chunks of every line-up run together (threads here, or a cluster) and are stored as they finish, so
    a rerun after a kill computes only what is missing.  An interrupt raises KeyboardInterrupt once the
    chunks in flight are stored.  Where the records of every line-up fit in a quarter of the memory, those
    computed now are kept, not read back.  ``summaries``: each a full SimulationResult, else a :class:`_Lineup`."""
    from ..results.backends import backend_session
    from ..results.store import fill_cells_keeping, make_cell, read_cell, result_from_records, run_meta

    cells = [make_cell(rules=rules, players=n, policies=list(lu), deck=deck, seed=seed, seating="rotate",
                       mode=mode, policy_files=policy_files, **match_options) for lu in lineups]
    keep = fits_in_memory(len(cells) * g * record_bytes(mode, n, from_disk=True), 0.25)
    with backend_session(**cluster, threads=threads) as be:
        infos, kept = fill_cells_keeping(cells, g, keep, store, threads, progress, desc="tournament", backend=be)
    if any(i.interrupted for i in infos):
        raise KeyboardInterrupt
    for cell in cells:
        records = kept[cell.key] if keep else read_cell(cell, g, store)
        yield result_from_records(cell, records, g) if summaries else _Lineup(records, run_meta(cell, records, g))


@writes_folder("out_dir", "tournament")
def run_tournament(policies: str | Sequence[str], players: int = 4, games: int = 10_000,
                   rules: str = "official", deck: str = "classic", seed: int = 0, mode: str = "round",
                   threads: int | None = None, max_lineups: int = DEFAULT_MAX_LINEUPS,
                   bootstrap: int = DEFAULT_BOOTSTRAP, out_dir: Path | str | None = None,
                   keep_runs: bool = False, progress: bool = False, backend: str | None = "local",
                   scheduler: str | None = None, workers: int | None = None, client=None,
                   policy_files: list[str] | str | None = None, store: str | Path | None = None,
                   **match_options: Any) -> TournamentResult:
    """Play every line-up of the field (or a balanced sample) on common deals; see the module doc.

    ``games`` counts rounds (matches in match mode) per line-up.  With ``out_dir`` each line-up's
    run is saved under ``out_dir/lineups/NNN`` (:func:`unosim.results.io.save_run`) and the table into
    ``tournament.json`` / ``tournament.csv``, and every line-up's own
    :func:`unosim.analysis.stats.policy_table` (Wilson intervals) into ``lineups.csv`` (``result.by_lineup``).
    ``keep_runs`` keeps every line-up's
    :class:`~unosim.running.sim.SimulationResult` in ``result.runs``.  ``backend``, ``scheduler``, ``workers``,
    ``client``: where the line-ups run (:mod:`unosim.results.backends`; on a cluster every line-up's chunks are
    submitted together); the results do not depend on it.

    Every line-up is a cell of the results store ``store`` (default ``results/store``, as for
    :func:`unosim.lab.experiments.compare`): a rerun reuses the stored games, and after a kill or Ctrl-C
    (which raises KeyboardInterrupt once the chunks in flight are stored) the same call computes only
    what is missing and gives the same table.
    """
    from ..players.policy_api import load_policy_files

    names, n, g, lineups, design = check_tournament(policies, players, games, rules, deck, seed, mode, threads,
                                                    max_lineups, bootstrap, policy_files, **match_options)
    index = {nm: i for i, nm in enumerate(names)}
    seats = np.array([[lu.count(nm) for nm in names] for lu in lineups], np.float64)
    winners, runs, per_lineup = [], [], []
    points = round_wins = rounds_den = None
    cluster = dict(backend=backend, scheduler=scheduler, workers=workers, client=client)
    for li, (lu, res) in enumerate(zip(lineups, _lineup_runs(lineups, n, g, rules, deck, seed, mode, threads,
                                                             match_options, cluster, policy_files, store, progress,
                                                             summaries=keep_runs or out_dir is not None),
                                       strict=True)):
        w, p, rw, rd = _lineup_arrays(res, lu, index, mode, len(names))
        winners.append(w)
        per_lineup.append(policy_table(res.records, res.meta).reset_index().assign(lineup=li))
        points = p if points is None else points + p
        if mode == "match":
            round_wins = rw if round_wins is None else round_wins + rw
            rounds_den = rd if rounds_den is None else rounds_den + rd
        if out_dir is not None:
            from ..results.io import save_run

            save_run(res, Path(out_dir) / "lineups" / f"{li:03d}")
        if keep_runs:
            runs.append(res)
    outcomes = _Outcomes(np.vstack(winners), seats, points, round_wins, rounds_den)
    table = _table(names, outcomes, g, mode, int(bootstrap), int(seed))
    meta = {
        "kind": "tournament", "mode": mode, "field": names, "players": n, "games_per_lineup": g,
        "rules": res.meta["rules"], "deck": res.meta["deck"], "seed": int(seed), "design": design,
        "max_lineups": int(max_lineups), "bootstrap": int(bootstrap), "seating": "rotate",
        "rating_model": "Plackett-Luce, winner first and the rest tied (rank breaking, choix "
                        "ilsr_pairwise_dense); Elo scale centred on 0; bootstrap over deals",
        "lineups": [{"dir": f"lineups/{i:03d}", "policies": list(lu)} for i, lu in enumerate(lineups)],
        "total_games": g * len(lineups), "capped_games": int((outcomes.winner < 0).sum()),
        "engine_version": res.meta["engine_version"], "unosim_version": res.meta["unosim_version"],
        "policy_files": load_policy_files(policy_files),  # each line-up's cell names only the files it plays
    }
    if mode == "match":
        meta.update(scoring=res.meta["scoring"], target=res.meta["target"])
    by_lineup = pd.concat(per_lineup, ignore_index=True).set_index(["lineup", "policy"])
    result = TournamentResult(table, meta, lineups, runs, by_lineup)
    if out_dir is not None:
        save_tournament(result, Path(out_dir))
    return result


# ---- files and text ----------------------------------------------------------------------------------


def _clean(x: Any) -> Any:
    if isinstance(x, float | np.floating):
        return float(x) if math.isfinite(float(x)) else None
    if isinstance(x, np.integer):
        return int(x)
    return x


def table_records(table: pd.DataFrame) -> list[dict[str, Any]]:
    """The table as strict-JSON rows (NaN -> None), the policy first."""
    return [{"policy": str(name), **{k: _clean(v) for k, v in row.items()}} for name, row in table.iterrows()]


def to_json(result: TournamentResult) -> dict[str, Any]:
    return {"meta": result.meta, "table": table_records(result.table)}


def save_tournament(result: TournamentResult, out_dir: Path) -> dict[str, Path]:
    """Write ``tournament.json`` (meta + table), ``tournament.csv`` (the table) and ``lineups.csv``
    (the per line-up tables) into ``out_dir``."""
    from ..results.io import write_json

    out_dir.mkdir(parents=True, exist_ok=True)
    write_json(out_dir / "tournament.json", to_json(result))
    result.table.to_csv(out_dir / "tournament.csv")
    paths = {"tournament.json": out_dir / "tournament.json", "tournament.csv": out_dir / "tournament.csv"}
    if result.by_lineup is not None:
        result.by_lineup.to_csv(out_dir / "lineups.csv")
        paths["lineups.csv"] = out_dir / "lineups.csv"
    return paths


def load_tournament(run_dir: Path) -> tuple[pd.DataFrame, dict[str, Any]]:
    """Read back (table, meta) written by :func:`save_tournament`."""
    path = Path(run_dir) / "tournament.json"
    if not path.is_file():
        raise TournamentError(f"{str(run_dir)!r} is not a saved tournament; accepted: a directory "
                              "written by `unosim tournament --out DIR` (tournament.json)")
    obj = json.loads(path.read_text())
    table = pd.DataFrame(obj["table"]).set_index("policy").apply(pd.to_numeric)  # None -> NaN
    return table, obj["meta"]


def format_tournament(table: pd.DataFrame, meta: dict[str, Any]) -> str:
    """A readable text table: win rates with 95% half-widths, mean points, ratings."""
    from ..fmt import fmt_pm

    z = z_value(0.95)
    match = meta["mode"] == "match"
    unit = "matches" if match else "rounds"
    lines = [
        f"rules     {meta['rules']}   deck {meta['deck']}   mode {meta['mode']}",
        f"players   {meta['players']}   field of {len(meta['field'])}   seed {meta['seed']}",
        f"line-ups  {len(meta['lineups'])} ({meta['design']}), {meta['games_per_lineup']:,} {unit} each, "
        f"{meta['total_games']:,} in all, capped {meta['capped_games']}",
        "",
    ]
    width = max(26, *(len(str(p)) for p in table.index))
    win = "match win rate" if match else "win rate per seat"
    head = f"{'policy':<{width}}  {win:<18} " + (f"{'round win rate':<18} " if match else "")
    head += f"{'mean points' if not match else 'mean score':<16} rating (95% CI)"
    lines.append(head)
    for name, r in table.sort_values("rating", ascending=False).iterrows():
        row = f"{str(name):<{width}}  {fmt_pm(r['rate'], z * r['se'], pct=True):<18} "
        if match:
            row += f"{fmt_pm(r['round_rate'], z * r['round_se'], pct=True):<18} "
        row += f"{fmt_pm(r['mean_points'], z * r['points_se']):<16} {r['rating']:+.0f}"
        if np.isfinite(r["rating_lo"]):
            row += f" ({r['rating_lo']:+.0f} to {r['rating_hi']:+.0f})"
        lines.append(row)
    lines += ["", f"fair share 1/{meta['players']} = {100 / meta['players']:.2f}%; ratings on the Elo scale "
              "(400 = 10:1 odds), Plackett-Luce on the winner, bootstrap over deals"]
    return "\n".join(lines)

