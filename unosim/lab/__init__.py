"""unosim.lab: experiments: compare, sweep, tournament, tune, the skill study and the ready-made studies."""
