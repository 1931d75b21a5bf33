"""Automatic tuning of a policy's numeric parameters with CMA-ES (the ``cma`` package).

>>> from unosim.lab.tune import tune
>>> t = tune("greedy(bluff=1,challenge=1)", players=4, budget=60_000, against="greedy(challenge=0.5)")
>>> t.tuned                      # e.g. 'greedy(bluff=0.012,challenge=0.03)'  # doctest: +SKIP

How it works
------------
* **Parameters** are discovered from the policy registry: every name in
  ``unosim.players.policies.POLICIES[name].params``, with its range ``param_range`` and default
  ``param_default``, so any policy registered with numeric parameters (``random`` and ``greedy``
  today: ``challenge`` and ``bluff`` in [0, 1]) can be tuned.  The policy string given to
  :func:`tune` is the *start*: its parameters start where it sets them, the others at their default.
* **The problem**: one seat plays the candidate, the other ``players - 1`` seats the ``against``
  field (one policy for all of them, or a comma list of exactly ``players - 1``), with rotating
  seats; the objective is the candidate's round win rate.
* **The search**: CMA-ES on the parameters rescaled to [0, 1] (``bounds``), ``popsize`` candidates
  per generation.  All candidates of a generation play the *same deals* (one seed per generation:
  common random numbers), so they are compared on equal luck; each generation gets fresh deals, so
  the search does not over-fit one set of deals.  ``budget`` counts the training rounds: a
  generation costs ``popsize x games_per_eval``; the search runs ``budget // that`` generations.
  Candidate values are rounded to ``DECIMALS`` places, so every evaluated candidate is an exact
  policy string.
* **The answer** is the final CMA-ES mean (less flattered by noise than the best single
  candidate), rounded, as a policy string ``--policies`` accepts.
* **Out of sample**: the tuned and the starting policy each play ``eval_games`` fresh rounds (a
  seed the search never saw), on the same deals; the report gives both win rates with 95% Wilson
  intervals and the paired improvement with its standard error.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from ..analysis.stats import mean_ci, proportion_ci
from ..console import progress_bar
from ..errors import SimulationError
from ..players.policies import POLICIES, PolicySpec, parse_policies, parse_policy, public_names
from ..results.outdir import writes_folder
from ..running.sim import check_simulate
from ..validate import check_memory, check_players, check_seed, integer, record_bytes

__all__ = ["TuneError", "TuneResult", "TunePlan", "Param", "tunable_params", "tunable_policies", "check_tune", "tune",
           "format_tune", "save_tune"]

DEFAULT_AGAINST = "greedy(challenge=0.5)"
DECIMALS = 3
DEFAULT_SIGMA = 0.3
TARGET_GENERATIONS = 15


class TuneError(SimulationError):
    """Bad input to tuning (one-line message naming the bad value and the accepted ones)."""


@dataclass(frozen=True)
class Param:
    name: str
    lo: float
    hi: float


@dataclass
class TuneResult:
    tuned: str                       # the tuned policy string
    start: str                       # the starting policy string
    params: dict[str, float]         # tuned parameter values
    history: pd.DataFrame            # one row per generation
    evaluation: dict[str, Any]       # out-of-sample comparison of tuned vs start
    meta: dict[str, Any] = field(default_factory=dict)


# ---- parameters --------------------------------------------------------------------------------------


def tunable_policies() -> list[str]:
    """Public policies that have numeric parameters."""
    return [n for n in public_names() if POLICIES[n].params]


def tunable_params(name: str) -> list[Param]:
    """The numeric parameters of a registered policy, with their ranges, in name order."""
    info = POLICIES[name]
    return [Param(k, *map(float, info.param_range(k))) for k in sorted(info.params)]


def _start(text: str) -> tuple[PolicySpec, list[Param], np.ndarray]:
    spec = parse_policy(text)
    params = tunable_params(spec.name)
    if not params:
        raise TuneError(f"policy {spec.name!r} has no numeric parameters to tune; accepted: "
                        f"{', '.join(tunable_policies())}")
    given = dict(spec.params)
    x = np.array([given.get(p.name, POLICIES[spec.name].param_default(p.name)) for p in params], float)
    return spec, params, x


def policy_string(name: str, params: Sequence[Param], values: np.ndarray) -> str:
    """Canonical policy string with values clipped to their ranges and rounded to DECIMALS."""
    vals = [round(float(np.clip(v, p.lo, p.hi)), DECIMALS) for p, v in zip(params, values, strict=True)]
    return str(PolicySpec(name, tuple(sorted((p.name, v + 0.0) for p, v in zip(params, vals, strict=True)))))


def _to_unit(params: Sequence[Param], x: np.ndarray) -> np.ndarray:
    return np.array([(v - p.lo) / (p.hi - p.lo) for p, v in zip(params, x, strict=True)])


def _from_unit(params: Sequence[Param], u: np.ndarray) -> np.ndarray:
    """Parameter values of a point of the unit cube (a search point: its dummy coordinate, if any, is ignored)."""
    return np.array([p.lo + float(np.clip(v, 0, 1)) * (p.hi - p.lo)
                     for p, v in zip(params, u[:len(params)], strict=True)])


def _search_start(u0: np.ndarray) -> list[float]:
    """CMA-ES's start: the unit-cube point, plus a dummy coordinate that no candidate reads when there is
    one parameter (cma does not support 1-D problems; its authors' advice is a 2-D objective that uses
    only the first variable)."""
    return [float(v) for v in u0] + ([0.5] if len(u0) == 1 else [])


def opponents(against: str, players: int) -> list[str]:
    """The other seats: one policy for all ``players - 1``, or a comma list of exactly that many."""
    return [str(s) for s in parse_policies(against, players - 1)]


# ---- evaluation ----------------------------------------------------------------------------------


def derived_seed(seed: int, *tags: int) -> int:
    """A 64-bit seed derived from (seed, tags) alone."""
    return int(np.random.SeedSequence([seed, *tags]).generate_state(1, np.uint64)[0])


def win_indicators(candidates: Sequence[str], field_: Sequence[str], games: int, seed: int, rules: str, deck: str,
                   threads: int | None, be=None, store: str | Path | None = None) -> list[np.ndarray]:
    """For each candidate (seat entry 0, rotating seats, the same deals for all): 1.0 for each round it
    wins, else 0.0.  Each candidate is a cell of the results store ``store`` (:mod:`unosim.results.store`); the
    missing chunks of all of them run together, on threads here or on a cluster backend ``be``
    (:mod:`unosim.results.backends`), and are stored as they finish.  An interrupt raises KeyboardInterrupt once
    the chunks in flight are stored."""
    from ..results.store import fill_cells, make_cell, read_cell

    cells = [make_cell(rules=rules, players=len(field_) + 1, policies=[c, *field_], deck=deck, seed=seed,
                       seating="rotate") for c in candidates]
    if any(info.interrupted for info in fill_cells(cells, games, store, threads, backend=be)):
        raise KeyboardInterrupt
    return [(read_cell(c, games, store)["winner_policy"].to_numpy() == 0).astype(np.float64) for c in cells]


def _budget_plan(budget: int, players: int, popsize: int, games_per_eval: int | None) -> tuple[int, int]:
    """(games per candidate, generations) for a training budget in rounds."""
    if games_per_eval is None:
        games_per_eval = max(50 * players, budget // (popsize * TARGET_GENERATIONS))
    gpe = -(-integer("games_per_eval", games_per_eval, 1, error=TuneError) // players) * players
    gens = budget // (popsize * gpe)
    if gens < 1:
        raise TuneError(f"budget={budget} is too small for one generation of {popsize} candidates x {gpe} "
                        f"rounds; accepted: at least {popsize * gpe}")
    return gpe, gens


@dataclass(frozen=True)
class TunePlan:
    """A checked tuning job (what :func:`check_tune` returns and :func:`tune` runs)."""

    spec: PolicySpec
    params: list[Param]
    x0: np.ndarray
    start: str
    players: int
    others: list[str]
    budget: int
    popsize: int
    games_per_eval: int
    generations: int
    eval_games: int
    seed: int
    sigma0: float


def check_tune(policy: str, players: int = 4, budget: int = 60_000, against: str = DEFAULT_AGAINST,
               rules: str = "official", deck: str = "classic", seed: int = 0, popsize: int | None = None,
               games_per_eval: int | None = None, eval_games: int | None = None, sigma0: float = DEFAULT_SIGMA,
               threads: int | None = None, policy_files: list[str] | str | None = None) -> TunePlan:
    """Check every argument of :func:`tune` without playing; a one-line error names the first bad one.

    ``policy_files``: Python files defining policies that ``policy`` and ``against`` may name."""
    from ..players.policy_api import load_policy_files

    load_policy_files(policy_files)
    spec, params, x0 = _start(policy)
    n = check_players(players)
    others = opponents(against, n)
    budget = integer("budget", budget, 1, error=TuneError)
    seed = check_seed(seed)
    if isinstance(sigma0, bool) or not isinstance(sigma0, int | float) or not 0.0 < float(sigma0) <= 1.0:
        raise TuneError(f"sigma0={sigma0!r} is out of range; accepted: (0, 1] (a share of each range)")
    lam = 4 + int(3 * math.log(len(params))) if popsize is None else integer("popsize", popsize, 2, error=TuneError)
    gpe, gens = _budget_plan(budget, n, lam, games_per_eval)
    n_eval = integer("eval_games", eval_games if eval_games is not None else max(2000, budget // 2), 1,
                     error=TuneError)
    n_eval = -(-n_eval // n) * n
    start = policy_string(spec.name, params, x0)
    check_simulate(rules=rules, players=n, policies=[start, *others], games=max(gpe, n_eval), seed=seed,
                   threads=threads, deck=deck, seating="rotate")
    # one candidate's records at a time (read from the store), and every candidate's win indicators
    check_memory("eval_games" if n_eval >= gpe else "games_per_eval", max(gpe, n_eval),
                 record_bytes("round", n, from_disk=True) + 8 * max(lam, 2), advice="rounds per candidate")
    return TunePlan(spec, params, x0, start, n, others, budget, lam, gpe, gens, n_eval, seed, float(sigma0))


# ---- the search ----------------------------------------------------------------------------------


def tune(policy: str, players: int = 4, budget: int = 60_000, against: str = DEFAULT_AGAINST,
         rules: str = "official", deck: str = "classic", seed: int = 0, popsize: int | None = None,
         games_per_eval: int | None = None, eval_games: int | None = None, sigma0: float = DEFAULT_SIGMA,
         threads: int | None = None, progress: bool = False, backend: str | None = "local",
         scheduler: str | None = None, workers: int | None = None, client=None,
         policy_files: list[str] | str | None = None, store: str | Path | None = None) -> TuneResult:
    """Tune the numeric parameters of ``policy`` (its string is the start); see the module doc.

    Every candidate's rounds (and the out-of-sample ones) are cells of the results store ``store``
    (default ``results/store``, as for :func:`unosim.lab.experiments.compare`): the search is deterministic,
    so after a kill or Ctrl-C (KeyboardInterrupt, once the chunks in flight are stored) the same call
    replays the finished generations from the store, computes only what is missing, and gives the same
    result.

    ``backend``, ``scheduler``, ``workers``, ``client``: where the candidates play (:mod:`unosim.results.backends`;
    on a cluster a generation's candidates are submitted together); the result does not depend on it."""
    import contextlib

    from ..results.backends import backend_session, on_cluster

    cluster = dict(backend=backend, scheduler=scheduler, workers=workers, client=client)
    with (backend_session(**cluster, threads=threads) if on_cluster(**cluster) else
          contextlib.nullcontext()) as be:
        return _tune(policy, players, budget, against, rules, deck, seed, popsize, games_per_eval, eval_games,
                     sigma0, threads, progress, be, policy_files, store)


def _tune(policy, players, budget, against, rules, deck, seed, popsize, games_per_eval, eval_games, sigma0,
          threads, progress, be, policy_files=None, store=None) -> TuneResult:
    import cma

    from ..players.policy_api import load_policy_files

    plan = check_tune(policy, players, budget, against, rules, deck, seed, popsize, games_per_eval, eval_games,
                      sigma0, threads, policy_files)
    spec, params, start, others = plan.spec, plan.params, plan.start, plan.others
    n, lam, gpe, gens, seed = plan.players, plan.popsize, plan.games_per_eval, plan.generations, plan.seed
    opts = {"bounds": [0.0, 1.0], "popsize": lam, "seed": derived_seed(seed, 3) % (2**31 - 1) + 1,
            "verbose": -9, "tolfun": 0, "tolfunhist": 0, "tolflatfitness": 10**9, "tolstagnation": 10**9}
    u0 = np.clip(_to_unit(params, plan.x0), 0.01, 0.99)
    es = cma.CMAEvolutionStrategy(_search_start(u0), plan.sigma0, opts)
    rows = []
    bar = progress_bar(progress, gens, "generations", "tuning", leave=False)
    used = 0
    for gen in range(gens):
        gseed = derived_seed(seed, 1, gen)
        cands = es.ask()
        strings = [policy_string(spec.name, params, _from_unit(params, np.asarray(u))) for u in cands]
        rates = np.array([w.mean() for w in win_indicators(strings, others, gpe, gseed, rules, deck, threads, be,
                                                           store)])
        es.tell(cands, list(-rates))
        used += lam * gpe
        mean_x = _from_unit(params, np.asarray(es.result.xfavorite))
        best = int(np.argmax(rates))
        rows.append({"generation": gen, "games": used, "seed": gseed, "mean_rate": float(rates.mean()),
                     "best_rate": float(rates[best]), "best": strings[best],
                     "mean": policy_string(spec.name, params, mean_x),
                     **{f"mean_{p.name}": float(v) for p, v in zip(params, mean_x, strict=True)}})
        if bar is not None:
            bar.update(1)
    if bar is not None:
        bar.close()
    tuned_x = _from_unit(params, np.asarray(es.result.xfavorite))
    tuned = policy_string(spec.name, params, tuned_x)
    evaluation = evaluate(tuned, start, others, plan.eval_games, derived_seed(seed, 2), rules, deck, threads, be,
                          store)
    tuned_params = dict(parse_policy(tuned).params)
    meta = {"kind": "tune", "policy": spec.name, "start": start, "against": others, "players": n,
            "rules": rules, "deck": deck, "seed": int(seed), "budget": plan.budget, "games_used": used,
            "popsize": lam, "games_per_eval": gpe, "generations": gens, "sigma0": plan.sigma0,
            "eval_games": plan.eval_games, "eval_seed": derived_seed(seed, 2), "decimals": DECIMALS,
            "params": [{"name": p.name, "lo": p.lo, "hi": p.hi} for p in params],
            "policy_files": load_policy_files(policy_files)}
    return TuneResult(tuned, start, {k: tuned_params.get(k, 0.0) for k in (p.name for p in params)},
                      pd.DataFrame(rows), evaluation, meta)


def evaluate(tuned: str, start: str, others: Sequence[str], games: int, seed: int, rules: str, deck: str,
             threads: int | None, be=None, store: str | Path | None = None) -> dict[str, Any]:
    """Out-of-sample win rates of ``tuned`` and ``start`` on the same fresh deals, and the paired gain."""
    a, b = win_indicators([tuned, start], others, games, seed, rules, deck, threads, be, store)
    out: dict[str, Any] = {"games": int(games), "seed": int(seed)}
    for key, ind in (("tuned", a), ("start", b)):
        p, se, lo, hi = proportion_ci(int(ind.sum()), len(ind))
        out[key] = {"rate": p, "se": se, "ci_lo": lo, "ci_hi": hi, "wins": int(ind.sum())}
    d, dse, dlo, dhi = mean_ci(a - b)
    out["improvement"] = {"mean": d, "se": dse, "ci_lo": dlo, "ci_hi": dhi,
                          "z": d / dse if dse and dse > 0 else None}
    return out


# ---- output --------------------------------------------------------------------------------------


def format_tune(result: TuneResult) -> str:
    from ..fmt import fmt_pm

    m, ev = result.meta, result.evaluation
    t, s, imp = ev["tuned"], ev["start"], ev["improvement"]
    return "\n".join([
        f"rules     {m['rules']}   deck {m['deck']}   players {m['players']}   seed {m['seed']}",
        f"against   {', '.join(m['against'])} (rotating seats)",
        f"search    CMA-ES, {m['generations']} generations x {m['popsize']} candidates x "
        f"{m['games_per_eval']:,} rounds = {m['games_used']:,} rounds (budget {m['budget']:,})",
        "",
        f"start     {result.start}",
        f"tuned     {result.tuned}",
        "",
        f"out of sample, {ev['games']:,} fresh rounds each, same deals:",
        f"  tuned win rate   {fmt_pm(t['rate'], 1.96 * t['se'], pct=True)}  "
        f"(95% Wilson CI {100 * t['ci_lo']:.2f}-{100 * t['ci_hi']:.2f}%)",
        f"  start win rate   {fmt_pm(s['rate'], 1.96 * s['se'], pct=True)}  "
        f"(95% Wilson CI {100 * s['ci_lo']:.2f}-{100 * s['ci_hi']:.2f}%)",
        f"  improvement      {fmt_pm(imp['mean'], 1.96 * imp['se'], pct=True)} "
        f"({imp['z']:.1f} standard errors)" if imp["z"] is not None else "  improvement      n/a",
        f"  fair share       {100 / m['players']:.2f}%",
    ])


def to_json(result: TuneResult) -> dict[str, Any]:
    hist = result.history.replace({np.nan: None}).to_dict(orient="records")
    return {"tuned": result.tuned, "start": result.start, "params": result.params,
            "evaluation": result.evaluation, "meta": result.meta, "history": hist}


@writes_folder("out_dir", "tune")
def save_tune(result: TuneResult, out_dir: Path) -> dict[str, Path]:
    """Write ``tuned_policy.txt``, ``tune.json``, ``history.csv`` and ``tune_convergence.png``."""
    from ..reports.report import make_tuning_chart
    from ..results.io import write_json

    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    paths = {"tuned_policy.txt": out_dir / "tuned_policy.txt", "tune.json": out_dir / "tune.json",
             "history.csv": out_dir / "history.csv", "tune_convergence.png": out_dir / "tune_convergence.png"}
    paths["tuned_policy.txt"].write_text(result.tuned + "\n")
    write_json(paths["tune.json"], to_json(result))
    result.history.to_csv(paths["history.csv"], index=False)
    make_tuning_chart(result.history, result.meta, result.evaluation, paths["tune_convergence.png"])
    return paths
