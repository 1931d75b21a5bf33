"""What the other seats' public plays show of their hands, read as ``greedy``'s plays (``lookahead(reads=1)``).

``greedy`` lays the legal card it ranks highest (the engine's key: points, then the current colour, then the
symbol, then the colour) and draws only when it holds nothing legal.  So each of its turns shows something of
the hand it held then:

* it laid card x: it held no legal card ranked above x;
* it drew for its turn: it held no legal card, and a drawn card it kept was not legal either.

A card the seat holds now may have come after such a turn (a draw, a penalty), so the facts bind a card only
up to the cards the seat received since.  For each other seat the reading keeps, from the public events of
the round's log (never the faces of the cards drawn: only what the table saw), three things that
:func:`unosim.players.lookahead.determinize_nb` checks a dealt hand against:

* for every card, the last of the seat's turns at which holding it would have changed what the seat did
  (``-1``: none), on a clock of event times;
* the times at which the seat received a card nobody saw;
* for every card it laid since, the last turn before at which holding it would have changed what it did,
  and when it laid it (it must have come in between).

A dealt hand fits when every card that a turn rules out can be given a receipt after that turn (and, for a
card laid since, before it was laid): :func:`fits_nb`.  The reading is true of ``greedy`` seats; of other
players it is a model, like the playouts' ``greedy`` seats.  It is made only under rules whose turns it
reads (a one-sided deck, no stacking, jump-ins, hand swaps, Speed Uno turns or other Wild Draw Four
restrictions); elsewhere it is empty and the deals are as before.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from ..core import cards_nb
from ..core import enums as E

#: receipts and laid cards kept per seat; a seat with more is not read (its row says nothing)
MAXR = 96
MAXI = 64

#: the rules under which the reading is made: none of these set
_UNREAD_RULES = (E.RI_STACKING, E.RI_DEFLECT_SKIP, E.RI_DEFLECT_DRAW_TWO, E.RI_DEFLECT_WD4, E.RI_REVERSE_BOUNCE,
                 E.RI_JUMP_IN, E.RI_SEVEN_ZERO, E.RI_ZERO_SWAP_ANY, E.RI_SWAP_ON_FIVE, E.RI_SPEED_DRAW_NO_SKIP,
                 E.RI_SPEED_NO_WD4_OUT, E.RI_SPEED_EXACT_MATCH, E.RI_SPEED_DOUBLE_DOUBLE, E.RI_SPEED_DROP,
                 E.RI_SPEED_ROUND_N_ROUND, E.RI_PENALTY_ILLEGAL_PLAY, E.RI_WD4_RESTRICTION,
                 E.RI_WILD_COLOR_ROTATION, E.RI_PLAY_TO_LAST, E.RI_UNO_SEVEN_ROUNDS)

NO_READS = np.zeros((0, 0), np.int64)  # read only: nothing read


def width(ncards: int) -> int:
    """The length of a seat's row: for every card the last turn that ruled it out (-1: none), then the receipts
    after that turn, then the receipts (count, times), then the laid cards (count, (bound, laid) pairs)."""
    return _laid_at(ncards) + 1 + 2 * MAXI


@njit(cache=True, _nrt=False, inline="always")
def _receipts_at(ncards):
    return 2 * ncards


@njit(cache=True, _nrt=False, inline="always")
def _laid_at(ncards):
    return 2 * ncards + 1 + MAXR


def readable(ri: np.ndarray, fcol: np.ndarray, frank: np.ndarray) -> bool:
    """Whether the turns of these rules and this deck are read (one-sided, none of _UNREAD_RULES)."""
    if fcol.shape[0] > 1 and not (np.array_equal(fcol[0], fcol[1]) and np.array_equal(frank[0], frank[1])):
        return False
    return not any(int(ri[k]) for k in _UNREAD_RULES)


class _Seat:
    """One seat's reading so far: for every card the last turn that ruled it out (``bound``), its receipts
    (times) and its laid cards ((bound, time laid) of those a turn before ruled out)."""

    def __init__(self, ncards: int) -> None:
        self.bound = np.full(ncards, -1, np.int64)
        self.receipts: list[int] = []
        self.laid: list[tuple[int, int]] = []
        self.drew: list[int] = []  # this turn's draws so far (their event times)
        self.drew_on: tuple[int, np.ndarray] | None = None  # (time, what was legal) before this turn's draws

    def turn(self, t: int, ruled_out: np.ndarray) -> None:
        self.bound[ruled_out] = t

    def lay(self, card: int, t: int) -> None:
        if self.bound[card] >= 0:
            self.laid.append((int(self.bound[card]), t))

    def end_draws(self, laid_drawn: bool, t: int) -> None:
        """The turn's draws are over: before them nothing was legal; the cards kept were not legal either."""
        t0, before = self.drew_on
        self.turn(t0, before)
        kept = self.drew[:-1] if laid_drawn else self.drew
        self.receipts.extend(kept)
        if kept:
            self.turn(t, before)
        self.drew, self.drew_on = [], None


