"""Decisions: the one policy interface.  The kernel builds the options of a decision into obs[OBS_OPT:] (option k:
value at +OPT_STRIDE*k, hand index / seat at +1, info at +2), asks ``decide_nb`` and gets an option index back (or
-1: draw / take / don't / nobody).  ``decide_nb`` is the one place that dispatches on the policy id: the built-ins
``random`` and ``greedy`` stay inlined and never pay for an observation; ``scripted`` reads a script; every other
policy (the heuristics and the user's) is called through the function slot ``ufn`` with the observation built for
it, and its answer is checked.  See unosim.players.policy_api for the contract.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from .by_ref import deref
from .cards_nb import _key_row, _kind_of, _opt_index
from .enums import *  # noqa: F403  (kernels read the integer constants as globals)
from .hands_nb import _is_wd4_guilty, _most_color, _script_next
from .layout import *  # noqa: F403  (the kernels read the slots and switches as globals)
from .layout import _DRAW_N, _IS_WDRAW
from .observe_nb import build_obs_nb
from .rng_nb import rand01_nb, randint_nb


@njit(cache=True, _nrt=False, inline="always")
def _builtin_nb(kind, p, nopt, nleg, flag, cur, side, dc):
    """The built-in policies, ``random`` and ``greedy``, inlined (decide_nb and the fast turns)."""
    pol, pp, obs, hand, hlen, fcol, frank, fpts, disc, active, st, rng, script, ufn, cmask, gp = dc
    if pol[p] == POL_RANDOM:
        return random_nb(kind, p, nopt, nleg, flag, cur, side, dc)
    return greedy_nb(kind, p, nopt, nleg, flag, cur, side, dc)


@njit(cache=True, _nrt=False)
def _all_builtin(n, pol):
    """Whether every seat plays ``random`` or ``greedy``."""
    for s in range(n):
        if pol[s] > POL_GREEDY:
            return False
    return True


@njit(cache=True, _nrt=False)
def _fast_seat(pid):
    """Whether the fast turns play this policy's turns: the built-ins and the policies of the slot, not a
    scripted seat, a plain-Python seat (its answers are replayed) or a rollout's forced seat."""
    return pid <= POL_GREEDY or pid >= POL_SLOT


@njit(cache=True, _nrt=False, inline="always")
def decision_ctx(g, gp):
    """What the decisions read of the round ``g`` (play_round_nb), as the tuple ``dc`` they take: the seats'
    policies, the observation, hands, faces, discard pile, seats in the round, st, the random stream, the
    script, the policy slot, the card masks with greedy's keys, and the round's address ``gp``: the inlined
    decisions read the arrays, and pass ``gp`` to a decision that is a call (which makes its own ``dc`` with
    ``decision_ctx(deref(gp), gp)``: a tuple of arrays passed by value costs about 2 ns an array a call)."""
    hand, hlen, pile, disc, lg, tmp, active, st, rng, log, res, obs, fcol, frank, fpts, cmask, \
        pol, pp, script, ufn, R, RD = g
    return pol, pp, obs, hand, hlen, fcol, frank, fpts, disc, active, st, rng, script, ufn, cmask, gp


@njit(cache=True, _nrt=False)
def _challenge_roll(p, pp, rng):
    q = pp[p, PP_CHALLENGE]
    if q <= 0.0:
        return 0
    return 1 if rand01_nb(rng) < q else 0


@njit(cache=True, _nrt=False, inline="always")
def _greedy_play(p, nleg, cur, side, obs, hand, cmask):
    """greedy's card: the legal non-wild card with the most points; ties go to a card of the current
    colour, then by symbol (any draw card > Reverse > Skip = Skip Everyone > Flip > numbers), then
    the lowest colour index.  Wilds only when nothing else: an attacking wild before a plain one.  One key
    a card (_greedy_key) and 100 for the current colour; the first of equal keys."""
    best = -1
    bkey = -1
    # unsigned indices: a hand index and a card id are never negative, so no wrap-around code in the loop
    row = np.uint64(_key_row(cmask, side))
    up = np.uint64(p)
    for k in range(nleg):
        w = cmask[row, np.uint64(hand[up, np.uint64(obs[np.uint64(OBS_OPT + OPT_STRIDE * k + 1)])])]
        key = (w >> 3) + (100 if (w & 7) == cur else 0)
        if key > bkey:
            bkey = key
            best = k
    return best


