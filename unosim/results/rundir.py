"""Crash-safe run directories: what ``unosim simulate --out DIR`` writes and ``unosim rerun DIR`` resumes.

Layout of ``DIR``::

    meta.json                     written first (status "running"), rewritten at the end
    chunks/records-<lo>-<hi>.parquet   finished chunks (match mode with --round-records: rounds-*.parquet too)
    records.parquet               all records, once the run is complete
    rounds.parquet                match mode with --round-records, once complete
    summary.json                  when the run ends (complete, or interrupted by Ctrl-C)

The run is cut into chunks of games (``--batch-size``) run in parallel; each chunk is written with the
results store's atomic chunk writer (:func:`unosim.results.store.write_chunk`) as soon as it finishes, so a
SIGKILL loses only the chunks in flight and a Ctrl-C (even a second one) loses nothing finished.

Order of writes, so that no moment leaves a mixed directory:

1. a new run into an old ``DIR`` first removes the old ``meta.json`` (from then on nothing in ``DIR``
   claims to be a run), then the old records, summary and chunks, then writes the new
   ``meta.json`` (status ``running``): new records never sit next to old metadata;
2. chunks land in ``chunks/`` as they finish;
3. a complete run writes ``records.parquet`` (+ ``rounds.parquet``), ``summary.json``, then
   ``meta.json`` (status ``complete``), then removes ``chunks/``.  An interrupted one writes
   ``summary.json`` and ``meta.json`` (status ``interrupted``) and keeps ``chunks/``.

:func:`unosim.results.io.load_run` reads ``chunks/`` when it is there (the run is unfinished or was
killed), else ``records.parquet``.  ``meta.json`` carries the full cell (``meta["cell"]``:
rules, deck with its content hash, full-precision policies, seating, mode and match options,
seed, engine version), so :func:`rerun` reproduces the run exactly, and completes an interrupted
or killed one in place (running only its missing chunks).
"""

from __future__ import annotations

import contextlib
import functools
import json
import shutil
import tempfile
import warnings
from pathlib import Path
from typing import Any

import pandas as pd

from .. import ENGINE_VERSION
from ..running.match import applicable_options
from ..running.sim import SimulationResult, default_chunk
from ..validate import check_batch, check_games, check_threads, record_bytes
from .io import UNFINISHED
from .outdir import clear_outputs, written_by_unosim
from .store import (
    MATCH_KEYS,
    Cell,
    ChunkTask,
    StoreError,
    WriteBehind,
    locked,
    make_cell,
    missing_ranges,
    probe,
    quarantine_damaged,
    read_chunks,
    result_from_records,
    run_tasks_locally,
    stored_ranges,
    sweep_temp_files,
    write_chunk,
    write_frame,
    write_json,
)

CHUNKS = "chunks"
RUN_FILES = ("records.parquet", "rounds.parquet", "summary.json")


class RunDirError(StoreError):
    """A directory that cannot be resumed or reproduced (one-line message)."""


def simulate_into(out_dir: Path | str, games: int, threads: int | None = None, batch_size: int | None = None,
                  progress: bool = False, round_records: bool = False, backend: str | None = "local",
                  scheduler: str | None = None, workers: int | None = None, client=None,
                  **cell_kwargs: Any) -> SimulationResult:
    """``simulate(**cell_kwargs, games=...)`` written crash-safely into ``out_dir`` (a fresh run).

    ``backend``/``scheduler``/``workers``/``client``: where the chunks run (:mod:`unosim.results.backends`)."""
    from .backends import backend_session

    cell = make_cell(**cell_kwargs)
    games = check_games(games, record_bytes(cell.mode, cell.players, from_disk=True, round_records=round_records))
    with backend_session(backend, scheduler, workers, client, threads) as be:
        return run_into_dir(out_dir, cell, games, threads, batch_size, progress, round_records, backend=be)


