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
    from unosim.players.policy_api import policy


    @policy()
    def always_99(kind, obs, params, rng):
        return 99
    """
NUMBA_COUNTER = """
    from collections import Counter

    from unosim.players.policy_api import policy


    @policy()
    def counts(kind, obs, params, rng):
        c = Counter(obs)
        return 0
    """
PYTHON_RAISES = """
    from unosim.players.external import PythonPolicy


    def helper(d):
        return 1 / 0


    class Boom(PythonPolicy):
        name = "boom_cli"

        def play(self, d):
            return helper(d)
    """
PYTHON_OUT_OF_RANGE = """
    from unosim.players.external import PythonPolicy


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
    for args, needle in ((["simulate", "--seating", "rotated"],
                          "seating='rotated' is unknown (did you mean 'rotate'?); accepted: fixed, rotate, shuffle"),
                         (["simulate", "-n", "11"], "players=11 is out of range; accepted: 2..10"),
                         (["simulate", "-g", "1e-3"], "--games '1e-3' is not an integer")):
        assert needle in cli_error(args)


def test_choices_match_the_api():
    from unosim.cli_types import BACKEND, MODE, SCORING, SEATING
    from unosim.running.match import SCORINGS
    from unosim.validate import BACKENDS, MODES, SEATINGS

    assert sorted(SCORING.choices) == sorted(SCORINGS)
    assert (tuple(BACKEND.choices), tuple(MODE.choices), tuple(SEATING.choices)) == (BACKENDS, MODES, SEATINGS)


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
    from unosim.lab.experiments import parse_arm

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


# ---- item 1: a visible first run --------------------------------------------------------------------------

NOTICE_MODULE = """
def plus_one(x):
    return x + 1
"""


