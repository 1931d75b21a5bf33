"""UNO Flip (docs/rules.md section 2) with its recommended defaults: rigged scenarios and invariants.

Most scenarios use ``flip(pairing=table)``, where the light face at canonical index ``i`` backs the dark
face at index ``i`` (light red 5 / dark pink 5, Draw One / Draw Five, Skip / Skip Everyone, Flip / Flip,
Wild / Wild, Wild Draw Two / Wild Draw Colour).  Hands are rigged by their LIGHT face names; once the game
is on the dark side the scripts name dark faces (``pink5``, ``teal+5``, ``orangeskipall``, ``wdc``).

Conventions (``unosim/running/scenario.py``): the dealer is the last seat and seat 0 acts first; the deck is
rigged top down as hands, starting card, ``pile``, then every remaining card in canonical order.  The
draw pile keeps its top at the end, so a flip reverses it: after a flip the next card drawn is the
*last* remaining card in canonical order.  Expected dark faces, drawn cards and points are computed from
the deck tables (:func:`unosim.running.scenario.rig_order` gives the physical id of every rigged name), and the
counts are also spelled out as literals.

Under the official rules Wild Draw Two / Wild Draw Colour challenges are on, so a scripted seat hit by
one is asked ``"challenge"``/``"accept"`` before it draws (also for a wild draw played as the last card).
"""

from __future__ import annotations

from collections import Counter
from typing import Any

import numpy as np
import pandas as pd
import pytest

from unosim.core import cards_nb, pairing_nb, rng_nb
from unosim.core import enums as E
from unosim.ruleset.decks import card_name, flip_deck, get_deck
from unosim.running.scenario import Game, parse_kind, play, rig_order
from unosim.running.sim import simulate

TABLE = "flip(pairing=table)"
DK = get_deck(TABLE)
PINK, TEAL, ORANGE, PURPLE = 0, 1, 2, 3          # dark colours reuse the light indices
RED, YELLOW, GREEN, BLUE = E.RED, E.YELLOW, E.GREEN, E.BLUE
FLIP_CARDS = 112
LIGHT_TOTAL = 1280   # 360 numbers + 8*10 Draw One + 3*8*20 (Reverse, Skip, Flip) + 4*40 + 4*50
DARK_TOTAL = 1480    # 360 numbers + 8*20 Draw Five + 8*20 Reverse + 8*30 Skip Everyone + 8*20 Flip + 4*40 + 4*60

WDC = "wild_draw2 / wild_draw_color"   # event name of a Wild Draw Two / Wild Draw Colour card (table pairing)
WILD = "wild / wild"


# ---- helpers --------------------------------------------------------------------------------------


def fplay(**kw: Any) -> Game:
    kw.setdefault("deck", TABLE)
    return play(**kw)


def log(g: Game) -> list[tuple[Any, ...]]:
    return [(e["event"], e["seat"], e["card"], e["a1"], e["a2"]) for e in g.events]


def nm(c: int, dk=DK) -> str:
    """The "light / dark" event name of physical card c."""
    return f"{card_name(dk, c, 0)} / {card_name(dk, c, 1)}"


def light(name: str) -> str:
    """Event name of the first copy of a light card under the table pairing."""
    return nm(first_id(name))


def first_id(name: str, dk=DK) -> int:
    k = parse_kind(name)
    return next(c for c in range(dk.size) if (int(dk.face_color[0, c]), int(dk.face_rank[0, c])) == k)


def dark_of(name: str, dk=DK) -> str:
    return card_name(dk, first_id(name, dk), 1)


def rig(hands: list[list[str]], start: str, pile: list[str] = (), dk=DK
        ) -> tuple[list[list[int]], int, list[int]]:
    """(hand ids per seat, starting card id, the rest of the deck top first) of a rigged deal."""
    order = rig_order(dk, hands, start, list(pile)).tolist()
    n = len(hands)
    ids = order[n:]
    out, k = [], 0
    for size in order[:n]:
        out.append(ids[k:k + size])
        k += size
    return out, ids[k], ids[k + 1:]


def dark_points(ids: list[int], dk=DK) -> int:
    return int(sum(dk.face_points[1, c] for c in ids))


def light_points(ids: list[int], dk=DK) -> int:
    return int(sum(dk.face_points[0, c] for c in ids))


def until_colour(pile_top_first: list[int], colour: int, side: int = 1, dk=DK) -> int:
    """How many cards a Wild Draw Colour victim draws from this pile (black faces never count)."""
    for i, c in enumerate(pile_top_first):
        if dk.face_color[side, c] == colour:
            return i + 1
    raise AssertionError("colour not in the pile")


def deal(seat: int, card: str, color: int, d: int = 1) -> tuple[Any, ...]:
    return ("deal", seat, card, color, d)


def played(seat: int, card: str, color: int, mode: int = 0) -> tuple[Any, ...]:
    return ("play", seat, card, color, mode)


def flipped(seat: int, new_top: str, color: int, side: int) -> tuple[Any, ...]:
    return ("flip", seat, new_top, color, side)


def drew(seat: int, card: str) -> tuple[Any, ...]:
    return ("draw", seat, card, 0, 0)


def skipped(seat: int) -> tuple[Any, ...]:
    return ("skipped", seat, None, 0, 0)


def penalty(seat: int, got: int, asked: int) -> tuple[Any, ...]:
    return ("penalty", seat, None, got, asked)


def challenged(seat: int, guilty: bool, offender: int) -> tuple[Any, ...]:
    return ("challenge", seat, None, int(guilty), offender)


def won(seat: int, points: int) -> tuple[Any, ...]:
    return ("win", seat, None, points, 0)


def assert_conserved(g: Game) -> None:
    ids = [c for h in g.hand_ids for c in h] + g.pile_ids + g.discard_ids
    assert sorted(ids) == list(range(FLIP_CARDS))


def assert_scored(g: Game) -> None:
    """The winner's hand is empty and the points are the opponents' hands on the final side."""
    assert g.end_reason == "win"
    assert g.hand_ids[g.winner] == []
    side = g.res["side"]
    assert g.points == sum(int(g.deck.face_points[side, c]) for s, h in enumerate(g.hand_ids) for c in h
                           if s != g.winner)
    assert g.res["side"] == g.res["flips"] % 2
    assert_conserved(g)


def _side_kinds(actions: tuple[int, ...], wild_draw: int) -> Counter:
    kinds: Counter = Counter()
    for col in range(4):
        for r in range(1, 10):
            kinds[(col, r)] += 2
        for r in actions:
            kinds[(col, r)] += 2
    kinds[(E.BLACK, E.WILD)] += 4
    kinds[(E.BLACK, wild_draw)] += 4
    return kinds


LIGHT_KINDS = _side_kinds((E.DRAW1, E.REVERSE, E.SKIP, E.FLIP), E.WILD_DRAW2)
DARK_KINDS = _side_kinds((E.DRAW5, E.REVERSE, E.SKIP_ALL, E.FLIP), E.WILD_DRAW_COLOR)
POINTS = {E.DRAW1: 10, E.DRAW5: 20, E.REVERSE: 20, E.SKIP: 20, E.SKIP_ALL: 30, E.FLIP: 20, E.WILD: 40,
          E.WILD_DRAW2: 50, E.WILD_DRAW_COLOR: 60}


