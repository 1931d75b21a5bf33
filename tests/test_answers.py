"""What-if answers that hold up: user policies in every command and an edited strategy never served stale.

The two strategies of each edit play differently (greedy vs the first legal card), so at a few hundred
rounds their seat-0 win rates differ by far more than zero: a stale cell would give exactly the old
numbers and the same store key.
"""

from __future__ import annotations

import importlib.util
import json
import math
import textwrap

import pytest
from click.testing import CliRunner

from unosim.cli import main
from unosim.lab.experiments import arm_records, compare, run_sweep
from unosim.players.policy_api import load_policy_files
from unosim.results.store import list_cells

NUMBA_FILE = """
from unosim.players.policy_api import policy, D_PLAY, OBS_NLEGAL, greedy_obs_nb

@policy()
def NAME(kind, obs, params, rng):
    if kind == D_PLAY and BAD:
        return 0 if obs[OBS_NLEGAL] > 0 else -1
    return greedy_obs_nb(kind, obs, params, rng)
"""

PY_FILE = """
from unosim.players.external import PythonPolicy

class Mine(PythonPolicy):
    name = "NAME"

    def play(self, d):
        if BAD:
            return 0 if d.nlegal else -1
        return d.greedy()
"""


def _write(path, body: str, bad: bool, name: str) -> str:
    """A policy file (policy names are global to a process: each test names its own)."""
    path.write_text(textwrap.dedent(body).replace("BAD", "True" if bad else "False").replace("NAME", name))
    return str(path)


def _seat0(df) -> float:
    return float(df[(df["metric"] == "seat0_win")]["mean"].iloc[0])


def _compare(store, **kw):
    return compare(["official"], players=3, games=300, seed=3, store=store, threads=1, **kw)


def test_an_edited_policy_file_is_rerun_through_python(tmp_path):
    f = _write(tmp_path / "mine.py", NUMBA_FILE, bad=False, name="mine_a")
    load_policy_files([f])  # the route of the report: load, then compare without naming the file
    before = _compare(tmp_path / "store", policies="mine_a,greedy,greedy")
    assert before.attrs["arms"][0]["cell"]["policy_files"][0]["path"] == str((tmp_path / "mine.py").resolve())
    again = _compare(tmp_path / "store", policies="mine_a,greedy,greedy")
    assert again["key"].iloc[0] == before["key"].iloc[0]  # unchanged file: the stored cell
    _write(tmp_path / "mine.py", NUMBA_FILE, bad=True, name="mine_a")
    after = _compare(tmp_path / "store", policies="mine_a,greedy,greedy")
    assert after["key"].iloc[0] != before["key"].iloc[0]
    assert _seat0(after) != _seat0(before)
    fresh = _compare(tmp_path / "fresh", policies="mine_a,greedy,greedy", policy_files=[f])
    assert _seat0(fresh) == _seat0(after)  # the new numbers are the edited strategy's own
    assert len(list_cells(tmp_path / "store")) == 2


def test_an_edited_policy_file_is_rerun_through_the_cli(tmp_path):
    f = _write(tmp_path / "mine.py", NUMBA_FILE, bad=False, name="mine_b")
    args = ["compare", "--arm", "official", "--players", "3", "--games", "300", "--seed", "3", "--threads", "1",
            "--policies", "mine_b,greedy,greedy", "--policy-file", f, "--store", str(tmp_path / "store"), "--json"]
    runner = CliRunner()
    first = runner.invoke(main, args)
    assert first.exit_code == 0, first.output
    _write(tmp_path / "mine.py", NUMBA_FILE, bad=True, name="mine_b")
    second = runner.invoke(main, args)
    assert second.exit_code == 0, second.output
    rows = [json.loads(r.stdout)["rows"] for r in (first, second)]
    win = [next(r["mean"] for r in rs if r["metric"] == "seat0_win") for rs in rows]
    assert rows[0][0]["key"] != rows[1][0]["key"] and win[0] != win[1]


def test_an_edited_plain_python_class_passed_as_an_object_is_rerun(tmp_path):
    def load(bad: bool):
        path = _write(tmp_path / f"cls_{bad}.py", PY_FILE, bad, name="mine_c")
        spec = importlib.util.spec_from_file_location("unosim_test_cls", path)  # a re-run notebook cell
        mod = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(mod)
        return mod.Mine

    good = _compare(tmp_path / "store", policies=[load(False), "greedy", "greedy"])
    bad = _compare(tmp_path / "store", policies=[load(True), "greedy", "greedy"])
    assert good.attrs["arms"][0]["cell"]["policy_classes"][0]["name"] == "mine_c"
    assert good["key"].iloc[0] != bad["key"].iloc[0]
    assert _seat0(good) != _seat0(bad)


