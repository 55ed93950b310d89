/* diff_evo.c - differential evolution (DE/current-to-best/1/bin) in index
 * coordinates.
 *
 * Each member x of the population gets a trial: the mutant
 * x + F (best - x) + F (a - b), with a and b two other random members,
 * crossed with x parameter by parameter (each taken from the mutant with
 * probability CR, at least one always), then repaired to the nearest valid
 * configuration (kt_move_repair).  A trial replaces its member when it is
 * at least as fast.  F is drawn per generation in [F_LO, F_HI) (dither).
 * On the synthetic landscape of test_search this variant, F range and CR
 * did better than DE/best/1 and larger F.  The trials are what
 * gets measured; the population starts from the best half of twice its
 * size in random configurations (kt_pop_sample).
 */
#include "search/population.h"
#include "search/strategy.h"

#include <stdlib.h>
#include <string.h>

#define F_LO 0.3
#define F_HI 0.8
#define CR 0.9

typedef struct de_state {
    kt_history hist;      /* first: observe is kt_history_observe_state */
    kt_rng rng;
    kt_space *space;
    kt_pop pop, trial;    /* the population; its trials, being measured */
    double *mutant;       /* scratch: one point in index coordinates */
    bool seeded;
} de_state;

static void de_free(void *state)
{
    de_state *s = state;
    if (!s)
        return;
    kt_history_clear(&s->hist);
    kt_pop_clear(&s->pop);
    kt_pop_clear(&s->trial);
    free(s->mutant);
    free(s);
}

static int de_init(kt_space *space, const kt_strategy_opts *opts, void **state,
                   kt_diag *diag)
{
    (void)diag;
    de_state *s = calloc(1, sizeof *s);
    if (!s)
        return KT_ENOMEM;
    s->space = space;
    kt_rng_seed(&s->rng, opts->seed);
    size_t np = kt_space_nparams(space), size = kt_pop_size_for(opts->budget, 6, 20);
    int rc = kt_history_init(&s->hist, space, opts->objective);
    if (rc == KT_OK)
        rc = kt_pop_init(&s->pop, size, np);
    if (rc == KT_OK)
        rc = kt_pop_init(&s->trial, size, np);
    if (rc == KT_OK && !(s->mutant = malloc(np * sizeof *s->mutant)))
        rc = KT_ENOMEM;
    if (rc != KT_OK) {
        de_free(s);
        return rc;
    }
    *state = s;
    return KT_OK;
}

/* A random member other than those in avoid (n of them), when there is one. */
static size_t pick_other(de_state *s, const size_t *avoid, size_t n)
{
    size_t size = s->pop.size, i = kt_rng_below(&s->rng, size);
    for (size_t tries = 0; tries < size; tries++, i = (i + 1) % size) {
        bool clash = false;
        for (size_t k = 0; k < n; k++)
            clash |= avoid[k] == i;
        if (!clash)
            return i;
    }
    return i;
}

static void make_trial(de_state *s, size_t i, size_t best, double f)
{
    size_t np = s->pop.np, avoid[3] = {i, best, 0};
    avoid[2] = pick_other(s, avoid, 2);
    size_t r1 = avoid[2], r2 = pick_other(s, avoid, 3);
    const uint16_t *x = kt_pop_at(&s->pop, i), *b = kt_pop_at(&s->pop, best),
                   *a1 = kt_pop_at(&s->pop, r1), *a2 = kt_pop_at(&s->pop, r2);
    size_t jrand = kt_rng_below(&s->rng, np);
    for (size_t d = 0; d < np; d++)
        s->mutant[d] = d == jrand || kt_rng_unit(&s->rng) < CR
                           ? x[d] + f * ((double)b[d] - x[d]) +
                                 f * ((double)a1[d] - (double)a2[d])
                           : x[d];
    kt_move_repair(s->space, s->mutant, kt_pop_at(&s->trial, i));
}

static int de_advance(void *state)
{
    de_state *s = state;
    size_t bytes = s->pop.np * sizeof *s->pop.cfg;
    for (size_t i = 0; i < s->pop.size; i++)
        if (kt_pop_cost(&s->trial, &s->hist, i) <= kt_pop_cost(&s->pop, &s->hist, i))
            memcpy(kt_pop_at(&s->pop, i), kt_pop_at(&s->trial, i), bytes);
    size_t best = kt_pop_best(&s->pop, &s->hist);
    double f = F_LO + (F_HI - F_LO) * kt_rng_unit(&s->rng);
    for (size_t i = 0; i < s->pop.size; i++)
        make_trial(s, i, best, f);
    return KT_OK;
}

static int de_propose(void *state, uint16_t *out, size_t max, size_t *n)
{
    de_state *s = state;
    int rc;
    if (!s->seeded && kt_pop_sample(&s->trial, &s->hist, &s->rng, out, max, n, &rc))
        return rc;
    if (!s->seeded) {
        kt_pop_seed(&s->trial, &s->hist, &s->rng);
        memcpy(s->pop.cfg, s->trial.cfg, s->pop.size * s->pop.np * sizeof *s->pop.cfg);
        s->seeded = true;
    }
    return kt_pop_propose(&s->trial, &s->hist, &s->rng, de_advance, s, out, max, n);
}

const kt_strategy kt_strategy_diff_evo = {
    .abi = KT_STRATEGY_ABI,
    .name = "diff_evo",
    .summary = "differential evolution (current-to-best/1/bin), repaired to valid",
    .init = de_init,
    .propose = de_propose,
    .observe = kt_history_observe_state,
    .free = de_free,
};
