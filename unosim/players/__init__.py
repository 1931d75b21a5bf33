"""unosim.players: policies: the registry, the numba policy interface, plain-Python policies, plugins and lookahead."""
