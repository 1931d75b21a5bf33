"""A round or a match you step through decision by decision: the API for your own agents and searches.

::

    from unosim import Game

    g = Game(rules="official", players=3, seed=7)
    while not g.is_over():
        d = g.observation()                  # what the seat to move sees (unosim.external.Decision)
        g.apply(g.legal_actions()[0])        # an option index, or -1 where d.none_ok
    print(g.returns(), g.result)

Every seat is yours to play: the game stops at each decision of every kind (play, colour, keep or play a
drawn card, respond to an attack, challenge, jump in, swap target, give a card) and waits for
:meth:`Game.apply`.  What a seat sees is exactly what a policy of that seat sees (the policy interface:
its own hand, public counts, what it was shown), never more.  ``Game(seed=s, round=k)`` is round ``k``
of ``unosim simulate --seed s`` (or match ``k`` with ``mode="match"``), so an agent that answers like
``greedy`` replays that run's records exactly.

How it runs: the compiled engine plays the round in a thread of its own, and every seat is a
plain-Python policy whose answer is the action you apply (see :mod:`unosim.external`), so a game costs
a thread hand-over per decision (tens of microseconds) and the engine's speed between them.
:meth:`Game.clone` replays the history into a new game (the engine's state cannot be copied yet), so it
costs the decisions so far; a search that clones often should sample its playouts through the batch
engine instead (:mod:`unosim.lookahead`).
"""

from __future__ import annotations

import atexit
import concurrent.futures.thread  # noqa: F401  (its exit hook must be registered before ours)
import itertools
import queue
import threading
import weakref
from typing import Any

from .errors import SimulationError
from .external import Decision, PythonPolicy, register_class

_GAMES: weakref.WeakValueDictionary[int, Game] = weakref.WeakValueDictionary()
_IDS = itertools.count(1)
_NONE_NAMES = {"play": "draw", "respond": "take", "jump_in": "pass", "swap_target": "nobody"}


class _Abandoned(BaseException):
    """Ends the engine's thread of a game that was closed before its end (not an error)."""


class _End:
    def __init__(self, result: Any = None, error: BaseException | None = None) -> None:
        self.result, self.error = result, error


class GameSeat(PythonPolicy):
    """A seat of a :class:`Game`: each decision waits for the action applied to the game (internal)."""

    name = "_game_seat"
    params = {"game": 0.0}

    def decide(self, d: Decision) -> int:
        game = _GAMES.get(int(self.p["game"]))
        if game is None:
            raise _Abandoned
        to_player, to_engine = game._to_player, game._to_engine
        del game  # no reference from the engine's thread: an abandoned game can be collected (and closed)
        to_player.put(d)
        action = to_engine.get()
        if action is None:
            raise _Abandoned
        return action


register_class(GameSeat, "built-in")


class Game:
    """One round (``mode="round"``) or one match (``mode="match"``, with the match options of
    :func:`unosim.simulate`) of the given rules, deck and number of players, every seat played by you."""

    def __init__(self, rules: Any = "official", players: int = 4, deck: str = "classic", seed: int = 0,
                 round: int = 0, mode: str = "round", **match_options: Any) -> None:
        from .sim import check_simulate

        self._config = dict(rules=rules, players=players, deck=deck, seed=seed, round=round, mode=mode,
                            **match_options)
        self._id = next(_IDS)
        run = check_simulate(rules=rules, players=players, policies=f"_game_seat(game={self._id})", games=1,
                             seed=seed, threads=1, deck=deck, mode=mode, first=round, **match_options)
        self.players = int(players)
        self.mode = mode
        self.history: list[tuple[int, int]] = []     # (seat, action) of every decision so far
        self.result: dict[str, Any] | None = None    # the finished round's or match's record
        self._seen: dict[int, Decision] = {}
        self._decision: Decision | None = None
        self._to_engine: queue.Queue = queue.Queue(maxsize=1)
        self._to_player: queue.Queue = queue.Queue(maxsize=1)
        _GAMES[self._id] = self
        self._thread = threading.Thread(target=_play, args=(run, self._to_player), daemon=True,
                                        name=f"unosim-game-{self._id}")
        self._thread.start()
        self._next()

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
        return list(range(len(d.options))) + ([-1] if d.none_ok else [])

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
        if isinstance(action, bool) or not isinstance(action, int) or action not in legal:
            raise SimulationError(f"action {action!r} is not legal for seat {self.current_player} at its "
                                  f"{self._decision.kind!r} decision; accepted: {legal}")
        self.history.append((self.current_player, int(action)))
        self._to_engine.put(int(action))
        self._next()

    def clone(self) -> Game:
        """A new game in the same state: the same configuration with this game's actions replayed."""
        other = Game(**self._config)
        for _, action in self.history:
            other.apply(action)
        return other

    def close(self) -> None:
        """Abandon a game before its end (its engine thread stops); harmless on a finished game."""
        if self._decision is not None:
            self._decision = None
            self._to_engine.put(None)
            self._thread.join(timeout=5)

    def __del__(self) -> None:
        try:
            self.close()
        except Exception:  # noqa: S110  (interpreter shutdown)
            pass

    def __repr__(self) -> str:
        state = "over" if self.is_over() else f"seat {self.current_player} to {self._decision.kind}"
        return f"Game({self._config}, {len(self.history)} actions, {state})"

    # -- the hand-over from the engine's thread (GameSeat.decide) -------------------------------
    def _next(self) -> None:
        item = self._to_player.get()
        if isinstance(item, _End):
            self._decision = None
            if item.error is not None:
                raise item.error
            self.result = item.result
            return
        self._decision = item
        self._seen[item.seat] = item


def _close_all() -> None:
    """At interpreter exit, before the thread pools wait for their threads: abandon the unfinished
    games, whose engine threads would otherwise wait for an action forever."""
    for game in list(_GAMES.values()):
        game.close()


# threading's exit hooks run in reverse order of registration, before atexit's: registered after
# concurrent.futures.thread's own (imported above), this one runs before the pools wait for their workers
getattr(threading, "_register_atexit", atexit.register)(_close_all)


def _play(run: Any, to_player: queue.Queue) -> None:
    """The engine's thread: play the one round or match, then hand over its record."""
    try:
        res = run.execute()
    except _Abandoned:
        return
    except BaseException as e:  # noqa: BLE001  (handed to the player's thread, raised there)
        to_player.put(_End(error=e))
        return
    to_player.put(_End(result=res.records.iloc[0].to_dict()))
