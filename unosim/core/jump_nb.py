"""The jump-in window (docs/rules.md 4.1, 4.2): who may lay an identical card out of turn, the race between them, and
the same race run ahead by the fast turns (_jump_ahead) where every seat is ``random`` or ``greedy``.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from .decide_nb import _match_choice, decision_ctx, random_or_none_nb
from .enums import *  # noqa: F403  (kernels read the integer constants as globals)
from .hands_nb import _log, _nxt
from .layout import *  # noqa: F403  (the kernels read the slots and switches as globals)
from .layout import _DRAW_N
from .rng_nb import rand01_nb, randint_nb
from .rules_nb import _jumpable


@njit(cache=True, _nrt=False, inline="always")
def _jump_race(n, top_col, top_rank, p, d, last_actor, attacked, cur, side, lg, RD, dc):
    """Who lays a card identical to (top_col, top_rank) out of turn (docs/rules.md 4.1): the seats other
    than ``last_actor`` (who laid it) and ``p`` (the scheduled player) are asked in order of play from p;
    with probability p_beats_scheduled one of those who would, drawn at random, beats p; otherwise p, when
    it is the victim of the pending attack (``attacked``), may jump in on it.  Returns (seat, hand index) or
    (-1, -1).  The jump-in window's race (the fast turns run it ahead for the built-ins: _jump_ahead)."""
    pol, pp, obs, hand, hlen, fcol, frank, fpts, disc, active, st, rng, script, ufn, cmask, gp = dc
    ncards = fcol.shape[1]
    cnt = 0
    q = p
    for _ in range(st[ST_N_ACTIVE]):
        if q != last_actor and q != p:
            ci = _match_choice(q, top_rank, top_col, cur, side, n, dc)
            if ci >= 0:
                lg[cnt] = q
                lg[ncards - 1 - cnt] = ci
                cnt += 1
        q = _nxt(q, d, n, active)
    if cnt > 0 and rand01_nb(rng) < RD[RD_P_BEATS]:
        k = randint_nb(rng, cnt)
        return lg[k], lg[ncards - 1 - k]
    if attacked and p != last_actor:
        ci = _match_choice(p, top_rank, top_col, cur, side, n, dc)
        if ci >= 0:
            return p, ci
    return -1, -1


@njit(cache=True, _nrt=False, inline="always")
def _twins(q, cm, side, hand, hlen, cmask):
    """How many cards seat q holds whose card mask on side ``side`` is ``cm``: of exactly one coloured card's
    colour and rank (a coloured card's mask is its colour's bit and its rank's, card_masks_nb), read with one
    load a card and unsigned indices."""
    us = np.uint64(q)
    uside = np.uint64(side)
    m = 0
    for i in range(hlen[q]):
        m += np.int64(cmask[uside, np.uint64(hand[us, np.uint64(i)])] == cm)
    return m


@njit(cache=True, _nrt=False, inline="always")
def _find_twin(q, cm, side, hand, hlen, cmask):
    """The first index in seat q's hand of a card whose card mask on side ``side`` is ``cm`` (_twins), or -1."""
    for i in range(hlen[q]):
        if cmask[side, hand[q, i]] == cm:
            return i
    return -1


@njit(cache=True, _nrt=False, inline="always")
def _builtin_jump(pid, m, rng):
    """The option a ``random`` or ``greedy`` seat holding m identical cards answers to D_JUMP_IN, or -1
    (don't): random_nb's (random_or_none_nb, the same call) and greedy_nb's (the first).  It mirrors
    greedy's answer for _jump_ahead; the fast-turn equivalence test (tests/test_invariants.py) fails if they
    part."""
    if pid == POL_GREEDY:
        return 0
    return random_or_none_nb(rng, m)


