/* ref_official.c: a hand-written C reference for `make bench`.
 *
 * Plays ROUNDS independent rounds of official classic UNO (shared/docs/rules.md section 1, unosim's
 * defaults) for PLAYERS players who all follow unosim's `random` policy, the same work as one row of
 * `unosim.simulate(rules="official", policies="random", threads=1)`, and prints one JSON line:
 * rounds per second plus the statistics (mean turns per round, seat win rates, winner points) that
 * tests/test_cref.py compares with unosim's to show that both play the same game.
 *
 * Rules, as unosim's official defaults:
 *   - 108-card deck, 7 cards each; the seat on the dealer's left (seat 0; the dealer is seat n-1)
 *     plays first.
 *   - Starting card (docs/rules.md 1.5): a Wild Draw Four is put back at a uniformly random place in the
 *     pile and another card turned; a Wild: the first player names the colour and plays; a Skip: the
 *     first player is skipped; a Reverse: the dealer plays first and play goes the other way (with
 *     two players it acts as a Skip); a Draw Two: the first player draws 2 and is skipped.
 *   - A card is legal on the same colour or the same symbol; a Wild always; a Wild Draw Four only
 *     without a card of the current colour.  Challenges are on in the rules, but `random` never
 *     challenges (and never bluffs), so none happens.
 *   - Skip, Reverse (a Skip with two players), Draw Two and Wild Draw Four (draw and lose the turn).
 *   - No legal card: draw one and play it if it is legal.  An empty pile is refilled by shuffling
 *     the discard minus its top card; with nothing left to draw the player passes.
 *   - A Draw Two / Wild Draw Four laid as the last card still makes the next player draw.
 *   - The winner scores the cards left in the other hands (numbers face value, actions 20, wilds
 *     50).  A round is stopped after 10,000 turns (recorded as capped, no winner).
 *   - A turn is a play or a draw; taking a penalty or being skipped is not a turn (unosim's count).
 * `random`: uniform over the legal card instances in the hand; never draws while holding a legal
 * card; plays a drawn card when it is legal; names a wild colour uniformly among the four.
 *
 * Random numbers: splitmix64, one stream per round seeded from (seed, round index) the way unosim
 * seeds its rounds, one number per shuffled card and per random choice, as unosim draws them.  The
 * streams are not consumed in the same order as unosim's, so single rounds differ, but every statistic
 * has the same distribution.
 *
 * It is written to be as fast as this game allows, since it is the yardstick (issue 27): a hand is
 * not a list of cards to scan but four 64-bit masks of card kinds (the kinds held at least once,
 * twice, three and four times).  The legal cards of a turn are one mask; their number is four
 * popcounts; `random`'s pick is the k-th set bit (one PDEP where the CPU has BMI2).  The first version
 * kept each hand as an array and scanned it; this one runs the same rounds in about half the time.
 *
 * Build and run:  cc -O2 -march=native -o ref_official ref_official.c && ./ref_official PLAYERS ROUNDS [SEED]
 */
#define _POSIX_C_SOURCE 199309L /* clock_gettime */
#include <inttypes.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#ifdef __BMI2__
#include <immintrin.h> /* _pdep_u64 */
#endif

enum { NCOLORS = 4, BLACK = 4 };
enum { SKIP = 10, REVERSE = 11, DRAW2 = 12, WILD = 13, WD4 = 14 };
enum { NCARDS = 108, HAND_SIZE = 7, TURN_CAP = 10000, MAX_PLAYERS = 10 };

/* A card is its kind, a bit of a 64-bit hand mask: colour * 16 + rank for a coloured card (ranks 0-12),
 * 13 for the Wild and 14 for the Wild Draw Four (bits no coloured card uses). */
#define KIND(col, rank) ((uint8_t)((col) * 16 + (rank)))
enum { K_WILD = WILD, K_WD4 = WD4 };
#define BIT(k) (1ULL << (k))
#define COLOR_MASK(col) (0x1FFFULL << (16 * (col)))      /* the 13 kinds of a colour */
#define RANK_MASK(rank) (0x0001000100010001ULL << (rank)) /* a coloured rank in the four colours */

