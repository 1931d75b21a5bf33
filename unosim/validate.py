"""The one validation layer: every public parameter is checked here, once, for the CLI and the API.

Each checker takes the parameter's public name and the value as given, and returns the value in its
canonical type or raises :class:`~unosim.errors.UnosimError` with one line that names the parameter,
the bad value and what is accepted.  Nothing here allocates game buffers or touches the compiled core,
so a typo is refused before the first compile on a fresh machine.

Conventions (the same everywhere):

* an integer parameter takes a Python or numpy integer; ``True``/``False``, floats (even ``2.0``)
  and strings are refused rather than converted (the command line turns its text into integers
  itself, see :func:`unosim.cli_types.parse_int`);
* a flag takes ``True``/``False`` (or a numpy bool) only: ``partners="no"`` is refused;
* a choice takes one of its listed strings, exactly;
* an optional parameter's ``None`` means its documented default.
"""

from __future__ import annotations

import difflib
import numbers
import os
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

import numpy as np

from .errors import SimulationError, UnosimError

MIN_PLAYERS, MAX_PLAYERS = 2, 10
MAX_SEED = 2**64 - 1
MAX_GAMES = 10**10          # far beyond memory anyway; keeps every index well inside int64
MAX_THREADS = 1024
MAX_BATCH = 10**9
SEATINGS = ("fixed", "rotate", "shuffle")
MODES = ("round", "match")


def _show(value: Any) -> str:
    """A value as the user typed it, kept short enough for one line."""
    text = repr(value)
    text = " ".join(text.split())
    return text if len(text) <= 60 else text[:57] + "..."


def suggestion(word: Any, candidates: Iterable[str]) -> str:
    """`` (did you mean 'x'?)`` for a near miss, else ``''``."""
    if not isinstance(word, str):
        return ""
    near = difflib.get_close_matches(word, list(candidates), n=1)
    return f" (did you mean {near[0]!r}?)" if near else ""


def is_integer(value: Any) -> bool:
    """A real integer: Python or numpy, not a bool."""
    return isinstance(value, numbers.Integral) and not isinstance(value, (bool, np.bool_))


def integer(name: str, value: Any, lo: int | None = None, hi: int | None = None,
            error: type[UnosimError] = SimulationError, accepted: str | None = None) -> int:
    """``value`` as an int within [lo, hi], or a one-line error naming ``name``."""
    acc = accepted or _int_range(lo, hi)
    if not is_integer(value):
        raise error(f"{name}={_show(value)} is not an integer; accepted: {acc}")
    v = int(value)
    if (lo is not None and v < lo) or (hi is not None and v > hi):
        raise error(f"{name}={_show(value)} is out of range; accepted: {acc}")
    return v


def _int_range(lo: int | None, hi: int | None) -> str:
    if lo is not None and hi is not None:
        if lo == 1 and hi >= 10**6:
            return f"a positive integer up to {hi:,}"
        return f"{lo}..{hi}" if hi < 10**6 else f"{lo}..{hi:,}"
    if lo is not None:
        return "a positive integer" if lo == 1 else f"an integer >= {lo}"
    return "an integer"


def optional_integer(name: str, value: Any, lo: int | None = None, hi: int | None = None,
                     error: type[UnosimError] = SimulationError) -> int | None:
    return None if value is None else integer(name, value, lo, hi, error)


def boolean(name: str, value: Any, error: type[UnosimError] = SimulationError) -> bool:
    """``True`` or ``False`` only (numpy bools too)."""
    if isinstance(value, (bool, np.bool_)):
        return bool(value)
    raise error(f"{name}={_show(value)} is not a boolean; accepted: True, False")


def choice(name: str, value: Any, options: Iterable[str], error: type[UnosimError] = SimulationError) -> str:
    """One of ``options``, exactly."""
    opts = list(options)
    if isinstance(value, str) and value in opts:
        return value
    raise error(f"{name}={_show(value)} is unknown{suggestion(value, opts)}; accepted: {', '.join(opts)}")