BUILTIN_PLAYS_DRAWN = 1  # random and greedy always play a legal drawn card (D_PLAY_DRAWN)


@njit(cache=True, _nrt=False)
def random_color_nb(rng):
    """``random``'s colour for a wild: uniform over the four."""
    return randint_nb(rng, NCOLORS)


@njit(cache=True, _nrt=False)
def random_or_none_nb(rng, m):
    """``random``'s answer where it may also decline (a response, a jump-in): uniform over the m options and
    'none'; an option index, or -1."""
    k = randint_nb(rng, m + 1)
    return -1 if k == m else k


@njit(cache=True, _nrt=False, inline="always")
def random_nb(kind, p, nopt, nleg, flag, cur, side, dc):
    """``random``: uniform over the options, each card instance one option (see unosim.players.policies).
    D_PLAY bluffs first with probability pp[p, PP_BLUFF] (flag bit 0: a bluff is possible)."""
    pol, pp, obs, hand, hlen, fcol, frank, fpts, disc, active, st, rng, script, ufn, cmask, gp = dc
    if kind == D_PLAY:
        if (flag & 1) != 0 and pp[p, PP_BLUFF] > 0.0:
            if rand01_nb(rng) < pp[p, PP_BLUFF] and nopt > nleg:
                return nleg
        if nleg == 0:
            return -1
        return randint_nb(rng, nleg)
    if kind == D_COLOR:
        return random_color_nb(rng)
    if kind == D_CHALLENGE:
        return _challenge_roll(p, pp, rng)
    if kind == D_RESPOND or kind == D_JUMP_IN:
        return random_or_none_nb(rng, nopt)
    if kind == D_SWAP_TARGET:
        k = randint_nb(rng, nopt + (1 if flag != 0 else 0))
        return k if k < nopt else -1
    if kind == D_GIVE_CARD:
        return randint_nb(rng, nopt)
    return BUILTIN_PLAYS_DRAWN


@njit(cache=True, _nrt=False, inline="always")
def greedy_nb(kind, p, nopt, nleg, flag, cur, side, dc):
    """``greedy`` (see unosim.players.policies): most points first, wilds last; answers every attack it can."""
    pol, pp, obs, hand, hlen, fcol, frank, fpts, disc, active, st, rng, script, ufn, cmask, gp = dc
    if kind == D_PLAY:
        if (flag & 1) != 0 and pp[p, PP_BLUFF] > 0.0:
            if rand01_nb(rng) < pp[p, PP_BLUFF] and nopt > nleg:
                return nleg
        return _greedy_play(p, nleg, cur, side, obs, hand, cmask)
    if kind == D_COLOR:
        return _most_color(p, side, hand, hlen, fcol)
    if kind == D_CHALLENGE:
        return _challenge_roll(p, pp, rng)
    if kind == D_RESPOND or kind == D_JUMP_IN or kind == D_SWAP_TARGET or kind == D_GIVE_CARD:
        return _greedy_rare_nb(np.int64(kind), p, np.int64(nopt), side, obs, hand, hlen, fpts)
    return BUILTIN_PLAYS_DRAWN


@njit(cache=True, _nrt=False)
def _greedy_rare_nb(kind, p, nopt, side, obs, hand, hlen, fpts):
    """greedy_nb's rare decisions, a call rather than compiled into each site that inlines greedy_nb."""
    if kind == D_RESPOND:
        # stack (a Draw Two before a Wild Draw Four), else deflect, else bounce: the first best option
        best = -1
        bpri = 0
        for k in range(nopt):
            pri = obs[OBS_OPT + OPT_STRIDE * k + 2]
            if pri > bpri:
                bpri = pri
                best = k
        return best
    if kind == D_JUMP_IN:
        return 0
    if kind == D_SWAP_TARGET:
        # the opponent with the fewest cards, ties to the nearest in the direction of play
        best = -1
        bkey = 0
        for k in range(nopt):
            key = hlen[obs[OBS_OPT + OPT_STRIDE * k]] * 64 + obs[OBS_OPT + OPT_STRIDE * k + 2]
            if best < 0 or key < bkey:
                bkey = key
                best = k
        return best
    if kind == D_GIVE_CARD:
        best = 0
        for k in range(1, nopt):
            if fpts[side, hand[p, _opt_index(obs, k)]] > fpts[side, hand[p, _opt_index(obs, best)]]:
                best = k
        return best
    return 1


