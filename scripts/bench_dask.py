"""Dask backend benchmark: per-task overhead, crossover chunk size, sweep throughput dask-local vs local.

Usage: python scripts/bench_dask.py [--games-per-cell N] [--repeats R] [--workers W ...]

Cluster start-up is excluded from every throughput (the cluster is started once per worker count and
kept); measurements are interleaved (local, dask, local, dask, ...) and medians reported, because the
machine may be shared.  Prints one JSON object.
"""

from __future__ import annotations

import argparse
import json
import statistics
import tempfile
import time

from unosim.lab.experiments import run_sweep
from unosim.results.backends import backend_session, compute_task
from unosim.results.store import ChunkTask, make_cell, run_chunk

RULES = ["official", "official+stacking", "official+seven_zero", "official+jump_in"]


def sweep_spec(games: int, chunk: int | None = None) -> dict:
    spec = {"name": "bench", "games": games, "seed": 11, "grid": {"players": "2..6", "rules": RULES}}
    return spec if chunk is None else {**spec, "chunk": chunk}


def timed_sweep(games: int, chunk: int | None = None, **backend) -> tuple[float, int]:
    """Seconds of simulation (start-up excluded) and games of one sweep into a fresh store."""
    with tempfile.TemporaryDirectory() as store:
        df = run_sweep(sweep_spec(games, chunk), store=store, **backend)
    return df.attrs["seconds"], int(df["games"].sum())


def task_latency(client, task: ChunkTask, n: int) -> float:
    """Median seconds of one chunk task submitted and gathered alone (a round trip)."""
    out = []
    for i in range(n):
        t0 = time.perf_counter()
        client.submit(compute_task, task, pure=False, key=f"lat-{i}-{time.time_ns()}").result()
        out.append(time.perf_counter() - t0)
    return statistics.median(out)


def in_process(task: ChunkTask, n: int) -> float:
    out = []
    for _ in range(n):
        t0 = time.perf_counter()
        run_chunk(task.cell, task.lo, task.hi)
        out.append(time.perf_counter() - t0)
    return statistics.median(out)


def throughput_overhead(client, cell, n_tasks: int, workers: int) -> float:
    """Seconds of overhead per 1-game task when many are queued (total time x workers / tasks)."""
    tasks = [ChunkTask(cell, i, i + 1) for i in range(n_tasks)]
    t0 = time.perf_counter()
    futs = client.map(compute_task, tasks, pure=False, key=[f"thr-{i}-{time.time_ns()}" for i in range(n_tasks)])
    client.gather(futs)
    return (time.perf_counter() - t0) * workers / n_tasks


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--games-per-cell", type=int, default=20_000)
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--workers", type=int, nargs="+", default=[2, 1])
    ap.add_argument("--chunk", type=int, default=None, help="sweep chunk for both backends [default: each one's]")
    a = ap.parse_args()
    cell = make_cell(players=4, seed=3, policies="random")
    one, big = ChunkTask(cell, 0, 1), ChunkTask(cell, 0, 5_000)
    run_chunk(cell, 0, 1000)  # warm this process
    per_game = in_process(big, 5) / big.size
    local_one = in_process(one, 30)
    out: dict = {"games_per_cell": a.games_per_cell, "cells": 20, "chunk": a.chunk, "repeats": a.repeats,
                 "in_process_1_game_chunk_s": local_one, "seconds_per_game_one_thread": per_game}
    local: dict[int, list[float]] = {1: [], 2: []}
    dask: dict[int, list[float]] = {w: [] for w in a.workers}
    timed_sweep(2_000, threads=2)  # warm the local path
    for w in a.workers:
        t0 = time.perf_counter()
        with backend_session("dask-local", workers=w) as be:
            out[f"cluster_start_seconds_{w}w"] = time.perf_counter() - t0
            client = be.client
            if w == a.workers[0]:
                lat = task_latency(client, one, 30)
                thr = throughput_overhead(client, cell, 200, w)
                out.update(task_roundtrip_1_game_s=lat, task_overhead_s=lat - local_one,
                           queued_task_overhead_s=thr - local_one,
                           crossover_chunk_games=(lat - local_one) / per_game,
                           crossover_chunk_games_queued=(thr - local_one) / per_game)
            timed_sweep(2_000, client=client)  # warm the dask path
            for _ in range(a.repeats):
                for t in (1, 2) if w == a.workers[0] else ():
                    s, g = timed_sweep(a.games_per_cell, a.chunk, threads=t)
                    local[t].append(g / s)
                s, g = timed_sweep(a.games_per_cell, a.chunk, client=client)
                dask[w].append(g / s)
    med = {f"local_{t}_threads_gps": statistics.median(v) for t, v in local.items() if v}
    med.update({f"dask_local_{w}_workers_gps": statistics.median(v) for w, v in dask.items()})
    out.update(med, samples={"local": local, "dask": dask})
    if 2 in dask and local[2]:
        out["ratio_dask2_vs_local2"] = med["dask_local_2_workers_gps"] / med["local_2_threads_gps"]
    print(json.dumps(out, indent=1))


if __name__ == "__main__":
    main()
