"""Deck tables: a deck is data (three small integer tables), never code.

``Deck.face_color[side, c]``, ``Deck.face_rank[side, c]`` and ``Deck.face_points[side, c]`` describe
physical card ``c``.  Single-sided decks repeat side 0 in side 1 so kernels never branch on the deck.

Deck specs accepted by :func:`get_deck` (and ``--deck``)
---------------------------------------------------------
``classic``
    The 108 cards of docs/rules.md 1.2.
``classic(copies=N, no_actions, no_wilds, no_wd4)``
    ``copies`` (1..8) classic decks shuffled together (Speed Uno, docs/rules.md 4.18: ``copies=2``);
    ``no_actions`` drops Skip, Reverse and Draw Two; ``no_wilds`` drops Wild and Wild Draw Four;
    ``no_wd4`` drops only Wild Draw Four.  Flags are bare words or ``flag=true|false``.
``numbers_only``
    ``classic(no_actions,no_wilds)``: the 76 coloured number cards (parameters may be added).
``zoo``, ``uno4``, ``sortirovka``, ``h2o``, ``junior``
    Aliases of ``classic``: docs/rules.md §3 says these products play as classic (see :data:`ALIASES`).
``PATH.toml``
    A custom deck file (:func:`load_toml_deck`).

Every deck has a canonical ``name`` that :func:`get_deck` accepts and round-trips:
``get_deck(d.name).name == d.name``.  Aliases and presets map to the ``classic(...)`` form with the
parameters in a fixed order (``copies``, ``no_actions``, ``no_wilds``, ``no_wd4``), defaults omitted;
a custom deck's name is its path as given.
"""

from __future__ import annotations

import difflib
import functools
import os
import re
import tomllib
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ..core import enums as E
from ..errors import DeckError


@dataclass(frozen=True)
class Deck:
    name: str
    face_color: np.ndarray = field(repr=False)
    face_rank: np.ndarray = field(repr=False)
    face_points: np.ndarray = field(repr=False)
    two_sided: bool = False
    label: str = ""
    random_pairing: bool = False  # UNO Flip: a fresh random light/dark pairing per game (kernel-side)  # a custom deck's own ``name = "..."`` (its ``name`` field is the file path)

    @property
    def size(self) -> int:
        return int(self.face_color.shape[1])

    def describe(self, side: int = 0) -> list[str]:
        """Human-readable names of every physical card (for logs and errors)."""
        return [card_name(self, c, side) for c in range(self.size)]

    def composition(self, side: int = 0) -> dict[str, int]:
        """Count of each card kind, by card name, in deck order (e.g. ``{"red 0": 1, ...}``)."""
        return dict(Counter(self.describe(side)))

    def summary(self) -> str:
        """One line, e.g. ``classic(copies=2): 216 cards: 152 numbers, 48 actions, 16 wild``."""
        col = self.face_color[0]
        rank = self.face_rank[0]
        numbers = int(np.count_nonzero((col != E.BLACK) & (rank <= 9)))
        actions = int(np.count_nonzero((col != E.BLACK) & (rank > 9)))
        wild = int(np.count_nonzero(col == E.BLACK))
        title = f"{self.label} ({self.name})" if self.label and self.label != self.name else self.name
        sided = ", two-sided" if self.two_sided else ""
        return f"{title}: {self.size} cards{sided}: {numbers} numbers, {actions} actions, {wild} wild"


def card_name(deck: Deck, c: int, side: int = 0) -> str:
    col = int(deck.face_color[side, c])
    rank = int(deck.face_rank[side, c])
    names = E.DARK_COLOR_NAMES if (deck.two_sided and side == 1) else E.COLOR_NAMES
    if col == E.BLACK:
        return E.RANK_NAMES[rank]
    return f"{names[col]} {E.RANK_NAMES[rank]}"


def classic_points(rank: int) -> int:
    """Standard scoring (docs/rules.md 1.15): numbers at face value, coloured actions 20, wild cards 50."""
    if rank <= 9:
        return rank
    if rank in (E.WILD, E.WD4):
        return 50
    return 20


