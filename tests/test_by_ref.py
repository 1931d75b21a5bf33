"""unosim.core.by_ref: a tuple of arrays passed to a compiled call by its address reads and writes the same
arrays as the tuple itself, and keeps its values whatever the arrays' types."""

from __future__ import annotations

import numpy as np
from numba import njit

from unosim.core.by_ref import deref, keep, ref


@njit(_nrt=False)
def _bump(gp, k):
    """Through the address: add k to every element of the first array, return the second's sum."""
    g = deref(gp)
    a, b, c = g
    for i in range(a.shape[0]):
        a[i] += k
    return b.sum() + c[0, 1]


@njit
def _call_by_address(a, b, c, k):
    g = (a, b, c)
    gp = ref(g)
    s = 0.0
    for _ in range(3):
        s += _bump(gp, k)
    keep(g)
    return s


def test_a_call_through_the_address_sees_and_changes_the_callers_arrays():
    a = np.arange(5, dtype=np.int64)
    b = np.array([0.5, 1.5], np.float64)
    c = np.arange(6, dtype=np.uint64).reshape(2, 3)
    s = _call_by_address(a, b, c, 2)
    assert s == 3 * (2.0 + 1)
    assert a.tolist() == [6, 7, 8, 9, 10]  # three calls, each adding 2, on the caller's own array
