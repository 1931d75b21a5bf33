"""The results store: every simulated cell kept once, on disk, crash-safe, and reused.

A **cell** (:class:`Cell`) is everything that determines a run's records: the canonical rules
string (``RuleSet.to_string()``), the deck *by content* (a SHA-256 of its card tables, so a TOML
deck file is keyed by what it contains, not by its path; the name is kept for display and to
reload it), the policies as full-precision strings (:meth:`PolicySpec.exact`), players, seating,
mode and the resolved match options, the master seed, and ``ENGINE_VERSION``.  Its
:attr:`Cell.key` is a stable hash of all of that (the deck name excluded).  The number of games,
threads and chunk sizes are *not* part of a cell: game ``g`` is seeded from ``(seed, g)`` alone.

Layout (``root`` defaults to ``results/store``)::

    <root>/<key>/cell.json                               the cell, written atomically
    <root>/<key>/records-<lo:012d>-<hi:012d>.parquet     records of games [lo, hi)

Each chunk is written to a temporary name and ``os.replace``'d into place when it is complete, so
a SIGKILL at any moment loses at most the chunks in flight, never leaves a half-written chunk under
a real name, and leftover ``*.tmp`` files are ignored and swept on the next run.  A cell directory
is locked (``fcntl.flock`` on ``.lock``) while a process fills it.

:func:`load_cell` returns the records of games ``[0, games)`` sorted by game, running only the
ranges that are missing (a second call runs nothing; asking for more games runs only the new
ones).  Results of different engine versions never mix: the version is part of the key and
``cell.json`` is checked on every load.

:func:`run_chunk` ``(cell, lo, hi)`` is a pure function of its (picklable) arguments, so a
distributed backend can ship chunks to workers and write the returned frames with
:func:`write_chunk`.

The chunk primitives (:func:`write_chunk`, :func:`stored_ranges`, :func:`read_chunks`,
:func:`missing_ranges`) are shared with crash-safe run directories (:mod:`unosim.results.rundir`).
"""

from __future__ import annotations

import contextlib
import fcntl
import functools
import hashlib
import itertools
import json
import re
import shutil
import threading
import time
import warnings
from collections.abc import Callable, Iterator
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd

from .. import ENGINE_VERSION
from ..errors import SimulationError, UnosimError
from ..ruleset.decks import Deck, get_deck
from ..validate import check_threads
from .io import (  # the chunk files, as this module has always offered them (see __all__)
    DamagedFileError,
    chunk_path,
    combine_chunks,
    covered,
    missing_ranges,
    quarantine_damaged,
    read_chunks,
    read_frame,
    stored_ranges,
    sweep_temp_files,
    write_chunk,
    write_frame,
    write_json,
)

if TYPE_CHECKING:  # the engine (numba) is imported only where a cell is run, not to read the store
    from ..running.sim import SimulationResult

DEFAULT_ROOT = Path("results") / "store"
CELL_FILE = "cell.json"
#: match options that change results (round_records only adds a table; it is not part of a cell)
MATCH_KEYS = ("scoring", "target", "partners", "max_rounds", "dealer", "rounds", "rounds_per_partner")


class StoreError(UnosimError):
    """Bad store input or state (one-line message)."""


# ---- cells -----------------------------------------------------------------------------------------


def deck_sha256(deck: Deck) -> str:
    """SHA-256 of what a deck plays as: its card tables and flags (not its name or label)."""
    h = hashlib.sha256()
    for a in (deck.face_color, deck.face_rank, deck.face_points):
        arr = np.ascontiguousarray(a, dtype=np.int64)
        h.update(repr(arr.shape).encode())
        h.update(arr.tobytes())
    h.update(f"two_sided={bool(deck.two_sided)};random_pairing={bool(deck.random_pairing)}".encode())
    return h.hexdigest()


