"""Execution backends (unosim.results.backends): dask-local gives the records of a local run, survives a killed
worker, resumes an interrupted fill, and refuses a bad scheduler fast.

One LocalCluster of 2 worker processes is shared by the module (started once, closed in the
fixture's finalizer); every cluster operation has a timeout.
"""

from __future__ import annotations

import json
import os
import signal
import socket
import time
from pathlib import Path

import pandas as pd
import pytest
from click.testing import CliRunner

from unosim.cli import main
from unosim.errors import BackendError
from unosim.lab.experiments import compare, run_sweep
from unosim.results.backends import CONNECT_TIMEOUT_S, DaskBackend, backend_session, open_backend, run_cells
from unosim.results.backends import simulate as simulate_on
from unosim.results.rundir import simulate_into
from unosim.results.store import Cell, fill_cell, make_cell, read_cell, stored_ranges
from unosim.running.sim import default_chunk, simulate

pytestmark = pytest.mark.xdist_group("dask")  # one cluster per test process: keep the file together

SWEEP = {"name": "tiny", "games": 1200, "seed": 9, "chunk": 200,
         "grid": {"players": [2, 3], "rules": ["official", "official+stacking"]}}


@pytest.fixture(scope="module")
def cluster():
    be = open_backend("dask-local", workers=2)
    yield be
    be.close()


def _closed_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _worker_pids(client) -> dict[str, int]:
    return client.run(os.getpid)


class AfterFirstChunk(DaskBackend):
    """The shared cluster, calling ``action(chunks left)`` once, right after the first chunk is written."""

    def __init__(self, inner: DaskBackend, action) -> None:
        super().__init__(inner.client, "dask")
        self.action, self.calls = action, 0

    def run_tasks(self, tasks, on_done, *a, **k):
        def hook(task, res):
            on_done(task, res)
            self.calls += 1
            if self.calls == 1:
                self.action(len(tasks) - 1)

        return super().run_tasks(tasks, hook, *a, **k)


def test_simulate_on_dask_local_matches_local_record_for_record(cluster):
    kw = dict(players=3, seed=41, policies="greedy,random,random", seating="rotate")
    local = simulate(**kw, games=3000, threads=2)
    remote = simulate_on(**kw, games=3000, batch_size=250, client=cluster.client)
    pd.testing.assert_frame_equal(remote.records, local.records)
    s = remote.summary
    assert s["backend"] == "dask" and s["workers"] == 2 and s["games_per_second"] > 0
    assert s["seat_win_rate"] == local.summary["seat_win_rate"]


def test_run_cells_submits_several_cells_together(cluster):
    """Several cells' chunks submitted together, each cell's records as a local run's."""
    cells = [make_cell(players=3, policies=p, seating="rotate", seed=8) for p in ("greedy,random,random", "random")]
    out = run_cells(cluster, cells, 1500, chunk=300)
    for cell, res in zip(cells, out, strict=True):
        pd.testing.assert_frame_equal(res.records, simulate(**cell.sim_kwargs(), games=1500).records)


def test_default_chunk_on_a_cluster_is_up_to_five_local_batches(cluster):
    """A chunk on a cluster is a task whose records travel back: the default chunk of a big run is larger than
    a local batch (up to five), that of a small one the same."""
    assert default_chunk("round", 600_000, 2) == 50_000  # local threads: at most DEFAULT_BATCH
    assert default_chunk("round", 600_000, 1, cluster) == 75_000  # a quarter of each worker's share
    assert default_chunk("round", 20_000_000, 1, cluster) == 5 * 50_000
    assert default_chunk("round", 20_000, 1, cluster) == default_chunk("round", 20_000, 2) == 10_000
    assert default_chunk("match", 1_000_000, 1, cluster) == 5 * 2_500
    res = run_cells(cluster, [make_cell(seed=3)], 600_000)[0]
    assert res.meta["batch_size"] == 75_000 and len(res.records) == 600_000
    assert res.records["game"].is_monotonic_increasing


def test_match_mode_and_run_directory_match_local(cluster, tmp_path):
    kw = dict(policies="random", players=4, seed=5, mode="match", target=200)
    local = simulate(**kw, games=24, threads=1)
    res = simulate_into(tmp_path / "run", games=24, batch_size=5, client=cluster.client, **kw)
    pd.testing.assert_frame_equal(res.records, local.records)
    saved = pd.read_parquet(tmp_path / "run" / "records.parquet")
    pd.testing.assert_frame_equal(saved, local.records)


