"""``unosim skill`` (unosim.lab.skill_scale) and the ceiling player ``cheat_ceiling``: refused wherever it is not
asked for by name, and it sees the real hands."""

from __future__ import annotations

import math
import time
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from unosim.cli import run as cli_run
from unosim.core import enums as E
from unosim.errors import PolicyError
from unosim.lab.skill_scale import (
    format_skill,
    ladder_players,
    rating,
    rounds_to_see,
    share_axis_limits,
    skill_answer,
    skill_share,
    variance_share,
    write_skill_page,
)
from unosim.players.lookahead import CheatCeiling, Lookahead
from unosim.players.policies import POLICIES, is_cheat, parse_policies, parse_policy, public_names
from unosim.players.policy_api import format_policies


# ---- the formulas -------------------------------------------------------------------------------------
def test_skill_share_is_zero_at_the_fair_share_and_one_for_always_winning():
    assert skill_share(0.5, 2) == 0.0
    assert skill_share(1.0, 4) == 1.0
    assert skill_share(0.68, 2) == pytest.approx(0.36)
    assert skill_share(0.25, 4) == pytest.approx(0.0)


def test_rating_is_elo_for_two_players_and_zero_at_the_fair_share():
    assert rating(0.5, 2) == pytest.approx(0.0)
    assert rating(0.25, 4) == pytest.approx(0.0)
    assert rating(0.75, 2) == pytest.approx(400 * math.log10(3))  # +191 Elo
    assert rating(0.4, 4) > rating(0.3, 4) > 0


def test_rounds_to_see_an_edge():
    # 68% against 50%: z^2 * 0.68 * 0.32 / 0.18^2 = 25.8 -> 26 rounds
    assert rounds_to_see(0.68, 2) == 26
    assert rounds_to_see(0.26, 4) == math.ceil(1.959963984540054 ** 2 * 0.26 * 0.74 / 0.01 ** 2)
    assert math.isinf(rounds_to_see(0.5, 2))


def test_variance_share_is_fixed_by_the_edge():
    """A +1 point edge at a 25% base explains about 0.013% of the variance (the issue's example)."""
    assert variance_share(0.26, 4) == pytest.approx(0.01 ** 2 / (4 * 0.255 * 0.745))
    assert variance_share(0.26, 4) == pytest.approx(0.000132, abs=2e-6)
    assert variance_share(0.5, 2) == 0.0


def test_ladder_is_graded_from_random_to_the_ceiling():
    lad = ladder_players([16, 64], 32)
    assert lad[:2] == ["random", "greedy"]
    assert lad[-1] == "cheat_ceiling(rollouts=32)"
    assert lad.index("expert") < lad.index("lookahead(rollouts=16)") < lad.index("lookahead(rollouts=64)")
    assert all(parse_policy(p) for p in lad)


# ---- the ceiling is a cheat: refused where it is not named -----------------------------------------------
def test_ceiling_is_left_out_of_every_list_but_plays_where_named():
    assert is_cheat("cheat_ceiling") and not is_cheat("lookahead") and not is_cheat("expert")
    assert "cheat_ceiling" not in public_names()
    assert "lookahead" in public_names() and "expert" in public_names()
    assert str(parse_policy("cheat_ceiling(rollouts=8)")) == "cheat_ceiling(rollouts=8)"
    with pytest.raises(PolicyError) as e:
        parse_policy("cheat")  # a near miss does not offer it
    assert "cheat_ceiling" not in str(e.value)
    with pytest.raises(PolicyError) as e:
        parse_policies("nonsense", 2)
    assert "cheat_ceiling" not in str(e.value)
    assert "CHEAT" in [ln for ln in format_policies().splitlines() if "cheat_ceiling" in ln][0]
    assert POLICIES["cheat_ceiling"].cheat and not POLICIES["lookahead"].cheat


def test_ceiling_is_not_offered_to_tuning():
    from unosim.lab import tune

    assert "cheat_ceiling" not in tune.tunable_policies() and "lookahead" in tune.tunable_policies()


class _State:
    def __init__(self, hand, hlen, n, fcol, frank):
        self.hand, self.hlen, self.n, self.fcol, self.frank = hand, hlen, n, fcol, frank


