"""The command line's option types and shared options: counts (``1e6``, ``100k``, ``2M``, ``1_000_000``),
ranges, choices, ``--quiet`` and an example for every command's ``--help``.

Light on purpose (click and the standard library only): ``unosim --help`` imports it.
"""

from __future__ import annotations

import re

import click

from .errors import SimulationError

_SUFFIX = {"": 1, "k": 10**3, "K": 10**3, "m": 10**6, "M": 10**6, "g": 10**9, "G": 10**9}
_NUMBER = re.compile(r"^([+-]?[0-9][0-9_]*(?:\.[0-9_]*)?(?:[eE][+-]?[0-9]+)?)([kKmMgG]?)$")
NUMBER_FORMS = "an integer such as 100000, 1_000_000, 1e6, 100k or 2M"


def parse_int(option: str, value: object) -> int | None:
    """An integer typed on the command line: ``1_000_000``, ``1e6``, ``100k``, ``2M`` (and ``G``) allowed;
    ``None`` stays ``None``.  The one parser of every integer option (:data:`COUNT`, :class:`Range`,
    the commands' own ``_int``); ranges are the API's to check, or :class:`Range`'s."""
    if value is None or isinstance(value, int):
        return value
    from decimal import Decimal, InvalidOperation

    text = str(value).strip()
    m = _NUMBER.match(text)
    try:
        if m is None:
            raise InvalidOperation
        number = Decimal(m.group(1).replace("_", "")) * _SUFFIX[m.group(2)]
        if number != number.to_integral_value():
            raise InvalidOperation
    except InvalidOperation:
        raise SimulationError(f"--{option} {value!r} is not an integer; accepted: {NUMBER_FORMS}") from None
    return int(number)


class Count(click.ParamType):
    """An integer option that also takes ``1e6``, ``100k``, ``2M`` and ``1_000_000``."""

    name = "count"

    def get_metavar(self, param: click.Parameter, ctx: click.Context | None = None) -> str:
        return "N"

    def convert(self, value, param, ctx) -> int:
        return parse_int(param.name.replace("_", "-") if param else "value", value)


COUNT = Count()


class Range(click.IntRange):
    """An integer range (shown in ``--help``) read like :data:`COUNT`; a value outside it gets the API's
    one-line error (``players=11 is out of range; accepted: 2..10``)."""

    name = "count"

    def get_metavar(self, param: click.Parameter, ctx: click.Context | None = None) -> str:
        return "N"

    def _describe_range(self) -> str:
        return f"{self.min}..{'2**64-1' if self.max == 2**64 - 1 else self.max}"

    def convert(self, value, param, ctx) -> int:
        name = param.name if param else "value"
        v = parse_int(name.replace("_", "-"), value)
        if (self.min is not None and v < self.min) or (self.max is not None and v > self.max):
            lo = "" if self.min is None else self.min
            hi = "" if self.max is None else self.max
            raise SimulationError(f"{name}={v} is out of range; accepted: {lo}..{hi}")
        return v


PLAYERS = Range(2, 10)
SEED = Range(0, 2**64 - 1)
#: match scorings (unosim.running.match.SCORINGS; tests/test_cli.py checks they agree, the engine is not imported here)
class Choice(click.Choice):
    """A choice shown in ``--help`` (``shown``: the main names of a list that includes aliases); a value
    outside it gets the API's one-line error (:func:`unosim.validate.choice`, with a did-you-mean)."""

    def __init__(self, choices: list[str], shown: list[str] | None = None) -> None:
        super().__init__(choices)
        self.shown = shown or choices

    def get_metavar(self, param: click.Parameter, ctx: click.Context | None = None) -> str:
        return "[" + "|".join(self.shown) + "]"

    def convert(self, value, param, ctx) -> str:
        if value in self.choices:
            return value
        from .validate import choice

        return choice(param.name if param else "value", value, self.choices)


SEATING = Choice(["fixed", "rotate", "shuffle"])
BACKEND = Choice(["local", "dask", "dask-local"])  # unosim.validate.BACKENDS (checked again there)
MODE = Choice(["round", "match"])
SCORING = Choice(["standard", "self_loser", "lowest_wins", "elimination", "elimination_last_one",
                  "elimination_final_two", "hp_challenge", "tournament_elimination", "lazy", "lazy_scoring",
                  "rotating_partners"],
                 shown=["standard", "self_loser", "lowest_wins", "elimination", "lazy", "rotating_partners"])
#: the studies of ``unosim study`` (unosim.lab.studies.STUDIES; tests/test_cli_conventions.py checks they agree)
STUDY = Choice(["first_player", "house_rules", "flip", "match_length"])
DECK_HELP = ("Deck: classic, numbers_only, flip, harry_potter, bts, classic(copies=2,no_wilds) ... or a "
             "PATH.toml; see `unosim decks`.")


def _quiet(ctx: click.Context, param: click.Parameter, value: bool) -> None:
    if value:
        from .console import configure

        ctx.meta["unosim.quiet"] = True  # for the group, which sets up the console before each command
        configure(quiet=True)


def quiet_option(f):
    """``-q/--quiet``: no compile notice and no progress bars (results and errors still print)."""
    return click.option("-q", "--quiet", is_flag=True, expose_value=False, is_eager=True, callback=_quiet,
                        help="No compile notice and no progress bars.")(f)


#: an example for every command's --help (tests/test_cli.py checks that every command has one)
EXAMPLES = {
    "unosim": "unosim simulate -n 4 -p greedy,random -g 100k\n"
              "unosim compare --arm official --arm 'stacking; label:Stack it' -g 100k\n"
              "unosim COMMAND --help",
    "simulate": "unosim simulate -n 4 -p greedy,random -g 100k -s 7\n"
                "unosim simulate --mode match -g 2k --scoring self_loser -o runs/match",
    "rules": "unosim rules\nunosim rules seven_zero",
    "presets": "unosim presets",
    "decks": "unosim decks",
    "demo": "unosim demo -g 20k -o results/demo",
    "report": "unosim report runs/a runs/b -o reports/ab --title 'Stacking or not'",
    "plot": "unosim compare --arm official --arm official+stacking -o runs/stacking\n"
            "unosim plot runs/stacking -c rule_effects --width 6 --height 3.5 -o stacking.png",
    "compare": "unosim compare --arm official --arm 'stacking; label:Stack it' -p greedy -g 100k",
    "sweep": "unosim sweep experiments/players.toml --dry-run",
    "results": "unosim results list\nunosim results show 3fa2",
    "policies": "unosim policies\nunosim policies greedy",
    "trace": "unosim trace runs/a --game 5",
    "rerun": "unosim rerun runs/a -o runs/a-again",
    "tournament": "unosim tournament -p random,greedy,hold_wilds -g 10k",
    "tune": "unosim tune --policy greedy --budget 60k -o tuned/greedy",
    "skill": "unosim skill --players 4 --out results/skill\nunosim skill --sweep",
    "study": "unosim study house_rules\nunosim study first_player -g 2M -o results/first_player",
}


def add_examples(group: click.Group) -> None:
    """Put each command's example (:data:`EXAMPLES`; ``unosim``'s own for the group) at the end of its
    ``--help``."""
    for name, cmd in [("unosim", group), *group.commands.items()]:
        if name in EXAMPLES and not cmd.epilog:
            lines = EXAMPLES[name].splitlines()
            head = "Examples:" if len(lines) > 1 else "Example:"
            cmd.epilog = "\b\n" + head + "\n" + "\n".join(f"  {ln}" for ln in lines)
