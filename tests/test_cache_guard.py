"""unosim.core.cache_guard: numba's cached kernels are dropped when any kernel source changes (numba itself
checks only the file that defines a kernel, not the constants it reads from enums)."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from numba.core import config

from unosim.core import cache_guard


def _tree(root: Path) -> Path:
    """A package with every kernel source, one cached kernel of each, and the cache of another module."""
    pkg = root / "unosim"
    for rel in cache_guard.KERNEL_SOURCES:
        src = pkg / rel
        src.parent.mkdir(parents=True, exist_ok=True)
        src.write_text(f"# {rel}\nX = 1\n")
    for rel in cache_guard.KERNEL_SOURCES:
        src = pkg / rel
        cache = cache_guard.cache_dir(src)
        cache.mkdir(parents=True, exist_ok=True)
        (cache / f"{src.stem}.kernel-12.py311.nbi").write_text("index")
        (cache / f"{src.stem}.kernel-12.py311.1.nbc").write_text("code")
    other = cache_guard.cache_dir(pkg / "core" / "other.py") / "other.kernel-3.py311.nbi"
    other.write_text("not a kernel source's cache")
    return pkg


def _names(paths: list[Path]) -> list[str]:
    return sorted(p.name.split(".")[0] for p in paths)


@pytest.mark.parametrize("where", ["beside the sources", "NUMBA_CACHE_DIR"])
def test_a_changed_source_drops_the_cached_kernels_built_on_it_and_only_those(tmp_path, monkeypatch, where):
    monkeypatch.setattr(config, "CACHE_DIR", str(tmp_path / "numba_cache") if where == "NUMBA_CACHE_DIR" else "")
    pkg = _tree(tmp_path)
    n = 2 * len(cache_guard.KERNEL_SOURCES)
    assert len(cache_guard.cached_kernels(pkg)) == n
    assert cache_guard.drop_stale_kernels(pkg) == n  # no stamp yet: nothing cached can be trusted
    assert cache_guard.cached_kernels(pkg) == []
    assert (cache_guard.cache_dir(pkg / "core" / "other.py") / "other.kernel-3.py311.nbi").exists()

    def recompile():
        for rel in cache_guard.KERNEL_SOURCES:
            src = pkg / rel
            (cache_guard.cache_dir(src) / f"{src.stem}.kernel-12.py311.nbi").write_text("index")

    recompile()
    assert cache_guard.drop_stale_kernels(pkg) == 0  # the sources are as stamped: the caches stay
    # heuristics_nb changes: its kernels and those built on it (reads, lookahead, policy_api) go; the engine's stay
    (pkg / "core" / "heuristics_nb.py").write_text("# changed\n")
    assert cache_guard.drop_stale_kernels(pkg) == 4
    engine = cache_guard.KERNEL_SOURCES[:cache_guard.KERNEL_SOURCES.index("core/heuristics_nb.py")]
    assert "core/nb.py" in engine and "core/round_nb.py" in engine
    assert _names(cache_guard.cached_kernels(pkg)) == sorted(Path(rel).stem for rel in engine)
    recompile()
    # a constant of enums changes (no other file does): every cached kernel goes
    (pkg / "core" / "enums.py").write_text("# core/enums.py\nX = 2\n")
    assert cache_guard.drop_stale_kernels(pkg) == len(cache_guard.KERNEL_SOURCES)
    assert cache_guard.cached_kernels(pkg) == []
    recompile()
    # by_ref's intrinsics change: the engine's kernels and every module after them go, enums' stay
    (pkg / "core" / "by_ref.py").write_text("# changed\n")
    assert cache_guard.drop_stale_kernels(pkg) == len(cache_guard.KERNEL_SOURCES) - 1
    assert _names(cache_guard.cached_kernels(pkg)) == ["enums"]
    assert cache_guard.drop_stale_kernels(pkg) == 0


def test_a_stamp_that_cannot_be_read_counts_as_none(tmp_path, monkeypatch):
    monkeypatch.setattr(config, "CACHE_DIR", "")
    pkg = _tree(tmp_path)
    stamp = cache_guard.stamp_path(pkg)
    stamp.write_text("not json")
    assert cache_guard.drop_stale_kernels(pkg) == 2 * len(cache_guard.KERNEL_SOURCES)
    assert json.loads(stamp.read_text()) == cache_guard.fingerprints(pkg)


def test_the_package_is_stamped_as_its_kernel_sources_are():
    """Importing the kernels stamped today's sources (unless it could not write there: an installed package,
    where numba's own checks suffice)."""
    from unosim.core import nb  # noqa: F401  (importing nb runs the guard)

    stamp = cache_guard.stamp_path()
    if not os.access(stamp.parent.parent, os.W_OK):
        return
    assert json.loads(stamp.read_text()) == cache_guard.fingerprints()


def test_every_module_with_cached_kernels_is_a_kernel_source():
    """A module that compiles kernels with cache=True and is missing from KERNEL_SOURCES keeps stale machine code
    in the kernels of the modules that call it (numba does not see their sources change): reads.fits_nb, compiled
    into lookahead's playouts, was the case that showed it."""
    import re

    package = cache_guard.PACKAGE
    cached = re.compile(r"@(njit|jit|entry|generated_jit)\(.*cache=True")
    defining = {str(p.relative_to(package)) for p in package.rglob("*.py")
                if cached.search(p.read_text(encoding="utf-8"))}
    assert defining <= set(cache_guard.KERNEL_SOURCES), defining - set(cache_guard.KERNEL_SOURCES)
