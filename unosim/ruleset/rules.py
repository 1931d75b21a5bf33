"""Rule options: one frozen dataclass, named presets, a rules-string language and a catalogue.

This module is the single source of truth for every play option of ``docs/rules.md`` (sections 1 and 4,
plus the deck-specific options of sections 2 and 3 that own a slot in :mod:`unosim.core.enums`).  A
:class:`RuleSet` is validated when it is built and packed by :meth:`RuleSet.pack` into the two arrays
the compiled engine reads (``ri``: int64[NRI], ``rf``: float64[NRF]); one compiled kernel serves every
variant.  Match-level options (target score, score modes, lazy scoring, partners) and the deck
(``--deck``: classic, flip, two decks for Speed Uno, ...) are not part of a rule set; lazy scoring's
tie-break for the next dealer (``lazy_tie_break``, docs/rules.md 4.11) is, so the rules string records it.

Rules strings
-------------
A rules string is a list of *terms* joined by ``+`` and applied left to right; later terms override
earlier ones::

    official
    party
    official+stacking(stack_wd4=true, stack_mixed=true)+seven_zero
    official+set(hand_size=10, uno_penalty=4)
    stacking(max_per_turn=2)+jump_in(allow_wild=false)+set(uno_forget_prob=0.1)

A term is one of

* a **preset** name (see :data:`PRESETS`).  ``official`` resets every option to its default (it is
  the base every canonical string starts from); any other preset applies the settings in which it
  differs from ``official`` and leaves every other option as it is.  Presets take no parameters.
* a **switch** name, i.e. a boolean option that is not a parameter of another option (``stacking``,
  ``seven_zero``, ``jump_in``, ...): it turns the switch on.  Parentheses set the switch's own
  parameters, e.g. ``stacking(stack_wd4=false)``.  A parameter may be written with its full name
  (``stack_wd4``) or, inside its switch's parentheses, with the switch prefix left off
  (``stacking(wd4=false)``, ``wd4_challenge(guilty_card=void)``).  A parameter must belong to the
  switch it is given to.  A switch that is already on by default (``wd4_challenge``) is written the
  same way to change its parameters; switches are turned off with ``set(name=false)``.
* ``set(key=value, ...)`` for any option of :class:`RuleSet`.

Values: ``true/false/yes/no/on/off/1/0`` for booleans, decimal integers for counts, floats in
``[0, 1]`` for probabilities, and choice names for enumerated options.  Whitespace is ignored; names
and choice values are case-insensitive and ``-`` and ``_`` are interchangeable.  Every error raises
:class:`RuleError` with a one-line message that names the bad part and what is accepted.

A canonical string is produced by :meth:`RuleSet.to_string` (``official`` for the default rules);
:func:`parse_rules` turns it back into an equal :class:`RuleSet`.

Engine support
--------------
:data:`ENGINE_SUPPORTED` lists the options the compiled engine implements.  :func:`check_engine_support`
(called by :func:`parse_rules` unless ``check_engine=False``) refuses a rule set that changes an option
outside that set, so no specified-but-unsimulated rule is silently ignored.
"""

from __future__ import annotations

import dataclasses
import difflib
import functools
import math
import re
from collections.abc import Collection, Iterable
from dataclasses import dataclass, field
from typing import Any, Literal

import numpy as np

from ..core import enums as E
from ..errors import RuleError as _RuleErrorBase

__all__ = [
    "ENGINE_SUPPORTED",
    "ELSEWHERE",
    "OPTIONS",
    "PRESETS",
    "OptionInfo",
    "Preset",
    "RuleError",
    "RuleSet",
    "check_engine_support",
    "format_option",
    "format_options_table",
    "format_presets",
    "parse_rules",
]

Value = bool | int | float | str
Kind = Literal["bool", "int", "float", "enum"]

_MAX_COUNT = 30          # upper bound of every card-count option (penalties, hand size, ...)
_MAX_TURN_CAP = 10**9


class RuleError(_RuleErrorBase):
    """A bad rules string, option name, option value or combination of options (one-line message)."""

    def __init__(self, message: str) -> None:
        super().__init__(" ".join(str(message).split()))


# ------------------------------------------------------------------------------------------------
# Field declarations.  Each RuleSet field carries its catalogue entry as dataclass metadata.
# ------------------------------------------------------------------------------------------------

def _opt(
    default: Value,
    slot: str,
    section: str,
    description: str,
    *,
    group: str | tuple[str, ...] | None = None,
    choices: tuple[str, ...] = (),
    lo: float | None = None,
    hi: float | None = None,
    aliases: tuple[str, ...] = (),
    shorts: tuple[str, ...] = (),
    category: str = "house",
) -> Any:
    """Declare a RuleSet field: default, packed slot (an ``enums`` constant name) and catalogue data."""
    groups = (group,) if isinstance(group, str) else tuple(group or ())
    meta = {
        "slot": slot, "section": section, "description": description, "groups": groups,
        "choices": choices, "lo": lo, "hi": hi, "aliases": aliases, "shorts": shorts,
        "category": category,
    }
    return field(default=default, metadata=meta)


def _base(default: Value, slot: str, section: str, description: str, **kw: Any) -> Any:
    return _opt(default, slot, section, description, category="base", **kw)


def _deck(default: Value, slot: str, section: str, description: str, **kw: Any) -> Any:
    return _opt(default, slot, section, description, category="deck", **kw)


def _count(default: int, slot: str, section: str, description: str, lo: int = 0, **kw: Any) -> Any:
    kw.setdefault("category", "house")
    return _opt(default, slot, section, description, lo=lo, hi=_MAX_COUNT, **kw)


def _prob(default: float, slot: str, section: str, description: str, **kw: Any) -> Any:
    kw.setdefault("category", "house")
    return _opt(default, slot, section, description, lo=0.0, hi=1.0, **kw)


_WD4C = "wd4_challenge"


