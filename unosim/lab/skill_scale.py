"""``unosim skill``: how much does skill decide UNO?  One answer for given rules, deck and players.

* **Headline.**  The win rate ``p`` of a strong player (default ``expert``) against a field of ``random``
  and against a field of ``greedy`` (``players - 1`` copies; rotating seats), per round and per match to
  500 (standard scoring), each with its 95% Wilson interval, and the **skill share**
  ``s = (p - 1/n) / (1 - 1/n)``: 0 when the player wins its fair share (pure luck), 1 when it always
  wins.  The ceiling player ``cheat_ceiling`` (a search that sees every hand; a cheat, the top of the
  scale, never a player) gives the share that seeing the cards would reach, per round.
* **Ladder.**  Graded players (random, greedy, every heuristic, the expert, ``lookahead`` at a couple of
  budgets, the ceiling) each against the same ``greedy`` field: win rate, interval, and a **rating**:
  the Bradley-Terry strength relative to one greedy seat, in Elo points,
  ``400 log10(p (n - 1) / (1 - p))`` (greedy is 0; 2 players: +191 is a 75% win rate), its interval
  the Wilson interval's ends mapped the same way.
* **Rounds to see the edge.**  How many rounds a reader must play before the 95% interval of the win
  rate excludes the fair share: ``z^2 p (1 - p) / (p - 1/n)^2``.
* **Variance share (footnote).**  The share of the outcome variance that the choice of player explains
  in a two-arm comparison with the fair-share player, ``(p - 1/n)^2 / (4 pbar (1 - pbar))``: a function
  of the edge alone, small for any edge a win/lose game shows (hence the footnote, not the headline).

Search and the ceiling are plain-Python seats that read the engine's state (played step by step) and slow: they get ``search_rounds``
rounds each, the heuristics ``rounds``.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from ..analysis.stats import proportion_ci, z_value
from ..core.heuristics_nb import HEURISTICS
from ..errors import PolicyError
from ..fmt import fmt_interval
from ..players.policies import parse_policy
from ..reports.pages import Page, PageFigure, Section, write_pages
from ..results.io import slug
from ..validate import check_players, integer
from .studies import run_cell

__all__ = ["DEFAULT_STRONG", "CEILING", "SkillAnswer", "skill_share", "rating", "rounds_to_see",
           "variance_share", "ladder_players", "skill_answer", "format_skill", "write_skill_page",
           "SWEEP", "skill_sweep", "format_sweep", "sweep_frame", "sweep_command", "write_sweep_page"]

DEFAULT_STRONG = "expert"
CEILING = "cheat_ceiling"
FIELDS = ("random", "greedy")
MATCH = {"mode": "match", "scoring": "standard", "target": 500}
LEVEL = 0.95


def skill_share(p: float, n: int) -> float:
    """(p - 1/n) / (1 - 1/n): 0 at the fair share, 1 for a player who always wins."""
    return (p - 1.0 / n) / (1.0 - 1.0 / n)


def rating(p: float, n: int) -> float:
    """Bradley-Terry strength relative to one field seat, in Elo points (0 at the fair share)."""
    p = min(max(p, 1e-6), 1.0 - 1e-6)
    return 400.0 * math.log10(p * (n - 1) / (1.0 - p))


def rounds_to_see(p: float, n: int, level: float = LEVEL) -> float:
    """Rounds after which the win rate's interval at ``level`` excludes the fair share (inf for no edge)."""
    edge = p - 1.0 / n
    if edge <= 0.0:
        return math.inf
    return math.ceil(z_value(level) ** 2 * p * (1.0 - p) / edge ** 2)


def variance_share(p: float, n: int) -> float:
    """Share of the 0/1 outcome's variance explained by the player in a two-arm comparison (equal arms)
    with a player winning the fair share 1/n."""
    p0 = 1.0 / n
    pbar = (p + p0) / 2.0
    return (p - p0) ** 2 / (4.0 * pbar * (1.0 - pbar))


