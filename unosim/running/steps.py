"""A round or a match between two decisions, as a value you can copy: the engine's step machine.

The compiled engine keeps everything a round carries in its arrays: the hands and piles, the counters and
every scalar of the round's state (``nb.ST_*``, named slots of ``st``).  Here those arrays are views into
one int64 buffer (:class:`State`), so a state is copied with one array copy.

The engine plays a round one *step* at a time (``layout.MODE_STEP``: from the top of one turn step to the
next; a turn step is a turn, or a response window, or a skipped turn) and goes on from a copied state
(``layout.MODE_CONTINUE``).  A seat played from Python (``POL_EXTERNAL``: every seat of a :class:`unosim.Game`,
the policies that read the engine's state, ``unosim trace``) stops the step at its decision without an
answer: the state goes back to the step's start, the decision is handed out, and with its answer queued
the step is played again from its start.  A step holds a few decisions at most, so an answer costs one
step of the engine, never a replay of the round.  The steps between two such decisions are played in one call
of the engine (:func:`to_decision`, ``nb.steps_nb``), which keeps each step's start itself.  Where no seat
wants to see the decisions that allow a single answer (``asks_forced = False``: lookahead, which has nothing to
search there), the engine answers those itself and queues the answer as Python would: a draw with nothing to
play costs a replay of its step, not a round trip through Python.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ..core import cards_nb, jit, layout, nb, pairing_nb, rng_nb, rules_nb
from ..core import enums as E
from ..players.external import Decision, PythonPolicy, RoundState, _ask, _instance, begin_batch, is_external
from ..players.policies import check_policy_error


@dataclass
class Table:
    """What stays fixed while a round or a match is stepped: the players, the deck's faces for this game (UNO
    Flip's pairing applied), the packed rules and policies, the policy slot, and for a match its options."""

    n: int
    seed: int
    game: int           # the round's (or match's) global index in the run
    gcol: np.ndarray
    grank: np.ndarray
    gpts: np.ndarray
    ri: np.ndarray
    rf: np.ndarray
    pol: np.ndarray
    pp: np.ndarray
    slot: Any = None
    mi: np.ndarray | None = None
    seatmap: np.ndarray = field(default_factory=lambda: np.zeros(0, np.int64))
    cmask: np.ndarray = field(init=False)
    R: np.ndarray = field(init=False)
    RD: np.ndarray = field(init=False)

    def __post_init__(self) -> None:
        self.cmask = cards_nb.new_card_masks_nb(self.gcol, self.grank, self.gpts)
        self.R, self.RD = rules_nb.new_rules_nb(self.ri, self.rf)
        self.slot = jit.fixed_slot(self.slot if self.slot is not None else nb.no_slot_nb)


def table_for(game: int, seed: int, n: int, dk: Any, ri: np.ndarray, rf: np.ndarray, pol: np.ndarray,
              pp: np.ndarray, seating: int, slot: Any, mi: np.ndarray | None = None) -> Table:
    """Round (or match) ``game`` of a run, as play_batch_nb (play_match_batch_nb) seats it: the seating's
    policy in each seat, UNO Flip's random pairing of faces drawn for this game."""
    seatmap = np.arange(n, dtype=np.int64)
    polg, ppg = pol.copy(), pp.copy()
    if seating != 0:
        nb.seat_map_nb(seating, game, np.uint64(seed), n, pol, pp, seatmap, polg, ppg)
    gcol, grank, gpts = dk.face_color, dk.face_rank, dk.face_points
    if dk.random_pairing:
        gcol, grank, gpts = gcol.copy(), grank.copy(), gpts.copy()
        pairing_nb.pair_faces_nb(game, np.uint64(seed), dk.face_color, dk.face_rank, dk.face_points, gcol, grank, gpts)
    return Table(n, seed, game, gcol, grank, gpts, ri, rf, polg, ppg, slot, mi, seatmap)


