"""Where a round keeps its state: the slots of ``st`` (ST_*), of the per-round results ``res`` (RES_*) and of
the unpacked rules ``R`` / ``RD`` (R_*, RD_*), the switches the fast turns read (FAST_*), the response window's
switches (RESP_*), the card-mask bits (CM_*) and the rank tables the kernels read (``_DRAW_N``, ``_IS_WDRAW`` ...).

Every kernel module imports this one first, so importing it installs numba's IR inliner without its quadratic
copy (``inline_patch``: ~15% off the cold compile) and drops cached kernels whose sources changed
(``cache_guard``: numba does not see edits of the constants a kernel reads), before any kernel loads.
"""

from __future__ import annotations

import numpy as np

from . import cache_guard as _cache_guard
from . import inline_patch as _inline_patch
from .enums import *  # noqa: F403  (kernels read the integer constants as globals)

_inline_patch.install()  # numba's IR inliner without its quadratic copy: ~15% off the cold compile
_cache_guard.drop_stale_kernels()  # before any kernel loads its cached code: numba does not see edits of enums

# ---- scalar state slots (st) ------------------------------------------------------------------------
ST_PILE_N = 0
ST_DISC_N = 1
ST_RESHUF = 2
ST_DRAWN = 3
ST_LOG_N = 4
ST_SCRIPT_POS = 5
ST_ERR = 6          # 1 a refused or missing scripted answer, 2 a policy answered out of range
ST_ERR_KIND = 7     # policy error: the decision (D_*), the bad value and the seat
ST_ERR_VAL = 8
ST_ERR_SEAT = 9
# control slots, set by the caller and kept by play_round_nb (it clears only the slots above)
ST_MODE = 10        # bit 0: save a snapshot at every normal-turn play decision; bit 1: resume from one
ST_FORCE_N = 11     # POL_FORCED: answers queued for the first decisions of the forced seat (at most NFORCE)
ST_FORCE_POS = 12   # POL_FORCED: answers used so far
ST_FORCE_BASE = 13  # POL_FORCED: the policy (POL_RANDOM / POL_GREEDY) the seat plays after its answers
ST_FORCE = 14       # POL_FORCED: (decision kind, answer) pairs at ST_FORCE + 2k
NFORCE = 4          # answers the forced queue holds
ST_SNAP = ST_FORCE + 2 * NFORCE  # the round's state (ST_SIDE ...), NSNAP slots
NSNAP = 25
ST_VOID = ST_SNAP + NSNAP  # per seat: the colours it showed it lacks (bits 0-3), the side then (bit 4) and 1 + the
#                            rank of which it showed it holds no coloured card (bits 5-9; 0 none), all + 1; 0 =
#                            nothing known.  Cleared when the seat receives a card (enums.OBS_VOIDS, OBS_RANK_VOIDS)
ST_HELD_ON = ST_VOID + MAXP  # 1: the cards held are counted by kind (the jump-in window reads them)
ST_HELD = ST_HELD_ON + 1     # per kind (colour * NRANKS + rank on the active side): the cards of it in all hands
NST = ST_HELD + NKINDS
MODE_SNAPSHOT = 1   # no fast turns (a paused round's arrays are those of its big loop)
MODE_RESUME = 2     # resume a round paused at a normal-turn play decision, at that decision
MODE_STEP = 4       # play one step: stop at the top of the next turn step (END_STEP); a new round stops after its start
MODE_CONTINUE = 8   # the arrays are a round stopped at a step's boundary (MODE_STEP): go on from there
END_STEP = 5        # res[RES_END] of a round stopped by MODE_STEP (never in records)
# the rule switches _fast_turns_nb reads, as bits of one argument
FAST_BY_SYMBOL = 1
FAST_ANY_ACTION = 2
FAST_BLUFF_OK = 4
FAST_DUP = 8
FAST_DUP_MUST = 16
FAST_DRAWN_FORCED = 32
FAST_COLOR_ROTATION = 64
FAST_UNO_QUIET = 128
FAST_REV_SKIPS = 256
FAST_OBS = 512          # a seat reads the observation: keep its header, played-card counts and seen bits
FAST_VOLUNTARY = 1024   # voluntary_draw: a player holding a legal card may draw instead
FAST_SWAPS = 2048       # some number card swaps or passes hands (R_SWAPS): _swap_builtin, _fast_swap
FAST_JUMP = 4096        # jump-in (R_JUMP_IN, no double play): keep the counts of the cards held (ST_HELD)
FAST_RESP_SHIFT = 13    # bits 13-23: the response-window switches (resp_flags, see _response_priority)
FAST_RESP_MIN = 1 << FAST_RESP_SHIFT  # fflags >= FAST_RESP_MIN: some attack may be answered

