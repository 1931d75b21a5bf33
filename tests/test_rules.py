"""Tests of unosim.ruleset.rules: the RuleSet, its packing, the rules-string language and its errors."""

from __future__ import annotations

import dataclasses
import inspect
import random
import re

import numpy as np
import pytest

from unosim.core import enums as E
from unosim.ruleset import rules as R
from unosim.ruleset.rules import OPTIONS, PRESETS, RuleError, RuleSet, parse_rules

# ---- defaults and presets -------------------------------------------------------------------------


def test_official_is_the_default() -> None:
    r = RuleSet()
    assert r.to_string() == "official"
    assert parse_rules("official") == r
    assert PRESETS["official"].rules == r
    assert PRESETS["challenges"].rules == r
    assert r.describe_changes() == {}
    assert (r.hand_size, r.turn_cap, r.uno_penalty, r.uno_forget_prob, r.uno_catch_prob) == (7, 10000, 2, 0.0, 1.0)
    assert (r.wd4_restriction, r.start_reverse_first, r.start_wild, r.start_wd4) == (
        "color", "dealer", "first_player_chooses_then_plays", "redraw")
    assert (r.wd4_challenge_guilty_draw, r.wd4_challenge_innocent_draw, r.wd4_challenge_guilty_card) == (4, 6, "stays")
    assert not any(getattr(r, n) for n, i in OPTIONS.items() if i.category == "house" and i.is_switch)


@pytest.mark.parametrize("name", list(PRESETS))
def test_preset_round_trip(name: str) -> None:
    rules = PRESETS[name].rules
    text = rules.to_string()
    assert parse_rules(text, check_engine=False) == rules
    assert parse_rules(name, check_engine=False) == rules
    assert "\n" not in PRESETS[name].description and PRESETS[name].description


def test_required_presets_exist() -> None:
    for name in ("official", "stacking", "seven_zero", "jump_in", "draw_until_playable", "challenges", "party",
                 "speed_uno", "everything"):
        assert name in PRESETS
    party = PRESETS["party"].rules
    assert party.stacking and party.seven_zero and party.jump_in and party.draw_until_playable
    speed = PRESETS["speed_uno"].rules
    assert speed.hand_size == 10 and speed.uno_penalty == 5
    assert all(getattr(speed, n) for n in OPTIONS if n.startswith("speed_") and OPTIONS[n].is_switch)


def test_everything_switches_on_all_combinable_rules() -> None:
    every = PRESETS["everything"].rules
    for name, info in OPTIONS.items():
        if not (info.is_switch and info.category in ("base", "house")):
            continue
        if getattr(every, name):
            continue
        # every switch left off must be excluded for a reason: switching it on is refused
        with pytest.raises(RuleError):
            every.replace(**{name: True})


def test_party_and_speed_uno_pass_the_engine_gate() -> None:
    assert parse_rules("party") == PRESETS["party"].rules
    assert parse_rules("speed_uno") == PRESETS["speed_uno"].rules
    with pytest.raises(RuleError, match="not yet simulated"):
        parse_rules("set(wdc_stop_on_exhaustion=false)")


def test_random_rule_sets_round_trip() -> None:
    rng = random.Random(1234)
    fields = {n: i for n, i in OPTIONS.items() if i.simulatable}
    made = 0
    for _ in range(3000):
        values: dict[str, object] = {}
        for name, info in fields.items():
            if rng.random() < 0.7:
                continue
            if info.kind == "bool":
                values[name] = rng.random() < 0.5
            elif info.kind == "enum":
                values[name] = rng.choice(info.choices)
            elif info.kind == "int":
                values[name] = rng.randint(int(info.lo or 0), min(int(info.hi or 0), 40))
            else:
                values[name] = rng.choice([0.0, 1.0, rng.random()])
        try:
            rules = RuleSet(**values)
        except RuleError:
            continue
        made += 1
        assert parse_rules(rules.to_string(), check_engine=False) == rules
    assert made > 200


# ---- packing ------------------------------------------------------------------------------------------