class State:
    """A round (and its match) stopped at the start of a step: every array of the engine as a view into one
    int64 buffer, plus the answers already given to the step's decisions (``queue``).  ``copy()`` is one
    array copy."""

    _MATCH = ("ms", "scores", "rwins", "pts", "flags")
    _ROUND = ("hand", "hlen", "pile", "disc", "lg", "tmp", "active", "st", "rng", "res", "obs")  # nb.LAY_* order

    def __init__(self, n: int, ncards: int, buf: np.ndarray | None = None) -> None:
        offsets, self.lay, self.fl = _layout(n, ncards)
        self.buf = np.zeros(int(offsets[-1]), np.int64) if buf is None else buf
        self.n, self.ncards = n, ncards
        for k, name in enumerate(self._ROUND + self._MATCH):
            setattr(self, name, self.buf[offsets[k]:offsets[k + 1]])
        self.hand = self.hand.reshape(n, ncards)
        self.rng = self.rng.view(np.uint64)
        self.queue: list[int] = []

    # flags (nb.FL_*): the round is under way (MODE_CONTINUE); the round is over; the decisions answered in the
    # round before this step (with the queue's: a Decision's random stream, Decision.rng)
    @property
    def started(self) -> bool:
        return bool(self.flags[nb.FL_STARTED])

    @property
    def round_over(self) -> bool:
        return bool(self.flags[nb.FL_OVER])

    def copy(self) -> State:
        other = State(self.n, self.ncards, self.buf.copy())
        other.queue = list(self.queue)
        return other

    def new_round(self, rng_seed: int) -> None:
        """The next round starts at the next step (seated seats as they are in ``active[3n:]``)."""
        self.flags[:] = 0
        self.rng[0] = np.uint64(rng_seed)
        self.queue.clear()


@functools.cache
def _layout(n: int, ncards: int) -> tuple[list[int], np.ndarray, int]:
    """Where each array of a State lies in its buffer, for n players and ncards cards (made once: a State is made
    at every copy): (offsets of State._ROUND + State._MATCH and the end, the engine's lay array, the flags'
    offset, which nb.steps_nb keeps)."""
    sizes = nb.state_sizes(n, ncards, E.obs_size(ncards)) + [nb.NMS, n, n, n, 3]
    offsets = np.concatenate([[0], np.cumsum(sizes)]).astype(np.int64)
    lay = offsets[:nb.NLAY + 1].copy()  # shared by every State of this size: the engine only reads it
    fl = int(offsets[len(State._ROUND) + State._MATCH.index("flags")])
    return [int(x) for x in offsets], lay, fl


_NO_LOG = np.zeros((0, 5), np.int64)
LOG_ROWS = 4096  # the events kept of a round played for a seat that reads the log (a longer round's are not read)


def to_decision(t: Table, s: State, log: np.ndarray = _NO_LOG,
                on_pause: Callable[[Decision, np.ndarray, list[tuple[int, int, int]]], None] | None = None,
                snapshot: bool = False, auto: bool = False) -> Decision | None:
    """Play on from ``s`` (its queued answers first) until a seat played from Python must decide (returned, with
    ``s`` back at the start of its step and the step's earlier answers queued), or the round ends (None).
    ``on_pause(d, start, given)`` sees each decision while the arrays are still as the engine left them at it
    (with ``snapshot``: at a play decision, the state a paused round resumes from, layout.MODE_RESUME), and the buffer
    at its step's start.  With ``auto`` the engine answers a decision that allows a single answer itself (a draw
    with nothing to play, nb.single_answer_nb); ``given`` lists those of the decision's step, (seat, decision
    kind, answer) each, already in the queue.  The engine plays the steps in one call (nb.steps_nb)."""
    if s.round_over:
        return None
    dealer, first = (int(s.ms[nb.MS_DEALER]), int(s.ms[nb.MS_FIRST])) if t.mi is not None else (t.n - 1, -1)
    start = np.empty_like(s.buf)
    given = np.empty(1 + 3 * nb.NGIVEN, np.int64)
    stop = nb.steps_nb(t.n, dealer, first, t.gcol, t.grank, t.gpts, t.cmask, t.R, t.RD, t.pol, t.pp,
                       np.array(s.queue, np.int64), s.buf, start, s.lay, s.fl,
                       layout.MODE_SNAPSHOT if snapshot else 0, log, t.slot, int(auto), given)
    if stop != nb.STEPS_PAUSED_FIRST:
        s.queue.clear()  # played in the first step
    if stop == nb.STEPS_ROUND_OVER:
        return None
    gave = [(int(given[1 + 3 * k]), int(given[2 + 3 * k]), int(given[3 + 3 * k])) for k in range(int(given[0]))]
    s.queue.extend(v for _, _, v in gave)
    d = Decision.from_obs(s.obs, int(s.rng[0]) ^ int(s.flags[nb.FL_ANSWERED] + len(s.queue)))
    if on_pause is not None:
        on_pause(d, start, gave)
    s.buf[:] = start
    return d


