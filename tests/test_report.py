"""Tests for unosim.analysis.stats and unosim.reports.report on synthetic records with known win probabilities."""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

import matplotlib.image as mpimg
import numpy as np
import pandas as pd
import pytest

from unosim.analysis.stats import mean_ci, policy_table, proportion_ci, seat_table, summarize, z_value
from unosim.reports.report import fmt_pm, make_report

N = 20_000
P_SEAT = np.array([0.30, 0.26, 0.24, 0.20])
CAP_FRAC = 0.01
SUMMARY_KEYS = {
    "games", "players", "rules", "policies", "seed", "mean_turns", "sd_turns", "se_turns",
    "seat_win_rate", "seat_win_rate_se", "policy_win_rate", "policy_win_rate_se",
    "mean_winner_points", "se_winner_points", "mean_cards_drawn", "capped_games",
}


def make_records(n: int, probs: np.ndarray, seed: int, cap_frac: float = CAP_FRAC) -> pd.DataFrame:
    """Engine-shaped records: winners drawn with ``probs``, a share ``cap_frac`` of capped rounds."""
    rng = np.random.default_rng(seed)
    players = len(probs)
    winner = rng.choice(players, size=n, p=probs).astype(np.int16)
    capped = rng.random(n) < cap_frac
    winner[capped] = -1
    turns = (rng.gamma(3.0, 12.0, size=n) + 5).astype(np.int32)
    turns[capped] = 500
    points = rng.gamma(2.5, 40.0, size=n).astype(np.int32)
    points[capped] = 0
    data: dict[str, Any] = {
        "game": np.arange(n, dtype=np.int64),
        "winner": winner,
        "turns": turns,
        "winner_points": points,
        "cards_drawn": rng.poisson(25, size=n).astype(np.int32),
        "end_reason": pd.Categorical(np.where(capped, "turn_cap", "win"), categories=["win", "turn_cap"]),
        "reshuffles": rng.poisson(1.0, size=n).astype(np.int16),
    }
    for s in range(players):
        data[f"hand_points_{s}"] = np.where(winner == s, 0, rng.integers(0, 120, size=n)).astype(np.int32)
    return pd.DataFrame(data)


def make_meta(policies: list[str], rules: str, seed: int, games: int) -> dict[str, Any]:
    return {"players": len(policies), "policies": policies, "rules": rules, "seed": seed, "games": games}


MIXED = ["random", "greedy", "random", "greedy"]


@pytest.fixture(scope="module")
def runs() -> list[tuple[str, pd.DataFrame, dict[str, Any]]]:
    return [
        ("mixed", make_records(N, P_SEAT, 12345), make_meta(MIXED, "official", 12345, N)),
        ("all random", make_records(N, np.full(4, 0.25), 54321),
         make_meta(["random"] * 4, "official+stacking", 54321, N)),
    ]


# ---- confidence intervals -------------------------------------------------------------------------


def test_z_value() -> None:
    assert z_value(0.95) == pytest.approx(1.959964, abs=1e-6)
    assert z_value(0.99) == pytest.approx(2.575829, abs=1e-6)
    with pytest.raises(ValueError):
        z_value(1.0)


def test_mean_ci_hand_computed() -> None:
    mean, se, lo, hi = mean_ci([1.0, 2.0, 3.0, 4.0])
    sd = math.sqrt(((1.5**2) * 2 + (0.5**2) * 2) / 3)
    assert mean == pytest.approx(2.5)
    assert se == pytest.approx(sd / 2.0)
    assert lo == pytest.approx(2.5 - 1.959964 * sd / 2.0, rel=1e-6)
    assert hi == pytest.approx(2.5 + 1.959964 * sd / 2.0, rel=1e-6)


def test_mean_ci_degenerate() -> None:
    assert all(math.isnan(v) for v in mean_ci([]))
    mean, se, lo, hi = mean_ci([7])
    assert mean == 7 and math.isnan(se) and math.isnan(lo) and math.isnan(hi)
    assert mean_ci([1.0, np.nan, 3.0])[0] == pytest.approx(2.0)


