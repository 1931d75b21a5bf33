"""Scenario tests of the house rules (docs/rules.md section 4) on rigged decks with scripted decisions.

Every scenario rigs the hands, the starting card and the next cards of the draw pile, scripts every
decision the engine asks for (see :mod:`unosim.running.scenario`) and asserts the exact outcome: the event
trace, who drew how many, who played next, ``g.turns``, the current colour and the ``g.res``
counters.  Turn counting: a play, a draw, a stack, a deflection, a bounce or a jump-in is a turn;
taking a penalty or losing a turn is not.

Most scenarios with a response window start with a Skip (:func:`skip_start`): the last seat loses
its turn to the starting card (an effect nobody may answer) and seat 0 moves first, so the attacks
under test are never the first of the round (the first attack is covered separately: it used to get
no response window).

At the end: per-rule random games (conservation of the 108 cards, termination) and a fuzz test over
random combinations of options.
"""

from __future__ import annotations

import random
from typing import Any

import pytest

from unosim.core import enums as E
from unosim.ruleset.decks import card_name, get_deck
from unosim.ruleset.rules import OPTIONS, RuleError, RuleSet, parse_rules
from unosim.running.scenario import Game, parse_kind, play

# ================================================================================================
# Helpers
# ================================================================================================

_RANK_SHORT = {E.SKIP: "skip", E.REVERSE: "rev", E.DRAW2: "+2"}
_MODES = {1: "stack", 2: "deflect", 3: "bounce", 4: "jump", 5: "stack+"}


def ab(name: str) -> str:
    """Short canonical name of a card: 'r+2', 'bskip', 'grev', 'y7', 'wild', 'wd4'."""
    col, rank = parse_kind(name)
    if col == E.BLACK:
        return "wild" if rank == E.WILD else "wd4"
    return "rygb"[col] + _RANK_SHORT.get(rank, str(rank))


def trace(g: Game) -> list[str]:
    """The event log in a compact form, without the deal event."""
    out = []
    for e in g.events:
        k = e["event"]
        if k == "deal":
            continue
        s = f"{k} {e['seat']}"
        if e["card"]:
            s += " " + ab(e["card"])
        if k == "play" and e["a2"] in _MODES:
            s += " " + _MODES[e["a2"]]
        elif k in ("penalty", "draw") and not e["card"]:
            s += f" {e['a1']}"
        elif k == "stack":
            s += f" ={e['a1']}"
        elif k == "swap":
            s += f" ->{e['a1']}"
        elif k == "challenge":
            s += " guilty" if e["a1"] else " innocent"
        elif k == "direction":
            s += f" {e['a1']:+d}"
        out.append(s)
    return out


def hand(g: Game, seat: int) -> list[str]:
    return sorted(ab(c) for c in g.hands[seat])


def cards(*names: str) -> list[str]:
    return sorted(ab(c) for c in names)


def assert_conserved(g: Game) -> None:
    ids = [c for h in g.hand_ids for c in h] + g.pile_ids + g.discard_ids
    assert sorted(ids) == list(range(g.deck.size))


def run(hands: list[list[str]], start: str, script: list[Any] = (), rules: str = "official",
        pile: list[str] = (), end: str | None = "win", **kw: Any) -> Game:
    g = play(hands=hands, start=start, pile=list(pile), rules=rules, script=list(script),
             policies=kw.pop("policies", "scripted"), **kw)
    assert_conserved(g)
    if end is not None:
        assert g.end_reason == end, trace(g)
    return g


def skip_start(hands: list[list[str]], colour: str = "r", **kw: Any) -> Game:
    """Start with a Skip of ``colour``; the dealer is seat n-2, so seat n-1 loses its turn and seat 0
    moves first."""
    n = len(hands)
    return run(hands, f"{colour}skip", dealer=n - 2, **kw)


# Cards drawn from the pile in the scenarios below (never playable where it matters).
PILE = ["y1", "y2", "y3", "y4", "y5", "y6", "y7", "y8", "y9", "g9", "b9", "b8"]
PILE_POINTS = [1, 2, 3, 4, 5, 6, 7, 8, 9, 9, 9, 8]


# ================================================================================================
# The first attack of a round is answerable (regression: fixed in e0d7361, "fix first-WD4 challenge")
# ================================================================================================

# (rules, hands, script, expected trace): start r5, seat 0 moves first
_FIRST_ATTACK = {
    "stack": ("official+stacking",
              [["r+2", "g1"], ["b+2", "b1"], ["y3"], ["b4"]], ["r+2", "b+2", "b4"],
              ["play 0 r+2", "play 1 b+2 stack", "stack 1 b+2 =4", "penalty 2 4", "skipped 2", "play 3 b4",
               "win 3"]),
    "challenge": ("official",
                  [["wd4", "r1"], ["g1"], ["y3"], ["y4"]], ["wd4", "green", "challenge", "g1"],
                  ["play 0 wd4", "challenge 1 guilty", "penalty 0 4", "play 1 g1", "win 1"]),
    "deflect_skip": ("official+deflect_skip",
                     [["rskip", "g1"], ["rskip", "b1"], ["y3"], ["r4"]], ["rskip", "rskip", "r4"],
                     ["play 0 rskip", "play 1 rskip deflect", "skipped 2", "play 3 r4", "win 3"]),
    "reverse_bounce": ("official+reverse_bounce",
                       [["r+2", "g1"], ["rrev", "b1"], ["y3"], ["r4"]], ["r+2", "rrev", "r4"],
                       ["play 0 r+2", "play 1 rrev bounce", "direction 1 -1", "penalty 0 2", "skipped 0",
                        "play 3 r4", "win 3"]),
    "jump_in_victim": ("official+jump_in(p_beats_scheduled=1)",
                       [["rskip", "g1"], ["rskip", "b1"], ["y3"], ["r4"]], ["rskip", "rskip", "r4"],
                       ["play 0 rskip", "jump_in 1 rskip", "play 1 rskip jump", "skipped 2", "play 3 r4", "win 3"]),
}


@pytest.mark.parametrize("case", list(_FIRST_ATTACK))
def test_first_attack_of_the_round_opens_a_response_window(case: str) -> None:
    rules, hands, script, expected = _FIRST_ATTACK[case]
    g = run(hands, "r5", pile=PILE, rules=rules, script=script)
    assert trace(g) == expected


def test_random_challenge_1_challenges_every_wd4() -> None:
    n = 0
    for seed in range(60):
        g = play(players=4, seed=seed, rules="official", policies="random(challenge=1)")
        ev = g.events
        for i, e in enumerate(ev):
            if e["event"] == "play" and e["card"] == "wd4":
                assert ev[i + 1]["event"] == "challenge", (seed, trace(g))
                n += 1
    assert n > 30


# ================================================================================================
# 4.5 stacking
# ================================================================================================


def test_stacking_three_draw_twos_make_the_fourth_player_draw_6() -> None:
    g = skip_start([["r+2", "g1"], ["b+2", "b1"], ["g+2", "g5"], ["y3", "y4"]],
                   rules="official+stacking", pile=PILE, script=["r+2", "b+2", "g+2", "g1"])
    assert trace(g) == ["skipped 3", "play 0 r+2", "play 1 b+2 stack", "stack 1 b+2 =4",
                        "play 2 g+2 stack", "stack 2 g+2 =6", "penalty 3 6", "skipped 3", "play 0 g1", "win 0"]
    assert (g.winner, g.turns, g.color, g.res["max_stack"]) == (0, 4, "green", 3)
    assert hand(g, 3) == cards("y3", "y4", *PILE[:6])
    assert g.points == 1 + 5 + 3 + 4 + sum(PILE_POINTS[:6])


def test_stacking_no_response_to_the_starting_draw_two() -> None:
    # seat 0 holds a Draw Two but is never asked: it draws 2 and loses the turn
    g = run([["b+2", "b1"], ["r3"]], "r+2", rules="official+stacking", pile=PILE, script=["r3"])
    assert trace(g) == ["penalty 0 2", "skipped 0", "play 1 r3", "win 1"]
    assert (g.winner, g.turns, g.res["max_stack"]) == (1, 1, 0)
    assert hand(g, 0) == cards("b+2", "b1", "y1", "y2")


def test_stacking_mixed_wd4_on_draw_two_and_draw_two_of_named_colour_on_wd4() -> None:
    g = skip_start([["r+2", "y1"], ["wd4", "b2"], ["b+2", "b3"]],
                   rules="official+stacking(stack_mixed=true)", pile=PILE,
                   script=["r+2", "wd4", "blue", "accept", "b+2", "b2"])
    assert trace(g) == ["skipped 2", "play 0 r+2", "play 1 wd4 stack", "stack 1 wd4 =6",
                        "play 2 b+2 stack", "stack 2 b+2 =8", "penalty 0 8", "skipped 0", "play 1 b2", "win 1"]
    assert (g.winner, g.turns, g.color, g.res["max_stack"]) == (1, 4, "blue", 3)
    assert hand(g, 0) == cards("y1", *PILE[:8])


def test_stacking_last_wd4_player_names_the_colour() -> None:
    g = skip_start([["wd4", "y5"], ["wd4", "y6"], ["r1", "r2"]], rules="official+stacking", pile=PILE,
                   script=["wd4", "blue", "accept", "wd4", "yellow", "accept", "y5"])
    assert trace(g) == ["skipped 2", "play 0 wd4", "play 1 wd4 stack", "stack 1 wd4 =8", "penalty 2 8",
                        "skipped 2", "play 0 y5", "win 0"]
    assert (g.turns, g.color, g.res["max_stack"]) == (3, "yellow", 2)
    assert len(g.hands[2]) == 10


# (rules, hands, scripted decisions before the victim's answer, victim, cards it draws): the victim is
# greedy, which stacks whenever it may, so taking the penalty shows that its card may not be stacked
_REFUSED_STACKS = {
    "wd4 on draw two without stack_mixed": (
        "official+stacking", [["r+2", "y1"], ["wd4", "b2"], ["b3"]], ["r+2"], 1, 2),
    "draw two of another colour on wd4": (
        "official+stacking(stack_mixed=true)", [["r+2", "y1"], ["wd4", "b2"], ["g+2", "b3"]],
        ["r+2", "wd4", "blue"], 2, 6),
    "draw two on draw two with stack_draw_two=false": (
        "official+stacking(stack_draw_two=false)", [["r+2", "y1"], ["b+2", "b2"], ["b3"]], ["r+2"], 1, 2),
    "wd4 on wd4 with stack_wd4=false": (
        "official+stacking(stack_wd4=false)", [["wd4", "y1"], ["wd4", "b2"], ["b3"]], ["wd4", "blue"], 1, 4),
    "wd4 restriction inside a stack": (
        "official+stacking", [["wd4", "y1"], ["wd4", "b2"], ["b3"]], ["wd4", "blue"], 1, 4),
}


