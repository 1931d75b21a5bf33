"""Charts and tables comparing simulated runs, ready for a blog post.

:func:`make_report` takes runs ``(label, records, meta)`` (see :mod:`unosim.analysis.stats` for the columns)
and writes PNG charts, ``summary.csv`` and ``summary.md`` into one folder; :func:`make_match_report`
does the same for match-mode runs (by team in partners mode).  Every estimate comes with a 95%
confidence interval.  :func:`report_charts` lists the charts of a set of runs without drawing them,
and :func:`write_chart` writes one of them (``unosim plot``).

Charts follow :mod:`unosim.reports.charts`: at most six series a panel (small multiples beyond that), one
colour-blind-safe colour per series, plain-word labels, the caption under the image on the page.  All
per-round work is vectorised numpy (``bincount``/``histogram``), so million-row runs are fast.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Collection, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
from matplotlib.axes import Axes
from matplotlib.figure import Figure
from matplotlib.ticker import MaxNLocator, PercentFormatter

from unosim.analysis.paired import paired_difference
from unosim.analysis.stats import (
    capped_count,
    mean_ci,
    policy_table,
    proportion_ci,
    seat_table,
    summarize,
    z_value,
)
from unosim.fmt import fmt_ci, fmt_pm
from unosim.fmt import isnum as _isnum
from unosim.reports.charts import (
    DPI,
    FIGSIZE,
    MAX_SERIES,
    OKABE_ITO,
    PALETTE,
    REFERENCE,
    STYLE,
    ChartError,
    chart_options,
    chart_style,
    dodge,
    error_arms,
    figure_title,
    legend,
    new_figure,
    new_panels,
    palette,
    panel_title,
    plain,
    save_figure,
    set_title,
)
from unosim.reports.pages import Page, PageFigure, Section, write_pages
from unosim.running.match import scoring_text, summarize_matches

__all__ = ["make_report", "make_match_report", "tables", "fmt_pm", "fmt_ci", "caption_text", "reproduce_command",
           "STYLE", "DPI", "FIGSIZE", "new_figure", "save_figure", "legend", "set_title", "dodge",
           "run_labels", "OKABE_ITO", "PALETTE", "Chart", "report_charts", "write_chart"]

CLIP_QUANTILE = 0.995
TARGET_BINS = 60
LEVEL = 0.95

Run = tuple[str, pd.DataFrame, Mapping[str, Any]]
Items = Sequence[tuple[Mapping[str, Any], int]]


@dataclass
class _Prepared:
    """One run with everything the charts and tables need, computed once."""

    label: str
    records: pd.DataFrame
    meta: Mapping[str, Any]
    summary: dict[str, Any]
    seats: pd.DataFrame
    policies: pd.DataFrame

    @property
    def players(self) -> int:
        return int(self.summary["players"])

    @property
    def games(self) -> int:
        return int(self.summary["games"])

    @property
    def name(self) -> str:
        """The label as a chart shows it (plain words)."""
        return plain(self.label)


@dataclass
class Chart:
    """One chart of a report, not yet drawn: its file name, its title and caption on the page, and
    ``draw`` (builds the figure).  The caption is the note on how to read it followed by what the
    numbers depend on (:func:`caption_text`)."""

    name: str
    title: str
    note: str
    items: Items
    unit: str
    draw: Callable[[], Figure]

    @property
    def caption(self) -> str:
        return " ".join(t for t in (self.note, caption_text(self.items, self.unit)) if t)

    def save(self, out_dir: Path) -> Path:
        return save_figure(self.draw(), Path(out_dir) / self.name, self.caption)

    def page_figure(self) -> PageFigure:
        return PageFigure(self.name, self.title, self.caption)


def _groups(runs: Sequence[Any]) -> list[list[Any]]:
    """The runs of each panel: all in one panel up to :data:`MAX_SERIES`, else one panel per run."""
    return [list(runs)] if len(runs) <= MAX_SERIES else [[r] for r in runs]


def _panels(runs: Sequence[Any], sharex: bool = False, sharey: bool = True) -> tuple[Figure, list[tuple[Axes, list[Any]]]]:
    """A figure with one panel (a few runs) or small multiples (one run a panel), paired with its runs."""
    groups = _groups(runs)
    fig, axes = new_panels(len(groups), sharex=sharex, sharey=sharey)
    if len(groups) > 1:
        for ax, (r,) in zip(axes, groups, strict=True):
            panel_title(ax, plain(r.label))
    return fig, list(zip(axes, groups, strict=True))


def _title(fig: Figure, panels: Sequence[tuple[Axes, Any]], what: str, scope: str) -> None:
    if len(panels) == 1:
        set_title(panels[0][0], what, scope)
    else:
        figure_title(fig, what, scope)


def _outer(fig: Figure, panels: Sequence[tuple[Axes, Any]], xlabel: str, ylabel: str) -> None:
    """Axis labels: on the axes of a single panel, once for the whole figure of small multiples."""
    if len(panels) == 1:
        panels[0][0].set_xlabel(xlabel)
        panels[0][0].set_ylabel(ylabel)
    else:
        fig.supxlabel(xlabel, fontsize=10)
        fig.supylabel(ylabel, fontsize=10)


# ---- formatting ------------------------------------------------------------------------------------


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


# ---- round charts ------------------------------------------------------------------------------------


def _fair_share_lines(ax: Axes, players: Sequence[int]) -> None:
    """Grey dashed line at 1/players for each player count shown (labelled by the count when several)."""
    counts = sorted(set(players))
    for p in counts:
        ax.axhline(1.0 / p, ls="--", lw=1.0, color=REFERENCE, zorder=1,
                   label=f"fair share (1/{p})" if len(counts) == 1 else f"fair share, {p} players (1/{p})")


def _rate_points(ax: Axes, x: np.ndarray, table: pd.DataFrame, color: str, label: str,
                 marker: str = "o") -> None:
    rate = table["rate"].to_numpy(dtype=float)
    lo = table["ci_lo"].to_numpy(dtype=float)
    hi = table["ci_hi"].to_numpy(dtype=float)
    ax.errorbar(x, rate, yerr=error_arms(rate, lo, hi), fmt=marker, ms=5, capsize=4, elinewidth=1.6, capthick=1.6,
                color=color, label=label, zorder=3)


def _seat_ticks(group: Sequence[_Prepared], detailed: bool) -> list[str]:
    nmax = max(r.players for r in group)
    if not detailed:
        return [str(s) for s in range(nmax)]
    labels = []
    for s in range(nmax):
        pols = {r.seats["policy"].iloc[s] for r in group if s < r.players}
        where = "\n(dealer's left)" if s == 0 else ""
        pol = f"\n{pols.pop()}" if len(pols) == 1 and "?" not in pols else ""
        labels.append(f"Seat {s}{where}{pol}")
    return labels


def _seat_figure(runs: Sequence[_Prepared]) -> Figure:
    fig, panels = _panels(runs)
    for ax, group in panels:
        for i, (r, color) in enumerate(zip(group, palette(len(group)), strict=True)):
            _rate_points(ax, np.arange(r.players) + dodge(i, len(group)), r.seats, color, r.name)
        _fair_share_lines(ax, [r.players for r in group])
        nmax = max(r.players for r in group)
        _rate_axis(ax, np.arange(nmax), _seat_ticks(group, detailed=len(panels) == 1))
    return _finish_panels(fig, panels, runs, "Seat, in turn order (seat 0 acts first)", "Win rate (% of rounds)",
                          "Win rate by seat")


def _rate_axis(ax: Axes, at: np.ndarray, ticks: Sequence[str]) -> None:
    """A panel of win rates at categories ``at``: its ticks, some room around the points, percent."""
    ax.set_xticks(at, ticks)
    ax.set_xlim(-0.6, len(at) - 0.4)
    ax.margins(y=0.15)
    ax.yaxis.set_major_formatter(PercentFormatter(1.0, decimals=None))


def _finish_panels(fig: Figure, panels: list, runs: Sequence[_Prepared], xlabel: str, ylabel: str,
                   title: str) -> Figure:
    """The figure's shared axis labels and title; a legend when it is one panel (small multiples name
    their run in each panel's title)."""
    _outer(fig, panels, xlabel, ylabel)
    _title(fig, panels, title, _scope(runs))
    if len(panels) == 1:
        legend(panels[0][0])
    return fig