def test_sweep_and_compare_on_dask_local_match_local(cluster, tmp_path):
    here = run_sweep(SWEEP, store=tmp_path / "a", threads=2)
    there = run_sweep(SWEEP, store=tmp_path / "b", client=cluster.client)
    cols = [c for c in here.columns if c != "seconds"]
    pd.testing.assert_frame_equal(there[cols], here[cols])
    for c in here.attrs["cells"]:
        cell = Cell.from_dict(c["cell"])
        pd.testing.assert_frame_equal(read_cell(cell, None, tmp_path / "b"), read_cell(cell, None, tmp_path / "a"))
    assert there.attrs["backend"] == "dask" and there.attrs["games_per_second"] > 0
    arms = ["official", "official+seven_zero"]
    a = compare(arms, players=3, games=1000, seed=2, store=tmp_path / "c", chunk=150, policies="random")
    b = compare(arms, players=3, games=1000, seed=2, store=tmp_path / "d", chunk=150, client=cluster.client, policies="random")
    pd.testing.assert_frame_equal(a, b)


def test_killed_worker_loses_only_its_chunk(cluster, tmp_path):
    cell = make_cell(players=4, seed=77, policies="greedy")
    before = _worker_pids(cluster.client)
    state = {"unwritten_at_kill": None}

    def kill_a_worker(left: int) -> None:
        os.kill(next(iter(before.values())), signal.SIGKILL)
        state["unwritten_at_kill"] = 60 - len(stored_ranges(tmp_path / cell.key))

    info = fill_cell(cell, 60_000, tmp_path, chunk=1000, backend=AfterFirstChunk(cluster, kill_a_worker))
    assert state["unwritten_at_kill"] >= 20  # the worker died with much of the run still to do
    assert info.ran == 60_000 and not info.interrupted
    assert stored_ranges(tmp_path / cell.key) == [(lo, lo + 1000) for lo in range(0, 60_000, 1000)]
    pd.testing.assert_frame_equal(read_cell(cell, None, tmp_path), simulate(**cell.sim_kwargs(), games=60_000).records)
    cluster.client.wait_for_workers(2, timeout=60)  # the nanny restarts the dead worker (warmed by the plugin)
    after = _worker_pids(cluster.client)
    assert set(after.values()) != set(before.values())


def test_interrupted_fill_keeps_finished_chunks_and_resumes(cluster, tmp_path):
    cell = make_cell(players=4, seed=13, policies="greedy")

    def interrupt(left: int) -> None:
        raise KeyboardInterrupt

    games, chunk = 100_000, 2500
    first = fill_cell(cell, games, tmp_path, chunk=chunk, backend=AfterFirstChunk(cluster, interrupt))
    kept = stored_ranges(tmp_path / cell.key)
    assert first.interrupted and first.ran == chunk * len(kept) and 1 <= len(kept) < games // chunk
    second = fill_cell(cell, games, tmp_path, chunk=chunk, backend=cluster)
    assert not second.interrupted and second.stored_before == first.ran and second.ran == games - first.ran
    pd.testing.assert_frame_equal(read_cell(cell, None, tmp_path), simulate(**cell.sim_kwargs(), games=games).records)


def test_bad_scheduler_address_fails_fast_with_one_line():
    addr = f"tcp://127.0.0.1:{_closed_port()}"
    t0 = time.perf_counter()
    with pytest.raises(BackendError) as ei:
        open_backend("dask", scheduler=addr)
    assert time.perf_counter() - t0 < CONNECT_TIMEOUT_S + 5
    msg = str(ei.value)
    assert "\n" not in msg and addr in msg and "accepted:" in msg


@pytest.mark.parametrize("argv", [
    ["simulate", "--policies", "random", "--games", "100", "--backend", "dask", "--scheduler", "tcp://127.0.0.1:{port}"],
    ["sweep", "FILE", "--backend", "dask", "--scheduler", "tcp://127.0.0.1:{port}"],
    ["simulate", "--policies", "random", "--backend", "dask"],
    ["simulate", "--policies", "random", "--backend", "dask", "--scheduler", "not an address"],
    ["simulate", "--policies", "random", "--workers", "2"],
    ["compare", "--policies", "random", "--arm", "official", "--backend", "dask-local", "--workers", "0"],
    ["simulate", "--policies", "random", "--backend", "daks"],
])
def test_cli_backend_errors_exit_2(cli_error, tmp_path, argv):
    spec = tmp_path / "s.toml"
    spec.write_text("games = 100\n")
    args = [a.format(port=_closed_port()).replace("FILE", str(spec)) for a in argv]
    line = cli_error(args)
    assert any(w in line for w in ("scheduler", "workers", "backend"))


def test_backend_options_are_checked():
    with pytest.raises(BackendError, match="applies to backend='dask' only"):
        open_backend("local", scheduler="tcp://h:1")
    with pytest.raises(BackendError, match="not a dask.distributed.Client"):
        open_backend(client="tcp://h:1")
    with backend_session("local", threads=1) as be:
        assert be.name == "local" and be.parallelism == 1


