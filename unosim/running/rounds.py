"""Round mode: a validated run (:class:`RoundRun`) played in batches on threads, its records and summary.

:mod:`unosim.running.sim` checks a run's arguments and hands a round-mode run here (a match-mode one to
:mod:`unosim.running.match`, which builds on this module).
"""

from __future__ import annotations

import os
import platform
import sys
import threading
import time
from collections.abc import Callable
from concurrent.futures import FIRST_COMPLETED, ThreadPoolExecutor, wait
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd

from .. import ENGINE_VERSION, __version__
from ..analysis.stats import summarize
from ..console import compile_seconds, progress_bar
from ..core import enums as E
from ..errors import SimulationError
from ..players.policies import PolicySpec, pack_policies, parse_policies, replays
from ..ruleset.decks import Deck, get_deck
from ..ruleset.rules import RuleSet, parse_rules
from ..validate import (
    SEATINGS,
    check_games,
    check_players,
    check_seed,
    check_threads,
    record_bytes,
)

DEFAULT_BATCH = 50_000


#: rounds (matches) of a default batch: (fewest, fewest while a thread has several, most).  A batch's
#: fixed cost (its records table, a stored chunk's file) is small beside 20,000 rounds of play.
BATCH_BOUNDS = {"round": (1_000, 20_000, DEFAULT_BATCH), "match": (50, 50, DEFAULT_BATCH // 20)}


def default_batch(mode: str, games: int, threads: int, slow: bool = False, scale: int = 1) -> int:
    """Games per batch (and per stored chunk): the work per thread in up to four equal batches of at least
    20,000 rounds (one batch per thread when it has less), between 1,000 and 50,000 rounds (50 and 2,500
    matches; ``scale`` times that on a backend whose chunks cost more each, :func:`default_chunk`).
    ``slow``: a seat is a plain-Python policy (``lookahead``: thousands of times slower a round),
    so the work per thread is split into up to four batches however few the games, and a run of a few hundred
    rounds still keeps every thread busy (with the floor of 1,000 rounds it ran on one thread)."""
    lo, fill, hi = (1, 1, BATCH_BOUNDS[mode][2]) if slow else BATCH_BOUNDS[mode]
    per_thread = -(-games // threads)
    parts = min(4, max(1, per_thread // fill))
    return min(hi * scale, max(lo, -(-per_thread // parts)))


def default_chunk(mode: str, games: int, threads: int, backend=None) -> int:
    """The default chunk of ``games`` games run on ``backend`` (an :mod:`unosim.results.backends` backend; None:
    ``threads`` threads here): :func:`default_batch` on the backend's parallelism, up to its ``chunk_scale``
    times the local batch."""
    if backend is None:
        return default_batch(mode, games, threads)
    return default_batch(mode, games, backend.parallelism, scale=backend.chunk_scale)


# per-round counters after the standard columns, in kernel order (res[RES_CHALLENGES:])
EXTRA_COLUMNS = ("challenges", "max_stack", "swaps", "jump_ins", "uno_caught", "flips", "loser")

_warm_lock = threading.Lock()
_warm: dict[tuple, float] = {}


@dataclass
class SimulationResult:
    records: pd.DataFrame
    summary: dict[str, Any]
    meta: dict[str, Any]
    interrupted: bool = False
    extra: dict[str, Any] = field(default_factory=dict)
    label: str | None = None
    """A name for the run in stacked frames (the ``arm`` column); :func:`unosim.load` sets it."""

    def tidy(self) -> pd.DataFrame:
        """The records as one long frame with the run's settings as columns and the winner's policy by
        name (:func:`unosim.analysis.tidy.tidy`): ready for ``concat``, ``groupby`` and seaborn."""
        from ..analysis.tidy import tidy

        return tidy(self.records, self.meta, self.label, self.summary)

    def summary_frame(self) -> pd.DataFrame:
        """The summary as a frame, one row per seat (:func:`unosim.analysis.tidy.summary_frame`); ``summary``
        stays the dict it always was."""
        from ..analysis.tidy import summary_frame

        return summary_frame(self.summary, self.meta, self.label)


def check_fits(deck: Deck, rules: RuleSet, players: int) -> None:
    need = players * rules.hand_size + 1
    if need > deck.size:
        raise SimulationError(
            f"deck {deck.name!r} has {deck.size} cards, too few to deal {rules.hand_size} to {players} "
            f"players plus a starting card; accepted: players*hand_size+1 <= {deck.size}")


def run_batches(total: int, batch: int, threads: int, work, progress: bool, unit: str,
                bounds: list[tuple[int, int]] | None = None, desc: str = "simulating"
                ) -> tuple[np.ndarray, bool, float]:
    """Run ``work(lo, hi)`` over [0, total) in batches on a thread pool (kernels release the GIL).

    ``bounds`` (optional) replaces the batches by explicit ``(lo, hi)`` ranges inside [0, total)
    (the results store runs only its missing chunks); ``desc`` labels the progress bar.
    Returns (mask of finished items, interrupted, seconds).  On KeyboardInterrupt the batches in
    flight finish, the rest are cancelled, and the finished ones are kept.
    """
    if bounds is None:
        bounds = [(lo, min(lo + batch, total)) for lo in range(0, total, batch)]
    done = np.zeros(total, bool)
    if len(bounds) == 1 and threads == 1 and not progress and threading.current_thread() is not threading.main_thread():
        return _run_inline(bounds[0], done, work)  # a chunk on a worker thread: no pool of its own
    bar = progress_bar(progress, sum(hi - lo for lo, hi in bounds), unit, desc, leave=False)
    interrupted = False
    t0 = time.perf_counter()
    pool = ThreadPoolExecutor(max_workers=threads)
    futures = {pool.submit(work, lo, hi): (lo, hi) for lo, hi in bounds}
    try:
        pending = set(futures)
        while pending:
            finished, pending = wait(pending, timeout=0.2, return_when=FIRST_COMPLETED)
            for f in finished:
                f.result()
                lo, hi = futures[f]
                done[lo:hi] = True
                if bar is not None:
                    bar.update(hi - lo)
    except KeyboardInterrupt:
        interrupted = True
        for f in futures:
            f.cancel()
        try:
            for f, (lo, hi) in futures.items():
                if not f.cancelled():
                    f.result()
                    done[lo:hi] = True
        except KeyboardInterrupt:  # a second Ctrl-C: a batch that never ends must not hold the process
            abandon([futures[f] for f in futures if not f.done()], int(done.sum()), unit)
    finally:
        pool.shutdown(wait=True, cancel_futures=True)
        if bar is not None:
            bar.close()
    return done, interrupted, time.perf_counter() - t0


def _run_inline(bounds: tuple[int, int], done: np.ndarray, work) -> tuple[np.ndarray, bool, float]:
    """:func:`run_batches` of one batch on this thread (not the main thread: Ctrl-C never lands here)."""
    t0 = time.perf_counter()
    work(*bounds)
    done[bounds[0]:bounds[1]] = True
    return done, False, time.perf_counter() - t0


#: what must end before a second Ctrl-C ends the process: the writing of the finished batches handed over
#: (:class:`unosim.results.store.WriteBehind` adds its own while it runs)
finish_before_exit: list[Callable[[], None]] = []


def abandon(in_flight: list[tuple[int, int]], finished: int, unit: str) -> None:
    """End the process at once (exit 130) after a second Ctrl-C, saying which batches were abandoned;
    every finished batch was already handed over, and its writing (with ``--out`` or the store) ends first."""
    for finish in list(finish_before_exit):
        try:
            finish()
        except BaseException:  # a third Ctrl-C, or a write that failed: end anyway
            break
    ranges = ", ".join(f"{lo:,}-{hi - 1:,}" for lo, hi in sorted(in_flight)[:5])
    more = f" and {len(in_flight) - 5} more" if len(in_flight) > 5 else ""
    sys.stderr.write(f"second Ctrl-C: stopped at once; abandoned {len(in_flight)} batch(es) in flight "
                     f"({unit} {ranges or 'none'}{more}); the {finished:,} {unit} of finished batches were "
                     "kept (with --out or a store: on disk, `unosim rerun DIR` or the same command "
                     "completes the run)\n")
    sys.stderr.flush()
    os._exit(130)


def pack_rules(rules: RuleSet, deck: Deck) -> tuple[np.ndarray, np.ndarray]:
    """The kernel's rule arrays for this deck: options whose cards the deck lacks are switched off, so
    the kernel never opens a response window nobody can answer (e.g. the Invisibility Wild)."""
    ri, rf = rules.pack()
    if not (deck.face_rank == E.INVIS_WILD).any():
        ri[E.RI_HP_INVIS_BLOCKS] = 0
    return ri, rf


# House rules that act only through certain cards (docs/rules.md 2.12: house rules play on every deck with
# that deck's cards); a rule whose cards the deck lacks is refused rather than silently doing nothing.
_RULE_CARDS = {
    "seven_zero": ((7, 0), "7s or 0s"),
    "zero_swap_any": ((0,), "0s"),
    "speed_round_n_round": ((0,), "0s"),
    "zero_worth_50": ((0,), "0s"),
    "swap_on_five": ((5,), "5s"),
    "deflect_skip": ((E.SKIP,), "Skips"),
    "deflect_draw_two": ((E.DRAW2, E.DRAW1, E.DRAW5, E.DRAW3), "coloured draw cards"),
    "deflect_wd4": ((E.WD4,), "Wild Draw Fours"),
    "reverse_bounce": ((E.REVERSE,), "Reverses"),
    "stacking": ((E.DRAW2, E.WD4, E.DRAW1, E.DRAW5, E.DRAW3, E.WILD_DRAW2), "stackable draw cards"),
    "wild_color_rotation": ((E.WILD, E.WD4, E.WILD_DRAW2, E.WILD_DRAW_COLOR, E.HOWLER, E.INVIS_WILD,
                             E.DANCING_WILD), "wild cards"),
}


def check_rules_fit_deck(rules: RuleSet, deck: Deck) -> None:
    """Refuse a house rule that cannot act on this deck (e.g. zero_swap_any with UNO Flip: no 0s)."""
    ranks = set(np.unique(deck.face_rank).tolist())
    for name, (needed, what) in _RULE_CARDS.items():
        if getattr(rules, name) and not ranks.intersection(needed):
            raise SimulationError(f"rule {name!r} needs {what}, which deck {deck.name!r} does not have; "
                                  f"accepted: a deck with {what}, or drop {name}")


def check_inputs(rules: str | RuleSet, players: Any, games: Any, seed: Any, threads: Any, deck: str,
                 mode: str = "round", round_records: bool = False) -> tuple[int, int, int, int, RuleSet, Deck]:
    """Validate what every run needs: (players, games, threads, seed, rules, deck), in that order.

    A run whose records (with ``round_records``, a match's table of rounds too) would not fit in memory is
    refused before anything is allocated."""
    n = check_players(players)
    g = check_games(games, record_bytes(mode, n, round_records=round_records))
    t = check_threads(threads)
    s = check_seed(seed)
    rs = parse_rules(rules)
    dk = get_deck(deck)
    check_fits(dk, rs, n)
    check_rules_fit_deck(rs, dk)
    return n, g, t, s, rs, dk


def _alloc(n: int, players: int) -> dict[str, np.ndarray]:
    from ..core import layout

    return {
        "winner": np.empty(n, np.int16),
        "turns": np.empty(n, np.int32),
        "winner_points": np.empty(n, np.int32),
        "cards_drawn": np.empty(n, np.int32),
        "end": np.empty(n, np.int8),
        "reshuffles": np.empty(n, np.int32),
        "hand_points": np.empty((n, players), np.int32),
        "extra": np.empty((n, layout.NEXTRA), np.int32),
        "winner_policy": np.empty(n, np.int16),
    }


def _run_batch(out: dict[str, np.ndarray], lo: int, hi: int, seed: int, players: int, deck: Deck,
               ri: np.ndarray, rf: np.ndarray, pol: np.ndarray, pp: np.ndarray, seating: int = 0,
               first: int = 0, slot: Any = None, specs: list[PolicySpec] | None = None) -> None:
    """Rows [lo, hi) of ``out`` get the rounds with global indices first+lo .. first+hi-1."""
    from ..core import nb
    from ..players.policy_api import run_kernel

    run_kernel(nb.play_batch_nb, (first + lo, hi - lo, np.uint64(seed), players, deck.face_color, deck.face_rank,
                                  deck.face_points, ri, rf, pol, pp, seating, int(deck.random_pairing),
                                  out["winner"][lo:hi], out["turns"][lo:hi], out["winner_points"][lo:hi],
                                  out["cards_drawn"][lo:hi], out["end"][lo:hi], out["reshuffles"][lo:hi],
                                  out["hand_points"][lo:hi], out["extra"][lo:hi], out["winner_policy"][lo:hi]),
               deck, nb.no_slot_nb if slot is None else slot, specs)


def warm_up(players: int = 4, deck: Deck | None = None, kind: str = "round") -> float:
    """Compile (or load from the on-disk cache) a kernel once per process; returns seconds spent.

    Called before the worker threads start, so compilation never happens inside a timed run."""
    from ..core import nb
    from ..players.policy_api import obs_buffer

    deck = deck or get_deck("classic")
    key = (kind,)
    with _warm_lock:
        if key in _warm:
            return 0.0
        t0 = time.perf_counter()
        ri, rf = pack_rules(RuleSet(), deck)
        pol, pp = pack_policies(parse_policies("random", players))
        if kind == "round":
            _run_batch(_alloc(1, players), 0, 1, 0, players, deck, ri, rf, pol, pp)
        else:
            mi = np.zeros(nb.NMI, np.int64)
            mi[nb.MI_TARGET] = 1
            mi[nb.MI_MAX_ROUNDS] = 1
            z = np.zeros((1, players), np.int64)
            nb.play_match_batch_nb(0, 1, np.uint64(0), players, deck.face_color, deck.face_rank,
                                   deck.face_points, ri, rf, pol, pp, mi, 0, np.zeros(1, np.int16),
                                   np.zeros(1, np.int32), np.zeros(1, np.int8), z, z.astype(np.int32),
                                   z.astype(np.int16), np.zeros(1, np.int64), np.zeros(0, np.int64),
                                   np.zeros((0, 7), np.int64), np.full(4, -1, np.int64), obs_buffer(deck),
                                   nb.no_slot_nb)
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
        "winner_policy": out["winner_policy"],
    })
    for s in range(players):
        df[f"hand_points_{s}"] = out["hand_points"][:, s]
    for k, name in enumerate(EXTRA_COLUMNS):
        df[name] = out["extra"][:, k]
    return df


#: simulate()'s own keywords; match mode adds match.MATCH_OPTIONS.
SIMULATE_OPTIONS = ("rules", "players", "policies", "games", "seed", "threads", "deck", "batch_size",
                    "progress", "seating", "mode", "first", "policy_files")


@dataclass(frozen=True)
class RoundRun:
    """A validated round-mode run: every argument checked and resolved, nothing compiled or allocated.

    :class:`unosim.running.match.MatchRun` extends it with the match options."""

    players: int
    games: int
    seed: int
    threads: int
    rules: RuleSet
    deck: Deck
    specs: list[PolicySpec]
    seating: str
    batch_size: int
    progress: bool
    first: int = field(default=0, kw_only=True)
    policy_files: tuple[dict[str, str], ...] = field(default=(), kw_only=True)  # path and sha256 of each

    def execute(self, summarize: bool = True) -> SimulationResult:
        """Play the run; ``summarize=False`` leaves ``summary`` empty (a chunk of a stored cell, whose
        summary is built once from all its records)."""
        return run_rounds(self, summarize)

    def meta(self, games_completed: int, interrupted: bool) -> dict[str, Any]:
        """The run's metadata, as its result records it (nothing is run to know it)."""
        meta = run_meta(self.rules, self.players, self.specs, self.seed, self.games, self.deck, self.threads,
                        self.batch_size)
        meta.update(self.mode_meta())
        if self.policy_files:
            meta["policy_files"] = list(self.policy_files)
        meta["games_completed"] = int(games_completed)
        meta["interrupted"] = interrupted
        return meta

    def mode_meta(self) -> dict[str, Any]:
        """What :meth:`meta` records of the mode: the seating (a match adds its options)."""
        return {"seating": self.seating}


def run_rounds(run: RoundRun, summarize: bool = True) -> SimulationResult:
    """Play a validated round-mode run (see :func:`simulate`)."""
    from ..players.policy_api import slot_for
    from .steps import run_external_batch

    n, g, t, seed, rs, dk, specs, bs, first = (run.players, run.games, run.threads, run.seed, run.rules,
                                               run.deck, run.specs, run.batch_size, run.first)
    ri, rf = pack_rules(rs, dk)
    pol, pp = pack_policies(specs)
    sm = SEATINGS.index(run.seating)
    external = any(replays(sp.name) for sp in specs)
    c0 = compile_seconds()  # every compile or cache load of this run: the policy slot's and the kernel's
    slot = slot_for(pol)
    warm_up(n, dk)
    compile_s = compile_seconds() - c0
    out = _alloc(g, n)

    def work(lo: int, hi: int) -> None:
        if external:  # plain-Python seats that read the engine's state (unosim.players.external: lookahead)
            run_external_batch(out, lo, hi, seed, n, dk, ri, rf, pol, pp, sm, slot, specs, first)
        else:
            _run_batch(out, lo, hi, seed, n, dk, ri, rf, pol, pp, sm, first, slot, specs)

    done_mask, interrupted, elapsed = run_batches(g, bs, t, work, run.progress, "rounds")
    game_index = (np.flatnonzero(done_mask) if interrupted else np.arange(g, dtype=np.int64)) + first
    sel = {k: v[done_mask] for k, v in out.items()} if interrupted else out
    records = records_frame(sel, game_index, n)
    meta = run.meta(len(records), interrupted)
    summary = round_summary(records, meta, elapsed, compile_s) if summarize else {}
    return SimulationResult(records, summary, meta, interrupted)


def round_summary(records: pd.DataFrame, meta: dict[str, Any], elapsed: float, compile_s: float
                  ) -> dict[str, Any]:
    """The summary of round-mode ``records`` (stats, per-round counter means, timing, versions)."""
    summary = summarize(records, meta) if len(records) else {"games": 0}
    if len(records):
        # per-round counters of the house rules and decks (flips, challenges, stacks, swaps, ...)
        for col in EXTRA_COLUMNS[:-1]:
            x = records[col].to_numpy(np.float64)
            summary[f"mean_{col}"] = float(x.mean())
            summary[f"se_{col}"] = float(x.std(ddof=1) / np.sqrt(len(x))) if len(x) > 1 else None
    summary.update({
        "rules": meta["rules"],
        "deck": meta["deck"],
        "games_per_second": (len(records) / elapsed) if elapsed > 0 else None,
        "compile_seconds": round(compile_s, 4),
        "threads": meta["threads"],
        "engine_version": ENGINE_VERSION,
        "unosim_version": __version__,
    })
    return summary


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
