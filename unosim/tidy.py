"""Results as pandas DataFrames: long ("tidy") records, summaries as frames, and one loader for saved results.

* :func:`tidy` turns a run's records into one long frame with the run's settings as columns
  (``arm``, ``rules``, ``deck``, ``players``, ``policies``, ``seating``, ``mode``, ``seed``) and the
  winner's policy by name (``winner_policy_name``) beside its index (match records: also
  ``policy_at_seat_<s>_name``), so that runs ``concat`` and
  ``groupby`` without ``assign``.  The columns are added to a copy: the stored records (and the
  record check of ``scripts/record_hashes.py``) are unchanged.
* :func:`summary_frame` turns a summary dict into a frame with one row per seat (round or match win
  rates with standard errors) plus the run's settings.
* :func:`load` reads what unosim saved: a run folder (``simulate --out``), a results-store cell, a
  folder holding several runs (``compare --out``, ``sweep --out``, a study, the store itself), or a
  report folder (``unosim report --out``).

No numba, no matplotlib: loading and reshaping saved results compiles nothing.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pandas as pd

from .errors import RunFileError

if TYPE_CHECKING:
    from .sim import SimulationResult

SETTINGS = ("arm", "rules", "deck", "players", "policies", "seating", "mode", "seed")
"""The settings columns :func:`tidy` and :func:`summary_frame` put first, in this order."""


def _settings(meta: dict[str, Any], summary: dict[str, Any], arm: str | None) -> dict[str, Any]:
    rules = str(meta.get("rules", summary.get("rules", "")))
    return {
        "arm": arm if arm is not None else rules,
        "rules": rules,
        "deck": str(meta.get("deck", summary.get("deck", ""))),
        "players": int(meta.get("players", summary.get("players", 0))),
        "policies": ",".join(str(p) for p in meta.get("policies", summary.get("policies", []))),
        "seating": str(meta.get("seating", "fixed")),
        "mode": str(meta.get("mode", "round")),
        "seed": int(meta.get("seed", summary.get("seed", 0))),
    }


def tidy(records: pd.DataFrame, meta: dict[str, Any], arm: str | None = None,
         summary: dict[str, Any] | None = None) -> pd.DataFrame:
    """One row per round (or match) of ``records``, the run's settings first, then every record column;
    ``winner_policy_name`` (the winning policy's name, ``None`` when nobody won) follows
    ``winner_policy`` (its index in ``meta["policies"]``).  ``arm`` labels the run (default: its rules)."""
    settings = _settings(meta, summary or {}, arm)
    out = pd.DataFrame({k: [v] * len(records) for k, v in settings.items()}, index=records.index)
    for k in ("arm", "rules", "deck", "policies", "seating", "mode"):
        out[k] = out[k].astype("category")
    out = pd.concat([out, records], axis=1)
    names = [str(p) for p in meta.get("policies", [])]
    # the winner's policy, and in match records the policy at each seat: by name beside the index
    for col in [c for c in records.columns if c == "winner_policy" or c.startswith("policy_at_seat_")]:
        new = "winner_policy_name" if col == "winner_policy" else f"{col}_name"
        out.insert(out.columns.get_loc(col) + 1, new, _names(records[col].to_numpy(), names))
    return out.reset_index(drop=True)


def _names(index, names: list[str]) -> pd.Categorical:
    """Positions in the line-up -> policy names (missing for -1: no winner)."""
    codes = {nm: k for k, nm in enumerate(dict.fromkeys(names))}
    table = [codes[nm] for nm in names]
    return pd.Categorical.from_codes([table[i] if 0 <= i < len(table) else -1 for i in index.tolist()],
                                     categories=list(codes))


def summary_frame(summary: dict[str, Any], meta: dict[str, Any] | None = None, arm: str | None = None
                  ) -> pd.DataFrame:
    """The summary as a frame: one row per seat with its policy, its win rate and standard error (match
    mode: match and round win rates), then every scalar of the summary as a column (``mean_turns``,
    ``se_turns``, ``games``, ...), the run's settings first."""
    meta = meta or {}
    settings = _settings(meta, summary, arm)
    n = settings["players"]
    pols = list(meta.get("policies", summary.get("policies", [])))
    rows = []
    for s in range(n):
        row: dict[str, Any] = {**settings, "seat": s, "policy": str(pols[s]) if s < len(pols) else None}
        for key in ("seat_win_rate", "seat_win_rate_se", "seat_match_win_rate", "seat_match_win_rate_se",
                    "seat_round_win_rate", "seat_round_win_rate_se"):
            vals = summary.get(key)
            if isinstance(vals, list) and s < len(vals):
                row[key] = vals[s]
        rows.append(row)
    frame = pd.DataFrame(rows)
    for key, value in summary.items():
        if key not in frame and key not in SETTINGS and isinstance(value, (int, float, str, bool, type(None))):
            frame[key] = value
    return frame


class Results(list):
    """Several loaded runs (a list of :class:`~unosim.sim.SimulationResult`, each with ``label``) whose
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
    from .io import is_store_cell, load_any
    from .sim import SimulationResult
    from .store import read_cell_file, result_from_records

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
      :class:`~unosim.sim.SimulationResult` (``records``, ``summary``, ``meta``, ``tidy()``,
      ``summary_frame()``);
    * a folder holding several (``compare --out``, ``sweep --out``, a study's ``runs/``, the store): a
      :class:`Results` list of them, labelled by arm (``compare``) or folder name;
    * a report folder (``unosim report --out``): its tables, name -> DataFrame, read from its CSV files.

    Anything else raises :class:`~unosim.errors.RunFileError` with one line.
    """
    from .io import find_runs, is_store_cell

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
