"""The chart primitives every unosim chart uses: one palette, one figure maker, one saver, one legend.

Rules they enforce (charts a blog can paste):

* at most :data:`MAX_SERIES` series share one panel, each in its own colour of :data:`PALETTE`
  (colour-blind safe); more runs than that become small multiples, one panel per run;
* the caption goes under the image on the page; it is drawn into the image only when asked
  (:func:`chart_options` ``caption=True``, ``unosim plot --caption``);
* a legend with more than a few entries goes under the axes, never beside them;
* size and resolution come from :func:`chart_options` (``unosim plot --width/--height/--dpi``).

Figures are :class:`matplotlib.figure.Figure` objects on an Agg canvas, never pyplot, so nothing is
displayed and the caller's backend is left alone.
"""

from __future__ import annotations

import math
import re
import textwrap
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import matplotlib as mpl
import numpy as np
from matplotlib.axes import Axes
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure
from matplotlib.transforms import Bbox

from ..errors import UnosimError

__all__ = ["OKABE_ITO", "PALETTE", "MAX_SERIES", "STYLE", "DPI", "FIGSIZE", "REFERENCE", "ChartError",
           "ChartOptions", "chart_options", "palette", "plain", "new_figure", "new_panels", "save_figure", "legend",
           "set_title", "dodge", "error_arms", "panel_title", "figure_title"]

#: Okabe–Ito colour-blind-safe palette, ordered for contrast on white (yellow and black last).
OKABE_ITO = ("#0072B2", "#E69F00", "#009E73", "#D55E00", "#CC79A7", "#56B4E9", "#F0E442", "#000000")
#: Series per panel, at most; more runs are drawn as small multiples.
MAX_SERIES = 6
#: The series colours: the first six Okabe–Ito colours (yellow is too pale on white; black is kept off
#: data so the grey reference lines stay distinct).
PALETTE = OKABE_ITO[:MAX_SERIES]
#: Colour of reference lines (fair share, zero effect); never a series colour.
REFERENCE = "#555555"

FIGSIZE = (8.0, 4.5)
PANEL_COLS = 3
PANEL_SIZE = (3.4, 2.5)  # inches per panel of small multiples
DPI = 200  # publication resolution (PNG); every chart is also written as SVG
LEGEND_INSIDE = 3  # legends with more entries go under the axes

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
    "axes.prop_cycle": mpl.cycler(color=list(PALETTE)),
}


class ChartError(UnosimError):
    """A chart that cannot be drawn as asked (an unknown chart name, a size out of range ...)."""


@dataclass(frozen=True)
class ChartOptions:
    """How charts are written: size in inches (None: each chart's own), PNG resolution, and whether
    the caption is drawn into the image (by default it goes only under the image on the page)."""

    width: float | None = None
    height: float | None = None
    dpi: int = DPI
    caption: bool = False


def chart_style():
    """The project's chart style (:data:`STYLE`) for the charts drawn inside the block: ``with chart_style():``."""
    return mpl.rc_context(STYLE)


_DEFAULTS = ChartOptions()
_OPTIONS: ContextVar[ChartOptions] = ContextVar("unosim_chart_options", default=_DEFAULTS)


@contextmanager
def chart_options(width: float | None = None, height: float | None = None, dpi: int = DPI,
                  caption: bool = False) -> Iterator[ChartOptions]:
    """Charts made inside the block use these options (see :class:`ChartOptions`)."""
    for name, value, lo, hi in (("width", width, 2.0, 40.0), ("height", height, 1.5, 40.0)):
        if value is not None and not lo <= value <= hi:
            raise ChartError(f"chart {name} {value:g} inches is out of range; accepted: {lo:g} to {hi:g}")
    if not 50 <= dpi <= 1200:
        raise ChartError(f"dpi {dpi} is out of range; accepted: 50 to 1200")
    token = _OPTIONS.set(ChartOptions(width, height, dpi, caption))
    try:
        yield _OPTIONS.get()
    finally:
        _OPTIONS.reset(token)


def palette(n: int) -> list[str]:
    """``n`` distinct series colours; more than :data:`MAX_SERIES` in one panel is refused."""
    if n > MAX_SERIES:
        raise ChartError(f"{n} series in one panel; at most {MAX_SERIES}: draw small multiples")
    return list(PALETTE[:n])


def plain(text: Any) -> str:
    """A label in plain words: option names lose their underscores (``seven_zero`` -> ``seven zero``)
    and a ``+`` between rules gets spaces (``official + stacking``)."""
    return re.sub(r"\s*\+\s*", " + ", str(text).replace("_", " ")).strip()


def new_figure(size: tuple[float, float] | None = None) -> tuple[Figure, Axes]:
    """A constrained-layout figure with one axes, of ``size`` (default :data:`FIGSIZE`) unless
    :func:`chart_options` sets a width or height."""
    fig, (ax,) = new_panels(1, size)
    return fig, ax


