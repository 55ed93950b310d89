/* population.c - the members a population strategy measures, and its
 * propose loop (population.h). */
#include "search/population.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Rounds of only known configurations before immigrants are let in. */
#define STUCK_ROUNDS 8

int kt_pop_init(kt_pop *p, size_t size, size_t np)
{
    *p = (kt_pop){.size = size, .np = np};
    p->cfg = calloc(size * np + 1, sizeof *p->cfg);
    p->top = calloc(size + 1, sizeof *p->top);
    return p->cfg && p->top ? KT_OK : KT_ENOMEM;
}

void kt_pop_clear(kt_pop *p)
{
    free(p->cfg);
    free(p->top);
    *p = (kt_pop){0};
}

size_t kt_pop_size_for(uint64_t budget, size_t lo, size_t hi)
{
    uint64_t n = budget / 8;
    return n < lo ? lo : n > hi ? hi : (size_t)n;
}

uint16_t *kt_pop_at(const kt_pop *p, size_t i)
{
    return p->cfg + i * p->np;
}

bool kt_pop_sample(kt_pop *p, kt_history *h, kt_rng *rng, uint16_t *out, size_t max,
                   size_t *n, int *rc)
{
    kt_batch b = kt_batch_begin(h, out, max);
    kt_move_sample(&b, rng, 2 * p->size, p->cfg); /* p->cfg: scratch until kt_pop_seed */
    *rc = kt_batch_end(&b, n);
    return *n > 0 || *rc != KT_OK;
}

void kt_pop_seed(kt_pop *p, const kt_history *h, kt_rng *rng)
{
    size_t bytes = p->np * sizeof *p->cfg, half = (p->size + 1) / 2;
    size_t take = h->nknown / 2 > half ? h->nknown / 2 : half;
    size_t i = kt_history_top(h, take < p->size ? take : p->size, p->top);
    for (size_t k = 0; k < i; k++)
        memcpy(kt_pop_at(p, k), kt_space_at(h->space, p->top[k]), bytes);
    for (; i < p->size; i++)
        if (!kt_move_fresh(h, rng, kt_pop_at(p, i)))
            memcpy(kt_pop_at(p, i), i ? kt_pop_at(p, 0) : kt_space_at(h->space, 0),
                   bytes);
}

double kt_pop_cost(const kt_pop *p, const kt_history *h, size_t i)
{
    double c;
    return kt_history_cost_of(h, kt_pop_at(p, i), &c) ? c : INFINITY;
}

size_t kt_pop_best(const kt_pop *p, const kt_history *h)
{
    size_t best = 0;
    double bc = INFINITY;
    for (size_t i = 0; i < p->size; i++) {
        double c = kt_pop_cost(p, h, i);
        if (c < bc)
            bc = c, best = i;
    }
    return best;
}

/* Replace the worst member by an unseen configuration and propose it
 * (nothing when every configuration has been seen). */
static void immigrate(kt_pop *p, kt_batch *b, kt_rng *rng)
{
    size_t worst = 0;
    double wc = -INFINITY;
    for (size_t i = 0; i < p->size; i++) {
        double c = kt_pop_cost(p, b->h, i);
        if (c > wc)
            wc = c, worst = i;
    }
    if (kt_move_fresh(b->h, rng, kt_pop_at(p, worst)))
        kt_batch_add(b, kt_pop_at(p, worst));
}

int kt_pop_propose(kt_pop *p, kt_history *h, kt_rng *rng, kt_pop_advance advance,
                   void *state, uint16_t *out, size_t max, size_t *n)
{
    kt_batch b = kt_batch_begin(h, out, max);
    for (int round = 0; b.n == 0 && b.rc == KT_OK; round++) {
        if (!kt_batch_add_all(&b, p->cfg, p->size) || round == STUCK_ROUNDS)
            break;
        b.rc = advance(state);
    }
    if (b.n == 0 && b.rc == KT_OK && max > 0)
        immigrate(p, &b, rng);
    return kt_batch_end(&b, n);
}