def ladder_players(budgets: Sequence[int], ceiling_rollouts: int) -> list[str]:
    """random, greedy, the heuristics (the expert last), lookahead at each budget, the ceiling."""
    heur = [h for h in HEURISTICS if h != "expert"]
    return ["random", "greedy", *heur, "expert", *(f"lookahead(rollouts={b})" for b in budgets),
            f"{CEILING}(rollouts={ceiling_rollouts})"]


def _is_search(player: str) -> bool:
    return player.startswith(("lookahead", CEILING))


@dataclass(frozen=True)
class _Runs:
    """How every cell of one answer is run: its seed (the same deals in every cell), threads, the users' policy
    files, the results store (None: simulate without it) and whether a progress bar shows each cell."""

    seed: int
    threads: int | None
    policy_files: Sequence[str] = ()
    store: Path | str | None = None
    progress: bool = False


def _measure(player: str, field: str, n: int, rules: str, deck: str, games: int, unit: str,
             runs: _Runs) -> dict[str, Any]:
    """One cell: ``player`` in seat rotation against n - 1 copies of ``field``.  With a store its games come from
    the store: stored games are reused, only the missing ones run, and the finished chunks of a cell outlive an
    interrupt (KeyboardInterrupt, raised again once they are written)."""
    kw = dict(rules=rules, deck=deck, players=n, policies=[player] + [field] * (n - 1), seating="rotate",
              policy_files=list(runs.policy_files) or None, **(MATCH if unit == "match" else {}))
    r, _ = run_cell(f"{player} vs {field}", kw, games, runs.seed, runs.threads, runs.progress, runs.store)
    if r.interrupted:
        raise KeyboardInterrupt
    wins = int((r.records["winner_policy"].to_numpy() == 0).sum())
    p, _, lo, hi = proportion_ci(wins, games, LEVEL)
    return {"rules": rules, "deck": deck, "players": n, "seed": runs.seed,
            "player": player, "field": field, "unit": unit, "games": games, "wins": wins, "p": p, "lo": lo,
            "hi": hi, "share": skill_share(p, n), "share_lo": skill_share(lo, n), "share_hi": skill_share(hi, n),
            "rating": rating(p, n), "rating_lo": rating(lo, n), "rating_hi": rating(hi, n),
            "to_see": rounds_to_see(p, n), "variance_share": variance_share(p, n)}


@dataclass
class SkillAnswer:
    rules: str
    deck: str
    players: int
    strong: str
    headline: pd.DataFrame  # the strong player and the ceiling against each field, per round / match
    ladder: pd.DataFrame    # graded players against the greedy field (empty without a ladder)
    command: str
    seconds: float


def _check(strong: Any, rounds: Any, matches: Any, search_rounds: Any, budgets: Any,
           ceiling_rollouts: Any, search_matches: Any = 0) -> tuple[str, int, int, int, list[int], int, int]:
    if not isinstance(strong, str):
        raise PolicyError(f"strong={strong!r} is not a policy string; accepted: one policy, e.g. {DEFAULT_STRONG}")
    strong = str(parse_policy(strong))
    if isinstance(budgets, (str, bytes)) or not isinstance(budgets, Sequence):
        raise PolicyError(f"budgets={budgets!r} is not a list of rollouts; accepted: e.g. [16, 64]")
    return (strong, integer("rounds", rounds, 1), integer("matches", matches, 0),
            integer("search_rounds", search_rounds, 0), [integer("budgets", b, 1, 100_000) for b in budgets],
            integer("ceiling_rollouts", ceiling_rollouts, 1, 100_000), integer("search_matches", search_matches, 0))


def _policy_file_args(policy_files: Sequence[str]) -> str:
    """The ``--policy-file`` options of a reproduce line."""
    return "".join(f"--policy-file '{f}' " for f in policy_files)