@dataclass(frozen=True)
class Cell:
    """Everything that determines a run's records (see the module doc)."""

    rules: str
    players: int
    policies: tuple[str, ...]
    deck: str
    deck_sha256: str
    seed: int
    seating: str = "fixed"
    mode: str = "round"
    match: tuple[tuple[str, Any], ...] = ()
    engine_version: int = ENGINE_VERSION
    policy_files: tuple[tuple[str, str], ...] = ()  # (path, sha256) of each user policy file
    policy_classes: tuple[tuple[str, str], ...] = ()  # (name, sha256) of each plain-Python class passed as an object

    def identity(self) -> dict[str, Any]:
        """The hashed fields: everything but the deck's display name and the policy files' paths (a policy
        file, like a deck file, counts by its content)."""
        d = self.to_dict()
        del d["deck"]
        d["policy_files"] = sorted(sha for _, sha in self.policy_files)
        if not d["policy_files"]:
            del d["policy_files"]  # cells without user policies keep the keys they always had
        if not d["policy_classes"]:
            del d["policy_classes"]
        return d

    @functools.cached_property
    def key(self) -> str:
        """The cell's name in the store: a hash of its identity (computed once: a Cell is frozen)."""
        text = json.dumps(self.identity(), sort_keys=True, separators=(",", ":"))
        return hashlib.sha256(text.encode()).hexdigest()[:16]

    @property
    def unit(self) -> str:
        return "matches" if self.mode == "match" else "rounds"

    @property
    def index(self) -> str:
        """The records column holding the global game index."""
        return "match" if self.mode == "match" else "game"

    def to_dict(self) -> dict[str, Any]:
        d = asdict(self)
        d["policies"] = list(self.policies)
        d["match"] = dict(self.match)
        d["policy_files"] = [{"path": p, "sha256": sha} for p, sha in self.policy_files]
        d["policy_classes"] = [{"name": n, "sha256": sha} for n, sha in self.policy_classes]
        return d

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> Cell:
        try:
            return cls(rules=str(d["rules"]), players=int(d["players"]), policies=tuple(d["policies"]),
                       deck=str(d["deck"]), deck_sha256=str(d["deck_sha256"]), seed=int(d["seed"]),
                       seating=str(d.get("seating", "fixed")), mode=str(d.get("mode", "round")),
                       match=tuple(sorted(dict(d.get("match", {})).items())),
                       engine_version=int(d["engine_version"]),
                       policy_files=tuple((str(f["path"]), str(f["sha256"])) for f in d.get("policy_files", ())),
                       policy_classes=tuple((str(f["name"]), str(f["sha256"]))
                                            for f in d.get("policy_classes", ())))
        except (KeyError, TypeError, ValueError) as e:
            raise StoreError(f"not a cell description ({e!r}); accepted: a cell.json written by unosim") from None

    def load_deck(self) -> Deck:
        """The cell's deck, checked against its content hash (a TOML file edited since is refused)."""
        dk = get_deck(self.deck)
        if deck_sha256(dk) != self.deck_sha256:
            raise StoreError(f"deck {self.deck!r} has changed since this cell was made (content hash "
                             f"{deck_sha256(dk)[:12]} != {self.deck_sha256[:12]}); accepted: the original deck "
                             "file, or a new cell")
        return dk

    def check_policy_files(self) -> None:
        """The cell's policy files still hold the code it was made with (an edited strategy is refused)."""
        for path, sha in self.policy_files:
            try:
                now = hashlib.sha256(Path(path).read_bytes()).hexdigest()
            except OSError:
                raise StoreError(f"policy file {path!r} of this cell cannot be read; accepted: the original "
                                 "file at that path, or a new cell") from None
            if now != sha:
                raise StoreError(f"policy file {path!r} has changed since this cell was made (content hash "
                                 f"{now[:12]} != {sha[:12]}); accepted: the original file, or a new cell")

    def sim_kwargs(self) -> dict[str, Any]:
        """Keyword arguments of :func:`unosim.running.sim.simulate` that reproduce this cell (no games)."""
        files = {"policy_files": [p for p, _ in self.policy_files]} if self.policy_files else {}
        return dict(rules=self.rules, players=self.players, policies=list(self.policies), deck=self.deck,
                    seed=self.seed, seating=self.seating, mode=self.mode, **files, **dict(self.match))

    def label(self) -> str:
        pols = self.policies[0] if len(set(self.policies)) == 1 else ",".join(self.policies)
        extra = f" {self.mode}" + "".join(f" {k}={v}" for k, v in self.match) if self.mode == "match" else ""
        return f"{self.rules} | {self.players}p | {pols} | {self.deck} | seat {self.seating}{extra} | seed {self.seed}"


