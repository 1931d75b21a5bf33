"""Deck specs: the classic composition (docs/rules.md 1.2), parameters, aliases, TOML decks, errors."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import numpy as np
import pytest

import unosim
from unosim.core import enums as E
from unosim.ruleset.decks import (
    ALIASES,
    DECKS,
    Deck,
    available_decks,
    card_name,
    classic_deck,
    classic_kinds,
    classic_points,
    deck_names,
    get_deck,
)

COLORS = ("red", "yellow", "green", "blue")
ACTIONS = ("skip", "reverse", "draw2")


def kinds(deck: Deck) -> Counter:
    """(colour, rank) -> count, from the side-0 tables."""
    return Counter(zip(deck.face_color[0].tolist(), deck.face_rank[0].tolist(), strict=True))


def classic_counts() -> Counter:
    """docs/rules.md 1.2 written out independently of the deck builder."""
    c: Counter = Counter()
    for col in range(4):
        c[(col, 0)] = 1
        for r in range(1, 10):
            c[(col, r)] = 2
        for r in (E.SKIP, E.REVERSE, E.DRAW2):
            c[(col, r)] = 2
    c[(E.BLACK, E.WILD)] = 4
    c[(E.BLACK, E.WD4)] = 4
    return c


def check_tables(deck: Deck) -> None:
    for a in (deck.face_color, deck.face_rank, deck.face_points):
        assert a.dtype == np.int64 and a.shape == (2, deck.size)
        assert np.array_equal(a[0], a[1])  # single-sided decks repeat side 0 in side 1


# ---- classic -------------------------------------------------------------------------------------
def test_classic_matches_rules_1_2() -> None:
    d = get_deck("classic")
    check_tables(d)
    assert d.name == "classic" and d.size == 108
    assert kinds(d) == classic_counts()
    comp = d.composition()
    for col in COLORS:
        assert sum(comp[f"{col} {r}"] for r in range(10)) == 19
        for a in ACTIONS:
            assert comp[f"{col} {a}"] == 2
    assert comp["wild"] == 4 and comp["wd4"] == 4
    assert int(d.face_points[0].sum()) == 4 * (0 + 2 * 45) + 24 * 20 + 8 * 50 == 1240
    assert d.summary() == "classic: 108 cards: 76 numbers, 24 actions, 8 wild"


def test_legacy_names_still_work() -> None:
    d = classic_deck()
    assert d.name == "classic" and d.size == 108 and len(classic_kinds()) == 108
    assert DECKS["classic"]().name == "classic"
    assert classic_points(7) == 7 and classic_points(E.SKIP) == 20 and classic_points(E.WD4) == 50
    assert card_name(d, 0) == "red 0" and card_name(d, 107) == "wd4"
    assert d.describe()[:2] == ["red 0", "red 1"]
    assert get_deck(d) is d


@pytest.mark.parametrize("alias", sorted(ALIASES))
def test_aliases_play_as_classic(alias: str) -> None:
    d = get_deck(alias)
    assert d.name == "classic" and kinds(d) == classic_counts()
    assert "docs/rules.md" in ALIASES[alias][0]
    assert alias in DECKS and DECKS[alias]().name == "classic"


# ---- parameters ----------------------------------------------------------------------------------
def test_copies_doubles_every_count() -> None:
    d = get_deck("classic(copies=2)")
    check_tables(d)
    assert d.name == "classic(copies=2)" and d.size == 216
    assert kinds(d) == Counter({k: 2 * v for k, v in classic_counts().items()})
    assert int(d.face_points[0].sum()) == 2 * 1240
    assert d.summary() == "classic(copies=2): 216 cards: 152 numbers, 48 actions, 16 wild"
    assert get_deck("classic(copies=8)").size == 864


def test_no_wilds_no_wd4_no_actions() -> None:
    base = classic_counts()
    d = get_deck("classic(no_wilds)")
    assert kinds(d) == Counter({k: v for k, v in base.items() if k[0] != E.BLACK})
    assert d.size == 100
    d = get_deck("classic(no_wd4)")
    assert kinds(d) == Counter({k: v for k, v in base.items() if k[1] != E.WD4})
    assert d.size == 104
    d = get_deck("classic(no_actions)")
    assert kinds(d) == Counter({k: v for k, v in base.items() if k[1] not in (E.SKIP, E.REVERSE, E.DRAW2)})
    assert d.size == 84
    d = get_deck("classic(copies=2,no_wilds)")
    assert d.name == "classic(copies=2,no_wilds)" and d.size == 200
    assert not np.any(d.face_color == E.BLACK)


def test_numbers_only() -> None:
    d = get_deck("numbers_only")
    check_tables(d)
    assert d.size == 76 and d.name == "classic(no_actions,no_wilds)"
    assert np.all(d.face_rank <= 9) and not np.any(d.face_color == E.BLACK)
    assert kinds(d) == Counter({k: v for k, v in classic_counts().items() if k[1] <= 9})
    assert int(d.face_points[0].sum()) == 4 * 90
    assert d.summary().endswith("76 cards: 76 numbers, 0 actions, 0 wild")
    assert get_deck("numbers_only(copies=2)").name == "classic(copies=2,no_actions,no_wilds)"


@pytest.mark.parametrize("spec,name", [
    ("classic", "classic"),
    ("  Classic ( ) ", "classic"),
    ("classic(copies=1)", "classic"),
    ("classic(no_wilds,copies=2)", "classic(copies=2,no_wilds)"),
    ("classic(copies=2, no_wilds=true, no_actions=false)", "classic(copies=2,no_wilds)"),
    ("classic(no_wd4,no_wilds)", "classic(no_wilds)"),
    ("classic(NO_WD4=TRUE)", "classic(no_wd4)"),
    ("classic(no_actions,no_wilds)", "classic(no_actions,no_wilds)"),
    ("numbers_only", "classic(no_actions,no_wilds)"),
    ("numbers_only(no_wilds=false)", "classic(no_actions)"),
    ("zoo(copies=3)", "classic(copies=3)"),
])
def test_canonical_names_round_trip(spec: str, name: str) -> None:
    d = get_deck(spec)
    assert d.name == name
    again = get_deck(d.name)
    assert again.name == name
    for a, b in ((d.face_color, again.face_color), (d.face_rank, again.face_rank),
                 (d.face_points, again.face_points)):
        assert np.array_equal(a, b)


def test_available_decks_lists_everything() -> None:
    text = available_decks()
    for word in ["classic", "numbers_only", "copies", "no_actions", "no_wilds", "no_wd4", ".toml",
                 *ALIASES]:
        assert word in text
    assert "4.18" in text and "1.2" in text


def test_deck_names_are_every_deck_once() -> None:
    """deck_names (what `make bench` and `unosim decks` list) holds every built-in deck once: each other name
    is an alias that deals the same cards as one of them, and no two of them deal the same cards."""
    names = deck_names()
    assert len(set(names)) == len(names) and set(names) <= set(DECKS)
    for alias in set(DECKS) - set(names):
        deck = get_deck(alias)
        same = [n for n in names if kinds(get_deck(n)) == kinds(deck) and get_deck(n).size == deck.size]
        assert same, f"{alias} deals cards that no deck of deck_names() deals"
    assert len({(get_deck(n).size, tuple(sorted(kinds(get_deck(n)).items()))) for n in names}) == len(names)


# ---- TOML decks ----------------------------------------------------------------------------------
NO_REVERSE = """
name = "no_reverse"
[[cards]]
color = "each"
rank = "0"
count = 1
[[cards]]
color = "each"
rank = "1-9"
count = 2
[[cards]]
color = "each"
rank = "skip"
count = 2
[[cards]]
color = "each"
rank = "draw2"
count = 2
[[cards]]
color = "black"
rank = "wild"
count = 4
[[cards]]
color = "black"
rank = "wd4"
count = 4
"""


def write(tmp_path: Path, text: str, name: str = "deck.toml") -> str:
    p = tmp_path / name
    p.write_text(text)
    return str(p)


def test_toml_round_trip(tmp_path: Path) -> None:
    path = write(tmp_path, NO_REVERSE)
    d = get_deck(path)
    check_tables(d)
    assert d.name == path and d.label == "no_reverse" and d.size == 100
    assert kinds(d) == Counter({k: v for k, v in classic_counts().items() if k[1] != E.REVERSE})
    assert int(d.face_points[0].sum()) == 1240 - 8 * 20
    assert d.summary() == f"no_reverse ({path}): 100 cards: 76 numbers, 16 actions, 8 wild"
    again = get_deck(d.name)
    assert np.array_equal(again.face_rank, d.face_rank) and np.array_equal(again.face_color, d.face_color)


def test_toml_points_single_colour_and_defaults(tmp_path: Path) -> None:
    path = write(tmp_path, """
