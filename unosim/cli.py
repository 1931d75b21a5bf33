"""Command line: ``unosim simulate | rules | presets | demo | report | plot | trace | tournament | tune | skill``.

Every bad input ends with a one-line ``error: ...`` on stderr and exit code 2, never a traceback.
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

import click

from . import __version__
from .cli_types import (
    BACKEND,
    COUNT,
    DECK_HELP,
    MODE,
    PLAYERS,
    SCORING,
    SEATING,
    SEED,
    STUDY,
    add_examples,
    parse_int,
    quiet_option,
)
from .errors import PolicyRaised, UnosimError

EXIT_USAGE = 2


class CliError(click.ClickException):
    exit_code = EXIT_USAGE

    def show(self, file=None) -> None:  # one line, no usage dump
        click.echo(f"error: {self.format_message()}", err=True)


def _fail(exc: Exception) -> CliError:
    if isinstance(exc, PolicyRaised):  # a user policy raised: one line, then the user's own frames
        return CliError(str(exc))
    return CliError(str(exc).splitlines()[0] if str(exc) else exc.__class__.__name__)


def _check_out(out: str | None, create: bool = True) -> Path | None:
    """The --out folder, created (with its parents) only once everything else has been checked.

    ``create=False`` only checks that it could be: not empty, no file in the way, and its nearest existing
    parent a folder this process can write to (for commands that write --out after a long run)."""
    if out is None:
        return None
    if not out.strip():
        raise CliError(f"--out {out!r} is empty; accepted: a directory path")
    p = Path(out)
    if not create:
        parent = next((a for a in (p, *p.parents) if a.exists()), Path("."))
        if not parent.is_dir() or not os.access(parent, os.W_OK | os.X_OK):
            raise CliError(f"--out {out!r} is not a writable directory ({str(parent)!r} is in the way); "
                           "accepted: a directory you can write to")
        return p
    try:
        p.mkdir(parents=True, exist_ok=True)
        probe = p / ".unosim-write-test"
        probe.write_text("")
        probe.unlink()
    except OSError as e:
        raise CliError(f"--out {out!r} is not a writable directory ({e.strerror}); "
                       "accepted: a directory you can write to") from None
    return p


class _Unosim(click.Group):
    """The command group: a refusal of the library (:class:`~unosim.errors.UnosimError`) raised anywhere
    in a command, a policy's bad answer or exception in the middle of a run included, ends as ``error: ...``
    and exit code 2, never a traceback."""

    def invoke(self, ctx: click.Context):
        from .console import configure

        # a compile that is not cached says so first (not with --quiet, given to unosim or to the command)
        configure(notice=True, quiet=bool(ctx.meta.get("unosim.quiet")))
        try:
            return super().invoke(ctx)
        except UnosimError as e:
            raise _fail(e) from None


@click.group(cls=_Unosim, context_settings={"help_option_names": ["-h", "--help"]}, invoke_without_command=True)
@click.version_option(__version__, prog_name="unosim")
@quiet_option
@click.pass_context
def main(ctx: click.Context) -> None:
    """unosim: Monte-Carlo strategy simulator for UNO and its variants."""
    if ctx.invoked_subcommand is None:
        click.echo(ctx.get_help())


def _backend_options(f):
    """--backend, --scheduler, --workers (unosim.results.backends)."""
    f = click.option("--workers", type=COUNT, default=None,
                     help="--backend dask-local: worker processes (one thread each) [default: all cores].")(f)
    f = click.option("--scheduler", default=None, metavar="ADDRESS",
                     help="--backend dask: address of a running `dask scheduler`, e.g. tcp://10.0.0.5:8786.")(f)
    return click.option("--backend", type=BACKEND, default="local", show_default=True,
                        help="Where the chunks run: local (threads here), dask (--scheduler, an existing "
                             "cluster) or dask-local (--workers, a local cluster). Results do not depend on it.")(f)


def _set_decision_timeout(ctx, param, value) -> None:
    if value is None and "unosim.players.external" not in sys.modules:
        return  # no limit and none set: nothing to import (a command answered from the store loads no kernel)
    from .players.external import set_decision_timeout

    try:
        set_decision_timeout(None if value is None else _float("decision-timeout", value))
    except ValueError as e:
        raise click.BadParameter(str(e)) from None


def _decision_timeout_option(f):
    """--decision-timeout SECONDS: the per-decision time limit of plain-Python policies (unosim.players.external)."""
    return click.option("--decision-timeout", metavar="SECONDS", default=None, expose_value=False,
                        callback=_set_decision_timeout,
                        help="Stop when a plain-Python policy takes longer than this to answer one decision "
                             "(numba policies cannot be timed; a second Ctrl-C ends any run). [default: no "
                             "limit]")(f)


def _policy_file_option(f):
    """--policy-file (repeatable): Python files defining policies the other options may name; and
    --decision-timeout."""
    f = _decision_timeout_option(f)
    return click.option("--policy-file", "policy_files", multiple=True, metavar="PATH",
                        help="Python file defining policies (repeatable); its policies may then be named like "
                             "built-in ones. Results are keyed by the file's content: an edited file is rerun, "
                             "never served from the store. See `unosim policies`.")(f)


def _backend_kw(backend, scheduler, workers) -> dict:
    """The backend options, checked (before any output folder is made)."""
    from .validate import check_backend

    workers = _int("workers", workers)
    check_backend(backend, scheduler, workers)
    return dict(backend=backend, scheduler=scheduler, workers=workers)


@main.command()
@click.option("--rules", "rules", default="official", show_default=True,
              help="Rules string: presets and options joined by '+', e.g. 'official+stacking'. "
                   "See `unosim rules` and `unosim presets`.")
@click.option("-n", "--players", default="4", show_default=True, type=PLAYERS, help="Number of players, 2..10.")
@click.option("-p", "--policies", default="greedy", show_default=True,
              help="One policy for every seat, or a comma list (one per seat): greedy, random, "
                   "greedy(challenge=0.5,bluff=0.1). The default is greedy because casual players mostly shed "
                   "their highest cards and keep wilds; random (uniform over legal cards) is a poor model of a "
                   "person, but stays available by name. Every answer holds only for the players simulated.")
@click.option("-g", "--games", type=COUNT, default="100000", show_default=True,
              help="Rounds to simulate (100k, 1e6, 2M and 1_000_000 work too).")
@click.option("-s", "--seed", type=SEED, default="0", show_default=True, help="Master seed (0..2**64-1).")
@click.option("--threads", type=COUNT, default=None, help="Worker threads [default: all cores]. Results do not depend on it.")
@click.option("--deck", default="classic", show_default=True, metavar="DECK", help=DECK_HELP)
@click.option("--batch-size", type=COUNT, default=None, help="Rounds per batch (progress granularity; with --out, per chunk file).")
@click.option("-o", "--out", metavar="DIR", default=None, help="Directory for records.parquet, summary.json and meta.json.")
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object on stdout.")
@click.option("--report/--no-report", default=False, help="With --out, also write charts and summary.md.")
@click.option("--seating", type=SEATING, default="fixed", show_default=True,
              help="fixed (policy i in seat i), rotate (every policy plays every seat equally often) or "
                   "shuffle (random seats per game).")
@click.option("--mode", type=MODE, default="round", show_default=True,
              help="round (one round per game) or match (full games to a target score; --games counts matches).")
@click.option("--scoring", type=SCORING, default="standard", show_default=True,
              help="Match scoring: standard, self_loser, lowest_wins, elimination, lazy, rotating_partners.")
@click.option("--target", type=COUNT, default=None, help="Match target score [default: 500; 200 for self_loser].")
@click.option("--partners", is_flag=True, help="Match: seats i and i+n/2 play as a team.")
@click.option("--max-rounds", type=COUNT, default="1000", show_default=True, help="Match: cap on rounds.")
@click.option("--round-records", is_flag=True, help="Match: with --out, also write rounds.parquet.")
@click.option("--policy-file", "policy_files", multiple=True, metavar="PATH",
              help="Python file defining policies (repeatable); see `unosim policies`.")
@_decision_timeout_option
@_backend_options
@quiet_option
def simulate(rules, players, policies, games, seed, threads, deck, batch_size, out, as_json, report, seating,
             mode, scoring, target, partners, max_rounds, round_records, policy_files, backend, scheduler,
             workers) -> None:
    """Simulate many rounds (or full matches) and summarise them."""
    from .running.sim import check_simulate

    try:
        kw = dict(rules=rules, players=_int("players", players), policies=policies,
                  games=_int("games", games), seed=_int("seed", seed), threads=_int("threads", threads),
                  deck=deck, batch_size=_int("batch-size", batch_size), seating=seating, mode=mode,
                  progress=sys.stderr.isatty() and not as_json, policy_files=list(policy_files) or None)
        if mode == "match":
            kw.update(scoring=scoring, target=_int("target", target), partners=partners,
                      max_rounds=_int("max-rounds", max_rounds), round_records=round_records)
        elif target is not None or partners or round_records or scoring != "standard" or max_rounds != 1000:
            raise CliError("--target/--scoring/--partners/--max-rounds/--round-records apply to --mode match "
                           "only; accepted: add --mode match")
        if out is None and (report or round_records):
            raise CliError(f"{'--report' if report else '--round-records'} writes into the --out folder; "
                           "accepted: add --out DIR")
        planned = check_simulate(**kw)
        if out is not None:  # records read back from the chunks on disk take more memory than built ones
            from .validate import check_games, record_bytes

            check_games(kw["games"], record_bytes(mode, kw["players"], from_disk=True, round_records=round_records))
        bkw = _backend_kw(backend, scheduler, workers)
    except ValueError as e:
        raise _fail(e) from None
    out_dir = _check_out(out)
    if out_dir is None and backend == "local":
        result = planned.execute()
    else:  # crash-safe: chunks land as they finish (unosim.results.rundir); or chunks on a cluster
        from .results.backends import simulate as simulate_on
        from .results.rundir import simulate_into

        try:
            result = simulate_on(**kw, **bkw) if out_dir is None else simulate_into(out_dir, **kw, **bkw)
        except ValueError as e:
            raise _fail(e) from None
    if out_dir is not None:
        if report:
            from .reports.report import make_match_report, make_report

            make = make_match_report if mode == "match" else make_report
            make([(result.meta["rules"], result.records, result.meta)], out_dir)
    if as_json:
        click.echo(json.dumps(result.summary, allow_nan=False))
    else:
        click.echo(format_match_summary(result.summary) if mode == "match" else format_summary(result.summary))
        if out_dir is not None:
            click.echo(f"records written to {out_dir}")
    if result.interrupted:
        click.echo(f"interrupted: {result.meta['games_completed']} of {result.meta['games']} rounds kept",
                   err=True)
        sys.exit(130)


def _store_root(store: str | None, no_store: bool, default: Path | str | None) -> Path | str | None:
    """The results-store root of a command with ``--store DIR`` and ``--no-store`` (None: no store); both given
    is a contradiction, refused in one line rather than one of them silently dropped."""
    if no_store:
        source = click.get_current_context().get_parameter_source("store")
        if source is not click.core.ParameterSource.DEFAULT:
            raise CliError(f"--store {store!r} and --no-store contradict each other; accepted: one of them")
        return None
    return store if store is not None else default


def _int(option: str, value: str | None) -> int | None:
    """An integer option's text (``1_000_000``, ``1e6``, ``100k``, ``2M`` allowed); its range is checked by
    the API."""
    return parse_int(option, value)


def _f(x, spec: str) -> str:
    """Format a number that may be undefined (None, e.g. a standard deviation of one game)."""
    return "n/a" if x is None else format(x, spec)


def _interrupted_line(s: dict) -> list[str]:
    if not s.get("interrupted"):
        return []
    return [f"INTERRUPTED: kept {s['games']:,} of {s.get('games_requested', s['games']):,} "
            f"(`unosim rerun DIR` completes it)"]


def _capped_line(capped: int, games: int, unit: str) -> list[str]:
    """What a capped round or match means, when there is one: its seats' win rates leave it out of every win."""
    if not capped:
        return []
    if unit == "rounds":
        what, every = "rounds reached the turn cap (set(turn_cap=...))", "these rules may let no round end"
    else:
        what, every = "matches reached the round cap (max_rounds)", "raise it, or these rules may let no match end"
    tail = f"; {every}" if capped == games else ""
    return [f"note      {capped:,} of {games:,} {what}: no winner, a loss for every seat{tail}"]