def _seat_note(runs: Sequence[_Prepared]) -> str:
    note = "Error bars: 95% Wilson confidence interval; dashed: the fair share 1/players."
    if any(int(r.summary["capped_games"]) for r in runs):
        note += " Rounds stopped at the turn cap count as a loss for every seat."
    return note


def _quantile_from_counts(counts: np.ndarray, q: float) -> int:
    """Smallest integer value v with P(X <= v) >= q, from a bincount."""
    cum = np.cumsum(counts)
    return int(np.searchsorted(cum, q * cum[-1], side="left"))


def _int_values(a: np.ndarray) -> np.ndarray:
    a = np.asarray(a)
    a = a[a >= 0]
    return a.astype(np.int64, copy=False)


@dataclass
class _Dist:
    """What a distribution chart shows: integer values per run, the mean ± se of each, the unit of a
    value (``turns``), what is counted (``rounds``) and an optional note per run."""

    data: Sequence[np.ndarray]
    means: Sequence[tuple[Any, Any]]
    unit: str
    xlabel: str
    title: str
    scope: str
    extra: Sequence[str] = ()
    clip_data: Sequence[np.ndarray] | None = None
    share_of: str = "rounds"


def _bins(d: _Dist, counts: Sequence[np.ndarray]) -> tuple[int, int, int, int]:
    """(first value, last value shown, bin width, number of bins): integer-aligned, clipped at 99.5%."""
    present = [c for c in counts if c.size]
    lo = min(int(np.flatnonzero(c)[0]) for c in present)
    clip_counts = [np.bincount(x) for x in (d.clip_data or d.data) if x.size] or present
    hi = max(max(_quantile_from_counts(c, CLIP_QUANTILE) for c in clip_counts), lo)
    width = max(1, math.ceil((hi - lo + 1) / TARGET_BINS))
    return lo, hi, width, math.ceil((hi - lo + 1) / width)


