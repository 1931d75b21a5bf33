"""The compiled core's entry kernels: many rounds (play_batch_nb), many matches (play_match_batch_nb), one round
(play_one_nb) and one round step by step (steps_nb).
Every kernel of the core takes and returns only arrays and scalars.

Layout (vectorbt-style): ``*_nb`` functions are module-level ``@njit(cache=True)`` kernels, one module a concern,
each importing only the ones before it:

* ``layout``: where a round keeps its state (the slots of st, res, R and RD; card-mask bits; rank tables);
* ``rng_nb``: random numbers;  ``hands_nb``: hands, piles, draws, held counts, voids;
* ``rules_nb``: the rules unpacked, and what a rank does under them;
* ``cards_nb``: card masks, greedy's order, the legality scan;  ``observe_nb``: what the seats know;
* ``decide_nb``: the one policy interface (random, greedy, scripted, the slot);
* ``jump_nb``: the jump-in window;  ``swaps_nb``: swaps and passes of hands;
* ``turns_nb``: the fast turns;  ``round_nb``: one round, step by step (play_round_nb);
* ``pairing_nb``: UNO Flip's faces paired per game;  this module: the entries (``jit``: the policy slot's type and
  the entries' lazy compilation).

``play_round_nb`` plays one complete round on preallocated buffers; ``play_batch_nb`` runs many
rounds in parallel.  Every round draws its randomness from its own stream, seeded from
``(master_seed, global_game_index)``, so results do not depend on thread count or batch size.

Game state
----------
* ``hand[seat, i]`` for ``i < hlen[seat]``: physical card ids in each hand.
* ``pile[:st[ST_PILE_N]]``: the draw pile, top at the end.  ``disc[:st[ST_DISC_N]]``: discard, top at
  the end.  Cards are conserved: hands + pile + discard is always the whole deck.
* Everything else a round carries from step to step (colour, direction, the pending attack, the active
  side, the counters) lives in named slots of ``st`` (ST_SIDE ...), never on cards: a round is its arrays.
* The rules are unpacked once per batch into R / RD (rules_nb), every switch by name (R_*, RD_*).

One round (play_round_nb) is a loop over the steps of a turn, each a function of its own: the jump-in
window, the response window (with the one challenge resolution, _challenge), the normal turn, laying a
card, an emptied hand, the UNO call, the card's effect (swaps in _swap_with, once for 7, 0 and 5), Flip,
the end.  The common turns run in _fast_turns_nb.

Turn structure (docs/rules.md 5.1): a play resolves into a *pending attack* on the next player (Skip,
Draw Two, Wild Draw Four ...).  At the start of the victim's turn a response window opens
(challenge, stack, deflect, bounce, jump-in); with nothing played, the attack resolves: the victim
draws and loses the turn.  Taking a penalty is not a turn; a play or a draw is.

Decisions (unosim.players.policy_api documents the interface): the kernel writes the options of every
decision it asks (D_PLAY, D_COLOR, ...) into ``obs[OBS_OPT:]`` and calls ``decide_nb``, the one place
that dispatches on the policy id: ``random_nb`` / ``greedy_nb`` inline, ``scripted_nb``, the queued
answers of plain-Python seats (the round pauses when a queue runs dry), or the function slot ``ufn``
(heuristics and user numba policies, with the observation built by ``build_obs_nb``).  Answers are
checked against the options.

Inlining: a small helper is a plain ``@njit`` function, and LLVM inlines it at every call (numba links
the callee into the caller's module before optimising it).  ``inline="always"`` (numba inlining its
own IR) is kept for what LLVM will not inline and what sits on a hot path: the policies' decisions in
the fast turns and the big loop's play, and wrappers that cast literal arguments.  Numba's inlining
re-reads the callee's bytecode at every site, so each such site costs compile time: dropping it from
the small helpers, and calling the big loop's rarer decisions through decide_cold_nb, halved the cold
compile of the round kernel.  Its copy of the callee's IR copied the callee's whole scope once per
block; inline_patch (installed on import) copies it once: the same IR in less time.  The assembly of
a kernel compiled afresh (``inspect_asm``) shows which helpers stay calls; a helper that grows past
LLVM's inlining threshold (draw_card_nb with its reshuffle did) must move its rare part into a call of
its own.
"""