def _speed(s: dict, unit: str) -> str:
    """``N rounds/s``, or that nothing was run now (a rerun whose chunks were all written already)."""
    gps = s.get("games_per_second")
    return f"{gps:,.0f} {unit}/s" if gps is not None else f"no {unit} run now (all were stored)"


def _speed_line(s: dict, unit: str) -> str:
    """The last line of a summary: speed, where it ran (threads, or the workers of a cluster), compile time."""
    if s.get("workers"):
        where = (f"{s['workers']} {s.get('backend', 'dask')} worker{'s' * (s['workers'] != 1)} "
                 f"(cluster start {s.get('cluster_start_seconds', 0):.1f} s, not counted)")
    else:
        where = f"{s.get('threads')} thread{'s' * (s.get('threads') != 1)}"
    return (f"{_speed(s, unit)} on {where}; compile/cache load {s.get('compile_seconds', 0):.2f} s; "
            f"engine v{s.get('engine_version')}")


def format_summary(s: dict) -> str:
    """A readable table of the summary with 95% confidence half-widths."""
    from .fmt import fmt_pm

    lines = [
        f"rules     {s['rules']}   deck {s.get('deck', 'classic')}",
        f"players   {s['players']}   policies {', '.join(s['policies'])}",
        f"rounds    {s['games']:,}   seed {s['seed']}   capped {s['capped_games']}",
        *_capped_line(s["capped_games"], s["games"], "rounds"),
        *_interrupted_line(s),
        "",
        f"mean turns per round    {fmt_pm(s['mean_turns'], 1.96 * (s['se_turns'] or 0))}"
        f"   (sd {_f(s['sd_turns'], '.1f')})",
        f"mean winner points      {fmt_pm(s['mean_winner_points'], 1.96 * (s['se_winner_points'] or 0))}",
        f"mean cards drawn        {_f(s['mean_cards_drawn'], '.2f')}",
        "",
        "seat  policy                     win rate (95% CI)",
    ]
    for i, (rate, se) in enumerate(zip(s["seat_win_rate"], s["seat_win_rate_se"], strict=True)):
        lines.append(f"{i:>4}  {s['policies'][i]:<26} {fmt_pm(rate, 1.96 * (se or 0), pct=True)}")
    if len(s["policy_win_rate"]) > 1:
        lines += ["", "policy                     win rate per seat (95% CI)"]
        for name, rate in s["policy_win_rate"].items():
            lines.append(f"{name:<26} {fmt_pm(rate, 1.96 * (s['policy_win_rate_se'][name] or 0), pct=True)}")
    lines += ["", _speed_line(s, "rounds")]
    return "\n".join(lines)


def format_match_summary(s: dict) -> str:
    """A readable table of a match-mode summary with 95% confidence half-widths (teams in partners mode)."""
    from .fmt import fmt_pm
    from .running.match import scoring_text

    lines = [
        f"rules     {s['rules']}   deck {s.get('deck', 'classic')}   scoring {scoring_text(s['scoring'], s['target'])}",
        f"players   {s['players']}   policies {', '.join(s['policies'])}   seating {s['seating']}",
        f"matches   {s['games']:,}   seed {s['seed']}   capped {s['capped_matches']}",
        *_capped_line(s["capped_matches"], s["games"], "matches"),
        *_interrupted_line(s),
    ]
    if s.get("scoring_note"):
        lines.append(f"scores    {s['scoring_note']}")
    lines += [
        "",
        f"mean rounds per match   {fmt_pm(s['mean_rounds'], 1.96 * (s['se_rounds'] or 0))}   "
        f"(sd {_f(s['sd_rounds'], '.2f')})",
        "",
    ]
    if s.get("partners"):
        lines += _format_team_tables(s)
    else:
        lines.append("seat  match win rate     round win rate     mean final score")
        for i in range(s["players"]):
            lines.append(f"{i:>4}  {fmt_pm(s['seat_match_win_rate'][i], 1.96 * (s['seat_match_win_rate_se'][i] or 0), pct=True):<18} "
                         f"{fmt_pm(s['seat_round_win_rate'][i], 1.96 * (s['seat_round_win_rate_se'][i] or 0), pct=True):<18} "
                         f"{_f(s['mean_final_score_by_seat'][i], '.1f')}")
    if "seat_avoided_loss_rate" in s:  # self_loser: every seat but the loser wins (docs/scoring.md)
        lines += ["", "seat  avoided losing (95% CI)"]
        for i, (r, se) in enumerate(zip(s["seat_avoided_loss_rate"], s["seat_avoided_loss_rate_se"], strict=True)):
            lines.append(f"{i:>4}  {fmt_pm(r, 1.96 * se, pct=True)}")
    if "policy_match_win_rate" in s:
        lines += ["", "policy                     match win rate per seat   round win rate per seat"]
        for name in s["policy_match_win_rate"]:
            lines.append(f"{name:<26} {fmt_pm(s['policy_match_win_rate'][name], 1.96 * (s['policy_match_win_rate_se'][name] or 0), pct=True):<25} "
                         f"{fmt_pm(s['policy_round_win_rate'][name], 1.96 * (s['policy_round_win_rate_se'][name] or 0), pct=True)}")
    elif len(s["policy_round_win_rate"]) > 1:
        lines += ["", "policy                     round win rate per seat"]
        for name, rate in s["policy_round_win_rate"].items():
            lines.append(f"{name:<26} {fmt_pm(rate, 1.96 * (s['policy_round_win_rate_se'][name] or 0), pct=True)}")
    lines += ["", _speed_line(s, "matches")]
    return "\n".join(lines)