def side_kinds(fcol: np.ndarray, frank: np.ndarray, side: int) -> Counter:
    return Counter(zip(fcol[side].tolist(), frank[side].tolist(), strict=True))


# ---- the deck (docs/rules.md 2.2, 2.3, 2.11) ---------------------------------------------------------------


@pytest.mark.parametrize("spec", ["flip", TABLE, "flip(pairing=fixed,pairing_seed=3)"])
def test_deck_composition_and_points(spec: str) -> None:
    dk = get_deck(spec)
    assert dk.size == FLIP_CARDS and dk.two_sided
    assert side_kinds(dk.face_color, dk.face_rank, 0) == LIGHT_KINDS
    assert side_kinds(dk.face_color, dk.face_rank, 1) == DARK_KINDS
    assert sum(LIGHT_KINDS.values()) == sum(DARK_KINDS.values()) == FLIP_CARDS
    for side in (0, 1):
        for c in range(dk.size):
            r = int(dk.face_rank[side, c])
            assert dk.face_points[side, c] == (r if r <= 9 else POINTS[r])
    assert int(dk.face_points[0].sum()) == LIGHT_TOTAL
    assert int(dk.face_points[1].sum()) == DARK_TOTAL
    assert not np.any(dk.face_rank == 0)                       # no zeros on either side
    assert dk.random_pairing == (spec == "flip")


def test_table_pairing_backs_each_light_face_with_the_same_slot() -> None:
    assert dark_of("r2") == "pink 2" and dark_of("y5") == "teal 5" and dark_of("b9") == "purple 9"
    assert dark_of("r+1") == "pink draw5"
    assert dark_of("grev") == "orange reverse"
    assert dark_of("yskip") == "teal skip_all"
    assert dark_of("bflip") == "purple flip"
    assert dark_of("wild") == "wild"
    assert dark_of("wd2") == "wild_draw_color"
    assert first_id("wd2") == 108 and first_id("rflip") == 24


# ---- Draw One (light) -----------------------------------------------------------------------------------


def test_draw_one_next_player_draws_one_and_loses_turn() -> None:
    hands = [["r+1", "r5"], ["r3", "y4"], ["r7", "g4"]]
    g = fplay(hands=hands, start="r2", pile=["b7"], script=["r+1", "r7", "r5"])
    assert log(g) == [
        deal(0, light("r2"), RED), played(0, light("r+1"), RED), penalty(1, 1, 1), skipped(1),
        played(2, light("r7"), RED), played(0, light("r5"), RED), won(0, 3 + 4 + 7 + 4)]
    assert (g.winner, g.turns, g.res["cards_drawn"], g.res["side"], g.res["flips"]) == (0, 3, 1, 0, 0)
    assert sorted(g.hands[1]) == ["blue 7", "red 3", "yellow 4"]
    assert_scored(g)


def test_draw_one_matches_draw_one_by_symbol() -> None:
    hands = [["r+1", "y5"], ["y6"], ["y+1", "y4"]]
    g = fplay(hands=hands, start="r2", pile=["b1", "b2"], script=["r+1", "y+1", "y6", "y4"])
    # seat 1 draws 1 and is skipped; yellow Draw One on red Draw One; seat 0 draws 1 and is skipped
    assert log(g) == [
        deal(0, light("r2"), RED), played(0, light("r+1"), RED), penalty(1, 1, 1), skipped(1),
        played(2, light("y+1"), YELLOW), penalty(0, 1, 1), skipped(0), played(1, light("y6"), YELLOW),
        played(2, light("y4"), YELLOW), won(2, 5 + 2 + 1)]
    assert g.hands == [["yellow 5", "blue 2"], ["blue 1"], []]
    assert_scored(g)


def test_draw_one_as_last_card_hits_and_counts() -> None:
    g = fplay(hands=[["r+1"], ["y3"]], start="r2", pile=["wd2"], script=["r+1"])
    assert log(g) == [deal(0, light("r2"), RED), played(0, light("r+1"), RED), penalty(1, 1, 1),
                      won(0, 3 + 50)]
    assert g.hands[1] == ["yellow 3", "wild_draw2"]
    assert_scored(g)


# ---- Flip in the middle of a round (docs/rules.md 2.8) --------------------------------------------------------


def test_flip_turns_discard_draw_pile_and_hands() -> None:
    hands = [["r3", "r9"], ["r4", "r+1", "rskip"], ["rflip", "r6"]]
    (h0, h1, h2), start, rest = rig(hands, "r2")
    g = fplay(hands=hands, start="r2", script=["r3", "r4", "rflip", "pink9"])
    # the new top is the dark face of the OLDEST discard (the starting red 2), not of the red 4 under the
    # Flip; colour pink; no turn effect: seat 0 (next in the direction) plays
    assert log(g) == [
        deal(0, light("r2"), RED), played(0, light("r3"), RED), played(1, light("r4"), RED),
        played(2, light("rflip"), RED), flipped(2, light("r2"), PINK, 1),
        played(0, light("r9"), PINK), won(0, 20 + 30 + 6)]
    assert dark_of("r2") == "pink 2"
    assert g.discard_ids == [h2[0], h1[0], h0[0], start, h0[1]]     # the Flip is now at the bottom
    assert g.discard == ["pink flip", "pink 4", "pink 3", "pink 2", "pink 9"]
    assert g.pile_ids == rest[::-1]                                   # the draw pile is turned over
    assert g.pile[:5] == ["wild_draw_color"] * 4 + ["wild"]
    assert [sorted(h) for h in g.hands] == [[], ["pink draw5", "pink skip_all"], ["pink 6"]]  # dark faces
    assert (g.res["side"], g.res["flips"], g.res["direction"], g.color) == (1, 1, 1, "pink")
    # scored on the dark side: Draw Five 20 + Skip Everyone 30 + 6 (the light side would give 10 + 20 + 6)
    assert g.points == dark_points(h1[1:] + h2[1:]) == 56
    assert light_points(h1[1:] + h2[1:]) == 36
    assert_scored(g)


def test_flip_draw_comes_from_the_former_bottom_of_the_pile() -> None:
    hands = [["rflip", "b5"], ["y3", "g3"], ["y4"]]
    (_, _, _), _, rest = rig(hands, "r2", ["g9"])
    g = fplay(hands=hands, start="r2", pile=["g9"], script=["rflip", "draw", "keep"])
    # after the flip seat 1 (teal 3, orange 3) cannot match pink 2 and draws the former bottom card
    assert log(g)[:5] == [
        deal(0, light("r2"), RED), played(0, light("rflip"), RED), flipped(0, light("r2"), PINK, 1),
        drew(1, nm(rest[-1])), ("pass", 1, nm(rest[-1]), 0, 0)]
    assert rest[-1] == 111 and nm(111) == WDC
    assert g.pile_ids[-1] == first_id("g9")                        # the rigged next card is now the bottom


