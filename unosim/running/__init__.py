"""unosim.running: running games: the step machine, round and match runs, the simulate facade, scenarios, traces."""