# ---- per-round results (res) ------------------------------------------------------------------------
RES_WINNER = 0
RES_TURNS = 1
RES_WPTS = 2
RES_DRAWN = 3
RES_END = 4
RES_RESHUF = 5
RES_CHALLENGES = 6
RES_STACK_MAX = 7
RES_SWAPS = 8
RES_JUMPS = 9
RES_UNO_CAUGHT = 10
RES_FLIPS = 11
RES_LOSER = 12       # play_to_last: the last player holding cards
RES_COLOR = 13       # current colour at the end
RES_DIRECTION = 14   # direction at the end
RES_NEXT = 15        # seat that would act next
RES_SIDE = 16        # active side at the end (UNO Flip)
RES_HPTS = 18        # per seat: the points left in its hand at the end (seat_points_nb), MAXP slots
NRES = RES_HPTS + MAXP
NEXTRA = 7           # res[RES_CHALLENGES:RES_CHALLENGES+NEXTRA] go to the per-round records

# Greedy tie order among equal-point cards (a policy rule, not a game rule): every coloured draw card
# (Draw Two, Draw One, Draw Five, Draw Three) > Reverse > Skip = Skip Everyone > Flip > numbers.
_SYM_PRI = np.zeros(NRANKS, np.int64)
for _r in (DRAW2, DRAW1, DRAW5, DRAW3):
    _SYM_PRI[_r] = 4
_SYM_PRI[REVERSE] = 3
_SYM_PRI[SKIP] = 2
_SYM_PRI[SKIP_ALL] = 2
_SYM_PRI[FLIP] = 1

# Cards drawn by the victim of each rank (0: not a draw card).  Wild Draw Colour draws until the
# named colour appears: _DRAW_N = 0 there and _IS_WDRAW marks it.
_DRAW_N = np.zeros(NRANKS, np.int64)
_DRAW_N[DRAW2] = 2
_DRAW_N[WD4] = 4
_DRAW_N[DRAW1] = 1
_DRAW_N[DRAW5] = 5
_DRAW_N[WILD_DRAW2] = 2
_DRAW_N[DRAW3] = 3
_DRAW_N[DANCING_WILD] = 3  # UNO BTS: the target dances (p_dance) or draws 3
# the ranks only black cards have (every deck's ranks are either coloured or black)
_BLACK_RANK = np.zeros(NRANKS, np.bool_)
for _r in (WILD, WD4, WILD_DRAW2, WILD_DRAW_COLOR, HOWLER, INVIS_WILD, DANCING_WILD):
    _BLACK_RANK[_r] = True
# _void_bits: 1 where a seat's void record's rank field (1 + rank; 0 none) names a coloured rank
_RANK_VOID_OK = np.zeros(32, np.int64)
for _r in range(NRANKS):
    _RANK_VOID_OK[_r + 1] = 0 if _BLACK_RANK[_r] else 1
# restricted wild draws: legal only without a card of the current colour; challengeable
_IS_WDRAW = np.zeros(NRANKS, np.bool_)
_IS_WDRAW[WD4] = True
_IS_WDRAW[WILD_DRAW2] = True
_IS_WDRAW[WILD_DRAW_COLOR] = True
# attacks that hit the next player with a draw
_IS_ATTACK = np.zeros(NRANKS, np.bool_)
for _r in (DRAW2, WD4, DRAW1, DRAW5, WILD_DRAW2, WILD_DRAW_COLOR, DRAW3, DANCING_WILD):
    _IS_ATTACK[_r] = True

# wild_color_rotation (docs/rules.md 4.13): clockwise red -> blue -> green -> yellow -> red
_ROT_CW = np.array([BLUE, RED, YELLOW, GREEN], np.int64)    # indexed by the current colour
_ROT_CCW = np.array([YELLOW, GREEN, BLUE, RED], np.int64)


