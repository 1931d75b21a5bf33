"""Results for pandas: tidy records with settings and policy names, summaries as frames, one loader, one default."""

from __future__ import annotations

import contextlib
import inspect
import io
import json

import pandas as pd
import pytest

import unosim
from unosim import DEFAULT_GAMES, RunFileError, simulate
from unosim.analysis.tidy import SETTINGS
from unosim.cli import run as cli_run
from unosim.results.io import save_run
from unosim.results.loading import Results

LINE_UP = "greedy,random,greedy,random"


def cli(*argv: str) -> str:
    buf = io.StringIO()
    with contextlib.redirect_stdout(buf), contextlib.redirect_stderr(buf):
        try:
            cli_run(list(argv))
        except SystemExit as e:
            assert not e.code, buf.getvalue()
    return buf.getvalue()


@pytest.fixture(scope="module")
def res():
    return simulate(rules="official+stacking", players=4, policies=LINE_UP, games=600, seed=3, threads=1)


def test_tidy_adds_settings_and_policy_names_to_a_copy(res):
    before = res.records.copy()
    t = res.tidy()
    assert list(t.columns[:len(SETTINGS)]) == list(SETTINGS)
    assert len(t) == len(res.records) and t["players"].eq(4).all() and t["rules"].eq("official+stacking").all()
    assert t["policies"].eq(LINE_UP).all() and t["deck"].eq("classic").all() and t["seed"].eq(3).all()
    names = LINE_UP.split(",")
    expect = [names[i] if i >= 0 else None for i in t["winner_policy"]]
    assert [None if pd.isna(x) else x for x in t["winner_policy_name"]] == expect
    assert set(t["winner_policy_name"].dropna()) == {"greedy", "random"}
    # every record column is there, with its values; the stored records are untouched
    pd.testing.assert_frame_equal(t[list(res.records.columns)], res.records.reset_index(drop=True))
    pd.testing.assert_frame_equal(res.records, before)
    assert "winner_policy_name" not in res.records


def test_tidy_groupby_matches_the_summary(res):
    t = res.tidy()
    wins = t.groupby("winner_policy_name", observed=True).size() / len(t) / 2  # two seats each
    for name, rate in res.summary["policy_win_rate"].items():
        assert wins[name] == pytest.approx(rate)


def test_summary_frame_has_one_row_per_seat(res):
    f = res.summary_frame()
    assert list(f["seat"]) == [0, 1, 2, 3] and list(f["policy"]) == LINE_UP.split(",")
    assert list(f["seat_win_rate"]) == res.summary["seat_win_rate"]
    assert f["mean_turns"].eq(res.summary["mean_turns"]).all()
    assert isinstance(res.summary, dict)  # the dict stays, for old readers


def test_match_records_get_policy_names():
    m = simulate(mode="match", players=3, policies="greedy,random,random", games=40, seed=1, threads=1)
    t = m.tidy()
    assert t["mode"].eq("match").all()
    names = ["greedy", "random", "random"]
    assert [None if pd.isna(x) else x for x in t["winner_policy_name"]] == \
        [names[i] if i >= 0 else None for i in t["winner_policy"]]
    for s in range(3):
        assert list(t[f"policy_at_seat_{s}_name"]) == [names[i] for i in t[f"policy_at_seat_{s}"]]
    f = m.summary_frame()
    assert list(f["seat_match_win_rate"]) == m.summary["seat_match_win_rate"]


def test_load_a_saved_run(res, tmp_path):
    save_run(res, tmp_path / "run")
    got = unosim.load(tmp_path / "run")
    pd.testing.assert_frame_equal(got.records, res.records)
    assert got.summary["seat_win_rate"] == res.summary["seat_win_rate"] and got.label == "run"
    assert got.tidy()["arm"].eq("run").all()


def test_load_a_compare_folder_a_store_cell_and_a_report(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    cli("compare", "--players", "3", "--games", "300", "--policies", "greedy", "--arm", "official",
        "--arm", "official+stacking", "--out", "cmp")
    runs = unosim.load("cmp")
    assert isinstance(runs, Results) and [r.label for r in runs] == ["official", "official+stacking"]
    t = runs.tidy()
    assert len(t) == 600 and list(t.groupby("arm", observed=True).size()) == [300, 300]
    assert runs.summary_frame().shape[0] == 6
    key = json.loads((tmp_path / "cmp" / "compare.json").read_text())["attrs"]["arms"][0]["key"]
    from pathlib import Path

    from unosim.results.store import (
        DEFAULT_ROOT,  # results/store, or where the test session keeps the default store
    )

    cell = next(p.parent for p in Path(DEFAULT_ROOT).rglob("cell.json") if key in str(p))
    one = unosim.load(cell)
    assert len(one.records) == 300 and one.label.startswith("official, classic, 3p")
    cli("report", "cmp/arms", "--out", "rep")
    tables = unosim.load("rep")
    assert {"summary", "seats"} <= set(tables) and isinstance(tables["seats"], pd.DataFrame)


def test_load_refuses_what_is_not_a_result(tmp_path):
    with pytest.raises(RunFileError, match="does not exist"):
        unosim.load(tmp_path / "nothing")
    (tmp_path / "empty").mkdir()
    with pytest.raises(RunFileError, match="holds no saved run"):
        unosim.load(tmp_path / "empty")


def test_one_default_game_count_for_the_command_line_and_python():
    from unosim.cli import main
    from unosim.results.backends import simulate as backend_simulate

    assert inspect.signature(simulate).parameters["games"].default == DEFAULT_GAMES
    assert inspect.signature(backend_simulate).parameters["games"].default == DEFAULT_GAMES
    opt = next(p for p in main.commands["simulate"].params if p.name == "games")
    assert int(str(opt.default).replace("_", "").replace("k", "000")) == DEFAULT_GAMES
