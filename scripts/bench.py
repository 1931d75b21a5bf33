#!/usr/bin/env python
"""`make bench`: rounds per second for standard configurations, cold / cached compile times, and the wall
time of the command line's quick answers (``unosim --help``, a compare answered from the store, ``results``,
a small ``simulate`` on a warm cache), each against its target.

Rounds/s is the engine's rate that ``simulate`` reports (``summary["games_per_second"]``: the rounds
played, not the records table built from them afterwards, which costs about 5% more wall time), like the
C reference's.  Timings exclude compilation (each configuration is warmed up first).  Cold compile runs in a fresh
process against an empty numba cache directory; cached start-up is a fresh process with the
project's cache already written: what a user sees on every run after the first (one start-up fills the
cache first, where the start-up's own functions were not yet in it; the figure is the median of three after it).

The official ``random`` rows on one thread also show the C reference (``scripts/bench/ref_official.c``,
the same rounds hand-written in C as fast as we could write them, built with ``cc -O2 -march=native``
or ``$CC``) and unosim's speed as a ratio to it.  Both are timed in the same run, in nine interleaved
pairs of a third as many rounds each (which of the two goes first alternates from pair to pair), and
the ratio is the median of the nine pairs' ratios,
since absolute figures on a shared machine drift from run to run (on this project's 2-core machine the
same run varies by up to 2x from one minute to the next; three pairs let one slow minute move the ratio
by a third).  Without a C compiler those columns stay empty.
One row times a user's numba policy (``greedy_numba`` of ``scripts/policy_example_numba.py``, greedy
written against the observation) in one seat of four beside three ``greedy``, as a ratio to four
``greedy`` timed beside it (it plays the same moves, so the ratio is the price of the decision
interface).  The rows of every other rule preset (on the classic deck) and of every other deck (official
rules; the aliases of classic left out) show their rate as a ratio to official's (4 players, ``random``,
one thread) timed beside each, interleaved like the C reference.

The sweep row runs the 20-cell grid of ``scripts/bench_dask.py`` (2-6 players x 4 rule sets, 20,000 rounds
a cell, one thread) into a fresh store and ``simulate`` of the same 20 cells, in five pairs (which of the two
goes first alternates), and shows the sweep's rounds/s as a ratio to simulate's (the median of the five
pairs): with start-up excluded
(the sweep's simulating seconds against simulate's engine seconds) and included (the whole ``run_sweep``
call, store and paired differences, against the 20 whole ``simulate`` calls, records and summaries).
Three more ratios: all threads against one (official, 4 players, ``random``; nine pairs, as above); and,
each the median of three interleaved pairs, ``lookahead(rollouts=100)``'s playouts per second against
whole ``greedy`` rounds per second (4 players, one thread), and a 2,000,000-round run on ``dask-local``
workers against local threads of the same number (not with ``--quick``).
Every ratio of two one-thread timings (the C reference, the user's policy, ``expert``, the other rules and decks,
the playouts) is timed on one core, the same for both sides (``one_core``): a shared host's cores drift apart in
speed, and unpinned the two sides of a pair may run on different ones.
The command-line rows also show the user CPU seconds of each command (less affected by a busy machine).
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import cref
from bench_dask import sweep_spec

ROOT = Path(__file__).resolve().parent.parent
USER_POLICY = ROOT / "scripts" / "policy_example_numba.py"
STARTUP = (
    "import time; t=time.perf_counter(); from unosim.running.sim import warm_up; warm_up(); "
    "import unosim.running.scenario as s; s.play(players=4, seed=1, policies='random'); "
    "print(time.perf_counter()-t)"
)


def startup_seconds(cache_dir: str | None) -> float:
    env = dict(os.environ)
    if cache_dir is not None:
        env["NUMBA_CACHE_DIR"] = cache_dir
    out = subprocess.run([sys.executable, "-c", STARTUP], env=env, capture_output=True, text=True, check=True)
    return float(out.stdout.strip().splitlines()[-1])


def command_seconds(args: list[str], runs: int = 3) -> tuple[float, float]:
    """Wall seconds of ``unosim ARGS`` in a fresh process (median of ``runs``): what a user waits for; and
    its user CPU seconds (median)."""
    times, cpu = [], []
    for _ in range(runs):
        u0 = resource.getrusage(resource.RUSAGE_CHILDREN).ru_utime
        t = time.perf_counter()
        subprocess.run([sys.executable, "-m", "unosim.cli", *args], capture_output=True, check=True)
        times.append(time.perf_counter() - t)
        cpu.append(resource.getrusage(resource.RUSAGE_CHILDREN).ru_utime - u0)
    return statistics.median(times), statistics.median(cpu)


#: the command line's answers: (label, arguments, target wall seconds); {store} is a store filled first
CLI_ROWS = (
    ("unosim --help", ["--help"], 0.3),
    ("compare, all cells stored", ["compare", "--arm", "official", "--arm", "stacking", "-g", "2000",
                                   "--store", "{store}"], 1.0),
    ("results (store list)", ["results", "--store", "{store}"], 1.0),
    ("simulate -g 1000 (cached)", ["simulate", "-g", "1000", "-q"], 1.5),
)


def cli_timings() -> list[dict]:
    """Each of :data:`CLI_ROWS` timed (the store filled by one compare first), printed as it goes."""
    rows = []
    with tempfile.TemporaryDirectory() as store:
        fill = [a.replace("{store}", store) for a in CLI_ROWS[1][1]]
        subprocess.run([sys.executable, "-m", "unosim.cli", *fill, "-q"], capture_output=True, check=True)
        for label, args, target in CLI_ROWS:
            sec, cpu = command_seconds([a.replace("{store}", store) for a in args])
            rows.append({"command": label, "wall_s": sec, "user_cpu_s": cpu, "target_s": target})
            print(f"{label:<28} {sec:6.2f} s wall  {cpu:5.2f} s user CPU  (target {target:g} s wall; median of 3)",
                  flush=True)
    return rows


SWEEP_PAIRS = 5


def sweep_vs_simulate(games: int = 20_000) -> dict:
    """The 20-cell sweep's rounds/s as a ratio to ``simulate`` of the same cells (one thread), start-up
    excluded and included (see the module doc); medians of SWEEP_PAIRS pairs, their order alternating."""
    from unosim import simulate
    from unosim.lab.experiments import run_sweep

    spec = sweep_spec(games)
    cells = [dict(players=p, rules=r) for p in range(2, 7) for r in spec["grid"]["rules"]]
    simulate(games=1000, seed=1, threads=1)

    def sweep() -> tuple[float, float, int]:
        """(simulating seconds, whole seconds, rounds) of the sweep into a fresh store."""
        with tempfile.TemporaryDirectory() as store:
            t = time.perf_counter()
            df = run_sweep(spec, store=store, threads=1)
            return df.attrs["seconds"], time.perf_counter() - t, int(df["games"].sum())

    def simulated() -> tuple[float, float]:
        """(engine seconds, whole seconds) of ``simulate`` of the same cells."""
        engine_s = wall = 0.0
        for kw in cells:
            t = time.perf_counter()
            res = simulate(games=games, seed=spec["seed"], threads=1, **kw)
            wall += time.perf_counter() - t
            engine_s += games / res.summary["games_per_second"]
        return engine_s, wall

    excl, incl = [], []
    for i in range(SWEEP_PAIRS):
        if i % 2:
            (engine_s, sim_wall), (sweep_s, sweep_wall, rounds) = simulated(), sweep()
        else:
            (sweep_s, sweep_wall, rounds), (engine_s, sim_wall) = sweep(), simulated()
        excl.append((rounds / sweep_s) / (len(cells) * games / engine_s))
        incl.append((rounds / sweep_wall) / (len(cells) * games / sim_wall))
    return {"cells": len(cells), "rounds_per_cell": games, "ratio_excluding_startup": statistics.median(excl),
            "ratio_including_startup": statistics.median(incl)}


PAIRS = 9  # interleaved pairs behind each ratio to a reference, of a third of ``--games`` rounds each


@contextlib.contextmanager
def one_core(pin: bool = True):
    """Run the block on one core (the highest-numbered this process may use), and the threads and processes it
    starts too (they inherit it): both sides of a one-thread ratio then run where the other did.  Unpinned, the two
    runs of a pair may land on different cores of a host whose cores run at different speeds from minute to minute:
    on this project's 2-core machine, official against itself (``challenges``) read 0.81x to 1.22x in five runs of
    ``rate`` unpinned, 0.98x to 1.04x pinned (2026-12-07).  ``pin=False`` (or a system without affinity) leaves the
    block as it is."""
    allowed = os.sched_getaffinity(0) if pin and hasattr(os, "sched_getaffinity") else None
    if allowed is None or len(allowed) < 2:
        yield
        return
    os.sched_setaffinity(0, {max(allowed)})
    try:
        yield
    finally:
        os.sched_setaffinity(0, allowed)


RULES_W = 23  # the rules column: "official (harry_potter)"


def rate(rules: str, players: int, policies: str, games: int, threads: int, deck: str = "classic",
         c_exe: Path | None = None, policy_files: list[str] | None = None,
         against: dict | None = None) -> tuple[float, float | None, float | None]:
    """unosim's rounds/s (best of the timed runs, after a warm-up), and a reference's rate timed beside
    them (interleaved, the same rounds): the C reference's when ``c_exe`` is given, or that of the
    ``simulate`` configuration ``against`` (its keyword arguments), else None; and the ratio to the
    reference, the median of PAIRS pairs' ratios (a drift of the machine moves both sides of a pair
    alike; which side goes first alternates, so a steady drift favours neither).  Without a reference:
    best of 2 runs of ``games`` rounds.  Where both sides play on one thread, they run on one core (:func:`one_core`;
    the C reference's process too)."""
    from unosim import simulate

    kw = dict(rules=rules, players=players, policies=policies, threads=threads, deck=deck, policy_files=policy_files)
    with one_core(threads == 1 and (against is None or against.get("threads", 1) == 1)):
        simulate(games=1000, seed=1, **kw)
        if against is not None:
            simulate(games=1000, seed=1, **against)
        if c_exe is None and against is None:
            return max(simulate(games=games, seed=rep, **kw).summary["games_per_second"] for rep in range(2)), None, None

        def reference(n_games: int, seed: int) -> float:
            if c_exe is not None:
                return cref.run(c_exe, players, n_games, seed=seed)["rounds_per_s"]
            return simulate(games=n_games, seed=seed, **against).summary["games_per_second"]

        n_games = max(games // 3, 1000)
        ours, refs = [], []
        for rep in range(PAIRS):
            if rep % 2:
                refs.append(reference(n_games, rep))
            ours.append(simulate(games=n_games, seed=rep, **kw).summary["games_per_second"])
            if not rep % 2:
                refs.append(reference(n_games, rep))
        return max(ours), max(refs), statistics.median(a / b for a, b in zip(ours, refs, strict=True))


def playouts_vs_rounds(rollouts: int = 100, rounds: int = 12) -> dict:
    """``lookahead``'s playouts per second (one seat of four beside three ``greedy``, one thread; its own
    counter of playouts and the seconds spent in its compiled playout calls) as a ratio to whole rounds per
    second of four ``greedy`` (one thread) timed beside it: the median of three interleaved pairs; and the
    same with the wall time of the whole run (Python between decisions and the other seats included)."""
    from unosim import simulate
    from unosim.players.lookahead import COUNTERS

    pols = f"lookahead(rollouts={rollouts}),greedy,greedy,greedy"
    with one_core():
        simulate(games=2, seed=1, players=4, policies=pols, threads=1)
        simulate(games=1000, seed=1, players=4, policies="greedy", threads=1)
        ratios, overall, playouts = [], [], []
        for rep in range(3):
            COUNTERS.reset()
            t = time.perf_counter()
            simulate(games=rounds, seed=rep, players=4, policies=pols, threads=1)
            wall = time.perf_counter() - t
            playouts.append(COUNTERS.playouts / COUNTERS.seconds)
            whole = simulate(games=50_000, seed=rep, players=4, policies="greedy", threads=1).summary["games_per_second"]
            ratios.append(playouts[-1] / whole)
            overall.append(COUNTERS.playouts / wall / whole)
        return {"rollouts": rollouts, "playouts_per_s": max(playouts), "ratio_to_rounds": statistics.median(ratios),
                "ratio_to_rounds_whole_run": statistics.median(overall)}


def dask_vs_local(games: int = 2_000_000, workers: int = 2) -> dict | None:
    """A ``games``-round simulate on ``--backend dask-local --workers 2`` as a ratio to local threads (2):
    wall seconds of the run (the cluster is started once, before, and not counted), the median of five
    interleaved pairs, each pair run in the other order from the one before (single pairs on this 2-core
    machine read 0.80 to 1.05); None where Dask is not installed."""
    try:
        from unosim import simulate
        from unosim.results import backends
        from unosim.results.store import make_cell
    except ImportError:
        return None
    ratios = []
    with backends.backend_session("dask-local", workers=workers) as be:
        backends.run_cell(be, make_cell(), 100_000)
        simulate(games=1000, seed=1, threads=workers)
        for k in range(5):
            seconds = {}
            for side in (("dask", "local") if k % 2 == 0 else ("local", "dask")):
                t = time.perf_counter()
                if side == "dask":
                    backends.run_cell(be, make_cell(), games)
                else:
                    simulate(games=games, seed=0, threads=workers)
                seconds[side] = time.perf_counter() - t
            ratios.append(seconds["local"] / seconds["dask"])
    return {"games": games, "workers": workers, "ratio_to_local": statistics.median(ratios)}


def build_c_reference() -> Path | None:
    """Compile the C reference into build/cref/; None (with a printed note) without a compiler."""
    cc = cref.compiler()
    if cc is None:
        wanted = f"$CC={os.environ['CC']!r}" if os.environ.get("CC", "").strip() else "cc"
        print(f"C reference: skipped (no C compiler: {wanted} not found)")
        return None
    try:
        exe = cref.build(ROOT / "build" / "cref", cc)
    except RuntimeError as e:
        print(f"C reference: skipped ({e})")
        return None
    version = cref.compiler_version(cc)
    print(f"C reference: {cref.SOURCE.relative_to(ROOT)}, {' '.join([*cc, *cref.CFLAGS])}"
          + (f" ({version})" if version else ""))
    return exe


def fmt_c(c_rate: float | None, ratio: float | None) -> str:
    """The C columns of a row: C rounds/s and unosim's ratio to it (blank where not measured)."""
    if c_rate is None:
        return ""
    return f" {c_rate:>12,.0f} {ratio:>7.2f}x"


def other_rules_and_decks() -> list[tuple[str, str]]:
    """(rules, deck) of every rule preset but official on the classic deck, then of official on every other
    deck (each once: aliases left out)."""
    from unosim.ruleset.decks import deck_names
    from unosim.ruleset.rules import PRESETS

    return [(name, "classic") for name in PRESETS if name != "official"] + \
        [("official", deck) for deck in deck_names() if deck != "classic"]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--games", type=int, default=200_000, help="rounds per timing")
    ap.add_argument("--quick", action="store_true", help="fewer configurations")
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args()
    ncpu = os.cpu_count() or 1
    rows = []
    print(f"unosim benchmark: {ncpu} cores, {args.games:,} rounds per timing (best of 2; rows with a ratio:\n"
          f"best of {PAIRS} runs of {max(args.games // 3, 1000):,} rounds interleaved with the reference, the ratio "
          f"the median of the {PAIRS} pairs; both sides of a one-thread ratio on one core)", flush=True)
    with tempfile.TemporaryDirectory() as tmp:
        cold = startup_seconds(tmp)
    # the project's cache may lack the start-up's own functions (a fresh checkout whose first run was a simulate):
    # one start-up fills it, and the figure is the median of three after it
    startup_seconds(None)
    cached = statistics.median(startup_seconds(None) for _ in range(3))
    print(f"cold compile (empty cache):  {cold:6.1f} s")
    print(f"cached start-up:             {cached:6.2f} s", flush=True)
    print()
    cli = cli_timings()
    sweep = sweep_vs_simulate()
    print(f"sweep of {sweep['cells']} cells x {sweep['rounds_per_cell']:,} rounds, one thread: "
          f"{sweep['ratio_excluding_startup']:.2f}x simulate's rounds/s (start-up excluded), "
          f"{sweep['ratio_including_startup']:.2f}x (included)", flush=True)
    scale = rate("official", 4, "random", args.games, ncpu, against=dict(players=4, policies="random", threads=1))
    print(f"{ncpu} threads against 1 (official, 4 players, random): {scale[2]:.2f}x", flush=True)
    play = playouts_vs_rounds()
    print(f"lookahead(rollouts={play['rollouts']}) playouts: {play['playouts_per_s']:,.0f}/s, "
          f"{play['ratio_to_rounds']:.2f}x whole greedy rounds/s (4 players, one thread; "
          f"{play['ratio_to_rounds_whole_run']:.2f}x counting the whole run's time)", flush=True)
    dask = None if args.quick else dask_vs_local(workers=ncpu)
    if dask is not None:
        print(f"dask-local, {dask['workers']} workers, {dask['games']:,} rounds: {dask['ratio_to_local']:.2f}x "
              f"local threads ({dask['workers']})", flush=True)
    c_exe = build_c_reference()
    players_list = (4,) if args.quick else (2, 4, 6)
    c_head = f" {'C rounds/s':>12} {'vs C':>8}" if c_exe is not None else ""
    print(f"\n{'rules':<{RULES_W}} {'players':>7} {'policy':<8} {'threads':>7} {'rounds/s':>12}{c_head}")
    for rules in ("official",):
        for n in players_list:
            for pol in ("random", "greedy"):
                for th in sorted({1, ncpu}):
                    with_c = c_exe if (pol == "random" and th == 1) else None
                    r, c_rate, ratio = rate(rules, n, pol, args.games, th, c_exe=with_c)
                    row = {"rules": rules, "players": n, "policy": pol, "threads": th, "rounds_per_s": r}
                    if c_rate is not None:
                        row.update(c_rounds_per_s=c_rate, ratio_to_c=ratio)
                    rows.append(row)
                    print(f"{rules:<{RULES_W}} {n:>7} {pol:<8} {th:>7} {r:>12,.0f}{fmt_c(c_rate, ratio)}", flush=True)
    # a user's numba policy (greedy written against the observation: the same moves) in one seat of four,
    # as a ratio to four greedy timed beside it
    r, _, ratio = rate("official", 4, "greedy_numba,greedy,greedy,greedy", args.games, 1,
                      policy_files=[str(USER_POLICY)], against=dict(players=4, policies="greedy", threads=1))
    rows.append({"rules": "official", "players": 4, "policy": "greedy_numba,greedy,greedy,greedy", "threads": 1,
                 "rounds_per_s": r, "ratio_to_greedy": ratio})
    print(f"{'official':<{RULES_W}} {4:>7} {'user+3 greedy':<8} {1:>2} {r:>12,.0f}  ({ratio:.2f}x greedy; "
          f"the user seat: greedy_numba of {USER_POLICY.relative_to(ROOT)})", flush=True)
    # the built-in heuristics read the observation the engine builds for them at each decision: four of the
    # strongest (expert), as a ratio to four greedy timed beside them
    r, _, ratio = rate("official", 4, "expert", args.games, 1, against=dict(players=4, policies="greedy", threads=1))
    rows.append({"rules": "official", "players": 4, "policy": "expert", "threads": 1, "rounds_per_s": r,
                 "ratio_to_greedy": ratio})
    print(f"{'official':<{RULES_W}} {4:>7} {'expert':<8} {1:>7} {r:>12,.0f}  ({ratio:.2f}x greedy)", flush=True)
    # other rules and decks, as a ratio to official (4 players, random, one thread) timed beside each
    for rules, deck in other_rules_and_decks():
        r, _, ratio = rate(rules, 4, "random", args.games, 1, deck,
                            against=dict(players=4, policies="random", threads=1))
        label = rules if deck == "classic" else f"{rules} ({deck})"
        rows.append({"rules": rules, "deck": deck, "players": 4, "policy": "random", "threads": 1,
                     "rounds_per_s": r, "ratio_to_official": ratio})
        print(f"{label:<{RULES_W}} {4:>7} {'random':<8} {1:>7} {r:>12,.0f}  ({ratio:.2f}x official)", flush=True)
    if args.json:
        print(json.dumps({"cold_compile_s": cold, "cached_startup_s": cached, "cli": cli, "sweep": sweep,
                          "threads_ratio": scale[2], "playouts": play, "dask": dask, "rows": rows}))


if __name__ == "__main__":
    main()
