"""Plain-Python policies: the same decisions and observation as numba policies, as readable objects.

Write a class with a method per decision you care about; every other decision falls back to greedy::

    from unosim.external import PythonPolicy

    class LowFirst(PythonPolicy):
        name = "low_first_py"
        params = {"p_draw": 0.0}

        def play(self, d):
            # d.options: card names ("red 5", "wild", ...); d.points[k]: their points
            if not d.nlegal:
                return -1
            return min(range(d.nlegal), key=lambda k: (d.options[k] in ("wild", "wd4"), d.points[k]))

Put it in a policy file (``--policy-file``) or pass the class in ``policies=[LowFirst, "greedy", ...]``.

How it runs: the round's whole state is determined by its seed and the answers given so far, so
the engine replays a round from its seed with the plain-Python seats' answers queued; at the first
decision without an answer it stops and hands back that decision's observation; Python asks the
policy and replays with one more answer.  That costs O(decisions^2) turns per round (a few thousand
rounds per second) and needs no copy of the engine's locals; a ``Decision`` is a snapshot a
lookahead player can resume from (``seed`` + ``answers``).  A plain-Python policy that uses
``d.rng`` gets a generator seeded from the round's stream at that decision, so runs are
reproducible; a deterministic one gives exactly the records of the same strategy in numba.
"""

from __future__ import annotations

import random
import traceback
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from . import enums as E
from . import nb
from .heuristics_nb import greedy_obs_nb
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
    """The engine's arrays at a paused normal-turn play decision (views, valid until the round
    continues) and the run's constants: what :func:`unosim.lookahead.rollouts_nb` copies for each playout."""

    def __init__(self, n, fcol, frank, fpts, ri, rf, hand, hlen, pile, disc, active, st, res, slot):
        self.n, self.fcol, self.frank, self.fpts, self.ri, self.rf = n, fcol, frank, fpts, ri, rf
        self.hand, self.hlen, self.pile, self.disc, self.active, self.st, self.res = \
            hand, hlen, pile, disc, active, st, res
        self.slot = slot


def known_region(obs: np.ndarray) -> np.ndarray | None:
    """The observation's known-cards counts (MAXP x NKINDS, seat-major), or None while nothing was shown."""
    if not obs[E.OBS_KNOWN_ON] or not obs[E.OBS_KNOWN_AT]:
        return None
    k0 = int(obs[E.OBS_KNOWN_AT])
    return obs[k0:k0 + E.MAXP * E.NKINDS]


@dataclass
class Decision:
    """One decision of one seat, with everything it may see (decoded from the observation)."""

    kind: str                 # play, color, play_drawn, respond, challenge, jump_in, swap_target, give_card
    seat: int
    options: list[Any]        # card names, colour names, seats, or (keep, play) / (accept, challenge)
    nlegal: int               # play: options[:nlegal] are legal, the rest are Wild Draw Four bluffs
    none_ok: bool             # whether -1 (draw / take / don't / nobody) is accepted
    points: list[int]         # the options' points (cards) or info (see unosim.policy_api)
    hand: dict[str, int]      # own hand, card name -> count
    top: str
    color: str | None         # current colour (None: anything may follow)
    direction: int
    side: int
    turn: int
    hand_sizes: list[int]
    scores: list[int]
    pending: tuple[str | None, int, int]  # (rank of the attack, cards to draw, who played it)
    played: dict[str, int]    # discard pile counts since the last reshuffle
    backs: dict[int, dict[str, int]]  # UNO Flip: visible backs of the other hands
    known: dict[int, dict[str, int]]  # cards this seat knows are in another hand (shown or passed to it)
    obs: np.ndarray = field(repr=False)
    rng: random.Random = field(repr=False, default_factory=random.Random)
    # the engine's paused state (unosim.lookahead.RoundState), given only to the policies that sample the
    # hidden cards themselves (``uses_state = True``) and only at play decisions
    state: Any = field(repr=False, default=None)

    @classmethod
    def from_obs(cls, obs: np.ndarray, rng_state: int) -> Decision:
        kind = int(obs[E.OBS_KIND])
        side = int(obs[E.OBS_SIDE])
        n = int(obs[E.OBS_PLAYERS])
        nopt = int(obs[E.OBS_NOPT])
        vals = [int(obs[E.OBS_OPT + E.OPT_STRIDE * k]) for k in range(nopt)]
        infos = [int(obs[E.OBS_OPT + E.OPT_STRIDE * k + 2]) for k in range(nopt)]
        colors = E.DARK_COLOR_NAMES if side == 1 else E.COLOR_NAMES
        if kind in (E.D_PLAY, E.D_RESPOND, E.D_JUMP_IN, E.D_GIVE_CARD):
            options: list[Any] = [kind_name(v, side) for v in vals]
        elif kind == E.D_COLOR:
            options = list(colors[:E.NCOLORS])
        elif kind == E.D_PLAY_DRAWN:
            options = ["keep", "play"]
        elif kind == E.D_CHALLENGE:
            options = ["accept", "challenge"]
        else:
            options = vals
        pk = int(obs[E.OBS_PEND_KIND])
        cur = int(obs[E.OBS_COLOR])
        backs = {}
        if obs[E.OBS_TWO_SIDED]:
            backs = {s: _counts(obs, E.OBS_BACKS + s * E.NKINDS, 1 - side) for s in range(n)
                     if s != obs[E.OBS_SEAT] and obs[E.OBS_ACTIVE + s]}
        region = known_region(obs)
        known = {} if region is None else {s: c for s in range(n)
                                           if (c := _counts(region, s * E.NKINDS, side))}
        return cls(E.DECISION_NAMES[kind], int(obs[E.OBS_SEAT]), options, int(obs[E.OBS_NLEGAL]),
                   bool(obs[E.OBS_NONE_OK]), infos, _counts(obs, E.OBS_HAND, side),
                   kind_name(int(obs[E.OBS_TOP]), side), colors[cur] if 0 <= cur < E.NCOLORS else None,
                   int(obs[E.OBS_DIRECTION]), side, int(obs[E.OBS_TURN]),
                   [int(x) for x in obs[E.OBS_HLEN:E.OBS_HLEN + n]], [int(x) for x in obs[E.OBS_SCORE:E.OBS_SCORE + n]],
                   (E.RANK_NAMES[pk] if pk >= 0 else None, int(obs[E.OBS_PEND_N]), int(obs[E.OBS_PEND_FROM])),
                   _counts(obs, E.OBS_PLAYED, side), backs, known, obs.copy(), random.Random(rng_state))

    def greedy(self) -> int:
        """greedy's answer to this decision (the default of every method)."""
        return int(greedy_obs_nb(E.DECISION_NAMES.index(self.kind), self.obs, np.zeros(E.NPP),
                                 np.zeros(1, np.uint64)))