def _named_policies(policies: Any) -> list[str]:
    """The policy names a policies string or list mentions (unknown ones are left to the probe run to refuse)."""
    from ..players.policies import parse_policy, split_top_level

    try:
        items = split_top_level(policies, ",") if isinstance(policies, str) else list(policies)
    except (ValueError, TypeError):
        return []
    names = []
    for item in items:
        with contextlib.suppress(ValueError, TypeError, AttributeError):
            names.append(parse_policy(item).name)
    return names


def make_cell(rules: str = "official", players: int = 4, policies: str | list[str] = "greedy",
              deck: str = "classic", seed: int = 0, seating: str = "fixed", mode: str = "round",
              policy_files: list[str] | str | None = None, **match_options: Any) -> Cell:
    """Validate a run description (every check of :func:`unosim.running.sim.check_simulate`, nothing run or
    compiled) and return its :class:`Cell`.

    ``policy_files`` are loaded first.  The cell counts every user policy it plays by content, however it
    was loaded: each policy file that defines one of its policies (given here, or loaded before with
    :func:`unosim.players.policy_api.load_policy_files`) is re-read (an edited file is loaded afresh), and each
    plain-Python class passed as an object is hashed by its source.  An edited strategy thus makes a
    new cell, never a stored one.

    Bad input raises the simulator's one-line ``ValueError``."""
    from ..players.plugins import as_names, files_defining, load_files, passed_classes
    from ..running.sim import check_simulate

    match_options.pop("round_records", None)
    load_files(policy_files)
    policies = as_names(policies)
    files = files_defining(_named_policies(policies))  # only the files whose policies the cell plays
    run = check_simulate(rules=rules, players=players, policies=policies, deck=deck, seed=seed, seating=seating,
                         mode=mode, games=1, threads=1, policy_files=files or None, **match_options)
    match = tuple(sorted((k, run.spec.meta()[k]) for k in MATCH_KEYS)) if mode == "match" else ()
    return Cell(rules=run.rules.to_string(), players=run.players, policies=tuple(s.exact() for s in run.specs),
                deck=run.deck.name, deck_sha256=deck_sha256(run.deck), seed=run.seed, seating=str(seating),
                mode=mode, match=match,
                policy_files=tuple(sorted({(f["path"], f["sha256"]) for f in run.policy_files})),
                policy_classes=tuple(passed_classes([s.name for s in run.specs])))


def probe(cell: Cell, **extra: Any) -> SimulationResult:
    """A one-game run of ``cell``: its ``meta`` is the template of a full run's meta."""
    from ..running.sim import simulate

    return simulate(**cell.sim_kwargs(), games=1, threads=1, **extra)


def cell_meta(cell: Cell) -> dict[str, Any]:
    """The metadata of a one-game run of ``cell`` (:func:`probe`'s, the template of a full run's), without
    running it."""
    from ..running.sim import check_simulate

    return check_simulate(**cell.sim_kwargs(), games=1, threads=1).meta(1, False)


def run_chunk(cell: Cell, lo: int, hi: int, **extra: Any) -> SimulationResult:
    """Games [lo, hi) of ``cell`` on one thread: a pure function of its arguments (the chunk runner).
    Its records (and ``extra`` tables) are the chunk's; its ``summary`` is empty: a cell's summary is
    built once from all its records (:func:`result_from_records`).

    ``extra`` may carry ``round_records=True`` (match mode) for run directories."""
    from ..running.sim import check_simulate

    if not 0 <= lo < hi:
        raise StoreError(f"chunk [{lo}, {hi}) is empty or negative; accepted: 0 <= lo < hi")
    kw = cell.sim_kwargs()
    kw["deck"] = cell.load_deck()
    cell.check_policy_files()
    return check_simulate(**kw, games=hi - lo, first=lo, threads=1, batch_size=hi - lo, **extra).execute(False)