def skill_command(rules: str, deck: str, players: int, strong: str, rounds: int, matches: int,
                  search_rounds: int, budgets: Sequence[int], ceiling_rollouts: int, seed: int,
                  ladder: bool, policy_files: Sequence[str] = (), search_matches: int = 0) -> str:
    return (f"unosim skill --rules {rules} --deck {deck} --players {players} --strong '{strong}' "
            + _policy_file_args(policy_files) +
            f"--rounds {rounds} --matches {matches} --search-rounds {search_rounds} "
            + (f"--search-matches {search_matches} " if search_matches else "") +
            f"--budgets {','.join(map(str, budgets)) or repr('')} --ceiling-rollouts {ceiling_rollouts} --seed {seed}"
            + ("" if ladder else " --no-ladder"))


def skill_answer(rules: str = "official", deck: str = "classic", players: int = 2, strong: str = DEFAULT_STRONG,
                 rounds: int = 4000, matches: int = 200, search_rounds: int = 60, budgets: Sequence[int] = (16, 64),
                 ceiling_rollouts: int = 64, seed: int = 1, threads: int | None = None, ladder: bool = True,
                 echo: Callable[[str], None] | None = None, policy_files: Sequence[str] | str | None = None,
                 store: Path | str | None = None, progress: bool = False, search_matches: int = 0) -> SkillAnswer:
    """Measure the headline (the strong player and the ceiling against random and greedy fields) and,
    with ``ladder``, the ladder of graded players against the greedy field.  Every cell uses the same
    ``seed`` (the same deals).  ``matches=0`` and ``search_rounds=0`` leave those cells out.  A search player
    as the strong one plays ``search_rounds`` rounds and ``search_matches`` matches to 500 a cell (a match is
    about 13 rounds of search; 0, the default, plays none) where a heuristic plays ``rounds`` and ``matches``.
    ``policy_files``: Python files defining policies (a user's strategy as the strong player).  ``store``: a
    results-store root that every cell is read from and added to (None: simulate without it).  ``progress``: a
    progress bar for each cell (on standard error)."""
    files = _load_files(policy_files)
    runs = _Runs(seed, threads, files, store, progress)
    strong, rounds, matches, search_rounds, budgets, ceiling_rollouts, search_matches = _check(
        strong, rounds, matches, search_rounds, budgets, ceiling_rollouts, search_matches)
    if _is_search(strong):
        rounds_of_strong, matches_of_strong = search_rounds, search_matches
    else:
        rounds_of_strong, matches_of_strong = rounds, matches
    n = check_players(players)
    say = echo or (lambda _line: None)
    t0 = time.perf_counter()
    ceiling = f"{CEILING}(rollouts={ceiling_rollouts})"
    cells = []
    for field in FIELDS:
        if rounds_of_strong:
            cells.append((strong, field, "round", rounds_of_strong))
        if matches_of_strong:
            cells.append((strong, field, "match", matches_of_strong))
        if search_rounds:
            cells.append((ceiling, field, "round", search_rounds))
    if not any(player == strong for player, *_ in cells):
        raise PolicyError(f"strong={strong!r} is a search player and search_rounds=0, search_matches=0 leave it no "
                          "cell; accepted: search_rounds or search_matches above 0 (--search-rounds, --search-matches)")
    rows = []
    for player, field, unit, games in cells:
        rows.append(_measure(player, field, n, rules, deck, games, unit, runs))
        say(f"  {player} vs {field} ({unit}s): {rows[-1]['p']:.1%} of {games:,}")
    head = pd.DataFrame(rows)
    lrows = []
    for player in ladder_players(budgets, ceiling_rollouts) if ladder else []:
        games = search_rounds if _is_search(player) else rounds
        if games:
            lrows.append(_measure(player, "greedy", n, rules, deck, games, "round", runs))
            say(f"  ladder {player}: {lrows[-1]['p']:.1%} of {games:,}")
    return SkillAnswer(rules, deck, n, strong, head, pd.DataFrame(lrows),
                       skill_command(rules, deck, n, strong, rounds, matches, search_rounds, budgets,
                                     ceiling_rollouts, seed, ladder, files, search_matches), time.perf_counter() - t0)