@pytest.mark.parametrize("case", list(_REFUSED_STACKS))
def test_stacking_refused_stacks(case: str) -> None:
    rules, hands, script, victim, drawn = _REFUSED_STACKS[case]
    policies = ",".join("greedy" if s == victim else "scripted" for s in range(len(hands)))
    g = skip_start(hands, rules=rules, pile=PILE, script=script, policies=policies, end=None)
    t = trace(g)
    i = t.index(f"penalty {victim} {drawn}")
    assert t[i + 1] == f"skipped {victim}"
    assert not [e for e in t[:i] if e.startswith(f"play {victim} ")]


def test_stacking_one_card_per_turn_by_default() -> None:
    # seat 1 holds two Draw Twos but may lay only one; seat 2 (nothing to stack, not asked) takes 4
    g = skip_start([["r+2", "b5"], ["b+2", "g+2", "g1"], ["y3"]], rules="official+stacking", pile=PILE,
                   script=["r+2", "b+2", "b5"])
    assert trace(g) == ["skipped 2", "play 0 r+2", "play 1 b+2 stack", "stack 1 b+2 =4", "penalty 2 4",
                        "skipped 2", "play 0 b5", "win 0"]
    assert (g.turns, g.res["max_stack"]) == (3, 2)


def test_stacking_wd4_restriction_none_inside_a_stack() -> None:
    # regression (fixed in 2596e9f): the stack check used to hard-code the colour restriction
    g = skip_start([["wd4", "y1"], ["wd4", "b2"], ["r3"]], rules="official+stacking+set(wd4_restriction=none)",
                   pile=PILE, script=["wd4", "blue", "accept", "wd4", "yellow", "accept", "y1"])
    assert trace(g) == ["skipped 2", "play 0 wd4", "play 1 wd4 stack", "stack 1 wd4 =8", "penalty 2 8",
                        "skipped 2", "play 0 y1", "win 0"]


@pytest.mark.parametrize("bluff", ["true", "false"])
def test_stacking_wd4_restriction_color_or_number_inside_a_stack(bluff: str) -> None:
    # regression (fixed in 2596e9f): a Wild Draw Four on a Draw Two while holding another Draw Two breaks
    # the color_or_number restriction; it used to be accepted (and was then a challengeable bluff)
    g = skip_start([["r+2", "g7"], ["wd4", "g+2"], ["g3"]],
                   rules="official+stacking(stack_mixed=true)+set(wd4_restriction=color_or_number, "
                   f"allow_wd4_bluff={bluff})", pile=PILE, script=["r+2", "wd4"], end="script_error")
    assert not g.kinds("stack")
    # greedy stacks what it may: the Draw Two
    g = skip_start([["r+2", "g7"], ["wd4", "g+2"], ["g3"]], policies="scripted,greedy,scripted",
                   rules="official+stacking(stack_mixed=true)+set(wd4_restriction=color_or_number)", pile=PILE,
                   script=["r+2"], end=None)
    assert trace(g)[2:4] == ["play 1 g+2 stack", "stack 1 g+2 =4"]


def test_stacking_max_per_turn_2_lays_two_cards_in_one_turn() -> None:
    g = skip_start([["r+2", "g5"], ["b+2", "g+2", "g1"], ["y3"]],
                   rules="official+stacking(stack_max_per_turn=2)", pile=PILE,
                   script=["r+2", "b+2", "g+2", "g5"])
    assert trace(g) == ["skipped 2", "play 0 r+2", "play 1 b+2 stack", "stack 1 b+2 =4", "play 1 g+2 stack+",
                        "stack 1 g+2 =6", "penalty 2 6", "skipped 2", "play 0 g5", "win 0"]
    assert (g.turns, g.res["max_stack"]) == (3, 3)   # the second card of the stacker is no extra turn
    assert hand(g, 1) == ["g1"]


def test_stacking_max_per_turn_2_may_stop_after_one() -> None:
    g = skip_start([["r+2", "b5"], ["b+2", "g+2", "g1"], ["y3"]],
                   rules="official+stacking(stack_max_per_turn=2)", pile=PILE, script=["r+2", "b+2", "take", "b5"])
    assert trace(g) == ["skipped 2", "play 0 r+2", "play 1 b+2 stack", "stack 1 b+2 =4", "penalty 2 4",
                        "skipped 2", "play 0 b5", "win 0"]
    assert hand(g, 1) == cards("g+2", "g1")


def test_stacking_final_victim_keeps_turn_when_stack_final_victim_skips_false() -> None:
    rules = "official+stacking(stack_final_victim_skips=false)"
    g = skip_start([["r+2", "b5"], ["b+2", "b1"], ["y3", "b7"]], rules=rules, pile=PILE,
                   script=["r+2", "b+2", "b7", "b5"])
    assert trace(g) == ["skipped 2", "play 0 r+2", "play 1 b+2 stack", "stack 1 b+2 =4", "penalty 2 4",
                        "play 2 b7", "play 0 b5", "win 0"]
    assert (g.turns, g.res["max_stack"]) == (4, 2)
    # a single Draw Two is no chain: its victim still loses the turn
    g = skip_start([["r+2", "r5"], ["y1", "b1"], ["r7", "b7"]], rules=rules, pile=PILE,
                   script=["r+2", "r7", "r5"], end="win")
    assert trace(g)[:4] == ["skipped 2", "play 0 r+2", "penalty 1 2", "skipped 1"]
    assert g.turns == 3


def test_stacking_challenge_innocent_stacked_wd4_challenger_draws_total_plus_2() -> None:
    g = skip_start([["wd4", "y5"], ["wd4", "y1"], ["r1", "r2"]], rules="official+stacking", pile=PILE,
                   script=["wd4", "green", "accept", "wd4", "yellow", "challenge", "y5"])
    assert trace(g) == ["skipped 2", "play 0 wd4", "play 1 wd4 stack", "stack 1 wd4 =8", "challenge 2 innocent",
                        "penalty 2 10", "skipped 2", "play 0 y5", "win 0"]
    assert (g.turns, g.res["challenges"], g.color) == (3, 1, "yellow")
    assert hand(g, 2) == cards("r1", "r2", *PILE[:10])


def test_challenge_guilty_accumulated_wd4_offender_draws_the_total() -> None:
    # a stacked Wild Draw Four is always legal; a jumped-in one (allow_wd4, accumulate) need not be:
    # seat 2 holds a green card when it jumps in on green, so the challenge finds it guilty of all 8
    g = run([["wd4", "b1"], ["r1", "r2"], ["wd4", "g2"], ["y4"]], "r3", pile=PILE,
            rules="official+jump_in(p_beats_scheduled=1, allow_wd4=true, jump_in_draw_resolution=accumulate)",
            script=["wd4", "green", "wd4", "yellow", "challenge", "y4"])
    assert trace(g) == ["play 0 wd4", "jump_in 2 wd4", "play 2 wd4 jump", "challenge 3 guilty", "penalty 2 8",
                        "play 3 y4", "win 3"]
    assert (g.turns, g.res["challenges"], g.res["jump_ins"], g.color) == (3, 1, 1, "yellow")
    assert hand(g, 1) == cards("r1", "r2")
    assert hand(g, 2) == cards("g2", *PILE[:8])


# ================================================================================================
# 4.6-4.8 deflections
# ================================================================================================


def test_deflect_skip_with_an_identical_skip() -> None:
    g = skip_start([["bskip", "b1"], ["bskip", "b2"], ["r3", "r4"]], colour="g", rules="official+deflect_skip",
                   script=["bskip", "bskip", "b1"])
    assert trace(g) == ["skipped 2", "play 0 bskip", "play 1 bskip deflect", "skipped 2", "play 0 b1", "win 0"]
    assert g.turns == 3
    assert hand(g, 2) == cards("r3", "r4")


def test_deflect_skip_needs_the_same_colour() -> None:
    g = skip_start([["bskip", "b1"], ["yskip", "b2"], ["r3", "r4"]], colour="g", rules="official+deflect_skip",
                   script=["bskip", "yskip"], end="script_error")
    assert trace(g)[:3] == ["skipped 2", "play 0 bskip", "skipped 1"]
    assert not g.kinds("play")[1:]


def test_deflect_draw_two_chain_does_not_add_up() -> None:
    g = skip_start([["r+2", "g1"], ["b+2", "b1"], ["g+2", "g5"], ["y3", "y4"]],
                   rules="official+deflect_draw_two", pile=PILE, script=["r+2", "b+2", "g+2", "g1"])
    assert trace(g) == ["skipped 3", "play 0 r+2", "play 1 b+2 deflect", "play 2 g+2 deflect", "penalty 3 2",
                        "skipped 3", "play 0 g1", "win 0"]
    assert (g.turns, g.res["max_stack"]) == (4, 1)
    assert hand(g, 3) == cards("y3", "y4", "y1", "y2")


def test_deflect_wd4_with_a_draw_two_of_the_named_colour() -> None:
    g = skip_start([["wd4", "b9"], ["b+2", "b3"], ["y1", "y2"]], rules="official+deflect_wd4", pile=PILE,
                   script=["wd4", "blue", "accept", "b+2", "b9"])
    assert trace(g) == ["skipped 2", "play 0 wd4", "play 1 b+2 deflect", "penalty 2 2", "skipped 2",
                        "play 0 b9", "win 0"]
    assert g.turns == 3
    assert hand(g, 1) == ["b3"]          # the 4 are never drawn
    assert len(g.hands[2]) == 4


def test_deflect_wd4_then_deflect_draw_two() -> None:
    g = skip_start([["wd4", "b9"], ["b+2", "g3"], ["g+2", "y2"]],
                   rules="official+deflect_wd4+deflect_draw_two", pile=PILE,
                   script=["wd4", "blue", "accept", "b+2", "g+2", "g3"])
    assert trace(g) == ["skipped 2", "play 0 wd4", "play 1 b+2 deflect", "play 2 g+2 deflect", "penalty 0 2",
                        "skipped 0", "play 1 g3", "win 1"]
    assert g.turns == 4
    assert hand(g, 0) == cards("b9", "y1", "y2")