@dataclass(frozen=True)
class RuleSet:
    """Every play option of docs/rules.md, with the official rules (docs/rules.md §5.3) as defaults.

    Enumerated options are stored as their choice names (strings).  Build one directly
    (``RuleSet(stacking=True)``), from a rules string (:func:`parse_rules`) or from a preset
    (``PRESETS['party'].rules``).  The instance is validated on construction (:meth:`validate`).
    See :data:`OPTIONS` (or ``format_options_table()``) for what every field means.
    """

    # ---- classic UNO (docs/rules.md §1) ---------------------------------------------------------------
    hand_size: int = _count(7, "RI_HAND_SIZE", "1.4", "Cards dealt to each player (Speed Uno deals 10).",
                            lo=1, category="base")
    turn_cap: int = _base(10000, "RI_TURN_CAP", "5",
                          "Turns after which a round is stopped and recorded as capped (engine safeguard, "
                          "not a game rule); a draw card laid on the last turn stays pending, its victim draws "
                          "nothing.", lo=1, hi=_MAX_TURN_CAP)
    start_reverse_first: str = _base(
        "dealer", "RI_START_REVERSE_FIRST", "1.5",
        "Starting Reverse: the dealer plays first and play goes counter-clockwise, or the player to the "
        "dealer's right plays first.", choices=("dealer", "right_of_dealer"))
    start_wild: str = _base(
        "first_player_chooses_then_plays", "RI_START_WILD", "1.5",
        "Starting Wild: the first player names the colour and then plays, or the card is put back "
        "and another turned.", choices=("first_player_chooses_then_plays", "redraw"))
    start_wd4: str = _base(
        "redraw", "RI_START_WD4", "1.5",
        "Starting Wild Draw Four: put back and another turned, or the first player names the colour.",
        choices=("redraw", "first_player_chooses"))
    start_replace_any_special: bool = _base(
        False, "RI_START_REPLACE_ANY_SPECIAL", "4.22",
        "Any non-number starting card is put back and another card turned.")
    start_return_method: str = _base(
        "reshuffle", "RI_START_RETURN_METHOD", "1.5",
        "How a returned starting card goes back: shuffled into the draw pile, or into its middle.",
        choices=("reshuffle", "middle"))
    match_action_by_symbol: bool = _base(
        True, "RI_MATCH_ACTION_BY_SYMBOL", "1.7",
        "An action card may be played on the same symbol of another colour (Skip on Skip, ...).")
    action_on_any_action: bool = _base(
        False, "RI_ACTION_ON_ANY_ACTION", "1.7",
        "Any coloured action card may be played on any coloured action card (minority reading).")
    drawn_card_play: str = _base(
        "optional", "RI_DRAWN_CARD_PLAY", "1.9",
        "A playable card drawn on one's turn may be played (optional) or must be played (forced).",
        choices=("optional", "forced"))
    voluntary_draw: bool = _base(
        True, "RI_VOLUNTARY_DRAW", "1.9",
        "A player may draw instead of playing a playable card (then only the drawn card may be played).")
    wd4_restriction: str = _base(
        "color", "RI_WD4_RESTRICTION", "1.10",
        "Wild Draw Four is legal only without a card of the current colour (color), without a card of "
        "that colour or number (color_or_number), or always (none).",
        choices=("color", "color_or_number", "none"))
    allow_wd4_bluff: bool = _base(
        True, "RI_ALLOW_WD4_BLUFF", "1.10",
        "A player may play an illegal Wild Draw Four and risk a challenge.")
    wd4_challenge: bool = _base(
        True, "RI_WD4_CHALLENGE", "1.11",
        "The target of a Wild Draw Four may challenge it (whether to challenge is a policy decision).",
        aliases=("wd4_challenge_enabled",))
    wd4_challenge_guilty_draw: int = _count(
        4, "RI_CH_GUILTY_DRAW", "1.11", "Cards a guilty Wild Draw Four player draws.", group=_WD4C,
        category="base")
    wd4_challenge_innocent_draw: int = _count(
        6, "RI_CH_INNOCENT_DRAW", "1.11", "Cards a challenger draws when the player was innocent (4 + 2).",
        group=_WD4C, category="base")
    wd4_challenge_guilty_card: str = _base(
        "stays", "RI_CH_GUILTY_CARD", "1.11",
        "After a guilty verdict the Wild Draw Four stays with its colour, returns to the offender's hand, "
        "or play continues as if it had never been played (void).",
        group=_WD4C, choices=("stays", "returns_to_hand", "void"))
    wd4_challenge_guilty_offender_skips: bool = _base(
        False, "RI_CH_GUILTY_OFFENDER_SKIPS", "1.11", "A guilty offender also loses their next turn.",
        group=_WD4C, aliases=("wd4_challenge_guilty_offender_skips_next_turn",))
    wd4_challenge_success_challenger_plays: bool = _base(
        True, "RI_CH_SUCCESS_CHALLENGER_PLAYS", "1.11",
        "After a successful challenge the challenger takes a normal turn.",
        group=_WD4C, shorts=("challenger_plays",))
    wd4_challenge_innocent_challenger_skips: bool = _base(
        True, "RI_CH_INNOCENT_CHALLENGER_SKIPS", "1.11",
        "After a failed challenge the challenger also loses their turn.", group=_WD4C)
    challenge_last_card_wd4: bool = _base(
        True, "RI_CHALLENGE_LAST_CARD_WD4", "1.14",
        "A Wild Draw Four played as the last card may still be challenged (guilty: the round goes on).",
        group=_WD4C, shorts=("last_card",))
    uno_penalty: int = _count(2, "RI_UNO_PENALTY", "1.12",
                              "Cards drawn by a player caught not calling UNO (4 in some sources, 5 in Speed "
                              "Uno).", category="base")
    uno_forget_prob: float = _prob(0.0, "RF_UNO_FORGET_PROB", "1.12",
                                   "Probability that a player forgets to call UNO.", category="base")
    uno_catch_prob: float = _prob(1.0, "RF_UNO_CATCH_PROB", "1.12",
                                  "Probability that a forgotten UNO is caught before the next turn begins.",
                                  category="base")
    two_player_reverse_as_skip: bool = _base(
        True, "RI_TWO_PLAYER_REVERSE_AS_SKIP", "1.17", "With two players a Reverse acts like a Skip.")

    # ---- house rules (docs/rules.md §4) ---------------------------------------------------------------
    jump_in: bool = _opt(False, "RI_JUMP_IN", "4.1",
                         "Any player may play out of turn a card identical (colour and face) to the top "
                         "discard; play continues from them.")
    jump_in_allow_wild: bool = _opt(True, "RI_JUMP_IN_ALLOW_WILD", "4.1",
                                    "A Wild may be jumped in on a Wild.", group="jump_in")
    jump_in_allow_wd4: bool = _opt(False, "RI_JUMP_IN_ALLOW_WD4", "4.1",
                                   "A Wild Draw Four may be jumped in on a Wild Draw Four (the sources say no).",
                                   group="jump_in")
    jump_in_draw_resolution: str = _opt(
        "transfer", "RI_JUMP_IN_DRAW_RESOLUTION", "4.1",
        "A Draw Two jumped on a Draw Two: only the player after the last jumper draws 2 (transfer), or the "
        "totals add up (accumulate).", group="jump_in", choices=("transfer", "accumulate"))
    p_beats_scheduled: float = _prob(
        0.5, "RF_P_BEATS_SCHEDULED", "4",
        "Race model: probability that an out-of-turn player acts before the scheduled player.",
        group=("jump_in", "speed_exact_match"))
    double_play_jump_in: bool = _opt(
        False, "RI_DOUBLE_PLAY_JUMP_IN", "4.2",
        "A player with two identical cards plays one and may jump in at once with the second (needs jump_in).")
    p_self_jump_wins: float = _prob(
        0.5, "RF_P_SELF_JUMP_WINS", "4.2",
        "Probability that the second identical card lands before the next player acts.",
        group="double_play_jump_in")
    seven_zero: bool = _opt(False, "RI_SEVEN_ZERO", "4.3",
                            "7-0: a 0 passes every hand to the neighbour; a 7 swaps hands with a chosen player.")
    zero_pass_direction: str = _opt(
        "play_direction", "RI_ZERO_PASS_DIRECTION", "4.3",
        "Direction in which hands pass on a 0: the direction of play, or always to the left.",
        group="seven_zero", choices=("play_direction", "left"))
    seven_swap_mandatory: bool = _opt(True, "RI_SEVEN_SWAP_MANDATORY", "4.3",
                                      "The swap on a 7 is mandatory (false: the player may decline).",
                                      group="seven_zero")
    zero_swap_any: bool = _opt(False, "RI_ZERO_SWAP_ANY", "4.4",
                               "A player who plays a 0 may swap hands with any other player.")
    stacking: bool = _opt(False, "RI_STACKING", "4.5",
                          "A Draw Two / Wild Draw Four target may pass it on with the same card; the totals add "
                          "up. A challenge in a stack scales with the total.")
    stack_draw_two: bool = _opt(True, "RI_STACK_DRAW_TWO", "4.5", "Draw Two may be stacked on Draw Two.",
                                group="stacking")
    stack_wd4: bool = _opt(True, "RI_STACK_WD4", "4.5", "Wild Draw Four may be stacked on Wild Draw Four.",
                           group="stacking")
    stack_mixed: bool = _opt(False, "RI_STACK_MIXED", "4.5",
                             "Draw Two and Wild Draw Four may be mixed in one stack (not in the sources).",
                             group="stacking")
    stack_max_per_turn: int = _count(1, "RI_STACK_MAX_PER_TURN", "4.5",
                                     "Draw cards a player may add to a stack in one turn.", lo=1, group="stacking")
    stack_final_victim_skips: bool = _opt(True, "RI_STACK_FINAL_VICTIM_SKIPS", "4.5",
                                          "The player who finally draws the stack also loses their turn.",
                                          group="stacking")
    stack_color_by: str = _opt("last_wd4", "RI_STACK_COLOR_BY", "4.5",
                               "Who names the colour after a stack: the last player who laid a Wild Draw Four.",
                               group="stacking", choices=("last_wd4",))
    deflect_skip: bool = _opt(False, "RI_DEFLECT_SKIP", "4.6",
                              "The target of a Skip escapes by laying an identical Skip (implied by jump_in). "
                              "A Reverse that acts as a Skip with two players is not a Skip: nothing deflects it.")
    deflect_draw_two: bool = _opt(False, "RI_DEFLECT_DRAW_TWO", "4.7",
                                  "The target of a Draw Two passes it on with any Draw Two; the last one draws "
                                  "just 2 (non-cumulative).")
    deflect_wd4: bool = _opt(False, "RI_DEFLECT_WD4", "4.8",
                             "The target of a Wild Draw Four escapes only with a Draw Two of the named colour.",
                             aliases=("deflect_wd4_with_draw_two",))
    reverse_bounce: bool = _opt(False, "RI_REVERSE_BOUNCE", "4.9",
                                "A Reverse played by the target sends the action back to the previous player.")
    reverse_bounce_scope: str = _opt("any_action", "RI_RB_SCOPE", "4.9",
                                     "Which actions bounce: Skip, Draw Two and Wild Draw Four, or Draw Two only.",
                                     group="reverse_bounce", choices=("any_action", "draw_two_only"))
    reverse_bounce_requires_color: bool = _opt(True, "RI_RB_REQUIRES_COLOR", "4.9",
                                               "The bouncing Reverse must match the current colour.",
                                               group="reverse_bounce")
    reverse_bounce_victim_skips: bool = _opt(True, "RI_RB_VICTIM_SKIPS", "4.9",
                                             "The player hit by the bounced action also loses their turn.",
                                             group="reverse_bounce")
    reverse_bounce_rebounce: bool = _opt(False, "RI_RB_REBOUNCE", "4.9",
                                         "The victim of a bounce may bounce it again (not in the sources).",
                                         group="reverse_bounce")
    swap_on_five: bool = _opt(False, "RI_SWAP_ON_FIVE", "4.10",
                              "A player who lays a 5 may make an exchange with a chosen player.")
    swap5_mode: str = _opt("one_card_each_own_choice", "RI_SWAP5_MODE", "4.10",
                           "The exchange: one card each, chosen by its giver, or whole hands.",
                           group="swap_on_five", choices=("one_card_each_own_choice", "whole_hand"))
    swap5_optional: bool = _opt(True, "RI_SWAP5_OPTIONAL", "4.10", "The exchange on a 5 may be declined.",
                                group="swap_on_five")
    uno_to_center: bool = _opt(False, "RI_UNO_TO_CENTER", "4.12",
                               "After a correct UNO call all others race to stack hands in the centre; the "
                               "slowest (drawn uniformly at random) draws.")
    uno_center_penalty: int = _count(2, "RI_UNO_CENTER_PENALTY", "4.12",
                                     "Cards drawn by the slowest player.", group="uno_to_center")
    wild_color_rotation: bool = _opt(False, "RI_WILD_COLOR_ROTATION", "4.13",
                                     "Wild cards name no colour: it becomes the next colour in the cycle "
                                     "red-blue-green-yellow in the direction of play.")
    play_to_last: bool = _opt(False, "RI_PLAY_TO_LAST", "4.14",
                              "Players leave as they go out; the last one holding cards loses.")
    play_to_last_two_player_rules: bool = _opt(True, "RI_PLAY_TO_LAST_TWO_PLAYER_RULES", "4.14",
                                               "The two-player rules apply once two players remain.",
                                               group="play_to_last")
    uno_seven_rounds: bool = _opt(False, "RI_UNO_SEVEN_ROUNDS", "4.15",
                                  "A player who goes out refills with 6, then 5, ... cards; emptying the 1-card "
                                  "hand wins.")
    refill_start: int = _count(6, "RI_REFILL_START", "4.15", "Cards of the first refill.", lo=1,
                               group="uno_seven_rounds")
    zero_worth_50: bool = _opt(False, "RI_ZERO_WORTH_50", "4.16", "A 0 left in hand scores 50 instead of 0.")
    zero50_condition: str = _opt("sole_card", "RI_ZERO50_CONDITION", "4.16",
                                 "When a 0 scores 50: it is the only card left, the hand is all zeros, or any 0.",
                                 group="zero_worth_50", choices=("sole_card", "hand_all_zeros", "any_zero"))
    lazy_tie_break: str = _opt("random", "RI_LAZY_TIE_BREAK", "4.11",
                               "Lazy scoring (match mode, --scoring lazy): who deals the next round when several "
                               "hands hold the same highest points: one of them drawn at random (the "
                               "specification's default), or the first of them clockwise from the round's winner.",
                               choices=("random", "first_clockwise"))
    draw_until_playable: bool = _opt(False, "RI_DRAW_UNTIL_PLAYABLE", "4.17",
                                     "Draw until a playable card comes up (also after a voluntary draw); "
                                     "overrides drawn_card_play.")
    dup_must_play_found: bool = _opt(True, "RI_DUP_MUST_PLAY_FOUND", "4.17",
                                     "The playable card found must be played.", group="draw_until_playable",
                                     shorts=("must_play_found",))
    speed_draw_no_skip: bool = _opt(False, "RI_SPEED_DRAW_NO_SKIP", "4.18",
                                    "Speed Uno: a draw-card victim draws, then takes their turn matching the colour "
                                    "or playing a Wild, drawing until able.")
    speed_no_wd4_out: bool = _opt(False, "RI_SPEED_NO_WD4_OUT", "4.18",
                                  "Speed Uno: nobody may go out on a Wild Draw Four.")
    speed_exact_match: bool = _opt(False, "RI_SPEED_EXACT_MATCH", "4.18",
                                   "Speed Uno: an exactly matching card may be played out of turn; the player after "
                                   "it goes next.")
    speed_exact_match_wilds: str = _opt("wild_only", "RI_SPEED_EXACT_MATCH_WILDS", "4.18",
                                        "Black cards usable as exact matches: Wild only, none, or Wild and Wild "
                                        "Draw Four.", group="speed_exact_match",
                                        choices=("wild_only", "none", "wild_and_wd4"))
    speed_double_double: bool = _opt(False, "RI_SPEED_DOUBLE_DOUBLE", "4.18",
                                     "Speed Uno: exact matches on a draw card add up (needs speed_exact_match).")
    speed_drop: bool = _opt(False, "RI_SPEED_DROP", "4.18",
                            "Speed Uno: several identical cards may be laid at once.")
    speed_round_n_round: bool = _opt(False, "RI_SPEED_ROUND_N_ROUND", "4.18",
                                     "Speed Uno: a 0 passes every hand in the direction of play; a player handed "
                                     "one card must call UNO.")
    penalty_illegal_play: bool = _opt(False, "RI_PENALTY_ILLEGAL_PLAY", "4.19",
                                      "Players sometimes attempt an illegal card; if detected it goes back and they "
                                      "draw (modelled as probabilities).")
    illegal_penalty: int = _count(2, "RI_ILLEGAL_PENALTY", "4.19", "Cards drawn for a detected illegal play.",
                                  group="penalty_illegal_play", shorts=("penalty",))
    p_illegal_attempt: float = _prob(0.0, "RF_P_ILLEGAL_ATTEMPT", "4.19",
                                     "Probability per turn that a player attempts an illegal card.",
                                     group="penalty_illegal_play")
    p_detect: float = _prob(1.0, "RF_P_DETECT", "4.19", "Probability that an illegal card is detected.",
                            group="penalty_illegal_play")
    penalty_hint: bool = _opt(False, "RI_PENALTY_HINT", "4.19",
                              "A player who hints which card to play draws 2 (social rule, probability only).")
    p_hint: float = _prob(0.0, "RF_P_HINT", "4.19", "Probability per turn that a player hints.",
                          group="penalty_hint")
    penalty_general_mistake: bool = _opt(False, "RI_PENALTY_GENERAL_MISTAKE", "4.19",
                                         "Any mistake (wrong card, false shout, ...) costs 2 cards (probability "
                                         "only).")
    p_mistake: float = _prob(0.0, "RF_P_MISTAKE", "4.19", "Probability per turn that a player makes a mistake.",
                             group="penalty_general_mistake")
    reverse_single_turn: bool = _opt(False, "RI_REVERSE_SINGLE_TURN", "4.24",
                                     "Source anomaly: a Reverse turns play back for one move only.")
    skip_extra_turn: bool = _opt(False, "RI_SKIP_EXTRA_TURN", "4.25",
                                 "Source anomaly: the player who lays a Skip moves again.")

    # ---- deck-specific options (docs/rules.md §2 UNO Flip, §3 themed decks); used only with that --deck --------
    flip_revealed_black_color: str = _deck(
        "flip_player_chooses", "RI_FLIP_REVEALED_BLACK_COLOR", "2.8",
        "Flip: a black face revealed on the discard pile gets its colour from the Flip player, or the next "
        "player may play anything.", choices=("flip_player_chooses", "next_player_free"))
    flip_start_flip: str = _deck("execute", "RI_FLIP_START_FLIP", "2.12",
                                 "Flip: a starting Flip card is carried out (game starts dark) or redrawn.",
                                 choices=("execute", "redraw"))
    flip_last_card_executes: bool = _deck(True, "RI_FLIP_LAST_CARD_EXECUTES", "2.10",
                                          "Flip: a Flip played as the last card is carried out before scoring.")
    wdc_stop_on_exhaustion: bool = _deck(True, "RI_WDC_STOP_ON_EXHAUSTION", "2.6",
                                         "Flip: Wild Draw Colour stops drawing when no cards are left.")
    flip_wd2_guilty_draw: int = _count(2, "RI_FLIP_WD2_GUILTY_DRAW", "2.9",
                                       "Flip: cards a guilty Wild Draw Two player draws.", category="deck")
    flip_wd2_innocent_draw: int = _count(4, "RI_FLIP_WD2_INNOCENT_DRAW", "2.9",
                                         "Flip: cards a wrong Wild Draw Two challenger draws (2 + 2).",
                                         category="deck")
    flip_wdc_innocent_extra: int = _count(2, "RI_FLIP_WDC_INNOCENT_EXTRA", "2.9",
                                          "Flip: extra cards a wrong Wild Draw Colour challenger draws.",
                                          category="deck")
    hp_invis_blocks: bool = _deck(True, "RI_HP_INVIS_BLOCKS", "3.3",
                                  "Harry Potter: the Invisibility Wild may be played to cancel an effect aimed at its "
                                  "holder (placeholder assumption).", aliases=("hp_invisibility_response",))
    dancing_wild_target_skips: bool = _deck(False, "RI_BTS_DANCING_TARGET_SKIPS", "3.2",
                                            "UNO BTS: the target of a Dancing Wild also loses their turn.")
    p_dance: float = _prob(0.0, "RF_P_DANCE", "3.2",
                           "UNO BTS: probability that a Dancing Wild target dances instead of drawing 3.",
                           category="deck")

    # ---- behaviour ------------------------------------------------------------------------------------
    def __post_init__(self) -> None:
        for name, info in _FIELD_INFO.items():
            object.__setattr__(self, name, _coerce(info, getattr(self, name)))
        self.validate()

    def validate(self) -> None:
        """Check every value and the combinations of docs/rules.md §5.2; raise :class:`RuleError` if bad."""
        for name, info in _FIELD_INFO.items():
            _check_value(info, getattr(self, name))
        for check in _CONFLICTS:
            message = check(self)
            if message:
                raise RuleError(message)

    def replace(self, **changes: Any) -> RuleSet:
        """A copy with some fields changed (validated)."""
        unknown = [k for k in changes if k not in _FIELD_INFO]
        if unknown:
            raise RuleError(_unknown_message("option", unknown[0], _FIELD_INFO))
        return dataclasses.replace(self, **changes)

    def describe_changes(self) -> dict[str, Value]:
        """The fields that differ from the official rules, in declaration order."""
        return {n: getattr(self, n) for n, i in _FIELD_INFO.items() if getattr(self, n) != i.default}

    def pack(self) -> tuple[np.ndarray, np.ndarray]:
        """The engine's view: ``(ri int64[NRI], rf float64[NRF])``; unused slots are 0."""
        ri = np.zeros(E.NRI, np.int64)
        rf = np.zeros(E.NRF, np.float64)
        for name, info in _FIELD_INFO.items():
            value = getattr(self, name)
            idx = getattr(E, info.slot)
            if info.slot.startswith("RF_"):
                rf[idx] = float(value)
            elif info.kind == "enum":
                ri[idx] = info.choices.index(value)
            else:
                ri[idx] = int(value)
        return ri, rf

    def to_string(self) -> str:
        """Canonical rules string; ``parse_rules(r.to_string()) == r``.  ``official`` for the defaults."""
        changes = self.describe_changes()
        terms = ["official"]
        done: set[str] = set()
        for name, info in _FIELD_INFO.items():
            if not info.is_switch or not getattr(self, name):
                continue
            params = [p for p in _GROUP_PARAMS.get(name, ()) if p in changes and p not in done]
            if not params and info.default:
                continue
            done.add(name)
            done.update(params)
            inner = ", ".join(f"{p}={_fmt(changes[p])}" for p in params)
            terms.append(f"{name}({inner})" if inner else name)
        rest = [f"{k}={_fmt(v)}" for k, v in changes.items() if k not in done]
        if rest:
            terms.append(f"set({', '.join(rest)})")
        return "+".join(terms)

    def __str__(self) -> str:
        return self.to_string()


