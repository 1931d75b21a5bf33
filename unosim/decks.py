"""Deck tables: a deck is data (three small integer tables), never code.

``Deck.face_color[side, c]``, ``Deck.face_rank[side, c]`` and ``Deck.face_points[side, c]`` describe
physical card ``c``.  Single-sided decks repeat side 0 in side 1 so kernels never branch on the deck.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from . import enums as E


@dataclass(frozen=True)
class Deck:
    name: str
    face_color: np.ndarray = field(repr=False)
    face_rank: np.ndarray = field(repr=False)
    face_points: np.ndarray = field(repr=False)
    two_sided: bool = False

    @property
    def size(self) -> int:
        return int(self.face_color.shape[1])

    def describe(self, side: int = 0) -> list[str]:
        """Human-readable names of every physical card (for logs and errors)."""
        return [card_name(self, c, side) for c in range(self.size)]


def card_name(deck: Deck, c: int, side: int = 0) -> str:
    col = int(deck.face_color[side, c])
    rank = int(deck.face_rank[side, c])
    names = E.DARK_COLOR_NAMES if (deck.two_sided and side == 1) else E.COLOR_NAMES
    if col == E.BLACK:
        return E.RANK_NAMES[rank]
    return f"{names[col]} {E.RANK_NAMES[rank]}"


def classic_points(rank: int) -> int:
    """Standard scoring (RULES.md 1.15): numbers at face value, coloured actions 20, wild cards 50."""
    if rank <= 9:
        return rank
    if rank in (E.WILD, E.WD4):
        return 50
    return 20


def _from_kinds(name: str, kinds: list[tuple[int, int]]) -> Deck:
    """Build a single-sided deck from a list of (colour, rank), one entry per physical card."""
    n = len(kinds)
    col = np.empty((2, n), np.int64)
    rank = np.empty((2, n), np.int64)
    pts = np.empty((2, n), np.int64)
    for c, (k_col, k_rank) in enumerate(kinds):
        for s in (0, 1):
            col[s, c] = k_col
            rank[s, c] = k_rank
            pts[s, c] = classic_points(k_rank)
    return Deck(name, col, rank, pts, False)


def classic_kinds() -> list[tuple[int, int]]:
    """The 108 cards of RULES.md 1.2, in a fixed canonical order."""
    kinds: list[tuple[int, int]] = []
    for col in range(E.NCOLORS):
        kinds.append((col, 0))
        for r in range(1, 10):
            kinds += [(col, r), (col, r)]
        for r in (E.SKIP, E.REVERSE, E.DRAW2):
            kinds += [(col, r), (col, r)]
    kinds += [(E.BLACK, E.WILD)] * 4 + [(E.BLACK, E.WD4)] * 4
    return kinds


def classic_deck() -> Deck:
    return _from_kinds("classic", classic_kinds())


DECKS = {"classic": classic_deck}


def get_deck(name: str) -> Deck:
    key = name.strip().lower()
    if key not in DECKS:
        raise ValueError(f"unknown deck {name!r}; accepted: {', '.join(sorted(DECKS))}")
    return DECKS[key]()
