"""Plain-Python policies: the same decisions and observation as numba policies, as readable objects.

Write a class with a method per decision you care about; every other decision falls back to greedy::

    from unosim.players.external import PythonPolicy

    class LowFirst(PythonPolicy):
        name = "low_first_py"
        params = {"p_draw": 0.0}

        def play(self, d):
            # d.options: card names ("red 5", "wild", ...); d.points[k]: their points
            if not d.nlegal:
                return -1
            return min(range(d.nlegal), key=lambda k: (d.options[k] in ("wild", "wd4"), d.points[k]))

Put it in a policy file (``--policy-file``) or pass the class in ``policies=[LowFirst, "greedy", ...]``.

How it runs: the engine's compiled kernels call the policy back at each of its decisions, through
the same policy slot as numba policies (a small compiled function that enters Python for that
seat); the policy sees the decision decoded into a :class:`Decision` and its answer goes straight
back into the round, in round and match mode alike.  One instance of the class serves each seat
(and parameter set) for a batch of rounds.  A plain-Python policy that uses ``d.rng`` gets a
generator seeded from the round's random stream at that decision, so runs are reproducible; a
deterministic one gives exactly the records of the same strategy in numba.

A policy that samples the hidden cards itself (``uses_state = True``: ``lookahead``) needs the
engine's arrays at the decision, which a callback does not see: its rounds are played step by step
(:mod:`unosim.running.steps`), and at each of its decisions the engine stops and hands over that decision's
observation and arrays; the step is then played again from its start with the answer (in round and
match mode).  ``unosim trace`` plays rounds the same way.

A per-decision time limit (:func:`set_decision_timeout`, ``--decision-timeout SECONDS`` on the command
line) stops the run with one line naming the policy, the decision and the limit when a plain-Python
policy's answer took longer; it is measured when the call returns (a call that never returns is
ended by a second Ctrl-C).
"""

from __future__ import annotations

import functools
import hashlib
import math
import random
import threading
import time
from typing import Any

import numpy as np

from ..core import enums as E
from ..core.heuristics_nb import greedy_obs_nb
from ..core.layout import MODE_RESUME
from ..errors import DecisionTimeout, PolicyAnswerError, policy_raised
from .policies import POLICIES, PolicyError, PolicyInfo, register_policy


def kind_name(kind: int, side: int = 0) -> str:
    """A card kind (colour * NRANKS + rank) as a name: ``red 5``, ``blue skip``, ``wild``, ``wd4``."""
    col, rank = divmod(int(kind), E.NRANKS)
    if col == E.BLACK:
        return E.RANK_NAMES[rank]
    names = E.DARK_COLOR_NAMES if side == 1 else E.COLOR_NAMES
    return f"{names[col]} {E.RANK_NAMES[rank]}"


def _counts(obs: np.ndarray, base: int, side: int) -> dict[str, int]:
    v = obs[base:base + E.NKINDS]
    return {kind_name(k, side): int(v[k]) for k in np.flatnonzero(v)}


class RoundState:
    """The engine's arrays where a decision can be played again from, and the run's constants: what
    :func:`unosim.players.lookahead.rollouts_nb` copies for each playout.  At a play decision (``mode``
    ``layout.MODE_RESUME``) the arrays are the round paused at it (views, valid until the round continues); at
    any other decision (``layout.MODE_CONTINUE``) they are a copy of the start of the step it belongs to,
    ``prefix`` the deciding seat's earlier answers in that step ((decision kind, answer) pairs) and
    ``pinned`` the cards it drew in the step before this decision, in the order drawn."""

    def __init__(self, n, fcol, frank, fpts, ri, rf, hand, hlen, pile, disc, active, st, res, slot,
                 mode: int = MODE_RESUME, prefix: tuple[tuple[int, int], ...] = (), pinned: np.ndarray | None = None,
                 log: np.ndarray | None = None):
        self.n, self.fcol, self.frank, self.fpts, self.ri, self.rf = n, fcol, frank, fpts, ri, rf
        self.hand, self.hlen, self.pile, self.disc, self.active, self.st, self.res = \
            hand, hlen, pile, disc, active, st, res
        self.slot = slot
        self.mode, self.prefix = mode, tuple(prefix)
        self.pinned = np.zeros(0, np.int64) if pinned is None else pinned
        # the round's event log (rows up to st[ST_LOG_N]: the events before this state), where the seat asked for
        # one (``reads_log``); empty otherwise
        self.log = np.zeros((0, 5), np.int64) if log is None else log