# ------------------------------------------------------------------------------------------------
# Catalogue
# ------------------------------------------------------------------------------------------------

@dataclass(frozen=True)
class OptionInfo:
    """Catalogue entry of one option.

    ``group`` is the switch the option is a parameter of (None for switches and base options);
    ``groups`` lists every switch that accepts it as a parameter.  ``slot`` names the ``enums``
    constant it is packed into (None for options that are not simulated).  ``category`` is
    ``base`` (docs/rules.md §1), ``house`` (§4), ``deck`` (§2/§3, only meaningful with that deck) or
    ``info`` (catalogued but not simulatable).
    """

    name: str
    group: str | None
    kind: Kind
    default: Value
    choices: tuple[str, ...]
    description: str
    section: str
    simulatable: bool = True
    reason: str = ""
    slot: str | None = None
    groups: tuple[str, ...] = ()
    lo: float | None = None
    hi: float | None = None
    aliases: tuple[str, ...] = ()
    shorts: tuple[str, ...] = ()
    category: str = "house"

    @property
    def is_switch(self) -> bool:
        """A boolean that is nobody's parameter: usable as a rules-string term."""
        return self.kind == "bool" and self.group is None and self.simulatable

    def accepted(self) -> str:
        """Human description of the accepted values."""
        if self.kind == "bool":
            return "true, false"
        if self.kind == "enum":
            return ", ".join(self.choices)
        if self.kind == "float":
            return f"a probability in [{_fmt(self.lo)}, {_fmt(self.hi)}]"
        return f"an integer in {int(self.lo or 0)}..{int(self.hi or 0)}"


