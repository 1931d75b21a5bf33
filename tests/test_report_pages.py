"""Reports from real (small) runs: the HTML and Markdown pages, PNG + SVG charts, captions, the
``tables`` API, paired rule effects, sweeps over players (rounds and matches), reproduce commands,
``unosim report`` on folders, and the studies in ``scripts/`` end to end at a tiny size."""

from __future__ import annotations

import shlex
import subprocess
import sys
from pathlib import Path

import matplotlib.image as mpimg
import numpy as np
import pandas as pd
import pytest
from click.testing import CliRunner

from unosim import simulate
from unosim.analysis.stats import z_value
from unosim.cli import main as cli_main
from unosim.lab.studies import STUDIES, house_rule_arms, run_study
from unosim.lab.studies import main as study_main
from unosim.reports.pages import inline_html
from unosim.reports.report import caption_text, make_report, reproduce_command, tables
from unosim.results.io import find_runs, load_run, save_run

ROOT = Path(__file__).resolve().parents[1]
PNG = b"\x89PNG\r\n\x1a\n"
GAMES = 3000


def arm(rules: str, players: int = 4, seed: int = 5, **kw):
    r = simulate(rules=rules, players=players, games=GAMES, seed=seed, threads=1, **{"policies": "random", **kw})
    return (rules if players == 4 else f"{rules} {players}p", r.records, r.meta)


@pytest.fixture(scope="module")
def two_arms():
    return [arm("official"), arm("official+stacking")]


def figures_in(files: dict[str, Path]) -> list[str]:
    return sorted(n for n in files if n.endswith(".png"))


def test_report_from_a_small_run_has_its_files(two_arms, tmp_path: Path) -> None:
    files = make_report(two_arms, tmp_path, title="Stacking vs official")
    pngs = figures_in(files)
    assert {"seat_win_rate.png", "game_length.png", "winner_points.png", "rule_effects.png"} <= set(pngs)
    for name in ("report.html", "summary.md", "summary.csv", "effects.csv"):
        assert files[name].is_file() and files[name].stat().st_size > 0
    for name in pngs:
        png, svg = files[name], files[name.replace(".png", ".svg")]
        assert png.read_bytes()[:8] == PNG
        assert "<svg" in svg.read_text()[:2000]
        h, w = mpimg.imread(png).shape[:2]
        assert w >= 8 * 200 and h >= 3 * 200  # 8-inch-wide figures at >= 200 dpi

    html = files["report.html"].read_text()
    md = files["summary.md"].read_text()
    caption = caption_text([(m, len(rec)) for _, rec, m in two_arms])
    for word in ("official+stacking", "deck classic", "random (every seat)", f"{GAMES:,} rounds", "seed 5"):
        assert word in caption
    assert caption in md
    assert inline_html(caption) in html
    assert html.count("<figcaption>") == len(pngs)
    assert html.count('src="data:image/png;base64,') == len(pngs)  # self-contained
    assert "<table" in html and "Stacking vs official" in html
    for name in pngs:
        assert f"]({name})" in md and name.replace(".png", ".svg") in html


def test_tables_api_returns_the_report_numbers(two_arms) -> None:
    t = tables(two_arms)
    assert {"summary", "seats", "policies", "effects"} <= set(t)
    assert all(isinstance(v, pd.DataFrame) for v in t.values())
    assert "players" not in t  # one player count: no sweep lines
    s = t["summary"].set_index("label")
    for label, rec, _ in two_arms:
        assert s.loc[label, "mean_turns"] == pytest.approx(rec["turns"].mean())
        assert s.loc[label, "deck"] == "classic" and s.loc[label, "seating"] == "fixed"
    seats = t["seats"]
    assert len(seats) == 8 and set(seats["label"]) == {"official", "official+stacking"}
    eff = t["effects"].set_index("metric")
    (_, a, _), (_, b, _) = two_arms
    assert eff.loc["turns", "diff"] == pytest.approx(b["turns"].mean() - a["turns"].mean(), abs=1e-12)
    edge = (b["winner"] == 0).mean() - (a["winner"] == 0).mean()
    assert eff.loc["first_player_edge", "diff"] == pytest.approx(edge, abs=1e-12)
    d = b["turns"].to_numpy(float) - a["turns"].to_numpy(float)
    assert eff.loc["turns", "se"] == pytest.approx(d.std(ddof=1) / np.sqrt(GAMES))
    half = eff.loc["turns", "ci_hi"] - eff.loc["turns", "diff"]
    assert half == pytest.approx(z_value() * eff.loc["turns", "se"])
    assert bool(eff.loc["turns", "common_seed"]) and eff.loc["turns", "n"] == GAMES


