"""Fidelity checks (docs/rules.md sections 4 and 4.20): scenario tests on rigged decks of the exact effect of a
rule, and statistics that must move the right way, for the rules an independent check found wrong or left
unchecked.  Scenario helpers are those of test_house_rules (trace format: ``play SEAT CARD [mode]``,
``skipped SEAT``, ``penalty SEAT N``, ``win SEAT``)."""

from __future__ import annotations

import numpy as np
import pytest
from test_house_rules import PILE, run, trace

from unosim.core import enums as E
from unosim.core import layout, nb, rng_nb, rules_nb

# ================================================================================================
# deflect_skip (docs/rules.md 4.6) with two players: a Reverse acts as a Skip (1.17) but is not a Skip
# ================================================================================================


@pytest.mark.parametrize("answer", ["rskip", "rrev"])
def test_deflect_skip_two_players_a_reverse_that_skips_is_not_deflected(answer: str) -> None:
    """Only exactly the same card deflects a Skip; a Reverse acting as a Skip is no Skip, so neither a Skip
    of its colour nor anything else deflects it under deflect_skip: the victim is not even asked."""
    g = run([["rrev", "r1"], [answer, "r2"]], "r5", rules="official+deflect_skip", script=["rrev", "r1"])
    assert trace(g) == ["play 0 rrev", "skipped 1", "play 0 r1", "win 0"]
    assert g.turns == 2


def test_deflect_skip_two_players_a_skip_is_still_deflected() -> None:
    g = run([["rskip", "g1"], ["rskip", "r1"]], "r5", rules="official+deflect_skip",
            script=["rskip", "rskip", "r1"])
    assert trace(g) == ["play 0 rskip", "play 1 rskip deflect", "skipped 0", "play 1 r1", "win 1"]


def test_answer_mask_leaves_skips_out_after_a_reverse_that_skips() -> None:
    """The fast turns' answer mask is exact here, not just a superset: with deflect_skip alone, nothing may
    answer a Reverse that skips, so its victim is resolved at once in the fast turns too."""
    skip_bit = 1 << (layout.CM_RANK0 + E.SKIP)
    assert rules_nb._answer_mask(E.SKIP, E.REVERSE, 16) == 0
    assert rules_nb._answer_mask(E.SKIP, E.SKIP, 16) == skip_bit


# ================================================================================================
# lazy scoring (docs/rules.md 4.11): the next dealer among tied highest hands, lazy_tie_break
# ================================================================================================


def _lazy_dealers(pts: list[int], winner: int, tie_random: bool, draws: int) -> np.ndarray:
    n = len(pts)
    p = np.array(pts, np.int64)
    seated = np.ones(n, np.int64)
    out = np.empty(draws, np.int64)
    for k in range(draws):
        rng = np.array([rng_nb.game_seed_nb(np.uint64(7), np.uint64(k))], np.uint64)
        out[k] = nb._lazy_dealer_nb(winner, n, p, seated, tie_random, rng)
    return out


def test_lazy_dealer_first_clockwise_takes_the_first_tied_seat_after_the_winner() -> None:
    assert set(_lazy_dealers([0, 10, 5, 10], 0, False, 50)) == {1}
    assert set(_lazy_dealers([10, 5, 0, 10], 2, False, 50)) == {3}   # clockwise from the winner, wrapping
    assert set(_lazy_dealers([3, 0, 9, 4], 1, True, 50)) == {2}      # no tie: the highest hand, whatever the rule


def test_lazy_dealer_random_draws_uniformly_among_the_tied_highest_hands() -> None:
    draws = 4000
    got = _lazy_dealers([10, 0, 10, 4, 10], 1, True, draws)
    counts = np.bincount(got, minlength=5)
    assert counts[1] == counts[3] == 0           # never the winner, never a lower hand
    se = np.sqrt(draws * (1 / 3) * (2 / 3))
    assert np.all(np.abs(counts[[0, 2, 4]] - draws / 3) < 4.5 * se), counts


