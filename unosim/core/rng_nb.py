"""Random numbers: splitmix64, one 64-bit word of state per round (rng[0])."""

from __future__ import annotations

import numpy as np
from numba import njit

_GOLDEN = np.uint64(0x9E3779B97F4A7C15)
_M1 = np.uint64(0xBF58476D1CE4E5B9)
_M2 = np.uint64(0x94D049BB133111EB)
_S30 = np.uint64(30)
_S27 = np.uint64(27)
_S31 = np.uint64(31)
_S32 = np.uint64(32)
_S11 = np.uint64(11)


@njit(cache=True, _nrt=False)
def mix64_nb(z):
    z = (z ^ (z >> _S30)) * _M1
    z = (z ^ (z >> _S27)) * _M2
    return z ^ (z >> _S31)


@njit(cache=True, _nrt=False)
def game_seed_nb(master, game):
    """Seed of round ``game`` under master seed ``master`` (both uint64)."""
    return mix64_nb(master ^ mix64_nb(game + _GOLDEN))


@njit(cache=True, _nrt=False)
def next_u64_nb(rng):
    rng[0] += _GOLDEN
    return mix64_nb(rng[0])


@njit(cache=True, _nrt=False)
def randint_nb(rng, n):
    """Uniform integer in [0, n) for 0 < n < 2**32 (multiply-shift; bias below 2**-25 for n <= 224)."""
    return np.int64(((next_u64_nb(rng) >> _S32) * np.uint64(n)) >> _S32)


@njit(cache=True, _nrt=False)
def rand01_nb(rng):
    return np.float64(next_u64_nb(rng) >> _S11) * (1.0 / 9007199254740992.0)


@njit(cache=True, _nrt=False)
def shuffle_nb(a, m, rng):
    """Fisher-Yates shuffle of a[0:m], drawing randint_nb(rng, i + 1) for i = m-1 .. 1 (the state stays
    in a register for the loop instead of a round trip through rng[0] per card)."""
    z = rng[0]
    for i in range(m - 1, 0, -1):
        z += _GOLDEN
        j = np.int64(((mix64_nb(z) >> _S32) * np.uint64(i + 1)) >> _S32)
        t = a[i]
        a[i] = a[j]
        a[j] = t
    rng[0] = z
