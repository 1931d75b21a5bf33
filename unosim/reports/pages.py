"""One report, two pages: a Markdown page and a self-contained HTML page from the same blocks.

A :class:`Page` is a title, the answer (``lead`` sentences and the answer ``figure``, which open the page),
an introduction and a list of :class:`Section`; a section holds paragraphs,
tables (pandas DataFrames of display strings) and figures (PNG files next to the page, with an SVG
twin).  :func:`write_pages` renders it as Markdown (``summary.md``, images linked) and as HTML
(``report.html``, PNGs embedded as base64 so the file can be mailed or posted on its own, SVGs
linked).  Inline markup in text is the small Markdown subset ``code``, **bold**, *italic*.  The HTML page
fits a 1280-pixel window: wide tables scroll inside their own box, images shrink to the column.
"""

from __future__ import annotations

import base64
import html
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

import pandas as pd

__all__ = ["PageFigure", "Section", "Page", "write_pages", "markdown_table"]

MD_NAME = "summary.md"
HTML_NAME = "report.html"

_CSS = """
*,*::before,*::after{box-sizing:border-box}
body{font-family:system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;max-width:1100px;margin:2em auto;
padding:0 1em;color:#222;line-height:1.45;overflow-wrap:anywhere}
h1{font-size:1.6em}h2{font-size:1.25em;margin-top:1.8em;border-bottom:1px solid #ddd}
.answer{font-size:1.08em}
.wide{max-width:100%;overflow-x:auto;margin:.6em 0 1.2em}
table{border-collapse:collapse;font-size:.88em;overflow-wrap:normal}
th,td{padding:.25em .6em;border-bottom:1px solid #e4e4e4;text-align:right;white-space:nowrap}
th:first-child,td:first-child{text-align:left}th{background:#f4f4f4}
figure{margin:1em 0 2em}figure img{display:block;max-width:100%;height:auto;border:1px solid #eee}
figcaption{font-size:.85em;color:#444;margin-top:.3em}code{background:#f4f4f4;padding:0 .2em}
pre{background:#f4f4f4;padding:.6em;overflow-x:auto;font-size:.85em;overflow-wrap:normal}
"""


@dataclass
class PageFigure:
    """A chart: ``png`` is the file name next to the page (its ``.svg`` twin is linked when present)."""

    png: str
    title: str
    caption: str


@dataclass
class Section:
    title: str
    paragraphs: list[str] = field(default_factory=list)
    tables: list[tuple[pd.DataFrame, int]] = field(default_factory=list)  # (display frame, left-aligned cols)
    figures: list[PageFigure] = field(default_factory=list)
    code: list[str] = field(default_factory=list)  # preformatted lines (e.g. reproduce commands)


@dataclass
class Page:
    """A report page: ``lead`` (the answer in sentences) and ``figure`` (the answer chart) open it,
    before the ``intro`` and the ``sections``."""

    title: str
    intro: list[str]
    sections: list[Section]
    lead: list[str] = field(default_factory=list)
    figure: PageFigure | None = None


# ---- Markdown -------------------------------------------------------------------------------------


def _md_cell(text: object) -> str:
    return str(text).replace("|", "\\|").replace("\n", " ")


def markdown_table(frame: pd.DataFrame, left: int = 1) -> list[str]:
    """Markdown table of a display frame; the first ``left`` columns left-aligned, the rest right."""
    header = [_md_cell(c) for c in frame.columns]
    align = ["---" if i < left else "---:" for i in range(len(header))]
    out = ["| " + " | ".join(header) + " |", "| " + " | ".join(align) + " |"]
    out += ["| " + " | ".join(_md_cell(v) for v in row) + " |" for row in frame.itertuples(index=False)]
    return out


def _md_figure(f: PageFigure) -> list[str]:
    return [f"![{f.title}]({f.png})", "", f"*{f.caption}*", ""]