class _D:
    seat, side = 0, 0


def test_ceiling_deals_the_real_hands_and_lookahead_only_what_it_was_shown():
    fcol = np.array([[0, 1, 2, 3, 4, 0], [0, 1, 2, 3, 4, 0]])
    frank = np.array([[5, 6, 7, 8, 13, 5], [5, 6, 7, 8, 13, 5]])
    hand = np.array([[0, 1, 0], [2, 4, 5], [3, 0, 0]])
    s = _State(hand, np.array([2, 3, 1]), 3, fcol, frank)
    known = CheatCeiling().known_counts(_D(), s).reshape(E.MAXP, E.NKINDS)
    assert known[0].sum() == 0  # its own hand is its own
    assert known[1, 2 * E.NRANKS + 7] == 1 and known[1, 4 * E.NRANKS + 13] == 1 and known[1, 0 * E.NRANKS + 5] == 1
    assert known[2, 3 * E.NRANKS + 8] == 1 and known.sum() == 4
    d = type("D", (), {"obs": np.zeros(E.obs_size(6), np.int64)})()
    assert Lookahead().known_counts(d, s).sum() == 0  # nothing shown: nothing known


def test_ceiling_beats_lookahead_of_the_same_budget_on_the_same_deals():
    from unosim import simulate

    n = 60
    ceil = simulate(players=2, policies="cheat_ceiling(rollouts=16),greedy", games=n, seed=4, threads=1,
                    seating="rotate")
    look = simulate(players=2, policies="lookahead(rollouts=16),greedy", games=n, seed=4, threads=1,
                    seating="rotate")
    wc = int((ceil.records["winner_policy"] == 0).sum())
    wl = int((look.records["winner_policy"] == 0).sum())
    assert wc >= wl - 3, (wc, wl)  # seeing the hands never hurts much; usually helps (small sample)


# ---- the study ----------------------------------------------------------------------------------------
def test_skill_answer_small_run_writes_text_and_page(tmp_path):
    a = skill_answer(players=2, rounds=300, matches=4, search_rounds=3, budgets=[4], ceiling_rollouts=4, seed=2,
                     threads=1)
    h = a.headline
    assert list(h["field"]) == ["random", "random", "random", "greedy", "greedy", "greedy"]
    assert list(h["unit"]) == ["round", "match", "round"] * 2
    r = h.iloc[0]
    assert r["lo"] <= r["p"] <= r["hi"] and r["share"] == pytest.approx(2 * r["p"] - 1)
    assert len(a.ladder) == len(ladder_players([4], 4))
    text = format_skill(a)
    assert "skill share" in text and "Ladder" in text and "Footnote" in text and "unosim skill" in text
    files = write_skill_page(a, tmp_path)
    assert files["report.html"].exists() and (tmp_path / "ladder.png").exists()
    svg = (tmp_path / "skill_share.svg").read_text()
    assert "sees every hand" in svg  # the ceiling's colour is named in a legend
    assert "300 rounds" in svg and "4 matches to 500" in svg and "3 rounds" in svg  # each bar's sample
    assert "(300)" in (tmp_path / "ladder.svg").read_text()  # each player's rounds beside its name
    csv = pd.read_csv(tmp_path / "headline.csv")
    assert set(csv["seed"]) == {2} and set(csv["rules"]) == {"official"} and set(csv["players"]) == {2}
    md = files["summary.md"].read_text()
    assert "seed 2" in md  # the captions say which deals
    assert md.startswith("# Skill versus luck in UNO (official, classic deck, 2 players)")  # the deck in the title


