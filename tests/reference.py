"""A deliberately simple pure-Python reference for one round of official classic UNO.

Written from the rules text alone (not from ``unosim/core/nb.py``) so that it is an independent
implementation the compiled engine can be checked against statistically; see
``tests/test_reference.py``.  Only the two built-in policies ``random`` and ``greedy`` exist here,
and the only randomness is one ``random.Random``.

Cards are integers 0..107 indexing the tables ``COLOR``, ``RANK`` and ``POINTS``.  Colours are
red=0, yellow=1, green=2, blue=3 and black=4; ranks 0-9 are numbers, then ``SKIP``, ``REVERSE``,
``DRAW2``, ``WILD`` and ``WD4``.  A draw pile is a list whose *last* element is its top.

Two switches exist only to build deliberately wrong variants (to show that the statistical
comparison can fail): ``reverse_skips_with_two=False`` makes a Reverse with two players pass the
turn like a number card, ``draw_two_skips=False`` lets the victim of a Draw Two still play, and
``greedy_names_most_held=False`` makes greedy name a uniformly random colour for its wilds.
"""

from __future__ import annotations

import random
from dataclasses import dataclass

RED, YELLOW, GREEN, BLUE, BLACK = range(5)
SKIP, REVERSE, DRAW2, WILD, WD4 = 10, 11, 12, 13, 14
HAND_SIZE = 7
TURN_CAP = 10_000
POLICIES = ("random", "greedy")


def _build_deck() -> tuple[list[int], list[int], list[int]]:
    color: list[int] = []
    rank: list[int] = []
    for c in (RED, YELLOW, GREEN, BLUE):
        for r in range(13):  # 0..9, Skip, Reverse, Draw Two
            for _ in range(1 if r == 0 else 2):
                color.append(c)
                rank.append(r)
    for r in (WILD, WD4):
        for _ in range(4):
            color.append(BLACK)
            rank.append(r)
    points = [r if r <= 9 else (20 if r <= DRAW2 else 50) for r in rank]
    return color, rank, points


COLOR, RANK, POINTS = _build_deck()
DECK_SIZE = len(COLOR)
assert DECK_SIZE == 108 and sum(POINTS) == 4 * (45 * 2 + 6 * 20) + 8 * 50

# Greedy tie-break among equal points: Draw Two > Reverse > Skip, then numbers high to low.
_ACTION_ORDER = {DRAW2: 3, REVERSE: 2, SKIP: 1}


@dataclass
class RoundResult:
    winner: int  # -1 when the turn cap was hit
    turns: int
    winner_points: int
    cards_drawn: int


