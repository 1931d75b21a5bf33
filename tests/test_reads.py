"""Reading the other seats' plays as greedy's (unosim.players.reads, lookahead(reads=1))."""

from __future__ import annotations

from collections import Counter

import numpy as np
import pytest

from unosim import simulate
from unosim.core import enums as E
from unosim.core import layout
from unosim.players import reads
from unosim.players.external import PythonPolicy
from unosim.ruleset.decks import get_deck
from unosim.ruleset.rules import parse_rules
from unosim.running.sim import pack_rules


def _scratch(k: int = 200):
    return np.empty(k, np.int64), np.empty(k, np.int64)


class ReadChecker(PythonPolicy):
    """Plays greedy; at every decision with the engine's state reads the log and checks each other seat's
    real hand against its reading: it fits (fits_nb), and a seat is refuted only where it is not greedy."""

    name = "read_checker"
    uses_state = True
    reads_log = True
    field: list[str] = []  # each seat's policy
    seen: Counter = Counter()

    def decide(self, d):
        s = d.state
        if s is not None:
            reader = reads.PlayReader(s.n, s.fcol, s.frank, s.fpts, s.ri)
            rows = reader.read(s.log, int(s.st[layout.ST_LOG_N]), d.seat)
            assert rows.shape[0] == s.n
            for q in range(s.n):
                if q == d.seat:
                    assert (rows[q, :s.fcol.shape[1]] < 0).all()
                    continue
                fits = reads.fits_nb(rows[q], s.hand[q], int(s.hlen[q]), s.fcol.shape[1], _scratch())
                ReadChecker.seen["seats"] += 1
                ReadChecker.seen["bound"] += int((rows[q, :s.fcol.shape[1]] >= 0).any())
                if q in reader.refuted:
                    ReadChecker.seen["refuted"] += 1
                if ReadChecker.field[q] == "greedy":
                    assert fits and q not in reader.refuted, (q, d.kind)
                    ReadChecker.seen["greedy fits"] += 1
        return d.greedy()


@pytest.mark.parametrize(("rules", "players"), [("official", 4), ("draw_until_playable", 3), ("official", 2),
                                                ("challenges", 5)])
def test_the_real_hand_of_every_greedy_seat_fits_its_reading(rules, players):
    """With greedy seats (they never draw by choice and lay their top-ranked legal card) the reading is true:
    every real hand fits, at every decision, and no greedy seat is ever refuted."""
    ReadChecker.seen = Counter()
    ReadChecker.field = ["read_checker"] + ["greedy"] * (players - 1)
    simulate(rules=rules, players=players, games=30, seed=5, threads=1, policies=[ReadChecker] + ["greedy"] * (players - 1))
    seen = ReadChecker.seen
    assert seen["greedy fits"] > 300, seen
    assert seen["bound"] > 0.7 * seen["seats"], seen  # the reading says something at most decisions


def test_random_seats_are_refuted_by_their_own_plays():
    """A random seat lays low cards while holding high ones and later lays those: its reading is contradicted
    by its own plays alone, and it is not read any more."""
    ReadChecker.seen = Counter()
    ReadChecker.field = ["read_checker", "random", "random", "random"]
    simulate(rules="official", players=4, games=30, seed=5, threads=1, policies=[ReadChecker, "random", "random", "random"])
    assert ReadChecker.seen["refuted"] > 0.2 * ReadChecker.seen["seats"], ReadChecker.seen


def _logged_round(rules: str = "official", players: int = 4, seed: int = 3):
    """A round's log as the seat that reads it gets it, its state then and the seat."""
    logs = []

    class Keep(PythonPolicy):
        name = "keep_log"
        uses_state = True
        reads_log = True

        def decide(self, d):
            if d.state is not None and d.kind == "play":
                logs.append((d.state.log[:int(d.state.st[layout.ST_LOG_N])].copy(), d.state, d.seat))
            return d.greedy()

    simulate(rules=rules, players=players, games=6, seed=seed, threads=1, policies=[Keep] + ["greedy"] * (players - 1))
    return max(logs, key=lambda x: len(x[0]))  # the longest: the last decision of the longest round


def test_the_reading_never_reads_the_cards_drawn():
    """The faces of the cards a seat drew for its turn (EV_DRAW, EV_PASS rows) are private: scrambling them leaves
    the reading as it was."""
    log, s, seat = _logged_round()
    drawn = (log[:, 0] == E.EV_DRAW) & (log[:, 2] >= 0) | (log[:, 0] == E.EV_PASS)
    assert drawn.sum() >= 3
    scrambled = log.copy()
    scrambled[drawn, 2] = np.random.default_rng(1).permutation(s.fcol.shape[1])[:drawn.sum()]
    a = reads.read_plays(log, len(log), seat, s.n, s.fcol, s.frank, s.fpts, s.ri)
    b = reads.read_plays(scrambled, len(log), seat, s.n, s.fcol, s.frank, s.fpts, s.ri)
    assert a.shape[0] == s.n and np.array_equal(a, b)


