"""Paired comparisons (common random numbers), precision targets and sweep files.

Statistical checks use fixed seeds; the CRN variance-ratio bound is derived from the measured
ratio (about 0.45 for official vs official+stacking, 4 random players) and its sampling error at
the game counts used here (well under 0.05), so the bound 0.75 fails only if pairing stops working.
"""

from __future__ import annotations

import json
import math

import numpy as np
import pandas as pd
import pytest
from click.testing import CliRunner

from unosim import simulate
from unosim.analysis.paired import (
    independent_se,
    is_binary_metric,
    matched_proportions_interval,
    metric_values,
    paired_difference,
    variance_ratio,
)
from unosim.analysis.stats import z_value
from unosim.cli import main
from unosim.lab.experiments import (
    ExperimentError,
    arm_records,
    compare,
    metric_names,
    next_games,
    parse_arm,
    parse_sweep,
    run_sweep,
)
from unosim.results.store import list_cells


def test_identical_arms_give_exactly_zero(tmp_path):
    df = compare(["official+stacking", "official+stacking"], players=3, games=2000, seed=5, store=tmp_path, policies="random")
    second = df[df["arm"] == df["arm"].iloc[-1]]
    assert len(second) == len(metric_names("round", 3))
    assert (second["diff"] == 0.0).all()
    binary = second["metric"].map(is_binary_metric) & (second["metric"] != "capped")
    assert binary.sum() == 3  # three seats' wins (no round was capped: that share never varied, it stays 0)
    counts = second[~binary]
    assert (counts["diff_se"] == 0.0).all() and (counts["diff_lo"] == 0.0).all() and (counts["diff_hi"] == 0.0).all()
    # a 0/1 metric's matched-proportions interval keeps the width of half a game in each cell: +-z / (n + 2)
    wins = second[binary]
    assert np.allclose(wins["diff_se"], 1 / 2002) and np.allclose(wins["diff_hi"], z_value() / 2002)
    assert np.allclose(wins["diff_lo"], -wins["diff_hi"])
    assert len(list_cells(tmp_path)) == 1  # the same cell, stored once


def test_matched_proportions_interval_by_hand():
    # 10 games: 2 won only in arm a (f), 5 only in arm b (g), 3 in both: half a game added to each cell
    a = np.array([1, 1, 0, 0, 0, 0, 0, 1, 1, 1], float)
    b = np.array([0, 0, 1, 1, 1, 1, 1, 1, 1, 1], float)
    iv = matched_proportions_interval(a, b)
    se = math.sqrt(2 + 5 + 1 - 3 ** 2 / 12) / 12
    assert iv["se"] == pytest.approx(se)
    assert (iv["ci_lo"], iv["ci_hi"]) == pytest.approx((3 / 12 - z_value() * se, 3 / 12 + z_value() * se))


def test_a_win_rate_difference_no_game_changed_keeps_an_interval():
    """Two arms whose 40 games all end with the same winners (a rule that rarely matters): the plain normal
    interval would be the single point 0; the matched-proportions one is about +-z / 42 wide."""
    a = simulate(games=40, seed=3, policies="greedy").records
    d = paired_difference(a, a.copy(), "seat0_win")
    assert d["diff"] == 0.0 and d["ci_lo"] < 0.0 < d["ci_hi"]
    assert d["half_width"] == pytest.approx(z_value() / 42)
    assert paired_difference(a, a.copy(), "turns")["half_width"] == 0.0  # a length keeps the plain interval


def test_matched_proportions_interval_covers_where_few_games_change():
    """2,000 replicates of 500 paired games in which 0.2% change to a loss and 0.4% to a win (true difference
    +0.2 points, about 3 games changed a replicate): the plain normal interval covers the truth in about 86%
    of them, the matched-proportions one in at least 94% (95% nominal; seed fixed)."""
    rng = np.random.default_rng(7)
    covered_plain = covered = 0
    for _ in range(2000):
        u = rng.random(500)
        a = ((u < 0.002) | (u > 0.7)).astype(float)
        b = (((u >= 0.002) & (u < 0.006)) | (u > 0.7)).astype(float)
        d = b - a
        half = z_value() * d.std(ddof=1) / math.sqrt(500)
        covered_plain += abs(d.mean() - 0.002) <= half
        iv = matched_proportions_interval(a, b)
        covered += iv["ci_lo"] <= 0.002 <= iv["ci_hi"]
    assert covered / 2000 >= 0.94
    assert covered_plain / 2000 < 0.9


