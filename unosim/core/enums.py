"""Integer constants shared by the compiled core and the Python layer.

Everything the kernels see is an integer (or a float probability).  Module-level ints are
compile-time constants for numba, so these names cost nothing inside a kernel.

Cards
-----
A physical card is an index ``c`` into the deck tables built by :mod:`unosim.ruleset.decks`:
``face_color[side, c]``, ``face_rank[side, c]``, ``face_points[side, c]``.  Classic decks use side 0
only; UNO Flip uses side 1 for the dark face.  The current colour, the direction and any pending
draw are state fields of the game, never written onto cards.
"""

from __future__ import annotations

# ---- colours (light side / classic; the dark side of UNO Flip reuses 0..3) ---------------------
RED, YELLOW, GREEN, BLUE = 0, 1, 2, 3
BLACK = 4
NCOLORS = 4
COLOR_NAMES = ("red", "yellow", "green", "blue", "black")
DARK_COLOR_NAMES = ("pink", "teal", "orange", "purple", "black")

# ---- ranks (the "symbol" of a face) ---------------------------------------------------------------
# 0..9 are number cards.
SKIP = 10
REVERSE = 11
DRAW2 = 12
WILD = 13
WD4 = 14
DRAW1 = 15            # UNO Flip light side
FLIP = 16             # UNO Flip, both sides
SKIP_ALL = 17         # UNO Flip dark side: Skip Everyone
DRAW5 = 18            # UNO Flip dark side
WILD_DRAW2 = 19       # UNO Flip light side
WILD_DRAW_COLOR = 20  # UNO Flip dark side
DRAW3 = 21            # Harry Potter
HOWLER = 22           # Harry Potter
INVIS_WILD = 23       # Harry Potter
DANCING_WILD = 24     # UNO BTS
NRANKS = 25
RANK_NAMES = (
    "0", "1", "2", "3", "4", "5", "6", "7", "8", "9",
    "skip", "reverse", "draw2", "wild", "wd4", "draw1", "flip", "skip_all", "draw5",
    "wild_draw2", "wild_draw_color", "draw3", "howler", "invisibility_wild", "dancing_wild",
)

# ---- why a round ended ----------------------------------------------------------------------------
END_WIN = 0        # a hand emptied
END_CAP = 1        # the turn cap was reached
END_SCRIPT = 2     # a scripted game ran out of script or the script asked for an illegal move
END_POLICY = 3     # a policy answered a decision with an illegal or out-of-range value
END_PAUSED = 4     # an external (plain-Python) seat must decide: the round is replayed with its answer
END_NAMES = ("win", "turn_cap", "script_error", "policy_error", "paused")

# ---- built-in policies ----------------------------------------------------------------------------
POL_RANDOM = 0
POL_GREEDY = 1
POL_SCRIPTED = 2   # decisions read from a script array (scenario tests)
POL_EXTERNAL = 3   # plain-Python policies: answers (option indices) queued in the script array
POL_FORCED = 4     # rollouts (unosim.players.lookahead): queued answers for the first decisions, then random or greedy
# per-seat float parameters of a policy
PP_CHALLENGE = 0   # probability of challenging a Wild Draw Four (or Flip's wild draws)
PP_BLUFF = 1       # probability of playing an illegal Wild Draw Four when challenges are on
PP_JUMP = 2        # probability of jumping in when able (random uses its own uniform rule; see policies)
PP_USER = 4        # first of the parameters of the heuristics and user policies (params[k] = pp[seat, PP_USER + k])
NPP = 16
# Policies that read the observation are called through one function slot of the kernel with
# ``which = pol - POL_SLOT`` (heuristics first, then user policies; see unosim.players.policy_api).
POL_SLOT = 8
# plain-Python policies (unosim.players.external) answer through the same slot, which calls back into Python:
# ``which = PY_SLOT_BASE + k`` for the k-th registered class (a range of their own, far above the rest)
PY_SLOT_BASE = 1 << 20

# ---- decisions (the one policy interface; documented in unosim.players.policy_api) -----------------------
D_PLAY = 0         # play a card (option) or draw (-1); options [0, nlegal) legal, [nlegal, nopt) bluffs
D_COLOR = 1        # name a colour: option k is colour k
D_PLAY_DRAWN = 2   # play the card just drawn: 0 keep, 1 play
D_RESPOND = 3      # pending attack: -1 take it, or a card that stacks / deflects / bounces / blocks
D_CHALLENGE = 4    # challenge the Wild Draw Four (or Flip wild draw) just played on you: 0 no, 1 yes
D_JUMP_IN = 5      # out of turn: -1 no, or an identical card
D_SWAP_TARGET = 6  # whom to swap with (7 / 0 / 5): an option (a seat), or -1 where the swap is optional
D_GIVE_CARD = 7    # which card to hand over in a one-for-one exchange (swap_on_five)
NDECISIONS = 8
DECISION_NAMES = ("play", "color", "play_drawn", "respond", "challenge", "jump_in", "swap_target",
                  "give_card")

