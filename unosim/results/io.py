"""Saving and loading runs: ``records.parquet`` (one row per round), ``summary.json``, ``meta.json``.

``meta.json`` holds everything needed to reproduce the run (seed, rules string, policies, deck,
players, games, versions); the thread count and batch size never change the records.

Every Parquet file unosim writes (:func:`write_frame`) carries page checksums and a SHA-256 of its
content in its own metadata (``unosim.content_sha256``); :func:`read_frame` verifies both, so a
damaged file is a :class:`DamagedFileError` naming it, never different numbers.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import re
import threading
from pathlib import Path
from typing import Any

import pandas as pd

from .. import ENGINE_VERSION
from ..errors import OutputError, RunFileError
from ..validate import MAX_PLAYERS, MIN_PLAYERS


def slug(label: str, empty: str = "run") -> str:
    """A run's label as a folder name (letters and digits, the rest ``_``); ``empty`` when nothing is left."""
    return "".join(ch if ch.isalnum() else "_" for ch in label).strip("_") or empty


def _fsync(path: Path) -> None:
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def _tmp_name(path: Path) -> Path:
    return path.with_name(f"{path.name}.{os.getpid()}.{threading.get_ident()}.tmp")


@contextlib.contextmanager
def _writing_tmp(tmp: Path, path: Path):
    """Around writing ``tmp`` (the temp file of ``path``): on any failure the temp file is removed, and an
    ``OSError`` (disk full, no permission ...) becomes an :class:`OutputError` naming ``path``."""
    try:
        yield
    except BaseException as e:
        with contextlib.suppress(OSError):
            tmp.unlink()
        if isinstance(e, OSError):
            reason = e.strerror or _one_line(e)
            raise OutputError(f"cannot write {str(path)!r} ({reason}); accepted: a folder on a disk with free "
                              "space that you can write to (what was finished before is kept)") from None
        raise


def _replace_synced(tmp: Path, path: Path) -> None:
    """fsync ``tmp`` and rename it to ``path``; the temp file is removed if that fails."""
    with _writing_tmp(tmp, path):
        _fsync(tmp)
        os.replace(tmp, path)


CONTENT_KEY = b"unosim.content_sha256"


class DamagedFileError(RunFileError):
    """A result file whose checksums do not match its content (one line naming the file)."""


def content_sha256(frame: pd.DataFrame) -> str:
    """SHA-256 of a frame's column names, dtypes and values (row order included)."""
    h = hashlib.sha256(repr([(str(c), str(t)) for c, t in frame.dtypes.items()]).encode())
    h.update(pd.util.hash_pandas_object(frame, index=False).to_numpy().tobytes())
    return h.hexdigest()


def write_frame(frame: pd.DataFrame, path: Path) -> None:
    """Write a parquet file atomically (a unique temp name, fsync, then ``os.replace``), with page
    checksums and the content hash in its metadata (see the module doc)."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    tmp = _tmp_name(path)
    table = pa.Table.from_pandas(frame, preserve_index=False)
    table = table.replace_schema_metadata({**(table.schema.metadata or {}),
                                           CONTENT_KEY: content_sha256(frame).encode()})
    with _writing_tmp(tmp, path):
        pq.write_table(table, tmp, write_page_checksum=True)
    _replace_synced(tmp, path)


def read_frame(path: Path) -> pd.DataFrame:
    """A parquet file written by :func:`write_frame`, its page checksums and content hash verified
    (files without a content hash, such as older ones, are read with their page checksums checked
    where they have them).  Raises :class:`DamagedFileError` naming the file."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    try:
        table = pq.read_table(path, page_checksum_verification=True)
        frame = table.to_pandas()
    except OSError as e:
        if isinstance(e, FileNotFoundError | PermissionError):
            raise
        raise DamagedFileError(f"{str(path)!r} is damaged ({_one_line(e)}); accepted: a file as unosim wrote it "
                               "(run the command again to recompute it)") from None
    except (pa.ArrowException, ValueError, TypeError, KeyError, IndexError) as e:
        raise DamagedFileError(f"{str(path)!r} is damaged ({_one_line(e)}); accepted: a file as unosim wrote it "
                               "(run the command again to recompute it)") from None
    want = (table.schema.metadata or {}).get(CONTENT_KEY)
    if want is not None and want.decode(errors="replace") != content_sha256(frame):
        raise DamagedFileError(f"{str(path)!r} is damaged (its content does not match the SHA-256 stored in it); "
                               "accepted: a file as unosim wrote it (run the command again to recompute it)")
    return frame


