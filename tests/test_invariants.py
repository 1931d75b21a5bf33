"""Invariants of official classic UNO over many shuffled rounds, and reproducibility of ``simulate``.

* Every round (2..10 players, random and greedy): the 108 cards are conserved, the turn count is
  within the cap, the winner's hand is empty and scores the other hands, and the event log replays
  consistently: every play matches the current colour / number / symbol, the turn order follows
  Skip / Reverse / Draw Two / Wild Draw Four exactly, and the counters agree with the log.
* ``simulate`` gives identical records for the same seed, any thread count and any batch size;
  game ``i`` of a run is game ``i`` of any longer run, and equals ``scenario.play(seed=i)``.
* Bad input raises ValueError with a one-line message.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from numba import njit

from unosim import simulate
from unosim.core import (
    cards_nb,
    decide_nb,
    hands_nb,
    layout,
    nb,
    pairing_nb,
    rng_nb,
    round_nb,
    rules_nb,
)
from unosim.core import enums as E
from unosim.errors import UnosimError
from unosim.ruleset.decks import classic_deck, classic_points, get_deck
from unosim.ruleset.rules import OPTIONS, RuleError, parse_rules
from unosim.running.scenario import Game, play
from unosim.running.sim import pack_rules

DECK = classic_deck()
NAMES = DECK.describe()
KIND = {name: (int(DECK.face_color[0, c]), int(DECK.face_rank[0, c])) for c, name in enumerate(NAMES)}
CAP = 10_000
SEEDS = range(40)


def replay_check(g: Game, n: int) -> None:
    """Re-derive the course of an official round from its event log and check it step by step."""
    ev = g.events
    i = 0
    while ev[i]["event"] == "start_redraw":
        assert ev[i]["card"] == "wd4"
        i += 1
    deal = ev[i]
    assert deal["event"] == "deal"
    start_col, start_rank = KIND[deal["card"]]
    assert start_rank != E.WD4
    d = deal["a2"]
    p = deal["seat"]
    cur = deal["a1"]
    top_rank = start_rank
    dealer = n - 1
    pending = None
    if start_rank == E.REVERSE and n > 2:
        assert (p, d) == (dealer, -1)
    else:
        assert (p, d) == (0, 1)
        if start_rank in (E.SKIP, E.DRAW2) or start_rank == E.REVERSE:
            pending = start_rank
    if start_col != E.BLACK:
        assert cur == start_col
    i += 1
    hand_size = [7] * n
    plays = passes = drawn = reshuffles = 0

    def nxt(s: int) -> int:
        return (s + d) % n

    def take(kind: str) -> dict:
        nonlocal i, reshuffles
        while ev[i]["event"] == "reshuffle":
            reshuffles += 1
            i += 1
        e = ev[i]
        assert e["event"] == kind, (i, e, kind)
        i += 1
        return e

    while True:
        if ev[i]["event"] == "cap":       # the cap is checked before a pending attack resolves
            assert ev[i]["seat"] == p and ev[i]["a1"] == g.turns == CAP
            assert i == len(ev) - 1 and g.end_reason == "turn_cap" and g.winner == -1
            break
        if pending is not None:
            if pending in (E.DRAW2, E.WD4):
                e = take("penalty")
                assert e["seat"] == p and e["a2"] == (2 if pending == E.DRAW2 else 4)
                hand_size[p] += e["a1"]
                drawn += e["a1"]
            e = take("skipped")
            assert e["seat"] == p
            p = nxt(p)
            pending = None
        while ev[i]["event"] == "reshuffle":
            reshuffles += 1
            i += 1
        e = ev[i]
        if e["event"] == "cap":
            continue
        if e["event"] == "pass":          # nothing left to draw
            assert e["seat"] == p and e["card"] is None
            i += 1
            passes += 1
            p = nxt(p)
            continue
        if e["event"] == "draw":
            assert e["seat"] == p
            i += 1
            drawn += 1
            hand_size[p] += 1
            card = e["card"]
            e = ev[i]
            assert e["event"] in ("play", "pass") and e["seat"] == p and e["card"] == card
            if e["event"] == "pass":
                i += 1
                passes += 1
                col, rank = KIND[card]
                # random and greedy always play a legal drawn card (a Wild Draw Four may be illegal)
                assert rank == E.WD4 or not (col == E.BLACK or col == cur or rank == top_rank)
                p = nxt(p)
                continue
        e = take("play")
        assert e["seat"] == p
        plays += 1
        hand_size[p] -= 1
        col, rank = KIND[e["card"]]
        assert col == E.BLACK or col == cur or rank == top_rank, (e, cur, top_rank)
        if col == E.BLACK:
            assert 0 <= e["a1"] < 4
        else:
            assert e["a1"] == col
        cur = e["a1"]
        top_rank = rank
        if hand_size[p] == 0:
            if rank in (E.DRAW2, E.WD4):
                e = take("penalty")
                assert e["seat"] == nxt(p) and e["a2"] == (2 if rank == E.DRAW2 else 4)
                hand_size[nxt(p)] += e["a1"]
                drawn += e["a1"]
            e = take("win")
            assert e["seat"] == p == g.winner and e["a1"] == g.points
            assert i == len(ev)
            break
        if rank == E.REVERSE and n > 2:
            d = -d
            e = take("direction")
            assert e["seat"] == p and e["a1"] == d
        elif rank in (E.SKIP, E.DRAW2, E.WD4, E.REVERSE):
            pending = rank
        p = nxt(p)

    assert g.turns == plays + passes
    assert g.res["cards_drawn"] == drawn
    assert g.res["reshuffles"] == reshuffles
    assert [len(h) for h in g.hand_ids] == hand_size
    assert g.color == E.COLOR_NAMES[cur]


def check_round(g: Game, n: int) -> None:
    ids = [c for h in g.hand_ids for c in h] + g.pile_ids + g.discard_ids
    assert sorted(ids) == list(range(108))
    assert len(g.hand_ids) == n
    assert 1 <= g.turns <= CAP
    assert g.end_reason in ("win", "turn_cap")
    if g.end_reason == "win":
        w = g.winner
        assert 0 <= w < n and g.hand_ids[w] == []
        assert all(g.hand_ids[s] for s in range(n) if s != w)
        expect = sum(classic_points(KIND[NAMES[c]][1]) for s in range(n) if s != w for c in g.hand_ids[s])
        assert g.points == expect == sum(g.hand_points(s) for s in range(n) if s != w)
    else:
        assert (g.winner, g.points, g.turns) == (-1, 0, CAP)
    replay_check(g, n)


@pytest.mark.parametrize("policy", ["random", "greedy"])
@pytest.mark.parametrize("n", range(2, 11))
def test_shuffled_rounds(n: int, policy: str) -> None:
    for seed in SEEDS:
        check_round(play(players=n, seed=seed, policies=policy), n)


def test_shuffled_rounds_mixed_policies() -> None:
    for n in (3, 4, 7):
        pols = [("greedy", "random")[s % 2] for s in range(n)]
        for seed in range(100, 120):
            check_round(play(players=n, seed=seed, policies=pols), n)


def test_many_rounds_reach_reshuffles_and_all_start_cards() -> None:
    """The sample above is not vacuous: the rare paths occur in a larger run."""
    starts = set()
    reshuffled = redrawn = 0
    for seed in range(300):
        g = play(players=2 + seed % 9, seed=seed, policies="random" if seed % 2 else "greedy")
        check_round(g, 2 + seed % 9)
        deal = next(e for e in g.events if e["event"] == "deal")
        starts.add(KIND[deal["card"]][1])
        reshuffled += g.res["reshuffles"] > 0
        redrawn += g.events[0]["event"] == "start_redraw"
    assert {E.SKIP, E.REVERSE, E.DRAW2, E.WILD} <= starts and E.WD4 not in starts
    assert reshuffled > 0 and redrawn > 0


# ---- simulate: reproducibility -----------------------------------------------------------------------

GAMES = 20_000
KW = {"players": 4, "policies": "greedy,random,greedy,random", "games": GAMES}


@pytest.fixture(scope="module")
def base() -> pd.DataFrame:
    return simulate(seed=11, threads=2, **KW).records


def test_records_sane(base: pd.DataFrame) -> None:
    assert len(base) == GAMES and list(base["game"]) == list(range(GAMES))
    assert (base["turns"] >= 1).all() and (base["turns"] <= CAP).all()
    assert set(base["end_reason"].astype(str)) <= {"win", "turn_cap"}
    won = base["end_reason"] == "win"
    assert (base.loc[won, "winner"].between(0, 3)).all()
    hp = base[[f"hand_points_{s}" for s in range(4)]].to_numpy()
    w = base["winner"].to_numpy()
    rows = np.flatnonzero(won.to_numpy())
    assert (hp[rows, w[rows]] == 0).all()
    assert (hp[rows].sum(axis=1) == base["winner_points"].to_numpy()[rows]).all()
    assert (base.loc[~won, "winner"] == -1).all() and (base.loc[~won, "winner_points"] == 0).all()


def test_same_seed_same_records(base: pd.DataFrame) -> None:
    pd.testing.assert_frame_equal(simulate(seed=11, threads=2, **KW).records, base)


def test_threads_do_not_change_records(base: pd.DataFrame) -> None:
    pd.testing.assert_frame_equal(simulate(seed=11, threads=1, **KW).records, base)


@pytest.mark.parametrize("batch_size", [1000, 7777])
def test_batch_size_does_not_change_records(base: pd.DataFrame, batch_size: int) -> None:
    pd.testing.assert_frame_equal(simulate(seed=11, threads=2, batch_size=batch_size, **KW).records, base)


def test_different_seeds_differ(base: pd.DataFrame) -> None:
    other = simulate(seed=12, threads=2, **KW).records
    assert not other["winner"].equals(base["winner"])
    assert (other["turns"].to_numpy() != base["turns"].to_numpy()).mean() > 0.5


def test_prefix_of_a_longer_run() -> None:
    kw = {"players": 3, "policies": "random", "seed": 5}
    short = simulate(games=5_000, **kw).records
    long = simulate(games=8_000, batch_size=3_000, **kw).records
    pd.testing.assert_frame_equal(short, long.iloc[:5_000])


@pytest.mark.parametrize(("n", "policy"), [(2, "greedy"), (4, "random"), (10, "random"), (5, "greedy")])
def test_simulate_matches_scenario_play(n: int, policy: str) -> None:
    """Round i of simulate(seed=0) is scenario.play(seed=i): the same engine, seeding and dealer."""
    rec = simulate(players=n, policies=policy, games=40, seed=0, threads=1).records
    for i in range(40):
        g = play(players=n, seed=i, policies=policy)
        row = rec.iloc[i]
        assert (row["winner"], row["turns"], row["winner_points"], row["cards_drawn"], row["reshuffles"]) == (
            g.winner, g.turns, g.points, g.res["cards_drawn"], g.res["reshuffles"])
        assert str(row["end_reason"]) == g.end_reason
        assert [row[f"hand_points_{s}"] for s in range(n)] == [g.hand_points(s) for s in range(n)]


FAST_RULES = [
    "official",
    "draw_until_playable",
    "official+set(drawn_card_play=forced, wd4_restriction=color_or_number, match_action_by_symbol=false)",
    "official+set(action_on_any_action=true, wild_color_rotation=true, wd4_challenge=false)",
    "official+set(uno_forget_prob=0.5)",  # the last-but-one card leaves the fast turns (the UNO call)
    "official+set(two_player_reverse_as_skip=false)",
    # a draw card laid on the turn that reaches the cap stays pending: its victim draws nothing
    "official+set(turn_cap=24)",
    "official+set(voluntary_draw=false)",
    # a guilty Wild Draw Four taken back or void uncovers the card before it: the challenger's turn follows that card
    "official+wd4_challenge(guilty_card=returns_to_hand)",
    "official+wd4_challenge(guilty_card=void)",
    # answerable attacks: the fast turns keep an attack whose victim holds nothing that may answer it
    "stacking",
    "stacking+set(stack_mixed=true)",
    # a stack's victim that keeps its turn, colour rotation after a stacked wild, a cap reached inside a stack
    "stacking+set(stack_final_victim_skips=false, wild_color_rotation=true)",
    "stacking+set(stack_mixed=true, turn_cap=10)",
    "official+set(deflect_skip=true, deflect_draw_two=true, deflect_wd4=true)",
    "official+set(reverse_bounce=true)",
    "official+set(reverse_bounce=true, reverse_bounce_scope=draw_two_only, reverse_bounce_rebounce=true)",
    "jump_in+stacking",
    # a jump-in on a bounce takes the bounced attack over, and what the bounce said of it with it
    "jump_in+set(reverse_bounce=true, p_beats_scheduled=1)",
    "stacking+set(deflect_skip=true, turn_cap=24)",
    # the swaps and passes of hands, carried out in the fast turns (swaps_nb._swap_builtin, swaps_nb._fast_swap)
    "seven_zero",
    "seven_zero+set(zero_pass_direction=left, seven_swap_mandatory=false)",
    "official+set(zero_swap_any=true, swap_on_five=true)",
    "official+set(swap_on_five=true, swap5_mode=whole_hand, swap5_optional=false)",
    "official+set(speed_round_n_round=true, uno_forget_prob=0.5)",
    # jump-in: a card whose twin is held goes back to the big loop, which opens the window (rules_nb._jumpable)
    "jump_in",
    "jump_in+set(jump_in_allow_wild=false, jump_in_allow_wd4=true, jump_in_draw_resolution=accumulate)",
    "party",
    "official+set(speed_exact_match=true)",
    "official+set(speed_exact_match=true, speed_double_double=true, speed_exact_match_wilds=wild_and_wd4)",
    # rules without fast turns (Skip/Reverse variants, double play): the same check
    "seven_zero+skip_extra_turn+reverse_single_turn",
    "jump_in+double_play_jump_in",
]


@pytest.mark.parametrize("rules", FAST_RULES)
@pytest.mark.parametrize(("n", "policy"), [(2, "random"), (4, "greedy"), (5, "random,greedy,greedy,random,greedy"),
                                           (4, "random(bluff=0.3),greedy(bluff=0.5),random,greedy"),
                                           # seats that challenge: their Wild Draw Fours stay in the full loop
                                           (4, "random(challenge=0.4),greedy,random(bluff=0.3),greedy(challenge=1)"),
                                           # policies of the slot, which read the observation, beside built-ins
                                           (4, "hold_wilds,random,color_majority,greedy"),
                                           (3, "bluffer,card_counter,challenger(threshold=0.2)"),
                                           (2, "weighted,attack")])
def test_fast_turns_match_the_full_loop(rules: str, n: int, policy: str) -> None:
    """simulate plays most turns in turns_nb._fast_turns_nb; scenario.play keeps an event log, which turns the fast
    turns off, so every turn runs through play_round_nb's full loop: both give the same rounds (the
    heuristics' line-ups show that a slot seat sees the same observation in both)."""
    rec = simulate(players=n, policies=policy, rules=rules, games=60, seed=0, threads=1).records
    for i in range(60):
        g = play(players=n, seed=i, policies=policy.split(","), rules=rules)
        row = rec.iloc[i]
        assert (row["winner"], row["turns"], row["winner_points"], row["cards_drawn"], row["reshuffles"],
                row["swaps"], row["jump_ins"]) == (g.winner, g.turns, g.points, g.res["cards_drawn"],
                                                   g.res["reshuffles"], g.res["swaps"], g.res["jump_ins"]), (rules, policy, i)
        assert [row[f"hand_points_{s}"] for s in range(n)] == [g.hand_points(s) for s in range(n)]