def _kind_of(default: Value, choices: tuple[str, ...]) -> Kind:
    if choices:
        return "enum"
    if isinstance(default, bool):
        return "bool"
    if isinstance(default, int):
        return "int"
    return "float"


def _build_field_info() -> dict[str, OptionInfo]:
    out: dict[str, OptionInfo] = {}
    for f in dataclasses.fields(RuleSet):
        m = f.metadata
        groups: tuple[str, ...] = m["groups"]
        group = groups[0] if groups else None
        shorts = list(m["shorts"])
        for g in groups:
            prefix = _GROUP_PREFIX.get(g, g + "_")
            if f.name.startswith(prefix) and f.name != prefix:
                shorts.append(f.name[len(prefix):])
        out[f.name] = OptionInfo(
            name=f.name, group=group, kind=_kind_of(f.default, m["choices"]), default=f.default,
            choices=m["choices"], description=m["description"], section=m["section"], slot=m["slot"],
            groups=groups, lo=m["lo"], hi=m["hi"], aliases=m["aliases"], shorts=tuple(dict.fromkeys(shorts)),
            category=m["category"],
        )
    return out


# prefixes that may be left off inside a switch's parentheses (default: "<switch>_")
_GROUP_PREFIX = {"stacking": "stack_", "swap_on_five": "swap5_", "zero_worth_50": "zero50_",
                 "uno_to_center": "uno_center_", "draw_until_playable": "dup_"}