@njit(cache=True, _nrt=False)
def _find_option_kind(p, v, nopt, side, obs, hand, fcol, frank):
    """First option whose card has kind v (scripts name kinds)."""
    for k in range(nopt):
        if _kind_of(hand[p, _opt_index(obs, k)], side, fcol, frank) == v:
            return k
    return -1


@njit(cache=True, _nrt=False)
def scripted_nb(kind, p, nopt, flag, side, obs, hand, fcol, frank, script, st):
    """``scripted``: the next script entry (see unosim.running.scenario); a refused answer sets ST_ERR = 1."""
    v = _script_next(script, st)
    if kind == D_PLAY or kind == D_RESPOND or kind == D_JUMP_IN:
        if v < 0:
            return -1
        k = _find_option_kind(p, v, nopt, side, obs, hand, fcol, frank)
        if k < 0:
            st[ST_ERR] = 1
        return k
    if kind == D_COLOR:
        if v < 0 or v >= NCOLORS:
            st[ST_ERR] = 1
            return 0
        return v
    if kind == D_SWAP_TARGET:
        if v == -1 and flag != 0:
            return -1
        for k in range(nopt):
            if obs[OBS_OPT + OPT_STRIDE * k] == v:
                return k
        st[ST_ERR] = 1
        return -1
    if kind == D_GIVE_CARD:
        k = _find_option_kind(p, v, nopt, side, obs, hand, fcol, frank)
        if k < 0:
            st[ST_ERR] = 1
            return 0
        return k
    return 1 if v == 1 else 0  # D_PLAY_DRAWN, D_CHALLENGE


@njit(cache=True, _nrt=False)
def none_ok_nb(kind, flag):
    """Whether -1 is an accepted answer: draw (D_PLAY, unless flag bit 1: voluntary_draw=false with a
    legal card), take (D_RESPOND), don't (D_JUMP_IN), nobody (D_SWAP_TARGET when optional)."""
    if kind == D_PLAY:
        return (flag & 2) == 0
    if kind == D_SWAP_TARGET:
        return flag != 0
    return kind == D_RESPOND or kind == D_JUMP_IN


@njit(cache=True, _nrt=False)
def forced_nb(kind, p, nopt, nleg, flag, cur, side, gp):
    """A rollout's seat (unosim.players.lookahead): the answers queued in st[ST_FORCE:] for its first decisions
    (each for one decision kind; the queue is dropped at the first decision of another kind), then the
    policy st[ST_FORCE_BASE], which it becomes in ``pol`` (so that the fast turns play its turns): a built-in
    as soon as its last queued answer is given (its next turn is then a fast turn, not one of the full loop,
    with the same answers), a policy of the slot at its first decision after them."""
    dc = decision_ctx(deref(gp), gp)
    pol, pp, obs, hand, hlen, fcol, frank, fpts, disc, active, st, rng, script, ufn, cmask, gp = dc
    k = st[ST_FORCE_POS]
    if k < st[ST_FORCE_N]:
        if st[ST_FORCE + 2 * k] == kind:
            v = st[ST_FORCE + 2 * k + 1]
            st[ST_FORCE_POS] = k + 1
            if v >= 0 and v < nopt or (v == -1 and none_ok_nb(kind, flag)):
                if k + 1 == st[ST_FORCE_N] and st[ST_FORCE_BASE] <= POL_GREEDY:
                    pol[p] = st[ST_FORCE_BASE]  # its last answer: the fast turns play its next turn
                return v
        st[ST_FORCE_N] = 0
    # the queue is spent: from here on the seat is its base policy, whose turns the fast turns play (the
    # rollout sets pol[p] back to POL_FORCED for its next playout)
    pol[p] = st[ST_FORCE_BASE]
    if st[ST_FORCE_BASE] == POL_GREEDY:
        return greedy_nb(kind, p, nopt, nleg, flag, cur, side, dc)
    if st[ST_FORCE_BASE] == POL_RANDOM:
        return random_nb(kind, p, nopt, nleg, flag, cur, side, dc)
    return -1  # a policy of the slot: slot_policy_nb asks it


