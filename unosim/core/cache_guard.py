"""Drop numba's cached kernels when a source they were compiled from changed.

numba keys a kernel's on-disk cache (``cache=True``) by the source file that defines it, and by nothing
else: "changes in symbols defined in another file are not detected" and "global variables are treated as
constants" (numba's notes on caching, *Cache invalidation*).  The constants a kernel reads from ``enums`` and
the kernels of other modules it calls are frozen into its cached machine code: after an edit of
``enums.py`` that moves an observation slot, ``heuristics_nb.expert_nb`` would load its cached code and read
the old slot, silently.  An installed package is safe (a reinstall gives every file a new stamp, and numba
recompiles them all); a source tree being edited is not.

So the kernel sources are fingerprinted (their contents, not their times), in the order they build on
one another, and when one differs from what is stamped beside the caches, the cached kernels of that
module and of every module after it are dropped; numba compiles them afresh on first use.  An edit of
``lookahead.py`` recompiles its kernels and ``policy_api``'s, an edit of ``enums.py`` all of them.  The
caches are looked for where numba keeps them: beside the sources (``__pycache__``) or under
``NUMBA_CACHE_DIR``; a directory that cannot be written is left alone.  (User policies are compiled
without a disk cache, so they always read the constants of the installed unosim.)
"""

from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path

PACKAGE = Path(__file__).resolve().parent.parent
#: every module of the package that defines cached kernels, after the modules whose constants and kernels it
#: uses (enums first: every kernel reads its constants; by_ref's intrinsics are compiled into the kernels after it)
KERNEL_SOURCES = ("core/enums.py", "core/by_ref.py", "core/layout.py", "core/rng_nb.py", "core/hands_nb.py",
                  "core/rules_nb.py", "core/cards_nb.py", "core/observe_nb.py", "core/decide_nb.py", "core/jump_nb.py",
                  "core/swaps_nb.py", "core/turns_nb.py", "core/round_nb.py", "core/pairing_nb.py", "core/nb.py",
                  "core/heuristics_nb.py", "players/reads.py", "players/lookahead.py", "players/policy_api.py")
STAMP_NAME = "kernel_sources.json"


def cache_dir(src: Path) -> Path:
    """Where numba keeps the cached kernels of source file ``src``: beside it in ``__pycache__``, or under
    NUMBA_CACHE_DIR where that is set (numba's own naming of the subdirectory)."""
    from numba.core import caching, config

    if config.CACHE_DIR:
        return Path(config.CACHE_DIR) / caching._CacheLocator.get_suitable_cache_subpath(str(src))
    return src.parent / "__pycache__"


def stamp_path(package: Path = PACKAGE) -> Path:
    """The stamp of the kernel sources the cached kernels were compiled from, beside nb.py's caches."""
    return cache_dir(package / "core" / "nb.py") / STAMP_NAME


def fingerprints(package: Path = PACKAGE) -> dict[str, str]:
    """sha256 of each kernel source's contents."""
    return {rel: hashlib.sha256((package / rel).read_bytes()).hexdigest() for rel in KERNEL_SOURCES}


def cached_kernels(package: Path = PACKAGE, sources: tuple[str, ...] = KERNEL_SOURCES) -> list[Path]:
    """numba's index and data files of the kernel modules ``sources``."""
    found: list[Path] = []
    for rel in sources:
        src = package / rel
        for pattern in (f"{src.stem}.*.nbi", f"{src.stem}.*.nbc"):
            found += sorted(cache_dir(src).glob(pattern))
    return found


def stale_sources(now: dict[str, str], stamped: dict[str, str]) -> tuple[str, ...]:
    """The kernel modules whose caches cannot be trusted: the first source that changed and every one after."""
    for i, rel in enumerate(KERNEL_SOURCES):
        if stamped.get(rel) != now[rel]:
            return KERNEL_SOURCES[i:]
    return ()


def drop_stale_kernels(package: Path = PACKAGE) -> int:
    """Drop the cached kernels of every module a changed source may have changed (all of them when there is
    no stamp), then stamp the sources.  Returns how many cache files it removed."""
    try:
        now = fingerprints(package)
        stamp = stamp_path(package)
        try:
            stamped = json.loads(stamp.read_text())
        except (OSError, ValueError):
            stamped = {}
        stale = stale_sources(now, stamped if isinstance(stamped, dict) else {})
        if not stale:
            return 0
        dropped = 0
        for f in cached_kernels(package, stale):
            f.unlink(missing_ok=True)
            dropped += 1
        stamp.parent.mkdir(parents=True, exist_ok=True)
        part = stamp.with_name(f"{stamp.name}.{os.getpid()}")  # whole or not at all: test workers start together
        part.write_text(json.dumps(now, indent=1) + "\n")
        os.replace(part, stamp)
        return dropped
    except OSError:  # a tree that cannot be read or written: numba keeps its own (per-file) checks
        return 0
