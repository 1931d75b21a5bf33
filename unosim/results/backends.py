"""Execution backends: where the chunks of a run are computed.

``local`` (the default)
    numba threads on this machine (:func:`unosim.running.sim.run_batches`), exactly as before.
``dask`` (``scheduler="tcp://HOST:PORT"``)
    an existing ``dask.distributed`` cluster (``dask scheduler`` + ``dask worker`` processes).
``dask-local`` (``workers=N``)
    a ``distributed.LocalCluster`` of N worker *processes* with one thread each (so numba's
    threads never oversubscribe the cores), started for the run and closed after it.

A ``distributed.Client`` of your own may be passed instead (``client=``); it is used and left open.

The unit of work is a chunk ``(cell, lo, hi)`` (:class:`unosim.results.store.ChunkTask`) computed by the pure, picklable
:func:`unosim.results.store.run_chunk`.  Round ``g`` under master seed ``s`` is seeded from ``(s, g)`` alone,
so every chunk is independent and the records are identical, record for record, whatever the
backend, the number of workers and the order the chunks finish in.  The driver (this process)
receives each finished chunk and writes it with the store's atomic writer as it arrives, so the
workers need no shared file system and an interrupted run keeps every finished chunk.

Fault tolerance: a worker that dies mid-run loses only the chunks it was computing; the scheduler
gives them to another worker (up to ``distributed.scheduler.allowed-failures`` deaths per chunk)
and ``retries`` re-runs a chunk whose task raised.  A scheduler that cannot be reached within
:data:`CONNECT_TIMEOUT_S` seconds is a one-line :class:`~unosim.errors.BackendError`.

Workers compile once: a ``distributed.WorkerPlugin`` (``WarmKernels``) loads the numba kernels
from the on-disk cache (or compiles them) when a worker registers, including a worker the nanny
restarts after a crash, so no task pays for compilation and ``games_per_second`` excludes it.

Wiring another command (tournaments, tuning): a task is any picklable object with ``run()`` (what
a worker computes; its return value is what ``on_done`` receives here) and ``size`` (games, for
progress and counts), e.g. :class:`unosim.results.store.ChunkTask` for the chunks of a cell.  Build the
command's tasks and call ``backend.run_tasks(tasks, on_done)`` inside
``with backend_session(backend, scheduler, workers, client, threads) as backend``.
"""

from __future__ import annotations

import contextlib
import logging
import threading
import time
import uuid
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

import pandas as pd

from .. import DEFAULT_GAMES
from ..console import progress_bar
from ..errors import BackendError
from ..running.sim import SimulationResult
from ..validate import check_backend, check_threads
from .store import Cell, ChunkTask, TasksRun, run_tasks_locally

#: seconds to wait for a scheduler (and for a LocalCluster's workers) before giving up
CONNECT_TIMEOUT_S = 3
#: seconds a LocalCluster may take to start its workers and warm them
LOCAL_START_TIMEOUT_S = 120
#: re-runs of a chunk whose task raised (a dead worker's chunks are rescheduled by the scheduler)
RETRIES = 3


def compute_task(task: ChunkTask) -> SimulationResult:
    """Run one task (what a worker executes): any picklable object with ``run()`` and ``size``."""
    return task.run()


OnDone = Callable[[ChunkTask, SimulationResult], None]


# ---- local ---------------------------------------------------------------------------------------------


