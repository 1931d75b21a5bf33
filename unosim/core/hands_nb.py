"""Hands, piles and what moves between them: drawing (with the reshuffle), giving cards, the counts of the cards
held (jump-in), the seats' voids, UNO Flip's turn-over, hands swapped or passed, the points left in a hand.  Each is
a few instructions, inlined by LLVM where it is called.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from .enums import *  # noqa: F403  (kernels read the integer constants as globals)
from .layout import *  # noqa: F403  (the kernels read the slots and switches as globals)
from .layout import _RANK_VOID_OK
from .rng_nb import shuffle_nb


# ================================================================================================
# Small helpers (scalars and arrays; each is a few instructions and inlined by LLVM)
# ================================================================================================
@njit(cache=True, _nrt=False, inline="always")
def _log(log, st, kind, seat, card, a1, a2):
    # int64 casts: numba compiles a non-inlined function once per combination of literal arguments,
    # and the call sites pass literal event kinds (30 copies of _log_row without them)
    _log_row(log, st, np.int64(kind), np.int64(seat), np.int64(card), np.int64(a1), np.int64(a2))


@njit(cache=True, _nrt=False)
def _log_row(log, st, kind, seat, card, a1, a2):
    k = st[ST_LOG_N]
    if k < log.shape[0]:
        log[k, 0] = kind
        log[k, 1] = seat
        log[k, 2] = card
        log[k, 3] = a1
        log[k, 4] = a2
    st[ST_LOG_N] = k + 1


@njit(cache=True, _nrt=False)
def _nxt(p, d, n, active):
    q = p
    for _ in range(n):
        q += d
        if q >= n:
            q -= n
        elif q < 0:
            q += n
        if active[q]:
            return q
    return p


@njit(cache=True, _nrt=False)
def draw_card_nb(pile, disc, st, rng, log):
    """Pop the top of the draw pile, reshuffling the discard (minus its top) when it is empty.

    Returns -1 when nothing at all is left to draw (docs/rules.md 1.13 Impl. note: the draw is cancelled).
    Small enough for LLVM to inline at every draw; the rare reshuffle stays a call.
    """
    if st[ST_PILE_N] == 0 and not _reshuffle_nb(pile, disc, st, rng, log):
        return -1
    k = st[ST_PILE_N] - 1
    st[ST_PILE_N] = k
    st[ST_DRAWN] += 1
    return pile[k]


@njit(cache=True, _nrt=False)
def _reshuffle_nb(pile, disc, st, rng, log):
    """The discard pile but its top card, shuffled, becomes the draw pile; False when it holds nothing."""
    dn = st[ST_DISC_N]
    if dn <= 1:
        return False
    m = dn - 1
    for i in range(m):
        pile[i] = disc[i]
    shuffle_nb(pile, m, rng)
    disc[0] = disc[dn - 1]
    st[ST_DISC_N] = 1
    st[ST_PILE_N] = m
    st[ST_RESHUF] += 1
    if log.shape[0] > 0:
        _log(log, st, EV_RESHUFFLE, -1, -1, m, 0)
    return True


@njit(cache=True, _nrt=False)
def draw_to_hand_nb(p, hand, hlen, pile, disc, st, rng, log):
    """Seat p draws one card into its hand; returns it, or -1 when nothing is left to draw.  Its callers count
    the cards held where the counts are kept (_held_from): this and _give_cards stay small enough for LLVM to
    inline in the fast turns (with the count inside _give_cards it became a call there, and official rounds
    ran 4-7% slower)."""
    c = draw_card_nb(pile, disc, st, rng, log)
    if c >= 0:
        hand[p, hlen[p]] = c
        hlen[p] += 1
    return c


@njit(cache=True, _nrt=False)
def _held_add(st, c, delta, fcol, frank):
    """Card c entered a hand (delta 1) or left one (-1): the count of its kind held (ST_HELD)."""
    side = st[ST_SIDE]
    st[ST_HELD + fcol[side, c] * NRANKS + frank[side, c]] += delta


@njit(cache=True, _nrt=False)
def _count_held(n, hand, hlen, fcol, frank, st):
    """Count the cards held by kind afresh (ST_HELD): at the start of a round, when a paused or stopped round
    goes on (its arrays may come from elsewhere: a rollout's deal) and when the active side changes."""
    for k in range(NKINDS):
        st[ST_HELD + k] = 0
    for q in range(n):
        for i in range(hlen[q]):
            _held_add(st, hand[q, i], 1, fcol, frank)


@njit(cache=True, _nrt=False)
def _held_from(p, h0, hand, hlen, fcol, frank, st):
    """Count the cards seat p drew since its hand held h0 (hand[p, h0:]), where the counts are kept."""
    if st[ST_HELD_ON] != 0:
        for i in range(h0, hlen[p]):
            _held_add(st, hand[p, i], 1, fcol, frank)


@njit(cache=True, _nrt=False)
def _forget_voids(st, p):
    """Seat p received cards nobody saw: what it showed it lacked may be in its hand again.  Called once
    per draw event by the callers of draw_to_hand_nb, not per card (draw_to_hand_nb stays small enough
    for LLVM to inline it at every draw: the store per card measured about 6% slower on official rules)."""
    st[ST_VOID + p] = 0


@njit(cache=True, _nrt=False)
def _mark_void(st, p, col, rank, side):
    """Seat p showed it holds no card of colour col and no coloured card of rank ``rank`` (-1: nothing
    learned of ranks) on side ``side`` (it drew: nothing was playable).  The colours add to those it showed
    before on the same side (it drew nothing since); the rank replaces the one before."""
    if col < 0 or col >= NCOLORS:
        return
    rec = st[ST_VOID + p]
    mask = (rec - 1) & 15 if rec > 0 and ((rec - 1) >> 4) & 1 == side else 0
    st[ST_VOID + p] = (mask | (1 << col) | (side << 4) | ((rank + 1) << 5)) + 1


@njit(cache=True, _nrt=False)
def _swap_voids(st, a, b):
    """Hands a and b were swapped: what was known of each hand goes with it."""
    t = st[ST_VOID + a]
    st[ST_VOID + a] = st[ST_VOID + b]
    st[ST_VOID + b] = t


@njit(cache=True, _nrt=False, inline="always")
def _void_bits(st, n, side, active):
    """The public voids of every seat in the round as OBS_VOIDS and OBS_RANK_VOIDS pack them: (colours,
    ranks); a coloured rank only (a draw on a wild's colour shows nothing of ranks).  Without a branch on
    what is known (a seat's record is a coin flip to the branch predictor): a seat's bits are masked out."""
    colours = np.int64(0)
    ranks = np.int64(0)
    for s in range(n):
        rec = st[ST_VOID + s] - 1  # -1: nothing known
        keep = -np.int64((rec >= 0) & (active[s] != 0) & (((rec >> 4) & 1) == side))
        colours |= ((rec & 15) << (4 * s)) & keep
        rv = (rec >> 5) & 31
        ranks |= ((rv * _RANK_VOID_OK[rv]) << (5 * s)) & keep
    return colours, ranks


@njit(cache=True, _nrt=False, inline="always")
def give_cards_nb(p, k, hand, hlen, pile, disc, st, rng, log, ev, fcol, frank):
    """Seat p draws k cards (a penalty when ev == EV_PENALTY), counted where the counts are kept.  Returns how
    many it really got."""
    h0 = hlen[p]
    got = _give_cards(np.int64(p), np.int64(k), hand, hlen, pile, disc, st, rng, log, np.int64(ev))
    _held_from(p, h0, hand, hlen, fcol, frank, st)
    return got


@njit(cache=True, _nrt=False)
def _give_cards(p, k, hand, hlen, pile, disc, st, rng, log, ev):
    """give_cards_nb without counting the cards held: small enough for LLVM to inline (the fast turns call
    it directly, and count the cards held themselves under jump-in)."""
    got = 0
    for _ in range(k):
        if draw_to_hand_nb(p, hand, hlen, pile, disc, st, rng, log) < 0:
            break
        got += 1
    if got > 0:
        _forget_voids(st, p)
    if log.shape[0] > 0 and k > 0:
        _log(log, st, ev, p, -1, got, k)
    return got


@njit(cache=True, _nrt=False)
def draw_until_color_nb(p, color, side, hand, hlen, fcol, pile, disc, st, rng, log):
    """Wild Draw Colour (docs/rules.md 2.6): p draws until a card whose active face has ``color``
    (black never counts); stops when nothing is left to draw.  Returns cards drawn."""
    got = 0
    while True:
        c = draw_to_hand_nb(p, hand, hlen, pile, disc, st, rng, log)
        if c < 0:
            break
        got += 1
        if fcol[side, c] == color:
            break
    if got > 0:
        _forget_voids(st, p)
    if log.shape[0] > 0:
        _log(log, st, EV_PENALTY, p, -1, got, -1)
    return got


@njit(cache=True, _nrt=False)
def _penalty(p, kind, amount, color, side, hand, hlen, fcol, frank, pile, disc, st, rng, log):
    """The victim p takes a pending attack: ``amount`` cards, or until ``color`` for Wild Draw Colour
    (then ``amount`` more on top, e.g. the +2 of a failed challenge).  Its arrays one by one (not the round's
    tuple): small enough for LLVM to inline at each of its sites, which numba then types once."""
    h0 = hlen[p]
    if kind == WILD_DRAW_COLOR:
        draw_until_color_nb(p, color, side, hand, hlen, fcol, pile, disc, st, rng, log)
    if amount > 0:
        _give_cards(p, amount, hand, hlen, pile, disc, st, rng, log, np.int64(EV_PENALTY))
    _held_from(p, h0, hand, hlen, fcol, frank, st)


@njit(cache=True, _nrt=False)
def _challenge_terms(kind, wd4_guilty, wd4_innocent, wd2_guilty, wd2_innocent, wdc_extra):
    """(cards a guilty offender draws, extra cards an innocent-verdict challenger draws on top of the
    pending total) for a challenged restricted wild draw (docs/rules.md 1.11, 2.9)."""
    if kind == WILD_DRAW2:
        return wd2_guilty, wd2_innocent - 2
    if kind == WILD_DRAW_COLOR:
        return 0, wdc_extra
    return wd4_guilty, wd4_innocent - 4


@njit(cache=True, _nrt=False)
def _flip_nb(pile, disc, st):
    """UNO Flip (docs/rules.md 2.8): turn the discard pile over (the Flip just played goes to the bottom,
    the oldest discard's other face is the new top) and the draw pile over (its order reverses).
    Hands need no change: a card id carries both faces; the caller switches the active side."""
    dn = st[ST_DISC_N]
    for i in range(dn // 2):
        t = disc[i]
        disc[i] = disc[dn - 1 - i]
        disc[dn - 1 - i] = t
    pn = st[ST_PILE_N]
    for i in range(pn // 2):
        t = pile[i]
        pile[i] = pile[pn - 1 - i]
        pile[pn - 1 - i] = t


@njit(cache=True, _nrt=False)
def _turn_over(n, hand, hlen, pile, disc, st, res, fcol, frank):
    """A Flip executes: both piles turn over (_flip_nb), the other side becomes active and the cards held are
    counted again on it where the counts are kept.  Returns the new side."""
    _flip_nb(pile, disc, st)
    side = 1 - st[ST_SIDE]
    st[ST_SIDE] = side
    if st[ST_HELD_ON] != 0:
        _count_held(n, hand, hlen, fcol, frank, st)
    res[RES_FLIPS] += 1
    return side


@njit(cache=True, _nrt=False)
def _remove_at(p, i, hand, hlen):
    c = hand[p, i]
    last = hlen[p] - 1
    hand[p, i] = hand[p, last]
    hlen[p] = last
    return c


@njit(cache=True, _nrt=False)
def _find_kind(p, v, side, hand, hlen, fcol, frank):
    """First index in p's hand of a card of kind v = colour * NRANKS + rank (scripts name kinds; the jumper's
    twin in _jump_ahead)."""
    for i in range(hlen[p]):
        c = hand[p, i]
        if fcol[side, c] * NRANKS + frank[side, c] == v:
            return i
    return -1


HAND_BLOCK = 16  # hands of up to this many cards change seats as one block of this size (_fits_block)


@njit(cache=True, _nrt=False, inline="always")
def _fits_block(most, hand):
    """Whether hands of at most ``most`` cards move as a block of HAND_BLOCK entries: a loop of the same count
    every time, whose exit the branch predictor learns (a hand's length is a coin flip to it); the entries past a
    hand's length are moved too and never read."""
    return most <= HAND_BLOCK and hand.shape[1] >= HAND_BLOCK


@njit(cache=True, _nrt=False)
def _swap_hands(a, b, hand, hlen):
    m = max(hlen[a], hlen[b])
    if _fits_block(m, hand):
        m = HAND_BLOCK
    for i in range(m):
        t = hand[a, i]
        hand[a, i] = hand[b, i]
        hand[b, i] = t
    t = hlen[a]
    hlen[a] = hlen[b]
    hlen[b] = t


@njit(cache=True, _nrt=False)
def _rotate_hands(n, d, active, hand, hlen, tmp):
    """Every active hand passes to the next active seat in direction d (a 0 under seven_zero)."""
    first = -1
    for s in range(n):
        if active[s]:
            first = s
            break
    if first < 0:
        return
    # walk the cycle backwards: the hand of prev(s) moves to s.
    ln = hlen[first]
    most = ln
    for t in range(n):
        most = max(most, hlen[t])
    m = HAND_BLOCK if _fits_block(most, hand) and tmp.shape[0] >= HAND_BLOCK else most
    for i in range(m):
        tmp[i] = hand[first, i]
    s = first
    for _ in range(n):
        prv = _nxt(s, -d, n, active)
        if prv == first:
            break
        for i in range(m):
            hand[s, i] = hand[prv, i]
        hlen[s] = hlen[prv]
        s = prv
    for i in range(m):
        hand[s, i] = tmp[i]
    hlen[s] = ln


@njit(cache=True, _nrt=False, inline="always")
def _most_color(p, side, hand, hlen, fcol):
    """Colour the seat holds most of (ties to the lowest index); 0 for an empty or all-black hand."""
    c0 = 0
    c1 = 0
    c2 = 0
    c3 = 0
    for i in range(hlen[p]):
        col = fcol[side, hand[p, i]]
        if col == 0:
            c0 += 1
        elif col == 1:
            c1 += 1
        elif col == 2:
            c2 += 1
        elif col == 3:
            c3 += 1
    best = 0
    bc = c0
    if c1 > bc:
        best = 1
        bc = c1
    if c2 > bc:
        best = 2
        bc = c2
    if c3 > bc:
        best = 3
    return best


@njit(cache=True, _nrt=False)
def _script_next(script, st):
    k = st[ST_SCRIPT_POS]
    if k >= script.shape[0]:
        st[ST_ERR] = 1
        return -1
    st[ST_SCRIPT_POS] = k + 1
    return script[k]


@njit(cache=True, _nrt=False)
def _is_wd4_guilty(p, side, hand, hlen, fcol, frank, cur, top_rank, restriction):
    """True when playing a Wild Draw Four now breaks the restriction (docs/rules.md 1.10)."""
    if restriction == 2:
        return False
    for i in range(hlen[p]):
        c = hand[p, i]
        col = fcol[side, c]
        if col == BLACK:
            continue
        if col == cur:
            return True
        if restriction == 1 and frank[side, c] == top_rank:
            return True
    return False


@njit(cache=True, _nrt=False)
def _speed_uno_options(p, hl, nopt, cur, side, color_turn, no_wd4_out, obs, hand, fcol, frank):
    """Drop the options a Speed Uno turn forbids: a coloured card of another colour on a colour turn, a Wild Draw
    Four that is the last card (no going out on it).  Returns the options left, in hand order (a Wild Draw Four
    that breaks the restriction is moved behind them afterwards, _wild_draws_behind)."""
    k = 0
    for j in range(nopt):
        i = obs[OBS_OPT + OPT_STRIDE * j + 1]
        cc = hand[p, i]
        col = fcol[side, cc]
        if color_turn and col != BLACK and col != cur and cur >= 0:
            continue
        if no_wd4_out and hl == 1 and frank[side, cc] == WD4:
            continue  # Speed Uno: no going out on a Wild Draw Four
        obs[OBS_OPT + OPT_STRIDE * k + 1] = i
        k += 1
    return k


@njit(cache=True, _nrt=False)
def seat_points_nb(s, side, hand, hlen, frank, fpts, z50):
    """Points left in seat s's hand.  z50 (zero_worth_50, docs/rules.md 4.16): 0 off, 1 a sole 0 is worth
    50, 2 a hand of only zeros has each 0 worth 50, 3 every 0 is worth 50."""
    t = 0
    zeros = 0
    for i in range(hlen[s]):
        c = hand[s, i]
        t += fpts[side, c]
        if frank[side, c] == 0:
            zeros += 1
    if z50 == 0 or zeros == 0:
        return t
    if z50 == 1:
        return 50 if hlen[s] == 1 else t
    if z50 == 2:
        return 50 * zeros if zeros == hlen[s] else t
    return t + 50 * zeros