def test_deflect_wd4_refuses_a_draw_two_of_another_colour() -> None:
    g = skip_start([["wd4", "b9"], ["g+2", "b3"], ["y1", "y2"]], rules="official+deflect_wd4", pile=PILE,
                   script=["wd4", "blue", "accept", "g+2"], end="script_error")
    assert trace(g)[:3] == ["skipped 2", "play 0 wd4", "penalty 1 4"]
    assert not g.kinds("play")[1:]


# ================================================================================================
# 4.9 reverse_bounce
# ================================================================================================

_BOUNCE = {  # attack: (seat 0's hand, script, trace between the bounce and seat 3's play)
    "draw_two": (["r+2", "r9"], ["r+2", "rrev", "r7"], ["penalty 0 2", "skipped 0"]),
    "skip": (["rskip", "r9"], ["rskip", "rrev", "r7"], ["skipped 0"]),
    "wd4": (["wd4", "b9"], ["wd4", "red", "accept", "rrev", "r7"], ["penalty 0 4", "skipped 0"]),
}


@pytest.mark.parametrize("attack", list(_BOUNCE))
def test_reverse_bounce_returns_the_attack(attack: str) -> None:
    h0, script, middle = _BOUNCE[attack]
    g = skip_start([h0, ["rrev", "r1"], ["g1", "g2"], ["r7"]], rules="official+reverse_bounce", pile=PILE,
                   script=script)
    card = ab(h0[0])
    assert trace(g) == ["skipped 3", f"play 0 {card}", "play 1 rrev bounce", "direction 1 -1", *middle,
                        "play 3 r7", "win 3"]
    assert (g.winner, g.turns, g.res["direction"]) == (3, 3, -1)
    assert hand(g, 1) == ["r1"] and hand(g, 2) == cards("g1", "g2")


def test_reverse_bounce_two_players_the_bouncer_plays_again() -> None:
    g = skip_start([["r+2", "r1"], ["rrev", "r4"]], rules="official+reverse_bounce", pile=PILE,
                   script=["r+2", "rrev", "r4"])
    assert trace(g) == ["skipped 1", "play 0 r+2", "play 1 rrev bounce", "direction 1 -1", "penalty 0 2",
                        "skipped 0", "play 1 r4", "win 1"]
    assert g.turns == 3


def test_reverse_bounce_draw_two_only_scope_refuses_a_skip() -> None:
    rules = "official+reverse_bounce(reverse_bounce_scope=draw_two_only)"
    g = skip_start([["rskip", "r9"], ["rrev", "r1"], ["g1", "g2"], ["r7"]], rules=rules, script=["rskip", "rrev"],
                   end="script_error")
    assert "play 1 rrev bounce" not in trace(g)
    g = skip_start([["r+2", "r9"], ["rrev", "r1"], ["g1", "g2"], ["r7"]], rules=rules, pile=PILE,
                   script=["r+2", "rrev", "r7"])
    assert "play 1 rrev bounce" in trace(g) and g.winner == 3


def test_reverse_bounce_colour_requirement() -> None:
    hands = [["r+2", "r9"], ["brev", "r1"], ["g1", "g2"], ["b7"]]
    g = skip_start(hands, rules="official+reverse_bounce", pile=PILE, script=["r+2", "brev"], end="script_error")
    assert trace(g)[:3] == ["skipped 3", "play 0 r+2", "penalty 1 2"]
    assert not g.kinds("play")[1:]
    g = skip_start(hands, rules="official+reverse_bounce(requires_color=false)", pile=PILE,
                   script=["r+2", "brev", "b7"])
    assert trace(g)[1:5] == ["play 0 r+2", "play 1 brev bounce", "direction 1 -1", "penalty 0 2"]
    assert g.winner == 3


def test_reverse_bounce_victim_keeps_turn_when_victim_skips_false() -> None:
    g = skip_start([["r+2", "r9", "b1"], ["rrev", "r1"], ["g1", "g2"], ["r7"]],
                   rules="official+reverse_bounce(victim_skips=false)", pile=PILE, script=["r+2", "rrev", "r9", "r7"])
    assert trace(g) == ["skipped 3", "play 0 r+2", "play 1 rrev bounce", "direction 1 -1", "penalty 0 2",
                        "play 0 r9", "play 3 r7", "win 3"]
    assert g.turns == 4


def test_reverse_bounce_rebounce() -> None:
    hands = [["r+2", "rrev", "r9"], ["rrev", "r1"], ["r5"], ["g7"]]
    g = skip_start(hands, rules="official+reverse_bounce(rebounce=true)", pile=PILE,
                   script=["r+2", "rrev", "rrev", "r5"])
    assert trace(g) == ["skipped 3", "play 0 r+2", "play 1 rrev bounce", "direction 1 -1", "play 0 rrev bounce",
                        "direction 0 +1", "penalty 1 2", "skipped 1", "play 2 r5", "win 2"]
    assert (g.turns, g.res["direction"]) == (4, 1)
    # default: no rebounce, the attacker is never asked
    g = skip_start(hands, rules="official+reverse_bounce", pile=PILE, script=["r+2", "rrev", "g7"],
                   end="script_error")
    assert trace(g)[1:6] == ["play 0 r+2", "play 1 rrev bounce", "direction 1 -1", "penalty 0 2", "skipped 0"]


def test_reverse_bounce_rebounce_wd4_offender_cannot_challenge_its_own_card() -> None:
    # regression (fixed in 2596e9f): the bluffer, hit by its own bounced card, was asked to challenge
    # it and a guilty verdict made the bouncer draw
    g = skip_start([["wd4", "r1", "r2"], ["rrev", "b1"], ["r5"]],
                   rules="official+reverse_bounce(rebounce=true)", pile=PILE,
                   script=["wd4", "red", "accept", "rrev", "r5"])
    assert trace(g) == ["skipped 2", "play 0 wd4", "play 1 rrev bounce", "direction 1 -1", "penalty 0 4",
                        "skipped 0", "play 2 r5", "win 2"]
    assert not g.kinds("challenge")
    assert hand(g, 1) == ["b1"]


def test_a_jump_in_on_a_bounce_leaves_the_next_attack_answerable() -> None:
    # regression: seat 2 jumps in on seat 1's bounce, which takes the bounced Draw Two over; the bounce's "no
    # response" went on closing the next attack's window, so seat 0 could not bounce seat 3's Skip
    g = skip_start([["r+2", "brev", "g9"], ["rrev", "y1"], ["rrev", "b5"], ["rskip", "y7"]],
                   rules="official+reverse_bounce(requires_color=false)+jump_in(p_beats_scheduled=1)", pile=PILE,
                   script=["r+2", "rrev", "rrev", "rskip", "brev", "b5"])
    assert trace(g) == ["skipped 3", "play 0 r+2", "play 1 rrev bounce", "direction 1 -1", "jump_in 2 rrev",
                        "play 2 rrev jump", "direction 2 +1", "play 3 rskip", "play 0 brev bounce", "direction 0 -1",
                        "skipped 3", "play 2 b5", "win 2"]
    assert g.res["cards_drawn"] == 0


def test_a_jump_in_on_a_bounce_drops_the_bounced_draw_under_accumulate() -> None:
    # regression: under jump_in_draw_resolution=accumulate the bounced Draw Two's 2 cards stayed pending after the
    # Reverse jumped in on the bounce took the attack over, and the next attack made its victim draw them too
    g = skip_start([["r+2", "r9", "g1"], ["rrev", "r1"], ["rrev", "b5"], ["wd4", "y7"]],
                   rules="official+reverse_bounce+jump_in(p_beats_scheduled=1)+set(jump_in_draw_resolution=accumulate)",
                   pile=PILE, script=["r+2", "rrev", "rrev", "wd4", "red", "accept", "r1"])
    assert trace(g) == ["skipped 3", "play 0 r+2", "play 1 rrev bounce", "direction 1 -1", "jump_in 2 rrev",
                        "play 2 rrev jump", "direction 2 +1", "play 3 wd4", "penalty 0 4", "skipped 0", "play 1 r1",
                        "win 1"]
    assert g.res["cards_drawn"] == 4


# ================================================================================================
# 4.1, 4.2 jump_in
# ================================================================================================


def test_jump_in_play_continues_from_the_jumper() -> None:
    g = run([["r5", "r1"], ["b1", "b2"], ["r5", "r6"], ["r7"]], "r3",
            rules="official+jump_in(p_beats_scheduled=1)", script=["r5", "r5", "r7"], dealer=3)
    assert trace(g) == ["play 0 r5", "jump_in 2 r5", "play 2 r5 jump", "play 3 r7", "win 3"]
    assert (g.winner, g.turns, g.res["jump_ins"]) == (3, 3, 1)
    assert hand(g, 1) == cards("b1", "b2")       # the scheduled player lost its turn


def test_jump_in_loses_the_race_with_p_beats_scheduled_0() -> None:
    g = run([["r5", "r1"], ["r8", "b2"], ["r5", "r6"], ["r7"]], "r3",
            rules="official+jump_in(p_beats_scheduled=0)", script=["r5", "r5", "r8", "r6", "r7"], dealer=3)
    assert trace(g) == ["play 0 r5", "play 1 r8", "play 2 r6", "play 3 r7", "win 3"]
    assert (g.turns, g.res["jump_ins"]) == (4, 0)


def test_jump_in_asks_in_seat_order_from_the_scheduled_player() -> None:
    # seats 2 and 3 hold a Wild (a coloured card exists only twice); seat 2 is asked first, then seat 3
    hands = [["wild", "r1"], ["b1", "b2"], ["wild", "g6"], ["wild", "g7"]]
    rules = "official+jump_in(p_beats_scheduled=1)"
    hands[0] = ["wild", "b1"]
    for seed in range(8):
        # seat 2 declines twice (after seat 0's and after seat 3's Wild); seat 0 then wins
        g = run(hands, "r3", rules=rules, script=["wild", "green", "none", "wild", "blue", "none", "b1"], dealer=3,
                seed=seed)
        assert trace(g) == ["play 0 wild", "jump_in 3 wild", "play 3 wild jump", "play 0 b1", "win 0"]
        assert g.color == "blue"
    # both want to: the race winner is drawn uniformly among them
    jumpers = set()
    for seed in range(24):
        g = run(hands, "r3", rules=rules, script=["wild", "green", "wild", "wild", "blue"], dealer=3,
                seed=seed, end="script_error")
        assert g.res["jump_ins"] == 1
        jumpers.add(g.kinds("jump_in")[0]["seat"])
    assert jumpers == {2, 3}


