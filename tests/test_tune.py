"""Tuning (unosim.lab.tune): parameters from the registry, common deals per generation, a real
improvement out of sample, files and CLI errors."""

from __future__ import annotations

import json
from dataclasses import replace

import numpy as np
import pytest
from click.testing import CliRunner

from unosim.cli import main
from unosim.lab import tune as tune_mod
from unosim.lab.tune import Param, policy_string, tunable_params, tunable_policies, tune
from unosim.players.policies import POLICIES, PolicyError, parse_policies, parse_policy

PNG = b"\x89PNG\r\n\x1a\n"


def test_parameters_come_from_the_registry(monkeypatch):
    # every nameable policy with numeric parameters: the built-ins and the heuristics (weighted included)
    assert tunable_policies()[:2] == ["random", "greedy"]
    assert "weighted" in tunable_policies() and "color_majority" not in tunable_policies()
    assert set(p.name for p in tunable_params("weighted")) == set(POLICIES["weighted"].params)
    assert tunable_params("greedy") == [Param("bluff", 0.0, 1.0), Param("challenge", 0.0, 1.0)]
    # a policy registered with its own ranges and defaults is tuned within them
    info = replace(POLICIES["greedy"], ranges={"bluff": (0.0, 0.5)}, defaults={"challenge": 0.25})
    monkeypatch.setitem(POLICIES, "greedy", info)
    params = tunable_params("greedy")
    assert params == [Param("bluff", 0.0, 0.5), Param("challenge", 0.0, 1.0)]
    assert policy_string("greedy", params, np.array([0.9, 0.123456])) == "greedy(bluff=0.5,challenge=0.123)"
    with pytest.raises(PolicyError, match=r"bluff=0.7 of 'greedy' is out of range; accepted: \[0, 0.5\]"):
        parse_policy("greedy(bluff=0.7)")
    _, _, x0 = tune_mod._start("greedy(bluff=0.1)")
    assert x0.tolist() == [0.1, 0.25]


def test_candidates_share_deals_within_a_generation(monkeypatch):
    # a known smooth objective instead of games: checks the CMA-ES wiring, the budget and the seeds
    calls = []

    def fake_one(candidate, games, seed):
        p = dict(parse_policy(candidate).params)
        calls.append((candidate, seed, games))
        rate = 1 - 0.5 * ((p["bluff"] - 0.2) ** 2 + (p["challenge"] - 0.7) ** 2)
        return np.r_[np.ones(int(round(rate * games))), np.zeros(games - int(round(rate * games)))]

    def fake(candidates, field_, games, seed, rules, deck, threads, be=None, store=None):
        return [fake_one(c, games, seed) for c in candidates]

    monkeypatch.setattr(tune_mod, "win_indicators", fake)
    t = tune("greedy(bluff=1,challenge=0)", players=4, budget=6 * 400 * 25, popsize=6, games_per_eval=400,
             eval_games=400, seed=3)
    train = calls[:-2]
    assert len(train) == 6 * 25 and t.meta["games_used"] == 6 * 400 * 25 == t.meta["budget"]
    seeds = [s for _, s, _ in train]
    per_gen = [set(seeds[k:k + 6]) for k in range(0, len(seeds), 6)]
    assert all(len(s) == 1 for s in per_gen)                  # one seed (same deals) per generation
    assert len({s.pop() for s in per_gen}) == 25               # fresh deals every generation
    eval_seeds = {s for _, s, _ in calls[-2:]}
    assert len(eval_seeds) == 1 and not eval_seeds & set(seeds)  # out of sample: a seed never trained on
    assert [c for c, _, _ in calls[-2:]] == [t.tuned, t.start]
    assert t.params["bluff"] == pytest.approx(0.2, abs=0.08)
    assert t.params["challenge"] == pytest.approx(0.7, abs=0.08)
    assert list(t.history["generation"]) == list(range(25))


def test_a_one_parameter_policy_is_tuned(monkeypatch):
    # cma does not support 1-D problems: the search gets a dummy second coordinate that no candidate reads
    import warnings

    import cma

    starts = []
    real = cma.CMAEvolutionStrategy

    def spy(x0, sigma0, opts):
        starts.append(list(x0))
        return real(x0, sigma0, opts)

    def fake(candidates, field_, games, seed, rules, deck, threads, be=None, store=None):
        out = []
        for c in candidates:
            rate = 1 - 2 * (dict(parse_policy(c).params)["threshold"] - 0.3) ** 2
            out.append(np.r_[np.ones(int(round(rate * games))), np.zeros(games - int(round(rate * games)))])
        return out

    monkeypatch.setattr(cma, "CMAEvolutionStrategy", spy)
    monkeypatch.setattr(tune_mod, "win_indicators", fake)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # cma warns that 1-D "may bail or work poorly"
        t = tune("challenger(threshold=0.9)", players=2, budget=4 * 400 * 20, popsize=4, games_per_eval=400,
                 eval_games=400, seed=2)
    assert len(starts) == 1 and len(starts[0]) == 2 and starts[0][0] == pytest.approx(0.9)
    assert list(t.params) == ["threshold"] and t.params["threshold"] == pytest.approx(0.3, abs=0.08)
    assert t.tuned == f"challenger(threshold={t.params['threshold']:g})"
    assert list(t.history.columns[-1:]) == ["mean_threshold"]


