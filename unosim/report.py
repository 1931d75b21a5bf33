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

from unosim.match import scoring_text, summarize_matches
from unosim.pages import Page, PageFigure, Section, write_pages
from unosim.paired import paired_difference
from unosim.stats import mean_ci, policy_table, proportion_ci, seat_table, summarize, z_value

__all__ = ["make_report", "make_match_report", "tables", "fmt_pm", "fmt_ci", "caption_text", "reproduce_command",
           "STYLE", "DPI", "FIGSIZE", "new_figure", "save_figure", "legend", "set_title", "dodge",
           "run_labels", "OKABE_ITO"]

#: Okabe–Ito colour-blind-safe palette, ordered for contrast on white (yellow and black last).
OKABE_ITO = ("#0072B2", "#E69F00", "#009E73", "#D55E00", "#CC79A7", "#56B4E9", "#F0E442", "#000000")

#: With more runs than colours, the next eight get the next marker / line style.
MARKERS = ("o", "s", "^", "D")
LINESTYLES = ("-", "--", ":", "-.")
LEGEND_ROWS = 14

FIGSIZE = (8.0, 4.5)
DPI = 200  # publication resolution (PNG); every chart is also written as SVG
CLIP_QUANTILE = 0.995
TARGET_BINS = 60
LEVEL = 0.95

