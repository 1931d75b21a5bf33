"""unosim.core.cache_guard: numba's cached kernels are dropped when any kernel source changes (numba itself
checks only the file that defines a kernel, not the constants it reads from enums)."""

from __future__ import annotations

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


@pytest.mark.parametrize("where", ["beside the sources", "NUMBA_CACHE_DIR"])
def test_a_changed_constant_drops_every_cached_kernel_and_only_those(tmp_path, monkeypatch, where):
    monkeypatch.setattr(config, "CACHE_DIR", str(tmp_path / "numba_cache") if where == "NUMBA_CACHE_DIR" else "")
    pkg = _tree(tmp_path)
    n = 2 * len(cache_guard.KERNEL_SOURCES)
    assert len(cache_guard.cached_kernels(pkg)) == n
    assert cache_guard.drop_stale_kernels(pkg) == n  # no stamp yet: nothing cached can be trusted
    assert cache_guard.cached_kernels(pkg) == []
    assert (cache_guard.cache_dir(pkg / "core" / "other.py") / "other.kernel-3.py311.nbi").exists()
    # numba compiles and caches again; the sources are as stamped: the caches stay
    heur = cache_guard.cache_dir(pkg / "core" / "heuristics_nb.py") / "heuristics_nb.expert_nb-9.py311.nbi"
    heur.write_text("index")
    assert cache_guard.drop_stale_kernels(pkg) == 0
    assert heur.exists()
    # enums changes (heuristics_nb.py does not): heuristics_nb's cache goes too
    (pkg / "core" / "enums.py").write_text("# core/enums.py\nX = 2\n")
    assert cache_guard.drop_stale_kernels(pkg) == 1
    assert not heur.exists()
    assert cache_guard.drop_stale_kernels(pkg) == 0


def test_the_package_is_stamped_as_its_kernel_sources_are():
    """Importing the kernels stamped today's sources (unless it could not write there: an installed package,
    where numba's own checks suffice)."""
    from unosim.core import nb  # noqa: F401  (importing nb runs the guard)

    stamp = cache_guard.stamp_path()
    if not os.access(stamp.parent.parent, os.W_OK):
        return
    assert stamp.read_text().strip() == cache_guard.fingerprint()
