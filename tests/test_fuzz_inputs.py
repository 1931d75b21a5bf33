"""Property-based tests (Hypothesis): generated garbage for every public parameter of ``simulate``,
``scenario.play`` and every option of ``unosim simulate`` never crashes the process and never hangs.

Each value is either accepted as documented (the call returns a result) or refused with the library's own
exception (:class:`unosim.UnosimError`, one line, naming the parameter or the bad value); on the command
line, refused means exit code 2 and one ``error:`` line.  One parameter is garbage at a time, the others
are tiny valid values, so every accepted case is a run of a few rounds.  ``derandomize=True`` makes the
generated cases the same on every run (a fixed seed), and the per-case deadline catches a hang.
"""

from __future__ import annotations

import contextlib
import io
import re
from datetime import timedelta

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import unosim
from unosim import UnosimError
from unosim.cli import run as cli_run
from unosim.running.scenario import play

EXAMPLES = 60  # per parameter; the closing note counts them
FUZZ = settings(max_examples=EXAMPLES, derandomize=True, deadline=timedelta(seconds=20), database=None,
                suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much])

# integers that are either small (a tiny run when accepted) or far out of range
small_or_huge = st.one_of(st.integers(-5, 30), st.integers(min_value=10**11, max_value=10**40),
                          st.integers(max_value=-(10**11), min_value=-(10**40)))
WORDS = ["official", "stacking", "seven_zero", "random", "greedy", "classic", "flip", "fixed", "rotate",
         "match", "round", "standard", "lazy", "set(", ")", "+", ",", "=", "(", "true", "r5", "wd4", "draw", "0"]
texty = st.one_of(st.text(max_size=12), st.lists(st.sampled_from(WORDS), max_size=5).map("".join))
garbage = st.one_of(
    st.none(), st.booleans(), small_or_huge, st.floats(allow_nan=True, allow_infinity=True), texty,
    st.lists(st.one_of(st.integers(-3, 3), texty), max_size=3), st.dictionaries(texty, st.integers(), max_size=2),
    st.binary(max_size=4), st.tuples(st.integers(0, 3)),
)


@pytest.fixture(scope="module", autouse=True)
def warm_kernels():
    """Compile (or load) the kernels once, so that the deadline measures the cases, not the compile."""
    unosim.simulate(games=2, threads=1, policies="random")
    unosim.simulate(games=2, threads=1, mode="match", max_rounds=2, policies="random")
    play(players=2, policies="greedy")


def _tokens(value) -> list[str]:
    """Ways a message may show ``value``: its repr, its text, the terms of a rules or policy string (a
    string may be refused for one of its terms), and the same for each entry of a list."""
    if isinstance(value, (list, tuple)):
        return [repr(value)[:20]] + [t for v in value for t in _tokens(v)]
    text = " ".join(str(value).split())
    parts = [text[:20], text.split("(")[0], *re.split(r"[+,()]", text)]
    return [repr(value)[:20]] + parts + [repr(t)[1:-1] for t in parts]


def check_refusal(exc: UnosimError, name: str, value) -> None:
    msg = str(exc)
    assert msg and "\n" not in msg, msg
    low = msg.lower()
    named = name in msg or any(tok.strip() and tok.strip().lower() in low for tok in _tokens(value))
    assert named, f"{msg!r} names neither {name!r} nor {repr(value)[:40]}"


def fuzz_call(fn, name: str, value, **valid) -> None:
    try:
        out = fn(**{**valid, name: value})
    except UnosimError as e:
        check_refusal(e, name, value)
    else:
        assert out is not None


SIMULATE_VALID = dict(games=3, threads=1, players=3)
SIMULATE_PARAMS = ["rules", "players", "policies", "games", "seed", "threads", "deck", "batch_size", "progress",
                   "seating", "mode"]
MATCH_VALID = dict(games=2, threads=1, players=4, mode="match", max_rounds=3)
MATCH_PARAMS = ["scoring", "target", "partners", "max_rounds", "dealer", "rounds", "rounds_per_partner",
                "round_records"]


@pytest.mark.parametrize("name", SIMULATE_PARAMS)
@FUZZ
@given(value=garbage)
def test_simulate_parameter(name, value):
    fuzz_call(unosim.simulate, name, value, **SIMULATE_VALID)


@pytest.mark.parametrize("name", MATCH_PARAMS)
@FUZZ
@given(value=garbage)
def test_match_option(name, value):
    fuzz_call(unosim.simulate, name, value, **MATCH_VALID)