static uint8_t deck[NCARDS];
static uint8_t color_of[64]; /* BLACK for the two wilds */
static uint8_t points_of[64];

static void build_deck(void)
{
    int k = 0;
    for (int col = 0; col < NCOLORS; col++) {
        deck[k++] = KIND(col, 0);
        for (int rank = 1; rank <= DRAW2; rank++) {
            deck[k++] = KIND(col, rank);
            deck[k++] = KIND(col, rank);
        }
    }
    for (int i = 0; i < 4; i++) {
        deck[k++] = K_WILD;
        deck[k++] = K_WD4;
    }
    for (int b = 0; b < 64; b++) {
        int rank = b & 15;
        color_of[b] = (uint8_t)(b == K_WILD || b == K_WD4 ? BLACK : b >> 4);
        points_of[b] = (uint8_t)(rank <= 9 ? rank : (rank <= DRAW2 ? 20 : 50));
    }
}

/* ---- splitmix64 ---------------------------------------------------------------------------- */
#define GOLDEN 0x9E3779B97F4A7C15ULL

static inline uint64_t mix64(uint64_t z)
{
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    return z ^ (z >> 31);
}

/* uniform in [0, n): multiply-shift on the high 32 bits, as unosim's randint_nb */
static inline int randint(uint64_t *s, int n)
{
    *s += GOLDEN;
    return (int)(((mix64(*s) >> 32) * (uint64_t)n) >> 32);
}

static inline void shuffle(uint8_t *a, int m, uint64_t *s)
{
    uint64_t z = *s; /* the state in a register for the loop */
    for (int i = m - 1; i > 0; i--) {
        z += GOLDEN;
        int j = (int)(((mix64(z) >> 32) * (uint64_t)(i + 1)) >> 32);
        uint8_t t = a[i];
        a[i] = a[j];
        a[j] = t;
    }
    *s = z;
}

/* ---- a hand: the kinds held at least once, twice, three and four times ------------------------ */
typedef struct {
    uint64_t at_least[4]; /* at_least[j]: the kinds held j + 1 times or more (each within the one before) */
    int n;                /* cards held */
} Hand;

static inline void hand_add(Hand *h, int k)
{
    uint64_t b = BIT(k);
    h->at_least[3] |= h->at_least[2] & b;
    h->at_least[2] |= h->at_least[1] & b;
    h->at_least[1] |= h->at_least[0] & b;
    h->at_least[0] |= b;
    h->n++;
}

static inline void hand_remove(Hand *h, int k)
{
    uint64_t b = BIT(k), keep = ~b;
    h->at_least[0] = (h->at_least[0] & keep) | (h->at_least[1] & b);
    h->at_least[1] = (h->at_least[1] & keep) | (h->at_least[2] & b);
    h->at_least[2] = (h->at_least[2] & keep) | (h->at_least[3] & b);
    h->at_least[3] &= keep;
    h->n--;
}

/* the k-th set bit of m (k from 0) */
static inline int select_bit(uint64_t m, int k)
{
#ifdef __BMI2__
    return __builtin_ctzll(_pdep_u64(BIT(k), m));
#else
    while (k--)
        m &= m - 1;
    return __builtin_ctzll(m);
#endif
}

/* `random`'s card: one of the legal card instances (the kinds of mask `legal`, each as often as it is
   held), uniformly; -1 when none is legal */
static inline int random_card(const Hand *h, uint64_t legal, uint64_t *rng)
{
    int c0 = __builtin_popcountll(h->at_least[0] & legal);
    if (c0 == 0)
        return -1;
    int c1 = __builtin_popcountll(h->at_least[1] & legal);
    int c2 = __builtin_popcountll(h->at_least[2] & legal);
    int c3 = __builtin_popcountll(h->at_least[3] & legal);
    int k = randint(rng, c0 + c1 + c2 + c3);
    if (k < c0)
        return select_bit(h->at_least[0] & legal, k);
    k -= c0;
    if (k < c1)
        return select_bit(h->at_least[1] & legal, k);
    k -= c1;
    if (k < c2)
        return select_bit(h->at_least[2] & legal, k);
    return select_bit(h->at_least[3] & legal, k - c2);
}