def test_a_sweep_file_names_its_policy_files(tmp_path):
    _write(tmp_path / "mine.py", NUMBA_FILE, bad=False, name="mine_d")
    sweep_file = tmp_path / "sweep.toml"
    sweep_file.write_text('games = 200\nseed = 1\npolicy_files = ["mine.py"]\n'
                          '[grid]\nplayers = 3\npolicies = ["mine_d,greedy,greedy", "greedy"]\n')
    before = run_sweep(sweep_file, store=tmp_path / "store", threads=1)
    _write(tmp_path / "mine.py", NUMBA_FILE, bad=True, name="mine_d")
    after = run_sweep(sweep_file, store=tmp_path / "store", threads=1)
    assert before["key"].iloc[0] != after["key"].iloc[0] and before["seat0_win"].iloc[0] != after["seat0_win"].iloc[0]
    assert before["key"].iloc[1] == after["key"].iloc[1]  # the cell without the user policy is reused


def test_a_bad_policy_files_key_is_one_line(tmp_path):
    sweep_file = tmp_path / "sweep.toml"
    sweep_file.write_text('games = 200\npolicy_files = ["nope.py"]\n[grid]\nplayers = 3\n')
    with pytest.raises(ValueError, match=r"line 2: policy file .*nope.py' not found"):
        run_sweep(sweep_file, store=tmp_path / "store")


@pytest.mark.parametrize("command", [
    ["tournament", "--policies", "mine_e,mine_e_py,greedy", "--players", "3", "--games", "60", "--bootstrap", "0"],
    ["tune", "--policy", "greedy", "--against", "mine_e,mine_e_py", "--players", "3", "--budget", "300", "--games-per-eval", "150",
     "--eval-games", "60", "--popsize", "2"],
])
def test_tournament_and_tune_take_numba_and_python_policy_files(tmp_path, command):
    tag = command[0][:2]
    files = [_write(tmp_path / "mine.py", NUMBA_FILE, bad=True, name=f"mine_{tag}"),
             _write(tmp_path / "mine_py.py", PY_FILE, bad=True, name=f"mine_{tag}_py")]
    command = [a.replace("mine_e", f"mine_{tag}") for a in command]
    r = CliRunner().invoke(main, [*command, "--threads", "1", "--json",
                                  *[a for f in files for a in ("--policy-file", f)]])
    assert r.exit_code == 0, r.output
    out = json.loads(r.stdout)
    assert {f["path"] for f in out["meta"]["policy_files"]} == {str((tmp_path / n).resolve())
                                                                 for n in ("mine.py", "mine_py.py")}


# ---- effects with scale, sentences, robustness and interactions ---------------------------------------------

from unosim.analysis import answers  # noqa: E402
from unosim.analysis.paired import paired_difference  # noqa: E402


def test_every_effect_comes_relative_to_the_baseline_and_as_a_sentence(tmp_path):
    df = compare(["official", "official+draw_until_playable"], players=4, games=2000, seed=1, metric="cards_drawn",
                 policies="greedy", store=tmp_path, threads=1)
    row = df[(df["arm"] == "official+draw_until_playable") & (df["metric"] == "cards_drawn")].iloc[0]
    base = df[(df["arm"] == "official") & (df["metric"] == "cards_drawn")].iloc[0]
    assert row["diff_rel"] == pytest.approx(row["diff"] / base["mean"])
    [sentence] = df.attrs["answer_sentences"]
    assert sentence.startswith("For greedy players (4 players), official+draw_until_playable raises cards drawn "
                               f"per round by {row['diff_lo']:.1f} to {row['diff_hi']:.1f} cards "
                               f"(+{row['diff_rel'] * 100:.1f}%) compared with official")


def test_a_sentence_says_when_an_interval_holds_zero():
    s = answers.effect_sentence("b", "a", "seat0_win", "round", 0.001, -0.01, 0.012, 0.25, "random players")
    assert s == ("For random players, b changes seat 0's round win rate by -1.0 to +1.2 percentage points (+0.4%) "
                 "compared with a: not distinguishable from no change.")


def _effects(*intervals):
    return [{"model": m, "diff": (lo + hi) / 2, "ci_lo": lo, "ci_hi": hi}
            for m, (lo, hi) in zip(answers.ROBUST_MODELS, intervals, strict=True)]