@njit(cache=True, _nrt=False)
def slot_policy_nb(kind, p, nopt, nleg, flag, cur, side, n, gp):
    """Every policy but random and greedy: scripted, or one called through the slot ``ufn`` with its
    observation; an answer outside the options ends the round with a policy error (ST_ERR = 2)."""
    dc = decision_ctx(deref(gp), gp)
    pol, pp, obs, hand, hlen, fcol, frank, fpts, disc, active, st, rng, script, ufn, cmask, gp = dc
    pid = pol[p]
    if pid == POL_SCRIPTED:
        return scripted_nb(kind, p, nopt, flag, side, obs, hand, fcol, frank, script, st)
    if st[ST_ERR] != 0:
        # the round is ending (a seat paused, or a policy erred): the decisions still asked on the way out
        # neither build an observation (a paused seat's is in obs) nor call a policy
        return -1 if none_ok_nb(kind, flag) or kind == D_SWAP_TARGET else 0
    if pid == POL_FORCED:
        v = forced_nb(kind, p, nopt, nleg, flag, cur, side, gp)
        if pol[p] < POL_SLOT:  # a queued answer, or the answer of its built-in base policy
            return v
        pid = pol[p]  # its base is a policy of the slot (lookahead's expert playouts): asked below
    ok_none = none_ok_nb(kind, flag)
    if pid == POL_EXTERNAL:
        # a plain-Python seat: its answers so far are queued in ``script``; at the first decision
        # without one the round pauses with this decision's observation in obs (ST_ERR = 3)
        k = st[ST_SCRIPT_POS]
        if k >= script.shape[0]:
            build_obs_nb(kind, p, nopt, nleg, ok_none, cur, side, n, dc)
            st[ST_ERR] = 3
            st[ST_ERR_KIND] = kind
            st[ST_ERR_SEAT] = p
            st[ST_ERR_VAL] = st[ST_LOG_N]  # events logged before this decision (unosim trace)
            return -1 if ok_none or kind == D_SWAP_TARGET else 0
        st[ST_SCRIPT_POS] = k + 1
        return _checked_answer(kind, p, nopt, ok_none, script[k], st)
    return ask_slot_nb(kind, p, pid, nopt, nleg, ok_none, cur, side, n, dc)


@njit(cache=True, _nrt=False, inline="always")
def ask_slot_nb(kind, p, pid, nopt, nleg, ok_none, cur, side, n, dc):
    """A policy of the slot (pid >= POL_SLOT) answers: its observation, the call, the check.  Inlined in
    slot_policy_nb and at the play decision of the fast turns (the hot one: there a call of slot_policy_nb
    with the arrays by value cost about as much as the observation)."""
    pol, pp, obs, hand, hlen, fcol, frank, fpts, disc, active, st, rng, script, ufn, cmask, gp = dc
    build_obs_nb(kind, p, nopt, nleg, ok_none, cur, side, n, dc)
    return _checked_answer(kind, p, nopt, ok_none, ufn(pid - POL_SLOT, kind, obs, pp[p], rng), st)


@njit(cache=True, _nrt=False)
def _checked_answer(kind, p, nopt, ok_none, v, st):
    """v if it is an answer among the options; else the round ends with a policy error (ST_ERR = 2)."""
    if v < -1 or v >= nopt or (v == -1 and not ok_none):
        if st[ST_ERR] == 0:
            st[ST_ERR] = 2
            st[ST_ERR_KIND] = kind
            st[ST_ERR_VAL] = v
            st[ST_ERR_SEAT] = p
        return -1 if ok_none or kind == D_SWAP_TARGET else 0
    return v


@njit(cache=True, _nrt=False, inline="always")
def decide_nb(kind, p, nopt, nleg, flag, cur, side, n, dc):
    """Seat p's answer to decision ``kind`` over the nopt options in obs: an option index, or -1."""
    pol, pp, obs, hand, hlen, fcol, frank, fpts, disc, active, st, rng, script, ufn, cmask, gp = dc
    if pol[p] <= POL_GREEDY:
        return _builtin_nb(kind, p, nopt, nleg, flag, cur, side, dc)
    return _not_builtin_nb(kind, p, nopt, nleg, flag, cur, side, n, dc)


@njit(cache=True, _nrt=False, inline="always")
def _not_builtin_nb(kind, p, nopt, nleg, flag, cur, side, n, dc):
    """decide_nb for a seat that is neither random nor greedy: slot_policy_nb, with int64 casts (one
    compiled slot_policy_nb, not one per call site's literal kind and counts)."""
    pol, pp, obs, hand, hlen, fcol, frank, fpts, disc, active, st, rng, script, ufn, cmask, gp = dc
    return slot_policy_nb(np.int64(kind), p, np.int64(nopt), np.int64(nleg), np.int64(flag), cur, side, n, gp)


