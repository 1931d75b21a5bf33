"""The Python skin over the compiled core: validate, seed, run batches on threads, collect records.

>>> from unosim import simulate
>>> res = simulate(rules="official", players=4, policies="random", games=10_000, seed=7)
>>> res.summary["seat_win_rate"]            # doctest: +SKIP
>>> res.records.head()                       # one row per round  # doctest: +SKIP
"""

from __future__ import annotations

import os
import platform
import threading
import time
from concurrent.futures import FIRST_COMPLETED, ThreadPoolExecutor, wait
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd

from . import ENGINE_VERSION, __version__, nb
from . import enums as E
from .decks import Deck, get_deck
from .policies import PolicySpec, pack_policies, parse_policies
from .rules import RuleSet, parse_rules
from .stats import summarize

MIN_PLAYERS, MAX_PLAYERS = 2, 10
DEFAULT_BATCH = 50_000
# per-round counters after the standard columns, in kernel order (res[RES_CHALLENGES:])
EXTRA_COLUMNS = ("challenges", "max_stack", "swaps", "jump_ins", "uno_caught", "flips", "loser")

_warm_lock = threading.Lock()
_warm: dict[tuple, float] = {}


class SimulationError(ValueError):
    """Bad input to a simulation (one-line message naming the bad value and the accepted ones)."""


@dataclass
class SimulationResult:
    records: pd.DataFrame
    summary: dict[str, Any]
    meta: dict[str, Any]
    interrupted: bool = False
    extra: dict[str, Any] = field(default_factory=dict)


def check_players(players: Any) -> int:
    try:
        n = int(players)
    except (TypeError, ValueError):
        raise SimulationError(f"players={players!r} is not a number; accepted: {MIN_PLAYERS}..{MAX_PLAYERS}") from None
    if not MIN_PLAYERS <= n <= MAX_PLAYERS or n != players:
        raise SimulationError(f"players={players!r} is out of range; accepted: {MIN_PLAYERS}..{MAX_PLAYERS}")
    return n


def check_games(games: Any) -> int:
    try:
        g = int(games)
    except (TypeError, ValueError):
        raise SimulationError(f"games={games!r} is not a number; accepted: a positive integer") from None
    if g < 1 or g != games:
        raise SimulationError(f"games={games!r} is not positive; accepted: a positive integer")
    return g


def check_threads(threads: Any) -> int:
    if threads is None:
        return max(1, os.cpu_count() or 1)
    t = int(threads)
    if t < 1 or t != threads:
        raise SimulationError(f"threads={threads!r} is not positive; accepted: a positive integer")
    return t


def check_seed(seed: Any) -> int:
    try:
        s = int(seed)
    except (TypeError, ValueError):
        raise SimulationError(f"seed={seed!r} is not an integer; accepted: 0..2**64-1") from None
    if not 0 <= s < 2**64:
        raise SimulationError(f"seed={seed!r} is out of range; accepted: 0..2**64-1")
    return s


def check_fits(deck: Deck, rules: RuleSet, players: int) -> None:
    need = players * rules.hand_size + 1
    if need > deck.size:
        raise SimulationError(
            f"deck {deck.name!r} has {deck.size} cards, too few to deal {rules.hand_size} to {players} "
            f"players plus a starting card; accepted: players*hand_size+1 <= {deck.size}")


def _alloc(n: int, players: int) -> dict[str, np.ndarray]:
    return {
        "winner": np.empty(n, np.int16),
        "turns": np.empty(n, np.int32),
        "winner_points": np.empty(n, np.int32),
        "cards_drawn": np.empty(n, np.int32),
        "end": np.empty(n, np.int8),
        "reshuffles": np.empty(n, np.int32),
        "hand_points": np.empty((n, players), np.int32),
        "extra": np.empty((n, nb.NEXTRA), np.int32),
    }


def _run_batch(out: dict[str, np.ndarray], lo: int, hi: int, seed: int, players: int, deck: Deck,
               ri: np.ndarray, rf: np.ndarray, pol: np.ndarray, pp: np.ndarray) -> None:
    nb.play_batch_nb(lo, hi - lo, np.uint64(seed), players, deck.face_color, deck.face_rank,
                     deck.face_points, ri, rf, pol, pp,
                     out["winner"][lo:hi], out["turns"][lo:hi], out["winner_points"][lo:hi],
                     out["cards_drawn"][lo:hi], out["end"][lo:hi], out["reshuffles"][lo:hi],
                     out["hand_points"][lo:hi], out["extra"][lo:hi])


def warm_up(players: int = 4, deck: Deck | None = None) -> float:
    """Compile (or load from the on-disk cache) the kernels once per process; returns seconds spent."""
    deck = deck or get_deck("classic")
    key = (deck.name,)
    with _warm_lock:
        if key in _warm:
            return 0.0
        t0 = time.perf_counter()
        ri, rf = RuleSet().pack()
        pol, pp = pack_policies(parse_policies("random", players))
        out = _alloc(1, players)
        _run_batch(out, 0, 1, 0, players, deck, ri, rf, pol, pp)
        dt = time.perf_counter() - t0
        _warm[key] = dt
        return dt