def test_robustness_flags_a_sign_flip_and_not_a_consistent_effect():
    flip = answers.robustness(_effects((-0.40, -0.16), (1.38, 1.62), (1.2, 1.5)))  # the 7-0 turns question
    assert flip["verdict"] == "sign flips" and flip["negative"] == ["random"]
    warning = answers.robustness_sentence("7-0", "turns", "round", flip)
    assert "changes sign with the players" in warning and "lowers it for random players" in warning
    same = answers.robustness(_effects((1.1, 1.5), (1.38, 1.62), (1.2, 1.7)))
    assert same["verdict"] == "consistent" and answers.robustness_sentence("7-0", "turns", "round", same) is None
    assert answers.robustness(_effects((0.1, 0.3), (1.38, 1.62), (1.2, 1.7)))["verdict"] == "size varies"
    assert answers.robustness(_effects((-0.1, 0.3), (1.38, 1.62), (1.2, 1.7)))["verdict"] == "unclear"


def test_robust_compare_replays_the_arms_under_every_player_model(tmp_path):
    df = compare(["official", "official+draw_until_playable"], players=3, games=1500, seed=2, metric="cards_drawn",
                 policies="greedy", store=tmp_path, threads=1, robust=True)
    [row] = df.attrs["robustness"]
    assert [e["model"] for e in row["effects"]] == list(answers.ROBUST_MODELS)
    alone = compare(["official", "official+draw_until_playable"], players=3, games=1500, seed=2,
                    metric="cards_drawn", policies="random", store=tmp_path, threads=1)
    got = alone[(alone["arm"] == "official+draw_until_playable") & (alone["metric"] == "cards_drawn")].iloc[0]
    assert row["effects"][0]["diff"] == got["diff"]  # the same deals, the same stored cells
    assert row["verdict"] == "consistent"  # drawing until playable draws more cards whoever plays
    assert not any(s.startswith("Caution") for s in df.attrs["answer_sentences"])


def test_robust_needs_an_arm_without_its_own_policies(tmp_path):
    with pytest.raises(ValueError, match="every arm names its policies"):
        compare(["policies:random", "policies:greedy"], players=3, games=100, store=tmp_path, robust=True)


def test_a_two_by_two_design_reports_the_interaction_with_its_paired_interval(tmp_path):
    factors = {"policies": ["greedy", "color_majority,greedy,greedy"], "rules": ["official", "official+stacking"]}
    df = compare([], factors=factors, players=3, games=1500, seed=4, store=tmp_path, threads=1)
    inter = df.attrs["interaction"]
    recs = list(arm_records(df).values())
    e0, e1 = paired_difference(recs[0], recs[1], "seat0_win"), paired_difference(recs[2], recs[3], "seat0_win")
    assert inter["diff"] == pytest.approx(e1["diff"] - e0["diff"])
    assert inter["effect_b0"] == pytest.approx(e0["diff"]) and inter["n"] == 1500
    x = [(r["winner"].to_numpy() == 0).astype(float) for r in recs]  # sorted by game, all 1,500 games
    contrast = (x[3] - x[2]) - (x[1] - x[0])  # paired game by game: one standard error of the contrast
    assert inter["half_width"] == pytest.approx(1.959964 * contrast.std(ddof=1) / math.sqrt(1500), rel=1e-5)
    assert inter["ci_lo"] < inter["diff"] < inter["ci_hi"]
    assert df.attrs["answer_sentences"][-1].startswith("The effect of policies greedy -> color_majority,greedy,greedy")


def test_bad_factors_are_one_line(cli_error):
    assert "accepted: exactly two" in cli_error(["compare", "--factor", "deck:classic|flip"])
    assert "is not KEY:VALUE1|VALUE2" in cli_error(["compare", "--factor", "deck:classic", "--factor", "rules:a|b"])
    with pytest.raises(ValueError, match="unknown factor 'decks'"):
        compare([], factors={"decks": ["classic", "flip"], "rules": ["official", "official+stacking"]})


# ---- sweep and match compare speak like compare --------------------------------------------------------------


def test_a_sweep_prints_intervals_paired_differences_and_sentences(tmp_path):
    f = tmp_path / "sweep.toml"
    f.write_text('name = "decks"\ngames = 800\nseed = 2\nmetric = "turns"\n'
                 '[grid]\nplayers = [2, 3]\ndecks = ["classic", "flip"]\npolicies = "greedy"\n')
    r = CliRunner().invoke(main, ["sweep", str(f), "--store", str(tmp_path / "store"), "--threads", "1"])
    assert r.exit_code == 0, r.output
    df = run_sweep(f, store=tmp_path / "store")  # the same cells, from the store
    assert df.attrs["compared"] == "deck" and (df["baseline"] == "classic").all()
    flip = df[(df["deck"] == "flip") & (df["players"] == 3)].iloc[0]
    assert flip["turns_diff_rel"] == pytest.approx(flip["turns_diff"] / (flip["turns"] - flip["turns_diff"]))
    assert "±" in r.output and "baseline" in r.output and "difference" in r.output
    assert f"{flip['turns_diff_rel'] * 100:+.1f}%" in r.output
    assert len(df.attrs["answer_sentences"]) == 2
    assert all(s in r.output for s in df.attrs["answer_sentences"])
    assert df.attrs["answer_sentences"][1].startswith("For greedy players (3 players), deck flip ")


