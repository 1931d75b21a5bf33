"""Study: how the lookahead player's win rate grows with its budget (4 players, official rules).

    python scripts/study_lookahead.py                         # quick run: 400 rounds per budget
    python scripts/study_lookahead.py --games 4000 --budgets 10,30,100,300

One `lookahead(rollouts=B)` against three `greedy`, rotating seats, the same seed (so the same deals) for
every budget; greedy against three greedy is the fair baseline.  Writes budget.csv, the chart
lookahead_budget.png (+ .svg), summary.md and report.html into results/lookahead/ (or --out).
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import pandas as pd

from unosim import simulate
from unosim.analysis.stats import proportion_ci
from unosim.players.lookahead import COUNTERS
from unosim.reports.charts import chart_style
from unosim.reports.pages import Page, PageFigure, Section, write_pages
from unosim.reports.report import OKABE_ITO, fmt_pm, legend, new_figure, save_figure


def budget_row(rollouts: int | None, games: int, seed: int, threads: int | None, players: int) -> dict:
    """One cell: lookahead with ``rollouts`` (None: greedy) in one seat against greedy, rotating seats; its
    per-seat win rate and cost."""
    policy = "greedy" if rollouts is None else f"lookahead(rollouts={rollouts})"
    COUNTERS.reset()
    t0 = time.perf_counter()
    r = simulate(players=players, policies=",".join([policy] + ["greedy"] * (players - 1)), games=games,
                 seed=seed, seating="rotate", threads=threads)
    wall = time.perf_counter() - t0
    wins = int((r.records["winner_policy"] == 0).sum())
    rate, _, lo, hi = proportion_ci(wins, games)
    return {"policy": policy, "rollouts": rollouts, "rounds": games, "win_rate": rate, "ci_lo": lo, "ci_hi": hi,
            "fair_share": 1 / players, "seconds": wall, "rounds_per_second": games / wall,
            "decisions": COUNTERS.decisions, "playouts": COUNTERS.playouts,
            "decisions_per_second_per_thread": COUNTERS.decisions / COUNTERS.seconds if COUNTERS.seconds else None,
            "playouts_per_second_per_thread": COUNTERS.playouts / COUNTERS.seconds if COUNTERS.seconds else None}


def budget_chart(table: pd.DataFrame, path: Path, players: int) -> Path:
    la = table[table["rollouts"].notna()]
    base = table[table["rollouts"].isna()].iloc[0]
    budgets = [int(b) for b in la["rollouts"]]
    with chart_style():
        fig, ax = new_figure()
        err = [100 * (la["win_rate"] - la["ci_lo"]), 100 * (la["ci_hi"] - la["win_rate"])]
        ax.errorbar(budgets, 100 * la["win_rate"], yerr=err, fmt="o-", capsize=4, color=OKABE_ITO[3],
                    label="lookahead (95% interval)")
        ax.axhspan(100 * base["ci_lo"], 100 * base["ci_hi"], color=OKABE_ITO[0], alpha=0.18,
                   label="greedy in the same seat (95% interval)")
        ax.axhline(100 / players, color="#444444", lw=1, ls="--", label=f"fair share {100 / players:.0f}%")
        ax.set_xscale("log")
        ax.minorticks_off()
        ax.set_xticks(budgets, [str(b) for b in budgets])
        ax.set_xlabel("rollouts per candidate move and decision (log scale)")
        ax.set_ylabel("win rate per seat (%)")
        ax.set_title(f"Lookahead against three greedy: win rate by budget ({players} players, official)",
                     loc="left")
        legend(ax)
        return save_figure(fig, path)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="study_lookahead.py", description=__doc__.splitlines()[0])
    ap.add_argument("--games", type=int, default=400, help="rounds per budget [default: 400; real: 4000]")
    ap.add_argument("--budgets", default="10,30,100,300", help="rollouts, comma-separated [default: %(default)s]")
    ap.add_argument("--players", type=int, default=4)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--threads", type=int, default=None)
    ap.add_argument("--out", default="results/lookahead")
    a = ap.parse_args(argv)
    try:
        budgets = [int(b) for b in a.budgets.split(",")]
    except ValueError:
        print(f"error: --budgets {a.budgets!r} is not a comma-separated list of whole numbers", file=sys.stderr)
        return 2
    out = Path(a.out)
    out.mkdir(parents=True, exist_ok=True)
    rows = [budget_row(None, a.games, a.seed, a.threads, a.players)]
    for b in budgets:
        rows.append(budget_row(b, a.games, a.seed, a.threads, a.players))
        r = rows[-1]
        print(f"  rollouts={b:<6} win {fmt_pm(r['win_rate'], (r['ci_hi'] - r['ci_lo']) / 2, pct=True)}  "
              f"{r['decisions_per_second_per_thread']:,.0f} decisions/s per thread  {r['seconds']:.0f} s")
    table = pd.DataFrame(rows)
    table.to_csv(out / "budget.csv", index=False)
    chart = budget_chart(table, out / "lookahead_budget.png", a.players)
    shown = pd.DataFrame({
        "policy": table["policy"],
        "win rate per seat": [fmt_pm(r.win_rate, (r.ci_hi - r.ci_lo) / 2, pct=True) for r in table.itertuples()],
        "decisions/s per thread": [f"{v:,.0f}" if v == v and v is not None else "" for v in
                                   table["decisions_per_second_per_thread"]],
        "rounds/s": [f"{v:,.1f}" for v in table["rounds_per_second"]]})
    g = table.iloc[0]
    best = table.iloc[table["win_rate"].values[1:].argmax() + 1]
    answer = (f"Against three greedy ({a.players} players, official rules, rotating seats, {a.games:,} rounds per "
              f"budget), `{best['policy']}` wins {fmt_pm(best['win_rate'], (best['ci_hi'] - best['ci_lo']) / 2, True)}"
              f" of rounds per seat; greedy in the same seat wins "
              f"{fmt_pm(g['win_rate'], (g['ci_hi'] - g['ci_lo']) / 2, True)} (fair share {100 / a.players:.0f}%).")
    page = Page("unosim study: the lookahead player's budget", [answer], [
        Section("Win rate by budget", [], [(shown, 1)],
                [PageFigure(chart.name, "Win rate by budget",
                            "One lookahead seat against three greedy, rotating seats; the same deals for every "
                            "budget. Bars: 95% Wilson intervals.")],
                [f"python scripts/study_lookahead.py --games {a.games} --budgets {a.budgets} --seed {a.seed}"])])
    write_pages(page, out)
    print(answer)
    print(f"report: {out / 'report.html'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
