"""The fast turns (_fast_turns_nb): the common turns of a round in a small function of its own, away from the
register pressure of play_round_nb's big loop, played exactly as the big loop would play them.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from .by_ref import deref
from .cards_nb import _draw_for_play, _opt_index, _play_options
from .decide_nb import (
    _all_builtin,
    _builtin_nb,
    _choose_color,
    _fast_seat,
    _play_drawn,
    ask_slot_nb,
    decision_ctx,
    none_ok_nb,
)
from .enums import *  # noqa: F403  (kernels read the integer constants as globals)
from .hands_nb import _give_cards, _held_from, _is_wd4_guilty, _nxt, _remove_at, draw_until_color_nb
from .jump_nb import _jump_ahead
from .layout import *  # noqa: F403  (the kernels read the slots and switches as globals)
from .layout import _DRAW_N, _IS_WDRAW, _ROT_CCW, _ROT_CW
from .observe_nb import _count_play, _pub, _seen_at
from .rules_nb import _answer_mask, _jumpable, _swap_card
from .swaps_nb import _fast_swap, _swap_builtin


@njit(cache=True, _nrt=False)
def _may_answer(v, rk, rev_skips, fflags, side, hand, hlen, cmask):
    """Whether seat v, the victim of a card of rank ``rk`` (coloured, or a wild draw card) just laid by the fast
    turns, holds a card that may answer the attack it leaves pending (a draw card; a Skip, or a Reverse that
    skips with two players, ``rev_skips``), under the response-window switches in ``fflags``
    (FAST_RESP_SHIFT).  One OR of the hand's card masks against _answer_mask.  A call of its own keeps the
    fast turns' loop small."""
    pend = rk if (_DRAW_N[rk] > 0 or _IS_WDRAW[rk]) else (SKIP if rk == SKIP or (rk == REVERSE and rev_skips) else -1)
    if pend < 0:
        return False
    resp = (fflags >> FAST_RESP_SHIFT) & 2047
    held = 0
    for i in range(hlen[v]):
        held |= cmask[side, hand[v, i]]
    return (held & _answer_mask(pend, rk, resp)) != 0


