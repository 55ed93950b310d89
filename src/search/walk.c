/* walk.c - the current position of a trajectory strategy (walk.h). */
#include "search/walk.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

int kt_walk_init(kt_walk *w, kt_space *space, const kt_history *h, kt_rng *rng)
{
    *w = (kt_walk){.space = space, .hist = h, .rng = rng,
                   .np = kt_space_nparams(space)};
    w->cur = malloc(w->np * sizeof *w->cur);
    return w->cur ? KT_OK : KT_ENOMEM;
}

void kt_walk_clear(kt_walk *w)
{
    free(w->cur);
    free(w->nbrs);
    *w = (kt_walk){0};
}

int kt_walk_move(kt_walk *w, const uint16_t *cfg)
{
    memmove(w->cur, cfg, w->np * sizeof *cfg);
    free(w->nbrs);
    w->nbrs = NULL;
    w->next = 0;
    w->active = true;
    return kt_move_neighbours(w->space, w->cur, w->rng, &w->nbrs, &w->nnbrs);
}

size_t kt_walk_samples(uint64_t budget)
{
    uint64_t n = budget / 20;
    return n < 3 ? 3 : n > 9 ? 9 : (size_t)n;
}

bool kt_walk_sample(kt_walk *w, kt_batch *b)
{
    if (!w->started) /* w->cur: scratch until the first start */
        kt_move_sample(b, w->rng, w->samples, w->cur);
    return b->n > 0 || b->rc != KT_OK;
}

bool kt_walk_restart(kt_walk *w, kt_batch *b)
{
    bool first = !w->started;
    w->started = true;
    if (first && w->hist->best != UINT64_MAX) {
        b->rc = kt_walk_move(w, kt_space_at(w->space, w->hist->best));
        return true;
    }
    if (!kt_move_fresh(w->hist, w->rng, w->cur))
        return false;
    kt_batch_add(b, w->cur);
    b->rc = kt_walk_move(w, w->cur);
    return true;
}

bool kt_walk_cost(const kt_walk *w, double *cost)
{
    return kt_history_cost_of(w->hist, w->cur, cost) && isfinite(*cost);
}