_OPTION_DECK = {"2": "flip", "3.2": "bts", "3.3": "hp"}  # docs/rules.md's sections of the decks' own rules


def _each_option_changed() -> list[tuple[str, str]]:
    """(deck, official with one option of the catalogue set away from its default): each other value of a
    switch or a choice, a small count and a probability of 0.3 (turn_cap aside: the equivalence tests above
    cap rounds), on the deck whose rule it is (UNO Flip's, BTS's, Harry Potter's) or the classic deck.  An option that needs
    another rule first (double play needs jump_in ...) is covered by FAST_RULES."""
    cases = []
    for name, info in OPTIONS.items():
        if not info.simulatable or name == "turn_cap":
            continue
        if info.kind == "bool":
            values = ["false" if info.default else "true"]
        elif info.kind == "enum":
            values = [c for c in info.choices if c != info.default]
        elif info.kind == "int":
            values = [3 if name == "hand_size" else max(info.lo or 1, 2)]
        else:  # a probability
            values = [0.3]
        for v in values:
            rules = f"official+set({name}={v})"
            try:
                parse_rules(rules)
            except RuleError:
                continue
            deck = _OPTION_DECK.get(info.section, _OPTION_DECK.get(info.section.split(".")[0], "classic"))
            cases.append((deck, rules))
    return cases