class PlayReader:
    """Reads a round's log as it grows (:meth:`read`), for the rules and deck of one table."""

    def __init__(self, n: int, fcol: np.ndarray, frank: np.ndarray, fpts: np.ndarray, ri: np.ndarray) -> None:
        self.n, self.ncards = n, fcol.shape[1]
        self.on = readable(ri, fcol, frank)
        self.col, self.rank = fcol[0].astype(np.int64), frank[0].astype(np.int64)
        masks = cards_nb.new_card_masks_nb(fcol, frank, fpts)
        self.cmask = masks[0]  # each card's colour and rank bits (what cards_nb._turn_masks's masks select)
        w = masks[fcol.shape[0]]  # greedy's keys (cards_nb._greedy_key)
        # greedy's rank of each card under each current colour (decide_nb._greedy_play), the last row for none
        self.ranked = np.array([(w >> 3) + np.where((w & 7) == c, 100, 0) for c in range(E.NCOLORS + 1)])
        self.by_symbol, self.any_action = bool(ri[E.RI_MATCH_ACTION_BY_SYMBOL]), bool(ri[E.RI_ACTION_ON_ANY_ACTION])
        self.restart()

    def restart(self) -> None:
        self.seats = [_Seat(self.ncards) for _ in range(self.n)]
        self.top, self.cur, self.done = -1, -1, 0
        self.rows = np.zeros((0, 5), np.int64)  # the events read so far

    def legal(self) -> np.ndarray:
        """What may be laid now: the engine's mask of the turn's legal cards (cards_nb._turn_masks, as
        _play_options asks it; a Wild Draw Four always, its restriction aside: see the module's notes)."""
        if self.top < 0:
            return np.ones(self.ncards, bool)
        tr = int(self.rank[self.top])
        sym_ok = self.by_symbol or tr <= 9
        any_ok = self.any_action and tr > 9 and self.col[self.top] != E.BLACK
        bits, _ = cards_nb._turn_masks(self.cur, tr, sym_ok, any_ok, False)
        return (self.cmask & bits) != 0

    def read(self, log: np.ndarray, nlog: int, seat: int) -> np.ndarray:
        """The reading of every seat but ``seat`` from the first ``nlog`` events of a round's log (kind, seat,
        card, a1, a2 rows, unosim.core.enums.EV_*): an (n, width) array, or NO_READS where the rules are not read
        or the log is incomplete.  Reads only what the table saw: the card of a turn's draw (EV_DRAW, EV_PASS)
        is never read.  Goes on from the events read before when they are the same (the same round)."""
        if not self.on or nlog > log.shape[0]:
            return NO_READS
        if nlog < self.done or not np.array_equal(log[:self.done], self.rows):
            self.restart()
        for r in range(self.done, nlog):
            if not self.event(r, *(int(x) for x in log[r])):
                self.restart()
                self.on = False
                return NO_READS
        self.done = nlog
        self.rows = log[:nlog].copy()
        return self.table(seat)

    def event(self, r: int, kind: int, q: int, card: int, a1: int, a2: int) -> bool:
        """Read event r; False where the reading cannot go on (a Flip)."""
        t = 2 * r + 1  # an event's time; what a turn's draw shows holds just before it (t - 1)
        if kind == E.EV_DEAL_START:
            self.top, self.cur = card, a1
        elif kind == E.EV_DRAW and card >= 0:  # a draw for the turn: its card is not read
            s = self.seats[q]
            if s.drew_on is None:
                s.drew_on = (t - 1, self.legal())
            s.drew.append(t)
        elif kind == E.EV_PASS:
            s = self.seats[q]
            if s.drew_on is None:  # nothing left to draw
                s.drew_on = (t - 1, self.legal())
            s.end_draws(False, t)
        elif kind == E.EV_PLAY:
            s = self.seats[q]
            if s.drew_on is not None:
                s.end_draws(True, t)  # it laid the card it drew
            else:
                s.lay(card, t)
                if a2 == 0:  # its own turn: nothing legal ranked above the card
                    ranked = self.ranked[self.cur if 0 <= self.cur < E.NCOLORS else E.NCOLORS]
                    s.turn(t, self.legal() & (ranked > ranked[card]))
            self.top, self.cur = card, a1
        elif kind == E.EV_FLIP:
            return False
        elif kind in (E.EV_DRAW, E.EV_PENALTY):  # cards given: a1 of them
            self.seats[q].receipts.extend([t] * max(a1, 0))
        elif kind == E.EV_SWAP:
            for x in (range(self.n) if a1 < 0 else (q, a1)):
                self.seats[x] = _Seat(self.ncards)
        return True

    def table(self, seat: int) -> np.ndarray:
        """The rows of fits_nb, every seat's but ``seat``'s (a seat whose own plays contradict greedy's, or with
        more receipts or laid cards than a row holds, says nothing)."""
        ncards = self.ncards
        r0, i0 = _receipts_at(ncards), _laid_at(ncards)
        out = np.zeros((self.n, width(ncards)), np.int64)
        out[:, :ncards] = -1
        self.refuted: set[int] = set()
        for q, s in enumerate(self.seats):
            if q == seat or len(s.receipts) > MAXR or len(s.laid) > MAXI:
                continue
            row = out[q]
            row[:ncards] = s.bound
            row[ncards:r0] = len(s.receipts) - np.searchsorted(s.receipts, s.bound, side="right")
            row[r0] = len(s.receipts)
            row[r0 + 1:r0 + 1 + len(s.receipts)] = s.receipts  # in time order
            row[i0] = len(s.laid)
            for k, (bound, tl) in enumerate(s.laid):
                row[i0 + 1 + 2 * k] = bound
                row[i0 + 2 + 2 * k] = tl
            k = len(s.laid)
            if not fits_nb(row, row[:0], 0, ncards, (np.empty(k, np.int64), np.empty(k, np.int64))):
                row[:ncards] = -1  # its own plays contradict greedy's: it is not read
                row[r0] = 0
                row[i0] = 0
                self.refuted.add(q)
        return out


