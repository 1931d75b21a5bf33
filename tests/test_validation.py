"""Every entry point refuses bad input clearly: the Python API raises the library's own exception with a
one-line message naming the parameter; the command line prints that line and exits with code 2; saved runs
are checked on load.  The cases below are the ones a careful new user tried (issue 11), each a test.

Generated garbage for every public parameter is in ``test_fuzz_inputs.py``.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

import unosim
from unosim import UnosimError
from unosim.cli import run as cli_run
from unosim.results.io import load_run
from unosim.running.scenario import play

R2 = [["r5", "r7"], ["b5", "g2"]]


def refused(fn, **kw) -> str:
    """The one-line message of the UnosimError that ``fn(**kw)`` raises."""
    with pytest.raises(UnosimError) as ei:
        fn(**kw)
    msg = str(ei.value)
    assert msg and "\n" not in msg, msg
    assert isinstance(ei.value, ValueError)
    return msg


# ---- the Python API: simulate -------------------------------------------------------------------------

SIMULATE_BAD = [
    # silently coerced before
    (dict(games=True), "games=True"),
    (dict(seed=1.5), "seed=1.5"),
    (dict(seed="7"), "seed='7'"),
    (dict(games="200"), "games='200'"),
    (dict(players=4.0), "players=4.0"),
    (dict(mode="match", max_rounds=2.7), "max_rounds=2.7"),
    (dict(mode="match", partners="no"), "partners='no'"),
    (dict(mode="match", scoring="lazy", rounds=-3), "rounds=-3"),
    (dict(mode="match", partners=1), "partners=1"),
    (dict(progress="yes"), "progress='yes'"),
    (dict(threads=2.0), "threads=2.0"),
    (dict(batch_size=True), "batch_size=True"),
    # obscure errors before
    (dict(policies=None), "policies=None"),
    (dict(policies=[]), "policies=[]"),
    (dict(policies=[1, 2]), "policies=[1, 2]"),
    (dict(gmaes=100), "'gmaes'"),
    (dict(mode="match", gmaes=100), "'gmaes'"),
    (dict(target=200), "'target' applies to mode='match' only"),
    (dict(mode="match", scoring="rotating_partners", rounds_per_partner=0), "rounds_per_partner=0"),
    (dict(mode="match", rounds_per_partner=2), "rounds_per_partner=2 applies to scoring=rotating_partners"),
    (dict(mode="match", rounds=5), "rounds=5 applies to scoring=lazy or rotating_partners"),
    (dict(mode="match", scoring="lazy", target=300), "target=300 does nothing with scoring='lazy'"),
    (dict(rules=None), "rules=None"),
    (dict(rules="official+set()"), "set()"),
    (dict(rules="official+set(uno_penalty=2,uno_penalty=4)"), "'uno_penalty' is given twice"),
    (dict(policies="random(challenge=0.1,challenge=0.9)"), "'challenge' is given twice"),
    (dict(deck=None), "deck=None"),
    (dict(seating=None), "seating=None"),
    (dict(seating="rotated"), "did you mean 'rotate'"),
    (dict(mode=None), "mode=None"),
    (dict(mode="matches"), "mode='matches'"),
    # overflow and memory before
    (dict(mode="match", target=10**30), "target=1000000000000000000000000000000"),
    (dict(mode="match", max_rounds=10**30), "max_rounds=1000000000000000000000000000000"),
    (dict(mode="match", max_rounds=65537), "max_rounds=65537"),
    (dict(games=10**12), "games=1000000000000"),
    (dict(seed=2**64), "seed=18446744073709551616"),
    (dict(seed=-1), "seed=-1"),
]


@pytest.mark.parametrize("kw,needle", SIMULATE_BAD)
def test_simulate_refuses(kw, needle):
    kw = {"games": 10, **kw}
    assert needle in refused(unosim.simulate, **kw)


def test_games_that_cannot_fit_in_memory_are_refused_before_allocating():
    msg = refused(unosim.simulate, games=9_000_000_000)
    assert "games=9,000,000,000 needs about" in msg and "GiB" in msg and "accepted: at most" in msg


def test_numpy_integers_are_integers():
    import numpy as np

    res = unosim.simulate(games=np.int64(20), players=np.int32(3), seed=np.uint64(5), threads=1, policies="random")
    assert res.summary["games"] == 20 and res.summary["players"] == 3 and res.meta["seed"] == 5


def test_every_error_class_is_an_unosim_error():
    for name in ("SimulationError", "RuleError", "PolicyError", "DeckError", "ScenarioError", "RunFileError"):
        cls = getattr(unosim, name)
        assert issubclass(cls, UnosimError) and issubclass(cls, ValueError), name
    from unosim.players.policies import PolicyError
    from unosim.ruleset.rules import RuleError

    assert issubclass(RuleError, unosim.RuleError) and PolicyError is unosim.PolicyError


def test_checks_run_before_the_core_is_loaded():
    # a typo must be caught before the first compile on a fresh machine: checking touches no kernel
    import subprocess

    code = ("import unosim, unosim.running.sim as s\n"
            "for kw in (dict(seating='rotated'), dict(mode='match', scoring='lazy', rounds=0)):\n"
            "    try:\n        s.check_simulate(games=10, **kw)\n"
            "    except unosim.UnosimError as e:\n        print(e)\n"
            "import unosim.core.heuristics_nb as h, unosim.core.nb as k\n"
            "print(len(k.entry.compiled()), len(h.entry.compiled()))\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120, check=True)
    lines = out.stdout.splitlines()
    assert "seating='rotated' is unknown" in lines[0] and "rounds=0 is out of range" in lines[1]
    assert lines[2] == "0 0", "a kernel was compiled or loaded from the cache before the check"


# ---- the Python API: scenario.play ---------------------------------------------------------------------

PLAY_BAD = [
    # killed the interpreter (SIGSEGV) before
    (dict(hands=[], start="r1"), "hands has 0 hands"),
    (dict(hands=R2, start="r1", dealer=7), "dealer=7"),
    (dict(players=40), "players=40"),
    # silently accepted before
    (dict(players=0), "players=0"),
    (dict(players=1), "players=1"),
    (dict(players=11), "players=11"),
    (dict(hands=[["r5"]] * 11, start="r1"), "hands has 11 hands"),
    (dict(hands=R2, start="r1", dealer=-3), "dealer=-3"),
    (dict(hands=R2, start="r1", players=3), "players=3 but 2 hands"),
    (dict(start="r1"), "start= and pile="),
    (dict(players=2, policies="random", script=["draw"]), "no seat is scripted"),
    # obscure errors before
    (dict(seed=-1), "seed=-1"),
    (dict(seed=1.5), "seed=1.5"),
    (dict(hands="r5", start="r1"), "hands='r5'"),
    (dict(hands=[["r5"], []], start="r1"), "hands[1] is empty"),
    (dict(hands=[["r5"], [5]], start="r1"), "hands[1][0]=5"),
    (dict(hands=R2, start=5), "start=5"),
    (dict(hands=R2), "needs a starting card"),
    (dict(hands=R2, start="r1", pile="y3"), "pile='y3'"),
    (dict(hands=R2, start="zz9"), "unknown card 'zz9'"),
    (dict(hands=[["r5"] * 3, ["r5"]], start="r1"), "'r5' is used more often"),
    (dict(players=2, script=[10**30]), "script entry 1000000000000000000000000000000"),
    (dict(players=2, script=[None]), "script entry None"),
    (dict(players=2, script="draw"), "script='draw'"),
    (dict(max_events=-1), "max_events=-1"),
    (dict(hands=R2, start="r1", rules="official+seven_zero", deck="numbers_only", policies="greedy"),
     None),  # accepted: numbers_only has 7s and 0s
]


@pytest.mark.parametrize("kw,needle", PLAY_BAD)
def test_play_refuses(kw, needle):
    if needle is None:
        assert play(**kw).winner in (0, 1)
        return
    assert needle in refused(play, **kw)


def test_play_refuses_rules_the_deck_cannot_play():
    assert "needs 0s" in refused(play, players=2, rules="official+zero_swap_any", deck="flip")


# ---- the command line ----------------------------------------------------------------------------------


def cli(args, capsys) -> tuple[int, str, str]:
    """(exit code, stdout, stderr) of the console entry point on ``args``."""
    with pytest.raises(SystemExit) as ei:
        cli_run(list(args))
    cap = capsys.readouterr()
    return ei.value.code, cap.out, cap.err


CLI_BAD = [
    (["simulate", "--policies", "random", "--mode", "match", "--games", "10", "--target", "9" * 25], "target=" + "9" * 25),
    (["simulate", "--policies", "random", "--mode", "match", "--games", "10", "--max-rounds", "9" * 20], "max_rounds=" + "9" * 20),
    (["simulate", "--policies", "random", "--games", "1000000000000"], "games=1000000000000"),
    (["simulate", "--policies", "random", "--games", "1" + "0" * 30], "games=1" + "0" * 30),
    (["simulate", "--policies", "random", "--games", "10**30"], "'10**30'"),
    (["simulate", "--policies", "random", "--games", "10", "--report"], "--report writes into the --out folder"),
    (["simulate", "--policies", "random", "--games", "10", "--mode", "match", "--round-records"], "--round-records writes into"),
    (["simulate", "--policies", "random", "--games", "10", "--out", ""], "--out '' is empty"),
    (["simulate", "--policies", "random", "--games", "10", "--out", "   "], "--out '   ' is empty"),
    (["simulate", "--policies", "random", "--games", "10", "--rules", "official+set()"], "set()"),
    (["simulate", "--games", "10", "--policies", "random(challenge=0.1,challenge=0.9)"], "given twice"),
    (["simulate", "--policies", "random", "--games", "10", "--max-rounds", "5"], "--max-rounds"),
    (["simulate", "--policies", "random", "--games", "10", "--seating", "rotated"], "did you mean 'rotate'"),
    (["simulate", "--policies", "random", "--games", "10", "--threads", "2.5"], "--threads '2.5'"),
    (["simulate", "--policies", "random", "--games", "10", "--mode", "match", "--scoring", "lazy", "--batch-size", "x"], "'x'"),
    (["demo", "--games", "0"], "games=0"),
    (["demo", "--seed", "-4"], "seed=-4"),
    (["report", "--out", "x"], "Missing argument"),
]


@pytest.mark.parametrize("args,needle", CLI_BAD)
def test_cli_refuses(args, needle, monkeypatch, tmp_path, cli_error):
    monkeypatch.chdir(tmp_path)
    assert needle in cli_error(args)


@pytest.mark.parametrize("args", [
    ["simulate", "--policies", "random", "--players", "11", "--out", "{tmp}/a/b/c"],
    ["simulate", "--policies", "random", "--games", "10", "--rules", "stakcing", "--out", "{tmp}/a/b/c"],
    ["simulate", "--policies", "random", "--games", "10", "--mode", "match", "--target", "0", "--out", "{tmp}/a/b/c"],
    ["demo", "--games", "-1", "--out", "{tmp}/a/b/c"],
    ["report", "{tmp}", "--out", "{tmp}/a/b/c"],
])
def test_a_refused_command_creates_no_output_folder(args, monkeypatch, capsys, tmp_path):
    code, _, err = cli([a.replace("{tmp}", str(tmp_path)) for a in args], capsys)
    assert code == 2 and err.startswith("error: ")
    assert not (tmp_path / "a").exists()


def test_api_and_cli_give_the_same_message(monkeypatch, capsys):
    msg = refused(unosim.simulate, games=10, mode="match", scoring="bogus")
    code, _, err = cli(["simulate", "--policies", "random", "--games", "10", "--mode", "match", "--scoring", "bogus"], capsys)
    assert code == 2 and err.strip() == f"error: {msg}"


def test_bare_unosim_lists_the_commands(monkeypatch, capsys):
    code, out, err = cli([], capsys)
    assert code == 0 and err == ""
    for command in ("simulate", "rules", "presets", "report", "demo"):
        assert f"  {command}" in out


# ---- saved runs ------------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def saved(tmp_path_factory) -> Path:
    from unosim.results.io import save_run

    d = tmp_path_factory.mktemp("runs") / "good"
    save_run(unosim.simulate(games=50, seed=3, threads=1, policies="random"), d)
    return d


def damaged(saved: Path, tmp_path: Path, meta=None, records=None, raw_meta: str | None = None) -> Path:
    import shutil

    import pandas as pd

    d = tmp_path / "run"
    shutil.copytree(saved, d)
    if raw_meta is not None:
        (d / "meta.json").write_text(raw_meta)
    elif meta is not None:
        m = json.loads((saved / "meta.json").read_text())
        (d / "meta.json").write_text(json.dumps(meta(m)))
    if records is not None:
        records(pd.read_parquet(saved / "records.parquet")).to_parquet(d / "records.parquet")
    return d


def _set(key, value):
    def f(m):
        m[key] = value
        return m
    return f


def _drop(key):
    def f(m):
        m.pop(key)
        return m
    return f


RUN_BAD = [
    (dict(raw_meta="[1, 2]"), "holds a JSON list, not an object"),
    (dict(raw_meta='{"players": 4,'), "is not valid JSON (line 1"),
    (dict(raw_meta="\xff\xfe"), "meta.json"),
    (dict(meta=_set("players", "four")), "players='four' is invalid; accepted: an integer 2..10"),
    (dict(meta=_set("players", 3)), "4 policies for players=3"),
    (dict(meta=_drop("seed")), "has no 'seed'"),
    (dict(meta=_set("engine_version", 999)), "engine version 999, newer than"),
    (dict(meta=_set("mode", "tournament")), "mode='tournament' is unknown"),
    (dict(meta=_set("games_completed", 49)), "has 50 rows but meta.json says 49"),
    (dict(records=lambda r: r.drop(columns=["hand_points_3"])), "no column 'hand_points_3'"),
    (dict(records=lambda r: r.assign(winner=r["winner"] + 7)), "winner seats outside -1..3"),
    (dict(meta=lambda m: {**m, "mode": "match"}), "no column 'match'"),
]


@pytest.mark.parametrize("how,needle", RUN_BAD)
def test_saved_runs_are_checked_on_load(how, needle, saved, tmp_path, monkeypatch, capsys):
    d = damaged(saved, tmp_path, **how)
    with pytest.raises(unosim.RunFileError) as ei:
        load_run(d)
    msg = str(ei.value)
    assert "\n" not in msg and needle in msg, msg
    assert str(d) in msg  # names the run's file
    code, _, err = cli(["report", str(d), "--out", str(tmp_path / "rep")], capsys)
    assert code == 2 and err.strip() == f"error: {msg}"
    assert not (tmp_path / "rep").exists()


def test_a_good_saved_run_loads(saved):
    records, meta = load_run(saved)
    assert len(records) == 50 and meta["players"] == 4