def test_wilson_hand_computed() -> None:
    # 30 successes in 100 trials: Wilson 95% interval (0.2189, 0.3958), textbook value.
    p, se, lo, hi = proportion_ci(30, 100)
    assert p == pytest.approx(0.3)
    assert se == pytest.approx(math.sqrt(0.3 * 0.7 / 100))
    assert lo == pytest.approx(0.2189, abs=1e-4)
    assert hi == pytest.approx(0.3958, abs=1e-4)
    z = 1.959963984540054
    centre = (0.3 + z * z / 200) / (1 + z * z / 100)
    half = z / (1 + z * z / 100) * math.sqrt(0.3 * 0.7 / 100 + z * z / 40_000)
    assert (lo, hi) == pytest.approx((centre - half, centre + half), rel=1e-12)


@pytest.mark.parametrize("k,n", [(1, 10), (5, 10), (50, 200), (999, 1000), (0, 7), (7, 7)])
def test_wilson_contains_p_and_shrinks_with_n(k: int, n: int) -> None:
    p, _, lo, hi = proportion_ci(k, n)
    assert lo <= p <= hi
    assert 0.0 <= lo <= hi <= 1.0
    _, _, lo10, hi10 = proportion_ci(10 * k, 10 * n)
    assert hi10 - lo10 < hi - lo


def test_wilson_edges_and_vectorised() -> None:
    _, _, lo, hi = proportion_ci(0, 50)
    assert lo == 0.0 and hi > 0.0
    _, _, lo, hi = proportion_ci(50, 50)
    assert hi == pytest.approx(1.0) and lo < 1.0
    assert all(math.isnan(v) for v in proportion_ci(0, 0))
    p, se, lo, hi = proportion_ci(np.array([0, 30, 0]), np.array([10, 100, 0]))
    assert isinstance(p, np.ndarray) and p.shape == (3,)
    assert lo[1] == pytest.approx(0.2189, abs=1e-4)
    assert np.isnan(p[2]) and np.isnan(hi[2])
    with pytest.raises(ValueError):
        proportion_ci(5, 3)


# ---- summarize / tables ---------------------------------------------------------------------------


def test_summarize_values(runs: list[tuple[str, pd.DataFrame, dict[str, Any]]]) -> None:
    _, rec, meta = runs[0]
    s = summarize(rec, meta)
    assert set(s) == SUMMARY_KEYS
    json.dumps(s, allow_nan=False)  # plain, strictly JSON-serialisable values
    capped = int((rec["winner"] == -1).sum())
    assert capped > 0 and s["capped_games"] == capped
    assert s["games"] == N and s["players"] == 4 and s["policies"] == MIXED
    assert s["rules"] == "official" and s["seed"] == 12345
    assert sum(s["seat_win_rate"]) == pytest.approx((N - capped) / N, abs=1e-12)
    wins = np.bincount(rec["winner"][rec["winner"] >= 0], minlength=4)
    assert s["seat_win_rate"] == pytest.approx(list(wins / N))
    rate = np.array(s["seat_win_rate"])
    assert s["seat_win_rate_se"] == pytest.approx(list(np.sqrt(rate * (1 - rate) / N)))
    # Known probabilities (scaled by the uncapped share) are recovered within 4 standard errors.
    expected = P_SEAT * (1 - CAP_FRAC)
    assert np.all(np.abs(rate - expected) < 4 * np.array(s["seat_win_rate_se"]))
    assert s["mean_turns"] == pytest.approx(rec["turns"].mean())
    assert s["sd_turns"] == pytest.approx(rec["turns"].std(ddof=1))
    assert s["se_turns"] == pytest.approx(rec["turns"].std(ddof=1) / math.sqrt(N))
    won = rec[rec["winner"] >= 0]
    assert s["mean_winner_points"] == pytest.approx(won["winner_points"].mean())
    assert s["se_winner_points"] == pytest.approx(won["winner_points"].std(ddof=1) / math.sqrt(len(won)))
    assert s["mean_cards_drawn"] == pytest.approx(rec["cards_drawn"].mean())


