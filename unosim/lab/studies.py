"""Studies: one question each, answered end to end with intervals, the report written into a folder.

Each study is a list of cells (one simulation each, all with the same seed, so cells that differ only
in their rules share their deals: common random numbers) plus a headline chart and a few lines of
answer.  ``scripts/study_*.py`` run one from the command line; ``unosim demo`` is a small
:data:`first_player` run.

>>> from unosim.lab.studies import run_study
>>> res = run_study("first_player", games=20_000, seed=1, out="results/first_player")  # doctest: +SKIP
>>> print("\\n".join(res.answer))                                                      # doctest: +SKIP
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pandas as pd

from ..analysis.stats import z_value
from ..errors import SimulationError
from ..reports.report import fmt_pm, make_report, tables
from ..results.io import save_run, slug
from ..results.outdir import writing
from ..ruleset.rules import OPTIONS, RuleError, parse_rules
from ..running.sim import SimulationResult, check_rules_fit_deck, simulate
from ..validate import MAX_PLAYERS, MIN_PLAYERS

__all__ = ["Study", "StudyResult", "STUDIES", "run_study", "run_cell", "house_rule_arms", "add_run_options",
           "run_and_print", "main"]

#: Where the study scripts keep their cells (the default root of :mod:`unosim.results.store`).
DEFAULT_STORE = Path("results") / "store"

#: (label, keyword arguments of :func:`unosim.running.sim.simulate` other than games, seed and threads)
Cell = tuple[str, dict[str, Any]]


@dataclass(frozen=True)
class Study:
    name: str
    question: str
    cells: Callable[[], list[Cell]]
    headline: str  # file name of the headline chart
    answer: Callable[[dict[str, pd.DataFrame]], list[str]]
    quick_games: int  # default --games: a quick run (seconds to a minute)
    real_games: int  # the documented size for the real answer
    unit: str = "rounds"
    summary: Callable[[dict[str, pd.DataFrame]], str] | None = None  # the answer in one sentence


@dataclass
class StudyResult:
    study: Study
    out: Path
    tables: dict[str, pd.DataFrame]
    answer: list[str]
    files: dict[str, Path]
    seconds: float
    skipped: dict[str, str] = field(default_factory=dict)
    sentence: str = ""  # the answer in one sentence, where the study has one


def pp_text(value: float, lo: float, hi: float) -> str:
    """A difference in percentage points with the half-width of its interval, sign always shown."""
    text = fmt_pm(100 * value, 50 * (hi - lo), unit="pp")
    return text if text.startswith("-") else "+" + text


# ---- first player's edge ----------------------------------------------------------------------------


def _first_player_cells(players: Sequence[int] = range(MIN_PLAYERS, MAX_PLAYERS + 1)) -> list[Cell]:
    return [(f"{n} players", {"rules": "official", "players": n, "policies": "random"}) for n in players]


def _first_player_answer(t: dict[str, pd.DataFrame]) -> list[str]:
    lines = []
    for row in t["players"].itertuples(index=False):
        half = (row.edge_ci_hi - row.edge_ci_lo) / 2
        lines.append(f"{row.players:>2} players: seat 0 wins {fmt_pm(row.seat0_win_rate, half, pct=True)} "
                     f"(fair share {100 / row.players:.1f}%), edge "
                     f"{pp_text(row.first_player_edge, row.edge_ci_lo, row.edge_ci_hi)}")
    return lines


def _first_player_summary(t: dict[str, pd.DataFrame]) -> str:
    p = t["players"].reset_index(drop=True)
    lo, hi = p.loc[p["first_player_edge"].idxmin()], p.loc[p["first_player_edge"].idxmax()]
    above = int((p["edge_ci_lo"] > 0).sum())
    return (f"The first player's edge over a fair share runs from "
            f"{pp_text(lo.first_player_edge, lo.edge_ci_lo, lo.edge_ci_hi)} ({lo.players} players) to "
            f"{pp_text(hi.first_player_edge, hi.edge_ci_lo, hi.edge_ci_hi)} ({hi.players} players); "
            f"its 95% interval lies above zero at {above} of {len(p)} table sizes.")


# ---- house rules ------------------------------------------------------------------------------------


def house_rule_arms(deck: str = "classic") -> tuple[list[str], dict[str, str]]:
    """Every house rule of the catalogue (``unosim rules``) that can be switched on alone with its
    default parameters and acts on ``deck``, and the refused ones with the reason."""
    from ..ruleset.decks import get_deck

    dk = get_deck(deck)
    arms, skipped = [], {}
    for name, info in OPTIONS.items():
        if info.category != "house" or info.kind != "bool" or info.group is not None or info.default:
            continue
        try:
            check_rules_fit_deck(parse_rules(f"official+{name}"), dk)
        except (RuleError, SimulationError) as e:
            skipped[name] = str(e).splitlines()[0]
            continue
        arms.append(name)
    return arms, skipped


def _house_rule_cells() -> list[Cell]:
    arms, _ = house_rule_arms()
    base = {"players": 4, "policies": "random"}
    return [("official", {"rules": "official", **base})] + [
        (name, {"rules": f"official+{name}", **base}) for name in arms]


def _effects_answer(t: dict[str, pd.DataFrame], by_effect: bool = True) -> list[str]:
    """One line per arm (largest cut in game length first, or in the study's order)."""
    eff = t["effects"]
    turns = eff[eff["metric"] == "turns"].set_index("label")
    edge = eff[eff["metric"] == "first_player_edge"].set_index("label")
    z = z_value(0.95)
    lines = []
    for arm in (turns.sort_values("diff", kind="stable") if by_effect else turns).index:
        tr, er = turns.loc[arm], edge.loc[arm]
        lines.append(f"{arm:<28} turns {fmt_pm(tr['diff'], z * tr['se'])} vs {tr['baseline']}, "
                     f"first player's edge {pp_text(er['diff'], er['ci_lo'], er['ci_hi'])}")
    return lines


def _effects_summary(t: dict[str, pd.DataFrame]) -> str:
    eff = t["effects"]
    turns = eff[eff["metric"] == "turns"].set_index("label").sort_values("diff", kind="stable")
    edge = eff[eff["metric"] == "first_player_edge"]
    z = z_value(0.95)
    cut, longer = turns.iloc[0], turns.iloc[-1]
    moved = int(((edge["ci_lo"] > 0) | (edge["ci_hi"] < 0)).sum())
    return (f"The largest cut in game length is {cut.name} ({fmt_pm(cut['diff'], z * cut['se'])} turns), the "
            f"largest increase {longer.name} ({fmt_pm(longer['diff'], z * longer['se'])} turns); {moved} of "
            f"{len(edge)} rules move the first player's edge beyond its 95% interval.")


# ---- UNO Flip vs classic ----------------------------------------------------------------------------


def _flip_cells() -> list[Cell]:
    return [(f"{deck}, {n} players", {"rules": "official", "deck": deck, "players": n, "policies": "random"})
            for n in (2, 4, 6) for deck in ("classic", "flip")]


def _flip_answer(t: dict[str, pd.DataFrame]) -> list[str]:
    s = t["summary"].set_index("label")
    lines = _effects_answer(t, by_effect=False)
    for label, row in s.iterrows():
        lines.append(f"{label:<28} mean turns {row['mean_turns']:.1f}, sd {row['sd_turns']:.1f}, "
                     f"mean winner points {row['mean_winner_points']:.1f}")
    return lines


# ---- match length -----------------------------------------------------------------------------------


def _match_cells() -> list[Cell]:
    return [(f"{n} players", {"rules": "official", "players": n, "policies": "random", "mode": "match",
                              "scoring": "standard", "target": 500})
            for n in range(MIN_PLAYERS, MAX_PLAYERS + 1)]


def _match_answer(t: dict[str, pd.DataFrame]) -> list[str]:
    lines = []
    for row in t["matches"].itertuples(index=False):
        lines.append(f"{row.players:>2} players: {fmt_pm(row.mean_rounds, row.rounds_ci_hi - row.mean_rounds)} "
                     f"rounds per match to 500; seat 0 match edge "
                     f"{pp_text(row.first_player_match_edge, row.edge_ci_lo, row.edge_ci_hi)}")
    return lines


def _match_summary(t: dict[str, pd.DataFrame]) -> str:
    m = t["matches"].reset_index(drop=True)
    first, last = m.iloc[0], m.iloc[-1]
    return (f"A match to 500 lasts {first.mean_rounds:.1f} rounds on average with {first.players} players and "
            f"{last.mean_rounds:.1f} with {last.players} (95% intervals in the table).")


STUDIES: dict[str, Study] = {s.name: s for s in (
    Study("first_player", "How big is the first player's edge with 2 to 10 players?",
          _first_player_cells, "first_player_edge_by_players.png", _first_player_answer,
          quick_games=50_000, real_games=2_000_000, summary=_first_player_summary),
    Study("house_rules", "What does each house rule, alone, do to game length and to the first player's "
          "edge (4 players, paired against the official rules)?",
          _house_rule_cells, "rule_effects.png", _effects_answer, quick_games=20_000, real_games=1_000_000,
          summary=_effects_summary),
    Study("flip", "Is UNO Flip longer, swingier or more first-player-friendly than classic UNO?",
          _flip_cells, "rule_effects.png", _flip_answer, quick_games=40_000, real_games=1_000_000),
    Study("match_length", "How long does a match to 500 points last, by number of players?",
          _match_cells, "rounds_per_match_by_players.png", _match_answer, quick_games=4_000,
          real_games=200_000, unit="matches", summary=_match_summary),
)}


def _check_study(name: str) -> Study:
    if name not in STUDIES:
        raise ValueError(f"study {name!r} is unknown; accepted: {', '.join(STUDIES)}")
    return STUDIES[name]


def run_cell(label: str, kw: dict[str, Any], games: int, seed: int, threads: int | None, progress: bool,
              store: Path | str | None) -> tuple[SimulationResult, str]:
    """One cell's result and a note on where its games came from.  With a ``store`` the cell's
    records come from the results store (:mod:`unosim.results.store`): stored games are reused, only the
    missing ones run, and finished chunks survive a kill."""
    if store is None:
        r = simulate(games=games, seed=seed, threads=threads, progress=progress, **kw)
        return r, f"{r.summary['games_per_second'] or 0:,.0f}/s"
    from ..results.store import load_cell, make_cell, result_from_records

    cell = make_cell(seed=seed, **kw)
    rec = load_cell(cell, games, root=store, threads=threads, progress=progress, desc=label)
    info = rec.attrs.get("store", {})
    r = result_from_records(cell, rec, games, elapsed=info.get("seconds", 0.0),
                            interrupted=bool(info.get("interrupted")))
    return r, f"{info.get('ran', 0):,} run now, {info.get('stored_before', 0):,} from store {cell.key}"


def _lead_answer(sentence: str, answer: list[str]) -> str:
    """The page's answer: the study's one sentence (every cell's figures are in the tables below it), or
    every answer line joined where the study has no sentence."""
    if sentence:
        return f"**Answer.** {sentence}"
    return "**Answer** (95% intervals): " + "; ".join(" ".join(a.split()) for a in answer) + "."


def run_study(name: str, games: int | None = None, seed: int = 1, out: Path | str | None = None,
              threads: int | None = None, progress: bool = False,
              cells: Sequence[Cell] | None = None, store: Path | str | None = None,
              echo: Callable[[str], None] | None = None) -> StudyResult:
    """Run study ``name`` (``games`` per cell, the same ``seed`` for every cell), save each cell under
    ``out/runs/`` and write the report (headline chart first) into ``out`` (default
    ``results/<name>``).  ``cells`` replaces the study's cells (e.g. fewer player counts).  With
    ``store`` (a results-store root) cells are read from and added to the store; a KeyboardInterrupt
    then keeps every finished chunk and is raised again once they are written."""
    study = _check_study(name)
    n_games = study.quick_games if games is None else games
    out_dir = Path(out) if out is not None else Path("results") / name
    say = echo or (lambda _line: None)
    t0 = time.perf_counter()
    runs = []
    with writing(out_dir, f"study {name}"):
        for label, kw in (cells if cells is not None else study.cells()):
            r, note = run_cell(label, kw, n_games, seed, threads, progress, store)
            if r.interrupted:
                raise KeyboardInterrupt
            save_run(r, out_dir / "runs" / slug(label))
            runs.append((label, r.records, r.meta))
            say(f"  {label:<28} {len(r.records):>9,} {study.unit}  ({note})")
        say(f"  writing the report and its charts into {out_dir} ...")
        tabs = tables(runs)
        answer = study.answer(tabs)
        skipped = house_rule_arms()[1] if name == "house_rules" else {}
        sentence = study.summary(tabs) if study.summary is not None else ""
        lead = [_lead_answer(sentence, answer)]  # the page's title is the question
        if skipped:
            lead.append("Not in this study: " + "; ".join(f"`{k}` ({v})" for k, v in skipped.items()) + ".")
        files = make_report(runs, out_dir, title=f"unosim study: {study.question}", lead=lead,
                            headline=study.headline)
    return StudyResult(study, out_dir, tabs, answer, files, time.perf_counter() - t0, skipped, sentence)


def add_run_options(ap: argparse.ArgumentParser, name: str) -> None:
    """The options every study script shares: ``--seed``, ``--out``, ``--threads``, ``--store``, ``--no-store``."""
    ap.add_argument("--seed", type=int, default=1, help="master seed, the same for every cell [default: 1]")
    ap.add_argument("--out", default=f"results/{name}", help="report folder [default: %(default)s]")
    ap.add_argument("--threads", type=int, default=None, help="worker threads [default: all cores]")
    ap.add_argument("--store", default=str(DEFAULT_STORE),
                    help="results store: reruns reuse stored games, a larger --games adds only the missing "
                         "ones [default: %(default)s]")
    ap.add_argument("--no-store", action="store_true", help="simulate without the results store")


def run_and_print(run: Callable[[], Any]) -> int:
    """Run a study (``run()`` returns a result with ``answer``, ``files``, ``seconds`` and perhaps
    ``sentence``), print its answer and report path; exit code 0, or 2 with a one-line error, or 130 when interrupted."""
    try:
        res = run()
    except ValueError as e:
        print(f"error: {str(e).splitlines()[0]}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("interrupted: finished chunks are kept in the store; run the same command again to resume",
              file=sys.stderr)
        return 130
    sentence = getattr(res, "sentence", "")
    print("\n".join([*res.answer, *([sentence] if sentence else [])]))
    print(f"report: {res.files['report.html']}  ({res.seconds:.0f} s)")
    return 0


def main(name: str, argv: Sequence[str] | None = None) -> int:
    """Command line of ``scripts/study_<name>.py``: ``--games``, ``--seed``, ``--out``, ``--threads``."""
    study = _check_study(name)
    ap = argparse.ArgumentParser(prog=f"study_{name}.py", description=study.question,
                                 epilog=f"--games {study.quick_games:,} (default) is a quick run; "
                                        f"--games {study.real_games:,} gives the real answer.")
    ap.add_argument("--games", type=int, default=study.quick_games,
                    help=f"{study.unit} per cell [default: {study.quick_games}; real answer: {study.real_games}]")
    add_run_options(ap, name)
    args = ap.parse_args(argv)
    print(study.question)
    return run_and_print(lambda: run_study(
        name, games=args.games, seed=args.seed, out=args.out, threads=args.threads, progress=sys.stderr.isatty(),
        store=None if args.no_store else args.store, echo=print))