def write_json(path: Path, obj: dict[str, Any]) -> None:
    """Write a json file atomically (temp name, fsync, ``os.replace``)."""
    write_text(path, json.dumps(obj, indent=2, allow_nan=False) + "\n")


def write_text(path: Path, text: str) -> None:
    """Write a text file atomically (temp name, fsync, ``os.replace``)."""
    tmp = _tmp_name(path)
    with _writing_tmp(tmp, path):
        tmp.write_text(text)
    _replace_synced(tmp, path)


#: the marker of an output folder being written (:mod:`unosim.results.outdir`); readers refuse what lies under it
UNFINISHED = "UNFINISHED"


def check_finished(path: Path) -> None:
    """Refuse ``path`` when it, or a folder above it, is an output folder whose writer has not finished
    (:mod:`unosim.results.outdir`): one line naming the folder."""
    p = Path(path).absolute()
    for d in (p, *p.parents):
        if (d / UNFINISHED).is_file():
            raise RunFileError(f"{str(d)!r} is unfinished (a unosim command was stopped while writing it: see "
                               f"{UNFINISHED} there); accepted: a finished result (run that command again)")


def save_run(result, out_dir: Path) -> dict[str, Path]:
    """Write a SimulationResult atomically: the old ``meta.json`` is removed first and the new one written
    last, so a kill in between leaves no run (never new records under old metadata); each file is
    written to a temp name, synced, then renamed."""
    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    with contextlib.suppress(FileNotFoundError):
        (out_dir / "meta.json").unlink()
    rec = out_dir / "records.parquet"
    write_frame(result.records, rec)
    paths = {}
    for name, frame in getattr(result, "extra", {}).items():
        paths[name] = out_dir / f"{name}.parquet"
        write_frame(frame, paths[name])
    write_json(out_dir / "summary.json", result.summary)
    write_json(out_dir / "meta.json", result.meta)
    return {"records": rec, "meta": out_dir / "meta.json", "summary": out_dir / "summary.json", **paths}


def load_run(run_dir: Path) -> tuple[pd.DataFrame, dict[str, Any]]:
    """Read back (records, meta) written by :func:`save_run` or by a crash-safe ``simulate --out``
    (:mod:`unosim.results.rundir`), checked against each other: an unfinished or killed run is read from its
    finished chunks, and its meta then says ``interrupted`` with the rounds it kept in ``games_completed``.

    A missing, unreadable or inconsistent run raises :class:`~unosim.errors.RunFileError` with one line
    naming the file and the problem."""
    run_dir = Path(run_dir)
    check_finished(run_dir)
    meta_path = run_dir / "meta.json"
    rec_path = run_dir / "records.parquet"
    if not meta_path.is_file():
        raise RunFileError(f"{str(run_dir)!r} is not a saved run; accepted: a directory written by "
                           "`unosim simulate --out DIR` (records.parquet + meta.json)")
    meta = read_meta(meta_path)
    if meta.get("status", "complete") != "complete" and (run_dir / "chunks").is_dir():
        records = read_chunks(run_dir / "chunks", "match" if meta.get("mode") == "match" else "game")
        if records is not None:
            meta.update(interrupted=True, games_completed=int(len(records)))
            check_records(records, meta, run_dir / "chunks")
            return records, meta
    if not rec_path.is_file():
        raise RunFileError(f"{str(run_dir)!r} has no records.parquet; accepted: a directory written by "
                           "`unosim simulate --out DIR` (records.parquet + meta.json)")
    try:
        records = read_frame(rec_path)
    except DamagedFileError:
        raise
    except Exception as e:  # pyarrow raises many types for a damaged file
        raise RunFileError(f"{str(rec_path)!r} cannot be read as Parquet ({_one_line(e)}); accepted: "
                           "records.parquet as written by `unosim simulate --out`") from None
    check_records(records, meta, rec_path)
    return records, meta


def _one_line(e: BaseException) -> str:
    text = " ".join(str(e).split())
    return (text[:120] + "...") if len(text) > 120 else (text or e.__class__.__name__)