def _format_team_tables(s: dict) -> list[str]:
    """Partners mode: the team table, the win rate per team composition and the relabelled seat table."""
    from .fmt import fmt_ci, fmt_pm

    half = s["teams"]
    pols = s["team_policies"] or [[f"({s['seating']})"] for _ in range(half)]
    names = ["+".join(p) for p in pols]
    w = max(14, *(len(nm) + 2 for nm in names))
    lines = [f"teams     {half} teams of two: seats i and i+{half} are partners and share one score",
             "",
             f"team  seats  {'policies':<{w}} {'match win rate (95% CI)':<27} {'round win rate':<18} mean final score"]
    for t in range(half):
        a, b = s["team_seats"][t]
        lines.append(f"{t:>4}  {f'{a}+{b}':<6} {names[t]:<{w}} "
                     f"{fmt_ci(s['team_match_win_rate'][t], *s['team_match_win_rate_ci'][t]):<27} "
                     f"{fmt_pm(s['team_round_win_rate'][t], 1.96 * (s['team_round_win_rate_se'][t] or 0), pct=True):<18} "
                     f"{fmt_pm(s['team_mean_final_score'][t], 1.96 * (s['team_mean_final_score_se'][t] or 0))}")
    rows = s["team_composition_match_win_rate"]
    lu_w = max(len("line-up") + 2, *(len(r["line_up"]) + 2 for r in rows))
    tw = max(len("team") + 2, *(len(r["team"]) + 2 for r in rows))
    lines += ["", f"{'line-up':<{lu_w}} {'team':<{tw}} {'matches':>9}   match win rate per team (95% CI)"]
    last = None
    for r in rows:
        same = r["line_up"] == last
        last = r["line_up"]
        lines.append(f"{'' if same else r['line_up']:<{lu_w}} {r['team']:<{tw}} "
                     f"{'' if same else format(r['matches'], ','):>9}   {fmt_ci(r['win_rate'], r['ci_lo'], r['ci_hi'])}"
                     + (f"   (x{r['teams']} teams, per-team share)" if r["teams"] > 1 else ""))
    lines += ["", "seat  team  went out in the deciding round   round win rate"]
    for i in range(s["players"]):
        lines.append(f"{i:>4}  {i % half:>4}  "
                     f"{fmt_pm(s['seat_went_out_deciding_round'][i], 1.96 * (s['seat_went_out_deciding_round_se'][i] or 0), pct=True):<32} "
                     f"{fmt_pm(s['seat_round_win_rate'][i], 1.96 * (s['seat_round_win_rate_se'][i] or 0), pct=True)}")
    lines.append("(the partner whose last card won the match for the team; not a win of its own)")
    return lines


@main.command("rules")
@click.argument("name", required=False)
@click.option("-v", "--verbose", is_flag=True, help="Also show the engine's internals (where an option is packed).")
def rules_cmd(name: str | None, verbose: bool) -> None:
    """List every rule option, or show one in full."""
    from .ruleset.rules import RuleError, format_option, format_options_table

    try:
        click.echo(format_option(name, verbose) if name else format_options_table())
        click.echo("\nEvery rule with its default and the source lines it comes from: docs/rules.md")
    except RuleError as e:
        raise _fail(e) from None


@main.command()
def presets() -> None:
    """List the named rule presets."""
    from .ruleset.rules import format_presets

    click.echo(format_presets())


@main.command()
@click.option("-o", "--out", metavar="DIR", default="results/demo", show_default=True, help="Directory for the report.")
@click.option("-g", "--games", type=COUNT, default="100000", show_default=True, help="Rounds per player count.")
@click.option("-s", "--seed", type=SEED, default="7", show_default=True, help="Master seed.")
@quiet_option
def demo(out: str, games: str, seed: str) -> None:
    """One question answered with intervals: how big is the first player's edge with 2 to 10 players?

    A small run of scripts/study_first_player.py (official rules, random policies)."""
    from .lab.studies import STUDIES, run_study
    from .validate import check_games, check_seed

    try:
        n_games, s = check_games(_int("games", games)), check_seed(_int("seed", seed))
    except ValueError as e:
        raise _fail(e) from None
    out_dir = _check_out(out)
    click.echo(STUDIES["first_player"].question)
    try:
        res = run_study("first_player", games=n_games, seed=s, out=out_dir, progress=sys.stderr.isatty(),
                        echo=click.echo)
    except ValueError as e:
        raise _fail(e) from None
    click.echo("\n".join(res.answer))
    click.echo(res.sentence)
    click.echo(f"headline chart: {res.files[res.study.headline]}")
    click.echo(f"report: {res.files['summary.md']}")
    click.echo(f"page:   {res.files['report.html']}")


@main.command("study")
@click.argument("name", type=STUDY)
@click.option("-g", "--games", type=COUNT, default=None,
              help="Rounds (matches for match_length) per cell [default: the study's quick size; its --help "
                   "below names the size of the real answer].")
@click.option("-s", "--seed", type=SEED, default="1", show_default=True, help="Master seed, the same for every cell.")
@click.option("-o", "--out", metavar="DIR", default=None, help="Report folder [default: results/NAME].")
@click.option("--threads", type=COUNT, default=None, help="Worker threads [default: all cores]. Results do not depend on it.")
@click.option("--store", metavar="DIR", default="results/store", show_default=True,
              help="Results store: a rerun reuses stored games; a larger --games adds only the missing ones.")
@click.option("--no-store", is_flag=True, help="Simulate without the results store.")
@quiet_option
def study_cmd(name: str, games: int | None, seed: int, out: str | None, threads: int | None, store: str,
              no_store: bool) -> None:
    """One question answered end to end, with a page and charts: first_player (the first player's edge, 2-10
    players), house_rules (each house rule's effect on length and edge), flip (UNO Flip against classic),
    match_length (rounds per match to 500).  Without --games it runs the study's quick size and says which
    size gives the real answer."""
    from .lab.studies import STUDIES, run_and_print, run_study

    study = STUDIES[name]
    root = _store_root(store, no_store, None)
    out_dir = _check_out(out if out is not None else f"results/{name}")
    click.echo(study.question)
    if games is None:
        click.echo(f"a quick run of {study.quick_games:,} {study.unit} per cell; -g {study.real_games:,} gives the "
                   "real answer")
    rc = run_and_print(lambda: run_study(name, games=games, seed=seed, out=out_dir, threads=threads,
                                         progress=sys.stderr.isatty(), store=root,
                                         echo=click.echo))
    if rc:
        sys.exit(rc)


def _report_runs(runs: tuple[str, ...]) -> tuple[list, bool]:
    """The labelled runs ``(label, records, meta)`` of the saved-run folders ``runs``, and whether they
    get the match report (match runs of one player count); one line and exit code 2 on bad input."""
    from .reports.report import run_labels
    from .results.io import find_runs, is_store_cell
    from .results.loading import load_any

    dirs, loaded = [], []
    for r in runs:
        group = []
        for d in find_runs(Path(r)) or [Path(r)]:
            try:
                group.append((d, *load_any(d)))
            except ValueError as e:
                raise _fail(e) from None
        order = _sweep_order(Path(r))
        if order:  # a sweep's --out: its grid order (the first rules of the grid is the baseline)
            group.sort(key=lambda g: order.get(g[2].get("store_key"), len(order)))
        elif len(group) > 1 and all(is_store_cell(d) for d, _, _ in group):  # hash order means nothing
            group.sort(key=lambda g: (g[2]["players"], g[2]["rules"], g[2]["deck"], g[2]["policies"], g[2]["seed"]))
        arm_labels = _compare_labels(Path(r))
        dirs += [(d, bool(order) or is_store_cell(d), arm_labels.get(m.get("store_key"))) for d, _, m in group]
        said = _answer_of(Path(r))
        loaded += [(rec, {**m, "answer_sentences": said} if said else m) for _, rec, m in group]
    # store cells (named by hash) and sweep cells (named by every axis): label them by the settings
    # that tell the runs apart; a compare's arms by their arm labels
    auto = run_labels([m for _, m in loaded])
    labels = [arm or (a if by_settings else d.name) for (d, by_settings, arm), a in zip(dirs, auto, strict=True)]
    modes = [m.get("mode", "round") for _, m in loaded]
    odd = next((d for (d, _, _), m in zip(dirs, modes, strict=True) if m != modes[0]), None)
    if odd is not None:
        raise CliError(f"{str(odd)!r} is a {modes[[d for d, _, _ in dirs].index(odd)]}-mode run but "
                       f"{str(dirs[0][0])!r} is a {modes[0]}-mode run; accepted: runs of one mode "
                       "(all --mode round or all --mode match)")
    one_count = len({m["players"] for _, m in loaded}) == 1
    return [(lb, rec, m) for lb, (rec, m) in zip(labels, loaded, strict=True)], modes[0] == "match" and one_count