from __future__ import annotations

import numpy as np
from numba import njit, types

from . import (
    cards_nb,
    decide_nb,
    hands_nb,
    jit,
    jump_nb,
    layout,
    observe_nb,
    pairing_nb,
    rng_nb,
    round_nb,
    rules_nb,
    swaps_nb,
    turns_nb,
)
from .by_ref import keep, ref
from .cards_nb import new_card_masks_nb
from .enums import *  # noqa: F403  (kernels read the integer constants as globals)
from .hands_nb import _nxt
from .jit import F1, F2, I1, I2, SLOT, SLOT_SIG, LazyKernels, _sig, i8
from .layout import *  # noqa: F403  (the kernels read the slots and switches as globals)
from .pairing_nb import pair_game_nb, pairing_space_nb
from .rng_nb import _GOLDEN, _S32, game_seed_nb, mix64_nb, randint_nb
from .round_nb import play_round_nb, workspace_nb
from .rules_nb import new_rules_nb

entry = LazyKernels(globals())  # the entry kernels below, compiled on first use (jit.LazyKernels)


# ================================================================================================
# Many rounds / many matches (one thread each call; the Python layer runs batches on a thread
# pool with the GIL released)
# ================================================================================================
_SEAT_SALT = np.uint64(0x5EA7C0DE5EA7C0DE)


@njit(cache=True, _nrt=False)
def _note_policy_error(g, who, st, o_err):
    o_err[0] = g
    o_err[1] = who
    o_err[2] = st[ST_ERR_KIND]
    o_err[3] = st[ST_ERR_VAL]


@njit(cache=True, _nrt=False)
def seat_map_nb(seating, g, seed, n, pol, pp, seatmap, polg, ppg):
    """Which entry of the policy list sits in each seat for game/match g.

    seating 0 fixed (entry s in seat s), 1 rotate (entry (s + g) mod n: over any n consecutive games
    every policy plays every seat once), 2 shuffle (a uniform permutation from its own stream)."""
    for s in range(n):
        seatmap[s] = s
    if seating == 1:
        for s in range(n):
            seatmap[s] = (s + g) % n
    elif seating == 2:
        h = game_seed_nb(seed ^ _SEAT_SALT, np.uint64(g))
        for i in range(n - 1, 0, -1):
            h = mix64_nb(h + _GOLDEN)
            j = np.int64(((h >> _S32) * np.uint64(i + 1)) >> _S32)
            t = seatmap[i]
            seatmap[i] = seatmap[j]
            seatmap[j] = t
    for s in range(n):
        polg[s] = pol[seatmap[s]]
        for k in range(pp.shape[1]):
            ppg[s, k] = pp[seatmap[s], k]


@entry(_sig(i8, i8, types.uint64, i8, I2, I2, I2, I1, F1, I1, F2, i8, i8, types.int16[::1], types.int32[::1],
           types.int32[::1], types.int32[::1], types.int8[::1], types.int32[::1], types.int32[:, ::1],
           types.int32[:, ::1], types.int16[::1], I1, I1, SLOT), cache=True, nogil=True)
