"""What-if experiments: paired comparisons of arms, and sweeps over a grid, through the results store.

``compare(arms, players, games, seed, ...)``
    Runs every arm (a rule set, a deck or a policy line-up) with the same master seed, players,
    seating and mode, so the arms share common random numbers, and returns one row per (arm,
    metric): the arm's mean with its 95% normal interval, and its paired difference from the first
    arm (game by game, :func:`unosim.analysis.paired.paired_difference`) with the 95% interval and the
    variance ratio paired / independent seeds.
``run_sweep(path_or_dict, dry_run=False)``
    Runs the cells of a TOML grid (players x rules x policies x decks x mode x seating) and returns
    one row per cell; ``dry_run`` lists the cells with a cost estimate from a small pilot run.

Both return pandas DataFrames (for notebooks); ``df.attrs`` carries the run's description (arms or
cells with their store keys, seconds, whether the precision target was reached).  Every cell's
records live in the results store (:mod:`unosim.results.store`), so a rerun reuses them and a larger
``games`` or a tighter ``precision`` runs only the missing games.

What common random numbers share
--------------------------------
Game ``g`` of every arm is seeded from ``(seed, g)`` alone, and the shuffle is the first use of the
game's stream, so:

* arms with the **same deck** (rules or policies differ) deal identical hands and the same
  starting card; the streams then stay in step until the first decision that differs between the
  arms (a stack, a different card choice), after which the games diverge;
* arms whose decks have **different sizes** share only the per-game seed: the shuffle permutes a
  different number of cards, so the deals are unrelated (pairing still costs nothing, it just
  helps little);
* decks of the **same size but different cards** get the same permutation of card positions, so
  each seat receives the cards at the same positions of the two deck lists;
* ``seating="shuffle"`` seat assignments and the UNO Flip face pairing come from their own streams
  of ``(seed, g)`` and are shared by every arm;
* in match mode round ``k`` of match ``m`` is seeded from ``(seed, m * 65536 + k)``, so the arms
  deal the same hands again at the start of every round of the same number, even after an earlier
  round diverged (as long as the same seats are still in the game).

Precision targets
-----------------
``precision=X`` (with ``max_games``) keeps adding chunks until the 95% half-width of the key
``metric`` is at most X: in :func:`compare` the half-width of the *paired difference* of every arm
from the first (the question asked is the effect of the change); with one arm, or in a sweep cell,
the half-width of the cell's own mean.  The next size is estimated from the current standard error
(n x (half-width / X)^2, +5%), capped at ``max_games``.

Sweep files (TOML)
------------------
::

    name = "first player's edge"      # optional
    games = 100000                    # per cell (the first step when precision is set)
    seed = 7
    metric = "seat0_win"              # key metric of the precision target
    precision = 0.002                 # optional, with max_games
    max_games = 2000000
    policy_files = ["my_policy.py"]   # optional: files defining policies the grid names (relative to
                                      # this file's folder)

    [grid]                            # each key: one value or a list
    players = "2..10"                 # an int, a list of ints, or "A..B"
    rules = ["official", "official+stacking"]
    policies = ["random"]
    decks = ["classic"]
    mode = ["round"]
    seating = ["fixed"]

    [match]                           # match options for mode = "match" cells
    target = 500

A malformed file, an unknown key or a bad value raises :class:`ExperimentError` with one line that
names the file and line.

Files written by ``--out DIR`` (for reports)
--------------------------------------------
``unosim compare --out DIR``: ``compare.csv`` (the table), ``compare.json`` (``{"attrs": ...,
"rows": [...]}``, NaN as null) and ``arms/<arm label slug>/`` with ``records.parquet``,
``meta.json`` and ``summary.json`` of every arm (``unosim report`` reads them; ``meta["cell"]`` and
``meta["store_key"]`` name the cell).  ``unosim sweep FILE --out DIR``: ``sweep.csv``,
``sweep.json`` and ``cells/<slug>/`` likewise.
"""

from __future__ import annotations

import difflib
import itertools
import math
import re
import time
import tomllib
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pandas as pd

from ..analysis import answers, paired
from ..analysis.stats import z_value
from ..console import progress_bar
from ..errors import UnosimError
from ..players.policies import split_top_level
from ..results import store as _store
from ..results.backends import backend_session
from ..results.store import Cell, StoreError, fill_cells_keeping, load_cells, make_cell
from ..ruleset.decks import get_deck
from ..ruleset.rules import parse_rules
from ..running.sim import default_batch, simulate
from ..validate import (
    MAX_BATCH,
    MAX_GAMES,
    check_games,
    check_memory,
    check_players,
    check_seating,
    check_threads,
    fits_in_memory,
    integer,
    is_integer,
    record_bytes,
)

DEFAULT_MAX_GAMES = {"round": 10_000_000, "match": 200_000}
PILOT_GAMES = {"round": 2_000, "match": 20}


class ExperimentError(UnosimError):
    """A bad arm, experiment file or option (one-line message)."""


# ---- metrics -------------------------------------------------------------------------------------------


def metric_names(mode: str, players: int) -> list[str]:
    """The metrics reported per arm/cell, in order."""
    seats = [f"seat{s}_win" for s in range(players)]
    if mode == "match":
        return ["rounds", "turns", *seats, "capped"]
    return ["turns", "winner_points", "cards_drawn", *seats, "capped"]


def check_metric(metric: str, mode: str, players: int) -> str:
    names = metric_names(mode, players)
    if metric not in names:
        raise ExperimentError(f"metric {metric!r} is unknown for {players} players in {mode} mode; "
                              f"accepted: {', '.join(names)}")
    return metric


# ---- arms ------------------------------------------------------------------------------------------------

ARM_KEYS = ("rules", "deck", "policies", "label")


@dataclass(frozen=True)
class Arm:
    label: str
    rules: str
    deck: str
    policies: str


