/* map.c - the public reading of a run's MAP-Elites map (include/ktune.h):
 * search/archive.h's kt_map is the public ktune_map itself. */
#include "core/util.h"
#include "search/archive.h"

int ktune_map_describe(const ktune_map *m, ktune_map_info *out)
{
    if (!m || !out)
        return KT_EINVAL;
    *out = (ktune_map_info){.ndims = m->ndims, .ncells = m->ncells, .nfilled = m->nfilled,
                            .fallback = m->fallback, .unplaced = m->unplaced};
    return KT_OK;
}

const char *ktune_map_dim_name(const ktune_map *m, size_t d)
{
    return m && d < m->ndims ? m->dims[d].name : NULL;
}

size_t ktune_map_dim_bins(const ktune_map *m, size_t d)
{
    return m && d < m->ndims ? m->dims[d].nbins : 0;
}

const char *ktune_map_dim_measured(const ktune_map *m, size_t d)
{
    return m && d < m->ndims ? kt_measured_name(m->dims[d].measured) : NULL;
}

int ktune_map_bin(const ktune_map *m, size_t d, size_t b, double *lo, double *hi)
{
    if (!m || d >= m->ndims || b >= m->dims[d].nbins)
        return KT_ENOTFOUND;
    if (lo)
        *lo = m->dims[d].lo[b];
    if (hi)
        *hi = m->dims[d].hi[b];
    return KT_OK;
}

int ktune_map_elite_at(const ktune_map *m, size_t i, ktune_map_elite *out)
{
    if (!m || i >= m->nfilled)
        return KT_ENOTFOUND;
    const kt_map_cell *c = &m->filled[i];
    if (out)
        *out = (ktune_map_elite){.cell = c->cell, .bins = c->bin, .config = c->config,
                                 .time_ms = c->time_ms, .energy_j = c->energy_j};
    return KT_OK;
}