static int hand_points(const Hand *h)
{
    int pts = 0;
    for (int j = 0; j < 4; j++)
        for (uint64_t m = h->at_least[j]; m; m &= m - 1)
            pts += points_of[__builtin_ctzll(m)];
    return pts;
}

/* ---- one round ----------------------------------------------------------------------------- */
typedef struct {
    int n;
    Hand hand[MAX_PLAYERS];
    uint8_t pile[NCARDS]; /* top at the end */
    int npile;
    uint8_t disc[NCARDS]; /* top at the end */
    int ndisc;
    uint64_t rng;
} Game;

typedef struct {
    int winner; /* -1: capped */
    int turns;
    int points;
} Result;

/* Top card of the pile (refilled from the discard when empty), or -1 when nothing is left. */
static int draw_card(Game *g)
{
    if (g->npile == 0) {
        if (g->ndisc <= 1)
            return -1;
        int m = g->ndisc - 1;
        for (int i = 0; i < m; i++)
            g->pile[i] = g->disc[i];
        shuffle(g->pile, m, &g->rng);
        g->disc[0] = g->disc[m];
        g->ndisc = 1;
        g->npile = m;
    }
    return g->pile[--g->npile];
}

static void draw_cards(Game *g, int p, int k)
{
    for (int i = 0; i < k; i++) {
        int c = draw_card(g);
        if (c < 0)
            return;
        hand_add(&g->hand[p], c);
    }
}

static inline int next_seat(int p, int d, int n)
{
    p += d;
    return p == n ? 0 : (p < 0 ? n - 1 : p);
}

static Result play_round(Game *g)
{
    const int n = g->n;
    Result res = {-1, 0, 0};

    for (int i = 0; i < NCARDS; i++)
        g->pile[i] = deck[i];
    shuffle(g->pile, NCARDS, &g->rng);
    int top = NCARDS - 1;
    for (int s = 0; s < n; s++) {
        Hand *h = &g->hand[s];
        h->at_least[0] = h->at_least[1] = h->at_least[2] = h->at_least[3] = 0;
        h->n = 0;
        for (int k = 0; k < HAND_SIZE; k++)
            hand_add(h, g->pile[top--]);
    }
    g->npile = top + 1;

    /* starting card: a Wild Draw Four goes back to a random place in the pile */
    int c;
    for (;;) {
        int k = g->npile - 1;
        c = g->pile[k];
        if (c != K_WD4 || k == 0) {
            g->npile = k;
            break;
        }
        int pos = randint(&g->rng, k + 1);
        for (int i = k; i > pos; i--)
            g->pile[i] = g->pile[i - 1];
        g->pile[pos] = (uint8_t)c;
    }
    g->disc[0] = (uint8_t)c;
    g->ndisc = 1;

    const int dealer = n - 1;
    int p = 0, d = 1;
    int cur = color_of[c];
    int top_rank = c & 15;
    int pend_skip = 0; /* the player to move is skipped ... */
    int pend_draw = 0; /* ... after drawing this many cards */
    switch (top_rank) {
    case SKIP:
        pend_skip = 1;
        break;
    case REVERSE:
        if (n == 2) {
            pend_skip = 1;
        } else {
            d = -1;
            p = dealer;
        }
        break;
    case DRAW2:
        pend_skip = 1;
        pend_draw = 2;
        break;
    case WILD:
        cur = randint(&g->rng, NCOLORS);
        break;
    }

    for (;;) {
        if (res.turns >= TURN_CAP)
            return res;
        if (pend_skip) {
            draw_cards(g, p, pend_draw);
            pend_skip = pend_draw = 0;
            p = next_seat(p, d, n);
            continue;
        }
        res.turns++;

        /* the legal kinds: the current colour, the top card's symbol (a coloured one), a Wild, and a Wild
           Draw Four without a card of the current colour */
        Hand *h = &g->hand[p];
        uint64_t legal = COLOR_MASK(cur) | BIT(K_WILD);
        if (top_rank <= DRAW2)
            legal |= RANK_MASK(top_rank);
        if ((h->at_least[0] & COLOR_MASK(cur)) == 0)
            legal |= BIT(K_WD4);
        c = random_card(h, legal, &g->rng);
        if (c < 0) {
            /* no legal card: draw one and play it if it is legal (black, of the current colour or of the
               top card's symbol; a Wild Draw Four, as the hand holds no card of the current colour) */
            c = draw_card(g);
            if (c < 0) {
                p = next_seat(p, d, n);
                continue;
            }
            hand_add(h, c);
            if (!(BIT(c) & legal)) {
                p = next_seat(p, d, n);
                continue;
            }
        }

        /* play c */
        hand_remove(h, c);
        g->disc[g->ndisc++] = (uint8_t)c;
        top_rank = c & 15;
        cur = color_of[c] == BLACK ? randint(&g->rng, NCOLORS) : color_of[c];
        if (h->n == 0) {
            res.winner = p;
            if (top_rank == DRAW2 || top_rank == WD4)
                draw_cards(g, next_seat(p, d, n), top_rank == DRAW2 ? 2 : 4);
            break;
        }
        switch (top_rank) {
        case SKIP:
            pend_skip = 1;
            break;
        case REVERSE:
            if (n == 2)
                pend_skip = 1;
            else
                d = -d;
            break;
        case DRAW2:
            pend_skip = 1;
            pend_draw = 2;
            break;
        case WD4:
            pend_skip = 1;
            pend_draw = 4;
            break;
        }
        p = next_seat(p, d, n);
    }

    for (int s = 0; s < n; s++)
        if (s != res.winner)
            res.points += hand_points(&g->hand[s]);
    return res;
}

