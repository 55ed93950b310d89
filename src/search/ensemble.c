/* ensemble.c - a multi-armed bandit over the other search strategies, as
 * OpenTuner's AUC bandit meta-technique allocates measurements.
 *
 * Every arm is a whole strategy with its own state, and every observation
 * goes to every arm, so each knows all results and never proposes what
 * another has measured.  Each propose call asks one arm for its batch.
 * Each measured proposal is a use of its arm; it is a success when it beat
 * the best time seen so far.  Over the last WINDOW uses, an arm scores
 *   AUC (its successes weighted by recency: the k-th oldest of its n uses
 *   counts k / (n (n + 1) / 2)) + EXPLORE * sqrt(2 ln uses / its uses),
 * and the highest score is asked next (an arm not yet used first, in table
 * order; ties broken at random).  An arm that has nothing more to propose
 * leaves the ensemble.
 */
#include "core/util.h"
#include "search/history.h"
#include "search/strategy.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define WINDOW 64
#define EXPLORE 0.1

/* The arms, by registry name; names not registered are skipped. */
static const char *const ARMS[] = {
    "local_search", "annealing", "genetic", "diff_evo", "pso", "model_guided",
};

enum { MAX_ARMS = KT_ARRAY_LEN(ARMS) };

typedef struct arm {
    const kt_strategy *st;
    void *state;
    bool done;            /* it proposed nothing: out of the ensemble */
} arm;

typedef struct ens_state {
    kt_space *space;
    kt_rng rng;
    arm arms[MAX_ARMS];
    size_t narms;
    uint8_t window[WINDOW];  /* the arm of each recent use, oldest first ... */
    bool success[WINDOW];    /* ... and whether it beat the best */
    size_t nwindow;
    uint64_t *batch;         /* built indices of the last batch, awaiting results */
    size_t nbatch, batch_cap;
    size_t last;             /* the arm that proposed the last batch */
    kt_objective objective;  /* the cost of a result */
    double best;             /* least cost observed */
} ens_state;

static void ens_free(void *state)
{
    ens_state *s = state;
    if (!s)
        return;
    for (size_t i = 0; i < s->narms; i++)
        if (s->arms[i].state)
            s->arms[i].st->free(s->arms[i].state);
    free(s->batch);
    free(s);
}

static int ens_init(kt_space *space, const kt_strategy_opts *opts, void **state,
                    kt_diag *diag)
{
    ens_state *s = calloc(1, sizeof *s);
    if (!s)
        return KT_ENOMEM;
    s->space = space;
    s->best = INFINITY;
    s->objective = opts->objective;
    kt_rng_seed(&s->rng, opts->seed);
    int rc = KT_OK;
    for (size_t i = 0; i < MAX_ARMS && rc == KT_OK; i++) {
        const kt_strategy *st = kt_strategy_find(ARMS[i]);
        if (!st)
            continue;
        kt_strategy_opts o = *opts;
        o.seed = kt_rng_next(&s->rng);
        arm *a = &s->arms[s->narms++];
        a->st = st;
        rc = st->init(space, &o, &a->state, diag);
    }
    if (rc != KT_OK) {
        ens_free(s);
        return rc;
    }
    *state = s;
    return KT_OK;
}

/* ---------------------------------------------------------------- bandit */

static double score(const ens_state *s, size_t a)
{
    double n = 0, auc = 0;
    for (size_t k = 0; k < s->nwindow; k++)
        if (s->window[k] == a) {
            n++;
            auc += s->success[k] ? n : 0;
        }
    if (n == 0)
        return INFINITY;
    return auc / (n * (n + 1) / 2) +
           EXPLORE * sqrt(2 * log((double)s->nwindow) / n);
}

/* The live arm to ask next; narms when none is left. */
static size_t choose(ens_state *s)
{
    size_t pick = s->narms, ties = 0;
    double top = -INFINITY;
    for (size_t a = 0; a < s->narms; a++) {
        if (s->arms[a].done)
            continue;
        double v = score(s, a);
        if (isinf(v) && v > 0)
            return a;
        if (v > top) {
            top = v, pick = a, ties = 1;
        } else if (v == top && kt_rng_below(&s->rng, ++ties) == 0) {
            pick = a;
        }
    }
    return pick;
}

static void add_use(ens_state *s, size_t a, bool success)
{
    if (s->nwindow == WINDOW) {
        memmove(s->window, s->window + 1, WINDOW - 1);
        memmove(s->success, s->success + 1, (WINDOW - 1) * sizeof *s->success);
        s->nwindow--;
    }
    s->window[s->nwindow] = (uint8_t)a;
    s->success[s->nwindow++] = success;
}

/* ------------------------------------------------------------- interface */

static int remember_batch(ens_state *s, const uint16_t *out, size_t n)
{
    if (n > s->batch_cap) {
        uint64_t *b = realloc(s->batch, n * sizeof *b);
        if (!b)
            return KT_ENOMEM;
        s->batch = b;
        s->batch_cap = n;
    }
    size_t np = kt_space_nparams(s->space);
    s->nbatch = 0;
    for (size_t i = 0; i < n; i++)
        if (kt_space_index_of(s->space, out + i * np, &s->batch[s->nbatch]) == KT_OK)
            s->nbatch++;
    return KT_OK;
}

static int ens_propose(void *state, uint16_t *out, size_t max, size_t *n)
{
    ens_state *s = state;
    *n = 0;
    s->nbatch = 0;
    for (size_t a = choose(s); a < s->narms; a = choose(s)) {
        arm *r = &s->arms[a];
        int rc = r->st->propose(r->state, out, max, n);
        if (rc != KT_OK)
            return rc;
        if (*n > 0) {
            s->last = a;
            return remember_batch(s, out, *n);
        }
        r->done = true;
    }
    return KT_OK;
}

static void ens_observe(void *state, const uint16_t *cfg, const kt_result *r)
{
    ens_state *s = state;
    for (size_t a = 0; a < s->narms; a++)
        if (s->arms[a].st->observe)
            s->arms[a].st->observe(s->arms[a].state, cfg, r);
    double cost = kt_objective_cost(s->objective, r);
    uint64_t idx;
    if (kt_space_index_of(s->space, cfg, &idx) == KT_OK)
        for (size_t i = 0; i < s->nbatch; i++)
            if (s->batch[i] == idx) {
                add_use(s, s->last, cost < s->best);
                s->batch[i] = s->batch[--s->nbatch];
                break;
            }
    if (cost < s->best)
        s->best = cost;
}

const kt_strategy kt_strategy_ensemble = {
    .abi = KT_STRATEGY_ABI,
    .name = "ensemble",
    .summary = "bandit over the search strategies, by recent success",
    .init = ens_init,
    .propose = ens_propose,
    .observe = ens_observe,
    .free = ens_free,
};
