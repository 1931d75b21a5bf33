"""Where a run's time goes in the compiled core, by function, on the release build (Linux ``perf``).

    python scripts/profile_core.py                                   # official, 4 random players
    python scripts/profile_core.py --rules stacking --games 600000
    python scripts/profile_core.py --deck flip --policies greedy --top 30

numba's code lives in memory that ``perf`` cannot name.  This script compiles the engine afresh in its own
process (a temporary numba cache: about a minute), writes ``/tmp/perf-PID.map`` with the address and size
of every compiled function it holds (``perf`` reads that file to name samples in JIT code), then plays the
rounds while ``perf record`` samples it, and prints each function's share of the samples.  A function that
LLVM inlined counts in its caller; a debug build (``NUMBA_DEBUGINFO=1``) keeps small helpers apart, but its
shares are not the release build's.  docs/benchmarks.md ("Where a round's time goes") has a table of them.
"""

from __future__ import annotations

import argparse
import gc
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

_LEN_NAME = re.compile(r"(\d+)")


def short_name(mangled: str) -> str:
    """``unosim.core.turns_nb._fast_turns_nb`` for numba's Itanium-mangled ``_ZN6unosim4core8turns_nb14_fast_...``
    (the nested names, without the signature); other names as they are."""
    if not mangled.startswith("_ZN"):
        return mangled
    parts, i = [], 3
    while i < len(mangled) and mangled[i].isdigit():
        m = _LEN_NAME.match(mangled, i)
        n = int(m.group(1))
        parts.append(mangled[m.end():m.end() + n])
        i = m.end() + n
    return ".".join(parts) or mangled


def kernel_symbols() -> list[tuple[int, int, str]]:
    """(address, size, name) of every function compiled in this process by a numba dispatcher (each library's
    own copy of what it linked in), sorted by address; a function's size reaches to the next one's address.
    Functions loaded from the on-disk cache are not listed (their code objects keep no names)."""
    from numba.core.registry import CPUDispatcher

    found: dict[int, str] = {}
    for obj in gc.get_objects():
        if not issubclass(type(obj), CPUDispatcher):  # not isinstance: a dead weak proxy raises there
            continue
        for cres in list(obj.overloads.values()):
            lib = cres.library
            module = getattr(lib, "_final_module", None)
            if module is None:
                continue
            for fn in module.functions:
                if fn.is_declaration:
                    continue
                try:
                    addr = lib.get_pointer_to_function(fn.name)
                except Exception:  # noqa: BLE001  (a symbol the engine does not export)
                    continue
                if addr:
                    found[addr] = short_name(fn.name)
    addrs = sorted(found)
    ends = addrs[1:] + [addrs[-1] + (1 << 16)] if addrs else []
    return [(a, min(e - a, 1 << 20), found[a]) for a, e in zip(addrs, ends, strict=True)]


def write_perf_map(symbols: list[tuple[int, int, str]], pid: int) -> Path:
    path = Path(f"/tmp/perf-{pid}.map")
    path.write_text("".join(f"{a:x} {s:x} {name}\n" for a, s, name in symbols))
    return path


def report(data: Path, top: int) -> list[tuple[float, str]]:
    """(share of samples in %, symbol) of ``perf report``, the largest first."""
    out = subprocess.run(["perf", "report", "-i", str(data), "--no-children", "--sort", "symbol", "--stdio"],
                         capture_output=True, text=True, check=True).stdout
    rows = []
    for line in out.splitlines():
        m = re.match(r"\s*([\d.]+)%\s+\[[^\]]+\]\s+(\S+)", line)
        if m:
            rows.append((float(m.group(1)), m.group(2)))
    return rows[:top]


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--rules", default="official")
    ap.add_argument("--deck", default="classic")
    ap.add_argument("--players", type=int, default=4)
    ap.add_argument("--policies", default="random")
    ap.add_argument("--games", type=int, default=400_000, help="rounds played under the profiler")
    ap.add_argument("--top", type=int, default=20, help="functions listed")
    args = ap.parse_args()
    if args.games < 1 or args.top < 1:
        ap.error(f"--games and --top must be at least 1 (got {args.games} and {args.top})")
    if shutil.which("perf") is None:
        print("profile_core: needs Linux perf on PATH (Debian: apt install linux-perf)", file=sys.stderr)
        return 2
    cache = tempfile.mkdtemp(prefix="unosim-profile-")
    os.environ["NUMBA_CACHE_DIR"] = cache  # compile here, so that this process holds every function's name
    try:
        from unosim import simulate
        from unosim.errors import UnosimError

        kw = dict(rules=args.rules, deck=args.deck, players=args.players, policies=args.policies, threads=1)
        print("compiling the engine in this process (about a minute) ...", file=sys.stderr, flush=True)
        try:
            simulate(games=1000, seed=1, **kw)
        except UnosimError as e:
            print(f"profile_core: {e}", file=sys.stderr)
            return 2
        symbols = kernel_symbols()
        mapped = write_perf_map(symbols, os.getpid())
        data = Path(cache) / "perf.data"
        rec = subprocess.Popen(["perf", "record", "-q", "-F", "2000", "-p", str(os.getpid()), "-o", str(data)],
                               stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        time.sleep(1.0)  # perf attaches
        t = time.process_time()
        simulate(games=args.games, seed=5, **kw)
        cpu = time.process_time() - t
        rec.send_signal(signal.SIGINT)
        rec.wait()
        rows = report(data, args.top)
        mapped.unlink(missing_ok=True)
    finally:
        shutil.rmtree(cache, ignore_errors=True)
    print(f"{args.rules}, {args.deck}, {args.players} players, {args.policies}: {args.games:,} rounds in {cpu:.2f} CPU s "
          f"({args.games / cpu:,.0f} rounds/s under the profiler); {len(symbols)} compiled functions named")
    for share, name in rows:
        print(f"{share:6.2f}%  {name}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
