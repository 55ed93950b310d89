/* report_elites.c - a run's MAP-Elites map when the kernel's spec is
 * given: the problem's space built and binned by the search layer's
 * archive (search/archive.h), exactly as `ktune tune --map` bins it (the
 * spec's BehaviourDimensions, else ktune's fallbacks), and each stored
 * correct row placed in its cell.  Rows the space does not hold (measured
 * under an older spec) are counted in the caption, not drawn. */
#include "api/report.h"
#include "core/space.h"
#include "search/archive.h"

#include <stdlib.h>

/* Spaces past this many configurations are not listed for a map. */
enum { ELITES_MAX_SPACE = 1 << 20, LABEL = 40 };

/* The fastest row of each cell, projected on the first two dimensions
 * (the others collapsed); how many correct rows were placed. */
static size_t elites_place(const kt_spec *spec, kt_space *sp, const kt_archive *a,
                           const kt_rp_run *run, kt_rp_grid *g, size_t *nok)
{
    size_t placed = 0, nd = kt_archive_ndims(a);
    uint16_t *cfg = calloc(spec->nparams ? spec->nparams : 1, sizeof *cfg);
    for (size_t i = 0; cfg && i < run->n; i++) {
        const kt_rp_row *r = &run->rows[i];
        uint64_t idx;
        if (r->status != KTUNE_STATUS_OK || !(r->time_ms > 0))
            continue;
        ++*nok;
        if (kt_spec_config_parse(spec, r->config, cfg, NULL) != KT_OK ||
            kt_space_index_of(sp, cfg, &idx) != KT_OK)
            continue;
        uint64_t cell = kt_archive_cell_of(a, idx);
        size_t x = kt_archive_bin(a, cell, 0), y = nd > 1 ? kt_archive_bin(a, cell, 1) : 0;
        const kt_rp_row **c = &g->cell[y * g->nx + x];
        if (!*c || r->time_ms < (*c)->time_ms)
            *c = r;
        placed++;
    }
    free(cfg);
    return placed;
}

/* Bin b of dimension d as "lo" or "lo-hi" into buf. */
static const char *bin_label(const kt_archive *a, size_t d, size_t b, char *buf)
{
    double lo, hi;
    kt_archive_bin_range(a, d, b, &lo, &hi);
    if (lo == hi)
        snprintf(buf, LABEL, "%g", lo);
    else
        snprintf(buf, LABEL, "%g-%g", lo, hi);
    return buf;
}

static bool elites_draw(kt_rp *rp, const kt_spec *spec, kt_space *sp, const kt_archive *a,
                        const kt_rp_run *run)
{
    size_t nd = kt_archive_ndims(a), nok = 0, placed = 0;
    kt_rp_grid g = {kt_archive_dim_name(a, 0), nd > 1 ? kt_archive_dim_name(a, 1) : NULL,
                    NULL, NULL, kt_archive_dim_bins(a, 0), nd > 1 ? kt_archive_dim_bins(a, 1) : 1,
                    NULL};
    g.cell = calloc(g.nx * g.ny, sizeof *g.cell);
    char(*text)[LABEL] = calloc(g.nx + g.ny, LABEL);
    const char **label = calloc(g.nx + g.ny, sizeof *label);
    if (g.cell && text && label)
        placed = elites_place(spec, sp, a, run, &g, &nok);
    if (placed) {
        for (size_t i = 0; i < g.nx + g.ny; i++)
            label[i] = i < g.nx ? bin_label(a, 0, i, text[i])
                                : nd > 1 ? bin_label(a, 1, i - g.nx, text[i]) : "";
        g.xlabel = label, g.ylabel = label + g.nx;
        char dims[512];
        snprintf(dims, sizeof dims, "%s, binned as ktune tune --map bins them%s; %zu of the "
                 "run's %zu correct measurements lie in the spec's space for this problem",
                 kt_archive_fallback(a) ? "ktune's MAP-Elites fallback dimensions (the spec "
                                          "names no BehaviourDimensions)"
                                        : "the spec's BehaviourDimensions",
                 nd > 2 ? " (the further dimensions collapsed: a cell is the best over them)"
                        : "", placed, nok);
        kt_rp_grid_draw(rp, &g, dims);
    }
    free(g.cell);
    free(text);
    free(label);
    return placed > 0;
}

bool kt_rp_elites(kt_rp *rp, const kt_spec *spec, const kt_rp_run *run)
{
    kt_problem prob = {0};
    kt_space *sp = NULL;
    kt_archive *a = NULL;
    bool drawn = false;
    if (spec && kt_problem_parse(spec, run->rows[0].problem, &prob, NULL) == KT_OK &&
        kt_space_new(spec, &prob, &sp, NULL) == KT_OK &&
        kt_space_build(sp, ELITES_MAX_SPACE, NULL) == KT_OK &&
        kt_archive_new(sp, &a, NULL) == KT_OK)
        drawn = elites_draw(rp, spec, sp, a, run);
    kt_archive_free(a);
    kt_space_free(sp);
    kt_problem_clear(&prob);
    return drawn;
}
