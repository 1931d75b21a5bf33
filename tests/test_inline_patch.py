"""The fix of numba's IR inliner (unosim.core.inline_patch): each inlined callee's scope is copied
once instead of once per block, and the compiled code does not change."""

from __future__ import annotations

import re

import numpy as np
import pytest
from numba import njit
from numba.core import inline_closurecall as icc

from unosim.core import inline_patch

pytestmark = pytest.mark.skipif(not inline_patch.applies(),
                                reason="this numba's inliner differs from the one the fix replaces")


def _kernel():
    """A fresh kernel (new dispatchers, so each call compiles and inlines afresh): a nested
    ``inline="always"`` tree with several blocks per callee."""

    @njit(inline="always")
    def leaf(a, i):
        s = 0
        for k in range(i):
            if a[k] > 0:
                s += a[k]
            elif a[k] < -5:
                s -= 1
            else:
                s += 2
        return s

    @njit(inline="always")
    def middle(a, i):
        t = leaf(a, i)
        if t > 3:
            t += leaf(a, i - 1)
        return t

    @njit
    def top(a):
        return middle(a, a.shape[0]) + middle(a, 2)

    return top


def _scopes_per_copy(monkeypatch, inline_ir):
    """Compile a fresh kernel with ``inline_ir``; the number of distinct scope objects in each
    copied callee, and the kernel's result and assembly."""
    counts = []

    def spy(self, *args, **kwargs):
        out = inline_ir(self, *args, **kwargs)
        counts.append(len({id(block.scope) for block in out[0].blocks.values()}))
        return out

    monkeypatch.setattr(icc.InlineWorker, "inline_ir", spy)
    top = _kernel()
    a = np.array([3, -7, 0, 5, 1, -2], dtype=np.int64)
    result = top(a)
    asm = top.inspect_asm(top.signatures[0])
    return counts, result, re.sub(r"_ZN\S+|\.L\w+|\"[^\"]*\"", "_", asm)


def test_the_core_installs_the_fix():
    import unosim.core.nb  # noqa: F401  (importing the core installs it)

    assert inline_patch.installed()


def test_each_inlined_callee_copies_its_scope_once_and_compiles_to_the_same_code(monkeypatch):
    fixed, fixed_result, fixed_asm = _scopes_per_copy(monkeypatch, inline_patch._FIXED)
    numbas, numba_result, numba_asm = _scopes_per_copy(monkeypatch, inline_patch._ORIGINAL)
    assert len(fixed) == len(numbas) >= 4  # two sites of middle, each with two of leaf
    assert set(fixed) == {1}
    assert max(numbas) > 1  # numba's own copy: a scope per block
    assert fixed_result == numba_result == _kernel().py_func(np.array([3, -7, 0, 5, 1, -2]))
    assert fixed_asm == numba_asm
