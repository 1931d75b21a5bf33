"""Charts and tables comparing simulated runs, ready for a blog post.

:func:`make_report` takes runs ``(label, records, meta)`` (see :mod:`unosim.stats` for the columns)
and writes PNG charts, ``summary.csv`` and ``summary.md`` into one folder; :func:`make_match_report`
does the same for match-mode runs (by team in partners mode).  Every estimate comes with a 95%
confidence interval.

Figures are built with :class:`matplotlib.figure.Figure` on an Agg canvas, never through pyplot, so
nothing is displayed, the caller's backend is left alone and figures are freed once saved.  All
per-round work is vectorised numpy (``bincount``/``histogram``), so million-row runs are fast.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import matplotlib as mpl
import numpy as np
import pandas as pd
from matplotlib.axes import Axes
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure
from matplotlib.ticker import MaxNLocator, PercentFormatter

from unosim.match import summarize_matches
from unosim.stats import policy_table, seat_table, summarize, z_value

__all__ = ["make_report", "make_match_report", "fmt_pm", "fmt_ci", "OKABE_ITO"]

#: Okabe–Ito colour-blind-safe palette, ordered for contrast on white (yellow and black last).
OKABE_ITO = ("#0072B2", "#E69F00", "#009E73", "#D55E00", "#CC79A7", "#56B4E9", "#F0E442", "#000000")

FIGSIZE = (8.0, 4.5)
DPI = 150
CLIP_QUANTILE = 0.995
TARGET_BINS = 60
LEVEL = 0.95

_STYLE: dict[str, Any] = {
    "font.size": 10,
    "axes.titlesize": 12,
    "axes.titleweight": "bold",
    "axes.labelsize": 10,
    "xtick.labelsize": 9,
    "ytick.labelsize": 9,
    "legend.fontsize": 8.5,
    "legend.frameon": False,
    "axes.spines.top": False,
    "axes.spines.right": False,
    "axes.grid": True,
    "axes.grid.axis": "y",
    "grid.color": "#d9d9d9",
    "grid.linewidth": 0.6,
    "axes.axisbelow": True,
    "axes.prop_cycle": mpl.cycler(color=list(OKABE_ITO)),
}

Run = tuple[str, pd.DataFrame, Mapping[str, Any]]


@dataclass
class _Prepared:
    """One run with everything the charts and tables need, computed once."""

    label: str
    records: pd.DataFrame
    meta: Mapping[str, Any]
    summary: dict[str, Any]
    seats: pd.DataFrame
    policies: pd.DataFrame
    color: str

    @property
    def players(self) -> int:
        return int(self.summary["players"])

    @property
    def games(self) -> int:
        return int(self.summary["games"])


# ---- formatting ------------------------------------------------------------------------------------


def _isnum(x: Any) -> bool:
    return x is not None and isinstance(x, int | float | np.number) and math.isfinite(float(x))


def fmt_pm(value: Any, half: Any, pct: bool = False, unit: str = "") -> str:
    """Format ``value ± half`` with the half-width rounded to two significant figures.

    ``pct`` multiplies both by 100 and appends ``%``; ``unit`` is appended (with a space) otherwise.
    Missing / non-finite values give ``"n/a"``; a missing half-width prints the value alone.
    """
    if not _isnum(value):
        return "n/a"
    v = float(value) * (100.0 if pct else 1.0)
    suffix = "%" if pct else (f" {unit}" if unit else "")
    if not _isnum(half) or float(half) <= 0.0:
        return f"{v:,.2f}{suffix}"
    h = float(half) * (100.0 if pct else 1.0)
    dec = min(6, max(0, 1 - math.floor(math.log10(h))))
    return f"{v:,.{dec}f}{suffix} ± {h:,.{dec}f}{suffix}" if pct else f"{v:,.{dec}f} ± {h:,.{dec}f}{suffix}"


def _range_text(values: Sequence[int], fmt: str = "{:,}") -> str:
    lo, hi = min(values), max(values)
    return fmt.format(lo) if lo == hi else f"{fmt.format(lo)}–{fmt.format(hi)}"


def _scope(runs: Sequence[_Prepared]) -> str:
    """E.g. ``"4 players, 1,000,000 rounds per variant"``."""
    players = _range_text([r.players for r in runs])
    games = _range_text([r.games for r in runs])
    per = " per variant" if len(runs) > 1 else ""
    return f"{players} players, {games} rounds{per}"


def _share_text(k: int, n: int) -> str:
    """``k / n`` as a short percentage, e.g. ``"0.10%"`` or ``"<0.01%"``."""
    if n <= 0:
        return "n/a"
    pct = 100.0 * k / n
    if 0 < pct < 0.01:
        return "<0.01%"
    return f"{pct:.1f}%" if pct >= 1 else f"{pct:.2f}%"


def _set_title(ax: Axes, what: str, scope: str) -> None:
    """Bold left-aligned title; the scope goes on a second line when the whole would be too long."""
    sep = "\n" if len(what) + len(scope) > 62 else " — "
    ax.set_title(f"{what}{sep}{scope}", loc="left")


def _md_escape(text: str) -> str:
    return str(text).replace("|", "\\|").replace("\n", " ")


# ---- figures --------------------------------------------------------------------------------------


def _new_figure() -> tuple[Figure, Axes]:
    fig = Figure(figsize=FIGSIZE, dpi=DPI, layout="constrained")
    FigureCanvasAgg(fig)
    return fig, fig.add_subplot()


def _save(fig: Figure, path: Path) -> Path:
    fig.savefig(path, dpi=DPI, facecolor="white")
    fig.clear()
    return path


def _legend(ax: Axes, loc: str = "best") -> None:
    """Legend inside the axes, or outside on the right when it has many entries."""
    n = len(ax.get_legend_handles_labels()[1])
    if n > 5:
        ax.legend(loc="upper left", bbox_to_anchor=(1.01, 1.0))
    else:
        ax.legend(loc=loc)


def _dodge(i: int, k: int, width: float = 0.6) -> float:
    step = min(0.18, width / max(k, 1))
    return (i - (k - 1) / 2.0) * step


def _fair_share_lines(ax: Axes, runs: Sequence[_Prepared], xmax: dict[int, float]) -> None:
    """Dashed line at 1/players: one grey line if all runs agree, else one per run in its colour."""
    counts = sorted({r.players for r in runs})
    if len(counts) == 1:
        p = counts[0]
        ax.axhline(1.0 / p, ls="--", lw=1.0, color="#555555", label=f"fair share (1/{p})", zorder=1)
        return
    for r in runs:
        ax.hlines(1.0 / r.players, -0.5, xmax[id(r)], ls="--", lw=1.0, color=r.color, alpha=0.8,
                  label=f"fair share {r.label} (1/{r.players})", zorder=1)


def _rate_points(ax: Axes, x: np.ndarray, table: pd.DataFrame, color: str, label: str) -> None:
    rate = table["rate"].to_numpy(dtype=float)
    lo = table["ci_lo"].to_numpy(dtype=float)
    hi = table["ci_hi"].to_numpy(dtype=float)
    yerr = np.vstack([np.clip(rate - lo, 0, None), np.clip(hi - rate, 0, None)])
    ax.errorbar(x, rate, yerr=yerr, fmt="o", ms=5, capsize=4, elinewidth=1.6, capthick=1.6,
                color=color, label=label, zorder=3)


def _seat_chart(runs: Sequence[_Prepared], path: Path) -> Path:
    fig, ax = _new_figure()
    nmax = max(r.players for r in runs)
    for i, r in enumerate(runs):
        x = np.arange(r.players) + _dodge(i, len(runs))
        _rate_points(ax, x, r.seats, r.color, r.label)
    _fair_share_lines(ax, runs, {id(r): r.players - 0.5 for r in runs})
    labels = []
    for s in range(nmax):
        pols = {r.seats["policy"].iloc[s] for r in runs if s < r.players}
        where = "\n(dealer's left)" if s == 0 else ""
        pol = f"\n{pols.pop()}" if len(pols) == 1 and "?" not in pols else ""
        labels.append(f"Seat {s}{where}{pol}")
    ax.set_xticks(np.arange(nmax), labels)
    ax.set_xlim(-0.6, nmax - 0.4)
    ax.margins(y=0.15)
    ax.yaxis.set_major_formatter(PercentFormatter(1.0, decimals=None))
    ax.set_xlabel("Seat, in turn order (seat 0 acts first)")
    ax.set_ylabel("Win rate (% of rounds)")
    _set_title(ax, "Win rate by seat", _scope(runs))
    capped = sum(int(r.summary["capped_games"]) for r in runs)
    note = "Error bars: 95% Wilson confidence interval."
    if capped:
        note += " Rounds stopped at the turn cap count as a loss for every seat."
    fig.text(0.01, 0.0, note, fontsize=7.5, color="#555555", ha="left", va="bottom")
    fig.get_layout_engine().set(h_pad=0.12)
    _legend(ax)
    return _save(fig, path)


def _quantile_from_counts(counts: np.ndarray, q: float) -> int:
    """Smallest integer value v with P(X <= v) >= q, from a bincount."""
    cum = np.cumsum(counts)
    return int(np.searchsorted(cum, q * cum[-1], side="left"))


def _int_values(a: np.ndarray) -> np.ndarray:
    a = np.asarray(a)
    a = a[a >= 0]
    return a.astype(np.int64, copy=False)


def _dist_chart(
    runs: Sequence[_Prepared],
    data: Sequence[np.ndarray],
    means: Sequence[tuple[Any, Any]],
    unit: str,
    xlabel: str,
    title: str,
    scope: str,
    path: Path,
    extra: Sequence[str] | None = None,
    clip_data: Sequence[np.ndarray] | None = None,
    share_of: str = "rounds",
) -> Path:
    """Step histograms (share of values per unit) on shared integer-aligned bins, clipped at 99.5%.

    The clip is the largest per-run 99.5th percentile of ``clip_data`` (default ``data``; runs with
    no clip data are skipped), so e.g. rounds stopped at the turn cap do not set the axis.
    Shares are out of all values of the run, including those beyond the clip.
    """
    fig, ax = _new_figure()
    counts = [np.bincount(d) if d.size else np.zeros(0, dtype=np.int64) for d in data]
    present = [c for c in counts if c.size]
    z = z_value(LEVEL)
    if present:
        lo = min(int(np.flatnonzero(c)[0]) for c in present)
        clip_counts = [np.bincount(d) for d in (clip_data or data) if d.size] or present
        hi = max(_quantile_from_counts(c, CLIP_QUANTILE) for c in clip_counts)
        hi = max(hi, lo)
        width = max(1, math.ceil((hi - lo + 1) / TARGET_BINS))
        nbins = math.ceil((hi - lo + 1) / width)
        edges = lo - 0.5 + width * np.arange(nbins + 1)
        for i, (r, c) in enumerate(zip(runs, counts, strict=True)):
            mean, se = means[i]
            label = f"{r.label}: mean {fmt_pm(mean, z * se if _isnum(se) else None, unit=unit)}"
            if extra and extra[i]:
                label += f" {extra[i]}"
            if not c.size:
                ax.plot([], [], color=r.color, label=f"{r.label}: no data")
                continue
            padded = np.zeros(lo + nbins * width, dtype=np.int64)
            take = min(c.size, padded.size)
            padded[:take] = c[:take]
            binned = padded[lo:].reshape(nbins, width).sum(axis=1)
            share = 100.0 * binned / c.sum() / width
            ax.stairs(share, edges, color=r.color, lw=1.8, label=label, zorder=3)
            if _isnum(mean) and float(mean) <= edges[-1]:
                ax.axvline(float(mean), color=r.color, ls=":", lw=1.2, zorder=2)
        ax.set_xlim(edges[0], edges[-1])
        clip_note = f"clipped at the 99.5th percentile, {hi:,} {unit}"
        ax.set_xlabel(f"{xlabel} ({clip_note})")
        ax.xaxis.set_major_locator(MaxNLocator(integer=True))
        ax.set_ylim(bottom=0)
        _legend(ax, loc="upper right")
    else:
        ax.text(0.5, 0.5, "no data", transform=ax.transAxes, ha="center", va="center", color="#555555")
        ax.set_xlabel(xlabel)
    ax.set_ylabel(f"Share of {share_of} (% per {unit.removesuffix('s') or 'unit'})")
    _set_title(ax, title, scope)
    fig.text(0.01, 0.0, "Dotted lines: means. Legend: mean ± 95% confidence half-width.",
             fontsize=7.5, color="#555555", ha="left", va="bottom")
    fig.get_layout_engine().set(h_pad=0.12)
    return _save(fig, path)


def _policy_chart(runs: Sequence[_Prepared], path: Path) -> Path:
    fig, ax = _new_figure()
    names = list(dict.fromkeys(n for r in runs for n in r.policies.index))
    pos = {n: i for i, n in enumerate(names)}
    for i, r in enumerate(runs):
        x = np.array([pos[n] for n in r.policies.index], dtype=float) + _dodge(i, len(runs))
        _rate_points(ax, x, r.policies, r.color, r.label)
    _fair_share_lines(ax, runs, {id(r): len(names) - 0.5 for r in runs})
    ticks = []
    for n in names:
        seats = {int(r.policies.loc[n, "seats"]) for r in runs if n in r.policies.index}
        if len(seats) == 1:
            k = seats.pop()
            ticks.append(f"{n}\n({k} seat{'' if k == 1 else 's'})")
        else:
            ticks.append(n)
    ax.set_xticks(np.arange(len(names)), ticks)
    ax.set_xlim(-0.6, len(names) - 0.4)
    ax.margins(y=0.15)
    ax.yaxis.set_major_formatter(PercentFormatter(1.0, decimals=None))
    ax.set_xlabel("Policy (seats it holds)")
    ax.set_ylabel("Win rate per seat (% of rounds)")
    _set_title(ax, "Win rate per seat by policy", _scope(runs))
    fig.text(0.01, 0.0, "Per-seat share: a policy's wins / (rounds × seats it holds). "
             "Error bars: 95% Wilson confidence interval.", fontsize=7.5, color="#555555",
             ha="left", va="bottom")
    fig.get_layout_engine().set(h_pad=0.12)
    _legend(ax)
    return _save(fig, path)


# ---- tables ---------------------------------------------------------------------------------------


def _summary_frame(runs: Sequence[_Prepared]) -> pd.DataFrame:
    rows = []
    for r in runs:
        s = r.summary
        rows.append({
            "label": r.label,
            "rules": s["rules"],
            "players": s["players"],
            "policies": ",".join(s["policies"]),
            "seed": s["seed"],
            "games": s["games"],
            "mean_turns": s["mean_turns"],
            "se_turns": s["se_turns"],
            "seat0_win_rate": s["seat_win_rate"][0] if s["seat_win_rate"] else None,
            "seat0_win_rate_se": s["seat_win_rate_se"][0] if s["seat_win_rate_se"] else None,
            "mean_winner_points": s["mean_winner_points"],
            "se_winner_points": s["se_winner_points"],
            "capped_games": s["capped_games"],
        })
    return pd.DataFrame(rows)


def _md_table(header: Sequence[str], rows: Sequence[Sequence[str]], left: int = 1) -> list[str]:
    """Markdown table; the first ``left`` columns are left-aligned, the rest (numbers) right-aligned."""
    align = ["---" if i < left else "---:" for i in range(len(header))]
    out = ["| " + " | ".join(header) + " |", "| " + " | ".join(align) + " |"]
    out += ["| " + " | ".join(row) + " |" for row in rows]
    return out


def _pm(value: Any, se: Any, z: float, pct: bool = False) -> str:
    return fmt_pm(value, z * se if _isnum(se) else None, pct=pct)


def _pm_rate(table: pd.DataFrame, key: Any, z: float) -> str:
    """A rate from a seat/policy table as ``p ± 1.96·se``; Wilson bounds instead when se is 0."""
    row = table.loc[key]
    text = _pm(row["rate"], row["se"], z, pct=True)
    if _isnum(row["se"]) and row["se"] == 0 and _isnum(row["ci_lo"]):
        text += f" (95% CI {100 * row['ci_lo']:.2f}–{100 * row['ci_hi']:.2f}%)"
    return text


def _markdown(runs: Sequence[_Prepared], title: str, images: Mapping[str, str]) -> str:
    z = z_value(LEVEL)
    lines = [f"# {title}", "",
             f"{_scope(runs)}. Every value is *estimate ± 1.96 × standard error* (a 95% confidence "
             "interval). Win rates count every round, including rounds stopped at the turn cap.", ""]
    head = ["Run", "Rules", "Policies", "Players", "Rounds", "Mean turns", "Seat 0 win rate",
            "Mean winner points", "Capped rounds"]
    rows = []
    for r in runs:
        s = r.summary
        rows.append([
            _md_escape(r.label), f"`{_md_escape(s['rules'])}`", _md_escape(", ".join(s["policies"])),
            str(s["players"]), f"{s['games']:,}",
            _pm(s["mean_turns"], s["se_turns"], z),
            _pm_rate(r.seats, 0, z),
            _pm(s["mean_winner_points"], s["se_winner_points"], z),
            f"{s['capped_games']:,}",
        ])
    lines += ["## Headline numbers", "", *_md_table(head, rows, left=3), ""]

    nmax = max(r.players for r in runs)
    rows = []
    for r in runs:
        s = r.summary
        cells = [_pm_rate(r.seats, k, z) if k < r.players else "" for k in range(nmax)]
        rows.append([_md_escape(r.label), *cells])
    lines += ["## Win rate by seat", "", "Seat 0 sits at the dealer's left and acts first.", "",
              *_md_table(["Run", *[f"Seat {k}" for k in range(nmax)]], rows), ""]

    if "policy_win_rate.png" in images:
        names = list(dict.fromkeys(n for r in runs for n in r.policies.index))
        rows = []
        for r in runs:
            s = r.summary
            rows.append([_md_escape(r.label), *[
                _pm_rate(r.policies, n, z) + f" ({int(r.policies.loc[n, 'seats'])})"
                if n in r.policies.index else ""
                for n in names]])
        lines += ["## Win rate per seat by policy", "",
                  "A policy's wins divided by (rounds × seats it holds); seats held in brackets. "
                  "The fair share is 1/players.", "",
                  *_md_table(["Run", *[_md_escape(n) for n in names]], rows), ""]

    lines += ["## Charts", ""]
    for fname, caption in images.items():
        lines += [f"![{caption}]({fname})", ""]

    lines += ["## Reproduce", ""]
    for r in runs:
        s = r.summary
        lines.append(f"- **{_md_escape(r.label)}**: seed `{s['seed']}`, rules `{s['rules']}`, "
                     f"{s['players']} players, policies by seat `{', '.join(s['policies'])}`, "
                     f"{s['games']:,} rounds.")
    lines.append("")
    return "\n".join(lines)


# ---- entry point ----------------------------------------------------------------------------------


def make_report(runs: Sequence[Run], out_dir: Path | str, title: str = "unosim report") -> dict[str, Path]:
    """Write charts and summary tables comparing ``runs`` into ``out_dir`` (created if needed).

    ``runs`` is a sequence of ``(label, records, meta)``.  Writes ``seat_win_rate.png``,
    ``game_length.png``, ``winner_points.png``, ``policy_win_rate.png`` (only when some run mixes
    policies), ``summary.csv`` and ``summary.md``, and returns ``{file name: path}`` for each file
    written.
    """
    if not runs:
        raise ValueError("make_report needs at least one run")
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    prepared = [
        _Prepared(label=str(label), records=rec, meta=meta, summary=summarize(rec, meta),
                  seats=seat_table(rec, meta, LEVEL), policies=policy_table(rec, meta, LEVEL),
                  color=OKABE_ITO[i % len(OKABE_ITO)])
        for i, (label, rec, meta) in enumerate(runs)
    ]
    scope = _scope(prepared)
    written: dict[str, Path] = {}
    captions: dict[str, str] = {}
    with mpl.rc_context(_STYLE):
        written["seat_win_rate.png"] = _seat_chart(prepared, out / "seat_win_rate.png")
        captions["seat_win_rate.png"] = "Win rate by seat"

        turns = [_int_values(r.records["turns"].to_numpy()) for r in prepared]
        won_turns = [_int_values(r.records["turns"].to_numpy()[r.records["winner"].to_numpy() >= 0])
                     for r in prepared]
        extra = []
        for r in prepared:
            c = int(r.summary["capped_games"])
            extra.append(f"({_share_text(c, r.games)} capped)" if c else "")
        written["game_length.png"] = _dist_chart(
            prepared, turns, [(r.summary["mean_turns"], r.summary["se_turns"]) for r in prepared],
            unit="turns", xlabel="Turns per round", title="Round length", scope=scope,
            path=out / "game_length.png", extra=extra, clip_data=won_turns)
        captions["game_length.png"] = "Distribution of round length"

        points = []
        for r in prepared:
            rec = r.records
            points.append(_int_values(rec["winner_points"].to_numpy()[rec["winner"].to_numpy() >= 0]))
        written["winner_points.png"] = _dist_chart(
            prepared, points,
            [(r.summary["mean_winner_points"], r.summary["se_winner_points"]) for r in prepared],
            unit="points", xlabel="Points scored by the round winner",
            title="Points scored by the round winner", scope=scope, path=out / "winner_points.png")
        captions["winner_points.png"] = "Points scored by the round winner"

        if any(len(r.policies) > 1 for r in prepared):
            written["policy_win_rate.png"] = _policy_chart(prepared, out / "policy_win_rate.png")
            captions["policy_win_rate.png"] = "Win rate per seat by policy"

    csv_path = out / "summary.csv"
    _summary_frame(prepared).to_csv(csv_path, index=False)
    written["summary.csv"] = csv_path
    md_path = out / "summary.md"
    md_path.write_text(_markdown(prepared, title, captions), encoding="utf-8")
    written["summary.md"] = md_path
    return written


# ---- match mode -----------------------------------------------------------------------------------
#
# :func:`make_match_report` takes match-mode runs ``(label, records, meta)`` (records of
# :func:`unosim.match.simulate_matches`) and charts the match win rate by policy, or by team and by
# team composition in partners mode, and the number of rounds per match.


def fmt_ci(p: Any, lo: Any, hi: Any) -> str:
    """A rate with its interval in percent, e.g. ``"82.10% [81.86, 82.34]"``; ``"n/a"`` if undefined."""
    if not _isnum(p):
        return "n/a"
    if not (_isnum(lo) and _isnum(hi)):
        return f"{100 * float(p):.2f}%"
    return f"{100 * float(p):.2f}% [{100 * float(lo):.2f}, {100 * float(hi):.2f}]"


@dataclass
class _MatchRun:
    """One match-mode run and its summary (:func:`unosim.match.summarize_matches`)."""

    label: str
    records: pd.DataFrame
    meta: Mapping[str, Any]
    summary: dict[str, Any]
    color: str

    @property
    def partners(self) -> bool:
        return bool(self.summary.get("partners"))

    @property
    def mixed(self) -> bool:
        return len(set(self.summary["policies"])) > 1


def _match_scope(runs: Sequence[_MatchRun]) -> str:
    """E.g. ``"4 players, 100,000 matches"``."""
    players = _range_text([int(r.summary["players"]) for r in runs])
    games = _range_text([int(r.summary["games"]) for r in runs])
    return f"{players} players, {games} matches{' per run' if len(runs) > 1 else ''}"


def _rate_frame(keys: Sequence[str], rates: Sequence[Any], cis: Sequence[Sequence[Any]]) -> pd.DataFrame:
    return pd.DataFrame({"rate": [np.nan if x is None else x for x in rates],
                         "ci_lo": [np.nan if c[0] is None else c[0] for c in cis],
                         "ci_hi": [np.nan if c[1] is None else c[1] for c in cis]},
                        index=pd.Index(list(keys)), dtype=float)


def _policy_frame(r: _MatchRun) -> pd.DataFrame:
    s = r.summary
    names = list(s["policy_match_win_rate"])
    return _rate_frame(names, [s["policy_match_win_rate"][n] for n in names],
                       [s["policy_match_win_rate_ci"][n] for n in names])


def _team_frame(r: _MatchRun) -> pd.DataFrame:
    s = r.summary
    pols = ["+".join(p) for p in s["team_policies"]] if s["team_policies"] else None
    keys = [f"Team {t}\nseats {a}+{b}\n" + (pols[t] if pols else f"({s['seating']} seating)")
            for t, (a, b) in enumerate(s["team_seats"])]
    return _rate_frame(keys, s["team_match_win_rate"], s["team_match_win_rate_ci"])


def _opponents(row: Mapping[str, Any]) -> list[str]:
    others = row["line_up"].split(" vs ")
    others.remove(row["team"])
    return others


def _line_up_frame(r: _MatchRun) -> pd.DataFrame:
    rows = r.summary["team_composition_match_win_rate"]
    keys = [row["team"] + (f" (x{row['teams']})" if row["teams"] > 1 else "") + "".join(f"\nvs {o}" for o in _opponents(row))
            for row in rows]
    return _rate_frame(keys, [row["win_rate"] for row in rows], [(row["ci_lo"], row["ci_hi"]) for row in rows])


def _match_rate_chart(runs: Sequence[_MatchRun], tables: Sequence[pd.DataFrame], fair: Sequence[int],
                      xlabel: str, ylabel: str, title: str, note: str, path: Path) -> Path:
    """Rates with 95% error bars per category (union over runs), dodged by run; dashed fair shares."""
    fig, ax = _new_figure()
    cats = list(dict.fromkeys(k for t in tables for k in t.index))
    pos = {k: i for i, k in enumerate(cats)}
    for i, (r, t) in enumerate(zip(runs, tables, strict=True)):
        x = np.array([pos[k] for k in t.index], dtype=float) + _dodge(i, len(runs))
        _rate_points(ax, x, t, r.color, r.label)
    for k in sorted(set(fair)):
        ax.axhline(1.0 / k, ls="--", lw=1.0, color="#555555", label=f"fair share (1/{k})", zorder=1)
    ax.set_xticks(np.arange(len(cats)), cats, fontsize=9 if len(cats) <= 4 else 7)
    ax.set_xlim(-0.6, len(cats) - 0.4)
    ax.margins(y=0.15)
    ax.yaxis.set_major_formatter(PercentFormatter(1.0, decimals=None))
    ax.set_xlabel(xlabel)
    ax.set_ylabel(ylabel)
    _set_title(ax, title, _match_scope(runs))
    if any(int(r.summary["capped_matches"]) for r in runs):
        note += " Matches stopped at max_rounds count as a loss for everyone."
    fig.text(0.01, 0.0, note, fontsize=7.5, color="#555555", ha="left", va="bottom")
    fig.get_layout_engine().set(h_pad=0.12)
    _legend(ax)
    return _save(fig, path)


def _match_charts(runs: Sequence[_MatchRun], out: Path) -> dict[str, tuple[Path, str]]:
    """Every match chart that applies to ``runs``: ``{file name: (path, caption)}``."""
    charts: dict[str, tuple[Path, str]] = {}
    wilson = "Error bars: 95% Wilson confidence interval."
    solo = [r for r in runs if not r.partners]
    if solo:
        charts["match_win_rate_by_policy.png"] = (_match_rate_chart(
            solo, [_policy_frame(r) for r in solo], [int(r.summary["players"]) for r in solo],
            "Policy", "Match win rate per seat (% of matches)", "Match win rate per seat by policy",
            "Per-seat share: a policy's match wins / (matches x seats it holds). " + wilson,
            out / "match_win_rate_by_policy.png"), "Match win rate per seat by policy")
    teams = [r for r in runs if r.partners]
    if teams:
        charts["match_win_rate_by_team.png"] = (_match_rate_chart(
            teams, [_team_frame(r) for r in teams], [int(r.summary["teams"]) for r in teams],
            "Team (seats i and i + players/2 are partners)", "Match win rate (% of matches)",
            "Match win rate by team", wilson, out / "match_win_rate_by_team.png"), "Match win rate by team")
    mixed = [r for r in teams if r.mixed]
    if mixed:
        charts["match_win_rate_by_line_up.png"] = (_match_rate_chart(
            mixed, [_line_up_frame(r) for r in mixed], [int(r.summary["teams"]) for r in mixed],
            "Team composition (and its opponents)", "Match win rate per team (% of matches)",
            "Match win rate by team composition",
            "Grouped by the policies on each team, whatever the seats; (xk): per-team share of k such teams. "
            + wilson,
            out / "match_win_rate_by_line_up.png"), "Match win rate by team composition")
    rounds = [_int_values(r.records["rounds"].to_numpy()) for r in runs]
    extra = [f"({_share_text(int(r.summary['capped_matches']), int(r.summary['games']))} capped)"
             if int(r.summary["capped_matches"]) else "" for r in runs]
    charts["rounds_per_match.png"] = (_dist_chart(
        runs, rounds, [(r.summary["mean_rounds"], r.summary["se_rounds"]) for r in runs], unit="rounds",
        xlabel="Rounds per match", title="Rounds per match", scope=_match_scope(runs),
        path=out / "rounds_per_match.png", extra=extra, share_of="matches"), "Distribution of rounds per match")
    return charts


def _match_headline(runs: Sequence[_MatchRun], z: float) -> list[str]:
    head = ["Run", "Scoring", "Policies", "Seating", "Players", "Matches", "Mean rounds per match", "Capped matches"]
    rows = []
    for r in runs:
        s = r.summary
        scoring = f"{s['scoring']} to {s['target']}" + (", partners" if r.partners else "")
        rows.append([_md_escape(r.label), _md_escape(scoring), _md_escape(", ".join(s["policies"])),
                     _md_escape(s["seating"]), str(s["players"]), f"{s['games']:,}",
                     _pm(s["mean_rounds"], s["se_rounds"], z), f"{s['capped_matches']:,}"])
    lines = ["## Headline numbers", "", *_md_table(head, rows, left=4), ""]
    for r in runs:
        if r.summary.get("scoring_note"):
            lines += [f"**{_md_escape(r.label)}**: {_md_escape(r.summary['scoring_note'])}.", ""]
    return lines


def _match_solo_tables(runs: Sequence[_MatchRun], z: float) -> list[str]:
    nmax = max(int(r.summary["players"]) for r in runs)
    rows = [[_md_escape(r.label), *[
        _pm(r.summary["seat_match_win_rate"][k], r.summary["seat_match_win_rate_se"][k], z, pct=True)
        if k < int(r.summary["players"]) else "" for k in range(nmax)]] for r in runs]
    lines = ["## Match win rate by seat", "", "Seat 0 sits at the dealer's left in the first round.", "",
             *_md_table(["Run", *[f"Seat {k}" for k in range(nmax)]], rows), ""]
    names = list(dict.fromkeys(n for r in runs for n in r.summary["policy_match_win_rate"]))
    rows = [[_md_escape(r.label), *[fmt_ci(r.summary["policy_match_win_rate"][n], *r.summary["policy_match_win_rate_ci"][n])
                                    if n in r.summary["policy_match_win_rate"] else "" for n in names]] for r in runs]
    lines += ["## Match win rate per seat by policy", "",
              "A policy's match wins / (matches x seats it holds), with its 95% Wilson interval.", "",
              *_md_table(["Run", *[_md_escape(n) for n in names]], rows), ""]
    return lines


def _match_team_tables(runs: Sequence[_MatchRun], z: float) -> list[str]:
    rows = []
    for r in runs:
        s = r.summary
        for t, (a, b) in enumerate(s["team_seats"]):
            pols = "+".join(s["team_policies"][t]) if s["team_policies"] else f"({s['seating']} seating)"
            rows.append([_md_escape(r.label), str(t), f"{a}+{b}", _md_escape(pols),
                         fmt_ci(s["team_match_win_rate"][t], *s["team_match_win_rate_ci"][t]),
                         _pm(s["team_round_win_rate"][t], s["team_round_win_rate_se"][t], z, pct=True),
                         _pm(s["team_mean_final_score"][t], s["team_mean_final_score_se"][t], z)])
    lines = ["## Match win rate by team", "",
             "Partners mode: seats i and i + players/2 are a team and share one score; a match is won by a "
             "team. Match win rates with their 95% Wilson interval; round win rates ± 1.96 cluster-robust "
             "standard errors (clusters = matches).", "",
             *_md_table(["Run", "Team", "Seats", "Policies", "Match win rate [95% CI]", "Round win rate",
                         "Mean final score"], rows, left=4), ""]
    rows = [[_md_escape(r.label), _md_escape(row["line_up"]), _md_escape(row["team"]), f"{row['matches']:,}",
             fmt_ci(row["win_rate"], row["ci_lo"], row["ci_hi"]) + (f" (per team, x{row['teams']})" if row["teams"] > 1 else "")]
            for r in runs for row in r.summary["team_composition_match_win_rate"]]
    lines += ["## Match win rate by team composition", "",
              "Matches grouped by the policies on each team, whatever the seats (rotated or shuffled seating "
              "plays one line-up in several seat orders). A composition fielded by k teams of a line-up gets its "
              "per-team share: wins / (matches x k).", "",
              *_md_table(["Run", "Line-up", "Team", "Matches", "Match win rate [95% CI]"], rows, left=3), ""]
    return lines


def _match_markdown(runs: Sequence[_MatchRun], title: str, captions: Mapping[str, str]) -> str:
    z = z_value(LEVEL)
    lines = [f"# {title}", "",
             f"{_match_scope(runs)}. Every rate comes with a 95% confidence interval; every match counts, "
             "including matches stopped at max_rounds (a loss for everyone).", ""]
    lines += _match_headline(runs, z)
    solo = [r for r in runs if not r.partners]
    if solo:
        lines += _match_solo_tables(solo, z)
    teams = [r for r in runs if r.partners]
    if teams:
        lines += _match_team_tables(teams, z)
    lines += ["## Charts", ""]
    for fname, caption in captions.items():
        lines += [f"![{caption}]({fname})", ""]
    lines += ["## Reproduce", ""]
    for r in runs:
        s = r.summary
        lines.append(f"- **{_md_escape(r.label)}**: `unosim simulate --mode match --rules '{s['rules']}' "
                     f"--deck '{r.meta.get('deck', 'classic')}' --players {s['players']} "
                     f"--policies '{','.join(s['policies'])}' --seating {s['seating']} --scoring {s['scoring']} "
                     f"--target {s['target']} --max-rounds {r.meta.get('max_rounds', 1000)}"
                     f"{' --partners' if r.partners else ''} --games {s['games']} --seed {s['seed']}`")
    lines.append("")
    return "\n".join(lines)


def make_match_report(runs: Sequence[Run], out_dir: Path | str,
                      title: str = "unosim match report") -> dict[str, Path]:
    """Write match-mode charts and ``summary.md`` for ``runs`` (``(label, records, meta)`` of match runs).

    Charts: ``match_win_rate_by_policy.png`` (runs without partners), ``match_win_rate_by_team.png``
    and, when the policies are mixed, ``match_win_rate_by_line_up.png`` (partners runs), and
    ``rounds_per_match.png``.  Returns ``{file name: path}`` for each file written.
    """
    if not runs:
        raise ValueError("make_match_report needs at least one run")
    bad = [str(label) for label, _, meta in runs if meta.get("mode") != "match"]
    if bad:
        raise ValueError(f"run {bad[0]!r} is not a match-mode run; accepted: runs of --mode match")
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    prepared = [_MatchRun(str(label), rec, meta, summarize_matches(rec, dict(meta)), OKABE_ITO[i % len(OKABE_ITO)])
                for i, (label, rec, meta) in enumerate(runs)]
    with mpl.rc_context(_STYLE):
        charts = _match_charts(prepared, out)
    written = {name: path for name, (path, _) in charts.items()}
    md_path = out / "summary.md"
    md_path.write_text(_match_markdown(prepared, title, {n: c for n, (_, c) in charts.items()}), encoding="utf-8")
    written["summary.md"] = md_path
    return written


# ---- tournaments and tuning (unosim.tournament, unosim.tune) ----------------------------------------


def _tournament_scope(meta: Mapping[str, Any]) -> str:
    unit = "matches" if meta["mode"] == "match" else "rounds"
    return (f"{meta['players']} players, {len(meta['lineups'])} line-ups x {meta['games_per_lineup']:,} "
            f"{unit}, {meta['rules']}")


def _policy_ticks(ax: Axes, x: np.ndarray, table: pd.DataFrame) -> None:
    """Policy names under the points; slanted (anchored at the tick) when there are many."""
    slant = len(table) > 4
    ax.set_xticks(x, [str(n) for n in table.index], rotation=20 if slant else 0,
                  ha="right" if slant else "center", rotation_mode="anchor")


def _tournament_rate_chart(table: pd.DataFrame, meta: Mapping[str, Any], path: Path) -> Path:
    fig, ax = _new_figure()
    x = np.arange(len(table), dtype=float)
    match = meta["mode"] == "match"
    _rate_points(ax, x - (0.1 if match else 0.0), table, OKABE_ITO[0],
                 "match win rate" if match else "round win rate")
    if match:
        rounds = pd.DataFrame({k: table[f"round_{k}"] for k in ("rate", "ci_lo", "ci_hi")})
        _rate_points(ax, x + 0.1, rounds, OKABE_ITO[1], "round win rate")
    p = int(meta["players"])
    ax.axhline(1.0 / p, ls="--", lw=1.0, color="#555555", label=f"fair share (1/{p})", zorder=1)
    _policy_ticks(ax, x, table)
    ax.set_xlim(-0.6, len(table) - 0.4)
    ax.margins(y=0.15)
    ax.yaxis.set_major_formatter(PercentFormatter(1.0, decimals=None))
    ax.set_ylabel("Win rate per seat")
    _set_title(ax, "Tournament win rate per seat", _tournament_scope(meta))
    fig.text(0.01, 0.0, "Per-seat share over every line-up; error bars: 95% interval (deals as clusters).",
             fontsize=7.5, color="#555555", ha="left", va="bottom")
    fig.get_layout_engine().set(h_pad=0.12)
    _legend(ax)
    return _save(fig, path)


def _tournament_rating_chart(table: pd.DataFrame, meta: Mapping[str, Any], path: Path) -> Path:
    fig, ax = _new_figure()
    x = np.arange(len(table), dtype=float)
    r = table["rating"].to_numpy(float)
    lo, hi = table["rating_lo"].to_numpy(float), table["rating_hi"].to_numpy(float)
    yerr = np.vstack([np.clip(r - lo, 0, None), np.clip(hi - r, 0, None)]) if np.isfinite(lo).all() else None
    ax.errorbar(x, r, yerr=yerr, fmt="s", ms=5, capsize=4, elinewidth=1.6, capthick=1.6,
                color=OKABE_ITO[2], label="rating", zorder=3)
    ax.axhline(0.0, ls="--", lw=1.0, color="#555555", label="field mean", zorder=1)
    _policy_ticks(ax, x, table)
    ax.set_xlim(-0.6, len(table) - 0.4)
    ax.margins(y=0.15)
    ax.set_ylabel("Rating (Elo scale)")
    _set_title(ax, "Plackett-Luce rating", _tournament_scope(meta))
    fig.text(0.01, 0.0, "Winner first, the rest tied; 400 points = 10:1 odds. Error bars: 95% bootstrap "
             "interval over deals.", fontsize=7.5, color="#555555", ha="left", va="bottom")
    fig.get_layout_engine().set(h_pad=0.12)
    _legend(ax)
    return _save(fig, path)


def _tournament_markdown(table: pd.DataFrame, meta: Mapping[str, Any], title: str,
                         images: Mapping[str, str]) -> str:
    z = z_value(LEVEL)
    match = meta["mode"] == "match"
    head = ["Policy", "Match win rate" if match else "Win rate per seat"]
    head += ["Round win rate"] if match else []
    head += ["Mean score" if match else "Mean points", "Rating", "Rating 95% CI", "Line-ups", "Seat-games"]
    rows = []
    for name, r in table.iterrows():
        cells = [f"`{_md_escape(name)}`", _pm(r["rate"], r["se"], z, pct=True)]
        if match:
            cells.append(_pm(r["round_rate"], r["round_se"], z, pct=True))
        ci = f"{r['rating_lo']:+.0f} to {r['rating_hi']:+.0f}" if _isnum(r["rating_lo"]) else "n/a"
        cells += [_pm(r["mean_points"], r["points_se"], z), f"{r['rating']:+.0f}", ci,
                  f"{int(r['lineups'])}", f"{int(r['n']):,}"]
        rows.append(cells)
    lines = [f"# {title}", "", f"{_tournament_scope(meta)}; line-ups: {meta['design']}; seed "
             f"`{meta['seed']}`; every line-up plays the same deals with rotating seats. Values are "
             "estimate ± 1.96 × standard error.", "", *_md_table(head, rows), "",
             f"Rating: {meta['rating_model']}.", ""]
    lines += ["## Charts", ""]
    for fname, caption in images.items():
        lines += [f"![{caption}]({fname})", ""]
    lines += ["## Line-ups", ""] + [f"- `{lu['dir']}`: {', '.join(lu['policies'])}" for lu in meta["lineups"]]
    return "\n".join(lines) + "\n"


def make_tournament_report(table: pd.DataFrame, meta: Mapping[str, Any], out_dir: Path | str,
                           title: str = "unosim tournament") -> dict[str, Path]:
    """Charts and a markdown table of a tournament (:mod:`unosim.tournament`): writes
    ``tournament_win_rate.png``, ``tournament_rating.png`` and ``tournament.md`` into ``out_dir``;
    policies sorted by rating, best first."""
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    table = table.sort_values("rating", ascending=False)
    captions = {"tournament_win_rate.png": "Win rate per seat", "tournament_rating.png": "Rating"}
    with mpl.rc_context(_STYLE):
        written = {"tournament_win_rate.png": _tournament_rate_chart(table, meta, out / "tournament_win_rate.png"),
                   "tournament_rating.png": _tournament_rating_chart(table, meta, out / "tournament_rating.png")}
    md = out / "tournament.md"
    md.write_text(_tournament_markdown(table, meta, title, captions), encoding="utf-8")
    written["tournament.md"] = md
    return written


def make_tuning_chart(history: pd.DataFrame, meta: Mapping[str, Any], evaluation: Mapping[str, Any],
                      path: Path | str) -> Path:
    """Convergence of a tuning run (:mod:`unosim.tune`): the candidates' win rates per generation
    (mean and best; all candidates of a generation on the same deals) with the out-of-sample win
    rates of the tuned and starting policies, and the search mean's parameters per generation."""
    with mpl.rc_context(_STYLE):
        fig = Figure(figsize=(FIGSIZE[0], 7.0), dpi=DPI, layout="constrained")
        FigureCanvasAgg(fig)
        ax, bx = fig.add_subplot(2, 1, 1), fig.add_subplot(2, 1, 2, sharex=None)
        x = history["games"].to_numpy(float)
        ax.plot(x, history["mean_rate"], "-o", ms=3, color=OKABE_ITO[0], label="generation mean")
        ax.plot(x, history["best_rate"], ":", marker=".", color=OKABE_ITO[1], label="generation best")
        end = x[-1] * 1.04 if len(x) else 1.0
        for k, (key, color) in enumerate((("tuned", OKABE_ITO[2]), ("start", OKABE_ITO[3]))):
            e = evaluation[key]
            ax.errorbar([end + k * 0.02 * end], [e["rate"]], yerr=[[e["rate"] - e["ci_lo"]], [e["ci_hi"] - e["rate"]]],
                        fmt="s", ms=5, capsize=4, color=color, label=f"{key}, out of sample (95% CI)", zorder=3)
        p = int(meta["players"])
        ax.axhline(1.0 / p, ls="--", lw=1.0, color="#555555", label=f"fair share (1/{p})", zorder=1)
        ax.yaxis.set_major_formatter(PercentFormatter(1.0, decimals=None))
        ax.set_ylabel("Candidate win rate")
        _set_title(ax, f"Tuning {meta['policy']} with CMA-ES",
                   f"{p} players vs {', '.join(dict.fromkeys(meta['against']))}, {meta['rules']}")
        _legend(ax)
        for i, prm in enumerate(meta["params"]):
            bx.plot(x, history[f"mean_{prm['name']}"], "-", color=OKABE_ITO[i % len(OKABE_ITO)], label=prm["name"])
        bx.set_xlabel(f"Training rounds ({meta['popsize']} candidates x {meta['games_per_eval']:,} rounds "
                      "per generation)")
        bx.set_ylabel("Search mean")
        bx.set_title("Parameters of the search mean", loc="left")
        _legend(bx)
        fig.text(0.01, 0.0, "All candidates of a generation play the same deals; each generation plays fresh "
                 "ones, so the curves also move with those deals' luck.", fontsize=7.5, color="#555555",
                 ha="left", va="bottom")
        fig.get_layout_engine().set(h_pad=0.12)
        return _save(fig, Path(path))