class PythonPolicy:
    """Base class of plain-Python policies: override ``decide`` or any decision method (each takes a
    :class:`Decision` and returns an option index, or -1 where ``d.none_ok``); the others play greedy."""

    name: str | None = None
    params: dict[str, float] = {}

    def __init__(self, **params: float) -> None:
        self.p = {**type(self).params, **params}

    def decide(self, d: Decision) -> int:
        return getattr(self, d.kind)(d)

    def play(self, d: Decision) -> int:
        return d.greedy()

    color = play_drawn = respond = challenge = jump_in = swap_target = give_card = play


_CLASSES: dict[str, tuple[type, str]] = {}


def register_class(cls: type, source: str) -> str:
    """Make a PythonPolicy subclass nameable in policy strings; returns its name."""
    name = (cls.name or cls.__name__).lower()
    if not name.isidentifier():
        raise PolicyError(f"policy name {name!r} in {source} is not an identifier; accepted: letters, digits "
                          "and underscores")
    params = dict(cls.params)
    register_policy(PolicyInfo(name, E.POL_EXTERNAL, " ".join((cls.__doc__ or "(plain-Python policy)").split()),
                               params={k: j for j, k in enumerate(params)},
                               defaults={k: float(v) for k, v in params.items()},
                               ranges={**{k: (-1e300, 1e300) for k in params}, **getattr(cls, "ranges", {})},
                               source=source, cheat=bool(getattr(cls, "cheat", False))))
    _CLASSES[name] = (cls, source)
    return name


def is_external(name: str) -> bool:
    return POLICIES[name].pid == E.POL_EXTERNAL


def _instance(spec) -> PythonPolicy:
    cls, _ = _CLASSES[spec.name]
    return cls(**dict(spec.params))


def _ask(obj: PythonPolicy, name: str, d: Decision) -> int:
    try:
        v = obj.decide(d)
    except Exception as e:
        frames = traceback.extract_tb(e.__traceback__)[1:]
        err = PolicyError(f"policy {name!r} raised {type(e).__name__} while deciding {d.kind!r}\n"
                          + "".join(traceback.format_list(frames)) + f"{type(e).__name__}: {e}")
        err.multiline = True
        raise err from None
    ok = isinstance(v, (int, np.integer)) and not isinstance(v, bool) and \
        (0 <= v < len(d.options) or (v == -1 and d.none_ok))
    if not ok:
        raise PolicyError(f"policy {name!r} answered decision {d.kind!r} with {v!r}; accepted: an option index "
                          f"0..{len(d.options) - 1}" + (", or -1" if d.none_ok else ""))
    return int(v)


