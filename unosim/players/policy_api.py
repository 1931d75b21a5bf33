"""The policy interface: every decision the engine asks of a seat, what the seat sees, and how to
write a policy (in numba, compiled once, called from the cached engine without recompiling it).

Decisions
---------
The engine asks a seat one of these (``kind``), always with a list of *options* it has already
checked against the rules; the policy returns an option index ``0 <= k < nopt``, or ``-1`` where
the decision allows "none" (``obs[OBS_NONE_OK] == 1``):

==================  ================================================  ===============================
kind                options (value / index / info)                    -1 means
==================  ================================================  ===============================
``D_PLAY``          legal cards [0, nlegal), then Wild Draw Four      draw (refused under
                    bluffs [nlegal, nopt) where bluffing is allowed;  ``voluntary_draw=false`` with a
                    card kind / hand index / points                   legal card)
``D_COLOR``         the four colours; colour / colour / cards held    (not allowed)
``D_PLAY_DRAWN``    0 keep, 1 play the card just drawn; info of       (not allowed)
                    option 1 = its kind
``D_RESPOND``       cards that stack, deflect, bounce or block the    take the attack
                    pending attack; kind / hand index / type (4 stack
                    a coloured draw, 3 stack a wild draw, 2 deflect
                    or block, 1 bounce)
``D_CHALLENGE``     0 accept, 1 challenge the Wild Draw Four (or      (not allowed)
                    Flip wild draw) just played on you
``D_JUMP_IN``       your cards identical to the top card (out of      don't
                    turn); kind / hand index / points
``D_SWAP_TARGET``   the other seats (7, 0, 5 rules); seat / seat /    nobody (where optional)
                    distance in the direction of play
``D_GIVE_CARD``     every card of your hand (swap_on_five one card    (not allowed)
                    each); kind / hand index / points
==================  ================================================  ===============================

Option ``k`` lives at ``obs[OBS_OPT + OPT_STRIDE * k]`` (value), ``+ 1`` (hand index or seat) and
``+ 2`` (info).  A card kind is ``colour * NRANKS + rank`` of the face on the active side (colours
``RED..BLUE`` = 0..3, ``BLACK`` = 4; ranks 0..9, ``SKIP``, ``REVERSE``, ``DRAW2``, ``WILD``, ``WD4``,
and the UNO Flip / themed ranks of :mod:`unosim.core.enums`).  Calling UNO is modelled by the rules'
probabilities (``uno_forget_prob``), not asked.

The observation
---------------
``obs`` is one flat int64 array; the offsets are the ``OBS_*`` constants.  It holds what the seat
may see and only that: the decision (``OBS_KIND``, ``OBS_NOPT``, ``OBS_NLEGAL``, ``OBS_NONE_OK``), its
seat and the turn number, the top card's kind, the current colour (-1: anything), the direction,
the side in play, the pending attack (rank, draw total and who played it, all -1 or 0 when none is
pending; the colour before the last Wild Draw Four, which a challenge weighs), the draw and discard
pile sizes, every seat's hand size and match score, its own hand as counts over the ``NKINDS`` kinds
(``OBS_HAND``), the discard pile as counts (``OBS_PLAYED``: the cards played since the last reshuffle),
the deck's composition (``OBS_DECK``),
on UNO Flip the visible backs of every other hand (``OBS_BACKS + seat * NKINDS``), and what it was
shown: once this round a hand was passed or shown (a 7 / 0 / 5 swap passes whole hands, a Howler shows
its victim's hand to everybody, a Wild Draw Four challenge shows the offender's hand to the challenger,
docs/rules.md 1.9), ``obs[OBS_KNOWN_ON]`` is 1 and ``obs[obs[OBS_KNOWN_AT] + seat * NKINDS + kind]`` counts
the cards of that kind it knows are in that seat's hand (a card it saw stays known until it is
played; a card drawn later is unknown).  ``OBS_VOIDS`` holds the colours each seat showed it lacks:
bit ``4 * seat + colour`` is set when that seat drew for its turn while the colour was current and has
received no card since but that draw (a table player's inference from public draws; true whenever
seats draw only with nothing playable and play a playable drawn card of that colour).
``OBS_RANK_VOIDS`` holds, in bits ``5 * seat`` to ``5 * seat + 4``, 1 + the rank of which that seat showed
it holds no coloured card (it drew on a coloured card of a rank that matched: a number, or a symbol
under match_action_by_symbol), 0 when none is known; it is kept and cleared with ``OBS_VOIDS``.  The
observation never holds other hands' unseen faces or the order of the draw pile.

Writing a policy
----------------
A policy is a function ``policy(kind, obs, params, rng) -> int``; ``params`` are its parameters in
declaration order (floats), ``rng`` the round's random stream (draw from it only with
:func:`randint_nb` / :func:`rand01_nb`, so that runs stay reproducible)::

    from unosim.players.policy_api import policy, D_PLAY, OBS_NLEGAL, greedy_obs_nb

    @policy(params={"lazy": 0.0})
    def first_legal(kind, obs, params, rng):
        if kind == D_PLAY:
            return 0 if obs[OBS_NLEGAL] > 0 else -1
        return greedy_obs_nb(kind, obs, params, rng)   # greedy for every other decision

Load the file with ``unosim simulate --policy-file FILE --policies first_legal,greedy,...`` or
``simulate(policy_files=[FILE], ...)``.  Each function is compiled once with the explicit signature
(about 0.1-0.5 s; without numba's reference counting when it allocates no arrays, which makes each
call cheaper); the engine's cached kernels take it through their one policy slot without
recompiling.  A file may instead (or also) define ``POLICIES = {"name": function}`` or
``{"name": (function, {"param": default})}``, and installed packages add policies through the
entry-point group ``unosim.players.policies`` (each entry point names such a module).

The same decisions, with the observation decoded into card names, are open to plain Python
(:class:`unosim.players.external.PythonPolicy`; a file may define such classes too); the built-in
heuristics (:mod:`unosim.core.heuristics_nb`) are ordinary policies of this interface.
"""