_FIELD_INFO: dict[str, OptionInfo] = _build_field_info()

_GROUP_PARAMS: dict[str, tuple[str, ...]] = {}
for _info in _FIELD_INFO.values():
    for _g in _info.groups:
        _GROUP_PARAMS[_g] = (*_GROUP_PARAMS.get(_g, ()), _info.name)
del _info, _g


def _not_sim(name: str, section: str, description: str, reason: str) -> OptionInfo:
    return OptionInfo(name=name, group=None, kind="bool", default=False, choices=(), description=description,
                      section=section, simulatable=False, reason=reason, category="info")


_NOT_SIMULATABLE = [
    _not_sim("uno_spin", "3", "Uno Spin: a nine-sector spinner sets a task before each turn.",
             "the spinner's sectors and their frequencies are not given in the sources"),
    _not_sim("svintus", "3", "Svintus, a Russian analogue of UNO.", "no rules are given in the sources"),
    _not_sim("review_101", "3.5", "The '101' review deck (play to 101 penalty points).",
             "only partially described: the 'colour choice' card and the direction of scoring are unclear"),
    _not_sim("blank_card", "4.26", "Four blank cards with an effect agreed by the players.",
             "not meaningfully simulatable without an agreed effect (blank cards are used 'by agreement')"),
    _not_sim("courtesy_ready", "4.19",
             "Play waits until the player who drew 4 has sorted them and says 'Ready'.",
             "it has no effect on the game state"),
]

OPTIONS: dict[str, OptionInfo] = {**_FIELD_INFO, **{o.name: o for o in _NOT_SIMULATABLE}}
"""Every option by name: the RuleSet fields (declaration order), then the not-simulatable rules."""

ELSEWHERE: dict[str, str] = {
    "num_players": "is a simulation setting (the number of seats), not part of the rules string (docs/rules.md §1.1)",
    "num_decks": "is a deck option: choose the deck with --deck (docs/rules.md §4.18)",
    "speed_multi_deck": "is a deck option: Speed Uno's two decks are chosen with --deck (docs/rules.md §4.18)",
    "speed_uno_deck": "is a deck option: choose it with --deck (docs/rules.md §4.18)",
    "flip": "is a deck: choose it with --deck (docs/rules.md §2)",
    "uno_flip": "is a deck: choose it with --deck (docs/rules.md §2)",
    "flip_face_pairing": "is a deck option of UNO Flip, set with --deck (docs/rules.md §2.3)",
    "flip_visible_backs": "is fixed: opponents always see the inactive faces in UNO Flip (docs/rules.md §2.4)",
    "flip_score_side": "is a scoring option handled at match level (docs/rules.md §2.11)",
    "bts_dancing_wild": "is a card of the UNO BTS deck: choose it with --deck (docs/rules.md §3.2)",
    "hp_deck": "is a deck: choose it with --deck (docs/rules.md §3.3)",
    "target_score": "is a match/scoring option, not part of the rules string (docs/rules.md §1.16)",
    "lazy_scoring": "is a match/scoring option, not part of the rules string (docs/rules.md §4.11)",
    "partners": "is a match option, not part of the rules string (docs/rules.md §1.18)",
    "rotating_partners": "is a match option, not part of the rules string (docs/rules.md §4.21)",
    "score_self_loser": "is a match/scoring option, not part of the rules string (docs/rules.md §4.20)",
    "score_lowest_wins": "is a match/scoring option, not part of the rules string (docs/rules.md §4.20)",
    "score_elimination_last_one": "is a match/scoring option, not part of the rules string (docs/rules.md §4.20)",
    "score_elimination_final_two": "is a match/scoring option, not part of the rules string (docs/rules.md §4.20)",
    "hp_challenge": "is a match/scoring option, not part of the rules string (docs/rules.md §4.20)",
    "tournament_elimination": "is a match/scoring option, not part of the rules string (docs/rules.md §4.20)",
    "dealer_selection": "is fixed: the dealer is random, equivalent to high card (docs/rules.md §1.3)",
    "uno_call_deadline": "is fixed at before_next_turn, its only value (docs/rules.md §1.12)",
    "stack_challenge_scaling": "is fixed at 'total', its only value: part of stacking (docs/rules.md §4.5)",
    "color_cycle_cw": "is fixed at red-blue-green-yellow, derived in docs/rules.md §4.13",
    "uno_center_loser_model": "is fixed at uniform: per-player reaction weights are not modelled (docs/rules.md §4.12)",
}
"""Names of docs/rules.md that are handled outside the rules string, with where they are handled."""

_ALIASES: dict[str, str] = {a: o.name for o in OPTIONS.values() for a in o.aliases}


# ------------------------------------------------------------------------------------------------
# Value handling
# ------------------------------------------------------------------------------------------------

_TRUE = {"true", "yes", "on", "1"}
_FALSE = {"false", "no", "off", "0"}


def _norm(name: str) -> str:
    """Canonical spelling of a name or choice: stripped, lower case, ``-`` -> ``_``."""
    return name.strip().lower().replace("-", "_")


def _fmt(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float):
        return repr(value)
    return str(value)


def _suggest(word: str, candidates: Iterable[str]) -> str:
    close = difflib.get_close_matches(word, list(candidates), n=1, cutoff=0.6)
    return f" (did you mean '{close[0]}'?)" if close else ""


def _unknown_message(what: str, word: str, known: Iterable[str], extra: Iterable[str] = (),
                     shown: str | None = None) -> str:
    """``shown``: the name as the user typed it (``word`` is its canonical spelling, used for suggestions)."""
    known = list(known)
    return f"unknown {what} '{shown or word}'; known: {', '.join(known)}{_suggest(word, [*known, *extra])}"


def _coerce(info: OptionInfo, value: Any) -> Any:
    """Normalise numpy scalars and choice spellings; leave anything odd for :func:`_check_value`."""
    if info.kind == "bool" and isinstance(value, np.bool_):
        return bool(value)
    if info.kind == "int" and isinstance(value, np.integer):
        return int(value)
    if info.kind == "float" and isinstance(value, (int, float, np.integer, np.floating)) \
            and not isinstance(value, (bool, np.bool_)):
        return float(value)
    if info.kind == "enum" and isinstance(value, str):
        return _norm(value)
    return value


