"""Partners mode reported by team (``--partners``, docs/rules.md 1.18), ``rotating_partners`` marked as
individual scores (4.21), and the match-mode report.

Team ``t`` is seats ``t`` and ``t + n/2``.  Convention under test: every match is in the
denominator, matches stopped at ``max_rounds`` included, so the team match win rates add up to
``1 - capped_matches / games``.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner

from unosim import simulate
from unosim.cli import main

CLI_DOC = Path(__file__).resolve().parents[1] / "docs" / "cli.md"
PNG = b"\x89PNG\r\n\x1a\n"
TEAM_KEYS = ("partners", "individual_scores", "teams", "team_seats", "team_policies", "team_match_win_rate",
             "team_match_win_rate_se", "team_match_win_rate_ci", "team_round_win_rate", "team_round_win_rate_se",
             "team_mean_final_score", "team_mean_final_score_se", "team_composition_match_win_rate",
             "seat_went_out_deciding_round", "seat_went_out_deciding_round_se")
COMPOSITION_KEYS = {"line_up", "team", "teams", "matches", "wins", "win_rate", "win_rate_se", "ci_lo", "ci_hi"}
SOLO_KEYS = ("seat_match_win_rate", "policy_match_win_rate")
GRGR = "greedy,random,greedy,random"


def run(**kw):
    base = dict(mode="match", players=4, policies="random", games=40, seed=11, threads=2, partners=True)
    base.update(kw)
    return simulate(**base)


def invoke(*args: str):
    res = CliRunner().invoke(main, list(args))
    assert res.exit_code == 0, res.output
    return res


# ---- team rates ---------------------------------------------------------------------------------------


@pytest.mark.parametrize("players,max_rounds", [(4, 1000), (4, 6), (6, 4)])
def test_team_match_win_rates_add_up(players, max_rounds):
    res = run(players=players, max_rounds=max_rounds, games=300, policies=",".join(["greedy", "random"] * (players // 2)))
    s, rec = res.summary, res.records
    half = players // 2
    winner = rec["winner"].to_numpy()
    capped = int((winner < 0).sum())
    assert s["capped_matches"] == capped
    if max_rounds < 10:
        assert capped > 0  # the convention is exercised: capped matches are nobody's win
    else:
        assert capped == 0
    rates = np.array(s["team_match_win_rate"])
    assert rates.sum() == pytest.approx(1 - capped / len(rec))
    np.testing.assert_allclose(rates, np.bincount(winner[winner >= 0] % half, minlength=half) / len(rec))
    assert s["team_seats"] == [[t, t + half] for t in range(half)]
    # records by team
    np.testing.assert_array_equal(rec["winner_team"].to_numpy(), np.where(winner >= 0, winner % half, -1))
    for t in range(half):
        np.testing.assert_array_equal(rec[f"team_score_{t}"], rec[f"score_{t + half}"])
    # round win rates: a team's share of all rounds (capped rounds included) adds up with the seats'
    np.testing.assert_allclose(s["team_round_win_rate"],
                               [s["seat_round_win_rate"][t] + s["seat_round_win_rate"][t + half] for t in range(half)])
    assert all(se > 0 for se in s["team_round_win_rate_se"])
    for (lo, hi), p in zip(s["team_match_win_rate_ci"], rates, strict=True):
        assert lo <= p <= hi


@pytest.mark.parametrize("players,policy", [(4, "random"), (6, "greedy")])
def test_identical_policies_give_each_team_a_fair_share(players, policy):
    g = 3000
    s = run(players=players, policies=policy, games=g, seed=3, target=300).summary
    half = players // 2
    for p, se in zip(s["team_match_win_rate"], s["team_match_win_rate_se"], strict=True):
        assert abs(p - 1 / half) < 4 * se, (p, se)
    for p, se in zip(s["team_round_win_rate"], s["team_round_win_rate_se"], strict=True):
        assert abs(p - 1 / half) < 4 * se, (p, se)
    # one line-up, one composition fielded by every team: its per-team share is the fair share
    (row,) = s["team_composition_match_win_rate"]
    assert row["teams"] == half and row["matches"] == g
    assert row["win_rate"] == pytest.approx(1 / half)


def test_team_compositions_group_matches_by_line_up():
    g = 400
    rot = run(policies="greedy,random,greedy,random", seating="rotate", games=g, target=300).summary
    # rotation keeps partners together: greedy+greedy always faces random+random, in varying seats
    assert rot["team_policies"] is None
    (gg, rr) = rot["team_composition_match_win_rate"]
    assert gg["line_up"] == rr["line_up"] == "greedy+greedy vs random+random"
    assert (gg["team"], rr["team"]) == ("greedy+greedy", "random+random")
    assert gg["matches"] == g and gg["wins"] + rr["wins"] == g
    assert gg["win_rate"] - rr["win_rate"] > 4 * np.hypot(gg["win_rate_se"], rr["win_rate_se"])
    assert gg["ci_lo"] <= gg["win_rate"] <= gg["ci_hi"]
    # fixed seating: the one line-up is the team table
    fx = run(policies="greedy,random,greedy,random", games=g, target=300).summary
    assert fx["team_policies"] == [["greedy", "greedy"], ["random", "random"]]
    (gg, _) = fx["team_composition_match_win_rate"]
    assert gg["win_rate"] == fx["team_match_win_rate"][0]
    # shuffled seating: every match is one of two line-ups; mixed teams get the per-team share
    sh = run(policies="greedy,random,greedy,random", seating="shuffle", games=g, target=300)
    rows = sh.summary["team_composition_match_win_rate"]
    line_ups = {r["line_up"]: r["matches"] for r in rows}
    assert set(line_ups) == {"greedy+greedy vs random+random", "greedy+random vs greedy+random"}
    assert sum(line_ups.values()) == g
    (mixed,) = [r for r in rows if r["line_up"] == "greedy+random vs greedy+random"]
    assert mixed["teams"] == 2 and mixed["win_rate"] == pytest.approx(mixed["wins"] / (2 * mixed["matches"]))
    # recount one line-up from the seat maps
    sm = sh.records[[f"policy_at_seat_{s}" for s in range(4)]].to_numpy() % 2  # 0 greedy, 1 random
    same_team_same_policy = (sm[:, 0] == sm[:, 2]) & (sm[:, 1] == sm[:, 3])
    assert line_ups["greedy+greedy vs random+random"] == int(same_team_same_policy.sum())


# ---- a partner going out scores for the team ------------------------------------------------------------


def test_partner_going_out_scores_for_the_team():
    """Round 0 of match 0 is dealt and played exactly like round-mode game 0 with the same seed (dealer
    n-1, seeds (seed, 0)), so a one-round match with target 1 is a rigged deal whose every hand is known
    from the round-mode records.  Whichever partner goes out, the team scores the opponents' hands
    (never the partner's), both partners carry that score, and the team wins the match."""
    seen = set()
    for seed in range(60):
        rnd = simulate(games=1, seed=seed, players=4, policies=GRGR, threads=1).records.iloc[0]
        w = int(rnd["winner"])
        if w < 0 or w in seen:
            continue
        m = run(games=1, seed=seed, policies=GRGR, target=1, max_rounds=1, round_records=True)
        rr = m.extra["rounds"].iloc[0]
        assert (int(rr["winner"]), int(rr["winner_points"]), int(rr["turns"])) == \
            (w, int(rnd["winner_points"]), int(rnd["turns"]))  # the same deal, played the same way
        hands = [int(rnd[f"hand_points_{s}"]) for s in range(4)]
        team, partner = w % 2, (w + 2) % 4
        opponents = hands[1 - team] + hands[3 - team]
        if opponents == 0 or hands[partner] == 0:
            continue  # not discriminating: need points on both sides of the table
        rec = m.records.iloc[0]
        assert int(rec[f"score_{w}"]) == int(rec[f"score_{partner}"]) == opponents
        assert opponents == int(rnd["winner_points"]) - hands[partner]  # the partner's hand is not scored
        assert int(rec[f"score_{1 - team}"]) == int(rec[f"score_{3 - team}"]) == 0
        assert int(rec["winner"]) == w and int(rec["winner_team"]) == team
        assert int(rec[f"team_score_{team}"]) == opponents
        s = m.summary
        assert s["team_match_win_rate"][team] == 1.0 and s["team_match_win_rate"][1 - team] == 0.0
        assert s["seat_went_out_deciding_round"][w] == 1.0
        seen.add(w)
        if seen >= {0, 1, 2, 3}:
            break
    assert seen >= {2, 3}, seen  # the partners at i + n/2 went out and scored for teams 0 and 1


# ---- summary, JSON, text -------------------------------------------------------------------------------


def _readme_match_keys() -> set[str]:
    text = CLI_DOC.read_text(encoding="utf-8")
    section = text[text.index("## Full games to 500"):]
    return set(re.findall(r"`([a-z_]+(?:<t>)?)`", section))


def test_json_keys_are_the_documented_ones():
    res = invoke("simulate", "--mode", "match", "--partners", "--games", "30", "--target", "200",
                 "--policies", "greedy,random,greedy,random", "--json")
    out = json.loads(res.stdout)
    documented = _readme_match_keys()
    for k in TEAM_KEYS:
        assert k in out, k
        assert k in documented, k
    assert set(out["team_composition_match_win_rate"][0]) == COMPOSITION_KEYS
    assert COMPOSITION_KEYS <= documented
    assert {"winner_team", "team_score_<t>", "scoring_note", "policy_match_win_rate_ci"} <= documented
    # no per-seat or per-policy match win rate that would credit a team's win to one seat
    for k in SOLO_KEYS:
        assert k not in out, k
    # every team key the summary has is documented
    assert {k for k in out if k.startswith("team_")} <= documented
    api = run(games=30, seed=0, target=200, policies=GRGR, threads=1).summary
    assert out["team_match_win_rate"] == api["team_match_win_rate"]
    # without partners: individual scores, the solo keys stay
    solo = json.loads(invoke("simulate", "--policies", "random", "--mode", "match", "--games", "10", "--target", "100", "--json").stdout)
    assert solo["partners"] is False and solo["individual_scores"] is True
    assert all(k in solo for k in SOLO_KEYS) and not any(k.startswith("team_") for k in solo)


def test_text_summary_shows_teams():
    out = invoke("simulate", "--mode", "match", "--partners", "--games", "40", "--target", "200",
                 "--policies", "greedy,random,greedy,random").stdout
    assert "team  seats  policies" in out
    assert re.search(r"^\s+0\s+0\+2\s+greedy\+greedy\s+\d+\.\d+% \[", out, re.M), out
    assert re.search(r"^\s+1\s+1\+3\s+random\+random\s+\d+\.\d+% \[", out, re.M), out
    assert "greedy+greedy vs random+random" in out
    assert "went out in the deciding round" in out
    assert "match win rate per seat" not in out


def test_rotating_partners_says_scores_are_individual():
    res = run(partners=False, scoring="rotating_partners", games=10)
    s = res.summary
    assert s["individual_scores"] is True and s["partners"] is False
    assert "each player keeps their own score" in s["scoring_note"]
    assert "seat_match_win_rate" in s and not any(k.startswith("team_") for k in s)
    out = invoke("simulate", "--policies", "random", "--mode", "match", "--scoring", "rotating_partners", "--games", "10").stdout
    assert re.search(r"^scores\s+individual scores: .*each player keeps their own score", out, re.M), out


# ---- match report -------------------------------------------------------------------------------------------


def test_match_report_files(tmp_path):
    p, solo = tmp_path / "partners", tmp_path / "solo"
    invoke("simulate", "--mode", "match", "--partners", "--games", "60", "--target", "200", "--seating", "rotate",
           "--policies", "greedy,random,greedy,random", "--out", str(p), "--report")
    for name in ("match_win_rate_by_team.png", "match_win_rate_by_line_up.png", "rounds_per_match.png"):
        assert (p / name).read_bytes()[:8] == PNG, name
    assert not (p / "match_win_rate_by_policy.png").exists()
    md = (p / "summary.md").read_text()
    assert "## Match win rate by team" in md and "greedy+greedy vs random+random" in md
    invoke("simulate", "--mode", "match", "--games", "40", "--scoring", "rotating_partners",
           "--policies", GRGR, "--out", str(solo))
    rep = tmp_path / "rep"
    invoke("report", str(p), str(solo), "--out", str(rep))
    for name in ("match_win_rate_by_policy.png", "match_win_rate_by_team.png", "rounds_per_match.png"):
        assert (rep / name).read_bytes()[:8] == PNG, name
    md = (rep / "summary.md").read_text()
    assert "## Match win rate per seat by policy" in md and "each player keeps their own score" in md


def test_report_refuses_mixed_modes(tmp_path):
    invoke("simulate", "--policies", "random", "--mode", "match", "--games", "5", "--target", "100", "--out", str(tmp_path / "m"))
    invoke("simulate", "--policies", "random", "--games", "50", "--out", str(tmp_path / "r"))
    res = CliRunner().invoke(main, ["report", str(tmp_path / "m"), str(tmp_path / "r"), "--out", str(tmp_path / "x")])
    assert res.exit_code == 2
    assert "round-mode run" in res.output and res.output.count("\n") == 1
