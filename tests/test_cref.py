"""The C reference of `make bench` (scripts/bench/ref_official.c) plays the same game as unosim.

`make bench` reports unosim's official ``random`` speed as a ratio to that C program; the ratio means
something only if both do the same work.  Here the C program and the engine each play ``GAMES`` rounds
of 2-, 4- and 6-player official UNO with ``random`` from fixed seeds, and their mean turns per round, seat-0 win
rate and mean winner points must agree within ``Z`` combined standard errors (the tolerance of
tests/test_reference.py).  ``test_detects_wrong_rules`` shows that the comparison can fail: the same
C program with fewer cards dealt is flagged, and so is one that lets a Wild Draw Four be laid while
the hand holds a card of the current colour.  Skipped when no C compiler is found.
"""

from __future__ import annotations

import functools
import math
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "scripts"))

import cref  # noqa: E402

from unosim import simulate  # noqa: E402

Z = 4.5
GAMES = 50_000
PLAYERS = 4
C_SEED = 99
ENGINE_SEED = 20_251_201

CC = cref.compiler()
pytestmark = pytest.mark.skipif(CC is None, reason="no C compiler ($CC or cc)")


def _c_stats(out: dict) -> dict[str, tuple[float, float]]:
    """(estimate, standard error) of each compared statistic from the C program's JSON line."""
    n = out["rounds"]
    p0 = out["wins"][0] / n
    return {
        "mean_turns": (out["mean_turns"], out["sd_turns"] / math.sqrt(n)),
        "seat0_win_rate": (p0, math.sqrt(p0 * (1 - p0) / n)),
        "mean_winner_points": (out["mean_winner_points"], out["sd_winner_points"] / math.sqrt(n)),
    }


@functools.cache
def _engine_stats(players: int) -> dict[str, tuple[float, float]]:
    rec = simulate(rules="official", players=players, policies="random", games=GAMES, seed=ENGINE_SEED,
                   threads=1).records
    n = len(rec)
    p0 = float((rec["winner"] == 0).mean())
    return {
        "mean_turns": (float(rec["turns"].mean()), float(rec["turns"].std(ddof=1)) / math.sqrt(n)),
        "seat0_win_rate": (p0, math.sqrt(p0 * (1 - p0) / n)),
        "mean_winner_points": (float(rec["winner_points"].mean()),
                               float(rec["winner_points"].std(ddof=1)) / math.sqrt(n)),
    }


def _far_apart(a: dict, b: dict) -> list[str]:
    """The statistics on which a and b differ by more than Z combined standard errors."""
    return [f"{k}: {a[k][0]:.4f} vs {b[k][0]:.4f}" for k in a
            if abs(a[k][0] - b[k][0]) > Z * math.hypot(a[k][1], b[k][1])]


@pytest.mark.parametrize("players", [2, PLAYERS, 6])
def test_c_reference_plays_unosims_game(tmp_path: Path, players: int) -> None:
    exe = cref.build(tmp_path, CC)
    out = cref.run(exe, players, GAMES, seed=C_SEED)
    assert out["rounds"] == GAMES and sum(out["wins"]) + out["capped"] == GAMES
    assert out["rounds_per_s"] > 0
    assert _far_apart(_c_stats(out), _engine_stats(players)) == []


WD4_RESTRICTION = "        if ((h->at_least[0] & COLOR_MASK(cur)) == 0)\n            legal |= BIT(K_WD4);"


@pytest.mark.parametrize("right, wrong", [
    ("HAND_SIZE = 7,", "HAND_SIZE = 6,"),  # six cards dealt
    (WD4_RESTRICTION, "        legal |= BIT(K_WD4);"),  # a Wild Draw Four always legal
])
def test_detects_wrong_rules(tmp_path: Path, right: str, wrong: str) -> None:
    """A C reference that breaks a rule must be told apart (the comparison has power)."""
    src = cref.SOURCE.read_text()
    assert src.count(right) == 1
    bad = tmp_path / "bench" / "ref_official.c"
    bad.parent.mkdir()
    bad.write_text(src.replace(right, wrong))
    exe = cref.build(tmp_path / "out", CC, source=bad)
    assert _far_apart(_c_stats(cref.run(exe, PLAYERS, GAMES, seed=C_SEED)), _engine_stats(PLAYERS)) != []