# ---- the observation: one flat int64 array per decision (see unosim.players.policy_api) -------------------
NKINDS = 5 * NRANKS  # a card kind is colour * NRANKS + rank (face on the active side; black = 4)
MAXP = 10
OBS_KIND = 0          # decision kind (D_*)
OBS_SEAT = 1          # the deciding seat
OBS_NOPT = 2          # number of options
OBS_NLEGAL = 3        # D_PLAY: options [0, nlegal) are legal, [nlegal, nopt) are Wild Draw Four bluffs
OBS_NONE_OK = 4       # 1 when -1 (draw / take / don't / nobody) is an accepted answer
OBS_PLAYERS = 5
OBS_TURN = 6          # turns played so far
OBS_COLOR = 7         # current colour (-1: anything may follow)
OBS_DIRECTION = 8     # 1 clockwise, -1 counter-clockwise
OBS_SIDE = 9          # 0 light, 1 dark (UNO Flip)
OBS_TOP = 10          # kind of the top discard (active face)
OBS_PEND_KIND = 11    # rank of the pending attack on the deciding seat, or -1
OBS_PEND_N = 12       # pending draw total
OBS_PEND_FROM = 13    # who played the pending attack (-1 none)
OBS_PREV_COLOR = 14   # colour current before the last Wild Draw Four (challenge evidence)
OBS_PILE_N = 15       # cards in the draw pile
OBS_DISC_N = 16       # cards in the discard pile
OBS_TWO_SIDED = 17    # 1 on UNO Flip: OBS_BACKS holds the visible backs of the other hands
OBS_N_ACTIVE = 18     # seats still in the round
OBS_CNT_EPOCH = 19    # (engine bookkeeping of OBS_PLAYED)
OBS_CNT_SIDE = 20     # (engine bookkeeping of OBS_PLAYED)
OBS_DECK_SIDE = 21    # (engine bookkeeping of OBS_DECK)
OBS_KNOWN_ON = 22     # 1 once this round a hand was shown or passed (a 7 / 0 / 5 swap, a Howler, a challenge)
OBS_KNOWN_AT = 23     # offset of the known-cards region: obs[obs[OBS_KNOWN_AT] + s * NKINDS + kind] = cards of
#                       that kind the deciding seat knows are in seat s's hand (see obs_size)
OBS_HLEN = 24         # hand size of every seat (MAXP slots; 0 for a seat out of the round)
OBS_ACTIVE = 34       # 1 for a seat in the round (MAXP slots)
OBS_SCORE = 44        # match scores of every seat (MAXP slots; 0 in round mode)
OBS_VOIDS = 54        # inferred voids: bit 4 * s + c set when seat s drew for its turn while c was the current
#                       colour (active face) and has received no card since but that draw.  A table player's
#                       inference from public events: true whenever seats draw only with no playable coloured
#                       card and play a playable drawn card of that colour (greedy, hold_wilds and expert do; the
#                       last two may draw holding a wild, so it says nothing of wilds).  A swap
#                       moves it with the hand; a 0's rotation and a one-card exchange clear it; on UNO Flip it
#                       holds only while the side it was learned on is up.
OBS_RANK_VOIDS = 55   # inferred rank voids: bits 5 * s .. 5 * s + 4 hold 1 + r when seat s drew for its turn while a
#                       coloured card of rank r was on top and that rank matched (a number, or a symbol under
#                       match_action_by_symbol; not on a Speed Uno colour turn): seat s holds no coloured card of
#                       rank r.  0: nothing known.  Kept, moved and cleared as OBS_VOIDS is, under the same premise.
OBS_HAND = 56         # own hand as counts over the NKINDS kinds (active face)
OBS_PLAYED = OBS_HAND + NKINDS    # discard pile as counts over kinds (played since the last reshuffle)
OBS_BACKS = OBS_PLAYED + NKINDS   # UNO Flip: seat s's visible back faces at OBS_BACKS + s * NKINDS
OBS_DECK = OBS_BACKS + MAXP * NKINDS  # the whole deck as counts over kinds (active face)
OBS_OPT = OBS_DECK + NKINDS  # option k: value at OBS_OPT + 3k, hand index / seat at + 1, info at + 2
OPT_STRIDE = 3
NOBS = OBS_OPT        # the fixed part; an observation array holds obs_size(cards in the deck) entries


