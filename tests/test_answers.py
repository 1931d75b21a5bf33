"""What-if answers that hold up: user policies in every command and an edited strategy never served stale.

The two strategies of each edit play differently (greedy vs the first legal card), so at a few hundred
rounds their seat-0 win rates differ by far more than zero: a stale cell would give exactly the old
numbers and the same store key.
"""

from __future__ import annotations

import importlib.util
import json
import textwrap

import pytest
from click.testing import CliRunner

from unosim.cli import main
from unosim.experiments import compare, run_sweep
from unosim.policy_api import load_policy_files
from unosim.store import list_cells

NUMBA_FILE = """
from unosim.policy_api import policy, D_PLAY, OBS_NLEGAL, greedy_obs_nb

@policy()
def NAME(kind, obs, params, rng):
    if kind == D_PLAY and BAD:
        return 0 if obs[OBS_NLEGAL] > 0 else -1
    return greedy_obs_nb(kind, obs, params, rng)
"""

PY_FILE = """
from unosim.external import PythonPolicy

class Mine(PythonPolicy):
    name = "NAME"

    def play(self, d):
        if BAD:
            return 0 if d.nlegal else -1
        return d.greedy()
"""


def _write(path, body: str, bad: bool, name: str) -> str:
    """A policy file (policy names are global to a process: each test names its own)."""
    path.write_text(textwrap.dedent(body).replace("BAD", "True" if bad else "False").replace("NAME", name))
    return str(path)


def _seat0(df) -> float:
    return float(df[(df["metric"] == "seat0_win")]["mean"].iloc[0])


def _compare(store, **kw):
    return compare(["official"], players=3, games=300, seed=3, store=store, threads=1, **kw)


def test_an_edited_policy_file_is_rerun_through_python(tmp_path):
    f = _write(tmp_path / "mine.py", NUMBA_FILE, bad=False, name="mine_a")
    load_policy_files([f])  # the route of the report: load, then compare without naming the file
    before = _compare(tmp_path / "store", policies="mine_a,greedy,greedy")
    assert before.attrs["arms"][0]["cell"]["policy_files"][0]["path"] == str((tmp_path / "mine.py").resolve())
    again = _compare(tmp_path / "store", policies="mine_a,greedy,greedy")
    assert again["key"].iloc[0] == before["key"].iloc[0]  # unchanged file: the stored cell
    _write(tmp_path / "mine.py", NUMBA_FILE, bad=True, name="mine_a")
    after = _compare(tmp_path / "store", policies="mine_a,greedy,greedy")
    assert after["key"].iloc[0] != before["key"].iloc[0]
    assert _seat0(after) != _seat0(before)
    fresh = _compare(tmp_path / "fresh", policies="mine_a,greedy,greedy", policy_files=[f])
    assert _seat0(fresh) == _seat0(after)  # the new numbers are the edited strategy's own
    assert len(list_cells(tmp_path / "store")) == 2


def test_an_edited_policy_file_is_rerun_through_the_cli(tmp_path):
    f = _write(tmp_path / "mine.py", NUMBA_FILE, bad=False, name="mine_b")
    args = ["compare", "--arm", "official", "--players", "3", "--games", "300", "--seed", "3", "--threads", "1",
            "--policies", "mine_b,greedy,greedy", "--policy-file", f, "--store", str(tmp_path / "store"), "--json"]
    runner = CliRunner()
    first = runner.invoke(main, args)
    assert first.exit_code == 0, first.output
    _write(tmp_path / "mine.py", NUMBA_FILE, bad=True, name="mine_b")
    second = runner.invoke(main, args)
    assert second.exit_code == 0, second.output
    rows = [json.loads(r.output)["rows"] for r in (first, second)]
    win = [next(r["mean"] for r in rs if r["metric"] == "seat0_win") for rs in rows]
    assert rows[0][0]["key"] != rows[1][0]["key"] and win[0] != win[1]


def test_an_edited_plain_python_class_passed_as_an_object_is_rerun(tmp_path):
    def load(bad: bool):
        path = _write(tmp_path / f"cls_{bad}.py", PY_FILE, bad, name="mine_c")
        spec = importlib.util.spec_from_file_location("unosim_test_cls", path)  # a re-run notebook cell
        mod = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(mod)
        return mod.Mine

    good = _compare(tmp_path / "store", policies=[load(False), "greedy", "greedy"])
    bad = _compare(tmp_path / "store", policies=[load(True), "greedy", "greedy"])
    assert good.attrs["arms"][0]["cell"]["policy_classes"][0]["name"] == "mine_c"
    assert good["key"].iloc[0] != bad["key"].iloc[0]
    assert _seat0(good) != _seat0(bad)


def test_a_sweep_file_names_its_policy_files(tmp_path):
    _write(tmp_path / "mine.py", NUMBA_FILE, bad=False, name="mine_d")
    sweep_file = tmp_path / "sweep.toml"
    sweep_file.write_text('games = 200\nseed = 1\npolicy_files = ["mine.py"]\n'
                          '[grid]\nplayers = 3\npolicies = ["mine_d,greedy,greedy", "greedy"]\n')
    before = run_sweep(sweep_file, store=tmp_path / "store", threads=1)
    _write(tmp_path / "mine.py", NUMBA_FILE, bad=True, name="mine_d")
    after = run_sweep(sweep_file, store=tmp_path / "store", threads=1)
    assert before["key"].iloc[0] != after["key"].iloc[0] and before["seat0_win"].iloc[0] != after["seat0_win"].iloc[0]
    assert before["key"].iloc[1] == after["key"].iloc[1]  # the cell without the user policy is reused


def test_a_bad_policy_files_key_is_one_line(tmp_path):
    sweep_file = tmp_path / "sweep.toml"
    sweep_file.write_text('games = 200\npolicy_files = ["nope.py"]\n[grid]\nplayers = 3\n')
    with pytest.raises(ValueError, match=r"line 2: policy file .*nope.py' not found"):
        run_sweep(sweep_file, store=tmp_path / "store")


@pytest.mark.parametrize("command", [
    ["tournament", "--policies", "mine_e,mine_e_py,greedy", "--players", "3", "--games", "60", "--bootstrap", "0"],
    ["tune", "--policy", "greedy", "--against", "mine_e,mine_e_py", "--players", "3", "--budget", "300", "--games-per-eval", "150",
     "--eval-games", "60", "--popsize", "2"],
])
def test_tournament_and_tune_take_numba_and_python_policy_files(tmp_path, command):
    tag = command[0][:2]
    files = [_write(tmp_path / "mine.py", NUMBA_FILE, bad=True, name=f"mine_{tag}"),
             _write(tmp_path / "mine_py.py", PY_FILE, bad=True, name=f"mine_{tag}_py")]
    command = [a.replace("mine_e", f"mine_{tag}") for a in command]
    r = CliRunner().invoke(main, [*command, "--threads", "1", "--json",
                                  *[a for f in files for a in ("--policy-file", f)]])
    assert r.exit_code == 0, r.output
    out = json.loads(r.output)
    assert {f["path"] for f in out["meta"]["policy_files"]} == {str((tmp_path / n).resolve())
                                                                 for n in ("mine.py", "mine_py.py")}