# ---- a round's result -----------------------------------------------------------------------------------
def store_round(out: dict[str, np.ndarray], row: int, t: Table, res: np.ndarray) -> None:
    """Row ``row`` of the round-mode outputs (unosim.running.sim._alloc) from a finished round, as play_batch_nb
    writes it."""
    w = int(res[layout.RES_WINNER])
    out["winner"][row] = w
    out["winner_policy"][row] = -1 if w < 0 else t.seatmap[w]
    out["turns"][row] = res[layout.RES_TURNS]
    out["winner_points"][row] = res[layout.RES_WPTS]
    out["cards_drawn"][row] = res[layout.RES_DRAWN]
    out["end"][row] = res[layout.RES_END]
    out["reshuffles"][row] = res[layout.RES_RESHUF]
    out["hand_points"][row, :t.n] = res[layout.RES_HPTS:layout.RES_HPTS + t.n]
    out["extra"][row] = res[layout.RES_CHALLENGES:layout.RES_CHALLENGES + layout.NEXTRA]


def end_match_round(t: Table, s: State) -> bool:
    """Score the finished round into the match (nb.score_match_round_nb); start the next round unless the
    match is over (returns True then)."""
    n, mi = t.n, t.mi
    seated = s.active[3 * n:]
    nb.hand_points_nb(n, s.res, seated, s.pts)
    if nb.score_match_round_nb(s.res[layout.RES_WINNER], s.res[layout.RES_WPTS], s.res[layout.RES_TURNS], n, mi, t.R,
                               s.ms, s.scores, s.pts, s.rwins, seated, s.rng) \
            or s.ms[nb.MS_ROUNDS] >= mi[nb.MI_MAX_ROUNDS]:
        return True
    begin_match_round(t, s)
    return False


def begin_match_round(t: Table, s: State) -> None:
    """Round ms[MS_ROUNDS] of the match: its seed and the scores in the observation."""
    nb.match_round_seed_nb(t.game, np.uint64(t.seed), t.n, t.mi, s.ms, s.scores, s.obs, s.rng)
    s.new_round(int(s.rng[0]))


# ---- plain-Python seats that read the engine's state, and unosim trace --------------------------------
def _drawn_in_step(start: State, now: State, seat: int) -> np.ndarray | None:
    """The cards drawn from the pile since the step's start, the first drawn first, when ``seat`` has seen
    every one (in its hand, or laid on the discard pile); None when it has not (another seat's draw) or the
    pile was reshuffled."""
    top, left = int(start.st[layout.ST_PILE_N]), int(now.st[layout.ST_PILE_N])
    if left > top or start.st[layout.ST_RESHUF] != now.st[layout.ST_RESHUF]:
        return None
    drawn = start.pile[left:top][::-1].copy()
    seen = set(now.hand[seat, :now.hlen[seat]].tolist()) | set(now.disc[:now.st[layout.ST_DISC_N]].tolist())
    return drawn if all(int(c) in seen for c in drawn) else None