@pytest.mark.parametrize(("deck", "rules"), _each_option_changed())
def test_fast_turns_match_the_full_loop_for_every_option(deck: str, rules: str) -> None:
    """As test_fast_turns_match_the_full_loop, for every option of the catalogue changed on its own (a new
    option is covered here without being named): random, greedy and a seat that reads the observation."""
    policy = "random,greedy,hold_wilds,random"
    rec = simulate(players=4, policies=policy, rules=rules, deck=deck, games=20, seed=0, threads=1).records
    for i in range(20):
        g = play(players=4, seed=i, policies=policy.split(","), rules=rules, deck=deck)
        row = rec.iloc[i]
        assert (row["winner"], row["turns"], row["cards_drawn"], row["reshuffles"], row["swaps"], row["jump_ins"]) == (
            g.winner, g.turns, g.res["cards_drawn"], g.res["reshuffles"], g.res["swaps"], g.res["jump_ins"]), (rules, i)
        assert [row[f"hand_points_{s}"] for s in range(4)] == [g.hand_points(s) for s in range(4)]


@pytest.mark.parametrize(("deck", "rules"), [("flip", "official"), ("flip", "official+set(flip_revealed_black_color=next_player_free)"),
                                           ("flip", "stacking"), ("flip", "official+set(reverse_bounce=true)"),
                                           ("flip", "jump_in"), ("flip", "official+set(turn_cap=30)"),
                                           ("hp", "official"), ("hp", "stacking+set(deflect_skip=true)")])
