"""A round or a match you step through decision by decision: the API for your own agents and searches.

::

    from unosim import Game

    g = Game(rules="official", players=3, seed=7)
    while not g.is_over():
        d = g.observation()                  # what the seat to move sees (unosim.players.external.Decision)
        g.apply(g.legal_actions()[0])        # an option index, or -1 where d.none_ok
    print(g.returns(), g.result)

Every seat is yours to play: the game stops at each decision of every kind (play, colour, keep or play a
drawn card, respond to an attack, challenge, jump in, swap target, give a card) and waits for
:meth:`Game.apply`.  What a seat sees is exactly what a policy of that seat sees (the policy interface:
its own hand, public counts, what it was shown), never more.  ``Game(seed=s, round=k)`` is round ``k``
of ``unosim simulate --seed s`` (or match ``k`` with ``mode="match"``), so an agent that answers like
``greedy`` replays that run's records exactly.

How it runs: the game's state is the compiled engine's arrays in one buffer (:mod:`unosim.running.steps`), which
the engine plays a step at a time (a turn, or a response window); a decision stops the step, and the
answer plays it again from its start.  An answer costs one step of the engine (microseconds), and
:meth:`Game.clone` copies the buffer: a search can clone the game at every decision.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..core import enums as E
from ..core import rng_nb
from ..errors import SimulationError
from ..players.external import Decision
from ..running.steps import (
    State,
    Table,
    end_match_round,
    new_match,
    store_match,
    store_round,
    table_for,
    to_decision,
)
from ..validate import SEATINGS

_NONE_NAMES = {"play": "draw", "respond": "take", "jump_in": "pass", "swap_target": "nobody"}


class Game:
    """One round (``mode="round"``) or one match (``mode="match"``, with the match options of
    :func:`unosim.simulate`) of the given rules, deck and number of players, every seat played by you."""

    def __init__(self, rules: Any = "official", players: int = 4, deck: str = "classic", seed: int = 0,
                 round: int = 0, mode: str = "round", **match_options: Any) -> None:
        from ..running.sim import check_simulate, pack_rules

        self._config = dict(rules=rules, players=players, deck=deck, seed=seed, round=round, mode=mode,
                            **match_options)
        run = check_simulate(rules=rules, players=players, policies="random", games=1, seed=seed, threads=1,
                             deck=deck, mode=mode, first=round, **match_options)
        n = self.players = int(players)
        self.mode = mode
        self.history: list[tuple[int, int]] = []     # (seat, action) of every decision so far
        self.result: dict[str, Any] | None = None    # the finished round's or match's record
        self._seen: dict[int, Decision] = {}
        self._decision: Decision | None = None
        self._spec = getattr(run, "spec", None)
        ri, rf = pack_rules(run.rules, run.deck)
        pol = np.full(n, E.POL_EXTERNAL, np.int64)   # every seat answers from here
        pp = np.zeros((n, E.NPP), np.float64)
        seating = SEATINGS.index(run.seating)
        mi = self._spec.pack(seating) if self._spec is not None else None
        self._t: Table = table_for(round, seed, n, run.deck, ri, rf, pol, pp, seating, None, mi)
        self._s = State(n, run.deck.size)
        if mi is None:
            self._s.active[3 * n:] = 1
            self._s.new_round(int(rng_nb.game_seed_nb(np.uint64(seed), np.uint64(round))))
        else:
            new_match(self._t, self._s)
        self._advance()


    # -- the state -----------------------------------------------------------------------------------
    @property
    def current_player(self) -> int:
        """The seat to decide, or -1 once the game is over."""
        return -1 if self._decision is None else self._decision.seat

    def is_over(self) -> bool:
        return self._decision is None

    def observation(self, seat: int | None = None) -> Decision | None:
        """What ``seat`` (default: the seat to decide) saw at its latest decision: for the seat to
        decide, the decision in front of it; None for a seat that has not decided yet."""
        if seat is None:
            return self._decision
        if not 0 <= seat < self.players:
            raise SimulationError(f"seat {seat!r} is not at this table; accepted: 0..{self.players - 1}")
        return self._seen.get(seat)

    def legal_actions(self) -> list[int]:
        """The actions of the seat to decide: option indices, and -1 where the decision allows none."""
        d = self._decision
        if d is None:
            return []
        return list(range(d.nopt)) + ([-1] if d.none_ok else [])

    def action_name(self, action: int) -> str:
        """A readable name of an action of the current decision (``red 5``, ``wild``, ``draw``, ``blue``...)."""
        d = self._decision
        if d is None or action not in self.legal_actions():
            raise SimulationError(f"action {action!r} is not legal here; accepted: {self.legal_actions()}")
        if action == -1:
            return _NONE_NAMES.get(d.kind, "none")
        opt = d.options[action]
        if d.kind == "swap_target":
            return f"seat {opt}"
        return str(opt)

    def returns(self) -> list[float]:
        """Per seat: 1.0 for the winner of the round (or the match), 0.0 for the others (all 0.0 when
        a round ended without a winner); all 0.0 while the game is not over."""
        out = [0.0] * self.players
        if self.result is not None and 0 <= int(self.result["winner"]) < self.players:
            out[int(self.result["winner"])] = 1.0
        return out

    # -- moves -----------------------------------------------------------------------------------
    def apply(self, action: int) -> None:
        """The seat to decide takes ``action`` (one of :meth:`legal_actions`); the game runs on to the
        next decision or its end."""
        if self._decision is None:
            raise SimulationError("the game is over; accepted: no further action (see Game.returns())")
        legal = self.legal_actions()
        if isinstance(action, bool) or not isinstance(action, (int, np.integer)) or action not in legal:
            raise SimulationError(f"action {action!r} is not legal for seat {self.current_player} at its "
                                  f"{self._decision.kind!r} decision; accepted: {legal}")
        self.history.append((self.current_player, int(action)))
        self._s.queue.append(int(action))
        self._advance()

    def clone(self) -> Game:
        """A new game in the same state (one copy of the engine's buffer): both go on independently."""
        other = object.__new__(Game)
        other.__dict__.update(self.__dict__)
        other._s = self._s.copy()
        other.history = list(self.history)
        other._seen = dict(self._seen)
        other.result = None if self.result is None else dict(self.result)
        return other

    def close(self) -> None:
        """Nothing to release (kept for code written against earlier versions, which ran a thread)."""

    def __repr__(self) -> str:
        state = "over" if self.is_over() else f"seat {self.current_player} to {self._decision.kind}"
        return f"Game({self._config}, {len(self.history)} actions, {state})"

    # -- the engine -------------------------------------------------------------------------------------
    def _advance(self) -> None:
        """Play on to the next decision, or to the end of the round or match (then ``result``)."""
        t, s = self._t, self._s
        while True:
            d = to_decision(t, s)
            if d is not None:
                self._decision = d
                self._seen[d.seat] = d
                return
            if self._spec is None or end_match_round(t, s):
                self._decision = None
                self.result = self._record()
                return

    def _record(self) -> dict[str, Any]:
        """The finished round's or match's record, as unosim.simulate writes it."""
        from ..running.sim import _alloc, records_frame

        t, s, n = self._t, self._s, self.players
        first = int(self._config["round"])
        if self._spec is None:
            out = _alloc(1, n)
            store_round(out, 0, t, s.res)
            return records_frame(out, np.array([first]), n).iloc[0].to_dict()
        from ..running.match import alloc_matches, match_records

        out = alloc_matches(1, n)
        store_match(out, 0, t, s)
        return match_records(out, np.array([first]), n, self._spec).iloc[0].to_dict()
