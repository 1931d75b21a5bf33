"""A PettingZoo environment over :class:`unosim.Game`, for learning agents (``pip install unosim[rl]``).

::

    from unosim.agents.rl import env

    e = env(rules="official", players=4)
    e.reset(seed=1)
    for agent in e.agent_iter():
        obs, reward, terminated, truncated, info = e.last()
        mask = obs["action_mask"]
        e.step(None if terminated or truncated else int(mask.nonzero()[0][0]))

Agents are ``player_0`` .. ``player_{n-1}`` (the seats).  An observation is a dict: ``observation``, the
policy interface's int64 array of what that seat saw at its latest decision (the ``OBS_*`` layout of
:mod:`unosim.players.policy_api`; zeros before its first decision), and ``action_mask``, the legal actions of
the decision in front of it (zeros for a seat not to move).  Action ``k`` is option ``k`` of the
decision; the last action (``n_actions - 1``) is "none" (draw, take the attack, don't jump in,
nobody) where the decision allows it.  Each episode is one round (or one match with
``mode="match"``); the winner's reward is 1, the others' 0.  ``reset(seed=s)`` plays round 0 of seed
``s``; a reset without a seed plays the next round of the same seed.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from gymnasium import spaces
from pettingzoo import AECEnv
from pettingzoo.utils import AgentSelector

from ..core import enums as E
from ..ruleset.decks import get_deck
from ..running.sim import check_simulate
from .game import Game


class UnoEnv(AECEnv):
    """UNO (any rules, deck and number of players of unosim) as a PettingZoo AEC environment."""

    metadata = {"render_modes": ["human"], "name": "unosim_v0", "is_parallelizable": False}

    def __init__(self, rules: Any = "official", players: int = 4, deck: str = "classic",
                 render_mode: str | None = None, **game_options: Any) -> None:
        super().__init__()
        self._config = dict(rules=rules, players=players, deck=deck, **game_options)
        check_simulate(**self._config, games=1)  # every argument checked now, with one-line errors
        size = get_deck(deck).size
        self.n_actions = size + 1
        self.possible_agents = [f"player_{i}" for i in range(players)]
        self.render_mode = render_mode
        obs_box = spaces.Box(low=np.iinfo(np.int32).min, high=np.iinfo(np.int32).max, shape=(E.obs_size(size),),
                             dtype=np.int64)
        mask_box = spaces.Box(low=0, high=1, shape=(self.n_actions,), dtype=np.int8)
        self._observation_space = spaces.Dict({"observation": obs_box, "action_mask": mask_box})
        self._action_space = spaces.Discrete(self.n_actions)
        self._seed, self._round = 0, 0
        self.game: Game | None = None

    def observation_space(self, agent: str) -> spaces.Space:
        return self._observation_space

    def action_space(self, agent: str) -> spaces.Space:
        return self._action_space

    def reset(self, seed: int | None = None, options: dict | None = None) -> None:
        if seed is not None:
            self._seed, self._round = int(seed), 0
        elif self.game is not None:
            self._round += 1
        if self.game is not None:
            self.game.close()
        self.game = Game(**self._config, seed=self._seed, round=self._round)
        self.agents = self.possible_agents[:]
        self.rewards = {a: 0.0 for a in self.agents}
        self._cumulative_rewards = {a: 0.0 for a in self.agents}
        self.terminations = {a: False for a in self.agents}
        self.truncations = {a: False for a in self.agents}
        self.infos = {a: {} for a in self.agents}
        self._selector = AgentSelector(self.agents)
        self.agent_selection = self.possible_agents[self.game.current_player]

    def observe(self, agent: str) -> dict[str, np.ndarray]:
        seat = self.possible_agents.index(agent)
        d = self.game.observation(seat) if self.game is not None else None
        obs = np.zeros(self._observation_space["observation"].shape, np.int64) if d is None else d.obs.copy()
        mask = np.zeros(self.n_actions, np.int8)
        if self.game is not None and not self.game.is_over() and self.game.current_player == seat:
            for a in self.game.legal_actions():
                mask[a if a >= 0 else self.n_actions - 1] = 1
        return {"observation": obs, "action_mask": mask}

    def step(self, action: int | None) -> None:
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        self._cumulative_rewards[agent] = 0.0
        a = int(action)
        self.game.apply(-1 if a == self.n_actions - 1 else a)
        if self.game.is_over():
            returns = self.game.returns()
            for i, name in enumerate(self.possible_agents):
                self.rewards[name] = returns[i]
                self.terminations[name] = True
                self.infos[name] = {"result": self.game.result}
            self._selector.reinit(self.agents)
            self.agent_selection = self._selector.next()
        else:
            self.agent_selection = self.possible_agents[self.game.current_player]
        self._accumulate_rewards()
        if self.render_mode == "human":
            self.render()

    def render(self) -> None:
        if self.game is None:
            return
        d = self.game.observation()
        if d is None:
            print(f"over: {self.game.result}")
        else:
            print(f"seat {d.seat} to {d.kind}: top {d.top}, colour {d.color}, options {d.options}")

    def close(self) -> None:
        if self.game is not None:
            self.game.close()


def env(**kwargs: Any) -> UnoEnv:
    """The environment with PettingZoo's standard wrappers (an illegal action ends the episode with a
    penalty; order enforcing)."""
    from pettingzoo.utils import wrappers

    e = UnoEnv(**kwargs)
    e = wrappers.TerminateIllegalWrapper(e, illegal_reward=-1)
    return wrappers.OrderEnforcingWrapper(e)