@pytest.mark.parametrize(("n", "policy"), [(2, "random"), (4, "random,greedy,greedy,random"),
                                           (4, "hold_wilds,random,attack,greedy")])
def test_fast_turns_match_the_full_loop_on_other_decks(deck: str, rules: str, n: int, policy: str) -> None:
    """As above, on UNO Flip (Draw One / Draw Five) and Harry Potter (Draw Three, and the Invisibility Wild
    that blocks a Skip or Draw Three aimed at its holder)."""
    rec = simulate(players=n, policies=policy, rules=rules, deck=deck, games=40, seed=0, threads=1).records
    for i in range(40):
        g = play(players=n, seed=i, policies=policy.split(","), rules=rules, deck=deck)
        row = rec.iloc[i]
        assert (row["winner"], row["turns"], row["winner_points"], row["cards_drawn"], row["reshuffles"]) == (
            g.winner, g.turns, g.points, g.res["cards_drawn"], g.res["reshuffles"]), (deck, rules, policy, i)


def test_turn_cap_in_records() -> None:
    rec = simulate(rules="official+set(turn_cap=15)", players=2, policies="greedy", games=3_000, seed=3).records
    capped = rec["end_reason"] == "turn_cap"
    assert capped.any() and (~capped).any()
    assert (rec["turns"] <= 15).all()
    assert (rec.loc[capped, "turns"] == 15).all()
    assert (rec.loc[capped, "winner"] == -1).all() and (rec.loc[capped, "winner_points"] == 0).all()
    assert (rec.loc[~capped, "winner"] >= 0).all()