def test_pack_shapes_and_defaults() -> None:
    ri, rf = RuleSet().pack()
    assert ri.dtype == np.int64 and ri.shape == (E.NRI,)
    assert rf.dtype == np.float64 and rf.shape == (E.NRF,)
    assert ri[E.RI_HAND_SIZE] == 7 and ri[E.RI_TURN_CAP] == 10000 and ri[E.RI_UNO_PENALTY] == 2
    assert ri[E.RI_WD4_CHALLENGE] == 1 and ri[E.RI_CH_INNOCENT_DRAW] == 6 and ri[E.RI_STACKING] == 0
    assert rf[E.RF_UNO_FORGET_PROB] == 0.0 and rf[E.RF_UNO_CATCH_PROB] == 1.0


def test_every_slot_is_owned_by_exactly_one_option() -> None:
    slots = {n: v for n, v in vars(E).items() if re.fullmatch(r"R[IF]_[A-Z0-9_]+", n)}
    owners = [i.slot for i in OPTIONS.values() if i.slot is not None]
    assert len(owners) == len(set(owners)), "two options share a slot"
    assert set(owners) == set(slots), "every RI_/RF_ slot needs exactly one RuleSet field"
    assert all(v < E.NRI for n, v in slots.items() if n.startswith("RI_"))
    assert all(v < E.NRF for n, v in slots.items() if n.startswith("RF_"))
    assert len({v for n, v in slots.items() if n.startswith("RI_")}) == sum(n.startswith("RI_") for n in slots)
    assert [f.name for f in dataclasses.fields(RuleSet)] == [n for n, i in OPTIONS.items() if i.slot]


def test_enum_codes_match_the_comments_in_enums() -> None:
    """``RI_X = k   # 0 a, 1 b`` in enums.py documents the codes; the choices must list them in order."""
    src = inspect.getsource(E)
    for name, info in OPTIONS.items():
        if info.kind != "enum":
            continue
        m = re.search(rf"^{info.slot} = \d+\s*#\s*(.*)$", src, re.M)
        assert m, f"no code comment for {info.slot}"
        documented = re.findall(r"(?<!\w)(\d+) ([a-z_0-9]+)", m.group(1))
        assert documented, f"no codes in the comment of {info.slot}"
        for code, choice in documented:
            assert info.choices[int(code)] == choice, (name, code, choice)


def test_pack_stacking_mixed() -> None:
    ri, _ = parse_rules("stacking(stack_mixed=true)").pack()
    assert ri[E.RI_STACKING] == 1 and ri[E.RI_STACK_MIXED] == 1
    assert ri[E.RI_STACK_DRAW_TWO] == 1 and ri[E.RI_STACK_WD4] == 1 and ri[E.RI_STACK_MAX_PER_TURN] == 1


@pytest.mark.parametrize("value,code", [("color", 0), ("color_or_number", 1), ("none", 2)])
def test_pack_wd4_restriction_codes(value: str, code: int) -> None:
    ri, _ = parse_rules(f"set(wd4_restriction={value})").pack()
    assert ri[E.RI_WD4_RESTRICTION] == code


def test_pack_misc_slots() -> None:
    r = parse_rules("seven_zero(zero_pass_direction=left)+jump_in(draw_resolution=accumulate)"
                    "+wd4_challenge(guilty_card=void, guilty_draw=5)+set(uno_forget_prob=0.25, hand_size=9)")
    ri, rf = r.pack()
    assert ri[E.RI_SEVEN_ZERO] == 1 and ri[E.RI_ZERO_PASS_DIRECTION] == 1
    assert ri[E.RI_JUMP_IN] == 1 and ri[E.RI_JUMP_IN_DRAW_RESOLUTION] == 1
    assert ri[E.RI_CH_GUILTY_CARD] == 2 and ri[E.RI_CH_GUILTY_DRAW] == 5
    assert ri[E.RI_HAND_SIZE] == 9 and rf[E.RF_UNO_FORGET_PROB] == 0.25
    assert rf[E.RF_P_BEATS_SCHEDULED] == 0.5


