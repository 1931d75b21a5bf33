"""scripts/profile_core.py names the compiled functions of a process for ``perf`` (the parts that need no perf)."""

from __future__ import annotations

import gc
import sys
import weakref
from pathlib import Path

from numba import njit

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "scripts"))

import profile_core  # noqa: E402


def test_short_name_reads_the_nested_names_of_a_mangled_symbol() -> None:
    mangled = "_ZN6unosim4core8turns_nb14_fast_turns_nbB4v202B40c8tJTIeFIjxB2IKSgI4CrvSCKg1MMVC_2fAwA_3dExxxxx"
    assert profile_core.short_name(mangled) == "unosim.core.turns_nb._fast_turns_nb"
    assert profile_core.short_name("clear_page_erms") == "clear_page_erms"


@njit(cache=False)
def _probe_for_the_map(x):
    return x * 3 + 1


class _Gone:
    pass


def test_kernel_symbols_name_a_function_compiled_here() -> None:
    assert _probe_for_the_map(2) == 7
    gone = _Gone()
    dead = [weakref.proxy(gone)]  # a proxy whose object is gone, as the test suite leaves some: it is passed over
    del gone
    gc.collect()
    symbols = profile_core.kernel_symbols()
    assert len(dead) == 1
    addrs = [a for a, _, _ in symbols]
    assert addrs == sorted(addrs) and len(set(addrs)) == len(addrs)
    assert all(size > 0 for _, size, _ in symbols)
    assert any(name.endswith("._probe_for_the_map") for _, _, name in symbols)
    path = profile_core.write_perf_map(symbols, pid=0)
    try:
        first = path.read_text().splitlines()[0].split(" ", 2)
        assert int(first[0], 16) == symbols[0][0] and int(first[1], 16) == symbols[0][1]
    finally:
        path.unlink()
