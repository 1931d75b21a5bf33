"""Charts a blog can paste, checked on the drawn figures (no simulation: synthetic records).

At most six series a panel, no colour twice in a panel, linear axes, zero in view for effects and at
the foot of levels and histograms, labels in plain words, no text touching other text, the caption
only on request, and ``write_chart`` at the size and resolution asked for.
"""

from __future__ import annotations

import itertools
from pathlib import Path

import matplotlib.image as mpimg
import numpy as np
import pytest
from matplotlib.colors import to_hex
from matplotlib.container import ErrorbarContainer
from matplotlib.figure import Figure
from matplotlib.patches import StepPatch
from test_report import make_meta, make_records

from unosim.reports.charts import (
    MAX_SERIES,
    PALETTE,
    REFERENCE,
    ChartError,
    chart_options,
    chart_style,
    error_arms,
    palette,
    plain,
    save_figure,
)
from unosim.reports.report import make_report, report_charts, write_chart

N = 4000
EFFECTS = {"rule_effects.png": "x", "first_player_edge_by_players.png": "y"}  # axis that must show zero
LEVELS = {"turns_by_players.png", "game_length.png", "winner_points.png"}  # axis starts at zero
RAW = ("seven_zero", "jump_in", "1/players", "Seat 0 win rate", "per turn", "per point", "Δ")


def sweep_runs() -> list:
    """2 to 10 players (nine runs): more than six series, so small multiples."""
    runs = []
    for n in range(2, 11):
        p = np.full(n, 1.0 / n)
        p[0] += 0.03
        p[1:] -= 0.03 / (n - 1)
        runs.append((f"{n} players", make_records(N, p, n), make_meta(["random"] * n, "official", 7, N)))
    return runs


def arm_runs(k: int) -> list:
    """``k`` arms of one player count with different rules (the first is the baseline)."""
    rules = ["official", "official+seven_zero", "official+stacking", "official+jump_in", "official+draw_to_match",
             "official+force_play", "official+no_bluff", "official+sevens", "official+zeros"][:k]
    return [(r, make_records(N, np.full(4, 0.25), 11 + i), make_meta(["random", "greedy"] * 2, r, 11 + i, N))
            for i, r in enumerate(rules)]


CASES = {"sweep": sweep_runs, "three arms": lambda: arm_runs(3), "eight arms": lambda: arm_runs(8)}


@pytest.fixture(scope="module", params=list(CASES))
def drawn(request) -> list[tuple[str, Figure]]:
    with chart_style():
        figures = [(c.name, c.draw()) for c in report_charts(CASES[request.param]())]
    for _, fig in figures:
        fig.canvas.draw()
    return figures


def _color(handle) -> str:
    if isinstance(handle, ErrorbarContainer):
        return to_hex(handle.lines[0].get_color())
    if isinstance(handle, StepPatch):
        return to_hex(handle.get_edgecolor())
    return to_hex(handle.get_color())


def _series(ax) -> list[tuple[str, str]]:
    """(label, colour) of every data series of ``ax`` (reference lines are grey and left out)."""
    return [(lb, c) for h, lb in zip(*ax.get_legend_handles_labels(), strict=True)
            if (c := _color(h)) != REFERENCE]


def _tick_labels(axis) -> list:
    """The tick labels drawn: those of ticks inside the view."""
    lo, hi = sorted(axis.get_view_interval())
    return [t.label1 for t in axis.get_major_ticks(len(axis.get_majorticklocs()))
            if lo <= t.get_loc() <= hi and t.get_visible() and t.label1.get_visible()]


def _texts(fig: Figure) -> list:
    """Every visible piece of text of the figure, and its legends."""
    out = [t for t in (fig._suptitle, fig._supxlabel, fig._supylabel, *fig.texts) if t is not None]
    for ax in fig.axes:
        if not ax.get_visible():
            continue
        out += [ax.title, ax._left_title, ax.xaxis.label, ax.yaxis.label]
        out += _tick_labels(ax.xaxis) + _tick_labels(ax.yaxis)
        if ax.get_legend():
            out.append(ax.get_legend())
    out += fig.legends
    unique = list({id(t): t for t in out}.values())
    return [t for t in unique if t.get_visible() and (not hasattr(t, "get_text") or t.get_text().strip())]


