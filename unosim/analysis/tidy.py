"""Results as pandas DataFrames: long ("tidy") records and summaries as frames.

* :func:`tidy` turns a run's records into one long frame with the run's settings as columns
  (``arm``, ``rules``, ``deck``, ``players``, ``policies``, ``seating``, ``mode``, ``seed``) and the
  winner's policy by name (``winner_policy_name``) beside its index (match records: also
  ``policy_at_seat_<s>_name``), so that runs ``concat`` and
  ``groupby`` without ``assign``.  The columns are added to a copy: the stored records (and the
  record check of ``scripts/record_hashes.py``) are unchanged.
* :func:`summary_frame` turns a summary dict into a frame with one row per seat (round or match win
  rates with standard errors) plus the run's settings.

:func:`unosim.results.loading.load` (``unosim.load``) reads what unosim saved.  No numba, no matplotlib.
"""

from __future__ import annotations

from typing import Any

import pandas as pd

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