@njit(cache=True, _nrt=False, inline="always")
def decide_cold_nb(kind, p, nopt, nleg, flag, cur, side, n, dc):
    """decide_nb as one shared call, for the decisions off the hot paths (challenges, responses, jump-ins,
    given cards; in the big loop of play_round_nb also the colours and a drawn card), so that random_nb
    and greedy_nb are not compiled into each of them.  Only the fast turns' decisions, the big loop's
    play and the swap target keep decide_nb inlined.  Each inlined copy costs seconds of cold compile:
    numba inlines at the level of its own IR, re-reading the callee's bytecode at every site, and the
    big loop's type inference and SSA grow faster than its size.  The big loop's colour and drawn-card
    decisions as calls measured neutral to faster (seven_zero, whose every turn is in the big loop:
    median 1.09x of before over 5 interleaved pairs).  The int64 casts: numba compiles a non-inlined
    function once per combination of literal arguments, and the sites pass literal kinds and counts."""
    pol, pp, obs, hand, hlen, fcol, frank, fpts, disc, active, st, rng, script, ufn, cmask, gp = dc
    return _decide_call_nb(np.int64(kind), np.int64(p), np.int64(nopt), np.int64(nleg), np.int64(flag),
                           np.int64(cur), np.int64(side), np.int64(n), gp)


@njit(cache=True, _nrt=False)
def _decide_call_nb(kind, p, nopt, nleg, flag, cur, side, n, gp):
    dc = decision_ctx(deref(gp), gp)
    pol, pp, obs, hand, hlen, fcol, frank, fpts, disc, active, st, rng, script, ufn, cmask, gp = dc
    return decide_nb(kind, p, nopt, nleg, flag, cur, side, n, dc)


@njit(cache=True, _nrt=False, inline="always")
def _choose_color(p, cur, side, n, dc):
    """decide_nb for D_COLOR, with only the built-ins' colour rules inlined (random_color_nb, _most_color),
    not the whole of random_nb and greedy_nb: the fast turns' plain wilds."""
    pol, pp, obs, hand, hlen, fcol, frank, fpts, disc, active, st, rng, script, ufn, cmask, gp = dc
    pid = pol[p]
    if pid == POL_RANDOM:
        return random_color_nb(rng)
    if pid == POL_GREEDY:
        return _most_color(p, side, hand, hlen, fcol)
    return _not_builtin_nb(D_COLOR, p, NCOLORS, NCOLORS, 0, cur, side, n, dc)


@njit(cache=True, _nrt=False, inline="always")
def _choose_color_cold(p, cur, side, n, dc):
    """_choose_color as the shared call of decide_cold_nb: the big loop's colours (a Wild Draw Four, the
    starting card, Flip's revealed wild), which come far less often than the fast turns' plain wilds."""
    pol, pp, obs, hand, hlen, fcol, frank, fpts, disc, active, st, rng, script, ufn, cmask, gp = dc
    return decide_cold_nb(D_COLOR, p, NCOLORS, NCOLORS, 0, cur, side, n, dc)


@njit(cache=True, _nrt=False, inline="always")
def _play_drawn_cold(p, cur, side, n, dc):
    """_play_drawn as the shared call of decide_cold_nb, for the big loop."""
    pol, pp, obs, hand, hlen, fcol, frank, fpts, disc, active, st, rng, script, ufn, cmask, gp = dc
    return decide_cold_nb(D_PLAY_DRAWN, p, 2, 2, 0, cur, side, n, dc) == 1


@njit(cache=True, _nrt=False)
def _wants_challenge(p, cur, side, n, gp):
    dc = decision_ctx(deref(gp), gp)
    pol, pp, obs, hand, hlen, fcol, frank, fpts, disc, active, st, rng, script, ufn, cmask, gp = dc
    return decide_cold_nb(D_CHALLENGE, p, 2, 2, 0, cur, side, n, dc) == 1


