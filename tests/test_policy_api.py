"""The decision interface: user numba policies, the heuristic library, the observation, errors."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np
import pytest

from unosim import simulate
from unosim.core import nb
from unosim.players.policies import PolicyError
from unosim.players.policy_api import HEURISTICS, load_policy_file
from unosim.running.scenario import play

EXAMPLE = str(Path(__file__).resolve().parents[1] / "scripts" / "policy_example_numba.py")


def first_play(g, seat=0):
    """Seat's first play or draw, with the card as a short name (r9, wd4, ...)."""
    e = dict(next(e for e in g.events if e["seat"] == seat and e["event"] in ("play", "draw")))
    if e["card"] is not None:
        col, _, rank = e["card"].partition(" ")
        e["card"] = col[0] + rank if rank else col
    return e


# ---- user numba policies ------------------------------------------------------------------------------
@pytest.mark.parametrize(("rules", "deck"), [("official", "classic"), ("official+stacking+seven_zero", "classic"),
                                             ("official+jump_in+swap_on_five", "classic"), ("speed_uno", "classic"),
                                             ("official", "flip")])
def test_greedy_written_against_the_observation_matches_builtin_greedy(rules, deck):
    """Proves the options and the observation carry what greedy reads: identical records."""
    a = simulate(rules=rules, deck=deck, policies="greedy_numba,greedy,greedy_numba", players=3, games=300,
                 seed=4, threads=1, policy_files=[EXAMPLE])
    b = simulate(rules=rules, deck=deck, policies="greedy", players=3, games=300, seed=4, threads=1)
    assert a.records.equals(b.records)


def test_user_policy_file_recorded_and_kernel_not_recompiled():
    before = len(nb.play_batch_nb.signatures)
    r = simulate(policies="low_first(p_draw=0.2),random,greedy,low_first", games=400, seed=1, threads=1,
                 policy_files=[EXAMPLE])
    assert len(nb.play_batch_nb.signatures) == before == 1
    [f] = r.meta["policy_files"]
    assert f["path"] == EXAMPLE and len(f["sha256"]) == 64
    assert (r.records["end_reason"] == "win").all()
    # the user's randomness comes from the round's stream: same seed, same records
    r2 = simulate(policies="low_first(p_draw=0.2),random,greedy,low_first", games=400, seed=1, threads=2,
                  batch_size=100, policy_files=[EXAMPLE])
    assert r.records.equals(r2.records)


def _write(tmp_path, name, body):
    p = tmp_path / name
    p.write_text(textwrap.dedent(body))
    return str(p)


POLICY_HEAD = """
    from unosim.players.policy_api import policy, D_PLAY, OBS_NLEGAL
    """


def test_out_of_range_answer_is_a_one_line_error(tmp_path):
    f = _write(tmp_path, "bad.py", POLICY_HEAD + """
    @policy()
    def wild_guess(kind, obs, params, rng):
        return 99 if kind == D_PLAY else 0
    """)
    with pytest.raises(PolicyError, match=r"policy 'wild_guess' answered decision 'play' with 99"):
        simulate(policies="wild_guess,random", players=2, games=5, threads=1, policy_files=[f])
    with pytest.raises(PolicyError, match=r"'wild_guess' answered decision 'play' with 99"):
        play(players=2, policies="wild_guess,random", seed=3)


def test_raising_policy_names_policy_and_decision_then_user_traceback(tmp_path):
    f = _write(tmp_path, "boom.py", POLICY_HEAD + """
    @policy()
    def boom(kind, obs, params, rng):
        if kind == D_PLAY:
            raise ValueError("no idea what to play")
        return 0
    """)
    with pytest.raises(PolicyError) as ei:
        simulate(policies="boom,random", players=2, games=3, threads=1, policy_files=[f])
    lines = str(ei.value).splitlines()
    assert lines[0] == "policy 'boom' raised ValueError while deciding 'play'"
    assert any("boom.py" in line for line in lines[1:]) and lines[-1].endswith("no idea what to play")


@pytest.mark.parametrize(("body", "pattern"), [
    ("def f(:\n", r"syntax error at line 1"),
    ("from unosim.players.policy_api import policy\n@policy()\ndef two(kind, obs):\n    return 0\n",
     r"policy 'two' has the wrong signature"),
    ("X = 1\n", r"defines no policy"),
    ("import no_such_module_here\n", r"failed to load: ModuleNotFoundError"),
])
def test_policy_file_errors(tmp_path, body, pattern):
    f = tmp_path / "p.py"
    f.write_text(body)
    with pytest.raises(PolicyError, match=pattern):
        load_policy_file(f)


