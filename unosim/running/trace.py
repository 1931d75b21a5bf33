"""Step-by-step replay of one recorded round: every event, and every decision with what its seat saw.

The round is replayed from the run's seed exactly as ``simulate`` played it.  Seats whose policy is a
function of the observation alone (greedy without challenge/bluff probabilities, the heuristics,
user numba policies, plain-Python policies) are replayed through the plain-Python path, which gives
the same game (tests/test_policy_api.py, tests/test_external.py) and shows each of their decisions;
``random`` seats (and numba policies that use the random stream) show their events only.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..core import enums as E
from ..core import heuristics_nb, layout
from ..core.heuristics_nb import greedy_obs_nb
from ..players.external import Decision, PythonPolicy, _instance, is_external
from ..players.policies import POLICIES, pack_policies, parse_policies
from ..players.policy_api import _REG, HEURISTICS, load_policy_files, slot_for
from ..ruleset.decks import Deck, card_name, get_deck
from ..ruleset.rules import parse_rules
from .sim import SEATINGS, pack_rules
from .steps import play_round_external


class _Shadow(PythonPolicy):
    """A numba policy (or greedy) asked from Python with the same observation: the same answers."""

    def __init__(self, fn: Any, params: np.ndarray) -> None:
        super().__init__()
        self.fn = fn
        self.pp = params

    def decide(self, d: Decision) -> int:
        return int(self.fn(E.DECISION_NAMES.index(d.kind), d.obs, self.pp, np.zeros(1, np.uint64)))


def _shadow(spec, pp_row: np.ndarray) -> PythonPolicy | None:
    info = POLICIES[spec.name]
    if spec.name == "greedy" and not any(v for _, v in spec.params):
        return _Shadow(greedy_obs_nb, pp_row)
    if E.POL_SLOT <= info.pid < E.POL_SLOT + len(HEURISTICS):
        which = info.pid - E.POL_SLOT
        return _Shadow(lambda kind, obs, params, rng: heuristics_nb.heuristics_slot_nb(which, kind, obs, params, rng), pp_row)
    if info.pid >= E.POL_SLOT + len(HEURISTICS):
        u = next(x for x in _REG.users if x.name == spec.name)
        return _Shadow(u.function, pp_row)
    return None


def _fmt_decision(d: Decision, v: int) -> str:
    pick = d.options[v] if v >= 0 else {"play": "draw", "respond": "take", "jump_in": "no",
                                        "swap_target": "nobody"}.get(d.kind, "none")
    hand = ", ".join(f"{k} x{c}" if c > 1 else k for k, c in d.hand.items())
    return (f"    seat {d.seat} decides {d.kind}: {pick!r} of {d.options}{' or none' if d.none_ok else ''}\n"
            f"      saw: top {d.top}, colour {d.color or 'any'}, hand sizes {d.hand_sizes}, "
            f"pending {d.pending[0] or '-'} ({d.pending[1]}), own hand [{hand}]")


def trace_round(meta: dict[str, Any], game: int) -> str:
    """The replay of round ``game`` of a round-mode run described by ``meta`` (its meta.json)."""
    load_policy_files([f["path"] for f in meta.get("policy_files", [])])
    n = int(meta["players"])
    dk = get_deck(meta.get("deck", "classic"))
    rs = parse_rules(meta["rules"])
    specs = parse_policies(meta["policies"], n)
    ri, rf = pack_rules(rs, dk)
    pol, pp = pack_policies(specs)
    objs: dict[int, PythonPolicy] = {}
    for i, s in enumerate(specs):
        obj = _instance(s) if is_external(s.name) else _shadow(s, pp[i].copy())
        if obj is not None:
            objs[i] = obj
            pol[i] = E.POL_EXTERNAL
    seating = SEATINGS.index(meta.get("seating", "fixed"))
    decisions: list[tuple[int, str]] = []
    log = np.zeros((50_000, 5), np.int64)
    res, fin = play_round_external(game, int(meta["seed"]), n, dk, ri, rf, pol, pp, seating, slot_for(pol),
                                   specs, objs, on_decision=lambda d, v, k: decisions.append((k, _fmt_decision(d, v))),
                                   log=log)
    seatmap = fin["seatmap"]
    if dk.random_pairing:
        dk = Deck(dk.name, fin["gcol"], fin["grank"], fin["gpts"], True)
    lines = [f"round {game}: rules {meta['rules']}, deck {dk.name}, seed {meta['seed']}",
             "seats: " + ", ".join(f"{s}={specs[seatmap[s]]}" for s in range(n))]
    di = 0
    nlog = min(fin["events"], len(log))
    for k, (kind, seat, card, a1, a2) in enumerate(log[:nlog].tolist()):
        while di < len(decisions) and decisions[di][0] <= k:
            lines.append(decisions[di][1])
            di += 1
        cn = "" if card < 0 else (f"{card_name(dk, card, 0)} / {card_name(dk, card, 1)}" if dk.two_sided
                                  else card_name(dk, card))
        lines.append(f"  {E.EV_NAMES[kind]:<12} seat {seat:>2} {cn:<18} {a1} {a2}")
    lines += [d for _, d in decisions[di:]]
    lines.append(f"end: {E.END_NAMES[int(res[layout.RES_END])]}, winner seat {int(res[layout.RES_WINNER])}, "
                 f"turns {int(res[layout.RES_TURNS])}, points {int(res[layout.RES_WPTS])}")
    return "\n".join(lines)
