"""Crash safety: output folders are never mixed, damaged files are never read as numbers, a rerun of a
run whose chunks were all written finishes (docs/safety.md).

A folder's *state* (:func:`state`) is None when every reader refuses it, else the files it holds with
the seeds their metadata name; after any kill the state is the old command's, the new command's, or
None.  Kills are injected two ways: in-process at every file operation of the new command
(:func:`crash_at`), and as SIGKILL of the command line at random moments (a few in the default suite,
``KILLS_SLOW`` per command in the soak suite, ``make soak``).
"""

from __future__ import annotations

import builtins
import hashlib
import io
import json
import os
import random
import shutil
import signal
import subprocess
import sys
import time
from contextlib import contextmanager
from pathlib import Path

import pytest
from click.testing import CliRunner

from unosim.cli import main
from unosim.errors import RunFileError
from unosim.results.io import (
    UNFINISHED,
    DamagedFileError,
    check_finished,
    find_runs,
    load_run,
    read_frame,
    write_frame,
)
from unosim.results.outdir import MANIFEST

PROBE = ".unosim-write-test"  # the command line's check that --out is writable (swept by the next command)
KILLS_DEFAULT = 1
KILLS_SLOW = 20
SWEEP = """name = "tiny"
games = 300
seed = {seed}
metric = "turns"

[grid]
players = [2]
rules = {rules}
policies = "random"
"""


class Killed(BaseException):
    """The injected crash (a BaseException, so no `except Exception` swallows it, as with SIGKILL)."""


@contextmanager
def crash_at(k: int | None, counter: list[int]):
    """Count file operations (open for writing, replace, unlink, rmdir, mkdir); raise :class:`Killed`
    at operation ``k`` (None: never).  ``counter[0]`` holds the count."""
    real = {"open": builtins.open, "replace": os.replace, "unlink": os.unlink, "rmdir": os.rmdir,
            "mkdir": os.mkdir, "rename": os.rename}

    def tick():
        counter[0] += 1
        if counter[0] == k:
            raise Killed

    def opener(file, mode="r", *a, **kw):
        if any(c in mode for c in "wax+"):
            tick()
        return real["open"](file, mode, *a, **kw)

    def wrap(name):
        def f(*a, **kw):
            tick()
            return real[name](*a, **kw)
        return f

    patched = [(builtins, "open", opener), (io, "open", opener)] + \
              [(os, n, wrap(n)) for n in ("replace", "unlink", "rmdir", "mkdir", "rename")]
    for mod, name, f in patched:
        setattr(mod, name, f)
    try:
        yield
    finally:
        builtins.open, io.open = real["open"], real["open"]
        for n in ("replace", "unlink", "rmdir", "mkdir", "rename"):
            setattr(os, n, real[n])


def _seeds(obj) -> set[int]:
    """Every value of a key named ``seed`` in a JSON object."""
    if isinstance(obj, dict):
        return {v for k, v in obj.items() if k == "seed" and isinstance(v, int)} | \
            set().union(*(_seeds(v) for v in obj.values()))
    if isinstance(obj, list):
        return set().union(*(_seeds(v) for v in obj)) if obj else set()
    return set()


def state(d: Path):
    """None when the readers refuse ``d`` (and then every run below it too); else (files, seeds, pages)."""
    try:
        check_finished(d)
    except RunFileError:
        with pytest.raises(RunFileError):
            find_runs(d)
        for m in d.rglob("meta.json"):
            with pytest.raises(RunFileError):
                load_run(m.parent)
        return None
    files = sorted(str(p.relative_to(d)) for p in d.rglob("*")
                   if p.is_file() and p.name not in (".lock", MANIFEST, PROBE) and not p.name.endswith(".tmp"))
    seeds = set()
    for p in d.rglob("*.json"):
        if p.name != MANIFEST:
            seeds |= _seeds(json.loads(p.read_text()))
    for m in d.rglob("meta.json"):
        load_run(m.parent)  # every run reads back consistently
    pages = hashlib.sha256(b"".join((d / n).read_bytes() for n in ("summary.md", "tournament.md")
                                    if (d / n).is_file())).hexdigest()
    return files, seeds, pages


