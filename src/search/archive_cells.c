/* archive_cells.c - the results an archive is offered, the bins of its
 * measured dimensions, its cells and their elites (archive.h). */
#include "search/archive_impl.h"

#include <math.h>
#include <stdlib.h>

typedef kt_archive_dim dim;
typedef kt_archive_entry entry;

/* What e measured along m; false when it is not known. */
static bool measured_value(kt_measured m, const entry *e, double *v)
{
    *v = m == KT_MEASURED_ENERGY ? e->energy_j
         : m == KT_MEASURED_POWER ? e->power_w : e->time_ms;
    return isfinite(*v) && *v >= 0;
}

static bool placeable(const kt_archive *a, const entry *e)
{
    double v;
    for (size_t k = 0; k < a->ndims; k++)
        if (a->dims[k].measured && !measured_value(a->dims[k].measured, e, &v))
            return false;
    return isfinite(e->cost);
}

/* The cell of a placeable e by the current bins; false when a measured
 * dimension has no bin yet. */
static bool cell_of_entry(const kt_archive *a, const entry *e, uint64_t *cell)
{
    size_t bin[KT_BEHAVIOUR_MAX_DIMS];
    uint64_t g = a->group[e->idx];
    for (size_t k = a->ndims; k-- > 0;) {
        const dim *d = &a->dims[k];
        double v;
        if (d->nbins == 0)
            return false;
        if (d->measured) {
            measured_value(d->measured, e, &v);
            bin[k] = kt_archive_bin_of(d, v);
        } else {
            bin[k] = (size_t)(g % d->nbins);
            g /= d->nbins;
        }
    }
    *cell = 0;
    for (size_t k = 0; k < a->ndims; k++)
        *cell = *cell * a->dims[k].nbins + bin[k];
    return true;
}

void kt_archive_clear_cells(kt_archive *a)
{
    for (uint64_t c = 0; c < a->ncells; c++)
        a->elite[c] = (entry){.idx = UINT64_MAX, .cost = INFINITY};
    a->noccupied = 0;
}

/* e into cell when it beats the elite there (a tie leaves the earlier). */
static void place(kt_archive *a, uint64_t cell, const entry *e)
{
    entry *x = &a->elite[cell];
    if (x->idx == UINT64_MAX)
        a->order[a->noccupied++] = cell;
    else if (!(e->cost < x->cost))
        return;
    *x = *e;
}

/* Keep e for the next refresh, with room for its measured values. */
static int keep(kt_archive *a, const entry *e)
{
    if (a->nkept == a->cap) {
        size_t cap = a->cap ? 2 * a->cap : 64;
        entry *kept = realloc(a->kept, cap * sizeof *kept);
        if (!kept)
            return KT_ENOMEM;
        a->kept = kept;
        for (size_t k = 0; k < a->ndims; k++) {
            dim *d = &a->dims[k];
            double *v = d->measured ? realloc(d->vals, cap * sizeof *v) : d->vals;
            if (!v)
                return KT_ENOMEM;
            d->vals = v;
        }
        a->cap = cap;
    }
    a->kept[a->nkept++] = *e;
    a->stale = true;
    return KT_OK;
}

int kt_archive_offer(kt_archive *a, uint64_t idx, double cost, const kt_result *r)
{
    if (idx >= kt_space_size(a->space))
        return KT_OK;
    entry e = r ? (entry){idx, cost, r->time_ms, r->energy_j, r->power_w}
                : (entry){idx, cost, cost, NAN, NAN};
    if (!placeable(a, &e)) {
        a->unplaced += r ? r->status == KT_STATUS_OK : isfinite(cost);
        return KT_OK;
    }
    int rc = a->measures ? keep(a, &e) : KT_OK;
    if (rc == KT_OK)
        a->filled[a->group[idx]] = true;
    if (!a->measures)
        place(a, a->group[idx], &e);
    return rc;
}

/* Measured dimension d's values and bins from the kept results. */
static void rebin(kt_archive *a, dim *d)
{
    for (size_t i = 0; i < a->nkept; i++)
        measured_value(d->measured, &a->kept[i], &d->vals[i]);
    d->nvals = kt_archive_distinct(d->vals, a->nkept);
    d->nbins = d->nvals < d->want ? d->nvals : d->want;
}

void kt_archive_refresh(kt_archive *a)
{
    if (!a->stale)
        return;
    a->stale = false;
    a->ncells = a->ngroups;
    for (size_t k = 0; k < a->ndims; k++)
        if (a->dims[k].measured) {
            rebin(a, &a->dims[k]);
            a->ncells *= a->dims[k].nbins;
        }
    kt_archive_clear_cells(a);
    uint64_t cell;
    for (size_t i = 0; i < a->nkept; i++)
        if (cell_of_entry(a, &a->kept[i], &cell))
            place(a, cell, &a->kept[i]);
}

bool kt_archive_cell_of(const kt_archive *a, uint64_t idx, const kt_result *r,
                        uint64_t *cell)
{
    entry e = r ? (entry){idx, 0, r->time_ms, r->energy_j, r->power_w}
                : (entry){idx, 0, NAN, NAN, NAN};
    return idx < kt_space_size(a->space) && placeable(a, &e) && cell_of_entry(a, &e, cell);
}

size_t kt_archive_occupied(const kt_archive *a) { return a->noccupied; }
uint64_t kt_archive_nth(const kt_archive *a, size_t k) { return a->order[k]; }

bool kt_archive_elite(const kt_archive *a, uint64_t cell, uint64_t *idx, double *cost)
{
    if (cell >= a->ncells || a->elite[cell].idx == UINT64_MAX)
        return false;
    *idx = a->elite[cell].idx;
    *cost = a->elite[cell].cost;
    return true;
}

bool kt_archive_few_placed(const kt_archive *a)
{
    size_t cells = 1;
    for (size_t k = 0; k < a->ndims; k++)
        if (a->dims[k].measured)
            cells *= a->dims[k].want;
    return a->measures && a->nkept < cells;
}

size_t kt_archive_unplaced(const kt_archive *a) { return a->unplaced; }