def test_ladder_chart_leaves_out_a_player_without_a_finite_rating(tmp_path):
    """A player with no win has an unbounded rating: the ladder's table keeps it, its chart names it as left
    out instead of stretching the axis to about -2,200 Elo."""

    from unosim.analysis.stats import proportion_ci
    from unosim.lab.skill_scale import SkillAnswer

    rows = [{"player": pl, "field": "greedy", "unit": "round", "games": 40, "wins": w} for pl, w in
            (("random", 6), ("greedy", 10), ("lookahead(rollouts=4)", 0))]
    for r in rows:
        p, _, lo, hi = proportion_ci(r["wins"], r["games"], 0.95)
        r.update(seed=1, p=p, lo=lo, hi=hi, share=skill_share(p, 4), share_lo=skill_share(lo, 4), share_hi=skill_share(hi, 4),
                 rating=rating(p, 4), rating_lo=rating(lo, 4), rating_hi=rating(hi, 4), to_see=rounds_to_see(p, 4),
                 variance_share=variance_share(p, 4))
    head = pd.DataFrame([{**rows[1], "player": "expert", "field": f} for f in ("random", "greedy")])
    a = SkillAnswer("official", "classic", 4, "expert", head, pd.DataFrame(rows), "unosim skill", 1.0)
    files = write_skill_page(a, tmp_path)
    svg = (tmp_path / "ladder.svg").read_text()
    assert "left out, no finite rating" in svg and "lookahead(rollouts=4)" in files["summary.md"].read_text()


def test_skill_share_axis_shows_every_interval_end():
    """An interval that reaches below 0 (a small match cell) is drawn whole, not cut at the axis."""
    assert share_axis_limits(0.1) == (0.0, 1.0)
    assert share_axis_limits(0.0) == (0.0, 1.0)
    lo, hi = share_axis_limits(-0.04)
    assert lo < -0.04 - 0.02 and hi == 1.0


@pytest.mark.parametrize("args", [
    ["--players", "1"],
    ["--strong", "nonsense"],
    ["--rounds", "0"],
    ["--budgets", "x"],
    ["--search-rounds", "-1"],
    ["--sweep", "--players", "3"],  # a sweep plays its own settings: an option it would ignore is refused
    ["--sweep", "--deck", "flip", "--no-ladder"],
])
def test_skill_cli_refuses_bad_input_in_one_line(args, capsys):
    with pytest.raises(SystemExit) as e:
        cli_run(["skill", *args])
    assert e.value.code == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("error:"), err


def test_skill_sweep_gives_one_share_per_setting_field_and_unit(tmp_path, capsys):
    from unosim.lab.skill_scale import SWEEP, format_sweep, skill_sweep

    assert [s[3] for s in SWEEP[:9]] == list(range(2, 11)) and SWEEP[-1][2] == "flip"
    t = skill_sweep(rounds=400, matches=3, seed=3, threads=1,
                    settings=[("official, 2 players", "official", "classic", 2), ("flip", "official", "flip", 3)])
    assert len(t) == 2 * 2 * 2
    assert set(t["unit"]) == {"round", "match"} and set(t["field"]) == {"random", "greedy"}
    assert ((t["share_lo"] <= t["share"]) & (t["share"] <= t["share_hi"])).all()
    r = t[(t["setting"] == "flip") & (t["field"] == "random") & (t["unit"] == "round")].iloc[0]
    assert r["share"] == pytest.approx((r["p"] - 1 / 3) / (2 / 3))
    assert "s vs greedy per match" in format_sweep(t)
    with pytest.raises(SystemExit) as e:
        cli_run(["skill", "--sweep", "--rounds", "0"])
    assert e.value.code == 2
    from unosim.lab.skill_scale import sweep_command, write_sweep_page

    files = write_sweep_page(t, sweep_command("expert", 400, 3, 3), tmp_path / "page")
    md = files["summary.md"].read_text()
    assert "400 rounds and 3 matches to 500 a cell" in md and "unosim skill --sweep --strong 'expert'" in md
    assert "| flip |" in md and files["report.html"].exists() and files["sweep.csv"].exists()
    svg = (tmp_path / "page" / "skill_share_by_setting.svg").read_text()
    assert "vs greedy, per match (3 matches to 500)" in svg  # one series per field and unit, named in the legend


def test_skill_sweep_refuses_an_out_in_the_way_before_it_runs(tmp_path, capsys):
    """A file where --out wants a folder is one line and exit code 2 before any cell is played, not after."""
    blocker = tmp_path / "file"
    blocker.write_text("x")
    t0 = time.perf_counter()
    with pytest.raises(SystemExit) as e:
        cli_run(["skill", "--sweep", "--rounds", "100000", "--out", str(blocker / "page")])
    assert e.value.code == 2 and time.perf_counter() - t0 < 20
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "--out" in err[0], err