def _check_value(info: OptionInfo, value: Any) -> None:
    bad = f"bad value {value!r} for {info.name} ({info.kind}); accepted: {info.accepted()}"
    if info.kind == "bool":
        if not isinstance(value, bool):
            raise RuleError(bad)
    elif info.kind == "enum":
        if value not in info.choices:
            raise RuleError(f"unknown value {value!r} for {info.name}; accepted: {info.accepted()}"
                            f"{_suggest(str(value), info.choices)}")
    elif info.kind == "int":
        if not isinstance(value, int) or isinstance(value, bool):
            raise RuleError(bad)
        if not (info.lo or 0) <= value <= (info.hi or 0):
            raise RuleError(f"value {value} for {info.name} out of range; accepted: {info.accepted()}")
    else:
        if not isinstance(value, float) or not math.isfinite(value):
            raise RuleError(bad)
        if not (info.lo or 0.0) <= value <= (info.hi or 0.0):
            raise RuleError(f"value {value} for {info.name} out of range; accepted: {info.accepted()}")


def _parse_value(info: OptionInfo, text: str) -> Value:
    """Turn the text of a value into the option's type (range checks included)."""
    raw = text.strip()
    if info.kind == "bool":
        low = raw.lower()
        if low in _TRUE:
            return True
        if low in _FALSE:
            return False
        raise RuleError(f"bad value '{raw}' for {info.name} (bool); accepted: true, false, yes, no, on, off, 1, 0")
    if info.kind == "enum":
        value = _norm(raw)
        if value not in info.choices:
            raise RuleError(f"unknown value '{raw}' for {info.name}; accepted: {info.accepted()}"
                            f"{_suggest(value, info.choices)}")
        return value
    if info.kind == "int":
        if not re.fullmatch(r"[+-]?\d+", raw):
            raise RuleError(f"bad value '{raw}' for {info.name} (int); accepted: {info.accepted()}")
        number: Value = int(raw)
    else:
        try:
            number = float(raw)
        except ValueError:
            raise RuleError(f"bad value '{raw}' for {info.name} (probability); "
                            f"accepted: {info.accepted()}") from None
    _check_value(info, number)
    return number


# ------------------------------------------------------------------------------------------------
# Combinations (docs/rules.md §5.2 and the dependencies stated in §4)
# ------------------------------------------------------------------------------------------------

def _conflict_stacking_deflect_two(r: RuleSet) -> str:
    if r.stacking and r.stack_draw_two and r.deflect_draw_two:
        return ("conflicting rules 'stacking' and 'deflect_draw_two': Draw Two totals cannot both add up and "
                "not add up (docs/rules.md §4.7); drop one, or set stack_draw_two=false")
    return ""


def _conflict_stacking_deflect_wd4(r: RuleSet) -> str:
    if r.stacking and r.stack_wd4 and r.deflect_wd4:
        return ("conflicting rules 'stacking' (with stack_wd4=true) and 'deflect_wd4' (docs/rules.md §4.8); drop one, "
                "or set stack_wd4=false")
    return ""


def _conflict_zero_rules(r: RuleSet) -> str:
    on = [n for n in ("seven_zero", "zero_swap_any", "speed_round_n_round") if getattr(r, n)]
    if len(on) > 1:
        return (f"conflicting rules {' and '.join(repr(n) for n in on)}: each gives the 0 its own effect "
                "(docs/rules.md §4.4, §4.18); keep at most one of seven_zero, zero_swap_any, speed_round_n_round")
    return ""


def _conflict_end_of_round(r: RuleSet) -> str:
    if r.play_to_last and r.uno_seven_rounds:
        return ("conflicting rules 'play_to_last' and 'uno_seven_rounds': they end the round in different ways "
                "(docs/rules.md §4.14, §4.15); keep one")
    return ""


def _conflict_out_of_turn(r: RuleSet) -> str:
    if r.jump_in and r.speed_exact_match:
        return ("conflicting rules 'jump_in' and 'speed_exact_match': two versions of the same out-of-turn play "
                "(docs/rules.md §4.1, §4.18); keep one")
    return ""


def _requires(r: RuleSet) -> str:
    if r.double_play_jump_in and not r.jump_in:
        return "rule 'double_play_jump_in' requires 'jump_in' (docs/rules.md §4.2); add jump_in"
    if r.speed_double_double and not r.speed_exact_match:
        return "rule 'speed_double_double' requires 'speed_exact_match' (docs/rules.md §4.18); add speed_exact_match"
    return ""


def _stacking_params(r: RuleSet) -> str:
    if not r.stacking:
        return ""
    if not (r.stack_draw_two or r.stack_wd4):
        return ("rule 'stacking' with stack_draw_two=false and stack_wd4=false stacks nothing; accepted: at least "
                "one of them true")
    if r.stack_mixed and not (r.stack_draw_two and r.stack_wd4):
        return "stack_mixed=true needs stack_draw_two=true and stack_wd4=true"
    return ""


_CONFLICTS = (_conflict_stacking_deflect_two, _conflict_stacking_deflect_wd4, _conflict_zero_rules,
              _conflict_end_of_round, _conflict_out_of_turn, _requires, _stacking_params)


# ------------------------------------------------------------------------------------------------
# Engine support gate
# ------------------------------------------------------------------------------------------------

ENGINE_SUPPORTED: set[str] = {
    # house rules
    "stacking", "seven_zero", "zero_swap_any", "draw_until_playable", "jump_in", "wd4_challenge",
    "double_play_jump_in", "deflect_skip", "deflect_draw_two", "deflect_wd4", "reverse_bounce",
    "swap_on_five", "uno_to_center", "wild_color_rotation", "play_to_last", "uno_seven_rounds",
    "zero_worth_50", "reverse_single_turn", "skip_extra_turn", "penalty_illegal_play", "penalty_hint",
    "penalty_general_mistake", "speed_round_n_round", "lazy_tie_break",
    # UNO Flip options (docs/rules.md §2)
    "flip_revealed_black_color", "flip_start_flip", "flip_last_card_executes", "flip_wd2_guilty_draw",
    "flip_wd2_innocent_draw", "flip_wdc_innocent_extra",
    # Harry Potter and UNO BTS (docs/rules.md §3.2, §3.3), Speed Uno (§4.18)
    "hp_invis_blocks", "dancing_wild_target_skips", "p_dance",
    "speed_draw_no_skip", "speed_no_wd4_out", "speed_exact_match", "speed_double_double", "speed_drop",
    # classic / base options (docs/rules.md §1)
    "hand_size", "turn_cap", "start_reverse_first", "start_wild", "start_wd4", "start_replace_any_special",
    "start_return_method", "match_action_by_symbol", "action_on_any_action", "drawn_card_play",
    "voluntary_draw", "wd4_restriction", "allow_wd4_bluff", "uno_penalty", "uno_forget_prob",
    "uno_catch_prob", "two_player_reverse_as_skip",
}
"""Top-level options (switches and base options) the compiled engine implements.

A parameter is covered by its switch: ``stacking`` covers ``stack_mixed``.  The engine author extends
this set as rules are implemented; :func:`check_engine_support` is the only place it is read.
"""


def check_engine_support(rules: RuleSet, supported: Collection[str] | None = None) -> None:
    """Raise :class:`RuleError` if ``rules`` change an option the engine does not simulate yet.

    An option counts as changed when it differs from the official default.  A parameter counts only
    while one of its switches is on (otherwise it has no effect) and is covered by that switch.
    """
    supported = ENGINE_SUPPORTED if supported is None else supported
    for name in rules.describe_changes():
        info = _FIELD_INFO[name]
        if info.groups:
            active = [g for g in info.groups if getattr(rules, g)]
            if not active or any(g in supported for g in active):
                continue
            top = _FIELD_INFO[active[0]]
        else:
            top = info
        if top.name not in supported:
            sims = ", ".join(sorted(n for n in supported if n in _FIELD_INFO and _FIELD_INFO[n].category == "house"))
            raise RuleError(f"rule '{top.name}' (docs/rules.md §{top.section}) is specified but not yet simulated by "
                            f"this engine version; simulated house rules: {sims}")