def test_paired_difference_matches_on_the_game_column():
    a = simulate(games=3000, seed=2, policies="random").records
    b = simulate(rules="official+stacking", games=3000, seed=2, policies="random").records
    ref = paired_difference(a, b, "turns")
    shuffled = b.sample(frac=1.0, random_state=0)
    assert paired_difference(a, shuffled, "turns")["diff"] == pytest.approx(ref["diff"], abs=1e-12)
    part = paired_difference(a, b.iloc[1000:], "turns")
    assert part["n"] == 2000
    assert part["diff"] == pytest.approx(float((b["turns"] - a["turns"]).iloc[1000:].mean()))
    assert ref["mean_b"] - ref["mean_a"] == pytest.approx(ref["diff"])
    assert ref["ci_lo"] < ref["diff"] < ref["ci_hi"]


@pytest.mark.parametrize("metric", ["turns", "seat0_win"])
def test_common_random_numbers_reduce_the_variance_of_a_difference(metric):
    n = 6000
    a = simulate(games=n, seed=17, policies="random").records
    b_paired = simulate(rules="official+stacking", games=n, seed=17, policies="random").records
    b_indep = simulate(rules="official+stacking", games=n, seed=18, policies="random").records
    ratio = variance_ratio(a, b_paired, metric)
    assert 0.0 < ratio < 0.75
    # against truly independent seeds: the paired per-game difference varies far less
    d_paired = metric_values(b_paired, metric) - metric_values(a, metric)
    d_indep = metric_values(b_indep, metric) - metric_values(a, metric)
    assert d_paired.var() / d_indep.var() < 0.75
    # and the paired standard error is below what independent seeds would give
    assert paired_difference(a, b_paired, metric)["se"] < 0.87 * independent_se(a, b_paired, metric)


def test_compare_table_and_records(tmp_path):
    df = compare(["official", "official+stacking", "policies:greedy; label:greedy"], players=4, games=3000,
                 seed=3, store=tmp_path, policies="random")
    assert df["arm"].unique().tolist() == ["official", "official+stacking", "greedy"]
    recs = arm_records(df)
    row = df[(df["arm"] == "official+stacking") & (df["metric"] == "turns")].iloc[0]
    d = paired_difference(recs["official"], recs["official+stacking"], "turns")
    assert row["diff"] == pytest.approx(d["diff"]) and row["diff_se"] == pytest.approx(d["se"])
    assert row["mean"] == pytest.approx(recs["official+stacking"]["turns"].mean())
    assert row["mean"] == pytest.approx(simulate(rules="official+stacking", games=3000, seed=3, policies="random").summary["mean_turns"])
    first = df[df["arm"] == "official"]
    assert (first["diff"] == 0).all()
    assert df.attrs["games"] == 3000 and len(df.attrs["arms"]) == 3


def test_arms_with_different_decks_share_only_the_seed(tmp_path):
    df = compare(["official", "deck:classic(copies=2); label:double"], players=4, games=2000, seed=1, store=tmp_path, policies="random")
    recs = arm_records(df)
    assert variance_ratio(recs["official"], recs["double"], "turns") > 0.8  # unrelated deals: ~1


def test_precision_target_stops_when_reached_and_at_the_cap(tmp_path):
    df = compare(["official", "official+stacking"], games=2000, seed=9, precision=0.01, max_games=400_000,
                 store=tmp_path, chunk=2000, policies="random")
    a = df.attrs
    assert a["reached"] and a["half_width"] <= 0.01 and 2000 < a["games"] < 400_000
    row = df[(df["arm"] == "official+stacking") & (df["metric"] == "seat0_win")].iloc[0]
    assert row["diff_half_width"] == pytest.approx(a["half_width"]) and row["n"] == a["games"]
    assert set(list_cells(tmp_path)["games"]) == {a["games"]}
    capped = compare(["official", "official+stacking"], games=2000, seed=9, precision=1e-6, max_games=5000,
                     store=tmp_path, policies="random")
    assert capped.attrs["games"] == 5000 and capped.attrs["reached"] is False


