"""What a command shows on stderr while it works: progress bars and the first-run compile notice.

The engine's kernels are compiled by numba on their first use and then loaded from its disk cache.
A compile that is not cached takes about a minute (several on a busy machine), so the command line
says so before it starts (:func:`compiling`): a spinner with the seconds so far on a terminal, one
plain line otherwise, nothing with ``--quiet``.  The Python API stays silent unless
:func:`configure` turns the notice on.  Every compile or cache load is timed (:func:`compile_seconds`).

This module imports nothing from the package (the kernels' module imports it).
"""

from __future__ import annotations

import sys
import threading
import time
from contextlib import contextmanager
from typing import Any

_STARTED = time.perf_counter()

#: what each entry kernel is, and about how long its compile takes (2 cores): in words, and short (spinner)
KERNELS = {
    "play_batch_nb": ("the round engine", "about a minute on a quiet machine, several on a busy one", "~1 min"),
    "play_match_batch_nb": ("the match engine", "about 15 s on a quiet machine, a minute on a busy one", "~15 s"),
    "heuristics_slot_nb": ("the heuristic policies", "about 10-30 s", "~20 s"),
}
#: progress-bar units in the singular (tqdm appends "/s")
_SINGULAR = {"rounds": "round", "matches": "match", "games": "game", "line-ups": "line-up"}


class _State:
    notice = False        # announce compiles that are not cached
    quiet = False         # no notice, no progress bars
    seconds = 0.0         # compile and cache-load seconds in this process
    lock = threading.Lock()


def configure(notice: bool | None = None, quiet: bool | None = None) -> None:
    """Turn the compile notice on or off, and ``quiet`` (no notice and no progress bars)."""
    if notice is not None:
        _State.notice = notice
    if quiet is not None:
        _State.quiet = quiet


def compile_seconds() -> float:
    """Seconds spent compiling or loading kernels from the cache in this process."""
    return _State.seconds


def elapsed() -> float:
    """Seconds since the package's console module was imported (about the start of a command)."""
    return time.perf_counter() - _STARTED


def progress_bar(progress: bool, total: int, unit: str, desc: str, **kw: Any):
    """A tqdm bar counting ``unit`` (plural, e.g. "matches"), or None when ``progress`` is off or quiet."""
    if not progress or _State.quiet:
        return None
    from tqdm import tqdm

    return tqdm(total=total, unit=_SINGULAR.get(unit, unit), unit_scale=True, desc=desc, **kw)


def is_cached(fn: Any, signature: Any) -> bool:
    """Whether numba's disk cache holds ``fn`` compiled for ``signature`` (the index entry numba itself looks
    up before it compiles; False when that cannot be told)."""
    try:
        from numba.core.caching import FunctionCache
        from numba.core.registry import cpu_target

        cache = FunctionCache(fn)
        key = cache._index_key(signature, cpu_target.target_context.codegen())
        return key in cache._cache_file._load_index()
    except Exception:  # noqa: BLE001  (numba internals: if they change, announce the compile)
        return False


@contextmanager
def compiling(name: str, fn: Any, signature: Any, cached: bool = True):
    """Time the compile (or cache load) of kernel ``name`` and, when it is not cached and the notice is on,
    say what is happening and about how long it takes."""
    show = _State.notice and not _State.quiet and name in KERNELS and not (cached and is_cached(fn, signature))
    spinner = _Notice(*KERNELS[name]) if show else None
    t0 = time.perf_counter()
    try:
        yield
    finally:
        dt = time.perf_counter() - t0
        with _State.lock:
            _State.seconds += dt
        if spinner is not None:
            spinner.stop(dt)


class _Notice:
    """One line before a compile: a spinner with the seconds so far on a terminal (short enough for 80
    columns), else plain text."""

    FRAMES = "|/-\\"

    def __init__(self, what: str, how_long: str, short: str = "") -> None:
        self.what, self.short = what, short
        self.tty = sys.stderr.isatty()
        self.done = threading.Event()
        if not self.tty:
            print(f"compiling {what} (first run only, then cached; {how_long}) ...", file=sys.stderr, flush=True)
            return
        self.thread = threading.Thread(target=self._spin, daemon=True)
        self.thread.start()

    def _spin(self) -> None:
        t0, k = time.perf_counter(), 0
        while not self.done.wait(0.25):
            k += 1
            sys.stderr.write(f"\r{self.FRAMES[k % 4]} compiling {self.what}, first run only: "
                             f"{time.perf_counter() - t0:.0f} s ({self.short})\x1b[K")
            sys.stderr.flush()

    def stop(self, seconds: float) -> None:
        self.done.set()
        if self.tty:
            self.thread.join()
            sys.stderr.write(f"\rcompiled {self.what} in {seconds:.0f} s; later runs load it from the cache\x1b[K\n")
            sys.stderr.flush()