@dataclass(frozen=True)
class ChunkTask:
    """One chunk of work: games [lo, hi) of ``cell`` (``extra``: :func:`run_chunk` keywords, as pairs)."""

    cell: Cell
    lo: int
    hi: int
    extra: tuple[tuple[str, Any], ...] = ()

    @property
    def size(self) -> int:
        return self.hi - self.lo

    def run(self) -> SimulationResult:
        return run_chunk(self.cell, self.lo, self.hi, **dict(self.extra))


@dataclass
class TasksRun:
    """What running chunk tasks did: games run, interrupted, seconds (cluster start-up excluded)."""

    ran: int = 0
    interrupted: bool = False
    seconds: float = 0.0


def run_tasks_locally(tasks: list[ChunkTask], on_done, progress: bool = False, unit: str = "rounds",
                      desc: str = "simulating", threads: int | None = None) -> TasksRun:
    """Run chunk tasks on ``threads`` threads; ``on_done(task, result)`` is called (from a worker
    thread) as each finishes.  On KeyboardInterrupt the chunks in flight finish first."""
    from ..running.sim import run_batches

    if not tasks:
        return TasksRun()
    bounds, at, pos = [], {}, 0
    for t in tasks:  # the chunks end to end: run_batches works on one range of items
        bounds.append((pos, pos + t.size))
        at[pos] = t
        pos += t.size

    def work(a: int, b: int) -> None:
        on_done(at[a], at[a].run())

    done, interrupted, seconds = run_batches(pos, 1, check_threads(threads), work, progress, unit, bounds=bounds,
                                             desc=desc)
    return TasksRun(int(done.sum()), interrupted, seconds)


#: threads that write finished chunks (parquet + fsync) while the next ones are computed
WRITER_THREADS = 4
#: finished chunks that may wait for a writer at once; handing over one more waits (a slow disk must not fill
#: the memory with records)
WRITES_PENDING = 4 * WRITER_THREADS


class WriteBehind:
    """``write(task, result)`` on writer threads of its own, so that the threads that compute chunks (or the
    loop that receives a cluster's) never wait for a file: call the object as ``on_done``.  Up to
    :data:`WRITES_PENDING` chunks wait for a writer; a hand-over beyond that waits for one of them.

    Leaving the ``with`` block waits for every write handed over, whatever ended the block (``waited``: the
    seconds that took); a Ctrl-C meanwhile sets ``interrupted`` and the waiting goes on (finished work is never
    lost).  The first write that failed is raised there, and at once by the next hand-over, so that a full disk
    stops the run early."""

    def __init__(self, write: Callable[[Any, Any], None], threads: int = WRITER_THREADS,
                 pending: int = WRITES_PENDING) -> None:
        self._write = write
        self._pool = ThreadPoolExecutor(max_workers=threads, thread_name_prefix="unosim-write")
        self._slots = threading.BoundedSemaphore(pending)
        self._writes: list[Future] = []
        self._lock = threading.Lock()
        self.interrupted = False
        self.waited = 0.0

    def __call__(self, task, result) -> None:
        with self._lock:
            self._raise_failed()
        try:
            self._slots.acquire()
        except KeyboardInterrupt:  # a Ctrl-C while waiting for a writer: this finished chunk is still written
            self._submit(task, result, slot=False)
            raise
        self._submit(task, result, slot=True)

    def _submit(self, task, result, slot: bool) -> None:
        with self._lock:
            w = self._pool.submit(self._write, task, result)
            if slot:
                w.add_done_callback(lambda _: self._slots.release())
            self._writes.append(w)

    def _raise_failed(self) -> None:
        for w in self._writes:
            if w.done() and w.exception() is not None:
                raise w.exception()
        self._writes = [w for w in self._writes if not w.done()]

    def _finish(self) -> None:
        self._pool.shutdown(wait=True)

    def __enter__(self) -> WriteBehind:
        from ..running.rounds import finish_before_exit  # here: reading the store needs no engine modules

        self._exit_hooks = finish_before_exit
        self._exit_hooks.append(self._finish)  # a second Ctrl-C ends the process once these writes end
        return self

    def __exit__(self, kind, exc, tb) -> None:
        t0 = time.perf_counter()
        while True:
            try:
                self._finish()
                break
            except KeyboardInterrupt:
                self.interrupted = True
        self._exit_hooks.remove(self._finish)
        self.waited = time.perf_counter() - t0
        if exc is None:
            with self._lock:
                self._raise_failed()


