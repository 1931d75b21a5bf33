"""The command line's first impressions (issue 26): policy errors in one line with exit code 2, the
first-run compile notice, typed options with short flags and examples, and fast text answers."""

from __future__ import annotations

import io
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from click.testing import CliRunner

from unosim.cli import main
from unosim.cli_types import EXAMPLES, parse_int
from unosim.errors import SimulationError

# ---- item 4: a policy that answers out of range, does not compile or raises ---------------------------

NUMBA_OUT_OF_RANGE = """
    from unosim.policy_api import policy


    @policy()
    def always_99(kind, obs, params, rng):
        return 99
    """
NUMBA_COUNTER = """
    from collections import Counter

    from unosim.policy_api import policy


    @policy()
    def counts(kind, obs, params, rng):
        c = Counter(obs)
        return 0
    """
PYTHON_RAISES = """
    from unosim.external import PythonPolicy


    def helper(d):
        return 1 / 0


    class Boom(PythonPolicy):
        name = "boom_cli"

        def play(self, d):
            return helper(d)
    """
PYTHON_OUT_OF_RANGE = """
    from unosim.external import PythonPolicy


    class Far(PythonPolicy):
        name = "far_cli"

        def play(self, d):
            return 99
    """


def _policy_file(tmp_path: Path, source: str) -> str:
    f = tmp_path / "mine.py"
    f.write_text(textwrap.dedent(source))
    return str(f)


def _simulate_with(path: str, policy: str):
    return CliRunner().invoke(main, ["simulate", "--policy-file", path, "-p", f"{policy},random", "-n", "2",
                                     "-g", "20", "--threads", "1"])


def _error_lines(res) -> list[str]:
    assert res.exit_code == 2, res.output
    assert "Traceback" not in res.stderr and res.stdout == ""
    lines = [ln for ln in res.stderr.splitlines() if not ln.startswith("compiling ")]  # a cold cache says so
    assert lines[0].startswith("error: ")
    return lines


def test_numba_policy_out_of_range_is_one_line(tmp_path):
    lines = _error_lines(_simulate_with(_policy_file(tmp_path, NUMBA_OUT_OF_RANGE), "always_99"))
    assert len(lines) == 1
    assert lines[0].startswith("error: policy 'always_99' answered decision 'play' with 99 in round ")
    assert "accepted: an option index 0..nopt-1" in lines[0]


def test_numba_compile_failure_names_file_line_construct_and_hint(tmp_path):
    path = _policy_file(tmp_path, NUMBA_COUNTER)
    for res in (_simulate_with(path, "counts"),
                CliRunner().invoke(main, ["policies", "--policy-file", path])):
        lines = _error_lines(res)
        assert len(lines) == 1
        line = lines[0]
        assert line.startswith(f"error: policy 'counts' does not compile in numba at {path}:9 `c = Counter(obs)`: ")
        assert "Untyped global name 'Counter'" in line
        assert "no dicts, lists" in line and "plain-Python policy" in line


def test_python_policy_that_raises_shows_only_the_users_frames(tmp_path):
    path = _policy_file(tmp_path, PYTHON_RAISES)
    lines = _error_lines(_simulate_with(path, "boom_cli"))
    assert lines[0] == "error: policy 'boom_cli' raised ZeroDivisionError while deciding 'play'"
    frames = [ln for ln in lines[1:] if ln.lstrip().startswith("File ")]
    assert len(frames) == 2 and all(path in ln for ln in frames)  # play, then helper: nothing of unosim
    assert "in play" in frames[0] and "in helper" in frames[1]
    assert lines[-1] == "ZeroDivisionError: division by zero"


def test_python_policy_out_of_range_is_one_line(tmp_path):
    lines = _error_lines(_simulate_with(_policy_file(tmp_path, PYTHON_OUT_OF_RANGE), "far_cli"))
    assert len(lines) == 1
    assert lines[0].startswith("error: policy 'far_cli' answered decision 'play' with 99; accepted: an option "
                               "index 0..")


