/* archive.c - the MAP-Elites archive (archive.h): behaviour dimensions,
 * their bins over the space, and the elite of each cell. */
#include "search/archive.h"
#include "core/util.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define MAX_DIMS KT_BEHAVIOUR_MAX_DIMS
#define FALLBACK_DIMS 2

/* One dimension: how its value is computed, and its bins. */
typedef struct dim {
    const char *name;          /* the spec's, or a static one */
    const char *where;         /* the spec key it comes from, for errors */
    const kt_expr *expr[3];    /* the value is their product... */
    size_t nexpr;
    size_t param;              /* ...or, with none, this parameter's value */
    size_t want;               /* bins asked for */
    double *vals;              /* distinct values over the space, ascending */
    size_t nvals, nbins;
} dim;

struct kt_archive {
    kt_space *space;
    dim dims[MAX_DIMS];
    size_t ndims;
    uint64_t ncells;
    uint32_t *cell;            /* per built index */
    uint64_t *first;           /* per cell + 1: where its members start */
    uint64_t *members;         /* built indices grouped by cell, ascending */
    uint64_t *elite;           /* per cell: built index; UINT64_MAX when empty */
    double *cost;              /* per cell: the elite's cost */
    double *time_ms, *energy_j; /* per cell: the elite's, as offered (NAN: unknown) */
    uint64_t *order;           /* occupied cells, in the order first filled */
    size_t noccupied;
};

/* ----------------------------------------------------------- dimensions */

static bool reads_param(const kt_spec *s, const kt_expr *e)
{
    if (!e)
        return false;
    const uint32_t *slots = kt_expr_slots(e);
    for (size_t i = 0; i < kt_expr_nslots(e); i++)
        if (slots[i] < s->nparams)
            return true;
    return false;
}

static dim *dim_add(kt_archive *a, const char *name, const char *where)
{
    dim *d = &a->dims[a->ndims++];
    *d = (dim){.name = name, .where = where, .want = KT_BEHAVIOUR_DEFAULT_BINS};
    return d;
}

static bool is_dim_param(const kt_archive *a, size_t p)
{
    for (size_t k = 0; k < a->ndims; k++)
        if (a->dims[k].nexpr == 0 && a->dims[k].param == p)
            return true;
    return false;
}

/* Threads per block and shared memory where they vary, then the parameters
 * with the most values. */
static void fallback_dims(kt_archive *a, const kt_spec *s)
{
    bool threads = false;
    for (int i = 0; i < 3; i++)
        threads |= reads_param(s, s->local[i]);
    if (threads) {
        dim *d = dim_add(a, "threads per block", "KernelSpecification.LocalSize");
        for (int i = 0; i < 3; i++)
            if (s->local[i])
                d->expr[d->nexpr++] = s->local[i];
    }
    if (reads_param(s, s->shared)) {
        dim *d = dim_add(a, "shared memory bytes", "KernelSpecification.SharedMemory");
        d->expr[d->nexpr++] = s->shared;
    }
    while (a->ndims < FALLBACK_DIMS) {
        size_t best = SIZE_MAX;
        for (size_t p = 0; p < s->nparams; p++)
            if (s->params[p].nvalues > 1 && !is_dim_param(a, p) &&
                (best == SIZE_MAX || s->params[p].nvalues > s->params[best].nvalues))
                best = p;
        if (best == SIZE_MAX)
            return;
        dim_add(a, s->params[best].name, "ConfigurationSpace.TuningParameters")->param =
            best;
    }
}

static void choose_dims(kt_archive *a, const kt_spec *s)
{
    for (size_t i = 0; i < s->ndims && i < MAX_DIMS; i++) {
        dim *d = dim_add(a, s->dims[i].name, "ConfigurationSpace.BehaviourDimensions");
        d->expr[d->nexpr++] = s->dims[i].expr;
        d->want = s->dims[i].bins;
    }
    if (a->ndims == 0)
        fallback_dims(a, s);
}

/* ----------------------------------------------------------------- bins */

static int cmp_double(const void *x, const void *y)
{
    double a = *(const double *)x, b = *(const double *)y;
    return (a > b) - (a < b);
}