def test_next_games_estimate():
    assert next_games(10_000, 0.02, 0.01, 10**9, 1000) == 42_000  # 4x, +5%, on the grid
    assert next_games(10_000, 0.0101, 0.01, 10**9, 1000) == 11_000  # at least one more step
    assert next_games(10_000, 0.1, 0.01, 50_000, 1000) == 50_000
    assert next_games(10_000, math.nan, 0.01, 10**9, 1000) == 20_000


def test_parse_arm():
    assert parse_arm("official+stacking(stack_wd4=false)").rules == "official+stacking(stack_wd4=false)"
    arm = parse_arm("rules:official+jump_in; deck:flip; policies:greedy; label:Flip greedy")
    assert (arm.rules, arm.deck, arm.policies, arm.label) == ("official+jump_in", "flip", "greedy", "Flip greedy")
    with pytest.raises(ExperimentError, match="unknown arm key 'dek'.*'deck'"):
        parse_arm("dek:flip")
    with pytest.raises(ExperimentError, match="'label:' has no value; accepted: label:VALUE"):
        parse_arm("official; label:")  # not an arm named "official; label:"


# ---- sweeps -------------------------------------------------------------------------------------------

SWEEP = """name = "tiny"
games = 1500
seed = 4
metric = "turns"

[grid]
players = "2..3"
rules = ["official", "official+stacking"]
policies = "random"
"""


def test_sweep_runs_the_grid_and_reuses_the_store(tmp_path):
    f = tmp_path / "exp.toml"
    f.write_text(SWEEP)
    dry = run_sweep(f, dry_run=True, store=tmp_path / "store")
    assert len(dry) == 4 and (dry["stored"] == 0).all() and (dry["est_turns"] > 1500 * 20).all()
    assert not (tmp_path / "store").exists()  # a dry run writes nothing
    df = run_sweep(f, store=tmp_path / "store")
    assert df[["players", "rules"]].values.tolist() == [[2, "official"], [2, "official+stacking"],
                                                        [3, "official"], [3, "official+stacking"]]
    one = simulate(players=3, rules="official+stacking", games=1500, seed=4, policies="random").summary
    row = df.iloc[3]
    assert row["turns"] == pytest.approx(one["mean_turns"]) and row["seat0_win"] == pytest.approx(one["seat_win_rate"][0])
    assert np.isnan(df.iloc[0]["seat2_win"]) and not np.isnan(df.iloc[2]["seat2_win"])  # no seat 2 with 2 players
    # paired with the first rules value at the same player count
    assert (df["baseline"] == "official").all() and (df.loc[df["rules"] == "official", "turns_diff"] == 0).all()
    a = simulate(players=3, games=1500, seed=4, policies="random").records
    b = simulate(players=3, rules="official+stacking", games=1500, seed=4, policies="random").records
    d = paired_difference(a, b, "turns")
    assert (row["turns_diff"], row["turns_diff_lo"]) == pytest.approx((d["diff"], d["ci_lo"]))
    dry2 = run_sweep(f, dry_run=True, store=tmp_path / "store")
    assert (dry2["stored"] == 1500).all() and (dry2["est_seconds"] == 0).all()


