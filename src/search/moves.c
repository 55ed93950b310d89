/* moves.c - constraint-aware moves shared by the strategies (moves.h). */
#include "search/moves.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Draws before falling back to a scan for an unseen configuration. */
#define FRESH_DRAWS 64

bool kt_move_fresh(const kt_history *h, kt_rng *rng, uint16_t *cfg)
{
    uint64_t size = kt_space_size(h->space);
    if (size == 0 || kt_history_exhausted(h))
        return false;
    uint64_t idx = 0;
    bool found = false;
    for (int i = 0; i < FRESH_DRAWS && !found; i++)
        found = !kt_history_seen(h, idx = kt_rng_below(rng, size));
    for (uint64_t k = 0; k < size && !found; k++)
        found = !kt_history_seen(h, idx = (idx + 1) % size);
    if (found)
        memcpy(cfg, kt_space_at(h->space, idx), h->np * sizeof *cfg);
    return found;
}

void kt_move_sample(kt_batch *b, kt_rng *rng, uint64_t known, uint16_t *scratch)
{
    while (b->h->nknown + b->n < known && !kt_batch_full(b) &&
           kt_move_fresh(b->h, rng, scratch))
        kt_batch_add(b, scratch);
}

/* ------------------------------------------------------------- repair */

/* Does some valid configuration start with cfg[0..len)?  The built list is
 * in lexicographic order, so a binary search for the prefix answers. */
static bool prefix_exists(const kt_space *s, const uint16_t *cfg, size_t len)
{
    uint64_t lo = 0, hi = kt_space_size(s);
    while (lo < hi) {
        uint64_t mid = lo + (hi - lo) / 2;
        const uint16_t *c = kt_space_at(s, mid);
        int cmp = 0;
        for (size_t i = 0; i < len && cmp == 0; i++)
            cmp = c[i] < cfg[i] ? -1 : c[i] > cfg[i];
        if (cmp == 0)
            return true;
        if (cmp < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    return false;
}

/* The target of parameter d is x[d] when x is given, else c[d]. */
static void repair(const kt_space *s, const double *x, const uint16_t *c,
                   uint16_t *cfg)
{
    const kt_spec *spec = kt_space_spec(s);
    for (size_t d = 0; d < spec->nparams; d++) {
        long nv = (long)spec->params[d].nvalues;
        double t = fmin(fmax(x ? x[d] : c[d], 0), (double)(nv - 1));
        long near = lround(t);
        /* near, then alternately either side, closest first */
        bool up_first = t >= (double)near;
        for (long k = 0; k < 2 * nv; k++) {
            long off = (k + 1) / 2, v = near + ((k % 2 == 1) == up_first ? off : -off);
            if (v < 0 || v >= nv)
                continue;
            cfg[d] = (uint16_t)v;
            if (prefix_exists(s, cfg, d + 1))
                break;
        }
    }
}

void kt_move_repair(const kt_space *s, const double *target, uint16_t *cfg)
{
    repair(s, target, NULL, cfg);
}

void kt_move_repair_cfg(const kt_space *s, const uint16_t *cand, uint16_t *cfg)
{
    repair(s, NULL, cand, cfg);
}

/* ---------------------------------------------------------- neighbours */

static void swap_rows(uint16_t *a, uint16_t *b, size_t np)
{
    for (size_t i = 0; i < np; i++) {
        uint16_t t = a[i];
        a[i] = b[i];
        b[i] = t;
    }
}

static void shuffle_rows(uint16_t *rows, size_t n, size_t np, kt_rng *rng)
{
    for (size_t i = n; i > 1; i--)
        swap_rows(rows + (i - 1) * np, rows + kt_rng_below(rng, i) * np, np);
}

/* Is row a one-step (adjacent value) neighbour of cfg? */
static bool adjacent(const uint16_t *row, const uint16_t *cfg, size_t np)
{
    for (size_t i = 0; i < np; i++)
        if (row[i] != cfg[i])
            return row[i] + 1 == cfg[i] || cfg[i] + 1 == row[i];
    return false;
}

int kt_move_neighbours(kt_space *s, const uint16_t *cfg, kt_rng *rng,
                       uint16_t **out, size_t *n)
{
    const kt_spec *spec = kt_space_spec(s);
    size_t np = spec->nparams, cap = 1;
    for (size_t d = 0; d < np; d++)
        cap += spec->params[d].nvalues - 1;
    *n = 0;
    if (!(*out = malloc(cap * np * sizeof **out)))
        return KT_ENOMEM;
    int rc = kt_space_neighbours(s, cfg, KT_NBR_HAMMING, *out, cap, n);
    if (rc != KT_OK)
        return rc;
    size_t near = 0;  /* partition: adjacent ones first */
    for (size_t i = 0; i < *n; i++)
        if (adjacent(*out + i * np, cfg, np))
            swap_rows(*out + i * np, *out + near++ * np, np);
    shuffle_rows(*out, near, np, rng);
    shuffle_rows(*out + near * np, *n - near, np, rng);
    return KT_OK;
}

void kt_move_coords(const uint16_t *cfg, size_t np, double *x)
{
    for (size_t d = 0; d < np; d++)
        x[d] = cfg[d];
}

double kt_move_top(const kt_space *s, size_t d)
{
    return (double)kt_space_spec(s)->params[d].nvalues - 1;
}
