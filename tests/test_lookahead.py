"""The resumable state (snapshot at a play decision, resumed exactly) and the lookahead player."""

from __future__ import annotations

from statistics import NormalDist

import numpy as np
import pytest

from unosim import simulate
from unosim.analysis.stats import proportion_ci
from unosim.core import enums as E
from unosim.core import jit, layout, nb, observe_nb, rng_nb, round_nb
from unosim.players import reads
from unosim.players.external import Decision, RoundState
from unosim.players.lookahead import COUNTERS, Lookahead, candidate_moves
from unosim.players.policies import PolicyError
from unosim.ruleset.decks import get_deck
from unosim.ruleset.rules import parse_rules
from unosim.running.sim import pack_rules

CASES = [("official", "classic", 4), ("official+stacking", "classic", 3), ("official+seven_zero", "classic", 4),
         ("official+jump_in+draw_until_playable", "classic", 5), ("party", "classic", 4), ("official", "flip", 4),
         ("official+stacking", "harry_potter", 3)]


class Table:
    """One round of a run, played through the engine's pause mechanism: seat 0 answers from Python
    (greedy's answers), the other seats are greedy."""

    def __init__(self, rules: str, deck: str, n: int, seed: int, gi: int = 0, logged: bool = False):
        self.n = n
        self.log = np.zeros((4096 if logged else 0, 5), np.int64)  # the round's events (lookahead(reads=1) reads them)
        self.dk = get_deck(deck)
        self.ri, self.rf = pack_rules(parse_rules(rules), self.dk)
        self.game_seed = rng_nb.game_seed_nb(np.uint64(seed), np.uint64(gi))
        nc = self.dk.size
        self.hand = np.zeros((n, nc), np.int64)
        self.hlen = np.zeros(n, np.int64)
        self.pile, self.disc, self.lg, self.tmp = (np.zeros(nc, np.int64) for _ in range(4))
        self.st = np.zeros(layout.NST, np.int64)
        self.res = np.zeros(layout.NRES, np.int64)
        self.obs = np.zeros(E.obs_size(nc), np.int64)
        self.rng = np.zeros(1, np.uint64)
        self.active = np.ones(4 * n, np.int64)
        self.pp = np.zeros((n, E.NPP))

    def play(self, pol: list[int], queue: list[int], mode: int = 0) -> int:
        self.rng[0] = self.game_seed
        self.active[:] = 1
        self.st[:] = 0
        self.st[layout.ST_MODE] = mode
        return self.call(np.array(pol, np.int64), np.array(queue, np.int64))

    def call(self, pol: np.ndarray, script: np.ndarray) -> int:
        dk = self.dk
        return nb.play_one_nb(self.n, self.n - 1, -1, np.zeros(0, np.int64), dk.face_color, dk.face_rank,
                              dk.face_points, self.ri, self.rf, pol, self.pp, script, self.hand, self.hlen,
                              self.pile, self.disc, self.lg, self.tmp, self.active, self.st, self.rng,
                              self.log, self.res, self.obs, nb.no_slot_nb)

    def pause_at_play(self, k: int) -> Decision | None:
        """Pause at seat 0's k-th play decision (None if the round ends first)."""
        pol = [E.POL_EXTERNAL] + [E.POL_GREEDY] * (self.n - 1)
        queue: list[int] = []
        plays = 0
        while True:
            self.play(pol, queue, layout.MODE_SNAPSHOT)
            if self.st[layout.ST_ERR] != 3:
                return None
            d = Decision.from_obs(self.obs, 0)
            if d.kind == "play":
                if plays == k:
                    return d
                plays += 1
            queue.append(d.greedy())

    def state(self) -> RoundState:
        dk = self.dk
        return RoundState(self.n, dk.face_color, dk.face_rank, dk.face_points, self.ri, self.rf, self.hand,
                          self.hlen, self.pile, self.disc, self.active, self.st, self.res, nb.no_slot_nb, log=self.log)

    def resume_greedy(self) -> int:
        """Continue the paused round with every seat greedy (POL_FORCED with no answers queued)."""
        self.st[layout.ST_MODE] = layout.MODE_RESUME
        self.st[layout.ST_FORCE_N] = 0
        self.st[layout.ST_FORCE_BASE] = E.POL_GREEDY
        return self.call(np.full(self.n, E.POL_FORCED, np.int64), np.zeros(0, np.int64))

    def outcome(self) -> tuple:
        hands = tuple(tuple(sorted(self.hand[s, :self.hlen[s]])) for s in range(self.n))
        keep = [layout.RES_WINNER, layout.RES_TURNS, layout.RES_WPTS, layout.RES_DRAWN, layout.RES_END, layout.RES_RESHUF,
                layout.RES_CHALLENGES, layout.RES_STACK_MAX, layout.RES_SWAPS, layout.RES_JUMPS, layout.RES_FLIPS, layout.RES_COLOR,
                layout.RES_SIDE]
        return tuple(int(self.res[i]) for i in keep), hands