def test_policy_win_rate_is_per_seat_share(runs: list[tuple[str, pd.DataFrame, dict[str, Any]]]) -> None:
    _, rec, meta = runs[0]
    s = summarize(rec, meta)
    w = rec["winner"].to_numpy()
    random_wins = int(((w == 0) | (w == 2)).sum())
    greedy_wins = int(((w == 1) | (w == 3)).sum())
    assert s["policy_win_rate"] == pytest.approx({"random": random_wins / (2 * N),
                                                  "greedy": greedy_wins / (2 * N)})
    # se from the per-round indicator "a seat of this policy won", divided by the seat count
    P = random_wins / N
    assert s["policy_win_rate_se"]["random"] == pytest.approx(math.sqrt(P * (1 - P) / N) / 2)
    # four seats of one policy: per-seat share is a quarter of the uncapped share
    _, rec2, meta2 = runs[1]
    s2 = summarize(rec2, meta2)
    capped2 = int((rec2["winner"] < 0).sum())
    assert list(s2["policy_win_rate"]) == ["random"]
    assert s2["policy_win_rate"]["random"] == pytest.approx((N - capped2) / N / 4)
    assert s2["policy_win_rate"]["random"] == pytest.approx(0.25 * (1 - CAP_FRAC), abs=0.005)


def test_tables(runs: list[tuple[str, pd.DataFrame, dict[str, Any]]]) -> None:
    _, rec, meta = runs[0]
    st = seat_table(rec, meta)
    pt = policy_table(rec, meta)
    for t in (st, pt):
        assert {"rate", "se", "ci_lo", "ci_hi", "wins", "n"} <= set(t.columns)
        assert np.all(t["ci_lo"] <= t["rate"]) and np.all(t["rate"] <= t["ci_hi"])
    assert list(st.index) == [0, 1, 2, 3] and list(st["policy"]) == MIXED
    assert np.all(st["n"] == N)
    assert st["wins"].sum() == N - int((rec["winner"] < 0).sum())
    assert list(pt.index) == ["random", "greedy"]
    assert list(pt["n"]) == [2 * N, 2 * N] and list(pt["seats"]) == [2, 2]
    assert pt.loc["random", "wins"] == st.loc[[0, 2], "wins"].sum()


def test_meta_mismatch_raises(runs: list[tuple[str, pd.DataFrame, dict[str, Any]]]) -> None:
    _, rec, _ = runs[0]
    with pytest.raises(ValueError):
        summarize(rec, make_meta(["random"] * 3, "official", 1, N))


# ---- edge cases -----------------------------------------------------------------------------------


def _all_capped(n: int) -> pd.DataFrame:
    rec = make_records(max(n, 1), P_SEAT, 7, cap_frac=1.0)
    return rec.iloc[:n].reset_index(drop=True)


@pytest.mark.parametrize("n", [0, 1, 25])
def test_summarize_empty_and_all_capped(n: int) -> None:
    rec = _all_capped(n)
    s = summarize(rec, make_meta(MIXED, "official", 7, n))
    json.dumps(s, allow_nan=False)
    assert s["games"] == n and s["capped_games"] == n
    assert s["mean_winner_points"] is None and s["se_winner_points"] is None
    if n == 0:
        assert s["seat_win_rate"] == [None] * 4 and s["mean_turns"] is None
        assert s["policy_win_rate"] == {"random": None, "greedy": None}
    else:
        assert s["seat_win_rate"] == [0.0] * 4 and s["mean_turns"] == 500.0


def test_make_report_edge_cases(tmp_path: Path) -> None:
    runs = [
        ("empty", _all_capped(0), make_meta(MIXED, "official", 1, 0)),
        ("all capped", _all_capped(30), make_meta(MIXED, "official", 2, 30)),
        ("three players", make_records(500, np.array([0.5, 0.3, 0.2]), 3, cap_frac=0.0),
         make_meta(["greedy"] * 3, "official", 3, 500)),
    ]
    out = make_report(runs, tmp_path / "nested" / "out")
    for p in out.values():
        assert p.exists() and p.stat().st_size > 0
    csv = pd.read_csv(out["summary.csv"])
    assert list(csv["label"]) == ["empty", "all capped", "three players"]
    assert csv.loc[2, "capped_games"] == 0 and csv.loc[1, "capped_games"] == 30
    assert "n/a" in out["summary.md"].read_text()
    with pytest.raises(ValueError):
        make_report([], tmp_path)


# ---- make_report ----------------------------------------------------------------------------------


