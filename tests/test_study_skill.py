"""The skill-versus-luck study (unosim.lab.skill, scripts/study_skill.py) at tiny sizes."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from unosim import simulate
from unosim.errors import PolicyError
from unosim.lab.skill import (
    COMPONENTS,
    DEFAULT_BEST,
    edge_row,
    focal_wins,
    main,
    match_row,
    pattern_counts,
    run_skill_study,
    seat_rows,
    variance_components,
)

ROOT = Path(__file__).resolve().parents[1]
TINY = dict(games=400, matches=40, players=[2, 3], match_players=[2], variants=["official", "stacking"], seed=5,
            threads=1, store=None)


@pytest.fixture(scope="module")
def tiny(tmp_path_factory):
    out = tmp_path_factory.mktemp("skill")
    return run_skill_study(out=out, **TINY)


def _arms(best: str, players: int = 4, games: int = 4000, seed: int = 3, **kw):
    def run(pol: str) -> pd.DataFrame:
        return simulate(rules="official", players=players, policies=[pol] + ["greedy"] * (players - 1), games=games,
                        seed=seed, seating="rotate", threads=1, **kw).records
    return run("greedy"), run(best)


def test_tiny_study_writes_every_table_chart_and_page(tiny) -> None:
    t = tiny.tables
    assert list(t["edge_by_rules"]["variant"]) == ["official", "stacking"]
    assert list(t["edge_by_players"]["players"]) == [2, 3]
    assert list(t["matches"]["players"]) == [2] and int(t["matches"]["matches"].iloc[0]) == 40
    # rounds: 2 rule variants (4 players) + 2 player counts; matches: 1 (official 4p is not repeated)
    assert len(t["variance"]) == 5 and list(t["variance"]["outcome"]).count("match to 500") == 1
    # one row per seat of every round cell: (4 + 4 + 2 + 3) seats x 2 arms
    assert len(t["seats"]) == 26 and set(t["seats"]["arm"]) == {"control", "best"}
    assert (t["edge_by_rules"]["games"] == 400).all() and (t["seats"].groupby(["variant", "players", "arm"])["n"]
                                                           .sum() == 400).all()
    for name in ("report.html", "summary.md", "edge_by_rules.csv", "edge_by_players.csv", "matches.csv",
                 "variance.csv", "seats.csv"):
        assert (tiny.out / name).is_file(), name
    for chart in ("skill_edge_by_rules", "skill_edge_by_players", "skill_round_vs_match", "skill_variance"):
        assert (tiny.out / f"{chart}.png").is_file() and (tiny.out / f"{chart}.svg").is_file(), chart
    assert len(pd.read_csv(tiny.out / "variance.csv")) == 5
    html = (tiny.out / "report.html").read_text()
    assert DEFAULT_BEST in html and "Skill or luck" in html and "strategy explains" in html
    assert len(tiny.answer) == 7 and tiny.answer[0].startswith("In short") and any("match edge" in a for a in tiny.answer)
    assert len(list((tiny.out / "runs").iterdir())) == 2 * (2 + 2 + 1)
    md = (tiny.out / "summary.md").read_text()
    assert (f"python scripts/study_skill.py --best {DEFAULT_BEST} --games 400 --matches 40 --seed 5 --players 2,3 "
            "--match-players 2 # variants: official, stacking") in md  # the Reproduce section


def test_variance_shares_are_in_unit_interval_and_sum_to_one(tiny) -> None:
    v = tiny.tables["variance"]
    shares = v[[f"share_{k}" for k in COMPONENTS]].to_numpy()
    assert ((shares >= 0) & (shares <= 1)).all()
    np.testing.assert_allclose(shares.sum(axis=1), 1.0, rtol=1e-12)
    for k in COMPONENTS:
        assert (v[f"share_{k}_lo"] <= v[f"share_{k}"] + 1e-12).all() and (v[f"share_{k}"] <= v[f"share_{k}_hi"] + 1e-12).all()
    np.testing.assert_allclose(v[["ss_strategy", "ss_deal", "ss_residual"]].sum(axis=1), v["ss_total"], rtol=1e-9)


def test_variance_components_match_a_direct_two_way_anova() -> None:
    rng = np.random.default_rng(0)
    deal = rng.random(5000) < 0.3  # a deal effect shared by both columns, plus independent noise
    y = np.column_stack([deal ^ (rng.random(5000) < 0.2), deal ^ (rng.random(5000) < 0.15)]).astype(float)
    g = len(y)
    grand = y.mean()
    ss_total = ((y - grand) ** 2).sum()
    ss_strategy = g * ((y.mean(axis=0) - grand) ** 2).sum()
    ss_deal = 2 * ((y.mean(axis=1) - grand) ** 2).sum()
    resid = y - y.mean(axis=0) - y.mean(axis=1)[:, None] + grand
    ms_res = (resid ** 2).sum() / (g - 1)
    c = variance_components(pattern_counts(y[:, 0], y[:, 1]))
    np.testing.assert_allclose([c["ss_total"], c["ss_strategy"], c["ss_deal"], c["ss_residual"]],
                               [ss_total, ss_strategy, ss_deal, (resid ** 2).sum()], rtol=1e-9)
    np.testing.assert_allclose(c["var_residual"], ms_res, rtol=1e-9)
    np.testing.assert_allclose(c["var_deal"], np.cov(y[:, 0], y[:, 1])[0, 1], rtol=1e-9)  # = cov(a, b)
    assert c["share_deal"] > 0.3 and c["share_strategy"] < 0.05
    # identical outcomes in both arms: everything is deal
    same = variance_components(pattern_counts(y[:, 0], y[:, 0]))
    assert same["share_deal"] == pytest.approx(1.0) and same["share_strategy"] == 0 and same["share_residual"] == 0


def test_the_focal_entry_rotates_through_the_seats() -> None:
    control, _ = _arms("greedy", players=3, games=600)
    seat = (-control["game"].to_numpy()) % 3
    np.testing.assert_array_equal(focal_wins(control), (control["winner"].to_numpy() == seat).astype(float))
    assert [r["n"] for r in seat_rows(control, 3)] == [200, 200, 200]


def test_greedy_against_greedy_has_no_edge_and_the_best_one_has() -> None:
    control, same = _arms("greedy")
    row = edge_row(control, same, 4)
    assert row["control_edge_lo"] <= 0.0 <= row["control_edge_hi"]  # the fair baseline
    assert row["paired_edge"] == 0.0 and row["best_edge"] == row["control_edge"]  # identical arms
    control, best = _arms(DEFAULT_BEST, games=60_000)
    row = edge_row(control, best, 4)
    se = (row["paired_edge_hi"] - row["paired_edge_lo"]) / (2 * 1.959964)
    assert row["paired_edge"] > 3 * se  # the default best strategy beats the fair share clearly
    assert row["variance_ratio"] < 1  # the common deals make the paired edge more precise


def test_identical_match_arms_have_zero_paired_edges() -> None:
    control, same = _arms("greedy", players=2, games=40, mode="match", target=500, scoring="standard")
    row = match_row(control, same, 2)
    assert row["match_paired_edge"] == 0.0 and row["round_paired_edge"] == 0.0
    assert row["best_match_rate"] == row["control_match_rate"] and row["best_rounds_per_match"] > 1


@pytest.mark.parametrize("argv, expect", [
    (["--best", "nonsense"], "error: best='nonsense': unknown policy 'nonsense'; accepted: random, greedy"),
    (["--best", "greedy(speed=2)"], "error: best='greedy(speed=2)'"),
    (["--games", "0"], "error: games=0"),
    (["--matches", "-3"], "error: matches=-3"),
    (["--players", "1,4"], "error: players=1"),
])
def test_bad_input_gives_one_line_and_exit_2(argv, expect, capsys, tmp_path: Path) -> None:
    out = tmp_path / "never"
    assert main([*argv, "--out", str(out), "--no-store"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith(expect), err
    assert not out.exists()


def test_bad_best_raises_a_policy_error_before_running() -> None:
    with pytest.raises(PolicyError, match="best='hold_wilds,greedy'"):
        run_skill_study(best="hold_wilds,greedy", **TINY)


def test_the_script_runs_from_the_command_line(tmp_path: Path) -> None:
    out = tmp_path / "skill"
    proc = subprocess.run([sys.executable, str(ROOT / "scripts" / "study_skill.py"), "--games", "200", "--matches",
                           "20", "--players", "2", "--match-players", "2", "--best", "hold_wilds", "--threads", "1",
                           "--out", str(out), "--store", str(tmp_path / "store")],
                          capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    assert "`hold_wilds` against 3 greedy" in proc.stdout and "Skill vs luck, one round" in proc.stdout
    assert len(pd.read_csv(out / "edge_by_rules.csv")) == 6 and (out / "report.html").is_file()
    assert len(list((tmp_path / "store").glob("*/cell.json"))) == 2 * (6 + 1 + 1)
