/* archive.c - the MAP-Elites archive (archive.h): behaviour dimensions,
 * the bins of the predetermined ones over the space, and the groups they
 * make.  Results, cells and elites: archive_cells.c. */
#include "search/archive_impl.h"
#include "core/util.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define MAX_DIMS KT_BEHAVIOUR_MAX_DIMS
#define FALLBACK_DIMS 2

typedef kt_archive_dim dim;

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
        if (a->dims[k].nexpr == 0 && !a->dims[k].measured && a->dims[k].param == p)
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
        d->measured = s->dims[i].measured;
        if (!d->measured)
            d->expr[d->nexpr++] = s->dims[i].expr;
        d->want = s->dims[i].bins;
        a->measures |= d->measured != KT_MEASURED_NONE;
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

size_t kt_archive_distinct(double *v, size_t n)
{
    qsort(v, n, sizeof *v, cmp_double);
    size_t m = 0;
    for (size_t i = 0; i < n; i++)
        if (m == 0 || v[i] != v[m - 1])
            v[m++] = v[i];
    return m;
}

size_t kt_archive_bin_of(const dim *d, double x)
{
    size_t lo = 0, hi = d->nvals;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (d->vals[mid] < x)
            lo = mid + 1;
        else
            hi = mid;
    }
    if (lo == d->nvals)
        lo = d->nvals - 1;
    return lo * d->nbins / d->nvals;
}

static int too_many_cells(const kt_archive *a, kt_diag *diag)
{
    return kt_fail(diag, KT_ESPEC, "%s: the behaviour dimensions make more than %u cells: "
                   "use fewer Bins", kt_space_spec(a->space)->path, KT_ARCHIVE_MAX_CELLS);
}

/* Bin predetermined dimension k and fold its bin into every
 * configuration's group. */
static int bin_dim(kt_archive *a, size_t k, double *v, double *slots, kt_diag *diag)
{
    dim *d = &a->dims[k];
    uint64_t n = kt_space_size(a->space);
    int rc = eval_all(a, d, v, slots, diag);
    if (rc != KT_OK)
        return rc;
    if (!(d->vals = malloc(n * sizeof *d->vals)))
        return kt_fail(diag, KT_ENOMEM, "out of memory");
    memcpy(d->vals, v, n * sizeof *v);
    d->nvals = kt_archive_distinct(d->vals, n);
    double *fit = realloc(d->vals, d->nvals * sizeof *fit);  /* n > 0: so is nvals */
    if (fit)
        d->vals = fit;
    d->nbins = d->nvals < d->want ? d->nvals : d->want;
    if (a->ngroups * d->nbins > KT_ARCHIVE_MAX_CELLS)
        return too_many_cells(a, diag);
    a->ngroups *= d->nbins;
    for (uint64_t i = 0; i < n; i++)
        a->group[i] = (uint32_t)(a->group[i] * d->nbins + kt_archive_bin_of(d, v[i]));
    return KT_OK;
}

/* ------------------------------------------------------------------ api */

static int archive_bin(kt_archive *a, kt_diag *diag)
{
    const kt_spec *s = kt_space_spec(a->space);
    uint64_t n = kt_space_size(a->space);
    double *v = malloc(n * sizeof *v);
    double *slots = calloc(s->nnames + 1, sizeof *slots);
    a->group = calloc(n, sizeof *a->group);
    int rc = v && slots && a->group ? KT_OK : kt_fail(diag, KT_ENOMEM, "out of memory");
    a->ngroups = 1;
    for (size_t k = 0; rc == KT_OK && k < a->ndims; k++)
        if (!a->dims[k].measured)
            rc = bin_dim(a, k, v, slots, diag);
    a->maxcells = a->ngroups;
    for (size_t k = 0; rc == KT_OK && k < a->ndims; k++)
        if (a->dims[k].measured && (a->maxcells *= a->dims[k].want) > KT_ARCHIVE_MAX_CELLS)
            rc = too_many_cells(a, diag);
    free(v);
    free(slots);
    return rc;
}

/* The members of each group (a counting sort of the built indices). */
static int archive_members(kt_archive *a, kt_diag *diag)
{
    uint64_t n = kt_space_size(a->space);
    a->first = calloc(a->ngroups + 1, sizeof *a->first);
    a->members = malloc(n * sizeof *a->members);
    if (!a->first || !a->members)
        return kt_fail(diag, KT_ENOMEM, "out of memory");
    for (uint64_t i = 0; i < n; i++)
        a->first[a->group[i] + 1]++;
    for (uint64_t g = 0; g < a->ngroups; g++)
        a->first[g + 1] += a->first[g];
    for (uint64_t i = 0; i < n; i++)  /* first[g] runs ahead, then shifts back */
        a->members[a->first[a->group[i]]++] = i;
    for (uint64_t g = a->ngroups; g > 0; g--)
        a->first[g] = a->first[g - 1];
    a->first[0] = 0;
    return KT_OK;
}

static int archive_cells(kt_archive *a, kt_diag *diag)
{
    a->elite = malloc(a->maxcells * sizeof *a->elite);
    a->order = malloc(a->maxcells * sizeof *a->order);
    a->filled = calloc(a->ngroups, sizeof *a->filled);
    if (!a->elite || !a->order || !a->filled)
        return kt_fail(diag, KT_ENOMEM, "out of memory");
    a->ncells = a->measures ? 0 : a->ngroups;  /* no measured value yet */
    kt_archive_clear_cells(a);
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
    free(a->group);
    free(a->first);
    free(a->members);
    free(a->filled);
    free(a->elite);
    free(a->order);
    free(a->kept);
    free(a);
}

size_t kt_archive_ndims(const kt_archive *a) { return a->ndims; }
bool kt_archive_fallback(const kt_archive *a) { return kt_space_spec(a->space)->ndims == 0; }
const char *kt_archive_dim_name(const kt_archive *a, size_t d) { return a->dims[d].name; }
kt_measured kt_archive_dim_measured(const kt_archive *a, size_t d)
{
    return a->dims[d].measured;
}
bool kt_archive_measures(const kt_archive *a) { return a->measures; }
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

size_t kt_archive_bin(const kt_archive *a, uint64_t cell, size_t d)
{
    for (size_t k = a->ndims; k-- > d + 1;)
        cell /= a->dims[k].nbins;
    return (size_t)(cell % a->dims[d].nbins);
}

/* ---------------------------------------------------------------- groups */

uint64_t kt_archive_ngroups(const kt_archive *a) { return a->ngroups; }
uint64_t kt_archive_group_of(const kt_archive *a, uint64_t idx) { return a->group[idx]; }

uint64_t kt_archive_group_size(const kt_archive *a, uint64_t g)
{
    return a->first[g + 1] - a->first[g];
}

uint64_t kt_archive_group_member(const kt_archive *a, uint64_t g, uint64_t k)
{
    return a->members[a->first[g] + k];
}

bool kt_archive_group_filled(const kt_archive *a, uint64_t g) { return a->filled[g]; }