def to_markdown(page: Page) -> str:
    lines = [f"# {page.title}", ""]
    for p in page.lead:
        lines += [p, ""]
    if page.figure:
        lines += _md_figure(page.figure)
    for p in page.intro:
        lines += [p, ""]
    for s in page.sections:
        lines += [f"## {s.title}", ""]
        for p in s.paragraphs:
            lines += [p, ""]
        for frame, left in s.tables:
            lines += [*markdown_table(frame, left), ""]
        for f in s.figures:
            lines += _md_figure(f)
        if s.code:
            lines += ["```", *s.code, "```", ""]
    return "\n".join(lines)


# ---- HTML -----------------------------------------------------------------------------------------

_CODE = re.compile(r"`([^`]+)`")
_BOLD = re.compile(r"\*\*([^*]+)\*\*")
_EM = re.compile(r"(?<![*\w])\*([^*]+)\*(?![*\w])")


def inline_html(text: str) -> str:
    """Escape ``text`` and turn ``code``, **bold** and *italic* into HTML."""
    out = html.escape(str(text), quote=False)
    out = _CODE.sub(r"<code>\1</code>", out)
    out = _BOLD.sub(r"<strong>\1</strong>", out)
    return _EM.sub(r"<em>\1</em>", out)


def _html_table(frame: pd.DataFrame) -> str:
    shown = frame.map(lambda v: inline_html(str(v))) if len(frame) else frame
    shown.columns = [inline_html(str(c)) for c in frame.columns]
    return '<div class="wide">' + shown.to_html(index=False, escape=False, border=0, na_rep="") + "</div>"


def _html_figure(f: PageFigure, out_dir: Path, embed: bool) -> str:
    png = out_dir / f.png
    src = f.png
    if embed and png.is_file():
        src = "data:image/png;base64," + base64.b64encode(png.read_bytes()).decode("ascii")
    svg = Path(f.png).with_suffix(".svg").name
    link = f' <a href="{html.escape(svg)}">SVG</a>' if (out_dir / svg).is_file() else ""
    return (f'<figure><img src="{src}" alt="{html.escape(f.title)}">'
            f"<figcaption><strong>{inline_html(f.title)}.</strong> {inline_html(f.caption)}{link}"
            "</figcaption></figure>")


def to_html(page: Page, out_dir: Path, embed: bool = True) -> str:
    parts = ["<!DOCTYPE html>", '<html lang="en"><head><meta charset="utf-8">',
             '<meta name="viewport" content="width=device-width, initial-scale=1">',
             f"<title>{html.escape(page.title)}</title>", f"<style>{_CSS}</style></head><body>",
             f"<h1>{inline_html(page.title)}</h1>"]
    parts += [f'<p class="answer">{inline_html(p)}</p>' for p in page.lead]
    if page.figure:
        parts.append(_html_figure(page.figure, out_dir, embed))
    parts += [f"<p>{inline_html(p)}</p>" for p in page.intro]
    for s in page.sections:
        parts.append(f"<h2>{inline_html(s.title)}</h2>")
        parts += [f"<p>{inline_html(p)}</p>" for p in s.paragraphs]
        parts += [_html_table(frame) for frame, _ in s.tables]
        parts += [_html_figure(f, out_dir, embed) for f in s.figures]
        if s.code:
            parts.append("<pre>" + html.escape("\n".join(s.code)) + "</pre>")
    parts.append("</body></html>")
    return "\n".join(parts) + "\n"


def write_pages(page: Page, out_dir: Path | str, embed: bool = True,
                names: Sequence[str] = (MD_NAME, HTML_NAME)) -> dict[str, Path]:
    """Write the Markdown and HTML pages into ``out_dir``; returns ``{file name: path}``."""
    out = Path(out_dir)
    md_name, html_name = names
    md, page_html = out / md_name, out / html_name
    md.write_text(to_markdown(page), encoding="utf-8")
    page_html.write_text(to_html(page, out, embed), encoding="utf-8")
    return {md_name: md, html_name: page_html}