def _dist_figure(runs: Sequence[Any], d: _Dist) -> Figure:
    """Step histograms (share of rounds in each bin) on shared integer-aligned bins, clipped at 99.5%.

    Shares are out of all values of the run, including those beyond the clip; the clip is the largest
    per-run 99.5th percentile of ``clip_data`` (default ``data``)."""
    fig, panels = _panels(runs, sharex=True)
    counts = [np.bincount(x) if x.size else np.zeros(0, dtype=np.int64) for x in d.data]
    index = {id(r): i for i, r in enumerate(runs)}
    z = z_value(LEVEL)
    if not any(c.size for c in counts):
        for ax, _ in panels:
            ax.text(0.5, 0.5, "no data", transform=ax.transAxes, ha="center", va="center", color=REFERENCE)
        _outer(fig, panels, d.xlabel, f"Share of {d.share_of}")
        _title(fig, panels, d.title, d.scope)
        return fig
    lo, hi, width, nbins = _bins(d, counts)
    edges = lo - 0.5 + width * np.arange(nbins + 1)
    peak = 0.0  # the tallest bin of every panel: the panels share their y axis
    for ax, group in panels:
        for r, color in zip(group, palette(len(group)), strict=True):
            i = index[id(r)]
            mean, se = d.means[i]
            label = f"{r.name}: mean {fmt_pm(mean, z * se if _isnum(se) else None, unit=d.unit)}"
            if d.extra and d.extra[i]:
                label += f" {d.extra[i]}"
            c = counts[i]
            if not c.size:
                ax.plot([], [], color=color, label=f"{r.name}: no data")
                continue
            padded = np.zeros(lo + nbins * width, dtype=np.int64)
            take = min(c.size, padded.size)
            padded[:take] = c[:take]
            share = 100.0 * padded[lo:].reshape(nbins, width).sum(axis=1) / c.sum()
            ax.stairs(share, edges, color=color, lw=1.8, label=label, zorder=3)
            peak = max(peak, float(share.max()))
            if _isnum(mean) and float(mean) <= edges[-1]:
                ax.axvline(float(mean), color=color, ls=":", lw=1.2, zorder=2)
        ax.set_xlim(edges[0], edges[-1])
        ax.xaxis.set_major_locator(MaxNLocator(integer=True))
        ax.yaxis.set_major_formatter(PercentFormatter(100.0, decimals=None))
    for ax, _ in panels:
        # once every panel is drawn: a limit set per panel froze the shared axis at the panels drawn so far,
        # and cut the peaks of the later ones off
        ax.set_ylim(0, 1.05 * peak if peak > 0 else 1.0)
    share = f"Share of {d.share_of}" + (f" in each {width}-{d.unit.removesuffix('s')} bin" if width > 1 else "")
    _outer(fig, panels, f"{d.xlabel} (axis ends at the 99.5th percentile, {hi:,})", share)
    _title(fig, panels, d.title, d.scope)
    if len(panels) == 1:
        legend(panels[0][0], loc="upper right")
    return fig


DIST_NOTE = "Dotted lines: means; legend: mean ± 95% confidence half-width."


def _policy_figure(runs: Sequence[_Prepared]) -> Figure:
    fig, panels = _panels(runs)
    names = list(dict.fromkeys(n for r in runs for n in r.policies.index))
    pos = {n: i for i, n in enumerate(names)}
    for ax, group in panels:
        for i, (r, color) in enumerate(zip(group, palette(len(group)), strict=True)):
            x = np.array([pos[n] for n in r.policies.index], dtype=float) + dodge(i, len(group))
            _rate_points(ax, x, r.policies, color, r.name)
        _fair_share_lines(ax, [r.players for r in group])
        ticks = []
        for n in names:
            seats = {int(r.policies.loc[n, "seats"]) for r in group if n in r.policies.index}
            k = seats.pop() if len(seats) == 1 else None
            ticks.append(f"{plain(n)}\n({k} seat{'' if k == 1 else 's'})" if k else plain(n))
        _rate_axis(ax, np.arange(len(names)), ticks)
    return _finish_panels(fig, panels, runs, "Policy (seats it holds)", "Win rate per seat (% of rounds)",
                          "Win rate per seat by policy")


POLICY_NOTE = ("Per-seat share: a policy's wins / (rounds × seats it holds). Error bars: 95% Wilson "
               "confidence interval; dashed: the fair share 1/players.")
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


# ---- paired effects vs the first arm ---------------------------------------------------------------

#: Paired metrics of the rule-effects chart: (key, panel title, axis label, scale).
EFFECT_METRICS = (
    ("turns", "Round length", "Change in mean turns per round", 1.0),
    ("first_player_edge", "First player's edge", "Change (percentage points)", 100.0),
)
#: The :func:`unosim.analysis.paired.paired_difference` metric behind each key (the 1/players fair share of the
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


def _effects_figure(effects: pd.DataFrame) -> Figure:
    """One row per arm, one panel per metric: the paired difference and its 95% interval on a linear
    axis that includes zero (one series a panel: the arms are named on the y axis)."""
    arms = list(dict.fromkeys(effects["label"]))
    fig, axes = new_panels(len(EFFECT_METRICS), size=(FIGSIZE[0] + 2.0, max(3.0, 1.6 + 0.38 * len(arms))),
                           sharey=True)
    y = np.arange(len(arms))[::-1]
    for ax, (key, what, xlabel, scale) in zip(axes, EFFECT_METRICS, strict=True):
        sub = effects[effects["metric"] == key].set_index("label").loc[arms]
        d, lo, hi = (scale * sub[c].to_numpy(float) for c in ("diff", "ci_lo", "ci_hi"))
        ax.errorbar(d, y, xerr=error_arms(d, lo, hi), fmt="o", ms=5,
                    capsize=4, elinewidth=1.6, color=PALETTE[0], label="paired difference", zorder=3)
        ax.axvline(0.0, color=REFERENCE, lw=1.0, ls="--", zorder=1, label="no effect")
        _include_zero(ax, "x", np.concatenate([lo, hi, d]))
        ax.set_xlabel(xlabel)
        ax.set_title(what, loc="left", fontsize=10)
        ax.set_ylim(-0.6, len(arms) - 0.4)
        ax.grid(axis="x", color="#d9d9d9", lw=0.6)
        ax.grid(axis="y", visible=False)
    axes[0].set_yticks(y, [plain(a) for a in arms])
    bases = list(dict.fromkeys(effects["baseline"]))
    versus = plain(bases[0]) if len(bases) == 1 else "the first run with as many players"
    figure_title(fig, "Effect of each arm", f"compared with {versus}")
    return fig