def _load_files(policy_files: Sequence[str] | str | None) -> list[str]:
    """Load the policy files (their policies become nameable); their paths for each cell's run."""
    from ..players.policy_api import load_policy_files

    return [f["path"] for f in load_policy_files(policy_files)]


# ---- the sweep: the skill share by players, preset and deck ---------------------------------------------
#: (label, rules, deck, players): 2-10 players under the official rules, the main presets and UNO Flip at 4
SWEEP = [*((f"official, {n} players", "official", "classic", n) for n in range(2, 11)),
         *((f"{r}, 4 players", r, "classic", 4) for r in ("stacking", "seven_zero", "jump_in", "draw_until_playable")),
         ("UNO Flip, 4 players", "official", "flip", 4)]


def skill_sweep(strong: str = DEFAULT_STRONG, rounds: int = 2000, matches: int = 0, seed: int = 1,
                threads: int | None = None, settings: Sequence[tuple[str, str, str, int]] = tuple(SWEEP),
                echo: Callable[[str], None] | None = None, policy_files: Sequence[str] | str | None = None,
                store: Path | str | None = None, progress: bool = False) -> pd.DataFrame:
    """The strong player's skill share against the random and the greedy field in each setting (label,
    rules, deck, players), per round and (``matches`` > 0) per match to 500; a search player plays the same
    ``rounds`` and ``matches`` a cell (size them for it).  ``store``, ``progress``: as skill_answer's."""
    runs = _Runs(seed, threads, _load_files(policy_files), store, progress)
    strong, rounds, matches, _, _, _, _ = _check(strong, rounds, matches, 0, [], 1)
    say = echo or (lambda _line: None)
    rows = []
    for label, rules, deck, n in settings:
        for field in FIELDS:
            for unit, games in (("round", rounds), ("match", matches)):
                if games:
                    rows.append({"setting": label, "players": n,
                                 **_measure(strong, field, n, rules, deck, games, unit, runs)})
                    say(f"  {label}, {strong} vs {field} ({unit}s): {rows[-1]['p']:.1%}")
    return pd.DataFrame(rows)


def sweep_frame(t: pd.DataFrame) -> pd.DataFrame:
    """One row per setting: the skill share s [95%] per field and unit."""
    return pd.DataFrame([{"setting": label, **{
        f"s vs {r['field']} per {r['unit']}": fmt_interval(r['share'], r['share_lo'], r['share_hi'])
        for _, r in g.iterrows()}} for label, g in t.groupby("setting", sort=False)])


def format_sweep(t: pd.DataFrame) -> str:
    """One line per setting: the skill share s [95%] per field and unit."""
    return sweep_frame(t).to_string(index=False)


def sweep_command(strong: str, rounds: int, matches: int, seed: int, policy_files: Sequence[str] = ()) -> str:
    return (f"unosim skill --sweep --strong '{strong}' " + _policy_file_args(policy_files)
            + f"--rounds {rounds} --matches {matches} --seed {seed}")


# ---- text -------------------------------------------------------------------------------------------


def _pm(r: Any) -> str:
    return f"{r['p']:.1%} [{r['lo']:.1%}, {r['hi']:.1%}]"


def _to_see(x: float) -> str:
    return "never" if math.isinf(x) else f"{int(x):,}"


def headline_frame(a: SkillAnswer) -> pd.DataFrame:
    return pd.DataFrame([{
        "player": r["player"], "against": f"{a.players - 1} x {r['field']}", "per": r["unit"],
        "games": f"{r['games']:,}", "win rate [95%]": _pm(r),
        "skill share s [95%]": fmt_interval(r['share'], r['share_lo'], r['share_hi']),
        "rounds to see the edge": _to_see(r["to_see"])} for _, r in a.headline.iterrows()])