def test_make_report_files(runs: list[tuple[str, pd.DataFrame, dict[str, Any]]], tmp_path: Path) -> None:
    out = make_report(runs, tmp_path, title="Synthetic test")
    charts = {"seat_win_rate", "game_length", "winner_points", "policy_win_rate", "rule_effects"}
    expected = ({f"{c}.{ext}" for c in charts for ext in ("png", "svg")}
                | {"summary.csv", "seats.csv", "policies.csv", "effects.csv", "summary.md", "report.html"})
    assert set(out) == expected
    assert {p.name for p in tmp_path.iterdir()} == expected
    for name, path in out.items():
        assert path == tmp_path / name and path.stat().st_size > 0
        if name.endswith(".png"):
            img = mpimg.imread(path)
            assert img.ndim == 3 and img.shape[0] >= 200 * 3 and img.shape[1] >= 200 * 8  # >= 200 dpi
            assert path.with_suffix(".svg").read_text().lstrip().startswith("<?xml")
            assert img[..., :3].std() > 0.01  # not a blank canvas

    csv = pd.read_csv(out["summary.csv"])
    assert len(csv) == 2
    assert list(csv["label"]) == ["mixed", "all random"]
    for i, (_, rec, meta) in enumerate(runs):
        s = summarize(rec, meta)
        row = csv.iloc[i]
        assert row["rules"] == meta["rules"] and row["players"] == 4 and row["games"] == N
        assert row["policies"].split(",") == meta["policies"]
        assert row["seed"] == meta["seed"] and row["capped_games"] == s["capped_games"]
        assert row["mean_turns"] == pytest.approx(rec["turns"].mean())
        assert row["se_turns"] == pytest.approx(s["se_turns"])
        assert row["seat0_win_rate"] == pytest.approx(s["seat_win_rate"][0])
        assert row["seat0_win_rate_se"] == pytest.approx(s["seat_win_rate_se"][0])
        assert row["mean_winner_points"] == pytest.approx(s["mean_winner_points"])
        assert row["se_winner_points"] == pytest.approx(s["se_winner_points"])

    md = out["summary.md"].read_text()
    assert md.startswith("# Synthetic test")
    for name in ("seat_win_rate.png", "game_length.png", "winner_points.png", "policy_win_rate.png"):
        assert f"]({name})" in md
    assert "--seed 12345" in md and "--seed 54321" in md and "`official+stacking`" in md
    assert "--rules official+stacking --deck classic --players 4 --policies random,random,random,random" in md
    assert "--seating fixed" in md and "--games 20000" in md and "engine v" in md
    s0 = summarize(*runs[0][1:])
    seat0 = fmt_pm(s0["seat_win_rate"][0], 1.959964 * s0["seat_win_rate_se"][0], pct=True)
    assert seat0 in md and "±" in seat0


def test_no_policy_chart_for_single_policy_runs(
    runs: list[tuple[str, pd.DataFrame, dict[str, Any]]], tmp_path: Path
) -> None:
    out = make_report([runs[1]], tmp_path)
    assert "policy_win_rate.png" not in out
    assert not (tmp_path / "policy_win_rate.png").exists()
    assert "policy_win_rate.png" not in out["summary.md"].read_text()


def test_fmt_interval_never_prints_a_negative_zero() -> None:
    from unosim.fmt import fmt_interval

    assert fmt_interval(0.21, -0.001, 0.55) == "0.21 [0.00, 0.55]"
    assert fmt_interval(-0.2, -0.2, 0.133) == "-0.20 [-0.20, 0.13]"
    assert fmt_interval(38.2, 26.0, 50.4, "+.0f") == "+38 [+26, +50]"
    assert fmt_interval(-0.3, -12.0, 11.0, "+.0f") == "+0 [-12, +11]"


def test_fmt_pm() -> None:
    assert fmt_pm(44.4804, 0.0721) == "44.480 ± 0.072"
    assert fmt_pm(0.259561, 0.000859, pct=True) == "25.956% ± 0.086%"
    assert fmt_pm(99.48, 1.234, unit="points") == "99.5 ± 1.2 points"
    assert fmt_pm(None, 0.1) == "n/a"
    assert fmt_pm(float("nan"), 0.1) == "n/a"
    assert fmt_pm(3.0, None) == "3.00"