def test_tuning_improves_on_a_bad_start(tmp_path):
    # bluffing every Wild Draw Four into a field that challenges half of them, and challenging
    # every (always legal) Wild Draw Four of a field that never bluffs, are both clearly bad
    t = tune("greedy(bluff=1,challenge=1)", players=4, budget=12_000, against="greedy(challenge=0.5)",
             seed=1, eval_games=4000, threads=1, store=tmp_path / "one")
    ev = t.evaluation
    assert t.start == "greedy(bluff=1,challenge=1)"
    assert ev["improvement"]["mean"] > 2 * ev["improvement"]["se"] > 0
    assert ev["tuned"]["rate"] > ev["start"]["rate"]
    assert t.params["bluff"] < 1 and t.params["challenge"] < 1
    assert [str(s) for s in parse_policies(t.tuned, 1)] == [t.tuned]   # a form --policies accepts
    again = tune("greedy(bluff=1,challenge=1)", players=4, budget=12_000, against="greedy(challenge=0.5)",
                 seed=1, eval_games=4000, threads=2, store=tmp_path / "two")
    assert again.tuned == t.tuned and again.evaluation == ev           # same seed, same answer


def test_cli_tune_writes_the_tuned_policy(tmp_path):
    out = tmp_path / "tune"
    res = CliRunner().invoke(main, ["tune", "--policy", "random(bluff=1)", "--players", "3", "--budget", "1800",
                                    "--popsize", "4", "--games-per-eval", "150", "--eval-games", "300",
                                    "--threads", "1", "--out", str(out), "--json"])
    assert res.exit_code == 0, res.output
    obj = json.loads(res.stdout)
    assert obj["meta"]["generations"] == 3 and len(obj["history"]) == 3
    tuned = (out / "tuned_policy.txt").read_text().strip()
    assert tuned == obj["tuned"] and tuned.startswith("random(")
    assert parse_policies(f"{tuned},greedy,greedy", 3)[0] == parse_policy(tuned)
    saved = json.loads((out / "tune.json").read_text())
    assert saved["evaluation"]["tuned"]["rate"] == obj["evaluation"]["tuned"]["rate"]
    assert (out / "tune_convergence.png").read_bytes()[:8] == PNG
    assert (out / "history.csv").read_text().startswith("generation,games,seed")


BAD = [
    (["tune", "--policy", "bogus"], "bogus"),
    (["tune", "--policy", "random,greedy"], "random,greedy"),
    (["tune", "--policy", "greedy", "--budget", "0", "--out", "{tmp}/never"], "budget=0"),
    (["tune", "--policy", "greedy", "--budget", "-5"], "budget=-5"),
    (["tune", "--policy", "greedy", "--budget", "abc"], "abc"),
    (["tune", "--policy", "greedy", "--budget", "10"], "budget=10"),
    (["tune", "--policy", "greedy", "--players", "1"], "players=1"),
    (["tune", "--policy", "greedy", "--players", "11"], "players=11"),
    (["tune", "--policy", "greedy", "--against", "random,greedy"], "2 policies"),
    (["tune", "--policy", "greedy", "--against", "bogus"], "bogus"),
    (["tune", "--policy", "greedy(bluff=2)"], "bluff=2"),
    (["tune", "--policy", "greedy", "--popsize", "1"], "popsize=1"),
    (["tune", "--policy", "greedy", "--sigma", "0"], "sigma0=0"),
    (["tune", "--policy", "greedy", "--sigma", "big"], "big"),
    (["tune", "--policy", "greedy", "--rules", "bogus_rule", "--budget", "100000", "--out", "{tmp}/never"],
     "bogus_rule"),
    (["tune", "--policy", "greedy", "--eval-games", "0"], "eval_games=0"),
    (["tune", "--policy", "greedy", "--games-per-eval", "0"], "games_per_eval=0"),
    (["tune", "--policy", "greedy", "--seed", "-1"], "seed=-1"),
]


@pytest.mark.parametrize("args,needle", BAD)
def test_bad_input_one_line_exit_2(args, needle, tmp_path, cli_error):
    assert needle in cli_error([a.replace("{tmp}", str(tmp_path)) for a in args])
    assert not (tmp_path / "never").exists()  # no output folder for a refused command