def ladder_frame(a: SkillAnswer) -> pd.DataFrame:
    if a.ladder.empty:
        return pd.DataFrame()
    return pd.DataFrame([{
        "player": r["player"], "rounds": f"{r['games']:,}", "win rate [95%]": _pm(r),
        "rating [95%]": fmt_interval(r['rating'], r['rating_lo'], r['rating_hi'], "+.0f"),
        "skill share s": f"{r['share']:.2f}", "rounds to see the edge": _to_see(r["to_see"])}
        for _, r in a.ladder.sort_values("rating").iterrows()])


def footnote(a: SkillAnswer) -> str:
    r = a.headline.iloc[0]
    return (f"Footnote: the share of outcome variance explained by the player is "
            f"(p - 1/n)^2 / (4 pbar (1 - pbar)) for a win/lose outcome; for {r['player']} against "
            f"{r['field']} it is {r['variance_share']:.2%}, fixed by the edge alone.  A small variance share "
            f"does not mean that luck decides: every single round is a coin flip weighted by the edge, and "
            f"the skill share s above is the measure of how far from luck the results are.")


def format_skill(a: SkillAnswer) -> str:
    lines = [f"Skill versus luck: {a.rules}, {a.deck} deck, {a.players} players (rotating seats, 95% intervals)",
             "", headline_frame(a).to_string(index=False)]
    if not a.ladder.empty:
        lines += ["", f"Ladder: each player against {a.players - 1} x greedy; rating in Elo points relative to "
                  "one greedy seat (Bradley-Terry)", ladder_frame(a).to_string(index=False)]
    lines += ["", "s = (p - 1/n) / (1 - 1/n): 0 = the fair share (pure luck), 1 = always wins.  cheat_ceiling "
              "sees every hand (a cheat: the top of the scale).", footnote(a), "",
              f"reproduce: {a.command}", f"({a.seconds:.0f} s)"]
    return "\n".join(lines)


# ---- page -------------------------------------------------------------------------------------------


def _color_of(player: str) -> str:
    """The ceiling in its own colour (it is a cheat, the top of the scale), every other player in the first."""
    from ..reports.charts import OKABE_ITO

    return OKABE_ITO[3] if player.startswith(CEILING) else OKABE_ITO[0]


def _games_text(games: int, unit: str) -> str:
    return f"{games:,} {'rounds' if unit == 'round' else 'matches to 500'}"


def _chart_caption(t: pd.DataFrame, what: str) -> str:
    """What a chart's numbers are for, under it on the page: the seats, the seed, the interval."""
    return f"{what} Rotating seats, the same deals for every player (seed {int(t['seed'].iloc[0])}); 95% intervals."


def _ladder_chart(a: SkillAnswer, path: Path) -> Path:
    from ..reports.charts import FIGSIZE, REFERENCE, error_arms, new_figure, save_figure, set_title

    t = a.ladder.sort_values("rating")
    # a player that never won (or never lost) has no finite rating: the table shows it, the chart leaves it out
    # rather than squash every other player against an axis running to -2,000 Elo
    unbounded = (t["wins"] == 0) | (t["wins"] == t["games"])
    left_out, t = list(t.loc[unbounded, "player"]), t[~unbounded]
    fig, ax = new_figure((FIGSIZE[0], max(3.0, 0.35 * len(t) + 1.4)))
    y = range(len(t))
    ax.errorbar(t["rating"], y, xerr=error_arms(t["rating"], t["rating_lo"], t["rating_hi"]), fmt="none",
                ecolor=REFERENCE, capsize=3)
    ax.scatter(t["rating"], y, c=[_color_of(p) for p in t["player"]], zorder=3)
    ax.set_yticks(list(y), [f"{p} ({g:,})" for p, g in zip(t["player"], t["games"], strict=True)])
    ax.grid(axis="x")
    ax.axvline(0.0, color=REFERENCE, lw=0.8)
    ax.set_xlabel("rating, Elo points relative to one greedy seat (95% interval)\nin brackets: the rounds it played"
                  + (f"\nleft out, no finite rating (no win or no loss): {', '.join(left_out)}" if left_out else ""))
    set_title(ax, "The skill ladder", f"{a.rules}, {a.deck} deck, {a.players} players, each against "
                                      f"{a.players - 1} x greedy")
    return save_figure(fig, path)