def test_compile_notice_says_what_and_how_long_only_when_not_cached(tmp_path, monkeypatch, capsys):
    import importlib.util

    from numba import njit, types

    from unosim import console

    (tmp_path / "notice_mod.py").write_text(NOTICE_MODULE)
    spec = importlib.util.spec_from_file_location("notice_mod", tmp_path / "notice_mod.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    sig = types.int64(types.int64)
    monkeypatch.setitem(console.KERNELS, "plus_one", ("the test kernel", "a moment", "~0 s"))
    monkeypatch.setattr(console._State, "notice", True)
    monkeypatch.setattr(console._State, "quiet", False)
    assert not console.is_cached(mod.plus_one, sig)
    before = console.compile_seconds()
    with console.compiling("plus_one", mod.plus_one, sig):
        assert njit(sig, cache=True)(mod.plus_one)(1) == 2
    assert capsys.readouterr().err == "compiling the test kernel (first run only, then cached; a moment) ...\n"
    assert console.compile_seconds() > before  # every compile is timed
    assert console.is_cached(mod.plus_one, sig)
    with console.compiling("plus_one", mod.plus_one, sig):  # cached: nothing to say
        pass
    assert capsys.readouterr().err == ""
    (tmp_path / "__pycache__").rename(tmp_path / "gone")
    monkeypatch.setattr(console._State, "quiet", True)
    with console.compiling("plus_one", mod.plus_one, sig):  # --quiet: nothing either
        pass
    assert capsys.readouterr().err == ""


def test_policy_slot_compile_is_timed(tmp_path):
    from unosim import console
    from unosim.players import policies, policy_api

    path = _policy_file(tmp_path, NUMBA_OUT_OF_RANGE.replace("always_99", "timed_slot_99"))
    policy_api.load_policy_files([path])
    pol, _ = policies.pack_policies(policies.parse_policies("timed_slot_99,random", 2))
    before = console.compile_seconds()
    policy_api.slot_for(pol)
    assert console.compile_seconds() > before


#: the heavy modules a command may import (the charts, Dask, numba and the unosim modules that import numba)
HEAVY = ("matplotlib", "distributed", "numba", "unosim.core.nb", "unosim.core.heuristics_nb", "unosim.players.lookahead",
         "unosim.players.policy_api", "unosim.players.external", "unosim.running.match")
PROBE = ("import sys\nfrom unosim.cli import run\ntry:\n    run(sys.argv[1:])\nexcept SystemExit:\n    pass\n"
         "nb = sys.modules.get('unosim.core.nb')\n"
         f"print('PROBE', sorted(m for m in {HEAVY!r} if m in sys.modules), "
         "nb.entry.compiled() if nb else [])")


def _probe(*args: str) -> str:
    p = subprocess.run([sys.executable, "-c", PROBE, *args], capture_output=True, text=True, timeout=900)
    assert p.returncode == 0, p.stderr
    return p.stdout


def test_a_round_run_compiles_no_match_kernel():
    out = _probe("simulate", "-g", "10", "--threads", "1", "-q")
    probe = out.splitlines()[-1]
    assert "'play_batch_nb'" in probe and "play_match_batch_nb" not in probe


# ---- item 6: fast text answers from the store ---------------------------------------------------------------


def test_store_hit_compare_and_results_load_no_kernel_nor_charts(tmp_path):
    args = ["compare", "--arm", "official", "--arm", "stacking; label:Stack it", "-g", "300", "--threads", "1",
            "--store", str(tmp_path / "store"), "-q"]
    first = CliRunner().invoke(main, args)
    assert first.exit_code == 0, first.output
    out = _probe(*args)
    assert "Stack it" in out and out.splitlines()[-1] == "PROBE [] []"  # no numba, no kernel, no charts, no Dask
    out = _probe("results", "--store", str(tmp_path / "store"))
    assert out.splitlines()[-1] == "PROBE [] []"  # the store's list without the engine
    grid = tmp_path / "grid.toml"
    grid.write_text('name = "g"\ngames = 300\n[grid]\nplayers = [2, 3]\nrules = ["official", "official+stacking"]\n')
    sweep = ["sweep", str(grid), "--threads", "1", "--store", str(tmp_path / "store"), "-q"]
    assert CliRunner().invoke(main, sweep).exit_code == 0
    out = _probe(*sweep)
    assert "official+stacking" in out and out.splitlines()[-1] == "PROBE [] []"  # a store-hit sweep alike


def test_the_speed_line_names_threads_or_cluster_workers_in_the_right_number() -> None:
    from unosim.cli import _speed_line

    base = {"games_per_second": 1234.0, "compile_seconds": 0.5, "engine_version": 4}
    assert _speed_line({**base, "threads": 1}, "rounds").startswith("1,234 rounds/s on 1 thread;")
    assert " on 2 threads;" in _speed_line({**base, "threads": 2}, "matches")
    line = _speed_line({**base, "threads": 1, "workers": 2, "backend": "dask-local", "cluster_start_seconds": 2.61},
                       "rounds")
    assert " on 2 dask-local workers (cluster start 2.6 s, not counted);" in line


def test_the_study_command_offers_exactly_the_studies(tmp_path) -> None:
    from unosim.cli_types import STUDY
    from unosim.lab.studies import STUDIES

    assert list(STUDY.choices) == list(STUDIES)
    bad = subprocess.run([sys.executable, "-m", "unosim.cli", "study", "first_players"], capture_output=True,
                         text=True, timeout=60)
    assert bad.returncode == 2 and len(bad.stderr.strip().splitlines()) == 1
    assert "first_players" in bad.stderr and "first_player" in bad.stderr.replace("first_players", "")
    ok = subprocess.run([sys.executable, "-m", "unosim.cli", "study", "first_player", "-g", "300", "-s", "2",
                         "-o", str(tmp_path / "fp"), "--threads", "1", "--store", str(tmp_path / "store"), "-q"],
                        capture_output=True, text=True, timeout=300)
    assert ok.returncode == 0, ok.stderr
    assert "10 players: seat 0 wins" in ok.stdout and "its 95% interval lies above zero at" in ok.stdout
    assert (tmp_path / "fp" / "report.html").is_file() and len(list((tmp_path / "store").glob("*/cell.json"))) == 9


def test_help_imports_neither_numpy_nor_pandas():
    probe = ("import sys\nfrom unosim.cli import run\ntry:\n    run(['--help'])\nexcept SystemExit:\n    pass\n"
             "print('PROBE', sorted(m for m in ('numpy', 'pandas', 'numba', 'matplotlib') if m in sys.modules))")
    p = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, timeout=120)
    assert p.returncode == 0, p.stderr
    assert p.stdout.splitlines()[-1] == "PROBE []"