def play_batch_nb(game0, ngames, seed, n, fcol, frank, fpts, ri, rf, pol, pp, seating, pairing,
                  o_winner, o_turns, o_wpts, o_drawn, o_end, o_reshuf, o_hpts, o_extra, o_wpol, o_err, obs, ufn):
    """Play rounds with global indices game0 .. game0+ngames-1 into the output arrays (row 0 = game0).

    Each round is seeded from (seed, global index) alone, so results are identical for any number
    of threads, any batch size and any split of a run.  o_wpol: the winner's index in the policy
    list (differs from the seat under rotating or shuffled seating).  o_err: the first policy error,
    (game, policy index, decision, value), left alone when there is none.  ``obs``: the decisions'
    options and observations (enums.obs_size(cards) entries; after an exception raised by a policy it
    still names the decision and the seat).  ``ufn``: the policy slot
    (unosim.players.policy_api builds it; ``no_slot_nb`` when every seat is random, greedy or scripted).
    """
    hand, hlen, pile, disc, lg, tmp, active, st, rng, log, order, script, res, seatmap = \
        workspace_nb(n, fcol.shape[1])
    polg = pol.copy()
    ppg = pp.copy()
    gcol = fcol.copy()
    grank = frank.copy()
    gpts = fpts.copy()
    cmask = new_card_masks_nb(gcol, grank, gpts)
    R, RD = new_rules_nb(ri, rf)
    rnd = (hand, hlen, pile, disc, lg, tmp, active, st, rng, log, res, obs, gcol, grank, gpts, cmask, polg, ppg, script,
           ufn, R, RD)
    rp = ref(rnd)  # the round's arrays by address: a call with the tuple passes some 170 words
    space = pairing_space_nb(pairing != 0, fcol, frank, fpts, cmask, pol)  # cmask: still the deck's
    for g in range(ngames):
        gi = game0 + g
        if seating != 0:
            seat_map_nb(seating, gi, seed, n, pol, pp, seatmap, polg, ppg)
        if pairing != 0:
            pair_game_nb(g, gi, seed, space, gcol, grank, gpts, cmask)
        rng[0] = game_seed_nb(seed, np.uint64(gi))
        for s in range(n):
            active[3 * n + s] = 1
        # np.int64(-1), not a bare -1: a literal argument makes numba compile a second play_round_nb
        # (specialised on first == -1) instead of sharing play_one_nb's and play_match_batch_nb's
        w = play_round_nb(n, n - 1, np.int64(-1), order, rp)
        if res[RES_END] == END_POLICY and o_err[0] < 0:
            _note_policy_error(gi, seatmap[st[ST_ERR_SEAT]] if seating != 0 else st[ST_ERR_SEAT], st, o_err)
        o_winner[g] = w
        o_wpol[g] = -1 if w < 0 else (seatmap[w] if seating != 0 else w)
        o_turns[g] = res[RES_TURNS]
        o_wpts[g] = res[RES_WPTS]
        o_drawn[g] = res[RES_DRAWN]
        o_end[g] = res[RES_END]
        o_reshuf[g] = res[RES_RESHUF]
        for s in range(n):
            o_hpts[g, s] = res[RES_HPTS + s]
        for k in range(o_extra.shape[1]):
            o_extra[g, k] = res[RES_CHALLENGES + k]
    keep(rnd)  # the rounds' arrays live until here: rp points at them (by_ref)




@njit(cache=True, _nrt=False)
def _lazy_dealer_nb(w, n, pts, seated, tie_random, rng):
    """Lazy scoring (docs/rules.md 4.11): the seat that deals after a round won by w, the highest points left
    in hand.  Ties: with ``tie_random`` (lazy_tie_break=random, the specification's default) one of the
    tied seats drawn uniformly from the round's own stream ``rng`` (the next round reseeds it, so the draw
    changes nothing else and depends on no thread count); otherwise the first tied seat clockwise from w."""
    lo = -1
    ties = 0
    s = w
    for _ in range(n - 1):
        s = _nxt(s, 1, n, seated)
        if lo < 0 or pts[s] > pts[lo]:
            lo = s
            ties = 1
        elif pts[s] == pts[lo]:
            ties += 1
    if ties > 1 and tie_random:
        k = randint_nb(rng, ties)
        s = w
        for _ in range(n - 1):
            s = _nxt(s, 1, n, seated)
            if pts[s] == pts[lo]:
                if k == 0:
                    return s
                k -= 1
    return lo