/* Dimension d's value for a configuration whose slots are filled. */
static int dim_value(const dim *d, const kt_spec *s, const uint16_t *cfg,
                     const double *slots, double *out)
{
    if (d->nexpr == 0) {
        *out = s->params[d->param].values[cfg[d->param]];
        return KT_OK;
    }
    double v = 1;
    for (size_t i = 0; i < d->nexpr; i++) {
        double x;
        int rc = kt_expr_eval(d->expr[i], slots, &x);
        if (rc != KT_OK)
            return rc;
        v *= x;
    }
    *out = v;
    return isfinite(v) ? KT_OK : KT_EDOMAIN;
}

/* The value of dimension d on every configuration, into v[size]. */
static int eval_all(const kt_archive *a, const dim *d, double *v, double *slots,
                    kt_diag *diag)
{
    const kt_spec *s = kt_space_spec(a->space);
    for (uint64_t i = 0; i < kt_space_size(a->space); i++) {
        const uint16_t *cfg = kt_space_at(a->space, i);
        kt_space_slots(a->space, cfg, slots);
        int rc = dim_value(d, s, cfg, slots, &v[i]);
        if (rc != KT_OK) {
            char *key = kt_spec_config_key(s, cfg);
            kt_fail(diag, KT_ESPEC, "%s: %s: behaviour dimension '%s' cannot be "
                    "evaluated for %s: %s", s->path, d->where, d->name,
                    key ? key : "a configuration", kt_strerror(rc));
            free(key);
            return KT_ESPEC;
        }
    }
    return KT_OK;
}

/* The distinct values of v[n] (sorted in place) into d->vals, and the bins. */
static int make_bins(dim *d, double *v, uint64_t n)
{
    qsort(v, n, sizeof *v, cmp_double);
    size_t m = 0;
    for (uint64_t i = 0; i < n; i++)
        m += i == 0 || v[i] != v[i - 1];
    if (!(d->vals = malloc((m ? m : 1) * sizeof *d->vals)))
        return KT_ENOMEM;
    for (uint64_t i = 0; i < n; i++)
        if (i == 0 || v[i] != v[i - 1])
            d->vals[d->nvals++] = v[i];
    d->nbins = d->nvals < d->want ? d->nvals : d->want;
    return KT_OK;
}

/* The bin of value x (one of d->vals). */
static size_t bin_of(const dim *d, double x)
{
    size_t lo = 0, hi = d->nvals;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (d->vals[mid] < x)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo * d->nbins / d->nvals;
}

/* Bin dimension k and fold its bin into every configuration's cell. */
static int bin_dim(kt_archive *a, size_t k, double *v, double *slots, kt_diag *diag)
{
    dim *d = &a->dims[k];
    uint64_t n = kt_space_size(a->space);
    int rc = eval_all(a, d, v, slots, diag);
    if (rc != KT_OK)
        return rc;
    double *sorted = malloc(n * sizeof *sorted);
    if (!sorted)
        return kt_fail(diag, KT_ENOMEM, "out of memory");
    memcpy(sorted, v, n * sizeof *v);
    rc = make_bins(d, sorted, n);
    free(sorted);
    if (rc != KT_OK)
        return kt_fail(diag, rc, "out of memory");
    if (a->ncells * d->nbins > KT_ARCHIVE_MAX_CELLS)
        return kt_fail(diag, KT_ESPEC, "%s: the behaviour dimensions make more than %u "
                       "cells: use fewer Bins", kt_space_spec(a->space)->path,
                       KT_ARCHIVE_MAX_CELLS);
    a->ncells *= d->nbins;
    for (uint64_t i = 0; i < n; i++)
        a->cell[i] = (uint32_t)(a->cell[i] * d->nbins + bin_of(d, v[i]));
    return KT_OK;
}

/* ------------------------------------------------------------------ api */

static int archive_bin(kt_archive *a, kt_diag *diag)
{
    const kt_spec *s = kt_space_spec(a->space);
    uint64_t n = kt_space_size(a->space);
    double *v = malloc((n ? n : 1) * sizeof *v);
    double *slots = calloc(s->nnames + 1, sizeof *slots);
    a->cell = calloc(n ? n : 1, sizeof *a->cell);
    int rc = v && slots && a->cell ? KT_OK : kt_fail(diag, KT_ENOMEM, "out of memory");
    a->ncells = 1;
    for (size_t k = 0; rc == KT_OK && k < a->ndims; k++)
        rc = bin_dim(a, k, v, slots, diag);
    free(v);
    free(slots);
    return rc;
}