def test_two_flips_return_to_light_and_reveal_the_first_flip() -> None:
    hands = [["r3", "r9", "g5"], ["r4", "rflip", "y7"], ["rflip", "r6"]]
    (h0, h1, h2), start, rest = rig(hands, "r2")
    g = fplay(hands=hands, start="r2", script=["r3", "r4", "rflip", "pink9", "pinkflip", "r6"])
    assert log(g) == [
        deal(0, light("r2"), RED), played(0, light("r3"), RED), played(1, light("r4"), RED),
        played(2, light("rflip"), RED), flipped(2, light("r2"), PINK, 1),
        played(0, light("r9"), PINK), played(1, light("rflip"), PINK),
        flipped(1, light("rflip"), RED, 0),
        played(2, light("r6"), RED), won(2, 5 + 7)]
    # second flip: the oldest discard is now seat 2's Flip; its light face (red flip) is on top, no action
    assert g.discard_ids == [h1[1], h0[1], start, h0[0], h1[0], h2[0], h2[1]]
    assert g.pile_ids == rest                                       # turned over twice
    assert (g.res["side"], g.res["flips"], g.turns) == (0, 2, 6)
    assert_scored(g)


def test_flip_reveals_black_flip_player_names_colour() -> None:
    hands = [["rflip", "g3"], ["y5"], ["g4", "g8"]]
    g = fplay(hands=hands, start="wild", script=["red", "rflip", "teal", "teal5"])
    # the oldest discard is the starting Wild; its dark face is a Wild: the Flip player names teal
    assert log(g) == [
        deal(0, WILD, RED), played(0, light("rflip"), RED), flipped(0, WILD, TEAL, 1),
        played(1, light("y5"), TEAL), won(1, 3 + 4 + 8)]
    assert (g.res["side"], g.color) == (1, "teal")
    assert_scored(g)


def test_flip_reveals_black_flip_player_colour_binds_next_player() -> None:
    g = fplay(hands=[["rflip", "g3"], ["g5", "y5"], ["g4"]], start="wild",
              script=["red", "rflip", "teal", "orange5"])
    assert g.end_reason == "script_error"      # orange 5 does not match the named teal
    assert ("play", 1) not in [(e["event"], e["seat"]) for e in g.events]


def test_flip_reveals_black_next_player_free() -> None:
    rules = "official+set(flip_revealed_black_color=next_player_free)"
    g = fplay(hands=[["rflip", "g5"], ["g3"], ["g4", "g8"]], start="wild", rules=rules,
              script=["red", "rflip", "orange3"])
    assert log(g) == [
        deal(0, WILD, RED), played(0, light("rflip"), RED), flipped(0, WILD, -1, 1),
        played(1, light("g3"), ORANGE), won(1, 5 + 4 + 8)]
    assert_scored(g)


def test_flip_matches_by_colour_or_symbol_only() -> None:
    # a yellow Flip on red 2 is not legal
    g = fplay(hands=[["yflip", "r5"], ["y3"]], start="r2", script=["yflip"])
    assert g.end_reason == "script_error" and g.res["flips"] == 0 and g.kinds("play") == []
    # a teal Flip on the (revealed) pink Flip is: same symbol.  It flips back to light; the new top is the
    # light face of the oldest discard, the starting red Flip, which has no effect
    hands = [["yflip", "r5"], ["r6", "g1"]]
    (h0, h1), start, _ = rig(hands, "rflip")
    g = fplay(hands=hands, start="rflip", script=["tealflip", "r6", "r5"])
    assert log(g) == [
        deal(0, light("rflip"), PINK), played(0, light("yflip"), TEAL), flipped(0, light("rflip"), RED, 0),
        played(1, light("r6"), RED), played(0, light("r5"), RED), won(0, 1)]
    assert g.discard_ids == [h0[0], start, h1[0], h0[1]]
    assert (g.res["side"], g.res["flips"]) == (0, 2)
    assert_scored(g)


# ---- Skip Everyone (dark) ----------------------------------------------------------------------------------


@pytest.mark.parametrize("n", [3, 4])
def test_skip_everyone_skips_all_others_and_player_goes_again(n: int) -> None:
    others = [["y1"], ["y2"], ["y3"]][: n - 1]
    g = fplay(hands=[["rskip", "r5"], *others], start="rflip", script=["pinkskipall", "pink5"])
    assert log(g) == [
        deal(0, light("rflip"), PINK), played(0, light("rskip"), PINK),
        *[skipped(s) for s in range(1, n)],
        played(0, light("r5"), PINK), won(0, sum(range(1, n)))]
    assert (g.turns, g.res["side"], g.res["flips"], g.res["cards_drawn"]) == (2, 1, 1, 0)
    assert_scored(g)


def test_skip_everyone_on_skip_everyone_by_symbol() -> None:
    g = fplay(hands=[["rskip", "gskip", "g5"], ["y1"], ["y2"]], start="rflip",
              script=["pinkskipall", "orangeskipall", "orange5"])
    assert log(g) == [
        deal(0, light("rflip"), PINK), played(0, light("rskip"), PINK), skipped(1), skipped(2),
        played(0, light("gskip"), ORANGE), skipped(1), skipped(2),
        played(0, light("g5"), ORANGE), won(0, 3)]
    assert g.turns == 3
    assert_scored(g)


def test_skip_everyone_with_counterclockwise_direction() -> None:
    # dark Reverse first: direction -1, then Skip Everyone skips seats 2, 1 (in play order) on 4 players
    g = fplay(hands=[["rrev", "r5"], ["y1"], ["y2"], ["rskip", "r6"]], start="rflip",
              script=["pinkreverse", "pinkskipall", "pink6"])
    assert log(g) == [
        deal(0, light("rflip"), PINK), played(0, light("rrev"), PINK), ("direction", 0, None, -1, 0),
        played(3, light("rskip"), PINK), skipped(2), skipped(1), skipped(0),
        played(3, light("r6"), PINK), won(3, 5 + 1 + 2)]
    assert_scored(g)


# ---- Draw Five (dark) --------------------------------------------------------------------------------------


def test_draw_five_next_player_draws_five_and_loses_turn() -> None:
    hands = [["r+1", "r5"], ["y+1", "y3"], ["r7", "g2"]]
    (_, h1, _), _, rest = rig(hands, "rflip")
    g = fplay(hands=hands, start="rflip", script=["pink+5", "pink7", "pink5"])
    drawn = rest[::-1][:5]
    assert drawn == [111, 110, 109, 108, 107]                          # 4 Wild Draw Colour + 1 Wild
    assert log(g) == [
        deal(0, light("rflip"), PINK), played(0, light("r+1"), PINK), penalty(1, 5, 5), skipped(1),
        played(2, light("r7"), PINK), played(0, light("r5"), PINK), won(0, 20 + 3 + 4 * 60 + 40 + 2)]
    assert sorted(g.hand_ids[1]) == sorted(h1 + drawn)
    assert g.res["cards_drawn"] == 5
    assert_scored(g)