from __future__ import annotations

import hashlib
import importlib.util
import linecache
import re
import sys
import traceback
import warnings
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
from numba import njit, objmode
from numba.core.errors import NumbaWarning

from ..console import compiling
from ..core import enums as E
from ..core import heuristics_nb, jit, nb  # noqa: F401  (lookahead registers the lookahead policy)
from ..core.enums import *  # noqa: F403  (the interface constants: D_*, OBS_*, colours, ranks)
from ..core.heuristics_nb import (  # noqa: F401
    HEURISTICS,
    PLAY_VERSIONS,
    POLICY_SIG,
    WHERE,
    greedy_obs_nb,
    opt_info,
    opt_value,
)
from ..core.rng_nb import rand01_nb, randint_nb  # noqa: F401  (for user policies)
from ..errors import PolicyAnswerError, PolicyRaised, policy_raised  # noqa: F401  (PolicyRaised: re-exported)
from . import lookahead  # noqa: F401  (lookahead registers the lookahead policy)
from .external import PythonPolicy, begin_batch, python_decide, register_class
from .policies import (  # noqa: F401  (check_policy_error, WROTE_OPTIONS: re-exported)
    POLICIES,
    WROTE_OPTIONS,
    PolicyError,
    PolicyInfo,
    PolicySpec,
    check_policy_error,
    public_names,
    register_policy,
)

SIGNATURE = POLICY_SIG
_SIGNATURE_TEXT = "def NAME(kind, obs, params, rng) -> int (int64, int64[::1], float64[::1], uint64[::1])"


@dataclass
class UserPolicy:
    name: str
    function: Any              # the numba dispatcher compiled with SIGNATURE
    params: dict[str, float]
    doc: str
    path: str
    sha256: str
    which: int = -1


@dataclass
class _Registry:
    users: list[UserPolicy] = field(default_factory=list)
    files: dict[str, str] = field(default_factory=dict)   # resolved path -> sha256
    collecting: list[tuple[Any, dict[str, float], str | None]] | None = None
    slots: dict[tuple[int, ...], Any] = field(default_factory=dict)
    python_slot: Any = None
    entry_points_done: bool = False


_REG = _Registry()


def _register_heuristics() -> None:
    for i, (name, (fn, params)) in enumerate(HEURISTICS.items()):
        doc = " ".join((fn.__doc__ or "").split())
        register_policy(PolicyInfo(
            name, E.POL_SLOT + i, doc + f" Source: {WHERE[name]}.",
            params={k: j for j, k in enumerate(params)},
            defaults={k: v[0] for k, v in params.items()},
            ranges={k: (v[1], v[2]) for k, v in params.items()},
            play_version=PLAY_VERSIONS.get(name, 0)))


