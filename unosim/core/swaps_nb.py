"""Swaps and passes of hands (docs/rules.md 4.3, 4.4, 4.10, 4.18): a 7 under seven_zero, a 0 under zero_swap_any or
passing hands, a 5 under swap_on_five; and the lean calls the fast turns make for them.
"""

from __future__ import annotations

from numba import njit

from .by_ref import deref
from .decide_nb import _choose_target, _exchange_one
from .enums import *  # noqa: F403  (kernels read the integer constants as globals)
from .hands_nb import _log, _rotate_hands, _swap_hands, _swap_voids, give_cards_nb
from .layout import *  # noqa: F403  (the kernels read the slots and switches as globals)
from .observe_nb import _learn_nb, _observing, _pub, _seen_at
from .rng_nb import rand01_nb, randint_nb
from .rules_nb import SWAP_NONE, SWAP_PASS, _swap_rule


@njit(cache=True, _nrt=False)
def _fast_swap(n, actor, nxt, rk, c, d, cur, turns, prev_color, obs_on, gp):
    """The swap or pass of hands of a number card ``c`` (rank ``rk``: a 7 or 0 under seven_zero, ...) that
    ``actor`` just laid in the fast turns (_swap_with), with the round's state in st as the full loop has
    it there: the next seat ``nxt``, direction, colour and turns, and the observation's header (what a seat
    of the slot reads when it chooses a card to give).  A call: it keeps the rare swap out of the loop."""
    g = deref(gp)
    st = g[7]
    st[ST_P] = nxt
    st[ST_D] = d
    st[ST_CUR] = cur
    st[ST_TURNS] = turns
    if obs_on:
        _pub(g[11], turns, d, -1, 0, -1, prev_color)
    _swap_with(n, actor, rk, c, g, gp)


@njit(cache=True, _nrt=False)
def _swap_builtin(n, actor, greedy, rk, d, gp):
    """_swap_with for a ``random`` or ``greedy`` actor while no seat reads the observation, a whole-hand swap
    or a pass of hands: the same target (random: uniform over the other seats in seat order, and nobody where
    the swap is optional; greedy: the fewest cards, ties to the nearest in the direction of play), the same
    random numbers, the same hands and voids after, without _swap_with's decision context."""
    hand, hlen, pile, disc, lg, tmp, active, st, rng, log, res, obs, fcol, frank, fpts, cmask, \
        pol, pp, script, ufn, R, RD = deref(gp)
    what, optional, whole = _swap_rule(rk, R)  # whole: lean_swaps leaves the one-card exchange to _fast_swap
    if what == SWAP_PASS:
        _rotate_hands(n, 1 if R[R_ZERO_LEFT] else d, active, hand, hlen, tmp)  # _pass_hands
        for s in range(n):
            st[ST_VOID + s] = 0
        return True
    if what == SWAP_NONE:
        return False
    m = 0
    for s in range(n):
        if s != actor and active[s]:
            m += 1
    tgt = -1
    if not greedy:
        k = randint_nb(rng, m + (1 if optional else 0))
        for s in range(n):
            if s != actor and active[s]:
                if k == 0:
                    tgt = s
                    break
                k -= 1
    else:
        bkey = 0
        for s in range(n):
            if s != actor and active[s]:
                key = hlen[s] * 64 + ((s - actor) * d) % n
                if tgt < 0 or key < bkey:
                    bkey = key
                    tgt = s
    if tgt < 0:
        return False
    _swap_hands(actor, tgt, hand, hlen)
    _swap_voids(st, actor, tgt)
    return True


@njit(cache=True, _nrt=False)
def _pass_hands(n, actor, play_c, gp):
    """A 0 under seven_zero or Round-n-Round: every hand passes to the next seat (in the direction of play,
    or to the left with zero_pass_direction); each player knows the hand it passed on.  Round-n-Round:
    whoever is handed a one-card hand must call UNO."""
    g = deref(gp)
    hand, hlen, pile, disc, lg, tmp, active, st, rng, log, res, obs, fcol, frank, fpts, cmask, \
        pol, pp, script, ufn, R, RD = g
    if _observing(n, pol, st):
        for s in range(n):
            _learn_nb(obs, s, 1 << s, hand, hlen)
    d = 1 if R[R_ZERO_LEFT] else st[ST_D]
    _rotate_hands(n, d, active, hand, hlen, tmp)
    for s in range(n):
        st[ST_VOID + s] = 0
    res[RES_SWAPS] += 1
    if log.shape[0] > 0:
        _log(log, st, EV_SWAP, actor, play_c, -1, d)
    if R[R_ROUND_N_ROUND] and RD[RD_P_FORGET] > 0.0:
        for s in range(n):
            if active[s] and hlen[s] == 1 and rand01_nb(rng) < RD[RD_P_FORGET] and rand01_nb(rng) < RD[RD_P_CATCH]:
                res[RES_UNO_CAUGHT] += 1
                if log.shape[0] > 0:
                    _log(log, st, EV_UNO_CAUGHT, s, -1, R[R_UNO_PEN], 0)
                give_cards_nb(s, R[R_UNO_PEN], hand, hlen, pile, disc, st, rng, log, EV_PENALTY, fcol, frank)


@njit(cache=True, _nrt=False, inline="always")
def _swap_with(n, actor, rk, play_c, g, gp):
    """A number card that swaps (docs/rules.md 4.3, 4.4, 4.10): a 7 under seven_zero, a 0 under zero_swap_any, a 5
    under swap_on_five.  The player picks the other seat (or nobody, where optional); whole hands change
    places, each player knowing the hand it passed, or (a 5, one_card_each_own_choice) each gives one card
    of its choice, knowing it."""
    hand, hlen, pile, disc, lg, tmp, active, st, rng, log, res, obs, fcol, frank, fpts, cmask, \
        pol, pp, script, ufn, R, RD = g
    what, optional, whole = _swap_rule(rk, R)
    if what == SWAP_PASS:
        _pass_hands(n, actor, play_c, gp)
        return
    if what == SWAP_NONE:
        return
    side = st[ST_SIDE]
    cur = st[ST_CUR]
    tgt = _choose_target(actor, st[ST_D], optional, cur, side, n, gp)
    if tgt < 0:
        return
    if whole:
        if _observing(n, pol, st):
            _learn_nb(obs, actor, 1 << actor, hand, hlen)  # each knows the hand it passes
            _learn_nb(obs, tgt, 1 << tgt, hand, hlen)
        _swap_hands(actor, tgt, hand, hlen)
        _swap_voids(st, actor, tgt)
    else:
        ga, gb = _exchange_one(actor, tgt, cur, side, n, gp)
        st[ST_VOID + actor] = 0
        st[ST_VOID + tgt] = 0
        if _observing(n, pol, st) and ga >= 0 and st[ST_ERR] == 0:
            kn0 = _seen_at(obs, fcol.shape[1])  # each knows the card it gave
            obs[kn0 + ga] |= 1 << actor
            obs[kn0 + gb] |= 1 << tgt
            obs[OBS_KNOWN_ON] = 1
    res[RES_SWAPS] += 1
    if log.shape[0] > 0:
        _log(log, st, EV_SWAP, actor, play_c, tgt, 5 if rk == 5 else 0)
