"""Shared fixtures."""

from __future__ import annotations

import pytest

from unosim.cli import run as cli_run


@pytest.fixture
def cli_error(capsys):
    """Run the console entry point in-process with ``argv``; assert exit code 2 and exactly one
    ``error: ...`` line on stderr (no traceback); return that line."""

    def run(argv: list[str]) -> str:
        with pytest.raises(SystemExit) as ei:
            cli_run(list(argv))
        cap = capsys.readouterr()
        assert ei.value.code == 2, cap.err
        lines = cap.err.splitlines()
        assert len(lines) == 1 and lines[0].startswith("error: "), cap.err
        assert "Traceback" not in cap.err + cap.out
        return lines[0]

    return run


@pytest.fixture(autouse=True)
def _store_in_a_temporary_folder(tmp_path_factory):
    """Commands that fill the results store by default (tournament, tune) keep it out of the working tree, in a
    store of each test's own: one shared by a worker's tests let a test that kills or damages a cell (the
    safety and resume tests) leave it for the next one."""
    from unosim.results import store

    default, store.DEFAULT_ROOT = store.DEFAULT_ROOT, tmp_path_factory.mktemp("default-store")
    yield
    store.DEFAULT_ROOT = default