def _from_kinds(name: str, kinds: list[tuple[int, int]], points: list[int] | None = None,
                label: str = "") -> Deck:
    """Build a single-sided deck from a list of (colour, rank), one entry per physical card.

    ``points`` (one per card) defaults to :func:`classic_points` of each rank.
    """
    n = len(kinds)
    col = np.empty((2, n), np.int64)
    rank = np.empty((2, n), np.int64)
    pts = np.empty((2, n), np.int64)
    for c, (k_col, k_rank) in enumerate(kinds):
        p = classic_points(k_rank) if points is None else points[c]
        for s in (0, 1):
            col[s, c] = k_col
            rank[s, c] = k_rank
            pts[s, c] = p
    return Deck(name, col, rank, pts, False, label)


def classic_kinds() -> list[tuple[int, int]]:
    """The 108 cards of docs/rules.md 1.2, in a fixed canonical order."""
    kinds: list[tuple[int, int]] = []
    for col in range(E.NCOLORS):
        kinds.append((col, 0))
        for r in range(1, 10):
            kinds += [(col, r), (col, r)]
        for r in (E.SKIP, E.REVERSE, E.DRAW2):
            kinds += [(col, r), (col, r)]
    kinds += [(E.BLACK, E.WILD)] * 4 + [(E.BLACK, E.WD4)] * 4
    return kinds


# ---- limits -------------------------------------------------------------------------------------
MIN_CARDS = 17        # 2 players x 7 cards + the starting card + 2 to draw
MAX_CARDS = 1000      # a sanity bound for custom decks (classic(copies=8) has 864)
MAX_COPIES = 8
MAX_POINTS = 1000
_MIN_WHY = "2 players x 7 cards + starting card + 2 to draw"

# ---- the classic family and its parameters --------------------------------------------------------
_FLAGS = ("no_actions", "no_wilds", "no_wd4")
_PARAMS = ("copies",) + _FLAGS
_PARAM_HELP = {
    "copies": "copies=N: N classic decks shuffled together, N in 1..8 (Speed Uno, docs/rules.md 4.18: 2)",
    "no_actions": "no_actions: no Skip, Reverse or Draw Two",
    "no_wilds": "no_wilds: no Wild and no Wild Draw Four",
    "no_wd4": "no_wd4: no Wild Draw Four (Wilds stay)",
}
_ACTIONS = (E.SKIP, E.REVERSE, E.DRAW2)


def _canonical(params: dict[str, Any]) -> str:
    parts = []
    if params["copies"] != 1:
        parts.append(f"copies={params['copies']}")
    for f in _FLAGS:
        if params[f] and not (f == "no_wd4" and params["no_wilds"]):
            parts.append(f)
    return "classic" + (f"({','.join(parts)})" if parts else "")


def classic_deck(copies: int = 1, no_actions: bool = False, no_wilds: bool = False,
                 no_wd4: bool = False) -> Deck:
    """The classic deck (docs/rules.md 1.2), optionally several copies and without some card kinds."""
    params = {"copies": int(copies), "no_actions": bool(no_actions), "no_wilds": bool(no_wilds),
              "no_wd4": bool(no_wd4)}
    if not 1 <= params["copies"] <= MAX_COPIES:
        raise DeckError(f"copies={copies!r} is out of range; accepted: 1..{MAX_COPIES}")
    kinds = []
    for col, rank in classic_kinds():
        if no_actions and rank in _ACTIONS:
            continue
        if no_wilds and rank in (E.WILD, E.WD4):
            continue
        if no_wd4 and rank == E.WD4:
            continue
        kinds.append((col, rank))
    name = _canonical(params)
    deck = _from_kinds(name, kinds * params["copies"])
    _validate(deck, name)
    return deck


# name -> (parameter defaults applied before the user's, description)
_PRESETS: dict[str, tuple[dict[str, Any], str]] = {
    "classic": ({}, "the 108 cards of docs/rules.md 1.2"),
    "numbers_only": ({"no_actions": True, "no_wilds": True},
                     "classic(no_actions,no_wilds): the 76 coloured number cards, no action or wild cards"),
}

