"""Rigged decks and scripted decisions: set up any situation in a few lines, assert the outcome.

>>> from unosim.running.scenario import play
>>> g = play(hands=[["r5", "r7"], ["b5", "g2"]], start="r1", pile=["y3"],
...          policies="greedy")
>>> g.winner, g.turns
(0, 3)

Card names: a colour letter ``r y g b`` (or ``red`` ...) followed by ``0``-``9``, ``skip``/``s``,
``reverse``/``rev``, ``+2``/``draw2``; and ``wild``/``w``, ``wd4``/``+4``.  Names are case- and
space-insensitive (``"R +2"`` works).  UNO BTS's Dancing Wild is ``dancingwild``/``dw``.

The deck is rigged top down: the hands (seat 0 first; hands may differ in size), then the
starting card, then ``pile`` (the next cards drawn, in order), then every remaining card of the
deck in canonical order.  A ``scripted`` seat reads each decision from ``script`` in the order the
engine asks:

* its turn: a card name to play, or ``"draw"``;
* after drawing a playable card: ``"play"`` or ``"keep"``;
* a wild's colour: ``"red"`` ... ``"blue"`` (or 0..3);
* a pending Draw Two / Wild Draw Four (with stacking on): a card name to stack, or ``"take"``;
* a Wild Draw Four played on it (challenges on): ``"challenge"`` or ``"accept"``;
* a 7 (seven_zero) or 0 (zero_swap_any): the seat number to swap with (``"none"`` where optional);
* a jump-in window: a card name, or ``"none"``.
Running out of script or an illegal scripted move ends the round with end reason ``script_error``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ..core import enums as E
from ..core import layout, nb, pairing_nb, rng_nb
from ..errors import ScenarioError
from ..players.policies import pack_policies, parse_policies
from ..players.policy_api import check_policy_error, run_kernel, slot_for
from ..ruleset.decks import Deck, card_name, get_deck
from ..ruleset.rules import RuleSet, parse_rules
from ..validate import MAX_PLAYERS, MIN_PLAYERS, check_players, check_seed, integer
from .sim import check_fits, check_rules_fit_deck, pack_rules

_COLORS = {"r": E.RED, "red": E.RED, "y": E.YELLOW, "yellow": E.YELLOW, "g": E.GREEN, "green": E.GREEN,
           "b": E.BLUE, "blue": E.BLUE}
_RANKS = {"skip": E.SKIP, "s": E.SKIP, "reverse": E.REVERSE, "rev": E.REVERSE, "r": E.REVERSE,
          "+2": E.DRAW2, "draw2": E.DRAW2, "d2": E.DRAW2, "drawtwo": E.DRAW2,
          # UNO Flip (light and dark faces)
          "+1": E.DRAW1, "draw1": E.DRAW1, "flip": E.FLIP, "+5": E.DRAW5, "draw5": E.DRAW5,
          "skipall": E.SKIP_ALL, "skipeveryone": E.SKIP_ALL}
_BLACK = {"wild": E.WILD, "w": E.WILD, "wd4": E.WD4, "+4": E.WD4, "wilddraw4": E.WD4, "wilddrawfour": E.WD4,
          "wd2": E.WILD_DRAW2, "wilddraw2": E.WILD_DRAW2, "wdc": E.WILD_DRAW_COLOR,
          "wilddrawcolor": E.WILD_DRAW_COLOR, "dancingwild": E.DANCING_WILD, "dw": E.DANCING_WILD}
_DARK = {"pink": E.RED, "teal": E.YELLOW, "orange": E.GREEN, "purple": E.BLUE}
_WORDS = {"draw": -1, "take": -1, "none": -1, "no": 0, "keep": 0, "accept": 0, "play": 1,
          "challenge": 1, "yes": 1}


def parse_kind(name: str) -> tuple[int, int]:
    """(colour, rank) of a card name (UNO Flip: the light face, or a dark face named with a dark colour,
    pink/teal/orange/purple, which scripts use once the game is on the dark side)."""
    t = re.sub(r"[\s_-]", "", name.lower())
    if t in _BLACK:
        return E.BLACK, _BLACK[t]
    colors = {**_COLORS, **_DARK}
    for cname in sorted(colors, key=len, reverse=True):
        if t.startswith(cname):
            rest = t[len(cname):]
            if rest.isdigit() and len(rest) == 1:
                return colors[cname], int(rest)
            if rest in _RANKS:
                return colors[cname], _RANKS[rest]
    raise ScenarioError(f"unknown card {name!r}; accepted: e.g. r5, g+2, bskip, yrev, wild, wd4, "
                     "r+1, bflip, wd2 (Flip light), pink5, teal+5, orangeskipall, wdc (Flip dark), "
                     "dw (BTS Dancing Wild)")


def kind_code(name: str) -> int:
    col, rank = parse_kind(name)
    return col * E.NRANKS + rank


_SCRIPT_ACCEPTED = ("a card name, draw/take/none, play/keep, challenge/accept, a colour, a seat number or "
                    "True/False")


def script_value(item: Any) -> int:
    """One scripted decision as the kernel's integer (see the module docstring)."""
    if isinstance(item, (bool, np.bool_)):
        return int(item)
    if isinstance(item, (int, np.integer)):
        if not -1 <= int(item) <= 10**6:
            raise ScenarioError(f"script entry {item!r} is out of range; accepted: {_SCRIPT_ACCEPTED}")
        return int(item)
    if not isinstance(item, str):
        raise ScenarioError(f"script entry {' '.join(repr(item).split())[:60]} is not a decision; "
                            f"accepted: {_SCRIPT_ACCEPTED}")
    t = item.strip().lower()
    if t in _WORDS:
        return _WORDS[t]
    if t in _COLORS and len(t) > 1:
        return _COLORS[t]
    if t in _DARK:
        return _DARK[t]
    return kind_code(t)