def test_draw_five_on_draw_five_by_symbol() -> None:
    hands = [["r+1", "y5"], ["b4", "y6"], ["y+1", "y4"]]
    (_, _, _), _, rest = rig(hands, "rflip")
    drawn = rest[::-1][:10]
    g = fplay(hands=hands, start="rflip", script=["pink+5", "teal+5", "teal6", "teal4"])
    assert log(g) == [
        deal(0, light("rflip"), PINK), played(0, light("r+1"), PINK), penalty(1, 5, 5), skipped(1),
        played(2, light("y+1"), TEAL), penalty(0, 5, 5), skipped(0), played(1, light("y6"), TEAL),
        played(2, light("y4"), TEAL), won(2, 5 + 4 + dark_points(drawn))]
    assert sorted(g.hand_ids[1]) == sorted([first_id("b4"), *drawn[:5]])
    assert sorted(g.hand_ids[0]) == sorted([first_id("y5"), *drawn[5:]])
    assert_scored(g)


def test_stacking_draw_five_on_draw_five() -> None:
    hands = [["r+1", "y5"], ["y+1", "y3"], ["gflip", "g2"]]
    (_, _, h2), _, rest = rig(hands, "rflip")
    g = fplay(hands=hands, start="rflip", rules="official+stacking", script=["pink+5", "teal+5", "teal5"])
    drawn = rest[::-1][:10]
    assert log(g) == [
        deal(0, light("rflip"), PINK), played(0, light("r+1"), PINK),
        played(1, light("y+1"), TEAL, 1), ("stack", 1, light("y+1"), 10, 0),
        penalty(2, 10, 10), skipped(2),
        played(0, light("y5"), TEAL), won(0, 3 + dark_points(h2 + drawn))]
    assert g.res["max_stack"] == 2
    assert dark_points(h2 + drawn) == 20 + 2 + 4 * 60 + 4 * 40 + 2 * 20
    # seat 2 (orange Flip, orange 2) has nothing to stack: it is not even asked and takes the 10
    assert "orange flip" in g.hands[2] and g.res["flips"] == 1
    assert_scored(g)


# ---- Flip during a pending draw with stacking on ---------------------------------------------------------


def test_stacking_pending_draw_one_flip_is_not_a_response_victim_takes() -> None:
    rules = "official+stacking"
    # the victim holds a Flip but nothing to stack: it is not asked and takes the pending Draw One
    hands = [["r+1", "r5"], ["rflip", "y3"], ["r7", "g2"]]
    g = fplay(hands=hands, start="r2", pile=["b1"], rules=rules, script=["r+1", "r7", "r5"])
    assert log(g) == [
        deal(0, light("r2"), RED), played(0, light("r+1"), RED), penalty(1, 1, 1), skipped(1),
        played(2, light("r7"), RED), played(0, light("r5"), RED), won(0, 20 + 3 + 1 + 2)]
    assert (g.res["flips"], g.res["side"], g.res["max_stack"]) == (0, 0, 1)
    assert_scored(g)
    # with a Draw One to stack the victim is asked; answering with the Flip is not a legal response
    hands = [["r+1", "r5"], ["rflip", "y+1", "y3"], ["r7", "g2"]]
    g = fplay(hands=hands, start="r2", pile=["b1"], rules=rules, script=["r+1", "rflip"])
    assert g.end_reason == "script_error"
    assert g.res["flips"] == 0 and g.kinds("flip") == []
    assert [e["card"] for e in g.kinds("play")] == [light("r+1")]
    # ... and taking it is
    g = fplay(hands=hands, start="r2", pile=["b1"], rules=rules, script=["r+1", "take", "r7", "r5"])
    assert log(g) == [
        deal(0, light("r2"), RED), played(0, light("r+1"), RED), penalty(1, 1, 1), skipped(1),
        played(2, light("r7"), RED), played(0, light("r5"), RED), won(0, 20 + 10 + 3 + 1 + 2)]
    assert_scored(g)


def test_stacking_pending_draw_one_greedy_victim_with_only_a_flip_takes() -> None:
    hands = [["r+1", "r5"], ["rflip", "y3"], ["r7", "g2"]]
    g = fplay(hands=hands, start="r2", pile=["b1"], rules="official+stacking", policies="greedy")
    assert log(g)[:4] == [
        deal(0, light("r2"), RED), played(0, light("r+1"), RED), penalty(1, 1, 1), skipped(1)]


def test_stacking_greedy_victim_stacks_draw_one_not_flip() -> None:
    hands = [["r+1", "r5"], ["rflip", "y+1", "y3"], ["r7", "g2"]]
    g = fplay(hands=hands, start="r2", pile=["b1", "b2"], rules="official+stacking", policies="greedy")
    assert log(g)[:5] == [
        deal(0, light("r2"), RED), played(0, light("r+1"), RED),
        played(1, light("y+1"), YELLOW, 1), ("stack", 1, light("y+1"), 2, 0), penalty(2, 2, 2)]




@pytest.mark.parametrize(("start", "first", "second", "amount", "colour"), [
    ("rflip", "pink+5", "teal+5", 5, PINK), ("r2", "r+1", "y+1", 1, RED)])
def test_deflect_draw_card_keeps_its_own_amount(start: str, first: str, second: str, amount: int,
                                                colour: int) -> None:
    hands = [["r+1", "y5"], ["y+1", "y3"], ["g7", "g2"]]
    (_, _, h2), _, rest = rig(hands, start)
    pile = rest[::-1] if start == "rflip" else rest
    five = "teal5" if start == "rflip" else "y5"
    g = fplay(hands=hands, start=start, rules="official+deflect_draw_two", script=[first, second, five])
    side = 1 if start == "rflip" else 0
    pts = int(sum(DK.face_points[side, c] for c in h2 + pile[:amount])) + 3
    assert log(g) == [
        deal(0, light(start), colour), played(0, light("r+1"), colour), played(1, light("y+1"), YELLOW, 2),
        penalty(2, amount, amount), skipped(2), played(0, light("y5"), YELLOW), won(0, pts)]


def test_deflect_draw_five_chain_continues() -> None:
    hands = [["r+1", "y5"], ["y+1", "g3"], ["g+1", "g2"]]
    (h0, _, _), _, rest = rig(hands, "rflip")
    drawn = rest[::-1][:5]
    g = fplay(hands=hands, start="rflip", rules="official+deflect_draw_two",
              script=["pink+5", "teal+5", "orange+5", "orange3"])
    assert log(g) == [
        deal(0, light("rflip"), PINK), played(0, light("r+1"), PINK), played(1, light("y+1"), TEAL, 2),
        played(2, light("g+1"), ORANGE, 2), penalty(0, 5, 5), skipped(0), played(1, light("g3"), ORANGE),
        won(1, dark_points(h0[1:] + drawn) + 2)]


# ---- Wild Draw Two (light) ---------------------------------------------------------------------------------


def test_wild_draw_two_next_player_draws_two() -> None:
    g = fplay(hands=[["wd2", "g5"], ["y3"], ["g7", "y4"]], start="r2", pile=["b1", "b2"],
              script=["wd2", "green", "accept", "g7", "g5"])
    assert log(g) == [
        deal(0, light("r2"), RED), played(0, WDC, GREEN), penalty(1, 2, 2), skipped(1),
        played(2, light("g7"), GREEN), played(0, light("g5"), GREEN), won(0, 3 + 1 + 2 + 4)]
    assert g.res["challenges"] == 0
    assert_scored(g)