def parse_arm(text: str | dict, deck: str = "classic", policies: str = "greedy") -> Arm:
    """An arm: a rules string (``official+stacking``), or ``key:value`` parts joined by ``;`` with
    keys rules, deck, policies, label (``"deck:flip; label:UNO Flip"``; the first part may be a bare
    rules string: ``"stacking; label:Stack it"``), or a dict of those keys."""
    if isinstance(text, dict):
        parts = {str(k): str(v) for k, v in text.items()}
    else:
        parts = {}
        items = [s.strip() for s in split_top_level(str(text), ";") if s.strip()]
        if not items:
            raise ExperimentError("empty --arm; accepted: a rules string, or key:value parts (rules, deck, "
                                  "policies, label) joined by ';'")
        for item in items:
            key, sep, val = item.partition(":")
            if sep and re.fullmatch(r"[a-z_]+", key.strip()):
                if not val.strip():
                    raise ExperimentError(f"arm part {item!r} has no value; accepted: {key.strip()}:VALUE, e.g. "
                                          "'stacking; label:Stack it'")
                parts[key.strip()] = val.strip()
            elif item is items[0]:  # a bare rules string first: "stacking; label:Stack it"
                parts["rules"] = item
            else:
                raise ExperimentError(f"arm part {item!r} has no key; accepted: a rules string first, then "
                                      "rules:..., deck:..., policies:..., label:...")
    for k in parts:
        if k not in ARM_KEYS:
            raise ExperimentError(f"unknown arm key {k!r}{_hint(k, ARM_KEYS)}; accepted: {', '.join(ARM_KEYS)}")
    rules = parts.get("rules", "official")
    arm_deck = parts.get("deck", deck)
    arm_pol = parts.get("policies", policies)
    label = parts.get("label") or (str(text) if isinstance(text, str) else "; ".join(f"{k}:{v}" for k, v in parts.items()))
    return Arm(label, rules, arm_deck, arm_pol)


def _hint(word: str, choices) -> str:
    near = difflib.get_close_matches(word, list(choices), n=1)
    return f" (did you mean {near[0]!r}?)" if near else ""


# ---- running cells to a precision ----------------------------------------------------------------------


def _round_up(n: float, step: int) -> int:
    return int(math.ceil(n / step) * step)


def next_games(n: int, half_width: float, precision: float, max_games: int, step: int) -> int:
    """Games needed for the target, estimated from the half-width at n games (+5%), at least one
    more step, at most ``max_games``."""
    if not math.isfinite(half_width):
        need = 2 * n
    else:
        need = n * (half_width / precision) ** 2 * 1.05
    return int(min(max_games, max(n + step, _round_up(need, step))))


class _Bars:
    """An overall progress bar (games over all cells) above the per-cell bars of run_batches."""

    def __init__(self, enabled: bool, total: int, unit: str) -> None:
        self.counted: dict[str, int] = {}
        self.bar = progress_bar(enabled, total, unit, "overall", position=0)

    def grow(self, more: int) -> None:
        """The target grew by ``more`` games (a precision target asked for more)."""
        if self.bar is not None and more > 0:
            self.bar.total += more
            self.bar.refresh()

    def cover(self, key: str, games: int) -> None:
        """Cell ``key`` now has ``games`` of its target (stored ones count as done)."""
        if self.bar is not None and games > self.counted.get(key, 0):
            self.bar.update(games - self.counted.get(key, 0))
            self.counted[key] = games

    def close(self) -> None:
        if self.bar is not None:
            self.bar.close()


def _fill_all(cells: list[Cell], labels: list[str], n: int, root, threads, chunk, progress: bool, bars: _Bars,
              backend=None) -> tuple[list[pd.DataFrame], bool, int]:
    """Records of games [0, n) of every cell, the missing chunks of all of them run together (so that writing
    one overlaps computing the next); returns (records, interrupted, games run now).  After an interrupt:
    the stored records of the leading cells that have any."""
    desc = labels[0][:30] if len(cells) == 1 else None
    recs = load_cells(cells, n, root, threads, progress, chunk, desc=desc, backend=backend)
    infos = {df.attrs["store"]["key"]: df.attrs["store"] for df in recs}
    ran = sum(i["ran"] for i in infos.values())
    if any(i["interrupted"] for i in infos.values()):
        return _stored_prefix(cells, n, root), True, ran
    for cell in cells:
        bars.cover(cell.key, n)
    return recs, False, ran


def _stored_prefix(cells: list[Cell], n: int, root) -> list[pd.DataFrame]:
    """The stored records (games < n) of the leading cells that have any, after an interrupt."""
    from ..results.store import StoreError, read_cell

    recs = []
    for cell in cells:
        try:
            recs.append(read_cell(cell, n, root))
        except StoreError:
            break
    return recs


def check_sizes(games: Any, max_games: Any, precision: Any, chunk: Any, mode: Any, players: Any,
                cells: int) -> tuple[int, int | None, float | None, int | None]:
    """games, max_games, precision and chunk of a comparison, checked before anything runs; the records of
    every cell at ``max_games`` (or ``games``) must fit in memory together."""
    n = check_players(players) if is_integer(players) else 4  # a bad player count is refused by make_cell
    per_game = record_bytes(mode if mode == "match" else "round", n, from_disk=True) * cells  # read from the store
    games = check_games(games, per_game)
    if max_games is not None:
        max_games = integer("max_games", max_games, 1, MAX_GAMES, ExperimentError)
        check_memory("max_games", max_games, per_game)
    if precision is not None:
        if isinstance(precision, bool) or not isinstance(precision, (int, float)) or not 0 < precision < math.inf:
            raise ExperimentError(f"precision={precision!r} is not a positive number; accepted: a 95% half-width "
                                  "> 0, e.g. 0.001")
        precision = float(precision)
    elif max_games is not None:
        raise ExperimentError(f"max_games={max_games} caps --precision runs only; accepted: add precision=..., "
                              "or drop max_games")
    chunk = None if chunk is None else integer("batch_size", chunk, 1, MAX_BATCH, ExperimentError)
    return games, max_games, precision, chunk