def read_meta(path: Path) -> dict[str, Any]:
    """meta.json, checked for its schema: players, policies, rules, seed, games, engine version."""
    try:
        meta = json.loads(Path(path).read_text())
    except json.JSONDecodeError as e:
        raise RunFileError(f"{str(path)!r} is not valid JSON (line {e.lineno}, column {e.colno}: {e.msg}); "
                           "accepted: meta.json as written by `unosim simulate --out`") from None
    except (OSError, UnicodeDecodeError) as e:
        raise RunFileError(f"{str(path)!r} cannot be read ({_one_line(e)}); accepted: a readable meta.json") from None
    if not isinstance(meta, dict):
        raise RunFileError(f"{str(path)!r} holds a JSON {type(meta).__name__}, not an object; accepted: "
                           "meta.json as written by `unosim simulate --out`")
    for key, ok, what in _META_SCHEMA:
        if key not in meta:
            raise RunFileError(f"{str(path)!r} has no {key!r}; accepted: meta.json with {_META_KEYS}")
        if not ok(meta[key]):
            raise RunFileError(f"{str(path)!r}: {key}={_short(meta[key])} is invalid; accepted: {what}")
    n = meta["players"]
    if len(meta["policies"]) != n:
        raise RunFileError(f"{str(path)!r}: {len(meta['policies'])} policies for players={n}; accepted: one "
                           "policy per seat")
    if meta["engine_version"] > ENGINE_VERSION:
        raise RunFileError(f"{str(path)!r} was written by engine version {meta['engine_version']}, newer than "
                           f"this unosim's {ENGINE_VERSION}; accepted: runs of engine version <= {ENGINE_VERSION}")
    if meta.get("mode", "round") not in ("round", "match"):
        raise RunFileError(f"{str(path)!r}: mode={_short(meta['mode'])} is unknown; accepted: round, match")
    return meta


def _short(v: Any) -> str:
    return " ".join(repr(v).split())[:60]


def _is_int(v: Any) -> bool:
    return isinstance(v, int) and not isinstance(v, bool)


_META_SCHEMA = (
    ("players", lambda v: _is_int(v) and MIN_PLAYERS <= v <= MAX_PLAYERS, f"an integer {MIN_PLAYERS}..{MAX_PLAYERS}"),
    ("policies", lambda v: isinstance(v, list) and all(isinstance(x, str) for x in v), "a list of policy strings"),
    ("rules", lambda v: isinstance(v, str), "a rules string"),
    ("seed", lambda v: _is_int(v) and v >= 0, "a non-negative integer"),
    ("games", lambda v: _is_int(v) and v >= 1, "a positive integer"),
    ("engine_version", lambda v: _is_int(v) and v >= 1, "a positive integer"),
)
_META_KEYS = ", ".join(k for k, _, _ in _META_SCHEMA)


def check_records(records: pd.DataFrame, meta: dict[str, Any], path: Path) -> None:
    """The records agree with their metadata: the columns of the mode, one per seat, the row count and
    the winners' seats."""
    n = meta["players"]
    match = meta.get("mode", "round") == "match"
    need = ["match", "winner", "rounds"] + [f"score_{s}" for s in range(n)] if match else \
        ["game", "winner", "turns", "winner_points"] + [f"hand_points_{s}" for s in range(n)]
    missing = [c for c in need if c not in records.columns]
    if missing:
        raise RunFileError(f"{str(path)!r} has no column {missing[0]!r} that a {n}-player "
                           f"{'match' if match else 'round'} run needs; its meta.json does not describe it")
    seats = [c for c in records.columns if str(c).startswith("score_" if match else "hand_points_")]
    if len(seats) != n:
        raise RunFileError(f"{str(path)!r} has {len(seats)} seats of records but meta.json says players={n}")
    expected = meta.get("games_completed", meta["games"])
    if len(records) != expected:
        raise RunFileError(f"{str(path)!r} has {len(records):,} rows but meta.json says {expected:,} "
                           f"{'matches' if match else 'rounds'} were kept")
    w = records["winner"].to_numpy()
    if len(w) and (w.min() < -1 or w.max() >= n):
        raise RunFileError(f"{str(path)!r} has winner seats outside -1..{n - 1} for players={n}")


def find_runs(path: Path) -> list[Path]:
    """``path`` itself when it is a saved run or a results-store cell, else every one below it
    (sorted): a study's or a sweep's output folder, or the store (``results/store``)."""
    path = Path(path)
    check_finished(path)
    if _is_run(path):
        return [path]
    return sorted({p.parent for name in ("meta.json", "cell.json") for p in path.rglob(name)})


def _is_run(d: Path) -> bool:
    return (d / "meta.json").is_file() or (d / "cell.json").is_file()


def is_store_cell(d: Path) -> bool:
    return (Path(d) / "cell.json").is_file() and not (Path(d) / "meta.json").is_file()


# ---- chunk files: a folder of Parquet chunks, each a committed range [lo, hi) of a run's games (the results
# store's cells, an unfinished run's chunks/) -------------------------------------------------------------------------------------