STYLE: dict[str, Any] = {
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


class _Styled:
    """Marker and line style of a run drawn with others: past the 8 palette colours they differ."""

    order: int

    @property
    def marker(self) -> str:
        return MARKERS[(self.order // len(OKABE_ITO)) % len(MARKERS)]

    @property
    def linestyle(self) -> str:
        return LINESTYLES[(self.order // len(OKABE_ITO)) % len(LINESTYLES)]


@dataclass
class _Prepared(_Styled):
    """One run with everything the charts and tables need, computed once."""

    label: str
    records: pd.DataFrame
    meta: Mapping[str, Any]
    summary: dict[str, Any]
    seats: pd.DataFrame
    policies: pd.DataFrame
    color: str
    order: int = 0  # position among the runs: past the 8 palette colours, markers and dashes differ

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


def set_title(ax: Axes, what: str, scope: str) -> None:
    """Bold left-aligned title; the scope goes on a second line when the whole would be too long."""
    sep = "\n" if len(what) + len(scope) > 62 else " — "
    ax.set_title(f"{what}{sep}{scope}", loc="left")


# ---- figures --------------------------------------------------------------------------------------


def new_figure(entries: int = 0) -> tuple[Figure, Axes]:
    """A figure of :data:`FIGSIZE`, wider when a legend of ``entries`` lines goes outside the axes."""
    extra = 2.5 * math.ceil(entries / LEGEND_ROWS) if entries > 5 else 0.0
    fig = Figure(figsize=(FIGSIZE[0] + extra, FIGSIZE[1]), dpi=DPI, layout="constrained")
    FigureCanvasAgg(fig)
    return fig, fig.add_subplot()


def save_figure(fig: Figure, path: Path) -> Path:
    """Write ``path`` (PNG at :data:`DPI`) and its SVG twin; returns the PNG path."""
    fig.savefig(path, dpi=DPI, facecolor="white")
    fig.savefig(path.with_suffix(".svg"), facecolor="white")
    fig.clear()
    return path


def legend(ax: Axes, loc: str = "best") -> None:
    """Legend inside the axes, or outside on the right when it has many entries."""
    n = len(ax.get_legend_handles_labels()[1])
    if n > 5:
        ax.legend(loc="upper left", bbox_to_anchor=(1.01, 1.0), ncols=math.ceil(n / LEGEND_ROWS),
                  fontsize="small" if n > LEGEND_ROWS else None)
    else:
        ax.legend(loc=loc)


def dodge(i: int, k: int, width: float = 0.6) -> float:
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


def _rate_points(ax: Axes, x: np.ndarray, table: pd.DataFrame, color: str, label: str,
                 marker: str = "o") -> None:
    rate = table["rate"].to_numpy(dtype=float)
    lo = table["ci_lo"].to_numpy(dtype=float)
    hi = table["ci_hi"].to_numpy(dtype=float)
    yerr = np.vstack([np.clip(rate - lo, 0, None), np.clip(hi - rate, 0, None)])
    ax.errorbar(x, rate, yerr=yerr, fmt=marker, ms=5, capsize=4, elinewidth=1.6, capthick=1.6,
                color=color, label=label, zorder=3)


def _seat_chart(runs: Sequence[_Prepared], path: Path) -> Path:
    fig, ax = new_figure(len(runs))
    nmax = max(r.players for r in runs)
    for i, r in enumerate(runs):
        x = np.arange(r.players) + dodge(i, len(runs))
        _rate_points(ax, x, r.seats, r.color, r.label, r.marker)
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
    set_title(ax, "Win rate by seat", _scope(runs))
    capped = sum(int(r.summary["capped_games"]) for r in runs)
    note = "Error bars: 95% Wilson confidence interval."
    if capped:
        note += " Rounds stopped at the turn cap count as a loss for every seat."
    _footer(fig, note, runs)
    legend(ax)
    return save_figure(fig, path)


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
    fig, ax = new_figure(len(runs))
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
            ax.stairs(share, edges, color=r.color, ls=r.linestyle, lw=1.8, label=label, zorder=3)
            if _isnum(mean) and float(mean) <= edges[-1]:
                ax.axvline(float(mean), color=r.color, ls=":", lw=1.2, zorder=2)
        ax.set_xlim(edges[0], edges[-1])
        clip_note = f"clipped at the 99.5th percentile, {hi:,} {unit}"
        ax.set_xlabel(f"{xlabel} ({clip_note})")
        ax.xaxis.set_major_locator(MaxNLocator(integer=True))
        ax.set_ylim(bottom=0)
        legend(ax, loc="upper right")
    else:
        ax.text(0.5, 0.5, "no data", transform=ax.transAxes, ha="center", va="center", color="#555555")
        ax.set_xlabel(xlabel)
    ax.set_ylabel(f"Share of {share_of} (% per {unit.removesuffix('s') or 'unit'})")
    set_title(ax, title, scope)
    _footer(fig, "Dotted lines: means. Legend: mean ± 95% confidence half-width.", runs)
    return save_figure(fig, path)


def _policy_chart(runs: Sequence[_Prepared], path: Path) -> Path:
    fig, ax = new_figure(len(runs))
    names = list(dict.fromkeys(n for r in runs for n in r.policies.index))
    pos = {n: i for i, n in enumerate(names)}
    for i, r in enumerate(runs):
        x = np.array([pos[n] for n in r.policies.index], dtype=float) + dodge(i, len(runs))
        _rate_points(ax, x, r.policies, r.color, r.label, r.marker)
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
    set_title(ax, "Win rate per seat by policy", _scope(runs))
    _footer(fig, "Per-seat share: a policy's wins / (rounds × seats it holds). "
            "Error bars: 95% Wilson confidence interval.", runs)
    legend(ax)
    return save_figure(fig, path)


# ---- tables ---------------------------------------------------------------------------------------


def _summary_frame(runs: Sequence[_Prepared]) -> pd.DataFrame:
    rows = []
    for r in runs:
        s = r.summary
        rows.append({
            "label": r.label,
            "rules": s["rules"],
            "deck": _deck_of(r.meta),
            "players": s["players"],
            "policies": ",".join(s["policies"]),
            "seating": _seating_of(r.meta),
            "seed": s["seed"],
            "games": s["games"],
            "mean_turns": s["mean_turns"],
            "se_turns": s["se_turns"],
            "sd_turns": s["sd_turns"],
            "seat0_win_rate": s["seat_win_rate"][0] if s["seat_win_rate"] else None,
            "seat0_win_rate_se": s["seat_win_rate_se"][0] if s["seat_win_rate_se"] else None,
            "mean_winner_points": s["mean_winner_points"],
            "se_winner_points": s["se_winner_points"],
            "capped_games": s["capped_games"],
        })
    return pd.DataFrame(rows)


def _pm(value: Any, se: Any, z: float, pct: bool = False) -> str:
    return fmt_pm(value, z * se if _isnum(se) else None, pct=pct)


def _pm_rate(table: pd.DataFrame, key: Any, z: float) -> str:
    """A rate from a seat/policy table as ``p ± 1.96·se``; Wilson bounds instead when se is 0."""
    row = table.loc[key]
    text = _pm(row["rate"], row["se"], z, pct=True)
    if _isnum(row["se"]) and row["se"] == 0 and _isnum(row["ci_lo"]):
        text += f" (95% CI {100 * row['ci_lo']:.2f}–{100 * row['ci_hi']:.2f}%)"
    return text


# ---- what a result depends on: captions and reproduce lines -----------------------------------------


def _deck_of(meta: Mapping[str, Any]) -> str:
    return str(meta.get("deck", "classic"))


def _seating_of(meta: Mapping[str, Any]) -> str:
    return str(meta.get("seating", "fixed"))


def _policies_text(policies: Sequence[str]) -> str:
    """``"random (every seat)"`` when all seats agree, else the seats in order."""
    uniq = list(dict.fromkeys(str(p) for p in policies))
    return f"{uniq[0]} (every seat)" if len(uniq) == 1 else ", ".join(str(p) for p in policies)


def _setting_text(name: str, values: Sequence[str]) -> str:
    uniq = list(dict.fromkeys(values))
    if len(uniq) == 1:
        return f"{name} {uniq[0]}"
    if len(uniq) <= 4:
        return f"{name} {' | '.join(uniq)}"
    return f"{name}: {len(uniq)} settings (see the tables)"


def caption_text(items: Sequence[tuple[Mapping[str, Any], int]], unit: str = "rounds") -> str:
    """One line naming what the numbers depend on: rules, deck, policies, seating, players, sample
    size, seed and engine version, for ``(meta, sample size)`` pairs (one per run shown)."""
    metas = [m for m, _ in items]
    parts = [_setting_text("rules", [str(m.get("rules", "")) for m in metas]),
             _setting_text("deck", [_deck_of(m) for m in metas]),
             _setting_text("policies", [_policies_text(m.get("policies", ["?"])) for m in metas]),
             _setting_text("seating", [_seating_of(m) for m in metas])]
    if any(m.get("mode") == "match" for m in metas):
        parts.append(_setting_text("scoring", [scoring_text(m.get("scoring", "standard"), m.get("target"))
                                               for m in metas]))
    players = [int(m["players"]) for m in metas if m.get("players") is not None]
    if players:
        parts.append(f"{_range_text(players)} players")
    per = " per run" if len(items) > 1 else ""
    parts.append(f"{_range_text([int(n) for _, n in items])} {unit}{per}")
    seeds = [str(m.get("seed")) for m in metas]
    parts.append(_setting_text("seed", seeds).replace("seed: ", "seeds: "))
    versions = sorted({str(m.get("engine_version", "?")) for m in metas})
    parts.append(f"engine v{'/'.join(versions)}")
    return "; ".join(parts) + "."


def reproduce_command(meta: Mapping[str, Any]) -> str:
    """The ``unosim simulate`` command that reproduces a run, naming everything its result depends on
    (rules, deck, players, policies, seating, seed, games and, for matches, the scoring), followed by
    the engine and package versions it was made with."""
    import shlex

    q = shlex.quote
    parts = ["unosim simulate", f"--rules {q(str(meta.get('rules', 'official')))}",
             f"--deck {q(_deck_of(meta))}", f"--players {meta.get('players')}",
             f"--policies {q(','.join(str(p) for p in meta.get('policies', [])))}",
             f"--seating {_seating_of(meta)}", f"--seed {meta.get('seed')}", f"--games {meta.get('games')}"]
    if meta.get("mode") == "match":
        parts += ["--mode match", f"--scoring {meta.get('scoring', 'standard')}",
                  *([f"--target {meta['target']}"] if meta.get("target") is not None else []),
                  f"--max-rounds {meta.get('max_rounds', 1000)}"]
        if meta.get("partners"):
            parts.append("--partners")
    files = meta.get("policy_files") or (meta.get("cell") or {}).get("policy_files") or []
    parts += [f"--policy-file {q(str(f['path']))}" for f in files]
    notes = [f"engine v{meta.get('engine_version', '?')}", f"unosim {meta.get('unosim_version', '?')}"]
    notes += [f"{Path(f['path']).name} sha256 {f['sha256'][:16]}" for f in files]
    sha = (meta.get("cell") or {}).get("deck_sha256")
    if sha and _deck_of(meta).lower().endswith(".toml"):  # a deck file: name its content too
        notes.append(f"deck sha256 {sha[:16]}")
    return " ".join(parts) + "   # " + ", ".join(notes)


def _footer(fig: Figure, note: str, runs: Sequence[_Prepared], unit: str = "rounds") -> None:
    """Grey two-part note under the axes: how to read the chart, then what the numbers depend on."""
    import textwrap

    caption = caption_text([(r.meta, r.games) for r in runs], unit)
    text = "\n".join([note, *textwrap.wrap(caption, 150)])
    fig.supxlabel(text, x=0.01, ha="left", fontsize=7.5, color="#555555")


# ---- paired effects vs the first arm ---------------------------------------------------------------

#: Paired metrics of the rule-effects chart: (key, panel title, axis label, scale).
EFFECT_METRICS = (
    ("turns", "Game length", "Δ mean turns per round (turns)", 1.0),
    ("first_player_edge", "First player's edge", "Δ seat 0 win rate (percentage points)", 100.0),
)
#: The :func:`unosim.paired.paired_difference` metric behind each key (the 1/players fair share of the
#: first player's edge cancels in a difference between runs with the same player count).
_PAIRED_METRIC = {"turns": "turns", "first_player_edge": "seat0_win"}


def _baselines(runs: Sequence[_Prepared]) -> dict[int, _Prepared]:
    """The first run of each player count: the arm every later run with that count is compared with."""
    base: dict[int, _Prepared] = {}
    for r in runs:
        base.setdefault(r.players, r)
    return base


def _effects_frame(runs: Sequence[_Prepared]) -> pd.DataFrame:
    """Paired effect of each run vs the first run with the same number of players, on game length and
    on the first player's edge (seat 0's win rate: the 1/players fair share cancels in the difference).
    Rounds are matched on ``game``; runs sharing a seed share their deals (common random numbers)."""
    base = _baselines(runs)
    rows = []
    for r in runs:
        b = base[r.players]
        if b is r:
            continue
        for key, *_ in EFFECT_METRICS:
            d = paired_difference(b.records, r.records, _PAIRED_METRIC[key], LEVEL)
            rows.append({"label": r.label, "baseline": b.label, "players": r.players, "metric": key,
                         "diff": d["diff"], "se": d["se"], "ci_lo": d["ci_lo"], "ci_hi": d["ci_hi"],
                         "n": int(d["n"]), "common_seed": r.summary["seed"] == b.summary["seed"]})
    return pd.DataFrame(rows, columns=["label", "baseline", "players", "metric", "diff", "se", "ci_lo",
                                       "ci_hi", "n", "common_seed"])


def _wide_range_scale(ax: Axes, lo: np.ndarray, hi: np.ndarray, ratio: float = 25.0) -> bool:
    """Switch the x axis to symlog when a few effects dwarf the typical interval (e.g. a rule that
    multiplies game length next to rules that change it by a turn); True if it did."""
    ok = np.isfinite(lo) & np.isfinite(hi)
    if not ok.any():
        return False
    half = np.median((hi[ok] - lo[ok]) / 2)
    span = float(np.max(np.abs(np.concatenate([lo[ok], hi[ok]]))))
    thresh = max(float(half) * 2, 1e-9)
    if span / thresh <= ratio:
        return False
    ax.set_xscale("symlog", linthresh=thresh)
    ax.set_xlim(min(float(lo[ok].min()) * 1.5, -thresh), max(float(hi[ok].max()) * 1.5, thresh))
    return True


def _effects_chart(runs: Sequence[_Prepared], effects: pd.DataFrame, path: Path) -> Path:
    arms = list(dict.fromkeys(effects["label"]))
    colors = {r.label: r.color for r in runs}
    height = max(3.4, 1.5 + 0.42 * len(arms))
    fig = Figure(figsize=(FIGSIZE[0] + 2.0, height), dpi=DPI, layout="constrained")
    FigureCanvasAgg(fig)
    axes = fig.subplots(1, len(EFFECT_METRICS), sharey=True)
    y = np.arange(len(arms))[::-1]
    for ax, (key, what, xlabel, scale) in zip(axes, EFFECT_METRICS, strict=True):
        sub = effects[effects["metric"] == key].set_index("label").loc[arms]
        for yi, arm in zip(y, arms, strict=True):
            row = sub.loc[arm]
            d, lo, hi = scale * row["diff"], scale * row["ci_lo"], scale * row["ci_hi"]
            ax.errorbar([d], [yi], xerr=[[max(d - lo, 0)], [max(hi - d, 0)]], fmt="o", ms=5, capsize=4,
                        elinewidth=1.6, color=colors.get(arm, OKABE_ITO[0]), zorder=3)
        ax.axvline(0.0, color="#555555", lw=1.0, ls="--", zorder=1)
        if _wide_range_scale(ax, scale * sub["ci_lo"].to_numpy(float), scale * sub["ci_hi"].to_numpy(float)):
            xlabel += ", symmetric log scale"
        ax.set_xlabel(xlabel)
        ax.set_title(what, loc="left", fontsize=10)
        ax.set_ylim(-0.6, len(arms) - 0.4)
        ax.grid(axis="x", color="#d9d9d9", lw=0.6)
        ax.grid(axis="y", visible=False)
    bases = list(dict.fromkeys(effects["baseline"]))
    axes[0].set_yticks(y, arms)
    axes[0].set_ylabel("Arm")
    versus = bases[0] if len(bases) == 1 else "the first run with as many players"
    fig.suptitle(f"Paired effect of each arm vs {versus}", x=0.01, ha="left",
                 fontsize=12, fontweight="bold")
    shown = [r for r in runs if r.label in arms or r.label in bases]
    _footer(fig, "Points: mean paired difference (arm − baseline) on rounds with the same game index; "
            "bars: 95% confidence interval.", shown)
    return save_figure(fig, path)


# ---- sweeps over the number of players ---------------------------------------------------------------


def _series_key(meta: Mapping[str, Any]) -> tuple[str, ...]:
    """Everything but the player count: runs that share it form one line in a sweep chart."""
    pols = ",".join(dict.fromkeys(str(p) for p in meta.get("policies", [])))
    return (str(meta.get("rules", "")), _deck_of(meta), pols, _seating_of(meta),
            str(meta.get("scoring", "")), str(meta.get("target", "")))


def _series_labels(metas: Sequence[Mapping[str, Any]]) -> list[str]:
    """A short name per run's series: only the settings that differ between series."""
    keys = [_series_key(m) for m in metas]
    names = ("rules", "deck", "policies", "seating", "scoring", "target")
    differ = [i for i in range(len(names)) if len({k[i] for k in keys}) > 1]
    if not differ:
        return [keys[0][0] or "all runs"] * len(keys)
    return [", ".join(k[i] for i in differ) for k in keys]


def run_labels(metas: Sequence[Mapping[str, Any]]) -> list[str]:
    """A short label per run naming only the settings that differ between the runs (e.g. store
    cells, whose folders are named by hash): ``"4p, official+stacking"``."""
    keys = [(f"{m.get('players')}p", *_series_key(m), f"seed {m.get('seed')}") for m in metas]
    differ = [i for i in range(len(keys[0])) if len({k[i] for k in keys}) > 1] if keys else []
    return [", ".join(k[i] for i in differ) or k[1] for k in keys]


def _is_sweep(metas: Sequence[Mapping[str, Any]]) -> bool:
    return len({int(m["players"]) for m in metas}) > 1


def _by_series_then_players(frame: pd.DataFrame) -> pd.DataFrame:
    """Rows grouped by series in order of first appearance, then by player count."""
    order = {name: i for i, name in enumerate(dict.fromkeys(frame["series"]))}
    key = frame["series"].map(order) * 100 + frame["players"]
    return frame.iloc[np.argsort(key.to_numpy(), kind="stable")].reset_index(drop=True)


def _players_frame(runs: Sequence[_Prepared]) -> pd.DataFrame:
    """One row per round run: first player's edge (seat 0 win rate − 1/players) and game length."""
    z = z_value(LEVEL)
    series = _series_labels([r.meta for r in runs])
    rows = []
    for r, name in zip(runs, series, strict=True):
        seat0 = r.seats.loc[0]
        fair = 1.0 / r.players
        mean, se = r.summary["mean_turns"], r.summary["se_turns"]
        rows.append({"series": name, "players": r.players, "label": r.label, "games": r.games,
                     "seat0_win_rate": seat0["rate"], "first_player_edge": seat0["rate"] - fair,
                     "edge_ci_lo": seat0["ci_lo"] - fair, "edge_ci_hi": seat0["ci_hi"] - fair,
                     "mean_turns": mean, "turns_ci_lo": mean - z * se if _isnum(se) else np.nan,
                     "turns_ci_hi": mean + z * se if _isnum(se) else np.nan})
    return _by_series_then_players(pd.DataFrame(rows))


def _match_frame(runs: Sequence[Run]) -> pd.DataFrame:
    """One row per match run: rounds per match and seat 0's match win rate (Wilson), vs 1/players."""
    z = z_value(LEVEL)
    series = _series_labels([m for _, _, m in runs])
    rows = []
    for (label, rec, meta), name in zip(runs, series, strict=True):
        n = int(meta["players"])
        mean, se, _, _ = mean_ci(rec["rounds"].to_numpy(np.float64))
        wins0 = int((rec["winner"].to_numpy() == 0).sum())
        p, _, lo, hi = proportion_ci(wins0, len(rec))
        rows.append({"series": name, "players": n, "label": str(label), "rules": meta.get("rules"),
                     "deck": _deck_of(meta), "scoring": meta.get("scoring"), "target": meta.get("target"),
                     "seed": meta.get("seed"), "matches": len(rec),
                     "mean_rounds": mean, "rounds_ci_lo": mean - z * se, "rounds_ci_hi": mean + z * se,
                     "seat0_match_win_rate": p, "first_player_match_edge": p - 1.0 / n,
                     "edge_ci_lo": lo - 1.0 / n, "edge_ci_hi": hi - 1.0 / n,
                     "capped_matches": int((rec["end_reason"].astype(object) == "round_cap").sum())})
    return _by_series_then_players(pd.DataFrame(rows))


def _players_chart(frame: pd.DataFrame, value: str, lo: str, hi: str, ylabel: str, title: str,
                   items: Sequence[tuple[Mapping[str, Any], int]], unit: str, path: Path,
                   scale: float = 1.0, zero_line: str | None = None) -> Path:
    """Lines against the number of players, one per series, with 95% error bars."""
    fig, ax = new_figure()
    groups = list(dict.fromkeys(frame["series"]))
    for i, name in enumerate(groups):
        g = frame[frame["series"] == name]
        x = g["players"].to_numpy(float) + dodge(i, len(groups), 0.3)
        v = scale * g[value].to_numpy(float)
        err = np.vstack([np.clip(v - scale * g[lo].to_numpy(float), 0, None),
                         np.clip(scale * g[hi].to_numpy(float) - v, 0, None)])
        ax.errorbar(x, v, yerr=err, fmt="-o", ms=4.5, lw=1.6, capsize=3.5, elinewidth=1.4,
                    color=OKABE_ITO[i % len(OKABE_ITO)], label=name, zorder=3)
    if zero_line:
        ax.axhline(0.0, color="#555555", lw=1.0, ls="--", label=zero_line, zorder=1)
    counts = sorted(set(frame["players"]))
    ax.set_xticks(counts)
    ax.set_xlabel("Number of players")
    ax.set_ylabel(ylabel)
    set_title(ax, title, f"{counts[0]}–{counts[-1]} players")
    if len(groups) > 1 or zero_line:
        legend(ax)
    import textwrap

    caption = caption_text(items, unit)
    fig.supxlabel("\n".join(["Error bars: 95% confidence interval.", *textwrap.wrap(caption, 150)]),
                  x=0.01, ha="left", fontsize=7.5, color="#555555")
    return save_figure(fig, path)


def _sweep_charts(runs: Sequence[_Prepared], out: Path) -> dict[str, tuple[Path, str]]:
    frame = _players_frame(runs)
    items = [(r.meta, r.games) for r in runs]
    return {
        "first_player_edge_by_players.png": (_players_chart(
            frame, "first_player_edge", "edge_ci_lo", "edge_ci_hi",
            "Seat 0 win rate − 1/players (percentage points)", "First player's edge by number of players",
            items, "rounds", out / "first_player_edge_by_players.png", scale=100.0,
            zero_line="no edge (fair share)"), "First player's edge by number of players"),
        "turns_by_players.png": (_players_chart(
            frame, "mean_turns", "turns_ci_lo", "turns_ci_hi", "Mean turns per round (turns)",
            "Round length by number of players", items, "rounds", out / "turns_by_players.png"),
            "Round length by number of players"),
    }


def _match_sweep_charts(runs: Sequence[Run], out: Path) -> dict[str, tuple[Path, str]]:
    frame = _match_frame(runs)
    items = [(m, len(rec)) for _, rec, m in runs]
    return {
        "rounds_per_match_by_players.png": (_players_chart(
            frame, "mean_rounds", "rounds_ci_lo", "rounds_ci_hi", "Mean rounds per match (rounds)",
            "Match length by number of players", items, "matches",
            out / "rounds_per_match_by_players.png"), "Match length by number of players"),
        "match_win_by_players.png": (_players_chart(
            frame, "first_player_match_edge", "edge_ci_lo", "edge_ci_hi",
            "Seat 0 match win rate − 1/players (percentage points)",
            "First seat's match win edge by number of players", items, "matches",
            out / "match_win_by_players.png", scale=100.0, zero_line="no edge (fair share)"),
            "First seat's match win edge by number of players"),
    }


# ---- tables API --------------------------------------------------------------------------------------


def _is_match(meta: Mapping[str, Any]) -> bool:
    return meta.get("mode") == "match"


def _unique_labels(runs: Sequence[Run]) -> list[Run]:
    """Runs with distinct labels (a repeated label gets `` (2)``, `` (3)``, ...)."""
    seen: dict[str, int] = {}
    out = []
    for label, rec, meta in runs:
        k = seen[str(label)] = seen.get(str(label), 0) + 1
        out.append((str(label) if k == 1 else f"{label} ({k})", rec, meta))
    return out


def _prepare(runs: Sequence[Run]) -> list[_Prepared]:
    return [
        _Prepared(label=str(label), records=rec, meta=meta, summary=summarize(rec, meta),
                  seats=seat_table(rec, meta, LEVEL), policies=policy_table(rec, meta, LEVEL),
                  color=OKABE_ITO[i % len(OKABE_ITO)], order=i)
        for i, (label, rec, meta) in enumerate(runs)
    ]


def _long_table(runs: Sequence[_Prepared], attr: str) -> pd.DataFrame:
    frames = [getattr(r, attr).reset_index().assign(label=r.label) for r in runs]
    df = pd.concat(frames, ignore_index=True) if frames else pd.DataFrame()
    return df[["label", *[c for c in df.columns if c != "label"]]] if len(df) else df


def _tables(prepared: Sequence[_Prepared], matches: Sequence[Run]) -> dict[str, pd.DataFrame]:
    out: dict[str, pd.DataFrame] = {}
    if prepared:
        out["summary"] = _summary_frame(prepared)
        out["seats"] = _long_table(prepared, "seats")
        out["policies"] = _long_table(prepared, "policies")
        effects = _effects_frame(prepared)
        if len(effects):
            out["effects"] = effects
        if _is_sweep([r.meta for r in prepared]):
            out["players"] = _players_frame(prepared)
    if matches:
        out["matches"] = _match_frame(matches)
    return out


def tables(runs: Sequence[Run]) -> dict[str, pd.DataFrame]:
    """The report's tables as DataFrames, for notebooks (the same numbers as the pages and CSVs).

    ``summary`` (one row per round run), ``seats`` and ``policies`` (win rates with Wilson
    intervals), ``effects`` (paired effect of each run vs the first run with the same player count on
    ``turns`` and ``first_player_edge``, only with two or more such runs), ``players`` (first
    player's edge and round length by player count, only when the runs span several counts) and
    ``matches`` (one row per match-mode run).
    """
    runs = _unique_labels(runs)
    rounds = [r for r in runs if not _is_match(r[2])]
    return _tables(_prepare(rounds), [r for r in runs if _is_match(r[2])])


# ---- pages -------------------------------------------------------------------------------------------


def _frame(header: Sequence[str], rows: Sequence[Sequence[str]]) -> pd.DataFrame:
    return pd.DataFrame([list(r) for r in rows], columns=list(header))


def _round_sections(runs: Sequence[_Prepared], figures: Mapping[str, PageFigure]) -> list[Section]:
    z = z_value(LEVEL)
    head = ["Run", "Rules", "Deck", "Policies", "Players", "Rounds", "Mean turns", "Seat 0 win rate",
            "Mean winner points", "Capped rounds"]
    rows = []
    for r in runs:
        s = r.summary
        rows.append([r.label, f"`{s['rules']}`", _deck_of(r.meta), _policies_text(s["policies"]),
                     str(s["players"]), f"{s['games']:,}", _pm(s["mean_turns"], s["se_turns"], z),
                     _pm_rate(r.seats, 0, z), _pm(s["mean_winner_points"], s["se_winner_points"], z),
                     f"{s['capped_games']:,}"])
    sections = [Section("Headline numbers", tables=[(_frame(head, rows), 4)])]

    nmax = max(r.players for r in runs)
    rows = [[r.label, *[_pm_rate(r.seats, k, z) if k < r.players else "" for k in range(nmax)]]
            for r in runs]
    sections.append(Section("Win rate by seat", ["Seat 0 sits at the dealer's left and acts first."],
                            [(_frame(["Run", *[f"Seat {k}" for k in range(nmax)]], rows), 1)]))

    if "policy_win_rate.png" in figures:
        names = list(dict.fromkeys(n for r in runs for n in r.policies.index))
        rows = [[r.label, *[_pm_rate(r.policies, n, z) + f" ({int(r.policies.loc[n, 'seats'])})"
                            if n in r.policies.index else "" for n in names]] for r in runs]
        sections.append(Section(
            "Win rate per seat by policy",
            ["A policy's wins divided by (rounds × seats it holds); seats held in brackets. "
             "The fair share is 1/players."], [(_frame(["Run", *names], rows), 1)]))
    return sections


def _effects_section(effects: pd.DataFrame) -> Section:
    z = z_value(LEVEL)
    rows = []
    for arm in dict.fromkeys(effects["label"]):
        sub = effects[effects["label"] == arm].set_index("metric")
        t, e = sub.loc["turns"], sub.loc["first_player_edge"]
        rows.append([arm, str(t["baseline"]), f"{int(t['n']):,}", _pm(t["diff"], t["se"], z),
                     fmt_pm(100 * e["diff"], 100 * z * e["se"] if _isnum(e["se"]) else None, unit="pp"),
                     "yes" if bool(t["common_seed"]) else "no"])
    head = ["Arm", "Baseline", "Paired rounds", "Δ mean turns", "Δ first player's edge", "Same seed"]
    return Section("Rule effects (paired)",
                   ["Each arm minus the first run with the same number of players, on rounds matched by "
                    "game index; ± is the 95% half-width of the paired difference. Runs that share a seed "
                    "share each game's seed (common random numbers: identical deals when the decks are the "
                    "same), which narrows the intervals."],
                   [(_frame(head, rows), 2)])


def _players_section(frame: pd.DataFrame) -> Section:
    rows = []
    for row in frame.itertuples(index=False):
        half = (row.edge_ci_hi - row.edge_ci_lo) / 2
        rows.append([row.series, str(row.players), f"{row.games:,}",
                     fmt_pm(100 * row.first_player_edge, 100 * half, unit="pp"),
                     fmt_pm(row.mean_turns, row.turns_ci_hi - row.mean_turns)])
    return Section("By number of players",
                   ["First player's edge = seat 0's win rate minus the fair share 1/players "
                    "(± is half the 95% Wilson interval)."],
                   [(_frame(["Series", "Players", "Rounds", "First player's edge", "Mean turns"], rows), 1)])


def _match_section(frame: pd.DataFrame) -> Section:
    rows = []
    for row in frame.itertuples(index=False):
        rows.append([row.series, str(row.players), f"{row.matches:,}",
                     fmt_pm(row.mean_rounds, row.rounds_ci_hi - row.mean_rounds),
                     fmt_pm(row.seat0_match_win_rate, (row.edge_ci_hi - row.edge_ci_lo) / 2, pct=True),
                     fmt_pm(100 * row.first_player_match_edge, 50 * (row.edge_ci_hi - row.edge_ci_lo),
                            unit="pp"), f"{row.capped_matches:,}"])
    head = ["Series", "Players", "Matches", "Mean rounds per match", "Seat 0 match win rate",
            "Seat 0 edge", "Capped matches"]
    return Section("Matches", ["Seat 0 acts first in the first round; the deal passes clockwise after "
                               "every round. ± is the 95% half-width (Wilson for win rates)."],
                   [(_frame(head, rows), 1)])


def _reproduce_section(runs: Sequence[Run]) -> Section:
    lines = []
    for label, rec, meta in runs:
        note = ""
        if meta.get("interrupted"):
            note = f" (interrupted: {len(rec):,} of {meta.get('games')} kept)"
        lines += [f"# {label}{note}", reproduce_command(meta)]
    return Section("Reproduce", ["Each command names everything its run depends on; threads and batch "
                                 "size never change the results."], code=lines)


# ---- entry point ----------------------------------------------------------------------------------


def _figure(name: str, title: str, items: Sequence[tuple[Mapping[str, Any], int]], unit: str = "rounds"
            ) -> PageFigure:
    return PageFigure(name, title, caption_text(items, unit))


def make_report(runs: Sequence[Run], out_dir: Path | str, title: str = "unosim report",
                lead: Sequence[str] = (), headline: str | None = None) -> dict[str, Path]:
    """Write charts, tables and pages comparing ``runs`` into ``out_dir`` (created if needed).

    ``runs`` is a sequence of ``(label, records, meta)``, round or match mode (``meta["mode"]``).
    For round runs: ``seat_win_rate``, ``game_length``, ``winner_points``, ``policy_win_rate`` (only
    when some run mixes policies), ``rule_effects`` (paired, when two runs share a player count) and,
    when the runs span several player counts, ``first_player_edge_by_players`` and
    ``turns_by_players``; for match runs spanning several player counts ``rounds_per_match_by_players``
    and ``match_win_by_players``.  Every chart is written as ``.png`` (:data:`DPI` dpi) and ``.svg``.
    Also ``summary.csv`` (round runs), one CSV per table of :func:`tables`, ``summary.md`` and a
    self-contained ``report.html``.  ``lead`` paragraphs open the pages (e.g. a study's question and
    answer); the chart named ``headline`` comes first, under them.  Returns ``{file name: path}``
    for each file written.
    """
    if not runs:
        raise ValueError("make_report needs at least one run")
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    runs = _unique_labels(runs)
    round_runs = [r for r in runs if not _is_match(r[2])]
    match_runs = [r for r in runs if _is_match(r[2])]
    prepared = _prepare(round_runs)
    tabs = _tables(prepared, match_runs)
    written: dict[str, Path] = {}
    figures: dict[str, PageFigure] = {}
    sections: list[Section] = []
    with mpl.rc_context(STYLE):
        if prepared:
            items = [(r.meta, r.games) for r in prepared]
            _round_charts(prepared, out, written, figures, items)
            sections += _round_sections(prepared, figures)
            if "effects" in tabs:
                written["rule_effects.png"] = _effects_chart(prepared, tabs["effects"], out / "rule_effects.png")
                shown = set(tabs["effects"]["label"]) | set(tabs["effects"]["baseline"])
                figures["rule_effects.png"] = _figure("rule_effects.png", "Paired rule effects", [
                    (r.meta, r.games) for r in prepared if r.label in shown])
                sections.append(_effects_section(tabs["effects"]))
            if "players" in tabs:
                for name, (path, fig_title) in _sweep_charts(prepared, out).items():
                    written[name], figures[name] = path, _figure(name, fig_title, items)
                sections.append(_players_section(tabs["players"]))
        if match_runs:
            sections.append(_match_section(tabs["matches"]))
            if _is_sweep([m for _, _, m in match_runs]):
                items = [(m, len(rec)) for _, rec, m in match_runs]
                for name, (path, fig_title) in _match_sweep_charts(match_runs, out).items():
                    written[name], figures[name] = path, _figure(name, fig_title, items, "matches")
    for name in [n for n in written if n.endswith(".png")]:
        written[name.removesuffix(".png") + ".svg"] = out / (name.removesuffix(".png") + ".svg")
    if headline in figures:
        sections.insert(0, Section("Headline chart", figures=[figures.pop(headline)]))
    sections.append(Section("Charts", figures=list(figures.values())))
    sections.append(_reproduce_section(runs))

    for key, frame in tabs.items():
        name = "summary.csv" if key == "summary" else f"{key}.csv"
        frame.to_csv(out / name, index=False)
        written[name] = out / name
    scope = _scope(prepared) if prepared else f"{len(match_runs)} match runs"
    intro = [*lead, f"{scope}. Every value is *estimate ± 1.96 × standard error* (a 95% confidence "
             "interval)." + (" Win rates count every round, including rounds stopped at the turn cap."
                             if prepared else "")]
    written.update(write_pages(Page(title, intro, sections), out))
    return written


def _round_charts(prepared: Sequence[_Prepared], out: Path, written: dict[str, Path],
                  figures: dict[str, PageFigure], items: Sequence[tuple[Mapping[str, Any], int]]) -> None:
    scope = _scope(prepared)
    written["seat_win_rate.png"] = _seat_chart(prepared, out / "seat_win_rate.png")
    figures["seat_win_rate.png"] = _figure("seat_win_rate.png", "Win rate by seat", items)

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
    figures["game_length.png"] = _figure("game_length.png", "Distribution of round length", items)

    points = []
    for r in prepared:
        rec = r.records
        points.append(_int_values(rec["winner_points"].to_numpy()[rec["winner"].to_numpy() >= 0]))
    written["winner_points.png"] = _dist_chart(
        prepared, points,
        [(r.summary["mean_winner_points"], r.summary["se_winner_points"]) for r in prepared],
        unit="points", xlabel="Points scored by the round winner",
        title="Points scored by the round winner", scope=scope, path=out / "winner_points.png")
    figures["winner_points.png"] = _figure("winner_points.png", "Points scored by the round winner", items)

    if any(len(r.policies) > 1 for r in prepared):
        written["policy_win_rate.png"] = _policy_chart(prepared, out / "policy_win_rate.png")
        figures["policy_win_rate.png"] = _figure("policy_win_rate.png", "Win rate per seat by policy", items)


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
class _MatchRun(_Styled):
    """One match-mode run and its summary (:func:`unosim.match.summarize_matches`)."""

    label: str
    records: pd.DataFrame
    meta: Mapping[str, Any]
    summary: dict[str, Any]
    color: str
    order: int = 0

    @property
    def games(self) -> int:
        return len(self.records)

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
    fig, ax = new_figure()
    cats = list(dict.fromkeys(k for t in tables for k in t.index))
    pos = {k: i for i, k in enumerate(cats)}
    for i, (r, t) in enumerate(zip(runs, tables, strict=True)):
        x = np.array([pos[k] for k in t.index], dtype=float) + dodge(i, len(runs))
        _rate_points(ax, x, t, r.color, r.label)
    for k in sorted(set(fair)):
        ax.axhline(1.0 / k, ls="--", lw=1.0, color="#555555", label=f"fair share (1/{k})", zorder=1)
    ax.set_xticks(np.arange(len(cats)), cats, fontsize=9 if len(cats) <= 4 else 7)
    ax.set_xlim(-0.6, len(cats) - 0.4)
    ax.margins(y=0.15)
    ax.yaxis.set_major_formatter(PercentFormatter(1.0, decimals=None))
    ax.set_xlabel(xlabel)
    ax.set_ylabel(ylabel)
    set_title(ax, title, _match_scope(runs))
    if any(int(r.summary["capped_matches"]) for r in runs):
        note += " Matches stopped at max_rounds count as a loss for everyone."
    fig.text(0.01, 0.0, note, fontsize=7.5, color="#555555", ha="left", va="bottom")
    fig.get_layout_engine().set(h_pad=0.12)
    legend(ax)
    return save_figure(fig, path)


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


def _match_table(head: Sequence[str], rows: Sequence[Sequence[str]], left: int = 1) -> tuple[pd.DataFrame, int]:
    """A display table for a page section: the first ``left`` columns left-aligned."""
    return pd.DataFrame([list(r) for r in rows], columns=list(head)), left


def _match_headline(runs: Sequence[_MatchRun], z: float) -> Section:
    head = ["Run", "Scoring", "Policies", "Seating", "Players", "Matches", "Mean rounds per match", "Capped matches"]
    rows = []
    for r in runs:
        s = r.summary
        scoring = scoring_text(s["scoring"], s["target"]) + (", partners" if r.partners else "")
        rows.append([r.label, scoring, ", ".join(s["policies"]), s["seating"], str(s["players"]), f"{s['games']:,}",
                     _pm(s["mean_rounds"], s["se_rounds"], z), f"{s['capped_matches']:,}"])
    notes = [f"**{r.label}**: {r.summary['scoring_note']}." for r in runs if r.summary.get("scoring_note")]
    return Section("Headline numbers", notes, [_match_table(head, rows, left=4)])


def _match_solo_sections(runs: Sequence[_MatchRun], z: float) -> list[Section]:
    nmax = max(int(r.summary["players"]) for r in runs)
    rows = [[r.label, *[
        _pm(r.summary["seat_match_win_rate"][k], r.summary["seat_match_win_rate_se"][k], z, pct=True)
        if k < int(r.summary["players"]) else "" for k in range(nmax)]] for r in runs]
    seats = Section("Match win rate by seat", ["Seat 0 sits at the dealer's left in the first round."],
                    [_match_table(["Run", *[f"Seat {k}" for k in range(nmax)]], rows)])
    names = list(dict.fromkeys(n for r in runs for n in r.summary["policy_match_win_rate"]))
    rows = [[r.label, *[fmt_ci(r.summary["policy_match_win_rate"][n], *r.summary["policy_match_win_rate_ci"][n])
                        if n in r.summary["policy_match_win_rate"] else "" for n in names]] for r in runs]
    policies = Section("Match win rate per seat by policy",
                       ["A policy's match wins / (matches x seats it holds), with its 95% Wilson interval."],
                       [_match_table(["Run", *names], rows)])
    return [seats, policies]


def _match_team_sections(runs: Sequence[_MatchRun], z: float) -> list[Section]:
    rows = []
    for r in runs:
        s = r.summary
        for t, (a, b) in enumerate(s["team_seats"]):
            pols = "+".join(s["team_policies"][t]) if s["team_policies"] else f"({s['seating']} seating)"
            rows.append([r.label, str(t), f"{a}+{b}", pols,
                         fmt_ci(s["team_match_win_rate"][t], *s["team_match_win_rate_ci"][t]),
                         _pm(s["team_round_win_rate"][t], s["team_round_win_rate_se"][t], z, pct=True),
                         _pm(s["team_mean_final_score"][t], s["team_mean_final_score_se"][t], z)])
    teams = Section("Match win rate by team",
                    ["Partners mode: seats i and i + players/2 are a team and share one score; a match is won by a "
                     "team. Match win rates with their 95% Wilson interval; round win rates ± 1.96 cluster-robust "
                     "standard errors (clusters = matches)."],
                    [_match_table(["Run", "Team", "Seats", "Policies", "Match win rate [95% CI]", "Round win rate",
                             "Mean final score"], rows, left=4)])
    rows = [[r.label, row["line_up"], row["team"], f"{row['matches']:,}",
             fmt_ci(row["win_rate"], row["ci_lo"], row["ci_hi"]) + (f" (per team, x{row['teams']})" if row["teams"] > 1 else "")]
            for r in runs for row in r.summary["team_composition_match_win_rate"]]
    compositions = Section(
        "Match win rate by team composition",
        ["Matches grouped by the policies on each team, whatever the seats (rotated or shuffled seating plays one "
         "line-up in several seat orders). A composition fielded by k teams of a line-up gets its per-team share: "
         "wins / (matches x k)."],
        [_match_table(["Run", "Line-up", "Team", "Matches", "Match win rate [95% CI]"], rows, left=3)])
    return [teams, compositions]


def _match_effects_section(runs: Sequence[_MatchRun]) -> list[Section]:
    """Paired effects of each match run against the first run with the same player count (matches matched by
    index): rounds per match and seat 0's match win rate, with 95% half-widths and relative sizes."""
    base: dict[int, _MatchRun] = {}
    rows = []
    for r in runs:
        b = base.setdefault(int(r.meta["players"]), r)
        if b is r:
            continue
        row = [r.label, b.label]
        for metric, scale, unit in (("rounds", 1.0, ""), ("seat0_win", 100.0, "pp")):
            d = paired_difference(b.records, r.records, metric, LEVEL)
            rel = f" ({100 * d['diff'] / d['mean_a']:+.1f}%)" if d["mean_a"] else ""
            row.append(fmt_pm(scale * d["diff"], scale * d["half_width"], unit=unit) + rel)
        rows.append([*row, f"{int(d['n']):,}"])
    if not rows:
        return []
    head = ["Arm", "Baseline", "Δ rounds per match", "Δ seat 0 match win rate", "Paired matches"]
    return [Section("Effects (paired)",
                    ["Each run minus the first run with the same number of players, on matches matched by index "
                     "(common random numbers when the seeds agree); ± is the 95% half-width of the paired "
                     "difference, the percentage its size relative to the baseline."],
                    [(_frame(head, rows), 2)])]


def _match_page(runs: Sequence[_MatchRun], title: str, charts: Mapping[str, str]) -> Page:
    z = z_value(LEVEL)
    intro = [f"{_match_scope(runs)}. Every rate comes with a 95% confidence interval; every match counts, "
             "including matches stopped at max_rounds (a loss for everyone)."]
    sections = [_match_headline(runs, z), *_match_effects_section(runs)]
    solo = [r for r in runs if not r.partners]
    if solo:
        sections += _match_solo_sections(solo, z)
    teams = [r for r in runs if r.partners]
    if teams:
        sections += _match_team_sections(teams, z)
    items = [(r.meta, len(r.records)) for r in runs]
    sections.append(Section("Charts", figures=[_figure(name, caption, items, unit="matches")
                                               for name, caption in charts.items()]))
    sections.append(Section("Reproduce", code=[f"# {r.label}\n{reproduce_command(r.meta)}" for r in runs]))
    return Page(title, intro, sections)


def make_match_report(runs: Sequence[Run], out_dir: Path | str,
                      title: str = "unosim match report") -> dict[str, Path]:
    """Write match-mode charts (PNG and SVG) and the pages ``summary.md`` and ``report.html`` for ``runs``
    (``(label, records, meta)`` of match runs).

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
    prepared = [_MatchRun(str(label), rec, meta, summarize_matches(rec, dict(meta)), OKABE_ITO[i % len(OKABE_ITO)], i)
                for i, (label, rec, meta) in enumerate(runs)]
    with mpl.rc_context(STYLE):
        charts = _match_charts(prepared, out)
    written = {name: path for name, (path, _) in charts.items()}
    written.update(write_pages(_match_page(prepared, title, {n: c for n, (_, c) in charts.items()}), out))
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
    fig, ax = new_figure()
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
    set_title(ax, "Tournament win rate per seat", _tournament_scope(meta))
    fig.text(0.01, 0.0, "Per-seat share over every line-up; error bars: 95% interval (deals as clusters).",
             fontsize=7.5, color="#555555", ha="left", va="bottom")
    fig.get_layout_engine().set(h_pad=0.12)
    legend(ax)
    return save_figure(fig, path)


def _tournament_rating_chart(table: pd.DataFrame, meta: Mapping[str, Any], path: Path) -> Path:
    fig, ax = new_figure()
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
    set_title(ax, "Plackett-Luce rating", _tournament_scope(meta))
    fig.text(0.01, 0.0, "Winner first, the rest tied; 400 points = 10:1 odds. Error bars: 95% bootstrap "
             "interval over deals.", fontsize=7.5, color="#555555", ha="left", va="bottom")
    fig.get_layout_engine().set(h_pad=0.12)
    legend(ax)
    return save_figure(fig, path)


def _tournament_page(table: pd.DataFrame, meta: Mapping[str, Any], title: str, images: Mapping[str, str]) -> Page:
    z = z_value(LEVEL)
    match = meta["mode"] == "match"
    head = ["Policy", "Match win rate" if match else "Win rate per seat"]
    head += ["Round win rate"] if match else []
    head += ["Mean score" if match else "Mean points", "Rating", "Rating 95% CI", "Line-ups", "Seat-games"]
    rows = []
    for name, r in table.iterrows():
        cells = [f"`{name}`", _pm(r["rate"], r["se"], z, pct=True)]
        if match:
            cells.append(_pm(r["round_rate"], r["round_se"], z, pct=True))
        ci = f"{r['rating_lo']:+.0f} to {r['rating_hi']:+.0f}" if _isnum(r["rating_lo"]) else "n/a"
        cells += [_pm(r["mean_points"], r["points_se"], z), f"{r['rating']:+.0f}", ci,
                  f"{int(r['lineups'])}", f"{int(r['n']):,}"]
        rows.append(cells)
    intro = [f"{_tournament_scope(meta)}; line-ups: {meta['design']}; seed `{meta['seed']}`; every line-up plays "
             "the same deals with rotating seats. Values are estimate ± 1.96 × standard error."]
    results = Section("Results", [f"Rating: {meta['rating_model']}."], [(pd.DataFrame(rows, columns=head), 1)])
    charts = Section("Charts", figures=[PageFigure(name, caption, _tournament_scope(meta))
                                        for name, caption in images.items()])
    lineups = Section("Line-ups", [f"`{lu['dir']}`: {', '.join(lu['policies'])}" for lu in meta["lineups"]])
    return Page(title, intro, [results, charts, lineups])


def make_tournament_report(table: pd.DataFrame, meta: Mapping[str, Any], out_dir: Path | str,
                           title: str = "unosim tournament") -> dict[str, Path]:
    """Charts (PNG and SVG) and the pages of a tournament (:mod:`unosim.tournament`): writes
    ``tournament_win_rate.png``, ``tournament_rating.png``, ``tournament.md`` and ``tournament.html`` into
    ``out_dir``; policies sorted by rating, best first."""
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    table = table.sort_values("rating", ascending=False)
    captions = {"tournament_win_rate.png": "Win rate per seat", "tournament_rating.png": "Rating"}
    with mpl.rc_context(STYLE):
        written = {"tournament_win_rate.png": _tournament_rate_chart(table, meta, out / "tournament_win_rate.png"),
                   "tournament_rating.png": _tournament_rating_chart(table, meta, out / "tournament_rating.png")}
    written.update(write_pages(_tournament_page(table, meta, title, captions), out,
                               names=("tournament.md", "tournament.html")))
    return written


def make_tuning_chart(history: pd.DataFrame, meta: Mapping[str, Any], evaluation: Mapping[str, Any],
                      path: Path | str) -> Path:
    """Convergence of a tuning run (:mod:`unosim.tune`): the candidates' win rates per generation
    (mean and best; all candidates of a generation on the same deals) with the out-of-sample win
    rates of the tuned and starting policies, and the search mean's parameters per generation."""
    with mpl.rc_context(STYLE):
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
        set_title(ax, f"Tuning {meta['policy']} with CMA-ES",
                   f"{p} players vs {', '.join(dict.fromkeys(meta['against']))}, {meta['rules']}")
        legend(ax)
        for i, prm in enumerate(meta["params"]):
            bx.plot(x, history[f"mean_{prm['name']}"], "-", color=OKABE_ITO[i % len(OKABE_ITO)], label=prm["name"])
        bx.set_xlabel(f"Training rounds ({meta['popsize']} candidates x {meta['games_per_eval']:,} rounds "
                      "per generation)")
        bx.set_ylabel("Search mean")
        bx.set_title("Parameters of the search mean", loc="left")
        legend(bx)
        fig.text(0.01, 0.0, "All candidates of a generation play the same deals; each generation plays fresh "
                 "ones, so the curves also move with those deals' luck.", fontsize=7.5, color="#555555",
                 ha="left", va="bottom")
        fig.get_layout_engine().set(h_pad=0.12)
        return save_figure(fig, Path(path))