def run_to_precision(cells: list[Cell], labels: list[str], games: int, metric: str, precision: float | None,
                     max_games: int | None, root=None, threads=None, progress: bool = False,
                     chunk: int | None = None, bars: _Bars | None = None, backend=None,
                     have: list[pd.DataFrame] | None = None) -> dict[str, Any]:
    """Fill every cell to ``games``, then (with ``precision``) grow all of them together until the key
    half-width (paired from the first cell when there are several) is at most ``precision``.

    ``have``: the records of games [0, games) of every cell, already in hand (nothing is filled or read for
    them).

    ``progress``: a bar per cell, and an overall bar (``bars``, when the caller has its own).
    ``backend``: where the chunks run (:mod:`unosim.results.backends`; None: threads here).
    Returns records (list), games, half_width, reached, interrupted, seconds (simulation wall time),
    ran (games run now)."""
    mode = cells[0].mode
    t = check_threads(threads)
    n = int(games)
    if precision is not None:
        if not precision > 0:
            raise ExperimentError(f"precision={precision!r} is not positive; accepted: a half-width > 0")
        max_games = int(max_games or DEFAULT_MAX_GAMES[mode])
        if max_games < 1:
            raise ExperimentError(f"max_games={max_games!r} is not positive; accepted: a positive integer")
        n = min(n, max_games)
    step = chunk or default_batch(mode, n, t)
    own = bars is None
    bars = _Bars(progress, n * len(cells), cells[0].unit) if own else bars
    t0 = time.perf_counter()
    ran = 0
    try:
        while True:
            if have is not None:
                recs, interrupted, now, have = have, False, 0, None
                for cell in cells:
                    bars.cover(cell.key, n)
            else:
                recs, interrupted, now = _fill_all(cells, labels, n, root, t, chunk, progress, bars, backend)
            ran += now
            hw = key_half_width(recs, metric) if not interrupted else float("nan")
            done = precision is None or interrupted or hw <= precision or n >= max_games
            if done:
                break
            more = next_games(n, hw, precision, max_games, step) - n
            bars.grow(more * len(cells))
            n += more
    finally:
        if own:
            bars.close()
    return {"records": recs, "games": n, "half_width": hw, "interrupted": interrupted,
            "reached": None if precision is None else bool(hw <= precision),
            "seconds": time.perf_counter() - t0, "ran": ran}


def key_half_width(recs: list[pd.DataFrame], metric: str) -> float:
    """95% half-width of the key metric: the widest paired difference from the first records, or
    the mean's half-width with a single set of records."""
    if len(recs) == 1:
        return paired.mean_row(paired.metric_values(recs[0], metric))["half_width"]
    return max(paired.paired_difference(recs[0], r, metric)["half_width"] for r in recs[1:])


# ---- compare ---------------------------------------------------------------------------------------------


def compare(arms: list[str | dict], players: int = 4, games: int = 100_000, seed: int = 0, deck: str = "classic",
            policies: str = "greedy", seating: str = "fixed", mode: str = "round", precision: float | None = None,
            max_games: int | None = None, metric: str = "seat0_win", store: str | Path | None = None,
            threads: int | None = None, progress: bool = False, chunk: int | None = None,
            backend: str | None = "local", scheduler: str | None = None, workers: int | None = None,
            client=None, policy_files: list[str] | str | None = None, robust: bool = False,
            factors: dict[str, list[str]] | None = None, **match_options: Any) -> pd.DataFrame:
    """Run the arms with common random numbers; one row per (arm, metric).

    ``attrs["answer_sentences"]``: one plain sentence per effect of the key ``metric`` (each arm against
    the first), naming the players (:mod:`unosim.analysis.answers`).  ``diff_rel``: the difference relative to the
    first arm's mean.

    ``robust``: also replay the comparison with every seat of the arms that do not name their policies
    played by each model of :data:`unosim.analysis.answers.ROBUST_MODELS` (same deals); ``attrs["robustness"]``
    says per arm whether the key effect keeps its sign and roughly its size, and a sentence warns when not.

    ``factors``: a 2x2 design instead of ``arms``: two arm keys (rules, deck, policies) with two values
    each, e.g. ``{"deck": ["classic", "flip"], "policies": ["greedy", "color_majority,greedy,greedy,greedy"]}``;
    the four arms are (a0 b0, a1 b0, a0 b1, a1 b1) and ``attrs["interaction"]`` holds how much the first
    factor's effect differs between the second factor's values ((a1 b1 - a0 b1) - (a1 b0 - a0 b0) of the
    key metric, paired game by game) with its 95% interval.

    ``policy_files``: Python files defining policies (:mod:`unosim.players.policy_api`) that the arms may name;
    every cell is keyed by the content of the files and classes its policies come from, so an edited
    strategy is run afresh.

    Columns: arm, metric, mean, se, ci_lo, ci_hi, n, diff, diff_se, diff_lo, diff_hi, diff_half_width,
    var_ratio (paired / independent seeds), key (store key).  The first arm's diff is 0 by definition.
    ``attrs``: arms (label, key, cell), games, metric, precision, half_width, reached, interrupted,
    seconds, store, and backend, games_per_second, cluster_start_seconds.  Records: ``arm_records(df)``.

    ``backend`` (``local``, ``dask`` with ``scheduler``, ``dask-local`` with ``workers``) or a
    ``dask.distributed`` ``client``: where the chunks run (:mod:`unosim.results.backends`); the records do
    not depend on it.
    """
    if factors is not None:
        if arms:
            raise ExperimentError("arms and factors both given; accepted: arms, or a 2x2 design of two factors")
        arms = factor_arms(factors)
    if not arms:
        raise ExperimentError("no arms; accepted: two or more --arm values (rules strings or key:value parts)")
    games, max_games, precision, chunk = check_sizes(games, max_games, precision, chunk, mode, players, len(arms))
    if robust:
        models = _robust_models(arms, deck, policies)
    parsed = [parse_arm(a, deck, policies) for a in arms]
    labels = _unique_labels([a.label for a in parsed])
    cells = [make_cell(rules=a.rules, players=players, policies=a.policies, deck=a.deck, seed=seed,
                       seating=seating, mode=mode, policy_files=policy_files, **match_options) for a in parsed]
    check_metric(metric, mode, cells[0].players)
    with backend_session(backend, scheduler, workers, client, threads) as be:
        out = run_to_precision(cells, labels, games, metric, precision, max_games, store, threads, progress, chunk,
                               backend=be)
    table = comparison_table(out["records"], labels[:len(out["records"])], cells, mode)
    table.attrs.update({
        "arms": [{"label": lb, "key": c.key, "cell": c.to_dict()} for lb, c in zip(labels, cells, strict=True)],
        "games": out["games"], "metric": metric, "precision": precision, "half_width": out["half_width"],
        "reached": out["reached"], "interrupted": out["interrupted"], "seconds": out["seconds"],
        "store": str(store if store is not None else _store.DEFAULT_ROOT),
        **_backend_attrs(be, out["ran"], out["seconds"]),
    })
    if factors is not None and not out["interrupted"]:
        table.attrs["interaction"] = _interaction(out["records"], labels, factors, metric)
    table.attrs["answer_sentences"] = answer_sentences(table)
    if robust and not out["interrupted"]:
        kw = dict(players=players, games=games, seed=seed, deck=deck, seating=seating, mode=mode, precision=precision,
                  max_games=max_games, metric=metric, store=store, threads=threads, progress=progress, chunk=chunk,
                  backend=backend, scheduler=scheduler, workers=workers, client=client, policy_files=policy_files,
                  **match_options)
        runs = {m: table if _same_players(m, policies) else compare(arms, policies=m, **kw) for m in models}
        table.attrs["robustness"] = robustness_rows(runs, metric)
        table.attrs["answer_sentences"] += robust_sentences(table.attrs["robustness"], mode)
    return table


