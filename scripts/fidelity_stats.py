"""The two statistics of the fidelity check (issue: deflect_skip with 2 players, lazy scoring's tie-break).

    python scripts/fidelity_stats.py deflect --policies random --games 1000000 --seed 2026
    python scripts/fidelity_stats.py lazy --policies greedy --games 100000 --seed 2026

``deflect``: 2-player ``deflect_skip`` rounds, the mean winner points with its standard error.
``lazy``: 4-player ``lazy`` matches with round records; for every round after the first whose previous
round had a winner (the leader), the share of those rounds dealt by the seat k places clockwise from the
leader (k = 1 .. n-1), each with its binomial standard error.
"""

from __future__ import annotations

import argparse
import json

import numpy as np

from unosim import ENGINE_VERSION
from unosim.running.match import simulate_matches
from unosim.running.sim import simulate


def deflect(args: argparse.Namespace) -> dict:
    s = simulate(rules="deflect_skip", players=2, policies=args.policies, games=args.games, seed=args.seed,
                 threads=args.threads).summary
    return {"mean_winner_points": s["mean_winner_points"], "se": s["se_winner_points"]}


def lazy(args: argparse.Namespace) -> dict:
    n = args.players
    res = simulate_matches(rules="official", players=n, policies=args.policies, games=args.games, seed=args.seed,
                           threads=args.threads, scoring="lazy", round_records=True)
    r = res.extra["rounds"].sort_values(["match", "round"])
    prev_w = r["winner"].shift(1).to_numpy()
    same = (r["match"].shift(1) == r["match"]).to_numpy()
    ok = same & (prev_w >= 0)
    off = (r["dealer"].to_numpy()[ok] - prev_w[ok].astype(np.int64)) % n
    cnt = np.bincount(off, minlength=n)
    tot = int(ok.sum())
    share = cnt / tot
    return {"rounds": tot, "share_by_offset": [float(x) for x in share],
            "se": [float(np.sqrt(x * (1 - x) / tot)) for x in share]}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("what", choices=("deflect", "lazy"))
    ap.add_argument("--policies", default="random")
    ap.add_argument("--games", type=int, default=100_000)
    ap.add_argument("--seed", type=int, default=2026)
    ap.add_argument("--players", type=int, default=4)
    ap.add_argument("--threads", type=int, default=1)
    args = ap.parse_args()
    out = deflect(args) if args.what == "deflect" else lazy(args)
    print(json.dumps({"what": args.what, "policies": args.policies, "games": args.games, "seed": args.seed,
                      "engine_version": ENGINE_VERSION, **out}))


if __name__ == "__main__":
    main()