def test_ten_players() -> None:
    res = simulate(players=10, policies="greedy", games=2_000, seed=1)
    assert len(res.records) == 2_000
    assert res.records["winner"].between(-1, 9).all()


# ---- simulate: bad input -----------------------------------------------------------------------------

BAD = [
    ({"players": 1}, "players=1"),
    ({"players": 11}, "players=11"),
    ({"games": 0}, "games=0"),
    ({"players": 3, "policies": ["random", "greedy"]}, "2 policies"),
    ({"players": 3, "policies": "random,greedy,random,greedy"}, "4 policies"),
    ({"policies": "smart"}, "'smart'"),
    ({"policies": "scripted"}, "'scripted'"),
]


@pytest.mark.parametrize(("kwargs", "needle"), BAD)
def test_bad_input(kwargs: dict, needle: str) -> None:
    with pytest.raises(ValueError) as err:
        simulate(**kwargs)
    msg = str(err.value)
    assert "\n" not in msg and msg.strip() == msg and needle in msg and "accepted" in msg


# ---- the legality scan on card masks ----------------------------------------------------------------------

@njit(cache=False)
def _scan_options(p, cur, side, top, by_symbol, any_action, restriction, bluff_ok, hand, hlen, fcol, frank, obs, tmp):
    cmask = cards_nb.new_card_masks_nb(fcol, frank, fcol)  # points stand-in: only greedy's keys read them
    no = False
    # the round's tuple (round_nb.play_round_nb's ``g``): what the scan reads (hand, hlen, obs, faces, masks, scratch ``lg``)
    # in place, the rest (piles, policies, rules) are stand-ins it never reads
    g = (hand, hlen, tmp, tmp, tmp, tmp, hlen, hlen, hlen, obs, hlen, obs, fcol, frank, fcol, cmask, hlen, fcol, hlen,
         hlen, hlen, hlen)
    nleg, nopt, bluff = cards_nb._play_options(p, cur, side, top, frank[side, top], no, no, bluff_ok, by_symbol, any_action,
                                         restriction, g)
    out = np.empty(nopt, np.int64)
    for k in range(nopt):
        out[k] = obs[E.OBS_OPT + E.OPT_STRIDE * k + 1]
    return nleg, bluff, out


def _reference_options(hand, cur, side, top, by_symbol, any_action, restriction, bluff_ok, fcol, frank):
    """docs/rules.md 1.7 and the options written out card by card: the legal cards in hand order, a Wild Draw Four
    that breaks the restriction behind them as a bluff (where bluffing is allowed)."""
    top_rank = frank[side, top]
    wdraw = {E.WD4, E.WILD_DRAW2, E.WILD_DRAW_COLOR}
    legal, guilty, wd = [], False, []
    for i, c in enumerate(hand):
        col, rk = fcol[side, c], frank[side, c]
        black = col == E.BLACK
        same_sym = rk == top_rank and (by_symbol or top_rank <= 9) and not black
        any_ok = any_action and top_rank > 9 and fcol[side, top] != E.BLACK and rk > 9 and not black
        if black or col == cur or cur < 0 or same_sym or any_ok:
            legal.append(i)
        guilty |= col == cur or (same_sym and restriction == 1 and cur >= 0)
        if black and rk in wdraw:
            wd.append(i)
    bluff = bluff_ok and guilty and bool(wd)  # (the kernel's "a bluff is possible", whatever the restriction)
    if wd and not (restriction == 2 or not guilty):
        plain = [i for i in legal if i not in wd]
        return len(plain), bluff, plain + (wd if bluff_ok else [])
    return len(legal), bluff, legal