@pytest.mark.parametrize(("rules", "deck", "n"), CASES)
def test_a_round_resumed_from_its_snapshot_ends_exactly_as_if_never_paused(rules, deck, n):
    resumed = 0
    for seed in range(6):
        t = Table(rules, deck, n, seed)
        t.play([E.POL_GREEDY] * n, [])
        whole = t.outcome()
        for k in (0, 2, 5):
            if t.pause_at_play(k) is None:
                break
            t.resume_greedy()
            assert t.outcome() == whole, (seed, k)
            resumed += 1
    assert resumed >= 10


def _hidden_positions(t: Table, seat: int):
    pos = [(q, i) for q in range(t.n) if q != seat for i in range(t.hlen[q])]
    return pos, int(t.st[layout.ST_PILE_N])


def _permute_hidden(t: Table, seat: int, rng: np.random.Generator, keep_backs: bool) -> None:
    """Shuffle the cards seat cannot see among the places it cannot see into, keeping every hand size,
    the cards it knows of (shown or passed to it) where they are, and on a two-sided deck the visible
    back of every card in another hand."""
    pos, pile_n = _hidden_positions(t, seat)
    kn0 = observe_nb._seen_at(t.obs, t.dk.size)
    pos = [(q, i) for q, i in pos if not t.obs[kn0 + t.hand[q, i]] & (1 << seat)]  # known cards stay put
    cards = [t.hand[q, i] for q, i in pos] + list(t.pile[:pile_n])
    slots = [("h", q, i) for q, i in pos] + [("p", j, 0) for j in range(pile_n)]
    side = int(t.st[layout.ST_SIDE])

    def back(c):
        return (t.dk.face_color[1 - side, c], t.dk.face_rank[1 - side, c]) if keep_backs else 0
    perm = list(rng.permutation(len(cards)))
    # keep backs: swap only among cards with the same back (hands) / anything (pile below)
    if keep_backs:
        by_back: dict = {}
        for j, c in enumerate(cards):
            by_back.setdefault(back(c), []).append(j)
        perm = list(range(len(cards)))
        for group in by_back.values():
            for a, b in zip(group, rng.permutation(group), strict=True):
                perm[a] = b
    new = [cards[j] for j in perm]
    for (kind, a, b), c in zip(slots, new, strict=True):
        if kind == "h":
            t.hand[a, b] = c
        else:
            t.pile[a] = c


@pytest.mark.parametrize(("rules", "deck", "n", "read"), [("official", "classic", 4, 0), ("party", "classic", 3, 0),
                                                          ("official", "flip", 4, 0), ("official", "classic", 4, 1),
                                                          ("draw_until_playable", "classic", 3, 1)])
def test_lookahead_never_peeks(rules, deck, n, read):
    """Permuting the hidden cards consistently with what seat 0 sees never changes its playout counts (with
    reads=1 the round's log is read as well: the cards it names that seat 0 did not see are not read)."""
    la = Lookahead(rollouts=12, reads=read)
    rng = np.random.default_rng(3)
    compared = read_something = 0
    for seed in range(8):
        t = Table(rules, deck, n, seed, logged=bool(read))
        d = t.pause_at_play(3 if read else 1)
        if d is None or len(candidate_moves(d, t.ri)) < 2:
            continue
        saved = (t.hand.copy(), t.pile.copy())
        wins = []
        for trial in range(3):
            if trial:
                t.hand[:], t.pile[:] = saved
                _permute_hidden(t, 0, rng, keep_backs=deck == "flip")
                assert not (np.array_equal(t.hand, saved[0]) and np.array_equal(t.pile, saved[1]))
            d.rng.seed(11)
            counts = la.playout_wins(d, t.state())
            d.rng.seed(12)
            wins.append((counts, la.best_move(d, t.state())))
        assert wins[0] == wins[1] == wins[2], (seed, wins)
        compared += 1
        read_something += int((la.reads_of(d, t.state())[:, :t.dk.size] >= 0).any()) if read else 0
    assert compared >= 4
    assert not read or read_something >= 3  # the reading bound some card


def test_lookahead_playouts_are_played_and_differ_between_moves():
    """Not vacuous: every candidate is played out, and the moves' win counts are not all equal."""
    differ = 0
    for seed in range(6):
        t = Table("official", "classic", 4, seed)
        d = t.pause_at_play(0)
        moves, wins, _ = Lookahead(rollouts=40).playout_wins(d, t.state())
        assert all(0 <= w <= 40 for w in wins)
        differ += len(moves) > 1 and len(set(wins)) > 1
    assert differ >= 2


