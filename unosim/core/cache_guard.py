"""Drop numba's cached kernels when a source they were compiled from changed.

numba keys a kernel's on-disk cache (``cache=True``) by the source file that defines it, and by nothing
else: "changes in symbols defined in another file are not detected" and "global variables are treated as
constants" (numba's notes on caching, *Cache invalidation*).  The constants a kernel reads from ``enums`` and
the kernels of other modules it calls are frozen into its cached machine code: after an edit of
``enums.py`` that moves an observation slot, ``heuristics_nb.expert_nb`` would load its cached code and read
the old slot, silently.  An installed package is safe (a reinstall gives every file a new stamp, and numba
recompiles them all); a source tree being edited is not.

So the kernel sources are fingerprinted together (their contents, not their times), and when the
fingerprint differs from the one stamped beside the caches, every cached kernel of these modules is dropped
and numba compiles them afresh on first use.  The caches are looked for where numba keeps them: beside the
sources (``__pycache__``) or under ``NUMBA_CACHE_DIR``; a directory that cannot be written is left alone.
"""

from __future__ import annotations

import hashlib
from pathlib import Path

PACKAGE = Path(__file__).resolve().parent.parent
#: every module of the package that defines cached kernels, and enums, whose constants they all read
KERNEL_SOURCES = ("core/enums.py", "core/nb.py", "core/heuristics_nb.py", "players/policy_api.py",
                  "players/lookahead.py")
STAMP_NAME = "kernel_sources.sha256"


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


def fingerprint(package: Path = PACKAGE) -> str:
    """sha256 of the kernel sources' contents, in KERNEL_SOURCES order."""
    h = hashlib.sha256()
    for rel in KERNEL_SOURCES:
        h.update(rel.encode())
        h.update((package / rel).read_bytes())
    return h.hexdigest()


def cached_kernels(package: Path = PACKAGE) -> list[Path]:
    """numba's index and data files of the kernel modules."""
    found: list[Path] = []
    for rel in KERNEL_SOURCES:
        src = package / rel
        for pattern in (f"{src.stem}.*.nbi", f"{src.stem}.*.nbc"):
            found += sorted(cache_dir(src).glob(pattern))
    return found


def drop_stale_kernels(package: Path = PACKAGE) -> int:
    """Drop the cached kernels when the kernel sources changed since the stamp was written (or when there
    is no stamp), then stamp the sources.  Returns how many cache files it removed."""
    try:
        now = fingerprint(package)
        stamp = stamp_path(package)
        if stamp.exists() and stamp.read_text().strip() == now:
            return 0
        dropped = 0
        for f in cached_kernels(package):
            f.unlink(missing_ok=True)
            dropped += 1
        stamp.parent.mkdir(parents=True, exist_ok=True)
        stamp.write_text(now + "\n")
        return dropped
    except OSError:  # a tree that cannot be read or written: numba keeps its own (per-file) checks
        return 0