def test_jump_in_action_cards_act_from_the_jumper() -> None:
    rules = "official+jump_in(p_beats_scheduled=1)"
    # a Skip jumped in by seat 2 skips seat 3; seat 1, the first target, loses its turn anyway
    g = run([["rskip", "r1"], ["b1"], ["rskip", "r6"], ["r7"]], "r3", rules=rules, script=["rskip", "rskip", "r1"])
    assert trace(g) == ["play 0 rskip", "jump_in 2 rskip", "play 2 rskip jump", "skipped 3", "play 0 r1", "win 0"]
    # two Reverses cancel: after seat 2's Reverse play goes clockwise from seat 2
    g = run([["rrev", "r1"], ["b1"], ["rrev", "r6"], ["r7"]], "r3", rules=rules, script=["rrev", "rrev", "r7"])
    assert trace(g) == ["play 0 rrev", "direction 0 -1", "jump_in 2 rrev", "play 2 rrev jump", "direction 2 +1",
                        "play 3 r7", "win 3"]
    assert (g.turns, g.res["direction"]) == (3, 1)


def test_jump_in_not_on_the_starting_card() -> None:
    g = run([["r1"], ["r5", "b2"], ["b3"]], "r5", rules="official+jump_in(p_beats_scheduled=1)", script=["r1"])
    assert trace(g) == ["play 0 r1", "win 0"]


def test_jump_in_never_with_a_wd4_but_wild_on_wild() -> None:
    rules = "official+jump_in(p_beats_scheduled=1)"
    g = run([["wild", "r1"], ["b1", "b2"], ["wild", "g6"], ["y7"]], "r3", rules=rules, dealer=3,
            script=["wild", "green", "wild", "yellow", "y7"], pile=PILE)
    assert trace(g) == ["play 0 wild", "jump_in 2 wild", "play 2 wild jump", "play 3 y7", "win 3"]
    assert (g.turns, g.res["jump_ins"]) == (3, 1)
    g = skip_start([["wd4", "b1"], ["b1", "b2"], ["wd4", "g6"], ["g7"]], rules=rules,
                   script=["wd4", "green", "accept", "g6", "g7"], pile=PILE)
    assert trace(g) == ["skipped 3", "play 0 wd4", "penalty 1 4", "skipped 1", "play 2 g6", "play 3 g7", "win 3"]
    assert g.res["jump_ins"] == 0


@pytest.mark.parametrize("resolution,drawn", [("transfer", 2), ("accumulate", 4)])
def test_jump_in_draw_two_on_draw_two(resolution: str, drawn: int) -> None:
    g = run([["r+2", "r1"], ["b1", "b2"], ["r+2", "r6"], ["y1", "y2"]], "r3", dealer=3, pile=PILE,
            rules=f"official+jump_in(p_beats_scheduled=1, jump_in_draw_resolution={resolution})",
            script=["r+2", "r+2", "r1"])
    assert trace(g) == ["play 0 r+2", "jump_in 2 r+2", "play 2 r+2 jump", f"penalty 3 {drawn}", "skipped 3",
                        "play 0 r1", "win 0"]
    assert (g.turns, g.res["jump_ins"]) == (3, 1)
    assert hand(g, 1) == cards("b1", "b2")      # the first target draws nothing
    assert len(g.hands[3]) == 2 + drawn


def test_jump_in_victim_deflects_itself() -> None:
    g = skip_start([["bskip", "b1"], ["bskip", "b2"], ["g1", "g2"], ["b7"]], colour="g",
                   rules="official+jump_in(p_beats_scheduled=1)", script=["bskip", "bskip", "b7"])
    assert trace(g) == ["skipped 3", "play 0 bskip", "jump_in 1 bskip", "play 1 bskip jump", "skipped 2",
                        "play 3 b7", "win 3"]
    assert (g.turns, g.res["jump_ins"]) == (3, 1)


def test_double_play_jump_in() -> None:
    g = run([["r5", "r5", "r1"], ["r2"], ["b2"]], "r3", dealer=2,
            rules="official+jump_in+double_play_jump_in(p_self_jump_wins=1)", script=["r5", "r5", "r2"])
    assert trace(g) == ["play 0 r5", "jump_in 0 r5", "play 0 r5 jump", "play 1 r2", "win 1"]
    assert (g.turns, g.res["jump_ins"]) == (3, 1)
    # p_self_jump_wins=0: the second card never lands first (the player is not even asked)
    g = run([["r5", "r5", "r1"], ["r2"], ["b2"]], "r3", dealer=2,
            rules="official+jump_in+double_play_jump_in(p_self_jump_wins=0)+set(p_beats_scheduled=0)",
            script=["r5", "r2"])
    assert trace(g) == ["play 0 r5", "play 1 r2", "win 1"]
    assert g.res["jump_ins"] == 0


# ================================================================================================
# 4.3 seven_zero, 4.4 zero_swap_any, 4.10 swap_on_five
# ================================================================================================


def test_seven_swaps_hands_with_the_chosen_player() -> None:
    g = run([["r7", "y1", "y2"], ["r9"], ["g1", "g2", "g3"]], "r3", dealer=2, rules="official+seven_zero",
            script=["r7", 2, "r9"])
    assert trace(g) == ["play 0 r7", "swap 0 r7 ->2", "play 1 r9", "win 1"]
    assert (g.turns, g.res["swaps"]) == (2, 1)
    assert hand(g, 0) == cards("g1", "g2", "g3") and hand(g, 2) == cards("y1", "y2")
    assert g.points == 6 + 3


def test_seven_as_the_last_card_just_wins() -> None:
    g = run([["r7"], ["b1", "b2"], ["g1"]], "r3", dealer=2, rules="official+seven_zero", script=["r7"])
    assert trace(g) == ["play 0 r7", "win 0"]
    assert (g.res["swaps"], g.points) == (0, 4)


def test_seven_swap_mandatory_or_optional() -> None:
    hands = [["r7", "y1", "y2"], ["r9"], ["g1", "g2", "g3"]]
    g = run(hands, "r3", dealer=2, rules="official+seven_zero", script=["r7", "none"], end="script_error")
    assert g.res["swaps"] == 0
    g = run(hands, "r3", dealer=2, rules="official+seven_zero(seven_swap_mandatory=false)",
            script=["r7", "none", "r9"])
    assert trace(g) == ["play 0 r7", "play 1 r9", "win 1"]
    assert g.res["swaps"] == 0 and hand(g, 0) == cards("y1", "y2")


@pytest.mark.parametrize("direction,script,h0,h2", [
    # after the Reverse play runs counter-clockwise: 2 -> 1 -> 0 -> 2
    ("play_direction", ["rrev", "r0", "r1"], ["b1", "b2", "b3"], ["r2"]),
    # left: always 0 -> 1 -> 2 -> 0
    ("left", ["rrev", "r0", "r2"], ["r1"], ["b1", "b2", "b3"]),
])
def test_zero_passes_every_hand(direction: str, script: list[str], h0: list[str], h2: list[str]) -> None:
    g = run([["rrev", "r2"], ["b1", "b2", "b3"], ["r0", "r1"]], "r3", dealer=2,
            rules=f"official+seven_zero(zero_pass_direction={direction})", script=script)
    assert trace(g) == ["play 0 rrev", "direction 0 -1", "play 2 r0", "swap 2 r0 ->-1", f"play 1 {script[2]}",
                        "win 1"]
    assert (g.turns, g.res["swaps"]) == (3, 1)
    assert hand(g, 0) == cards(*h0) and hand(g, 2) == cards(*h2)


def test_zero_pass_clockwise() -> None:
    g = run([["r0", "r1"], ["b5", "b6"], ["g5", "g6", "g7"]], "r3", dealer=2, rules="official+seven_zero",
            script=["r0", "r1"])
    assert trace(g) == ["play 0 r0", "swap 0 r0 ->-1", "play 1 r1", "win 1"]
    assert hand(g, 0) == cards("g5", "g6", "g7") and hand(g, 2) == cards("b5", "b6")


def test_seven_zero_greedy_swaps_with_the_fewest_cards_nearest_in_direction() -> None:
    # clockwise from seat 0: seat 1 (3 cards), seat 2 (2), seat 3 (2) -> seat 2
    g = run([["r7", "r1"], ["b1", "b2", "b3"], ["g1", "g2"], ["y1", "y2"]], "r3", dealer=3,
            rules="official+seven_zero", policies="greedy")
    assert g.kinds("swap")[0]["seat"] == 0 and g.kinds("swap")[0]["a1"] == 2
    # counter-clockwise from seat 3 (after seat 0's Reverse): seat 2 (2), seat 1 (3), seat 0 (2) -> seat 2
    g = run([["rrev", "r1", "y5"], ["b1", "b2", "b3"], ["g1", "g2"], ["r7", "r2"]], "r3", dealer=3,
            rules="official+seven_zero", policies="greedy")
    assert trace(g)[:4] == ["play 0 rrev", "direction 0 -1", "play 3 r7", "swap 3 r7 ->2"]


def test_zero_swap_any_is_optional() -> None:
    hands = [["r0", "y1", "y2"], ["r9"], ["g1", "g2", "g3"]]
    g = run(hands, "r3", dealer=2, rules="official+zero_swap_any", script=["r0", 2, "r9"])
    assert trace(g) == ["play 0 r0", "swap 0 r0 ->2", "play 1 r9", "win 1"]
    assert hand(g, 0) == cards("g1", "g2", "g3") and hand(g, 2) == cards("y1", "y2")
    g = run(hands, "r3", dealer=2, rules="official+zero_swap_any", script=["r0", "none", "r9"])
    assert trace(g) == ["play 0 r0", "play 1 r9", "win 1"]
    assert g.res["swaps"] == 0
    # a 7 does nothing under zero_swap_any alone
    g = run([["r7", "y1"], ["r9"], ["g1"]], "r3", dealer=2, rules="official+zero_swap_any", script=["r7", "r9"])
    assert trace(g) == ["play 0 r7", "play 1 r9", "win 1"]


def test_swap_on_five_one_card_each_own_choice() -> None:
    g = run([["r5", "y9", "r1"], ["r2"], ["g1", "b2"]], "r3", dealer=2, rules="official+swap_on_five",
            script=["r5", 2, "y9", "b2", "r2"])
    assert trace(g) == ["play 0 r5", "swap 0 r5 ->2", "play 1 r2", "win 1"]
    assert (g.turns, g.res["swaps"]) == (2, 1)
    assert hand(g, 0) == cards("r1", "b2") and hand(g, 2) == cards("g1", "y9")


