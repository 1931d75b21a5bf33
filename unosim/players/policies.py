"""Policy plugins: who decides what, dispatched by an integer id inside the compiled core.

Built-in policies (exact semantics; the kernels in :mod:`unosim.core.nb` implement them):

``random``
    Picks uniformly among the legal card *instances* in its hand (each physical card equally
    likely; a Wild Draw Four only where it is legal).  Never draws while it holds a legal card;
    plays a drawn card whenever it is legal; names a wild's colour uniformly among the four.
    House-rule decisions are uniform over the options, each card instance one option and "don't"
    one more: under a pending Draw Two / Wild Draw Four it takes, or stacks with one of its
    stackable cards; on a 7 it swaps with any opponent; in a jump-in window it jumps with one of
    its identical cards, or not.
``greedy``
    Plays the legal non-wild card with the most points; ties go to a card of the current colour,
    then by symbol: any coloured draw card (Draw Two, Draw One, Draw Five, Draw Three) > Reverse >
    Skip = Skip Everyone > Flip > number cards, then the lowest colour index.  Wilds only
    when nothing else is legal, an attacking wild (Wild Draw Four; on other decks Wild Draw Two, Wild
    Draw Colour, Howler, Dancing Wild) before a plain Wild.  Names the colour it holds most of
    (ties to the lowest colour index).  Plays a drawn card whenever it is legal.  Stacks whenever
    it can (a Draw Two before a Wild Draw Four), swaps with the opponent holding the fewest cards
    (ties to the nearest in the direction of play), always jumps in when it can.
``scripted``
    Reads every decision from a script (scenario tests and replays; see :mod:`unosim.running.scenario`).

Both ``random`` and ``greedy`` take two tunable parameters, by default 0 (neither challenges nor
bluffs):

* ``challenge`` — probability of challenging a Wild Draw Four played on it;
* ``bluff`` — probability of playing a Wild Draw Four it may not legally play (only when the rules
  allow bluffing, i.e. challenges are on), instead of its normal choice.

Syntax: ``random``, ``greedy(challenge=0.5,bluff=0.1)``; a comma list gives one policy per seat:
``random,greedy(challenge=1),random,greedy``.

The heuristics (:mod:`unosim.core.heuristics_nb`) and the user's policies (``--policy-file``; see
:mod:`unosim.players.policy_api`) register themselves here with :func:`register_policy`.
"""

from __future__ import annotations

import difflib
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from ..core import enums as E
from ..errors import PolicyAnswerError, PolicyError

if TYPE_CHECKING:  # numpy is imported where arrays are made: `unosim --help` needs the registry, not numpy
    import numpy as np


@dataclass(frozen=True)
class PolicyInfo:
    name: str
    pid: int
    description: str
    params: dict[str, int] = field(default_factory=dict)  # parameter name -> PP_* slot
    defaults: dict[str, float] = field(default_factory=dict)  # parameter name -> value when not given (else 0)
    ranges: dict[str, tuple[float, float]] = field(default_factory=dict)  # accepted [lo, hi]; [0, 1] if absent
    source: str = "built-in"  # or the policy file that defines it
    cheat: bool = False  # sees what no player at the table sees: played only where asked for by name
    play_version: int = 0  # a built-in whose play changed since the store began: enters the cell key

    def param_range(self, key: str) -> tuple[float, float]:
        return self.ranges.get(key, (0.0, 1.0))

    def param_default(self, key: str) -> float:
        return self.defaults.get(key, 0.0)


_PARAMS = {"challenge": E.PP_CHALLENGE, "bluff": E.PP_BLUFF}

POLICIES: dict[str, PolicyInfo] = {
    "random": PolicyInfo("random", E.POL_RANDOM, "uniform over legal card instances", _PARAMS),
    "greedy": PolicyInfo("greedy", E.POL_GREEDY, "dump the most points first, wilds last", _PARAMS),
    "scripted": PolicyInfo("scripted", E.POL_SCRIPTED, "decisions from a script (tests)", {}),
}


