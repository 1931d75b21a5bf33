"""The record check: sha256 of the records of fixed configurations, to prove a refactor changes no result.

    python scripts/record_hashes.py --save before.json      # on the old build
    python scripts/record_hashes.py --against before.json   # on the new build: lists what changed

The configurations: 16 rule sets x 2/4/6 players x four line-ups (random, greedy and two heuristic
mixes), UNO Flip, Harry Potter and BTS with three line-ups each, stacking on each of those decks
(204 round-mode configurations), plus match mode under each scoring mode.  Each plays a few hundred
rounds (or matches) with a fixed seed; the hash covers every column of the records.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import sys

RULE_SETS = ["official", "stacking", "seven_zero", "draw_until_playable", "jump_in", "party", "challenges",
             "stacking+seven_zero", "deflect_skip", "reverse_bounce", "swap_on_five", "zero_swap_any",
             "speed_uno", "deflect_draw_two+deflect_wd4", "reverse_bounce_rebounce", "everything"]
HEURISTIC_MIXES = ["hold_wilds,color_majority,attack,defensive,card_counter,challenger",
                   "bluffer,weighted,hold_wilds,challenger,card_counter,attack"]
LINEUPS = ["random", "greedy", *HEURISTIC_MIXES]
DECKS = ["flip", "harry_potter", "bts"]
MATCH_SCORING = ["standard", "lazy", "self_loser", "lowest_wins", "elimination", "rotating_partners"]


def _lineup(spec: str, players: int) -> str:
    names = spec.split(",")
    return ",".join(names[i % len(names)] for i in range(players))


def configurations() -> list[dict]:
    out = []
    for rules in RULE_SETS:
        for players in (2, 4, 6):
            for lineup in LINEUPS:
                out.append(dict(rules=rules, players=players, policies=_lineup(lineup, players)))
    for deck in DECKS:
        for lineup in LINEUPS[:3]:
            out.append(dict(rules="official", players=4, policies=_lineup(lineup, 4), deck=deck))
        out.append(dict(rules="stacking", players=4, policies="random", deck=deck))
    return out


def match_configurations() -> list[dict]:
    out = []
    for scoring in MATCH_SCORING:
        for lineup in ("random", "greedy"):
            out.append(dict(rules="official", players=4, policies=lineup, mode="match", scoring=scoring))
    return out


def digest(cfg: dict, games: int) -> str:
    import unosim

    kw = dict(cfg)
    res = unosim.simulate(games=games, seed=12345, threads=1, **kw)
    h = hashlib.sha256()
    frame = res.records.reset_index(drop=True)
    for col in frame.columns:
        h.update(col.encode())
        values = frame[col].to_numpy()
        # an object array (strings, and categoricals such as end_reason) is hashed by its text: its bytes
        # are pointers, which differ from process to process
        h.update(values.tobytes() if values.dtype != object else "\x1f".join(map(str, values)).encode())
    return h.hexdigest()


def key(cfg: dict) -> str:
    return json.dumps(cfg, sort_keys=True)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--save", help="write the hashes to this JSON file")
    ap.add_argument("--against", help="compare with the hashes in this JSON file")
    ap.add_argument("--games", type=int, default=300)
    ap.add_argument("--no-match", action="store_true", help="round-mode configurations only")
    a = ap.parse_args()
    cfgs = configurations() + ([] if a.no_match else match_configurations())
    hashes = {}
    for i, cfg in enumerate(cfgs):
        games = a.games if cfg.get("mode") != "match" else max(20, a.games // 10)
        try:
            hashes[key(cfg)] = digest(cfg, games)
        except Exception as e:  # a configuration the build refuses is a difference too
            hashes[key(cfg)] = f"error: {type(e).__name__}: {e}"
        print(f"\r{i + 1}/{len(cfgs)}", end="", file=sys.stderr, flush=True)
    print(file=sys.stderr)
    if a.save:
        with open(a.save, "w") as f:
            json.dump(hashes, f, indent=1, sort_keys=True)
    if a.against:
        with open(a.against) as f:
            old = json.load(f)
        changed = [k for k in hashes if old.get(k) != hashes[k]]
        for k in changed:
            print("changed:", k)
        print(f"{len(hashes) - len(changed)} of {len(hashes)} configurations identical")
        return 1 if changed else 0
    print(f"{len(hashes)} configurations hashed")
    return 0


if __name__ == "__main__":
    sys.exit(main())