@njit  # not cached: a cached copy would keep an old rules_nb._answer_mask
def _answer_mask_misses(fcol, frank, cmask, pend_kinds):
    """(resp, pend, top rank, colour, side, card) of the first card that decide_nb._response_priority lets answer
    but rules_nb._answer_mask leaves out, over every switch combination; all -1 when there is none."""
    hand = np.zeros((2, fcol.shape[1]), np.int64)
    hlen = np.array([0, 1], np.int64)
    for resp in range(2048):
        for restriction in range(3):
            for j in range(pend_kinds.shape[0]):
                pend, top_rank = pend_kinds[j, 0], pend_kinds[j, 1]
                m = rules_nb._answer_mask(pend, top_rank, resp)
                flags = resp | (restriction << 11) | (top_rank << 16)
                for col in range(4):
                    for side in range(fcol.shape[0]):
                        for c in range(fcol.shape[1]):
                            hand[1, 0] = c
                            if decide_nb._response_priority(1, c, pend, col, col, side, hand, hlen, fcol, frank, flags) > 0 \
                                    and (cmask[side, c] & m) == 0:
                                return resp, pend, top_rank, col, side, c
    return -1, -1, -1, -1, -1, -1


@pytest.mark.parametrize("deck", ["classic", "flip", "harry_potter"])
def test_answer_mask_covers_every_answer(deck: str) -> None:
    """The fast turns resolve an attack at once when the victim's hand meets none of rules_nb._answer_mask's bits;
    that is exact only if every card _response_priority lets answer has one of them (a superset).  Checked
    for every response-window switch, restriction, colour, side and card, for each coloured and wild draw card
    and a Skip (a Reverse that skips with two players too)."""
    from unosim.ruleset.decks import get_deck
    dk = get_deck(deck)
    fcol, frank = dk.face_color.astype(np.int64), dk.face_rank.astype(np.int64)
    draws = {int(r) for r in frank[fcol != E.BLACK] if layout._DRAW_N[r] > 0}
    wild_draws = {int(r) for r in frank[fcol == E.BLACK] if layout._IS_WDRAW[r]}
    pend_kinds = np.array([(r, r) for r in sorted(draws | wild_draws)] + [(E.SKIP, E.SKIP), (E.SKIP, E.REVERSE)],
                          np.int64)
    miss = _answer_mask_misses(fcol, frank, cards_nb.new_card_masks_nb(fcol, frank, dk.face_points.astype(np.int64)),
                                pend_kinds)
    assert miss == (-1,) * 6, f"resp, pend, top rank, colour, side, card of a missed answer: {miss}"


@pytest.mark.parametrize("deck", ["classic", "flip", "harry_potter"])
def test_mask_scan_equals_the_rules_card_by_card(deck: str) -> None:
    """cards_nb._play_options tests one mask word per card (cards_nb.card_masks_nb, cards_nb._turn_masks): on random hands, top
    cards, colours (a free colour too) and rule switches it gives the options of the card-by-card rules."""
    from unosim.ruleset.decks import get_deck
    dk = get_deck(deck)
    fcol, frank = dk.face_color.astype(np.int64), dk.face_rank.astype(np.int64)
    nc = fcol.shape[1]
    rng = np.random.default_rng(11)
    obs = np.zeros(E.obs_size(nc), np.int64)
    tmp = np.zeros(nc, np.int64)
    for _ in range(3000):
        h = int(rng.integers(1, 16))
        cards = rng.permutation(nc)[: h + 1]
        hand = np.zeros((2, nc), np.int64)
        hand[1, :h] = cards[:h]
        side = int(rng.integers(0, 2))
        cur = int(rng.integers(-1, 4))
        args = (cur, side, int(cards[h]), bool(rng.integers(0, 2)), bool(rng.integers(0, 2)), int(rng.integers(0, 3)),
                bool(rng.integers(0, 2)))
        nleg, bluff, out = _scan_options(1, *args, hand, np.array([0, h], np.int64), fcol, frank, obs, tmp)
        want = _reference_options(list(cards[:h]), *args[:6], args[6], fcol, frank)
        assert (nleg, bluff, list(out)) == want, (deck, args, list(cards[:h]))