def share_axis_limits(lowest: float) -> tuple[float, float]:
    """The skill-share axis: 0 to 1, reaching below 0 with a margin where an interval does (``lowest``, the
    lowest interval end), so that no interval's end is cut off at the edge."""
    return (lowest - 0.05 if lowest < 0 else 0.0), 1.0


def _share_chart(a: SkillAnswer, path: Path) -> Path:
    from ..reports.charts import REFERENCE, error_arms, legend, new_figure, save_figure, set_title

    t = a.headline
    fig, ax = new_figure()
    labels = [f"{r['player']}\nvs {r['field']}, per {r['unit']}\n{_games_text(r['games'], r['unit'])}"
              for _, r in t.iterrows()]
    x = np.arange(len(t))
    colors = np.array([_color_of(p) for p in t["player"]])
    share = t["share"].to_numpy()
    names = {_color_of(a.strong): a.strong}
    names.setdefault(_color_of(CEILING), "the ceiling: sees every hand (a cheat)")
    for color, label in names.items():
        if (colors == color).any():
            ax.bar(x[colors == color], share[colors == color], color=color, label=label)
    ax.errorbar(x, share, yerr=error_arms(share, t["share_lo"], t["share_hi"]), fmt="none", ecolor="#333333",
                capsize=3)
    ax.set_xticks(list(x), labels, fontsize=7)
    ax.set_ylabel("skill share s (0 = luck, 1 = always wins)")
    ax.set_ylim(*share_axis_limits(float(t["share_lo"].min())))
    ax.axhline(0.0, color=REFERENCE, lw=0.8)
    legend(ax, loc="upper left")
    set_title(ax, "How much skill decides", f"{a.rules}, {a.deck} deck, {a.players} players")
    return save_figure(fig, path)


def _sweep_chart(t: pd.DataFrame, strong: str, path: Path) -> Path:
    """The skill share of each setting (a row each, in the sweep's order) against each field, per round and
    per match, with its 95% interval."""
    from ..reports.charts import (
        FIGSIZE,
        OKABE_ITO,
        REFERENCE,
        dodge,
        error_arms,
        legend,
        new_figure,
        save_figure,
        set_title,
    )

    settings = list(dict.fromkeys(t["setting"]))
    row = {label: i for i, label in enumerate(settings)}
    series = [(f, u) for f in FIELDS for u in ("round", "match") if ((t["field"] == f) & (t["unit"] == u)).any()]
    fig, ax = new_figure((FIGSIZE[0], max(3.0, 0.42 * len(settings) + 1.6)))
    for k, (f, u) in enumerate(series):
        sub = t[(t["field"] == f) & (t["unit"] == u)]
        y = np.array([row[label] for label in sub["setting"]]) + dodge(k, len(series))
        color = OKABE_ITO[0] if f == "random" else OKABE_ITO[3]
        share = sub["share"].to_numpy()
        ax.errorbar(share, y, xerr=error_arms(share, sub["share_lo"], sub["share_hi"]), fmt="o" if u == "round" else "s",
                    color=color, mfc=color if u == "round" else "white", ms=4, capsize=2, lw=1,
                    label=f"vs {f}, per {u} ({_games_text(int(sub['games'].iloc[0]), u)})")
    ax.set_yticks(range(len(settings)), settings)
    ax.invert_yaxis()
    ax.grid(axis="x")
    ax.set_xlim(*share_axis_limits(float(t["share_lo"].min())))
    ax.axvline(0.0, color=REFERENCE, lw=0.8)
    ax.set_xlabel("skill share s (0 = luck, 1 = always wins), 95% interval")
    set_title(ax, "How much skill decides", f"{strong} against random and greedy fields")
    legend(ax, loc="lower right")
    return save_figure(fig, path)


