"""tournament and tune resume from the results store after a kill (docs/safety.md): the rerun gives the
uninterrupted result and computes only the games that were not stored.

Kills are injected in-process (a chunk write that never happens, as under SIGKILL) in the default suite,
and as ``KILLS_SLOW`` SIGKILLs of the command line at random moments in the soak suite (``make soak``)."""

from __future__ import annotations

import json
import os
import random
import signal
import subprocess
import sys
import time
from pathlib import Path

import pandas as pd
import pytest
from click.testing import CliRunner

import unosim.results.store as store
from unosim.cli import main
from unosim.lab.tournament import run_tournament
from unosim.lab.tune import tune

KILLS_SLOW = 20
TOURNAMENT = dict(players=2, games=400, seed=3, bootstrap=20, threads=1)
TUNE = dict(players=2, budget=400, popsize=4, games_per_eval=50, eval_games=100, seed=1, threads=1)


class Killed(BaseException):
    """The injected kill (a BaseException: no `except Exception` swallows it)."""


@pytest.fixture
def chunks(monkeypatch):
    """Count the games each store chunk computes (``ran``) and writes (``written``); ``kill_after(k)``
    makes the write after the k-th one die, as a SIGKILL would, losing the chunk in flight."""

    class Chunks:
        ran: list[int] = []
        written: list[int] = []
        limit: int | None = None

        def kill_after(self, k: int | None) -> None:
            self.limit, self.ran, self.written = k, [], []

    c = Chunks()
    run_chunk, write_chunk = store.run_chunk, store.write_chunk

    def counted_run(cell, lo, hi, **extra):
        c.ran.append(hi - lo)
        return run_chunk(cell, lo, hi, **extra)

    def killable_write(d, lo, hi, frames):
        if c.limit is not None and len(c.written) >= c.limit:
            raise Killed
        write_chunk(d, lo, hi, frames)
        c.written.append(hi - lo)

    monkeypatch.setattr(store, "run_chunk", counted_run)
    monkeypatch.setattr(store, "write_chunk", killable_write)
    return c


def _killed_then_resumed(chunks, run, kill_after: int):
    """(uninterrupted result, resumed result, games of the uninterrupted run, games stored before the
    kill, games the rerun computed)."""
    chunks.kill_after(None)
    whole = run("whole")
    total = sum(chunks.ran)
    chunks.kill_after(kill_after)
    with pytest.raises(Killed):
        run("killed")
    stored = sum(chunks.written)
    chunks.kill_after(None)
    resumed = run("killed")
    return whole, resumed, total, stored, sum(chunks.ran)


def test_a_killed_tournament_resumes_from_the_store(tmp_path, chunks):
    def run(name):
        return run_tournament("random,greedy,greedy(challenge=0.5)", store=tmp_path / name, **TOURNAMENT)

    whole, resumed, total, stored, rerun = _killed_then_resumed(chunks, run, kill_after=2)
    assert total == 6 * 400 and 0 < stored < total  # 6 line-ups of 2 seats from 3 policies
    assert rerun == total - stored  # no finished chunk computed again
    pd.testing.assert_frame_equal(resumed.table, whole.table)
    assert resumed.meta == whole.meta
    chunks.kill_after(None)
    again = run("killed")  # a finished tournament computes nothing
    assert sum(chunks.ran) == 0
    pd.testing.assert_frame_equal(again.table, whole.table)


def test_a_killed_tune_resumes_from_the_store(tmp_path, chunks):
    def run(name):
        return tune("random(bluff=1)", store=tmp_path / name, **TUNE)

    whole, resumed, total, stored, rerun = _killed_then_resumed(chunks, run, kill_after=5)
    assert total == 2 * 4 * 50 + 2 * 100 and 0 < stored < total  # 2 generations of 4 candidates, evaluation
    assert rerun == total - stored
    assert resumed.tuned == whole.tuned and resumed.evaluation == whole.evaluation
    pd.testing.assert_frame_equal(resumed.history, whole.history)


def test_ctrl_c_of_a_tournament_says_the_chunks_are_stored(tmp_path, monkeypatch):
    def interrupted(cells, games, *a, **kw):
        return [store.FillInfo(c.key, interrupted=True) for c in cells]

    monkeypatch.setattr(store, "fill_cells", interrupted)
    res = CliRunner().invoke(main, ["tournament", "--policies", "random,greedy", "--players", "2", "--games", "20",
                                    "--store", str(tmp_path / "store"), "--out", str(tmp_path / "out")])
    assert res.exit_code == 130
    assert "interrupted: finished chunks are stored; run the same command again to continue" in res.output


# ---- SIGKILL of the command line at random moments (soak) ---------------------------------------------------

COMMANDS = {
    "tournament": ["tournament", "--policies", "random,greedy,greedy(challenge=0.5)", "--players", "3",
                   "--games", "600", "--seed", "4", "--bootstrap", "10", "--threads", "1", "--json"],
    "tune": ["tune", "--policy", "greedy(bluff=1,challenge=1)", "--players", "2", "--budget", "2400",
             "--popsize", "4", "--games-per-eval", "100", "--eval-games", "400", "--seed", "2", "--threads", "1",
             "--json"],
}


def _unosim(args: list[str]) -> subprocess.Popen:
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[1])}
    return subprocess.Popen([sys.executable, "-c", "from unosim.cli import run; run()", *args], env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)


@pytest.mark.soak
@pytest.mark.parametrize("name", sorted(COMMANDS))
def test_many_random_kills_then_a_rerun_give_the_uninterrupted_result(name, tmp_path):
    args = COMMANDS[name]
    t0 = time.perf_counter()
    p = _unosim([*args, "--store", str(tmp_path / "whole")])
    whole, _ = p.communicate()
    duration = time.perf_counter() - t0
    assert p.returncode == 0
    rng = random.Random(29)
    killed = tmp_path / "killed"
    for _ in range(KILLS_SLOW):
        p = _unosim([*args, "--store", str(killed)])
        time.sleep(rng.uniform(0.2, 0.9) * duration)
        p.send_signal(signal.SIGKILL)
        p.communicate()
    p = _unosim([*args, "--store", str(killed)])
    resumed, _ = p.communicate()
    assert p.returncode == 0 and json.loads(resumed) == json.loads(whole)
    for d in killed.iterdir():  # every game stored once: no chunk overlaps another
        ranges = store.stored_ranges(d)
        assert all(a[1] <= b[0] for a, b in zip(ranges, ranges[1:], strict=False)), d
