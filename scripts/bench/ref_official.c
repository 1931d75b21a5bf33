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
 * seeds its rounds.  The streams are not consumed in the same order as unosim's, so single rounds
 * differ, but every statistic has the same distribution.
 *
 * Build and run:  cc -O2 -o ref_official ref_official.c && ./ref_official PLAYERS ROUNDS [SEED]
 */
#define _POSIX_C_SOURCE 199309L /* clock_gettime */
#include <inttypes.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

enum { NCOLORS = 4, BLACK = 4 };
enum { SKIP = 10, REVERSE = 11, DRAW2 = 12, WILD = 13, WD4 = 14 };
enum { NCARDS = 108, HAND_SIZE = 7, TURN_CAP = 10000, MAX_PLAYERS = 10 };

/* A card is one byte: colour in the high nibble, rank in the low one. */
#define CARD(col, rank) ((uint8_t)((col) << 4 | (rank)))
#define COLOR(c) ((c) >> 4)
#define RANK(c) ((c) & 15)

static uint8_t deck[NCARDS];

static void build_deck(void)
{
    int k = 0;
    for (int col = 0; col < NCOLORS; col++) {
        deck[k++] = CARD(col, 0);
        for (int rank = 1; rank <= DRAW2; rank++) {
            deck[k++] = CARD(col, rank);
            deck[k++] = CARD(col, rank);
        }
    }
    for (int i = 0; i < 4; i++) {
        deck[k++] = CARD(BLACK, WILD);
        deck[k++] = CARD(BLACK, WD4);
    }
}

static int points(uint8_t c)
{
    int r = RANK(c);
    return r <= 9 ? r : (r <= DRAW2 ? 20 : 50);
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
    for (int i = m - 1; i > 0; i--) {
        int j = randint(s, i + 1);
        uint8_t t = a[i];
        a[i] = a[j];
        a[j] = t;
    }
}

/* ---- one round ----------------------------------------------------------------------------- */
typedef struct {
    int n;
    uint8_t hand[MAX_PLAYERS][NCARDS];
    int hlen[MAX_PLAYERS];
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
        g->hand[p][g->hlen[p]++] = (uint8_t)c;
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
        for (int k = 0; k < HAND_SIZE; k++)
            g->hand[s][k] = g->pile[top--];
        g->hlen[s] = HAND_SIZE;
    }
    g->npile = top + 1;

    /* starting card: a Wild Draw Four goes back to a random place in the pile */
    uint8_t c;
    for (;;) {
        int k = g->npile - 1;
        c = g->pile[k];
        if (RANK(c) != WD4 || k == 0) {
            g->npile = k;
            break;
        }
        int pos = randint(&g->rng, k + 1);
        for (int i = k; i > pos; i--)
            g->pile[i] = g->pile[i - 1];
        g->pile[pos] = c;
    }
    g->disc[0] = c;
    g->ndisc = 1;

    const int dealer = n - 1;
    int p = 0, d = 1;
    int cur = COLOR(c);
    int pend_skip = 0; /* the player to move is skipped ... */
    int pend_draw = 0; /* ... after drawing this many cards */
    switch (RANK(c)) {
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

    uint8_t legal[NCARDS];
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

        const int top_rank = RANK(g->disc[g->ndisc - 1]);
        uint8_t *h = g->hand[p];
        const int hl = g->hlen[p];
        int nlegal = 0, nwd4 = 0, has_cur = 0;
        for (int i = 0; i < hl; i++) {
            int col = COLOR(h[i]), rank = RANK(h[i]);
            if (col == BLACK) {
                if (rank == WD4) {
                    nwd4++;
                } else {
                    legal[nlegal++] = (uint8_t)i;
                }
            } else if (col == cur) {
                legal[nlegal++] = (uint8_t)i;
                has_cur = 1;
            } else if (rank == top_rank) {
                legal[nlegal++] = (uint8_t)i;
            }
        }
        if (nwd4 > 0 && !has_cur) {
            for (int i = 0; i < hl; i++)
                if (RANK(h[i]) == WD4)
                    legal[nlegal++] = (uint8_t)i;
        }

        int i;
        if (nlegal > 0) {
            i = legal[randint(&g->rng, nlegal)];
        } else {
            /* no legal card, hence no card of the current colour: the drawn card is legal when it
               is black (a Wild Draw Four too), of the current colour or of the top card's symbol */
            int dc = draw_card(g);
            if (dc < 0) {
                p = next_seat(p, d, n);
                continue;
            }
            h[g->hlen[p]++] = (uint8_t)dc;
            if (!(COLOR(dc) == BLACK || COLOR(dc) == cur || RANK(dc) == top_rank)) {
                p = next_seat(p, d, n);
                continue;
            }
            i = g->hlen[p] - 1;
        }

        /* play h[i] */
        c = h[i];
        h[i] = h[--g->hlen[p]];
        g->disc[g->ndisc++] = c;
        const int rank = RANK(c);
        cur = COLOR(c) == BLACK ? randint(&g->rng, NCOLORS) : COLOR(c);
        if (g->hlen[p] == 0) {
            res.winner = p;
            if (rank == DRAW2 || rank == WD4)
                draw_cards(g, next_seat(p, d, n), rank == DRAW2 ? 2 : 4);
            break;
        }
        switch (rank) {
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
            for (int k = 0; k < g->hlen[s]; k++)
                res.points += points(g->hand[s][k]);
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