EFFECTS_NOTE = ("Points: mean paired difference (arm minus baseline) on rounds with the same game index; bars: "
                "95% confidence interval; dashed: no effect.")


def _include_zero(ax: Axes, axis: str, values: np.ndarray, pad: float = 0.08) -> None:
    """Linear limits of ``axis`` that hold every finite value and zero, with a margin."""
    v = values[np.isfinite(values)]
    lo, hi = min(0.0, float(v.min()) if v.size else 0.0), max(0.0, float(v.max()) if v.size else 0.0)
    span = (hi - lo) or 1.0
    limits = (lo - pad * span, hi + pad * span)
    (ax.set_xlim if axis == "x" else ax.set_ylim)(*limits)
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
                     "capped_matches": capped_count(rec, "round_cap")})
    return _by_series_then_players(pd.DataFrame(rows))


@dataclass
class _Sweep:
    """A chart against the number of players: the column of values, of its interval bounds, the axis
    label, the title, and whether the value is an effect (a dashed zero line) or a level."""

    value: str
    lo: str
    hi: str
    ylabel: str
    title: str
    scale: float = 1.0
    zero_line: str | None = None


def _players_figure(frame: pd.DataFrame, s: _Sweep) -> Figure:
    """Lines against the number of players, one per series (small multiples beyond six), with 95%
    error bars at the true player counts and a y axis that includes zero."""
    groups = [_Series(name) for name in dict.fromkeys(frame["series"])]
    fig, panels = _panels(groups)
    counts = sorted(set(frame["players"]))
    for ax, group in panels:
        for g, color in zip(group, palette(len(group)), strict=True):
            sub = frame[frame["series"] == g.label]
            v = s.scale * sub[s.value].to_numpy(float)
            err = error_arms(v, s.scale * sub[s.lo].to_numpy(float), s.scale * sub[s.hi].to_numpy(float))
            ax.errorbar(sub["players"].to_numpy(float), v, yerr=err, fmt="-o", ms=4.5, lw=1.6, capsize=3.5,
                        elinewidth=1.4, color=color, label=g.name, zorder=3)
        if s.zero_line:
            ax.axhline(0.0, color=REFERENCE, lw=1.0, ls="--", label=s.zero_line, zorder=1)
        values = s.scale * frame[[s.value, s.lo, s.hi]].to_numpy(float).ravel()
        if s.zero_line:  # an effect: zero in view, with room on both sides
            _include_zero(ax, "y", values, pad=0.05)
        else:  # a level: the axis starts at zero
            ax.set_ylim(0, 1.08 * max(float(np.nanmax(values)), 1e-9))
        ax.set_xticks(counts)
    _outer(fig, panels, "Number of players", s.ylabel)
    _title(fig, panels, s.title, f"{counts[0]}–{counts[-1]} players")
    if len(panels) == 1 and (len(groups) > 1 or s.zero_line):
        legend(panels[0][0])
    return fig


@dataclass
class _Series:
    """A line of a sweep chart (the runs that differ only by the number of players)."""

    label: str

    @property
    def name(self) -> str:
        return plain(self.label)


SWEEP_NOTE = "Error bars: 95% confidence interval."
EDGE_TEXT = "First player's edge (percentage points)"


def _sweep_charts(runs: Sequence[_Prepared]) -> list[Chart]:
    frame = _players_frame(runs)
    items = [(r.meta, r.games) for r in runs]
    edge = _Sweep("first_player_edge", "edge_ci_lo", "edge_ci_hi", EDGE_TEXT,
                  "First player's edge by number of players", 100.0, "no edge (fair share)")
    turns = _Sweep("mean_turns", "turns_ci_lo", "turns_ci_hi", "Mean turns per round",
                   "Round length by number of players")
    return [
        Chart("first_player_edge_by_players.png", "First player's edge by number of players",
              SWEEP_NOTE + " First player's edge: seat 0's win rate minus the fair share 1/players.", items,
              "rounds", lambda: _players_figure(frame, edge)),
        Chart("turns_by_players.png", "Round length by number of players", SWEEP_NOTE, items, "rounds",
              lambda: _players_figure(frame, turns)),
    ]


def _match_sweep_charts(runs: Sequence[Run]) -> list[Chart]:
    frame = _match_frame(runs)
    items = [(m, len(rec)) for _, rec, m in runs]
    rounds = _Sweep("mean_rounds", "rounds_ci_lo", "rounds_ci_hi", "Mean rounds per match",
                    "Match length by number of players")
    edge = _Sweep("first_player_match_edge", "edge_ci_lo", "edge_ci_hi",
                  "First player's match edge (percentage points)",
                  "First player's match edge by number of players", 100.0, "no edge (fair share)")
    return [
        Chart("rounds_per_match_by_players.png", "Match length by number of players", SWEEP_NOTE, items,
              "matches", lambda: _players_figure(frame, rounds)),
        Chart("match_win_by_players.png", "First player's match edge by number of players",
              SWEEP_NOTE + " Match edge: seat 0's match win rate minus the fair share 1/players.", items,
              "matches", lambda: _players_figure(frame, edge)),
    ]
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
                  seats=seat_table(rec, meta, LEVEL), policies=policy_table(rec, meta, LEVEL))
        for label, rec, meta in runs
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


def _round_sections(runs: Sequence[_Prepared], figures: Collection[str]) -> list[Section]:
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


