"""Cards and the options of a play: card masks (one word a card, tested against a turn's two masks), greedy's
order of cards, the legality scan that writes a play decision's options, and the draw instead of a play.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from .enums import *  # noqa: F403  (kernels read the integer constants as globals)
from .hands_nb import _forget_voids, _is_wd4_guilty, _log, _mark_void, _speed_uno_options, draw_to_hand_nb
from .layout import *  # noqa: F403  (the kernels read the slots and switches as globals)
from .layout import _IS_WDRAW, _SYM_PRI


@njit(cache=True, _nrt=False, inline="always")
def greedy_order_nb(col, rk, pts):
    """greedy's order of a coloured card, the current colour aside (100 more for a card of it): 1000 a point,
    10 a step of symbol priority (_SYM_PRI), and 4 less its colour index (the lower index first).  The one
    statement of it: the engine's keys (_greedy_key) and the heuristics' (heuristics_nb.greedy_key)."""
    return pts * 1000 + _SYM_PRI[rk] * 10 + (NCOLORS - col)


@njit(cache=True, _nrt=False)
def _greedy_key(col, rk, pts):
    """greedy's order of a card (_greedy_play), the current colour aside: its key times 8, plus its colour (4
    for a black card, which no current colour matches).  The key of a coloured card: greedy_order_nb plus 2 (so
    at least 3, above every wild); an attacking wild (Wild Draw Four, Flip's wild draws ...) 1; a plain wild 0."""
    if col == BLACK:
        return np.int64(8 + 4 if rk != WILD and rk != INVIS_WILD else 4)
    return np.int64((greedy_order_nb(col, rk, pts) + 2) * 8 + col)


@njit(cache=True, _nrt=False, inline="always")
def _key_row(cmask, side):
    """The row of ``cmask`` that holds greedy's keys of side ``side``'s faces (rows S .. 2S-1, below the masks
    of the S sides)."""
    return (cmask.shape[0] >> 1) + side


@njit(cache=True, _nrt=False)
def card_masks_nb(fcol, frank, fpts, cmask, first_side):
    """Fill cmask[side, c] and greedy's keys cmask[S + side, c] (S sides) from the deck's face tables for the
    sides from ``first_side`` on (call again whenever they change: a new UNO Flip pairing changes side 1 only)."""
    one = np.int64(1)
    ns = fcol.shape[0]
    for side in range(first_side, ns):
        for c in range(fcol.shape[1]):
            col = fcol[side, c]
            rk = frank[side, c]
            if col == BLACK:
                cmask[side, c] = CM_BLACK | (CM_WDRAW if _IS_WDRAW[rk] else 0)
            else:
                cmask[side, c] = (one << col) | (one << (CM_RANK0 + rk))
            cmask[_key_row(cmask, side), c] = _greedy_key(col, rk, fpts[side, c])


@njit(cache=True)
def new_card_masks_nb(fcol, frank, fpts):
    """The masks and greedy's keys of a deck's face tables, in a new array (card_masks_nb refills it after a
    new pairing)."""
    cmask = np.empty((2 * fcol.shape[0], fcol.shape[1]), np.int64)
    card_masks_nb(fcol, frank, fpts, cmask, 0)
    return cmask


@njit(cache=True, _nrt=False)
def _turn_masks(cur, top_rank, sym_ok, any_ok, restr1):
    """(legal, guilt) of _play_options: the masks of the cards that may be laid on this turn, and of those
    whose presence makes a Wild Draw Four a bluff.  A free colour (cur < 0) takes every card, and nothing
    makes a Wild Draw Four guilty then."""
    one = np.int64(1)
    if cur < 0:
        return np.int64(-1), np.int64(0)
    legal = (one << cur) | CM_BLACK
    guilt = one << cur
    if sym_ok:
        legal |= one << (CM_RANK0 + top_rank)
        if restr1:
            guilt |= one << (CM_RANK0 + top_rank)
    if any_ok:
        legal |= CM_ACTIONS
    return legal, guilt


@njit(cache=True, _nrt=False)
def _wild_draws_behind(p, nlegal, side, bluff_ok, obs, hand, cmask, lg):
    """A wild draw card that breaks the restriction (docs/rules.md 1.10): the wild draw cards among the nlegal
    options go behind the others (a bluff, where bluffing is allowed) or out, each part in hand order.  One card
    mask a card and no branch.  Returns (legal options, all options)."""
    us = np.uint64(side)
    k = 0
    nw = 0
    for j in range(nlegal):
        i = obs[np.uint64(OBS_OPT + OPT_STRIDE * j + 1)]
        wd = (cmask[us, np.uint64(hand[p, i])] & CM_WDRAW) != 0
        obs[np.uint64(OBS_OPT + OPT_STRIDE * k + 1)] = i
        lg[np.uint64(nw)] = i
        k += np.int64(not wd)
        nw += np.int64(wd)
    nleg = k
    if bluff_ok:
        for j in range(nw):
            obs[np.uint64(OBS_OPT + OPT_STRIDE * k + 1)] = lg[j]
            k += 1
    return nleg, k


@njit(cache=True, _nrt=False, inline="always")
def _play_options(p, cur, side, top, top_rank, color_turn, no_wd4_out, bluff_ok, by_symbol, any_action,
                  restriction, g):
    """The options of p's play decision into obs: the hand indices of its legal cards in hand order (a
    Wild Draw Four that breaks the restriction is moved behind them as a bluff where bluffing is
    allowed).  Returns (legal options, all options, whether a bluff is possible); ``lg`` is the scan's scratch."""
    hand, hlen, pile, disc, lg, tmp, active, st, rng, log, res, obs, fcol, frank, fpts, cmask, \
        pol, pp, script, ufn, R, RD = g
    hl = hlen[p]
    sym_ok = by_symbol or top_rank <= 9
    any_ok = any_action and top_rank > 9 and fcol[side, top] != BLACK
    legal, guilt = _turn_masks(cur, top_rank, sym_ok, any_ok, restriction == 1)
    # one load and one test per card, no branch (a colour match is a coin flip to the branch predictor):
    # every card's index is written and only a legal one is kept; unsigned indices carry no
    # negative-index wrap-around
    us = np.uint64(side)
    nlegal = 0
    held = np.int64(0)
    for i in range(hl):
        m = cmask[us, np.uint64(hand[p, i])]
        obs[np.uint64(OBS_OPT + OPT_STRIDE * nlegal + 1)] = i
        nlegal += np.int64((m & legal) != 0)
        held |= m
    guilty = (held & guilt) != 0
    has_wdraw = (held & CM_WDRAW) != 0
    nopt = nlegal
    wd4_ok = restriction == 2 or not guilty
    if color_turn or no_wd4_out:
        # typed casts: one compiled _speed_uno_options, not one per call site's literals
        nlegal = _speed_uno_options(p, hl, np.int64(nlegal), cur, side, np.bool_(color_turn), np.bool_(no_wd4_out),
                                    obs, hand, fcol, frank)
        nopt = nlegal
    if has_wdraw and not wd4_ok:
        nlegal, nopt = _wild_draws_behind(p, nlegal, side, bluff_ok, obs, hand, cmask, lg)
    return nlegal, nopt, bluff_ok and guilty and has_wdraw


@njit(cache=True, _nrt=False, inline="always")
def _draw_for_play(p, color_turn, cur, side, top_rank, dup, by_symbol, any_action, restriction, g):
    """p draws instead of playing: one card, or until one is playable (draw_until_playable, and a Speed
    Uno colour turn).  Returns (the last card drawn or -1 when nothing was left, whether it is playable).
    Everybody takes it that p held no card of the current colour, nor a coloured card of the top card's
    rank where that rank matches (a table player's inference: see enums.OBS_VOIDS, OBS_RANK_VOIDS)."""
    hand, hlen, pile, disc, lg, tmp, active, st, rng, log, res, obs, fcol, frank, fpts, cmask, \
        pol, pp, script, ufn, R, RD = g
    got = -1
    playable = False
    while True:
        c = draw_to_hand_nb(p, hand, hlen, pile, disc, st, rng, log)
        if c < 0:
            break
        got = c
        if log.shape[0] > 0:
            _log(log, st, EV_DRAW, p, c, 0, 0)
        playable = _card_legal(p, c, side, cur, top_rank, hand, hlen, fcol, frank, by_symbol, any_action,
                               restriction)
        if color_turn and fcol[side, c] != BLACK and fcol[side, c] != cur:
            playable = False
        if playable or not (dup or color_turn):
            break
    if got >= 0:
        _forget_voids(st, p)
    _mark_void(st, p, cur, top_rank if not color_turn and (top_rank <= 9 or by_symbol) else -1, side)
    return got, playable


@njit(cache=True, _nrt=False)
def _card_legal(p, c, side, cur, top_rank, hand, hlen, fcol, frank, by_symbol, any_action, restriction):
    col = fcol[side, c]
    rk = frank[side, c]
    if col == BLACK:
        if _IS_WDRAW[rk]:
            return not _is_wd4_guilty(p, side, hand, hlen, fcol, frank, cur, top_rank, restriction)
        return True
    if col == cur or cur < 0:
        return True
    if rk == top_rank and (rk <= 9 or by_symbol):
        return True
    if any_action and rk > 9 and top_rank > 9 and top_rank != WILD and not _IS_WDRAW[top_rank]:
        return True
    return False


@njit(cache=True, _nrt=False)
def _opt_index(obs, k):
    """Hand index (or seat) of option k."""
    return obs[OBS_OPT + OPT_STRIDE * k + 1]


@njit(cache=True, _nrt=False)
def _kind_of(c, side, fcol, frank):
    return fcol[side, c] * NRANKS + frank[side, c]
