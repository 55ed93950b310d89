/* history.c - the observations of one strategy's run, in an open-addressing
 * hash table keyed by built index (only what the run touched is stored, so
 * a large space costs nothing up front). */
#include "search/history.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

enum { SLOT_EMPTY, SLOT_PENDING, SLOT_KNOWN };

struct kt_history_slot {
    uint64_t idx;
    double cost;       /* SLOT_KNOWN only */
    uint8_t state;
};

int kt_history_init(kt_history *h, kt_space *space, kt_objective objective)
{
    *h = (kt_history){.space = space, .objective = objective,
                      .np = kt_space_nparams(space),
                      .best = UINT64_MAX, .best_cost = INFINITY};
    if (!kt_space_is_built(space))
        return KT_EINVAL;
    if (kt_space_size(space) == 0)
        return KT_EEMPTY;
    h->cap = 64;
    h->slots = calloc(h->cap, sizeof *h->slots);
    return h->slots ? KT_OK : KT_ENOMEM;
}

void kt_history_clear(kt_history *h)
{
    free(h->slots);
    free(h->pending);
    *h = (kt_history){0};
}

/* ---------------------------------------------------------------- table */

static size_t slot_home(uint64_t idx, size_t cap)
{
    uint64_t x = idx * 0x9e3779b97f4a7c15ULL;
    return (size_t)(x >> 17) & (cap - 1);
}

static kt_history_slot *slot_find(const kt_history *h, uint64_t idx)
{
    for (size_t i = slot_home(idx, h->cap);; i = (i + 1) & (h->cap - 1)) {
        kt_history_slot *s = &h->slots[i];
        if (s->state == SLOT_EMPTY || s->idx == idx)
            return s;
    }
}

static bool table_grow(kt_history *h)
{
    size_t cap = h->cap * 2;
    kt_history_slot *old = h->slots, *slots = calloc(cap, sizeof *slots);
    if (!slots)
        return false;
    size_t oldcap = h->cap;
    h->slots = slots;
    h->cap = cap;
    for (size_t i = 0; i < oldcap; i++)
        if (old[i].state != SLOT_EMPTY)
            *slot_find(h, old[i].idx) = old[i];
    free(old);
    return true;
}

/* The slot for idx, inserted empty-handed when new; NULL on OOM. */
static kt_history_slot *slot_get(kt_history *h, uint64_t idx)
{
    if (4 * (h->used + 1) > 3 * h->cap && !table_grow(h))
        return NULL;
    kt_history_slot *s = slot_find(h, idx);
    if (s->state == SLOT_EMPTY) {
        s->idx = idx;
        h->used++;
    }
    return s;
}

static void set_known(kt_history *h, kt_history_slot *s, double cost)
{
    if (s->state != SLOT_KNOWN)
        h->nknown++;
    s->state = SLOT_KNOWN;
    s->cost = cost;
    if (cost < h->best_cost) {
        h->best_cost = cost;
        h->best = s->idx;
    }
}

/* ----------------------------------------------------------------- api */

void kt_history_observe(kt_history *h, const uint16_t *cfg, const kt_result *r)
{
    uint64_t idx;
    if (kt_space_index_of(h->space, cfg, &idx) != KT_OK)
        return;
    kt_history_slot *s = slot_get(h, idx);
    if (!s) {
        h->oom = true;
        return;
    }
    set_known(h, s, kt_objective_cost(h->objective, r));
}

void kt_history_observe_state(void *state, const uint16_t *cfg, const kt_result *r)
{
    kt_history_observe(state, cfg, r);
}

bool kt_history_cost(const kt_history *h, uint64_t idx, double *cost)
{
    const kt_history_slot *s = slot_find(h, idx);
    if (s->state != SLOT_KNOWN)
        return false;
    *cost = s->cost;
    return true;
}

bool kt_history_cost_of(const kt_history *h, const uint16_t *cfg, double *cost)
{
    uint64_t idx;
    return kt_space_index_of(h->space, cfg, &idx) == KT_OK &&
           kt_history_cost(h, idx, cost);
}

size_t kt_history_top(const kt_history *h, size_t k, uint64_t *idx)
{
    size_t n = 0;
    for (size_t i = 0; i < h->cap; i++) {
        const kt_history_slot *s = &h->slots[i];
        if (s->state != SLOT_KNOWN || !isfinite(s->cost))
            continue;
        size_t at = n < k ? n++ : k;  /* insertion into the sorted prefix */
        while (at > 0 && s->cost < slot_find(h, idx[at - 1])->cost) {
            if (at < k)
                idx[at] = idx[at - 1];
            at--;
        }
        if (at < k)
            idx[at] = s->idx;
    }
    return n;
}

bool kt_history_seen(const kt_history *h, uint64_t idx)
{
    return slot_find(h, idx)->state != SLOT_EMPTY;
}

bool kt_history_exhausted(const kt_history *h)
{
    return h->used >= kt_space_size(h->space);
}

/* ---------------------------------------------------------------- batch */

kt_batch kt_batch_begin(kt_history *h, uint16_t *out, size_t max)
{
    for (size_t i = 0; i < h->npending; i++) {
        kt_history_slot *s = slot_find(h, h->pending[i]);
        if (s->state == SLOT_PENDING)
            set_known(h, s, INFINITY);
    }
    h->npending = 0;
    kt_batch b = {.h = h, .out = out, .max = max};
    if (h->oom)
        b.rc = KT_ENOMEM;
    return b;
}

bool kt_batch_full(const kt_batch *b)
{
    return b->n >= b->max || b->rc != KT_OK;
}

static bool pending_push(kt_history *h, uint64_t idx)
{
    if (h->npending == h->pending_cap) {
        size_t cap = h->pending_cap ? 2 * h->pending_cap : 16;
        uint64_t *p = realloc(h->pending, cap * sizeof *p);
        if (!p)
            return false;
        h->pending = p;
        h->pending_cap = cap;
    }
    h->pending[h->npending++] = idx;
    return true;
}

bool kt_batch_add(kt_batch *b, const uint16_t *cfg)
{
    kt_history *h = b->h;
    uint64_t idx;
    if (kt_batch_full(b) || kt_space_index_of(h->space, cfg, &idx) != KT_OK ||
        kt_history_seen(h, idx))
        return false;
    kt_history_slot *s = slot_get(h, idx);
    if (!s || !pending_push(h, idx)) {
        b->rc = KT_ENOMEM;
        return false;
    }
    s->state = SLOT_PENDING;
    memcpy(b->out + b->n++ * h->np, cfg, h->np * sizeof *cfg);
    return true;
}

bool kt_batch_add_all(kt_batch *b, const uint16_t *cfgs, size_t n)
{
    bool all_known = true;
    for (size_t i = 0; i < n; i++) {
        double c;
        const uint16_t *cfg = cfgs + i * b->h->np;
        kt_batch_add(b, cfg);
        all_known &= kt_history_cost_of(b->h, cfg, &c);
    }
    return all_known;
}

int kt_batch_end(const kt_batch *b, size_t *n)
{
    *n = b->rc == KT_OK ? b->n : 0;
    return b->rc;
}