def text(name: str, value: Any, accepted: str, error: type[UnosimError] = SimulationError) -> str:
    """A non-empty string."""
    if not isinstance(value, str):
        raise error(f"{name}={_show(value)} is not a string; accepted: {accepted}")
    if not value.strip():
        raise error(f"{name}={_show(value)} is empty; accepted: {accepted}")
    return value


def known_options(given: Mapping[str, Any], known: Iterable[str], where: str,
                  error: type[UnosimError] = SimulationError) -> None:
    """Refuse an unknown keyword (a typo such as ``gmaes=100``) with the accepted names."""
    names = list(known)
    for key in given:
        if key not in names:
            raise error(f"unknown option {key!r} of {where}{suggestion(key, names)}; "
                        f"accepted: {', '.join(names)}")


# ---- the parameters every run shares ---------------------------------------------------------------

def check_players(players: Any) -> int:
    return integer("players", players, MIN_PLAYERS, MAX_PLAYERS)


def check_games(games: Any, bytes_per_game: int = 0) -> int:
    """A positive integer whose records fit in this machine's memory (when ``bytes_per_game`` is given)."""
    g = integer("games", games, 1, MAX_GAMES)
    if bytes_per_game > 0:
        check_memory("games", g, bytes_per_game)
    return g


#: peak bytes of memory per game while a run holds its records, as (per game, per game and seat), keyed by
#: (mode, from disk): records built in memory by the kernels, or read back from chunks on disk (``--out``,
#: the results store).  Measured with scripts/measure_record_bytes.py (peak resident memory of runs of
#: 2-10 players, 2 threads; a line above every measurement, docs/safety.md has them).
RECORD_BYTES = {("round", False): (146, 8), ("round", True): (175, 8),
                ("match", False): (105, 52), ("match", True): (120, 50)}
#: ``--round-records`` (match mode): bytes per match of the table of its rounds, by players (a match has
#: fewer rounds with more players), measured as above; other player counts are interpolated
ROUND_RECORD_BYTES = {2: 1700, 3: 1200, 4: 800, 6: 500, 8: 250, 10: 200}


def record_bytes(mode: str, players: int, from_disk: bool = False, round_records: bool = False) -> int:
    """Peak bytes of memory per game of a run of ``mode`` with ``players`` seats that holds its records:
    built in memory, or (``from_disk``) read back from chunks on disk; ``round_records`` adds a match's
    table of rounds."""
    base, per_seat = RECORD_BYTES[(mode, bool(from_disk))]
    rounds = float(np.interp(players, list(ROUND_RECORD_BYTES), list(ROUND_RECORD_BYTES.values()))) \
        if round_records else 0.0
    return int(np.ceil(base + per_seat * players + rounds))


def physical_memory() -> int:
    """Bytes of physical memory on this machine (0 when the platform does not say)."""
    try:
        return int(os.sysconf("SC_PAGE_SIZE")) * int(os.sysconf("SC_PHYS_PAGES"))
    except (ValueError, OSError, AttributeError):
        return 0


#: where a container's memory limit is (cgroup v2, then v1)
CGROUP_LIMITS = (Path("/sys/fs/cgroup/memory.max"), Path("/sys/fs/cgroup/memory/memory.limit_in_bytes"))


def container_memory_limit() -> int:
    """The memory limit of this process's container (cgroup), or 0 when there is none."""
    for path in CGROUP_LIMITS:
        try:
            text = path.read_text().strip()
        except (OSError, UnicodeDecodeError):
            continue
        if text.isdigit() and 0 < int(text) < 2**60:  # "max" or a huge v1 number: no limit
            return int(text)
    return 0


def usable_memory() -> tuple[int, str]:
    """(bytes, what they are): the container's memory limit when it is below physical memory, else
    physical memory (0 when the platform says neither)."""
    mem, limit = physical_memory(), container_memory_limit()
    if limit and (mem <= 0 or limit < mem):
        return limit, "container's memory limit"
    return mem, "machine's memory"