def known_region(obs: np.ndarray) -> np.ndarray | None:
    """The observation's known-cards counts (MAXP x NKINDS, seat-major), or None while nothing was shown."""
    if not obs[E.OBS_KNOWN_ON] or not obs[E.OBS_KNOWN_AT]:
        return None
    k0 = int(obs[E.OBS_KNOWN_AT])
    return obs[k0:k0 + E.MAXP * E.NKINDS]


class Decision:
    """One decision of one seat, with everything it may see (decoded from the observation).

    Attributes: ``kind`` (play, color, play_drawn, respond, challenge, jump_in, swap_target,
    give_card), ``seat``, ``options`` (card names, colour names, seats, or (keep, play) / (accept,
    challenge); ``nopt`` of them), ``nlegal`` (play: options[:nlegal] are legal, the rest are Wild
    Draw Four bluffs), ``none_ok`` (whether -1, draw / take / don't / nobody, is accepted),
    ``points`` (the options' points or info, see unosim.players.policy_api), ``top``, ``color``
    (None: anything may follow), ``direction``, ``side``, ``turn``.  Decoded when first read (as are
    ``options``, ``points``, ``top`` and ``color``): ``hand`` (own hand, card name -> count),
    ``hand_sizes``, ``scores``, ``pending`` (rank of the attack, cards to draw, who played it),
    ``played`` (discard pile counts since the last reshuffle), ``backs`` (UNO Flip: visible backs of
    the other hands), ``known`` (cards this seat knows are in another hand), ``rng`` (a generator
    seeded from the round's stream at this decision); ``obs`` is the raw observation.  ``state`` is
    the engine's paused state (:class:`RoundState`), given only to the policies that sample the
    hidden cards themselves (``uses_state = True``), and None where the decision cannot be played
    again (unosim.running.steps).
    """

    def __init__(self, obs: np.ndarray, rng_state: int) -> None:
        self.obs = obs
        self._rng_state = rng_state
        self.state: Any = None
        self.side = int(obs[E.OBS_SIDE])
        self.kind = E.DECISION_NAMES[int(obs[E.OBS_KIND])]
        self.seat = int(obs[E.OBS_SEAT])
        self.nopt = int(obs[E.OBS_NOPT])
        self.nlegal = int(obs[E.OBS_NLEGAL])
        self.none_ok = bool(obs[E.OBS_NONE_OK])
        self.direction = int(obs[E.OBS_DIRECTION])
        self.turn = int(obs[E.OBS_TURN])

    # decoded when first read: a policy that reads the observation itself (lookahead) never pays for the names
    @functools.cached_property
    def options(self) -> list[Any]:
        obs, kind = self.obs, int(self.obs[E.OBS_KIND])
        vals = [int(obs[E.OBS_OPT + E.OPT_STRIDE * k]) for k in range(self.nopt)]
        if kind in (E.D_PLAY, E.D_RESPOND, E.D_JUMP_IN, E.D_GIVE_CARD):
            return [kind_name(v, self.side) for v in vals]
        if kind == E.D_COLOR:
            return list(self._colors[:E.NCOLORS])
        if kind == E.D_PLAY_DRAWN:
            return ["keep", "play"]
        if kind == E.D_CHALLENGE:
            return ["accept", "challenge"]
        return vals

    @functools.cached_property
    def points(self) -> list[int]:
        return [int(self.obs[E.OBS_OPT + E.OPT_STRIDE * k + 2]) for k in range(self.nopt)]

    @functools.cached_property
    def top(self) -> str:
        return kind_name(int(self.obs[E.OBS_TOP]), self.side)

    @functools.cached_property
    def color(self) -> str | None:
        cur = int(self.obs[E.OBS_COLOR])
        return self._colors[cur] if 0 <= cur < E.NCOLORS else None

    @property
    def _colors(self) -> tuple[str, ...]:
        return E.DARK_COLOR_NAMES if self.side == 1 else E.COLOR_NAMES

    @classmethod
    def from_obs(cls, obs: np.ndarray, rng_state: int) -> Decision:
        return cls(obs.copy(), rng_state)

    def __repr__(self) -> str:
        return (f"Decision(kind={self.kind!r}, seat={self.seat}, options={self.options!r}, nlegal={self.nlegal}, "
                f"top={self.top!r}, color={self.color!r}, turn={self.turn})")

    @functools.cached_property
    def _players(self) -> int:
        return int(self.obs[E.OBS_PLAYERS])

    @functools.cached_property
    def hand(self) -> dict[str, int]:
        return _counts(self.obs, E.OBS_HAND, self.side)

    @functools.cached_property
    def hand_sizes(self) -> list[int]:
        return [int(x) for x in self.obs[E.OBS_HLEN:E.OBS_HLEN + self._players]]

    @functools.cached_property
    def scores(self) -> list[int]:
        return [int(x) for x in self.obs[E.OBS_SCORE:E.OBS_SCORE + self._players]]

    @functools.cached_property
    def pending(self) -> tuple[str | None, int, int]:
        pk = int(self.obs[E.OBS_PEND_KIND])
        return (E.RANK_NAMES[pk] if pk >= 0 else None, int(self.obs[E.OBS_PEND_N]), int(self.obs[E.OBS_PEND_FROM]))

    @functools.cached_property
    def played(self) -> dict[str, int]:
        return _counts(self.obs, E.OBS_PLAYED, self.side)

    @functools.cached_property
    def backs(self) -> dict[int, dict[str, int]]:
        obs = self.obs
        if not obs[E.OBS_TWO_SIDED]:
            return {}
        return {s: _counts(obs, E.OBS_BACKS + s * E.NKINDS, 1 - self.side) for s in range(self._players)
                if s != self.seat and obs[E.OBS_ACTIVE + s]}

    @functools.cached_property
    def known(self) -> dict[int, dict[str, int]]:
        region = known_region(self.obs)
        return {} if region is None else {s: c for s in range(self._players)
                                          if (c := _counts(region, s * E.NKINDS, self.side))}

    @functools.cached_property
    def rng(self) -> random.Random:
        return random.Random(self._rng_state)

    def greedy(self) -> int:
        """greedy's answer to this decision (the default of every method)."""
        return self.answer_of(greedy_obs_nb, np.zeros(E.NPP))

    def answer_of(self, policy, params: np.ndarray) -> int:
        """The answer of a compiled policy function ``policy(kind, obs, params, rng)`` (unosim.players.policy_api)
        with parameters ``params`` to this decision."""
        return int(policy(E.DECISION_NAMES.index(self.kind), self.obs, params, np.zeros(1, np.uint64)))