#: Themed products that docs/rules.md §3 says play as classic: alias -> (section, why).
ALIASES: dict[str, tuple[str, str]] = {
    "zoo": ("docs/rules.md §3 (Uno Zoo)", "the same classic Uno, only the pictures differ; 108 cards"),
    "uno4": ("docs/rules.md §3.4 (\"Uno 4\")", "classic, 108 cards; its anomalies are rule options"),
    "sortirovka": ("docs/rules.md §3 (Uno Sortirovka)", "\"fully coincides with the classic version\""),
    "h2o": ("docs/rules.md §3 (Uno H2O)", "waterproof cards; no rule change stated"),
    "junior": ("docs/rules.md §3 (Uno Junior)", "only as classic; the real Junior rules are not in the sources"),
}


def _all_names() -> list[str]:
    return list(_PRESETS) + ["flip", "harry_potter", "hp", "bts"] + list(ALIASES)


def _accepted_names() -> str:
    return ", ".join(_all_names()) + ", or a path ending in .toml"


def _suggest(word: str, choices: list[str] | tuple[str, ...]) -> str:
    m = difflib.get_close_matches(word, list(choices), n=1, cutoff=0.6)
    return f" (did you mean {m[0]!r}?)" if m else ""


def _one_line(text: str) -> str:
    return " ".join(str(text).split())


_SPEC_RE = re.compile(r"^\s*([A-Za-z_][A-Za-z0-9_]*)\s*(?:\((.*)\))?\s*$", re.S)
_TRUE = ("true", "yes", "on", "1")
_FALSE = ("false", "no", "off", "0")


def _parse_params(spec: str, body: str) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for raw in body.split(","):
        item = raw.strip()
        if not item:
            if body.strip():
                raise DeckError(f"empty parameter in deck {spec!r}; accepted: "
                                 "NAME(param,param=value,...), e.g. classic(copies=2,no_wilds)")
            continue
        key, eq, val = item.partition("=")
        key, val = key.strip().lower(), val.strip().lower()
        if key not in _PARAMS:
            raise DeckError(f"unknown deck parameter {key!r} in {spec!r}{_suggest(key, _PARAMS)}; "
                             f"accepted: {', '.join(_PARAMS)}")
        if key in out:
            raise DeckError(f"deck parameter {key!r} given twice in {spec!r}; accepted: each at most once")
        if key == "copies":
            if not eq:
                raise DeckError(f"deck parameter 'copies' in {spec!r} needs a value; accepted: copies=1..{MAX_COPIES}")
            try:
                n = int(val)
            except ValueError:
                raise DeckError(f"copies={val!r} in {spec!r} is not an integer; accepted: 1..{MAX_COPIES}") from None
            if not 1 <= n <= MAX_COPIES:
                raise DeckError(f"copies={n} in {spec!r} is out of range; accepted: 1..{MAX_COPIES}")
            out[key] = n
        elif not eq or val in _TRUE:
            out[key] = True
        elif val in _FALSE:
            out[key] = False
        else:
            raise DeckError(f"{key}={val!r} in {spec!r} is not a flag value; accepted: {key}, {key}=true, "
                             f"{key}=false")
    return out


# ---- UNO Flip (docs/rules.md 2.2, 2.3, 2.11) -----------------------------------------------------------
FLIP_POINTS = {E.DRAW1: 10, E.DRAW5: 20, E.REVERSE: 20, E.SKIP: 20, E.SKIP_ALL: 30, E.FLIP: 20,
               E.WILD: 40, E.WILD_DRAW2: 50, E.WILD_DRAW_COLOR: 60}
FLIP_PAIRINGS = ("random", "fixed", "table")


def _flip_side(actions: tuple[int, ...], wild_draw: int) -> list[tuple[int, int]]:
    kinds: list[tuple[int, int]] = []
    for col in range(E.NCOLORS):
        for r in range(1, 10):
            kinds += [(col, r), (col, r)]
        for r in actions:
            kinds += [(col, r), (col, r)]
    return kinds + [(E.BLACK, E.WILD)] * 4 + [(E.BLACK, wild_draw)] * 4


