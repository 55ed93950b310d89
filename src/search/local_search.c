/* local_search.c - first-improvement hill climbing with random restarts.
 *
 * From the current configuration, the valid Hamming neighbours (one
 * parameter changed; those one value away first, each group shuffled) are
 * tried one at a time; the first that is faster becomes the current one.
 * When none is, the current one is a local optimum and the climb restarts
 * from an unseen random configuration.  The first climb starts from the
 * best configuration observed (the default, which the tuner evaluates
 * first).  Neighbours whose cost is known are compared without a
 * measurement.  One configuration per batch: first improvement is
 * sequential by nature, and a batch would measure neighbours that a
 * sequential climb never needs.
 */
#include "search/moves.h"
#include "search/strategy.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

typedef struct ls_state {
    kt_space *space;
    kt_history hist;
    kt_rng rng;
    size_t np;
    uint16_t *cur;        /* the climb's position */
    bool climbing;        /* false: restart next */
    bool started;         /* the first climb has begun */
    uint16_t *nbrs;       /* cur's neighbours, in the order tried */
    size_t nnbrs, next;   /* count; the next one to try */
} ls_state;

static void ls_free(void *state)
{
    ls_state *s = state;
    if (!s)
        return;
    kt_history_clear(&s->hist);
    free(s->cur);
    free(s->nbrs);
    free(s);
}

static int ls_init(kt_space *space, const kt_strategy_opts *opts, void **state,
                   kt_diag *diag)
{
    (void)diag;
    ls_state *s = calloc(1, sizeof *s);
    if (!s)
        return KT_ENOMEM;
    s->space = space;
    s->np = kt_space_nparams(space);
    kt_rng_seed(&s->rng, opts->seed);
    int rc = kt_history_init(&s->hist, space);
    if (rc == KT_OK && !(s->cur = malloc(s->np * sizeof *s->cur)))
        rc = KT_ENOMEM;
    if (rc != KT_OK) {
        ls_free(s);
        return rc;
    }
    *state = s;
    return KT_OK;
}

/* Make cfg the current configuration and list its neighbours. */
static int move_to(ls_state *s, const uint16_t *cfg)
{
    memmove(s->cur, cfg, s->np * sizeof *cfg);
    free(s->nbrs);
    s->nbrs = NULL;
    s->next = 0;
    s->climbing = true;
    return kt_move_neighbours(s->space, s->cur, &s->rng, &s->nbrs, &s->nnbrs);
}

/* Begin a climb: from the best observed configuration the first time, else
 * from a fresh one (proposed into b).  False when nothing is left. */
static bool restart(ls_state *s, kt_batch *b)
{
    const kt_history *h = &s->hist;
    if (!s->started && h->best != UINT64_MAX) {
        s->started = true;
        b->rc = move_to(s, kt_space_at(s->space, h->best));
        return true;
    }
    s->started = true;
    if (!kt_move_fresh(h, &s->rng, s->cur))
        return false;
    kt_batch_add(b, s->cur);
    b->rc = move_to(s, s->cur);
    return true;
}

/* One step of the climb: true when it proposed a configuration, ended the
 * search, or failed; false when it moved and should step again. */
static bool climb_step(ls_state *s, kt_batch *b, bool *done)
{
    double cur_cost, c;
    if (!s->climbing) {
        *done = !restart(s, b);
        return *done || b->n > 0 || b->rc != KT_OK;
    }
    if (!kt_history_cost_of(&s->hist, s->cur, &cur_cost) || isinf(cur_cost)) {
        s->climbing = false;   /* the start failed: restart */
        return false;
    }
    while (s->next < s->nnbrs) {
        const uint16_t *nb = s->nbrs + s->next * s->np;
        if (!kt_history_cost_of(&s->hist, nb, &c)) {
            kt_batch_add(b, nb);  /* unseen: a batch begins with none pending */
            return true;
        }
        s->next++;
        if (c < cur_cost) {
            b->rc = move_to(s, nb);
            return b->rc != KT_OK;
        }
    }
    s->climbing = false;  /* a local optimum */
    return false;
}

static int ls_propose(void *state, uint16_t *out, size_t max, size_t *n)
{
    ls_state *s = state;
    kt_batch b = kt_batch_begin(&s->hist, out, max < 1 ? max : 1);
    bool done = false;
    while (!kt_batch_full(&b) && !done && !climb_step(s, &b, &done)) {
    }
    return kt_batch_end(&b, n);
}

static void ls_observe(void *state, const uint16_t *cfg, const kt_result *r)
{
    ls_state *s = state;
    kt_history_observe(&s->hist, cfg, r);
}

const kt_strategy kt_strategy_local_search = {
    .abi = KT_STRATEGY_ABI,
    .name = "local_search",
    .summary = "first-improvement hill climbing with random restarts",
    .init = ls_init,
    .propose = ls_propose,
    .observe = ls_observe,
    .free = ls_free,
};
