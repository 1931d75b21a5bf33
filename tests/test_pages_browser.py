"""Report pages in a real headless browser (skipped when Chromium is not installed): a page with a
ten-seat table and nine runs fits a 1280-pixel window, and a wider-than-window table scrolls inside
its own box rather than the page."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import numpy as np
import pytest
from test_report import make_meta, make_records

from unosim.reports.report import make_report

ROOT = Path(__file__).resolve().parents[1]
_spec = importlib.util.spec_from_file_location("check_pages", ROOT / "scripts" / "check_pages.py")
check_pages = sys.modules.setdefault("check_pages", importlib.util.module_from_spec(_spec))
_spec.loader.exec_module(check_pages)

pytestmark = pytest.mark.skipif(check_pages.find_browser() is None, reason="no headless Chromium installed")


def test_a_wide_report_fits_1280_pixels(tmp_path: Path) -> None:
    runs = [(f"{n} players, official+seven_zero", make_records(2000, np.full(n, 1.0 / n), n, cap_frac=0.0),
             make_meta(["random", "greedy"] * (n // 2) + ["random"] * (n % 2), "official+seven_zero", 3, 2000))
            for n in range(2, 11)]
    page = make_report(runs, tmp_path / "report")["report.html"]
    wide = check_pages.check_page(page, width=800, shots=tmp_path / "shots")
    assert wide.fits, wide.line()  # even a narrow window: the tables scroll in their own boxes
    check = check_pages.check_page(page, width=1280, shots=tmp_path / "shots")
    assert check.fits and 1000 <= check.scroll_width <= 1280, check.line()
    assert check.screenshot is not None and check.screenshot.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_the_check_catches_a_page_that_scrolls_sideways(tmp_path: Path) -> None:
    page = tmp_path / "wide.html"
    page.write_text('<!DOCTYPE html><html><body><div style="width:2000px">wide</div></body></html>')
    check = check_pages.check_page(page, width=1280)
    assert not check.fits and check.scroll_width >= 2000
    assert check_pages.main([str(page)]) == 1