def flip_deck(pairing: str = "random", pairing_seed: int = 0) -> Deck:
    """UNO Flip's 112 two-sided cards (docs/rules.md 2.2).  Which light face backs which dark face is not in
    the sources (2.3), so it is a parameter:

    * ``random`` (default, docs/rules.md's ``random_bijection``): a fresh uniformly random pairing for every
      game (every round in round mode, every match in match mode), drawn from the game's seed;
    * ``fixed``: one random pairing drawn from ``pairing_seed``, the same for every game;
    * ``table``: the canonical order (light red 1 backs dark pink 1, ..., light Wild Draw Two backs
      dark Wild Draw Colour), useful for rigged scenarios.

    Colours: light red/yellow/green/blue = 0..3, dark pink/teal/orange/purple = 0..3.
    """
    if pairing not in FLIP_PAIRINGS:
        raise DeckError(f"pairing={pairing!r} in deck 'flip' is unknown; accepted: {', '.join(FLIP_PAIRINGS)}")
    light = _flip_side((E.DRAW1, E.REVERSE, E.SKIP, E.FLIP), E.WILD_DRAW2)
    dark = _flip_side((E.DRAW5, E.REVERSE, E.SKIP_ALL, E.FLIP), E.WILD_DRAW_COLOR)
    if pairing == "fixed":
        perm = np.random.default_rng(pairing_seed).permutation(len(dark))
        dark = [dark[i] for i in perm]
    n = len(light)
    col = np.empty((2, n), np.int64)
    rank = np.empty((2, n), np.int64)
    pts = np.empty((2, n), np.int64)
    for side, faces in enumerate((light, dark)):
        for c, (k_col, k_rank) in enumerate(faces):
            col[side, c] = k_col
            rank[side, c] = k_rank
            pts[side, c] = k_rank if k_rank <= 9 else FLIP_POINTS[k_rank]
    if pairing == "random":
        name = "flip"
    elif pairing == "fixed":
        name = f"flip(pairing=fixed,pairing_seed={pairing_seed})"
    else:
        name = "flip(pairing=table)"
    return Deck(name, col, rank, pts, True, random_pairing=pairing == "random")


def harry_potter_deck() -> Deck:
    """Harry Potter UNO (docs/rules.md 3.3) with the placeholder composition docs/rules.md marks ``hp_deck``
    (the sources do not give it): the classic 108 with the 8 Draw Two replaced by 8 Draw Three, plus
    1 Howler and 1 Invisibility Wild (110 cards).  Draw Three: next player draws 3 and loses the
    turn; Howler: played like a Wild, the next player shows their hand (public information) and
    loses the turn; Invisibility Wild: a Wild that its holder may also play at once to cancel a
    Skip, Draw Three, Wild Draw Four or Howler aimed at them (``hp_invis_blocks``), naming a colour;
    play continues after the holder.  Draw Three, Reverse, Skip 20; Wild, Wild Draw Four, Howler,
    Invisibility Wild 50.  Starting Wild Draw Four, Howler or Invisibility Wild go back."""
    kinds = [(c, E.DRAW3 if r == E.DRAW2 else r) for c, r in classic_kinds()]
    kinds += [(E.BLACK, E.HOWLER), (E.BLACK, E.INVIS_WILD)]
    pts = [k_rank if k_rank <= 9 else (50 if k_col == E.BLACK else 20) for k_col, k_rank in kinds]
    return _from_kinds("harry_potter", kinds, pts)


def bts_deck() -> Deck:
    """UNO BTS (docs/rules.md 3.2): the classic 108 plus 4 Dancing Wild (112).  A Dancing Wild is a Wild,
    and the next player dances (probability ``p_dance``, default 0) or draws 3; they keep their turn
    unless ``dancing_wild_target_skips``.  Dancing Wild scores 50."""
    kinds = classic_kinds() + [(E.BLACK, E.DANCING_WILD)] * 4
    pts = [k_rank if k_rank <= 9 else (50 if k_col == E.BLACK else 20) for k_col, k_rank in kinds]
    return _from_kinds("bts", kinds, pts)


_THEMED = {"harry_potter": harry_potter_deck, "hp": harry_potter_deck, "bts": bts_deck}