@pytest.mark.parametrize(("hand", "legal"), [
    (["wd2", "r5"], False),     # holds the current colour
    (["wd2", "y2"], True),      # a matching number of another colour does not forbid it
    (["wd2", "yflip"], True),
])
def test_wild_draw_two_legal_only_without_current_colour(hand: list[str], legal: bool) -> None:
    g = fplay(hands=[hand, ["y3", "y4"]], start="r2", rules="official+set(allow_wd4_bluff=false)",
              script=["wd2", "yellow", "accept"])
    if legal:
        assert log(g)[:4] == [deal(0, light("r2"), RED), played(0, WDC, YELLOW), penalty(1, 2, 2), skipped(1)]
    else:
        assert g.end_reason == "script_error" and g.kinds("play") == []


def test_wild_draw_two_greedy_never_plays_it_while_holding_the_colour() -> None:
    g = fplay(hands=[["wd2", "r5", "g6"], ["y3", "y4"]], start="r2", policies="greedy")
    assert log(g)[1] == played(0, light("r5"), RED)


def test_wild_draw_two_challenge_guilty_offender_draws_two() -> None:
    g = fplay(hands=[["wd2", "r5", "r6"], ["g3", "y9"], ["g4"]], start="r2", pile=["b1", "b2"],
              script=["wd2", "green", "challenge", "g3", "g4"])
    assert log(g) == [
        deal(0, light("r2"), RED), played(0, WDC, GREEN), challenged(1, True, 0), penalty(0, 2, 2),
        played(1, light("g3"), GREEN), played(2, light("g4"), GREEN), won(2, 5 + 6 + 1 + 2 + 9)]
    assert g.res["challenges"] == 1
    assert_scored(g)


def test_wild_draw_two_challenge_innocent_challenger_draws_four() -> None:
    g = fplay(hands=[["wd2", "g5"], ["y3"], ["g7", "y4"]], start="r2", pile=["b1", "b2", "b3", "b4"],
              script=["wd2", "green", "challenge", "g7", "g5"])
    assert log(g) == [
        deal(0, light("r2"), RED), played(0, WDC, GREEN), challenged(1, False, 0), penalty(1, 4, 4),
        skipped(1), played(2, light("g7"), GREEN), played(0, light("g5"), GREEN),
        won(0, 3 + 1 + 2 + 3 + 4 + 4)]
    assert_scored(g)


def test_wild_draw_two_random_policy_challenges() -> None:
    # random(challenge=1) always challenges; seat 0 is guilty, so it draws 2
    g = fplay(hands=[["wd2", "r5", "r6"], ["g3", "y9"]], start="r2", pile=["b1", "b2"],
              policies="scripted,random(challenge=1)", script=["wd2", "green"])
    assert log(g)[:4] == [
        deal(0, light("r2"), RED), played(0, WDC, GREEN), challenged(1, True, 0), penalty(0, 2, 2)]


# ---- Wild Draw Colour (dark) --------------------------------------------------------------------------------


def test_wild_draw_colour_draws_until_colour_black_never_counts() -> None:
    hands = [["wd2", "b5"], ["y3"], ["b7", "y4"]]
    (_, h1, _), _, rest = rig(hands, "rflip")
    k = until_colour(rest[::-1], PURPLE)
    assert k == 8            # 3 Wild Draw Colour + 4 Wild (black: not purple) + the purple Flip
    drawn = rest[::-1][:k]
    g = fplay(hands=hands, start="rflip", script=["wdc", "purple", "accept", "purple7", "purple5"])
    assert log(g) == [
        deal(0, light("rflip"), PINK), played(0, WDC, PURPLE), penalty(1, 8, -1), skipped(1),
        played(2, light("b7"), PURPLE), played(0, light("b5"), PURPLE),
        won(0, dark_points(h1 + drawn) + 4)]
    assert dark_points(h1 + drawn) == 3 + 3 * 60 + 4 * 40 + 20
    assert sorted(g.hand_ids[1]) == sorted(h1 + drawn)
    assert_scored(g)


@pytest.mark.parametrize(("hand", "legal"), [
    (["wd2", "r5"], False),     # pink 5: the current colour
    (["wd2", "y2"], True),      # teal 2 is not pink
])
def test_wild_draw_colour_legal_only_without_current_colour(hand: list[str], legal: bool) -> None:
    g = fplay(hands=[hand, ["y3", "y4"]], start="rflip", rules="official+set(allow_wd4_bluff=false)",
              script=["wdc", "teal", "accept"])
    if legal:
        assert log(g)[:2] == [deal(0, light("rflip"), PINK), played(0, WDC, TEAL)]
        assert log(g)[2][0] == "penalty" and log(g)[3] == skipped(1)
    else:
        assert g.end_reason == "script_error" and g.kinds("play") == []


def test_wild_draw_colour_challenge_guilty_offender_draws_until_colour() -> None:
    hands = [["wd2", "r5", "b5"], ["b3", "y9"], ["b7"]]
    (h0, _, _), _, rest = rig(hands, "rflip")
    drawn = rest[::-1][:8]
    g = fplay(hands=hands, start="rflip", script=["wdc", "purple", "challenge", "purple3", "purple7"])
    assert log(g) == [
        deal(0, light("rflip"), PINK), played(0, WDC, PURPLE), challenged(1, True, 0), penalty(0, 8, -1),
        played(1, light("b3"), PURPLE), played(2, light("b7"), PURPLE),
        won(2, 5 + 5 + dark_points(drawn) + 9)]
    assert sorted(g.hand_ids[0]) == sorted(h0[1:] + drawn)
    assert g.res["challenges"] == 1
    assert_scored(g)


def test_wild_draw_colour_challenge_innocent_challenger_draws_until_colour_plus_two() -> None:
    hands = [["wd2", "b5"], ["y3"], ["b7", "y4"]]
    (_, h1, _), _, rest = rig(hands, "rflip")
    drawn = rest[::-1][:10]
    assert [card_name(DK, c, 1) for c in drawn[8:]] == ["purple flip", "purple skip_all"]
    g = fplay(hands=hands, start="rflip", script=["wdc", "purple", "challenge", "purple7", "purple5"])
    assert log(g) == [
        deal(0, light("rflip"), PINK), played(0, WDC, PURPLE), challenged(1, False, 0),
        penalty(1, 8, -1), penalty(1, 2, 2), skipped(1),
        played(2, light("b7"), PURPLE), played(0, light("b5"), PURPLE),
        won(0, dark_points(h1 + drawn) + 4)]
    assert dark_points(h1 + drawn) == 3 + 3 * 60 + 4 * 40 + 20 + 20 + 30
    assert_scored(g)