def obs_size(ncards: int) -> int:
    """Entries of an observation array: the fixed part, the options, the engine's per-card record of who
    has seen where each card is, and the known-cards region (MAXP x NKINDS) at the end."""
    return NOBS + (OPT_STRIDE + 1) * ncards + MAXP * NKINDS

# ---- integer rule options (index into the packed int64 array ``ri``) --------------------------------
# Defaults and documentation live in unosim.ruleset.rules (one source of truth); these are only slots.
RI_HAND_SIZE = 0
RI_TURN_CAP = 1
RI_START_REVERSE_FIRST = 2        # 0 dealer, 1 right_of_dealer
RI_START_WILD = 3                 # 0 first_player_chooses_then_plays, 1 redraw
RI_START_WD4 = 4                  # 0 redraw, 1 first_player_chooses
RI_START_REPLACE_ANY_SPECIAL = 5  # bool
RI_START_RETURN_METHOD = 6        # 0 reshuffle, 1 middle
RI_MATCH_ACTION_BY_SYMBOL = 7     # bool
RI_ACTION_ON_ANY_ACTION = 8       # bool
RI_DRAWN_CARD_PLAY = 9            # 0 optional, 1 forced
RI_VOLUNTARY_DRAW = 10            # bool
RI_DRAW_UNTIL_PLAYABLE = 11       # bool
RI_WD4_RESTRICTION = 12           # 0 color, 1 color_or_number, 2 none
RI_ALLOW_WD4_BLUFF = 13           # bool
RI_WD4_CHALLENGE = 14             # bool
RI_CH_GUILTY_DRAW = 15
RI_CH_INNOCENT_DRAW = 16
RI_CH_GUILTY_CARD = 17            # 0 stays, 1 returns_to_hand, 2 void
RI_CH_GUILTY_OFFENDER_SKIPS = 18  # bool
RI_CH_SUCCESS_CHALLENGER_PLAYS = 19  # bool
RI_CH_INNOCENT_CHALLENGER_SKIPS = 20  # bool
RI_CHALLENGE_LAST_CARD_WD4 = 21   # bool
RI_UNO_PENALTY = 22
RI_TWO_PLAYER_REVERSE_AS_SKIP = 23  # bool
RI_STACKING = 24
RI_STACK_DRAW_TWO = 25
RI_STACK_WD4 = 26
RI_STACK_MIXED = 27
RI_STACK_MAX_PER_TURN = 28
RI_STACK_FINAL_VICTIM_SKIPS = 29
RI_STACK_COLOR_BY = 30            # 0 last_wd4 (the last player who laid a WD4 names it)
RI_DEFLECT_SKIP = 31
RI_DEFLECT_DRAW_TWO = 32
RI_DEFLECT_WD4 = 33
RI_REVERSE_BOUNCE = 34
RI_RB_SCOPE = 35                  # 0 any_action, 1 draw_two_only
RI_RB_REQUIRES_COLOR = 36
RI_RB_VICTIM_SKIPS = 37
RI_RB_REBOUNCE = 38
RI_JUMP_IN = 39
RI_JUMP_IN_ALLOW_WILD = 40
RI_JUMP_IN_ALLOW_WD4 = 41
RI_JUMP_IN_DRAW_RESOLUTION = 42   # 0 transfer, 1 accumulate
RI_DOUBLE_PLAY_JUMP_IN = 43
RI_SEVEN_ZERO = 44
RI_ZERO_PASS_DIRECTION = 45       # 0 play_direction, 1 left
RI_SEVEN_SWAP_MANDATORY = 46
RI_ZERO_SWAP_ANY = 47
RI_SWAP_ON_FIVE = 48
RI_SWAP5_MODE = 49                # 0 one_card_each_own_choice, 1 whole_hand
RI_SWAP5_OPTIONAL = 50
RI_UNO_TO_CENTER = 51
RI_UNO_CENTER_PENALTY = 52
RI_WILD_COLOR_ROTATION = 53
RI_PLAY_TO_LAST = 54
RI_PLAY_TO_LAST_TWO_PLAYER_RULES = 55
RI_UNO_SEVEN_ROUNDS = 56
RI_REFILL_START = 57
RI_ZERO_WORTH_50 = 58
RI_ZERO50_CONDITION = 59          # 0 sole_card, 1 hand_all_zeros, 2 any_zero
RI_REVERSE_SINGLE_TURN = 60
RI_SKIP_EXTRA_TURN = 61
RI_DUP_MUST_PLAY_FOUND = 62
RI_SPEED_DRAW_NO_SKIP = 63
RI_SPEED_NO_WD4_OUT = 64
RI_SPEED_EXACT_MATCH = 65
RI_SPEED_DOUBLE_DOUBLE = 66
RI_SPEED_DROP = 67
RI_SPEED_ROUND_N_ROUND = 68
RI_SPEED_EXACT_MATCH_WILDS = 69   # 0 wild_only, 1 none, 2 wild_and_wd4
RI_PENALTY_ILLEGAL_PLAY = 70
RI_ILLEGAL_PENALTY = 71
RI_PENALTY_HINT = 72
RI_PENALTY_GENERAL_MISTAKE = 73
RI_FLIP_REVEALED_BLACK_COLOR = 74  # 0 flip_player_chooses
RI_FLIP_START_FLIP = 75           # 0 execute
RI_FLIP_LAST_CARD_EXECUTES = 76
RI_WDC_STOP_ON_EXHAUSTION = 77
RI_FLIP_WD2_GUILTY_DRAW = 78
RI_FLIP_WD2_INNOCENT_DRAW = 79
RI_FLIP_WDC_INNOCENT_EXTRA = 80
RI_HP_INVIS_BLOCKS = 81
RI_BTS_DANCING_TARGET_SKIPS = 82
RI_LAZY_TIE_BREAK = 83           # 0 random, 1 first_clockwise (match mode, lazy scoring)
NRI = 96