@main.command()
@click.argument("runs", nargs=-1, required=True)
@click.option("-o", "--out", metavar="DIR", required=True, help="Directory for the report.")
@click.option("--title", default="unosim report", show_default=True, help="The report's heading.")
def report(runs: tuple[str, ...], out: str, title: str) -> None:
    """Charts, tables, a Markdown and an HTML page comparing saved runs (directories written by
    `simulate --out`, or folders holding several, such as a study's).  Runs of one mode: all round or
    all match; match runs of one player count get the match report (teams in partners mode)."""
    from .reports.report import make_match_report, make_report
    from .results.io import find_runs
    from .results.outdir import writing

    if len(runs) == 1 and (Path(runs[0]) / "tournament.json").is_file():
        _tournament_report(Path(runs[0]), out, title)
        return
    labelled, match_report = _report_runs(runs)
    make = make_match_report if match_report else make_report
    inputs = [d for r in runs for d in (find_runs(Path(r)) or [Path(r)])]  # never removed from --out
    with writing(_check_out(out), "report", keep=inputs):
        paths = make(labelled, Path(out), title=title)
    click.echo(f"report: {paths['summary.md']}")
    click.echo(f"page:   {paths['report.html']}")


@main.command()
@click.argument("runs", nargs=-1, required=True)
@click.option("--chart", "-c", "name", default=None,
              help="The chart to write, e.g. rule_effects or seat_win_rate; without it, list the charts of RUNS.")
@click.option("--out", "-o", default=None, help="PNG file or folder to write (an SVG twin is written too). "
              "[default: CHART.png here]")
@click.option("--width", type=click.FloatRange(2, 40), default=None, help="Width in inches [default: the chart's own].")
@click.option("--height", type=click.FloatRange(1.5, 40), default=None,
              help="Height in inches [default: the chart's own].")
@click.option("--dpi", type=click.IntRange(50, 1200), default=200, show_default=True, help="PNG resolution.")
@click.option("--caption/--no-caption", default=False, show_default=True,
              help="Draw the caption (what was simulated) into the image.")
def plot(runs: tuple[str, ...], name: str | None, out: str | None, width: float | None, height: float | None,
         dpi: int, caption: bool) -> None:
    """Write one chart of the report of saved runs, sized for where it goes."""
    from .reports.report import report_charts, write_chart

    labelled, match_report = _report_runs(runs)
    try:
        if name is None:
            for c in report_charts(labelled, match_report):
                click.echo(f"{c.name.removesuffix('.png'):<32} {c.title}")
            return
        target = out if out is not None else f"{name.removesuffix('.png')}.png"
        if out is not None and Path(out).suffix.lower() != ".png":
            _check_out(out)
        path = write_chart(labelled, name, target, width=width, height=height, dpi=dpi, caption=caption,
                           match_report=match_report)
    except ValueError as e:
        raise _fail(e) from None
    click.echo(f"chart: {path}")


def _experiment_attrs(folder: Path, name: str) -> dict:
    """The ``attrs`` of a compare's or sweep's ``name`` (compare.json, sweep.json) in ``folder`` or, for
    its ``arms/`` or ``cells/`` folder, in the folder above; empty if there is none."""
    for d in (folder, folder.parent):
        try:
            return dict(json.loads((d / name).read_text())["attrs"])
        except (OSError, ValueError, KeyError, TypeError):
            continue
    return {}


def _compare_labels(folder: Path) -> dict[str, str]:
    """Store key -> arm label, from a compare's ``compare.json`` (empty if there is none)."""
    try:
        return {a["key"]: str(a["label"]) for a in _experiment_attrs(folder, "compare.json").get("arms", [])}
    except (KeyError, TypeError):
        return {}


def _sweep_order(folder: Path) -> dict[str, int]:
    """Store key -> position in the grid, from a sweep's ``sweep.json`` (empty if there is none)."""
    try:
        return {c["key"]: i for i, c in enumerate(_experiment_attrs(folder, "sweep.json").get("cells", []))}
    except (KeyError, TypeError):
        return {}


def _answer_of(folder: Path) -> list[str]:
    """The answer sentences a compare or sweep wrote for the runs of ``folder`` (the page opens with them)."""
    for name in ("compare.json", "sweep.json"):
        said = _experiment_attrs(folder, name).get("answer_sentences")
        if said:
            return [str(x) for x in said]
    return []


# ---- what-if experiments: compare, sweep, results, rerun ------------------------------------------------

_STORE_HELP = "Results store root (cells are reused and extended there)."


