"""Command line: ``unosim simulate | rules | presets | demo | report | trace | tournament | tune``.

Every bad input ends with a one-line ``error: ...`` on stderr and exit code 2, never a traceback.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import click

from . import __version__

EXIT_USAGE = 2


class CliError(click.ClickException):
    exit_code = EXIT_USAGE

    def show(self, file=None) -> None:  # one line, no usage dump
        click.echo(f"error: {self.format_message()}", err=True)


def _fail(exc: Exception) -> CliError:
    return CliError(str(exc).splitlines()[0] if str(exc) else exc.__class__.__name__)


def _check_out(out: str | None) -> Path | None:
    """The --out folder, created (with its parents) only once everything else has been checked."""
    if out is None:
        return None
    if not out.strip():
        raise CliError(f"--out {out!r} is empty; accepted: a directory path")
    p = Path(out)
    try:
        p.mkdir(parents=True, exist_ok=True)
        probe = p / ".unosim-write-test"
        probe.write_text("")
        probe.unlink()
    except OSError as e:
        raise CliError(f"--out {out!r} is not a writable directory ({e.strerror}); "
                       "accepted: a directory you can write to") from None
    return p


@click.group(context_settings={"help_option_names": ["-h", "--help"]}, invoke_without_command=True)
@click.version_option(__version__, prog_name="unosim")
@click.pass_context
def main(ctx: click.Context) -> None:
    """unosim: Monte-Carlo strategy simulator for UNO and its variants."""
    if ctx.invoked_subcommand is None:
        click.echo(ctx.get_help())


@main.command()
@click.option("--rules", "rules", default="official", show_default=True,
              help="Rules string: presets and options joined by '+', e.g. 'official+stacking'. "
                   "See `unosim rules` and `unosim presets`.")
@click.option("--players", default="4", show_default=True, help="Number of players, 2..10.")
@click.option("--policies", default="random", show_default=True,
              help="One policy for every seat, or a comma list (one per seat): random, greedy, "
                   "greedy(challenge=0.5,bluff=0.1).")
@click.option("--games", default="100000", show_default=True, help="Rounds to simulate.")
@click.option("--seed", default="0", show_default=True, help="Master seed (0..2**64-1).")
@click.option("--threads", default=None, help="Worker threads [default: all cores]. Results do not depend on it.")
@click.option("--deck", default="classic", show_default=True, help="Deck: classic.")
@click.option("--batch-size", default=None, help="Rounds per batch (progress granularity).")
@click.option("--out", default=None, help="Directory for records.parquet, summary.json and meta.json.")
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object on stdout.")
@click.option("--report/--no-report", default=False, help="With --out, also write charts and summary.md.")
@click.option("--seating", default="fixed", show_default=True,
              help="fixed (policy i in seat i), rotate (every policy plays every seat equally often) or "
                   "shuffle (random seats per game).")
@click.option("--mode", default="round", show_default=True,
              help="round (one round per game) or match (full games to a target score; --games counts matches).")
@click.option("--scoring", default="standard", show_default=True,
              help="Match scoring: standard, self_loser, lowest_wins, elimination, lazy, rotating_partners.")
@click.option("--target", default=None, help="Match target score [default: 500; 200 for self_loser].")
@click.option("--partners", is_flag=True, help="Match: seats i and i+n/2 play as a team.")
@click.option("--max-rounds", default="1000", show_default=True, help="Match: cap on rounds.")
@click.option("--round-records", is_flag=True, help="Match: with --out, also write rounds.parquet.")
def simulate(rules, players, policies, games, seed, threads, deck, batch_size, out, as_json, report, seating,
             mode, scoring, target, partners, max_rounds, round_records) -> None:
    """Simulate many rounds (or full matches) and summarise them."""
    from .sim import check_simulate

    try:
        kw = dict(rules=rules, players=_int("players", players), policies=policies,
                  games=_int("games", games), seed=_int("seed", seed), threads=_int("threads", threads),
                  deck=deck, batch_size=_int("batch-size", batch_size), seating=seating, mode=mode,
                  progress=sys.stderr.isatty())
        if mode == "match":
            kw.update(scoring=scoring, target=_int("target", target), partners=partners,
                      max_rounds=_int("max-rounds", max_rounds), round_records=round_records)
        elif target is not None or partners or round_records or scoring != "standard" or max_rounds != "1000":
            raise CliError("--target/--scoring/--partners/--max-rounds/--round-records apply to --mode match "
                           "only; accepted: add --mode match")
        if out is None and (report or round_records):
            raise CliError(f"{'--report' if report else '--round-records'} writes into the --out folder; "
                           "accepted: add --out DIR")
        planned = check_simulate(**kw)
    except ValueError as e:
        raise _fail(e) from None
    out_dir = _check_out(out)
    result = planned.execute()
    if out_dir is not None:
        from .io import save_run

        save_run(result, out_dir)
        if report:
            from .report import make_match_report, make_report

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


def _int(option: str, value: str | None) -> int | None:
    """An integer option's text (``1_000_000`` allowed); its range is checked by the API."""
    from .validate import parse_cli_int

    return parse_cli_int(option, value)