def cli(*args: str) -> None:
    res = CliRunner().invoke(main, list(args))
    if isinstance(res.exception, Killed):
        raise res.exception
    assert res.exit_code == 0, res.output


# ---- the commands: (args of the old command, args of the new one); {d} is the output folder ------------


def _commands(tmp: Path) -> dict[str, tuple[list[str], list[str]]]:
    store = str(tmp / "store")
    for seed, rules in ((1, '["official", "official+stacking"]'), (2, '["official", "official+seven_zero"]')):
        (tmp / f"sweep{seed}.toml").write_text(SWEEP.format(seed=seed, rules=rules))
    common = ["--threads", "1"]
    return {
        "compare": (["compare", "--arm", "official", "--arm", "official+stacking", "--games", "300", "--seed", "1",
                     "--store", store, *common, "--out", "{d}"],
                    ["compare", "--arm", "official", "--arm", "official+jump_in", "--arm", "official+seven_zero",
                     "--games", "300", "--seed", "2", "--store", store, *common, "--out", "{d}"]),
        "sweep": (["sweep", str(tmp / "sweep1.toml"), "--store", store, *common, "--out", "{d}"],
                  ["sweep", str(tmp / "sweep2.toml"), "--store", store, *common, "--out", "{d}"]),
        "tournament": (["tournament", "--policies", "random,greedy", "--players", "2", "--games", "200",
                        "--seed", "1", "--bootstrap", "5", "--store", store, *common, "--out", "{d}"],
                       ["tournament", "--policies", "random,greedy,greedy(challenge=0.5)", "--players", "2",
                        "--games", "200", "--seed", "2", "--bootstrap", "5", "--store", store, *common, "--out", "{d}"]),
        "tune": (["tune", "--policy", "random(bluff=1)", "--players", "2", "--budget", "400", "--popsize", "4",
                  "--games-per-eval", "50", "--eval-games", "100", "--seed", "1", "--store", store, *common, "--out", "{d}"],
                 ["tune", "--policy", "random(bluff=1)", "--players", "2", "--budget", "400", "--popsize", "4",
                  "--games-per-eval", "50", "--eval-games", "100", "--seed", "2", "--store", store, *common, "--out", "{d}"]),
        "report": (["report", str(tmp / "runs" / "a"), "--out", "{d}"],
                   ["report", str(tmp / "runs" / "b"), str(tmp / "runs" / "a"), "--out", "{d}"]),
        "study": (["demo", "--games", "200", "--seed", "1", "--out", "{d}"],
                  ["demo", "--games", "200", "--seed", "2", "--out", "{d}"]),
    }


