"""Numbers as the tables print them: a value with its 95% half-width, a rate with its interval.

Light on purpose (the standard library only): the command line formats a text answer from the store
with these without importing the charting code.
"""

from __future__ import annotations

import math
import numbers
from typing import Any


def isnum(x: Any) -> bool:
    """A finite number (Python or numpy)."""
    return x is not None and isinstance(x, numbers.Real) and math.isfinite(float(x))


def fmt_pm(value: Any, half: Any, pct: bool = False, unit: str = "") -> str:
    """Format ``value ± half`` with the half-width rounded to two significant figures.

    ``pct`` multiplies both by 100 and appends ``%``; ``unit`` is appended (with a space) otherwise.
    Missing / non-finite values give ``"n/a"``; a missing half-width prints the value alone.
    """
    if not isnum(value):
        return "n/a"
    v = float(value) * (100.0 if pct else 1.0)
    suffix = "%" if pct else (f" {unit}" if unit else "")
    if not isnum(half) or float(half) <= 0.0:
        return f"{v:,.2f}{suffix}"
    h = float(half) * (100.0 if pct else 1.0)
    dec = min(6, max(0, 1 - math.floor(math.log10(h))))
    return f"{v:,.{dec}f}{suffix} ± {h:,.{dec}f}{suffix}" if pct else f"{v:,.{dec}f} ± {h:,.{dec}f}{suffix}"


def fmt_ci(p: Any, lo: Any, hi: Any) -> str:
    """A rate with its interval in percent, e.g. ``"82.10% [81.86, 82.34]"``; ``"n/a"`` if undefined."""
    if not isnum(p):
        return "n/a"
    if not (isnum(lo) and isnum(hi)):
        return f"{100 * float(p):.2f}%"
    return f"{100 * float(p):.2f}% [{100 * float(lo):.2f}, {100 * float(hi):.2f}]"


def fmt_interval(value: Any, lo: Any, hi: Any, spec: str = ".2f") -> str:
    """A value with its interval in the format ``spec``, e.g. ``"0.21 [0.00, 0.55]"`` (``"+38 [+26, +50]"`` with
    ``spec="+.0f"``).  A number that rounds to zero prints as zero, never ``-0.00``."""

    def one(x: Any) -> str:
        text = format(float(x), spec)
        return format(0.0, spec) if float(text) == 0.0 else text

    return f"{one(value)} [{one(lo)}, {one(hi)}]"
