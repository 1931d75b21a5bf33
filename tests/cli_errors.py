"""Shared check for the CLI's bad-input contract: one ``error: ...`` line on stderr, exit code 2."""

from __future__ import annotations

import pytest

from unosim.cli import run as cli_run


def assert_one_line_error(args: list[str], needle: str, capsys) -> None:
    """Run the console entry point on ``args``; it must exit 2 with one error line naming ``needle``."""
    with pytest.raises(SystemExit) as ei:
        cli_run(args)
    cap = capsys.readouterr()
    assert ei.value.code == 2, cap.err
    lines = cap.err.splitlines()
    assert len(lines) == 1, cap.err
    assert lines[0].startswith("error: ")
    assert needle in lines[0]
    assert "Traceback" not in cap.err and "Traceback" not in cap.out