@pytest.fixture(scope="module")
def commands(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("commands")
    cmds = _commands(tmp)
    for name, seed in (("a", "1"), ("b", "2")):
        cli("simulate", "--games", "300", "--players", "2", "--seed", seed, "--threads", "1",
            "--out", str(tmp / "runs" / name))
    return tmp, cmds


def _fill(args: list[str], d: Path) -> list[str]:
    return [a.replace("{d}", str(d)) for a in args]


def _old_and_new(tmp: Path, old: list[str], new: list[str], name: str):
    """The folder after the old command (kept as a template) and the state of the new one alone."""
    template, fresh = tmp / f"{name}-old", tmp / f"{name}-new"
    if not template.exists():
        cli(*_fill(old, template))
        cli(*_fill(new, fresh))
    return template, state(template), state(fresh)


def _crash_points(total: int) -> list[int]:
    """Every file operation under ``UNOSIM_ALL_CRASH_POINTS=1``, else about 8 spread over the command
    (the last 4 operations always: the folder is committed there)."""
    if os.environ.get("UNOSIM_ALL_CRASH_POINTS") == "1":
        return list(range(1, total + 1))
    return sorted({*range(1, total + 1, max(1, total // 4)), *range(max(1, total - 3), total + 1)})


@pytest.mark.parametrize("name", ["compare", "sweep", "tournament", "tune", "report",
                                  pytest.param("study", marks=pytest.mark.soak)])
def test_a_crash_at_every_file_operation_never_mixes_the_folder(name, commands):
    tmp, cmds = commands
    old, new = cmds[name]
    template, old_state, new_state = _old_and_new(tmp, old, new, name)
    assert old_state is not None and new_state is not None and old_state != new_state
    d = tmp / f"{name}-crash"
    count = [0]
    shutil.rmtree(d, ignore_errors=True)
    shutil.copytree(template, d)
    with crash_at(None, count):
        cli(*_fill(new, d))  # how many file operations the new command makes into an old folder
    assert state(d) == new_state
    total = count[0]
    seen = set()
    for k in _crash_points(total):
        shutil.rmtree(d)
        shutil.copytree(template, d)
        with pytest.raises(Killed), crash_at(k, [0]):
            cli(*_fill(new, d))
        s = state(d)
        assert s in (old_state, new_state, None), f"crash at file operation {k} of {total} left a mixed folder"
        seen.add("old" if s == old_state else "new" if s == new_state else "refused")
    assert "refused" in seen  # the crashes did land while the folder was being rewritten
    cli(*_fill(new, d))  # the same command again completes it
    assert state(d) == new_state and not (d / UNFINISHED).exists()


def test_a_finished_command_removes_the_outputs_of_another_one(commands):
    tmp, cmds = commands
    d = tmp / "mixed-commands"
    cli(*_fill(cmds["compare"][0], d))
    assert (d / "arms").is_dir()
    cli(*_fill(cmds["tournament"][0], d))
    assert not (d / "arms").exists() and not (d / "compare.json").exists() and (d / "lineups").is_dir()
    cli("simulate", "--games", "100", "--players", "2", "--threads", "1", "--out", str(d))
    assert not (d / "lineups").exists() and not (d / "tournament.json").exists()
    assert find_runs(d) == [d]


def test_report_into_its_own_run_folder_keeps_the_run(commands):
    tmp, _ = commands
    run = tmp / "runs" / "own"
    shutil.copytree(tmp / "runs" / "a", run)
    cli("report", str(run), "--out", str(run))
    cli("report", str(run), "--out", str(run))
    records, meta = load_run(run)
    assert len(records) == 300 and (run / "summary.md").is_file() and not (run / UNFINISHED).exists()


# ---- SIGKILL of the command line at random moments -------------------------------------------------------


def _unosim(args: list[str]) -> subprocess.Popen:
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[1])}
    return subprocess.Popen([sys.executable, "-c", "from unosim.cli import run; run()", *args], env=env,
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)


def _kill_at_random_moments(name: str, kills: int, commands) -> None:
    tmp, cmds = commands
    old, new = cmds[name]
    template, old_state, new_state = _old_and_new(tmp, old, new, name)
    d = tmp / f"{name}-kill"
    t0 = time.perf_counter()
    shutil.rmtree(d, ignore_errors=True)
    shutil.copytree(template, d)
    assert _unosim(_fill(new, d)).wait() == 0
    duration = time.perf_counter() - t0
    assert state(d) == new_state
    rng = random.Random(29)
    for i in range(kills):
        shutil.rmtree(d)
        shutil.copytree(template, d)
        p = _unosim(_fill(new, d))
        time.sleep(rng.uniform(0.3, 1.05) * duration)
        p.send_signal(signal.SIGKILL)
        p.wait()
        s = state(d)
        assert s in (old_state, new_state, None), f"kill {i} of {name} left a mixed folder"


@pytest.mark.parametrize("name", ["compare", "sweep", "tournament", "tune", "report"])
def test_sigkill_at_a_random_moment_never_mixes_the_folder(name, commands):
    _kill_at_random_moments(name, KILLS_DEFAULT, commands)


@pytest.mark.soak
@pytest.mark.parametrize("name", ["compare", "sweep", "tournament", "tune", "report", "study"])
def test_sigkill_at_many_random_moments_never_mixes_the_folder(name, commands):
    _kill_at_random_moments(name, KILLS_SLOW, commands)


# ---- damaged files -----------------------------------------------------------------------------------------


def _damage(path: Path) -> None:
    """Flip one bit of ``path`` where it changes what the file reads as (the first such byte from 4 on)."""
    data = path.read_bytes()
    for pos in range(4, len(data) - 8):
        bad = bytearray(data)
        bad[pos] ^= 0x08
        path.write_bytes(bytes(bad))
        try:
            read_frame(path)
        except DamagedFileError:
            return
    raise AssertionError(f"no single bit flip damages {path}")


def test_no_single_bit_flip_in_a_parquet_file_is_read_as_different_numbers(tmp_path):
    from unosim import simulate

    records = simulate(players=4, games=500, seed=3, threads=1).records
    good = tmp_path / "good.parquet"
    write_frame(records, good)
    data = good.read_bytes()
    rng = random.Random(2)
    outcomes = {"refused": 0, "same": 0}
    for i in range(60):
        bad = tmp_path / f"bad{i}.parquet"
        flipped = bytearray(data)
        pos = rng.randrange(len(flipped))
        flipped[pos] ^= 1 << rng.randrange(8)
        bad.write_bytes(bytes(flipped))
        try:
            back = read_frame(bad)
        except DamagedFileError as e:
            assert str(bad) in str(e) and "\n" not in str(e)
            outcomes["refused"] += 1
            continue
        assert back.equals(records), f"bit flip at byte {pos} was read as different numbers"
        outcomes["same"] += 1
    assert outcomes["refused"] >= 40, outcomes


def test_a_damaged_run_is_one_line_naming_the_file(tmp_path, cli_error):
    d = tmp_path / "run"
    cli("simulate", "--games", "300", "--players", "2", "--threads", "1", "--out", str(d))
    rec = d / "records.parquet"
    _damage(rec)
    line = cli_error(["report", str(d), "--out", str(tmp_path / "rep")])
    assert str(rec) in line and "damaged" in line
    assert str(rec) in cli_error(["rerun", str(d)])


def test_the_store_recomputes_a_damaged_chunk(tmp_path):
    from unosim.results.store import chunk_path, load_cell, make_cell, read_cell, stored_ranges

    cell = make_cell(players=2, seed=5)
    root = tmp_path / "store"
    first = load_cell(cell, 600, root, threads=1, chunk=200)
    d = root / cell.key
    victim = chunk_path(d, 200, 400)
    _damage(victim)
    with pytest.warns(UserWarning, match="damaged"):
        again = read_cell(cell, 600, root)
    assert again.equals(first.drop(columns=[], errors="ignore")) and stored_ranges(d) == [(0, 200), (200, 400), (400, 600)]
    assert (d / (victim.name + ".damaged")).is_file()


# ---- rerun of a run whose chunks were all written -----------------------------------------------------------


def test_rerun_of_a_run_killed_while_writing_its_final_file_completes_it(tmp_path, monkeypatch):
    import unosim.results.rundir as rundir
    from unosim.results.rundir import simulate_into

    d = tmp_path / "run"
    real = rundir.write_frame

    def killed_at_final_file(frame, path):
        if Path(path).name == "records.parquet":
            raise Killed
        real(frame, path)

    monkeypatch.setattr(rundir, "write_frame", killed_at_final_file)
    with pytest.raises(Killed):
        simulate_into(d, games=400, players=2, seed=8, threads=1, batch_size=100)
    monkeypatch.undo()
    res = CliRunner().invoke(main, ["rerun", str(d), "--threads", "1"])
    assert res.exit_code == 0, res.output
    assert "no rounds run now" in res.output and "400 games were kept, 400 now" in res.output
    records, meta = load_run(d)
    assert len(records) == 400 and meta["status"] == "complete"


# ---- user numba policies cannot take the interpreter down ------------------------------------------------

BAD_POLICIES = """
from unosim.players.policy_api import OBS_OPT, policy


@policy()
def writes_options(kind, obs, params, rng):
    obs[OBS_OPT + 1] = 10**6
    return 0


@policy()
def reads_far(kind, obs, params, rng):
    return obs[10**9]
"""


@pytest.fixture(scope="module")
def bad_policy_file(tmp_path_factory):
    f = tmp_path_factory.mktemp("policies") / "bad_policies.py"
    f.write_text(BAD_POLICIES)
    return f


@pytest.mark.parametrize("name, needle", [("writes_options", "wrote into the option table"),
                                          ("reads_far", "IndexError")])
def test_a_policy_out_of_range_stops_with_one_line_naming_it(name, needle, bad_policy_file, cli_error):
    f = bad_policy_file
    line = cli_error(["simulate", "--policy-file", str(f), "--policies", f"random,{name}", "--players", "2",
                      "--games", "50", "--threads", "1"])
    assert f"policy {name!r}" in line and "'play'" in line and needle in line


SLOW_POLICY = """
import time

from unosim.players.external import PythonPolicy


class SlowPy(PythonPolicy):
    name = "slow_py"

    def play(self, d):
        if d.nlegal > 1:  # thinks for a while when there is a choice
            time.sleep(0.02)
        return super().play(d)
"""


@pytest.fixture(scope="module")
def slow_policy_file(tmp_path_factory):
    f = tmp_path_factory.mktemp("policies") / "slow.py"
    f.write_text(SLOW_POLICY)
    return f


@pytest.mark.parametrize("command", [["simulate"], ["tournament", "--bootstrap", "0", "--store", "{store}"]])
def test_a_slow_python_policy_stops_at_the_decision_time_limit(command, slow_policy_file, tmp_path, cli_error):
    from unosim.players import external

    f = slow_policy_file
    run = [*(a.replace("{store}", str(tmp_path / "store")) for a in command), "--policy-file", str(f),
           "--policies", "slow_py,random", "--players", "2", "--threads", "1"]
    line = cli_error([*run, "--games", "20", "--decision-timeout", "0.01"])
    assert "policy 'slow_py' took" in line and "to decide 'play'" in line and "limit of 0.01 s" in line
    res = CliRunner().invoke(main, [*run, "--games", "2"])  # no limit: the same policy plays
    assert res.exit_code == 0, res.output
    assert external._TIMEOUT[0] is None
    assert "decision timeout 0.0 is not a positive number" in cli_error([*run, "--decision-timeout", "0"])


# ---- a full disk --------------------------------------------------------------------------------------------


def test_a_full_disk_is_one_line_naming_the_path_and_leaves_no_temp_file(tmp_path, monkeypatch, cli_error):
    import errno

    import pyarrow.parquet as pq

    real = pq.write_table
    calls = [0]

    def full_disk(table, where, **kw):
        calls[0] += 1
        if calls[0] == 3:  # the third file: some chunks are finished by then
            Path(where).write_bytes(b"PAR1 partial")
            raise OSError(errno.ENOSPC, "No space left on device")
        real(table, where, **kw)

    monkeypatch.setattr(pq, "write_table", full_disk)
    d = tmp_path / "run"
    line = cli_error(["simulate", "--games", "400", "--players", "2", "--threads", "1", "--batch-size", "100",
                      "--out", str(d)])
    assert "No space left on device" in line and str(d) in line
    assert not list(d.rglob("*.tmp"))
    monkeypatch.undo()
    res = CliRunner().invoke(main, ["rerun", str(d), "--threads", "1"])
    assert res.exit_code == 0, res.output
    assert len(load_run(d)[0]) == 400


# ---- a second Ctrl-C ------------------------------------------------------------------------------------------

NEVER_ENDS = """
import time
from unosim.running.sim import run_batches

def work(lo, hi):
    if lo == 0:  # said from the pool: on a busy machine the Ctrl-C could otherwise land before run_batches waits
        print("ready", flush=True)
    while lo == 0:  # the first batch never returns (a policy stuck in a loop)
        time.sleep(0.01)

run_batches(30, 10, 2, work, False, "rounds")
"""


WRITES_BEHIND = """
import pathlib, sys, time
from unosim.results.store import WriteBehind
from unosim.running.sim import run_batches

out = pathlib.Path(sys.argv[1])

class Task:
    size = 10

    def __init__(self, lo):
        self.lo = lo

def slow_write(task, result):
    time.sleep(1.5)  # still writing when the second Ctrl-C comes
    (out / f"chunk{task.lo}").write_text("written")

with WriteBehind(slow_write) as behind:
    def work(lo, hi):
        while lo == 0:  # the first batch never returns
            time.sleep(0.01)
        behind(Task(lo), None)

    print("ready", flush=True)
    run_batches(30, 10, 2, work, False, "rounds")
"""


def _ctrl_c_child(script: str, *args: str) -> subprocess.Popen:
    """Python running ``script``, with the default Ctrl-C handling even where this process was started with SIGINT
    ignored (a background job: an ignored SIGINT is inherited, and Python then installs no KeyboardInterrupt
    handler, so the child would never see the Ctrl-C these tests send)."""
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[1])}
    return subprocess.Popen([sys.executable, "-c", script, *args], env=env, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True,
                            preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))