# ---- the language ---------------------------------------------------------------------------------------


def test_syntax_examples() -> None:
    r = parse_rules("official+stacking(stack_wd4=true,stack_mixed=true)+seven_zero")
    assert r == RuleSet(stacking=True, stack_mixed=True, seven_zero=True)
    assert parse_rules("official+set(hand_size=10,uno_penalty=4)") == RuleSet(hand_size=10, uno_penalty=4)


def test_whitespace_case_and_dashes() -> None:
    a = parse_rules("  Official + STACKING ( Stack-Mixed = Yes , max-per-turn=2 )\n+ set(WD4-Restriction = Color-Or-Number)")
    assert a == RuleSet(stacking=True, stack_mixed=True, stack_max_per_turn=2, wd4_restriction="color_or_number")


def test_short_names_and_aliases() -> None:
    assert parse_rules("stacking(wd4=false)") == RuleSet(stacking=True, stack_wd4=False)
    assert parse_rules("wd4_challenge(guilty_card=returns_to_hand)") == RuleSet(
        wd4_challenge_guilty_card="returns_to_hand")
    assert parse_rules("deflect_wd4_with_draw_two", check_engine=False) == RuleSet(deflect_wd4=True)
    assert parse_rules("set(wd4_challenge_enabled=no)") == RuleSet(wd4_challenge=False)


def test_later_terms_override_earlier_ones() -> None:
    assert parse_rules("set(hand_size=5)+set(hand_size=8)").hand_size == 8
    assert parse_rules("stacking+set(stacking=false)") == RuleSet()
    # a preset applies only its own changes ...
    assert parse_rules("set(hand_size=9)+party") == PRESETS["party"].rules.replace(hand_size=9)
    # ... and `official` resets everything
    assert parse_rules("party+set(hand_size=9)+official") == RuleSet()
    # conflicts are judged on the final result, not on the way there
    assert parse_rules("stacking+set(stacking=false)+seven_zero") == RuleSet(seven_zero=True)


def test_numpy_values_and_spellings_are_normalised() -> None:
    r = RuleSet(hand_size=np.int64(8), stacking=np.bool_(True), uno_catch_prob=1, wd4_restriction="Color-Or-Number")
    assert r == RuleSet(hand_size=8, stacking=True, uno_catch_prob=1.0, wd4_restriction="color_or_number")
    assert type(r.hand_size) is int and type(r.stacking) is bool and type(r.uno_catch_prob) is float


def test_parse_accepts_a_rule_set() -> None:
    r = RuleSet(stacking=True)
    assert parse_rules(r) is r


def test_describe_changes() -> None:
    r = parse_rules("stacking(stack_mixed=true)+set(hand_size=8)")
    assert r.describe_changes() == {"hand_size": 8, "stacking": True, "stack_mixed": True}
    assert str(r) == r.to_string() == "official+stacking(stack_mixed=true)+set(hand_size=8)"


# ---- errors -------------------------------------------------------------------------------------------------