# ================================================================================================
# The round's state.  Everything a round carries from one step to the next lives in named slots of st,
# beside the piles' counters: a round is its arrays (hand, hlen, pile, disc, active, res, obs, rng) and
# st, and nothing else.  A round paused at a normal-turn play decision (a plain-Python seat without an
# answer, st[ST_ERR] = 3) is resumed from copies of them with st[ST_MODE] = MODE_RESUME: play_round_nb
# continues at that decision (unosim.players.lookahead plays its rollouts this way).
# ================================================================================================
ST_SIDE = ST_SNAP + 0             # active side (UNO Flip)
ST_P = ST_SNAP + 1                # the scheduled player
ST_D = ST_SNAP + 2                # direction of play, 1 or -1
ST_CUR = ST_SNAP + 3              # current colour (-1: anything may follow)
ST_PEND_KIND = ST_SNAP + 4        # pending attack on ST_P: the attacking card's rank (SKIP, DRAW2, WD4 ...) or -1
ST_PEND_N = ST_SNAP + 5           # cards it makes the victim draw
ST_PEND_FROM = ST_SNAP + 6        # who played it
ST_PEND_GUILTY = ST_SNAP + 7      # the last Wild Draw Four broke the restriction
ST_PEND_PREV_COLOR = ST_SNAP + 8  # the colour before the last Wild Draw Four
ST_PEND_STACKED = ST_SNAP + 9     # cards in the current stack chain
ST_SKIP_NEXT = ST_SNAP + 10       # bit mask of the seats that lose their next turn (a challenge option)
ST_TURNS = ST_SNAP + 11           # turns so far
ST_WINNER = ST_SNAP + 12          # the winner (play_to_last: the first seat out), or -1
ST_LOSER = ST_SNAP + 13           # play_to_last: the last seat holding cards, or -1
ST_LAST_ACTOR = ST_SNAP + 14      # who laid the top card
ST_NO_RESPONSE = ST_SNAP + 15     # the pending attack simply happens (a starting card's; a bounce, rebounce off)
ST_PEND_BOUNCED = ST_SNAP + 16    # the pending attack was bounced back (reverse_bounce)
ST_PEND_NOSKIP = ST_SNAP + 17     # the bounced victim draws but keeps the turn (reverse_bounce_victim_skips off)
ST_CONT_STACK = ST_SNAP + 18      # stack_max_per_turn > 1: the stacker may lay another card
ST_STACK_COUNT = ST_SNAP + 19     # cards the stacker laid in this turn
ST_REVERT_DIR = ST_SNAP + 20      # reverse_single_turn: the direction returns after one turn
ST_COLOR_TURN = ST_SNAP + 21      # speed_draw_no_skip: this turn must match the colour (or be black)
ST_JUST_PLAYED = ST_SNAP + 22     # a card was just laid: the jump-in window is open
ST_N_ACTIVE = ST_SNAP + 23        # seats still in the round
ST_N_SEATED = ST_SNAP + 24        # seats in the match