def _round_one_dealer_offsets(tie_break: str, matches: int) -> np.ndarray:
    """(dealer of round 1 - winner of round 0) mod 4 in 4-player lazy matches (round 0 is the same deal
    under either tie-break: only the dealer of round 1 onwards may differ)."""
    from unosim.running.match import simulate_matches

    res = simulate_matches(rules=f"official+set(lazy_tie_break={tie_break})", players=4, policies="random",
                           games=matches, seed=11, threads=1, scoring="lazy", rounds=2, round_records=True)
    r = res.extra["rounds"]
    r0 = r[r["round"] == 0].set_index("match")
    r1 = r[r["round"] == 1].set_index("match")
    ok = r0["winner"] >= 0
    return ((r1["dealer"][ok].to_numpy() - r0["winner"][ok].to_numpy()) % 4).astype(np.int64)


def test_lazy_random_tie_break_moves_the_deal_away_from_the_seat_after_the_leader() -> None:
    """Same deals, two tie-breaks: where round 0 ends in a tie for the highest hand, first_clockwise gives
    the deal to the first tied seat after the winner, random to any of them; so random's dealer is never
    closer to the winner, is further in some matches, and the seat after the leader deals less often."""
    first = _round_one_dealer_offsets("first_clockwise", 3000)
    rand = _round_one_dealer_offsets("random", 3000)
    assert np.all(rand >= first)
    moved = int((rand > first).sum())
    assert 20 < moved < 300, moved    # ties for the highest hand are a few per cent of rounds
    assert (rand == 1).sum() < (first == 1).sum()


# ================================================================================================
# self_loser (docs/rules.md 4.20): the first to the limit loses, everyone else wins
# ================================================================================================


def test_self_loser_reports_the_loser_and_the_share_of_matches_each_seat_avoids_losing() -> None:
    from unosim.running.match import simulate_matches

    res = simulate_matches(players=4, policies="greedy,random,greedy,random", games=600, seed=4,
                           scoring="self_loser", threads=1)
    r, s = res.records, res.summary
    scores = r[[f"score_{k}" for k in range(4)]].to_numpy()
    done = (r["end_reason"].astype(object) == "done").to_numpy()
    loser = r["loser"].to_numpy()
    assert np.all(loser[~done] == -1)
    # the loser reached the limit and holds the highest total; the old winner column is the lowest total
    assert np.all(scores[done, loser[done]] >= 200)
    assert np.all(scores[done, loser[done]] == scores[done].max(axis=1))
    assert np.all(r["winner"].to_numpy() != loser)
    lost = np.bincount(loser[loser >= 0], minlength=4)
    assert s["seat_avoided_loss_rate"] == pytest.approx((done.sum() - lost) / len(r))
    # greedy seats (0, 2) lose less often than random ones, by policy as by seat
    assert min(s["seat_avoided_loss_rate"][0], s["seat_avoided_loss_rate"][2]) > \
        max(s["seat_avoided_loss_rate"][1], s["seat_avoided_loss_rate"][3])
    g, q = s["policy_avoided_loss_rate"]["greedy"], s["policy_avoided_loss_rate"]["random"]
    assert g == pytest.approx((s["seat_avoided_loss_rate"][0] + s["seat_avoided_loss_rate"][2]) / 2)
    assert g > q


# ================================================================================================
# Rules the independent check left unchecked: a rigged scenario where none existed, plus a statistic
# that must move the right way (paired: the same seeds with the rule off and on)
# ================================================================================================


def _paired(rules_off: str, rules_on: str, **kw):
    import unosim

    kw = {"players": 4, "policies": "greedy", "games": 4000, "seed": 21, "threads": 1, **kw}
    return unosim.simulate(rules=rules_off, **kw).records, unosim.simulate(rules=rules_on, **kw).records


# ---- UNO BTS (docs/rules.md 3.2): the Dancing Wild --------------------------------------------------


@pytest.mark.parametrize("rules,drawn,next_seat", [
    ("official", 3, 1),                                          # draw 3 and keep the turn (default)
    ("official+set(dancing_wild_target_skips=true)", 3, 2),      # draw 3 and lose the turn
    ("official+set(p_dance=1)", 0, 1),                           # the target dances: a plain Wild
])
def test_bts_dancing_wild_target_draws_three_or_dances(rules: str, drawn: int, next_seat: int) -> None:
    g = run([["dw", "r1"], ["g3", "g4"], ["g5", "g6"]], "r5", deck="bts", rules=rules, pile=["y1", "y2", "y3"],
            script=["dw", "green", "g3" if next_seat == 1 else "g5"], end=None)
    ev = [e for e in g.events if e["event"] != "deal"]
    assert (ev[0]["event"], ev[0]["seat"]) == ("play", 0)
    assert len(g.hands[1]) == 2 + drawn - (1 if next_seat == 1 else 0)
    plays = [e["seat"] for e in g.kinds("play")]
    assert plays[:2] == [0, next_seat]
    assert g.color == "green"