/* ---- many rounds ---------------------------------------------------------------------------- */
static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

int main(int argc, char **argv)
{
    if (argc < 3 || argc > 4) {
        fprintf(stderr, "usage: %s PLAYERS ROUNDS [SEED]\n", argv[0]);
        return 2;
    }
    int n = atoi(argv[1]);
    long rounds = atol(argv[2]);
    uint64_t seed = argc > 3 ? strtoull(argv[3], NULL, 10) : 0;
    if (n < 2 || n > MAX_PLAYERS || rounds < 1) {
        fprintf(stderr, "players must be 2..%d and rounds at least 1\n", MAX_PLAYERS);
        return 2;
    }
    build_deck();
    static Game g;
    g.n = n;
    long wins[MAX_PLAYERS] = {0};
    long capped = 0;
    double sum_turns = 0, sum_turns2 = 0, sum_points = 0, sum_points2 = 0;

    double t0 = now();
    for (long r = 0; r < rounds; r++) {
        g.rng = mix64(seed ^ mix64((uint64_t)r + GOLDEN));
        Result res = play_round(&g);
        if (res.winner >= 0)
            wins[res.winner]++;
        else
            capped++;
        sum_turns += res.turns;
        sum_turns2 += (double)res.turns * res.turns;
        sum_points += res.points;
        sum_points2 += (double)res.points * res.points;
    }
    double secs = now() - t0;

    double m = sum_turns / rounds, mp = sum_points / rounds;
    double sd = rounds > 1 ? sqrt((sum_turns2 - rounds * m * m) / (rounds - 1)) : 0.0;
    double sdp = rounds > 1 ? sqrt((sum_points2 - rounds * mp * mp) / (rounds - 1)) : 0.0;
    printf("{\"players\": %d, \"rounds\": %ld, \"seed\": %" PRIu64 ", \"seconds\": %.6f, "
           "\"rounds_per_s\": %.1f, \"mean_turns\": %.6f, \"sd_turns\": %.6f, "
           "\"mean_winner_points\": %.6f, \"sd_winner_points\": %.6f, \"capped\": %ld, \"wins\": [",
           n, rounds, seed, secs, rounds / secs, m, sd, mp, sdp, capped);
    for (int s = 0; s < n; s++)
        printf(s ? ", %ld" : "%ld", wins[s]);
    printf("]}\n");
    return 0;
}
