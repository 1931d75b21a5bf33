"""Answers a reader can publish: effects in plain words, with their scale, their players and a check.

``compare`` and ``sweep`` end with one sentence per effect, e.g. "official+seven_zero raises turns per
round by 1.4 to 1.6 (+3.3%) compared with official, for greedy players."  The numbers are the 95%
interval of the paired difference; the percentage is the point estimate relative to the baseline's mean.

A **turn** (the ``turns`` metric) is one seat's go: it plays a card, or draws (and then plays the drawn
card or passes).  A card laid out of the normal order (a stacked draw card, a deflection, a bounce, a
jump-in) counts as a turn of its own; a further card the same seat stacks in one go does not.  Not
counted as turns: a seat skipped by a Skip (or by a Reverse with two players), and the victim of a Draw
Two or Wild Draw Four who draws the penalty and loses the turn.  A challenger who wins a Wild Draw Four
challenge takes a normal turn, which counts.

The robustness check (:func:`robustness`) asks whether an effect keeps its sign and roughly its size
when the same comparison is played by other players (:data:`ROBUST_MODELS`) on the same deals.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

#: Player models of the robustness check: the independently checked uniform player, the casual
#: player (sheds its highest cards, keeps wilds) and the strongest cheap heuristic (color_majority,
#: the best strategy of the skill study).
ROBUST_MODELS = ("random", "greedy", "color_majority")

#: An effect's sizes under the player models "roughly agree" when the largest is at most this many
#: times the smallest (all of one sign, each interval clear of zero).
SIZE_RATIO = 2.0

#: metric -> (what it measures, unit, whether it is a rate shown in percent)
_METRICS = {
    "turns": ("turns per {unit}", "", False),
    "winner_points": ("the winner's points per round", "points", False),
    "cards_drawn": ("cards drawn per round", "cards", False),
    "rounds": ("rounds per match", "", False),
    "capped": ("the share of {unit}es stopped by the cap", "", True),
}

#: One line per metric, for --help and docs/answers.md.
METRIC_HELP = {
    "turns": "turns per round (match: summed over its rounds); a turn is one seat's go (it plays or draws; a "
             "stack, deflection, bounce or jump-in counts as one); skipped seats and attack victims who draw and "
             "lose the turn have none",
    "winner_points": "points the round's winner scores (the cards left in the other hands)",
    "cards_drawn": "cards drawn from the pile in the round, all seats together (penalties included)",
    "seat<K>_win": "share of rounds (matches) won by seat K (seat 0 plays first in round mode)",
    "rounds": "rounds per match (match mode)",
    "capped": "share of rounds (matches) stopped by the turn (round) cap",
}


def metric_phrase(metric: str, mode: str = "round") -> tuple[str, str, bool]:
    """(what the metric measures in words, unit, whether it is a rate in percent)."""
    unit = "match" if mode == "match" else "round"
    if metric.startswith("seat") and metric.endswith("_win"):
        return f"seat {metric[4:-4]}'s {unit} win rate", "percentage points", True
    what, u, rate = _METRICS.get(metric, (metric, "", False))
    return what.format(unit=unit), u, rate


def players_phrase(policies: Sequence[str]) -> str:
    """``greedy players`` when every seat plays the same policy, else the line-up seat by seat."""
    pols = list(policies)
    if len(set(pols)) == 1:
        return f"{pols[0]} players"
    return "players " + ", ".join(f"{p} (seat {i})" for i, p in enumerate(pols))


def decimals(half: float) -> int:
    if not (math.isfinite(half) and half > 0):
        return 2
    return min(6, max(0, 1 - math.floor(math.log10(half))))


def relative(diff: float, base: float) -> float:
    """diff / base (nan when the baseline mean is 0 or undefined)."""
    return diff / base if base and math.isfinite(base) and math.isfinite(diff) else float("nan")


def _signed_pct(x: float) -> str:
    return "n/a" if not math.isfinite(x) else f"{x * 100:+.1f}%"


def effect_clause(metric: str, mode: str, diff: float, lo: float, hi: float, base: float, note: bool = True) -> str:
    """"raises turns per round by 1.4 to 1.6 (+3.3%)", "lowers ...", or "changes ... by -0.1 to +0.2 (+0.1%),
    not distinguishable from no change" when the interval holds 0 (without that note: ``note=False``)."""
    what, unit, rate = metric_phrase(metric, mode)
    k = 100.0 if rate else 1.0
    dec = decimals((hi - lo) / 2 * k)
    rel = _signed_pct(relative(diff, base))
    u = f" {unit}" if unit else ""
    if lo > 0:
        return f"raises {what} by {lo * k:,.{dec}f} to {hi * k:,.{dec}f}{u} ({rel})"
    if hi < 0:
        return f"lowers {what} by {-hi * k:,.{dec}f} to {-lo * k:,.{dec}f}{u} ({rel})"
    return f"changes {what} by {lo * k:+,.{dec}f} to {hi * k:+,.{dec}f}{u} ({rel})" + \
        (", not distinguishable from no change" if note else "")