@dataclass
class LocalBackend:
    """numba threads on this machine: chunks on a thread pool (the kernels release the GIL)."""

    threads: int | None = None
    name: str = "local"
    workers: int = 0
    cluster_start_seconds: float = 0.0
    #: the default chunk's most, in local batches (rounds.default_chunk)
    chunk_scale: int = 1
    info: dict[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        self.threads = check_threads(self.threads)

    @property
    def parallelism(self) -> int:
        """Chunks that run at once (sizes the default chunk)."""
        return self.threads

    def run_tasks(self, tasks: list[ChunkTask], on_done: OnDone, progress: bool = False, unit: str = "rounds",
                  desc: str = "simulating") -> TasksRun:
        """Run the chunks on ``threads`` threads (:func:`unosim.results.store.run_tasks_locally`)."""
        return run_tasks_locally(tasks, on_done, progress, unit, desc, self.threads)

    def close(self) -> None:
        pass

    def describe(self) -> dict[str, Any]:
        return {"backend": self.name}


# ---- dask ------------------------------------------------------------------------------------------------


def _warm_worker() -> None:
    """Load (or compile) the round and match kernels in this process, and play a one-game chunk of
    each mode through :func:`unosim.results.store.run_chunk` (so the first real task pays no import either)."""
    from ..running.sim import warm_up
    from .store import make_cell, run_chunk

    warm_up(4, None, "round")
    warm_up(4, None, "match")
    run_chunk(make_cell(), 0, 1)
    run_chunk(make_cell(mode="match", max_rounds=1), 0, 1)


def _worker_warm_seconds() -> float:
    """Seconds this worker process spent loading the kernels (run on every worker by ``client.run``)."""
    from ..running import sim

    return float(sum(sim._warm.values()))


def _make_plugin():
    from distributed import WorkerPlugin

    class WarmKernels(WorkerPlugin):
        """Loads the numba kernels once per worker process, when the worker registers."""

        name = "unosim-warm-kernels"

        async def setup(self, worker) -> None:
            import asyncio

            await asyncio.get_running_loop().run_in_executor(None, _warm_worker)

    return WarmKernels()


class DaskBackend:
    """Chunks as tasks on a ``dask.distributed`` cluster; results written by the driver as they arrive."""

    #: A chunk is a task, whose records travel to this process: up to 250,000 rounds (12,500 matches) a chunk by
    #: default, five local batches.  A 2,000,000-round run on 2 workers of a 2-core machine ran at 0.95x the
    #: local threads' speed in 50,000-round chunks, 0.99x in 125,000 and 1.01x in 250,000 (docs/dask.md).
    chunk_scale = 5

    def __init__(self, client, name: str = "dask", cluster=None, owned: bool = False,
                 cluster_start_seconds: float = 0.0) -> None:
        self.client, self.name, self.cluster, self.owned = client, name, cluster, owned
        self.cluster_start_seconds = cluster_start_seconds
        self.threads = 1
        self._workers = 0
        self.info: dict[str, Any] = {}
        # a lost scheduler is one BackendError line, not distributed's tracebacks (restored on close)
        self._log_levels = _quiet_loggers(CLIENT_LOGGERS) if owned else {}

    @property
    def workers(self) -> int:
        """Workers now (the count at the last look once the client is closed)."""
        if self.client.status == "running":
            self._workers = len(self.client.nthreads())
        return self._workers

    @property
    def parallelism(self) -> int:
        """Worker threads of the cluster (sizes the default chunk)."""
        return max(1, sum(self.client.nthreads().values()))

    def warm(self) -> None:
        """Register the warm-up plugin (it runs on every worker now and on every worker that joins later)."""
        t0 = time.perf_counter()
        self.client.register_plugin(_make_plugin())
        warm = self.client.run(_worker_warm_seconds)
        self.info.update(warm_seconds=sorted(round(v, 3) for v in warm.values()),
                         warm_wall_seconds=round(time.perf_counter() - t0, 3))

    def run_tasks(self, tasks: list[ChunkTask], on_done: OnDone, progress: bool = False, unit: str = "rounds",
                  desc: str = "simulating") -> TasksRun:
        """Submit every chunk, then hand each to ``on_done`` in the order they finish (callers that write
        chunks hand them to writer threads, :class:`unosim.results.store.WriteBehind`, so that receiving keeps
        up with many workers).

        On KeyboardInterrupt (or an exception in ``on_done``) the chunks not yet received are
        cancelled.  Losing the scheduler mid-run (every future cancelled, or the connection closed) is a
        one-line :class:`~unosim.errors.BackendError`; the received chunks are kept."""
        from distributed import as_completed

        if not tasks:
            return TasksRun()
        bar = progress_bar(progress, sum(t.size for t in tasks), unit, desc, leave=False)
        tag = uuid.uuid4().hex[:8]
        t0 = time.perf_counter()
        futures = {self.client.submit(compute_task, t, key=f"unosim-{type(t).__name__}-{i}-{tag}", retries=RETRIES,
                                      pure=False): t for i, t in enumerate(tasks)}
        info = TasksRun()
        received: set = set()
        try:
            for fut, res in as_completed(futures, loop=self.client.loop, with_results=True):
                if isinstance(res, BaseException):  # not a chunk: the futures were cancelled, the scheduler is gone
                    raise self._lost(res)
                received.add(fut.key)
                fut.release()
                task = futures[fut]
                on_done(task, res)
                info.ran += task.size
                if bar is not None:
                    bar.update(task.size)
        except BaseException as e:  # stop now: what arrived is kept, the rest is cancelled (a resume reruns it)
            info.interrupted = isinstance(e, KeyboardInterrupt)
            with contextlib.suppress(Exception):  # nothing to cancel on a lost scheduler
                self.client.cancel([f for f in futures if f.key not in received])
            if not info.interrupted:
                if _connection_lost(e):
                    raise self._lost(e) from None
                raise
        finally:
            if bar is not None:
                bar.close()
        info.seconds = time.perf_counter() - t0
        return info

    def _lost(self, cause: BaseException) -> BackendError:
        try:
            where = f" at {self.client.scheduler.address}"
        except Exception:
            where = ""
        return BackendError(f"lost the dask scheduler{where} mid-run ({type(cause).__name__}); the chunks that "
                            "finished are kept; accepted: a scheduler that stays up (`unosim rerun DIR` continues "
                            "a simulate --out run; compare, sweep, tournament and tune continue from the store)")

    def close(self) -> None:
        with contextlib.suppress(Exception):  # the count is unknown once the scheduler is gone
            self.workers  # noqa: B018  (remember the count for describe())
        if self.owned:
            with contextlib.suppress(Exception):
                self.client.close(timeout=CONNECT_TIMEOUT_S)
            if self.cluster is not None:
                with contextlib.suppress(Exception):
                    self.cluster.close(timeout=CONNECT_TIMEOUT_S * 2)
        for name, level in self._log_levels.items():
            logging.getLogger(name).setLevel(level)

    def describe(self) -> dict[str, Any]:
        return {"backend": self.name, "workers": self.workers,
                "cluster_start_seconds": round(self.cluster_start_seconds, 3), **self.info}


#: the loggers that report a lost scheduler with tracebacks: distributed's, and tornado's for a callback of
#: the client's that fails on the closed connection (as_completed's tracker)
CLIENT_LOGGERS = ("distributed.client", "distributed.core", "distributed.utils", "distributed.comm",
                  "distributed.batched", "tornado.application")


def _quiet_loggers(names: tuple[str, ...]) -> dict[str, int]:
    """Raise each logger to CRITICAL; returns their levels before."""
    levels = {}
    for name in names:
        lg = logging.getLogger(name)
        levels[name] = lg.level
        lg.setLevel(logging.CRITICAL)
    return levels


def _connection_lost(e: BaseException) -> bool:
    """Whether ``e`` says the connection to the scheduler is gone (not an error of a chunk)."""
    import asyncio

    from distributed.comm.core import CommClosedError

    return isinstance(e, CommClosedError | asyncio.CancelledError) or type(e).__name__ == "FutureCancelledError"


Backend = LocalBackend | DaskBackend


def connect(scheduler: str, timeout: float = CONNECT_TIMEOUT_S):
    """A ``distributed.Client`` of the scheduler at ``scheduler``, or a one-line error within ``timeout`` s."""
    import dask
    from distributed import Client

    box: dict[str, Any] = {}

    def attempt() -> None:  # distributed's own timeout does not cover a peer that accepts and never answers
        try:
            with dask.config.set({"distributed.comm.timeouts.connect": f"{timeout}s"}):
                box["client"] = Client(scheduler, timeout=timeout, set_as_default=False)
        except BaseException as e:  # handed to the caller below
            box["error"] = e

    worker = threading.Thread(target=attempt, name="unosim-connect", daemon=True)
    worker.start()
    worker.join(timeout)
    e = box.get("error")
    if worker.is_alive() or isinstance(e, OSError | TimeoutError | ValueError | TypeError | MemoryError):
        why = "no answer" if worker.is_alive() else (str(e).splitlines()[0] if str(e) else e.__class__.__name__)
        raise BackendError(f"cannot reach the dask scheduler at {scheduler!r} within {timeout:g} s ({why[:120]}); "
                           "accepted: the address of a running `dask scheduler` (tcp://HOST:PORT)") from None
    if e is not None:
        raise e
    return box["client"]


def start_local_cluster(workers: int):
    """A LocalCluster of ``workers`` processes with one thread each, and its client."""
    from distributed import Client, LocalCluster

    cluster = LocalCluster(n_workers=workers, threads_per_worker=1, processes=True, dashboard_address=":0",
                           silence_logs=logging.ERROR, timeout=LOCAL_START_TIMEOUT_S)
    try:
        client = Client(cluster, timeout=LOCAL_START_TIMEOUT_S, set_as_default=False)
        client.wait_for_workers(workers, timeout=LOCAL_START_TIMEOUT_S)
    except BaseException:
        cluster.close(timeout=CONNECT_TIMEOUT_S * 2)
        raise
    return cluster, client


def open_backend(backend: str | None = "local", scheduler: str | None = None, workers: int | None = None,
                 client=None, threads: int | None = None) -> Backend:
    """The backend named by the options, started (see the module doc); call ``close()`` after use,
    or use :func:`backend_session`."""
    if client is not None:
        from distributed import Client

        if not isinstance(client, Client):
            raise BackendError(f"client={type(client).__name__} is not a dask.distributed.Client; accepted: a "
                               "Client, or backend='dask' with scheduler=")
        if backend == "dask-local" or scheduler is not None or workers is not None:  # "local" is the default
            raise BackendError(f"client= runs on the client's cluster; accepted: client= alone, not with "
                               f"backend={backend!r}, scheduler= or workers=")
        be = DaskBackend(client, "dask")
        be.warm()
        return be
    name, scheduler, workers = check_backend("local" if backend is None else backend, scheduler, workers)
    if name == "local":
        return LocalBackend(threads)
    t0 = time.perf_counter()
    if name == "dask":
        be = DaskBackend(connect(scheduler), name, owned=True)
    else:
        _warm_worker()  # compile here once (or load the cache): the workers then load it from disk
        cluster, cl = start_local_cluster(workers)
        be = DaskBackend(cl, name, cluster=cluster, owned=True)
    try:
        be.warm()
    except BaseException:
        be.close()
        raise
    be.cluster_start_seconds = time.perf_counter() - t0
    return be


@contextlib.contextmanager
def backend_session(backend: str | None = "local", scheduler: str | None = None, workers: int | None = None,
                    client=None, threads: int | None = None) -> Iterator[Backend]:
    """``open_backend(...)`` as a context manager: a cluster it started is closed on exit."""
    be = open_backend(backend, scheduler, workers, client, threads)
    try:
        yield be
    finally:
        be.close()


# ---- simulate on a backend --------------------------------------------------------------------------------


def run_cells(be: Backend, cells: list[Cell], games: int, chunk: int | None = None, progress: bool = False,
              **extra: Any) -> list[SimulationResult]:
    """Games [0, games) of every cell computed on ``be`` in memory (no store), the chunks of all
    cells submitted together: one result per cell, as ``simulate`` returns it, with
    ``games_per_second`` measured over the chunks only (``simulate`` on a cluster; tournaments and tuning
    fill the results store instead, :func:`unosim.results.store.fill_cells`)."""
    from ..running.sim import default_chunk
    from .store import probe

    chunk = chunk or default_chunk(cells[0].mode, games * len(cells), 1, be)
    pairs = tuple(sorted(extra.items()))
    tasks = [ChunkTask(c, lo, min(lo + chunk, games), pairs) for c in cells for lo in range(0, games, chunk)]
    parts: dict[tuple[int, int], SimulationResult] = {}
    at = {id(c): i for i, c in enumerate(cells)}

    def keep(t: ChunkTask, res: SimulationResult) -> None:
        parts[(at[id(t.cell)], t.lo)] = res

    info = be.run_tasks(tasks, keep, progress, cells[0].unit)
    return [_assemble(be, c, probe(c, **extra), [parts[k] for k in sorted(parts) if k[0] == i], games, chunk, info)
            for i, c in enumerate(cells)]


def _assemble(be: Backend, cell: Cell, template: SimulationResult, parts: list[SimulationResult], games: int,
              chunk: int, info: TasksRun) -> SimulationResult:
    """One cell's result from its chunks (in game order)."""
    from .store import result_from_records

    def cat(get, empty: pd.DataFrame) -> pd.DataFrame:
        return pd.concat([get(p) for p in parts], ignore_index=True) if parts else empty.iloc[:0]

    records = cat(lambda p: p.records, template.records)
    result = result_from_records(cell, records, games, info.seconds, template.summary.get("compile_seconds", 0.0),
                                 be.threads, chunk, info.interrupted or len(records) < games, template.meta)
    for name, frame in (template.extra or {}).items():
        result.extra[name] = cat(lambda p, n=name: p.extra[n], frame)
    result.summary.update(be.describe())
    return result


def run_cell(be: Backend, cell: Cell, games: int, chunk: int | None = None, progress: bool = False,
             **extra: Any) -> SimulationResult:
    """Games [0, games) of ``cell`` computed on ``be``, in memory (see :func:`run_cells`)."""
    return run_cells(be, [cell], games, chunk, progress, **extra)[0]


def on_cluster(backend: str | None = "local", scheduler: str | None = None, workers: int | None = None,
               client=None) -> bool:
    """True when the options name a cluster (anything but the default local threads)."""
    return client is not None or backend not in (None, "local") or scheduler is not None or workers is not None


def simulate(games: int = DEFAULT_GAMES, backend: str | None = "local", scheduler: str | None = None,
             workers: int | None = None, client=None, threads: int | None = None, batch_size: int | None = None,
             progress: bool = False, **cell_kwargs: Any) -> SimulationResult:
    """:func:`unosim.simulate` on a backend: the same records for the same seed, whatever the backend.

    ``cell_kwargs``: rules, players, policies, deck, seed, seating, mode and the match options.
    ``summary`` adds backend, workers and ``cluster_start_seconds`` (excluded from ``games_per_second``)."""
    from ..running.sim import simulate as local_simulate
    from ..validate import check_games
    from .store import make_cell

    if not on_cluster(backend, scheduler, workers, client):
        return local_simulate(games=games, threads=threads, batch_size=batch_size, progress=progress, **cell_kwargs)
    games = check_games(games)
    extra = {"round_records": True} if cell_kwargs.pop("round_records", False) else {}
    cell = make_cell(**cell_kwargs)
    with backend_session(backend, scheduler, workers, client, threads) as be:
        return run_cell(be, cell, games, batch_size, progress, **extra)


__all__ = ["LocalBackend", "DaskBackend", "open_backend", "backend_session", "connect", "on_cluster",
           "start_local_cluster", "compute_task", "run_cell", "run_cells", "simulate", "CONNECT_TIMEOUT_S", "RETRIES"]