def _flip_from_spec(spec: str, body: str) -> Deck:
    kw: dict[str, Any] = {}
    for item in filter(None, (x.strip() for x in body.split(","))):
        key, eq, val = item.partition("=")
        key, val = key.strip().lower(), val.strip().lower()
        if key == "pairing" and eq:
            kw["pairing"] = val
        elif key == "pairing_seed" and eq:
            try:
                kw["pairing_seed"] = int(val)
            except ValueError:
                raise DeckError(f"pairing_seed={val!r} in {spec!r} is not an integer; accepted: an integer") from None
        else:
            raise DeckError(f"unknown deck parameter {item!r} in {spec!r}; accepted: pairing=random|fixed|table, "
                             "pairing_seed=N")
    if "pairing_seed" in kw and kw.get("pairing") != "fixed":
        raise DeckError(f"pairing_seed in {spec!r} needs pairing=fixed; accepted: flip(pairing=fixed,pairing_seed=N)")
    return flip_deck(**kw)


def get_deck(spec: str | Deck) -> Deck:
    """The deck named by ``spec``: a name, ``name(param,...)``, or a path ending in ``.toml``.

    Raises ``ValueError`` with a one-line message naming the bad value and what is accepted.
    """
    if isinstance(spec, Deck):
        return spec
    if not isinstance(spec, str):
        raise DeckError(f"deck={spec!r} is not a string; accepted: {_accepted_names()}")
    text = spec.strip()
    if text.lower().endswith(".toml"):
        return load_toml_deck(text)
    m = _SPEC_RE.match(text)
    if not m:
        raise DeckError(f"malformed deck spec {spec!r}; accepted: NAME or NAME(param,param=value,...), "
                         f"e.g. classic(copies=2,no_wilds); names: {_accepted_names()}")
    key = m.group(1).lower()
    if key == "flip":
        return _flip_from_spec(spec, m.group(2) or "")
    if key in _THEMED:
        if m.group(2) and m.group(2).strip():
            raise DeckError(f"deck {key!r} takes no parameters, got {spec!r}; accepted: {key}")
        return _THEMED[key]()
    if key not in _PRESETS and key not in ALIASES:
        raise DeckError(f"unknown deck {m.group(1)!r}{_suggest(key, _all_names())}; "
                         f"accepted: {_accepted_names()}")
    params: dict[str, Any] = {"copies": 1, "no_actions": False, "no_wilds": False, "no_wd4": False}
    if key in _PRESETS:
        params.update(_PRESETS[key][0])
    params.update(_parse_params(spec, m.group(2) or ""))
    return classic_deck(**params)


# ---- custom decks from TOML ----------------------------------------------------------------------
_COLOR_WORDS = {"red": E.RED, "yellow": E.YELLOW, "green": E.GREEN, "blue": E.BLUE, "black": E.BLACK}
_COLOR_ACCEPTED = "red, yellow, green, blue, each, black"
_RANK_WORDS = {str(r): r for r in range(10)} | {"skip": E.SKIP, "reverse": E.REVERSE, "draw2": E.DRAW2,
                                                "wild": E.WILD, "wd4": E.WD4}
_RANK_ACCEPTED = "0-9 (or a range such as 1-9), skip, reverse, draw2, wild, wd4"
_ENTRY_KEYS = ("color", "rank", "count", "points")
_TOP_KEYS = ("name", "description", "cards")


def _parse_ranks(where: str, value: Any) -> list[int]:
    if isinstance(value, bool) or not isinstance(value, (int, str)):
        raise DeckError(f"{where}: rank {value!r} is not a string; accepted: {_RANK_ACCEPTED}")
    t = str(value).strip().lower()
    if t in _RANK_WORDS:
        return [_RANK_WORDS[t]]
    rng = re.fullmatch(r"(\d+)\s*-\s*(\d+)", t)
    if rng:
        lo, hi = int(rng.group(1)), int(rng.group(2))
        if 0 <= lo <= hi <= 9:
            return list(range(lo, hi + 1))
        raise DeckError(f"{where}: rank range {value!r} is not within 0-9 with low <= high; "
                         f"accepted: {_RANK_ACCEPTED}")
    if t in E.RANK_NAMES:
        raise DeckError(f"{where}: rank {value!r} is not supported in custom decks yet; "
                         f"accepted: {_RANK_ACCEPTED}")
    raise DeckError(f"{where}: unknown rank {value!r}{_suggest(t, list(_RANK_WORDS)[10:])}; "
                     f"accepted: {_RANK_ACCEPTED}")