def play_round_external(gi: int, seed: int, n: int, dk, ri, rf, pol, pp, seating: int, slot, specs,
                        objs: dict[int, PythonPolicy], answers: list[int] | None = None,
                        on_decision=None, log: np.ndarray | None = None) -> tuple[np.ndarray, dict[str, Any]]:
    """Round ``gi`` of a run, exactly as play_batch_nb plays it, with plain-Python seats asked through
    replays.  Returns (res, arrays of the final state); ``on_decision(d, answer)`` sees every decision
    of the plain-Python seats (``unosim trace``)."""
    nc = dk.size
    seatmap = np.arange(n, dtype=np.int64)
    polg, ppg = pol.copy(), pp.copy()
    if seating != 0:
        nb.seat_map_nb(seating, gi, np.uint64(seed), n, pol, pp, seatmap, polg, ppg)
    gcol, grank, gpts = dk.face_color, dk.face_rank, dk.face_points
    if dk.random_pairing:
        gcol, grank, gpts = gcol.copy(), grank.copy(), gpts.copy()
        nb.pair_faces_nb(gi, np.uint64(seed), dk.face_color, dk.face_rank, dk.face_points, gcol, grank, gpts)
    hand = np.zeros((n, nc), np.int64)
    hlen = np.zeros(n, np.int64)
    pile, disc, lg, tmp = (np.zeros(nc, np.int64) for _ in range(4))
    st = np.zeros(nb.NST, np.int64)
    res = np.zeros(nb.NRES, np.int64)
    obs = np.zeros(E.obs_size(nc), np.int64)
    rng = np.zeros(1, np.uint64)
    log = np.zeros((0, 5), np.int64) if log is None else log
    order = np.zeros(0, np.int64)
    queue = list(answers or [])
    stateful = any(getattr(o, "uses_state", False) for o in objs.values())
    if stateful:
        st[nb.ST_MODE] = nb.MODE_SNAPSHOT
    while True:
        rng[0] = nb.game_seed_nb(np.uint64(seed), np.uint64(gi))
        active = np.ones(4 * n, np.int64)
        nb.play_one_nb(n, n - 1, -1, order, gcol, grank, gpts, ri, rf, polg, ppg, np.array(queue, np.int64),
                       hand, hlen, pile, disc, lg, tmp, active, st, rng, log, res, obs, slot)
        if st[nb.ST_ERR] != 3:
            break
        who = int(seatmap[st[nb.ST_ERR_SEAT]])
        d = Decision.from_obs(obs, int(rng[0]) ^ len(queue))
        if stateful and d.kind == "play" and getattr(objs[who], "uses_state", False):
            d.state = RoundState(n, gcol, grank, gpts, ri, rf, hand, hlen, pile, disc, active, st, res, slot)
        v = _ask(objs[who], str(specs[who]), d)
        if on_decision is not None:
            on_decision(d, v, int(st[nb.ST_ERR_VAL]))
        queue.append(v)
    if st[nb.ST_ERR] == 2:
        from .policy_api import check_policy_error

        check_policy_error(np.array([gi, seatmap[st[nb.ST_ERR_SEAT]], st[nb.ST_ERR_KIND], st[nb.ST_ERR_VAL]]),
                           specs)
    return res, {"hand": hand, "hlen": hlen, "gcol": gcol, "grank": grank, "gpts": gpts, "seatmap": seatmap,
                 "answers": queue, "events": int(st[nb.ST_LOG_N])}


def run_external_batch(out: dict[str, np.ndarray], lo: int, hi: int, seed: int, n: int, dk, ri, rf, pol, pp,
                       seating: int, slot, specs, first: int = 0) -> None:
    """Rows lo..hi-1 of ``out`` get the rounds with global indices first+lo .. first+hi-1 (the same columns
    play_batch_nb writes)."""
    objs = {i: _instance(s) for i, s in enumerate(specs) if is_external(s.name)}
    z50 = (1 + ri[E.RI_ZERO50_CONDITION]) if ri[E.RI_ZERO_WORTH_50] != 0 else 0
    for gi in range(lo, hi):
        res, fin = play_round_external(first + gi, seed, n, dk, ri, rf, pol, pp, seating, slot, specs, objs)
        w = int(res[nb.RES_WINNER])
        out["winner"][gi] = w
        out["winner_policy"][gi] = -1 if w < 0 else fin["seatmap"][w]
        out["turns"][gi] = res[nb.RES_TURNS]
        out["winner_points"][gi] = res[nb.RES_WPTS]
        out["cards_drawn"][gi] = res[nb.RES_DRAWN]
        out["end"][gi] = res[nb.RES_END]
        out["reshuffles"][gi] = res[nb.RES_RESHUF]
        for s in range(n):
            out["hand_points"][gi, s] = nb.seat_points_nb(s, res[nb.RES_SIDE], fin["hand"], fin["hlen"],
                                                          fin["grank"], fin["gpts"], z50)
        out["extra"][gi] = res[nb.RES_CHALLENGES:nb.RES_CHALLENGES + nb.NEXTRA]


def policy_names(policies: Any) -> Any:
    """Policies as names: PythonPolicy subclasses given as objects are registered under their name."""
    if isinstance(policies, (list, tuple)):
        return [register_class(p, f"python:{p.__module__}") if isinstance(p, type) and issubclass(p, PythonPolicy)
                else p for p in policies]
    return policies