def _same_players(model: str, policies: str) -> bool:
    return str(policies).strip().lower() == model


_UNSET = "\x00unset"


def _robust_models(arms: list, deck: str, policies: str) -> tuple[str, ...]:
    """The player models of the robustness check; refused when every arm names its own policies."""
    if all(parse_arm(a, deck, _UNSET).policies != _UNSET for a in arms):
        raise ExperimentError("robust replays the arms with other players, but every arm names its policies; "
                              "accepted: arms without a policies: part (the line-up then comes from --policies)")
    return answers.ROBUST_MODELS


def robustness_rows(runs: dict[str, pd.DataFrame], metric: str) -> list[dict[str, Any]]:
    """Per non-baseline arm: the key effect under each player model and the verdict of
    :func:`unosim.analysis.answers.robustness`."""
    rows = []
    first = next(iter(runs.values()))
    for arm in list(dict.fromkeys(first["arm"]))[1:]:
        effects = []
        for model, t in runs.items():
            r = t[(t["arm"] == arm) & (t["metric"] == metric)].iloc[0]
            base = t[(t["arm"] == t["arm"].iloc[0]) & (t["metric"] == metric)].iloc[0]
            effects.append({"model": model, "diff": float(r["diff"]), "ci_lo": float(r["diff_lo"]),
                            "ci_hi": float(r["diff_hi"]), "diff_rel": float(r["diff_rel"]),
                            "baseline_mean": float(base["mean"])})
        rows.append({"arm": arm, "baseline": first["arm"].iloc[0], "metric": metric, "effects": effects,
                     **answers.robustness(effects)})
    return rows


def robust_sentences(rows: list[dict[str, Any]], mode: str) -> list[str]:
    """Per arm: the effect under each player model in one sentence, and a warning when it does not hold."""
    out = []
    for r in rows:
        parts = [f"for {e['model']} players it "
                 + answers.effect_clause(r["metric"], mode, e["diff"], e["ci_lo"], e["ci_hi"], e["baseline_mean"])
                 for e in r["effects"]]
        out.append(f"Robustness of {r['arm']} against {r['baseline']}: " + "; ".join(parts) + ".")
        warn = answers.robustness_sentence(r["arm"], r["metric"], mode, r)
        if warn:
            out.append(warn)
    return out


def answer_sentences(table: pd.DataFrame) -> list[str]:
    """One sentence per effect of the key metric in a :func:`compare` table (each arm against the first)."""
    a = table.attrs
    arms = {x["label"]: x["cell"] for x in a["arms"]}
    metric = a["metric"]
    rows = table[table["metric"] == metric]
    if rows.empty:
        return []
    base = rows.iloc[0]
    base_cell = arms[base["arm"]]
    out = []
    for _, r in rows.iloc[1:].iterrows():
        cell = arms[r["arm"]]
        if list(cell["policies"]) == list(base_cell["policies"]):
            who = answers.players_phrase(cell["policies"])
        else:
            who = (f"{answers.players_phrase(cell['policies'])} instead of "
                   f"{answers.players_phrase(base_cell['policies'])}")
        out.append(answers.effect_sentence(r["arm"], base["arm"], metric, cell["mode"], r["diff"], r["diff_lo"],
                                           r["diff_hi"], base["mean"], who, f"{cell['players']} players"))
    inter = a.get("interaction")
    if inter:
        out.append(interaction_sentence(inter, base_cell["mode"]))
    return out


# ---- 2x2 designs -----------------------------------------------------------------------------------------


def factor_arms(factors: dict[str, list[str]]) -> list[dict[str, str]]:
    """The four arms of a 2x2 design, in the order (a0 b0, a1 b0, a0 b1, a1 b1)."""
    if not isinstance(factors, dict) or len(factors) != 2:
        raise ExperimentError(f"factors={factors!r} is not a 2x2 design; accepted: two factors (arm keys rules, "
                              "deck, policies) with two values each")
    (ka, va), (kb, vb) = factors.items()
    for k, v in factors.items():
        if k not in ("rules", "deck", "policies"):
            raise ExperimentError(f"unknown factor {k!r}{_hint(k, ARM_KEYS)}; accepted: rules, deck, policies")
        if not isinstance(v, (list, tuple)) or len(v) != 2 or not all(isinstance(x, str) and x.strip() for x in v):
            raise ExperimentError(f"factor {k}={v!r} needs exactly two values; accepted: two non-empty strings")
    return [{ka: a, kb: b, "label": f"{ka}:{a}; {kb}:{b}"} for b in vb for a in va]


def _interaction(recs: list[pd.DataFrame], labels: list[str], factors: dict[str, list[str]],
                 metric: str) -> dict[str, Any]:
    (ka, va), (kb, vb) = factors.items()
    d = answers.interaction(recs, metric)
    return {"metric": metric, "factor_a": ka, "values_a": list(va), "factor_b": kb, "values_b": list(vb),
            "arms": labels, **d}


def interaction_sentence(inter: dict[str, Any], mode: str) -> str:
    """The interaction of a 2x2 design in one sentence."""
    what, unit, rate = answers.metric_phrase(inter["metric"], mode)
    k = 100.0 if rate else 1.0
    dec = answers.decimals(inter["half_width"] * k)
    u = f" {unit}" if unit else ""
    (a0, a1), (b0, b1) = inter["values_a"], inter["values_b"]
    verdict = ("differs" if answers.sign(inter["ci_lo"], inter["ci_hi"]) else
               "does not differ detectably")
    return (f"The effect of {inter['factor_a']} {a0} -> {a1} on {what} {verdict} between {inter['factor_b']} {b0} "
            f"({inter['effect_b0'] * k:+,.{dec}f}{u}) and {b1} ({inter['effect_b1'] * k:+,.{dec}f}{u}): interaction "
            f"{inter['diff'] * k:+,.{dec}f} ± {inter['half_width'] * k:,.{dec}f}{u} (95%, paired).")


def _backend_attrs(be, ran: int, seconds: float) -> dict[str, Any]:
    """backend, games_per_second (games run now over simulation seconds; cluster start-up excluded)
    and cluster_start_seconds."""
    return {**be.describe(), "games_per_second": ran / seconds if seconds > 0 and ran else None,
            "cluster_start_seconds": round(be.cluster_start_seconds, 3)}


