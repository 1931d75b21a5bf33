"""The heuristic library: built-in policies written against the decision interface (unosim.players.policy_api).

Each heuristic is an ordinary policy function ``f(kind, obs, params, rng) -> option index or -1``
that reads only the observation ``obs``; every decision it does not specialise falls back to
:func:`greedy_obs_nb`, which is ``greedy`` written against the observation (it gives the same
answers as the built-in ``greedy`` with its default parameters).  They are called through the
kernel's one policy slot (``heuristics_slot_nb``), so adding one is one function, one entry in
``HEURISTICS`` and its tests, and never an edit of the kernel.
"""

from __future__ import annotations

from numba import njit, types

from .cards_nb import greedy_order_nb
from .enums import *  # noqa: F403  (kernels read the integer constants as globals)
from .jit import SLOT_SIG, LazyKernels
from .layout import _DRAW_N

# the signature of a policy function (the slot adds ``which`` in front)
POLICY_SIG = types.int64(types.int64, types.int64[::1], types.float64[::1], types.uint64[::1])


# ---- reading the observation ------------------------------------------------------------------------
# The small readers are inlined into the heuristics (greedy_key runs once per option: as a call it passed
# obs as seven values each time).  greedy_obs_nb stays a call: inlined, it doubled the compile of a
# user policy that falls back on it (0.7 s to 1.6 s for the example file) for no measurable speed.
@njit(cache=True, _nrt=False, inline="always")
def opt_value(obs, k):
    """Option k's value: a card kind (colour * NRANKS + rank), a colour, a seat, or 0/1."""
    return obs[OBS_OPT + OPT_STRIDE * k]


@njit(cache=True, _nrt=False, inline="always")
def opt_info(obs, k):
    """Option k's info: points (cards), response type (D_RESPOND), distance (D_SWAP_TARGET) ..."""
    return obs[OBS_OPT + OPT_STRIDE * k + 2]


@njit(cache=True, _nrt=False, inline="always")
def next_seat(obs):
    """The seat after the deciding one in the direction of play."""
    n = obs[OBS_PLAYERS]
    p = obs[OBS_SEAT]
    q = p
    for _ in range(n):
        q = (q + obs[OBS_DIRECTION]) % n
        if obs[OBS_ACTIVE + q] != 0:
            return q
    return p


@njit(cache=True, _nrt=False, inline="always")
def min_opponent_hand(obs):
    best = 1 << 30
    for s in range(obs[OBS_PLAYERS]):
        if s != obs[OBS_SEAT] and obs[OBS_ACTIVE + s] != 0 and obs[OBS_HLEN + s] < best:
            best = obs[OBS_HLEN + s]
    return best


@njit(cache=True, _nrt=False, inline="always")
def color_count(obs, base, col):
    """Cards of colour ``col`` in a count vector over kinds starting at obs[base] (OBS_HAND, OBS_PLAYED,
    OBS_DECK)."""
    t = 0
    for r in range(NRANKS):
        t += obs[base + col * NRANKS + r]
    return t


@njit(cache=True, _nrt=False, inline="always")
def is_attack_kind(kind):
    """Skip, Reverse, Skip Everyone and every draw card (coloured or wild)."""
    r = kind % NRANKS
    return r == SKIP or r == REVERSE or r == SKIP_ALL or r == DRAW2 or r == WD4 or r == DRAW1 or \
        r == DRAW5 or r == WILD_DRAW2 or r == WILD_DRAW_COLOR or r == DRAW3 or r == DANCING_WILD


@njit(cache=True, _nrt=False, inline="always")
def greedy_key(obs, k):
    """greedy's ranking of a coloured card option (higher first)."""
    v = opt_value(obs, k)
    col = v // NRANKS
    return greedy_order_nb(col, v % NRANKS, opt_info(obs, k)) + (100 if col == obs[OBS_COLOR] else 0)