def test_bts_dancing_wild_dancing_draws_fewer_cards() -> None:
    off, on = _paired("official", "official+set(p_dance=1)", deck="bts", games=3000)
    assert on["cards_drawn"].mean() < off["cards_drawn"].mean()
    assert (on["cards_drawn"].to_numpy() <= off["cards_drawn"].to_numpy()).mean() > 0.5


# ---- Speed Uno (docs/rules.md 4.18) with two decks: all 216 cards stay in play -----------------------


def test_speed_uno_with_two_decks_conserves_all_216_cards() -> None:
    from unosim.running.scenario import play

    for seed in range(25):
        g = play(players=6, seed=seed, rules="speed_uno", deck="classic(copies=2)", policies="random")
        ids = [c for h in g.hand_ids for c in h] + g.pile_ids + g.discard_ids
        assert sorted(ids) == list(range(216)), seed
        assert g.end_reason in ("win", "turn_cap"), seed


# ---- zero_worth_50 (docs/rules.md 4.16): only the scoring changes, by 50 a zero -----------------------


@pytest.mark.parametrize("condition", ["sole_card", "any_zero"])
def test_zero_worth_50_adds_50_for_each_zero_left_and_changes_nothing_else(condition: str) -> None:
    off, on = _paired("official", f"official+zero_worth_50(zero50_condition={condition})")
    for col in ("winner", "turns", "cards_drawn", "end_reason"):
        assert off[col].equals(on[col]), col
    hp = [f"hand_points_{s}" for s in range(4)]
    d = on[hp].to_numpy() - off[hp].to_numpy()
    assert np.all(d % 50 == 0) and np.all(d >= 0)
    if condition == "sole_card":
        # a sole 0 is worth 50: only a hand whose plain points are 0 (and which holds cards) gains, by 50
        assert set(np.unique(d)) <= {0, 50}
        assert np.all(off[hp].to_numpy()[d == 50] == 0)
    # the winner scores the others' hands: the zeros left in them, 50 each
    dw = (on["winner_points"] - off["winner_points"]).to_numpy()
    assert np.array_equal(dw, d.sum(axis=1))
    assert dw.mean() > 0


# ---- the penalty rules (docs/rules.md 4.19): more cards drawn -----------------------------------------


@pytest.mark.parametrize("rule", ["penalty_general_mistake(p_mistake=0.05)", "penalty_hint(p_hint=0.05)",
                                  "penalty_illegal_play(p_illegal_attempt=0.05)"])
def test_penalty_rules_make_players_draw_more(rule: str) -> None:
    off, on = _paired("official", f"official+{rule}", games=3000)
    diff = on["cards_drawn"].to_numpy() - off["cards_drawn"].to_numpy()
    se = diff.std(ddof=1) / np.sqrt(len(diff))
    assert diff.mean() > 4.5 * se


# ---- double-play jump-in (docs/rules.md 4.2) ---------------------------------------------------------


def test_double_play_jump_in_adds_jump_ins_as_p_self_jump_wins_grows() -> None:
    base = "official+jump_in(p_beats_scheduled=0.5)+double_play_jump_in"
    off, on = _paired(f"{base}(p_self_jump_wins=0)", f"{base}(p_self_jump_wins=1)", games=3000)
    assert on["jump_ins"].mean() > off["jump_ins"].mean()


# ---- scoring modes on UNO Flip and under house rules ---------------------------------------------


@pytest.mark.parametrize("deck,rules", [("flip", "official"),
                                        ("classic", "official+stacking+seven_zero+zero_worth_50(zero50_condition=any_zero)"),
                                        ("bts", "official+jump_in")])