def test_swap_on_five_whole_hand_and_decline() -> None:
    hands = [["r5", "y9", "r1"], ["r2"], ["g1", "b2", "b3"]]
    g = run(hands, "r3", dealer=2, rules="official+swap_on_five(swap5_mode=whole_hand)", script=["r5", 2, "r2"])
    assert trace(g) == ["play 0 r5", "swap 0 r5 ->2", "play 1 r2", "win 1"]
    assert hand(g, 0) == cards("g1", "b2", "b3") and hand(g, 2) == cards("y9", "r1")
    g = run(hands, "r3", dealer=2, rules="official+swap_on_five", script=["r5", "none", "r2"])
    assert g.res["swaps"] == 0 and hand(g, 0) == cards("y9", "r1")
    g = run(hands, "r3", dealer=2, rules="official+swap_on_five(swap5_optional=false)", script=["r5", "none"],
            end="script_error")
    assert g.res["swaps"] == 0


# ================================================================================================
# 4.17 draw_until_playable, drawn-card and voluntary-draw options (1.9)
# ================================================================================================


def test_draw_until_playable_draws_until_a_playable_card_and_plays_it() -> None:
    g = run([["b1"], ["r9"]], "r3", rules="official+draw_until_playable", pile=["y2", "g4", "r8"],
            script=["draw", "r9"])
    assert trace(g) == ["draw 0 y2", "draw 0 g4", "draw 0 r8", "play 0 r8", "play 1 r9", "win 1"]
    assert g.turns == 2                           # drawing three cards and playing one is one turn
    assert hand(g, 0) == cards("b1", "y2", "g4")


def test_draw_until_playable_without_must_play() -> None:
    g = run([["b1"], ["r9"]], "r3", rules="official+draw_until_playable(dup_must_play_found=false)",
            pile=["y2", "g4", "r8"], script=["draw", "keep", "r9"])
    assert trace(g) == ["draw 0 y2", "draw 0 g4", "draw 0 r8", "pass 0 r8", "play 1 r9", "win 1"]
    assert hand(g, 0) == cards("b1", "y2", "g4", "r8")


def test_drawn_card_play_forced() -> None:
    g = run([["b1"], ["r9"]], "r3", rules="official+set(drawn_card_play=forced)", pile=["r8"],
            script=["draw", "r9"])
    assert trace(g) == ["draw 0 r8", "play 0 r8", "play 1 r9", "win 1"]
    g = run([["b1"], ["r9"]], "r3", rules="official", pile=["r8"], script=["draw", "keep", "r9"])
    assert trace(g) == ["draw 0 r8", "pass 0 r8", "play 1 r9", "win 1"]
    # official: one card only, an unplayable draw ends the turn
    g = run([["b1"], ["r9"]], "r3", rules="official", pile=["y2", "r8"], script=["draw", "r9"])
    assert trace(g) == ["draw 0 y2", "pass 0 y2", "play 1 r9", "win 1"]


def test_voluntary_draw_false_refuses_a_draw_while_holding_a_legal_card() -> None:
    g = run([["r1", "b1"], ["r9"]], "r3", rules="official+set(voluntary_draw=false)", pile=["y2"],
            script=["draw"], end="script_error")
    assert g.turns == 1
    g = run([["r1", "b1"], ["r9"]], "r3", rules="official", pile=["y2"], script=["draw", "r9"])
    assert trace(g) == ["draw 0 y2", "pass 0 y2", "play 1 r9", "win 1"]
    # without a legal card the draw is allowed
    g = run([["b1"], ["r9"]], "r3", rules="official+set(voluntary_draw=false)", pile=["y2"], script=["draw", "r9"])
    assert trace(g) == ["draw 0 y2", "pass 0 y2", "play 1 r9", "win 1"]


_REFUSED_MOVES = {  # (hands, start, rules, script, trace up to the refused move)
    "voluntary draw": ([["r1", "b1"], ["r9"]], "r3", "official+set(voluntary_draw=false)", ["draw"], []),
    "response card": ([["r+2", "r9"], ["rrev", "brev", "r1"], ["g1", "g2"], ["b7"]], "rskip",
                      "official+reverse_bounce", ["r+2", "brev"], ["skipped 3", "play 0 r+2"]),
}


@pytest.mark.parametrize("case", list(_REFUSED_MOVES))
def test_a_refused_scripted_move_changes_nothing(case: str) -> None:
    hands, start, rules, script, expected = _REFUSED_MOVES[case]
    g = run(hands, start, rules=rules, script=script, pile=PILE, dealer=len(hands) - 2 if start == "rskip" else None,
            end="script_error")
    assert trace(g) == expected
    assert all(len(g.hands[s]) == len(hands[s]) - (s == 0 and bool(expected)) for s in range(len(hands)))


# ================================================================================================
# 1.10, 1.11 Wild Draw Four restriction and challenge
# ================================================================================================


@pytest.mark.parametrize("restriction,other,guilty", [
    ("color", "bskip", False), ("color", "r1", True),
    ("color_or_number", "bskip", True), ("color_or_number", "r1", True), ("color_or_number", "b1", False),
    ("none", "bskip", False), ("none", "r1", False),
])
def test_wd4_restriction_decides_the_challenge(restriction: str, other: str, guilty: bool) -> None:
    # the top card is a red Skip; seat 1 challenges; guilty: seat 0 draws 4 and seat 1 plays g5
    g = skip_start([["wd4", other], ["g5"], ["g6"]], rules=f"official+set(wd4_restriction={restriction})",
                   pile=PILE, script=["wd4", "green", "challenge", "g5" if guilty else "g6"])
    verdict = "guilty" if guilty else "innocent"
    if guilty:
        assert trace(g) == ["skipped 2", "play 0 wd4", f"challenge 1 {verdict}", "penalty 0 4", "play 1 g5", "win 1"]
        assert hand(g, 0) == cards(other, *PILE[:4])
    else:
        assert trace(g) == ["skipped 2", "play 0 wd4", f"challenge 1 {verdict}", "penalty 1 6", "skipped 1",
                            "play 2 g6", "win 2"]
        assert hand(g, 1) == cards("g5", *PILE[:6])
    assert (g.turns, g.res["challenges"]) == (2, 1)


@pytest.mark.parametrize("restriction,legal", [("color", False), ("color_or_number", False), ("none", True)])
def test_wd4_restriction_without_bluffing(restriction: str, legal: bool) -> None:
    g = run([["wd4", "r1"], ["g5"]], "r3", rules=f"official+set(wd4_restriction={restriction}, allow_wd4_bluff=false)",
            pile=PILE, script=["wd4", "green", "g5"] if legal else ["wd4"], end="script_error")
    assert (trace(g)[:1] == ["play 0 wd4"]) == legal


# (extra rules, script after the challenge, trace after the penalty up to the turn cap, discard top,
# colour, seat 0's hand besides the 4 drawn)
_GUILTY = {
    "stays": ("", ["g5"], ["play 1 g5", "cap 2"], "g5", "green", ["r1"]),
    "returns_to_hand": ("guilty_card=returns_to_hand", ["r5"], ["play 1 r5", "cap 2"], "r5", "red", ["r1", "wd4"]),
    "void": ("guilty_card=void", ["r5"], ["play 1 r5", "cap 2"], "r5", "red", ["r1"]),
    "challenger_does_not_play": ("success_challenger_plays=false", ["g7"], ["play 2 g7", "cap 0"], "g7", "green",
                                 ["r1"]),
}


@pytest.mark.parametrize("case", list(_GUILTY))
def test_wd4_challenge_guilty(case: str) -> None:
    extra, script, after, top, colour, h0 = _GUILTY[case]
    g = skip_start([["wd4", "r1"], ["g5", "r5"], ["g7", "g8"]], rules=f"official+wd4_challenge({extra})+set(turn_cap=2)",
                   pile=PILE, script=["wd4", "green", "challenge", *script], end="turn_cap")
    assert trace(g) == ["skipped 2", "play 0 wd4", "challenge 1 guilty", "penalty 0 4", *after]
    assert g.turns == 2
    assert ab(g.discard[-1]) == top and g.color == colour
    if case == "returns_to_hand":
        assert ab(g.discard[-2]) == "rskip"
    assert hand(g, 0) == cards(*h0, *PILE[:4])
    assert g.res["challenges"] == 1


@pytest.mark.parametrize("guilty_card", ["returns_to_hand", "void"])
def test_a_guilty_wd4_taken_back_or_void_uncovers_the_card_before_it(guilty_card: str) -> None:
    """returns_to_hand and void (docs/rules.md 1.10): the previous top card and its colour become current again
    (void: play goes on as if the Wild Draw Four had not been played; it lies beneath that card), so the
    challenger may follow that card's symbol in another colour (here a green Skip on the red Skip).  The full
    loop once judged that turn against the Wild Draw Four it had read before the challenge (only the colour then
    matched), while the fast turns read the uncovered card."""
    g = skip_start([["wd4", "r1"], ["gskip", "g5"], ["g7", "g8"]],
                   rules=f"official+wd4_challenge(guilty_card={guilty_card})+set(turn_cap=2)", pile=PILE,
                   script=["wd4", "green", "challenge", "gskip"], end="turn_cap")
    assert trace(g)[:5] == ["skipped 2", "play 0 wd4", "challenge 1 guilty", "penalty 0 4", "play 1 gskip"]
    assert [ab(c) for c in g.discard[-2:]] == ["rskip", "gskip"] and g.color == "green"
    assert [ab(c) for c in g.discard[:-2]] == (["wd4"] if guilty_card == "void" else [])
    assert ("wd4" in hand(g, 0)) == (guilty_card == "returns_to_hand")


