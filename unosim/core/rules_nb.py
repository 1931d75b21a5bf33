"""The rules of a round, unpacked once per batch (rules_nb) from the packed options ri / rf
(unosim.running.sim.pack_rules) into every switch the round reads (layout's R_* and RD_*), and the questions a
kernel asks of them: what a rank does under the swap rules, which cards may jump in, which may answer an attack.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from .enums import *  # noqa: F403  (kernels read the integer constants as globals)
from .layout import *  # noqa: F403  (the kernels read the slots and switches as globals)
from .layout import _DRAW_N, _IS_WDRAW


@njit(cache=True, _nrt=False)
def rules_nb(ri, rf, R, RD):
    """Fill R (NR entries) and RD (NRD) from the packed rule options ri / rf."""
    for k in range(NR):
        R[k] = 0
    R[R_HAND_SIZE] = ri[RI_HAND_SIZE]
    R[R_CAP] = ri[RI_TURN_CAP]
    R[R_BY_SYMBOL] = ri[RI_MATCH_ACTION_BY_SYMBOL] != 0
    R[R_ANY_ACTION] = ri[RI_ACTION_ON_ANY_ACTION] != 0
    R[R_RESTRICTION] = ri[RI_WD4_RESTRICTION]
    R[R_DRAWN_FORCED] = ri[RI_DRAWN_CARD_PLAY] == 1
    R[R_DUP] = ri[RI_DRAW_UNTIL_PLAYABLE] != 0
    R[R_DUP_MUST] = ri[RI_DUP_MUST_PLAY_FOUND] != 0
    R[R_REV_AS_SKIP] = ri[RI_TWO_PLAYER_REVERSE_AS_SKIP] != 0
    R[R_CHALLENGE] = ri[RI_WD4_CHALLENGE] != 0
    R[R_BLUFF_OK] = ri[RI_WD4_CHALLENGE] != 0 and ri[RI_ALLOW_WD4_BLUFF] != 0
    R[R_CH_GUILTY_DRAW] = ri[RI_CH_GUILTY_DRAW]
    R[R_CH_INNOCENT_DRAW] = ri[RI_CH_INNOCENT_DRAW]
    R[R_CH_GUILTY_CARD] = ri[RI_CH_GUILTY_CARD]
    R[R_CH_OFFENDER_SKIPS] = ri[RI_CH_GUILTY_OFFENDER_SKIPS] != 0
    R[R_CH_SUCCESS_PLAYS] = ri[RI_CH_SUCCESS_CHALLENGER_PLAYS] != 0
    R[R_CH_INNOCENT_SKIPS] = ri[RI_CH_INNOCENT_CHALLENGER_SKIPS] != 0
    R[R_CH_LAST_CARD] = ri[RI_CHALLENGE_LAST_CARD_WD4] != 0
    R[R_WD2_GUILTY] = ri[RI_FLIP_WD2_GUILTY_DRAW]
    R[R_WD2_INNOCENT] = ri[RI_FLIP_WD2_INNOCENT_DRAW]
    R[R_WDC_EXTRA] = ri[RI_FLIP_WDC_INNOCENT_EXTRA]
    R[R_FLIP_LAST_EXEC] = ri[RI_FLIP_LAST_CARD_EXECUTES] != 0
    R[R_FLIP_FREE] = ri[RI_FLIP_REVEALED_BLACK_COLOR] == 1
    R[R_DANCE_SKIPS] = ri[RI_BTS_DANCING_TARGET_SKIPS] != 0
    R[R_SPEED_NO_SKIP] = ri[RI_SPEED_DRAW_NO_SKIP] != 0
    R[R_NO_WD4_OUT] = ri[RI_SPEED_NO_WD4_OUT] != 0
    R[R_UNO_PEN] = ri[RI_UNO_PENALTY]
    R[R_STACKING] = ri[RI_STACKING] != 0
    R[R_ST_D2] = ri[RI_STACK_DRAW_TWO] != 0
    R[R_ST_MIXED] = ri[RI_STACK_MIXED] != 0
    R[R_ST_MAX] = ri[RI_STACK_MAX_PER_TURN]
    R[R_ST_FINAL_SKIPS] = ri[RI_STACK_FINAL_VICTIM_SKIPS] != 0
    R[R_ST_COLOR_FIRST] = ri[RI_STACK_COLOR_BY] == 1
    _jump_rules(ri, rf, R, RD)
    _swap_rules(ri, R)
    R[R_VOLUNTARY] = ri[RI_VOLUNTARY_DRAW] != 0
    R[R_COLOR_ROTATION] = ri[RI_WILD_COLOR_ROTATION] != 0
    R[R_PLAY_TO_LAST] = ri[RI_PLAY_TO_LAST] != 0
    R[R_PTL_TWO_PLAYER] = ri[RI_PLAY_TO_LAST_TWO_PLAYER_RULES] != 0
    R[R_SEVEN_ROUNDS] = ri[RI_UNO_SEVEN_ROUNDS] != 0
    R[R_REFILL_START] = ri[RI_REFILL_START]
    R[R_UNO_CENTER] = ri[RI_UNO_TO_CENTER] != 0
    R[R_CENTER_PEN] = ri[RI_UNO_CENTER_PENALTY]
    R[R_SKIP_EXTRA] = ri[RI_SKIP_EXTRA_TURN] != 0
    R[R_REV_SINGLE] = ri[RI_REVERSE_SINGLE_TURN] != 0
    R[R_RB_REBOUNCE] = ri[RI_RB_REBOUNCE] != 0
    R[R_RB_VICTIM_SKIPS] = ri[RI_RB_VICTIM_SKIPS] != 0
    R[R_Z50] = (1 + ri[RI_ZERO50_CONDITION]) if ri[RI_ZERO_WORTH_50] != 0 else 0
    R[R_LAZY_RANDOM] = ri[RI_LAZY_TIE_BREAK] == 0
    R[R_ILLEGAL_PEN] = ri[RI_ILLEGAL_PENALTY]
    R[R_START_REPLACE_SPECIAL] = ri[RI_START_REPLACE_ANY_SPECIAL] != 0
    R[R_START_WILD_REDRAW] = ri[RI_START_WILD] == 1
    R[R_START_WD4_REDRAW] = ri[RI_START_WD4] == 0
    R[R_START_FLIP_REDRAW] = ri[RI_FLIP_START_FLIP] == 1
    R[R_START_RETURN_MIDDLE] = ri[RI_START_RETURN_METHOD] == 1
    R[R_START_REVERSE_FIRST] = ri[RI_START_REVERSE_FIRST] != 0
    RD[RD_P_DANCE] = rf[RF_P_DANCE]
    RD[RD_P_FORGET] = rf[RF_UNO_FORGET_PROB]
    RD[RD_P_CATCH] = rf[RF_UNO_CATCH_PROB]
    RD[RD_P_MISTAKE] = rf[RF_P_MISTAKE] if ri[RI_PENALTY_GENERAL_MISTAKE] != 0 else 0.0
    RD[RD_P_HINT] = rf[RF_P_HINT] if ri[RI_PENALTY_HINT] != 0 else 0.0
    RD[RD_P_ILLEGAL] = rf[RF_P_ILLEGAL_ATTEMPT] if ri[RI_PENALTY_ILLEGAL_PLAY] != 0 else 0.0
    RD[RD_P_DETECT] = rf[RF_P_DETECT]
    R[R_PENALTIES] = RD[RD_P_MISTAKE] > 0.0 or RD[RD_P_HINT] > 0.0 or RD[RD_P_ILLEGAL] > 0.0
    R[R_UNO_CALLS] = RD[RD_P_FORGET] > 0.0 or R[R_UNO_CENTER] != 0
    R[R_RESP] = _response_rules(ri)
    _fast_rules(R, RD)


@njit(cache=True, _nrt=False)
def _jump_rules(ri, rf, R, RD):
    """Jump-in (docs/rules.md 4.1, 4.2) and Speed Uno's exact match and drop (4.18), which are jump-in with
    rules of their own: an exact match's wilds, draw cards matched only under Double-Double (then they add
    up); a drop lays further identical cards at once (successive exact matches)."""
    R[R_JUMP_IN] = ri[RI_JUMP_IN] != 0
    R[R_JUMP_WILD] = ri[RI_JUMP_IN_ALLOW_WILD] != 0
    R[R_JUMP_WD4] = ri[RI_JUMP_IN_ALLOW_WD4] != 0
    R[R_JUMP_ACCUMULATE] = ri[RI_JUMP_IN_DRAW_RESOLUTION] == 1
    R[R_DOUBLE_JUMP] = ri[RI_DOUBLE_PLAY_JUMP_IN] != 0
    RD[RD_P_BEATS] = rf[RF_P_BEATS_SCHEDULED]
    RD[RD_P_SELF_JUMP] = rf[RF_P_SELF_JUMP_WINS]
    if ri[RI_SPEED_EXACT_MATCH] != 0:
        R[R_JUMP_IN] = 1
        R[R_JUMP_WILD] = ri[RI_SPEED_EXACT_MATCH_WILDS] != 1
        R[R_JUMP_WD4] = ri[RI_SPEED_EXACT_MATCH_WILDS] == 2
        R[R_JUMP_ACCUMULATE] = 1
    R[R_EXACT_DRAWS] = ri[RI_SPEED_EXACT_MATCH] == 0 or ri[RI_SPEED_DOUBLE_DOUBLE] != 0
    if ri[RI_SPEED_DROP] != 0:
        R[R_DOUBLE_JUMP] = 1
        RD[RD_P_SELF_JUMP] = 1.0
    R[R_JUMP_RULES] = R[R_JUMP_IN] != 0 or R[R_DOUBLE_JUMP] != 0


@njit(cache=True, _nrt=False)
def _swap_rules(ri, R):
    """The number cards that swap or pass hands: 7-0 (docs/rules.md 4.3), 0 with anyone, Speed Uno's
    Round-n-Round, swap_on_five."""
    R[R_SEVEN_ZERO] = ri[RI_SEVEN_ZERO] != 0
    R[R_ZERO_LEFT] = ri[RI_ZERO_PASS_DIRECTION] == 1
    R[R_SEVEN_MANDATORY] = ri[RI_SEVEN_SWAP_MANDATORY] != 0
    R[R_ZERO_SWAP_ANY] = ri[RI_ZERO_SWAP_ANY] != 0
    R[R_ROUND_N_ROUND] = ri[RI_SPEED_ROUND_N_ROUND] != 0
    R[R_SWAP_FIVE] = ri[RI_SWAP_ON_FIVE] != 0
    R[R_SWAP5_WHOLE] = ri[RI_SWAP5_MODE] == 1
    R[R_SWAP5_OPTIONAL] = ri[RI_SWAP5_OPTIONAL] != 0
    R[R_SWAPS] = R[R_SEVEN_ZERO] != 0 or R[R_ZERO_SWAP_ANY] != 0 or R[R_SWAP_FIVE] != 0 or R[R_ROUND_N_ROUND] != 0


@njit(cache=True, _nrt=False)
def _response_rules(ri):
    """The response-window switches (RESP_* bits): what may answer a pending attack."""
    resp = 0
    if ri[RI_STACKING] != 0:
        resp |= RESP_STACKING | (RESP_STACK_D2 if ri[RI_STACK_DRAW_TWO] != 0 else 0) \
            | (RESP_STACK_WD4 if ri[RI_STACK_WD4] != 0 else 0) | (RESP_STACK_MIXED if ri[RI_STACK_MIXED] != 0 else 0)
    if ri[RI_DEFLECT_SKIP] != 0:
        resp |= RESP_DEFLECT_SKIP
    if ri[RI_DEFLECT_DRAW_TWO] != 0:
        resp |= RESP_DEFLECT_D2
    if ri[RI_DEFLECT_WD4] != 0:
        resp |= RESP_DEFLECT_WD4
    if ri[RI_REVERSE_BOUNCE] != 0:
        resp |= RESP_BOUNCE | (RESP_BOUNCE_ANY if ri[RI_RB_SCOPE] == 0 else 0) \
            | (RESP_BOUNCE_COLOR if ri[RI_RB_REQUIRES_COLOR] != 0 else 0)
    if ri[RI_HP_INVIS_BLOCKS] != 0:
        resp |= RESP_INVIS
    return resp


@njit(cache=True, _nrt=False)
def _fast_rules(R, RD):
    """Whether the fast turns may play the common turns (_fast_turns_nb: no double play, turn penalty or
    Speed Uno rule, a Skip or Reverse with its plain effect), and the switches they read."""
    R[R_FAST] = not (R[R_PENALTIES] or R[R_DOUBLE_JUMP] or R[R_NO_WD4_OUT] or R[R_SKIP_EXTRA]
                     or R[R_REV_SINGLE] or R[R_SPEED_NO_SKIP])
    R[R_FFLAGS] = (FAST_BY_SYMBOL if R[R_BY_SYMBOL] else 0) | (FAST_ANY_ACTION if R[R_ANY_ACTION] else 0) \
        | (FAST_BLUFF_OK if R[R_BLUFF_OK] else 0) | (FAST_DUP if R[R_DUP] else 0) \
        | (FAST_DUP_MUST if R[R_DUP_MUST] else 0) | (FAST_DRAWN_FORCED if R[R_DRAWN_FORCED] else 0) \
        | (FAST_COLOR_ROTATION if R[R_COLOR_ROTATION] else 0) \
        | (FAST_UNO_QUIET if (RD[RD_P_FORGET] <= 0.0 and not R[R_UNO_CENTER]) else 0) \
        | (FAST_VOLUNTARY if R[R_VOLUNTARY] else 0) | (FAST_SWAPS if R[R_SWAPS] else 0) \
        | (FAST_JUMP if R[R_JUMP_IN] else 0) | (R[R_RESP] << FAST_RESP_SHIFT)


@njit(cache=True)
def new_rules_nb(ri, rf):
    """R and RD (rules_nb) in new arrays."""
    R = np.zeros(NR, np.int64)
    RD = np.zeros(NRD, np.float64)
    rules_nb(ri, rf, R, RD)
    return R, RD


@njit(cache=True, _nrt=False)
def _answer_mask(pend_kind, top_rank, resp):
    """The card-mask bits (card_masks_nb) of every card that may answer a pending attack of kind
    ``pend_kind`` (a coloured draw card, or SKIP) laid as a card of rank ``top_rank`` under the
    response-window switches ``resp`` (_response_priority's flags): a stack or deflection of the same rank
    (a Skip deflects only a Skip, not a Reverse that skips with two players: docs/rules.md 4.6), a Wild Draw
    Four stacked on it, a bounce with a Reverse, Harry Potter's Invisibility Wild (any black card: a
    superset, which is all it needs to be).  A victim whose hand meets none of them is not asked
    (_response_choice)."""
    m = 0
    if pend_kind == SKIP:
        if resp & 16 and top_rank == SKIP:
            m |= 1 << (CM_RANK0 + SKIP)
        if (resp & 384) == 384:
            m |= 1 << (CM_RANK0 + REVERSE)
    elif _IS_WDRAW[pend_kind]:
        # a wild draw card: a coloured draw card stacked on it (stack_mixed) or deflecting it (deflect_wd4), a
        # wild draw card stacked on it, a bounce with a Reverse (bouncing any action)
        if (resp & 9) == 9 or resp & 64:
            m |= CM_COLORED_DRAWS
        if (resp & 5) == 5:
            m |= CM_WDRAW
        if (resp & 384) == 384:
            m |= 1 << (CM_RANK0 + REVERSE)
    else:
        if (resp & 3) == 3 or resp & 32:
            m |= 1 << (CM_RANK0 + pend_kind)
        if (resp & 9) == 9:
            m |= CM_WDRAW
        if resp & 128:
            m |= 1 << (CM_RANK0 + REVERSE)
    if resp & 1024:
        m |= CM_BLACK
    return m


@njit(cache=True, _nrt=False, inline="always")
def _jumpable(col, rk, R):
    """Whether a card of colour ``col`` and rank ``rk`` just laid opens the jump-in window (docs/rules.md 4.1,
    4.2): a coloured card, a Wild or Wild Draw Four where jump_in_allow_wild / _wd4 say so, a draw card
    unless Speed Uno's exact match leaves them out."""
    return ((col != BLACK) or (rk == WILD and R[R_JUMP_WILD] != 0)
            or (rk == WD4 and R[R_JUMP_WD4] != 0)) and (R[R_EXACT_DRAWS] != 0 or _DRAW_N[rk] == 0)


