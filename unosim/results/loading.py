"""Reading what unosim saved, ready for pandas: :func:`load` (``unosim.load``) and :func:`load_any`.

A run folder (``simulate --out``), a results-store cell, a folder holding several runs (``compare --out``,
``sweep --out``, a study, the store itself), or a report folder (``unosim report --out``).  No numba, no
matplotlib: loading and reshaping saved results compiles nothing.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pandas as pd

from .. import ENGINE_VERSION
from ..errors import RunFileError
from ..running.rounds import SimulationResult
from .io import find_runs, is_store_cell, load_run
from .store import read_cell_file, read_chunks, result_from_records


def load_any(d: Path) -> tuple[pd.DataFrame, dict[str, Any]]:
    """(records, meta) of a saved run (:func:`load_run`) or of a results-store cell (its stored
    games; cells of another engine version are refused)."""
    d = Path(d)
    if not is_store_cell(d):
        return load_run(d)
    cell = read_cell_file(d)
    if cell.engine_version != ENGINE_VERSION:
        raise RunFileError(f"store cell {str(d)!r} was made by engine v{cell.engine_version}; accepted: cells of "
                         f"the current engine v{ENGINE_VERSION} (rerun it)")
    records = read_chunks(d, cell.index)
    if records is None:
        raise RunFileError(f"store cell {str(d)!r} has no finished games yet; accepted: a cell with records")
    res = result_from_records(cell, records, len(records))
    return res.records, res.meta


class Results(list):
    """Several loaded runs (a list of :class:`~unosim.running.sim.SimulationResult`, each with ``label``) whose
    :meth:`tidy` and :meth:`summary_frame` stack the runs' frames, labelled by the ``arm`` column."""

    def tidy(self) -> pd.DataFrame:
        return pd.concat([r.tidy() for r in self], ignore_index=True) if self else pd.DataFrame()

    def summary_frame(self) -> pd.DataFrame:
        return pd.concat([r.summary_frame() for r in self], ignore_index=True) if self else pd.DataFrame()


def _labels(folder: Path) -> dict[str, str]:
    """Store key -> arm label from a ``compare --out`` folder's compare.json (empty if there is none)."""
    try:
        arms = json.loads((folder / "compare.json").read_text())["attrs"]["arms"]
        return {a["key"]: str(a["label"]) for a in arms}
    except (OSError, ValueError, KeyError, TypeError):
        return {}


def _load_one(d: Path, label: str | None = None) -> SimulationResult:
    records, meta = load_any(d)
    summary_path = d / "summary.json"
    summary = None
    if summary_path.is_file() and not meta.get("interrupted"):
        try:
            summary = json.loads(summary_path.read_text())
        except ValueError:
            summary = None
    if summary is None or summary.get("games") != len(records):
        cell = read_cell_file(d) if is_store_cell(d) else None
        if cell is None:
            from .rundir import cell_of_meta

            cell = cell_of_meta(meta)
        summary = result_from_records(cell, records, len(records), template=meta).summary
    if label is None:  # a store cell, named by hash: name it by its settings
        label = f"{meta.get('rules')}, {meta.get('deck')}, {meta.get('players')}p, " + ",".join(meta.get("policies", []))
    return SimulationResult(records, summary, meta, bool(meta.get("interrupted", False)), label=label)


def load(path: str | Path) -> SimulationResult | Results | dict[str, pd.DataFrame]:
    """What unosim saved at ``path``, ready for pandas:

    * a run folder (``simulate --out DIR``) or a results-store cell: a
      :class:`~unosim.running.sim.SimulationResult` (``records``, ``summary``, ``meta``, ``tidy()``,
      ``summary_frame()``);
    * a folder holding several (``compare --out``, ``sweep --out``, a study's ``runs/``, the store): a
      :class:`Results` list of them, labelled by arm (``compare``) or folder name;
    * a report folder (``unosim report --out``): its tables, name -> DataFrame, read from its CSV files.

    Anything else raises :class:`~unosim.errors.RunFileError` with one line.
    """
    d = Path(path)
    if not d.exists():
        raise RunFileError(f"{str(d)!r} does not exist; accepted: a run folder, a store cell, a folder of runs "
                           "or a report folder")
    runs = find_runs(d) if d.is_dir() else []
    if runs == [d]:
        return _load_one(d, None if is_store_cell(d) else d.name)
    if runs:
        labels = _labels(d)
        out = Results()
        for r in runs:
            label = labels.get(_store_key(r)) or (None if is_store_cell(r) else str(r.relative_to(d)))
            out.append(_load_one(r, label))
        return out
    if d.is_dir() and (d / "report.html").is_file():
        return {p.stem: pd.read_csv(p) for p in sorted(d.glob("*.csv"))}
    raise RunFileError(f"{str(d)!r} holds no saved run; accepted: a folder written by `unosim simulate --out`, "
                       "`compare --out`, `sweep --out` or `report --out`, or a results-store cell")


def _store_key(d: Path) -> str | None:
    try:
        return json.loads((d / "meta.json").read_text()).get("store_key")
    except (OSError, ValueError):
        return None
