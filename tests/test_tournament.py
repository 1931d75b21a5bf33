"""Tournaments (unosim.lab.tournament): line-ups, common deals, win rates that add up, ratings, files, CLI."""

from __future__ import annotations

import json
import math
from collections import Counter

import numpy as np
import pandas as pd
import pytest
from click.testing import CliRunner

from unosim import simulate
from unosim.cli import main
from unosim.lab.tournament import (
    MATCH_COLUMNS,
    TABLE_COLUMNS,
    TournamentError,
    choose_lineups,
    load_tournament,
    parse_field,
    run_tournament,
)
from unosim.results.io import load_run

PNG = b"\x89PNG\r\n\x1a\n"


def test_every_multiset_when_small_else_a_balanced_sample():
    names = ["a", "b", "c"]
    lineups, design = choose_lineups(names, 3)
    assert design == "all" and len(lineups) == math.comb(5, 3) == len(set(lineups))
    five = [f"p{i}" for i in range(5)]
    lineups, design = choose_lineups(five, 4, max_lineups=22, seed=3)
    assert design == "balanced"
    assert len(lineups) == 20  # largest count <= 22 with count * 4 a multiple of 5
    seats = Counter(p for lu in lineups for p in lu)
    assert set(seats.values()) == {20 * 4 // 5}
    assert choose_lineups(five, 4, max_lineups=22, seed=3) == (lineups, design)  # seeded
    assert len(set(lineups)) == len(lineups)                                     # no line-up twice
    six = [f"q{i}" for i in range(6)]
    lineups, design = choose_lineups(six, 4, max_lineups=100, seed=0)          # 126 multisets
    assert design == "balanced" and len(lineups) == 99 == len(set(lineups))
    assert set(Counter(p for lu in lineups for p in lu).values()) == {99 * 4 // 6}


def test_win_rates_add_up_with_capped_rounds():
    # a low turn cap makes some rounds end without a winner: they count as a loss for every seat
    t = run_tournament("random,greedy,greedy(challenge=0.5)", players=3, games=301, seed=2,
                       rules="official+set(turn_cap=25)", bootstrap=0, keep_runs=True, threads=1)
    tab, meta = t.table, t.meta
    assert list(tab.columns[: len(TABLE_COLUMNS)]) == list(TABLE_COLUMNS)
    assert meta["games_per_lineup"] == 303  # rounded up to a multiple of the players
    total = meta["games_per_lineup"] * len(t.lineups)
    assert total == meta["total_games"] and len(t.lineups) == 10
    capped = meta["capped_games"]
    assert 0 < capped < total
    assert capped == sum(int((r.records["winner"] < 0).sum()) for r in t.runs)
    assert tab["wins"].sum() == total - capped
    assert (tab["rate"] * tab["n"]).sum() == pytest.approx(total - capped)
    # every policy holds the same number of seats (games x N x L / P), so the per-seat shares sum to
    # P/N x (1 - capped share)
    n_players, n_field = 3, 3
    assert tab["n"].nunique() == 1 and tab["n"].iloc[0] == total * n_players // n_field
    assert tab["rate"].sum() * n_players / n_field == pytest.approx(1 - capped / total)
    assert ((tab["ci_lo"] <= tab["rate"]) & (tab["rate"] <= tab["ci_hi"])).all()
    # per-policy wins agree with the line-ups' own policy tables
    wins = Counter()
    for lu, r in zip(t.lineups, t.runs, strict=True):
        wp = r.records["winner_policy"].to_numpy()
        for i in wp[wp >= 0]:
            wins[lu[i]] += 1
    assert {k: int(v) for k, v in tab["wins"].items()} == dict(wins)
    by = t.by_lineup  # each line-up's own stats.policy_table
    assert by.groupby("policy")["wins"].sum().to_dict() == dict(wins)
    assert (by["n"] == by["seats"] * meta["games_per_lineup"]).all()


def test_rating_orders_random_below_greedy():
    t = run_tournament("random,greedy", players=4, games=2000, seed=11, bootstrap=60, threads=1)
    tab = t.table
    g, r = tab.loc["greedy"], tab.loc["random"]
    assert g["rating"] > r["rating"]
    assert g["rating_lo"] > r["rating_hi"]          # bootstrap intervals do not overlap
    assert g["rating"] + r["rating"] == pytest.approx(0.0, abs=1e-6)  # centred on the field
    assert g["rate"] - r["rate"] > 3 * math.hypot(g["se"], r["se"])
    assert (tab["rating_se"] > 0).all()
    assert g["mean_points"] > r["mean_points"]


def test_every_lineup_plays_the_same_deals(tmp_path):
    out = tmp_path / "t"
    t = run_tournament("random,greedy", players=3, games=90, seed=5, bootstrap=0, out_dir=out, threads=2)
    assert [lu["policies"] for lu in t.meta["lineups"]] == [list(lu) for lu in t.lineups]
    for entry in t.meta["lineups"]:
        records, meta = load_run(out / entry["dir"])
        assert meta["seed"] == 5 and meta["seating"] == "rotate" and meta["games"] == 90
        direct = simulate(players=3, policies=entry["policies"], games=90, seed=5, seating="rotate", threads=1)
        pd.testing.assert_frame_equal(records, direct.records)
    table, meta = load_tournament(out)
    assert meta["field"] == ["random", "greedy"]
    pd.testing.assert_series_equal(table["wins"].astype(np.int64), t.table["wins"], check_names=False)
    assert (out / "tournament.csv").is_file()
    lineups_csv = pd.read_csv(out / "lineups.csv")
    assert sorted(set(lineups_csv["lineup"])) == list(range(len(t.lineups)))


def test_match_mode_rates_add_up():
    t = run_tournament("random,greedy", players=4, games=24, seed=1, mode="match", bootstrap=0, threads=1)
    tab, meta = t.table, t.meta
    total = meta["total_games"]
    assert meta["mode"] == "match" and total == 24 * 5
    assert tab["wins"].sum() == total - meta["capped_games"]
    assert tab["rate"].sum() * 4 / 2 == pytest.approx(1 - meta["capped_games"] / total)
    assert set(MATCH_COLUMNS) <= set(tab.columns)
    assert ((tab["round_rate"] > 0) & (tab["round_rate"] < 1)).all()
    assert tab.loc["greedy", "mean_points"] > 0


def test_parse_field_errors():
    with pytest.raises(TournamentError, match="at least two"):
        parse_field("greedy")
    with pytest.raises(TournamentError, match="twice"):
        parse_field("greedy,greedy")
    assert parse_field("greedy(challenge=0.50),random") == ["greedy(challenge=0.5)", "random"]


def test_cli_tournament_json_files_and_report(tmp_path):
    out = tmp_path / "tour"
    args = ["tournament", "--policies", "random,greedy", "--players", "2", "--games", "200", "--seed", "4",
            "--threads", "1", "--bootstrap", "20", "--out", str(out)]
    res = CliRunner().invoke(main, [*args, "--json"])
    assert res.exit_code == 0, res.output
    obj = json.loads(res.stdout)
    assert [row["policy"] for row in obj["table"]] == ["random", "greedy"]
    api = run_tournament("random,greedy", players=2, games=200, seed=4, bootstrap=20, threads=2)
    assert [row["rate"] for row in obj["table"]] == api.table["rate"].tolist()
    assert [row["rating"] for row in obj["table"]] == pytest.approx(api.table["rating"].tolist())
    for name in ("tournament.json", "tournament.csv", "tournament.md", "tournament_win_rate.png",
                 "tournament_rating.png"):
        assert (out / name).is_file(), name
    assert (out / "tournament_rating.png").read_bytes()[:8] == PNG
    rep = CliRunner().invoke(main, ["report", str(out), "--out", str(tmp_path / "rep")])
    assert rep.exit_code == 0, rep.output
    md = (tmp_path / "rep" / "tournament.md").read_text()
    assert "`greedy`" in md and "`random`" in md and "Rating" in md
    assert (tmp_path / "rep" / "tournament_win_rate.png").read_bytes()[:8] == PNG
    text = CliRunner().invoke(main, args[:-2])
    assert text.exit_code == 0 and "rating" in text.stdout and "greedy" in text.stdout


BAD = [
    (["tournament", "--policies", "bogus,greedy", "--games", "10"], "bogus"),
    (["tournament", "--policies", "greedy", "--games", "10", "--out", "{tmp}/never"], "at least two policies"),
    (["tournament", "--policies", "greedy,greedy", "--games", "10"], "twice"),
    (["tournament", "--policies", "random,greedy", "--games", "0"], "games=0"),
    (["tournament", "--policies", "random,greedy", "--games", "abc"], "abc"),
    (["tournament", "--policies", "random,greedy", "--players", "11"], "players=11"),
    (["tournament", "--policies", "random,greedy", "--players", "1"], "players=1"),
    (["tournament", "--policies", "random,greedy", "--mode", "bogus"], "bogus"),
    (["tournament", "--policies", "random,greedy", "--max-lineups", "0"], "max_lineups=0"),
    (["tournament", "--policies", "random,greedy", "--bootstrap", "-1"], "bootstrap=-1"),
    (["tournament", "--policies", "random,greedy", "--rules", "bogus_rule", "--out", "{tmp}/never"], "bogus_rule"),
    (["tournament", "--policies", "random,greedy", "--target", "100"], "--target"),
    (["tournament", "--policies", "random,greedy(bluff=2)"], "bluff=2"),
    (["report", "{tmp}", "--out", "{tmp}/rep"], "{tmp}"),
]


@pytest.mark.parametrize("args,needle", BAD)
def test_bad_input_one_line_exit_2(args, needle, tmp_path, cli_error):
    fill = [a.replace("{tmp}", str(tmp_path)) for a in args]
    assert needle.replace("{tmp}", str(tmp_path)) in cli_error(fill)
    assert not (tmp_path / "never").exists()  # no output folder for a refused command


def test_the_bootstrap_weighs_its_resamples_in_blocks_with_the_same_ratings_as_one_at_a_time(monkeypatch):
    """fit_ratings weighs many resamples of the deals in one sparse product (as many as _BOOTSTRAP_CELLS deal
    weights allow): the ratings, errors and intervals are those of one resample at a time, drawn in the same
    order, and the resampled wins are those of a plain count."""
    import unosim.lab.tournament as T

    rng = np.random.default_rng(7)
    winner = rng.integers(-1, 4, (6, 300))
    seats = np.ones((6, 4))
    together = T.fit_ratings(winner, seats, bootstrap=40, seed=2)
    monkeypatch.setattr(T, "_BOOTSTRAP_CELLS", 1)
    one_at_a_time = T.fit_ratings(winner, seats, bootstrap=40, seed=2)
    for a, b in zip(together, one_at_a_time, strict=True):
        assert np.array_equal(a, b)
    w = rng.integers(0, 3, 300).astype(np.float64)
    plain = np.zeros((6, 4))
    for line, row in enumerate(winner):
        np.add.at(plain[line], row[row >= 0], w[row >= 0])
    assert np.array_equal(T._WinCodes(winner, 4).wins_many(w[None, :])[0], plain)