@pytest.mark.parametrize("guilty_card", ["returns_to_hand", "void"])
def test_a_guilty_penalty_that_reshuffles_keeps_the_uncovered_card_on_top(guilty_card: str) -> None:
    """The offender takes its card back (or it goes beneath the card before it) before it draws the penalty
    (002:271: it takes its card back, then draws four).  Here the pile holds two cards, so the draw reshuffles
    the discard pile: the card before the Wild Draw Four stays on top.  Drawing first once reshuffled that card
    away and then took the Wild Draw Four back from a discard pile of one card, leaving it empty (the next turn
    read whatever the array held past it: rounds that differed from run to run)."""
    deck = get_deck("classic")
    rest = sorted(ab(card_name(deck, c)) for c in range(deck.size))
    for used in ["rskip", "wd4", "r1", "gskip", "g5", "y1", "y2"]:
        rest.remove(used)
    g = skip_start([["wd4", "r1"], ["gskip", "g5"], rest],
                   rules=f"official+wd4_challenge(guilty_card={guilty_card})+set(turn_cap=2)", pile=["y1", "y2"],
                   script=["wd4", "green", "challenge", "gskip"], end="turn_cap")
    # taken back, it is in the offender's hand; void, it lies beneath the Skip, so the reshuffle takes it and the
    # offender draws it with the penalty
    drawn = ["penalty 0 2"] if guilty_card == "returns_to_hand" else ["reshuffle -1", "penalty 0 3"]
    assert trace(g) == ["skipped 2", "play 0 wd4", "challenge 1 guilty", *drawn, "play 1 gskip", "cap 2"]
    assert [ab(c) for c in g.discard] == ["rskip", "gskip"] and g.color == "green"
    assert hand(g, 0) == cards("r1", "wd4", "y1", "y2") and g.pile == []


def test_wd4_challenge_guilty_offender_skips() -> None:
    g = skip_start([["wd4", "r1"], ["g5", "g6"], ["g7", "g8"]],
                   rules="official+wd4_challenge(guilty_offender_skips=true)", pile=PILE,
                   script=["wd4", "green", "challenge", "g5", "g7", "g6"])
    assert trace(g) == ["skipped 2", "play 0 wd4", "challenge 1 guilty", "penalty 0 4", "play 1 g5", "play 2 g7",
                        "skipped 0", "play 1 g6", "win 1"]
    assert g.turns == 4


def test_wd4_challenge_innocent_challenger_draws_6_and_loses_the_turn() -> None:
    g = skip_start([["wd4", "b1"], ["g5"], ["g7"]], rules="official", pile=PILE,
                   script=["wd4", "green", "challenge", "g7"])
    assert trace(g) == ["skipped 2", "play 0 wd4", "challenge 1 innocent", "penalty 1 6", "skipped 1", "play 2 g7",
                        "win 2"]
    assert (g.turns, g.res["challenges"]) == (2, 1)
    # accepted: 4 cards, turn lost, no challenge counted
    g = skip_start([["wd4", "b1"], ["g5"], ["g7"]], rules="official", pile=PILE, script=["wd4", "green", "accept", "g7"])
    assert trace(g) == ["skipped 2", "play 0 wd4", "penalty 1 4", "skipped 1", "play 2 g7", "win 2"]
    assert g.res["challenges"] == 0


def test_policy_random_bluff_1_always_bluffs() -> None:
    for seed in range(10):
        g = run([["wd4", "r1"], ["b1", "b2"]], "r3", policies="random(bluff=1),random", seed=seed, end=None)
        assert g.kinds("play")[0]["card"] == "wd4"
        g = run([["wd4", "r1"], ["b1", "b2"]], "r3", policies="random,random", seed=seed, end=None)
        assert g.kinds("play")[0]["card"] == "red 1"


def test_policy_random_challenge_1_always_challenges() -> None:
    for seed in range(10):
        g = skip_start([["wd4", "b1"], ["g5"], ["b2"]], policies="scripted,random(challenge=1),random", seed=seed,
                       pile=PILE, script=["wd4", "blue"])
        assert trace(g) == ["skipped 2", "play 0 wd4", "challenge 1 innocent", "penalty 1 6", "skipped 1",
                            "play 2 b2", "win 2"]


# ================================================================================================
# 1.12 UNO call, 4.12 uno_to_center
# ================================================================================================


def test_forgotten_uno_is_caught() -> None:
    rules = "official+set(uno_forget_prob=1, uno_catch_prob=1, turn_cap=1)"
    g = run([["r1", "r2"], ["b1", "b2"]], "r3", rules=rules, pile=PILE, script=["r1"], end="turn_cap")
    assert trace(g) == ["play 0 r1", "uno_caught 0", "penalty 0 2", "cap 1"]
    assert g.res["uno_caught"] == 1 and hand(g, 0) == cards("r2", "y1", "y2")
    g = run([["r1", "r2"], ["b1", "b2"]], "r3", rules="official+set(uno_forget_prob=1, uno_catch_prob=0, turn_cap=1)",
            pile=PILE, script=["r1"], end="turn_cap")
    assert trace(g) == ["play 0 r1", "cap 1"] and g.res["uno_caught"] == 0
    g = run([["r1", "r2"], ["b1", "b2"]], "r3", rules="official+set(uno_forget_prob=1, uno_penalty=4, turn_cap=1)",
            pile=PILE, script=["r1"], end="turn_cap")
    assert trace(g) == ["play 0 r1", "uno_caught 0", "penalty 0 4", "cap 1"]


def test_uno_to_center_a_random_other_player_draws() -> None:
    g = run([["r1", "r2"], ["b1", "b2"]], "r3", rules="official+uno_to_center+set(turn_cap=1)", pile=PILE,
            script=["r1"], end="turn_cap")
    assert trace(g) == ["play 0 r1", "penalty 1 2", "cap 1"]
    losers = set()
    for seed in range(30):
        g = run([["r1", "r2"], ["b1"], ["b2"], ["b3"]], "r3", dealer=3,
                rules="official+uno_to_center(uno_center_penalty=3)+set(turn_cap=1)",
                pile=PILE, script=["r1"], end="turn_cap", seed=seed)
        pens = g.kinds("penalty")
        assert len(pens) == 1 and pens[0]["a1"] == 3 and pens[0]["seat"] != 0
        losers.add(pens[0]["seat"])
    assert losers == {1, 2, 3}
    # a forgotten call is handled by 1.12, not by the centre race
    g = run([["r1", "r2"], ["b1", "b2"]], "r3", rules="official+uno_to_center+set(uno_forget_prob=1, turn_cap=1)",
            pile=PILE, script=["r1"], end="turn_cap")
    assert trace(g) == ["play 0 r1", "uno_caught 0", "penalty 0 2", "cap 1"]


# ================================================================================================
# 4.13 wild_color_rotation
# ================================================================================================

_CW = {"r": "blue", "b": "green", "g": "yellow", "y": "red"}
_CCW = {"r": "yellow", "y": "green", "g": "blue", "b": "red"}


def test_wild_color_rotation_starting_wild_first_player_names_the_colour() -> None:
    g = run([["g1"], ["b1"]], "wild", rules="official+wild_color_rotation", script=["green", "g1"])
    assert trace(g) == ["play 0 g1", "win 0"]


@pytest.mark.parametrize("colour", "rygb")
@pytest.mark.parametrize("card", ["wild", "wd4"])
def test_wild_color_rotation(colour: str, card: str) -> None:
    rules = "official+wild_color_rotation"
    # clockwise; no colour is asked (the script has none)
    g = run([[card], ["b1"], ["g1"]], f"{colour}3", dealer=2, rules=rules, pile=PILE,
            script=[card] + (["accept"] if card == "wd4" else []))
    assert g.color == _CW[colour] and g.winner == 0
    # counter-clockwise after a Reverse
    g = run([[f"{colour}rev", f"{colour}1"], ["b1"], [card]], f"{colour}3", dealer=2, rules=rules, pile=PILE,
            script=[f"{colour}rev", card] + (["accept"] if card == "wd4" else []))
    assert g.color == _CCW[colour] and g.winner == 2


# ================================================================================================
# 4.14 play_to_last, 4.15 uno_seven_rounds, 4.16 zero_worth_50
# ================================================================================================


def test_play_to_last_two_player_rules_once_two_remain() -> None:
    g = run([["r1"], ["rrev", "r4"], ["r5", "r6"]], "r3", dealer=2, rules="official+play_to_last",
            script=["r1", "rrev", "r4"])
    # with two left the Reverse acts as a Skip
    assert trace(g) == ["play 0 r1", "win 0", "play 1 rrev", "skipped 2", "play 1 r4", "win 1", "win 0"]
    assert (g.winner, g.res["loser"], g.points, g.turns) == (0, 2, 0, 3)
    assert [e["a1"] for e in g.kinds("win")[:2]] == [1, 2]        # finishing positions
    assert hand(g, 2) == cards("r5", "r6") and not g.hands[0] and not g.hands[1]


def test_play_to_last_without_two_player_rules() -> None:
    g = run([["r1"], ["rrev", "r4"], ["r5", "r6"]], "r3", dealer=2,
            rules="official+play_to_last(play_to_last_two_player_rules=false)", script=["r1", "rrev", "r5", "r4"])
    assert trace(g) == ["play 0 r1", "win 0", "play 1 rrev", "direction 1 -1", "play 2 r5", "play 1 r4", "win 1",
                        "win 0"]
    assert (g.winner, g.res["loser"], g.points, g.turns) == (0, 2, 0, 4)


@pytest.mark.parametrize("extra", ["seven_zero", "zero_swap_any", "swap_on_five(swap5_mode=whole_hand)"])
def test_play_to_last_no_swap_on_the_last_card(extra: str) -> None:
    # regression (fixed in 2596e9f): a 7 as the last card swapped, so the player who left took a hand
    card = {"seven_zero": "r7", "zero_swap_any": "r0"}.get(extra, "r5")
    g = run([[card], ["r2"], ["g1", "r4"]], "r3", dealer=2, rules=f"official+play_to_last+{extra}",
            script=[card, "r2"])
    assert trace(g) == [f"play 0 {card}", "win 0", "play 1 r2", "win 1", "win 0"]
    assert (g.res["swaps"], g.winner, g.res["loser"]) == (0, 0, 2)
    assert not g.hands[0] and not g.hands[1]


def test_play_to_last_skip_extra_turn_as_last_card() -> None:
    # regression (fixed in 2596e9f): the player who left with a Skip took another turn
    g = run([["rskip"], ["b1", "b2"], ["r2"]], "r3", dealer=2, rules="official+play_to_last+skip_extra_turn",
            script=["rskip", "r2"])
    assert trace(g) == ["play 0 rskip", "win 0", "skipped 1", "play 2 r2", "win 2", "win 0"]
    assert (g.winner, g.res["loser"], g.turns) == (0, 1, 2)
    assert not g.hands[0]


def test_uno_seven_rounds_refills_and_the_last_emptying_wins() -> None:
    g = run([["r1"], ["r4", "r5", "r6", "r7"]], "r3", rules="official+uno_seven_rounds(refill_start=2)",
            pile=["r2", "r8", "r9"], script=["r1", "r4", "r2", "r5", "r8", "r6", "r9"])
    assert trace(g) == ["play 0 r1", "draw 0 2", "play 1 r4", "play 0 r2", "play 1 r5", "play 0 r8", "draw 0 1",
                        "play 1 r6", "play 0 r9", "win 0"]
    assert (g.winner, g.turns, g.points) == (0, 7, 0)
    assert hand(g, 1) == ["r7"]