def test_small_multiples_of_a_distribution_cut_no_panel_off() -> None:
    """The histogram panels share their y axis: its top clears the tallest bin of every panel, not only of
    the panels drawn first (a limit set panel by panel froze the axis at the first panel's peak)."""
    runs = []
    for k, n in enumerate(range(2, 10)):  # eight runs: small multiples; the first has the flattest histogram
        rec = make_records(N, np.full(n, 1.0 / n), 30 + k)
        spread = 80.0 if k == 0 else 8.0
        rec["turns"] = (np.random.default_rng(k).gamma(3.0, spread / 3.0, size=N) + 20).astype(np.int32)
        runs.append((f"{n} players", rec, make_meta(["random"] * n, "official", 30 + k, N)))
    with chart_style():
        fig = next(c.draw() for c in report_charts(runs) if c.name == "game_length.png")
    panels = [ax for ax in fig.axes if ax.get_visible() and any(isinstance(p, StepPatch) for p in ax.patches)]
    assert len(panels) == 8
    for ax in panels:
        top = max(float(np.max(p.get_data().values)) for p in ax.patches if isinstance(p, StepPatch))
        assert top <= ax.get_ylim()[1], ax.get_title(loc="left")


def test_the_palette_is_six_distinct_colour_blind_safe_colours() -> None:
    assert len(PALETTE) == MAX_SERIES == 6 and len(set(PALETTE)) == 6
    assert REFERENCE not in PALETTE and "#F0E442" not in PALETTE  # yellow is too pale on white
    assert palette(3) == list(PALETTE[:3])
    with pytest.raises(ChartError, match="at most 6"):
        palette(7)


def test_labels_are_plain_words() -> None:
    assert plain("official+seven_zero") == "official + seven zero"
    assert plain("2p, official+jump_in") == "2p, official + jump in"


def test_at_most_six_series_a_panel_each_in_its_own_colour(drawn) -> None:
    for name, fig in drawn:
        for ax in (a for a in fig.axes if a.get_visible()):
            series = _series(ax)
            colors = [c for _, c in series]
            assert len(series) <= MAX_SERIES, name
            assert len(set(colors)) == len(colors), (name, series)
        for leg in fig.legends:
            assert len(leg.get_texts()) <= MAX_SERIES + 2, name


def test_axes_are_linear_with_zero_in_view(drawn) -> None:
    for name, fig in drawn:
        for ax in (a for a in fig.axes if a.get_visible()):
            assert ax.get_xscale() == "linear" and ax.get_yscale() == "linear", name
            if name in EFFECTS:
                lo, hi = ax.get_xlim() if EFFECTS[name] == "x" else ax.get_ylim()
                assert lo < 0 < hi or lo == 0 or hi == 0, (name, lo, hi)
            if name in LEVELS:
                assert ax.get_ylim()[0] == 0, name


def test_labels_name_no_options_or_formulas(drawn) -> None:
    for name, fig in drawn:
        for t in _texts(fig):
            text = t.get_text() if hasattr(t, "get_text") else " ".join(x.get_text() for x in t.get_texts())
            for raw in RAW:
                assert raw not in text, (name, raw, text)


def test_no_text_touches_other_text(drawn) -> None:
    for name, fig in drawn:
        renderer = fig.canvas.get_renderer()
        boxes = [(t, t.get_window_extent(renderer)) for t in _texts(fig)]
        for (a, ba), (b, bb) in itertools.combinations(boxes, 2):
            overlap = min(ba.x1, bb.x1) - max(ba.x0, bb.x0), min(ba.y1, bb.y1) - max(ba.y0, bb.y0)
            assert min(overlap) <= 1.0, (name, a, b)


def test_legends_sit_under_the_axes_not_beside_them(drawn) -> None:
    for name, fig in drawn:
        renderer = fig.canvas.get_renderer()
        width = fig.bbox.width
        for leg in fig.legends:
            box = leg.get_window_extent(renderer)
            lowest = min(ax.get_window_extent(renderer).y0 for ax in fig.axes if ax.get_visible())
            assert box.y1 <= lowest + 1 and box.x0 >= 0 and box.x1 <= width, name


def test_sweep_lines_sit_at_the_true_player_counts() -> None:
    charts = {c.name: c for c in report_charts(sweep_runs())}
    fig = charts["first_player_edge_by_players.png"].draw()
    (ax,) = fig.axes
    (handle,) = [h for h in ax.containers if isinstance(h, ErrorbarContainer)]
    assert list(handle.lines[0].get_xdata()) == list(range(2, 11))  # no dodging


def test_many_runs_become_small_multiples() -> None:
    charts = {c.name: c for c in report_charts(sweep_runs())}
    for name in ("seat_win_rate.png", "game_length.png", "winner_points.png"):
        fig = charts[name].draw()
        assert len([a for a in fig.axes if a.get_visible()]) == 9, name
        assert "4 players" in {a.get_title("left") for a in fig.axes}