class _Seats:
    """The seats of a round played from Python (POL_EXTERNAL), asked at each of their decisions: ``objs`` maps
    a policy index to its PythonPolicy.  A policy that reads the engine's state (``uses_state``) gets it at
    each decision (``d.state``, a RoundState: the round paused at a play decision, else its step's start)."""

    def __init__(self, t: Table, s: State, objs: dict[int, PythonPolicy], specs, on_decision=None) -> None:
        self.t, self.s, self.objs, self.specs, self.on_decision = t, s, objs, specs, on_decision
        self.names = {who: str(specs[who]) for who in objs}  # as errors name them
        self.stateful = any(getattr(o, "uses_state", False) for o in objs.values())
        # the engine answers the decisions that allow one answer where no seat wants to see them (and nobody
        # watches every decision: unosim trace)
        self.auto = on_decision is None and not any(getattr(o, "asks_forced", True) for o in objs.values())
        self.answers: list[int] = []
        # the round's public events, for a seat that reads the others' plays (lookahead(reads=1))
        self.log = np.zeros((LOG_ROWS, 5), np.int64) if any(getattr(o, "reads_log", False) for o in objs.values()) \
            else _NO_LOG
        self.in_step: list[tuple[int, int, int]] = []  # (seat, decision kind, answer) given in this step so far

    def __call__(self, d: Decision, start: np.ndarray, given: list[tuple[int, int, int]]) -> None:
        t, s = self.t, self.s
        seat = int(s.st[layout.ST_ERR_SEAT])
        who = int(t.seatmap[seat])
        if len(s.queue) == len(given):  # a new step: nothing answered in it but what the engine gave
            self.in_step.clear()
        self.in_step.extend(given)
        if self.stateful and getattr(self.objs[who], "uses_state", False):
            d.state = self.state_at(d, seat, start)
        v = _ask(self.objs[who], self.names[who], d)
        if self.on_decision is not None:
            self.on_decision(d, v, int(s.st[layout.ST_ERR_VAL]))
        self.in_step.append((seat, E.DECISION_NAMES.index(d.kind), v))
        self.answers.append(v)

    def state_at(self, d: Decision, seat: int, start: np.ndarray) -> RoundState | None:
        """Where the decision can be played again from: the round paused at it (a play decision), else the
        start of its step with this seat's earlier answers in the step and the cards it drew in it; None in
        the round's first step (the deal itself: the starting card's colour) and where the step drew a card
        this seat has not seen."""
        t, s = self.t, self.s
        if d.kind == "play":
            return RoundState(t.n, t.gcol, t.grank, t.gpts, t.ri, t.rf, s.hand, s.hlen, s.pile, s.disc, s.active,
                              s.st, s.res, t.slot, log=self.log)
        a = State(s.n, s.ncards, start.copy())
        if not a.started:
            return None
        drawn = _drawn_in_step(a, s, seat)
        if drawn is None:
            return None
        prefix = tuple((kind, v) for q, kind, v in self.in_step if q == seat)
        return RoundState(t.n, t.gcol, t.grank, t.gpts, t.ri, t.rf, a.hand, a.hlen, a.pile, a.disc, a.active, a.st,
                          a.res, t.slot, layout.MODE_CONTINUE, prefix, drawn, log=self.log)

    def play_round(self, log: np.ndarray | None = None) -> None:
        """Play the round in ``s`` to its end, asking at every decision (its events into ``log`` where given)."""
        s = self.s
        if log is not None:
            self.log = log
        while to_decision(self.t, s, self.log, on_pause=self, snapshot=self.stateful, auto=self.auto) is not None:
            s.queue.append(self.answers[-1])
        if s.st[layout.ST_ERR] == 2:
            check_policy_error(np.array([self.t.game, self.t.seatmap[s.st[layout.ST_ERR_SEAT]], s.st[layout.ST_ERR_KIND],
                                         s.st[layout.ST_ERR_VAL]]), self.specs)