def _tiny_pile_hands() -> tuple[list[list[str]], list[str]]:
    """Seat 0: red 9 + Wild Draw Two; the draw pile: yellow 1, yellow 2; seats 1 and 2: everything else
    (seat 1 leads with red 8, seat 2 with red 7).  Starting card: a red Flip (the game starts dark)."""
    taken = Counter({parse_kind(x): 1 for x in ("rflip", "r9", "wd2", "y1", "y2", "r8", "r7")})
    rest = []
    for c in range(DK.size):
        k = (int(DK.face_color[0, c]), int(DK.face_rank[0, c]))
        if taken[k] > 0:
            taken[k] -= 1
            continue
        col, rk = k
        if col == E.BLACK:
            rest.append("wild" if rk == E.WILD else "wd2")
        else:
            tok = {E.DRAW1: "+1", E.REVERSE: "rev", E.SKIP: "skip", E.FLIP: "flip"}.get(rk, str(rk))
            rest.append("rygb"[col] + tok)
    half = len(rest) // 2
    return [["r9", "wd2"], ["r8", *rest[:half]], ["r7", *rest[half:]]], ["y1", "y2"]


def test_wild_draw_colour_draw_runs_through_a_reshuffle() -> None:
    hands, pile = _tiny_pile_hands()
    assert sum(map(len, hands)) + 1 + len(pile) == FLIP_CARDS
    g = fplay(hands=hands, start="rflip", pile=pile, script=["pink9", "pink8", "pink7", "wdc", "pink", "accept"])
    # the pile (teal 2, teal 1 after the flip) holds no pink: both are drawn, then the discard pile minus
    # its top (pink Flip, 9, 8, 7: all pink) is reshuffled and the next card ends the draw
    assert log(g)[:6] == [
        deal(0, light("rflip"), PINK), played(0, light("r9"), PINK), played(1, light("r8"), PINK),
        played(2, light("r7"), PINK), played(0, WDC, PINK), ("reshuffle", -1, None, 4, 0)]
    assert log(g)[6:] == [penalty(1, 3, -1), won(0, g.points)]
    assert (g.res["reshuffles"], g.res["cards_drawn"], g.winner) == (1, 3, 0)
    new = g.hand_ids[1][-3:]
    assert [card_name(DK, c, 1) for c in new[:2]] == ["teal 2", "teal 1"]
    assert DK.face_color[1, new[2]] == PINK
    assert g.discard_ids == [first_id("wd2")]
    assert len(g.pile_ids) == 3 and all(DK.face_color[1, c] == PINK for c in g.pile_ids)
    assert g.points == DARK_TOTAL - 60 - dark_points(g.pile_ids)
    assert_scored(g)


def test_wild_draw_colour_stops_when_nothing_is_left_to_draw() -> None:
    hands, pile = _tiny_pile_hands()
    g = fplay(hands=hands, start="rflip", pile=pile, script=["pink9", "pink8", "pink7", "wdc", "orange", "accept"])
    # no orange in the pile nor in the discard: 2 + 4 reshuffled cards, then drawing stops
    assert log(g)[5:] == [("reshuffle", -1, None, 4, 0), penalty(1, 6, -1), won(0, DARK_TOTAL - 60)]
    assert g.pile_ids == [] and g.discard_ids == [first_id("wd2")]
    assert_scored(g)


# ---- starting cards (docs/rules.md 2.6, 2.7, 2.12) ----------------------------------------------------------------


def test_start_draw_one_seat0_draws_one_and_is_skipped() -> None:
    g = fplay(hands=[["r5", "g1"], ["r6"], ["y2"]], start="r+1", pile=["b7"], script=["r6"])
    assert log(g) == [
        deal(0, light("r+1"), RED), penalty(0, 1, 1), skipped(0), played(1, light("r6"), RED),
        won(1, 5 + 1 + 7 + 2)]
    assert g.turns == 1
    assert_scored(g)


def test_start_wild_draw_two_is_redrawn() -> None:
    g = fplay(hands=[["r6"], ["y3"]], start="wd2", pile=["r5"], script=["r6"])
    redraw = g.events[0]
    assert (redraw["event"], redraw["card"]) == ("start_redraw", WDC)
    assert log(g)[1:] == [deal(0, light("r5"), RED), played(0, light("r6"), RED), won(0, 3)]
    assert first_id("wd2") in g.pile_ids
    assert (g.res["side"], g.res["flips"]) == (0, 0)
    assert_scored(g)


def test_start_flip_executes_game_starts_dark() -> None:
    hands = [["r6"], ["y3", "r+1"]]
    (_, h1), start, rest = rig(hands, "rflip")
    g = fplay(hands=hands, start="rflip", script=["pink6"])
    # the revealed dark face (pink Flip under the table pairing) only sets colour and symbol
    assert log(g) == [deal(0, light("rflip"), PINK), played(0, light("r6"), PINK), won(0, 3 + 20)]
    assert (g.res["flips"], g.res["side"]) == (1, 1)
    assert g.discard_ids == [start, first_id("r6")]
    assert g.pile_ids == rest[::-1]         # the draw pile was turned over
    assert g.hands[1] == ["teal 3", "pink draw5"]
    assert_scored(g)


def test_start_flip_redraw_option() -> None:
    g = fplay(hands=[["r6"], ["y3"]], start="rflip", pile=["r5"],
              rules="official+set(flip_start_flip=redraw)", script=["r6"])
    assert (g.events[0]["event"], g.events[0]["card"]) == ("start_redraw", light("rflip"))
    assert log(g)[1:] == [deal(0, light("r5"), RED), played(0, light("r6"), RED), won(0, 3)]
    assert (g.res["flips"], g.res["side"]) == (0, 0)
    assert_scored(g)


def _fixed_start(pred) -> tuple[str, str, int]:
    """(deck spec, light name of a starting Flip, its id) under a fixed pairing where the first copy of
    that light Flip backs a dark face satisfying pred(colour, rank)."""
    for seed in range(1000):
        dk = flip_deck("fixed", seed)
        for tok in "rygb":
            c = first_id(tok + "flip", dk)
            if pred(int(dk.face_color[1, c]), int(dk.face_rank[1, c])):
                return f"flip(pairing=fixed,pairing_seed={seed})", tok + "flip", c
    raise AssertionError("no such pairing")


def _number_card(dk, colour: int | None, exclude: set[str]) -> tuple[str, int]:
    """A light number card (first copy) whose dark face is a number, of ``colour`` when given."""
    for c in range(dk.size):
        if dk.face_rank[0, c] > 9 or dk.face_color[0, c] == E.BLACK:
            continue
        name = "rygb"[int(dk.face_color[0, c])] + str(int(dk.face_rank[0, c]))
        if name in exclude or first_id(name, dk) != c:
            continue
        if dk.face_rank[1, c] <= 9 and dk.face_color[1, c] != E.BLACK and \
                (colour is None or dk.face_color[1, c] == colour):
            return name, c
    raise AssertionError("no such card")