def _decisions_to_search(rules, seeds, **params):
    """(seed, table, decision, player, candidates) at seat 1's first play decision of each seeded 4-player round,
    where the player has more than one candidate."""
    for seed in seeds:
        t = Table(rules, "classic", 4, seed)
        d = t.pause_at_play(1)
        if d is None:
            continue
        la = Lookahead(**params)
        moves = la.moves_of(d, t.state())
        if len(moves) > 1:
            yield seed, t, d, la, moves


def _finalists_stage(la, d, state, budget, moves):
    """The documented first stage, from playout_wins: with more than three candidates a quarter of the budget on
    each, then the default and the two others that won most (ties to the earlier).  Returns (the finalists, the
    last stage's samples, the first stage's playouts); with three candidates or fewer, all of them and the budget."""
    if len(moves) <= 3:
        return moves, budget, 0
    r1 = budget // 4
    _, won, _ = la.playout_wins(d, state, r1, moves)
    finalists = [moves[0]] + [moves[j] for j in sorted(range(1, len(moves)), key=lambda j: -won[j])[:2]]
    return finalists, (budget - r1) * len(moves) // 3, r1 * len(moves)


@pytest.mark.parametrize("z", [1.0, 0.0])
def test_the_search_in_one_kernel_call_is_the_staged_procedure_it_documents(z):
    """best_move runs its whole search in one call of rollouts_nb.  It plays what the documented procedure
    gives when built from single stages (playout_wins): with more than three candidates a quarter of the budget
    on every candidate, then the rest on the default move and the two others that won most (ties to the
    earlier), judged on that stage alone; the best finalist if it beat the default by more than z paired
    standard errors.  Each stage's seed is the decision's next random number, in both.  (early=0: the whole
    budget; the early stop has its own test below.)"""
    budget = 16
    staged = chosen = 0
    for seed, t, d, la, moves in _decisions_to_search("official+seven_zero", range(14), rollouts=budget, z=z, early=0):
        d.rng.seed(seed)
        got = la.best_move(d, t.state())
        d.rng.seed(seed)
        finalists, r2, _ = _finalists_stage(la, d, t.state(), budget, moves)
        staged += len(moves) > 3
        _, won, differ = la.playout_wins(d, t.state(), r2, finalists)
        best = int(np.argmax(won))
        gain = (won[best] - won[0]) / r2
        sd = (max(differ[best] / r2 - gain * gain, 0.0) / (r2 - 1)) ** 0.5
        want = finalists[best] if gain > 0 and gain > z * sd else finalists[0]
        assert got == want, (seed, moves, got, want)
        chosen += got != moves[0]
    assert staged >= 5 and chosen >= 2, (staged, chosen)


def _settled(won, differ, m, r2, early):
    """No finalist but the default (index 0) is likely to pass the gate (z=1) at the end of a stage of r2: its
    final gain, predicted as normal around its gain after m samples with sd(a sample's difference) x
    sqrt((r2 - m) / (m r2)), is above the gate with a chance under ``early``."""
    k = NormalDist().inv_cdf(1 - early)
    spread = ((r2 - m) / (m * r2)) ** 0.5
    for j in range(1, len(won)):
        gain = (won[j] - won[0]) / m
        sd = max(differ[j] / m - gain * gain, 0.0) ** 0.5
        if gain + k * spread * sd >= sd / (r2 - 1) ** 0.5:
            return False
    return True