def test_identical_arms_have_exactly_zero_effect(two_arms) -> None:
    label, rec, meta = two_arms[0]
    eff = tables([(label, rec, meta), (label, rec.copy(), dict(meta))])["effects"]
    assert list(eff["label"]) == [f"{label} (2)"] * 2  # repeated labels are made distinct
    assert (eff["diff"] == 0).all()
    turns, edge = eff.set_index("metric").loc["turns"], eff.set_index("metric").loc["first_player_edge"]
    assert turns["se"] == 0 and turns["ci_lo"] == turns["ci_hi"] == 0
    # the first player's edge is a 0/1 metric: its matched-proportions interval keeps half a game a cell
    assert edge["se"] == pytest.approx(1 / (edge["n"] + 2)) and edge["ci_lo"] == pytest.approx(-edge["ci_hi"])


def test_sweep_over_players_draws_lines(tmp_path: Path) -> None:
    runs = [arm("official", players=n) for n in (2, 3, 5)]
    t = tables(runs)
    assert "effects" not in t  # no two runs share a player count
    p = t["players"]
    assert list(p["players"]) == [2, 3, 5]
    for row, (_, rec, _) in zip(p.itertuples(), runs, strict=True):
        assert row.first_player_edge == pytest.approx((rec["winner"] == 0).mean() - 1 / row.players)
        assert row.edge_ci_lo < row.first_player_edge < row.edge_ci_hi
    files = make_report(runs, tmp_path)
    for name in ("first_player_edge_by_players", "turns_by_players"):
        assert files[f"{name}.png"].is_file() and files[f"{name}.svg"].is_file()
    assert "By number of players" in files["report.html"].read_text()


def test_match_runs_get_rounds_per_match_and_match_win_lines(tmp_path: Path) -> None:
    runs = []
    for n in (2, 3):
        r = simulate(mode="match", players=n, games=60, seed=2, target=150, threads=1, policies="random")
        runs.append((f"{n} players", r.records, r.meta))
    m = tables(runs)["matches"]
    assert list(m["players"]) == [2, 3]
    assert m.loc[0, "mean_rounds"] == pytest.approx(runs[0][1]["rounds"].mean())
    files = make_report(runs, tmp_path)
    assert {"rounds_per_match_by_players.png", "match_win_by_players.png"} <= set(files)
    assert "seat_win_rate.png" not in files  # round charts only for round runs
    assert "--mode match --scoring standard --target 150" in files["summary.md"].read_text()


def test_reproduce_command_reproduces_the_run(tmp_path: Path) -> None:
    r = simulate(rules="official+stacking", players=3, policies="greedy(challenge=0.25),random,random",
                 games=500, seed=9, seating="rotate", threads=1)
    cmd = reproduce_command(r.meta)
    for part in ("--deck classic", "--seating rotate", "--seed 9", "--games 500", "--players 3",
                 "engine v"):
        assert part in cmd
    argv = shlex.split(cmd.split("#")[0])[1:]
    res = CliRunner().invoke(cli_main, [*argv, "--out", str(tmp_path / "again")])
    assert res.exit_code == 0, res.output
    again, meta = load_run(tmp_path / "again")
    pd.testing.assert_frame_equal(again, r.records)
    assert meta["policies"] == r.meta["policies"]


