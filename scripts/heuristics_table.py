#!/usr/bin/env python
"""Every heuristic against three greedy opponents: 4 players, official rules, rotating seats.

Prints a markdown table: the heuristic's win rate overall and in each seat, with 95% Wilson intervals
(greedy itself is the first row: a fair seat wins 25%).  ``--rounds`` per heuristic (default 200,000).
"""

from __future__ import annotations

import argparse

import numpy as np

from unosim import simulate
from unosim.analysis.stats import proportion_ci
from unosim.players.policy_api import HEURISTICS


def row(name: str, rounds: int, seed: int) -> list[str]:
    n = 4
    r = simulate(rules="official", players=n, policies=[name] + ["greedy"] * (n - 1), games=rounds, seed=seed,
                 seating="rotate")
    rec = r.records
    g = rec["game"].to_numpy()
    won = rec["winner_policy"].to_numpy() == 0
    seat = (-g) % n  # seating=rotate: policy 0 sits in seat (-g) mod n
    cells = []
    for mask in [np.ones(len(g), bool)] + [seat == s for s in range(n)]:
        p, _, lo, hi = proportion_ci(int(won[mask].sum()), int(mask.sum()))
        cells.append(f"{100 * p:.2f} [{100 * lo:.2f}, {100 * hi:.2f}]")
    return [name] + cells + [f"{r.summary['games_per_second']:,.0f}"]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--rounds", type=int, default=200_000)
    ap.add_argument("--seed", type=int, default=8)
    a = ap.parse_args()
    print(f"| policy (vs 3 greedy, {a.rounds:,} rounds) | win % [95% CI] | seat 0 | seat 1 | seat 2 | seat 3 "
          "| rounds/s |")
    print("|---|---|---|---|---|---|---|")
    for name in ["greedy"] + list(HEURISTICS):
        print("| " + " | ".join(row(name, a.rounds, a.seed)) + " |", flush=True)


if __name__ == "__main__":
    main()
