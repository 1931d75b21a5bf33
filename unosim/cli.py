"""Command line: ``unosim simulate | rules | presets | demo | report | trace``.

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
    if getattr(exc, "multiline", False):  # a user policy raised: one line, then the user's traceback
        return CliError(str(exc))
    return CliError(str(exc).splitlines()[0] if str(exc) else exc.__class__.__name__)


def _check_out(out: str | None) -> Path | None:
    if out is None:
        return None
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


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="unosim")
def main() -> None:
    """unosim: Monte-Carlo strategy simulator for UNO and its variants."""


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
@click.option("--policy-file", "policy_files", multiple=True,
              help="Python file defining policies (repeatable); see `unosim policies`.")
def simulate(rules, players, policies, games, seed, threads, deck, batch_size, out, as_json, report, seating,
             mode, scoring, target, partners, max_rounds, round_records, policy_files) -> None:
    """Simulate many rounds (or full matches) and summarise them."""
    from .sim import simulate as run

    out_dir = _check_out(out)
    try:
        kw = dict(rules=rules, players=_int("players", players), policies=policies,
                  games=_int("games", games), seed=_int("seed", seed),
                  threads=None if threads is None else _int("threads", threads), deck=deck,
                  batch_size=None if batch_size is None else _int("batch-size", batch_size),
                  seating=seating, mode=mode, policy_files=list(policy_files))
        if mode == "match":
            kw.update(scoring=scoring, target=None if target is None else _int("target", target),
                      partners=partners, max_rounds=_int("max-rounds", max_rounds), round_records=round_records)
        elif target is not None or partners or round_records or scoring != "standard":
            raise CliError("--target/--scoring/--partners/--round-records apply to --mode match only; "
                           "accepted: add --mode match")
        result = run(**kw, progress=sys.stderr.isatty())
    except ValueError as e:
        raise _fail(e) from None
    if out_dir is not None:
        from .io import save_run

        save_run(result, out_dir)
        if report and mode == "round":
            from .report import make_report

            make_report([(result.meta["rules"], result.records, result.meta)], out_dir)
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


def _int(name: str, value) -> int:
    try:
        return int(str(value).replace("_", ""))
    except ValueError:
        raise CliError(f"--{name} {value!r} is not an integer; accepted: an integer") from None


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
    """A readable table of a match-mode summary with 95% confidence half-widths."""
    from .report import fmt_pm

    lines = [
        f"rules     {s['rules']}   deck {s.get('deck', 'classic')}   scoring {s['scoring']} to {s['target']}",
        f"players   {s['players']}   policies {', '.join(s['policies'])}   seating {s['seating']}",
        f"matches   {s['games']:,}   seed {s['seed']}   capped {s['capped_matches']}",
        "",
        f"mean rounds per match   {fmt_pm(s['mean_rounds'], 1.96 * (s['se_rounds'] or 0))}   "
        f"(sd {_f(s['sd_rounds'], '.2f')})",
        "",
        "seat  match win rate     round win rate     mean final score",
    ]
    for i in range(s["players"]):
        lines.append(f"{i:>4}  {fmt_pm(s['seat_match_win_rate'][i], 1.96 * (s['seat_match_win_rate_se'][i] or 0), pct=True):<18} "
                     f"{fmt_pm(s['seat_round_win_rate'][i], 1.96 * (s['seat_round_win_rate_se'][i] or 0), pct=True):<18} "
                     f"{_f(s['mean_final_score_by_seat'][i], '.1f')}")
    lines += ["", "policy                     match win rate per seat   round win rate per seat"]
    for name in s["policy_match_win_rate"]:
        lines.append(f"{name:<26} {fmt_pm(s['policy_match_win_rate'][name], 1.96 * (s['policy_match_win_rate_se'][name] or 0), pct=True):<25} "
                     f"{fmt_pm(s['policy_round_win_rate'][name], 1.96 * (s['policy_round_win_rate_se'][name] or 0), pct=True)}")
    lines += ["", f"{s['games_per_second']:,.0f} matches/s on {s.get('threads')} threads; engine v{s.get('engine_version')}"]
    return "\n".join(lines)


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
    from .sim import simulate as run

    out_dir = _check_out(out)
    n_games, s = _int("games", games), _int("seed", seed)
    runs = []
    for label, rules, players, policies in DEMO_JOBS:
        try:
            r = run(rules=rules, players=players, policies=policies, games=n_games, seed=s,
                    progress=sys.stderr.isatty())
        except ValueError as e:
            raise _fail(e) from None
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
    """Charts and tables comparing saved runs (directories written by `simulate --out`)."""
    from .io import load_run
    from .report import make_report

    out_dir = _check_out(out)
    loaded = []
    for r in runs:
        try:
            records, meta = load_run(Path(r))
        except ValueError as e:
            raise _fail(e) from None
        if meta.get("mode") == "match":
            raise CliError(f"{r!r} is a match-mode run; accepted: runs of --mode round "
                           "(match summaries are in its summary.json)")
        loaded.append((Path(r).name, records, meta))
    paths = make_report(loaded, out_dir, title=title)
    click.echo(f"report: {paths['summary.md']}")


@main.command("policies")
@click.argument("name", required=False)
@click.option("--policy-file", "policy_files", multiple=True, help="Also list the policies this file defines.")
def policies_cmd(name: str | None, policy_files: tuple[str, ...]) -> None:
    """List every policy with its parameters, or show one in full."""
    from .policy_api import format_policies, format_policy, load_policy_files

    try:
        load_policy_files(list(policy_files))
        click.echo(format_policy(name) if name else format_policies())
    except ValueError as e:
        raise _fail(e) from None


@main.command("trace")
@click.argument("run_dir")
@click.option("--game", default="0", show_default=True, help="Round to replay (its index in records.parquet).")
def trace_cmd(run_dir: str, game: str) -> None:
    """Replay one round of a saved run step by step: every event and every decision with what it saw."""
    from .trace import trace_round

    meta_path = Path(run_dir) / "meta.json"
    if not meta_path.is_file():
        raise CliError(f"{run_dir!r} has no meta.json; accepted: a directory written by simulate --out")
    meta = json.loads(meta_path.read_text())
    if meta.get("mode", "round") != "round":
        raise CliError(f"{run_dir!r} is a match-mode run; accepted: a run of --mode round")
    g = _int("game", game)
    if not 0 <= g < int(meta["games"]):
        raise CliError(f"--game {g} is out of range; accepted: 0..{int(meta['games']) - 1}")
    try:
        click.echo(trace_round(meta, g))
    except ValueError as e:
        raise _fail(e) from None


def run() -> None:
    """Console entry point: click usage errors become one line on stderr, exit code 2."""
    try:
        rc = main.main(standalone_mode=False)
    except click.exceptions.Abort:
        click.echo("aborted", err=True)
        sys.exit(130)
    except CliError as e:
        e.show()
        sys.exit(e.exit_code)
    except click.ClickException as e:
        msg = e.format_message().splitlines()[0] if e.format_message() else str(e)
        click.echo(f"error: {msg}", err=True)
        sys.exit(EXIT_USAGE if isinstance(e, click.UsageError) else e.exit_code)
    sys.exit(rc if isinstance(rc, int) else 0)


if __name__ == "__main__":  # pragma: no cover
    run()