def test_a_second_ctrl_c_still_writes_the_finished_batches_handed_to_the_writers(tmp_path):
    p = _ctrl_c_child(WRITES_BEHIND, str(tmp_path))
    assert p.stdout.readline().strip() == "ready"
    time.sleep(0.3)
    p.send_signal(signal.SIGINT)
    time.sleep(0.3)
    p.send_signal(signal.SIGINT)
    try:
        _, err = p.communicate(timeout=20)
    finally:
        p.kill()
    assert p.returncode == 130, err
    assert "the 20 rounds of finished batches were kept" in err
    assert sorted(f.name for f in tmp_path.iterdir()) == ["chunk10", "chunk20"]


def test_a_second_ctrl_c_ends_at_once_naming_the_abandoned_batches():
    p = _ctrl_c_child(NEVER_ENDS)
    assert p.stdout.readline().strip() == "ready"
    time.sleep(1.0)
    p.send_signal(signal.SIGINT)
    time.sleep(1.0)
    assert p.poll() is None  # the first Ctrl-C waits for the batch in flight
    t0 = time.perf_counter()
    p.send_signal(signal.SIGINT)
    try:
        _, err = p.communicate(timeout=20)
    finally:
        p.kill()
    assert p.returncode == 130 and time.perf_counter() - t0 < 20
    assert "abandoned 1 batch(es) in flight (rounds 0-9)" in err and "the 20 rounds of finished batches were kept" in err
    assert "Traceback" not in err