def test_cli_policy_file_errors_exit_2(tmp_path):
    cmd = [sys.executable, "-m", "unosim.cli"]
    r = subprocess.run(cmd + ["simulate", "--policies", "random", "--policy-file", str(tmp_path / "none.py"), "--games", "10"],
                       capture_output=True, text=True)
    assert r.returncode == 2 and r.stderr.count("\n") == 1 and "not found" in r.stderr
    r = subprocess.run(cmd + ["simulate", "--policies", "hold_wilds(treshold=2)", "--games", "10"],
                       capture_output=True, text=True)
    assert r.returncode == 2 and "did you mean 'threshold'" in r.stderr
    r = subprocess.run(cmd + ["simulate", "--policy-file", EXAMPLE, "--policies", "low_first,greedy",
                              "--players", "2", "--games", "200", "--json", "--threads", "1"],
                       capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    assert json.loads(r.stdout)["games"] == 200
    r = subprocess.run(cmd + ["policies", "--policy-file", EXAMPLE], capture_output=True, text=True)
    assert r.returncode == 0 and "low_first(p_draw=0)  [user:" in r.stdout and "hold_wilds(" in r.stdout
    r = subprocess.run(cmd + ["policies", "attack"], capture_output=True, text=True)
    assert r.returncode == 0 and "threshold = 2" in r.stdout


# ---- the heuristics: one decision each on a rigged deck -------------------------------------------------
def test_hold_wilds_draws_instead_of_playing_a_wild():
    hands = [["wild", "r1", "b2", "y3", "r4"], ["r7", "r8", "r9"]]
    g = play(hands=hands, start="g5", pile=["y9"], policies="hold_wilds,scripted")
    assert first_play(g)["event"] == "draw"
    g = play(hands=hands, start="g5", pile=["y9"], policies="greedy,scripted")
    assert first_play(g)["event"] == "play" and first_play(g)["card"] == "wild"
    # with a small hand it plays the wild
    g = play(hands=hands, start="g5", pile=["y9"], policies="hold_wilds(threshold=5),scripted")
    assert first_play(g)["card"] == "wild"


def test_color_majority_plays_its_longest_colour():
    hands = [["r9", "b9", "b1", "b2"], ["y1", "y2"]]
    assert first_play(play(hands=hands, start="g9", policies="color_majority,scripted"))["card"] == "b9"
    assert first_play(play(hands=hands, start="g9", policies="greedy,scripted"))["card"] == "r9"


def test_attack_aims_a_wild_draw_four_at_a_player_about_to_go_out():
    assert first_play(play(hands=[["r9", "wd4", "g1"], ["y1", "y2"]], start="b9",
                           policies="attack,scripted"))["card"] == "wd4"
    assert first_play(play(hands=[["r9", "wd4", "g1"], ["y1", "y2", "y3"]], start="b9",
                           policies="attack,scripted"))["card"] == "r9"


def test_defensive_dumps_the_wild_when_an_opponent_is_close():
    assert first_play(play(hands=[["r9", "wild", "g2"], ["y1"]], start="r5",
                           policies="defensive,scripted"))["card"] == "wild"
    assert first_play(play(hands=[["r9", "wild", "g2"], ["y1", "y2", "y3"]], start="r5",
                           policies="defensive,scripted"))["card"] == "r9"


def test_card_counter_names_the_colour_mostly_played_out():
    # seat 1 plays b5 on y5; seat 0 can only play its wild.  Red and yellow are held once each, but a
    # yellow is on the discard pile: card_counter names yellow, greedy red (ties to the lowest index).
    kw = dict(hands=[["wild", "r1", "y2"], ["b5", "g8"]], start="y5", dealer=0, script=["b5"])
    g = play(policies="card_counter,scripted", **kw)
    assert first_play(g)["card"] == "wild" and first_play(g)["a1"] == 1
    assert first_play(play(policies="greedy,scripted", **kw))["a1"] == 0


def test_challenger_challenges_a_big_hand_not_a_small_one():
    def challenged(hand0):
        g = play(hands=[hand0, ["b1", "b2", "b3"]], start="r5", policies="scripted,challenger",
                 script=["wd4", "yellow"])
        return len(g.kinds("challenge")) == 1
    assert challenged(["wd4", "y1", "y2", "y3", "y4", "y5", "y6", "g1", "g2", "g3", "g4", "g5"])
    assert not challenged(["wd4", "y1"])


def test_bluffer_bluffs_at_a_player_about_to_go_out():
    kw = dict(start="r5")
    assert first_play(play(hands=[["wd4", "r7", "g1"], ["y1", "y2"]], policies="bluffer,scripted", **kw))[
        "card"] == "wd4"
    assert first_play(play(hands=[["wd4", "r7", "g1"], ["y1", "y2"]], policies="greedy,scripted", **kw))[
        "card"] == "r7"


def test_weighted_follows_its_weights():
    hands = [["r9", "wild"], ["y1", "y2"]]
    assert first_play(play(hands=hands, start="r5", policies="weighted,scripted"))["card"] == "r9"
    assert first_play(play(hands=hands, start="r5", policies="weighted(wild=100),scripted"))["card"] == "wild"
    assert first_play(play(hands=hands, start="r5", policies="weighted(draw=100),scripted"))["event"] == "draw"


# ---- every policy decides legally under random rules, decks and player counts ----------------------------
RULES = ["official", "official+stacking+set(stack_mixed=true)", "official+seven_zero+jump_in",
         "official+swap_on_five+reverse_bounce+deflect_skip", "everything", "speed_uno", "party"]


@pytest.mark.parametrize("k", range(6))
def test_fuzz_every_policy_legal(k):
    rng = np.random.default_rng(k)
    names = list(HEURISTICS) + ["random", "greedy", "greedy_numba", "low_first(p_draw=0.3)"]
    deck = ["classic", "flip", "harry_potter", "bts", "classic", "classic"][k]
    rules = RULES[int(rng.integers(len(RULES)))] if deck == "classic" else "official+stacking"
    n = int(rng.integers(2, 11)) if deck != "flip" else int(rng.integers(2, 8))
    pols = ",".join(rng.choice(names, n))
    r = simulate(rules=rules, deck=deck, players=n, policies=pols, games=150, seed=k, threads=1,
                 policy_files=[EXAMPLE])
    assert set(r.records["end_reason"]) <= {"win", "turn_cap"}, (rules, deck, pols)


# ---- no peeking: hidden cards permuted consistently with the observation --------------------------------
@pytest.mark.parametrize("name", list(HEURISTICS) + ["greedy_numba"])
def test_no_peeking(name):
    """Shuffling the cards seat 0 cannot see (other hands, draw pile) among themselves, keeping every hand
    size, never changes seat 0's first decision."""
    load_policy_file(EXAMPLE)
    rng = np.random.default_rng(7)
    colors, ranks = "rygb", ["0", "1", "2", "3", "4", "5", "6", "7", "8", "9", "skip", "rev", "+2"]
    pool = [c + r for c in colors for r in ranks] + ["wild", "wd4"] * 2
    for trial in range(6):
        cards = list(rng.permutation(pool))
        own, start, hidden = cards[:5], cards[5], cards[6:21]
        if not start[1:].isdigit():  # seat 0 must take the first turn
            continue
        seen = []
        for perm in range(3):
            h = list(rng.permutation(hidden)) if perm else hidden
            g = play(hands=[own, h[:4], h[4:7]], start=start, pile=h[7:],
                     policies=f"{name},scripted,scripted", seed=trial)
            e = first_play(g)
            seen.append((e["event"], e["card"], e["a1"]) if e["event"] == "play" else (e["event"],))
        assert seen[0] == seen[1] == seen[2], (name, own, start)


def test_policy_file_edited_in_the_same_process_runs_the_new_code(tmp_path):
    body = POLICY_HEAD + """
    @policy()
    def Edited(kind, obs, params, rng):
        return ANSWER if kind == D_PLAY else 0
    """
    f = _write(tmp_path, "edit.py", body.replace("ANSWER", "99"))
    with pytest.raises(PolicyError, match="with 99"):
        simulate(policies="edited,random", players=2, games=3, threads=1, policy_files=[f])
    _write(tmp_path, "edit.py", body.replace("ANSWER", "77"))
    with pytest.raises(PolicyError, match="with 77"):
        simulate(policies="edited,random", players=2, games=3, threads=1, policy_files=[f])


def test_the_header_shows_the_pending_attack_and_only_it(tmp_path):
    """A policy that answers out of range (an error naming the value) whenever the observation's header is
    inconsistent: the attacker is -1 when nothing is pending (also at play decisions of the fast turns,
    after attacks resolved there or in the full loop), and a challenge - also of a Wild Draw Four laid as
    the last card - sees that attack, its player and the colour before it."""
    f = _write(tmp_path, "header.py", """
    from unosim.players.policy_api import (policy, greedy_obs_nb, D_PLAY, D_CHALLENGE, OBS_PEND_KIND, OBS_PEND_FROM,
                                   OBS_PREV_COLOR, OBS_SEAT, OBS_PLAYERS, WD4, NCOLORS)

    @policy()
    def header_checker(kind, obs, params, rng):
        pk = obs[OBS_PEND_KIND]
        frm = obs[OBS_PEND_FROM]
        if kind == D_PLAY and pk < 0 and frm != -1:
            return 1000 + frm
        if kind == D_CHALLENGE:
            if pk != WD4 or frm < 0 or frm >= obs[OBS_PLAYERS] or frm == obs[OBS_SEAT]:
                return 2000 + pk
            if obs[OBS_PREV_COLOR] < 0 or obs[OBS_PREV_COLOR] >= NCOLORS:
                return 3000 + obs[OBS_PREV_COLOR]
            return 1  # challenge every time: the last-card challenges happen too
        return greedy_obs_nb(kind, obs, params, rng)
    """)
    for rules in ("official", "stacking"):  # (official challenges a last-card Wild Draw Four too)
        r = simulate(policies="header_checker,greedy,random(bluff=0.5),header_checker", players=4, games=3000,
                     rules=rules, seed=5, threads=1, policy_files=[f])
        assert r.records["challenges"].sum() > 0  # (and no seat saw an inconsistent header: no PolicyError)


def test_policies_compile_without_reference_counting_unless_they_allocate(tmp_path):
    """A policy that allocates arrays needs numba's reference counting and still compiles, with it (and so
    does the slot that calls it); one that does not is compiled without, which makes its calls cheaper.
    Both play exactly like the built-in greedy."""
    from unosim.players.policy_api import _REG, _uses_nrt
    f = _write(tmp_path, "alloc.py", """
    import numpy as np
    from unosim.players.policy_api import policy, greedy_obs_nb

    @policy()
    def greedy_alloc(kind, obs, params, rng):
        scratch = np.zeros(4, np.int64)
        scratch[0] = greedy_obs_nb(kind, obs, params, rng)
        return scratch[0]

    @policy()
    def greedy_plain(kind, obs, params, rng):
        return greedy_obs_nb(kind, obs, params, rng)
    """)
    load_policy_file(f)
    nrt = {u.name: _uses_nrt(u.function) for u in _REG.users if u.name in ("greedy_alloc", "greedy_plain")}
    assert nrt == {"greedy_alloc": True, "greedy_plain": False}
    want = simulate(policies="greedy", players=4, games=300, seed=6, threads=1).records
    for pols in ("greedy_alloc,greedy,greedy_plain,greedy", "greedy_plain,greedy,greedy,greedy_plain"):
        got = simulate(policies=pols, players=4, games=300, seed=6, threads=1, policy_files=[f]).records
        assert got.equals(want), pols


def test_nothing_is_known_until_something_is_shown_each_round(tmp_path):
    """The known-cards region is empty while OBS_KNOWN_ON is 0, also in the rounds after one where a swap
    showed hands (one observation buffer serves every round of a batch, and the engine clears the region
    at a round's start only when the last round wrote it).  The policy answers out of range, naming the
    entry, when it finds a stale count; it counts nothing where nothing was shown."""
    f = _write(tmp_path, "known.py", """
    from unosim.players.policy_api import policy, greedy_obs_nb, OBS_KNOWN_ON, OBS_KNOWN_AT, MAXP, NKINDS

    @policy()
    def known_checker(kind, obs, params, rng):
        if obs[OBS_KNOWN_ON] == 0:
            k0 = obs[OBS_KNOWN_AT]
            for k in range(MAXP * NKINDS):
                if obs[k0 + k] != 0:
                    return 10000 + k
        return greedy_obs_nb(kind, obs, params, rng)
    """)
    r = simulate(rules="seven_zero", policies="known_checker,greedy,random,known_checker", players=4, games=400,
                 seed=2, threads=1, batch_size=400, policy_files=[f])
    assert (r.records["end_reason"] == "win").all()