# ================================================================================================
# The rules of a round, unpacked once per batch (rules_nb) from the packed options ri / rf
# (unosim.running.sim.pack_rules) into every switch the round reads: R_* (integers, 0/1 for a switch) and RD_*
# (probabilities).  Read-only during a round.
# ================================================================================================
R_HAND_SIZE = 0
R_CAP = 1                   # turn cap
R_BY_SYMBOL = 2             # match_action_by_symbol
R_ANY_ACTION = 3            # action_on_any_action
R_RESTRICTION = 4           # the Wild Draw Four restriction: 0 colour, 1 colour or symbol, 2 none
R_DRAWN_FORCED = 5          # a playable drawn card must be played
R_DUP = 6                   # draw_until_playable
R_DUP_MUST = 7              # ... and the card found must be played
R_REV_AS_SKIP = 8           # two players: a Reverse acts as a Skip
R_CHALLENGE = 9             # Wild Draw Four challenges
R_BLUFF_OK = 10             # an illegal Wild Draw Four may be played as a bluff
R_CH_GUILTY_DRAW = 11
R_CH_INNOCENT_DRAW = 12
R_CH_GUILTY_CARD = 13       # 0 stays, 1 back to the offender, 2 void (beneath the card before it)
R_CH_OFFENDER_SKIPS = 14
R_CH_SUCCESS_PLAYS = 15     # a successful challenger then takes a normal turn
R_CH_INNOCENT_SKIPS = 16
R_CH_LAST_CARD = 17         # a Wild Draw Four going out may be challenged
R_WD2_GUILTY = 18           # UNO Flip's Wild Draw Two and Wild Draw Colour challenges
R_WD2_INNOCENT = 19
R_WDC_EXTRA = 20
R_FLIP_LAST_EXEC = 21       # a Flip going out is carried out
R_FLIP_FREE = 22            # a revealed wild: anything may follow (else the Flip player names a colour)
R_DANCE_SKIPS = 23          # UNO BTS: the dancing target loses the turn
R_SPEED_NO_SKIP = 24        # Speed Uno: a draw victim keeps the turn (colour only)
R_NO_WD4_OUT = 25           # Speed Uno: no going out on a Wild Draw Four
R_UNO_PEN = 26              # cards for a missed UNO call
R_STACKING = 27
R_ST_D2 = 28
R_ST_MIXED = 29
R_ST_MAX = 30               # cards a stacker may lay in one turn
R_ST_FINAL_SKIPS = 31       # the victim of a stack of two or more also loses the turn
R_ST_COLOR_FIRST = 32       # the first Wild Draw Four of a stack names the colour
R_JUMP_IN = 33
R_JUMP_WILD = 34
R_JUMP_WD4 = 35
R_JUMP_ACCUMULATE = 36      # a jump-in on a draw card adds to the pending draw
R_DOUBLE_JUMP = 37          # the player may lay an identical second card at once
R_EXACT_DRAWS = 38          # draw cards may be jumped on
R_JUMP_RULES = 39           # R_JUMP_IN or R_DOUBLE_JUMP: the jump-in window opens
R_SEVEN_ZERO = 40
R_ZERO_LEFT = 41            # a 0 passes hands to the left whatever the direction
R_SEVEN_MANDATORY = 42
R_ZERO_SWAP_ANY = 43
R_ROUND_N_ROUND = 44
R_SWAP_FIVE = 45
R_SWAP5_WHOLE = 46          # a 5 swaps whole hands (else one card each)
R_SWAP5_OPTIONAL = 47
R_SWAPS = 48                # some number card swaps or passes hands
R_VOLUNTARY = 49            # a player holding a legal card may draw instead
R_COLOR_ROTATION = 50
R_PLAY_TO_LAST = 51
R_PTL_TWO_PLAYER = 52       # play_to_last: two players left play by the two-player rules
R_SEVEN_ROUNDS = 53
R_REFILL_START = 54
R_UNO_CENTER = 55
R_CENTER_PEN = 56
R_SKIP_EXTRA = 57
R_REV_SINGLE = 58
R_RB_REBOUNCE = 59
R_RB_VICTIM_SKIPS = 60
R_Z50 = 61                  # zero_worth_50: 0 off, else 1 + its condition (seat_points_nb)
R_PENALTIES = 62            # some turn penalty (mistake, hint, illegal play) has a probability
R_ILLEGAL_PEN = 63
R_RESP = 64                 # the response-window switches, RESP_* bits
R_FAST = 65                 # the fast turns may play this round's common turns (_fast_turns_nb)
R_FFLAGS = 66               # the switches the fast turns read (FAST_* bits, but FAST_OBS, FAST_REV_SKIPS)
R_UNO_CALLS = 67            # the UNO-call step runs (a call may be forgotten; uno_to_center)
R_START_REPLACE_SPECIAL = 68
R_START_WILD_REDRAW = 69
R_START_WD4_REDRAW = 70
R_START_FLIP_REDRAW = 71
R_START_RETURN_MIDDLE = 72
R_START_REVERSE_FIRST = 73
R_LAZY_RANDOM = 74          # match mode, lazy scoring: ties for the next dealer are broken at random
NR = 75
RD_P_DANCE = 0
RD_P_FORGET = 1
RD_P_CATCH = 2
RD_P_BEATS = 3              # a jump-in beats the scheduled player
RD_P_SELF_JUMP = 4
RD_P_MISTAKE = 5
RD_P_HINT = 6
RD_P_ILLEGAL = 7
RD_P_DETECT = 8
NRD = 9
# the response-window switches (R_RESP; _response_priority, _answer_mask)
RESP_STACKING = 1
RESP_STACK_D2 = 2
RESP_STACK_WD4 = 4
RESP_STACK_MIXED = 8
RESP_DEFLECT_SKIP = 16
RESP_DEFLECT_D2 = 32
RESP_DEFLECT_WD4 = 64
RESP_BOUNCE = 128
RESP_BOUNCE_ANY = 256       # a Reverse bounces any attack, not only a Draw Two
RESP_BOUNCE_COLOR = 512     # a bouncing Reverse must match the colour
RESP_INVIS = 1024           # Harry Potter's Invisibility Wild blocks


# ---- card masks: the legality scan tests one word per card ------------------------------------------
# cmask[side, c] (card_masks_nb): a coloured card has its colour's bit and the bit CM_RANK0 + rank; a
# black card has CM_BLACK (bit BLACK: a current colour of BLACK would match it like a colour), and
# CM_WDRAW where it is an attacking wild (a Wild Draw Four, Flip's wild draws).  A turn's tests are two
# words (_turn_masks): a card is legal when its mask meets ``legal``; a Wild Draw Four breaks the
# restriction when the hand's masks, or-ed, meet ``guilt``.  Below the masks of the S sides, rows S .. 2S-1
# hold greedy's key of each card (_greedy_key): cmask[S + side, c].
CM_BLACK = 1 << BLACK
CM_WDRAW = 1 << (BLACK + 1)
CM_RANK0 = 8
CM_ACTIONS = ((1 << (NRANKS - 10)) - 1) << (CM_RANK0 + 10)  # the coloured symbols above 9
CM_COLORED_DRAWS = 0  # the coloured draw cards (Draw Two; Flip's Draw One, Draw Five; Harry Potter's Draw Three)
for _r in range(NRANKS):
    if _DRAW_N[_r] > 0 and not _BLACK_RANK[_r]:
        CM_COLORED_DRAWS |= 1 << (CM_RANK0 + _r)
