"""UNO Flip's pairing of light and dark faces, drawn afresh for every game (``flip``'s default), eight games at a
time (PAIR_LANES), each from its own stream whatever the batch.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from .cards_nb import _key_row, new_card_masks_nb
from .enums import *  # noqa: F403  (kernels read the integer constants as globals)
from .layout import *  # noqa: F403  (the kernels read the slots and switches as globals)
from .rng_nb import _GOLDEN, _S32, game_seed_nb, mix64_nb

_PAIR_SALT = np.uint64(0xF11BF11BF11BF11B)


#: UNO Flip's pairings are drawn this many games at a time: each game's random stream is a serial chain (each
#: number the mix of the last), and independent chains run side by side where one alone waits on every step
PAIR_LANES = 8
assert PAIR_LANES == 8, "_pair_draws writes out its eight lanes"
# a dark face packed in one word (a pairing's swaps move one word instead of five): its card mask in bits 0-32,
# its index among the dark faces 33-39 (which names its greedy key), colour 40-43, rank 44-49, points 50-62
# (UNO Flip's 112 faces, the only deck paired per game, fit)
_PK_IDX = np.uint64(33)
_PK_COL = np.uint64(40)
_PK_RANK = np.uint64(44)
_PK_PTS = np.uint64(50)
_PK_MASK = np.int64((1 << 33) - 1)
assert CM_RANK0 + NRANKS <= 33, "a card mask fits below _PK_IDX"


@njit(cache=True)
def pairing_space_nb(paired, fcol, frank, fpts, cmask, pol):
    """What pair_game_nb pairs a deck's faces with (empty where the deck is not paired per game): the dark faces
    packed (a word a card, from side 1 of the deck's tables and of their card masks ``cmask``), their greedy
    keys (side 1's row of greedy's keys, _key_row; none where no seat of the line-up ``pol`` plays greedy, which
    alone reads them), a word a card to shuffle them in, and the draws of PAIR_LANES games (PAIR_LANES x ncards)."""
    nc = fcol.shape[1] if paired else 0
    if nc > 128:
        raise ValueError("a deck paired per game has at most 128 cards (the index field of a packed dark face)")
    dark = np.zeros(nc, np.int64)
    keys = np.zeros(nc if (pol == POL_GREEDY).any() else 0, np.int64)
    for c in range(nc):
        dark[c] = (cmask[1, c] | (np.int64(c) << _PK_IDX) | (np.int64(fcol[1, c]) << _PK_COL) |
                   (np.int64(frank[1, c]) << _PK_RANK) | (np.int64(fpts[1, c]) << _PK_PTS))
    key_row = _key_row(cmask, 1)
    for c in range(keys.shape[0]):
        keys[c] = cmask[key_row, c]
    return dark, keys, np.zeros(nc, np.int64), np.zeros((PAIR_LANES, nc), np.int64)


@njit(cache=True, _nrt=False, inline="always")
def _fy_draw(h, i):
    """The next number of a pairing's stream after ``h``, and the Fisher-Yates draw of step i from it."""
    h = mix64_nb(h + _GOLDEN)
    return h, np.int64(((h >> _S32) * np.uint64(i + 1)) >> _S32)


@njit(cache=True, _nrt=False)
def _pair_draws(g0, seed, draws):
    """The Fisher-Yates draws of the pairings of games g0 .. g0+PAIR_LANES-1, each from its own stream:
    draws[lane, i] (i = ncards-1 .. 1) is the position that dark face i swaps with for game g0+lane.  The eight
    streams are eight independent chains, kept in registers and stepped together."""
    s = seed ^ _PAIR_SALT
    h0 = game_seed_nb(s, np.uint64(g0))
    h1 = game_seed_nb(s, np.uint64(g0 + 1))
    h2 = game_seed_nb(s, np.uint64(g0 + 2))
    h3 = game_seed_nb(s, np.uint64(g0 + 3))
    h4 = game_seed_nb(s, np.uint64(g0 + 4))
    h5 = game_seed_nb(s, np.uint64(g0 + 5))
    h6 = game_seed_nb(s, np.uint64(g0 + 6))
    h7 = game_seed_nb(s, np.uint64(g0 + 7))
    for i in range(draws.shape[1] - 1, 0, -1):
        h0, draws[0, i] = _fy_draw(h0, i)
        h1, draws[1, i] = _fy_draw(h1, i)
        h2, draws[2, i] = _fy_draw(h2, i)
        h3, draws[3, i] = _fy_draw(h3, i)
        h4, draws[4, i] = _fy_draw(h4, i)
        h5, draws[5, i] = _fy_draw(h5, i)
        h6, draws[6, i] = _fy_draw(h6, i)
        h7, draws[7, i] = _fy_draw(h7, i)


@njit(cache=True, _nrt=False)
def pair_game_nb(g, gi, seed, space, gcol, grank, gpts, cmask):
    """UNO Flip random_bijection (docs/rules.md 2.3): give game ``gi``, the ``g``-th of a batch, its own uniformly
    random pairing of light faces (side 0) with dark faces (side 1): side 1 of its tables, card masks and greedy's
    keys.  The
    draws are made for PAIR_LANES games at once, at every PAIR_LANES-th game of the batch; they are the same
    whatever the batch (each game's own stream).  ``space``: pairing_space_nb."""
    dark, keys, work, draws = space
    nc = dark.shape[0]
    lane = g % PAIR_LANES
    if lane == 0:
        _pair_draws(gi, seed, draws)
    for c in range(nc):
        work[c] = dark[c]
    for i in range(nc - 1, 0, -1):
        j = draws[lane, i]
        t = work[i]
        work[i] = work[j]
        work[j] = t
    for c in range(nc):  # a loop the compiler vectorizes
        w = work[c]
        cmask[1, c] = w & _PK_MASK
        gcol[1, c] = (w >> _PK_COL) & 15
        grank[1, c] = (w >> _PK_RANK) & 63
        gpts[1, c] = w >> _PK_PTS
    key_row = _key_row(cmask, 1)
    for c in range(keys.shape[0]):  # greedy's keys of side 1, where it plays
        cmask[key_row, c] = keys[np.uint64((work[c] >> _PK_IDX) & 127)]


@njit(cache=True)
def pair_faces_nb(g, seed, fcol, frank, fpts, gcol, grank, gpts):
    """Game g's face tables: a copy of the deck's with the pairing of pair_game_nb (outside a batch kernel)."""
    for side in range(2):
        for c in range(fcol.shape[1]):
            gcol[side, c] = fcol[side, c]
            grank[side, c] = frank[side, c]
            gpts[side, c] = fpts[side, c]
    # the deck's masks, which the pairing packs; game g's are not kept (the caller builds them from the faces), so
    # no seat is named whose keys it would pair
    cmask = new_card_masks_nb(fcol, frank, fpts)
    pair_game_nb(0, g, seed, pairing_space_nb(True, fcol, frank, fpts, cmask, np.zeros(0, np.int64)), gcol, grank,
                 gpts, cmask)