class PythonPolicy:
    """Base class of plain-Python policies: override ``decide`` or any decision method (each takes a
    :class:`Decision` and returns an option index, or -1 where ``d.none_ok``); the others play greedy."""

    name: str | None = None
    params: dict[str, float] = {}
    #: asked at every decision, also where a single answer is allowed (a draw with nothing to play).  A policy
    #: that reads the engine's state (``uses_state``) may set it False: the engine then answers those itself
    #: (unosim.running.steps), and the policy never sees them
    asks_forced = True

    def __init__(self, **params: float) -> None:
        self.p = {**type(self).params, **params}

    def decide(self, d: Decision) -> int:
        return getattr(self, d.kind)(d)

    def play(self, d: Decision) -> int:
        return d.greedy()

    color = play_drawn = respond = challenge = jump_in = swap_target = give_card = play


_CLASSES: dict[str, tuple[type, str]] = {}
_BY_WHICH: dict[int, str] = {}   # slot index (PY_SLOT_BASE + k) -> class name


def register_class(cls: type, source: str) -> str:
    """Make a PythonPolicy subclass nameable in policy strings; returns its name.  It answers through
    the kernels' policy slot (:func:`python_decide`), or by replays where it reads the engine's state."""
    name = (cls.name or cls.__name__).lower()
    if not name.isidentifier():
        raise PolicyError(f"policy name {name!r} in {source} is not an identifier; accepted: letters, digits "
                          "and underscores")
    params = dict(cls.params)
    pid = E.POL_EXTERNAL if getattr(cls, "uses_state", False) else E.POL_SLOT + _slot_index(name)
    register_policy(PolicyInfo(name, pid, " ".join((cls.__doc__ or "(plain-Python policy)").split()),
                               params={k: j for j, k in enumerate(params)},
                               defaults={k: float(v) for k, v in params.items()},
                               ranges={**{k: (-1e300, 1e300) for k in params}, **getattr(cls, "ranges", {})},
                               source=source, cheat=bool(getattr(cls, "cheat", False)),
                               play_version=int(getattr(cls, "play_version", 0))))
    _CLASSES[name] = (cls, source)
    return name


def _slot_index(name: str) -> int:
    """The class's index in the policy slot: kept when a class of the same name is registered again."""
    which = next((w for w, n in _BY_WHICH.items() if n == name), E.PY_SLOT_BASE + len(_BY_WHICH))
    _BY_WHICH[which] = name
    return which
def class_sha256(cls: type) -> str:
    """SHA-256 of what a plain-Python policy class plays as: the source of every class of its MRO up to
    :class:`PythonPolicy` (the code objects where the source cannot be read, e.g. a class typed at a prompt)."""
    import inspect
    import marshal

    h = hashlib.sha256()
    for c in cls.__mro__:
        if c is PythonPolicy or not issubclass(c, PythonPolicy):
            continue
        try:
            h.update(inspect.getsource(c).encode())
        except (OSError, TypeError):
            for k, v in sorted(vars(c).items()):
                code = getattr(v, "__code__", None)
                h.update(k.encode() + (marshal.dumps(code) if code is not None else repr(v).encode()))
    return h.hexdigest()


