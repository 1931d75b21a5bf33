"""`make bench` times both sides of a one-thread ratio on one core (scripts/bench.py, ``one_core``)."""

from __future__ import annotations

import os
import sys
import threading
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "scripts"))

import bench  # noqa: E402

needs_two = pytest.mark.skipif(not hasattr(os, "sched_getaffinity") or len(os.sched_getaffinity(0)) < 2,
                               reason="needs CPU affinity and two cores")


@needs_two
def test_one_core_pins_the_block_and_what_it_starts_then_restores() -> None:
    allowed = os.sched_getaffinity(0)
    seen = {}
    with bench.one_core():
        seen["block"] = os.sched_getaffinity(0)
        t = threading.Thread(target=lambda: seen.update(thread=os.sched_getaffinity(0)))
        t.start()
        t.join()
    assert seen["block"] == {max(allowed)}
    assert seen["thread"] == {max(allowed)}  # simulate's pool threads and the C reference's process inherit it
    assert os.sched_getaffinity(0) == allowed


@needs_two
def test_one_core_restores_after_an_error_and_leaves_unpinned_blocks_alone() -> None:
    allowed = os.sched_getaffinity(0)
    with pytest.raises(RuntimeError), bench.one_core():
        raise RuntimeError("a timing failed")
    assert os.sched_getaffinity(0) == allowed
    with bench.one_core(pin=False):
        assert os.sched_getaffinity(0) == allowed