/* The members of each cell (a counting sort of the built indices). */
static int archive_members(kt_archive *a, kt_diag *diag)
{
    uint64_t n = kt_space_size(a->space);
    a->first = calloc(a->ncells + 1, sizeof *a->first);
    a->members = malloc(n * sizeof *a->members);
    if (!a->first || !a->members)
        return kt_fail(diag, KT_ENOMEM, "out of memory");
    for (uint64_t i = 0; i < n; i++)
        a->first[a->cell[i] + 1]++;
    for (uint64_t c = 0; c < a->ncells; c++)
        a->first[c + 1] += a->first[c];
    for (uint64_t i = 0; i < n; i++)  /* first[c] runs ahead, then shifts back */
        a->members[a->first[a->cell[i]]++] = i;
    for (uint64_t c = a->ncells; c > 0; c--)
        a->first[c] = a->first[c - 1];
    a->first[0] = 0;
    return KT_OK;
}

static int archive_cells(kt_archive *a, kt_diag *diag)
{
    a->elite = malloc(a->ncells * sizeof *a->elite);
    a->cost = malloc(a->ncells * sizeof *a->cost);
    a->order = malloc(a->ncells * sizeof *a->order);
    a->time_ms = malloc(a->ncells * sizeof *a->time_ms);
    a->energy_j = malloc(a->ncells * sizeof *a->energy_j);
    if (!a->elite || !a->cost || !a->order || !a->time_ms || !a->energy_j)
        return kt_fail(diag, KT_ENOMEM, "out of memory");
    for (uint64_t c = 0; c < a->ncells; c++) {
        a->elite[c] = UINT64_MAX;
        a->cost[c] = INFINITY;
    }
    return KT_OK;
}

int kt_archive_new(kt_space *space, kt_archive **out, kt_diag *diag)
{
    *out = NULL;
    if (!kt_space_is_built(space) || kt_space_size(space) == 0)
        return kt_fail(diag, KT_EEMPTY, "the archive needs a built, non-empty space");
    kt_archive *a = calloc(1, sizeof *a);
    if (!a)
        return kt_fail(diag, KT_ENOMEM, "out of memory");
    a->space = space;
    choose_dims(a, kt_space_spec(space));
    int rc = a->ndims > 0 ? KT_OK
                          : kt_fail(diag, KT_EEMPTY, "%s: no behaviour dimension: the spec "
                                    "names none and no tuning parameter has two values",
                                    kt_space_spec(space)->path);
    if (rc == KT_OK)
        rc = archive_bin(a, diag);
    if (rc == KT_OK)
        rc = archive_cells(a, diag);
    if (rc == KT_OK)
        rc = archive_members(a, diag);
    if (rc != KT_OK) {
        kt_archive_free(a);
        return rc;
    }
    *out = a;
    return KT_OK;
}

void kt_archive_free(kt_archive *a)
{
    if (!a)
        return;
    for (size_t k = 0; k < a->ndims; k++)
        free(a->dims[k].vals);
    free(a->cell);
    free(a->first);
    free(a->members);
    free(a->elite);
    free(a->cost);
    free(a->time_ms);
    free(a->energy_j);
    free(a->order);
    free(a);
}

size_t kt_archive_ndims(const kt_archive *a) { return a->ndims; }
bool kt_archive_fallback(const kt_archive *a) { return kt_space_spec(a->space)->ndims == 0; }
const char *kt_archive_dim_name(const kt_archive *a, size_t d) { return a->dims[d].name; }
size_t kt_archive_dim_bins(const kt_archive *a, size_t d) { return a->dims[d].nbins; }
uint64_t kt_archive_ncells(const kt_archive *a) { return a->ncells; }

void kt_archive_bin_range(const kt_archive *a, size_t d, size_t b, double *lo,
                          double *hi)
{
    const dim *x = &a->dims[d];
    *lo = *hi = NAN;
    for (size_t r = 0; r < x->nvals; r++)
        if (r * x->nbins / x->nvals == b) {
            if (isnan(*lo))
                *lo = x->vals[r];
            *hi = x->vals[r];
        }
}

uint64_t kt_archive_cell_of(const kt_archive *a, uint64_t idx) { return a->cell[idx]; }

uint64_t kt_archive_cell_size(const kt_archive *a, uint64_t cell)
{
    return a->first[cell + 1] - a->first[cell];
}

