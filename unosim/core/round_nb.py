"""One round: play_round_nb steps through it, each step of a turn a function of its own (the start of a round, the
jump-in and response windows, a challenge, the normal turn, laying a card, an emptied hand, the UNO call, the
card's effect, a Flip, the end), reading and writing the round's state in st (layout's ST_*).

The steps take the round as one tuple ``g`` (new_round):
``(hand, hlen, pile, disc, lg, tmp, active, st, rng, log, res, obs, fcol, frank, fpts, cmask, pol, pp, script, ufn,
R, RD)``.  The steps of every turn (the normal turn, laying a card, its effect, the jump-in window) are inlined into
play_round_nb's loop (inline="always": one site each); the rare ones (the start of a round, the response window, a
challenge, an emptied hand, the UNO call, swaps, a Flip, the end) are calls.  A call takes the tuple by its address,
``gp`` (by_ref.ref: one word, where the tuple is some 170), and reads it with ``g = deref(gp)``; an inlined step that
makes such a call takes both ``g`` and ``gp``.  The decisions' tuple ``dc`` (decide_nb.decision_ctx) carries ``gp``
too: a decision made by a call (decide_cold_nb, a response, a challenge, a swap's target, a policy of the slot) takes
``gp`` and builds its ``dc`` from it.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from .by_ref import deref
from .cards_nb import _draw_for_play, _opt_index, _play_options
from .decide_nb import (
    _choose_color_cold,
    _fast_seat,
    _play_drawn_cold,
    _response_choice,
    _wants_challenge,
    decide_nb,
    decision_ctx,
)
from .enums import *  # noqa: F403  (kernels read the integer constants as globals)
from .hands_nb import (
    _challenge_terms,
    _count_held,
    _flip_nb,
    _held_add,
    _held_from,
    _is_wd4_guilty,
    _log,
    _nxt,
    _penalty,
    _remove_at,
    _turn_over,
    give_cards_nb,
    seat_points_nb,
)
from .jump_nb import _jump_in_window
from .layout import *  # noqa: F403  (the kernels read the slots and switches as globals)
from .layout import _DRAW_N, _IS_ATTACK, _IS_WDRAW, _ROT_CCW, _ROT_CW
from .observe_nb import _count_play, _learn_nb, _observing, _pub, _seen_at
from .rng_nb import rand01_nb, randint_nb, shuffle_nb
from .rules_nb import _swap_card
from .swaps_nb import _swap_with
from .turns_nb import _fast_turns_nb


@njit(cache=True)
def workspace_nb(n, ncards):
    """Buffers for play_round_nb (one set per thread, reused for every round of a batch)."""
    return (np.empty((n, ncards), np.int64), np.empty(n, np.int64), np.empty(ncards, np.int64),
            np.empty(ncards, np.int64), np.empty(ncards, np.int64), np.empty(ncards, np.int64),
            np.ones(4 * n, np.int64), np.zeros(NST, np.int64), np.zeros(1, np.uint64),
            np.empty((0, 5), np.int64), np.empty(0, np.int64), np.empty(0, np.int64),
            np.zeros(NRES, np.int64), np.empty(n, np.int64))


@njit(cache=True, _nrt=False, inline="always")
def _clear_round(g):
    hand, hlen, pile, disc, lg, tmp, active, st, rng, log, res, obs, fcol, frank, fpts, cmask, \
        pol, pp, script, ufn, R, RD = g
    for k in range(ST_MODE):
        st[k] = 0
    for k in range(ST_SNAP, ST_SNAP + NSNAP):
        st[k] = 0
    for k in range(ST_VOID, ST_VOID + MAXP):
        st[k] = 0
    for k in range(res.shape[0]):
        res[k] = 0


@njit(cache=True, _nrt=False, inline="always")
def _deal(n, order, g):
    """Shuffle and deal (or lay out the rigged ``order``: [hand size of seat 0 .. seat n-1, card ids from
    the top down]).  active[0:n] in the round, active[n:2n] finishing position, active[2n:3n] hands
    emptied, active[3n:4n] seated in the match (input).  The pile has its top at the end."""
    hand, hlen, pile, disc, lg, tmp, active, st, rng, log, res, obs, fcol, frank, fpts, cmask, \
        pol, pp, script, ufn, R, RD = g
    ncards = fcol.shape[1]
    n_active = 0
    for s in range(n):
        active[s] = active[3 * n + s]
        n_active += active[s]
        active[n + s] = 0
        active[2 * n + s] = 0
        hlen[s] = 0
    rigged = order.shape[0] > 0
    if rigged:
        for i in range(ncards):
            pile[ncards - 1 - i] = order[n + i]
    else:
        for i in range(ncards):
            pile[i] = i
        shuffle_nb(pile, ncards, rng)
    top_i = ncards - 1
    for s in range(n):
        hs = (order[s] if rigged else R[R_HAND_SIZE]) if active[s] else 0
        for k in range(hs):
            hand[s, k] = pile[top_i]
            top_i -= 1
        hlen[s] = hs
    st[ST_PILE_N] = top_i + 1
    st[ST_DISC_N] = 0
    st[ST_N_ACTIVE] = n_active
    st[ST_N_SEATED] = n_active


@njit(cache=True, _nrt=False, inline="always")
def _open_observation(n, resume, g):
    """The observation's header for a new round (the deck tables may differ from round to round: UNO Flip's
    pairing), and for a new round the per-card seen bits and the known-cards region behind them: only
    _known_counts_nb writes that, and only once OBS_KNOWN_ON is set (clearing all 540 entries every round
    cost about 10% of a run with a policy of the slot).  Unsigned indices: a memset, no wrap-around test."""
    hand, hlen, pile, disc, lg, tmp, active, st, rng, log, res, obs, fcol, frank, fpts, cmask, \
        pol, pp, script, ufn, R, RD = g
    ncards = fcol.shape[1]
    obs[OBS_CNT_EPOCH] = -1
    obs[OBS_DECK_SIDE] = -1
    two = 0
    for k in range(ncards):
        if fcol[0, k] != fcol[1, k] or frank[0, k] != frank[1, k]:
            two = 1
    obs[OBS_TWO_SIDED] = two
    _pub(obs, 0, 1, -1, 0, -1, -1)
    if not resume:
        kn0 = _seen_at(obs, ncards)
        end = obs.shape[0] if obs[OBS_KNOWN_ON] != 0 else kn0 + ncards
        for k in range(np.uint64(kn0), np.uint64(end)):
            obs[k] = 0
        obs[OBS_KNOWN_ON] = 0


@njit(cache=True, _nrt=False, inline="always")
def _turn_up_start(g):
    """Turn up the starting card (docs/rules.md 1.5), putting back the kinds the rules redraw: into the
    middle of the pile, or at a uniformly random place (the pile is in uniformly random order, so this is
    the same as reshuffling it).  Returns it, laid on the discard pile."""
    hand, hlen, pile, disc, lg, tmp, active, st, rng, log, res, obs, fcol, frank, fpts, cmask, \
        pol, pp, script, ufn, R, RD = g
    while True:
        k = st[ST_PILE_N] - 1
        c = pile[k]
        r = frank[0, c]
        bad = (_IS_WDRAW[r] and R[R_START_WD4_REDRAW] != 0) or (r == WILD and R[R_START_WILD_REDRAW] != 0) \
            or (R[R_START_REPLACE_SPECIAL] != 0 and r > 9) or (r == FLIP and R[R_START_FLIP_REDRAW] != 0) \
            or r == HOWLER or r == INVIS_WILD
        if not bad or k == 0:
            st[ST_PILE_N] = k
            break
        pos = k // 2 if R[R_START_RETURN_MIDDLE] else randint_nb(rng, k + 1)
        for i in range(k, pos, -1):
            pile[i] = pile[i - 1]
        pile[pos] = c
        if log.shape[0] > 0:
            _log(log, st, EV_START_REDRAW, -1, c, pos, 0)
    disc[0] = c
    st[ST_DISC_N] = 1
    return c


@njit(cache=True, _nrt=False, inline="always")
def _start_round(n, dealer, first, g, gp):
    """The starting card's effect (docs/rules.md 1.5): its attack simply happens to the first player (no
    answer); a Reverse turns play to the dealer's right; a Flip is carried out (2.12: the revealed face has
    no action); a wild's colour is named by the first player.  Sets the round's state in st."""
    hand, hlen, pile, disc, lg, tmp, active, st, rng, log, res, obs, fcol, frank, fpts, cmask, \
        pol, pp, script, ufn, R, RD = g
    dc = decision_ctx(g, gp)
    side = np.int64(0)  # not a literal: where only this value reaches a call (the starting card's colour),
    # numba would compile that callee once more for Literal[int](0) (slot_policy_nb and all below it)
    c = _turn_up_start(g)
    if first < 0:
        first = _nxt(dealer, 1, n, active)
    d = 1
    p = first
    cur = fcol[side, c]
    srank = frank[side, c]
    pend_kind = -1
    pend_n = 0
    pend_from = -1
    if srank == SKIP:
        pend_kind = SKIP
        pend_from = dealer
    elif srank == REVERSE:
        if st[ST_N_ACTIVE] == 2 and R[R_REV_AS_SKIP]:
            pend_kind = SKIP
            pend_from = dealer
        else:
            d = -1
            p = _nxt(dealer, -1, n, active) if R[R_START_REVERSE_FIRST] else dealer
    elif _DRAW_N[srank] > 0 and fcol[side, c] != BLACK:
        pend_kind = srank  # Draw Two / Draw One / Draw Three: the first player draws and is skipped
        pend_n = _DRAW_N[srank]
        pend_from = dealer
    elif srank == FLIP:
        _flip_nb(pile, disc, st)
        side = 1 - side
        c = disc[0]
        cur = fcol[side, c]
        res[RES_FLIPS] += 1
        if cur == BLACK:
            cur = _choose_color_cold(first, cur, side, n, dc)
    elif fcol[side, c] == BLACK:
        cur = _choose_color_cold(first, cur, side, n, dc)
    if log.shape[0] > 0:
        _log(log, st, EV_DEAL_START, p, c, cur, d)
    st[ST_SIDE] = side
    st[ST_P] = p
    st[ST_D] = d
    st[ST_CUR] = cur
    st[ST_PEND_KIND] = pend_kind
    st[ST_PEND_N] = pend_n
    st[ST_PEND_FROM] = pend_from
    st[ST_WINNER] = -1
    st[ST_LOSER] = -1
    st[ST_LAST_ACTOR] = -1
    st[ST_NO_RESPONSE] = pend_kind >= 0
    # reverse_single_turn: the direction returns after one turn (also after a starting Reverse)
    st[ST_REVERT_DIR] = R[R_REV_SINGLE] != 0 and srank == REVERSE and d == -1


@njit(cache=True, _nrt=False)
def _challenge(n, challenger, offender, kind, amount, guilty, prev_color, gp):
    """A challenged restricted wild draw (docs/rules.md 1.9-1.11, 2.9): the offender's hand is shown to the
    challenger.  Guilty: the offender draws the larger of the penalty and ``amount``, and per
    challenge_guilty_card the card stays, goes back to the offender, or is void (it goes beneath the card before
    it), before the offender draws; in the last two the card before it is current again, and the colour
    reverts to ``prev_color``.  Innocent: the challenger draws ``amount`` and the extra.  Either way the attack
    is over.  Returns ``guilty``."""
    g = deref(gp)
    hand, hlen, pile, disc, lg, tmp, active, st, rng, log, res, obs, fcol, frank, fpts, cmask, \
        pol, pp, script, ufn, R, RD = g
    side = st[ST_SIDE]
    res[RES_CHALLENGES] += 1
    obs_on = _observing(n, pol, st)
    if obs_on:
        _learn_nb(obs, offender, 1 << challenger, hand, hlen)
    if log.shape[0] > 0:
        _log(log, st, EV_CHALLENGE, challenger, -1, 1 if guilty else 0, offender)
    g_draw, i_extra = _challenge_terms(kind, R[R_CH_GUILTY_DRAW], R[R_CH_INNOCENT_DRAW], R[R_WD2_GUILTY],
                                       R[R_WD2_INNOCENT], R[R_WDC_EXTRA])
    if guilty:
        named = st[ST_CUR]  # the colour it named: a guilty Wild Draw Colour's offender draws until it
        if R[R_CH_GUILTY_CARD] != 0:
            st[ST_CUR] = prev_color
        # the card's place; the card before it is at dn - 1, unless a reshuffle since took it (the offender,
        # caught without its UNO call, drew): then the card stays where it is, its colour reverted
        dn = st[ST_DISC_N] - 1
        if dn > 0 and R[R_CH_GUILTY_CARD] == 1:
            # the card goes back to the offender, which then draws (002:271: it takes its card back, then draws
            # four): the old top is current again, and stays on the discard pile should the draw reshuffle it
            if obs_on:
                _count_play(obs, disc[dn], -1, side, st, fcol, frank)
            hand[offender, hlen[offender]] = disc[dn]
            hlen[offender] += 1
            if st[ST_HELD_ON] != 0:
                _held_add(st, disc[dn], 1, fcol, frank)
            if obs_on:
                obs[_seen_at(obs, fcol.shape[1]) + disc[dn]] = (1 << n) - 1  # back in a hand, in plain view
            st[ST_DISC_N] = dn
        elif dn > 0 and R[R_CH_GUILTY_CARD] == 2:
            # void: play goes on as if it had not been played; it stays out of play, beneath the card before it,
            # which is current again (colour and symbol)
            wd = disc[dn]
            disc[dn] = disc[dn - 1]
            disc[dn - 1] = wd
        _penalty(offender, kind, max(g_draw, amount), named, side, hand, hlen, fcol, frank, pile, disc, st, rng, log)
    else:
        _penalty(challenger, kind, amount + i_extra, st[ST_CUR], side, hand, hlen, fcol, frank, pile, disc, st, rng, log)
    st[ST_PEND_KIND] = -1
    st[ST_PEND_N] = 0
    st[ST_PEND_STACKED] = 0
    return guilty


# what the response window leads to
RW_NEXT = 0   # the turn passed on (st[ST_P] is the next seat to act): back to the top of the loop
RW_PLAY = 1   # the victim answered with a card: lay it
RW_TURN = 2   # the victim now takes a normal turn


@njit(cache=True, _nrt=False)
def _answer_card_mode(rr, pend_kind, R):
    """How a card of rank rr that answered a pending attack is laid: 1 stack, 2 deflect, 3 bounce, 6 the
    Invisibility Wild (Harry Potter: the attack is cancelled)."""
    if rr == INVIS_WILD:
        return 6
    if rr == REVERSE:
        return 3
    if rr == SKIP:
        return 2
    if R[R_STACKING] and (_IS_WDRAW[rr] or (rr == pend_kind and R[R_ST_D2]) or
                          (_IS_WDRAW[pend_kind] and R[R_ST_MIXED])):
        return 1
    return 2


@njit(cache=True, _nrt=False, inline="always")
def _response_window(n, top, g, gp):
    """The victim st[ST_P] of a pending attack (docs/rules.md 5.1): may go on stacking (stack_max_per_turn),
    challenge a restricted wild draw, or answer with a card (stack, deflect, bounce); else the attack
    resolves: the victim draws and loses the turn.  Returns (RW_*, hand index, play mode)."""
    hand, hlen, pile, disc, lg, tmp, active, st, rng, log, res, obs, fcol, frank, fpts, cmask, \
        pol, pp, script, ufn, R, RD = g
    victim = st[ST_P]
    side = st[ST_SIDE]
    pend_kind = st[ST_PEND_KIND]
    top_rank = frank[side, top]
    flags = (R[R_RESTRICTION] << 11) | (top_rank << 16)
    rw = RW_TURN
    play_i = -1
    mode = 0
    decided = False  # the victim answered with a card, or challenged and now takes a normal turn
    if st[ST_CONT_STACK]:
        st[ST_CONT_STACK] = 0
        play_i = _response_choice(victim, pend_kind, fcol[side, top], (R[R_RESP] & 15) | flags, st[ST_CUR], side,
                                  n, gp)
        if play_i < 0:
            st[ST_P] = _nxt(victim, st[ST_D], n, active)
            return RW_NEXT, -1, 0
        rw = RW_PLAY
        mode = 5
        decided = True
    open_ = st[ST_NO_RESPONSE] == 0
    if not decided and open_ and _IS_WDRAW[pend_kind] and R[R_CHALLENGE] and not st[ST_PEND_BOUNCED]:
        if _wants_challenge(victim, st[ST_CUR], side, n, gp):
            offender = st[ST_PEND_FROM]
            if _challenge(n, victim, offender, pend_kind, st[ST_PEND_N], st[ST_PEND_GUILTY] != 0,
                          st[ST_PEND_PREV_COLOR], gp):
                if R[R_CH_OFFENDER_SKIPS]:
                    st[ST_SKIP_NEXT] |= 1 << offender
                stays = R[R_CH_SUCCESS_PLAYS] != 0  # the challenger now takes a normal turn
            else:
                stays = R[R_CH_INNOCENT_SKIPS] == 0
                if not stays and log.shape[0] > 0:
                    _log(log, st, EV_SKIPPED, victim, -1, 0, 0)
            if not stays:
                st[ST_P] = _nxt(victim, st[ST_D], n, active)
                return RW_NEXT, -1, 0
            decided = True
    if not decided and open_ and R[R_RESP] != 0:
        play_i = _response_choice(victim, pend_kind, fcol[side, top], R[R_RESP] | flags, st[ST_CUR], side, n, gp)
        if play_i >= 0:
            rw = RW_PLAY
            decided = True
            mode = _answer_card_mode(frank[side, hand[victim, play_i]], pend_kind, R)
            if mode == 6:
                st[ST_PEND_KIND] = -1
                st[ST_PEND_N] = 0
                st[ST_PEND_STACKED] = 0
    st[ST_NO_RESPONSE] = 0
    if st[ST_ERR] != 0:
        return RW_NEXT, -1, 0  # a refused scripted answer ends the round before the attack resolves
    if decided:
        return rw, play_i, mode
    return _take_attack(n, victim, g), -1, 0


@njit(cache=True, _nrt=False, inline="always")
def _take_attack(n, victim, g):
    """Nothing answered the pending attack: the victim draws and (mostly) loses the turn.  Returns RW_NEXT,
    or RW_TURN when the victim keeps it (a bounce with reverse_bounce_victim_skips off; Speed Uno's
    draw_no_skip, then a colour-only turn; a dancing target under bts_dancing_target_skips off)."""
    hand, hlen, pile, disc, lg, tmp, active, st, rng, log, res, obs, fcol, frank, fpts, cmask, \
        pol, pp, script, ufn, R, RD = g
    pend_kind = st[ST_PEND_KIND]
    pend_n = st[ST_PEND_N]
    skips = (not _IS_ATTACK[pend_kind] or st[ST_PEND_STACKED] <= 1 or R[R_ST_FINAL_SKIPS] != 0) \
        and st[ST_PEND_NOSKIP] == 0
    if pend_kind == DANCING_WILD:
        skips = R[R_DANCE_SKIPS] != 0
        if RD[RD_P_DANCE] > 0.0 and rand01_nb(rng) < RD[RD_P_DANCE]:
            pend_n = 0  # the target dances instead of drawing 3
    elif R[R_SPEED_NO_SKIP] and _IS_ATTACK[pend_kind]:
        skips = False  # Speed Uno: draw, then take the turn (colour or wild only)
        st[ST_COLOR_TURN] = 1
    if pend_kind == HOWLER and _observing(n, pol, st):
        _learn_nb(obs, victim, (1 << n) - 1, hand, hlen)  # the Howler's victim shows the hand
    if pend_n > 0 or pend_kind == WILD_DRAW_COLOR:
        _penalty(victim, pend_kind, pend_n, st[ST_CUR], st[ST_SIDE], hand, hlen, fcol, frank, pile, disc, st, rng, log)
    st[ST_PEND_KIND] = -1
    st[ST_PEND_N] = 0
    st[ST_PEND_STACKED] = 0
    st[ST_PEND_NOSKIP] = 0
    st[ST_PEND_BOUNCED] = 0
    if not skips:
        return RW_TURN
    if log.shape[0] > 0:
        _log(log, st, EV_SKIPPED, victim, -1, 0, 0)
    st[ST_P] = _nxt(victim, st[ST_D], n, active)
    return RW_NEXT


@njit(cache=True, _nrt=False)
def _turn_penalties(p, gp):
    """Turn penalties as probabilities (docs/rules.md 4.19): a general mistake, a hint, a detected illegal
    play attempt."""
    g = deref(gp)
    hand, hlen, pile, disc, lg, tmp, active, st, rng, log, res, obs, fcol, frank, fpts, cmask, \
        pol, pp, script, ufn, R, RD = g
    if RD[RD_P_MISTAKE] > 0.0 and rand01_nb(rng) < RD[RD_P_MISTAKE]:
        give_cards_nb(p, 2, hand, hlen, pile, disc, st, rng, log, EV_PENALTY, fcol, frank)
    if RD[RD_P_HINT] > 0.0 and rand01_nb(rng) < RD[RD_P_HINT]:
        give_cards_nb(p, 2, hand, hlen, pile, disc, st, rng, log, EV_PENALTY, fcol, frank)
    if RD[RD_P_ILLEGAL] > 0.0 and rand01_nb(rng) < RD[RD_P_ILLEGAL] and rand01_nb(rng) < RD[RD_P_DETECT]:
        give_cards_nb(p, R[R_ILLEGAL_PEN], hand, hlen, pile, disc, st, rng, log, EV_PENALTY, fcol, frank)


@njit(cache=True, _nrt=False, inline="always")
def _normal_turn(n, top, resume, obs_on, g, gp):
    """Seat st[ST_P]'s own turn (docs/rules.md 1.6-1.8): it lays a legal card, or draws (one card, or until
    one is playable) and may lay the card drawn.  Returns the hand index of the card it lays, or -1 when the
    turn passed on (skipped, drew and kept, or the round ends: st[ST_ERR]).  ``resume``: the round resumes
    at this decision, whose turn began before the snapshot."""
    hand, hlen, pile, disc, lg, tmp, active, st, rng, log, res, obs, fcol, frank, fpts, cmask, \
        pol, pp, script, ufn, R, RD = g
    dc = decision_ctx(g, gp)
    p = st[ST_P]
    if not resume:
        skip_next = st[ST_SKIP_NEXT]
        if skip_next != 0 and (skip_next >> p) & 1:
            st[ST_SKIP_NEXT] = skip_next & ~(1 << p)
            if log.shape[0] > 0:
                _log(log, st, EV_SKIPPED, p, -1, 1, 0)
            st[ST_P] = _nxt(p, st[ST_D], n, active)
            return -1
        if st[ST_REVERT_DIR]:
            st[ST_REVERT_DIR] = 0
            st[ST_D] = -st[ST_D]
        st[ST_TURNS] += 1
        if R[R_PENALTIES]:
            _turn_penalties(p, gp)
    side = st[ST_SIDE]
    cur = st[ST_CUR]
    top_rank = frank[side, top]
    ct = st[ST_COLOR_TURN] != 0
    by_symbol = R[R_BY_SYMBOL] != 0
    any_action = R[R_ANY_ACTION] != 0
    restriction = R[R_RESTRICTION]
    # speed_no_wd4_out drops only a Wild Draw Four that is the last card: with more cards it has nothing to
    # filter (the filter, now _speed_uno_options, ran at every Speed Uno turn: 8% of a speed_uno run)
    last_wd4_out = R[R_NO_WD4_OUT] != 0 and hlen[p] == 1
    nlegal, nopt, bluff_now = _play_options(p, cur, side, top, top_rank, ct, last_wd4_out, R[R_BLUFF_OK] != 0,
                                            by_symbol, any_action, restriction, g)
    if obs_on:
        _pub(obs, st[ST_TURNS], st[ST_D], st[ST_PEND_KIND], st[ST_PEND_N], st[ST_PEND_FROM],
             st[ST_PEND_PREV_COLOR])
    voluntary = R[R_VOLUNTARY] != 0
    pflag = (1 if bluff_now else 0) | (2 if (nlegal > 0 and not voluntary) else 0)
    choice = decide_nb(D_PLAY, p, nopt, nlegal, pflag, cur, side, n, dc)
    if st[ST_ERR] != 0:
        return -1  # an illegal or missing scripted move ends the round before anything happens
    st[ST_COLOR_TURN] = 0
    if choice < 0 and nlegal > 0 and not voluntary and pol[p] == POL_SCRIPTED:
        st[ST_ERR] = 1  # voluntary_draw=false: no drawing while holding a legal card
        return -1
    if choice >= 0:
        return _opt_index(obs, choice)
    # draw one (or until playable); only the drawn card may then be played
    dup = R[R_DUP] != 0
    h0 = hlen[p]
    got, playable = _draw_for_play(p, ct, cur, side, top_rank, dup, by_symbol, any_action, restriction, g)
    _held_from(p, h0, hand, hlen, fcol, frank, st)  # here, not in _draw_for_play, which the fast turns share
    if playable and (R[R_DRAWN_FORCED] or ((dup or ct) and R[R_DUP_MUST]) or
                     _play_drawn_cold(p, cur, side, n, dc)):
        return hlen[p] - 1
    if log.shape[0] > 0:
        _log(log, st, EV_PASS, p, got, 0, 0)
    st[ST_P] = _nxt(p, st[ST_D], n, active)
    return -1


@njit(cache=True, _nrt=False, inline="always")
def _lay_card(n, actor, play_i, mode, top, obs_on, g, gp):
    """``actor`` lays the card at hand index play_i, played in ``mode`` (0 a normal turn, 1 a stack, 2 a
    deflection, 3 a bounce, 4 a jump-in, 5 a continued stack, 6 the Invisibility Wild), and names the colour
    of a wild.  Returns (its colour before, whether it was a Wild Draw Four played against the restriction)."""
    hand, hlen, pile, disc, lg, tmp, active, st, rng, log, res, obs, fcol, frank, fpts, cmask, \
        pol, pp, script, ufn, R, RD = g
    dc = decision_ctx(g, gp)
    side = st[ST_SIDE]
    play_c = hand[actor, play_i]
    rk = frank[side, play_c]
    col = fcol[side, play_c]
    cur = st[ST_CUR]
    prev_color = cur
    was_guilty = False
    if _IS_WDRAW[rk]:
        was_guilty = _is_wd4_guilty(actor, side, hand, hlen, fcol, frank, cur, frank[side, top], R[R_RESTRICTION])
    _remove_at(actor, play_i, hand, hlen)
    if st[ST_HELD_ON] != 0:
        _held_add(st, play_c, -1, fcol, frank)
    disc[st[ST_DISC_N]] = play_c
    st[ST_DISC_N] += 1
    if obs_on:
        _count_play(obs, play_c, 1, side, st, fcol, frank)
        obs[_seen_at(obs, fcol.shape[1]) + play_c] = 0
    if col == BLACK:
        pend_kind = st[ST_PEND_KIND]
        if _IS_WDRAW[rk] and R[R_ST_COLOR_FIRST] and pend_kind >= 0 and _IS_WDRAW[pend_kind] and mode == 1:
            pass  # the first Wild Draw Four of the stack named the colour
        elif R[R_COLOR_ROTATION]:
            cur = _ROT_CW[cur] if st[ST_D] == 1 else _ROT_CCW[cur]
        else:
            cur = _choose_color_cold(actor, cur, side, n, dc)
    else:
        cur = col
    st[ST_CUR] = cur
    if log.shape[0] > 0:
        _log(log, st, EV_PLAY, actor, play_c, cur, mode)
    st[ST_JUST_PLAYED] = 1
    st[ST_LAST_ACTOR] = actor
    return prev_color, was_guilty


# what follows an emptied hand
EMPTY_ROUND_OVER = 0   # the round is over
EMPTY_GO_ON = 1        # play goes on (play_to_last, uno_seven_rounds): the card's effect follows
EMPTY_NEXT = 2         # a last Wild Draw Four was challenged and guilty: back to the top of the loop


@njit(cache=True, _nrt=False, inline="always")
def _hand_emptied(n, actor, rk, mode, prev_color, was_guilty, g, gp):
    """``actor`` laid its last card (docs/rules.md 1.14): a final Flip is carried out (flip_last_card_executes),
    a final draw card still hits the next player (and a last Wild Draw Four may be challenged); then the
    round ends, or under play_to_last (4.14) and uno_seven_rounds (4.15) goes on.  Returns EMPTY_*."""
    hand, hlen, pile, disc, lg, tmp, active, st, rng, log, res, obs, fcol, frank, fpts, cmask, \
        pol, pp, script, ufn, R, RD = g
    d = st[ST_D]
    nx = _nxt(actor, d, n, active)
    if rk == FLIP and R[R_FLIP_LAST_EXEC]:
        _turn_over(n, hand, hlen, pile, disc, st, res, fcol, frank)
    if _IS_ATTACK[rk] and not (R[R_PLAY_TO_LAST] or R[R_SEVEN_ROUNDS]):
        amount = st[ST_PEND_N] + _DRAW_N[rk] if mode != 2 else _DRAW_N[rk]
        if _IS_WDRAW[rk] and R[R_CHALLENGE] and R[R_CH_LAST_CARD]:
            if _observing(n, pol, st):
                _pub(obs, st[ST_TURNS], d, rk, amount, actor, prev_color)  # the evidence for this challenge
            if _wants_challenge(nx, st[ST_CUR], st[ST_SIDE], n, gp):
                if _challenge(n, nx, actor, rk, amount, was_guilty, prev_color, gp):
                    st[ST_P] = nx if R[R_CH_SUCCESS_PLAYS] else _nxt(nx, d, n, active)
                    st[ST_JUST_PLAYED] = 0
                    return EMPTY_NEXT
                amount = -1  # the challenger took the attack and the extra
        if rk == DANCING_WILD and RD[RD_P_DANCE] > 0.0 and rand01_nb(rng) < RD[RD_P_DANCE]:
            amount = 0
        if amount >= 0:
            _penalty(nx, rk, amount, st[ST_CUR], st[ST_SIDE], hand, hlen, fcol, frank, pile, disc, st, rng, log)
    if R[R_SEVEN_ROUNDS]:
        # refill 6, 5, ... 1; the seventh emptying wins
        active[2 * n + actor] += 1
        k = active[2 * n + actor]
        if k > R[R_REFILL_START]:
            st[ST_WINNER] = actor
            return EMPTY_ROUND_OVER
        give_cards_nb(actor, R[R_REFILL_START] - k + 1, hand, hlen, pile, disc, st, rng, log, EV_DRAW, fcol, frank)
        return EMPTY_GO_ON
    if R[R_PLAY_TO_LAST]:
        # leave the round; the last one holding cards loses
        active[actor] = 0
        st[ST_N_ACTIVE] -= 1
        n_active = st[ST_N_ACTIVE]
        active[n + actor] = n - n_active  # finishing position, 1 = first out
        if st[ST_WINNER] < 0:
            st[ST_WINNER] = actor
        if log.shape[0] > 0:
            _log(log, st, EV_WIN, actor, -1, n - n_active, 1)
        if n_active <= 1:
            for s in range(n):
                if active[s]:
                    st[ST_LOSER] = s
            return EMPTY_ROUND_OVER
        return EMPTY_GO_ON
    st[ST_WINNER] = actor
    return EMPTY_ROUND_OVER


@njit(cache=True, _nrt=False)
def _uno_call(n, actor, gp):
    """``actor`` is down to one card: the UNO call (docs/rules.md 1.12) as probabilities, forgotten and caught;
    under uno_to_center (4.12) the slowest other player draws."""
    g = deref(gp)
    hand, hlen, pile, disc, lg, tmp, active, st, rng, log, res, obs, fcol, frank, fpts, cmask, \
        pol, pp, script, ufn, R, RD = g
    if RD[RD_P_FORGET] > 0.0 and rand01_nb(rng) < RD[RD_P_FORGET]:
        if rand01_nb(rng) < RD[RD_P_CATCH]:
            res[RES_UNO_CAUGHT] += 1
            if log.shape[0] > 0:
                _log(log, st, EV_UNO_CAUGHT, actor, -1, R[R_UNO_PEN], 0)
            give_cards_nb(actor, R[R_UNO_PEN], hand, hlen, pile, disc, st, rng, log, EV_PENALTY, fcol, frank)
    elif R[R_UNO_CENTER]:
        k = randint_nb(rng, st[ST_N_ACTIVE] - 1)
        for s in range(n):
            if s != actor and active[s]:
                if k == 0:
                    give_cards_nb(s, R[R_CENTER_PEN], hand, hlen, pile, disc, st, rng, log, EV_PENALTY, fcol, frank)
                    break
                k -= 1


@njit(cache=True, _nrt=False)
def _flip_played(n, actor, gp):
    """A Flip (docs/rules.md 2.8): no turn effect; the revealed top face sets colour and symbol only (a
    revealed wild: the Flip player names the colour, or with flip_revealed_black_color anything follows)."""
    g = deref(gp)
    hand, hlen, pile, disc, lg, tmp, active, st, rng, log, res, obs, fcol, frank, fpts, cmask, \
        pol, pp, script, ufn, R, RD = g
    dc = decision_ctx(g, gp)
    side = _turn_over(n, hand, hlen, pile, disc, st, res, fcol, frank)
    ntop = disc[st[ST_DISC_N] - 1]
    cur = fcol[side, ntop]
    if cur == BLACK:
        cur = -1 if R[R_FLIP_FREE] else _choose_color_cold(actor, cur, side, n, dc)
    st[ST_CUR] = cur
    if log.shape[0] > 0:
        _log(log, st, EV_FLIP, actor, ntop, cur, side)
    st[ST_P] = _nxt(actor, st[ST_D], n, active)


@njit(cache=True, _nrt=False)
def _skip_everyone(n, actor, gp):
    """Skip Everyone (docs/rules.md 2.6): every other player loses the turn; the player goes again."""
    g = deref(gp)
    hand, hlen, pile, disc, lg, tmp, active, st, rng, log, res, obs, fcol, frank, fpts, cmask, \
        pol, pp, script, ufn, R, RD = g
    d = st[ST_D]
    if log.shape[0] > 0:
        q = _nxt(actor, d, n, active)
        while q != actor and q != _nxt(q, d, n, active):
            _log(log, st, EV_SKIPPED, q, -1, 0, 0)
            q = _nxt(q, d, n, active)
            if not active[actor] and q == _nxt(actor, d, n, active):
                break
    st[ST_P] = actor if active[actor] else _nxt(actor, d, n, active)


@njit(cache=True, _nrt=False, inline="always")
def _attack_laid(n, actor, rk, play_c, mode, was_guilty, prev_color, g, gp):
    """A draw card was laid: it becomes (or, stacked, adds to) the pending attack on the next player; a
    deflection passes the card's own amount on (docs/rules.md 4.7, 4.8).  A stacker may go on stacking
    (stack_max_per_turn)."""
    hand, hlen, pile, disc, lg, tmp, active, st, rng, log, res, obs, fcol, frank, fpts, cmask, \
        pol, pp, script, ufn, R, RD = g
    pend_kind = st[ST_PEND_KIND]
    if mode == 2:
        st[ST_PEND_N] = _DRAW_N[rk]
        st[ST_PEND_STACKED] = 1
    elif (mode == 1 or mode == 5) and pend_kind >= 0 and _DRAW_N[pend_kind] > 0:
        st[ST_PEND_STACKED] += 1
        st[ST_PEND_N] += _DRAW_N[rk]
        if log.shape[0] > 0:
            _log(log, st, EV_STACK, actor, play_c, st[ST_PEND_N], 0)
    else:
        st[ST_PEND_STACKED] = 1
        st[ST_PEND_N] += _DRAW_N[rk]
    st[ST_PEND_KIND] = rk
    st[ST_PEND_FROM] = actor
    if _IS_WDRAW[rk]:
        st[ST_PEND_GUILTY] = was_guilty
        st[ST_PEND_PREV_COLOR] = prev_color
    if st[ST_PEND_STACKED] > res[RES_STACK_MAX]:
        res[RES_STACK_MAX] = st[ST_PEND_STACKED]
    if mode == 5:
        st[ST_STACK_COUNT] += 1
    elif mode == 1:
        st[ST_STACK_COUNT] = 1
    if (mode == 1 or mode == 5) and st[ST_STACK_COUNT] < R[R_ST_MAX] and hlen[actor] > 0:
        st[ST_CONT_STACK] = 1
        st[ST_P] = actor
    else:
        st[ST_P] = _nxt(actor, st[ST_D], n, active)


@njit(cache=True, _nrt=False, inline="always")
def _card_effect(n, actor, rk, play_c, mode, emptied, was_guilty, prev_color, g, gp):
    """The effect of the card just laid on whose turn comes next (docs/rules.md 1.16, 1.17, 2.x, 4.x)."""
    hand, hlen, pile, disc, lg, tmp, active, st, rng, log, res, obs, fcol, frank, fpts, cmask, \
        pol, pp, script, ufn, R, RD = g
    d = st[ST_D]
    n_active = st[ST_N_ACTIVE]
    if rk == SKIP:
        if R[R_SKIP_EXTRA]:
            # skip_extra_turn (docs/rules.md 4.25): the next player loses the turn, the skipper goes again
            victim_s = _nxt(actor, d, n, active)
            if log.shape[0] > 0:
                _log(log, st, EV_SKIPPED, victim_s, -1, 0, 0)
            st[ST_P] = actor if active[actor] else _nxt(victim_s, d, n, active)
        else:
            st[ST_PEND_KIND] = SKIP
            st[ST_PEND_N] = 0
            st[ST_PEND_FROM] = actor
            st[ST_P] = _nxt(actor, d, n, active)
    elif rk == REVERSE:
        two_left = n_active == 2 and (R[R_PTL_TWO_PLAYER] != 0 or st[ST_N_SEATED] == 2)
        if mode == 3:
            # reverse_bounce (docs/rules.md 4.9): the attack returns to the previous player
            st[ST_D] = -d
            st[ST_P] = _nxt(actor, -d, n, active)
            st[ST_PEND_FROM] = actor
            st[ST_NO_RESPONSE] = R[R_RB_REBOUNCE] == 0
            st[ST_PEND_NOSKIP] = R[R_RB_VICTIM_SKIPS] == 0
            st[ST_PEND_BOUNCED] = 1  # the bounced card cannot be challenged by its own player
            if log.shape[0] > 0:
                _log(log, st, EV_DIRECTION, actor, -1, -d, 1)
        elif two_left and R[R_REV_AS_SKIP]:
            st[ST_PEND_KIND] = SKIP
            st[ST_PEND_N] = 0
            st[ST_PEND_FROM] = actor
            st[ST_P] = _nxt(actor, d, n, active)
        else:
            st[ST_D] = -d
            if log.shape[0] > 0:
                _log(log, st, EV_DIRECTION, actor, -1, -d, 0)
            st[ST_P] = _nxt(actor, -d, n, active)
            if R[R_REV_SINGLE]:
                st[ST_REVERT_DIR] = 1 - st[ST_REVERT_DIR]
    elif rk == HOWLER:
        # Harry Potter: the next player shows their hand (public information) and loses the turn
        st[ST_PEND_KIND] = HOWLER
        st[ST_PEND_N] = 0
        st[ST_PEND_FROM] = actor
        st[ST_P] = _nxt(actor, d, n, active)
    elif rk == SKIP_ALL:
        _skip_everyone(n, actor, gp)
    elif rk == FLIP:
        _flip_played(n, actor, gp)
    elif _IS_ATTACK[rk]:
        _attack_laid(n, actor, rk, play_c, mode, was_guilty, prev_color, g, gp)
    else:
        st[ST_P] = _nxt(actor, d, n, active)
        if rk <= 9 and R[R_SWAPS] and not emptied:
            _swap_with(n, actor, rk, play_c, g, gp)


@njit(cache=True, _nrt=False)
def _finish_round(n, end, gp):
    """The round's results into res, with the points left in every hand (res[RES_HPTS + seat]: counted here
    once, for the records and a match's scoring too); the winner scores the others' hands (docs/rules.md 1.15,
    4.16).  A round ended by a policy error, or paused for a plain-Python seat, has no winner."""
    g = deref(gp)
    hand, hlen, pile, disc, lg, tmp, active, st, rng, log, res, obs, fcol, frank, fpts, cmask, \
        pol, pp, script, ufn, R, RD = g
    winner = st[ST_WINNER]
    loser = st[ST_LOSER]
    if st[ST_ERR] >= 2:
        end = END_POLICY if st[ST_ERR] == 2 else END_PAUSED
        winner = -1
        loser = -1
    side = st[ST_SIDE]
    scored = winner >= 0 and not (R[R_PLAY_TO_LAST] or R[R_SEVEN_ROUNDS])
    wpts = 0
    for s in range(n):
        pts = seat_points_nb(s, side, hand, hlen, frank, fpts, R[R_Z50])
        res[RES_HPTS + s] = pts
        if scored and s != winner:
            wpts += pts
    if winner >= 0 and log.shape[0] > 0:
        _log(log, st, EV_WIN, winner, -1, wpts, 0)
    res[RES_WINNER] = winner
    res[RES_LOSER] = loser
    res[RES_TURNS] = st[ST_TURNS]
    res[RES_WPTS] = wpts
    res[RES_DRAWN] = st[ST_DRAWN]
    res[RES_END] = end
    res[RES_RESHUF] = st[ST_RESHUF]
    res[RES_COLOR] = st[ST_CUR]
    res[RES_DIRECTION] = st[ST_D]
    res[RES_NEXT] = st[ST_P]
    res[RES_SIDE] = side
    return winner


@njit(cache=True, _nrt=False)
def _begin_round(n, dealer, first, order, resume, cont, gp):
    """A new round: clear, deal and turn up the starting card.  A resumed or continued one (the caller's copy
    of a paused round's arrays, or of a round stopped at a step's boundary) clears only its script position
    and error."""
    g = deref(gp)
    hand, hlen, pile, disc, lg, tmp, active, st, rng, log, res, obs, fcol, frank, fpts, cmask, \
        pol, pp, script, ufn, R, RD = g
    if resume or cont:
        for k in range(ST_SCRIPT_POS, ST_MODE):
            st[k] = 0
        if resume:
            st[ST_JUST_PLAYED] = 0
    else:
        _clear_round(g)
        _deal(n, order, g)
    if _observing(n, pol, st):
        _open_observation(n, resume or cont, g)
    if not (resume or cont):
        _start_round(n, dealer, first, g, gp)
    st[ST_HELD_ON] = R[R_JUMP_IN] != 0  # only the jump-in window reads the counts
    if st[ST_HELD_ON] != 0:
        _count_held(n, hand, hlen, fcol, frank, st)


@njit(cache=True, _nrt=False, inline="always")
def _fast_turns(n, rev_skips, fflags, g, gp):
    """The fast turns (_fast_turns_nb) from the round's state, and back into it.  Returns (the seat whose turn
    chose a card for the big loop to lay, or -1; its hand index)."""
    hand, hlen, pile, disc, lg, tmp, active, st, rng, log, res, obs, fcol, frank, fpts, cmask, \
        pol, pp, script, ufn, R, RD = g
    p, d, cur, turns, play_i, play_c, attacked = _fast_turns_nb(
        st[ST_P], st[ST_D], n, st[ST_CUR], st[ST_SIDE], st[ST_TURNS], R[R_CAP], R[R_RESTRICTION],
        fflags | (FAST_REV_SKIPS if rev_skips else 0), st[ST_PEND_PREV_COLOR], gp)
    st[ST_P] = p
    st[ST_D] = d
    st[ST_CUR] = cur
    st[ST_TURNS] = turns
    if attacked and res[RES_STACK_MAX] < 1:
        res[RES_STACK_MAX] = 1
    return (p if play_c >= 0 else -1), play_i


@njit(cache=True, _nrt=False)
def play_round_nb(n, dealer, first, order, gp):
    """Play one round.  ``dealer`` deals; ``first`` acts first (-1: the seat on the dealer's left).
    ``active[3n:4n]`` says which seats take part (1) and which are out of the match (0).  ``order`` (if
    non-empty) is the rigged deck (_deal); otherwise the deck is shuffled from ``rng``.  ``gp``: the address
    (by_ref.ref) of the round's arrays and rules ``g`` (new_round): a caller that plays many rounds makes it
    once.  Results go to ``res``; hands stay in ``hand``.  With st[ST_MODE] =
    MODE_RESUME the arrays are a paused round's, which continues at its paused decision.

    Turn structure (docs/rules.md 5.1): a play resolves into a *pending attack* on the next player; at the
    start of the victim's turn a response window opens (challenge, stack, deflect, bounce, jump-in); with
    nothing played, the attack resolves.  Taking a penalty is not a turn; a play or a draw is."""
    g = deref(gp)
    hand, hlen, pile, disc, lg, tmp, active, st, rng, log, res, obs, fcol, frank, fpts, cmask, \
        pol, pp, script, ufn, R, RD = g
    logon = log.shape[0] > 0
    resume = (st[ST_MODE] & MODE_RESUME) != 0
    cont = (st[ST_MODE] & MODE_CONTINUE) != 0
    step = (st[ST_MODE] & MODE_STEP) != 0
    obs_on = _observing(n, pol, st)
    _begin_round(n, dealer, first, order, resume, cont, gp)
    fast = R[R_FAST] != 0 and not (logon or (st[ST_MODE] & MODE_SNAPSHOT) != 0)
    fflags = R[R_FFLAGS] | (FAST_OBS if obs_on else 0)
    jump_rules = R[R_JUMP_RULES] != 0
    cap = R[R_CAP]
    end = END_WIN
    stop = step and not cont  # MODE_STEP: a new round stops after its start, a continued one after a step
    while True:
        if st[ST_ERR] != 0:
            end = END_SCRIPT if st[ST_ERR] == 1 else (END_POLICY if st[ST_ERR] == 2 else END_PAUSED)
            break
        if stop:
            end = END_STEP
            break
        stop = step
        if st[ST_TURNS] >= cap:
            end = END_CAP
            if logon:
                _log(log, st, EV_CAP, st[ST_P], -1, st[ST_TURNS], 0)
            break
        top = disc[st[ST_DISC_N] - 1]
        if obs_on:
            _pub(obs, st[ST_TURNS], st[ST_D], st[ST_PEND_KIND], st[ST_PEND_N], st[ST_PEND_FROM],
                 st[ST_PEND_PREV_COLOR])
        actor = -1
        play_i = -1
        mode = 0
        if jump_rules and st[ST_JUST_PLAYED] != 0 and st[ST_CONT_STACK] == 0:
            actor, play_i = _jump_in_window(n, top, g, gp)
            mode = 4
        st[ST_JUST_PLAYED] = 0
        if actor < 0 and st[ST_PEND_KIND] >= 0:
            rw, play_i, mode = _response_window(n, top, g, gp)
            if rw == RW_NEXT:
                continue
            if rw == RW_PLAY:
                actor = st[ST_P]
        if actor < 0 and fast and not resume and st[ST_SKIP_NEXT] == 0 and st[ST_REVERT_DIR] == 0 \
                and st[ST_COLOR_TURN] == 0 and _fast_seat(pol[st[ST_P]]):
            rev_skips = R[R_REV_AS_SKIP] != 0 and st[ST_N_ACTIVE] == 2 \
                and (R[R_PTL_TWO_PLAYER] != 0 or st[ST_N_SEATED] == 2)
            actor, play_i = _fast_turns(n, rev_skips, fflags, g, gp)
            mode = 0
            if actor < 0 and (st[ST_TURNS] >= cap or st[ST_ERR] != 0):
                continue
        # the card played on, read again: the fast turns have laid cards since the top of this turn, and a guilty Wild
        # Draw Four taken back or void (challenge_guilty_card returns_to_hand, void) uncovered the card before it
        top = disc[st[ST_DISC_N] - 1]
        if actor < 0:
            play_i = _normal_turn(n, top, resume, obs_on, g, gp)
            resume = False
            if play_i < 0:
                continue
            actor = st[ST_P]
            mode = 0
        elif mode != 5:
            st[ST_TURNS] += 1  # a stack, a deflection, a bounce or a jump-in is a play
        if st[ST_ERR] != 0:
            continue
        side = st[ST_SIDE]
        play_c = hand[actor, play_i]
        rk = frank[side, play_c]
        prev_color, was_guilty = _lay_card(n, actor, play_i, mode, top, obs_on, g, gp)
        emptied = hlen[actor] == 0
        if emptied:
            e = _hand_emptied(n, actor, rk, mode, prev_color, was_guilty, g, gp)
            if e == EMPTY_ROUND_OVER:
                break
            if e == EMPTY_NEXT:
                continue
        if hlen[actor] == 1 and R[R_UNO_CALLS]:
            _uno_call(n, actor, gp)
        if rk <= 9 and not (R[R_SWAPS] != 0 and _swap_card(rk, R)):
            st[ST_P] = _nxt(actor, st[ST_D], n, active)  # a number card that swaps nothing: the turn passes on
            continue
        _card_effect(n, actor, rk, play_c, mode, emptied, was_guilty, prev_color, g, gp)
    return _finish_round(n, end, gp)