def write_sweep_page(t: pd.DataFrame, command: str, out: Path | str) -> dict[str, Path]:
    """summary.md and report.html of a sweep (skill_sweep's table ``t``; ``command`` reproduces it): the table,
    its chart (PNG and SVG) and sweep.csv, into ``out``."""
    from ..reports.charts import chart_style

    out_dir = Path(out)
    out_dir.mkdir(parents=True, exist_ok=True)
    t.to_csv(out_dir / "sweep.csv", index=False)
    strong = str(t["player"].iloc[0])
    with chart_style():
        chart = PageFigure(_sweep_chart(t, strong, out_dir / "skill_share_by_setting.png").name,
                           "Skill share by setting", _chart_caption(t, "s = (p - 1/n)/(1 - 1/n); dots per round, "
                                                                     "squares per match to 500."))
    games = {u: int(g) for u, g in t.groupby("unit", sort=False)["games"].first().items()}
    cells = " and ".join(_games_text(g, u) for u, g in games.items())
    sections = [Section("The answer", [f"{strong} in rotating seats against n - 1 copies of random and of greedy: "
                                       f"{cells} a cell, the same deals in every cell; 95% Wilson intervals."],
                        [(sweep_frame(t), 1)], [chart]),
                Section("Reproduce", code=[command])]
    page = Page(f"Skill versus luck in UNO by players, preset and deck ({strong})",
                ["s = (p - 1/n)/(1 - 1/n): 0 when the player wins its fair share 1/n, 1 when it always wins."],
                sections)
    return {**write_pages(page, out_dir), "sweep.csv": out_dir / "sweep.csv"}


def write_skill_page(a: SkillAnswer, out: Path | str) -> dict[str, Path]:
    """summary.md and report.html (charts as PNG and SVG, the tables as CSV) into ``out``."""
    from ..reports.charts import chart_style

    out_dir = Path(out)
    out_dir.mkdir(parents=True, exist_ok=True)
    a.headline.to_csv(out_dir / "headline.csv", index=False)
    with chart_style():
        share = PageFigure(_share_chart(a, out_dir / "skill_share.png").name, "Skill share",
                           _chart_caption(a.headline, "s = (p - 1/n)/(1 - 1/n); the ceiling sees every hand."))
        ladder = None if a.ladder.empty else PageFigure(
            _ladder_chart(a, out_dir / "ladder.png").name, "Ladder",
            _chart_caption(a.ladder, "Ratings from the ends of the Wilson intervals."))
    sections = [Section("The answer", [f"Rotating seats, the same deals for every player, 95% Wilson "
                                       f"intervals.  {a.players - 1} opponents of one kind."],
                        [(headline_frame(a), 3)], [share])]
    if ladder is not None:
        a.ladder.to_csv(out_dir / "ladder.csv", index=False)
        sections.append(Section("The ladder", ["Each player against the greedy field; the rating is the "
                                               "Bradley-Terry strength relative to one greedy seat, in Elo "
                                               "points."], [(ladder_frame(a), 1)], [ladder]))
    sections.append(Section("Footnote: variance shares", [footnote(a)]))
    sections.append(Section("Reproduce", code=[a.command]))
    page = Page(f"Skill versus luck in UNO ({slug(a.rules)}, {a.deck} deck, {a.players} players)",
                ["s = (p - 1/n)/(1 - 1/n): 0 when the player wins its fair share 1/n, 1 when it always wins."],
                sections)
    return write_pages(page, out_dir)