_register_heuristics()


def policy(name: str | None = None, params: dict[str, float] | None = None):
    """Decorator for a user policy ``f(kind, obs, params, rng) -> int`` in a policy file: compiles it
    with the explicit signature and registers it (under ``name`` or the function's name)."""
    def deco(fn):
        compiled = _compile(fn, name or fn.__name__)
        if _REG.collecting is not None:
            _REG.collecting.append((compiled, dict(params or {}), name or fn.__name__))
        return compiled
    return deco


def _compile(fn: Any, name: str) -> Any:
    if hasattr(fn, "py_func"):
        fn = fn.py_func
    if not callable(fn):
        raise PolicyError(f"policy {name!r} is not a function; accepted: {_SIGNATURE_TEXT}")
    try:
        # without numba's reference counting where the policy needs none (it allocates no arrays): each
        # call then passes its arrays without atomic increments and decrements (measured: a user seat
        # beside three greedy ones about 10% faster); a policy that allocates compiles with it
        # boundscheck: an index out of range raises IndexError (a one-line error naming the policy and
        # the decision) instead of reading or writing the engine's memory
        return njit(SIGNATURE, cache=False, nogil=True, _nrt=False, boundscheck=True)(fn)
    except Exception:  # noqa: S110  (the compile with reference counting below reports the error)
        pass
    try:
        return njit(SIGNATURE, cache=False, nogil=True, boundscheck=True)(fn)
    except Exception as e:  # numba's errors are long: one line with the place and the refused construct
        raise _compile_error(fn, name, e) from None


_COMPILE_HINT = ("hint: a numba policy takes only numbers and numpy arrays: no dicts, lists, sets, strings or "
                 "Python objects such as collections.Counter; write a plain-Python policy "
                 "(unosim.players.external.PythonPolicy) for those")


def _compile_error(fn: Any, name: str, exc: Exception) -> PolicyError:
    """One line for a policy numba refused: a wrong signature, or the user's file and line, the line's code,
    the construct numba refused and :data:`_COMPILE_HINT`."""
    code = getattr(fn, "__code__", None)
    if code is None or code.co_argcount != 4:
        return PolicyError(f"policy {name!r} has the wrong signature; accepted: {_SIGNATURE_TEXT}")
    text = str(exc)
    lines = [ln.strip() for ln in text.splitlines() if ln.strip()]
    what = next((ln for ln in lines if not ln.startswith(("Failed in ", "- Resolution failure", "During:"))),
                type(exc).__name__)
    where = re.search(r'File "([^"]+)", line (\d+)', text)
    if where is None:
        where_text = f"{code.co_filename}:{code.co_firstlineno}"
    else:
        path, line = where.group(1), int(where.group(2))
        if Path(path).resolve() == Path(code.co_filename).resolve():  # numba shortens it to a relative path
            path = code.co_filename
        src = linecache.getline(path, line).strip()
        where_text = f"{path}:{line}" + (f" `{src}`" if src else "")
    return PolicyError(f"policy {name!r} does not compile in numba at {where_text}: {what}; {_COMPILE_HINT}")


def load_policy_file(path: str | Path) -> list[str]:
    """Load a policy file: every policy it defines becomes nameable.  Returns their names."""
    p = Path(path)
    if not p.is_file():
        raise PolicyError(f"policy file {str(path)!r} not found; accepted: a path to a Python file "
                          "defining policies")
    src = p.read_bytes()
    sha = hashlib.sha256(src).hexdigest()
    key = str(p.resolve())
    if _REG.files.get(key) == sha:
        return [u.name for u in _REG.users if u.path == key]
    try:
        compile(src, str(p), "exec")
    except SyntaxError as e:
        raise PolicyError(f"policy file {str(path)!r} has a syntax error at line {e.lineno}: {e.msg}; "
                          "accepted: a Python file") from None
    modname = f"unosim_policy_file_{sha[:16]}"
    spec = importlib.util.spec_from_file_location(modname, p)
    mod = importlib.util.module_from_spec(spec)
    _REG.collecting = []
    try:
        sys.modules[modname] = mod
        spec.loader.exec_module(mod)
    except PolicyError:
        raise
    except Exception as e:
        raise PolicyError(f"policy file {str(path)!r} failed to load: {type(e).__name__}: {e}") from None
    finally:
        found, _REG.collecting = _REG.collecting, None
    names = _register_module(mod, found, key, sha, str(path))
    _REG.files[key] = sha
    return names