def new_panels(panels: int, size: tuple[float, float] | None = None, sharex: bool = False,
               sharey: bool = False, cols: int = PANEL_COLS) -> tuple[Figure, list[Axes]]:
    """A constrained-layout figure with ``panels`` axes (small multiples in rows of ``cols``).

    The size is ``size`` (default :data:`FIGSIZE`, or :data:`PANEL_SIZE` per panel for small
    multiples) unless :func:`chart_options` sets a width or height."""
    ncols = max(1, min(panels, cols))
    nrows = math.ceil(panels / ncols)
    if size is None:
        size = FIGSIZE if panels == 1 else (max(FIGSIZE[0], PANEL_SIZE[0] * ncols), PANEL_SIZE[1] * nrows + 1.0)
    opts = _OPTIONS.get()
    fig = Figure(figsize=(opts.width or size[0], opts.height or size[1]), dpi=opts.dpi, layout="constrained")
    FigureCanvasAgg(fig)
    grid = fig.subplots(nrows, ncols, squeeze=False, sharex=sharex, sharey=sharey)
    axes = [ax for row in grid for ax in row]
    for ax in axes[panels:]:
        ax.set_visible(False)
    return fig, axes[:panels]


def save_figure(fig: Figure, path: Path, caption: str = "") -> Path:
    """Write ``path`` (PNG) and its SVG twin; returns the PNG path.  The ``caption`` is drawn under the
    chart only when :func:`chart_options` asks for it (otherwise it belongs under the image on the page)."""
    opts = _OPTIONS.get()
    box = _draw_caption(fig, caption) if opts.caption and caption else None
    path = Path(path)
    fig.savefig(path, dpi=opts.dpi, facecolor="white", bbox_inches=box)
    fig.savefig(path.with_suffix(".svg"), facecolor="white", bbox_inches=box)
    fig.clear()
    return path


def _draw_caption(fig: Figure, caption: str) -> Bbox:
    """Put the caption in a strip under the chart: the chart is laid out in the figure less the strip's
    height, the caption is drawn below it, and the returned box (inches) saves both at the full size,
    so the caption can touch nothing."""
    width, height = fig.get_figwidth(), fig.get_figheight()
    lines = textwrap.wrap(caption, max(40, int(width * 15)))
    size = 7.5
    strip = (len(lines) * size * 1.35 + 12) / 72
    fig.set_figheight(height - strip)
    fig.canvas.draw()  # lay the chart out in the smaller figure, then keep that layout
    fig.set_layout_engine("none")
    for leg in fig.legends:  # pin figure legends where the layout put them (they follow the figure's box)
        box = leg.get_window_extent().transformed(fig.transFigure.inverted())
        leg.set_loc("center")
        leg.set_bbox_to_anchor(box, transform=fig.transFigure)
    fig.text(0.01, -(5 / 72) / (height - strip), "\n".join(lines), ha="left", va="top", fontsize=size,
             color=REFERENCE)
    return Bbox.from_bounds(0, -strip, width, height)


def legend(ax: Axes, loc: str = "best") -> None:
    """A legend inside the axes for a few entries; more go in rows under the axes, never beside them."""
    handles, labels = ax.get_legend_handles_labels()
    if len(labels) <= LEGEND_INSIDE:
        if labels:
            ax.legend(handles, labels, loc=loc)
        return
    longest = max(len(lb) for lb in labels)
    ncols = 3 if longest <= 28 else 2 if longest <= 48 else 1
    ax.figure.legend(handles, labels, loc="outside lower center", ncols=min(ncols, len(labels)))


def _fits(fig: Figure, text: str) -> bool:
    """True if a bold 12-point title of ``text`` fits on one line of the figure (about 7.5 characters an inch)."""
    return len(text) <= fig.get_figwidth() * 7.5


def set_title(ax: Axes, what: str, scope: str) -> None:
    """Bold left-aligned title; the scope goes on a second line when the whole would not fit."""
    sep = " — " if _fits(ax.figure, f"{what} — {scope}") else "\n"
    ax.set_title(f"{what}{sep}{scope}", loc="left")


def figure_title(fig: Figure, what: str, scope: str) -> None:
    """The title of a figure of several panels (bold, left-aligned)."""
    sep = " — " if _fits(fig, f"{what} — {scope}") else "\n"
    fig.suptitle(f"{what}{sep}{scope}", x=0.01, ha="left", fontsize=12, fontweight="bold")


def panel_title(ax: Axes, text: str) -> None:
    """The small title naming one panel of small multiples."""
    ax.set_title(text, loc="left", fontsize=9.5, fontweight="bold")


def error_arms(mid, lo, hi) -> np.ndarray:
    """matplotlib's error-bar arms (2 x n: below, above) of the intervals [lo, hi] around ``mid``, never negative
    (at no win, or every win, an interval's end and its estimate differ only by rounding, and matplotlib refuses
    a negative arm)."""
    mid = np.atleast_1d(np.asarray(mid, float))
    return np.clip(np.vstack([mid - np.asarray(lo, float), np.asarray(hi, float) - mid]), 0.0, None)


def dodge(i: int, k: int, width: float = 0.6) -> float:
    """Offset of series ``i`` of ``k`` around a category (categories only: never on a numeric axis)."""
    step = min(0.18, width / max(k, 1))
    return (i - (k - 1) / 2.0) * step
