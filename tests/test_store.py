"""The results store and crash-safe run directories: reuse, extension, keys, SIGKILL, rerun.

The kill tests start the installed ``unosim`` console script in a subprocess, wait until its first
chunk is committed (a ``records-*.parquet`` file under its real name), SIGKILL it, check that what
is left is consistent, resume, and compare with an uninterrupted run of the same cell.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import threading
import time
from dataclasses import replace
from pathlib import Path

import pandas as pd
import pytest
from click.testing import CliRunner

from unosim import ENGINE_VERSION, simulate
from unosim.cli import main
from unosim.results.io import load_run
from unosim.results.store import (
    WRITER_THREADS,
    Cell,
    StoreError,
    cell_dir,
    fill_cell,
    list_cells,
    load_cell,
    make_cell,
    missing_ranges,
    read_cell,
    stored_ranges,
)

EXE = Path(sys.executable).with_name("unosim")
DECK_TOML = """name = "small"
[[cards]]
color = "each"
rank = "0-9"
count = 2
[[cards]]
color = "each"
rank = "skip"
count = 2
"""


def test_store_reuses_and_extends_cells(tmp_path):
    cell = make_cell(rules="official+stacking", players=3, policies="greedy,random,random", seed=11)
    first = load_cell(cell, 3000, tmp_path, threads=2, chunk=1000)
    assert first.attrs["store"]["ran"] == 3000 and first.attrs["store"]["stored_before"] == 0
    again = load_cell(cell, 3000, tmp_path, threads=2, chunk=1000)
    assert again.attrs["store"]["ran"] == 0 and again.attrs["store"]["ranges"] == []
    pd.testing.assert_frame_equal(first, again)
    more = load_cell(cell, 4500, tmp_path, threads=2, chunk=1000)
    assert more.attrs["store"]["ran"] == 1500
    assert more.attrs["store"]["ranges"] == [(3000, 4000), (4000, 4500)]
    one_shot = simulate(rules="official+stacking", players=3, policies="greedy,random,random", seed=11,
                        games=4500, threads=1).records
    pd.testing.assert_frame_equal(more, one_shot)
    # fewer games than stored: the first ones, nothing run
    fewer = load_cell(cell, 1200, tmp_path)
    assert fewer.attrs["store"]["ran"] == 0
    pd.testing.assert_frame_equal(fewer, one_shot.iloc[:1200])
    listed = list_cells(tmp_path)
    assert listed["key"].tolist() == [cell.key] and listed["games"].tolist() == [4500]


def test_store_match_mode_chunks_equal_one_shot(tmp_path):
    cell = make_cell(mode="match", players=3, seed=2, target=150, policies="random")
    got = load_cell(cell, 25, tmp_path, threads=2, chunk=7)
    assert stored_ranges(cell_dir(cell, tmp_path)) == [(0, 7), (7, 14), (14, 21), (21, 25)]
    pd.testing.assert_frame_equal(got, simulate(mode="match", players=3, seed=2, target=150, games=25, policies="random").records)


@pytest.mark.parametrize("kw", [dict(seed=3, policies="random"),
                                dict(players=3, policies="greedy,random,hold_wilds", seating="rotate", rules="stacking"),
                                dict(mode="match", target=200, policies="random", deck="flip"),
                                dict(mode="match", players=4, partners=True, policies="greedy,random,greedy,random")])
def test_cell_meta_is_the_meta_of_a_one_game_run_without_running_it(kw):
    from unosim.results.store import cell_meta, probe

    cell = make_cell(**kw)
    assert cell_meta(cell) == probe(cell).meta


def test_missing_ranges_on_the_chunk_grid():
    assert missing_ranges([], 25, 10) == [(0, 10), (10, 20), (20, 25)]
    assert missing_ranges([(0, 10), (20, 30)], 35, 10) == [(10, 20), (30, 35)]
    assert missing_ranges([(0, 7)], 7, 5) == []
    assert missing_ranges([(5, 8)], 12, 5) == [(0, 5), (8, 10), (10, 12)]


def test_cell_key_covers_what_determines_results(tmp_path):
    base = make_cell(policies="random")
    assert base.key == make_cell(rules="official", deck="zoo", policies="random").key  # an alias of classic: same cards
    variants = [make_cell(rules="official+stacking", policies="random"), make_cell(players=3, policies="random"), make_cell(seed=1, policies="random"),
                make_cell(policies="greedy"), make_cell(seating="rotate", policies="random"), make_cell(deck="classic(copies=2)", policies="random"),
                make_cell(mode="match", policies="random"), make_cell(mode="match", target=200, policies="random"),
                make_cell(policies="greedy(challenge=0.1234567)"), make_cell(policies="greedy(challenge=0.1234568)")]
    keys = [base.key] + [c.key for c in variants]
    assert len(set(keys)) == len(keys)
    # full precision: str() of both policies is the same, the cells are not
    assert variants[-1].policies != variants[-2].policies
    # the cell round-trips through its dict, and the engine version is part of the key
    assert Cell.from_dict(base.to_dict()) == base
    older = Cell.from_dict({**base.to_dict(), "engine_version": ENGINE_VERSION - 1})
    assert older.key != base.key


def test_cell_key_covers_the_play_version_of_a_built_in_python_policy(monkeypatch):
    """A built-in plain-Python policy whose play changed (Lookahead.play_version) keys its cells anew, so a stored
    cell of its older play is not served; cells without it keep their keys."""
    from unosim.players.lookahead import Lookahead
    from unosim.players.policies import POLICIES

    plain = make_cell(policies="random")
    searched = make_cell(policies="lookahead(rollouts=8),random", players=2)
    assert "policy_classes" not in plain.identity()
    assert [name for name, _ in searched.policy_classes] == ["lookahead"]
    assert Cell.from_dict(searched.to_dict()) == searched
    assert POLICIES["lookahead"].play_version == Lookahead.play_version > 0  # registered from the class
    bumped = replace(POLICIES["lookahead"], play_version=Lookahead.play_version + 1)
    monkeypatch.setitem(POLICIES, "lookahead", bumped)
    again = make_cell(policies="lookahead(rollouts=8),random", players=2)
    assert again.key != searched.key and make_cell(policies="random").key == plain.key


def test_cell_key_covers_the_play_version_of_a_built_in_heuristic(monkeypatch):
    """A built-in heuristic whose play changed (heuristics_nb.PLAY_VERSIONS: the expert's) keys its cells anew;
    the other heuristics keep their keys."""
    from unosim.players.policies import POLICIES

    expert = make_cell(policies="expert,random", players=2)
    plain = make_cell(policies="hold_wilds,random", players=2)
    assert [name for name, _ in expert.policy_classes] == ["expert"] and "policy_classes" not in plain.identity()
    bumped = replace(POLICIES["expert"], play_version=POLICIES["expert"].play_version + 1)
    monkeypatch.setitem(POLICIES, "expert", bumped)
    assert make_cell(policies="expert,random", players=2).key != expert.key
    assert make_cell(policies="hold_wilds,random", players=2).key == plain.key


def test_toml_deck_keyed_by_content(tmp_path):
    a, b = tmp_path / "a.toml", tmp_path / "b.toml"
    a.write_text(DECK_TOML)
    b.write_text("# same cards, other file\n" + DECK_TOML)
    ca, cb = make_cell(deck=str(a), players=3, policies="random"), make_cell(deck=str(b), players=3, policies="random")
    assert ca.key == cb.key and ca.deck != cb.deck
    load_cell(ca, 500, tmp_path / "store")
    a.write_text(DECK_TOML.replace('rank = "skip"', 'rank = "reverse"'))
    assert make_cell(deck=str(a), players=3, policies="random").key != ca.key
    with pytest.raises(StoreError, match="has changed"):
        load_cell(ca, 1000, tmp_path / "store")


def test_engine_versions_never_mix(tmp_path):
    cell = make_cell(seed=5, policies="random")
    load_cell(cell, 1000, tmp_path)
    meta_path = cell_dir(cell, tmp_path) / "cell.json"
    data = json.loads(meta_path.read_text())
    data["cell"]["engine_version"] = ENGINE_VERSION + 1
    meta_path.write_text(json.dumps(data))
    with pytest.raises(StoreError, match="never mixed"):
        load_cell(cell, 2000, tmp_path)
    with pytest.raises(StoreError, match="never mixed"):
        read_cell(cell, 1000, tmp_path)
    assert not list_cells(tmp_path)["current"].any()


def test_temp_files_of_a_killed_writer_are_ignored_and_swept(tmp_path):
    cell = make_cell(seed=6, policies="random")
    d = cell_dir(cell, tmp_path)
    load_cell(cell, 1000, tmp_path, chunk=500)
    junk = d / "records-000000001000-000000001500.parquet.123.456.tmp"
    junk.write_bytes(b"PAR1 half written")
    assert stored_ranges(d) == [(0, 500), (500, 1000)]
    fill_cell(cell, 1500, tmp_path, chunk=500)
    assert not junk.exists() and stored_ranges(d)[-1] == (1000, 1500)


# ---- writing behind the computation ---------------------------------------------------------------------------


def test_chunks_are_written_off_the_computing_thread_and_all_land_before_fill_returns(tmp_path, monkeypatch):
    """A chunk's file is written on a writer thread while the next chunk computes; fill_cell returns only after
    every finished chunk is on disk, and load_cell's records equal a one-shot run."""
    from unosim.results import store as store_mod

    computing, writing = set(), set()
    real_run, real_write = store_mod.run_chunk, store_mod.write_chunk

    def run(*a, **k):
        computing.add(threading.current_thread().name)
        return real_run(*a, **k)

    def slow_write(*a, **k):
        writing.add(threading.current_thread().name)
        time.sleep(0.05)  # slower than a chunk: the last writes are still queued when the computing ends
        real_write(*a, **k)

    monkeypatch.setattr(store_mod, "run_chunk", run)
    monkeypatch.setattr(store_mod, "write_chunk", slow_write)
    cell = make_cell(seed=12, policies="random")
    info = fill_cell(cell, 2000, tmp_path, threads=1, chunk=100)
    assert info.ran == 2000 and not info.interrupted
    assert stored_ranges(cell_dir(cell, tmp_path)) == [(lo, lo + 100) for lo in range(0, 2000, 100)]
    assert writing and not writing & computing and all(n.startswith("unosim-write") for n in writing)
    assert info.seconds >= 20 * 0.05 / WRITER_THREADS  # the wait for the last writes counts
    pd.testing.assert_frame_equal(load_cell(cell, 2000, tmp_path), simulate(**cell.sim_kwargs(), games=2000).records)


def test_a_failed_write_stops_the_run_early_and_keeps_what_was_written(tmp_path, monkeypatch):
    from unosim.errors import OutputError
    from unosim.results import store as store_mod

    computed = []
    real_run, real_write = store_mod.run_chunk, store_mod.write_chunk

    def run(cell, lo, hi, **k):
        computed.append(lo)
        time.sleep(0.01)
        return real_run(cell, lo, hi, **k)

    def failing_write(d, lo, hi, frames):
        if lo == 300:
            raise OutputError(f"cannot write chunk {lo} (No space left on device)")
        real_write(d, lo, hi, frames)

    monkeypatch.setattr(store_mod, "run_chunk", run)
    monkeypatch.setattr(store_mod, "write_chunk", failing_write)
    cell = make_cell(seed=13, policies="random")
    with pytest.raises(OutputError, match="cannot write chunk 300"):
        fill_cell(cell, 4000, tmp_path, threads=1, chunk=100)
    assert len(computed) < 40  # stopped at a hand-over after the failure, not at the end
    kept = stored_ranges(cell_dir(cell, tmp_path))
    assert (0, 100) in kept and (300, 400) not in kept


def test_cells_filled_together_take_turns_so_a_stopped_run_holds_games_of_every_cell(tmp_path, monkeypatch):
    """The chunks of several cells run in turn: a comparison stopped early (here by a failing disk) has the same
    first games of every arm to pair."""
    from unosim.errors import OutputError
    from unosim.results import store as store_mod

    real_write = store_mod.write_chunk

    def write(d, lo, hi, frames):
        if lo >= 200:  # the disk is full from the third chunk of each cell on
            raise OutputError("cannot write (No space left on device)")
        real_write(d, lo, hi, frames)

    monkeypatch.setattr(store_mod, "write_chunk", write)
    cells = [make_cell(seed=14, policies="random", rules=r) for r in ("official", "official+stacking")]
    with pytest.raises(OutputError):
        store_mod.fill_cells(cells, 2000, tmp_path, threads=1, chunk=100)
    kept = [stored_ranges(cell_dir(c, tmp_path)) for c in cells]
    assert kept[0] == kept[1] == [(0, 100), (100, 200)]


def test_leaving_write_behind_waits_for_every_write_whatever_ended_the_block():
    from unosim.results.store import WriteBehind

    class Task:
        size = 1

    done = []
    with pytest.raises(KeyboardInterrupt), WriteBehind(lambda t, r: (time.sleep(0.02), done.append(r))) as behind:
        for i in range(6):
            behind(Task(), i)
        raise KeyboardInterrupt
    assert sorted(done) == list(range(6)) and behind.waited > 0


def test_write_behind_holds_at_most_its_pending_chunks():
    """A hand-over beyond ``pending`` waits for a write to finish: a slow disk does not fill the memory."""
    from unosim.results.store import WriteBehind

    class Task:
        size = 1

    state = {"handed": 0, "written": 0, "most": 0}

    def slow(task, result):
        time.sleep(0.03)
        state["written"] += 1

    with WriteBehind(slow, threads=1, pending=2) as behind:
        for i in range(6):
            behind(Task(), i)
            state["handed"] += 1
            state["most"] = max(state["most"], state["handed"] - state["written"])
    assert state["written"] == 6 and state["most"] == 2  # unbounded, all six would wait at once


def test_a_chunk_handed_over_while_a_ctrl_c_stops_the_wait_for_a_writer_is_still_written():
    """With every writer busy, a hand-over waits (on the Dask backend, on the main thread, where a Ctrl-C lands): the
    Ctrl-C ends the run, but the finished chunk in hand is written, not lost."""
    from unosim.results.store import WriteBehind

    class Task:
        size = 1

    class CtrlCWhileWaiting:
        def acquire(self):
            raise KeyboardInterrupt

        def release(self):
            raise AssertionError("a chunk that took no slot gives none back")

    done = []
    with pytest.raises(KeyboardInterrupt), WriteBehind(lambda t, r: done.append(r)) as behind:
        behind._slots = CtrlCWhileWaiting()
        behind(Task(), 7)
    assert done == [7]


# ---- SIGKILL ------------------------------------------------------------------------------------------


def _committed(d: Path) -> list[Path]:
    return sorted(p for p in d.glob("records-*.parquet")) if d.is_dir() else []


def _start_and_kill(args: list[str], chunk_dir: Path, cwd: Path, sig: int = signal.SIGKILL) -> str:
    """Run the console script, send it ``sig`` once its first chunk is committed; returns stdout."""
    if not EXE.exists():
        pytest.skip(f"console script not installed next to {sys.executable}")
    simulate(games=8, seed=1, threads=1, policies="random")  # the kernels are in the disk cache before the child starts
    # the child gets the default Ctrl-C handling even where this process was started with SIGINT ignored
    # (an ignored SIGINT is inherited, and Python then installs no KeyboardInterrupt handler)
    p = subprocess.Popen([str(EXE), *args], cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                         preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    deadline = time.monotonic() + 120
    chunks_at_kill = 0
    try:
        while not _committed(chunk_dir):
            assert p.poll() is None, p.stderr.read()
            assert time.monotonic() < deadline, "no chunk landed in 120 s"
            time.sleep(0.01)
        chunks_at_kill = len(_committed(chunk_dir))
        os.kill(p.pid, sig)
    finally:
        out, err = p.communicate(timeout=60)
    assert p.returncode == (-signal.SIGKILL if sig == signal.SIGKILL else 130), (chunks_at_kill, out, err)
    return out


def _check_chunks_consistent(chunk_dir: Path, cell_kw: dict, index: str = "game") -> int:
    """Every committed chunk is complete and equals the same games of an uninterrupted run."""
    kept = 0
    for path in _committed(chunk_dir):
        lo, hi = (int(x) for x in path.stem.split("-")[1:])
        df = pd.read_parquet(path)
        assert df[index].tolist() == list(range(lo, hi))
        ref = simulate(**cell_kw, games=hi - lo, first=lo, threads=1).records
        pd.testing.assert_frame_equal(df, ref)
        kept += hi - lo
    return kept


GAMES, CHUNK = 150_000, 2_500


def test_sigkill_simulate_out_then_rerun_completes_identically(tmp_path):
    out = tmp_path / "run"
    kw = dict(policies="random", rules="official+stacking", players=4, seed=21)
    _start_and_kill(["simulate", "--policies", "random", "--rules", kw["rules"], "--seed", "21", "--games", str(GAMES), "--batch-size",
                     str(CHUNK), "--threads", "1", "--out", str(out)], out / "chunks", tmp_path)
    meta = json.loads((out / "meta.json").read_text())
    assert meta["status"] == "running" and meta["games"] == GAMES
    assert not (out / "records.parquet").exists() and not (out / "summary.json").exists()
    kept = _check_chunks_consistent(out / "chunks", kw)
    assert 0 < kept < GAMES
    rec, m = load_run(out)
    assert m["interrupted"] and m["games_completed"] == kept == len(rec)
    # rerun completes it in place, running only the missing chunks
    res = CliRunner().invoke(main, ["rerun", str(out), "--threads", "2"])
    assert res.exit_code == 0, res.output
    assert f"{kept:,} games were kept" in res.output
    meta = json.loads((out / "meta.json").read_text())
    assert meta["status"] == "complete" and meta["games_completed"] == GAMES and not (out / "chunks").exists()
    full = simulate(**kw, games=GAMES, threads=2).records
    pd.testing.assert_frame_equal(pd.read_parquet(out / "records.parquet"), full)


def test_rerun_reproduces_a_complete_run(tmp_path):
    out = tmp_path / "m"
    res = CliRunner().invoke(main, ["simulate", "--mode", "match", "--target", "150", "--games", "30", "--round-records",
                                    "--policies", "greedy(challenge=0.123456789),random,random", "--players", "3",
                                    "--out", str(out)])
    assert res.exit_code == 0, res.output
    res = CliRunner().invoke(main, ["rerun", str(out), "--out", str(tmp_path / "again"), "--json"])
    assert res.exit_code == 0, res.output
    rep = json.loads(res.output)
    assert rep["action"] == "reproduced" and rep["identical"] and rep["compared"] == 30
    for name in ("records.parquet", "rounds.parquet"):
        pd.testing.assert_frame_equal(pd.read_parquet(out / name), pd.read_parquet(tmp_path / "again" / name))


def test_ctrl_c_keeps_finished_chunks_and_the_summary_says_so(tmp_path):
    games = GAMES
    out = tmp_path / "run"
    text = _start_and_kill(["simulate", "--policies", "random", "--seed", "3", "--games", str(games), "--batch-size", str(CHUNK), "--threads",
                            "1", "--out", str(out)], out / "chunks", tmp_path, signal.SIGINT)
    summary = json.loads((out / "summary.json").read_text())
    meta = json.loads((out / "meta.json").read_text())
    kept = _check_chunks_consistent(out / "chunks", dict(seed=3, policies="random"))
    assert summary["interrupted"] and summary["games"] == kept == meta["games_completed"] and 0 < kept < games
    assert summary["games_requested"] == games and meta["status"] == "interrupted"
    assert f"INTERRUPTED: kept {kept:,} of {games:,}" in text
    res = CliRunner().invoke(main, ["rerun", str(out)])
    assert res.exit_code == 0 and json.loads((out / "meta.json").read_text())["status"] == "complete", res.output


def test_sigkill_during_a_new_run_into_an_old_out_never_mixes(tmp_path):
    out = tmp_path / "run"
    res = CliRunner().invoke(main, ["simulate", "--policies", "random", "--games", "3000", "--seed", "1", "--out", str(out)])
    assert res.exit_code == 0, res.output
    _start_and_kill(["simulate", "--policies", "random", "--rules", "official+stacking", "--seed", "2", "--games", str(GAMES),
                     "--batch-size", str(CHUNK), "--threads", "1", "--out", str(out)], out / "chunks", tmp_path)
    meta = json.loads((out / "meta.json").read_text())
    assert meta["rules"] == "official+stacking" and meta["seed"] == 2 and meta["status"] == "running"
    assert not (out / "records.parquet").exists() and not (out / "summary.json").exists()
    _check_chunks_consistent(out / "chunks", dict(rules="official+stacking", seed=2, policies="random"))


def test_sigkill_compare_leaves_a_consistent_store(tmp_path):
    store = tmp_path / "store"
    args = ["compare", "--policies", "random", "--arm", "official", "--arm", "official+stacking", "--players", "3", "--seed", "4",
            "--games", str(GAMES), "--batch-size", str(CHUNK), "--threads", "1", "--store", str(store)]
    cell = make_cell(players=3, seed=4, policies="random")
    _start_and_kill(args, cell_dir(cell, store), tmp_path)
    kept = _check_chunks_consistent(cell_dir(cell, store), dict(players=3, seed=4, policies="random"))
    assert 0 < kept < GAMES
    # resuming continues from what is stored (a prefix: one thread runs the chunks in order)
    res = fill_cell(cell, 40_000, store, threads=2, chunk=CHUNK)
    assert res.stored_before == min(kept, 40_000) and res.ran == 40_000 - res.stored_before
    pd.testing.assert_frame_equal(read_cell(cell, 40_000, store), simulate(players=3, seed=4, games=40_000, policies="random").records)


# ---- CLI ----------------------------------------------------------------------------------------------


def test_results_list_show_rm(tmp_path):
    cell = make_cell(players=2, seed=8, policies="random")
    load_cell(cell, 1000, tmp_path)
    r = CliRunner().invoke(main, ["results", "--store", str(tmp_path), "list"])
    assert r.exit_code == 0 and cell.key in r.output and "1000" in r.output, r.output
    r = CliRunner().invoke(main, ["results", "--store", str(tmp_path), "show", cell.key[:6]])
    assert r.exit_code == 0, r.output
    shown = json.loads(r.output)
    assert shown["key"] == cell.key and shown["games"] == 1000 and shown["ranges"] == [[0, 1000]]
    r = CliRunner().invoke(main, ["results", "--store", str(tmp_path), "rm", cell.key])
    assert r.exit_code == 0 and not cell_dir(cell, tmp_path).exists()
    r = CliRunner().invoke(main, ["results", "--store", str(tmp_path)])
    assert r.exit_code == 0 and "no stored cells" in r.output


@pytest.mark.parametrize("args,needle", [
    (["results", "show", "zz"], "'zz'"),
    (["results", "show", "abc123"], "abc123"),
    (["results", "rm", "0f"], "0f"),
    (["rerun", "{tmp}/nowhere"], "nowhere"),
])
def test_bad_input_to_store_commands_exit_2(args, needle, tmp_path, cli_error):
    args = [a.replace("{tmp}", str(tmp_path)) for a in args]
    store = ["--store", str(tmp_path)] if args[0] == "results" else []
    assert needle in cli_error([args[0], *store, *args[1:]])
