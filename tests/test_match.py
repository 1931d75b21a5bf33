"""Full games ("matches", ``simulate(mode="match")``): scoring modes, partners, seating, round
records, determinism, statistics and bad input (docs/rules.md 1.15-1.18, 4.11, 4.20, 4.21).

Several checks need each seat's running score after every round.  Round k of match m is seeded
from (seed, m, k) alone, so a run with ``max_rounds=k`` replays exactly the first k rounds of
every match: :func:`trajectory` stacks such runs into ``T[m, k, seat]`` = score after k rounds.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from unosim import simulate


def run(**kw):
    base = dict(mode="match", players=4, policies="random", games=40, seed=11, threads=2)
    base.update(kw)
    return simulate(**base)


def score_matrix(res) -> np.ndarray:
    n = res.meta["players"]
    return res.records[[f"score_{s}" for s in range(n)]].to_numpy(np.int64)


def trajectory(full, **kw) -> np.ndarray:
    """T[m, k, s]: seat s's score after k rounds of match m (k = 0 .. longest match)."""
    n = full.meta["players"]
    K = int(full.records["rounds"].max())
    T = np.zeros((len(full.records), K + 1, n), np.int64)
    for k in range(1, K + 1):
        T[:, k] = score_matrix(run(max_rounds=k, **kw))
    # the replay reproduces the full run (matches shorter than k keep their final scores)
    np.testing.assert_array_equal(T[:, K], score_matrix(full))
    return T


def rounds_of(res) -> dict[int, pd.DataFrame]:
    rr = res.extra["rounds"]
    return {int(m): g.sort_values("round").reset_index(drop=True) for m, g in rr.groupby("match")}


def check_round_records(res) -> None:
    """Round records agree with the match records, whatever the scoring mode."""
    rec = res.records
    n = res.meta["players"]
    by_match = rounds_of(res)
    assert sorted(by_match) == rec["match"].tolist()
    for row in rec.itertuples():
        g = by_match[row.match]
        assert len(g) == row.rounds
        assert g["round"].tolist() == list(range(row.rounds))
        assert g["turns"].sum() == row.turns
        # a round has a winner exactly when it was not capped; a capped round has no winner points
        assert ((g["winner"] < 0) == g["capped"]).all()
        assert (g.loc[g["capped"], "winner_points"] == 0).all()
        for s in range(n):
            assert getattr(row, f"round_wins_{s}") == int((g["winner"] == s).sum())


# ---- standard scoring (1.15, 1.16) ------------------------------------------------------------------


@pytest.mark.parametrize("players,target", [(2, 150), (4, None), (5, 300)])
def test_standard_scoring_invariants(players, target):
    res = run(players=players, target=target, round_records=True, games=40)
    tgt = 500 if target is None else target
    assert res.meta["target"] == tgt and res.summary["target"] == tgt
    rec = res.records
    sc = score_matrix(res)
    assert (rec["end_reason"].astype(str) == "done").all()
    # exactly one seat at or above the target, and it is the winner
    assert ((sc >= tgt).sum(axis=1) == 1).all()
    np.testing.assert_array_equal(np.argmax(sc >= tgt, axis=1), rec["winner"].to_numpy())
    assert (rec["winner_policy"] == rec["winner"]).all()  # fixed seating
    check_round_records(res)
    by_match = rounds_of(res)
    for row in rec.itertuples():
        g = by_match[row.match]
        # the dealer passes clockwise from seat n-1 (fixed seating: round k dealt by (n-1+k) mod n)
        assert g["dealer"].tolist() == [(players - 1 + k) % players for k in range(row.rounds)]
        # each seat's score is exactly the points of the rounds it won (capped rounds score nothing)
        for s in range(players):
            assert g.loc[g["winner"] == s, "winner_points"].sum() == sc[row.Index, s]
        assert g["winner_points"].sum() == sc[row.Index].sum()
        # the match ends on the round that carries the winner over the target
        assert g["winner"].iloc[-1] == row.winner
        before = sc[row.Index, row.winner] - g["winner_points"].iloc[-1]
        assert before < tgt


