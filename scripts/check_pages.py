"""Check report pages in a real headless browser: each page must fit the window without sideways scrolling.

    python scripts/check_pages.py results/demo/report.html [MORE.html ...] [--width 1280] [--shots DIR]

For each page, headless Chromium loads a copy of it with a small script that writes the page's
``document.documentElement.scrollWidth`` into the DOM once it has loaded (read back with
``--dump-dom``), then takes a screenshot of the first screen.  Prints one line per page; exit code 0
when every page fits, 1 when one scrolls sideways, 2 when no browser is installed or a page is missing.
Set ``UNOSIM_CHROMIUM`` to the browser's path when it is not on ``PATH`` as ``chromium``.
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

BROWSERS = ("chromium", "chromium-browser", "google-chrome", "google-chrome-stable")
PROBE = ("<script>window.addEventListener('load',function(){document.body.setAttribute("
         "'data-scroll-width',String(document.documentElement.scrollWidth));});</script>")
FLAGS = ("--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync",
         "--hide-scrollbars", "--run-all-compositor-stages-before-draw", "--virtual-time-budget=10000")


@dataclass
class PageCheck:
    page: Path
    width: int  # the window width
    scroll_width: int  # the page's document scroll width in that window
    screenshot: Path | None

    @property
    def fits(self) -> bool:
        return self.scroll_width <= self.width

    def line(self) -> str:
        verdict = "fits" if self.fits else "SCROLLS SIDEWAYS"
        shot = f"; screenshot {self.screenshot}" if self.screenshot else ""
        return f"{self.page}: page width {self.scroll_width} px in a {self.width} px window: {verdict}{shot}"


def find_browser() -> str | None:
    """The headless browser to use: ``$UNOSIM_CHROMIUM`` or the first of :data:`BROWSERS` on PATH."""
    env = os.environ.get("UNOSIM_CHROMIUM")
    if env:
        return env if Path(env).is_file() else None
    return next((p for p in map(shutil.which, BROWSERS) if p), None)


def _run(browser: str, args: list[str], profile: str) -> str:
    cmd = [browser, *FLAGS, f"--user-data-dir={profile}", *args]
    done = subprocess.run(cmd, capture_output=True, text=True, timeout=120, check=False)
    return done.stdout


def check_page(page: Path, width: int = 1280, height: int = 900, shots: Path | None = None,
               browser: str | None = None) -> PageCheck:
    """Load ``page`` in headless Chromium at ``width`` x ``height``; measure its scroll width and (with
    ``shots``) save a screenshot of the first screen there."""
    browser = browser or find_browser()
    if browser is None:
        raise FileNotFoundError("no headless browser found: install chromium or set UNOSIM_CHROMIUM")
    page = Path(page).resolve()
    html = page.read_text(encoding="utf-8")
    probed = html.replace("</body>", PROBE + "</body>") if "</body>" in html else html + PROBE
    with tempfile.TemporaryDirectory() as tmp:
        copy = Path(tmp) / "page.html"
        copy.write_text(probed, encoding="utf-8")
        size = f"--window-size={width},{height}"
        dom = _run(browser, [size, "--dump-dom", copy.as_uri()], str(Path(tmp) / "profile-a"))
        m = re.search(r'data-scroll-width="(\d+)"', dom)
        if m is None:
            raise RuntimeError(f"{page}: the browser did not report a page width")
        shot = None
        if shots is not None:
            shots.mkdir(parents=True, exist_ok=True)
            shot = shots / f"{page.parent.name}-{page.stem}-{width}.png"
            _run(browser, [size, f"--screenshot={shot}", page.as_uri()], str(Path(tmp) / "profile-b"))
            shot = shot if shot.is_file() else None
    return PageCheck(page, width, int(m.group(1)), shot)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("pages", nargs="+", type=Path, help="report pages (report.html)")
    ap.add_argument("--width", type=int, default=1280, help="window width in pixels [default: 1280]")
    ap.add_argument("--height", type=int, default=900, help="window height in pixels [default: 900]")
    ap.add_argument("--shots", type=Path, default=None, help="folder for screenshots of the first screen")
    args = ap.parse_args(argv)
    browser = find_browser()
    if browser is None:
        print("error: no headless browser found: install chromium or set UNOSIM_CHROMIUM", file=sys.stderr)
        return 2
    missing = [p for p in args.pages if not p.is_file()]
    if missing:
        print(f"error: no page {str(missing[0])!r}", file=sys.stderr)
        return 2
    checks = [check_page(p, args.width, args.height, args.shots, browser) for p in args.pages]
    for c in checks:
        print(c.line())
    return 0 if all(c.fits for c in checks) else 1


if __name__ == "__main__":
    sys.exit(main())