@njit(cache=True, _nrt=False, inline="always")
def _play_drawn(p, cur, side, n, dc):
    """decide_nb for D_PLAY_DRAWN, for the fast turns: random and greedy answer BUILTIN_PLAYS_DRAWN
    without being inlined here."""
    pol, pp, obs, hand, hlen, fcol, frank, fpts, disc, active, st, rng, script, ufn, cmask, gp = dc
    if pol[p] <= POL_GREEDY:
        return BUILTIN_PLAYS_DRAWN == 1
    return _not_builtin_nb(D_PLAY_DRAWN, p, 2, 2, 0, cur, side, n, dc) == 1


@njit(cache=True, _nrt=False)
def _choose_target(p, d, optional, cur, side, n, gp):
    """Whom seat p swaps with (7 under seven_zero, 0 under zero_swap_any, 5).  -1 = nobody (optional).
    Options: the other seats in the round in seat order; info = distance in the direction of play."""
    dc = decision_ctx(deref(gp), gp)
    pol, pp, obs, hand, hlen, fcol, frank, fpts, disc, active, st, rng, script, ufn, cmask, gp = dc
    m = 0
    for s in range(n):
        if s != p and active[s]:
            obs[OBS_OPT + OPT_STRIDE * m] = s
            obs[OBS_OPT + OPT_STRIDE * m + 1] = s
            obs[OBS_OPT + OPT_STRIDE * m + 2] = ((s - p) * d) % n
            m += 1
    # decide_nb inlined here, not decide_cold_nb: this function is already the call that keeps the rare
    # decision out of the big loop (a second call cost about 40 ns a swap)
    k = decide_nb(D_SWAP_TARGET, p, m, m, np.int64(1 if optional else 0), cur, side, n, dc)
    return -1 if k < 0 else obs[OBS_OPT + OPT_STRIDE * k]


@njit(cache=True, _nrt=False, inline="always")
def _match_choice(q, want_rank, want_col, cur, side, n, dc):
    """Index of a card of exactly (want_col, want_rank) that q plays out of turn, or -1 (jump-in).
    Options: q's identical cards in hand order; nobody without one is asked.  Inlined: the jump-in window
    scans every other seat on every turn, and a call with 13 array arguments (about 2 ns each) cost more
    than the scan; only the rare decision is a call (decide_cold_nb)."""
    pol, pp, obs, hand, hlen, fcol, frank, fpts, disc, active, st, rng, script, ufn, cmask, gp = dc
    cnt = 0
    for i in range(hlen[q]):
        c = hand[q, i]
        if frank[side, c] == want_rank and fcol[side, c] == want_col:
            obs[OBS_OPT + OPT_STRIDE * cnt + 1] = i
            cnt += 1
    if cnt == 0:
        return -1
    k = decide_cold_nb(D_JUMP_IN, q, cnt, cnt, 0, cur, side, n, dc)
    return -1 if k < 0 else _opt_index(obs, k)


