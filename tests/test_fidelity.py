"""Fidelity checks (RULES.md sections 4 and 4.20): scenario tests on rigged decks of the exact effect of a
rule, and statistics that must move the right way, for the rules an independent check found wrong or left
unchecked.  Scenario helpers are those of test_house_rules (trace format: ``play SEAT CARD [mode]``,
``skipped SEAT``, ``penalty SEAT N``, ``win SEAT``)."""

from __future__ import annotations

import numpy as np
import pytest
from test_house_rules import run, trace

from unosim import enums as E
from unosim import nb

# ================================================================================================
# deflect_skip (RULES.md 4.6) with two players: a Reverse acts as a Skip (1.17) but is not a Skip
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
    skip_bit = 1 << (nb.CM_RANK0 + E.SKIP)
    assert nb._answer_mask(E.SKIP, E.REVERSE, 16) == 0
    assert nb._answer_mask(E.SKIP, E.SKIP, 16) == skip_bit


# ================================================================================================
# lazy scoring (RULES.md 4.11): the next dealer among tied highest hands, lazy_tie_break
# ================================================================================================


def _lazy_dealers(pts: list[int], winner: int, tie_random: bool, draws: int) -> np.ndarray:
    n = len(pts)
    p = np.array(pts, np.int64)
    seated = np.ones(n, np.int64)
    out = np.empty(draws, np.int64)
    for k in range(draws):
        rng = np.array([nb.game_seed_nb(np.uint64(7), np.uint64(k))], np.uint64)
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
    from unosim.match import simulate_matches

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
# self_loser (RULES.md 4.20): the first to the limit loses, everyone else wins
# ================================================================================================


def test_self_loser_reports_the_loser_and_the_share_of_matches_each_seat_avoids_losing() -> None:
    from unosim.match import simulate_matches

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