class _Round:
    """The state of one round; ``play()`` runs it to the end."""

    def __init__(self, rng: random.Random, policies: list[str], *, reverse_skips_with_two: bool = True,
                 draw_two_skips: bool = True, greedy_names_most_held: bool = True) -> None:
        self.rng = rng
        self.policies = policies
        self.n = len(policies)
        self.reverse_skips_with_two = reverse_skips_with_two
        self.draw_two_skips = draw_two_skips
        self.greedy_names_most_held = greedy_names_most_held
        deck = list(range(DECK_SIZE))
        rng.shuffle(deck)
        # Deal 7 to each seat; whatever is left is the draw pile (top = last element).
        self.hands = [deck[HAND_SIZE * s:HAND_SIZE * (s + 1)] for s in range(self.n)]
        self.pile = deck[HAND_SIZE * self.n:]
        self.discard: list[int] = []
        self.color = -1  # the colour to match
        self.top_rank = -1  # the rank to match; -1 when a wild is on top (only its colour matches)
        self.direction = 1
        self.drawn = 0

    # ---- primitives ----------------------------------------------------------------------------

    def seat(self, k: int) -> int:
        return k % self.n

    def draw(self, seat: int, k: int) -> int:
        """Seat ``seat`` draws up to ``k`` cards (fewer if even a reshuffle leaves none); returns the
        last card drawn, or -1 when none could be drawn."""
        last = -1
        for _ in range(k):
            if not self.pile:
                if len(self.discard) <= 1:
                    break  # nothing to reshuffle: the draw is cancelled
                top = self.discard[-1]
                self.pile = self.discard[:-1]
                self.rng.shuffle(self.pile)
                self.discard = [top]
            last = self.pile.pop()
            self.hands[seat].append(last)
            self.drawn += 1
        return last

    def legal(self, card: int, hand: list[int]) -> bool:
        c = COLOR[card]
        if c == BLACK:
            if RANK[card] == WILD:
                return True
            return all(COLOR[h] != self.color for h in hand)  # Wild Draw Four: no card of the colour
        return c == self.color or RANK[card] == self.top_rank

    # ---- policies ------------------------------------------------------------------------------

    def choose_card(self, seat: int, legal: list[int]) -> int:
        """Index into the seat's hand of the card to play, given the legal indices (non-empty)."""
        hand = self.hands[seat]
        if self.policies[seat] == "random":
            return legal[self.rng.randrange(len(legal))]
        colored = [i for i in legal if COLOR[hand[i]] != BLACK]
        if colored:
            def key(i: int) -> tuple[int, int, int, int]:
                card = hand[i]
                r = RANK[card]
                return (POINTS[card], COLOR[card] == self.color, _ACTION_ORDER.get(r, 0) if r > 9 else r,
                        -COLOR[card])
            return max(colored, key=key)
        wd4 = [i for i in legal if RANK[hand[i]] == WD4]
        return wd4[0] if wd4 else legal[0]  # only Wilds are left otherwise

    def choose_color(self, seat: int) -> int:
        """Colour named for a wild; the seat's hand no longer holds the wild (already played)."""
        if self.policies[seat] == "random" or not self.greedy_names_most_held:
            return self.rng.randrange(4)
        counts = [0, 0, 0, 0]
        for card in self.hands[seat]:
            if COLOR[card] != BLACK:
                counts[COLOR[card]] += 1
        return max(range(4), key=lambda c: (counts[c], -c))  # ties to the lowest index; 0 if none

    # ---- the round -----------------------------------------------------------------------------

    def put_on_discard(self, card: int, seat: int) -> None:
        self.discard.append(card)
        if COLOR[card] == BLACK:
            self.color = self.choose_color(seat)
            self.top_rank = -1
        else:
            self.color = COLOR[card]
            self.top_rank = RANK[card]

    def start(self) -> int:
        """Turn the starting card and apply its effect; returns the seat that acts first."""
        card = self.pile.pop()
        while RANK[card] == WD4:  # back into the pile at a uniformly random position, turn the next
            self.pile.insert(self.rng.randrange(len(self.pile) + 1), card)
            card = self.pile.pop()
        r = RANK[card]
        if r == WILD:
            self.discard.append(card)
            self.color = self.choose_color(0)
            self.top_rank = -1
            return 0
        self.put_on_discard(card, 0)
        if r == SKIP:
            return self.seat(1)
        if r == REVERSE:
            if self.n == 2:
                return 1 if self.reverse_skips_with_two else 0
            self.direction = -1
            return self.n - 1  # the dealer
        if r == DRAW2:
            self.draw(0, 2)
            return self.seat(1) if self.draw_two_skips else 0
        return 0

    def play(self) -> RoundResult:
        seat = self.start()
        turns = 0
        while turns < TURN_CAP:
            hand = self.hands[seat]
            legal = [i for i, c in enumerate(hand) if self.legal(c, hand)]
            if legal:
                card = hand.pop(self.choose_card(seat, legal))
            else:
                card = self.draw(seat, 1)
                if card >= 0 and self.legal(card, hand):
                    hand.pop()  # the drawn card is the last one; both policies play it at once
                else:
                    card = -1
            turns += 1
            if card < 0:  # no play: the turn passes
                seat = self.seat(seat + self.direction)
                continue
            self.put_on_discard(card, seat)
            r = RANK[card]
            nxt = self.seat(seat + self.direction)
            if r == DRAW2:
                self.draw(nxt, 2)
            elif r == WD4:
                self.draw(nxt, 4)
            if not hand:
                pts = sum(POINTS[c] for s, h in enumerate(self.hands) if s != seat for c in h)
                return RoundResult(seat, turns, pts, self.drawn)
            if r == SKIP or r == WD4 or (r == DRAW2 and self.draw_two_skips):
                seat = self.seat(seat + 2 * self.direction)
            elif r == REVERSE:
                if self.n == 2:
                    seat = seat if self.reverse_skips_with_two else nxt
                else:
                    self.direction = -self.direction
                    seat = self.seat(seat + self.direction)
            else:
                seat = nxt
        return RoundResult(-1, turns, 0, self.drawn)


def play_round(rng: random.Random, policies: list[str], **variant: bool) -> RoundResult:
    """Play one round; ``policies`` names one policy per seat (seat 0 first, seat n-1 deals)."""
    for p in policies:
        if p not in POLICIES:
            raise ValueError(f"unknown policy {p!r}; accepted: {', '.join(POLICIES)}")
    if not 2 <= len(policies) <= 10:
        raise ValueError(f"players={len(policies)} is out of range; accepted: 2..10")
    return _Round(rng, list(policies), **variant).play()


def simulate_reference(policies: list[str], games: int, seed: int, **variant: bool) -> dict[str, list[int]]:
    """Play ``games`` rounds from ``random.Random(seed)``; returns per-round columns like the
    engine's records: ``winner``, ``turns``, ``winner_points``, ``cards_drawn``."""
    rng = random.Random(seed)
    cols: dict[str, list[int]] = {"winner": [], "turns": [], "winner_points": [], "cards_drawn": []}
    for _ in range(games):
        res = play_round(rng, policies, **variant)
        cols["winner"].append(res.winner)
        cols["turns"].append(res.turns)
        cols["winner_points"].append(res.winner_points)
        cols["cards_drawn"].append(res.cards_drawn)
    return cols