def _register_module(mod: Any, found: list, key: str, sha: str, label: str) -> list[str]:
    """Register what a loaded policy module defines (decorated functions collected while it ran, a
    POLICIES dict, PythonPolicy classes); returns the names."""
    modname = mod.__name__
    for name, entry in getattr(mod, "POLICIES", {}).items():
        fn, params = (entry if isinstance(entry, tuple) else (entry, {}))
        found.append((_compile(fn, name), dict(params), name))
    classes = [v for v in vars(mod).values() if isinstance(v, type) and issubclass(v, PythonPolicy)
               and v is not PythonPolicy and v.__module__ == modname]
    py_names = [register_class(c, key) for c in classes]
    if not found and not py_names:
        raise PolicyError(f"policy file {label!r} defines no policy; accepted: functions decorated "
                          "with @unosim.players.policy_api.policy, a POLICIES dict or PythonPolicy classes")
    names = py_names
    for compiled, params, name in found:
        _add_user(UserPolicy(name, compiled, params, " ".join((compiled.py_func.__doc__ or "").split()),
                             key, sha))
        names.append(name)
    return names


def _add_user(u: UserPolicy) -> None:
    u.name = u.name.lower()  # policy strings are case-insensitive
    if not u.name.isidentifier():
        raise PolicyError(f"policy name {u.name!r} in {u.path} is not an identifier; accepted: letters, "
                          "digits and underscores")
    if len(u.params) > E.NPP:
        raise PolicyError(f"policy {u.name!r} declares {len(u.params)} parameters; accepted: at most {E.NPP}")
    old = next((i for i, x in enumerate(_REG.users) if x.name == u.name), None)
    if old is not None and _REG.users[old].path != u.path:
        raise PolicyError(f"policy {u.name!r} in {u.path} is already defined in {_REG.users[old].path}; "
                          "accepted: a name no other policy uses")
    u.which = len(HEURISTICS) + (old if old is not None else len(_REG.users))
    register_policy(PolicyInfo(u.name, E.POL_SLOT + u.which, u.doc or "(user policy)",
                               params={k: j for j, k in enumerate(u.params)},
                               defaults={k: float(v) for k, v in u.params.items()},
                               ranges={k: (-1e300, 1e300) for k in u.params}, source=u.path))
    if old is not None:
        _REG.users[old] = u
        _REG.slots.clear()  # the file changed: no dispatcher may call the old function
    else:
        _REG.users.append(u)


def load_policy_files(paths: list[str] | tuple[str, ...] | str | None) -> list[dict[str, str]]:
    """Load several policy files; returns [{path, sha256}] for meta.json."""
    load_entry_points()
    if paths is None:
        return []
    if isinstance(paths, (str, Path)):
        paths = [paths]
    out = []
    for path in paths:
        load_policy_file(path)
        key = str(Path(path).resolve())
        out.append({"path": key, "sha256": _REG.files[key]})
    return out


def files_defining(names: list[str]) -> list[str]:
    """The loaded policy files that define any of the policies ``names`` (resolved paths, sorted)."""
    return sorted({POLICIES[n].source for n in names if n in POLICIES and POLICIES[n].source in _REG.files})


def load_entry_points() -> list[str]:
    """Policies of installed packages: each entry point of the group ``unosim.players.policies`` names a
    module that defines policies as a policy file does (loaded once per process)."""
    if _REG.entry_points_done:
        return []
    _REG.entry_points_done = True
    from importlib.metadata import entry_points

    names = []
    for ep in entry_points(group="unosim.players.policies"):
        _REG.collecting = []
        try:
            mod = importlib.import_module(ep.module)
        except Exception as e:
            raise PolicyError(f"entry point {ep.name!r} ({ep.value}) of group unosim.players.policies failed to load: "
                              f"{type(e).__name__}: {e}") from None
        finally:
            found, _REG.collecting = _REG.collecting, None
        src = Path(mod.__file__).read_bytes() if getattr(mod, "__file__", None) else b""
        names += _register_module(mod, found, str(Path(mod.__file__).resolve()) if src else ep.value,
                                  hashlib.sha256(src).hexdigest(), f"entry point {ep.name!r}")
    return names