def _unique_labels(labels: list[str]) -> list[str]:
    seen: dict[str, int] = {}
    out = []
    for lb in labels:
        seen[lb] = seen.get(lb, 0) + 1
        out.append(lb if seen[lb] == 1 else f"{lb} ({seen[lb]})")
    return out


def comparison_table(recs: list[pd.DataFrame], labels: list[str], cells: list[Cell], mode: str) -> pd.DataFrame:
    """The long (arm, metric) table of :func:`compare` from the arms' records."""
    rows = []
    for label, rec, cell in zip(labels, recs, cells, strict=False):
        for m in metric_names(mode, cell.players):
            x = paired.metric_values(rec, m)
            row = {"arm": label, "metric": m, **paired.mean_row(x)}
            row.pop("half_width")
            d = paired.paired_difference(recs[0], rec, m)
            row.update(diff=d["diff"], diff_se=d["se"], diff_lo=d["ci_lo"], diff_hi=d["ci_hi"],
                       diff_half_width=d["half_width"], diff_rel=answers.relative(d["diff"], d["mean_a"]),
                       var_ratio=paired.variance_ratio(recs[0], rec, m)
                       if rec is not recs[0] else float("nan"), key=cell.key)
            rows.append(row)
    return pd.DataFrame(rows)


def arm_records(table: pd.DataFrame) -> dict[str, pd.DataFrame]:
    """The records of each arm of a :func:`compare` table, read back from the store."""
    from ..results.store import read_cell

    n = table.attrs["games"]
    return {a["label"]: read_cell(Cell.from_dict(a["cell"]), n, table.attrs["store"]) for a in table.attrs["arms"]}


# ---- sweeps ----------------------------------------------------------------------------------------------

TOP_KEYS = ("name", "description", "games", "seed", "metric", "precision", "max_games", "threads", "chunk",
            "policy_files", "grid", "match")
GRID_KEYS = ("players", "rules", "policies", "decks", "deck", "mode", "seating")
MATCH_OPTION_KEYS = ("scoring", "target", "partners", "max_rounds", "rounds", "rounds_per_partner")


def _key_lines(text: str) -> dict[tuple[str, str], int]:
    """Line number of each ``key =`` in each ``[table]`` of a TOML text ("" = top level), and of
    each table header (key "")."""
    where: dict[tuple[str, str], int] = {}
    table = ""
    for i, line in enumerate(text.splitlines(), 1):
        s = line.strip()
        m = re.match(r"^\[\s*([A-Za-z0-9_.\-]+)\s*\]", s)
        if m:
            table = m.group(1)
            where.setdefault((table, ""), i)
            continue
        m = re.match(r"^([A-Za-z0-9_\-]+|\"[^\"]*\")\s*=", s)
        if m:
            where.setdefault((table, m.group(1).strip('"')), i)
    return where


@dataclass
class _Spec:
    source: str
    lines: dict[tuple[str, str], int]

    def err(self, table: str, key: str, msg: str) -> ExperimentError:
        line = self.lines.get((table, key)) or self.lines.get((table, "")) or 1
        return ExperimentError(f"{self.source} line {line}: {msg}")


def load_experiment(path_or_dict: str | Path | dict) -> tuple[dict[str, Any], _Spec]:
    """Read a sweep file (or take a dict) and return (data, locator for error lines)."""
    if isinstance(path_or_dict, dict):
        return path_or_dict, _Spec("experiment", {})
    path = Path(path_or_dict)
    try:
        text = path.read_text()
    except (OSError, UnicodeDecodeError) as e:
        raise ExperimentError(f"experiment file {str(path)!r} cannot be read ({e.__class__.__name__}); "
                              "accepted: a readable TOML file") from None
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as e:
        msg = str(e)
        m = re.search(r"\(at line (\d+), column \d+\)", msg)
        line = m.group(1) if m else "?"
        why = re.sub(r"\s*\(at line \d+, column \d+\)", "", msg) or "malformed"
        raise ExperimentError(f"{path} line {line}: malformed TOML ({why}); accepted: a TOML sweep file "
                              "(see `unosim sweep --help`)") from None
    return data, _Spec(str(path), _key_lines(text))


def _as_list(v: Any) -> list[Any]:
    return list(v) if isinstance(v, list) else [v]


def _players_axis(v: Any, spec: _Spec) -> list[int]:
    if isinstance(v, str):
        m = re.fullmatch(r"\s*(\d+)\s*\.\.\s*(\d+)\s*", v)
        if not m:
            raise spec.err("grid", "players", f"players={v!r} is not a range; accepted: an int, a list of ints, "
                                              "or \"A..B\"")
        v = list(range(int(m.group(1)), int(m.group(2)) + 1))
    out = []
    for p in _as_list(v):
        if isinstance(p, bool) or not isinstance(p, int):
            raise spec.err("grid", "players", f"players value {p!r} is not an integer; accepted: 2..10")
        try:
            out.append(check_players(p))
        except ValueError as e:
            raise spec.err("grid", "players", str(e)) from None
    if not out:
        raise spec.err("grid", "players", "players is empty; accepted: 2..10")
    return out


def _str_axis(data: dict, key: str, default: str, spec: _Spec, check) -> list[str]:
    vals = _as_list(data.get(key, default))
    if not vals:
        raise spec.err("grid", key, f"{key} is empty; accepted: one value or a non-empty list")
    for v in vals:
        if not isinstance(v, str):
            raise spec.err("grid", key, f"{key} value {v!r} is not a string; accepted: a string or a list of strings")
        try:
            check(v)
        except ValueError as e:
            raise spec.err("grid", key, str(e).splitlines()[0]) from None
    return vals


def _number(data: dict, key: str, kind, spec: _Spec, default=None, positive: bool = True):
    if key not in data:
        return default
    v = data[key]
    ok = isinstance(v, kind) and not isinstance(v, bool)
    if kind is float and isinstance(v, int) and not isinstance(v, bool):
        v, ok = float(v), True
    if not ok or (positive and not v > 0) or (not positive and v < 0):
        want = "a positive number" if kind is float else ("a positive integer" if positive else "an integer >= 0")
        raise spec.err("", key, f"{key}={v!r} is not valid; accepted: {want}")
    return v


@dataclass
class Sweep:
    name: str
    cells: list[tuple[dict[str, Any], Cell]]
    games: int
    metric: str
    precision: float | None
    max_games: int | None
    threads: int | None
    chunk: int | None