def test_caption_once_under_the_image_unless_asked(tmp_path: Path) -> None:
    runs = arm_runs(2)
    chart = {c.name: c for c in report_charts(runs)}["rule_effects.png"]
    assert "random, greedy, random, greedy" in chart.caption and f"{N:,} rounds" in chart.caption
    fig = chart.draw()
    assert [t for t in fig.texts if t is not fig._suptitle] == [] and fig._supxlabel is None  # no caption
    files = make_report(runs, tmp_path)
    md = files["summary.md"].read_text()
    assert md.count(chart.caption) == 1
    for asked in (False, True):
        fig = chart.draw()
        fig.savefig = fig.clear = lambda *a, **k: None  # keep the figure as it would be written
        with chart_options(caption=asked):
            save_figure(fig, tmp_path / "c.png", chart.caption)
        drawn = " ".join(t.get_text().replace("\n", " ") for t in fig.texts)
        assert (chart.caption[:60] in drawn) == asked
    assert write_chart(runs, "rule_effects", tmp_path / "captioned.png", caption=True).is_file()


def test_write_chart_at_the_size_and_resolution_asked(tmp_path: Path) -> None:
    runs = arm_runs(3)
    path = write_chart(runs, "rule_effects", tmp_path / "eff.png", width=6, height=3.5, dpi=100)
    h, w = mpimg.imread(path).shape[:2]
    assert (w, h) == (600, 350)
    assert path.with_suffix(".svg").is_file()
    path = write_chart(runs, "seat_win_rate.png", tmp_path / "folder", dpi=80)
    assert path == tmp_path / "folder" / "seat_win_rate.png" and mpimg.imread(path).shape[1] == 8 * 80
    with pytest.raises(ChartError, match="accepted: seat_win_rate, game_length"):
        write_chart(runs, "turns_by_players", tmp_path / "x.png")
    with pytest.raises(ChartError, match="dpi"):
        write_chart(runs, "rule_effects", tmp_path / "x.png", dpi=5)


def test_the_page_opens_with_the_answer_and_the_answer_chart(tmp_path: Path) -> None:
    runs = arm_runs(3)
    label, rec, meta = runs[1]
    said = ["Seven-zero makes rounds shorter.", "Stacking changes nothing you would notice."]
    runs[1] = (label, rec, {**meta, "answer_sentences": said})
    html = make_report(runs, tmp_path)["report.html"].read_text()
    body = html[html.index("<body>"):]
    first_h2 = body.index("<h2>")
    assert body.index(said[0]) < body.index(said[1]) < body.index("<figure>") < first_h2
    assert body.index('alt="Paired rule effects"') < first_h2
    assert '<div class="wide"><table' in body  # wide tables scroll inside their own box


def test_without_answer_sentences_the_page_opens_with_the_effects_in_words(tmp_path: Path) -> None:
    md = make_report(arm_runs(2), tmp_path)["summary.md"].read_text()
    first = md.split("\n\n")[1]
    assert first.startswith("**official + seven zero** compared with official (4 players): mean round length")
    assert "first player's edge" in first and "percentage points" in first


@pytest.mark.parametrize("case", ["sweep", "three arms"])
def test_a_caption_drawn_into_the_image_sits_under_everything(case: str, tmp_path: Path) -> None:
    from unosim.reports.charts import _draw_caption

    runs = CASES[case]()
    with chart_style():
        for chart in report_charts(runs):
            fig = chart.draw()
            _draw_caption(fig, chart.caption)
            fig.canvas.draw()
            caption = fig.texts[-1]
            renderer = fig.canvas.get_renderer()
            top = caption.get_window_extent(renderer).y1
            lowest = min(t.get_window_extent(renderer).y0 for t in _texts(fig) if t is not caption)
            assert top < lowest, chart.name
            size = write_chart(runs, chart.name, tmp_path / chart.name, width=7, height=5, dpi=60, caption=True)
            assert mpimg.imread(size).shape[:2] == (300, 420), chart.name


def test_error_arms_are_never_negative():
    """An interval whose end passes its estimate by a rounding error (no win, every win) draws an arm of 0, where
    matplotlib would refuse the chart; a real arm is kept as it is."""
    arms = error_arms([-0.2, 0.5], [-0.2 + 1e-16, 0.3], [0.13, 0.5 - 1e-16])
    assert arms.shape == (2, 2) and (arms >= 0).all()
    assert arms[:, 0].tolist() == [0.0, pytest.approx(0.33)] and arms[:, 1].tolist() == [pytest.approx(0.2), 0.0]
    assert error_arms(0.25, 0.2, 0.3).shape == (2, 1)
    fig = Figure()
    fig.add_subplot().errorbar([0, 1], [-0.2, 0.5], yerr=error_arms([-0.2, 0.5], [-0.2 + 1e-16, 0.3], [0.13, 0.5]))
