"""unosim.ruleset: rules and decks: the rule catalogue, presets, the rules language and the decks."""