@pytest.mark.parametrize("dark_rank", [E.DRAW5, E.SKIP_ALL, E.WILD_DRAW_COLOR])
def test_start_flip_revealed_dark_action_is_not_carried_out(dark_rank: int) -> None:
    spec, start, sid = _fixed_start(lambda col, rk: rk == dark_rank)
    dk = get_deck(spec)
    black = dk.face_color[1, sid] == E.BLACK
    name, c = _number_card(dk, None if black else int(dk.face_color[1, sid]), {start})
    colour = int(dk.face_color[1, c])
    other, c1 = _number_card(dk, None, {start, name})
    script = ([E.DARK_COLOR_NAMES[colour]] if black else []) + [card_name(dk, c, 1)]
    g = play(hands=[[name], [other]], start=start, deck=spec, script=script)
    # seat 0 is neither skipped nor made to draw: it names a colour if the face is black, then goes out
    assert log(g) == [
        deal(0, nm(sid, dk), colour), played(0, nm(c, dk), colour), won(0, int(dk.face_points[1, c1]))]
    assert (g.res["side"], g.res["flips"], g.res["cards_drawn"]) == (1, 1, 0)
    assert_scored(g)


def test_start_wild_first_player_names_colour() -> None:
    g = fplay(hands=[["g5"], ["y3"]], start="wild", script=["green", "g5"])
    assert log(g) == [deal(0, WILD, GREEN), played(0, light("g5"), GREEN), won(0, 3)]


def test_start_skip_and_reverse_light() -> None:
    g = fplay(hands=[["r5"], ["r6"], ["y1"]], start="rskip", script=["r6"])
    assert log(g) == [deal(0, light("rskip"), RED), skipped(0), played(1, light("r6"), RED), won(1, 5 + 1)]
    g = fplay(hands=[["r5"], ["r6"], ["r7", "y1"]], start="rrev", script=["r7"])
    assert log(g)[:2] == [deal(2, light("rrev"), RED, -1), played(2, light("r7"), RED)]


# ---- Flip as the last card; scoring by the final side (docs/rules.md 2.10, 2.11) ------------------------------------


def test_flip_last_card_executes_scores_dark() -> None:
    hands = [["rflip"], ["r+1", "rskip", "wd2", "r9", "rrev", "wild", "rflip"]]
    (_, h1), _, _ = rig(hands, "r2")
    g = fplay(hands=hands, start="r2", script=["rflip"])
    assert light_points(h1) == 10 + 20 + 50 + 9 + 20 + 40 + 20
    assert dark_points(h1) == 20 + 30 + 60 + 9 + 20 + 40 + 20
    assert (g.winner, g.points, g.res["side"], g.res["flips"]) == (0, dark_points(h1), 1, 1)
    assert g.hands[1] == ["pink draw5", "pink skip_all", "wild_draw_color", "pink 9", "pink reverse", "wild",
                          "pink flip"]
    assert_scored(g)


def test_flip_last_card_not_executed_option_scores_light() -> None:
    hands = [["rflip"], ["r+1", "rskip", "wd2", "r9"]]
    g = fplay(hands=hands, start="r2", script=["rflip"], rules="official+set(flip_last_card_executes=false)")
    assert (g.winner, g.points, g.res["side"], g.res["flips"]) == (0, 10 + 20 + 50 + 9, 0, 0)
    assert_scored(g)


def test_flip_last_card_on_dark_side_flips_back_to_light() -> None:
    g = fplay(hands=[["bflip"], ["r+1", "rskip", "wd2", "r9"]], start="rflip", script=["purpleflip"])
    assert (g.winner, g.points, g.res["side"], g.res["flips"]) == (0, 10 + 20 + 50 + 9, 0, 2)
    assert_scored(g)


def test_wild_draw_colour_last_card_still_hits_and_counts() -> None:
    hands = [["wd2"], ["y3"]]
    (_, h1), _, rest = rig(hands, "rflip")
    drawn = rest[::-1][:until_colour(rest[::-1], TEAL)]
    g = fplay(hands=hands, start="rflip", script=["wdc", "teal", "accept"])
    assert log(g) == [deal(0, light("rflip"), PINK), played(0, WDC, TEAL), penalty(1, len(drawn), -1),
                      won(0, dark_points(h1 + drawn))]
    assert DK.face_color[1, drawn[-1]] == TEAL
    assert_scored(g)


# ---- two players (docs/rules.md 2.12) -----------------------------------------------------------------------------


@pytest.mark.parametrize(("start", "card", "script"), [
    ("r2", "rrev", "rrev"), ("rflip", "rrev", "pinkreverse"), ("rflip", "rskip", "pinkskipall"),
    ("r2", "rskip", "rskip"),
])
def test_two_players_reverse_and_skip_everyone_act_as_skip(start: str, card: str, script: str) -> None:
    g = fplay(hands=[[card, "r5"], ["y3"]], start=start, script=[script, "r5" if start == "r2" else "pink5"])
    colour = RED if start == "r2" else PINK
    assert log(g) == [deal(0, light(start), colour), played(0, light(card), colour), skipped(1),
                      played(0, light("r5"), colour), won(0, 3)]
    assert g.res["direction"] == 1
    assert_scored(g)


# ---- house rules on both sides (docs/rules.md 2.12) ---------------------------------------------------------------


@pytest.mark.parametrize(("start", "seven", "colour"), [("r2", "r7", RED), ("rflip", "pink7", PINK)])
def test_seven_zero_on_sevens_of_either_side(start: str, seven: str, colour: int) -> None:
    hands = [["r7", "g1", "g2"], ["r3"], ["y4"]]
    (h0, _, h2), _, _ = rig(hands, start)
    three = "r3" if colour == RED else "pink3"
    g = fplay(hands=hands, start=start, rules="official+seven_zero", script=[seven, 2, three])
    assert log(g) == [
        deal(0, light(start), colour), played(0, light("r7"), colour), ("swap", 0, light("r7"), 2, 0),
        played(1, light("r3"), colour), won(1, 4 + 1 + 2)]
    assert sorted(g.hand_ids[0]) == sorted(h2) and sorted(g.hand_ids[2]) == sorted(h0[1:])
    assert_scored(g)


# ---- conservation and pairing over random games -------------------------------------------------------------


@pytest.mark.parametrize("n", range(2, 11))
def test_random_games_conserve_cards_and_use_the_seed_pairing(n: int) -> None:
    base = get_deck("flip")
    gcol, grank, gpts = (np.empty_like(a) for a in (base.face_color, base.face_rank, base.face_points))
    pairings = set()
    flips = 0
    for rules, policies in [("official", "random"), ("official+stacking+seven_zero", "random(challenge=0.5,bluff=0.5)"),
                            ("official+set(flip_revealed_black_color=next_player_free)", "greedy(challenge=1)")]:
        for seed in range(6):
            g = play(players=n, seed=seed + 100 * n, rules=rules, policies=policies, deck="flip")
            assert g.end_reason in ("win", "turn_cap")
            assert_conserved(g)
            assert sum(map(len, g.hand_ids)) + len(g.pile_ids) + len(g.discard_ids) == FLIP_CARDS
            assert g.res["side"] == g.res["flips"] % 2
            if g.end_reason == "win":
                assert_scored(g)
            # the game's tables are the canonical faces with this seed's pairing
            pairing_nb.pair_faces_nb(seed + 100 * n, np.uint64(0), base.face_color, base.face_rank, base.face_points,
                             gcol, grank, gpts)
            assert np.array_equal(g.deck.face_color, gcol) and np.array_equal(g.deck.face_rank, grank)
            assert np.array_equal(g.deck.face_points, gpts)
            assert side_kinds(gcol, grank, 0) == LIGHT_KINDS
            assert side_kinds(gcol, grank, 1) == DARK_KINDS
            pairings.add(gcol[1].tobytes() + grank[1].tobytes())
            flips += g.res["flips"]
    assert len(pairings) == 6       # one pairing per seed, the same for every rule set
    assert flips > 0


