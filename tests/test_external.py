"""Plain-Python policies: the same decisions as numba policies, through replayed rounds."""

from __future__ import annotations

from pathlib import Path

import pytest

from unosim import simulate
from unosim.players.external import PythonPolicy
from unosim.players.policies import PolicyError

SCRIPTS = Path(__file__).resolve().parents[1] / "scripts"
PY = str(SCRIPTS / "policy_example_python.py")
NUMBA = str(SCRIPTS / "policy_example_numba.py")


@pytest.mark.parametrize(("rules", "deck", "players"), [("official", "classic", 4),
                                                        ("official+stacking+seven_zero+jump_in", "classic", 3),
                                                        ("official", "flip", 2)])
def test_plain_python_greedy_gives_greedy_records(rules, deck, players):
    kw = dict(rules=rules, deck=deck, players=players, games=60, seed=9, threads=1)
    a = simulate(policies=["greedy_py"] + ["random"] * (players - 1), policy_files=[PY], **kw)
    b = simulate(policies=["greedy"] + ["random"] * (players - 1), **kw)
    assert a.records.equals(b.records)


@pytest.mark.parametrize("rules", ["official+seven_zero+jump_in", "official+stacking+jump_in"])
def test_plain_python_beside_heuristics_under_jump_in(rules):
    """A paused seat's observation survives the rest of the jump-in window: the other seats asked after
    it (heuristics that build observations of their own) no longer overwrite it."""
    kw = dict(rules=rules, players=5, games=40, seed=1, threads=1)
    a = simulate(policies="greedy_py,hold_wilds,hold_wilds,card_counter,hold_wilds", policy_files=[PY], **kw)
    b = simulate(policies="greedy,hold_wilds,hold_wilds,card_counter,hold_wilds", **kw)
    assert a.records.equals(b.records)


def test_same_strategy_in_numba_and_python_gives_identical_records():
    kw = dict(players=4, games=80, seed=3, threads=1, seating="rotate", policy_files=[PY, NUMBA])
    a = simulate(policies="low_first_py,greedy,random,low_first_py", **kw)
    b = simulate(policies="low_first,greedy,random,low_first", **kw)
    assert a.records.equals(b.records)
    assert {f["path"] for f in a.meta["policy_files"]} == {PY, NUMBA}


class Stubborn(PythonPolicy):
    name = "stubborn_test"

    def color(self, d):
        return 7  # there are 4 colours


class Grumpy(PythonPolicy):
    name = "grumpy_test"

    def play(self, d):
        raise RuntimeError("not today")


def test_python_policy_errors():
    with pytest.raises(PolicyError, match=r"policy 'stubborn_test' answered decision 'color' with 7"):
        simulate(policies=[Stubborn, "greedy"], players=2, games=20, threads=1)
    with pytest.raises(PolicyError) as ei:
        simulate(policies=[Grumpy, "greedy"], players=2, games=2, threads=1)
    lines = str(ei.value).splitlines()
    assert lines[0] == "policy 'grumpy_test' raised RuntimeError while deciding 'play'"
    assert "test_external.py" in str(ei.value) and lines[-1] == "RuntimeError: not today"


def test_python_policies_play_matches_like_their_numba_twins():
    """Plain-Python seats answer through the kernels' policy slot, so they play match mode too, and a
    deterministic one gives exactly the match records of its numba twin, whatever the thread count."""
    kw = dict(players=4, games=40, seed=11, mode="match", scoring="standard", seating="rotate",
              policy_files=[PY, NUMBA])
    a = simulate(policies="low_first_py,greedy,random,greedy_py", threads=2, batch_size=7, **kw)
    b = simulate(policies="low_first,greedy,random,greedy", threads=1, **kw)
    assert a.records.equals(b.records)
    assert (a.records["rounds"] > 1).any()  # matches of several rounds: the seats' answers crossed rounds


class GreedyReader(PythonPolicy):
    """Reads the engine's state at its play decisions (like lookahead) and plays like greedy."""

    name = "greedy_reader_test"
    uses_state = True

    def decide(self, d):
        if d.kind == "play":
            assert d.state is not None and d.state.hlen[d.seat] == sum(d.hand.values())
        return d.greedy()


@pytest.mark.parametrize("scoring", ["standard", "lazy"])
def test_policies_that_read_the_state_play_matches_step_by_step(scoring):
    """A policy that reads the engine's state is asked step by step through whole matches (every round's
    state handed over at its play decisions): playing like greedy it gives greedy's match records, whatever
    the thread count and batch size; round records are refused in one line."""
    kw = dict(players=3, games=12, seed=5, mode="match", scoring=scoring, seating="rotate")
    a = simulate(policies=[GreedyReader, "random", "greedy"], threads=2, batch_size=5, **kw)
    b = simulate(policies="greedy,random,greedy", threads=1, **kw)
    assert a.records.equals(b.records) and (a.records["rounds"] > 1).all()
    with pytest.raises(ValueError, match="reads the engine's state, and its matches are played step by step"):
        simulate(policies="lookahead,greedy", players=2, games=1, mode="match", round_records=True)


class Counting(PythonPolicy):
    """Counts the decisions its instance was asked (one instance per seat and batch)."""

    name = "counting_test"
    asked: list[tuple[int, int]] = []

    def decide(self, d):
        Counting.asked.append((id(self), d.seat))
        return d.greedy()


def test_each_seat_gets_its_own_python_policy_instance():
    Counting.asked = []
    r = simulate(policies=[Counting, Counting, "greedy"], players=3, games=30, threads=1, batch_size=30, seed=2)
    seats_of = {}
    for obj, seat in Counting.asked:
        seats_of.setdefault(obj, set()).add(seat)
    assert sorted(map(len, seats_of.values())) == [1, 1]  # two instances, one seat each
    assert r.records.equals(simulate(policies="greedy", players=3, games=30, threads=1, seed=2).records)


def test_trace_replays_a_saved_round(tmp_path):
    import json
    import subprocess
    import sys

    import pandas as pd

    out = tmp_path / "run"
    r = subprocess.run([sys.executable, "-m", "unosim.cli", "simulate", "--policies", "greedy,random,hold_wilds",
                        "--players", "3", "--games", "20", "--threads", "1", "--out", str(out)],
                       capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    rec = pd.read_parquet(out / "records.parquet")
    from unosim.running.trace import trace_round

    text = trace_round(json.loads((out / "meta.json").read_text()), 5)
    last = text.splitlines()[-1]
    assert last == (f"end: win, winner seat {rec.winner[5]}, turns {rec.turns[5]}, points {rec.winner_points[5]}")
    assert "seat 0 decides play" in text and "seat 1 decides" not in text  # random seats show events only
    bad = subprocess.run([sys.executable, "-m", "unosim.cli", "trace", str(out), "--game", "99"],
                         capture_output=True, text=True)
    assert bad.returncode == 2 and "out of range; accepted: 0..19" in bad.stderr


@pytest.mark.parametrize(("rules", "deck", "players"), [("everything", "classic", 5), ("party", "classic", 7),
                                                        ("official+stacking", "harry_potter", 3)])
def test_plain_python_examples_decide_legally(rules, deck, players):
    pols = ",".join((["low_first_py", "greedy_py", "random"] * 4)[:players])
    r = simulate(rules=rules, deck=deck, players=players, policies=pols, games=25, seed=2, threads=1,
                 policy_files=[PY])
    assert set(r.records["end_reason"]) <= {"win", "turn_cap"}