def test_max_rounds_cap():
    res = run(max_rounds=3, target=10_000, games=20)
    rec = res.records
    assert (rec["rounds"] == 3).all()
    assert (rec["end_reason"].astype(str) == "round_cap").all()
    assert (rec["winner"] == -1).all() and (rec["winner_policy"] == -1).all()
    assert res.summary["capped_matches"] == 20
    assert res.summary["seat_match_win_rate"] == [0.0] * 4


# ---- capped rounds (turn cap) score nothing ------------------------------------------------------------

CAPPED = "official+set(turn_cap=1)"  # nobody can go out in one turn: every round is capped


def _capped_rounds_check(scoring):
    res = run(rules=CAPPED, scoring=scoring, max_rounds=4, games=10, round_records=True)
    assert res.extra["rounds"]["capped"].all()
    assert (res.extra["rounds"]["winner"] == -1).all()
    # "A capped round (turn cap) scores nothing" (unosim/running/match.py): nobody scores, nobody is out,
    # and the match runs into max_rounds
    assert (score_matrix(res) == 0).all()
    assert (res.records["rounds"] == 4).all()
    assert (res.records["end_reason"].astype(str) == "round_cap").all()


@pytest.mark.parametrize("scoring", ["standard", "lazy", "rotating_partners"])
def test_capped_rounds_score_nothing(scoring):
    if scoring == "standard":
        _capped_rounds_check(scoring)
        return
    res = run(rules=CAPPED, scoring=scoring, games=10, round_records=True)
    assert res.extra["rounds"]["capped"].all()
    assert (score_matrix(res) == 0).all()
    assert (res.records[[f"round_wins_{s}" for s in range(4)]].to_numpy() == 0).all()


@pytest.mark.parametrize("scoring", ["self_loser", "lowest_wins", "elimination"])
def test_capped_rounds_score_nothing_own_hand(scoring):
    _capped_rounds_check(scoring)


# ---- partners (1.18) ---------------------------------------------------------------------------------


@pytest.mark.parametrize("players", [4, 6])
def test_partners_team_scores(players):
    res = run(players=players, partners=True, round_records=True, games=40, target=400)
    half = players // 2
    rec = res.records
    sc = score_matrix(res)
    check_round_records(res)
    for s in range(half):
        np.testing.assert_array_equal(sc[:, s], sc[:, s + half])
    team_scores = sc[:, :half]
    win_team = rec["winner"].to_numpy() % half
    assert (team_scores[np.arange(len(rec)), win_team] >= 400).all()
    # exactly one team reaches the target
    assert ((team_scores >= 400).sum(axis=1) == 1).all()
    by_match = rounds_of(res)
    strictly_less = 0
    for row in rec.itertuples():
        g = by_match[row.match]
        assert g["winner"].iloc[-1] == row.winner
        for t in range(half):
            # the team scores the *other teams'* hands only (never its partner's): at most the
            # round winner's points, which count every other hand
            won = g.loc[(g["winner"] >= 0) & (g["winner"] % half == t), "winner_points"].sum()
            assert sc[row.Index, t] <= won
            assert (sc[row.Index, t] == 0) == (won == 0)
            strictly_less += sc[row.Index, t] < won
    assert strictly_less > 0


@pytest.mark.parametrize("players", [3, 5])
def test_partners_refused_for_odd_players(players):
    with pytest.raises(ValueError, match=f"players={players}") as ei:
        run(players=players, partners=True)
    assert "\n" not in str(ei.value)


def test_partners_refused_for_other_scorings():
    with pytest.raises(ValueError, match="self_loser") as ei:
        run(partners=True, scoring="self_loser")
    assert "\n" not in str(ei.value)


# ---- own-hand scoring modes (4.20) -------------------------------------------------------------------


def _own_hand_round_increments(res, T):
    """In own-hand modes the round winner adds 0 and the others add exactly the winner's points."""
    for m, g in rounds_of(res).items():
        for r in g.itertuples():
            if r.winner < 0:
                continue
            inc = T[m, r.round + 1] - T[m, r.round]
            assert inc[r.winner] == 0
            assert (inc >= 0).all()
            assert inc.sum() == r.winner_points