def register_policy(info: PolicyInfo) -> None:
    """Make a policy nameable in policy strings (heuristics and user policies)."""
    old = POLICIES.get(info.name)
    if old is not None and old.source != info.source:
        raise PolicyError(f"policy {info.name!r} from {info.source} is already defined by {old.source}; "
                          "accepted: a name no other policy uses")
    POLICIES[info.name] = info


_MORE: list = []  # loaders of the policies beyond the built-ins (unosim.players.plugins registers one)


def on_unknown_name(loader) -> None:
    """Call ``loader()`` (once) before a name is refused or the names are listed: it registers the policies that
    live above this module (unosim.players.plugins: the heuristics, lookahead, installed packages)."""
    _MORE.append(loader)


def _run_loaders() -> None:
    """Run the loaders of :func:`on_unknown_name` that have not run yet."""
    while _MORE:
        _MORE.pop(0)()


def public_names() -> list[str]:
    """Policies a user can name (built-ins, heuristics, loaded policy files); ``scripted`` needs a script,
    and names starting with ``_`` are the project's internals (the seats of :class:`unosim.Game`); a cheat
    (``cheat_ceiling``) is left out of every list too: it plays only where named."""
    _run_loaders()
    return [n for n, info in POLICIES.items() if n != "scripted" and not n.startswith("_") and not info.cheat]


def is_cheat(name: str) -> bool:
    """Whether the policy ``name`` sees hidden cards (the top of the skill scale, never a player)."""
    if name not in POLICIES:
        _run_loaders()
    info = POLICIES.get(name)
    return info is not None and info.cheat


@dataclass(frozen=True)
class PolicySpec:
    """One seat's policy: name plus parameter values."""

    name: str
    params: tuple[tuple[str, float], ...] = ()

    def __str__(self) -> str:
        if not self.params:
            return self.name
        return f"{self.name}(" + ",".join(f"{k}={v:g}" for k, v in self.params) + ")"

    def exact(self) -> str:
        """Like ``str`` but with full-precision parameters (``repr`` of each float), so
        ``parse_policy(spec.exact()) == spec``: the form the results store keys on."""
        if not self.params:
            return self.name
        return f"{self.name}(" + ",".join(f"{k}={v!r}" for k, v in self.params) + ")"


def split_top_level(text: str, sep: str) -> list[str]:
    """Split on ``sep`` outside parentheses."""
    out, depth, cur = [], 0, []
    for ch in text:
        if ch == "(":
            depth += 1
        elif ch == ")":
            depth -= 1
            if depth < 0:
                raise PolicyError(f"unbalanced ')' in {text!r}")
        if ch == sep and depth == 0:
            out.append("".join(cur))
            cur = []
        else:
            cur.append(ch)
    if depth != 0:
        raise PolicyError(f"unbalanced '(' in {text!r}")
    out.append("".join(cur))
    return out


def _unknown(name: str, allowed: tuple[str, ...] | list[str], what: str = "policy") -> PolicyError:
    near = difflib.get_close_matches(name, allowed, n=1)
    hint = f" (did you mean {near[0]!r}?)" if near else ""
    return PolicyError(f"unknown {what} {name!r}; accepted: {', '.join(allowed)}{hint}")


def parse_policy(text: str, allow_scripted: bool = False) -> PolicySpec:
    t = text.strip()
    if not t:
        raise PolicyError("empty policy name; accepted: " + ", ".join(public_names()))
    name, _, rest = t.partition("(")
    name = name.strip().lower()
    if name not in POLICIES:
        _run_loaders()
    if name not in POLICIES or (name == "scripted" and not allow_scripted):  # unlisted ones play when named
        raise _unknown(name or t, public_names() + (["scripted"] if allow_scripted else []))
    info = POLICIES[name]
    params: dict[str, float] = {}
    if rest:
        if not rest.endswith(")"):
            raise PolicyError(f"malformed policy {text!r}; expected NAME or NAME(key=value,...)")
        for item in filter(None, (s.strip() for s in rest[:-1].split(","))):
            key, eq, val = item.partition("=")
            key = key.strip().lower()
            if not eq:
                raise PolicyError(f"policy parameter {item!r} needs a value, e.g. {key}=0.5")
            if key not in info.params:
                raise _unknown(key, sorted(info.params) or ["(none)"], f"parameter of policy {name!r},")
            if key in params:
                raise PolicyError(f"policy parameter {key!r} is given twice in {t!r}; accepted: each "
                                  "parameter once")
            try:
                v = float(val)
            except ValueError:
                raise PolicyError(f"policy parameter {key}={val.strip()!r} is not a number; "
                                  "accepted: a probability in [0, 1]") from None
            lo, hi = info.param_range(key)
            if not lo <= v <= hi:
                raise PolicyError(f"policy parameter {key}={v:g} of {name!r} is out of range; "
                                  f"accepted: [{lo:g}, {hi:g}]")
            params[key] = v
    return PolicySpec(name, tuple(sorted(params.items())))