def passed_classes(names: list[str]) -> list[tuple[str, str]]:
    """(name, content hash) of each plain-Python policy class among ``names`` that was passed as an
    object (a class of a policy file counts through the file's hash), and of each built-in, class or
    heuristic, whose play has changed since the store began (``play_version`` N > 0: the hash of its name
    and N), so that a stored cell of an older play is not served for it."""
    out = {}
    for name in names:
        cls, source = _CLASSES.get(name, (None, ""))
        version = POLICIES[name].play_version if name in POLICIES else 0
        if cls is not None and source.startswith("python:"):
            out[name] = class_sha256(cls)
        elif version:
            out[name] = hashlib.sha256(f"unosim built-in {name} play version {version}".encode()).hexdigest()
    return sorted(out.items())


def is_external(name: str) -> bool:
    """Whether ``name`` is a plain-Python policy (a PythonPolicy class)."""
    return name in _CLASSES


_BATCH = threading.local()   # this thread's policy instances for the batch being played


def begin_batch() -> None:
    """Fresh instances of the plain-Python policies for the next kernel call on this thread."""
    _BATCH.instances = {}


def python_decide(which: int, kind: int, obs: np.ndarray, params: np.ndarray, rng: np.ndarray) -> int:
    """The policy slot's call into Python: seat ``obs[OBS_SEAT]``'s plain-Python policy answers the
    decision in ``obs`` (an option index or -1; a bad answer or an exception raises PolicyError)."""
    name = _BY_WHICH[which]
    key = (which, int(obs[E.OBS_SEAT]), params.tobytes())
    instances = getattr(_BATCH, "instances", None)
    if instances is None:
        instances = _BATCH.instances = {}
    obj = instances.get(key)
    if obj is None:
        cls, _ = _CLASSES[name]
        obj = instances[key] = cls(**{k: float(params[j]) for k, j in POLICIES[name].params.items()})
    return _ask(obj, name, Decision.from_obs(obs, int(rng[0])))


def _instance(spec) -> PythonPolicy:
    cls, _ = _CLASSES[spec.name]
    return cls(**dict(spec.params))


_TIMEOUT: list[float | None] = [None]  # seconds a plain-Python policy may take per decision (every thread)


def set_decision_timeout(seconds: float | None) -> float | None:
    """Limit the seconds a plain-Python policy may take to answer one decision (None: no limit), for every
    run of this process on this machine (not on dask workers); returns the previous limit.  A slower
    answer stops the run with :class:`~unosim.errors.DecisionTimeout` naming the policy, the decision
    and the limit."""
    if seconds is not None and (isinstance(seconds, bool) or not isinstance(seconds, int | float)
                                or not 0 < seconds < math.inf):
        raise DecisionTimeout(f"decision timeout {seconds!r} is not a positive number of seconds; accepted: "
                              "a number > 0, e.g. 0.5")
    previous, _TIMEOUT[0] = _TIMEOUT[0], None if seconds is None else float(seconds)
    return previous


def _ask(obj: PythonPolicy, name: str, d: Decision) -> int:
    t0 = time.perf_counter()
    try:
        v = obj.decide(d)
    except Exception as e:
        raise policy_raised(f"policy {name!r} raised {type(e).__name__} while deciding {d.kind!r}", e) from None
    limit = _TIMEOUT[0]
    if limit is not None and (took := time.perf_counter() - t0) > limit:
        raise DecisionTimeout(f"policy {name!r} took {took:.3g} s to decide {d.kind!r}, more than the "
                              f"per-decision limit of {limit:g} s; accepted: a policy that answers within "
                              "the limit, or a larger --decision-timeout")
    ok = isinstance(v, (int, np.integer)) and not isinstance(v, bool) and \
        (0 <= v < d.nopt or (v == -1 and d.none_ok))
    if not ok:
        raise PolicyAnswerError(f"policy {name!r} answered decision {d.kind!r} with {v!r}; accepted: an option "
                                f"index 0..{d.nopt - 1}" + (", or -1" if d.none_ok else ""))
    return int(v)


def policy_names(policies: Any) -> Any:
    """Policies as names: PythonPolicy subclasses given as objects are registered under their name."""
    if isinstance(policies, (list, tuple)):
        return [register_class(p, f"python:{p.__module__}") if isinstance(p, type) and issubclass(p, PythonPolicy)
                else p for p in policies]
    return policies
