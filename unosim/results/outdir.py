"""Output folders that are never mixed: the one mechanism every command that writes ``--out`` uses.

A command that writes a folder (``compare``, ``sweep``, ``tournament``, ``tune``, ``report``,
studies) claims it with :func:`writing`:

1. it writes the marker file ``UNFINISHED`` first (from then on every reader refuses the folder and
   every run below it: :func:`unosim.results.io.check_finished`);
2. it removes what an earlier unosim command wrote there and this one may not rewrite: the entries
   named in the earlier command's manifest (``.unosim-outputs.json``) and every name a unosim
   command writes (``meta.json`` first, then ``arms/``, ``cells/``, ``lineups/``, ``runs/``, the
   tables and pages ...), never an input of this command and never a file unosim did not write;
   leftover ``*.tmp`` files of a killed writer are swept;
3. it writes its files (each one atomically: temp name, fsync, ``os.replace``);
4. it writes the manifest of what it wrote, then removes ``UNFINISHED`` (this commits the folder).

So a kill at any moment leaves the old complete result (before step 1), the new complete result
(after step 4), or a folder marked ``UNFINISHED`` that every reader refuses with one line saying to
run the command again; never old files beside new ones.  ``simulate --out`` keeps its own resumable
layout (:mod:`unosim.results.rundir`: ``meta.json`` removed first and written last) and removes the other
commands' outputs the same way (:func:`clear_outputs`).
"""

from __future__ import annotations

import contextlib
import functools
import inspect
import json
import os
import shutil
import time
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path
from typing import Any

from .io import UNFINISHED, write_json, write_text

MANIFEST = ".unosim-outputs.json"
#: what a unosim command writes at the top of an output folder (folders written before the manifest
#: existed are cleared by these names); ``meta.json`` first, so nothing claims to be a run meanwhile
KNOWN_OUTPUTS = (
    "meta.json", "records.parquet", "rounds.parquet", "summary.json", "chunks",
    "arms", "cells", "lineups", "runs",
    "compare.json", "compare.csv", "sweep.json", "sweep.csv",
    "tournament.json", "tournament.csv", "lineups.csv", "tournament.md",
    "tuned_policy.txt", "tune.json", "history.csv", "tune_convergence.png", "tune_convergence.svg",
    "summary.md", "report.html", "summary.csv", ".unosim-write-test", "tournament.html",
    *(f"{chart}.{ext}" for chart in ("tournament_rating", "tournament_win_rate", "seat_win_rate", "game_length",
                                     "winner_points", "policy_win_rate", "rule_effects",
                                     "first_player_edge_by_players", "turns_by_players",
                                     "rounds_per_match_by_players", "match_win_by_players")
      for ext in ("png", "svg")),
)
#: the files of a saved run: kept when the output folder is itself an input (``report RUN --out RUN``)
RUN_ENTRIES = ("meta.json", "records.parquet", "rounds.parquet", "summary.json", "chunks", "cell.json")
_claimed: set[Path] = set()


def _remove(p: Path) -> None:
    if p.is_dir() and not p.is_symlink():
        shutil.rmtree(p)
    else:
        with contextlib.suppress(FileNotFoundError):
            p.unlink()


def _protected(p: Path, d: Path, keep: list[Path]) -> bool:
    """``p`` (an entry of ``d``) is an input: a kept path, a folder holding one, or a run file of ``d``
    when ``d`` itself is an input."""
    return any(k == p or p in k.parents or (k == d and p.name in RUN_ENTRIES) for k in keep)


def _manifest_entries(d: Path) -> list[str]:
    try:
        entries = json.loads((d / MANIFEST).read_text()).get("entries", [])
    except (OSError, ValueError, AttributeError):
        return []
    return [e for e in entries if isinstance(e, str) and e and "/" not in e and e not in (".", "..")]


#: files only unosim writes: a folder holding one of them was written by unosim (see :func:`clear_outputs`)
SIGNS = (MANIFEST, UNFINISHED, "meta.json", "compare.json", "sweep.json", "tournament.json", "tune.json",
         "report.html")


def written_by_unosim(d: Path) -> bool:
    return any((Path(d) / name).is_file() for name in SIGNS)


def clear_outputs(out_dir: Path | str, keep: Iterable[Path | str] = (), by_unosim: bool | None = None) -> None:
    """Remove from ``out_dir`` what unosim commands wrote there (``meta.json`` first), except the
    ``keep`` inputs; sweep leftover ``*.tmp`` files; the manifest last.  The names unosim commands write
    (:data:`KNOWN_OUTPUTS`) are removed only from a folder unosim wrote (``by_unosim``; None: it holds
    one of :data:`SIGNS`), so ``--out .`` never removes a ``runs/`` of the user's own.  The
    ``UNFINISHED`` marker is left alone (:func:`writing` writes its own before calling this)."""
    d = Path(out_dir).resolve()
    kept = [Path(k).resolve() for k in keep]
    if by_unosim is None:
        by_unosim = written_by_unosim(d)
    names = list(dict.fromkeys([*(KNOWN_OUTPUTS if by_unosim else ()), *_manifest_entries(d)]))
    for name in names:
        p = d / name
        if (p.exists() or p.is_symlink()) and not _protected(p, d, kept):
            _remove(p)
    for p in d.glob("*.tmp"):
        _remove(p)
    _remove(d / MANIFEST)


@contextlib.contextmanager
def writing(out_dir: Path | str, command: str, keep: Iterable[Path | str] = ()) -> Iterator[Path]:
    """Claim ``out_dir`` for a new result of ``command`` (see the module doc); yields the folder.

    ``keep``: the command's inputs that lie in ``out_dir`` (never removed).  On an exception the
    folder stays marked ``UNFINISHED``.  A claim inside a claim of the same folder (a library
    function called by a command that already claimed it) does nothing."""
    d = Path(out_dir)
    key = d.resolve()
    if key in _claimed:
        yield d
        return
    d.mkdir(parents=True, exist_ok=True)
    by_unosim = written_by_unosim(d)
    write_text(d / UNFINISHED, f"unosim {command} was writing this folder (pid {os.getpid()}, started "
                               f"{time.strftime('%Y-%m-%dT%H:%M:%S')}) and did not finish; it is not a "
                               "result: run the command again\n")
    clear_outputs(d, keep, by_unosim)
    before = set(os.listdir(d))
    _claimed.add(key)
    try:
        yield d
    finally:
        _claimed.discard(key)
    written = sorted(set(os.listdir(d)) - before - {UNFINISHED, MANIFEST, ".lock"})
    write_json(d / MANIFEST, {"command": command, "entries": written})
    (d / UNFINISHED).unlink()


def output_folder(out_dir: Path | str | None, command: str,
                  keep: Iterable[Path | str] = ()) -> contextlib.AbstractContextManager:
    """:func:`writing` when ``out_dir`` is given, else a context that does nothing."""
    return contextlib.nullcontext() if out_dir is None else writing(out_dir, command, keep)


def writes_folder(arg: str, command: str) -> Callable:
    """Decorator: the call claims its argument ``arg`` (an output folder, or None) with :func:`writing`."""
    def wrap(fn: Callable) -> Callable:
        sig = inspect.signature(fn)

        @functools.wraps(fn)
        def call(*args: Any, **kwargs: Any) -> Any:
            bound = sig.bind(*args, **kwargs)
            bound.apply_defaults()
            with output_folder(bound.arguments[arg], command):
                return fn(*args, **kwargs)
        return call
    return wrap
