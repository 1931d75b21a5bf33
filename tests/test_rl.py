"""The PettingZoo environment (unosim.agents.rl): PettingZoo's own API test, and episodes that are unosim's rounds."""

from __future__ import annotations

import numpy as np
from pettingzoo.test import api_test

import unosim
from unosim.agents.rl import UnoEnv, env


def test_pettingzoo_api_test_passes():
    api_test(env(rules="official", players=3), num_cycles=300, verbose_progress=False)
    api_test(env(rules="seven_zero+stacking", players=4), num_cycles=300, verbose_progress=False)


def _play_greedy_episode(e: UnoEnv) -> dict[str, float]:
    total = dict.fromkeys(e.possible_agents, 0.0)
    for agent in e.agent_iter():
        obs, reward, terminated, truncated, _ = e.last()
        total[agent] += reward
        if terminated or truncated:
            e.step(None)
            continue
        d = e.game.observation()
        assert np.array_equal(obs["observation"], d.obs)  # the seat sees the policy interface's observation
        legal = np.flatnonzero(obs["action_mask"])
        g = d.greedy()
        a = e.n_actions - 1 if g == -1 else g
        assert a in legal
        e.step(a)
    return total


def test_an_episode_is_a_round_of_the_batch_engine():
    batch = unosim.simulate(players=3, policies="greedy", games=3, seed=5, threads=1).records
    e = UnoEnv(players=3)
    e.reset(seed=5)
    for k in range(3):
        if k:
            e.reset()  # the next round of the same seed
        total = _play_greedy_episode(e)
        winner = int(batch["winner"].iloc[k])
        assert total == {f"player_{i}": float(i == winner) for i in range(3)}
