"""The compiled core: every kernel here takes and returns only arrays and scalars.

Layout (vectorbt-style): ``*_nb`` functions are module-level ``@njit(cache=True)`` kernels.
``play_round_nb`` plays one complete round on preallocated buffers; ``play_batch_nb`` runs many
rounds in parallel.  Every round draws its randomness from its own stream, seeded from
``(master_seed, global_game_index)``, so results do not depend on thread count or batch size.

Game state
----------
* ``hand[seat, i]`` for ``i < hlen[seat]``: physical card ids in each hand.
* ``pile[:st[ST_PILE_N]]``: the draw pile, top at the end.  ``disc[:st[ST_DISC_N]]``: discard, top at
  the end.  Cards are conserved: hands + pile + discard is always the whole deck.
* Everything else a round carries from step to step (colour, direction, the pending attack, the active
  side, the counters) lives in named slots of ``st`` (ST_SIDE ...), never on cards: a round is its arrays.
* The rules are unpacked once per batch into R / RD (rules_nb), every switch by name (R_*, RD_*).

One round (play_round_nb) is a loop over the steps of a turn, each a function of its own: the jump-in
window, the response window (with the one challenge resolution, _challenge), the normal turn, laying a
card, an emptied hand, the UNO call, the card's effect (swaps in _swap_with, once for 7, 0 and 5), Flip,
the end.  The common turns run in _fast_turns_nb.

Turn structure (docs/rules.md 5.1): a play resolves into a *pending attack* on the next player (Skip,
Draw Two, Wild Draw Four ...).  At the start of the victim's turn a response window opens
(challenge, stack, deflect, bounce, jump-in); with nothing played, the attack resolves: the victim
draws and loses the turn.  Taking a penalty is not a turn; a play or a draw is.

Decisions (unosim.players.policy_api documents the interface): the kernel writes the options of every
decision it asks (D_PLAY, D_COLOR, ...) into ``obs[OBS_OPT:]`` and calls ``decide_nb``, the one place
that dispatches on the policy id: ``random_nb`` / ``greedy_nb`` inline, ``scripted_nb``, the queued
answers of plain-Python seats (the round pauses when a queue runs dry), or the function slot ``ufn``
(heuristics and user numba policies, with the observation built by ``build_obs_nb``).  Answers are
checked against the options.

Inlining: a small helper is a plain ``@njit`` function, and LLVM inlines it at every call (numba links
the callee into the caller's module before optimising it).  ``inline="always"`` (numba inlining its
own IR) is kept for what LLVM will not inline and what sits on a hot path: the policies' decisions in
the fast turns and the big loop's play, and wrappers that cast literal arguments.  Numba's inlining
re-reads the callee's bytecode at every site, so each such site costs compile time: dropping it from
the small helpers, and calling the big loop's rarer decisions through decide_cold_nb, halved the cold
compile of the round kernel.  Its copy of the callee's IR copied the callee's whole scope once per
block; inline_patch (installed on import) copies it once: the same IR in less time.  The assembly of
a kernel compiled afresh (``inspect_asm``) shows which helpers stay calls; a helper that grows past
LLVM's inlining threshold (draw_card_nb with its reshuffle did) must move its rare part into a call of
its own.
"""

from __future__ import annotations

import threading

import numpy as np
from numba import njit, types

from ..console import compiling
from . import cache_guard, inline_patch
from .by_ref import deref, keep, ref
from .enums import *  # noqa: F403  (kernels read the integer constants as globals)

inline_patch.install()  # numba's IR inliner without its quadratic copy: ~15% off the cold compile
cache_guard.drop_stale_kernels()  # before any kernel loads its cached code: numba does not see edits of enums

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

# ---- the policy slot: heuristics and user policies are called through one function argument of
# this signature, so the cached kernels never recompile for a new policy (see unosim.players.policy_api):
# ``int64 policy(which, kind, obs, params, rng)`` -> an option index, or -1
SLOT_SIG = types.int64(types.int64, types.int64, types.int64[::1], types.float64[::1], types.uint64[::1])
SLOT = types.FunctionType(SLOT_SIG)
i8 = types.int64
I1 = types.int64[::1]
I2 = types.int64[:, ::1]
F1 = types.float64[::1]
F2 = types.float64[:, ::1]


def _sig(*args):
    return types.void(*args)


class LazyKernels:
    """Entry kernels (called from Python, with an explicit signature so that the policy slot argument keeps
    them cached) compiled, or loaded from numba's disk cache, on first use rather than at import: checking a
    run's arguments (:func:`unosim.running.sim.check_simulate`) never waits for the compiler.

    ``@entry(signature, **njit_options)`` registers a module-level function; :meth:`unbind` (at the end
    of the module) removes the plain functions from the namespace, so that the module's ``__getattr__``
    (:meth:`get`) compiles each one on its first access and binds the dispatcher in its place."""

    def __init__(self, namespace: dict) -> None:
        self.ns = namespace
        self.specs: dict[str, tuple] = {}
        self.lock = threading.Lock()

    def __call__(self, signature, **options):
        def register(fn):
            self.specs[fn.__name__] = (fn, signature, options)
            return fn
        return register

    def unbind(self) -> None:
        for name in self.specs:
            self.ns.pop(name, None)

    def get(self, name: str):
        if name not in self.specs:
            raise AttributeError(f"module {self.ns['__name__']!r} has no attribute {name!r}")
        with self.lock:
            if name not in self.ns:
                fn, signature, options = self.specs[name]
                with compiling(name, fn, signature, options.get("cache", False)):
                    self.ns[name] = njit(signature, **options)(fn)
        return self.ns[name]

    def compiled(self) -> list[str]:
        """The entry kernels compiled or loaded so far in this process."""
        return [name for name in self.specs if name in self.ns]


entry = LazyKernels(globals())


class FixedSlot(types.WrapperAddressProtocol):
    """A compiled policy slot by its address, passed to a kernel's ``SLOT`` argument without numba's look-up of
    the dispatcher's compiled version at every call (about 80 microseconds: more than a step of the engine,
    and a quarter of a decision of ``lookahead(rollouts=8)``)."""

    def __init__(self, dispatcher) -> None:
        self._numba_type_ = SLOT  # numba's typeof reads this instead of building the type at every call
        cres = dispatcher.get_compile_result(SLOT_SIG)
        if cres is None:
            dispatcher.compile(SLOT_SIG)
            cres = dispatcher.get_compile_result(SLOT_SIG)
        self._addr = cres.library.get_pointer_to_function(cres.fndesc.llvm_cfunc_wrapper_name)
        self._keep = dispatcher

    def __wrapper_address__(self) -> int:
        return self._addr

    def signature(self):
        return SLOT_SIG


_FIXED: dict[int, FixedSlot] = {}


def fixed_slot(dispatcher) -> FixedSlot:
    """The slot ``dispatcher`` (unosim.players.policy_api.slot_for, heuristics_nb.heuristics_slot_nb) as a
    :class:`FixedSlot`, made once per slot: what the steps and the search pass to their kernels."""
    key = id(dispatcher)
    if key not in _FIXED:
        _FIXED[key] = FixedSlot(dispatcher)
    return _FIXED[key]


_GOLDEN = np.uint64(0x9E3779B97F4A7C15)
_M1 = np.uint64(0xBF58476D1CE4E5B9)
_M2 = np.uint64(0x94D049BB133111EB)
_S30 = np.uint64(30)
_S27 = np.uint64(27)
_S31 = np.uint64(31)
_S32 = np.uint64(32)
_S11 = np.uint64(11)


# ================================================================================================
# Random numbers: splitmix64, one 64-bit word of state per round (rng[0]).
# ================================================================================================
@njit(cache=True, _nrt=False)
def mix64_nb(z):
    z = (z ^ (z >> _S30)) * _M1
    z = (z ^ (z >> _S27)) * _M2
    return z ^ (z >> _S31)


@njit(cache=True, _nrt=False)
def game_seed_nb(master, game):
    """Seed of round ``game`` under master seed ``master`` (both uint64)."""
    return mix64_nb(master ^ mix64_nb(game + _GOLDEN))


@njit(cache=True, _nrt=False)
def next_u64_nb(rng):
    rng[0] += _GOLDEN
    return mix64_nb(rng[0])


@njit(cache=True, _nrt=False)
def randint_nb(rng, n):
    """Uniform integer in [0, n) for 0 < n < 2**32 (multiply-shift; bias below 2**-25 for n <= 224)."""
    return np.int64(((next_u64_nb(rng) >> _S32) * np.uint64(n)) >> _S32)


@njit(cache=True, _nrt=False)
def rand01_nb(rng):
    return np.float64(next_u64_nb(rng) >> _S11) * (1.0 / 9007199254740992.0)


@njit(cache=True, _nrt=False)
def shuffle_nb(a, m, rng):
    """Fisher-Yates shuffle of a[0:m], drawing randint_nb(rng, i + 1) for i = m-1 .. 1 (the state stays
    in a register for the loop instead of a round trip through rng[0] per card)."""
    z = rng[0]
    for i in range(m - 1, 0, -1):
        z += _GOLDEN
        j = np.int64(((mix64_nb(z) >> _S32) * np.uint64(i + 1)) >> _S32)
        t = a[i]
        a[i] = a[j]
        a[j] = t
    rng[0] = z


# ================================================================================================
# Small helpers (scalars and arrays; each is a few instructions and inlined by LLVM)
# ================================================================================================
@njit(cache=True, _nrt=False, inline="always")
def _log(log, st, kind, seat, card, a1, a2):
    # int64 casts: numba compiles a non-inlined function once per combination of literal arguments,
    # and the call sites pass literal event kinds (30 copies of _log_row without them)
    _log_row(log, st, np.int64(kind), np.int64(seat), np.int64(card), np.int64(a1), np.int64(a2))


@njit(cache=True, _nrt=False)
def _log_row(log, st, kind, seat, card, a1, a2):
    k = st[ST_LOG_N]
    if k < log.shape[0]:
        log[k, 0] = kind
        log[k, 1] = seat
        log[k, 2] = card
        log[k, 3] = a1
        log[k, 4] = a2
    st[ST_LOG_N] = k + 1


@njit(cache=True, _nrt=False)
def _nxt(p, d, n, active):
    q = p
    for _ in range(n):
        q += d
        if q >= n:
            q -= n
        elif q < 0:
            q += n
        if active[q]:
            return q
    return p


@njit(cache=True, _nrt=False)
def draw_card_nb(pile, disc, st, rng, log):
    """Pop the top of the draw pile, reshuffling the discard (minus its top) when it is empty.

    Returns -1 when nothing at all is left to draw (docs/rules.md 1.13 Impl. note: the draw is cancelled).
    Small enough for LLVM to inline at every draw; the rare reshuffle stays a call.
    """
    if st[ST_PILE_N] == 0 and not _reshuffle_nb(pile, disc, st, rng, log):
        return -1
    k = st[ST_PILE_N] - 1
    st[ST_PILE_N] = k
    st[ST_DRAWN] += 1
    return pile[k]


@njit(cache=True, _nrt=False)
def _reshuffle_nb(pile, disc, st, rng, log):
    """The discard pile but its top card, shuffled, becomes the draw pile; False when it holds nothing."""
    dn = st[ST_DISC_N]
    if dn <= 1:
        return False
    m = dn - 1
    for i in range(m):
        pile[i] = disc[i]
    shuffle_nb(pile, m, rng)
    disc[0] = disc[dn - 1]
    st[ST_DISC_N] = 1
    st[ST_PILE_N] = m
    st[ST_RESHUF] += 1
    if log.shape[0] > 0:
        _log(log, st, EV_RESHUFFLE, -1, -1, m, 0)
    return True


@njit(cache=True, _nrt=False)
def draw_to_hand_nb(p, hand, hlen, pile, disc, st, rng, log):
    """Seat p draws one card into its hand; returns it, or -1 when nothing is left to draw.  Its callers count
    the cards held where the counts are kept (_held_from): this and _give_cards stay small enough for LLVM to
    inline in the fast turns (with the count inside _give_cards it became a call there, and official rounds
    ran 4-7% slower)."""
    c = draw_card_nb(pile, disc, st, rng, log)
    if c >= 0:
        hand[p, hlen[p]] = c
        hlen[p] += 1
    return c


@njit(cache=True, _nrt=False)
def _held_add(st, c, delta, fcol, frank):
    """Card c entered a hand (delta 1) or left one (-1): the count of its kind held (ST_HELD)."""
    side = st[ST_SIDE]
    st[ST_HELD + fcol[side, c] * NRANKS + frank[side, c]] += delta


@njit(cache=True, _nrt=False)
def _count_held(n, hand, hlen, fcol, frank, st):
    """Count the cards held by kind afresh (ST_HELD): at the start of a round, when a paused or stopped round
    goes on (its arrays may come from elsewhere: a rollout's deal) and when the active side changes."""
    for k in range(NKINDS):
        st[ST_HELD + k] = 0
    for q in range(n):
        for i in range(hlen[q]):
            _held_add(st, hand[q, i], 1, fcol, frank)


@njit(cache=True, _nrt=False)
def _held_from(p, h0, hand, hlen, fcol, frank, st):
    """Count the cards seat p drew since its hand held h0 (hand[p, h0:]), where the counts are kept."""
    if st[ST_HELD_ON] != 0:
        for i in range(h0, hlen[p]):
            _held_add(st, hand[p, i], 1, fcol, frank)


@njit(cache=True, _nrt=False)
def _forget_voids(st, p):
    """Seat p received cards nobody saw: what it showed it lacked may be in its hand again.  Called once
    per draw event by the callers of draw_to_hand_nb, not per card (draw_to_hand_nb stays small enough
    for LLVM to inline it at every draw: the store per card measured about 6% slower on official rules)."""
    st[ST_VOID + p] = 0


@njit(cache=True, _nrt=False)
def _mark_void(st, p, col, rank, side):
    """Seat p showed it holds no card of colour col and no coloured card of rank ``rank`` (-1: nothing
    learned of ranks) on side ``side`` (it drew: nothing was playable).  The colours add to those it showed
    before on the same side (it drew nothing since); the rank replaces the one before."""
    if col < 0 or col >= NCOLORS:
        return
    rec = st[ST_VOID + p]
    mask = (rec - 1) & 15 if rec > 0 and ((rec - 1) >> 4) & 1 == side else 0
    st[ST_VOID + p] = (mask | (1 << col) | (side << 4) | ((rank + 1) << 5)) + 1


@njit(cache=True, _nrt=False)
def _swap_voids(st, a, b):
    """Hands a and b were swapped: what was known of each hand goes with it."""
    t = st[ST_VOID + a]
    st[ST_VOID + a] = st[ST_VOID + b]
    st[ST_VOID + b] = t


@njit(cache=True, _nrt=False, inline="always")
def _void_bits(st, n, side, active):
    """The public voids of every seat in the round as OBS_VOIDS and OBS_RANK_VOIDS pack them: (colours,
    ranks); a coloured rank only (a draw on a wild's colour shows nothing of ranks).  Without a branch on
    what is known (a seat's record is a coin flip to the branch predictor): a seat's bits are masked out."""
    colours = np.int64(0)
    ranks = np.int64(0)
    for s in range(n):
        rec = st[ST_VOID + s] - 1  # -1: nothing known
        keep = -np.int64((rec >= 0) & (active[s] != 0) & (((rec >> 4) & 1) == side))
        colours |= ((rec & 15) << (4 * s)) & keep
        rv = (rec >> 5) & 31
        ranks |= ((rv * _RANK_VOID_OK[rv]) << (5 * s)) & keep
    return colours, ranks


@njit(cache=True, _nrt=False, inline="always")
def give_cards_nb(p, k, hand, hlen, pile, disc, st, rng, log, ev, fcol, frank):
    """Seat p draws k cards (a penalty when ev == EV_PENALTY), counted where the counts are kept.  Returns how
    many it really got."""
    h0 = hlen[p]
    got = _give_cards(np.int64(p), np.int64(k), hand, hlen, pile, disc, st, rng, log, np.int64(ev))
    _held_from(p, h0, hand, hlen, fcol, frank, st)
    return got


@njit(cache=True, _nrt=False)
def _give_cards(p, k, hand, hlen, pile, disc, st, rng, log, ev):
    """give_cards_nb without counting the cards held: small enough for LLVM to inline (the fast turns call
    it directly, and count the cards held themselves under jump-in)."""
    got = 0
    for _ in range(k):
        if draw_to_hand_nb(p, hand, hlen, pile, disc, st, rng, log) < 0:
            break
        got += 1
    if got > 0:
        _forget_voids(st, p)
    if log.shape[0] > 0 and k > 0:
        _log(log, st, ev, p, -1, got, k)
    return got


@njit(cache=True, _nrt=False)
def draw_until_color_nb(p, color, side, hand, hlen, fcol, pile, disc, st, rng, log):
    """Wild Draw Colour (docs/rules.md 2.6): p draws until a card whose active face has ``color``
    (black never counts); stops when nothing is left to draw.  Returns cards drawn."""
    got = 0
    while True:
        c = draw_to_hand_nb(p, hand, hlen, pile, disc, st, rng, log)
        if c < 0:
            break
        got += 1
        if fcol[side, c] == color:
            break
    if got > 0:
        _forget_voids(st, p)
    if log.shape[0] > 0:
        _log(log, st, EV_PENALTY, p, -1, got, -1)
    return got


@njit(cache=True, _nrt=False)
def _penalty(p, kind, amount, color, side, hand, hlen, fcol, frank, pile, disc, st, rng, log):
    """The victim p takes a pending attack: ``amount`` cards, or until ``color`` for Wild Draw Colour
    (then ``amount`` more on top, e.g. the +2 of a failed challenge).  Its arrays one by one (not the round's
    tuple): small enough for LLVM to inline at each of its sites, which numba then types once."""
    h0 = hlen[p]
    if kind == WILD_DRAW_COLOR:
        draw_until_color_nb(p, color, side, hand, hlen, fcol, pile, disc, st, rng, log)
    if amount > 0:
        _give_cards(p, amount, hand, hlen, pile, disc, st, rng, log, np.int64(EV_PENALTY))
    _held_from(p, h0, hand, hlen, fcol, frank, st)


@njit(cache=True, _nrt=False)
def _challenge_terms(kind, wd4_guilty, wd4_innocent, wd2_guilty, wd2_innocent, wdc_extra):
    """(cards a guilty offender draws, extra cards an innocent-verdict challenger draws on top of the
    pending total) for a challenged restricted wild draw (docs/rules.md 1.11, 2.9)."""
    if kind == WILD_DRAW2:
        return wd2_guilty, wd2_innocent - 2
    if kind == WILD_DRAW_COLOR:
        return 0, wdc_extra
    return wd4_guilty, wd4_innocent - 4