[[cards]]
color = "red"
rank = "1-9"
count = 2
points = 1
[[cards]]
color = "Blue"
rank = 5
[[cards]]
color = "black"
rank = "wild"
count = 2
points = 0
""")
    d = get_deck(path)
    assert d.size == 21 and d.label == ""
    comp = d.composition()
    assert comp == {**{f"red {r}": 2 for r in range(1, 10)}, "blue 5": 1, "wild": 2}
    assert int(d.face_points[0].sum()) == 18 * 1 + 5 + 0


def test_toml_deck_simulates(tmp_path: Path) -> None:
    res = unosim.simulate(games=300, deck=write(tmp_path, NO_REVERSE), seed=3, policies="random")
    assert len(res.records) == 300


# ---- errors: one line, naming the bad value --------------------------------------------------------
BAD_SPECS = [
    ("clasic", "clasic", "did you mean 'classic'"),
    ("flip(pairing=bogus)", "bogus", "accepted"),
    ("classic(copy=2)", "copy", "did you mean 'copies'"),
    ("classic(copies=0)", "copies=0", "1..8"),
    ("classic(copies=9)", "copies=9", "1..8"),
    ("classic(copies=two)", "two", "1..8"),
    ("classic(copies)", "copies", "copies=1..8"),
    ("classic(no_wilds=maybe)", "maybe", "no_wilds=true"),
    ("classic(no_wilds,no_wilds)", "no_wilds", "once"),
    ("classic(copies=2", "classic(copies=2", "NAME(param"),
    ("missing_deck.toml", "missing_deck.toml", "does not exist"),
]


@pytest.mark.parametrize("spec,bad,hint", BAD_SPECS)
def test_spec_errors(spec: str, bad: str, hint: str) -> None:
    with pytest.raises(ValueError) as ei:
        get_deck(spec)
    msg = str(ei.value)
    assert "\n" not in msg and bad in msg and hint in msg and "accepted" in msg


CARD = '[[cards]]\ncolor = "each"\nrank = "1-9"\ncount = 2\n'
BAD_TOML = [
    ("not toml [[", "not valid TOML", "deck.toml"),
    (CARD.replace('"each"', '"purple"'), "purple", "red, yellow, green, blue, each, black"),
    (CARD.replace('"each"', '"blak"'), "blak", "did you mean 'black'"),
    (CARD.replace('"1-9"', '"draw4"'), "draw4", "did you mean 'draw2'"),
    (CARD.replace('"1-9"', '"flip"'), "flip", "not supported"),
    (CARD.replace('"1-9"', '"3-12"'), "3-12", "0-9"),
    (CARD.replace("count = 2", "count = 0"), "count=0", "1..1000"),
    (CARD.replace("count = 2", "count = -3"), "count=-3", "1..1000"),
    (CARD.replace("count = 2", "count = 2\npoints = -1"), "points=-1", "0..1000"),
    (CARD.replace("count = 2", "count = 2\ncolour = 1"), "colour", "did you mean 'color'"),
    (CARD.replace('"1-9"', '"wild"'), "wild", 'color = "black"'),
    (CARD.replace('"each"', '"black"'), "1-9", "red, yellow, green, blue, each"),
    ('nme = "x"\n' + CARD, "nme", "did you mean 'name'"),
    ('name = "x"\n', "no [[cards]]", "[[cards]]"),
    (CARD.replace("count = 2", "count = 1").replace('"1-9"', '"1"'), "4 cards", "at least 17"),
    ('[[cards]]\ncolor = "black"\nrank = "wild"\ncount = 20\n', "no coloured card", "at least one red"),
]


@pytest.mark.parametrize("text,bad,hint", BAD_TOML)
def test_toml_errors(tmp_path: Path, text: str, bad: str, hint: str) -> None:
    path = write(tmp_path, text)
    with pytest.raises(ValueError) as ei:
        get_deck(path)
    msg = str(ei.value)
    assert "\n" not in msg and bad in msg and hint in msg and "accepted" in msg
    assert path in msg


# ---- end to end through the engine ----------------------------------------------------------------
def test_simulate_numbers_only() -> None:
    res = unosim.simulate(games=2000, deck="numbers_only", seed=1, policies="random")
    rec = res.records
    assert len(rec) == 2000 and res.summary["games"] == 2000
    assert res.summary["deck"] == "classic(no_actions,no_wilds)"
    wins = rec["end_reason"] == "win"
    assert wins.sum() + (rec["end_reason"] == "turn_cap").sum() == 2000
    assert rec.loc[wins, "winner"].between(0, 3).all()
    # a numbers-only deck holds 360 points; the winner scores only cards left in other hands
    assert rec["winner_points"].between(0, 360).all()


def test_simulate_two_decks_ten_players() -> None:
    res = unosim.simulate(deck="classic(copies=2)", players=10, games=500, seed=2, policies="random")
    assert len(res.records) == 500 and res.summary["deck"] == "classic(copies=2)"
    assert res.records["winner_points"].between(0, 2 * 1240).all()


def test_check_fits_still_guards_small_decks(tmp_path: Path) -> None:
    path = write(tmp_path, '[[cards]]\ncolor = "each"\nrank = "0-4"\n')   # 20 cards
    assert get_deck(path).size == 20
    with pytest.raises(Exception) as ei:
        unosim.simulate(deck=path, players=3, games=10, policies="random")   # 3 x 7 + 1 = 22 > 20
    msg = str(ei.value)
    assert "20" in msg and "\n" not in msg
