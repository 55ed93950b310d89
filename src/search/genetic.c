/* genetic.c - a generational genetic algorithm.
 *
 * The population (sized to the budget: kt_pop_size_for) starts from the
 * best half of twice its size in random configurations (kt_pop_sample).  Each generation
 * keeps the best member (elitism) and breeds the rest: two parents chosen
 * by tournament (the faster of TOURNAMENT random members), uniform
 * crossover, then each parameter mutated with probability 1/parameters
 * (half the time to a neighbouring value, half to any value).  A child
 * that breaks a condition is repaired to the nearest valid configuration
 * (kt_move_repair_cfg), so every member is valid.  Children already
 * measured cost nothing; a population that only breeds known ones takes in
 * immigrants (population.h).
 */
#include "search/population.h"
#include "search/strategy.h"

#include <stdlib.h>
#include <string.h>

#define TOURNAMENT 3

typedef struct ga_state {
    kt_history hist;      /* first: observe is kt_history_observe_state */
    kt_rng rng;
    kt_space *space;
    kt_pop pop, next;     /* this generation; the one being bred */
    bool seeded;
} ga_state;

static void ga_free(void *state)
{
    ga_state *s = state;
    if (!s)
        return;
    kt_history_clear(&s->hist);
    kt_pop_clear(&s->pop);
    kt_pop_clear(&s->next);
    free(s);
}

static int ga_init(kt_space *space, const kt_strategy_opts *opts, void **state,
                   kt_diag *diag)
{
    (void)diag;
    ga_state *s = calloc(1, sizeof *s);
    if (!s)
        return KT_ENOMEM;
    s->space = space;
    kt_rng_seed(&s->rng, opts->seed);
    size_t np = kt_space_nparams(space), size = kt_pop_size_for(opts->budget, 6, 24);
    int rc = kt_history_init(&s->hist, space, opts->objective);
    if (rc == KT_OK)
        rc = kt_pop_init(&s->pop, size, np);
    if (rc == KT_OK)
        rc = kt_pop_init(&s->next, size, np);
    if (rc != KT_OK) {
        ga_free(s);
        return rc;
    }
    *state = s;
    return KT_OK;
}

static const uint16_t *tournament(ga_state *s)
{
    size_t best = kt_rng_below(&s->rng, s->pop.size);
    for (int k = 1; k < TOURNAMENT; k++) {
        size_t i = kt_rng_below(&s->rng, s->pop.size);
        if (kt_pop_cost(&s->pop, &s->hist, i) < kt_pop_cost(&s->pop, &s->hist, best))
            best = i;
    }
    return kt_pop_at(&s->pop, best);
}

static void mutate(ga_state *s, uint16_t *child)
{
    const kt_spec *spec = kt_space_spec(s->space);
    size_t np = s->pop.np;
    for (size_t d = 0; d < np; d++) {
        uint64_t nv = spec->params[d].nvalues;
        if (nv < 2 || kt_rng_below(&s->rng, np) != 0)
            continue;
        if (kt_rng_below(&s->rng, 2))
            child[d] = (uint16_t)kt_rng_below(&s->rng, nv);
        else if (child[d] == 0 || (child[d] + 1u < nv && kt_rng_below(&s->rng, 2)))
            child[d]++;
        else
            child[d]--;
    }
}

static int ga_advance(void *state)
{
    ga_state *s = state;
    size_t np = s->pop.np;
    uint16_t *child = kt_pop_at(&s->next, 0);
    memcpy(child, kt_pop_at(&s->pop, kt_pop_best(&s->pop, &s->hist)), np * sizeof *child);
    for (size_t i = 1; i < s->pop.size; i++) {
        const uint16_t *a = tournament(s), *b = tournament(s);
        child = kt_pop_at(&s->next, i);
        for (size_t d = 0; d < np; d++)
            child[d] = kt_rng_below(&s->rng, 2) ? a[d] : b[d];
        mutate(s, child);
        kt_move_repair_cfg(s->space, child, child);
    }
    kt_pop tmp = s->pop;
    s->pop = s->next;
    s->next = tmp;
    return KT_OK;
}

static int ga_propose(void *state, uint16_t *out, size_t max, size_t *n)
{
    ga_state *s = state;
    int rc;
    if (!s->seeded && kt_pop_sample(&s->pop, &s->hist, &s->rng, out, max, n, &rc))
        return rc;
    if (!s->seeded) {
        kt_pop_seed(&s->pop, &s->hist, &s->rng);
        s->seeded = true;
    }
    return kt_pop_propose(&s->pop, &s->hist, &s->rng, ga_advance, s, out, max, n);
}

const kt_strategy kt_strategy_genetic = {
    .abi = KT_STRATEGY_ABI,
    .name = "genetic",
    .summary = "genetic algorithm: tournaments, uniform crossover, mutation, elitism",
    .init = ga_init,
    .propose = ga_propose,
    .observe = kt_history_observe_state,
    .free = ga_free,
};
