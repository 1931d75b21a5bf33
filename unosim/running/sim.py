"""The Python skin over the compiled core: check a run's arguments, then play it in round mode
(:mod:`unosim.running.rounds`) or match mode (:mod:`unosim.running.match`).

>>> from unosim import simulate
>>> res = simulate(rules="official", players=4, policies="random", games=10_000, seed=7)
>>> res.summary["seat_win_rate"]            # doctest: +SKIP
>>> res.records.head()                       # one row per round  # doctest: +SKIP
"""

from __future__ import annotations

from typing import Any

from .. import DEFAULT_GAMES
from ..errors import SimulationError
from ..players.plugins import as_names, load_files
from ..players.policies import PolicySpec, parse_policies, replays
from ..ruleset.rules import RuleSet
from ..validate import (
    SEATINGS,
    check_batch,
    check_first,
    check_mode,
    check_progress,
    check_seating,
    known_options,
)
from .rounds import (  # noqa: F401  (the round-mode names, where they have always been importable)
    BATCH_BOUNDS,
    DEFAULT_BATCH,
    EXTRA_COLUMNS,
    SIMULATE_OPTIONS,
    RoundRun,
    SimulationResult,
    _alloc,
    _run_batch,
    _warm,
    abandon,
    check_fits,
    check_inputs,
    check_rules_fit_deck,
    default_batch,
    default_chunk,
    pack_rules,
    records_frame,
    round_summary,
    run_batches,
    run_meta,
    run_rounds,
    warm_up,
)


def check_simulate(rules: str | RuleSet = "official", players: int = 4, policies: str | list[str] = "greedy",
                   games: int = DEFAULT_GAMES, seed: int = 0, threads: int | None = None, deck: str = "classic",
                   batch_size: int | None = None, progress: bool = False, seating: str = "fixed",
                   mode: str = "round", first: int = 0, policy_files: list[str] | str | None = None,
                   **match_options: Any):
    """Check every argument of :func:`simulate` (same signature) without running anything.

    Returns the validated run (:class:`RoundRun`, or :class:`unosim.running.match.MatchRun` in match mode);
    raises :class:`~unosim.errors.UnosimError` with one line naming the first bad argument.  The
    command line calls this before it creates any output folder."""
    mode = check_mode(mode)
    if mode == "match":
        from .match import check_matches  # match mode's module (and its constants) only for a match

        return check_matches(rules=rules, players=players, policies=policies, games=games, seed=seed,
                             threads=threads, deck=deck, batch_size=batch_size, progress=progress,
                             seating=seating, first=first, policy_files=policy_files, **match_options)
    if match_options:
        from .match import MATCH_OPTIONS

        known_options(match_options, SIMULATE_OPTIONS + MATCH_OPTIONS, "simulate")
        raise SimulationError(f"option {sorted(match_options)[0]!r} applies to mode='match' only; "
                              "accepted: add mode='match' (--mode match), or drop it")
    n, g, t, seed, rs, dk = check_inputs(rules, players, games, seed, threads, deck)
    files = load_files(policy_files)
    specs: list[PolicySpec] = parse_policies(as_names(policies), n)
    bs = check_batch(batch_size, default_batch("round", g, t, slow=any(replays(sp.name) for sp in specs)))
    return RoundRun(n, g, seed, t, rs, dk, specs, SEATINGS[check_seating(seating)], bs, check_progress(progress),
                    first=check_first(first, g), policy_files=tuple(files or ()))


def simulate(rules: str | RuleSet = "official", players: int = 4, policies: str | list[str] = "greedy",
             games: int = DEFAULT_GAMES, seed: int = 0, threads: int | None = None, deck: str = "classic",
             batch_size: int | None = None, progress: bool = False, seating: str = "fixed",
             mode: str = "round", first: int = 0, policy_files: list[str] | str | None = None,
             **match_options: Any) -> SimulationResult:
    """Play ``games`` independent rounds and return per-round records plus a summary.

    The same ``seed`` gives identical records for any ``threads`` and ``batch_size``.
    A KeyboardInterrupt stops after the batches in flight; the finished rounds are returned with
    ``interrupted=True``.

    ``seating``: ``fixed`` (policy i in seat i), ``rotate`` (every policy plays every seat equally
    often) or ``shuffle`` (random seats per game).  ``mode="match"`` plays full games to a target
    score instead of single rounds (see :mod:`unosim.running.match`; ``games`` then counts matches and
    ``match_options`` are ``target``, ``scoring``, ``partners``, ``max_rounds``, ``dealer``,
    ``rounds``, ``rounds_per_partner``, ``round_records``).  ``policy_files``: Python files defining
    policies (see :mod:`unosim.players.policy_api`); their names become usable in ``policies``.

    ``first`` (default 0) plays the rounds with global indices first .. first+games-1 instead of
    0 .. games-1 (the ``game`` column keeps the global index): a run split into such ranges gives
    exactly the records of the whole run (the results store's chunks, :mod:`unosim.results.store`).

    Every argument is checked before anything is compiled or allocated (:func:`check_simulate`); a bad
    one raises :class:`~unosim.errors.SimulationError` (or another :class:`~unosim.errors.UnosimError`)
    whose one-line message names it.
    """
    return check_simulate(rules=rules, players=players, policies=policies, games=games, seed=seed,
                          threads=threads, deck=deck, batch_size=batch_size, progress=progress,
                          seating=seating, mode=mode, first=first, policy_files=policy_files,
                          **match_options).execute()