def _round_charts(prepared: Sequence[_Prepared]) -> list[Chart]:
    scope = _scope(prepared)
    items = [(r.meta, r.games) for r in prepared]
    turns = [_int_values(r.records["turns"].to_numpy()) for r in prepared]
    won_turns = [_int_values(r.records["turns"].to_numpy()[r.records["winner"].to_numpy() >= 0])
                 for r in prepared]
    capped = [int(r.summary["capped_games"]) for r in prepared]
    length = _Dist(turns, [(r.summary["mean_turns"], r.summary["se_turns"]) for r in prepared], "turns",
                   "Turns per round", "Round length", scope,
                   extra=[f"({_share_text(c, r.games)} capped)" if c else "" for c, r in zip(capped, prepared,
                                                                                              strict=True)],
                   clip_data=won_turns)
    points = _Dist([_int_values(r.records["winner_points"].to_numpy()[r.records["winner"].to_numpy() >= 0])
                    for r in prepared],
                   [(r.summary["mean_winner_points"], r.summary["se_winner_points"]) for r in prepared], "points",
                   "Points scored by the round winner", "Points scored by the round winner", scope)
    charts = [Chart("seat_win_rate.png", "Win rate by seat", _seat_note(prepared), items, "rounds",
                    lambda: _seat_figure(prepared)),
              Chart("game_length.png", "Distribution of round length", DIST_NOTE, items, "rounds",
                    lambda: _dist_figure(prepared, length)),
              Chart("winner_points.png", "Points scored by the round winner", DIST_NOTE, items, "rounds",
                    lambda: _dist_figure(prepared, points))]
    if any(len(r.policies) > 1 for r in prepared):
        charts.append(Chart("policy_win_rate.png", "Win rate per seat by policy", POLICY_NOTE, items, "rounds",
                            lambda: _policy_figure(prepared)))
    return charts


def _effects_charts(prepared: Sequence[_Prepared], effects: pd.DataFrame) -> list[Chart]:
    shown = set(effects["label"]) | set(effects["baseline"])
    items = [(r.meta, r.games) for r in prepared if r.label in shown]
    return [Chart("rule_effects.png", "Paired rule effects", EFFECTS_NOTE, items, "rounds",
                  lambda: _effects_figure(effects))]


#: The chart a page opens with, in order of preference, when the caller names none.
ANSWER_CHARTS = ("rule_effects.png", "first_player_edge_by_players.png", "match_win_by_players.png",
                 "match_win_rate_by_policy.png", "match_win_rate_by_team.png", "seat_win_rate.png")


def _answer_chart(charts: Sequence[Chart], headline: str | None) -> Chart | None:
    by_name = {c.name: c for c in charts}
    for name in (headline, *ANSWER_CHARTS):
        if name in by_name:
            return by_name[name]
    return charts[0] if charts else None


def _split(runs: Sequence[Run]) -> tuple[list[Run], list[_Prepared], list[Run], dict[str, pd.DataFrame]]:
    runs = _unique_labels(runs)
    match_runs = [r for r in runs if _is_match(r[2])]
    prepared = _prepare([r for r in runs if not _is_match(r[2])])
    return runs, prepared, match_runs, _tables(prepared, match_runs)


def _charts_of(prepared: Sequence[_Prepared], match_runs: Sequence[Run], tabs: Mapping[str, pd.DataFrame]
               ) -> list[Chart]:
    charts: list[Chart] = []
    if prepared:
        charts += _round_charts(prepared)
        if "effects" in tabs:
            charts += _effects_charts(prepared, tabs["effects"])
        if "players" in tabs:
            charts += _sweep_charts(prepared)
    if match_runs and _is_sweep([m for _, _, m in match_runs]):
        charts += _match_sweep_charts(match_runs)
    return charts


def report_charts(runs: Sequence[Run], match_report: bool = False) -> list[Chart]:
    """The charts :func:`make_report` (or, with ``match_report``, :func:`make_match_report`) draws for
    ``runs``, not yet drawn: each :class:`Chart` has a ``name``, a page ``caption`` and ``draw()``."""
    if not runs:
        raise ChartError("no runs to chart")
    if match_report:
        return _match_charts(_prepare_matches(runs))
    _, prepared, match_runs, tabs = _split(runs)
    return _charts_of(prepared, match_runs, tabs)


def write_chart(runs: Sequence[Run], name: str, path: Path | str, *, width: float | None = None,
                height: float | None = None, dpi: int = DPI, caption: bool = False,
                match_report: bool = False) -> Path:
    """Write one chart of the report of ``runs`` to ``path`` (PNG, with an SVG twin).  ``name`` is a
    chart's file name with or without ``.png`` (e.g. ``rule_effects``); ``width``/``height`` in
    inches; ``caption`` draws the caption into the image.  Returns the PNG path."""
    with chart_options(width, height, dpi, caption), chart_style():
        charts = report_charts(runs, match_report)
        want = name if name.endswith(".png") else f"{name}.png"
        chart = next((c for c in charts if c.name == want), None)
        if chart is None:
            names = ", ".join(c.name.removesuffix(".png") for c in charts)
            raise ChartError(f"no chart {name!r} for these runs; accepted: {names}")
        out = Path(path)
        if out.suffix.lower() != ".png":
            out = out / chart.name if out.is_dir() or not out.suffix else out.with_suffix(".png")
        out.parent.mkdir(parents=True, exist_ok=True)
        return save_figure(chart.draw(), out, chart.caption)