def test_sweep_cells_are_identical_whatever_the_chunk_size(tmp_path):
    from unosim.results.store import make_cell, read_cell

    grid = {"name": "chunks", "games": 1500, "seed": 6,
            "grid": {"players": [2, 3], "rules": ["official", "official+stacking"], "policies": ["random"]}}
    runs = {chunk: run_sweep({**grid, **({"chunk": chunk} if chunk else {})}, store=tmp_path / f"s{chunk}", threads=2)
            for chunk in (None, 1500, 97)}  # one chunk per cell (in memory), the same given, 16 uneven ones
    again = run_sweep(grid, store=tmp_path / "s97", threads=1)  # every cell read back from the store
    cols = [c for c in runs[None].columns if c not in ("seconds",)]
    for df in (*runs.values(), again):
        pd.testing.assert_frame_equal(df[cols], runs[None][cols])
    for players, rules in ((2, "official"), (3, "official+stacking")):
        cell = make_cell(rules=rules, players=players, policies="random", seed=6)
        recs = [read_cell(cell, None, tmp_path / f"s{chunk}") for chunk in runs]
        assert len(recs[0]) == 1500 and all(r.equals(recs[0]) for r in recs[1:])
        assert recs[0].equals(simulate(rules=rules, players=players, policies="random", games=1500, seed=6).records)


def test_sweep_pairs_the_cells_it_holds_as_it_would_read_them_back(tmp_path, monkeypatch):
    """The records a sweep just computed pair with the baseline as the stored ones do, also where the store
    holds more games of the baseline than the sweep ran; a sweep computed in full reads nothing back."""
    from unosim.lab import experiments
    from unosim.results import store as store_mod

    grid = {"name": "held", "games": 1200, "seed": 5,
            "grid": {"players": [2, 3], "rules": ["official", "official+stacking", "seven_zero"], "policies": ["random"]}}
    reads = []
    real_read = store_mod.read_cell
    monkeypatch.setattr(store_mod, "read_cell", lambda *a, **k: reads.append(a) or real_read(*a, **k))
    held = run_sweep(grid, store=tmp_path / "a")
    assert reads == []  # every cell computed now: paired from memory
    monkeypatch.setattr(experiments, "fits_in_memory", lambda nbytes, share: False)
    read = run_sweep(grid, store=tmp_path / "b")
    assert len(reads) >= 6  # the baselines and the other cells read back
    cols = [c for c in held.columns if c != "seconds"]
    pd.testing.assert_frame_equal(held[cols], read[cols])
    monkeypatch.undo()
    longer = {**grid, "games": 1500, "grid": {**grid["grid"], "rules": ["official"]}}
    for d in ("c", "d"):
        run_sweep(longer, store=tmp_path / d)  # the baselines hold 1,500 games, the sweep pairs 1,200
    held = run_sweep(grid, store=tmp_path / "c")
    monkeypatch.setattr(experiments, "fits_in_memory", lambda nbytes, share: False)
    read = run_sweep(grid, store=tmp_path / "d")
    pd.testing.assert_frame_equal(held[cols], read[cols])
    assert (held["turns_diff"] != 0).any()


def test_sweep_cli_out_and_json(tmp_path):
    f = tmp_path / "exp.toml"
    f.write_text(SWEEP.replace('"2..3"', "[2]").replace("games = 1500", "games = 800"))
    r = CliRunner().invoke(main, ["sweep", str(f), "--store", str(tmp_path / "s"), "--out", str(tmp_path / "o"),
                                  "--json"])
    assert r.exit_code == 0, r.output
    out = json.loads(r.output)
    assert len(out["rows"]) == 2 and out["attrs"]["name"] == "tiny"
    cells = sorted((tmp_path / "o" / "cells").iterdir())
    assert len(cells) == 2 and all(len(pd.read_parquet(c / "records.parquet")) == 800 for c in cells)
    r = CliRunner().invoke(main, ["sweep", str(f), "--dry-run", "--store", str(tmp_path / "s")])
    assert r.exit_code == 0 and "2 cells" in r.output and "pilot" in r.output, r.output