def test_cli_sweep_dask_local_json_reports_timing(tmp_path):
    spec = tmp_path / "s.toml"
    spec.write_text('games = 600\nseed = 4\nchunk = 200\n[grid]\nplayers = [2, 3]\n')
    r = CliRunner().invoke(main, ["sweep", str(spec), "--store", str(tmp_path / "st"), "--backend", "dask-local",
                                  "--workers", "1", "--json"])
    assert r.exit_code == 0, r.output
    attrs = json.loads(r.output)["attrs"]
    assert attrs["backend"] == "dask-local" and attrs["workers"] == 1
    assert attrs["cluster_start_seconds"] > 0 and attrs["games_per_second"] > 0
    local = run_sweep(str(spec), store=tmp_path / "st2", threads=1)
    assert [row["seat0_win"] for row in json.loads(r.output)["rows"]] == list(local["seat0_win"])


def test_user_policy_file_works_on_dask_local(cluster):
    """A policy file reaches the workers through the cell (path and content hash): each worker loads it,
    and the records equal a local run's."""
    example = Path(__file__).resolve().parents[1] / "scripts" / "policy_example_numba.py"
    kw = dict(players=4, seed=5, policies="low_first,greedy,greedy,greedy", seating="rotate",
              policy_files=[str(example)])
    local = simulate(**kw, games=400, threads=1)
    remote = simulate_on(**kw, games=400, batch_size=100, client=cluster.client)
    pd.testing.assert_frame_equal(remote.records, local.records)
    assert remote.meta["policy_files"][0]["sha256"] == local.meta["policy_files"][0]["sha256"]


def test_tournament_on_dask_local_matches_local(cluster, tmp_path):
    """Every line-up's chunks go to the cluster together; the table (win rates, ratings) is the local one."""
    from unosim.lab.tournament import run_tournament

    kw = dict(players=3, games=300, seed=13, bootstrap=20)
    local = run_tournament("random,greedy", store=tmp_path / "local", **kw)
    remote = run_tournament("random,greedy", client=cluster.client, store=tmp_path / "remote", **kw)
    pd.testing.assert_frame_equal(remote.table, local.table)
    assert remote.meta["lineups"] == local.meta["lineups"] and len(local.lineups) == 4


def test_tuning_on_dask_local_matches_local(cluster, tmp_path):
    """A generation's candidates go to the cluster together; the search and its evaluation are the local ones."""
    from unosim.lab.tune import tune

    kw = dict(players=3, budget=1800, against="greedy", seed=4, popsize=4, games_per_eval=150, eval_games=300)
    local = tune("greedy(bluff=1,challenge=1)", store=tmp_path / "local", **kw)
    remote = tune("greedy(bluff=1,challenge=1)", client=cluster.client, store=tmp_path / "remote", **kw)
    assert remote.tuned == local.tuned and remote.evaluation == local.evaluation
    pd.testing.assert_frame_equal(remote.history, local.history)


@pytest.mark.soak
def test_losing_the_scheduler_mid_run_is_one_line_and_keeps_finished_chunks(tmp_path):
    """A scheduler killed while a `simulate --out` runs on it: exit 2, one line, the chunks written so far
    kept, and `unosim rerun` completes the run with the records of a local one."""
    import subprocess
    import sys

    from unosim.results.io import load_run

    env = {**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[1])}
    port = _closed_port()
    address = f"tcp://127.0.0.1:{port}"
    quiet = dict(env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    sched = subprocess.Popen([sys.executable, "-m", "distributed.cli.dask_scheduler", "--host", "127.0.0.1",
                              "--port", str(port), "--no-dashboard"], **quiet)
    worker = subprocess.Popen([sys.executable, "-m", "distributed.cli.dask_worker", address, "--nworkers", "1",
                               "--nthreads", "1", "--no-dashboard"], **quiet)
    d = tmp_path / "run"
    try:
        cli = subprocess.Popen([sys.executable, "-c", "from unosim.cli import run; run()", "simulate", "--backend",
                                "dask", "--scheduler", address, "--games", "600000", "--players", "2", "--seed", "3",
                                "--batch-size", "20000", "--out", str(d)], env=env, stdout=subprocess.PIPE,
                               stderr=subprocess.PIPE, text=True)
        deadline = time.time() + 120
        while len(list((d / "chunks").glob("records-*.parquet"))) < 2 and time.time() < deadline:
            assert cli.poll() is None, cli.communicate()
            time.sleep(0.1)
        sched.send_signal(signal.SIGKILL)
        _, err = cli.communicate(timeout=60)
    finally:
        for p in (worker, sched):
            p.kill()
            p.wait()
    assert cli.returncode == 2, err
    lines = err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: lost the dask scheduler at "), err
    assert "the chunks that finished are kept" in lines[0]
    kept = len(list((d / "chunks").glob("records-*.parquet")))
    assert 2 <= kept < 30
    res = CliRunner().invoke(main, ["rerun", str(d), "--threads", "2"])
    assert res.exit_code == 0, res.output
    assert f"{kept * 20000:,} games were kept" in res.output
    records, _ = load_run(d)
    pd.testing.assert_frame_equal(records, simulate(players=2, seed=3, games=600_000, threads=2).records)