@njit(cache=True, _nrt=False, inline="always")
def greedy_play_obs(obs, nleg):
    """greedy's card among options [0, nleg): most points, then its tie order; wilds last (an
    attacking wild before a plain one); -1 when nothing is legal."""
    best = -1
    bkey = -1
    wd4_k = -1
    wild_k = -1
    for k in range(nleg):
        v = opt_value(obs, k)
        if v // NRANKS == BLACK:
            r = v % NRANKS
            if r != WILD and r != INVIS_WILD:
                if wd4_k < 0:
                    wd4_k = k
            elif wild_k < 0:
                wild_k = k
            continue
        key = greedy_key(obs, k)
        if key > bkey:
            bkey = key
            best = k
    if best >= 0:
        return best
    if wd4_k >= 0:
        return wd4_k
    return wild_k


@njit(cache=True, _nrt=False, inline="always")
def first_max_info(obs, nopt):
    best = -1
    bi = -(1 << 60)
    for k in range(nopt):
        if opt_info(obs, k) > bi:
            bi = opt_info(obs, k)
            best = k
    return best


@njit(cache=True, _nrt=False)
def greedy_obs_nb(kind, obs, params, rng):
    """``greedy`` against the observation: the fallback of every heuristic for the decisions it does
    not specialise.  Never challenges and never bluffs (greedy's defaults)."""
    nopt = obs[OBS_NOPT]
    if kind == D_PLAY:
        return greedy_play_obs(obs, obs[OBS_NLEGAL])
    if kind == D_COLOR:
        return first_max_info(obs, NCOLORS)  # the colour held most, ties to the lowest index
    if kind == D_RESPOND:
        return first_max_info(obs, nopt)
    if kind == D_CHALLENGE:
        return 0
    if kind == D_JUMP_IN:
        return 0
    if kind == D_SWAP_TARGET:
        best = -1
        bkey = 0
        for k in range(nopt):
            key = obs[OBS_HLEN + opt_value(obs, k)] * 64 + opt_info(obs, k)
            if best < 0 or key < bkey:
                bkey = key
                best = k
        return best
    if kind == D_GIVE_CARD:
        return first_max_info(obs, nopt)
    return 1  # D_PLAY_DRAWN


# ---- the heuristics -----------------------------------------------------------------------------------
@njit(cache=True, _nrt=False)
def hold_wilds_nb(kind, obs, params, rng):
    """Draw rather than play a wild while the own hand is bigger than ``threshold`` and no opponent
    holds ``danger`` cards or fewer (params: threshold, danger)."""
    if kind == D_PLAY:
        k = greedy_play_obs(obs, obs[OBS_NLEGAL])
        if k >= 0 and opt_value(obs, k) // NRANKS == BLACK and obs[OBS_NONE_OK] != 0 and \
                obs[OBS_HLEN + obs[OBS_SEAT]] > params[0] and min_opponent_hand(obs) > params[1]:
            return -1
        return k
    return greedy_obs_nb(kind, obs, params, rng)


@njit(cache=True, _nrt=False)
def color_majority_nb(kind, obs, params, rng):
    """Play a card of the colour held most (greedy's order within it); name the colour held most."""
    if kind == D_PLAY:
        best = -1
        bkey = -1
        for k in range(obs[OBS_NLEGAL]):
            col = opt_value(obs, k) // NRANKS
            if col == BLACK:
                continue
            key = color_count(obs, OBS_HAND, col) * 1000000 + greedy_key(obs, k)
            if key > bkey:
                bkey = key
                best = k
        if best >= 0:
            return best
    return greedy_obs_nb(kind, obs, params, rng)