def records_frame(out: dict[str, np.ndarray], game_index: np.ndarray, players: int) -> pd.DataFrame:
    df = pd.DataFrame({
        "game": game_index.astype(np.int64),
        "winner": out["winner"],
        "turns": out["turns"],
        "winner_points": out["winner_points"],
        "cards_drawn": out["cards_drawn"],
        "end_reason": pd.Categorical.from_codes(out["end"].astype(np.int8), categories=list(E.END_NAMES)),
        "reshuffles": out["reshuffles"],
    })
    for s in range(players):
        df[f"hand_points_{s}"] = out["hand_points"][:, s]
    for k, name in enumerate(EXTRA_COLUMNS):
        df[name] = out["extra"][:, k]
    return df


def simulate(rules: str | RuleSet = "official", players: int = 4, policies: str | list[str] = "random",
             games: int = 10_000, seed: int = 0, threads: int | None = None, deck: str = "classic",
             batch_size: int | None = None, progress: bool = False) -> SimulationResult:
    """Play ``games`` independent rounds and return per-round records plus a summary.

    The same ``seed`` gives identical records for any ``threads`` and ``batch_size``.
    A KeyboardInterrupt stops after the batches in flight; the finished rounds are returned with
    ``interrupted=True``.
    """
    n = check_players(players)
    g = check_games(games)
    t = check_threads(threads)
    seed = check_seed(seed)
    rs = parse_rules(rules) if not isinstance(rules, RuleSet) else rules
    dk = get_deck(deck)
    check_fits(dk, rs, n)
    specs: list[PolicySpec] = parse_policies(policies, n)
    ri, rf = rs.pack()
    pol, pp = pack_policies(specs)
    bs = int(batch_size) if batch_size else max(1_000, min(DEFAULT_BATCH, -(-g // (4 * t))))
    if bs < 1:
        raise SimulationError(f"batch_size={batch_size!r} is not positive; accepted: a positive integer")

    compile_s = warm_up(n, dk)
    out = _alloc(g, n)
    bounds = [(lo, min(lo + bs, g)) for lo in range(0, g, bs)]
    done = np.zeros(len(bounds), bool)
    bar = None
    if progress:
        from tqdm import tqdm

        bar = tqdm(total=g, unit="game", unit_scale=True, desc="simulating", leave=False)
    interrupted = False
    t0 = time.perf_counter()
    pool = ThreadPoolExecutor(max_workers=t)
    futures = {pool.submit(_run_batch, out, lo, hi, seed, n, dk, ri, rf, pol, pp): i
               for i, (lo, hi) in enumerate(bounds)}
    try:
        pending = set(futures)
        while pending:
            finished, pending = wait(pending, timeout=0.2, return_when=FIRST_COMPLETED)
            for f in finished:
                f.result()
                i = futures[f]
                done[i] = True
                if bar is not None:
                    bar.update(bounds[i][1] - bounds[i][0])
    except KeyboardInterrupt:
        interrupted = True
        for f in futures:
            f.cancel()
        for f, i in futures.items():
            if not f.cancelled():
                f.result()
                done[i] = True
    finally:
        pool.shutdown(wait=True, cancel_futures=True)
        if bar is not None:
            bar.close()
    elapsed = time.perf_counter() - t0

    if done.all():
        game_index = np.arange(g, dtype=np.int64)
        sel = out
    else:
        mask = np.zeros(g, bool)
        for i in np.flatnonzero(done):
            mask[bounds[i][0]:bounds[i][1]] = True
        game_index = np.flatnonzero(mask)
        sel = {k: v[mask] for k, v in out.items()}
    records = records_frame(sel, game_index, n)
    meta = run_meta(rs, n, specs, seed, g, dk, t, bs)
    meta["games_completed"] = int(len(records))
    meta["interrupted"] = interrupted
    summary = summarize(records, meta) if len(records) else {"games": 0}
    summary.update({
        "rules": rs.to_string(),
        "deck": dk.name,
        "games_per_second": (len(records) / elapsed) if elapsed > 0 else None,
        "compile_seconds": round(compile_s, 4),
        "threads": t,
        "engine_version": ENGINE_VERSION,
        "unosim_version": __version__,
    })
    return SimulationResult(records, summary, meta, interrupted)


def run_meta(rules: RuleSet, players: int, specs: list[PolicySpec], seed: int, games: int, deck: Deck,
             threads: int, batch_size: int) -> dict[str, Any]:
    """Everything needed to reproduce a run (threads and batch size do not change results)."""
    import numba

    return {
        "players": players,
        "policies": [str(s) for s in specs],
        "policy_names": [s.name for s in specs],
        "rules": rules.to_string(),
        "deck": deck.name,
        "seed": seed,
        "games": games,
        "threads": threads,
        "batch_size": batch_size,
        "unosim_version": __version__,
        "engine_version": ENGINE_VERSION,
        "numba_version": numba.__version__,
        "numpy_version": np.__version__,
        "python_version": platform.python_version(),
    }