SWAP_NONE = 0   # _swap_rule: the card swaps nothing
SWAP_PASS = 1   # every hand passes to the next seat (a 0 under seven_zero or Round-n-Round)
SWAP_SEAT = 2   # the player swaps with a seat it picks


@njit(cache=True, _nrt=False)
def _swap_rule(rk, R):
    """What a number card of rank rk does under the swap rules (docs/rules.md 4.3, 4.4, 4.10, 4.18): (SWAP_*, whether
    the swap may go to nobody, whether whole hands change places)."""
    if rk == 0 and (R[R_SEVEN_ZERO] or R[R_ROUND_N_ROUND]):
        return SWAP_PASS, False, True
    if rk == 7 and R[R_SEVEN_ZERO]:
        return SWAP_SEAT, R[R_SEVEN_MANDATORY] == 0, True
    if rk == 0 and R[R_ZERO_SWAP_ANY]:
        return SWAP_SEAT, True, True
    if rk == 5 and R[R_SWAP_FIVE]:
        return SWAP_SEAT, R[R_SWAP5_OPTIONAL] != 0, R[R_SWAP5_WHOLE] != 0
    return SWAP_NONE, False, False


@njit(cache=True, _nrt=False)
def _swap_card(rk, R):
    """Whether a number card of rank rk may swap or pass hands under these rules."""
    return (rk == 7 and R[R_SEVEN_ZERO] != 0) or (rk == 0 and (R[R_SEVEN_ZERO] != 0 or R[R_ROUND_N_ROUND] != 0
                                                              or R[R_ZERO_SWAP_ANY] != 0)) \
        or (rk == 5 and R[R_SWAP_FIVE] != 0)