# ---- float rule options (index into the packed float64 array ``rf``) -------------------------------
RF_UNO_FORGET_PROB = 0
RF_UNO_CATCH_PROB = 1
RF_P_BEATS_SCHEDULED = 2
RF_P_SELF_JUMP_WINS = 3
RF_P_HINT = 4
RF_P_ILLEGAL_ATTEMPT = 5
RF_P_DETECT = 6
RF_P_MISTAKE = 7
RF_P_DANCE = 8
NRF = 16

# ---- event log (scenario tests and replays) -------------------------------------------------------
# One row per event: (kind, seat, card, arg1, arg2)
EV_DEAL_START = 0     # card = starting card, arg1 = first player
EV_PLAY = 1           # seat played card; arg1 = colour now current
EV_DRAW = 2           # seat drew card (voluntary/forced turn draw); arg1 = 1 if the draw was a penalty
EV_PASS = 3           # seat kept the drawn card / could not draw
EV_SKIPPED = 4        # seat lost a turn
EV_RESHUFFLE = 5      # arg1 = cards moved into the draw pile
EV_WIN = 6            # seat went out; arg1 = points scored
EV_CHALLENGE = 7      # seat challenged; arg1 = 1 guilty, 0 innocent; arg2 = the challenged seat
EV_SWAP = 8           # seat swapped with arg1 (7/5) ; arg1 = -1 for a 0 rotation
EV_UNO_CAUGHT = 9     # seat forgot UNO and was caught
EV_JUMP_IN = 10       # seat jumped in with card
EV_STACK = 11         # seat stacked card; arg1 = pending total
EV_PENALTY = 12       # seat took a penalty of arg1 cards
EV_START_REDRAW = 13  # starting card returned
EV_DIRECTION = 14     # arg1 = new direction
EV_CAP = 15
EV_FLIP = 16          # seat played a Flip; card = the new top face, arg1 = colour, arg2 = new side
EV_NAMES = (
    "deal", "play", "draw", "pass", "skipped", "reshuffle", "win", "challenge", "swap",
    "uno_caught", "jump_in", "stack", "penalty", "start_redraw", "direction", "cap", "flip",
)


# ---- match parameters (mi), read by the match kernel (unosim.core.nb.play_match_batch_nb) -------------------------------------------------------------------------
MI_MODE = 0          # scoring mode, SC_*
MI_TARGET = 1        # target / limit score
MI_PARTNERS = 2      # 1: seats i and i + n/2 are a team
MI_MAX_ROUNDS = 3    # cap on rounds per match
MI_SEATING = 4       # 0 fixed, 1 rotate, 2 shuffle
MI_DEALER_RULE = 5   # 0 clockwise, 1 winner deals, 2 loser deals
MI_ROUNDS = 6        # lazy / rotating partners: rounds per match (0 = default)
MI_PER_PARTNER = 7   # rotating partners: rounds with each partner
NMI = 8
SC_STANDARD = 0      # winner of the round scores the others' hands; first to the target wins
SC_SELF_LOSER = 1    # everyone scores own hand; first to the limit loses (lowest total reported winner)
SC_LOWEST_WINS = 2   # everyone scores own hand; when someone reaches the target, the lowest total wins
SC_ELIMINATION = 3   # own hands; seats at the target drop out; the last one left wins
SC_LAZY = 4          # no score: winner leads next round, highest hand deals; most round wins
SC_ROTATING = 5      # rotating partners (4 players): 4 rounds with each partner, highest total wins
MEND_DONE = 0
MEND_ROUND_CAP = 1