def _pairing(g: int, seed: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    base = get_deck("flip")
    out = tuple(np.empty_like(a) for a in (base.face_color, base.face_rank, base.face_points))
    pairing_nb.pair_faces_nb(g, np.uint64(seed), base.face_color, base.face_rank, base.face_points, *out)
    return out


def _reference_pairing(g: int, seed: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Game g's pairing as docs/rules.md 2.3 and the engine define it, written plainly: a Fisher-Yates shuffle of
    the dark faces drawn from the game's own splitmix64 stream (each number the mix of the last)."""
    mask = (1 << 64) - 1

    def mix(z: int) -> int:
        z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & mask
        z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & mask
        return z ^ (z >> 31)

    base = get_deck("flip")
    col, rank, pts = (a.copy() for a in (base.face_color, base.face_rank, base.face_points))
    h = mix((seed ^ int(pairing_nb._PAIR_SALT)) ^ mix((g + int(rng_nb._GOLDEN)) & mask))
    for i in range(base.size - 1, 0, -1):
        h = mix((h + int(rng_nb._GOLDEN)) & mask)
        j = ((h >> 32) * (i + 1)) >> 32
        for a in (col, rank, pts):
            a[1, i], a[1, j] = a[1, j], a[1, i]
    return col, rank, pts


@pytest.mark.parametrize("game0", [0, 5, 13])
def test_pairings_drawn_eight_games_at_a_time_are_each_games_own(game0: int) -> None:
    """The batch kernels draw the pairings of PAIR_LANES games at once (pair_game_nb): whatever game a batch starts
    at, every game gets the pairing of its own stream, and card masks that match its faces."""
    base = get_deck("flip")
    seed = np.uint64(2024)
    gcol, grank, gpts = (a.copy() for a in (base.face_color, base.face_rank, base.face_points))
    cmask = cards_nb.new_card_masks_nb(gcol, grank, gpts)
    greedy_seated = np.array([E.POL_RANDOM, E.POL_GREEDY], np.int64)  # its keys are paired too (cmask[3])
    space = pairing_nb.pairing_space_nb(True, base.face_color, base.face_rank, base.face_points, cmask, greedy_seated)
    for g in range(2 * pairing_nb.PAIR_LANES + 3):
        pairing_nb.pair_game_nb(g, game0 + g, seed, space, gcol, grank, gpts, cmask)
        want = _reference_pairing(game0 + g, int(seed))
        assert all(np.array_equal(got, w) for got, w in zip((gcol, grank, gpts), want, strict=True))
        assert np.array_equal(cmask, cards_nb.new_card_masks_nb(gcol, grank, gpts))  # greedy's keys too
        assert all(np.array_equal(got, w) for got, w in zip((gcol, grank, gpts), _pairing(game0 + g, int(seed)),
                                                             strict=True))


def test_random_pairing_is_a_bijection_differs_per_game_and_repeats_per_seed() -> None:
    base = get_deck("flip")
    seen = set()
    for g in range(20):
        col, rank, pts = _pairing(g, 7)
        # light side untouched; dark side is a permutation of the canonical dark faces
        assert np.array_equal(col[0], base.face_color[0]) and np.array_equal(rank[0], base.face_rank[0])
        assert np.array_equal(pts[0], base.face_points[0])
        faces = Counter(zip(col[1].tolist(), rank[1].tolist(), pts[1].tolist(), strict=True))
        canon = zip(base.face_color[1].tolist(), base.face_rank[1].tolist(), base.face_points[1].tolist(),
                    strict=True)
        assert faces == Counter(canon)
        again = _pairing(g, 7)
        assert all(np.array_equal(a, b) for a, b in zip((col, rank, pts), again, strict=True))
        seen.add(col[1].tobytes() + rank[1].tobytes())
    assert len(seen) == 20
    assert not np.array_equal(_pairing(0, 7)[1][1], _pairing(0, 8)[1][1])
    assert not np.array_equal(_pairing(0, 7)[1][1], base.face_rank[1])


def test_fixed_pairing_depends_only_on_its_seed() -> None:
    a = get_deck("flip(pairing=fixed,pairing_seed=5)")
    b = get_deck("flip(pairing=fixed,pairing_seed=5)")
    c = get_deck("flip(pairing=fixed,pairing_seed=6)")
    assert np.array_equal(a.face_rank, b.face_rank) and np.array_equal(a.face_color, b.face_color)
    assert not np.array_equal(a.face_rank[1], c.face_rank[1])
    assert not a.random_pairing
    assert side_kinds(a.face_color, a.face_rank, 1) == DARK_KINDS


# ---- simulate ---------------------------------------------------------------------------------------------------


def test_simulate_flip_deterministic_across_threads_and_batches() -> None:
    kw = dict(deck="flip", players=4, games=3000, seed=11, policies="random")
    r1 = simulate(threads=1, batch_size=3000, **kw)
    r2 = simulate(threads=2, batch_size=700, **kw)
    r3 = simulate(threads=3, batch_size=128, **kw)
    pd.testing.assert_frame_equal(r1.records, r2.records)
    pd.testing.assert_frame_equal(r1.records, r3.records)
    assert r1.summary["deck"] == "flip"
    rec = r1.records
    assert rec["flips"].mean() > 0
    assert (rec["end_reason"] == "win").mean() > 0.95
    other = simulate(threads=1, batch_size=3000, **{**kw, "seed": 12}).records
    assert not rec["turns"].equals(other["turns"])
    # the per-game random pairing is in effect: a table-paired run differs
    table = simulate(threads=1, batch_size=3000, **{**kw, "deck": TABLE}).records
    assert not rec["winner_points"].equals(table["winner_points"])


def test_simulate_rounds_match_scenario_replays() -> None:
    n = 3
    rec = simulate(deck="flip", players=n, games=25, seed=0, threads=1, policies="random").records
    for gi in range(25):
        g = play(players=n, seed=gi, policies="random", deck="flip")
        row = rec.iloc[gi]
        assert (row["winner"], row["turns"], row["winner_points"], row["cards_drawn"], row["flips"]) == \
            (g.winner, g.turns, g.points, g.res["cards_drawn"], g.res["flips"])
        assert [row[f"hand_points_{s}"] for s in range(n)] == [g.hand_points(s) for s in range(n)]


def test_simulate_flip_matches_deterministic_across_threads_and_batches() -> None:
    kw = dict(mode="match", deck="flip", players=3, games=60, seed=4, policies="random", target=200)
    r1 = simulate(threads=1, batch_size=60, **kw)
    r2 = simulate(threads=2, batch_size=7, **kw)
    pd.testing.assert_frame_equal(r1.records, r2.records)
    assert len(r1.records) == 60
