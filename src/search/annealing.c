/* annealing.c - simulated annealing over valid Hamming neighbours.
 *
 * Each step draws a random valid neighbour of the current configuration
 * and moves there when it is faster, or with probability exp(-d / T) when
 * it is slower by the relative amount d (time ratio minus one; a failed
 * configuration is never accepted).  The temperature T falls geometrically
 * from T_START to T_END as the run spends its budget (kt_strategy_opts),
 * so the walk explores early and climbs late.  A neighbour whose cost is
 * known is judged without a measurement; after STALL such steps in a row
 * (every neighbour known, none accepted) the walk restarts from an unseen
 * random configuration.  One configuration per batch: each step depends on
 * the last.
 */
#include "search/strategy.h"
#include "search/walk.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define T_START 0.1    /* a 10% slower neighbour: accepted 37% of the time */
#define T_END 0.001    /* a 1% slower one: 0.005% */
#define STALL 64       /* known-neighbour steps in a row before a restart */

typedef struct sa_state {
    kt_history hist;      /* first: observe is kt_history_observe_state */
    kt_rng rng;
    kt_walk walk;
    uint16_t *cand;       /* the proposed neighbour awaiting its cost */
    bool has_cand;
    unsigned idle;        /* steps without a proposal */
    double budget;        /* evaluations the schedule spans */
} sa_state;

static void sa_free(void *state)
{
    sa_state *s = state;
    if (!s)
        return;
    kt_history_clear(&s->hist);
    kt_walk_clear(&s->walk);
    free(s->cand);
    free(s);
}

static int sa_init(kt_space *space, const kt_strategy_opts *opts, void **state,
                   kt_diag *diag)
{
    (void)diag;
    sa_state *s = calloc(1, sizeof *s);
    if (!s)
        return KT_ENOMEM;
    kt_rng_seed(&s->rng, opts->seed);
    uint64_t size = kt_space_size(space);
    s->budget = (double)(opts->budget && opts->budget < size ? opts->budget : size);
    int rc = kt_history_init(&s->hist, space, opts->objective);
    if (rc == KT_OK)
        rc = kt_walk_init(&s->walk, space, &s->hist, &s->rng);
    s->walk.samples = kt_walk_samples(opts->budget);
    if (rc == KT_OK && !(s->cand = malloc(s->walk.np * sizeof *s->cand)))
        rc = KT_ENOMEM;
    if (rc != KT_OK) {
        sa_free(s);
        return rc;
    }
    *state = s;
    return KT_OK;
}

static double temperature(const sa_state *s)
{
    double progress = fmin(1, (double)s->hist.nknown / fmax(s->budget, 1));
    return T_START * pow(T_END / T_START, progress);
}

static bool accept(sa_state *s, double cur, double c)
{
    if (c < cur)
        return true;
    if (!isfinite(c))
        return false;
    return kt_rng_unit(&s->rng) < exp(-(c / cur - 1) / temperature(s));
}

/* Judge the neighbour nb of known cost c; b->rc carries a failure. */
static void judge(sa_state *s, kt_batch *b, double cur, const uint16_t *nb, double c)
{
    if (accept(s, cur, c))
        b->rc = kt_walk_move(&s->walk, nb);
}

/* One step: true when it proposed, ended the search (*done) or failed. */
static bool anneal_step(sa_state *s, kt_batch *b, bool *done)
{
    kt_walk *w = &s->walk;
    double cur, c;
    if (!w->active) {
        s->idle = 0;
        *done = !kt_walk_restart(w, b);
        return *done || b->n > 0 || b->rc != KT_OK;
    }
    if (!kt_walk_cost(w, &cur) || w->nnbrs == 0 || s->idle >= STALL) {
        w->active = false;
        return false;
    }
    const uint16_t *nb = w->nbrs + kt_rng_below(&s->rng, w->nnbrs) * w->np;
    if (kt_history_cost_of(&s->hist, nb, &c)) {
        s->idle++;
        judge(s, b, cur, nb, c);
        return b->rc != KT_OK;
    }
    s->idle = 0;
    memcpy(s->cand, nb, w->np * sizeof *nb);
    s->has_cand = kt_batch_add(b, nb);
    return true;
}

static int sa_propose(void *state, uint16_t *out, size_t max, size_t *n)
{
    sa_state *s = state;
    kt_batch b = kt_batch_begin(&s->hist, out, max);
    if (kt_walk_sample(&s->walk, &b))
        return kt_batch_end(&b, n);
    b.max = max < 1 ? max : 1;
    double cur, c;
    if (s->has_cand && kt_walk_cost(&s->walk, &cur) &&
        kt_history_cost_of(&s->hist, s->cand, &c))
        judge(s, &b, cur, s->cand, c);
    s->has_cand = false;
    bool done = false;
    while (!kt_batch_full(&b) && !done && !anneal_step(s, &b, &done)) {
    }
    return kt_batch_end(&b, n);
}

const kt_strategy kt_strategy_annealing = {
    .abi = KT_STRATEGY_ABI,
    .name = "annealing",
    .summary = "simulated annealing over neighbours, cooling with the budget",
    .init = sa_init,
    .propose = sa_propose,
    .observe = kt_history_observe_state,
    .free = sa_free,
};