@pytest.mark.parametrize("early", [0.05, 0.3])
def test_the_search_stops_early_once_the_default_is_all_but_sure(early):
    """With early > 0 (0.05 by default) the finalists' stage is played in blocks of max(r2 // 8, 8) samples and
    stops after a block once no other finalist is likely to be played (its gain at the stage's end predicted
    from the samples so far); the decision is then judged on the samples played, so the default is played.
    Rebuilt here from single stages: the first k determinizations of a stage depend on its seed alone, so
    playout_wins with k samples gives the counts after any block.  The kernel plays the same decision with the
    same number of playouts, and it does stop early (the test is not vacuous)."""
    budget = 64
    stopped = searched = 0
    for seed, t, d, la, moves in _decisions_to_search("official", range(12), rollouts=budget, early=early):
        d.rng.seed(seed)
        before = COUNTERS.playouts
        got = la.best_move(d, t.state())
        playouts = COUNTERS.playouts - before
        d.rng.seed(seed)
        finalists, r2, want_playouts = _finalists_stage(la, d, t.state(), budget, moves)
        stage = d.rng.getstate()
        done = 0
        while done < r2:
            done = min(done + max(r2 // 8, 8), r2)
            d.rng.setstate(stage)
            _, won, differ = la.playout_wins(d, t.state(), done, finalists)
            if done < r2 and _settled(won, differ, done, r2, early):
                break
        want_playouts += done * len(finalists)
        best = int(np.argmax(won))
        gain = (won[best] - won[0]) / done
        sd = (max(differ[best] / done - gain * gain, 0.0) / (done - 1)) ** 0.5
        want = finalists[best] if gain > 0 and gain > sd else finalists[0]
        assert (got, playouts) == (want, want_playouts), (seed, moves, got, want)
        searched += 1
        stopped += done < r2
    assert searched >= 6 and stopped >= 2, (searched, stopped)


@pytest.mark.parametrize("rules", ["official", "official+seven_zero"])
def test_lookahead_candidates_dedupe_identical_cards_and_split_colours_and_swap_targets(rules):
    checked = 0
    for seed in range(12):
        t = Table(rules, "classic", 4, seed)
        d = t.pause_at_play(0)
        moves = candidate_moves(d, t.ri)
        kinds = {int(d.obs[E.OBS_OPT + E.OPT_STRIDE * k]) for k, _, _ in moves if k >= 0}
        wild = {k for k in kinds if k // E.NRANKS == E.BLACK}
        sevens = {k for k in kinds - wild if k % E.NRANKS == 7} if rules != "official" else set()
        want = len(kinds) - len(wild) - len(sevens) + 4 * len(wild) + 3 * len(sevens) + d.none_ok
        assert len(moves) == want, (moves, kinds)
        assert all(kind == E.D_COLOR for k, kind, _ in moves if k >= 0 and
                   int(d.obs[E.OBS_OPT + E.OPT_STRIDE * k]) in wild)
        checked += len(sevens)
    assert rules == "official" or checked > 0


@pytest.mark.slow
def test_lookahead_beats_three_greedy():
    """Lookahead against three greedy, rotating seats: its win rate is above 1/4 by more than 2 standard
    errors (fixed seed)."""
    g = 800
    r = simulate(players=4, policies="lookahead(rollouts=300),greedy,greedy,greedy", games=g, seed=1,
                 seating="rotate", threads=2)
    wins = int((r.records["winner_policy"] == 0).sum())
    est, _, lo, hi = proportion_ci(wins, g)
    se = (0.25 * 0.75 / g) ** 0.5
    assert est > 0.25 + 2 * se, (est, lo, hi)


@pytest.mark.parametrize("k", range(4))
def test_lookahead_decides_legally_under_random_rules(k):
    rng = np.random.default_rng(40 + k)
    rules = ["official+stacking+set(stack_mixed=true)", "official+seven_zero+jump_in", "speed_uno",
             "everything"][k]
    deck = ["classic", "classic", "classic", "classic"][k] if k != 3 else "classic"
    n = int(rng.integers(2, 8))
    pols = ",".join(["lookahead(rollouts=3)"] + list(rng.choice(["random", "greedy", "hold_wilds"], n - 1)))
    r = simulate(rules=rules, deck=deck, players=n, policies=pols, games=12, seed=k, threads=1)
    assert set(r.records["end_reason"]) <= {"win", "turn_cap"}


@pytest.mark.parametrize("deck", ["flip", "harry_potter", "bts"])
def test_lookahead_decides_legally_on_every_deck(deck):
    r = simulate(rules="official+stacking", deck=deck, players=3, policies="lookahead(rollouts=3),greedy,random",
                 games=12, seed=2, threads=1)
    assert set(r.records["end_reason"]) <= {"win", "turn_cap"}


@pytest.mark.parametrize("deck", ["classic", "flip"])
def test_expert_playouts_play_out_next_to_seats_that_use_no_slot(deck):
    """``expert_rollouts=1`` among seats that need no policy slot (the round's slot serves none): the
    playouts call the heuristics' slot, every playout ends without a policy error (lookahead raises if
    one does), and the decisions are legal."""
    r = simulate(rules="official+stacking", deck=deck, players=3, games=10, seed=3, threads=1,
                 policies="lookahead(rollouts=4,expert_rollouts=1),greedy,random")
    assert set(r.records["end_reason"]) <= {"win", "turn_cap"}


@pytest.mark.parametrize("spec", ["lookahead(rollouts=4)", "lookahead(rollouts=4,expert_rollouts=1)"])
def test_the_search_hands_its_kernel_the_policy_slot_by_address(spec, monkeypatch):
    """A dispatcher passed to a kernel's policy slot is looked up by numba at every call (about 80 microseconds,
    a sixth of a small search's decision): every playout call gets the slot's address (``jit.FixedSlot``),
    the round's slot and the heuristics' alike, at every decision kind."""
    seen = []
    own_slot = Lookahead.own_slot
    monkeypatch.setattr(Lookahead, "own_slot", lambda self, s: seen.append(own_slot(self, s)) or seen[-1])
    simulate(rules="official+stacking", players=3, games=4, seed=2, threads=1, policies=f"{spec},greedy,random")
    assert seen and all(isinstance(slot, jit.FixedSlot) for slot in seen)


@pytest.mark.parametrize(("spec", "words"), [("lookahead(rollouts=0)", "rollouts"),
                                             ("lookahead(rollouts=2.5)", "whole number"),
                                             ("lookahead(depth=3)", "depth")])
def test_lookahead_bad_parameters(spec, words):
    with pytest.raises(PolicyError, match=words):
        simulate(players=2, policies=f"{spec},greedy", games=2, seed=1)


def test_budget_study_writes_its_table_chart_and_pages(tmp_path):
    import importlib.util
    from pathlib import Path

    path = Path(__file__).resolve().parents[1] / "scripts" / "study_lookahead.py"
    spec = importlib.util.spec_from_file_location("study_lookahead", path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    assert mod.main(["--games", "24", "--budgets", "2,3", "--threads", "1", "--out", str(tmp_path)]) == 0
    import pandas as pd

    t = pd.read_csv(tmp_path / "budget.csv")
    assert list(t["policy"]) == ["greedy", "lookahead(rollouts=2)", "lookahead(rollouts=3)"]
    assert (t["ci_lo"] <= t["win_rate"]).all() and (t["win_rate"] <= t["ci_hi"]).all()
    assert t["decisions"].iloc[0] == 0 and (t["decisions"].iloc[1:] > 0).all()
    for name in ("lookahead_budget.png", "lookahead_budget.svg", "summary.md", "report.html"):
        assert (tmp_path / name).is_file()
    assert mod.main(["--budgets", "ten", "--out", str(tmp_path)]) == 2


@pytest.mark.parametrize("rules", ["official", "draw_until_playable", "stacking"])
@pytest.mark.parametrize("base", [E.POL_RANDOM, E.POL_GREEDY])
def test_forced_seat_plays_the_same_round_with_and_without_fast_turns(rules, base):
    """A rollout's forced seat among random or greedy seats: the other seats' turns run in the fast turns
    (turns_nb._fast_turns_nb), and so do the forced seat's once its queued answers are spent (it becomes its base
    policy in ``pol``); until then its turns go back to the full loop.  With an event log (which turns the
    fast turns off) every round is the same.  (The full loop once judged the forced seat's cards against
    the top card from before the fast turns.)"""
    dk = get_deck("classic")
    n, nc = 4, dk.size
    ri, rf = pack_rules(parse_rules(rules), dk)
    pp = np.zeros((n, E.NPP), np.float64)
    for g in range(60):
        outs = []
        for logsize in (0, 5000):
            hand, hlen, pile, disc, lg, tmp, active, st, rng, _log, order, script, res, _ = round_nb.workspace_nb(n, nc)
            pol = np.full(n, base, np.int64)
            pol[g % n] = E.POL_FORCED
            st[layout.ST_FORCE_BASE] = base
            st[layout.ST_FORCE_N] = 1 + g % 2  # its first play: the first option (or a draw), then maybe the last
            st[layout.ST_FORCE:layout.ST_FORCE + 4] = (E.D_PLAY, 0 if g % 3 else -1, E.D_PLAY, 0)
            rng[0] = rng_nb.game_seed_nb(np.uint64(7), np.uint64(g))
            w = nb.play_one_nb(n, n - 1, -1, order, dk.face_color, dk.face_rank, dk.face_points, ri, rf, pol, pp,
                               script, hand, hlen, pile, disc, lg, tmp, active, st, rng,
                               np.zeros((logsize, 5), np.int64), res, np.zeros(E.obs_size(nc), np.int64),
                               nb.no_slot_nb)
            outs.append((w, res[layout.RES_TURNS], res[layout.RES_DRAWN], res[layout.RES_WPTS], tuple(hlen)))
            assert pol[g % n] == base, "the forced seat becomes its base policy once its answers are spent"
        assert outs[0] == outs[1], (rules, base, g)


@pytest.mark.parametrize(("rules", "deck", "base"), [("official", "classic", "expert"),
                                                   ("official+seven_zero", "classic", "expert"),
                                                   ("official", "flip", "expert"),
                                                   ("official", "classic", "card_counter")])
def test_a_forced_seat_whose_base_is_a_heuristic_plays_as_it_from_its_first_decision(rules, deck, base):
    """``lookahead(expert_rollouts=1)``: the deciding seat of a playout becomes the expert (any policy of the
    slot, with its parameters) once its queued answers are spent.  With no answers queued, every round is
    the round in which that seat plays the heuristic from the start: the same winner, turns, draws and
    hands (the observation is kept from the round's start, as for a seated heuristic: card_counter reads
    the discard pile's counts)."""
    from unosim.core import heuristics_nb
    from unosim.players.policies import pack_policies, parse_policy

    dk = get_deck(deck)
    n, nc = 3, dk.size
    ri, rf = pack_rules(parse_rules(rules), dk)
    epol, epp = pack_policies([parse_policy(base)])
    slot = heuristics_nb.heuristics_slot_nb
    experts = 0
    for g in range(40):
        outs = []
        for forced in (True, False):
            hand, hlen, pile, disc, lg, tmp, active, st, rng, _log, order, script, res, _ = round_nb.workspace_nb(n, nc)
            pol = np.full(n, E.POL_GREEDY, np.int64)
            pp = np.zeros((n, E.NPP), np.float64)
            pp[g % n] = epp[0]
            pol[g % n] = E.POL_FORCED if forced else epol[0]
            st[layout.ST_FORCE_BASE] = epol[0]
            rng[0] = rng_nb.game_seed_nb(np.uint64(9), np.uint64(g))
            w = nb.play_one_nb(n, n - 1, -1, order, dk.face_color, dk.face_rank, dk.face_points, ri, rf, pol, pp,
                               script, hand, hlen, pile, disc, lg, tmp, active, st, rng, np.zeros((0, 5), np.int64),
                               res, np.zeros(E.obs_size(nc), np.int64), slot)
            assert st[layout.ST_ERR] == 0
            outs.append((w, res[layout.RES_TURNS], res[layout.RES_DRAWN], res[layout.RES_WPTS], tuple(hlen)))
            experts += forced and pol[g % n] == epol[0]
        assert outs[0] == outs[1], (rules, deck, g)
    assert experts >= 35  # the forced seat became the expert (unless the round ended before its first turn)


def _scratch(ncards: int):
    """determinize_nb's scratch: (mark, unseen, backs, pool, lo, hi)."""
    return (np.zeros(ncards, np.int64), np.zeros(ncards, np.int64), np.zeros(E.NKINDS, np.int64),
            np.zeros(ncards, np.int64), np.zeros(ncards + reads.MAXI, np.int64), np.zeros(ncards + reads.MAXI, np.int64))


def test_determinizations_respect_the_voids_the_draws_showed():
    """Seat 1 showed it lacks red and green (obs[OBS_VOIDS]) and rank 5 (obs[OBS_RANK_VOIDS]): every deal
    gives it none of them while the unseen cards allow; seat 2, void of nothing, gets any colour and rank;
    when too few cards are left outside a void the hand is still filled."""
    from unosim.players.lookahead import determinize_nb

    ncards = 40
    fcol = np.array([[c % 4 for c in range(ncards)]] * 2, np.int64)
    frank = np.array([[c // 4 for c in range(ncards)]] * 2, np.int64)
    hand0 = np.zeros((3, ncards), np.int64)
    hand0[0, :3] = [0, 1, 2]
    hlen0 = np.array([3, 6, 6], np.int64)
    disc0 = np.array([3], np.int64)
    voids = np.array([(1 << (4 * 1 + 0)) | (1 << (4 * 1 + 2)), (1 + 5) << (5 * 1)], np.int64)
    known = np.zeros(E.MAXP * E.NKINDS, np.int64)
    colours, ranks = set(), set()
    for r in range(30):
        rng = np.array([np.uint64(1000 + r)], np.uint64)
        hand, pile = np.zeros((3, ncards), np.int64), np.zeros(ncards, np.int64)
        ok = determinize_nb(0, 3, 0, False, fcol, frank, (hand0, hlen0, ncards - 16, disc0, 1, known, voids,
                                                           reads.NO_READS), rng,
                            hand, pile, _scratch(ncards))
        assert ok
        assert all(fcol[0, c] in (1, 3) and frank[0, c] != 5 for c in hand[1, :6])
        colours |= {int(fcol[0, c]) for c in hand[2, :6]}
        ranks |= {int(frank[0, c]) for c in hand[2, :6]}
        assert sorted([*hand[1, :6], *hand[2, :6], *pile[:ncards - 16]]) == list(range(4, ncards))
    assert colours == {0, 1, 2, 3} and 5 in ranks
    # seat 1 lacks three colours and holds 12 cards: only 8 unseen cards are blue, the other 4 are any colour
    hlen0 = np.array([3, 12, 6], np.int64)
    rng = np.array([np.uint64(7)], np.uint64)
    hand, pile = np.zeros((3, ncards), np.int64), np.zeros(ncards, np.int64)
    assert determinize_nb(0, 3, 0, False, fcol, frank, (hand0, hlen0, ncards - 22, disc0, 1, known,
                                                            np.array([0b0111 << 4, 0], np.int64), reads.NO_READS),
                          rng, hand, pile, _scratch(ncards))
    assert sum(fcol[0, c] == 3 for c in hand[1, :12]) >= 8


# ---- search at every decision kind: replaying the decision's step from its start -------------------------------


def test_pinned_draws_go_on_top_of_the_pile_in_the_order_drawn_and_every_card_stays():
    """pin_draws_nb: the cards this seat drew in the step (it has seen them) are put back on top of the dealt
    pile, the first drawn on top; one dealt into another hand changes places with a pile card of the same
    back (UNO Flip: the other hand keeps the backs this seat sees)."""
    from unosim.players.lookahead import pin_draws_nb

    dk = get_deck("flip")
    nc = dk.size
    rng = np.random.default_rng(5)
    checked = 0
    for _ in range(60):
        perm = rng.permutation(nc)
        n, hlen0 = 3, np.array([5, 7, 6], np.int64)
        hand = np.zeros((n, nc), np.int64)
        hand[1, :7], hand[2, :6] = perm[:7], perm[7:13]
        pile_n = 30
        pile = np.zeros(nc, np.int64)
        pile[:pile_n] = perm[13:13 + pile_n]
        pinned = np.array([perm[int(rng.integers(0, 13 + pile_n))] for _ in range(2)], np.int64)
        if pinned[0] == pinned[1]:
            continue
        back = dk.face_color[1] * 100 + dk.face_rank[1]
        in_hands = {int(c) for c in [*hand[1, :7], *hand[2, :6]]}
        if any(int(c) in in_hands and sum(back[x] == back[c] for x in pile[:pile_n - 2]) < 2 for c in pinned):
            continue  # the pile below has too few cards of that back: the hand's backs may change
        checked += 1
        backs_before = [sorted(dk.face_color[1, c] * 100 + dk.face_rank[1, c] for c in hand[q, :hlen0[q]])
                        for q in (1, 2)]
        cards_before = sorted([*hand[1, :7], *hand[2, :6], *pile[:pile_n]])
        pin_draws_nb(0, n, 0, dk.face_color, dk.face_rank, hlen0, pile_n, pinned, hand, pile)
        assert pile[pile_n - 1] == pinned[0] and pile[pile_n - 2] == pinned[1]
        assert sorted([*hand[1, :7], *hand[2, :6], *pile[:pile_n]]) == cards_before
        backs_after = [sorted(dk.face_color[1, c] * 100 + dk.face_rank[1, c] for c in hand[q, :hlen0[q]])
                       for q in (1, 2)]
        assert backs_after == backs_before
    assert checked >= 20


#: presets whose rounds ask every decision kind
EVERY_KIND = {"play", "play_drawn", "color", "challenge", "respond", "jump_in", "swap_target", "give_card"}


def test_lookahead_searches_every_decision_kind_from_its_step():
    """Each decision kind is searched (the playouts replay its step from the start, the seat's earlier answers
    and its drawn cards first: the cards add up at every one, or the run stops with an error), in round and
    match mode; with every_decision=0 only play decisions are."""
    from unosim.players.lookahead import COUNTERS

    searched: set[str] = set()
    for rules, players in (("official+stacking+swap_on_five", 3), ("everything", 4), ("party", 4)):
        COUNTERS.reset()
        simulate(rules=rules, players=players, policies=",".join(["lookahead(rollouts=4)"] + ["greedy"] * (players - 1)),
                 games=12, seed=3, threads=1)
        searched |= set(COUNTERS.by_kind)
    assert searched == EVERY_KIND
    COUNTERS.reset()
    simulate(rules="official+stacking", players=2, policies="lookahead(rollouts=4),greedy", games=3, seed=2,
             threads=1, mode="match")
    assert {"play", "play_drawn", "respond"} <= set(COUNTERS.by_kind)
    COUNTERS.reset()
    simulate(rules="everything", players=4, policies="lookahead(rollouts=4,every_decision=0),greedy,greedy,greedy",
             games=6, seed=3, threads=1)
    assert set(COUNTERS.by_kind) == {"play"}


def _captured_step_decisions(rules: str, deck: str, n: int) -> list:
    """(decision, state) at the non-play decisions with a choice of one lookahead seat among greedy ones."""
    from unosim.players.external import register_class
    from unosim.players.lookahead import candidate_answers

    got = []

    class Capture(Lookahead):
        name = "capture_step_states"

        def decide(self, d):
            if d.kind != "play" and d.state is not None and len(candidate_answers(d)) > 1:
                got.append((d, d.state))
            return d.greedy()

    register_class(Capture, "tests")
    simulate(rules=rules, deck=deck, players=n, policies=",".join(["capture_step_states"] + ["greedy"] * (n - 1)),
             games=15, seed=4, threads=1)
    return got


@pytest.mark.parametrize(("rules", "deck", "n"), [("official+stacking+jump_in", "classic", 3),
                                                  ("official", "flip", 3)])
def test_lookahead_never_peeks_at_other_decisions(rules, deck, n):
    """At decisions other than play the search starts from its step's start: permuting the cards the seat
    cannot see (other hands and the pile below the cards it drew in the step, keeping hand sizes and, on UNO
    Flip, visible backs) never changes its playout counts or its answer."""
    la = Lookahead(rollouts=10)
    rng = np.random.default_rng(9)
    compared = 0
    for d, s in _captured_step_decisions(rules, deck, n)[:12]:
        seat = d.seat
        pile_n = int(s.st[layout.ST_PILE_N]) - len(s.pinned)
        places = [(q, i) for q in range(n) if q != seat for i in range(int(s.hlen[q]))]
        cards = [int(s.hand[q, i]) for q, i in places] + [int(c) for c in s.pile[:pile_n]]
        side = int(s.st[layout.ST_SIDE])
        # the backs as this game's faces pair them (UNO Flip pairs light and dark faces per game)
        backs = [(s.fcol[1 - side, c], s.frank[1 - side, c]) if deck == "flip" else 0 for c in cards]
        results = []
        for trial in range(2):
            if trial:
                perm = list(range(len(cards)))
                for b in set(backs):
                    group = [j for j in range(len(cards)) if backs[j] == b]
                    for a, j in zip(group, rng.permutation(group), strict=True):
                        perm[a] = j
                new = [cards[j] for j in perm]
                for (q, i), c in zip(places, new[:len(places)], strict=True):
                    s.hand[q, i] = c
                s.pile[:pile_n] = new[len(places):]
            d.rng.seed(21)
            counts = la.playout_wins(d, s)
            d.rng.seed(22)
            results.append((counts, la.best_move(d, s)))
        assert results[0] == results[1], (d.kind, results)
        compared += 1
    assert compared >= 5


def test_a_short_lookahead_run_keeps_every_thread_busy_with_the_same_records():
    """A seat that reads the engine's state plays thousands of times slower a round than the built-ins: a
    run of a few dozen rounds is split into several batches a thread (not one batch of 1,000 rounds, which
    left a thread idle), and the records do not depend on it."""
    from unosim.running.sim import check_simulate

    kw = dict(players=2, policies="lookahead(rollouts=4),random", games=24, seed=3)
    assert check_simulate(threads=2, **kw).batch_size <= 24 // 2 // 4 + 1
    assert check_simulate(players=2, policies="greedy,random", games=24, threads=2).batch_size >= 24
    one = simulate(threads=1, **kw).records
    two = simulate(threads=2, **kw).records
    assert one.equals(two)


@pytest.mark.parametrize(("rules", "deck", "n", "mode"), [("official", "classic", 4, "round"),
                                                          ("official+stacking+jump_in+draw_until_playable", "classic", 3,
                                                           "round"),
                                                          ("official", "flip", 3, "round"),
                                                          ("official+challenges", "classic", 2, "match")])
def test_the_engine_answers_single_answer_decisions_of_the_search_and_nothing_changes(rules, deck, n, mode, monkeypatch):
    """lookahead asks not to see the decisions that allow a single answer (``asks_forced = False``): the engine
    answers them itself (nb.steps_nb), the search never sees one, and the records are those of the run in which
    it is asked at every decision (the same answers, queued in the same order: the later decisions' random
    streams and the replayed steps' answers are the same)."""
    seen: list[Decision] = []
    decide = Lookahead.decide
    monkeypatch.setattr(Lookahead, "decide", lambda self, d: seen.append(d) or decide(self, d))
    kw = dict(rules=rules, deck=deck, players=n, policies=",".join(["lookahead(rollouts=4)"] + ["random"] * (n - 1)),
              games=8 if mode == "round" else 2, seed=6, threads=1, mode=mode)
    def single(decisions):  # the decisions that allow one answer (nb.single_answer_nb)
        return [d for d in decisions if (d.nopt == 0 and d.none_ok) or (d.nopt == 1 and not d.none_ok)]

    skipped = simulate(**kw).records
    assert seen and not single(seen)
    asked_before = len(seen)
    monkeypatch.setattr(Lookahead, "asks_forced", True)
    asked = simulate(**kw).records
    forced = single(seen[asked_before:])
    assert forced  # the draws with nothing to play are asked again
    assert len(seen) - asked_before == asked_before + len(forced)
    assert skipped.equals(asked)