@njit(cache=True, _nrt=False)
def attack_nb(kind, obs, params, rng):
    """When the next player holds ``threshold`` cards or fewer, play a Skip, Reverse or draw card
    (wild draws included) at them; otherwise keep those and play other cards first (param: threshold)."""
    if kind == D_PLAY:
        nleg = obs[OBS_NLEGAL]
        close = obs[OBS_HLEN + next_seat(obs)] <= params[0]
        best = -1
        bkey = -1
        for k in range(nleg):
            v = opt_value(obs, k)
            if is_attack_kind(v) != close or (not close and v // NRANKS == BLACK):
                continue
            key = (greedy_key(obs, k) if v // NRANKS != BLACK else 0) + \
                (1000000 if v % NRANKS == WD4 or v % NRANKS == DRAW2 else 0)
            if key > bkey:
                bkey = key
                best = k
        if best >= 0:
            return best
    return greedy_obs_nb(kind, obs, params, rng)


@njit(cache=True, _nrt=False)
def defensive_nb(kind, obs, params, rng):
    """When an opponent holds ``threshold`` cards or fewer, dump the legal card worth most points,
    wilds included (param: threshold)."""
    if kind == D_PLAY and min_opponent_hand(obs) <= params[0]:
        best = -1
        bkey = -1
        for k in range(obs[OBS_NLEGAL]):
            key = opt_info(obs, k) * 1000 + (greedy_key(obs, k) % 1000 if opt_value(obs, k) // NRANKS != BLACK
                                             else 0)
            if key > bkey:
                bkey = key
                best = k
        return best
    return greedy_obs_nb(kind, obs, params, rng)


@njit(cache=True, _nrt=False)
def _unseen(obs, col):
    """Cards of colour col neither in the own hand nor on the discard pile (other hands or the pile)."""
    return color_count(obs, OBS_DECK, col) - color_count(obs, OBS_HAND, col) - color_count(obs, OBS_PLAYED, col)


@njit(cache=True, _nrt=False)
def card_counter_nb(kind, obs, params, rng):
    """Name the colour that scores own_weight * (cards held) - (cards of it still unseen): colours
    that are mostly played out are likely missing from the opponents' hands (param: own_weight)."""
    if kind == D_COLOR:
        best = 0
        bs = -(1 << 60)
        for col in range(NCOLORS):
            sc = params[0] * color_count(obs, OBS_HAND, col) - _unseen(obs, col)
            if sc > bs:
                bs = sc
                best = col
        return best
    return greedy_obs_nb(kind, obs, params, rng)


@njit(cache=True, _nrt=False)
def guilty_probability(obs):
    """Chance that the player of the pending Wild Draw Four held a card of the colour before it: its
    hand drawn uniformly from the cards this seat has not seen.  0 for a Wild Draw Four laid as the
    last card (the hand is empty): it was the only card held, so it cannot have been a bluff."""
    o = obs[OBS_PEND_FROM]
    c = obs[OBS_PREV_COLOR]
    if o < 0 or c < 0 or c >= NCOLORS:
        return 0.0
    total = 0
    for k in range(NKINDS):
        total += obs[OBS_DECK + k] - obs[OBS_HAND + k] - obs[OBS_PLAYED + k]
    uc = _unseen(obs, c)
    h = obs[OBS_HLEN + o]
    p_none = 1.0
    for i in range(h):
        if total - i <= 0:
            break
        p_none *= max(0.0, (total - uc - i) / (total - i))
    return 1.0 - p_none


@njit(cache=True, _nrt=False)
def challenger_nb(kind, obs, params, rng):
    """Challenge a Wild Draw Four when the chance that its player held the colour before it (from the
    unseen cards and its hand size) exceeds ``threshold`` (param: threshold)."""
    if kind == D_CHALLENGE:
        return 1 if guilty_probability(obs) > params[0] else 0
    return greedy_obs_nb(kind, obs, params, rng)


@njit(cache=True, _nrt=False)
def bluffer_nb(kind, obs, params, rng):
    """Play an illegal Wild Draw Four (where challenges make it a bluff) when nothing else is legal or
    the next player holds ``threshold`` cards or fewer (param: threshold)."""
    if kind == D_PLAY and obs[OBS_NOPT] > obs[OBS_NLEGAL]:
        if obs[OBS_NLEGAL] == 0 or obs[OBS_HLEN + next_seat(obs)] <= params[0]:
            return obs[OBS_NLEGAL]
    return greedy_obs_nb(kind, obs, params, rng)


@njit(cache=True, _nrt=False)
def weighted_nb(kind, obs, params, rng):
    """Score every legal card as a weighted sum of features and play the best, or draw when the draw
    weight beats them all.  params: points, current_color, action, wild, color_held, attack_next
    (per card, when the next player holds 2 or fewer), draw."""
    if kind == D_PLAY:
        close = obs[OBS_HLEN + next_seat(obs)] <= 2
        best = -1
        bs = params[6] if obs[OBS_NONE_OK] != 0 else -1e300
        for k in range(obs[OBS_NLEGAL]):
            v = opt_value(obs, k)
            col = v // NRANKS
            r = v % NRANKS
            black = col == BLACK
            sc = params[0] * opt_info(obs, k) + params[1] * (1.0 if col == obs[OBS_COLOR] else 0.0) \
                + params[2] * (1.0 if (r > 9 and not black) else 0.0) + params[3] * (1.0 if black else 0.0) \
                + params[4] * (color_count(obs, OBS_HAND, col) if not black else 0) \
                + params[5] * (1.0 if (close and is_attack_kind(v)) else 0.0)
            if sc > bs:
                bs = sc
                best = k
        return best
    return greedy_obs_nb(kind, obs, params, rng)


# ---- expert: public voids, the colour left behind, tempo with two players --------------------------------
@njit(cache=True, _nrt=False, inline="always")
def seat_void(obs, s, col):
    """Whether seat s showed it holds no card of colour col (enums.OBS_VOIDS)."""
    return col >= 0 and col < NCOLORS and (obs[OBS_VOIDS] >> (4 * s + col)) & 1 != 0


@njit(cache=True, _nrt=False, inline="always")
def takes_turn(obs, r):
    """Whether a coloured card of rank r takes the next player's turn (Skip, Skip Everyone, a Draw card;
    a Reverse with two players)."""
    return r == SKIP or r == SKIP_ALL or _DRAW_N[r] > 0 or (r == REVERSE and obs[OBS_N_ACTIVE] == 2)


@njit(cache=True, _nrt=False, inline="always")
def _unseen_of(obs, k):
    """How many cards of kind k the deciding seat cannot see: the deck's less the discard pile's and its
    own hand's (none where those say more)."""
    return max(obs[OBS_DECK + k] - obs[OBS_PLAYED + k] - obs[OBS_HAND + k], 0)


@njit(cache=True, _nrt=False)
def unseen_tally(obs):
    """The cards the deciding seat cannot see, counted once for a decision: (all of them, those of each
    colour, the black ones).  chance_cannot_follow reads it for each option."""
    deck = obs[OBS_DECK:OBS_DECK + NKINDS]
    played = obs[OBS_PLAYED:OBS_PLAYED + NKINDS]
    hand = obs[OBS_HAND:OBS_HAND + NKINDS]
    c0 = 0
    c1 = 0
    c2 = 0
    c3 = 0
    black = 0
    for r in range(NRANKS):  # the same sums as _unseen_of's, in one loop the compiler keeps in registers
        c0 += max(deck[r] - played[r] - hand[r], 0)
        c1 += max(deck[NRANKS + r] - played[NRANKS + r] - hand[NRANKS + r], 0)
        c2 += max(deck[2 * NRANKS + r] - played[2 * NRANKS + r] - hand[2 * NRANKS + r], 0)
        c3 += max(deck[3 * NRANKS + r] - played[3 * NRANKS + r] - hand[3 * NRANKS + r], 0)
        black += max(deck[BLACK * NRANKS + r] - played[BLACK * NRANKS + r] - hand[BLACK * NRANKS + r], 0)
    return c0 + c1 + c2 + c3 + black, (c0, c1, c2, c3), black


@njit(cache=True, _nrt=False)
def chance_cannot_follow(obs, col, r, nxt, tally):
    """The chance that seat ``nxt`` holds nothing that follows a coloured card of colour ``col`` and rank
    ``r`` (a card of that colour or rank, or a black card), its hand taken at random from the cards the
    deciding seat cannot see (the deck less the discard pile and its own hand; ``tally``: unseen_tally)
    less the colour it showed it lacks."""
    total, by_color, black = tally
    same_color = by_color[col]
    same_rank = 0  # the unseen coloured cards of rank r in the other colours
    for c in range(NCOLORS):
        if c != col:
            same_rank += _unseen_of(obs, c * NRANKS + r)
    unseen = total
    follow = same_color + black + same_rank
    if seat_void(obs, nxt, col):
        unseen -= same_color
        follow -= same_color
    p = 1.0
    for i in range(obs[OBS_HLEN + nxt]):
        if unseen - follow - i <= 0:
            return 0.0
        p *= (unseen - follow - i) / (unseen - i)
    return p


@njit(cache=True, _nrt=False)
def expert_play_score(obs, k, nxt, params, tally):
    """The score of legal option k at a play decision (the highest is played); params as expert_nb's,
    ``tally`` the decision's unseen_tally."""
    v = opt_value(obs, k)
    col = v // NRANKS
    r = v % NRANKS
    close = obs[OBS_HLEN + nxt] <= params[0]
    two = obs[OBS_N_ACTIVE] == 2
    plain_wild = r == WILD or r == INVIS_WILD
    if col == BLACK:
        sc = -60.0 if obs[OBS_HLEN + obs[OBS_SEAT]] > params[11] else 60.0  # keep wilds for the last cards
        if close and not plain_wild:
            sc += 60.0
        elif two and not plain_wild:
            sc += params[10]  # a wild draw card takes the only other player's turn
        return sc
    sc = params[3] * opt_info(obs, k)  # points: shed the costly cards first
    # the colour left behind: cards of it still held after this one, and the next player shown to lack it
    sc += params[4] * (color_count(obs, OBS_HAND, col) - 1)
    if seat_void(obs, nxt, col):
        sc += params[5]
    if two:
        # with two players the colour left is the one the same opponent must follow next: keep the current
        # colour, and keep a card of a symbol held in another colour too, a bridge to that colour (with
        # more players both cost: 1.8 points at 4 against three greedy, docs/skill.md)
        if col == obs[OBS_COLOR]:
            sc += params[7]
        for c2 in range(NCOLORS):
            if c2 != col:
                sc -= params[8] * obs[OBS_HAND + c2 * NRANKS + r]
    attack = takes_turn(obs, r)
    free_turn = attack and two
    if attack and close:
        sc += 60.0 + 10.0 * _DRAW_N[r]
    elif free_turn:
        sc += params[9]
    if not free_turn:
        sc += params[6] * chance_cannot_follow(obs, col, r, nxt, tally)
    return sc


@njit(cache=True, _nrt=False)
def expert_nb(kind, obs, params, rng):
    """Scores each legal card by the chance the next player cannot follow it (its hand dealt from the unseen
    cards, less the colours it showed it lacks by drawing, enums.OBS_VOIDS), by the colour it leaves behind
    (cards of it still held; more when the next player showed it lacks that colour); with two players it
    keeps the current colour and the symbols it holds in two colours (a later change of colour) and takes a
    free turn with a Skip, Reverse or Draw card (or a Wild Draw Four); it aims them at a next player holding
    ``danger`` cards or fewer, keeps wilds while it holds more than ``keep`` cards and draws rather than
    play its only legal wild while it holds more than ``hold``, names the colour it holds most (ties: one
    the next player lacks), plays a playable drawn card, and challenges a Wild Draw Four when the chance it
    was a bluff exceeds ``challenge`` (1: never, right against players who never bluff).  params: danger,
    hold, challenge, points (per point of a card), held (per card of the colour left), void, unseen, stay,
    bridge, tempo, wild_tempo, keep.  Everything else as greedy."""
    nxt = next_seat(obs)
    if kind == D_PLAY:
        best = -1
        bs = -1e300
        tally = unseen_tally(obs)
        for k in range(obs[OBS_NLEGAL]):
            sc = expert_play_score(obs, k, nxt, params, tally)
            if sc > bs:
                bs = sc
                best = k
        if best >= 0 and bs < 0.0 and obs[OBS_NONE_OK] != 0 and obs[OBS_HLEN + obs[OBS_SEAT]] > params[1] and \
                opt_value(obs, best) // NRANKS == BLACK and min_opponent_hand(obs) > params[0]:
            return -1  # only a wild to play, and no hurry: draw and keep it
        return best
    if kind == D_COLOR:
        best = 0
        bs = -1
        for col in range(NCOLORS):
            sc = 2 * color_count(obs, OBS_HAND, col) + (1 if seat_void(obs, nxt, col) else 0)
            if sc > bs:
                bs = sc
                best = col
        return best
    if kind == D_PLAY_DRAWN:
        return 1
    if kind == D_CHALLENGE:
        return 1 if guilty_probability(obs) > params[2] else 0
    return greedy_obs_nb(kind, obs, params, rng)

# ---- the registry and the slot ----------------------------------------------------------------------
# name -> (function, {parameter: (default, low, high)}); ids are positions (which = pol - POL_SLOT)
HEURISTICS = {
    "hold_wilds": (hold_wilds_nb, {"threshold": (3.0, 0.0, 200.0), "danger": (2.0, 0.0, 200.0)}),
    "color_majority": (color_majority_nb, {}),
    "attack": (attack_nb, {"threshold": (2.0, 0.0, 200.0)}),
    "defensive": (defensive_nb, {"threshold": (2.0, 0.0, 200.0)}),
    "card_counter": (card_counter_nb, {"own_weight": (2.0, 0.0, 100.0)}),
    "challenger": (challenger_nb, {"threshold": (0.5, 0.0, 1.0)}),
    "bluffer": (bluffer_nb, {"threshold": (2.0, 0.0, 200.0)}),
    # only the weights' ratios matter; the ranges bound what tuning searches (a range of 1e6 made every
    # candidate of CMA-ES's first generation a random policy)
    "weighted": (weighted_nb, {"points": (1.0, -1000.0, 1000.0), "current_color": (0.0, -1000.0, 1000.0),
                               "action": (0.0, -1000.0, 1000.0), "wild": (-100.0, -1000.0, 1000.0),
                               "color_held": (0.0, -1000.0, 1000.0), "attack_next": (0.0, -1000.0, 1000.0),
                               "draw": (-1000.0, -1000.0, 1000.0)}),
    # expert's weights: CMA-ES on its win rate at 2 players against random plus twice that at 4 against three
    # greedy (100,000 rounds each, fixed seeds), rounded; docs/skill.md has the measurements
    "expert": (expert_nb, {"danger": (3.0, 0.0, 200.0), "hold": (3.0, 0.0, 200.0), "challenge": (1.0, 0.0, 1.0),
                           "points": (0.0, -100.0, 100.0), "held": (5.0, -1000.0, 1000.0),
                           "void": (140.0, -1000.0, 1000.0), "unseen": (40.0, -1000.0, 1000.0),
                           "stay": (33.0, -1000.0, 1000.0), "bridge": (20.0, -1000.0, 1000.0),
                           "tempo": (21.0, -1000.0, 1000.0), "wild_tempo": (50.0, -1000.0, 1000.0),
                           "keep": (0.0, 0.0, 200.0)}),
}
# built-in heuristics whose play changed since the store began: the version enters the key of every stored cell
# that seats them (unosim.players.external.passed_classes), so that a cell of an older play is never served
PLAY_VERSIONS = {"expert": 2}
WHERE = {
    "hold_wilds": "a common table heuristic (wilds are the most flexible card; keep them for the end game)",
    "color_majority": "the SIGCSE 'Uno!' assignment's baseline strategy (play and call your longest suit)",
    "attack": "table lore: aim action cards at a player about to go out",
    "defensive": "scoring rules (docs/rules.md 1.15): cards left in hand score for the winner",
    "card_counter": "card counting, as in any shedding game",
    "challenger": "docs/rules.md 1.11: the challenge is a bet on the hidden hand",
    "bluffer": "docs/rules.md 1.10-1.11: an illegal Wild Draw Four is a bluff only a challenge punishes",
    "weighted": "a linear evaluation to be tuned (the next issue tunes the weights)",
    "expert": "the public strong hand-written players (brute-force-lab's 05-uno expert, chausner/UnoAI's "
              "MixBot2): opponents' inferred voids, the colour left behind, tempo cards with two players",
}


entry = LazyKernels(globals())


@entry(SLOT_SIG, cache=True, nogil=True, _nrt=False)
def heuristics_slot_nb(which, kind, obs, params, rng):
    """The slot when only heuristics use it: which = position in HEURISTICS."""
    if which == 0:
        return hold_wilds_nb(kind, obs, params, rng)
    if which == 1:
        return color_majority_nb(kind, obs, params, rng)
    if which == 2:
        return attack_nb(kind, obs, params, rng)
    if which == 3:
        return defensive_nb(kind, obs, params, rng)
    if which == 4:
        return card_counter_nb(kind, obs, params, rng)
    if which == 5:
        return challenger_nb(kind, obs, params, rng)
    if which == 6:
        return bluffer_nb(kind, obs, params, rng)
    if which == 7:
        return weighted_nb(kind, obs, params, rng)
    if which == 8:
        return expert_nb(kind, obs, params, rng)
    return -2


entry.unbind()


def __getattr__(name: str):
    return entry.get(name)
