"""unosim.analysis: statistics on records: intervals, paired differences, teams, answer sentences, tidy frames."""
