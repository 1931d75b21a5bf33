"""``lookahead``: flat Monte Carlo with determinization, on the engine's resumable state.

At each normal-turn play decision (which card to play, or to draw) the player

1. lists its candidate moves: every distinct legal card (two identical cards are one move), each wild
   once per colour it could name, a 7 (or 0, 5) that swaps hands once per seat it could swap with,
   the Wild Draw Four bluffs where the rules allow them, and drawing where drawing is allowed;
2. samples ``rollouts`` *determinizations* of what it cannot see: the cards that are neither in its
   own hand nor on the discard pile are shuffled into the other hands (each keeping its size) and the
   draw pile.  On UNO Flip a card in another hand must keep the back face everyone sees; on a
   one-sided deck a hand gets no card of a colour its seat showed it lacks by drawing for its turn, nor a
   coloured card of the rank it showed it lacks (``obs[OBS_VOIDS]``, ``obs[OBS_RANK_VOIDS]``; ``voids=0``
   turns this off) while the unseen cards allow; and (``reads=1``, the default) each other hand is one that
   fits what that seat's plays showed when read as ``greedy``'s (it lays its top-ranked legal card, so it held
   no legal card ranked above the one it laid, unless it received that card since; :mod:`unosim.players.reads`),
   until its own plays contradict that reading (against three ``greedy`` at 4 players +2.7 points at 300
   rollouts, level against ``random`` and ``expert`` fields: docs/skill.md);
3. for each determinization, plays the round out once per candidate from the copied state (the
   engine's snapshot at this decision, :mod:`unosim.core.nb`), every seat playing the fast built-in
   rollout policy (``greedy``, or ``random`` with ``greedy_rollouts=0``) after the candidate move
   (with ``expert_rollouts=1`` the deciding seat plays ``expert`` there, the others as before: measured
   no stronger and about a third slower, docs/skill.md).
   All candidates of one determinization share its deal and its random stream (common random
   numbers), so their differences are not drowned in the luck of the deal;
4. with more than three candidates, spends a quarter of the budget on all of them and the rest on
   the default move and the two best others (successive halving), judging the finalists on the second
   stage's playouts only.  That last stage is played in eight blocks, and stops after a block once no
   other finalist is likely to be played at its end: each finalist's final gain over the default move is
   predicted from its playouts so far, and the decision stops when every such chance is below ``early``
   (0.05); the default move is then played (``early=0`` plays the whole budget).  At 4 players this plays
   about 40% fewer playouts a decision, level in strength within a few tenths of a point (docs/skill.md);
5. plays the finalist that won most of its playouts *if* it beat the default move by more than ``z``
   standard errors of their paired difference (the playouts of one determinization are pairs);
   otherwise the default move: what ``expert`` would answer (``expert_default=1``, the default), or
   ``greedy`` (``expert_default=0``).  Without that test the noise picks the lucky candidate: with 8
   candidates and 32 rollouts, the plain argmax won 19.7% of rounds against three greedy, gated at
   ``z=1`` 25.2%.  Expert's answer as the default gained 1.3 points against three greedy at 4 players
   and 3.2 against random at 2 (docs/skill.md).

Every other decision with a choice is searched the same way (``every_decision=1``, the default; ``0``
leaves them to the default answer): the colour of a wild played from a drawn card, keeping or playing a drawn card,
challenging a Wild Draw Four, stacking, deflecting or taking an attack, jumping in, the seat to swap
with, the card to give.  Its candidates are the options (identical cards once) and declining where the
decision allows it.  The engine cannot be paused inside a step (unosim.running.steps), so these playouts
start from the start of the decision's step: the seat's earlier answers in the step are given again,
then the candidate, and the cards it drew in the step (which it has seen) are put back on top of the
dealt pile (``pin_draws_nb``) so that the step draws them again.  A decision in the round's first step
(the colour of a starting Wild), or after a draw it did not see, is the default answer's (expert's).

It plays to win the round: in match mode (its matches are played step by step, unosim.running.steps) each
playout still ends with the round, so it is a win-probability player per round that ignores the match
score.

What it may use is exactly what a player at the table knows: its own hand, the discard pile, the
hand sizes, the backs of the other hands on UNO Flip, the public state (top card, colour,
direction, pending attack, turn) and, with ``reads=1``, the public events of the round (who laid what,
who drew how many: never the faces of the cards drawn).  What it learned from a swap, a Howler or a challenge (the
observation's known cards) stays in the hand it knows of, on one-sided decks (on UNO Flip the backs
already constrain every hidden hand; known faces are not used there).  The sampling starts from the
*sorted* list of unseen card ids, so any arrangement of the hidden cards that looks the same to this
seat gives the same decision (``tests/test_lookahead.py`` permutes them).

Cost per decision: ``rollouts`` x candidates playouts of the rest of the round (a few microseconds each
with greedy rollouts on one core).  At the default ``rollouts=300`` it won 32.86% +- 1.03% of 8,000 4-player
rounds against three greedy (fair share 25%; 30.12% with ``reads=0``); ``scripts/study_lookahead.py`` measures
how that grows with the budget.

>>> from unosim import simulate
>>> r = simulate(players=4, policies="lookahead(rollouts=20),greedy,greedy,greedy", games=40, seed=1)
>>> r.summary["games"]
40
"""

from __future__ import annotations

import threading
import time
from statistics import NormalDist