# ---- a dask scheduler that accepts and never answers --------------------------------------------------------


def test_a_silent_scheduler_is_refused_within_the_deadline(cli_error):
    import socket
    import threading

    pytest.importorskip("distributed")
    from unosim.results.backends import CONNECT_TIMEOUT_S

    srv = socket.socket()
    srv.bind(("127.0.0.1", 0))
    srv.listen(8)
    held = []
    threading.Thread(target=lambda: [held.append(srv.accept()) for _ in range(8)], daemon=True).start()
    from unosim.errors import BackendError
    from unosim.results.backends import connect

    address = f"tcp://127.0.0.1:{srv.getsockname()[1]}"
    import distributed  # noqa: F401  (imported before the clock starts)

    t0 = time.perf_counter()
    with pytest.raises(BackendError, match="no answer"):
        connect(address)
    took = time.perf_counter() - t0
    assert took < CONNECT_TIMEOUT_S + 1.0, took
    t0 = time.perf_counter()
    line = cli_error(["simulate", "--games", "10", "--backend", "dask", "--scheduler", address])
    srv.close()
    assert "cannot reach the dask scheduler" in line and "no answer" in line
    assert time.perf_counter() - t0 < 60  # before: still waiting after 300 s


def test_out_dot_in_a_folder_unosim_did_not_write_removes_nothing_of_the_user(commands, monkeypatch):
    tmp, cmds = commands
    d = tmp / "users-project"
    (d / "runs").mkdir(parents=True)
    (d / "runs" / "notes.txt").write_text("mine")
    (d / "summary.md").write_text("mine too")
    monkeypatch.chdir(d)
    cli(*_fill(cmds["compare"][0], Path(".")))
    assert (d / "runs" / "notes.txt").read_text() == "mine" and (d / "summary.md").read_text() == "mine too"
    assert (d / "compare.json").is_file() and not (d / UNFINISHED).exists()