# ------------------------------------------------------------------------------------------------
# Presets
# ------------------------------------------------------------------------------------------------

@dataclass(frozen=True)
class Preset:
    """A named rule set with a one-line description."""

    name: str
    rules: RuleSet
    description: str


_EVERYTHING_EXCLUDED = {
    "deflect_draw_two": "stacking", "deflect_wd4": "stacking", "zero_swap_any": "seven_zero",
    "speed_round_n_round": "seven_zero", "speed_exact_match": "jump_in", "speed_double_double": "jump_in",
    "uno_seven_rounds": "play_to_last",
}


def _everything() -> RuleSet:
    on = {n: True for n, i in _FIELD_INFO.items()
          if i.is_switch and i.category in ("base", "house") and i.default is False
          and n not in _EVERYTHING_EXCLUDED and n in ENGINE_SUPPORTED}
    return RuleSet(**on)


def _presets() -> dict[str, Preset]:
    party = RuleSet(stacking=True, seven_zero=True, jump_in=True, draw_until_playable=True)
    speed = RuleSet(hand_size=10, uno_penalty=5, speed_draw_no_skip=True, speed_no_wd4_out=True,
                    speed_exact_match=True, speed_double_double=True, speed_drop=True, speed_round_n_round=True,
                    draw_until_playable=True)
    excluded = ", ".join(f"{k} (vs {v})" for k, v in _EVERYTHING_EXCLUDED.items())
    items = [
        Preset("official", RuleSet(), "The official rules (docs/rules.md §5.3); all house rules off. Resets every option."),
        Preset("challenges", RuleSet(),
               "Same as official: Wild Draw Four challenges are part of the official rules; how often players "
               "challenge or bluff is a policy setting."),
        Preset("stacking", RuleSet(stacking=True), "Draw Two on Draw Two and Wild Draw Four on Wild Draw Four add up "
                                                    "(docs/rules.md §4.5)."),
        Preset("seven_zero", RuleSet(seven_zero=True), "7 swaps hands with a chosen player, 0 passes all hands "
                                                        "(docs/rules.md §4.3)."),
        Preset("jump_in", RuleSet(jump_in=True), "Identical cards may be played out of turn (docs/rules.md §4.1)."),
        Preset("draw_until_playable", RuleSet(draw_until_playable=True),
               "Draw until a playable card comes up (docs/rules.md §4.17)."),
        Preset("party", party, "stacking + seven_zero + jump_in + draw_until_playable."),
        Preset("speed_uno", speed,
               "Speed Uno (docs/rules.md §4.18): 10 cards, UNO penalty 5, every speed_* sub-rule, draw until playable; "
               "the two decks are chosen with --deck."),
        Preset("speed_deal_10", RuleSet(hand_size=10), "Speed Uno sub-rule: deal 10 cards (= set(hand_size=10))."),
        Preset("speed_uno_penalty_5", RuleSet(uno_penalty=5),
               "Speed Uno sub-rule: a missed UNO costs 5 cards (= set(uno_penalty=5))."),
        Preset("wd4_black_any_time", RuleSet(wd4_restriction="none"),
               "Black cards may be laid at any time (docs/rules.md §4.23; = set(wd4_restriction=none))."),
        Preset("everything", _everything(),
               f"Every house rule this engine simulates that can be combined, with default parameters; "
               f"left out: {excluded}."),
    ]
    return {p.name: p for p in items}


PRESETS: dict[str, Preset] = _presets()
"""Named rule sets, usable as rules-string terms."""


# ------------------------------------------------------------------------------------------------
# Parsing
# ------------------------------------------------------------------------------------------------

_TERM_RE = re.compile(r"([A-Za-z0-9_-]+)\s*(?:\((.*)\))?", re.S)


def _squash(text: str) -> str:
    return " ".join(text.split())


def _split_terms(text: str) -> list[str]:
    """Split at top-level ``+``; check parentheses."""
    terms: list[str] = []
    depth = 0
    start = 0
    for i, ch in enumerate(text):
        if ch == "(":
            depth += 1
            if depth > 1:
                raise RuleError(f"nested parentheses in rules string '{_squash(text)}'; accepted: "
                                "name(key=value, ...)")
        elif ch == ")":
            depth -= 1
            if depth < 0:
                raise RuleError(f"unbalanced parentheses in rules string '{_squash(text)}': ')' without '('")
        elif ch == "+" and depth == 0:
            terms.append(text[start:i])
            start = i + 1
    if depth != 0:
        raise RuleError(f"unbalanced parentheses in rules string '{_squash(text)}': '(' without ')'")
    terms.append(text[start:])
    for n, term in enumerate(terms, 1):
        if not term.strip():
            raise RuleError(f"empty term #{n} in rules string '{_squash(text)}'; terms are joined by single '+'")
    return terms


def _split_params(term: str, inner: str) -> list[tuple[str, str]]:
    if not inner.strip():
        return []
    out: list[tuple[str, str]] = []
    for item in inner.split(","):
        key, eq, value = item.partition("=")
        if not eq or not key.strip() or not value.strip():
            shown = item.strip() or "(empty)"
            raise RuleError(f"malformed parameter '{shown}' in '{_squash(term)}'; accepted: key=value, "
                            "separated by ','")
        out.append((_norm(key), value))
    return out


def _term_names() -> list[str]:
    names = list(PRESETS)
    names += [n for n, i in _FIELD_INFO.items()
              if i.is_switch and i.category != "deck" and i.default is False and n not in PRESETS]
    return [*names, "set"]


def _all_names() -> list[str]:
    return [*OPTIONS, *_ALIASES, *ELSEWHERE, *PRESETS]


def _refuse_special(name: str) -> None:
    """Errors for names that exist in docs/rules.md but are not settable here."""
    info = OPTIONS.get(name)
    if info is not None and not info.simulatable:
        raise RuleError(f"rule '{name}' (docs/rules.md §{info.section}) is not simulatable: {info.reason}")
    if name in ELSEWHERE:
        raise RuleError(f"'{name}' {ELSEWHERE[name]}")


def _resolve_global(key: str) -> OptionInfo:
    """An option of ``set(...)``: full name or global alias."""
    key = _ALIASES.get(key, key)
    _refuse_special(key)
    if key not in _FIELD_INFO:
        raise RuleError(_unknown_message("option", key, _FIELD_INFO, _ALIASES))
    return _FIELD_INFO[key]


def _resolve_param(switch: str, key: str) -> OptionInfo:
    """A parameter written inside ``switch(...)``."""
    params = _GROUP_PARAMS.get(switch, ())
    if not params:
        raise RuleError(f"rule '{switch}' takes no parameters (got '{key}'); write '{switch}' alone")
    for p in params:
        info = _FIELD_INFO[p]
        if key == p or key in info.shorts or _ALIASES.get(key) == p:
            return info
    accepted = ", ".join(params)
    other = _FIELD_INFO.get(_ALIASES.get(key, key))
    if other is not None:
        if other.groups:
            owner = " or ".join(repr(g) for g in other.groups)
            raise RuleError(f"parameter '{key}' belongs to {owner}, not '{switch}'; '{switch}' accepts: {accepted}")
        raise RuleError(f"'{key}' is not a parameter of '{switch}' (write set({key}=...)); "
                        f"'{switch}' accepts: {accepted}")
    shorts = [s for p in params for s in _FIELD_INFO[p].shorts]
    raise RuleError(f"unknown parameter '{key}' for '{switch}'; accepted: {accepted}{_suggest(key, [*params, *shorts])}")