uint64_t kt_archive_member(const kt_archive *a, uint64_t cell, uint64_t k)
{
    return a->members[a->first[cell] + k];
}

size_t kt_archive_bin(const kt_archive *a, uint64_t cell, size_t d)
{
    for (size_t k = a->ndims; k-- > d + 1;)
        cell /= a->dims[k].nbins;
    return (size_t)(cell % a->dims[d].nbins);
}

bool kt_archive_offer_measured(kt_archive *a, uint64_t idx, double cost, double time_ms,
                               double energy_j)
{
    if (idx >= kt_space_size(a->space) || !isfinite(cost))
        return false;
    uint64_t c = a->cell[idx];
    if (a->elite[c] == UINT64_MAX)
        a->order[a->noccupied++] = c;
    else if (!(cost < a->cost[c]))
        return false;
    a->elite[c] = idx;
    a->cost[c] = cost;
    a->time_ms[c] = time_ms;
    a->energy_j[c] = energy_j;
    return true;
}

bool kt_archive_offer(kt_archive *a, uint64_t idx, double cost)
{
    return kt_archive_offer_measured(a, idx, cost, cost, NAN);
}

size_t kt_archive_occupied(const kt_archive *a) { return a->noccupied; }
uint64_t kt_archive_nth(const kt_archive *a, size_t k) { return a->order[k]; }

bool kt_archive_elite(const kt_archive *a, uint64_t cell, uint64_t *idx, double *cost)
{
    if (cell >= a->ncells || a->elite[cell] == UINT64_MAX)
        return false;
    *idx = a->elite[cell];
    *cost = a->cost[cell];
    return true;
}

/* ------------------------------------------------------------------ map */

static int map_dims(const kt_archive *a, kt_map *m)
{
    if (!(m->dims = calloc(a->ndims, sizeof *m->dims)))
        return KT_ENOMEM;
    m->ndims = a->ndims;
    for (size_t d = 0; d < a->ndims; d++) {
        kt_map_dim *x = &m->dims[d];
        x->nbins = a->dims[d].nbins;
        x->name = kt_strdup(a->dims[d].name);
        x->lo = calloc(x->nbins, sizeof *x->lo);
        x->hi = calloc(x->nbins, sizeof *x->hi);
        if (!x->name || !x->lo || !x->hi)
            return KT_ENOMEM;
        for (size_t b = 0; b < x->nbins; b++)
            kt_archive_bin_range(a, d, b, &x->lo[b], &x->hi[b]);
    }
    return KT_OK;
}

static int map_cells(const kt_archive *a, kt_map *m)
{
    if (!(m->filled = calloc(a->noccupied + 1, sizeof *m->filled)))
        return KT_ENOMEM;
    const kt_spec *spec = kt_space_spec(a->space);
    for (uint64_t c = 0; c < a->ncells; c++) {
        uint64_t idx;
        double cost;
        if (!kt_archive_elite(a, c, &idx, &cost))
            continue;
        kt_map_cell *x = &m->filled[m->nfilled++];
        x->cell = c;
        x->cost = cost;
        x->time_ms = a->time_ms[c];
        x->energy_j = a->energy_j[c];
        for (size_t d = 0; d < a->ndims; d++)
            x->bin[d] = kt_archive_bin(a, c, d);
        if (!(x->config = kt_spec_config_key(spec, kt_space_at(a->space, idx))))
            return KT_ENOMEM;
    }
    return KT_OK;
}

int kt_archive_map(const kt_archive *a, kt_map **out)
{
    kt_map *m = calloc(1, sizeof *m);
    if (!(*out = m))
        return KT_ENOMEM;
    m->ncells = a->ncells;
    m->fallback = kt_archive_fallback(a);
    int rc = map_dims(a, m);
    if (rc == KT_OK)
        rc = map_cells(a, m);
    if (rc != KT_OK) {
        kt_map_free(m);
        *out = NULL;
    }
    return rc;
}

void kt_map_free(kt_map *m)
{
    if (!m)
        return;
    for (size_t d = 0; m->dims && d < m->ndims; d++) {
        free(m->dims[d].name);
        free(m->dims[d].lo);
        free(m->dims[d].hi);
    }
    free(m->dims);
    for (size_t i = 0; i < m->nfilled; i++)
        free(m->filled[i].config);
    free(m->filled);
    free(m);
}