def _parse_int(where: str, key: str, value: Any, lo: int, hi: int) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or not lo <= value <= hi:
        raise DeckError(f"{where}: {key}={value!r} is not an integer in {lo}..{hi}; accepted: {lo}..{hi}")
    return int(value)


def _parse_entry(where: str, entry: Any) -> tuple[list[tuple[int, int]], list[int]]:
    if not isinstance(entry, dict):
        raise DeckError(f"{where}: {entry!r} is not a table; accepted: [[cards]] with color, rank, count")
    for k in entry:
        if k not in _ENTRY_KEYS:
            raise DeckError(f"{where}: unknown key {k!r}{_suggest(k, _ENTRY_KEYS)}; "
                             f"accepted: {', '.join(_ENTRY_KEYS)}")
    for k in ("color", "rank"):
        if k not in entry:
            raise DeckError(f"{where}: missing key {k!r}; accepted: color, rank, count (points optional)")
    color = entry["color"]
    ctext = color.strip().lower() if isinstance(color, str) else None
    if ctext not in _COLOR_WORDS and ctext != "each":
        sug = _suggest(ctext, list(_COLOR_WORDS) + ["each"]) if ctext else ""
        raise DeckError(f"{where}: unknown color {color!r}{sug}; accepted: {_COLOR_ACCEPTED}")
    ranks = _parse_ranks(where, entry["rank"])
    count = _parse_int(where, "count", entry.get("count", 1), 1, MAX_CARDS)
    is_black = ranks[0] in (E.WILD, E.WD4)
    if is_black and ctext != "black":
        raise DeckError(f"{where}: rank {entry['rank']!r} is a black card but color is {color!r}; "
                         "accepted: color = \"black\"")
    if not is_black and ctext == "black":
        raise DeckError(f"{where}: rank {entry['rank']!r} is a coloured card but color is 'black'; "
                         "accepted: red, yellow, green, blue, each")
    pts_given = "points" in entry
    pts = _parse_int(where, "points", entry["points"], 0, MAX_POINTS) if pts_given else 0
    cols = list(range(E.NCOLORS)) if ctext == "each" else [_COLOR_WORDS[ctext]]
    kinds: list[tuple[int, int]] = []
    points: list[int] = []
    for col in cols:
        for r in ranks:
            kinds += [(col, r)] * count
            points += [pts if pts_given else classic_points(r)] * count
            if len(kinds) > MAX_CARDS:
                raise DeckError(f"{where}: count={count} gives more than {MAX_CARDS} cards; "
                                 f"accepted: at most {MAX_CARDS} cards in a deck")
    return kinds, points


def load_toml_deck(path: str) -> Deck:
    """A custom deck from a TOML file.

    ::

        name = "no_reverse"          # optional label
        [[cards]]
        color = "each"               # red | yellow | green | blue | each (all four) | black
        rank = "1-9"                 # 0-9 (ranges allowed), skip, reverse, draw2, wild, wd4
        count = 2                    # cards per colour and rank (default 1)
        points = 5                   # optional; default the classic value (docs/rules.md 1.15)

    Wild and wd4 need ``color = "black"``; the other ranks need a colour.  The deck's ``name`` is
    ``path`` as given, so ``get_deck(deck.name)`` reloads it; the file's ``name`` becomes ``label``.
    """
    where0 = f"deck file {path!r}"
    full = os.path.expanduser(path)
    if not os.path.isfile(full):
        raise DeckError(f"{where0} does not exist; accepted: a path to a readable .toml deck file")
    try:
        with open(full, "rb") as fh:
            data = tomllib.load(fh)
    except tomllib.TOMLDecodeError as exc:
        raise DeckError(f"{where0} is not valid TOML ({_one_line(exc)}); accepted: a TOML deck file "
                         "with [[cards]] tables") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise DeckError(f"{where0} cannot be read ({_one_line(exc)}); accepted: a readable .toml file") from None
    for k in data:
        if k not in _TOP_KEYS:
            raise DeckError(f"{where0}: unknown key {k!r}{_suggest(k, _TOP_KEYS)}; "
                             f"accepted: {', '.join(_TOP_KEYS)}")
    label = data.get("name", "")
    if not isinstance(label, str):
        raise DeckError(f"{where0}: name={label!r} is not a string; accepted: a string")
    cards = data.get("cards")
    if not isinstance(cards, list) or not cards:
        raise DeckError(f"{where0} has no [[cards]] entries; accepted: one or more [[cards]] tables "
                         "with color, rank, count")
    kinds: list[tuple[int, int]] = []
    points: list[int] = []
    for i, entry in enumerate(cards):
        k, p = _parse_entry(f"{where0} cards[{i}]", entry)
        kinds += k
        points += p
        if len(kinds) > MAX_CARDS:
            raise DeckError(f"{where0} has more than {MAX_CARDS} cards; accepted: at most {MAX_CARDS}")
    deck = _from_kinds(path, kinds, points, label.strip())
    _validate(deck, where0)
    return deck