def replays(name: str) -> bool:
    """Whether policy ``name`` reads the engine's state (``lookahead``, plain-Python policies with
    ``uses_state``): its seats are played step by step from Python (POL_EXTERNAL), thousands of times slower
    a round than the compiled policies."""
    return POLICIES[name].pid == E.POL_EXTERNAL


def parse_policies(text: str | list[str] | tuple[str, ...], players: int,
                   allow_scripted: bool = False) -> list[PolicySpec]:
    """One name for all seats, or a comma list with one policy per seat."""
    if isinstance(text, str):
        items = split_top_level(text, ",")
    elif isinstance(text, (list, tuple)) and text and all(isinstance(x, str) for x in text):
        items = list(text)
    else:
        shown = " ".join(repr(text).split())[:60]
        raise PolicyError(f"policies={shown} is not a policy string; accepted: one policy for all seats "
                          f"({', '.join(public_names())}) or a comma list / list of strings, one per seat")
    for k, item in enumerate(items):
        if not item.strip():
            raise PolicyError(f"policies={text!r} has an empty entry (#{k + 1}); accepted: one policy for all "
                              f"seats ({', '.join(public_names())}) or a comma list, one per seat")
    specs = [parse_policy(s, allow_scripted) for s in items]
    if len(specs) == 1:
        specs = specs * players
    if len(specs) != players:
        raise PolicyError(f"{len(specs)} policies given for {players} players; "
                          f"accepted: one policy for all seats or exactly {players}")
    return specs


def pack_policies(specs: list[PolicySpec]) -> tuple[np.ndarray, np.ndarray]:
    """Per-seat policy ids and the (players, NPP) float parameter matrix for the kernel."""
    import numpy as np

    pol = np.array([POLICIES[s.name].pid for s in specs], np.int64)
    pp = np.zeros((len(specs), E.NPP), np.float64)
    for i, s in enumerate(specs):
        info, given = POLICIES[s.name], dict(s.params)
        for k, slot in info.params.items():
            pp[i, slot] = given.get(k, info.param_default(k))
    return pol, pp


#: what a policy slot answers when a user policy wrote into the option table of obs (refused as out of range)
WROTE_OPTIONS = -(1 << 62)


def check_policy_error(err: np.ndarray, specs: list[PolicySpec] | None = None) -> None:
    """Raise the one-line error for a kernel's policy-error record (game, policy index, decision,
    value); nothing when err[0] < 0."""
    if err[0] < 0:
        return
    who = int(err[1])
    name = str(specs[who]) if specs is not None and 0 <= who < len(specs) else f"in seat {who}"
    kind = E.DECISION_NAMES[int(err[2])] if 0 <= err[2] < E.NDECISIONS else str(int(err[2]))
    if err[3] == WROTE_OPTIONS:
        raise PolicyAnswerError(f"policy {name!r} wrote into the option table of obs while deciding {kind!r} in "
                                f"round {int(err[0])}; accepted: a policy that only reads obs")
    raise PolicyAnswerError(f"policy {name!r} answered decision {kind!r} with {int(err[3])} in round "
                            f"{int(err[0])}; accepted: an option index 0..nopt-1, or -1 where the "
                            "decision allows none (see unosim.players.policy_api)")
