"""unosim.agents: the step API for agents: Game and the PettingZoo environment."""
