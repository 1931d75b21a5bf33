"""Measure the peak memory a run's records take per game (the numbers behind ``unosim.validate.RECORD_BYTES``).

For each configuration, ``unosim simulate`` runs twice in a fresh process (``small`` and ``large`` games)
after a warm-up run of the same configuration (compiled kernels, pyarrow loaded); the process's peak
resident memory is reset just before the measured run (Linux: ``/proc/self/clear_refs``), so
(peak(large) - peak(small)) / (large - small) is what one more game costs at the peak, fixed costs
cancelled.  Prints one line per configuration and a least-squares fit ``base + per_seat * players``.

    python scripts/measure_record_bytes.py               # round and match mode, 2, 4, 7, 10 players
    python scripts/measure_record_bytes.py --quick       # fewer games (noisier)
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile

import numpy as np

CHILD = r"""
import json, sys, tempfile
from pathlib import Path
from unosim.cli import run

def cli(argv):
    try:
        run(argv)
    except SystemExit as e:
        assert e.code in (0, None), e.code

def status(key):
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith(key + ":"):
            return int(line.split()[1]) * 1024

args, games = json.loads(sys.argv[1]), int(sys.argv[2])
tmp = Path(tempfile.mkdtemp())
out = lambda name: ["--out", str(tmp / name)] if "--out" in args else []
plain = [a for a in args if a != "--out"]
cli(["simulate", *plain, "--games", "200", *out("warm")])
Path("/proc/self/clear_refs").write_text("5")  # reset the peak (VmHWM) to the current resident size
before = status("VmRSS")
cli(["simulate", *plain, "--games", str(games), *out("run")])
print(json.dumps({"before": before, "peak": status("VmHWM")}))
"""


def peak_extra(args: list[str], games: int) -> int:
    """Bytes the process's peak rose by during a run of ``games`` games."""
    p = subprocess.run([sys.executable, "-c", CHILD, json.dumps(args), str(games)], capture_output=True, text=True,
                       check=True)
    m = json.loads(p.stdout.strip().splitlines()[-1])
    return m["peak"] - m["before"]


def per_game(args: list[str], small: int, large: int) -> float:
    return (peak_extra(args, large) - peak_extra(args, small)) / (large - small)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--quick", action="store_true", help="fewer games per measurement")
    ap.add_argument("--players", default="2,4,7,10")
    ap.add_argument("--threads", default="2")
    ap.add_argument("--only", default=None, help="configurations whose name starts with this, e.g. match")
    ap.add_argument("--match-games", type=int, default=80_000, help="matches of the larger match runs")
    opts = ap.parse_args()
    scale = 4 if opts.quick else 1
    mg = opts.match_games // scale
    players = [int(p) for p in opts.players.split(",")]
    common = ["--policies", "random", "--threads", opts.threads, "--seed", "1"]
    configs = {
        "round": (["--mode", "round"], 400_000 // scale, 1_600_000 // scale),
        "round --out": (["--mode", "round", "--out"], 400_000 // scale, 1_600_000 // scale),
        "match": (["--mode", "match"], mg // 4, mg),
        "match --out": (["--mode", "match", "--out"], mg // 4, mg),
        "match --out --round-records": (["--mode", "match", "--out", "--round-records"], mg // 4, mg),
    }
    with tempfile.TemporaryDirectory():
        for name, (args, small, large) in configs.items():
            if opts.only and not name.startswith(opts.only):
                continue
            ys = []
            for n in players:
                b = per_game([*args, *common, "--players", str(n)], small, large)
                ys.append(b)
                print(f"{name:<30} {n:>2} players  {b:8.1f} bytes per game", flush=True)
            per_seat, base = np.polyfit(players, ys, 1)
            print(f"{name:<30} fit: {base:.0f} + {per_seat:.1f} x players", flush=True)


if __name__ == "__main__":
    main()
