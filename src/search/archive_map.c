/* archive_map.c - the map of an archive (archive.h): a copy that
 * outlives its space, for the run's report and the command line. */
#include "search/archive_impl.h"
#include "core/util.h"

#include <stdlib.h>

static int map_dims(const kt_archive *a, kt_map *m)
{
    if (!(m->dims = calloc(a->ndims, sizeof *m->dims)))
        return KT_ENOMEM;
    m->ndims = a->ndims;
    for (size_t d = 0; d < a->ndims; d++) {
        kt_map_dim *x = &m->dims[d];
        x->nbins = a->dims[d].nbins;
        x->measured = a->dims[d].measured;
        x->name = kt_strdup(a->dims[d].name);
        x->lo = calloc(x->nbins + 1, sizeof *x->lo);
        x->hi = calloc(x->nbins + 1, sizeof *x->hi);
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
        const kt_archive_entry *e = &a->elite[c];
        if (e->idx == UINT64_MAX)
            continue;
        kt_map_cell *x = &m->filled[m->nfilled++];
        x->cell = c;
        x->cost = e->cost;
        x->time_ms = e->time_ms;
        x->energy_j = e->energy_j;
        for (size_t d = 0; d < a->ndims; d++)
            x->bin[d] = kt_archive_bin(a, c, d);
        if (!(x->config = kt_spec_config_key(spec, kt_space_at(a->space, e->idx))))
            return KT_ENOMEM;
    }
    return KT_OK;
}

int kt_archive_map(kt_archive *a, kt_map **out)
{
    kt_archive_refresh(a);
    kt_map *m = calloc(1, sizeof *m);
    if (!(*out = m))
        return KT_ENOMEM;
    m->ncells = a->ncells;
    m->fallback = kt_archive_fallback(a);
    m->unplaced = a->unplaced;
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