def test_self_loser():
    kw = dict(policies="random", scoring="self_loser", games=40, seed=21)
    res = run(round_records=True, **kw)
    assert res.meta["target"] == 200  # default limit
    rec = res.records
    sc = score_matrix(res)
    check_round_records(res)
    T = trajectory(res, **kw)
    idx = np.arange(len(rec))
    R = rec["rounds"].to_numpy()
    # nobody had reached the limit before the last round; at least one seat did in it
    assert (T[idx, R - 1] < 200).all()
    assert (sc >= 200).any(axis=1).all()
    # the reported winner has the lowest total (ties: lowest seat)
    np.testing.assert_array_equal(rec["winner"].to_numpy(), np.argmin(sc, axis=1))
    assert (sc[idx, rec["winner"].to_numpy()] < 200).all()
    _own_hand_round_increments(res, T)


def test_lowest_wins():
    kw = dict(policies="random", scoring="lowest_wins", target=300, games=40, seed=22)
    res = run(round_records=True, **kw)
    rec = res.records
    sc = score_matrix(res)
    T = trajectory(res, **kw)
    idx = np.arange(len(rec))
    R = rec["rounds"].to_numpy()
    assert (T[idx, R - 1] < 300).all()
    assert (sc >= 300).any(axis=1).all()
    np.testing.assert_array_equal(rec["winner"].to_numpy(), np.argmin(sc, axis=1))
    _own_hand_round_increments(res, T)


def test_elimination():
    n, tgt = 4, 200
    kw = dict(policies="random", scoring="elimination", target=tgt, games=40, seed=23)
    res = run(round_records=True, **kw)
    rec = res.records
    sc = score_matrix(res)
    check_round_records(res)
    T = trajectory(res, **kw)
    assert (rec["end_reason"].astype(str) == "done").all()
    # the winner is the only seat still below the target
    assert ((sc < tgt).sum(axis=1) == 1).all()
    np.testing.assert_array_equal(rec["winner"].to_numpy(), np.argmax(sc < tgt, axis=1))
    for m, g in rounds_of(res).items():
        for r in g.itertuples():
            before = T[m, r.round]
            seated = before < tgt
            # nobody who is out deals or wins a round
            assert seated[r.dealer]
            if r.winner >= 0:
                assert seated[r.winner]
            # seats that are out score nothing any more
            after = T[m, r.round + 1]
            assert (after[~seated] == before[~seated]).all()
            # the deal passes clockwise to the next seat still in the match
            if r.round + 1 < len(g):
                nxt = g["dealer"].iloc[r.round + 1]
                still = after < tgt
                expect = next(s % n for s in range(r.dealer + 1, r.dealer + n + 1) if still[s % n])
                assert nxt == expect
    _own_hand_round_increments(res, T)


@pytest.mark.parametrize("alias", ["elimination_last_one", "elimination_final_two", "hp_challenge",
                                   "tournament_elimination"])
def test_elimination_aliases(alias):
    a = run(scoring="elimination", target=150, games=15)
    b = run(scoring=alias, target=150, games=15)
    pd.testing.assert_frame_equal(a.records, b.records)


def test_elimination_winner_was_still_in():
    kw = dict(policies="random", scoring="elimination", target=200, rules="official+set(turn_cap=25)", games=300, seed=3)
    res = run(**kw)
    rec = res.records
    T = trajectory(res, **kw)
    idx = np.arange(len(rec))
    before_last = T[idx, rec["rounds"].to_numpy() - 1]
    assert (before_last[idx, rec["winner"].to_numpy()] < 200).all()


# ---- lazy scoring (4.11) and rotating partners (4.21) ------------------------------------------------


def test_lazy():
    res = run(scoring="lazy", round_records=True, games=60, seed=24)
    assert res.meta["rounds"] == 10
    rec = res.records
    assert (rec["rounds"] == 10).all()
    check_round_records(res)
    assert (score_matrix(res) == 0).all()  # no running score
    rw = rec[[f"round_wins_{s}" for s in range(4)]].to_numpy()
    np.testing.assert_array_equal(rec["winner"].to_numpy(), np.argmax(rw, axis=1))
    assert (rw.max(axis=1) >= 3).all()  # 10 rounds among 4 seats
    for g in rounds_of(res).values():
        assert g["dealer"].iloc[0] == 3
        for a, b in zip(g.itertuples(), list(g.itertuples())[1:], strict=False):
            if a.winner >= 0:  # the round winner leads, someone else (the highest hand) deals
                assert b.dealer != a.winner
    alias = run(scoring="lazy_scoring", games=60, seed=24)
    pd.testing.assert_frame_equal(rec, alias.records)
    short = run(scoring="lazy", rounds=3, games=10)
    assert (short.records["rounds"] == 3).all()