def effect_sentence(arm: str, baseline: str, metric: str, mode: str, diff: float, lo: float, hi: float,
                    base: float, players: str, where: str = "") -> str:
    """One plain sentence for one effect."""
    at = f" ({where})" if where else ""
    clause = effect_clause(metric, mode, diff, lo, hi, base, note=False)
    tail = ": not distinguishable from no change" if sign(lo, hi) == 0 else ""
    return f"For {players}{at}, {arm} {clause} compared with {baseline}{tail}."


def sign(lo: float, hi: float) -> int:
    """+1 / -1 when the interval is clear of zero on that side, else 0."""
    return 1 if lo > 0 else (-1 if hi < 0 else 0)


def robustness(effects: Sequence[dict[str, Any]]) -> dict[str, Any]:
    """Whether one effect holds under every player model.

    ``effects``: one dict per model with keys model, diff, ci_lo, ci_hi.  Returns verdict (``consistent``:
    one sign everywhere, sizes within :data:`SIZE_RATIO`; ``size varies``; ``sign flips``: clear of zero
    with opposite signs under two models; ``unclear``: clear of zero under some models only; ``none``:
    clear of zero under none) and the models with a positive / negative / unclear effect."""
    signs = {e["model"]: sign(e["ci_lo"], e["ci_hi"]) for e in effects}
    pos = [m for m, s in signs.items() if s > 0]
    neg = [m for m, s in signs.items() if s < 0]
    zero = [m for m, s in signs.items() if s == 0]
    if pos and neg:
        verdict = "sign flips"
    elif not pos and not neg:
        verdict = "none"
    elif zero:
        verdict = "unclear"
    else:
        sizes = [abs(e["diff"]) for e in effects]
        verdict = "size varies" if max(sizes) > SIZE_RATIO * min(sizes) else "consistent"
    return {"verdict": verdict, "positive": pos, "negative": neg, "unclear": zero}


def robustness_sentence(arm: str, metric: str, mode: str, verdict: dict[str, Any]) -> str | None:
    """The plain sentence that warns a reader when an effect depends on the players (None when it holds)."""
    what = metric_phrase(metric, mode)[0]
    v = verdict["verdict"]
    if v == "sign flips":
        return (f"Caution: the effect of {arm} on {what} changes sign with the players (it raises it for "
                f"{' and '.join(verdict['positive'])} players but lowers it for {' and '.join(verdict['negative'])} "
                "players), so it is not a property of the rules alone.")
    if v == "unclear":
        return (f"Caution: the effect of {arm} on {what} is clear for "
                f"{' and '.join(verdict['positive'] + verdict['negative'])} players only (not for "
                f"{' and '.join(verdict['unclear'])} players).")
    if v == "size varies":
        return (f"Caution: the effect of {arm} on {what} keeps its sign but its size varies more than "
                f"{SIZE_RATIO:g}-fold with the players.")
    return None


def interaction(recs: Sequence[Any], metric: str) -> dict[str, Any]:
    """The interaction of a 2x2 design from the records of its four arms in the order
    (a0 b0, a1 b0, a0 b1, a1 b1): (a1b1 - a0b1) - (a1b0 - a0b0), paired game by game (on the games all four
    arms played), with its 95% interval.  Keys diff, se, ci_lo, ci_hi, half_width, n, effect_b0, effect_b1."""
    import numpy as np

    from .paired import index_column, mean_row, metric_values

    games = [r[index_column(r)].to_numpy() for r in recs]
    common = games[0]
    for g in games[1:]:
        common = np.intersect1d(common, g)
    xs = []
    for r, g in zip(recs, games, strict=True):
        order = np.argsort(g)
        xs.append(metric_values(r, metric)[order[np.searchsorted(g, common, sorter=order)]])
    row = mean_row((xs[3] - xs[2]) - (xs[1] - xs[0]))
    return {"diff": row.pop("mean"), **row, "effect_b0": float((xs[1] - xs[0]).mean()),
            "effect_b1": float((xs[3] - xs[2]).mean())}