def test_cli_report_on_a_folder_of_runs(tmp_path: Path) -> None:
    for rules in ("official", "official+seven_zero"):
        r = simulate(rules=rules, games=800, seed=4, threads=1, policies="random")
        save_run(r, tmp_path / "runs" / rules.replace("+", "_"))
    assert len(find_runs(tmp_path / "runs")) == 2
    res = CliRunner().invoke(cli_main, ["report", str(tmp_path / "runs"), "--out", str(tmp_path / "rep")])
    assert res.exit_code == 0, res.output
    assert "report.html" in res.output
    assert len(pd.read_csv(tmp_path / "rep" / "summary.csv")) == 2
    assert (tmp_path / "rep" / "rule_effects.svg").is_file()


def test_cli_report_on_store_cells(tmp_path: Path) -> None:
    from unosim.results.store import load_cell, make_cell

    for rules in ("official+stacking", "official"):
        load_cell(make_cell(rules=rules, players=3, seed=6, policies="random"), 600, root=tmp_path / "store", threads=1)
    res = CliRunner().invoke(cli_main, ["report", str(tmp_path / "store"), "--out", str(tmp_path / "rep")])
    assert res.exit_code == 0, res.output
    summary = pd.read_csv(tmp_path / "rep" / "summary.csv")
    assert list(summary["label"]) == ["official", "official+stacking"]  # named by what differs, base first
    assert list(summary["games"]) == [600, 600]
    eff = pd.read_csv(tmp_path / "rep" / "effects.csv")
    assert set(eff["baseline"]) == {"official"}


def test_cli_report_on_a_sweep(tmp_path: Path) -> None:
    exp = tmp_path / "exp.toml"
    exp.write_text('games = 500\nseed = 3\n[grid]\nplayers = "2..3"\nrules = ["official", "official+stacking"]\n')
    run = CliRunner().invoke(cli_main, ["sweep", str(exp), "--store", str(tmp_path / "store"), "--out",
                                        str(tmp_path / "sweep"), "--threads", "1"])
    assert run.exit_code == 0, run.output
    res = CliRunner().invoke(cli_main, ["report", str(tmp_path / "sweep"), "--out", str(tmp_path / "rep")])
    assert res.exit_code == 0, res.output
    rep = tmp_path / "rep"
    for chart in ("seat_win_rate", "game_length", "winner_points", "rule_effects",
                  "first_player_edge_by_players", "turns_by_players"):
        assert (rep / f"{chart}.png").is_file() and (rep / f"{chart}.svg").is_file(), chart
    summary = pd.read_csv(rep / "summary.csv")
    assert list(summary["label"]) == ["2p, official", "2p, official+stacking", "3p, official",
                                      "3p, official+stacking"]  # grid order, named by what differs
    eff = pd.read_csv(rep / "effects.csv")
    assert list(dict.fromkeys(eff["baseline"])) == ["2p, official", "3p, official"]


# ---- studies ----------------------------------------------------------------------------------------


def test_house_rule_arms_cover_the_catalogue() -> None:
    from unosim.ruleset.rules import OPTIONS

    arms, skipped = house_rule_arms()
    switches = {n for n, i in OPTIONS.items() if i.category == "house" and i.is_switch and not i.default}
    assert set(arms) | set(skipped) == switches and not set(arms) & set(skipped)
    assert {"stacking", "seven_zero", "jump_in"} <= set(arms)
    assert all(reason for reason in skipped.values())
    _, flip_skipped = house_rule_arms("flip")
    assert "zero_swap_any" in flip_skipped and "0s" in flip_skipped["zero_swap_any"]  # Flip has no 0s


def test_study_runs_end_to_end(tmp_path: Path) -> None:
    cells = [("official", {"rules": "official", "players": 4, "policies": "random"}),
             ("stacking", {"rules": "official+stacking", "players": 4, "policies": "random"}),
             ("seven_zero", {"rules": "official+seven_zero", "players": 4, "policies": "random"})]
    res = run_study("house_rules", games=400, seed=3, out=tmp_path, threads=1, cells=cells,
                    store=tmp_path / "store")
    assert len(res.answer) == 2 and all("first player's edge" in line for line in res.answer)
    assert res.files["rule_effects.png"].is_file()
    html = res.files["report.html"].read_text()
    assert STUDIES["house_rules"].question in html
    # the page's answer is one sentence naming the arms with the largest cut and increase in game length
    turns = res.tables["effects"].query("metric == 'turns'").sort_values("diff")
    assert res.sentence.startswith(f"The largest cut in game length is {turns['label'].iloc[0]} (")
    assert f"the largest increase {turns['label'].iloc[-1]} (" in res.sentence and "of 2 rules" in res.sentence
    assert res.sentence in html
    assert html.index("rule_effects.svg") < html.index("seat_win_rate.svg")  # headline chart first
    assert len(find_runs(tmp_path / "runs")) == 3
    # the store path gives the records a plain run gives
    rec, _ = load_run(tmp_path / "runs" / "stacking")
    direct = simulate(rules="official+stacking", games=400, seed=3, threads=1, policies="random").records
    pd.testing.assert_frame_equal(rec, direct, check_dtype=False)