def test_rotating_partners():
    kw = dict(policies="random", scoring="rotating_partners", games=30, seed=25)
    res = run(round_records=True, **kw)
    rec = res.records
    assert res.meta["rounds"] == 12
    assert (rec["rounds"] == 12).all()
    check_round_records(res)
    sc = score_matrix(res)
    np.testing.assert_array_equal(rec["winner"].to_numpy(), np.argmax(sc, axis=1))
    T = trajectory(res, **kw)
    for m, g in rounds_of(res).items():
        for r in g.itertuples():
            inc = T[m, r.round + 1] - T[m, r.round]
            if r.winner < 0:
                assert (inc == 0).all()
                continue
            mate0 = 1 + r.round // 4  # seat 0 partners seat 1, 2, 3 for 4 rounds each
            team = {0, mate0} if r.winner in (0, mate0) else {1, 2, 3} - {mate0}
            assert r.winner in team
            vals = {int(inc[s]) for s in team}
            assert len(vals) == 1  # both members credited with the team score
            assert 0 <= vals.pop() <= r.winner_points
            assert all(inc[s] == 0 for s in range(4) if s not in team)


@pytest.mark.parametrize("players", [2, 3, 5, 6])
def test_rotating_partners_refused(players):
    with pytest.raises(ValueError, match=f"players={players}") as ei:
        run(players=players, scoring="rotating_partners")
    assert "\n" not in str(ei.value)


# ---- determinism and seating ---------------------------------------------------------------------------


@pytest.mark.parametrize("seating", ["fixed", "shuffle"])
def test_determinism_threads_and_batches(seating):
    kw = dict(games=30, seed=77, target=200, seating=seating, round_records=True,
              policies="greedy,random,random,greedy")
    a = run(threads=1, **kw)
    b = run(threads=2, **kw)
    c = run(threads=2, batch_size=7, **kw)
    for other in (b, c):
        pd.testing.assert_frame_equal(a.records, other.records)
        pd.testing.assert_frame_equal(a.extra["rounds"], other.extra["rounds"])
    # a prefix of a longer run is the shorter run
    d = run(threads=2, **{**kw, "games": 45})
    pd.testing.assert_frame_equal(a.records, d.records.iloc[:30])
    # a different seed plays different matches
    e = run(threads=1, **{**kw, "seed": 78})
    assert not a.records.equals(e.records)


@pytest.mark.parametrize("players", [3, 4, 5])
def test_rotate_seating(players):
    res = run(players=players, seating="rotate", games=4 * players, max_rounds=1)
    sm = res.records[[f"policy_at_seat_{s}" for s in range(players)]].to_numpy()
    m = res.records["match"].to_numpy()
    np.testing.assert_array_equal(sm, (np.arange(players)[None, :] + m[:, None]) % players)
    # over any n consecutive matches each policy sits in each seat exactly once
    for lo in range(len(sm) - players + 1):
        block = sm[lo:lo + players]
        for s in range(players):
            assert sorted(block[:, s]) == list(range(players))


def test_shuffle_seating_permutations():
    n, g = 4, 4000
    res = run(players=n, seating="shuffle", games=g, max_rounds=1)
    rec = res.records
    sm = rec[[f"policy_at_seat_{s}" for s in range(n)]].to_numpy()
    assert (np.sort(sm, axis=1) == np.arange(n)).all()
    assert len({tuple(r) for r in sm}) == 24  # all 4! orders occur
    # each policy sits in each seat with probability 1/n: counts within 5 binomial SEs
    se = np.sqrt(g * (1 / n) * (1 - 1 / n))
    for s in range(n):
        counts = np.bincount(sm[:, s], minlength=n)
        assert (np.abs(counts - g / n) < 5 * se).all(), counts
    # winner_policy is the policy in the winning seat
    won = rec["winner"].to_numpy() >= 0
    wp = sm[np.arange(g), np.maximum(rec["winner"].to_numpy(), 0)]
    np.testing.assert_array_equal(rec["winner_policy"].to_numpy()[won], wp[won])
    assert (rec["winner_policy"].to_numpy()[~won] == -1).all()