def _answer_lines(runs: Sequence[Run], lead: Sequence[str], effects: pd.DataFrame | None) -> list[str]:
    """The sentences a page opens with: the runs' own answer (``meta["answer_sentences"]``, written by
    ``compare`` and ``sweep``), else the caller's ``lead``, else one line per paired effect."""
    for _, _, meta in runs:
        said = meta.get("answer_sentences")
        if said:
            return [str(s) for s in said]
    if lead:
        return list(lead)
    return _effect_sentences(effects) if effects is not None else []


def _effect_sentences(effects: pd.DataFrame) -> list[str]:
    z = z_value(LEVEL)
    out = []
    for arm in dict.fromkeys(effects["label"]):
        sub = effects[effects["label"] == arm].set_index("metric")
        t, e = sub.loc["turns"], sub.loc["first_player_edge"]
        turns = fmt_pm(t["diff"], z * t["se"] if _isnum(t["se"]) else None, unit="turns")
        edge = fmt_pm(100 * e["diff"], 100 * z * e["se"] if _isnum(e["se"]) else None, unit="percentage points")
        out.append(f"**{plain(arm)}** compared with {plain(t['baseline'])} ({int(t['players'])} players): "
                   f"mean round length {_signed(turns)}, first player's edge {_signed(edge)} (95% intervals).")
    return out