def play_round_external(gi: int, seed: int, n: int, dk, ri, rf, pol, pp, seating: int, slot, specs,
                        objs: dict[int, PythonPolicy], on_decision=None,
                        log: np.ndarray | None = None) -> tuple[np.ndarray, dict[str, Any]]:
    """Round ``gi`` of a run, exactly as play_batch_nb plays it, with the seats in ``objs`` (POL_EXTERNAL)
    asked step by step.  Returns (res, what the round was played with: the pairing's face tables, the seats, the
    answers, the events, the table); ``on_decision(d, answer, events)`` sees
    every decision of those seats (``unosim trace``)."""
    t = table_for(gi, seed, n, dk, ri, rf, pol, pp, seating, slot)
    s = State(n, dk.size)
    s.active[3 * n:] = 1
    s.new_round(int(rng_nb.game_seed_nb(np.uint64(seed), np.uint64(gi))))
    seats = _Seats(t, s, objs, specs, on_decision)
    seats.play_round(log)
    return s.res, {"gcol": t.gcol, "grank": t.grank, "gpts": t.gpts,
                   "seatmap": t.seatmap, "answers": seats.answers, "events": int(s.st[layout.ST_LOG_N]), "table": t}


def run_external_batch(out: dict[str, np.ndarray], lo: int, hi: int, seed: int, n: int, dk, ri, rf, pol, pp,
                       seating: int, slot, specs, first: int = 0) -> None:
    """Rows lo..hi-1 of ``out`` get the rounds with global indices first+lo .. first+hi-1 (the same columns
    play_batch_nb writes)."""
    objs = {i: _instance(sp) for i, sp in enumerate(specs) if is_external(sp.name)}
    begin_batch()
    for gi in range(lo, hi):
        res, fin = play_round_external(first + gi, seed, n, dk, ri, rf, pol, pp, seating, slot, specs, objs)
        store_round(out, gi, fin["table"], res)


def new_match(t: Table, s: State) -> None:
    """Match t.game before its first round (nb.new_match_nb), the first round seeded."""
    nb.new_match_nb(t.n, s.ms, s.scores, s.rwins, s.active[3 * t.n:])
    begin_match_round(t, s)


def store_match(out: dict[str, np.ndarray], row: int, t: Table, s: State) -> None:
    """Row ``row`` of the match-mode outputs (winner, rounds, end, scores, rwins, seatmap, turns) from a
    finished match, as play_match_batch_nb writes it."""
    n, half = t.n, t.n // 2
    partners = bool(t.mi[nb.MI_PARTNERS])
    out["winner"][row] = s.ms[nb.MS_WINNER]
    out["rounds"][row] = s.ms[nb.MS_ROUNDS]
    out["end"][row] = nb.MEND_DONE if s.ms[nb.MS_DONE] else nb.MEND_ROUND_CAP
    out["turns"][row] = s.ms[nb.MS_TURNS]
    for q in range(n):
        out["scores"][row, q] = s.scores[q % half] if partners else s.scores[q]
        out["rwins"][row, q] = s.rwins[q]
        out["seatmap"][row, q] = t.seatmap[q]


def run_external_match_batch(out: dict[str, np.ndarray], lo: int, hi: int, seed: int, n: int, dk, ri, rf, pol,
                             pp, mi: np.ndarray, slot, specs, first: int = 0) -> None:
    """Rows lo..hi-1 of ``out`` get the matches with global indices first+lo .. first+hi-1, their plain-Python
    seats that read the engine's state asked step by step (the same columns play_match_batch_nb writes)."""
    objs = {i: _instance(sp) for i, sp in enumerate(specs) if is_external(sp.name)}
    begin_batch()
    for m in range(lo, hi):
        t = table_for(first + m, seed, n, dk, ri, rf, pol, pp, int(mi[nb.MI_SEATING]), slot, mi)
        s = State(n, dk.size)
        new_match(t, s)
        seats = _Seats(t, s, objs, specs)
        while True:
            seats.play_round()
            if end_match_round(t, s):
                break
        store_match(out, m, t, s)
