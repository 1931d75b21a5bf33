"""Example policy file for ``unosim simulate --policy-file scripts/policy_example_numba.py``.

Two policies written against the decision interface (see ``unosim policies`` and
``unosim.policy_api``):

* ``greedy_numba``: greedy written against the observation; plays exactly like the built-in greedy.
* ``low_first``: the opposite of greedy: play the legal card with the fewest points (wilds last), and
  when it has a choice of drawing, draw with probability ``p_draw`` from the engine's random stream.
"""

from unosim.policy_api import (
    BLACK,
    D_PLAY,
    NRANKS,
    OBS_NLEGAL,
    OBS_NONE_OK,
    greedy_obs_nb,
    opt_info,
    opt_value,
    policy,
    rand01_nb,
)


@policy()
def greedy_numba(kind, obs, params, rng):
    """greedy, written against the observation (the same records as the built-in greedy)."""
    return greedy_obs_nb(kind, obs, params, rng)


@policy(params={"p_draw": 0.0})
def low_first(kind, obs, params, rng):
    """Play the legal card with the fewest points (wilds last); draw instead with probability p_draw."""
    if kind == D_PLAY:
        if obs[OBS_NONE_OK] != 0 and params[0] > 0.0 and rand01_nb(rng) < params[0]:
            return -1
        best = -1
        for k in range(obs[OBS_NLEGAL]):
            if opt_value(obs, k) // NRANKS == BLACK:
                if best < 0:
                    best = k
                continue
            if best < 0 or opt_value(obs, best) // NRANKS == BLACK or opt_info(obs, k) < opt_info(obs, best):
                best = k
        return best
    return greedy_obs_nb(kind, obs, params, rng)