def fits_in_memory(nbytes: int, share: float) -> bool:
    """Whether ``nbytes`` fit in ``share`` of the usable memory (:func:`usable_memory`; True where it is unknown)."""
    mem, _ = usable_memory()
    return mem <= 0 or nbytes <= mem * share


def check_memory(name: str, count: int, bytes_each: int, share: float = 0.5,
                 advice: str = "in one run (split larger runs by seed)") -> None:
    """Refuse a run whose in-memory records would take more than ``share`` of the usable memory
    (:func:`usable_memory`: a container's limit counts); ``advice`` follows the largest ``count`` allowed."""
    need = count * bytes_each
    if not fits_in_memory(need, share):
        mem, what = usable_memory()
        limit = int(mem * share)
        most = max(1, limit // bytes_each)
        raise SimulationError(
            f"{name}={count:,} needs about {_gib(need)} of memory for its records ({bytes_each:,} bytes each, "
            f"measured), more than half of this {what} {_gib(mem)}; accepted: at most {most:,} {advice}")


def _gib(n: int) -> str:
    g = n / 2**30
    if g < 1:
        return f"{n / 2**20:,.0f} MiB"
    return f"{g:,.0f} GiB" if g >= 10 else f"{g:.1f} GiB"


def check_seed(seed: Any) -> int:
    return integer("seed", seed, 0, MAX_SEED, accepted="0..2**64-1")


def check_threads(threads: Any) -> int:
    """``None``: all cores."""
    if threads is None:
        return max(1, os.cpu_count() or 1)
    return integer("threads", threads, 1, MAX_THREADS)


def check_batch(batch_size: Any, default: int) -> int:
    return default if batch_size is None else integer("batch_size", batch_size, 1, MAX_BATCH)


def check_first(first: Any, games: int) -> int:
    """The global index of a run's first game (the results store plays a run in ranges)."""
    return integer("first", first, 0, MAX_GAMES - games)


def check_seating(seating: Any) -> int:
    return SEATINGS.index(choice("seating", seating, SEATINGS))


def check_mode(mode: Any) -> str:
    return choice("mode", mode, MODES)


def check_progress(progress: Any) -> bool:
    return boolean("progress", progress)


BACKENDS = ("local", "dask", "dask-local")
MAX_WORKERS = 4096
_SCHEDULER_RE = r"(tcp|tls|ucx|inproc|ws|wss)://[^\s/:]+(:\d{1,5})?/?"


def check_backend(backend: Any, scheduler: Any = None, workers: Any = None) -> tuple[str, str | None, int | None]:
    """An execution backend with its options: ``scheduler`` (``dask`` only, required there) and
    ``workers`` (``dask-local`` only; ``None``: one per core).  Returns (backend, scheduler, workers)."""
    import re

    from .errors import BackendError

    backend = choice("backend", backend, BACKENDS, BackendError)
    if scheduler is not None and backend != "dask":
        raise BackendError(f"scheduler={_show(scheduler)} applies to backend='dask' only; accepted: "
                           "backend='dask' (--backend dask), or drop it")
    if workers is not None and backend != "dask-local":
        raise BackendError(f"workers={_show(workers)} applies to backend='dask-local' only; accepted: "
                           "backend='dask-local' (--backend dask-local), or drop it")
    if backend == "dask":
        accepted = "the address of a running `dask scheduler`, e.g. tcp://10.0.0.5:8786"
        if scheduler is None:
            raise BackendError(f"backend='dask' needs a scheduler address; accepted: {accepted}")
        scheduler = text("scheduler", scheduler, accepted, BackendError).strip()
        if not re.fullmatch(_SCHEDULER_RE, scheduler):
            raise BackendError(f"scheduler={_show(scheduler)} is not a scheduler address; accepted: {accepted}")
    if backend == "dask-local":
        workers = check_threads(None) if workers is None else integer("workers", workers, 1, MAX_WORKERS,
                                                                      error=BackendError)
    return backend, scheduler, workers