def at(where: str, fn, *args):
    """``fn(*args)``, with ``where`` (e.g. ``hands[1][0]``) in front of the message of a ScenarioError."""
    try:
        return fn(*args)
    except ScenarioError as e:
        raise ScenarioError(f"{where}: {e}") from None


def rig_order(deck: Deck, hands: list[list[str]], start: str, pile: list[str]) -> np.ndarray:
    """The kernel's rigged order: [hand sizes..., physical card ids top down]."""
    free: dict[tuple[int, int], list[int]] = {}
    for c in range(deck.size):
        free.setdefault((int(deck.face_color[0, c]), int(deck.face_rank[0, c])), []).append(c)
    used: list[int] = []

    def take(where: str, name: str) -> int:
        k = at(where, parse_kind, name)
        if not free.get(k):
            raise ScenarioError(f"{where}: card {name!r} is used more often than the {deck.name} deck holds it; "
                                f"accepted: at most as many copies as the deck has")
        c = free[k].pop(0)
        used.append(c)
        return c

    for s, h in enumerate(hands):
        for i, name in enumerate(h):
            take(f"hands[{s}][{i}]", name)
    take("start", start)
    for i, name in enumerate(pile):
        take(f"pile[{i}]", name)
    taken = set(used)
    rest = [c for c in range(deck.size) if c not in taken]
    return np.array([len(h) for h in hands] + used + rest, np.int64)


MAX_EVENTS = 10**6


def _sequence(name: str, value: Any) -> list[Any]:
    if isinstance(value, (str, bytes)) or not isinstance(value, (list, tuple, np.ndarray)):
        raise ScenarioError(f"{name}={' '.join(repr(value).split())[:60]} is not a list; accepted: a list")
    return list(value)


def _card_text(name: str, value: Any) -> str:
    if not isinstance(value, str):
        raise ScenarioError(f"{name}={' '.join(repr(value).split())[:60]} is not a card name; accepted: a card "
                            "name such as 'r5', 'g+2', 'wild'")
    return value


def _card_list(name: str, value: Any) -> list[str]:
    return [_card_text(f"{name}[{i}]", c) for i, c in enumerate(_sequence(name, value))]