# ---- one match's state (ms) between its rounds --------------------------------------------------------
MS_DEALER = 0        # who deals the next round
MS_FIRST = 1         # who acts first in it (-1: the dealer's left)
MS_ROUNDS = 2        # rounds played
MS_TURNS = 3         # turns played
MS_WINNER = 4        # the match's winner, once it is over
MS_DONE = 5          # 1 once the scoring mode ended the match
NMS = 6


@njit(cache=True, _nrt=False)
def new_match_nb(n, ms, scores, rwins, seated):
    """A match before its first round: no score, every seat in, the last seat deals."""
    for s in range(n):
        scores[s] = 0
        rwins[s] = 0
        seated[s] = 1
    ms[MS_DEALER] = n - 1
    ms[MS_FIRST] = -1
    ms[MS_ROUNDS] = 0
    ms[MS_TURNS] = 0
    ms[MS_WINNER] = -1
    ms[MS_DONE] = 0


@njit(cache=True, _nrt=False)
def match_round_seed_nb(m, seed, n, mi, ms, scores, obs, rng):
    """Round ms[MS_ROUNDS] of match m: its random stream, seeded from (seed, m * 65536 + round), and the
    match scores in the observation (a team's score for each of its seats)."""
    rng[0] = game_seed_nb(seed, np.uint64(m * 65536 + ms[MS_ROUNDS]))
    half = n // 2
    for s in range(n):
        obs[OBS_SCORE + s] = scores[s % half] if mi[MI_PARTNERS] != 0 else scores[s]


@njit(cache=True, _nrt=False)
def score_match_round_nb(w, wpts, turns, n, mi, R, ms, scores, pts, rwins, seated, rng):
    """The match after a round won by seat w (-1: no winner) worth wpts, with pts[s] the points left in each
    seated hand: the scoring mode scores it and may end the match (ms[MS_DONE], ms[MS_WINNER]); otherwise
    the next dealer and first player.  ``rng``: the round's stream (lazy scoring's tie break)."""
    ms[MS_ROUNDS] += 1
    ms[MS_TURNS] += turns
    if w >= 0:
        rwins[w] += 1
    mode = mi[MI_MODE]
    winner = -1
    if mode == SC_STANDARD:
        winner = _standard_scoring(w, wpts, n, mi, scores, pts)
    elif mode == SC_ROTATING:
        winner = _rotating_scoring(w, n, mi, ms[MS_ROUNDS], scores, pts)
    elif mode == SC_LAZY:
        if w >= 0:
            ms[MS_DEALER] = _lazy_dealer_nb(w, n, pts, seated, R[R_LAZY_RANDOM] != 0, rng)
            ms[MS_FIRST] = w
        if ms[MS_ROUNDS] >= mi[MI_ROUNDS]:
            winner = 0
            for s in range(1, n):
                if rwins[s] > rwins[winner]:
                    winner = s
    else:
        winner = _own_hand_scoring(w, n, mi, ms, scores, pts, seated)
    if winner >= 0:
        ms[MS_WINNER] = winner
        ms[MS_DONE] = 1
        return True
    if mode != SC_LAZY:
        ms[MS_DEALER] = _nxt(ms[MS_DEALER], 1, n, seated)
        ms[MS_FIRST] = -1
    return False


@njit(cache=True, _nrt=False)
def _standard_scoring(w, wpts, n, mi, scores, pts):
    """The winner of the round scores the others' hands; with partners the team scores the other teams'
    hands (docs/rules.md 1.18) into scores[team].  Returns the match's winner once a score reaches the
    target, else -1."""
    if w < 0:
        return -1
    if mi[MI_PARTNERS] != 0:
        half = n // 2
        team = w % half
        gain = 0
        for s in range(n):
            if s % half != team:
                gain += pts[s]
        scores[team] += gain
        return w if scores[team] >= mi[MI_TARGET] else -1
    scores[w] += wpts
    return w if scores[w] >= mi[MI_TARGET] else -1