def test_standard_match_scores_are_the_round_winners_points(deck: str, rules: str) -> None:
    """Standard scoring on UNO Flip and under house rules: every seat's final score is the sum of the
    points of the rounds it won (the winner's points of a round are the side up at its end, zeros worth
    50 where the rule says so), and the match ends at the first seat past the target."""
    from unosim.running.match import simulate_matches

    res = simulate_matches(rules=rules, players=3, policies="greedy", games=150, seed=8, threads=1, deck=deck,
                           target=200, round_records=True)
    rr = res.extra["rounds"]
    won = rr[rr["winner"] >= 0].groupby(["match", "winner"])["winner_points"].sum()
    rec = res.records.set_index("match")
    for (m, w), pts in won.items():
        assert rec.loc[m, f"score_{w}"] == pts
    done = rec["end_reason"].astype(object) == "done"
    final = rec.loc[done, [f"score_{s}" for s in range(3)]].to_numpy()
    assert np.all(final.max(axis=1) >= 200)
    assert np.all(rec.loc[done, "winner"].to_numpy() == final.argmax(axis=1))


@pytest.mark.parametrize("deck", ["flip", "classic"])
def test_lazy_matches_are_ten_rounds_and_the_winner_leads(deck: str) -> None:
    from unosim.running.match import simulate_matches

    res = simulate_matches(rules="official+seven_zero", players=4, policies="random", games=200, seed=9, threads=1,
                           deck=deck, scoring="lazy", round_records=True)
    assert np.all(res.records["rounds"] == 10)
    rr = res.extra["rounds"].sort_values(["match", "round"])
    same = (rr["match"].shift(1) == rr["match"]).to_numpy()
    prev_w = rr["winner"].shift(1).to_numpy()
    ok = same & (prev_w >= 0)
    # the dealer of the next round is never the winner of the last (who leads it)
    assert np.all(rr["dealer"].to_numpy()[ok] != prev_w[ok])


# ---- jump-in combined with stacking (docs/rules.md 4.1 with 4.5) ----------------------------------------


@pytest.mark.parametrize("resolution,total", [("accumulate", 6), ("transfer", 4)])
def test_jump_in_then_stacking_adds_the_stack_to_what_the_jump_in_left_pending(resolution: str, total: int) -> None:
    """A Draw Two jumped in on a Draw Two leaves 4 pending (accumulate) or 2 (transfer: only the jumper's
    card counts); the new target stacks another Draw Two on it, and the next player draws the total."""
    g = run([["r+2", "r1"], ["g1"], ["r+2", "r6"], ["g+2", "y2"]], "r3", dealer=3, pile=PILE,
            rules=f"official+stacking+jump_in(p_beats_scheduled=1, jump_in_draw_resolution={resolution})",
            script=["r+2", "r+2", "g+2", "g1"])
    assert trace(g) == ["play 0 r+2", "jump_in 2 r+2", "play 2 r+2 jump", "play 3 g+2 stack",
                        f"stack 3 g+2 ={total}", f"penalty 0 {total}", "skipped 0", "play 1 g1", "win 1"]
    assert len(g.hands[0]) == 1 + total
    assert (g.res["jump_ins"], g.res["max_stack"]) == (1, 2)


# ---- play_to_last (docs/rules.md 4.14): the last player holding cards loses ---------------------------


def test_play_to_last_the_loser_is_the_last_hand_and_weaker_players_lose_more() -> None:
    import unosim

    r = unosim.simulate(rules="official+play_to_last", players=4, policies="greedy,random,greedy,random",
                        games=3000, seed=5, threads=1).records
    won = (r["end_reason"].astype(object) == "win").to_numpy()
    loser, winner = r["loser"].to_numpy()[won], r["winner"].to_numpy()[won]
    assert np.all((loser >= 0) & (loser != winner))
    lost = np.bincount(loser, minlength=4)
    assert lost[[1, 3]].min() > lost[[0, 2]].max()     # random seats are left holding cards more often


# ---- the challenge variants (docs/rules.md 1.11) -----------------------------------------------------


def test_challenge_innocent_draw_6_makes_wrong_challengers_draw_more_than_4() -> None:
    """Players who never bluff and always challenge: every challenge is innocent, so the challenger draws
    wd4_challenge_innocent_draw (6 by default) instead of 4; rounds draw more cards with 6."""
    four, six = _paired("official+wd4_challenge(innocent_draw=4)", "official",
                        policies="random(challenge=1,bluff=0)", games=3000)
    assert four["challenges"].sum() > 1000
    diff = six["cards_drawn"].to_numpy() - four["cards_drawn"].to_numpy()
    assert diff.mean() > 4.5 * diff.std(ddof=1) / np.sqrt(len(diff))