def _check_hands(hands: Any) -> list[list[str]]:
    """hands: one list of card names per seat, 2..10 seats, each hand holding at least one card."""
    seats = _sequence("hands", hands)
    if not MIN_PLAYERS <= len(seats) <= MAX_PLAYERS:
        raise ScenarioError(f"hands has {len(seats)} hands; accepted: {MIN_PLAYERS}..{MAX_PLAYERS} hands, "
                            "one per seat")
    out = [_card_list(f"hands[{s}]", h) for s, h in enumerate(seats)]
    for s, h in enumerate(out):
        if not h:
            raise ScenarioError(f"hands[{s}] is empty; accepted: at least one card in every hand")
    return out


def play_one(n, dealer, order, dk, ri, rf, pol, pp, script, specs, hand, hlen, pile, disc, st, rng, log, res):
    """One round on the given buffers through the fixed-signature kernel; a policy's bad answer or
    exception becomes its one-line error."""
    nc = dk.size

    def kernel(*args):
        *head, _err, obs, slot = args
        nb.play_one_nb(*head, obs, slot)
        if st[layout.ST_ERR] == 2:
            check_policy_error(np.array([0, st[layout.ST_ERR_SEAT], st[layout.ST_ERR_KIND], st[layout.ST_ERR_VAL]]), specs)

    run_kernel(kernel, (n, dealer, -1, order, dk.face_color, dk.face_rank, dk.face_points, ri, rf, pol, pp, script,
                        hand, hlen, pile, disc, np.zeros(nc, np.int64), np.zeros(nc, np.int64),
                        np.ones(4 * n, np.int64), st, rng, log, res), dk, slot_for(pol), specs)


@dataclass
class Game:
    """The outcome of one scenario round, with the final state and the event log."""

    deck: Deck
    res: dict[str, int]
    hands: list[list[str]]
    pile: list[str]          # top first
    discard: list[str]       # bottom first; the last entry is the top card
    events: list[dict[str, Any]] = field(default_factory=list)
    hand_ids: list[list[int]] = field(default_factory=list)
    pile_ids: list[int] = field(default_factory=list)
    discard_ids: list[int] = field(default_factory=list)

    @property
    def winner(self) -> int:
        return self.res["winner"]

    @property
    def turns(self) -> int:
        return self.res["turns"]

    @property
    def points(self) -> int:
        return self.res["winner_points"]

    @property
    def end_reason(self) -> str:
        return E.END_NAMES[self.res["end"]]

    @property
    def color(self) -> str:
        names = E.DARK_COLOR_NAMES if self.deck.two_sided and self.res["side"] == 1 else E.COLOR_NAMES
        return names[self.res["color"]] if self.res["color"] >= 0 else "any"

    def hand_points(self, seat: int) -> int:
        """Points left in a hand, on the side the round ended on (plain face values)."""
        return int(sum(self.deck.face_points[self.res["side"], c] for c in self.hand_ids[seat]))

    def kinds(self, name: str) -> list[dict[str, Any]]:
        """Events of one kind (``"play"``, ``"draw"``, ``"penalty"``, ``"skipped"`` ...)."""
        return [e for e in self.events if e["event"] == name]


_RES_NAMES = {"winner": layout.RES_WINNER, "turns": layout.RES_TURNS, "winner_points": layout.RES_WPTS,
              "cards_drawn": layout.RES_DRAWN, "end": layout.RES_END, "reshuffles": layout.RES_RESHUF,
              "challenges": layout.RES_CHALLENGES, "max_stack": layout.RES_STACK_MAX, "swaps": layout.RES_SWAPS,
              "jump_ins": layout.RES_JUMPS, "uno_caught": layout.RES_UNO_CAUGHT, "flips": layout.RES_FLIPS,
              "loser": layout.RES_LOSER, "side": layout.RES_SIDE,
              "color": layout.RES_COLOR, "direction": layout.RES_DIRECTION, "next": layout.RES_NEXT}


