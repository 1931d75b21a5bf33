"""What the seats know, kept only where a seat reads the observation: the header of a decision, the played-card
counts, the cards each seat has seen (swaps, a Howler, a challenge), and the observation a policy of the slot
reads (build_obs_nb; unosim.players.policy_api documents it).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from .cards_nb import _kind_of
from .enums import *  # noqa: F403  (kernels read the integer constants as globals)
from .hands_nb import _void_bits
from .layout import *  # noqa: F403  (the kernels read the slots and switches as globals)


# ================================================================================================
# What a seat learned: obs[kn0 + c] (kn0 = obs.shape[0] - MAXP * NKINDS - cards) has bit v set while
# seat v knows which hand card c is in because it was shown or passed to it (a 7 / 0 / 5 swap, a
# Howler, a Wild Draw Four challenge).  Kept only when a seat reads the observation; a card's bits
# are cleared when it is played (a card drawn later is unknown again).
# ================================================================================================
@njit(cache=True, _nrt=False)
def _seen_at(obs, ncards):
    """Offset of the per-card bit masks in obs (enums.obs_size: they sit before the known-cards region)."""
    return obs.shape[0] - MAXP * NKINDS - ncards


@njit(cache=True, _nrt=False)
def _learn_nb(obs, s, viewers, hand, hlen):
    """The seats in the bit mask ``viewers`` see seat s's whole hand."""
    kn0 = _seen_at(obs, hand.shape[1])
    for i in range(hlen[s]):
        obs[kn0 + hand[s, i]] |= viewers
    obs[OBS_KNOWN_ON] = 1


@njit(cache=True, _nrt=False)
def _known_counts_nb(p, n, side, obs, hand, hlen, fcol, frank, active):
    """The known-cards region for the deciding seat p (called once something was shown this round)."""
    k0 = obs[OBS_KNOWN_AT]
    kn0 = _seen_at(obs, hand.shape[1])
    bit = 1 << p
    for s in range(n):
        b = k0 + s * NKINDS
        for k in range(NKINDS):
            obs[b + k] = 0
        if s != p and active[s] != 0:
            for i in range(hlen[s]):
                c = hand[s, i]
                if obs[kn0 + c] & bit:
                    obs[b + _kind_of(c, side, fcol, frank)] += 1


@njit(cache=True, _nrt=False)
def _observing(n, pol, st):
    """Whether some seat reads the observation (the policies of the slot, plain-Python seats, a rollout's
    forced seat that becomes a policy of the slot): only then is it kept (not for random, greedy or
    scripted seats)."""
    for s in range(n):
        if pol[s] >= POL_SLOT or pol[s] == POL_EXTERNAL or (pol[s] == POL_FORCED and st[ST_FORCE_BASE] >= POL_SLOT):
            return True
    return False


@njit(cache=True, _nrt=False)
def _count_discard_nb(obs, side, disc, st, fcol, frank):
    """Recompute OBS_PLAYED from the discard pile (after a reshuffle or a flip)."""
    for k in range(NKINDS):
        obs[OBS_PLAYED + k] = 0
    for i in range(st[ST_DISC_N]):
        obs[OBS_PLAYED + _kind_of(disc[i], side, fcol, frank)] += 1
    obs[OBS_CNT_EPOCH] = st[ST_RESHUF]
    obs[OBS_CNT_SIDE] = side


@njit(cache=True, _nrt=False)
def _count_play(obs, c, delta, side, st, fcol, frank):
    """Keep OBS_PLAYED up to date as a card goes onto (+1) or comes off (-1) the discard pile."""
    if obs[OBS_CNT_EPOCH] == st[ST_RESHUF] and obs[OBS_CNT_SIDE] == side:
        obs[OBS_PLAYED + _kind_of(c, side, fcol, frank)] += delta


@njit(cache=True, _nrt=False)
def _pub(obs, turns, d, pend_kind, pend_n, pend_from, prev_color):
    """Public scalars of the round into the observation header (only when a seat reads it).  The attacker
    is -1 once the attack has resolved (the loop keeps the last one in ``pend_from``)."""
    obs[OBS_TURN] = turns
    obs[OBS_DIRECTION] = d
    obs[OBS_PEND_KIND] = pend_kind
    obs[OBS_PEND_N] = pend_n
    obs[OBS_PEND_FROM] = pend_from if pend_kind >= 0 else -1
    obs[OBS_PREV_COLOR] = prev_color


@njit(cache=True, _nrt=False, inline="always")
def _count_kinds(obs, base, s, side, hand, hlen, fcol, frank):
    """Add seat s's cards, by their kind on side ``side`` (_kind_of's), to the counts at obs[base:] (unsigned
    indices: no negative-index wrap-around code in the loop; _kind_of with unsigned indices of its own measured
    about 2% slower here)."""
    us = np.uint64(s)
    uside = np.uint64(side)
    ubase = np.uint64(base)
    for i in range(hlen[s]):
        c = np.uint64(hand[us, np.uint64(i)])
        obs[ubase + np.uint64(fcol[uside, c] * NRANKS + frank[uside, c])] += 1


