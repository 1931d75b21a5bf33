"""unosim.Game: a round or match stepped decision by decision, with exactly the batch engine's rules."""

from __future__ import annotations

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
    """The built-in ``random`` policy's rule (unosim.core.nb.random_nb with its default parameters)."""
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


PRESETS = ["official", "challenges", "stacking", "seven_zero", "jump_in", "draw_until_playable", "party",
           "speed_uno", "everything", "swap_on_five+zero_swap_any", "deflect_skip+reverse_bounce+challenges"]
DECKS = ["classic", "flip", "harry_potter", "bts"]


def _fits(rules: str, deck: str) -> bool:
    try:
        unosim.running.sim.check_simulate(rules=rules, deck=deck, games=1)
    except SimulationError:
        return False  # a house rule the deck cannot play (say 7-0 on UNO Flip, which has no 0s)
    return True


def _play_through(g: Game, rng: random.Random, switch_at: set[int] | None = None):
    """Play ``g`` to its end with ``rng``'s actions; at the decisions numbered in ``switch_at`` carry on with a
    copy of the game instead (the original is dropped).  Returns (game, observations, decision kinds)."""
    seen, kinds = [], set()
    k = 0
    while not g.is_over():
        if switch_at and k in switch_at:
            g = g.clone()
        d = g.observation()
        seen.append(d.obs.copy())
        kinds.add(d.kind)
        g.apply(rng.choice(g.legal_actions()))
        k += 1
    return g, seen, kinds


@pytest.mark.parametrize("mode", ["round", "match"])
def test_resuming_copies_at_random_decisions_gives_the_uninterrupted_game(mode):
    """Every preset on every deck (round mode; a match to 200 under standard and lazy scoring): a game
    resumed from copies made at random decisions of every kind sees the same decisions and ends exactly
    as the same game played without copies."""
    kinds = set()
    lazy, standard = {"scoring": "lazy", "rounds": 3}, {"scoring": "standard", "target": 200}
    for i, (rules, deck) in enumerate([(r, d) for r in PRESETS for d in DECKS]):
        if (mode == "match" and i % 3) or not _fits(rules, deck):
            continue
        opts = {} if mode == "round" else (standard if i % 2 else lazy)
        base, seen, kk = _play_through(Game(rules=rules, players=2 + i % 4, deck=deck, seed=i, mode=mode, **opts),
                                       random.Random(i))
        switch = set(random.Random(-i).sample(range(len(seen)), min(6, len(seen))))
        again, seen2, _ = _play_through(Game(rules=rules, players=2 + i % 4, deck=deck, seed=i, mode=mode, **opts),
                                        random.Random(i), switch)
        assert again.result == base.result and again.history == base.history, (rules, deck)
        assert len(seen2) == len(seen) and all(np.array_equal(x, y) for x, y in zip(seen, seen2, strict=True)), (rules, deck)
        kinds |= kk
    if mode == "round":
        assert kinds == {"play", "color", "play_drawn", "respond", "challenge", "jump_in", "swap_target",
                         "give_card"}


def test_a_game_is_its_buffer_and_clone_copies_it(monkeypatch):
    """No thread, and a copy that costs one array copy whatever the history: cloning runs no engine step."""
    before = threading.active_count()
    g = Game(players=3, seed=5)
    for _ in range(30):
        g.apply(g.observation().greedy())
    assert threading.active_count() == before
    import unosim.agents.game as game_module

    calls = []
    real = game_module.to_decision
    monkeypatch.setattr(game_module, "to_decision", lambda *a, **k: calls.append(1) or real(*a, **k))
    c = g.clone()
    assert calls == [] and c._s.buf is not g._s.buf and np.array_equal(c._s.buf, g._s.buf)
    c.apply(c.legal_actions()[0])
    assert len(calls) >= 1 and len(c.history) == len(g.history) + 1  # the original is untouched


def test_the_engine_is_called_once_per_decision(monkeypatch):
    """The steps between two decisions are played in one call of the engine (nb.steps_nb), the step that
    paused at a decision included: a call costs more than a turn, and a search asks at every decision."""
    from unosim.core import nb

    real = nb.steps_nb
    calls = []
    monkeypatch.setattr(nb, "steps_nb", lambda *a: calls.append(1) or real(*a))
    g = Game(players=3, seed=7)
    first = len(calls)
    for _ in range(40):
        g.apply(g.observation().greedy())
    assert first == 1 and len(calls) == first + 40


def test_a_game_left_open_does_not_keep_the_interpreter_from_exiting():
    import subprocess
    import sys

    code = "from unosim import Game\ng = Game(players=3, seed=1)\nkeep = [g, Game(players=2, seed=2)]\nprint('ok')"
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0 and proc.stdout.strip() == "ok", proc.stderr[-2000:]