# ---- statistics and the summary -------------------------------------------------------------------------

SUMMARY_KEYS = ("mean_rounds", "sd_rounds", "seat_match_win_rate", "policy_match_win_rate",
                "mean_final_score_by_seat", "policy_round_win_rate")


def test_greedy_beats_random_and_summary_is_consistent():
    g = 2000
    res = run(policies="greedy,random,greedy,random", seating="rotate", games=g, seed=5, round_records=True)
    s = res.summary
    for k in SUMMARY_KEYS:
        assert k in s
    assert s["mode"] == "match" and s["games"] == g and s["scoring"] == "standard"
    pmw, se = s["policy_match_win_rate"], s["policy_match_win_rate_se"]
    assert set(pmw) == {"greedy", "random"}
    assert pmw["greedy"] - pmw["random"] > 4 * np.hypot(se["greedy"], se["random"])
    prw, prse = s["policy_round_win_rate"], s["policy_round_win_rate_se"]
    assert prw["greedy"] - prw["random"] > 4 * np.hypot(prse["greedy"], prse["random"])

    rec = res.records
    n = 4
    sc = score_matrix(res)
    capped = int((rec["winner"] < 0).sum())
    assert s["capped_matches"] == capped
    np.testing.assert_allclose(s["seat_match_win_rate"],
                               np.bincount(rec["winner"][rec["winner"] >= 0], minlength=n) / g)
    # per-seat shares: two seats each, so the four shares add up to the decided matches
    assert 2 * (pmw["greedy"] + pmw["random"]) == pytest.approx(1 - capped / g)
    assert s["mean_rounds"] == pytest.approx(rec["rounds"].mean())
    assert s["sd_rounds"] == pytest.approx(rec["rounds"].std(ddof=1))
    np.testing.assert_allclose(s["mean_final_score_by_seat"], sc.mean(axis=0))
    # policy round win rate recomputed from the round records (per seat held)
    rr = res.extra["rounds"]
    sm = rec[[f"policy_at_seat_{k}" for k in range(n)]].to_numpy()
    pol_names = res.meta["policies"]
    won = rr[rr["winner"] >= 0]
    wpol = sm[won["match"].to_numpy(), won["winner"].to_numpy()]
    for name in ("greedy", "random"):
        ids = [i for i, p in enumerate(pol_names) if p == name]
        rate = np.isin(wpol, ids).sum() / (len(rr) * len(ids))
        assert prw[name] == pytest.approx(rate)
    # seat rotation: each seat held by each policy in 1/4 of the matches
    assert (np.bincount(sm[:, 0], minlength=n) == g // n).all()


# ---- bad input --------------------------------------------------------------------------------------------


@pytest.mark.parametrize("kw,needle", [
    (dict(target=0), "target=0"),
    (dict(target=-5), "target=-5"),
    (dict(target=2.5), "target=2.5"),
    (dict(scoring="bogus"), "scoring='bogus'"),
    (dict(scoring="self_loser", target=0), "target=0"),
    (dict(partners=True, players=3), "players=3"),
    (dict(partners=True, players=5), "players=5"),
    (dict(seating="bogus"), "seating='bogus'"),
    (dict(max_rounds=0), "max_rounds=0"),
    (dict(dealer="bogus"), "dealer='bogus'"),
    (dict(mode="bogus"), "mode='bogus'"),
    (dict(players=11), "players=11"),
    (dict(games=0), "games=0"),
    (dict(rules="official+play_to_last"), "play_to_last"),
    pytest.param(dict(batch_size=-3), "batch_size=-3"),
    pytest.param(dict(batch_size=0), "batch_size=0"),
])
def test_bad_input(kw, needle):
    with pytest.raises(ValueError) as ei:
        run(**kw)
    msg = str(ei.value)
    assert "\n" not in msg
    assert needle in msg


def test_match_options_refused_in_round_mode():
    with pytest.raises(ValueError, match="target") as ei:
        simulate(games=10, target=200, policies="random")
    assert "\n" not in str(ei.value)