def _reference_greedy_card(cards: list[int], cur: int, side: int, fcol, frank, fpts) -> int:
    """greedy's card among legal ``cards`` as its rule states it (unosim.players.policies): the coloured card with
    the most points; ties to the current colour, then a draw card > Reverse > Skip = Skip Everyone > Flip >
    numbers, then the lowest colour index, then the first; only then the first attacking wild, else the first
    plain wild; -1 for none."""
    priority = {E.REVERSE: 3, E.SKIP: 2, E.SKIP_ALL: 2, E.FLIP: 1}
    best, best_order = -1, None
    for k, c in enumerate(cards):
        col, rk = int(fcol[side, c]), int(frank[side, c])
        if col == E.BLACK:
            continue
        symbol = 4 if layout._DRAW_N[rk] > 0 else priority.get(rk, 0)
        order = (int(fpts[side, c]), col == cur, symbol, -col)
        if best_order is None or order > best_order:
            best, best_order = k, order
    if best >= 0:
        return best
    wilds = [(frank[side, c] not in (E.WILD, E.INVIS_WILD), -k) for k, c in enumerate(cards)
             if fcol[side, c] == E.BLACK]
    return -max(wilds)[1] if wilds else -1


def _reference_greedy_colour(cards: list[int], side: int, fcol) -> int:
    """The colour greedy names: the one it holds most of, ties to the lowest index; red for none."""
    held = [sum(1 for c in cards if fcol[side, c] == col) for col in range(4)]
    return held.index(max(held))


@njit(cache=False)
def _greedy_card(hand, nleg, cur, side, obs, cmask, fcol):
    for k in range(nleg):
        obs[E.OBS_OPT + E.OPT_STRIDE * k + 1] = k
    return decide_nb._greedy_play(0, nleg, cur, side, obs, hand, cmask), hands_nb._most_color(0, side, hand, np.array([nleg]), fcol)


@pytest.mark.parametrize("deck", ["classic", "flip", "harry_potter", "bts", "zoo"])
def test_greedys_card_keys_order_cards_as_its_rule(deck: str) -> None:
    """greedy picks its card by one key a card (cards_nb._greedy_key, beside the card masks; the paired keys of a UNO Flip
    game: test_flip) and names the colour it holds most of (hands_nb._most_color): on random hands, colours (a free one
    too) and both sides (a Flip game's own faces), card and colour are those its rule names card by card."""
    dk = get_deck(deck)
    fcol, frank, fpts = (a.astype(np.int64) for a in (dk.face_color, dk.face_rank, dk.face_points))
    if deck == "flip":  # a game's own pairing of the faces, as the batch kernels make it
        gcol, grank, gpts = fcol.copy(), frank.copy(), fpts.copy()
        pairing_nb.pair_faces_nb(3, np.uint64(5), fcol, frank, fpts, gcol, grank, gpts)
        fcol, frank, fpts = gcol, grank, gpts
    cmask = cards_nb.new_card_masks_nb(fcol, frank, fpts)
    nc = fcol.shape[1]
    rng = np.random.default_rng(12)
    obs = np.zeros(E.obs_size(nc), np.int64)
    chose_wild = chose_coloured = 0
    for _ in range(3000):
        cards = rng.permutation(nc)[: int(rng.integers(1, 12))]
        side = int(rng.integers(0, fcol.shape[0]))
        cur = int(rng.integers(-1, 4))
        hand = np.zeros((1, nc), np.int64)
        hand[0, : len(cards)] = cards
        got, colour = _greedy_card(hand, len(cards), cur, side, obs, cmask, fcol)
        assert got == _reference_greedy_card(list(cards), cur, side, fcol, frank, fpts), (deck, side, cur, list(cards))
        assert colour == _reference_greedy_colour(list(cards), side, fcol), (deck, side, list(cards))
        chose_wild += fcol[side, cards[got]] == E.BLACK
        chose_coloured += fcol[side, cards[got]] != E.BLACK
    assert chose_wild > 5 and chose_coloured > 1000  # both branches of the rule met