# ---- a container's memory limit counts in the size checks -------------------------------------------------------


def test_a_container_memory_limit_refuses_what_would_not_fit(tmp_path, monkeypatch, cli_error):
    import unosim.validate as validate

    limit = tmp_path / "memory.max"
    limit.write_text(f"{600 * 2**20}\n")  # a 600 MiB container on a machine with much more
    monkeypatch.setattr(validate, "CGROUP_LIMITS", (limit,))
    assert validate.usable_memory() == (600 * 2**20, "container's memory limit")
    line = cli_error(["simulate", "--games", "3000000", "--players", "4"])
    assert "games=3,000,000" in line and "container's memory limit" in line
    limit.write_text("max\n")  # no limit: physical memory again
    assert validate.usable_memory()[1] == "machine's memory"


@pytest.fixture
def container_limit(tmp_path, monkeypatch):
    """A container memory limit of ``MiB`` (call it), on a machine with much more."""
    import unosim.validate as validate

    limit = tmp_path / "memory.max"
    monkeypatch.setattr(validate, "CGROUP_LIMITS", (limit,))

    def set_limit(mib: int) -> None:
        limit.write_text(f"{mib * 2**20}\n")
        assert validate.usable_memory() == (mib * 2**20, "container's memory limit")

    return set_limit