def slot_for(pol: np.ndarray) -> Any:
    """The function for the kernels' policy slot that serves the policy ids in ``pol``."""
    which = sorted({int(x) - E.POL_SLOT for x in pol if x >= E.POL_SLOT})
    if not which:
        return nb.no_slot_nb
    users = [w for w in which if w >= len(HEURISTICS)]
    if not users:
        return heuristics_nb.heuristics_slot_nb
    key = tuple(users)
    if key not in _REG.slots:
        _REG.slots[key] = _make_slot(users)
    return _REG.slots[key]


@njit(nogil=True, _nrt=False)
def options_hash_nb(obs):
    """A 64-bit FNV-1a-style hash of the decision's option table, which the engine reads back after the
    call (hand indices, seats): a user policy's call is checked to leave it as it was."""
    h = np.int64(-3750763034362895579)
    end = E.OBS_OPT + E.OPT_STRIDE * obs[E.OBS_NOPT]
    for i in range(E.OBS_OPT, min(end, obs.shape[0])):
        h = (h ^ obs[i]) * np.int64(1099511628211)
    return h


def _make_slot(users: list[int]) -> Any:
    """Compile a small dispatcher over the heuristics and the given user policies (per process): numba
    policies are called, plain-Python ones are entered through numba's object mode.  A numba policy's call
    is checked not to have changed the option table (:func:`options_hash_nb`); if it did, the slot answers
    :data:`WROTE_OPTIONS`, which the engine refuses as out of range (a plain-Python policy sees a copy)."""
    glb: dict[str, Any] = {"heuristics_slot_nb": heuristics_nb.heuristics_slot_nb, "options_hash_nb": options_hash_nb}
    lines = ["def slot(which, kind, obs, params, rng):",
             f"    if which < {len(HEURISTICS)}:",
             "        return heuristics_slot_nb(which, kind, obs, params, rng)"]
    numba_users = [w for w in users if w < E.PY_SLOT_BASE]
    if numba_users:
        lines.append("    before = options_hash_nb(obs)")
    for w in numba_users:
        u = next(x for x in _REG.users if x.which == w)
        glb[f"u{w}"] = u.function
        lines += [f"    if which == {w}:", f"        v = u{w}(kind, obs, params, rng)",
                  f"        return v if options_hash_nb(obs) == before else {WROTE_OPTIONS}"]
    if len(numba_users) < len(users):
        glb["python_slot_nb"] = _python_slot()
        lines += [f"    if which >= {E.PY_SLOT_BASE}:", "        return python_slot_nb(which, kind, obs, params, rng)"]
    lines.append("    return -2")
    exec("\n".join(lines), glb)  # noqa: S102  (generated from integers only)
    nrt = len(numba_users) < len(users) or any(_uses_nrt(glb[f"u{w}"]) for w in numba_users)
    with compiling("policy_slot", glb["slot"], jit.SLOT_SIG, cached=False):
        return njit(jit.SLOT_SIG, nogil=True, _nrt=nrt)(glb["slot"])


def _python_slot() -> Any:
    """The compiled entry into Python for the plain-Python policies (compiled once per process, on
    first use): it takes the GIL for the call, as it must (numba warns that object mode cannot run in
    parallel; the rest of the kernel still does).  With numba's reference counting: boxing the arrays
    for Python needs it (without, the call through the kernels' function slot loses its arguments)."""
    if _REG.python_slot is None:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", NumbaWarning)
            _REG.python_slot = njit(jit.SLOT_SIG, nogil=True)(python_slot)
    return _REG.python_slot


def python_slot(which, kind, obs, params, rng):
    """Body of :func:`_python_slot` (module level: numba's object mode lifts blocks of top-level functions)."""
    with objmode(v="int64"):
        v = python_decide(which, kind, obs, params, rng)
    return v


def _uses_nrt(function: Any) -> bool:
    """Whether a compiled policy needs numba's reference counting (_compile tries without it first);
    the slot that calls it must have it too, as numba passes the flag on to what a function calls."""
    return function.targetoptions.get("_nrt", True)


def obs_buffer(deck: Any) -> np.ndarray:
    """An observation / options array for a deck (one per kernel call)."""
    return np.zeros(E.obs_size(int(deck.size)), np.int64)