BAD = [
    # (rules string, substrings the message must contain)
    ("stakcing", ["unknown rule 'stakcing'", "did you mean 'stacking'", "known: official"]),
    ("stacking(stack_wdd4=true)", ["unknown parameter 'stack_wdd4'", "stack_wd4"]),
    ("stacking(zero_pass_direction=left)", ["'zero_pass_direction' belongs to 'seven_zero'", "stack_mixed"]),
    ("stacking(hand_size=5)", ["'hand_size'", "set(hand_size=...)"]),
    ("stacking(stack_wd4=maybe)", ["'maybe'", "stack_wd4", "true, false"]),
    ("set(uno_forget_prob=1.5)", ["1.5", "uno_forget_prob", "[0.0, 1.0]"]),
    ("set(uno_catch_prob=-0.1)", ["-0.1", "uno_catch_prob", "[0.0, 1.0]"]),
    ("set(uno_catch_prob=often)", ["'often'", "uno_catch_prob"]),
    ("set(wd4_restriction=colour)", ["'colour'", "wd4_restriction", "color, color_or_number, none",
                                     "did you mean 'color'"]),
    ("set(hand_size=0)", ["0", "hand_size", "1..30"]),
    ("set(hand_size=31)", ["31", "hand_size", "1..30"]),
    ("set(hand_size=7.5)", ["'7.5'", "hand_size", "1..30"]),
    ("set(turn_cap=0)", ["0", "turn_cap"]),
    ("set(hnd_size=3)", ["unknown option 'hnd_size'", "did you mean 'hand_size'"]),
    ("stacking+deflect_draw_two", ["'stacking'", "'deflect_draw_two'"]),
    ("stacking+deflect_wd4", ["'stacking'", "'deflect_wd4'", "stack_wd4"]),
    ("seven_zero+zero_swap_any", ["'seven_zero'", "'zero_swap_any'"]),
    ("zero_swap_any+speed_round_n_round", ["'zero_swap_any'", "'speed_round_n_round'"]),
    ("double_play_jump_in", ["'double_play_jump_in' requires 'jump_in'"]),
    ("play_to_last+uno_seven_rounds", ["'play_to_last'", "'uno_seven_rounds'"]),
    ("jump_in+speed_exact_match", ["'jump_in'", "'speed_exact_match'"]),
    ("speed_double_double", ["'speed_double_double' requires 'speed_exact_match'"]),
    ("stacking(stack_draw_two=false, stack_wd4=false)", ["stacks nothing"]),
    ("stacking(stack_wd4=true", ["unbalanced parentheses", "stacking(stack_wd4=true"]),
    ("stacking)", ["unbalanced parentheses", "')' without '('"]),
    ("stacking((a=1))", ["nested parentheses"]),
    ("official++stacking", ["empty term", "official++stacking"]),
    ("official+", ["empty term"]),
    ("", ["empty rules string"]),
    ("stacking(stack_wd4)", ["malformed parameter 'stack_wd4'", "key=value"]),
    ("stacking(stack_wd4=true,)", ["malformed parameter"]),
    ("stacking x", ["malformed term 'stacking x'"]),
    ("set", ["'set' needs parameters"]),
    ("party(hand_size=3)", ["preset 'party' takes no parameters"]),
    ("zero_swap_any(x=1)", ["'zero_swap_any' takes no parameters", "'x'"]),
    ("stack_mixed", ["'stack_mixed' is a parameter", "stacking(stack_mixed=...)"]),
    ("uno_spin", ["'uno_spin'", "not simulatable", "sectors"]),
    ("official+blank_card", ["'blank_card'", "not simulatable", "agreed effect"]),
    ("set(courtesy_ready=true)", ["'courtesy_ready'", "not simulatable"]),
    ("lazy_scoring", ["'lazy_scoring'", "match"]),
    ("set(wdc_stop_on_exhaustion=false)", ["'wdc_stop_on_exhaustion'", "not yet simulated"]),
]


@pytest.mark.parametrize("text,needles", BAD, ids=[b[0] or "<empty>" for b in BAD])
def test_bad_rules_strings(text: str, needles: list[str]) -> None:
    with pytest.raises(RuleError) as err:
        parse_rules(text)
    message = str(err.value)
    assert "\n" not in message
    assert isinstance(err.value, ValueError)
    for needle in needles:
        assert needle in message, f"{needle!r} not in {message!r}"


def test_unsupported_param_is_ignored_while_its_switch_is_off() -> None:
    # a parameter of an off switch has no effect, so the engine gate lets it through
    r = parse_rules("set(reverse_bounce_scope=draw_two_only)")
    assert r.reverse_bounce_scope == "draw_two_only" and not r.reverse_bounce
    assert parse_rules(r.to_string()) == r


def test_engine_gate_can_be_extended() -> None:
    r = parse_rules("set(wdc_stop_on_exhaustion=false)", check_engine=False)
    with pytest.raises(RuleError, match="wdc_stop_on_exhaustion"):
        R.check_engine_support(r)
    R.check_engine_support(r, supported=R.ENGINE_SUPPORTED | {"wdc_stop_on_exhaustion"})