def test_out_and_round_records_count_in_the_size_check(tmp_path, container_limit, cli_error):
    from unosim.running.sim import check_simulate
    from unosim.validate import record_bytes

    container_limit(600)  # half of it, 300 MiB, for records: 1.94 million 2-player rounds built in memory
    assert record_bytes("round", 2, from_disk=True) > record_bytes("round", 2)
    check_simulate(players=2, games=1_800_000)
    d = tmp_path / "run"
    line = cli_error(["simulate", "--games", "1800000", "--players", "2", "--out", str(d)])
    assert "games=1,800,000 needs about" in line and "container's memory limit 600 MiB" in line
    assert "bytes each, measured" in line and not d.exists()  # refused before the folder is made
    check_simulate(players=4, games=500_000, mode="match", round_records=False)
    with pytest.raises(ValueError, match="games=500,000 needs about"):
        check_simulate(players=4, games=500_000, mode="match", round_records=True)


def test_sweep_and_tournament_are_refused_when_their_records_would_not_fit(tmp_path, container_limit, cli_error):
    container_limit(64)
    (tmp_path / "big.toml").write_text(SWEEP.format(seed=1, rules='["official", "official+stacking"]')
                                       .replace("games = 300", "games = 200000"))
    line = cli_error(["sweep", str(tmp_path / "big.toml"), "--store", str(tmp_path / "store"),
                      "--out", str(tmp_path / "never")])
    assert "games=200,000 needs about" in line and "container's memory limit 64 MiB" in line
    assert "per cell of this grid" in line
    line = cli_error(["tournament", "--policies", "random,greedy", "--players", "2", "--games", "200000",
                      "--store", str(tmp_path / "store"), "--out", str(tmp_path / "never")])
    assert "games=200,000 needs about" in line and "per line-up" in line
    assert not (tmp_path / "never").exists() and not (tmp_path / "store").exists()


def test_rerun_recomputes_a_damaged_chunk_of_an_unfinished_run(tmp_path, monkeypatch):
    import unosim.results.rundir as rundir
    from unosim import simulate
    from unosim.results.rundir import rerun, simulate_into

    d = tmp_path / "run"
    monkeypatch.setattr(rundir, "write_frame", lambda frame, path: (_ for _ in ()).throw(Killed()))
    with pytest.raises(Killed):  # killed while writing the final records: every chunk is on disk
        simulate_into(d, games=400, players=2, seed=8, threads=1, batch_size=100)
    monkeypatch.undo()
    victim = d / "chunks" / "records-000000000100-000000000200.parquet"
    _damage(victim)
    with pytest.warns(UserWarning, match="damaged"):
        rerun(d, threads=1)
    records, meta = load_run(d)
    assert meta["status"] == "complete" and records.equals(simulate(games=400, players=2, seed=8, threads=1).records)