def play(hands: list[list[str]] | None = None, start: str | None = None, pile: list[str] = (),
         rules: str | RuleSet = "official", policies: str | list[str] = "scripted",
         script: list[Any] = (), seed: int = 0, dealer: int | None = None, players: int | None = None,
         deck: str = "classic", max_events: int = 20_000) -> Game:
    """Play one round, rigged (``hands`` and ``start`` given) or shuffled from ``seed``.

    Every argument is checked first; a bad one raises :class:`~unosim.errors.UnosimError` (a
    :class:`~unosim.errors.ScenarioError` for hands, cards, dealer and script) naming it."""
    dk = get_deck(deck)
    rs = parse_rules(rules)
    seed = check_seed(seed)
    max_events = integer("max_events", max_events, 0, MAX_EVENTS, ScenarioError)
    if hands is not None:
        hand_lists = _check_hands(hands)
        n = len(hand_lists)
        if players is not None and integer("players", players, MIN_PLAYERS, MAX_PLAYERS) != n:
            raise ScenarioError(f"players={players} but {n} hands are given; accepted: players=len(hands), "
                                "or leave players out")
        if start is None:
            raise ScenarioError("a rigged scenario needs a starting card (start=...); accepted: a card name "
                                "such as 'r3'")
        order = rig_order(dk, hand_lists, _card_text("start", start), _card_list("pile", pile))
    else:
        if start is not None or len(_card_list("pile", pile)):
            raise ScenarioError("start= and pile= rig the deck and need hands=... too; accepted: give hands, "
                                "or leave start and pile out for a shuffled round")
        n = check_players(4 if players is None else players)
        check_fits(dk, rs, n)
        order = np.empty(0, np.int64)
    check_rules_fit_deck(rs, dk)
    if dealer is not None:
        dealer = integer("dealer", dealer, 0, n - 1, ScenarioError)
    specs = parse_policies(policies, n, allow_scripted=True)
    pol, pp = pack_policies(specs)
    ri, rf = pack_rules(rs, dk)
    fcol, frank, fpts = dk.face_color, dk.face_rank, dk.face_points
    if dk.random_pairing:
        fcol, frank, fpts = fcol.copy(), frank.copy(), fpts.copy()
        pairing_nb.pair_faces_nb(seed, np.uint64(0), dk.face_color, dk.face_rank, dk.face_points, fcol, frank, fpts)
        dk = Deck(dk.name, fcol, frank, fpts, True)
    sc = np.array([at(f"script[{i}]", script_value, x) for i, x in enumerate(_sequence("script", script))],
                  np.int64)
    if len(sc) and "scripted" not in {sp.name for sp in specs}:
        raise ScenarioError("script=... is given but no seat is scripted, so it would be ignored; accepted: "
                            "policies with a 'scripted' seat, or no script")
    nc = dk.size
    hand = np.zeros((n, nc), np.int64)
    hlen = np.zeros(n, np.int64)
    pile_a = np.zeros(nc, np.int64)
    disc = np.zeros(nc, np.int64)
    st = np.zeros(layout.NST, np.int64)
    rng = np.array([rng_nb.game_seed_nb(np.uint64(0), np.uint64(seed))], np.uint64)
    log = np.zeros((max_events, 5), np.int64)
    res = np.zeros(layout.NRES, np.int64)
    play_one(n, n - 1 if dealer is None else dealer, order, dk, ri, rf, pol, pp, sc, specs,
             hand, hlen, pile_a, disc, st, rng, log, res)
    nlog = min(int(st[layout.ST_LOG_N]), max_events)
    events = []
    def name(c: int) -> str:
        return f"{card_name(dk, c, 0)} / {card_name(dk, c, 1)}" if dk.two_sided else card_name(dk, c)

    for kind, seat, card, a1, a2 in log[:nlog].tolist():
        events.append({"event": E.EV_NAMES[kind], "seat": seat,
                       "card": name(card) if card >= 0 else None, "a1": a1, "a2": a2})
    side = int(res[layout.RES_SIDE])
    hand_ids = [hand[s, : hlen[s]].tolist() for s in range(n)]
    pile_ids = pile_a[: st[layout.ST_PILE_N]][::-1].tolist()
    disc_ids = disc[: st[layout.ST_DISC_N]].tolist()
    return Game(
        deck=dk,
        res={k: int(res[i]) for k, i in _RES_NAMES.items()},
        hands=[[card_name(dk, c, side) for c in h] for h in hand_ids],
        pile=[card_name(dk, c, side) for c in pile_ids],
        discard=[card_name(dk, c, side) for c in disc_ids],
        events=events,
        hand_ids=hand_ids,
        pile_ids=pile_ids,
        discard_ids=disc_ids,
    )