def _table(data: dict, name: str, keys: tuple[str, ...], spec: _Spec) -> dict:
    """The ``[name]`` table of a sweep file, its keys checked."""
    table = data.get(name, {})
    if not isinstance(table, dict):
        raise spec.err("", name, f"{name} is not a table; accepted: a [{name}] table")
    for k in table:
        if k not in keys:
            shown = ", ".join(k for k in keys if k != "deck")
            raise spec.err(name, k, f"unknown key {k!r} in [{name}]{_hint(k, keys)}; accepted: {shown}")
    return table


def _sweep_policy_files(data: dict, spec: _Spec, base: Path, extra: list[str] | str | None) -> list[str]:
    """The sweep file's ``policy_files`` (paths relative to the file's folder) and ``extra`` ones, loaded."""
    from ..players.plugins import load_files as load_policy_files  # numba only where there are files to load

    given = data.get("policy_files", [])
    given = [given] if isinstance(given, str) else given
    if not isinstance(given, list) or not all(isinstance(p, str) and p for p in given):
        raise spec.err("", "policy_files", f"policy_files={given!r} is not valid; accepted: a path or a list of "
                                           "paths of Python policy files")
    files = [str(base / p) if not Path(p).is_absolute() else p for p in given]
    try:
        load_policy_files(files)
    except ValueError as e:
        raise spec.err("", "policy_files", str(e).splitlines()[0]) from None
    files += [extra] if isinstance(extra, str) else list(extra or [])
    load_policy_files(files)
    return files


def parse_sweep(path_or_dict: str | Path | dict, policy_files: list[str] | str | None = None) -> Sweep:
    """Validate a sweep file and build its cells (raises one-line :class:`ExperimentError`).

    ``policy_files``: policy files to load besides the file's own ``policy_files`` key."""
    data, spec = load_experiment(path_or_dict)
    for k in data:
        if k not in TOP_KEYS:
            raise spec.err("", k, f"unknown key {k!r}{_hint(k, TOP_KEYS)}; accepted: {', '.join(TOP_KEYS)}")
    grid = _table(data, "grid", GRID_KEYS, spec)
    match = _table(data, "match", MATCH_OPTION_KEYS, spec)
    for k in ("name", "description", "metric"):
        if k in data and not isinstance(data[k], str):
            raise spec.err("", k, f"{k}={data[k]!r} is not a string; accepted: a string")
    games = _number(data, "games", int, spec, 100_000)
    seed = _number(data, "seed", int, spec, 0, positive=False)
    precision = _number(data, "precision", float, spec)
    max_games = _number(data, "max_games", int, spec)
    threads = _number(data, "threads", int, spec)
    chunk = _number(data, "chunk", int, spec)
    if max_games is not None and precision is None:
        raise spec.err("", "max_games", "max_games without precision; accepted: set precision too, or drop max_games")

    base = Path(path_or_dict).parent if not isinstance(path_or_dict, dict) else Path(".")
    files = _sweep_policy_files(data, spec, base, policy_files)
    players = _players_axis(grid.get("players", 4), spec)
    rules = _str_axis(grid, "rules", "official", spec, parse_rules)
    deck_key = "decks" if "decks" in grid else "deck"
    decks = _str_axis(grid, deck_key, "classic", spec, get_deck)
    modes = _str_axis(grid, "mode", "round", spec, _check_mode)
    seatings = _str_axis(grid, "seating", "fixed", spec, check_seating)
    pols = _str_axis(grid, "policies", "greedy", spec, lambda v: None)
    metric = data.get("metric", "seat0_win")
    cells = []
    for p, r, pol, dk, mode, seat in itertools.product(players, rules, pols, decks, modes, seatings):
        try:
            check_metric(metric, mode, p)
        except ValueError as e:
            raise spec.err("", "metric", str(e)) from None
        axes = {"players": p, "rules": r, "policies": pol, "deck": dk, "mode": mode, "seating": seat}
        try:
            from ..players.policies import parse_policies

            parse_policies(pol, p)
        except ValueError as e:
            raise spec.err("grid", "policies", f"{e} (cell players={p})") from None
        opts = dict(match) if mode == "match" else {}
        try:
            cell = make_cell(rules=r, players=p, policies=pol, deck=dk, seed=seed, seating=seat, mode=mode,
                             policy_files=files or None, **opts)
        except (ValueError, TypeError) as e:
            table = "match" if mode == "match" and match else "grid"
            raise spec.err(table, "", f"cell {axes}: {str(e).splitlines()[0]}") from None
        cells.append((axes, cell))
    return Sweep(str(data.get("name", "sweep")), cells, games, metric, precision, max_games, threads, chunk)


def check_sweep_memory(sw: Sweep) -> None:
    """Refuse a sweep whose records would not fit in memory: the pairing keeps every baseline cell's
    records while it reads one more cell, each at ``max_games`` (or ``games``), read from the store."""
    axis = compared_axis(sw)
    first = sw.cells[0][0][axis] if axis is not None else None
    size = [(axes.get(axis) == first and axis is not None,
             record_bytes(cell.mode, cell.players, from_disk=True)) for axes, cell in sw.cells]
    per_game = sum(b for is_base, b in size if is_base) + max(b for _, b in size)
    n = sw.max_games or sw.games
    check_memory("max_games" if sw.max_games else "games", n, per_game,
                 advice="per cell of this grid (fewer games, or fewer cells in one sweep file)")


def _check_mode(v: str) -> None:
    if v not in ("round", "match"):
        raise ExperimentError(f"mode={v!r} is unknown; accepted: round, match")


