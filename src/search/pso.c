/* pso.c - particle swarm optimisation in index coordinates.
 *
 * Each particle has a position and a velocity, one real number per
 * parameter (the position among that parameter's values).  Each round every
 * particle measures the valid configuration nearest to its position
 * (kt_move_repair) and snaps to it; then its velocity becomes
 *   W v + C1 r1 (personal best - x) + C2 r2 (swarm best - x)
 * (r1, r2 uniform in [0, 1) per parameter), limited to half a parameter's
 * range, and it moves.  The swarm starts, with random velocities, from the
 * best half of twice its size in random configurations (kt_pop_sample).
 */
#include "search/population.h"
#include "search/strategy.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define W 0.5
#define C1 1.5
#define C2 1.5

typedef struct pso_state {
    kt_history hist;      /* first: observe is kt_history_observe_state */
    kt_rng rng;
    kt_space *space;
    kt_pop at;            /* the configuration each particle measures */
    kt_pop pbest;         /* each particle's best configuration */
    double *pcost;        /* its cost */
    double *x, *v;        /* positions, velocities: size * np */
    bool seeded;
} pso_state;

static void pso_free(void *state)
{
    pso_state *s = state;
    if (!s)
        return;
    kt_history_clear(&s->hist);
    kt_pop_clear(&s->at);
    kt_pop_clear(&s->pbest);
    free(s->pcost);
    free(s->x);
    free(s->v);
    free(s);
}

static int pso_init(kt_space *space, const kt_strategy_opts *opts, void **state,
                    kt_diag *diag)
{
    (void)diag;
    pso_state *s = calloc(1, sizeof *s);
    if (!s)
        return KT_ENOMEM;
    s->space = space;
    kt_rng_seed(&s->rng, opts->seed);
    size_t np = kt_space_nparams(space), size = kt_pop_size_for(opts->budget, 5, 16);
    int rc = kt_history_init(&s->hist, space, opts->objective);
    if (rc == KT_OK)
        rc = kt_pop_init(&s->at, size, np);
    if (rc == KT_OK)
        rc = kt_pop_init(&s->pbest, size, np);
    if (rc == KT_OK && (!(s->pcost = malloc(size * sizeof *s->pcost)) ||
                        !(s->x = malloc(size * np * sizeof *s->x)) ||
                        !(s->v = malloc(size * np * sizeof *s->v))))
        rc = KT_ENOMEM;
    if (rc != KT_OK) {
        pso_free(s);
        return rc;
    }
    *state = s;
    return KT_OK;
}

static void seed_swarm(pso_state *s)
{
    kt_pop_seed(&s->at, &s->hist, &s->rng);
    size_t np = s->at.np;
    for (size_t i = 0; i < s->at.size; i++) {
        s->pcost[i] = INFINITY;
        for (size_t d = 0; d < np; d++) {
            double top = kt_move_top(s->space, d);
            s->x[i * np + d] = kt_pop_at(&s->at, i)[d];
            s->v[i * np + d] = (2 * kt_rng_unit(&s->rng) - 1) * top / 4;
        }
    }
}

/* Particle i moves once; g is the swarm's best particle. */
static void fly(pso_state *s, size_t i, size_t g)
{
    size_t np = s->at.np;
    double *x = s->x + i * np, *v = s->v + i * np;
    const uint16_t *p = kt_pop_at(&s->pbest, i), *b = kt_pop_at(&s->pbest, g);
    for (size_t d = 0; d < np; d++) {
        double top = kt_move_top(s->space, d), lim = fmax(top / 2, 1);
        v[d] = W * v[d] + C1 * kt_rng_unit(&s->rng) * (p[d] - x[d]) +
               C2 * kt_rng_unit(&s->rng) * (b[d] - x[d]);
        v[d] = fmin(fmax(v[d], -lim), lim);
        x[d] = fmin(fmax(x[d] + v[d], 0), top);
    }
    kt_move_repair(s->space, x, kt_pop_at(&s->at, i));
}

static int pso_advance(void *state)
{
    pso_state *s = state;
    size_t np = s->at.np, g = 0;
    for (size_t i = 0; i < s->at.size; i++) {
        double c = kt_pop_cost(&s->at, &s->hist, i);
        kt_move_coords(kt_pop_at(&s->at, i), np, s->x + i * np);
        if (c < s->pcost[i] || isinf(s->pcost[i])) {
            s->pcost[i] = c;
            memcpy(kt_pop_at(&s->pbest, i), kt_pop_at(&s->at, i), np * sizeof(uint16_t));
        }
        if (s->pcost[i] < s->pcost[g])
            g = i;
    }
    for (size_t i = 0; i < s->at.size; i++)
        fly(s, i, g);
    return KT_OK;
}

static int pso_propose(void *state, uint16_t *out, size_t max, size_t *n)
{
    pso_state *s = state;
    int rc;
    if (!s->seeded && kt_pop_sample(&s->at, &s->hist, &s->rng, out, max, n, &rc))
        return rc;
    if (!s->seeded) {
        seed_swarm(s);
        s->seeded = true;
    }
    return kt_pop_propose(&s->at, &s->hist, &s->rng, pso_advance, s, out, max, n);
}

const kt_strategy kt_strategy_pso = {
    .abi = KT_STRATEGY_ABI,
    .name = "pso",
    .summary = "particle swarm in index coordinates, repaired to valid",
    .init = pso_init,
    .propose = pso_propose,
    .observe = kt_history_observe_state,
    .free = pso_free,
};