@FUZZ
@given(name=texty.filter(lambda t: t not in SIMULATE_PARAMS + MATCH_PARAMS), value=garbage)
def test_unknown_keyword(name, value):
    with pytest.raises(UnosimError) as ei:
        unosim.simulate(games=2, **{name: value})
    assert repr(name) in str(ei.value) and "\n" not in str(ei.value)


cards = st.sampled_from(["r5", "r7", "b5", "g2", "y3", "wild", "wd4", "r+2", "bskip", "grev", "zz", "", "r5 "])
hands = st.one_of(garbage, st.lists(st.lists(st.one_of(cards, garbage), max_size=3), max_size=4))
PLAY_VALID = dict(hands=[["r5", "r7"], ["b5", "g2"]], start="r1", policies="greedy")
PLAY_GARBAGE = {"hands": hands, "start": st.one_of(cards, garbage), "pile": st.one_of(garbage, st.lists(cards)),
                "rules": garbage, "policies": garbage, "script": st.one_of(garbage, st.lists(st.one_of(cards, garbage))),
                "seed": garbage, "dealer": garbage, "players": garbage, "deck": garbage, "max_events": garbage}


@pytest.mark.parametrize("name", sorted(PLAY_GARBAGE))
@FUZZ
@given(data=st.data())
def test_play_parameter(name, data):
    value = data.draw(PLAY_GARBAGE[name])
    valid = dict(PLAY_VALID)
    if name in ("players",):
        valid.pop("hands"), valid.pop("start")  # players applies to shuffled rounds
    if name == "script":
        valid["policies"] = "scripted"
    fuzz_call(play, name, value, **valid)


# ---- the command line -------------------------------------------------------------------------------------

OPTIONS = ["--rules", "--players", "--policies", "--games", "--seed", "--threads", "--deck", "--batch-size",
           "--seating", "--mode", "--scoring", "--target", "--max-rounds", "--out"]
cli_text = st.one_of(texty, small_or_huge.map(str), st.floats().map(str), st.just(""))


def cli(args: list[str]) -> tuple[int, str]:
    err = io.StringIO()
    with contextlib.redirect_stderr(err), contextlib.redirect_stdout(io.StringIO()):
        try:
            cli_run(args)
        except SystemExit as e:
            return int(e.code or 0), err.getvalue()
    return 0, err.getvalue()


@pytest.mark.parametrize("option", OPTIONS)
@FUZZ
@given(value=cli_text)
def test_cli_option(option, value, tmp_path_factory):
    if option == "--out":
        value = str(tmp_path_factory.mktemp("out") / value.replace("\x00", "")) if value.strip() else value
    base = ["simulate", "--policies", "random", "--games", "3", "--threads", "1", "--players", "4", "--json"]
    if option in ("--scoring", "--target", "--max-rounds"):
        base += ["--mode", "match", "--max-rounds", "3"] if option != "--max-rounds" else ["--mode", "match"]
    assert_accepted_or_refused(*cli(base + [option, value]))


def assert_accepted_or_refused(code: int, err: str) -> None:
    """The command ran (exit 0) or refused its input with exit 2 and one ``error:`` line, no traceback."""
    assert code in (0, 2), (code, err)
    if code == 2:
        lines = err.splitlines()
        assert len(lines) == 1 and lines[0].startswith("error: "), err
    assert "Traceback" not in err


COMPARE_OPTIONS = ["--arm", "--players", "--games", "--seed", "--deck", "--policies", "--seating", "--mode",
                   "--scoring", "--target", "--max-rounds", "--precision", "--max-games", "--metric", "--threads",
                   "--batch-size"]
# a comparison runs two arms through the results store: fewer cases per option
FUZZ_COMPARE = settings(FUZZ, max_examples=EXAMPLES // 4)


@pytest.mark.parametrize("option", COMPARE_OPTIONS)
@FUZZ_COMPARE
@given(value=cli_text)
def test_compare_option(option, value, tmp_path_factory):
    store = str(tmp_path_factory.mktemp("store"))
    base = ["compare", "--policies", "random", "--arm", "official", "--arm", "official+stacking", "--games", "3", "--threads", "1",
            "--json", "--store", store]
    if option in ("--scoring", "--target", "--max-rounds"):
        base += ["--mode", "match", "--max-rounds", "3"] if option != "--max-rounds" else ["--mode", "match"]
    if option == "--precision":
        base += ["--max-games", "6"]
    if option == "--max-games":
        base += ["--precision", "0.5"]
    assert_accepted_or_refused(*cli(base + [option, value]))
