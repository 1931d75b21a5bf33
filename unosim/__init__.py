"""unosim: a Monte-Carlo strategy simulator for UNO and its variants.

The public API is re-exported lazily so that ``import unosim`` stays cheap (no numba
compilation or cache loading until a simulation actually runs).
"""

from __future__ import annotations

__version__ = "0.1.0"
# Bumped whenever the same seed, rules and policies would give different results.
# 2: greedy's tie order among equal-point cards treats every coloured draw card (Draw One, Draw Five,
#    Draw Three) like Draw Two and Skip Everyone like Skip, with Flip after Skip (issue 8); greedy on UNO
#    Flip and the Harry Potter deck plays differently, every other record is unchanged.
# 3: what a seat sees (issue 8): at a challenge of a Wild Draw Four laid as the last card, the header shows
#    that attack (its kind, draw total, player and the colour before it) instead of the turn's start, and
#    the attacker (OBS_PEND_FROM) is -1 once an attack has resolved, as documented; policies that read the
#    observation (challenger, users' policies) may decide differently; random and greedy records, and every
#    round without such a seat, are unchanged.
# 4: fidelity (issue 28): with deflect_skip and two players, a Reverse that acts as a Skip is no longer
#    deflected by a Skip of its colour (docs/rules.md 4.6: only exactly the same card deflects a Skip), in the
#    big loop and the fast turns alike; under lazy scoring the next dealer among tied highest hands is
#    drawn at random from the round's own stream (lazy_tie_break=random, docs/rules.md 4.11's default; the old
#    rule is lazy_tie_break=first_clockwise).  What changes: rounds with deflect_skip where two players
#    are at the table (2-player rounds with deflect_skip or everything; everything's play_to_last endgames
#    with 4 or 6 players), and lazy matches where a tie moved the deal and the starting card is a Reverse
#    (the only card for which the dealer matters when the winner leads); self_loser match records gain the
#    columns loser and loser_policy, the other columns unchanged.  Records of every other configuration of
#    scripts/record_hashes.py are identical.
# 5: a draw card (Draw Two, Wild Draw Four, Flip's Draw One / Five / Wild Draw Colour, Draw Three) laid on the
#    turn that reaches turn_cap stays pending when the round ends: its victim draws nothing.  The full turn
#    loop always did this (the round ends at the cap before the victim's response window); the fast turns
#    gave the victim the cards, so `simulate` and `unosim.play` (which logs, and so plays every turn in the
#    full loop) disagreed on such rounds.  What changes: rounds that end at the turn cap right after a
#    draw card, in the columns cards_drawn, reshuffles and hand points; the default cap (10,000 turns) is
#    reached by none of scripts/record_hashes.py's configurations, whose records are identical.
# 6: a jump-in that takes over a bounced attack (reverse_bounce, then an identical Reverse jumped in on the
#    bouncing card) now clears what the bounce said of that attack (no response to it, the victim keeps the
#    turn, the offender may not challenge it), and under accumulate (or Speed Uno's exact match) its draw too.
#    Left set, the flags closed the response window of the next, unrelated attack, and the draw was added to
#    the next draw card, in the full loop, while the fast turns let a Draw card or Skip in between pass
#    without them, so `simulate` and `unosim.play` disagreed.  What changes: rounds with jump-in (or Speed
#    Uno's exact match) and reverse_bounce where a bounce was jumped on (198 of 20,000 `everything` rounds of
#    4 random players, 192 of greedy ones); 8 of scripts/record_hashes.py's configurations (all `everything`).
# 7: a guilty Wild Draw Four under wd4_challenge_guilty_card=returns_to_hand or void (docs/rules.md 1.10).
#    (a) The card before it is current again, colour and symbol: the full turn loop judged the challenger's
#    turn against the Wild Draw Four it had read before the challenge (only the reverted colour matched), while
#    the fast turns read the uncovered card, so `simulate` and `unosim.play` disagreed; and void kept the Wild
#    Draw Four on top (its symbol current), where play is to go on as if it had not been played: it now lies
#    beneath the card before it.  (b) The offender takes its card back before it draws the penalty (002:271:
#    it takes its card back, then draws four): drawing first could reshuffle the card before it away and then
#    take the Wild Draw Four from a discard pile of one card, leaving it empty, after which the next turn read
#    whatever the array held past it: rounds that differed from run to run.  What changes (20,000 rounds, 4
#    random(bluff=0.3,challenge=0.5) seats, seed 7): returns_to_hand 4,342 rounds (the offender's hand order:
#    the card first, then the penalty), with skip_extra_turn 4,815, void 1,477; none of scripts/
#    record_hashes.py's configurations (216 of 216 identical).
ENGINE_VERSION = 7

# Rounds (or matches) a run plays when the caller names no count: `unosim simulate`, `simulate()` and
# `compare` alike.  At 100,000 rounds a 4-player seat's win rate has a 95% interval of about +-0.27
# percentage points (+-0.85 at 10,000), narrow enough to resolve a first player's edge of 1-2 points,
# and one thread plays them in about two seconds with the built-in policies.
DEFAULT_GAMES = 100_000

from ._aliases import install as _install_aliases  # noqa: E402  (the old module names; imports nothing)

_install_aliases()
from .errors import (  # noqa: E402  (light: no numba, no numpy)
    DeckError,
    PolicyError,
    RuleError,
    RunFileError,
    ScenarioError,
    SimulationError,
    UnosimError,
)
from .players import plugins  # noqa: E402,F401  (the registry's loader of heuristics and plugins; no numba)

__all__ = ["__version__", "ENGINE_VERSION", "DEFAULT_GAMES", "simulate", "load", "SimulationResult", "Game",
           "UnosimError", "SimulationError", "RuleError", "PolicyError", "DeckError", "ScenarioError", "RunFileError"]


def __getattr__(name: str):
    if name in ("simulate", "SimulationResult"):
        from .running import sim

        return getattr(sim, name)
    if name == "Game":
        from .agents.game import Game

        return Game
    if name == "load":
        from .results.loading import load

        return load
    raise AttributeError(f"module 'unosim' has no attribute {name!r}")