def _f(x, spec: str) -> str:
    """Format a number that may be undefined (None, e.g. a standard deviation of one game)."""
    return "n/a" if x is None else format(x, spec)


def format_summary(s: dict) -> str:
    """A readable table of the summary with 95% confidence half-widths."""
    from .report import fmt_pm

    lines = [
        f"rules     {s['rules']}   deck {s.get('deck', 'classic')}",
        f"players   {s['players']}   policies {', '.join(s['policies'])}",
        f"rounds    {s['games']:,}   seed {s['seed']}   capped {s['capped_games']}",
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
    gps = s.get("games_per_second")
    lines += ["", f"{gps:,.0f} rounds/s on {s.get('threads')} threads; compile/cache load "
                  f"{s.get('compile_seconds', 0):.2f} s; engine v{s.get('engine_version')}"]
    return "\n".join(lines)


def format_match_summary(s: dict) -> str:
    """A readable table of a match-mode summary with 95% confidence half-widths (teams in partners mode)."""
    from .report import fmt_pm

    lines = [
        f"rules     {s['rules']}   deck {s.get('deck', 'classic')}   scoring {s['scoring']} to {s['target']}",
        f"players   {s['players']}   policies {', '.join(s['policies'])}   seating {s['seating']}",
        f"matches   {s['games']:,}   seed {s['seed']}   capped {s['capped_matches']}",
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
    if "policy_match_win_rate" in s:
        lines += ["", "policy                     match win rate per seat   round win rate per seat"]
        for name in s["policy_match_win_rate"]:
            lines.append(f"{name:<26} {fmt_pm(s['policy_match_win_rate'][name], 1.96 * (s['policy_match_win_rate_se'][name] or 0), pct=True):<25} "
                         f"{fmt_pm(s['policy_round_win_rate'][name], 1.96 * (s['policy_round_win_rate_se'][name] or 0), pct=True)}")
    elif len(s["policy_round_win_rate"]) > 1:
        lines += ["", "policy                     round win rate per seat"]
        for name, rate in s["policy_round_win_rate"].items():
            lines.append(f"{name:<26} {fmt_pm(rate, 1.96 * (s['policy_round_win_rate_se'][name] or 0), pct=True)}")
    lines += ["", f"{s['games_per_second']:,.0f} matches/s on {s.get('threads')} threads; engine v{s.get('engine_version')}"]
    return "\n".join(lines)


def _format_team_tables(s: dict) -> list[str]:
    """Partners mode: the team table, the win rate per team composition and the relabelled seat table."""
    from .report import fmt_ci, fmt_pm

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
def rules_cmd(name: str | None) -> None:
    """List every rule option, or show one in full."""
    from .rules import RuleError, format_option, format_options_table

    try:
        click.echo(format_option(name) if name else format_options_table())
    except RuleError as e:
        raise _fail(e) from None


@main.command()
def presets() -> None:
    """List the named rule presets."""
    from .rules import format_presets

    click.echo(format_presets())


DEMO_JOBS = (
    # (label, rules, players, policies)
    ("official, 4 random", "official", 4, "random"),
    ("official, 4 greedy vs random", "official", 4, "greedy,random,greedy,random"),
    ("stacking, 4 random", "stacking", 4, "random"),
    ("seven_zero, 4 random", "seven_zero", 4, "random"),
)


@main.command()
@click.option("--out", default="results/demo", show_default=True, help="Directory for the report.")
@click.option("--games", default="200000", show_default=True, help="Rounds per variant.")
@click.option("--seed", default="7", show_default=True, help="Master seed.")
def demo(out: str, games: str, seed: str) -> None:
    """The built-in default job: official vs house rules, random vs greedy, with a report."""
    from .io import save_run
    from .report import make_report
    from .sim import check_simulate

    try:
        n_games, s = _int("games", games), _int("seed", seed)
        planned = [check_simulate(rules=rules, players=players, policies=policies, games=n_games, seed=s,
                                  progress=sys.stderr.isatty()) for _, rules, players, policies in DEMO_JOBS]
    except ValueError as e:
        raise _fail(e) from None
    out_dir = _check_out(out)
    runs = []
    for (label, *_), job in zip(DEMO_JOBS, planned, strict=True):
        r = job.execute()
        slug = "".join(ch if ch.isalnum() else "_" for ch in label).strip("_")
        save_run(r, out_dir / "runs" / slug)
        runs.append((label, r.records, r.meta))
        click.echo(f"{label:<32} {r.summary['games']:>9,} rounds  "
                   f"{r.summary['games_per_second']:>10,.0f} rounds/s  mean turns {r.summary['mean_turns']:.2f}")
    paths = make_report(runs, out_dir, title="unosim demo: classic UNO, house rules and policies")
    click.echo(f"report: {paths['summary.md']}")
    for name, p in sorted(paths.items()):
        if name.endswith(".png"):
            click.echo(f"chart:  {p}")


@main.command()
@click.argument("runs", nargs=-1, required=True)
@click.option("--out", required=True, help="Directory for the report.")
@click.option("--title", default="unosim report", show_default=True)
def report(runs: tuple[str, ...], out: str, title: str) -> None:
    """Charts and tables comparing saved runs (directories written by `simulate --out`; all round mode or all match mode)."""
    from .io import load_run
    from .report import make_match_report, make_report

    if len(runs) == 1 and (Path(runs[0]) / "tournament.json").is_file():
        _tournament_report(Path(runs[0]), out, title)
        return
    loaded = []
    for r in runs:
        try:
            records, meta = load_run(Path(r))
        except ValueError as e:
            raise _fail(e) from None
        loaded.append((Path(r).name, records, meta))
    modes = [meta.get("mode", "round") for _, _, meta in loaded]
    odd = next((r for r, m in zip(runs, modes, strict=True) if m != modes[0]), None)
    if odd is not None:
        raise CliError(f"{odd!r} is a {modes[runs.index(odd)]}-mode run but {runs[0]!r} is a {modes[0]}-mode run; "
                       "accepted: runs of one mode (all --mode round or all --mode match)")
    make = make_match_report if modes[0] == "match" else make_report
    paths = make(loaded, _check_out(out), title=title)
    click.echo(f"report: {paths['summary.md']}")


@main.command()
@click.option("--policies", required=True,
              help="The field: a comma list of at least two policies, e.g. random,greedy,greedy(challenge=0.5).")
@click.option("--players", default="4", show_default=True, help="Seats at every table, 2..10.")
@click.option("--games", default="10000", show_default=True,
              help="Rounds (matches with --mode match) per line-up, rounded up to a multiple of --players.")
@click.option("--mode", default="round", show_default=True, help="round or match (full games to a target score).")
@click.option("--rules", "rules", default="official", show_default=True, help="Rules string, see `unosim rules`.")
@click.option("--deck", default="classic", show_default=True, help="Deck.")
@click.option("--seed", default="0", show_default=True, help="Master seed: every line-up plays the same deals.")
@click.option("--threads", default=None, help="Worker threads [default: all cores]. Results do not depend on it.")
@click.option("--max-lineups", default="100", show_default=True,
              help="Play every multiset of policies up to this many line-ups, else a balanced sample of this size.")
@click.option("--bootstrap", default="200", show_default=True, help="Bootstrap resamples for the rating intervals.")
@click.option("--scoring", default="standard", show_default=True, help="Match scoring (with --mode match).")
@click.option("--target", default=None, help="Match target score (with --mode match) [default: 500].")
@click.option("--out", default=None, help="Directory for per line-up runs, tournament.json/csv and charts.")
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object on stdout.")
def tournament(policies, players, games, mode, rules, deck, seed, threads, max_lineups, bootstrap, scoring,
               target, out, as_json) -> None:
    """Rank a field of policies: every line-up (or a balanced sample), rotating seats, common deals."""
    from .tournament import check_tournament, format_tournament, run_tournament, to_json

    try:
        kw = dict(players=_int("players", players), games=_int("games", games), rules=rules, deck=deck,
                  seed=_int("seed", seed), mode=mode, threads=_int("threads", threads),
                  max_lineups=_int("max-lineups", max_lineups), bootstrap=_int("bootstrap", bootstrap))
        if mode == "match":
            kw.update(scoring=scoring, target=_int("target", target))
        elif target is not None or scoring != "standard":
            raise CliError("--target/--scoring apply to --mode match only; accepted: add --mode match")
        check_tournament(policies, **kw)
        out_dir = _check_out(out)
        result = run_tournament(policies, out_dir=out_dir, progress=sys.stderr.isatty(), **kw)
    except ValueError as e:
        raise _fail(e) from None
    if out_dir is not None:
        from .report import make_tournament_report

        make_tournament_report(result.table, result.meta, out_dir)
    if as_json:
        click.echo(json.dumps(to_json(result), allow_nan=False))
    else:
        click.echo(format_tournament(result.table, result.meta))
        if out_dir is not None:
            click.echo(f"tournament written to {out_dir}")


def _tournament_report(run_dir: Path, out: str, title: str) -> None:
    """`unosim report DIR` on a directory written by `unosim tournament --out DIR`."""
    from .report import make_tournament_report
    from .tournament import load_tournament

    try:
        table, meta = load_tournament(run_dir)
    except ValueError as e:
        raise _fail(e) from None
    paths = make_tournament_report(table, meta, _check_out(out), title=title)
    click.echo(f"report: {paths['tournament.md']}")


@main.command()
@click.option("--policy", required=True,
              help="Policy to tune; its parameters are the start, e.g. greedy or greedy(bluff=1,challenge=1).")
@click.option("--players", default="4", show_default=True, help="Seats at the table, 2..10.")
@click.option("--budget", default="60000", show_default=True, help="Training rounds for the whole search.")
@click.option("--against", default="greedy(challenge=0.5)", show_default=True,
              help="The other seats: one policy for all, or a comma list of players-1 policies.")
@click.option("--rules", "rules", default="official", show_default=True, help="Rules string, see `unosim rules`.")
@click.option("--deck", default="classic", show_default=True, help="Deck.")
@click.option("--seed", default="0", show_default=True, help="Master seed.")
@click.option("--popsize", default=None, help="CMA-ES candidates per generation [default: 4 + 3 ln(parameters)].")
@click.option("--games-per-eval", default=None, help="Rounds per candidate [default: from the budget].")
@click.option("--eval-games", default=None, help="Out-of-sample rounds for the tuned and the starting policy "
                                                 "[default: max(2000, budget/2)].")
@click.option("--threads", default=None, help="Worker threads [default: all cores]. Results do not depend on it.")
@click.option("--out", default=None, help="Directory for tuned_policy.txt, tune.json, history.csv and the chart.")
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object on stdout.")
def tune(policy, players, budget, against, rules, deck, seed, popsize, games_per_eval, eval_games, threads, out,
         as_json) -> None:
    """Tune a policy's numeric parameters with CMA-ES on common deals; check out of sample."""
    from .tune import check_tune, format_tune, save_tune, to_json
    from .tune import tune as run_tune

    try:
        kw = dict(players=_int("players", players), budget=_int("budget", budget), against=against, rules=rules,
                  deck=deck, seed=_int("seed", seed), popsize=_int("popsize", popsize),
                  games_per_eval=_int("games-per-eval", games_per_eval), eval_games=_int("eval-games", eval_games),
                  threads=_int("threads", threads))
        check_tune(policy, **kw)
        out_dir = _check_out(out)
        result = run_tune(policy, progress=sys.stderr.isatty(), **kw)
    except ValueError as e:
        raise _fail(e) from None
    if out_dir is not None:
        save_tune(result, out_dir)
    if as_json:
        click.echo(json.dumps(to_json(result), allow_nan=False))
    else:
        click.echo(format_tune(result))
        if out_dir is not None:
            click.echo(f"tuned policy written to {out_dir / 'tuned_policy.txt'}")


def run(argv: list[str] | None = None) -> None:
    """Console entry point: click usage errors become one line on stderr, exit code 2.

    ``argv``: the arguments (default: the process's own, ``sys.argv[1:]``)."""
    try:
        rc = main.main(args=argv, prog_name="unosim", standalone_mode=False)
    except click.exceptions.Abort:
        click.echo("aborted", err=True)
        sys.exit(130)
    except click.ClickException as e:
        msg = e.format_message().splitlines()[0] if e.format_message() else str(e)
        click.echo(f"error: {msg}", err=True)
        sys.exit(EXIT_USAGE if isinstance(e, click.UsageError) else e.exit_code)
    sys.exit(rc if isinstance(rc, int) else 0)


if __name__ == "__main__":  # pragma: no cover
    run()