def run_sweep(path_or_dict: str | Path | dict, dry_run: bool = False, store: str | Path | None = None,
              threads: int | None = None, progress: bool = False, backend: str | None = "local",
              scheduler: str | None = None, workers: int | None = None, client=None,
              policy_files: list[str] | str | None = None, robust: bool = False) -> pd.DataFrame:
    """Run (or, with ``dry_run``, estimate) every cell of a sweep; one row per cell.

    ``policy_files``: policy files the grid's ``policies`` may name, besides the file's ``policy_files``.
    ``robust``: also replay the grid with its one ``policies`` value replaced by each model of
    :data:`unosim.analysis.answers.ROBUST_MODELS` (same deals); ``attrs["robustness"]`` and the sentences say per
    effect whether it keeps its sign and roughly its size (as :func:`compare` does).

    Row columns: the axes (players, rules, policies, deck, mode, seating), key, games, and for each
    metric m of :func:`metric_names`: m, m_se, m_lo, m_hi (95% normal interval), half_width of the
    key metric, reached, seconds.  The compared axis (``attrs["compared"]``) is the first of rules, deck,
    policies, seating with several values: every cell is also paired with the cell of that axis's first
    value and the same other axes (common random numbers): columns baseline, m_diff, m_diff_lo,
    m_diff_hi (95%), m_diff_rel (relative to the baseline cell's mean), 0 for the baseline cells
    themselves.  ``attrs["answer_sentences"]``: one plain sentence per effect of the key metric.
    Dry run columns: the axes, key, stored (games in the store), games (planned),
    pilot_mean_turns, est_turns, est_seconds; ``attrs["estimate"]`` says how.

    ``backend``/``scheduler``/``workers``/``client``: where the chunks run (see :func:`compare`).  The first
    ``games`` of every cell are submitted together, so that writing one cell overlaps computing the next (a
    row's ``seconds`` then counts only its precision steps; ``attrs["seconds"]`` counts everything)."""
    sw = parse_sweep(path_or_dict, policy_files)
    threads = threads if threads is not None else sw.threads
    if dry_run:
        return _dry_run(sw, store, threads)
    check_sweep_memory(sw)
    held: dict[str, pd.DataFrame] = {}
    with backend_session(backend, scheduler, workers, client, threads) as be:
        rows, total_s, interrupted, ran = _sweep_rows(sw, store, threads, progress, be, held)
    df = _paired_with_baseline(pd.DataFrame(rows), sw, store, held)
    df.attrs.update({"name": sw.name, "metric": sw.metric, "compared": compared_axis(sw),
                     "precision": sw.precision, "seconds": total_s,
                     "interrupted": interrupted, "store": str(store if store is not None else _store.DEFAULT_ROOT),
                     **_backend_attrs(be, ran, total_s),
                     "cells": [{"key": c.key, "cell": c.to_dict(), "axes": a} for a, c in sw.cells]})
    df.attrs["answer_sentences"] = sweep_sentences(df, compared_axis(sw))
    if robust and not interrupted:
        kw = dict(store=store, threads=threads, progress=progress, backend=backend, scheduler=scheduler,
                  workers=workers, client=client, policy_files=policy_files)
        runs = {m: df if df["policies"].iloc[0] == m else run_sweep(grid, **kw)
                for m, grid in _robust_grids(path_or_dict, sw).items()}
        df.attrs["robustness"] = sweep_robustness(runs, compared_axis(sw), sw.metric)
        df.attrs["answer_sentences"] += robust_sentences(df.attrs["robustness"], sw.cells[0][1].mode)
    return df


def _robust_grids(path_or_dict: str | Path | dict, sw: Sweep) -> dict[str, dict]:
    """The sweep file once per player model of the robustness check, its ``policies`` replaced."""
    import copy

    axis = compared_axis(sw)
    if axis in (None, "policies") or len({a["policies"] for a, _ in sw.cells}) > 1:
        raise ExperimentError("robust replays the grid with other players; accepted: a grid with one policies "
                              "value and another axis (rules, deck, seating) with several values")
    data, _ = load_experiment(path_or_dict)
    data = copy.deepcopy(data)
    if not isinstance(path_or_dict, dict) and "policy_files" in data:  # paths relative to the file's folder
        files = data["policy_files"]
        data["policy_files"] = [str(Path(path_or_dict).parent / f)
                                for f in ([files] if isinstance(files, str) else files)]
    grids = {}
    for m in answers.ROBUST_MODELS:
        grids[m] = {**data, "grid": {**data.get("grid", {}), "policies": m}}
    return grids


def sweep_robustness(runs: dict[str, pd.DataFrame], axis: str, metric: str) -> list[dict[str, Any]]:
    """Per non-baseline cell: the key effect under each player model (the grids list their cells in the same
    order) and the verdict of :func:`unosim.analysis.answers.robustness`."""
    first = next(iter(runs.values()))
    rows = []
    for i in range(len(first)):
        r = first.iloc[i]
        if r[axis] == r["baseline"]:
            continue
        effects = []
        for model, t in runs.items():
            x = t.iloc[i]
            effects.append({"model": model, "diff": float(x[f"{metric}_diff"]), "ci_lo": float(x[f"{metric}_diff_lo"]),
                            "ci_hi": float(x[f"{metric}_diff_hi"]), "diff_rel": float(x[f"{metric}_diff_rel"]),
                            "baseline_mean": float(x[metric] - x[f"{metric}_diff"])})
        rows.append({"arm": f"{axis} {r[axis]} ({r['players']} players)", "baseline": str(r["baseline"]),
                     "metric": metric, "effects": effects, **answers.robustness(effects)})
    return rows


def _sweep_rows(sw: Sweep, store, threads, progress: bool, be, held: dict[str, pd.DataFrame]
                ) -> tuple[list[dict[str, Any]], float, bool, int]:
    """Run the cells of a sweep on backend ``be``; returns (rows, seconds, interrupted, games run).  Where the
    records of every cell fit in a quarter of the memory, each cell's stay in ``held`` (by cell key), so that
    the pairing with the baseline cells does not read back what was just computed."""
    rows, total_s, interrupted, ran = [], 0.0, False, 0
    n = sw.max_games or sw.games
    keep = fits_in_memory(sum(record_bytes(c.mode, c.players, from_disk=True) * n for _, c in sw.cells), 0.25)
    bars = _Bars(progress, len(sw.cells) * sw.games, sw.cells[0][1].unit)
    try:
        # the first games of every cell at once, so that writing one cell overlaps computing the next
        t0 = time.perf_counter()
        cells = [c for _, c in sw.cells]
        infos, first = fill_cells_keeping(cells, sw.games, keep, store, threads, progress, sw.chunk, desc="sweep",
                                          backend=be)  # first: their records, in hand where they fit
        total_s += time.perf_counter() - t0
        ran += sum({i.key: i.ran for i in infos}.values())
        if any(i.interrupted for i in infos):
            done = _stored_prefix(cells, sw.games, store)
            rows = [_cell_row(axes, cell, {"records": [rec], "half_width": key_half_width([rec], sw.metric),
                                           "reached": None, "seconds": 0.0})
                    for (axes, cell), rec in zip(sw.cells, done, strict=False)]
            return rows, total_s, True, ran
        for axes, cell in sw.cells:
            have = [first[cell.key]] if cell.key in first else None
            out = run_to_precision([cell], [_axes_label(axes)], sw.games, sw.metric, sw.precision, sw.max_games,
                                   store, threads, progress, sw.chunk, bars, backend=be, have=have)
            total_s += out["seconds"]
            ran += out["ran"]
            rows.append(_cell_row(axes, cell, out))
            if keep:
                held[cell.key] = out["records"][0]
            if out["interrupted"]:
                interrupted = True
                break
    finally:
        bars.close()
    return rows, total_s, interrupted, ran


