/* local_search.c - first-improvement hill climbing with random restarts.
 *
 * From the current configuration, the valid Hamming neighbours (one
 * parameter changed; those one value away first, each group shuffled) are
 * tried one at a time; the first that is faster becomes the current one.
 * When none is, the current one is a local optimum and the climb restarts
 * from an unseen random configuration (walk.h: the first climb starts from
 * the best configuration observed).  Neighbours whose cost is known are
 * compared without a measurement.  One configuration per batch: first
 * improvement is sequential by nature, and a batch would measure
 * neighbours that a sequential climb never needs.
 */
#include "search/strategy.h"
#include "search/walk.h"

#include <stdlib.h>

typedef struct ls_state {
    kt_history hist;      /* first: observe is kt_history_observe_state */
    kt_rng rng;
    kt_walk walk;
} ls_state;

static void ls_free(void *state)
{
    ls_state *s = state;
    if (!s)
        return;
    kt_history_clear(&s->hist);
    kt_walk_clear(&s->walk);
    free(s);
}

static int ls_init(kt_space *space, const kt_strategy_opts *opts, void **state,
                   kt_diag *diag)
{
    (void)diag;
    ls_state *s = calloc(1, sizeof *s);
    if (!s)
        return KT_ENOMEM;
    kt_rng_seed(&s->rng, opts->seed);
    int rc = kt_history_init(&s->hist, space, opts->objective);
    if (rc == KT_OK)
        rc = kt_walk_init(&s->walk, space, &s->hist, &s->rng);
    s->walk.samples = kt_walk_samples(opts->budget);
    if (rc != KT_OK) {
        ls_free(s);
        return rc;
    }
    *state = s;
    return KT_OK;
}

/* One step of the climb: true when it proposed a configuration, ended the
 * search (*done), or failed; false when it moved and steps again. */
static bool climb_step(ls_state *s, kt_batch *b, bool *done)
{
    kt_walk *w = &s->walk;
    double cur, c;
    if (!w->active) {
        *done = !kt_walk_restart(w, b);
        return *done || b->n > 0 || b->rc != KT_OK;
    }
    if (!kt_walk_cost(w, &cur)) {
        w->active = false;   /* the start failed: restart */
        return false;
    }
    while (w->next < w->nnbrs) {
        const uint16_t *nb = w->nbrs + w->next * w->np;
        if (!kt_history_cost_of(&s->hist, nb, &c)) {
            kt_batch_add(b, nb);  /* unseen: a batch begins with none pending */
            return true;
        }
        w->next++;
        if (c < cur) {
            b->rc = kt_walk_move(w, nb);
            return b->rc != KT_OK;
        }
    }
    w->active = false;  /* a local optimum */
    return false;
}

static int ls_propose(void *state, uint16_t *out, size_t max, size_t *n)
{
    ls_state *s = state;
    kt_batch b = kt_batch_begin(&s->hist, out, max);
    if (kt_walk_sample(&s->walk, &b))
        return kt_batch_end(&b, n);
    b.max = max < 1 ? max : 1;
    bool done = false;
    while (!kt_batch_full(&b) && !done && !climb_step(s, &b, &done)) {
    }
    return kt_batch_end(&b, n);
}

const kt_strategy kt_strategy_local_search = {
    .abi = KT_STRATEGY_ABI,
    .name = "local_search",
    .summary = "first-improvement hill climbing with random restarts",
    .init = ls_init,
    .propose = ls_propose,
    .observe = kt_history_observe_state,
    .free = ls_free,
};