BAD_FILES = [
    ("games = 10\n[grid\nplayers = 3\n", 2, "malformed TOML"),
    ("games = 10\nplayer = 3\n", 2, "unknown key 'player'"),
    ("games = 10\n[grid]\nplayer = 3\n", 3, "did you mean 'players'"),
    ("[grid]\nplayers = 11\n", 2, "players=11"),
    ("[grid]\nplayers = \"2..x\"\n", 2, "not a range"),
    ("[grid]\nrules = [\"official\", \"bogus_rule\"]\n", 2, "bogus_rule"),
    ("[grid]\nplayers = 3\npolicies = \"random,greedy\"\n", 3, "2 policies"),
    ("[grid]\ndecks = \"nodeck\"\n", 2, "nodeck"),
    ("\n[grid]\nmode = \"tournament\"\n", 3, "tournament"),
    ("games = -5\n", 1, "games=-5"),
    ("games = \"many\"\n", 1, "games='many'"),
    ("precision = 0\n", 1, "precision=0"),
    ("metric = \"seat7_win\"\n[grid]\nplayers = 4\n", 1, "seat7_win"),
    ("[grid]\nmode = \"match\"\n[match]\ntarget = 0\n", 3, "target=0"),
    ("[match]\ntargets = 100\n", 2, "'targets'"),
]


@pytest.mark.parametrize("text,line,needle", BAD_FILES)
def test_malformed_experiment_files_one_line_error_exit_2(text, line, needle, tmp_path, cli_error):
    f = tmp_path / "bad.toml"
    f.write_text(text)
    with pytest.raises(ExperimentError) as ei:
        parse_sweep(f)
    msg = str(ei.value)
    assert "\n" not in msg and f"line {line}:" in msg and needle in msg, msg
    assert f"line {line}:" in cli_error(["sweep", str(f), "--dry-run"])


@pytest.mark.parametrize("args,needle", [
    (["compare", "--policies", "random", "--arm", "dek:flip"], "'dek'"),
    (["compare", "--policies", "random", "--arm", "official", "--arm", "bogus_rule", "--games", "10"], "bogus_rule"),
    (["compare", "--policies", "random", "--arm", "official", "--metric", "seat9_win", "--games", "10"], "seat9_win"),
    (["compare", "--policies", "random", "--arm", "official", "--precision", "abc"], "abc"),
    (["compare", "--policies", "random", "--arm", "official", "--precision", "-1", "--games", "10"], "precision=-1"),
    (["compare", "--policies", "random", "--arm", "official", "--players", "11"], "players=11"),
    (["compare", "--policies", "random", "--arm", "official", "--target", "100"], "--target"),
    (["compare"], "--arm"),
    (["compare", "--policies", "random", "--arm", "official", "--max-games", "100", "--games", "10"], "max_games=100"),
    (["compare", "--policies", "random", "--arm", "official", "--games", "0"], "games=0"),
    (["sweep", "{tmp}/missing.toml"], "missing.toml"),
])
def test_bad_input_to_compare_and_sweep_exit_2(args, needle, tmp_path, cli_error):
    args = [a.replace("{tmp}", str(tmp_path)) for a in args]
    store = ["--store", str(tmp_path / "s")] if args[0] == "compare" else []
    assert needle in cli_error([*args, *store])


def test_compare_cli_json_and_out(tmp_path):
    r = CliRunner().invoke(main, ["compare", "--policies", "random", "--arm", "official", "--arm", "official+seven_zero", "--games", "1500",
                                  "--players", "3", "--store", str(tmp_path / "s"), "--out", str(tmp_path / "o"),
                                  "--json"])
    assert r.exit_code == 0, r.output
    out = json.loads(r.output)
    assert out["attrs"]["games"] == 1500 and {row["arm"] for row in out["rows"]} == {"official", "official+seven_zero"}
    assert (tmp_path / "o" / "compare.csv").is_file() and (tmp_path / "o" / "compare.json").is_file()
    runs = sorted((tmp_path / "o" / "arms").iterdir())
    assert [p.name for p in runs] == ["official", "official_seven_zero"]
    meta = json.loads((runs[1] / "meta.json").read_text())
    assert meta["rules"] == "official+seven_zero" and meta["games"] == 1500 and meta["cell"]["seed"] == 0
    r = CliRunner().invoke(main, ["compare", "--policies", "random", "--arm", "official", "--arm", "official+seven_zero", "--games", "1500",
                                  "--players", "3", "--store", str(tmp_path / "s")])
    assert r.exit_code == 0 and "difference" in r.output and "var ratio" in r.output, r.output