def _fresh_start(d: Path) -> None:
    """Remove an old run from ``d``: its meta.json first, so nothing is ever claimed by stale metadata."""
    by_unosim = written_by_unosim(d)
    with contextlib.suppress(FileNotFoundError):
        (d / "meta.json").unlink()
    for name in RUN_FILES:
        with contextlib.suppress(FileNotFoundError):
            (d / name).unlink()
    shutil.rmtree(d / CHUNKS, ignore_errors=True)
    clear_outputs(d, by_unosim=by_unosim)  # what other commands wrote here (arms/, cells/, lineups/, pages ...)
    with contextlib.suppress(FileNotFoundError):
        (d / UNFINISHED).unlink()  # a killed command's marker: this folder is now a simulate run


def run_into_dir(out_dir: Path | str, cell: Cell, games: int, threads: int | None = None, chunk: int | None = None,
                 progress: bool = False, round_records: bool = False, resume: bool = False,
                 backend=None) -> SimulationResult:
    """Run games [0, games) of ``cell`` into ``out_dir`` chunk by chunk (see the module doc).

    ``resume``: keep the finished chunks of the same cell already in ``out_dir`` and run only the rest.
    ``backend``: an :mod:`unosim.results.backends` backend (None: ``threads`` threads here)."""
    d = Path(out_dir)
    t = check_threads(threads)
    chunk = check_batch(chunk, default_chunk(cell.mode, games, t, backend))
    extra = {"round_records": True} if round_records else {}
    first = probe(cell, **extra)  # validates everything before the directory is touched
    template = first.meta
    with locked(d):
        if resume:
            _check_resumable(d, cell)
        else:
            _fresh_start(d)
        meta = dict(template, games=games, threads=t, batch_size=chunk, games_completed=0, interrupted=False,
                    status="running", cell=cell.to_dict(), store_key=cell.key, round_records=bool(round_records))
        write_json(d / "meta.json", meta)
        cdir = d / CHUNKS
        cdir.mkdir(exist_ok=True)
        sweep_temp_files(d)  # a temp file of the final records, left by a kill
        sweep_temp_files(cdir)
        if resume:
            for name in quarantine_damaged(cdir):  # recomputed below with the missing chunks
                warnings.warn(f"{str(cdir / name)!r} is damaged; moved aside and recomputed", stacklevel=2)
        todo = missing_ranges(stored_ranges(cdir), games, chunk)

        def write(task: ChunkTask, res: SimulationResult) -> None:
            write_chunk(cdir, task.lo, task.hi, {"records": res.records, **res.extra})

        tasks = [ChunkTask(cell, lo, hi, tuple(sorted(extra.items()))) for lo, hi in todo]
        run = (backend.run_tasks if backend is not None else functools.partial(run_tasks_locally, threads=t))
        with WriteBehind(write) as behind:
            done = run(tasks, behind, progress, cell.unit)
        elapsed = done.seconds + behind.waited
        records = read_chunks(cdir, cell.index, quarantine=True)
        if records is None:
            records = first.records.iloc[:0]
        complete = len(records) == games
        result = result_from_records(cell, records, games, elapsed, first.summary.get("compile_seconds", 0.0), t,
                                     chunk, not complete, template)
        ran = done.ran
        result.summary["games_per_second"] = ran / elapsed if elapsed > 0 and ran else None
        if backend is not None and backend.name != "local":
            result.summary.update(backend.describe())
        result.meta.update(status="complete" if complete else "interrupted", round_records=bool(round_records))
        if round_records:
            rounds = read_chunks(cdir, "match", name="rounds")
            result.extra["rounds"] = rounds if rounds is not None else pd.DataFrame()
        _finish(d, result, complete)
    return result


def _finish(d: Path, result: SimulationResult, complete: bool) -> None:
    if complete:
        write_frame(result.records, d / "records.parquet")
        for name, frame in result.extra.items():
            write_frame(frame, d / f"{name}.parquet")
    write_json(d / "summary.json", result.summary)
    write_json(d / "meta.json", result.meta)
    if complete:
        shutil.rmtree(d / CHUNKS, ignore_errors=True)