import numpy as np
from numba import njit, types

from ..core import cards_nb, heuristics_nb, jit, layout, rng_nb, round_nb, rules_nb
from ..core import enums as E
from ..core.by_ref import ref
from ..core.enums import NCOLORS, NKINDS, NPP, NRANKS, POL_FORCED
from ..core.jit import I1, I2, SLOT, LazyKernels, i8
from . import reads
from .external import Decision, PythonPolicy, RoundState, known_region, register_class
from .policies import PolicyError, pack_policies, parse_policy

__all__ = ["Lookahead", "candidate_moves", "determinize_nb", "rollouts_nb", "COUNTERS"]


class _Counters:
    """Decisions evaluated (with more than one candidate), playouts played and seconds spent in them, by
    every lookahead seat of this process (``scripts/study_lookahead.py`` reports decisions per second from them)."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.reset()

    def reset(self) -> None:
        self.decisions, self.playouts, self.seconds = 0, 0, 0.0
        self.by_kind: dict[str, int] = {}  # decisions searched, by decision kind

    def add(self, decisions: int, playouts: int, seconds: float, kind: str = "") -> None:
        with self.lock:
            self.decisions += decisions
            self.playouts += playouts
            self.seconds += seconds
            if decisions:
                self.by_kind[kind] = self.by_kind.get(kind, 0) + decisions


COUNTERS = _Counters()


# ------------------------------------------------------------------------------------------------
# Determinization
# ------------------------------------------------------------------------------------------------
@njit(cache=True, _nrt=False)
def _unseen_nb(seat, hand0, hlen0, disc0, disc_n, mark, unseen):
    """The card ids this seat cannot see (not in its hand, not on the discard pile), in id order."""
    ncards = mark.shape[0]
    for c in range(ncards):
        mark[c] = 0
    for i in range(hlen0[seat]):
        mark[hand0[seat, i]] = 1
    for i in range(disc_n):
        mark[disc0[i]] = 1
    k = 0
    for c in range(ncards):
        if mark[c] == 0:
            unseen[k] = c
            k += 1
    return k


@njit(cache=True, _nrt=False)
def _back_nb(c, side, fcol, frank):
    return fcol[1 - side, c] * NRANKS + frank[1 - side, c]


@njit(cache=True, _nrt=False, inline="always")
def _outside_voids(c, void, rank_void, side, fcol, frank):
    """Whether card c may go to a hand whose seat showed it lacks the colours ``void`` (bits) and the coloured
    rank ``rank_void`` (-1: none): a black card always may."""
    col = fcol[side, c]
    return col >= NCOLORS or ((void >> col) & 1 == 0 and frank[side, c] != rank_void)


@njit(cache=True, _nrt=False)
def determinize_nb(seat, n, side, two_sided, fcol, frank, seen, rng, hand, pile, scratch):
    """Deal the unseen cards at random into the other hands (same sizes; on a two-sided deck each hand
    keeps its multiset of visible backs; on a one-sided deck each hand first gets the cards this seat knows
    it holds, ``known[s * NKINDS + kind]``, then no card of a colour it showed it lacks nor a coloured card of
    the rank it showed it lacks, ``voids`` = (enums.OBS_VOIDS, enums.OBS_RANK_VOIDS), while the unseen cards
    allow, and where ``read_rows`` has rows, a hand that fits its seat's row (_deal_read_nb)) and the draw pile.
    Returns False when the cards do not add up.  ``seen``: what the seat's view holds, (hand0, hlen0, pile_n,
    disc0, disc_n, known, voids, read_rows: reads.PlayReader's rows or reads.NO_READS); ``scratch``: (mark,
    unseen, backs, pool, lo, hi), card-, card-, kind-, card- and twice (card + reads.MAXI)-sized."""
    hand0, hlen0, pile_n, disc0, disc_n, known, voids, read_rows = seen
    mark, unseen, backs, pool, lo, hi = scratch
    k = _unseen_nb(seat, hand0, hlen0, disc0, disc_n, mark, unseen)
    rng_nb.shuffle_nb(unseen, k, rng)
    need = pile_n
    for q in range(n):
        if q != seat:
            need += hlen0[q]
    if need != k:
        return False
    for c in range(mark.shape[0]):
        mark[c] = 0  # now: 1 = dealt
    for q in range(n):
        if q == seat or hlen0[q] == 0:
            continue
        if two_sided:
            # this hand's backs as counts, dealt in kind order (the order of a hand is not seen)
            for b in range(backs.shape[0]):
                backs[b] = 0
            for i in range(hlen0[q]):
                backs[_back_nb(hand0[q, i], side, fcol, frank)] += 1
            i = 0
            for b in range(backs.shape[0]):
                m = backs[b]
                j = 0
                while m > 0:
                    c = unseen[j]
                    if mark[j] == 0 and _back_nb(c, side, fcol, frank) == b:
                        mark[j] = 1
                        hand[q, i] = c
                        i += 1
                        m -= 1
                    j += 1
        else:
            i = 0
            nk = 0
            for kd in range(NKINDS):
                nk += known[q * NKINDS + kd]
            for kd in range(NKINDS if nk > 0 else 0):
                m = known[q * NKINDS + kd]
                j = 0
                while m > 0 and j < k and i < hlen0[q]:
                    c = unseen[j]
                    if mark[j] == 0 and fcol[side, c] * NRANKS + frank[side, c] == kd:
                        mark[j] = 1
                        hand[q, i] = c
                        i += 1
                        m -= 1
                    j += 1
            j = 0
            void = (voids[0] >> (4 * q)) & 15
            rank_void = ((voids[1] >> (5 * q)) & 31) - 1
            if read_rows.shape[0] > 0 and i < hlen0[q]:
                i = _deal_read_nb(q, i, hlen0[q], (void, rank_void), (side, fcol, frank), (unseen, k, mark), hand,
                                  read_rows[q], rng, (pool, lo, hi))
            while i < hlen0[q]:
                if j >= k:  # too few unseen cards outside the voids: the rest from any colour and rank
                    void = 0
                    rank_void = -1
                    j = 0
                    continue
                if mark[j] == 0 and _outside_voids(unseen[j], void, rank_void, side, fcol, frank):
                    mark[j] = 1
                    hand[q, i] = unseen[j]
                    i += 1
                j += 1
    i = 0
    for j in range(k):
        if mark[j] == 0:
            pile[i] = unseen[j]
            i += 1
    return True


#: hands dealt at random per seat for one that fits what its plays showed (lookahead's reads=1), before a hand is
#: built card by card (_deal_fitting_nb)
READ_TRIES = 8


@njit(cache=True, _nrt=False)
def _deal_read_nb(q, i, h, voids_q, faces, dealt, hand, row, rng, scratch):
    """Deal hand q's places i..h-1 from the unseen cards not yet dealt, ``dealt`` = (unseen, their number, mark),
    outside its voids ``voids_q`` = (colours, rank) while they allow, one that fits its row of the reading
    (reads.fits_nb): up to READ_TRIES hands at random (the first that fits: a draw from the hands that fit,
    uniform as the deal), then one built card by card.  ``faces``: (side, fcol, frank).  Returns h."""
    pool, lo, hi = scratch
    void, rank_void = voids_q
    side, fcol, frank = faces
    unseen, k, mark = dealt
    ncards = fcol.shape[1]
    m = 0
    for j in range(k):
        if mark[j] == 0 and _outside_voids(unseen[j], void, rank_void, side, fcol, frank):
            pool[m] = j
            m += 1
    need = h - i
    if m < need:
        return i  # too few outside the voids: the caller deals as without the reading
    fits = False
    for _ in range(READ_TRIES):
        for a in range(need):  # a partial shuffle of the pool: its first ``need`` places
            b = a + rng_nb.randint_nb(rng, m - a)
            pool[a], pool[b] = pool[b], pool[a]
            hand[q, i + a] = unseen[pool[a]]
        if reads.fits_nb(row, hand[q], h, ncards, (lo, hi)):
            fits = True
            break
    if not fits:
        _deal_fitting_nb(q, i, need, m, unseen, hand, row, rng, pool, lo, hi, ncards)
    for a in range(need):
        mark[pool[a]] = 1
    return h


@njit(cache=True, _nrt=False)
def _deal_fitting_nb(q, i, need, m, unseen, hand, row, rng, pool, lo, hi, ncards):
    """Hand q's places i..i+need-1 card by card from pool[:m] (unseen indices), each at random among the cards
    with which the hand still fits its row (a card that no turn ruled out always does; a hand that does not fit
    never fits with more cards): the cards drawn go to pool[:need].  Where no card is left that fits, the rest
    at random."""
    top = m  # pool[top:m]: cards that would not fit, set aside
    anything = False
    for a in range(need):
        while True:
            if top <= a:  # nothing left that fits: any card from now on
                anything = True
                top = m
            b = a + rng_nb.randint_nb(rng, top - a)
            pool[a], pool[b] = pool[b], pool[a]
            c = unseen[pool[a]]
            hand[q, i + a] = c
            if anything or row[c] < 0 or reads.fits_nb(row, hand[q], i + a + 1, ncards, (lo, hi)):
                break
            top -= 1
            pool[a], pool[top] = pool[top], pool[a]


@njit(cache=True, _nrt=False)
def _pull_from_hands(seat, n, side, fcol, frank, hlen0, c, below, hand, pile):
    """Card ``c`` is in another hand: it changes places with a pile card among pile[:below], one of its
    visible back where there is one (UNO Flip), else pile[below].  Returns the pile index c now has, or -1
    when no hand holds it."""
    for q in range(n):
        for i in range(hlen0[q] if q != seat else 0):
            if hand[q, i] == c:
                at = below
                for j in range(below):
                    if _back_nb(pile[j], side, fcol, frank) == _back_nb(c, side, fcol, frank):
                        at = j
                        break
                hand[q, i] = pile[at]
                pile[at] = c
                return at
    return -1


@njit(cache=True, _nrt=False)
def pin_draws_nb(seat, n, side, fcol, frank, hlen0, pile_n, pinned, hand, pile):
    """Put the cards ``pinned`` (what this seat drew in the step it decides in: it has seen them) on top
    of the dealt draw pile, the first drawn on top, so that the step played again from its start draws
    them again.  A pinned card dealt into another hand changes places with a pile card, one of the same
    visible back where the pile has one (UNO Flip)."""
    if pinned.shape[0] > pile_n:
        return
    for k in range(pinned.shape[0]):
        c = pinned[k]
        pos = pile_n - 1 - k
        at = -1
        for i in range(pile_n):
            if pile[i] == c:
                at = i
        if at < 0:
            at = _pull_from_hands(seat, n, side, fcol, frank, hlen0, c, pos, hand, pile)
        if at >= 0:
            pile[at] = pile[pos]
            pile[pos] = c


# ------------------------------------------------------------------------------------------------
# Rollouts
# ------------------------------------------------------------------------------------------------
#: the last stage of a decision that may stop early is played in this many blocks (of at least EARLY_MIN
#: determinizations each): after each but the last, _settled_nb may end it
EARLY_BLOCKS = 8
EARLY_MIN = 8


entry = LazyKernels(globals())

# forced[j] = (number of answers, kind 0, answer 0, kind 1, answer 1, ...) of candidate j (layout.NFORCE answers)
_ROLLOUT_SIG = types.int64(i8, i8, I2, I2, I2, I1, types.float64[::1], i8, i8, types.uint64[::1], types.float64, I2,
                           I1, I1, I1, I1, I1, I2, I2, I1, I1, I1, I1, SLOT, i8, I1, i8, types.float64[::1],
                           types.float64, I2)


@entry(_ROLLOUT_SIG, cache=True, nogil=True)
def rollouts_nb(seat, n, fcol, frank, fpts, ri, rf, base, nroll, seeds, z, hand0, hlen0, disc0, active0,
                st0, res0, forced, wins, answer, known, voids, obs, ufn, mode, pinned, own, own_pp, early_k,
                read_rows):
    """Playouts from the snapshot (hand0 ... res0; the draw pile is what each determinization deals), the other
    seats playing the built-in ``base`` and this seat, after the candidate's answers (``forced``), the policy
    ``own`` with parameters ``own_pp`` (a built-in, or a policy of the slot ``ufn``, which then reads ``obs``, a
    scratch observation buffer of enums.obs_size).  ``mode``: layout.MODE_RESUME, the snapshot is a round paused at
    this seat's play decision; layout.MODE_CONTINUE, it is the start of the step this seat decides in, played again
    with the candidate's answers (its earlier answers in the step first) and the cards it drew in the step,
    ``pinned``, drawn again.

    With ``z`` < 0, one stage (Lookahead.playout_wins): ``nroll`` determinizations x every candidate, seeded
    from ``seeds[0]``; wins[0, j] counts the playouts candidate j won, wins[1, j] those whose outcome differs
    from candidate 0's on the same determinization.

    With ``z`` >= 0, the whole decision (Lookahead.best_move, candidate 0 the default move): with more than three
    candidates a quarter of the budget on all of them (``seeds[0]``), then the rest on the default and the two
    that won most (ties: the earlier), judged on that second stage alone (``seeds[1]``); the finalist that won
    most is played if it beat the default by more than ``z`` standard errors of their paired difference: its
    index goes to answer[0]; ``wins`` holds the last stage's counts at the finalists' indices.  With ``early_k``
    >= 0 the last stage is played in blocks (_block_nb) and stops after a block once no other finalist is likely to
    be played (_settled_nb: ``early_k`` is the normal quantile of that chance); the default is then played.

    Returns the playouts played, -1 if the cards do not add up, -2 if a policy of a playout answered out of
    range."""
    ncards = fcol.shape[1]
    side = st0[layout.ST_SIDE]
    two_sided = False
    for c in range(ncards):
        if fcol[0, c] != fcol[1, c] or frank[0, c] != frank[1, c]:
            two_sided = True
    hand, hlen, pile, disc, lg, tmp, active, st, rng, log, _, script, res, _ = round_nb.workspace_nb(n, ncards)
    cmask = cards_nb.new_card_masks_nb(fcol, frank, fpts)
    R, RD = rules_nb.new_rules_nb(ri, rf)
    pol = np.full(n, base, np.int64)
    pp = np.zeros((n, NPP), np.float64)
    pp[seat, :] = own_pp
    rnd = (hand, hlen, pile, disc, lg, tmp, active, st, rng, log, res, obs, fcol, frank, fpts, cmask, pol, pp, script,
           ufn, R, RD)
    seen = (hand0, hlen0, st0[layout.ST_PILE_N], disc0, st0[layout.ST_DISC_N], known, voids, read_rows)
    snap = (seat, n, side, two_sided, seen, active0, st0, res0, mode, pinned, own)
    nm = forced.shape[0]
    rows = np.arange(nm)
    if z < 0:
        return _stage_nb(snap, rnd, forced, rows, nroll, seeds[0], wins)
    r2 = nroll
    first = 0
    seed = seeds[0]
    if nm > 3:
        r1 = max(r2 // 4, 1)
        first = _stage_nb(snap, rnd, forced, rows, r1, seed, wins)
        if first < 0:
            return first
        rows = _finalists_nb(wins[0])
        r2 = max((r2 - r1) * nm // 3, 1)
        wins[:, :] = 0
        seed = seeds[1]
    got = 0
    done = 0
    block = _block_nb(r2, early_k)
    while done < r2:
        m = min(block, r2 - done)
        played = _stage_nb(snap, rnd, forced, rows, m, seed, wins, done)
        if played < 0:
            return played
        got += played
        done += m
        if done < r2 and _settled_nb(wins, rows, done, z, r2, early_k):
            break
    r2 = done
    best = rows[0]
    for j in rows:
        if wins[0, j] > wins[0, best]:
            best = j
    gain, var = _paired_gain(wins, best, r2)
    answer[0] = best if gain > 0 and gain > z * (var / max(r2 - 1, 1)) ** 0.5 else 0
    return first + got


@njit(cache=True, nogil=True)
def _paired_gain(wins, j, m):
    """Candidate j's gain over the default (candidate 0) after m determinizations of a stage (wins: _stage_nb's
    counts), and the variance of one determinization's difference: (mean gain, variance)."""
    gain = (wins[0, j] - wins[0, 0]) / m
    return gain, max(wins[1, j] / m - gain * gain, 0.0)