@njit(cache=True, _nrt=False)
def _flip_nb(pile, disc, st):
    """UNO Flip (docs/rules.md 2.8): turn the discard pile over (the Flip just played goes to the bottom,
    the oldest discard's other face is the new top) and the draw pile over (its order reverses).
    Hands need no change: a card id carries both faces; the caller switches the active side."""
    dn = st[ST_DISC_N]
    for i in range(dn // 2):
        t = disc[i]
        disc[i] = disc[dn - 1 - i]
        disc[dn - 1 - i] = t
    pn = st[ST_PILE_N]
    for i in range(pn // 2):
        t = pile[i]
        pile[i] = pile[pn - 1 - i]
        pile[pn - 1 - i] = t


@njit(cache=True, _nrt=False)
def _turn_over(n, hand, hlen, pile, disc, st, res, fcol, frank):
    """A Flip executes: both piles turn over (_flip_nb), the other side becomes active and the cards held are
    counted again on it where the counts are kept.  Returns the new side."""
    _flip_nb(pile, disc, st)
    side = 1 - st[ST_SIDE]
    st[ST_SIDE] = side
    if st[ST_HELD_ON] != 0:
        _count_held(n, hand, hlen, fcol, frank, st)
    res[RES_FLIPS] += 1
    return side


@njit(cache=True, _nrt=False)
def _remove_at(p, i, hand, hlen):
    c = hand[p, i]
    last = hlen[p] - 1
    hand[p, i] = hand[p, last]
    hlen[p] = last
    return c


@njit(cache=True, _nrt=False)
def _find_kind(p, v, side, hand, hlen, fcol, frank):
    """First index in p's hand of a card of kind v = colour * NRANKS + rank (scripts name kinds; the jumper's
    twin in _jump_ahead)."""
    for i in range(hlen[p]):
        c = hand[p, i]
        if fcol[side, c] * NRANKS + frank[side, c] == v:
            return i
    return -1


HAND_BLOCK = 16  # hands of up to this many cards change seats as one block of this size (_fits_block)


@njit(cache=True, _nrt=False, inline="always")
def _fits_block(most, hand):
    """Whether hands of at most ``most`` cards move as a block of HAND_BLOCK entries: a loop of the same count
    every time, whose exit the branch predictor learns (a hand's length is a coin flip to it); the entries past a
    hand's length are moved too and never read."""
    return most <= HAND_BLOCK and hand.shape[1] >= HAND_BLOCK


@njit(cache=True, _nrt=False)
def _swap_hands(a, b, hand, hlen):
    m = max(hlen[a], hlen[b])
    if _fits_block(m, hand):
        m = HAND_BLOCK
    for i in range(m):
        t = hand[a, i]
        hand[a, i] = hand[b, i]
        hand[b, i] = t
    t = hlen[a]
    hlen[a] = hlen[b]
    hlen[b] = t


@njit(cache=True, _nrt=False)
def _rotate_hands(n, d, active, hand, hlen, tmp):
    """Every active hand passes to the next active seat in direction d (a 0 under seven_zero)."""
    first = -1
    for s in range(n):
        if active[s]:
            first = s
            break
    if first < 0:
        return
    # walk the cycle backwards: the hand of prev(s) moves to s.
    ln = hlen[first]
    most = ln
    for t in range(n):
        most = max(most, hlen[t])
    m = HAND_BLOCK if _fits_block(most, hand) and tmp.shape[0] >= HAND_BLOCK else most
    for i in range(m):
        tmp[i] = hand[first, i]
    s = first
    for _ in range(n):
        prv = _nxt(s, -d, n, active)
        if prv == first:
            break
        for i in range(m):
            hand[s, i] = hand[prv, i]
        hlen[s] = hlen[prv]
        s = prv
    for i in range(m):
        hand[s, i] = tmp[i]
    hlen[s] = ln


@njit(cache=True, _nrt=False, inline="always")
def _most_color(p, side, hand, hlen, fcol):
    """Colour the seat holds most of (ties to the lowest index); 0 for an empty or all-black hand."""
    c0 = 0
    c1 = 0
    c2 = 0
    c3 = 0
    for i in range(hlen[p]):
        col = fcol[side, hand[p, i]]
        if col == 0:
            c0 += 1
        elif col == 1:
            c1 += 1
        elif col == 2:
            c2 += 1
        elif col == 3:
            c3 += 1
    best = 0
    bc = c0
    if c1 > bc:
        best = 1
        bc = c1
    if c2 > bc:
        best = 2
        bc = c2
    if c3 > bc:
        best = 3
    return best


@njit(cache=True, _nrt=False)
def _script_next(script, st):
    k = st[ST_SCRIPT_POS]
    if k >= script.shape[0]:
        st[ST_ERR] = 1
        return -1
    st[ST_SCRIPT_POS] = k + 1
    return script[k]


@njit(cache=True, _nrt=False)
def _is_wd4_guilty(p, side, hand, hlen, fcol, frank, cur, top_rank, restriction):
    """True when playing a Wild Draw Four now breaks the restriction (docs/rules.md 1.10)."""
    if restriction == 2:
        return False
    for i in range(hlen[p]):
        c = hand[p, i]
        col = fcol[side, c]
        if col == BLACK:
            continue
        if col == cur:
            return True
        if restriction == 1 and frank[side, c] == top_rank:
            return True
    return False


@njit(cache=True, _nrt=False)
def _speed_uno_options(p, hl, nopt, cur, side, color_turn, no_wd4_out, obs, hand, fcol, frank):
    """Drop the options a Speed Uno turn forbids: a coloured card of another colour on a colour turn, a Wild Draw
    Four that is the last card (no going out on it).  Returns the options left, in hand order (a Wild Draw Four
    that breaks the restriction is moved behind them afterwards, _wild_draws_behind)."""
    k = 0
    for j in range(nopt):
        i = obs[OBS_OPT + OPT_STRIDE * j + 1]
        cc = hand[p, i]
        col = fcol[side, cc]
        if color_turn and col != BLACK and col != cur and cur >= 0:
            continue
        if no_wd4_out and hl == 1 and frank[side, cc] == WD4:
            continue  # Speed Uno: no going out on a Wild Draw Four
        obs[OBS_OPT + OPT_STRIDE * k + 1] = i
        k += 1
    return k


# ================================================================================================
# What a seat learned: obs[kn0 + c] (kn0 = obs.shape[0] - MAXP * NKINDS - cards) has bit v set while
# seat v knows which hand card c is in because it was shown or passed to it (a 7 / 0 / 5 swap, a
# Howler, a Wild Draw Four challenge).  Kept only when a seat reads the observation; a card's bits
# are cleared when it is played (a card drawn later is unknown again).
# ================================================================================================
@njit(cache=True, _nrt=False)
def _seen_at(obs, ncards):
    """Offset of the per-card bit masks in obs (enums.obs_size: they sit before the known-cards region)."""
    return obs.shape[0] - MAXP * NKINDS - ncards


@njit(cache=True, _nrt=False)
def _learn_nb(obs, s, viewers, hand, hlen):
    """The seats in the bit mask ``viewers`` see seat s's whole hand."""
    kn0 = _seen_at(obs, hand.shape[1])
    for i in range(hlen[s]):
        obs[kn0 + hand[s, i]] |= viewers
    obs[OBS_KNOWN_ON] = 1


@njit(cache=True, _nrt=False)
def _known_counts_nb(p, n, side, obs, hand, hlen, fcol, frank, active):
    """The known-cards region for the deciding seat p (called once something was shown this round)."""
    k0 = obs[OBS_KNOWN_AT]
    kn0 = _seen_at(obs, hand.shape[1])
    bit = 1 << p
    for s in range(n):
        b = k0 + s * NKINDS
        for k in range(NKINDS):
            obs[b + k] = 0
        if s != p and active[s] != 0:
            for i in range(hlen[s]):
                c = hand[s, i]
                if obs[kn0 + c] & bit:
                    obs[b + _kind_of(c, side, fcol, frank)] += 1


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


# ================================================================================================
# One round
# ================================================================================================
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


@njit(cache=True, _nrt=False, inline="always")
def greedy_order_nb(col, rk, pts):
    """greedy's order of a coloured card, the current colour aside (100 more for a card of it): 1000 a point,
    10 a step of symbol priority (_SYM_PRI), and 4 less its colour index (the lower index first).  The one
    statement of it: the engine's keys (_greedy_key) and the heuristics' (heuristics_nb.greedy_key)."""
    return pts * 1000 + _SYM_PRI[rk] * 10 + (NCOLORS - col)


@njit(cache=True, _nrt=False)
def _greedy_key(col, rk, pts):
    """greedy's order of a card (_greedy_play), the current colour aside: its key times 8, plus its colour (4
    for a black card, which no current colour matches).  The key of a coloured card: greedy_order_nb plus 2 (so
    at least 3, above every wild); an attacking wild (Wild Draw Four, Flip's wild draws ...) 1; a plain wild 0."""
    if col == BLACK:
        return np.int64(8 + 4 if rk != WILD and rk != INVIS_WILD else 4)
    return np.int64((greedy_order_nb(col, rk, pts) + 2) * 8 + col)


@njit(cache=True, _nrt=False, inline="always")
def _key_row(cmask, side):
    """The row of ``cmask`` that holds greedy's keys of side ``side``'s faces (rows S .. 2S-1, below the masks
    of the S sides)."""
    return (cmask.shape[0] >> 1) + side


@njit(cache=True, _nrt=False)
def card_masks_nb(fcol, frank, fpts, cmask, first_side):
    """Fill cmask[side, c] and greedy's keys cmask[S + side, c] (S sides) from the deck's face tables for the
    sides from ``first_side`` on (call again whenever they change: a new UNO Flip pairing changes side 1 only)."""
    one = np.int64(1)
    ns = fcol.shape[0]
    for side in range(first_side, ns):
        for c in range(fcol.shape[1]):
            col = fcol[side, c]
            rk = frank[side, c]
            if col == BLACK:
                cmask[side, c] = CM_BLACK | (CM_WDRAW if _IS_WDRAW[rk] else 0)
            else:
                cmask[side, c] = (one << col) | (one << (CM_RANK0 + rk))
            cmask[_key_row(cmask, side), c] = _greedy_key(col, rk, fpts[side, c])


@njit(cache=True)
def new_card_masks_nb(fcol, frank, fpts):
    """The masks and greedy's keys of a deck's face tables, in a new array (card_masks_nb refills it after a
    new pairing)."""
    cmask = np.empty((2 * fcol.shape[0], fcol.shape[1]), np.int64)
    card_masks_nb(fcol, frank, fpts, cmask, 0)
    return cmask


@njit(cache=True, _nrt=False)
def _turn_masks(cur, top_rank, sym_ok, any_ok, restr1):
    """(legal, guilt) of _play_options: the masks of the cards that may be laid on this turn, and of those
    whose presence makes a Wild Draw Four a bluff.  A free colour (cur < 0) takes every card, and nothing
    makes a Wild Draw Four guilty then."""
    one = np.int64(1)
    if cur < 0:
        return np.int64(-1), np.int64(0)
    legal = (one << cur) | CM_BLACK
    guilt = one << cur
    if sym_ok:
        legal |= one << (CM_RANK0 + top_rank)
        if restr1:
            guilt |= one << (CM_RANK0 + top_rank)
    if any_ok:
        legal |= CM_ACTIONS
    return legal, guilt


@njit(cache=True, _nrt=False)
def _wild_draws_behind(p, nlegal, side, bluff_ok, obs, hand, cmask, lg):
    """A wild draw card that breaks the restriction (docs/rules.md 1.10): the wild draw cards among the nlegal
    options go behind the others (a bluff, where bluffing is allowed) or out, each part in hand order.  One card
    mask a card and no branch.  Returns (legal options, all options)."""
    us = np.uint64(side)
    k = 0
    nw = 0
    for j in range(nlegal):
        i = obs[np.uint64(OBS_OPT + OPT_STRIDE * j + 1)]
        wd = (cmask[us, np.uint64(hand[p, i])] & CM_WDRAW) != 0
        obs[np.uint64(OBS_OPT + OPT_STRIDE * k + 1)] = i
        lg[np.uint64(nw)] = i
        k += np.int64(not wd)
        nw += np.int64(wd)
    nleg = k
    if bluff_ok:
        for j in range(nw):
            obs[np.uint64(OBS_OPT + OPT_STRIDE * k + 1)] = lg[j]
            k += 1
    return nleg, k


@njit(cache=True, _nrt=False, inline="always")
def _play_options(p, cur, side, top, top_rank, color_turn, no_wd4_out, bluff_ok, by_symbol, any_action,
                  restriction, g):
    """The options of p's play decision into obs: the hand indices of its legal cards in hand order (a
    Wild Draw Four that breaks the restriction is moved behind them as a bluff where bluffing is
    allowed).  Returns (legal options, all options, whether a bluff is possible); ``lg`` is the scan's scratch."""
    hand, hlen, pile, disc, lg, tmp, active, st, rng, log, res, obs, fcol, frank, fpts, cmask, \
        pol, pp, script, ufn, R, RD = g
    hl = hlen[p]
    sym_ok = by_symbol or top_rank <= 9
    any_ok = any_action and top_rank > 9 and fcol[side, top] != BLACK
    legal, guilt = _turn_masks(cur, top_rank, sym_ok, any_ok, restriction == 1)
    # one load and one test per card, no branch (a colour match is a coin flip to the branch predictor):
    # every card's index is written and only a legal one is kept; unsigned indices carry no
    # negative-index wrap-around
    us = np.uint64(side)
    nlegal = 0
    held = np.int64(0)
    for i in range(hl):
        m = cmask[us, np.uint64(hand[p, i])]
        obs[np.uint64(OBS_OPT + OPT_STRIDE * nlegal + 1)] = i
        nlegal += np.int64((m & legal) != 0)
        held |= m
    guilty = (held & guilt) != 0
    has_wdraw = (held & CM_WDRAW) != 0
    nopt = nlegal
    wd4_ok = restriction == 2 or not guilty
    if color_turn or no_wd4_out:
        # typed casts: one compiled _speed_uno_options, not one per call site's literals
        nlegal = _speed_uno_options(p, hl, np.int64(nlegal), cur, side, np.bool_(color_turn), np.bool_(no_wd4_out),
                                    obs, hand, fcol, frank)
        nopt = nlegal
    if has_wdraw and not wd4_ok:
        nlegal, nopt = _wild_draws_behind(p, nlegal, side, bluff_ok, obs, hand, cmask, lg)
    return nlegal, nopt, bluff_ok and guilty and has_wdraw


@njit(cache=True, _nrt=False, inline="always")
def _draw_for_play(p, color_turn, cur, side, top_rank, dup, by_symbol, any_action, restriction, g):
    """p draws instead of playing: one card, or until one is playable (draw_until_playable, and a Speed
    Uno colour turn).  Returns (the last card drawn or -1 when nothing was left, whether it is playable).
    Everybody takes it that p held no card of the current colour, nor a coloured card of the top card's
    rank where that rank matches (a table player's inference: see enums.OBS_VOIDS, OBS_RANK_VOIDS)."""
    hand, hlen, pile, disc, lg, tmp, active, st, rng, log, res, obs, fcol, frank, fpts, cmask, \
        pol, pp, script, ufn, R, RD = g
    got = -1
    playable = False
    while True:
        c = draw_to_hand_nb(p, hand, hlen, pile, disc, st, rng, log)
        if c < 0:
            break
        got = c
        if log.shape[0] > 0:
            _log(log, st, EV_DRAW, p, c, 0, 0)
        playable = _card_legal(p, c, side, cur, top_rank, hand, hlen, fcol, frank, by_symbol, any_action,
                               restriction)
        if color_turn and fcol[side, c] != BLACK and fcol[side, c] != cur:
            playable = False
        if playable or not (dup or color_turn):
            break
    if got >= 0:
        _forget_voids(st, p)
    _mark_void(st, p, cur, top_rank if not color_turn and (top_rank <= 9 or by_symbol) else -1, side)
    return got, playable


@njit(cache=True, _nrt=False, inline="always")
def _builtin_nb(kind, p, nopt, nleg, flag, cur, side, dc):
    """The built-in policies, ``random`` and ``greedy``, inlined (decide_nb and the fast turns)."""
    pol, pp, obs, hand, hlen, fcol, frank, fpts, disc, active, st, rng, script, ufn, cmask, gp = dc
    if pol[p] == POL_RANDOM:
        return random_nb(kind, p, nopt, nleg, flag, cur, side, dc)
    return greedy_nb(kind, p, nopt, nleg, flag, cur, side, dc)


@njit(cache=True, _nrt=False)
def _all_builtin(n, pol):
    """Whether every seat plays ``random`` or ``greedy``."""
    for s in range(n):
        if pol[s] > POL_GREEDY:
            return False
    return True


@njit(cache=True, _nrt=False)
def _fast_seat(pid):
    """Whether the fast turns play this policy's turns: the built-ins and the policies of the slot, not a
    scripted seat, a plain-Python seat (its answers are replayed) or a rollout's forced seat."""
    return pid <= POL_GREEDY or pid >= POL_SLOT


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


@njit(cache=True, _nrt=False)
def _may_answer(v, rk, rev_skips, fflags, side, hand, hlen, cmask):
    """Whether seat v, the victim of a card of rank ``rk`` (coloured, or a wild draw card) just laid by the fast
    turns, holds a card that may answer the attack it leaves pending (a draw card; a Skip, or a Reverse that
    skips with two players, ``rev_skips``), under the response-window switches in ``fflags``
    (FAST_RESP_SHIFT).  One OR of the hand's card masks against _answer_mask.  A call of its own keeps the
    fast turns' loop small."""
    pend = rk if (_DRAW_N[rk] > 0 or _IS_WDRAW[rk]) else (SKIP if rk == SKIP or (rk == REVERSE and rev_skips) else -1)
    if pend < 0:
        return False
    resp = (fflags >> FAST_RESP_SHIFT) & 2047
    held = 0
    for i in range(hlen[v]):
        held |= cmask[side, hand[v, i]]
    return (held & _answer_mask(pend, rk, resp)) != 0


@njit(cache=True, _nrt=False)
def _fast_swap(n, actor, nxt, rk, c, d, cur, turns, prev_color, obs_on, gp):
    """The swap or pass of hands of a number card ``c`` (rank ``rk``: a 7 or 0 under seven_zero, ...) that
    ``actor`` just laid in the fast turns (_swap_with), with the round's state in st as the full loop has
    it there: the next seat ``nxt``, direction, colour and turns, and the observation's header (what a seat
    of the slot reads when it chooses a card to give).  A call: it keeps the rare swap out of the loop."""
    g = deref(gp)
    st = g[7]
    st[ST_P] = nxt
    st[ST_D] = d
    st[ST_CUR] = cur
    st[ST_TURNS] = turns
    if obs_on:
        _pub(g[11], turns, d, -1, 0, -1, prev_color)
    _swap_with(n, actor, rk, c, g, gp)


@njit(cache=True, _nrt=False)
def _swap_builtin(n, actor, greedy, rk, d, gp):
    """_swap_with for a ``random`` or ``greedy`` actor while no seat reads the observation, a whole-hand swap
    or a pass of hands: the same target (random: uniform over the other seats in seat order, and nobody where
    the swap is optional; greedy: the fewest cards, ties to the nearest in the direction of play), the same
    random numbers, the same hands and voids after, without _swap_with's decision context."""
    hand, hlen, pile, disc, lg, tmp, active, st, rng, log, res, obs, fcol, frank, fpts, cmask, \
        pol, pp, script, ufn, R, RD = deref(gp)
    what, optional, whole = _swap_rule(rk, R)  # whole: lean_swaps leaves the one-card exchange to _fast_swap
    if what == SWAP_PASS:
        _rotate_hands(n, 1 if R[R_ZERO_LEFT] else d, active, hand, hlen, tmp)  # _pass_hands
        for s in range(n):
            st[ST_VOID + s] = 0
        return True
    if what == SWAP_NONE:
        return False
    m = 0
    for s in range(n):
        if s != actor and active[s]:
            m += 1
    tgt = -1
    if not greedy:
        k = randint_nb(rng, m + (1 if optional else 0))
        for s in range(n):
            if s != actor and active[s]:
                if k == 0:
                    tgt = s
                    break
                k -= 1
    else:
        bkey = 0
        for s in range(n):
            if s != actor and active[s]:
                key = hlen[s] * 64 + ((s - actor) * d) % n
                if tgt < 0 or key < bkey:
                    bkey = key
                    tgt = s
    if tgt < 0:
        return False
    _swap_hands(actor, tgt, hand, hlen)
    _swap_voids(st, actor, tgt)
    return True


@njit(cache=True, _nrt=False)
def _fast_turns_nb(p, d, n, cur, side, turns, cap, restriction, fflags, prev_color, gp):
    """The common turns of a round, in a small function of its own, away from the register pressure of
    play_round_nb's big loop.

    play_round_nb calls it at a normal turn of a round where these turns need nothing else (see
    ``fast`` there): no log or snapshot; no double play, turn penalty or Speed Uno rule;
    a Skip or Reverse has its plain effect (no skip_extra_turn, reverse_single_turn).  It plays the turns
    of ``random``, ``greedy`` and the policies of the slot (heuristics, the user's numba policies) exactly
    as the big loop would, with the same decisions asked in the same order and the same random numbers:
    a number card (and the swap or pass of hands of a 7, 0 or 5 under the swap rules, in a call:
    _swap_builtin for random and greedy while nobody observes, else _fast_swap), a plain wild, a wild draw
    card whose victim, random or greedy, never challenges (while nobody observes), a coloured Skip, Reverse,
    Draw card or Skip Everyone, a draw (and the drawn card, or a pass).  The victim of a Skip or Draw card
    simply draws and loses the turn.  Where attacks may be answered (stacking, deflecting, bouncing: the
    response-window switches in ``fflags``), that holds while the victim's hand holds none of the cards that
    may answer it (_may_answer): nobody is asked then.  Otherwise the card goes back to the big loop, which
    lays it and opens the response window.  Under jump-in (FAST_JUMP) they keep the counts of the cards held
    and lay a card whose twin nobody else holds; a card whose twin is held goes back to the big loop, which
    opens the jump-in window, unless every seat is random or greedy, nobody observes, and the window's race
    run ahead (_jump_ahead: a coloured card that swaps nothing) shows that nobody jumps in, or that somebody
    lays the last twin of a number card keeping two cards (one under FAST_UNO_QUIET): both cards are laid here.
    Leaving this function costs far more than a turn in it (measured:
    handing every Draw Two back made official rounds 25% slower, and handing back the 7s and 0s made
    seven_zero slower than the big loop alone, which is why they are carried out here).  Every card must leave
    its player at least one card (two without the UNO-call rules, FAST_UNO_QUIET).  Where a seat reads the
    observation (FAST_OBS), it keeps what the big loop keeps for it: the header before a slot seat's play
    decision (``prev_color``: the colour before the last Wild Draw Four, which only the big loop lays while a seat observes), the
    played-card counts and the per-card seen bits.

    Returns (p, d, cur, turns, play_i, play_c, attacked). play_c >= 0: seat p's turn chose the card at hand
    index play_i, which the big loop lays with its full play block (and counts the turn). play_c = -1: the
    next turn is the one that reaches the turn cap, a policy erred (st[ST_ERR]), or seat p is scripted, a
    plain-Python seat or a rollout's forced seat; the big loop takes over at the top of a turn. attacked: a Draw card hit somebody
    (res[RES_STACK_MAX] is at least 1). ``fflags``: the rule switches it reads: FAST_* bits and the response-
    window switches (FAST_RESP_SHIFT). ``g``: the round (see play_round_nb); its ``lg`` is the legality scan's
    scratch.
    """
    g = deref(gp)
    hand, hlen, pile, disc, lg, tmp, active, st, rng, log, res, obs, fcol, frank, fpts, cmask, \
        pol, pp, script, ufn, R, RD = g
    dc = decision_ctx(g, gp)
    by_symbol = (fflags & FAST_BY_SYMBOL) != 0
    any_action = (fflags & FAST_ANY_ACTION) != 0
    bluff_ok = (fflags & FAST_BLUFF_OK) != 0
    dup = (fflags & FAST_DUP) != 0
    dup_must = (fflags & FAST_DUP_MUST) != 0
    drawn_forced = (fflags & FAST_DRAWN_FORCED) != 0
    color_rotation = (fflags & FAST_COLOR_ROTATION) != 0
    uno_quiet = (fflags & FAST_UNO_QUIET) != 0
    rev_skips = (fflags & FAST_REV_SKIPS) != 0
    obs_on = (fflags & FAST_OBS) != 0
    voluntary = (fflags & FAST_VOLUNTARY) != 0
    swaps = (fflags & FAST_SWAPS) != 0
    jump = (fflags & FAST_JUMP) != 0
    # jump-in with every seat random or greedy, nobody observing: the fast turns look ahead at the window
    jump_ahead = jump and not obs_on and _all_builtin(n, pol)
    # the 7s and 0s of random and greedy seats, nobody observing, swapped in a lean call (_swap_builtin)
    lean_swaps = swaps and not obs_on and R[R_ROUND_N_ROUND] == 0 and (R[R_SWAP_FIVE] == 0 or R[R_SWAP5_WHOLE] != 0)
    # whether any card may answer a Skip (deflect_skip, Harry Potter's Invisibility Wild): when none may,
    # a Skip needs no look at its victim's hand
    resp = (fflags >> FAST_RESP_SHIFT) & 2047
    skip_answerable = fflags >= FAST_RESP_MIN and _answer_mask(SKIP, SKIP, resp) != 0
    attacked = False
    no = False  # color_turn and no_wd4_out: never in the fast turns
    # the turn that reaches the cap is the big loop's: its round ends there before the victim of a draw card
    # draws (docs/rules.md 5.1) or a jump-in window opens
    last = cap - 1
    while True:
        if turns >= last or not _fast_seat(pol[p]) or st[ST_ERR] != 0:
            return p, d, cur, turns, -1, -1, attacked
        top = disc[st[ST_DISC_N] - 1]
        top_rank = frank[side, top]
        nlegal, nopt, bluff_now = _play_options(p, cur, side, top, top_rank, no, no, bluff_ok, by_symbol,
                                                any_action, restriction, g)
        pflag = (1 if bluff_now else 0) | (2 if (nlegal > 0 and not voluntary) else 0)
        pid = pol[p]
        if pid >= POL_SLOT:
            _pub(obs, turns + 1, d, -1, 0, -1, prev_color)
        if pid <= POL_GREEDY:
            choice = _builtin_nb(D_PLAY, p, nopt, nlegal, pflag, cur, side, dc)
        else:
            choice = ask_slot_nb(D_PLAY, p, pid, nopt, nlegal, none_ok_nb(D_PLAY, pflag), cur, side, n, dc)
        if st[ST_ERR] != 0:
            return p, d, cur, turns + 1, -1, -1, attacked  # a policy erred: the round ends (the turn counted)
        if choice >= 0:
            play_i = _opt_index(obs, choice)
        else:
            h0 = hlen[p]
            got, playable = _draw_for_play(p, no, cur, side, top_rank, dup, by_symbol, any_action, restriction, g)
            if jump:
                _held_from(p, h0, hand, hlen, fcol, frank, st)
            if not (playable and (drawn_forced or (dup and dup_must) or
                                  _play_drawn(p, cur, side, n, dc))):
                turns += 1
                p = _nxt(p, d, n, active)
                continue
            play_i = hlen[p] - 1
        c = hand[p, play_i]
        rk = frank[side, c]
        col = fcol[side, c]
        left = hlen[p] - 1
        if col == BLACK:
            simple = rk == WILD
            if _IS_WDRAW[rk] and not obs_on:
                # a wild draw card (Wild Draw Four; UNO Flip: Wild Draw Two, Wild Draw Colour) while nobody
                # observes, when its victim, random or greedy, never challenges (probability 0: the big loop
                # would ask and draw no random number) and holds nothing that may answer it (_may_answer): the
                # victim simply draws and loses the turn
                v = _nxt(p, d, n, active)
                simple = pol[v] <= POL_GREEDY and (R[R_CHALLENGE] == 0 or pp[v, PP_CHALLENGE] <= 0.0) and \
                    (fflags < FAST_RESP_MIN or not _may_answer(v, rk, rev_skips, fflags, side, hand, hlen, cmask))
        else:
            simple = rk <= 9 or rk == SKIP or rk == REVERSE or rk == SKIP_ALL or _DRAW_N[rk] > 0
            if simple and rk > 9 and fflags >= FAST_RESP_MIN and (_DRAW_N[rk] > 0 or skip_answerable):
                # a card that leaves an attack pending: the big loop lays it if its victim may answer
                simple = not _may_answer(_nxt(p, d, n, active), rk, rev_skips, fflags, side, hand, hlen, cmask)
        if not simple or left == 0 or (left == 1 and not uno_quiet):
            return p, d, cur, turns, play_i, c, attacked
        jumper = -1
        jump_i = -1
        if jump and _jumpable(col, rk, R) and st[ST_HELD + col * NRANKS + rk] > 1:
            # somebody else may hold the same card: the big loop lays it and opens the jump-in window, unless the
            # fast turns, running the window's race ahead, see that nobody jumps in, or who lays the last twin
            # (_jump_ahead)
            if not jump_ahead or col == BLACK or (swaps and rk <= 9 and _swap_card(rk, R)):
                return p, d, cur, turns, play_i, c, attacked
            jumper, jump_i = _jump_ahead(n, p, col, rk, d, fflags, hand, hlen, cmask, pol, active, st, rng, RD)
            if jumper == -2:
                return p, d, cur, turns, play_i, c, attacked
        turns += 1
        _remove_at(p, play_i, hand, hlen)
        if jump:
            st[ST_HELD + col * NRANKS + rk] -= 1
        disc[st[ST_DISC_N]] = c
        st[ST_DISC_N] += 1
        if obs_on:
            _count_play(obs, c, 1, side, st, fcol, frank)
            obs[_seen_at(obs, fcol.shape[1]) + c] = 0
        if col == BLACK:
            if _IS_WDRAW[rk]:
                # what the big loop's _attack_laid keeps of it (the colour before it, whether it broke the
                # restriction), before the colour changes
                st[ST_PEND_GUILTY] = _is_wd4_guilty(p, side, hand, hlen, fcol, frank, cur, top_rank, restriction)
                st[ST_PEND_PREV_COLOR] = cur
            if color_rotation:
                cur = _ROT_CW[cur] if d == 1 else _ROT_CCW[cur]
            else:
                cur = _choose_color(p, cur, side, n, dc)
        else:
            cur = col
        if rk == SKIP_ALL:
            continue  # Skip Everyone: the player goes again
        if rk == REVERSE and not rev_skips:
            d = -d
        elif rk > 9 and (col != BLACK or _IS_WDRAW[rk]):
            # the next player is skipped (a Skip; a Reverse as a Skip), after drawing (a draw card)
            p = _nxt(p, d, n, active)
            h0 = hlen[p]
            if rk == WILD_DRAW_COLOR:
                draw_until_color_nb(p, cur, side, hand, hlen, fcol, pile, disc, st, rng, log)
                attacked = True
            elif _DRAW_N[rk] > 0:
                _give_cards(p, _DRAW_N[rk], hand, hlen, pile, disc, st, rng, log, np.int64(EV_PENALTY))
                attacked = True
            if jump:
                _held_from(p, h0, hand, hlen, fcol, frank, st)
        elif swaps and rk <= 9 and _swap_card(rk, R):
            q = _nxt(p, d, n, active)
            if lean_swaps and pid <= POL_GREEDY:
                if _swap_builtin(n, p, pid == POL_GREEDY, rk, d, gp):
                    res[RES_SWAPS] += 1
            else:
                _fast_swap(n, p, q, rk, c, d, cur, turns, prev_color, obs_on, gp)
                if st[ST_ERR] != 0:
                    return q, d, cur, turns, -1, -1, attacked  # a policy erred choosing whom to swap with
            p = q
            continue
        if jumper >= 0:
            # the jumper lays the last twin of this number card out of turn, as the jump-in window would (a
            # play: the turn counted), and play goes on from it
            p = jumper
            turns += 1
            res[RES_JUMPS] += 1
            st[ST_PEND_N] = 0
            disc[st[ST_DISC_N]] = _remove_at(p, jump_i, hand, hlen)
            st[ST_DISC_N] += 1
            st[ST_HELD + col * NRANKS + rk] -= 1
        p = _nxt(p, d, n, active)


# ================================================================================================
# One round: play_round_nb steps through it; each step of a turn is a function of its own, reading and
# writing the round's state in st (see ST_SIDE ...).  They take the round as one tuple ``g`` (new_round):
#   (hand, hlen, pile, disc, lg, tmp, active, st, rng, log, res, obs, fcol, frank, fpts, cmask,
#    pol, pp, script, ufn, R, RD)
# The steps of every turn (the normal turn, laying a card, its effect, the jump-in window) are inlined
# into play_round_nb's loop (inline="always": one site each); the rare ones (the start of a round, the
# response window, a challenge, an emptied hand, the UNO call, swaps, a Flip, the end) are calls.  A call
# takes the tuple by its address, ``gp`` (by_ref.ref: one word, where the tuple is some 170), and reads it
# with ``g = deref(gp)``; an inlined step that makes such a call takes both ``g`` and ``gp``.  The decisions'
# tuple ``dc`` (decision_ctx) carries ``gp`` too: a decision made by a call (decide_cold_nb, a response, a
# challenge, a swap's target, a policy of the slot) takes ``gp`` and builds its ``dc`` from it.
# ================================================================================================
@njit(cache=True, _nrt=False, inline="always")
def decision_ctx(g, gp):
    """What the decisions read of the round ``g`` (play_round_nb), as the tuple ``dc`` they take: the seats'
    policies, the observation, hands, faces, discard pile, seats in the round, st, the random stream, the
    script, the policy slot, the card masks with greedy's keys, and the round's address ``gp``: the inlined
    decisions read the arrays, and pass ``gp`` to a decision that is a call (which makes its own ``dc`` with
    ``decision_ctx(deref(gp), gp)``: a tuple of arrays passed by value costs about 2 ns an array a call)."""
    hand, hlen, pile, disc, lg, tmp, active, st, rng, log, res, obs, fcol, frank, fpts, cmask, \
        pol, pp, script, ufn, R, RD = g
    return pol, pp, obs, hand, hlen, fcol, frank, fpts, disc, active, st, rng, script, ufn, cmask, gp


@njit(cache=True, _nrt=False)
def _observing(n, pol, st):
    """Whether some seat reads the observation (the policies of the slot, plain-Python seats, a rollout's
    forced seat that becomes a policy of the slot): only then is it kept (not for random, greedy or
    scripted seats)."""
    for s in range(n):
        if pol[s] >= POL_SLOT or pol[s] == POL_EXTERNAL or (pol[s] == POL_FORCED and st[ST_FORCE_BASE] >= POL_SLOT):
            return True
    return False


@njit(cache=True, _nrt=False, inline="always")
def _clear_round(g):
    hand, hlen, pile, disc, lg, tmp, active, st, rng, log, res, obs, fcol, frank, fpts, cmask, \
        pol, pp, script, ufn, R, RD = g
    for k in range(ST_MODE):
        st[k] = 0
    for k in range(ST_SNAP, ST_SNAP + NSNAP):
        st[k] = 0
    for k in range(ST_VOID, ST_VOID + MAXP):
        st[k] = 0
    for k in range(res.shape[0]):
        res[k] = 0


@njit(cache=True, _nrt=False, inline="always")
def _deal(n, order, g):
    """Shuffle and deal (or lay out the rigged ``order``: [hand size of seat 0 .. seat n-1, card ids from
    the top down]).  active[0:n] in the round, active[n:2n] finishing position, active[2n:3n] hands
    emptied, active[3n:4n] seated in the match (input).  The pile has its top at the end."""
    hand, hlen, pile, disc, lg, tmp, active, st, rng, log, res, obs, fcol, frank, fpts, cmask, \
        pol, pp, script, ufn, R, RD = g
    ncards = fcol.shape[1]
    n_active = 0
    for s in range(n):
        active[s] = active[3 * n + s]
        n_active += active[s]
        active[n + s] = 0
        active[2 * n + s] = 0
        hlen[s] = 0
    rigged = order.shape[0] > 0
    if rigged:
        for i in range(ncards):
            pile[ncards - 1 - i] = order[n + i]
    else:
        for i in range(ncards):
            pile[i] = i
        shuffle_nb(pile, ncards, rng)
    top_i = ncards - 1
    for s in range(n):
        hs = (order[s] if rigged else R[R_HAND_SIZE]) if active[s] else 0
        for k in range(hs):
            hand[s, k] = pile[top_i]
            top_i -= 1
        hlen[s] = hs
    st[ST_PILE_N] = top_i + 1
    st[ST_DISC_N] = 0
    st[ST_N_ACTIVE] = n_active
    st[ST_N_SEATED] = n_active


@njit(cache=True, _nrt=False, inline="always")
def _open_observation(n, resume, g):
    """The observation's header for a new round (the deck tables may differ from round to round: UNO Flip's
    pairing), and for a new round the per-card seen bits and the known-cards region behind them: only
    _known_counts_nb writes that, and only once OBS_KNOWN_ON is set (clearing all 540 entries every round
    cost about 10% of a run with a policy of the slot).  Unsigned indices: a memset, no wrap-around test."""
    hand, hlen, pile, disc, lg, tmp, active, st, rng, log, res, obs, fcol, frank, fpts, cmask, \
        pol, pp, script, ufn, R, RD = g
    ncards = fcol.shape[1]
    obs[OBS_CNT_EPOCH] = -1
    obs[OBS_DECK_SIDE] = -1
    two = 0
    for k in range(ncards):
        if fcol[0, k] != fcol[1, k] or frank[0, k] != frank[1, k]:
            two = 1
    obs[OBS_TWO_SIDED] = two
    _pub(obs, 0, 1, -1, 0, -1, -1)
    if not resume:
        kn0 = _seen_at(obs, ncards)
        end = obs.shape[0] if obs[OBS_KNOWN_ON] != 0 else kn0 + ncards
        for k in range(np.uint64(kn0), np.uint64(end)):
            obs[k] = 0
        obs[OBS_KNOWN_ON] = 0


@njit(cache=True, _nrt=False, inline="always")
def _turn_up_start(g):
    """Turn up the starting card (docs/rules.md 1.5), putting back the kinds the rules redraw: into the
    middle of the pile, or at a uniformly random place (the pile is in uniformly random order, so this is
    the same as reshuffling it).  Returns it, laid on the discard pile."""
    hand, hlen, pile, disc, lg, tmp, active, st, rng, log, res, obs, fcol, frank, fpts, cmask, \
        pol, pp, script, ufn, R, RD = g
    while True:
        k = st[ST_PILE_N] - 1
        c = pile[k]
        r = frank[0, c]
        bad = (_IS_WDRAW[r] and R[R_START_WD4_REDRAW] != 0) or (r == WILD and R[R_START_WILD_REDRAW] != 0) \
            or (R[R_START_REPLACE_SPECIAL] != 0 and r > 9) or (r == FLIP and R[R_START_FLIP_REDRAW] != 0) \
            or r == HOWLER or r == INVIS_WILD
        if not bad or k == 0:
            st[ST_PILE_N] = k
            break
        pos = k // 2 if R[R_START_RETURN_MIDDLE] else randint_nb(rng, k + 1)
        for i in range(k, pos, -1):
            pile[i] = pile[i - 1]
        pile[pos] = c
        if log.shape[0] > 0:
            _log(log, st, EV_START_REDRAW, -1, c, pos, 0)
    disc[0] = c
    st[ST_DISC_N] = 1
    return c


@njit(cache=True, _nrt=False, inline="always")
def _start_round(n, dealer, first, g, gp):
    """The starting card's effect (docs/rules.md 1.5): its attack simply happens to the first player (no
    answer); a Reverse turns play to the dealer's right; a Flip is carried out (2.12: the revealed face has
    no action); a wild's colour is named by the first player.  Sets the round's state in st."""
    hand, hlen, pile, disc, lg, tmp, active, st, rng, log, res, obs, fcol, frank, fpts, cmask, \
        pol, pp, script, ufn, R, RD = g
    dc = decision_ctx(g, gp)
    side = np.int64(0)  # not a literal: where only this value reaches a call (the starting card's colour),
    # numba would compile that callee once more for Literal[int](0) (slot_policy_nb and all below it)
    c = _turn_up_start(g)
    if first < 0:
        first = _nxt(dealer, 1, n, active)
    d = 1
    p = first
    cur = fcol[side, c]
    srank = frank[side, c]
    pend_kind = -1
    pend_n = 0
    pend_from = -1
    if srank == SKIP:
        pend_kind = SKIP
        pend_from = dealer
    elif srank == REVERSE:
        if st[ST_N_ACTIVE] == 2 and R[R_REV_AS_SKIP]:
            pend_kind = SKIP
            pend_from = dealer
        else:
            d = -1
            p = _nxt(dealer, -1, n, active) if R[R_START_REVERSE_FIRST] else dealer
    elif _DRAW_N[srank] > 0 and fcol[side, c] != BLACK:
        pend_kind = srank  # Draw Two / Draw One / Draw Three: the first player draws and is skipped
        pend_n = _DRAW_N[srank]
        pend_from = dealer
    elif srank == FLIP:
        _flip_nb(pile, disc, st)
        side = 1 - side
        c = disc[0]
        cur = fcol[side, c]
        res[RES_FLIPS] += 1
        if cur == BLACK:
            cur = _choose_color_cold(first, cur, side, n, dc)
    elif fcol[side, c] == BLACK:
        cur = _choose_color_cold(first, cur, side, n, dc)
    if log.shape[0] > 0:
        _log(log, st, EV_DEAL_START, p, c, cur, d)
    st[ST_SIDE] = side
    st[ST_P] = p
    st[ST_D] = d
    st[ST_CUR] = cur
    st[ST_PEND_KIND] = pend_kind
    st[ST_PEND_N] = pend_n
    st[ST_PEND_FROM] = pend_from
    st[ST_WINNER] = -1
    st[ST_LOSER] = -1
    st[ST_LAST_ACTOR] = -1
    st[ST_NO_RESPONSE] = pend_kind >= 0
    # reverse_single_turn: the direction returns after one turn (also after a starting Reverse)
    st[ST_REVERT_DIR] = R[R_REV_SINGLE] != 0 and srank == REVERSE and d == -1


@njit(cache=True, _nrt=False, inline="always")
def _jumpable(col, rk, R):
    """Whether a card of colour ``col`` and rank ``rk`` just laid opens the jump-in window (docs/rules.md 4.1,
    4.2): a coloured card, a Wild or Wild Draw Four where jump_in_allow_wild / _wd4 say so, a draw card
    unless Speed Uno's exact match leaves them out."""
    return ((col != BLACK) or (rk == WILD and R[R_JUMP_WILD] != 0)
            or (rk == WD4 and R[R_JUMP_WD4] != 0)) and (R[R_EXACT_DRAWS] != 0 or _DRAW_N[rk] == 0)


@njit(cache=True, _nrt=False, inline="always")
def _jump_race(n, top_col, top_rank, p, d, last_actor, attacked, cur, side, lg, RD, dc):
    """Who lays a card identical to (top_col, top_rank) out of turn (docs/rules.md 4.1): the seats other
    than ``last_actor`` (who laid it) and ``p`` (the scheduled player) are asked in order of play from p;
    with probability p_beats_scheduled one of those who would, drawn at random, beats p; otherwise p, when
    it is the victim of the pending attack (``attacked``), may jump in on it.  Returns (seat, hand index) or
    (-1, -1).  The jump-in window's race (the fast turns run it ahead for the built-ins: _jump_ahead)."""
    pol, pp, obs, hand, hlen, fcol, frank, fpts, disc, active, st, rng, script, ufn, cmask, gp = dc
    ncards = fcol.shape[1]
    cnt = 0
    q = p
    for _ in range(st[ST_N_ACTIVE]):
        if q != last_actor and q != p:
            ci = _match_choice(q, top_rank, top_col, cur, side, n, dc)
            if ci >= 0:
                lg[cnt] = q
                lg[ncards - 1 - cnt] = ci
                cnt += 1
        q = _nxt(q, d, n, active)
    if cnt > 0 and rand01_nb(rng) < RD[RD_P_BEATS]:
        k = randint_nb(rng, cnt)
        return lg[k], lg[ncards - 1 - k]
    if attacked and p != last_actor:
        ci = _match_choice(p, top_rank, top_col, cur, side, n, dc)
        if ci >= 0:
            return p, ci
    return -1, -1


@njit(cache=True, _nrt=False, inline="always")
def _twins(q, cm, side, hand, hlen, cmask):
    """How many cards seat q holds whose card mask on side ``side`` is ``cm``: of exactly one coloured card's
    colour and rank (a coloured card's mask is its colour's bit and its rank's, card_masks_nb), read with one
    load a card and unsigned indices."""
    us = np.uint64(q)
    uside = np.uint64(side)
    m = 0
    for i in range(hlen[q]):
        m += np.int64(cmask[uside, np.uint64(hand[us, np.uint64(i)])] == cm)
    return m


@njit(cache=True, _nrt=False, inline="always")
def _find_twin(q, cm, side, hand, hlen, cmask):
    """The first index in seat q's hand of a card whose card mask on side ``side`` is ``cm`` (_twins), or -1."""
    for i in range(hlen[q]):
        if cmask[side, hand[q, i]] == cm:
            return i
    return -1


@njit(cache=True, _nrt=False, inline="always")
def _builtin_jump(pid, m, rng):
    """The option a ``random`` or ``greedy`` seat holding m identical cards answers to D_JUMP_IN, or -1
    (don't): random_nb's (random_or_none_nb, the same call) and greedy_nb's (the first).  It mirrors
    greedy's answer for _jump_ahead; the fast-turn equivalence test (tests/test_invariants.py) fails if they
    part."""
    if pid == POL_GREEDY:
        return 0
    return random_or_none_nb(rng, m)


@njit(cache=True, _nrt=False)
def _jump_ahead(n, actor, col, rk, d, fflags, hand, hlen, cmask, pol, active, st, rng, RD):
    """Who jumps in on a card of colour ``col`` and rank ``rk`` (coloured, swapping nothing) that the fast turns
    are about to lay for ``actor`` while every seat is ``random`` or ``greedy`` and nobody observes.  The big loop
    draws no random number between such a card's play decision and the jump-in window (and the fast turns never
    play the turn that reaches the cap, after which no window opens), so the window's race (_jump_race) is run
    here with the built-ins' answers (_builtin_jump), on the seat and direction the card's effect leaves
    (_card_effect: the victim of a Skip, draw card or two-player Reverse; the other way round after a Reverse;
    the player again after a Skip Everyone).  A seat's twins are counted by their card masks (_twins).  Returns
    (seat, hand index) of the card laid out of turn, or (-1, -1).

    Nobody jumps: the random numbers drawn are the window's, and the fast turns go on.  Somebody jumps in on
    a number card with its last twin (no window follows the jump) and keeps two cards (one under
    FAST_UNO_QUIET: no UNO call, no emptied hand): the random numbers are the window's too, and the fast
    turns lay both cards.  Any other jump (on an action card, from a short hand: 0.35 of the 1.0 jumps a
    round of four random seats, 0.61 of 1.82 for greedy ones): the random stream is put back and the seat
    is -2; the big loop lays the card and opens the window, which draws the same numbers and finds the same
    jumper.  It takes only the arrays it reads (a call with the round's arrays costs about 2 ns an
    argument)."""
    side = st[ST_SIDE]
    cm = (np.int64(1) << col) | (np.int64(1) << (CM_RANK0 + rk))  # the card's mask (card_masks_nb)
    attacked = False
    if rk == SKIP or _DRAW_N[rk] > 0 or (rk == REVERSE and (fflags & FAST_REV_SKIPS) != 0):
        attacked = st[ST_NO_RESPONSE] == 0
        p = _nxt(actor, d, n, active)
    elif rk == REVERSE:
        d = -d
        p = _nxt(actor, d, n, active)
    elif rk == SKIP_ALL:
        p = actor
    else:
        p = _nxt(actor, d, n, active)
    z = rng[0]
    cnt = 0
    seats = 0  # the seats that would jump in, 4 bits each, in the order asked
    q = p
    for _ in range(st[ST_N_ACTIVE]):
        if q != actor and q != p:
            m = _twins(q, cm, side, hand, hlen, cmask)
            if m > 0 and _builtin_jump(pol[q], m, rng) >= 0:
                seats |= q << (4 * cnt)
                cnt += 1
        q = _nxt(q, d, n, active)
    jumps = cnt > 0 and rand01_nb(rng) < RD[RD_P_BEATS]
    if jumps:
        min_left = 1 if (fflags & FAST_UNO_QUIET) != 0 else 2
        k = randint_nb(rng, cnt)
        j = (seats >> (4 * k)) & 15
        if rk <= 9 and st[ST_HELD + col * NRANKS + rk] == 2 and hlen[j] - 1 >= min_left:
            # the last twin (the one other than the actor's): the jumper holds one, its only option
            return j, _find_twin(j, cm, side, hand, hlen, cmask)
    elif attacked and p != actor:
        m = _twins(p, cm, side, hand, hlen, cmask)
        jumps = m > 0 and _builtin_jump(pol[p], m, rng) >= 0
    if jumps:
        rng[0] = z
        return -2, -1
    return -1, -1


@njit(cache=True, _nrt=False, inline="always")
def _jump_in_window(n, top, g, gp):
    """The jump-in window (docs/rules.md 4.1, 4.2) after a card was laid: the player who laid it may lay an
    identical second card (double play), else the others race the scheduled player with an identical card,
    and the victim of an attack may deflect with one.  Returns (seat, hand index) of the card laid out of
    turn, or (-1, -1); a jump-in takes over the pending effect (transfer, or with jump_in_draw_resolution
    accumulate the draw adds up)."""
    hand, hlen, pile, disc, lg, tmp, active, st, rng, log, res, obs, fcol, frank, fpts, cmask, \
        pol, pp, script, ufn, R, RD = g
    dc = decision_ctx(g, gp)
    side = st[ST_SIDE]
    cur = st[ST_CUR]
    p = st[ST_P]
    last_actor = st[ST_LAST_ACTOR]
    top_rank = frank[side, top]
    top_col = fcol[side, top]
    if not _jumpable(top_col, top_rank, R):
        return -1, -1
    jw = -1
    ji = -1
    if R[R_DOUBLE_JUMP] and hlen[last_actor] > 0 and rand01_nb(rng) < RD[RD_P_SELF_JUMP]:
        ji = _match_choice(last_actor, top_rank, top_col, cur, side, n, dc)
        if ji >= 0:
            jw = last_actor
    # nobody holds an identical card (most windows): nobody is asked, and no random number is drawn
    if jw < 0 and R[R_JUMP_IN] and st[ST_HELD + top_col * NRANKS + top_rank] > 0:
        jw, ji = _jump_race(n, top_col, top_rank, p, st[ST_D], last_actor,
                            st[ST_PEND_KIND] >= 0 and st[ST_NO_RESPONSE] == 0, cur, side, lg, RD, dc)
    if jw >= 0:
        res[RES_JUMPS] += 1
        if log.shape[0] > 0:
            _log(log, st, EV_JUMP_IN, jw, hand[jw, ji], p, 0)
        pend_kind = st[ST_PEND_KIND]
        # the draw adds up only when the card jumped on is a draw card itself, not the Reverse of a bounce
        if not (R[R_JUMP_ACCUMULATE] and pend_kind >= 0 and _DRAW_N[pend_kind] > 0 and _DRAW_N[top_rank] > 0):
            st[ST_PEND_N] = 0
        st[ST_PEND_KIND] = -1
        # what a bounce (reverse_bounce) said of the attack it sent back goes with that attack: left set, it
        # closed the response window of the next, unrelated attack
        st[ST_NO_RESPONSE] = 0
        st[ST_PEND_NOSKIP] = 0
        st[ST_PEND_BOUNCED] = 0
    return jw, ji


@njit(cache=True, _nrt=False)
def _challenge(n, challenger, offender, kind, amount, guilty, prev_color, gp):
    """A challenged restricted wild draw (docs/rules.md 1.9-1.11, 2.9): the offender's hand is shown to the
    challenger.  Guilty: the offender draws the larger of the penalty and ``amount``, and per
    challenge_guilty_card the card stays, goes back to the offender, or is void (it goes beneath the card before
    it), before the offender draws; in the last two the card before it is current again, and the colour
    reverts to ``prev_color``.  Innocent: the challenger draws ``amount`` and the extra.  Either way the attack
    is over.  Returns ``guilty``."""
    g = deref(gp)
    hand, hlen, pile, disc, lg, tmp, active, st, rng, log, res, obs, fcol, frank, fpts, cmask, \
        pol, pp, script, ufn, R, RD = g
    side = st[ST_SIDE]
    res[RES_CHALLENGES] += 1
    obs_on = _observing(n, pol, st)
    if obs_on:
        _learn_nb(obs, offender, 1 << challenger, hand, hlen)
    if log.shape[0] > 0:
        _log(log, st, EV_CHALLENGE, challenger, -1, 1 if guilty else 0, offender)
    g_draw, i_extra = _challenge_terms(kind, R[R_CH_GUILTY_DRAW], R[R_CH_INNOCENT_DRAW], R[R_WD2_GUILTY],
                                       R[R_WD2_INNOCENT], R[R_WDC_EXTRA])
    if guilty:
        named = st[ST_CUR]  # the colour it named: a guilty Wild Draw Colour's offender draws until it
        if R[R_CH_GUILTY_CARD] != 0:
            st[ST_CUR] = prev_color
        # the card's place; the card before it is at dn - 1, unless a reshuffle since took it (the offender,
        # caught without its UNO call, drew): then the card stays where it is, its colour reverted
        dn = st[ST_DISC_N] - 1
        if dn > 0 and R[R_CH_GUILTY_CARD] == 1:
            # the card goes back to the offender, which then draws (002:271: it takes its card back, then draws
            # four): the old top is current again, and stays on the discard pile should the draw reshuffle it
            if obs_on:
                _count_play(obs, disc[dn], -1, side, st, fcol, frank)
            hand[offender, hlen[offender]] = disc[dn]
            hlen[offender] += 1
            if st[ST_HELD_ON] != 0:
                _held_add(st, disc[dn], 1, fcol, frank)
            if obs_on:
                obs[_seen_at(obs, fcol.shape[1]) + disc[dn]] = (1 << n) - 1  # back in a hand, in plain view
            st[ST_DISC_N] = dn
        elif dn > 0 and R[R_CH_GUILTY_CARD] == 2:
            # void: play goes on as if it had not been played; it stays out of play, beneath the card before it,
            # which is current again (colour and symbol)
            wd = disc[dn]
            disc[dn] = disc[dn - 1]
            disc[dn - 1] = wd
        _penalty(offender, kind, max(g_draw, amount), named, side, hand, hlen, fcol, frank, pile, disc, st, rng, log)
    else:
        _penalty(challenger, kind, amount + i_extra, st[ST_CUR], side, hand, hlen, fcol, frank, pile, disc, st, rng, log)
    st[ST_PEND_KIND] = -1
    st[ST_PEND_N] = 0
    st[ST_PEND_STACKED] = 0
    return guilty


# what the response window leads to
RW_NEXT = 0   # the turn passed on (st[ST_P] is the next seat to act): back to the top of the loop
RW_PLAY = 1   # the victim answered with a card: lay it
RW_TURN = 2   # the victim now takes a normal turn


@njit(cache=True, _nrt=False)
def _answer_card_mode(rr, pend_kind, R):
    """How a card of rank rr that answered a pending attack is laid: 1 stack, 2 deflect, 3 bounce, 6 the
    Invisibility Wild (Harry Potter: the attack is cancelled)."""
    if rr == INVIS_WILD:
        return 6
    if rr == REVERSE:
        return 3
    if rr == SKIP:
        return 2
    if R[R_STACKING] and (_IS_WDRAW[rr] or (rr == pend_kind and R[R_ST_D2]) or
                          (_IS_WDRAW[pend_kind] and R[R_ST_MIXED])):
        return 1
    return 2


@njit(cache=True, _nrt=False, inline="always")
def _response_window(n, top, g, gp):
    """The victim st[ST_P] of a pending attack (docs/rules.md 5.1): may go on stacking (stack_max_per_turn),
    challenge a restricted wild draw, or answer with a card (stack, deflect, bounce); else the attack
    resolves: the victim draws and loses the turn.  Returns (RW_*, hand index, play mode)."""
    hand, hlen, pile, disc, lg, tmp, active, st, rng, log, res, obs, fcol, frank, fpts, cmask, \
        pol, pp, script, ufn, R, RD = g
    victim = st[ST_P]
    side = st[ST_SIDE]
    pend_kind = st[ST_PEND_KIND]
    top_rank = frank[side, top]
    flags = (R[R_RESTRICTION] << 11) | (top_rank << 16)
    rw = RW_TURN
    play_i = -1
    mode = 0
    decided = False  # the victim answered with a card, or challenged and now takes a normal turn
    if st[ST_CONT_STACK]:
        st[ST_CONT_STACK] = 0
        play_i = _response_choice(victim, pend_kind, fcol[side, top], (R[R_RESP] & 15) | flags, st[ST_CUR], side,
                                  n, gp)
        if play_i < 0:
            st[ST_P] = _nxt(victim, st[ST_D], n, active)
            return RW_NEXT, -1, 0
        rw = RW_PLAY
        mode = 5
        decided = True
    open_ = st[ST_NO_RESPONSE] == 0
    if not decided and open_ and _IS_WDRAW[pend_kind] and R[R_CHALLENGE] and not st[ST_PEND_BOUNCED]:
        if _wants_challenge(victim, st[ST_CUR], side, n, gp):
            offender = st[ST_PEND_FROM]
            if _challenge(n, victim, offender, pend_kind, st[ST_PEND_N], st[ST_PEND_GUILTY] != 0,
                          st[ST_PEND_PREV_COLOR], gp):
                if R[R_CH_OFFENDER_SKIPS]:
                    st[ST_SKIP_NEXT] |= 1 << offender
                stays = R[R_CH_SUCCESS_PLAYS] != 0  # the challenger now takes a normal turn
            else:
                stays = R[R_CH_INNOCENT_SKIPS] == 0
                if not stays and log.shape[0] > 0:
                    _log(log, st, EV_SKIPPED, victim, -1, 0, 0)
            if not stays:
                st[ST_P] = _nxt(victim, st[ST_D], n, active)
                return RW_NEXT, -1, 0
            decided = True
    if not decided and open_ and R[R_RESP] != 0:
        play_i = _response_choice(victim, pend_kind, fcol[side, top], R[R_RESP] | flags, st[ST_CUR], side, n, gp)
        if play_i >= 0:
            rw = RW_PLAY
            decided = True
            mode = _answer_card_mode(frank[side, hand[victim, play_i]], pend_kind, R)
            if mode == 6:
                st[ST_PEND_KIND] = -1
                st[ST_PEND_N] = 0
                st[ST_PEND_STACKED] = 0
    st[ST_NO_RESPONSE] = 0
    if st[ST_ERR] != 0:
        return RW_NEXT, -1, 0  # a refused scripted answer ends the round before the attack resolves
    if decided:
        return rw, play_i, mode
    return _take_attack(n, victim, g), -1, 0


@njit(cache=True, _nrt=False, inline="always")
def _take_attack(n, victim, g):
    """Nothing answered the pending attack: the victim draws and (mostly) loses the turn.  Returns RW_NEXT,
    or RW_TURN when the victim keeps it (a bounce with reverse_bounce_victim_skips off; Speed Uno's
    draw_no_skip, then a colour-only turn; a dancing target under bts_dancing_target_skips off)."""
    hand, hlen, pile, disc, lg, tmp, active, st, rng, log, res, obs, fcol, frank, fpts, cmask, \
        pol, pp, script, ufn, R, RD = g
    pend_kind = st[ST_PEND_KIND]
    pend_n = st[ST_PEND_N]
    skips = (not _IS_ATTACK[pend_kind] or st[ST_PEND_STACKED] <= 1 or R[R_ST_FINAL_SKIPS] != 0) \
        and st[ST_PEND_NOSKIP] == 0
    if pend_kind == DANCING_WILD:
        skips = R[R_DANCE_SKIPS] != 0
        if RD[RD_P_DANCE] > 0.0 and rand01_nb(rng) < RD[RD_P_DANCE]:
            pend_n = 0  # the target dances instead of drawing 3
    elif R[R_SPEED_NO_SKIP] and _IS_ATTACK[pend_kind]:
        skips = False  # Speed Uno: draw, then take the turn (colour or wild only)
        st[ST_COLOR_TURN] = 1
    if pend_kind == HOWLER and _observing(n, pol, st):
        _learn_nb(obs, victim, (1 << n) - 1, hand, hlen)  # the Howler's victim shows the hand
    if pend_n > 0 or pend_kind == WILD_DRAW_COLOR:
        _penalty(victim, pend_kind, pend_n, st[ST_CUR], st[ST_SIDE], hand, hlen, fcol, frank, pile, disc, st, rng, log)
    st[ST_PEND_KIND] = -1
    st[ST_PEND_N] = 0
    st[ST_PEND_STACKED] = 0
    st[ST_PEND_NOSKIP] = 0
    st[ST_PEND_BOUNCED] = 0
    if not skips:
        return RW_TURN
    if log.shape[0] > 0:
        _log(log, st, EV_SKIPPED, victim, -1, 0, 0)
    st[ST_P] = _nxt(victim, st[ST_D], n, active)
    return RW_NEXT


@njit(cache=True, _nrt=False)
def _turn_penalties(p, gp):
    """Turn penalties as probabilities (docs/rules.md 4.19): a general mistake, a hint, a detected illegal
    play attempt."""
    g = deref(gp)
    hand, hlen, pile, disc, lg, tmp, active, st, rng, log, res, obs, fcol, frank, fpts, cmask, \
        pol, pp, script, ufn, R, RD = g
    if RD[RD_P_MISTAKE] > 0.0 and rand01_nb(rng) < RD[RD_P_MISTAKE]:
        give_cards_nb(p, 2, hand, hlen, pile, disc, st, rng, log, EV_PENALTY, fcol, frank)
    if RD[RD_P_HINT] > 0.0 and rand01_nb(rng) < RD[RD_P_HINT]:
        give_cards_nb(p, 2, hand, hlen, pile, disc, st, rng, log, EV_PENALTY, fcol, frank)
    if RD[RD_P_ILLEGAL] > 0.0 and rand01_nb(rng) < RD[RD_P_ILLEGAL] and rand01_nb(rng) < RD[RD_P_DETECT]:
        give_cards_nb(p, R[R_ILLEGAL_PEN], hand, hlen, pile, disc, st, rng, log, EV_PENALTY, fcol, frank)


@njit(cache=True, _nrt=False, inline="always")
def _normal_turn(n, top, resume, obs_on, g, gp):
    """Seat st[ST_P]'s own turn (docs/rules.md 1.6-1.8): it lays a legal card, or draws (one card, or until
    one is playable) and may lay the card drawn.  Returns the hand index of the card it lays, or -1 when the
    turn passed on (skipped, drew and kept, or the round ends: st[ST_ERR]).  ``resume``: the round resumes
    at this decision, whose turn began before the snapshot."""
    hand, hlen, pile, disc, lg, tmp, active, st, rng, log, res, obs, fcol, frank, fpts, cmask, \
        pol, pp, script, ufn, R, RD = g
    dc = decision_ctx(g, gp)
    p = st[ST_P]
    if not resume:
        skip_next = st[ST_SKIP_NEXT]
        if skip_next != 0 and (skip_next >> p) & 1:
            st[ST_SKIP_NEXT] = skip_next & ~(1 << p)
            if log.shape[0] > 0:
                _log(log, st, EV_SKIPPED, p, -1, 1, 0)
            st[ST_P] = _nxt(p, st[ST_D], n, active)
            return -1
        if st[ST_REVERT_DIR]:
            st[ST_REVERT_DIR] = 0
            st[ST_D] = -st[ST_D]
        st[ST_TURNS] += 1
        if R[R_PENALTIES]:
            _turn_penalties(p, gp)
    side = st[ST_SIDE]
    cur = st[ST_CUR]
    top_rank = frank[side, top]
    ct = st[ST_COLOR_TURN] != 0
    by_symbol = R[R_BY_SYMBOL] != 0
    any_action = R[R_ANY_ACTION] != 0
    restriction = R[R_RESTRICTION]
    # speed_no_wd4_out drops only a Wild Draw Four that is the last card: with more cards it has nothing to
    # filter (the filter, now _speed_uno_options, ran at every Speed Uno turn: 8% of a speed_uno run)
    last_wd4_out = R[R_NO_WD4_OUT] != 0 and hlen[p] == 1
    nlegal, nopt, bluff_now = _play_options(p, cur, side, top, top_rank, ct, last_wd4_out, R[R_BLUFF_OK] != 0,
                                            by_symbol, any_action, restriction, g)
    if obs_on:
        _pub(obs, st[ST_TURNS], st[ST_D], st[ST_PEND_KIND], st[ST_PEND_N], st[ST_PEND_FROM],
             st[ST_PEND_PREV_COLOR])
    voluntary = R[R_VOLUNTARY] != 0
    pflag = (1 if bluff_now else 0) | (2 if (nlegal > 0 and not voluntary) else 0)
    choice = decide_nb(D_PLAY, p, nopt, nlegal, pflag, cur, side, n, dc)
    if st[ST_ERR] != 0:
        return -1  # an illegal or missing scripted move ends the round before anything happens
    st[ST_COLOR_TURN] = 0
    if choice < 0 and nlegal > 0 and not voluntary and pol[p] == POL_SCRIPTED:
        st[ST_ERR] = 1  # voluntary_draw=false: no drawing while holding a legal card
        return -1
    if choice >= 0:
        return _opt_index(obs, choice)
    # draw one (or until playable); only the drawn card may then be played
    dup = R[R_DUP] != 0
    h0 = hlen[p]
    got, playable = _draw_for_play(p, ct, cur, side, top_rank, dup, by_symbol, any_action, restriction, g)
    _held_from(p, h0, hand, hlen, fcol, frank, st)  # here, not in _draw_for_play, which the fast turns share
    if playable and (R[R_DRAWN_FORCED] or ((dup or ct) and R[R_DUP_MUST]) or
                     _play_drawn_cold(p, cur, side, n, dc)):
        return hlen[p] - 1
    if log.shape[0] > 0:
        _log(log, st, EV_PASS, p, got, 0, 0)
    st[ST_P] = _nxt(p, st[ST_D], n, active)
    return -1


@njit(cache=True, _nrt=False, inline="always")
def _lay_card(n, actor, play_i, mode, top, obs_on, g, gp):
    """``actor`` lays the card at hand index play_i, played in ``mode`` (0 a normal turn, 1 a stack, 2 a
    deflection, 3 a bounce, 4 a jump-in, 5 a continued stack, 6 the Invisibility Wild), and names the colour
    of a wild.  Returns (its colour before, whether it was a Wild Draw Four played against the restriction)."""
    hand, hlen, pile, disc, lg, tmp, active, st, rng, log, res, obs, fcol, frank, fpts, cmask, \
        pol, pp, script, ufn, R, RD = g
    dc = decision_ctx(g, gp)
    side = st[ST_SIDE]
    play_c = hand[actor, play_i]
    rk = frank[side, play_c]
    col = fcol[side, play_c]
    cur = st[ST_CUR]
    prev_color = cur
    was_guilty = False
    if _IS_WDRAW[rk]:
        was_guilty = _is_wd4_guilty(actor, side, hand, hlen, fcol, frank, cur, frank[side, top], R[R_RESTRICTION])
    _remove_at(actor, play_i, hand, hlen)
    if st[ST_HELD_ON] != 0:
        _held_add(st, play_c, -1, fcol, frank)
    disc[st[ST_DISC_N]] = play_c
    st[ST_DISC_N] += 1
    if obs_on:
        _count_play(obs, play_c, 1, side, st, fcol, frank)
        obs[_seen_at(obs, fcol.shape[1]) + play_c] = 0
    if col == BLACK:
        pend_kind = st[ST_PEND_KIND]
        if _IS_WDRAW[rk] and R[R_ST_COLOR_FIRST] and pend_kind >= 0 and _IS_WDRAW[pend_kind] and mode == 1:
            pass  # the first Wild Draw Four of the stack named the colour
        elif R[R_COLOR_ROTATION]:
            cur = _ROT_CW[cur] if st[ST_D] == 1 else _ROT_CCW[cur]
        else:
            cur = _choose_color_cold(actor, cur, side, n, dc)
    else:
        cur = col
    st[ST_CUR] = cur
    if log.shape[0] > 0:
        _log(log, st, EV_PLAY, actor, play_c, cur, mode)
    st[ST_JUST_PLAYED] = 1
    st[ST_LAST_ACTOR] = actor
    return prev_color, was_guilty


# what follows an emptied hand
EMPTY_ROUND_OVER = 0   # the round is over
EMPTY_GO_ON = 1        # play goes on (play_to_last, uno_seven_rounds): the card's effect follows
EMPTY_NEXT = 2         # a last Wild Draw Four was challenged and guilty: back to the top of the loop


@njit(cache=True, _nrt=False, inline="always")
def _hand_emptied(n, actor, rk, mode, prev_color, was_guilty, g, gp):
    """``actor`` laid its last card (docs/rules.md 1.14): a final Flip is carried out (flip_last_card_executes),
    a final draw card still hits the next player (and a last Wild Draw Four may be challenged); then the
    round ends, or under play_to_last (4.14) and uno_seven_rounds (4.15) goes on.  Returns EMPTY_*."""
    hand, hlen, pile, disc, lg, tmp, active, st, rng, log, res, obs, fcol, frank, fpts, cmask, \
        pol, pp, script, ufn, R, RD = g
    d = st[ST_D]
    nx = _nxt(actor, d, n, active)
    if rk == FLIP and R[R_FLIP_LAST_EXEC]:
        _turn_over(n, hand, hlen, pile, disc, st, res, fcol, frank)
    if _IS_ATTACK[rk] and not (R[R_PLAY_TO_LAST] or R[R_SEVEN_ROUNDS]):
        amount = st[ST_PEND_N] + _DRAW_N[rk] if mode != 2 else _DRAW_N[rk]
        if _IS_WDRAW[rk] and R[R_CHALLENGE] and R[R_CH_LAST_CARD]:
            if _observing(n, pol, st):
                _pub(obs, st[ST_TURNS], d, rk, amount, actor, prev_color)  # the evidence for this challenge
            if _wants_challenge(nx, st[ST_CUR], st[ST_SIDE], n, gp):
                if _challenge(n, nx, actor, rk, amount, was_guilty, prev_color, gp):
                    st[ST_P] = nx if R[R_CH_SUCCESS_PLAYS] else _nxt(nx, d, n, active)
                    st[ST_JUST_PLAYED] = 0
                    return EMPTY_NEXT
                amount = -1  # the challenger took the attack and the extra
        if rk == DANCING_WILD and RD[RD_P_DANCE] > 0.0 and rand01_nb(rng) < RD[RD_P_DANCE]:
            amount = 0
        if amount >= 0:
            _penalty(nx, rk, amount, st[ST_CUR], st[ST_SIDE], hand, hlen, fcol, frank, pile, disc, st, rng, log)
    if R[R_SEVEN_ROUNDS]:
        # refill 6, 5, ... 1; the seventh emptying wins
        active[2 * n + actor] += 1
        k = active[2 * n + actor]
        if k > R[R_REFILL_START]:
            st[ST_WINNER] = actor
            return EMPTY_ROUND_OVER
        give_cards_nb(actor, R[R_REFILL_START] - k + 1, hand, hlen, pile, disc, st, rng, log, EV_DRAW, fcol, frank)
        return EMPTY_GO_ON
    if R[R_PLAY_TO_LAST]:
        # leave the round; the last one holding cards loses
        active[actor] = 0
        st[ST_N_ACTIVE] -= 1
        n_active = st[ST_N_ACTIVE]
        active[n + actor] = n - n_active  # finishing position, 1 = first out
        if st[ST_WINNER] < 0:
            st[ST_WINNER] = actor
        if log.shape[0] > 0:
            _log(log, st, EV_WIN, actor, -1, n - n_active, 1)
        if n_active <= 1:
            for s in range(n):
                if active[s]:
                    st[ST_LOSER] = s
            return EMPTY_ROUND_OVER
        return EMPTY_GO_ON
    st[ST_WINNER] = actor
    return EMPTY_ROUND_OVER


@njit(cache=True, _nrt=False)
def _uno_call(n, actor, gp):
    """``actor`` is down to one card: the UNO call (docs/rules.md 1.12) as probabilities, forgotten and caught;
    under uno_to_center (4.12) the slowest other player draws."""
    g = deref(gp)
    hand, hlen, pile, disc, lg, tmp, active, st, rng, log, res, obs, fcol, frank, fpts, cmask, \
        pol, pp, script, ufn, R, RD = g
    if RD[RD_P_FORGET] > 0.0 and rand01_nb(rng) < RD[RD_P_FORGET]:
        if rand01_nb(rng) < RD[RD_P_CATCH]:
            res[RES_UNO_CAUGHT] += 1
            if log.shape[0] > 0:
                _log(log, st, EV_UNO_CAUGHT, actor, -1, R[R_UNO_PEN], 0)
            give_cards_nb(actor, R[R_UNO_PEN], hand, hlen, pile, disc, st, rng, log, EV_PENALTY, fcol, frank)
    elif R[R_UNO_CENTER]:
        k = randint_nb(rng, st[ST_N_ACTIVE] - 1)
        for s in range(n):
            if s != actor and active[s]:
                if k == 0:
                    give_cards_nb(s, R[R_CENTER_PEN], hand, hlen, pile, disc, st, rng, log, EV_PENALTY, fcol, frank)
                    break
                k -= 1


@njit(cache=True, _nrt=False)
def _pass_hands(n, actor, play_c, gp):
    """A 0 under seven_zero or Round-n-Round: every hand passes to the next seat (in the direction of play,
    or to the left with zero_pass_direction); each player knows the hand it passed on.  Round-n-Round:
    whoever is handed a one-card hand must call UNO."""
    g = deref(gp)
    hand, hlen, pile, disc, lg, tmp, active, st, rng, log, res, obs, fcol, frank, fpts, cmask, \
        pol, pp, script, ufn, R, RD = g
    if _observing(n, pol, st):
        for s in range(n):
            _learn_nb(obs, s, 1 << s, hand, hlen)
    d = 1 if R[R_ZERO_LEFT] else st[ST_D]
    _rotate_hands(n, d, active, hand, hlen, tmp)
    for s in range(n):
        st[ST_VOID + s] = 0
    res[RES_SWAPS] += 1
    if log.shape[0] > 0:
        _log(log, st, EV_SWAP, actor, play_c, -1, d)
    if R[R_ROUND_N_ROUND] and RD[RD_P_FORGET] > 0.0:
        for s in range(n):
            if active[s] and hlen[s] == 1 and rand01_nb(rng) < RD[RD_P_FORGET] and rand01_nb(rng) < RD[RD_P_CATCH]:
                res[RES_UNO_CAUGHT] += 1
                if log.shape[0] > 0:
                    _log(log, st, EV_UNO_CAUGHT, s, -1, R[R_UNO_PEN], 0)
                give_cards_nb(s, R[R_UNO_PEN], hand, hlen, pile, disc, st, rng, log, EV_PENALTY, fcol, frank)


SWAP_NONE = 0   # _swap_rule: the card swaps nothing
SWAP_PASS = 1   # every hand passes to the next seat (a 0 under seven_zero or Round-n-Round)
SWAP_SEAT = 2   # the player swaps with a seat it picks


@njit(cache=True, _nrt=False)
def _swap_rule(rk, R):
    """What a number card of rank rk does under the swap rules (docs/rules.md 4.3-4.5, 4.18): (SWAP_*, whether
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


@njit(cache=True, _nrt=False, inline="always")
def _swap_with(n, actor, rk, play_c, g, gp):
    """A number card that swaps (docs/rules.md 4.3-4.5): a 7 under seven_zero, a 0 under zero_swap_any, a 5
    under swap_on_five.  The player picks the other seat (or nobody, where optional); whole hands change
    places, each player knowing the hand it passed, or (a 5, one_card_each_own_choice) each gives one card
    of its choice, knowing it."""
    hand, hlen, pile, disc, lg, tmp, active, st, rng, log, res, obs, fcol, frank, fpts, cmask, \
        pol, pp, script, ufn, R, RD = g
    what, optional, whole = _swap_rule(rk, R)
    if what == SWAP_PASS:
        _pass_hands(n, actor, play_c, gp)
        return
    if what == SWAP_NONE:
        return
    side = st[ST_SIDE]
    cur = st[ST_CUR]
    tgt = _choose_target(actor, st[ST_D], optional, cur, side, n, gp)
    if tgt < 0:
        return
    if whole:
        if _observing(n, pol, st):
            _learn_nb(obs, actor, 1 << actor, hand, hlen)  # each knows the hand it passes
            _learn_nb(obs, tgt, 1 << tgt, hand, hlen)
        _swap_hands(actor, tgt, hand, hlen)
        _swap_voids(st, actor, tgt)
    else:
        ga, gb = _exchange_one(actor, tgt, cur, side, n, gp)
        st[ST_VOID + actor] = 0
        st[ST_VOID + tgt] = 0
        if _observing(n, pol, st) and ga >= 0 and st[ST_ERR] == 0:
            kn0 = _seen_at(obs, fcol.shape[1])  # each knows the card it gave
            obs[kn0 + ga] |= 1 << actor
            obs[kn0 + gb] |= 1 << tgt
            obs[OBS_KNOWN_ON] = 1
    res[RES_SWAPS] += 1
    if log.shape[0] > 0:
        _log(log, st, EV_SWAP, actor, play_c, tgt, 5 if rk == 5 else 0)


@njit(cache=True, _nrt=False)
def _flip_played(n, actor, gp):
    """A Flip (docs/rules.md 2.8): no turn effect; the revealed top face sets colour and symbol only (a
    revealed wild: the Flip player names the colour, or with flip_revealed_black_color anything follows)."""
    g = deref(gp)
    hand, hlen, pile, disc, lg, tmp, active, st, rng, log, res, obs, fcol, frank, fpts, cmask, \
        pol, pp, script, ufn, R, RD = g
    dc = decision_ctx(g, gp)
    side = _turn_over(n, hand, hlen, pile, disc, st, res, fcol, frank)
    ntop = disc[st[ST_DISC_N] - 1]
    cur = fcol[side, ntop]
    if cur == BLACK:
        cur = -1 if R[R_FLIP_FREE] else _choose_color_cold(actor, cur, side, n, dc)
    st[ST_CUR] = cur
    if log.shape[0] > 0:
        _log(log, st, EV_FLIP, actor, ntop, cur, side)
    st[ST_P] = _nxt(actor, st[ST_D], n, active)


@njit(cache=True, _nrt=False)
def _skip_everyone(n, actor, gp):
    """Skip Everyone (docs/rules.md 2.6): every other player loses the turn; the player goes again."""
    g = deref(gp)
    hand, hlen, pile, disc, lg, tmp, active, st, rng, log, res, obs, fcol, frank, fpts, cmask, \
        pol, pp, script, ufn, R, RD = g
    d = st[ST_D]
    if log.shape[0] > 0:
        q = _nxt(actor, d, n, active)
        while q != actor and q != _nxt(q, d, n, active):
            _log(log, st, EV_SKIPPED, q, -1, 0, 0)
            q = _nxt(q, d, n, active)
            if not active[actor] and q == _nxt(actor, d, n, active):
                break
    st[ST_P] = actor if active[actor] else _nxt(actor, d, n, active)


@njit(cache=True, _nrt=False, inline="always")
def _attack_laid(n, actor, rk, play_c, mode, was_guilty, prev_color, g, gp):
    """A draw card was laid: it becomes (or, stacked, adds to) the pending attack on the next player; a
    deflection passes the card's own amount on (docs/rules.md 4.7, 4.8).  A stacker may go on stacking
    (stack_max_per_turn)."""
    hand, hlen, pile, disc, lg, tmp, active, st, rng, log, res, obs, fcol, frank, fpts, cmask, \
        pol, pp, script, ufn, R, RD = g
    pend_kind = st[ST_PEND_KIND]
    if mode == 2:
        st[ST_PEND_N] = _DRAW_N[rk]
        st[ST_PEND_STACKED] = 1
    elif (mode == 1 or mode == 5) and pend_kind >= 0 and _DRAW_N[pend_kind] > 0:
        st[ST_PEND_STACKED] += 1
        st[ST_PEND_N] += _DRAW_N[rk]
        if log.shape[0] > 0:
            _log(log, st, EV_STACK, actor, play_c, st[ST_PEND_N], 0)
    else:
        st[ST_PEND_STACKED] = 1
        st[ST_PEND_N] += _DRAW_N[rk]
    st[ST_PEND_KIND] = rk
    st[ST_PEND_FROM] = actor
    if _IS_WDRAW[rk]:
        st[ST_PEND_GUILTY] = was_guilty
        st[ST_PEND_PREV_COLOR] = prev_color
    if st[ST_PEND_STACKED] > res[RES_STACK_MAX]:
        res[RES_STACK_MAX] = st[ST_PEND_STACKED]
    if mode == 5:
        st[ST_STACK_COUNT] += 1
    elif mode == 1:
        st[ST_STACK_COUNT] = 1
    if (mode == 1 or mode == 5) and st[ST_STACK_COUNT] < R[R_ST_MAX] and hlen[actor] > 0:
        st[ST_CONT_STACK] = 1
        st[ST_P] = actor
    else:
        st[ST_P] = _nxt(actor, st[ST_D], n, active)


@njit(cache=True, _nrt=False, inline="always")
def _card_effect(n, actor, rk, play_c, mode, emptied, was_guilty, prev_color, g, gp):
    """The effect of the card just laid on whose turn comes next (docs/rules.md 1.16, 1.17, 2.x, 4.x)."""
    hand, hlen, pile, disc, lg, tmp, active, st, rng, log, res, obs, fcol, frank, fpts, cmask, \
        pol, pp, script, ufn, R, RD = g
    d = st[ST_D]
    n_active = st[ST_N_ACTIVE]
    if rk == SKIP:
        if R[R_SKIP_EXTRA]:
            # skip_extra_turn (docs/rules.md 4.25): the next player loses the turn, the skipper goes again
            victim_s = _nxt(actor, d, n, active)
            if log.shape[0] > 0:
                _log(log, st, EV_SKIPPED, victim_s, -1, 0, 0)
            st[ST_P] = actor if active[actor] else _nxt(victim_s, d, n, active)
        else:
            st[ST_PEND_KIND] = SKIP
            st[ST_PEND_N] = 0
            st[ST_PEND_FROM] = actor
            st[ST_P] = _nxt(actor, d, n, active)
    elif rk == REVERSE:
        two_left = n_active == 2 and (R[R_PTL_TWO_PLAYER] != 0 or st[ST_N_SEATED] == 2)
        if mode == 3:
            # reverse_bounce (docs/rules.md 4.9): the attack returns to the previous player
            st[ST_D] = -d
            st[ST_P] = _nxt(actor, -d, n, active)
            st[ST_PEND_FROM] = actor
            st[ST_NO_RESPONSE] = R[R_RB_REBOUNCE] == 0
            st[ST_PEND_NOSKIP] = R[R_RB_VICTIM_SKIPS] == 0
            st[ST_PEND_BOUNCED] = 1  # the bounced card cannot be challenged by its own player
            if log.shape[0] > 0:
                _log(log, st, EV_DIRECTION, actor, -1, -d, 1)
        elif two_left and R[R_REV_AS_SKIP]:
            st[ST_PEND_KIND] = SKIP
            st[ST_PEND_N] = 0
            st[ST_PEND_FROM] = actor
            st[ST_P] = _nxt(actor, d, n, active)
        else:
            st[ST_D] = -d
            if log.shape[0] > 0:
                _log(log, st, EV_DIRECTION, actor, -1, -d, 0)
            st[ST_P] = _nxt(actor, -d, n, active)
            if R[R_REV_SINGLE]:
                st[ST_REVERT_DIR] = 1 - st[ST_REVERT_DIR]
    elif rk == HOWLER:
        # Harry Potter: the next player shows their hand (public information) and loses the turn
        st[ST_PEND_KIND] = HOWLER
        st[ST_PEND_N] = 0
        st[ST_PEND_FROM] = actor
        st[ST_P] = _nxt(actor, d, n, active)
    elif rk == SKIP_ALL:
        _skip_everyone(n, actor, gp)
    elif rk == FLIP:
        _flip_played(n, actor, gp)
    elif _IS_ATTACK[rk]:
        _attack_laid(n, actor, rk, play_c, mode, was_guilty, prev_color, g, gp)
    else:
        st[ST_P] = _nxt(actor, d, n, active)
        if rk <= 9 and R[R_SWAPS] and not emptied:
            _swap_with(n, actor, rk, play_c, g, gp)


@njit(cache=True, _nrt=False)
def _swap_card(rk, R):
    """Whether a number card of rank rk may swap or pass hands under these rules."""
    return (rk == 7 and R[R_SEVEN_ZERO] != 0) or (rk == 0 and (R[R_SEVEN_ZERO] != 0 or R[R_ROUND_N_ROUND] != 0
                                                              or R[R_ZERO_SWAP_ANY] != 0)) \
        or (rk == 5 and R[R_SWAP_FIVE] != 0)


@njit(cache=True, _nrt=False)
def _finish_round(n, end, gp):
    """The round's results into res, with the points left in every hand (res[RES_HPTS + seat]: counted here
    once, for the records and a match's scoring too); the winner scores the others' hands (docs/rules.md 1.15,
    4.16).  A round ended by a policy error, or paused for a plain-Python seat, has no winner."""
    g = deref(gp)
    hand, hlen, pile, disc, lg, tmp, active, st, rng, log, res, obs, fcol, frank, fpts, cmask, \
        pol, pp, script, ufn, R, RD = g
    winner = st[ST_WINNER]
    loser = st[ST_LOSER]
    if st[ST_ERR] >= 2:
        end = END_POLICY if st[ST_ERR] == 2 else END_PAUSED
        winner = -1
        loser = -1
    side = st[ST_SIDE]
    scored = winner >= 0 and not (R[R_PLAY_TO_LAST] or R[R_SEVEN_ROUNDS])
    wpts = 0
    for s in range(n):
        pts = seat_points_nb(s, side, hand, hlen, frank, fpts, R[R_Z50])
        res[RES_HPTS + s] = pts
        if scored and s != winner:
            wpts += pts
    if winner >= 0 and log.shape[0] > 0:
        _log(log, st, EV_WIN, winner, -1, wpts, 0)
    res[RES_WINNER] = winner
    res[RES_LOSER] = loser
    res[RES_TURNS] = st[ST_TURNS]
    res[RES_WPTS] = wpts
    res[RES_DRAWN] = st[ST_DRAWN]
    res[RES_END] = end
    res[RES_RESHUF] = st[ST_RESHUF]
    res[RES_COLOR] = st[ST_CUR]
    res[RES_DIRECTION] = st[ST_D]
    res[RES_NEXT] = st[ST_P]
    res[RES_SIDE] = side
    return winner


@njit(cache=True, _nrt=False)
def _begin_round(n, dealer, first, order, resume, cont, gp):
    """A new round: clear, deal and turn up the starting card.  A resumed or continued one (the caller's copy
    of a paused round's arrays, or of a round stopped at a step's boundary) clears only its script position
    and error."""
    g = deref(gp)
    hand, hlen, pile, disc, lg, tmp, active, st, rng, log, res, obs, fcol, frank, fpts, cmask, \
        pol, pp, script, ufn, R, RD = g
    if resume or cont:
        for k in range(ST_SCRIPT_POS, ST_MODE):
            st[k] = 0
        if resume:
            st[ST_JUST_PLAYED] = 0
    else:
        _clear_round(g)
        _deal(n, order, g)
    if _observing(n, pol, st):
        _open_observation(n, resume or cont, g)
    if not (resume or cont):
        _start_round(n, dealer, first, g, gp)
    st[ST_HELD_ON] = R[R_JUMP_IN] != 0  # only the jump-in window reads the counts
    if st[ST_HELD_ON] != 0:
        _count_held(n, hand, hlen, fcol, frank, st)


@njit(cache=True, _nrt=False, inline="always")
def _fast_turns(n, rev_skips, fflags, g, gp):
    """The fast turns (_fast_turns_nb) from the round's state, and back into it.  Returns (the seat whose turn
    chose a card for the big loop to lay, or -1; its hand index)."""
    hand, hlen, pile, disc, lg, tmp, active, st, rng, log, res, obs, fcol, frank, fpts, cmask, \
        pol, pp, script, ufn, R, RD = g
    p, d, cur, turns, play_i, play_c, attacked = _fast_turns_nb(
        st[ST_P], st[ST_D], n, st[ST_CUR], st[ST_SIDE], st[ST_TURNS], R[R_CAP], R[R_RESTRICTION],
        fflags | (FAST_REV_SKIPS if rev_skips else 0), st[ST_PEND_PREV_COLOR], gp)
    st[ST_P] = p
    st[ST_D] = d
    st[ST_CUR] = cur
    st[ST_TURNS] = turns
    if attacked and res[RES_STACK_MAX] < 1:
        res[RES_STACK_MAX] = 1
    return (p if play_c >= 0 else -1), play_i


@njit(cache=True, _nrt=False)
def play_round_nb(n, dealer, first, order, gp):
    """Play one round.  ``dealer`` deals; ``first`` acts first (-1: the seat on the dealer's left).
    ``active[3n:4n]`` says which seats take part (1) and which are out of the match (0).  ``order`` (if
    non-empty) is the rigged deck (_deal); otherwise the deck is shuffled from ``rng``.  ``gp``: the address
    (by_ref.ref) of the round's arrays and rules ``g`` (new_round): a caller that plays many rounds makes it
    once.  Results go to ``res``; hands stay in ``hand``.  With st[ST_MODE] =
    MODE_RESUME the arrays are a paused round's, which continues at its paused decision.

    Turn structure (docs/rules.md 5.1): a play resolves into a *pending attack* on the next player; at the
    start of the victim's turn a response window opens (challenge, stack, deflect, bounce, jump-in); with
    nothing played, the attack resolves.  Taking a penalty is not a turn; a play or a draw is."""
    g = deref(gp)
    hand, hlen, pile, disc, lg, tmp, active, st, rng, log, res, obs, fcol, frank, fpts, cmask, \
        pol, pp, script, ufn, R, RD = g
    logon = log.shape[0] > 0
    resume = (st[ST_MODE] & MODE_RESUME) != 0
    cont = (st[ST_MODE] & MODE_CONTINUE) != 0
    step = (st[ST_MODE] & MODE_STEP) != 0
    obs_on = _observing(n, pol, st)
    _begin_round(n, dealer, first, order, resume, cont, gp)
    fast = R[R_FAST] != 0 and not (logon or (st[ST_MODE] & MODE_SNAPSHOT) != 0)
    fflags = R[R_FFLAGS] | (FAST_OBS if obs_on else 0)
    jump_rules = R[R_JUMP_RULES] != 0
    cap = R[R_CAP]
    end = END_WIN
    stop = step and not cont  # MODE_STEP: a new round stops after its start, a continued one after a step
    while True:
        if st[ST_ERR] != 0:
            end = END_SCRIPT if st[ST_ERR] == 1 else (END_POLICY if st[ST_ERR] == 2 else END_PAUSED)
            break
        if stop:
            end = END_STEP
            break
        stop = step
        if st[ST_TURNS] >= cap:
            end = END_CAP
            if logon:
                _log(log, st, EV_CAP, st[ST_P], -1, st[ST_TURNS], 0)
            break
        top = disc[st[ST_DISC_N] - 1]
        if obs_on:
            _pub(obs, st[ST_TURNS], st[ST_D], st[ST_PEND_KIND], st[ST_PEND_N], st[ST_PEND_FROM],
                 st[ST_PEND_PREV_COLOR])
        actor = -1
        play_i = -1
        mode = 0
        if jump_rules and st[ST_JUST_PLAYED] != 0 and st[ST_CONT_STACK] == 0:
            actor, play_i = _jump_in_window(n, top, g, gp)
            mode = 4
        st[ST_JUST_PLAYED] = 0
        if actor < 0 and st[ST_PEND_KIND] >= 0:
            rw, play_i, mode = _response_window(n, top, g, gp)
            if rw == RW_NEXT:
                continue
            if rw == RW_PLAY:
                actor = st[ST_P]
        if actor < 0 and fast and not resume and st[ST_SKIP_NEXT] == 0 and st[ST_REVERT_DIR] == 0 \
                and st[ST_COLOR_TURN] == 0 and _fast_seat(pol[st[ST_P]]):
            rev_skips = R[R_REV_AS_SKIP] != 0 and st[ST_N_ACTIVE] == 2 \
                and (R[R_PTL_TWO_PLAYER] != 0 or st[ST_N_SEATED] == 2)
            actor, play_i = _fast_turns(n, rev_skips, fflags, g, gp)
            mode = 0
            if actor < 0 and (st[ST_TURNS] >= cap or st[ST_ERR] != 0):
                continue
        # the card played on, read again: the fast turns have laid cards since the top of this turn, and a guilty Wild
        # Draw Four taken back or void (challenge_guilty_card returns_to_hand, void) uncovered the card before it
        top = disc[st[ST_DISC_N] - 1]
        if actor < 0:
            play_i = _normal_turn(n, top, resume, obs_on, g, gp)
            resume = False
            if play_i < 0:
                continue
            actor = st[ST_P]
            mode = 0
        elif mode != 5:
            st[ST_TURNS] += 1  # a stack, a deflection, a bounce or a jump-in is a play
        if st[ST_ERR] != 0:
            continue
        side = st[ST_SIDE]
        play_c = hand[actor, play_i]
        rk = frank[side, play_c]
        prev_color, was_guilty = _lay_card(n, actor, play_i, mode, top, obs_on, g, gp)
        emptied = hlen[actor] == 0
        if emptied:
            e = _hand_emptied(n, actor, rk, mode, prev_color, was_guilty, g, gp)
            if e == EMPTY_ROUND_OVER:
                break
            if e == EMPTY_NEXT:
                continue
        if hlen[actor] == 1 and R[R_UNO_CALLS]:
            _uno_call(n, actor, gp)
        if rk <= 9 and not (R[R_SWAPS] != 0 and _swap_card(rk, R)):
            st[ST_P] = _nxt(actor, st[ST_D], n, active)  # a number card that swaps nothing: the turn passes on
            continue
        _card_effect(n, actor, rk, play_c, mode, emptied, was_guilty, prev_color, g, gp)
    return _finish_round(n, end, gp)


# ================================================================================================
# Decisions: the one policy interface.  The kernel builds the options of a decision into
# obs[OBS_OPT:] (option k: value at +OPT_STRIDE*k, hand index / seat at +1, info at +2), asks
# ``decide_nb`` and gets an option index back (or -1: draw / take / don't / nobody).  ``decide_nb``
# is the one place that dispatches on the policy id: the built-ins ``random`` and ``greedy`` stay
# inlined and never pay for an observation; ``scripted`` reads a script; every other policy
# (the heuristics and the user's) is called through the function slot ``ufn`` with the
# observation built for it, and its answer is checked.  See unosim.players.policy_api for the contract.
# ================================================================================================
@njit(cache=True, _nrt=False)
def _card_legal(p, c, side, cur, top_rank, hand, hlen, fcol, frank, by_symbol, any_action, restriction):
    col = fcol[side, c]
    rk = frank[side, c]
    if col == BLACK:
        if _IS_WDRAW[rk]:
            return not _is_wd4_guilty(p, side, hand, hlen, fcol, frank, cur, top_rank, restriction)
        return True
    if col == cur or cur < 0:
        return True
    if rk == top_rank and (rk <= 9 or by_symbol):
        return True
    if any_action and rk > 9 and top_rank > 9 and top_rank != WILD and not _IS_WDRAW[top_rank]:
        return True
    return False


@njit(cache=True, _nrt=False)
def _opt_index(obs, k):
    """Hand index (or seat) of option k."""
    return obs[OBS_OPT + OPT_STRIDE * k + 1]


@njit(cache=True, _nrt=False)
def _kind_of(c, side, fcol, frank):
    return fcol[side, c] * NRANKS + frank[side, c]


@njit(cache=True, _nrt=False)
def _challenge_roll(p, pp, rng):
    q = pp[p, PP_CHALLENGE]
    if q <= 0.0:
        return 0
    return 1 if rand01_nb(rng) < q else 0


@njit(cache=True, _nrt=False, inline="always")
def _greedy_play(p, nleg, cur, side, obs, hand, cmask):
    """greedy's card: the legal non-wild card with the most points; ties go to a card of the current
    colour, then by symbol (any draw card > Reverse > Skip = Skip Everyone > Flip > numbers), then
    the lowest colour index.  Wilds only when nothing else: an attacking wild before a plain one.  One key
    a card (_greedy_key) and 100 for the current colour; the first of equal keys."""
    best = -1
    bkey = -1
    # unsigned indices: a hand index and a card id are never negative, so no wrap-around code in the loop
    row = np.uint64(_key_row(cmask, side))
    up = np.uint64(p)
    for k in range(nleg):
        w = cmask[row, np.uint64(hand[up, np.uint64(obs[np.uint64(OBS_OPT + OPT_STRIDE * k + 1)])])]
        key = (w >> 3) + (100 if (w & 7) == cur else 0)
        if key > bkey:
            bkey = key
            best = k
    return best


BUILTIN_PLAYS_DRAWN = 1  # random and greedy always play a legal drawn card (D_PLAY_DRAWN)


@njit(cache=True, _nrt=False)
def random_color_nb(rng):
    """``random``'s colour for a wild: uniform over the four."""
    return randint_nb(rng, NCOLORS)


@njit(cache=True, _nrt=False)
def random_or_none_nb(rng, m):
    """``random``'s answer where it may also decline (a response, a jump-in): uniform over the m options and
    'none'; an option index, or -1."""
    k = randint_nb(rng, m + 1)
    return -1 if k == m else k


@njit(cache=True, _nrt=False, inline="always")
def random_nb(kind, p, nopt, nleg, flag, cur, side, dc):
    """``random``: uniform over the options, each card instance one option (see unosim.players.policies).
    D_PLAY bluffs first with probability pp[p, PP_BLUFF] (flag bit 0: a bluff is possible)."""
    pol, pp, obs, hand, hlen, fcol, frank, fpts, disc, active, st, rng, script, ufn, cmask, gp = dc
    if kind == D_PLAY:
        if (flag & 1) != 0 and pp[p, PP_BLUFF] > 0.0:
            if rand01_nb(rng) < pp[p, PP_BLUFF] and nopt > nleg:
                return nleg
        if nleg == 0:
            return -1
        return randint_nb(rng, nleg)
    if kind == D_COLOR:
        return random_color_nb(rng)
    if kind == D_CHALLENGE:
        return _challenge_roll(p, pp, rng)
    if kind == D_RESPOND or kind == D_JUMP_IN:
        return random_or_none_nb(rng, nopt)
    if kind == D_SWAP_TARGET:
        k = randint_nb(rng, nopt + (1 if flag != 0 else 0))
        return k if k < nopt else -1
    if kind == D_GIVE_CARD:
        return randint_nb(rng, nopt)
    return BUILTIN_PLAYS_DRAWN


@njit(cache=True, _nrt=False, inline="always")
def greedy_nb(kind, p, nopt, nleg, flag, cur, side, dc):
    """``greedy`` (see unosim.players.policies): most points first, wilds last; answers every attack it can."""
    pol, pp, obs, hand, hlen, fcol, frank, fpts, disc, active, st, rng, script, ufn, cmask, gp = dc
    if kind == D_PLAY:
        if (flag & 1) != 0 and pp[p, PP_BLUFF] > 0.0:
            if rand01_nb(rng) < pp[p, PP_BLUFF] and nopt > nleg:
                return nleg
        return _greedy_play(p, nleg, cur, side, obs, hand, cmask)
    if kind == D_COLOR:
        return _most_color(p, side, hand, hlen, fcol)
    if kind == D_CHALLENGE:
        return _challenge_roll(p, pp, rng)
    if kind == D_RESPOND or kind == D_JUMP_IN or kind == D_SWAP_TARGET or kind == D_GIVE_CARD:
        return _greedy_rare_nb(np.int64(kind), p, np.int64(nopt), side, obs, hand, hlen, fpts)
    return BUILTIN_PLAYS_DRAWN


@njit(cache=True, _nrt=False)
def _greedy_rare_nb(kind, p, nopt, side, obs, hand, hlen, fpts):
    """greedy_nb's rare decisions, a call rather than compiled into each site that inlines greedy_nb."""
    if kind == D_RESPOND:
        # stack (a Draw Two before a Wild Draw Four), else deflect, else bounce: the first best option
        best = -1
        bpri = 0
        for k in range(nopt):
            pri = obs[OBS_OPT + OPT_STRIDE * k + 2]
            if pri > bpri:
                bpri = pri
                best = k
        return best
    if kind == D_JUMP_IN:
        return 0
    if kind == D_SWAP_TARGET:
        # the opponent with the fewest cards, ties to the nearest in the direction of play
        best = -1
        bkey = 0
        for k in range(nopt):
            key = hlen[obs[OBS_OPT + OPT_STRIDE * k]] * 64 + obs[OBS_OPT + OPT_STRIDE * k + 2]
            if best < 0 or key < bkey:
                bkey = key
                best = k
        return best
    if kind == D_GIVE_CARD:
        best = 0
        for k in range(1, nopt):
            if fpts[side, hand[p, _opt_index(obs, k)]] > fpts[side, hand[p, _opt_index(obs, best)]]:
                best = k
        return best
    return 1


@njit(cache=True, _nrt=False)
def _find_option_kind(p, v, nopt, side, obs, hand, fcol, frank):
    """First option whose card has kind v (scripts name kinds)."""
    for k in range(nopt):
        if _kind_of(hand[p, _opt_index(obs, k)], side, fcol, frank) == v:
            return k
    return -1


@njit(cache=True, _nrt=False)
def scripted_nb(kind, p, nopt, flag, side, obs, hand, fcol, frank, script, st):
    """``scripted``: the next script entry (see unosim.running.scenario); a refused answer sets ST_ERR = 1."""
    v = _script_next(script, st)
    if kind == D_PLAY or kind == D_RESPOND or kind == D_JUMP_IN:
        if v < 0:
            return -1
        k = _find_option_kind(p, v, nopt, side, obs, hand, fcol, frank)
        if k < 0:
            st[ST_ERR] = 1
        return k
    if kind == D_COLOR:
        if v < 0 or v >= NCOLORS:
            st[ST_ERR] = 1
            return 0
        return v
    if kind == D_SWAP_TARGET:
        if v == -1 and flag != 0:
            return -1
        for k in range(nopt):
            if obs[OBS_OPT + OPT_STRIDE * k] == v:
                return k
        st[ST_ERR] = 1
        return -1
    if kind == D_GIVE_CARD:
        k = _find_option_kind(p, v, nopt, side, obs, hand, fcol, frank)
        if k < 0:
            st[ST_ERR] = 1
            return 0
        return k
    return 1 if v == 1 else 0  # D_PLAY_DRAWN, D_CHALLENGE


@njit(cache=True, _nrt=False)
def _count_discard_nb(obs, side, disc, st, fcol, frank):
    """Recompute OBS_PLAYED from the discard pile (after a reshuffle or a flip)."""
    for k in range(NKINDS):
        obs[OBS_PLAYED + k] = 0
    for i in range(st[ST_DISC_N]):
        obs[OBS_PLAYED + _kind_of(disc[i], side, fcol, frank)] += 1
    obs[OBS_CNT_EPOCH] = st[ST_RESHUF]
    obs[OBS_CNT_SIDE] = side


@njit(cache=True, _nrt=False)
def _count_play(obs, c, delta, side, st, fcol, frank):
    """Keep OBS_PLAYED up to date as a card goes onto (+1) or comes off (-1) the discard pile."""
    if obs[OBS_CNT_EPOCH] == st[ST_RESHUF] and obs[OBS_CNT_SIDE] == side:
        obs[OBS_PLAYED + _kind_of(c, side, fcol, frank)] += delta


@njit(cache=True, _nrt=False)
def _pub(obs, turns, d, pend_kind, pend_n, pend_from, prev_color):
    """Public scalars of the round into the observation header (only when a seat reads it).  The attacker
    is -1 once the attack has resolved (the loop keeps the last one in ``pend_from``)."""
    obs[OBS_TURN] = turns
    obs[OBS_DIRECTION] = d
    obs[OBS_PEND_KIND] = pend_kind
    obs[OBS_PEND_N] = pend_n
    obs[OBS_PEND_FROM] = pend_from if pend_kind >= 0 else -1
    obs[OBS_PREV_COLOR] = prev_color


@njit(cache=True, _nrt=False, inline="always")
def _count_kinds(obs, base, s, side, hand, hlen, fcol, frank):
    """Add seat s's cards, by their kind on side ``side`` (_kind_of's), to the counts at obs[base:] (unsigned
    indices: no negative-index wrap-around code in the loop; _kind_of with unsigned indices of its own measured
    about 2% slower here)."""
    us = np.uint64(s)
    uside = np.uint64(side)
    ubase = np.uint64(base)
    for i in range(hlen[s]):
        c = np.uint64(hand[us, np.uint64(i)])
        obs[ubase + np.uint64(fcol[uside, c] * NRANKS + frank[uside, c])] += 1


@njit(cache=True, _nrt=False, inline="always")
def build_obs_nb(kind, p, nopt, nleg, none_ok, cur, side, n, dc):
    """Everything seat p may see for this decision (and only that) into obs; see unosim.players.policy_api."""
    pol, pp, obs, hand, hlen, fcol, frank, fpts, disc, active, st, rng, script, ufn, cmask, gp = dc
    obs[OBS_KIND] = kind
    obs[OBS_SEAT] = p
    obs[OBS_NOPT] = nopt
    obs[OBS_NLEGAL] = nleg
    obs[OBS_NONE_OK] = 1 if none_ok else 0
    obs[OBS_PLAYERS] = n
    obs[OBS_COLOR] = cur
    obs[OBS_SIDE] = side
    dn = st[ST_DISC_N]
    obs[OBS_TOP] = _kind_of(disc[dn - 1], side, fcol, frank)
    obs[OBS_PILE_N] = st[ST_PILE_N]
    obs[OBS_DISC_N] = dn
    na = 0
    for s in range(n):  # the slots of seats n..MAXP-1 stay 0 (the buffer starts zeroed)
        on = active[s] != 0
        obs[OBS_ACTIVE + s] = 1 if on else 0
        obs[OBS_HLEN + s] = hlen[s] if on else 0
        na += 1 if on else 0
    obs[OBS_N_ACTIVE] = na
    obs[OBS_VOIDS], obs[OBS_RANK_VOIDS] = _void_bits(st, n, side, active)
    for k in range(NKINDS):
        obs[OBS_HAND + k] = 0
    _count_kinds(obs, OBS_HAND, p, side, hand, hlen, fcol, frank)
    if obs[OBS_CNT_EPOCH] != st[ST_RESHUF] or obs[OBS_CNT_SIDE] != side:
        _count_discard_nb(obs, side, disc, st, fcol, frank)
    if obs[OBS_DECK_SIDE] != side:
        for k in range(NKINDS):
            obs[OBS_DECK + k] = 0
        for c in range(fcol.shape[1]):
            obs[OBS_DECK + _kind_of(c, side, fcol, frank)] += 1
        obs[OBS_DECK_SIDE] = side
    obs[OBS_KNOWN_AT] = obs.shape[0] - MAXP * NKINDS
    if obs[OBS_KNOWN_ON] != 0:
        _known_counts_nb(p, n, side, obs, hand, hlen, fcol, frank, active)
    if obs[OBS_TWO_SIDED] != 0:
        # UNO Flip: the back (inactive) faces of the other hands are in plain view
        for s in range(n):
            b = OBS_BACKS + s * NKINDS
            for k in range(NKINDS):
                obs[b + k] = 0
            if s != p and active[s] != 0:
                _count_kinds(obs, b, s, 1 - side, hand, hlen, fcol, frank)
    # the options' values and infos the kernel does not need itself
    if kind == D_PLAY or kind == D_JUMP_IN or kind == D_GIVE_CARD or kind == D_RESPOND:
        up = np.uint64(p)
        uside = np.uint64(side)
        points = kind != D_RESPOND
        for k in range(nopt):  # unsigned indices, as in _count_kinds
            o = np.uint64(OBS_OPT + OPT_STRIDE * k)
            c = np.uint64(hand[up, np.uint64(obs[o + np.uint64(1)])])
            obs[o] = fcol[uside, c] * NRANKS + frank[uside, c]
            if points:
                obs[o + np.uint64(2)] = fpts[uside, c]
    elif kind == D_COLOR:
        for k in range(NCOLORS):
            obs[OBS_OPT + OPT_STRIDE * k] = k
            obs[OBS_OPT + OPT_STRIDE * k + 1] = k
            obs[OBS_OPT + OPT_STRIDE * k + 2] = 0
        for i in range(hlen[p]):
            col = fcol[side, hand[p, i]]
            if col < NCOLORS:
                obs[OBS_OPT + OPT_STRIDE * col + 2] += 1
    elif kind == D_PLAY_DRAWN or kind == D_CHALLENGE:
        for k in range(2):
            obs[OBS_OPT + OPT_STRIDE * k] = k
            obs[OBS_OPT + OPT_STRIDE * k + 1] = -1
            obs[OBS_OPT + OPT_STRIDE * k + 2] = 0
        if kind == D_PLAY_DRAWN:
            c = hand[p, hlen[p] - 1]
            obs[OBS_OPT + OPT_STRIDE + 1] = hlen[p] - 1
            obs[OBS_OPT + OPT_STRIDE + 2] = _kind_of(c, side, fcol, frank)


@njit(cache=True, _nrt=False)
def none_ok_nb(kind, flag):
    """Whether -1 is an accepted answer: draw (D_PLAY, unless flag bit 1: voluntary_draw=false with a
    legal card), take (D_RESPOND), don't (D_JUMP_IN), nobody (D_SWAP_TARGET when optional)."""
    if kind == D_PLAY:
        return (flag & 2) == 0
    if kind == D_SWAP_TARGET:
        return flag != 0
    return kind == D_RESPOND or kind == D_JUMP_IN


@njit(cache=True, _nrt=False)
def forced_nb(kind, p, nopt, nleg, flag, cur, side, gp):
    """A rollout's seat (unosim.players.lookahead): the answers queued in st[ST_FORCE:] for its first decisions
    (each for one decision kind; the queue is dropped at the first decision of another kind), then the
    policy st[ST_FORCE_BASE], which it becomes in ``pol`` (so that the fast turns play its turns): a built-in
    as soon as its last queued answer is given (its next turn is then a fast turn, not one of the full loop,
    with the same answers), a policy of the slot at its first decision after them."""
    dc = decision_ctx(deref(gp), gp)
    pol, pp, obs, hand, hlen, fcol, frank, fpts, disc, active, st, rng, script, ufn, cmask, gp = dc
    k = st[ST_FORCE_POS]
    if k < st[ST_FORCE_N]:
        if st[ST_FORCE + 2 * k] == kind:
            v = st[ST_FORCE + 2 * k + 1]
            st[ST_FORCE_POS] = k + 1
            if v >= 0 and v < nopt or (v == -1 and none_ok_nb(kind, flag)):
                if k + 1 == st[ST_FORCE_N] and st[ST_FORCE_BASE] <= POL_GREEDY:
                    pol[p] = st[ST_FORCE_BASE]  # its last answer: the fast turns play its next turn
                return v
        st[ST_FORCE_N] = 0
    # the queue is spent: from here on the seat is its base policy, whose turns the fast turns play (the
    # rollout sets pol[p] back to POL_FORCED for its next playout)
    pol[p] = st[ST_FORCE_BASE]
    if st[ST_FORCE_BASE] == POL_GREEDY:
        return greedy_nb(kind, p, nopt, nleg, flag, cur, side, dc)
    if st[ST_FORCE_BASE] == POL_RANDOM:
        return random_nb(kind, p, nopt, nleg, flag, cur, side, dc)
    return -1  # a policy of the slot: slot_policy_nb asks it


@njit(cache=True, _nrt=False)
def slot_policy_nb(kind, p, nopt, nleg, flag, cur, side, n, gp):
    """Every policy but random and greedy: scripted, or one called through the slot ``ufn`` with its
    observation; an answer outside the options ends the round with a policy error (ST_ERR = 2)."""
    dc = decision_ctx(deref(gp), gp)
    pol, pp, obs, hand, hlen, fcol, frank, fpts, disc, active, st, rng, script, ufn, cmask, gp = dc
    pid = pol[p]
    if pid == POL_SCRIPTED:
        return scripted_nb(kind, p, nopt, flag, side, obs, hand, fcol, frank, script, st)
    if st[ST_ERR] != 0:
        # the round is ending (a seat paused, or a policy erred): the decisions still asked on the way out
        # neither build an observation (a paused seat's is in obs) nor call a policy
        return -1 if none_ok_nb(kind, flag) or kind == D_SWAP_TARGET else 0
    if pid == POL_FORCED:
        v = forced_nb(kind, p, nopt, nleg, flag, cur, side, gp)
        if pol[p] < POL_SLOT:  # a queued answer, or the answer of its built-in base policy
            return v
        pid = pol[p]  # its base is a policy of the slot (lookahead's expert playouts): asked below
    ok_none = none_ok_nb(kind, flag)
    if pid == POL_EXTERNAL:
        # a plain-Python seat: its answers so far are queued in ``script``; at the first decision
        # without one the round pauses with this decision's observation in obs (ST_ERR = 3)
        k = st[ST_SCRIPT_POS]
        if k >= script.shape[0]:
            build_obs_nb(kind, p, nopt, nleg, ok_none, cur, side, n, dc)
            st[ST_ERR] = 3
            st[ST_ERR_KIND] = kind
            st[ST_ERR_SEAT] = p
            st[ST_ERR_VAL] = st[ST_LOG_N]  # events logged before this decision (unosim trace)
            return -1 if ok_none or kind == D_SWAP_TARGET else 0
        st[ST_SCRIPT_POS] = k + 1
        return _checked_answer(kind, p, nopt, ok_none, script[k], st)
    return ask_slot_nb(kind, p, pid, nopt, nleg, ok_none, cur, side, n, dc)


@njit(cache=True, _nrt=False, inline="always")
def ask_slot_nb(kind, p, pid, nopt, nleg, ok_none, cur, side, n, dc):
    """A policy of the slot (pid >= POL_SLOT) answers: its observation, the call, the check.  Inlined in
    slot_policy_nb and at the play decision of the fast turns (the hot one: there a call of slot_policy_nb
    with the arrays by value cost about as much as the observation)."""
    pol, pp, obs, hand, hlen, fcol, frank, fpts, disc, active, st, rng, script, ufn, cmask, gp = dc
    build_obs_nb(kind, p, nopt, nleg, ok_none, cur, side, n, dc)
    return _checked_answer(kind, p, nopt, ok_none, ufn(pid - POL_SLOT, kind, obs, pp[p], rng), st)


@njit(cache=True, _nrt=False)
def _checked_answer(kind, p, nopt, ok_none, v, st):
    """v if it is an answer among the options; else the round ends with a policy error (ST_ERR = 2)."""
    if v < -1 or v >= nopt or (v == -1 and not ok_none):
        if st[ST_ERR] == 0:
            st[ST_ERR] = 2
            st[ST_ERR_KIND] = kind
            st[ST_ERR_VAL] = v
            st[ST_ERR_SEAT] = p
        return -1 if ok_none or kind == D_SWAP_TARGET else 0
    return v


@njit(cache=True, _nrt=False, inline="always")
def decide_nb(kind, p, nopt, nleg, flag, cur, side, n, dc):
    """Seat p's answer to decision ``kind`` over the nopt options in obs: an option index, or -1."""
    pol, pp, obs, hand, hlen, fcol, frank, fpts, disc, active, st, rng, script, ufn, cmask, gp = dc
    if pol[p] <= POL_GREEDY:
        return _builtin_nb(kind, p, nopt, nleg, flag, cur, side, dc)
    return _not_builtin_nb(kind, p, nopt, nleg, flag, cur, side, n, dc)


@njit(cache=True, _nrt=False, inline="always")
def _not_builtin_nb(kind, p, nopt, nleg, flag, cur, side, n, dc):
    """decide_nb for a seat that is neither random nor greedy: slot_policy_nb, with int64 casts (one
    compiled slot_policy_nb, not one per call site's literal kind and counts)."""
    pol, pp, obs, hand, hlen, fcol, frank, fpts, disc, active, st, rng, script, ufn, cmask, gp = dc
    return slot_policy_nb(np.int64(kind), p, np.int64(nopt), np.int64(nleg), np.int64(flag), cur, side, n, gp)


@njit(cache=True, _nrt=False, inline="always")
def decide_cold_nb(kind, p, nopt, nleg, flag, cur, side, n, dc):
    """decide_nb as one shared call, for the decisions off the hot paths (challenges, responses, jump-ins,
    given cards; in the big loop of play_round_nb also the colours and a drawn card), so that random_nb
    and greedy_nb are not compiled into each of them.  Only the fast turns' decisions, the big loop's
    play and the swap target keep decide_nb inlined.  Each inlined copy costs seconds of cold compile:
    numba inlines at the level of its own IR, re-reading the callee's bytecode at every site, and the
    big loop's type inference and SSA grow faster than its size.  The big loop's colour and drawn-card
    decisions as calls measured neutral to faster (seven_zero, whose every turn is in the big loop:
    median 1.09x of before over 5 interleaved pairs).  The int64 casts: numba compiles a non-inlined
    function once per combination of literal arguments, and the sites pass literal kinds and counts."""
    pol, pp, obs, hand, hlen, fcol, frank, fpts, disc, active, st, rng, script, ufn, cmask, gp = dc
    return _decide_call_nb(np.int64(kind), np.int64(p), np.int64(nopt), np.int64(nleg), np.int64(flag),
                           np.int64(cur), np.int64(side), np.int64(n), gp)


@njit(cache=True, _nrt=False)
def _decide_call_nb(kind, p, nopt, nleg, flag, cur, side, n, gp):
    dc = decision_ctx(deref(gp), gp)
    pol, pp, obs, hand, hlen, fcol, frank, fpts, disc, active, st, rng, script, ufn, cmask, gp = dc
    return decide_nb(kind, p, nopt, nleg, flag, cur, side, n, dc)


@njit(cache=True, _nrt=False, inline="always")
def _choose_color(p, cur, side, n, dc):
    """decide_nb for D_COLOR, with only the built-ins' colour rules inlined (random_color_nb, _most_color),
    not the whole of random_nb and greedy_nb: the fast turns' plain wilds."""
    pol, pp, obs, hand, hlen, fcol, frank, fpts, disc, active, st, rng, script, ufn, cmask, gp = dc
    pid = pol[p]
    if pid == POL_RANDOM:
        return random_color_nb(rng)
    if pid == POL_GREEDY:
        return _most_color(p, side, hand, hlen, fcol)
    return _not_builtin_nb(D_COLOR, p, NCOLORS, NCOLORS, 0, cur, side, n, dc)


@njit(cache=True, _nrt=False, inline="always")
def _choose_color_cold(p, cur, side, n, dc):
    """_choose_color as the shared call of decide_cold_nb: the big loop's colours (a Wild Draw Four, the
    starting card, Flip's revealed wild), which come far less often than the fast turns' plain wilds."""
    pol, pp, obs, hand, hlen, fcol, frank, fpts, disc, active, st, rng, script, ufn, cmask, gp = dc
    return decide_cold_nb(D_COLOR, p, NCOLORS, NCOLORS, 0, cur, side, n, dc)


@njit(cache=True, _nrt=False, inline="always")
def _play_drawn_cold(p, cur, side, n, dc):
    """_play_drawn as the shared call of decide_cold_nb, for the big loop."""
    pol, pp, obs, hand, hlen, fcol, frank, fpts, disc, active, st, rng, script, ufn, cmask, gp = dc
    return decide_cold_nb(D_PLAY_DRAWN, p, 2, 2, 0, cur, side, n, dc) == 1


@njit(cache=True, _nrt=False)
def _wants_challenge(p, cur, side, n, gp):
    dc = decision_ctx(deref(gp), gp)
    pol, pp, obs, hand, hlen, fcol, frank, fpts, disc, active, st, rng, script, ufn, cmask, gp = dc
    return decide_cold_nb(D_CHALLENGE, p, 2, 2, 0, cur, side, n, dc) == 1


@njit(cache=True, _nrt=False, inline="always")
def _play_drawn(p, cur, side, n, dc):
    """decide_nb for D_PLAY_DRAWN, for the fast turns: random and greedy answer BUILTIN_PLAYS_DRAWN
    without being inlined here."""
    pol, pp, obs, hand, hlen, fcol, frank, fpts, disc, active, st, rng, script, ufn, cmask, gp = dc
    if pol[p] <= POL_GREEDY:
        return BUILTIN_PLAYS_DRAWN == 1
    return _not_builtin_nb(D_PLAY_DRAWN, p, 2, 2, 0, cur, side, n, dc) == 1


@njit(cache=True, _nrt=False)
def _choose_target(p, d, optional, cur, side, n, gp):
    """Whom seat p swaps with (7 under seven_zero, 0 under zero_swap_any, 5).  -1 = nobody (optional).
    Options: the other seats in the round in seat order; info = distance in the direction of play."""
    dc = decision_ctx(deref(gp), gp)
    pol, pp, obs, hand, hlen, fcol, frank, fpts, disc, active, st, rng, script, ufn, cmask, gp = dc
    m = 0
    for s in range(n):
        if s != p and active[s]:
            obs[OBS_OPT + OPT_STRIDE * m] = s
            obs[OBS_OPT + OPT_STRIDE * m + 1] = s
            obs[OBS_OPT + OPT_STRIDE * m + 2] = ((s - p) * d) % n
            m += 1
    # decide_nb inlined here, not decide_cold_nb: this function is already the call that keeps the rare
    # decision out of the big loop (a second call cost about 40 ns a swap)
    k = decide_nb(D_SWAP_TARGET, p, m, m, np.int64(1 if optional else 0), cur, side, n, dc)
    return -1 if k < 0 else obs[OBS_OPT + OPT_STRIDE * k]


@njit(cache=True, _nrt=False, inline="always")
def _match_choice(q, want_rank, want_col, cur, side, n, dc):
    """Index of a card of exactly (want_col, want_rank) that q plays out of turn, or -1 (jump-in).
    Options: q's identical cards in hand order; nobody without one is asked.  Inlined: the jump-in window
    scans every other seat on every turn, and a call with 13 array arguments (about 2 ns each) cost more
    than the scan; only the rare decision is a call (decide_cold_nb)."""
    pol, pp, obs, hand, hlen, fcol, frank, fpts, disc, active, st, rng, script, ufn, cmask, gp = dc
    cnt = 0
    for i in range(hlen[q]):
        c = hand[q, i]
        if frank[side, c] == want_rank and fcol[side, c] == want_col:
            obs[OBS_OPT + OPT_STRIDE * cnt + 1] = i
            cnt += 1
    if cnt == 0:
        return -1
    k = decide_cold_nb(D_JUMP_IN, q, cnt, cnt, 0, cur, side, n, dc)
    return -1 if k < 0 else _opt_index(obs, k)


@njit(cache=True, _nrt=False, inline="always")
def _response_priority(q, c, pend_kind, cur, top_col, side, hand, hlen, fcol, frank, flags):
    """How card c of victim q may answer the pending attack: 0 not at all, 4 stack a Draw Two,
    3 stack a Wild Draw Four, 2 deflect (4.6-4.8), 1 bounce with a Reverse (4.9).  A card answering here
    must carry a bit of _answer_mask, the fast turns' test (tests: test_answer_mask_covers_every_answer).

    flags: 1 stacking, 2 stack_draw_two, 4 stack_wd4, 8 stack_mixed, 16 deflect_skip,
    32 deflect_draw_two, 64 deflect_wd4, 128 reverse_bounce, 256 bounce any action (not only
    Draw Two), 512 bounce needs the matching colour, 1024 Invisibility Wild blocks; bits 11-12 the Wild
    Draw Four restriction (a stacked one must be legal too), bits 16+ the rank of the top card."""
    rk = frank[side, c]
    col = fcol[side, c]
    pend_colored_draw = pend_kind >= 0 and _DRAW_N[pend_kind] > 0 and not _IS_WDRAW[pend_kind] \
        and pend_kind != DANCING_WILD
    pend_wild_draw = pend_kind >= 0 and _IS_WDRAW[pend_kind]
    if _DRAW_N[rk] > 0 and col != BLACK:
        # a coloured draw card (Draw Two; Flip's Draw One / Draw Five; Harry Potter's Draw Three)
        if pend_kind == rk:
            if (flags & 3) == 3:
                return 4
            if flags & 32:
                return 2
        elif pend_wild_draw and col == cur and pend_kind != WILD_DRAW_COLOR:
            if (flags & 9) == 9:
                return 4
            if flags & 64 and rk == DRAW2:
                return 2
        return 0
    if _IS_WDRAW[rk]:
        if rk != WILD_DRAW_COLOR and flags & 1 and \
                ((pend_kind == rk and flags & 4) or (pend_colored_draw and flags & 8)):
            if not _is_wd4_guilty(q, side, hand, hlen, fcol, frank, cur, flags >> 16, (flags >> 11) & 3):
                return 3
        return 0
    if rk == SKIP:
        # deflect_skip (docs/rules.md 4.6): only exactly the same card saves the target of a Skip, so a Skip of
        # the top card's colour deflects a Skip (top rank, flags >> 16), never a Reverse that acts as a
        # Skip with two players (1.17): that card is a Reverse, and no Skip is the same card as it
        if pend_kind == SKIP and flags & 16 and col == top_col and (flags >> 16) == SKIP:
            return 2
        return 0
    if rk == INVIS_WILD:
        # Harry Potter (docs/rules.md 3.3, placeholder): cancels a Skip, Draw Three, Wild Draw Four or Howler
        if flags & 1024 and (pend_kind == SKIP or pend_kind == DRAW3 or pend_kind == WD4 or pend_kind == HOWLER):
            return 2
        return 0
    if rk == REVERSE and flags & 128:
        if pend_colored_draw or (flags & 256 and (pend_kind == SKIP or pend_wild_draw)):
            if not (flags & 512) or col == cur:
                return 1
    return 0


@njit(cache=True, _nrt=False)
def _response_choice(q, pend_kind, top_col, flags, cur, side, n, gp):
    """Index of the card victim q answers a pending attack with, or -1 to take it.  Options: every
    card that may answer, in hand order, info = its _response_priority; nobody without one is asked.

    random: uniform over 'take' and every eligible card instance.  greedy: always answers when it
    can: stack (a Draw Two before a Wild Draw Four), else deflect, else bounce."""
    dc = decision_ctx(deref(gp), gp)
    pol, pp, obs, hand, hlen, fcol, frank, fpts, disc, active, st, rng, script, ufn, cmask, gp = dc
    cnt = 0
    for i in range(hlen[q]):
        pri = _response_priority(q, hand[q, i], pend_kind, cur, top_col, side, hand, hlen, fcol, frank,
                                 flags)
        if pri > 0:
            obs[OBS_OPT + OPT_STRIDE * cnt + 1] = i
            obs[OBS_OPT + OPT_STRIDE * cnt + 2] = pri
            cnt += 1
    if cnt == 0:
        return -1  # nothing to answer with: not even a scripted seat is asked
    k = decide_cold_nb(D_RESPOND, q, cnt, cnt, 0, cur, side, n, dc)
    return -1 if k < 0 else _opt_index(obs, k)


@njit(cache=True, _nrt=False)
def _give_index(q, cur, side, n, gp):
    """Hand index of the card q hands over in a one-for-one exchange (options: every card of q)."""
    dc = decision_ctx(deref(gp), gp)
    pol, pp, obs, hand, hlen, fcol, frank, fpts, disc, active, st, rng, script, ufn, cmask, gp = dc
    for i in range(hlen[q]):
        obs[OBS_OPT + OPT_STRIDE * i + 1] = i
    k = decide_cold_nb(D_GIVE_CARD, q, hlen[q], hlen[q], 0, cur, side, n, dc)
    return _opt_index(obs, max(k, 0))


@njit(cache=True, _nrt=False)
def _exchange_one(a, b, cur, side, n, gp):
    """swap_on_five one_card_each_own_choice: a and b each give one card of their own choice.  Returns the
    cards given by a and by b (-1, -1 when a hand is empty)."""
    dc = decision_ctx(deref(gp), gp)
    pol, pp, obs, hand, hlen, fcol, frank, fpts, disc, active, st, rng, script, ufn, cmask, gp = dc
    if hlen[a] == 0 or hlen[b] == 0:
        return -1, -1
    ia = _give_index(a, cur, side, n, gp)
    ib = _give_index(b, cur, side, n, gp)
    t = hand[a, ia]
    hand[a, ia] = hand[b, ib]
    hand[b, ib] = t
    return t, hand[a, ia]


@njit(cache=True, _nrt=False)
def seat_points_nb(s, side, hand, hlen, frank, fpts, z50):
    """Points left in seat s's hand.  z50 (zero_worth_50, docs/rules.md 4.16): 0 off, 1 a sole 0 is worth
    50, 2 a hand of only zeros has each 0 worth 50, 3 every 0 is worth 50."""
    t = 0
    zeros = 0
    for i in range(hlen[s]):
        c = hand[s, i]
        t += fpts[side, c]
        if frank[side, c] == 0:
            zeros += 1
    if z50 == 0 or zeros == 0:
        return t
    if z50 == 1:
        return 50 if hlen[s] == 1 else t
    if z50 == 2:
        return 50 * zeros if zeros == hlen[s] else t
    return t + 50 * zeros


# ================================================================================================
# Many rounds / many matches (one thread each call; the Python layer runs batches on a thread
# pool with the GIL released)
# ================================================================================================
_SEAT_SALT = np.uint64(0x5EA7C0DE5EA7C0DE)
_PAIR_SALT = np.uint64(0xF11BF11BF11BF11B)


#: UNO Flip's pairings are drawn this many games at a time: each game's random stream is a serial chain (each
#: number the mix of the last), and independent chains run side by side where one alone waits on every step
PAIR_LANES = 8
assert PAIR_LANES == 8, "_pair_draws writes out its eight lanes"
# a dark face packed in one word (a pairing's swaps move one word instead of five): its card mask in bits 0-32,
# its index among the dark faces 33-39 (which names its greedy key), colour 40-43, rank 44-49, points 50-62
# (UNO Flip's 112 faces, the only deck paired per game, fit)
_PK_IDX = np.uint64(33)
_PK_COL = np.uint64(40)
_PK_RANK = np.uint64(44)
_PK_PTS = np.uint64(50)
_PK_MASK = np.int64((1 << 33) - 1)
assert CM_RANK0 + NRANKS <= 33, "a card mask fits below _PK_IDX"


@njit(cache=True)
def pairing_space_nb(paired, fcol, frank, fpts, cmask, pol):
    """What pair_game_nb pairs a deck's faces with (empty where the deck is not paired per game): the dark faces
    packed (a word a card, from side 1 of the deck's tables and of their card masks ``cmask``), their greedy
    keys (side 1's row of greedy's keys, _key_row; none where no seat of the line-up ``pol`` plays greedy, which
    alone reads them), a word a card to shuffle them in, and the draws of PAIR_LANES games (PAIR_LANES x ncards)."""
    nc = fcol.shape[1] if paired else 0
    if nc > 128:
        raise ValueError("a deck paired per game has at most 128 cards (the index field of a packed dark face)")
    dark = np.zeros(nc, np.int64)
    keys = np.zeros(nc if (pol == POL_GREEDY).any() else 0, np.int64)
    for c in range(nc):
        dark[c] = (cmask[1, c] | (np.int64(c) << _PK_IDX) | (np.int64(fcol[1, c]) << _PK_COL) |
                   (np.int64(frank[1, c]) << _PK_RANK) | (np.int64(fpts[1, c]) << _PK_PTS))
    key_row = _key_row(cmask, 1)
    for c in range(keys.shape[0]):
        keys[c] = cmask[key_row, c]
    return dark, keys, np.zeros(nc, np.int64), np.zeros((PAIR_LANES, nc), np.int64)


@njit(cache=True, _nrt=False, inline="always")
def _fy_draw(h, i):
    """The next number of a pairing's stream after ``h``, and the Fisher-Yates draw of step i from it."""
    h = mix64_nb(h + _GOLDEN)
    return h, np.int64(((h >> _S32) * np.uint64(i + 1)) >> _S32)


@njit(cache=True, _nrt=False)
def _pair_draws(g0, seed, draws):
    """The Fisher-Yates draws of the pairings of games g0 .. g0+PAIR_LANES-1, each from its own stream:
    draws[lane, i] (i = ncards-1 .. 1) is the position that dark face i swaps with for game g0+lane.  The eight
    streams are eight independent chains, kept in registers and stepped together."""
    s = seed ^ _PAIR_SALT
    h0 = game_seed_nb(s, np.uint64(g0))
    h1 = game_seed_nb(s, np.uint64(g0 + 1))
    h2 = game_seed_nb(s, np.uint64(g0 + 2))
    h3 = game_seed_nb(s, np.uint64(g0 + 3))
    h4 = game_seed_nb(s, np.uint64(g0 + 4))
    h5 = game_seed_nb(s, np.uint64(g0 + 5))
    h6 = game_seed_nb(s, np.uint64(g0 + 6))
    h7 = game_seed_nb(s, np.uint64(g0 + 7))
    for i in range(draws.shape[1] - 1, 0, -1):
        h0, draws[0, i] = _fy_draw(h0, i)
        h1, draws[1, i] = _fy_draw(h1, i)
        h2, draws[2, i] = _fy_draw(h2, i)
        h3, draws[3, i] = _fy_draw(h3, i)
        h4, draws[4, i] = _fy_draw(h4, i)
        h5, draws[5, i] = _fy_draw(h5, i)
        h6, draws[6, i] = _fy_draw(h6, i)
        h7, draws[7, i] = _fy_draw(h7, i)


@njit(cache=True, _nrt=False)
def pair_game_nb(g, gi, seed, space, gcol, grank, gpts, cmask):
    """UNO Flip random_bijection (docs/rules.md 2.3): give game ``gi``, the ``g``-th of a batch, its own uniformly
    random pairing of light faces (side 0) with dark faces (side 1): side 1 of its tables, card masks and greedy's
    keys.  The
    draws are made for PAIR_LANES games at once, at every PAIR_LANES-th game of the batch; they are the same
    whatever the batch (each game's own stream).  ``space``: pairing_space_nb."""
    dark, keys, work, draws = space
    nc = dark.shape[0]
    lane = g % PAIR_LANES
    if lane == 0:
        _pair_draws(gi, seed, draws)
    for c in range(nc):
        work[c] = dark[c]
    for i in range(nc - 1, 0, -1):
        j = draws[lane, i]
        t = work[i]
        work[i] = work[j]
        work[j] = t
    for c in range(nc):  # a loop the compiler vectorizes
        w = work[c]
        cmask[1, c] = w & _PK_MASK
        gcol[1, c] = (w >> _PK_COL) & 15
        grank[1, c] = (w >> _PK_RANK) & 63
        gpts[1, c] = w >> _PK_PTS
    key_row = _key_row(cmask, 1)
    for c in range(keys.shape[0]):  # greedy's keys of side 1, where it plays
        cmask[key_row, c] = keys[np.uint64((work[c] >> _PK_IDX) & 127)]


@njit(cache=True)
def pair_faces_nb(g, seed, fcol, frank, fpts, gcol, grank, gpts):
    """Game g's face tables: a copy of the deck's with the pairing of pair_game_nb (outside a batch kernel)."""
    for side in range(2):
        for c in range(fcol.shape[1]):
            gcol[side, c] = fcol[side, c]
            grank[side, c] = frank[side, c]
            gpts[side, c] = fpts[side, c]
    # the deck's masks, which the pairing packs; game g's are not kept (the caller builds them from the faces), so
    # no seat is named whose keys it would pair
    cmask = new_card_masks_nb(fcol, frank, fpts)
    pair_game_nb(0, g, seed, pairing_space_nb(True, fcol, frank, fpts, cmask, np.zeros(0, np.int64)), gcol, grank,
                 gpts, cmask)


@njit(cache=True, _nrt=False)
def _note_policy_error(g, who, st, o_err):
    o_err[0] = g
    o_err[1] = who
    o_err[2] = st[ST_ERR_KIND]
    o_err[3] = st[ST_ERR_VAL]


@njit(cache=True)
def workspace_nb(n, ncards):
    """Buffers for play_round_nb (one set per thread, reused for every round of a batch)."""
    return (np.empty((n, ncards), np.int64), np.empty(n, np.int64), np.empty(ncards, np.int64),
            np.empty(ncards, np.int64), np.empty(ncards, np.int64), np.empty(ncards, np.int64),
            np.ones(4 * n, np.int64), np.zeros(NST, np.int64), np.zeros(1, np.uint64),
            np.empty((0, 5), np.int64), np.empty(0, np.int64), np.empty(0, np.int64),
            np.zeros(NRES, np.int64), np.empty(n, np.int64))


@njit(cache=True, _nrt=False)
def seat_map_nb(seating, g, seed, n, pol, pp, seatmap, polg, ppg):
    """Which entry of the policy list sits in each seat for game/match g.

    seating 0 fixed (entry s in seat s), 1 rotate (entry (s + g) mod n: over any n consecutive games
    every policy plays every seat once), 2 shuffle (a uniform permutation from its own stream)."""
    for s in range(n):
        seatmap[s] = s
    if seating == 1:
        for s in range(n):
            seatmap[s] = (s + g) % n
    elif seating == 2:
        h = game_seed_nb(seed ^ _SEAT_SALT, np.uint64(g))
        for i in range(n - 1, 0, -1):
            h = mix64_nb(h + _GOLDEN)
            j = np.int64(((h >> _S32) * np.uint64(i + 1)) >> _S32)
            t = seatmap[i]
            seatmap[i] = seatmap[j]
            seatmap[j] = t
    for s in range(n):
        polg[s] = pol[seatmap[s]]
        for k in range(pp.shape[1]):
            ppg[s, k] = pp[seatmap[s], k]


@entry(_sig(i8, i8, types.uint64, i8, I2, I2, I2, I1, F1, I1, F2, i8, i8, types.int16[::1], types.int32[::1],
           types.int32[::1], types.int32[::1], types.int8[::1], types.int32[::1], types.int32[:, ::1],
           types.int32[:, ::1], types.int16[::1], I1, I1, SLOT), cache=True, nogil=True)
def play_batch_nb(game0, ngames, seed, n, fcol, frank, fpts, ri, rf, pol, pp, seating, pairing,
                  o_winner, o_turns, o_wpts, o_drawn, o_end, o_reshuf, o_hpts, o_extra, o_wpol, o_err, obs, ufn):
    """Play rounds with global indices game0 .. game0+ngames-1 into the output arrays (row 0 = game0).

    Each round is seeded from (seed, global index) alone, so results are identical for any number
    of threads, any batch size and any split of a run.  o_wpol: the winner's index in the policy
    list (differs from the seat under rotating or shuffled seating).  o_err: the first policy error,
    (game, policy index, decision, value), left alone when there is none.  ``obs``: the decisions'
    options and observations (enums.obs_size(cards) entries; after an exception raised by a policy it
    still names the decision and the seat).  ``ufn``: the policy slot
    (unosim.players.policy_api builds it; ``no_slot_nb`` when every seat is random, greedy or scripted).
    """
    hand, hlen, pile, disc, lg, tmp, active, st, rng, log, order, script, res, seatmap = \
        workspace_nb(n, fcol.shape[1])
    polg = pol.copy()
    ppg = pp.copy()
    gcol = fcol.copy()
    grank = frank.copy()
    gpts = fpts.copy()
    cmask = new_card_masks_nb(gcol, grank, gpts)
    R, RD = new_rules_nb(ri, rf)
    rnd = (hand, hlen, pile, disc, lg, tmp, active, st, rng, log, res, obs, gcol, grank, gpts, cmask, polg, ppg, script,
           ufn, R, RD)
    rp = ref(rnd)  # the round's arrays by address: a call with the tuple passes some 170 words
    space = pairing_space_nb(pairing != 0, fcol, frank, fpts, cmask, pol)  # cmask: still the deck's
    for g in range(ngames):
        gi = game0 + g
        if seating != 0:
            seat_map_nb(seating, gi, seed, n, pol, pp, seatmap, polg, ppg)
        if pairing != 0:
            pair_game_nb(g, gi, seed, space, gcol, grank, gpts, cmask)
        rng[0] = game_seed_nb(seed, np.uint64(gi))
        for s in range(n):
            active[3 * n + s] = 1
        # np.int64(-1), not a bare -1: a literal argument makes numba compile a second play_round_nb
        # (specialised on first == -1) instead of sharing play_one_nb's and play_match_batch_nb's
        w = play_round_nb(n, n - 1, np.int64(-1), order, rp)
        if res[RES_END] == END_POLICY and o_err[0] < 0:
            _note_policy_error(gi, seatmap[st[ST_ERR_SEAT]] if seating != 0 else st[ST_ERR_SEAT], st, o_err)
        o_winner[g] = w
        o_wpol[g] = -1 if w < 0 else (seatmap[w] if seating != 0 else w)
        o_turns[g] = res[RES_TURNS]
        o_wpts[g] = res[RES_WPTS]
        o_drawn[g] = res[RES_DRAWN]
        o_end[g] = res[RES_END]
        o_reshuf[g] = res[RES_RESHUF]
        for s in range(n):
            o_hpts[g, s] = res[RES_HPTS + s]
        for k in range(o_extra.shape[1]):
            o_extra[g, k] = res[RES_CHALLENGES + k]
    keep(rnd)  # the rounds' arrays live until here: rp points at them (by_ref)




@njit(cache=True, _nrt=False)
def _lazy_dealer_nb(w, n, pts, seated, tie_random, rng):
    """Lazy scoring (docs/rules.md 4.11): the seat that deals after a round won by w, the highest points left
    in hand.  Ties: with ``tie_random`` (lazy_tie_break=random, the specification's default) one of the
    tied seats drawn uniformly from the round's own stream ``rng`` (the next round reseeds it, so the draw
    changes nothing else and depends on no thread count); otherwise the first tied seat clockwise from w."""
    lo = -1
    ties = 0
    s = w
    for _ in range(n - 1):
        s = _nxt(s, 1, n, seated)
        if lo < 0 or pts[s] > pts[lo]:
            lo = s
            ties = 1
        elif pts[s] == pts[lo]:
            ties += 1
    if ties > 1 and tie_random:
        k = randint_nb(rng, ties)
        s = w
        for _ in range(n - 1):
            s = _nxt(s, 1, n, seated)
            if pts[s] == pts[lo]:
                if k == 0:
                    return s
                k -= 1
    return lo


# ---- one match's state (ms) between its rounds --------------------------------------------------------
MS_DEALER = 0        # who deals the next round
MS_FIRST = 1         # who acts first in it (-1: the dealer's left)
MS_ROUNDS = 2        # rounds played
MS_TURNS = 3         # turns played
MS_WINNER = 4        # the match's winner, once it is over
MS_DONE = 5          # 1 once the scoring mode ended the match
NMS = 6


@njit(cache=True, _nrt=False)
def new_match_nb(n, ms, scores, rwins, seated):
    """A match before its first round: no score, every seat in, the last seat deals."""
    for s in range(n):
        scores[s] = 0
        rwins[s] = 0
        seated[s] = 1
    ms[MS_DEALER] = n - 1
    ms[MS_FIRST] = -1
    ms[MS_ROUNDS] = 0
    ms[MS_TURNS] = 0
    ms[MS_WINNER] = -1
    ms[MS_DONE] = 0


@njit(cache=True, _nrt=False)
def match_round_seed_nb(m, seed, n, mi, ms, scores, obs, rng):
    """Round ms[MS_ROUNDS] of match m: its random stream, seeded from (seed, m * 65536 + round), and the
    match scores in the observation (a team's score for each of its seats)."""
    rng[0] = game_seed_nb(seed, np.uint64(m * 65536 + ms[MS_ROUNDS]))
    half = n // 2
    for s in range(n):
        obs[OBS_SCORE + s] = scores[s % half] if mi[MI_PARTNERS] != 0 else scores[s]


@njit(cache=True, _nrt=False)
def score_match_round_nb(w, wpts, turns, n, mi, R, ms, scores, pts, rwins, seated, rng):
    """The match after a round won by seat w (-1: no winner) worth wpts, with pts[s] the points left in each
    seated hand: the scoring mode scores it and may end the match (ms[MS_DONE], ms[MS_WINNER]); otherwise
    the next dealer and first player.  ``rng``: the round's stream (lazy scoring's tie break)."""
    ms[MS_ROUNDS] += 1
    ms[MS_TURNS] += turns
    if w >= 0:
        rwins[w] += 1
    mode = mi[MI_MODE]
    winner = -1
    if mode == SC_STANDARD:
        winner = _standard_scoring(w, wpts, n, mi, scores, pts)
    elif mode == SC_ROTATING:
        winner = _rotating_scoring(w, n, mi, ms[MS_ROUNDS], scores, pts)
    elif mode == SC_LAZY:
        if w >= 0:
            ms[MS_DEALER] = _lazy_dealer_nb(w, n, pts, seated, R[R_LAZY_RANDOM] != 0, rng)
            ms[MS_FIRST] = w
        if ms[MS_ROUNDS] >= mi[MI_ROUNDS]:
            winner = 0
            for s in range(1, n):
                if rwins[s] > rwins[winner]:
                    winner = s
    else:
        winner = _own_hand_scoring(w, n, mi, ms, scores, pts, seated)
    if winner >= 0:
        ms[MS_WINNER] = winner
        ms[MS_DONE] = 1
        return True
    if mode != SC_LAZY:
        ms[MS_DEALER] = _nxt(ms[MS_DEALER], 1, n, seated)
        ms[MS_FIRST] = -1
    return False


@njit(cache=True, _nrt=False)
def _standard_scoring(w, wpts, n, mi, scores, pts):
    """The winner of the round scores the others' hands; with partners the team scores the other teams'
    hands (docs/rules.md 1.18) into scores[team].  Returns the match's winner once a score reaches the
    target, else -1."""
    if w < 0:
        return -1
    if mi[MI_PARTNERS] != 0:
        half = n // 2
        team = w % half
        gain = 0
        for s in range(n):
            if s % half != team:
                gain += pts[s]
        scores[team] += gain
        return w if scores[team] >= mi[MI_TARGET] else -1
    scores[w] += wpts
    return w if scores[w] >= mi[MI_TARGET] else -1


@njit(cache=True, _nrt=False)
def _rotating_scoring(w, n, mi, rounds, scores, pts):
    """Rotating partners (4 players): seat 0's partner is seat 1, 2, 3 for rounds_per_partner rounds each;
    the round's winning team scores the other team's hands, each seat for itself.  After the fixed number
    of rounds the highest total wins."""
    mate0 = 1 + ((rounds - 1) // mi[MI_PER_PARTNER]) % (n - 1)
    if w >= 0:
        team_w = 0 if (w == 0 or w == mate0) else 1
        gain = 0
        for s in range(n):
            ts = 0 if (s == 0 or s == mate0) else 1
            if ts != team_w:
                gain += pts[s]
        for s in range(n):
            ts = 0 if (s == 0 or s == mate0) else 1
            if ts == team_w:
                scores[s] += gain
    if rounds < mi[MI_ROUNDS]:
        return -1
    best = 0
    for s in range(1, n):
        if scores[s] > scores[best]:
            best = s
    return best


@njit(cache=True, _nrt=False)
def _own_hand_scoring(w, n, mi, ms, scores, pts, seated):
    """Own-hand scoring (self_loser, lowest_wins, elimination): everyone scores the own hand (a capped round
    scores nothing).  Once someone reaches the target: the lowest total wins, or under elimination the
    seats at the target drop out and the last one left wins."""
    reached = False
    for s in range(n):
        if seated[s] and w >= 0:
            scores[s] += pts[s]
            if scores[s] >= mi[MI_TARGET]:
                reached = True
    if not reached:
        return -1
    if mi[MI_MODE] != SC_ELIMINATION:
        best = 0
        for s in range(1, n):
            if scores[s] < scores[best]:
                best = s
        return best
    left = 0
    best = -1
    for s in range(n):
        if seated[s]:
            # among the seats still in, the lowest total (for a joint crossing)
            if best < 0 or scores[s] < scores[best]:
                best = s
            if scores[s] >= mi[MI_TARGET]:
                seated[s] = 0
        left += seated[s]
    if left <= 1:
        for s in range(n):
            if seated[s]:
                best = s  # the last one left wins
        return best
    if not seated[ms[MS_DEALER]]:
        ms[MS_DEALER] = _nxt(ms[MS_DEALER], -1, n, seated)
    return -1


@njit(cache=True, _nrt=False)
def hand_points_nb(n, res, seated, pts):
    """pts[s]: the points left in each seated hand at the end of the round (res[RES_HPTS + s]), 0 for a seat out
    of the match."""
    for s in range(n):
        pts[s] = res[RES_HPTS + s] if seated[s] else 0


@entry(_sig(i8, i8, types.uint64, i8, I2, I2, I2, I1, F1, I1, F2, I1, i8, types.int16[::1], types.int32[::1],
           types.int8[::1], I2, types.int32[:, ::1], types.int16[:, ::1], I1, I1, I2, I1, I1, SLOT),
      cache=True, nogil=True)
def play_match_batch_nb(m0, nmatches, seed, n, fcol, frank, fpts, ri, rf, pol, pp, mi, pairing,
                        o_winner, o_rounds, o_end, o_scores, o_rwins, o_seatmap, o_turns,
                        r_offset, r_out, o_err, obs, ufn):
    """Play full matches m0 .. m0+nmatches-1 (rounds until the scoring mode ends the match).

    Round k of match m is seeded from (seed, m * 65536 + k).  The dealer passes clockwise
    (docs/rules.md 1.3) unless the scoring mode says otherwise.  When r_out has rows, round records are
    written from row r_offset[m - m0]: (match, round, dealer, winner, winner_points, turns, capped).
    """
    hand, hlen, pile, disc, lg, tmp, active, st, rng, log, order, script, res, seatmap = \
        workspace_nb(n, fcol.shape[1])
    polg = pol.copy()
    ppg = pp.copy()
    scores = np.zeros(n, np.int64)
    pts = np.zeros(n, np.int64)
    rwins = np.zeros(n, np.int64)
    ms = np.zeros(NMS, np.int64)
    seated = active[3 * n:]
    half = n // 2
    gcol = fcol.copy()
    grank = frank.copy()
    gpts = fpts.copy()
    cmask = new_card_masks_nb(gcol, grank, gpts)
    R, RD = new_rules_nb(ri, rf)
    rnd = (hand, hlen, pile, disc, lg, tmp, active, st, rng, log, res, obs, gcol, grank, gpts, cmask, polg, ppg, script,
           ufn, R, RD)
    rp = ref(rnd)  # the round's arrays by address: a call with the tuple passes some 170 words
    space = pairing_space_nb(pairing != 0, fcol, frank, fpts, cmask, pol)  # cmask: still the deck's
    for g in range(nmatches):
        m = m0 + g
        seat_map_nb(mi[MI_SEATING], m, seed, n, pol, pp, seatmap, polg, ppg)
        if pairing != 0:
            # physical cards do not change within a game: one pairing per match
            pair_game_nb(g, m, seed, space, gcol, grank, gpts, cmask)
        new_match_nb(n, ms, scores, rwins, seated)
        ro = r_offset[g] if r_out.shape[0] > 0 else 0
        while ms[MS_ROUNDS] < mi[MI_MAX_ROUNDS]:
            match_round_seed_nb(m, seed, n, mi, ms, scores, obs, rng)
            dealer = ms[MS_DEALER]
            w = play_round_nb(n, dealer, np.int64(ms[MS_FIRST]), order, rp)
            if res[RES_END] == END_POLICY and o_err[0] < 0:
                _note_policy_error(m, seatmap[st[ST_ERR_SEAT]], st, o_err)
            if r_out.shape[0] > 0:
                _round_record(m, ms[MS_ROUNDS], dealer, w, res, r_out[ro])
                ro += 1
            hand_points_nb(n, res, seated, pts)
            if score_match_round_nb(w, res[RES_WPTS], res[RES_TURNS], n, mi, R, ms, scores, pts, rwins,
                                    seated, rng):
                break
        o_winner[g] = ms[MS_WINNER]
        o_rounds[g] = ms[MS_ROUNDS]
        o_end[g] = MEND_DONE if ms[MS_DONE] else MEND_ROUND_CAP
        o_turns[g] = ms[MS_TURNS]
        for s in range(n):
            o_scores[g, s] = scores[s % half] if mi[MI_PARTNERS] != 0 else scores[s]
            o_seatmap[g, s] = seatmap[s]
            o_rwins[g, s] = rwins[s]
    keep(rnd)  # the rounds' arrays live until here: rp points at them (by_ref)


@njit(cache=True, _nrt=False)
def _round_record(m, k, dealer, w, res, row):
    """A match's round record: (match, round, dealer, winner, winner_points, turns, capped)."""
    row[0] = m
    row[1] = k
    row[2] = dealer
    row[3] = w
    row[4] = res[RES_WPTS]
    row[5] = res[RES_TURNS]
    row[6] = 1 if res[RES_END] == END_CAP else 0


@entry(SLOT_SIG, cache=True, nogil=True, _nrt=False)
def no_slot_nb(which, kind, obs, params, rng):
    """The slot when no seat uses it (never called: every seat is random, greedy or scripted)."""
    return -2


@entry(types.int64(i8, i8, i8, I1, I2, I2, I2, I1, F1, I1, F2, I1, I2, I1, I1, I1, I1, I1, I1, I1,
                  types.uint64[::1], I2, I1, I1, SLOT), cache=True)
def play_one_nb(n, dealer, first, order, fcol, frank, fpts, ri, rf, pol, pp, script,
                hand, hlen, pile, disc, lg, tmp, active, st, rng, log, res, obs, ufn):
    """play_round_nb with a fixed signature, for calls from Python (scenarios, traces)."""
    cmask = new_card_masks_nb(fcol, frank, fpts)
    R, RD = new_rules_nb(ri, rf)
    g = (hand, hlen, pile, disc, lg, tmp, active, st, rng, log, res, obs, fcol, frank, fpts, cmask, pol, pp, script, ufn,
         R, RD)
    w = play_round_nb(n, dealer, first, order, ref(g))
    keep(g)  # cmask, R and RD are this function's own: they live until the round is over (by_ref)
    return w


# ---- a round in one buffer, stepped from Python (unosim.running.steps): the offsets of its arrays in ``lay`` ----
LAY_HAND = 0
LAY_HLEN = 1
LAY_PILE = 2
LAY_DISC = 3
LAY_LG = 4
LAY_TMP = 5
LAY_ACTIVE = 6
LAY_ST = 7
LAY_RNG = 8
LAY_RES = 9
LAY_OBS = 10
NLAY = 11


def state_sizes(n: int, ncards: int, nobs: int) -> list[int]:
    """Entries of each array of a round in LAY_* order (unosim.running.steps.State lays them out one after another)."""
    return [n * ncards, n, ncards, ncards, ncards, ncards, 4 * n, NST, 1, NRES, nobs]


#: what steps_nb stopped at
STEPS_PAUSED_FIRST = 0  # a decision of a seat played from Python in its first step: the queued answers are still the step's
STEPS_PAUSED_LATER = 1  # such a decision in a later step: the first step was played with the queued answers
STEPS_ROUND_OVER = 2    # the round is over (a win, the cap, a policy's error)

# the State's flags (unosim.running.steps.State), buf[fl:fl+3]: the round is under way, it is over, the decisions
# answered in the round before this step
FL_STARTED = 0
FL_OVER = 1
FL_ANSWERED = 2

NGIVEN = 8  # the answers steps_nb gives itself in one step, at most (then it pauses as for any decision)


@njit(cache=True, _nrt=False)
def single_answer_nb(obs):
    """The one answer the decision in ``obs`` allows (-1 where it has no option and -1 is accepted: a draw
    with nothing to play; 0 where its one option must be taken), or -2 where it allows more than one."""
    if obs[OBS_NOPT] == 0 and obs[OBS_NONE_OK] != 0:
        return -1
    if obs[OBS_NOPT] == 1 and obs[OBS_NONE_OK] == 0:
        return 0
    return -2


@entry(types.int64(i8, i8, i8, I2, I2, I2, I2, I1, F1, I1, F2, I1, I1, I1, I1, i8, i8, I2, SLOT, i8, I1), cache=True)
def steps_nb(n, dealer, first, fcol, frank, fpts, cmask, R, RD, pol, pp, script, buf, start, lay, fl, snapshot, log,
             ufn, auto, given):
    """Play the round whose arrays lie in ``buf`` at the offsets ``lay`` (LAY_*, and lay[NLAY] the end of obs) step
    by step (MODE_STEP; MODE_CONTINUE once under way; ``snapshot``: MODE_SNAPSHOT or 0) until a seat played
    from Python must decide (st[ST_ERR] = 3), or the round is over.  The first step plays with the queued
    answers ``script``, the later ones with none.  Each step starts from a copy of buf in ``start``: at a
    decision, start is its step's start and buf as the engine left it.  The State's flags at buf[fl:fl+3]
    (FL_*) are kept as the steps go.  Returns STEPS_*.  One call from Python per decision, not one per step: a
    call costs several microseconds, more than a turn of the engine.  ``cmask``, ``R``, ``RD``: card_masks_nb's
    and rules_nb's tables.

    With ``auto`` a decision that allows a single answer (single_answer_nb: a draw with nothing to play) is
    answered here, not handed out: the step is played again from its start with that answer queued after the
    step's others, as Python would queue it.  ``given`` (1 + 3 NGIVEN) holds those of the step it stopped in:
    their number, then (seat, decision kind, answer) each, for the caller's queue."""
    nc = fcol.shape[1]
    hand = buf[lay[LAY_HAND]:lay[LAY_HAND] + n * nc].reshape((n, nc))
    hlen = buf[lay[LAY_HLEN]:lay[LAY_HLEN] + n]
    pile = buf[lay[LAY_PILE]:lay[LAY_PILE] + nc]
    disc = buf[lay[LAY_DISC]:lay[LAY_DISC] + nc]
    lg = buf[lay[LAY_LG]:lay[LAY_LG] + nc]
    tmp = buf[lay[LAY_TMP]:lay[LAY_TMP] + nc]
    active = buf[lay[LAY_ACTIVE]:lay[LAY_ACTIVE] + 4 * n]
    st = buf[lay[LAY_ST]:lay[LAY_ST] + NST]
    rng = buf[lay[LAY_RNG]:lay[LAY_RNG] + 1].view(np.uint64)
    res = buf[lay[LAY_RES]:lay[LAY_RES] + NRES]
    obs = buf[lay[LAY_OBS]:lay[NLAY]]
    order = np.zeros(0, np.int64)  # no seat order to keep
    answers = np.empty(script.shape[0] + NGIVEN, np.int64)  # the answers of the step being played
    answers[:script.shape[0]] = script
    na = script.shape[0]  # the first step's are the queued ones, the later steps' none
    given[0] = 0
    played = 0
    again = False  # the step is played again from its start with an answer given here
    while buf[fl + FL_OVER] == 0:
        if not again:
            start[:] = buf
        again = False
        st[ST_MODE] = MODE_STEP | (MODE_CONTINUE if buf[fl + FL_STARTED] != 0 else 0) | snapshot
        g = (hand, hlen, pile, disc, lg, tmp, active, st, rng, log, res, obs, fcol, frank, fpts, cmask, pol, pp,
             answers[:na], ufn, R, RD)
        play_round_nb(n, dealer, first, order, ref(g))
        keep(g)  # the arrays live until the step is over (by_ref)
        if st[ST_ERR] == 3:
            v = single_answer_nb(obs) if auto != 0 and given[0] < NGIVEN else -2
            if v < -1:
                return STEPS_PAUSED_LATER if played > 0 else STEPS_PAUSED_FIRST
            k = given[0]
            given[1 + 3 * k] = st[ST_ERR_SEAT]
            given[2 + 3 * k] = st[ST_ERR_KIND]
            given[3 + 3 * k] = v
            given[0] = k + 1
            answers[na] = v
            na += 1
            buf[:] = start
            again = True
            continue
        buf[fl + FL_ANSWERED] += na
        na = 0
        given[0] = 0
        played += 1
        buf[fl + FL_STARTED] = 1
        buf[fl + FL_OVER] = 1 if res[RES_END] != END_STEP else 0
    return STEPS_ROUND_OVER


entry.unbind()


def __getattr__(name: str):
    return entry.get(name)
