"""The compiled core keeps one compiled signature per entry kernel and policy slot.

A literal-typed argument (``0`` instead of ``np.int64(0)``) makes numba compile a kernel a second
time, which doubles the cold compile without anyone noticing.  This runs the common paths in a fresh
process and checks that each entry kernel was compiled exactly once.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

_RUNS = r"""
import json, sys
import numba
import unosim
from unosim.core import nb, round_nb, turns_nb
runs = [
    dict(rules="official", players=4, policies="random"),
    dict(rules="official", players=3, policies="greedy,random,greedy"),
    dict(rules="party", players=4, policies="hold_wilds,color_majority,attack,defensive"),
    dict(rules="stacking+seven_zero", players=6, policies="greedy"),
    dict(rules="official", players=4, policies="random", deck="flip"),
    dict(rules="official", players=4, policies="greedy", mode="match", scoring="standard"),
    dict(rules="official", players=3, policies="random", mode="match", scoring="lazy"),
]
for r in runs:
    unosim.simulate(games=30 if r.get("mode") == "match" else 300, seed=1, threads=2, **r)
from unosim.running import scenario  # noqa: E402  (the scenario path: play_one_nb)
out = {}
for mod, name in ((nb, "play_batch_nb"), (nb, "play_match_batch_nb"), (round_nb, "play_round_nb"),
                  (turns_nb, "_fast_turns_nb"), (nb, "play_one_nb")):
    disp = getattr(mod, name)
    out[name] = [[str(t) for t in sig] for sig in disp.signatures]
json.dump(out, sys.stdout)
"""


def test_each_entry_kernel_has_one_compiled_signature():
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    proc = subprocess.run([sys.executable, "-c", _RUNS], capture_output=True, text=True, env=env, cwd=ROOT,
                          timeout=900)
    assert proc.returncode == 0, proc.stderr[-3000:]
    sigs = json.loads(proc.stdout)
    assert sigs["play_batch_nb"] and sigs["play_match_batch_nb"], sigs
    for name, found in sigs.items():  # the policy slot is a first-class function type: one signature for all
        assert len(found) <= 1, f"{name} compiled {len(found)} times: {found}"


def _compiled_functions() -> list[tuple[str, int, int]]:
    """scripts/kernel_shape.py's (name, lines of code, parameters) of every compiled function."""
    sys.path.insert(0, str(ROOT / "scripts"))
    try:
        import kernel_shape
    finally:
        sys.path.pop(0)
    return kernel_shape.compiled_functions()


def test_kernel_shape_script_reports_the_longest_compiled_function():
    fns = {name: (loc, params) for name, loc, params in _compiled_functions()}
    assert "unosim/core/round_nb.py:play_round_nb" in fns
    loc, params = fns["unosim/core/rng_nb.py:randint_nb"]
    assert 1 <= loc <= 10 and params == 2, fns["unosim/core/rng_nb.py:randint_nb"]


def test_no_compiled_function_grows_past_the_limits():
    """Issue 23's limits, which keep the core readable: no compiled function over 150 lines of code
    (docstring excluded) and none over about 12 parameters (the widest, _penalty and _jump_ahead with 14, are
    leaves that take their arrays one by one: LLVM inlines the one, the other is a lean call; the entry
    kernels, whose outputs are arrays, are not counted)."""
    fns = _compiled_functions()
    assert len(fns) > 100
    too_long = [(name, loc) for name, loc, _ in fns if loc > 150]
    too_wide = [(name, params) for name, _, params in fns if params > 14]
    assert not too_long and not too_wide, (too_long, too_wide)