def test_the_reader_goes_on_from_the_events_it_read_and_starts_again_on_a_new_round():
    log, s, seat = _logged_round()
    reader = reads.PlayReader(s.n, s.fcol, s.frank, s.fpts, s.ri)
    for k in (5, len(log) // 2, len(log), len(log) // 3):  # growing, then shorter (an earlier step's start)
        assert np.array_equal(reader.read(log, k, seat), reads.read_plays(log, k, seat, s.n, s.fcol, s.frank, s.fpts, s.ri))
    other, *_ = _logged_round(seed=4)
    k = min(len(other), len(log))
    assert np.array_equal(reader.read(other, k, seat),
                          reads.read_plays(other, k, seat, s.n, s.fcol, s.frank, s.fpts, s.ri))


@pytest.mark.parametrize(("rules", "deck"), [("official+stacking", "classic"), ("seven_zero", "classic"),
                                             ("jump_in", "classic"), ("official", "flip"), ("speed_uno", "classic")])
def test_rules_whose_turns_it_does_not_read_give_no_reading(rules, deck):
    dk = get_deck(deck)
    ri, _ = pack_rules(parse_rules(rules), dk)
    assert not reads.readable(ri, dk.face_color, dk.face_rank)
    log = np.zeros((4, 5), np.int64)
    assert reads.read_plays(log, 4, 0, 4, dk.face_color, dk.face_rank, dk.face_points, ri).shape == (0, 0)


def _row(ncards: int, bound: dict[int, int], receipts: list[int], laid: list[tuple[int, int]]) -> np.ndarray:
    """A row as PlayReader.table writes it: each card's bound and the receipts after it, the receipts, the laid
    cards."""
    row = np.zeros(reads.width(ncards), np.int64)
    row[:ncards] = -1
    for c, t in bound.items():
        row[c] = t
        row[ncards + c] = sum(r > t for r in receipts)
    r0 = 2 * ncards
    row[r0] = len(receipts)
    row[r0 + 1:r0 + 1 + len(receipts)] = receipts
    i0 = r0 + 1 + reads.MAXR
    row[i0] = len(laid)
    for k, (b, t) in enumerate(laid):
        row[i0 + 1 + 2 * k], row[i0 + 2 + 2 * k] = b, t
    return row


def test_a_hand_fits_when_each_ruled_out_card_has_its_own_later_receipt():
    nc = 10
    hand = np.array([1, 2, 3], np.int64)
    # card 1 ruled out at time 5: it fits only with a receipt after 5
    assert not reads.fits_nb(_row(nc, {1: 5}, [3], []), hand, 3, nc, _scratch())
    assert reads.fits_nb(_row(nc, {1: 5}, [3, 7], []), hand, 3, nc, _scratch())
    # cards 1 and 2 ruled out at 5: two receipts after 5 are needed
    assert not reads.fits_nb(_row(nc, {1: 5, 2: 5}, [7], []), hand, 3, nc, _scratch())
    assert reads.fits_nb(_row(nc, {1: 5, 2: 5}, [7, 9], []), hand, 3, nc, _scratch())
    # a card not in the hand binds nothing
    assert reads.fits_nb(_row(nc, {4: 5}, [], []), hand, 3, nc, _scratch())
    # a laid card ruled out at 5 and laid at 9 needs a receipt between: the one at 7 serves it, not the hand's
    # card 1 (ruled out at 3), which has the receipt at 11
    assert reads.fits_nb(_row(nc, {1: 3}, [7, 11], [(5, 9)]), hand, 3, nc, _scratch())
    assert not reads.fits_nb(_row(nc, {1: 8}, [7, 11], [(5, 9), (6, 12)]), hand, 3, nc, _scratch())
    # earliest deadline first: the receipt at 7 goes to the laid card due at 9, not to the held card
    assert reads.fits_nb(_row(nc, {1: 5}, [7, 11], [(5, 9)]), hand, 3, nc, _scratch())
    # nested receipts (no laid cards): ruled out at 2 and 6, receipts at 3 and 4: the one ruled out at 6 has none
    assert not reads.fits_nb(_row(nc, {1: 2, 2: 6}, [3, 4], []), hand, 3, nc, _scratch())
    assert reads.fits_nb(_row(nc, {1: 2, 2: 6}, [3, 7], []), hand, 3, nc, _scratch())
    # three cards need three receipts: after 6, 6 and 2 they have them (7, 9 and 3), after 6, 6 and 8 not
    assert reads.fits_nb(_row(nc, {1: 6, 2: 6, 3: 2}, [3, 7, 9], []), np.array([1, 2, 3, 4]), 4, nc, _scratch())
    assert not reads.fits_nb(_row(nc, {1: 6, 2: 6, 3: 8}, [3, 7, 9], []), np.array([1, 2, 3, 4]), 4, nc, _scratch())


def test_both_ways_of_fitting_a_hand_agree():
    """A row without laid cards takes the nested count, one with them earliest deadline first: a laid card with a
    receipt of its own (after every other) changes nothing, so both give the same answer on random rows."""
    rng = np.random.default_rng(4)
    nc = 30
    for _ in range(300):
        bound = {int(c): int(rng.integers(0, 40)) for c in rng.choice(nc, int(rng.integers(0, 8)), replace=False)}
        receipts = sorted(int(x) for x in rng.integers(0, 45, int(rng.integers(0, 10))))
        hand = rng.choice(nc, 8, replace=False)
        nested = reads.fits_nb(_row(nc, bound, receipts, []), hand, 8, nc, _scratch())
        # the same hand with a laid card due after every receipt and bound by nothing before: EDF only
        edf = reads.fits_nb(_row(nc, bound, receipts + [100], [(99, 101)]), hand, 8, nc, _scratch())
        assert nested == edf, (bound, receipts, hand)


def test_a_log_that_overflowed_gives_no_reading():
    """The engine counts the events past the end of the log it was given: those rounds are not read."""
    log, s, seat = _logged_round()
    assert reads.read_plays(log, len(log), seat, s.n, s.fcol, s.frank, s.fpts, s.ri).shape[0] == s.n
    assert reads.read_plays(log, len(log) + 1, seat, s.n, s.fcol, s.frank, s.fpts, s.ri).shape == (0, 0)