def run_meta(cell: Cell, records: pd.DataFrame, games: int, threads: int = 1, batch_size: int | None = None,
             interrupted: bool = False, template: dict[str, Any] | None = None) -> dict[str, Any]:
    """The meta ``simulate`` writes for ``records`` of ``cell`` computed in chunks (that of
    :func:`result_from_records`, without the summary, which costs milliseconds a cell)."""
    meta = dict(template if template is not None else cell_meta(cell))
    meta.update(games=int(games), threads=int(threads), batch_size=int(batch_size or games),
                games_completed=int(len(records)), interrupted=bool(interrupted))
    meta["cell"] = cell.to_dict()
    meta["store_key"] = cell.key
    return meta


def result_from_records(cell: Cell, records: pd.DataFrame, games: int, elapsed: float = 0.0,
                        compile_s: float = 0.0, threads: int = 1, batch_size: int | None = None,
                        interrupted: bool = False, template: dict[str, Any] | None = None) -> SimulationResult:
    """A :class:`SimulationResult` (meta and summary exactly as ``simulate`` builds them) for
    ``records`` of ``cell`` that were computed in chunks; ``games`` is the number requested."""
    from ..running.match import match_summary
    from ..running.sim import SimulationResult, round_summary

    meta = run_meta(cell, records, games, threads, batch_size, interrupted, template)
    summarize = match_summary if cell.mode == "match" else round_summary
    summary = summarize(records, meta, elapsed, compile_s)
    summary["interrupted"] = bool(interrupted)
    summary["games_requested"] = int(games)
    return SimulationResult(records, summary, meta, interrupted)