@njit(cache=True, _nrt=False)
def _fast_turns_nb(p, d, n, cur, side, turns, cap, restriction, fflags, prev_color, gp):
    """The common turns of a round, in a small function of its own, away from the register pressure of
    play_round_nb's big loop.

    play_round_nb calls it at a normal turn of a round where these turns need nothing else (see
    ``fast`` there): no log or snapshot; no double play, turn penalty or Speed Uno rule;
    a Skip or Reverse has its plain effect (no skip_extra_turn, reverse_single_turn).  It plays the turns
    of ``random``, ``greedy`` and the policies of the slot (heuristics, the user's numba policies) exactly
    as the big loop would, with the same decisions asked in the same order and the same random numbers:
    a number card (and the swap or pass of hands of a 7, 0 or 5 under the swap rules, in a call:
    _swap_builtin for random and greedy while nobody observes, else _fast_swap), a plain wild, a wild draw
    card whose victim, random or greedy, never challenges (while nobody observes), a coloured Skip, Reverse,
    Draw card or Skip Everyone, a draw (and the drawn card, or a pass).  The victim of a Skip or Draw card
    simply draws and loses the turn.  Where attacks may be answered (stacking, deflecting, bouncing: the
    response-window switches in ``fflags``), that holds while the victim's hand holds none of the cards that
    may answer it (_may_answer): nobody is asked then.  Otherwise the card goes back to the big loop, which
    lays it and opens the response window.  Under jump-in (FAST_JUMP) they keep the counts of the cards held
    and lay a card whose twin nobody else holds; a card whose twin is held goes back to the big loop, which
    opens the jump-in window, unless every seat is random or greedy, nobody observes, and the window's race
    run ahead (_jump_ahead: a coloured card that swaps nothing) shows that nobody jumps in, or that somebody
    lays the last twin of a number card keeping two cards (one under FAST_UNO_QUIET): both cards are laid here.
    Leaving this function costs far more than a turn in it (measured:
    handing every Draw Two back made official rounds 25% slower, and handing back the 7s and 0s made
    seven_zero slower than the big loop alone, which is why they are carried out here).  Every card must leave
    its player at least one card (two without the UNO-call rules, FAST_UNO_QUIET).  Where a seat reads the
    observation (FAST_OBS), it keeps what the big loop keeps for it: the header before a slot seat's play
    decision (``prev_color``: the colour before the last Wild Draw Four, which only the big loop lays while a seat observes), the
    played-card counts and the per-card seen bits.

    Returns (p, d, cur, turns, play_i, play_c, attacked). play_c >= 0: seat p's turn chose the card at hand
    index play_i, which the big loop lays with its full play block (and counts the turn). play_c = -1: the
    next turn is the one that reaches the turn cap, a policy erred (st[ST_ERR]), or seat p is scripted, a
    plain-Python seat or a rollout's forced seat; the big loop takes over at the top of a turn. attacked: a Draw card hit somebody
    (res[RES_STACK_MAX] is at least 1). ``fflags``: the rule switches it reads: FAST_* bits and the response-
    window switches (FAST_RESP_SHIFT). ``g``: the round (see play_round_nb); its ``lg`` is the legality scan's
    scratch.
    """
    g = deref(gp)
    hand, hlen, pile, disc, lg, tmp, active, st, rng, log, res, obs, fcol, frank, fpts, cmask, \
        pol, pp, script, ufn, R, RD = g
    dc = decision_ctx(g, gp)
    by_symbol = (fflags & FAST_BY_SYMBOL) != 0
    any_action = (fflags & FAST_ANY_ACTION) != 0
    bluff_ok = (fflags & FAST_BLUFF_OK) != 0
    dup = (fflags & FAST_DUP) != 0
    dup_must = (fflags & FAST_DUP_MUST) != 0
    drawn_forced = (fflags & FAST_DRAWN_FORCED) != 0
    color_rotation = (fflags & FAST_COLOR_ROTATION) != 0
    uno_quiet = (fflags & FAST_UNO_QUIET) != 0
    rev_skips = (fflags & FAST_REV_SKIPS) != 0
    obs_on = (fflags & FAST_OBS) != 0
    voluntary = (fflags & FAST_VOLUNTARY) != 0
    swaps = (fflags & FAST_SWAPS) != 0
    jump = (fflags & FAST_JUMP) != 0
    # jump-in with every seat random or greedy, nobody observing: the fast turns look ahead at the window
    jump_ahead = jump and not obs_on and _all_builtin(n, pol)
    # the 7s and 0s of random and greedy seats, nobody observing, swapped in a lean call (_swap_builtin)
    lean_swaps = swaps and not obs_on and R[R_ROUND_N_ROUND] == 0 and (R[R_SWAP_FIVE] == 0 or R[R_SWAP5_WHOLE] != 0)
    # whether any card may answer a Skip (deflect_skip, Harry Potter's Invisibility Wild): when none may,
    # a Skip needs no look at its victim's hand
    resp = (fflags >> FAST_RESP_SHIFT) & 2047
    skip_answerable = fflags >= FAST_RESP_MIN and _answer_mask(SKIP, SKIP, resp) != 0
    attacked = False
    no = False  # color_turn and no_wd4_out: never in the fast turns
    # the turn that reaches the cap is the big loop's: its round ends there before the victim of a draw card
    # draws (docs/rules.md 5.1) or a jump-in window opens
    last = cap - 1
    while True:
        if turns >= last or not _fast_seat(pol[p]) or st[ST_ERR] != 0:
            return p, d, cur, turns, -1, -1, attacked
        top = disc[st[ST_DISC_N] - 1]
        top_rank = frank[side, top]
        nlegal, nopt, bluff_now = _play_options(p, cur, side, top, top_rank, no, no, bluff_ok, by_symbol,
                                                any_action, restriction, g)
        pflag = (1 if bluff_now else 0) | (2 if (nlegal > 0 and not voluntary) else 0)
        pid = pol[p]
        if pid >= POL_SLOT:
            _pub(obs, turns + 1, d, -1, 0, -1, prev_color)
        if pid <= POL_GREEDY:
            choice = _builtin_nb(D_PLAY, p, nopt, nlegal, pflag, cur, side, dc)
        else:
            choice = ask_slot_nb(D_PLAY, p, pid, nopt, nlegal, none_ok_nb(D_PLAY, pflag), cur, side, n, dc)
        if st[ST_ERR] != 0:
            return p, d, cur, turns + 1, -1, -1, attacked  # a policy erred: the round ends (the turn counted)
        if choice >= 0:
            play_i = _opt_index(obs, choice)
        else:
            h0 = hlen[p]
            got, playable = _draw_for_play(p, no, cur, side, top_rank, dup, by_symbol, any_action, restriction, g)
            if jump:
                _held_from(p, h0, hand, hlen, fcol, frank, st)
            if not (playable and (drawn_forced or (dup and dup_must) or
                                  _play_drawn(p, cur, side, n, dc))):
                turns += 1
                p = _nxt(p, d, n, active)
                continue
            play_i = hlen[p] - 1
        c = hand[p, play_i]
        rk = frank[side, c]
        col = fcol[side, c]
        left = hlen[p] - 1
        if col == BLACK:
            simple = rk == WILD
            if _IS_WDRAW[rk] and not obs_on:
                # a wild draw card (Wild Draw Four; UNO Flip: Wild Draw Two, Wild Draw Colour) while nobody
                # observes, when its victim, random or greedy, never challenges (probability 0: the big loop
                # would ask and draw no random number) and holds nothing that may answer it (_may_answer): the
                # victim simply draws and loses the turn
                v = _nxt(p, d, n, active)
                simple = pol[v] <= POL_GREEDY and (R[R_CHALLENGE] == 0 or pp[v, PP_CHALLENGE] <= 0.0) and \
                    (fflags < FAST_RESP_MIN or not _may_answer(v, rk, rev_skips, fflags, side, hand, hlen, cmask))
        else:
            simple = rk <= 9 or rk == SKIP or rk == REVERSE or rk == SKIP_ALL or _DRAW_N[rk] > 0
            if simple and rk > 9 and fflags >= FAST_RESP_MIN and (_DRAW_N[rk] > 0 or skip_answerable):
                # a card that leaves an attack pending: the big loop lays it if its victim may answer
                simple = not _may_answer(_nxt(p, d, n, active), rk, rev_skips, fflags, side, hand, hlen, cmask)
        if not simple or left == 0 or (left == 1 and not uno_quiet):
            return p, d, cur, turns, play_i, c, attacked
        jumper = -1
        jump_i = -1
        if jump and _jumpable(col, rk, R) and st[ST_HELD + col * NRANKS + rk] > 1:
            # somebody else may hold the same card: the big loop lays it and opens the jump-in window, unless the
            # fast turns, running the window's race ahead, see that nobody jumps in, or who lays the last twin
            # (_jump_ahead)
            if not jump_ahead or col == BLACK or (swaps and rk <= 9 and _swap_card(rk, R)):
                return p, d, cur, turns, play_i, c, attacked
            jumper, jump_i = _jump_ahead(n, p, col, rk, d, fflags, hand, hlen, cmask, pol, active, st, rng, RD)
            if jumper == -2:
                return p, d, cur, turns, play_i, c, attacked
        turns += 1
        _remove_at(p, play_i, hand, hlen)
        if jump:
            st[ST_HELD + col * NRANKS + rk] -= 1
        disc[st[ST_DISC_N]] = c
        st[ST_DISC_N] += 1
        if obs_on:
            _count_play(obs, c, 1, side, st, fcol, frank)
            obs[_seen_at(obs, fcol.shape[1]) + c] = 0
        if col == BLACK:
            if _IS_WDRAW[rk]:
                # what the big loop's _attack_laid keeps of it (the colour before it, whether it broke the
                # restriction), before the colour changes
                st[ST_PEND_GUILTY] = _is_wd4_guilty(p, side, hand, hlen, fcol, frank, cur, top_rank, restriction)
                st[ST_PEND_PREV_COLOR] = cur
            if color_rotation:
                cur = _ROT_CW[cur] if d == 1 else _ROT_CCW[cur]
            else:
                cur = _choose_color(p, cur, side, n, dc)
        else:
            cur = col
        if rk == SKIP_ALL:
            continue  # Skip Everyone: the player goes again
        if rk == REVERSE and not rev_skips:
            d = -d
        elif rk > 9 and (col != BLACK or _IS_WDRAW[rk]):
            # the next player is skipped (a Skip; a Reverse as a Skip), after drawing (a draw card)
            p = _nxt(p, d, n, active)
            h0 = hlen[p]
            if rk == WILD_DRAW_COLOR:
                draw_until_color_nb(p, cur, side, hand, hlen, fcol, pile, disc, st, rng, log)
                attacked = True
            elif _DRAW_N[rk] > 0:
                _give_cards(p, _DRAW_N[rk], hand, hlen, pile, disc, st, rng, log, np.int64(EV_PENALTY))
                attacked = True
            if jump:
                _held_from(p, h0, hand, hlen, fcol, frank, st)
        elif swaps and rk <= 9 and _swap_card(rk, R):
            q = _nxt(p, d, n, active)
            if lean_swaps and pid <= POL_GREEDY:
                if _swap_builtin(n, p, pid == POL_GREEDY, rk, d, gp):
                    res[RES_SWAPS] += 1
            else:
                _fast_swap(n, p, q, rk, c, d, cur, turns, prev_color, obs_on, gp)
                if st[ST_ERR] != 0:
                    return q, d, cur, turns, -1, -1, attacked  # a policy erred choosing whom to swap with
            p = q
            continue
        if jumper >= 0:
            # the jumper lays the last twin of this number card out of turn, as the jump-in window would (a
            # play: the turn counted), and play goes on from it
            p = jumper
            turns += 1
            res[RES_JUMPS] += 1
            st[ST_PEND_N] = 0
            disc[st[ST_DISC_N]] = _remove_at(p, jump_i, hand, hlen)
            st[ST_DISC_N] += 1
            st[ST_HELD + col * NRANKS + rk] -= 1
        p = _nxt(p, d, n, active)