def _user_tb(exc: BaseException) -> list:
    files = {u.path for u in _REG.users}
    return [f for f in traceback.extract_tb(exc.__traceback__) if str(Path(f.filename).resolve()) in files]


def raised_policy_message(exc: BaseException, obs: np.ndarray | None,
                          specs: list[PolicySpec] | None = None) -> str:
    """One line naming the policy and the decision of an exception raised inside a policy.  When the
    traceback does not show the policy's own frame (numba raises an out-of-range index or a failed
    allocation from compiled code), the user policies in play are named."""
    files = {u.path: u for u in _REG.users}
    tb = traceback.extract_tb(exc.__traceback__)
    names = [u.name for f in tb for p, u in files.items()
             if str(Path(f.filename).resolve()) == p and f.name == u.function.py_func.__name__]
    users = sorted({str(sp) for sp in specs or () if sp.name in POLICIES and POLICIES[sp.name].source != "built-in"})
    who = names[-1] if names else users[0] if len(users) == 1 else " or ".join(users) if users else "?"
    kind = "?"
    if obs is not None and 0 <= obs[E.OBS_KIND] < E.NDECISIONS:
        kind = E.DECISION_NAMES[int(obs[E.OBS_KIND])]
    return f"policy {who!r} raised {type(exc).__name__} while deciding {kind!r}"


def run_kernel(kernel: Any, args: tuple, deck: Any, slot: Any, specs: list[PolicySpec] | None) -> None:
    """Call a batch kernel with fresh policy-error and observation buffers and the policy slot;
    turn a bad answer or an exception raised by a user policy into its error."""
    err = np.full(4, -1, np.int64)
    obs = obs_buffer(deck)
    begin_batch()
    try:
        kernel(*args, err, obs, slot)
    except PolicyError:  # a plain-Python policy's bad answer or exception, already in its words
        raise
    except Exception as e:
        if slot is nb.no_slot_nb or slot is heuristics_nb.heuristics_slot_nb:
            raise
        if not _user_tb(e):  # raised by numba-compiled code (an index out of range, a failed allocation)
            raise PolicyError(f"{raised_policy_message(e, obs, specs)}: {' '.join(str(e).split()) or '-'}; "
                              "accepted: a policy that stays within its arrays (user numba policies are "
                              "compiled with bounds checks)") from None
        raise policy_raised(raised_policy_message(e, obs, specs), e) from None
    check_policy_error(err, specs)


def _param_text(name: str) -> str:
    info = POLICIES[name]
    parts = []
    for k in info.params:
        lo, hi = info.ranges.get(k, (0.0, 1.0))
        rng = "" if lo < -1e299 else f" [{lo:g}..{hi:g}]"
        parts.append(f"{k}={info.defaults.get(k, 0.0):g}{rng}")
    return ", ".join(parts)


def format_policies() -> str:
    """Every nameable policy, one line each with its parameters (``unosim policies``)."""
    lines = ["Policies (use in --policies, e.g. greedy,hold_wilds(threshold=2),random,attack)"]
    for name, info in POLICIES.items():
        if name == "scripted" or name.startswith("_"):  # a test device, and the project's internals
            continue
        mark = "" if info.source == "built-in" else f"  [user: {info.source}]"
        mark += "  [CHEAT: sees every hand; plays only where named]" if info.cheat else ""
        params = _param_text(name)
        first = info.description.split(". ")[0].rstrip(".")
        lines.append(f"  {name}({params}){mark}" if params else f"  {name}{mark}")
        lines.append(f"      {first}.")
    return "\n".join(lines)


def format_policy(name: str) -> str:
    """One policy in full (``unosim policies NAME``)."""
    key = name.strip().lower()
    if key not in POLICIES or key == "scripted":
        from .policies import _unknown

        raise _unknown(key, [n for n in POLICIES if n != "scripted"])
    info = POLICIES[key]
    out = [f"{key}  ({'built-in' if info.source == 'built-in' else 'user policy from ' + info.source})",
           f"  {info.description}"]
    if info.params:
        out.append("  parameters:")
        for k in info.params:
            lo, hi = info.ranges.get(k, (0.0, 1.0))
            rng = "any number" if lo < -1e299 else f"{lo:g}..{hi:g}"
            out.append(f"    {k} = {info.defaults.get(k, 0.0):g}  [{rng}]")
    return "\n".join(out)