@njit(cache=True, _nrt=False, inline="always")
def build_obs_nb(kind, p, nopt, nleg, none_ok, cur, side, n, dc):
    """Everything seat p may see for this decision (and only that) into obs; see unosim.players.policy_api."""
    pol, pp, obs, hand, hlen, fcol, frank, fpts, disc, active, st, rng, script, ufn, cmask, gp = dc
    obs[OBS_KIND] = kind
    obs[OBS_SEAT] = p
    obs[OBS_NOPT] = nopt
    obs[OBS_NLEGAL] = nleg
    obs[OBS_NONE_OK] = 1 if none_ok else 0
    obs[OBS_PLAYERS] = n
    obs[OBS_COLOR] = cur
    obs[OBS_SIDE] = side
    dn = st[ST_DISC_N]
    obs[OBS_TOP] = _kind_of(disc[dn - 1], side, fcol, frank)
    obs[OBS_PILE_N] = st[ST_PILE_N]
    obs[OBS_DISC_N] = dn
    na = 0
    for s in range(n):  # the slots of seats n..MAXP-1 stay 0 (the buffer starts zeroed)
        on = active[s] != 0
        obs[OBS_ACTIVE + s] = 1 if on else 0
        obs[OBS_HLEN + s] = hlen[s] if on else 0
        na += 1 if on else 0
    obs[OBS_N_ACTIVE] = na
    obs[OBS_VOIDS], obs[OBS_RANK_VOIDS] = _void_bits(st, n, side, active)
    for k in range(NKINDS):
        obs[OBS_HAND + k] = 0
    _count_kinds(obs, OBS_HAND, p, side, hand, hlen, fcol, frank)
    if obs[OBS_CNT_EPOCH] != st[ST_RESHUF] or obs[OBS_CNT_SIDE] != side:
        _count_discard_nb(obs, side, disc, st, fcol, frank)
    if obs[OBS_DECK_SIDE] != side:
        for k in range(NKINDS):
            obs[OBS_DECK + k] = 0
        for c in range(fcol.shape[1]):
            obs[OBS_DECK + _kind_of(c, side, fcol, frank)] += 1
        obs[OBS_DECK_SIDE] = side
    obs[OBS_KNOWN_AT] = obs.shape[0] - MAXP * NKINDS
    if obs[OBS_KNOWN_ON] != 0:
        _known_counts_nb(p, n, side, obs, hand, hlen, fcol, frank, active)
    if obs[OBS_TWO_SIDED] != 0:
        # UNO Flip: the back (inactive) faces of the other hands are in plain view
        for s in range(n):
            b = OBS_BACKS + s * NKINDS
            for k in range(NKINDS):
                obs[b + k] = 0
            if s != p and active[s] != 0:
                _count_kinds(obs, b, s, 1 - side, hand, hlen, fcol, frank)
    # the options' values and infos the kernel does not need itself
    if kind == D_PLAY or kind == D_JUMP_IN or kind == D_GIVE_CARD or kind == D_RESPOND:
        up = np.uint64(p)
        uside = np.uint64(side)
        points = kind != D_RESPOND
        for k in range(nopt):  # unsigned indices, as in _count_kinds
            o = np.uint64(OBS_OPT + OPT_STRIDE * k)
            c = np.uint64(hand[up, np.uint64(obs[o + np.uint64(1)])])
            obs[o] = fcol[uside, c] * NRANKS + frank[uside, c]
            if points:
                obs[o + np.uint64(2)] = fpts[uside, c]
    elif kind == D_COLOR:
        for k in range(NCOLORS):
            obs[OBS_OPT + OPT_STRIDE * k] = k
            obs[OBS_OPT + OPT_STRIDE * k + 1] = k
            obs[OBS_OPT + OPT_STRIDE * k + 2] = 0
        for i in range(hlen[p]):
            col = fcol[side, hand[p, i]]
            if col < NCOLORS:
                obs[OBS_OPT + OPT_STRIDE * col + 2] += 1
    elif kind == D_PLAY_DRAWN or kind == D_CHALLENGE:
        for k in range(2):
            obs[OBS_OPT + OPT_STRIDE * k] = k
            obs[OBS_OPT + OPT_STRIDE * k + 1] = -1
            obs[OBS_OPT + OPT_STRIDE * k + 2] = 0
        if kind == D_PLAY_DRAWN:
            c = hand[p, hlen[p] - 1]
            obs[OBS_OPT + OPT_STRIDE + 1] = hlen[p] - 1
            obs[OBS_OPT + OPT_STRIDE + 2] = _kind_of(c, side, fcol, frank)