_CHUNK_RE = re.compile(r"^(?P<name>[a-z_]+)-(?P<lo>\d{12})-(?P<hi>\d{12})\.parquet$")


def chunk_path(d: Path, lo: int, hi: int, name: str = "records") -> Path:
    return Path(d) / f"{name}-{lo:012d}-{hi:012d}.parquet"


def write_chunk(d: Path, lo: int, hi: int, frames: dict[str, pd.DataFrame]) -> None:
    """Store one finished chunk: side tables first, ``records`` last (its rename commits the chunk)."""
    for name, frame in frames.items():
        if name != "records":
            write_frame(frame, chunk_path(d, lo, hi, name))
    write_frame(frames["records"], chunk_path(d, lo, hi, "records"))


def stored_ranges(d: Path, name: str = "records") -> list[tuple[int, int]]:
    """The committed chunks' [lo, hi) ranges in ``d``, sorted (temp files are ignored)."""
    d = Path(d)
    if not d.is_dir():
        return []
    out = []
    for p in d.iterdir():
        m = _CHUNK_RE.match(p.name)
        if m and m.group("name") == name:
            out.append((int(m.group("lo")), int(m.group("hi"))))
    return sorted(out)


def sweep_temp_files(d: Path) -> None:
    """Remove temp files left by a killed writer (never a committed file)."""
    d = Path(d)
    if d.is_dir():
        for p in d.glob("*.tmp"):
            with contextlib.suppress(OSError):
                p.unlink()


def covered(ranges: list[tuple[int, int]], games: int) -> int:
    """How many of games [0, games) the ranges cover (ranges do not overlap)."""
    return sum(max(0, min(hi, games) - lo) for lo, hi in ranges if lo < games)


def missing_ranges(ranges: list[tuple[int, int]], games: int, chunk: int) -> list[tuple[int, int]]:
    """The parts of [0, games) no stored range covers, cut into pieces on the ``chunk`` grid."""
    gaps, pos = [], 0
    for lo, hi in sorted(ranges):
        if lo > pos:
            gaps.append((pos, min(lo, games)))
        pos = max(pos, hi)
        if pos >= games:
            break
    if pos < games:
        gaps.append((pos, games))
    out = []
    for lo, hi in gaps:
        a = lo
        while a < hi:
            b = min(hi, (a // chunk + 1) * chunk)
            out.append((a, b))
            a = b
    return [(lo, hi) for lo, hi in out if hi > lo]


def read_chunks(d: Path, index: str, games: int | None = None, name: str = "records",
                quarantine: bool = False) -> pd.DataFrame | None:
    """The committed chunks of ``d`` concatenated, sorted by ``index``, rows with index < games
    (all when None).  None when there is no chunk.  A damaged chunk raises
    :class:`~unosim.results.io.DamagedFileError` naming it; with ``quarantine`` it is first renamed to
    ``<chunk>.damaged`` (no longer a committed chunk, so the next run recomputes its games)."""
    ranges = stored_ranges(d, name)
    if games is not None:
        ranges = [(lo, hi) for lo, hi in ranges if lo < games]
    if not ranges:
        return None
    return combine_chunks([_read_chunk(chunk_path(d, lo, hi, name), quarantine) for lo, hi in ranges], index, games)


def combine_chunks(frames: list[pd.DataFrame], index: str, games: int | None = None) -> pd.DataFrame:
    """Chunks' tables as one, sorted by ``index``, rows with index < games (all when None)."""
    df = pd.concat(frames, ignore_index=True) if len(frames) > 1 else frames[0]
    key = index if index in df.columns else df.columns[0]
    if games is not None:
        df = df[df[key] < games]
    return df.sort_values(key, kind="stable").reset_index(drop=True)


def _read_chunk(path: Path, quarantine: bool) -> pd.DataFrame:
    try:
        return read_frame(path)
    except DamagedFileError as e:
        if not quarantine:
            raise
        aside = path.with_name(path.name + ".damaged")
        os.replace(path, aside)
        raise DamagedFileError(f"{e}; moved aside to {aside.name!r}, the next run recomputes its games") from None


def quarantine_damaged(d: Path) -> list[str]:
    """Read every committed chunk of ``d`` (all tables) and rename each damaged one to ``<chunk>.damaged``,
    so a resume recomputes its games; returns the names moved aside."""
    moved = []
    for p in sorted(Path(d).glob("*.parquet")):
        if _CHUNK_RE.match(p.name):
            try:
                _read_chunk(p, quarantine=True)
            except DamagedFileError:
                moved.append(p.name)
    return moved
