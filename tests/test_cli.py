"""The command line: ``unosim simulate | rules | presets | report | demo``.

Successful runs go through ``click.testing.CliRunner`` on ``unosim.cli.main``.  Bad input goes
through ``unosim.cli.run`` (the console-script entry point, which turns click usage errors into one
line too) in-process, and once through the installed ``unosim`` script in a subprocess.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pandas as pd
import pytest
from click.testing import CliRunner

from unosim import ENGINE_VERSION, simulate
from unosim.cli import main

JSON_KEYS = ("games", "players", "rules", "policies", "seed", "mean_turns", "sd_turns", "seat_win_rate",
             "policy_win_rate", "mean_winner_points", "mean_cards_drawn", "capped_games", "games_per_second",
             "compile_seconds", "engine_version")
MATCH_JSON_KEYS = ("mean_rounds", "sd_rounds", "seat_match_win_rate", "policy_match_win_rate",
                   "mean_final_score_by_seat", "policy_round_win_rate")
ROUND_COLUMNS = ("game", "winner", "turns", "winner_points", "cards_drawn", "end_reason", "reshuffles")
TIMING_KEYS = {"games_per_second", "compile_seconds", "threads"}
PNG = b"\x89PNG\r\n\x1a\n"


def invoke(*args: str):
    res = CliRunner().invoke(main, list(args))
    assert res.exception is None or isinstance(res.exception, SystemExit), res.output
    assert res.exit_code == 0, res.output
    return res


def one_json(stdout: str) -> dict:
    lines = [ln for ln in stdout.splitlines() if ln.strip()]
    assert len(lines) == 1, stdout
    return json.loads(lines[0])


def same_summary(cli: dict, api: dict) -> None:
    api = json.loads(json.dumps(api))  # the CLI's JSON round trip (tuples -> lists, ...)
    assert set(cli) == set(api)
    for k in set(cli) - TIMING_KEYS:
        assert cli[k] == api[k], k


# ---- simulate (round mode) ------------------------------------------------------------------------


def test_the_summary_says_what_capped_rounds_mean():
    """A round stopped at the turn cap has no winner: the table says how many and what they count as, and when
    every round was stopped, that the rules may let no round end (every UNO call forgotten and caught: no hand goes out)."""
    some = invoke("simulate", "--rules", "official+set(turn_cap=30)", "-n", "3", "-g", "400", "-s", "1",
                  "--threads", "1").stdout
    capped = int(some.split("capped ")[1].split()[0])
    assert 0 < capped < 400
    assert f"note      {capped} of 400 rounds reached the turn cap (set(turn_cap=...)): no winner, a loss for every seat\n" in some
    never = invoke("simulate", "--rules", "official+set(uno_forget_prob=1.0)", "-n", "3", "-g", "20", "-s", "1",
                   "--threads", "1").stdout
    assert "note      20 of 20 rounds reached the turn cap" in never and "these rules may let no round end" in never
    assert "note " not in invoke("simulate", "-n", "3", "-g", "400", "-s", "1", "--threads", "1").stdout
    matches = invoke("simulate", "--mode", "match", "--rules", "official+set(turn_cap=30)", "-n", "3", "-g", "10",
                     "-s", "1", "--threads", "1", "--max-rounds", "3").stdout
    assert ("note      10 of 10 matches reached the round cap (max_rounds): no winner, a loss for every seat; raise it"
            in matches)


def test_simulate_json_agrees_with_api():
    args = dict(rules="stacking", players=3, policies="greedy,random,random", games=3000, seed=5)
    res = invoke("simulate", "--rules", "stacking", "--players", "3", "--policies", "greedy,random,random",
                 "--games", "3000", "--seed", "5", "--threads", "2", "--json")
    out = one_json(res.stdout)
    for k in JSON_KEYS:
        assert k in out, k
    assert out["games"] == 3000 and out["players"] == 3 and out["seed"] == 5
    assert out["policies"] == ["greedy", "random", "random"]
    assert out["rules"] == "official+stacking"
    assert out["engine_version"] == ENGINE_VERSION
    assert len(out["seat_win_rate"]) == 3
    assert sum(out["seat_win_rate"]) == pytest.approx(1 - out["capped_games"] / 3000)
    api = simulate(threads=1, **args).summary
    assert out["mean_turns"] == api["mean_turns"]
    same_summary(out, api)


def test_simulate_text_output():
    res = invoke("simulate", "--games", "2000", "--seed", "3", "--policies", "greedy,random,greedy,random")
    assert "mean turns per round" in res.stdout
    assert "greedy" in res.stdout and "random" in res.stdout
    assert "Traceback" not in res.output


@pytest.mark.parametrize("mode", ["round", "match"])
def test_simulate_one_game_text_output(mode):
    res = CliRunner().invoke(main, ["simulate", "--policies", "random", "--games", "1", "--seed", "3", "--mode", mode])
    assert res.exception is None and res.exit_code == 0, res.output
    assert "mean" in res.stdout


def test_out_dir_and_reproduction_from_meta(tmp_path):
    d1 = tmp_path / "run1"
    pols = "greedy(challenge=0.5,bluff=0.1),random,greedy"
    rules = "official+stacking(stack_wd4=false)+seven_zero"
    res = invoke("simulate", "--rules", rules, "--players", "3", "--policies", pols, "--games", "2500",
                 "--seed", "9", "--seating", "rotate", "--out", str(d1))
    assert "records written to" in res.stdout
    for name in ("records.parquet", "meta.json", "summary.json"):
        assert (d1 / name).is_file(), name
    rec = pd.read_parquet(d1 / "records.parquet")
    assert len(rec) == 2500
    assert rec["game"].tolist() == list(range(2500))
    for c in ROUND_COLUMNS + tuple(f"hand_points_{s}" for s in range(3)):
        assert c in rec.columns, c
    assert "hand_points_3" not in rec.columns
    assert set(rec["winner"].unique()) <= {-1, 0, 1, 2}
    meta = json.loads((d1 / "meta.json").read_text())
    for k in ("seed", "rules", "policies", "players", "games", "deck", "unosim_version", "engine_version",
              "numba_version", "numpy_version", "python_version"):
        assert k in meta, k
    assert meta["seed"] == 9 and meta["players"] == 3 and meta["games"] == 2500
    assert meta["engine_version"] == ENGINE_VERSION
    assert len(meta["policies"]) == 3
    summary = json.loads((d1 / "summary.json").read_text())
    assert summary["games"] == 2500 and summary["seed"] == 9
    assert summary["mean_turns"] == pytest.approx(rec["turns"].mean())

    # the meta.json arguments reproduce records.parquet exactly, through the CLI ...
    d2 = tmp_path / "run2"
    invoke("simulate", "--rules", meta["rules"], "--players", str(meta["players"]),
           "--policies", ",".join(meta["policies"]), "--games", str(meta["games"]), "--seed", str(meta["seed"]),
           "--deck", meta["deck"], "--seating", meta["seating"], "--threads", "1", "--out", str(d2))
    pd.testing.assert_frame_equal(rec, pd.read_parquet(d2 / "records.parquet"))
    # ... and through the Python API
    api = simulate(rules=meta["rules"], players=meta["players"], policies=meta["policies"], games=meta["games"],
                   seed=meta["seed"], deck=meta["deck"], seating=meta["seating"], threads=3)
    pd.testing.assert_frame_equal(rec, api.records)


# ---- simulate --mode match ----------------------------------------------------------------------------


def test_match_mode_out_with_round_records(tmp_path):
    d = tmp_path / "m"
    res = invoke("simulate", "--policies", "random", "--mode", "match", "--target", "200", "--round-records", "--games", "40",
                 "--seed", "4", "--out", str(d))
    assert "mean rounds per match" in res.stdout
    for name in ("records.parquet", "rounds.parquet", "meta.json", "summary.json"):
        assert (d / name).is_file(), name
    rec = pd.read_parquet(d / "records.parquet")
    rounds = pd.read_parquet(d / "rounds.parquet")
    assert len(rec) == 40
    assert list(rounds.columns) == ["match", "round", "dealer", "winner", "winner_points", "turns", "capped"]
    counts = rounds.groupby("match").size()
    assert counts.reindex(rec["match"]).tolist() == rec["rounds"].tolist()
    scores = rec[[f"score_{s}" for s in range(4)]].to_numpy()
    assert (scores[range(40), rec["winner"].to_numpy()] >= 200).all()
    meta = json.loads((d / "meta.json").read_text())
    assert meta["mode"] == "match" and meta["target"] == 200 and meta["scoring"] == "standard"
    # the saved match run is reproduced by the API
    api = simulate(mode="match", games=40, seed=4, target=200, threads=1, policies="random")
    pd.testing.assert_frame_equal(rec, api.records)


def test_match_mode_json_agrees_with_api():
    res = invoke("simulate", "--mode", "match", "--scoring", "self_loser", "--games", "60", "--seed", "8",
                 "--policies", "greedy,random,random", "--players", "3", "--json")
    out = one_json(res.stdout)
    for k in MATCH_JSON_KEYS:
        assert k in out, k
    assert out["mode"] == "match" and out["scoring"] == "self_loser" and out["target"] == 200
    assert out["games"] == 60 and len(out["seat_match_win_rate"]) == 3
    api = simulate(mode="match", scoring="self_loser", games=60, seed=8, policies="greedy,random,random",
                   players=3, threads=1).summary
    same_summary(out, api)


# ---- rules, presets, report, demo ----------------------------------------------------------------------


def test_rules_and_presets():
    listing = invoke("rules").stdout
    for name in ("stacking", "seven_zero", "jump_in", "turn_cap", "hand_size"):
        assert name in listing
    one = invoke("rules", "stacking").stdout
    assert one.startswith("stacking") and "4.5" in one
    assert len(one) < len(listing)
    presets = invoke("presets").stdout
    for name in ("official", "stacking", "seven_zero"):
        assert name in presets


def test_report_compares_runs(tmp_path):
    for name, rules in (("plain", "official"), ("stack", "stacking")):
        invoke("simulate", "--policies", "random", "--rules", rules, "--games", "2000", "--seed", "1", "--out", str(tmp_path / name))
    out = tmp_path / "rep"
    res = invoke("report", str(tmp_path / "plain"), str(tmp_path / "stack"), "--out", str(out))
    assert "summary.md" in res.stdout
    md = (out / "summary.md").read_text()
    assert "plain" in md and "stack" in md
    pngs = sorted(out.glob("*.png"))
    assert pngs
    for p in pngs:
        assert p.read_bytes()[:8] == PNG


def test_report_of_match_run(tmp_path):
    invoke("simulate", "--policies", "random", "--mode", "match", "--games", "10", "--target", "100", "--out", str(tmp_path / "m"))
    res = CliRunner().invoke(main, ["report", str(tmp_path / "m"), "--out", str(tmp_path / "rep")])
    assert res.exit_code == 0, res.output
    assert (tmp_path / "rep" / "rounds_per_match.png").read_bytes()[:8] == PNG


def test_demo(tmp_path):
    # the demo answers one question (the first player's edge, 2..10 players) with intervals
    out = tmp_path / "demo"
    res = invoke("demo", "--games", "2000", "--out", str(out))
    assert "report:" in res.stdout and "page:" in res.stdout
    assert "first player's edge" in res.stdout
    assert res.stdout.count("edge +") + res.stdout.count("edge -") == 9  # one answer line per count
    assert (out / "summary.md").read_text().strip()
    headline = out / "first_player_edge_by_players.png"
    assert f"headline chart: {headline}" in res.stdout
    html = (out / "report.html").read_text()
    assert html.index("first_player_edge_by_players.svg") < html.index("seat_win_rate.svg")
    pngs = sorted(out.glob("*.png"))
    assert headline in pngs and len(pngs) >= 3
    for p in pngs:
        assert p.read_bytes()[:8] == PNG
        assert p.with_suffix(".svg").is_file()
    runs = sorted((out / "runs").iterdir())
    assert len(runs) == 9
    for r in runs:
        assert len(pd.read_parquet(r / "records.parquet")) == 2000


# ---- bad input: exit code 2, one "error:" line naming the value, no traceback ---------------------------

BAD = [
    (["simulate", "--policies", "random", "--players", "1"], "players=1"),
    (["simulate", "--policies", "random", "--players", "11"], "players=11"),
    (["simulate", "--policies", "random", "--players", "abc"], "abc"),
    (["simulate", "--policies", "random", "--games", "10", "--rules", "bogus_rule"], "bogus_rule"),
    (["simulate", "--policies", "random", "--games", "10", "--rules", "official+stacking(stack_bogus=1)"], "stack_bogus"),
    (["simulate", "--games", "10", "--policies", "bogus"], "bogus"),
    (["simulate", "--games", "10", "--policies", "random,greedy"], "2 policies"),
    (["simulate", "--policies", "random", "--games", "0"], "games=0"),
    (["simulate", "--policies", "random", "--games", "abc"], "abc"),
    (["simulate", "--policies", "random", "--games", "10", "--out", "{file}/sub"], "{file}/sub"),
    (["simulate", "--policies", "random", "--games", "10", "--bogus"], "--bogus"),
    (["simulate", "--policies", "random", "--games", "10", "--deck", "bogus"], "bogus"),
    (["simulate", "--policies", "random", "--games", "10", "--target", "200"], "--target"),
    (["simulate", "--policies", "random", "--games", "10", "--mode", "bogus"], "bogus"),
    (["simulate", "--policies", "random", "--games", "10", "--seating", "bogus"], "bogus"),
    (["simulate", "--policies", "random", "--games", "10", "--threads", "0"], "threads=0"),
    (["simulate", "--policies", "random", "--games", "10", "--seed", "-1"], "seed=-1"),
    (["simulate", "--policies", "random", "--games", "10", "--mode", "match", "--target", "0"], "target=0"),
    (["simulate", "--policies", "random", "--games", "10", "--mode", "match", "--target", "-5"], "target=-5"),
    (["simulate", "--policies", "random", "--games", "10", "--mode", "match", "--scoring", "bogus"], "bogus"),
    (["simulate", "--policies", "random", "--games", "10", "--mode", "match", "--partners", "--players", "5"], "players=5"),
    (["simulate", "--policies", "random", "--games", "10", "--mode", "match", "--max-rounds", "0"], "max_rounds=0"),
    (["simulate", "--policies", "random", "--games", "10", "--mode", "match", "--scoring", "rotating_partners", "--players", "3"],
     "players=3"),
    (["rules", "bogus_option"], "bogus_option"),
    (["report", "{file}", "--out", "{tmp}/rep"], "{file}"),
    (["bogus-command"], "bogus-command"),
    pytest.param(["simulate", "--policies", "random", "--games", "10", "--batch-size", "0"], "batch"),
    pytest.param(["simulate", "--policies", "random", "--games", "10", "--mode", "match", "--batch-size", "-3"], "batch"),
]


@pytest.mark.parametrize("args,needle", BAD)
def test_bad_input_one_line_exit_2(args, needle, tmp_path, cli_error):
    afile = tmp_path / "afile"
    afile.write_text("not a directory\n")

    def fill(s: str) -> str:
        return s.replace("{file}", str(afile)).replace("{tmp}", str(tmp_path))

    assert fill(needle) in cli_error([fill(a) for a in args])


def test_bad_input_cli_runner_exit_2():
    # the click group itself (standalone mode) also reports our errors as one line with exit code 2
    res = CliRunner().invoke(main, ["simulate", "--policies", "random", "--players", "11"])
    assert res.exit_code == 2
    assert res.stderr.strip().splitlines() == ["error: players=11 is out of range; accepted: 2..10"]


def test_console_script_bad_input_subprocess():
    exe = Path(sys.executable).with_name("unosim")
    if not exe.exists():
        pytest.skip(f"console script not installed next to {sys.executable}")
    for args, needle in ((["simulate", "--policies", "random", "--players", "11"], "players=11"),
                         (["simulate", "--policies", "random", "--no-such-option"], "--no-such-option")):
        p = subprocess.run([str(exe), *args], capture_output=True, text=True, timeout=120)
        assert p.returncode == 2, p.stderr
        assert p.stdout == ""
        lines = p.stderr.splitlines()
        assert len(lines) == 1 and lines[0].startswith("error: ") and needle in lines[0], p.stderr


@pytest.mark.parametrize("argv", [["study", "first_player", "-g", "100", "--store", "mine", "--no-store"],
                                  ["skill", "--rounds", "100", "--store", "mine", "--no-store"]])
def test_store_and_no_store_together_are_refused(argv, cli_error, tmp_path):
    """Both are a contradiction: one line naming them, not one of them silently dropped; nothing runs."""
    line = cli_error([*argv, "-o", str(tmp_path / "out")] if argv[0] == "study" else argv)
    assert "--store 'mine' and --no-store" in line and not (tmp_path / "out").exists()