@njit(cache=True, _nrt=False, inline="always")
def _response_priority(q, c, pend_kind, cur, top_col, side, hand, hlen, fcol, frank, flags):
    """How card c of victim q may answer the pending attack: 0 not at all, 4 stack a Draw Two,
    3 stack a Wild Draw Four, 2 deflect (4.6-4.8), 1 bounce with a Reverse (4.9).  A card answering here
    must carry a bit of _answer_mask, the fast turns' test (tests: test_answer_mask_covers_every_answer).

    flags: 1 stacking, 2 stack_draw_two, 4 stack_wd4, 8 stack_mixed, 16 deflect_skip,
    32 deflect_draw_two, 64 deflect_wd4, 128 reverse_bounce, 256 bounce any action (not only
    Draw Two), 512 bounce needs the matching colour, 1024 Invisibility Wild blocks; bits 11-12 the Wild
    Draw Four restriction (a stacked one must be legal too), bits 16+ the rank of the top card."""
    rk = frank[side, c]
    col = fcol[side, c]
    pend_colored_draw = pend_kind >= 0 and _DRAW_N[pend_kind] > 0 and not _IS_WDRAW[pend_kind] \
        and pend_kind != DANCING_WILD
    pend_wild_draw = pend_kind >= 0 and _IS_WDRAW[pend_kind]
    if _DRAW_N[rk] > 0 and col != BLACK:
        # a coloured draw card (Draw Two; Flip's Draw One / Draw Five; Harry Potter's Draw Three)
        if pend_kind == rk:
            if (flags & 3) == 3:
                return 4
            if flags & 32:
                return 2
        elif pend_wild_draw and col == cur and pend_kind != WILD_DRAW_COLOR:
            if (flags & 9) == 9:
                return 4
            if flags & 64 and rk == DRAW2:
                return 2
        return 0
    if _IS_WDRAW[rk]:
        if rk != WILD_DRAW_COLOR and flags & 1 and \
                ((pend_kind == rk and flags & 4) or (pend_colored_draw and flags & 8)):
            if not _is_wd4_guilty(q, side, hand, hlen, fcol, frank, cur, flags >> 16, (flags >> 11) & 3):
                return 3
        return 0
    if rk == SKIP:
        # deflect_skip (docs/rules.md 4.6): only exactly the same card saves the target of a Skip, so a Skip of
        # the top card's colour deflects a Skip (top rank, flags >> 16), never a Reverse that acts as a
        # Skip with two players (1.17): that card is a Reverse, and no Skip is the same card as it
        if pend_kind == SKIP and flags & 16 and col == top_col and (flags >> 16) == SKIP:
            return 2
        return 0
    if rk == INVIS_WILD:
        # Harry Potter (docs/rules.md 3.3, placeholder): cancels a Skip, Draw Three, Wild Draw Four or Howler
        if flags & 1024 and (pend_kind == SKIP or pend_kind == DRAW3 or pend_kind == WD4 or pend_kind == HOWLER):
            return 2
        return 0
    if rk == REVERSE and flags & 128:
        if pend_colored_draw or (flags & 256 and (pend_kind == SKIP or pend_wild_draw)):
            if not (flags & 512) or col == cur:
                return 1
    return 0


@njit(cache=True, _nrt=False)
def _response_choice(q, pend_kind, top_col, flags, cur, side, n, gp):
    """Index of the card victim q answers a pending attack with, or -1 to take it.  Options: every
    card that may answer, in hand order, info = its _response_priority; nobody without one is asked.

    random: uniform over 'take' and every eligible card instance.  greedy: always answers when it
    can: stack (a Draw Two before a Wild Draw Four), else deflect, else bounce."""
    dc = decision_ctx(deref(gp), gp)
    pol, pp, obs, hand, hlen, fcol, frank, fpts, disc, active, st, rng, script, ufn, cmask, gp = dc
    cnt = 0
    for i in range(hlen[q]):
        pri = _response_priority(q, hand[q, i], pend_kind, cur, top_col, side, hand, hlen, fcol, frank,
                                 flags)
        if pri > 0:
            obs[OBS_OPT + OPT_STRIDE * cnt + 1] = i
            obs[OBS_OPT + OPT_STRIDE * cnt + 2] = pri
            cnt += 1
    if cnt == 0:
        return -1  # nothing to answer with: not even a scripted seat is asked
    k = decide_cold_nb(D_RESPOND, q, cnt, cnt, 0, cur, side, n, dc)
    return -1 if k < 0 else _opt_index(obs, k)


@njit(cache=True, _nrt=False)
def _give_index(q, cur, side, n, gp):
    """Hand index of the card q hands over in a one-for-one exchange (options: every card of q)."""
    dc = decision_ctx(deref(gp), gp)
    pol, pp, obs, hand, hlen, fcol, frank, fpts, disc, active, st, rng, script, ufn, cmask, gp = dc
    for i in range(hlen[q]):
        obs[OBS_OPT + OPT_STRIDE * i + 1] = i
    k = decide_cold_nb(D_GIVE_CARD, q, hlen[q], hlen[q], 0, cur, side, n, dc)
    return _opt_index(obs, max(k, 0))


@njit(cache=True, _nrt=False)
def _exchange_one(a, b, cur, side, n, gp):
    """swap_on_five one_card_each_own_choice: a and b each give one card of their own choice.  Returns the
    cards given by a and by b (-1, -1 when a hand is empty)."""
    dc = decision_ctx(deref(gp), gp)
    pol, pp, obs, hand, hlen, fcol, frank, fpts, disc, active, st, rng, script, ufn, cmask, gp = dc
    if hlen[a] == 0 or hlen[b] == 0:
        return -1, -1
    ia = _give_index(a, cur, side, n, gp)
    ib = _give_index(b, cur, side, n, gp)
    t = hand[a, ia]
    hand[a, ia] = hand[b, ib]
    hand[b, ib] = t
    return t, hand[a, ia]