@njit(cache=True, nogil=True)
def _block_nb(nroll, early_k):
    """How many determinizations of a last stage of ``nroll`` are played between two looks at whether it is
    settled: all of them when it may not stop early (``early_k`` < 0)."""
    if early_k < 0:
        return nroll
    return max(nroll // EARLY_BLOCKS, EARLY_MIN)


@njit(cache=True, nogil=True)
def _settled_nb(wins, rows, m, z, r2, early_k):
    """Whether the default (rows[0]) is all but sure to be played after ``m`` of the last stage's ``r2``
    determinizations: no other finalist is likely to pass the gate at the stage's end (its gain over the default
    above ``z`` standard errors of their paired difference, and above zero).  A finalist's final gain is
    predicted as normal, centred on its gain so far, with sd(a determinization's difference) x
    sqrt((r2 - m) / (m r2)) (the luck of the determinizations to come and the uncertainty of its true gain); it
    is unlikely when its upper ``early_k`` quantile is below the gate.  Asked only between blocks (_block_nb plays a
    stage in one block where it may not stop early)."""
    spread = ((r2 - m) / (m * r2)) ** 0.5
    for j in rows[1:]:
        gain, var = _paired_gain(wins, j, m)
        sd = var ** 0.5
        if gain + early_k * spread * sd >= z * sd / max(r2 - 1, 1) ** 0.5:
            return False
    return True


@njit(cache=True, nogil=True)
def _finalists_nb(won):
    """Candidate 0 (the default move), then the other that won most, then the next (ties to the earlier)."""
    a = 1
    for j in range(2, won.shape[0]):
        if won[j] > won[a]:
            a = j
    b = 2 if a == 1 else 1
    for j in range(b + 1, won.shape[0]):
        if j != a and won[j] > won[b]:
            b = j
    return np.array([0, a, b])


@njit(cache=True, nogil=True)
def _stage_nb(snap, rnd, forced, rows, nroll, seed, wins, first=0):
    """``nroll`` determinizations x the candidates ``rows`` of ``forced`` (rollouts_nb), the stage's
    determinizations ``first`` to ``first + nroll - 1`` (each is drawn from ``seed`` and its number alone, so a
    stage played in blocks plays the same ones): adds to wins[:, j] for each j of ``rows``; returns the playouts
    played, -1 if the cards do not add up, -2 if a policy of a playout answered out of range."""
    seat, n, side, two_sided, seen, active0, st0, res0, mode, pinned, own = snap
    hand, hlen, pile, disc, lg, tmp, active, st, rng, log, res, obs, fcol, frank, fpts, cmask, pol, pp, script, \
        ufn, R, RD = rnd
    hand0, hlen0, pile_n, disc0, disc_n, known, voids, read_rows = seen
    rp = ref(rnd)  # the round's arrays by address (unosim.core.by_ref)
    ncards = fcol.shape[1]
    hand_d = np.empty((n, ncards), np.int64)
    pile_d = np.empty(ncards, np.int64)
    scratch = (np.empty(ncards, np.int64), np.empty(ncards, np.int64), np.empty(NKINDS, np.int64),
               np.empty(ncards, np.int64), np.empty(ncards + reads.MAXI, np.int64), np.empty(ncards + reads.MAXI, np.int64))
    order = np.zeros(0, np.int64)
    drng = np.zeros(1, np.uint64)
    x0 = 0
    played = 0
    for r in range(first, first + nroll):
        drng[0] = rng_nb.mix64_nb(seed + np.uint64(r) * rng_nb._GOLDEN)
        if not determinize_nb(seat, n, side, two_sided, fcol, frank, seen, drng, hand_d, pile_d, scratch):
            return -1
        pin_draws_nb(seat, n, side, fcol, frank, hlen0, pile_n, pinned, hand_d, pile_d)
        roll_seed = rng_nb.next_u64_nb(drng)
        for j in rows:
            for q in range(n):
                hlen[q] = hlen0[q]
                src = hand0 if q == seat else hand_d
                for i in range(hlen0[q]):
                    hand[q, i] = src[q, i]
            for i in range(pile_n):
                pile[i] = pile_d[i]
            for i in range(disc_n):
                disc[i] = disc0[i]
            for i in range(active.shape[0]):
                active[i] = active0[i]
            for i in range(layout.ST_HELD):  # not the counts of cards held: the resumed round counts them afresh
                st[i] = st0[i]
            for i in range(res.shape[0]):
                res[i] = res0[i]
            st[layout.ST_MODE] = mode
            st[layout.ST_FORCE_N] = forced[j, 0]
            st[layout.ST_FORCE_POS] = 0
            st[layout.ST_FORCE_BASE] = own
            for i in range(2 * layout.NFORCE):
                st[layout.ST_FORCE + i] = forced[j, 1 + i]
            rng[0] = roll_seed
            pol[seat] = POL_FORCED  # forced_nb makes it ``own`` once its answers are spent
            if own >= E.POL_SLOT:
                obs[:] = 0  # what a playout's observations noted is not carried into the next
            w = round_nb.play_round_nb(n, np.int64(0), np.int64(0), order, rp)
            if st[layout.ST_ERR] == 2:
                return -2  # a playout's policy answered out of range
            x = 1 if w == seat else 0
            if j == rows[0]:
                x0 = x
            wins[0, j] += x
            wins[1, j] += abs(x - x0)  # |playout difference to the first candidate| (its paired variance)
            played += 1
    return played


entry.unbind()


def __getattr__(name: str):
    return entry.get(name)


# ------------------------------------------------------------------------------------------------
# The policy
# ------------------------------------------------------------------------------------------------
def _target_choice(rank: int, ri: np.ndarray) -> tuple[bool, bool]:
    """(whether playing a number card of ``rank`` asks whom to swap with, whether nobody is allowed)."""
    if rank == 7 and ri[E.RI_SEVEN_ZERO]:
        return True, not ri[E.RI_SEVEN_SWAP_MANDATORY]
    if rank == 0 and ri[E.RI_ZERO_SWAP_ANY] and not (ri[E.RI_SEVEN_ZERO] or ri[E.RI_SPEED_ROUND_N_ROUND]):
        return True, True
    if rank == 5 and ri[E.RI_SWAP_ON_FIVE]:
        return True, bool(ri[E.RI_SWAP5_OPTIONAL])
    return False, False


def _distinct_options(d: Decision) -> list[tuple[int, int]]:
    """(option index, the value the observation shows for it) of each option, the first of options that
    show the same value (two identical cards) only."""
    seen: set[int] = set()
    out = []
    for k in range(d.nopt):
        v = int(d.obs[E.OBS_OPT + E.OPT_STRIDE * k])
        if v not in seen:
            seen.add(v)
            out.append((k, v))
    return out


def candidate_moves(d: Decision, ri: np.ndarray) -> list[tuple[int, int, int]]:
    """The moves lookahead compares at a play decision: (option index or -1 to draw, the follow-up
    decision kind or -1, its answer).  Identical cards are one move; a wild is one move per colour where
    the player names it; a 7 (0, 5) that swaps hands is one move per swap target where the rules ask."""
    names_colour = ri[E.RI_WILD_COLOR_ROTATION] == 0
    others = [s for s in range(int(d.obs[E.OBS_PLAYERS])) if s != d.seat and d.obs[E.OBS_ACTIVE + s]]
    moves: list[tuple[int, int, int]] = []
    for k, v in _distinct_options(d):
        colour, rank = divmod(v, E.NRANKS)
        swaps, optional = _target_choice(rank, ri) if colour != E.BLACK and rank <= 9 else (False, False)
        if colour == E.BLACK and names_colour:
            moves.extend((k, E.D_COLOR, c) for c in range(E.NCOLORS))
        elif swaps and d.hand_sizes[d.seat] > 1:
            moves.extend((k, E.D_SWAP_TARGET, j) for j in range(len(others)))
            if optional:
                moves.append((k, E.D_SWAP_TARGET, -1))
        else:
            moves.append((k, -1, 0))
    if d.none_ok:
        moves.append((-1, -1, 0))
    return moves


_NO_VOIDS = np.zeros(2, np.int64)  # read only, as the next
assert E.OBS_RANK_VOIDS == E.OBS_VOIDS + 1  # Lookahead.voids_of reads them as one slice
_NOTHING_KNOWN = np.zeros(E.MAXP * E.NKINDS, np.int64)


def _known_of(d: Decision) -> np.ndarray:
    """The deciding seat's known-cards counts (MAXP x NKINDS; zeros when nothing was shown)."""
    region = known_region(d.obs)
    return _NOTHING_KNOWN if region is None else np.ascontiguousarray(region)


def _forced_rows(moves: list[tuple[int, int, int]], kind: int = E.D_PLAY,
                 prefix: tuple[tuple[int, int], ...] = ()) -> np.ndarray:
    """Each candidate's answers for rollouts_nb: this seat's earlier answers in the step (``prefix``, as
    (kind, answer) pairs), the candidate's answer to this decision (``kind``) and its follow-up, if any."""
    head = [x for pair in prefix for x in pair]
    rows = np.zeros((len(moves), 1 + 2 * layout.NFORCE), np.int64)
    for j, (k, follow, answer) in enumerate(moves):
        row = [*head, kind, k, follow, answer] if follow >= 0 else [*head, kind, k]
        rows[j, 0] = len(row) // 2
        rows[j, 1:1 + len(row)] = row
    return rows


def candidate_answers(d: Decision) -> list[tuple[int, int, int]]:
    """The answers lookahead compares at a decision other than play, as moves (answer, -1, 0): every
    option (options showing the same value, such as two identical cards, are one), and -1 where the
    decision allows none."""
    moves = [(k, -1, 0) for k, _ in _distinct_options(d)]
    if d.none_ok:
        moves.append((-1, -1, 0))
    return moves


class Lookahead(PythonPolicy):
    """Flat Monte Carlo with determinization: at each decision with a choice (play, colour, keeping a drawn
    card, challenges, stacking and other answers to an attack, jump-ins, swap targets, cards to give),
    samples the unseen cards `rollouts` times (no other hand gets a colour it showed it lacks by drawing,
    nor a coloured card of the rank it showed it lacks, unless voids=0) and plays every candidate out with
    greedy (random with greedy_rollouts=0; its own seat plays expert there with expert_rollouts=1); plays
    the finalist that won most if it beat expert's answer (greedy's with expert_default=0) by more than z
    paired standard errors, else that answer; the last stage stops early once every finalist's chance of being
    played at its end is below early (early=0: the whole budget); with reads=1 (the default) it deals each other
    hand one that fits that seat's plays read as greedy's, until its plays contradict greedy (unosim.players.reads)
    (unosim.players.lookahead)."""

    name = "lookahead"
    params = {"rollouts": 300, "greedy_rollouts": 1, "z": 1.0, "voids": 1, "every_decision": 1,
              "expert_rollouts": 0, "expert_default": 1, "early": 0.05, "reads": 1}
    ranges = {"rollouts": (1, 100_000), "greedy_rollouts": (0, 1), "z": (0.0, 10.0), "voids": (0, 1),
              "every_decision": (0, 1), "expert_rollouts": (0, 1), "expert_default": (0, 1), "early": (0.0, 0.5),
              "reads": (0, 1)}
    uses_state = True
    asks_forced = False  # a decision with one answer has nothing to search
    #: the version of its play, bumped whenever the play of a given parameter string changes, so that a stored
    #: cell of an older play is not served for it (unosim.players.external.passed_classes): 2 since expert's
    #: answer is the one to beat (the voids and the search at every decision had changed it before, unkeyed),
    #: 3 since the expert's play changed (heuristics_nb.PLAY_VERSIONS), 4 since a decision may stop early (early),
    #: 5 since it reads the others' plays (reads)
    play_version = 5

    def __init__(self, **params: float) -> None:
        super().__init__(**params)
        for key in ("rollouts", "greedy_rollouts", "voids", "every_decision", "expert_rollouts", "expert_default",
                    "reads"):
            if float(self.p[key]) != int(self.p[key]):
                raise PolicyError(f"lookahead parameter {key}={self.p[key]!r} must be a whole number")
        self.rollouts = int(self.p["rollouts"])
        self.base = E.POL_GREEDY if int(self.p["greedy_rollouts"]) else E.POL_RANDOM
        self.z = float(self.p["z"])
        self.voids = int(self.p["voids"])  # 1: deal no other hand what it showed it lacks (OBS_VOIDS, OBS_RANK_VOIDS)
        # 1: deal no other hand what its plays, read as greedy's, showed it lacked (unosim.players.reads)
        self.reads_log = bool(int(self.p["reads"]))
        self.every_decision = int(self.p["every_decision"])  # 0: search play decisions only (the default's others)
        # the early stop's quantile (rollouts_nb): a negative one plays every decision's whole budget
        early = float(self.p["early"])
        self.early_k = NormalDist().inv_cdf(1.0 - early) if early > 0 else -1.0
        self.follow = (-1, 0)  # the follow-up decision of the move just played (a colour, a swap target)
        # the policy this seat plays in its playouts after the candidate move: expert, or the others' base
        own = "expert" if int(self.p["expert_rollouts"]) else ("greedy" if self.base == E.POL_GREEDY else "random")
        pol, pp = pack_policies([parse_policy(own)])
        self.own, self.own_pp = int(pol[0]), pp[0]
        self.expert_pp = pack_policies([parse_policy("expert")])[1][0] if int(self.p["expert_default"]) else None
        self._obs = np.zeros(0, np.int64)
        self._reader: tuple[tuple, reads.PlayReader] | None = None  # the table it reads for, and its reader

    def decide(self, d: Decision) -> int:
        kind, answer = self.follow
        self.follow = (-1, 0)
        if kind >= 0 and E.DECISION_NAMES[kind] == d.kind:
            return answer
        if d.state is None or (d.kind != "play" and not self.every_decision):
            return self.default_answer(d)
        k, kind, answer = self.best_move(d, d.state)
        self.follow = (kind, answer)
        return k

    def best_move(self, d: Decision, s: RoundState) -> tuple[int, int, int]:
        """(option index or -1, follow-up decision kind or -1, its answer) of the move to play (at a play
        decision; at the others the follow-up is always -1).

        With more than three candidates the budget is spent in two stages: a quarter of it on every
        candidate, the rest on the default move (:meth:`default_answer`) and the two best others
        (successive halving), judged on the second stage's playouts alone so that the selection's luck does
        not carry over.  The best finalist is played if it beat the default move by more than ``z``
        standard errors of their paired difference, else the default move."""
        moves = self.moves_of(d, s)
        if len(moves) == 1 or len(s.prefix) > layout.NFORCE - 2:  # nothing to choose, or a step too long to replay
            return moves[0]
        seeds = [d.rng.getrandbits(64), d.rng.getrandbits(64)]  # a stage each (the kernel decides whether two)
        return moves[self._playouts(d, s, self.rollouts, moves, seeds, self.z)[0]]

    def moves_of(self, d: Decision, s: RoundState) -> list[tuple[int, int, int]]:
        """The candidate moves, the default's first (it wins ties)."""
        moves = candidate_moves(d, s.ri) if d.kind == "play" else candidate_answers(d)
        g = self.default_answer(d)
        moves.sort(key=lambda m: m[0] != g)
        return moves

    def default_answer(self, d: Decision) -> int:
        """The answer the search must beat, played where it does not search: expert's, or greedy's with
        expert_default=0."""
        return d.greedy() if self.expert_pp is None else d.answer_of(heuristics_nb.expert_nb, self.expert_pp)

    def playout_wins(self, d: Decision, s: RoundState, rollouts: int | None = None,
                     moves: list[tuple[int, int, int]] | None = None
                     ) -> tuple[list[tuple[int, int, int]], list[int], list[int]]:
        """The candidate moves (the default's first), how many of ``rollouts`` playouts each won, and in how many
        each ended otherwise than the first move on the same determinization."""
        moves = self.moves_of(d, s) if moves is None else moves
        rollouts = self.rollouts if rollouts is None else rollouts
        if len(moves) == 1:
            return moves, [0], [0]
        _, out = self._playouts(d, s, rollouts, moves, [d.rng.getrandbits(64)], -1.0)
        return moves, [int(w) for w in out[0]], [int(w) for w in out[1]]

    def _playouts(self, d: Decision, s: RoundState, rollouts: int, moves: list[tuple[int, int, int]],
                  seeds: list[int], z: float) -> tuple[int, np.ndarray]:
        """rollouts_nb for these candidates: (its answer, the last stage's win counts); ``z`` < 0 plays one stage
        (:meth:`playout_wins`), else the whole decision (:meth:`best_move`), seeding its stages from ``seeds``."""
        out = np.zeros((2, len(moves)), np.int64)
        answer = np.zeros(1, np.int64)
        t0 = time.perf_counter()
        got = entry.get("rollouts_nb")(d.seat, s.n, s.fcol, s.frank, s.fpts, s.ri, s.rf, self.base, rollouts,
                                       np.array(seeds, np.uint64), z, s.hand, s.hlen, s.disc, s.active, s.st,
                                       s.res, _forced_rows(moves, E.DECISION_NAMES.index(d.kind), s.prefix), out, answer,
                                       self.known_counts(d, s), self.voids_of(d), self._scratch_obs(s),
                                       self.own_slot(s), s.mode, s.pinned, self.own, self.own_pp, self.early_k,
                                       self.reads_of(d, s))
        if got == -2:
            raise PolicyError("lookahead: a policy of its playouts answered out of range (engine bug)")
        if got < 0:
            raise PolicyError("lookahead: the cards of the paused round do not add up (engine bug)")
        COUNTERS.add(1 if z >= 0 else 0, got, time.perf_counter() - t0, d.kind)  # a decision searched, or a stage
        return int(answer[0]), out

    def voids_of(self, d: Decision) -> np.ndarray:
        """The voids the determinizations respect: (colours, ranks) as the observation packs them, or none
        with voids=0."""
        return d.obs[E.OBS_VOIDS:E.OBS_RANK_VOIDS + 1] if self.voids else _NO_VOIDS

    def reads_of(self, d: Decision, s: RoundState) -> np.ndarray:
        """What the other seats' plays showed of their hands (unosim.players.reads), or nothing with reads=0."""
        if not self.reads_log:
            return reads.NO_READS
        table = (s.n, s.fcol, s.frank, s.fpts, s.ri)
        if self._reader is None or not all(np.array_equal(a, b) for a, b in zip(self._reader[0], table, strict=True)):
            self._reader = (tuple(np.array(x) for x in table), reads.PlayReader(*table))
        return self._reader[1].read(s.log, int(s.st[layout.ST_LOG_N]), d.seat)

    def _scratch_obs(self, s: RoundState) -> np.ndarray:
        """The playouts' observation buffer (rollouts_nb clears it before every playout that reads it), one per
        instance and deck size: an instance plays on one thread."""
        size = E.obs_size(s.fcol.shape[1])
        if self._obs.shape[0] != size:
            self._obs = np.zeros(size, np.int64)
        return self._obs

    def own_slot(self, s: RoundState):
        """The policy slot of the playouts: the heuristics' when this seat plays one there (the round's
        own slot serves only the policies seated in it), else the round's."""
        return jit.fixed_slot(heuristics_nb.heuristics_slot_nb) if self.own >= E.POL_SLOT else s.slot

    def known_counts(self, d: Decision, s: RoundState) -> np.ndarray:
        """What the determinizations must deal to each other hand: what this seat was shown."""
        return _known_of(d)


class CheatCeiling(Lookahead):
    """CHEAT, the top of the skill scale, not a player: lookahead whose determinizations deal every other
    hand exactly as it is (it sees all hands; only the draw pile's order stays hidden and is sampled).
    Plays only where asked for by name (never in a list of all policies).  On UNO Flip the backs already
    fix much of each hand and the faces are sampled as lookahead does."""

    name = "cheat_ceiling"
    cheat = True

    def known_counts(self, d: Decision, s: RoundState) -> np.ndarray:
        known = np.zeros(E.MAXP * E.NKINDS, np.int64)
        for q in range(s.n):
            if q != d.seat:
                for c in s.hand[q, :s.hlen[q]]:
                    known[q * NKINDS + int(s.fcol[d.side, c]) * NRANKS + int(s.frank[d.side, c])] += 1
        return known


register_class(Lookahead, "built-in")
register_class(CheatCeiling, "built-in")
