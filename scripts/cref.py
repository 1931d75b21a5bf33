"""The C reference of `make bench`: build ``scripts/bench/ref_official.c`` and run it.

The C program plays official UNO with the ``random`` policy, the same rounds as one
``simulate(rules="official", policies="random", threads=1)`` row, and prints one JSON line (rounds/s,
mean turns, seat wins, winner points).  ``scripts/bench.py`` reports unosim's speed as a ratio to it;
``tests/test_cref.py`` checks that its statistics agree with unosim's (the same game).
"""

from __future__ import annotations

import json
import os
import shlex
import shutil
import subprocess
from pathlib import Path
from typing import Any

SOURCE = Path(__file__).resolve().parent / "bench" / "ref_official.c"
CFLAGS = ("-O2", "-march=native")  # the host's CPU, as numba compiles for it


def compiler() -> list[str] | None:
    """The C compiler command: ``$CC`` if set, else ``cc`` on PATH; None when there is none."""
    cc = shlex.split(os.environ.get("CC", "")) or ["cc"]
    return cc if shutil.which(cc[0]) else None


def compiler_version(cc: list[str]) -> str:
    """First line of ``cc --version`` (empty when the compiler does not answer it)."""
    out = subprocess.run([*cc, "--version"], capture_output=True, text=True)
    lines = out.stdout.strip().splitlines()
    return lines[0] if out.returncode == 0 and lines else ""


def build(out_dir: Path, cc: list[str], source: Path = SOURCE) -> Path:
    """Compile the reference (or another ``source``) into ``out_dir``; returns the executable.  A failed
    compile raises RuntimeError with the compiler's first line of complaint."""
    out_dir.mkdir(parents=True, exist_ok=True)
    exe = out_dir / "ref_official"
    cmd = [*cc, *CFLAGS, "-o", str(exe), str(source), "-lm"]
    out = subprocess.run(cmd, capture_output=True, text=True)
    if out.returncode != 0:
        msg = (out.stderr or out.stdout).strip().splitlines()
        raise RuntimeError(f"{shlex.join(cmd)} failed: {msg[0] if msg else out.returncode}")
    return exe


def run(exe: Path, players: int, rounds: int, seed: int = 0) -> dict[str, Any]:
    """Play ``rounds`` rounds for ``players`` players; the program's JSON line as a dict."""
    out = subprocess.run([str(exe), str(players), str(rounds), str(seed)], capture_output=True, text=True,
                         check=True)
    return json.loads(out.stdout)