def test_study_script_command_line(tmp_path: Path) -> None:
    out = tmp_path / "fp"
    proc = subprocess.run([sys.executable, str(ROOT / "scripts" / "study_first_player.py"), "--games", "300",
                           "--seed", "2", "--out", str(out), "--threads", "1",
                           "--store", str(tmp_path / "store")],
                          capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    assert " 2 players: seat 0 wins" in proc.stdout and "10 players" in proc.stdout
    edges = pd.read_csv(out / "players.csv")
    lo = edges.loc[edges["first_player_edge"].idxmin(), "players"]
    hi = edges.loc[edges["first_player_edge"].idxmax(), "players"]
    assert "The first player's edge over a fair share runs from " in proc.stdout
    assert f"pp ({lo} players) to " in proc.stdout and f"pp ({hi} players); its 95% interval" in proc.stdout
    for name in ("report.html", "summary.md", "first_player_edge_by_players.png",
                 "first_player_edge_by_players.svg", "players.csv"):
        assert (out / name).is_file(), name
    assert len(pd.read_csv(out / "players.csv")) == 9
    assert len(list((tmp_path / "store").glob("*/cell.json"))) == 9


def test_study_bad_input_is_one_line(capsys) -> None:
    with pytest.raises(SystemExit) as e:
        study_main("flip", ["--games", "many"])
    assert e.value.code == 2
    assert study_main("flip", ["--games", "0", "--out", "/tmp/unosim-never-written"]) == 2
    assert capsys.readouterr().err.strip().splitlines()[-1].startswith("error: games=0")
    with pytest.raises(ValueError, match="accepted: first_player"):
        run_study("no_such_study")


# ---- one chart at a time: unosim plot -------------------------------------------------------------------


def test_cli_plot_writes_one_chart_at_the_size_asked(tmp_path: Path) -> None:
    for rules in ("official", "official+seven_zero"):
        save_run(simulate(rules=rules, games=800, seed=4, threads=1), tmp_path / "runs" / rules.replace("+", "_"))
    runs = str(tmp_path / "runs")
    listed = CliRunner().invoke(cli_main, ["plot", runs])
    assert listed.exit_code == 0, listed.output
    assert listed.output.split()[0] == "seat_win_rate" and "rule_effects" in listed.output
    res = CliRunner().invoke(cli_main, ["plot", runs, "-c", "rule_effects", "-o", str(tmp_path / "e.png"),
                                        "--width", "5", "--height", "3", "--dpi", "100", "--caption"])
    assert res.exit_code == 0, res.output
    assert mpimg.imread(tmp_path / "e.png").shape[:2] == (300, 500) and (tmp_path / "e.svg").is_file()
    bad = CliRunner().invoke(cli_main, ["plot", runs, "-c", "turns_by_players"])
    assert bad.exit_code == 2 and bad.output.count("\n") == 1
    assert "error: no chart 'turns_by_players' for these runs; accepted: seat_win_rate" in bad.output


def test_match_charts_count_matches() -> None:
    from unosim.reports.report import report_charts

    r = simulate(mode="match", players=3, games=40, seed=2, target=150, threads=1)
    charts = report_charts([("three", r.records, r.meta)], match_report=True)
    assert {c.name for c in charts} == {"match_win_rate_by_policy.png", "rounds_per_match.png"}
    for c in charts:
        assert "40 matches" in c.caption and " rounds." not in c.caption, c.caption