def test_policy_error_exit_code_2_through_the_console_script(tmp_path):
    path = _policy_file(tmp_path, NUMBA_OUT_OF_RANGE)
    p = subprocess.run([sys.executable, "-m", "unosim.cli", "simulate", "--policy-file", path, "-p",
                        "always_99,random", "-n", "2", "-g", "20", "--threads", "1"],
                       capture_output=True, text=True, timeout=900)
    assert p.returncode == 2 and p.stdout == ""
    lines = [ln for ln in p.stderr.splitlines() if not ln.startswith("compiling ")]
    assert len(lines) == 1 and lines[0].startswith("error: policy 'always_99' answered decision 'play' with 99")


# ---- item 5: conventions ---------------------------------------------------------------------------------


@pytest.mark.parametrize(("text", "value"), [("1e6", 10**6), ("100k", 100_000), ("2M", 2_000_000),
                                             ("1_000_000", 10**6), ("2.5k", 2500), ("42", 42), ("1G", 10**9),
                                             ("18446744073709551615", 2**64 - 1)])
def test_counts_accept_suffixes_and_exponents(text, value):
    assert parse_int("games", text) == value


@pytest.mark.parametrize("text", ["abc", "1.5", "1e-3", "10x", "", "k", "1__0k0"])
def test_counts_refuse_what_is_no_integer(text):
    with pytest.raises(SimulationError, match=r"^--games .* is not an integer; accepted: an integer such as"):
        parse_int("games", text)


def test_every_command_has_an_example_and_typed_options():
    for name in main.commands:
        assert name in EXAMPLES, name
        res = CliRunner().invoke(main, [name, "--help"])
        assert res.exit_code == 0
        assert "Example" in res.stdout and f"unosim {name}" in res.stdout.split("Example")[-1], name
    sim = CliRunner().invoke(main, ["simulate", "--help"]).stdout
    for shown in ("-n, --players N", "2..10", "-g, --games N", "-p, --policies", "-o, --out DIR", "-s, --seed N",
                  "--seating [fixed|rotate|shuffle]", "--mode [round|match]", "-q, --quiet", "see `unosim decks`"):
        assert shown in sim, shown


def test_bad_choice_and_range_are_one_line(cli_error):
    for args, needle in ((["simulate", "--seating", "bogus"], "'bogus' is not one of 'fixed', 'rotate', 'shuffle'"),
                         (["simulate", "-n", "11"], "players=11 is out of range; accepted: 2..10"),
                         (["simulate", "-g", "1e-3"], "--games '1e-3' is not an integer")):
        assert needle in cli_error(args)


def test_scoring_choices_match_the_engine():
    from unosim.cli_types import SCORING
    from unosim.match import SCORINGS

    assert sorted(SCORING.choices) == sorted(SCORINGS)


def test_decks_command_lists_every_deck():
    out = CliRunner().invoke(main, ["decks"]).stdout
    for name in ("classic", "numbers_only", "flip", "harry_potter", "bts", "zoo", "PATH.toml", "copies=N"):
        assert name in out, name


def test_rules_hide_internals_unless_verbose():
    plain = CliRunner().invoke(main, ["rules", "seven_zero"]).stdout
    verbose = CliRunner().invoke(main, ["rules", "seven_zero", "--verbose"]).stdout
    assert "RI_" not in plain and "7-0" in plain
    assert "packed into: RI_SEVEN_ZERO" in verbose


def test_arm_may_start_with_a_bare_rules_string():
    from unosim.experiments import parse_arm

    arm = parse_arm("stacking; label:Stack it")
    assert (arm.label, arm.rules) == ("Stack it", "stacking")
    with pytest.raises(ValueError, match="has no key"):
        parse_arm("label:x; stacking")


def test_progress_units_are_singular():
    from unosim.console import progress_bar

    out = io.StringIO()
    bar = progress_bar(True, 10, "matches", "x", file=out)
    bar.update(10)
    bar.close()
    assert bar.unit == "match" and "match/s" in out.getvalue() and "matche" not in out.getvalue()
    assert progress_bar(False, 10, "rounds", "x") is None