def test_engine_supported_names_are_options() -> None:
    for name in R.ENGINE_SUPPORTED:
        assert name in OPTIONS and OPTIONS[name].group is None and OPTIONS[name].simulatable, name
    assert {"stacking", "seven_zero", "zero_swap_any", "draw_until_playable", "jump_in",
            "wd4_challenge"} <= R.ENGINE_SUPPORTED


@pytest.mark.parametrize("kwargs,needle", [
    ({"hand_size": 0}, "hand_size"),
    ({"turn_cap": 0}, "turn_cap"),
    ({"uno_forget_prob": 2.0}, "uno_forget_prob"),
    ({"uno_catch_prob": float("nan")}, "uno_catch_prob"),
    ({"stacking": 1}, "stacking"),
    ({"hand_size": True}, "hand_size"),
    ({"wd4_restriction": "colour"}, "wd4_restriction"),
    ({"stacking": True, "deflect_draw_two": True}, "deflect_draw_two"),
    ({"double_play_jump_in": True}, "jump_in"),
])
def test_rule_set_validates_on_construction(kwargs: dict[str, object], needle: str) -> None:
    with pytest.raises(RuleError) as err:
        RuleSet(**kwargs)  # type: ignore[arg-type]
    assert needle in str(err.value) and "\n" not in str(err.value)


def test_replace_validates() -> None:
    with pytest.raises(RuleError, match="hand_size"):
        RuleSet().replace(hand_size=99)
    with pytest.raises(RuleError, match="did you mean 'hand_size'"):
        RuleSet().replace(hand_sise=9)


# ---- catalogue and text ---------------------------------------------------------------------------------------


def test_catalogue_entries_are_complete() -> None:
    for name, info in OPTIONS.items():
        assert info.name == name
        assert info.kind in ("bool", "int", "float", "enum")
        assert info.description and "\n" not in info.description
        assert re.fullmatch(r"\d+(\.\d+)?", info.section), info.section
        if info.simulatable:
            assert info.slot is not None and not info.reason
            assert (info.kind == "enum") == bool(info.choices)
            if info.kind == "enum":
                assert info.default in info.choices
        else:
            assert info.reason and info.slot is None
        for g in info.groups:
            assert OPTIONS[g].is_switch
    for required in ("uno_spin", "blank_card", "courtesy_ready"):
        assert not OPTIONS[required].simulatable


def test_short_names_are_unambiguous() -> None:
    all_names = set(OPTIONS)
    aliases = [a for i in OPTIONS.values() for a in i.aliases]
    assert len(aliases) == len(set(aliases)) and not set(aliases) & all_names
    for switch in {g for i in OPTIONS.values() for g in i.groups}:
        names = [s for i in OPTIONS.values() if switch in i.groups for s in (i.name, *i.shorts)]
        assert len(names) == len(set(names)), switch


def test_format_functions() -> None:
    table = R.format_options_table()
    for name in OPTIONS:
        assert name in table
    assert "not simulatable: " in table
    detail = R.format_option("stacking")
    assert "stack_mixed" in detail and "4.5" in detail
    assert "not simulatable" in R.format_option("uno_spin")
    assert "stacking" in R.format_option("party")
    with pytest.raises(RuleError, match="did you mean 'stacking'"):
        R.format_option("stakcing")
    presets = R.format_presets()
    for name, preset in PRESETS.items():
        assert name in presets and preset.rules.to_string() in presets


def test_a_rules_string_is_parsed_once_and_shared_safely():
    """Every cell of a sweep, compare or tournament parses its rules: the parse is kept per string.  The shared
    RuleSet is frozen, so no caller can change it for another, and a refused string is refused every time."""
    a, b = parse_rules("official+stacking"), parse_rules("official+stacking")
    assert a is b and a.stacking and parse_rules("official") is not a
    with pytest.raises(dataclasses.FrozenInstanceError):
        a.stacking = False  # type: ignore[misc]
    for _ in range(2):
        with pytest.raises(RuleError):
            parse_rules("official+nonsense")