def test_uno_seven_rounds_default_refills_6() -> None:
    g = run([["r1"], ["b4", "b5"]], "r3", rules="official+uno_seven_rounds+set(turn_cap=1)", pile=PILE,
            script=["r1"], end="turn_cap")
    assert trace(g) == ["play 0 r1", "draw 0 6", "cap 1"]
    assert hand(g, 0) == cards(*PILE[:6])


@pytest.mark.parametrize("condition", ["off", "sole_card", "hand_all_zeros", "any_zero"])
@pytest.mark.parametrize("left,points", [
    (["r0"], {"off": 0, "sole_card": 50, "hand_all_zeros": 50, "any_zero": 50}),
    (["r0", "g0"], {"off": 0, "sole_card": 0, "hand_all_zeros": 100, "any_zero": 100}),
    (["r0", "g5"], {"off": 5, "sole_card": 5, "hand_all_zeros": 5, "any_zero": 55}),
    (["g5", "wild"], {"off": 55, "sole_card": 55, "hand_all_zeros": 55, "any_zero": 55}),
])
def test_zero_worth_50(condition: str, left: list[str], points: dict[str, int]) -> None:
    rules = "official" if condition == "off" else f"official+zero_worth_50(zero50_condition={condition})"
    g = run([["r1"], left], "r3", rules=rules, script=["r1"])
    assert g.points == points[condition]


# ================================================================================================
# 4.24 reverse_single_turn, 4.25 skip_extra_turn, 4.19 penalties
# ================================================================================================


def test_skip_extra_turn_the_skipper_plays_again() -> None:
    g = run([["rskip", "r1"], ["b1"], ["b2"]], "r3", dealer=2, rules="official+skip_extra_turn",
            script=["rskip", "r1"])
    assert trace(g) == ["play 0 rskip", "skipped 1", "play 0 r1", "win 0"]
    assert g.turns == 2
    g = run([["rskip", "r1"], ["b1"], ["r2"]], "r3", dealer=2, rules="official", script=["rskip", "r2"])
    assert trace(g) == ["play 0 rskip", "skipped 1", "play 2 r2", "win 2"]


def test_reverse_single_turn_one_turn_counter_clockwise() -> None:
    g = run([["rrev", "r1", "r4"], ["r5"], ["b2"], ["r2", "b3"]], "r3", dealer=3, rules="official+reverse_single_turn",
            script=["rrev", "r2", "r1", "r5"])
    assert trace(g) == ["play 0 rrev", "direction 0 -1", "play 3 r2", "play 0 r1", "play 1 r5", "win 1"]
    assert (g.turns, g.res["direction"]) == (4, 1)
    g = run([["rrev", "r1", "r4"], ["r5"], ["r6"], ["r2", "b3"]], "r3", dealer=3, rules="official",
            script=["rrev", "r2", "r6"])
    assert trace(g) == ["play 0 rrev", "direction 0 -1", "play 3 r2", "play 2 r6", "win 2"]


def test_reverse_single_turn_starting_reverse() -> None:
    g = run([["r1", "b1"], ["r5", "b2"], ["r6", "b3"], ["r2", "b4"]], "rrev", rules="official+reverse_single_turn",
            script=["r2", "r1"], end=None)
    assert trace(g)[:2] == ["play 3 r2", "play 0 r1"]


@pytest.mark.parametrize("rules,per_turn", [
    ("penalty_general_mistake(p_mistake=1)", [2]),
    ("penalty_hint(p_hint=1)", [2]),
    ("penalty_illegal_play(p_illegal_attempt=1)", [2]),
    ("penalty_illegal_play(p_illegal_attempt=1, illegal_penalty=3)", [3]),
    ("penalty_illegal_play(p_illegal_attempt=1, p_detect=0)", []),
    ("penalty_general_mistake(p_mistake=1)+penalty_hint(p_hint=1)", [2, 2]),
    ("penalty_general_mistake(p_mistake=0)", []),
])
def test_penalties_at_the_start_of_each_turn(rules: str, per_turn: list[int]) -> None:
    g = run([["r1", "r2"], ["r4", "r5"]], "r3", rules=f"official+{rules}+set(turn_cap=2)", pile=PILE,
            script=["r1", "r4"], end="turn_cap")
    expected = [f"penalty 0 {k}" for k in per_turn] + ["play 0 r1"] + [f"penalty 1 {k}" for k in per_turn] + \
        ["play 1 r4", "cap 0"]
    assert trace(g) == expected
    assert g.turns == 2
    assert len(g.hands[0]) == 1 + sum(per_turn)


# ================================================================================================
# Random games under each rule: the 108 cards are conserved and every round ends
# ================================================================================================

RULE_STRINGS = [
    "official+stacking",
    "official+stacking(stack_mixed=true, stack_max_per_turn=3, stack_final_victim_skips=false)",
    "official+deflect_skip",
    "official+deflect_draw_two",
    "official+deflect_wd4+deflect_draw_two",
    "official+reverse_bounce",
    "official+reverse_bounce(scope=draw_two_only, requires_color=false, victim_skips=false, rebounce=true)",
    "official+jump_in",
    "official+jump_in(jump_in_draw_resolution=accumulate, allow_wd4=true, p_beats_scheduled=1)"
    "+double_play_jump_in(p_self_jump_wins=1)",
    "official+seven_zero",
    "official+seven_zero(zero_pass_direction=left, seven_swap_mandatory=false)",
    "official+zero_swap_any",
    "official+swap_on_five",
    "official+swap_on_five(swap5_mode=whole_hand, swap5_optional=false)",
    "official+draw_until_playable",
    "official+draw_until_playable(dup_must_play_found=false)",
    "official+set(drawn_card_play=forced, voluntary_draw=false)",
    "official+set(wd4_restriction=color_or_number)",
    "official+set(wd4_restriction=none)",
    "official+wd4_challenge(guilty_card=returns_to_hand, guilty_offender_skips=true)",
    "official+wd4_challenge(guilty_card=void, success_challenger_plays=false, innocent_challenger_skips=false)",
    "official+set(uno_forget_prob=0.5, uno_catch_prob=0.5)",
    "official+uno_to_center",
    "official+wild_color_rotation",
    "official+play_to_last",
    "official+play_to_last(play_to_last_two_player_rules=false)",
    "official+uno_seven_rounds",
    "official+zero_worth_50(zero50_condition=any_zero)",
    "official+skip_extra_turn",
    "official+reverse_single_turn",
    "official+penalty_general_mistake(p_mistake=0.05)+penalty_hint(p_hint=0.05)"
    "+penalty_illegal_play(p_illegal_attempt=0.05)",
]


def _z50_points(rs: RuleSet, g: Game, seat: int) -> int:
    ranks = [int(g.deck.face_rank[0, c]) for c in g.hand_ids[seat]]
    pts = g.hand_points(seat)
    zeros = ranks.count(0)
    if not rs.zero_worth_50 or zeros == 0:
        return pts
    if rs.zero50_condition == "sole_card":
        return 50 if len(ranks) == 1 else pts
    if rs.zero50_condition == "hand_all_zeros":
        return 50 * zeros if zeros == len(ranks) else pts
    return pts + 50 * zeros


def check_log(g: Game, rs: RuleSet, n: int) -> None:
    """The event log agrees with the counters and the hands: every play (but a continued stack) and
    every turn that ends in a draw is one turn; each hand is the deal plus its draws minus its plays."""
    if len(g.events) >= 20_000:
        return                                    # truncated log
    plays = g.kinds("play")
    assert g.turns == sum(1 for e in plays if e["a2"] != 5) + len(g.kinds("pass"))
    if rs.seven_zero or rs.zero_swap_any or rs.swap_on_five or rs.speed_round_n_round or \
            (rs.wd4_challenge and rs.wd4_challenge_guilty_card == "returns_to_hand"):
        return                                    # cards change hands outside draws and plays
    for s in range(n):
        got = 0
        for e in g.events:
            if e["seat"] != s:
                continue
            if e["event"] == "draw":
                got += 1 if e["card"] else e["a1"]   # a turn draw, or a refill (uno_seven_rounds)
            elif e["event"] == "penalty":
                got += e["a1"]
            elif e["event"] == "play":
                got -= 1
        assert rs.hand_size + got == len(g.hand_ids[s]), (s, got)


def check_round(g: Game, rs: RuleSet, n: int) -> None:
    """Conservation, termination, the event log and scoring of one finished round."""
    assert_conserved(g)
    check_log(g, rs, n)
    assert g.end_reason in ("win", "turn_cap"), g.end_reason
    assert g.turns <= rs.turn_cap
    if g.end_reason == "turn_cap":
        assert g.points == 0
        assert g.winner == -1 or rs.play_to_last    # play_to_last: the first out, even when capped
        return
    assert 0 <= g.winner < n
    if rs.play_to_last:
        assert 0 <= g.res["loser"] < n and g.res["loser"] != g.winner and g.points == 0
        return
    assert not g.hand_ids[g.winner]
    if rs.uno_seven_rounds:
        assert g.points == 0
        return
    assert g.points == sum(_z50_points(rs, g, s) for s in range(n) if s != g.winner)


@pytest.mark.parametrize("rules", RULE_STRINGS)
def test_random_games_conserve_cards_and_end(rules: str) -> None:
    rs = parse_rules(rules)
    policies = "random(challenge=0.5,bluff=0.5)"
    for seed in range(200):
        n = 2 + seed % 9
        g = play(players=n, seed=seed, rules=rs, policies=policies)
        check_round(g, rs, n)
        if rs.play_to_last and g.end_reason == "win":
            # everybody but the loser went out, in the finishing order of the win events
            outs = [e for e in g.kinds("win") if e["a2"] == 1]
            assert [e["a1"] for e in outs] == list(range(1, n))
            assert outs[0]["seat"] == g.winner
            assert {e["seat"] for e in outs} | {g.res["loser"]} == set(range(n))
            assert all(not g.hand_ids[s] for s in range(n) if s != g.res["loser"])
            assert g.hand_ids[g.res["loser"]]