def _once(info: OptionInfo, key: str, term: str, seen: set[str]) -> OptionInfo:
    """Refuse an option given twice in one term (``set(a=1,a=2)``), where the last value would win silently."""
    if info.name in seen:
        raise RuleError(f"option '{key}' is given twice in '{_squash(term)}'; accepted: each option once per term")
    seen.add(info.name)
    return info


def _apply_term(values: dict[str, Value], term: str) -> None:
    m = _TERM_RE.fullmatch(term.strip())
    if m is None:
        raise RuleError(f"malformed term '{_squash(term)}'; accepted: name, name(key=value, ...) or "
                        "set(key=value, ...)")
    name, inner = _norm(m.group(1)), m.group(2)
    has_parens = inner is not None
    params = _split_params(term, inner) if has_parens else []
    seen: set[str] = set()

    if name == "set":
        if not params:
            raise RuleError(f"term '{_squash(term)}' needs parameters (it would set nothing); accepted: set(key=value, ...)")
        for key, text in params:
            info = _once(_resolve_global(key), key, term, seen)
            values[info.name] = _parse_value(info, text)
        return

    switch = _ALIASES.get(name, name)
    info = _FIELD_INFO.get(switch)
    if info is not None and info.is_switch:
        values[switch] = True
        for key, text in params:
            p = _once(_resolve_param(switch, key), key, term, seen)
            values[p.name] = _parse_value(p, text)
        return

    if name in PRESETS:
        if has_parens:
            raise RuleError(f"preset '{name}' takes no parameters; add set(key=value, ...) after it instead")
        preset = PRESETS[name].rules
        if name == "official":
            values.update(dataclasses.asdict(preset))
        else:
            values.update(preset.describe_changes())
        return

    _refuse_special(name)
    if info is not None:
        where = f"{info.group}({name}=...) or " if info.group else ""
        raise RuleError(f"'{name}' is a parameter, not a rule; write {where}set({name}=...)")
    raise RuleError(_unknown_message("rule", name, _term_names(), _all_names(), shown=m.group(1)))


def parse_rules(text: str | RuleSet, *, check_engine: bool = True) -> RuleSet:
    """Parse a rules string (see the module docstring) into a validated :class:`RuleSet`.

    With ``check_engine`` (the default) the result must also pass :func:`check_engine_support`.
    A :class:`RuleSet` is accepted as is (and checked).
    """
    if isinstance(text, RuleSet):
        rules = text
    else:
        if not isinstance(text, str):
            shown = " ".join(repr(text).split())[:60]
            raise RuleError(f"rules={shown} is not a rules string; accepted: a preset such as 'official', "
                            "or presets and options joined by '+' (see `unosim rules`)")
        if not text.strip():
            raise RuleError("empty rules string; accepted: a preset such as 'official', or terms joined by '+'")
        rules = _parse_text(text)
    if check_engine:
        check_engine_support(rules)
    return rules


@functools.lru_cache(maxsize=512)
def _parse_text(text: str) -> RuleSet:
    """The RuleSet of a rules string, parsed once per process (a RuleSet is frozen: every caller may share it;
    a parse takes about half a millisecond, and every cell of a sweep, compare or tournament parses its rules)."""
    values: dict[str, Value] = dataclasses.asdict(RuleSet())
    for term in _split_terms(text):
        _apply_term(values, term)
    return RuleSet(**values)


# ------------------------------------------------------------------------------------------------
# Text for the command line
# ------------------------------------------------------------------------------------------------

def _default_text(info: OptionInfo) -> str:
    if info.kind == "enum":
        return f"{_fmt(info.default)}  [{' | '.join(info.choices)}]"
    if info.kind in ("int", "float"):
        return f"{_fmt(info.default)}  [{info.accepted()}]"
    return _fmt(info.default)


def _marker(info: OptionInfo) -> str:
    if not info.simulatable:
        return f"  [not simulatable: {info.reason}]"
    top = info.group or info.name
    if top not in ENGINE_SUPPORTED:
        return "  [not yet simulated by this engine]"
    return ""


def _param_lines(switch: str, indent: str = "      ") -> list[str]:
    lines = []
    for p in _GROUP_PARAMS.get(switch, ()):
        info = _FIELD_INFO[p]
        lines.append(f"{indent}{p} = {_default_text(info)}  §{info.section}  {info.description}")
    return lines


def format_options_table() -> str:
    """Every option, grouped: name, parameters with defaults, description, docs/rules.md section, markers."""
    heads = {
        "base": "Classic rules (docs/rules.md §1); change them with set(key=value)",
        "house": "House rules (docs/rules.md §4); switch on by name, parameters in parentheses",
        "deck": "Deck-specific options (docs/rules.md §2, §3); effective only with that --deck",
        "info": "In docs/rules.md but not simulatable",
    }
    lines: list[str] = []
    for cat, head in heads.items():
        lines += ["", head] if lines else [head]
        for info in OPTIONS.values():
            if info.category != cat:
                continue
            if info.group is not None:
                continue  # parameters are listed under their switch
            if not info.simulatable:
                head = f"{info.name}  (§{info.section})"
            elif info.is_switch:
                head = f"{info.name}  (switch, default {'on' if info.default else 'off'}, §{info.section})"
            else:
                head = f"{info.name} = {_default_text(info)}  ({info.kind}, §{info.section})"
            lines.append(f"  {head}  {info.description}{_marker(info)}")
            lines += _param_lines(info.name)
    return "\n".join(lines)


def format_option(name: str, verbose: bool = False) -> str:
    """Full detail of one option (or preset) and the parameters of its group; ``verbose`` adds the
    engine's internals (the packed slot the option is stored in)."""
    key = _ALIASES.get(_norm(name), _norm(name))
    if key in PRESETS and (key not in _FIELD_INFO or not _FIELD_INFO[key].is_switch):
        p = PRESETS[key]
        return f"preset {key}: {p.description}\n  rules: {p.rules.to_string()}"
    if key in ELSEWHERE and key not in OPTIONS:
        return f"{key} {ELSEWHERE[key]}"
    if key not in OPTIONS:
        raise RuleError(_unknown_message("option", key, OPTIONS, [*_ALIASES, *PRESETS, *ELSEWHERE]))
    info = OPTIONS[key]
    lines = [f"{info.name}  (docs/rules.md §{info.section})", f"  {info.description}"]
    if not info.simulatable:
        lines.append(f"  not simulatable: {info.reason}")
        return "\n".join(lines)
    if info.is_switch:
        lines.append(f"  switch, default {'on' if info.default else 'off'}; "
                     f"usage: {info.name} or {info.name}(key=value, ...)")
    else:
        lines.append(f"  {info.kind}, default {_default_text(info)}; usage: set({info.name}=...)")
    if info.group:
        lines.append(f"  parameter of: {', '.join(info.groups)} (usage: {info.group}({info.name}=...))")
    if info.aliases:
        lines.append(f"  also written: {', '.join(info.aliases)}")
    if verbose:
        lines.append(f"  packed into: {info.slot}")
    if _marker(info):
        lines.append("  " + _marker(info).strip(" []"))
    params = _param_lines(info.name, indent="    ")
    if params:
        lines.append("  parameters:")
        lines += params
        shorts = [f"{s}={p}" for p in _GROUP_PARAMS[info.name] for s in _FIELD_INFO[p].shorts]
        if shorts:
            lines.append(f"  short names inside {info.name}(...): {', '.join(shorts)}")
    return "\n".join(lines)


def format_presets() -> str:
    """One block per preset: name, description and its canonical rules string."""
    lines = []
    for p in PRESETS.values():
        lines.append(f"{p.name}: {p.description}")
        lines.append(f"    {p.rules.to_string()}")
    return "\n".join(lines)
