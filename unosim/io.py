"""Saving and loading runs: ``records.parquet`` (one row per round), ``summary.json``, ``meta.json``.

``meta.json`` holds everything needed to reproduce the run (seed, rules string, policies, deck,
players, games, versions); the thread count and batch size never change the records.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pandas as pd


def _write_json(path: Path, obj: dict[str, Any]) -> None:
    tmp = path.with_suffix(path.suffix + ".tmp")
    tmp.write_text(json.dumps(obj, indent=2, allow_nan=False) + "\n")
    os.replace(tmp, path)


def save_run(result, out_dir: Path) -> dict[str, Path]:
    """Write a SimulationResult atomically (each file is written to a temp name, then renamed)."""
    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    rec = out_dir / "records.parquet"
    tmp = out_dir / "records.parquet.tmp"
    result.records.to_parquet(tmp, index=False, engine="pyarrow")
    os.replace(tmp, rec)
    paths = {}
    for name, frame in getattr(result, "extra", {}).items():
        path = out_dir / f"{name}.parquet"
        frame.to_parquet(path.with_suffix(".parquet.tmp"), index=False, engine="pyarrow")
        os.replace(path.with_suffix(".parquet.tmp"), path)
        paths[name] = path
    _write_json(out_dir / "meta.json", result.meta)
    _write_json(out_dir / "summary.json", result.summary)
    return {"records": rec, "meta": out_dir / "meta.json", "summary": out_dir / "summary.json", **paths}


def load_run(run_dir: Path) -> tuple[pd.DataFrame, dict[str, Any]]:
    """Read back (records, meta) written by :func:`save_run` or by a crash-safe ``simulate --out``
    (:mod:`unosim.rundir`): an unfinished or killed run is read from its finished chunks, and its
    meta then says ``interrupted`` with the rounds it kept in ``games_completed``."""
    run_dir = Path(run_dir)
    meta_path = run_dir / "meta.json"
    rec_path = run_dir / "records.parquet"
    meta = json.loads(meta_path.read_text()) if meta_path.is_file() else {}
    if meta.get("status", "complete") != "complete" and (run_dir / "chunks").is_dir():
        from .store import read_chunks

        records = read_chunks(run_dir / "chunks", "match" if meta.get("mode") == "match" else "game")
        if records is not None:
            meta.update(interrupted=True, games_completed=int(len(records)))
            return records, meta
    if not meta_path.is_file() or not rec_path.is_file():
        raise ValueError(f"{str(run_dir)!r} is not a saved run; accepted: a directory written by "
                         "`unosim simulate --out DIR` (records.parquet + meta.json)")
    return pd.read_parquet(rec_path), meta


def find_runs(path: Path) -> list[Path]:
    """``path`` itself when it is a saved run or a results-store cell, else every one below it
    (sorted): a study's or a sweep's output folder, or the store (``results/store``)."""
    path = Path(path)
    if _is_run(path):
        return [path]
    return sorted({p.parent for name in ("meta.json", "cell.json") for p in path.rglob(name)})


def _is_run(d: Path) -> bool:
    return (d / "meta.json").is_file() or (d / "cell.json").is_file()


def is_store_cell(d: Path) -> bool:
    return (Path(d) / "cell.json").is_file() and not (Path(d) / "meta.json").is_file()


def load_any(d: Path) -> tuple[pd.DataFrame, dict[str, Any]]:
    """(records, meta) of a saved run (:func:`load_run`) or of a results-store cell (its stored
    games; cells of another engine version are refused)."""
    d = Path(d)
    if not is_store_cell(d):
        return load_run(d)
    from . import ENGINE_VERSION
    from .store import read_cell_file, read_chunks, result_from_records

    cell = read_cell_file(d)
    if cell.engine_version != ENGINE_VERSION:
        raise ValueError(f"store cell {str(d)!r} was made by engine v{cell.engine_version}; accepted: cells of "
                         f"the current engine v{ENGINE_VERSION} (rerun it)")
    records = read_chunks(d, cell.index)
    if records is None:
        raise ValueError(f"store cell {str(d)!r} has no finished games yet; accepted: a cell with records")
    res = result_from_records(cell, records, len(records))
    return res.records, res.meta