def test_wild_color_rotation_in_random_games() -> None:
    rs = parse_rules("official+wild_color_rotation")
    cw = {E.RED: E.BLUE, E.BLUE: E.GREEN, E.GREEN: E.YELLOW, E.YELLOW: E.RED}
    ccw = {v: k for k, v in cw.items()}
    wilds = 0
    for seed in range(100):
        n = 2 + seed % 9
        g = play(players=n, seed=seed, rules=rs, policies="random")
        check_round(g, rs, n)
        k = next(i for i, e in enumerate(g.events) if e["event"] == "deal")
        cur, d = g.events[k]["a1"], g.events[k]["a2"]
        for e in g.events[k + 1:]:
            if e["event"] == "direction":
                d = e["a1"]
            elif e["event"] == "play":
                if e["card"] in ("wild", "wd4"):
                    assert e["a1"] == (cw if d == 1 else ccw)[cur], (seed, e)
                    wilds += 1
                cur = e["a1"]
    assert wilds > 200


def test_uno_seven_rounds_refills_6_5_4_3_2_1_in_random_games() -> None:
    rs = parse_rules("official+uno_seven_rounds")
    wins = 0
    for seed in range(100):
        n = 2 + seed % 5
        g = play(players=n, seed=seed, rules=rs, policies="random")
        check_round(g, rs, n)
        for s in range(n):
            refills = [e["a2"] for e in g.kinds("draw") if e["seat"] == s and e["card"] is None]
            assert refills == [6, 5, 4, 3, 2, 1][: len(refills)]
            if s == g.winner:
                assert len(refills) == 6
                wins += 1
    assert wins > 50


# ================================================================================================
# Fuzz: random valid combinations of options, 2..10 players
# ================================================================================================

_HOUSE_SWITCHES = sorted(
    name for name, info in OPTIONS.items()
    if info.category == "house" and info.is_switch and info.default is False and info.simulatable
)
_BASE_CHANGES = {
    "wd4_restriction": ["color", "color_or_number", "none"],
    "drawn_card_play": ["optional", "forced"],
    "allow_wd4_bluff": ["true", "false"],
    "wd4_challenge": ["true", "false"],
    "wd4_challenge_guilty_card": ["stays", "returns_to_hand", "void"],
    "wd4_challenge_guilty_offender_skips": ["true", "false"],
    "wd4_challenge_success_challenger_plays": ["true", "false"],
    "wd4_challenge_innocent_challenger_skips": ["true", "false"],
    "challenge_last_card_wd4": ["true", "false"],
    "uno_forget_prob": ["0.3", "1"],
    "uno_catch_prob": ["0.5", "1"],
    "uno_penalty": ["2", "4"],
    "match_action_by_symbol": ["true", "false"],
    "action_on_any_action": ["true", "false"],
    "two_player_reverse_as_skip": ["true", "false"],
    "start_reverse_first": ["dealer", "right_of_dealer"],
    "start_wild": ["first_player_chooses_then_plays", "redraw"],
    "start_wd4": ["redraw", "first_player_chooses"],
    "start_replace_any_special": ["true", "false"],
}


def _random_value(rng: random.Random, name: str) -> str:
    info = OPTIONS[name]
    if info.kind == "bool":
        return rng.choice(["true", "false"])
    if info.kind == "enum":
        return rng.choice(info.choices)
    if info.kind == "int":
        return str(rng.randint(int(info.lo or 0), min(int(info.hi or 0), 4)))
    if name.startswith("p_") and ("mistake" in name or "hint" in name or "illegal" in name):
        return rng.choice(["0", "0.02", "0.1"])
    return rng.choice(["0", "0.3", "0.7", "1"])


def random_rules(rng: random.Random) -> str:
    terms = ["official"]
    for sw in rng.sample(_HOUSE_SWITCHES, rng.randint(1, 6)):
        params = [p for p, i in OPTIONS.items() if sw in i.groups]
        chosen = rng.sample(params, rng.randint(0, len(params)))
        inner = ", ".join(f"{p}={_random_value(rng, p)}" for p in chosen)
        terms.append(f"{sw}({inner})" if inner else sw)
    base = rng.sample(sorted(_BASE_CHANGES), rng.randint(0, 4))
    sets = [f"{k}={rng.choice(_BASE_CHANGES[k])}" for k in base] + ["turn_cap=3000"]
    terms.append(f"set({', '.join(sets)})")
    return "+".join(terms)


def test_fuzz_random_rule_combinations() -> None:
    rng = random.Random(20240601)
    pols = ["random", "greedy", "random(challenge=0.5,bluff=0.5)", "greedy(challenge=1,bluff=0.3)"]
    played = refused = 0
    while played < 600:
        text = random_rules(rng)
        try:
            rs = parse_rules(text)
        except RuleError:
            refused += 1
            continue
        n = rng.randint(2, 10)
        hs = rng.randint(1, min(10, 100 // n))
        rs = rs.replace(hand_size=hs)
        policies = ",".join(rng.choice(pols) for _ in range(n))
        g = play(players=n, seed=rng.randrange(2**31), rules=rs, policies=policies)
        try:
            check_round(g, rs, n)
        except AssertionError as exc:
            raise AssertionError(f"{rs.to_string()} players={n} policies={policies}: {exc}") from exc
        played += 1
    assert refused < played


# ================================================================================================
# Speed Uno Round-n-Round (docs/rules.md 4.18): a 0 passes every hand on; a one-card hand must call UNO
# ================================================================================================
def test_round_n_round_one_card_hand_must_call_uno() -> None:
    # seat 0 plays r0 (two cards left, no UNO due); hands pass clockwise, so seat 2 is handed seat 1's
    # one-card hand [g2] and, forgetting to call UNO (probability 1) and caught (probability 1), draws
    # the Speed Uno penalty of 5.
    rules = "official+speed_round_n_round+set(uno_forget_prob=1, uno_catch_prob=1, uno_penalty=5)"
    g = run([["r0", "b1", "b2"], ["g2"], ["y5", "y6", "y7"]], "r3", rules=rules, pile=PILE,
            script=["r0"], end="script_error")
    assert [e["seat"] for e in g.kinds("uno_caught")] == [2]
    assert g.res["uno_caught"] == 1 and g.res["swaps"] == 1
    assert hand(g, 0) == cards("yellow 5", "yellow 6", "yellow 7")
    assert hand(g, 1) == cards("blue 1", "blue 2")
    assert hand(g, 2) == cards("green 2", "yellow 1", "yellow 2", "yellow 3", "yellow 4", "yellow 5")


def test_round_n_round_without_forgetting_has_no_penalty() -> None:
    g = run([["r0", "b1", "b2"], ["g2"], ["y5", "y6", "y7"]], "r3", rules="official+speed_round_n_round",
            pile=PILE, script=["r0"], end="script_error")
    assert g.res["uno_caught"] == 0 and hand(g, 2) == cards("green 2")


# ================================================================================================
# Speed Uno (docs/rules.md 4.18).  Out-of-turn plays resolve in a fixed, documented order: after a play,
# the players who may exact-match are asked in seat order starting from the scheduled player (who is
# asked last, and only when an attack targets them); with probability p_beats_scheduled one of the
# takers (uniformly) plays before the scheduled player; play then continues from whoever played last.
# ================================================================================================
SPEED = "official+speed_exact_match+set(p_beats_scheduled=1)"


def test_speed_exact_match_out_of_turn_then_play_continues_from_the_matcher() -> None:
    g = run([["r5", "b1"], ["g1", "g2"], ["r5", "y3"], ["b4", "b6"]], "r3", rules=SPEED, pile=PILE,
            script=["r5", "r5"], end="script_error")
    assert trace(g)[:2] == ["play 0 r5", "jump_in 2 r5"]
    # the scheduled seat 1 lost its turn; seat 3 (after the matcher) is next
    assert g.res["next"] == 3 and g.res["jump_ins"] == 1


def test_speed_exact_match_skips_draw_cards_without_double_double() -> None:
    g = run([["r+2", "b1"], ["g1", "g2"], ["r+2", "y3"]], "r3", rules=SPEED, pile=PILE,
            script=["r+2"], end="script_error")
    assert g.res["jump_ins"] == 0
    assert trace(g)[:3] == ["play 0 r+2", "penalty 1 2", "skipped 1"]


def test_speed_double_double_adds_up_exact_draw_matches() -> None:
    g = run([["r+2", "b1"], ["g1", "g2"], ["r+2", "y3"]], "r3", rules=SPEED + "+speed_double_double",
            pile=PILE, script=["r+2", "r+2"], end="script_error")
    assert trace(g)[:4] == ["play 0 r+2", "jump_in 2 r+2", "play 2 r+2 jump", "penalty 0 4"]


def test_speed_drop_lays_identical_cards_at_once() -> None:
    g = run([["g6", "g6", "b1"], ["y1", "y2"], ["y3", "y4"]], "g3", rules="official+speed_drop", pile=PILE,
            script=["g6", "g6"], end="script_error")
    assert trace(g)[:3] == ["play 0 g6", "jump_in 0 g6", "play 0 g6 jump"]
    assert hand(g, 0) == cards("blue 1")


def test_speed_no_going_out_on_a_wild_draw_four() -> None:
    g = run([["wd4"], ["y1", "y2"]], "r3", rules="official+speed_no_wd4_out", pile=PILE, script=["wd4"],
            end="script_error")
    assert not g.kinds("play")
    g = run([["wd4"], ["y1", "y2"]], "r3", rules="official+speed_no_wd4_out", pile=PILE, policies="greedy",
            end=None)
    assert trace(g)[0] == "draw 0 y1"
    # with a card left after it, the Wild Draw Four may be laid (only going out on it is forbidden)
    g = run([["wd4", "g5"], ["y1", "y2"]], "r3", rules="official+speed_no_wd4_out", pile=PILE, script=["wd4"],
            end="script_error")
    assert trace(g)[0].startswith("play 0 wd4")


def test_speed_draw_no_skip_victim_draws_then_plays_colour_only() -> None:
    rules = "official+speed_draw_no_skip"
    g = run([["r+2", "b1"], ["g+2", "r7", "g9"]], "r3", rules=rules, pile=PILE, script=["r+2", "g+2"],
            end="script_error")
    assert trace(g)[:2] == ["play 0 r+2", "penalty 1 2"]  # no skip: the victim plays, colour only
    g = run([["r+2", "b1"], ["g+2", "r7", "g9"]], "r3", rules=rules, pile=PILE, script=["r+2", "r7"],
            end="script_error")
    assert trace(g)[:3] == ["play 0 r+2", "penalty 1 2", "play 1 r7"]