def test_skill_takes_a_users_policy_file():
    from pathlib import Path

    from click.testing import CliRunner

    from unosim.cli import main

    f = str(Path(__file__).resolve().parents[1] / "scripts" / "policy_example_python.py")
    r = CliRunner().invoke(main, ["skill", "--policy-file", f, "--strong", "low_first_py", "--players", "2",
                                  "--rounds", "200", "--matches", "0", "--search-rounds", "0", "--no-ladder"])
    assert r.exit_code == 0, r.output
    assert "low_first_py 1 x random round" in r.stdout and f"--policy-file '{f}'" in r.stdout


def test_the_reproduce_line_keeps_an_empty_budget_list():
    """``--budgets ''`` (no search on the ladder) is reproduced as such, not as a bare ``--budgets`` that would
    swallow the next option."""
    import shlex

    from unosim.lab.skill_scale import skill_command

    line = skill_command("official", "classic", 2, "expert", 10, 0, 0, [], 64, 1, True)
    args = shlex.split(line)
    assert args[args.index("--budgets") + 1] == "" and "--ceiling-rollouts" in args


def test_skill_cells_come_from_the_results_store_and_match_a_plain_run(tmp_path):
    """With a store every cell is stored once and reused: a second answer writes nothing and gives the same
    table, which is also the table of a run without the store."""
    kw = dict(players=3, rounds=300, matches=3, search_rounds=2, budgets=[2], ceiling_rollouts=2, seed=5, threads=1)
    first = skill_answer(store=tmp_path / "store", **kw)
    files = {p: p.stat().st_mtime_ns for p in (tmp_path / "store").rglob("*.parquet")}
    assert len({p.parent for p in files}) >= 6  # the cells' chunks are there
    again = skill_answer(store=tmp_path / "store", **kw)
    assert {p: p.stat().st_mtime_ns for p in (tmp_path / "store").rglob("*.parquet")} == files  # nothing run again
    plain = skill_answer(**kw)
    for a in (again, plain):
        pd.testing.assert_frame_equal(a.headline, first.headline)
        pd.testing.assert_frame_equal(a.ladder, first.ladder)


def test_skill_cli_uses_the_store_unless_told_not_to(tmp_path):
    from click.testing import CliRunner

    from unosim.cli import main

    args = ["skill", "--players", "2", "--rounds", "100", "--matches", "0", "--search-rounds", "0", "--no-ladder"]
    assert CliRunner().invoke(main, [*args, "--store", str(tmp_path / "s")]).exit_code == 0
    assert any((tmp_path / "s").rglob("*.parquet"))
    from unosim.results import store

    before = sorted(Path(store.DEFAULT_ROOT).rglob("*.parquet"))
    assert CliRunner().invoke(main, [*args, "--no-store", "--seed", "77"]).exit_code == 0
    assert sorted(Path(store.DEFAULT_ROOT).rglob("*.parquet")) == before  # nothing stored, not even by default


def test_a_search_player_plays_match_cells_when_asked():
    """A search player as the strong one plays --search-rounds rounds and, only when asked, --search-matches
    matches to 500 (a heuristic's --matches would be hours of search); with neither it is refused."""
    kw = dict(players=2, rounds=50, matches=3, search_rounds=2, budgets=[], ceiling_rollouts=2, seed=3, threads=1,
              ladder=False)
    a = skill_answer(strong="lookahead(rollouts=2)", search_matches=1, **kw)
    own = a.headline[a.headline["player"] == "lookahead(rollouts=2)"]
    assert sorted(zip(own["unit"], own["games"], strict=True)) == [("match", 1), ("match", 1), ("round", 2),
                                                                  ("round", 2)]
    assert "--search-matches 1" in a.command
    b = skill_answer(strong="lookahead(rollouts=2)", **kw)
    assert set(b.headline["unit"]) == {"round"} and "--search-matches" not in b.command
    with pytest.raises(PolicyError, match="search_rounds or search_matches above 0"):
        skill_answer(strong="lookahead(rollouts=2)", **{**kw, "search_rounds": 0})