@pytest.mark.parametrize(("rules", "deck"), [
    ("jump_in", "classic"),
    ("jump_in+stacking+seven_zero+set(double_play_jump_in=true, jump_in_allow_wd4=true)", "classic"),
    ("jump_in+set(wd4_challenge_guilty_card=returns_to_hand, swap_on_five=true)", "classic"),
    ("jump_in+stacking", "flip"),
    ("party", "classic"),
])
def test_held_counts_follow_every_card_into_and_out_of_hands(rules: str, deck: str) -> None:
    """The jump-in window asks nobody when no hand holds a card of the top card's kind, read from the counts
    of cards held by kind (st[ST_HELD:], kept as cards are drawn, laid, given back and as the side flips).
    Rounds stopped by a turn cap of 1 to 80 turns leave the state at every stage of a round: the counts
    there are those of the hands, on the side then active.  The seats bluff and challenge half the time
    (a guilty Wild Draw Four goes back to its hand)."""
    dk = get_deck(deck)
    n, nc = 4, dk.size
    pp = np.zeros((n, E.NPP), np.float64)
    pp[:, E.PP_CHALLENGE] = pp[:, E.PP_BLUFF] = 0.5
    pol = np.array([E.POL_RANDOM, E.POL_GREEDY, E.POL_RANDOM, E.POL_GREEDY], np.int64)
    checked = 0
    for cap in range(1, 81):
        ri, rf = pack_rules(parse_rules(f"{rules}+set(turn_cap={cap})"), dk)
        for g in range(4):
            hand, hlen, pile, disc, lg, tmp, active, st, rng, log, order, script, res, _ = round_nb.workspace_nb(n, nc)
            rng[0] = rng_nb.game_seed_nb(np.uint64(cap), np.uint64(g))
            nb.play_one_nb(n, n - 1, -1, order, dk.face_color, dk.face_rank, dk.face_points, ri, rf, pol, pp, script,
                           hand, hlen, pile, disc, lg, tmp, active, st, rng, log, res,
                           np.zeros(E.obs_size(nc), np.int64), nb.no_slot_nb)
            side = st[layout.ST_SIDE]
            want = np.zeros(E.NKINDS, np.int64)
            for q in range(n):
                for c in hand[q, :hlen[q]]:
                    want[dk.face_color[side, c] * E.NRANKS + dk.face_rank[side, c]] += 1
            assert st[layout.ST_HELD_ON] == 1
            assert (st[layout.ST_HELD:layout.ST_HELD + E.NKINDS] == want).all(), (rules, deck, cap, g)
            checked += res[layout.RES_END] == nb.END_CAP
    assert checked > 100  # most rounds were stopped in the middle


# ---- random combinations of options (soak: make soak, not make test) ---------------------------------------------
_SOAK_POLICIES = ["random", "greedy", "hold_wilds", "color_majority", "attack", "challenger", "bluffer", "card_counter",
                  "expert", "random(bluff=0.3,challenge=0.5)", "greedy(challenge=1)", "weighted", "defensive"]


def _random_combination(rng: np.random.Generator) -> tuple[str, str, list[str]]:
    """(rules, deck, seats): 2-6 catalogue options set at random on a main preset, a deck, 2-6 seats."""
    names = sorted(k for k, v in OPTIONS.items() if v.simulatable and k != "turn_cap")
    sets = []
    for name in rng.choice(names, size=int(rng.integers(2, 7)), replace=False):
        info = OPTIONS[name]
        if info.kind == "bool":
            v = str(rng.choice(["true", "false"]))
        elif info.kind == "enum":
            v = str(rng.choice(list(info.choices)))
        elif info.kind == "int":
            v = "3" if name == "hand_size" else str(max(info.lo or 1, 2))
        else:
            v = str(rng.choice([0.0, 0.3, 1.0]))
        sets.append(f"{name}={v}")
    base = str(rng.choice(["official", "stacking", "jump_in", "seven_zero", "party", "draw_until_playable"]))
    n = int(rng.integers(2, 7))
    seats = [str(rng.choice(_SOAK_POLICIES if rng.random() < 0.5 else ["random", "greedy"])) for _ in range(n)]
    return f"{base}+set({', '.join(sets)})", str(rng.choice(["classic", "classic", "flip", "hp", "bts"])), seats


@pytest.mark.soak
def test_random_option_combinations_play_alike_everywhere() -> None:
    """Random combinations of options, decks and seats (a fixed list): simulate's fast turns against the full loop
    (unosim.play), and the same seed across threads and batch sizes.  A soak like this found the guilty Wild Draw
    Four taken back from a reshuffled discard pile (ENGINE_VERSION 7), which no single option showed."""
    rng = np.random.default_rng(2026_12_07)
    tried = failed = 0
    while tried < 300:
        rules, deck, seats = _random_combination(rng)
        try:
            parse_rules(rules)
            rec = simulate(players=len(seats), policies=",".join(seats), rules=rules, deck=deck, games=12, seed=0,
                           threads=1).records
        except UnosimError:
            continue  # a combination the catalogue or the deck refuses (with its one line)
        tried += 1
        for i in range(12):
            g = play(players=len(seats), seed=i, policies=seats, rules=rules, deck=deck)
            row = rec.iloc[i]
            if (row["winner"], row["turns"], row["cards_drawn"], row["reshuffles"], row["swaps"], row["jump_ins"]) != (
                    g.winner, g.turns, g.res["cards_drawn"], g.res["reshuffles"], g.res["swaps"], g.res["jump_ins"]):
                failed += 1
                print("fast turns and full loop differ:", rules, deck, seats, "round", i)
                break
        kw = dict(players=len(seats), policies=",".join(seats), rules=rules, deck=deck, games=600, seed=tried)
        one = simulate(threads=1, **kw).records
        for threads, batch in ((2, 97), (1, 250)):
            if not one.equals(simulate(threads=threads, batch_size=batch, **kw).records):
                failed += 1
                print("the same seed differs:", rules, deck, seats, "threads", threads, "batch", batch)
                break
    assert failed == 0