@njit(cache=True, _nrt=False)
def _jump_ahead(n, actor, col, rk, d, fflags, hand, hlen, cmask, pol, active, st, rng, RD):
    """Who jumps in on a card of colour ``col`` and rank ``rk`` (coloured, swapping nothing) that the fast turns
    are about to lay for ``actor`` while every seat is ``random`` or ``greedy`` and nobody observes.  The big loop
    draws no random number between such a card's play decision and the jump-in window (and the fast turns never
    play the turn that reaches the cap, after which no window opens), so the window's race (_jump_race) is run
    here with the built-ins' answers (_builtin_jump), on the seat and direction the card's effect leaves
    (_card_effect: the victim of a Skip, draw card or two-player Reverse; the other way round after a Reverse;
    the player again after a Skip Everyone).  A seat's twins are counted by their card masks (_twins).  Returns
    (seat, hand index) of the card laid out of turn, or (-1, -1).

    Nobody jumps: the random numbers drawn are the window's, and the fast turns go on.  Somebody jumps in on
    a number card with its last twin (no window follows the jump) and keeps two cards (one under
    FAST_UNO_QUIET: no UNO call, no emptied hand): the random numbers are the window's too, and the fast
    turns lay both cards.  Any other jump (on an action card, from a short hand: 0.35 of the 1.0 jumps a
    round of four random seats, 0.61 of 1.82 for greedy ones): the random stream is put back and the seat
    is -2; the big loop lays the card and opens the window, which draws the same numbers and finds the same
    jumper.  It takes only the arrays it reads (a call with the round's arrays costs about 2 ns an
    argument)."""
    side = st[ST_SIDE]
    cm = (np.int64(1) << col) | (np.int64(1) << (CM_RANK0 + rk))  # the card's mask (card_masks_nb)
    attacked = False
    if rk == SKIP or _DRAW_N[rk] > 0 or (rk == REVERSE and (fflags & FAST_REV_SKIPS) != 0):
        attacked = st[ST_NO_RESPONSE] == 0
        p = _nxt(actor, d, n, active)
    elif rk == REVERSE:
        d = -d
        p = _nxt(actor, d, n, active)
    elif rk == SKIP_ALL:
        p = actor
    else:
        p = _nxt(actor, d, n, active)
    z = rng[0]
    cnt = 0
    seats = 0  # the seats that would jump in, 4 bits each, in the order asked
    q = p
    for _ in range(st[ST_N_ACTIVE]):
        if q != actor and q != p:
            m = _twins(q, cm, side, hand, hlen, cmask)
            if m > 0 and _builtin_jump(pol[q], m, rng) >= 0:
                seats |= q << (4 * cnt)
                cnt += 1
        q = _nxt(q, d, n, active)
    jumps = cnt > 0 and rand01_nb(rng) < RD[RD_P_BEATS]
    if jumps:
        min_left = 1 if (fflags & FAST_UNO_QUIET) != 0 else 2
        k = randint_nb(rng, cnt)
        j = (seats >> (4 * k)) & 15
        if rk <= 9 and st[ST_HELD + col * NRANKS + rk] == 2 and hlen[j] - 1 >= min_left:
            # the last twin (the one other than the actor's): the jumper holds one, its only option
            return j, _find_twin(j, cm, side, hand, hlen, cmask)
    elif attacked and p != actor:
        m = _twins(p, cm, side, hand, hlen, cmask)
        jumps = m > 0 and _builtin_jump(pol[p], m, rng) >= 0
    if jumps:
        rng[0] = z
        return -2, -1
    return -1, -1


@njit(cache=True, _nrt=False, inline="always")
def _jump_in_window(n, top, g, gp):
    """The jump-in window (docs/rules.md 4.1, 4.2) after a card was laid: the player who laid it may lay an
    identical second card (double play), else the others race the scheduled player with an identical card,
    and the victim of an attack may deflect with one.  Returns (seat, hand index) of the card laid out of
    turn, or (-1, -1); a jump-in takes over the pending effect (transfer, or with jump_in_draw_resolution
    accumulate the draw adds up)."""
    hand, hlen, pile, disc, lg, tmp, active, st, rng, log, res, obs, fcol, frank, fpts, cmask, \
        pol, pp, script, ufn, R, RD = g
    dc = decision_ctx(g, gp)
    side = st[ST_SIDE]
    cur = st[ST_CUR]
    p = st[ST_P]
    last_actor = st[ST_LAST_ACTOR]
    top_rank = frank[side, top]
    top_col = fcol[side, top]
    if not _jumpable(top_col, top_rank, R):
        return -1, -1
    jw = -1
    ji = -1
    if R[R_DOUBLE_JUMP] and hlen[last_actor] > 0 and rand01_nb(rng) < RD[RD_P_SELF_JUMP]:
        ji = _match_choice(last_actor, top_rank, top_col, cur, side, n, dc)
        if ji >= 0:
            jw = last_actor
    # nobody holds an identical card (most windows): nobody is asked, and no random number is drawn
    if jw < 0 and R[R_JUMP_IN] and st[ST_HELD + top_col * NRANKS + top_rank] > 0:
        jw, ji = _jump_race(n, top_col, top_rank, p, st[ST_D], last_actor,
                            st[ST_PEND_KIND] >= 0 and st[ST_NO_RESPONSE] == 0, cur, side, lg, RD, dc)
    if jw >= 0:
        res[RES_JUMPS] += 1
        if log.shape[0] > 0:
            _log(log, st, EV_JUMP_IN, jw, hand[jw, ji], p, 0)
        pend_kind = st[ST_PEND_KIND]
        # the draw adds up only when the card jumped on is a draw card itself, not the Reverse of a bounce
        if not (R[R_JUMP_ACCUMULATE] and pend_kind >= 0 and _DRAW_N[pend_kind] > 0 and _DRAW_N[top_rank] > 0):
            st[ST_PEND_N] = 0
        st[ST_PEND_KIND] = -1
        # what a bounce (reverse_bounce) said of the attack it sent back goes with that attack: left set, it
        # closed the response window of the next, unrelated attack
        st[ST_NO_RESPONSE] = 0
        st[ST_PEND_NOSKIP] = 0
        st[ST_PEND_BOUNCED] = 0
    return jw, ji