def read_meta(d: Path) -> dict[str, Any]:
    path = Path(d) / "meta.json"
    try:
        return json.loads(path.read_text())
    except (OSError, json.JSONDecodeError):
        raise RunDirError(f"{str(d)!r} is not a saved run (no readable meta.json); accepted: a directory written "
                          "by `unosim simulate --out DIR`") from None


def cell_of_meta(meta: dict[str, Any]) -> Cell:
    """The cell of a saved run: ``meta["cell"]``, or rebuilt from the plain fields of older runs."""
    if "cell" in meta:
        return Cell.from_dict(meta["cell"])
    mode = meta.get("mode", "round")
    opts = applicable_options({k: meta[k] for k in MATCH_KEYS if k in meta}) if mode == "match" else {}
    return make_cell(rules=meta["rules"], players=meta["players"], policies=list(meta["policies"]),
                     deck=meta.get("deck", "classic"), seed=meta["seed"], seating=meta.get("seating", "fixed"),
                     mode=mode, **opts)


def _check_resumable(d: Path, cell: Cell) -> None:
    meta = read_meta(d)
    if meta.get("engine_version") != ENGINE_VERSION:
        raise RunDirError(f"{str(d)!r} was written by engine v{meta.get('engine_version')}, this is engine "
                          f"v{ENGINE_VERSION}; resuming would mix results; accepted: `unosim rerun {d} --out NEW`")
    if cell_of_meta(meta).key != cell.key:
        raise RunDirError(f"{str(d)!r} holds a different run; accepted: a fresh --out directory")


def rerun(run_dir: Path | str, out: Path | str | None = None, threads: int | None = None,
          progress: bool = False) -> tuple[SimulationResult, dict[str, Any]]:
    """Reproduce a saved run from its meta.json.

    An unfinished (interrupted or killed) run without ``out`` is completed in place.  Otherwise the
    run is recomputed into ``out`` (a temporary directory when None) and its records are compared
    with the saved ones on the games both have.  Returns (result, report) with report keys
    ``action`` ("completed" or "reproduced"), ``compared`` (games) and ``identical`` (bool or None)."""
    from .io import load_run

    d = Path(run_dir)
    meta = read_meta(d)
    cell = cell_of_meta(meta)
    games = check_games(meta.get("games"))
    rr = bool(meta.get("round_records", False))
    chunk = meta.get("batch_size")
    unfinished = meta.get("status", "complete") != "complete"
    if out is None and unfinished:
        if cell.engine_version != ENGINE_VERSION:
            raise RunDirError(f"{str(d)!r} was written by engine v{cell.engine_version}, this is engine "
                              f"v{ENGINE_VERSION}; accepted: `unosim rerun {d} --out NEW`")
        before = covered_games(d)
        res = run_into_dir(d, cell, games, threads, chunk, progress, rr, resume=True)
        return res, {"action": "completed", "kept": before, "compared": None, "identical": None}
    saved, _ = load_run(d)
    if cell.engine_version != ENGINE_VERSION:
        cell = Cell.from_dict({**cell.to_dict(), "engine_version": ENGINE_VERSION})
    with contextlib.ExitStack() as stack:
        target = Path(out) if out is not None else Path(stack.enter_context(tempfile.TemporaryDirectory()))
        res = run_into_dir(target, cell, games, threads, chunk, progress, rr)
        key = cell.index
        common = saved[saved[key].isin(res.records[key])].reset_index(drop=True)
        mine = res.records[res.records[key].isin(saved[key])].reset_index(drop=True)
        identical = bool(len(common) == len(mine) and common.equals(mine[common.columns])) \
            if set(common.columns) <= set(mine.columns) else False
    return res, {"action": "reproduced", "compared": int(len(common)), "identical": identical}


def covered_games(d: Path) -> int:
    return sum(hi - lo for lo, hi in stored_ranges(Path(d) / CHUNKS))
