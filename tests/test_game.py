"""unosim.Game: a round or match stepped decision by decision, with exactly the batch engine's rules."""

from __future__ import annotations

import gc
import random
import threading

import numpy as np
import pytest

import unosim
from unosim import Game
from unosim.errors import SimulationError


def _play_greedy(g: Game) -> Game:
    while not g.is_over():
        g.apply(g.observation().greedy())
    return g


@pytest.mark.parametrize("rules,players,deck", [("official", 3, "classic"), ("seven_zero", 4, "classic"),
                                                ("jump_in+stacking", 4, "classic"), ("official", 3, "flip"),
                                                ("swap_on_five+challenges", 5, "classic")])
def test_an_agent_that_answers_like_greedy_replays_the_batch_records(rules, players, deck):
    batch = unosim.simulate(rules=rules, players=players, policies="greedy", games=6, seed=21, deck=deck, threads=1)
    for k in range(6):
        g = _play_greedy(Game(rules=rules, players=players, deck=deck, seed=21, round=k))
        want = batch.records.iloc[k].to_dict()
        assert g.result == want
        assert g.returns() == [float(s == want["winner"]) for s in range(players)]


def test_a_match_stepped_through_equals_the_batch_match():
    batch = unosim.simulate(players=3, policies="greedy", games=2, seed=4, mode="match", scoring="standard",
                            threads=1)
    for k in range(2):
        g = _play_greedy(Game(players=3, seed=4, round=k, mode="match", scoring="standard"))
        assert g.result == batch.records.iloc[k].to_dict()


def _random_answer(g: Game, rng: random.Random) -> int:
    """The built-in ``random`` policy's rule (unosim.nb.random_nb with its default parameters)."""
    d = g.observation()
    if d.kind == "play":
        return rng.randrange(d.nlegal) if d.nlegal else -1
    if d.kind == "challenge":
        return 0
    if d.kind == "play_drawn":
        return 1
    return rng.choice(g.legal_actions())


def test_random_playouts_give_the_batch_engines_statistics():
    rng = random.Random(5)
    turns = []
    for k in range(400):
        g = Game(players=3, seed=99, round=k)
        while not g.is_over():
            g.apply(_random_answer(g, rng))
        turns.append(g.result["turns"])
    batch = unosim.simulate(players=3, policies="random", games=100_000, seed=1, threads=2).records["turns"]
    se = np.std(turns, ddof=1) / np.sqrt(len(turns))
    assert abs(np.mean(turns) - batch.mean()) < 4.5 * se, (np.mean(turns), batch.mean(), se)


def test_clone_continues_exactly_like_the_original():
    g = Game(rules="seven_zero", players=4, seed=3)
    rng = random.Random(1)
    for _ in range(25):
        g.apply(rng.choice(g.legal_actions()))
    c = g.clone()
    assert c.history == g.history and c.current_player == g.current_player
    assert c.observation().options == g.observation().options
    assert np.array_equal(c.observation().obs, g.observation().obs)
    while not g.is_over():
        a = rng.choice(g.legal_actions())
        g.apply(a)
        c.apply(a)
    assert c.is_over() and c.result == g.result


def test_what_a_seat_sees_is_the_policy_interface():
    g = Game(players=4, seed=8)
    seen = set()
    while not g.is_over() and len(seen) < 4:
        d = g.observation()
        assert d.seat == g.current_player
        assert sum(d.hand.values()) == d.hand_sizes[d.seat]  # its own hand, and other hands only as sizes
        seen.add(d.seat)
        g.apply(d.greedy())
    assert g.observation(next(iter(seen))).seat == next(iter(seen))
    g.close()


def test_bad_actions_and_seats_are_one_line_errors():
    g = Game(players=2, seed=1)
    with pytest.raises(SimulationError, match=r"action 99 is not legal for seat 0 at its 'play' decision; accepted"):
        g.apply(99)
    with pytest.raises(SimulationError, match="seat 5 is not at this table; accepted: 0..1"):
        g.observation(5)
    assert g.action_name(-1) == "draw"
    _play_greedy(g)
    with pytest.raises(SimulationError, match="the game is over"):
        g.apply(0)
    with pytest.raises(unosim.UnosimError, match="players"):
        Game(players=1)


def _engine_threads() -> list[threading.Thread]:
    return [t for t in threading.enumerate() if t.name.startswith("unosim-game-")]


def test_abandoned_games_stop_their_engine_threads():
    before = threading.active_count()
    games = [Game(players=3, seed=s) for s in range(5)]
    assert len(_engine_threads()) == 5
    games[0].close()
    del games
    gc.collect()
    for t in _engine_threads():
        t.join(timeout=5)
    assert not _engine_threads() and threading.active_count() == before


def test_a_game_left_open_does_not_keep_the_interpreter_from_exiting():
    import subprocess
    import sys

    code = "from unosim import Game\ng = Game(players=3, seed=1)\nkeep = [g, Game(players=2, seed=2)]\nprint('ok')"
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0 and proc.stdout.strip() == "ok", proc.stderr[-2000:]