@njit(cache=True, _nrt=False)
def _rotating_scoring(w, n, mi, rounds, scores, pts):
    """Rotating partners (4 players): seat 0's partner is seat 1, 2, 3 for rounds_per_partner rounds each;
    the round's winning team scores the other team's hands, each seat for itself.  After the fixed number
    of rounds the highest total wins."""
    mate0 = 1 + ((rounds - 1) // mi[MI_PER_PARTNER]) % (n - 1)
    if w >= 0:
        team_w = 0 if (w == 0 or w == mate0) else 1
        gain = 0
        for s in range(n):
            ts = 0 if (s == 0 or s == mate0) else 1
            if ts != team_w:
                gain += pts[s]
        for s in range(n):
            ts = 0 if (s == 0 or s == mate0) else 1
            if ts == team_w:
                scores[s] += gain
    if rounds < mi[MI_ROUNDS]:
        return -1
    best = 0
    for s in range(1, n):
        if scores[s] > scores[best]:
            best = s
    return best


@njit(cache=True, _nrt=False)
def _own_hand_scoring(w, n, mi, ms, scores, pts, seated):
    """Own-hand scoring (self_loser, lowest_wins, elimination): everyone scores the own hand (a capped round
    scores nothing).  Once someone reaches the target: the lowest total wins, or under elimination the
    seats at the target drop out and the last one left wins."""
    reached = False
    for s in range(n):
        if seated[s] and w >= 0:
            scores[s] += pts[s]
            if scores[s] >= mi[MI_TARGET]:
                reached = True
    if not reached:
        return -1
    if mi[MI_MODE] != SC_ELIMINATION:
        best = 0
        for s in range(1, n):
            if scores[s] < scores[best]:
                best = s
        return best
    left = 0
    best = -1
    for s in range(n):
        if seated[s]:
            # among the seats still in, the lowest total (for a joint crossing)
            if best < 0 or scores[s] < scores[best]:
                best = s
            if scores[s] >= mi[MI_TARGET]:
                seated[s] = 0
        left += seated[s]
    if left <= 1:
        for s in range(n):
            if seated[s]:
                best = s  # the last one left wins
        return best
    if not seated[ms[MS_DEALER]]:
        ms[MS_DEALER] = _nxt(ms[MS_DEALER], -1, n, seated)
    return -1


@njit(cache=True, _nrt=False)
def hand_points_nb(n, res, seated, pts):
    """pts[s]: the points left in each seated hand at the end of the round (res[RES_HPTS + s]), 0 for a seat out
    of the match."""
    for s in range(n):
        pts[s] = res[RES_HPTS + s] if seated[s] else 0


@entry(_sig(i8, i8, types.uint64, i8, I2, I2, I2, I1, F1, I1, F2, I1, i8, types.int16[::1], types.int32[::1],
           types.int8[::1], I2, types.int32[:, ::1], types.int16[:, ::1], I1, I1, I2, I1, I1, SLOT),
      cache=True, nogil=True)
def play_match_batch_nb(m0, nmatches, seed, n, fcol, frank, fpts, ri, rf, pol, pp, mi, pairing,
                        o_winner, o_rounds, o_end, o_scores, o_rwins, o_seatmap, o_turns,
                        r_offset, r_out, o_err, obs, ufn):
    """Play full matches m0 .. m0+nmatches-1 (rounds until the scoring mode ends the match).

    Round k of match m is seeded from (seed, m * 65536 + k).  The dealer passes clockwise
    (docs/rules.md 1.3) unless the scoring mode says otherwise.  When r_out has rows, round records are
    written from row r_offset[m - m0]: (match, round, dealer, winner, winner_points, turns, capped).
    """
    hand, hlen, pile, disc, lg, tmp, active, st, rng, log, order, script, res, seatmap = \
        workspace_nb(n, fcol.shape[1])
    polg = pol.copy()
    ppg = pp.copy()
    scores = np.zeros(n, np.int64)
    pts = np.zeros(n, np.int64)
    rwins = np.zeros(n, np.int64)
    ms = np.zeros(NMS, np.int64)
    seated = active[3 * n:]
    half = n // 2
    gcol = fcol.copy()
    grank = frank.copy()
    gpts = fpts.copy()
    cmask = new_card_masks_nb(gcol, grank, gpts)
    R, RD = new_rules_nb(ri, rf)
    rnd = (hand, hlen, pile, disc, lg, tmp, active, st, rng, log, res, obs, gcol, grank, gpts, cmask, polg, ppg, script,
           ufn, R, RD)
    rp = ref(rnd)  # the round's arrays by address: a call with the tuple passes some 170 words
    space = pairing_space_nb(pairing != 0, fcol, frank, fpts, cmask, pol)  # cmask: still the deck's
    for g in range(nmatches):
        m = m0 + g
        seat_map_nb(mi[MI_SEATING], m, seed, n, pol, pp, seatmap, polg, ppg)
        if pairing != 0:
            # physical cards do not change within a game: one pairing per match
            pair_game_nb(g, m, seed, space, gcol, grank, gpts, cmask)
        new_match_nb(n, ms, scores, rwins, seated)
        ro = r_offset[g] if r_out.shape[0] > 0 else 0
        while ms[MS_ROUNDS] < mi[MI_MAX_ROUNDS]:
            match_round_seed_nb(m, seed, n, mi, ms, scores, obs, rng)
            dealer = ms[MS_DEALER]
            w = play_round_nb(n, dealer, np.int64(ms[MS_FIRST]), order, rp)
            if res[RES_END] == END_POLICY and o_err[0] < 0:
                _note_policy_error(m, seatmap[st[ST_ERR_SEAT]], st, o_err)
            if r_out.shape[0] > 0:
                _round_record(m, ms[MS_ROUNDS], dealer, w, res, r_out[ro])
                ro += 1
            hand_points_nb(n, res, seated, pts)
            if score_match_round_nb(w, res[RES_WPTS], res[RES_TURNS], n, mi, R, ms, scores, pts, rwins,
                                    seated, rng):
                break
        o_winner[g] = ms[MS_WINNER]
        o_rounds[g] = ms[MS_ROUNDS]
        o_end[g] = MEND_DONE if ms[MS_DONE] else MEND_ROUND_CAP
        o_turns[g] = ms[MS_TURNS]
        for s in range(n):
            o_scores[g, s] = scores[s % half] if mi[MI_PARTNERS] != 0 else scores[s]
            o_seatmap[g, s] = seatmap[s]
            o_rwins[g, s] = rwins[s]
    keep(rnd)  # the rounds' arrays live until here: rp points at them (by_ref)


@njit(cache=True, _nrt=False)
def _round_record(m, k, dealer, w, res, row):
    """A match's round record: (match, round, dealer, winner, winner_points, turns, capped)."""
    row[0] = m
    row[1] = k
    row[2] = dealer
    row[3] = w
    row[4] = res[RES_WPTS]
    row[5] = res[RES_TURNS]
    row[6] = 1 if res[RES_END] == END_CAP else 0


@entry(SLOT_SIG, cache=True, nogil=True, _nrt=False)
def no_slot_nb(which, kind, obs, params, rng):
    """The slot when no seat uses it (never called: every seat is random, greedy or scripted)."""
    return -2


@entry(types.int64(i8, i8, i8, I1, I2, I2, I2, I1, F1, I1, F2, I1, I2, I1, I1, I1, I1, I1, I1, I1,
                  types.uint64[::1], I2, I1, I1, SLOT), cache=True)
def play_one_nb(n, dealer, first, order, fcol, frank, fpts, ri, rf, pol, pp, script,
                hand, hlen, pile, disc, lg, tmp, active, st, rng, log, res, obs, ufn):
    """play_round_nb with a fixed signature, for calls from Python (scenarios, traces)."""
    cmask = new_card_masks_nb(fcol, frank, fpts)
    R, RD = new_rules_nb(ri, rf)
    g = (hand, hlen, pile, disc, lg, tmp, active, st, rng, log, res, obs, fcol, frank, fpts, cmask, pol, pp, script, ufn,
         R, RD)
    w = play_round_nb(n, dealer, first, order, ref(g))
    keep(g)  # cmask, R and RD are this function's own: they live until the round is over (by_ref)
    return w


# ---- a round in one buffer, stepped from Python (unosim.running.steps): the offsets of its arrays in ``lay`` ----
LAY_HAND = 0
LAY_HLEN = 1
LAY_PILE = 2
LAY_DISC = 3
LAY_LG = 4
LAY_TMP = 5
LAY_ACTIVE = 6
LAY_ST = 7
LAY_RNG = 8
LAY_RES = 9
LAY_OBS = 10
NLAY = 11


def state_sizes(n: int, ncards: int, nobs: int) -> list[int]:
    """Entries of each array of a round in LAY_* order (unosim.running.steps.State lays them out one after another)."""
    return [n * ncards, n, ncards, ncards, ncards, ncards, 4 * n, NST, 1, NRES, nobs]


#: what steps_nb stopped at
STEPS_PAUSED_FIRST = 0  # a decision of a seat played from Python in its first step: the queued answers are still the step's
STEPS_PAUSED_LATER = 1  # such a decision in a later step: the first step was played with the queued answers
STEPS_ROUND_OVER = 2    # the round is over (a win, the cap, a policy's error)

# the State's flags (unosim.running.steps.State), buf[fl:fl+3]: the round is under way, it is over, the decisions
# answered in the round before this step
FL_STARTED = 0
FL_OVER = 1
FL_ANSWERED = 2

NGIVEN = 8  # the answers steps_nb gives itself in one step, at most (then it pauses as for any decision)


@njit(cache=True, _nrt=False)
def single_answer_nb(obs):
    """The one answer the decision in ``obs`` allows (-1 where it has no option and -1 is accepted: a draw
    with nothing to play; 0 where its one option must be taken), or -2 where it allows more than one."""
    if obs[OBS_NOPT] == 0 and obs[OBS_NONE_OK] != 0:
        return -1
    if obs[OBS_NOPT] == 1 and obs[OBS_NONE_OK] == 0:
        return 0
    return -2


@entry(types.int64(i8, i8, i8, I2, I2, I2, I2, I1, F1, I1, F2, I1, I1, I1, I1, i8, i8, I2, SLOT, i8, I1), cache=True)
def steps_nb(n, dealer, first, fcol, frank, fpts, cmask, R, RD, pol, pp, script, buf, start, lay, fl, snapshot, log,
             ufn, auto, given):
    """Play the round whose arrays lie in ``buf`` at the offsets ``lay`` (LAY_*, and lay[NLAY] the end of obs) step
    by step (MODE_STEP; MODE_CONTINUE once under way; ``snapshot``: MODE_SNAPSHOT or 0) until a seat played
    from Python must decide (st[ST_ERR] = 3), or the round is over.  The first step plays with the queued
    answers ``script``, the later ones with none.  Each step starts from a copy of buf in ``start``: at a
    decision, start is its step's start and buf as the engine left it.  The State's flags at buf[fl:fl+3]
    (FL_*) are kept as the steps go.  Returns STEPS_*.  One call from Python per decision, not one per step: a
    call costs several microseconds, more than a turn of the engine.  ``cmask``, ``R``, ``RD``: card_masks_nb's
    and rules_nb's tables.

    With ``auto`` a decision that allows a single answer (single_answer_nb: a draw with nothing to play) is
    answered here, not handed out: the step is played again from its start with that answer queued after the
    step's others, as Python would queue it.  ``given`` (1 + 3 NGIVEN) holds those of the step it stopped in:
    their number, then (seat, decision kind, answer) each, for the caller's queue."""
    nc = fcol.shape[1]
    hand = buf[lay[LAY_HAND]:lay[LAY_HAND] + n * nc].reshape((n, nc))
    hlen = buf[lay[LAY_HLEN]:lay[LAY_HLEN] + n]
    pile = buf[lay[LAY_PILE]:lay[LAY_PILE] + nc]
    disc = buf[lay[LAY_DISC]:lay[LAY_DISC] + nc]
    lg = buf[lay[LAY_LG]:lay[LAY_LG] + nc]
    tmp = buf[lay[LAY_TMP]:lay[LAY_TMP] + nc]
    active = buf[lay[LAY_ACTIVE]:lay[LAY_ACTIVE] + 4 * n]
    st = buf[lay[LAY_ST]:lay[LAY_ST] + NST]
    rng = buf[lay[LAY_RNG]:lay[LAY_RNG] + 1].view(np.uint64)
    res = buf[lay[LAY_RES]:lay[LAY_RES] + NRES]
    obs = buf[lay[LAY_OBS]:lay[NLAY]]
    order = np.zeros(0, np.int64)  # no seat order to keep
    answers = np.empty(script.shape[0] + NGIVEN, np.int64)  # the answers of the step being played
    answers[:script.shape[0]] = script
    na = script.shape[0]  # the first step's are the queued ones, the later steps' none
    given[0] = 0
    played = 0
    again = False  # the step is played again from its start with an answer given here
    while buf[fl + FL_OVER] == 0:
        if not again:
            start[:] = buf
        again = False
        st[ST_MODE] = MODE_STEP | (MODE_CONTINUE if buf[fl + FL_STARTED] != 0 else 0) | snapshot
        g = (hand, hlen, pile, disc, lg, tmp, active, st, rng, log, res, obs, fcol, frank, fpts, cmask, pol, pp,
             answers[:na], ufn, R, RD)
        play_round_nb(n, dealer, first, order, ref(g))
        keep(g)  # the arrays live until the step is over (by_ref)
        if st[ST_ERR] == 3:
            v = single_answer_nb(obs) if auto != 0 and given[0] < NGIVEN else -2
            if v < -1:
                return STEPS_PAUSED_LATER if played > 0 else STEPS_PAUSED_FIRST
            k = given[0]
            given[1 + 3 * k] = st[ST_ERR_SEAT]
            given[2 + 3 * k] = st[ST_ERR_KIND]
            given[3 + 3 * k] = v
            given[0] = k + 1
            answers[na] = v
            na += 1
            buf[:] = start
            again = True
            continue
        buf[fl + FL_ANSWERED] += na
        na = 0
        given[0] = 0
        played += 1
        buf[fl + FL_STARTED] = 1
        buf[fl + FL_OVER] = 1 if res[RES_END] != END_STEP else 0
    return STEPS_ROUND_OVER


entry.unbind()


#: the engine's modules, from the bottom up: the core was this one module once, and code written then finds
#: every name here still (``nb.ST_P``, ``nb.randint_nb``), answered by the module that defines it now
_ENGINE = (jit, layout, rng_nb, hands_nb, rules_nb, cards_nb, observe_nb, decide_nb, jump_nb, swaps_nb, turns_nb, round_nb,
           pairing_nb)


def __getattr__(name: str):
    if name not in entry.specs:
        for mod in _ENGINE:
            if name in vars(mod):
                return vars(mod)[name]
    return entry.get(name)