def test_a_match_compare_counts_matches(tmp_path):
    r = CliRunner().invoke(main, ["compare", "--arm", "official", "--arm", "official+stacking", "--mode", "match",
                                  "--players", "3", "--games", "30", "--target", "100", "--store", str(tmp_path),
                                  "--threads", "1", "--metric", "rounds"])
    assert r.exit_code == 0, r.output
    assert "30 matches each" in r.output and "games" not in r.output.split("\n")[0]
    assert "rounds per match" in r.output.split("Answer")[1]


def test_the_match_report_has_the_paired_effects(tmp_path):
    runner = CliRunner()
    r = runner.invoke(main, ["compare", "--arm", "official", "--arm", "official+stacking", "--mode", "match",
                             "--players", "3", "--games", "30", "--target", "100", "--store", str(tmp_path / "s"),
                             "--threads", "1", "--out", str(tmp_path / "c")])
    assert r.exit_code == 0, r.output
    saved = json.loads((tmp_path / "c" / "compare.json").read_text())["attrs"]
    assert saved["answer_sentences"] and saved["answer_sentences"][0].startswith("For greedy players (3 players)")
    r = runner.invoke(main, ["report", str(tmp_path / "c" / "arms"), "--out", str(tmp_path / "r")])
    assert r.exit_code == 0, r.output
    page = (tmp_path / "r" / "summary.md").read_text()
    assert "Effects (paired)" in page and "Δ rounds per match" in page


def test_a_robust_sweep_checks_every_effect_under_every_player_model(tmp_path):
    f = tmp_path / "sweep.toml"
    f.write_text('games = 800\nseed = 3\nmetric = "cards_drawn"\n'
                 '[grid]\nplayers = 3\nrules = ["official", "official+draw_until_playable"]\n')
    df = run_sweep(f, store=tmp_path / "store", threads=1, robust=True)
    [row] = df.attrs["robustness"]
    assert [e["model"] for e in row["effects"]] == list(answers.ROBUST_MODELS)
    assert row["effects"][1]["diff"] == df["cards_drawn_diff"].iloc[1]  # greedy: the sweep's own players
    assert row["verdict"] == "consistent"
    f.write_text(f.read_text().replace('players = 3', 'players = 3\npolicies = ["random", "greedy"]'))
    with pytest.raises(ValueError, match="one policies value"):
        run_sweep(f, store=tmp_path / "store", robust=True)


def test_the_reproduce_line_names_the_policy_files_and_their_content():
    from unosim.reports.report import reproduce_command

    meta = {"rules": "official", "players": 2, "policies": ["low_first", "greedy"], "seed": 1, "games": 10,
            "policy_files": [{"path": "/x/my policy.py", "sha256": "ab" * 32}]}
    line = reproduce_command(meta)
    assert "--policy-file '/x/my policy.py'" in line and "my policy.py sha256 abababababababab" in line


def test_the_default_players_are_greedy_everywhere(tmp_path):
    from unosim import simulate

    assert simulate(games=5, threads=1).meta["policies"] == ["greedy"] * 4
    r = CliRunner().invoke(main, ["simulate", "--games", "5", "--threads", "1", "--json"])
    assert r.exit_code == 0 and json.loads(r.output)["policies"] == ["greedy"] * 4
    df = compare(["official"], games=5, store=tmp_path, threads=1)
    assert df.attrs["arms"][0]["cell"]["policies"] == ["greedy"] * 4
    f = tmp_path / "s.toml"
    f.write_text("games = 5\n[grid]\nplayers = 3\n")
    assert run_sweep(f, store=tmp_path, threads=1)["policies"].tolist() == ["greedy"]


def test_the_report_of_a_compare_opens_with_its_answer(tmp_path):
    out = tmp_path / "cmp"
    r = CliRunner().invoke(main, ["compare", "--arm", "official", "--arm", "official+stacking; label:Stack it",
                                  "--metric", "turns", "--games", "400", "--threads", "1", "--store",
                                  str(tmp_path / "store"), "--out", str(out), "-q"])
    assert r.exit_code == 0, r.output
    said = json.loads((out / "compare.json").read_text())["attrs"]["answer_sentences"]
    assert said and "Stack it" in said[0]
    for runs in (out, out / "arms"):  # the compare's folder, or its arms/ folder as the README shows
        page = tmp_path / f"report-{runs.name}"
        r = CliRunner().invoke(main, ["report", str(runs), "--out", str(page)])
        assert r.exit_code == 0, r.output
        body = (page / "summary.md").read_text().splitlines()
        assert body[2] == said[0]  # the page opens with the compare's answer, under its title