def _validate(deck: Deck, what: str) -> None:
    if deck.size < MIN_CARDS:
        raise DeckError(f"{what} has {deck.size} cards, fewer than {MIN_CARDS} ({_MIN_WHY}); "
                         f"accepted: at least {MIN_CARDS} cards")
    if deck.size > MAX_CARDS:
        raise DeckError(f"{what} has {deck.size} cards; accepted: at most {MAX_CARDS}")
    if not np.any(deck.face_color[0] != E.BLACK):
        raise DeckError(f"{what} has no coloured card, so the current colour would be undefined; "
                         "accepted: a deck with at least one red, yellow, green or blue card")


# ---- listing --------------------------------------------------------------------------------------
def available_decks() -> str:
    """Text for the CLI: deck names, parameters, aliases and the custom-deck file format."""
    lines = ["Decks (--deck NAME, NAME(param,...) or PATH.toml):"]
    for name, (_, desc) in _PRESETS.items():
        lines.append(f"  {name:<14} {desc}")
    lines.append("  parameters (classic and numbers_only; flags are bare words or flag=true|false):")
    for p in _PARAMS:
        lines.append(f"    {_PARAM_HELP[p]}")
    lines.append("    e.g. classic(copies=2) = 216 cards; classic(copies=2,no_wilds); classic(no_wd4)")
    lines.append("  flip           UNO Flip, 112 two-sided cards (docs/rules.md 2); flip(pairing=random|fixed|table,"
                 "pairing_seed=N): which light face backs which dark face (random per game by default)")
    lines.append("  harry_potter   Harry Potter UNO (docs/rules.md 3.3; placeholder composition: Draw Three for Draw Two, "
                 "+1 Howler, +1 Invisibility Wild = 110 cards); alias hp")
    lines.append("  bts            UNO BTS (docs/rules.md 3.2): classic + 4 Dancing Wild = 112 cards")
    lines.append("  aliases of classic (themed products that play as classic):")
    for name, (sec, why) in ALIASES.items():
        lines.append(f"    {name:<12} {sec}: {why}")
    lines.append("  PATH.toml      a custom deck: name = \"...\" and [[cards]] tables with color "
                 f"({_COLOR_ACCEPTED}), rank ({_RANK_ACCEPTED}), count (>= 1), points (optional)")
    lines.append(f"  every deck needs {MIN_CARDS}..{MAX_CARDS} cards and at least one coloured card")
    return "\n".join(lines)


#: Zero-argument factories for every built-in deck name (aliases included).
DECKS: dict[str, Callable[[], Deck]] = {n: functools.partial(get_deck, n) for n in _all_names()}


def deck_names() -> list[str]:
    """Every built-in deck once: no alias (hp, nor the themed products that play as classic)."""
    return list(_PRESETS) + [k for k in _THEMED if k != "hp"] + ["flip"]


def format_decks() -> str:
    """``unosim decks``: every deck name with its cards, the aliases, and the other forms ``--deck`` takes."""
    lines = [f"{name:<14} {get_deck(name).summary()}" for name in deck_names()]
    lines += ["", "hp is short for harry_potter; these play as classic: " + ", ".join(ALIASES),
              "", "parameters of classic and numbers_only, e.g. --deck 'classic(copies=2,no_wilds)':"]
    lines += [f"  {_PARAM_HELP[k]}" for k in _PARAMS]
    lines += ["", "PATH.toml      a deck of your own (see unosim.ruleset.decks.load_toml_deck)"]
    return "\n".join(lines)