#: The axes a sweep compares, in order of preference: the first with several values is the compared one.
COMPARED_AXES = ("rules", "deck", "policies", "seating")


def compared_axis(sw: Sweep) -> str | None:
    """The axis whose first value is every cell's baseline (None when no axis has several values)."""
    for axis in COMPARED_AXES:
        if len({a[axis] for a, _ in sw.cells}) > 1:
            return axis
    return None


def _paired_with_baseline(df: pd.DataFrame, sw: Sweep, store, held: dict[str, pd.DataFrame]) -> pd.DataFrame:
    """Add each cell's paired differences from its baseline cell (the first value of the compared axis,
    :func:`compared_axis`, and the same other axes): m_diff, m_diff_lo, m_diff_hi, m_diff_rel.  The pairs
    are the games both cells hold in the store; a cell's records in ``held`` stand for them where they cover
    the row's games (the pairing keeps only the games both have)."""
    from ..results.store import read_cell

    axis = compared_axis(sw)
    if axis is None or df.empty:
        return df
    values = list(dict.fromkeys(a[axis] for a, _ in sw.cells))
    others = tuple(k for k in ("players", "rules", "policies", "deck", "mode", "seating") if k != axis)
    cells = {tuple(a[k] for k in (*others, axis)): c for a, c in sw.cells}
    extra: list[dict[str, Any]] = []
    base_cache: dict[tuple, pd.DataFrame] = {}
    for _, row in df.iterrows():
        group = tuple(row[k] for k in others)
        cell, base = cells[(*group, row[axis])], cells[(*group, values[0])]
        games = int(row["games"])
        base_rec = held.get(base.key)
        if base_rec is None or len(base_rec) < games:
            if group not in base_cache:
                base_cache[group] = read_cell(base, None, store)
            base_rec = base_cache[group]
        rec = held.get(cell.key)
        if rec is None or len(rec) != games:
            same = cell is base and len(base_rec) == games  # the baseline row: read already
            rec = base_rec if same else read_cell(cell, games, store)
        out: dict[str, Any] = {"baseline": values[0]}
        for m in metric_names(cell.mode, cell.players):
            d = paired.paired_difference(base_rec, rec, m)
            out.update({f"{m}_diff": d["diff"], f"{m}_diff_lo": d["ci_lo"], f"{m}_diff_hi": d["ci_hi"],
                        f"{m}_diff_rel": answers.relative(d["diff"], d["mean_a"])})
        extra.append(out)
    return pd.concat([df, pd.DataFrame(extra, index=df.index)], axis=1)


def sweep_sentences(df: pd.DataFrame, axis: str | None) -> list[str]:
    """One sentence per non-baseline cell: its effect on the key metric against its baseline cell."""
    if axis is None or df.empty or "baseline" not in df.columns:
        return []
    m = df.attrs["metric"]
    varying = [k for k in ("players", "rules", "deck", "policies", "mode", "seating")
               if k != axis and df[k].nunique() > 1]
    out = []
    for _, r in df[df[axis] != df["baseline"]].iterrows():
        where = ", ".join([f"{r['players']} players", *(f"{k} {r[k]}" for k in varying if k != "players")])
        if axis == "policies":
            who, name, base = f"{r['policies']} instead of {r['baseline']}", "the line-up", "the baseline line-up"
        else:
            who, name, base = answers.players_phrase([r["policies"]]), f"{axis} {r[axis]}", f"{r['baseline']}"
        base_mean = r[m] - r[f"{m}_diff"]  # the baseline cell's mean on the same games
        out.append(answers.effect_sentence(name, base, m, r["mode"], r[f"{m}_diff"], r[f"{m}_diff_lo"],
                                           r[f"{m}_diff_hi"], base_mean, who, where))
    return out


def _axes_label(axes: dict[str, Any]) -> str:
    return f"{axes['players']}p {axes['rules']} {axes['policies']} {axes['deck']} {axes['mode']}"


def _cell_row(axes: dict[str, Any], cell: Cell, out: dict[str, Any]) -> dict[str, Any]:
    rec = out["records"][0]
    row: dict[str, Any] = {**axes, "key": cell.key, "games": len(rec)}
    for m in metric_names(cell.mode, cell.players):
        r = paired.mean_row(paired.metric_values(rec, m))
        row.update({m: r["mean"], f"{m}_se": r["se"], f"{m}_lo": r["ci_lo"], f"{m}_hi": r["ci_hi"]})
    row.update(half_width=out["half_width"], reached=out["reached"], seconds=out["seconds"])
    return row


def _dry_run(sw: Sweep, store, threads) -> pd.DataFrame:
    from ..results.store import cell_dir, covered, stored_ranges

    t = check_threads(threads)
    z = z_value()
    rows = []
    for axes, cell in sw.cells:
        pilot_n = PILOT_GAMES[cell.mode]
        t0 = time.perf_counter()
        pilot = simulate(**cell.sim_kwargs(), games=pilot_n, threads=1).records
        sec_per_game = (time.perf_counter() - t0) / pilot_n
        games = sw.games
        if sw.precision is not None:
            sd = float(paired.metric_values(pilot, sw.metric).std(ddof=1))
            need = (z * sd / sw.precision) ** 2
            games = int(min(sw.max_games or DEFAULT_MAX_GAMES[cell.mode], max(sw.games, math.ceil(need))))
        stored = covered(stored_ranges(cell_dir(cell, store)), games)
        mean_turns = float(pilot["turns"].mean())
        rows.append({**axes, "key": cell.key, "stored": stored, "games": games, "pilot_mean_turns": mean_turns,
                     "est_turns": (games - stored) * mean_turns,
                     "est_seconds": (games - stored) * sec_per_game / t})
    df = pd.DataFrame(rows)
    df.attrs["estimate"] = (f"pilot of {PILOT_GAMES['round']:,} rounds ({PILOT_GAMES['match']} matches) per cell on "
                            f"one thread, scaled to the missing games over {t} threads")
    return df


__all__ = ["compare", "run_sweep", "parse_sweep", "parse_arm", "arm_records", "comparison_table",
           "run_to_precision", "key_half_width", "metric_names", "ExperimentError", "StoreError"]