def _signed(text: str) -> str:
    return text if text.startswith(("-", "n/a")) else f"+{text}"


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
    self-contained ``report.html``.  The pages open with the answer (the runs'
    ``meta["answer_sentences"]``, else ``lead``, else one sentence per paired effect) and the answer
    chart (``headline``, else the paired effects, else the first player's edge by players).
    Returns ``{file name: path}`` for each file written.
    """
    if not runs:
        raise ValueError("make_report needs at least one run")
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    runs, prepared, match_runs, tabs = _split(runs)
    charts = _charts_of(prepared, match_runs, tabs)
    written: dict[str, Path] = {}
    with chart_style():
        for c in charts:
            written[c.name] = c.save(out)
            written[c.name.removesuffix(".png") + ".svg"] = out / (c.name.removesuffix(".png") + ".svg")
    answer = _answer_chart(charts, headline)
    sections: list[Section] = []
    if prepared:
        sections += _round_sections(prepared, {c.name for c in charts})
        if "effects" in tabs:
            sections.append(_effects_section(tabs["effects"]))
        if "players" in tabs:
            sections.append(_players_section(tabs["players"]))
    if match_runs:
        sections.append(_match_section(tabs["matches"]))
    sections.append(Section("Charts", figures=[c.page_figure() for c in charts if c is not answer]))
    sections.append(_reproduce_section(runs))

    for key, frame in tabs.items():
        name = "summary.csv" if key == "summary" else f"{key}.csv"
        frame.to_csv(out / name, index=False)
        written[name] = out / name
    scope = _scope(prepared) if prepared else f"{len(match_runs)} match runs"
    intro = [f"{scope}. Every value is *estimate ± 1.96 × standard error* (a 95% confidence "
             "interval)." + (" Win rates count every round, including rounds stopped at the turn cap."
                             if prepared else "")]
    page = Page(title, intro, sections, lead=_answer_lines(runs, lead, tabs.get("effects")),
                figure=answer.page_figure() if answer else None)
    written.update(write_pages(page, out))
    return written
# ---- match mode -----------------------------------------------------------------------------------
#
# :func:`make_match_report` takes match-mode runs ``(label, records, meta)`` (records of
# :func:`unosim.running.match.simulate_matches`) and charts the match win rate by policy, or by team and by
# team composition in partners mode, and the number of rounds per match.


@dataclass
class _MatchRun:
    """One match-mode run and its summary (:func:`unosim.running.match.summarize_matches`)."""

    label: str
    records: pd.DataFrame
    meta: Mapping[str, Any]
    summary: dict[str, Any]

    @property
    def games(self) -> int:
        return len(self.records)

    @property
    def name(self) -> str:
        return plain(self.label)

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



@dataclass
class _MatchRate:
    """A match rate chart: rates per category (one table per run), the fair shares, labels, note."""

    tables: Sequence[pd.DataFrame]
    fair: Sequence[int]
    xlabel: str
    ylabel: str
    title: str


def _match_rate_figure(runs: Sequence[_MatchRun], m: _MatchRate) -> Figure:
    """Rates with 95% error bars per category (union over runs), dodged by run within a category."""
    fig, panels = _panels(runs)
    table = {id(r): t for r, t in zip(runs, m.tables, strict=True)}
    fair = {id(r): k for r, k in zip(runs, m.fair, strict=True)}
    cats = list(dict.fromkeys(k for t in m.tables for k in t.index))
    pos = {k: i for i, k in enumerate(cats)}
    for ax, group in panels:
        for i, (r, color) in enumerate(zip(group, palette(len(group)), strict=True)):
            t = table[id(r)]
            _rate_points(ax, np.array([pos[k] for k in t.index], dtype=float) + dodge(i, len(group)), t, color, r.name)
        _fair_share_lines(ax, [fair[id(r)] for r in group])
        ax.set_xticks(np.arange(len(cats)), [plain(c) for c in cats], fontsize=9 if len(cats) <= 4 else 7)
        ax.set_xlim(-0.6, len(cats) - 0.4)
        ax.margins(y=0.15)
        ax.yaxis.set_major_formatter(PercentFormatter(1.0, decimals=None))
    _outer(fig, panels, m.xlabel, m.ylabel)
    _title(fig, panels, m.title, _match_scope(runs))
    if len(panels) == 1:
        legend(panels[0][0])
    return fig


def _prepare_matches(runs: Sequence[Run]) -> list[_MatchRun]:
    bad = [str(label) for label, _, meta in runs if meta.get("mode") != "match"]
    if bad:
        raise ValueError(f"run {bad[0]!r} is not a match-mode run; accepted: runs of --mode match")
    return [_MatchRun(str(label), rec, meta, summarize_matches(rec, dict(meta))) for label, rec, meta in runs]


def _match_charts(runs: Sequence[_MatchRun]) -> list[Chart]:
    """Every match chart that applies to ``runs``."""
    wilson = "Error bars: 95% Wilson confidence interval; dashed: the fair share."
    capped = (" Matches stopped at max_rounds count as a loss for everyone."
              if any(int(r.summary["capped_matches"]) for r in runs) else "")
    items = [(r.meta, len(r.records)) for r in runs]
    charts: list[Chart] = []
    solo = [r for r in runs if not r.partners]
    if solo:
        m = _MatchRate([_policy_frame(r) for r in solo], [int(r.summary["players"]) for r in solo], "Policy",
                       "Match win rate per seat (% of matches)", "Match win rate per seat by policy")
        charts.append(Chart("match_win_rate_by_policy.png", "Match win rate per seat by policy",
                            "Per-seat share: a policy's match wins / (matches × seats it holds). " + wilson + capped,
                            items, "matches", lambda: _match_rate_figure(solo, m)))
    teams = [r for r in runs if r.partners]
    if teams:
        t = _MatchRate([_team_frame(r) for r in teams], [int(r.summary["teams"]) for r in teams],
                       "Team (seats i and i + players/2 are partners)", "Match win rate (% of matches)",
                       "Match win rate by team")
        charts.append(Chart("match_win_rate_by_team.png", "Match win rate by team", wilson + capped, items,
                            "matches", lambda: _match_rate_figure(teams, t)))
    mixed = [r for r in teams if r.mixed]
    if mixed:
        u = _MatchRate([_line_up_frame(r) for r in mixed], [int(r.summary["teams"]) for r in mixed],
                       "Team composition (and its opponents)", "Match win rate per team (% of matches)",
                       "Match win rate by team composition")
        charts.append(Chart("match_win_rate_by_line_up.png", "Match win rate by team composition",
                            "Grouped by the policies on each team, whatever the seats; (xk): per-team share of k "
                            "such teams. " + wilson + capped, items, "matches", lambda: _match_rate_figure(mixed, u)))
    rounds = _Dist([_int_values(r.records["rounds"].to_numpy()) for r in runs],
                   [(r.summary["mean_rounds"], r.summary["se_rounds"]) for r in runs], "rounds", "Rounds per match",
                   "Rounds per match", _match_scope(runs),
                   extra=[f"({_share_text(int(r.summary['capped_matches']), int(r.summary['games']))} capped)"
                          if int(r.summary["capped_matches"]) else "" for r in runs], share_of="matches")
    charts.append(Chart("rounds_per_match.png", "Distribution of rounds per match", DIST_NOTE, items, "matches",
                        lambda: _dist_figure(runs, rounds)))
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


def _match_page(runs: Sequence[_MatchRun], title: str, charts: Sequence[Chart]) -> Page:
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
    answer = _answer_chart(charts, None)
    sections.append(Section("Charts", figures=[c.page_figure() for c in charts if c is not answer]))
    sections.append(Section("Reproduce", code=[f"# {r.label}\n{reproduce_command(r.meta)}" for r in runs]))
    lead = _answer_lines([(r.label, r.records, r.meta) for r in runs], (), None)
    return Page(title, intro, sections, lead=lead, figure=answer.page_figure() if answer else None)


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
    prepared = _prepare_matches(runs)
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    charts = _match_charts(prepared)
    written: dict[str, Path] = {}
    with chart_style():
        for c in charts:
            written[c.name] = c.save(out)
    written.update(write_pages(_match_page(prepared, title, charts), out))
    return written


# ---- tournaments and tuning (unosim.lab.tournament, unosim.lab.tune) ----------------------------------------


def _tournament_scope(meta: Mapping[str, Any]) -> str:
    unit = "matches" if meta["mode"] == "match" else "rounds"
    return (f"{meta['players']} players, {len(meta['lineups'])} line-ups x {meta['games_per_lineup']:,} "
            f"{unit}, {meta['rules']}")


def _policy_ticks(ax: Axes, x: np.ndarray, table: pd.DataFrame) -> None:
    """Policy names under the points; slanted (anchored at the tick) when there are many."""
    slant = len(table) > 4
    ax.set_xticks(x, [str(n) for n in table.index], rotation=20 if slant else 0,
                  ha="right" if slant else "center", rotation_mode="anchor")


TOURNAMENT_NOTES = {
    "tournament_win_rate.png": ("Win rate per seat", "Per-seat share over every line-up; error bars: 95% interval "
                                "(deals as clusters); dashed: the fair share."),
    "tournament_rating.png": ("Rating", "Winner first, the rest tied; 400 points = 10:1 odds. Error bars: 95% "
                              "bootstrap interval over deals; dashed: the field mean."),
}


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
    ax.axhline(1.0 / p, ls="--", lw=1.0, color=REFERENCE, label=f"fair share (1/{p})", zorder=1)
    _policy_ticks(ax, x, table)
    ax.set_xlim(-0.6, len(table) - 0.4)
    ax.margins(y=0.15)
    ax.yaxis.set_major_formatter(PercentFormatter(1.0, decimals=None))
    ax.set_ylabel("Win rate per seat")
    set_title(ax, "Tournament win rate per seat", _tournament_scope(meta))
    legend(ax)
    return save_figure(fig, path, _tournament_caption(path.name, meta))


def _tournament_caption(name: str, meta: Mapping[str, Any]) -> str:
    return f"{TOURNAMENT_NOTES[name][1]} {_tournament_scope(meta)}."


def _tournament_rating_chart(table: pd.DataFrame, meta: Mapping[str, Any], path: Path) -> Path:
    fig, ax = new_figure()
    x = np.arange(len(table), dtype=float)
    r = table["rating"].to_numpy(float)
    lo, hi = table["rating_lo"].to_numpy(float), table["rating_hi"].to_numpy(float)
    yerr = error_arms(r, lo, hi) if np.isfinite(lo).all() else None
    ax.errorbar(x, r, yerr=yerr, fmt="s", ms=5, capsize=4, elinewidth=1.6, capthick=1.6,
                color=OKABE_ITO[2], label="rating", zorder=3)
    ax.axhline(0.0, ls="--", lw=1.0, color=REFERENCE, label="field mean", zorder=1)
    _policy_ticks(ax, x, table)
    ax.set_xlim(-0.6, len(table) - 0.4)
    ax.margins(y=0.15)
    ax.set_ylabel("Rating (Elo scale)")
    set_title(ax, "Plackett-Luce rating", _tournament_scope(meta))
    legend(ax)
    return save_figure(fig, path, _tournament_caption(path.name, meta))


def _tournament_page(table: pd.DataFrame, meta: Mapping[str, Any], title: str) -> Page:
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
    charts = Section("Charts", figures=[PageFigure(name, what, _tournament_caption(name, meta))
                                        for name, (what, _) in TOURNAMENT_NOTES.items()])
    lineups = Section("Line-ups", [f"`{lu['dir']}`: {', '.join(lu['policies'])}" for lu in meta["lineups"]])
    return Page(title, intro, [results, charts, lineups])


def make_tournament_report(table: pd.DataFrame, meta: Mapping[str, Any], out_dir: Path | str,
                           title: str = "unosim tournament") -> dict[str, Path]:
    """Charts (PNG and SVG) and the pages of a tournament (:mod:`unosim.lab.tournament`): writes
    ``tournament_win_rate.png``, ``tournament_rating.png``, ``tournament.md`` and ``tournament.html`` into
    ``out_dir``; policies sorted by rating, best first."""
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    table = table.sort_values("rating", ascending=False)
    with chart_style():
        written = {"tournament_win_rate.png": _tournament_rate_chart(table, meta, out / "tournament_win_rate.png"),
                   "tournament_rating.png": _tournament_rating_chart(table, meta, out / "tournament_rating.png")}
    written.update(write_pages(_tournament_page(table, meta, title), out,
                               names=("tournament.md", "tournament.html")))
    return written


def make_tuning_chart(history: pd.DataFrame, meta: Mapping[str, Any], evaluation: Mapping[str, Any],
                      path: Path | str) -> Path:
    """Convergence of a tuning run (:mod:`unosim.lab.tune`): the candidates' win rates per generation
    (mean and best; all candidates of a generation on the same deals) with the out-of-sample win
    rates of the tuned and starting policies, and the search mean's parameters per generation."""
    with chart_style(), chart_options(caption=True):  # a chart on its own: its note goes in the image
        fig, (ax, bx) = new_panels(2, size=(FIGSIZE[0], 7.0), cols=1)
        x = history["games"].to_numpy(float)
        ax.plot(x, history["mean_rate"], "-o", ms=3, color=OKABE_ITO[0], label="generation mean")
        ax.plot(x, history["best_rate"], ":", marker=".", color=OKABE_ITO[1], label="generation best")
        end = x[-1] * 1.04 if len(x) else 1.0
        for k, (key, color) in enumerate((("tuned", OKABE_ITO[2]), ("start", OKABE_ITO[3]))):
            e = evaluation[key]
            ax.errorbar([end + k * 0.02 * end], [e["rate"]], yerr=error_arms(e["rate"], e["ci_lo"], e["ci_hi"]),
                        fmt="s", ms=5, capsize=4, color=color, label=f"{key}, out of sample (95% CI)", zorder=3)
        p = int(meta["players"])
        ax.axhline(1.0 / p, ls="--", lw=1.0, color=REFERENCE, label=f"fair share (1/{p})", zorder=1)
        ax.yaxis.set_major_formatter(PercentFormatter(1.0, decimals=None))
        ax.set_ylabel("Candidate win rate")
        set_title(ax, f"Tuning {meta['policy']} with CMA-ES",
                   f"{p} players vs {', '.join(dict.fromkeys(meta['against']))}, {meta['rules']}")
        legend(ax)
        params = list(meta["params"])[:MAX_SERIES]
        for prm, color in zip(params, palette(len(params)), strict=True):
            bx.plot(x, history[f"mean_{prm['name']}"], "-", color=color, label=plain(prm["name"]))
        bx.set_xlabel(f"Training rounds ({meta['popsize']} candidates x {meta['games_per_eval']:,} rounds "
                      "per generation)")
        bx.set_ylabel("Search mean")
        more = len(meta["params"]) - len(params)
        bx.set_title("Parameters of the search mean" + (f" (the first {len(params)}; {more} more in "
                     "history.csv)" if more > 0 else ""), loc="left")
        legend(bx)
        return save_figure(fig, Path(path), "All candidates of a generation play the same deals; each generation "
                           "plays fresh ones, so the curves also move with those deals' luck.")