def read_plays(log: np.ndarray, nlog: int, seat: int, n: int, fcol: np.ndarray, frank: np.ndarray,
               fpts: np.ndarray, ri: np.ndarray) -> np.ndarray:
    """PlayReader(...).read(log, nlog, seat): the reading of one log, from its start."""
    return PlayReader(n, fcol, frank, fpts, ri).read(log, nlog, seat)


@njit(cache=True, _nrt=False)
def fits_nb(row, cards, m, ncards, scratch):
    """Whether a hand (``cards[:m]``) fits a seat's reading (a row of :func:`read_plays`): every card ruled out by
    a turn, and every laid card ruled out before it was laid, can be given its own receipt after that turn (and
    before it was laid).  Without laid cards the receipts open to the held cards are nested (all those after a
    time), so it fits when the j-th fewest is at least j; else earliest deadline first over the receipts in time
    order.  ``scratch``: two int64 arrays of at least m + MAXI."""
    lo, hi = scratch
    r0, i0 = _receipts_at(ncards), _laid_at(ncards)
    nr = row[r0]
    k = 0
    if row[i0] == 0:
        for i in range(m):
            if row[cards[i]] >= 0:
                after = row[ncards + cards[i]]
                j = k
                while j > 0 and lo[j - 1] > after:  # insertion: lo[:k] stays sorted
                    lo[j] = lo[j - 1]
                    j -= 1
                lo[j] = after
                k += 1
                if lo[j] < j + 1 or k > nr:
                    return False
        for j in range(k):
            if lo[j] < j + 1:
                return False
        return True
    for i in range(m):
        b = row[cards[i]]
        if b >= 0:
            lo[k] = b
            hi[k] = 1 << 62
            k += 1
    for j in range(row[i0]):
        lo[k] = row[i0 + 1 + 2 * j]
        hi[k] = row[i0 + 2 + 2 * j]
        k += 1
    if k == 0:
        return True
    if k > nr:
        return False
    left = k
    for r in range(nr):
        t = row[r0 + 1 + r]
        best = -1
        for j in range(k):
            if lo[j] >= 0 and lo[j] < t and hi[j] > t and (best < 0 or hi[j] < hi[best]):
                best = j
        if best >= 0:
            lo[best] = -1  # served
            left -= 1
            if left == 0:
                return True
    return False