def _nan_none(obj):
    """NaN/inf -> None recursively (strict JSON)."""
    import math

    if isinstance(obj, float):
        return obj if math.isfinite(obj) else None
    if isinstance(obj, dict):
        return {k: _nan_none(v) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return [_nan_none(v) for v in obj]
    if hasattr(obj, "item"):  # numpy scalars
        return _nan_none(obj.item())
    return obj


def _table_json(df) -> dict:
    return _nan_none({"attrs": dict(df.attrs), "rows": df.to_dict(orient="records")})


def _save_table_and_cells(out_dir: Path, name: str, df, sub: str, items) -> None:
    """``name``.json and ``name``.csv of a compare or sweep table, and each of its cells as a saved run."""
    from .results.outdir import writing
    from .results.store import write_json

    with writing(out_dir, name):
        write_json(out_dir / f"{name}.json", _table_json(df))
        df.to_csv(out_dir / f"{name}.csv", index=False)
        _save_cells(out_dir, sub, items, df.attrs["store"])


def _save_cells(out_dir: Path, sub: str, items, store_root) -> None:
    """Each (label, cell) as a saved run under out_dir/sub/<slug> (records from the store)."""
    from .results.io import save_run, slug
    from .results.store import Cell, read_cell, result_from_records

    for label, cell_dict, n in items:
        cell = Cell.from_dict(cell_dict)
        rec = read_cell(cell, n, store_root)
        save_run(result_from_records(cell, rec, len(rec)), out_dir / sub / slug(label, "arm"))


def _match_kw(mode, scoring, target, partners, max_rounds) -> dict:
    if mode == "match":
        return dict(scoring=scoring, target=_int("target", target), partners=partners,
                    max_rounds=_int("max-rounds", max_rounds))
    if target is not None or partners or scoring != "standard":
        raise CliError("--target/--scoring/--partners apply to --mode match only; accepted: add --mode match")
    return {}


def _float(name: str, value) -> float | None:
    if value is None:
        return None
    try:
        return float(value)
    except ValueError:
        raise CliError(f"--{name} {value!r} is not a number; accepted: a number") from None


def _factors(values) -> dict[str, list[str]]:
    """--factor KEY:V1|V2 (twice) as the factors of a 2x2 design."""
    out = {}
    for v in values:
        key, sep, rest = v.partition(":")
        if not sep or len(rest.split("|")) != 2:
            raise CliError(f"--factor {v!r} is not KEY:VALUE1|VALUE2; accepted: e.g. 'deck:classic|flip' with KEY "
                           "rules, deck or policies")
        out[key.strip()] = [x.strip() for x in rest.split("|")]
    if len(out) != 2:
        raise CliError(f"{len(values)} --factor given ({len(out)} distinct keys); accepted: exactly two, with "
                       "different keys")
    return out


def format_comparison(df) -> str:
    """The compare table: per arm and metric, the mean and the paired difference from the first arm (also
    relative to the first arm's mean), then the answer in sentences."""
    from .analysis.answers import players_phrase
    from .console import compile_seconds, elapsed
    from .fmt import fmt_pm

    a = df.attrs
    pct = lambda m: m.endswith("_win") or m == "capped"  # noqa: E731
    unit = "matches" if a["arms"][0]["cell"]["mode"] == "match" else "rounds"
    lines = [f"{len(a['arms'])} arms, {a['games']:,} {unit} each, common random numbers (seed "
             f"{a['arms'][0]['cell']['seed']}); differences are arm minus {a['arms'][0]['label']!r}, 95% intervals; "
             "relative: the difference over the first arm's mean"]
    if a.get("interrupted"):
        kept = ", ".join(f"{arm} {int(g['n'].iloc[0]):,}" for arm, g in df.groupby("arm", sort=False))
        lines.append(f"INTERRUPTED: {unit} kept per arm: {kept or 'none'} (the same command continues)")
    if a.get("precision") is not None:
        lines.append(f"precision target {a['precision']:g} on the paired {a['metric']}: half-width "
                     f"{a['half_width']:.5f} ({'reached' if a['reached'] else 'NOT reached, max games'})")
    cells = {x["label"]: x["cell"] for x in a["arms"]}
    for arm, g in df.groupby("arm", sort=False):
        first = arm == df["arm"].iloc[0]
        lines += ["", f"{arm}   [{g['key'].iloc[0]}]   {players_phrase(cells[arm]['policies'])}",
                  f"  {'metric':<16} {'mean':<24} {'difference':<26} {'relative':<10} var ratio"]
        for _, r in g.iterrows():
            diff = "" if first else fmt_pm(r["diff"], r["diff_half_width"], pct=pct(r["metric"]))
            rel = "" if first or r["diff_rel"] != r["diff_rel"] else f"{r['diff_rel'] * 100:+.1f}%"
            vr = "" if first or r["var_ratio"] != r["var_ratio"] else f"{r['var_ratio']:.3f}"
            lines.append(f"  {r['metric']:<16} {fmt_pm(r['mean'], 1.96 * r['se'], pct=pct(r['metric'])):<24} "
                         f"{diff:<26} {rel:<10} {vr}")
    lines += _robustness_lines(a.get("robustness"), pct)
    lines += ["", f"{a['seconds']:.1f} s simulating; {elapsed():.1f} s in all, of which compile/cache load "
                  f"{compile_seconds():.1f} s"]
    if a.get("answer_sentences"):
        lines += ["", "Answer (95% intervals; a turn is one seat's go, see `unosim compare --help`):",
                  *(f"  {t}" for t in a["answer_sentences"])]
    return "\n".join(lines)


def _robustness_lines(rows, pct) -> list[str]:
    """The robustness check of compare --robust: each arm's key effect under each player model."""
    from .fmt import fmt_pm

    if not rows:
        return []
    lines = ["", f"robustness: the {rows[0]['metric']} effect with every seat played by each model (same deals)"]
    for r in rows:
        lines.append(f"  {r['arm']} vs {r['baseline']}: {r['verdict'].upper()}")
        for e in r["effects"]:
            half = (e["ci_hi"] - e["ci_lo"]) / 2
            lines.append(f"    {e['model']:<16} {fmt_pm(e['diff'], half, pct=pct(r['metric'])):<26} "
                         f"{e['diff_rel'] * 100:+.1f}%")
    return lines


@main.command()
@click.option("--arm", "arms", multiple=True, metavar="ARM",
              help="An arm: a rules string, or key:value parts joined by ';' (rules, deck, policies, label; a rules "
                   "string may come first), "
                   "e.g. --arm official --arm 'stacking; label:Stack it' --arm 'deck:flip; label:Flip'. Repeat.")
@click.option("--factor", "factors", multiple=True,
              help="Instead of --arm, a 2x2 design: give --factor twice, each KEY:VALUE1|VALUE2 with KEY rules, "
                   "deck or policies, e.g. --factor 'deck:classic|flip' --factor "
                   "'policies:greedy|color_majority,greedy,greedy,greedy'. Reports the interaction (how "
                   "much the first factor's effect differs between the second factor's two values) with its "
                   "paired 95% interval.")
@click.option("--robust", is_flag=True,
              help="Also replay the comparison with every seat played by random, greedy and color_majority (the "
                   "strongest cheap heuristic), on the same deals, and say whether each effect keeps its sign "
                   "and roughly its size. Costs three more runs.")
@click.option("-n", "--players", default="4", show_default=True, type=PLAYERS, help="Number of players, 2..10.")
@click.option("-g", "--games", type=COUNT, default="100000", show_default=True,
              help="Games per arm (the first step when --precision is set).")
@click.option("-s", "--seed", type=SEED, default="0", show_default=True, help="Master seed shared by every arm.")
@click.option("--deck", default="classic", show_default=True, metavar="DECK", help="Deck of arms that do not name one.")
@click.option("-p", "--policies", default="greedy", show_default=True,
              help="Policies of arms that do not name them (greedy: casual players who shed their highest cards "
                   "and keep wilds; random is available by name). The answer holds only for these players: see "
                   "--robust.")
@click.option("--seating", type=SEATING, default="fixed", show_default=True, help="fixed, rotate or shuffle.")
@click.option("--mode", type=MODE, default="round", show_default=True, help="round or match.")
@click.option("--scoring", type=SCORING, default="standard", show_default=True, help="Match scoring.")
@click.option("--target", type=COUNT, default=None, help="Match target score.")
@click.option("--partners", is_flag=True, help="Match: partners.")
@click.option("--max-rounds", type=COUNT, default="1000", show_default=True, help="Match: cap on rounds.")
@click.option("--precision", default=None,
              help="Add games until the 95% half-width of the paired difference of --metric is below this.")
@click.option("--max-games", type=COUNT, default=None, help="Cap on games per arm with --precision [default: 10,000,000].")
@click.option("--metric", default="seat0_win", show_default=True,
              help="Key metric of --precision, of the answer sentences and of --robust: turns (a turn is one "
                   "seat's go: it plays a card or draws; a stack, deflection, bounce or jump-in counts as one; a "
                   "skipped seat and the victim of a Draw Two or Wild Draw Four who draws and loses the turn have "
                   "none), winner_points (points the winner scores), cards_drawn (cards drawn from the pile, "
                   "all seats), seat<K>_win (share of rounds won by seat K; seat 0 plays first), capped "
                   "(share stopped by the cap); match mode: rounds (per match), turns, seat<K>_win, capped.")
@click.option("--store", default=None, help=_STORE_HELP + " [default: results/store]")
@click.option("--threads", type=COUNT, default=None, help="Worker threads [default: all cores].")
@click.option("--batch-size", type=COUNT, default=None, help="Games per stored chunk.")
@click.option("-o", "--out", metavar="DIR", default=None, help="Directory for compare.json, compare.csv and arms/<arm>/ saved runs.")
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object on stdout.")
@_policy_file_option
@_backend_options
@quiet_option
def compare(arms, factors, robust, players, games, seed, deck, policies, seating, mode, scoring, target, partners,
            max_rounds, precision, max_games, metric, store, threads, batch_size, out, as_json, policy_files,
            backend, scheduler, workers) -> None:
    """Compare arms (rules, decks or policy line-ups) with common random numbers, paired differences.

    Every difference comes with its 95% interval and its size relative to the first arm; the output ends
    with one plain sentence per effect of --metric, naming the players it holds for."""
    from .lab.experiments import compare as run_compare

    try:
        factor_kw = {"factors": _factors(factors)} if factors else {}
        if not arms and not factors:
            raise CliError("no --arm given; accepted: two or more --arm values, or two --factor values")
        bkw = _backend_kw(backend, scheduler, workers)
    except ValueError as e:
        raise _fail(e) from None
    _check_out(out, create=False)
    try:
        df = run_compare(list(arms), players=_int("players", players), games=_int("games", games),
                         seed=_int("seed", seed), deck=deck, policies=policies, seating=seating, mode=mode,
                         precision=_float("precision", precision),
                         max_games=_int("max-games", max_games), metric=metric,
                         store=store, threads=_int("threads", threads),
                         progress=sys.stderr.isatty() and not as_json,
                         chunk=_int("batch-size", batch_size), policy_files=list(policy_files) or None, **bkw,
                         robust=robust, **factor_kw,
                         **_match_kw(mode, scoring, target, partners, max_rounds))
    except ValueError as e:
        raise _fail(e) from None
    out_dir = _check_out(out)
    if out_dir is not None:
        ran = set(df["arm"])  # after an interrupt: only the arms that have records
        _save_table_and_cells(out_dir, "compare", df, "arms", [(a["label"], a["cell"], df.attrs["games"])
                                                             for a in df.attrs["arms"] if a["label"] in ran])
    click.echo(json.dumps(_table_json(df), allow_nan=False) if as_json else format_comparison(df))
    if df.attrs["interrupted"]:
        click.echo("interrupted: finished chunks are stored; run the same command again to continue", err=True)
        sys.exit(130)


@main.command()
@click.argument("file")
@click.option("--dry-run", is_flag=True, help="List the cells with a cost estimate (pilot run) and stop.")
@click.option("--store", default=None, help=_STORE_HELP + " [default: results/store]")
@click.option("--threads", type=COUNT, default=None, help="Worker threads [default: the file's threads, else all cores].")
@click.option("-o", "--out", metavar="DIR", default=None, help="Directory for sweep.json, sweep.csv and cells/<cell>/ saved runs.")
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object on stdout.")
@click.option("--robust", is_flag=True,
              help="Also replay the grid with its players replaced by random, greedy and color_majority (same "
                   "deals) and say whether each effect keeps its sign and roughly its size.")
@_policy_file_option
@_backend_options
@quiet_option
def sweep(file, dry_run, store, threads, out, as_json, robust, policy_files, backend, scheduler, workers) -> None:
    """Run a grid of cells from a TOML experiment file (players x rules x policies x decks x mode).

    Prints each cell's means with 95% half-widths and its paired difference (absolute and relative) from its
    baseline cell, then one plain sentence per effect of the file's metric. The metrics, and what counts
    as a turn, are defined in `unosim compare --help` (--metric) and docs/answers.md."""
    from .lab.experiments import run_sweep

    if dry_run and out is not None:
        raise CliError("--out does nothing with --dry-run (nothing is run); accepted: one of them")
    try:
        bkw = _backend_kw(backend, scheduler, workers)
    except ValueError as e:
        raise _fail(e) from None
    _check_out(out, create=False)
    try:
        df = run_sweep(file, dry_run=dry_run, store=store,
                       threads=_int("threads", threads),
                       progress=sys.stderr.isatty() and not as_json, policy_files=list(policy_files) or None,
                       **({} if dry_run else dict(bkw, robust=robust)))
    except ValueError as e:
        raise _fail(e) from None
    out_dir = _check_out(out)
    if out_dir is not None:
        _save_table_and_cells(out_dir, "sweep", df, "cells",
                              [(f"{r['players']}p_{r['rules']}_{r['policies']}_{r['deck']}_{r['mode']}_{r['seating']}",
                                c["cell"], int(r["games"]))
                               for (_, r), c in zip(df.iterrows(), df.attrs["cells"], strict=False)])
    if as_json:
        click.echo(json.dumps(_table_json(df), allow_nan=False))
    elif dry_run:
        import pandas as pd

        with pd.option_context("display.width", 200, "display.max_columns", 20):
            click.echo(df.to_string(index=False, float_format=lambda x: f"{x:,.1f}"))
        click.echo(f"{len(df)} cells; {df['est_turns'].sum():,.0f} turns, about {df['est_seconds'].sum():,.0f} s "
                   f"({df.attrs['estimate']})")
    else:
        click.echo(format_sweep(df))
        if out_dir is not None:
            click.echo(f"sweep written to {out_dir}")
    if not dry_run and df.attrs.get("interrupted"):
        click.echo("interrupted: finished chunks are stored; run the same command again to continue", err=True)
        sys.exit(130)


def format_sweep(df) -> str:
    """A sweep like compare: per cell the means with 95% half-widths, the paired difference from its baseline
    cell (the first value of the compared axis) with its relative size, then the answer in sentences."""
    from .fmt import fmt_pm

    a = df.attrs
    m, axis = a["metric"], a.get("compared")
    pct = lambda k: k.endswith("_win") or k == "capped"  # noqa: E731
    shown = [k for k in ("players", "rules", "policies", "deck", "mode", "seating") if df[k].nunique() > 1 or k == axis]
    shown = shown or ["players", "rules", "policies"]
    units = {"round": "rounds", "match": "matches"}
    lines = [f"{a['name']}: {len(df)} cells; means with 95% half-widths"
             + (f"; differences are paired against the cell with {axis} {df['baseline'].iloc[0]!r} and the same "
                "other settings (common random numbers)" if axis and "baseline" in df else ""),
             "all cells: " + ", ".join(f"{k} {df[k].iloc[0]}" for k in ("players", "rules", "policies", "deck",
                                                                        "mode", "seating") if k not in shown)]
    metrics = list(dict.fromkeys([m, "turns"]))
    w = {k: max(len(k), *(len(str(v)) for v in df[k])) + 2 for k in shown}
    head = "".join(f"{k:<{w[k]}}" for k in shown)
    cols = "".join(f"{k:<20}" + (f"{'difference':<22}{'relative':<10}" if axis else "") for k in metrics)
    lines += ["", f"{head}{'games':<16}{cols}"]
    for _, r in df.iterrows():
        games = f"{int(r['games']):,} {units.get(r['mode'], 'games')}"
        row = "".join(f"{str(r[k]):<{w[k]}}" for k in shown) + f"{games:<16}"
        for k in metrics:
            row += f"{fmt_pm(r[k], 1.96 * r[k + '_se'], pct=pct(k)):<20}"
            if axis:
                base = r[axis] == r["baseline"]
                diff = "baseline" if base else fmt_pm(r[f"{k}_diff"], (r[f"{k}_diff_hi"] - r[f"{k}_diff_lo"]) / 2,
                                                      pct=pct(k))
                rel = "" if base or r[f"{k}_diff_rel"] != r[f"{k}_diff_rel"] else f"{r[f'{k}_diff_rel'] * 100:+.1f}%"
                row += f"{diff:<22}{rel:<10}"
        lines.append(row.rstrip())
    lines += _robustness_lines(a.get("robustness"), pct)
    lines += ["", f"{a['seconds']:.1f} s"]
    if a.get("answer_sentences"):
        lines += ["", "Answer (95% intervals; a turn is one seat's go, see `unosim compare --help`):",
                  *(f"  {t}" for t in a["answer_sentences"])]
    return "\n".join(lines)


@main.group(invoke_without_command=True)
@click.option("--store", default=None, help=_STORE_HELP + " [default: results/store]")
@click.pass_context
def results(ctx, store) -> None:
    """What the results store holds: `results list`, `results show KEY`, `results rm KEY`."""
    ctx.obj = store
    if ctx.invoked_subcommand is None:
        ctx.invoke(results_list)


def _store_option(f):
    return click.option("--store", "sub_store", default=None, help=_STORE_HELP)(f)


@results.command("list")
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object on stdout.")
@_store_option
@click.pass_obj
def results_list(store, as_json=False, sub_store=None) -> None:
    """List the stored cells."""
    import pandas as pd

    from .results.store import list_cells

    df = list_cells(sub_store or store)
    if as_json:
        click.echo(json.dumps(_nan_none({"cells": df.to_dict(orient="records")}), allow_nan=False))
    elif df.empty:
        click.echo("no stored cells")
    else:
        with pd.option_context("display.width", 200, "display.max_columns", 20, "display.max_colwidth", 40):
            click.echo(df.drop(columns=["chunks"]).to_string(index=False))


@results.command("show")
@click.argument("key")
@_store_option
@click.pass_obj
def results_show(store, key, sub_store) -> None:
    """Show one stored cell (a unique key prefix is enough)."""
    from .results.store import show_cell

    try:
        click.echo(json.dumps(_nan_none(show_cell(key, sub_store or store)), indent=2, allow_nan=False))
    except ValueError as e:
        raise _fail(e) from None


@results.command("rm")
@click.argument("keys", nargs=-1, required=True)
@_store_option
@click.pass_obj
def results_rm(store, keys, sub_store) -> None:
    """Remove stored cells."""
    from .results.store import remove_cell

    for key in keys:
        try:
            click.echo(f"removed {remove_cell(key, sub_store or store)}")
        except ValueError as e:
            raise _fail(e) from None


@main.command("policies")
@click.argument("name", required=False)
@click.option("--policy-file", "policy_files", multiple=True, metavar="PATH",
              help="Also list the policies this file defines.")
def policies_cmd(name: str | None, policy_files: tuple[str, ...]) -> None:
    """List every policy with its parameters, or show one in full."""
    from .players.policy_api import format_policies, format_policy, load_policy_files

    try:
        load_policy_files(list(policy_files))
        click.echo(format_policy(name) if name else format_policies())
    except ValueError as e:
        raise _fail(e) from None


@main.command("trace")
@click.argument("run_dir")
@click.option("--game", type=COUNT, default="0", show_default=True, help="Round to replay (its index in records.parquet).")
def trace_cmd(run_dir: str, game: str) -> None:
    """Replay one round of a saved run step by step: every event and every decision with what it saw."""
    from .results.io import read_meta
    from .running.trace import trace_round

    try:
        meta = read_meta(Path(run_dir) / "meta.json")
        g = _int("game", game)
    except ValueError as e:
        raise _fail(e) from None
    if meta.get("mode", "round") != "round":
        raise CliError(f"{run_dir!r} is a match-mode run; accepted: a run of --mode round")
    if not 0 <= g < int(meta["games"]):
        raise CliError(f"--game {g} is out of range; accepted: 0..{int(meta['games']) - 1}")
    try:
        click.echo(trace_round(meta, g))
    except ValueError as e:
        raise _fail(e) from None


@main.command()
@click.argument("run_dir")
@click.option("-o", "--out", metavar="DIR", default=None, help="Write the reproduction here instead (DIR itself is then only read).")
@click.option("--threads", type=COUNT, default=None, help="Worker threads [default: all cores].")
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object on stdout.")
@quiet_option
def rerun(run_dir, out, threads, as_json) -> None:
    """Reproduce a saved run from its meta.json; an interrupted or killed run is completed in place."""
    from .results.rundir import read_meta
    from .results.rundir import rerun as do_rerun

    try:
        n_threads = _int("threads", threads)
        read_meta(Path(run_dir))  # a saved run, before anything is written
    except ValueError as e:
        raise _fail(e) from None
    out_dir = _check_out(out)
    try:
        result, rep = do_rerun(Path(run_dir), out_dir, n_threads, progress=sys.stderr.isatty() and not as_json)
    except ValueError as e:
        raise _fail(e) from None
    s = result.summary
    if as_json:
        click.echo(json.dumps(_nan_none({**rep, "summary": s}), allow_nan=False))
    else:
        click.echo(format_match_summary(s) if result.meta.get("mode") == "match" else format_summary(s))
        if rep["action"] == "completed":
            click.echo(f"completed {run_dir}: {rep['kept']:,} games were kept, {s['games']:,} now")
        else:
            click.echo(f"reproduced {run_dir}: {rep['compared']:,} games compared, "
                       f"{'identical' if rep['identical'] else 'DIFFERENT'}")
    if result.interrupted:
        click.echo(f"interrupted: {s['games']} of {s['games_requested']} kept", err=True)
        sys.exit(130)
    if rep["identical"] is False:
        sys.exit(1)


@main.command()
@click.option("-p", "--policies", required=True,
              help="The field: a comma list of at least two policies, e.g. random,greedy,greedy(challenge=0.5).")
@click.option("-n", "--players", default="4", show_default=True, type=PLAYERS, help="Seats at every table, 2..10.")
@click.option("-g", "--games", type=COUNT, default="10000", show_default=True,
              help="Rounds (matches with --mode match) per line-up, rounded up to a multiple of --players.")
@click.option("--mode", type=MODE, default="round", show_default=True, help="round or match (full games to a target score).")
@click.option("--rules", "rules", default="official", show_default=True, help="Rules string, see `unosim rules`.")
@click.option("--deck", default="classic", show_default=True, metavar="DECK", help=DECK_HELP)
@click.option("-s", "--seed", type=SEED, default="0", show_default=True, help="Master seed: every line-up plays the same deals.")
@click.option("--threads", type=COUNT, default=None, help="Worker threads [default: all cores]. Results do not depend on it.")
@click.option("--max-lineups", type=COUNT, default="100", show_default=True,
              help="Play every multiset of policies up to this many line-ups, else a balanced sample of this size.")
@click.option("--bootstrap", type=COUNT, default="200", show_default=True, help="Bootstrap resamples for the rating intervals.")
@click.option("--scoring", type=SCORING, default="standard", show_default=True, help="Match scoring (with --mode match).")
@click.option("--target", type=COUNT, default=None, help="Match target score (with --mode match) [default: 500].")
@click.option("--store", default=None, help=_STORE_HELP + " [default: results/store]")
@click.option("-o", "--out", metavar="DIR", default=None, help="Directory for per line-up runs, tournament.json/csv and charts.")
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object on stdout.")
@_policy_file_option
@_backend_options
@quiet_option
def tournament(policies, players, games, mode, rules, deck, seed, threads, max_lineups, bootstrap, scoring,
               target, store, out, as_json, policy_files, backend, scheduler, workers) -> None:
    """Rank a field of policies: every line-up (or a balanced sample), rotating seats, common deals."""
    from .lab.tournament import check_tournament, format_tournament, run_tournament, to_json
    from .results.outdir import output_folder

    try:
        kw = dict(players=_int("players", players), games=_int("games", games), rules=rules, deck=deck,
                  seed=_int("seed", seed), mode=mode, threads=_int("threads", threads),
                  max_lineups=_int("max-lineups", max_lineups), bootstrap=_int("bootstrap", bootstrap),
                  policy_files=list(policy_files) or None)
        if mode == "match":
            kw.update(scoring=scoring, target=_int("target", target))
        elif target is not None or scoring != "standard":
            raise CliError("--target/--scoring apply to --mode match only; accepted: add --mode match")
        check_tournament(policies, **kw)
        bkw = _backend_kw(backend, scheduler, workers)
        out_dir = _check_out(out)
        with output_folder(out_dir, "tournament"):
            result = run_tournament(policies, out_dir=out_dir, progress=sys.stderr.isatty(), store=store, **kw,
                                    **bkw)
            if out_dir is not None:
                from .reports.report import make_tournament_report

                make_tournament_report(result.table, result.meta, out_dir)
    except ValueError as e:
        raise _fail(e) from None
    except KeyboardInterrupt:
        _stored_and_stop()
    if as_json:
        click.echo(json.dumps(to_json(result), allow_nan=False))
    else:
        click.echo(format_tournament(result.table, result.meta))
        if out_dir is not None:
            click.echo(f"tournament written to {out_dir}")


def _stored_on_interrupt(store, run):
    """``run()``; after a Ctrl-C, with a results ``store`` (whose finished chunks survive it), say so and exit 130."""
    try:
        return run()
    except KeyboardInterrupt:
        if store is None:
            raise
        _stored_and_stop()


def _stored_and_stop() -> None:
    """After a Ctrl-C of a command that fills the results store: say so, exit 130."""
    click.echo("interrupted: finished chunks are stored; run the same command again to continue", err=True)
    sys.exit(130)


def _tournament_report(run_dir: Path, out: str, title: str) -> None:
    """`unosim report DIR` on a directory written by `unosim tournament --out DIR`."""
    from .lab.tournament import load_tournament
    from .reports.report import make_tournament_report

    try:
        table, meta = load_tournament(run_dir)
    except ValueError as e:
        raise _fail(e) from None
    from .results.outdir import writing

    with writing(_check_out(out), "report", keep=[run_dir]):
        paths = make_tournament_report(table, meta, _check_out(out), title=title)
    click.echo(f"report: {paths['tournament.md']}")


@main.command()
@click.option("--policy", required=True,
              help="Policy to tune; its parameters are the start, e.g. greedy or greedy(bluff=1,challenge=1).")
@click.option("-n", "--players", default="4", show_default=True, type=PLAYERS, help="Seats at the table, 2..10.")
@click.option("--budget", type=COUNT, default="60000", show_default=True, help="Training rounds for the whole search.")
@click.option("--against", default="greedy(challenge=0.5)", show_default=True,
              help="The other seats: one policy for all, or a comma list of players-1 policies.")
@click.option("--rules", "rules", default="official", show_default=True, help="Rules string, see `unosim rules`.")
@click.option("--deck", default="classic", show_default=True, metavar="DECK", help=DECK_HELP)
@click.option("-s", "--seed", type=SEED, default="0", show_default=True, help="Master seed.")
@click.option("--popsize", type=COUNT, default=None, help="CMA-ES candidates per generation [default: 4 + 3 ln(parameters)].")
@click.option("--games-per-eval", type=COUNT, default=None, help="Rounds per candidate [default: from the budget].")
@click.option("--eval-games", type=COUNT, default=None, help="Out-of-sample rounds for the tuned and the starting policy "
                                                 "[default: max(2000, budget/2)].")
@click.option("--sigma", default="0.3", show_default=True,
              help="CMA-ES initial step, a share of each parameter's range, in (0, 1].")
@click.option("--threads", type=COUNT, default=None, help="Worker threads [default: all cores]. Results do not depend on it.")
@click.option("--store", default=None, help=_STORE_HELP + " [default: results/store]")
@click.option("-o", "--out", metavar="DIR", default=None, help="Directory for tuned_policy.txt, tune.json, history.csv and the chart.")
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object on stdout.")
@_policy_file_option
@_backend_options
@quiet_option
def tune(policy, players, budget, against, rules, deck, seed, popsize, games_per_eval, eval_games, sigma, threads,
         store, out, as_json, policy_files, backend, scheduler, workers) -> None:
    """Tune a policy's numeric parameters with CMA-ES on common deals; check out of sample."""
    from .lab.tune import check_tune, format_tune, save_tune, to_json
    from .lab.tune import tune as run_tune

    try:
        kw = dict(players=_int("players", players), budget=_int("budget", budget), against=against, rules=rules,
                  deck=deck, seed=_int("seed", seed), popsize=_int("popsize", popsize),
                  games_per_eval=_int("games-per-eval", games_per_eval), eval_games=_int("eval-games", eval_games),
                  sigma0=_float("sigma", sigma), threads=_int("threads", threads),
                  policy_files=list(policy_files) or None)
        check_tune(policy, **kw)
        bkw = _backend_kw(backend, scheduler, workers)
        out_dir = _check_out(out)
        result = run_tune(policy, progress=sys.stderr.isatty(), store=store, **kw, **bkw)
    except ValueError as e:
        raise _fail(e) from None
    except KeyboardInterrupt:
        _stored_and_stop()
    if out_dir is not None:
        save_tune(result, out_dir)
    if as_json:
        click.echo(json.dumps(to_json(result), allow_nan=False))
    else:
        click.echo(format_tune(result))
        if out_dir is not None:
            click.echo(f"tuned policy written to {out_dir / 'tuned_policy.txt'}")


@main.command("decks")
def decks_cmd() -> None:
    """List the decks that --deck accepts."""
    from .ruleset.decks import format_decks

    click.echo(format_decks())


#: the options of `unosim skill` that a sweep, which plays its own settings, does not use
_NOT_SWEEP = ("rules", "deck", "players", "search_rounds", "search_matches", "budgets", "ceiling_rollouts",
              "no_ladder")


@main.command("skill")
@click.option("--rules", "rules", default="official", show_default=True,
              help="Rules string: presets and options joined by '+'; see `unosim rules`.")
@click.option("--deck", default="classic", show_default=True, metavar="DECK", help=DECK_HELP)
@click.option("-n", "--players", default="2", show_default=True, type=PLAYERS, help="Seats at the table, 2..10.")
@click.option("--strong", default="expert", show_default=True, help="The strong player of the headline.")
@click.option("--rounds", type=COUNT, default="4000", show_default=True, help="Rounds per cell of a heuristic player.")
@click.option("--matches", type=COUNT, default="200", show_default=True, help="Matches to 500 per match cell (0: none).")
@click.option("--search-rounds", type=COUNT, default="60", show_default=True,
              help="Rounds per cell of a search player and of the ceiling (0: none).")
@click.option("--search-matches", type=COUNT, default="0", show_default=True,
              help="Matches to 500 per match cell of a search player as --strong (0: none; a match is about 13 "
                   "rounds of search).")
@click.option("--budgets", default="16,64", show_default=True, metavar="N,N,...",
              help="lookahead rollouts on the ladder, a comma list.")
@click.option("--ceiling-rollouts", type=COUNT, default="64", show_default=True,
              help="Rollouts of the cheat_ceiling player.")
@click.option("--no-ladder", is_flag=True, help="Only the headline.")
@click.option("--sweep", is_flag=True, help="Instead: the strong player's skill share with 2-10 players, the main "
                                            "presets and UNO Flip (--rounds and --matches per cell, a search "
                                            "player's too: size them for it).")
@click.option("-s", "--seed", type=SEED, default="1", show_default=True,
              help="Master seed (the same deals in every cell).")
@click.option("--threads", type=COUNT, default=None, help="Worker threads [default: all cores]. Results do not depend on it.")
@click.option("-o", "--out", metavar="DIR", default=None,
              help="Directory for the page (summary.md, report.html), charts and CSV tables.")
@click.option("--store", metavar="DIR", default=None,
              help=_STORE_HELP + " A rerun reuses stored games, a larger --rounds adds only the missing ones. "
                                 "[default: results/store]")
@click.option("--no-store", is_flag=True, help="Simulate without the results store.")
@_policy_file_option
@quiet_option
def skill_cmd(rules, deck, players, strong, rounds, matches, search_rounds, search_matches, budgets, ceiling_rollouts,
              no_ladder, sweep, seed, threads, out, store, no_store, policy_files) -> None:
    """How much skill decides: win rates and skill shares of a strong player, a ladder, the ceiling."""
    from .lab.skill_scale import (
        format_skill,
        format_sweep,
        skill_answer,
        skill_sweep,
        sweep_command,
        write_skill_page,
        write_sweep_page,
    )
    from .results import store as results_store

    store = _store_root(store, no_store, results_store.DEFAULT_ROOT)

    if sweep:
        ctx = click.get_current_context()
        given = [f"--{name.replace('_', '-')}" for name in _NOT_SWEEP
                 if ctx.get_parameter_source(name) is not click.core.ParameterSource.DEFAULT]
        if given:
            raise CliError(f"{'/'.join(given)} {'does' if len(given) == 1 else 'do'} not apply to --sweep, which plays "
                           "its own settings (2-10 players, the main presets, UNO Flip); accepted with --sweep: "
                           "--strong, --rounds, --matches, --seed, --threads, --out, --policy-file")
        try:
            out_dir = _check_out(out, create=False)
            nr, nm, sd = _int("rounds", rounds), _int("matches", matches), _int("seed", seed)
            t = _stored_on_interrupt(store, lambda: skill_sweep(
                strong=strong, rounds=nr, matches=nm, seed=sd, threads=_int("threads", threads),
                policy_files=list(policy_files) or None, store=store, progress=sys.stderr.isatty()))
        except ValueError as e:
            raise _fail(e) from None
        click.echo(format_sweep(t))
        if out_dir is not None:
            paths = write_sweep_page(t, sweep_command(str(t["player"].iloc[0]), nr, nm, sd, policy_files), out_dir)
            click.echo(f"table: {paths['sweep.csv']}")
            click.echo(f"report: {paths['report.html']}")
        return
    try:
        blist = [_int("budgets", b.strip()) for b in budgets.split(",") if b.strip()]
        out_dir = _check_out(out, create=False)
        a = _stored_on_interrupt(store, lambda: skill_answer(
            rules=rules, deck=deck, players=_int("players", players), strong=strong, rounds=_int("rounds", rounds),
            matches=_int("matches", matches), search_rounds=_int("search-rounds", search_rounds),
            search_matches=_int("search-matches", search_matches), budgets=blist,
            ceiling_rollouts=_int("ceiling-rollouts", ceiling_rollouts), seed=_int("seed", seed),
            threads=_int("threads", threads), ladder=not no_ladder, store=store, progress=sys.stderr.isatty(),
            policy_files=list(policy_files) or None,
            echo=(lambda line: click.echo(line, err=True)) if sys.stderr.isatty() else None))
    except ValueError as e:
        raise _fail(e) from None
    click.echo(format_skill(a))
    if out_dir is not None:
        paths = write_skill_page(a, out_dir)
        click.echo(f"report: {paths['report.html']}")


add_examples(main)


def _os_error_line(e: OSError) -> str:
    if e.filename:
        return (f"{e.filename!r}: {e.strerror or e}; accepted: a path on a disk with free space that you can read "
                "and write")
    text = " ".join(str(e).split())[:200] or type(e).__name__
    return f"{type(e).__name__}: {text}; finished chunks are kept (the same command continues)"


def run(argv: list[str] | None = None) -> None:
    """Console entry point: click usage errors become one line on stderr, exit code 2.

    ``argv``: the arguments (default: the process's own, ``sys.argv[1:]``)."""
    try:
        rc = main.main(args=argv, prog_name="unosim", standalone_mode=False)
    except click.exceptions.Abort:
        click.echo("aborted", err=True)
        sys.exit(130)
    except CliError as e:
        e.show()
        sys.exit(e.exit_code)
    except UnosimError as e:  # refused once the run had started: a policy's answer, a damaged file, a full disk
        _fail(e).show()
        sys.exit(EXIT_USAGE)
    except OSError as e:  # a file the command could not read or write, a lost connection: one line
        click.echo(f"error: {_os_error_line(e)}", err=True)
        sys.exit(EXIT_USAGE)
    except click.ClickException as e:
        msg = e.format_message().splitlines()[0] if e.format_message() else str(e)
        click.echo(f"error: {msg}", err=True)
        sys.exit(EXIT_USAGE if isinstance(e, click.UsageError) else e.exit_code)
    sys.exit(rc if isinstance(rc, int) else 0)


if __name__ == "__main__":  # pragma: no cover
    run()