@contextlib.contextmanager
def locked(d: Path) -> Iterator[None]:
    """An exclusive lock on directory ``d`` (released on exit, and by the OS if the process dies)."""
    d.mkdir(parents=True, exist_ok=True)
    fh = open(d / ".lock", "w")
    try:
        try:
            fcntl.flock(fh, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            raise StoreError(f"{str(d)!r} is being written by another unosim process; accepted: wait for it "
                             "to finish") from None
        yield
    finally:
        fh.close()


# ---- filling and reading cells -------------------------------------------------------------------------


def cell_dir(cell: Cell, root: Path | str | None = None) -> Path:
    return Path(root if root is not None else DEFAULT_ROOT) / cell.key


def _check_cell_file(d: Path, cell: Cell) -> None:
    path = d / CELL_FILE
    if not path.is_file():
        write_json(path, {"key": cell.key, "cell": cell.to_dict(), "created": time.strftime("%Y-%m-%dT%H:%M:%S")})
        return
    stored = read_cell_file(d)
    if stored.engine_version != ENGINE_VERSION:
        raise StoreError(f"store cell {d.name} was computed by engine v{stored.engine_version}, this is "
                         f"engine v{ENGINE_VERSION}; results of different engines are never mixed; accepted: "
                         f"`unosim results rm {d.name}`")
    if stored.key != cell.key:
        raise StoreError(f"store cell {d.name} holds a different cell ({stored.label()}); accepted: "
                         f"`unosim results rm {d.name}`")


def read_cell_file(d: Path) -> Cell:
    try:
        data = json.loads((Path(d) / CELL_FILE).read_text())
    except (OSError, json.JSONDecodeError) as e:
        raise StoreError(f"{str(d)!r} has no readable {CELL_FILE} ({e.__class__.__name__}); accepted: a store "
                         "cell directory") from None
    return Cell.from_dict(data.get("cell", {}))


@dataclass
class FillInfo:
    """What :func:`fill_cell` did: games run now, games stored before, interrupted, seconds."""

    key: str
    ran: int = 0
    stored_before: int = 0
    interrupted: bool = False
    seconds: float = 0.0
    ranges: list[tuple[int, int]] = field(default_factory=list)


def fill_cell(cell: Cell, games: int, root: Path | str | None = None, threads: int | None = None,
              progress: bool = False, chunk: int | None = None, desc: str | None = None,
              backend=None) -> FillInfo:
    """Make sure games [0, games) of ``cell`` are stored, running only the missing chunks.

    Chunks run in parallel on ``threads`` worker threads (or on ``backend``, an
    :mod:`unosim.results.backends` backend), each written as soon as it finishes.
    On KeyboardInterrupt the chunks in flight finish and are written; ``interrupted`` is set."""
    return fill_cells([cell], games, root, threads, progress, chunk, desc, backend)[0]


def fill_cells(cells: list[Cell], games: int, root: Path | str | None = None, threads: int | None = None,
               progress: bool = False, chunk: int | None = None, desc: str | None = None,
               backend=None, keep: dict[str, list[pd.DataFrame]] | None = None) -> list[FillInfo]:
    """:func:`fill_cell` for several cells at once: the missing chunks of all of them are run
    together, the cells' in turn (a cluster stays busy across small cells, writing one chunk overlaps
    computing the next, and a run stopped early holds the first games of every cell); one :class:`FillInfo`
    per cell.

    ``keep``: a dict that receives, by cell key, the records of each chunk run now (as written), so that
    a caller that needs them does not read back what it has just computed."""
    from ..running.sim import default_chunk

    if int(games) < 1:
        raise StoreError(f"games={games!r} is not positive; accepted: a positive integer")
    t = check_threads(threads) if backend is None else backend.parallelism
    run_tasks = backend.run_tasks if backend is not None else functools.partial(run_tasks_locally, threads=t)
    unique = list({c.key: c for c in cells}.values())
    with contextlib.ExitStack() as stack:
        infos: dict[str, FillInfo] = {}
        per_cell = []
        for cell in unique:
            d = cell_dir(cell, root)
            stack.enter_context(locked(d))
            _check_cell_file(d, cell)
            sweep_temp_files(d)
            have = stored_ranges(d)
            infos[cell.key] = FillInfo(cell.key, stored_before=covered(have, games))
            # several cells share the workers: size the default chunk on the work of all of them
            todo = missing_ranges(have, games, chunk or default_chunk(cell.mode, games * len(unique), t, backend))
            if todo:
                cell.load_deck()  # fail before any chunk starts if the deck file changed
            infos[cell.key].ranges = todo
            per_cell.append([ChunkTask(cell, lo, hi) for lo, hi in todo])
        # the cells' chunks in turn, so that a run stopped early holds the same first games of every cell (the
        # pairs of a comparison)
        tasks = [t for turn in itertools.zip_longest(*per_cell) for t in turn if t is not None]
        if tasks:
            written: dict[str, set[tuple[int, int]]] = {}

            def write(task, res) -> None:
                write_chunk(cell_dir(task.cell, root), task.lo, task.hi, {"records": res.records})
                written.setdefault(task.cell.key, set()).add((task.lo, task.hi))
                if keep is not None:
                    keep.setdefault(task.cell.key, []).append(res.records)

            with WriteBehind(write) as behind:
                run = run_tasks(tasks, behind, progress, unique[0].unit,
                                desc=desc or (unique[0].key if len(unique) == 1 else f"{len(unique)} cells"))
            for key, info in infos.items():
                info.ran = sum(hi - lo for lo, hi in written.get(key, ()))
                info.interrupted = run.interrupted or behind.interrupted
                info.seconds = run.seconds + behind.waited
        return [infos[c.key] for c in cells]


def read_cell(cell: Cell, games: int | None = None, root: Path | str | None = None) -> pd.DataFrame:
    """The stored records of ``cell`` with game index < ``games`` (all when None), sorted by game."""
    d = cell_dir(cell, root)
    if (d / CELL_FILE).is_file():
        _check_cell_file(d, cell)
    end = games if games is not None else max((hi for _, hi in stored_ranges(d)), default=0)
    try:
        df = read_chunks(d, cell.index, games, quarantine=True)
    except DamagedFileError as e:  # moved aside: recompute its games once
        warnings.warn(f"{e}; recomputing it", stacklevel=2)
        fill_cell(cell, end, root)
        df = read_chunks(d, cell.index, games)
    if df is None:
        raise StoreError(f"store cell {cell.key} has no records; accepted: run it first (load_cell)")
    return df


def load_cell(cell: Cell, games: int, root: Path | str | None = None, threads: int | None = None,
              progress: bool = False, chunk: int | None = None, desc: str | None = None,
              backend=None) -> pd.DataFrame:
    """Records of games [0, games) of ``cell`` sorted by game, computing only what is missing.

    ``records.attrs["store"]`` holds the :class:`FillInfo` as a dict.  After an interrupt the
    records may have gaps (``attrs["store"]["interrupted"]`` is True)."""
    return load_cells([cell], games, root, threads, progress, chunk, desc, backend)[0]


def load_cells(cells: list[Cell], games: int, root: Path | str | None = None, threads: int | None = None,
               progress: bool = False, chunk: int | None = None, desc: str | None = None,
               backend=None) -> list[pd.DataFrame]:
    """:func:`load_cell` for several cells at once: the missing chunks of all of them run together
    (:func:`fill_cells`, so that writing one cell's chunks overlaps computing the next), and what was computed
    now is not read back.  One frame per cell; the records of every cell are held in memory together."""
    ran: dict[str, list[pd.DataFrame]] = {}
    infos = fill_cells(cells, games, root, threads, progress, chunk, desc, backend, keep=ran)
    out, combined = [], {}
    for cell, info in zip(cells, infos, strict=True):
        if info.interrupted and not stored_ranges(cell_dir(cell, root)):
            df = probe(cell).records.iloc[:0].copy()  # interrupted before the first chunk landed
        elif info.stored_before == 0 and info.ran == games:  # all computed now: no need to read it back
            if cell.key not in combined:  # its chunks are let go as soon as they are one frame
                combined[cell.key] = combine_chunks(ran.pop(cell.key), cell.index, games)
            df = combined[cell.key]
        else:
            df = read_cell(cell, games, root)
        df.attrs["store"] = asdict(info)
        out.append(df)
    return out


def fill_cells_keeping(cells: list[Cell], games: int, keep: bool, root: Path | str | None = None,
                       threads: int | None = None, progress: bool = False, chunk: int | None = None,
                       desc: str | None = None, backend=None) -> tuple[list[FillInfo], dict[str, pd.DataFrame]]:
    """:func:`fill_cells`, and with ``keep`` every cell's records in hand too, by cell key (:func:`load_cells`:
    what was computed now is not read back).  Callers keep them where the records of all the cells fit in
    memory, and otherwise read each cell back (:func:`read_cell`) when they need it."""
    if not keep:
        return fill_cells(cells, games, root, threads, progress, chunk, desc, backend), {}
    recs = load_cells(cells, games, root, threads, progress, chunk, desc, backend)
    return [FillInfo(**df.attrs["store"]) for df in recs], {c.key: df for c, df in zip(cells, recs, strict=True)}


# ---- listing, showing and removing (``unosim results``) --------------------------------------------------


def list_cells(root: Path | str | None = None) -> pd.DataFrame:
    """One row per stored cell: key, games stored, chunks, bytes, engine, and the cell's fields."""
    root = Path(root if root is not None else DEFAULT_ROOT)
    rows = []
    if root.is_dir():
        for d in sorted(p for p in root.iterdir() if p.is_dir()):
            try:
                cell = read_cell_file(d)
            except StoreError:
                continue
            ranges = stored_ranges(d)
            rows.append({"key": d.name, "games": sum(hi - lo for lo, hi in ranges), "chunks": len(ranges),
                         "bytes": sum(p.stat().st_size for p in d.glob("*.parquet")),
                         "engine_version": cell.engine_version,
                         "current": cell.engine_version == ENGINE_VERSION and cell.key == d.name,
                         "mode": cell.mode, "players": cell.players, "rules": cell.rules, "deck": cell.deck,
                         "policies": ",".join(cell.policies), "seating": cell.seating, "seed": cell.seed})
    cols = ["key", "games", "chunks", "bytes", "engine_version", "current", "mode", "players", "rules", "deck",
            "policies", "seating", "seed"]
    return pd.DataFrame(rows, columns=cols)


def find_cell(key: str, root: Path | str | None = None) -> Path:
    """The directory of the stored cell whose key starts with ``key`` (a unique prefix)."""
    root = Path(root if root is not None else DEFAULT_ROOT)
    if not re.fullmatch(r"[0-9a-f]{1,16}", key or ""):
        raise StoreError(f"key {key!r} is not a cell key; accepted: hex digits, as `unosim results list` shows")
    hits = sorted(p for p in root.glob(f"{key}*") if p.is_dir()) if root.is_dir() else []
    if not hits:
        raise StoreError(f"no stored cell with key {key!r} in {str(root)!r}; accepted: a key from "
                         "`unosim results list`")
    if len(hits) > 1:
        raise StoreError(f"key {key!r} matches {len(hits)} cells ({', '.join(p.name for p in hits[:4])}); "
                         "accepted: a longer prefix")
    return hits[0]


def show_cell(key: str, root: Path | str | None = None) -> dict[str, Any]:
    """A stored cell's description, stored ranges and headline numbers (mean turns, seat win rates)."""
    d = find_cell(key, root)
    cell = read_cell_file(d)
    ranges = stored_ranges(d)
    out: dict[str, Any] = {"key": d.name, "path": str(d), "cell": cell.to_dict(), "label": cell.label(),
                           "games": sum(hi - lo for lo, hi in ranges), "chunks": len(ranges),
                           "ranges": _merged(ranges), "current": cell.engine_version == ENGINE_VERSION}
    df = read_chunks(d, cell.index)
    if df is not None and len(df):
        out["mean_turns"] = float(df["turns"].mean())
        w = df["winner"].to_numpy()
        out["seat_win_rate"] = [float((w == s).mean()) for s in range(cell.players)]
    return out


def _merged(ranges: list[tuple[int, int]]) -> list[list[int]]:
    out: list[list[int]] = []
    for lo, hi in sorted(ranges):
        if out and out[-1][1] == lo:
            out[-1][1] = hi
        else:
            out.append([lo, hi])
    return out


def remove_cell(key: str, root: Path | str | None = None) -> str:
    """Delete a stored cell (refused while another process fills it); returns its full key."""
    d = find_cell(key, root)
    with locked(d):
        shutil.rmtree(d)
    return d.name


__all__ = ["Cell", "FillInfo", "StoreError", "DEFAULT_ROOT", "make_cell", "probe", "cell_meta", "run_chunk", "fill_cell",
           "read_cell", "load_cell", "load_cells", "fill_cells", "fill_cells_keeping", "ChunkTask", "TasksRun", "run_tasks_locally", "list_cells", "show_cell", "find_cell", "remove_cell", "deck_sha256",
           "write_chunk", "write_frame", "write_json", "stored_ranges", "read_chunks", "missing_ranges",
           "sweep_temp_files", "result_from_records", "SimulationError", "chunk_path", "covered", "combine_chunks",
           "quarantine_damaged", "read_frame", "DamagedFileError", "cell_dir", "locked", "read_cell_file"]
